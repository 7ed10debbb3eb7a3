"""The reproduction report: each paper's published claims beside the values this compendium measures.

``claims.yaml`` lists the claims. Each names the run whose tidy results hold the measured value (a row
with ``experiment == "claims"`` and ``metric`` equal to the claim's id) and a check that decides
whether the measured value reproduces the claim. The report is Markdown, one table per paper.

Every measured value comes with a 95% interval when the run gives one: the ``ci_low`` and
``ci_high`` columns of the claim's row, written by the experiment (e.g. a bootstrap over seeds),
otherwise a Student-t interval over the claim's per-seed rows when there are at least two. A check with
``basis: interval`` holds only if the whole interval is on the claimed side (an ordering that is
stable across seeds); by default (``basis: mean``) the check applies to the measured mean.

A claim that is not reproduced shows its ``cause`` from ``claims.yaml`` (:data:`CAUSES`: protocol,
data, budget, ambiguous, refuted or unstable, with the claims, notebook sections, benchmarks or runs
that show it), and the summary counts the misses per cause; ``--require-causes`` makes a miss
without one an error. ``--compare`` names a second run of the profile (another machine or BLAS
kernel): a claim reproduced in one run and not in the other is *unstable*, decided by neither;
``--fail-on-unstable`` makes any verdict that differs between the two runs an error unless the
claim's cause is ``unstable``.

A report is complete or it fails. ``claims.yaml`` states its number of claims (``n_claims``, before
the list, so that a file cut short keeps it), and :func:`load_claims` checks it. ``--complete``
(the pipeline's mode) also requires that count (or ``--expected-claims``), every run's results, a
claim for every run, a value for every claim (except those the profile's config lists as
``unmeasured``, which its parameters cannot measure) and a claim in ``claims.yaml`` for every
claims row of the results.

The report opens with the provenance of its numbers: the environment of every notebook run (Python,
key packages, the BLAS library and kernel, CPUs, git commit; ``results/<profile>/provenance/<run>.json``
written by ``python -m ppdp.report provenance`` after the run) and its wall time
(``results/<profile>/benchmarks/<run>.tsv`` written by Snakemake), flagging runs whose environments
differ.

Run it as ``python -m ppdp.report --claims claims.yaml --results results/default
--figures figures/default --profile default --config config/default.yaml --complete
--output reports/default/reproduction.md``. ``--publish-figures DIR`` copies the linked figures
(downscaled to at most 150 kB each) to ``DIR`` and links the copies, so that a committed report shows
its figures.
"""

from __future__ import annotations

import argparse
import csv
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ppdp.experiments.common import mean_halfwidth, parameter_labels, read_results
from ppdp.published import load_published
from ppdp.yamlfile import read_yaml

OPS = (">=", "<=", ">", "<", "==", "approx")
INTERVAL_OPS = (">=", "<=", ">", "<")
CHECK_KEYS = ("op", "value", "rel_tol", "abs_tol", "basis")
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
REQUIRED_KEYS = ("id", "paper", "notebook", "where", "statement", "published", "check")
OPTIONAL_KEYS = ("run", "unit", "figure", "note", "cause")
#: Why a claim does not reproduce (the ``kind`` of a claim's ``cause``):
#: ``protocol``: the authors ran something other than what the paper says (shown by their protocol);
#: ``data``: our data or encoding differs (shown by a sensitivity run over the plausible ones);
#: ``budget``: fewer seeds, epochs or steps than the paper (shown at the paper's scale or by a
#: flattened convergence curve); ``ambiguous``: the wording admits several readings (each judged);
#: ``refuted``: none of these explains it, and our evidence says the claim does not hold;
#: ``unstable``: the verdict differs between kernel settings, thread counts or clusterings (the
#: evidence names the runs); ``--fail-on-unstable`` accepts a verdict that differs between two runs
#: only for such a claim.
CAUSES = ("protocol", "data", "budget", "ambiguous", "refuted", "unstable")
CAUSE_KEYS = ("kind", "why", "evidence")
# the packages whose versions a run's provenance records (distribution names; the first installed
# of each tuple counts)
PACKAGES = (
    ("numpy",),
    ("scipy",),
    ("pandas",),
    ("scikit-learn",),
    ("cvxpy", "cvxpy-base"),
    ("highspy",),
    ("clarabel",),
    ("torch",),
    ("xgboost", "xgboost-cpu"),
)
# a published figure copied next to the committed report is downscaled to at most this size
MAX_FIGURE_BYTES = 150_000
PAPER_TITLES = {
    "datasets": "Datasets",
    "hyobscure": "HyObscure (hybrid generalization + obfuscation)",
    "mutual_cover": "Mutual Cover (random output tables)",
    "sppm": "SPPM (sparse privacy-preserving mappings)",
    "imposter": "IMPOSTER (implicit privacy, VAE-GAN)",
    "relay_chains": "Relay chains (increasing privacy along a path)",
}

#: Runs that judge no claim of the papers: the report shows their tables and figures instead.
RUNS_WITHOUT_CLAIMS = ("benchmark",)
#: Top-level keys of ``claims.yaml``; ``n_claims`` states the number of claims.
CLAIMS_FILE_KEYS = ("n_claims", "claims", "published", "summaries")


@dataclass(frozen=True)
class Check:
    """How a measured value is judged: ``value <op> threshold`` or approximately equal."""

    op: str
    value: float
    rel_tol: float = 0.0
    abs_tol: float = 0.0
    basis: str = "mean"

    def holds_interval(self, measured: float, low: float, high: float) -> bool:
        """The verdict: on the mean, or (``basis == "interval"``) on the interval's weaker end."""
        if self.basis == "mean":
            return self.holds(measured)
        if not (math.isfinite(low) and math.isfinite(high)):
            return False
        weak = low if self.op in (">=", ">") else high
        return self.holds(measured) and self.holds(weak)

    def holds(self, measured: float) -> bool:
        if not math.isfinite(measured):
            return False
        if self.op == ">=":
            return measured >= self.value
        if self.op == "<=":
            return measured <= self.value
        if self.op == ">":
            return measured > self.value
        if self.op == "<":
            return measured < self.value
        if self.op == "==":
            return measured == self.value
        # relative to the published value, not to the larger of the two as math.isclose does
        return abs(measured - self.value) <= max(self.rel_tol * abs(self.value), self.abs_tol)

    def describe(self) -> str:
        if self.op != "approx":
            text = f"{self.op} {_fmt(self.value)}"
            return text + " (whole interval)" if self.basis == "interval" else text
        tol = []
        if self.rel_tol:
            tol.append(f"{self.rel_tol:.0%}")
        if self.abs_tol:
            tol.append(f"{_fmt(self.abs_tol)}")
        return f"≈ {_fmt(self.value)} (± {' or '.join(tol)})"


