"""One commit, one report: the committed report's runs, its cost table and the committed
notebooks all come from one commit of a clean tree, and the report from that commit or a later
one that changed nothing the runs compute.

The report's provenance table names the commit of every notebook run beside the report's own;
``reports/costs.csv`` names the commit its runs were measured at; ``make notebooks`` stamps each
executed notebook with the commit it ran from (:func:`ppdp.report.provenance.stamp_notebook`).
A report assembled from runs of several commits, or notebooks executed at another commit, fails
here.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pandas as pd

from ppdp.report.provenance import SAME_SOURCES

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "reports" / "reproduction.md"
COSTS = ROOT / "reports" / "costs.csv"


def provenance_row(text: str, name: str) -> tuple[str, str]:
    """The (notebook runs, this report) cells of the provenance table's row ``name``."""
    section = text.split("## Provenance", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == name:
            return cells[1], cells[2]
    raise AssertionError(f"{REPORT.name}: the provenance table has no row {name!r}")


def report_commit() -> str:
    """The commit of the report's runs. The report is written at the same commit, or at a later
    one whose computation sources are the runs' (only claims, docs, tests or the report's code
    changed: ppdp.report.provenance.changed_sources), which its provenance table then says."""
    runs, report = provenance_row(REPORT.read_text(), "git commit")
    assert not runs.startswith("**differ**"), f"the report's runs come from several commits: {runs}"
    assert "uncommitted" not in runs, f"the report's runs ran on a changed tree: {runs}"
    assert report == "same" or re.fullmatch(
        rf"[0-9a-f]{{10}}; {re.escape(SAME_SOURCES)}", report
    ), (
        f"the report ({report}) was written at another commit than its runs ({runs}), and what "
        "the runs compute changed in between"
    )
    assert re.fullmatch(r"[0-9a-f]{10}", runs), runs
    return runs


def test_the_report_and_its_runs_come_from_one_commit():
    report_commit()


def test_the_cost_table_was_measured_at_the_reports_commit():
    commit = report_commit()
    costs = pd.read_csv(COSTS, dtype={"commit": str})
    assert costs["commit"].nunique() == 1, sorted(costs["commit"].unique())
    assert costs["commit"].iloc[0].startswith(commit), (costs["commit"].iloc[0], commit)
    assert costs["clean"].astype(str).eq("True").all()


def test_the_committed_notebooks_ran_at_the_reports_commit():
    commit = report_commit()
    stamps = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        meta = nbformat.read(path, as_version=4).metadata.get("ppdp", {})
        stamps[path.name] = (str(meta.get("commit", "not stamped"))[:10], meta.get("clean"))
    wrong = {name: stamp for name, stamp in stamps.items() if stamp != (commit, True)}
    assert not wrong, (
        f"notebooks not executed at the report's commit {commit} on a clean tree: {wrong}"
    )
