"""Tests of ppdp.mechanisms.sppm: SPPM (Frank-Wolfe + column generation), the exact optimum and
the exponential mechanism (Salamatian et al., UAI 2014)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ppdp import infotheory
from ppdp.mechanisms import sppm as S
from ppdp.mechanisms.sppm import column_generation
from ppdp.mechanisms.sppm.column_generation import PRICE_BLOCK, PRICE_ROWS, BlockBounds, StepSolver
from ppdp.mechanisms.sppm.frank_wolfe import gradient


def random_problem(rng, n_a=2, n_b=5, diag_zero=True, sparse_joint=False):
    p = rng.random((n_a, n_b)) + 0.05
    if sparse_joint:
        p *= rng.random((n_a, n_b)) < 0.6
        p[:, p.sum(axis=0) == 0] = 0.1
    p /= p.sum()
    d = rng.random((n_b, n_b)) * 3
    d = d + d.T
    if diag_zero:
        np.fill_diagonal(d, 0.0)
    return p, d


def full_cost(p, X, floor=None):
    return infotheory.leakage_gradient(p, X, floor=floor)


# ------------------------------------------------------------------------------------------------
# gradient (Sec. 3.4)


@pytest.mark.parametrize("seed", range(4))
def test_leakage_gradient_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    p, _ = random_problem(rng, n_a=3, n_b=4)
    X = rng.random((4, 5)) + 0.1
    X /= X.sum(axis=1, keepdims=True)
    G = infotheory.leakage_gradient(p, X)
    pa = p.sum(axis=1)

    def f(M):  # the leakage as a function of the unconstrained entries (written out here)
        q = p @ M
        qb = q.sum(axis=0)
        return np.sum(q * (np.log2(q) - np.log2(pa)[:, None] - np.log2(qb)[None, :]))

    h = 1e-6
    num = np.empty_like(X)
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            E = np.zeros_like(X)
            E[i, j] = h
            num[i, j] = (f(X + E) - f(X - E)) / (2 * h)
    np.testing.assert_allclose(G, num, rtol=1e-5, atol=1e-7)
    assert f(X) == pytest.approx(infotheory.leakage(p, X), abs=1e-12)


def test_factored_gradient_matches_infotheory_and_paper_formula():
    rng = np.random.default_rng(3)
    p, _ = random_problem(rng, n_a=3, n_b=6)
    X = rng.random((6, 6)) + 0.05
    X /= X.sum(axis=1, keepdims=True)
    grad = gradient(p, sp.csr_matrix(X), 1e-6)
    ours = grad.block(np.arange(6))
    np.testing.assert_allclose(ours, full_cost(p, X), rtol=1e-12, atol=1e-12)
    # the paper's two-term formula (Sec. 3.4), in bits. As printed, its last factor is p(a, b_j);
    # the derivative of q(b^) gives p(b_j) there, and then the second term vanishes identically
    # (sum_a p(a, b_j) - p(b_j) sum_a p(a, b^) / p(b^) = 0). The corrected formula is checked.
    q = p @ X
    pa, qb = p.sum(axis=1), q.sum(axis=0)
    qba = q / pa[:, None]  # p(b^ | a)
    pba = p / pa[:, None]  # p(b | a)
    paper = np.empty((6, 6))
    for j in range(6):  # b
        for i in range(6):  # b^
            t1 = np.sum(p[:, j] * np.log2(qba[:, i] / qb[i]))
            t2 = np.sum(q[:, i] * (pba[:, j] / qba[:, i] - p[:, j].sum() / qb[i])) / math.log(2)
            paper[j, i] = t1 + t2
    np.testing.assert_allclose(ours, paper, rtol=1e-10, atol=1e-12)
    # pairwise entries agree with blocks
    r, c = np.array([0, 3, 5]), np.array([2, 2, 0])
    np.testing.assert_allclose(grad.entries(r, c), ours[r, c])


def test_gradient_of_unused_column_is_the_one_sided_limit():
    rng = np.random.default_rng(5)
    p, _ = random_problem(rng, n_a=2, n_b=4)
    X = np.zeros((4, 5))
    X[np.arange(4), np.arange(4)] = 1.0  # column 4 unused
    grad = gradient(p, sp.csr_matrix(X), 1e-6)
    ours = grad.block(np.arange(4))[:, 4]
    eps = 1e-7
    for b in range(4):
        Y = X.copy()
        Y[b, 4] += eps
        Y[b, b] -= eps
        Y0 = X.copy()
        # directional derivative along e_{b,4} - e_{b,b}
        slope = (infotheory.leakage(p, Y) - infotheory.leakage(p, Y0)) / eps
        assert slope == pytest.approx(ours[b] - grad.block(np.arange(4))[b, b], rel=1e-3, abs=1e-6)


# ------------------------------------------------------------------------------------------------
# linear step: column generation vs the full LP


@pytest.mark.parametrize("seed", range(6))
def test_column_generation_matches_full_lp(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    p, d = random_problem(rng, n_a=int(rng.integers(2, 4)), n_b=n)
    cost = rng.normal(size=(n, n))
    delta = float(rng.uniform(0.05, 1.0)) * S.expected_distortion(p, d, np.full((n, n), 1 / n))
    step = S.solve_linear_step(cost, p, d, delta)
    _, full_value = S.solve_linear_step_full(cost, p, d, delta)
    assert step.value == pytest.approx(full_value, rel=1e-8, abs=1e-10)
    X = step.mapping.toarray()
    assert X.min() >= 0
    np.testing.assert_allclose(X.sum(axis=1), 1.0, atol=1e-12)
    assert S.expected_distortion(p, d, X) <= delta * (1 + 1e-8) + 1e-12
    assert float(np.sum(cost * X)) == pytest.approx(full_value, rel=1e-8, abs=1e-10)
    assert step.lam <= 1e-12
    # dual feasibility of the final master over all columns (no violated reduced cost)
    W = p.sum(axis=0)[:, None] * d
    reduced = cost - step.lam * W - step.mu[:, None]
    assert reduced.min() >= -1e-7 * np.abs(cost).max()


@pytest.mark.parametrize("kind", ["squared", "hamming"])
def test_factored_pricing_matches_full_lp(kind):
    """Squared and Hamming distortions price with one matrix product per block."""
    rng = np.random.default_rng(21)
    n = 12
    if kind == "squared":
        dist = S.SquaredDistortion(rng.normal(size=(n, 2)) * 10)
    else:
        dist = S.HammingDistortion(rng.integers(0, 3, size=(n, 4)))
    p = rng.random((2, n)) + 0.01
    p /= p.sum()
    X = rng.random((n, n))
    X /= X.sum(axis=1, keepdims=True)
    grad = gradient(p, sp.csr_matrix(X), 1e-2)
    cost = grad.block(np.arange(n))
    delta = 0.2 * S.expected_distortion(p, dist, X)
    solver = StepSolver(p, dist, delta)
    step = solver.solve(grad)
    _, full_value = S.solve_linear_step_full(cost, p, dist.toarray(), delta)
    assert step.value == pytest.approx(full_value, rel=1e-6, abs=1e-9)


def test_column_generation_with_positive_self_distortion():
    rng = np.random.default_rng(11)
    p, d = random_problem(rng, n_a=2, n_b=6, diag_zero=False)
    smallest = S.min_feasible_budget(p, d)
    cost = rng.normal(size=(6, 6))
    for delta in (smallest, smallest * 1.5):
        step = S.solve_linear_step(cost, p, d, delta)
        _, full_value = S.solve_linear_step_full(cost, p, d, delta)
        assert step.value == pytest.approx(full_value, rel=1e-7, abs=1e-9)


def _dual_feasible(step, cost, p, d, rtol=1e-7):
    """No reduced cost of the full LP is below the column generation's tolerance."""
    W = p.sum(axis=0)[:, None] * d
    reduced = cost - step.lam * W - step.mu[:, None]
    return reduced.min() >= -rtol * np.abs(cost).max()


