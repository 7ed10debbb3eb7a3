"""BUA (Algorithm 1): basic groups, merges until every group meets ``delta``, then PLSA.

Phase I builds basic groups that hold every sensitive value once, hands out dominating values
and lets the remaining units join the nearest group dominated by their value; it does not depend
on ``delta``. Phase II merges each violating group with a near group that lowers its disclosure.
A result is reused for every threshold that decides all of its comparisons alike (``_Window``).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from .level_split import _plsa
from .measures import _js_rows
from .units import _TOL, _idx_key, _memo, _Units, _Window


def _largest_remainder(total: int, freq: np.ndarray) -> np.ndarray:
    raw = total * freq
    quota = np.floor(raw).astype(np.int64)
    short = total - int(quota.sum())
    if short > 0:
        order = np.lexsort((np.arange(freq.size), -(raw - quota)))
        quota[order[:short]] += 1
    return quota


def _bua_groups(u: _Units, idx: np.ndarray) -> list[list[int]]:
    """Phase I: basic groups (every sensitive value once), dominating values, remaining tuples."""
    idx = idx[np.argsort(u.first[idx], kind="stable")]
    x = u.x[idx]
    c = u.counts[idx]
    has = c > 0
    present = c.sum(axis=0) > 0
    totals = np.where(present, c.sum(axis=0), np.inf)
    rare = int(np.argmin(totals))
    assigned = np.full(idx.size, -1)
    groups: list[list[int]] = []
    for s in np.flatnonzero(has[:, rare]):
        if assigned[s] >= 0:
            continue
        gid = len(groups)
        members = [int(s)]
        assigned[s] = gid
        cover = has[s].copy()
        while True:
            missing = np.flatnonzero(present & ~cover)
            if missing.size == 0:
                break
            a = missing[0]
            cand = np.flatnonzero(has[:, a] & (assigned < 0))
            if cand.size == 0:
                cover[a] = True  # no free tuple carries a: the group stays without it
                continue
            dist = ((x[cand] - x[s]) ** 2).sum(axis=1)
            j = int(cand[np.argmin(dist)])
            members.append(j)
            assigned[j] = gid
            cover |= has[j]
        groups.append(members)

    rest = np.flatnonzero(assigned < 0)
    if rest.size:
        n_groups = len(groups)
        size = np.array([u.size[idx[g]].sum() for g in groups])
        centroid = (
            np.stack([(u.size[idx[g], None] * x[g]).sum(axis=0) for g in groups]) / size[:, None]
        )
        major = np.argmax(c[rest], axis=1)
        freq = c.sum(axis=0) / c.sum()
        quota = _largest_remainder(n_groups, freq)
        k = c.shape[1]
        near = np.full((n_groups, k), np.inf)
        for a in range(k):
            members = rest[major == a]
            if members.size:
                near[:, a] = cKDTree(x[members]).query(centroid, k=1)[0] ** 2
        dominant = np.full(n_groups, -1)
        for flat in np.argsort(near.ravel(), kind="stable"):
            g, a = divmod(int(flat), k)
            if dominant[g] < 0 and quota[a] > 0:
                dominant[g] = a
                quota[a] -= 1
        for a in range(k):
            members = rest[major == a]
            if not members.size:
                continue
            pool = np.flatnonzero(dominant == a)
            if pool.size == 0:
                pool = np.arange(n_groups)
            _, nearest = cKDTree(centroid[pool]).query(x[members], k=1)
            for j, g in zip(members, pool[np.atleast_1d(nearest)], strict=True):
                groups[int(g)].append(int(j))
    return [sorted(idx[g].tolist(), key=lambda v: u.first[v]) for g in groups]


def _bua(u: _Units, idx: np.ndarray, delta: float) -> list[np.ndarray]:
    """BUA on the units ``idx`` (phase I, phase II, then PLSA).

    FLA runs BUA on the same master class at several thresholds, which mostly decide every
    comparison alike: a result is reused for each ``delta`` inside its :class:`_Window`.
    """
    runs = _memo(u, "bua").setdefault(_idx_key(idx), [])
    for window, result in runs:
        if window.contains(delta):
            return list(result)
    window = _Window()
    result = _bua_run(u, idx, delta, window)
    runs.append((window, result))
    return list(result)


def _bua_run(u: _Units, idx: np.ndarray, delta: float, window: _Window) -> list[np.ndarray]:
    # phase I does not depend on delta
    phase1 = _memo(u, "groups")
    key = _idx_key(idx)
    if key not in phase1:
        phase1[key] = _bua_groups(u, idx)
    groups = phase1[key]
    # Phase II: merge until every group meets delta
    members = [np.asarray(g) for g in groups]
    n_groups = len(members)
    gsize = np.array([u.size[g].sum() for g in members])
    gsum = np.stack([(u.size[g, None] * u.x[g]).sum(axis=0) for g in members])
    gcounts = np.stack([u.counts[g].sum(axis=0) for g in members])
    alive = np.ones(n_groups, dtype=bool)
    disc = _js_rows(gcounts, u.gdist)
    index = np.arange(n_groups)
    while True:
        violating = alive.copy()
        violating[alive] = window.exceed(disc[alive], delta + _TOL)
        if not violating.any():
            break
        i = int(np.flatnonzero(violating)[np.argmax(disc[violating])])
        others = np.flatnonzero(alive & (index != i))
        if others.size == 0:
            break
        centroid = gsum[others] / gsize[others, None]
        dist = ((centroid - gsum[i] / gsize[i]) ** 2).sum(axis=1)
        merged = _js_rows(gcounts[others] + gcounts[i], u.gdist)
        by_distance = np.lexsort((others, dist))
        better = merged[by_distance] < disc[i]
        if better.any():
            pick = int(by_distance[int(np.argmax(better))])
        else:
            pick = int(np.lexsort((others, dist, merged))[0])
        j = int(others[pick])
        gsize[i] += gsize[j]
        gsum[i] += gsum[j]
        gcounts[i] += gcounts[j]
        members[i] = np.concatenate([members[i], members[j]])
        alive[j] = False
        # the union's disclosure was just computed (counts are integers, so their sums are
        # exact in any order, and _js_rows treats each row alone)
        disc[i] = merged[pick]
    classes = [members[g] for g in np.flatnonzero(alive)]
    # _partition_disclosure(u, classes), whose class counts are the alive groups' counts
    disclosure = float(disc[alive].max())
    bound = window.bound(delta, disclosure)
    # PLSA compares against delta itself only when delta is the bound
    return _plsa(u, classes, bound, None if disclosure < delta else window)
