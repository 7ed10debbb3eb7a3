"""Tidy result tables: encoding of parameters, validation, atomic writing, summaries."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from ppdp.experiments.common import (
    TIDY_COLUMNS,
    claim_intervals,
    concat_tidy,
    expand_parameters,
    format_parameters,
    mean_halfwidth,
    parse_parameters,
    rank_correlation,
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


def _grid() -> pd.DataFrame:
    rows = tidy_rows("fig4", "MC", {"loss": 0.5}, parameters={"delta": 0.2, "l": 10, "s": "B"})
    rows += tidy_rows("fig4", "MC", {"loss": 0.7}, parameters={"delta": 0.5, "l": 3, "s": "A"})
    rows += tidy_rows("fig5", "MC", {"loss": 0.1}, parameters={"delta": 1 / 6})
    rows += tidy_rows("claims", "", {"x": 1.0})
    return tidy_frame(rows)


def test_expand_parameters_types_and_missing_values():
    out = expand_parameters(_grid())
    assert list(out.columns) == [*TIDY_COLUMNS, "delta", "l", "s"]
    assert out["delta"].dtype == np.float64 and out["l"].dtype == np.float64  # l has gaps
    assert out["s"].dtype == object
    by_metric = out.set_index(["experiment", "value"])
    assert by_metric.loc[("fig5", 0.1), "delta"] == pytest.approx(1 / 6, rel=1e-11)
    assert np.isnan(by_metric.loc[("claims", 1.0), "l"])
    assert by_metric.loc[("fig4", 0.7), "s"] == "A"
    complete = expand_parameters(_grid().query("experiment == 'fig4'"), ["l"])
    assert complete["l"].dtype == np.int64 and sorted(complete["l"]) == [3, 10]
    # the frame itself is not changed
    assert list(_grid().columns) == list(TIDY_COLUMNS)


def test_expand_parameters_absent_key_and_clash():
    assert expand_parameters(_grid(), ["hops"])["hops"].isna().all()
    clash = tidy_frame(tidy_rows("f", "m", {"v": 1}, parameters={"method": "x"}))
    with pytest.raises(ValueError, match=r"\['method'\] would overwrite"):
        expand_parameters(clash)
    with pytest.raises(ValueError, match="no 'parameters' column"):
        expand_parameters(pd.DataFrame({"value": [1.0]}))


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["a", "b", "c"]), st.integers(-1000, 1000) | st.floats(-1e6, 1e6)
        ),
        min_size=1,
        max_size=6,
    )
)
def test_expand_parameters_inverts_format_parameters(grid):
    frame = tidy_frame(
        [r for i, p in enumerate(grid) for r in tidy_rows("f", "m", {"v": i}, parameters=p)]
    )
    out = expand_parameters(frame).sort_values("value")
    for key in ("a", "b", "c"):
        expected = [p.get(key, np.nan) for p in grid]
        got = out[key].to_numpy(float) if key in out else np.full(len(grid), np.nan)
        np.testing.assert_allclose(got, np.asarray(expected, float), rtol=1e-11, equal_nan=True)


def test_mean_halfwidth_matches_scipy_intervals():
    values = np.array([1.0, 2.5, 2.0, 4.0, 3.5])
    mean, sem = values.mean(), stats.sem(values)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=mean, scale=sem)
    half_t = mean_halfwidth(values.std(ddof=1), len(values), distribution="t")
    assert half_t == pytest.approx((high - low) / 2, rel=1e-12)
    low, high = stats.norm.interval(0.9, loc=mean, scale=sem)
    half_z = mean_halfwidth(values.std(ddof=1), len(values), confidence=0.9)
    assert half_z == pytest.approx((high - low) / 2, rel=1e-12)
    # one seed: no spread for error bars, no t-interval for the report
    assert mean_halfwidth(np.nan, 1) == 0.0
    assert np.isnan(mean_halfwidth(np.nan, 1, distribution="t"))
    both = mean_halfwidth([1.0, 2.0], [4, 16])
    np.testing.assert_allclose(both, stats.norm.ppf(0.975) * np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="confidence must be in"):
        mean_halfwidth(1.0, 3, confidence=95)
    with pytest.raises(ValueError, match="distribution must be"):
        mean_halfwidth(1.0, 3, distribution="z")


def test_summarize_interval_is_the_normal_one():
    rows = [r for s, v in enumerate([1.0, 3.0, 2.0]) for r in tidy_rows("f", "m", {"x": v}, seed=s)]
    out = summarize(tidy_frame(rows)).iloc[0]
    half = stats.norm.ppf(0.975) * 1.0 / np.sqrt(3)
    assert (out["ci_low"], out["ci_high"]) == pytest.approx((2.0 - half, 2.0 + half))


def test_rank_correlation_is_spearman_and_zero_without_a_trend():
    x, y = [1, 2, 3, 4, 5], [2.0, 1.0, 4.0, 3.0, 5.0]
    assert rank_correlation(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert rank_correlation([1, 2, 3], [5, 5, 5]) == 0.0
    assert rank_correlation([2, 2], [1, 3]) == 0.0
    assert rank_correlation([1], [1]) == 0.0


def test_rank_correlation_does_not_rank_the_last_bits_of_equal_values():
    """Means that are equal but summed in another order differ in their last bits; they are ties,
    so a flat curve has no trend, and a curve flat over part of its range keeps ties there."""
    rng = np.random.default_rng(0)
    per_seed = rng.random((10, 1))
    w = rng.dirichlet(np.ones(10))
    flat = np.array(
        [w @ per_seed[:, 0], (w[::-1] @ per_seed[::-1, 0]), float(np.dot(w, per_seed[:, 0]))]
    )
    flat[1] = np.nextafter(flat[1], 1.0)  # one ulp apart, as another kernel may sum
    assert np.ptp(flat) > 0
    assert rank_correlation([2, 3, 4], flat) == 0.0
    assert rank_correlation([2, 3, 4], -flat) == 0.0
    curve = [0.3, 0.3 + 1e-16, 0.2]
    assert rank_correlation([2, 3, 4], curve) == pytest.approx(
        stats.spearmanr([2, 3, 4], [0.3, 0.3, 0.2]).statistic
    )
    # real differences, however small against the values' scale at 1e-8, are kept
    assert rank_correlation([1, 2, 3], [1.0, 1.0 + 1e-8, 1.0 + 2e-8]) == pytest.approx(1.0)


def test_claim_intervals_one_row_per_claim():
    rows = tidy_rows("claims", "H", {"p.a": 1.0, "p.a.ci_low": 0.5, "p.a.ci_high": 1.5, "p.b": 2.0})
    table = claim_intervals(tidy_frame(rows))
    assert list(table.index) == ["p.a", "p.b"]
    assert table.loc["p.a"].tolist() == [1.5, 0.5, 1.0]
    assert np.isnan(table.loc["p.b", "ci_low"]) and table.loc["p.b", "value"] == 2.0


def test_parameters_strings_are_parsed_only_by_expand_parameters():
    """Experiments and notebooks select on the columns of expand_parameters, never on the string."""
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sources = {
        p.name: p.read_text()
        for p in (root / "lib" / "ppdp" / "experiments").glob("*.py")
        if p.name != "common.py"
    }
    for path in (root / "notebooks").glob("*.ipynb"):
        cells = json.loads(path.read_text())["cells"]
        sources[path.name] = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "code"
        )
    parsing = re.compile(r"parameters\"?\]?\.str\.|split\(\"[=;]\"|parse_parameters\(")
    for name, text in sources.items():
        assert not parsing.search(text), f"{name} parses parameter strings: {parsing.search(text)}"