@pytest.mark.parametrize("seed", range(6))
def test_columns_per_row_gives_the_same_lp_value(seed):
    rng = np.random.default_rng(200 + seed)
    n = int(rng.integers(4, 15))
    p, d = random_problem(rng, n_a=int(rng.integers(2, 4)), n_b=n)
    cost = rng.normal(size=(n, n))
    delta = float(rng.uniform(0.05, 1.0)) * S.expected_distortion(p, d, np.full((n, n), 1 / n))
    _, full_value = S.solve_linear_step_full(cost, p, d, delta)
    values = []
    for k in (1, 2, 5, n + 3):  # more columns than a row has is allowed
        step = S.solve_linear_step(cost, p, d, delta, columns_per_row=k)
        assert step.value == pytest.approx(full_value, rel=1e-8, abs=1e-10)
        assert _dual_feasible(step, cost, p, d)
        values.append(step.value)
    assert max(values) - min(values) <= 1e-9 * max(1.0, abs(full_value))


def test_several_columns_per_row_save_rounds():
    rng = np.random.default_rng(31)
    n = 40
    p, d = random_problem(rng, n_a=2, n_b=n)
    cost = rng.normal(size=(n, n))
    delta = 0.3 * S.expected_distortion(p, d, np.full((n, n), 1 / n))
    one = S.solve_linear_step(cost, p, d, delta, columns_per_row=1)
    five = S.solve_linear_step(cost, p, d, delta, columns_per_row=5)
    assert five.value == pytest.approx(one.value, rel=1e-9)
    assert five.rounds <= one.rounds
    assert five.n_active > one.n_active


