"""Sparse privacy-preserving mappings (SPPM), the exact optimum and the exponential mechanism.

Salamatian, Fawaz, Kveton and Taft, "SPPM: Sparse Privacy Preserving Mappings", UAI 2014.

The problem (Eq. 1-2 of the paper): given a joint distribution ``p_ab`` of a private attribute
``A`` (rows) and a public profile ``B`` (columns), a distortion ``d(b, b^)`` and a budget ``delta``,
find the privacy-preserving mapping ``p(b^ | b)`` that minimizes the leakage ``I(A; B^)`` subject to
``E[d(B, B^)] <= delta``.

Conventions
-----------
* ``p_ab`` has shape ``(|A|, |B|)`` and sums to one.
* A mapping has shape ``(|B|, |B^|)``; row ``b`` is the distribution ``p(. | b)``. The paper stores
  the transpose (``x_ij = p(b^_i | b_j)``, one column per ``b``); every formula here is the paper's
  with rows and columns swapped.
* A distortion is a :class:`Distortion` (dense, squared Euclidean or Hamming) or any array of shape
  ``(|B|, |B^|)``. The structured ones compute blocks on demand, so no ``|B| x |B^|`` array is ever
  materialized by :class:`SPPM`.
* Leakage is in bits and always computed by :func:`ppdp.infotheory.leakage`.
* Every fitted mapping meets the budget exactly: solver residue is removed by
  :func:`repair_distortion`, and ``fit`` and ``sample`` check ``E[d(B, B^)] <= delta`` on the
  mapping (``guarantee_checks``), raising :class:`~ppdp.guarantees.GuaranteeViolation` otherwise.

Three solvers are provided:

:class:`SPPM`
    Algorithms 1 and 2: Frank-Wolfe over the feasible set, each linear step (Eq. 3) solved by column
    generation (the Dantzig-Wolfe scheme of Algorithm 2) on a growing set of active variables.
:class:`ExactMapping`
    The convex program (1) solved with cvxpy (relative-entropy cones, Clarabel or SCS), the
    reference for SPPM's quality on small alphabets.
:class:`ExponentialMechanism`
    ``p(b^ | b) ~ exp(-beta d(b, b^))``, which is ``2 beta d_max``-locally differentially private;
    ``beta`` is set by bisection so that the expected distortion meets the budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ppdp import infotheory
from ppdp.guarantees import GuaranteeCheck, enforce

__all__ = [
    "SPPM",
    "DenseDistortion",
    "Distortion",
    "ExactMapping",
    "ExponentialMechanism",
    "HammingDistortion",
    "LinearStep",
    "SquaredDistortion",
    "as_distortion",
    "expected_distortion",
    "min_feasible_budget",
    "nearest_point_profile",
    "repair_distortion",
    "sample_release",
    "solve_linear_step",
    "solve_linear_step_full",
    "synthetic_problem",
    "validate_problem",
]

_PROB_ATOL = 1e-9
_CHUNK_ENTRIES = 1 << 22  # entries of one pricing block (32 MiB of float64)
_SIMPLEX_STRATEGY = 4  # HiGHS primal simplex
_FACTOR_SLACK = 1e-7  # re-check margin for factored pricing (scaled units, max |c| = 1)
_PRICE_ROWS = 128  # rows per chunk of the factored pricing (they share one set of column blocks)
_PRICE_BLOCK = 32  # columns per block of the pricing's lower bounds


# --------------------------------------------------------------------------------------------
# Distortions
# --------------------------------------------------------------------------------------------


def _check_columns_per_row(columns_per_row) -> None:
    """Columns added per row and pricing round: an integer >= 1."""
    if (
        isinstance(columns_per_row, bool)
        or not isinstance(columns_per_row, int | np.integer)
        or columns_per_row < 1
    ):
        raise ValueError(f"columns_per_row must be an integer >= 1, got {columns_per_row!r}")


def _is_real(value) -> bool:
    """A real number: Python or numpy int/float scalars (booleans are not numbers here)."""
    return not isinstance(value, bool | np.bool_) and isinstance(
        value, int | float | np.integer | np.floating
    )


def _check_delta(delta) -> None:
    """The distortion budget of Eq. (2): a finite number >= 0."""
    if (
        isinstance(delta, bool)
        or not isinstance(delta, int | float | np.integer | np.floating)
        or not (np.isfinite(delta) and delta >= 0)
    ):
        raise ValueError(f"delta must be a finite number >= 0, got {delta!r}")


class Distortion:
    """A distortion ``d(b, b^)`` between ``n_rows`` profiles and ``n_cols`` released values.

    Subclasses implement :meth:`block`; everything else is derived from it in chunks.
    """

    shape: tuple[int, int]

    def block(self, rows: np.ndarray) -> np.ndarray:
        """Dense ``d[rows, :]`` as a float64 array of shape ``(len(rows), n_cols)``."""
        raise NotImplementedError

    def entries(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``d[rows[k], cols[k]]`` for paired index arrays."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        out = np.empty(rows.shape[0])
        for r in np.unique(rows):
            sel = rows == r
            out[sel] = self.block(np.array([r]))[0, cols[sel]]
        return out

    def factors(self):
        """Low-rank factors ``(L, R)`` with ``d = L @ R`` exactly in exact arithmetic, or ``None``."""
        return None

    def chunks(self) -> list[np.ndarray]:
        """Row index chunks whose blocks hold about ``_CHUNK_ENTRIES`` entries."""
        n, m = self.shape
        step = max(1, _CHUNK_ENTRIES // max(m, 1))
        return [np.arange(s, min(n, s + step)) for s in range(0, n, step)]

    def row_min(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row, the column of smallest distortion (first on ties) and that distortion."""
        arg = np.empty(self.shape[0], dtype=np.int64)
        val = np.empty(self.shape[0])
        for rows in self.chunks():
            blk = self.block(rows)
            a = blk.argmin(axis=1)
            arg[rows] = a
            val[rows] = blk[np.arange(rows.size), a]
        return arg, val

    def max(self) -> float:
        """The largest distortion ``d_max``."""
        return float(max(self.block(rows).max() for rows in self.chunks()))

    def min(self) -> float:
        return float(min(self.block(rows).min() for rows in self.chunks()))

    def toarray(self) -> np.ndarray:
        return np.vstack([self.block(rows) for rows in self.chunks()])


class DenseDistortion(Distortion):
    """A distortion given as a dense ``(|B|, |B^|)`` array."""

    def __init__(self, matrix):
        arr = np.asarray(matrix, dtype=np.float64)
        if arr.ndim != 2:
            raise ValueError(f"distortion must be a 2-D array, got shape {arr.shape}")
        self.matrix = arr
        self.shape = arr.shape

    def block(self, rows):
        return self.matrix[rows]

    def entries(self, rows, cols):
        return self.matrix[np.asarray(rows), np.asarray(cols)]

    def max(self):
        return float(self.matrix.max())

    def min(self):
        return float(self.matrix.min())

    def toarray(self):
        return self.matrix


class SquaredDistortion(Distortion):
    """Squared Euclidean distortion ``||x_b - x_b^||^2`` between points (the synthetic data's).

    Parameters
    ----------
    points : array of shape (n,) or (n, k)
        Coordinates of the profiles; released values range over the same points.
    """

    def __init__(self, points):
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim == 1:
            pts = pts[:, None]
        if pts.ndim != 2 or not np.all(np.isfinite(pts)):
            raise ValueError("points must be a finite array of shape (n,) or (n, k)")
        self.points = pts
        self._sq = (pts**2).sum(axis=1)
        self.shape = (pts.shape[0], pts.shape[0])

    def block(self, rows):
        p = self.points
        if p.shape[1] == 1:
            diff = p[rows, 0][:, None] - p[None, :, 0]
            return diff * diff
        out = self._sq[rows][:, None] + self._sq[None, :] - 2.0 * (p[rows] @ p.T)
        return np.maximum(out, 0.0)

    def entries(self, rows, cols):
        diff = self.points[np.asarray(rows)] - self.points[np.asarray(cols)]
        return (diff * diff).sum(axis=1)

    def factors(self):
        if getattr(self, "_factors", None) is None:
            self._factors = self._make_factors()
        return self._factors

    def _make_factors(self):
        # ||x - y||^2 = |x|^2 + |y|^2 - 2 x.y on centred points (less cancellation)
        c = self.points - self.points.mean(axis=0)
        sq = (c**2).sum(axis=1)
        one = np.ones((c.shape[0], 1))
        return np.hstack([sq[:, None], -2.0 * c, one]), np.vstack([one.T, c.T, sq[None, :]])

    def row_min(self):
        n = self.shape[0]
        return np.arange(n), np.zeros(n)

    def max(self):
        p = self.points
        if p.shape[1] == 1:
            return float((p.max() - p.min()) ** 2)
        return super().max()

    def min(self):
        return 0.0


