"""The relay-chain experiment's runs: the Fig. 2 example, the chains on German Credit and Adult.

Every function returns tidy frames (:mod:`ppdp.experiments.common`). The chain runs are shared by
the figures: one run of a chain with ``hops`` hops at threshold step ``delta`` gives per-hop rows
(experiment ``"chains"``, metrics ``privacy``, ``threshold``, ``utility_loss``, ``n_classes``) from
which Fig. 4 (mean loss per table vs ``delta``), Fig. 5 (privacy per hop) and Fig. 6 (mean loss per
table vs number of hops) are drawn.

Data choices (see the notebook for the full list):

* German Credit ``german.data-numeric``: the 24 numeric attributes ``a1..a24`` are the QIs, the
  class label (1 good, 2 bad) is the sensitive attribute.
* UCI Adult (extension): numeric QIs ``age, education_num, capital_gain, capital_loss,
  hours_per_week`` (``fnlwgt`` is a census sampling weight, not a property of the person), income as
  sensitive attribute.
* Weights: ``"uniform"`` (the paper's default) or ``"inverse_variance"`` (``w_k`` proportional to
  ``1 / var_k``, i.e. distances on standardized attributes).

The paper states neither the QI weights, nor Fig. 4's grid of thresholds, nor Fig. 6's threshold:
the claims read from Figs. 4 and 6 (:data:`ppdp.experiments.relay_chains.claims.ACROSS_CLAIMS`) are
also judged at other values of these settings (:data:`ACROSS_SETTINGS`; parameters
``weighting_range``, ``deltas_range``, ``fig6_delta_range`` of :func:`run_experiment`), as
``<id>.across`` claim rows (:func:`ppdp.experiments.relay_chains.claims.claims`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    Param,
    concat_tidy,
    parameter_columns,
    tidy_frame,
    tidy_rows,
    with_parameters,
)
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.mechanisms.relay import METHODS, RelayChain, RelayWarning, reuse_units

__all__ = [
    "ACROSS_EXPERIMENTS",
    "ACROSS_SETTINGS",
    "ADULT_QIS",
    "ADULT_QI_SETS",
    "ADULT_SENSITIVE",
    "GERMAN_SENSITIVE",
    "METHOD_LABELS",
    "PARAMETERS",
    "WEIGHTINGS",
    "across_values",
    "adult_sensitivity",
    "adult_table",
    "all_rows",
    "chain_points",
    "check_parameters",
    "distinct_diversity",
    "fig2_example",
    "fig2_tables",
    "figure_rows",
    "german_credit_table",
    "grid_label",
    "make_weights",
    "run_chains",
    "run_experiment",
    "suppression_cost",
    "wide",
]


GERMAN_SENSITIVE = "label"
ADULT_SENSITIVE = "income"
ADULT_QIS = ("age", "education_num", "capital_gain", "capital_loss", "hours_per_week")
METHOD_LABELS = {"bua": "BUA", "tda": "TDA", "fla": "FLA"}
WEIGHTINGS = ("uniform", "inverse_variance")


# ---------------------------------------------------------------------------------------------------
# Fig. 2: the six-patient example


def fig2_tables() -> dict[str, pd.DataFrame]:
    """Tables (a)-(d) of Fig. 2 as printed: T0, T1 (2-diversity), T2 and T3 (3-diversity)."""
    base = pd.DataFrame(
        {
            "Name": ["Ashley", "Brooke", "Charish", "Dave", "Ellen", "Frank"],
            "Age": ["23", "23", "28", "28", "29", "24"],
            "Zipcode": ["19024", "19024", "19024", "19122", "19122", "19122"],
            "Disease": ["Hepatitis", "Bronchitis", "Flu", "Cancer", "Hepatitis", "Bronchitis"],
        },
        index=pd.RangeIndex(1, 7, name="tuple"),
    )
    t0 = base.drop(columns="Name")
    t1 = t0.assign(
        Age=["23", "23", "28", "28", "2*", "2*"],
        Zipcode=["19024", "19024", "19***", "19***", "19122", "19122"],
    )
    t2 = t0.assign(Age=["2*"] * 6)
    t3 = t0.assign(Age=["2*"] * 6, Zipcode=["19***"] * 6)
    return {"T0": t0, "T1": t1, "T2": t2, "T3": t3}


def suppression_cost(
    original: pd.DataFrame, sanitized: pd.DataFrame, costs: Mapping[str, float]
) -> float:
    """Utility lost by suppression: each changed cell of column ``c`` costs ``costs[c]``."""
    missing = [c for c in costs if c not in original.columns or c not in sanitized.columns]
    if missing:
        raise ValueError(f"cost columns {missing} are not in both tables")
    return float(sum(cost * (original[c] != sanitized[c]).sum() for c, cost in costs.items()))


def distinct_diversity(
    table: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive: str
) -> int:
    """Smallest number of distinct sensitive values in an equivalence class (distinct l-diversity)."""
    return int(table.groupby(list(quasi_identifiers))[sensitive].nunique().min())


def _is_coarsening(fine: pd.DataFrame, coarse: pd.DataFrame, qis: Sequence[str]) -> bool:
    f = fine[list(qis)].astype(str).agg("|".join, axis=1)
    c = coarse[list(qis)].astype(str).agg("|".join, axis=1)
    return bool(pd.DataFrame({"f": f, "c": c}).groupby("f")["c"].nunique().eq(1).all())


def fig2_example(weightings: Mapping[str, Mapping[str, float]] | None = None):
    """The two options of Fig. 2 and their suppression costs.

    Option I: ``v0`` sends T2 (3-diversity) and ``v1`` forwards it unchanged. Option II: ``v0`` sends
    T1 (2-diversity) and ``v1``, seeing only T1, must publish T3. Costs are in units per suppressed
    cell, with the paper's two weightings (each cell 1; age 2.5, zip code 1).

    Returns
    -------
    summary : pandas.DataFrame
        One row per (option, hop): table, diversity, coarsening check, cost per weighting.
    rows : pandas.DataFrame
        Tidy rows (experiment ``"fig2"``): total cost per option and weighting.
    """
    if weightings is None:
        weightings = {"unit": {"Age": 1.0, "Zipcode": 1.0}, "age2.5": {"Age": 2.5, "Zipcode": 1.0}}
    tables = fig2_tables()
    qis = ["Age", "Zipcode"]
    options = {"I": ("T2", "T2"), "II": ("T1", "T3")}
    records, rows = [], []
    for option, (first, second) in options.items():
        for hop, name in ((1, first), (2, second)):
            previous = tables["T0"] if hop == 1 else tables[first]
            record = {
                "option": option,
                "hop": hop,
                "table": name,
                "diversity": distinct_diversity(tables[name], qis, "Disease"),
                "coarsens_input": _is_coarsening(previous, tables[name], qis),
            }
            for label, costs in weightings.items():
                record[f"cost_{label}"] = suppression_cost(tables["T0"], tables[name], costs)
            records.append(record)
        for label in weightings:
            total = sum(r[f"cost_{label}"] for r in records if r["option"] == option)
            rows += tidy_rows(
                "fig2", f"option_{option}", {"total_cost": total}, parameters={"weighting": label}
            )
    return pd.DataFrame.from_records(records), tidy_frame(rows)


# ---------------------------------------------------------------------------------------------------
# data


def _subsample(frame: pd.DataFrame, n_rows: int | None, seed: int) -> pd.DataFrame:
    if n_rows is None:
        return frame.reset_index(drop=True)
    if isinstance(n_rows, bool) or not isinstance(n_rows, int | np.integer) or n_rows < 2:
        raise ValueError(f"n_rows must be None or an integer >= 2; got {n_rows!r}")
    if n_rows > len(frame):
        raise ValueError(f"n_rows={n_rows} exceeds the {len(frame)} rows of the table")
    rows = np.sort(np.random.default_rng(seed).choice(len(frame), size=int(n_rows), replace=False))
    return frame.iloc[rows].reset_index(drop=True)


def german_credit_table(n_rows: int | None = None, seed: int = 0) -> pd.DataFrame:
    """German Credit (numeric): QIs ``a1..a24`` and the sensitive ``label``; optional subsample."""
    from ppdp.datasets import load_german_credit

    frame = load_german_credit(kind="numeric")
    qis = [c for c in frame.columns if c != GERMAN_SENSITIVE]
    return _subsample(frame[[*qis, GERMAN_SENSITIVE]], n_rows, seed)


def adult_table(
    n_rows: int | None = None,
    seed: int = 0,
    *,
    qis: Sequence[str] = ADULT_QIS,
    sensitive: str = ADULT_SENSITIVE,
) -> pd.DataFrame:
    """UCI Adult (train + test): numeric QIs (default :data:`ADULT_QIS`) and the sensitive column
    (default ``income``); optional subsample."""
    from ppdp.datasets import load_adult

    frame = load_adult()
    out = frame[list(qis)].astype(np.float64)
    out[sensitive] = frame[sensitive].astype(str).str.rstrip(".").to_numpy()
    return _subsample(out, n_rows, seed)


#: The Adult variants of :func:`adult_sensitivity`: quasi-identifier sets.
ADULT_QI_SETS = {
    "all numeric": ADULT_QIS,
    "without capital": ("age", "education_num", "hours_per_week"),
}


def adult_sensitivity(
    *,
    n_rows: int | None = 2000,
    seeds: Sequence[int] = (0,),
    delta: float = 0.01,
    max_hops: int = 6,
    weightings: Sequence[str] = WEIGHTINGS,
    qi_sets: Mapping[str, Sequence[str]] | None = None,
    sensitives: Sequence[str] = ("income", "sex"),
    methods: Sequence[str] = METHODS,
) -> pd.DataFrame:
    """Which method loses least along Adult's chains, under each plausible setting.

    On German Credit FLA has the lowest average loss per table along chains; on Adult, with the
    numeric quasi-identifiers, income sensitive and inverse-variance weights, BUA does. Each
    variant changes one of what the extension chose: the weighting (uniform weights leave the raw
    scales, where capital gain's range dominates), the quasi-identifiers (without the two capital
    columns, zero for most rows) and the sensitive attribute. Chains of 1 to ``max_hops`` hops at
    ``delta`` (Fig. 6's grid) per variant and subsample.

    Returns
    -------
    DataFrame
        Tidy rows of experiment ``"adult_sensitivity"``: per method, ``mean_utility_loss`` (the
        average loss per table, averaged over the chain lengths), parameters ``weighting``,
        ``qis``, ``sensitive``; one seed per subsample.
    """
    qi_sets = dict(ADULT_QI_SETS if qi_sets is None else qi_sets)
    points = [(h, float(delta)) for h in range(1, int(max_hops) + 1)]
    rows = []
    for sensitive in sensitives:
        for qi_name, qis in qi_sets.items():
            for s in seeds:
                table = adult_table(n_rows, seed=s, qis=qis, sensitive=sensitive)
                for weighting in weightings:
                    chains = run_chains(
                        table,
                        points,
                        sensitive=sensitive,
                        dataset="adult",
                        methods=methods,
                        weights=make_weights(table, sensitive, weighting),
                        seed=s,
                    )
                    w = wide(chains)
                    per_chain = w.groupby(["method", "hops"])["utility_loss"].mean()
                    loss = per_chain.groupby("method").mean()
                    params = {"weighting": weighting, "qis": qi_name, "sensitive": sensitive}
                    for method, value in loss.items():
                        rows += tidy_rows(
                            "adult_sensitivity",
                            method,
                            {"mean_utility_loss": float(value)},
                            parameters=params,
                            seed=s,
                        )
    return tidy_frame(rows)


def make_weights(table: pd.DataFrame, sensitive: str, weighting: str = "uniform") -> np.ndarray:
    """QI weights: uniform (the paper) or proportional to ``1 / variance`` (standardized QIs)."""
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}; got {weighting!r}")
    qis = [c for c in table.columns if c != sensitive]
    if weighting == "uniform":
        return np.full(len(qis), 1.0 / len(qis))
    var = table[qis].to_numpy(np.float64).var(axis=0)
    inv = np.where(var > 0, 1.0 / np.where(var > 0, var, 1.0), 0.0)
    if inv.sum() == 0:
        raise ValueError("every quasi-identifier is constant; no inverse-variance weights exist")
    return inv / inv.sum()


# ---------------------------------------------------------------------------------------------------
# chains


def run_chains(
    table: pd.DataFrame,
    points: Iterable[tuple[int, float]],
    *,
    sensitive: str,
    dataset: str,
    methods: Sequence[str] = METHODS,
    weights=None,
    seed: int = -1,
    progress: bool = False,
) -> pd.DataFrame:
    """Run each method's chain at each ``(hops, delta)`` point; per-hop tidy rows.

    Rows: experiment ``"chains"``, parameters ``dataset, delta, hops, hop``, metrics ``privacy``
    (P(T_i)), ``threshold`` ((l - i + 1) delta), ``utility_loss`` (UL(T_i) against T0) and
    ``n_classes``. A chain whose threshold forces the all-in-one table is kept (its warning is
    recorded as ``all_in_one = 1`` on that hop).
    """
    points = sorted({(int(h), float(d)) for h, d in points})
    work = [(m, h, d) for m in methods for h, d in points]
    if progress:
        from tqdm.auto import tqdm

        work = tqdm(work, desc=f"chains on {dataset}", leave=False)
    rows = []
    # every chain starts from the same T0, and many share intermediate tables: compute the
    # work on each table once (identical results, see reuse_units)
    with reuse_units():
        for method, hops, delta in work:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", RelayWarning)
                chain = RelayChain(
                    method, hops=hops, delta=delta, sensitive=sensitive, weights=weights
                )
                chain.fit(table)
            forced = sum(issubclass(w.category, RelayWarning) for w in caught)
            for i in range(hops):
                metrics = {
                    "privacy": chain.privacy_[i],
                    "threshold": chain.thresholds_[i],
                    "utility_loss": chain.utility_loss_[i],
                    "n_classes": chain.n_classes_[i],
                }
                if forced:
                    metrics["all_in_one"] = float(chain.n_classes_[i] == 1)
                params = {"dataset": dataset, "delta": delta, "hops": hops, "hop": i + 1}
                rows += tidy_rows("chains", method, metrics, parameters=params, seed=seed)
    return tidy_frame(rows)


def wide(frame: pd.DataFrame) -> pd.DataFrame:
    """Tidy rows with one column per metric, keyed by experiment, method, seed and the parameters
    these rows have, typed on these rows alone (a ``hop`` column of a frame that also holds rows
    without hops is float; here it is an integer again).

    Examples
    --------
    >>> rows = tidy_frame(
    ...     tidy_rows("fig5", "fla", {"privacy": 0.25}, parameters={"hop": 1})
    ...     + tidy_rows("fig6", "fla", {"mean_utility_loss": 2.0}, parameters={"hops": 3})
    ... )
    >>> rows["hop"].dtype.name
    'float64'
    >>> wide(rows[rows["experiment"] == "fig5"]).to_dict("records")
    [{'experiment': 'fig5', 'method': 'fla', 'seed': -1, 'hop': 1, 'privacy': 0.25}]
    """
    if frame.empty:
        return pd.DataFrame()
    # type the parameters on these rows alone (the figures and claims index by integer hops) and
    # key on those they have: a parameter missing on every row would be a missing key, and
    # pivot_table drops the rows whose key is missing
    out = tidy_frame(frame)
    params = [c for c in parameter_columns(out) if out[c].notna().any()]
    keys = ["experiment", "method", "seed", *params]
    return out.pivot_table(
        index=keys, columns="metric", values="value", aggfunc="first"
    ).reset_index()


def _mean_loss_rows(
    chains: pd.DataFrame, experiment: str, key: str, fixed: Mapping[str, Any]
) -> list[dict]:
    """Rows of ``mean_utility_loss`` (average UL per table) of the wide ``chains``, one per
    dataset, method, seed and value of ``key`` (``"delta"`` for Fig. 4, ``"hops"`` for Fig. 6),
    with ``fixed`` (the other coordinate and any varied setting) among the parameters."""
    loss = chains.groupby(["dataset", "method", "seed", key])["utility_loss"].mean()
    rows: list[dict] = []
    for (dataset, method, seed, at), v in loss.items():
        at = float(at) if key == "delta" else int(at)
        rows += tidy_rows(
            experiment,
            method,
            {"mean_utility_loss": v},
            parameters={"dataset": dataset, key: at, **fixed},
            seed=seed,
        )
    return rows


def figure_rows(
    chains: pd.DataFrame,
    *,
    fig4_hops: int,
    fig5_delta: float,
    fig6_delta: float,
    fig6_top: float | None = None,
    deltas: Sequence[float] | None = None,
) -> pd.DataFrame:
    """Fig. 4, 5 and 6 rows derived from the chain runs.

    * ``fig4``: ``mean_utility_loss`` (average UL per table) of the ``fig4_hops``-hop chain per delta
      in ``deltas`` (default: every delta run with ``fig4_hops`` hops).
    * ``fig5``: ``privacy`` and ``threshold`` per hop of the ``fig4_hops``-hop chain at ``fig5_delta``.
    * ``fig6``: ``mean_utility_loss`` per number of hops ``l`` at a fixed ``fig6_delta`` (the
      problem formulation read literally: the last table always meets ``fig6_delta``).
    * ``fig6b``: the same with the loosest requirement fixed, ``l * delta = fig6_top`` (the strictest
      table gets stricter as the chain grows).
    """
    w = wide(chains)
    rows = []
    for (dataset, method, seed), group in w.groupby(["dataset", "method", "seed"], sort=True):
        g4 = group[group["hops"] == fig4_hops]
        grid = (
            g4
            if deltas is None
            else g4[
                np.isclose(g4["delta"].to_numpy()[:, None], np.asarray(deltas, float)[None, :]).any(
                    axis=1
                )
            ]
        )
        rows += _mean_loss_rows(grid, "fig4", "delta", {"hops": fig4_hops})
        g5 = g4[np.isclose(g4["delta"], fig5_delta)]
        for _, r in g5.iterrows():
            params = {
                "dataset": dataset,
                "delta": fig5_delta,
                "hops": fig4_hops,
                "hop": int(r["hop"]),
            }
            rows += tidy_rows(
                "fig5",
                method,
                {"privacy": r["privacy"], "threshold": r["threshold"]},
                parameters=params,
                seed=seed,
            )
        g6 = group[np.isclose(group["delta"], fig6_delta)]
        rows += _mean_loss_rows(g6, "fig6", "hops", {"delta": fig6_delta})
        if fig6_top is not None:
            for hops, part in group.groupby("hops"):
                part = part[np.isclose(part["delta"], fig6_top / hops)]
                if len(part) == hops:
                    params = {
                        "dataset": dataset,
                        "delta": fig6_top / hops,
                        "hops": int(hops),
                        "top": fig6_top,
                    }
                    rows += tidy_rows(
                        "fig6b",
                        method,
                        {"mean_utility_loss": part["utility_loss"].mean()},
                        parameters=params,
                        seed=seed,
                    )
    return tidy_frame(rows)


def chain_points(
    *, deltas, hops, fig5_delta, fig6_delta, max_hops, fig6_top=None
) -> list[tuple[int, float]]:
    """Every (hops, delta) chain that Figs. 4-6 need."""
    points = {(int(hops), float(d)) for d in deltas}
    points.add((int(hops), float(fig5_delta)))
    points |= {(h, float(fig6_delta)) for h in range(1, int(max_hops) + 1)}
    if fig6_top is not None:
        points |= {(h, float(fig6_top) / h) for h in range(1, int(max_hops) + 1)}
    return sorted(points)


# ---------------------------------------------------------------------------------------------------
# the settings the paper leaves open

#: The settings of the German Credit figures that the paper does not state, across which the claims
#: of :data:`ppdp.experiments.relay_chains.claims.ACROSS_CLAIMS` are also judged
#: (``<id>.across`` rows): the QI weighting of the distance and the utility loss, Fig. 4's
#: threshold grid and Fig. 6's fixed threshold step.
ACROSS_SETTINGS = ("weighting", "deltas", "fig6_delta")


#: The experiments of the figure rows at the other values of :data:`ACROSS_SETTINGS`.
ACROSS_EXPERIMENTS = ("fig4_across", "fig6_across")


def _grid(deltas) -> tuple[float, ...]:
    """A threshold grid in canonical form: sorted distinct values, as written to the results."""
    return tuple(sorted({float(f"{float(d):.12g}") for d in deltas}))


def grid_label(deltas, others=()) -> str:
    """A short name of a Fig. 4 threshold grid: ``"lo-hi"`` (``"0.01-0.1"``), or every value
    (``"0.01,0.02,0.04"``) where another grid of ``others`` has the same ends."""
    grid = _grid(deltas)
    short = f"{grid[0]:g}-{grid[-1]:g}"
    if any(_grid(o) != grid and f"{_grid(o)[0]:g}-{_grid(o)[-1]:g}" == short for o in others):
        return ",".join(f"{d:g}" for d in grid)
    return short


def across_values(
    *,
    weighting: str,
    deltas: Sequence[float],
    fig6_delta: float,
    weighting_range: Sequence[str] = (),
    deltas_range: Sequence[Sequence[float]] = (),
    fig6_delta_range: Sequence[float] = (),
) -> dict[str, list]:
    """The other values of each setting of :data:`ACROSS_SETTINGS`: the profile's own value (which
    the ranges may contain) and repeats are skipped.

    Returns
    -------
    dict
        ``"weighting"``: weightings; ``"deltas"``: ``(label, grid)`` pairs (:func:`grid_label`);
        ``"fig6_delta"``: threshold steps.
    """
    for w in weighting_range:
        if w not in WEIGHTINGS:
            raise ValueError(f"weighting_range: {w!r} is not one of {WEIGHTINGS}")
    grids = [_grid(g) for g in deltas_range]
    short = [g for g in grids if len(g) < 2]
    if short:
        raise ValueError(
            f"deltas_range: every grid needs two thresholds or more (Fig. 4's claims compare the "
            f"smallest with the largest); got {list(short[0])}"
        )
    base = _grid(deltas)
    everything = [base, *grids]
    other_grids = list(dict.fromkeys(g for g in grids if g != base))
    base_step = float(f"{float(fig6_delta):.12g}")
    steps = dict.fromkeys(float(f"{float(d):.12g}") for d in fig6_delta_range)
    return {
        "weighting": [w for w in dict.fromkeys(weighting_range) if w != weighting],
        "deltas": [(grid_label(g, everything), g) for g in other_grids],
        "fig6_delta": [d for d in steps if not np.isclose(d, base_step, rtol=1e-9, atol=0)],
    }


def _at_points(chains: pd.DataFrame, points: Iterable[tuple[int, float]]) -> pd.DataFrame:
    """The rows of ``chains`` of the chains at ``points`` (``(hops, delta)``), in order."""
    wanted = {(int(h), float(f"{float(d):.12g}")) for h, d in points}
    where = with_parameters(chains, ["hops", "delta"])  # no columns when no chain ran
    keys = zip(where["hops"].astype(int), where["delta"].astype(float), strict=True)
    keep = np.array([(h, float(f"{d:.12g}")) in wanted for h, d in keys], dtype=bool)
    return chains[keep].reset_index(drop=True)


def _loss_rows(
    chains: pd.DataFrame,
    *,
    setting: str,
    value,
    fig4_hops: int | None = None,
    fig4_deltas: Sequence[float] | None = None,
    fig6_delta: float | None = None,
    max_hops: int | None = None,
) -> list[dict]:
    """Fig. 4 (``fig4_across``) and Fig. 6 (``fig6_across``) rows, as :func:`figure_rows`
    computes ``fig4`` and ``fig6``, with the varied ``setting = value`` among their parameters."""
    w = wide(chains)
    rows: list[dict] = []
    if w.empty:
        return rows
    if fig4_deltas is not None:
        on = np.isclose(w["delta"].to_numpy()[:, None], np.asarray(fig4_deltas, float)[None, :])
        g4 = w[(w["hops"] == fig4_hops) & on.any(axis=1)]
        fixed = {"hops": int(fig4_hops), setting: value}
        rows += _mean_loss_rows(g4, "fig4_across", "delta", fixed)
    if fig6_delta is not None:
        g6 = w[np.isclose(w["delta"], fig6_delta) & (w["hops"] <= int(max_hops))]
        fixed = {"delta": float(fig6_delta), setting: value}
        rows += _mean_loss_rows(g6, "fig6_across", "hops", fixed)
    return rows


def run_experiment(
    *,
    seed: int = 0,
    n_seeds: int = 1,
    german_rows: int | None = None,
    adult_rows: int | None = 2000,
    deltas: Sequence[float] = (0.01, 0.02, 0.04),
    hops: int = 3,
    fig5_delta: float = 0.01,
    fig6_delta: float = 0.01,
    max_hops: int = 3,
    fig6_top: float | None = None,
    weighting: str = "uniform",
    adult_weighting: str = "inverse_variance",
    methods: Sequence[str] = METHODS,
    progress: bool = False,
    weighting_range: Sequence[str] = (),
    deltas_range: Sequence[Sequence[float]] = (),
    fig6_delta_range: Sequence[float] = (),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All chain runs of the notebook on German Credit and Adult; returns (chains, figure rows).

    Seed ``seed + s`` (``s < n_seeds``) draws the row subsample of each data set; with the full
    German table (``german_rows=None``) the German runs do not depend on the seed.

    ``weighting_range``, ``deltas_range`` (a list of Fig. 4 grids) and ``fig6_delta_range`` are the
    values of the settings the paper leaves open (:data:`ACROSS_SETTINGS`) at which its German
    Credit claims are also judged, one setting varied at a time, the others at the profile's
    values, on the same subsamples; the profile's own values are skipped (:func:`across_values`).
    Their figure rows are added to the figure rows as experiments ``fig4_across`` (the weighting,
    the grid) and ``fig6_across`` (the weighting, ``fig6_delta``), with the varied setting among
    their parameters; the chain rows and the other figure rows do not change. The chains at the
    profile's weighting are run together with the profile's own, so the work on each table they
    share is done once (:func:`ppdp.mechanisms.relay.reuse_units`); another weighting runs Fig. 4's
    and Fig. 6's chains again.
    """
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, int | np.integer) or n_seeds < 1:
        raise ValueError(f"n_seeds must be an integer >= 1; got {n_seeds!r}")
    points = chain_points(
        deltas=deltas,
        hops=hops,
        fig5_delta=fig5_delta,
        fig6_delta=fig6_delta,
        max_hops=max_hops,
        fig6_top=fig6_top,
    )
    other = across_values(
        weighting=weighting,
        deltas=deltas,
        fig6_delta=fig6_delta,
        weighting_range=weighting_range,
        deltas_range=deltas_range,
        fig6_delta_range=fig6_delta_range,
    )
    fig6_hops = range(1, int(max_hops) + 1)
    # the chains of the other grids and fig6_delta values, at the profile's weighting
    extra = {(int(hops), d) for _, grid in other["deltas"] for d in grid}
    extra |= {(h, d) for d in other["fig6_delta"] for h in fig6_hops}
    own = {(h, float(f"{d:.12g}")) for h, d in points}
    extra = {(h, d) for h, d in extra if (h, d) not in own}  # the profile's chains run as today
    # Fig. 4's and Fig. 6's chains at the profile's grid and fig6_delta, for the other weightings
    reweighted = sorted(
        {(int(hops), float(d)) for d in deltas} | {(h, fig6_delta) for h in fig6_hops}
    )
    frames, across = [], []
    for s in range(int(seed), int(seed) + int(n_seeds)):
        german = german_credit_table(german_rows, seed=s)
        runs = run_chains(
            german,
            sorted(set(points) | extra),
            sensitive=GERMAN_SENSITIVE,
            dataset="german",
            methods=methods,
            weights=make_weights(german, GERMAN_SENSITIVE, weighting),
            seed=s,
            progress=progress,
        )
        frames.append(_at_points(runs, points) if extra else runs)
        for label, grid in other["deltas"]:
            across += _loss_rows(
                runs, setting="deltas", value=label, fig4_hops=hops, fig4_deltas=grid
            )
        for d in other["fig6_delta"]:
            across += _loss_rows(
                runs, setting="fig6_delta", value=d, fig6_delta=d, max_hops=max_hops
            )
        for w in other["weighting"]:
            alt = run_chains(
                german,
                reweighted,
                sensitive=GERMAN_SENSITIVE,
                dataset="german",
                methods=methods,
                weights=make_weights(german, GERMAN_SENSITIVE, w),
                seed=s,
                progress=progress,
            )
            across += _loss_rows(
                alt,
                setting="weighting",
                value=w,
                fig4_hops=hops,
                fig4_deltas=deltas,
                fig6_delta=fig6_delta,
                max_hops=max_hops,
            )
        if adult_rows != 0:
            adult = adult_table(adult_rows, seed=s)
            frames.append(
                run_chains(
                    adult,
                    points,
                    sensitive=ADULT_SENSITIVE,
                    dataset="adult",
                    methods=methods,
                    weights=make_weights(adult, ADULT_SENSITIVE, adult_weighting),
                    seed=s,
                    progress=progress,
                )
            )
    chains = concat_tidy(frames)
    figs = figure_rows(
        chains,
        fig4_hops=hops,
        fig5_delta=fig5_delta,
        fig6_delta=fig6_delta,
        fig6_top=fig6_top,
        deltas=deltas,
    )
    if across:
        figs = concat_tidy([figs, tidy_frame(across)])
    return chains, figs