@pytest.mark.parametrize("kind", ["squared1d", "squared2d", "hamming", "dense"])
def test_dropping_columns_keeps_every_lp_optimum(kind):
    """A master that keeps its basis and deletes stale columns solves a sequence of LPs exactly."""
    rng = np.random.default_rng(41)
    n = 70
    if kind == "squared1d":
        dist = S.SquaredDistortion(np.arange(1.0, n + 1))
    elif kind == "squared2d":
        dist = S.SquaredDistortion(rng.normal(size=(n, 2)) * 5)
    elif kind == "hamming":
        dist = S.HammingDistortion(rng.integers(0, 3, size=(n, 5)))
    else:
        dist = S.DenseDistortion(rng.random((n, n)) * (1 - np.eye(n)))
    D = dist.toarray()
    p = rng.random((3, n)) + 0.01
    p /= p.sum()
    delta = 0.2 * S.expected_distortion(p, D, np.full((n, n), 1 / n))
    solver = StepSolver(p, dist, delta, active_set="keep", columns_per_row=3, drop_after=1)
    dropped = 0
    X = sp.identity(n, format="csr")
    for _ in range(6):
        grad = gradient(p, X, 1e-2)
        cost = grad.block(np.arange(n))
        step = solver.solve(grad)
        _, full_value = S.solve_linear_step_full(cost, p, D, delta)
        assert step.value == pytest.approx(full_value, rel=1e-7, abs=1e-10)
        assert _dual_feasible(step, cost, p, D, rtol=1e-6)
        assert solver.master.h.getBasis().valid  # only non-basic columns were deleted
        assert solver.master.rows.size == solver.master.h.getNumCol() == len(solver.master.keys)
        dropped += step.dropped
        X = sp.csr_matrix(0.6 * X + 0.4 * step.mapping)
    assert dropped > 0


def test_block_bounds_are_lower_bounds():
    rng = np.random.default_rng(5)
    n, m, r = 23, 3 * PRICE_BLOCK + 7, 5  # a partial last block
    L = rng.normal(size=(n, r))
    R = np.cumsum(rng.normal(size=(r, m)), axis=1)  # neighbouring columns alike, as for points
    red = L @ R
    bounds = BlockBounds(R)
    L2 = bounds.split(L)
    starts = np.arange(0, m, PRICE_BLOCK)
    true_min = np.minimum.reduceat(red, starts, axis=1)
    assert np.all(L2 @ bounds.lohi <= true_min + 1e-12)
    for cutoff in (np.quantile(red, 0.002), np.quantile(red, 0.05)):
        for rows in (slice(0, 1), slice(0, n)):
            cols = bounds.columns(L2[rows], cutoff)
            cols = np.arange(m) if cols is None else cols
            below = np.flatnonzero((red[rows] < cutoff).any(axis=0))
            assert np.isin(below, cols).all()


