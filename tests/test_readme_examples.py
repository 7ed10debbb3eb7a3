"""The README's "Protecting your own table" examples run exactly as printed."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## Protecting your own table"


def section_blocks() -> list[str]:
    text = README.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def test_the_section_shows_every_mechanism_family():
    code = "\n".join(section_blocks())
    for name in (
        "Mondrian",
        "Anatomy",
        "MutualCover",
        "KaryRandomizedResponse",
        "RelayChain",
        "TableMapping",
        "TableObfuscation",
        "Imposter",
    ):
        assert f"{name}(" in code, f"the README section shows no {name}"


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_every_example_releases_a_table_like_its_input():
    blocks = section_blocks()
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
        assert released.index.equals(original.index), block
        released_by.append(source)
    assert len(released_by) == 8
