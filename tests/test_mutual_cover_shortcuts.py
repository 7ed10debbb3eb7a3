"""Mutual Cover's three shortcuts leave every table and every release as the plain computation has it.

- the identity table in closed form when every distinct value is held by ``>= 1/delta`` records,
  checked against HiGHS solving the same LP;
- one reused HiGHS instance per thread, checked bit for bit against a fresh instance per LP;
- Algorithm 3 without a per-row loop, checked against the per-row loop kept here as reference;
- and all three together, against fit and release with the three plain versions patched back in.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ppdp.mechanisms.mutual_cover.lp as mc_lp
from populations import census_sample
from ppdp.mechanisms.mutual_cover import MutualCover, solve_random_output_table
from ppdp.tabular import Hierarchy

# -- the plain versions, as references -----------------------------------------------------------


def fresh_instance_run(model, solver):
    """The same solve on a new HiGHS instance for every LP (the reference for the reused one)."""
    return mc_lp._solve_with(mc_lp._new_highs(), model, solver)


def per_row_other_columns(self, a, groups, values, u):
    """Algorithm 3's pick one tuple at a time: ``others[floor(u * len(others))]``."""
    c = self.qi_[a]
    picks = []
    for g, value, draw in zip(groups, values, u, strict=True):
        cols = self.tables_[g][c].columns
        others = cols[cols != value]
        picks.append(others[min(int(draw * len(others)), len(others) - 1)])
    return np.array(picks, dtype=self._columns_flat[a].dtype)


def without_shortcuts(monkeypatch):
    monkeypatch.setattr(mc_lp, "_identity_table", lambda distance, counts, delta: None)
    monkeypatch.setattr(mc_lp, "_run_highs", fresh_instance_run)
    monkeypatch.setattr(MutualCover, "_other_columns", per_row_other_columns)


# -- tables --------------------------------------------------------------------------------------


def integer_lp(draw, enough: bool):
    """Distinct integer values with counts, columns covering their range, and delta = 1/K or any.

    With ``enough``, every value is held by at least ``1/delta`` records; otherwise one value by
    fewer (the others by enough, so that delta stays at least ``1/m``).
    """
    r = draw(st.integers(1 if enough else 2, 6))
    values = np.array(sorted(draw(st.sets(st.integers(0, 30), min_size=r, max_size=r))))
    lowest_k = 1 if enough else 2
    delta = (
        1.0 / draw(st.integers(lowest_k, 8))
        if draw(st.booleans())
        else draw(st.floats(0.1, 1.0 if enough else 0.9))
    )
    need = math.ceil(1.0 / delta - 1e-9)
    counts = np.array([draw(st.integers(need, need + 4)) for _ in range(r)])
    if not enough:
        counts[draw(st.integers(0, r - 1))] = draw(st.integers(1, need - 1))
    columns = np.arange(values.min(), values.max() + 1)
    distance = np.abs(values[:, None] - columns[None, :]).astype(float)
    return distance, counts, delta


@st.composite
def lp_with_enough_records(draw):
    return integer_lp(draw, enough=True)


@st.composite
def lp_with_a_rare_value(draw):
    return integer_lp(draw, enough=False)


@given(lp_with_enough_records(), st.sampled_from(["ipm", "simplex"]))
def test_the_identity_table_is_what_highs_finds(problem, solver):
    distance, counts, delta = problem
    identity = mc_lp._identity_table(distance, counts.astype(float), delta)
    assert identity is not None
    # every record keeps its value
    assert np.array_equal(identity, (distance == 0).astype(float))
    table, objective = solve_random_output_table(distance, counts, delta, solver=solver)
    assert np.array_equal(table, identity) and objective == 0.0
    # HiGHS on the same LP, without the closed form
    original = mc_lp._identity_table
    try:
        mc_lp._identity_table = lambda distance, counts, delta: None
        solved, solved_objective = solve_random_output_table(distance, counts, delta, solver=solver)
    finally:
        mc_lp._identity_table = original
    np.testing.assert_allclose(solved, identity, atol=1e-9)
    assert solved_objective == pytest.approx(0.0, abs=1e-7)


@given(lp_with_a_rare_value())
def test_no_closed_form_when_a_value_is_rarer_than_one_over_delta(problem):
    distance, counts, delta = problem
    assert np.any(counts * delta < 1.0 - 1e-12)
    assert mc_lp._identity_table(distance, counts.astype(float), delta) is None


def test_no_closed_form_without_one_own_column_per_row():
    counts = np.array([5.0, 5.0])
    # a row with two zero-distance columns: the optimum is not unique
    assert mc_lp._identity_table(np.array([[0.0, 0.0], [1.0, 0.0]]), counts, 0.2) is None
    # a negative distance: the identity need not be optimal
    assert mc_lp._identity_table(np.array([[0.0, -1.0], [1.0, 0.0]]), counts, 0.2) is None


