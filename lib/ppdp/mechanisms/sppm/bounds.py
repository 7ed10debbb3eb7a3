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


def _posterior(p_ab: np.ndarray, mapping) -> np.ndarray:
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
        The problem, as in :func:`~ppdp.mechanisms.sppm.problem.validate_problem`.
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
    """
    p, dist, delta = validate_problem(p_ab, distortion, delta)
    if not mixing or any(not 0 < w < 1 for w in mixing):
        raise ValueError(f"mixing must be weights in (0, 1), got {mixing!r}")
    solver = solver or StepSolver(p, dist, delta)
    post, p_a = _posterior(p, mapping), p.sum(axis=1)
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