@pytest.mark.parametrize("price_rows", [8, PRICE_ROWS])
@pytest.mark.parametrize("kind", ["squared1d", "squared2d", "hamming"])
def test_bounded_factored_pricing_matches_full_lp(kind, price_rows, monkeypatch):
    """Pricing that skips blocks by their lower bound still finds the LP optimum."""
    # small row chunks: blocks get skipped
    monkeypatch.setattr(column_generation, "PRICE_ROWS", price_rows)
    rng = np.random.default_rng(8)
    n = 6 * PRICE_BLOCK + 5
    if kind == "squared1d":
        dist = S.SquaredDistortion(np.arange(1.0, n + 1))
    elif kind == "squared2d":
        dist = S.SquaredDistortion(np.sort(rng.normal(size=(n, 2)) * 10, axis=0))
    else:
        dist = S.HammingDistortion(rng.integers(0, 2, size=(n, 9)))
    p = np.zeros((2, n))
    p[0, : n // 2] = rng.random(n // 2) + 0.1
    p[1, n // 2 :] = rng.random(n - n // 2) + 0.1
    p /= p.sum()
    X = sp.identity(n, format="csr")
    grad = gradient(p, X, 1e-2)
    cost = grad.block(np.arange(n))
    D = dist.toarray()
    delta = 0.05 * S.expected_distortion(p, D, np.full((n, n), 1 / n))
    solver = StepSolver(p, dist, delta)
    step = solver.solve(grad)
    _, full_value = S.solve_linear_step_full(cost, p, D, delta)
    assert step.value == pytest.approx(full_value, rel=1e-7, abs=1e-10)
    assert _dual_feasible(step, cost, p, D)
    if kind == "squared1d" and price_rows == 8:
        assert solver.n_priced < step.rounds * n * n  # blocks were skipped


# ------------------------------------------------------------------------------------------------
# SPPM


@pytest.mark.parametrize(
    ("variant", "active_set", "options"),
    [
        ("vanilla", "reset", {}),
        ("vanilla", "keep", {}),
        ("vanilla", "keep", {"columns_per_row": 1, "drop_after": None}),
        ("vanilla", "keep", {"columns_per_row": 4, "drop_after": 1}),
        ("away", "reset", {}),
        ("away", "keep", {}),
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_sppm_monotone_and_feasible_at_every_step(seed, variant, active_set, options):
    rng = np.random.default_rng(seed)
    p, d = random_problem(rng, n_a=2, n_b=7, sparse_joint=True)
    delta = 0.3 * S.expected_distortion(p, d, np.full((7, 7), 1 / 7))
    seen = []

    def check(step, X):
        X = X.toarray()
        assert X.min() >= 0
        np.testing.assert_allclose(X.sum(axis=1), 1.0, atol=1e-9)
        assert S.expected_distortion(p, d, X) <= delta * (1 + 1e-7) + 1e-12
        seen.append(infotheory.leakage(p, X))

    model = S.SPPM(delta, n_steps=25, variant=variant, active_set=active_set, **options).fit(
        p, d, callback=check
    )
    assert len(seen) == 26
    assert np.all(np.diff(seen) <= 1e-12)
    np.testing.assert_allclose(model.history_["leakage"], seen)
    assert model.leakage_ == pytest.approx(infotheory.leakage(p, model.mapping_), abs=1e-14)
    assert sp.issparse(model.mapping_)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n_b=st.integers(3, 8),
    steps=st.sampled_from([1, 3, 10]),
    sparse_joint=st.booleans(),
)
def test_sppm_warm_starts_along_a_budget_grid_never_raise_the_leakage(
    seed, n_b, steps, sparse_joint
):
    rng = np.random.default_rng(seed)
    p, d = random_problem(rng, n_a=2, n_b=n_b, sparse_joint=sparse_joint)
    top = S.expected_distortion(p, d, np.full((n_b, n_b), 1 / n_b))
    grid = np.sort(rng.uniform(0, top, size=4))
    init, leakages = None, []
    for delta in grid:
        model = S.SPPM(delta, n_steps=steps, certify=False).fit(p, d, init=init)
        assert model.distortion_ <= delta
        if init is not None:
            # the start's own leakage bounds the fit's from above
            assert model.leakage_ <= infotheory.leakage(p, init) + 1e-12
        init = model.mapping_
        leakages.append(model.leakage_)
    assert np.all(np.diff(leakages) <= 1e-12)


def test_sppm_warm_start_is_the_first_iterate():
    rng = np.random.default_rng(7)
    p, d = random_problem(rng, n_a=2, n_b=6)
    small = S.SPPM(0.1, n_steps=5).fit(p, d)
    seen = []
    S.SPPM(0.4, n_steps=3).fit(p, d, init=small.mapping_, callback=lambda k, X: seen.append(X))
    np.testing.assert_allclose(seen[0].toarray(), small.mapping_.toarray(), atol=1e-15)


def test_sppm_rejects_a_start_it_cannot_use():
    rng = np.random.default_rng(8)
    p, d = random_problem(rng, n_a=2, n_b=5)
    uniform = np.full((5, 5), 0.2)
    spent = S.expected_distortion(p, d, uniform)
    model = S.SPPM(spent / 2, n_steps=2)
    with pytest.raises(ValueError, match=r"init must be within the budget: E\[d\(B, B\^\)\]"):
        model.fit(p, d, init=uniform)
    with pytest.raises(ValueError, match=r"init must have shape \(\|B\|, \|B\^\|\) = \(5, 5\)"):
        model.fit(p, d, init=np.eye(4))
    with pytest.raises(ValueError, match="init's rows must sum to 1"):
        model.fit(p, d, init=np.eye(5) * 0.5)
    with pytest.raises(ValueError, match="finite, non-negative"):
        model.fit(p, d, init=np.eye(5) - 0.1 * (1 - np.eye(5)))


@pytest.mark.parametrize("seed", range(3))
def test_sppm_approaches_exact_optimum(seed):
    rng = np.random.default_rng(100 + seed)
    p, d = random_problem(rng, n_a=2, n_b=6)
    delta = 0.25 * S.expected_distortion(p, d, np.full((6, 6), 1 / 6))
    exact = S.ExactMapping(delta).fit(p, d)
    model = S.SPPM(delta, n_steps=300).fit(p, d)
    # exact is a minimum up to solver tolerance; SPPM is feasible, hence not below it
    assert model.leakage_ >= exact.leakage_ - 1e-5
    assert model.leakage_ <= exact.leakage_ + 2e-3
    # the certified lower bound brackets the optimum
    assert np.isfinite(model.lower_bound_)
    assert model.lower_bound_ <= exact.objective_ + 1e-6


def test_synthetic_close_to_exact_and_below_expmec():
    p, d = S.synthetic_problem(4)
    delta = 1.0
    exact = S.ExactMapping(delta).fit(p, d)
    model = S.SPPM(delta, n_steps=100).fit(p, d)
    expmec = S.ExponentialMechanism(delta=delta).fit(p, d)
    assert exact.leakage_ <= model.leakage_ + 1e-6
    assert model.leakage_ <= exact.leakage_ * 1.02
    assert model.leakage_ < expmec.leakage_
    assert expmec.distortion_ <= delta * (1 + 1e-9)


def test_perfect_privacy_on_toy_example():
    p, d = S.synthetic_problem(2)  # B in {1..4}; {1,2} with A=0, {3,4} with A=1
    assert infotheory.mutual_information(p) == pytest.approx(1.0)
    # mapping everything to one point is perfectly private; its distortion is the largest needed
    delta = S.expected_distortion(p, d, np.tile([0, 0, 1.0, 0], (4, 1)))
    model = S.SPPM(delta, n_steps=200).fit(p, d)
    assert model.leakage_ < 1e-6
    exact = S.ExactMapping(delta).fit(p, d)
    assert exact.leakage_ < 1e-6


def test_zero_budget_keeps_identity():
    p, d = S.synthetic_problem(3)
    model = S.SPPM(0.0, n_steps=5).fit(p, d)
    np.testing.assert_allclose(model.mapping_.toarray(), np.eye(8))
    assert model.leakage_ == pytest.approx(1.0)


def test_sppm_deterministic():
    rng = np.random.default_rng(7)
    p, d = random_problem(rng, n_a=3, n_b=8)
    a = S.SPPM(0.5, n_steps=10).fit(p, d)
    b = S.SPPM(0.5, n_steps=10).fit(p, d)
    assert (a.mapping_ != b.mapping_).nnz == 0


def test_structured_distortions_match_dense():
    pts = np.array([0.0, 1.5, 3.0, 7.0])
    sq = S.SquaredDistortion(pts)
    np.testing.assert_allclose(sq.toarray(), (pts[:, None] - pts[None, :]) ** 2)
    pts2 = np.random.default_rng(0).normal(size=(5, 3))
    dense = ((pts2[:, None, :] - pts2[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(S.SquaredDistortion(pts2).toarray(), dense, atol=1e-12)
    codes = np.random.default_rng(1).integers(0, 2, size=(9, 6))
    ham = (codes[:, None, :] != codes[None, :, :]).sum(-1)
    np.testing.assert_array_equal(S.HammingDistortion(codes).toarray(), ham)
    codes3 = np.random.default_rng(2).integers(0, 4, size=(9, 3))
    ham3 = (codes3[:, None, :] != codes3[None, :, :]).sum(-1)
    np.testing.assert_array_equal(S.HammingDistortion(codes3).toarray(), ham3)
    r, c = np.array([0, 4, 8]), np.array([3, 3, 1])
    np.testing.assert_array_equal(S.HammingDistortion(codes3).entries(r, c), ham3[r, c])


# ------------------------------------------------------------------------------------------------
# exponential mechanism


@pytest.mark.parametrize("beta", [0.0, 0.3, 2.0])
def test_exponential_mechanism_epsilon(beta):
    rng = np.random.default_rng(2)
    p, d = random_problem(rng, n_a=2, n_b=6)
    mech = S.ExponentialMechanism(beta=beta).fit(p, d)
    M = mech.mapping_
    assert mech.epsilon_ == pytest.approx(2 * beta * d.max())
    logM = np.log(M)
    worst = (logM[:, None, :] - logM[None, :, :]).max()
    assert worst <= mech.epsilon_ + 1e-12
    # the bound is tight up to the triangle of distances: ratios use |d(b,x) - d(b',x)| + normalizers
    np.testing.assert_allclose(M.sum(axis=1), 1.0)
    expected = np.exp(-beta * d)
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(M, expected, rtol=1e-12)


def test_exponential_mechanism_meets_budget_by_bisection():
    rng = np.random.default_rng(4)
    p, d = random_problem(rng, n_a=2, n_b=6)
    delta = 0.4
    mech = S.ExponentialMechanism(delta=delta).fit(p, d)
    assert mech.distortion_ <= delta * (1 + 1e-9)
    assert mech.distortion_ == pytest.approx(delta, rel=1e-6)
    assert S.expected_distortion(p, d, mech.mapping_) == pytest.approx(mech.distortion_)
    # a generous budget gives beta = 0 (uniform, perfectly private)
    big = S.ExponentialMechanism(delta=100.0).fit(p, d)
    assert big.beta_ == 0.0 and big.epsilon_ == 0.0
    assert big.leakage_ == pytest.approx(0.0, abs=1e-12)


# ------------------------------------------------------------------------------------------------
# errors


def test_bad_inputs_raise_clear_errors():
    p, d = S.synthetic_problem(2)
    with pytest.raises(ValueError, match="sums to"):
        S.SPPM(1.0).fit(p * 2, d)
    with pytest.raises(ValueError, match="non-negative"):
        bad = p.copy()
        bad[0, 0] = -0.1
        bad[0, 1] += 0.1
        S.SPPM(1.0).fit(bad, d)
    with pytest.raises(ValueError, match="first dimension"):
        S.SPPM(1.0).fit(p, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="distortion must be non-negative"):
        S.SPPM(1.0).fit(p, -np.ones((4, 4)))
    with pytest.raises(ValueError, match="delta"):
        S.SPPM(-0.1).fit(p, d)
    with pytest.raises(ValueError, match="delta"):
        S.ExactMapping(-1.0).fit(p, d)
    with pytest.raises(ValueError, match="n_steps"):
        S.SPPM(1.0, n_steps=-1).fit(p, d)
    with pytest.raises(ValueError, match="variant"):
        S.SPPM(1.0, variant="fast").fit(p, d)
    with pytest.raises(ValueError, match="active_set"):
        S.SPPM(1.0, active_set="all").fit(p, d)
    for bad in (0, -2, 2.5, True, "3"):
        with pytest.raises(ValueError, match=r"'columns_per_row' .*an int in the range \[1, inf\)"):
            S.SPPM(1.0, columns_per_row=bad).fit(p, d)
    for bad in (0, -1, 1.5, False):
        with pytest.raises(ValueError, match=r"'drop_after' .*\[1, inf\) or None"):
            S.SPPM(1.0, drop_after=bad).fit(p, d)
    with pytest.raises(ValueError, match="columns_per_row"):
        S.solve_linear_step(np.zeros((4, 4)), p, d, 1.0, columns_per_row=0)
    with pytest.raises(TypeError, match="distortion"):
        S.SPPM(1.0).fit(p, sp.identity(4))
    with pytest.raises(ValueError, match="delta"):
        S.ExponentialMechanism(delta=-1.0).fit(p, d)
    with pytest.raises(ValueError, match="exactly one"):
        S.ExponentialMechanism().fit(p, d)
    with pytest.raises(ValueError, match="p_ab"):
        S.SPPM(1.0).fit(np.ones(4) / 4, d)
    with pytest.raises(TypeError, match="random_state"):
        S.sample_release(np.eye(3), [0, 1], random_state="0")


def test_infeasible_budget_names_smallest_feasible_budget():
    rng = np.random.default_rng(9)
    p, d = random_problem(rng, n_a=2, n_b=5, diag_zero=False)
    smallest = S.min_feasible_budget(p, d)
    assert smallest > 0
    with pytest.raises(ValueError, match=f"{smallest:.6g}"):
        S.SPPM(smallest * 0.5).fit(p, d)
    with pytest.raises(ValueError, match="smallest feasible budget"):
        S.ExactMapping(smallest * 0.5).fit(p, d)
    model = S.SPPM(smallest, n_steps=3).fit(p, d)  # exactly the smallest budget works
    assert model.distortion_ <= smallest * (1 + 1e-8)


def test_sample_release_follows_mapping():
    M = sp.csr_matrix(np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [0.0, 0.0, 1.0]]))
    rng = np.random.default_rng(0)
    out = S.sample_release(M, np.array([0] * 10 + [1] * 4000 + [2] * 10), rng)
    assert set(out[:10]) == {1} and set(out[-10:]) == {2}
    assert abs(np.mean(out[10:-10] == 0) - 0.5) < 0.05
    again = S.sample_release(
        M, np.array([0] * 10 + [1] * 4000 + [2] * 10), np.random.default_rng(0)
    )
    np.testing.assert_array_equal(out, again)


# ------------------------------------------------------------------------------------------------
# property tests


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_a=st.integers(2, 3),
    n_b=st.integers(2, 6),
    frac=st.floats(0.0, 1.0),
)
def test_property_sppm_invariants(seed, n_a, n_b, frac):
    rng = np.random.default_rng(seed)
    p, d = random_problem(rng, n_a=n_a, n_b=n_b, sparse_joint=bool(seed % 2))
    delta = frac * S.expected_distortion(p, d, np.full((n_b, n_b), 1 / n_b))
    model = S.SPPM(delta, n_steps=8).fit(p, d)
    X = model.mapping_.toarray()
    assert X.min() >= 0
    np.testing.assert_allclose(X.sum(axis=1), 1.0, atol=1e-9)
    assert model.distortion_ <= delta * (1 + 1e-7) + 1e-12
    assert 0.0 <= model.leakage_ <= infotheory.mutual_information(p) + 1e-12
    assert np.all(np.diff(model.history_["leakage"]) <= 1e-12)
    if frac > 0.05:
        expmec = S.ExponentialMechanism(delta=delta).fit(p, d)
        assert expmec.distortion_ <= delta * (1 + 1e-9)
        # strong (local) differential privacy bounds the leakage: I <= epsilon nats
        assert 0.0 <= expmec.leakage_ <= expmec.epsilon_ / math.log(2) + 1e-12
