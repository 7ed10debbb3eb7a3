"""Mutual Cover: the LP of Section 4 against Fig. 2 and an independent formulation, Algorithms 1-3."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from populations import census_sample
from ppdp.experiments.mutual_cover.run import fig2_table as paper_fig2_table
from ppdp.guarantees import guarantee_report
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mutual_cover import MutualCover, random_output_table, solve_random_output_table

pycanon = pytest.importorskip("pycanon.anonymity")
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore:.*keys of .groups.*")

AGES = np.array([28, 29, 29, 32, 33, 35, 39, 39, 40, 41])  # Fig. 1(a)


def check_partition(mc, table):
    """The partition's l (pycanon on the groups published as the only QI) and the guarantee report."""
    published = pd.DataFrame(
        {"group": mc.groups_.astype(str), mc.sensitive: table[mc.sensitive].to_numpy()}
    )
    assert pycanon.l_diversity(published, ["group"], [mc.sensitive]) >= np.ceil(mc.l)
    alpha, _ = pycanon.alpha_k_anonymity(published, ["group"], [mc.sensitive])
    assert alpha <= 1 / mc.l + 1e-12
    assert pycanon.k_anonymity(published, ["group"]) >= np.ceil(1 / mc.delta - 1e-9)
    if mc.partition_ is not None:
        gen = mc.partition_.transform()
        assert pycanon.l_diversity(gen, list(mc.qi_), [mc.sensitive]) >= np.ceil(mc.l)
    report = guarantee_report(mc).set_index("guarantee")
    assert report["holds"].all()
    assert report.loc["delta-probability", "measured"] <= mc.delta + 1e-12


def fig2_table():
    """The random output table printed in Fig. 2 (delta = 1/2), columns 28..41, as an array."""
    return paper_fig2_table().to_numpy()


def full_lp_objective(values, columns, delta):
    """Independent solve: one row per record, constraint p_ij - delta * sum_i' p_i'j <= 0."""
    m, n = len(values), len(columns)
    dist = np.abs(np.asarray(values, float)[:, None] - np.asarray(columns, float)[None, :])
    a_eq = np.kron(np.eye(m), np.ones((1, n)))
    rows = []
    for i in range(m):
        for j in range(n):
            row = np.zeros((m, n))
            row[:, j] -= delta
            row[i, j] += 1.0
            rows.append(row.ravel())
    res = linprog(
        dist.ravel(),
        A_ub=np.array(rows),
        b_ub=np.zeros(m * n),
        A_eq=a_eq,
        b_eq=np.ones(m),
        bounds=(0, None),
        method="highs-ds",
    )
    assert res.status == 0
    return res.fun


def check_table(p, counts, delta, tol=1e-6):
    assert np.all(p >= 0)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-9)
    col_sum = counts @ p
    assert np.all(p <= delta * col_sum[None, :] + tol)


@pytest.mark.parametrize("solver", ["ipm", "simplex"])
def test_fig2_objective_and_feasibility(solver):
    table = random_output_table(AGES, 0.5, solver=solver)
    np.testing.assert_array_equal(table.columns, np.arange(28, 42))
    paper = fig2_table()
    dist = np.abs(AGES[:, None] - np.arange(28, 42)[None, :])
    paper_objective = float((dist * paper).sum())
    # the paper's table is feasible (up to its 6-digit rounding) ...
    np.testing.assert_allclose(paper.sum(axis=1), 1.0, atol=1e-5)
    assert (
        paper.max(axis=0)[paper.sum(axis=0) > 0] / paper.sum(axis=0)[paper.sum(axis=0) > 0]
    ).max() <= 0.5 + 1e-5
    # ... and ours reaches the same optimum
    assert table.objective == pytest.approx(paper_objective, abs=1e-4)
    assert table.objective == pytest.approx(
        full_lp_objective(AGES, np.arange(28, 42), 0.5), abs=1e-6
    )
    check_table(table.probabilities, table.counts, 0.5)
    assert table.delta_ratio() <= 0.5 + 1e-6
    full = table.expand(AGES)
    assert full.shape == (10, 14)
    np.testing.assert_allclose(full[1], full[2])  # Helen and Dean share a row, as in Fig. 2


