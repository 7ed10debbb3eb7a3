"""``claims.yaml`` is declared by ``config/claims.schema.yaml``, as a profile is by
``config/schema.yaml``: the schema is valid draft 2020-12, the committed claims file is valid against
it, the report's constants are the schema's, and every rule the schema declares refuses a bad file
with one line naming the file, the claim (position and id) or entry, the key and the value.

The rules a schema cannot state (ids given twice, ``n_claims`` against the list's length, cause
evidence that must exist) are tested in test_report.py."""

import math
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from ppdp.compendium.published import PUBLISHED_KEYS
from ppdp.compendium.yamlfile import read_yaml
from ppdp.report import (
    CAUSE_KEYS,
    CAUSES,
    CHECK_KEYS,
    CLAIMS_FILE_KEYS,
    CLAIMS_SCHEMA,
    INTERVAL_OPS,
    OPS,
    OPTIONAL_KEYS,
    REQUIRED_KEYS,
    load_claims,
    load_summaries,
)

ROOT = Path(__file__).resolve().parents[1]

SCHEMA = read_yaml(CLAIMS_SCHEMA)
TEXT_KEYS = ("id", "paper", "notebook", "where", "statement", "run", "unit", "figure", "note")


def _claim(cid, **changes):
    entry = {
        "id": cid,
        "paper": "p",
        "notebook": "nb",
        "where": "Fig. 1",
        "statement": "s",
        "published": 1.0,
        "check": {"op": ">=", "value": 1.0},
    }
    return {**entry, **changes}


def _write(tmp_path, raw):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def test_the_schema_is_a_draft_2020_12_schema_beside_the_profiles():
    assert CLAIMS_SCHEMA == ROOT / "config" / "claims.schema.yaml"
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_committed_claims_file_is_valid_against_the_schema():
    raw = read_yaml(ROOT / "claims.yaml")
    # a plain validator (numbers may be NaN there, integers 2.0) agrees on the committed file
    assert [e.message for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(raw)] == []
    assert len(load_claims(ROOT / "claims.yaml", require_count=True)) == raw["n_claims"]


def test_the_report_constants_are_the_schemas():
    claim, check, cause = (SCHEMA["$defs"][name] for name in ("claim", "check", "cause"))
    assert tuple(SCHEMA["properties"]) == CLAIMS_FILE_KEYS
    assert tuple(claim["required"]) == REQUIRED_KEYS
    assert tuple(claim["properties"]) == REQUIRED_KEYS + OPTIONAL_KEYS
    assert tuple(check["properties"]) == CHECK_KEYS
    assert tuple(check["properties"]["op"]["enum"]) == OPS
    no_interval = check["allOf"][1]["if"]["properties"]["op"]["enum"]
    assert tuple(op for op in OPS if op not in no_interval) == INTERVAL_OPS
    assert tuple(cause["properties"]) == tuple(cause["required"]) == CAUSE_KEYS
    assert tuple(cause["properties"]["kind"]["enum"]) == CAUSES
    entry = SCHEMA["$defs"]["published_entry"]
    assert tuple(entry["properties"]) == tuple(entry["required"]) == PUBLISHED_KEYS
    # the descriptions the messages quote list the same values
    assert str(list(OPS)) in check["properties"]["op"]["description"]
    assert str(list(CAUSES)) in cause["properties"]["kind"]["description"]
    assert str(list(CAUSE_KEYS)) in cause["description"]


# ---- every rule of the schema refuses a bad file, naming the key ---------------------------------
# Each case: (what to change in a valid file of two claims, the message after the file's name).
# The bad claim is the second, so that the message must name its position and id.
SECOND = r"claim #2 \(p\.b\)"


def _second(**changes):
    return {"claims": [_claim("p.a"), _claim("p.b", **changes)]}


def _check(**check):
    return _second(check=check)


def _cause(**changes):
    cause = {"kind": "budget", "why": "fewer seeds", "evidence": ["p.a"], **changes}
    return _second(cause={k: v for k, v in cause.items() if v is not None})


def _published(section):
    return {"claims": [_claim("p.a")], "published": section}


