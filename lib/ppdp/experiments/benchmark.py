"""A cross-paper benchmark: every mechanism on the same data, against the same attackers.

The five papers each pick their own data, attacker and utility measure. Here every mechanism that
fits a dataset is applied through the common release API (``fit(df).release(random_state)``) at a
few privacy levels spanning its range, and every release is scored by one attacker suite and one
utility suite (:mod:`ppdp.attacks.suite`, :mod:`ppdp.utility.workload`), with released cells read
as distributions over the original domain (:mod:`ppdp.cells`).

Datasets and column roles are stated once, in ``benchmark_roles.yaml`` beside this module:

* **UCI Adult**: private ``sex``; task ``income``; quasi-identifiers age, education (its ordinal
  code ``education_num``), marital status, occupation, race and native country. Rows with a missing
  value are dropped and a stratified subsample of ``n_rows`` is drawn.
* **MovieLens-1M**: private ``gender`` and ``age`` (the seven GroupLens age groups); features
  from each user's ratings: the share of six genres among the user's rated movies and the number of
  ratings, each in terciles (1/2/3), and the occupation; the task is what the user watches next:
  ``action_fan`` = 1 when the share of action movies among a random fifth of the user's ratings,
  not used for the features, is above the median user's.

Protocol per dataset and seed: each seed draws its own stratified subsample (``n_rows``) and
splits it 40/40/20 into ``train`` (what a mechanism protects and releases), ``aux`` (the
attacker's auxiliary real records) and ``control`` (people in neither), all disjoint. Each
mechanism is fitted on ``train`` at each of its levels and releases one table.

Threat models (:mod:`.benchmark_attacks`; also ``threat_models`` in the roles file): targeted
attribute inference on released people, scored on targets in the release and on controls outside
it, as an advantage in AUC over a no-release baseline trained on ``aux``; the risk of a release is
the largest advantage over the attacker suite, mechanism-aware attackers included. anonymeter's
risks and record linkage are separate axes. Utility sees everything released: the task uses the
private columns as features, the count workload constrains every column, and the 1- and 2-way
marginals of all columns are compared by total variation.

Modules
-------
:mod:`.benchmark_data` (roles, tables, split) and :mod:`.benchmark_registry` (one
:class:`~.benchmark_registry.Entry` per mechanism: adding a mechanism is one :func:`register` call)
feed this module, which runs every release through the attackers and the utility measures and
draws the planes, the Pareto frontiers and the leaderboard. Their public names are re-exported here.
"""

from __future__ import annotations

import re
import time
import warnings
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp.experiments.benchmark_attacks import AWARE_ATTACKERS, attack_context, targeted_risks
from ppdp.experiments.benchmark_data import (
    DATASETS,
    BenchmarkData,
    Split,
    adult_table,
    load_dataset,
    load_roles,
    load_threat_models,
    movielens_table,
    split,
)
from ppdp.experiments.benchmark_registry import (
    LEFT_OUT,
    REGISTRY,
    Entry,
    applicability,
    configure,
    register,
)
from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    Param,
    facet,
    mean_halfwidth,
    tidy_frame,
    tidy_rows,
    with_parameters,
)
from ppdp.experiments.common import check_parameters as _check_parameters

__all__ = [
    "DATASETS",
    "LEFT_OUT",
    "REGISTRY",
    "BenchmarkData",
    "Entry",
    "Split",
    "adult_table",
    "applicability",
    "benchmark_workload",
    "binding_attackers",
    "claims",
    "configure",
    "coverage_table",
    "evaluate_release",
    "leaderboard",
    "load_dataset",
    "load_roles",
    "load_threat_models",
    "metric_facets",
    "metric_table",
    "movielens_table",
    "pareto_front",
    "plane_points",
    "plot_planes",
    "register",
    "release_rows",
    "run_benchmark",
    "split",
    "summary_table",
    "time_table",
]

