"""IMPOSTER experiment module: claims from tidy results, score tables and figures.

The claims are recomputed here from the tidy rows by an independent route (each row's parameters
read one row at a time from its parameter columns and averaged with plain Python), on synthetic
rows laid out like the experiment functions' and on rows that ``run_fig6``/``run_fig7`` produce on
a small table.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from ppdp.classifiers import CLASSIFIERS
from ppdp.compendium.published import published_value
from ppdp.experiments import imposter as ex
from ppdp.experiments.common import (
    concat_tidy,
    facet_columns,
    parameter_columns,
    read_results,
    tidy_frame,
    tidy_rows,
    write_results,
)

ROOT = Path(__file__).resolve().parents[1]
CLAIM_IDS = (
    "imposter.beats_krr_at_matched_gender",
    "imposter.gender_accuracy_b",
    "imposter.gender_drop_every_classifier",
    "imposter.income_accuracy_b",
    "imposter.krr_income_at_gender_6891",
    "imposter.lambda1_below_lambda0",
    "imposter.min_income_accuracy_b",
    "imposter.table2_gender_accuracy_b_max",
    "imposter.table2_gender_f1_b_max",
)


# ------------------------------------------------------------------------------------------------
# synthetic tidy rows shaped like run_table1 / run_fig7 / run_fig8 / run_table2


def synthetic_results(seeds=(0, 1, 2), seed: int = 0, classifiers=CLASSIFIERS) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows: list[dict] = []

    def scores(low, high):
        return {"accuracy": rng.uniform(low, high), "f1": rng.uniform(0.1, 0.6)}

    for s in seeds:
        for clf in classifiers:
            for setting, (low, high) in {
                "A": (0.78, 0.85),
                "B": (0.6, 0.72),
                "C": (0.6, 0.8),
            }.items():
                for target in ("sex", "income"):
                    params = {"lambda": 1.0, "setting": setting, "target": target, "theta": 0.01}
                    rows += tidy_rows("table1", clf, scores(low, high), parameters=params, seed=s)
        # k-RR: sex accuracy grows with epsilon, crossing 68.91% between epsilon 2 and 10
        for eps, level in ((1.0, 0.6), (2.0, 0.66), (10.0, 0.75), (100.0, 0.83)):
            for setting in ("B", "C"):
                for target in ("sex", "income"):
                    params = {"epsilon": eps, "setting": setting, "target": target}
                    metrics = scores(level - 0.01, level + 0.01)
                    rows += tidy_rows("fig7", "kRR", metrics, parameters=params, seed=s)
        for lam in (0.0, 0.5, 1.0, 2.0):
            for target in ("sex", "income"):
                params = {"lambda": lam, "setting": "B", "target": target}
                rows += tidy_rows("fig8", "XGBoost", scores(0.55, 0.75), parameters=params, seed=s)
        for theta, n_attr in ((0.005, 7), (0.01, 6), (0.1, 2)):
            for setting in ("A", "B"):
                for target in ("sex", "income"):
                    params = {"setting": setting, "target": target, "theta": theta}
                    rows += tidy_rows(
                        "table2", "XGBoost", scores(0.55, 0.8), parameters=params, seed=s
                    )
            rows += tidy_rows(
                "table2", "XGBoost", {"n_attributes": n_attr}, parameters={"theta": theta}, seed=s
            )
    rows += tidy_rows("fig6", "nmi", {"score": 0.2}, facets={"attribute": "relationship"})
    return tidy_frame(rows)


def row_parameters(results: pd.DataFrame) -> list[dict]:
    """Each row's parameters as a dict (the ones it has: missing values left out)."""
    keys = parameter_columns(results)
    return [
        {k: v for k, v in zip(keys, values, strict=True) if not pd.isna(v)}
        for values in results[keys].itertuples(index=False, name=None)
    ]


