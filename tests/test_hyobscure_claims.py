"""HyObscure's claim statistics: values read off the seed-mean curves, bootstrap intervals over seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from ppdp.experiments import hyobscure as E
from ppdp.experiments.common import (
    concat_tidy,
    facet_columns,
    map_in_workers,
    parameter_columns,
    tidy_frame,
    tidy_rows,
)

SEEDS = range(6)
BASELINES = ("PrivCheck", "Random", "Frapp", "Similarity", "DP")
#: the attack whose privacy the claims read: the random forest in Scenario I
ATTACK = {"model": "rf", "scenario": "sI"}


def _point(experiment, method, utility=None, privacy=None, attack=ATTACK, **kw):
    """Tidy rows of one point: its utility loss and the privacy of ``attack`` (when given)."""
    rows = []
    if utility is not None:
        rows += tidy_rows(experiment, method, {"utility_loss": utility}, **kw)
    if privacy is not None:
        rows += tidy_rows(experiment, method, {"privacy": privacy}, facets=attack, **kw)
    return rows


def _tradeoff(slopes: dict[str, float], noise: float = 0.0) -> pd.DataFrame:
    """Curves with utility loss +0.1..0.4% and privacy +slope x that, per seed, around a reference."""
    rng = np.random.default_rng(3)
    rows = []
    for seed in SEEDS:
        u0, p0 = 1.0 + 0.01 * seed, 2.0 + 0.05 * seed
        rows += _point("tradeoff", "Original", u0, p0, seed=seed)
        shift = rng.normal(0, noise)  # a per-seed effect shared by all methods (paired design)
        for method, slope in slopes.items():
            for j in range(4):
                du = 0.1 * (j + 1)
                dp = slope * du + shift + rng.normal(0, noise / 20)
                rows += _point(
                    "tradeoff",
                    method,
                    u0 * (1 + du / 100),
                    p0 * (1 + dp / 100),
                    parameters={"budget": j},
                    seed=seed,
                )
    return tidy_frame(rows)


def _claims(frame: pd.DataFrame) -> pd.DataFrame:
    """Claim rows by claim id: columns ``value``, ``ci_low`` and ``ci_high``."""
    out = E.claims.claims(frame, "movielens")
    return out.set_index("metric")[["value", "ci_low", "ci_high"]]


def test_fig3a_gain_and_margin_match_the_construction():
    slopes = {"HyObscure": 5.0, "XObf": 2.0, "YGen": 2.0, **{m: 1.0 for m in BASELINES}}
    c = _claims(_tradeoff(slopes))
    assert c.loc["hyobscure.movielens_fig3a_mae_gain", "value"] == pytest.approx(1.0)  # 5 x 0.2%
    assert c.loc["hyobscure.movielens_fig3a_baseline_mae_gain", "value"] == pytest.approx(0.2)
    assert c.loc["hyobscure.movielens_fig3a_margin", "value"] == pytest.approx(0.8)
    # without noise every bootstrap resample gives the same value
    assert c.loc["hyobscure.movielens_fig3a_margin", "ci_low"] == pytest.approx(0.8)
    assert c.loc["hyobscure.movielens_fig3a_margin", "ci_high"] == pytest.approx(0.8)
    assert c.loc["hyobscure.movielens_fig5_margin", "value"] > 0


def test_paired_noise_leaves_the_ordering_resolved_and_a_tie_unresolved():
    slopes = {"HyObscure": 5.0, "XObf": 2.0, "YGen": 2.0, **{m: 1.0 for m in BASELINES}}
    c = _claims(_tradeoff(slopes, noise=2.0))
    margin, lo, hi = c.loc["hyobscure.movielens_fig3a_margin", ["value", "ci_low", "ci_high"]]
    assert 0 < lo <= margin <= hi
    # the gain itself carries the shared per-seed effect, so its interval is the wider one
    g_lo, g_hi = c.loc["hyobscure.movielens_fig3a_mae_gain", ["ci_low", "ci_high"]]
    assert g_hi - g_lo > hi - lo
    tie = _claims(_tradeoff({m: 1.0 for m in ("HyObscure", "XObf", "YGen", *BASELINES)}, 2.0))
    t_lo, t_hi = tie.loc["hyobscure.movielens_fig3a_margin", ["ci_low", "ci_high"]]
    assert t_lo < 0 < t_hi


def test_claims_read_the_random_forest_in_scenario_one():
    """Privacy rows of the other attacks (XGBoost, Scenario II) leave every claim as it is."""
    slopes = {"HyObscure": 5.0, "XObf": 2.0, "YGen": 2.0, **{m: 1.0 for m in BASELINES}}
    frame = _tradeoff(slopes, noise=1.0)
    privacy = frame[frame["metric"] == "privacy"]
    others = [
        privacy.assign(model=model, scenario=scenario, value=privacy["value"] * factor)
        for model, scenario, factor in (("xgb", "sI", 3.0), ("rf", "sII", 0.5))
    ]
    both = concat_tidy([frame, *others])
    assert len(both) == len(frame) + 2 * len(privacy)
    pd.testing.assert_frame_equal(
        E.claims.claims(both, "movielens"), E.claims.claims(frame, "movielens")
    )


def test_claims_are_deterministic():
    frame = _tradeoff(
        {"HyObscure": 3.0, "XObf": 2.0, "YGen": 1.0, **{m: 1.5 for m in BASELINES}}, 1.0
    )
    pd.testing.assert_frame_equal(
        E.claims.claims(frame, "movielens"), E.claims.claims(frame, "movielens")
    )


def test_fig4a_saving_against_the_best_baseline():
    # HyObscure reaches every privacy level at half the utility loss of the best baseline
    rows = []
    for seed in SEEDS:
        rows += _point("tradeoff", "Original", 0.3, 0.80, seed=seed)
        for method, cost in {
            "HyObscure": 0.5,
            "XObf": 1.0,
            "YGen": 1.0,
            "PrivCheck": 1.0,
            "DP": 2.0,
        }.items():
            for j, priv in enumerate([0.81, 0.82, 0.83]):
                rows += _point(
                    "tradeoff",
                    method,
                    0.3 + cost * (priv - 0.80),
                    priv,
                    parameters={"budget": j},
                    seed=seed,
                )
    c = E.claims.claims(tidy_frame(rows), "foursquare").set_index("metric")["value"]
    assert c["hyobscure.foursquare_fig4a_privacy_level"] == pytest.approx(0.817)
    assert c["hyobscure.foursquare_fig4a_utility_saving"] == pytest.approx(50.0)


def test_sweep_rank_correlations_and_margins():
    rng = np.random.default_rng(0)
    rows6, rows8 = [], []
    for seed in SEEDS:
        for g in (2, 3, 4, 5):
            for method, level in {"HyObscure": 2.5, "PrivCheck": 2.2, "Random": 2.1}.items():
                value = level - 0.1 * g + rng.normal(0, 0.01)
                rows6 += _point(
                    "fig6", method, privacy=value, parameters={"n_groups": g, "k": 10}, seed=seed
                )
        for k in (40, 60, 80):
            for alpha in (150, 200):
                value = 3.0 - 0.01 * k + rng.normal(0, 0.01)
                rows8 += _point(
                    "fig8",
                    "HyObscure",
                    privacy=value,
                    parameters={"k": k, "alpha": alpha},
                    seed=seed,
                )
    f6, f8 = tidy_frame(rows6), tidy_frame(rows8)
    trade = _tradeoff({m: 1.0 for m in ("HyObscure", "XObf", "YGen", *BASELINES)})
    c = _claims(concat_tidy([trade, f6, f8]))
    means = f6[f6["method"] == "HyObscure"].groupby("n_groups")["value"].mean()
    assert c.loc["hyobscure.movielens_fig6_rank_correlation", "value"] == pytest.approx(
        spearmanr(means.index, means.to_numpy())[0]
    )
    assert c.loc["hyobscure.movielens_fig6_rank_correlation", "ci_high"] < 0
    assert c.loc["hyobscure.movielens_fig6_min_margin", "value"] == pytest.approx(0.3, abs=0.02)
    assert c.loc["hyobscure.movielens_fig6_min_margin", "ci_low"] > 0.25
    assert c.loc["hyobscure.movielens_fig8_rank_correlation", "value"] == -1.0


def _seed_square(seed):
    rng = np.random.default_rng(seed)
    return [float(rng.random()) ** 2]


def test_seeds_in_worker_processes_give_the_same_rows():
    assert map_in_workers(_seed_square, [3, 1, 2], n_jobs=2) == [
        _seed_square(3),
        _seed_square(1),
        _seed_square(2),
    ]
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="n_jobs must be a positive integer"):
            map_in_workers(_seed_square, [0], n_jobs=bad)


@pytest.mark.slow
def test_tradeoff_is_the_same_with_parallel_seeds():
    pop = E.data.load_population("foursquare")
    kw = dict(
        n_draws=1,
        overrides={"kmeans_n_init": 1, "n_estimators": 5},
        models=("rf",),
        scenarios=("I",),
    )
    knobs = {"HyObscure": [0.05], "Random": [0.3]}
    serial = E.run.tradeoff(pop, [0, 1], knobs, **kw)
    parallel = E.run.tradeoff(pop, [0, 1], knobs, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(serial, parallel)


def _scenario_runs(n_draws, scenario_ii_draws=None):
    pop = E.data.load_population("foursquare")
    return E.run.tradeoff(
        pop,
        [0],
        {"Random": [0.3, 0.6, 0.8], "YGen": [0.05]},
        n_draws=n_draws,
        overrides={"kmeans_n_init": 1, "n_estimators": 5},
        models=("rf",),
        scenarios=("I", "II"),
        scenario_ii_draws=scenario_ii_draws,
    )


@pytest.mark.slow
def test_scenario_ii_draws_limits_only_scenario_ii():
    """Scenario II on the first draw is the one-draw run's Scenario II; Scenario I and the utility
    still average every draw, as without the limit."""

    def by_point(frame):
        keys = ["method", *parameter_columns(frame), "metric", *facet_columns(frame)]
        return frame.set_index(keys)

    limited = by_point(_scenario_runs(2, scenario_ii_draws=1))
    full = by_point(_scenario_runs(2))
    one = by_point(_scenario_runs(1))
    assert limited.index.is_unique
    sii = limited.index.get_level_values("scenario") == "sII"
    assert sii.any()
    pd.testing.assert_frame_equal(limited[sii], one[sii])
    pd.testing.assert_frame_equal(limited[~sii], full[~sii])
    # Random's draws differ, so the limit shows in Scenario II at some point
    assert (limited[sii]["value"] != full[sii]["value"]).any()


@pytest.mark.parametrize("bad", [0, 3, 1.0, True])
def test_scenario_ii_draws_is_checked(bad):
    pop = E.data.load_population("foursquare")
    with pytest.raises(
        ValueError, match=r"scenario_ii_draws must be None or an integer in \[1, n_draws=2\]"
    ):
        E.run.tradeoff(pop, [0], {"Random": [0.3]}, n_draws=2, scenario_ii_draws=bad)


def test_fig8_claim_across_grids_equals_a_run_on_that_grid(monkeypatch):
    """The claim on another (k, alpha) grid equals the claim of a sweep run directly on that grid,
    interval included; the points the profile's sweep already ran are not fitted again, and a grid
    of the profile's own pairs gives no across row."""
    pop = E.data.load_population("movielens")
    kw = dict(overrides={"kmeans_n_init": 1, "n_estimators": 5})
    seeds, pairs = [0, 1], [[60, 200], [80, 200]]
    base = E.sweeps.constraint_sweep(pop, seeds, pairs, "k_alpha", 0.05, **kw)
    fitted = []
    sweep = E.sweeps.constraint_sweep

    def spy(pop, seeds, points, *args, **kwargs):
        fitted.extend(tuple(p) for p in points)
        return sweep(pop, seeds, points, *args, **kwargs)

    monkeypatch.setattr(E.sweeps, "constraint_sweep", spy)
    grids = [{"k": [40, 60, 80], "alpha": [200]}, {"k": [80, 60], "alpha": 200}]
    across = E.sweeps.constraint_across(pop, seeds, grids, pairs, "k_alpha", 0.05, base=base, **kw)
    monkeypatch.undo()
    assert fitted == [(40, 200)]  # (60, 200) and (80, 200) come from the profile's sweep
    assert set(across["experiment"]) == {"fig8_across"}
    assert set(across["grid"]) == {"k 40/60/80 alpha 200"}
    # a copy's parameters: its bounds, the budget and the grid; its privacy keeps its attack
    assert sorted(parameter_columns(across)) == ["alpha", "budget", "grid", "k"]
    privacy = across[across["metric"] == "privacy"]
    assert facet_columns(across) == ["model", "scenario"]
    assert set(zip(privacy["model"], privacy["scenario"], strict=True)) == {("rf", "sI")}

    got = E.claims.claims(concat_tidy([base, across]), "movielens")
    claim = "hyobscure.movielens_fig8_rank_correlation"
    plain = got[~got["metric"].str.contains(".across", regex=False)]
    assert plain["grid"].isna().all()  # the profile's grid: the plain claim, no grid parameter
    pd.testing.assert_frame_equal(
        plain.drop(columns="grid").reset_index(drop=True), E.claims.claims(base, "movielens")
    )
    rows = got[got["metric"].str.contains(".across", regex=False)]
    assert set(rows["grid"]) == {"k 40/60/80 alpha 200"}  # not the profile's 60/80
    assert rows["ci_low"].notna().all() and rows["ci_high"].notna().all()
    direct = sweep(pop, seeds, [[40, 200], [60, 200], [80, 200]], "k_alpha", 0.05, **kw)
    want = _claims(direct)
    assert len(want) == 1
    for row in rows.itertuples():
        plain = want.loc[row.metric.replace(".across", "")]
        assert row.value == pytest.approx(plain["value"], abs=1e-12)
        bounds = (plain["ci_low"], plain["ci_high"])
        assert (row.ci_low, row.ci_high) == pytest.approx(bounds, abs=1e-12)
    assert sorted(rows["metric"]) == sorted(m.replace(claim, claim + ".across") for m in want.index)
    table = E.claims.across_table(got, k_alpha_list=pairs)
    assert list(table.index.get_level_values("grid")) == [
        "k 40/60/80 alpha 200",
        "k 60/80 alpha 200 (profile)",
    ]


