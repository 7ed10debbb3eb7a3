"""The optimum of problem (1) with a certificate, by column generation over a convex master.

Not in the paper, which compares SPPM with the exact optimum only where a generic convex solver
can hold all ``|B| |B^|`` variables. Here the convex program (1) itself is solved on a growing set
``S`` of active pairs ``(b, b^)``, the way Algorithm 2 solves its linear steps:

1. the restricted master, problem (1) with ``p(b^ | b) = 0`` outside ``S``, is solved to
   optimality with an exponential-cone solver (Clarabel through cvxpy);
2. its multipliers price every other pair: with ``C`` the gradient of the leakage at the
   master's mapping (Sec. 3.4), ``nu`` the multiplier of the budget and ``mu[b]`` the smallest
   ``C + nu p(b) d`` over the active pairs of row ``b``, a pair with ``C + nu p(b) d - mu[b] < 0``
   would lower the leakage at the master's prices (Eq. 7-8 with the convex master's duals);
3. stop when no pair prices out, or when the certificate's gap is small enough.

The certificate holds whatever the solvers' accuracy: the upper bound is the exact leakage of the
returned mapping, repaired into the budget; the lower bound is the Lagrange dual of (1) at the
master's posterior (:func:`~ppdp.mechanisms.sppm.variational_lower_bound`), valid by weak
duality for any posterior and any multiplier. The posterior of released values that the optimum
(nearly) never uses is arbitrary, and the bound can stay percents below the optimum because of
them (2.7% on the synthetic problem with 32 points at a budget of 0.05 on [0, 1]); their posterior
is therefore also chosen to make them least attractive
(:func:`~ppdp.mechanisms.sppm.bounds.least_attractive_posterior`, two private values), which
closes that gap to 0.07% there, and the better bound is kept.

On one-dimensional points with squared distortion, masters on the full grid become the bottleneck
(their pairs grow faster than ``|B|``, and Clarabel fails on them from ``|B| = 2,048`` on at a
budget of 0.02 on [0, 1]). The problem is then first solved on coarser grids
(``multilevel``): the coarsest from scratch, each finer one from the previous optimum. The last
coarse optimum, spread over the merged points, is feasible for the full problem up to a repair of
its budget, and its posterior, interpolated along the line, gives the Lagrange bound on the full
grid; at ``|B| = 16,384`` that certificate alone closes the gap to 5e-6 of the leakage, with no
master on the full grid. That bound is not computed over all pairs (4.3e9 at ``|B| = 65,536``):
on a line, the linear program's value is the largest Lagrange dual over the budget's multiplier,
and each row's minimum at a multiplier is a monotone minimum along the line
(:func:`~ppdp.mechanisms.sppm.bounds.line_posterior_bound`), which certifies ``|B| = 65,536``
to 7e-6 of the leakage in 7 s after the coarse grids.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ppdp import infotheory
from ppdp._validation import Interval, validate_hyperparameters
from ppdp.guarantees import enforce

from .bounds import (
    least_attractive_posterior,
    line_posterior_bound,
    posterior_lower_bound,
    posterior_of,
)
from .column_generation import COLUMNS_PER_ROW, StepSolver
from .frank_wolfe import SPPM, gradient
from .multilevel import (
    COARSEST,
    grids,
    interpolate_posterior,
    on_a_line,
    prolong,
    prolonged_size,
)
from .problem import DELTA, expected_distortion, repair_distortion, validate_problem
from .release import BudgetedMapping

#: The module's logger (silent unless the application configures ``ppdp``'s).
logger = logging.getLogger(__name__)

#: Mixing weight of the prior in the posterior of the lower bound (costs at most ~1.5e-6 bits).
_BOUND_MIXING = 1e-6
#: Master entries below this probability count as empty (interior-point residue).
_EMPTY = 1e-7
#: Rounds a pair stays in the master before it may be dropped.
_DROP_AGE = 2
#: Entries of a start mapping below this probability do not seed the active set.
_INIT_SUPPORT = 1e-6
#: Entries of a coarse grid's mapping at most this large are not carried to the finer grid.
_CARRY_DROP = 1e-4
#: Coarse grids are solved to this fraction of ``gap_tol``: errors add up over the grids.
_COARSE_GAP = 0.1


def _nearest_rows_per_value(p: np.ndarray, dist, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each private value ``a`` and each released value in ``cols``, the closest profile
    ``b`` with ``p(a, b) > 0``: the pairs that make every active released value reachable from
    every private value (one pass over ``|B| x len(cols)`` distortions)."""
    n_a = p.shape[0]
    best = np.full((n_a, cols.size), np.inf)
    arg = np.zeros((n_a, cols.size), dtype=np.int64)
    for rows in dist.chunks():
        block = dist.block(rows)[:, cols]
        for a in range(n_a):
            seen = p[a, rows] > 0
            if not seen.any():
                continue
            sub = np.where(seen[:, None], block, np.inf)
            k = sub.argmin(axis=0)
            val = sub[k, np.arange(cols.size)]
            better = val < best[a]
            best[a, better] = val[better]
            arg[a, better] = rows[k[better]]
    keep = np.isfinite(best)
    return arg[keep], np.broadcast_to(cols, best.shape)[keep]