def reference_claims(results: pd.DataFrame) -> dict[str, float]:
    """The claims computed row by row, without the module's helpers."""
    groups: dict[tuple, list[float]] = defaultdict(list)
    for exp, method, p, metric, value in zip(
        results["experiment"],
        results["method"],
        row_parameters(results),
        results["metric"],
        results["value"],
        strict=True,
    ):
        if exp == "table1":
            groups["t1", method, p["setting"], p["target"], metric].append(value)
        elif exp == "fig7":
            groups["f7", p["setting"], float(p["epsilon"]), p["target"], metric].append(value)
        elif exp == "fig8":
            groups["f8", float(p["lambda"]), p["target"], metric].append(value)
        elif exp == "table2" and metric != "n_attributes":
            groups["t2", p["setting"], float(p["theta"]), p["target"], metric].append(value)

    def mean(key):
        values = groups.get(key)
        return sum(values) / len(values) if values else float("nan")

    out = {}
    acc = {
        (setting, target, clf): 100 * mean(("t1", clf, setting, target, "accuracy"))
        for setting in "AB"
        for target in ("sex", "income")
        for clf in CLASSIFIERS
    }
    present = [c for c in CLASSIFIERS if not np.isnan(acc["B", "sex", c])]
    out["imposter.gender_accuracy_b"] = acc["B", "sex", "GBDT"]
    out["imposter.income_accuracy_b"] = acc["B", "income", "GBDT"]
    out["imposter.min_income_accuracy_b"] = min(acc["B", "income", c] for c in present)
    out["imposter.gender_drop_every_classifier"] = float(
        all(acc["B", "sex", c] < acc["A", "sex", c] for c in present)
    )
    epsilons = sorted({k[2] for k in groups if k[0] == "f7"})

    def krr_income(level):
        for eps in epsilons:
            if mean(("f7", "B", eps, "sex", "accuracy")) >= level:
                return 100 * mean(("f7", "B", eps, "income", "accuracy"))
        return float("nan")

    out["imposter.krr_income_at_gender_6891"] = krr_income(0.6891)
    matched = krr_income(out["imposter.gender_accuracy_b"] / 100)
    out["imposter.beats_krr_at_matched_gender"] = (
        float(out["imposter.income_accuracy_b"] > matched) if not np.isnan(matched) else np.nan
    )
    if any(k[0] == "f8" for k in groups):
        g0, g1 = (mean(("f8", lam, "sex", "accuracy")) for lam in (0.0, 1.0))
        out["imposter.lambda1_below_lambda0"] = float(g1 < g0)
    thetas = sorted({k[2] for k in groups if k[0] == "t2"})
    if thetas:
        for metric in ("accuracy", "f1"):
            out[f"imposter.table2_gender_{metric}_b_max"] = 100 * max(
                mean(("t2", "B", t, "sex", metric)) for t in thetas
            )
    return out


def as_dict(claims: pd.DataFrame) -> dict[str, float]:
    """The claims' values (their intervals are columns of the same rows)."""
    assert (claims["experiment"] == "claims").all()
    assert claims["metric"].is_unique
    return dict(zip(claims["metric"], claims["value"], strict=True))


def assert_same_claims(got: dict[str, float], want: dict[str, float]) -> None:
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        if np.isnan(value):
            assert np.isnan(got[key]), key
        else:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


# ------------------------------------------------------------------------------------------------
# claims


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_claims_match_a_row_by_row_computation(seed):
    results = synthetic_results(seed=seed)
    got = ex.claims.claims(results)
    assert sorted(got["metric"]) == sorted(CLAIM_IDS)
    # three seeds: every claim has its interval, in its own row
    assert got[["ci_low", "ci_high"]].notna().all().all()
    assert (got["ci_low"] <= got["ci_high"]).all()
    assert set(got.loc[got["method"] == "kRR", "metric"]) == {"imposter.krr_income_at_gender_6891"}
    assert set(got["method"]) == {"IMPOSTER", "kRR"}
    assert_same_claims(as_dict(got), reference_claims(results))


def test_claim_intervals_cover_the_seeds():
    """With two seeds a resample holds one seed twice, the other twice, or both (each about a
    quarter, a quarter and half of 1,000 resamples), so the 2.5% and 97.5% percentiles are the
    smallest and largest of the claim on these three; one seed gives no interval."""
    results = synthetic_results(seeds=(4, 9), seed=3)
    got = ex.claims.claims(results).set_index("metric")
    alone = [reference_claims(results[results["seed"].isin([s, -1])]) for s in (4, 9)]
    both = reference_claims(results)
    for claim in CLAIM_IDS:
        three = [alone[0][claim], alone[1][claim], both[claim]]
        assert got.loc[claim, "ci_low"] == pytest.approx(min(three), abs=1e-12), claim
        assert got.loc[claim, "ci_high"] == pytest.approx(max(three), abs=1e-12), claim
    one = ex.claims.claims(results[results["seed"] != 9])
    assert sorted(one["metric"]) == sorted(CLAIM_IDS)
    assert one[["ci_low", "ci_high"]].isna().all().all()


