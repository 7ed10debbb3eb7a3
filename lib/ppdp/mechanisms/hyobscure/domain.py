"""The private domain, generalizations and the I-problem (Algorithm 1) of HyObscure."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.stats import entropy

from ppdp._validation import check_params
from ppdp.base import InfeasibleError, check_random_state

from .checks import BOUNDS, DOMAIN, POSITIVE_INT, as_private, check_bound_order

# ------------------------------------------------------------------------------------------------
# private domain and generalization


@dataclass(frozen=True)
class PrivateDomain:
    """The distinct exact private values, their coordinates and their neighbourhood graph.

    Attributes
    ----------
    values : ndarray, shape (V,)
        Sorted distinct exact values.
    coords : ndarray, shape (V, d)
        Coordinates used by the k-means of the I-problem (the age itself; ``(row, col)`` of a cell).
    adjacency : scipy.sparse.csr_matrix, shape (V, V)
        Symmetric neighbour relation: which values may share a boundary between two groups.
    kind : str
        ``"interval"`` or ``"grid"``.
    grid_width : int or None
        Number of columns of the grid of a ``"grid"`` domain (cell id ``row * grid_width + col``);
        None for an interval domain.

    Examples
    --------
    Built by :func:`private_domain` from the users' exact values:

    >>> from ppdp.mechanisms.hyobscure import private_domain
    >>> domain = private_domain([31, 25, 27, 25, 30])
    >>> domain.values
    array([25, 27, 30, 31])
    >>> domain.index([30, 25])
    array([2, 0])
    >>> domain.adjacency.toarray().astype(int)  # consecutive distinct ages are neighbours
    array([[0, 1, 0, 0],
           [1, 0, 1, 0],
           [0, 1, 0, 1],
           [0, 0, 1, 0]])
    """

    values: np.ndarray
    coords: np.ndarray
    adjacency: sp.csr_matrix
    kind: str
    grid_width: int | None = None

    def index(self, y: np.ndarray) -> np.ndarray:
        """Position of each exact value in ``values``; unknown values raise ValueError."""
        y = np.asarray(y)
        idx = np.searchsorted(self.values, y)
        idx_c = np.clip(idx, 0, len(self.values) - 1)
        bad = self.values[idx_c] != y
        if bad.any():
            raise ValueError(
                f"private value {y[bad][0]!r} is not in the domain of {len(self.values)} values"
            )
        return idx_c


def private_domain(values: Any, kind: str = "interval", grid_width: int = 60) -> PrivateDomain:
    """Build the domain of exact private values.

    Parameters
    ----------
    values : array_like of int
        Exact private values (duplicates allowed).
    kind : {"interval", "grid"}
        ``"interval"``: ordered values (ages); neighbours are consecutive distinct values.
        ``"grid"``: cell ids ``row * grid_width + col`` of a 1 km grid (home cells); neighbours are
        the edges of the Delaunay triangulation of the occupied cells (consecutive cells when they
        are collinear), so that a contiguous area may skip unoccupied cells.
    grid_width : int
        Number of columns of the grid (60 for the Foursquare NYC grid).

    Returns
    -------
    PrivateDomain
        The sorted distinct values, their coordinates and their neighbourhood graph.

    Raises
    ------
    ValueError
        When ``kind`` is not one of the options, ``grid_width`` is not a positive integer, or
        ``values`` is empty or holds missing values.
    TypeError
        When ``values`` holds non-integral values.

    Examples
    --------
    >>> from ppdp.mechanisms.hyobscure import private_domain
    >>> ages = private_domain([31, 25, 27, 25, 30])
    >>> ages.values, ages.kind
    (array([25, 27, 30, 31]), 'interval')

    Three occupied cells of a 60-column grid, ``(1, 1)``, ``(1, 2)`` and ``(2, 1)``: the
    Delaunay triangle makes each a neighbour of the other two.

    >>> cells = private_domain([61, 62, 121, 61], kind="grid", grid_width=60)
    >>> cells.coords
    array([[1., 1.],
           [1., 2.],
           [2., 1.]])
    >>> cells.adjacency.toarray().astype(int)
    array([[0, 1, 1],
           [1, 0, 1],
           [1, 1, 0]])
    """
    check_params({"kind": kind}, {"kind": DOMAIN}, "private_domain")
    vals = np.unique(as_private(values))
    n = len(vals)
    if kind == "interval":
        coords = vals.astype(np.float64)[:, None]
        rows = np.arange(n - 1)
        edges = np.stack([rows, rows + 1], axis=1)
    else:
        check_params({"grid_width": grid_width}, {"grid_width": POSITIVE_INT}, "private_domain")
        grid_width = int(grid_width)
        coords = np.stack([vals // grid_width, vals % grid_width], axis=1).astype(np.float64)
        edges = _delaunay_edges(coords)
    adj = sp.coo_matrix(
        (
            np.ones(2 * len(edges)),
            (np.r_[edges[:, 0], edges[:, 1]], np.r_[edges[:, 1], edges[:, 0]]),
        ),
        shape=(n, n),
    ).tocsr()
    adj.data[:] = 1.0
    return PrivateDomain(
        values=vals,
        coords=coords,
        adjacency=adj,
        kind=kind,
        grid_width=grid_width if kind == "grid" else None,
    )


def _delaunay_edges(coords: np.ndarray) -> np.ndarray:
    n = len(coords)
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    centred = coords - coords.mean(axis=0)
    if n < 3 or np.linalg.matrix_rank(centred) < 2:
        order = np.lexsort(coords.T[::-1])
        return np.stack([order[:-1], order[1:]], axis=1)
    from scipy.spatial import Delaunay

    tri = Delaunay(coords)
    simplices = tri.simplices
    pairs = np.concatenate([simplices[:, [0, 1]], simplices[:, [1, 2]], simplices[:, [0, 2]]])
    pairs.sort(axis=1)
    return np.unique(pairs, axis=0)


@dataclass(frozen=True)
class Generalization:
    """A generalization function ``G(y~|y)``: each exact value belongs to exactly one group.

    Attributes
    ----------
    domain : PrivateDomain
        The exact values that are generalized.
    labels : ndarray, shape (V,)
        Group (0..K-1) of each value of ``domain.values``.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Generalization, private_domain
    >>> domain = private_domain([20, 21, 22, 23, 24, 25])
    >>> gen = Generalization(domain, np.array([0, 0, 0, 1, 1, 1]))
    >>> gen.n_groups, gen.intervals()
    (2, [(20, 22), (23, 25)])
    >>> gen.transform([21, 25, 23])
    array([0, 1, 1])

    A value outside the domain takes the group of the nearest value of the domain:

    >>> gen.transform_nearest([18, 30])
    array([0, 1])
    """

    domain: PrivateDomain
    labels: np.ndarray

    @property
    def n_groups(self) -> int:
        """The number of groups ``K``, the largest label plus one."""
        return int(self.labels.max()) + 1

    def transform(self, y: Any) -> np.ndarray:
        """Generalized value (group index) of each exact value in ``y``."""
        return self.labels[self.domain.index(as_private(y))]

    def transform_nearest(self, y: Any) -> np.ndarray:
        """Like :meth:`transform`, but a value outside the domain takes the group of the nearest
        domain value (by coordinates; ties to the smaller value). Used for users who were not
        part of the generalized population, e.g. an attacker's own training users."""
        y = as_private(y)
        vals = self.domain.values
        idx = np.searchsorted(vals, y)
        idx_c = np.clip(idx, 0, len(vals) - 1)
        known = vals[idx_c] == y
        out = np.empty(len(y), dtype=np.int64)
        out[known] = self.labels[idx_c[known]]
        if (~known).any():
            if self.domain.kind == "interval":
                pts = y[~known].astype(np.float64)[:, None]
            else:
                w = int(self.domain.grid_width)
                pts = np.stack([y[~known] // w, y[~known] % w], axis=1).astype(np.float64)
            d = ((pts[:, None, :] - self.domain.coords[None, :, :]) ** 2).sum(axis=2)
            out[~known] = self.labels[np.argmin(d, axis=1)]
        return out

    def intervals(self) -> list[tuple[int, int]]:
        """For an interval domain, ``(min, max)`` exact value of each group."""
        return [
            (
                int(self.domain.values[self.labels == g].min()),
                int(self.domain.values[self.labels == g].max()),
            )
            for g in range(self.n_groups)
        ]


def check_generalization(
    labels: np.ndarray,
    value_counts: np.ndarray,
    domain: PrivateDomain,
    k: int,
    alpha: int,
    l: int,  # noqa: E741
    beta: int,
) -> list[str]:
    """Violations of (k, alpha)-uniqueness, (l, beta)-variety and contiguity (empty when none).

    Parameters
    ----------
    labels : ndarray, shape (V,)
        Group of each value.
    value_counts : ndarray, shape (V,)
        Number of users holding each value (Definition 2 counts users, Definition 3 values).
    domain : PrivateDomain
        The domain whose adjacency decides contiguity.
    k, alpha : int
        (k, alpha)-uniqueness: every group holds between ``k`` and ``alpha`` users.
    l, beta : int
        (l, beta)-variety: every group holds between ``l`` and ``beta`` distinct values.

    Returns
    -------
    list of str
        One message per violation, naming the group and the bound; empty when the labels meet
        every bound.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import check_generalization, private_domain
    >>> domain = private_domain(np.arange(20, 26))
    >>> value_counts = np.array([5, 3, 4, 6, 2, 4])
    >>> check_generalization(np.array([0, 0, 0, 1, 1, 1]), value_counts, domain, 10, 15, 2, 3)
    []
    >>> for problem in check_generalization(
    ...     np.array([0, 1, 0, 1, 1, 1]), value_counts, domain, 10, 15, 2, 3
    ... ):
    ...     print(problem)
    group 0 has 9 users, outside [k, alpha] = [10, 15]
    group 0 is not contiguous (2 pieces)
    group 1 has 4 values, outside [l, beta] = [2, 3]
    group 1 is not contiguous (2 pieces)
    """
    labels = np.asarray(labels)
    problems = []
    n_groups = int(labels.max()) + 1
    users = np.bincount(labels, weights=value_counts, minlength=n_groups)
    nvals = np.bincount(labels, minlength=n_groups)
    pieces = _pieces_per_group(labels, domain.adjacency, n_groups)
    for g in range(n_groups):
        if nvals[g] == 0:
            problems.append(f"group {g} is empty")
            continue
        if not k <= users[g] <= alpha:
            problems.append(
                f"group {g} has {int(users[g])} users, outside [k, alpha] = [{k}, {alpha}]"
            )
        if not l <= nvals[g] <= beta:
            problems.append(
                f"group {g} has {int(nvals[g])} values, outside [l, beta] = [{l}, {beta}]"
            )
        if pieces[g] > 1:
            problems.append(f"group {g} is not contiguous ({pieces[g]} pieces)")
    return problems


def _pieces_per_group(labels: np.ndarray, adjacency: sp.spmatrix, n_groups: int) -> np.ndarray:
    """The number of connected pieces of each group: the components of the graph that keeps only
    the edges between values of one group, counted per group.

    The same counts as the components of each group's induced subgraph, from one pass over the
    whole graph instead of a slice of the sparse matrix per group (the G-step checks every
    candidate move, so this runs thousands of times per fit)."""
    edges = sp.coo_matrix(adjacency)
    inside = labels[edges.row] == labels[edges.col]
    within = sp.coo_matrix(
        (np.ones(int(inside.sum()), dtype=np.int8), (edges.row[inside], edges.col[inside])),
        shape=edges.shape,
    )
    _, piece = connected_components(within, directed=False)
    # each piece lies in one group: count each piece once, at its first value
    _, first = np.unique(piece, return_index=True)
    return np.bincount(labels[first], minlength=n_groups)


# ------------------------------------------------------------------------------------------------
# I-problem (Algorithm 1)


def _one_kmeans_run(counts, domain, K, k, alpha, l, beta, rng, max_iter):  # noqa: E741
    """One constraint-aware k-means run (Algorithm 1) from random centres; None when stuck."""
    V = len(counts)
    coords = domain.coords
    # dense: a domain holds tens of values, and each step asks every free value for its groups
    edges = sp.coo_matrix(domain.adjacency)
    adjacent = np.zeros((V, V), dtype=np.int64)
    adjacent[edges.row, edges.col] = 1
    present = np.flatnonzero(counts > 0)
    if len(present) < K:
        return None
    # random initial centres (line 5), spread by user-weighted k-means++ seeding
    chosen = [int(rng.choice(present, p=counts[present] / counts[present].sum()))]
    for _ in range(1, K):
        d2 = (
            ((coords[present][:, None, :] - coords[chosen][None, :, :]) ** 2)
            .sum(axis=2)
            .min(axis=1)
        )
        w = counts[present] * d2
        if w.sum() <= 0:
            return None
        chosen.append(int(rng.choice(present, p=w / w.sum())))
    centres = coords[chosen]
    seen = set()
    best = None
    for _ in range(max_iter):
        labels = -np.ones(V, dtype=np.int64)
        users = np.zeros(K)
        nvals = np.zeros(K, dtype=np.int64)
        # line 5/7/9: each group starts from the free value closest to its centre
        for g in range(K):
            d = ((coords - centres[g]) ** 2).sum(axis=1)
            d[labels >= 0] = np.inf
            v = int(np.argmin(d))
            if counts[v] > alpha:
                return None
            labels[v] = g
            users[g] += counts[v]
            nvals[g] += 1
        dist = _squared_distances(coords, centres)
        stuck = False
        for _step in range(V - K):
            pair = _next_pair(labels, users, nvals, counts, adjacent, dist, (k, alpha, l, beta))
            if pair is None:
                stuck = True
                break
            v, g = pair
            labels[v] = g
            users[g] += counts[v]
            nvals[g] += 1
        if stuck:
            return best
        if ((users < k) | (nvals < l)).any():
            return best
        objective = float(
            sum(
                (
                    counts[labels == g]
                    * ((coords[labels == g] - _centre(coords, counts, labels, g)) ** 2).sum(axis=1)
                ).sum()
                for g in range(K)
            )
        )
        best = (labels.copy(), objective)
        key = labels.tobytes()
        if key in seen:
            break
        seen.add(key)
        centres = np.stack([_centre(coords, counts, labels, g) for g in range(K)])
    return best


def _next_pair(labels, users, nvals, counts, adjacent, dist, bounds):
    """Algorithm 1's next assignment (lines 16-20): the (free value, group) pair it takes, or None
    when no free value touches a group it fits in.

    Every pair of a free value and a group it is adjacent to (contiguity) and fits (at most
    ``alpha`` users and ``beta`` values) is a candidate; groups still short of ``k`` users or
    ``l`` values (S_{k,l}) come first, then the smallest ``dist[value, group]``, ties broken by
    the smaller value and then the smaller group. All pairs are weighed at once."""
    k, alpha, l, beta = bounds  # noqa: E741
    K = len(users)
    free = labels < 0
    member = labels[:, None] == np.arange(K)[None, :]
    touches = (adjacent @ member) > 0
    fits = (users[None, :] + counts[:, None] <= alpha) & (nvals[None, :] + 1 <= beta)
    vs, gs = np.nonzero(touches & fits & free[:, None])
    if len(vs) == 0:
        return None
    short = ((users < k) | (nvals < l))[gs]
    pick = np.lexsort((gs, vs, dist[vs, gs], ~short))[0]
    return int(vs[pick]), int(gs[pick])


def _squared_distances(coords: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The squared distance of every value to every centre, ``[value, centre]``: the same number
    as each pair's own sum, since a domain's values have at most two coordinates (one addition,
    in any order)."""
    return ((coords[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)


def _centre(coords, counts, labels, g):
    w = counts[labels == g]
    pts = coords[labels == g]
    if w.sum() > 0:
        return (w[:, None] * pts).sum(axis=0) / w.sum()
    return pts.mean(axis=0)


def optimal_interval_partition(
    counts: np.ndarray,
    coords: np.ndarray,
    K: int,
    k: int,
    alpha: int,
    l: int,  # noqa: E741
    beta: int,
) -> np.ndarray | None:
    """Exact I-problem for ordered values: the partition into ``K`` contiguous intervals that
    minimizes the user-weighted within-group sum of squares (Eq. 23) under (k, alpha) and
    (l, beta), by dynamic programming (the 1-D optimal k-means of Wang and Song [27] with the
    constraints added).

    Parameters
    ----------
    counts : ndarray, shape (V,)
        Users per value, the values sorted.
    coords : ndarray, shape (V,) or (V, 1)
        The values themselves (their first coordinate is used).
    K : int
        Number of intervals.
    k, alpha : int
        Fewest and most users of an interval.
    l, beta : int
        Fewest and most values of an interval.

    Returns
    -------
    ndarray of int64, shape (V,) or None
        The interval (0..K-1, in the order of the values) of each value, or None when no
        partition into ``K`` intervals meets the bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import optimal_interval_partition
    >>> counts = np.array([5.0, 3, 4, 6, 2, 4])
    >>> optimal_interval_partition(counts, np.arange(20, 26), 2, k=10, alpha=15, l=2, beta=4)
    array([0, 0, 0, 1, 1, 1])

    Three intervals of at least 10 users each cannot hold 24 users:

    >>> print(optimal_interval_partition(counts, np.arange(20, 26), 3, 10, 15, 2, 4))
    None
    """
    counts = np.asarray(counts, dtype=np.float64)
    x = np.asarray(coords, dtype=np.float64).reshape(len(counts), -1)[:, 0]
    V = len(counts)
    cw = np.r_[0.0, np.cumsum(counts)]
    cx = np.r_[0.0, np.cumsum(counts * x)]
    cxx = np.r_[0.0, np.cumsum(counts * x * x)]

    def sse(i, j):  # values i..j-1
        w = cw[j] - cw[i]
        if w <= 0:
            return 0.0
        m = cx[j] - cx[i]
        return float(cxx[j] - cxx[i] - m * m / w)

    inf = math.inf
    cost = np.full((K + 1, V + 1), inf)
    back = np.full((K + 1, V + 1), -1, dtype=np.int64)
    cost[0, 0] = 0.0
    for g in range(1, K + 1):
        for j in range(1, V + 1):
            for i in range(max(0, j - beta), j - l + 1):
                if cost[g - 1, i] == inf:
                    continue
                users = cw[j] - cw[i]
                if not k <= users <= alpha:
                    continue
                c = cost[g - 1, i] + sse(i, j)
                if c < cost[g, j] - 1e-12:
                    cost[g, j], back[g, j] = c, i
    if cost[K, V] == inf:
        return None
    labels = np.empty(V, dtype=np.int64)
    j = V
    for g in range(K, 0, -1):
        i = back[g, j]
        labels[i:j] = g - 1
        j = i
    return labels


def _relabel_in_order(labels: np.ndarray, coords: np.ndarray) -> np.ndarray:
    """Number groups by the lexicographic order of their smallest coordinates (stable output)."""
    K = int(labels.max()) + 1
    firsts = [tuple(coords[labels == g].min(axis=0)) for g in range(K)]
    order = sorted(range(K), key=lambda g: firsts[g])
    remap = np.empty(K, dtype=np.int64)
    remap[order] = np.arange(K)
    return remap[labels]


def initial_generalization(
    y: Any,
    domain: PrivateDomain,
    n_groups: int,
    k: int,
    alpha: int,
    l: int,  # noqa: E741
    beta: int,
    random_state: Any,
    *,
    n_init: int = 10,
    max_iter: int = 30,
    exact_fallback: bool = True,
) -> Generalization:
    """Solve the I-problem (Eqs. 23-25) with constraint-aware k-means (Algorithm 1).

    Each group starts from the free value closest to its centre; then, repeatedly, the closest
    (free value, group) pair is assigned, preferring groups that do not yet hold ``k`` users and
    ``l`` values, refusing pairs that would exceed ``alpha`` users or ``beta`` values, and only
    pairing a value with a group it borders (groups stay contiguous). Centres are re-estimated
    (user-weighted means) until the partition repeats. A run that gets stuck is restarted from
    other random centres (``n_init`` times) and then with ``K + 1`` groups, as in line 22, up to
    ``floor(|U| / k)`` groups. For ages (interval domain) a stuck ``K`` is settled exactly by
    :func:`optimal_interval_partition` when ``exact_fallback`` is true, so that a feasible
    setting is never reported infeasible.

    Parameters
    ----------
    y : array_like of int, shape (n,)
        Exact private value of each user; every value must lie in ``domain``.
    domain : PrivateDomain
        The values to partition (e.g. ``private_domain(y)``).
    n_groups : int
        Requested number of groups ``K``; more are tried when ``K`` gets stuck.
    k, alpha : int
        (k, alpha)-uniqueness (Definition 2): users per group, ``k <= alpha``.
    l, beta : int
        (l, beta)-variety (Definition 3): distinct values per group, ``l <= beta``.
    random_state : None, int or numpy.random.Generator
        Draws the initial centres of each run.
    n_init : int
        Runs from random centres per number of groups.
    max_iter : int
        Re-estimations of the centres per run.
    exact_fallback : bool
        For an interval domain, settle a stuck ``K`` with :func:`optimal_interval_partition`.

    Returns
    -------
    Generalization
        Contiguous groups that meet (k, alpha) and (l, beta), numbered in the order of their
        smallest coordinates (for ages: youngest group first).

    Raises
    ------
    ValueError
        When a bound is not a positive integer, ``alpha < k`` or ``beta < l``, ``k`` exceeds the
        number of users, ``l`` the number of values, or ``alpha`` the users of one value.
    ppdp.base.InfeasibleError
        A ``ValueError``: when ``n_groups`` lies outside ``[|U|/alpha, |U|/k]`` or no feasible
        partition is found; the message names the bound that cannot be met.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import (
    ...     check_generalization, initial_generalization, private_domain)
    >>> y = np.repeat(np.arange(20, 30), [5, 3, 4, 6, 2, 4, 5, 3, 4, 4])  # 40 users
    >>> domain = private_domain(y)
    >>> gen = initial_generalization(y, domain, 2, 15, 30, 3, 6, np.random.default_rng(0))
    >>> gen.intervals()
    [(20, 24), (25, 29)]
    >>> check_generalization(gen.labels, np.bincount(domain.index(y)), domain, 15, 30, 3, 6)
    []
    """
    rng = check_random_state(random_state)
    check_params(
        {"k": k, "alpha": alpha, "l": l, "beta": beta, "n_groups": n_groups, "n_init": n_init},
        {**BOUNDS, "n_groups": POSITIVE_INT, "n_init": POSITIVE_INT},
        "initial_generalization",
    )
    k, alpha, l, beta = check_bound_order(int(k), int(alpha), int(l), int(beta))  # noqa: E741
    n_groups, n_init = int(n_groups), int(n_init)
    idx = domain.index(as_private(y))
    counts = np.bincount(idx, minlength=len(domain.values)).astype(np.float64)
    n_users = int(counts.sum())
    V = len(domain.values)
    if k > n_users:
        raise ValueError(f"k={k} exceeds the number of users |U|={n_users}")
    if l > V:
        raise ValueError(f"l={l} exceeds the number of distinct private values ({V})")
    if n_groups * alpha < n_users:
        raise InfeasibleError(
            f"n_groups={n_groups} is below |U|/alpha = {n_users}/{alpha} = {n_users / alpha:.2f}: "
            f"{n_groups} groups of at most alpha={alpha} users cannot hold {n_users} users"
        )
    if n_groups * k > n_users:
        raise InfeasibleError(
            f"n_groups={n_groups} exceeds |U|/k = {n_users}/{k} = {n_users / k:.2f}: "
            f"{n_groups} groups of at least k={k} users need more than {n_users} users"
        )
    if counts.max() > alpha:
        v = domain.values[int(np.argmax(counts))]
        raise ValueError(
            f"alpha={alpha} is below the {int(counts.max())} users who share the value {v}"
        )
    max_groups = n_users // k
    reasons = []
    for K in range(n_groups, max_groups + 1):
        if K * beta < V:
            reasons.append(
                f"K={K}: {K} groups of at most beta={beta} values cannot cover {V} values"
            )
            continue
        if K * l > V:
            reasons.append(f"K={K}: {K} groups of at least l={l} values need more than {V} values")
            break
        best = None
        for _ in range(n_init):
            run = _one_kmeans_run(counts, domain, K, k, alpha, l, beta, rng, max_iter)
            if run is not None and (best is None or run[1] < best[1] - 1e-12):
                best = run
        if best is not None:
            labels = _relabel_in_order(best[0], domain.coords)
            return Generalization(domain=domain, labels=labels)
        if domain.kind == "interval" and exact_fallback:
            labels = optimal_interval_partition(counts, domain.coords, K, k, alpha, l, beta)
            if labels is not None:
                return Generalization(domain=domain, labels=labels)
            reasons.append(f"K={K}: no partition into {K} intervals meets the bounds (exact check)")
            continue
        reasons.append(f"K={K}: constraint-aware k-means got stuck in {n_init} runs")
    raise InfeasibleError(
        f"no generalization satisfies (k, alpha)=({k}, {alpha}) and (l, beta)=({l}, {beta}) with "
        f"contiguous groups for {n_users} users over {V} values; " + "; ".join(reasons)
    )


def band_generalization(domain: PrivateDomain, cuts: Any) -> Generalization:
    """Fixed bands of ordered values: group ``i`` holds the values in ``[cuts[i-1], cuts[i])``.

    The authors' code starts MovieLens from the age bands <25, 25-34, 35-44, >=45
    (``cuts=[25, 35, 45]``, their ``age_group_initiate_movieLens``) instead of solving the
    I-problem.

    Parameters
    ----------
    domain : PrivateDomain
        Ordered values (``kind="interval"``).
    cuts : array_like of float
        Strictly increasing band edges; ``len(cuts) + 1`` bands.

    Returns
    -------
    Generalization
        Group ``i`` holds the values of band ``i``, from the lowest band up.

    Raises
    ------
    ValueError
        When the domain is not ordered, the cuts are not strictly increasing, or a band holds no
        value of the domain.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import band_generalization, private_domain
    >>> domain = private_domain(np.arange(18, 60))
    >>> band_generalization(domain, [25, 35, 45]).intervals()
    [(18, 24), (25, 34), (35, 44), (45, 59)]
    """
    if domain.kind != "interval":
        raise ValueError(f"bands need an ordered (interval) domain; got kind={domain.kind!r}")
    cuts = np.asarray(cuts, dtype=np.float64).ravel()
    if len(cuts) == 0 or not np.isfinite(cuts).all() or (np.diff(cuts) <= 0).any():
        raise ValueError(f"cuts must be a non-empty, strictly increasing list; got {cuts.tolist()}")
    labels = np.searchsorted(cuts, domain.values, side="right").astype(np.int64)
    counts = np.bincount(labels, minlength=len(cuts) + 1)
    if (counts == 0).any():
        empty = int(np.flatnonzero(counts == 0)[0])
        edges = [-math.inf, *cuts.tolist(), math.inf]
        raise ValueError(
            f"cuts={cuts.tolist()} leave the band [{edges[empty]}, {edges[empty + 1]}) without a "
            f"value of the domain (values {int(domain.values.min())} to {int(domain.values.max())})"
        )
    return Generalization(domain=domain, labels=labels)


def entropy_reach(counts: np.ndarray, l: float) -> int:  # noqa: E741
    """``int(exp(H) - exp(log(l)))``: how many values a group may give away by its entropy.

    ``H`` is the entropy (nats) of the group's users over its values (ages or cells), computed as
    the authors' ``funcs.l_diversity`` and ``reducible_scale`` do (``scipy.stats.entropy`` of the
    L1-normalized counts, against ``exp(log(l))``: they pass ``np.log(l)``). The float path is
    kept on purpose: ``exp(H)`` of 3 equally filled cells is 2.9999999999999996 and
    ``exp(log(3))`` is 3.0000000000000004, and the truncation makes these last bits count.
    A group without users gives nothing (their code would fail on a 0/0).
    """
    total = float(np.sum(np.abs(counts)))
    if total <= 0:
        return 0
    h = entropy(counts / total)
    return int(np.exp(h) - np.exp(np.log(l)))
