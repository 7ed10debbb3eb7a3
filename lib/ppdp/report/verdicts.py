"""Judging measured values: each claim's value, 95% interval and verdict.

The measured value of a claim is the mean over its rows (a row with ``experiment == "claims"`` and
``metric`` equal to the claim's id, one per seed) in its run's tidy results (:func:`evaluate`).

Every measured value comes with a 95% interval when the run gives one: the ``ci_low`` and
``ci_high`` columns of the claim's row, written by the experiment (e.g. a bootstrap over seeds),
otherwise a Student-t interval over the claim's per-seed rows when there are at least two. A check with
``basis: interval`` holds only if the whole interval is on the claimed side (an ordering that is
stable across seeds); by default (``basis: mean``) the check applies to the measured mean.

A second run of the profile (another machine or BLAS kernel) is compared by
:func:`verdict_differences`: a claim reproduced in one run and not in the other is *unstable*
(:func:`mark_unstable`), decided by neither. :func:`cause_counts` counts the misses per cause.

A report is complete or it fails. The pipeline's mode (``complete``) requires every run's results,
a claim for every run, a value for every claim (except those the profile's config lists as
``unmeasured``, which its parameters cannot measure) and a claim in ``claims.yaml`` for every
claims row of the results (:func:`evaluate` and :func:`check_complete`).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ppdp.experiments.common import mean_halfwidth, parameter_labels, read_results
from ppdp.report.claims import CAUSES, Claim, _fmt

__all__ = [
    "ACROSS_SUFFIX",
    "AMBIGUOUS",
    "CI_COLUMNS",
    "RUNS_WITHOUT_CLAIMS",
    "UNSTABLE",
    "VERDICTS",
    "cause_counts",
    "check_complete",
    "evaluate",
    "mark_unstable",
    "verdict_differences",
]

VERDICTS = ("reproduced", "not reproduced", "not measured", "not yet run")
#: A claim reproduced in one of two runs of the profile and not in the other (``--compare``).
UNSTABLE = "unstable"
#: A claim whose verdict differs over the plausible values of a setting the paper leaves unstated
#: (its run writes the claim at each of them as ``<id>.across`` rows, the value in their parameter
#: columns).
AMBIGUOUS = "ambiguous"
#: Metric suffix of a claim's value at another plausible value of an unstated setting.
ACROSS_SUFFIX = ".across"
#: The columns of a claim's row that hold its 95% interval, where the run gives one.
CI_COLUMNS = ("ci_low", "ci_high")
#: Runs that judge no claim of the papers: the report shows their tables and figures instead.
RUNS_WITHOUT_CLAIMS = ("benchmark",)


def evaluate(
    claims: list[Claim],
    results_dir: str | os.PathLike,
    *,
    runs: Iterable[str] | None = None,
    complete: bool = False,
) -> pd.DataFrame:
    """Measured value, 95% interval and verdict of every claim.

    The measured value is the mean over the claim's rows (one per seed) in
    ``results_dir/<run>.csv``. The interval is the run's own (the ``ci_low`` and ``ci_high``
    columns of its rows) or a t-interval over the rows.

    Parameters
    ----------
    runs
        The runs of the profile (its config's ``runs``). Every claim must name one of them. A run
        without a CSV yet gives "not yet run" (a partial pipeline), unless ``complete``. When
        ``None``, every claim's run must have its CSV in ``results_dir``.
    complete
        The pipeline's mode: every run must have its CSV and at least one claim. The rest of a
        complete report (every claim measured, every claims row listed) is
        :func:`check_complete`'s, which reads the ``attrs`` below.

    Returns
    -------
    pandas.DataFrame
        One row per claim. A claim whose run has results but no value for it is "not measured".
        ``cause`` is the kind of the claim's cause in ``claims.yaml`` ("" if it gives none).
        ``attrs["warnings"]`` lists the CSVs with claims rows that ``claims`` does not list (a
        truncated claims file, or a claim not yet written down); ``attrs["unlisted"]`` maps each
        such run to those ids (interval rows aside), and ``attrs["files"]`` each run with results
        to its CSV.

    Raises
    ------
    FileNotFoundError
        When ``results_dir`` does not exist, or (``complete``) a run's CSV is missing.
    ValueError
        When a claim names an unknown run, a CSV cannot be read as tidy results, or (``complete``)
        a run has no claim; the message names the claims and the file.
    """
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise FileNotFoundError(f"results folder {str(results_dir)!r} (--results) does not exist")
    by_run: dict[str, list[str]] = {}
    for claim in claims:
        by_run.setdefault(claim.run, []).append(claim.id)
    known = None if runs is None else list(runs)
    for run, ids in by_run.items():
        csv_path = results_dir / f"{run}.csv"
        if known is not None and run not in known:
            raise ValueError(
                f"claim {ids[0]!r}{_more(ids)}: run {run!r} is not a run of this profile; "
                f"its runs are {known}"
            )
        if known is None and not csv_path.exists():
            raise ValueError(
                f"claim {ids[0]!r}{_more(ids)}: run {run!r} has no results {str(csv_path)!r}; "
                "pass the profile's runs (--config or --runs) to report runs not yet run"
            )
    frames: dict[str, pd.DataFrame | None] = {}
    notes: list[str] = []
    unlisted_by_run: dict[str, list[str]] = {}
    files: dict[str, str] = {}
    for run in known if known is not None else by_run:
        csv_path = results_dir / f"{run}.csv"
        ids = by_run.get(run, [])
        if not csv_path.exists():
            if complete:
                raise FileNotFoundError(
                    f"run {run!r}: its results {str(csv_path)!r} are missing "
                    f"({len(ids)} claims need them)"
                )
            frames[run] = None
            continue
        if complete and not ids and run not in RUNS_WITHOUT_CLAIMS:
            raise ValueError(f"run {run!r}: claims.yaml has no claim for it ({csv_path})")
        frame = _read_claims_rows(csv_path, ids)
        files[run] = str(csv_path)
        # a claim's interval and across rows go with its own row: only the claims are counted
        listed = set(ids)
        written = set(frame["metric"].str.removesuffix(ACROSS_SUFFIX))
        unlisted = sorted(m for m in written if m not in listed)
        if unlisted:
            unlisted_by_run[run] = unlisted
            notes.append(
                f"{csv_path} has claims rows that claims.yaml does not list for run {run!r} "
                f"(is claims.yaml truncated?): {_some(unlisted)}"
            )
        frames[run] = frame
    rows = []
    for claim in claims:
        frame = frames[claim.run]
        measured, count, detail, across = math.nan, 0, "", ""
        low = high = math.nan
        if frame is None:
            verdict, detail = "not yet run", f"no results for run '{claim.run}'"
        else:
            hit = frame[frame["metric"] == claim.id]
            count = len(hit)
            if count == 0:
                verdict, detail = (
                    "not measured",
                    f"run '{claim.run}' measured no value for this claim",
                )
            else:
                measured = float(hit["value"].mean())
                low, high = _interval(frame, claim.id, hit["value"].to_numpy(float))
                holds = claim.check.holds_interval(measured, low, high)
                verdict = "reproduced" if holds else "not reproduced"
                others = frame[frame["metric"].str.startswith(claim.id + ACROSS_SUFFIX)]
                if len(others):
                    across, flips = _across(claim, holds, others)
                    if flips:
                        verdict, detail = AMBIGUOUS, flips
        rows.append(
            {
                "id": claim.id,
                "paper": claim.paper,
                "run": claim.run,
                "where": claim.where,
                "statement": claim.statement,
                "published": claim.published,
                "check": claim.check.describe(),
                "measured": measured,
                "ci_low": low,
                "ci_high": high,
                "n": count,
                "verdict": verdict,
                "detail": detail,
                "across": across,
                "cause": claim.cause.kind if claim.cause else "",
            }
        )
    table = pd.DataFrame(rows)
    table.attrs["warnings"] = notes
    table.attrs["unlisted"] = unlisted_by_run
    table.attrs["files"] = files
    return table


def _across(claim: Claim, holds: bool, others: pd.DataFrame) -> tuple[str, str]:
    """A claim's values at the other plausible values of an unstated setting (``others``: its
    ``<id>.across`` rows, with their interval where the run gives one), as text, and where the
    verdict differs ("" if it never does).

    The verdict at another value is the claim's check on that value, on its interval where the
    check's basis is the interval: a run that gives no interval there fails such a check, as the
    profile's value would."""
    others = others[others["metric"] == claim.id + ACROSS_SUFFIX]
    keyed = others.assign(setting=parameter_labels(others))
    wide = keyed.groupby("setting", sort=False)[["value", "ci_low", "ci_high"]].mean()
    wide = wide.dropna(subset=["value"])
    wide = wide.loc[sorted(wide.index, key=_natural_key)]
    labels = wide.index.astype(str)
    parts = []
    differ = []
    for label, (value, low, high) in zip(labels, wide.to_numpy(float), strict=True):
        shown = _fmt(value)
        if math.isfinite(low) and math.isfinite(high):
            shown += f" [{_fmt(low)}, {_fmt(high)}]"
        parts.append(f"{label}: {shown}")
        if claim.check.holds_interval(value, low, high) != holds:
            differ.append(label)
    shown = "; ".join(parts)
    if not differ:
        return shown, ""
    here = "holds" if holds else "fails"
    return (
        shown,
        f"{here} at this profile's value, {'fails' if holds else 'holds'} at " + ", ".join(differ),
    )


