"""Tests for ppdp.infotheory against scipy, scikit-learn and brute force."""

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import jensenshannon
from scipy.stats import entropy as scipy_entropy
from sklearn.metrics import mutual_info_score, normalized_mutual_info_score

from ppdp import infotheory as it

LN2 = math.log(2.0)
AVERAGES = ("arithmetic", "geometric", "min", "max")
FAST = settings(max_examples=60, deadline=None)


def random_simplex(rng, shape, zeros=0.0):
    x = rng.random(shape)
    if zeros:
        x[rng.random(shape) < zeros] = 0.0
    if x.sum() == 0:
        x.flat[0] = 1.0
    return x / x.sum()


def random_stochastic(rng, n_rows, n_cols, zeros=0.0):
    m = rng.random((n_rows, n_cols))
    if zeros:
        m[rng.random((n_rows, n_cols)) < zeros] = 0.0
    m[np.arange(n_rows), rng.integers(0, n_cols, n_rows)] += 0.1  # no all-zero row
    return m / m.sum(axis=1, keepdims=True)


def brute_leakage(p_ab, mapping):
    n_a, n_b = p_ab.shape
    n_hat = mapping.shape[1]
    joint = [[0.0] * n_hat for _ in range(n_a)]
    for a in range(n_a):
        for b in range(n_b):
            for c in range(n_hat):
                joint[a][c] += p_ab[a, b] * mapping[b, c]
    pa = [sum(p_ab[a, b] for b in range(n_b)) for a in range(n_a)]
    pc = [sum(joint[a][c] for a in range(n_a)) for c in range(n_hat)]
    total = 0.0
    for a in range(n_a):
        for c in range(n_hat):
            if joint[a][c] > 0:
                total += joint[a][c] * math.log2(joint[a][c] / (pa[a] * pc[c]))
    return total


# ---------------------------------------------------------------------------------------------
# reference libraries


@pytest.mark.parametrize("seed", range(5))
def test_entropy_and_kl_match_scipy(seed):
    rng = np.random.default_rng(seed)
    p = rng.integers(0, 5, 8).astype(float)
    p[0] = 1.0
    q = rng.random(8) + 0.01
    assert it.entropy(p) == pytest.approx(scipy_entropy(p, base=2), abs=1e-12)
    assert it.entropy(p.astype(int)) == pytest.approx(scipy_entropy(p, base=2), abs=1e-12)
    assert it.kl_divergence(p, q) == pytest.approx(scipy_entropy(p, q, base=2), abs=1e-12)
    assert it.joint_entropy(p.reshape(2, 4)) == pytest.approx(it.entropy(p), abs=1e-12)
    assert it.joint_entropy(p.reshape(2, 2, 2)) == pytest.approx(it.entropy(p), abs=1e-12)


def test_kl_infinite_and_zero_conventions():
    assert it.kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert it.kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(1.0)
    assert it.entropy([0, 3, 0]) == 0.0
    assert it.entropy([1, 1, 0, 0]) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(5))
def test_js_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    p = random_simplex(rng, 7, zeros=0.3 if seed else 0.0)
    q = random_simplex(rng, 7, zeros=0.3 if seed else 0.0)
    expected = jensenshannon(p, q, base=2) ** 2
    assert it.js_divergence(p, q) == pytest.approx(expected, abs=1e-12)
    assert it.js_divergence(p * 3, q * 5) == pytest.approx(expected, abs=1e-12)
    assert it.js_divergence([1, 0], [0, 1]) == 1.0


