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
claims row of the results (:func:`evaluate` and :func:`check_complete`), and ``.across`` values for
every claim that declares its unstated settings. Damaged results are never judged, in any mode:
:func:`evaluate` raises :class:`ResultsError`, a line per problem naming the file, the row's line
and the claim.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ppdp.experiments.common import (
    mean_halfwidth,
    parameter_labels,
    read_raw_results,
    tidy_frame,
)
from ppdp.report.claims import CAUSES, Claim, _fmt

__all__ = [
    "ACROSS_SUFFIX",
    "AMBIGUOUS",
    "CI_COLUMNS",
    "RUNS_WITHOUT_CLAIMS",
    "UNSTABLE",
    "VERDICTS",
    "ResultsError",
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


class ResultsError(ValueError):
    """Results that the report refuses to judge, one problem per line.

    Each line names the results file, the line of the row where there is one (``file:line:``)
    and the claim, so that every damaged value, duplicated seed, foreign row and missing value is
    listed at once rather than one per run of the report.

    Parameters
    ----------
    problems : list of str
        One line per problem.

    Examples
    --------
    >>> error = ResultsError(["nb.csv:3: claim 'p.a': value is nan; a claim's value is finite"])
    >>> isinstance(error, ValueError), len(error.problems)
    (True, 1)
    >>> print(error)
    1 problem in the results (the report judges no claim of them):
    nb.csv:3: claim 'p.a': value is nan; a claim's value is finite
    """

    def __init__(self, problems: Iterable[str]):
        self.problems = list(problems)
        plural = "" if len(self.problems) == 1 else "s"
        super().__init__(
            f"{len(self.problems)} problem{plural} in the results (the report judges no claim of "
            "them):\n" + "\n".join(self.problems)
        )


def evaluate(
    claims: list[Claim],
    results_dir: str | os.PathLike,
    *,
    runs: Iterable[str] | None = None,
    complete: bool = False,
    allow_unmeasured: Iterable[str] = (),
) -> pd.DataFrame:
    """Measured value, 95% interval and verdict of every claim.

    The measured value is the mean over the claim's rows (one per seed) in
    ``results_dir/<run>.csv``. The interval is the run's own (the ``ci_low`` and ``ci_high``
    columns of its rows) or a t-interval over the rows.

    A verdict is never drawn from damaged rows: every problem below is collected, over all runs,
    into one :class:`ResultsError`, a line each naming the file, the row's line and the claim.

    - a claim's value (or one of its ``.across`` values) that is missing (nan) or infinite;
    - an interval with one end, an infinite end, or ``ci_low > ci_high``; rows of one claim of
      which some give an interval and others do not;
    - a claim row without a seed, two rows of a claim with the same seed, method, facets and
      parameters (a seed counted twice), or a row of seed -1 (nothing random) beside others;
    - a claims row of a claim of another run (another run's results under this run's name);
    - a row whose ``metric`` is a claim's but whose ``experiment`` is not ``"claims"``;
    - an ``.across`` row of a claim that declares its unstated settings (``across`` in
      ``claims.yaml``) that sets none of them.

    What makes a report partial is a problem only for :func:`check_complete` (the pipeline's
    mode); otherwise the claim is not judged ("not measured" or "not yet run") and the report says
    so:

    - a claim without a row; a claim that declares ``across`` whose run wrote no ``.across`` rows
      for it (its verdict could flip at those values, so none is given);
    - a claims row that ``claims`` does not list (a truncated claims file, a misspelt claim id).

    Parameters
    ----------
    claims : list of Claim
        The claims, from :func:`ppdp.report.claims.load_claims`.
    results_dir : str or path
        The folder of the runs' tidy results, ``<run>.csv``.
    runs : iterable of str, optional
        The runs of the profile (its config's ``runs``). Every claim must name one of them. A run
        without a CSV yet gives "not yet run" (a partial pipeline), unless ``complete``. When
        ``None``, every claim's run must have its CSV in ``results_dir``.
    complete : bool
        The pipeline's mode: every run must have its CSV and at least one claim. The rest of a
        complete report (every claim judged, every claims row listed) is
        :func:`check_complete`'s, which reads the ``attrs`` below; when the results are damaged,
        the :class:`ResultsError` lists what it would refuse as well.
    allow_unmeasured : iterable of str
        With ``complete``: claims that the profile's parameters cannot measure, left out of that
        list (:func:`check_complete` checks the list itself).

    Returns
    -------
    pandas.DataFrame
        One row per claim. A claim whose run has results but no value for it is "not measured".
        ``cause`` is the kind of the claim's cause in ``claims.yaml`` ("" if it gives none).
        ``attrs["warnings"]`` lists the CSVs with claims rows that ``claims`` does not list (a
        truncated claims file, or a claim not yet written down); ``attrs["unlisted"]`` maps each
        such run to those ids (interval rows aside), ``attrs["files"]`` each run with results
        to its CSV and ``attrs["gaps"]`` each claim left unjudged by its results to the line that
        says why.

    Raises
    ------
    FileNotFoundError
        When ``results_dir`` does not exist, or (``complete``) a run's CSV is missing.
    ResultsError
        When the results are damaged, as listed above.
    ValueError
        When a claim names an unknown run, a CSV cannot be read as tidy results, or (``complete``)
        a run has no claim; the message names the claims and the file.

    Examples
    --------
    >>> import tempfile
    >>> from ppdp.experiments.common import tidy_rows, write_results
    >>> from ppdp.report.claims import Check
    >>> claim = Claim("p.a", "p", "nb", "Fig. 1", "a holds", 1, Check(">=", 1.0), run="nb")
    >>> folder = Path(tempfile.mkdtemp())
    >>> rows = tidy_rows("claims", "", {"p.a": 2.0}, seed=0)
    >>> _ = write_results(rows + tidy_rows("claims", "", {"p.a": 3.0}, seed=1), folder / "nb.csv")
    >>> evaluate([claim], folder)[["id", "measured", "n", "verdict"]]
        id  measured  n     verdict
    0  p.a       2.5  2  reproduced
    >>> _ = write_results(rows + rows, folder / "nb.csv")
    >>> evaluate([claim], folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ppdp.report.verdicts.ResultsError: 1 problem in the results (the report judges no claim of them):
    ...nb.csv:2: claim 'p.a': lines 2, 3 are the same row (seed 0, ...): a seed counts once
    """
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise FileNotFoundError(f"results folder {str(results_dir)!r} (--results) does not exist")
    by_run: dict[str, list[str]] = {}
    for claim in claims:
        by_run.setdefault(claim.run, []).append(claim.id)
    run_of = {claim.id: claim.run for claim in claims}
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
    problems: list[str] = []
    unlisted_by_run: dict[str, list[str]] = {}
    unlisted_lines: list[str] = []
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
        frame, seedless = _read_rows(csv_path, ids)
        files[run] = str(csv_path)
        problems += _label_problems(frame, csv_path, run, run_of)
        claims_rows = frame[frame["experiment"] == "claims"]
        problems += [
            f"{csv_path}:{line}: claim {metric.removesuffix(ACROSS_SUFFIX)!r}: its row has no "
            "seed (write -1 when nothing is random)"
            for line, metric in seedless
            if metric.removesuffix(ACROSS_SUFFIX) in run_of
        ]
        # a claim's interval and across rows go with its own row: only the claims are counted
        bases = claims_rows["metric"].str.removesuffix(ACROSS_SUFFIX)
        unlisted = sorted(m for m in set(bases) if m not in run_of)
        if unlisted:
            unlisted_by_run[run] = unlisted
            notes.append(
                f"{csv_path} has claims rows that claims.yaml does not list for run {run!r} "
                f"(is claims.yaml truncated, or a claim id misspelt?): {_some(unlisted)}"
            )
            # a misspelt or renamed id stands for one of the run's claims that has no row
            unwritten = [cid for cid in ids if cid not in set(bases)]
            for metric in unlisted:
                line = int(claims_rows.loc[bases == metric, _LINE].min())
                close = difflib.get_close_matches(metric, unwritten, n=1, cutoff=0.4)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                unlisted_lines.append(
                    f"{csv_path}:{line}: claims row {metric!r} is not a claim of claims.yaml{hint}"
                )
        frames[run] = claims_rows
    rows = []
    gaps: dict[str, str] = {}
    for claim in claims:
        frame = frames[claim.run]
        measured, count, detail, across, across_values = math.nan, 0, "", "", ()
        low = high = math.nan
        csv_path = files.get(claim.run, "")
        if frame is None:
            verdict, detail = "not yet run", f"no results for run '{claim.run}'"
        else:
            hit = frame[frame["metric"] == claim.id]
            others = frame[frame["metric"] == claim.id + ACROSS_SUFFIX]
            count = len(hit)
            damage = _row_problems(claim, hit, csv_path) + _row_problems(claim, others, csv_path)
            damage += _across_setting_problems(claim, others, csv_path)
            problems += damage
            if damage:
                verdict, detail = "not measured", "its rows are damaged"
            elif count == 0:
                verdict, detail = (
                    "not measured",
                    f"run '{claim.run}' measured no value for this claim",
                )
                gaps[claim.id] = (
                    f"{csv_path}: claim {claim.id!r}: no row (experiment 'claims', metric "
                    f"{claim.id!r}) holds its value"
                )
            else:
                measured = float(hit["value"].mean())
                low, high = _interval(frame, claim.id, hit["value"].to_numpy(float))
                holds = claim.check.holds_interval(measured, low, high)
                verdict = "reproduced" if holds else "not reproduced"
                if len(others):
                    across, flips, across_values = _across(claim, holds, others.drop(columns=_LINE))
                    if flips:
                        verdict, detail = AMBIGUOUS, flips
                elif claim.across:
                    # without its values at the other settings the claim may be ambiguous: a
                    # verdict from the profile's value alone would overstate it
                    settings = ", ".join(claim.across)
                    verdict, detail = (
                        "not measured",
                        f"no values at the other values of its unstated settings ({settings})",
                    )
                    gaps[claim.id] = (
                        f"{csv_path}: claim {claim.id!r}: no {claim.id + ACROSS_SUFFIX!r} rows, "
                        f"though claims.yaml declares its unstated settings ({settings}): its "
                        "verdict may differ at their other values"
                    )
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
                "across_values": across_values,
                "cause": claim.cause.kind if claim.cause else "",
            }
        )
    if problems:
        if complete:
            # the user fixes everything at once: what check_complete would refuse as well
            allowed = set(allow_unmeasured)
            problems += unlisted_lines
            problems += [line for cid, line in gaps.items() if cid not in allowed]
        raise ResultsError(problems)
    table = pd.DataFrame(rows)
    table.attrs["warnings"] = notes
    table.attrs["unlisted"] = unlisted_by_run
    table.attrs["unlisted_lines"] = unlisted_lines
    table.attrs["files"] = files
    table.attrs["gaps"] = gaps
    return table


