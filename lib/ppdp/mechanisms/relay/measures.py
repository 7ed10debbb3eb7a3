"""Measures on units: disclosure in bits, the loss of merging units, principal axes.

The disclosure of a class is the Jensen-Shannon divergence of its sensitive distribution from the
table's (Sec. 2), computed with the arithmetic of :func:`ppdp.infotheory.pairwise_js_divergence`;
the loss of merging units into one class is their size-weighted squared deviation from the class
mean (Sec. 5); the principal axis of a set of units orders them for TDA's cuts and PLSA's halves.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import entr

from ppdp.memo import Memo

from .units import _idx_key, _memo, _Units

_LN2 = math.log(2.0)


#: The normalized reference distribution and its entropy, per table distribution (by value).
REFERENCES = Memo(
    "mechanisms.relay.references",
    "a table's normalized sensitive distribution and its entropy, read-only, by the "
    "distribution's dtype, shape and bytes",
    maxsize=256,
    freeze=True,
)


def _reference(gdist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Q`` of :func:`_js_rows` normalized and its entropy, computed once per distribution."""

    def compute():
        q = gdist[None, :].astype(np.float64, copy=False)
        qn = q / q.sum(axis=1)[:, None]
        return qn, entr(qn).sum(axis=1) / _LN2

    # the whole content, as digest() would hold it, without its cost: a chain run looks up the
    # reference thousands of times, and its few bytes are cheaper to key on than to hash
    return REFERENCES.get((gdist.dtype.str, gdist.shape, gdist.tobytes()), compute)


def _js_rows(counts: np.ndarray, gdist: np.ndarray) -> np.ndarray:
    """JS divergence (bits) of each row of ``counts`` from the table's sensitive distribution.

    The arithmetic of :func:`ppdp.infotheory.pairwise_js_divergence` (``Q = gdist``), operation
    for operation and on arrays of the same shapes, so the values are the same to the last bit;
    it skips that function's input validation, which dominated the cost of the many small calls
    made here. Every row here is a non-empty class's (or half's) counts: finite, non-negative,
    with a positive total.
    """
    p = np.atleast_2d(counts).astype(np.float64, copy=False)
    qn, hq = _reference(gdist)
    pn = p / p.sum(axis=1)[:, None]
    hp = entr(pn).sum(axis=1) / _LN2
    hm = entr(0.5 * (pn[:, None, :] + qn[None, :, :])).sum(axis=2) / _LN2
    out = hm - 0.5 * (hp[:, None] + hq[None, :])
    np.clip(out, 0.0, 1.0, out=out)
    return out[:, 0]


def _class_counts(u: _Units, classes: list[np.ndarray]) -> np.ndarray:
    return np.stack([u.counts[c].sum(axis=0) for c in classes])


def _partition_disclosure(u: _Units, classes: list[np.ndarray]) -> float:
    return float(_js_rows(_class_counts(u, classes), u.gdist).max())


def _sse(u: _Units, idx: np.ndarray) -> float:
    """Loss (between-unit weighted squared deviation) of merging the units ``idx`` into one class."""
    if idx.size < 2:
        return 0.0
    n = u.size[idx]
    x = u.x[idx]
    mean = (n[:, None] * x).sum(axis=0) / n.sum()
    return float((n * ((x - mean) ** 2).sum(axis=1)).sum())


def _partition_sse(u: _Units, classes: list[np.ndarray]) -> float:
    # FLA weighs the same PLSA and BUA classes at several thresholds
    losses = _memo(u, "sse")
    total = 0
    for c in classes:
        key = _idx_key(c)
        if key not in losses:
            losses[key] = _sse(u, c)
        total += losses[key]
    return float(total)


def _principal_axis(u: _Units, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centered units of ``idx`` and the principal axis of their size-weighted scatter."""
    n = u.size[idx]
    x = u.x[idx]
    centered = x - (n[:, None] * x).sum(axis=0) / n.sum()
    cov = (centered * n[:, None]).T @ centered
    _, vecs = np.linalg.eigh(cov)
    axis = vecs[:, -1]
    pivot = int(np.argmax(np.abs(axis)))
    if axis[pivot] < 0:
        axis = -axis
    return centered, axis


def _principal_order(u: _Units, idx: np.ndarray) -> np.ndarray:
    """``idx`` sorted along the principal axis of its size-weighted units (ties: row number)."""
    orders = _memo(u, "order")
    key = _idx_key(idx)
    if key not in orders:
        centered, axis = _principal_axis(u, idx)
        orders[key] = idx[np.lexsort((u.first[idx], centered @ axis))]
    return orders[key]
