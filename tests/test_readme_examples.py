"""The examples of the README and the user guide run exactly as printed.

Every ``python`` block of the user guide runs here: those of "Protecting your own table", of
"Guarantees" and of "Releasing more than once", each after the guide's toy table.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USER_GUIDE = ROOT / "docs" / "user-guide.md"
NOTEBOOKS = ROOT / "docs" / "notebooks.md"
SECTION = "## Protecting your own table"
GUARANTEES = "## Guarantees"
REPETITION = "## Releasing more than once"
PYTHON_BLOCK = r"```python\n(.*?)```"


def section_blocks(page: Path, section: str = SECTION) -> list[str]:
    text = page.read_text()
    start = text.index(section)
    end = text.find("\n## ", start + len(section))
    return re.findall(PYTHON_BLOCK, text[start : end if end >= 0 else None], flags=re.S)


def run_examples(blocks: list[str]) -> int:
    """Run the toy table, then each mechanism block; check what each releases; count them."""
    namespace: dict = {}
    exec(blocks[0], namespace)  # the toy table
    released_by = []
    for block in blocks[1:]:
        namespace.pop("released", None)
        exec(block, namespace)
        source = re.search(r"\.fit(?:_release)?\((\w+)", block).group(1)
        released, original = namespace["released"], namespace[source]
        assert isinstance(released, pd.DataFrame)
        assert list(released.columns) == list(original.columns), block
        if "MST(" in block:  # synthetic rows, as many as the noisy total, under a RangeIndex
            assert released.index.equals(pd.RangeIndex(len(released))), block
        else:
            assert released.index.equals(original.index), block
        released_by.append(source)
    return len(released_by)


def test_the_guide_shows_every_mechanism_family():
    code = "\n".join(section_blocks(USER_GUIDE))
    for name in (
        "Mondrian",
        "Anatomy",
        "MutualCover",
        "KaryRandomizedResponse",
        "RelayChain",
        "TableMapping",
        "TableObfuscation",
        "Imposter",
        "MST",
    ):
        assert f"{name}(" in code, f"the user guide's section shows no {name}"


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_every_example_of_the_guide_releases_a_table_like_its_input():
    assert run_examples(section_blocks(USER_GUIDE)) == 10


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_guides_guarantee_example_reports_every_check_held(capsys):
    blocks = section_blocks(USER_GUIDE, GUARANTEES)
    assert len(blocks) == 1, "the guarantees section shows one example"
    namespace: dict = {}
    exec(section_blocks(USER_GUIDE)[0], namespace)  # the toy table
    exec(blocks[0], namespace)
    report = namespace["report"]
    assert set(report["guarantee"]) == {"delta-probability", "l-diversity"}
    assert report["holds"].all()
    assert "delta-probability" in capsys.readouterr().out


def test_the_guides_repetition_example_spends_one_release():
    blocks = section_blocks(USER_GUIDE, REPETITION)
    assert len(blocks) == 1, "the repetition section shows one example"
    namespace: dict = {}
    exec(section_blocks(USER_GUIDE)[0], namespace)  # the toy table
    exec(blocks[0], namespace)
    assert namespace["spent"] == {"sex": 1.0}
    assert namespace["mech"].n_releases_ == 1
    assert "{'sex': 1.0}" in blocks[0], "the comment shows what spent() returns"


def test_every_python_block_of_the_guide_is_run_by_a_test():
    every = re.findall(PYTHON_BLOCK, USER_GUIDE.read_text(), flags=re.S)
    run = (
        section_blocks(USER_GUIDE)
        + section_blocks(USER_GUIDE, GUARANTEES)
        + section_blocks(USER_GUIDE, REPETITION)
    )
    assert every == run, "a python block of docs/user-guide.md outside the sections tested here"


def test_the_readme_example_releases_a_table_like_its_input():
    blocks = section_blocks(README)
    assert len(blocks) == 2, "the README shows the toy table and one mechanism"
    assert run_examples(blocks) == 1
    assert blocks == section_blocks(USER_GUIDE)[:2], (
        "the README's examples are the user guide's first two"
    )


def test_the_written_run_example_recomputes_claims(tmp_path, monkeypatch):
    """The "From a written run" example of docs/notebooks.md, on a small CSV."""
    from ppdp.experiments.common import tidy_rows, write_results

    text = NOTEBOOKS.read_text()
    start = text.index("- **From a written run, without rerunning**")
    block = textwrap.dedent(re.search(r"```python\n(.*?)```", text[start:], flags=re.S).group(1))
    rows = []
    for delta, disclosure in ((0.125, 0.02), (0.25, 0.01)):
        rows += tidy_rows(
            "fig4",
            "MutualCover",
            {"attribute_disclosure": disclosure},
            parameters={"delta": delta, "l": 10, "p_match": 0.3},
            seed=0,
        )
    write_results(rows, tmp_path / "results" / "default" / "mutual_cover.csv")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(block, namespace)
    assert namespace["fig4"][["delta", "l", "p_match"]].values.tolist() == [
        [0.125, 10, 0.3],
        [0.25, 10, 0.3],
    ]
    claims = namespace["claims"].set_index("metric")["value"]
    assert list(claims.index) == ["mutual_cover.attribute_falls_with_delta"]
