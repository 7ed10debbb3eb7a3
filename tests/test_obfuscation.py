"""Obfuscation baselines of HyObscure: Random, Frapp, Similarity, DP (exponential) and PrivCheck."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from ppdp.infotheory import pairwise_js_divergence
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure import (
    DPObfuscation,
    Frapp,
    PrivCheck,
    RandomObfuscation,
    Similarity,
    dp_epsilon,
)
from ppdp.mechanisms.hyobscure.leakage import cluster_value_counts


def _data(seed=0, n=90, n_values=9):
    rng = np.random.default_rng(seed)
    y = rng.integers(30, 30 + n_values, n)
    X = rng.poisson(1.5, (n, 12)).astype(float) + (y[:, None] % 3 == 0)
    X[:, 0] += 1
    domain = hy.private_domain(y)
    gen = hy.Generalization(domain, np.repeat([0, 1, 2], 3))
    return X, y, gen


USER_LEVEL = [
    lambda: RandomObfuscation(p_rand=0.4),
    lambda: Frapp(gamma=7.0),
    lambda: Similarity(p_obf=0.5),
    lambda: DPObfuscation(beta=3.0),
]


@pytest.mark.filterwarnings("ignore::ppdp.base.RepeatedReleaseWarning")  # twice on purpose
@pytest.mark.parametrize("make", USER_LEVEL)
def test_user_level_matrices_are_stochastic_and_stay_in_group(make):
    X, y, gen = _data()
    m = make().fit(X, y, generalization=gen)
    for M in m.matrices_:
        assert (M >= 0).all() and np.allclose(M.sum(axis=1), 1)
    r = m.release(random_state=np.random.default_rng(0))
    assert np.array_equal(r.features, X[r.source])
    assert np.array_equal(r.groups[r.source], r.groups)
    r2 = m.release(random_state=np.random.default_rng(0))
    assert np.array_equal(r.source, r2.source)


def test_random_and_frapp_closed_forms():
    X, y, gen = _data()
    r = RandomObfuscation(p_rand=0.3).fit(X, y, generalization=gen)
    M = r.matrices_[0]
    n = M.shape[0]
    assert np.allclose(np.diag(M), 0.7) and np.allclose(M[~np.eye(n, dtype=bool)], 0.3 / (n - 1))
    f = Frapp(gamma=5.0).fit(X, y, generalization=gen)
    M = f.matrices_[1]
    n = M.shape[0]
    e = 1 / (5.0 + n - 1)
    assert np.allclose(np.diag(M), 5 * e) and np.allclose(M[~np.eye(n, dtype=bool)], e)


@pytest.mark.filterwarnings("ignore::ppdp.base.RepeatedReleaseWarning")  # 200 draws on purpose
def test_random_empirical_keep_rate():
    X, y, gen = _data(n=300)
    m = RandomObfuscation(p_rand=0.25).fit(X, y, generalization=gen)
    rng = np.random.default_rng(1)
    own = np.arange(len(y))
    kept = np.mean([np.mean(m.release(random_state=rng).source == own) for _ in range(200)])
    assert kept == pytest.approx(0.75, abs=0.01)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), beta=st.floats(0.1, 20.0))
def test_dp_mapping_satisfies_its_epsilon(seed, beta):
    X, y, gen = _data(seed, n=40)
    m = DPObfuscation(beta=beta).fit(X, y, generalization=gen)
    for M, members in zip(m.matrices_, m.members_, strict=True):
        D = pairwise_js_divergence(X[members])
        eps = 2 * beta * D.max()
        assert eps <= m.epsilon_ + 1e-12
        logM = np.log(M)
        worst = max(
            (logM[u] - logM[u2]).max() for u, u2 in itertools.product(range(len(members)), repeat=2)
        )
        assert worst <= eps + 1e-9
    assert m.epsilon_ == pytest.approx(dp_epsilon(beta, m.d_max_))


def test_similarity_prefers_similar_users():
    X = np.array([[5, 0, 0], [4, 1, 0], [0, 0, 5], [0, 1, 4]], dtype=float)
    y = np.array([30, 30, 31, 31])
    gen = hy.Generalization(hy.private_domain(y), np.array([0, 0]))
    M = Similarity(p_obf=1.0).fit(X, y, generalization=gen).matrices_[0]
    assert M[0, 1] > M[0, 2] and M[2, 3] > M[2, 1] and np.allclose(np.diag(M), 0)


def test_privcheck_optimizes_ignoring_groups_and_releases_in_group():
    X, y, gen = _data(2, n=150)
    rng = np.random.default_rng(0)
    clusters = hy.cluster_users(X, 3, rng)
    pc = PrivCheck(budget=0.05).fit(X, y, generalization=gen, clusters=clusters)
    assert np.allclose(pc.mapping_.sum(axis=1), 1) and (pc.mapping_ >= 0).all()
    assert np.allclose(pc.mappings_.sum(axis=2), 1)
    r = pc.release(random_state=np.random.default_rng(3))
    assert np.array_equal(r.groups[r.source], r.groups)
    # XObf solves min I(Y; C^, Y~) under the in-group expected distance; PrivCheck's in-group
    # mappings are one feasible point of that program at their own cost, so they cannot leak less.
    counts = cluster_value_counts(clusters, gen.domain.index(y), 3, len(gen.domain.values))
    D = hy.cluster_distances(X, clusters, y, gen)
    q = hy.expected_distance(counts, gen.labels, pc.mappings_, D)
    xo = hy.XObf(n_groups=3, k=1, alpha=150, l=1, beta=9, budget=q + 1e-9, n_clusters=3).fit(
        X, y, random_state=rng, clusters=clusters, generalization=gen
    )
    assert xo.leakage_ <= pc.leakage_ + 1e-6


def test_baseline_bad_inputs():
    X, y, gen = _data()
    # the constructors store the hyper-parameters as given; fit checks them
    with pytest.raises(ValueError, match="p_rand"):
        RandomObfuscation(p_rand=1.5).fit(X, y, generalization=gen)
    with pytest.raises(ValueError, match="gamma"):
        Frapp(gamma=0.5).fit(X, y, generalization=gen)
    with pytest.raises(ValueError, match="beta"):
        DPObfuscation(beta=-1).fit(X, y, generalization=gen)
    with pytest.raises(ValueError, match="budget"):
        PrivCheck(budget=-0.1).fit(X, y, generalization=gen)
    with pytest.raises(TypeError, match="generalization"):
        Frapp().fit(X, y, generalization=None)
    with pytest.raises(NotFittedError, match="not fitted"):
        Frapp().release(random_state=np.random.default_rng(0))
    empty = hy.Generalization(gen.domain, np.r_[np.zeros(8, dtype=np.int64), 2])
    with pytest.raises(ValueError, match="no user"):
        Frapp().fit(X, y, generalization=empty)
