"""The linear program of Section 4 that computes one random output table, and its repair.

:func:`solve_random_output_table` writes the LP (one row per distinct value weighted by its count,
delta-probability written per entry) in the array form HiGHS takes, with the sparsity pattern of
each shape built once (:data:`LP_PATTERNS`), solves it (interior point by default; crossover, then
the simplex method when it stops short) and passes the solution through :func:`repair_table`,
which removes the solver's residue so that the table meets Definition 5 exactly.

Two shortcuts leave every table as it was:

- when every distinct value is held by at least ``1/delta`` records, the identity table is the
  LP's unique optimum (``_identity_table``) and no solver runs; on a million census-like
  rows every LP is of this kind;
- each thread keeps one HiGHS instance and clears it between LPs (creating one costs about a
  tenth of solving a small LP); a reused instance gives bit-identical solutions.

:func:`solve_random_output_tables` solves many LPs that share ``delta`` at once. With
``solver="batch"`` it runs the batched interior-point method of ``batch_ipm`` on every LP that
is neither a closed form nor without interior (``delta * m = 1``, which HiGHS solves), repairs
each table, and keeps it only when the lower bound of its multipliers certifies it within
``BATCH_ACCEPT`` (relative) of the optimum; any other LP is solved with HiGHS's interior point as
one LP would be.

The solve looks up ``_run_highs`` and ``_repair`` in this module: replace them here.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ppdp._validation import check_params
from ppdp.guarantees import CHECK_TOL
from ppdp.memo import Memo

from .checks import _CONSTRAINTS, RESIDUE_MASS
from .output_table import table_delta_ratio

#: Largest certified gap, relative to ``max(1, |objective|)``, of a batched interior-point table:
#: its objective after :func:`repair_table` minus the lower bound of its multipliers
#: (``batch_ipm.certified_lower_bound``). A table above it is solved again with HiGHS.
BATCH_ACCEPT = 1e-6

#: ``delta * m`` up to which an LP counts as without interior (``delta = 1/m`` forces equal rows):
#: the batched interior-point method leaves it to HiGHS.
_NO_INTERIOR = 1.0 + 1e-9


def _repair(q: np.ndarray, counts: np.ndarray, delta: float) -> np.ndarray | None:
    """:func:`repair_table`, returning None when no verified table comes out."""
    q = np.maximum(np.array(q, dtype=float), 0.0)
    if not np.isfinite(q).all():
        return None
    m = counts.sum()
    q[:, counts @ q < RESIDUE_MASS] = 0.0
    rows = q.sum(axis=1)
    if not np.all(rows > 0):
        return None
    q /= rows[:, None]
    mass = counts @ q
    excess = q - delta * mass[None, :]
    bad = excess > 0
    if bad.any():
        # Mixing with the mean row keeps every row sum and column mass, and the mean row meets
        # p_kj <= delta * mass_j with slack (delta - 1/m) * mass_j; t is the smallest weight
        # that removes every excess (t = 1, equal rows, when delta = 1/m leaves no slack).
        mean = mass / m
        gap = (q - mean[None, :])[bad]
        # gap <= excess only when delta sits at 1/m up to rounding: then only equal rows fit
        t = float(np.max(np.divide(excess[bad], gap, out=np.ones_like(gap), where=gap > 0)))
        # margin so that the rounding of the mix cannot cross delta again
        t = min(1.0, t * (1.0 + 1e-6) + 1e-12)
        q = (1.0 - t) * q + t * mean[None, :]
        q /= q.sum(axis=1, keepdims=True)
    if not table_delta_ratio(q, counts) <= delta + CHECK_TOL:
        return None
    return q


def _identity_table(distance: np.ndarray, counts: np.ndarray, delta: float) -> np.ndarray | None:
    """The LP's optimum in closed form when every distinct value is held by ``>= 1/delta`` records.

    Each record keeping its own value (the identity table) then meets Definition 5: an output's
    mass is at least its value's count ``c_k``, and ``1 <= delta * c_k``. It costs 0, and every
    other table costs more: mass off a row's only zero-distance column lands where the distance
    is positive. So the identity is the unique optimum, the table every solver returns up to its
    residue. Returns None unless every count meets ``1/delta``, no distance is negative and each
    row has exactly one zero-distance column (the table of each row's own value).
    """
    if not np.all(counts * delta >= 1.0 - 1e-12) or np.any(distance < 0):
        return None
    own = distance == 0
    if not np.all(own.sum(axis=1) == 1):
        return None
    return own.astype(float)


def repair_table(probabilities, counts, delta: float) -> np.ndarray:
    """A solved random output table made to meet Definition 5 exactly.

    Negative entries (solver residue) become zero; columns whose total mass is below
    ``RESIDUE_MASS`` records are emptied and the rows renormalized; any excess
    ``p_kj - delta * sum_k' c_k' p_k'j > 0`` left is removed by mixing every row with the
    count-weighted mean row by the smallest weight that suffices. The mix keeps row sums and
    column masses, and changes the objective by that weight times the gap to the mean row's
    objective (of order 1e-9 for residue).

    Parameters
    ----------
    probabilities : ndarray (r, n)
        A (nearly) feasible table, one row per distinct value.
    counts : ndarray (r,)
        Records per row.
    delta : float
        The bound, at least ``1 / counts.sum()``.

    Returns
    -------
    ndarray (r, n)
        Rows sum to one, no negative entry, ``table_delta_ratio <= delta`` up to ``CHECK_TOL``.

    Raises
    ------
    ValueError
        When the table cannot be repaired (a row without mass, non-finite entries), its shape
        does not match ``counts``, a count is not positive, or ``delta`` lies outside
        ``[1/m, 1]`` for ``m = counts.sum()`` records.

    Examples
    --------
    Solver residue of ``1e-9`` on a column no one else uses puts that column's whole mass on
    one record (ratio 1); the repair empties it:

    >>> import numpy as np
    >>> from ppdp.mechanisms.mutual_cover import repair_table, table_delta_ratio
    >>> residue = np.array([[0.5, 0.5, 1e-9], [0.5, 0.5, 0.0]])
    >>> table_delta_ratio(residue, [1, 1])
    1.0
    >>> repair_table(residue, [1, 1], 0.5).tolist()
    [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]]

    An excess over ``delta`` is removed by mixing with the mean row:

    >>> repaired = repair_table([[0.7, 0.3], [0.3, 0.7]], [1, 1], 0.6)
    >>> repaired.round(6).tolist(), round(table_delta_ratio(repaired, [1, 1]), 6)
    ([[0.6, 0.4], [0.4, 0.6]], 0.6)
    """
    q = np.asarray(probabilities, dtype=float)
    counts = np.asarray(counts, dtype=float)
    if q.ndim != 2 or counts.shape != (q.shape[0],) or np.any(counts <= 0):
        raise ValueError(
            f"probabilities must be (r, n) with r = len(counts) positive counts, got shapes "
            f"{q.shape} and {counts.shape}"
        )
    if not (1.0 / counts.sum() - 1e-12 <= delta <= 1.0):
        raise ValueError(f"delta={delta!r} must lie in [1/m, 1] for m={counts.sum():g} records")
    repaired = _repair(q, counts, float(delta))
    if repaired is None:
        raise ValueError(
            "probabilities cannot be repaired into a delta-probability table: a row has no "
            "mass outside residue columns or holds non-finite values"
        )
    return repaired


_THREAD_SOLVER = threading.local()


def _new_highs():
    """A HiGHS instance with the options every solve shares."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    return h


