"""The cross-paper benchmark's tables, read from result rows: planes, frontiers, metrics.

A plane puts a privacy axis (:data:`RISK_AXES`) against a utility axis (:data:`UTILITY_AXES`), one
point per mechanism and level with intervals over seeds (:func:`plane_points`); its Pareto
frontier (:func:`pareto_front`); every metric, the time per mechanism and the columns each
mechanism leaves untouched. The leaderboard is :mod:`ppdp.experiments.benchmark.leaderboard`. The
benchmark judges no published claim: :func:`claims` returns no rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ppdp.experiments.benchmark.attacks import AWARE_ATTACKERS, ROW_READERS
from ppdp.experiments.benchmark.data import load_roles
from ppdp.experiments.benchmark.registry import REGISTRY
from ppdp.experiments.common import facet, is_metric, mean_halfwidth, tidy_frame, with_parameters

__all__ = [
    "attack_table",
    "binding_attackers",
    "claims",
    "coverage_table",
    "metric_rows",
    "metric_table",
    "native_table",
    "pareto_front",
    "plane_points",
    "release_table",
    "summary_table",
    "time_table",
]

#: The privacy axes: the worst-case risk, single attackers' advantages, anonymeter's own risk.
RISK_AXES = {
    "risk": "largest advantage in AUC over the no-release baseline, over the attacker suite",
    "risk_tpr_1pct": "largest excess over the baseline in TPR at 1% FPR, over the suite",
    "risk_tpr_01pct": "largest excess over the baseline in TPR at 0.1% FPR, over the suite",
    "risk_confident": "largest excess over the baseline in the share of targets whose value is "
    "inferred with posterior >= 0.99, over the suite",
    "risk_gap": "largest gap between an attacker's advantage on targets and on controls",
    "xgb_I": "advantage of XGBoost trained on the release (Scenario I)",
    "lr_I": "advantage of logistic regression trained on the release (Scenario I)",
    "xgb_II": "advantage of XGBoost trained on auxiliary records, applied to the released row",
    "class_matching": "advantage of class matching (the released rows that hold the target)",
    "anonymeter_nn": "advantage of anonymeter's inference attack (the nearest released record)",
    "anonymeter_inference": "anonymeter inference risk (its own advantage over a control set)",
}
#: Short axis labels of the planes.
RISK_LABELS = {
    "risk": "risk: worst attacker's AUC advantage",
    "risk_tpr_1pct": "tail: worst excess TPR at 1% FPR",
    "risk_tpr_01pct": "tail: worst excess TPR at 0.1% FPR",
    "risk_confident": "tail: worst excess of disclosures at 0.99",
    "risk_gap": "worst target-control gap",
    "xgb_I": "XGBoost (Scenario I) advantage",
    "lr_I": "logistic regression (Scenario I) advantage",
    "xgb_II": "XGBoost (Scenario II) advantage",
    "class_matching": "class matching advantage",
    "anonymeter_nn": "anonymeter's nearest record advantage",
    "anonymeter_inference": "anonymeter inference risk",
}
UTILITY_LABELS = {
    "population_auc": "population AUC of the private attribute",
    "private_query_error": "query error, queries on the private attribute",
    "task_auc": "task AUC (trained on the release)",
    "query_error": "query error",
    "marginal_tv_1": "1-way marginal TV",
    "marginal_tv_2": "2-way marginal TV",
}
#: The utility axes.
UTILITY_AXES = {
    "population_auc": "what the population keeps of the private attribute: the AUC, on real "
    "people outside the release, of XGBoost trained on the release (quasi-identifiers -> "
    "private value); 0.5 is the floor of a release that teaches nothing",
    "private_query_error": "median relative error of the workload's queries that condition on "
    "the private attribute",
    "task_auc": "task AUC, trained on the release (private columns among the features), tested "
    "on held-out real rows",
    "query_error": "median relative error of the count workload (every column)",
    "marginal_tv_1": "mean total variation of the 1-way marginals of every column",
    "marginal_tv_2": "mean total variation of the 2-way marginals of every pair of columns",
}
#: The utility axes measured of a private attribute (their rows have its facet ``attribute``).
ATTRIBUTE_UTILITIES = ("population_auc", "private_query_error")
#: The reference releases drawn apart in the planes: unprotected, private columns suppressed,
#: nothing released.
REFERENCES = ("none", "suppressed", "nothing")


def _risk_metric(risk: str) -> tuple[str, str | None]:
    """The metric and statistic of a privacy axis (:data:`RISK_AXES` or a mechanism-aware
    attacker), measured of a private attribute (its facet ``attribute``)."""
    if risk.startswith("risk"):
        if risk not in RISK_AXES:
            raise ValueError(
                f"risk must be one of {sorted({*RISK_AXES, *AWARE_ATTACKERS})}, got {risk!r}"
            )
        return risk, None
    if risk == "anonymeter_inference":
        return "anonymeter_inference", "risk"
    if risk in RISK_AXES or risk in AWARE_ATTACKERS:
        return f"{risk}_advantage", None
    allowed = sorted({*RISK_AXES, *AWARE_ATTACKERS})
    raise ValueError(f"risk must be one of {allowed}, got {risk!r}")


def _risk_rows(frame: pd.DataFrame, private: str, risk: str) -> pd.Series:
    """Which rows of ``frame`` measure the privacy axis ``risk`` on ``private`` (a boolean mask)."""
    metric, statistic = _risk_metric(risk)
    if statistic is None:
        return is_metric(frame, metric, attribute=private)
    return is_metric(frame, metric, attribute=private, statistic=statistic)


def binding_attackers(
    results: pd.DataFrame, dataset: str, private: str | None, template: str = "{a}_advantage"
) -> pd.Series:
    """The attacker with the largest mean (over seeds) of a per-attacker metric at each
    (method, level): by default its advantage, the one that sets the release's risk
    (``"baseline"`` when none beats the no-release baseline).

    ``template`` names the metric of attacker ``{a}`` (``"{a}_tpr_1pct_excess"`` for a tail
    measure, ``"membership_{a}_advantage"`` for membership, a metric of the whole release: then
    ``private`` is None). Attackers left out of a release's risk (:data:`ROW_READERS` on a
    release whose entry is ``private_unchanged``) bind none. Indexed by (method, level)."""
    frame = results[results["experiment"] == f"benchmark_{dataset}"]
    head, tail = template.split("{a}")
    attribute = facet(frame, "attribute")
    mine = attribute.isna() if private is None else attribute == private
    metric = frame["metric"]
    sub = frame[mine & metric.str.startswith(head) & metric.str.endswith(tail)]
    attacker = sub["metric"].str.removeprefix(head).str.removesuffix(tail)
    if private is not None:
        unchanged = [name for name, entry in REGISTRY.items() if entry.private_unchanged]
        sub = sub[~(sub["method"].isin(unchanged) & attacker.isin(ROW_READERS))]
        attacker = attacker[sub.index]
    if sub.empty:
        return pd.Series(dtype=object)
    sub = with_parameters(sub.assign(attacker=attacker), ["level"])
    means = sub.groupby(["method", "level", "attacker"])["value"].mean().reset_index()
    best = means.loc[means.groupby(["method", "level"])["value"].idxmax()]
    # no attacker beats the baseline: the risk is 0, set by ignoring the release
    names = best["attacker"].where(best["value"] > 0, "baseline")
    return pd.Series(names.to_numpy(), index=pd.MultiIndex.from_frame(best[["method", "level"]]))


def plane_points(
    results: pd.DataFrame,
    dataset: str,
    *,
    private: str | None = None,
    risk: str = "risk",
    utility: str = "population_auc",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One point per (mechanism, level): mean risk and utility over seeds, with 95% half-widths
    (Student t over the seeds, each with its own subsample, split, release and attackers).

    ``private`` defaults to the dataset's protected attribute; ``risk`` is a key of
    :data:`RISK_AXES` (``"risk"``: the worst attacker's advantage) or of a mechanism-aware
    attacker; ``utility`` a key of :data:`UTILITY_AXES` (those of :data:`ATTRIBUTE_UTILITIES`
    measured of ``private``).
    """
    if utility not in UTILITY_AXES:
        raise ValueError(f"utility must be one of {sorted(UTILITY_AXES)}, got {utility!r}")
    roles = load_roles()[dataset]
    private = private or roles["private"][0]
    _risk_metric(risk)  # an unknown axis is an error even without rows
    frame = results[results["experiment"] == f"benchmark_{dataset}"]
    frame = with_parameters(frame, ["level"])
    # each row's axis: the risk (its metric of the attribute ``private``) or the utility
    is_risk = _risk_rows(frame, private, risk)
    if utility in ATTRIBUTE_UTILITIES:
        is_utility = is_metric(frame, utility, attribute=private)
    else:
        is_utility = (frame["metric"] == utility) & facet(frame, "attribute").isna()
    axis = pd.Series(np.where(is_risk, "risk", "utility"), index=frame.index)
    sub = frame.assign(axis=axis)[is_risk | is_utility]
    if not {"risk", "utility"} <= set(sub["axis"]):  # e.g. a run without anonymeter
        return pd.DataFrame(
            columns=["method", "level", "risk", "risk_hw", "utility", "utility_hw", "n_seeds"]
        )
    stats = sub.groupby(["method", "level", "axis"])["value"].agg(["mean", "std", "count"])
    stats["hw"] = mean_halfwidth(
        stats["std"].fillna(0.0), stats["count"], confidence=confidence, distribution="t"
    )
    stats = stats.reset_index()
    # one seed gives no interval (NaN half-widths): keep those columns
    wide = stats.pivot_table(
        index=["method", "level"], columns="axis", values=["mean", "hw", "count"], dropna=False
    )
    out = pd.DataFrame(
        {
            "risk": wide[("mean", "risk")],
            "risk_hw": wide[("hw", "risk")],
            "utility": wide[("mean", "utility")],
            "utility_hw": wide[("hw", "utility")],
            "n_seeds": wide[("count", "utility")],
        }
    ).reset_index()
    # dropna=False also made (method, level) pairs that were never run
    out = out.dropna(subset=["risk", "utility"]).astype({"n_seeds": int})
    return out.sort_values(["method", "level"], kind="mergesort").reset_index(drop=True)