def _natural_key(text: str) -> list:
    """Sort key that orders numbers inside labels by value ("k=25" before "k=100")."""
    parts = re.split(r"(-?\d+(?:\.\d+)?)", str(text))
    return [(0, float(p), "") if i % 2 else (1, 0.0, p) for i, p in enumerate(parts)]


def check_complete(table: pd.DataFrame, *, allow_unmeasured: Iterable[str] = ()) -> None:
    """Raise unless :func:`evaluate`'s ``table`` judges every claim of the results and no other.

    Parameters
    ----------
    table
        :func:`evaluate`'s table (its ``attrs["unlisted"]`` and ``attrs["files"]`` included).
    allow_unmeasured
        Ids of claims that the profile's parameters cannot measure (its config's
        ``runs.<run>.unmeasured``): their "not measured" is expected. Each must name a claim of
        ``table`` that is not measured, so that a stale entry cannot hide a lost value later.

    Raises
    ------
    ValueError
        When a run's CSV has claims rows that the claims do not list (a truncated claims file or
        a renamed claim), a claim of a run with results is not measured and not allowed to be, or
        ``allow_unmeasured`` names an unknown claim or one that is measured; the message names the
        claims, their run and its CSV.
    """
    attrs = table.attrs
    if table.empty:  # evaluate() of no claims has no columns
        table = pd.DataFrame(columns=["id", "run", "verdict"]).astype(str)
    allowed = list(dict.fromkeys(allow_unmeasured))
    unknown = [cid for cid in allowed if cid not in set(table["id"])]
    if unknown:
        raise ValueError(
            f"allow_unmeasured (--allow-unmeasured, or a config's runs.<run>.unmeasured) names "
            f"claims that the claims file does not have: {_some(unknown)}"
        )
    verdicts = table.set_index("id")["verdict"]
    stale = [cid for cid in allowed if verdicts[cid] != "not measured"]
    if stale:
        raise ValueError(
            f"allow_unmeasured (--allow-unmeasured, or a config's runs.<run>.unmeasured) names "
            f"claims that their runs measure: {_some(stale)}; remove them from it"
        )
    files = attrs.get("files", {})
    problems = [
        f"run {run!r}: {files.get(run, 'its results')} has claims rows that claims.yaml does "
        f"not list (is claims.yaml truncated, or a claim renamed?): {_some(unlisted)}"
        for run, unlisted in attrs.get("unlisted", {}).items()
    ]
    missing = table[(table["verdict"] == "not measured") & ~table["id"].isin(allowed)]
    for run, block in missing.groupby("run", sort=False):
        problems.append(
            f"run {run!r}: {files.get(run, 'its results')} has no value for "
            f"{len(block)} claims: {_some(list(block['id']))} (a claim that this profile cannot "
            f"measure belongs in its config's runs.{run}.unmeasured)"
        )
    if problems:
        raise ValueError("the report is incomplete (--complete): " + "; ".join(problems))