@pytest.mark.parametrize("seed", range(6))
def test_samples_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = 200
    x = rng.integers(0, 4 + seed, n)
    y = (x + rng.integers(0, 3, n)) % (3 + seed)
    mi = mutual_info_score(x, y) / LN2
    assert it.mutual_information_from_samples(x, y) == pytest.approx(mi, abs=1e-12)
    table = it.contingency(x, y)
    assert table.dtype == np.int64
    assert table.sum() == n
    assert it.mutual_information(table) == pytest.approx(mi, abs=1e-12)
    for average in AVERAGES:
        expected = normalized_mutual_info_score(x, y, average_method=average)
        got_samples = it.normalized_mutual_information_from_samples(x, y, average=average)
        got_table = it.normalized_mutual_information(table, average=average)
        assert got_samples == pytest.approx(expected, abs=1e-12)
        assert got_table == pytest.approx(expected, abs=1e-12)
    assert it.entropy_from_samples(x) == pytest.approx(
        scipy_entropy(np.bincount(x), base=2), abs=1e-12
    )
    h_xy = it.joint_entropy(table)
    assert it.conditional_entropy_from_samples(x, y) == pytest.approx(
        h_xy - it.entropy(table.sum(axis=0)), abs=1e-12
    )
    assert it.conditional_entropy(table, given=1) == pytest.approx(
        h_xy - it.entropy(table.sum(axis=0)), abs=1e-12
    )
    assert it.conditional_entropy(table, given=0) == pytest.approx(
        h_xy - it.entropy(table.sum(axis=1)), abs=1e-12
    )


def test_nmi_degenerate_cases_match_sklearn():
    const = [7, 7, 7, 7]
    varied = [0, 1, 0, 1]
    for average in AVERAGES:
        for a, b in [(const, const), (const, varied), (varied, const), (varied, varied)]:
            expected = normalized_mutual_info_score(a, b, average_method=average)
            got = it.normalized_mutual_information_from_samples(a, b, average=average)
            assert got == pytest.approx(expected, abs=1e-12)
            got_table = it.normalized_mutual_information(it.contingency(a, b), average=average)
            assert got_table == pytest.approx(expected, abs=1e-12)
    assert it.normalized_mutual_information([[0, 0], [0, 5]]) == 1.0


@settings(max_examples=200, deadline=None)
@given(
    counts=st.lists(st.integers(1, 1000), min_size=2, max_size=8),
    average=st.sampled_from(AVERAGES),
    transpose=st.booleans(),
)
def test_nmi_of_a_table_with_one_constant_marginal_is_zero(counts, average, transpose):
    # one row (or column) of counts: X is constant, so I(X; Y) = 0 and sklearn gives 0, whatever
    # the floating residue of normalizing the counts (e.g. [[29, 36, 35]] sums to 1 - 2**-53)
    table = np.array([counts])
    table = table.T if transpose else table
    labels = np.repeat(np.arange(len(counts)), counts)
    constant = np.zeros_like(labels)
    a, b = (labels, constant) if transpose else (constant, labels)
    expected = normalized_mutual_info_score(a, b, average_method=average)
    assert expected == 0.0
    assert it.normalized_mutual_information(table, average=average) == 0.0
    assert it.normalized_mutual_information_from_samples(a, b, average=average) == 0.0


def test_contingency_labels_and_pandas():
    x = pd.Series(["b", "a", "b", "c"])
    y = [(1, 2), (1, 2), (3, 4), (1, 2)]
    table, xl, yl = it.contingency(x, y, return_labels=True)
    assert list(xl) == ["a", "b", "c"]
    assert list(yl) == [(1, 2), (3, 4)]
    np.testing.assert_array_equal(table, [[1, 0], [1, 1], [1, 0]])
    mixed = it.contingency(np.array([1, "a", 1], dtype=object), [0, 0, 1])
    assert mixed.shape == (2, 2)
    cat = pd.Series(pd.Categorical(["u", "v", "u"]))
    assert it.entropy_from_samples(cat) == pytest.approx(it.entropy([2, 1]))


# ---------------------------------------------------------------------------------------------
# pairwise JS