def test_claims_worked_example():
    """One seed, values chosen by hand: every claim can be read off the rows."""
    rows = []
    for clf, (a_sex, b_sex, b_inc) in {
        "GBDT": (0.80, 0.65, 0.82),
        "LR": (0.81, 0.66, 0.79),
    }.items():
        for setting, sex, inc in (("A", a_sex, 0.84), ("B", b_sex, b_inc)):
            for target, acc in (("sex", sex), ("income", inc)):
                params = {"lambda": 1.0, "setting": setting, "target": target, "theta": 0.01}
                rows += tidy_rows("table1", clf, {"accuracy": acc, "f1": 0.5}, parameters=params)
    for eps, sex, inc in ((1.0, 0.60, 0.70), (5.0, 0.64, 0.74), (10.0, 0.70, 0.77)):
        for target, acc in (("sex", sex), ("income", inc)):
            params = {"epsilon": eps, "setting": "B", "target": target}
            rows += tidy_rows("fig7", "kRR", {"accuracy": acc}, parameters=params)
    for lam, sex in ((0.0, 0.70), (1.0, 0.62)):
        params = {"lambda": lam, "setting": "B", "target": "sex"}
        rows += tidy_rows("fig8", "XGBoost", {"accuracy": sex}, parameters=params)
    for theta, acc, f1 in ((0.01, 0.61, 0.30), (0.05, 0.64, 0.20)):
        params = {"setting": "B", "target": "sex", "theta": theta}
        rows += tidy_rows("table2", "XGBoost", {"accuracy": acc, "f1": f1}, parameters=params)
    got = as_dict(ex.claims.claims(tidy_frame(rows)))
    want = {
        "imposter.gender_accuracy_b": 65.0,
        "imposter.income_accuracy_b": 82.0,
        "imposter.min_income_accuracy_b": 79.0,
        "imposter.gender_drop_every_classifier": 1.0,
        # 68.91% is first reached at epsilon 10, where income accuracy is 77%
        "imposter.krr_income_at_gender_6891": 77.0,
        # IMPOSTER's 65% sex accuracy is matched at epsilon 10 too: 82% > 77%
        "imposter.beats_krr_at_matched_gender": 1.0,
        "imposter.lambda1_below_lambda0": 1.0,
        "imposter.table2_gender_accuracy_b_max": 64.0,
        "imposter.table2_gender_f1_b_max": 30.0,
    }
    assert_same_claims(got, want)


def test_claims_ignore_claim_rows_and_other_experiments():
    results = synthetic_results()
    first = ex.claims.claims(results)
    stale = tidy_frame(tidy_rows("claims", "IMPOSTER", {"imposter.gender_accuracy_b": -1.0}))
    fig6 = tidy_frame(tidy_rows("fig6", "detection", {"n_selected": 3}, parameters={"theta": 0.01}))
    pd.testing.assert_frame_equal(
        ex.claims.claims(concat_tidy([results, stale, fig6, first])), first
    )


def test_claims_without_fig8_or_table2_leave_their_claims_out():
    results = synthetic_results()
    core = results[results["experiment"].isin(["table1", "fig7"])]
    got = as_dict(ex.claims.claims(core))
    assert "imposter.lambda1_below_lambda0" not in got
    assert "imposter.table2_gender_accuracy_b_max" not in got
    assert len(got) == len(CLAIM_IDS) - 3
    assert_same_claims(got, reference_claims(core))


def test_claims_when_krr_never_reaches_the_level():
    results = synthetic_results()
    fig7 = results["experiment"] == "fig7"
    low = results.assign(value=np.where(fig7, 0.5, results["value"]))
    got = as_dict(ex.claims.claims(low))
    assert np.isnan(got["imposter.krr_income_at_gender_6891"])
    assert np.isnan(got["imposter.beats_krr_at_matched_gender"])