def verdict_differences(table: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """The claims whose verdicts differ between two runs of the profile.

    Parameters
    ----------
    table, other
        :func:`evaluate`'s tables of the same claims on two results folders (before
        :func:`mark_unstable`).

    Returns
    -------
    pandas.DataFrame
        One row per claim of ``table`` whose verdict in ``other`` differs (or that ``other``
        lacks: "absent"), in ``table``'s order, with the columns ``id``, ``verdict`` (in
        ``table``), ``other_verdict`` and ``cause`` (the kind of the claim's cause, "" if none).
    """
    theirs = other.set_index("id")["verdict"]
    both = table[["id", "verdict", "cause"]].assign(
        other_verdict=table["id"].map(theirs).fillna("absent")
    )
    differ = both[both["verdict"] != both["other_verdict"]]
    return differ[["id", "verdict", "other_verdict", "cause"]].reset_index(drop=True)


def _more(ids: list[str]) -> str:
    return f" (and {len(ids) - 1} more)" if len(ids) > 1 else ""


def _some(ids: list[str], shown: int = 5) -> str:
    """The first ``shown`` ids, comma-separated, and how many more there are."""
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def _read_claims_rows(csv_path: Path, ids: list[str]) -> pd.DataFrame:
    """The claims rows of a run's tidy results; an unreadable file names the file and its claims."""
    try:
        frame = read_results(csv_path)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, ValueError, KeyError) as error:
        claims = f"claims {ids[:3]}{' ...' if len(ids) > 3 else ''}" if ids else "no claims"
        raise ValueError(
            f"{csv_path} ({claims}) cannot be read as tidy results: {error}"
        ) from error
    # only the claims rows matter here
    return frame[frame["experiment"] == "claims"]


