"""The runs of Mutual Cover's experiments: constants, the census sample, and Figs. 3-8's grid.

One call, :func:`run_experiments`, fits every partition and random output table once and reuses
them: the partition depends only on ``l``, the random output tables on ``(l, delta)``, and the
``n_runs`` releases of a setting differ only in the sampling step. The adversary's matching
conditions of run ``r`` and the query workload are shared by all methods (common random numbers),
so differences between methods are not sampling noise of the workload.

Tidy rows (:func:`ppdp.experiments.common.tidy_frame`: ``experiment``, ``method``, ``seed``,
``metric``, ``value``, and a column per parameter):

* ``fig3``/``fig4``/``fig5``: ``identity_disclosure`` and ``attribute_disclosure`` per run, with
  parameters ``delta``, ``l``, ``p_match`` (MutualCover: fig3 and fig4; Mondrian: fig5), and
  Mondrian's ``mean_group_size`` (fig5, parameter ``l``);
* ``fig6``: ``iloss`` (total) and ``iloss_per_tuple``; MutualCover per delta, Mondrian per l;
* ``fig7``: ``relative_error`` (mean over the queries) for MutualCover, Mondrian and Anatomy;
* ``fig8``: ``iloss`` and ``relative_error`` of MutualCover at ``delta = 1/6`` per ``l``;
* ``mondrian_groups`` (:func:`mondrian_group_sizes`): Fig. 5's attack on Mondrians with other
  group sizes;
* ``claims``: see :func:`ppdp.experiments.mutual_cover.claims.claims`.

Also the running example (Fig. 2 and Example 1, :func:`worked_example`) and the notebook's
``PARAMETERS`` and :func:`check_parameters`.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from ppdp.attacks.disclosure import (
    disclosure_generalized,
    disclosure_randomized,
    draw_match_conditions,
)
from ppdp.base import RepeatedReleaseWarning
from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    Param,
    tidy_frame,
    tidy_rows,
)
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.mechanisms.anatomy import Anatomy
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mutual_cover import MutualCover
from ppdp.utility.information_loss import iloss_generalized, iloss_randomized
from ppdp.utility.queries import (
    Predicate,
    Query,
    bounds_generalized,
    generate_queries,
    relative_error,
    relative_error_bounds,
)

__all__ = [
    "CATEGORICAL",
    "CONTINUOUS",
    "DELTAS",
    "FIG1_AGES",
    "FIG1_NAMES",
    "L_VALUES",
    "METHOD_ANATOMY",
    "METHOD_MC",
    "METHOD_MONDRIAN",
    "MINIMAL",
    "MONDRIAN_K_RANGE",
    "PARAMETERS",
    "P_MATCH",
    "QI",
    "SENSITIVE",
    "categorical_columns",
    "check_parameters",
    "fig2_table",
    "load_data",
    "mondrian_group_sizes",
    "mondrian_variants",
    "run_experiments",
    "worked_example",
]

QI = ("SEX", "AGE", "RELATE", "MARST", "RACE", "EDUC", "UHRSWORK")
SENSITIVE = "INCWAGE"

#: Continuous in the paper's Table 1; the others are categorical.
CONTINUOUS = ("AGE", "UHRSWORK")
CATEGORICAL = ("SEX", "RELATE", "MARST", "RACE", "EDUC")
DELTAS = (1 / 5, 1 / 6, 1 / 7, 1 / 8, 1 / 10)
L_VALUES = (10, 12, 15, 18, 20)
P_MATCH = (0.3, 0.5, 0.7, 0.8, 0.9, 1.0)
METHOD_MC = "MutualCover"
METHOD_MONDRIAN = "Mondrian"
METHOD_ANATOMY = "Anatomy"

#: A Mondrian group size of :func:`mondrian_variants`: l-diverse groups of ``l`` (or ``l + 1``)
#: tuples, as small as l-diversity allows (the authors' refinement, MutualCover's own partition).
MINIMAL = "minimal"

#: Mondrian group sizes the comparisons with Fig. 5's Mondrian are also judged at (the paper gives
#: its Mondrian l only): the minimal l-diverse groups, and a minimum group size ``k`` from l up to
#: the groups the paper's own l sweep gives Mondrian (about 280 tuples at l = 20).
MONDRIAN_K_RANGE = (MINIMAL, 10, 25, 50, 100, 200)


#: Fig. 1(a): ages of the ten records of the paper's running example.
FIG1_AGES = (28, 29, 29, 32, 33, 35, 39, 39, 40, 41)
FIG1_NAMES = ("Daphne", "Helen", "Dean", "Rachel", "Neil", "Dave", "Ella", "Bill", "Tina", "Louis")


def fig2_table() -> pd.DataFrame:
    """The random output table printed in Fig. 2 (delta = 1/2; rows Fig. 1(a), columns 28..41)."""
    p = np.zeros((10, 14))
    p[0, :2] = [0.641076, 0.358924]
    p[1, :2] = p[2, :2] = [0.320538, 0.679462]
    p[3, 4:8] = [0.380565, 0.319897, 0.152984, 0.146554]
    p[4, 4:8] = [0.271432, 0.340087, 0.190518, 0.197963]
    p[5, 4:8] = [0.109134, 0.202847, 0.343502, 0.344517]
    p[6, 11] = p[7, 11] = 1.0
    p[8, 12:] = p[9, 12:] = [0.497376, 0.502624]
    return pd.DataFrame(p, index=list(FIG1_NAMES), columns=list(range(28, 42)))


def worked_example(solver: str = "batch") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 2 and Example 1: our random output table for Fig. 1(a) at delta = 1/2, and a comparison
    with the paper's table (LP objective, largest delta ratio, Dean's re-identification probability).
    """
    from ppdp.attacks.disclosure import reidentification_probability
    from ppdp.mechanisms.mutual_cover import random_output_table

    ages = np.array(FIG1_AGES)
    ours = random_output_table(ages, 0.5, solver=solver)
    table = pd.DataFrame(ours.expand(ages), index=list(FIG1_NAMES), columns=ours.columns.tolist())
    paper = fig2_table()
    dist = np.abs(ages[:, None] - np.arange(28, 42)[None, :])
    rows = []
    for name, t in (("paper (Fig. 2)", paper.to_numpy()), ("ours", table.to_numpy())):
        col = t.sum(axis=0)
        used = col > 1e-9
        rows.append(
            {
                "table": name,
                "objective": float((dist * t).sum()),
                "max delta ratio": float((t.max(axis=0)[used] / col[used]).max()),
                "Dean re-identification": reidentification_probability(t, 2, 1),
            }
        )
    return table, pd.DataFrame(rows)


