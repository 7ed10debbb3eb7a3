"""The cross-paper benchmark's runs: every release scored by one attacker and one utility suite.

Protocol per dataset and seed: each seed draws its own stratified subsample (``n_rows``) and
splits it 40/40/20 into ``train`` (what a mechanism protects and releases), ``aux`` (the
attacker's auxiliary real records) and ``control`` (people in neither), all disjoint. Each
mechanism is fitted on ``train`` at each of its levels and releases one table.

Threat models (:mod:`ppdp.experiments.benchmark.attacks`; also ``threat_models`` in the roles
file): targeted attribute inference on released people, scored on targets in the release and on
controls outside it, as an advantage in AUC, and in the tail, over a no-release baseline trained
on ``aux``; the risk of a release on each measure is the worst attacker's over the suite,
mechanism-aware attackers included. Membership attacks (:func:`membership_metrics`) score every
release; anonymeter's risks and record linkage are separate axes. The primary utility is what the
population keeps of each private attribute (the Scenario I XGBoost's AUC on the controls); the
secondary ones see everything released: the task uses the private columns as features, the count
workload constrains every column, and the 1- and 2-way marginals of all columns are compared by
total variation. The leaderboard is :mod:`ppdp.experiments.benchmark.leaderboard`.

:func:`run_benchmark` returns the tidy rows of every release; :data:`PARAMETERS` are the notebook's
parameters.
"""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp.experiments.benchmark.attacks import attack_context, targeted_risks
from ppdp.experiments.benchmark.data import DATASETS, BenchmarkData, Split, load_dataset, split
from ppdp.experiments.benchmark.registry import REGISTRY, Entry
from ppdp.experiments.common import COMMON_PARAMETERS, Param, map_in_workers, tidy_frame, tidy_rows
from ppdp.experiments.common import check_parameters as _check_parameters

__all__ = [
    "benchmark_workload",
    "evaluate_release",
    "metric_facets",
    "release_rows",
    "run_benchmark",
    "run_split",
]

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
    private_unchanged: bool = False,
    contexts: Mapping[str, Any] | None = None,
    aware: str | None = None,
    protects: str | None = None,
    level=None,
    fitted=None,
    n_estimators: int = 100,
    anonymeter: bool = True,
    n_attacks: int = 300,
    query_truth=None,
    shadow_release=None,
    membership_shadows: int = 2,
) -> dict[str, float]:
    """Every privacy and utility metric of one release (flat ``name -> value``).

    A name spells the facets of its metric: ``<attribute>:`` before a targeted attacker's
    metric (``sex:risk``) and a changed column (``changed:age``), the statistic after anonymeter's
    (``anonymeter_linkability_risk``, ``..._ci_low``); :func:`release_rows` splits them into the
    tidy rows' metric and facets.

    ``contexts`` holds each private attribute's
    :class:`~ppdp.experiments.benchmark.attacks.AttackContext` of this split (its targets, controls
    and no-release baseline; built here when not given).
    ``aware``, ``level`` and ``fitted`` feed the mechanism-aware attacker; ``private_unchanged``
    (``Entry.private_unchanged``) leaves the attackers told the target's row out of the risk.
    ``query_truth``, the answers of ``queries`` on ``parts.train`` when already computed (see
    :func:`ppdp.utility.workload.workload_error`), saves recomputing them for every release.
    ``shadow_release(frame, random_state) -> released`` runs the mechanism for the shadow-model
    membership attack (:func:`membership_metrics`), with ``membership_shadows`` shadow releases;
    without it, or with 0 shadows, only the distance attack runs.
    """
    from ppdp.attacks.suite import anonymeter_risks, record_linkage
    from ppdp.compendium.measured import measured_anonymity
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
                private_unchanged=private_unchanged,
                aware=aware,
                protects=protects,
                level=level,
                fitted=fitted,
                population=train if keeps_records else None,
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
                random_state=seed,
                evaluators=("inference", "linkability", "singling_out")
                if protected
                else ("inference",),
            )
            for row in risks.itertuples(index=False):
                prefix = f"{private}:" if row.evaluator == "inference" else ""
                metrics[f"{prefix}anonymeter_{row.evaluator}_{row.metric}"] = float(row.value)
    metrics.update(
        membership_metrics(
            data,
            parts,
            released,
            contexts[data.protected],
            shadow_release=shadow_release if membership_shadows > 0 else None,
            n_shadows=membership_shadows,
            seed=seed,
        )
    )
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
        random_state=seed,
        n_estimators=n_estimators,
    )
    metrics["task_auc"] = float(task["auc"])
    metrics["task_accuracy"] = float(task["accuracy"])
    errors = workload_error(train, released, data.domains, queries, truth=query_truth)
    metrics["query_error"] = float(np.median(errors))
    metrics["query_error_mean"] = float(np.mean(errors))
    for private in data.private:
        # the workload's queries that condition on the private attribute: what an analyst of
        # the attribute itself asks (a permuted column keeps its marginal, not its conjunctions)
        on_private = np.array([private in q.columns for q in queries])
        if on_private.any():
            metrics[f"{private}:private_query_error"] = float(np.median(errors[on_private]))
    for order in (1, 2):
        metrics[f"marginal_tv_{order}"] = mean_marginal_tv(
            train, released, data.domains, data.columns, order=order
        )
    return metrics


