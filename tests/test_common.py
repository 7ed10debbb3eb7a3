"""Tidy result tables: encoding of parameters, validation, atomic writing, summaries."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ppdp.experiments.common import (
    TIDY_COLUMNS,
    concat_tidy,
    format_parameters,
    parse_parameters,
    read_results,
    summarize,
    tidy_frame,
    tidy_rows,
    write_results,
)


def test_format_parameters_sorted_and_stable():
    assert format_parameters({"l": 10, "delta": 1 / 6}) == "delta=0.166666666667;l=10"
    assert format_parameters({}) == ""
    assert format_parameters({"b": np.float64(0.5), "a": "x"}) == "a=x;b=0.5"


@given(
    st.dictionaries(
        st.text("abcdefgh_", min_size=1, max_size=5), st.integers(-1000, 1000), max_size=5
    )
)
def test_parameters_round_trip(params):
    assert parse_parameters(format_parameters(params)) == {k: str(v) for k, v in params.items()}


def test_format_parameters_rejects_separators():
    with pytest.raises(ValueError, match="must not contain"):
        format_parameters({"a;b": 1})
    with pytest.raises(ValueError, match="value"):
        format_parameters({"a": "x;y"})


def test_tidy_frame_orders_and_types():
    rows = tidy_rows("fig1", "B", {"m2": 2, "m1": 1}, parameters={"k": 3}, seed=4)
    rows += tidy_rows("fig1", "A", {"m1": 0.5})
    frame = tidy_frame(rows)
    assert tuple(frame.columns) == TIDY_COLUMNS
    assert frame["method"].tolist() == ["A", "B", "B"]
    assert frame["seed"].tolist() == [-1, 4, 4]
    assert frame["value"].dtype == np.float64


def test_tidy_frame_missing_columns():
    with pytest.raises(ValueError, match="lack the columns"):
        tidy_frame(pd.DataFrame({"method": ["a"], "value": [1.0]}))


def test_empty_tidy_frame_has_columns():
    assert tuple(tidy_frame([]).columns) == TIDY_COLUMNS
    assert tuple(concat_tidy([]).columns) == TIDY_COLUMNS


def test_write_results_round_trip_and_bytes(tmp_path):
    frame = tidy_frame(
        tidy_rows("e", "m", {"x": 1 / 3, "y": float("nan")}, parameters={"p": 1}, seed=0)
    )
    path = write_results(frame, tmp_path / "sub" / "r.csv")
    first = path.read_bytes()
    back = read_results(path)
    assert back["value"].iloc[0] == pytest.approx(1 / 3, rel=1e-9)
    assert np.isnan(back["value"].iloc[1])
    write_results(back, path)
    assert path.read_bytes() == first
    assert not list((tmp_path / "sub").glob("*.tmp"))


def test_write_results_empty_path_writes_nothing(tmp_path):
    assert write_results(tidy_frame([]), "") is None


def test_write_results_leaves_nothing_on_failure(tmp_path, monkeypatch):
    frame = tidy_frame(tidy_rows("e", "m", {"x": 1.0}))

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", boom)
    with pytest.raises(OSError):
        write_results(frame, tmp_path / "r.csv")
    assert list(tmp_path.iterdir()) == []


def test_summarize_interval():
    rows = []
    for seed, value in enumerate([1.0, 2.0, 3.0, 4.0]):
        rows += tidy_rows("e", "m", {"x": value}, seed=seed)
    out = summarize(tidy_frame(rows))
    row = out.iloc[0]
    assert row["mean"] == 2.5 and row["count"] == 4
    half = 1.959963984540054 * np.std([1, 2, 3, 4], ddof=1) / 2
    assert row["ci_high"] - row["mean"] == pytest.approx(half)
