"""Named caches (ppdp.memo): every value the library keeps between calls is held by a Memo."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import numpy as np
import pandas as pd
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
        "datasets.adult_frames",
        "experiments.hyobscure.populations",
        "experiments.hyobscure.scenario_one_predictions",
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


# ------------------------------------------------------------------------------------------------
# keys by content (digest) and values their receivers cannot change (freeze)


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"n": [1, 2, 3], "x": [0.5, 1.5, 2.5], "c": pd.Categorical(["a", "b", "a"])},
        index=[10, 11, 12],
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.assign(x=[0.5, 1.5, 2.25]),
        lambda f: f.rename(columns={"n": "x", "x": "n"}),
        lambda f: f.astype({"n": np.float64}),
        lambda f: f.assign(c=f["c"].cat.add_categories(["z"])),
        lambda f: f.set_axis([10, 11, 13]),
        lambda f: f[["x", "n", "c"]],
        lambda f: f.assign(n=pd.Series(["1", 2, 3], index=f.index, dtype=object)),
    ],
    ids=["value", "names", "dtype", "categories", "index", "column_order", "object_types"],
)
def test_the_digest_of_a_frame_holds_values_index_columns_and_dtypes(change):
    from ppdp.memo import digest

    frame = _frame()
    assert digest(frame) == digest(frame.copy())
    assert digest(change(frame)) != digest(frame)


def test_the_digest_of_an_array_holds_every_byte_its_dtype_and_shape():
    from ppdp.memo import digest

    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert digest(a) == digest(a.copy()) == digest(np.asfortranarray(a))
    changed = a.copy()
    changed[1, 2] += 1
    for other in (changed, a.astype(np.int32), a.reshape(4, 3), a[:, :3]):
        assert digest(other) != digest(a)
    assert digest([1, 2]) != digest([1, 2.0]) != digest(["1", 2])
    assert digest({"a": 1, "b": (2, None)}) == digest({"b": (2, None), "a": 1})
    assert digest(("ab",)) != digest(("a", "b"))


def test_the_digest_refuses_what_it_cannot_read_whole():
    from ppdp.memo import digest

    with pytest.raises(TypeError, match="digest cannot hash a 'object'"):
        digest(1, object())


def test_a_frozen_memo_hands_out_values_no_caller_can_change(memo):
    from ppdp.memo import Memo

    frozen_memo = Memo(f"{memo.name}.frozen", "test values", freeze=True)
    try:
        array = frozen_memo.get("array", lambda: np.zeros(3))
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0
        listed = frozen_memo.get("list", lambda: [1, [2, 3]])
        assert listed == (1, (2, 3))
        mapping = frozen_memo.get("dict", lambda: {"a": [1]})
        with pytest.raises(TypeError):
            mapping["b"] = 2
        frame = frozen_memo.get("frame", lambda: (_frame(), 1))[0]
        frame.loc[10, "x"] = -1.0
        assert frozen_memo.get("frame", lambda: None)[0].loc[10, "x"] == 0.5
        with pytest.raises(TypeError, match="keeps frozen values: cannot freeze"):
            frozen_memo.get("model", lambda: object())
    finally:
        frozen_memo.forget()


def test_freezing_copies_an_array_rather_than_locking_the_computations_input(memo):
    from ppdp.memo import Memo

    frozen_memo = Memo(f"{memo.name}.frozen", "test values", freeze=True)
    try:
        source = np.arange(3)
        kept = frozen_memo.get("k", lambda: source)
        source[0] = 7  # the input stays the caller's to change, and the kept value does not move
        assert source.flags.writeable and kept[0] == 0
    finally:
        frozen_memo.forget()