def membership_metrics(
    data: BenchmarkData,
    parts: Split,
    released: pd.DataFrame,
    ctx,
    *,
    shadow_release=None,
    n_shadows: int = 2,
    seed: int,
) -> dict[str, float]:
    """The membership attacks on one release: targets (members) against controls.

    The attacker knows a person's whole record and wants to know whether it was in the
    mechanism's input (:mod:`ppdp.attacks.membership`): ``dcr`` says "member" the nearer the
    closest released row is; ``shadow`` learns the same from the mechanism run on halves of the
    auxiliary records (``shadow_release``; skipped without it). Per attack: ``auc``,
    ``advantage`` (AUC - 0.5) and the excess of the TPR at 1% and 0.1% FPR over those rates
    (what guessing attains); and the worst of each over the attacks (``membership_risk``,
    ``membership_risk_tpr_1pct``, ``membership_risk_tpr_01pct``). Flat names ``membership_...``.
    """
    from threadpoolctl import threadpool_limits

    from ppdp.attacks.membership import dcr_membership, shadow_membership

    people = {"targets": ctx.targets, "controls": ctx.controls}
    scores = {
        "dcr": dcr_membership(
            **people, released=released, domains=data.domains, columns=data.columns
        )
    }
    if shadow_release is not None:

        def release(frame, random_state):
            # one thread, as the benchmark's own releases run (see _run_one)
            with threadpool_limits(limits=1):
                return shadow_release(frame, random_state)

        scores["shadow"] = shadow_membership(
            release,
            parts.aux,
            **people,
            released=released,
            domains=data.domains,
            columns=data.columns,
            n_shadows=n_shadows,
            random_state=np.random.default_rng([seed, 17]),
        )
    out: dict[str, float] = {}
    for name, got in scores.items():
        out[f"membership_{name}_auc"] = got["auc"]
        out[f"membership_{name}_advantage"] = got["advantage"]
        out[f"membership_{name}_tpr_1pct_excess"] = got["tpr_at_1pct_fpr"] - 0.01
        out[f"membership_{name}_tpr_01pct_excess"] = got["tpr_at_01pct_fpr"] - 0.001
    for measure, suffix in (
        ("", "advantage"),
        ("_tpr_1pct", "tpr_1pct_excess"),
        ("_tpr_01pct", "tpr_01pct_excess"),
    ):
        out[f"membership_risk{measure}"] = max(out[f"membership_{n}_{suffix}"] for n in scores)
    return out


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
    membership_shadows: int = 2,
    n_targets: int | None = 2000,
    sample_seed: int = 0,
    n_jobs: int = 1,
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
    membership_shadows : int
        Shadow releases of the shadow-model membership attack (each a release of half the
        auxiliary records by the mechanism at the same level), run on the releases that keep no
        records; 0 runs the distance attack only.
    n_targets : int, optional
        At most this many targets and as many controls per split
        (:func:`~ppdp.experiments.benchmark.attacks.attack_context`); None scores every control
        and as many released people. Most attacks cost in proportion to targets times released
        rows, and 2,000 binary targets still leave 2,000 negative claims for the TPR at 0.1% FPR.
    sample_seed : int
        Added to each seed to seed its subsample.
    n_jobs : int
        Splits (one dataset and seed each) evaluated at once in worker processes, each with one
        BLAS and OpenMP thread; the rows are the same as with ``n_jobs=1`` apart from the
        ``seconds`` of each release.
    progress : bool
        A progress bar, one step per split.

    Returns
    -------
    DataFrame
        Tidy rows: ``experiment = "benchmark_<dataset>"``, ``method`` the mechanism, the
        parameter ``level`` (the knob's value), the seed, and one row per metric (``seconds`` is
        the time of fit and release, ``evaluation_seconds`` that of its evaluation) and facets (:func:`release_rows`): a targeted attacker's
        metrics (``risk``, ``xgb_I_advantage``, ...) and anonymeter's inference have the facet
        ``attribute`` (the private attribute attacked), ``changed`` the column it measures;
        anonymeter's ``anonymeter_<evaluator>`` has the facet ``statistic`` (``attack_rate``,
        ``baseline_rate``, ``control_rate``, ``risk``, the latter with its 95% interval).
    """
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
        "membership_shadows": membership_shadows,
    }
    runs = {}
    for d in datasets:
        runs[d] = []
        for name in names:
            levels = REGISTRY[name].levels.get(d)
            if levels:
                # the entries themselves, not their names: a worker process imports a registry
                # of its own, without the entries registered or configured in this one
                runs[d] += [(REGISTRY[name], lv) for lv in _pick_levels(levels, max_levels)]
    splits = [(d, n_rows.get(d), seed) for d in datasets for seed in seeds]
    per_split = map_in_workers(
        lambda job: run_split(
            *job,
            runs[job[0]],
            n_queries=n_queries,
            n_targets=n_targets,
            sample_seed=sample_seed,
            **evaluation_options,
        ),
        splits,
        n_jobs=n_jobs,
        desc="benchmark",
        progress=progress,
        unit="split",
        # each release already runs on one thread (see _run_one) and none of the benchmark's
        # values depends on the thread count
        one_thread=True,
    )
    return tidy_frame([row for rows in per_split for row in rows])


def run_split(
    dataset: str,
    n_rows: int | None,
    seed: int,
    runs: Sequence[tuple[Entry, Any]],
    *,
    n_queries: int,
    n_targets: int | None,
    sample_seed: int = 0,
    experiment: str | None = None,
    size_facet: bool = False,
    **evaluation_options,
) -> list[dict]:
    """The tidy rows of every (registry entry, level) of ``runs`` on one split of ``dataset``.

    The split draws its subsample of ``n_rows`` (seeded by ``sample_seed + seed``), its
    workload, targets, controls and no-release baselines once; every release is scored against
    them (:func:`evaluate_release`, with ``evaluation_options``). ``experiment`` renames the
    rows' experiment (default ``benchmark_<dataset>``); ``size_facet`` adds the facet
    ``released_rows``, the number of people released.
    """
    from ppdp.utility.workload import expected_counts

    data = load_dataset(dataset, n_rows, sample_seed + seed)
    parts = split(data, seed)
    queries = benchmark_workload(data, parts.train, seed, n_queries)
    # the workload's answers on train, the targets, controls and the no-release baseline: the
    # same for every release of this split
    truth = expected_counts(parts.train, data.domains, queries)
    n_estimators = evaluation_options["n_estimators"]
    contexts = {
        p: attack_context(data, parts, p, seed=seed, n_estimators=n_estimators, n_targets=n_targets)
        for p in data.private
    }
    options = {**evaluation_options, "query_truth": truth, "contexts": contexts}
    rows = []
    for entry, level in runs:
        rows += _run_one(data, parts, entry, level, seed, queries, options)
    for row in rows:
        if experiment is not None:
            row["experiment"] = experiment
        if size_facet:
            row["released_rows"] = len(parts.train)
    return rows


def _run_one(data, parts, entry, level, seed, queries, options) -> list[dict]:
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

    name = entry.name
    train = parts.train
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        result = entry.release(data, train, level, random_state=rng)
        seconds = time.perf_counter() - start
    released, native, fitted = _unpack_release(name, result)
    _check_release(name, train, released, entry.keeps_records)

    def shadow_release(frame, random_state):
        # the attacker runs the mechanism at the same level on records he holds
        try:
            shadow = entry.release(
                data, frame, level, random_state=np.random.default_rng(random_state)
            )
        except ValueError as err:
            raise ValueError(
                f"{name} at level {level:g}: the shadow membership attack's release of "
                f"{len(frame)} auxiliary records (half of aux) failed ({err}); use more rows or "
                "membership_shadows=0"
            ) from err
        return _unpack_release(name, shadow)[0]

    start = time.perf_counter()
    metrics = evaluate_release(
        data,
        parts,
        released,
        keeps_records=entry.keeps_records,
        queries=queries,
        seed=seed,
        private_unchanged=entry.private_unchanged,
        aware=entry.aware,
        protects=entry.protects,
        level=level,
        fitted=fitted,
        # the shadow attack gates only releases that keep no records (a release that keeps
        # records publishes one row per member by construction); it costs two more releases and
        # a learnt attack, so it runs where it can decide something
        shadow_release=None if entry.keeps_records else shadow_release,
        **options,
    )
    metrics.update({f"native_{k}": v for k, v in native.items()})
    metrics["seconds"] = seconds
    # what the attacks and measures of this release cost (its shadow releases included): where
    # the benchmark's time goes as releases grow
    metrics["evaluation_seconds"] = time.perf_counter() - start
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
    "membership_shadows": Param("int", low=0),
    "n_targets": Param("int", low=10, none=True),
    "n_jobs": Param("int", low=1),
    "imposter_epochs": Param("int", low=1),
    "risk_thresholds": Param("list", item=Param("float", low=0.0, high=0.5)),
    # the release-size sweep on Adult (ppdp.experiments.benchmark.sizes); None in
    # size_sweep_rows releases every row, and size_sweep_runs None skips the sweep
    "size_sweep_rows": Param("list", item=Param("int", low=10, none=True)),
    "size_sweep_runs": Param(
        "list",
        item=Param(
            "list", length=2, item=Param("any", alternatives=(Param("str"), Param("float")))
        ),
        none=True,
    ),
    "size_sweep_seeds": Param("list", item=Param("int", low=0)),
}


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's parameters checked against :data:`PARAMETERS`, in canonical form."""
    return _check_parameters(values, PARAMETERS)
