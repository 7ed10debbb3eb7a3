"""SPPM (Algorithm 1): Frank-Wolfe over the feasible set of problem (1).

The factored gradient of the leakage (Sec. 3.4), the exact line search (Eq. 5) and
:class:`SPPM`, whose linear steps are solved by ``column_generation``.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ppdp import infotheory
from ppdp._validation import Interval, StrOptions, validate_hyperparameters
from ppdp.guarantees import enforce

from .bounds import variational_lower_bound
from .column_generation import COLUMNS_PER_ROW, StepSolver
from .problem import (
    DELTA,
    expected_distortion,
    repair_distortion,
    validate_problem,
)
from .release import BudgetedMapping

#: The module's logger (silent unless the application configures ``ppdp``'s).
logger = logging.getLogger(__name__)


@dataclass
class _Gradient:
    """The gradient ``C[b, b^] = sum_a p(a, b) G[a, b^]`` in factored form.

    ``G`` is the log ratio ``log2 q(a, b^) / (p(a) q(b^))`` of the current joint ``q`` (from
    :func:`ppdp.infotheory.leakage_log_ratio`). Two edge cases are replaced by their limits:

    * an unused released value (``q(b^) = 0``): the one-sided derivative of moving mass there is
      ``sum_a p(a, b) log2 p(a | b) / p(a)`` for every ``b^``, stored per row in ``unused_cost``;
    * ``q(a, b^) = 0`` while ``q(b^) > 0``: the derivative is ``-inf`` for rows with
      ``p(a, b) > 0``; the ratio is floored at ``floor`` so that the linear step is finite
      (``floored`` tells whether this happened; the FW gap is then not a certified bound).
    """

    p_ab: np.ndarray
    G: np.ndarray
    unused: np.ndarray  # bool (|B^|,)
    unused_cost: np.ndarray  # (|B|,)
    floored: bool

    def __post_init__(self):
        # C = P_ext^T G_ext with one extra rank for the unused columns: unused_cost[b] * 1[b^ unused]
        self.P_ext = np.vstack([self.p_ab, self.unused_cost[None, :]])
        self.G_ext = np.vstack(
            [np.where(self.unused[None, :], 0.0, self.G), self.unused[None, :].astype(float)]
        )

    def factors(self):
        """``(L, R)`` with ``C = L @ R``: L of shape (|B|, r), R of shape (r, |B^|)."""
        return self.P_ext.T, self.G_ext

    def block(self, rows):
        return self.P_ext[:, rows].T @ self.G_ext

    def entries(self, rows, cols):
        return np.einsum("ak,ak->k", self.P_ext[:, rows], self.G_ext[:, cols])


def _log_ratio(joint: np.ndarray) -> np.ndarray:
    """``log2 q(a, b^) / (q(a) q(b^))`` of a joint ``q`` via the infotheory core.

    NaN in unused columns and rows, ``-inf`` in zero cells of used columns (its conventions).
    """
    eye = sp.identity(joint.shape[1], format="csr")
    total = joint.sum()
    return np.asarray(infotheory.leakage_log_ratio(joint / total, eye), dtype=float)


def gradient(p_ab: np.ndarray, mapping: sp.csr_matrix, floor: float) -> _Gradient:
    """Factored gradient of the leakage at ``mapping`` (Sec. 3.4), see :class:`_Gradient`."""
    G = np.asarray(infotheory.leakage_log_ratio(p_ab, mapping), dtype=float)
    joint = np.asarray((sp.csr_matrix(p_ab) @ mapping).todense())
    q_b = joint.sum(axis=0)
    unused = ~(q_b > 0)
    unused_cost = np.zeros(p_ab.shape[1])
    if unused.any():
        first = int(np.flatnonzero(unused)[0])
        unused_cost = np.asarray(infotheory.leakage_gradient(p_ab, mapping, columns=[first]))[:, 0]
    zero = np.isneginf(G)
    floored = bool(zero.any())
    if floored:
        # -inf slope (a true -inf: some b has p(a, b) > 0 whenever p(a) > 0); the pointwise
        # leakage log2 q(a | b^) / p(a) is floored at log2(floor)
        G = np.where(zero, math.log2(floor), G)
    G = np.where(np.isnan(G), 0.0, G)
    if not np.all(np.isfinite(G)):
        raise FloatingPointError("non-finite gradient of the leakage")
    return _Gradient(p_ab, G, unused, unused_cost, floored)


def _line_search(q0: np.ndarray, q1: np.ndarray, iters: int = 200) -> float:
    """Exact line search for ``min_{g in [0, 1]} I(q0 + g (q1 - q0))`` (Eq. 5).

    ``I`` is convex along the segment, so its derivative
    ``sum (q1 - q0) log2 q_g(a, b^) / (q_g(a) q_g(b^))`` is non-decreasing; it is bisected to machine
    precision. Entries where both joints vanish contribute nothing.
    """
    diff = q1 - q0
    active = diff != 0
    # only columns where the joint moves matter; rows with p(a) = 0 never move
    cols = np.flatnonzero(active.any(axis=0))
    q0c, dc, ac = q0[:, cols], diff[:, cols], active[:, cols]
    log_pa = np.log2(np.where(q0.sum(axis=1) > 0, q0.sum(axis=1), 1.0))[:, None]

    def deriv(g):
        # sum (q1 - q0) log2 q_g(a, b^) / (p(a) q_g(b^)): the pointwise leakage of
        # infotheory.leakage_log_ratio, inlined because it runs ~60 times per step (under the
        # caller's errstate: log2(0) and 0 * inf are expected)
        q = q0c + g * dc
        ratio = np.log2(q) - log_pa - np.log2(q.sum(axis=0))[None, :]
        return float(np.where(ac, dc * ratio, 0.0).sum())

    lo, hi = 0.0, 1.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d_hi = deriv(1.0)
        if not np.isnan(d_hi) and d_hi <= 0:
            return 1.0
        for _ in range(iters):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            d = deriv(mid)
            if d > 0:
                hi = mid
            else:
                lo = mid
    return 0.5 * (lo + hi)


def _inner(grad, mapping) -> float:
    """``<C, X>`` over the support of a sparse mapping."""
    coo = mapping.tocoo()
    return float(np.sum(coo.data * grad.entries(coo.row, coo.col)))


def _check_start(p, dist, delta, init) -> sp.csr_matrix:
    """``init`` as a CSR mapping, checked: shape, entries, rows summing to one, within budget."""
    n, m = dist.shape
    X = sp.csr_matrix(init, dtype=float)
    if X.shape != (n, m):
        raise ValueError(f"init must have shape (|B|, |B^|) = {(n, m)}, got {X.shape}")
    if not np.all(np.isfinite(X.data)) or (X.data < 0).any():
        raise ValueError("init must have finite, non-negative entries")
    rows = np.asarray(X.sum(axis=1)).ravel()
    worst = float(np.abs(rows - 1).max())
    if worst > 1e-9:
        raise ValueError(
            f"init's rows must sum to 1 (within 1e-9), the worst is off by {worst:.3g}"
        )
    X = sp.csr_matrix(sp.diags(1.0 / rows) @ X)
    X.eliminate_zeros()
    spent = expected_distortion(p, dist, X)
    if spent > delta:
        raise ValueError(
            f"init must be within the budget: E[d(B, B^)] = {spent!r} > delta = {delta!r}"
        )
    return X


def _combine(atoms, weights) -> sp.csr_matrix:
    out = atoms[0] * weights[0]
    for a, w in zip(atoms[1:], weights[1:], strict=True):
        out = out + a * w
    out = sp.csr_matrix(out)
    out.eliminate_zeros()
    return out


class SPPM(BudgetedMapping):
    """Sparse privacy-preserving mapping: Frank-Wolfe with column generation (Algorithms 1-2).

    Parameters
    ----------
    delta : float
        Distortion budget ``Delta >= 0`` of problem (1).
    n_steps : int, default 100
        Number ``L`` of Frank-Wolfe steps (the paper's default, Sec. 4.3).
    variant : {"vanilla", "away"}, default "vanilla"
        ``"vanilla"`` is Algorithm 1. ``"away"`` adds away steps (Lacoste-Julien and Jaggi, 2015):
        when moving away from the worst vertex of the current convex combination decreases the
        linearization more than the Frank-Wolfe vertex, step away from it (an extension, not in
        the paper).
    floor : float, default 1e-2
        Floor of the ratio ``q(a | b^) / p(a)`` inside the gradient's log (Sec. 3.4). The gradient
        is ``-inf`` where ``q(a, b^) = 0 < q(b^)`` and ``p(a, b) > 0`` (e.g. at the identity start
        on the synthetic data, where moving mass across the two halves lowers the leakage at an
        infinite rate); there the pointwise leakage is replaced by ``log2(floor)``, which keeps the
        linear step finite while ranking those directions first. The line search and every
        reported leakage use the exact objective, so the floor only steers the search.
    tol : float, default 0
        Stop early when the Frank-Wolfe gap ``<C, X - X'>`` falls to ``tol`` (bits); 0 runs all
        ``L`` steps as in the paper.
    cg_tol : float, default 1e-9
        A column is violated when its reduced cost (scaled to the largest cost) is below ``-cg_tol``.
    active_set : {"reset", "keep"}, default "reset"
        ``"reset"`` restarts each step's column generation from the diagonal as in Algorithm 2,
        seeded with the previous step's solution, and solves the first master problem of each
        step from scratch. ``"keep"`` keeps the restricted master LP (4), with its active
        variables and its simplex basis, across Frank-Wolfe steps: each step only changes the
        costs, so the primal simplex continues from the previous optimal basis (see
        ``drop_after``). The LP optimum is the same either way; which is faster depends on the
        alphabet. On the synthetic data (ordered points, squared distortion) ``"keep"`` solves
        ``|B| = 16,384`` in 13 s against 100 s; on the 2,124-profile Movie alphabet (Hamming
        distortion), where the optimal vertex moves far between steps, it takes 40 s against 16 s.
    columns_per_row : int, default 3
        Columns added per row and pricing round: a row with a violated column (reduced cost of
        Eq. 7-8 below ``-cg_tol``) brings its ``columns_per_row`` most negative reduced costs that
        are below ``-cg_tol``. 1 is Algorithm 2's single column. More columns per round mean
        fewer master solves and pricing passes per step, since the neighbours of a row's best
        value are often the next ones needed as the dual ``lambda`` of the distortion constraint
        moves: on the synthetic data at ``|B| = 16,384`` with ``active_set="keep"``, 3 takes 2.5
        instead of 3.4 rounds per step and about 20% less time. Where LP (3) has tied optimal vertices, another value can
        lead to a different (equally valid) Frank-Wolfe path.
    drop_after : int or None, default 5
        With ``active_set="keep"``, delete a column from the master LP once it has been non-basic
        (hence ``x = 0``) at the end of ``drop_after`` consecutive linear steps, so that the LP stays
        near the size of its basis; pricing brings it back if it becomes attractive again. Basic
        columns are never deleted, so the basis stays valid and the next step warm-starts from it.
        ``None`` keeps every column. Ignored with ``"reset"``, which rebuilds the LP every step.
    blas_threads : int or None, default 1
        BLAS threads during ``fit`` (``None`` leaves the setting alone).
    certify : bool, default True
        After the last step, also bound the optimum from below with
        :func:`~ppdp.mechanisms.sppm.variational_lower_bound` at the final mapping (one
        more linear program and one pass over all pairs), so that ``lower_bound_`` is finite even
        when every step's gradient was floored.
    progress : bool, default False
        Show a tqdm progress bar over the steps.

    Attributes
    ----------
    mapping_ : scipy.sparse.csr_matrix of shape (|B|, |B^|)
    leakage_ : float
        ``I(A; B^)`` in bits of the final mapping.
    distortion_ : float
        Its expected distortion.
    lower_bound_ : float
        A certified lower bound on the optimum: the largest of ``f(X_l) - gap_l`` over steps whose
        gradient was finite, and, with ``certify``, the variational bound at the final mapping and
        0 (leakage is never negative). Without ``certify`` it is ``-inf`` when every gradient was
        floored. It is tight only near the optimum; from a mapping that leaves released values
        unmixed the variational bound is loose.
    history_ : pandas.DataFrame
        One row per step (step 0 is the start): ``step, leakage, distortion, gamma, gap,
        lp_value, active_set, lp_rounds, dropped, support, floored, away, seconds``
        (``active_set`` at the end of the step's column generation, ``dropped`` the columns then
        deleted, see ``drop_after``).
    kept_start_ : bool
        Whether ``init`` (or the default start) was returned because the final repair into the
        budget would have raised the leakage above it.
    n_active_ : int
        Number of active variables of the column generation at the end of the last linear step.
    pricing_seconds_, lp_seconds_ : float
        Time spent pricing (Eq. 7-8) and solving master LPs (HiGHS).
    priced_entries_ : int
        Number of reduced costs computed by pricing (blocks skipped by their lower bound are
        not computed).
    n_releases_ : int
        Releases since the last ``fit`` (``release``, :class:`~ppdp.base.ReleaseLedger`).

    Raises
    ------
    ValueError
        From ``fit`` (the constructor stores its arguments as given and checks nothing), if a
        hyper-parameter is not allowed (an ``InvalidParameterError``, also a ``TypeError``,
        naming it) or the problem is invalid (:func:`~ppdp.mechanisms.sppm.validate_problem`).

    Notes
    -----
    The default start ``X_0`` maps each ``b`` to its nearest released value (the identity when
    ``d(b, b) = 0``), which is feasible for every admissible budget; ``fit(..., init=...)``
    starts elsewhere. The active set of the column
    generation starts at the diagonal plus those nearest values (see ``active_set``).
    Where several LP vertices are optimal, the one HiGHS returns depends on the active set, so
    ``active_set``, ``columns_per_row`` and ``drop_after`` can lead to slightly different (equally
    valid) paths; each linear step is solved exactly either way.

    Examples
    --------
    The synthetic problem with eight points at a budget of 1 (its optimum leaks 0.314 bits, see
    :class:`ExactMapping`); ten steps bring the leakage from 1 bit to 0.378, with a certified
    lower bound of 0.29:

    >>> from ppdp.mechanisms.sppm import SPPM, synthetic_problem
    >>> p, d = synthetic_problem(3)
    >>> sppm = SPPM(1.0, n_steps=10).fit(p, d)
    >>> round(sppm.leakage_, 3), round(sppm.lower_bound_, 3), sppm.distortion_ <= 1.0
    (0.378, 0.29, True)
    >>> sppm.history_[["step", "leakage"]].iloc[[0, 5, 10]].round(3)
        step  leakage
    0      0    1.000
    5      5    0.409
    10    10    0.378
    >>> sppm.mapping_.shape, sppm.mapping_.nnz
    ((8, 8), 24)
    >>> sppm.release([0, 3, 4, 7], random_state=0)
    array([0, 5, 1, 7])
    """

    _parameter_constraints: ClassVar[dict] = {
        "variant": [StrOptions(("vanilla", "away"))],
        "active_set": [StrOptions(("keep", "reset"))],
        "n_steps": [Interval(Integral, 0, None, closed="left")],
        "floor": [Interval(Real, 0, 1, closed="neither")],
        # tol and cg_tol may be infinite, as they always could
        "tol": [Interval(Real, 0, None, closed="both")],
        "cg_tol": [Interval(Real, 0, None, closed="right")],
        "columns_per_row": COLUMNS_PER_ROW,
        "drop_after": [Interval(Integral, 1, None, closed="left"), None],
        "delta": DELTA,
        "blas_threads": [Interval(Integral, 1, None, closed="left"), None],
        "certify": ["boolean"],
    }

    def __init__(
        self,
        delta,
        n_steps: int = 100,
        *,
        variant: str = "vanilla",
        floor: float = 1e-2,
        tol: float = 0.0,
        cg_tol: float = 1e-9,
        active_set: str = "reset",
        columns_per_row: int = 3,
        drop_after: int | None = 5,
        blas_threads: int | None = 1,
        certify: bool = True,
        progress: bool = False,
    ):
        self.variant = variant
        self.active_set = active_set
        self.columns_per_row = columns_per_row
        self.drop_after = drop_after
        self.delta = delta
        self.n_steps = n_steps
        self.floor = floor
        self.tol = tol
        self.cg_tol = cg_tol
        self.blas_threads = blas_threads
        self.certify = certify
        self.progress = progress

    def fit(self, p_ab, distortion, *, init=None, callback=None):
        """Learn the mapping for the joint ``p_ab`` and the distortion; returns ``self``.

        Parameters
        ----------
        p_ab, distortion
            The problem (see :func:`~ppdp.mechanisms.sppm.validate_problem`).
        init : array or sparse matrix of shape (|B|, |B^|), optional
            The starting point ``X_0`` of Algorithm 1, which the paper leaves open: any mapping
            within the budget, e.g. the solution at a smaller budget (a warm start along a budget
            grid). Default: each ``b`` to its nearest released value. The fitted mapping never
            leaks more than ``init``: if the final repair into the budget raises the leakage above
            it, ``init`` itself is returned, so a path of warm starts over increasing budgets
            gives a non-increasing curve.
        callback : callable, optional
            ``callback(step, mapping)`` is called with every iterate (step 0 is the start).
        """
        from threadpoolctl import threadpool_limits

        validate_hyperparameters(self)
        # The pricing products are thin (rank ~ |A| + rank d) and memory-bound; threaded BLAS
        # gains nothing on them and slows down by an order of magnitude on a busy machine.
        with threadpool_limits(limits=self.blas_threads, user_api="blas"):
            return self._fit(p_ab, distortion, init, callback)

    def _fit(self, p_ab, distortion, init, callback):
        # the hyper-parameters as numbers (checked by fit): numpy scalars compute as Python's
        n_steps, floor, tol = int(self.n_steps), float(self.floor), float(self.tol)
        columns_per_row = int(self.columns_per_row)
        drop_after = None if self.drop_after is None else int(self.drop_after)
        p, dist, delta = validate_problem(p_ab, distortion, self.delta)
        n, m = dist.shape
        t_start = time.perf_counter()
        if init is None:
            arg, _ = dist.row_min()
            X = sp.csr_matrix((np.ones(n), (np.arange(n), arg)), shape=(n, m))
        else:
            X = _check_start(p, dist, delta, init)
        q = np.asarray((sp.csr_matrix(p) @ X).todense())
        f = float(infotheory.leakage(p, X))
        X_start, f_start = X, f
        solver = StepSolver(
            p,
            dist,
            delta,
            tol=float(self.cg_tol),
            active_set=self.active_set,
            columns_per_row=columns_per_row,
            drop_after=drop_after,
        )
        history = [
            dict(
                step=0,
                leakage=f,
                distortion=expected_distortion(p, dist, X),
                gamma=np.nan,
                gap=np.nan,
                lp_value=np.nan,
                active_set=0,
                lp_rounds=0,
                dropped=0,
                support=X.nnz,
                floored=False,
                away=False,
                seconds=time.perf_counter() - t_start,
            )
        ]
        lower = -np.inf
        if callback is not None:
            callback(0, X)
        steps = range(1, n_steps + 1)
        if self.progress:
            from tqdm.auto import tqdm

            steps = tqdm(steps, desc="SPPM")
        P = sp.csr_matrix(p)
        atoms = [X]  # the vertices X is a convex combination of, with weights
        atom_q = [q]
        weights = np.array([1.0])
        for step in steps:
            grad = gradient(p, X, floor)
            lin = solver.solve(grad)
            current = _inner(grad, X)
            gap = current - lin.value
            if not grad.floored:
                lower = max(lower, f - max(gap, 0.0))
            q_fw = np.asarray((P @ lin.mapping).todense())
            kind = "fw"
            if self.variant == "away" and len(atoms) > 1:
                scores = np.array([_inner(grad, a) for a in atoms])
                away = int(np.argmax(scores))
                if scores[away] - current > gap:
                    kind = "away"
            if kind == "fw":
                gamma = _line_search(q, q_fw)
                weights = (1 - gamma) * weights
                atoms.append(lin.mapping)
                atom_q.append(q_fw)
                weights = np.append(weights, gamma)
            else:
                w_a = weights[away]
                gmax = w_a / (1 - w_a)
                t = _line_search(q, q + gmax * (q - atom_q[away]))
                gamma = t * gmax
                weights = (1 + gamma) * weights
                weights[away] -= gamma
                if t >= 1.0:
                    weights[away] = 0.0
            keep = weights > 0
            if self.variant == "away" or not keep.all():
                atoms = [a for a, k in zip(atoms, keep, strict=True) if k]
                atom_q = [a for a, k in zip(atom_q, keep, strict=True) if k]
                weights = weights[keep] / weights[keep].sum()
            if self.variant == "away":
                X_new = _combine(atoms, weights)
            else:
                X_new = sp.csr_matrix((1 - gamma) * X + gamma * lin.mapping)
                X_new.eliminate_zeros()
            f_new = float(infotheory.leakage(p, X_new))
            if f_new > f and kind == "fw":  # rounding at the last bit: keep the better endpoint
                f_new, X_new, gamma = f, X, 0.0
            X, f = X_new, f_new
            q = np.asarray((P @ X).todense())
            history.append(
                dict(
                    step=step,
                    leakage=f,
                    distortion=expected_distortion(p, dist, X),
                    gamma=gamma,
                    gap=gap,
                    lp_value=lin.value,
                    active_set=lin.n_active,
                    lp_rounds=lin.rounds,
                    dropped=lin.dropped,
                    support=X.nnz,
                    floored=grad.floored,
                    away=kind == "away",
                    seconds=time.perf_counter() - t_start,
                )
            )
            if callback is not None:
                callback(step, X)
            if tol > 0 and gap <= tol:
                break
        # every vertex meets the budget only up to HiGHS's feasibility tolerance
        X, self.budget_excess_ = repair_distortion(p, dist, X, delta)
        if self.budget_excess_ > 0:
            f = float(infotheory.leakage(p, X))
        # the line search never goes up, but the repair can: the start is within the budget
        self.kept_start_ = f > f_start
        if self.kept_start_:
            X, f = X_start, f_start
        self.p_ab_, self._distortion = p, dist
        self.mapping_ = X
        self.leakage_ = f
        self.distortion_ = expected_distortion(p, dist, X)
        if self.certify:
            # one mixing weight, on the steps' own solver (warm): one linear program more
            bound, _ = variational_lower_bound(p, dist, delta, X, mixing=(1e-3,), solver=solver)
            lower = max(lower, bound, 0.0)
        self.lower_bound_ = lower
        self.history_ = pd.DataFrame(history)
        self.n_active_ = history[-1]["active_set"]
        self.pricing_seconds_ = solver.price_time
        self.lp_seconds_ = solver.lp_time
        self.priced_entries_ = solver.n_priced
        logger.info(
            "SPPM: %d x %d mapping, %d Frank-Wolfe steps, leakage %.6g bits (lower bound %.6g), "
            "%d active entries",
            X.shape[0],
            X.shape[1],
            len(history),
            self.leakage_,
            self.lower_bound_,
            self.n_active_,
        )
        enforce(self.guarantee_checks())
        return self
