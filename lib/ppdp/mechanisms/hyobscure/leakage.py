"""User clusters and their distances, the leakage of Theorem 1, the utility budget and the
O-problem (Algorithm 2) of HyObscure."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from scipy.special import rel_entr, xlogy

from ppdp._validation import check_params
from ppdp.base import InfeasibleError, check_random_state
from ppdp.infotheory import mutual_information, pairwise_js_divergence

from .checks import (
    BUDGET_SCOPE,
    DISTANCE,
    NON_NEGATIVE,
    POSITIVE_INT,
    SOLVER,
    as_features,
    as_private,
)
from .domain import Generalization

_LN2 = math.log(2.0)
#: Distance charged for a cluster with no user in a group under ``scope="cluster_mean"``: one nat
#: in bits, the value the authors' code gives every entry of an empty cluster's row and column.
ABSENT_CLUSTER_COST = 1.0 / _LN2
_OK_STATUS = ("optimal",)


# ------------------------------------------------------------------------------------------------
# clusters and distances


#: The most cells (users x features) of a sparse feature matrix that :func:`cluster_users`
#: clusters as a dense array (1 GiB of float64), so that k-means sees the same numbers as on
#: dense input up to about 90,000 MovieLens users.
DENSE_KMEANS_CELLS = 2**27


def cluster_users(X: Any, n_clusters: int, random_state: Any, *, n_init: int = 10) -> np.ndarray:
    """Cluster users on their insensitive features with k-means (Algorithm 2, line 1).

    Clusters are numbered by decreasing size, ties by their first user, so that the labels do not
    depend on the order in which k-means found them.

    A scipy sparse ``X`` is clustered as a dense array while it holds at most 2**27 cells
    (``DENSE_KMEANS_CELLS``, 1 GiB of float64), so that the clusters are those of the dense input (k-means on
    sparse input rounds differently and, on MovieLens' 802 users, ends in other clusters for 4 of
    10 seeds); above that, k-means runs on the sparse matrix (a million MovieLens-like users take
    about a minute and 4 GiB, where the dense matrix alone would need 11 GiB).

    Parameters
    ----------
    X : array_like or scipy sparse matrix, shape (n, m)
        Insensitive features (finite, non-negative).
    n_clusters : int
        Number of clusters ``|C|``, at most ``n``.
    random_state : None, int or numpy.random.Generator
        Draws the seed of scikit-learn's ``KMeans``.
    n_init : int
        Restarts of k-means.

    Returns
    -------
    ndarray of int64, shape (n,)
        Cluster of each user, 0 the largest.

    Raises
    ------
    ValueError
        When ``X`` is not a non-empty 2-D array of finite, non-negative numbers, ``n_clusters``
        or ``n_init`` is not a positive integer, or ``n_clusters`` exceeds the number of users.
    TypeError
        When ``X`` holds non-numeric values.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import cluster_users
    >>> X = np.array([[9, 1], [8, 2], [9, 0], [1, 9], [0, 8], [2, 9], [1, 7]])
    >>> cluster_users(X, 2, np.random.default_rng(0), n_init=1)
    array([1, 1, 1, 0, 0, 0, 0])
    """
    rng = check_random_state(random_state)
    from sklearn.cluster import KMeans

    X = as_features(X)
    check_params({"n_clusters": n_clusters}, {"n_clusters": POSITIVE_INT}, "cluster_users")
    n_clusters = int(n_clusters)
    if n_clusters > X.shape[0]:
        raise ValueError(f"n_clusters={n_clusters} exceeds the number of users ({X.shape[0]})")
    seed = int(rng.integers(2**31 - 1))
    check_params({"n_init": n_init}, {"n_init": POSITIVE_INT}, "cluster_users")
    if sp.issparse(X) and X.shape[0] * X.shape[1] <= DENSE_KMEANS_CELLS:
        X = X.toarray()
    km = KMeans(n_clusters=n_clusters, n_init=int(n_init), random_state=seed).fit(X)
    # number clusters by size then by first member, so that the labels do not depend on k-means order
    labels = km.labels_
    sizes = np.bincount(labels, minlength=n_clusters)
    firsts = np.array(
        [np.flatnonzero(labels == c)[0] if sizes[c] else X.shape[0] for c in range(n_clusters)]
    )
    order = np.lexsort((firsts, -sizes))
    remap = np.empty(n_clusters, dtype=np.int64)
    remap[order] = np.arange(n_clusters)
    return remap[labels]


#: The distance between two clusters inside a group: ``"centroid_js"``, ``"mean_pairwise_js"``
#: or a callable of the feature rows of the two clusters' users that returns a float.
DistanceSpec = str | Callable[[np.ndarray, np.ndarray], float]


class DistanceModel:
    """Cluster-to-cluster distances inside each group, cheap to update after a boundary move."""

    def __init__(self, X, clusters, value_idx, n_clusters, n_values, metric: DistanceSpec):
        check_params({"metric": metric}, {"metric": DISTANCE}, type(self).__name__)
        self.metric = metric
        self.X = X
        self.clusters = clusters
        self.value_idx = value_idx
        self.C = n_clusters
        if metric == "centroid_js":
            # feature sums per (value, cluster): aggregates of a group are sums over its values
            if sp.issparse(X):
                # one sparse product (an indicator of each user's cell times the ratings), never
                # a dense users x features matrix
                n = X.shape[0]
                cells = sp.csr_matrix(
                    (np.ones(n), (value_idx * n_clusters + clusters, np.arange(n))),
                    shape=(n_values * n_clusters, n),
                )
                S = (cells @ X).toarray().reshape(n_values, n_clusters, X.shape[1])
            else:
                S = np.zeros((n_values, n_clusters, X.shape[1]))
                np.add.at(S, (value_idx, clusters), X)
            self.S = S
        elif metric == "mean_pairwise_js":
            if X.shape[0] > 20000:
                raise ValueError(
                    f"distance='mean_pairwise_js' needs a {X.shape[0]}x{X.shape[0]} matrix; "
                    "use 'centroid_js' for populations above 20,000 users"
                )
            self.J = pairwise_js_divergence(X.toarray() if sp.issparse(X) else X)

    def group(self, value_mask: np.ndarray) -> np.ndarray:
        """(C, C) distances between clusters restricted to the users whose value is in the mask;
        NaN where a cluster has no such user."""
        C = self.C
        out = np.full((C, C), np.nan)
        if self.metric == "centroid_js":
            agg = self.S[value_mask].sum(axis=0)
            present = np.flatnonzero(agg.sum(axis=1) > 0)
            if len(present):
                out[np.ix_(present, present)] = pairwise_js_divergence(agg[present])
            return out
        users = np.flatnonzero(value_mask[self.value_idx])
        cl = self.clusters[users]
        present = np.unique(cl)
        if self.metric == "mean_pairwise_js":
            ind = np.zeros((len(users), C))
            ind[np.arange(len(users)), cl] = 1.0
            sums = ind.T @ self.J[np.ix_(users, users)] @ ind
            sizes = ind.sum(axis=0)
            mean = sums / np.maximum(np.outer(sizes, sizes), 1.0)
            out[np.ix_(present, present)] = mean[np.ix_(present, present)]
            return out
        X = self.X.toarray() if sp.issparse(self.X) else self.X  # a callable gets arrays
        for a in present:
            for b in present:
                out[a, b] = float(self.metric(X[users[cl == a]], X[users[cl == b]]))
        return out

    def all_groups(self, gen_labels: np.ndarray) -> np.ndarray:
        K = int(gen_labels.max()) + 1
        return np.stack([self.group(gen_labels == g) for g in range(K)])


def cluster_distances(
    X: Any,
    clusters: Any,
    y: Any,
    generalization: Generalization,
    distance: DistanceSpec = "centroid_js",
) -> np.ndarray:
    """Distances ``d(c, c^ | y~)`` between user clusters inside each generalized group.

    Parameters
    ----------
    X : array_like, shape (n, m)
        Insensitive features (finite, non-negative).
    clusters : array_like of int, shape (n,)
        Cluster of each user, labels ``0..C-1``.
    y : array_like of int, shape (n,)
        Exact private value of each user, in the generalization's domain.
    generalization : Generalization
        The groups inside which the distances are taken.
    distance : {"centroid_js", "mean_pairwise_js"} or callable
        :data:`DistanceSpec`: the Jensen-Shannon divergence (bits) between the clusters' aggregate
        features, the mean over pairs of their users, or a callable of the feature rows of the
        two clusters' users in the group.

    Returns
    -------
    ndarray, shape (K, C, C)
        NaN where a cluster has no user in the group.

    Examples
    --------
    Two clusters of users with opposite profiles; the ages 22 and 23 (group 1) are held by users
    of cluster 1 only:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Generalization, cluster_distances, private_domain
    >>> X = np.array([[4, 1], [3, 1], [1, 4], [1, 3], [1, 4], [1, 3]])
    >>> clusters = np.array([0, 0, 1, 1, 1, 1])
    >>> y = np.array([20, 21, 20, 21, 22, 23])
    >>> gen = Generalization(private_domain(y), np.array([0, 0, 1, 1]))
    >>> D = cluster_distances(X, clusters, y, gen)
    >>> D.shape
    (2, 2, 2)
    >>> D[0].round(3)
    array([[0.   , 0.236],
           [0.236, 0.   ]])
    >>> D[1].round(3)
    array([[nan, nan],
           [nan,  0.]])
    """
    X = as_features(X)
    clusters = np.asarray(clusters, dtype=np.int64)
    idx = generalization.domain.index(as_private(y, X.shape[0]))
    C = int(clusters.max()) + 1
    model = DistanceModel(X, clusters, idx, C, len(generalization.domain.values), distance)
    return model.all_groups(generalization.labels)


# ------------------------------------------------------------------------------------------------
# leakage (Theorem 1)


def cluster_value_counts(clusters: np.ndarray, value_idx: np.ndarray, C: int, V: int) -> np.ndarray:
    counts = np.zeros((C, V))
    np.add.at(counts, (clusters, value_idx), 1.0)
    return counts


def hybrid_joint(counts_cy: np.ndarray, labels: np.ndarray, mappings: np.ndarray) -> np.ndarray:
    """Joint distribution ``p(y, y~, c^)`` of a hybrid release, shape (V, K, C).

    ``p(y, y~, c^) = sum_c p(c, y) [G(y) = y~] O(c^ | c, y~)`` (Eq. 29 with clusters for ``X``).

    Parameters
    ----------
    counts_cy : ndarray, shape (C, V)
        Number of users per (cluster, exact value).
    labels : ndarray, shape (V,)
        Group of each exact value (a deterministic generalization).
    mappings : ndarray, shape (K, C, C)
        ``mappings[g, c, c^] = p(c^ | c, g)``.

    Returns
    -------
    ndarray, shape (V, K, C)
        ``p(y, y~, c^)``; zero unless ``y~ = G(y)``. It sums to one when the mappings' rows do.

    Raises
    ------
    ValueError
        When ``mappings`` does not have shape (K, C, C) or ``counts_cy`` holds no user.

    Examples
    --------
    Two clusters, four ages in two groups, and the identity mapping (no obfuscation):

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import hybrid_joint
    >>> counts_cy = np.array([[3.0, 1, 2, 0], [1, 3, 0, 2]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> joint = hybrid_joint(counts_cy, labels, np.stack([np.eye(2)] * 2))
    >>> joint.shape
    (4, 2, 2)
    >>> joint[0] * 12  # the 3 + 1 users aged 0, all in group 0, published in their own cluster
    array([[3., 1.],
           [0., 0.]])
    >>> float(joint.sum())
    1.0
    """
    counts_cy = np.asarray(counts_cy, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    mappings = np.asarray(mappings, dtype=np.float64)
    C, V = counts_cy.shape
    K = int(labels.max()) + 1
    if mappings.shape != (K, C, C):
        raise ValueError(f"mappings must have shape (K, C, C) = {(K, C, C)}; got {mappings.shape}")
    total = counts_cy.sum()
    if total <= 0:
        raise ValueError("counts_cy must hold at least one user")
    p = counts_cy / total
    per_value = np.einsum("cy,ycd->yd", p, mappings[labels])  # (V, C): p(y, c^) with y~ = G(y)
    joint = np.zeros((V, K, C))
    joint[np.arange(V), labels, :] = per_value
    return joint


def hybrid_leakage(counts_cy: np.ndarray, labels: np.ndarray, mappings: np.ndarray) -> float:
    """Privacy leakage ``I(Y; X^, Y~)`` in bits (Theorem 1, Eq. 6) on user clusters.

    Computed as the mutual information of the table ``p(y, (y~, c^))`` from :func:`hybrid_joint`.

    Parameters
    ----------
    counts_cy : ndarray, shape (C, V)
        Number of users per (cluster, exact value).
    labels : ndarray, shape (V,)
        Group of each exact value.
    mappings : ndarray, shape (K, C, C)
        ``mappings[g, c, c^] = p(c^ | c, g)`` (rows sum to one).

    Returns
    -------
    float
        ``I(Y; X^, Y~)`` in bits, between ``I(Y; Y~) = H(Y~)`` (a mapping that publishes one
        cluster whatever the user's) and ``I(Y; C, Y~)`` (the identity).

    Raises
    ------
    ValueError
        When ``mappings`` does not have shape (K, C, C) or ``counts_cy`` holds no user.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import hybrid_leakage
    >>> counts_cy = np.array([[3.0, 1, 2, 0], [1, 3, 0, 2]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> round(hybrid_leakage(counts_cy, labels, np.stack([np.eye(2)] * 2)), 3)
    1.377
    >>> round(hybrid_leakage(counts_cy, labels, np.full((2, 2, 2), 0.5)), 3)  # H(Y~) only
    0.918
    """
    joint = hybrid_joint(counts_cy, labels, mappings)
    return mutual_information(joint.reshape(joint.shape[0], -1))


def transposed_leakage(counts_cy: np.ndarray, labels: np.ndarray, mappings: np.ndarray) -> float:
    """The privacy score of the authors' greedy G-step (their ``funcs.Mean_KL_div``), in bits.

    Their code stores a group's obfuscation as a matrix ``X[to, from]`` over the cells
    ``(g, c) -> g + c * K`` whose *columns* sum to one (their O-problem's ``sum(X) == 1``; their
    release draws a user's new cell from column ``from``, ``funcs.get_obf_X``), so
    ``X[g + c^ K, g + c K] = mappings[g, c, c^]``. Their score multiplies the joint table
    ``pgy[y, g + c K] = p(y, g, c)`` by ``X`` from the right, which sums over the *row* index
    ``to``: it reads the mapping transposed, ``M'[g] = mappings[g].T``. Their O-problem
    objective (``pgy' * X`` in ``HyObscure.m``) reads it the same way. This function computes
    that score:

    ``q(y, g, c^) = sum_c p(y, g, c) mappings[g, c^, c]`` (zero unless ``g = G(y)``),
    ``p(y) = sum_{g, c} p(y, g, c)``, ``q(g, c^) = sum_y q(y, g, c^)``, and the generalized
    Kullback-Leibler divergence

    ``sum_{y, g, c^} [ q log(q / (p(y) q(g, c^))) - q + p(y) q(g, c^) ] / ln 2``,

    with ``0 log 0 = 0``. Every term is non-negative. Because ``sum_y p(y) = 1`` the ``- q + p q``
    terms add up to zero, so the score is ``sum q log(q / (p(y) q(g, c^)))`` over the cells with
    ``q > 0``. A cell with ``q > 0`` has ``p(y) > 0`` and ``q(g, c^) >= q > 0``, so the ratio is
    always finite (a zero denominator there would make the score ``inf``).

    Relation to :func:`hybrid_leakage`: ``mappings`` have rows summing to one (``p(c^ | c, g)``);
    their columns need not, so ``q`` is in general not a probability table (its total mass is
    ``sum_{g, c, c^} p(g, c) mappings[g, c^, c]``) and the score is not a mutual information.
    When the mappings are also column-stochastic (doubly stochastic), ``M'`` is itself a channel,
    ``q`` is the joint ``p(y, y~, c^)`` of the release through ``M'`` and the score equals
    ``hybrid_leakage(counts_cy, labels, mappings.transpose(0, 2, 1))``; for symmetric mappings
    (``M' = M``) it equals ``hybrid_leakage(counts_cy, labels, mappings)``.

    Their code keeps ``pgy`` at 1e-8 where no user sits (1e-7 for the ages of a group in a cluster
    without users of that group, ``funcs.cal_pgy_withAgeGroup``) and ``X`` at 1e-8 between cells
    of different groups, so that no ``log 0`` arises; those floors are not reproduced here: the
    entries are exact zeros.

    Parameters
    ----------
    counts_cy : ndarray, shape (C, V)
        Number of users per (cluster, exact value).
    labels : ndarray, shape (V,)
        Group of each exact value.
    mappings : ndarray, shape (K, C, C)
        ``mappings[g, c, c^] = p(c^ | c, g)`` (rows sum to one).

    Returns
    -------
    float
        The score in bits (non-negative).

    Raises
    ------
    ValueError
        When ``mappings`` does not have shape (K, C, C) or ``counts_cy`` holds no user.

    Examples
    --------
    For a symmetric mapping the score is the leakage; otherwise it differs:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import hybrid_leakage, transposed_leakage
    >>> counts_cy = np.array([[3.0, 1, 2, 0], [1, 3, 0, 2]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> symmetric = np.array([[[0.8, 0.2], [0.2, 0.8]]] * 2)
    >>> bool(np.isclose(transposed_leakage(counts_cy, labels, symmetric),
    ...                 hybrid_leakage(counts_cy, labels, symmetric)))
    True
    >>> skewed = np.array([[[0.5, 0.5], [0.0, 1.0]]] * 2)
    >>> round(transposed_leakage(counts_cy, labels, skewed), 3)
    1.148
    >>> round(hybrid_leakage(counts_cy, labels, skewed), 3)
    1.064
    """
    # the table of hybrid_joint with each group's mapping read transposed (hybrid_joint checks
    # the shapes and needs no stochastic rows)
    q = hybrid_joint(counts_cy, labels, np.asarray(mappings, dtype=np.float64).transpose(0, 2, 1))
    counts_cy = np.asarray(counts_cy, dtype=np.float64)
    py = (counts_cy.sum(axis=0) / counts_cy.sum())[:, None, None]  # p(y)
    q_cell = q.sum(axis=0, keepdims=True)  # q(g, c^)
    # q log(q / (p(y) q(g, c^))) split so that the product p(y) q(g, c^) cannot underflow to 0
    kl = rel_entr(q, py) - xlogy(q, q_cell)
    return float(np.sum(kl) + np.sum(py * q_cell - q)) / _LN2


#: The privacy scores of the authors' greedy G-steps, by the name of their ``score`` option.
GREEDY_SCORES = {"transposed": transposed_leakage, "leakage": hybrid_leakage}


def expected_distance(
    counts_cy: np.ndarray,
    labels: np.ndarray,
    mappings: np.ndarray,
    distances: np.ndarray,
    scope: str = "global",
) -> float | np.ndarray:
    """Utility loss of Eq. (16): the expected distance between a user's cluster and the published one.

    With ``scope="global"`` the expectation runs over all users; with ``"group"`` an array of the
    per-group expectations is returned; with ``"cluster_mean"`` an array of per-group unweighted
    means over all ``C`` clusters of the expected distance from a cluster, where a cluster with no
    user in the group counts ``ABSENT_CLUSTER_COST`` (the authors' ``HyObscure.m`` budget),
    as does mass sent to such a cluster. Otherwise, entries of ``mappings`` that put mass on a
    cluster absent from the group (NaN distance) make the loss ``inf``.

    Parameters
    ----------
    counts_cy : ndarray, shape (C, V)
        Number of users per (cluster, exact value).
    labels : ndarray, shape (V,)
        Group of each exact value.
    mappings : ndarray, shape (K, C, C)
        ``mappings[g, c, c^] = p(c^ | c, g)``.
    distances : ndarray, shape (K, C, C)
        ``d(c, c^ | y~)`` from :func:`cluster_distances` (NaN for absent clusters).
    scope : {"global", "group", "cluster_mean"}
        Over what the expectation runs (see above).

    Returns
    -------
    float or ndarray, shape (K,)
        The expected distance over all users (``"global"``, a float), or one value per group.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import expected_distance
    >>> counts_cy = np.array([[3.0, 1, 2, 0], [1, 3, 0, 2]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> distances = np.array([[[0, 0.4], [0.4, 0]], [[0, 0.2], [0.2, 0]]])
    >>> uniform = np.full((2, 2, 2), 0.5)
    >>> round(expected_distance(counts_cy, labels, uniform, distances), 3)
    0.167
    >>> expected_distance(counts_cy, labels, uniform, distances, scope="group").round(3)
    array([0.2, 0.1])
    >>> expected_distance(counts_cy, labels, np.stack([np.eye(2)] * 2), distances)
    0.0
    """
    counts_cy = np.asarray(counts_cy, dtype=np.float64)
    K = mappings.shape[0]
    C = counts_cy.shape[0]
    pcg = np.zeros((K, C))
    for g in range(K):
        pcg[g] = counts_cy[:, labels == g].sum(axis=1)
    weighted = pcg[:, :, None] * mappings
    used = weighted > 0
    if scope == "cluster_mean":
        # the authors' distance matrix holds the absent cost wherever a cluster is absent
        distances = np.where(np.isnan(distances), ABSENT_CLUSTER_COST, distances)
    d = np.where(used, distances, 0.0)
    if np.isnan(d).any():
        return math.inf if scope == "global" else np.full(K, math.inf)
    if scope == "cluster_mean":
        per_cluster = np.where(pcg > 0, (mappings * d).sum(axis=2), ABSENT_CLUSTER_COST)
        return per_cluster.mean(axis=1)
    per_group = (weighted * d).sum(axis=(1, 2))
    if scope == "global":
        return float(per_group.sum() / pcg.sum())
    return per_group / np.maximum(pcg.sum(axis=1), 1e-300)


def scalar_loss(counts_cy, labels, mappings, distances, scope):
    loss = expected_distance(counts_cy, labels, mappings, distances, scope)
    return float(loss) if scope == "global" else float(np.max(loss))


def _group_cluster_counts(counts_cy: np.ndarray, labels: np.ndarray, K: int) -> np.ndarray:
    """Users per (group, cluster), shape (K, C)."""
    onehot = np.zeros((counts_cy.shape[1], K))
    onehot[np.arange(counts_cy.shape[1]), labels] = 1.0
    return (counts_cy @ onehot).T


def _nearest_mappings(pcg: np.ndarray, distances: np.ndarray, mappings: np.ndarray) -> np.ndarray:
    """The cheapest mapping: each cluster present in a group sends all its mass to the closest
    present cluster (itself when its own distance is the smallest). Rows of absent clusters are
    copied from ``mappings``; they carry no user."""
    out = mappings.copy()
    for g in range(pcg.shape[0]):
        present = np.flatnonzero(pcg[g] > 0)
        if not len(present):
            continue
        D = distances[g][np.ix_(present, present)]
        own = np.diagonal(D)
        nearest = np.where(own <= D.min(axis=1), present, present[np.argmin(D, axis=1)])
        out[g, present, :] = 0.0
        out[g, present, nearest] = 1.0
    return out


def repair_budget(
    counts_cy: np.ndarray,
    labels: np.ndarray,
    mappings: np.ndarray,
    distances: np.ndarray,
    budget: float,
    scope: str = "global",
) -> tuple[np.ndarray, float]:
    """Bring mappings back within the utility budget of Eq. (16) exactly.

    A convex solver meets the budget only up to its feasibility tolerance (Clarabel leaves up to
    ~1e-9 bits; renormalizing rows after clipping negative round-off moves it again). The expected
    distance is linear in the mapping, so the convex combination ``N + lam (O - N)`` with the
    cheapest mapping ``N`` (``_nearest_mappings``, within budget whenever the O-problem is
    feasible) and ``lam = (budget - Q(N)) / (Q(O) - Q(N))`` meets the budget exactly; with
    a per-group ``scope`` each group over its budget gets its own ``lam``. Mappings within budget are
    returned unchanged.

    Parameters
    ----------
    counts_cy : ndarray, shape (C, V)
        Number of users per (cluster, exact value).
    labels : ndarray, shape (V,)
        Group of each exact value.
    mappings : ndarray, shape (K, C, C)
        Mappings to repair (rows sum to one).
    distances : ndarray, shape (K, C, C)
        ``d(c, c^ | y~)`` from :func:`cluster_distances`.
    budget : float
        The utility budget ``Delta Q`` of Eq. (16).
    scope : {"global", "group", "cluster_mean"}
        As for :func:`expected_distance`.

    Returns
    -------
    mappings : ndarray (K, C, C)
        Within the budget (``mappings`` itself when it already was).
    excess : float
        By how much the largest expected distance exceeded the budget before the repair (0 when
        it did not).

    Examples
    --------
    The uniform mapping costs 0.167; mixed with the identity it costs the budget, 0.1:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import expected_distance, repair_budget
    >>> counts_cy = np.array([[3.0, 1, 2, 0], [1, 3, 0, 2]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> distances = np.array([[[0, 0.4], [0.4, 0]], [[0, 0.2], [0.2, 0]]])
    >>> repaired, excess = repair_budget(
    ...     counts_cy, labels, np.full((2, 2, 2), 0.5), distances, budget=0.1)
    >>> round(excess, 3)
    0.067
    >>> repaired[0].round(3)
    array([[0.7, 0.3],
           [0.3, 0.7]])
    >>> expected_distance(counts_cy, labels, repaired, distances) <= 0.1
    True
    """
    loss = np.atleast_1d(expected_distance(counts_cy, labels, mappings, distances, scope))
    excess = float(np.max(loss) - budget)
    if excess <= 0:
        return mappings, 0.0
    K = mappings.shape[0]
    pcg = _group_cluster_counts(np.asarray(counts_cy, dtype=np.float64), labels, K)
    base = _nearest_mappings(pcg, distances, mappings)
    base_loss = np.atleast_1d(expected_distance(counts_cy, labels, base, distances, scope))
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(loss > budget, (budget - base_loss) / (loss - base_loss), 1.0)
    lam = np.clip(np.nan_to_num(lam, nan=0.0), 0.0, 1.0)
    # the last bits of the products can land above the budget: step further inside, by
    # doubling relative amounts, down to the cheapest mapping itself (lam = 0)
    for i in range(42):
        lam_k = np.broadcast_to(lam, (K,))[:, None, None]
        repaired = base + lam_k * (mappings - base)
        after = np.atleast_1d(expected_distance(counts_cy, labels, repaired, distances, scope))
        over = after > budget
        if not over.any():
            break
        shrink = 1.0 - 2.0 ** min(i - 40, 0)
        lam = np.where(over if scope != "global" else True, lam * shrink, lam)
    return repaired, excess


# ------------------------------------------------------------------------------------------------
# O-problem (Algorithm 2)


def _solver_plan(solver: str) -> list[tuple[str, dict]]:
    """The requested solver first; if it stops short of an optimal status, fallbacks in order.

    Clarabel sometimes ends 'optimal_inaccurate' or fails numerically on nearly degenerate
    instances (budgets just short of perfect privacy, clusters of one user); tighter
    regularization or switching off its equilibration settles them, and SCS without Anderson
    acceleration is the last resort. Every fallback must still reach the 'optimal' status."""
    plan = [(solver, {})]
    if solver == "CLARABEL":
        plan.append(("CLARABEL", {"max_iter": 500, "static_regularization_constant": 1e-7}))
        plan.append(("CLARABEL", {"max_iter": 500, "equilibrate_enable": False}))
    plan.append(("SCS", {"eps": 1e-9, "max_iters": 200_000}))
    plan.append(("SCS", {"eps": 1e-7, "max_iters": 500_000, "acceleration_lookback": 0}))
    return plan


def _min_budget(pcg: np.ndarray, distances: np.ndarray, scope: str) -> float | np.ndarray:
    K, C = pcg.shape
    per_group = np.zeros(K)
    for g in range(K):
        present = pcg[g] > 0
        D = distances[g][np.ix_(present, present)]
        if scope == "cluster_mean":
            # every absent cluster costs its share, all C of them in a group without users
            absent = (C - present.sum()) * ABSENT_CLUSTER_COST
            per_group[g] = ((D.min(axis=1).sum() if present.any() else 0.0) + absent) / C
        elif present.any():
            per_group[g] = (pcg[g][present] * D.min(axis=1)).sum()
    if scope == "cluster_mean":
        return per_group
    if scope == "global":
        return float(per_group.sum() / pcg.sum())
    return per_group / np.maximum(pcg.sum(axis=1), 1e-300)


def solve_obfuscation(
    counts_cy: np.ndarray,
    labels: np.ndarray,
    distances: np.ndarray,
    budget: float,
    *,
    scope: str = "global",
    shared: bool = False,
    solver: str = "CLARABEL",
) -> tuple[np.ndarray, float]:
    """Solve the O-problem (Eqs. 15-18, Algorithm 2) with cvxpy.

    minimize ``I(Y; C^, Y~) = sum_{y, y~, c^} rel_entr(p(y, y~, c^), p(y) p(y~, c^)) / ln 2`` over
    the obfuscation mappings ``O(c^ | c, y~)`` (one per group, rows on the simplex, mass only
    between clusters present in the group), subject to the expected distance of Eq. (16) being at
    most ``budget``. ``rel_entr(a, b)`` is jointly convex and both arguments are affine in ``O``,
    so the program is convex (the paper's CVX formulation with ``kl_div``).

    Parameters
    ----------
    counts_cy : ndarray, shape (C, V)
    labels : ndarray, shape (V,)
    distances : ndarray, shape (K, C, C)
        From :func:`cluster_distances` (NaN for absent clusters).
    budget : float
        Obfuscation budget ``Delta Q`` (bits of Jensen-Shannon divergence), >= 0.
    scope : {"global", "group", "cluster_mean"}
        Bound the expectation over all users, each group's expectation, or each group's
        unweighted mean over clusters (see :func:`expected_distance`).
    shared : bool
        One mapping shared by all groups whose objective ignores ``Y~`` (``I(Y; C^)``): the
        PrivCheck baseline, which optimizes obfuscation without regard to the generalization.
        Its distances must then have shape (1, C, C).
    solver : str
        cvxpy solver name ("CLARABEL" or "SCS").

    Returns
    -------
    mappings : ndarray, shape (K, C, C) (or (1, C, C) when ``shared``)
    leakage : float
        Objective value in bits (``I(Y; C^, Y~)``, or ``I(Y; C^)`` when ``shared``).

    Raises
    ------
    ValueError
        When ``budget`` is negative, ``scope`` or ``solver`` is not one of the options, or
        ``distances`` does not have shape (K, C, C).
    ppdp.base.InfeasibleError
        A ``ValueError``: when ``budget`` is below the smallest achievable expected distance.
    RuntimeError
        When no solver of the fallback plan reaches an optimal solution.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import (
    ...     expected_distance, hybrid_leakage, solve_obfuscation)
    >>> counts_cy = np.array([[3.0, 1, 2, 0], [1, 3, 0, 2]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> distances = np.array([[[0, 0.4], [0.4, 0]], [[0, 0.2], [0.2, 0]]])
    >>> mappings, leakage = solve_obfuscation(counts_cy, labels, distances, budget=0.05)
    >>> round(leakage, 3)
    1.01
    >>> bool(expected_distance(counts_cy, labels, mappings, distances) <= 0.05)
    True

    A zero budget leaves no room to obfuscate: the leakage is that of the identity.

    >>> _, leakage = solve_obfuscation(counts_cy, labels, distances, budget=0.0)
    >>> round(leakage, 3)
    1.377
    >>> round(hybrid_leakage(counts_cy, labels, np.stack([np.eye(2)] * 2)), 3)
    1.377
    """
    check_params(
        {"budget": budget, "scope": scope, "solver": solver},
        {"budget": NON_NEGATIVE, "scope": BUDGET_SCOPE, "solver": SOLVER},
        "solve_obfuscation",
    )
    budget = float(budget)
    counts_cy = np.asarray(counts_cy, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    C, V = counts_cy.shape
    if shared:
        labels = np.zeros(V, dtype=np.int64)
    K = int(labels.max()) + 1
    if distances.shape != (K, C, C):
        raise ValueError(f"distances must have shape {(K, C, C)}; got {distances.shape}")
    p = counts_cy / counts_cy.sum()
    py = p.sum(axis=0)
    pcg = np.stack([p[:, labels == g].sum(axis=1) for g in range(K)])
    need = _min_budget(pcg, distances, scope)
    if np.any(np.asarray(need) > budget + 1e-12):
        raise InfeasibleError(
            f"budget={budget} is below the smallest achievable expected distance "
            f"{float(np.max(need)):.6g}; no obfuscation meets the utility constraint (Eq. 16)"
        )
    variables, objective_terms, cost_terms, constraints, present_sets = [], [], [], [], []
    for g in range(K):
        present = np.flatnonzero(pcg[g] > 0)
        present_sets.append(present)
        vals = np.flatnonzero(labels == g)
        vals = vals[py[vals] > 0]
        m = len(present)
        Og = cp.Variable((m, m), nonneg=True)
        variables.append(Og)
        constraints.append(cp.sum(Og, axis=1) == 1)
        Pg = p[np.ix_(present, vals)]  # (m, Vg)
        A = Pg.T @ Og  # p(y, c^) inside the group, (Vg, m)
        b = pcg[g][present] @ Og  # p(c^, g), (m,)
        B = py[vals][:, None] @ cp.reshape(b, (1, m), order="C")
        objective_terms.append(cp.sum(cp.rel_entr(A, B)))
        D = distances[g][np.ix_(present, present)]
        cost = cp.sum(cp.multiply(pcg[g][present][:, None] * D, Og))
        cost_terms.append(cost)
        if scope == "group":
            constraints.append(cost <= budget * pcg[g].sum())
        elif scope == "cluster_mean":
            absent = (C - m) * ABSENT_CLUSTER_COST
            constraints.append(cp.sum(cp.multiply(D, Og)) <= budget * C - absent)
    if scope == "global":
        constraints.append(sum(cost_terms) <= budget)
    objective = cp.Minimize(sum(objective_terms) / _LN2)
    problem = cp.Problem(objective, constraints)
    attempts = []
    for name, options in _solver_plan(solver):
        try:
            problem.solve(solver=name, **options)
        except cp.error.SolverError as exc:
            attempts.append(f"{name}: {exc}")
            continue
        if problem.status in _OK_STATUS:
            break
        attempts.append(f"{name}: status {problem.status!r}")
    else:
        raise RuntimeError("the O-problem was not solved to optimality: " + "; ".join(attempts))
    mappings = np.zeros((K, C, C))
    for g in range(K):
        present = present_sets[g]
        Og = np.maximum(np.asarray(variables[g].value), 0.0)  # solver round-off of order 1e-9
        Og /= Og.sum(axis=1, keepdims=True)
        full = np.eye(C)
        full[np.ix_(present, present)] = Og
        for c in present:
            full[c, np.setdiff1d(np.arange(C), present)] = 0.0
        mappings[g] = full
    mappings, _ = repair_budget(counts_cy, labels, mappings, distances, budget, scope)
    return mappings, float(problem.value)