def test_pairwise_js_matches_double_loop():
    rng = np.random.default_rng(1)
    P = rng.random((6, 5))
    P[rng.random(P.shape) < 0.3] = 0.0
    P[:, 0] += 0.1
    Q = rng.integers(0, 4, (4, 5)).astype(float)
    Q[:, 1] += 1.0
    loop = np.array([[it.js_divergence(p, q) for q in Q] for p in P])
    for chunk in (None, 1, 4):
        np.testing.assert_allclose(
            it.pairwise_js_divergence(P, Q, chunk_rows=chunk), loop, rtol=0, atol=1e-12
        )
    self_d = it.pairwise_js_divergence(P, chunk_rows=2)
    loop_self = np.array([[it.js_divergence(p, q) for q in P] for p in P])
    np.testing.assert_allclose(self_d, loop_self, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(self_d, self_d.T)
    np.testing.assert_array_equal(np.diag(self_d), 0.0)


# ---------------------------------------------------------------------------------------------
# leakage


@pytest.mark.parametrize("seed", range(6))
def test_leakage_matches_brute_force_and_sparse(seed):
    rng = np.random.default_rng(seed)
    n_a, n_b, n_hat = 2 + seed % 3, 3 + seed % 4, 2 + seed
    p_ab = random_simplex(rng, (n_a, n_b), zeros=0.2)
    mapping = random_stochastic(rng, n_b, n_hat, zeros=0.5)
    expected = brute_leakage(p_ab, mapping)
    assert it.leakage(p_ab, mapping) == pytest.approx(expected, abs=1e-12)
    for fmt in (sp.csr_array, sp.csc_matrix, sp.coo_array):
        assert it.leakage(p_ab, fmt(mapping)) == pytest.approx(expected, abs=1e-12)
    dense_grad = it.leakage_gradient(p_ab, mapping, floor=1e-12)
    sparse_grad = it.leakage_gradient(p_ab, sp.csr_matrix(mapping), floor=1e-12)
    np.testing.assert_allclose(sparse_grad, dense_grad, rtol=1e-12, atol=1e-12)


def test_leakage_sparse_identity_large():
    rng = np.random.default_rng(0)
    n = 20_000
    p_ab = random_simplex(rng, (3, n))
    eye = sp.identity(n, format="csr")
    assert it.leakage(p_ab, eye) == pytest.approx(it.mutual_information(p_ab), abs=1e-12)
    grad = it.leakage_gradient(p_ab, eye, columns=slice(0, 5))
    assert grad.shape == (n, 5)


def test_leakage_log_ratio_conventions():
    p_ab = np.array([[0.25, 0.25, 0.0], [0.0, 0.25, 0.25]])
    mapping = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    ratio = it.leakage_log_ratio(p_ab, mapping)
    assert ratio.shape == (2, 3)
    assert np.isnan(ratio[:, 2]).all()  # unused column
    assert ratio[1, 0] == -np.inf  # p(a, b^) = 0 with p(a), p(b^) > 0
    assert ratio[0, 0] == pytest.approx(math.log2(0.25 / (0.5 * 0.25)))
    np.testing.assert_array_equal(
        it.leakage_log_ratio(p_ab, mapping, columns=[1, 0]), ratio[:, [1, 0]]
    )
    grad = it.leakage_gradient(p_ab, mapping)
    assert grad[1, 0] == -np.inf and grad[2, 0] == -np.inf  # p(a=1, b) > 0, p(a=1, b^=0) = 0
    assert np.isfinite(grad[0, 0])
    floored = it.leakage_gradient(p_ab, mapping, floor=1e-9)
    assert np.isfinite(floored).all()
    # b = 1 feeds a = 0 (ratio 1 bit) and a = 1 (floored zero cell of p(a, b^ = 0))
    expected = 0.25 * 1.0 + 0.25 * math.log2(1e-9 / (0.5 * 0.25))
    assert floored[1, 0] == pytest.approx(expected)


def _fd_problem(seed, n_a=3, n_b=4, n_hat=5):
    rng = np.random.default_rng(seed)
    p_ab = rng.random((n_a, n_b)) + 0.05
    p_ab /= p_ab.sum()
    mapping = rng.random((n_b, n_hat)) + 0.05
    mapping /= mapping.sum(axis=1, keepdims=True)
    return p_ab, mapping


@pytest.mark.parametrize("seed", range(4))
def test_leakage_gradient_finite_differences(seed):
    p_ab, mapping = _fd_problem(seed)
    grad = it.leakage_gradient(p_ab, mapping)
    eps = 1e-6
    fd = np.empty_like(grad)
    for b in range(mapping.shape[0]):
        for c in range(mapping.shape[1]):
            up, down = mapping.copy(), mapping.copy()
            up[b, c] += eps
            down[b, c] -= eps
            fd[b, c] = (it.leakage(p_ab, up, atol=1e-3) - it.leakage(p_ab, down, atol=1e-3)) / (
                2 * eps
            )
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-9)
    # chunks of columns equal slices of the full gradient
    np.testing.assert_array_equal(
        it.leakage_gradient(p_ab, mapping, columns=[3, 1]), grad[:, [3, 1]]
    )
    np.testing.assert_array_equal(
        it.leakage_gradient(p_ab, mapping, columns=slice(1, 4)), grad[:, 1:4]
    )
    assert it.leakage_gradient(p_ab, mapping, columns=[]).shape == (mapping.shape[0], 0)


