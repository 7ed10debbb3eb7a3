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
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .column_generation import StepSolver
from .problem import validate_problem

#: Smallest posterior probability searched by :func:`least_attractive_posterior`.
_TINY = 1e-9
#: Weights of the prior mixed into the posterior of the bound: the best of them is kept.
MIXING = (1e-2, 1e-3, 1e-4, 1e-6)


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
    p_a, p_b = p.sum(axis=1), p.sum(axis=0)
    if (p_a <= 0).any():
        return post
    cols = np.flatnonzero(free)
    cost = _PosteriorCost(p, _log_ratio(post, p_a, _TINY))
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
