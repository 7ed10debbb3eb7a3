"""Tidy result tables: typed parameter columns, validation, atomic writing, summaries."""

import tempfile
from pathlib import Path

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
    facet_columns,
    mean_halfwidth,
    parameter_columns,
    parameter_labels,
    rank_correlation,
    read_results,
    setting_ids,
    summarize,
    tidy_frame,
    tidy_rows,
    with_parameters,
    write_results,
)


def test_tidy_frame_orders_and_types():
    rows = tidy_rows("fig1", "B", {"m2": 2, "m1": 1}, parameters={"k": 3}, seed=4)
    rows += tidy_rows("fig1", "A", {"m1": 0.5})
    frame = tidy_frame(rows)
    assert tuple(frame.columns) == (*TIDY_COLUMNS, "k")
    assert frame["method"].tolist() == ["A", "B", "B"]
    assert frame["seed"].tolist() == [-1, 4, 4]
    assert frame["value"].dtype == np.float64
    # the same rows in another order give the same frame
    pd.testing.assert_frame_equal(tidy_frame(rows[::-1]), frame)


def test_tidy_frame_missing_columns():
    with pytest.raises(ValueError, match="lack the columns"):
        tidy_frame(pd.DataFrame({"method": ["a"], "value": [1.0]}))


def test_results_of_the_old_format_are_refused_by_name(tmp_path):
    path = tmp_path / "old.csv"
    path.write_text("experiment,method,parameters,seed,metric,value\nf,m,k=1,0,x,1.0\n")
    with pytest.raises(ValueError, match="before parameters became columns"):
        read_results(path)


def test_parameters_may_not_take_the_name_of_a_column():
    for name in ("value", "seed", "ci_low", "parameters", ""):
        with pytest.raises(ValueError, match="not allowed"):
            tidy_rows("f", "m", {"v": 1.0}, parameters={name: 1})


def test_intervals_are_columns_of_their_metric():
    rows = tidy_rows("claims", "", {"a": 1.0, "b": 2.0}, intervals={"a": (0.5, 1.5)})
    frame = tidy_frame(rows)
    assert frame[["ci_low", "ci_high"]].iloc[0].tolist() == [0.5, 1.5]
    assert frame[["ci_low", "ci_high"]].iloc[1].isna().all()
    with pytest.raises(ValueError, match=r"intervals \['c'\] name no metric"):
        tidy_rows("claims", "", {"a": 1.0}, intervals={"c": (0.0, 1.0)})


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


def test_parameter_columns_types_and_missing_values():
    out = _grid()
    assert list(out.columns) == [*TIDY_COLUMNS, "delta", "l", "s"]
    assert parameter_columns(out) == ["delta", "l", "s"]
    assert out["delta"].dtype == np.float64 and out["l"].dtype == np.float64  # l has gaps
    assert out["s"].dtype == object
    by_metric = out.set_index(["experiment", "value"])
    assert by_metric.loc[("fig5", 0.1), "delta"] == pytest.approx(1 / 6, rel=1e-11)
    assert np.isnan(by_metric.loc[("claims", 1.0), "l"])
    assert by_metric.loc[("fig4", 0.7), "s"] == "A"
    complete = tidy_frame(tidy_rows("f", "m", {"v": 1.0}, parameters={"l": 3, "x": "1.5"}))
    assert complete["l"].dtype == np.int64 and complete["x"].dtype == np.float64


def test_with_parameters_adds_absent_keys_and_refuses_columns():
    assert with_parameters(_grid(), ["hops"])["hops"].isna().all()
    assert with_parameters(_grid(), ["l"]) is not None
    with pytest.raises(ValueError, match="tidy columns, not parameters"):
        with_parameters(_grid(), ["method"])