def test_claims_threshold_is_the_published_krr_gender_accuracy():
    assert published_value("imposter.krr_gender_accuracy") == 68.91
    results = synthetic_results()
    eps = ex.claims.krr_matched_income(results, 0.6891)[0]
    assert eps == 10.0


def test_claims_from_a_written_results_csv(tmp_path):
    """What the report does: recompute the claims from the CSV the notebook wrote."""
    results = synthetic_results()
    claims = ex.claims.claims(results)
    path = write_results(concat_tidy([results, claims]), tmp_path / "imposter.csv")
    written = read_results(path)
    again = ex.claims.claims(written)
    stored = written[written["experiment"] == "claims"].reset_index(drop=True)
    assert list(again["metric"]) == list(stored["metric"])
    np.testing.assert_allclose(again["value"], stored["value"], rtol=1e-9)
    # the intervals are written and read back with their claims
    assert stored[["ci_low", "ci_high"]].notna().all().all()
    for bound in ("ci_low", "ci_high"):
        np.testing.assert_allclose(again[bound], stored[bound], rtol=1e-9)


def test_claims_on_rows_of_run_fig7():
    df = small_table()
    fig7 = ex.run.run_fig7(df, epsilons=[1, 100], seeds=[0, 1], theta=0.01)
    eps, income = ex.claims.krr_matched_income(fig7, 0.0)
    assert eps == 1.0
    by_hand = [
        v
        for v, p, m in zip(fig7["value"], row_parameters(fig7), fig7["metric"], strict=True)
        if m == "accuracy" and p == {"epsilon": 1.0, "setting": "B", "target": "income"}
    ]
    assert len(by_hand) == 2
    assert income == pytest.approx(np.mean(by_hand), rel=1e-12)
    table = ex.claims.score_table(fig7, "fig7")
    assert table.index.names == ["setting", "epsilon"]
    assert table.index.get_level_values("epsilon").dtype == np.float64
    assert table.loc[("B", 1.0), ("income", "accuracy")] == pytest.approx(100 * income, rel=1e-12)


# ------------------------------------------------------------------------------------------------
# the Table 1 claims across lambda (the paper states none for Table 1)

ACROSS = ex.claims.ACROSS_CLAIMS
BOUNDS = ("value", "ci_low", "ci_high")


def across_rows(claims: pd.DataFrame) -> dict[tuple[str, float], dict[str, float]]:
    """``{(metric, lambda): {"value": ..., "ci_low": ..., "ci_high": ...}}`` of the ``.across``
    claim rows."""
    rows = claims[claims["metric"].str.contains(".across", regex=False)]
    key = list(zip(rows["metric"], rows["lambda"], strict=True))
    assert len(set(key)) == len(key)
    return dict(zip(key, rows[list(BOUNDS)].to_dict("records"), strict=True))


