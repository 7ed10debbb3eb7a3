"""anonymeter's nearest-record search, compiled with numba and cached on disk.

:func:`search` (``search(queries, candidates_t, n_num, k)``, with the candidates one column per
row) returns for each query the first ``k`` entries of the argsort of its distances to the
candidates, as anonymeter's ``_nearest_neighbors`` computes them. The distances are its
``gower_distance`` (for each candidate, the same terms added in the same column order), computed
column by column over all candidates rather than candidate by candidate. The order is numba's
quicksort (``ndarray.argsort``), whose partition and insertion steps are reused here; only its
driver loop is written out, with one change: a part of the array that lies wholly at or past
position ``k`` is not sorted. Quicksort never moves an entry between the two sides of a placed
pivot, so the first ``k`` positions, ties included, are those of the full sort. The full sort of
all ~2,000 distances per target, of which the attacks keep 1 or 10, was three quarters of
anonymeter's search.

Both functions are module-level ``njit(cache=True)``: numba keys the cached machine code by this
file, numba's version and the CPU, so a process that finds it loads it instead of compiling.
Importing this module imports numba; :mod:`ppdp.attacks.suite` imports it on first use.
"""

from __future__ import annotations

from math import fabs, isnan

import numpy as np
from numba import njit
from numba.misc.quicksort import MAX_STACK, SMALL_QUICKSORT, make_jit_quicksort
from numba.np.numpy_support import lt_floats

__all__ = ["argsort_head", "search"]

# what ndarray.argsort() of a float array runs in numba (kind "quicksort")
_QUICKSORT = make_jit_quicksort(lt=lt_floats, is_argsort=True, is_np_array=True)
_partition, _insertion_sort = _QUICKSORT.partition, _QUICKSORT.insertion_sort


@njit(nogil=True, cache=True)
def argsort_head(a, k):  # pragma: no cover - compiled
    """The first ``k`` entries of numba's ``a.argsort()`` (quicksort), sorting no more."""
    r = np.arange(a.size)
    if a.size < 2:
        return r[:k]
    stack = np.zeros((MAX_STACK, 2), dtype=np.intp)
    stack[0, 1] = a.size - 1
    n = 1
    while n > 0:
        n -= 1
        low, high = stack[n, 0], stack[n, 1]
        while high - low >= SMALL_QUICKSORT and low < k:
            assert n < MAX_STACK
            i = _partition(a, r, low, high)
            # as numba's driver: push the larger side, go on with the smaller; never push a
            # side that starts at or past k
            if high - i > i - low:
                if high > i and i + 1 < k:
                    stack[n, 0], stack[n, 1] = i + 1, high
                    n += 1
                high = i - 1
            else:
                if i > low:
                    stack[n, 0], stack[n, 1] = low, i - 1
                    n += 1
                low = i + 1
        if low < k:
            _insertion_sort(a, r, low, high)
    return r[:k]


@njit(nogil=True, cache=True)
def search(queries, candidates_t, n_num, k):  # pragma: no cover - compiled
    """For each query, the positions of its ``k`` nearest candidates by Gower distance."""
    # anonymeter's gower_distance for every candidate at once: each candidate's distance adds
    # the same terms in the same column order, column by column over the candidates
    n_cols, n_cand = candidates_t.shape
    idx = np.zeros((queries.shape[0], k), dtype=np.int64)
    dist = np.zeros(n_cand, dtype=np.float64)
    for ix in range(queries.shape[0]):
        dist[:] = 0.0
        for i in range(n_cols):
            q = queries[ix, i]
            column = candidates_t[i]
            # anonymeter's term per candidate c: 1 when q and c are both missing; else |q - c|
            # for a numeric column (missing when either is), 1 when q != c for a categorical one.
            # Split by the query's value into loops without branches on it; adding 0.0 leaves a
            # distance (never -0.0) as it was, so the sums are the same bits
            if i >= n_num:
                # a missing value differs from every value, itself included: q != c covers both
                for iy in range(n_cand):
                    dist[iy] += 1.0 if column[iy] != q else 0.0
            elif isnan(q):
                for iy in range(n_cand):
                    c = column[iy]
                    dist[iy] += 1.0 if isnan(c) else fabs(q - c)
            else:
                for iy in range(n_cand):
                    dist[iy] += fabs(q - column[iy])
        idx[ix] = argsort_head(dist, k)
    return idx