#: The privacy axes: the worst-case risk, single attackers' advantages, anonymeter's own risk.
RISK_AXES = {
    "risk": "largest advantage in AUC over the no-release baseline, over the attacker suite",
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
    "xgb_I": "XGBoost (Scenario I) advantage",
    "lr_I": "logistic regression (Scenario I) advantage",
    "xgb_II": "XGBoost (Scenario II) advantage",
    "class_matching": "class matching advantage",
    "anonymeter_nn": "anonymeter's nearest record advantage",
    "anonymeter_inference": "anonymeter inference risk",
}
UTILITY_LABELS = {
    "task_auc": "task AUC (trained on the release)",
    "query_error": "query error",
    "marginal_tv_1": "1-way marginal TV",
    "marginal_tv_2": "2-way marginal TV",
}
#: The utility axes.
UTILITY_AXES = {
    "task_auc": "task AUC, trained on the release (private columns among the features), tested "
    "on held-out real rows",
    "query_error": "median relative error of the count workload (every column)",
    "marginal_tv_1": "mean total variation of the 1-way marginals of every column",
    "marginal_tv_2": "mean total variation of the 2-way marginals of every pair of columns",
}
#: The leaderboard's thresholds on the risk (the worst attacker's AUC advantage).
RISK_THRESHOLDS = (0.02, 0.05)
#: The reference releases drawn apart in the planes: unprotected, private columns suppressed,
#: nothing released.
REFERENCES = ("none", "suppressed", "nothing")
#: The statistics of each anonymeter evaluator (:func:`ppdp.attacks.suite.anonymeter_risks`): the
#: facet ``statistic`` of its metric ``anonymeter_<evaluator>``. ``ci_low`` and ``ci_high`` are the
#: 95% interval of the ``risk``: its row's ci_low and ci_high, not rows of their own.
ANONYMETER_STATISTICS = ("attack_rate", "baseline_rate", "control_rate", "risk")
#: A flat name of anonymeter's: ``anonymeter_<evaluator>_<statistic>`` (after ``<attribute>:``).
_ANONYMETER_NAME = re.compile(
    r"(?P<metric>anonymeter_(?:inference|linkability|singling_out))"
    rf"_(?P<statistic>{'|'.join((*ANONYMETER_STATISTICS, 'ci_low', 'ci_high'))})"
)


# ------------------------------------------------------------------------------------------------
# Running


def evaluate_release(
    data: BenchmarkData,
    parts: Split,
    released: pd.DataFrame,
    *,
    keeps_records: bool,
    queries,
    seed: int,
    contexts: Mapping[str, Any] | None = None,
    aware: str | None = None,
    protects: str | None = None,
    level=None,
    fitted=None,
    n_estimators: int = 100,
    anonymeter: bool = True,
    n_attacks: int = 300,
    query_truth=None,
) -> dict[str, float]:
    """Every privacy and utility metric of one release (flat ``name -> value``).

    A name spells the facets of its metric: ``<attribute>:`` before a targeted attacker's
    metric (``sex:risk``) and a changed column (``changed:age``), the statistic after anonymeter's
    (``anonymeter_linkability_risk``, ``..._ci_low``); :func:`release_rows` splits them into the
    tidy rows' metric and facets.

    ``contexts`` holds each private attribute's :class:`~.benchmark_attacks.AttackContext` of
    this split (its targets, controls and no-release baseline; built here when not given).
    ``aware``, ``level`` and ``fitted`` feed the mechanism-aware attacker. ``query_truth``, the
    answers of ``queries`` on ``parts.train`` when already computed (see
    :func:`ppdp.utility.workload.workload_error`), saves recomputing them for every release.
    """
    from ppdp.attacks.suite import anonymeter_risks, record_linkage
    from ppdp.measured import measured_anonymity
    from ppdp.utility.marginals import mean_marginal_tv
    from ppdp.utility.workload import task_scores, workload_error

    train = parts.train
    metrics: dict[str, float] = {}
    rng = np.random.default_rng([seed, 11])
    if contexts is None:
        contexts = {
            p: attack_context(data, parts, p, seed=seed, n_estimators=n_estimators)
            for p in data.private
        }
    for private in data.private:
        metrics.update(
            targeted_risks(
                contexts[private],
                data,
                released,
                keeps_records=keeps_records,
                aware=aware,
                protects=protects,
                level=level,
                fitted=fitted,
                random_state=rng,
            )
        )
        if anonymeter:
            protected = private == data.protected
            risks = anonymeter_risks(
                train,
                parts.control,
                released,
                domains=data.domains,
                columns=[*data.qi, private],
                secret=private,
                n_attacks=n_attacks,
                seed=seed,
                evaluators=("inference", "linkability", "singling_out")
                if protected
                else ("inference",),
            )
            for row in risks.itertuples(index=False):
                prefix = f"{private}:" if row.evaluator == "inference" else ""
                metrics[f"{prefix}anonymeter_{row.evaluator}_{row.metric}"] = float(row.value)
    if keeps_records:
        metrics["reidentification"] = record_linkage(
            train, released, domains=data.domains, columns=data.qi
        )
        # which protected columns (quasi-identifiers and private ones) the release changed, and
        # how much of each (0: left as it was)
        for c in [*data.qi, *data.private]:
            same = released[c].astype(str).to_numpy() == train[c].astype(str).to_numpy()
            metrics[f"changed:{c}"] = float(1.0 - same.mean())
    anonymity = measured_anonymity(released, data.qi, data.protected, domains=data.domains)
    metrics["measured_k"] = float(anonymity.k)
    metrics["measured_l"] = float(anonymity.l_distinct)
    task = task_scores(
        released,
        parts.test,
        domains=data.domains,
        features=[c for c in data.columns if c != data.task],
        target=data.task,
        positive=str(data.roles["positive"]),
        seed=seed,
        n_estimators=n_estimators,
    )
    metrics["task_auc"] = float(task["auc"])
    metrics["task_accuracy"] = float(task["accuracy"])
    errors = workload_error(train, released, data.domains, queries, truth=query_truth)
    metrics["query_error"] = float(np.median(errors))
    metrics["query_error_mean"] = float(np.mean(errors))
    for order in (1, 2):
        metrics[f"marginal_tv_{order}"] = mean_marginal_tv(
            train, released, data.domains, data.columns, order=order
        )
    return metrics