def _highs():
    """This thread's HiGHS instance, created on first use."""
    h = getattr(_THREAD_SOLVER, "highs", None)
    if h is None:
        h = _THREAD_SOLVER.highs = _new_highs()
    return h


def _run_highs(model: _LpModel, solver: str) -> tuple[np.ndarray, str]:
    """Solve ``model`` with this thread's HiGHS instance (:func:`_highs`): :func:`_solve_with`."""
    return _solve_with(_highs(), model, solver)


def _solve_with(h, model: _LpModel, solver: str) -> tuple[np.ndarray, str]:
    """Solve ``model`` on the HiGHS instance ``h``; returns the primal solution and the status text.

    The instance starts from a cleared solver and ends with the model removed, so no state passes
    from one LP to the next.
    """
    import highspy

    h.clearSolver()
    if solver == "ipm":
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "off")
    else:
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("run_crossover", "on")
    try:
        h.passModel(*model)
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal and solver == "ipm":
            # no interior to follow (e.g. delta = 1/m forces equal rows): finish with crossover
            h.setOptionValue("run_crossover", "on")
            h.run()
            status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            h.setOptionValue("solver", "simplex")
            h.run()
            status = h.getModelStatus()
        ok = status == highspy.HighsModelStatus.kOptimal
        # a copy: the solution's storage belongs to the instance, which the next LP reuses
        x = np.array(h.getSolution().col_value, dtype=float)
        return x, "" if ok else h.modelStatusToString(status)
    finally:
        h.clearModel()