NAN = math.nan
# fmt: off
BAD = {
    # the file
    "file is a list": ([_claim("p.a")], r" must be a mapping with the key 'claims' \(and optionally"),
    "file is empty": (None, r" must be a mapping with the key 'claims'.*, got None$"),
    "no claims": ({"n_claims": 1}, r" lacks the keys \['claims'\]$"),
    "misspelt top-level key": (
        {"claims": [_claim("p.a")], "summary": {}},
        r": unknown keys \['summary'\]; allowed: \['n_claims', 'claims', 'published', 'summaries'\]$",
    ),
    "n_claims nan": (
        {"n_claims": NAN, "claims": [_claim("p.a")]},
        r": 'n_claims' must be a positive integer .*, got nan \(nan is not a finite number\)$",
    ),
    "claims a mapping": ({"claims": {"p.a": 1}}, r": 'claims' must be a non-empty list of claims"),
    "claims empty": ({"claims": []}, r": 'claims' must be a non-empty list of claims, got \[\]$"),
    # a claim
    "claim a string": (
        {"claims": [_claim("p.a"), "p.b"]},
        r": claim #2 \(\?\) must be a mapping .*, got 'p\.b'$",
    ),
    "claim lacks keys": (
        {"claims": [_claim("p.a"), {"id": "p.b", "where": "Fig. 2"}]},
        rf": {SECOND} lacks the keys \['paper', 'notebook', 'statement', 'published', 'check'\]$",
    ),
    "claim misspelt key": (_second(figures="f"), rf": {SECOND}: unknown keys \['figures'\]; allowed"),
    "published a boolean": (_second(published=True), rf"{SECOND}: 'published' must be a number or a string"),
    "published a list": (_second(published=[1, 2]), rf"{SECOND}: 'published' must be .*, got \[1, 2\]$"),
    "published missing": (_second(published=None), rf"{SECOND}: 'published' must be .*, got None$"),
    "published nan": (_second(published=NAN), rf"{SECOND}: 'published' must be .*nan is not a finite"),
    # its check
    "check a string": (_second(check=">= 1"), rf"{SECOND}: 'check' must be a mapping \{{op, value\}}"),
    "check lacks op": (_check(value=1.0), rf"{SECOND}: check lacks the keys \['op'\]$"),
    "check lacks value": (_check(op=">="), rf"{SECOND}: check lacks the keys \['value'\]$"),
    "check op unknown": (_check(op="~", value=1), rf"{SECOND}: check 'op' must be one of \['>=', "),
    "check value a string": (_check(op=">=", value="high"), r"check 'value' must be a finite number .*, got 'high'$"),
    "check value a boolean": (_check(op=">=", value=True), r"check 'value' must be a finite number .*, got True$"),
    "check value infinite": (_check(op=">=", value=math.inf), r"check 'value' must be a finite number .*, got inf"),
    "rel_tol negative": (_check(op="approx", value=1, rel_tol=-0.1), r"check 'rel_tol' must be a finite number >= 0"),
    "rel_tol a boolean": (_check(op="approx", value=1, rel_tol=True), r"check 'rel_tol' must be .*, got True$"),
    "abs_tol nan": (_check(op="approx", value=1, abs_tol=NAN), r"check 'abs_tol' must be .*, got nan"),
    "abs_tol a string": (_check(op="approx", value=1, abs_tol="5%"), r"check 'abs_tol' must be .*, got '5%'$"),
    "check key a YAML boolean": (
        _second(check={"op": ">", "value": 1, True: "interval"}),
        rf"{SECOND}: unknown check keys \['True'\]; allowed: \['op', 'value', 'rel_tol', 'abs_tol', 'basis'\]$",
    ),
    "approx without tolerance": (_check(op="approx", value=1), rf"{SECOND}: 'check' must be a mapping with rel_tol or abs_tol above 0"),
    "approx with zero tolerances": (_check(op="approx", value=1, rel_tol=0, abs_tol=0.0), r"rel_tol or abs_tol above 0"),
    "basis unknown": (_check(op=">", value=1, basis="median"), rf"{SECOND}: check 'basis' must be 'mean' .* or 'interval'.*, got 'median'$"),
    "interval basis with ==": (_check(op="==", value=1, basis="interval"), r"check 'basis' must be 'mean' when op is '==' or 'approx'"),
    "interval basis with approx": (_check(op="approx", value=1, rel_tol=0.1, basis="interval"), r"check 'basis' must be 'mean' when op"),
    # its settings left open
    "across a string": (_second(across="delta"), rf"{SECOND}: 'across' must be a non-empty list of distinct setting names"),
    "across empty": (_second(across=[]), r"'across' must be a non-empty list .*, got \[\]$"),
    "across repeated": (_second(across=["delta", "delta"]), r"'across' must be .*, got \['delta', 'delta'\]$"),
    "across blank name": (_second(across=["delta", " "]), r"'across' must be .*, got \['delta', ' '\]$"),
    "across a number": (_second(across=[3]), r"'across' must be .*, got \[3\]$"),
    # its cause
    "cause a string": (_second(cause="budget"), rf"{SECOND}: 'cause' must be a mapping with exactly the keys \['kind', 'why', 'evidence'\]"),
    "cause lacks evidence": (_cause(evidence=None), rf"{SECOND}: cause lacks the keys \['evidence'\]$"),
    "cause extra key": (_cause(source="x"), rf"{SECOND}: unknown cause keys \['source'\]; allowed: \['kind', 'why', 'evidence'\]$"),
    "cause kind unknown": (_cause(kind="unlucky"), rf"{SECOND}: cause 'kind' must be one of \['protocol', .*, got 'unlucky'$"),
    "cause why blank": (_cause(why="  "), r"cause 'why' must be a non-empty string .*, got '  '$"),
    "cause why a number": (_cause(why=3), r"cause 'why' must be a non-empty string .*, got 3$"),
    "evidence empty": (_cause(evidence=[]), r"cause 'evidence' must be a non-empty list of claim ids or paths, got \[\]$"),
    "evidence a string": (_cause(evidence="p.a"), r"cause 'evidence' must be a non-empty list .*, got 'p\.a'$"),
    "evidence blank": (_cause(evidence=["p.a", ""]), r"cause 'evidence' must be .*, got \['p\.a', ''\]$"),
    # the published section
    "published section a list": (_published([1]), r": 'published' must be a mapping of keys to entries \{where, value\}"),
    "published key a number": (_published({3: {"where": "T1", "value": 1}}), r": 'published': a key must be a non-empty string, got 3$"),
    "published key blank": (_published({" ": {"where": "T1", "value": 1}}), r": 'published': a key must be a non-empty string, got ' '$"),
    "published entry a number": (_published({"p.x": 1}), r": published entry 'p\.x' must be a mapping with exactly the keys \['where', 'value'\], got 1$"),
    "published entry extra key": (_published({"p.x": {"where": "T1", "value": 1, "unit": "%"}}), r": published entry 'p\.x': unknown keys \['unit'\]"),
    "published value nan": (_published({"p.x": {"where": "T1", "value": [1, NAN]}}), r"published entry 'p\.x': 'value' must be a number or a list of numbers .*nan is not a finite"),
    "published value a boolean": (_published({"p.x": {"where": "T1", "value": True}}), r"'value' must be a number or a list of numbers \(not empty\), got True$"),
    # the summaries
    "summaries a list": ({"claims": [_claim("p.a")], "summaries": ["p"]}, r": 'summaries' must be a mapping of papers to paragraphs"),
    "summary blank": ({"claims": [_claim("p.a")], "summaries": {"p": " "}}, r": the summary of 'p' must be a non-empty string .*, got ' '$"),
    "summary a number": ({"claims": [_claim("p.a")], "summaries": {"p": 3}}, r": the summary of 'p' must be a non-empty string .*, got 3$"),
}
# fmt: on
for key in TEXT_KEYS:
    for bad in ("", "  ", 3, None):
        BAD[f"{key} {bad!r}"] = (
            _second(**{key: bad}),
            rf": claim #2 \(.*\): '{key}' must be a non-empty string .*, got {re.escape(repr(bad))}$",
        )