def _better_utility(utility: str) -> int:
    """+1 when larger utility values are better (AUC), -1 when smaller are (errors, distances)."""
    return -1 if utility.startswith(("query_error", "private_query_error", "marginal_tv")) else 1


def pareto_front(points: pd.DataFrame, utility: str = "task_auc") -> pd.DataFrame:
    """The points no other point dominates (risk no larger and utility no worse, one strictly)."""
    if points.empty:
        return points.copy()
    sign = _better_utility(utility)
    r = points["risk"].to_numpy()
    u = sign * points["utility"].to_numpy()
    dominated = (
        (r[None, :] <= r[:, None])
        & (u[None, :] >= u[:, None])
        & ((r[None, :] < r[:, None]) | (u[None, :] > u[:, None]))
    ).any(axis=1)
    front = points[~dominated]
    return front.sort_values("risk", kind="mergesort").reset_index(drop=True)


def time_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and largest seconds of fit and release per mechanism and dataset (over levels and
    seeds), and the mean seconds of a release's evaluation (its attacks and measures) where the
    run recorded them."""
    bench = results[results["experiment"].str.startswith("benchmark_")]
    keys = ["experiment", "method"]
    sub = bench[bench["metric"] == "seconds"]
    out = sub.groupby(keys)["value"].agg(["mean", "max", "count"]).reset_index()
    evaluation = bench[bench["metric"] == "evaluation_seconds"].groupby(keys)["value"].mean()
    out = out.join(evaluation.rename("evaluation"), on=keys)
    out["dataset"] = out["experiment"].str.removeprefix("benchmark_")
    return out[["dataset", "method", "mean", "max", "count", "evaluation"]].rename(
        columns={
            "mean": "mean_seconds",
            "max": "max_seconds",
            "count": "releases",
            "evaluation": "mean_evaluation_seconds",
        }
    )


#: The columns of :func:`metric_table`, in order: each a metric, with ``{p}:`` before it for each
#: private attribute it is measured of (its facet ``attribute``) and ``_risk`` after anonymeter's
#: (its facet ``statistic``).
MAIN_METRICS = (
    "{p}:risk",
    "{p}:risk_tpr_1pct",
    "{p}:risk_tpr_01pct",
    "{p}:risk_confident",
    "{p}:risk_gap",
    "{p}:population_auc",
    "{p}:population_gain",
    "{p}:private_query_error",
    "{p}:baseline_auc",
    "{p}:xgb_I_advantage",
    "{p}:lr_I_advantage",
    "{p}:xgb_II_advantage",
    "{p}:class_matching_advantage",
    "{p}:class_matching_aux_advantage",
    "{p}:anonymeter_nn_advantage",
    "{p}:krr_channel_advantage",
    "{p}:nearest_class_advantage",
    "{p}:anonymeter_inference_risk",
    "anonymeter_linkability_risk",
    "anonymeter_singling_out_risk",
    "membership_risk",
    "membership_risk_tpr_1pct",
    "membership_risk_tpr_01pct",
    "reidentification",
    "measured_k",
    "measured_l",
    "task_auc",
    "task_accuracy",
    "query_error",
    "marginal_tv_1",
    "marginal_tv_2",
)


def metric_table(results: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """Every main metric of every (dataset, mechanism, level): means over seeds, one row each.

    A column is labelled by its metric and facets (:data:`MAIN_METRICS`): ``sex:risk`` is the
    metric ``risk`` of the attribute ``sex``, ``anonymeter_linkability_risk`` the statistic
    ``risk`` of the metric ``anonymeter_linkability``. The wide form of :func:`metric_rows`."""
    rows = metric_rows(results, digits)
    attributes = sorted(set(rows["attribute"]) - {""})
    order = []
    for name in MAIN_METRICS:
        order += [name.format(p=p) for p in attributes] if "{p}" in name else [name]
    order += sorted(m for m in rows["metric"].unique() if m.startswith("native_"))
    label = rows["metric"].where(rows["attribute"] == "", rows["attribute"] + ":" + rows["metric"])
    wide = rows.assign(metric=label).pivot_table(
        index=["dataset", "mechanism", "level"], columns="metric", values="value", aggfunc="first"
    )
    return wide[[m for m in order if m in wide.columns]]


def metric_rows(results: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """Every main metric of every (dataset, mechanism, level) as tidy rows, only where measured.

    The long form of :func:`metric_table`, whose cells are mostly empty, as each dataset has its own
    private attributes and each mechanism its own native losses and mechanism-aware attacker.

    Parameters
    ----------
    results : DataFrame
        The benchmark's tidy rows (experiments ``benchmark_<dataset>``).
    digits : int
        Decimals of the rounded means.

    Returns
    -------
    DataFrame
        Columns ``dataset``, ``mechanism``, ``level``, ``attribute`` (the private attribute an
        attacker targets; empty for a metric of the whole release), ``metric`` and ``value`` (the
        mean over seeds). Metrics: those of :data:`MAIN_METRICS`, every attacker's
        ``<attacker>_advantage`` and the native losses ``native_<loss>``.

    Examples
    --------
    >>> from ppdp.experiments.common import tidy_frame, tidy_rows
    >>> results = tidy_frame(
    ...     tidy_rows("benchmark_adult", "krr", {"risk": 0.1, "krr_channel_advantage": 0.05},
    ...               parameters={"level": 0.5}, facets={"attribute": "sex"})
    ...     + tidy_rows("benchmark_adult", "krr", {"task_auc": 0.8, "seconds": 2.0},
    ...                 parameters={"level": 0.5}))
    >>> metric_rows(results)
      dataset mechanism  level attribute                 metric  value
    0   adult       krr    0.5       sex                   risk   0.10
    1   adult       krr    0.5       sex  krr_channel_advantage   0.05
    2   adult       krr    0.5                         task_auc   0.80
    """
    frame = with_parameters(results[results["experiment"].str.startswith("benchmark_")], ["level"])
    attribute, statistic = facet(frame, "attribute"), facet(frame, "statistic")
    label = frame["metric"].where(statistic.isna(), frame["metric"] + "_" + statistic.astype(str))
    main = [name.removeprefix("{p}:") for name in MAIN_METRICS]
    # the raw AUCs are read through their advantages; "changed" and "seconds" describe the run,
    # not privacy or utility (coverage_table and time_table show them)
    keep = label.isin(main) | label.str.endswith("_advantage") | label.str.startswith("native_")
    frame = frame.assign(
        dataset=frame["experiment"].str.removeprefix("benchmark_"),
        mechanism=frame["method"],
        attribute=attribute.fillna("").astype(str),
        metric=label,
    )[keep]
    keys = ["dataset", "mechanism", "level", "attribute", "metric"]
    out = frame.groupby(keys, sort=False)["value"].mean().round(digits).reset_index()
    # one mechanism's rows together, attackers before the release-wide metrics, in a stable order
    rank = {name: i for i, name in enumerate(main)}
    order = out["metric"].map(lambda m: rank.get(m, len(rank) + m.startswith("native_")))
    out = out.assign(_order=order, _wide=out["attribute"] == "")
    out = out.sort_values(
        ["dataset", "mechanism", "level", "_wide", "attribute", "_order"], kind="mergesort"
    )
    return out.drop(columns=["_order", "_wide"]).reset_index(drop=True)


#: The columns of :func:`attack_table`: each attacker's advantage (``aware``: the mechanism-aware
#: attacker of :data:`~ppdp.experiments.benchmark.attacks.AWARE_ATTACKERS`, if the mechanism has
#: one), the worst of them (``risk``), the no-release baseline's AUC and anonymeter's risk.
ATTACK_COLUMNS = (
    "risk",
    "risk_tpr_1pct",
    "risk_tpr_01pct",
    "risk_confident",
    "risk_gap",
    "population_auc",
    "population_gain",
    "baseline_auc",
    "xgb_I",
    "lr_I",
    "xgb_II",
    "class_matching",
    "class_matching_aux",
    "anonymeter_nn",
    "aware",
    "anonymeter_inference_risk",
)


def attack_table(results: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """The attackers' scores of every (dataset, mechanism, level, attacked attribute), narrow.

    One row per private attribute an attacker targets, one column per attacker
    (:data:`ATTACK_COLUMNS`, ``_advantage`` dropped from the names: each is the attacker's AUC on
    released targets minus the no-release baseline's); a column no row measures is left out.

    Parameters
    ----------
    results : DataFrame
        The benchmark's tidy rows (experiments ``benchmark_<dataset>``).
    digits : int
        Decimals of the rounded means over seeds.

    Returns
    -------
    DataFrame
        Indexed by ``dataset``, ``mechanism``, ``level`` and ``attribute``.

    Examples
    --------
    >>> from ppdp.experiments.common import tidy_frame, tidy_rows
    >>> results = tidy_frame(
    ...     tidy_rows("benchmark_adult", "krr", {"risk": 0.1, "krr_channel_advantage": 0.05},
    ...               parameters={"level": 0.5}, facets={"attribute": "sex"}))
    >>> attack_table(results)
                                   risk  aware
    dataset mechanism level attribute
    adult   krr       0.5   sex         0.1   0.05
    """
    rows = metric_rows(results, digits)
    rows = rows[rows["attribute"] != ""]
    name = rows["metric"].str.removesuffix("_advantage")
    # a mechanism has at most one mechanism-aware attacker (its registry entry's ``aware``)
    rows = rows.assign(metric=name.where(~name.isin(list(AWARE_ATTACKERS)), "aware"))
    return _narrow(rows, ["dataset", "mechanism", "level", "attribute"], ATTACK_COLUMNS)


#: The columns of :func:`release_table`: measures of the whole release (:data:`MAIN_METRICS`
#: without an attribute).
RELEASE_COLUMNS = tuple(name for name in MAIN_METRICS if "{p}" not in name)


def release_table(results: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """The measures of the whole release at every (dataset, mechanism, level), narrow.

    Utility, anonymeter's linkability and singling-out risks, re-identification and the measured k
    and l (:data:`RELEASE_COLUMNS`); a column no row measures is left out. The mechanisms' own
    losses are in :func:`native_table`.

    Parameters
    ----------
    results : DataFrame
        The benchmark's tidy rows (experiments ``benchmark_<dataset>``).
    digits : int
        Decimals of the rounded means over seeds.

    Returns
    -------
    DataFrame
        Indexed by ``dataset``, ``mechanism`` and ``level``.

    Examples
    --------
    >>> from ppdp.experiments.common import tidy_frame, tidy_rows
    >>> results = tidy_frame(
    ...     tidy_rows("benchmark_adult", "mondrian", {"task_auc": 0.8, "native_iloss": 12.5},
    ...               parameters={"level": 5}))
    >>> release_table(results)
                             task_auc
    dataset mechanism level
    adult   mondrian  5           0.8
    """
    rows = metric_rows(results, digits)
    rows = rows[(rows["attribute"] == "") & ~rows["metric"].str.startswith("native_")]
    return _narrow(rows, ["dataset", "mechanism", "level"], RELEASE_COLUMNS)


def native_table(results: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """Each mechanism's own losses at every (dataset, mechanism, level): one row per loss.

    A mechanism reports the losses its paper measures (``native_<loss>`` rows: Mondrian's ILoss,
    SPPM's distortion and leakage, MST's rho, ...), each its own, so they are listed rather than
    tabulated side by side.

    Parameters
    ----------
    results : DataFrame
        The benchmark's tidy rows (experiments ``benchmark_<dataset>``).
    digits : int
        Decimals of the rounded means over seeds.

    Returns
    -------
    DataFrame
        Indexed by ``dataset``, ``mechanism``, ``level`` and ``loss`` (the name without
        ``native_``), with one column, ``value``.

    Examples
    --------
    >>> from ppdp.experiments.common import tidy_frame, tidy_rows
    >>> results = tidy_frame(
    ...     tidy_rows("benchmark_adult", "sppm", {"native_distortion": 0.05,
    ...               "native_leakage_bits": 0.5561, "task_auc": 0.8}, parameters={"level": 0.05}))
    >>> native_table(results)
                                          value
    dataset mechanism level loss
    adult   sppm      0.05  distortion    0.050
                            leakage_bits  0.556
    """
    rows = metric_rows(results, digits)
    rows = rows[rows["metric"].str.startswith("native_")]
    rows = rows.assign(loss=rows["metric"].str.removeprefix("native_"))
    return rows.set_index(["dataset", "mechanism", "level", "loss"])[["value"]]


def _narrow(rows: pd.DataFrame, keys: list[str], columns: Sequence[str]) -> pd.DataFrame:
    """Tidy rows pivoted to one row per ``keys`` and the ``columns`` that some row measures."""
    if rows.empty:
        return pd.DataFrame(index=pd.MultiIndex.from_tuples([], names=keys))
    # ``first``: each cell holds one mean already (metric_rows averaged over seeds)
    table = rows.pivot_table(index=keys, columns="metric", values="value", aggfunc="first")
    table = table[[c for c in columns if c in table.columns]]
    table.columns.name = None  # no stray "metric" header above the columns
    return table


def summary_table(results: pd.DataFrame, dataset: str, *, digits: int = 2) -> pd.DataFrame:
    """Strongest and weakest level of each mechanism: the risk (the worst attacker's advantage)
    on the attribute the mechanism protects, the attacker that sets it, and what the population
    keeps of that attribute (:data:`UTILITY_AXES` ``population_auc``); means over seeds,
    rounded."""
    protected = load_roles()[dataset]["private"][0]
    by_attr: dict[str, tuple[pd.DataFrame, pd.Series]] = {}
    rows = []
    methods = sorted(set(results.loc[results["experiment"] == f"benchmark_{dataset}", "method"]))
    for method in methods:
        entry = REGISTRY.get(method)
        attr = (entry.protects if entry is not None else None) or protected
        if attr not in by_attr:
            by_attr[attr] = (
                plane_points(results, dataset, private=attr),
                binding_attackers(results, dataset, attr),
            )
        points, binding = by_attr[attr]
        grp = points[points["method"] == method].sort_values("risk", kind="mergesort")
        if grp.empty:
            continue
        for tag, row in (("lowest risk", grp.iloc[0]), ("highest risk", grp.iloc[-1])):
            rows.append(
                {
                    "mechanism": method,
                    "attribute": attr,
                    "point": tag,
                    "level": row["level"],
                    "risk": round(float(row["risk"]), digits),
                    "attacker": binding.get((method, row["level"]), ""),
                    "population_auc": round(float(row["utility"]), digits),
                }
            )
    return pd.DataFrame(rows)


def coverage_table(results: pd.DataFrame) -> pd.DataFrame:
    """The columns each record-keeping mechanism left exactly as they were at every level and
    seed (metric ``changed`` of the column, its facet ``attribute``, = 0), per dataset: what its
    model does not protect."""
    frame = results[
        results["experiment"].str.startswith("benchmark_") & (results["metric"] == "changed")
    ]
    rows = []
    for (experiment, method), grp in frame.groupby(["experiment", "method"], sort=True):
        if method in REFERENCES:
            continue
        most = grp.groupby("attribute")["value"].max()
        kept = [column for column, v in most.items() if v == 0.0]
        rows.append(
            {
                "dataset": experiment.removeprefix("benchmark_"),
                "mechanism": method,
                "untouched": ", ".join(kept),
            }
        )
    return pd.DataFrame(rows, columns=["dataset", "mechanism", "untouched"])


def claims(results: pd.DataFrame, **context) -> pd.DataFrame:
    """The benchmark judges no published claim: no rows (the report shows its tables instead)."""
    return tidy_frame([])
