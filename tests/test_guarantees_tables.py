"""Declared guarantees of the table mechanisms, checked on what they release.

Mutual Cover's random output tables meet delta-probability exactly whatever the solver leaves
(interior-point residue included); Mondrian, Anatomy and Mutual Cover measure their k, l and delta
on the release and raise GuaranteeViolation instead of releasing a violation. pycanon is the
independent computation of k-anonymity and l-diversity of every generalized release made here.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

import ppdp.mechanisms.anatomy as anatomy_module
import ppdp.mechanisms.mutual_cover.lp as mc_lp
from ppdp.guarantees import GuaranteeViolation, guarantee_report
from ppdp.mechanisms.anatomy import Anatomy
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mutual_cover import (
    MutualCover,
    random_output_table,
    repair_table,
    solve_random_output_table,
)

pycanon = pytest.importorskip("pycanon.anonymity")
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore:.*keys of .groups.*")


def per_record_ratio(p_rows, counts):
    """Definition 5 on the expanded table (one row per record), without the counts shortcut."""
    full = np.repeat(np.asarray(p_rows), np.asarray(counts), axis=0)
    col = full.sum(axis=0)
    used = col > 0
    return float((full.max(axis=0)[used] / col[used]).max())


def assert_pycanon_partition(table, groups, sensitive, k=None, l=None):  # noqa: E741
    """k and l of a partition published with group ids as its only QI, computed by pycanon."""
    published = pd.DataFrame(
        {"group": np.asarray(groups).astype(str), sensitive: table[sensitive].to_numpy()}
    )
    if k is not None:
        assert pycanon.k_anonymity(published, ["group"]) >= k
    if l is not None:
        # Definition 2 (each value at most 1/l of its group) implies >= l distinct values
        assert pycanon.l_diversity(published, ["group"], [sensitive]) >= np.ceil(l - 1e-12)
        alpha, _ = pycanon.alpha_k_anonymity(published, ["group"], [sensitive])
        assert alpha <= 1 / l + 1e-12


def census_like(seed=0, n=200):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "AGE": rng.integers(16, 71, n),
            "SEX": rng.integers(1, 3, n),
            "EDUC": rng.integers(0, 12, n),
            "INCWAGE": rng.integers(0, 40, n) * 1000,
        }
    )


QI = ["AGE", "SEX", "EDUC"]

# Two groups of UCI Adult (45,222 complete rows; QIs age, education, marital-status, race, sex,
# native-country; sensitive occupation; l = 4) whose interior-point table broke delta = 1/4 before
# the repair: native-country of group 133 reached 0.2614 through 'Mexico', a column of total mass
# 1.6e-9, and race of group 141 reached 0.2505.
ADULT_GROUPS = [
    ["El-Salvador", "Mexico"] + ["United-States"] * 14,
    ["Asian-Pac-Islander", "Black"] + ["White"] * 10,
]


# -- repair of solved tables ---------------------------------------------------------------------


@pytest.mark.parametrize("values", ADULT_GROUPS)
@pytest.mark.parametrize("solver", ["ipm", "simplex"])
def test_adult_groups_meet_delta_exactly(values, solver):
    table = random_output_table(
        np.array(values, dtype=object), 0.25, kind="categorical", solver=solver
    )
    assert table.delta_ratio() <= 0.25 + 1e-12
    assert per_record_ratio(table.probabilities, table.counts) <= 0.25 + 1e-12
    np.testing.assert_allclose(table.probabilities.sum(axis=1), 1.0, atol=1e-12)
    assert (table.probabilities >= 0).all()


def test_both_solvers_reach_the_same_objective_after_repair():
    for values in ADULT_GROUPS:
        a = random_output_table(np.array(values, dtype=object), 0.25, kind="categorical")
        b = random_output_table(
            np.array(values, dtype=object), 0.25, kind="categorical", solver="simplex"
        )
        assert a.objective == pytest.approx(b.objective, rel=1e-7, abs=1e-7)


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(0, 8), min_size=3, max_size=9),
    frac=st.floats(0, 1),
    residue=st.floats(1e-9, 1e-7),
    row=st.integers(0, 100),
    noise=st.floats(0, 1e-9),
    seed=st.integers(0, 1000),
)
def test_repair_of_residue_meets_delta_exactly(values, frac, residue, row, noise, seed):
    """A feasible table plus a near-empty column carried by one record, plus tiny infeasibility."""
    values = np.array(values)
    uniq, counts = np.unique(values, return_counts=True)
    m = counts.sum()
    delta = 1 / m + frac * (1 - 1 / m)
    columns = np.arange(values.min(), values.max() + 1)
    dist = np.abs(uniq[:, None] - columns[None, :]).astype(float)
    q, objective = solve_random_output_table(dist, counts, delta, solver="simplex")
    # append an empty output column and put `residue` records of mass on it from one row
    q = np.hstack([q, np.zeros((len(uniq), 1))])
    k = row % len(uniq)
    q[k, -1] = residue / counts[k]
    q[k, :-1] *= 1 - q[k, -1]
    rng = np.random.default_rng(seed)
    q[:, :-1] += noise * rng.standard_normal(q[:, :-1].shape)
    if 1 / counts[k] > delta:  # then the residue column alone breaks delta
        assert per_record_ratio(np.maximum(q, 0), counts) > delta
    repaired = repair_table(q, counts, delta)
    assert (repaired >= 0).all()
    np.testing.assert_allclose(repaired.sum(axis=1), 1.0, atol=1e-12)
    assert per_record_ratio(repaired, counts) <= delta + 1e-12
    dist_x = np.hstack([dist, np.full((len(uniq), 1), 100.0)])
    assert np.sum(counts[:, None] * dist_x * repaired) == pytest.approx(objective, abs=1e-5)


def test_repair_at_delta_one_over_m_gives_equal_rows():
    counts = np.array([1, 2, 1])
    q = np.array([[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [0.0, 0.5, 0.5]])
    repaired = repair_table(q, counts, 0.25)
    np.testing.assert_allclose(repaired, np.tile(counts @ q / 4, (3, 1)), atol=1e-12)
    assert per_record_ratio(repaired, counts) <= 0.25 + 1e-12


def _solver_with_residue(mass, *, keep_row_sum):
    """HiGHS as used by Mutual Cover, with ``mass`` added to the first row's last column."""
    real = mc_lp._run_highs

    def with_residue(model, solver):
        x, failure = real(model, solver)
        x = x.copy()
        r = model.num_row - model.num_col
        n = model.num_col // (r + 1)
        q = x[: r * n].reshape(r, n)
        q[0, -1] += mass
        if keep_row_sum:
            q[0, :-1] *= 1 - mass
        return x, failure

    return with_residue