def load_data(n_rows: int | None = None, seed: int = 0) -> pd.DataFrame:
    """The census sample (QIs and INCWAGE), optionally a seeded random subset of ``n_rows``."""
    from ppdp.datasets import load_mutual_cover_census

    data = load_mutual_cover_census()[[*QI, SENSITIVE]]
    if n_rows is not None and n_rows < len(data):
        if n_rows < 1:
            raise ValueError(f"n_rows must be positive or None, got {n_rows}")
        rows = np.sort(
            np.random.default_rng(_seed(seed, "rows")).choice(len(data), n_rows, replace=False)
        )
        data = data.iloc[rows]
    return data.reset_index(drop=True)


def categorical_columns(distance: str) -> tuple[str, ...]:
    """QIs handled as categorical (0/1 distance) for a distance scheme.

    ``"ordinal"``: every QI uses ``|a - b|`` on its IPUMS code, as the authors' released code does
    and as the paper's ILoss formula ``|v~ - v| / |D_A|`` presumes; ``"zero_one"``: the
    categorical QIs of Table 1 use 0/1 distance.
    """
    if distance == "ordinal":
        return ()
    if distance == "zero_one":
        return CATEGORICAL
    raise ValueError(f"distance must be 'ordinal' or 'zero_one', got {distance!r}")


