"""The benchmark's risk against the release size: the same mechanism and level, more people.

A targeted attacker's risk depends on how many people a release holds: in a small release more
targets have quasi-identifiers no one else shares, which class matching reads straight off
(k-RR's risk at a fixed epsilon falls as the release grows). :func:`release_size_sweep` releases
one dataset at several sizes, from a few thousand people to every row, with a few fixed
(mechanism, level) pairs, and scores each release as the benchmark does
(``ppdp.experiments.benchmark.run.evaluate_release``); the notebook draws the risk against
the size (``ppdp.experiments.benchmark.figures.plot_release_size``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from ppdp.experiments.benchmark.data import DATASETS
from ppdp.experiments.benchmark.registry import REGISTRY, _check_level
from ppdp.experiments.common import tidy_frame

__all__ = ["TRAIN_SHARE", "release_size_sweep", "rows_for_release"]

#: The share of a subsample that ``ppdp.experiments.benchmark.data.split`` releases.
TRAIN_SHARE = 0.4


def rows_for_release(released: int | None) -> int | None:
    """The subsample whose split releases ``released`` people (None: every row).

    Parameters
    ----------
    released : int >= 10 or None

    Returns
    -------
    int or None
        ``ceil(released / TRAIN_SHARE)`` rows, None for every row.

    Raises
    ------
    ValueError
        For another value.

    Examples
    --------
    >>> rows_for_release(2000), rows_for_release(None)
    (5000, None)
    """
    if released is None:
        return None
    if not isinstance(released, int) or released < 10:
        raise ValueError(f"released must be an int >= 10 or None, got {released!r}")
    return math.ceil(released / TRAIN_SHARE)


def release_size_sweep(
    dataset: str = "adult",
    *,
    released_rows: Sequence[int | None] = (2000, 5000, 10000, None),
    runs: Sequence[tuple[str, float]] = (("krr", 2.0), ("mondrian", 10)),
    seeds: Sequence[int] = (0,),
    n_queries: int = 200,
    n_estimators: int = 100,
    n_targets: int | None = 2000,
    sample_seed: int = 0,
    n_jobs: int = 1,
    progress: bool = False,
) -> pd.DataFrame:
    """Release ``dataset`` at each size with each (mechanism, level) of ``runs``; tidy rows.

    Every size and seed draws its own stratified subsample (seeded by ``sample_seed + seed``)
    and split; the evaluation is the benchmark's without anonymeter and without the shadow
    membership attack (their cost grows with the size and they are not what the sweep shows).

    Parameters
    ----------
    dataset : {"adult", "movielens"}
    released_rows : sequence of int or None
        The numbers of released people; None releases the split of every row.
    runs : sequence of (str, float)
        Registered mechanisms and the level each runs at.
    seeds : sequence of int
    n_queries, n_estimators, n_targets, sample_seed, n_jobs, progress
        As in ``ppdp.experiments.benchmark.run.run_benchmark`` (``n_targets`` keeps the
        attackers' cost flat as the release grows; ``n_jobs`` splits run at once).

    Returns
    -------
    DataFrame
        The benchmark's tidy rows, experiment ``release_size_<dataset>``, with the parameter
        ``released_rows`` (the release's size) beside ``level``.

    Raises
    ------
    ValueError
        For an unknown dataset, a mechanism that is not registered or does not apply to it, a
        level its knob cannot take, or a size below 10.

    Examples
    --------
    k-RR at epsilon 2 releasing 60 and 120 people of Adult:

    >>> rows = release_size_sweep("adult", released_rows=[60, 120], runs=[("krr", 2.0)],
    ...                           n_queries=5, n_estimators=5)
    >>> risk = rows[(rows["metric"] == "risk") & (rows["attribute"] == "sex")]
    >>> risk["released_rows"].tolist(), bool(risk["value"].notna().all())
    ([60, 120], True)
    >>> release_size_sweep("adult", runs=[("mondrian", 0)])
    Traceback (most recent call last):
    ...
    ValueError: mondrian: levels['adult'] holds 0: The 'k' parameter of Entry 'mondrian' must be an int in the range [1, inf). Got 0 instead.
    """
    from ppdp.experiments.benchmark.run import run_split
    from ppdp.experiments.common import map_in_workers

    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {dataset!r}")
    for name, level in runs:
        if name not in REGISTRY:
            raise ValueError(f"runs: {name!r} is not registered; known: {sorted(REGISTRY)}")
        if dataset not in REGISTRY[name].levels:
            raise ValueError(f"runs: {name!r} does not apply to {dataset!r}")
        _check_level(REGISTRY[name], dataset, level)
    sizes = [rows_for_release(r) for r in released_rows]
    # the entries themselves travel to worker processes (see run_benchmark)
    runs = [(REGISTRY[name], level) for name, level in runs]

    def one(job):
        n_rows, seed = job
        return run_split(
            dataset,
            n_rows,
            seed,
            runs,
            n_queries=n_queries,
            n_targets=n_targets,
            sample_seed=sample_seed,
            experiment=f"release_size_{dataset}",
            size_facet=True,
            n_estimators=n_estimators,
            anonymeter=False,
            n_attacks=0,
            membership_shadows=0,
        )

    splits = [(n_rows, seed) for n_rows in sizes for seed in seeds]
    per_split = map_in_workers(
        one,
        splits,
        n_jobs=n_jobs,
        desc="release sizes",
        progress=progress,
        unit="split",
        one_thread=True,
    )
    return tidy_frame([row for rows in per_split for row in rows])
