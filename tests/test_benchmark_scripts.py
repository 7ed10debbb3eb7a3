"""The benchmark scripts that back a claim's cause, run at a smoke scale."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_imposter_table2_sweep_records_both_settings_and_resumes(tmp_path, monkeypatch, capsys):
    sweep = load("imposter_table2_sweep")
    monkeypatch.setattr(sweep, "RESULTS", tmp_path)
    args = ["--rows", "1500", "--epochs", "1", "--hidden", "16", "--lambdas", "0", "1"]
    args += ["--thetas", "0.01", "0.1", "--seeds", "0"]
    frame = sweep.main(args)
    assert len(frame) == 4  # two lambdas x two thetas
    scores = ["gender_accuracy", "gender_f1", "income_accuracy", *sweep.SETTING_A]
    assert frame[scores].notna().all(axis=None)
    assert frame[scores].ge(0).all(axis=None) and frame[scores].le(100).all(axis=None)
    # Setting A is the real data: the same for every training setting at one theta
    assert frame.groupby("theta")["income_accuracy_a"].nunique().eq(1).all()
    written = pd.read_csv(tmp_path / "imposter_table2_sweep.csv")
    pd.testing.assert_frame_equal(written, frame, check_dtype=False)
    assert (tmp_path / "imposter_table2_sweep.png").stat().st_size > 0

    per = sweep.summarize(frame, 1.0)
    for row in per.itertuples():
        block = frame[frame["lam"] == row.lam]
        assert row.gender_accuracy_max == block["gender_accuracy"].max()
        drop = (block["income_accuracy_a"] - block["income_accuracy"]).max()
        assert row.income_kept_vs_a == (drop <= 1.0)
        assert row.meets_table2 == (
            block["gender_accuracy"].max() < 67.0 and block["gender_f1"].max() < 46.0
        )
    out = capsys.readouterr().out
    assert "of Setting A's at the same theta" in out

    # a rerun reads every setting back from the partial file instead of training again
    def no_training(*a, **k):
        raise AssertionError("a finished setting was trained again")

    monkeypatch.setattr(sweep.ex.run, "run_table2", no_training)
    again = sweep.main(args)
    pd.testing.assert_frame_equal(again, frame, check_dtype=False)


def test_imposter_table2_sweep_partial_file_keeps_rows_outside_the_grid():
    """A run over 50 epochs must not drop the 15-epoch rows an earlier run wrote, nor the rows of
    settings it has not reached yet; a retrained setting replaces its old rows."""
    sweep = load("imposter_table2_sweep")

    def row(epochs, lam, theta, accuracy):
        return dict(epochs=epochs, hidden=128, lam=lam, theta=theta, gender_accuracy=accuracy)

    done = pd.DataFrame(
        [
            row(15, 1.0, 0.01, 70.0),
            row(15, 1.0, 0.1, 71.0),
            row(50, 5.0, 0.01, 60.0),
            row(50, 1.0, 0.01, 99.0),  # to be replaced by this run's retraining
        ]
    )
    rows = [row(50, 1, 0.01, 65.0), row(50, 1, 0.1, 66.0)]  # lam as int: keys compare as floats
    merged = sweep.kept_with(done, rows)
    assert len(merged) == 5
    assert sorted(merged["gender_accuracy"]) == [60.0, 65.0, 66.0, 70.0, 71.0]
    assert sweep.kept_with(None, rows).equals(pd.DataFrame(rows))
    assert len(sweep.kept_with(done, [])) == len(done)


def test_imposter_table2_sweep_pareto_front():
    sweep = load("imposter_table2_sweep")
    frame = pd.DataFrame(
        {
            "epochs": [1, 1, 1],
            "hidden": [8, 8, 8],
            "lam": [0.0, 1.0, 5.0],
            "theta": [0.1, 0.1, 0.1],
            "gender_accuracy": [70.0, 66.0, 66.5],
            "gender_f1": [40.0, 10.0, 5.0],
            "income_accuracy": [82.0, 81.0, 80.0],
            "gender_accuracy_a": [75.0] * 3,
            "income_accuracy_a": [82.5] * 3,
        }
    )
    per = sweep.summarize(frame, 1.0).set_index("lam")
    # lambda 5 is dominated by lambda 1 (lower gender accuracy and higher income)
    assert per["pareto"].to_dict() == {0.0: True, 1.0: True, 5.0: False}
    assert per["meets_table2"].to_dict() == {0.0: False, 1.0: True, 5.0: True}
    assert per["income_kept_vs_a"].to_dict() == {0.0: True, 1.0: False, 5.0: False}
    assert per["income_kept"].to_dict() == {0.0: True, 1.0: False, 5.0: False}


def test_imposter_table2_sweep_intervals_over_seeds():
    """Each seed's worst case over theta, then the mean and Student's t-interval over seeds,
    computed here from scratch; the bound read on the whole interval needs its upper end under
    the bound, which no single seed gives."""
    from scipy import stats

    sweep = load("imposter_table2_sweep")
    gender = {0: [60.0, 64.0], 1: [62.0, 65.5], 2: [61.0, 66.5]}  # seed -> per theta
    frame = pd.DataFrame(
        [
            {
                "epochs": 1,
                "hidden": 8,
                "lam": 5.0,
                "theta": theta,
                "seed": seed,
                "gender_accuracy": value,
                "gender_f1": 5.0 + seed,
                "income_accuracy": 81.0 - seed - theta,
                "gender_accuracy_a": 75.0,
                "income_accuracy_a": 82.0,
            }
            for seed, values in gender.items()
            for theta, value in zip((0.01, 0.1), values, strict=True)
        ]
    )
    row = sweep.summarize(frame, 1.0).iloc[0]
    worst = [max(v) for v in gender.values()]  # 64, 65.5, 66.5
    mean, sd = sum(worst) / 3, pd.Series(worst).std(ddof=1)
    half = stats.t.ppf(0.975, 2) * sd / 3**0.5
    assert row["n_seeds"] == 3
    assert row["gender_accuracy_max"] == pytest.approx(mean)
    assert row["gender_accuracy_max_low"] == pytest.approx(mean - half)
    assert row["gender_accuracy_max_high"] == pytest.approx(mean + half)
    assert row["income_accuracy_min"] == pytest.approx(81.0 - 1 - 0.1)  # mean of 80.9, 79.9, 78.9
    # the means meet the bound, the upper end of the interval (about 68.5) does not
    assert bool(row["meets_table2"]) and not bool(row["meets_table2_interval"])
    # one seed has no interval: the whole-interval reading fails
    one = sweep.summarize(frame[frame["seed"] == 0], 1.0).iloc[0]
    assert one["n_seeds"] == 1 and pd.isna(one["gender_accuracy_max_high"])
    assert bool(one["meets_table2"]) and not bool(one["meets_table2_interval"])


def test_imposter_table2_sweep_tolerance_widens_income_kept():
    sweep = load("imposter_table2_sweep")
    frame = pd.DataFrame(
        {
            "epochs": [1],
            "hidden": [8],
            "lam": [1.0],
            "theta": [0.1],
            "gender_accuracy": [66.0],
            "gender_f1": [10.0],
            "income_accuracy": [80.5],
            "gender_accuracy_a": [75.0],
            "income_accuracy_a": [82.5],
        }
    )
    per = sweep.summarize(frame, 2.5)
    assert bool(per["income_kept_vs_a"].iloc[0]) and bool(per["income_kept"].iloc[0])


def test_imposter_vendor_probe_fingerprints_are_deterministic():
    probe = load("imposter_vendor_probe")
    first = probe.fingerprints(rows=300, epochs=1)
    assert {"fit", "exp", "adam_step", "mm_128x128x128", "mm_128x128x128_misaligned"} <= set(first)
    assert all(len(v) == 16 and int(v, 16) >= 0 for v in first.values())
    # one process, the same seeds: the same bits (a probe that drifted could not compare machines)
    assert probe.fingerprints(rows=300, epochs=1) == first
