"""Deciding profiles: verdicts that a profile's seed budget leaves open, decided by more seeds.

A profile's verdict on some claims decides nothing at its scale: the interval spans the threshold
(cause *budget*), or the kernel settings flip it (*unstable*). A *deciding profile* reruns only
the runs those claims read, with the decided profile's parameters except the few it names
(``differs_in``: the papers' seed counts, say), so that its verdicts answer the same question with
more evidence. Its config says so::

    profile: decisive
    decides:
      profile: default            # the profile whose verdicts it decides
      claims: [hyobscure.foursquare_fig5_margin, ...]
      differs_in: [n_seeds]
    runs:
      hyobscure_foursquare: {notebook: hyobscure, parameters: {...the default's, n_seeds: 50}}

Its report (``reports/deciding/<profile>/``) judges the claims of its runs and writes the
verdicts of the claims it decides to ``verdicts.csv`` (:func:`decided_verdicts`), with the
commit its runs ran at. The decided profile names it in ``decided_by``; its report then reads
that committed file (:func:`read_decided_verdicts`) and gives each decided claim the deciding
profile's verdict, with its own beside it (:func:`apply_decided`).

The checks here (:func:`deciding_problems`, :func:`decided_by_problems`) refuse a deciding
profile whose runs differ from the decided profile's in anything but ``differs_in``: its verdicts
would then answer another question.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ppdp.report.provenance import SCHEDULING_KEYS, _write_atomic
from ppdp.report.verdicts import AMBIGUOUS, UNSTABLE

__all__ = [
    "DECIDED_COLUMNS",
    "DECIDING_REPORTS",
    "OTHER_KERNELS_SUFFIX",
    "VERDICTS_FILE",
    "apply_decided",
    "decided_by_problems",
    "decided_verdicts",
    "deciding_problems",
    "describe_kernels",
    "kernel_comparison_problems",
    "profile_digest",
    "read_decided_verdicts",
    "seeds_to_decide",
    "verdicts_path",
    "write_decided_verdicts",
]

#: The folder, under the compendium, of the deciding profiles' committed reports.
DECIDING_REPORTS = Path("reports") / "deciding"
#: The file, in a deciding profile's report folder, of the verdicts it decides.
VERDICTS_FILE = "verdicts.csv"
#: The columns of that file, one row per decided claim.
DECIDED_COLUMNS = (
    "id",
    "run",
    "measured",
    "ci_low",
    "ci_high",
    "n",
    "verdict",
    "detail",
    "profile",
    "commit",
    "config_digest",
)
#: The suffix of the profile as which a deciding profile runs its ``decides.compare_kernels``
#: runs again under other CPU kernels (:func:`ppdp.kernels.other_kernels`): their results go to
#: ``results/<profile>-other-kernels/``.
OTHER_KERNELS_SUFFIX = "-other-kernels"
#: A run's keys that do not change what it computes (its scheduling, and which of its claims the
#: report and the tests let pass unmeasured or differ across kernels): a deciding profile sets
#: them as it needs.
#: Its threads too: its seeds' results are the same in any number of worker processes.
_NOT_COMPUTED = SCHEDULING_KEYS | {"threads"}
#: The verdicts a deciding profile gives: reproduced or not, ambiguous over unstated settings, or
#: unstable (its verdict differs under other kernels, ``compare_kernels``); a claim it leaves not
#: measured has decided nothing.
_JUDGED = ("reproduced", "not reproduced", AMBIGUOUS, UNSTABLE)
#: The columns a deciding verdict replaces; the report keeps the profile's own as ``own_<column>``.
_REPLACED = ("measured", "ci_low", "ci_high", "n", "verdict", "detail")
#: A parameter a profile does not set (``None`` is a value a profile may set).
_MISSING = object()


def profile_digest(config: Mapping[str, Any]) -> str:
    """A digest of what a deciding profile computes: its ``decides`` and each run's notebook and
    parameters (its scheduling keys aside). Its verdicts file records it, so that a decided
    profile's report refuses verdicts made from another version of the config."""
    what = {
        "decides": config["decides"],
        "runs": {
            run: {"notebook": spec.get("notebook"), "parameters": spec.get("parameters", {})}
            for run, spec in sorted(config["runs"].items())
        },
    }
    text = json.dumps(what, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def seeds_to_decide(
    check_value: float, measured: float, low: float, high: float, n: int
) -> int | None:
    """The number of seeds at which a claim's 95% interval, now ``[low, high]`` around
    ``measured`` from ``n`` seeds and spanning the threshold ``check_value``, would end on one side
    of it, extrapolated from the measured spread: the interval's arm towards the threshold (a
    bootstrap's interval need not be symmetric) shrinks as ``1/sqrt(n)``, so
    ``n * (arm / distance to the threshold)**2``, and at least ``n + 1``. ``None`` when the
    interval does not span the threshold (the claim is decided) or the mean sits on it (no number
    of seeds decides it).

    Examples
    --------
    >>> seeds_to_decide(0.0, 1.0, -1.0, 3.0, 10)  # arm 2 at distance 1
    40
    >>> seeds_to_decide(50.0, 74.7, 48.7, 95.4, 20)  # arm 26.0 at distance 24.7
    23
    """
    values = (check_value, measured, low, high)
    if not all(math.isfinite(v) for v in values) or not low < check_value < high or n < 2:
        return None
    distance = abs(measured - check_value)
    if distance == 0:
        return None
    arm = measured - low if check_value < measured else high - measured
    return max(math.ceil(n * (arm / distance) ** 2), n + 1)


def verdicts_path(root: str | os.PathLike, profile: str) -> Path:
    """``<root>/reports/deciding/<profile>/verdicts.csv``."""
    return Path(root) / DECIDING_REPORTS / profile / VERDICTS_FILE


def deciding_problems(
    config: Mapping[str, Any], decided: Mapping[str, Any], claim_runs: Mapping[str, str]
) -> list[str]:
    """What makes ``config`` an unsound deciding profile of ``decided`` (empty if nothing).

    Parameters
    ----------
    config
        The deciding profile's config (it has ``decides``).
    decided
        The config of the profile it names in ``decides.profile``.
    claim_runs
        Every claim's run (claims.yaml).

    Returns
    -------
    list of str
        One line per problem: a run the decided profile lacks or runs another notebook for; a
        parameter or setting that differs from the decided profile's and is not in
        ``differs_in``; a name in ``differs_in`` that no run changes; a decided claim that is
        unknown or belongs to a run the profile does not run, or a run to compare across kernels
        that it does not run; a decided profile that is itself deciding.
    """
    spec = config["decides"]
    name = config["profile"]
    where = f"config profile {name!r}"
    problems = []
    if decided.get("profile") != spec["profile"]:
        problems.append(
            f"{where}: decides.profile is {spec['profile']!r} but that config's profile is "
            f"{decided.get('profile')!r}"
        )
    if "decides" in decided:
        problems.append(
            f"{where}: it decides {spec['profile']!r}, itself a deciding profile; decide the "
            "profile that one decides"
        )
    free = set(spec["differs_in"])
    changed: set[str] = set()
    theirs_runs = decided.get("runs", {})
    for run, ours in config["runs"].items():
        if run not in theirs_runs:
            problems.append(f"{where}: run {run!r}: profile {spec['profile']!r} has no such run")
            continue
        theirs = theirs_runs[run]
        for key in sorted((set(ours) | set(theirs)) - _NOT_COMPUTED - {"parameters"}):
            if ours.get(key) != theirs.get(key):
                problems.append(
                    f"{where}: run {run!r}: {key} is {ours.get(key)!r}, but "
                    f"{theirs.get(key)!r} in profile {spec['profile']!r}"
                )
        mine, other = ours.get("parameters", {}), theirs.get("parameters", {})
        for key in sorted(set(mine) | set(other)):
            if mine.get(key, _MISSING) == other.get(key, _MISSING):
                continue
            if key in free:
                changed.add(key)
                continue
            problems.append(
                f"{where}: run {run!r}: parameter {key} is {mine.get(key, 'unset')!r}, but "
                f"{other.get(key, 'unset')!r} in profile {spec['profile']!r}, and differs_in "
                f"({', '.join(sorted(free))}) does not name it: its verdicts would answer another "
                "question"
            )
    for key in sorted(free - changed):
        problems.append(
            f"{where}: differs_in names {key!r}, but no run sets it to another value than "
            f"profile {spec['profile']!r}"
        )
    for run in spec.get("compare_kernels", []):
        if run not in config["runs"]:
            problems.append(
                f"{where}: decides.compare_kernels names run {run!r}, which this profile does "
                "not run"
            )
    for cid in spec["claims"]:
        run = claim_runs.get(cid)
        if run is None:
            problems.append(f"{where}: decides.claims: no claim {cid!r} in claims.yaml")
        elif run not in config["runs"]:
            problems.append(
                f"{where}: decides.claims: claim {cid!r} belongs to run {run!r}, which this "
                "profile does not run"
            )
    return problems


def describe_kernels(record: Mapping) -> str:
    """A provenance record's numpy loops and BLAS kernels in words, for a refused comparison."""
    from ppdp.kernels import blas_entries

    blas = sorted({f"{e[1]} {e[3]}" for e in blas_entries(record)}) or ["no BLAS"]
    return f"numpy {record.get('numpy_simd')}, {', '.join(blas)}"


def kernel_comparison_problems(
    config: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    *,
    probe: Callable[..., dict] | None = None,
) -> list[str]:
    """Why ``config``'s ``decides.compare_kernels`` would compare nothing on this machine (empty
    if it compares something, or names no run).

    Each named run is probed as its job would start (:func:`ppdp.kernels.environment_record` at
    the run's ``threads``), in ``environ`` and in the other kernels' environment
    (:func:`ppdp.kernels.other_kernels`). Where the two give the same kernels in every library
    family its notebook computes with (:func:`ppdp.kernels.compared_families`), its rerun would
    reproduce its first run's bits, and the report refuses such a comparison, after hours of
    runs; the pipeline refuses the profile before any job instead. That is the case on an x86-64
    machine with AVX2 but no AVX-512, where the caps hold nothing back.

    Parameters
    ----------
    config : mapping
        A profile; only a deciding one with ``decides.compare_kernels`` is probed.
    environ : mapping, optional
        The environment the runs start from; default ``os.environ``.
    probe : callable, optional
        ``probe(env, threads=...)`` -> provenance kernel fields; default
        :func:`ppdp.kernels.environment_record` (a fresh interpreter per call).

    Returns
    -------
    list of str
        One message per run that would compare nothing.
    """
    from ppdp import kernels

    spec = config.get("decides")
    runs = list((spec or {}).get("compare_kernels", [])) if isinstance(spec, Mapping) else []
    if not runs:
        return []
    environ = os.environ if environ is None else environ
    probe = kernels.environment_record if probe is None else probe
    setting, other_env = kernels.other_kernels(environ)
    records: dict[int, tuple[dict, dict]] = {}
    problems = []
    for run in runs:
        run_spec = config["runs"].get(run)
        if not isinstance(run_spec, Mapping):
            continue  # named by deciding_problems
        threads = int(run_spec.get("threads", 1))
        if threads not in records:
            records[threads] = (
                probe(environ, threads=threads),
                probe(other_env, threads=threads),
            )
        first, second = records[threads]
        if kernels.compared_families(first, second, run_spec.get("notebook")):
            continue
        problems.append(
            f"config profile {config['profile']!r}: decides.compare_kernels runs {run!r} again "
            f"under {setting}, but on this machine both compute with the same kernels "
            f"({describe_kernels(first)}; PyTorch's count only for the "
            "notebooks that import it), so the comparison would test nothing and its report "
            "would refuse it after the runs. Run this profile on a machine whose kernels the "
            "caps change (x86-64 with AVX-512), or leave decides.compare_kernels out of a "
            "profile of your own"
        )
    return problems


def decided_by_problems(
    config: Mapping[str, Any], deciding: Mapping[str, Mapping[str, Any]], root: str | os.PathLike
) -> list[str]:
    """What keeps ``config``'s report from reading the verdicts of the profiles in its
    ``decided_by`` (empty if nothing): each must be a deciding profile of this one (``deciding``
    maps its name to its config) whose verdicts are committed (:func:`verdicts_path`) and were
    made from the config as it is now (:func:`profile_digest`)."""
    name = config["profile"]
    problems = []
    for other in config.get("decided_by", []):
        spec = deciding.get(other)
        if spec is None:
            problems.append(f"config profile {name!r}: decided_by names {other!r}: no such profile")
            continue
        if spec.get("decides", {}).get("profile") != name:
            problems.append(
                f"config profile {name!r}: decided_by names {other!r}, which does not decide it "
                "(its decides.profile)"
            )
        path = verdicts_path(root, other)
        rerun = f"run `make reproduce PROFILE={other}` and commit its report"
        if not path.exists():
            problems.append(
                f"config profile {name!r}: decided_by names {other!r}, whose verdicts "
                f"{DECIDING_REPORTS / other / VERDICTS_FILE} do not exist: {rerun} first"
            )
            continue
        try:
            verdicts = read_decided_verdicts(path)
        except ValueError as error:
            problems.append(f"config profile {name!r}: decided_by {other!r}: {error}")
            continue
        if "decides" in spec and set(verdicts["config_digest"]) != {profile_digest(spec)}:
            problems.append(
                f"config profile {name!r}: decided_by {other!r}: its verdicts "
                f"({DECIDING_REPORTS / other / VERDICTS_FILE}) were made from another version "
                f"of config/{other}.yaml (its runs, parameters or decided claims): {rerun}"
            )
    return problems


def decided_verdicts(
    table: pd.DataFrame, config: Mapping[str, Any], *, commit: str
) -> pd.DataFrame:
    """The rows of the claims the deciding profile ``config`` decides, in
    :func:`ppdp.report.verdicts.evaluate`'s ``table``, with the profile's name, the ``commit`` its
    runs ran at and the config's :func:`profile_digest`, in :data:`DECIDED_COLUMNS`. Refused
    (``ValueError``) when a claim is missing from the table or left unjudged: a deciding profile
    that decides nothing writes nothing."""
    ids = list(config["decides"]["claims"])
    profile = config["profile"]
    by_id = table.set_index("id")
    missing = [cid for cid in ids if cid not in by_id.index]
    if missing:
        raise ValueError(f"profile {profile!r} decides claims it does not judge: {missing}")
    rows = by_id.loc[ids].reset_index()
    open_ = rows.loc[~rows["verdict"].isin(_JUDGED), ["id", "verdict"]]
    if len(open_):
        pairs = ", ".join(f"{r.id} ({r.verdict})" for r in open_.itertuples(index=False))
        raise ValueError(f"profile {profile!r} leaves claims it decides unjudged: {pairs}")
    digest = profile_digest(config)
    return rows.assign(profile=profile, commit=commit, config_digest=digest)[list(DECIDED_COLUMNS)]


def write_decided_verdicts(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write :func:`decided_verdicts`'s ``frame`` to ``path`` atomically."""
    _write_atomic(Path(path), frame.to_csv(index=False))


def read_decided_verdicts(path: str | os.PathLike) -> pd.DataFrame:
    """The verdicts a deciding profile wrote (:func:`write_decided_verdicts`); ``ValueError``
    names the file when its columns, ids or verdicts are not what that function writes."""
    path = Path(path)
    frame = pd.read_csv(path, dtype={"id": str, "commit": str, "detail": str, "config_digest": str})
    if tuple(frame.columns) != DECIDED_COLUMNS:
        raise ValueError(f"{path}: columns {list(frame.columns)}, expected {list(DECIDED_COLUMNS)}")
    if frame.empty or frame["id"].duplicated().any():
        raise ValueError(f"{path}: expected one row per decided claim")
    odd = frame.loc[~frame["verdict"].isin(_JUDGED), "id"].tolist()
    if odd:
        raise ValueError(f"{path}: claims without a deciding verdict: {odd}")
    return frame.assign(detail=frame["detail"].fillna(""))


def apply_decided(table: pd.DataFrame, decided: pd.DataFrame) -> pd.DataFrame:
    """``table`` (:func:`ppdp.report.verdicts.evaluate`'s) with each claim of ``decided``
    (:func:`read_decided_verdicts`) given the deciding profile's measurement, interval, number of
    values, verdict and detail; the profile's own go to ``own_<column>``, and ``decided_by`` names the deciding profile and its commit ("" for the
    other claims). ``ValueError`` when a decided claim is not in the table or two deciding
    profiles decide one claim."""
    unknown = sorted(set(decided["id"]) - set(table["id"]))
    if unknown:
        raise ValueError(f"deciding verdicts of claims this report does not hold: {unknown}")
    twice = decided.loc[decided["id"].duplicated(), "id"].tolist()
    if twice:
        raise ValueError(f"claims decided by two deciding profiles: {twice}")
    out = table.copy()
    for column in _REPLACED:
        out[f"own_{column}"] = out[column]
    out["decided_by"] = ""
    for row in decided.itertuples(index=False):
        at = out.index[out["id"] == row.id]
        for column in _REPLACED:
            out.loc[at, column] = getattr(row, column)
        out.loc[at, "decided_by"] = f"{row.profile} ({row.commit[:10]})"
    out.attrs = dict(table.attrs)
    return out