def _seed(*parts) -> int:
    """A stable 32-bit seed from any parts (crc32 of their text)."""
    return zlib.crc32(repr(parts).encode())


def _rng(seed: int, *parts) -> np.random.Generator:
    return np.random.default_rng([seed, _seed(*parts)])


def run_experiments(
    data: pd.DataFrame,
    *,
    deltas: Sequence[float] = DELTAS,
    l: int = 10,  # noqa: E741 (the paper's l)
    l_values: Sequence[int] = L_VALUES,
    delta_for_l: float = 1 / 6,
    p_match: Sequence[float] = P_MATCH,
    n_runs: int = 10,
    n_queries: int = 1000,
    n_predicates: int = 4,
    seed: int = 0,
    distance: str = "ordinal",
    refine: str = "anatomy",
    solver: str = "batch",
    progress: bool = False,
) -> pd.DataFrame:
    """Run Figs. 3-8 and return one tidy frame (claims rows not included).

    ``refine`` is the partition step of MutualCover (:class:`~ppdp.mechanisms.mondrian.Mondrian`):
    ``"anatomy"`` (default) as in the authors' released code, ``"none"`` for Algorithm 2 as
    printed. The Mondrian baseline is always the unrefined l-diverse Mondrian.
    """
    if n_runs < 1:
        raise ValueError(f"n_runs must be positive, got {n_runs}")
    categorical = categorical_columns(distance)
    qi = list(QI)
    n = len(data)
    rows: list[dict] = []
    queries = generate_queries(
        data,
        qi,
        SENSITIVE,
        numeric=list(CONTINUOUS),
        random_state=_rng(seed, "queries"),
        n_queries=n_queries,
        n_predicates=n_predicates,
    )
    data_rows = _query_rows(data, queries)
    actual = _sums(data, data_rows)
    conditions = {
        (p, r): draw_match_conditions(n, len(qi), p, _rng(seed, "match", p, r))
        for p in p_match
        for r in range(n_runs)
    }
    all_l = sorted({l, *l_values})
    partitions = {
        lv: Mondrian(qi, SENSITIVE, l=lv, categorical=categorical, refine=refine).fit(data)
        for lv in all_l
    }
    # the generalization baseline is Mondrian with l-diversity as published (no refinement)
    baselines = (
        partitions
        if refine == "none"
        else {lv: Mondrian(qi, SENSITIVE, l=lv, categorical=categorical).fit(data) for lv in all_l}
    )
    iterator = [(lv, d) for d in deltas for lv in [l]] + [(lv, delta_for_l) for lv in l_values]
    seen = set()
    settings = [s for s in iterator if not (s in seen or seen.add(s))]
    if progress:
        from tqdm.auto import tqdm

        settings = tqdm(settings, desc="mutual cover settings")
    for lv, delta in settings:
        mc = MutualCover(qi, SENSITIVE, delta=delta, l=lv, categorical=categorical, solver=solver)
        mc.fit(data, groups=partitions[lv].groups_)
        main = lv == l and any(np.isclose(delta, d) for d in deltas)
        for_l = np.isclose(delta, delta_for_l) and lv in l_values
        params = {"delta": delta, "l": lv}
        for r in range(n_runs):
            # the runs estimate an expectation over releases; none of them is published
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RepeatedReleaseWarning)
                released = mc.sample(data, _rng(seed, "release", lv, round(delta, 12), r))
            iloss = iloss_randomized(data, released, qi, categorical=categorical)
            err = float(
                relative_error(_sums(released, _query_rows(released, queries)), actual).mean()
            )
            metrics = {"iloss": iloss, "iloss_per_tuple": iloss / n, "relative_error": err}
            if main:
                rows += tidy_rows(
                    "fig6",
                    METHOD_MC,
                    {"iloss": iloss, "iloss_per_tuple": iloss / n},
                    parameters=params,
                    seed=r,
                )
                rows += tidy_rows(
                    "fig7", METHOD_MC, {"relative_error": err}, parameters=params, seed=r
                )
                rows += tidy_rows(
                    "diagnostics",
                    METHOD_MC,
                    {"unchanged_by_tables": mc.n_unchanged_ / n},
                    parameters=params,
                    seed=r,
                )
                for p in p_match:
                    ident, attr = disclosure_randomized(
                        data, released, qi, SENSITIVE, conditions[(p, r)]
                    )
                    pp = {**params, "p_match": p}
                    rows += tidy_rows(
                        "fig3",
                        METHOD_MC,
                        {"identity_disclosure": ident.mean()},
                        parameters=pp,
                        seed=r,
                    )
                    rows += tidy_rows(
                        "fig4",
                        METHOD_MC,
                        {"attribute_disclosure": attr.mean()},
                        parameters=pp,
                        seed=r,
                    )
            if for_l:
                rows += tidy_rows(
                    "fig8",
                    METHOD_MC,
                    {k: metrics[k] for k in ("iloss", "relative_error")},
                    parameters=params,
                    seed=r,
                )
    # baselines
    for lv in all_l:
        gen = baselines[lv].generalized_
        iloss = iloss_generalized(gen)
        rows += tidy_rows(
            "fig6",
            METHOD_MONDRIAN,
            {"iloss": iloss, "iloss_per_tuple": iloss / n},
            parameters={"l": lv},
        )
        lo, hi = bounds_generalized(gen, queries, data[SENSITIVE].to_numpy())
        rows += tidy_rows(
            "fig7",
            METHOD_MONDRIAN,
            {"relative_error": float(relative_error_bounds(lo, hi, actual).mean())},
            parameters={"l": lv},
        )
        for r in range(n_runs):
            an = Anatomy(qi, SENSITIVE, l=lv).fit(data, _rng(seed, "anatomy", lv, r))
            # the QIT publishes the original QI values: the rows each query selects are data's
            lo, hi = _anatomy_bounds(data_rows, an.groups_, data[SENSITIVE].to_numpy())
            rows += tidy_rows(
                "fig7",
                METHOD_ANATOMY,
                {"relative_error": float(relative_error_bounds(lo, hi, actual).mean())},
                parameters={"l": lv},
                seed=r,
            )
        if lv == l:
            rows += tidy_rows(
                "fig5",
                METHOD_MONDRIAN,
                {"mean_group_size": n / baselines[lv].n_groups_},
                parameters={"l": lv},
            )
            for p in p_match:
                for r in range(n_runs):
                    ident, attr = disclosure_generalized(data, gen, SENSITIVE, conditions[(p, r)])
                    rows += tidy_rows(
                        "fig5",
                        METHOD_MONDRIAN,
                        {"identity_disclosure": ident.mean(), "attribute_disclosure": attr.mean()},
                        parameters={"l": lv, "p_match": p},
                        seed=r,
                    )
    return tidy_frame(rows)


