"""The linear step (Eq. 3-4, Algorithm 2): LP (3) solved by column generation.

The restricted master LP (4) in HiGHS, the pricing of violated columns (Eq. 7-8, factored and
bounded by blocks when the costs and the distortion have low-rank factors), and the dense and
full-LP entry points used by tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from ppdp._validation import Interval, check_params

from .distortion import Distortion
from .problem import validate_problem

_SIMPLEX_STRATEGY = 4  # HiGHS primal simplex
_FACTOR_SLACK = 1e-7  # re-check margin for factored pricing (scaled units, max |c| = 1)
PRICE_ROWS = 128  # rows per chunk of the factored pricing (they share one set of column blocks)
PRICE_BLOCK = 32  # columns per block of the pricing's lower bounds


#: Columns added per row and pricing round: an integer >= 1.
COLUMNS_PER_ROW = [Interval(Integral, 1, None, closed="left")]


@dataclass
class LinearStep:
    """Solution of the linear program (3) on active variables.

    Attributes
    ----------
    mapping : scipy.sparse.csr_matrix
        The minimizer ``X'`` (rows ``p(. | b)``).
    value : float
        ``sum_{b, b^} c(b, b^) X'(b, b^)``.
    lam, mu : float, ndarray
        Dual solution: ``lam <= 0`` for the distortion constraint, ``mu[b]`` for row ``b``'s simplex.
    rounds : int
        Column-generation rounds (master solves).
    n_active : int
        Number of active variables at the end.
    dropped : int
        Columns deleted from the master after the step (see ``SPPM``'s ``drop_after``).

    Examples
    --------
    Returned by :func:`solve_linear_step` (and by every linear step of :class:`SPPM`); the
    budget lets profile 0 move half of its mass to the cheaper value 1:

    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import solve_linear_step
    >>> cost = np.array([[1.0, 0.0], [1.0, 0.0]])
    >>> step = solve_linear_step(cost, np.full((2, 2), 0.25), 1 - np.eye(2), 0.25)
    >>> type(step).__name__, step.rounds, step.n_active
    ('LinearStep', 2, 3)
    >>> round(step.value, 3), round(float(step.lam), 3)
    (0.5, -2.0)
    """

    mapping: sp.csr_matrix
    value: float
    lam: float
    mu: np.ndarray
    rounds: int
    n_active: int
    dropped: int = 0


class _RestrictedMaster:
    """The restricted LP (4) in HiGHS, grown by column generation (Algorithm 2).

    Row 0 is the distortion constraint ``sum W x <= delta`` with ``W[b, b^] = p(b) d(b, b^)``;
    rows ``1 + b`` are the simplex constraints of profile ``b``. Columns are active pairs
    ``(b, b^)``. Costs and distortions are rescaled to order one so that HiGHS's absolute
    tolerances are meaningful; duals are mapped back.

    ``rows``, ``cols`` and ``idle`` (the number of consecutive linear steps a column ended
    non-basic) are aligned with HiGHS's column order; ``keys`` holds ``row * n_cols + col`` of
    every active pair.
    """

    def __init__(self, n_rows: int, n_cols: int, delta_scaled: float):
        import highspy

        self._hs = highspy
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("presolve", "off")  # warm starts from the previous basis
        # new costs and new columns keep the basis primal feasible: primal simplex continues from it
        self.h.setOptionValue("simplex_strategy", _SIMPLEX_STRATEGY)
        self.h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        self.h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        inf = highspy.kHighsInf
        lower = np.concatenate([[-inf], np.ones(n_rows)])
        upper = np.concatenate([[delta_scaled], np.ones(n_rows)])
        self.h.addRows(
            n_rows + 1,
            lower,
            upper,
            0,
            np.zeros(0, dtype=np.int32),
            np.zeros(0, dtype=np.int32),
            np.zeros(0),
        )
        self.n_rows = n_rows
        self.n_cols = n_cols
        self.rows = np.zeros(0, dtype=np.int64)
        self.cols = np.zeros(0, dtype=np.int64)
        self.idle = np.zeros(0, dtype=np.int64)
        self.keys: set[int] = set()

    def add(self, rows, cols, cost, weight):
        """Add the pairs ``(rows[k], cols[k])`` not yet active; returns how many were added."""
        keys = rows * self.n_cols + cols
        # first occurrence of each pair, in the given order (pricing may propose a pair twice)
        _, first = np.unique(keys, return_index=True)
        first.sort()
        fresh = first[np.array([k not in self.keys for k in keys[first].tolist()], dtype=bool)]
        if fresh.size == 0:
            return 0
        rows, cols, cost, weight, keys = (
            rows[fresh],
            cols[fresh],
            cost[fresh],
            weight[fresh],
            keys[fresh],
        )
        self.keys.update(keys.tolist())
        k = rows.size
        nz = weight != 0
        counts = 1 + nz.astype(np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        index = np.empty(counts.sum(), dtype=np.int32)
        value = np.empty(counts.sum())
        pos = starts.astype(np.int64)
        index[pos[nz]] = 0
        value[pos[nz]] = weight[nz]
        last = pos + counts - 1
        index[last] = 1 + rows
        value[last] = 1.0
        self.h.addCols(
            k, cost, np.zeros(k), np.full(k, self._hs.kHighsInf), index.size, starts, index, value
        )
        self.rows = np.concatenate([self.rows, rows])
        self.cols = np.concatenate([self.cols, cols])
        self.idle = np.concatenate([self.idle, np.zeros(k, dtype=np.int64)])
        return k

    def set_costs(self, cost):
        idx = np.arange(self.rows.size, dtype=np.int32)
        self.h.changeColsCost(idx.size, idx, np.asarray(cost, dtype=float))

    def basic(self) -> np.ndarray:
        """Boolean mask of the columns in the current basis."""
        status, index = self.h.getBasicVariables()
        if status != self._hs.HighsStatus.kOk:
            raise RuntimeError(f"HiGHS has no basis for the restricted LP: {status}")
        index = np.asarray(index)
        mask = np.zeros(self.rows.size, dtype=bool)
        mask[index[index >= 0]] = True  # negative entries are row slacks
        return mask

    def retire(self, drop_after: int) -> int:
        """Age the columns by one linear step and delete those non-basic for ``drop_after`` steps.

        Only non-basic columns (at their bound zero) are deleted, so the current basis stays
        valid and the next solve warm-starts from it; a deleted pair that becomes attractive
        again is re-added by pricing. Returns the number of deleted columns.
        """
        self.idle = np.where(self.basic(), 0, self.idle + 1)
        stale = np.flatnonzero(self.idle >= drop_after)
        if stale.size == 0:
            return 0
        self.h.deleteCols(stale.size, stale.astype(np.int32))
        gone = self.rows[stale] * self.n_cols + self.cols[stale]
        self.keys.difference_update(gone.tolist())
        keep = np.ones(self.rows.size, dtype=bool)
        keep[stale] = False
        self.rows, self.cols, self.idle = self.rows[keep], self.cols[keep], self.idle[keep]
        return int(stale.size)

    def solve(self):
        self.h.run()
        status = self.h.getModelStatus()
        if status != self._hs.HighsModelStatus.kOptimal:
            raise RuntimeError(
                f"HiGHS did not solve the restricted LP: {self.h.modelStatusToString(status)}"
            )
        sol = self.h.getSolution()
        x = np.asarray(sol.col_value)
        duals = np.asarray(sol.row_dual)
        return x, float(self.h.getInfo().objective_function_value), float(duals[0]), duals[1:]


class StepSolver:
    """Solves successive linear steps (Eq. 3) for one problem by column generation.

    The active set starts at the diagonal ``(b, b)`` (Algorithm 2) plus each row's nearest value
    (so that the restricted LP is feasible when ``d(b, b) > 0``). With ``active_set="reset"`` it
    restarts there at every Frank-Wolfe step, seeded with the previous step's solution; with
    ``"keep"`` the master LP and its basis carry over to the next step, and columns non-basic at
    the end of ``drop_after`` consecutive steps are deleted (``None`` keeps every column). The LP
    optimum is the same either way: pricing ends only when no reduced cost is below ``-tol``.

    Each pricing round adds, for every row with a violated column, its ``columns_per_row`` most
    negative reduced costs (those below ``-tol``), which saves master solves and pricing passes.
    """

    def __init__(
        self,
        p_ab,
        dist: Distortion,
        delta: float,
        tol: float = 1e-9,
        max_rounds: int = 10_000,
        active_set: str = "reset",
        columns_per_row: int = 3,
        drop_after: int | None = None,
    ):
        self.active_set = active_set
        self.columns_per_row = min(int(columns_per_row), dist.shape[1])
        self.drop_after = drop_after
        self._last = None
        self.p_b = p_ab.sum(axis=0)
        self.dist = dist
        self.n, self.m = dist.shape
        self.wscale = max(self.p_b.max() * dist.max(), 1e-300)
        self.delta = delta
        self.tol = tol
        self.max_rounds = max_rounds
        self.master = _RestrictedMaster(self.n, self.m, delta / self.wscale)
        self.n_priced = 0
        self.price_time = 0.0
        self.lp_time = 0.0
        n = self.n
        arg, _ = dist.row_min()
        rows = np.arange(n)
        init_rows = np.concatenate([rows[rows < self.m], rows])
        init_cols = np.concatenate([rows[rows < self.m], arg])
        self._pending = (init_rows, init_cols)
        self._init = (init_rows, init_cols)

    def _weights(self, rows, cols):
        return self.p_b[rows] * self.dist.entries(rows, cols) / self.wscale

    def solve(self, grad) -> LinearStep:
        """Column generation for the costs ``grad`` (an object with ``block`` and ``entries``)."""
        cscale = self._cost_scale(grad)
        if self.active_set == "reset" and self._last is not None:
            # Algorithm 2: a fresh active set per step (diagonal and nearest values), seeded with
            # the previous step's solution so that the first master problem starts informed
            self.master = _RestrictedMaster(self.n, self.m, self.delta / self.wscale)
            r0, c0 = self._init
            self._pending = (
                np.concatenate([r0, self._last[0]]),
                np.concatenate([c0, self._last[1]]),
            )
        master = self.master
        if self._pending is not None:
            r, c = self._pending
            master.add(r, c, grad.entries(r, c) / cscale, self._weights(r, c))
            self._pending = None
        if master.rows.size:
            master.set_costs(grad.entries(master.rows, master.cols) / cscale)
        rounds = 0
        while True:
            rounds += 1
            if rounds > self.max_rounds:
                raise RuntimeError(
                    f"column generation did not converge in {self.max_rounds} rounds"
                )
            t0 = time.perf_counter()
            x, value, lam, mu = master.solve()
            self.lp_time += time.perf_counter() - t0
            t0 = time.perf_counter()
            new_rows, new_cols, new_cost = self._price(grad, cscale, lam, mu)
            self.price_time += time.perf_counter() - t0
            if new_rows.size == 0:
                break
            added = master.add(new_rows, new_cols, new_cost, self._weights(new_rows, new_cols))
            if added == 0:
                break
        keep = x > 0
        self._last = (master.rows[keep], master.cols[keep])
        mapping = sp.csr_matrix(
            (x[keep], (master.rows[keep], master.cols[keep])), shape=(self.n, self.m)
        )
        mapping = _clean_rows(mapping)
        n_active = int(master.rows.size)
        dropped = 0
        if self.active_set == "keep" and self.drop_after is not None:
            dropped = master.retire(self.drop_after)
        return LinearStep(
            mapping,
            value * cscale,
            lam * cscale / self.wscale,
            mu * cscale,
            rounds,
            n_active,
            dropped,
        )

    def _cost_scale(self, cost) -> float:
        """The largest ``|c|`` over a cheap sample (the first block of rows): costs are divided
        by it so that the tolerances are relative."""
        return max(float(np.abs(cost.block(self.dist.chunks()[0])).max()), 1e-300)

    def price(self, cost, nu: float, mu) -> tuple[np.ndarray, np.ndarray]:
        """Pairs whose reduced cost ``c(b, b^) + nu p(b) d(b, b^) - mu[b]`` is below ``-tol``.

        The pricing of Eq. 7-8 for duals that come from elsewhere (the convex master of
        :class:`~ppdp.mechanisms.sppm.CertifiedMapping`): ``nu >= 0`` prices the
        distortion constraint in the units of ``cost`` per unit of ``p(b) d(b, b^)``, ``mu[b]``
        the simplex of row ``b``. ``tol`` is relative to the largest cost, as in :meth:`solve`;
        each row brings up to ``columns_per_row`` pairs. Returns their rows and columns.
        """
        cscale = self._cost_scale(cost)
        lam = -float(nu) * self.wscale / cscale
        t0 = time.perf_counter()
        rows, cols, _ = self._price(cost, cscale, lam, np.asarray(mu, dtype=float) / cscale)
        self.price_time += time.perf_counter() - t0
        return rows, cols

    def _price(self, grad, cscale, lam, mu):
        """Violated columns: per row, the most negative ``c - lam W - mu_b`` (Eq. 7-8), chunked.

        Returns the rows, columns and scaled costs ``c / cscale`` of the columns to add: for every
        row whose smallest reduced cost is below ``-tol``, its ``columns_per_row`` smallest ones
        that are below ``-tol`` (see :meth:`_candidates`).

        When both the costs and the distortion have low-rank factors (``d = L R``, e.g. squared
        Euclidean and Hamming distortions), the reduced costs are ``left @ right`` with
        ``left = [L_c, coef L_d, -mu]``, ``right = [R_c; R_d; 1]`` and ``coef = -lam p(b)``. Blocks
        of ``PRICE_BLOCK`` columns whose interval lower bound (see :class:`BlockBounds`) is above
        the threshold for every row of a chunk are skipped, so a pass computes only the reduced
        costs near each row's optimum. Candidates are then re-priced exactly entry by entry (the
        product can lose ~1e-8 relative to cancellation, so candidates within ``_FACTOR_SLACK`` of
        the threshold are re-checked, and bounds get the same margin).
        """
        lam_w = lam / self.wscale  # reduced cost in scaled units: c/cs - lam * p d / ws - mu
        gf = grad.factors() if hasattr(grad, "factors") else None
        df = self.dist.factors() if gf is not None else None
        found = []
        if df is not None:
            left = np.hstack([gf[0] / cscale, (-lam_w * self.p_b)[:, None] * df[0], -mu[:, None]])
            right = np.vstack([gf[1], df[1], np.ones((1, self.m))])
            screen = -self.tol + _FACTOR_SLACK
            bounds = BlockBounds(right)
            left2 = bounds.split(left)
            for lo in range(0, self.n, PRICE_ROWS):
                rows = np.arange(lo, min(self.n, lo + PRICE_ROWS))
                L = left[lo : lo + rows.size]
                # the bound may err like the product: a block is skipped only when even its
                # bound plus that error stays above the screening threshold
                cols = bounds.columns(left2[lo : lo + rows.size], screen + _FACTOR_SLACK)
                if cols is not None and cols.size == 0:
                    continue
                red = L @ (right if cols is None else right[:, cols])
                self.n_priced += red.size
                found.append(self._candidates(red, rows, cols, screen, grad, cscale, lam_w, mu))
        else:
            for rows in self.dist.chunks():
                red = grad.block(rows) / cscale
                if lam != 0:
                    red -= (lam_w * self.p_b[rows])[:, None] * self.dist.block(rows)
                red -= mu[rows][:, None]
                self.n_priced += red.size
                found.append(self._candidates(red, rows, None, -self.tol, grad, cscale, lam_w, mu))
        found = [f for f in found if f is not None]
        if not found:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, np.zeros(0)
        return tuple(np.concatenate(parts) for parts in zip(*found, strict=True))

    def _candidates(self, red, rows, cols, screen, grad, cscale, lam_w, mu):
        """Rows, columns and scaled costs of the violated columns in one block of reduced costs.

        ``red[i, j]`` is the (possibly factored) reduced cost of ``(rows[i], cols[j])`` (``cols``
        ``None``: all columns). Entries below ``screen`` are re-priced exactly and kept when below
        ``-tol``; ``None`` when there are none.
        """

        def exact(r, c):
            cost = grad.entries(r, c) / cscale
            return cost - lam_w * self.p_b[r] * self.dist.entries(r, c) - mu[r], cost

        arg = red.argmin(axis=1)
        hit = np.flatnonzero(red[np.arange(rows.size), arg] < screen)
        if hit.size == 0:
            return None
        r = rows[hit]
        c = arg[hit] if cols is None else cols[arg[hit]]
        value, cost = exact(r, c)
        ok = value < -self.tol
        hit, r, c, cost = hit[ok], r[ok], c[ok], cost[ok]
        k = min(self.columns_per_row, red.shape[1])
        if k > 1 and hit.size:
            # the next k - 1 smallest by repeated argmin: a few SIMD passes over the violated
            # rows beat a partial sort (argpartition) by several times
            sub = red[hit]
            at = np.arange(hit.size)
            sub[at, arg[hit]] = np.inf
            more_r, more_c = [], []
            for _ in range(k - 1):
                nxt = sub.argmin(axis=1)
                near = sub[at, nxt] < screen
                if not near.any():
                    break
                sub[at, nxt] = np.inf
                more_r.append(r[near])
                more_c.append(nxt[near] if cols is None else cols[nxt[near]])
            if more_r:
                rk, ck = np.concatenate(more_r), np.concatenate(more_c)
                value, cost_k = exact(rk, ck)
                ok = value < -self.tol
                r = np.concatenate([r, rk[ok]])
                c = np.concatenate([c, ck[ok]])
                cost = np.concatenate([cost, cost_k[ok]])
        return r, c, cost


class BlockBounds:
    """Interval lower bounds of ``L @ right`` over blocks of ``PRICE_BLOCK`` columns.

    For a block ``J``, ``min_{j in J} sum_k L[i, k] right[k, j] >= sum_k min(L[i, k] lo[k, J],
    L[i, k] hi[k, J])`` with ``lo``, ``hi`` the smallest and largest ``right[k, j]`` over ``J``,
    that is ``[max(L, 0), min(L, 0)] @ [lo; hi]``: one thin product per row chunk (``1 / B`` of the
    entries of the full one) tells which blocks can hold a reduced cost below the threshold.
    Valid for any factors; tight when neighbouring columns have similar factors (as for ordered
    points under the squared distortion, where a pass then computes about 7% of the reduced costs at
    ``|B| = 16,384``).
    """

    def __init__(self, right: np.ndarray):
        m = right.shape[1]
        starts = np.arange(0, m, PRICE_BLOCK)
        self.lohi = np.vstack(
            [np.minimum.reduceat(right, starts, axis=1), np.maximum.reduceat(right, starts, axis=1)]
        )
        index = starts[:, None] + np.arange(PRICE_BLOCK)
        self.index = np.where(index < m, index, -1)

    @staticmethod
    def split(left: np.ndarray) -> np.ndarray:
        """``[max(L, 0), min(L, 0)]``, the left factor of the bounds (once per pricing pass)."""
        return np.hstack([np.maximum(left, 0.0), np.minimum(left, 0.0)])

    def columns(self, L2: np.ndarray, cutoff: float):
        """Columns of the blocks whose bound is below ``cutoff`` for some row of ``L2``.

        ``L2`` is a row chunk of :meth:`split`. ``None`` when that is most of the blocks (a full
        product is then cheaper than a gather).
        """
        blocks = np.flatnonzero((L2 @ self.lohi < cutoff).any(axis=0))
        if blocks.size > 0.5 * self.index.shape[0]:
            return None
        cols = self.index[blocks].ravel()
        return cols[cols >= 0]


def _clean_rows(mapping: sp.csr_matrix) -> sp.csr_matrix:
    """Renormalize rows of an LP solution (sums deviate from one by solver tolerance only)."""
    sums = np.asarray(mapping.sum(axis=1)).ravel()
    bad = np.abs(sums - 1) > 1e-6
    if bad.any():
        raise RuntimeError(
            f"LP solution violates the simplex constraints (row sum {sums[bad][0]:.9g})"
        )
    mapping = sp.diags(1.0 / sums) @ mapping
    return sp.csr_matrix(mapping)


class _DenseCost:
    """Costs from a dense matrix, in the interface of :class:`_Gradient` (for tests and checks)."""

    def __init__(self, cost):
        self.cost = np.asarray(cost, dtype=float)

    def block(self, rows):
        return self.cost[rows].copy()

    def entries(self, rows, cols):
        return self.cost[rows, cols]


def solve_linear_step(
    cost, p_ab, distortion, delta, *, tol: float = 1e-9, columns_per_row: int = 3
) -> LinearStep:
    """Solve LP (3) for a dense cost matrix by column generation (Algorithm 2).

    Parameters
    ----------
    cost : array of shape (|B|, |B^|)
        Linear costs ``c(b, b^)``.
    p_ab, distortion, delta
        As in :func:`validate_problem`.
    tol : float, default 1e-9
        Column generation stops when no reduced cost (scaled to the largest cost) is below
        ``-tol``.
    columns_per_row : int, default 3
        Violated columns added per row and pricing round (see :class:`SPPM`).

    Returns
    -------
    LinearStep
        The minimizer, its value and the final master's duals.

    Raises
    ------
    ValueError
        If ``cost`` is not a finite array of the distortion's shape, or the problem is invalid
        (:func:`validate_problem`, which also raises ``TypeError``), or ``columns_per_row`` is
        not an integer ``>= 1`` (an ``InvalidParameterError``, also a ``TypeError``).

    Examples
    --------
    Two profiles, Hamming distortion and a budget of 0.25: moving profile 0 to the cheaper
    value costs ``p(b) d = 0.5`` per unit of mass, so half of it moves:

    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import solve_linear_step, solve_linear_step_full
    >>> p_ab, d = np.full((2, 2), 0.25), 1 - np.eye(2)
    >>> cost = np.array([[1.0, 0.0], [1.0, 0.0]])
    >>> step = solve_linear_step(cost, p_ab, d, 0.25)
    >>> step.mapping.toarray().round(3)
    array([[0.5, 0.5],
           [0. , 1. ]])
    >>> round(step.value, 3), round(solve_linear_step_full(cost, p_ab, d, 0.25)[1], 3)
    (0.5, 0.5)
    """
    check_params(
        {"columns_per_row": columns_per_row},
        {"columns_per_row": COLUMNS_PER_ROW},
        "solve_linear_step",
    )
    p, dist, delta = validate_problem(p_ab, distortion, delta)
    cost = np.asarray(cost, dtype=float)
    if cost.shape != dist.shape or not np.all(np.isfinite(cost)):
        raise ValueError(
            f"cost must be a finite array of shape {dist.shape}, got shape {cost.shape}"
        )
    return StepSolver(p, dist, delta, tol=tol, columns_per_row=columns_per_row).solve(
        _DenseCost(cost)
    )


def solve_linear_step_full(cost, p_ab, distortion, delta):
    """Solve LP (3) directly on all ``|B| |B^|`` variables with HiGHS (reference for tests).

    Parameters
    ----------
    cost : array of shape (|B|, |B^|)
        Linear costs ``c(b, b^)``.
    p_ab, distortion, delta
        As in :func:`validate_problem`.

    Returns
    -------
    mapping : ndarray, value : float

    Raises
    ------
    RuntimeError
        If HiGHS does not solve the LP.
    TypeError, ValueError
        If the problem is invalid (:func:`validate_problem`).

    Examples
    --------
    The same LP as in :func:`solve_linear_step`, on all four variables:

    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import solve_linear_step_full
    >>> cost = np.array([[1.0, 0.0], [1.0, 0.0]])
    >>> mapping, value = solve_linear_step_full(cost, np.full((2, 2), 0.25), 1 - np.eye(2), 0.25)
    >>> mapping.round(3), round(value, 3)
    (array([[0.5, 0.5],
           [0. , 1. ]]), 0.5)
    """
    from scipy.optimize import linprog

    p, dist, delta = validate_problem(p_ab, distortion, delta)
    cost = np.asarray(cost, dtype=float)
    n, m = dist.shape
    W = p.sum(axis=0)[:, None] * dist.toarray()
    A_eq = sp.kron(sp.identity(n), np.ones((1, m)), format="csr")
    res = linprog(
        cost.ravel(),
        A_ub=W.reshape(1, -1),
        b_ub=[delta],
        A_eq=A_eq,
        b_eq=np.ones(n),
        bounds=(0, None),
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the full LP: {res.message}")
    return res.x.reshape(n, m), float(res.fun)