def benchmark_workload(data: BenchmarkData, train: pd.DataFrame, seed: int, n_queries: int):
    """The count workload of one dataset and seed: drawn from the real ``train`` rows over every
    column, the private ones and the task included, the same for every mechanism."""
    from ppdp.utility.workload import count_workload

    return count_workload(
        train,
        data.domains,
        data.columns,
        n_queries=n_queries,
        random_state=np.random.default_rng([seed, 7]),
    )


def run_benchmark(
    datasets: Sequence[str] = DATASETS,
    *,
    n_rows: Mapping[str, int | None] | None = None,
    seeds: Sequence[int] = (0,),
    mechanisms: Sequence[str] | None = None,
    max_levels: int | None = None,
    n_queries: int = 200,
    n_estimators: int = 100,
    anonymeter: bool = True,
    n_attacks: int = 300,
    sample_seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """Apply every applicable mechanism at each of its levels, for each seed; tidy rows.

    Parameters
    ----------
    datasets : sequence of {"adult", "movielens"}
    n_rows : dict, optional
        Real rows drawn per dataset (None: all), by a stratified subsample that each seed draws
        anew (seeded by ``sample_seed + seed``), so that intervals over seeds cover the sample too.
    seeds : sequence of int
        One subsample, one train/aux/control split, one release and one set of attackers per
        seed.
    mechanisms : sequence of str, optional
        Registered names to run (default: all).
    max_levels : int, optional
        Keep only this many levels of each mechanism (its weakest and strongest first, then the
        ones between), for quick profiles.
    n_queries : int
        Size of the count workload (drawn once per dataset and seed from the real train rows, the
        same for every mechanism).
    n_estimators : int
        Trees of the XGBoost attackers and task models.
    anonymeter : bool
        Run anonymeter's evaluators (inference for every private attribute; linkability and
        singling out for the protected one).
    n_attacks : int
        anonymeter's attacks per evaluator.

    Returns
    -------
    DataFrame
        Tidy rows: ``experiment = "benchmark_<dataset>"``, ``method`` the mechanism, the
        parameter ``level`` (the knob's value), the seed, and one row per metric (``seconds`` is
        the time of fit and release) and facets (:func:`release_rows`): a targeted attacker's
        metrics (``risk``, ``xgb_I_advantage``, ...) and anonymeter's inference have the facet
        ``attribute`` (the private attribute attacked), ``changed`` the column it measures;
        anonymeter's ``anonymeter_<evaluator>`` has the facet ``statistic`` (``attack_rate``,
        ``baseline_rate``, ``control_rate``, ``risk``, the latter with its 95% interval).
    """
    from ppdp.utility.workload import expected_counts

    names = list(REGISTRY) if mechanisms is None else list(mechanisms)
    unknown = [m for m in names if m not in REGISTRY]
    if unknown:
        raise ValueError(f"mechanisms {unknown} are not registered; known: {sorted(REGISTRY)}")
    for d in datasets:
        if d not in DATASETS:
            raise ValueError(f"datasets must be drawn from {DATASETS}, got {d!r}")
    n_rows = dict(n_rows or {})
    evaluation_options = {
        "n_estimators": n_estimators,
        "anonymeter": anonymeter,
        "n_attacks": n_attacks,
    }
    jobs = []
    for d in datasets:
        for name in names:
            levels = REGISTRY[name].levels.get(d)
            if levels:
                jobs += [(d, name, lv) for lv in _pick_levels(levels, max_levels)]
    bar = None
    if progress:
        from tqdm import TqdmWarning

        with warnings.catch_warnings():
            # without ipywidgets tqdm.auto falls back to a text bar, with a warning that would
            # print this machine's paths into the notebook
            warnings.simplefilter("ignore", TqdmWarning)
            from tqdm.auto import tqdm

        bar = tqdm(total=len(jobs) * len(seeds), desc="benchmark")
    rows = []
    for d in datasets:
        for seed in seeds:
            data = load_dataset(d, n_rows.get(d), sample_seed + seed)
            parts = split(data, seed)
            queries = benchmark_workload(data, parts.train, seed, n_queries)
            # the workload's answers on train, the targets, controls and the no-release baseline:
            # the same for every release of this split
            truth = expected_counts(parts.train, data.domains, queries)
            contexts = {
                p: attack_context(data, parts, p, seed=seed, n_estimators=n_estimators)
                for p in data.private
            }
            options = {**evaluation_options, "query_truth": truth, "contexts": contexts}
            for dd, name, level in jobs:
                if dd != d:
                    continue
                rows += _run_one(data, parts, name, level, seed, queries, options)
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    return tidy_frame(rows)


def _run_one(data, parts, name, level, seed, queries, options) -> list[dict]:
    """The tidy rows of one mechanism at one level on one split: release, then evaluate.

    The release runs with one BLAS and one OpenMP thread. Its problems are small (a relay
    chain's eigendecompositions of ~70 x 70 scatter matrices, HyObscure's k-means of a few
    thousand users) and a second thread on a shared machine spins far more than it computes
    (k-means: 50 times the CPU time). The releases do not change: none of the mechanisms' results
    depends on how OpenBLAS splits its work, and of k-means HyObscure keeps the labels, which
    the order of the threads' partial sums (the centres' last bits) did not move on any split of
    the default profile; one thread also makes them independent of the machine's number of
    cores. The evaluation keeps the machine's threads: record linkage picks the nearest record by
    distances whose last bits depend on how OpenBLAS splits the product, and its attackers limit
    their own threads. The limit is set per release, to reach the thread pools of libraries
    loaded since the run began.
    """
    from threadpoolctl import threadpool_limits

    entry = REGISTRY[name]
    train = parts.train
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        result = entry.release(data, train, level, rng)
        seconds = time.perf_counter() - start
    released, native, fitted = _unpack_release(name, result)
    _check_release(name, train, released, entry.keeps_records)
    metrics = evaluate_release(
        data,
        parts,
        released,
        keeps_records=entry.keeps_records,
        queries=queries,
        seed=seed,
        aware=entry.aware,
        protects=entry.protects,
        level=level,
        fitted=fitted,
        **options,
    )
    metrics.update({f"native_{k}": v for k, v in native.items()})
    metrics["seconds"] = seconds
    return release_rows(f"benchmark_{data.name}", name, metrics, level=level, seed=seed)


def metric_facets(name: str) -> tuple[str, dict[str, str]]:
    """The metric and the facets that a flat name of :func:`evaluate_release` spells.

    ``<attribute>:<metric>`` is the metric with the facet ``attribute`` (the private attribute
    attacked), ``changed:<column>`` the metric ``changed`` of that column (facet ``attribute``),
    and anonymeter's ``anonymeter_<evaluator>_<statistic>`` the metric ``anonymeter_<evaluator>``
    with the facet ``statistic`` (``ci_low`` and ``ci_high`` being the bounds of its ``risk``).

    Examples
    --------
    >>> metric_facets("sex:xgb_I_auc")
    ('xgb_I_auc', {'attribute': 'sex'})
    >>> metric_facets("changed:age")
    ('changed', {'attribute': 'age'})
    >>> metric_facets("sex:anonymeter_inference_risk")
    ('anonymeter_inference', {'attribute': 'sex', 'statistic': 'risk'})
    >>> metric_facets("anonymeter_singling_out_ci_low")
    ('anonymeter_singling_out', {'statistic': 'ci_low'})
    >>> metric_facets("task_auc")
    ('task_auc', {})
    """
    facets = {}
    if ":" in name:
        attribute, name = name.split(":", 1)
        if attribute == "changed":
            return "changed", {"attribute": name}
        facets["attribute"] = attribute
    match = _ANONYMETER_NAME.fullmatch(name)
    if match:
        return match["metric"], {**facets, "statistic": match["statistic"]}
    return name, facets


def release_rows(
    experiment: str, method: str, metrics: Mapping[str, float], *, level, seed: int
) -> list[dict]:
    """The tidy rows of one release's flat metrics: each name split into its metric and facets
    (:func:`metric_facets`), anonymeter's ``ci_low`` and ``ci_high`` folded into the interval of
    the row of its ``risk``.

    Examples
    --------
    >>> rows = release_rows(
    ...     "benchmark_adult",
    ...     "krr",
    ...     {"sex:risk": 0.1, "anonymeter_linkability_risk": 0.02,
    ...      "anonymeter_linkability_ci_low": 0.0, "anonymeter_linkability_ci_high": 0.05},
    ...     level=1.0,
    ...     seed=0,
    ... )
    >>> [(r["metric"], r.get("attribute"), r.get("statistic"), r["ci_high"]) for r in rows]
    [('risk', 'sex', None, nan), ('anonymeter_linkability', None, 'risk', 0.05)]
    """
    grouped: dict[tuple, dict[str, float]] = {}
    bounds: dict[tuple, dict[str, float]] = {}
    for name, value in metrics.items():
        metric, facets = metric_facets(name)
        bound = facets.get("statistic")
        if bound in ("ci_low", "ci_high"):
            of = (*sorted({**facets, "statistic": "risk"}.items()), ("metric", metric))
            bounds.setdefault(of, {})[bound] = value
        else:
            grouped.setdefault(tuple(sorted(facets.items())), {})[metric] = value
    rows = []
    for facets, values in grouped.items():
        intervals = {}
        for metric in values:
            found = bounds.pop((*facets, ("metric", metric)), None)
            if found is not None:
                intervals[metric] = (
                    found.get("ci_low", np.nan),
                    found.get("ci_high", np.nan),
                )
        rows += tidy_rows(
            experiment,
            method,
            values,
            parameters={"level": level},
            seed=seed,
            intervals=intervals,
            facets=dict(facets),
        )
    if bounds:
        raise ValueError(f"interval bounds without their risk: {sorted(bounds)}")
    return rows


def _pick_levels(levels: Sequence, max_levels: int | None) -> list:
    levels = list(levels)
    if max_levels is None or len(levels) <= max_levels:
        return levels
    if max_levels == 1:
        return [levels[-1]]
    idx = np.unique(np.round(np.linspace(0, len(levels) - 1, max_levels)).astype(int))
    return [levels[i] for i in idx]


def _unpack_release(name: str, result) -> tuple[pd.DataFrame, dict, Any]:
    """An Entry's ``release`` result as ``(released, native, fitted)``, or a TypeError naming the
    Entry. ``fitted`` (the fitted mechanism, for a mechanism-aware attacker) is None when the
    Entry returns two values."""
    ok = isinstance(result, tuple) and len(result) in (2, 3) and isinstance(result[1], Mapping)
    if not ok:
        got = type(result).__name__
        if isinstance(result, tuple):
            got = f"a tuple of {len(result)}"
        raise TypeError(
            f"Entry {name!r}: release must return (released DataFrame, dict of native losses) or "
            f"(released, native, fitted mechanism); got {got}"
        )
    fitted = result[2] if len(result) == 3 else None
    return result[0], dict(result[1]), fitted


def _check_release(name: str, train: pd.DataFrame, released: pd.DataFrame, keeps: bool) -> None:
    """What every release must satisfy before it is scored.

    A record-keeping release (``keeps_records``) pairs released row ``i`` with the input's row
    ``i``: Scenario II and record linkage score it that way. So it must keep the input's index,
    row for row; a release whose rows are shuffled would otherwise publish the real records
    unprotected and score as near-perfect privacy."""
    if not isinstance(released, pd.DataFrame):
        raise TypeError(
            f"Entry {name!r}: release must return a DataFrame, got {type(released).__name__}"
        )
    if list(released.columns) != list(train.columns):
        raise ValueError(
            f"Entry {name!r}: released columns {list(released.columns)} differ from the input's "
            f"{list(train.columns)}"
        )
    if not keeps:
        return
    if len(released) != len(train):
        raise ValueError(
            f"Entry {name!r}: keeps records but released {len(released)} of {len(train)} rows"
        )
    if not released.index.equals(train.index):
        moved = int((released.index != train.index).sum())
        raise ValueError(
            f"Entry {name!r}: keeps records, so the release must keep the input's index row for "
            f"row; {moved} of {len(train)} rows carry another row's label"
        )


# ------------------------------------------------------------------------------------------------
# Planes, Pareto frontiers, leaderboard


def _risk_metric(risk: str) -> tuple[str, str | None]:
    """The metric and statistic of a privacy axis (:data:`RISK_AXES` or a mechanism-aware
    attacker), measured of a private attribute (its facet ``attribute``)."""
    if risk == "risk":
        return "risk", None
    if risk == "anonymeter_inference":
        return "anonymeter_inference", "risk"
    if risk in RISK_AXES or risk in AWARE_ATTACKERS:
        return f"{risk}_advantage", None
    allowed = sorted({*RISK_AXES, *AWARE_ATTACKERS})
    raise ValueError(f"risk must be one of {allowed}, got {risk!r}")


def _risk_rows(frame: pd.DataFrame, private: str, risk: str) -> pd.Series:
    """Which rows of ``frame`` measure the privacy axis ``risk`` on ``private`` (a boolean mask)."""
    metric, statistic = _risk_metric(risk)
    mask = (frame["metric"] == metric) & (facet(frame, "attribute") == private)
    if statistic is not None:
        mask &= facet(frame, "statistic") == statistic
    return mask


def binding_attackers(results: pd.DataFrame, dataset: str, private: str) -> pd.Series:
    """The attacker with the largest mean advantage (over seeds) at each (method, level): the one
    that sets the release's risk (``"baseline"`` when none beats the no-release baseline).
    Indexed by (method, level)."""
    frame = results[results["experiment"] == f"benchmark_{dataset}"]
    suffix = "_advantage"
    sub = frame[(facet(frame, "attribute") == private) & frame["metric"].str.endswith(suffix)]
    if sub.empty:
        return pd.Series(dtype=object)
    sub = with_parameters(sub, ["level"])
    means = sub.groupby(["method", "level", "metric"])["value"].mean().reset_index()
    best = means.loc[means.groupby(["method", "level"])["value"].idxmax()]
    names = best["metric"].str.removesuffix(suffix)
    # no attacker beats the baseline: the risk is 0, set by ignoring the release
    names = names.where(best["value"] > 0, "baseline")
    return pd.Series(names.to_numpy(), index=pd.MultiIndex.from_frame(best[["method", "level"]]))


def plane_points(
    results: pd.DataFrame,
    dataset: str,
    *,
    private: str | None = None,
    risk: str = "risk",
    utility: str = "task_auc",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One point per (mechanism, level): mean risk and utility over seeds, with 95% half-widths
    (Student t over the seeds, each with its own subsample, split, release and attackers).

    ``private`` defaults to the dataset's protected attribute; ``risk`` is a key of
    :data:`RISK_AXES` (``"risk"``: the worst attacker's advantage) or of a mechanism-aware
    attacker.
    """
    if utility not in UTILITY_AXES:
        raise ValueError(f"utility must be one of {sorted(UTILITY_AXES)}, got {utility!r}")
    roles = load_roles()[dataset]
    private = private or roles["private"][0]
    _risk_metric(risk)  # an unknown axis is an error even without rows
    frame = results[results["experiment"] == f"benchmark_{dataset}"]
    frame = with_parameters(frame, ["level"])
    # each row's axis: the risk (its metric of the attribute ``private``) or the utility
    is_risk, is_utility = _risk_rows(frame, private, risk), frame["metric"] == utility
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
    return -1 if utility.startswith(("query_error", "marginal_tv")) else 1


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


def leaderboard(
    results: pd.DataFrame,
    dataset: str,
    *,
    thresholds: Sequence[float] = RISK_THRESHOLDS,
    private: str | None = None,
    risk: str = "risk",
    utility: str = "task_auc",
) -> pd.DataFrame:
    """For each mechanism, its best utility among the levels whose risk interval lies under each
    threshold.

    A level qualifies when the upper end of its 95% risk interval over seeds (mean plus
    half-width; the mean alone with one seed) is at most the threshold. A cell gives the utility
    with its half-width, the level, that upper end and the attacker that bound it (the largest
    mean advantage); empty where no level qualifies."""
    points = plane_points(results, dataset, private=private, risk=risk, utility=utility)
    private = private or load_roles()[dataset]["private"][0]
    binding = binding_attackers(results, dataset, private) if risk == "risk" else None
    sign = _better_utility(utility)
    rows = []
    for method, grp in points.groupby("method", sort=True):
        row: dict[str, Any] = {"mechanism": method}
        upper = grp["risk"] + grp["risk_hw"].fillna(0.0)
        for t in thresholds:
            ok = grp[upper <= t]
            if ok.empty:
                row[f"risk<={t:g}"] = ""
                continue
            best = ok.loc[(sign * ok["utility"]).idxmax()]
            # one seed gives no interval
            spread = "" if np.isnan(best["utility_hw"]) else f" ± {best['utility_hw']:.3f}"
            bound = best["risk"] + (0.0 if np.isnan(best["risk_hw"]) else best["risk_hw"])
            who = ""
            if binding is not None and (method, best["level"]) in binding.index:
                who = f", {binding.loc[(method, best['level'])]}"
            row[f"risk<={t:g}"] = (
                f"{best['utility']:.3f}{spread} (level {best['level']:g}; risk <= {bound:.3f}{who})"
            )
        rows.append(row)
    return pd.DataFrame(rows)


def time_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean seconds of fit and release per mechanism and dataset (over levels and seeds)."""
    sub = results[
        results["experiment"].str.startswith("benchmark_") & (results["metric"] == "seconds")
    ]
    out = sub.groupby(["experiment", "method"])["value"].agg(["mean", "max", "count"]).reset_index()
    out["dataset"] = out["experiment"].str.removeprefix("benchmark_")
    return out[["dataset", "method", "mean", "max", "count"]].rename(
        columns={"mean": "mean_seconds", "max": "max_seconds", "count": "releases"}
    )


#: The columns of :func:`metric_table`, in order: each a metric, with ``{p}:`` before it for each
#: private attribute it is measured of (its facet ``attribute``) and ``_risk`` after anonymeter's
#: (its facet ``statistic``).
MAIN_METRICS = (
    "{p}:risk",
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
    ``risk`` of the metric ``anonymeter_linkability``."""
    frame = results[results["experiment"].str.startswith("benchmark_")]
    frame = with_parameters(frame, ["level"])
    attribute, statistic = facet(frame, "attribute"), facet(frame, "statistic")
    privates = set(attribute[frame["metric"] != "changed"].dropna())
    order = []
    for name in MAIN_METRICS:
        order += [name.format(p=p) for p in sorted(privates)] if "{p}" in name else [name]
    order += sorted(m for m in frame["metric"].unique() if m.startswith("native_"))
    label = frame["metric"].where(statistic.isna(), frame["metric"] + "_" + statistic.astype(str))
    frame = frame.assign(metric=label.where(attribute.isna(), attribute.astype(str) + ":" + label))
    wide = frame.pivot_table(
        index=["experiment", "method", "level"], columns="metric", values="value", aggfunc="mean"
    )
    wide = wide[[m for m in order if m in wide.columns]].round(digits)
    wide.index = wide.index.set_levels(
        wide.index.levels[0].str.removeprefix("benchmark_"), level=0
    ).set_names("dataset", level=0)
    return wide


def summary_table(results: pd.DataFrame, dataset: str, *, digits: int = 2) -> pd.DataFrame:
    """Strongest and weakest level of each mechanism: the risk (the worst attacker's advantage)
    on the attribute the mechanism protects, the attacker that sets it, and the task AUC; means
    over seeds, rounded."""
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
                    "task_auc": round(float(row["utility"]), digits),
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


# ------------------------------------------------------------------------------------------------
# Figures


_REFERENCE_STYLE = {
    "none": ("*", 12, "unprotected"),
    "suppressed": ("s", 7, "private columns suppressed"),
    "nothing": ("X", 8, "nothing released"),
}


def plot_planes(
    results: pd.DataFrame,
    dataset: str,
    *,
    private: str | None = None,
    risks: Sequence[str] = ("risk", "xgb_I", "class_matching", "anonymeter_inference"),
    utility: str = "task_auc",
):
    """One panel per privacy axis of ``private`` (default: the dataset's protected attribute; the
    first panel the worst attacker's advantage): the curve over its levels (95% bars over seeds)
    of each mechanism that protects ``private`` (MovieLens' HyObscure family protects age, the
    others gender), the reference releases as black markers (unprotected: star, private columns
    suppressed: square, nothing released: cross) and the Pareto frontier of the points drawn as a
    grey step line. Every mechanism of a figure has its own colour."""
    import matplotlib.pyplot as plt

    protected = load_roles()[dataset]["private"][0]
    private = private or protected

    def protects(method: str) -> str:
        entry = REGISTRY.get(method)
        return (entry.protects if entry is not None else None) or protected

    drawn = results["method"].isin(REFERENCES) | results["method"].map(
        lambda m: protects(m) == private
    )
    results = results[drawn]

    planes = {
        r: plane_points(results, dataset, private=private, risk=r, utility=utility) for r in risks
    }
    risks = [r for r in risks if not planes[r].empty]
    n_panels = max(len(risks), 1)
    legend_width = 2.4  # inches right of the panels, for the legend
    fig, axes = plt.subplots(
        1, n_panels, figsize=(3.3 * n_panels + legend_width, 3.4), squeeze=False
    )
    # one style per mechanism drawn, stable across panels: a colour of its own (tab20's dark
    # shades first, then the light ones) and a marker cycling through eight
    present = sorted(set(results.loc[results["experiment"] == f"benchmark_{dataset}", "method"]))
    present = [m for m in present if m not in REFERENCES]
    palette = plt.get_cmap("tab20").colors
    shades = [palette[i] for i in range(0, 20, 2)] + [palette[i] for i in range(1, 20, 2)]
    markers = "osD^vP*X"
    styles = {
        m: {
            "color": shades[i % len(shades)],
            "marker": markers[i % len(markers)],
            "linestyle": "-" if i < len(shades) else "--",
        }
        for i, m in enumerate(present)
    }
    for ax, risk in zip(axes[0], risks, strict=False):
        pts = planes[risk]
        front = pareto_front(pts, utility)
        ax.step(
            front["risk"],
            front["utility"],
            where="post",
            color="0.75",
            lw=4,
            zorder=0,
            label="Pareto frontier",
        )
        for method, grp in pts.groupby("method", sort=True):
            grp = grp.sort_values("risk")
            if method in REFERENCES:
                marker, size, label = _REFERENCE_STYLE[method]
                ax.plot(grp["risk"], grp["utility"], marker, ms=size, color="black", label=label)
                continue
            ax.errorbar(
                grp["risk"],
                grp["utility"],
                xerr=grp["risk_hw"],
                yerr=grp["utility_hw"],
                ms=3.5,
                lw=1.1,
                capsize=2,
                label=method,
                **styles[method],
            )
        ax.set_xlabel(RISK_LABELS[risk])
    axes[0][0].set_ylabel(UTILITY_LABELS[utility])
    # every panel holds the same mechanisms; take the legend from the fullest one
    handles, labels = max(
        (ax.get_legend_handles_labels() for ax in axes[0]), key=lambda hl: len(hl[1])
    )
    fig.legend(handles, labels, loc="center right", fontsize=9, frameon=False)
    fig.suptitle(f"{dataset}: attacks on {private!r} against utility")
    fig.tight_layout(rect=(0, 0, (3.3 * n_panels) / (3.3 * n_panels + legend_width), 1))
    return fig


# ------------------------------------------------------------------------------------------------
# Notebook parameters

#: The parameters of notebooks/benchmark.ipynb.
PARAMETERS: dict[str, Param] = {
    **COMMON_PARAMETERS,
    "datasets": Param("list", item=Param("str", choices=DATASETS)),
    "adult_rows": Param("int", low=100, none=True),
    "movielens_rows": Param("int", low=100, none=True),
    "seeds": Param("list", item=Param("int", low=0)),
    "mechanisms": Param("list", item=Param("str"), none=True),
    "max_levels": Param("int", low=1, none=True),
    "n_queries": Param("int", low=1),
    "n_estimators": Param("int", low=1),
    "anonymeter": Param("bool"),
    "n_attacks": Param("int", low=10),
    "imposter_epochs": Param("int", low=1),
    "risk_thresholds": Param("list", item=Param("float", low=0.0, high=0.5)),
}


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's parameters checked against :data:`PARAMETERS`, in canonical form."""
    return _check_parameters(values, PARAMETERS)
