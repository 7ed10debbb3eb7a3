"""nbval's regression check of the committed notebooks, made on the smoke run's executions.

``nbval --nbval-lax`` checks two things of each committed notebook: every code cell runs without
error in the project's kernel with the notebook's defaults, and each cell marked
``# NBVAL_CHECK_OUTPUT`` gives the outputs committed with it. The smoke run (tests/shared_smoke_run.py)
already executes every committed notebook with those defaults, in that kernel, through papermill
(which stops at the first error). So nbval's comparison is applied here to the outputs of that
execution, with nbval's own code (``coalesce_streams`` and ``IPyNbCell.compare_outputs``: its
rules for streams and the keys it skips), instead of a second execution of each notebook. ``make nbval`` still runs nbval
itself, a fresh execution of every notebook.

The one difference between the two executions' environments is ``PPDP_LOG_LEVEL``, which the
Snakefile sets (:mod:`ppdp.compendium.logs`): the pipeline's run shows the library's log records on
standard error, where nbval's shows none. Those records (lines in the logs' own format) are taken
out of the run's outputs before the comparison; any other output on standard error stays in it.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib.util
import re
import types
from pathlib import Path

import nbformat
import pytest
import yaml

nbval_plugin = pytest.importorskip("nbval.plugin")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SMOKE = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["runs"]
#: the parameters the pipeline injects into every run besides the notebook's own
PIPELINE_PARAMETERS = {"profile", "results_csv", "figures_dir", "n_jobs"}
#: what ``--nbval-lax`` compares: only the cells that ask for it
CHECKED = "check"
#: nbval options the replay below knows how to honour; any other makes the test fail, since a
#: replayed execution cannot, for example, expect an exception or skip a cell
KNOWN_OPTIONS = {CHECKED}


def _defaults(notebook: nbformat.NotebookNode) -> dict:
    (cell,) = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    namespace: dict = {}
    exec(cell.source, namespace)
    return {k: v for k, v in namespace.items() if not k.startswith("__")}


def _run_with_defaults(name: str, defaults: dict) -> str:
    """The smoke run that executes notebook ``name`` with its own defaults."""
    for run, spec in SMOKE.items():
        if spec["notebook"] != name:
            continue
        parameters = spec.get("parameters", {})
        if all(defaults.get(k) == v for k, v in parameters.items()):
            return run
    pytest.fail(f"no smoke run executes {name}.ipynb with its defaults (config/smoke.yaml)")


def _nbval_lax_skips() -> tuple[str, ...]:
    """The output keys nbval leaves out of its comparison, read from the source of its collector
    (``IPyNbFile.__init__``): its fixed list, plus the images it skips without nbdime, which is not
    installed here."""
    tree = ast.parse(Path(nbval_plugin.__file__).read_text())
    (init,) = [
        node
        for cls in tree.body
        if isinstance(cls, ast.ClassDef) and cls.name == "IPyNbFile"
        for node in cls.body
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    ]
    keys: list[str] = []
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "self.skip_compare":
            keys += [
                c.value
                for c in ast.walk(node.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            ]
    return tuple(keys)


def _comparer() -> types.SimpleNamespace:
    """An object with what ``IPyNbCell.compare_outputs`` reads from its cell, as nbval sets it up
    for ``--nbval-lax`` without sanitizing patterns: its skipped keys and no colours."""
    file = types.SimpleNamespace(skip_compare=_nbval_lax_skips(), sanitize_patterns={})
    cell = types.SimpleNamespace(parent=file, colors=nbval_plugin.nocolors, config=None)
    # no pytest item behind it: nbval then writes both outputs out in full (its fallback)
    cell.ihook = types.SimpleNamespace(pytest_assertrepr_compare=lambda **_: [])
    cell.sanitize = functools.partial(nbval_plugin.IPyNbCell.sanitize, cell)
    cell.format_output_compare = functools.partial(
        nbval_plugin.IPyNbCell.format_output_compare, cell
    )
    cell.compare = functools.partial(nbval_plugin.IPyNbCell.compare_outputs, cell)
    return cell


#: one record of the library's logs as :data:`ppdp.compendium.logs.FORMAT` writes it
LOG_RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ppdp(\.[\w.]+)?: .*\n?", re.M)


def _without_log_records(outputs: list) -> list:
    """``outputs`` less the library's log records on standard error (see the module docstring)."""
    kept = []
    for output in outputs:
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            text = LOG_RECORD.sub("", output["text"])
            if not text:
                continue
            output = nbformat.from_dict({**output, "text": text})
        kept.append(output)
    return kept


def _options(cell: nbformat.NotebookNode) -> set[str]:
    options = dict(nbval_plugin.find_metadata_tags(cell.metadata))
    options.update(nbval_plugin.find_comment_markers(cell.source))
    return {name for name, on in options.items() if on}


def _code_cells(notebook: nbformat.NotebookNode) -> list:
    return [
        c
        for c in notebook.cells
        if c.cell_type == "code" and "injected-parameters" not in c.metadata.get("tags", [])
    ]