def _query_rows(table: pd.DataFrame, queries: Sequence[Query]) -> list[np.ndarray]:
    """Positions of the rows of ``table`` each query selects.

    The rows of :func:`~ppdp.utility.queries.query_mask`, found faster: a QI column holds few
    distinct values (at most 99 in the census) but 40,152 rows, so each predicate is evaluated
    on the column's distinct values and spread to the rows by their codes, and only once when
    several queries share it. The distinct values are elements of the column, so they evaluate
    exactly as the rows do.
    """
    distinct = {}
    for c in {p.attribute for q in queries for p in q.predicates}:
        column = table[c].to_numpy()
        codes, _ = pd.factorize(column, use_na_sentinel=False)
        first = np.unique(codes, return_index=True)[1]
        distinct[c] = (column[first], codes)
    holds: dict[Predicate, np.ndarray] = {}  # predicate -> its value on the distinct values
    rows = []
    for q in queries:
        mask = np.ones(len(table), dtype=bool)
        for p in q.predicates:
            values, codes = distinct[p.attribute]
            if p not in holds:
                holds[p] = p.evaluate(values)
            mask &= holds[p][codes]
        rows.append(np.flatnonzero(mask))
    return rows


def _sums(table: pd.DataFrame, query_rows: Sequence[np.ndarray]) -> np.ndarray:
    """``SUM(INCWAGE)`` of each query given its rows, summed as
    :func:`~ppdp.utility.queries.query_sums` sums."""
    s = table[SENSITIVE].to_numpy(dtype=float)
    return np.array([s[rows].sum() for rows in query_rows])