#: Clarabel's tolerances for a master that fails at the default ones.
_LOOSE = {"tol_gap_abs": 1e-7, "tol_gap_rel": 1e-7, "tol_feas": 1e-7}

_HISTORY = [
    "grid",
    "round",
    "active",
    "upper",
    "lower",
    "gap",
    "added",
    "dropped",
    "withheld",
    "status",
    "master_seconds",
    "bound_seconds",
    "price_seconds",
    "seconds",
]


def _can_carry_mass(p, dist, delta, keys) -> np.ndarray:
    """Whether each pair ``key = b |B^| + b^`` may enter the master.

    Moving mass of row ``b`` to ``b^`` costs ``p(b) (d(b, b^) - min d(b, .))`` per unit on top of
    the smallest budget. When the budget exceeds the smallest one by no more than ``1e-10`` of
    the largest ``p(b) d(b, b^)``, only each row's nearest values can carry mass worth having, and
    a master holding the other pairs stalls Clarabel. Leaving pairs out only narrows the master:
    the lower bound ranges over every pair, so the certificate stays valid.
    """
    m = dist.shape[1]
    rows, cols = keys // m, keys % m
    _, dmin = dist.row_min()
    p_b = p.sum(axis=0)
    slack = delta - float(p_b @ dmin)
    if slack > 1e-10 * float(p_b.max()) * dist.max():
        return np.ones(keys.size, dtype=bool)
    return p_b[rows] * (dist.entries(rows, cols) - dmin[rows]) <= 0


class _MasterFailed(RuntimeError):
    """Clarabel returned no solution of a restricted master."""


class _FirstMasterFailed(RuntimeError):
    """Clarabel returned no solution of the first master: there is no certificate to report."""


def _solve_master(p, dist, delta, rows, cols, options):
    """Problem (1) restricted to the pairs ``(rows[k], cols[k])`` with Clarabel.

    Returns the mapping (rows renormalized), the budget's multiplier ``nu`` in bits per unit of
    ``p(b) d(b, b^)`` and cvxpy's status.
    """
    import cvxpy as cp

    n, m = dist.shape
    p_a = p.sum(axis=1)
    used_a = np.flatnonzero(p_a > 0)
    values, slot = np.unique(cols, return_inverse=True)
    k, n_a, n_v = rows.size, used_a.size, values.size
    # q(a, b^) = sum_k p(a, rows_k) x_k over the pairs of column b^, scaled to entries of order one
    scale_q = float(n_v)
    A = sp.csr_matrix(
        (
            np.concatenate([scale_q * p[a, rows] for a in used_a]),
            (np.concatenate([i * n_v + slot for i in range(n_a)]), np.tile(np.arange(k), n_a)),
        ),
        shape=(n_a * n_v, k),
    )
    x = cp.Variable(k, nonneg=True)
    Q = cp.reshape(A @ x, (n_a, n_v), order="C")
    q_b = cp.reshape(cp.sum(Q, axis=0), (1, n_v), order="C")
    objective = cp.sum(cp.rel_entr(Q, p_a[used_a][:, None] @ q_b)) / scale_q
    w = p.sum(axis=0)[rows] * dist.entries(rows, cols)
    R = sp.csr_matrix((np.ones(k), (rows, np.arange(k))), shape=(n, k))
    constraints = [R @ x == 1]
    # the most any mapping on these pairs can spend: a larger budget does not bind
    most = np.zeros(n)
    np.maximum.at(most, rows, w)
    budget = None
    if delta < most.sum():
        w_scale = float(w.max())
        budget = (w / w_scale) @ x <= delta / w_scale
        constraints.append(budget)
    problem = cp.Problem(cp.Minimize(objective), constraints)
    # Clarabel may stop on InsufficientProgress or at its iteration limit on these masters:
    # shorter steps and more iterations, then looser tolerances (the certificate does not rely on
    # the master's accuracy, only its gap does)
    attempts = (
        options,
        {**options, "max_step_fraction": 0.8, "max_iter": 500},
        {**options, "max_step_fraction": 0.7, "max_iter": 1000, **_LOOSE},
    )
    failures = []
    for attempt in attempts:
        try:
            with warnings.catch_warnings():
                # "optimal_inaccurate" is kept in the history's status column instead
                warnings.filterwarnings("ignore", "Solution may be inaccurate", UserWarning)
                problem.solve(solver="CLARABEL", **attempt)
        except cp.error.SolverError as exc:
            failures.append(str(exc))
            continue
        if problem.status in ("optimal", "optimal_inaccurate") and x.value is not None:
            break
        failures.append(f"status {problem.status}")
    else:
        raise _MasterFailed("; ".join(failures))
    values_x = np.maximum(np.asarray(x.value, dtype=float), 0.0)
    X = sp.csr_matrix((values_x, (rows, cols)), shape=(n, m))
    sums = np.asarray(X.sum(axis=1)).ravel()
    X = sp.csr_matrix(sp.diags(1.0 / sums) @ X)
    nu = 0.0 if budget is None else max(float(budget.dual_value), 0.0) / w_scale / math.log(2)
    return X, nu, problem.status


