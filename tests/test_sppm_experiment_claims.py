"""The SPPM experiments' claims, tables and figures come from the tidy results alone.

``ppdp.experiments.sppm.claims.claims`` must give the same rows whether it runs on the frame the
notebook builds or on the results CSV the notebook writes (which also holds the claim rows), and
the ``plot_*`` functions must draw from such frames. The results here come from every experiment
of the notebook run on small stand-in problems (no dataset is read), which takes a few seconds.
"""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

from ppdp.compendium.published import published_value
from ppdp.experiments import sppm as E
from ppdp.experiments.common import (
    DERIVED_EXPERIMENTS,
    concat_tidy,
    facet_columns,
    parameter_columns,
    parameter_labels,
    read_results,
    tidy_frame,
    tidy_rows,
    write_results,
)
from ppdp.mechanisms import sppm as S
from ppdp.mechanisms.sppm.table import empirical_joint, profile_alphabet


def stand_in_problem(name: str, features, n_categories, *, n_users: int, top: int, seed: int):
    """A problem shaped like Census or Movie: random categorical users, a label that depends on
    their first two features, the ``top`` most frequent profiles as the alphabet."""
    rng = np.random.default_rng(seed)
    users = np.column_stack([rng.integers(0, k, n_users) for k in n_categories])
    logit = 1.5 * (users[:, 0] - users[:, 0].mean()) - 1.0 * (users[:, 1] - users[:, 1].mean())
    label = (rng.random(n_users) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    codes, profile, _ = profile_alphabet(users, order="frequency", top=top)
    keep = profile >= 0
    return E.data.Problem(
        name,
        empirical_joint(label[keep], profile[keep], 2, codes.shape[0]),
        S.HammingDistortion(codes, normalize=True),
        codes,
        list(features),
        [np.arange(k) for k in n_categories],
        profile[keep],
        label[keep],
    )


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    """Every experiment of the notebook on small problems.

    The grids share their budgets so that the memoized fits are reused (an SPPM fit of 100 steps
    takes about a second however small the problem); the timing runs clear that memo, so they come
    last.
    """
    warnings.filterwarnings("ignore", category=UserWarning)
    E.run.clear_cache()
    syn = E.data.synthetic(3)
    census = stand_in_problem(
        "census_stand_in",
        E.data.CENSUS_FEATURES,
        (3, 3, 2, 3, 2, 2, 2),
        n_users=600,
        top=12,
        seed=1,
    )
    movie = stand_in_problem(
        "movie_stand_in", [f"g{i}" for i in range(5)], (2,) * 5, n_users=600, top=10, seed=2
    )
    frames = [
        E.run.tradeoff(
            syn,
            [1.0],
            experiment="fig2_synthetic",
            methods=("sppm", "optimal"),
            n_steps=[3, 100],
            optimal_max_n=16,
        ),
        E.run.tradeoff(census, [0.0, 0.1], experiment="fig2_census", optimal_max_n=16),
        E.run.tradeoff(movie, [0.0, 0.1], experiment="fig2_movie", optimal_max_n=0),
        E.run.table1(census, 0.1)[0],
        E.run.table1_across(census, [0.05, 0.1], 0.1),
        E.run.roc_experiment(
            census, [0.1], classifier="naive_bayes", experiment="fig3", seeds=[0, 1]
        ),
        E.run.roc_experiment(
            movie, [0.1], classifier="logistic", experiment="fig4", optimal_max_n=0
        ),
        E.run.nearest_point_experiment(3, 1.0, k_max=4),
        E.run.support_experiment(movie, 0.1)[0],
        E.run.support_across(movie, [0.1, 0.2], 0.1),
        E.run.timing_experiment([2], (3, 100), exact_max_n=4),
    ]
    E.run.clear_cache()
    return concat_tidy(frames)


@pytest.mark.parametrize("steps", [1, 3])
def test_tradeoff_curves_warm_started_along_the_grid_never_go_up(steps):
    E.run.clear_cache()
    problem = stand_in_problem(
        "movie_stand_in", [f"g{i}" for i in range(5)], (2,) * 5, n_users=600, top=12, seed=3
    )
    deltas = [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3]
    warm = E.run.tradeoff(problem, deltas, experiment="w", methods=("sppm",), n_steps=(steps,))
    cold = E.run.tradeoff(
        problem, deltas, experiment="c", methods=("sppm",), n_steps=(steps,), warm_start=False
    )
    for frame in (warm, cold):
        d = (
            E.claims.curve_table(frame, frame["experiment"].iloc[0])["distortion"]
            .to_numpy()
            .ravel()
        )
        assert np.all(d <= np.asarray(deltas) + 1e-12)
    leak = E.claims.curve_table(warm, "w")["leakage"].to_numpy().ravel()
    assert np.all(np.diff(leak) <= 1e-12)
    # a budget between grid points follows the same path, reusing the grid's mappings
    mid = E.run._fit("sppm", problem, 0.15, n_steps=steps, path=deltas)[0]
    assert mid.leakage_ <= E.run._fit("sppm", problem, 0.1, n_steps=steps, path=deltas)[0].leakage_
    E.run.clear_cache()


@pytest.fixture(scope="module")
def written(results, tmp_path_factory) -> pd.DataFrame:
    """What the notebook writes: the results and their claim rows, read back from the CSV."""
    path = tmp_path_factory.mktemp("sppm") / "sppm.csv"
    write_results(concat_tidy([results, E.claims.claims(results)]), path)
    return read_results(path)


def claim_part(frame: pd.DataFrame) -> pd.DataFrame:
    """The claim rows, with the parameter columns they use: a written CSV has a column for every
    parameter and facet of every experiment, missing on the claim rows."""
    rows = tidy_frame(frame[frame["experiment"].isin(DERIVED_EXPERIMENTS)])
    columns = [*facet_columns(rows), *parameter_columns(rows)]
    unused = [c for c in columns if rows[c].isna().all()]
    return rows.drop(columns=unused).reset_index(drop=True)


def assert_same_claims(recomputed: pd.DataFrame, stored: pd.DataFrame) -> None:
    """Same claim rows; values equal up to the 10 significant digits a results CSV keeps.

    A claim that is a difference or ratio of written values can differ from the stored one in
    its 10th digit, since the stored claim was computed before the values were rounded.
    """
    recomputed, stored = claim_part(recomputed), claim_part(stored)
    # the same rows, parameters and (no) intervals
    pd.testing.assert_frame_equal(recomputed.drop(columns="value"), stored.drop(columns="value"))
    a, b = recomputed["value"].to_numpy(), stored["value"].to_numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    np.testing.assert_allclose(a[ok], b[ok], rtol=1e-8, atol=1e-10)
    orderings = recomputed["metric"].str.contains("below|more_steps|top3").to_numpy()
    np.testing.assert_array_equal(a[orderings], b[orderings])


def test_every_claim_is_computed(results):
    claims = E.claims.claims(results)
    assert len(claims) == len(set(claims["metric"]))
    assert set(claims["experiment"]) == {"claims", "claim_context"}
    expected = {
        "sppm.census_leakage_before",
        "sppm.census_sppm_below_expmec",
        "sppm.census_gap_to_optimal",
        "sppm.movie_leakage_before",
        "sppm.movie_expmec_distortion",
        "sppm.synthetic_L100_gap",
        "sppm.synthetic_more_steps_better",
        "sppm.table1_education_before",
        "sppm.table1_top3_reduction",
        "sppm.census_auc_sppm_below_expmec",
        "sppm.movie_auc_largest_delta_sppm",
        "sppm.fig6_exact_over_sppm_time",
        "sppm.movie_support_max",
        "sppm.table1_education_after.across",
        "sppm.movie_support_max.across",
        "sppm.movie_support_frac_le10.across",
    }
    assert expected <= set(claims["metric"])
    assert "sppm.movie_gap_to_optimal" not in set(claims["metric"])  # no optimum on Movie
    leakage = E.claims.curve_table(results, "fig2_census")[("leakage", "sppm_L100")]
    value = claims.set_index("metric")["value"]
    assert value["sppm.census_leakage_before"] == pytest.approx(leakage.loc[0.0], rel=1e-6)
    assert value["sppm.movie_support_max"] == E.claims.support_table(results)["max"]


def test_metrics_name_the_quantity_and_facets_what_it_is_of(results):
    """Table 1's per-feature leakages carry the feature as their attribute, Fig. 5's and Fig. 7's
    statistics over the profiles as their statistic; no metric name spells either."""
    t1 = results[results["experiment"] == "table1"]
    per_feature = t1[t1["attribute"].notna()]
    assert set(per_feature["metric"]) == {"feature_leakage_before", "feature_leakage_after"}
    assert sorted(per_feature["attribute"].unique()) == sorted(E.data.CENSUS_FEATURES)
    assert set(t1.loc[t1["attribute"].isna(), "metric"]) == {"leakage_before", "leakage_after"}
    f5 = results[results["experiment"] == "fig5"]
    assert set(f5["metric"]) == {"kth_nearest_probability"}
    assert set(f5["statistic"]) == {"mean", "std", "sem"}
    f7 = results[(results["experiment"] == "fig7") & results["statistic"].notna()]
    assert set(f7["metric"]) == {"support_size"}
    assert set(f7["statistic"]) == {"max", "median", "frac_le10"}
    assert (
        E.claims.support_table(results)["max"] == f7.loc[f7["statistic"] == "max", "value"].item()
    )
    spelled = results["metric"].str.match(r"(before|after|reduction)_|support_(max|median|frac)")
    assert not spelled.any()
    assert not results["metric"].isin(["mean", "std", "sem"]).any()


def test_claims_ignore_claim_rows_in_the_results(results):
    claims = E.claims.claims(results)
    with_claims = concat_tidy([results, claims])
    pd.testing.assert_frame_equal(E.claims.claims(with_claims), claims)


def test_claims_recomputed_from_the_written_csv(written):
    assert_same_claims(E.claims.claims(written), written)


def test_claims_read_the_parameters_as_numbers():
    """Grid points are ordered by their numbers, not as text would be (``16`` before ``8``)."""
    rows = []
    for n, exact, sppm in ((8, 2.0, 1.0), (16, 9.0, 3.0), (64, np.nan, 5.0)):
        for method, secs in (("exact", exact), ("sppm_L100", sppm)):
            if not np.isnan(secs):
                rows += tidy_rows("fig6", method, {"seconds": secs}, parameters={"n": n})
    for delta, sppm_auc in ((0.05, 0.7), (0.5, 0.55), (0.14, 0.6)):
        for method, auc in (("sppm", sppm_auc), ("expmec", sppm_auc + 0.1)):
            rows += tidy_rows("fig3", method, {"auc": auc}, parameters={"delta": delta}, seed=0)
    for delta, leak in ((0.0, 0.4), (0.05, 0.2), (0.1, 0.05)):
        for method in ("sppm_L100", "expmec"):
            if method == "expmec" and delta == 0:
                continue
            metrics = {"leakage": leak * (1 if method == "sppm_L100" else 2), "distortion": delta}
            rows += tidy_rows("fig2_census", method, metrics, parameters={"delta": delta, "n": 9})
    value = E.claims.claims(tidy_frame(rows)).set_index("metric")["value"]
    assert value["sppm.fig6_exact_over_sppm_time"] == 3.0
    assert value["sppm.census_auc_largest_delta_sppm"] == 0.55
    assert value["sppm.census_auc_sppm_below_expmec"] == 1.0
    assert value["sppm.census_leakage_before"] == 0.4
    assert value["sppm.census_sppm_below_expmec"] == 1.0


def test_tables(results):
    table = E.claims.table1_table(results)
    assert list(table["feature"]) == [E.data.CENSUS_LABELS[f] for f in E.data.CENSUS_FEATURES]
    for feature, row in zip(E.data.CENSUS_FEATURES, table.itertuples(index=False), strict=True):
        assert [row[3], row[4]] == published_value(f"sppm.table1.{feature}")
    assert (table["after"] <= table["before"] + 1e-9).all()
    auc = E.claims.auc_table(results, "fig3")
    assert list(auc.index) == [0.1]
    assert {"none", "sppm", "expmec", "optimal"} == set(auc.columns)
    nearest = E.claims.nearest_point_table(results)
    assert list(nearest.index) == [1, 2, 3, 4]
    assert list(E.claims.time_table(results).index) == [4]
    sizes = E.data.data_table({"synthetic": E.data.synthetic(3)})
    assert sizes.loc["synthetic", "alphabet"] == 8 and sizes.loc["synthetic", "users"] == 0
    with pytest.raises(ValueError, match="no rows of experiment 'fig7'"):
        E.claims.support_table(results[results["experiment"] != "fig7"])


@pytest.mark.parametrize(
    ("draw", "n_axes"),
    [
        (lambda f: E.figures.plot_tradeoff(f), 3),
        (lambda f: E.figures.plot_tradeoff(f[f["experiment"] == "fig2_movie"]), 1),
        (lambda f: E.figures.plot_roc(f, "fig3", "Census"), 1),
        (lambda f: E.figures.plot_roc(f, "fig4", "Movie"), 1),
        (lambda f: E.figures.plot_nearest(f), 1),
        (lambda f: E.figures.plot_time(f), 1),
        (lambda f: E.figures.plot_support(f, "Movie"), 1),
    ],
)
def test_plots_return_figures(results, draw, n_axes):
    import matplotlib.pyplot as plt

    fig = draw(results)
    try:
        assert isinstance(fig, matplotlib.figure.Figure)
        assert len(fig.axes) == n_axes
        assert all(ax.has_data() for ax in fig.axes)
    finally:
        plt.close(fig)


def test_plots_draw_from_the_written_csv(written):
    import matplotlib.pyplot as plt

    fig = E.figures.plot_tradeoff(written)
    plt.close(fig)
    assert E.figures.method_label("sppm_L100") == "SPPM L=100"
    assert E.figures.method_label("none") == "No privacy"
    with pytest.raises(ValueError, match="none of the experiments"):
        E.figures.plot_tradeoff(written[written["experiment"] == "fig7"])


def test_census_encodings_are_checked_and_the_default_is_the_experiments():
    with pytest.raises(ValueError, match="age_bins must be one of"):
        E.data.census_problem(age_bins="decades")
    with pytest.raises(ValueError, match="missing must be one of"):
        E.data.census_problem(missing="impute")
    with pytest.raises(ValueError, match="top must be None or an integer >= 2"):
        E.data.census_problem(top=1)
    frame = E.run.encoding_sensitivity(
        tops=(50,),
        age_bins=("decade", "20y"),
        missing=("drop",),
        splits=("all",),
        published={"education": 0.15},
    )
    # the metrics of the whole encoding; I(A; F) per feature is the attribute facet's
    whole = frame[frame["attribute"].isna()]
    wide = whole.pivot_table(index="method", columns="metric", values="value")
    default = E.data.census_problem(50)
    ours = wide.loc["top=50;age=decade;missing=drop;rows=all"]
    assert ours["leakage_before"] == pytest.approx(
        mutual_info_score(default.user_label, default.user_profile) / np.log(2), abs=1e-12
    )
    before = E.run.feature_leakage(default, None)
    assert ours["table1_max_diff"] == pytest.approx(abs(before["education"] - 0.15))
    features = frame[
        (frame["method"] == "top=50;age=decade;missing=drop;rows=all")
        & (frame["metric"] == "feature_leakage_before")
    ]
    assert features.set_index("attribute")["value"].to_dict() == pytest.approx(before)
    leaders = sorted(before, key=lambda f: -before[f])[:3]
    assert ours["top3"] == float(set(leaders) == {"education", "marital_status", "occupation"})
    table = E.claims.encoding_table(frame)
    assert list(table.columns[:4]) == ["I(A;B)", "profiles", "users", "top3"]
    assert table["max |diff| Table 1"].is_monotonic_increasing


def test_memoized_fits_tell_encodings_apart():
    """Two Census encodings share a name and an alphabet size; each gets its own fit."""
    E.run.clear_cache()
    a = E.data.census_problem(40)
    b = E.data.census_problem(40, age_bins="20y")
    assert (a.name, a.n) == (b.name, b.n)
    fit_a = E.run._fit("sppm", a, 0.05, n_steps=5)[0]
    fit_b = E.run._fit("sppm", b, 0.05, n_steps=5)[0]
    assert fit_a is not fit_b
    assert E.run._fit("sppm", a, 0.05, n_steps=5)[0] is fit_a
    E.run.clear_cache()


def test_synthetic_claims_across_alphabets():
    """The synthetic claims at another m equal those of a curve run directly on that alphabet with
    the budgets scaled by the square of its size; the profile's own m is not run twice."""
    deltas = [0.0, 1.0, 3.0]
    across = E.run.synthetic_across([3, 4], 3, deltas, n_steps=(3, 100))
    assert set(across["n"]) == {16}
    direct = E.run.tradeoff(
        E.data.synthetic(4),
        [4 * d for d in deltas],
        experiment="fig2_synthetic",
        methods=("sppm", "optimal"),
        n_steps=(3, 100),
    )
    want = E.claims.claims(direct).set_index("metric")["value"]
    base = E.run.tradeoff(
        E.data.synthetic(3),
        deltas,
        experiment="fig2_synthetic",
        methods=("sppm", "optimal"),
        n_steps=(3, 100),
    )
    got = E.claims.claims(concat_tidy([base, across]))
    rows = got[got["metric"].str.endswith(".across")]
    assert set(parameter_labels(rows)) == {"m = 4"}
    assert sorted(rows["metric"]) == sorted(f"{m}.across" for m in want.index)
    for row in rows.itertuples():
        assert row.value == pytest.approx(want[row.metric.removesuffix(".across")], abs=1e-12)
    table = E.claims.across_table(got, base_m=3)
    assert list(table.index) == [3, 4]
    assert table.loc[4, "synthetic_L100_gap"] == pytest.approx(want["sppm.synthetic_L100_gap"])


def across_rows(claims: pd.DataFrame) -> pd.DataFrame:
    return claims[claims["metric"].str.endswith(".across")]


def test_census_claims_across_encodings(tmp_path):
    """The Census curve claims under another encoding equal those of a curve run directly on that
    encoding (with ExpMec, as the notebook runs it); the profile's own encoding is not run again.
    The direct curve reuses the memoized fits only if its problem has the same fingerprint, that
    is, if the across curve was fitted on that encoding."""
    E.run.clear_cache()
    deltas = [0.0, 0.2]
    across = E.run.census_across(["age_decade", "age_20y", "age_20y"], deltas, top=12)
    assert set(across["encoding"]) == {"age_20y"}
    assert set(across["method"]) == {"sppm_L100", "optimal"}
    with pytest.raises(ValueError, match="unknown Census encodings"):
        E.run.census_across(["age_decades"], deltas, top=12)
    direct = E.run.tradeoff(
        E.data.census_problem(12, age_bins="20y"), deltas, experiment="fig2_census"
    )
    want = E.claims.claims(direct).set_index("metric")["value"]
    base = E.run.tradeoff(E.data.census_problem(12), deltas, experiment="fig2_census")
    got = E.claims.claims(concat_tidy([base, across]))
    rows = across_rows(got)
    assert set(parameter_labels(rows)) == {"encoding = age_20y"}
    names = ["sppm.census_sppm_distortion", "sppm.census_gap_to_optimal"]
    assert sorted(rows["metric"]) == sorted(f"{m}.across" for m in names)
    for row in rows.itertuples():
        assert row.value == pytest.approx(want[row.metric.removesuffix(".across")], abs=1e-12)
    plain = got.set_index("metric")["value"]  # the profile's rows are those of its own curve
    for name in names:
        assert plain[name] == E.claims.claims(base).set_index("metric")["value"][name]
    path = tmp_path / "sppm.csv"  # the encodings come back from a written CSV
    write_results(concat_tidy([base, across, got]), path)
    assert_same_claims(E.claims.claims(read_results(path)), read_results(path))
    table = E.claims.across_values(
        got, [n.removeprefix("sppm.") for n in names], "encoding", "age_decade"
    )
    assert list(table.index) == ["age_20y", "age_decade"]
    assert table.loc["age_decade", "census_gap_to_optimal"] == plain[names[1]]
    assert E.data.CENSUS_ENCODINGS["age_exact_missing_kept_train_rows"] == {
        "age_bins": "raw",
        "missing": "category",
        "split": "train",
    }
    assert E.data.CENSUS_DEFAULT_ENCODING == "age_decade" and len(E.data.CENSUS_ENCODINGS) == 16
    E.run.clear_cache()


def test_table1_and_fig7_claims_across_budgets():
    """Table 1's and Fig. 7's claims at another budget equal those of the experiment run directly
    at that budget; the profile's budget gives no across row."""
    E.run.clear_cache()
    census = stand_in_problem(
        "census_stand_in",
        E.data.CENSUS_FEATURES,
        (3, 3, 2, 3, 2, 2, 2),
        n_users=600,
        top=12,
        seed=1,
    )
    movie = stand_in_problem(
        "movie_stand_in", [f"g{i}" for i in range(5)], (2,) * 5, n_users=600, top=10, seed=2
    )
    t1x = E.run.table1_across(census, [0.05, 0.1, 0.1], 0.1, n_steps=20)
    f7x = E.run.support_across(movie, [0.02, 0.1], 0.1, n_steps=20)
    base = [
        E.run.table1(census, 0.1, n_steps=20)[0],
        E.run.support_experiment(movie, 0.1, n_steps=20)[0],
    ]
    got = E.claims.claims(concat_tidy([*base, t1x, f7x]))
    rows = across_rows(got)
    assert set(parameter_labels(rows)) == {"delta = 0.05", "delta = 0.02"}
    E.run.clear_cache()
    want_t1 = E.claims.claims(E.run.table1(census, 0.05, n_steps=20)[0]).set_index("metric")[
        "value"
    ]
    want_f7 = E.claims.claims(E.run.support_experiment(movie, 0.02, n_steps=20)[0]).set_index(
        "metric"
    )
    want = {**want_t1.to_dict(), **want_f7["value"].to_dict()}
    expected = {
        ("sppm.table1_education_after.across", "delta = 0.05"),
        ("sppm.movie_support_max.across", "delta = 0.02"),
        ("sppm.movie_support_frac_le10.across", "delta = 0.02"),
    }
    assert set(zip(rows["metric"], parameter_labels(rows), strict=True)) == expected
    for row in rows.itertuples():
        assert row.value == pytest.approx(want[row.metric.removesuffix(".across")], abs=1e-12)
    table = E.claims.across_values(
        got, ["movie_support_max", "movie_support_frac_le10"], "delta", 0.1
    )
    assert list(table.index) == [0.02, 0.1]
    assert table.loc[0.02, "movie_support_max"] == want["sppm.movie_support_max"]
    assert E.run.table1_across(census, [0.1], 0.1).empty
    E.run.clear_cache()


def test_timing_keeps_the_fits_memoized_before_it():
    """Fig. 6 times fresh fits but leaves the others memoized, so that Fig. 7's across budgets
    reuse Fig. 4's mappings (fitted before Fig. 6 in the notebook)."""
    E.run.clear_cache()
    problem = E.data.synthetic(2)
    fit = E.run._fit("sppm", problem, 1.0, n_steps=3)[0]
    E.run.timing_experiment([2], (3,), delta_per_point=0.25, exact_max_n=0)
    assert E.run._fit("sppm", problem, 1.0, n_steps=3)[0] is fit
    E.run.clear_cache()


def test_across_parameters_are_checked():
    with pytest.raises(ValueError, match="census_encoding_range"):
        E.run.PARAMETERS["census_encoding_range"].check("census_encoding_range", ["age_decades"])
    assert E.run.PARAMETERS["census_encoding_range"].check(
        "census_encoding_range", "age_exact"
    ) == ["age_exact"]
