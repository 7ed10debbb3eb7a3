"""The vocabulary of ``claims.yaml`` and its loading.

``claims.yaml`` lists the claims. Each names the run whose tidy results hold the measured value and
a check (:class:`Check`, one of :data:`OPS`) that decides whether the measured value reproduces the
claim; a claim that does not reproduce may give its cause (:class:`Cause`, one of :data:`CAUSES`)
with the evidence. :func:`load_claims` reads and validates the file into :class:`Claim` objects;
:func:`load_summaries` reads the paragraph that opens each paper's section, and
:func:`fill_summary` cites measured values in it.

The file's keys, their types and the values they allow are declared once, in the JSON schema
``config/claims.schema.yaml`` (:data:`CLAIMS_SCHEMA`), as a profile's are in
``config/schema.yaml``; :func:`load_claims` validates the file against it, then checks in code
what a schema cannot say. ``claims.yaml`` states its number of claims (``n_claims``, before the
list, so that a file cut short keeps it), and :func:`load_claims` checks it.
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

from ppdp.compendium.yamlfile import read_yaml

__all__ = [
    "CAUSES",
    "CAUSE_KEYS",
    "CHECK_KEYS",
    "CLAIMS_FILE_KEYS",
    "CLAIMS_SCHEMA",
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
#: The JSON schema (draft 2020-12, in YAML) of ``claims.yaml``, in the compendium's ``config/``
#: beside the profiles' schema: the reference for the file's keys, their types and the values they
#: allow. The key and value constants of this module are the schema's (a test compares them).
CLAIMS_SCHEMA = Path(__file__).resolve().parents[3] / "config" / "claims.schema.yaml"


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

    The file is validated against :data:`CLAIMS_SCHEMA` first (its keys, their types and the
    values they allow); then what a schema cannot say: distinct ids, ``n_claims`` equal to the
    number of claims, and cause evidence that names a claim or an existing file and heading.

    Parameters
    ----------
    path
        The claims file: a mapping with ``claims`` (the list) and optionally ``n_claims`` (their
        number), ``published`` and ``summaries``.
    require_count
        ``n_claims`` must be given. Written before the list, it survives a file cut short, which
        a count taken from the list itself cannot reveal.

    Returns
    -------
    list of Claim
        The claims in the file's order; a claim without ``run`` has its notebook's name.

    Raises
    ------
    FileNotFoundError
        When ``path`` or :data:`CLAIMS_SCHEMA` does not exist.
    ValueError
        When the file does not match the schema (the message names the file, the claim by its
        position and id, the key, what is allowed and the value), repeats an id, states an
        ``n_claims`` that differs from the number of claims or (``require_count``) none, or gives
        cause evidence that is neither a claim id nor an existing file and heading.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "claims.yaml"
    >>> _ = path.write_text('''
    ... claims:
    ...   - {id: p.gain, paper: p, notebook: nb, where: Fig. 1, statement: s, published: 7.2,
    ...      check: {op: approx, value: 7.2, rel_tol: -0.1}}
    ... ''')
    >>> load_claims(path)
    Traceback (most recent call last):
    ...
    ValueError: ...claims.yaml: claim #1 (p.gain): check 'rel_tol' must be a finite number >= 0 (the tolerance of 'approx', relative to value), got -0.1
    >>> _ = path.write_text(path.read_text().replace("-0.1", "0.1"))
    >>> load_claims(path)[0].check.describe()
    '≈ 7.2 (± 10%)'
    """
    raw = read_yaml(path)
    _validate(raw, path)
    stated = raw.get("n_claims")
    if stated is None and require_count:
        raise ValueError(
            f"{path} states no 'n_claims' (the number of claims, before 'claims:'); the "
            "pipeline's mode (--complete) needs it, or --expected-claims"
        )
    claims, seen = [], set()
    for position, entry in enumerate(raw["claims"]):
        if entry["id"] in seen:
            raise ValueError(
                f"{path}: claim #{position + 1} ({entry['id']}): the id {entry['id']!r} "
                "appears twice"
            )
        seen.add(entry["id"])
        check, cause = entry["check"], entry.get("cause")
        claims.append(
            Claim(
                id=entry["id"],
                paper=entry["paper"],
                notebook=entry["notebook"],
                where=entry["where"],
                statement=entry["statement"],
                published=entry["published"],
                check=Check(
                    op=check["op"],
                    value=float(check["value"]),
                    rel_tol=float(check.get("rel_tol", 0.0)),
                    abs_tol=float(check.get("abs_tol", 0.0)),
                    basis=check.get("basis", "mean"),
                ),
                run=entry.get("run", entry["notebook"]),
                unit=entry.get("unit", ""),
                figure=entry.get("figure"),
                note=entry.get("note", ""),
                across=tuple(entry.get("across", ())),
                cause=None
                if cause is None
                else Cause(cause["kind"], " ".join(cause["why"].split()), tuple(cause["evidence"])),
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


def _claims_validator(schema_path: Path):
    """A draft 2020-12 validator of the schema at ``schema_path``, with JSON's numbers.

    As :func:`ppdp.experiments.parameter_schema.schema_error` checks profiles: NaN and infinity
    (YAML's ``.nan``, ``.inf``) are not numbers, which a plain validator would let through every
    bound. Stricter than it, an integer is an ``int``: JSON Schema counts ``2.0`` as one, but a
    count written ``2.0`` is a typing slip."""
    import jsonschema

    if not schema_path.is_file():
        raise FileNotFoundError(
            f"the claims schema {schema_path} does not exist; load_claims reads it from the "
            "compendium's config/ folder"
        )
    schema = read_yaml(schema_path)
    base = jsonschema.Draft202012Validator
    base.check_schema(schema)
    checker = base.TYPE_CHECKER.redefine_many(
        {
            "number": lambda checker, value: (
                base.TYPE_CHECKER.is_type(value, "number") and not _non_finite(value)
            ),
            "integer": lambda checker, value: (
                isinstance(value, int) and not isinstance(value, bool)
            ),
        }
    )
    return jsonschema.validators.extend(base, type_checker=checker)(schema)


def _validate(raw: Any, path: str | os.PathLike) -> None:
    """Raise ValueError with the file's first error against :data:`CLAIMS_SCHEMA`, if any.

    The first error in the file's own order (a claim before the next, a mapping's missing or
    unknown keys before its values), so that fixing the errors one by one goes down the file."""
    validator = _claims_validator(CLAIMS_SCHEMA)
    errors = list(validator.iter_errors(raw))
    if errors:
        first = min(errors, key=lambda error: _document_order(raw, error))
        raise ValueError(_schema_message(first, raw, path, validator.schema))


#: Of several errors at one place, the one reported first: the value's type, then missing keys,
#: then unknown keys, then the rest.
_KEYWORD_RANK = {"type": 0, "required": 1, "additionalProperties": 2}
#: Rules that combine several of a mapping's values (an 'approx' check needs a tolerance above 0):
#: reported after an error in one of those values, which may be the cause.
_COMBINING = ("anyOf", "oneOf", "allOf", "not")


def _document_order(raw: Any, error) -> tuple[tuple[float, ...], int]:
    order, node = [], raw
    for key in error.absolute_path:
        order.append(list(node).index(key) if isinstance(node, dict) else key)
        node = node[key]
    if error.validator in _COMBINING:
        order.append(math.inf)
    return tuple(order), _KEYWORD_RANK.get(error.validator, len(_KEYWORD_RANK))


def _schema_message(error, raw: Any, path: str | os.PathLike, schema: dict) -> str:
    """One line: the file, the claim (position and id) or entry, the key, what is allowed (the
    schema's ``description`` of the value, a phrase that completes "must be") and the value."""
    at = list(error.absolute_path)
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        where, rest = _place(path, raw, at)
        return f"{where}{': ' + ' '.join(map(str, rest)) if rest else ''} lacks the keys {missing}"
    if error.validator == "additionalProperties" and error.validator_value is False:
        allowed = list(error.schema.get("properties", {}))
        unknown = sorted(map(str, set(error.instance) - set(allowed)))
        where, rest = _place(path, raw, at)
        what = " ".join([*map(str, rest), "keys"])
        return f"{where}: unknown {what} {unknown}; allowed: {allowed}"
    allowed, depth = _description(schema, list(error.absolute_schema_path))
    where, rest = _place(path, raw, at[:depth])
    subject = f"{where}: {_label(rest)}" if rest else where
    if "propertyNames" in error.absolute_schema_path:
        # the instance is a key of the mapping, not one of its values
        return f"{subject}: a key must be {allowed}, got {error.instance!r}"
    value = raw
    for key in at[:depth]:
        value = value[key]
    leaf = error.instance
    # "must be a number, got nan" reads as a contradiction: say what is wrong with it
    why = f" ({leaf!r} is not a finite number)" if _non_finite(leaf) else ""
    return f"{subject} must be {allowed}, got {_shown(value)}{why}"


#: Keywords whose subschema applies to a value inside the instance (one level down), followed in
#: the schema path by a name or an index (``properties``) or not (``items``).
_DOWN_NAMED = ("properties", "patternProperties", "prefixItems")
_DOWN = ("items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains")
#: Keywords whose subschemas apply to the instance itself.
_SAME_NAMED = ("allOf", "anyOf", "oneOf", "dependentSchemas")
_SAME = ("if", "then", "else", "not", "propertyNames")


def _description(schema: dict, schema_path: list) -> tuple[str, int]:
    """The ``description`` of the deepest schema on the error's schema path that has one, and how
    many levels into the instance that schema applies (``$ref`` followed within the schema)."""
    node, depth, found, i = schema, 0, (schema.get("description", ""), 0), 0
    while i < len(schema_path):
        key = schema_path[i]
        named = key in _DOWN_NAMED or key in _SAME_NAMED
        if not (key in _DOWN or key in _SAME or (named and i + 1 < len(schema_path))):
            break  # the keyword that failed
        node = node[key][schema_path[i + 1]] if named else node[key]
        depth += key in _DOWN_NAMED or key in _DOWN
        i += 2 if named else 1
        if isinstance(node, dict) and "$ref" in node:
            node = _resolve(schema, node["$ref"])
        if isinstance(node, dict) and "description" in node:
            found = (" ".join(node["description"].split()), depth)
    return found


def _resolve(schema: dict, ref: str) -> dict:
    node = schema
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def _place(path, raw: Any, at: list) -> tuple[str, list]:
    """Where a value is, in a message: the file and the claim (``claim #3 (id)``), published entry
    or summary it belongs to; and the keys below that entry."""
    where = str(path)
    if len(at) >= 2 and at[0] == "claims":
        entry = raw["claims"][at[1]]
        claim_id = entry.get("id", "?") if isinstance(entry, dict) else "?"
        return f"{where}: claim #{at[1] + 1} ({claim_id})", at[2:]
    if len(at) >= 2 and at[0] == "published":
        return f"{where}: published entry {at[1]!r}", at[2:]
    if len(at) >= 2 and at[0] == "summaries":
        return f"{where}: the summary of {at[1]!r}", at[2:]
    return where, at


def _label(keys: list) -> str:
    """``'published'`` for a key of the entry, ``check 'rel_tol'`` for a key of its ``check``."""
    if len(keys) == 1:
        return repr(keys[0])
    return " ".join([str(keys[0]), *map(repr, keys[1:])])


def _shown(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + " ..."


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
    :func:`fill_summary`). Raises ValueError when the file does not match :data:`CLAIMS_SCHEMA`
    (``summaries`` a mapping of papers to non-empty strings), a summary's paper has no claim, or a
    placeholder names no claim of that file."""
    raw = read_yaml(path)
    _validate(raw, path)
    summaries = raw.get("summaries") or {}
    ids = {c.id for c in claims}
    papers = {c.paper for c in claims}
    for paper, text in summaries.items():
        if paper not in papers:
            raise ValueError(f"{path}: summaries has the paper {paper!r}, which has no claim")
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


def _non_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)