def test_across_claims_match_a_row_by_row_computation():
    """The ``.across`` rows of a lambda are the claims of :data:`ACROSS_CLAIMS` computed, with
    their intervals, on that lambda's ``table1_across`` rows alone; the plain rows do not move.
    Two seeds, so the interval bounds are the smallest and largest of the claim on each seed alone
    and on both (see ``test_claim_intervals_cover_the_seeds``)."""
    results = synthetic_results(seeds=(4, 9), seed=3)
    t1 = results[results["experiment"] == "table1"]
    b = t1["setting"] == "B"
    extra = []
    for lam, shift in ((0.5, 0.05), (2.0, -0.03)):
        rows = t1[b].assign(
            experiment="table1_across",
            value=t1.loc[b, "value"] + shift,
            **{"lambda": lam},
        )
        extra.append(rows)
    got = ex.claims.claims(concat_tidy([results, *extra]))
    plain = got[~got["metric"].str.contains(".across", regex=False)].reset_index(drop=True)
    # lambda is the across rows' parameter only
    assert plain["lambda"].isna().all()
    pd.testing.assert_frame_equal(plain.drop(columns="lambda"), ex.claims.claims(results))
    values = across_rows(got)
    assert sorted(values) == sorted((f"{c}.across", lam) for c in ACROSS for lam in (0.5, 2.0))
    for rows, lam in zip(extra, (0.5, 2.0), strict=True):
        alone = rows.assign(experiment="table1")
        want = reference_claims(alone)
        by_seed = [reference_claims(alone[alone["seed"] == s]) for s in (4, 9)]
        for claim in ACROSS:
            three = [by_seed[0][claim], by_seed[1][claim], want[claim]]
            for bound, value in zip(BOUNDS, (want[claim], min(three), max(three)), strict=True):
                got_value = values[f"{claim}.across", lam][bound]
                assert got_value == pytest.approx(value, rel=1e-12), (claim, bound, lam)
    table = ex.claims.across_table(got, base_lam=1.0)
    assert list(table.index) == [0.5, 1.0, 2.0]
    assert list(table.columns) == [
        f"{c.removeprefix('imposter.')}{b}" for c in ACROSS for b in ("", ".ci_high", ".ci_low")
    ]
    plain_rows = plain.set_index("metric")
    for bound, column in zip(BOUNDS, ("", ".ci_low", ".ci_high"), strict=True):
        assert table.loc[1.0, f"gender_accuracy_b{column}"] == pytest.approx(
            plain_rows.loc["imposter.gender_accuracy_b", bound], rel=1e-12
        )
    assert table.loc[1.0, "gender_accuracy_b"] == pytest.approx(
        reference_claims(results)["imposter.gender_accuracy_b"], rel=1e-12
    )
    assert table.loc[2.0, "min_income_accuracy_b.ci_high"] == pytest.approx(
        values["imposter.min_income_accuracy_b.across", 2.0]["ci_high"], rel=1e-12
    )
    # one seed gives no interval: the table has no bound columns
    one = ex.claims.claims(concat_tidy([results, *extra]).query("seed != 9"))
    assert list(ex.claims.across_table(one, base_lam=1.0).columns) == [
        c.removeprefix("imposter.") for c in ACROSS
    ]


@pytest.fixture
def fresh_releases():
    """IMPOSTER's trained releases from an empty cache, the earlier ones back afterwards."""
    with ex.run.RELEASES.isolated():
        yield ex.run.RELEASES


def test_across_claims_equal_a_run_made_at_that_lambda(fresh_releases):
    """The claims at another lambda (value and interval) equal those of Table 1 run directly at
    that lambda; the profile's lambda is not run again (nor written as an across row)."""
    df = small_table(n=240)
    kw = {
        "seeds": [0, 1],
        "theta": 0.05,
        "classifiers": ["GBDT", "LR"],
        "imposter_params": {"epochs": 2, "batch_size": 64, "hidden": 16, "progress": False},
    }
    across = ex.run.run_table1_across(df, [1.0, 2.0, 1], 1.0, **kw)
    assert set(across["lambda"]) == {2.0}
    assert set(across["setting"]) == {"B"}
    assert len(fresh_releases) and all(key[2] == 2.0 for key in fresh_releases)
    values = across_rows(ex.claims.claims(across))  # the profile's Table 1 rows do not enter them
    assert {lam for _, lam in values} == {2.0}
    fresh_releases.clear()  # the direct run trains its own generators
    direct, _ = ex.run.run_table1(df, lam=2.0, **kw)
    want = ex.claims.claims(direct).set_index("metric")
    for claim in ACROSS:
        for bound in BOUNDS:
            assert values[f"{claim}.across", 2.0][bound] == pytest.approx(
                want.loc[claim, bound], rel=1e-12
            ), (claim, bound)
    b_rows = direct[direct["setting"] == "B"]
    pd.testing.assert_frame_equal(
        across.reset_index(drop=True),
        tidy_frame(b_rows.assign(experiment="table1_across")),
    )


def test_across_reuses_the_generators_of_fig8(monkeypatch, fresh_releases):
    """A lambda that Fig. 8 trained is not trained again for Table 1's across rows."""
    df = small_table(n=240)
    params = {"epochs": 1, "batch_size": 64, "hidden": 16, "progress": False}
    ex.run.run_fig8(df, lambdas=[2.0], seeds=[0], theta=0.05, imposter_params=params)
    trained = fresh_releases.keys()
    fits = []
    monkeypatch.setattr(ex.run.Imposter, "fit", lambda *a, **k: fits.append(1))
    ex.run.run_table1_across(
        df, [2.0], 1.0, seeds=[0], theta=0.05, classifiers=["LR"], imposter_params=params
    )
    assert fits == [] and fresh_releases.keys() == trained