def test_the_comparison_skips_what_nbval_skips():
    """The keys read from nbval's source are its known ones: outputs' metadata, tracebacks,
    execution counts and stream names, and the images it compares only with nbdime."""
    assert importlib.util.find_spec("nbdime") is None, "nbval would compare images with nbdime"
    skips = set(_nbval_lax_skips())
    assert {"metadata", "traceback", "execution_count", "name", "image/png"} <= skips, skips
    assert "text/plain" not in skips


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_outputs_reproduce_in_the_smoke_run(smoke_run, path):
    committed = nbformat.read(path, as_version=4)
    run = _run_with_defaults(path.stem, _defaults(committed))
    executed = nbformat.read(smoke_run / "results" / "smoke" / f"{run}.ipynb", as_version=4)
    injected = [c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) <= 1
    if injected:
        given = {}
        exec(injected[0].source, given)
        defaults = _defaults(committed)
        extra = {k for k in given if not k.startswith("__")} - PIPELINE_PARAMETERS
        assert {k: given[k] for k in extra} == {k: defaults.get(k) for k in extra}, run
    ours, theirs = _code_cells(committed), _code_cells(executed)
    assert [c.source for c in ours] == [c.source for c in theirs], (
        f"{path.name} is not the notebook the smoke run executed"
    )
    compare = _comparer()
    checked = 0
    for number, (reference, test) in enumerate(zip(ours, theirs, strict=True)):
        options = _options(reference)
        assert options <= KNOWN_OPTIONS, (path.name, number, options)
        errors = [o for o in test.outputs if o.get("output_type") == "error"]
        assert not errors, (path.name, number, errors)
        # as nbval: a cell the reference never ran may hold no outputs, and is not compared
        unrun = reference.execution_count is None
        assert not (unrun and reference.outputs), (path.name, number, "unrun cell has outputs")
        if CHECKED in options and not unrun:
            checked += 1
            # as nbval: the streams of each side merged by name (how a cell's prints split into
            # stream messages depends on when the kernel flushed them)
            ours_out = nbval_plugin.coalesce_streams(copy.deepcopy(reference.outputs))
            theirs_out = nbval_plugin.coalesce_streams(
                copy.deepcopy(_without_log_records(test.outputs))
            )
            same = compare.compare(theirs_out, ours_out)
            assert same, f"{path.name}, cell {number}:\n" + "\n".join(compare.comparison_traceback)
    print(f"{path.name}: {len(ours)} cells ran, {checked} checked against {run}")


def test_the_comparison_sees_a_changed_output():
    """nbval's comparison, as set up here, fails a checked output that differs in one digit."""
    compare = _comparer()
    ref = [nbformat.v4.new_output("stream", name="stdout", text="AUC 0.812\n")]
    assert compare.compare(ref, ref)
    test = [nbformat.v4.new_output("stream", name="stdout", text="AUC 0.813\n")]
    assert not compare.compare(test, ref)
    # images are not compared, as with nbval without nbdime
    pic = [nbformat.v4.new_output("display_data", data={"image/png": "AAAA", "text/plain": "x"})]
    other = [nbformat.v4.new_output("display_data", data={"image/png": "BBBB", "text/plain": "x"})]
    assert compare.compare(pic, other)


def test_only_the_librarys_log_records_are_taken_out():
    record = "2026-11-29 17:18:37,764 ppdp.mechanisms.sppm.frank_wolfe: SPPM: 300 x 300 mapping\n"
    warning = "/lib/x.py:3: UserWarning: Solution may be inaccurate.\n"
    outputs = [
        nbformat.v4.new_output("stream", name="stderr", text=record),
        nbformat.v4.new_output("stream", name="stderr", text=record + warning),
        nbformat.v4.new_output("stream", name="stdout", text=record),
    ]
    kept = _without_log_records(outputs)
    assert [(o["name"], o["text"]) for o in kept] == [("stderr", warning), ("stdout", record)]
    # the format the pattern reads is the one the logs are written in
    from ppdp.compendium.logs import FORMAT

    assert FORMAT == "%(asctime)s %(name)s: %(message)s"


def test_streams_are_merged_before_the_comparison_as_nbval_merges_them():
    """One print split into two stream messages (and a log record between them) compares equal to
    the same text in one message, as under nbval."""
    record = "2026-11-29 17:18:37,764 ppdp.mechanisms.sppm.frank_wolfe: SPPM\n"
    split = [
        nbformat.v4.new_output("stream", name="stdout", text="table 1\n\n"),
        nbformat.v4.new_output("stream", name="stderr", text=record),
        nbformat.v4.new_output("stream", name="stdout", text="table 2\n"),
    ]
    whole = [nbformat.v4.new_output("stream", name="stdout", text="table 1\n\ntable 2\n")]
    merged = nbval_plugin.coalesce_streams(copy.deepcopy(_without_log_records(split)))
    assert _comparer().compare(merged, nbval_plugin.coalesce_streams(copy.deepcopy(whole)))