class HammingDistortion(Distortion):
    """Hamming distortion: the number of coordinates in which two categorical vectors differ.

    Parameters
    ----------
    codes : integer array of shape (n, k)
        One row per profile (the alphabet); released values range over the same rows.
    normalize : bool, default False
        Divide by ``k`` (the fraction of differing coordinates).
    """

    def __init__(self, codes, normalize: bool = False):
        self.scale = 1.0 / np.asarray(codes).shape[-1] if normalize else 1.0
        self.normalize = bool(normalize)
        arr = np.asarray(codes)
        if arr.ndim != 2 or arr.shape[0] == 0:
            raise ValueError(f"codes must be a non-empty 2-D array, got shape {arr.shape}")
        if not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"codes must be integers, got dtype {arr.dtype}")
        self.codes = arr.astype(np.int64)
        self.shape = (arr.shape[0], arr.shape[0])
        self._binary = bool(np.isin(arr, (0, 1)).all()) and arr.shape[1] <= 64
        if self._binary:
            weights = np.left_shift(np.uint64(1), np.arange(arr.shape[1], dtype=np.uint64))
            self._packed = (self.codes.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)

    def block(self, rows):
        if self._binary:
            x = np.bitwise_xor(self._packed[rows][:, None], self._packed[None, :])
            return np.bitwise_count(x).astype(np.float64) * self.scale
        c = self.codes
        out = np.zeros((np.asarray(rows).size, c.shape[0]))
        for k in range(c.shape[1]):
            out += c[rows, k][:, None] != c[None, :, k]
        return out * self.scale

    def entries(self, rows, cols):
        diff = (self.codes[np.asarray(rows)] != self.codes[np.asarray(cols)]).sum(axis=1)
        return diff.astype(float) * self.scale

    def factors(self):
        if getattr(self, "_factors", None) is None:
            self._factors = self._make_factors()
        return self._factors

    def _make_factors(self):
        c = self.codes
        one = np.ones((c.shape[0], 1))
        if self._binary:
            # d(u, v) = |u| + |v| - 2 u.v: small integers, exact
            u = c.astype(float)
            w = u.sum(axis=1, keepdims=True)
            return np.hstack([w, -2.0 * u, one]) * self.scale, np.vstack([one.T, u.T, w.T])
        # d(u, v) = k - sum_j [u_j = v_j] = k - onehot(u) . onehot(v): small integers, exact
        blocks = [
            np.equal.outer(c[:, j], np.unique(c[:, j])).astype(float) for j in range(c.shape[1])
        ]
        onehot = np.hstack(blocks)
        return np.hstack([c.shape[1] * one, -onehot]) * self.scale, np.vstack([one.T, onehot.T])

    def row_min(self):
        n = self.shape[0]
        return np.arange(n), np.zeros(n)

    def max(self):
        return super().max()

    def min(self):
        return 0.0


def as_distortion(distortion) -> Distortion:
    """Wrap an array as :class:`DenseDistortion`; pass :class:`Distortion` objects through."""
    if isinstance(distortion, Distortion):
        return distortion
    if sp.issparse(distortion):
        raise TypeError("distortion must be dense or a Distortion object, got a sparse matrix")
    try:
        return DenseDistortion(distortion)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"distortion must be an array of shape (|B|, |B^|) or a Distortion, got {type(distortion).__name__}"
        ) from exc


# --------------------------------------------------------------------------------------------
# Problem validation
# --------------------------------------------------------------------------------------------


