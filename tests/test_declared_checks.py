"""Mistakes caught where they are declared, with a message that says what is wrong.

A benchmark entry is checked when it is registered (its levels, the attribute it protects, its
mechanism-aware attacker); the mechanism contract checks that a release keeps its input's dtypes;
the data layer names a directory that stands where a cached file belongs and a data directory
that cannot be created.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd
import pytest

import ppdp.datasets as ds
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.contract import MechanismCase, contract_checks
from ppdp.datasets.registry import DATASETS, DataFile, Dataset, MirrorSource
from ppdp.experiments.benchmark import registry as reg
from ppdp.guarantees import enforce


def _copy(data, train, level, random_state):
    return train.copy(), {}


@pytest.fixture
def declared():
    """The names registered by a test, taken off the registry again afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        reg.REGISTRY.pop(name, None)


# ------------------------------------------------------------------------------------------------
# the benchmark's entries


def test_a_nan_level_is_refused_when_registered(declared):
    declared.append("nan_level")
    entry = reg.Entry("nan_level", "test", "epsilon", {"adult": (1.0, float("nan"))}, _copy)
    with pytest.raises(ValueError, match=r"nan_level: levels\['adult'\] holds nan.*'epsilon'"):
        reg.register(entry)
    infinite = reg.Entry("nan_level", "test", "epsilon", {"adult": (float("inf"),)}, _copy)
    with pytest.raises(ValueError, match=r"levels\['adult'\] holds inf.*range \(-inf, inf\)"):
        reg.register(infinite)
    assert "nan_level" not in reg.REGISTRY


def test_a_misspelt_protects_is_refused_with_the_closest_attribute(declared):
    declared.append("misspelt_protects")
    entry = reg.Entry("misspelt_protects", "test", "-", {"movielens": (0,)}, _copy, protects="agee")
    with pytest.raises(ValueError) as err:
        reg.register(entry)
    message = str(err.value)
    assert "protects='agee'" in message
    assert "'movielens'" in message
    assert "did you mean 'age'?" in message
    assert "misspelt_protects" not in reg.REGISTRY


def test_an_unknown_aware_attacker_is_refused_when_registered(declared):
    declared.append("unknown_aware")
    entry = reg.Entry("unknown_aware", "test", "-", {"adult": (0,)}, _copy, aware="random_table")
    with pytest.raises(ValueError) as err:
        reg.register(entry)
    message = str(err.value)
    assert "aware='random_table'" in message
    assert "did you mean 'random_tables'?" in message
    assert "unknown_aware" not in reg.REGISTRY


# ------------------------------------------------------------------------------------------------
# the mechanism contract


class _ObjectRelease(Mechanism):
    """Keeps every value but releases every column as ``object``, and declares no such change."""

    guarantee = "none declared: a test fixture"

    def __init__(self, column="age"):
        self.column = column

    def fit(self, df):
        self.table_ = df.copy()
        return self

    def guarantee_checks(self):
        check_fitted(self, "table_")
        return []

    def release(self, random_state=None):
        check_random_state(random_state)
        enforce(self.guarantee_checks())
        return self.table_.astype(object)


def _people() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {"age": rng.integers(18, 60, 12), "zip": rng.choice(["a", "b"], 12), "w": rng.random(12)}
    )


def test_the_contract_fails_a_release_of_object_columns():
    case = MechanismCase(
        "object_release", _ObjectRelease, _people, {"column": 3}, column="age", random=False
    )
    failures = {}
    for check in contract_checks():
        try:
            check(case)
        except AssertionError as err:
            failures[check.__name__] = str(err)
    dtype_failures = [m for m in failures.values() if "dtype" in m]
    assert dtype_failures, f"no contract check caught the object release; failures: {failures}"
    assert "'age': 'int64 -> object'" in dtype_failures[0]
    assert "'w': 'float64 -> object'" in dtype_failures[0]


# ------------------------------------------------------------------------------------------------
# the data layer


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A one-file dataset served by a mirror in ``tmp_path``, offline."""
    data = b"x,y\n1,2\n3,4\n"
    file = DataFile(
        "toy.csv",
        hashlib.sha256(data).hexdigest(),
        len(data),
        rows=2,
        sources=(MirrorSource("toy"),),
    )
    (tmp_path / "mirror" / "toy").mkdir(parents=True)
    (tmp_path / "mirror" / "toy" / "toy.csv").write_bytes(data)
    monkeypatch.setitem(
        DATASETS, "toy", Dataset("toy", "Two rows.", "", "", "", files=(file,), loader="")
    )
    monkeypatch.setenv("PPDP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PPDP_DATA_MIRROR", str(tmp_path / "mirror"))
    monkeypatch.setenv("PPDP_OFFLINE", "1")
    return tmp_path


def test_a_directory_where_a_cached_file_belongs_is_named(toy):
    in_the_way = toy / "data" / "raw" / "toy" / "toy.csv"
    in_the_way.mkdir(parents=True)
    with pytest.raises(OSError) as err:
        ds.fetch("toy", progress=False)
    message = str(err.value)
    assert "\n" not in message
    assert str(in_the_way) in message
    assert "is a directory" in message
    assert "remove it" in message


def test_a_data_directory_that_cannot_be_created_is_named(toy, monkeypatch):
    (toy / "file").write_text("a regular file, not a folder\n")
    data = toy / "file" / "sub"
    monkeypatch.setenv("PPDP_DATA_DIR", str(data))
    with pytest.raises(OSError) as err:
        ds.fetch("toy", progress=False)
    message = str(err.value)
    assert "\n" not in message
    assert re.search(rf"cannot create the data directory {re.escape(str(data))}\b", message)
    assert "PPDP_DATA_DIR" in message