def test_residue_injected_into_the_solver_is_repaired_before_sampling(monkeypatch):
    """The LP solution carries residue on a far column; the sampled tables still meet delta."""
    # one record carries a near-empty column
    monkeypatch.setattr(mc_lp, "_run_highs", _solver_with_residue(5e-9, keep_row_sum=True))
    table = census_like(1)
    mc = MutualCover(QI, "INCWAGE", delta=1 / 5, l=5).fit(table)
    released = mc.sample(None, np.random.default_rng(0))
    report = guarantee_report(mc)
    assert report["holds"].all()
    for a, c in enumerate(mc.qi_):
        for tables in mc.tables_:
            t = tables[c]
            assert per_record_ratio(t.probabilities, t.counts) <= 1 / 5 + 1e-12
        # the cumulative rows sampled from are built from the repaired probabilities
        for i in range(0, len(table), 17):
            t = mc.tables_[mc.groups_[i]][c]
            start, k = mc._row_start[a][i], mc._row_len[a][i]
            row = t.expand(table[c].to_numpy()[[i]])[0]
            np.testing.assert_allclose(mc._cum[a][start : start + k], np.cumsum(row), atol=1e-12)
    assert len(released) == len(table)


# -- guarantee reports on normal releases --------------------------------------------------------


@pytest.mark.parametrize("solver", ["ipm", "simplex"])
@pytest.mark.parametrize("refine", ["none", "anatomy"])
def test_mutual_cover_report_holds(solver, refine):
    table = census_like(2)
    mc = MutualCover(QI, "INCWAGE", delta=1 / 5, l=5, solver=solver, refine=refine).fit(table)
    mc.sample(table, np.random.default_rng(1))
    report = guarantee_report(mc).set_index("guarantee")
    assert list(report.index) == ["delta-probability", "l-diversity"]
    assert report["holds"].all()
    # independent measures: the worst ratio over the expanded tables, pycanon on the partition
    worst = max(per_record_ratio(t.probabilities, t.counts) for g in mc.tables_ for t in g.values())
    assert report.loc["delta-probability", "measured"] == pytest.approx(worst, abs=1e-12)
    assert worst <= 1 / 5 + 1e-12
    assert_pycanon_partition(table, mc.groups_, "INCWAGE", l=5)
    assert mc.partition_ is not None
    gen = mc.partition_.transform()
    assert pycanon.l_diversity(gen, QI, ["INCWAGE"]) >= 5