@pytest.mark.parametrize("seed", range(3))
def test_leakage_gradient_unused_column_limit(seed):
    p_ab, mapping = _fd_problem(seed)
    p_ab[0, 1] = 0.0  # a zero cell in p_ab
    p_ab[:, 2] = 0.0  # a value b with p(b) = 0
    p_ab /= p_ab.sum()
    padded = np.hstack([mapping, np.zeros((mapping.shape[0], 2))])  # two unused outputs
    grad = it.leakage_gradient(p_ab, padded)
    base = it.leakage(p_ab, padded)
    eps = 1e-7
    for b in range(padded.shape[0]):
        for c in (5, 6):
            bumped = padded.copy()
            bumped[b, c] = eps
            fd = (it.leakage(p_ab, bumped, atol=1e-3) - base) / eps
            assert grad[b, c] == pytest.approx(fd, rel=1e-5, abs=1e-9)
    np.testing.assert_array_equal(grad[2, 5:], 0.0)
    np.testing.assert_array_equal(
        it.leakage_gradient(p_ab, padded, columns=[6, 0]), grad[:, [6, 0]]
    )


# ---------------------------------------------------------------------------------------------
# properties

probs_1d = arrays(
    np.float64,
    st.integers(1, 8),
    elements=st.floats(0, 1e3, allow_nan=False, allow_infinity=False),
).filter(lambda a: a.sum() > 0)
tables = arrays(
    np.float64,
    st.tuples(st.integers(1, 5), st.integers(1, 5)),
    elements=st.floats(0, 1e3, allow_nan=False, allow_infinity=False),
).filter(lambda a: a.sum() > 0)
pairs = st.integers(1, 8).flatmap(
    lambda k: st.tuples(
        *[
            arrays(np.float64, k, elements=st.floats(0, 100, allow_nan=False)).filter(
                lambda a: a.sum() > 0
            )
        ]
        * 2
    )
)


@FAST
@given(probs_1d)
def test_entropy_bounds(p):
    h = it.entropy(p)
    assert 0.0 <= h <= math.log2(np.count_nonzero(p)) + 1e-12


@FAST
@given(tables)
def test_mutual_information_properties(t):
    mi = it.mutual_information(t)
    assert mi >= 0.0
    assert it.mutual_information(t.T) == pytest.approx(mi, abs=1e-12)
    hx, hy = it.entropy(t.sum(axis=1)), it.entropy(t.sum(axis=0))
    assert mi <= min(hx, hy) + 1e-12
    for average in AVERAGES:
        assert 0.0 <= it.normalized_mutual_information(t, average=average) <= 1.0
    assert it.conditional_entropy(t, given=0) == pytest.approx(it.joint_entropy(t) - hx, abs=1e-9)