@pytest.mark.parametrize("case", list(BAD))
def test_the_schema_refuses_a_bad_claims_file_naming_the_key(case, tmp_path):
    raw, message = BAD[case]
    path = _write(tmp_path, raw)
    with pytest.raises(ValueError) as info:
        load_claims(path)
    text = str(info.value)
    assert text.startswith(str(path)) and "\n" not in text, text
    assert re.search(message, text[len(str(path)) :]), text
    # the schema alone refuses it: no rule of this table is left to code
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(read_yaml(path))) or _non_json(
        raw
    ), case


def _non_json(raw) -> bool:
    """Whether ``raw`` holds a NaN or an infinity, which only the report's validator (JSON's
    numbers) refuses."""
    if isinstance(raw, dict):
        return any(_non_json(v) for v in raw.values())
    if isinstance(raw, list):
        return any(_non_json(v) for v in raw)
    return isinstance(raw, float) and not math.isfinite(raw)


def test_the_first_error_in_the_files_order_is_reported(tmp_path):
    raw = {"claims": [_claim("p.a"), _claim("p.b", where=""), _claim("p.c", published=True)]}
    with pytest.raises(ValueError, match=r"claim #2 \(p\.b\): 'where'"):
        load_claims(_write(tmp_path, raw))
    # of a claim's errors: its missing keys before its values, its values in the file's order
    raw = {"claims": [{"id": "p.a", "where": "", "published": True}]}
    with pytest.raises(ValueError, match=r"claim #1 \(p\.a\) lacks the keys"):
        load_claims(_write(tmp_path, raw))
    raw = {"claims": [_claim("p.a", unit="", note="")]}
    with pytest.raises(ValueError, match=r"'unit' must be"):
        load_claims(_write(tmp_path, raw))
    # a tolerance's own error before the 'approx' rule it breaks too
    raw = {"claims": [_claim("p.a", check={"op": "approx", "value": 1, "rel_tol": -1})]}
    with pytest.raises(ValueError, match=r"check 'rel_tol' must be a finite number >= 0"):
        load_claims(_write(tmp_path, raw))