@dataclass(frozen=True)
class Cause:
    """Why a claim does not reproduce, and where the evidence is.

    ``evidence`` holds claim ids of the same file, or paths relative to it (a notebook, optionally
    with ``#`` and the words of one of its headings, or a benchmark script or its README)."""

    kind: str
    why: str
    evidence: tuple[str, ...]

    def describe(self) -> str:
        refs = ", ".join(f"`{ref}`" for ref in self.evidence)
        return f"**{self.kind}**: {self.why} (evidence: {refs})"


@dataclass(frozen=True)
class Claim:
    """One quantitative or ordinal claim of a paper."""

    id: str
    paper: str
    notebook: str
    where: str
    statement: str
    published: Any
    check: Check
    run: str
    unit: str = ""
    figure: str | None = None
    note: str = ""
    cause: Cause | None = None


def load_claims(path: str | os.PathLike, *, require_count: bool = False) -> list[Claim]:
    """Read and validate ``claims.yaml``.

    Parameters
    ----------
    path
        The claims file: a mapping with ``claims`` (the list) and optionally ``n_claims`` (their
        number), ``published`` and ``summaries``.
    require_count
        ``n_claims`` must be given. Written before the list, it survives a file cut short, which
        a count taken from the list itself cannot reveal.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        When the file holds no claims, ``n_claims`` is not a positive integer, differs from the
        number of claims or (``require_count``) is missing, or an entry (named by its position and
        id) lacks a required key, has an unknown key, a key of the wrong type, repeats an id, has
        an invalid check, or an invalid cause (unknown kind, no reason, evidence that is neither a
        claim id nor an existing file and heading).
    """
    raw = read_yaml(path)
    if not isinstance(raw, dict) or "claims" not in raw or set(raw) - set(CLAIMS_FILE_KEYS):
        keys = sorted(map(str, raw)) if isinstance(raw, dict) else type(raw).__name__
        raise ValueError(
            f"{path}: expected a mapping with the key 'claims' (and optionally 'n_claims', "
            f"'published' and 'summaries'), got {keys}"
        )
    stated = raw.get("n_claims")
    if "n_claims" in raw and (
        isinstance(stated, bool) or not isinstance(stated, int) or stated < 1
    ):
        raise ValueError(f"{path}: 'n_claims' must be a positive integer, got {stated!r}")
    if stated is None and require_count:
        raise ValueError(
            f"{path} states no 'n_claims' (the number of claims, before 'claims:'); the "
            "pipeline's mode (--complete) needs it, or --expected-claims"
        )
    load_published(raw.get("published"), str(path))
    entries = raw["claims"]
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: 'claims' must be a non-empty list of claims, got {entries!r}")
    claims, seen = [], set()
    for position, entry in enumerate(entries):
        where = f"{path}: claim #{position + 1}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} must be a mapping, got {entry!r}")
        where += f" ({entry.get('id', '?')})"
        missing = [k for k in REQUIRED_KEYS if k not in entry]
        if missing:
            raise ValueError(f"{where} lacks the keys {missing}")
        unknown = set(entry) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS)
        if unknown:
            raise ValueError(
                f"{where}: unknown keys {sorted(map(str, unknown))}; allowed: "
                f"{REQUIRED_KEYS + OPTIONAL_KEYS}"
            )
        for key in ("id", "paper", "notebook", "where", "statement", *OPTIONAL_KEYS[:-1]):
            if key in entry and not (isinstance(entry[key], str) and entry[key].strip()):
                raise ValueError(f"{where}: {key!r} must be a non-empty string, got {entry[key]!r}")
        published = entry["published"]
        if isinstance(published, bool) or not isinstance(published, str | int | float):
            raise ValueError(
                f"{where}: 'published' must be a number or a string, got {published!r}"
            )
        if entry["id"] in seen:
            raise ValueError(f"{where}: the id {entry['id']!r} appears twice")
        seen.add(entry["id"])
        check = _load_check(entry["check"], where)
        claims.append(
            Claim(
                id=entry["id"],
                paper=entry["paper"],
                notebook=entry["notebook"],
                where=entry["where"],
                statement=entry["statement"],
                published=published,
                check=check,
                run=entry.get("run", entry["notebook"]),
                unit=entry.get("unit", ""),
                figure=entry.get("figure"),
                note=entry.get("note", ""),
                cause=_load_cause(entry["cause"], where) if "cause" in entry else None,
            )
        )
    # before the evidence: a truncated file's evidence may name claims that were cut off
    if stated is not None and stated != len(claims):
        last = f" (the last is {claims[-1].id!r})" if len(claims) < stated else ""
        raise ValueError(
            f"{path} holds {len(claims)} claims but states n_claims: {stated}{last}: is it "
            "truncated, or was n_claims not updated?"
        )
    base = Path(path).resolve().parent
    for claim in claims:
        if claim.cause is not None:
            for ref in claim.cause.evidence:
                _check_evidence(ref, seen, base, f"{path}: claim {claim.id!r}")
    return claims


def _load_cause(cause: Any, where: str) -> Cause:
    if not isinstance(cause, dict) or set(cause) != set(CAUSE_KEYS):
        raise ValueError(
            f"{where}: 'cause' must be a mapping with exactly the keys {list(CAUSE_KEYS)}, "
            f"got {cause!r}"
        )
    if cause["kind"] not in CAUSES:
        raise ValueError(
            f"{where}: cause kind must be one of {list(CAUSES)}, got {cause['kind']!r}"
        )
    if not isinstance(cause["why"], str) or not cause["why"].strip():
        raise ValueError(f"{where}: cause 'why' must be a non-empty string, got {cause['why']!r}")
    evidence = cause["evidence"]
    if (
        not isinstance(evidence, list)
        or not evidence
        or not all(isinstance(e, str) and e.strip() for e in evidence)
    ):
        raise ValueError(
            f"{where}: cause 'evidence' must be a non-empty list of claim ids or paths, "
            f"got {evidence!r}"
        )
    return Cause(cause["kind"], " ".join(cause["why"].split()), tuple(evidence))