def _anatomy_bounds(
    query_rows: Sequence[np.ndarray], groups: np.ndarray, sensitive_values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~ppdp.utility.queries.bounds_anatomy` for queries given by the QIT rows they select.

    The rows depend only on the QI values, which every Anatomy release of the table publishes
    unchanged, so they are found once for all releases; the bounds are computed as there.
    """
    groups = np.asarray(groups)
    s = np.asarray(sensitive_values, dtype=float)
    if np.any(s < 0):
        raise ValueError("bounds need non-negative sensitive values")
    n_groups = int(groups.max()) + 1
    sizes = np.bincount(groups, minlength=n_groups)
    # ascending sensitive values of each group, padded with 0, and their prefix sums
    order = np.lexsort((s, groups))
    rank = np.arange(len(s)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    asc = np.zeros((n_groups, int(sizes.max())))
    asc[groups[order], rank] = s[order]
    prefix_small = np.concatenate([np.zeros((n_groups, 1)), np.cumsum(asc, axis=1)], axis=1)
    every = np.arange(n_groups)
    total = prefix_small[every, sizes]
    lower, upper = np.empty(len(query_rows)), np.empty(len(query_rows))
    for i, rows in enumerate(query_rows):
        c = np.bincount(groups[rows], minlength=n_groups)
        lower[i] = prefix_small[every, c].sum()
        upper[i] = (total - prefix_small[every, sizes - c]).sum()
    return lower, upper


def mondrian_variants(
    l: int,  # noqa: E741 (the paper's l)
    sizes: Sequence[int | str] = MONDRIAN_K_RANGE,
) -> list[dict[str, Any]]:
    """The Mondrians of the group sizes ``sizes`` other than Fig. 5's, as keyword arguments of
    :class:`~ppdp.mechanisms.mondrian.Mondrian` (the ``variants`` of :func:`mondrian_group_sizes`).

    Fig. 5's Mondrian is l-diverse with no other bound on its groups; the paper gives no other.
    A size is :data:`MINIMAL` (``"minimal"``: the groups refined into groups of ``l`` or ``l + 1``
    tuples, the smallest l-diversity allows, as MutualCover's own partition) or an integer ``k``:
    l-diverse groups of at least ``k`` tuples. An l-diverse group holds at least ``l`` tuples, so
    ``k <= l`` is Fig. 5's Mondrian itself: it is left out, as are repeats. Order: ``"minimal"``,
    then rising ``k``.
    """
    minimal, ks = False, set()
    for size in sizes:
        if size == MINIMAL:
            minimal = True
        elif isinstance(size, Integral) and not isinstance(size, bool) and size >= 1:
            if size > l:
                ks.add(int(size))
        else:
            raise ValueError(
                f"a Mondrian group size is {MINIMAL!r} or an integer k >= 1, got {size!r}"
            )
    out = [{"l": l, "refine": "anatomy"}] if minimal else []
    return out + [{"l": l, "k": k} for k in sorted(ks)]


def mondrian_group_sizes(
    data: pd.DataFrame,
    *,
    variants: Sequence[Mapping[str, Any]] = (
        {"l": 10},
        {"l": 20},
        {"l": 10, "k": 50},
        {"l": 10, "k": 200},
        {"l": 10, "refine": "anatomy"},
    ),
    p_match: Sequence[float] = P_MATCH,
    n_runs: int = 10,
    seed: int = 0,
    distance: str = "ordinal",
) -> pd.DataFrame:
    """Fig. 5's Mondrian at other group sizes: its identity and attribute disclosure per
    ``P_match``.

    Mutual Cover's disclosure claims compare it with one l-diverse Mondrian; how its groups are
    sized is the paper's choice, not Mondrian's. Each variant (keyword arguments of
    :class:`~ppdp.mechanisms.mondrian.Mondrian`: ``l``, ``k``, ``refine``; see
    :func:`mondrian_variants`) is attacked with the same match conditions as
    :func:`run_experiments` with the same ``seed`` and ``n_runs``, so its rows compare directly with
    that run's ``fig3`` and ``fig4`` rows.

    Returns
    -------
    DataFrame
        Tidy rows of experiment ``"mondrian_groups"``: method ``Mondrian(l=10, k=50)`` etc., metrics
        ``identity_disclosure`` and ``attribute_disclosure`` per run and ``P_match`` (parameter
        ``p_match``), and ``mean_group_size`` (tuples per group).
    """
    categorical = categorical_columns(distance)
    qi = list(QI)
    n = len(data)
    for variant in variants:
        unknown = set(variant) - {"l", "k", "refine"}
        if unknown:
            raise ValueError(f"variants may set l, k and refine only; got {sorted(unknown)}")
    conditions = {
        (p, r): draw_match_conditions(n, len(qi), p, _rng(seed, "match", p, r))
        for p in p_match
        for r in range(n_runs)
    }
    rows = []
    for variant in variants:
        name = "Mondrian(" + ", ".join(f"{k}={v}" for k, v in variant.items()) + ")"
        model = Mondrian(qi, SENSITIVE, categorical=categorical, **variant).fit(data)
        rows += tidy_rows(
            "mondrian_groups", name, {"mean_group_size": n / model.n_groups_}, parameters=variant
        )
        for p in p_match:
            for r in range(n_runs):
                ident, attr = disclosure_generalized(
                    data, model.generalized_, SENSITIVE, conditions[(p, r)]
                )
                rows += tidy_rows(
                    "mondrian_groups",
                    name,
                    {"identity_disclosure": ident.mean(), "attribute_disclosure": attr.mean()},
                    parameters={**variant, "p_match": p},
                    seed=r,
                )
    return tidy_frame(rows)


# ------------------------------------------------------------------------------------------------
# Notebook parameters

#: 1/delta: delta is a probability below 1 (the paper uses 1/5 to 1/10)
_INVERSE_DELTA = Param("float", low=1, open_low=True)

#: The parameters of notebooks/mutual_cover.ipynb.
PARAMETERS: dict[str, Param] = {
    **COMMON_PARAMETERS,
    "n_rows": Param("int", low=1, none=True),
    "inverse_deltas": Param("list", item=_INVERSE_DELTA),
    "l": Param("int", low=2),
    "l_values": Param("list", item=Param("int", low=2)),
    "inverse_delta_for_l": _INVERSE_DELTA,
    "p_match": Param("list", item=Param("float", low=0, high=1)),
    "n_runs": Param("int", low=1),
    "n_queries": Param("int", low=1),
    "distance": Param("str", choices=("ordinal", "zero_one")),
    "refine": Param("str", choices=("anatomy", "none")),
    "solver": Param("str", choices=("batch", "ipm", "simplex")),
    # Fig. 5's Mondrian at other group sizes: "minimal" or a minimum group size k
    "mondrian_k_range": Param(
        "list",
        item=Param("any", alternatives=(Param("int", low=1), Param("str", choices=(MINIMAL,)))),
    ),
}


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's parameters checked against :data:`PARAMETERS`, in canonical form.

    See :func:`ppdp.experiments.common.check_parameters`; the notebook calls
    ``globals().update(check_parameters(globals()))`` right after its parameters cell.
    """
    return _check_parameters(values, PARAMETERS)
