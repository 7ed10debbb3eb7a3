"""The relay-chain experiment: the Adult variants (the evidence for the extension's claim) and the
claims across the settings the paper leaves open."""

import numpy as np
import pandas as pd
import pytest

from ppdp.experiments import relay_chains as rc
from ppdp.experiments.common import concat_tidy, parameter_labels


def test_adult_sensitivity_reproduces_the_extension_and_names_the_least_method():
    kw = dict(n_rows=150, delta=0.02, max_hops=2)
    _, figs = rc.run.run_experiment(
        seed=0,
        n_seeds=1,
        german_rows=60,
        adult_rows=kw["n_rows"],
        deltas=(kw["delta"],),
        hops=2,
        fig5_delta=kw["delta"],
        fig6_delta=kw["delta"],
        max_hops=kw["max_hops"],
        adult_weighting="inverse_variance",
    )
    extension = rc.claims.mean_over_seeds(figs, "fig6", "mean_utility_loss", "adult", "hops").mean()
    frame = rc.run.adult_sensitivity(
        seeds=(0,),
        weightings=("inverse_variance", "uniform"),
        qi_sets={"all numeric": rc.run.ADULT_QIS},
        sensitives=("income",),
        **kw,
    )
    table = rc.claims.adult_sensitivity_table(frame)
    main = table.loc[("income", "all numeric", "inverse_variance")]
    for method, label in rc.run.METHOD_LABELS.items():
        assert main[label] == pytest.approx(extension[method])
    losses = table[list(rc.run.METHOD_LABELS.values())]
    assert (table["least"] == losses.idxmin(axis=1)).all()
    assert np.isfinite(losses.to_numpy()).all()


# ---------------------------------------------------------------------------------------------------
# the claims across the settings the paper leaves open

ACROSS_KW = dict(
    seed=0,
    n_seeds=2,
    german_rows=40,
    adult_rows=0,
    deltas=[0.02, 0.04],
    hops=2,
    fig5_delta=0.02,
    fig6_delta=0.02,
    max_hops=2,
)
FIG4 = rc.claims.ACROSS_CLAIMS["fig4"]
FIG6 = rc.claims.ACROSS_CLAIMS["fig6"]


def _run(**changed):
    chains, figs = rc.run.run_experiment(**{**ACROSS_KW, **changed})
    return chains, figs, rc.claims.claims(concat_tidy([chains, figs]))


def test_claims_across_unstated_settings_equal_runs_made_at_those_values():
    """Each ``.across`` row equals the claim of a run made directly at that value (same seeds);
    the profile's own values, which the ranges contain, give no ``.across`` row, and the profile's
    rows are those of a run without ranges."""
    ranges = dict(
        weighting_range=["uniform", "inverse_variance"],
        deltas_range=[[0.04, 0.02], [0.01, 0.02, 0.05]],  # the first is the profile's grid
        fig6_delta_range=[0.02, 0.04, 0.04],
    )
    chains, figs, got = _run(**ranges)
    base_chains, base_figs, base = _run()
    pd.testing.assert_frame_equal(chains, base_chains)
    # the varied settings are columns of the across rows only: missing on the others
    settings = list(rc.run.ACROSS_SETTINGS)
    own = ~figs["experiment"].isin(rc.run.ACROSS_EXPERIMENTS)
    assert figs.loc[own, settings].isna().all().all()
    pd.testing.assert_frame_equal(
        figs[own].drop(columns=settings).reset_index(drop=True), base_figs
    )
    is_across = got["metric"].str.endswith(".across")
    assert (parameter_labels(got[~is_across]) == "").all()
    pd.testing.assert_frame_equal(
        got[~is_across].drop(columns=settings).reset_index(drop=True), base
    )

    rows = got[is_across]
    labels = parameter_labels(rows)
    direct = {
        "weighting = inverse_variance": ({"weighting": "inverse_variance"}, FIG4 + FIG6),
        "deltas = 0.01-0.05": ({"deltas": [0.01, 0.02, 0.05]}, FIG4),
        "fig6_delta = 0.04": ({"fig6_delta": 0.04}, FIG6),
    }
    assert set(labels) == set(direct)
    for text, (changed, names) in direct.items():
        mine = rows[labels == text]
        assert sorted(mine["metric"]) == sorted(f"relay_chains.{c}.across" for c in names)
        want = _run(**changed)[2].set_index("metric")["value"]
        for row in mine.itertuples():
            assert row.value == pytest.approx(want[row.metric.removesuffix(".across")], abs=1e-12)
    assert rows["seed"].eq(-1).all()

    table = rc.claims.across_table(got, weighting="uniform", deltas=[0.02, 0.04], fig6_delta=0.02)
    assert list(table.index) == [
        ("weighting", "uniform"),
        ("weighting", "inverse_variance"),
        ("deltas", "0.02-0.04"),
        ("deltas", "0.01-0.05"),
        ("fig6_delta", "0.02"),
        ("fig6_delta", "0.04"),
    ]
    assert table["profile"].tolist() == [True, False] * 3
    plain = base.set_index("metric")["value"]
    assert table.loc[("deltas", "0.02-0.04"), "loss_rises_sharply"] == pytest.approx(
        plain["relay_chains.loss_rises_sharply"]
    )
    assert np.isnan(table.loc[("fig6_delta", "0.04"), "bua_loses_most"])


def test_across_values_skip_the_profile_and_name_grids():
    other = rc.run.across_values(
        weighting="uniform",
        deltas=[0.01, 0.02, 0.04],
        fig6_delta=0.01,
        weighting_range=["inverse_variance", "uniform"],
        deltas_range=[[0.04, 0.02, 0.01], [0.01, 0.04], [0.0025, 0.08]],
        fig6_delta_range=[0.01, 0.02, 0.1 / 10],
    )
    assert other["weighting"] == ["inverse_variance"]
    # two grids with the same ends are told apart by their values
    assert other["deltas"] == [("0.01,0.04", (0.01, 0.04)), ("0.0025-0.08", (0.0025, 0.08))]
    assert other["fig6_delta"] == [0.02]
    with pytest.raises(ValueError, match="two thresholds or more"):
        rc.run.across_values(
            weighting="uniform", deltas=[0.01], fig6_delta=0.01, deltas_range=[[0.02]]
        )
