"""Mutual Cover's batched interior-point solver (``solver="batch"``) and its certificate.

- per LP, on random instances: the batched table is optimal within ``1e-6`` (relative) of HiGHS's
  simplex method, never below the certified lower bound, rows sum to one and delta is met;
- the lower bound of the row-sum multipliers (Lemma 3 of ``batch_ipm``): HiGHS's optimal duals
  give the optimum, any others a bound below it;
- LPs without interior (``delta * m = 1``) and uncertified tables go to HiGHS;
- a fit with ``solver="batch"``: same LPs, delta met, the simplex method's total objective.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ppdp.mechanisms.mutual_cover.lp as mc_lp
from populations import census_sample
from ppdp.mechanisms.mutual_cover import (
    MutualCover,
    random_output_table,
    solve_random_output_table,
    solve_random_output_tables,
    table_delta_ratio,
)
from ppdp.mechanisms.mutual_cover.batch_ipm import certified_lower_bound, interior_point_tables

AGES = np.array([28, 29, 29, 32, 33, 35, 39, 39, 40, 41])  # Fig. 1(a)


def relative(a, b):
    return (a - b) / max(1.0, abs(b))


@st.composite
def lps(draw):
    """A random output table LP without closed form and with an interior: integer values over
    their range of columns (``|a - b|``) or 0/1 distance over the values, delta = 1/K or any,
    one value held by fewer than ``1/delta`` records and ``delta * m > 1``."""
    r = draw(st.integers(2, 8))
    delta = 1.0 / draw(st.integers(2, 8)) if draw(st.booleans()) else draw(st.floats(0.05, 0.9))
    need = math.ceil(1.0 / delta - 1e-9)
    counts = np.array([draw(st.integers(1, need + 3)) for _ in range(r)], dtype=float)
    counts[draw(st.integers(0, r - 1))] = draw(st.integers(1, need - 1))
    while counts.sum() * delta <= 1.0 + 1e-6:
        counts[np.argmax(counts)] += 1.0
    if draw(st.booleans()):
        values = np.array(sorted(draw(st.sets(st.integers(0, 30), min_size=r, max_size=r))))
        columns = np.arange(values.min(), values.max() + 1)
        distance = np.abs(values[:, None] - columns[None, :]).astype(float)
    else:
        distance = 1.0 - np.eye(r)
    return distance, counts, delta


def highs_with_duals(distance, counts, delta):
    """HiGHS's simplex optimum of the library's model and its duals of the row sums."""
    duals = {}

    def run(model, solver):
        h = mc_lp._new_highs()
        h.setOptionValue("solver", "simplex")
        h.passModel(*model)
        h.run()
        solution = h.getSolution()
        duals["rows"] = np.array(solution.row_dual[: len(counts)])
        duals["objective"] = h.getInfo().objective_function_value
        return np.array(solution.col_value), ""

    original = mc_lp._run_highs
    mc_lp._run_highs = run
    try:
        mc_lp.solve_random_output_table(distance, counts, delta, solver="simplex")
    finally:
        mc_lp._run_highs = original
    return duals["objective"], duals["rows"]


# -- per LP --------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(lps())
def test_a_batched_table_is_optimal_certified_and_meets_delta(problem):
    distance, counts, delta = problem
    assert mc_lp._identity_table(distance, counts, delta) is None
    table, objective = solve_random_output_table(distance, counts, delta, solver="batch")
    _, optimum = solve_random_output_table(distance, counts, delta, solver="simplex")
    assert objective == pytest.approx(float(np.sum(counts[:, None] * distance * table)), rel=1e-12)
    assert abs(relative(objective, optimum)) <= 1e-6
    (raw,), (bound,), _ = interior_point_tables([(distance, counts)], delta)
    assert objective >= bound
    assert relative(objective, bound) <= mc_lp.BATCH_ACCEPT
    assert bound <= optimum + 1e-9 * max(1.0, abs(optimum))
    np.testing.assert_allclose(table.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert table.min() >= 0.0
    assert table_delta_ratio(table, counts) <= delta + 1e-12
    # the raw iterate is what the batch repaired and kept
    np.testing.assert_array_equal(table, mc_lp._repair(raw, counts, delta))


def test_many_lps_in_one_call_match_one_by_one():
    rng = np.random.default_rng(5)
    problems = []
    for _ in range(40):
        r = int(rng.integers(2, 7))
        values = np.sort(rng.choice(25, r, replace=False))
        counts = rng.integers(1, 5, r).astype(float)
        distance = np.abs(values[:, None] - np.arange(values[0], values[-1] + 1)[None, :])
        problems.append((distance.astype(float), counts))
    together = solve_random_output_tables(problems, 1 / 3)
    for (distance, counts), (table, objective) in zip(problems, together, strict=True):
        alone, alone_objective = solve_random_output_table(distance, counts, 1 / 3, solver="batch")
        # the compiled loop solves each LP on its own: the same bits either way
        np.testing.assert_array_equal(table, alone)
        assert objective == alone_objective
    assert solve_random_output_tables([], 1 / 3) == []


@settings(max_examples=40, deadline=None)
@given(lps(), st.floats(-1.0, 1.0), st.integers(0, 2**32 - 1))
def test_the_certified_bound_is_the_optimum_at_highs_duals_and_below_it_elsewhere(
    problem, size, seed
):
    distance, counts, delta = problem
    cost = counts[:, None] * distance
    optimum, duals = highs_with_duals(distance, counts, delta)
    assert certified_lower_bound(cost, counts, delta, duals) == pytest.approx(
        optimum, rel=1e-9, abs=1e-9
    )
    perturbed = duals + size * np.random.default_rng(seed).normal(size=len(duals))
    assert certified_lower_bound(cost, counts, delta, perturbed) <= optimum + 1e-9 * max(
        1.0, abs(optimum)
    )


def test_certified_lower_bound_refuses_bad_input():
    cost = np.array([[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="cost must be a non-empty 2-d array"):
        certified_lower_bound(np.zeros(2), [1, 1], 0.5, [0.0, 0.0])
    with pytest.raises(ValueError, match="counts must be 2 positive numbers"):
        certified_lower_bound(cost, [1, 0], 0.5, [0.0, 0.0])
    with pytest.raises(ValueError, match="multipliers 2 numbers"):
        certified_lower_bound(cost, [1, 1], 0.5, [0.0])
    with pytest.raises(ValueError, match="finite"):
        certified_lower_bound(cost, [1, 1], 0.5, [np.nan, 0.0])
    with pytest.raises(ValueError, match=r"delta=0\.3 must lie in \[1/m, 1\]"):
        certified_lower_bound(cost, [1, 1], 0.3, [0.0, 0.0])
    with pytest.raises(ValueError, match=r"problem 1: delta \* m = 1 must exceed 1"):
        interior_point_tables([(cost, [1.0, 2.0]), (cost, [1.0, 1.0])], 0.5)
    with pytest.raises(ValueError, match="problem 0: distance must be a non-empty 2-d array"):
        interior_point_tables([(cost, [1.0, 2.0, 3.0])], 0.5)


# -- what the batch leaves to HiGHS ----------------------------------------------------------------


def test_lps_without_interior_and_closed_forms_are_solved_as_before():
    distance = np.abs(np.arange(3.0)[:, None] - np.arange(3.0)[None, :])
    # delta = 1/m: equal rows are the only tables, HiGHS's path
    no_interior = (distance, np.array([1.0, 1.0, 1.0]))
    # every value held by 1/delta records: the identity
    closed = (distance, np.array([3.0, 3.0, 4.0]))
    batched = solve_random_output_tables([no_interior, closed], 1 / 3)
    for (distance, counts), (table, objective) in zip([no_interior, closed], batched, strict=True):
        reference, reference_objective = solve_random_output_table(distance, counts, 1 / 3)
        np.testing.assert_array_equal(table, reference)
        assert objective == reference_objective


def test_an_uncertified_table_is_solved_with_highs(monkeypatch):
    table = census_sample(4, 300)
    qi = ["AGE", "EDUC", "UHRSWORK"]
    reference = MutualCover(qi, "INCWAGE", delta=1 / 4, l=4, solver="ipm").fit(table)
    # no gap is small enough: every batched LP falls back to HiGHS's interior point
    monkeypatch.setattr(mc_lp, "BATCH_ACCEPT", -1.0)
    mc = MutualCover(qi, "INCWAGE", delta=1 / 4, l=4, solver="batch").fit(table)
    assert 0 < mc.n_lp_fallback_ <= mc.n_lp_solved_ == reference.n_lp_solved_
    assert reference.n_lp_fallback_ == 0
    for tables, reference_tables in zip(mc.tables_, reference.tables_, strict=True):
        for c, t in tables.items():
            np.testing.assert_array_equal(t.probabilities, reference_tables[c].probabilities)
    assert mc.objective_ == reference.objective_


# -- the estimator -------------------------------------------------------------------------------


@pytest.mark.parametrize(("delta", "seed"), [(1 / 6, 0), (1 / 4, 1), (0.3, 2)])
def test_a_batched_fit_meets_delta_with_the_optimal_objective(delta, seed):
    table = census_sample(seed, 600)
    qi = ["SEX", "AGE", "RELATE", "MARST", "EDUC", "UHRSWORK"]
    mc = MutualCover(qi, "INCWAGE", delta=delta, l=6, solver="batch").fit(table)
    vertex = MutualCover(qi, "INCWAGE", delta=delta, l=6, solver="simplex").fit(table)
    assert mc.n_lp_solved_ == vertex.n_lp_solved_
    assert mc.n_lp_fallback_ == 0
    assert abs(relative(mc.objective_, vertex.objective_)) <= 1e-6
    checks = {c.guarantee: c for c in mc.guarantee_checks()}
    assert checks["delta-probability"].holds
    assert checks["delta-probability"].measured <= delta + 1e-12
    released = mc.release(random_state=seed)
    assert released.shape == table.shape
    # tables of groups that share an LP share one solved array, as with the other solvers
    shared = {id(t.probabilities) for g in mc.tables_ for t in g.values()}
    assert len(shared) == mc.n_lp_solved_


def test_groups_of_one_over_delta_tuples_release_as_with_highs():
    """Groups of ``1/delta`` tuples have no interior: every LP is HiGHS's, so is the release."""
    import pandas as pd

    df = pd.DataFrame(
        {
            "age": [23, 25, 31, 35, 41, 47, 52, 58],
            "hours": [40, 38, 45, 20, 40, 50, 35, 30],
            "disease": ["flu", "cold", "flu", "ulcer", "cold", "flu", "ulcer", "cold"],
        }
    )
    batched = MutualCover(["age", "hours"], "disease", delta=0.5, l=2, solver="batch").fit(df)
    default = MutualCover(["age", "hours"], "disease", delta=0.5, l=2).fit(df)
    pd.testing.assert_frame_equal(batched.release(random_state=0), default.release(random_state=0))


def test_fig2_with_the_batched_solver():
    """The paper's worked example: the optimum of Fig. 2, and mass spread as in its table."""
    table = random_output_table(AGES, 0.5, solver="batch")
    vertex = random_output_table(AGES, 0.5, solver="simplex")
    assert table.objective == pytest.approx(vertex.objective, rel=1e-6)
    assert table.delta_ratio() <= 0.5 + 1e-12
    full = table.expand(AGES)
    # an interior point of the optimal face covers Daphne with Helen and Dean, as Fig. 2 does
    assert 0 < full[0, 0] < 1 and 0 < full[0, 1] < 1
    assert np.count_nonzero(full[3] > 1e-6) >= 3
    # Corollary 1: every output with mass comes from at least 1/delta records
    used = full.sum(axis=0) > 1e-6
    assert np.all((full[:, used] > 1e-12).sum(axis=0) >= 2)