def all_rows(*frames: pd.DataFrame) -> pd.DataFrame:
    """Concatenate tidy frames (chains, figures, claims)."""
    return concat_tidy(frames)


# ------------------------------------------------------------------------------------------------
# Notebook parameters

_STEP = Param("float", low=0, open_low=True)

#: The parameters of notebooks/relay_chains.ipynb.
PARAMETERS: dict[str, Param] = {
    **COMMON_PARAMETERS,
    "german_rows": Param("int", low=1, none=True),
    "adult_rows": Param("int", low=0, none=True),
    "n_seeds": Param("int", low=1),
    "deltas": Param("list", item=_STEP),
    "hops": Param("int", low=1),
    "fig5_delta": _STEP,
    "fig6_delta": _STEP,
    "max_hops": Param("int", low=1),
    "fig6_top": _STEP,
    "weighting": Param("str", choices=WEIGHTINGS),
    "adult_weighting": Param("str", choices=WEIGHTINGS),
    "weighting_range": Param("list", item=Param("str", choices=WEIGHTINGS)),
    "deltas_range": Param("list", item=Param("list", item=_STEP)),
    "fig6_delta_range": Param("list", item=_STEP),
}


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's parameters checked against :data:`PARAMETERS`, in canonical form.

    See :func:`ppdp.experiments.common.check_parameters`; the notebook calls
    ``globals().update(check_parameters(globals()))`` right after its parameters cell.
    """
    return _check_parameters(values, PARAMETERS)