@dataclass(frozen=True)
class _Settings:
    """:class:`CertifiedMapping`'s hyper-parameters as ``fit`` computes with them: checked, numpy
    scalars turned into Python numbers and Clarabel's default options filled in (the constructor
    stores them as given)."""

    gap_tol: float
    abs_tol: float
    columns_per_row: int
    max_rounds: int
    warm_steps: int
    floor: float
    drop_tol: float | None
    multilevel: int | None
    solver_options: dict


class CertifiedMapping(BudgetedMapping):
    """The optimal mapping of problem (1) by column generation, with a certificate of optimality.

    Parameters
    ----------
    delta : float
        Distortion budget ``Delta >= 0`` of problem (1).
    gap_tol : float, default 1e-3
        Stop once ``upper - lower <= gap_tol * upper`` (relative gap of the certificate).
    abs_tol : float, default 1e-7
        ... or once ``upper - lower <= abs_tol`` bits (for optima near zero).
    columns_per_row : int, default 3
        Pairs added per row and pricing round (its most negative reduced costs).
    max_rounds : int, default 200
        Master solves at most, per grid (see ``multilevel``); the certificate is reported either
        way (see ``converged_``).
    warm_steps : int, default 30
        Frank-Wolfe steps of :class:`~ppdp.mechanisms.sppm.SPPM` whose support starts
        the active set (with each profile's nearest value); 0 starts from the nearest values only.
        Ignored when ``fit`` gets ``init``. When Clarabel fails on the first master, ``fit``
        starts again from the nearest values only.
    floor : float, default 1e-2
        Floor of the gradient's ratio for pricing (see ``SPPM``); pairs that the floor ranks are
        violated at any floor, so it only orders them.
    multilevel : int or None, default 4096
        On a squared distortion between one-dimensional points (the synthetic data) with at least
        ``2 * 64`` values, the problem is first solved on coarser grids (consecutive points merged
        in pairs, ``multilevel``), coarsest first, each started from the previous one's
        optimum; grids with more than ``multilevel`` values are skipped. The last coarse optimum,
        spread over the merged points, starts the full problem, and its certificate is computed
        before any full-size master: when it meets ``gap_tol`` no master on the full grid is
        solved. Coarse grids are solved to ``gap_tol / 10``. ``None`` solves the full problem
        only. Other distortions, and ``fit`` with ``init``, always solve the full problem only.
    drop_tol : float or None, default 1e-3
        After each round, pairs that the master leaves empty (below 1e-7) and whose reduced cost
        is above ``drop_tol`` bits per unit of ``p(b)`` leave the master (after two rounds in
        it), so that the master stays near the size of the optimum's support; pricing brings
        them back if they become attractive. ``None`` keeps every pair.
    solver_options : dict, optional
        Passed to Clarabel (default ``max_step_fraction=0.9``, see ``ExactMapping``).
    blas_threads : int or None, default 1
        BLAS threads during ``fit``.
    progress : bool, default False
        Show a tqdm progress bar over the rounds.

    Attributes
    ----------
    mapping_ : scipy.sparse.csr_matrix of shape (|B|, |B^|)
        The master's mapping of the last round, repaired into the budget.
    leakage_ : float
        ``I(A; B^)`` of ``mapping_`` in bits: the certificate's upper bound.
    lower_bound_ : float
        A lower bound on the optimum (bits), the largest over rounds.
    gap_ : float
        ``leakage_ - lower_bound_``.
    relative_gap_ : float
        ``gap_ / leakage_``; NaN when ``leakage_ <= abs_tol`` (the optimum is zero up to it).
    converged_ : bool
        Whether the certificate's gap meets ``gap_tol`` or ``abs_tol``.
    stop_reason_ : {"gap", "no column prices out", "max_rounds", "master failed", \
            "start leaks nothing"}
        Why the rounds ended. With "no column prices out" the master's mapping is optimal up to
        Clarabel's accuracy, but its certificate may still be wider than ``gap_tol``. With
        "master failed" Clarabel returned no solution of a later master, even with only the
        best-priced of the pairs last added (a failure of the first raises ``RuntimeError``); the
        best round's mapping and certificate are reported.
    n_active_ : int
        Active pairs of the last master.
    kept_start_ : bool
        Whether ``init`` was returned: it was within the budget and leaked less than the
        solved mapping (or at most ``abs_tol``).
    budget_price_ : float
        Multiplier of the budget in the last master (of the last coarse grid when no full-size
        master was solved), in bits per unit of ``E[d]``; 0 when the budget does not bind or no
        master was solved.
    history_ : pandas.DataFrame
        One row per round: ``grid, round, active, upper, lower, gap, added, dropped, withheld,
        status, master_seconds, bound_seconds, price_seconds, seconds`` (``grid``: values of the
        problem of that round, smaller than ``|B|`` on the coarse grids of ``multilevel``, whose
        bounds are of their own problem; ``active``: pairs in that round's master; ``added`` /
        ``dropped``: pairs it passes to the next; ``withheld``: pairs the previous round added
        that this round's master left out, the worse-priced halves, after Clarabel failed on the
        masters holding them; ``seconds``: since ``fit`` began). The round
        that certifies the coarse start on the full grid has status "carried", no master, and
        as ``active`` the pairs carried to the full grid.
    seconds_ : float
        Wall time of ``fit``.
    n_releases_ : int
        Releases since the last ``fit`` (``release``, :class:`~ppdp.base.ReleaseLedger`).

    Raises
    ------
    ValueError
        From ``fit`` (the constructor stores its arguments as given and checks nothing), if a
        hyper-parameter is not allowed (an ``InvalidParameterError``, also a ``TypeError``,
        naming it) or the problem is invalid (:func:`~ppdp.mechanisms.sppm.validate_problem`),
        including a budget below the smallest feasible one.
    RuntimeError
        From ``fit``, if Clarabel solves no first master.

    Notes
    -----
    Released values reached from one private value only have an infinite slope towards mixing in
    another (see :func:`variational_lower_bound`); pricing reaches every such pair, but one at a
    time per row. The
    active set therefore starts with, for every active released value and every private value
    ``a``, the closest profile that ``a`` occurs with, so that every active released value can
    mix from the first master on.

    Examples
    --------
    The synthetic problem with eight points at a budget of 1, certified within ``gap_tol``:

    >>> from ppdp.mechanisms.sppm import CertifiedMapping, synthetic_problem
    >>> p, d = synthetic_problem(3)
    >>> cert = CertifiedMapping(1.0).fit(p, d)
    >>> round(cert.leakage_, 3), round(cert.lower_bound_, 3)
    (0.314, 0.314)
    >>> cert.converged_, cert.stop_reason_, cert.relative_gap_ <= 1e-3
    (True, 'gap', True)
    >>> cert.distortion_ <= 1.0
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "delta": DELTA,
        "gap_tol": [Interval(Real, 0, 1, closed="left")],
        "abs_tol": [Interval(Real, 0, None, closed="left")],
        "columns_per_row": COLUMNS_PER_ROW,
        "max_rounds": [Interval(Integral, 1, None, closed="left")],
        "warm_steps": [Interval(Integral, 0, None, closed="left")],
        "floor": [Interval(Real, 0, 1, closed="neither")],
        "drop_tol": [Interval(Real, 0, None, closed="left"), None],
        "multilevel": [Interval(Integral, COARSEST, None, closed="left"), None],
        "blas_threads": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        delta,
        *,
        gap_tol: float = 1e-3,
        abs_tol: float = 1e-7,
        columns_per_row: int = 3,
        max_rounds: int = 200,
        warm_steps: int = 30,
        floor: float = 1e-2,
        drop_tol: float | None = 1e-3,
        multilevel: int | None = 4096,
        solver_options: dict | None = None,
        blas_threads: int | None = 1,
        progress: bool = False,
    ):
        self.delta = delta
        self.gap_tol = gap_tol
        self.abs_tol = abs_tol
        self.columns_per_row = columns_per_row
        self.max_rounds = max_rounds
        self.warm_steps = warm_steps
        self.floor = floor
        self.drop_tol = drop_tol
        self.multilevel = multilevel
        self.solver_options = solver_options
        self.blas_threads = blas_threads
        self.progress = progress

    def _settings(self) -> _Settings:
        """The hyper-parameters, checked, as ``fit`` computes with them."""
        validate_hyperparameters(self)
        return _Settings(
            gap_tol=float(self.gap_tol),
            abs_tol=float(self.abs_tol),
            columns_per_row=int(self.columns_per_row),
            max_rounds=int(self.max_rounds),
            warm_steps=int(self.warm_steps),
            floor=float(self.floor),
            drop_tol=None if self.drop_tol is None else float(self.drop_tol),
            multilevel=None if self.multilevel is None else int(self.multilevel),
            solver_options={"max_step_fraction": 0.9, **dict(self.solver_options or {})},
        )

    def fit(self, p_ab, distortion, *, init=None):
        """Solve problem (1) for ``p_ab`` and the distortion; returns ``self``.

        Parameters
        ----------
        p_ab, distortion
            The problem (see :func:`~ppdp.mechanisms.sppm.validate_problem`).
        init : array or sparse matrix of shape (|B|, |B^|), optional
            A mapping whose support (entries above 1e-6) starts the active set instead of SPPM's,
            e.g. the optimum at a neighbouring budget; it need not meet the budget. A start within
            the budget is returned when it leaks less than the solved mapping (so a curve
            warm-started along increasing budgets never rises), and at once when it leaks at most
            ``abs_tol`` (it is optimal).
        """
        from threadpoolctl import threadpool_limits

        settings = self._settings()
        with threadpool_limits(limits=self.blas_threads, user_api="blas"):
            try:
                return self._fit(p_ab, distortion, init, settings)
            except _FirstMasterFailed:
                if init is not None or settings.warm_steps == 0:
                    raise
                # Clarabel can fail on a first master holding SPPM's support and solve one
                # started from each profile's nearest value (random problems on a line)
                return self._fit(p_ab, distortion, init, settings, nearest=True)

    @staticmethod
    def _start(p, dist, delta, init, settings, nearest=False):
        n, m = dist.shape
        arg, _ = dist.row_min()
        rows, cols = [np.arange(n)], [arg]
        if init is not None:
            start = sp.coo_matrix(init)  # its shape is checked by _feasible_start
            # an interior-point optimum gives every active pair some mass: keep the real support
            pos = start.data > _INIT_SUPPORT
            rows.append(start.row[pos].astype(np.int64))
            cols.append(start.col[pos].astype(np.int64))
        elif settings.warm_steps > 0 and not nearest:
            warm = SPPM(
                delta, settings.warm_steps, active_set="keep", certify=False, blas_threads=None
            )
            support = warm.fit(p, dist).mapping_.tocoo()
            rows.append(support.row.astype(np.int64))
            cols.append(support.col.astype(np.int64))
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        mix_rows, mix_cols = _nearest_rows_per_value(p, dist, np.unique(cols))
        keys = np.unique(np.concatenate([rows * m + cols, mix_rows * m + mix_cols]))
        keys = keys[_can_carry_mass(p, dist, delta, keys)]
        return keys // m, keys % m, np.isin(keys, mix_rows * m + mix_cols)

    @staticmethod
    def _feasible_start(p, dist, delta, init):
        """``(mapping, leakage)`` of ``init`` when it is a mapping within the budget, else None."""
        start = sp.csr_matrix(init, dtype=float)
        if start.shape != dist.shape:
            raise ValueError(f"init must have shape (|B|, |B^|) = {dist.shape}, got {start.shape}")
        rows = np.asarray(start.sum(axis=1)).ravel()
        if (start.data < 0).any() or np.abs(rows - 1).max() > 1e-9:
            return None
        if expected_distortion(p, dist, start) > delta:
            return None
        return start, float(infotheory.leakage(p, start))

    def _set_result(self, p, dist, best, lower, reason, history, t_start, settings):
        self.p_ab_, self._distortion = p, dist
        self.mapping_, self.leakage_ = best
        self.distortion_ = expected_distortion(p, dist, self.mapping_)
        self.lower_bound_ = lower
        self.gap_ = max(self.leakage_ - lower, 0.0)
        # at leakages within abs_tol of zero a relative gap says nothing
        at_zero = self.leakage_ <= settings.abs_tol
        self.relative_gap_ = math.nan if at_zero else self.gap_ / self.leakage_
        self.stop_reason_ = reason
        self.converged_ = (
            self.gap_ <= settings.abs_tol or self.gap_ <= settings.gap_tol * self.leakage_
        )
        self.n_active_ = int(history[-1]["active"]) if history else int(self.mapping_.nnz)
        self.history_ = pd.DataFrame(history, columns=_HISTORY)
        self.seconds_ = time.perf_counter() - t_start
        logger.info(
            "certified mapping: leakage %.6g bits, lower bound %.6g, gap %.3g (%s) after %.1f s",
            self.leakage_,
            self.lower_bound_,
            self.gap_,
            reason,
            self.seconds_,
        )
        enforce(self.guarantee_checks())

    @staticmethod
    def _bound(p, dist, delta, X, nu, steps, post=None) -> float:
        """The better of the two dual bounds: from the master's posterior (or ``post``), and from
        it with the near-empty released values made least attractive (both valid whatever they
        are).

        On a line (:func:`~ppdp.mechanisms.sppm.bounds.line_posterior_bound`) each bound is the
        largest Lagrange dual over the budget's multiplier, from monotone row minima; elsewhere
        the linear program (3) over all pairs by column generation. Both are the program's value
        (the first exactly at the best multiplier, the second at HiGHS's).
        """
        post = posterior_of(p, X) if post is None else post
        mass = np.asarray(p.sum(axis=0) @ X).ravel()
        refined = least_attractive_posterior(p, dist, post, mass, nu)
        bound = -math.inf
        for q in (post,) if refined is post else (post, refined):
            on_line = line_posterior_bound(p, dist, delta, q, mixing=(_BOUND_MIXING,), nu=nu)
            if on_line is None:
                value, _ = posterior_lower_bound(
                    p, dist, delta, q, mixing=(_BOUND_MIXING,), solver=steps
                )
            else:
                value, nu = on_line  # the next search starts from this one's multiplier
            bound = max(bound, value)
        return bound

    def _coarse_start(self, p, dist, delta, t_start, nearest, settings):
        """Solve the coarse grids of ``multilevel``, coarsest first.

        Returns the last one's optimum carried to the full grid whole (for the certificate:
        dropping its residue would leave some values' posteriors pure), that coarse optimum and
        the map of the full grid to its grid (carried without its residue, it is the support that
        seeds a full-size master, as between coarse grids; formed only if a master is needed:
        at ``|B| = 65,536`` it holds 3.2e7 pairs), the coarse posterior
        interpolated on the full grid, its budget price and the coarse rounds' history. Raises
        ``_FirstMasterFailed`` when no coarse grid could be solved.
        """
        mapping, carry, history = None, None, []
        s = settings
        for p_c, d_c, parent in grids(p, dist, s.multilevel):
            init = None if mapping is None else prolong(mapping, carry, drop=_CARRY_DROP)
            offset = time.perf_counter() - t_start
            solver = CertifiedMapping(
                delta,
                gap_tol=s.gap_tol * _COARSE_GAP,
                abs_tol=s.abs_tol,
                columns_per_row=s.columns_per_row,
                max_rounds=s.max_rounds,
                warm_steps=0 if nearest else s.warm_steps,
                floor=s.floor,
                drop_tol=s.drop_tol,
                multilevel=None,
                solver_options=s.solver_options,
                blas_threads=None,
            )
            try:
                sub = solver.fit(p_c, d_c, init=init)
            except _FirstMasterFailed:
                # Clarabel failed on this grid's first master: the next grid starts from the
                # last one solved (or from scratch)
                carry = None if mapping is None else carry[parent]
                continue
            rounds = sub.history_.assign(
                round=sub.history_["round"] + len(history), seconds=sub.history_["seconds"] + offset
            )
            history.extend(rounds.to_dict("records"))
            mapping, carry, nu, grid = sub.mapping_, parent, sub.budget_price_, (p_c, d_c)
        if mapping is None:
            raise _FirstMasterFailed("Clarabel did not solve the first master of any coarse grid")
        mass = np.asarray(grid[0].sum(axis=0) @ mapping).ravel()
        post = interpolate_posterior(posterior_of(grid[0], mapping), mass, grid[1], dist)
        return prolong(mapping, carry), (mapping, carry), post, nu, history

    def _fit(self, p_ab, distortion, init, settings, nearest=False):
        p, dist, delta = validate_problem(p_ab, distortion, self.delta)
        n, m = dist.shape
        t_start = time.perf_counter()
        self.budget_price_ = 0.0
        start = None if init is None else self._feasible_start(p, dist, delta, init)
        s = settings
        if start is not None and start[1] <= s.abs_tol:
            # the optimum at a smaller budget, once it reaches zero, along a budget grid
            self.kept_start_ = True
            self._set_result(p, dist, start, 0.0, "start leaks nothing", [], t_start, s)
            return self
        steps = StepSolver(p, dist, delta, active_set="keep", columns_per_row=s.columns_per_row)
        best_lower, best = -math.inf, None
        history, reason, done = [], "max_rounds", False
        carried = coarse = None
        if init is None and s.multilevel is not None and on_a_line(dist) and n >= 2 * COARSEST:
            try:
                carried, coarse, post, nu, history = self._coarse_start(
                    p, dist, delta, t_start, nearest, s
                )
            except _FirstMasterFailed:
                # Clarabel failed on every coarse grid's first master: solve the full problem alone
                carried = coarse = None
        if carried is not None:
            # the coarse optimum's certificate on the full grid, before any full-size master
            self.budget_price_ = nu
            t1 = time.perf_counter()
            repaired, _ = repair_distortion(p, dist, carried, delta)
            best = (repaired, float(infotheory.leakage(p, repaired)))
            best_lower = max(self._bound(p, dist, delta, carried, nu, steps, post), 0.0)
            carried = None  # not kept past its certificate: over 3e7 pairs at |B| = 65,536
            gap = best[1] - best_lower
            done = gap <= s.abs_tol or gap <= s.gap_tol * best[1]
            reason = "gap" if done else reason
            t2 = time.perf_counter()
            history.append(
                dict(
                    grid=n,
                    round=len(history) + 1,
                    active=prolonged_size(*coarse, drop=_CARRY_DROP),
                    upper=best[1],
                    lower=best_lower,
                    gap=gap,
                    added=0,
                    dropped=0,
                    withheld=0,
                    status="carried",
                    master_seconds=0.0,
                    bound_seconds=t2 - t1,
                    price_seconds=0.0,
                    seconds=t2 - t_start,
                )
            )
        # pinned: the pairs that let each active released value mix, never dropped
        if done:
            rows = cols = np.zeros(0, dtype=np.int64)
            pinned = np.zeros(0, dtype=bool)
        else:
            # without the coarse residue: pricing restores what is missing
            seed = init if coarse is None else prolong(*coarse, drop=_CARRY_DROP)
            rows, cols, pinned = self._start(p, dist, delta, seed, s, nearest)
        age = np.zeros(rows.size, dtype=np.int64)
        gone = np.zeros(0, dtype=np.int64)  # pairs dropped so far
        # the reduced costs of the pairs the last round added, last in rows: the better-priced
        # half stays when Clarabel fails on the master holding them all
        fresh_cost = None
        p_b = p.sum(axis=0)
        first = len(history) + 1
        rounds = range(first, first + (0 if done else s.max_rounds))
        if self.progress:
            from tqdm.auto import tqdm

            rounds = tqdm(rounds, desc="certified optimum")
        for r in rounds:
            t0 = time.perf_counter()
            added = dropped = withheld = 0
            solved = False
            while not solved:
                try:
                    X, nu, status = _solve_master(p, dist, delta, rows, cols, s.solver_options)
                    solved = True
                except _MasterFailed as exc:
                    if best is None:
                        raise _FirstMasterFailed(
                            f"Clarabel did not solve the first master: {exc}"
                        ) from exc
                    if fresh_cost is None or fresh_cost.size <= 1:
                        break
                    # column generation stays exact with any subset of the pairs that price
                    # out: the master retreats to the better-priced half of the new ones, and
                    # pricing offers the others again
                    keep_fresh = np.zeros(fresh_cost.size, dtype=bool)
                    keep_fresh[np.argsort(fresh_cost, kind="stable")[: fresh_cost.size // 2]] = True
                    withheld += int((~keep_fresh).sum())
                    keep = np.concatenate([np.ones(rows.size - keep_fresh.size, bool), keep_fresh])
                    rows, cols, age, pinned = rows[keep], cols[keep], age[keep], pinned[keep]
                    fresh_cost = fresh_cost[keep_fresh]
            if not solved:
                # the certificate so far stays valid: report it rather than nothing
                reason = "master failed"
                break
            self.budget_price_ = nu
            t1 = time.perf_counter()
            repaired, _ = repair_distortion(p, dist, X, delta)
            upper = float(infotheory.leakage(p, repaired))
            best_lower = max(best_lower, self._bound(p, dist, delta, X, nu, steps), 0.0)
            if best is None or upper < best[1]:
                best = (repaired, upper)
            t2 = time.perf_counter()
            gap = best[1] - best_lower
            done = gap <= s.abs_tol or gap <= s.gap_tol * best[1]
            if done:
                reason = "gap"
            else:
                # the master's prices: mu[b] is the cheapest active pair of row b
                grad = gradient(p, X, s.floor)
                active = grad.entries(rows, cols) + nu * p_b[rows] * dist.entries(rows, cols)
                mu = np.full(n, np.inf)
                np.minimum.at(mu, rows, active)
                new_rows, new_cols = steps.price(grad, nu, mu)
                fresh = np.setdiff1d(new_rows * m + new_cols, rows * m + cols)
                values = np.setdiff1d(fresh % m, cols)
                if values.size:
                    # released values new to the master come with their mixing pairs
                    mix_r, mix_c = _nearest_rows_per_value(p, dist, values)
                    mix = np.setdiff1d(mix_r * m + mix_c, rows * m + cols)
                    fresh = np.union1d(fresh, mix)
                fresh = fresh[_can_carry_mass(p, dist, delta, fresh)]
                added = int(fresh.size)
                fresh_rows, fresh_cols = fresh // m, fresh % m
                fresh_cost = (
                    grad.entries(fresh_rows, fresh_cols)
                    + nu * p_b[fresh_rows] * dist.entries(fresh_rows, fresh_cols)
                    - mu[fresh_rows]
                )
                if added == 0:
                    done, reason = True, "no column prices out"
                keep = np.ones(rows.size, dtype=bool)
                if s.drop_tol is not None:
                    # pairs the master leaves empty and prices clearly above their row's best
                    # (in bits per unit of p(b)) leave the master; pricing brings them back if
                    # they become attractive again. Each row's cheapest pair prices at zero.
                    mass = np.asarray(X[rows, cols]).ravel()
                    above = (active - mu[rows]) / np.maximum(p_b[rows], 1e-300)
                    keep = (mass > _EMPTY) | (above <= s.drop_tol) | (age < _DROP_AGE) | pinned
                dropped = int((~keep).sum())
                # a pair priced in again after a drop stays: dropping it again could cycle
                again = np.isin(fresh, gone)
                gone = np.union1d(gone, rows[~keep] * m + cols[~keep])
                rows = np.concatenate([rows[keep], fresh // m])
                cols = np.concatenate([cols[keep], fresh % m])
                age = np.concatenate([age[keep] + 1, np.zeros(added, dtype=np.int64)])
                pinned = np.concatenate(
                    [pinned[keep], again | (np.isin(fresh, mix) if values.size else False)]
                )
            history.append(
                dict(
                    grid=n,
                    round=r,
                    active=int(rows.size - added + dropped),
                    upper=best[1],
                    lower=best_lower,
                    gap=gap,
                    added=added,
                    dropped=dropped,
                    withheld=withheld,
                    status=status,
                    master_seconds=t1 - t0,
                    bound_seconds=t2 - t1,
                    price_seconds=time.perf_counter() - t2,
                    seconds=time.perf_counter() - t_start,
                )
            )
            if self.progress:
                rounds.set_postfix(gap=f"{gap:.2e}", active=rows.size)
            if done:
                break
        self.kept_start_ = start is not None and start[1] < best[1]
        if self.kept_start_:
            # a start within the budget that leaks less is returned instead: along a budget
            # grid the curve then never rises, whatever the gaps of the neighbouring fits
            best = start
        self._set_result(p, dist, best, best_lower, reason, history, t_start, s)
        return self
