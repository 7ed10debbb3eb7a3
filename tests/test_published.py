"""Published numbers are typed once, in claims.yaml, and read from there by notebooks and library."""

import json
import re
from pathlib import Path

import pytest
import yaml

from ppdp.compendium.published import DEFAULT_CLAIMS, published_value
from ppdp.report import load_claims

ROOT = Path(__file__).resolve().parents[1]


def _write(tmp_path, published, claims=None):
    claims = claims or [
        {
            "id": "p.a",
            "paper": "p",
            "notebook": "nb",
            "where": "Sec. 1",
            "statement": "a",
            "published": 0.25,
            "check": {"op": "<=", "value": 0.3},
        },
        {
            "id": "p.b",
            "paper": "p",
            "notebook": "nb",
            "where": "Sec. 1",
            "statement": "b",
            "published": "small",
            "check": {"op": "<=", "value": 0.3},
        },
    ]
    path = tmp_path / "claims.yaml"
    raw = {"claims": claims}
    if published is not None:
        raw["published"] = published
    path.write_text(yaml.safe_dump(raw))
    return path


def test_the_compendium_file_is_the_default():
    assert DEFAULT_CLAIMS == ROOT / "claims.yaml"
    assert published_value("sppm.table1.age") == [0.1064, 0.0408]
    assert published_value("imposter.gender_accuracy_b") == 67.26


def test_claims_and_published_entries(tmp_path):
    path = _write(tmp_path, {"p.table": {"where": "Table 1", "value": [1, 2.5]}})
    assert published_value("p.a", path) == 0.25
    assert published_value("p.table", path) == [1.0, 2.5]
    with pytest.raises(KeyError, match="'small', which is not a number"):
        published_value("p.b", path)
    with pytest.raises(KeyError, match="neither a claim id nor"):
        published_value("p.c", path)
    with pytest.raises(FileNotFoundError, match="pass path="):
        published_value("p.a", tmp_path / "missing.yaml")
    assert len(load_claims(path)) == 2


@pytest.mark.parametrize(
    ("entry", "match"),
    [
        ({"where": "T1"}, r"published entry 'p.x' lacks the keys \['value'\]"),
        ({"where": "T1", "value": "big"}, "number or a list of numbers"),
        ({"where": "T1", "value": [1, True]}, "number or a list of numbers"),
        ({"where": "T1", "value": []}, "number or a list of numbers"),
        ({"where": " ", "value": 1}, "'where' must be a non-empty string"),
    ],
)
def test_bad_published_entries_are_rejected_by_the_report(tmp_path, entry, match):
    path = _write(tmp_path, {"p.x": entry})
    with pytest.raises(ValueError, match=match):
        load_claims(path)


def test_unknown_top_level_key_is_rejected(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [], "numbers": {}}))
    with pytest.raises(
        ValueError,
        match=r"unknown keys \['numbers'\]; allowed: \['n_claims', 'claims', 'published'",
    ):
        load_claims(path)


def _precise_numbers() -> set[str]:
    """Published numbers precise enough (three or more significant digits) not to occur by chance."""
    raw = yaml.safe_load((ROOT / "claims.yaml").read_text())
    values = [c["published"] for c in raw["claims"]]
    for entry in raw.get("published", {}).values():
        values += entry["value"] if isinstance(entry["value"], list) else [entry["value"]]
    numbers = {f"{v}" for v in values if isinstance(v, float)}
    return {n for n in numbers if "." in n and len(n.replace(".", "").lstrip("0")) >= 3}


def test_no_notebook_or_experiment_types_a_published_number_again():
    numbers = _precise_numbers()
    assert "67.26" in numbers and "0.1502" in numbers
    sources = {p: p.read_text() for p in (ROOT / "lib" / "ppdp" / "experiments").rglob("*.py")}
    assert len(sources) > 25, "the walk found too few modules to be the experiments"
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        cells = json.loads(path.read_text())["cells"]
        sources[path] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for path, text in sources.items():
        found = [n for n in numbers if re.search(rf"(?<![\d.]){re.escape(n)}(?!\d)", text)]
        assert not found, (
            f"{path.relative_to(ROOT)} types the published numbers {found}; use published_value"
        )