@FAST
@given(pairs)
def test_divergence_properties(pq):
    p, q = pq
    js = it.js_divergence(p, q)
    assert 0.0 <= js <= 1.0
    assert it.js_divergence(q, p) == pytest.approx(js, abs=1e-12)
    assert it.kl_divergence(p, q) >= 0.0


@FAST
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 5), st.integers(1, 5))
def test_leakage_properties(seed, n_a, n_b, n_hat):
    rng = np.random.default_rng(seed)
    p_ab = random_simplex(rng, (n_a, n_b), zeros=0.3 if seed % 2 else 0.0)
    mi = it.mutual_information(p_ab)
    mapping = random_stochastic(rng, n_b, n_hat, zeros=0.4)
    assert it.leakage(p_ab, mapping) <= mi + 1e-12
    assert it.leakage(p_ab, np.eye(n_b)) == pytest.approx(mi, abs=1e-12)
    constant = np.tile(random_simplex(rng, n_hat), (n_b, 1))
    assert it.leakage(p_ab, constant) == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# the library-based implementation against an independent pure-Python computation
#
# The reference below uses only math.log2 and math.fsum, one cell at a time: no numpy reductions,
# no scipy or scikit-learn, so it checks the delegation to scipy.special and mutual_info_score.


def ref_normalize(values):
    total = math.fsum(values)
    return [v / total for v in values]


def ref_plogp_sum(probs):
    return math.fsum(-p * math.log2(p) for p in probs if p > 0)


def ref_table(t):
    rows = [
        ref_normalize(list(map(float, np.ravel(t))))[i : i + t.shape[1]]
        for i in range(0, t.size, t.shape[1])
    ]
    px = [math.fsum(r) for r in rows]
    py = [math.fsum(r[j] for r in rows) for j in range(t.shape[1])]
    return rows, px, py


def ref_mi(t):
    rows, px, py = ref_table(t)
    return math.fsum(
        p * (math.log2(p) - math.log2(px[i]) - math.log2(py[j]))
        for i, r in enumerate(rows)
        for j, p in enumerate(r)
        if p > 0
    )


def ref_conditional(t, given):
    rows, px, py = ref_table(t)
    marginal = px if given == 0 else py
    return math.fsum(
        p * (math.log2(marginal[i if given == 0 else j]) - math.log2(p))
        for i, r in enumerate(rows)
        for j, p in enumerate(r)
        if p > 0
    )


def ref_nmi(mi, hx, hy, support_x, support_y, average):
    # scikit-learn's conventions: both marginals constant -> 1, one constant or I = 0 -> 0
    if support_x == support_y == 1:
        return 1.0
    if support_x == 1 or support_y == 1 or mi <= 0:
        return 0.0
    normalizer = {
        "arithmetic": (hx + hy) / 2,
        "geometric": math.sqrt(hx * hy),
        "min": min(hx, hy),
        "max": max(hx, hy),
    }[average]
    return min(mi / normalizer, 1.0)


def ref_kl(p, q):
    p, q = ref_normalize(list(map(float, p))), ref_normalize(list(map(float, q)))
    if any(a > 0 and b == 0 for a, b in zip(p, q, strict=True)):
        return math.inf
    return math.fsum(a * (math.log2(a) - math.log2(b)) for a, b in zip(p, q, strict=True) if a > 0)


def ref_js(p, q):
    p, q = ref_normalize(list(map(float, p))), ref_normalize(list(map(float, q)))
    # log2(m) = log2(a + b) - 1, so that m = (a + b) / 2 cannot underflow to 0
    return math.fsum(
        0.5 * a * (math.log2(a) - math.log2(a + b) + 1.0)
        for a, b in zip(p + q, q + p, strict=True)
        if a > 0
    )


# floats over the whole double range, subnormals included
wide_tables = arrays(
    np.float64,
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
    elements=st.floats(0, 1e300, allow_nan=False, allow_infinity=False, allow_subnormal=True),
).filter(lambda a: a.sum() > 0)
count_tables = arrays(
    np.int64, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=st.integers(0, 50)
).filter(lambda a: a.sum() > 0)