# ------------------------------------------------------------------------------------------------
# tables


def test_score_tables_index_numeric_grids_as_floats():
    results = synthetic_results()
    t8 = ex.claims.score_table(results, "fig8")
    assert list(t8.index) == [0.0, 0.5, 1.0, 2.0]
    assert list(t8.columns) == [(t, m) for t in ("income", "sex") for m in ("accuracy", "f1")]
    t2 = ex.claims.score_table(results, "table2")
    assert list(t2.index) == [(t, s) for t in (0.005, 0.01, 0.1) for s in "AB"]
    t1 = ex.claims.score_table(results, "table1")
    assert list(t1.index) == [(s, c) for s in "ABC" for c in sorted(CLASSIFIERS)]
    sel = (results["experiment"] == "table1") & (results["method"] == "LR")
    sel &= (results["lambda"] == 1.0) & (results["setting"] == "B")
    sel &= (results["target"] == "sex") & (results["theta"] == 0.01)
    sel &= results["metric"] == "accuracy"
    assert t1.loc[("B", "LR"), ("sex", "accuracy")] == pytest.approx(
        100 * results.loc[sel, "value"].mean(), rel=1e-12
    )
    ci = ex.claims.score_table(results, "table1", stat="ci")
    values = results.loc[sel, "value"]
    half = 1.959963984540054 * values.std(ddof=1) / np.sqrt(len(values))
    assert ci.loc[("B", "LR"), ("sex", "accuracy")] == pytest.approx(100 * half, rel=1e-12)
    with pytest.raises(ValueError, match="experiment must be one of"):
        ex.claims.score_table(results, "fig6")
    with pytest.raises(ValueError, match="stat must be"):
        ex.claims.score_table(results, "fig8", stat="median")


def test_selected_counts():
    counts = ex.claims.selected_counts(synthetic_results())
    assert counts.to_dict() == {0.005: 7, 0.01: 6, 0.1: 2}