#: The column that holds a row's line in its results file while the report reads it.
_LINE = "results_line"
#: The columns that hold a row's measurement; the others say what was measured.
_MEASUREMENT = ("value", "ci_low", "ci_high", _LINE)


def _read_rows(csv_path: Path, ids: list[str]) -> tuple[pd.DataFrame, list[tuple[int, str]]]:
    """A run's tidy results with each row's line in the file (column :data:`_LINE`), and the
    (line, metric) of the claims rows without a seed (which tidy results read as -1); an
    unreadable file names the file and its claims."""
    try:
        # read as read_results reads, keeping each row's line
        raw = read_raw_results(csv_path)
        raw[_LINE] = np.arange(len(raw)) + 2  # line 1 is the header
        seedless = []
        if {"experiment", "seed", "metric"} <= set(raw.columns):
            no_seed = raw[(raw["experiment"] == "claims") & raw["seed"].isna()]
            seedless = list(zip(no_seed[_LINE], no_seed["metric"].astype(str), strict=True))
        frame = tidy_frame(raw)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, ValueError, KeyError) as error:
        claims = f"claims {ids[:3]}{' ...' if len(ids) > 3 else ''}" if ids else "no claims"
        raise ValueError(
            f"{csv_path} ({claims}) cannot be read as tidy results: {error}"
        ) from error
    return frame, seedless