def lp_models(rng, n_models=60):
    """Random output table LPs of several shapes, as :func:`solve_random_output_table` builds them."""
    captured = []
    original = mc_lp._run_highs

    def capture(model, solver):
        captured.append(model)
        return original(model, solver)

    mc_lp._run_highs = capture
    try:
        for _ in range(n_models):
            r = int(rng.integers(1, 8))
            values = np.sort(rng.choice(40, size=r, replace=False))
            counts = rng.integers(1, 6, r)
            delta = max(1.0 / counts.sum(), float(rng.choice([1 / 6, 1 / 3, 0.5, rng.uniform()])))
            columns = np.arange(values.min(), values.max() + 1)
            distance = np.abs(values[:, None] - columns[None, :]).astype(float)
            solve_random_output_table(distance, counts, delta, solver="simplex")
    finally:
        mc_lp._run_highs = original
    return captured


@pytest.mark.parametrize("solver", ["ipm", "simplex"])
def test_a_reused_highs_instance_gives_the_bits_of_a_fresh_one(solver):
    models = lp_models(np.random.default_rng(3))
    assert len(models) >= 30
    # twice through the reused instance, interleaving solvers, against a fresh instance per LP
    for _ in range(2):
        for model in models:
            reused, failure = mc_lp._run_highs(model, solver)
            mc_lp._run_highs(model, "simplex" if solver == "ipm" else "ipm")
            fresh, fresh_failure = fresh_instance_run(model, solver)
            assert failure == fresh_failure == ""
            assert np.array_equal(reused, fresh)


# -- releases ------------------------------------------------------------------------------------


def with_categories(seed, n=400):
    table = census_sample(seed, n)
    table["SEXC"] = np.where(table["SEX"] == 1, "m", "f")
    table["SCHOOL"] = np.array(["9th", "HS", "BA", "MS", "PhD"])[table["EDUC"].to_numpy() % 5]
    return table


SCHOOL = Hierarchy(
    {"BA": "College", "MS": "College", "PhD": "College", "HS": "School", "9th": "School",
     "College": "Any", "School": "Any"}
)  # fmt: skip

SETTINGS = {
    "numeric": (census_sample, ["AGE", "SEX", "EDUC", "UHRSWORK"], {}),
    "few values": (census_sample, ["SEX", "RACE", "MARST"], {}),
    "categorical": (
        with_categories,
        ["AGE", "SEXC", "SCHOOL"],
        {"categorical": ["SEXC", "SCHOOL"], "hierarchies": {"SCHOOL": SCHOOL}},
    ),
}


def release(setting, delta, seed, *, solver="ipm"):
    make, qi, extra = SETTINGS[setting]
    table = make(seed, 400)
    mc = MutualCover(qi, "INCWAGE", delta=delta, l=6, solver=solver, **extra).fit(table)
    released = mc.release(random_state=seed)
    return mc, released


@pytest.mark.filterwarnings("ignore:a second release:ppdp.base.RepeatedReleaseWarning")
@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("delta", [1 / 5, 1 / 3, 1.0])
def test_algorithm3_without_the_row_loop_releases_the_same_table(setting, delta, monkeypatch):
    for seed in (0, 1):
        mc, fast = release(setting, delta, seed)
        with monkeypatch.context() as patch:
            patch.setattr(MutualCover, "_other_columns", per_row_other_columns)
            plain = mc.release(random_state=seed)
        pd.testing.assert_frame_equal(fast, plain)
        assert mc.n_unchanged_ > 0


@pytest.mark.parametrize(("setting", "delta", "solver"), [
    ("numeric", 1 / 5, "ipm"), ("few values", 1 / 6, "ipm"), ("few values", 1 / 6, "simplex"),
    ("categorical", 1 / 4, "ipm"), ("numeric", 1.0, "simplex"),
])  # fmt: skip
def test_the_shortcuts_change_no_table_and_no_release(setting, delta, solver, monkeypatch):
    mc, fast = release(setting, delta, 2, solver=solver)
    with monkeypatch.context() as patch:
        without_shortcuts(patch)
        plain_mc, plain = release(setting, delta, 2, solver=solver)
    assert mc.n_lp_solved_ == plain_mc.n_lp_solved_
    identity_tables = 0
    for tables, plain_tables in zip(mc.tables_, plain_mc.tables_, strict=True):
        for c, t in tables.items():
            p = plain_tables[c]
            assert np.array_equal(t.columns, p.columns)
            if np.all(np.asarray(t.counts) * delta >= 1.0 - 1e-12):
                # the closed form: what HiGHS returns up to its residue (of order 1e-9)
                identity_tables += 1
                assert t.objective == 0.0
                np.testing.assert_allclose(t.probabilities, p.probabilities, atol=1e-8)
            else:
                assert np.array_equal(t.probabilities, p.probabilities)
    pd.testing.assert_frame_equal(fast, plain)
    if setting == "few values":
        # groups of a few dozen tuples over two and three values: many closed forms
        assert identity_tables > 0
