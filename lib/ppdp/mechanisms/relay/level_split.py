"""PLSA (Algorithm 2): the privacy-level-preserving split of classes.

A class is halved by splitting each sensitive value's tuples into a lower and an upper half along
the class's principal axis, so that both halves keep the class's sensitive distribution; the
split recurses while both halves meet the bound. The split of a class does not depend on the
bound and is computed once per class and units.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .measures import _js_rows, _principal_order
from .units import _TOL, _idx_key, _memo, _Units, _Window


def _stratified_split(u: _Units, idx: np.ndarray):
    """Halve each sensitive value's tuples along the principal axis: lower halves vs upper halves."""
    if idx.size < 2:
        return None
    order = _principal_order(u, idx)
    counts = u.counts[order].astype(np.int64)
    total = counts.sum(axis=0)
    target = total // 2
    odd = np.flatnonzero(total % 2 == 1)
    target[odd[::2]] += 1  # alternate rounding up and down over the odd counts
    # a greedy scan in exact integers; Python ints beat per-row numpy calls for a few values
    goal = target.tolist()
    acc = [0] * len(goal)
    lower = np.zeros(order.size, dtype=bool)
    for pos, row in enumerate(counts.tolist()):
        if all(a + r <= g for a, r, g in zip(acc, row, goal, strict=True)):
            acc = [a + r for a, r in zip(acc, row, strict=True)]
            lower[pos] = True
    if lower.all() or not lower.any():
        return None
    return order[lower], order[~lower]


def _plsa_split(u: _Units, idx: np.ndarray):
    """:func:`_stratified_split` of ``idx`` and the disclosure of its halves (``None``: no split).

    Neither depends on the bound, so both are computed once per class and units.
    """
    splits = _memo(u, "split")
    key = _idx_key(idx)
    if key not in splits:
        split = _stratified_split(u, idx)
        if split is None:
            splits[key] = None
        else:
            p = _js_rows(np.stack([u.counts[s].sum(axis=0) for s in split]), u.gdist)
            splits[key] = (split, p)
    return splits[key]


def _plsa(
    u: _Units, classes: list[np.ndarray], bound: float, window: _Window | None = None
) -> list[np.ndarray]:
    """PLSA of ``classes``; ``window``: record the comparisons (``bound`` is then ``delta``)."""
    queue = deque(classes)
    out = []
    while queue:
        current = queue.popleft()
        found = _plsa_split(u, current)
        if found is not None:
            split, p = found
            t = bound + _TOL
            if (p <= t).all() if window is None else window.meets(p, t):
                queue.extend(split)
                continue
        out.append(current)
    return out
