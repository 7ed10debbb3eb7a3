"""HyObscure: hybrid generalization of private data and obfuscation of insensitive data.

Han, Yang and Wu, "HyObscure: Hybrid Obscuring for Privacy-Preserving Data Publishing".

The publisher holds, per user, insensitive features ``X`` (ratings, check-in counts) and an exact
private value ``Y`` (age, home cell). It releases the generalized value ``Y~`` of each user and
obfuscated features ``X^`` copied from another user with the same ``Y~``. This module implements

* :func:`hybrid_leakage`: the privacy leakage ``I(Y; X^, Y~)`` of Theorem 1 / Eq. (6), computed on
  user clusters (Algorithm 2 replaces ``X`` by the user's cluster ``C``);
* :func:`initial_generalization`: the I-problem, constraint-aware k-means (Algorithm 1);
* :func:`solve_obfuscation`: the O-problem (Algorithm 2), a convex program solved with cvxpy;
* :func:`improve_generalization`: the G-problem, stochastic boundary moves (Algorithm 3);
* :class:`HyObscure` (Algorithm 4) and its variants :class:`XObf` and :class:`YGen`.

Conventions and choices (the paper leaves them open)
-----------------------------------------------------
* An obfuscation mapping is stored per generalized group ``g`` as a matrix ``O[g, c, c^] =
  p(c^ | c, g)`` whose **rows** sum to one (the paper's "column-stochastic" matrix, transposed).
  Clusters with no user in group ``g`` neither send nor receive mass there.
* The private domain is a graph over the distinct exact values: consecutive values for ages
  (``kind="interval"``), Delaunay neighbours of occupied cells for home cells (``kind="grid"``).
  A group must be a connected set of values (an interval of ages, a contiguous area of cells).
* The distance between two clusters inside a group is pluggable: ``"centroid_js"`` (default,
  the Jensen-Shannon divergence between the two clusters' aggregate feature distributions, so a
  cluster is at distance 0 from itself and a zero budget means no obfuscation) or
  ``"mean_pairwise_js"`` (the mean Jensen-Shannon divergence over pairs of their users, as in
  the authors' code, where the identity mapping already costs a positive amount), or a callable.
  Divergences are in bits.
* The utility budget of Eq. (16) bounds the expectation over all users (``budget_scope="global"``);
  ``"group"`` bounds each group's expectation separately as in the authors' code.
* Guarantees: the O-problem's solution is brought within the budget exactly
  (:func:`repair_budget`), and :meth:`HyObscure.guarantee_checks` measures the budget and the
  (k, alpha), (l, beta) and contiguity bounds the estimator was constructed with on the fitted
  generalization and mappings; ``fit`` and ``sample`` raise
  :class:`~ppdp.guarantees.GuaranteeViolation` instead of returning a violation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ppdp.guarantees import GuaranteeCheck, enforce
from ppdp.infotheory import mutual_information, pairwise_js_divergence

__all__ = [
    "Generalization",
    "HyObscure",
    "PrivateDomain",
    "Release",
    "XObf",
    "YGen",
    "check_generalization",
    "cluster_distances",
    "cluster_users",
    "expected_distance",
    "hybrid_joint",
    "hybrid_leakage",
    "improve_generalization",
    "initial_generalization",
    "optimal_interval_partition",
    "private_domain",
    "repair_budget",
    "solve_obfuscation",
]

_LN2 = math.log(2.0)
_OK_STATUS = ("optimal",)


# ------------------------------------------------------------------------------------------------
# input helpers


def _int_param(value: Any, name: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int; got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}; got {value!r}")
    return int(value)


def _float_param(value: Any, name: str, low: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number; got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < low:
        raise ValueError(f"{name} must be a finite number >= {low}; got {value!r}")
    return value


def _check_constraints(k, alpha, l, beta):  # noqa: E741
    k = _int_param(k, "k", 1)
    alpha = _int_param(alpha, "alpha", 1)
    l = _int_param(l, "l", 1)  # noqa: E741
    beta = _int_param(beta, "beta", 1)
    if alpha < k:
        raise ValueError(f"alpha must be >= k (Definition 2); got k={k}, alpha={alpha}")
    if beta < l:
        raise ValueError(f"beta must be >= l (Definition 3); got l={l}, beta={beta}")
    return k, alpha, l, beta


def _as_features(X: Any) -> np.ndarray:
    _reject_non_numeric(X, "X")
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(
            f"X must be a non-empty 2-D array (users x features); got shape {arr.shape}"
        )
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError("X must hold finite, non-negative feature values (ratings or counts)")
    return arr


def _reject_non_numeric(X: Any, name: str) -> None:
    """A table with a text or object column cannot be cast silently: name the column and dtype."""
    from pandas.api.types import is_numeric_dtype

    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):  # a DataFrame
        for col, dtype in dtypes.items():
            if not is_numeric_dtype(dtype):
                raise TypeError(
                    f"{name} must hold numeric feature values; column {col!r} has dtype {dtype}"
                )
        return
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold numeric feature values; got an array of dtype {arr.dtype}"
        )


def _as_private(y: Any, n: int | None = None) -> np.ndarray:
    missing = _missing_mask(y)
    if missing is not None and missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"y must hold an exact private value for every user; {int(missing.sum())} values are "
            f"missing (first at position {first})"
        )
    arr = np.asarray(y)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                "y must hold integer private values (ages, cell ids); got non-numeric entries"
            ) from exc
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"y must be a non-empty 1-D array of exact private values; got shape {arr.shape}"
        )
    if not np.issubdtype(arr.dtype, np.integer):
        if (
            np.issubdtype(arr.dtype, np.floating)
            and np.all(np.isfinite(arr))
            and np.all(arr == np.round(arr))
        ):
            arr = arr.astype(np.int64)
        else:
            raise TypeError(
                f"y must hold integer private values (ages, cell ids); got dtype {arr.dtype}"
            )
    if n is not None and arr.size != n:
        raise ValueError(f"y has {arr.size} entries but X has {n} rows")
    return arr.astype(np.int64)


def _missing_mask(y: Any) -> np.ndarray | None:
    """Positions of missing values (None, NaN, pd.NA) in ``y``; None when ``y`` cannot hold any."""
    import pandas as pd

    if isinstance(y, pd.Series | pd.Index):
        return np.asarray(pd.isna(y))
    arr = np.asarray(y)
    if arr.dtype == object:
        return np.asarray(pd.isna(arr), dtype=bool).reshape(arr.shape).ravel()
    if arr.dtype.kind == "f":
        return np.isnan(arr).ravel()
    return None


def _check_solver(solver: Any) -> str:
    if solver not in ("CLARABEL", "SCS"):
        raise ValueError(f"solver must be 'CLARABEL' or 'SCS'; got {solver!r}")
    return solver


def _check_clusters(clusters: Any, n: int, name: str = "clusters") -> np.ndarray:
    """Precomputed user clusters: one non-negative integer label per row of X."""
    arr = np.asarray(clusters)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"{name} must hold one label per row of X ({n}); got shape {arr.shape}")
    if arr.dtype.kind == "f":
        frac = ~np.isfinite(arr) | (arr != np.round(arr))
        if frac.any():
            first = int(np.flatnonzero(frac)[0])
            raise TypeError(
                f"{name} must hold integer cluster labels; {name}[{first}] = {float(arr[first])!r} is "
                "not an integer"
            )
        raise TypeError(
            f"{name} must hold integer cluster labels; got dtype {arr.dtype} (cast integral labels "
            "with astype(int) first)"
        )
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer cluster labels; got dtype {arr.dtype}")
    if n and arr.min() < 0:
        first = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(
            f"{name} must be labels in [0, n_clusters); {name}[{first}] = {int(arr[first])}"
        )
    return arr.astype(np.int64)


#: Largest deviation of a mapping row's sum from one accepted as rounding.
_ROW_SUM_TOL = 1e-9


def _check_mappings(mappings: Any, shape: tuple[int, int, int], name: str = "mappings"):
    """Obfuscation mappings: shape ``(K, C, C)``, finite, non-negative, rows summing to one."""
    arr = np.asarray(mappings, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape (K, C, C) = {shape}; got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite; it holds NaN or infinite entries")
    if (arr < 0).any():
        g, c, d = np.argwhere(arr < 0)[0]
        raise ValueError(
            f"{name} must be non-negative probabilities; {name}[{g}, {c}, {d}] = {arr[g, c, d]:.10g}"
        )
    sums = arr.sum(axis=2)
    bad = np.abs(sums - 1.0) > _ROW_SUM_TOL
    if bad.any():
        g, c = np.argwhere(bad)[0]
        raise ValueError(
            f"every row of {name} must sum to 1 (within {_ROW_SUM_TOL:g}); row {name}[{g}, {c}] "
            f"sums to {sums[g, c]:.12g}"
        )
    return arr


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
    """

    values: np.ndarray
    coords: np.ndarray
    adjacency: sp.csr_matrix
    kind: str
    grid_width: int | None = None

    def index(self, y: np.ndarray) -> np.ndarray:
        """Position of each exact value in :attr:`values`; unknown values raise ValueError."""
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
    """
    vals = np.unique(_as_private(values))
    n = len(vals)
    if kind == "interval":
        coords = vals.astype(np.float64)[:, None]
        rows = np.arange(n - 1)
        edges = np.stack([rows, rows + 1], axis=1)
    elif kind == "grid":
        grid_width = _int_param(grid_width, "grid_width", 1)
        coords = np.stack([vals // grid_width, vals % grid_width], axis=1).astype(np.float64)
        edges = _delaunay_edges(coords)
    else:
        raise ValueError(f"kind must be 'interval' or 'grid'; got {kind!r}")
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
    labels : ndarray, shape (V,)
        Group (0..K-1) of each value of ``domain.values``.
    """

    domain: PrivateDomain
    labels: np.ndarray

    @property
    def n_groups(self) -> int:
        return int(self.labels.max()) + 1

    def transform(self, y: Any) -> np.ndarray:
        """Generalized value (group index) of each exact value in ``y``."""
        return self.labels[self.domain.index(_as_private(y))]

    def transform_nearest(self, y: Any) -> np.ndarray:
        """Like :meth:`transform`, but a value outside the domain takes the group of the nearest
        domain value (by coordinates; ties to the smaller value). Used for users who were not
        part of the generalized population, e.g. an attacker's own training users."""
        y = _as_private(y)
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
    """
    labels = np.asarray(labels)
    problems = []
    n_groups = int(labels.max()) + 1
    users = np.bincount(labels, weights=value_counts, minlength=n_groups)
    nvals = np.bincount(labels, minlength=n_groups)
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
        members = np.flatnonzero(labels == g)
        if len(members) > 1:
            sub = domain.adjacency[members][:, members]
            ncomp, _ = connected_components(sub, directed=False)
            if ncomp > 1:
                problems.append(f"group {g} is not contiguous ({ncomp} pieces)")
    return problems


# ------------------------------------------------------------------------------------------------
# I-problem (Algorithm 1)


def _one_kmeans_run(counts, domain, K, k, alpha, l, beta, rng, max_iter):  # noqa: E741
    """One constraint-aware k-means run (Algorithm 1) from random centres; None when stuck."""
    V = len(counts)
    coords = domain.coords
    adj = domain.adjacency.tolil().rows
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
        stuck = False
        for _step in range(V - K):
            # candidate pairs: a free value adjacent to a group (contiguity) that fits (line 16)
            free = labels < 0
            best_pair = None
            best_key = None
            for v in np.flatnonzero(free):
                neigh_groups = {int(labels[u]) for u in adj[v] if labels[u] >= 0}
                for g in neigh_groups:
                    if users[g] + counts[v] > alpha or nvals[g] + 1 > beta:
                        continue
                    need = users[g] < k or nvals[g] < l  # S_{k,l} first (lines 17-20)
                    dist = float(((coords[v] - centres[g]) ** 2).sum())
                    key = (0 if need else 1, dist, v, g)
                    if best_key is None or key < best_key:
                        best_key, best_pair = key, (v, g)
            if best_pair is None:
                stuck = True
                break
            v, g = best_pair
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
    constraints added). Returns the labels, or None when no such partition exists."""
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
    rng: np.random.Generator,
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

    Raises
    ------
    ValueError
        When ``n_groups`` lies outside ``[|U|/alpha, |U|/k]`` or no feasible partition is found;
        the message names the bound that cannot be met.
    """
    k, alpha, l, beta = _check_constraints(k, alpha, l, beta)  # noqa: E741
    n_groups = _int_param(n_groups, "n_groups", 1)
    n_init = _int_param(n_init, "n_init", 1)
    idx = domain.index(_as_private(y))
    counts = np.bincount(idx, minlength=len(domain.values)).astype(np.float64)
    n_users = int(counts.sum())
    V = len(domain.values)
    if k > n_users:
        raise ValueError(f"k={k} exceeds the number of users |U|={n_users}")
    if l > V:
        raise ValueError(f"l={l} exceeds the number of distinct private values ({V})")
    if n_groups * alpha < n_users:
        raise ValueError(
            f"n_groups={n_groups} is below |U|/alpha = {n_users}/{alpha} = {n_users / alpha:.2f}: "
            f"{n_groups} groups of at most alpha={alpha} users cannot hold {n_users} users"
        )
    if n_groups * k > n_users:
        raise ValueError(
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
    raise ValueError(
        f"no generalization satisfies (k, alpha)=({k}, {alpha}) and (l, beta)=({l}, {beta}) with "
        f"contiguous groups for {n_users} users over {V} values; " + "; ".join(reasons)
    )


# ------------------------------------------------------------------------------------------------
# clusters and distances


def cluster_users(
    X: Any, n_clusters: int, rng: np.random.Generator, *, n_init: int = 10
) -> np.ndarray:
    """Cluster users on their insensitive features with k-means (Algorithm 2, line 1)."""
    from sklearn.cluster import KMeans

    X = _as_features(X)
    n_clusters = _int_param(n_clusters, "n_clusters", 1)
    if n_clusters > X.shape[0]:
        raise ValueError(f"n_clusters={n_clusters} exceeds the number of users ({X.shape[0]})")
    seed = int(rng.integers(2**31 - 1))
    km = KMeans(
        n_clusters=n_clusters, n_init=_int_param(n_init, "n_init", 1), random_state=seed
    ).fit(X)
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


DistanceSpec = str | Callable[[np.ndarray, np.ndarray], float]


class _DistanceModel:
    """Cluster-to-cluster distances inside each group, cheap to update after a boundary move."""

    def __init__(self, X, clusters, value_idx, n_clusters, n_values, metric: DistanceSpec):
        self.metric = metric
        self.X = X
        self.clusters = clusters
        self.value_idx = value_idx
        self.C = n_clusters
        if metric == "centroid_js":
            # feature sums per (value, cluster): aggregates of a group are sums over its values
            S = np.zeros((n_values, n_clusters, X.shape[1]))
            np.add.at(S, (value_idx, clusters), X)
            self.S = S
        elif metric == "mean_pairwise_js":
            if X.shape[0] > 20000:
                raise ValueError(
                    f"distance='mean_pairwise_js' needs a {X.shape[0]}x{X.shape[0]} matrix; "
                    "use 'centroid_js' for populations above 20,000 users"
                )
            self.J = pairwise_js_divergence(X)
        elif callable(metric):
            pass
        else:
            raise ValueError(
                f"distance must be 'centroid_js', 'mean_pairwise_js' or a callable; got {metric!r}"
            )

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
        for a in present:
            for b in present:
                out[a, b] = float(self.metric(self.X[users[cl == a]], self.X[users[cl == b]]))
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

    Returns
    -------
    ndarray, shape (K, C, C)
        NaN where a cluster has no user in the group.
    """
    X = _as_features(X)
    clusters = np.asarray(clusters, dtype=np.int64)
    idx = generalization.domain.index(_as_private(y, X.shape[0]))
    C = int(clusters.max()) + 1
    model = _DistanceModel(X, clusters, idx, C, len(generalization.domain.values), distance)
    return model.all_groups(generalization.labels)


