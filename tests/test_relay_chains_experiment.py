"""The relay-chain experiment's Adult variants (the evidence for the extension's claim)."""

import numpy as np
import pytest

from ppdp.experiments import relay_chains as rc


def test_adult_sensitivity_reproduces_the_extension_and_names_the_least_method():
    kw = dict(n_rows=150, delta=0.02, max_hops=2)
    _, figs = rc.run_experiment(
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
    extension = rc.mean_over_seeds(figs, "fig6", "mean_utility_loss", "adult", "hops").mean()
    frame = rc.adult_sensitivity(
        seeds=(0,),
        weightings=("inverse_variance", "uniform"),
        qi_sets={"all numeric": rc.ADULT_QIS},
        sensitives=("income",),
        **kw,
    )
    table = rc.adult_sensitivity_table(frame)
    main = table.loc[("income", "all numeric", "inverse_variance")]
    for method, label in rc.METHOD_LABELS.items():
        assert main[label] == pytest.approx(extension[method])
    losses = table[list(rc.METHOD_LABELS.values())]
    assert (table["least"] == losses.idxmin(axis=1)).all()
    assert np.isfinite(losses.to_numpy()).all()
