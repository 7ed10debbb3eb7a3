"""Certified lower bounds on the optimum of problem (1), from the posterior of any mapping.

Not in the paper, which stops Frank-Wolfe after ``L`` steps with no bound on the optimum. For any
posterior ``pi(a | b^)`` with full support, the Barber-Agakov inequality
``I(A; B^) >= E[log2 pi(A | B^) / p(A)]`` holds for every mapping, and its right side is linear in
the mapping. Its minimum over the feasible set (the linear program (3) with costs
``c(b, b^) = sum_a p(a, b) log2 pi(a | b^) / p(a)``, solved by the column generation of Algorithm 2)
is therefore a lower bound on the optimum of (1), finite whatever mapping ``pi`` comes from: it is
the Lagrange dual of (1) at the multipliers that ``pi`` defines.

The bound is tight at the optimum, where every released value receives mass from every private
value (a released value reached from one value of ``A`` only would have an infinite slope of the
leakage towards mixing it, which no finite distortion price balances); on the synthetic problem at
a budget of 0.02 on [0, 1] the posterior of :class:`~.exact.ExactMapping`'s optimum certifies it
within 7e-5 bits at ``|B| = 256``. The posterior of an iterate with unmixed released values gives
a loose bound: the linear program sends mass to those values at the cost ``log2`` of the mixing
weight.

The linear program ranges over all ``|B| |B^|`` pairs (4.3e9 at ``|B| = 65,536``). When the
profiles are points on a line with squared distortion and fall in few groups of equal columns
``p(., b)`` (two on the synthetic data), :func:`line_posterior_bound` computes the same value
without them: it maximizes the program's Lagrange dual over the budget's multiplier, and each
group's row minima at a multiplier are the monotone minima of a Monge matrix (:func:`_line_min`).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .column_generation import StepSolver
from .multilevel import on_a_line
from .problem import validate_problem

#: Smallest posterior probability searched by :func:`least_attractive_posterior`.
_TINY = 1e-9
#: Weights of the prior mixed into the posterior of the bound: the best of them is kept.
MIXING = (1e-2, 1e-3, 1e-4, 1e-6)
#: Profiles on a line share their columns ``p(., b)`` in at most this many groups for the exact
#: row minima of :func:`line_posterior_bound` (more: the dense pass of the linear program).
LINE_GROUPS = 64
#: Each level of :func:`_line_min` resolves this many times more rows than the one before.
_FAN = 2
#: Evaluations of the dual function at most, per maximization over its multiplier.
_DUAL_EVALS = 200


class _PosteriorCost:
    """Costs ``c(b, b^) = sum_a p(a, b) log2 pi(a | b^) / p(a)`` in factored form (rank |A|)."""

    def __init__(self, p_ab: np.ndarray, log_ratio: np.ndarray):
        self.P = p_ab
        self.G = log_ratio

    def block(self, rows):
        return self.P[:, rows].T @ self.G

    def entries(self, rows, cols):
        return np.einsum("ak,ak->k", self.P[:, rows], self.G[:, cols])


def posterior_of(p_ab: np.ndarray, mapping) -> np.ndarray:
    """``q(a | b^)`` of a mapping; the prior ``p(a)`` where ``b^`` is never released."""
    joint = np.asarray((sp.csr_matrix(p_ab) @ sp.csr_matrix(mapping)).todense())
    q_b = joint.sum(axis=0)
    used = q_b > 0
    post = np.tile(p_ab.sum(axis=1)[:, None], (1, joint.shape[1]))
    post[:, used] = joint[:, used] / q_b[used]
    return post


def _log_ratio(post: np.ndarray, p_a: np.ndarray, mix: float) -> np.ndarray:
    """``log2 pi(a | b^) / p(a)`` with ``pi = (1 - mix) post + mix p(a)`` (0 where ``p(a) = 0``)."""
    pi = (1 - mix) * post + mix * p_a[:, None]
    with np.errstate(divide="ignore"):
        return np.where(p_a[:, None] > 0, np.log2(pi / np.where(p_a > 0, p_a, 1)[:, None]), 0.0)


def variational_lower_bound(p_ab, distortion, delta, mapping, *, mixing=MIXING, solver=None):
    """A lower bound on the optimum of problem (1) from the posterior of any mapping.

    Parameters
    ----------
    p_ab, distortion, delta
        The problem, as in :func:`~ppdp.mechanisms.sppm.validate_problem`.
    mapping : array or sparse matrix of shape (|B|, |B^|)
        Any mapping; the closer to optimal, the tighter the bound.
    mixing : sequence of float in (0, 1)
        Weights of the prior mixed into the posterior (which must have full support); each gives
        a valid bound, and the largest is returned.
    solver : StepSolver, optional
        A column-generation solver of the linear program (3) for this problem, to reuse.

    Returns
    -------
    bound : float
        In bits; never above the optimum.
    argmin : scipy.sparse.csr_matrix
        The minimizer of the linear program of the best bound: its support is where the bound
        says mass should go.

    Raises
    ------
    ValueError
        If a ``mixing`` weight is not in ``(0, 1)``, or the problem is invalid
        (:func:`~ppdp.mechanisms.sppm.validate_problem`, which also raises ``TypeError``).

    Examples
    --------
    The posterior of the exact optimum certifies it to within 1e-4 bits:

    >>> from ppdp.mechanisms.sppm import ExactMapping, synthetic_problem, variational_lower_bound
    >>> p, d = synthetic_problem(3)
    >>> exact = ExactMapping(1.0).fit(p, d)
    >>> bound, argmin = variational_lower_bound(p, d, 1.0, exact.mapping_)
    >>> round(bound, 2), round(exact.leakage_, 2)
    (0.31, 0.31)
    >>> bound <= exact.leakage_ < bound + 1e-4
    True
    """
    p, dist, delta = validate_problem(p_ab, distortion, delta)
    return posterior_lower_bound(
        p, dist, delta, posterior_of(p, mapping), mixing=mixing, solver=solver
    )


def posterior_lower_bound(p, dist, delta, post, *, mixing=MIXING, solver=None):
    """:func:`variational_lower_bound` for a posterior ``post[a, b^]`` given directly (columns
    summing to one), on a validated problem."""
    if not mixing or any(not 0 < w < 1 for w in mixing):
        raise ValueError(f"mixing must be weights in (0, 1), got {mixing!r}")
    solver = solver or StepSolver(p, dist, delta)
    p_a = p.sum(axis=1)
    best, best_map = -math.inf, None
    for w in mixing:
        cost = _PosteriorCost(p, _log_ratio(post, p_a, w))
        step = solver.solve(cost)
        # the LP meets its constraints up to HiGHS's tolerance; its value is then a bound on a
        # problem whose budget is larger by that tolerance: take the exact minimum of each row
        # at the LP's multipliers instead, which is a bound by weak duality whatever they are
        value = _dual_value(p, dist, delta, cost, step.lam)
        if value > best:
            best, best_map = value, step.mapping
    return best, best_map


def _dual_value(p, dist, delta, cost, lam) -> float:
    """``sum_b min_b^ (c(b, b^) + nu W(b, b^)) - nu delta`` with ``nu = -lam >= 0``: the Lagrangian
    dual of the linear program (3), a lower bound on its value for any ``nu >= 0``."""
    nu = max(-float(lam), 0.0)
    p_b = p.sum(axis=0)
    total = 0.0
    for rows in dist.chunks():
        red = cost.block(rows) + nu * p_b[rows, None] * dist.block(rows)
        total += float(red.min(axis=1).sum())
    return total - nu * delta


def least_attractive_posterior(p, dist, post, mass, nu, *, empty=1e-4, iters=48):
    """The posterior with its near-empty released values made as unattractive as possible.

    The bound from a mapping's posterior is tight only where the posterior is the dual optimum.
    A released value that the mapping (nearly) never uses has an arbitrary posterior, and the
    linear program of the bound may send profiles there cheaply. Any posterior gives a valid
    bound, so each value ``b^`` whose mass is at most ``empty`` times the largest gets instead
    the posterior that maximizes its smallest reduced cost over the profiles,
    ``min_b c(b, b^) + nu p(b) d(b, b^) - mu[b]``, with ``mu[b]`` the row's cheapest other value
    (``c`` as in :func:`variational_lower_bound`). That minimum is concave in the posterior; with
    two private values it is a function of one number, maximized by golden-section search.
    On a line with few groups of profiles (as for :func:`line_posterior_bound`) the minimum over
    the profiles comes from monotone minima, without the ``|B| x free`` reduced costs.

    Parameters
    ----------
    p, dist
        A validated problem (``validate_problem``).
    post : ndarray of shape (|A|, |B^|)
        The mapping's posterior (:func:`posterior_of`).
    mass : ndarray of shape (|B^|,)
        ``q(b^)`` under the mapping.
    nu : float
        Multiplier of the budget in bits per unit of ``p(b) d(b, b^)`` (e.g. the master's).
    empty : float
        Relative mass below which a released value's posterior is chosen afresh.

    Returns
    -------
    ndarray of shape (|A|, |B^|)
        ``post`` itself when ``|A| != 2`` or no value is near-empty, else a copy with new columns.
    """
    free = mass <= empty * mass.max()
    if p.shape[0] != 2 or not free.any() or free.all():
        return post
    p_a = p.sum(axis=1)
    if (p_a <= 0).any():
        return post
    cols = np.flatnonzero(free)
    G = _log_ratio(post, p_a, _TINY)
    line = _LineRows.of(p, dist)
    if line is None:
        smallest = _smallest_dense(p, dist, G, free, nu)
    else:
        smallest = _smallest_on_a_line(p, line, G, free, nu)

    # golden section, one evaluation per step: each column keeps the inner point it did not move
    lo, hi = np.full(cols.size, _TINY), np.full(cols.size, 1 - _TINY)
    ratio = (math.sqrt(5) - 1) / 2
    left, right = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f_left, f_right = smallest(left), smallest(right)
    for _ in range(iters):
        up = f_left > f_right  # the maximum lies in [lo, right]
        hi, lo = np.where(up, right, hi), np.where(up, lo, left)
        new = np.where(up, hi - ratio * (hi - lo), lo + ratio * (hi - lo))
        f_new = smallest(new)
        left, right = np.where(up, new, right), np.where(up, left, new)
        f_left, f_right = np.where(up, f_new, f_right), np.where(up, f_left, f_new)
    t = 0.5 * (lo + hi)
    out = post.copy()
    out[0, cols], out[1, cols] = t, 1 - t
    return out


def _smallest_dense(p, dist, G, free, nu):
    """``t -> min_b c_t(b, b^) + nu p(b) d(b, b^) - mu[b]`` on the free values of
    :func:`least_attractive_posterior`, from stored ``|B| x free`` blocks (any distortion)."""
    p_a, p_b = p.sum(axis=1), p.sum(axis=0)
    cols = np.flatnonzero(free)
    cost = _PosteriorCost(p, G)
    # per row chunk, nu p(b) d(b, b^) - mu[b] on the free values, with mu[b] the row's cheapest
    # value among those the mapping uses (one pass over the distortion)
    chunks = []
    for rows in dist.chunks():
        price = nu * p_b[rows, None] * dist.block(rows)
        red = cost.block(rows) + price
        red[:, free] = np.inf
        chunks.append((rows, price[:, cols] - red.min(axis=1)[:, None]))

    def smallest(t):
        # min over profiles of sum_a p(a, b) log2 pi(a) / p(a) + nu p(b) d - mu, pi = (t, 1 - t)
        out = np.full(cols.size, np.inf)
        for rows, base in chunks:
            val = np.outer(p[0, rows], np.log2(t / p_a[0])) + np.outer(
                p[1, rows], np.log2((1 - t) / p_a[1])
            )
            out = np.minimum(out, (val + base).min(axis=0))
        return out

    return smallest


def _smallest_on_a_line(p, line, G, free, nu):
    """:func:`_smallest_dense` on a line, from two monotone minima per group of profiles.

    Within a group (one column ``p(., b)``, see :class:`_LineRows`) the term
    ``sum_a p(a, b) log2 pi(a) / p(a)`` is the same for every profile, so the minimum over the
    group's profiles is that term plus ``min_b nu p(b) (x_b - x_b^)^2 - mu[b]``, which does not
    depend on ``pi``: a Monge minimum over the profiles for each free value (:func:`_line_min`,
    with ``mu`` itself the profiles' Monge minima over the used values). Exact up to rounding.
    """
    p_a = p.sum(axis=1)
    cols = np.flatnonzero(free)
    mu, _ = line.row_min(G, nu, np.flatnonzero(~free))
    along = np.argsort(line.x[cols], kind="stable")
    terms = []
    for column, weight, rows in line.groups:
        least, _ = _line_min(-mu[rows], nu * weight, line.x[cols[along]], line.x[rows])
        base = np.empty(cols.size)
        base[along] = least
        terms.append((column, base))

    def smallest(t):
        out = np.full(cols.size, np.inf)
        for column, base in terms:
            val = column[0] * np.log2(t / p_a[0]) + column[1] * np.log2((1 - t) / p_a[1])
            out = np.minimum(out, val + base)
        return out

    return smallest


def _line_min(f: np.ndarray, scale: float, x_query: np.ndarray, x_site: np.ndarray):
    """``min_j f[j] + scale (x_query[i] - x_site[j])^2`` for every ``i``, and the first ``j``
    attaining it, without the ``len(x_query) x len(x_site)`` matrix.

    Both point arrays must be ascending and ``scale >= 0``. The matrix
    ``M[i, j] = f[j] + scale (x_i - x_j)^2`` is then Monge: for ``i < i'`` and ``j < j'``,
    ``M[i, j] + M[i', j'] - M[i, j'] - M[i', j] = 2 scale (x_i' - x_i) (x_j - x_j') <= 0``, so the
    first minimizing column of a row never lies left of the row above's (monotone minima). Rows
    are resolved coarse to fine: the first, middle and last rows over all columns, then at each
    level ``_FAN - 1`` rows between two resolved ones, each searching only the columns between
    their minimizers. Those ranges overlap only at their ends, so a level computes about
    ``(_FAN - 1) len(x_site)`` entries plus its rows, and the whole (``_FAN = 2``) about
    ``len(x_site) log2 len(x_query) + 2 len(x_query)`` instead of their product. The minimum is
    the one of the full matrix up to floating-point ties.
    """
    n_q = x_query.size
    arg = np.full(n_q, -1, dtype=np.int64)
    val = np.empty(n_q)
    stride = 1
    while stride * _FAN < n_q:
        stride *= _FAN
    first = np.unique(np.append(np.arange(0, n_q, stride), n_q - 1))
    block = f[None, :] + scale * (x_query[first, None] - x_site[None, :]) ** 2
    arg[first] = block.argmin(axis=1)
    val[first] = block[np.arange(first.size), arg[first]]
    while stride > 1:
        fine = stride // _FAN
        rows = np.arange(0, n_q, fine)
        rows = rows[arg[rows] < 0]
        if rows.size == 0:
            stride = fine
            continue
        lo = (rows // stride) * stride
        hi = np.minimum(lo + stride, n_q - 1)
        start = arg[lo]
        width = np.maximum(arg[hi], start) + 1 - start
        offsets = np.concatenate([[0], np.cumsum(width)[:-1]])
        seg = np.repeat(np.arange(rows.size), width)
        cols = start[seg] + np.arange(seg.size) - offsets[seg]
        values = f[cols] + scale * (x_query[rows[seg]] - x_site[cols]) ** 2
        best = np.minimum.reduceat(values, offsets)
        hit = np.flatnonzero(values == best[seg])
        # the first hit of each row: where the row index changes along the hits
        hit = hit[np.concatenate([[True], seg[hit][1:] != seg[hit][:-1]])]
        arg[rows] = cols[hit]
        val[rows] = best
        stride = fine
    return val, arg


class _LineRows:
    """The profiles of a problem on a line, grouped by their column ``p(., b)``.

    Within a group every profile has the same costs ``c(b, .) = sum_a p(a, b) G(a, .)`` and the
    same weight ``p(b)``, so its reduced costs ``c(b, b^) + nu p(b) (x_b - x_b^)^2`` differ only
    through ``x_b``: the Monge rows of :func:`_line_min`. On the synthetic data (``A`` fixed by
    the half of the line) there are two groups.
    """

    def __init__(self, p: np.ndarray, x: np.ndarray, columns: np.ndarray, inverse: np.ndarray):
        self.x = x
        self.order = np.argsort(x, kind="stable")
        self.x_sorted = x[self.order]
        self.groups = []
        for g, column in enumerate(columns):
            rows = np.flatnonzero(inverse == g)
            rows = rows[np.argsort(x[rows], kind="stable")]
            self.groups.append((column, float(p[:, rows[0]].sum()), rows))

    @classmethod
    def of(cls, p: np.ndarray, dist):
        """The grouping, or None when ``dist`` is not a squared distortion between points on a
        line or the profiles fall in more than ``LINE_GROUPS`` groups."""
        if not on_a_line(dist) or dist.shape[0] != p.shape[1]:
            return None
        columns, inverse = np.unique(p.T, axis=0, return_inverse=True)
        if columns.shape[0] > LINE_GROUPS:
            return None
        return cls(p, dist.points[:, 0], columns, inverse.reshape(-1))

    def row_min(self, G: np.ndarray, nu: float, cols: np.ndarray | None = None):
        """Each profile's smallest reduced cost ``sum_a p(a, b) G(a, b^) + nu p(b) d(b, b^)`` over
        the released values ``cols`` (all by default), and the value attaining it.

        Returns ``(value, argmin)``, both of shape ``(|B|,)``.
        """
        sites = self.order if cols is None else self.order[np.isin(self.order, cols)]
        x_sites = self.x[sites]
        value = np.empty(self.x.size)
        arg = np.empty(self.x.size, dtype=np.int64)
        for column, weight, rows in self.groups:
            val, at = _line_min(column @ G[:, sites], nu * weight, self.x[rows], x_sites)
            value[rows], arg[rows] = val, sites[at]
        return value, arg

    def dual(self, G: np.ndarray, nu: float, delta: float) -> tuple[float, float]:
        """The Lagrange dual of the linear program (3) with costs from ``G`` at the budget
        multiplier ``nu``: ``sum_b min_b^ (c(b, b^) + nu p(b) d(b, b^)) - nu delta``, and its slope
        in ``nu`` at a minimizer of every row (a supergradient: the dual is concave)."""
        value, arg = self.row_min(G, nu)
        spent = sum(
            weight * float(((self.x[rows] - self.x[arg[rows]]) ** 2).sum())
            for _, weight, rows in self.groups
        )
        return float(value.sum()) - nu * delta, spent - delta


def _maximize_dual(dual, delta: float, nu: float, tol: float = 1e-12) -> tuple[float, float]:
    """The largest value of a concave piecewise-linear ``dual(nu) -> (value, slope)`` over
    ``nu >= 0`` (within ``tol`` of ``max(1, |value|)``), and where it was found.

    The dual of the linear program (3) over the budget's multiplier alone (the simplex of each
    row kept in the inner minimum) equals the program's value by linear-programming duality, and
    every evaluation is a valid lower bound by weak duality, so the best one found is returned
    whatever the search. The search brackets the maximum between a positive and a negative slope,
    then steps to where the two tangents cross (their crossing bounds the maximum from above,
    which stops the search), falling back to bisection when a step shrinks the bracket less than
    by half.
    """
    g_lo, s_lo = dual(0.0)
    best, best_nu = g_lo, 0.0
    if s_lo <= 0:
        return best, best_nu
    lo, hi, g_hi, s_hi = 0.0, None, None, None
    nu = nu if nu > 0 else 1.0 / max(delta, 1e-300)
    for _ in range(_DUAL_EVALS):
        g, s = dual(nu)
        if g > best:
            best, best_nu = g, nu
        if s < 0:
            hi, g_hi, s_hi = nu, g, s
            break
        if s == 0:
            return best, best_nu
        lo, g_lo, s_lo, nu = nu, g, s, 4.0 * nu
    if hi is None:
        return best, best_nu
    width = hi - lo
    for _ in range(_DUAL_EVALS):
        cross = (g_hi - g_lo + s_lo * lo - s_hi * hi) / (s_lo - s_hi)
        top = g_lo + s_lo * (cross - lo)
        if top - best <= tol * max(1.0, abs(best)) or hi - lo <= 1e-15 * hi:
            break
        if not lo < cross < hi or hi - lo > 0.5 * width:
            cross = 0.5 * (lo + hi)
        width = hi - lo
        g, s = dual(cross)
        if g > best:
            best, best_nu = g, cross
        if s > 0:
            lo, g_lo, s_lo = cross, g, s
        elif s < 0:
            hi, g_hi, s_hi = cross, g, s
        else:
            break
    return best, best_nu


def line_posterior_bound(p, dist, delta, post, *, mixing=MIXING, nu: float = 0.0):
    """:func:`posterior_lower_bound` on a line, without the ``|B| x |B^|`` reduced costs.

    The bound of :func:`posterior_lower_bound` is the value of the linear program (3) with the
    posterior's costs; by linear-programming duality it equals the largest value over
    ``nu >= 0`` of the Lagrange dual ``sum_b min_b^ (c(b, b^) + nu p(b) d(b, b^)) - nu delta``
    (the budget priced, each row's simplex kept), and the dual at any ``nu >= 0`` is a lower bound
    by weak duality. For squared distortion between points on a line and profiles in few groups
    of equal columns ``p(., b)``, each group's row minima are the monotone minima of a Monge
    matrix (:func:`_line_min`), computed from about ``|B^| log2 |B|`` reduced costs per group
    instead of ``|B| |B^|``; the concave dual is then maximized over ``nu`` alone (about 20
    evaluations, 0.1 s each at ``|B| = 65,536``).

    Parameters
    ----------
    p, dist, delta
        A validated problem (``validate_problem``).
    post : ndarray of shape (|A|, |B^|)
        A posterior (columns summing to one), e.g. :func:`posterior_of` a mapping.
    mixing : sequence of float in (0, 1)
        As in :func:`variational_lower_bound`.
    nu : float, default 0
        Where the search over the multiplier starts (e.g. a master's budget price, in bits per
        unit of ``p(b) d(b, b^)``); 0 starts from ``1 / delta``.

    Returns
    -------
    (bound, nu) or None
        The bound in bits (never above the optimum) and the multiplier attaining it; None when
        ``dist`` is not a squared distortion on a line or the profiles fall in more than
        ``LINE_GROUPS`` groups (use :func:`posterior_lower_bound` then).

    Raises
    ------
    ValueError
        If a ``mixing`` weight is not in ``(0, 1)``.

    Examples
    --------
    The same bound as the linear program's, on the synthetic problem:

    >>> from ppdp.mechanisms.sppm import ExactMapping, synthetic_problem
    >>> from ppdp.mechanisms.sppm.bounds import (
    ...     line_posterior_bound, posterior_lower_bound, posterior_of)
    >>> p, d = synthetic_problem(5)
    >>> post = posterior_of(p, ExactMapping(20.0).fit(p, d).mapping_)
    >>> bound, nu = line_posterior_bound(p, d, 20.0, post)
    >>> abs(bound - posterior_lower_bound(p, d, 20.0, post)[0]) < 1e-9
    True
    """
    if not mixing or any(not 0 < w < 1 for w in mixing):
        raise ValueError(f"mixing must be weights in (0, 1), got {mixing!r}")
    line = _LineRows.of(p, dist)
    if line is None:
        return None
    p_a = p.sum(axis=1)
    best, best_nu = -math.inf, 0.0
    for w in mixing:
        G = _log_ratio(post, p_a, w)
        value, at = _maximize_dual(lambda v, G=G: line.dual(G, v, delta), delta, nu)
        if value > best:
            best, best_nu = value, at
    return best, best_nu