def test_fig9_claims_across_grids_from_tidy_rows():
    """Each grid of fig9_across rows gives the claim that its rows give as a plain Fig. 9 sweep
    (same bootstrap over the same seeds); a grid with an infeasible point gives none."""
    rng = np.random.default_rng(1)

    def sweep_rows(experiment, points, grid=None):
        rows = []
        for seed in SEEDS:
            for l_value, beta in points:
                value = 2.0 - 0.01 * l_value + rng.normal(0, 0.01)
                params = {"l": l_value, "beta": beta, "budget": 0.05}
                if grid is not None:
                    params["grid"] = grid
                rows += _point(experiment, "HyObscure", privacy=value, parameters=params, seed=seed)
        return rows

    profile = [(2, 12), (3, 12), (4, 12)]
    wide = [(l_value, 12) for l_value in range(2, 8)]
    base = tidy_frame(sweep_rows("fig9", profile))
    across = sweep_rows("fig9_across", wide, "l 2/3/4/5/6/7 beta 12")
    across += tidy_rows(
        "fig9_across",
        "HyObscure",
        {"infeasible": 1.0},
        parameters={"l": 9, "beta": 12, "budget": 0.05, "grid": "l 2/9 beta 12"},
        seed=0,
    )
    across = tidy_frame(across)
    got = E.claims.claims(concat_tidy([base, across]), "foursquare")
    rows = got[got["metric"].str.contains(".across", regex=False)]
    assert set(rows["grid"]) == {"l 2/3/4/5/6/7 beta 12"}
    direct = across[across["grid"] == "l 2/3/4/5/6/7 beta 12"].assign(experiment="fig9")
    want = E.claims.claims(direct, "foursquare").set_index("metric")
    claim = "hyobscure.foursquare_fig9_rank_correlation"
    assert want.loc[claim, "ci_low"] <= want.loc[claim, "value"] < 0
    for row in rows.itertuples():
        plain = want.loc[row.metric.replace(".across", "")]
        assert (row.value, row.ci_low, row.ci_high) == (
            plain["value"],
            plain["ci_low"],
            plain["ci_high"],
        )