def _interval(frame: pd.DataFrame, claim_id: str, values) -> tuple[float, float]:
    """The run's own 95% interval for a claim (``frame``: the run's claims rows; the ``ci_low``
    and ``ci_high`` of the claim's rows), else a t-interval over its rows (nan if < 2)."""
    hit = frame[frame["metric"] == claim_id]
    bounds = [float(hit[c].mean()) if hit[c].notna().any() else math.nan for c in CI_COLUMNS]
    if all(math.isfinite(b) for b in bounds):
        return bounds[0], bounds[1]
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return math.nan, math.nan
    half = mean_halfwidth(values.std(ddof=1), len(values), distribution="t")
    return float(values.mean() - half), float(values.mean() + half)


def mark_unstable(table: pd.DataFrame, other: pd.DataFrame, other_dir) -> pd.DataFrame:
    """``table`` with :data:`UNSTABLE` where the two runs' verdicts are reproduced in one and not
    reproduced in the other; the detail gives the other run's verdict and value. Claims measured
    in only one of the runs keep this run's verdict."""
    out = table.copy()
    judged = ("reproduced", "not reproduced")
    differ = verdict_differences(table, other)
    differ = differ[differ["verdict"].isin(judged) & differ["other_verdict"].isin(judged)]
    measured = other.set_index("id")["measured"]
    for row in differ.itertuples(index=False):
        at = out.index[out["id"] == row.id]
        out.loc[at, "detail"] = (
            f"{row.verdict} here, {row.other_verdict} in {other_dir} "
            f"(measured {_fmt(float(measured[row.id]))})"
        )
        out.loc[at, "verdict"] = UNSTABLE
    out.attrs = dict(table.attrs, compare=str(other_dir))
    return out


def cause_counts(table: pd.DataFrame) -> pd.Series:
    """Claims not reproduced per cause kind (and ``"no cause given"``), from :func:`evaluate`."""
    missed = table.loc[table["verdict"] == "not reproduced", "cause"].replace("", "no cause given")
    return missed.value_counts().reindex([*CAUSES, "no cause given"], fill_value=0)
