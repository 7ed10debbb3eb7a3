"""The vocabulary of ``claims.yaml`` and its loading.

``claims.yaml`` lists the claims. Each names the run whose tidy results hold the measured value and
a check (:class:`Check`, one of :data:`OPS`) that decides whether the measured value reproduces the
claim; a claim that does not reproduce may give its cause (:class:`Cause`, one of :data:`CAUSES`)
with the evidence. :func:`load_claims` reads and validates the file into :class:`Claim` objects;
:func:`load_summaries` reads the paragraph that opens each paper's section, and
:func:`fill_summary` cites measured values in it.

``claims.yaml`` states its number of claims (``n_claims``, before the list, so that a file cut
short keeps it), and :func:`load_claims` checks it.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ppdp.published import load_published
from ppdp.yamlfile import read_yaml

__all__ = [
    "CAUSES",
    "CAUSE_KEYS",
    "CHECK_KEYS",
    "CLAIMS_FILE_KEYS",
    "INTERVAL_OPS",
    "OPS",
    "OPTIONAL_KEYS",
    "REQUIRED_KEYS",
    "Cause",
    "Check",
    "Claim",
    "fill_summary",
    "load_claims",
    "load_summaries",
]

OPS = (">=", "<=", ">", "<", "==", "approx")
INTERVAL_OPS = (">=", "<=", ">", "<")
CHECK_KEYS = ("op", "value", "rel_tol", "abs_tol", "basis")
REQUIRED_KEYS = ("id", "paper", "notebook", "where", "statement", "published", "check")
OPTIONAL_KEYS = ("run", "unit", "figure", "note", "across", "cause")
#: The optional keys that hold one non-empty string.
_TEXT_KEYS = ("run", "unit", "figure", "note")
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
    #: The settings the paper leaves unstated at whose other values the run also judges the claim
    #: (the parameter columns of its ``<id>.across`` rows); empty when there are none.
    across: tuple[str, ...] = ()
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
        for key in ("id", "paper", "notebook", "where", "statement", *_TEXT_KEYS):
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
                across=_load_across(entry["across"], where) if "across" in entry else (),
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


def _load_across(across: Any, where: str) -> tuple[str, ...]:
    """The unstated settings a claim declares: distinct, non-empty names of parameter columns."""
    if (
        not isinstance(across, list)
        or not across
        or not all(isinstance(s, str) and s.strip() for s in across)
        or len(set(across)) != len(across)
    ):
        raise ValueError(
            f"{where}: 'across' must be a non-empty list of distinct setting names (the parameter "
            f"columns of the claim's '.across' rows), got {across!r}"
        )
    return tuple(across)


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
        if _is_interval(row["ci_low"], row["ci_high"]):
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


def _is_interval(low: float, high: float) -> bool:
    """Whether ``[low, high]`` is an interval worth printing: finite ends, in order."""
    return math.isfinite(low) and math.isfinite(high) and low <= high


def _fmt(value: float) -> str:
    value = float(value)
    if not math.isfinite(value):  # int() of inf overflows; the report refuses such values anyway
        return str(value)
    if value == int(value) and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.4g}"
