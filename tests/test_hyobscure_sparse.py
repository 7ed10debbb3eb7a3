"""HyObscure on sparse ratings: the same fit and release as on the dense matrix.

A million users' ratings fit in memory only as a sparse matrix (benchmarks/hyobscure_scaling.py);
every step that reads features takes it, and gives the dense input's numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from populations import SMALL, hyobscure_population
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure import leakage
from ppdp.mechanisms.hyobscure.checks import as_features
from ppdp.mechanisms.hyobscure.leakage import DistanceModel


def _sparse_population(seed):
    X, y, clusters = hyobscure_population(seed)
    X[X < 2] = 0.0  # most entries empty, as ratings are
    X[:, 0] += 1.0  # no empty user
    return X, y, clusters


def test_features_stay_sparse_and_are_checked_as_dense_ones():
    X, _, _ = _sparse_population(0)
    out = as_features(sp.coo_matrix(X))
    assert sp.isspmatrix_csr(out) and out.dtype == np.float64
    np.testing.assert_array_equal(out.toarray(), X)
    for bad in (-1.0, np.inf, np.nan):
        Y = X.copy()
        Y[3, 4] = bad
        with pytest.raises(ValueError, match="finite, non-negative") as sparse_error:
            as_features(sp.csr_matrix(Y))
        with pytest.raises(ValueError) as dense_error:
            as_features(Y)
        assert str(sparse_error.value) == str(dense_error.value)
    with pytest.raises(ValueError, match="non-empty 2-D"):
        as_features(sp.csr_matrix((0, 4)))


@pytest.mark.parametrize("seed", range(3))
def test_clusters_of_sparse_features_are_the_dense_ones(seed):
    X, _, _ = _sparse_population(seed)
    dense = hy.cluster_users(X, 3, np.random.default_rng(seed), n_init=2)
    sparse = hy.cluster_users(sp.csr_matrix(X), 3, np.random.default_rng(seed), n_init=2)
    np.testing.assert_array_equal(dense, sparse)


def test_large_sparse_features_are_clustered_sparse(monkeypatch):
    """Above the cell limit k-means gets the sparse matrix itself, not a dense copy."""
    from sklearn.cluster import KMeans

    X, _, _ = _sparse_population(1)
    seen = []
    fit = KMeans.fit
    monkeypatch.setattr(KMeans, "fit", lambda self, A, *a, **k: seen.append(A) or fit(self, A))
    below = hy.cluster_users(sp.csr_matrix(X), 3, np.random.default_rng(0), n_init=2)
    monkeypatch.setattr(leakage, "DENSE_KMEANS_CELLS", X.size - 1)
    above = hy.cluster_users(sp.csr_matrix(X), 3, np.random.default_rng(0), n_init=2)
    assert isinstance(seen[0], np.ndarray) and sp.issparse(seen[1])
    for labels in (below, above):
        sizes = np.bincount(labels, minlength=3)
        assert labels.shape == (X.shape[0],) and (np.diff(sizes) <= 0).all() and sizes.min() > 0


@pytest.mark.parametrize("metric", ["centroid_js", "mean_pairwise_js"])
def test_cluster_distances_of_sparse_features_equal_the_dense_ones(metric):
    X, y, clusters = _sparse_population(2)
    value_idx = np.searchsorted(np.unique(y), y)
    V = len(np.unique(y))
    dense = DistanceModel(X, clusters, value_idx, 3, V, metric)
    sparse = DistanceModel(sp.csr_matrix(X), clusters, value_idx, 3, V, metric)
    mask = np.arange(V) < V // 2
    np.testing.assert_allclose(sparse.group(mask), dense.group(mask), rtol=1e-12, atol=1e-15)


def test_a_callable_distance_gets_dense_rows():
    X, y, clusters = _sparse_population(3)
    value_idx = np.searchsorted(np.unique(y), y)
    seen = []

    def gap(a, b):
        seen.append(type(a))
        return float(abs(a.mean() - b.mean()))

    model = DistanceModel(sp.csr_matrix(X), clusters, value_idx, 3, len(np.unique(y)), gap)
    model.group(np.ones(len(np.unique(y)), dtype=bool))
    assert seen and all(t is np.ndarray for t in seen)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("method", ["hyobscure", "xobf"])
def test_a_fit_and_release_on_sparse_features_equal_the_dense_ones(seed, method):
    X, y, clusters = _sparse_population(seed)
    make = {"hyobscure": hy.HyObscure, "xobf": hy.XObf}[method]
    outs = []
    for features in (X, sp.csr_matrix(X)):
        mech = make(**SMALL, n_init=2).fit(features, y, random_state=seed, clusters=clusters)
        release = mech.release(random_state=seed + 10, keep=0.3)
        outs.append((mech, release))
    (dense, r_dense), (sparse, r_sparse) = outs
    np.testing.assert_array_equal(sparse.mappings_, dense.mappings_)
    np.testing.assert_array_equal(sparse.generalization_.labels, dense.generalization_.labels)
    np.testing.assert_array_equal(r_sparse.source, r_dense.source)
    np.testing.assert_array_equal(r_sparse.groups, r_dense.groups)
    assert sp.issparse(r_sparse.features)
    np.testing.assert_array_equal(r_sparse.features.toarray(), r_dense.features)