def test_summaries_are_validated_by_the_schema_too(tmp_path):
    path = _write(tmp_path, {"claims": [_claim("p.a")], "summaries": {"p": ""}})
    with pytest.raises(ValueError, match=r"the summary of 'p' must be a non-empty string"):
        load_summaries(path, [])


def test_what_the_schema_accepts(tmp_path):
    """The forms of each key: a schema too strict would refuse a file the report reads."""
    entries = [
        _claim("p.a", published="higher", check={"op": "approx", "value": 2, "abs_tol": 0.5}),
        _claim("p.b", published=3, check={"op": "approx", "value": 2, "rel_tol": 0, "abs_tol": 1}),
        _claim("p.c", published="", check={"op": "==", "value": 1, "basis": "mean"}),
        *(
            _claim(f"p.{i}", check={"op": op, "value": 0, "basis": "interval"})
            for i, op in enumerate(INTERVAL_OPS)
        ),
        _claim(
            "p.d",
            run="other",
            unit="%",
            figure="fig1",
            note="n",
            across=["delta", "weighting"],
            cause={"kind": "unstable", "why": "w", "evidence": ["p.a", "p.a"]},
        ),
    ]
    raw = {
        "n_claims": len(entries),
        "claims": entries,
        "published": {
            "p.t": {"where": "T1", "value": [1, 2.5]},
            "p.u": {"where": "T2", "value": 3},
        },
        "summaries": {"p": "cites {p.a}"},
    }
    claims = load_claims(_write(tmp_path, raw))
    assert [c.id for c in claims] == [e["id"] for e in entries]
    assert claims[0].check.abs_tol == 0.5 and claims[1].check.rel_tol == 0.0
    assert claims[-1].across == ("delta", "weighting") and claims[-1].run == "other"
    assert claims[-1].cause.evidence == ("p.a", "p.a")
    for empty in ({"published": None, "summaries": None}, {}):
        assert len(load_claims(_write(tmp_path, {"claims": entries[:1], **empty}))) == 1
