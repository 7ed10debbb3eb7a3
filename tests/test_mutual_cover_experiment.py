"""The Mutual Cover experiment's readings of its claims (Li, Wang and He)."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from populations import census_sample
from ppdp.experiments import mutual_cover as mc
from ppdp.experiments.common import tidy_frame, tidy_rows
from ppdp.mechanisms.anatomy import Anatomy
from ppdp.utility.queries import bounds_anatomy, generate_queries, query_sums


def test_delta_influence_judges_each_reading_on_the_runs():
    # three deltas, three runs each: means 1, 2, 1.5; the runs barely differ
    errors = {0.2: [1.0, 1.01, 0.99], 0.1: [2.0, 2.02, 1.98], 0.125: [1.5, 1.49, 1.51]}
    rows = []
    for delta, values in errors.items():
        for r, v in enumerate(values):
            rows += tidy_rows(
                "fig7", mc.METHOD_MC, {"relative_error": v}, parameters={"delta": delta}, seed=r
            )
    rows += tidy_rows("fig7", mc.METHOD_MONDRIAN, {"relative_error": 99.0}, parameters={"l": 10})
    table = mc.delta_influence(tidy_frame(rows)).set_index("reading")
    assert table.loc["spread of means", "value"] == pytest.approx((2.0 - 1.0) / 1.5)
    assert not table.loc["spread of means", "holds"]
    assert table.loc["spread of medians", "value"] == pytest.approx((2.0 - 1.0) / 1.5)
    # the F statistic written out: between-delta over within-delta mean squares
    groups = [np.array(v) for v in errors.values()]
    grand = np.concatenate(groups).mean()
    between = sum(len(g) * (g.mean() - grand) ** 2 for g in groups) / (len(groups) - 1)
    within = sum(((g - g.mean()) ** 2).sum() for g in groups) / (9 - len(groups))
    p_value = scipy.stats.f.sf(between / within, len(groups) - 1, 9 - len(groups))
    assert table.loc["within run noise (ANOVA p)", "value"] == pytest.approx(p_value)
    assert not table.loc["within run noise (ANOVA p)", "holds"]
    # means 1.0 (delta 0.2), 1.5 (0.125), 2.0 (0.1): the error falls as delta grows
    assert table.loc["monotone trend (Spearman, delta)", "value"] == pytest.approx(-1.0)


def test_mondrian_variants_reproduce_fig5_and_order_by_group_size():
    data = census_sample()
    common = dict(p_match=(0.5, 1.0), n_runs=2, seed=3)
    frame = mc.run_experiments(data, deltas=(1 / 5,), l=10, l_values=(10,), n_queries=10, **common)
    variants = mc.mondrian_group_sizes(data, variants=({"l": 10}, {"l": 10, "k": 60}), **common)
    # the first variant is Fig. 5's Mondrian: the same disclosure, run by run
    fig5 = frame[(frame["experiment"] == "fig5") & (frame["metric"] == "identity_disclosure")]
    same = variants[
        (variants["method"] == "Mondrian(l=10)") & (variants["metric"] == "identity_disclosure")
    ]
    np.testing.assert_allclose(same["value"].to_numpy(), fig5["value"].to_numpy())
    table = mc.identity_ordering(pd.concat([frame, variants])).set_index("variant")
    sizes = table["mean group size"]
    assert sizes["Mondrian(l=10, k=60)"] >= 60 and sizes["Mondrian(l=10)"] >= 10
    assert sizes["Mondrian(l=10, k=60)"] > sizes["Mondrian(l=10)"]
    claim = mc.claims(frame).set_index("metric")["value"]
    assert table.loc["Mondrian(l=10)", "MutualCover below (share of P_match)"] == pytest.approx(
        claim["mutual_cover.identity_below_mondrian_fraction"]
    )
    with pytest.raises(ValueError, match="variants may set l, k and refine only"):
        mc.mondrian_group_sizes(data, variants=({"l": 10, "m": 3},), **common)


def test_query_answers_equal_the_query_module_to_the_bit():
    """The experiment's faster query evaluation: the sums of query_sums and the bounds of
    bounds_anatomy, on the original table and on a table with values the original lacks."""
    data = census_sample(seed=4, n=400)
    rng = np.random.default_rng(0)
    queries = generate_queries(
        data, list(mc.QI), mc.SENSITIVE, numeric=list(mc.CONTINUOUS), rng=rng, n_queries=300
    )
    shifted = data.assign(AGE=data["AGE"] + rng.integers(-3, 4, len(data)), MARST=7)
    for table in (data, shifted):
        want = query_sums(table, queries, mc.SENSITIVE)
        got = mc._sums(table, mc._query_rows(table, queries))
        assert got.tobytes() == want.tobytes()
    rows = mc._query_rows(data, queries)
    for seed in range(2):
        an = Anatomy(list(mc.QI), mc.SENSITIVE, l=3).fit(data, seed)
        s = data[mc.SENSITIVE].to_numpy()
        want = bounds_anatomy(an.qit_, an.groups_, s, queries)
        got = mc._anatomy_bounds(rows, an.groups_, s)
        for x, y in zip(got, want, strict=True):
            assert x.tobytes() == y.tobytes()
