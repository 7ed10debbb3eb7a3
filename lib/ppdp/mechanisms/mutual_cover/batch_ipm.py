"""Many random-output-table LPs solved in one compiled loop, each with a certified lower bound.

The LP of one group and one QI (Section 4, one row per distinct value ``k`` with count ``c_k``,
``m = sum_k c_k`` records, output columns ``j``, cost ``C_kj = c_k d_kj``) is

.. math::

    \\min \\sum_{kj} C_{kj} q_{kj} \\quad\\text{s.t.}\\quad \\sum_j q_{kj} = 1,\\quad
    q_{kj} \\ge 0,\\quad w_{kj} = \\delta s_j - q_{kj} \\ge 0,\\quad s_j = \\sum_k c_k q_{kj}.

:func:`interior_point_tables` solves a list of such LPs with one Mehrotra predictor-corrector
interior-point method specialised to this structure, compiled with numba (``njit(cache=True)`` at
module level: numba keeps the machine code in this package's ``__pycache__``, so a later process
loads it instead of compiling). A column's Newton matrix is

.. math::

    H_j = \\operatorname{diag}(a + e) + \\delta^2 E\\, c c^T - \\delta (c e^T + e c^T),
    \\qquad a = y/q,\\ e = z/w,\\ E = \\textstyle\\sum_k e_k,

which is never formed. Column ``j`` is written in the variables ``ds_j``, ``dq_kj`` for the rows
whose bound ``q_kj >= 0`` is the nearer one and ``dw_kj = delta ds_j - dq_kj`` for the rows whose
``delta`` row is nearer to tight, under one linear constraint that says ``ds_j = c^T dq_j``. In
these variables every large barrier weight (``y/q`` of an entry at 0, ``z/w`` of a tight ``delta``
row, both of order ``1/mu``) sits on the diagonal of a diagonal matrix bordered by ``ds_j``, which
is factored as ``L D L^T`` with pivots that are sums of positive terms; ``H_j^{-1}`` is its
inverse projected on the constraint (the projection refined once), a diagonal plus two rank-one
terms, applied in ``O(r)``. Written in ``q`` alone (Woodbury on the form above) a pivot is the
difference of terms of order ``1/mu``, and the step of a tight row's ``w`` is the difference of
large steps of ``q``; near the optimum both lose their digits and the iterates stall at a relative
gap of ``1e-8`` to ``1e-6``. The row sums couple the columns through ``S = sum_j H_j^{-1}``
(``r x r``, Cholesky). One iteration costs ``O(n r^2 + r^3)``.

Every iterate's row-sum multipliers give a lower bound on the optimum without a second solve
(:func:`certified_lower_bound`, the dual characterisation below), so each table comes back with
a certificate of how far from optimal it is at most.

**Lower bound (the dual as a top-K condition).** The dual of the LP is ``max sum_k lambda_k``
such that every column ``j`` admits ``z_kj >= 0`` with
``C_kj - lambda_k - delta c_k sum_k' z_k'j + z_kj >= 0``. With ``a_k = lambda_k / c_k - d_kj``
the smallest such ``z`` is ``c_k (a_k + t)^+`` for ``t = delta sum_k' z_k'j``, so column ``j`` is
feasible iff ``h_j = min_{t >= 0} delta sum_k c_k (a_k + t)^+ - t <= 0``; the unconstrained
minimum sits at ``t = -a_(i)``, the first ``a`` in descending order at which the cumulative count
reaches ``1/delta``. For ``delta = 1/K``: the ``K`` largest ``a`` (records counted with
multiplicity) must sum to at most 0. Lowering every ``lambda_k / c_k`` by
``s = max_j max(0, h_j)`` makes every column feasible (the minimiser moves by ``s`` to
``t = s - a_(i) >= 0``), so ``sum_k lambda_k - s m`` bounds the optimum from below for any
multipliers, and equals it for optimal ones (strong duality).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

__all__ = ["certified_lower_bound", "interior_point_tables"]

# error_model="numpy": a division by zero gives inf or nan (caught by the iteration) instead of
# raising, which also keeps the compiled loops free of zero checks
_JIT = {"cache": True, "nogil": True, "error_model": "numpy"}
# the kernels only the compiled loop calls: no Python entry point to compile
_KERNEL = {**_JIT, "no_cpython_wrapper": True}

#: Fraction of the largest step to the boundary that an iterate moves.
_STEP = 0.995


@njit(**_JIT)
def _lower_bound(cost, counts, delta, multipliers):  # pragma: no cover - compiled
    """:func:`certified_lower_bound` (the lower bound of the module docstring), compiled."""
    r, n = cost.shape
    m = 0.0
    total = 0.0
    for k in range(r):
        m += counts[k]
        total += multipliers[k]
    a = np.empty(r)
    weight = np.empty(r)
    shift = 0.0
    for j in range(n):
        # per-record values a_k, sorted descending with their counts (insertion sort: r is
        # small, and numba compiles it in a fraction of argsort's time)
        for k in range(r):
            ak = (multipliers[k] - cost[k, j]) / counts[k]
            i = k
            while i > 0 and a[i - 1] < ak:
                a[i] = a[i - 1]
                weight[i] = weight[i - 1]
                i -= 1
            a[i] = ak
            weight[i] = counts[k]
        cum = 0.0
        acc = 0.0
        for i in range(r):
            cum += weight[i]
            acc += weight[i] * a[i]
            # 1e-12: a count sum of 1/delta computed as 1 - ulp still reaches it
            if delta * cum >= 1.0 - 1e-12 or i == r - 1:
                h = delta * (acc - cum * a[i]) + a[i]
                if h > shift:
                    shift = h
                break
    return total - shift * m


@njit(**_KERNEL)
def _factor(q, y, z, w, counts, delta, invd, ell, pp, tight, col):  # pragma: no cover - compiled
    """Per column, the factors of ``H_j^{-1}``; returns ``S = sum_j H_j^{-1}``.

    Column ``j`` is written in the variables ``(ds, dq_k for k in N, dw_k for k in T)``, where
    ``T`` holds the rows whose ``delta`` row is closer to tight than their ``q >= 0`` bound
    (``e_k > a_k``), under the constraint
    ``(1 - delta c_T) ds - sum_N c_k dq_k + sum_T c_k dw_k = 0`` (which says ``ds = c^T dq``).
    The barrier's quadratic form is then a diagonal ``d = a + e`` bordered by ``ds``, with every
    large weight (``a_k`` of a row at 0, ``e_k`` of a tight row) on the diagonal. It is
    factored as ``L D L^T``: border ``l_k = -delta e_k / d_k`` (N) or ``-delta a_k / d_k`` (T),
    pivot ``sigma = delta^2 sum_k e_k a_k / d_k``; the constraint after the border is
    ``u = (1 - delta c_T) + delta sum_T c a / d - delta sum_N c e / d`` and its pivot
    ``pi = sum_k c_k^2 / d_k + u^2 / sigma``. Every pivot is a sum of positive terms, and the
    step of a tight row's ``w`` comes out of small coefficients instead of as the difference of
    large steps of ``q``. ``pp`` holds the constraint's image ``M^{-1} a`` (its ``ds``
    component in ``col[j, 2]``).
    """
    r, n = q.shape
    S = np.zeros((r, r))
    lq = np.empty(r)
    pq = np.empty(r)
    for j in range(n):
        ea = 0.0
        cc = 0.0
        cut = 0.0
        c_tight = 0.0
        for k in range(r):
            a = y[k, j] / q[k, j]
            e = z[k, j] / w[k, j]
            inv = 1.0 / (a + e)
            invd[k, j] = inv
            ea += e * a * inv
            cc += counts[k] * counts[k] * inv
            tight[k, j] = e > a
            if e > a:
                c_tight += counts[k]
                ell[k, j] = -delta * a * inv
                cut += counts[k] * a * inv
            else:
                ell[k, j] = -delta * e * inv
                cut -= counts[k] * e * inv
        sigma = delta * delta * ea
        u = (1.0 - delta * c_tight) + delta * cut
        pi = cc + u * u / sigma
        ps = u / sigma
        col[j, 0] = sigma
        col[j, 1] = pi
        col[j, 2] = ps
        for k in range(r):
            if tight[k, j]:
                pp[k, j] = counts[k] * invd[k, j] - ell[k, j] * ps
                # mapped back to q: dq_k = delta ds - dw_k
                lq[k] = delta + ell[k, j]
                pq[k] = delta * ps - pp[k, j]
            else:
                pp[k, j] = -counts[k] * invd[k, j] - ell[k, j] * ps
                lq[k] = -ell[k, j]
                pq[k] = pp[k, j]
        for k in range(r):
            S[k, k] += invd[k, j]
            lk = lq[k] / sigma
            pk = pq[k] / pi
            for i in range(k + 1):
                S[k, i] += lk * lq[i] - pk * pq[i]
    for k in range(r):
        for i in range(k):
            S[i, k] = S[k, i]
    return S


@njit(**_KERNEL)
def _apply_hinv(v, counts, delta, invd, ell, pp, tight, col, dq, bq):  # pragma: no cover - compiled
    """``dq_j = H_j^{-1} v_j`` for every column ``j``, and ``bq = delta c^T dq - dq``, the step
    of ``w`` it implies, read off a tight row's own variable where the row is tight."""
    r, n = v.shape
    y = np.empty(r)
    for j in range(n):
        sigma, pi, ps = col[j, 0], col[j, 1], col[j, 2]
        vs = 0.0
        for k in range(r):
            if tight[k, j]:
                vs += v[k, j]
        vs *= delta
        ts = vs
        pv = ps * vs
        for k in range(r):
            vy = -v[k, j] if tight[k, j] else v[k, j]
            ts -= ell[k, j] * vy
            pv += pp[k, j] * vy
        ts /= sigma
        pv /= pi
        ds = ts - ps * pv
        c_tight = 0.0
        res = 0.0
        for k in range(r):
            vy = -v[k, j] if tight[k, j] else v[k, j]
            yk = vy * invd[k, j] - ell[k, j] * ts - pp[k, j] * pv
            y[k] = yk
            if tight[k, j]:
                c_tight += counts[k]
                res += counts[k] * yk
            else:
                res -= counts[k] * yk
        # the constraint ds = c^T dq holds only up to the rounding of large terms: project once
        # more (iterative refinement), else the steps of q and w drift apart
        res = (res + (1.0 - delta * c_tight) * ds) / pi
        ds -= ps * res
        for k in range(r):
            yk = y[k] - pp[k, j] * res
            if tight[k, j]:
                dq[k, j] = delta * ds - yk
                bq[k, j] = yk
            else:
                dq[k, j] = yk
                bq[k, j] = delta * ds - yk