def test_ipm_spreads_mass_like_fig2():
    """The interior solution covers Daphne with Helen/Dean as the paper's table does."""
    full = random_output_table(AGES, 0.5, solver="ipm").expand(AGES)
    assert 0 < full[0, 0] < 1 and 0 < full[0, 1] < 1
    assert np.count_nonzero(full[3] > 1e-6) >= 3


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(0, 12), min_size=2, max_size=9),
    frac=st.floats(0, 1),
    solver=st.sampled_from(["ipm", "simplex"]),
)
def test_random_groups_satisfy_delta_probability(values, frac, solver):
    values = np.array(values)
    m = len(values)
    delta = 1 / m + frac * (1 - 1 / m)
    table = random_output_table(values, delta, solver=solver)
    check_table(table.probabilities, table.counts, delta)
    full = table.expand(values)
    np.testing.assert_allclose(full.sum(axis=1), 1.0, atol=1e-9)
    col_sum = full.sum(axis=0)
    assert np.all(full.max(axis=0) <= delta * col_sum + 1e-6)
    # Corollary 1: every output value with positive mass is reachable from >= ceil(1/delta) records
    used = col_sum > 1e-6
    need = int(np.ceil(1 / delta - 1e-9))
    assert np.all((full[:, used] > 1e-12).sum(axis=0) >= need)
    # optimal: same objective as the independent per-record formulation
    assert table.objective == pytest.approx(
        full_lp_objective(values, table.columns, delta), abs=1e-5
    )


def test_categorical_zero_one_distance():
    values = np.array(["a", "a", "b", "c", "c", "c"], dtype=object)
    table = random_output_table(values, 1 / 3, kind="categorical")
    check_table(table.probabilities, table.counts, 1 / 3)
    # "b" (one record) must be covered by at least two others
    assert table.objective > 0


def test_lp_errors():
    with pytest.raises(ValueError, match="Property 1"):
        solve_random_output_table(np.zeros((2, 2)), np.array([1, 1]), 0.3)
    with pytest.raises(ValueError, match="solver"):
        solve_random_output_table(np.zeros((2, 2)), np.array([1, 1]), 0.5, solver="magic")


def census_like(seed=0, n=300):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "AGE": rng.integers(16, 71, n),
            "SEX": rng.integers(1, 3, n),
            "EDUC": rng.integers(0, 12, n),
            "HOURS": rng.integers(1, 100, n),
            "INCWAGE": rng.integers(0, 60, n) * 1000,
            "OTHER": np.arange(n),
        }
    )


QI = ["AGE", "SEX", "EDUC", "HOURS"]


def test_release_keeps_rows_and_hides_groups():
    table = census_like()
    mc = MutualCover(QI, "INCWAGE", delta=1 / 5, l=5)
    released = mc.fit_sample(table, np.random.default_rng(0))
    check_partition(mc, table)
    assert list(released.columns) == list(table.columns)
    assert released.index.equals(table.index)
    pd.testing.assert_series_equal(released["INCWAGE"], table["INCWAGE"])
    pd.testing.assert_series_equal(released["OTHER"], table["OTHER"])
    assert (released.dtypes == table.dtypes).all()
    # every released value lies in its group's output columns
    for g, rows in enumerate(mc.group_rows_):
        for c in QI:
            assert np.isin(released[c].to_numpy()[rows], mc.tables_[g][c].columns).all()
    # the partition is l-diverse and every table satisfies delta-probability
    sizes = np.bincount(mc.groups_)
    assert (
        table.assign(g=mc.groups_)
        .groupby(["g", "INCWAGE"])
        .size()
        .groupby(level=0)
        .max()
        .mul(5)
        .le(sizes)
        .all()
    )
    for g in mc.tables_:
        for t in g.values():
            check_table(t.probabilities, t.counts, 1 / 5)
    # Algorithm 3: no tuple keeps all its QI values
    assert ((released[QI] != table[QI]).any(axis=1)).all()
    assert mc.n_unchangeable_ == 0


def test_without_algorithm3_some_tuples_stay():
    table = census_like(1)
    mc = MutualCover(QI, "INCWAGE", delta=1 / 5, l=5, randomize_unchanged=False)
    released = mc.fit_sample(table, np.random.default_rng(0))
    check_partition(mc, table)
    unchanged = ~(released[QI] != table[QI]).any(axis=1)
    assert unchanged.sum() == mc.n_unchanged_ > 0


def test_same_seed_same_output():
    table = census_like(2)
    mc = MutualCover(QI, "INCWAGE", delta=1 / 6, l=6).fit(table)
    a = mc.sample(table, np.random.default_rng(7))
    b = mc.sample(table, np.random.default_rng(7))
    c = mc.sample(table, np.random.default_rng(8))
    check_partition(mc, table)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    mc2 = MutualCover(QI, "INCWAGE", delta=1 / 6, l=6).fit(table)
    pd.testing.assert_frame_equal(a, mc2.sample(table, np.random.default_rng(7)))