@settings(max_examples=300, deadline=None)
@given(wide_tables)
def test_table_measures_match_reference(t):
    rows, _, _ = ref_table(t)
    h_joint = ref_plogp_sum([p for r in rows for p in r])
    assert it.entropy(t.ravel()) == pytest.approx(h_joint, abs=1e-12)
    assert it.joint_entropy(t) == pytest.approx(h_joint, abs=1e-12)
    assert it.joint_entropy(t[..., None]) == pytest.approx(h_joint, abs=1e-12)
    assert it.conditional_entropy(t, given=0) == pytest.approx(ref_conditional(t, 0), abs=1e-12)
    assert it.conditional_entropy(t, given=1) == pytest.approx(ref_conditional(t, 1), abs=1e-12)
    mi = it.mutual_information(t)
    assert math.isfinite(mi)
    assert mi == pytest.approx(max(ref_mi(t), 0.0), abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(count_tables, st.sampled_from(AVERAGES))
def test_nmi_of_count_tables_matches_reference(t, average):
    _, px, py = ref_table(t)
    hx, hy = ref_plogp_sum(px), ref_plogp_sum(py)
    sx, sy = sum(p > 0 for p in px), sum(p > 0 for p in py)
    expected = ref_nmi(ref_mi(t), hx, hy, sx, sy, average)
    assert it.normalized_mutual_information(t, average=average) == pytest.approx(
        expected, abs=1e-12
    )


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 8).flatmap(
        lambda k: st.tuples(
            *[
                arrays(
                    np.float64,
                    k,
                    elements=st.floats(0, 1e300, allow_nan=False, allow_subnormal=True),
                ).filter(lambda a: 0 < a.sum() < np.inf)
            ]
            * 2
        )
    )
)
def test_divergences_match_reference(pq):
    p, q = pq
    kl = it.kl_divergence(p, q)
    expected = ref_kl(p, q)
    if math.isinf(expected):
        assert kl == math.inf
    else:
        assert kl == pytest.approx(max(expected, 0.0), abs=1e-12)
    assert it.js_divergence(p, q) == pytest.approx(min(max(ref_js(p, q), 0.0), 1.0), abs=1e-12)


labels = st.lists(st.tuples(st.integers(0, 6), st.sampled_from("abcd")), min_size=1, max_size=300)


@settings(max_examples=200, deadline=None)
@given(labels, st.sampled_from(AVERAGES))
def test_sample_measures_match_reference(pairs, average):
    from collections import Counter

    x = [a for a, _ in pairs]
    y = [b for _, b in pairs]
    n = len(pairs)
    nxy, nx, ny = Counter(pairs), Counter(x), Counter(y)
    hx = ref_plogp_sum([c / n for c in nx.values()])
    hy = ref_plogp_sum([c / n for c in ny.values()])
    mi = math.fsum(
        c / n * (math.log2(c) + math.log2(n) - math.log2(nx[a]) - math.log2(ny[b]))
        for (a, b), c in nxy.items()
    )
    h_x_given_y = math.fsum(c / n * (math.log2(ny[b]) - math.log2(c)) for (a, b), c in nxy.items())
    table, xl, yl = it.contingency(x, y, return_labels=True)
    assert {
        (a, b): int(table[i, j]) for i, a in enumerate(xl) for j, b in enumerate(yl) if table[i, j]
    } == dict(nxy)
    assert it.entropy_from_samples(x) == pytest.approx(hx, abs=1e-12)
    assert it.conditional_entropy_from_samples(x, y) == pytest.approx(h_x_given_y, abs=1e-12)
    assert it.mutual_information_from_samples(x, y) == pytest.approx(max(mi, 0.0), abs=1e-12)
    expected = ref_nmi(mi, hx, hy, len(nx), len(ny), average)
    got = it.normalized_mutual_information_from_samples(x, y, average=average)
    assert got == pytest.approx(expected, abs=1e-12)