@njit(**_KERNEL)
def _cholesky(S):  # pragma: no cover - compiled
    """Lower Cholesky factor of ``S``; a pivot lost to rounding becomes huge, which drops that
    direction (as interior-point codes do with their normal equations)."""
    r = S.shape[0]
    L = np.zeros((r, r))
    for i in range(r):
        for j in range(i + 1):
            s = S[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            if i == j:
                L[i, i] = np.sqrt(s) if s > 1e-30 * max(1.0, abs(S[i, i])) else 1e128
            else:
                L[i, j] = s / L[j, j]
    return L


@njit(**_KERNEL)
def _cholesky_solve(L, b, x):  # pragma: no cover - compiled
    r = L.shape[0]
    for i in range(r):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]
    for i in range(r - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, r):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]


@njit(**_KERNEL)
def _row_sum_multipliers(L, rp, dq, out):  # pragma: no cover - compiled
    """``out`` solving ``S out = rp - sum_j dq_j`` (``S = L L^T``): what the row sums still miss."""
    r, n = dq.shape
    rho = np.empty(r)
    for k in range(r):
        rho[k] = rp[k]
        for j in range(n):
            rho[k] -= dq[k, j]
    _cholesky_solve(L, rho, out)


@njit(**_KERNEL)
def _direction(
    q,
    y,
    z,
    w,
    counts,
    delta,
    rq,
    rw,
    rp,
    rb,
    rd,
    invd,
    ell,
    pp,
    tight,
    col,
    L,
    g,
    tmp,
    bq,
    dq,
    dy,
    dz,
    dw,
    dlam,
):  # pragma: no cover - compiled
    """Newton direction for the complementarity targets ``rq`` (of ``q y``) and ``rw`` (``w z``).

    The residuals are ``rp`` (row sums), ``rb = delta s - q - w`` and ``rd`` (dual); ``dy``,
    ``dz`` and ``dw`` follow from ``dq``, which solves ``H_j dq_j = g_j + dlam`` per column with
    ``sum_j dq_j = rp``; one step of iterative refinement on the row sums.
    """
    r, n = q.shape
    for j in range(n):
        vsum = 0.0
        for k in range(r):
            vsum += (rw[k, j] - z[k, j] * rb[k, j]) / w[k, j]
        for k in range(r):
            v = (rw[k, j] - z[k, j] * rb[k, j]) / w[k, j]
            g[k, j] = rq[k, j] / q[k, j] + delta * counts[k] * vsum - v - rd[k, j]
    _apply_hinv(g, counts, delta, invd, ell, pp, tight, col, tmp, bq)
    _row_sum_multipliers(L, rp, tmp, dlam)
    for j in range(n):
        for k in range(r):
            g[k, j] += dlam[k]
    _apply_hinv(g, counts, delta, invd, ell, pp, tight, col, dq, dw)
    fix = np.empty(r)
    _row_sum_multipliers(L, rp, dq, fix)
    for j in range(n):
        for k in range(r):
            g[k, j] = fix[k]
    _apply_hinv(g, counts, delta, invd, ell, pp, tight, col, tmp, bq)
    for k in range(r):
        dlam[k] += fix[k]
    for j in range(n):
        for k in range(r):
            dq[k, j] += tmp[k, j]
            dw[k, j] += bq[k, j] + rb[k, j]
            dy[k, j] = (rq[k, j] - y[k, j] * dq[k, j]) / q[k, j]
            dz[k, j] = (rw[k, j] - z[k, j] * dw[k, j]) / w[k, j]