class _LpModel(NamedTuple):
    """The arguments of the array form of ``Highs.passModel``, in its order.

    The array form, because a ``HighsLp``'s setters convert arrays element by element, which costs
    about as much as solving the smallest LPs.
    """

    num_col: int
    num_row: int
    num_nz: int
    a_format: int
    sense: int
    offset: float
    col_cost: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    a_start: np.ndarray
    a_index: np.ndarray
    a_value: np.ndarray
    integrality: np.ndarray


class _LpPattern(NamedTuple):
    """What the LP of an ``r x n`` table takes from its shape alone (arrays are read-only)."""

    kq: np.ndarray  # row k of every q_kj, row-major
    start: np.ndarray  # CSC column starts (int32)
    index: np.ndarray  # CSC row indices (int32)
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    integrality: np.ndarray  # every variable continuous


#: The LP patterns of :func:`solve_random_output_table`, by shape: a census fit solves thousands
#: of LPs of a few dozen shapes.
LP_PATTERNS = Memo(
    "mechanisms.mutual_cover.lp_patterns",
    "the sparsity pattern and bounds of a random output table's LP, by its shape (r, n)",
    maxsize=1024,
)


def _lp_pattern(r: int, n: int) -> _LpPattern:
    """The pattern of :func:`_new_lp_pattern`, built once per shape (:data:`LP_PATTERNS`)."""
    return LP_PATTERNS.get((r, n), lambda: _new_lp_pattern(r, n))


def _new_lp_pattern(r: int, n: int) -> _LpPattern:
    """The sparsity pattern and bounds of the LP of :func:`solve_random_output_table`.

    Variables: q (r*n, row-major), then s (n), the column sums. Rows: r rows sum_j q_kj = 1, n rows
    s_j - sum_k c_k q_kj = 0, and r*n rows q_kj - delta s_j <= 0 (Definition 5 written per entry).
    The matrix is assembled column by column (CSC) directly.
    """
    import highspy

    nq = r * n
    kq = np.repeat(np.arange(r), n)
    jq = np.tile(np.arange(n), r)
    index_q = np.stack([kq, r + jq, r + n + np.arange(nq)], axis=1).ravel()
    index_s = np.concatenate(
        [(r + np.arange(n))[:, None], r + n + np.arange(r)[None, :] * n + np.arange(n)[:, None]],
        axis=1,
    ).ravel()
    start = np.concatenate([np.arange(nq) * 3, 3 * nq + np.arange(n + 1) * (r + 1)])
    inf = highspy.kHighsInf
    pattern = _LpPattern(
        kq=kq,
        start=start.astype(np.int32),
        index=np.concatenate([index_q, index_s]).astype(np.int32),
        col_lower=np.zeros(nq + n),
        col_upper=np.full(nq + n, inf),
        row_lower=np.concatenate([np.ones(r), np.zeros(n), np.full(nq, -inf)]),
        row_upper=np.concatenate([np.ones(r), np.zeros(n), np.zeros(nq)]),
        integrality=np.zeros(nq + n, dtype=np.int32),
    )
    for array in pattern:
        array.flags.writeable = False
    return pattern