def validate_problem(p_ab, distortion, delta=None, *, check_feasible: bool = True):
    """Check the inputs of problem (1) and return them in canonical form.

    Parameters
    ----------
    p_ab : array of shape (|A|, |B|)
        Joint distribution: finite, non-negative, summing to one (tolerance 1e-9).
    distortion : array or Distortion of shape (|B|, |B^|)
        Finite and non-negative.
    delta : float or None
        Distortion budget, ``>= 0``. When ``check_feasible`` and ``d(b, b) > 0`` is possible, a
        budget below the smallest achievable expected distortion
        ``sum_b p(b) min_b^ d(b, b^)`` raises ``ValueError`` naming that smallest budget.

    Returns
    -------
    p_ab : ndarray, distortion : Distortion, delta : float or None
    """
    if sp.issparse(p_ab):
        p_ab = p_ab.toarray()
    try:
        p = np.asarray(p_ab, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"p_ab must be a numeric array of shape (|A|, |B|), got {type(p_ab).__name__}"
        ) from exc
    if p.ndim != 2 or p.shape[0] < 1 or p.shape[1] < 1:
        raise ValueError(f"p_ab must be a 2-D array of shape (|A|, |B|), got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError("p_ab must be finite; it holds NaN or infinite entries")
    if p.min() < 0:
        raise ValueError(f"p_ab must be non-negative; its smallest entry is {p.min():.6g}")
    total = p.sum()
    if abs(total - 1.0) > _PROB_ATOL:
        raise ValueError(
            f"p_ab must be a probability distribution summing to 1, it sums to {total:.12g}"
        )
    dist = as_distortion(distortion)
    if dist.shape[0] != p.shape[1]:
        raise ValueError(
            f"distortion has shape {dist.shape}; its first dimension must equal |B| = {p.shape[1]} "
            "(the number of columns of p_ab)"
        )
    dmin = dist.min()
    if not math.isfinite(dmin) or not math.isfinite(dist.max()):
        raise ValueError("distortion must be finite")
    if dmin < 0:
        raise ValueError(f"distortion must be non-negative; its smallest entry is {dmin:.6g}")
    if delta is not None:
        if isinstance(delta, bool) or not isinstance(delta, int | float | np.integer | np.floating):
            raise TypeError(f"delta must be a real number, got {type(delta).__name__}")
        delta = float(delta)
        if not math.isfinite(delta) or delta < 0:
            raise ValueError(f"delta must be a finite number >= 0, got {delta}")
        if check_feasible:
            smallest = min_feasible_budget(p, dist)
            if delta < smallest * (1 - 1e-12) - 1e-15:
                raise ValueError(
                    f"delta = {delta:.6g} is infeasible: no mapping has expected distortion below "
                    f"{smallest:.6g} (the smallest feasible budget, sum_b p(b) min_b^ d(b, b^))"
                )
    return p, dist, delta


def min_feasible_budget(p_ab, distortion) -> float:
    """Smallest achievable expected distortion, ``sum_b p(b) min_b^ d(b, b^)``."""
    p_b = np.asarray(p_ab, dtype=float).sum(axis=0)
    _, vals = as_distortion(distortion).row_min()
    return float(p_b @ vals)


def expected_distortion(p_ab, distortion, mapping) -> float:
    """``E[d(B, B^)] = sum_b p(b) sum_b^ p(b^ | b) d(b, b^)`` for a dense or sparse mapping."""
    p_b = np.asarray(p_ab, dtype=float).sum(axis=0)
    dist = as_distortion(distortion)
    if sp.issparse(mapping):
        coo = sp.coo_matrix(mapping)
        return float(np.sum(p_b[coo.row] * coo.data * dist.entries(coo.row, coo.col)))
    mapping = np.asarray(mapping, dtype=float)
    total = 0.0
    for rows in dist.chunks():
        total += float(p_b[rows] @ (mapping[rows] * dist.block(rows)).sum(axis=1))
    return total


def _check_mapping_shape(mapping, n_rows):
    if mapping.ndim != 2 or mapping.shape[0] != n_rows:
        raise ValueError(
            f"mapping must have shape (|B|, |B^|) with |B| = {n_rows}, got {mapping.shape}"
        )


def repair_distortion(p_ab, distortion, mapping, delta):
    """Bring a mapping back within the distortion budget ``E[d(B, B^)] <= delta`` exactly.

    Solvers meet the budget up to their feasibility tolerance (HiGHS's LP vertices up to ~1e-7
    in scaled units, Clarabel's exponential-cone solution up to ~1e-6 relative, and clipping and
    renormalizing its rows moves it again). The expected distortion is linear in the mapping, so
    the convex combination ``N + lam (X - N)`` with the nearest-point mapping ``N`` (each ``b``
    to its closest ``b^``, the cheapest mapping, within every admissible budget) and
    ``lam = (delta - E_N) / (E_X - E_N)`` meets the budget exactly. A mapping within budget is
    returned unchanged.

    Returns
    -------
    mapping : same kind as the input (sparse stays sparse)
    excess : float
        By how much the mapping exceeded ``delta`` before the repair (0 when it did not).
    """
    dist = as_distortion(distortion)
    value = expected_distortion(p_ab, dist, mapping)
    excess = value - delta
    if excess <= 0:
        return mapping, 0.0
    n, m = dist.shape
    arg, _ = dist.row_min()
    nearest = sp.csr_matrix((np.ones(n), (np.arange(n), arg)), shape=(n, m))
    if not sp.issparse(mapping):
        nearest = nearest.toarray()
    base = expected_distortion(p_ab, dist, nearest)
    lam = min(max((delta - base) / (value - base), 0.0), 1.0) if value > base else 0.0
    # the last bits of the products can land above the budget: step further inside, by
    # doubling relative amounts, down to the nearest-point mapping itself (lam = 0)
    for i in range(42):
        repaired = nearest * (1.0 - lam) + mapping * lam
        if sp.issparse(repaired):
            repaired = sp.csr_matrix(repaired)
            repaired.eliminate_zeros()
        if expected_distortion(p_ab, dist, repaired) <= delta or lam == 0.0:
            break
        lam *= 1.0 - 2.0 ** min(i - 40, 0)
    return repaired, float(excess)


def _budget_check(mechanism, p_ab, distortion, mapping, delta) -> GuaranteeCheck:
    return GuaranteeCheck(
        type(mechanism).__name__,
        "distortion budget",
        float(delta),
        expected_distortion(p_ab, distortion, mapping),
        "at_most",
        "E[d(B, B^)] over all profiles",
    )


def _check_profiles(b, n: int) -> np.ndarray:
    """Profile indices to release: integers (or integral floats) in ``[0, n)``."""
    arr = np.asarray(b)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"b must hold integer profile indices; got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            first = int(np.flatnonzero(bad.ravel())[0])
            raise ValueError(
                f"b must hold integer profile indices; b[{first}] = {float(arr.ravel()[first])!r} is "
                "not an integer"
            )
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        first = int(np.flatnonzero(((arr < 0) | (arr >= n)).ravel())[0])
        raise ValueError(
            f"b must hold profile indices in [0, {n}); b[{first}] = {arr.ravel()[first]} "
            f"(range [{arr.min()}, {arr.max()}])"
        )
    return arr


def synthetic_problem(m: int):
    """The toy example of Sec. 2 / the synthetic data of Sec. 4.1.

    ``A`` is uniform on {0, 1}; ``B`` is uniform on {1, ..., 2^m}, its first half only with
    ``A = 0`` and its second half only with ``A = 1``; squared distortion ``(b - b^)^2``.

    Returns
    -------
    p_ab : ndarray of shape (2, 2^m)
    distortion : SquaredDistortion
    """
    if isinstance(m, bool) or not isinstance(m, int | np.integer) or m < 1:
        raise ValueError(f"m must be an integer >= 1, got {m!r}")
    n = 2 ** int(m)
    p_ab = np.zeros((2, n))
    p_ab[0, : n // 2] = 1.0 / n
    p_ab[1, n // 2 :] = 1.0 / n
    return p_ab, SquaredDistortion(np.arange(1, n + 1, dtype=float))


# --------------------------------------------------------------------------------------------
# Gradient of the leakage (Sec. 3.4)
# --------------------------------------------------------------------------------------------


@dataclass
class _Gradient:
    """The gradient ``C[b, b^] = sum_a p(a, b) G[a, b^]`` in factored form.

    ``G`` is the log ratio ``log2 q(a, b^) / (p(a) q(b^))`` of the current joint ``q`` (from
    :func:`ppdp.infotheory.leakage_log_ratio`). Two edge cases are replaced by their limits:

    * an unused released value (``q(b^) = 0``): the one-sided derivative of moving mass there is
      ``sum_a p(a, b) log2 p(a | b) / p(a)`` for every ``b^``, stored per row in ``unused_cost``;
    * ``q(a, b^) = 0`` while ``q(b^) > 0``: the derivative is ``-inf`` for rows with
      ``p(a, b) > 0``; the ratio is floored at ``floor`` so that the linear step is finite
      (``floored`` tells whether this happened; the FW gap is then not a certified bound).
    """

    p_ab: np.ndarray
    G: np.ndarray
    unused: np.ndarray  # bool (|B^|,)
    unused_cost: np.ndarray  # (|B|,)
    floored: bool

    def __post_init__(self):
        # C = P_ext^T G_ext with one extra rank for the unused columns: unused_cost[b] * 1[b^ unused]
        self.P_ext = np.vstack([self.p_ab, self.unused_cost[None, :]])
        self.G_ext = np.vstack(
            [np.where(self.unused[None, :], 0.0, self.G), self.unused[None, :].astype(float)]
        )

    def factors(self):
        """``(L, R)`` with ``C = L @ R``: L of shape (|B|, r), R of shape (r, |B^|)."""
        return self.P_ext.T, self.G_ext

    def block(self, rows):
        return self.P_ext[:, rows].T @ self.G_ext

    def entries(self, rows, cols):
        return np.einsum("ak,ak->k", self.P_ext[:, rows], self.G_ext[:, cols])


def _log_ratio(joint: np.ndarray) -> np.ndarray:
    """``log2 q(a, b^) / (q(a) q(b^))`` of a joint ``q`` via the infotheory core.

    NaN in unused columns and rows, ``-inf`` in zero cells of used columns (its conventions).
    """
    eye = sp.identity(joint.shape[1], format="csr")
    total = joint.sum()
    return np.asarray(infotheory.leakage_log_ratio(joint / total, eye), dtype=float)


def _gradient(p_ab: np.ndarray, mapping: sp.csr_matrix, floor: float) -> _Gradient:
    """Factored gradient of the leakage at ``mapping`` (Sec. 3.4), see :class:`_Gradient`."""
    G = np.asarray(infotheory.leakage_log_ratio(p_ab, mapping), dtype=float)
    joint = np.asarray((sp.csr_matrix(p_ab) @ mapping).todense())
    q_b = joint.sum(axis=0)
    unused = ~(q_b > 0)
    unused_cost = np.zeros(p_ab.shape[1])
    if unused.any():
        first = int(np.flatnonzero(unused)[0])
        unused_cost = np.asarray(infotheory.leakage_gradient(p_ab, mapping, columns=[first]))[:, 0]
    zero = np.isneginf(G)
    floored = bool(zero.any())
    if floored:
        # -inf slope (a true -inf: some b has p(a, b) > 0 whenever p(a) > 0); the pointwise
        # leakage log2 q(a | b^) / p(a) is floored at log2(floor)
        G = np.where(zero, math.log2(floor), G)
    G = np.where(np.isnan(G), 0.0, G)
    if not np.all(np.isfinite(G)):
        raise FloatingPointError("non-finite gradient of the leakage")
    return _Gradient(p_ab, G, unused, unused_cost, floored)


# --------------------------------------------------------------------------------------------
# The linear step (Eq. 3-4, Algorithm 2)
# --------------------------------------------------------------------------------------------


@dataclass
class LinearStep:
    """Solution of the linear program (3) on active variables.

    Attributes
    ----------
    mapping : scipy.sparse.csr_matrix
        The minimizer ``X'`` (rows ``p(. | b)``).
    value : float
        ``sum_{b, b^} c(b, b^) X'(b, b^)``.
    lam, mu : float, ndarray
        Dual solution: ``lam <= 0`` for the distortion constraint, ``mu[b]`` for row ``b``'s simplex.
    rounds : int
        Column-generation rounds (master solves).
    n_active : int
        Number of active variables at the end.
    dropped : int
        Columns deleted from the master after the step (see ``SPPM``'s ``drop_after``).
    """

    mapping: sp.csr_matrix
    value: float
    lam: float
    mu: np.ndarray
    rounds: int
    n_active: int
    dropped: int = 0


class _RestrictedMaster:
    """The restricted LP (4) in HiGHS, grown by column generation (Algorithm 2).

    Row 0 is the distortion constraint ``sum W x <= delta`` with ``W[b, b^] = p(b) d(b, b^)``;
    rows ``1 + b`` are the simplex constraints of profile ``b``. Columns are active pairs
    ``(b, b^)``. Costs and distortions are rescaled to order one so that HiGHS's absolute
    tolerances are meaningful; duals are mapped back.

    ``rows``, ``cols`` and ``idle`` (the number of consecutive linear steps a column ended
    non-basic) are aligned with HiGHS's column order; ``keys`` holds ``row * n_cols + col`` of
    every active pair.
    """

    def __init__(self, n_rows: int, n_cols: int, delta_scaled: float):
        import highspy

        self._hs = highspy
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("presolve", "off")  # warm starts from the previous basis
        # new costs and new columns keep the basis primal feasible: primal simplex continues from it
        self.h.setOptionValue("simplex_strategy", _SIMPLEX_STRATEGY)
        self.h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        self.h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        inf = highspy.kHighsInf
        lower = np.concatenate([[-inf], np.ones(n_rows)])
        upper = np.concatenate([[delta_scaled], np.ones(n_rows)])
        self.h.addRows(
            n_rows + 1,
            lower,
            upper,
            0,
            np.zeros(0, dtype=np.int32),
            np.zeros(0, dtype=np.int32),
            np.zeros(0),
        )
        self.n_rows = n_rows
        self.n_cols = n_cols
        self.rows = np.zeros(0, dtype=np.int64)
        self.cols = np.zeros(0, dtype=np.int64)
        self.idle = np.zeros(0, dtype=np.int64)
        self.keys: set[int] = set()

    def add(self, rows, cols, cost, weight):
        """Add the pairs ``(rows[k], cols[k])`` not yet active; returns how many were added."""
        keys = rows * self.n_cols + cols
        # first occurrence of each pair, in the given order (pricing may propose a pair twice)
        _, first = np.unique(keys, return_index=True)
        first.sort()
        fresh = first[np.array([k not in self.keys for k in keys[first].tolist()], dtype=bool)]
        if fresh.size == 0:
            return 0
        rows, cols, cost, weight, keys = (
            rows[fresh],
            cols[fresh],
            cost[fresh],
            weight[fresh],
            keys[fresh],
        )
        self.keys.update(keys.tolist())
        k = rows.size
        nz = weight != 0
        counts = 1 + nz.astype(np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        index = np.empty(counts.sum(), dtype=np.int32)
        value = np.empty(counts.sum())
        pos = starts.astype(np.int64)
        index[pos[nz]] = 0
        value[pos[nz]] = weight[nz]
        last = pos + counts - 1
        index[last] = 1 + rows
        value[last] = 1.0
        self.h.addCols(
            k, cost, np.zeros(k), np.full(k, self._hs.kHighsInf), index.size, starts, index, value
        )
        self.rows = np.concatenate([self.rows, rows])
        self.cols = np.concatenate([self.cols, cols])
        self.idle = np.concatenate([self.idle, np.zeros(k, dtype=np.int64)])
        return k

    def set_costs(self, cost):
        idx = np.arange(self.rows.size, dtype=np.int32)
        self.h.changeColsCost(idx.size, idx, np.asarray(cost, dtype=float))

    def basic(self) -> np.ndarray:
        """Boolean mask of the columns in the current basis."""
        status, index = self.h.getBasicVariables()
        if status != self._hs.HighsStatus.kOk:
            raise RuntimeError(f"HiGHS has no basis for the restricted LP: {status}")
        index = np.asarray(index)
        mask = np.zeros(self.rows.size, dtype=bool)
        mask[index[index >= 0]] = True  # negative entries are row slacks
        return mask

    def retire(self, drop_after: int) -> int:
        """Age the columns by one linear step and delete those non-basic for ``drop_after`` steps.

        Only non-basic columns (at their bound zero) are deleted, so the current basis stays
        valid and the next solve warm-starts from it; a deleted pair that becomes attractive
        again is re-added by pricing. Returns the number of deleted columns.
        """
        self.idle = np.where(self.basic(), 0, self.idle + 1)
        stale = np.flatnonzero(self.idle >= drop_after)
        if stale.size == 0:
            return 0
        self.h.deleteCols(stale.size, stale.astype(np.int32))
        gone = self.rows[stale] * self.n_cols + self.cols[stale]
        self.keys.difference_update(gone.tolist())
        keep = np.ones(self.rows.size, dtype=bool)
        keep[stale] = False
        self.rows, self.cols, self.idle = self.rows[keep], self.cols[keep], self.idle[keep]
        return int(stale.size)

    def solve(self):
        self.h.run()
        status = self.h.getModelStatus()
        if status != self._hs.HighsModelStatus.kOptimal:
            raise RuntimeError(
                f"HiGHS did not solve the restricted LP: {self.h.modelStatusToString(status)}"
            )
        sol = self.h.getSolution()
        x = np.asarray(sol.col_value)
        duals = np.asarray(sol.row_dual)
        return x, float(self.h.getInfo().objective_function_value), float(duals[0]), duals[1:]


class _StepSolver:
    """Solves successive linear steps (Eq. 3) for one problem by column generation.

    The active set starts at the diagonal ``(b, b)`` (Algorithm 2) plus each row's nearest value
    (so that the restricted LP is feasible when ``d(b, b) > 0``). With ``active_set="reset"`` it
    restarts there at every Frank-Wolfe step, seeded with the previous step's solution; with
    ``"keep"`` the master LP and its basis carry over to the next step, and columns non-basic at
    the end of ``drop_after`` consecutive steps are deleted (``None`` keeps every column). The LP
    optimum is the same either way: pricing ends only when no reduced cost is below ``-tol``.

    Each pricing round adds, for every row with a violated column, its ``columns_per_row`` most
    negative reduced costs (those below ``-tol``), which saves master solves and pricing passes.
    """

    def __init__(
        self,
        p_ab,
        dist: Distortion,
        delta: float,
        tol: float = 1e-9,
        max_rounds: int = 10_000,
        active_set: str = "reset",
        columns_per_row: int = 3,
        drop_after: int | None = None,
    ):
        self.active_set = active_set
        self.columns_per_row = min(int(columns_per_row), dist.shape[1])
        self.drop_after = drop_after
        self._last = None
        self.p_b = p_ab.sum(axis=0)
        self.dist = dist
        self.n, self.m = dist.shape
        self.wscale = max(self.p_b.max() * dist.max(), 1e-300)
        self.delta = delta
        self.tol = tol
        self.max_rounds = max_rounds
        self.master = _RestrictedMaster(self.n, self.m, delta / self.wscale)
        self.n_priced = 0
        self.price_time = 0.0
        self.lp_time = 0.0
        n = self.n
        arg, _ = dist.row_min()
        rows = np.arange(n)
        init_rows = np.concatenate([rows[rows < self.m], rows])
        init_cols = np.concatenate([rows[rows < self.m], arg])
        self._pending = (init_rows, init_cols)
        self._init = (init_rows, init_cols)

    def _weights(self, rows, cols):
        return self.p_b[rows] * self.dist.entries(rows, cols) / self.wscale

    def solve(self, grad) -> LinearStep:
        """Column generation for the costs ``grad`` (an object with ``block`` and ``entries``)."""
        # cost scale: the largest |c| over a cheap sample (the active set and the first block)
        rows0 = self.dist.chunks()[0]
        sample = np.abs(grad.block(rows0)).max()
        cscale = max(sample, 1e-300)
        if self.active_set == "reset" and self._last is not None:
            # Algorithm 2: a fresh active set per step (diagonal and nearest values), seeded with
            # the previous step's solution so that the first master problem starts informed
            self.master = _RestrictedMaster(self.n, self.m, self.delta / self.wscale)
            r0, c0 = self._init
            self._pending = (
                np.concatenate([r0, self._last[0]]),
                np.concatenate([c0, self._last[1]]),
            )
        master = self.master
        if self._pending is not None:
            r, c = self._pending
            master.add(r, c, grad.entries(r, c) / cscale, self._weights(r, c))
            self._pending = None
        if master.rows.size:
            master.set_costs(grad.entries(master.rows, master.cols) / cscale)
        rounds = 0
        while True:
            rounds += 1
            if rounds > self.max_rounds:
                raise RuntimeError(
                    f"column generation did not converge in {self.max_rounds} rounds"
                )
            t0 = time.perf_counter()
            x, value, lam, mu = master.solve()
            self.lp_time += time.perf_counter() - t0
            t0 = time.perf_counter()
            new_rows, new_cols, new_cost = self._price(grad, cscale, lam, mu)
            self.price_time += time.perf_counter() - t0
            if new_rows.size == 0:
                break
            added = master.add(new_rows, new_cols, new_cost, self._weights(new_rows, new_cols))
            if added == 0:
                break
        keep = x > 0
        self._last = (master.rows[keep], master.cols[keep])
        mapping = sp.csr_matrix(
            (x[keep], (master.rows[keep], master.cols[keep])), shape=(self.n, self.m)
        )
        mapping = _clean_rows(mapping)
        n_active = int(master.rows.size)
        dropped = 0
        if self.active_set == "keep" and self.drop_after is not None:
            dropped = master.retire(self.drop_after)
        return LinearStep(
            mapping,
            value * cscale,
            lam * cscale / self.wscale,
            mu * cscale,
            rounds,
            n_active,
            dropped,
        )

    def _price(self, grad, cscale, lam, mu):
        """Violated columns: per row, the most negative ``c - lam W - mu_b`` (Eq. 7-8), chunked.

        Returns the rows, columns and scaled costs ``c / cscale`` of the columns to add: for every
        row whose smallest reduced cost is below ``-tol``, its ``columns_per_row`` smallest ones
        that are below ``-tol`` (see :meth:`_candidates`).

        When both the costs and the distortion have low-rank factors (``d = L R``, e.g. squared
        Euclidean and Hamming distortions), the reduced costs are ``left @ right`` with
        ``left = [L_c, coef L_d, -mu]``, ``right = [R_c; R_d; 1]`` and ``coef = -lam p(b)``. Blocks
        of ``_PRICE_BLOCK`` columns whose interval lower bound (see :class:`_BlockBounds`) is above
        the threshold for every row of a chunk are skipped, so a pass computes only the reduced
        costs near each row's optimum. Candidates are then re-priced exactly entry by entry (the
        product can lose ~1e-8 relative to cancellation, so candidates within ``_FACTOR_SLACK`` of
        the threshold are re-checked, and bounds get the same margin).
        """
        lam_w = lam / self.wscale  # reduced cost in scaled units: c/cs - lam * p d / ws - mu
        gf = grad.factors() if hasattr(grad, "factors") else None
        df = self.dist.factors() if gf is not None else None
        found = []
        if df is not None:
            left = np.hstack([gf[0] / cscale, (-lam_w * self.p_b)[:, None] * df[0], -mu[:, None]])
            right = np.vstack([gf[1], df[1], np.ones((1, self.m))])
            screen = -self.tol + _FACTOR_SLACK
            bounds = _BlockBounds(right)
            left2 = bounds.split(left)
            for lo in range(0, self.n, _PRICE_ROWS):
                rows = np.arange(lo, min(self.n, lo + _PRICE_ROWS))
                L = left[lo : lo + rows.size]
                # the bound may err like the product: a block is skipped only when even its
                # bound plus that error stays above the screening threshold
                cols = bounds.columns(left2[lo : lo + rows.size], screen + _FACTOR_SLACK)
                if cols is not None and cols.size == 0:
                    continue
                red = L @ (right if cols is None else right[:, cols])
                self.n_priced += red.size
                found.append(self._candidates(red, rows, cols, screen, grad, cscale, lam_w, mu))
        else:
            for rows in self.dist.chunks():
                red = grad.block(rows) / cscale
                if lam != 0:
                    red -= (lam_w * self.p_b[rows])[:, None] * self.dist.block(rows)
                red -= mu[rows][:, None]
                self.n_priced += red.size
                found.append(self._candidates(red, rows, None, -self.tol, grad, cscale, lam_w, mu))
        found = [f for f in found if f is not None]
        if not found:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, np.zeros(0)
        return tuple(np.concatenate(parts) for parts in zip(*found, strict=True))

    def _candidates(self, red, rows, cols, screen, grad, cscale, lam_w, mu):
        """Rows, columns and scaled costs of the violated columns in one block of reduced costs.

        ``red[i, j]`` is the (possibly factored) reduced cost of ``(rows[i], cols[j])`` (``cols``
        ``None``: all columns). Entries below ``screen`` are re-priced exactly and kept when below
        ``-tol``; ``None`` when there are none.
        """

        def exact(r, c):
            cost = grad.entries(r, c) / cscale
            return cost - lam_w * self.p_b[r] * self.dist.entries(r, c) - mu[r], cost

        arg = red.argmin(axis=1)
        hit = np.flatnonzero(red[np.arange(rows.size), arg] < screen)
        if hit.size == 0:
            return None
        r = rows[hit]
        c = arg[hit] if cols is None else cols[arg[hit]]
        value, cost = exact(r, c)
        ok = value < -self.tol
        hit, r, c, cost = hit[ok], r[ok], c[ok], cost[ok]
        k = min(self.columns_per_row, red.shape[1])
        if k > 1 and hit.size:
            # the next k - 1 smallest by repeated argmin: a few SIMD passes over the violated
            # rows beat a partial sort (argpartition) by several times
            sub = red[hit]
            at = np.arange(hit.size)
            sub[at, arg[hit]] = np.inf
            more_r, more_c = [], []
            for _ in range(k - 1):
                nxt = sub.argmin(axis=1)
                near = sub[at, nxt] < screen
                if not near.any():
                    break
                sub[at, nxt] = np.inf
                more_r.append(r[near])
                more_c.append(nxt[near] if cols is None else cols[nxt[near]])
            if more_r:
                rk, ck = np.concatenate(more_r), np.concatenate(more_c)
                value, cost_k = exact(rk, ck)
                ok = value < -self.tol
                r = np.concatenate([r, rk[ok]])
                c = np.concatenate([c, ck[ok]])
                cost = np.concatenate([cost, cost_k[ok]])
        return r, c, cost


class _BlockBounds:
    """Interval lower bounds of ``L @ right`` over blocks of ``_PRICE_BLOCK`` columns.

    For a block ``J``, ``min_{j in J} sum_k L[i, k] right[k, j] >= sum_k min(L[i, k] lo[k, J],
    L[i, k] hi[k, J])`` with ``lo``, ``hi`` the smallest and largest ``right[k, j]`` over ``J``,
    that is ``[max(L, 0), min(L, 0)] @ [lo; hi]``: one thin product per row chunk (``1 / B`` of the
    entries of the full one) tells which blocks can hold a reduced cost below the threshold.
    Valid for any factors; tight when neighbouring columns have similar factors (as for ordered
    points under the squared distortion, where a pass then computes about 7% of the reduced costs at
    ``|B| = 16,384``).
    """

    def __init__(self, right: np.ndarray):
        m = right.shape[1]
        starts = np.arange(0, m, _PRICE_BLOCK)
        self.lohi = np.vstack(
            [np.minimum.reduceat(right, starts, axis=1), np.maximum.reduceat(right, starts, axis=1)]
        )
        index = starts[:, None] + np.arange(_PRICE_BLOCK)
        self.index = np.where(index < m, index, -1)

    @staticmethod
    def split(left: np.ndarray) -> np.ndarray:
        """``[max(L, 0), min(L, 0)]``, the left factor of the bounds (once per pricing pass)."""
        return np.hstack([np.maximum(left, 0.0), np.minimum(left, 0.0)])

    def columns(self, L2: np.ndarray, cutoff: float):
        """Columns of the blocks whose bound is below ``cutoff`` for some row of ``L2``.

        ``L2`` is a row chunk of :meth:`split`. ``None`` when that is most of the blocks (a full
        product is then cheaper than a gather).
        """
        blocks = np.flatnonzero((L2 @ self.lohi < cutoff).any(axis=0))
        if blocks.size > 0.5 * self.index.shape[0]:
            return None
        cols = self.index[blocks].ravel()
        return cols[cols >= 0]


def _clean_rows(mapping: sp.csr_matrix) -> sp.csr_matrix:
    """Renormalize rows of an LP solution (sums deviate from one by solver tolerance only)."""
    sums = np.asarray(mapping.sum(axis=1)).ravel()
    bad = np.abs(sums - 1) > 1e-6
    if bad.any():
        raise RuntimeError(
            f"LP solution violates the simplex constraints (row sum {sums[bad][0]:.9g})"
        )
    mapping = sp.diags(1.0 / sums) @ mapping
    return sp.csr_matrix(mapping)


class _DenseCost:
    """Costs from a dense matrix, in the interface of :class:`_Gradient` (for tests and checks)."""

    def __init__(self, cost):
        self.cost = np.asarray(cost, dtype=float)

    def block(self, rows):
        return self.cost[rows].copy()

    def entries(self, rows, cols):
        return self.cost[rows, cols]


def solve_linear_step(
    cost, p_ab, distortion, delta, *, tol: float = 1e-9, columns_per_row: int = 3
) -> LinearStep:
    """Solve LP (3) for a dense cost matrix by column generation (Algorithm 2).

    Parameters
    ----------
    cost : array of shape (|B|, |B^|)
        Linear costs ``c(b, b^)``.
    p_ab, distortion, delta
        As in :func:`validate_problem`.
    tol : float, default 1e-9
        Column generation stops when no reduced cost (scaled to the largest cost) is below
        ``-tol``.
    columns_per_row : int, default 3
        Violated columns added per row and pricing round (see :class:`SPPM`).
    """
    _check_columns_per_row(columns_per_row)
    p, dist, delta = validate_problem(p_ab, distortion, delta)
    cost = np.asarray(cost, dtype=float)
    if cost.shape != dist.shape or not np.all(np.isfinite(cost)):
        raise ValueError(
            f"cost must be a finite array of shape {dist.shape}, got shape {cost.shape}"
        )
    return _StepSolver(p, dist, delta, tol=tol, columns_per_row=columns_per_row).solve(
        _DenseCost(cost)
    )


def solve_linear_step_full(cost, p_ab, distortion, delta):
    """Solve LP (3) directly on all ``|B| |B^|`` variables with HiGHS (reference for tests).

    Returns
    -------
    mapping : ndarray, value : float
    """
    from scipy.optimize import linprog

    p, dist, delta = validate_problem(p_ab, distortion, delta)
    cost = np.asarray(cost, dtype=float)
    n, m = dist.shape
    W = p.sum(axis=0)[:, None] * dist.toarray()
    A_eq = sp.kron(sp.identity(n), np.ones((1, m)), format="csr")
    res = linprog(
        cost.ravel(),
        A_ub=W.reshape(1, -1),
        b_ub=[delta],
        A_eq=A_eq,
        b_eq=np.ones(n),
        bounds=(0, None),
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the full LP: {res.message}")
    return res.x.reshape(n, m), float(res.fun)


# --------------------------------------------------------------------------------------------
# SPPM (Algorithm 1)
# --------------------------------------------------------------------------------------------


def _line_search(q0: np.ndarray, q1: np.ndarray, iters: int = 200) -> float:
    """Exact line search for ``min_{g in [0, 1]} I(q0 + g (q1 - q0))`` (Eq. 5).

    ``I`` is convex along the segment, so its derivative
    ``sum (q1 - q0) log2 q_g(a, b^) / (q_g(a) q_g(b^))`` is non-decreasing; it is bisected to machine
    precision. Entries where both joints vanish contribute nothing.
    """
    diff = q1 - q0
    active = diff != 0
    # only columns where the joint moves matter; rows with p(a) = 0 never move
    cols = np.flatnonzero(active.any(axis=0))
    q0c, dc, ac = q0[:, cols], diff[:, cols], active[:, cols]
    log_pa = np.log2(np.where(q0.sum(axis=1) > 0, q0.sum(axis=1), 1.0))[:, None]

    def deriv(g):
        # sum (q1 - q0) log2 q_g(a, b^) / (p(a) q_g(b^)): the pointwise leakage of
        # infotheory.leakage_log_ratio, inlined because it runs ~60 times per step
        q = q0c + g * dc
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = np.log2(q) - log_pa - np.log2(q.sum(axis=0))[None, :]
            return float(np.sum(np.where(ac, dc * ratio, 0.0)))

    lo, hi = 0.0, 1.0
    with np.errstate(invalid="ignore"):
        d_hi = deriv(1.0)
    if not np.isnan(d_hi) and d_hi <= 0:
        return 1.0
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        d = deriv(mid)
        if d > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def _inner(grad, mapping) -> float:
    """``<C, X>`` over the support of a sparse mapping."""
    coo = mapping.tocoo()
    return float(np.sum(coo.data * grad.entries(coo.row, coo.col)))


def _combine(atoms, weights) -> sp.csr_matrix:
    out = atoms[0] * weights[0]
    for a, w in zip(atoms[1:], weights[1:], strict=True):
        out = out + a * w
    out = sp.csr_matrix(out)
    out.eliminate_zeros()
    return out


class SPPM:
    """Sparse privacy-preserving mapping: Frank-Wolfe with column generation (Algorithms 1-2).

    Parameters
    ----------
    delta : float
        Distortion budget ``Delta >= 0`` of problem (1).
    n_steps : int, default 100
        Number ``L`` of Frank-Wolfe steps (the paper's default, Sec. 4.3).
    variant : {"vanilla", "away"}, default "vanilla"
        ``"vanilla"`` is Algorithm 1. ``"away"`` adds away steps (Lacoste-Julien and Jaggi, 2015):
        when moving away from the worst vertex of the current convex combination decreases the
        linearization more than the Frank-Wolfe vertex, step away from it (an extension, not in
        the paper).
    floor : float, default 1e-2
        Floor of the ratio ``q(a | b^) / p(a)`` inside the gradient's log (Sec. 3.4). The gradient
        is ``-inf`` where ``q(a, b^) = 0 < q(b^)`` and ``p(a, b) > 0`` (e.g. at the identity start
        on the synthetic data, where moving mass across the two halves lowers the leakage at an
        infinite rate); there the pointwise leakage is replaced by ``log2(floor)``, which keeps the
        linear step finite while ranking those directions first. The line search and every
        reported leakage use the exact objective, so the floor only steers the search.
    tol : float, default 0
        Stop early when the Frank-Wolfe gap ``<C, X - X'>`` falls to ``tol`` (bits); 0 runs all
        ``L`` steps as in the paper.
    cg_tol : float, default 1e-9
        A column is violated when its reduced cost (scaled to the largest cost) is below ``-cg_tol``.
    active_set : {"reset", "keep"}, default "reset"
        ``"reset"`` restarts each step's column generation from the diagonal as in Algorithm 2,
        seeded with the previous step's solution, and solves the first master problem of each
        step from scratch. ``"keep"`` keeps the restricted master LP (4), with its active
        variables and its simplex basis, across Frank-Wolfe steps: each step only changes the
        costs, so the primal simplex continues from the previous optimal basis (see
        ``drop_after``). The LP optimum is the same either way; which is faster depends on the
        alphabet. On the synthetic data (ordered points, squared distortion) ``"keep"`` solves
        ``|B| = 16,384`` in 13 s against 100 s; on the 2,124-profile Movie alphabet (Hamming
        distortion), where the optimal vertex moves far between steps, it takes 40 s against 16 s.
    columns_per_row : int, default 3
        Columns added per row and pricing round: a row with a violated column (reduced cost of
        Eq. 7-8 below ``-cg_tol``) brings its ``columns_per_row`` most negative reduced costs that
        are below ``-cg_tol``. 1 is Algorithm 2's single column. More columns per round mean
        fewer master solves and pricing passes per step, since the neighbours of a row's best
        value are often the next ones needed as the dual ``lambda`` of the distortion constraint
        moves: on the synthetic data at ``|B| = 16,384`` with ``active_set="keep"``, 3 takes 2.5
        instead of 3.4 rounds per step and about 20% less time. Where LP (3) has tied optimal vertices, another value can
        lead to a different (equally valid) Frank-Wolfe path.
    drop_after : int or None, default 5
        With ``active_set="keep"``, delete a column from the master LP once it has been non-basic
        (hence ``x = 0``) at the end of ``drop_after`` consecutive linear steps, so that the LP stays
        near the size of its basis; pricing brings it back if it becomes attractive again. Basic
        columns are never deleted, so the basis stays valid and the next step warm-starts from it.
        ``None`` keeps every column. Ignored with ``"reset"``, which rebuilds the LP every step.
    blas_threads : int or None, default 1
        BLAS threads during ``fit`` (``None`` leaves the setting alone).
    progress : bool, default False
        Show a tqdm progress bar over the steps.

    Attributes
    ----------
    mapping_ : scipy.sparse.csr_matrix of shape (|B|, |B^|)
    leakage_ : float
        ``I(A; B^)`` in bits of the final mapping.
    distortion_ : float
        Its expected distortion.
    lower_bound_ : float
        A certified lower bound on the optimum, ``max_l f(X_l) - gap_l`` over steps whose gradient
        was finite (``-inf`` if none).
    history_ : pandas.DataFrame
        One row per step (step 0 is the start): ``step, leakage, distortion, gamma, gap,
        lp_value, active_set, lp_rounds, dropped, support, floored, away, seconds``
        (``active_set`` at the end of the step's column generation, ``dropped`` the columns then
        deleted, see ``drop_after``).
    n_active_ : int
        Number of active variables of the column generation at the end of the last linear step.
    pricing_seconds_, lp_seconds_ : float
        Time spent pricing (Eq. 7-8) and solving master LPs (HiGHS).
    priced_entries_ : int
        Number of reduced costs computed by pricing (blocks skipped by their lower bound are
        not computed).

    Notes
    -----
    The start ``X_0`` maps each ``b`` to its nearest released value (the identity when
    ``d(b, b) = 0``), which is feasible for every admissible budget. The active set of the column
    generation starts at the diagonal plus those nearest values (see ``active_set``).
    Where several LP vertices are optimal, the one HiGHS returns depends on the active set, so
    ``active_set``, ``columns_per_row`` and ``drop_after`` can lead to slightly different (equally
    valid) paths; each linear step is solved exactly either way.
    """

    def __init__(
        self,
        delta,
        n_steps: int = 100,
        *,
        variant: str = "vanilla",
        floor: float = 1e-2,
        tol: float = 0.0,
        cg_tol: float = 1e-9,
        active_set: str = "reset",
        columns_per_row: int = 3,
        drop_after: int | None = 5,
        blas_threads: int | None = 1,
        progress: bool = False,
    ):
        if variant not in ("vanilla", "away"):
            raise ValueError(f"variant must be 'vanilla' or 'away', got {variant!r}")
        if active_set not in ("keep", "reset"):
            raise ValueError(f"active_set must be 'keep' or 'reset', got {active_set!r}")
        self.variant = variant
        self.active_set = active_set
        if isinstance(n_steps, bool) or not isinstance(n_steps, int | np.integer) or n_steps < 0:
            raise ValueError(f"n_steps must be an integer >= 0, got {n_steps!r}")
        if not (_is_real(floor) and 0 < floor < 1):
            raise ValueError(f"floor must be a number in (0, 1), got {floor!r}")
        if not (_is_real(tol) and tol >= 0):
            raise ValueError(f"tol must be a number >= 0, got {tol!r}")
        if not (_is_real(cg_tol) and cg_tol > 0):
            raise ValueError(f"cg_tol must be a number > 0, got {cg_tol!r}")
        _check_columns_per_row(columns_per_row)
        if drop_after is not None and (
            isinstance(drop_after, bool)
            or not isinstance(drop_after, int | np.integer)
            or drop_after < 1
        ):
            raise ValueError(f"drop_after must be None or an integer >= 1, got {drop_after!r}")
        self.columns_per_row = int(columns_per_row)
        self.drop_after = None if drop_after is None else int(drop_after)
        _check_delta(delta)
        self.delta = delta
        self.n_steps = int(n_steps)
        self.floor = float(floor)
        self.tol = float(tol)
        self.cg_tol = float(cg_tol)
        if blas_threads is not None and (
            isinstance(blas_threads, bool)
            or not isinstance(blas_threads, int | np.integer)
            or blas_threads < 1
        ):
            raise ValueError(f"blas_threads must be None or an integer >= 1, got {blas_threads!r}")
        self.blas_threads = blas_threads
        self.progress = progress

    def fit(self, p_ab, distortion, *, callback=None):
        """Learn the mapping for the joint ``p_ab`` and the distortion; returns ``self``.

        ``callback(step, mapping)``, if given, is called with every iterate (step 0 is the start).
        """
        from threadpoolctl import threadpool_limits

        # The pricing products are thin (rank ~ |A| + rank d) and memory-bound; threaded BLAS
        # gains nothing on them and slows down by an order of magnitude on a busy machine.
        with threadpool_limits(limits=self.blas_threads, user_api="blas"):
            return self._fit(p_ab, distortion, callback)

    def _fit(self, p_ab, distortion, callback):
        p, dist, delta = validate_problem(p_ab, distortion, self.delta)
        n, m = dist.shape
        t_start = time.perf_counter()
        arg, _ = dist.row_min()
        X = sp.csr_matrix((np.ones(n), (np.arange(n), arg)), shape=(n, m))
        q = np.asarray((sp.csr_matrix(p) @ X).todense())
        f = float(infotheory.leakage(p, X))
        solver = _StepSolver(
            p,
            dist,
            delta,
            tol=self.cg_tol,
            active_set=self.active_set,
            columns_per_row=self.columns_per_row,
            drop_after=self.drop_after,
        )
        history = [
            dict(
                step=0,
                leakage=f,
                distortion=expected_distortion(p, dist, X),
                gamma=np.nan,
                gap=np.nan,
                lp_value=np.nan,
                active_set=0,
                lp_rounds=0,
                dropped=0,
                support=X.nnz,
                floored=False,
                away=False,
                seconds=time.perf_counter() - t_start,
            )
        ]
        lower = -np.inf
        if callback is not None:
            callback(0, X)
        steps = range(1, self.n_steps + 1)
        if self.progress:
            from tqdm.auto import tqdm

            steps = tqdm(steps, desc="SPPM")
        P = sp.csr_matrix(p)
        atoms = [X]  # the vertices X is a convex combination of, with weights
        atom_q = [q]
        weights = np.array([1.0])
        for step in steps:
            grad = _gradient(p, X, self.floor)
            lin = solver.solve(grad)
            current = _inner(grad, X)
            gap = current - lin.value
            if not grad.floored:
                lower = max(lower, f - max(gap, 0.0))
            q_fw = np.asarray((P @ lin.mapping).todense())
            kind = "fw"
            if self.variant == "away" and len(atoms) > 1:
                scores = np.array([_inner(grad, a) for a in atoms])
                away = int(np.argmax(scores))
                if scores[away] - current > gap:
                    kind = "away"
            if kind == "fw":
                gamma = _line_search(q, q_fw)
                weights = (1 - gamma) * weights
                atoms.append(lin.mapping)
                atom_q.append(q_fw)
                weights = np.append(weights, gamma)
            else:
                w_a = weights[away]
                gmax = w_a / (1 - w_a)
                t = _line_search(q, q + gmax * (q - atom_q[away]))
                gamma = t * gmax
                weights = (1 + gamma) * weights
                weights[away] -= gamma
                if t >= 1.0:
                    weights[away] = 0.0
            keep = weights > 0
            if self.variant == "away" or not keep.all():
                atoms = [a for a, k in zip(atoms, keep, strict=True) if k]
                atom_q = [a for a, k in zip(atom_q, keep, strict=True) if k]
                weights = weights[keep] / weights[keep].sum()
            if self.variant == "away":
                X_new = _combine(atoms, weights)
            else:
                X_new = sp.csr_matrix((1 - gamma) * X + gamma * lin.mapping)
                X_new.eliminate_zeros()
            f_new = float(infotheory.leakage(p, X_new))
            if f_new > f and kind == "fw":  # rounding at the last bit: keep the better endpoint
                f_new, X_new, gamma = f, X, 0.0
            X, f = X_new, f_new
            q = np.asarray((P @ X).todense())
            history.append(
                dict(
                    step=step,
                    leakage=f,
                    distortion=expected_distortion(p, dist, X),
                    gamma=gamma,
                    gap=gap,
                    lp_value=lin.value,
                    active_set=lin.n_active,
                    lp_rounds=lin.rounds,
                    dropped=lin.dropped,
                    support=X.nnz,
                    floored=grad.floored,
                    away=kind == "away",
                    seconds=time.perf_counter() - t_start,
                )
            )
            if callback is not None:
                callback(step, X)
            if self.tol > 0 and gap <= self.tol:
                break
        # every vertex meets the budget only up to HiGHS's feasibility tolerance
        X, self.budget_excess_ = repair_distortion(p, dist, X, delta)
        if self.budget_excess_ > 0:
            f = float(infotheory.leakage(p, X))
        self.p_ab_, self._distortion = p, dist
        self.mapping_ = X
        self.leakage_ = f
        self.distortion_ = expected_distortion(p, dist, X)
        self.lower_bound_ = lower
        self.history_ = pd.DataFrame(history)
        self.n_active_ = history[-1]["active_set"]
        self.pricing_seconds_ = solver.price_time
        self.lp_seconds_ = solver.lp_time
        self.priced_entries_ = solver.n_priced
        enforce(self.guarantee_checks())
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """The distortion budget ``E[d(B, B^)] <= delta`` measured on :attr:`mapping_`, the
        mapping :meth:`sample` draws from (repaired after the last step, see
        :func:`repair_distortion`; :attr:`budget_excess_` is what the repair removed)."""
        if not hasattr(self, "mapping_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        return [_budget_check(self, self.p_ab_, self._distortion, self.mapping_, self.delta)]

    def sample(self, b, rng: np.random.Generator):
        """Release ``b^ ~ p(. | b)`` for each profile index in ``b``."""
        if not hasattr(self, "mapping_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        out = sample_release(self.mapping_, b, rng)
        enforce(self.guarantee_checks())
        return out


# --------------------------------------------------------------------------------------------
# Exact optimum (cvxpy)
# --------------------------------------------------------------------------------------------


class ExactMapping:
    """The optimal mapping of problem (1), solved as a convex program with cvxpy.

    ``I(A; B^) = sum_{a, b^} rel_entr(q(a, b^), p(a) q(b^))`` with ``q = p_ab X`` affine in the
    mapping ``X``, which cvxpy expresses with exponential cones.

    Parameters
    ----------
    delta : float
    solver : {"CLARABEL", "SCS"}, default "CLARABEL"
    solver_options : dict, optional
        Passed to ``problem.solve``. Clarabel gets ``max_step_fraction=0.9`` unless given: its
        default 0.99 stalls (InsufficientProgress) on the synthetic problem from ``|B| = 256``.
    fallback : {"SCS", "CLARABEL", None}, default "SCS"
        Solver tried when the first one raises ``cvxpy.error.SolverError``.
    fallback_options : dict, optional
        Its options (default ``eps=1e-7, max_iters=50000``).

    Attributes
    ----------
    mapping_ : ndarray of shape (|B|, |B^|)
        The solver's mapping, with entries below zero (solver tolerance) set to zero and rows
        renormalized.
    leakage_ : float
        ``I(A; B^)`` of ``mapping_`` in bits (recomputed with :func:`ppdp.infotheory.leakage`).
    objective_ : float
        The solver's optimal value in bits.
    status_ : str
        ``"optimal"`` or ``"optimal_inaccurate"`` (accepted; any other status raises).
    solver_used_ : str
    seconds_ : float
    """

    def __init__(
        self,
        delta,
        *,
        solver: str = "CLARABEL",
        solver_options: dict | None = None,
        fallback: str | None = "SCS",
        fallback_options: dict | None = None,
    ):
        if solver not in ("CLARABEL", "SCS"):
            raise ValueError(f"solver must be 'CLARABEL' or 'SCS', got {solver!r}")
        if fallback not in ("CLARABEL", "SCS", None):
            raise ValueError(f"fallback must be 'CLARABEL', 'SCS' or None, got {fallback!r}")
        self.fallback = fallback
        self.fallback_options = dict(fallback_options or {"eps": 1e-7, "max_iters": 50_000})
        _check_delta(delta)
        self.delta = delta
        self.solver = solver
        self.solver_options = dict(solver_options or {})
        if solver == "CLARABEL":
            # shorter interior-point steps: the default 0.99 stalls (InsufficientProgress) from |B| = 256
            self.solver_options.setdefault("max_step_fraction", 0.9)

    def fit(self, p_ab, distortion):
        import cvxpy as cp

        p, dist, delta = validate_problem(p_ab, distortion, self.delta)
        n, m = dist.shape
        D = dist.toarray()
        p_b = p.sum(axis=0)
        p_a = p.sum(axis=1)
        keep_a = p_a > 0
        pa = p[keep_a]
        X = cp.Variable((n, m), nonneg=True)
        # scale the joint to entries of order one (solver tolerances are absolute)
        s = float(m)
        Q = (s * pa) @ X
        qb = cp.sum(Q, axis=0)
        outer = cp.reshape(p_a[keep_a], (-1, 1), order="F") @ cp.reshape(qb, (1, m), order="F")
        objective = cp.sum(cp.rel_entr(Q, outer)) / s
        W = p_b[:, None] * D
        scale = max(W.max(), 1e-300)
        constraints = [cp.sum(X, axis=1) == 1, cp.sum(cp.multiply(W / scale, X)) <= delta / scale]
        problem = cp.Problem(cp.Minimize(objective), constraints)
        t0 = time.perf_counter()
        self.solver_used_ = self.solver
        try:
            problem.solve(solver=self.solver, **self.solver_options)
        except cp.error.SolverError:
            if self.fallback is None:
                raise
            # Clarabel occasionally stops with InsufficientProgress on these problems
            self.solver_used_ = self.fallback
            problem.solve(solver=self.fallback, **self.fallback_options)
        self.seconds_ = time.perf_counter() - t0
        self.status_ = problem.status
        if problem.status not in ("optimal", "optimal_inaccurate"):
            raise RuntimeError(
                f"cvxpy ({self.solver}) did not solve the exact problem: status {problem.status}"
            )
        Xv = np.asarray(X.value, dtype=float)
        Xv = np.where(Xv > 0, Xv, 0.0)
        Xv /= Xv.sum(axis=1, keepdims=True)
        Xv, self.budget_excess_ = repair_distortion(p, dist, Xv, delta)
        self.p_ab_, self._distortion = p, dist
        self.mapping_ = Xv
        self.objective_ = float(problem.value) / math.log(2)
        self.leakage_ = float(infotheory.leakage(p, Xv))
        self.distortion_ = expected_distortion(p, dist, Xv)
        enforce(self.guarantee_checks())
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """The distortion budget measured on :attr:`mapping_` (after :func:`repair_distortion`)."""
        if not hasattr(self, "mapping_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        return [_budget_check(self, self.p_ab_, self._distortion, self.mapping_, self.delta)]

    def sample(self, b, rng: np.random.Generator):
        """Release ``b^ ~ p(. | b)`` for each profile index in ``b``."""
        if not hasattr(self, "mapping_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        out = sample_release(self.mapping_, b, rng)
        enforce(self.guarantee_checks())
        return out


# --------------------------------------------------------------------------------------------
# Exponential mechanism
# --------------------------------------------------------------------------------------------


def _gibbs_block(dist: Distortion, rows, beta):
    d = dist.block(rows)
    logits = -beta * (d - d.min(axis=1, keepdims=True))
    w = np.exp(logits)
    w /= w.sum(axis=1, keepdims=True)
    return w, d


class ExponentialMechanism:
    """Exponential mechanism ``p(b^ | b) ~ exp(-beta d(b, b^))`` (McSherry and Talwar; Sec. 4.2).

    It is ``epsilon = 2 beta d_max`` locally differentially private. Give either ``beta`` or a
    distortion budget ``delta``; with ``delta``, ``beta`` is the smallest value whose expected
    distortion is at most ``delta`` (found by bisection, the expected distortion being
    non-increasing in ``beta``), so that the mechanism is compared with SPPM at equal budget.

    Attributes
    ----------
    beta_, epsilon_, d_max_ : float
    mapping_ : ndarray of shape (|B|, |B^|)
    leakage_, distortion_ : float
    """

    def __init__(self, *, beta=None, delta=None, rtol: float = 1e-10):
        if (beta is None) == (delta is None):
            raise ValueError("give exactly one of beta and delta")
        for name, val in (("beta", beta), ("delta", delta)):
            if val is not None and (
                isinstance(val, bool)
                or not isinstance(val, int | float | np.integer | np.floating)
                or not (math.isfinite(val) and val >= 0)
            ):
                raise ValueError(f"{name} must be a finite number >= 0, got {val!r}")
        if not (_is_real(rtol) and 0 < rtol < 1):
            raise ValueError(f"rtol must be a number in (0, 1), got {rtol!r}")
        self.beta = beta
        self.delta = delta
        self.rtol = float(rtol)

    @staticmethod
    def expected_distortion_at(p_ab, distortion, beta) -> float:
        """Expected distortion of the mechanism with parameter ``beta`` (chunked, no n^2 array)."""
        dist = as_distortion(distortion)
        p_b = np.asarray(p_ab, dtype=float).sum(axis=0)
        total = 0.0
        for rows in dist.chunks():
            w, d = _gibbs_block(dist, rows, beta)
            total += float(p_b[rows] @ (w * d).sum(axis=1))
        return total

    def fit(self, p_ab, distortion, *, mapping: bool = True):
        p, dist, delta = validate_problem(p_ab, distortion, self.delta)
        beta = self.beta
        if beta is None:
            beta = self._solve_beta(p, dist, delta)
        self.beta_ = float(beta)
        self.d_max_ = dist.max()
        self.epsilon_ = 2.0 * self.beta_ * self.d_max_
        self.distortion_ = self.expected_distortion_at(p, dist, self.beta_)
        if mapping:
            self.mapping_ = np.vstack(
                [_gibbs_block(dist, rows, self.beta_)[0] for rows in dist.chunks()]
            )
            self.leakage_ = float(infotheory.leakage(p, self.mapping_))
        else:
            joint = np.zeros((p.shape[0], dist.shape[1]))
            for rows in dist.chunks():
                joint += p[:, rows] @ _gibbs_block(dist, rows, self.beta_)[0]
            self.leakage_ = float(infotheory.mutual_information(joint))
        self.p_ab_, self._distortion = p, dist
        enforce(self.guarantee_checks())
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """With a budget ``delta``: the expected distortion of :attr:`mapping_` (of ``beta_``
        when fitted with ``mapping=False``), at most ``delta``. With ``beta`` alone no budget is
        declared and the list is empty; ``epsilon_`` follows from ``beta`` by construction."""
        if not hasattr(self, "beta_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        if self.delta is None:
            return []
        if hasattr(self, "mapping_"):
            return [_budget_check(self, self.p_ab_, self._distortion, self.mapping_, self.delta)]
        return [
            GuaranteeCheck(
                type(self).__name__,
                "distortion budget",
                float(self.delta),
                self.distortion_,
                "at_most",
                "E[d(B, B^)] over all profiles",
            )
        ]

    def _solve_beta(self, p, dist, delta):
        f = lambda b: self.expected_distortion_at(p, dist, b)  # noqa: E731
        if f(0.0) <= delta:
            return 0.0
        if delta == 0 and min_feasible_budget(p, dist) == 0:
            raise ValueError(
                "delta = 0 is below what the exponential mechanism reaches at any finite beta "
                "(its expected distortion is positive for every beta < inf)"
            )
        hi = 1.0
        while f(hi) > delta:
            hi *= 2.0
            if hi > 1e12:
                raise ValueError(f"no finite beta meets delta = {delta}; the budget is too small")
        lo = 0.0 if hi == 1.0 else hi / 2.0
        while hi - lo > self.rtol * hi:
            mid = 0.5 * (lo + hi)
            if f(mid) > delta:
                lo = mid
            else:
                hi = mid
        return hi

    def sample(self, b, rng: np.random.Generator):
        """Release ``b^ ~ p(. | b)`` for each profile index in ``b``."""
        if not hasattr(self, "mapping_"):
            raise RuntimeError(
                f"{type(self).__name__} has no mapping; call fit (with mapping=True) first"
            )
        out = sample_release(self.mapping_, b, rng)
        enforce(self.guarantee_checks())
        return out


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def sample_release(mapping, b, rng: np.random.Generator) -> np.ndarray:
    """Draw ``b^ ~ p(. | b)`` for each index in ``b`` (dense or sparse mapping)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    n = mapping.shape[0]
    b = _check_profiles(b, n)
    u = rng.random(b.size)
    out = np.empty(b.size, dtype=np.int64)
    M = sp.csr_matrix(mapping)
    for row in np.unique(b):
        sel = np.flatnonzero(b == row)
        lo, hi = M.indptr[row], M.indptr[row + 1]
        cdf = np.cumsum(M.data[lo:hi])
        cdf /= cdf[-1]
        out[sel] = M.indices[lo:hi][
            np.minimum(np.searchsorted(cdf, u[sel], side="right"), hi - lo - 1)
        ]
    return out


def nearest_point_profile(mapping, distortion, k_max: int | None = None, weights=None):
    """Probability of mapping each ``b`` to its ``k``-th nearest released value (Fig. 5).

    Values are ranked by increasing distortion ``d(b, .)`` (ties by index; ``k = 0`` is the
    nearest, which is ``b`` itself when ``d(b, b) = 0``).

    Returns
    -------
    pandas.DataFrame with columns ``k, mean, std, sem`` over the profiles (weighted by ``weights``
    when given, e.g. ``p(b)``).
    """
    dist = as_distortion(distortion)
    n, m = dist.shape
    k_max = m if k_max is None else min(int(k_max), m)
    M = sp.csr_matrix(mapping)
    probs = np.empty((n, k_max))
    for rows in dist.chunks():
        d = dist.block(rows)
        order = np.argsort(d, axis=1, kind="stable")[:, :k_max]
        dense = M[rows].toarray()
        probs[rows] = np.take_along_axis(dense, order, axis=1)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    w = w / w.sum()
    mean = w @ probs
    var = w @ (probs - mean) ** 2
    std = np.sqrt(var)
    n_eff = 1.0 / np.sum(w**2)
    return pd.DataFrame(
        {"k": np.arange(k_max), "mean": mean, "std": std, "sem": std / np.sqrt(n_eff)}
    )