@njit(**_KERNEL)
def _max_step(x, dx):  # pragma: no cover - compiled
    """Largest ``t`` with ``x + t dx >= 0``."""
    r, n = x.shape
    t = np.inf
    for k in range(r):
        for j in range(n):
            if dx[k, j] < 0.0:
                t = min(t, -x[k, j] / dx[k, j])
    return t


@njit(**_KERNEL)
def _violation(q, counts, delta):  # pragma: no cover - compiled
    """Largest violation of the table's constraints by ``q`` itself (row sums, ``q >= 0``,
    ``q_kj <= delta s_j``)."""
    r, n = q.shape
    worst = 0.0
    for k in range(r):
        t = 1.0
        for j in range(n):
            t -= q[k, j]
            worst = max(worst, -q[k, j])
        worst = max(worst, abs(t))
    for j in range(n):
        s = 0.0
        for k in range(r):
            s += counts[k] * q[k, j]
        for k in range(r):
            worst = max(worst, q[k, j] - delta * s)
    return worst


@njit(**_KERNEL)
def _solve(cost, counts, delta, tol, max_iter, q):  # pragma: no cover - compiled
    """One LP: writes the best iterate into ``q``; returns (lower bound, iterations).

    Starts strictly feasible (uniform rows, ``w = (delta m - 1)/n``; constant ``z`` and
    multipliers low enough that ``y > 0``) and keeps the iterate of least objective among those
    that meet the constraints within ``1e-9``; stops once its objective is within ``tol``
    (relative) of the best certified lower bound, when the duality gap stops falling, or after
    ``max_iter`` iterations.
    """
    r, n = cost.shape
    m = 0.0
    for k in range(r):
        m += counts[k]
    scale = 0.0
    for k in range(r):
        for j in range(n):
            scale = max(scale, abs(cost[k, j]))
    if scale == 0.0:
        scale = 1.0
    # every array filled by loops: numba compiles array expressions and np.full far more slowly
    C = np.empty((r, n))
    best_q = np.empty((r, n))
    w = np.empty((r, n))
    y = np.empty((r, n))
    z = np.empty((r, n))
    lam = np.empty(r)
    for k in range(r):
        bz = (delta * counts[k] * r - 1.0) / n  # (B^T z)_kj for z = 1/n
        lo = np.inf
        for j in range(n):
            C[k, j] = cost[k, j] / scale
            q[k, j] = 1.0 / n
            best_q[k, j] = 1.0 / n
            w[k, j] = (delta * m - 1.0) / n
            z[k, j] = 1.0 / n
            lo = min(lo, C[k, j] - bz)
        lam[k] = lo - 1.0 / n
        for j in range(n):
            y[k, j] = C[k, j] - lam[k] - bz
    invd, ell, pp = np.empty((r, n)), np.empty((r, n)), np.empty((r, n))
    tight = np.empty((r, n), dtype=np.bool_)
    col = np.empty((n, 3))
    g, tmp, bq = np.empty((r, n)), np.empty((r, n)), np.empty((r, n))
    rq, rw, rb, rd = np.empty((r, n)), np.empty((r, n)), np.empty((r, n)), np.empty((r, n))
    dq, dy, dz, dw = np.empty((r, n)), np.empty((r, n)), np.empty((r, n)), np.empty((r, n))
    dlam, rp = np.empty(r), np.empty(r)
    target = 0.0
    best_obj = np.inf
    best_lam = np.empty(r)
    best_lb = -np.inf
    n_comp = 2.0 * r * n
    best_gap = np.inf
    stall = 0
    it = 0
    while True:
        gap = 0.0
        obj = 0.0
        for k in range(r):
            for j in range(n):
                gap += q[k, j] * y[k, j] + w[k, j] * z[k, j]
                obj += C[k, j] * q[k, j]
        if not (np.isfinite(gap) and np.isfinite(obj)):
            break
        if obj < best_obj and _violation(q, counts, delta) <= 1e-9:
            best_obj = obj
            for k in range(r):
                for j in range(n):
                    best_q[k, j] = q[k, j]
        if gap <= 1e-3 * max(1.0, abs(obj)):
            lb = _lower_bound(C, counts, delta, lam)
            if lb > best_lb:
                best_lb = lb
                for k in range(r):
                    best_lam[k] = lam[k]
            if best_obj - best_lb <= tol * max(1.0 / scale, abs(best_obj)):
                break
        # stalled: the gap stopped falling three times without halving in between
        if gap < 0.5 * best_gap:
            stall = 0
        elif not gap < best_gap:
            stall += 1
        best_gap = min(best_gap, gap)
        if stall >= 3 or it >= max_iter:
            break
        it += 1
        mu = gap / n_comp
        for k in range(r):
            rp[k] = 1.0
            for j in range(n):
                rp[k] -= q[k, j]
        for j in range(n):
            zsum = 0.0
            s = 0.0
            for k in range(r):
                zsum += z[k, j]
                s += counts[k] * q[k, j]
            for k in range(r):
                rd[k, j] = C[k, j] - lam[k] - y[k, j] - delta * counts[k] * zsum + z[k, j]
                rb[k, j] = delta * s - q[k, j] - w[k, j]
        S = _factor(q, y, z, w, counts, delta, invd, ell, pp, tight, col)
        L = _cholesky(S)
        # predictor (affine scaling), then the corrector (Mehrotra: centring plus the predictor's
        # second-order term) in the same arrays; one call site keeps numba's compile time down
        for corrector in range(2):
            if corrector:
                ap = min(1.0, _max_step(q, dq), _max_step(w, dw))
                ad = min(1.0, _max_step(y, dy), _max_step(z, dz))
                mu_aff = 0.0
                for k in range(r):
                    for j in range(n):
                        mu_aff += (q[k, j] + ap * dq[k, j]) * (y[k, j] + ad * dy[k, j])
                        mu_aff += (w[k, j] + ap * dw[k, j]) * (z[k, j] + ad * dz[k, j])
                target = min(1.0, (mu_aff / n_comp / mu) ** 3) * mu
            for k in range(r):
                for j in range(n):
                    if corrector:
                        rq[k, j] = target - q[k, j] * y[k, j] - dq[k, j] * dy[k, j]
                        rw[k, j] = target - w[k, j] * z[k, j] - dw[k, j] * dz[k, j]
                    else:
                        rq[k, j] = -q[k, j] * y[k, j]
                        rw[k, j] = -w[k, j] * z[k, j]
            _direction(
                q, y, z, w, counts, delta, rq, rw, rp, rb, rd, invd, ell, pp, tight, col, L, g,
                tmp, bq, dq, dy, dz, dw, dlam,
            )  # fmt: skip
        ap = min(1.0, _STEP * min(_max_step(q, dq), _max_step(w, dw)))
        ad = min(1.0, _STEP * min(_max_step(y, dy), _max_step(z, dz)))
        for k in range(r):
            lam[k] += ad * dlam[k]
            for j in range(n):
                q[k, j] += ap * dq[k, j]
                w[k, j] += ap * dw[k, j]
                y[k, j] += ad * dy[k, j]
                z[k, j] += ad * dz[k, j]
    # the certificate on the caller's costs, not the scaled ones
    for k in range(r):
        best_lam[k] *= scale
        for j in range(n):
            q[k, j] = best_q[k, j]
    return _lower_bound(cost, counts, delta, best_lam), it