def _check_evidence(ref: str, ids: set[str], base: Path, where: str) -> None:
    """A claim id of the file, or an existing file (relative to it) and, after ``#``, words of one
    of its headings (Markdown headings, of the notebook's markdown cells for a notebook)."""
    if ref in ids:
        return
    name, _, heading = ref.partition("#")
    target = base / name
    if not name or not target.is_file():
        raise ValueError(
            f"{where}: cause evidence {ref!r} is neither a claim id of this file nor an existing "
            f"file relative to it"
        )
    if not heading:
        return
    if target.suffix == ".ipynb":
        cells = json.loads(target.read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = target.read_text()
    headings = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    if not any(heading.strip().lower() in h.lower() for h in headings):
        raise ValueError(f"{where}: cause evidence {ref!r}: {name} has no heading {heading!r}")


_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+)\}")


def load_summaries(path: str | os.PathLike, claims: list[Claim]) -> dict[str, str]:
    """The ``summaries`` of ``claims.yaml``: per paper, a paragraph that opens its section.

    A summary may cite a claim's measured value as ``{claim_id}`` (filled by
    :func:`fill_summary`). Raises ValueError when ``summaries`` is not a mapping of papers to
    non-empty strings, or a placeholder names no claim of that file."""
    raw = read_yaml(path)
    summaries = raw.get("summaries") or {}
    if not isinstance(summaries, dict):
        raise ValueError(f"{path}: 'summaries' must map papers to paragraphs, got {summaries!r}")
    ids = {c.id for c in claims}
    papers = {c.paper for c in claims}
    for paper, text in summaries.items():
        if paper not in papers:
            raise ValueError(f"{path}: summaries has the paper {paper!r}, which has no claim")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path}: the summary of {paper!r} must be a non-empty string")
        unknown = [name for name in _PLACEHOLDER.findall(text) if name not in ids]
        if unknown:
            raise ValueError(f"{path}: the summary of {paper!r} cites unknown claims {unknown}")
    return {str(k): " ".join(v.split()) for k, v in summaries.items()}


def fill_summary(text: str, claims: list[Claim], table: pd.DataFrame) -> str:
    """``text`` with every ``{claim_id}`` replaced by the claim's measured value, its unit and
    its interval (a dash when the claim has not been measured)."""
    by_id = {c.id: c for c in claims}
    rows = table.set_index("id")

    def value(match: re.Match) -> str:
        claim = by_id[match.group(1)]
        if claim.id not in rows.index or math.isnan(rows.loc[claim.id, "measured"]):
            return "—"
        row = rows.loc[claim.id]
        unit = "" if not claim.unit else ("%" if claim.unit == "%" else f" {claim.unit}")
        out = f"{_fmt(row['measured'])}{unit}"
        if math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"]):
            out += f" [{_fmt(row['ci_low'])}, {_fmt(row['ci_high'])}]"
        return out

    return _PLACEHOLDER.sub(value, text)


def _load_check(check: Any, where: str) -> Check:
    if not isinstance(check, dict) or check.get("op") not in OPS or "value" not in check:
        raise ValueError(
            f"{where}: check must be {{op: one of {OPS}, value: number}}, got {check!r}"
        )
    unknown = set(check) - set(CHECK_KEYS)
    if unknown:
        # YAML 1.1 reads a bare `on`/`yes`/`no` key as a boolean: catch that and typos alike
        raise ValueError(
            f"{where}: unknown check keys {sorted(map(str, unknown))}; allowed: {CHECK_KEYS}"
        )
    for key in ("value", "rel_tol", "abs_tol"):
        number = check.get(key, 0.0)
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise ValueError(f"{where}: check {key!r} must be a number, got {number!r}")
        if not math.isfinite(number) or (key != "value" and number < 0):
            raise ValueError(
                f"{where}: check {key!r} must be finite{'' if key == 'value' else ' and >= 0'}, "
                f"got {number!r}"
            )
    if check["op"] == "approx" and not (check.get("rel_tol") or check.get("abs_tol")):
        raise ValueError(f"{where}: an 'approx' check needs rel_tol or abs_tol")
    basis = check.get("basis", "mean")
    if basis not in ("mean", "interval") or (
        basis == "interval" and check["op"] not in INTERVAL_OPS
    ):
        raise ValueError(
            f"{where}: check 'basis' must be 'mean', or 'interval' with one "
            f"of {INTERVAL_OPS}; got basis={basis!r} with op={check['op']!r}"
        )
    return Check(
        op=check["op"],
        value=float(check["value"]),
        rel_tol=float(check.get("rel_tol", 0.0)),
        abs_tol=float(check.get("abs_tol", 0.0)),
        basis=basis,
    )


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


