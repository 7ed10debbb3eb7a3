"""The shared smoke run is read only when it was made from this tree's sources and environment."""

from __future__ import annotations

import json

import pytest

import shared_smoke_run as shared


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A small source tree in place of the project's: a Snakefile, a profile and a module."""
    (tmp_path / "config").mkdir()
    (tmp_path / "lib" / "ppdp" / "__pycache__").mkdir(parents=True)
    (tmp_path / "Snakefile").write_text("rule all:\n")
    (tmp_path / "config" / "smoke.yaml").write_text("profile: smoke\n")
    (tmp_path / "lib" / "ppdp" / "mod.py").write_text("X = 1\n")
    monkeypatch.setattr(shared, "ROOT", tmp_path)
    return tmp_path


def _stamped(folder, digest):
    folder.mkdir(exist_ok=True)
    (folder / shared.STAMP).write_text(json.dumps({"sources": digest, "made_by_make": True}))
    return folder


def test_the_digest_follows_every_source_and_nothing_else(tree, monkeypatch):
    first = shared.sources_digest()
    assert shared.sources_digest() == first
    # compiled files and files outside the sources do not count
    (tree / "lib" / "ppdp" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (tree / "README.md").write_text("words\n")
    assert shared.sources_digest() == first
    # a changed source, a new one, a renamed one and a kernel variable all do
    (tree / "lib" / "ppdp" / "mod.py").write_text("X = 2\n")
    second = shared.sources_digest()
    assert second != first
    (tree / "notebooks").mkdir()
    (tree / "notebooks" / "new.ipynb").write_text("{}")
    third = shared.sources_digest()
    assert third != second
    (tree / "notebooks" / "new.ipynb").rename(tree / "notebooks" / "other.ipynb")
    assert shared.sources_digest() != third
    before = shared.sources_digest()
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Zen")
    assert shared.sources_digest() != before


def test_a_run_of_these_sources_is_read(tree, tmp_path, monkeypatch):
    folder = _stamped(tmp_path / "run", shared.sources_digest())
    monkeypatch.setenv(shared.SHARED_RUN_VARIABLE, str(folder))
    assert shared.shared_run() == folder
    assert shared.current(folder)
    assert shared.made_by_make(folder)


def test_no_variable_means_no_shared_run(tree, monkeypatch):
    monkeypatch.delenv(shared.SHARED_RUN_VARIABLE, raising=False)
    assert shared.shared_run() is None


def test_a_run_of_other_sources_is_refused(tree, tmp_path, monkeypatch):
    folder = _stamped(tmp_path / "run", shared.sources_digest())
    (tree / "config" / "smoke.yaml").write_text("profile: smoke\nruns: {}\n")
    monkeypatch.setenv(shared.SHARED_RUN_VARIABLE, str(folder))
    with pytest.raises(RuntimeError, match="other sources"):
        shared.shared_run()
    assert not shared.current(folder)


def test_an_unfinished_run_is_refused(tree, tmp_path, monkeypatch):
    folder = tmp_path / "run"
    folder.mkdir()
    monkeypatch.setenv(shared.SHARED_RUN_VARIABLE, str(folder))
    with pytest.raises(RuntimeError, match="no finished smoke run"):
        shared.shared_run()


def test_reuse_keeps_a_current_run_without_running(tree, tmp_path, monkeypatch, capsys):
    folder = _stamped(tmp_path / "run", shared.sources_digest())

    def no_run(*args, **kwargs):
        raise AssertionError("a current run was run again")

    monkeypatch.setattr(shared, "run", no_run)
    assert shared.main(["--reuse", str(folder)]) == 0
    assert "reused" in capsys.readouterr().out