@njit(**_JIT)
def _solve_all(
    costs, counts, shapes, starts, row_starts, delta, tol, max_iter, q_out, lower, iters
):  # pragma: no cover - compiled
    for i in range(shapes.shape[0]):
        r, n = shapes[i, 0], shapes[i, 1]
        cost = costs[starts[i] : starts[i] + r * n].reshape((r, n))
        q = q_out[starts[i] : starts[i] + r * n].reshape((r, n))
        lower[i], iters[i] = _solve(
            cost, counts[row_starts[i] : row_starts[i] + r], delta, tol, max_iter, q
        )


def interior_point_tables(
    problems: Sequence[tuple[np.ndarray, np.ndarray]],
    delta: float,
    *,
    tol: float = 1e-10,
    max_iter: int = 60,
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Interior-point tables of many random-output-table LPs, one compiled call for all.

    Parameters
    ----------
    problems : sequence of (distance (r, n), counts (r,))
        One LP each (as :func:`~ppdp.mechanisms.mutual_cover.solve_random_output_table` takes
        it), with ``delta * counts.sum() > 1`` (a strict interior).
    delta : float
        The delta-probability bound shared by all.
    tol : float
        Relative gap (objective minus certified lower bound) at which an LP stops.
    max_iter : int
        Largest number of iterations per LP.

    Returns
    -------
    tables : list of ndarray (r, n)
        Per LP, the iterate of least objective among those whose rows sum to one,
        entries are non-negative and ``q_kj <= delta s_j`` within ``1e-9``; not repaired
        (:func:`~ppdp.mechanisms.mutual_cover.repair_table`).
    lower : ndarray
        A certified lower bound on each LP's optimum (:func:`certified_lower_bound` of the
        best multipliers met).
    iterations : ndarray of int

    Raises
    ------
    ValueError
        If a distance matrix is not a non-empty 2-d array, its counts are not one positive
        number per row, or ``delta * counts.sum() <= 1``.
    """
    if len(problems) == 0:
        return [], np.empty(0), np.empty(0, dtype=np.int64)
    for i, (d, c) in enumerate(problems):
        shape, c = np.shape(d), np.asarray(c, dtype=float)
        if len(shape) != 2 or 0 in shape or c.shape != shape[:1] or np.any(c <= 0):
            raise ValueError(
                f"problem {i}: distance must be a non-empty 2-d array with one positive count "
                f"per row, got shapes {shape} and {c.shape}"
            )
        if not delta * c.sum() > 1.0:
            raise ValueError(
                f"problem {i}: delta * m = {delta * c.sum():g} must exceed 1 (an LP with "
                "delta = 1/m has no interior)"
            )
    shapes = np.array([np.shape(d) for d, _ in problems], dtype=np.int64)
    sizes = shapes[:, 0] * shapes[:, 1]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    row_starts = np.concatenate([[0], np.cumsum(shapes[:, 0])]).astype(np.int64)
    counts = np.concatenate([np.asarray(c, dtype=float) for _, c in problems])
    costs = np.concatenate(
        [
            (np.asarray(c, dtype=float)[:, None] * np.asarray(d, dtype=float)).ravel()
            for d, c in problems
        ]
    )
    q = np.empty(starts[-1])
    lower = np.empty(len(problems))
    iterations = np.empty(len(problems), dtype=np.int64)
    _solve_all(
        costs, counts, shapes, starts, row_starts, float(delta), float(tol), int(max_iter), q,
        lower, iterations,
    )  # fmt: skip
    tables = [q[starts[i] : starts[i + 1]].reshape(shapes[i]) for i in range(len(problems))]
    return tables, lower, iterations


def certified_lower_bound(cost, counts, delta: float, multipliers) -> float:
    """A lower bound on the random-output-table LP's optimum from any row-sum multipliers.

    With ``a_k = multipliers_k / c_k - d_kj`` per record, column ``j`` is dual feasible iff
    ``h_j = min_{t >= 0} delta sum_k c_k (a_k + t)^+ - t <= 0`` (for ``delta = 1/K``: the ``K``
    largest ``a`` sum to at most 0). Lowering every ``multipliers_k / c_k`` by
    ``s = max_j max(0, h_j)`` makes every column feasible, so ``sum(multipliers) - s m`` is at
    most the optimum (the module docstring derives it); for optimal multipliers (HiGHS's row
    duals of the row sums) it equals the optimum. ``O(n r log r)``.

    Parameters
    ----------
    cost : ndarray (r, n)
        ``C_kj = c_k d_kj``, the LP's objective coefficients.
    counts : ndarray (r,)
        Positive record counts ``c_k``.
    delta : float
        In ``[1/m, 1]`` for ``m = counts.sum()``.
    multipliers : ndarray (r,)
        Any multipliers of the row sums ``sum_j q_kj = 1``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the shapes do not match, a count is not positive, a value is not finite, or
        ``delta`` lies outside ``[1/m, 1]``.

    Examples
    --------
    Two records, 0/1 distance, ``delta = 0.6``: the optimum is 0.8 (each keeps its value with
    probability 0.6); multipliers 0.4 per row certify it, zeros certify only 0:

    >>> import numpy as np
    >>> from ppdp.mechanisms.mutual_cover.batch_ipm import certified_lower_bound
    >>> cost = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> round(certified_lower_bound(cost, [1, 1], 0.6, [0.4, 0.4]), 12)
    0.8
    >>> certified_lower_bound(cost, [1, 1], 0.6, [0.0, 0.0])
    0.0
    """
    cost = np.asarray(cost, dtype=float)
    counts = np.asarray(counts, dtype=float)
    multipliers = np.asarray(multipliers, dtype=float)
    if cost.ndim != 2 or cost.size == 0:
        raise ValueError(f"cost must be a non-empty 2-d array, got shape {cost.shape}")
    r = cost.shape[0]
    if counts.shape != (r,) or multipliers.shape != (r,) or np.any(counts <= 0):
        raise ValueError(
            f"counts must be {r} positive numbers and multipliers {r} numbers, got shapes "
            f"{counts.shape} and {multipliers.shape}"
        )
    if not (
        np.isfinite(cost).all() and np.isfinite(counts).all() and np.isfinite(multipliers).all()
    ):
        raise ValueError("cost, counts and multipliers must be finite")
    m = counts.sum()
    if not (1.0 / m - 1e-12 <= delta <= 1.0):
        raise ValueError(f"delta={delta!r} must lie in [1/m, 1] for m={m:g} records")
    return float(_lower_bound(cost, counts, float(delta), multipliers))
