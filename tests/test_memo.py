"""Named caches (ppdp.memo): every value the library keeps between calls is held by a Memo."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import ppdp
from ppdp.memo import Memo, clear_memos, memos

LIB = Path(ppdp.__file__).resolve().parent


@pytest.fixture
def memo(request):
    m = Memo(f"test.{request.node.name}", "test values", maxsize=2)
    yield m
    m.forget()


def test_a_miss_computes_and_a_hit_does_not(memo):
    calls = []
    assert memo.get("a", lambda: calls.append(1) or 10) == 10
    assert memo.get("a", lambda: calls.append(1) or 99) == 10
    assert calls == [1] and (memo.hits, memo.misses) == (1, 1)


def test_the_least_recently_used_value_goes_first(memo):
    memo.get("a", lambda: 1)
    memo.get("b", lambda: 2)
    memo.get("a", lambda: 0)  # a is now the most recent
    memo.get("c", lambda: 3)
    assert memo.keys() == ["a", "c"] and "b" not in memo


def test_an_isolated_block_keeps_the_earlier_values_even_on_error(memo):
    memo.get("kept", lambda: 1)
    with pytest.raises(RuntimeError), memo.isolated(maxsize=1):
        assert memo.scopes == 1 and len(memo) == 0
        memo.get("inside", lambda: 2)
        raise RuntimeError("stop")
    assert memo.scopes == 0 and memo.keys() == ["kept"] and memo.maxsize == 2


@pytest.mark.parametrize("maxsize", [0, -1, 1.5, True])
def test_bad_bounds_are_refused(maxsize):
    with pytest.raises(ValueError, match="maxsize"):
        Memo("test.bad_bound", "nothing", maxsize=maxsize)
    assert "test.bad_bound" not in memos()


def test_names_are_unique(memo):
    with pytest.raises(ValueError, match="exists already"):
        Memo(memo.name, "again")


def _import_everything():
    for info in pkgutil.walk_packages(ppdp.__path__, "ppdp."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)


def test_the_library_declares_its_caches_and_clear_memos_empties_them():
    _import_everything()
    found = {name: m for name, m in memos().items() if not name.startswith(("test.", "doc."))}
    assert {
        "attacks.suite.fitted_attackers",
        "experiments.hyobscure.populations",
        "experiments.hyobscure.splits",
        "experiments.imposter.releases",
        "experiments.sppm.fits",
        "mechanisms.mutual_cover.lp_patterns",
        "mechanisms.relay.references",
        "mechanisms.relay.units",
        "published.claims_files",
    } <= set(found)
    assert all(m.keeps for m in found.values())
    clear_memos()
    assert all(len(m) == 0 and m.hits == m.misses == 0 for m in found.values())


def test_no_module_keeps_state_outside_a_memo():
    """No ``global`` rebinding, and functools' cache only on functions of no argument (a lazy
    import or compilation, built once), never as a cache of computed values."""
    offenders = []
    for path in sorted(LIB.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Global):
                offenders.append(f"{path.name}:{node.lineno} global {', '.join(node.names)}")
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for dec in node.decorator_list:
                text = ast.unparse(dec)
                takes_arguments = bool(node.args.args or node.args.kwonlyargs or node.args.vararg)
                if "lru_cache" in text or (
                    text in ("cache", "functools.cache") and takes_arguments
                ):
                    offenders.append(f"{path.name}:{node.lineno} @{text}")
    assert offenders == []