def _label_problems(
    frame: pd.DataFrame, csv_path: Path, run: str, run_of: dict[str, str]
) -> list[str]:
    """Rows of another run's claims (another run's file under this run's name) and rows of a
    claim whose ``experiment`` is not ``"claims"`` (a misspelt label)."""
    bases = frame["metric"].str.removesuffix(ACROSS_SUFFIX)
    is_claim = bases.isin(list(run_of))
    problems = []
    mislabelled = frame[is_claim & (frame["experiment"] != "claims")]
    for line, experiment, base in zip(
        mislabelled[_LINE], mislabelled["experiment"], bases[mislabelled.index], strict=True
    ):
        problems.append(
            f"{csv_path}:{line}: claim {base!r}: its row has experiment {experiment!r}, not "
            "'claims'"
        )
    foreign = frame[is_claim & (frame["experiment"] == "claims")]
    foreign = foreign[bases[foreign.index].map(run_of) != run]
    for line, base in zip(foreign[_LINE], bases[foreign.index], strict=True):
        problems.append(
            f"{csv_path}:{line}: claim {base!r} is a claim of run {run_of[base]!r}, not of "
            f"{run!r}: is this another run's results?"
        )
    return problems


def _row_problems(claim: Claim, rows: pd.DataFrame, csv_path: str) -> list[str]:
    """What keeps ``rows`` (a claim's rows, or its ``.across`` rows) from giving a verdict:
    values that are not finite, intervals that are not intervals, seeds counted twice."""
    if rows.empty:
        return []
    is_across = rows["metric"].iloc[0].endswith(ACROSS_SUFFIX)
    where = f"claim {claim.id!r}" + (f" ({claim.id + ACROSS_SUFFIX} row)" if is_across else "")
    problems = []
    for row in rows.itertuples(index=False):
        line = getattr(row, _LINE)
        at = f"{csv_path}:{line}: {where}"
        if not math.isfinite(row.value):
            problems.append(f"{at}: value is {row.value}; a claim's value must be a finite number")
        low, high = row.ci_low, row.ci_high
        if math.isnan(low) != math.isnan(high):
            problems.append(
                f"{at}: interval [{low}, {high}] has one end; give both ci_low and ci_high or "
                "neither"
            )
        elif math.isinf(low) or math.isinf(high):
            problems.append(f"{at}: interval [{low}, {high}] has an infinite end")
        elif low > high:
            problems.append(f"{at}: interval inverted, ci_low {low} > ci_high {high}")
    # the claim's interval averages its rows' bounds, which a subset of rows would skew; an
    # across row is one setting's value, with or without an interval of its own
    with_interval = rows["ci_low"].notna() | rows["ci_high"].notna()
    if not is_across and with_interval.any() and not with_interval.all():
        lines = _lines(rows.loc[~with_interval, _LINE])
        problems.append(
            f"{csv_path}:{rows[_LINE].min()}: {where}: lines {lines} give no interval and lines "
            f"{_lines(rows.loc[with_interval, _LINE])} do: all or none of a claim's rows give one"
        )
    keys = [c for c in rows.columns if c not in _MEASUREMENT]
    for key, block in rows.groupby(keys, dropna=False, sort=False):
        if len(block) > 1:
            seed = dict(zip(keys, key, strict=True))["seed"]
            problems.append(
                f"{csv_path}:{block[_LINE].min()}: {where}: lines {_lines(block[_LINE])} are the "
                f"same row (seed {seed}, same method, facets and parameters): a seed counts once"
            )
    unseeded = [c for c in keys if c != "seed"]
    for _, block in rows.groupby(unseeded, dropna=False, sort=False) if unseeded else []:
        if len(block) > 1 and (block["seed"] == -1).any() and (block["seed"] != -1).any():
            problems.append(
                f"{csv_path}:{block[_LINE].min()}: {where}: lines {_lines(block[_LINE])} mix "
                "seed -1 (nothing random) with seeded rows"
            )
    return problems