# ------------------------------------------------------------------------------------------------
# leakage (Theorem 1)


def _cluster_value_counts(
    clusters: np.ndarray, value_idx: np.ndarray, C: int, V: int
) -> np.ndarray:
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
    """
    joint = hybrid_joint(counts_cy, labels, mappings)
    return mutual_information(joint.reshape(joint.shape[0], -1))


def expected_distance(
    counts_cy: np.ndarray,
    labels: np.ndarray,
    mappings: np.ndarray,
    distances: np.ndarray,
    scope: str = "global",
) -> float | np.ndarray:
    """Utility loss of Eq. (16): the expected distance between a user's cluster and the published one.

    With ``scope="global"`` the expectation runs over all users; with ``"group"`` an array of the
    per-group expectations is returned. Entries of ``mappings`` that put mass on a cluster absent
    from the group (NaN distance) make the loss ``inf``.
    """
    counts_cy = np.asarray(counts_cy, dtype=np.float64)
    K = mappings.shape[0]
    C = counts_cy.shape[0]
    pcg = np.zeros((K, C))
    for g in range(K):
        pcg[g] = counts_cy[:, labels == g].sum(axis=1)
    weighted = pcg[:, :, None] * mappings
    used = weighted > 0
    d = np.where(used, distances, 0.0)
    if np.isnan(d).any():
        return math.inf if scope == "global" else np.full(K, math.inf)
    per_group = (weighted * d).sum(axis=(1, 2))
    if scope == "global":
        return float(per_group.sum() / pcg.sum())
    return per_group / np.maximum(pcg.sum(axis=1), 1e-300)


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
    cheapest mapping ``N`` (:func:`_nearest_mappings`, within budget whenever the O-problem is
    feasible) and ``lam = (budget - Q(N)) / (Q(O) - Q(N))`` meets the budget exactly; with
    ``scope="group"`` each group over its budget gets its own ``lam``. Mappings within budget are
    returned unchanged.

    Returns
    -------
    mappings : ndarray (K, C, C)
    excess : float
        By how much the largest expected distance exceeded the budget before the repair (0 when
        it did not).
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
        lam = np.where(over if scope == "group" else True, lam * shrink, lam)
    return repaired, excess


# ------------------------------------------------------------------------------------------------
# O-problem (Algorithm 2)


def _solver_plan(solver: str) -> list[tuple[str, dict]]:
    """The requested solver first; if it stops short of an optimal status, fallbacks in order.

    Clarabel sometimes ends 'optimal_inaccurate' or fails numerically on nearly degenerate
    instances (budgets just short of perfect privacy, clusters of one user); tighter
    regularization or switching off its equilibration settles them, and SCS without Anderson
    acceleration is the last resort. Every fallback must still reach the 'optimal' status."""
    if solver not in ("CLARABEL", "SCS"):
        raise ValueError(f"solver must be 'CLARABEL' or 'SCS'; got {solver!r}")
    plan = [(solver, {})]
    if solver == "CLARABEL":
        plan.append(("CLARABEL", {"max_iter": 500, "static_regularization_constant": 1e-7}))
        plan.append(("CLARABEL", {"max_iter": 500, "equilibrate_enable": False}))
    plan.append(("SCS", {"eps": 1e-9, "max_iters": 200_000}))
    plan.append(("SCS", {"eps": 1e-7, "max_iters": 500_000, "acceleration_lookback": 0}))
    return plan


def _min_budget(pcg: np.ndarray, distances: np.ndarray, scope: str) -> float | np.ndarray:
    K = pcg.shape[0]
    per_group = np.zeros(K)
    for g in range(K):
        present = pcg[g] > 0
        if present.any():
            D = distances[g][np.ix_(present, present)]
            per_group[g] = (pcg[g][present] * D.min(axis=1)).sum()
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
    scope : {"global", "group"}
        Bound the expectation over all users, or each group's expectation.
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
    """
    budget = _float_param(budget, "budget")
    if scope not in ("global", "group"):
        raise ValueError(f"scope must be 'global' or 'group'; got {scope!r}")
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
        raise ValueError(
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


# ------------------------------------------------------------------------------------------------
# G-problem (Algorithm 3)


def _candidate_moves(labels: np.ndarray, adjacency: sp.csr_matrix) -> list[tuple[int, int]]:
    """All (value, target group) pairs that move a boundary value into a neighbouring group."""
    coo = adjacency.tocoo()
    moves = set()
    for a, b in zip(coo.row, coo.col, strict=True):
        if labels[a] != labels[b]:
            moves.add((int(a), int(labels[b])))
    return sorted(moves)


def improve_generalization(
    generalization: Generalization,
    counts_cy: np.ndarray,
    mappings: np.ndarray,
    distance_model: _DistanceModel,
    k: int,
    alpha: int,
    l: int,  # noqa: E741
    beta: int,
    rng: np.random.Generator,
    *,
    scope: str = "global",
    max_moves: int = 100,
) -> tuple[Generalization, list[dict]]:
    """Solve the G-problem (Eqs. 19-22) by stochastic privacy-utility boosting (Algorithm 3).

    Candidates move one boundary value of a group into a neighbouring group (for ages: shift
    the boundary between two adjacent age stages by one year). Candidates are visited in a random
    order; one is accepted only if the constraints still hold (k, alpha, l, beta, contiguity) and
    both the leakage and the utility loss fall under the fixed obfuscation (line 7). After an
    acceptance the candidate list is rebuilt; the search stops when a full pass accepts nothing
    (no further improvement, line 10) or after ``max_moves`` acceptances.

    Returns the improved generalization and one record per accepted move.
    """
    domain = generalization.domain
    labels = generalization.labels.copy()
    value_counts = counts_cy.sum(axis=0)
    K = mappings.shape[0]
    distances = distance_model.all_groups(labels)
    I0 = hybrid_leakage(counts_cy, labels, mappings)
    Q0 = _scalar_loss(counts_cy, labels, mappings, distances, scope)
    records = []
    accepted = 0
    while accepted < max_moves:
        moves = _candidate_moves(labels, domain.adjacency)
        order = rng.permutation(len(moves))
        found = False
        for i in order:
            v, target = moves[i]
            source = int(labels[v])
            cand = labels.copy()
            cand[v] = target
            if np.bincount(cand, minlength=K).min() == 0:
                continue
            if check_generalization(cand, value_counts, domain, k, alpha, l, beta):
                continue
            cand_d = distances.copy()
            cand_d[source] = distance_model.group(cand == source)
            cand_d[target] = distance_model.group(cand == target)
            Qc = _scalar_loss(counts_cy, cand, mappings, cand_d, scope)
            if not Qc < Q0:
                continue
            Ic = hybrid_leakage(counts_cy, cand, mappings)
            if Ic < I0:
                labels, distances, I0, Q0 = cand, cand_d, Ic, Qc
                records.append(
                    {
                        "value": int(domain.values[v]),
                        "from": source,
                        "to": target,
                        "leakage": Ic,
                        "utility_loss": Qc,
                    }
                )
                accepted += 1
                found = True
                break
        if not found:
            break
    return Generalization(domain=domain, labels=labels), records


def _scalar_loss(counts_cy, labels, mappings, distances, scope):
    loss = expected_distance(counts_cy, labels, mappings, distances, scope)
    return float(np.max(loss)) if scope == "group" else float(loss)


# ------------------------------------------------------------------------------------------------
# releases


@dataclass(frozen=True)
class Release:
    """One published data set.

    Attributes
    ----------
    features : ndarray, shape (n, m)
        Published (obfuscated) features: row ``u`` is the feature row of user ``source[u]``.
    groups : ndarray, shape (n,)
        Published generalized value (group index) of each user.
    source : ndarray, shape (n,)
        Index of the user whose features were published for each user.
    """

    features: np.ndarray
    groups: np.ndarray
    source: np.ndarray


def _draw_categorical(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row of a row-stochastic matrix (inverse CDF, vectorized).

    Round-off in the cumulative sums can never select a zero-probability entry: the CDF is set to
    infinity from the last positive entry of each row on.
    """
    n, C = probs.shape
    cdf = np.cumsum(probs, axis=1)
    last = C - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
    cdf[np.arange(C)[None, :] >= last[:, None]] = np.inf
    u = rng.random(n)
    return (cdf < u[:, None]).sum(axis=1)


def _cell_members(clusters: np.ndarray, groups: np.ndarray, C: int, K: int):
    cell = groups * C + clusters
    order = np.argsort(cell, kind="stable")
    sizes = np.bincount(cell, minlength=K * C)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return order, sizes, starts


def sample_cluster_release(
    X: np.ndarray,
    clusters: np.ndarray,
    groups: np.ndarray,
    mappings: np.ndarray,
    rng: np.random.Generator,
) -> Release:
    """Publish one data set (Sect. III-F): per user, draw ``c^ ~ O(.|c, y~)``, then a uniformly
    random user of cluster ``c^`` with the same ``y~``, and publish that user's features."""
    K, C, _ = mappings.shape
    order, sizes, starts = _cell_members(clusters, groups, C, K)
    probs = mappings[groups, clusters]
    c_hat = _draw_categorical(probs, rng)
    cell = groups * C + c_hat
    if (sizes[cell] == 0).any():
        raise RuntimeError(
            "an obfuscation mapping sends mass to a cluster with no user in the group"
        )
    pick = np.floor(rng.random(len(groups)) * sizes[cell]).astype(np.int64)
    source = order[starts[cell] + pick]
    return Release(features=X[source], groups=groups.copy(), source=source)


# ------------------------------------------------------------------------------------------------
# HyObscure (Algorithm 4) and variants


class HyObscure:
    """Hybrid obscuring (Algorithm 4): I-problem, then O- and G-problems cross-iterated.

    Parameters
    ----------
    n_groups : int
        Requested number of generalized values ``|Y~|`` (Table II: 4); the I-problem may add groups
        when stuck (Algorithm 1, line 22).
    k, alpha : int
        (k, alpha)-uniqueness: every group holds between ``k`` and ``alpha`` users.
    l, beta : int
        (l, beta)-variety: every group holds between ``l`` and ``beta`` distinct exact values.
    budget : float
        Obfuscation budget ``Delta Q`` of Eq. (16), bits of Jensen-Shannon divergence.
    n_clusters : int
        Number of user clusters ``|C|`` (Table II: 10 MovieLens, 8 Foursquare).
    domain : {"interval", "grid"}
        Ages (intervals) or home cells (contiguous areas of a grid ``grid_width`` cells wide).
    distance : {"centroid_js", "mean_pairwise_js"} or callable
        Cluster distance (see the module notes).
    budget_scope : {"global", "group"}
    threshold : float
        Stop when the leakage improves by less than this between iterations (paper: 1e-4).
    max_iter : int
        Maximum number of O/G cross-iterations.
    max_moves : int
        Maximum accepted boundary moves per G-problem.
    n_init : int
        Random restarts of the I-problem per number of groups.
    solver : str
        cvxpy solver for the O-problem.

    Attributes
    ----------
    generalization_ : Generalization
    initial_generalization_ : Generalization
    clusters_ : ndarray (n,)
    groups_ : ndarray (n,)
        Generalized value of each user.
    mappings_ : ndarray (K, C, C)
    leakage_ : float
        ``I(Y; C^, Y~)`` of the final pair, bits.
    utility_loss_ : float
    history_ : list of dict
        One record per phase: ``iteration``, ``phase`` ("O" or "G"), ``leakage``, ``utility_loss``.
    """

    _do_o = True
    _do_g = True

    def __init__(
        self,
        n_groups: int = 4,
        k: int = 100,
        alpha: int = 200,
        l: int = 4,  # noqa: E741
        beta: int = 8,
        budget: float = 0.1,
        n_clusters: int = 10,
        *,
        domain: str = "interval",
        grid_width: int = 60,
        distance: DistanceSpec = "centroid_js",
        budget_scope: str = "global",
        threshold: float = 1e-4,
        max_iter: int = 20,
        max_moves: int = 100,
        n_init: int = 10,
        solver: str = "CLARABEL",
    ):
        self.k, self.alpha, self.l, self.beta = _check_constraints(k, alpha, l, beta)
        self.n_groups = _int_param(n_groups, "n_groups", 1)
        self.budget = _float_param(budget, "budget")
        self.n_clusters = _int_param(n_clusters, "n_clusters", 1)
        if domain not in ("interval", "grid"):
            raise ValueError(f"domain must be 'interval' or 'grid'; got {domain!r}")
        self.domain = domain
        self.grid_width = _int_param(grid_width, "grid_width", 1)
        if not (callable(distance) or distance in ("centroid_js", "mean_pairwise_js")):
            raise ValueError(
                f"distance must be 'centroid_js', 'mean_pairwise_js' or a callable; got {distance!r}"
            )
        self.distance = distance
        if budget_scope not in ("global", "group"):
            raise ValueError(f"budget_scope must be 'global' or 'group'; got {budget_scope!r}")
        self.budget_scope = budget_scope
        self.threshold = _float_param(threshold, "threshold")
        self.max_iter = _int_param(max_iter, "max_iter", 1)
        self.max_moves = _int_param(max_moves, "max_moves", 0)
        self.n_init = _int_param(n_init, "n_init", 1)
        self.solver = _check_solver(solver)

    # -- fitting ---------------------------------------------------------------------------------
    def _initial_generalization(self, y, rng):
        """G^0 of Algorithm 1 under this estimator's (k, alpha) and (l, beta) constraints."""
        domain = private_domain(y, self.domain, self.grid_width)
        return initial_generalization(
            y, domain, self.n_groups, self.k, self.alpha, self.l, self.beta, rng, n_init=self.n_init
        )

    def _prepare(self, X, y, clusters, generalization, rng):
        X = _as_features(X)
        y = _as_private(y, X.shape[0])
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        if clusters is None:
            clusters = cluster_users(X, self.n_clusters, rng)
        else:
            clusters = _check_clusters(clusters, X.shape[0])
        if generalization is None:
            generalization = self._initial_generalization(y, rng)
        elif not isinstance(generalization, Generalization):
            raise TypeError(
                f"generalization must be a Generalization; got {type(generalization).__name__}"
            )
        domain = generalization.domain
        value_idx = domain.index(y)
        C = max(int(clusters.max()) + 1, 1)
        counts = _cluster_value_counts(clusters, value_idx, C, len(domain.values))
        dist_model = _DistanceModel(X, clusters, value_idx, C, len(domain.values), self.distance)
        self.X_ = X
        self.y_ = y
        self.clusters_ = clusters
        self.initial_generalization_ = generalization
        self.counts_ = counts
        self._value_idx = value_idx
        self._dist_model = dist_model
        return X, y, clusters, generalization, counts, dist_model

    def fit(
        self,
        X: Any,
        y: Any,
        *,
        rng: np.random.Generator,
        clusters: Any = None,
        generalization: Generalization | None = None,
        mappings: np.ndarray | None = None,
        progress: bool = False,
    ) -> HyObscure:
        """Learn the generalization and the obfuscation.

        Parameters
        ----------
        X : array_like, shape (n, m)
            Insensitive features (non-negative).
        y : array_like of int, shape (n,)
            Exact private values.
        rng : numpy.random.Generator
            Drives clustering, the I-problem restarts and the G-problem's move order.
        clusters : array_like, optional
            Precomputed user clusters (otherwise k-means with ``n_clusters``).
        generalization : Generalization, optional
            Start from this generalization instead of solving the I-problem.
        mappings : ndarray (K, C, C), optional
            Fixed obfuscation (used by :class:`YGen`; the O-problem is then skipped).
        progress : bool
            Show a progress bar over the cross-iterations.
        """
        X, y, clusters, gen, counts, dist_model = self._prepare(X, y, clusters, generalization, rng)
        history: list[dict] = []
        iterator = range(self.max_iter)
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, desc="HyObscure")
        fixed = mappings is not None
        if fixed:
            C = counts.shape[0]
            mappings = _check_mappings(mappings, (gen.n_groups, C, C))
        previous = math.inf
        for it in iterator:
            if self._do_o and not fixed:
                distances = dist_model.all_groups(gen.labels)
                mappings, _ = solve_obfuscation(
                    counts,
                    gen.labels,
                    distances,
                    self.budget,
                    scope=self.budget_scope,
                    solver=self.solver,
                )
            leak = hybrid_leakage(counts, gen.labels, mappings)
            loss = _scalar_loss(
                counts, gen.labels, mappings, dist_model.all_groups(gen.labels), self.budget_scope
            )
            history.append({"iteration": it, "phase": "O", "leakage": leak, "utility_loss": loss})
            if previous - leak < self.threshold or not self._do_g:
                break
            previous = leak
            gen, moves = improve_generalization(
                gen,
                counts,
                mappings,
                dist_model,
                self.k,
                self.alpha,
                self.l,
                self.beta,
                rng,
                scope=self.budget_scope,
                max_moves=self.max_moves,
            )
            history.extend(
                {
                    "iteration": it,
                    "phase": "move",
                    "leakage": rec["leakage"],
                    "utility_loss": rec["utility_loss"],
                }
                for rec in moves
            )
            leak_g = hybrid_leakage(counts, gen.labels, mappings)
            loss_g = _scalar_loss(
                counts, gen.labels, mappings, dist_model.all_groups(gen.labels), self.budget_scope
            )
            history.append(
                {
                    "iteration": it,
                    "phase": "G",
                    "leakage": leak_g,
                    "utility_loss": loss_g,
                    "moves": len(moves),
                }
            )
            if fixed or not moves:
                break
        self.generalization_ = gen
        self.mappings_ = self._final_mappings(counts, gen.labels, mappings)
        self.groups_ = gen.labels[self._value_idx]
        self.leakage_ = hybrid_leakage(counts, gen.labels, self.mappings_)
        self.utility_loss_ = _scalar_loss(
            counts, gen.labels, self.mappings_, dist_model.all_groups(gen.labels), self.budget_scope
        )
        self.history_ = history
        enforce(self.guarantee_checks())
        return self

    def _final_mappings(self, counts, labels, mappings):
        """The mappings to release. The O-problem's solution already meets the budget exactly
        (:func:`repair_budget`) and accepted G-moves only lower the utility loss; given mappings
        are released as they are, so the budget check raises if they break it."""
        return mappings

    def _budget_terms(self):
        """Distances and scope in which the budget is declared: Eq. (16) inside the groups."""
        return self._dist_model.all_groups(self.generalization_.labels), self.budget_scope

    # -- guarantees ------------------------------------------------------------------------------
    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """The declared bounds measured on the fitted generalization and obfuscation.

        * ``utility budget``: the expected distance of Eq. (16) of :attr:`mappings_` on the
          fitted groups, at most ``budget`` (over all users, or the worst group with
          ``budget_scope="group"``);
        * ``k-uniqueness`` / ``alpha-uniqueness``: the fewest / most users in a group
          (Definition 2), at least ``k`` / at most ``alpha``;
        * ``l-variety`` / ``beta-variety``: the fewest / most exact values in a group
          (Definition 3), at least ``l`` / at most ``beta``;
        * ``contiguity``: the most connected pieces of a group, at most 1.

        The bounds are the ones this estimator was constructed with, whatever generalization
        ``fit`` started from.
        """
        if not hasattr(self, "mappings_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        name = type(self).__name__
        gen = self.generalization_
        distances, scope = self._budget_terms()
        loss = expected_distance(self.counts_, gen.labels, self.mappings_, distances, scope)
        if scope == "group":
            worst = int(np.argmax(loss))
            measured, where = float(loss[worst]), f"group {worst}"
        else:
            measured, where = float(loss), "all users"
        checks = [GuaranteeCheck(name, "utility budget", self.budget, measured, "at_most", where)]
        labels = gen.labels
        K = gen.n_groups
        users = np.bincount(labels, weights=self.counts_.sum(axis=0), minlength=K)
        nvals = np.bincount(labels, minlength=K)
        pieces = np.zeros(K, dtype=np.int64)
        for g in range(K):
            members = np.flatnonzero(labels == g)
            if len(members):
                sub = gen.domain.adjacency[members][:, members]
                pieces[g] = connected_components(sub, directed=False)[0]
        for guarantee, values, bound, sense in (
            ("k-uniqueness (users per group)", users, self.k, "at_least"),
            ("alpha-uniqueness (users per group)", users, self.alpha, "at_most"),
            ("l-variety (values per group)", nvals, self.l, "at_least"),
            ("beta-variety (values per group)", nvals, self.beta, "at_most"),
            ("contiguity (pieces per group)", pieces, 1, "at_most"),
        ):
            g = int(np.argmin(values) if sense == "at_least" else np.argmax(values))
            checks.append(
                GuaranteeCheck(name, guarantee, bound, float(values[g]), sense, f"group {g}")
            )
        return checks

    # -- releasing -------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator) -> Release:
        """Publish one data set with the fitted functions (Algorithm 4, line 6)."""
        if not hasattr(self, "mappings_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        # the bounds are properties of the fitted channel: a broken one is never sampled from
        enforce(self.guarantee_checks())
        return sample_cluster_release(self.X_, self.clusters_, self.groups_, self.mappings_, rng)


class XObf(HyObscure):
    """Variant XObf: the initial generalization ``G^0`` and one generalization-aware obfuscation
    (O-problem), without cross-iteration."""

    _do_g = False


class YGen(HyObscure):
    """Variant YGen: a given obfuscation (by default PrivCheck's) and the stochastic
    privacy-utility boosting of the generalization (G-problem), without re-optimizing it.

    ``fit`` takes ``mappings`` (K, C, C); without them PrivCheck's mapping is learned first.

    The budget is PrivCheck's: the expected distance between a user's cluster and the published
    one over all users, with distances between the clusters' aggregates over the whole population
    (blind to the groups), not Eq. (16)'s distances inside the groups; :attr:`utility_loss_`
    still reports the latter, for comparison with HyObscure. The G-problem's moves keep Eq. (16)'s
    loss from rising, not PrivCheck's, so after them PrivCheck's mapping is brought back within
    its budget by :func:`repair_budget`; given ``mappings`` are released as they are and must
    meet the budget themselves.
    """

    def _blind_distances(self, K: int) -> np.ndarray:
        V = len(self.initial_generalization_.domain.values)
        D = self._dist_model.group(np.ones(V, dtype=bool))
        return np.broadcast_to(D, (K, *D.shape)).copy()

    def _budget_terms(self):
        return self._blind_distances(self.generalization_.n_groups), "global"

    def _final_mappings(self, counts, labels, mappings):
        self.budget_excess_ = 0.0
        if not self._from_privcheck:
            return mappings
        D = self._blind_distances(mappings.shape[0])
        repaired, self.budget_excess_ = repair_budget(
            counts, labels, mappings, D, self.budget, "global"
        )
        return repaired

    def fit(self, X, y, *, rng, clusters=None, generalization=None, mappings=None, progress=False):
        self._from_privcheck = mappings is None
        if mappings is None:
            from ppdp.mechanisms.obfuscation import PrivCheck

            X_arr = _as_features(X)
            if clusters is None:
                clusters = cluster_users(X_arr, self.n_clusters, rng)
            if generalization is None:
                generalization = self._initial_generalization(y, rng)
            pc = PrivCheck(budget=self.budget, distance=self.distance, solver=self.solver)
            pc.fit(X_arr, y, generalization=generalization, clusters=clusters)
            mappings = pc.mappings_
        return super().fit(
            X,
            y,
            rng=rng,
            clusters=clusters,
            generalization=generalization,
            mappings=mappings,
            progress=progress,
        )