def solve_random_output_table(
    distance: np.ndarray, counts: np.ndarray, delta: float, *, solver: str = "ipm"
) -> tuple[np.ndarray, float]:
    """Solve the LP of Section 4 with one row per distinct original value.

    Parameters
    ----------
    distance : ndarray (r, n)
        ``dis(value_k, column_j)``.
    counts : ndarray (r,)
        Multiplicity of each distinct value in the group (``m = counts.sum()``).
    delta : float
        The delta-probability bound, at least ``1 / m`` (Property 1).
    solver : {"ipm", "simplex", "batch"}
        ``"ipm"`` (default) runs HiGHS's interior-point method without crossover, the
        primal-dual path-following method the paper uses: it returns a point inside the optimal
        face, spreading probability over all equally cheap outputs (compare Fig. 2, where every
        record of a block covers several ages). ``"simplex"`` returns an optimal vertex, which
        concentrates the mass on as few outputs as possible. Both reach the same objective.
        When the interior-point method stops without an optimal status (a feasible set without
        interior, e.g. ``delta = 1/m``, which forces equal rows), it is finished with crossover,
        then with the simplex method; only if all fail is an error raised. ``"batch"`` is the
        interior-point method of ``batch_ipm`` (:func:`solve_random_output_tables` with one
        LP): another point of the optimal face than HiGHS's, certified within ``BATCH_ACCEPT``
        of the optimum, else solved with ``"ipm"``.

    Returns
    -------
    probabilities : ndarray (r, n)
        Rows sum to one and the table meets delta-probability exactly: the solution is passed
        through :func:`repair_table`. If the repaired interior-point table cannot be verified or
        costs more than ``1e-6`` (relative) above the solver's objective, the LP is solved again
        with the simplex method and the better verified table is kept. When every count is at
        least ``1/delta``, the identity table, the LP's unique optimum, is returned without a
        solve (``_identity_table``).
    objective : float
        Objective value of the returned table.

    Raises
    ------
    ValueError
        If ``distance`` is not a non-empty 2-d array, ``counts`` not ``r`` positive numbers,
        ``delta`` outside ``[1/m, 1]``, or ``solver`` unknown (an ``InvalidParameterError``, also
        a ``TypeError``).
    RuntimeError
        If HiGHS does not solve the LP, or no solved table can be repaired to meet
        delta-probability exactly.

    Examples
    --------
    Two records with values ``a`` and ``b`` and 0/1 distance: with ``delta = 0.6`` each keeps
    its value with probability 0.6, so that either output came from either record with
    probability at most 0.6:

    >>> import numpy as np
    >>> from ppdp.mechanisms.mutual_cover import solve_random_output_table
    >>> distance = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> table, objective = solve_random_output_table(distance, np.array([1, 1]), 0.6)
    >>> table.round(6).tolist(), round(objective, 6)
    ([[0.6, 0.4], [0.4, 0.6]], 0.8)
    >>> round(solve_random_output_table(distance, np.array([1, 1]), 1.0)[1], 6)  # keep all
    0.0
    """
    import highspy

    check_params({"solver": solver}, _CONSTRAINTS, "solve_random_output_table")
    if solver == "batch":
        return solve_random_output_tables([(distance, counts)], delta, solver="batch")[0]
    distance, counts = _checked_lp(distance, counts, delta)
    r, n = distance.shape
    m = counts.sum()
    identity = _identity_table(distance, counts, float(delta))
    if identity is not None:
        return identity, 0.0
    nq = r * n
    pattern = _lp_pattern(r, n)
    # the matrix entries in the pattern's order: per q_kj (1, -c_k, 1), per s_j (1, -delta x r)
    value = np.empty(len(pattern.index))
    value_q = value[: 3 * nq].reshape(nq, 3)
    value_q[:, 0] = 1.0
    value_q[:, 1] = -counts[pattern.kq]
    value_q[:, 2] = 1.0
    value_s = value[3 * nq :].reshape(n, r + 1)
    value_s[:, 0] = 1.0
    value_s[:, 1:] = -float(delta)
    cost = counts[:, None] * distance
    model = _LpModel(
        num_col=nq + n,
        num_row=r + n + nq,
        num_nz=len(value),
        a_format=int(highspy.MatrixFormat.kColwise),
        sense=int(highspy.ObjSense.kMinimize),
        offset=0.0,
        col_cost=np.concatenate([cost.ravel(), np.zeros(n)]),
        col_lower=pattern.col_lower,
        col_upper=pattern.col_upper,
        row_lower=pattern.row_lower,
        row_upper=pattern.row_upper,
        a_start=pattern.start,
        a_index=pattern.index,
        a_value=value,
        integrality=pattern.integrality,
    )

    def solve(method: str) -> tuple[np.ndarray | None, float]:
        x, failure = _run_highs(model, method)
        if failure:
            raise RuntimeError(
                f"HiGHS did not solve the random-output-table LP: {failure} "
                f"(r={r}, n={n}, m={m:g}, delta={delta})"
            )
        raw = np.maximum(x[:nq].reshape(r, n), 0.0)
        return _repair(raw, counts, float(delta)), float(np.sum(cost * raw))

    q, raw_objective = solve(solver)
    slack = 1e-6 * max(1.0, abs(raw_objective))
    if solver == "ipm" and (q is None or np.sum(cost * q) > raw_objective + slack):
        q_vertex, _ = solve("simplex")
        if q_vertex is not None and (q is None or np.sum(cost * q_vertex) < np.sum(cost * q)):
            q = q_vertex
    if q is None:
        raise RuntimeError(
            "the solved random output table could not be repaired to meet delta-probability "
            f"exactly (r={r}, n={n}, m={m:g}, delta={delta})"
        )
    return q, float(np.sum(cost * q))