def test_labels_and_settings_of_the_parameters():
    frame = _grid()
    assert parameter_labels(frame).tolist() == [
        "",
        "delta = 0.2, l = 10, s = B",
        "delta = 0.5, l = 3, s = A",
        "delta = 0.166666666667",
    ]
    # a missing value is a setting of its own; equal settings share an id
    ids = setting_ids(pd.concat([frame, frame], ignore_index=True))
    assert ids.nunique() == 4 and (ids[:4].to_numpy() == ids[4:].to_numpy()).all()
    # summarize keeps rows whose parameters are missing
    assert summarize(frame)["count"].sum() == len(frame)


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["a", "b", "c"]),
            st.integers(-1000, 1000) | st.floats(-1e6, 1e6) | st.sampled_from(["x", "y1"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_results_round_trip_keeps_parameter_values_and_types(grid):
    frame = tidy_frame(
        [r for i, p in enumerate(grid) for r in tidy_rows("f", "m", {"v": i}, parameters=p)]
    )
    with tempfile.TemporaryDirectory() as tmp:
        back = read_results(write_results(frame, Path(tmp) / "r.csv"))
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    out = frame.sort_values("value")
    for key in ("a", "b", "c"):
        expected = [p.get(key, np.nan) for p in grid]
        got = out[key].tolist() if key in out else [np.nan] * len(grid)
        for value, want in zip(got, expected, strict=True):
            if isinstance(want, str) or isinstance(value, str):
                assert str(value) == (want if isinstance(want, str) else f"{want:.12g}")
            else:
                np.testing.assert_allclose(value, want, rtol=1e-11, equal_nan=True)


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


def test_facets_are_text_columns_after_the_tidy_ones():
    rows = tidy_rows(
        "fig3", "H", {"privacy": 0.4}, parameters={"budget": 0.1}, facets={"model": "rf"}
    )
    rows += tidy_rows("fig3", "H", {"utility_loss": 0.2}, parameters={"budget": 0.1})
    frame = tidy_frame(rows)
    assert list(frame.columns) == [*TIDY_COLUMNS, "model", "budget"]
    assert facet_columns(frame) == ["model"] and parameter_columns(frame) == ["budget"]
    assert frame["model"].iloc[0] == "rf" and pd.isna(frame["model"].iloc[1])
    # the privacy and the utility row are measured at one setting
    assert setting_ids(frame).nunique() == 1
    with tempfile.TemporaryDirectory() as tmp:
        back = read_results(write_results(frame, Path(tmp) / "r.csv"))
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    # a facet is none of the parameters' names, and only a facet is a facet
    with pytest.raises(ValueError, match="not allowed"):
        tidy_rows("f", "m", {"v": 1.0}, parameters={"model": "rf"})
    with pytest.raises(ValueError, match=r"facets \['grid'\] are not allowed"):
        tidy_rows("f", "m", {"v": 1.0}, facets={"grid": "a"})


def test_claim_intervals_one_row_per_claim():
    rows = tidy_rows("claims", "H", {"p.a": 1.0, "p.b": 2.0}, intervals={"p.a": (0.5, 1.5)})
    table = claim_intervals(tidy_frame(rows))
    assert list(table.index) == ["p.a", "p.b"]
    assert table.loc["p.a"].tolist() == [1.5, 0.5, 1.0]
    assert np.isnan(table.loc["p.b", "ci_low"]) and table.loc["p.b", "value"] == 2.0


def test_no_parameter_strings_or_interval_rows_remain():
    """Parameters are columns and intervals are columns: no experiment, benchmark script, notebook
    or the report builds or reads "k=v;k=v" strings, a ``parameters`` column or ``<id>.ci_low`` rows."""
    import json
    import re

    root = Path(__file__).resolve().parents[1]
    sources = {
        str(p.relative_to(root)): p.read_text()
        for p in [
            *(root / "lib" / "ppdp" / "experiments").rglob("*.py"),
            *(root / "benchmarks").glob("*.py"),
            *(root / "lib" / "ppdp" / "report").rglob("*.py"),
        ]
    }
    assert len(sources) > 40, "the walk found too few sources to be the experiments and report"
    for path in (root / "notebooks").glob("*.ipynb"):
        cells = json.loads(path.read_text())["cells"]
        sources[path.name] = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "code"
        )
    old = re.compile(
        r"""["']parameters["']\]|index=["']parameters["']|split\(["'][=;]["']\)"""
        r"""|(format|parse|expand)_parameters\(|["']\.ci_(low|high)["']|\.across\.ci_"""
    )
    for name, text in sources.items():
        assert not old.search(text), f"{name} still uses the old format: {old.search(text)}"
