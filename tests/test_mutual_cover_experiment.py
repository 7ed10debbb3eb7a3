"""The Mutual Cover experiment's readings of its claims (Li, Wang and He)."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from populations import census_sample
from ppdp.attacks.disclosure import disclosure_generalized, draw_match_conditions
from ppdp.experiments import mutual_cover as mc
from ppdp.experiments.common import tidy_frame, tidy_rows
from ppdp.mechanisms.anatomy import Anatomy
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.utility.queries import bounds_anatomy, generate_queries, query_sums


def test_delta_influence_judges_each_reading_on_the_runs():
    # three deltas, three runs each: means 1, 2, 1.5; the runs barely differ
    errors = {0.2: [1.0, 1.01, 0.99], 0.1: [2.0, 2.02, 1.98], 0.125: [1.5, 1.49, 1.51]}
    rows = []
    for delta, values in errors.items():
        for r, v in enumerate(values):
            rows += tidy_rows(
                "fig7", mc.run.METHOD_MC, {"relative_error": v}, parameters={"delta": delta}, seed=r
            )
    rows += tidy_rows(
        "fig7", mc.run.METHOD_MONDRIAN, {"relative_error": 99.0}, parameters={"l": 10}
    )
    table = mc.claims.delta_influence(tidy_frame(rows)).set_index("reading")
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
    frame = mc.run.run_experiments(
        data, deltas=(1 / 5,), l=10, l_values=(10,), n_queries=10, **common
    )
    variants = mc.run.mondrian_group_sizes(data, variants=({"l": 10}, {"l": 10, "k": 60}), **common)
    # the first variant is Fig. 5's Mondrian: the same disclosure, run by run
    for metric in ("identity_disclosure", "attribute_disclosure", "mean_group_size"):
        fig5 = frame[(frame["experiment"] == "fig5") & (frame["metric"] == metric)]
        same = variants[(variants["method"] == "Mondrian(l=10)") & (variants["metric"] == metric)]
        np.testing.assert_allclose(same["value"].to_numpy(), fig5["value"].to_numpy())
    table = mc.claims.mondrian_ordering(pd.concat([frame, variants])).set_index("variant")
    assert list(table.index) == [
        "Mondrian(l=10) (Fig. 5)",
        "Mondrian(l=10)",
        "Mondrian(l=10, k=60)",
    ]
    assert list(table["mondrian_k"]) == ["", "", "60"]
    sizes = table["mean group size"]
    assert sizes["Mondrian(l=10, k=60)"] >= 60 and sizes["Mondrian(l=10)"] >= 10
    assert sizes["Mondrian(l=10, k=60)"] > sizes["Mondrian(l=10)"]
    claim = mc.claims.claims(frame).set_index("metric")["value"]
    for kind in ("identity", "attribute"):
        reading = table[f"{kind}: MutualCover below (share of P_match)"]
        assert reading["Mondrian(l=10)"] == reading["Mondrian(l=10) (Fig. 5)"]
        assert reading["Mondrian(l=10)"] == pytest.approx(
            claim[f"mutual_cover.{kind}_below_mondrian_fraction"]
        )
    with pytest.raises(ValueError, match="variants may set l, k and refine only"):
        mc.run.mondrian_group_sizes(data, variants=({"l": 10, "m": 3},), **common)


def test_disclosure_claims_across_mondrian_group_sizes():
    """The two claims at another Mondrian group size equal the plain claims of the same run with
    Fig. 5's Mondrian replaced by a Mondrian of that size, attacked directly; Fig. 5's own
    Mondrian (k <= l, or a variant equal to it) gives no across row."""
    data = census_sample(seed=0, n=240)
    common = dict(p_match=mc.run.P_MATCH, n_runs=2, seed=5)
    frame = mc.run.run_experiments(
        data, deltas=(1 / 2,), l=4, l_values=(4,), delta_for_l=1 / 2, n_queries=5, **common
    )
    sizes = mc.run.mondrian_variants(4, ["minimal", 2, 4, 60, 25, 25])
    assert sizes == [{"l": 4, "refine": "anatomy"}, {"l": 4, "k": 25}, {"l": 4, "k": 60}]
    with pytest.raises(ValueError, match="group size"):
        mc.run.mondrian_variants(4, ["smallest"])
    # Fig. 5's Mondrian run again as a variant, and one of another l: neither is an across value
    variants = [{"l": 4}, {"l": 20}, *sizes]
    groups = mc.run.mondrian_group_sizes(data, variants=variants, **common)
    got = mc.claims.claims(pd.concat([frame, groups]))
    plain = mc.claims.claims(frame)
    # the profile's rows are unchanged (and have no mondrian_k, the across rows' parameter)
    profile = got[~got["metric"].str.endswith(".across")]
    assert profile["mondrian_k"].isna().all()
    pd.testing.assert_frame_equal(profile.drop(columns="mondrian_k").reset_index(drop=True), plain)
    across = got[got["metric"].str.endswith(".across")]
    # "minimal" beside the integers k: a column of strings
    assert set(across["mondrian_k"]) == {"minimal", "25", "60"}
    assert len(across) == 6
    # the sizes give different readings here, so the check below tells them apart
    assert across["value"].nunique() > 1
    names = ("identity_below_mondrian_fraction", "attribute_below_mondrian_fraction")
    n = len(data)
    others = frame[frame["experiment"] != "fig5"]
    for size, variant in zip(("minimal", "25", "60"), sizes, strict=True):
        # Fig. 5 run directly on this Mondrian, with the run's match conditions
        model = Mondrian(list(mc.run.QI), mc.run.SENSITIVE, **variant).fit(data)
        rows = []
        for p in common["p_match"]:
            for r in range(common["n_runs"]):
                used = draw_match_conditions(n, len(mc.run.QI), p, mc.run._rng(5, "match", p, r))
                ident, attr = disclosure_generalized(
                    data, model.generalized_, mc.run.SENSITIVE, used
                )
                metrics = {"identity_disclosure": ident.mean(), "attribute_disclosure": attr.mean()}
                rows += tidy_rows(
                    "fig5",
                    mc.run.METHOD_MONDRIAN,
                    metrics,
                    parameters={"l": 4, "p_match": p},
                    seed=r,
                )
        direct = mc.claims.claims(pd.concat([others, tidy_frame(rows)])).set_index("metric")[
            "value"
        ]
        at = across[across["mondrian_k"] == size].set_index("metric")["value"]
        for name in names:
            assert at[f"mutual_cover.{name}.across"] == direct[f"mutual_cover.{name}"]
    # the table the notebook prints reads the same values
    table = mc.claims.mondrian_ordering(pd.concat([frame, groups])).set_index("mondrian_k")
    for row in across.itertuples():
        kind = row.metric.removeprefix("mutual_cover.").split("_")[0]  # identity or attribute
        column = f"{kind}: MutualCover below (share of P_match)"
        assert table.loc[row.mondrian_k, column] == row.value


def test_query_answers_equal_the_query_module_to_the_bit():
    """The experiment's faster query evaluation: the sums of query_sums and the bounds of
    bounds_anatomy, on the original table and on a table with values the original lacks."""
    data = census_sample(seed=4, n=400)
    rng = np.random.default_rng(0)
    queries = generate_queries(
        data,
        list(mc.run.QI),
        mc.run.SENSITIVE,
        numeric=list(mc.run.CONTINUOUS),
        random_state=rng,
        n_queries=300,
    )
    shifted = data.assign(AGE=data["AGE"] + rng.integers(-3, 4, len(data)), MARST=7)
    for table in (data, shifted):
        want = query_sums(table, queries, mc.run.SENSITIVE)
        got = mc.run._sums(table, mc.run._query_rows(table, queries))
        assert got.tobytes() == want.tobytes()
    rows = mc.run._query_rows(data, queries)
    for seed in range(2):
        an = Anatomy(list(mc.run.QI), mc.run.SENSITIVE, l=3).fit(data, seed)
        s = data[mc.run.SENSITIVE].to_numpy()
        want = bounds_anatomy(an.qit_, an.groups_, s, queries)
        got = mc.run._anatomy_bounds(rows, an.groups_, s)
        for x, y in zip(got, want, strict=True):
            assert x.tobytes() == y.tobytes()
