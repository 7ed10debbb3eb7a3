"""Distortions ``d(b, b^)`` between profiles and released values (the constraint of Eq. 1-2).

Dense, squared Euclidean and Hamming distortions; the structured ones compute blocks on demand
and offer exact low-rank factors for the factored pricing of the linear step.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

_CHUNK_ENTRIES = 1 << 22  # entries of one pricing block (32 MiB of float64)


class Distortion:
    """A distortion ``d(b, b^)`` between ``n_rows`` profiles and ``n_cols`` released values.

    Subclasses implement :meth:`block`; everything else is derived from it in chunks.

    Attributes
    ----------
    shape : tuple of int
        ``(n_rows, n_cols)``, that is ``(|B|, |B^|)``; a subclass sets it.

    Examples
    --------
    A subclass needs only ``shape`` and :meth:`block`; here the absolute difference of points:

    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import Distortion
    >>> class Absolute(Distortion):
    ...     def __init__(self, points):
    ...         self.points = np.asarray(points, dtype=float)
    ...         self.shape = (self.points.size, self.points.size)
    ...     def block(self, rows):
    ...         return np.abs(self.points[rows, None] - self.points[None, :])
    >>> d = Absolute([0, 2, 5])
    >>> d.toarray()
    array([[0., 2., 5.],
           [2., 0., 3.],
           [5., 3., 0.]])
    >>> d.max(), d.row_min()[0]
    (5.0, array([0, 1, 2]))
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
    """A distortion given as a dense ``(|B|, |B^|)`` array.

    Parameters
    ----------
    matrix : array_like of shape (|B|, |B^|)
        ``d(b, b^)``, converted to float64 (not copied when it already is).

    Raises
    ------
    ValueError
        If ``matrix`` is not two-dimensional.

    Examples
    --------
    >>> from ppdp.mechanisms.sppm import DenseDistortion
    >>> d = DenseDistortion([[0, 1, 2], [1, 0, 1]])
    >>> d.shape, d.max()
    ((2, 3), 2.0)
    >>> d.entries([0, 1], [2, 2])
    array([2., 1.])
    """

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

    Raises
    ------
    ValueError
        If ``points`` is not a finite array of shape ``(n,)`` or ``(n, k)``.

    Examples
    --------
    >>> from ppdp.mechanisms.sppm import SquaredDistortion
    >>> d = SquaredDistortion([0.0, 1.0, 3.0])
    >>> d.toarray()
    array([[0., 1., 9.],
           [1., 0., 4.],
           [9., 4., 0.]])
    >>> d.max()
    9.0
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

    Raises
    ------
    ValueError
        If ``codes`` is not a non-empty two-dimensional array.
    TypeError
        If ``codes`` does not hold integers.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import HammingDistortion
    >>> codes = np.array([[0, 0], [0, 1], [1, 1]])
    >>> HammingDistortion(codes).toarray()
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    >>> HammingDistortion(codes, normalize=True).toarray()[0]
    array([0. , 0.5, 1. ])
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
    """Wrap an array as :class:`DenseDistortion`; pass :class:`Distortion` objects through.

    Parameters
    ----------
    distortion : array_like of shape (|B|, |B^|) or Distortion
        A dense array (not a sparse matrix) or a distortion object.

    Returns
    -------
    Distortion
        ``distortion`` itself when it is one, else a :class:`DenseDistortion` of the array.

    Raises
    ------
    TypeError
        If ``distortion`` is a sparse matrix, or not convertible to a two-dimensional float array.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import SquaredDistortion, as_distortion
    >>> type(as_distortion(np.ones((2, 3)) - np.eye(2, 3))).__name__
    'DenseDistortion'
    >>> d = SquaredDistortion([0.0, 1.0])
    >>> as_distortion(d) is d
    True
    """
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
