"""The exact optimum of problem (1) as a convex program with cvxpy (the reference for SPPM)."""

from __future__ import annotations

import math
import time
from typing import ClassVar

import numpy as np

from ppdp import infotheory
from ppdp._validation import StrOptions, validate_hyperparameters
from ppdp.guarantees import enforce

from .problem import (
    DELTA,
    expected_distortion,
    repair_distortion,
    validate_problem,
)
from .release import BudgetedMapping

_SOLVERS = StrOptions(("CLARABEL", "SCS"))


class ExactMapping(BudgetedMapping):
    """The optimal mapping of problem (1), solved as a convex program with cvxpy.

    ``I(A; B^) = sum_{a, b^} rel_entr(q(a, b^), p(a) q(b^))`` with ``q = p_ab X`` affine in the
    mapping ``X``, which cvxpy expresses with exponential cones.

    Parameters
    ----------
    delta : float
    solver : {"CLARABEL", "SCS"}, default "CLARABEL"
    solver_options : dict, optional
        Passed to ``problem.solve``. Clarabel gets ``max_step_fraction=0.9`` unless given: its
        default 0.99 stalls (InsufficientProgress) on the synthetic problem from ``|B| = 256``.
    fallback : {"SCS", "CLARABEL", None}, default "SCS"
        Solver tried when the first one raises ``cvxpy.error.SolverError``.
    fallback_options : dict, optional
        Its options (default ``eps=1e-7, max_iters=50000``).

    Attributes
    ----------
    mapping_ : ndarray of shape (|B|, |B^|)
        The solver's mapping, with entries below zero (solver tolerance) set to zero and rows
        renormalized.
    leakage_ : float
        ``I(A; B^)`` of ``mapping_`` in bits (recomputed with :func:`ppdp.infotheory.leakage`).
    objective_ : float
        The solver's optimal value in bits.
    status_ : str
        ``"optimal"`` or ``"optimal_inaccurate"`` (accepted; any other status raises).
    solver_used_ : str
    seconds_ : float
    n_releases_ : int
        Releases since the last ``fit`` (``release``, :class:`~ppdp.base.ReleaseLedger`).

    Raises
    ------
    ValueError
        From ``fit`` (the constructor stores its arguments as given and checks nothing), if
        ``delta``, ``solver`` or ``fallback`` is not allowed (an ``InvalidParameterError``, also
        a ``TypeError``, naming it), or if the problem is invalid
        (:func:`~ppdp.mechanisms.sppm.validate_problem`).
    RuntimeError
        From ``fit``, if the solver ends with a status other than optimal.

    Examples
    --------
    >>> from ppdp.mechanisms.sppm import ExactMapping, synthetic_problem
    >>> p, d = synthetic_problem(3)
    >>> exact = ExactMapping(1.0).fit(p, d)
    >>> exact.status_, round(exact.leakage_, 3), round(exact.objective_, 3)
    ('optimal', 0.314, 0.314)
    >>> exact.distortion_ <= 1.0
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "solver": [_SOLVERS],
        "fallback": [_SOLVERS, None],
        "delta": DELTA,
    }

    def __init__(
        self,
        delta,
        *,
        solver: str = "CLARABEL",
        solver_options: dict | None = None,
        fallback: str | None = "SCS",
        fallback_options: dict | None = None,
    ):
        self.fallback = fallback
        self.fallback_options = fallback_options
        self.delta = delta
        self.solver = solver
        self.solver_options = solver_options

    def _options(self) -> tuple[dict, dict]:
        """The options of the first solver and of the fallback, defaults filled in."""
        options = dict(self.solver_options or {})
        if self.solver == "CLARABEL":
            # shorter interior-point steps: the default 0.99 stalls (InsufficientProgress) from |B| = 256
            options.setdefault("max_step_fraction", 0.9)
        fallback = dict(self.fallback_options or {"eps": 1e-7, "max_iters": 50_000})
        return options, fallback

    def fit(self, p_ab, distortion):
        """Solve problem (1) for ``p_ab`` and the distortion; returns ``self``.

        Parameters
        ----------
        p_ab, distortion
            The problem (see :func:`~ppdp.mechanisms.sppm.validate_problem`).
        """
        import cvxpy as cp

        validate_hyperparameters(self)
        solver_options, fallback_options = self._options()
        p, dist, delta = validate_problem(p_ab, distortion, self.delta)
        n, m = dist.shape
        D = dist.toarray()
        p_b = p.sum(axis=0)
        p_a = p.sum(axis=1)
        keep_a = p_a > 0
        pa = p[keep_a]
        X = cp.Variable((n, m), nonneg=True)
        # scale the joint to entries of order one (solver tolerances are absolute)
        s = float(m)
        Q = (s * pa) @ X
        qb = cp.sum(Q, axis=0)
        outer = cp.reshape(p_a[keep_a], (-1, 1), order="F") @ cp.reshape(qb, (1, m), order="F")
        objective = cp.sum(cp.rel_entr(Q, outer)) / s
        W = p_b[:, None] * D
        scale = max(W.max(), 1e-300)
        constraints = [cp.sum(X, axis=1) == 1, cp.sum(cp.multiply(W / scale, X)) <= delta / scale]
        problem = cp.Problem(cp.Minimize(objective), constraints)
        t0 = time.perf_counter()
        self.solver_used_ = self.solver
        try:
            problem.solve(solver=self.solver, **solver_options)
        except cp.error.SolverError:
            if self.fallback is None:
                raise
            # Clarabel occasionally stops with InsufficientProgress on these problems
            self.solver_used_ = self.fallback
            problem.solve(solver=self.fallback, **fallback_options)
        self.seconds_ = time.perf_counter() - t0
        self.status_ = problem.status
        if problem.status not in ("optimal", "optimal_inaccurate"):
            raise RuntimeError(
                f"cvxpy ({self.solver}) did not solve the exact problem: status {problem.status}"
            )
        Xv = np.asarray(X.value, dtype=float)
        Xv = np.where(Xv > 0, Xv, 0.0)
        Xv /= Xv.sum(axis=1, keepdims=True)
        Xv, self.budget_excess_ = repair_distortion(p, dist, Xv, delta)
        self.p_ab_, self._distortion = p, dist
        self.mapping_ = Xv
        self.objective_ = float(problem.value) / math.log(2)
        self.leakage_ = float(infotheory.leakage(p, Xv))
        self.distortion_ = expected_distortion(p, dist, Xv)
        enforce(self.guarantee_checks())
        return self