def test_high_cardinality_samples_use_the_sparse_table():
    # 397 * 389 label pairs > max(n, 2**16) cells: the counts are kept sparse
    rng = np.random.default_rng(3)
    n = 5000
    x = rng.integers(0, 397, n)
    y = (x + rng.integers(0, 389, n)) % 389
    dense = it.contingency(x, y)
    assert dense.size > max(n, 2**16)
    mi = it.mutual_information(dense)
    assert it.mutual_information_from_samples(x, y) == pytest.approx(mi, abs=1e-12)
    assert it.mutual_information_from_samples(x, y) == pytest.approx(
        mutual_info_score(x, y) / LN2, abs=1e-12
    )
    assert it.conditional_entropy_from_samples(x, y) == pytest.approx(
        it.conditional_entropy(dense, given=1), abs=1e-12
    )
    for average in AVERAGES:
        assert it.normalized_mutual_information_from_samples(x, y, average) == pytest.approx(
            normalized_mutual_info_score(x, y, average_method=average), abs=1e-12
        )


def test_extreme_magnitudes_stay_finite():
    # a product p(x) p(y) or a ratio p / q that leaves the double range must not turn into inf
    assert it.mutual_information([[5e-324, 0.0], [0.0, 1.0]]) == pytest.approx(0.0, abs=1e-300)
    assert it.mutual_information([[1e-200, 0.0], [0.0, 1.0]]) == pytest.approx(0.0, abs=1e-190)
    assert it.kl_divergence([1.0, 1.0], [1.0, 5e-324]) == pytest.approx(536.0, rel=1e-12)
    assert it.js_divergence([5e-324, 1.0], [0.0, 1.0]) == pytest.approx(0.0, abs=1e-300)
    assert it.conditional_entropy([[5e-324, 1.0], [0.0, 1.0]], given=1) == pytest.approx(1.0)


def test_zero_results_are_positive_zero():
    values = [
        it.entropy([1, 0]),
        it.joint_entropy([[3]]),
        it.conditional_entropy([[0, 0], [1, 2]], given=1),
        it.entropy_from_samples([1, 1]),
        it.kl_divergence([1, 0], [1, 0]),
        it.js_divergence([1, 0], [1, 0]),
    ]
    assert all(v == 0.0 and math.copysign(1.0, v) == 1.0 for v in values)


@pytest.mark.parametrize("seed", range(4))
def test_matches_scipy_stats_entropy(seed):
    # the scipy.special kernels are exactly what scipy.stats.entropy(..., base=2) sums
    rng = np.random.default_rng(seed)
    t = random_simplex(rng, (5, 7), zeros=0.3)
    q = random_simplex(rng, 35) + 1e-3
    assert it.joint_entropy(t) == pytest.approx(scipy_entropy(t.ravel(), base=2), abs=1e-14)
    assert it.kl_divergence(t.ravel(), q) == pytest.approx(
        scipy_entropy(t.ravel(), q, base=2), abs=1e-14
    )
    rows = t.sum(axis=1)
    h_y_given_x = sum(rows[i] * scipy_entropy(t[i], base=2) for i in range(5) if rows[i] > 0)
    assert it.conditional_entropy(t, given=0) == pytest.approx(h_y_given_x, abs=1e-14)


# ---------------------------------------------------------------------------------------------
# errors

GOOD_P = np.array([[0.25, 0.25], [0.25, 0.25]])
GOOD_M = np.eye(2)