def collect_provenance(repo: str | os.PathLike | None = None) -> dict[str, Any]:
    """The environment a computation runs in: Python, key packages, BLAS, CPUs, git state.

    ``repo`` is the compendium's folder whose git commit is recorded ("unknown" without git or
    outside a repository). Importing numpy and scipy loads their BLAS libraries, which
    threadpoolctl then describes: the library, its version, the CPU kernel it selected and its
    thread count, which together decide the last bits of every linear-algebra result.
    """
    import numpy  # noqa: F401  (loads its BLAS for threadpoolctl)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    packages = {}
    for names in PACKAGES:
        version = "not installed"
        for name in names:
            try:
                version = importlib.metadata.version(name)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
        packages[names[0]] = version
    blas = []
    for lib in threadpool_info():
        if lib.get("user_api") != "blas":
            continue
        # the wheel that bundles the library (numpy.libs, scipy.libs), never a machine path
        folder = Path(lib.get("filepath") or "").parent.name
        blas.append(
            {
                "owner": folder.removesuffix(".libs") if folder.endswith(".libs") else "",
                "internal_api": lib.get("internal_api"),
                "version": lib.get("version"),
                "kernel": lib.get("architecture") or lib.get("threading_layer") or "unknown",
                "num_threads": lib.get("num_threads"),
            }
        )
    blas.sort(key=lambda b: (b["owner"], str(b["internal_api"]), str(b["version"])))
    affinity = getattr(os, "sched_getaffinity", None)
    return {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "packages": packages,
        "blas": blas,
        "torch_cpu": torch_cpu_capability(),
        # PyTorch's MKL picks its matrix kernels by the CPU's vendor unless MKL_CBWR fixes a branch
        "mkl_cbwr": os.environ.get("MKL_CBWR", "") or "unset",
        "cpu_model": cpu_model(),
        "numpy_simd": numpy_simd_targets(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(affinity(0)) if affinity else os.cpu_count(),
        "git": git_state(repo),
        "recorded_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else the processor or machine type that
    :mod:`platform` reports (ARM's ``/proc/cpuinfo`` names no model)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def torch_cpu_capability() -> str:
    """The CPU kernels PyTorch dispatches to (``"AVX2"``, ``"AVX512"``, ...), or "not installed".

    PyTorch picks its kernels by the best instruction set of the machine unless the environment
    variable ``ATEN_CPU_CAPABILITY`` caps it; the kernels round differently, so a network trained
    with the same seed differs between an AVX2 and an AVX512 machine (IMPOSTER's releases do).
    The Makefile caps it at ``avx2`` on x86-64 machines with AVX2 so that they all train alike.
    """
    if importlib.util.find_spec("torch") is None:
        return "not installed"
    import torch

    return str(torch.backends.cpu.get_cpu_capability())


def numpy_simd_targets() -> str:
    """The instruction sets numpy dispatches its loops to beyond its baseline (``"X86_V3"``, ...).

    Like PyTorch, numpy picks the widest its machine offers (``NPY_DISABLE_CPU_FEATURES`` caps
    them), and its AVX512 loops for ``log``, ``exp`` and reductions round differently from its
    AVX2 ones.
    """
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return "unknown"
    used = [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]
    return " ".join(used) or "baseline only"


#: git pathspecs of the published report, excluded from the provenance's "clean" check.
PUBLISHED_OUTPUTS = (":(exclude)reports/reproduction.md", ":(exclude)reports/figures")


def git_state(repo: str | os.PathLike | None) -> dict[str, Any]:
    cmd = ["git", "-C", str(repo or ".")]
    try:
        head = subprocess.run(
            [*cmd, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30
        )
        # the committed report and its figures are this pipeline's own outputs (Snakemake removes
        # them before it rewrites them): they never make the tree that produced them unclean
        status = subprocess.run(
            [*cmd, "status", "--porcelain", "--untracked-files=no", "--", ".", *PUBLISHED_OUTPUTS],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return {"commit": "unknown", "clean": "unknown"}
    if head.returncode != 0 or status.returncode != 0:
        return {"commit": "unknown", "clean": "unknown"}
    return {"commit": head.stdout.strip(), "clean": not status.stdout.strip()}


def write_provenance(
    output: str | os.PathLike, *, repo: str | os.PathLike | None = None, **fields: Any
) -> dict[str, Any]:
    """Write :func:`collect_provenance` of ``repo`` plus ``fields`` (run, profile, ...) as JSON,
    atomically."""
    record = {**fields, **collect_provenance(repo)}
    _write_atomic(Path(output), json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def load_provenance(results_dir: str | os.PathLike, runs: Iterable[str]) -> dict[str, dict]:
    """Each run's provenance (``provenance/<run>.json``) with its wall time in seconds
    (``benchmarks/<run>.tsv``, column ``s``); ``{}`` for a run that recorded none."""
    results_dir = Path(results_dir)
    out = {}
    for run in runs:
        record: dict[str, Any] = {}
        path = results_dir / "provenance" / f"{run}.json"
        if path.exists():
            try:
                record = json.loads(path.read_text())
            except json.JSONDecodeError as error:
                raise ValueError(f"run {run!r}: {path} is not valid JSON: {error}") from error
        bench = results_dir / "benchmarks" / f"{run}.tsv"
        if bench.exists():
            with open(bench, newline="") as handle:
                rows = list(csv.DictReader(handle, delimiter="\t"))
            try:
                record["wall_s"] = float(rows[0]["s"])
            except (IndexError, KeyError, ValueError) as error:
                raise ValueError(f"run {run!r}: {bench} has no wall time 's': {error}") from error
        out[run] = record
    return out


def _environment_rows(env: dict[str, Any]) -> dict[str, str]:
    """The properties of an environment that the report compares, as display strings."""
    if not env or "python" not in env:
        return {}
    git = env.get("git", {})
    commit = str(git.get("commit", "unknown"))
    if commit != "unknown":
        commit = commit[:10] + ("" if git.get("clean") is True else " (uncommitted changes)")
    blas = "; ".join(
        f"{b['owner'] + ': ' if b.get('owner') else ''}{b.get('internal_api')} {b.get('version')} "
        f"({b.get('kernel')}, {b.get('num_threads')} thread{'' if b.get('num_threads') == 1 else 's'})"
        for b in env.get("blas", [])
    )
    rows = {"Python": f"{env['python']} ({env.get('platform', '')})"}
    packages = env.get("packages", {})
    rows["packages"] = ", ".join(
        f"{name} {packages[name]}" for (name, *_) in PACKAGES if name in packages
    )
    rows["BLAS"] = blas or "none found"
    rows["numpy SIMD"] = str(env.get("numpy_simd", "not recorded"))
    rows["PyTorch CPU kernels"] = str(env.get("torch_cpu", "not recorded"))
    rows["MKL branch (MKL_CBWR)"] = str(env.get("mkl_cbwr", "not recorded"))
    rows["CPU"] = str(env.get("cpu_model", "not recorded"))
    rows["CPUs"] = f"{env.get('cpus_usable')} usable of {env.get('cpu_count')}"
    rows["git commit"] = commit
    return rows


def render_provenance(provenance: dict[str, dict], report_env: dict[str, Any]) -> list[str]:
    """Markdown lines: the runs' environment beside the report's, the runs that differ flagged,
    and each run's wall time."""
    runs = {run: _environment_rows(rec) for run, rec in provenance.items()}
    recorded = {run: rows for run, rows in runs.items() if rows}
    mine = _environment_rows(report_env)
    lines = ["## Provenance", ""]
    missing = sorted(set(runs) - set(recorded))
    if missing:
        lines += [f"Runs without a recorded environment: {', '.join(missing)}.", ""]
    differ = []
    lines += ["| | notebook runs | this report |", "|---|---|---|"]
    for key, own in mine.items():
        values: dict[str, list[str]] = {}
        for run, rows in recorded.items():
            values.setdefault(rows.get(key, "unknown"), []).append(run)
        if len(values) > 1:
            differ.append(key)
            cell = "**differ**: " + "; ".join(
                f"{value} ({', '.join(names)})" for value, names in values.items()
            )
        else:
            cell = next(iter(values), "—")
        lines.append(f"| {key} | {_cell(cell)} | {'same' if cell == own else _cell(own)} |")
    walls = [
        f"{run} {_duration(rec['wall_s'])}" if "wall_s" in rec else f"{run} unknown"
        for run, rec in provenance.items()
    ]
    lines += ["", "Wall time per run: " + ", ".join(walls) + "."]
    if differ:
        lines += [
            "",
            f"**Warning:** the notebook runs did not all run in the same environment "
            f"({', '.join(differ)}): a verdict that differs between runs may come from that.",
        ]
    lines.append("")
    return lines


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def render(
    claims: list[Claim],
    table: pd.DataFrame,
    *,
    profile: str,
    figures_dir: str | os.PathLike | None = None,
    output: str | os.PathLike | None = None,
    provenance: list[str] | None = None,
    extra: list[str] | None = None,
    summaries: dict[str, str] | None = None,
) -> str:
    """Markdown report; figure links are relative to ``output``'s folder; ``provenance``: the
    lines of :func:`render_provenance`; ``extra``: sections after the papers' (the benchmark's,
    :func:`render_benchmark`); ``summaries``: per paper, the paragraph that opens its section
    (:func:`load_summaries`)."""
    by_id = {c.id: c for c in claims}
    counts = table["verdict"].value_counts().reindex([*VERDICTS, UNSTABLE, AMBIGUOUS], fill_value=0)
    lines = [
        f"# Reproduction report: profile `{profile}`",
        "",
        "Each row sets a paper's published claim beside the value measured by this compendium's "
        "pipeline for this profile. *Check* is the rule that decides the verdict; *measured* is the "
        "mean over the run's seeds (*n* values) with its 95% interval in brackets: the experiment's "
        "own (a bootstrap over seeds) or a t-interval over the *n* values. A check marked *whole "
        "interval* holds only if the entire interval is on the claimed side, i.e. the ordering is "
        "stable across seeds. Smaller profiles run fewer seeds on smaller data, so their verdicts "
        "are indicative only.",
        "",
        "Summary: "
        + ", ".join(
            f"{counts[v]} {v}"
            for v in (*VERDICTS, UNSTABLE, AMBIGUOUS)
            if v in VERDICTS or counts[v]
        )
        + f" (of {len(table)} claims).",
        "",
    ]
    marked = [c.id for c in claims if c.cause and c.cause.kind == "unstable"]
    if marked:
        lines += [
            f"{len(marked)} claims are marked *unstable* in claims.yaml: their verdicts differed "
            "between kernel settings or clusterings of this profile, so this run's verdict on them "
            "decides nothing; the *why* column gives the runs: "
            + ", ".join(f"`{cid}`" for cid in marked)
            + ".",
            "",
        ]
    if counts[AMBIGUOUS]:
        lines += [
            f"{counts[AMBIGUOUS]} claims are *ambiguous*: the paper leaves a setting unstated, and "
            "the verdict differs over its plausible values (each value's measurement is shown "
            "after *across*, and the *why* column says which setting and why that range).",
            "",
        ]
    if counts[UNSTABLE]:
        lines += [
            f"{counts[UNSTABLE]} claims are *unstable*: reproduced in one of two runs of this "
            f"profile and not in the other ({table.attrs.get('compare', 'the compared run')}); "
            "neither run decides them.",
            "",
        ]
    if counts["not reproduced"]:
        by_cause = cause_counts(table)
        lines += [
            "Not reproduced, by cause: "
            + ", ".join(f"{by_cause[k]} {k}" for k in (*CAUSES, "no cause given") if by_cause[k])
            + ". The *why* column gives each one's reason and the claims, notebook sections or "
            "benchmarks that show it: *protocol* (the authors ran something other than the "
            "paper says), *data* (our data or encoding differs), *budget* (fewer seeds, epochs or "
            "steps than the paper), *ambiguous* (the wording admits several readings, each judged), "
            "*refuted* (none of these explains it), *unstable* (the verdict differs between kernel "
            "settings, thread counts or clusterings).",
            "",
        ]
    if counts["not yet run"]:
        lines += [
            f"**Warning:** {counts['not yet run']} claims are not yet run: this report is partial.",
            "",
        ]
    lines += [f"**Warning:** {_cell(note)}" + "\n" for note in table.attrs.get("warnings", [])]
    lines += provenance or []
    base = Path(output).parent if output else Path(".")
    for paper, block in table.groupby("paper", sort=False):
        lines += [f"## {PAPER_TITLES.get(paper, paper)}", ""]
        if summaries and paper in summaries:
            lines += [fill_summary(summaries[paper], claims, table), ""]
        lines += [
            "| claim | where | statement | published | check | measured | n | verdict | why | "
            "figure |"
        ]
        lines += ["|---|---|---|---|---|---|---|---|---|---|"]
        for row in block.itertuples(index=False):
            claim = by_id[row.id]
            unit = f" {claim.unit}" if claim.unit else ""
            measured = "—" if math.isnan(row.measured) else f"{_fmt(row.measured)}{unit}"
            if math.isfinite(row.ci_low) and math.isfinite(row.ci_high):
                measured += f" [{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"
            if getattr(row, "across", ""):
                measured += f"; across {row.across}"
            verdict = row.verdict if not row.detail else f"{row.verdict} ({row.detail})"
            link = ""
            if claim.figure and figures_dir is not None:
                target = Path(figures_dir) / claim.run / f"{claim.figure}.png"
                link = f"[{claim.figure}]({_relpath(target, base)})"
            published = (
                f"{claim.published}{unit}"
                if isinstance(claim.published, int | float)
                else str(claim.published)
            )
            cells = [
                f"`{row.id}`",
                row.where,
                _cell(row.statement),
                _cell(published),
                row.check,
                measured,
                str(row.n),
                verdict,
                # an unstable claim's cause stands beside whichever verdict this run gave it
                _cell(claim.cause.describe())
                if claim.cause
                and (row.verdict in ("not reproduced", AMBIGUOUS) or claim.cause.kind == "unstable")
                else "",
                link,
            ]
            lines.append("| " + " | ".join(cells) + " |")
        notes = [(c.id, c.note) for c in claims if c.paper == paper and c.note]
        if notes:
            lines += ["", "Notes:"]
            lines += [f"- `{cid}`: {_cell(note)}" for cid, note in notes]
        lines.append("")
    lines += extra or []
    return "\n".join(lines)


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


def _benchmark_figure_names(dataset: str) -> list[str]:
    """The benchmark notebook's planes of ``dataset``: the protected attribute's (task AUC, then
    count-query error), then one per further private attribute."""
    from ppdp.experiments.benchmark import load_roles

    _, *others = load_roles()[dataset]["private"]
    return [
        f"plane_{dataset}",
        f"plane_{dataset}_queries",
        *(f"plane_{dataset}_{p}" for p in others),
    ]


def benchmark_figures(results_dir: str | os.PathLike, run: str = "benchmark") -> list[str]:
    """Names of the figures :func:`render_benchmark` links for the datasets the run measured."""
    csv_path = Path(results_dir) / f"{run}.csv"
    if not csv_path.exists():
        return []
    frame = read_results(csv_path)
    datasets = sorted(
        {e.removeprefix("benchmark_") for e in frame["experiment"] if e.startswith("benchmark_")}
    )
    return [name for d in datasets for name in _benchmark_figure_names(d)]


def render_benchmark(
    results_dir: str | os.PathLike,
    *,
    figures_dir: str | os.PathLike | None,
    base: Path,
    run: str = "benchmark",
    thresholds: Iterable[float] | None = None,
) -> list[str]:
    """The report's *Benchmark* section: the threat models, the leaderboard per dataset, the
    columns each mechanism leaves untouched, the time per mechanism and links to the
    privacy-utility planes (no claims are judged). Empty if the run has no CSV."""
    from ppdp.experiments import benchmark as bm

    csv_path = Path(results_dir) / f"{run}.csv"
    if not csv_path.exists():
        return []
    thresholds = tuple(bm.RISK_THRESHOLDS if thresholds is None else thresholds)
    frame = read_results(csv_path)
    seeds = sorted(set(frame.loc[frame["seed"] >= 0, "seed"]))
    lines = [
        "## Benchmark (every mechanism, the same data and attackers)",
        "",
        "No published claim is judged here. Every mechanism that fits a dataset releases it at a "
        "few privacy levels; one attacker suite and one utility suite score every release "
        f"(notebook `benchmark`, {len(seeds)} seeds, each with its own subsample and a 40/40/20 "
        "split into released people, the attacker's auxiliary records and controls).",
        "",
        "Threat models. Every targeted attacker targets a person known to be in the release, "
        "knows the target's true quasi-identifiers and wants the target's private value; it is "
        "scored by AUC on released targets and, with the same attack, on controls outside the "
        "release. An attacker's advantage is its AUC on the targets minus that of the no-release "
        "baseline; the risk of a release is the largest advantage over the suite, and at least 0.",
        "",
        "| attacker | knows | wants |",
        "|---|---|---|",
        *(
            f"| {name} | {_cell(model['knows'])} | {_cell(model['wants'])} |"
            for name, model in bm.load_threat_models().items()
        ),
        "",
        "Each leaderboard cell is the best task AUC (trained on the release with the private "
        "columns among its features, tested on held-out real rows) among a mechanism's levels "
        "whose risk interval lies under the threshold (the upper end of its 95% interval over "
        "seeds), with the utility's half-width, the level, that upper end and the attacker that "
        "bound it; empty where no level qualifies. `none` is the unprotected table, `suppressed` "
        "the private columns suppressed, `nothing` nothing released. On MovieLens the HyObscure "
        "family protects age, the other mechanisms gender.",
        "",
    ]
    for experiment in sorted({e for e in frame["experiment"] if e.startswith("benchmark_")}):
        dataset = experiment.removeprefix("benchmark_")
        lines += [f"### {dataset}", ""]
        for private in bm.load_roles()[dataset]["private"]:
            board = bm.leaderboard(frame, dataset, private=private, thresholds=thresholds)
            if board.empty:
                continue
            lines += [f"Attacker's target: `{private}`.", ""]
            lines += ["| " + " | ".join(board.columns) + " |"]
            lines += ["|" + "---|" * len(board.columns)]
            lines += [
                "| " + " | ".join(_cell(str(v)) for v in row) + " |"
                for row in board.itertuples(index=False)
            ]
            lines.append("")
        coverage = bm.coverage_table(frame)
        coverage = coverage[(coverage["dataset"] == dataset) & (coverage["untouched"] != "")]
        if len(coverage):
            lines += [
                "Columns left exactly as they were at every level (not protected by the "
                "mechanism's model): "
                + "; ".join(f"{r.mechanism}: {r.untouched}" for r in coverage.itertuples())
                + ".",
                "",
            ]
        links = []
        for fig in _benchmark_figure_names(dataset):
            if figures_dir is not None:
                target = Path(figures_dir) / run / f"{fig}.png"
                links.append(f"[{fig}]({_relpath(target, base)})")
        if links:
            lines += ["Figures: " + ", ".join(links) + "."]
        lines.append("")
    times = bm.time_table(frame)
    lines += ["Mean seconds of fit and release per mechanism:", ""]
    lines += ["| dataset | mechanism | mean s | max s | releases |", "|---|---|---|---|---|"]
    lines += [
        f"| {r.dataset} | {r.method} | {r.mean_seconds:.2f} | {r.max_seconds:.2f} | {r.releases} |"
        for r in times.itertuples(index=False)
    ]
    lines.append("")
    return lines


def build_report(
    claims_path,
    results_dir,
    output,
    *,
    profile: str,
    figures_dir=None,
    runs: Iterable[str] | None = None,
    complete: bool = False,
    expected_claims: int | None = None,
    publish_figures=None,
    require_causes: bool = False,
    compare=None,
    allow_unmeasured: Iterable[str] = (),
    strict_compare: bool = False,
) -> pd.DataFrame:
    """Load claims, evaluate them against ``results_dir`` and write the Markdown report atomically.

    Parameters
    ----------
    runs
        The profile's runs, as in :func:`evaluate`.
    complete
        The pipeline's mode: :func:`evaluate`'s, and the claims file must state its number of
        claims (``n_claims``) unless ``expected_claims`` is given, and the table must pass
        :func:`check_complete` (every claim measured, every claims row of the results listed).
    expected_claims
        The number of claims the file must hold, checked besides its own ``n_claims``.
    publish_figures
        A folder that receives a copy of every linked figure, downscaled to at most
        :data:`MAX_FIGURE_BYTES`; the report links the copies.
    require_causes
        A claim that is not reproduced and has no ``cause`` is an error.
    compare
        The results folder of a second run of the same profile (another machine or BLAS kernel,
        say): a claim reproduced in one run and not in the other becomes :data:`UNSTABLE`
        (:func:`mark_unstable`).
    allow_unmeasured
        Ids of claims that the profile's parameters cannot measure: checked by
        :func:`check_complete` when ``complete``, and said so beside them in the report.
    strict_compare
        With ``compare``: a claim whose verdict differs between the two runs
        (:func:`verdict_differences`) is an error unless its cause's kind is ``unstable``.

    Raises
    ------
    ValueError, FileNotFoundError
        See :func:`load_claims`, :func:`evaluate` and :func:`check_complete`; also when the number
        of claims differs from ``expected_claims``, a verdict differs between the runs
        (``strict_compare``), a linked figure is missing while ``complete`` or publishing, or
        (``require_causes``) a claim not reproduced has no cause; no report is written then.
    """
    if strict_compare and compare is None:
        raise ValueError(
            "strict_compare=True (--fail-on-unstable) needs compare (--compare OTHER_RESULTS)"
        )
    claims = load_claims(claims_path, require_count=complete and expected_claims is None)
    summaries = load_summaries(claims_path, claims)
    if expected_claims is not None and len(claims) != expected_claims:
        raise ValueError(
            f"{claims_path} holds {len(claims)} claims, expected {expected_claims} "
            "(--expected-claims): is it truncated?"
        )
    table = evaluate(claims, results_dir, runs=runs, complete=complete)
    allowed = list(allow_unmeasured)
    if complete:
        check_complete(table, allow_unmeasured=allowed)
    is_allowed = table["id"].isin(allowed) & (table["verdict"] == "not measured")
    table.loc[is_allowed, "detail"] = "this profile's parameters do not measure it"
    if compare is not None:
        other = evaluate(claims, compare, runs=runs)
        if strict_compare:
            differ = verdict_differences(table, other)
            differ = differ[differ["cause"] != "unstable"]
            if len(differ):
                pairs = [
                    f"{r.id} ({r.verdict} here, {r.other_verdict} in {compare})"
                    for r in differ.itertuples(index=False)
                ]
                raise ValueError(
                    f"{len(differ)} claims have verdicts that differ between {results_dir} and "
                    f"{compare} and no cause of kind 'unstable' (--fail-on-unstable): "
                    + "; ".join(pairs)
                )
        table = mark_unstable(table, other, compare)
    if require_causes:
        missed = table["verdict"].isin(["not reproduced", AMBIGUOUS])
        uncaused = table.loc[missed & (table["cause"] == ""), "id"]
        if len(uncaused):
            raise ValueError(
                f"{len(uncaused)} claims are not reproduced or ambiguous and {claims_path} gives no "
                f"cause for "
                f"them (--require-causes): {', '.join(uncaused)}; add a 'cause' with its kind "
                f"({', '.join(CAUSES)}), why, and evidence"
            )
    run_names = list(runs) if runs is not None else list(dict.fromkeys(c.run for c in claims))
    if figures_dir is not None:
        linked = sorted({(c.run, c.figure, c.id) for c in claims if c.figure})
        missing = [
            (cid, Path(figures_dir) / run / f"{fig}.png")
            for run, fig, cid in linked
            if not (Path(figures_dir) / run / f"{fig}.png").exists()
        ]
        if missing and (complete or publish_figures is not None):
            cid, path = missing[0]
            raise FileNotFoundError(
                f"claim {cid!r}: its figure {str(path)!r} does not exist"
                + (f" (and {len(missing) - 1} more missing figures)" if len(missing) > 1 else "")
            )
        extra_figures = {
            (run, fig)
            for run in run_names
            if run in RUNS_WITHOUT_CLAIMS
            for fig in benchmark_figures(results_dir, run)
        }
        if publish_figures is not None:
            copy_figures(
                {(run, fig) for run, fig, _ in linked} | extra_figures, figures_dir, publish_figures
            )
            figures_dir = publish_figures
    text = render(
        claims,
        table,
        profile=profile,
        figures_dir=figures_dir,
        output=output,
        provenance=render_provenance(
            load_provenance(results_dir, run_names),
            collect_provenance(Path(claims_path).resolve().parent),
        ),
        extra=[
            line
            for run in run_names
            if run in RUNS_WITHOUT_CLAIMS
            for line in render_benchmark(
                results_dir, figures_dir=figures_dir, base=Path(output).parent, run=run
            )
        ],
        summaries=summaries,
    )
    _write_atomic(Path(output), text)
    return table


def copy_figures(
    figures: Iterable[tuple[str, str]],
    source: str | os.PathLike,
    target: str | os.PathLike,
    max_bytes: int = MAX_FIGURE_BYTES,
) -> int:
    """Copy ``source/<run>/<name>.png`` to ``target/<run>/<name>.png`` for each (run, name),
    downscaled when larger than ``max_bytes``; remove other PNGs under ``target``. Returns the
    total size in bytes."""
    source, target = Path(source), Path(target)
    wanted = {target / run / f"{name}.png" for run, name in figures}
    for stale in target.glob("*/*.png"):
        if stale not in wanted:
            stale.unlink()
    total = 0
    for run, name in sorted(figures):
        dst = target / run / f"{name}.png"
        dst.parent.mkdir(parents=True, exist_ok=True)
        data = _shrink_png(source / run / f"{name}.png", max_bytes)
        tmp = dst.with_name(f".{dst.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, dst)
        total += len(data)
    return total


def _shrink_png(path: Path, max_bytes: int) -> bytes:
    """The PNG's bytes, or a palette-quantized and if need be downscaled copy of at most
    ``max_bytes``."""
    import io

    from PIL import Image

    data = path.read_bytes()
    if len(data) <= max_bytes:
        return data
    with Image.open(path) as image:
        image = image.convert("RGB")
    scale = 1.0
    for _ in range(12):
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        frame = image if scale == 1.0 else image.resize(size, Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        # a plot has few colours: a 256-colour palette keeps it legible at a fraction of the size
        frame.quantize(colors=256, dither=Image.Dither.NONE).save(buffer, "PNG", optimize=True)
        if buffer.tell() <= max_bytes:
            return buffer.getvalue()
        scale *= min(0.9, math.sqrt(max_bytes / buffer.tell()))
    raise ValueError(f"{path}: cannot shrink below {max_bytes} bytes")


def _write_atomic(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, target)


def _fmt(value: float) -> str:
    value = float(value)
    if value == int(value) and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.4g}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _relpath(target: Path, base: Path) -> str:
    return Path(os.path.relpath(target, base)).as_posix()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["provenance"]:
        return _main_provenance(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.report",
        description=__doc__.splitlines()[0]
        + " (`python -m ppdp.report provenance --help`: record a run's environment)",
    )
    parser.add_argument("--claims", required=True, help="claims.yaml")
    parser.add_argument("--results", required=True, help="folder with <run>.csv tidy results")
    parser.add_argument("--output", required=True, help="Markdown file to write")
    parser.add_argument("--profile", required=True, help="profile name shown in the title")
    parser.add_argument("--figures", default=None, help="folder with <run>/<figure>.png")
    runs = parser.add_mutually_exclusive_group()
    runs.add_argument("--config", default=None, help="the profile's config: its runs")
    runs.add_argument("--runs", nargs="+", default=None, help="the profile's runs")
    parser.add_argument(
        "--complete",
        action="store_true",
        help="the pipeline's mode: every run must have its results, every claim a value, every "
        "claims row of the results a claim, and the claims file its stated n_claims",
    )
    parser.add_argument(
        "--expected-claims",
        type=int,
        default=None,
        help="number of claims (besides the claims file's own n_claims)",
    )
    parser.add_argument(
        "--allow-unmeasured",
        nargs="+",
        default=[],
        metavar="CLAIM",
        help="claims that this profile's parameters cannot measure (with --config: also its "
        "runs' `unmeasured`)",
    )
    parser.add_argument(
        "--publish-figures", default=None, help="copy the linked figures here and link the copies"
    )
    parser.add_argument(
        "--compare",
        default=None,
        help="results folder of a second run of the profile: claims whose verdicts differ "
        "between the two runs are marked unstable",
    )
    parser.add_argument(
        "--fail-on-unstable",
        action="store_true",
        help="with --compare: a verdict that differs between the two runs is an error unless the "
        "claim's cause is `unstable`",
    )
    parser.add_argument(
        "--require-causes",
        action="store_true",
        help="a claim that is not reproduced must have a cause in the claims file",
    )
    args = parser.parse_args(argv)
    if args.fail_on_unstable and args.compare is None:
        parser.error("--fail-on-unstable needs --compare OTHER_RESULTS")
    try:
        run_names, unmeasured = args.runs, list(args.allow_unmeasured)
        if args.config is not None:
            run_names = _config_runs(args.config)
            unmeasured += _config_unmeasured(args.config)
        table = build_report(
            args.claims,
            args.results,
            args.output,
            profile=args.profile,
            figures_dir=args.figures,
            runs=run_names,
            complete=args.complete,
            expected_claims=args.expected_claims,
            publish_figures=args.publish_figures,
            require_causes=args.require_causes,
            compare=args.compare,
            allow_unmeasured=unmeasured,
            strict_compare=args.fail_on_unstable,
        )
    except (ValueError, FileNotFoundError) as error:
        print(f"python -m ppdp.report: error: {error}", file=sys.stderr)
        return 1
    counts = table["verdict"].value_counts()
    shown = [*VERDICTS, *(v for v in (UNSTABLE, AMBIGUOUS) if counts.get(v, 0))]
    print(f"{args.output}: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in shown), file=sys.stderr)
    if counts.get("not yet run", 0):
        print(f"warning: {counts['not yet run']} claims are not yet run", file=sys.stderr)
    for note in table.attrs.get("warnings", []):
        print(f"warning: {note}", file=sys.stderr)
    return 0


def _config_runs(path: str | os.PathLike) -> list[str]:
    return list(_config(path)["runs"])


def _config_unmeasured(path: str | os.PathLike) -> list[str]:
    """The claims a profile cannot measure: the ``unmeasured`` lists of its runs."""
    out = []
    for run, spec in _config(path)["runs"].items():
        ids = spec.get("unmeasured", []) if isinstance(spec, dict) else []
        if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
            raise ValueError(
                f"--config {path}: runs.{run}.unmeasured must be a list of claim ids, got {ids!r}"
            )
        out += ids
    return out


def _config(path: str | os.PathLike) -> dict:
    config = read_yaml(path)
    if not isinstance(config, dict) or not isinstance(config.get("runs"), dict):
        raise ValueError(f"--config {path}: expected a profile config with a 'runs' mapping")
    return config


def _main_provenance(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.report provenance",
        description="Record the environment of a notebook run as JSON.",
    )
    parser.add_argument("--output", required=True, help="JSON file to write")
    parser.add_argument("--run", required=True, help="the run's name")
    parser.add_argument("--profile", required=True, help="the run's profile")
    parser.add_argument("--repo", default=".", help="the compendium's folder (its git commit)")
    args = parser.parse_args(argv)
    write_provenance(args.output, run=args.run, profile=args.profile, repo=args.repo)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