def test_mondrian_report_holds_and_matches_pycanon():
    table = census_like(3)
    m = Mondrian(QI, "INCWAGE", k=6, l=4).fit(table)
    report = guarantee_report(m).set_index("guarantee")
    assert report["holds"].all()
    gen = m.transform()
    assert pycanon.k_anonymity(gen, QI) >= report.loc["k-anonymity", "measured"] >= 6
    assert pycanon.l_diversity(gen, QI, ["INCWAGE"]) >= 4
    assert report.loc["k-anonymity", "measured"] == np.bincount(m.groups_).min()
    assert_pycanon_partition(table, m.groups_, "INCWAGE", k=6, l=4)


def test_anatomy_report_holds():
    table = census_like(4, n=120)
    an = Anatomy(QI, "INCWAGE", l=4).fit(table, np.random.default_rng(0))
    report = guarantee_report(an).set_index("guarantee")
    assert report["holds"].all()
    assert report.loc["group size", "measured"] == np.bincount(an.groups_).min()
    assert_pycanon_partition(table, an.groups_, "INCWAGE", k=4, l=4)


# -- violations are withheld ---------------------------------------------------------------------


def test_mutual_cover_withholds_a_table_that_breaks_delta(monkeypatch):
    """Without the repair the interior-point residue reaches the tables: nothing is released."""

    def no_repair(q, counts, delta):
        q = np.maximum(q, 0.0)
        return q / q.sum(axis=1, keepdims=True)

    monkeypatch.setattr(mc_lp, "_repair", no_repair)
    monkeypatch.setattr(mc_lp, "_run_highs", _solver_with_residue(1e-8, keep_row_sum=False))
    table = census_like(5)
    mc = MutualCover(QI, "INCWAGE", delta=1 / 5, l=5).fit(table)
    released = None
    with pytest.raises(GuaranteeViolation, match="delta-probability") as info:
        released = mc.sample(table, np.random.default_rng(0))
    assert released is None
    (failed,) = info.value.failed
    assert failed.measured > 1 / 5 and failed.where.startswith("group ")


def test_mutual_cover_withholds_a_partition_that_is_not_l_diverse():
    table = census_like(6)
    # groups of 5 tuples in row order: large enough for delta = 1/5, rarely 5-diverse
    groups = np.arange(len(table)) // 5
    table = table.assign(INCWAGE=np.where(np.arange(len(table)) < 10, 0, table["INCWAGE"]))
    mc = MutualCover(QI, "INCWAGE", delta=1 / 5, l=5).fit(table, groups=groups)
    with pytest.raises(GuaranteeViolation, match="l-diversity"):
        mc.sample(None, np.random.default_rng(0))


def test_mondrian_withholds_a_partition_that_breaks_k(monkeypatch):
    table = census_like(7)
    monkeypatch.setattr(Mondrian, "_partition", lambda self, *a: np.arange(len(table)))
    m = Mondrian(QI, "INCWAGE", k=3, l=2)
    with pytest.raises(GuaranteeViolation, match="k-anonymity"):
        m.fit(table)
    assert not hasattr(m, "generalized_")
    with pytest.raises(NotFittedError, match="fit"):
        m.transform()


def test_anatomy_withholds_groups_that_break_l(monkeypatch):
    table = census_like(8, n=60)
    monkeypatch.setattr(anatomy_module, "anatomy_groups", lambda *a, **kw: np.arange(60) // 3)
    an = Anatomy(QI, "INCWAGE", l=4)
    with pytest.raises(GuaranteeViolation, match="Anatomy"):
        an.fit(table, np.random.default_rng(0))
    assert not hasattr(an, "qit_") and not hasattr(an, "st_")
