"""The HyObscure experiments' sweeps (Figs. 6-9), run time (Fig. 10) and convergence (Fig. 11).

Each runs the points of :mod:`ppdp.experiments.hyobscure.run` (same splits, settings and scores as
the trade-off) with one setting varied, and returns tidy rows; an infeasible constraint setting is
recorded as the metric ``infeasible``.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ppdp.base import InfeasibleError
from ppdp.experiments.common import (
    TIDY_COLUMNS,
    concat_tidy,
    facet_columns,
    map_in_workers,
    tidy_frame,
    tidy_rows,
    with_parameters,
)
from ppdp.experiments.hyobscure.run import (
    KNOB,
    PointScores,
    _build,
    _config,
    _Context,
    run_point,
)
from ppdp.mechanisms import hyobscure as hy

__all__ = [
    "CONSTRAINT_SWEEPS",
    "cluster_count_sweep",
    "constraint_across",
    "constraint_sweep",
    "convergence",
    "grid_label",
    "group_count_sweep",
    "scaling",
]


def _sweep(
    pop,
    seeds,
    name,
    values,
    methods,
    knob_of,
    make_overrides,
    n_draws,
    overrides,
    models,
    scenarios,
    progress,
    n_jobs=1,
):
    def one(seed) -> list[dict]:
        rows = []
        for value in values:
            cfg = _config(pop, {**(overrides or {}), **make_overrides(value)})
            ctx = _Context(pop, seed, cfg)
            for method in methods:
                knob = knob_of(method)
                try:
                    scores = run_point(ctx, method, knob, cfg, n_draws, models, scenarios)
                except InfeasibleError:
                    # an infeasible constraint setting is a result, recorded as such
                    scores = PointScores({}, {"infeasible": 1.0})
                params = {**make_overrides(value)}
                if method != "Original":
                    params[KNOB[method]] = knob
                rows += scores.rows(name, method, params, seed)
        return rows

    per_seed = map_in_workers(one, seeds, n_jobs=n_jobs, desc=name, progress=progress, unit="seed")
    return tidy_frame([row for rows in per_seed for row in rows])


def group_count_sweep(
    pop,
    seeds,
    n_groups_list,
    fixed_knobs: dict[str, float],
    *,
    n_draws=1,
    overrides=None,
    models=("rf",),
    scenarios=("I",),
    progress=False,
    n_jobs=1,
) -> pd.DataFrame:
    """Fig. 6: privacy with |Y~| varied, each method at a fixed knob.

    Each entry of ``n_groups_list`` is a number of groups or a dict of constraint overrides that
    includes ``n_groups`` (e.g. ``{"n_groups": 2, "k": 150, "alpha": 300, "beta": 20}``): fewer
    groups need larger ``alpha`` and ``beta`` to hold all users and values.
    """

    def overrides_of(v):
        if isinstance(v, dict):
            if "n_groups" not in v:
                raise ValueError(f"each dict of n_groups_list needs an 'n_groups' entry; got {v!r}")
            return {key: int(val) for key, val in v.items()}
        return {"n_groups": int(v)}

    return _sweep(
        pop,
        seeds,
        "fig6",
        n_groups_list,
        list(fixed_knobs),
        fixed_knobs.get,
        overrides_of,
        n_draws,
        overrides,
        models,
        scenarios,
        progress,
        n_jobs,
    )


def cluster_count_sweep(
    pop,
    seeds,
    n_clusters_list,
    budget: float,
    *,
    n_draws=1,
    overrides=None,
    models=("rf",),
    scenarios=("I",),
    progress=False,
    n_jobs=1,
) -> pd.DataFrame:
    """Fig. 7: HyObscure vs PrivCheck with the number of user clusters varied."""
    return _sweep(
        pop,
        seeds,
        "fig7",
        n_clusters_list,
        ["HyObscure", "PrivCheck"],
        lambda m: budget,
        lambda v: {"n_clusters": int(v)},
        n_draws,
        overrides,
        models,
        scenarios,
        progress,
        n_jobs,
    )


def constraint_sweep(
    pop,
    seeds,
    pairs,
    which: str,
    budget: float,
    *,
    n_draws=1,
    overrides=None,
    models=("rf",),
    scenarios=("I",),
    progress=False,
    n_jobs=1,
) -> pd.DataFrame:
    """Fig. 8 (``which="k_alpha"``) or Fig. 9 (``"l_beta"``): HyObscure under varied constraints."""
    if which == "k_alpha":
        name, mk = "fig8", (lambda v: {"k": int(v[0]), "alpha": int(v[1])})
    elif which == "l_beta":
        name, mk = "fig9", (lambda v: {"l": int(v[0]), "beta": int(v[1])})
    else:
        raise ValueError(f"which must be 'k_alpha' or 'l_beta'; got {which!r}")
    return _sweep(
        pop,
        seeds,
        name,
        [tuple(p) for p in pairs],
        ["HyObscure"],
        lambda m: budget,
        mk,
        n_draws,
        overrides,
        models,
        scenarios,
        progress,
        n_jobs,
    )


#: Per sweep of :func:`constraint_sweep`: (figure, lower bound, upper bound).
CONSTRAINT_SWEEPS = {"k_alpha": ("fig8", "k", "alpha"), "l_beta": ("fig9", "l", "beta")}
#: Metric suffix of a claim on another grid of Figs. 8/9 (the report's ``ACROSS_SUFFIX``).
ACROSS = ".across"


def _grid_points(grid: Mapping[str, Any], low: str, high: str) -> tuple[tuple[int, int], ...]:
    """The (lower, upper) bound pairs of one grid ``{low: [...], high: [...]}`` (their product)."""
    if set(grid) != {low, high}:
        raise ValueError(f"a grid needs exactly the keys {low!r} and {high!r}; got {dict(grid)!r}")
    lows, highs = (sorted({int(v) for v in np.atleast_1d(grid[key])}) for key in (low, high))
    return tuple((a, b) for a in lows for b in highs)


def grid_label(points, low: str, high: str) -> str:
    """A grid's name, e.g. ``"k 20/40/60/80 alpha 150/200"``: the parameter ``grid``'s value."""
    lows = "/".join(str(v) for v in sorted({int(p[0]) for p in points}))
    highs = "/".join(str(v) for v in sorted({int(p[1]) for p in points}))
    return f"{low} {lows} {high} {highs}"


def constraint_across(
    pop,
    seeds,
    grids,
    pairs,
    which: str,
    budget: float,
    *,
    base: pd.DataFrame | None = None,
    n_draws=1,
    overrides=None,
    models=("rf",),
    scenarios=("I",),
    progress=False,
    n_jobs=1,
) -> pd.DataFrame:
    """Fig. 8 or Fig. 9 on the other grids of bounds the paper may have used (it states none).

    ``grids`` are dicts ``{"k": [...], "alpha": [...]}`` (Fig. 8, ``which="k_alpha"``) or
    ``{"l": [...], "beta": [...]}`` (Fig. 9), each meaning every pair of their values; ``pairs`` is
    the profile's own grid (``k_alpha_list`` / ``l_beta_list``), and a grid of the same pairs is
    skipped: its claim is the plain one. Every point is one HyObscure fit per seed, as in
    :func:`constraint_sweep` (same seeds, budget and settings), and each is fitted once however
    many grids hold it; the points of ``base`` (that sweep's frame, run with the same arguments)
    are taken from it instead of fitted again. Rows as :func:`constraint_sweep`'s, experiment
    ``fig8_across`` / ``fig9_across``, one copy of a point's rows per grid that holds it, the
    parameter ``grid`` (:func:`grid_label`) telling the grids apart; the facets stay.
    """
    if which not in CONSTRAINT_SWEEPS:
        raise ValueError(f"which must be 'k_alpha' or 'l_beta'; got {which!r}")
    name, low, high = CONSTRAINT_SWEEPS[which]
    seeds = [int(s) for s in seeds]
    profile = {(int(a), int(b)) for a, b in pairs}
    chosen: dict[str, tuple[tuple[int, int], ...]] = {}
    for grid in grids or ():
        points = _grid_points(grid, low, high)
        if set(points) != profile:
            chosen.setdefault(grid_label(points, low, high), points)
    if not chosen:
        return tidy_frame([])

    knob = KNOB["HyObscure"]
    have = tidy_frame([])
    if base is not None and len(base):
        have = base[(base["experiment"] == name) & (base["method"] == "HyObscure")]
    have = with_parameters(have, [low, high, knob])
    have = have[np.isclose(have[knob].astype(float), budget) & have["seed"].isin(seeds)]
    # a point of the base sweep is reused when the sweep ran it on every seed
    ran = have.groupby([have[low].astype(int), have[high].astype(int)])["seed"].nunique()
    wanted = {p for points in chosen.values() for p in points}
    missing = sorted(p for p in wanted if ran.get(p, 0) < len(set(seeds)))
    fitted = tidy_frame([])
    if missing:
        fitted = constraint_sweep(
            pop,
            seeds,
            missing,
            which,
            budget,
            n_draws=n_draws,
            overrides=overrides,
            models=models,
            scenarios=scenarios,
            progress=progress,
            n_jobs=n_jobs,
        )
    reused = have[[(a, b) not in missing for a, b in zip(have[low], have[high], strict=True)]]
    pool = pd.concat([f for f in (reused, fitted) if len(f)], ignore_index=True)
    at = list(zip(pool[low].astype(int), pool[high].astype(int), strict=True))
    frames = []
    for label, points in chosen.items():
        block = pool[[p in points for p in at]]
        # a copy's parameters are the point's bounds, the budget and the grid, nothing else
        params = {
            low: block[low].astype(int),
            high: block[high].astype(int),
            knob: budget,
            "grid": label,
        }
        kept = [*TIDY_COLUMNS, *facet_columns(block)]
        frames.append(block[kept].assign(experiment=f"{name}_across", **params))
    return concat_tidy(frames)


def convergence(pop, seed: int, budget: float, *, overrides=None) -> pd.DataFrame:
    """Fig. 11: the leakage after every O-problem and every accepted G move of one fit."""
    cfg = _config(pop, overrides)
    ctx = _Context(pop, seed, cfg)
    gen0 = ctx.gen0(cfg["n_groups"], cfg["k"], cfg["alpha"], cfg["l"], cfg["beta"])
    mech = _build("HyObscure", budget, cfg)
    mech.fit(
        ctx.Xp,
        ctx.yp,
        random_state=np.random.default_rng(np.random.SeedSequence([seed, 505])),
        clusters=ctx.cp,
        generalization=gen0,
    )
    rows = []
    for step, rec in enumerate(mech.history_):
        rows += tidy_rows(
            "fig11",
            "HyObscure",
            {"leakage": rec["leakage"], "utility_loss": rec["utility_loss"]},
            parameters={
                "step": step,
                "iteration": rec["iteration"],
                "phase": rec["phase"],
                "budget": budget,
            },
            seed=seed,
        )
    return tidy_frame(rows)


def scaling(
    pop,
    seed: int,
    n_users_list,
    budget: float,
    *,
    overrides=None,
    kmeans_n_init: int = 1,
    measure_memory: bool = False,
    repeats: int = 3,
    repeat_below_seconds: float = 5.0,
) -> pd.DataFrame:
    """Fig. 10: run time of a full fit (clustering, I, cross-iterated O/G) and one release.

    Populations larger than the data are resampled with replacement from the real users (their
    features and exact values); ``k`` and ``alpha`` scale with the population (``k = n/5``,
    ``alpha = n/2``) so that the constraints keep their meaning.

    Each size is timed up to ``repeats`` times from the same seed (so every repeat computes the
    same fit) and the fastest run is kept, as ``timeit`` does: sub-second fits at small sizes are
    otherwise dominated by whatever else the machine does, and a slope from two such points moves
    with the load. Sizes whose fastest run already takes ``repeat_below_seconds`` are timed once.
    """
    if int(repeats) < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    cfg = _config(pop, overrides)
    rows = []
    for n in n_users_list:
        best = None
        for _ in range(int(repeats)):
            metrics = _time_one_fit(pop, cfg, seed, int(n), budget, kmeans_n_init, measure_memory)
            if best is None or metrics["seconds_total"] < best["seconds_total"]:
                best = metrics
            if best["seconds_total"] >= repeat_below_seconds:
                break
        rows += tidy_rows("fig10", "HyObscure", best, parameters={"n_users": int(n)}, seed=seed)
    return tidy_frame(rows)


def _time_one_fit(pop, cfg, seed, n, budget, kmeans_n_init, measure_memory) -> dict:
    """One timed fit and release of ``n`` users resampled from ``pop`` (``scaling``'s unit)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 606, n]))
    idx = rng.choice(pop.X.shape[0], size=n, replace=True)
    X, y = pop.X[idx], pop.y[idx]
    if measure_memory:
        tracemalloc.start()
    t0 = time.perf_counter()
    clusters = hy.cluster_users(X, cfg["n_clusters"], rng, n_init=kmeans_n_init)
    t1 = time.perf_counter()
    k, alpha = max(1, n // 5), n // 2
    domain = hy.private_domain(y, pop.kind)
    gen0 = hy.initial_generalization(
        y, domain, cfg["n_groups"], k, alpha, cfg["l"], cfg["beta"], rng
    )
    t2 = time.perf_counter()
    mech = hy.HyObscure(
        budget=budget,
        **{
            **{q: cfg[q] for q in ("n_groups", "l", "beta", "n_clusters")},
            "k": k,
            "alpha": alpha,
        },
        domain=pop.kind,
    )
    mech.fit(X, y, random_state=rng, clusters=clusters, generalization=gen0)
    t3 = time.perf_counter()
    mech.release(random_state=rng)
    t4 = time.perf_counter()
    metrics = {
        "seconds_cluster": t1 - t0,
        "seconds_initial": t2 - t1,
        "seconds_cross": t3 - t2,
        "seconds_release": t4 - t3,
        "seconds_total": t4 - t0,
        "iterations": float(max(r["iteration"] for r in mech.history_) + 1),
    }
    if measure_memory:
        metrics["peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return metrics