def small_table(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """``rel`` mostly follows sex, ``hours`` is shifted by sex, ``job`` is noise; income on job."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["Female", "Male"], size=n, p=[0.35, 0.65])
    rel = np.where(rng.random(n) < 0.85, np.where(sex == "Female", "Wife", "Husband"), "Own-child")
    job = rng.choice(["a", "b", "c"], size=n)
    income = np.where(rng.random(n) < 0.15 + 0.5 * (job == "a"), ">50K", "<=50K")
    return pd.DataFrame(
        {
            "rel": pd.Categorical(rel),
            "hours": rng.integers(20, 30, size=n) + 10 * (sex == "Male"),
            "job": pd.Categorical(job),
            "sex": pd.Categorical(sex),
            "income": pd.Categorical(income),
        }
    )


def test_detection_scores_and_nmi_matrix_from_run_fig6():
    df = small_table()
    fig6 = ex.run.run_fig6(df, theta=0.05)
    # the attribute a score is of is a facet of the row, not a parameter
    assert "attribute" in facet_columns(fig6) and "attribute" not in parameter_columns(fig6)
    scores = ex.claims.detection_scores(fig6)
    assert list(scores.columns) == ["eq7_printed", "nmi", "pearson", "selected"]
    assert scores["nmi"].is_monotonic_decreasing
    assert scores.loc["rel", "selected"] and scores.loc["rel", "nmi"] > 0.05
    assert not scores.loc["job", "selected"]
    assert set(scores.index) == {"rel", "hours", "job"}
    assert ex.claims.detection_theta(fig6) == 0.05
    matrix = ex.claims.nmi_matrix(fig6, columns=df.columns)
    assert list(matrix.index) == list(df.columns)
    np.testing.assert_allclose(matrix.to_numpy(), ex.run.pairwise_nmi(df).to_numpy(), rtol=1e-9)
    assert list(ex.claims.nmi_matrix(fig6).index) == sorted(df.columns)


def test_majority_rate():
    df = pd.DataFrame({"sex": ["Male"] * 3 + ["Female"]})
    assert ex.run.majority_rate(df) == 75.0


# ------------------------------------------------------------------------------------------------
# figures


@pytest.fixture
def close_figures():
    yield
    plt.close("all")


def history_frame(seeds=(0, 1), epochs: int = 3) -> pd.DataFrame:
    rows = [
        {
            "epoch": e,
            "recon": 1.0 / (e + 1),
            "kl": 0.1,
            "d1_loss": 0.7,
            "g_d1_loss": 0.69,
            "d2_accuracy": 0.6,
            "lam": 1.0,
            "seed": s,
        }
        for s in seeds
        for e in range(epochs)
    ]
    return pd.DataFrame(rows)


def test_plot_functions_return_figures(close_figures):
    results = synthetic_results()
    fig6 = ex.run.run_fig6(small_table(), theta=0.05)
    figures = {
        "fig6": ex.figures.plot_fig6(fig6),
        "history": ex.figures.plot_training_history(history_frame()),
        "fig7": ex.figures.plot_fig7(results),
        "fig8": ex.figures.plot_fig8(results),
        "privacy_utility": ex.figures.plot_privacy_utility(results, majority=66.0),
    }
    for name, fig in figures.items():
        assert isinstance(fig, Figure), name
    assert len(figures["fig6"].axes) == 3  # two panels and a colour bar
    assert len(figures["fig7"].axes) == len(figures["fig8"].axes) == 2
    # several seeds: the figures say what the error bars are
    assert "95% interval" in figures["fig7"].get_suptitle()
    assert "lambda = 1.0" in figures["history"].axes[1].get_title()


def test_plot_one_seed_and_one_point(close_figures):
    results = synthetic_results(seeds=(0,))
    fig = ex.figures.plot_fig8(results[results["experiment"] == "fig8"])
    assert fig.get_suptitle() == ""
    fig = ex.figures.plot_fig7(results, classifier="LR")
    assert isinstance(fig, Figure)
    with pytest.raises(ValueError, match="no SVM scores"):
        ex.figures.plot_fig7(results, classifier="SVM")
    with pytest.raises(ValueError, match="no run with seed 7"):
        ex.figures.plot_training_history(history_frame(), seed=7)


def test_privacy_utility_draws_the_published_points(close_figures):
    fig = ex.figures.plot_privacy_utility(synthetic_results())
    ax = fig.axes[0]
    labels = [h.get_label() for h in ax.collections]
    offsets = {h.get_label(): tuple(h.get_offsets()[0]) for h in ax.collections}
    assert "IMPOSTER, published" in labels and "k-RR, published" in labels
    assert offsets["IMPOSTER, published"] == (
        published_value("imposter.gender_accuracy_b"),
        published_value("imposter.income_accuracy_b"),
    )
    assert offsets["k-RR, published"] == (
        published_value("imposter.krr_gender_accuracy"),
        published_value("imposter.krr_income_at_gender_6891"),
    )
    assert "IMPOSTER (lambda = 1.0)" in labels
    # no majority line unless asked for
    assert "sex majority rate" not in [line.get_label() for line in ax.lines]


# ------------------------------------------------------------------------------------------------
# the notebook and the module hold no published number and parse no parameter string


def _notebook_code() -> str:
    cells = json.loads((ROOT / "notebooks" / "imposter.ipynb").read_text())["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def _package_code() -> str:
    """The source of every module of the package (its ``__init__`` and each submodule)."""
    return "\n".join(p.read_text() for p in sorted(Path(ex.__file__).parent.glob("*.py")))


@pytest.mark.parametrize("where", ["module", "notebook"])
def test_no_typed_in_published_numbers_or_parameter_parsing(where):
    source = _package_code() if where == "module" else _notebook_code()
    for number in ("67.26", "82.29", "68.91", "75.17"):
        assert number not in source
    assert not re.search(r"\.str\.(extract|contains|split)\(", source)
    for old in ("parse_parameters", "expand_parameters", "format_parameters", '"parameters"]'):
        assert old not in source
    assert '.split("=")' not in source
    for module in (ex, ex.run, ex.claims, ex.figures):
        assert not hasattr(module, "PUBLISHED")
        assert not hasattr(module, "claims_rows")