@pytest.mark.parametrize(
    ("call", "exc", "name"),
    [
        (lambda: it.entropy([0.5, -0.1]), ValueError, "p"),
        (lambda: it.entropy([0.5, np.nan]), ValueError, "p"),
        (lambda: it.entropy([0.5, np.inf]), ValueError, "p"),
        (lambda: it.entropy([0, 0]), ValueError, "p"),
        (lambda: it.entropy([]), ValueError, "p"),
        (lambda: it.entropy([[0.5, 0.5]]), ValueError, "p"),
        (lambda: it.entropy(["a", "b"]), TypeError, "p"),
        (lambda: it.joint_entropy(5.0), ValueError, "joint"),
        (lambda: it.mutual_information([0.5, 0.5]), ValueError, "joint"),
        (lambda: it.mutual_information([[1, -1]]), ValueError, "joint"),
        (lambda: it.conditional_entropy(GOOD_P, given=2), ValueError, "given"),
        (lambda: it.conditional_entropy(GOOD_P, given=True), ValueError, "given"),
        (lambda: it.normalized_mutual_information(GOOD_P, average="mean"), ValueError, "average"),
        (lambda: it.kl_divergence([1, 0], [1, 0, 0]), ValueError, "q"),
        (lambda: it.kl_divergence([1, 0], [0, 0]), ValueError, "q"),
        (lambda: it.js_divergence([np.nan, 1], [1, 0]), ValueError, "p"),
        (lambda: it.pairwise_js_divergence([1, 0]), ValueError, "P"),
        (lambda: it.pairwise_js_divergence([[1, 0], [0, 0]]), ValueError, "P"),
        (lambda: it.pairwise_js_divergence([[1, 0]], [[1, 0, 0]]), ValueError, "Q"),
        (lambda: it.pairwise_js_divergence([[1, 0]], chunk_rows=0), ValueError, "chunk_rows"),
        (lambda: it.contingency([1, np.nan], [1, 2]), ValueError, "x"),
        (lambda: it.contingency([1, 2], pd.Series(["a", None])), ValueError, "y"),
        (lambda: it.contingency([1, 2], [1, 2, 3]), ValueError, "y"),
        (lambda: it.contingency([], []), ValueError, "x"),
        (lambda: it.contingency(np.zeros((2, 2)), [1, 2]), ValueError, "x"),
        (lambda: it.contingency([[1], [2]], [1, 2]), TypeError, "x"),
        (lambda: it.entropy_from_samples([1.0, float("nan")]), ValueError, "x"),
        (lambda: it.conditional_entropy_from_samples([1, 2], [None, 1]), ValueError, "given"),
        (lambda: it.leakage(GOOD_P * 2, GOOD_M), ValueError, "p_ab"),
        (lambda: it.leakage(-GOOD_P, GOOD_M), ValueError, "p_ab"),
        (lambda: it.leakage(GOOD_P, [[0.5, 0.4], [0, 1]]), ValueError, "mapping"),
        (lambda: it.leakage(GOOD_P, [[1.5, -0.5], [0, 1]]), ValueError, "mapping"),
        (lambda: it.leakage(GOOD_P, [[np.nan, 1], [0, 1]]), ValueError, "mapping"),
        (lambda: it.leakage(GOOD_P, np.eye(3)), ValueError, "mapping"),
        (lambda: it.leakage(GOOD_P, sp.csr_array([[0.5, 0.4], [0, 1]])), ValueError, "mapping"),
        (lambda: it.leakage(GOOD_P, sp.csr_array([[1.5, -0.5], [0, 1]])), ValueError, "mapping"),
        (lambda: it.leakage_gradient(GOOD_P, GOOD_M, floor=0.0), ValueError, "floor"),
        (lambda: it.leakage_gradient(GOOD_P, GOOD_M, floor="x"), TypeError, "floor"),
        (lambda: it.leakage_gradient(GOOD_P, GOOD_M, columns=[2]), ValueError, "columns"),
        (lambda: it.leakage_gradient(GOOD_P, GOOD_M, columns=[0.5]), TypeError, "columns"),
        (lambda: it.leakage_log_ratio(GOOD_P, GOOD_M, columns=[[0]]), ValueError, "columns"),
    ],
)
def test_bad_input_names_parameter(call, exc, name):
    with pytest.raises(exc, match=rf"\b{name}\b"):
        call()
