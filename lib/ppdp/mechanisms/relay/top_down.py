"""TDA phase I (Algorithm 3): binary cuts of a set of units while both halves meet ``delta``.

The candidate cuts are the thresholds along the principal axis of the weighted QIs and along each
QI axis, all evaluated at once with cumulative sums; the cheapest cut (smallest within-cluster
loss) whose two halves both meet ``delta`` is taken, and a set without one is an output class
(a master class of TDA and FLA). The candidates do not depend on ``delta``: they are computed
once per set of units, and each threshold only picks among them.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .measures import _js_rows, _principal_axis
from .units import _TOL, _idx_key, _memo, _Units

#: Floats per group of axes gathered at once by :func:`_cut_frontier` (4 MiB): on Adult's
#: benchmark release (5,948 units of 68 coordinates) one axis at a time rather than 69 at once:
#: 28 s instead of 32 s for four releases (TDA and FLA at two thresholds).
_CUT_ENTRIES = 1 << 19


def _cut_frontier(u: _Units, idx: np.ndarray):
    """Every candidate cut of ``idx``, reduced to what any threshold can select.

    The loss of a cut and the disclosure of its halves do not depend on ``delta``; only which
    cuts qualify does. Candidates are sorted by loss (ties: flat position, i.e. principal axis
    first, then QI order, then the smaller left part, as :func:`numpy.argmin` breaks them); the
    cut chosen at ``delta`` is the first in that order whose worse half meets ``delta``. Only
    the candidates whose worse half discloses less than every cheaper one's can be chosen: the
    frontier.

    Returns
    -------
    levels : numpy.ndarray
        Worse-half disclosure of the frontier's cuts, strictly decreasing.
    cuts : list of (int, int)
        ``(axis, k)`` of each frontier cut: the left part is the first ``k + 1`` units along
        ``axis``.
    orders : dict
        ``idx`` sorted along each axis that a frontier cut uses.
    """
    centered, axis = _principal_axis(u, idx)
    spread = np.ptp(centered, axis=0) > 0
    projections = np.concatenate([(centered @ axis)[None, :], centered[:, spread].T])  # (A, m)
    # np.lexsort((first, proj)) for every axis at once: stable sorts compose, so sorting by row
    # number and then stably by the projection gives exactly lexsort's order
    by_first = np.argsort(u.first[idx], kind="stable")
    local = by_first[np.argsort(projections[:, by_first], axis=1, kind="stable")]  # (A, m)
    _memo(u, "order")[_idx_key(idx)] = idx[local[0]]
    size = u.size[idx]
    # per-unit products gathered, rather than computed on the (A, m, d) gather: the same values
    weighted = size[:, None] * centered
    squares = size * (centered**2).sum(axis=1)
    counts = u.counts[idx]
    # a few axes at a time, so that their (axes, m, d) gather stays in the processor's cache:
    # every cost is computed along its own axis, so the values do not depend on the grouping
    step = max(1, _CUT_ENTRIES // weighted.size)
    costs = [
        _cut_costs(size[part], weighted[part], squares[part], counts[part], u.gdist)
        for part in (local[lo : lo + step] for lo in range(0, len(local), step))
    ]
    loss = np.concatenate([c[0] for c in costs])
    js = np.concatenate([c[1] for c in costs], axis=1)
    worst = np.maximum(js[0], js[1]).ravel()
    by_cost = np.argsort(loss.ravel(), kind="stable")
    running = np.minimum.accumulate(worst[by_cost])
    steps = np.flatnonzero(np.concatenate([[True], running[1:] < running[:-1]]))
    cuts = [divmod(int(f), loss.shape[1]) for f in by_cost[steps]]
    orders = {a: idx[local[a]] for a, _ in cuts}
    return running[steps], cuts, orders


def _cut_costs(n, nx, sq, c, gdist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Loss and disclosure of every cut along every axis, from cumulative sums.

    ``n``, ``nx``, ``sq``, ``c``: per axis, the units in cut order with their sizes, size-weighted
    centred QI vectors, size-weighted squared norms and sensitive counts, shapes ``(A, m)``,
    ``(A, m, d)``, ``(A, m)``, ``(A, m, K)``. Cut ``k`` puts the first ``k + 1`` units left.

    Returns
    -------
    loss : ndarray, shape (A, m - 1)
        Within-part sum of squared distances of both parts.
    js : ndarray, shape (2, A, m - 1)
        Disclosure of the left and the right part.
    """
    cn = np.cumsum(n, axis=1)[:, :-1]
    cs = np.cumsum(nx, axis=1)[:, :-1]
    cq = np.cumsum(sq, axis=1)[:, :-1]
    cc = np.cumsum(c, axis=1)[:, :-1]
    tn = n.sum(axis=1, keepdims=True)
    ts = nx.sum(axis=1, keepdims=True)
    tq = sq.sum(axis=1, keepdims=True)
    tc = c.sum(axis=1, keepdims=True)
    left = cq - (cs**2).sum(axis=2) / cn
    right = (tq - cq) - ((ts - cs) ** 2).sum(axis=2) / (tn - cn)
    halves = np.concatenate([cc.reshape(-1, cc.shape[2]), (tc - cc).reshape(-1, cc.shape[2])])
    js = _js_rows(halves, gdist).reshape(2, *cn.shape)
    return left + right, js


def _best_cut(u: _Units, idx: np.ndarray, delta: float):
    """Cheapest binary cut of ``idx`` whose two halves both meet ``delta``, or ``None``.

    Candidate cuts are the thresholds along the principal axis and along every weighted QI axis
    (all evaluated at once with cumulative sums); the one with the smallest within-cluster loss
    wins (ties: principal axis first, then QI order, then the smaller left part). The candidates
    of ``idx`` are computed once per units (:func:`_cut_frontier`); each ``delta`` then only
    picks among them.
    """
    if idx.size < 2:
        return None
    frontiers = _memo(u, "cut")
    key = _idx_key(idx)
    if key not in frontiers:
        frontiers[key] = _cut_frontier(u, idx)
    levels, cuts, orders = frontiers[key]
    hit = np.flatnonzero(levels <= delta + _TOL)
    if hit.size == 0:
        return None
    a, k = cuts[int(hit[0])]
    order = orders[a]
    return order[: k + 1], order[k + 1 :]


def _tda_phase1(u: _Units, idx: np.ndarray, delta: float) -> list[np.ndarray]:
    queue = deque([idx])
    out = []
    while queue:
        current = queue.popleft()
        cut = _best_cut(u, current, delta)
        if cut is None:
            out.append(current)
        else:
            queue.extend(cut)
    return out