def _checked_lp(distance, counts, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """``distance`` and ``counts`` as float arrays, checked as :func:`solve_random_output_table`
    states."""
    distance = np.asarray(distance, dtype=float)
    counts = np.asarray(counts, dtype=float)
    if distance.ndim != 2 or distance.size == 0:
        raise ValueError(f"distance must be a non-empty 2-d array, got shape {distance.shape}")
    r = distance.shape[0]
    if counts.shape != (r,) or np.any(counts <= 0):
        raise ValueError(f"counts must be {r} positive numbers, got {counts!r}")
    m = counts.sum()
    if not (1.0 / m - 1e-12 <= delta <= 1.0):
        raise ValueError(
            f"delta={delta!r} must lie in [1/m, 1] = [{1 / m:.6g}, 1] for a group of m={m:g} tuples (Property 1)"
        )
    return distance, counts


def solve_random_output_tables(
    problems: Sequence[tuple[np.ndarray, np.ndarray]], delta: float, *, solver: str = "batch"
) -> list[tuple[np.ndarray, float]]:
    """Solve the LPs of Section 4 of many groups that share ``delta``.

    Parameters
    ----------
    problems : sequence of (distance (r, n), counts (r,))
        One LP each, as :func:`solve_random_output_table` takes it.
    delta : float
        The delta-probability bound, at least ``1 / m`` for every LP.
    solver : {"batch", "ipm", "simplex"}
        ``"batch"`` (default) solves every LP that is neither the closed form
        (``_identity_table``) nor without interior (``delta * m = 1``) in one call of the
        batched interior-point method (``batch_ipm.interior_point_tables``), passes each table
        through :func:`repair_table` and keeps it when its objective is within
        ``BATCH_ACCEPT * max(1, |objective|)`` of the certified lower bound of its multipliers;
        the LPs without interior, and any table not so certified, are solved with
        ``solver="ipm"``. ``"ipm"`` and ``"simplex"`` solve the LPs one by one.

    Returns
    -------
    list of (probabilities, objective)
        What :func:`solve_random_output_table` returns, per LP, in the order of ``problems``.

    Raises
    ------
    ValueError
        As :func:`solve_random_output_table`, for the first LP with bad input.
    RuntimeError
        From :func:`solve_random_output_table`, when HiGHS cannot solve an LP it is given.

    Examples
    --------
    Two groups on a 0/1 attribute; the second has a value held by fewer than ``1/delta``
    records:

    >>> import numpy as np
    >>> from ppdp.mechanisms.mutual_cover import solve_random_output_tables
    >>> flip = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> solved = solve_random_output_tables([(flip, [1, 1]), (flip, [1, 3])], 0.6)
    >>> [round(objective, 6) for _, objective in solved]
    [0.8, 0.666667]
    >>> solved[0][0].round(6).tolist()
    [[0.6, 0.4], [0.4, 0.6]]
    """
    check_params({"solver": solver}, _CONSTRAINTS, "solve_random_output_tables")
    if solver != "batch":
        return [solve_random_output_table(d, c, delta, solver=solver) for d, c in problems]
    return _solve_batch(problems, delta)[0]


def _solve_batch(
    problems: Sequence[tuple[np.ndarray, np.ndarray]], delta: float
) -> tuple[list[tuple[np.ndarray, float]], int]:
    """:func:`solve_random_output_tables` with ``solver="batch"``, and how many of the batched
    LPs were not certified and went to HiGHS."""
    checked = [_checked_lp(d, c, delta) for d, c in problems]
    delta = float(delta)
    solved: list = [None] * len(checked)
    batch = []
    for i, (distance, counts) in enumerate(checked):
        identity = _identity_table(distance, counts, delta)
        if identity is not None:
            solved[i] = (identity, 0.0)
        elif counts.sum() * delta <= _NO_INTERIOR:
            solved[i] = solve_random_output_table(distance, counts, delta, solver="ipm")
        else:
            batch.append(i)
    n_fallback = 0
    if batch:
        # numba compiles (or loads from its cache) on first use: only a batched solve pays it
        from .batch_ipm import interior_point_tables

        tables, lower, _ = interior_point_tables([checked[i] for i in batch], delta)
        for i, raw, bound in zip(batch, tables, lower, strict=True):
            distance, counts = checked[i]
            q = _repair(raw, counts, delta)
            objective = float(np.sum(counts[:, None] * distance * q)) if q is not None else np.inf
            if not objective - bound <= BATCH_ACCEPT * max(1.0, abs(objective)):
                n_fallback += 1
                q, objective = solve_random_output_table(distance, counts, delta, solver="ipm")
            solved[i] = (q, objective)
    return solved, n_fallback