def _across_setting_problems(claim: Claim, others: pd.DataFrame, csv_path: str) -> list[str]:
    """``.across`` rows of a claim that declares its unstated settings but set none of them."""
    if not claim.across or others.empty:
        return []
    present = [s for s in claim.across if s in others.columns]
    unset = others[others[present].isna().all(axis=1)] if present else others
    return [
        f"{csv_path}:{line}: claim {claim.id!r} ({claim.id + ACROSS_SUFFIX} row): sets none of "
        f"its declared settings {list(claim.across)}"
        for line in unset[_LINE]
    ]


def _lines(lines: pd.Series) -> str:
    return ", ".join(str(int(n)) for n in sorted(lines))


def _across(claim: Claim, holds: bool, others: pd.DataFrame) -> tuple[str, str, tuple[float, ...]]:
    """A claim's values at the other plausible values of an unstated setting (``others``: its
    ``<id>.across`` rows, with their interval where the run gives one), as text, where the
    verdict differs ("" if it never does), and the values themselves (one per setting).

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
    values = tuple(float(v) for v in wide["value"])
    if not differ:
        return shown, "", values
    here = "holds" if holds else "fails"
    return (
        shown,
        f"{here} at this profile's value, {'fails' if holds else 'holds'} at " + ", ".join(differ),
        values,
    )


def _natural_key(text: str) -> list:
    """Sort key that orders numbers inside labels by value ("k=25" before "k=100")."""
    parts = re.split(r"(-?\d+(?:\.\d+)?)", str(text))
    return [(0, float(p), "") if i % 2 else (1, 0.0, p) for i, p in enumerate(parts)]


def check_complete(table: pd.DataFrame, *, allow_unmeasured: Iterable[str] = ()) -> None:
    """Raise unless :func:`evaluate`'s ``table`` judges every claim of the results and no other.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`evaluate`'s table (its ``attrs["unlisted_lines"]``, ``attrs["gaps"]`` and
        ``attrs["files"]`` included).
    allow_unmeasured : iterable of str
        Ids of claims that the profile's parameters cannot measure (its config's
        ``runs.<run>.unmeasured``): their "not measured" is expected. Each must name a claim of
        ``table`` that is not measured, so that a stale entry cannot hide a lost value later.

    Raises
    ------
    ValueError
        When ``allow_unmeasured`` names an unknown claim or one that is measured.
    ResultsError
        When a run's CSV has claims rows that the claims do not list (a truncated claims file or
        a renamed claim), or a claim of a run with results is not judged (no value, or no
        ``.across`` values where it declares its unstated settings) and not allowed to be; a line
        each, naming the file, the claim and, for a row, its line.

    Examples
    --------
    >>> table = pd.DataFrame({"id": ["p.a"], "run": ["nb"], "verdict": ["not measured"]})
    >>> table.attrs["gaps"] = {"p.a": "nb.csv: claim 'p.a': no row holds its value"}
    >>> check_complete(table, allow_unmeasured=["p.a"])
    >>> check_complete(table)
    Traceback (most recent call last):
    ...
    ppdp.report.verdicts.ResultsError: 1 problem in the results (the report judges no claim of them):
    nb.csv: claim 'p.a': no row holds its value
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
    gaps = attrs.get("gaps", {})
    problems = list(attrs.get("unlisted_lines", []))
    missing = table[(table["verdict"] == "not measured") & ~table["id"].isin(allowed)]
    for row in missing.itertuples(index=False):
        problems.append(
            gaps.get(
                row.id,
                f"{files.get(row.run, f'run {row.run!r}')}: claim {row.id!r}: not measured",
            )
        )
    if problems:
        raise ResultsError(problems)


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
    # the claims judged in both runs, which the report counts as compared
    both = set(table.loc[table["verdict"].isin((*judged, AMBIGUOUS)), "id"])
    both &= set(other.loc[other["verdict"].isin((*judged, AMBIGUOUS)), "id"])
    out.attrs = dict(table.attrs, compare=str(other_dir), compared=len(both))
    return out


def cause_counts(table: pd.DataFrame) -> pd.Series:
    """Claims not reproduced per cause kind (and ``"no cause given"``), from :func:`evaluate`."""
    missed = table.loc[table["verdict"] == "not reproduced", "cause"].replace("", "no cause given")
    return missed.value_counts().reindex([*CAUSES, "no cause given"], fill_value=0)