def test_sampling_follows_the_tables():
    """Empirical output frequencies of one record match its row of the random output table."""
    table = census_like(3, n=60)
    mc = MutualCover(["AGE"], "INCWAGE", delta=1 / 4, l=4, randomize_unchanged=False).fit(table)
    rng = np.random.default_rng(0)
    check_partition(mc, table)
    draws = np.array([mc.sample(table, rng)["AGE"].to_numpy()[0] for _ in range(3000)])
    g = mc.groups_[0]
    t = mc.tables_[g]["AGE"]
    expected = t.expand(table["AGE"].to_numpy()[[0]])[0]
    observed = np.array([(draws == v).mean() for v in t.columns])
    assert np.abs(observed - expected).max() < 0.04


def test_precomputed_partition_and_categorical():
    table = census_like(4)
    table["SEXC"] = np.where(table["SEX"] == 1, "m", "f")
    qi = ["AGE", "SEXC", "EDUC"]
    groups = Mondrian(qi, "INCWAGE", l=5, categorical=["SEXC"]).fit(table).groups_
    mc = MutualCover(qi, "INCWAGE", delta=0.2, l=5, categorical=["SEXC"]).fit(table, groups=groups)
    released = mc.sample(table, np.random.default_rng(0))
    check_partition(mc, table)
    assert set(released["SEXC"]) <= {"m", "f"}
    np.testing.assert_array_equal(mc.groups_, groups)


def test_bad_input():
    table = census_like()
    # the constructor stores, fit checks
    with pytest.raises(ValueError, match=r"\[1/l, 1\]"):
        MutualCover(QI, "INCWAGE", delta=0.05, l=10).fit(table)
    with pytest.raises(ValueError, match=r"'delta' .*\(0\.0, 1\.0\]\. Got 1\.5"):
        MutualCover(QI, "INCWAGE", delta=1.5, l=10).fit(table)
    with pytest.raises(ValueError, match="not in the table"):
        MutualCover(["AGE", "nope"], "INCWAGE", delta=0.2, l=5).fit(table)
    with pytest.raises(ValueError, match="larger than the number of distinct"):
        MutualCover(QI, "INCWAGE", delta=0.01, l=100).fit(table)
    text = table.assign(AGE=table["AGE"].astype(str))
    with pytest.raises(TypeError, match="must be numeric"):
        MutualCover(QI, "INCWAGE", delta=0.2, l=5).fit(text)
    nan = table.astype({"HOURS": float})
    nan.loc[5, "HOURS"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MutualCover(QI, "INCWAGE", delta=0.2, l=5).fit(nan)
    with pytest.raises(ValueError, match="Property 1"):
        MutualCover(QI, "INCWAGE", delta=0.2, l=5).fit(table, groups=np.arange(len(table)) // 3)
    mc = MutualCover(QI, "INCWAGE", delta=0.2, l=5).fit(table)
    with pytest.raises(TypeError, match="random_state"):
        mc.sample(table, "0")


def test_run_experiments_on_a_synthetic_census():
    from ppdp.experiments import mutual_cover as mcx
    from ppdp.experiments.common import TIDY_COLUMNS

    data = census_sample()
    kwargs = dict(
        deltas=(1 / 5, 1 / 10),
        l=10,
        l_values=(10, 12),
        p_match=(0.5, 1.0),
        n_runs=2,
        n_queries=20,
        seed=3,
    )
    frame = mcx.run.run_experiments(data, **kwargs)
    # the tidy columns, then the parameters, typed: l an integer everywhere, delta and P_match
    # missing on the baselines' rows
    assert list(frame.columns) == [*TIDY_COLUMNS, "delta", "l", "p_match"]
    assert frame["l"].dtype == np.int64
    assert frame[["delta", "p_match"]].dtypes.eq(np.float64).all()
    assert set(frame["experiment"]) >= {"fig3", "fig4", "fig5", "fig6", "fig7", "fig8"}
    assert np.isfinite(frame["value"]).all()
    # same seed, same results
    pd.testing.assert_frame_equal(frame, mcx.run.run_experiments(data, **kwargs))
    claims = mcx.claims.claims(frame)
    assert (claims["experiment"] == "claims").all()
    assert claims["metric"].str.startswith("mutual_cover.").all()
    assert len(claims) >= 10
    # Algorithm 3 leaves no tuple fully unchanged, so full knowledge matches nobody (Fig. 3f)
    assert claims.set_index("metric").loc["mutual_cover.identity_zero_at_full_match", "value"] == 0
