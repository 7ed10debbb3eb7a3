"""papermill reads every parameter of every notebook, and warns of none.

papermill infers a notebook's parameters from its ``parameters`` cell, one assignment per line; a
line with a second ``=`` (in its comment, say ``("" = do not write)``) is skipped with a warning
("Unable to parse line ...") on every run, and the parameter goes missing from
``papermill --help-notebook``.
"""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import nbformat
import pytest

papermill = pytest.importorskip("papermill")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def assigned_names(notebook: Path) -> list[str]:
    """The names the notebook's ``parameters`` cell assigns, in order."""
    nb = nbformat.read(notebook, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{notebook.name} has {len(cells)} cells tagged parameters, not 1"
    names = []
    for node in ast.parse(cells[0].source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 7


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_papermill_reads_every_parameter_without_a_warning(notebook, caplog):
    with caplog.at_level(logging.WARNING, logger="papermill"):
        inferred = papermill.inspect_notebook(str(notebook))
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("papermill")]
    assert warnings == [], f"papermill warns on {notebook.name}'s parameters cell"
    assert list(inferred) == assigned_names(notebook)
