"""Mutual Cover: random output tables under delta-probability (Li, Wang and He, IEEE TKDE).

The mechanism (Algorithm 1) partitions the table into l-diverse QI groups (Algorithm 2, Mondrian
median cuts, :class:`ppdp.mechanisms.mondrian.Mondrian`), computes for every group and QI a random
output table (Definition 3) that keeps records as close to their original value as possible while
satisfying delta-probability (Definition 5), draws each record's released value from its row of the
table, and finally perturbs one QI of every tuple that came out unchanged
(``randomize_unchanged_tuples``, Algorithm 3). The released table keeps the row order and carries
no group ids.

The random output table is the linear program of Section 4,

.. math::

    \\min \\sum_{i,j} dis(v_i^{ori}, v_j^{col}) p_{ij}
    \\quad \\text{s.t.}\\quad \\sum_j p_{ij} = 1,\\quad p_{ij} \\le \\delta \\sum_{i'} p_{i'j},
    \\quad p_{ij} \\ge 0,

where the delta-probability constraint ``max_i p_ij / sum_i p_ij <= delta`` is written per entry,
which makes it linear. It is solved with HiGHS and every solved table is then repaired so that it
meets Definition 5 exactly (:func:`repair_table`): the interior-point method leaves residue of
order ``1e-9`` that can put a whole column's tiny mass on one record, a ratio far above delta.

Choices (each stated also in the notebook):

* The partition is Algorithm 2 (``refine="none"``, default) or Algorithm 2 followed by the
  Anatomy-style split into groups of about ``l`` tuples of the authors' released code
  (``refine="anatomy"``); any other partition can be passed to :meth:`MutualCover.fit`.
* Columns of an integer QI are every integer between the group's minimum and maximum (Fig. 2 of
  the paper has columns 28..41 including ages nobody in the group has) as long as that range holds
  at most ``max_range_columns`` (default 1000) integers; a wider range (an income in dollars) uses
  the values present in the group, as real-valued and categorical QIs always do, because one LP
  column per integer makes the LP grow with the range rather than the group
  (``numeric_columns="auto"``). ``"range"`` and ``"observed"`` force one rule.
* Records with the same original value are interchangeable in the LP, so it is solved with one row
  per distinct value weighted by its count. Averaging any optimum over the permutations of equal
  rows is feasible and optimal, so the optimum value is unchanged; the table returned gives equal
  rows to equal values (as Fig. 2 does for Helen and Dean). The LP depends on a numeric group only
  through the values relative to its minimum, so solved tables are cached and reused across groups.
* Algorithm 3 repeats "pick an attribute with probability proportional to its weight, replace the
  value by a uniform value of the group's range" until the tuple changed. The final outcome of that
  loop is drawn directly: attribute ``A`` with probability proportional to ``w_A (n_A - 1) / n_A``,
  then a uniform value among the ``n_A - 1`` others, which is the same distribution. A tuple whose
  group is constant on every QI cannot change; it is left as is and counted in
  ``n_unchangeable_``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, check_params, validate_hyperparameters
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.guarantees import CHECK_TOL, GuaranteeCheck, enforce
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.memo import Memo
from ppdp.tabular import (
    AttributeDomain,
    Hierarchy,
    build_domains,
    measure_l_diversity,
    validate_table,
)

__all__ = [
    "MutualCover",
    "RandomOutputTable",
    "random_output_table",
    "repair_table",
    "solve_random_output_table",
    "table_delta_ratio",
]

#: Tolerance used when checking a solved table against its constraints.
FEASIBILITY_TOL = 1e-7

#: Column mass (in records) below which an interior-point column is solver residue: the
#: interior-point method converges towards zero on columns outside the optimal face but stops at
#: about 1e-9..1e-7. Emptying such a column moves the objective by at most its mass times the
#: largest distance, and :func:`solve_random_output_table` checks the objective after the repair.
RESIDUE_MASS = 1e-6

#: Largest integer range of a group whose every integer becomes an LP column under
#: ``numeric_columns="auto"``.
MAX_RANGE_COLUMNS = 1000

_NUMERIC_COLUMNS = ("auto", "range", "observed")

#: Constraints shared by :class:`MutualCover` and the functions that solve one group's table.
_CONSTRAINTS = {
    "numeric_columns": [StrOptions(_NUMERIC_COLUMNS)],
    "max_range_columns": [Interval(Integral, 1, None, closed="left")],
    "solver": [StrOptions(("ipm", "simplex"))],
    "kind": [StrOptions(("numeric", "categorical"))],
}


@dataclass
class RandomOutputTable:
    """A random output table of one QI group and one attribute (Definition 3).

    Attributes
    ----------
    columns : ndarray (n,)
        The output values ``v_j^col``.
    values : ndarray (r,)
        The distinct original values of the group.
    counts : ndarray (r,)
        How many records carry each distinct value.
    probabilities : ndarray (r, n)
        ``p(v_j^col | value)``; every record with original value ``values[k]`` uses row ``k``.
    objective : float
        The LP objective over all records, ``sum_k counts[k] * sum_j dis(values[k], columns[j]) p_kj``.

    Examples
    --------
    A group of four ages, two of them equal: the integer columns 28 to 33 (as in Fig. 2), one
    row per distinct age:

    >>> from ppdp.mechanisms.mutual_cover import random_output_table
    >>> table = random_output_table([28, 30, 30, 33], delta=0.5)
    >>> table.columns.tolist(), table.values.tolist(), table.counts.tolist()
    ([28, 29, 30, 31, 32, 33], [28, 30, 33], [1, 2, 1])
    >>> table.probabilities.shape, table.expand([30, 28, 33, 30]).shape
    ((3, 6), (4, 6))
    >>> round(table.objective, 6), round(table.delta_ratio(), 6)
    (5.0, 0.5)
    """

    columns: np.ndarray
    values: np.ndarray
    counts: np.ndarray
    probabilities: np.ndarray
    objective: float

    def expand(self, original_values) -> np.ndarray:
        """The full ``m x n`` table, one row per record of ``original_values``."""
        lookup = {v: k for k, v in enumerate(self.values.tolist())}
        rows = [lookup[v] for v in np.asarray(original_values).tolist()]
        return self.probabilities[rows]

    def delta_ratio(self) -> float:
        """``max_j max_i p_ij / sum_i p_ij`` over columns with positive mass (Definition 5)."""
        return table_delta_ratio(self.probabilities, self.counts)


def table_delta_ratio(probabilities: np.ndarray, counts: np.ndarray) -> float:
    """Largest ``p_kj / sum_k' c_k' p_k'j`` over the columns with positive mass (Definition 5).

    ``probabilities`` has one row per distinct value, ``counts`` the records of each row.

    Parameters
    ----------
    probabilities : array-like (r, n)
        ``p(v_j^col | value_k)``, one row per distinct original value.
    counts : array-like (r,)
        Records per row.

    Returns
    -------
    float
        The table's delta: the largest probability that an output value came from one given
        record; NaN when no column has mass.

    Examples
    --------
    Two records that keep their value give it away (delta 1); two that draw from the same row
    cover each other (delta 1/2):

    >>> import numpy as np
    >>> from ppdp.mechanisms.mutual_cover import table_delta_ratio
    >>> table_delta_ratio(np.eye(2), [1, 1])
    1.0
    >>> table_delta_ratio([[0.5, 0.5], [0.5, 0.5]], [1, 1])
    0.5
    >>> table_delta_ratio([[0.7, 0.3], [0.3, 0.7]], [1, 1])
    0.7
    """
    p = np.asarray(probabilities, dtype=float)
    mass = np.asarray(counts, dtype=float) @ p
    used = mass > 0
    if not used.any():
        return float("nan")
    return float((p.max(axis=0)[used] / mass[used]).max())


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


def _run_highs(model: _LpModel, solver: str) -> tuple[np.ndarray, str]:
    """Solve ``model`` with HiGHS; returns the primal solution and the model status text."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    if solver == "ipm":
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "off")
    else:
        h.setOptionValue("solver", "simplex")
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
    return np.asarray(h.getSolution().col_value), "" if ok else h.modelStatusToString(status)


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
    solver : {"ipm", "simplex"}
        ``"ipm"`` (default) runs HiGHS's interior-point method without crossover, the
        primal-dual path-following method the paper uses: it returns a point inside the optimal
        face, spreading probability over all equally cheap outputs (compare Fig. 2, where every
        record of a block covers several ages). ``"simplex"`` returns an optimal vertex, which
        concentrates the mass on as few outputs as possible. Both reach the same objective.
        When the interior-point method stops without an optimal status (a feasible set without
        interior, e.g. ``delta = 1/m``, which forces equal rows), it is finished with crossover,
        then with the simplex method; only if all fail is an error raised.

    Returns
    -------
    probabilities : ndarray (r, n)
        Rows sum to one and the table meets delta-probability exactly: the solution is passed
        through :func:`repair_table`. If the repaired interior-point table cannot be verified or
        costs more than ``1e-6`` (relative) above the solver's objective, the LP is solved again
        with the simplex method and the better verified table is kept.
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

    distance = np.asarray(distance, dtype=float)
    counts = np.asarray(counts, dtype=float)
    if distance.ndim != 2 or distance.size == 0:
        raise ValueError(f"distance must be a non-empty 2-d array, got shape {distance.shape}")
    r, n = distance.shape
    if counts.shape != (r,) or np.any(counts <= 0):
        raise ValueError(f"counts must be {r} positive numbers, got {counts!r}")
    check_params({"solver": solver}, _CONSTRAINTS, "solve_random_output_table")
    m = counts.sum()
    if not (1.0 / m - 1e-12 <= delta <= 1.0):
        raise ValueError(
            f"delta={delta!r} must lie in [1/m, 1] = [{1 / m:.6g}, 1] for a group of m={m:g} tuples (Property 1)"
        )
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


def _columns_for(
    dom: AttributeDomain,
    codes: np.ndarray,
    numeric_columns: str = "auto",
    max_range_columns: int = MAX_RANGE_COLUMNS,
) -> np.ndarray:
    """Output values of a group's random output table (see the module notes)."""
    return _columns(dom, np.unique(codes), dom.integer, numeric_columns, max_range_columns)


def _columns(
    dom: AttributeDomain,
    present: np.ndarray,
    integer: bool,
    numeric_columns: str,
    max_range_columns: int,
) -> np.ndarray:
    """:func:`_columns_for` from the group's distinct codes (ascending) and ``dom.integer``."""
    if dom.kind == "numeric" and integer and numeric_columns != "observed":
        lo, hi = dom.values[present[0]], dom.values[present[-1]]
        if numeric_columns == "range" or hi - lo + 1 <= max_range_columns:
            return np.arange(lo, hi + 1, dtype=dom.values.dtype)
    return dom.values[present]


def random_output_table(
    values,
    delta: float,
    *,
    kind: str = "numeric",
    columns=None,
    hierarchy: Hierarchy | None = None,
    solver: str = "ipm",
    numeric_columns: str = "auto",
    max_range_columns: int = MAX_RANGE_COLUMNS,
) -> RandomOutputTable:
    """Random output table of one group on one attribute (``calculate_table``, Section 4).

    Parameters
    ----------
    values : array-like (m,)
        Original values of the group's records on the attribute.
    delta : float
        In ``[1/m, 1]``.
    kind : {"numeric", "categorical"}
        Numeric values use ``|a - b|`` (Definition 7), categorical ones 0/1 distance or the
        ``hierarchy`` distance.
    solver : {"ipm", "simplex"}
        See :func:`solve_random_output_table`.
    columns : array-like, optional
        Output values; default every integer between min and max for integer numeric values
        (when that range holds at most ``max_range_columns`` integers, or always with
        ``numeric_columns="range"``), the distinct values otherwise.
    numeric_columns : {"auto", "range", "observed"}
    max_range_columns : int
        See :class:`MutualCover`.

    Returns
    -------
    RandomOutputTable
        One row per distinct value of ``values`` (sorted), one column per output value; solved
        by :func:`solve_random_output_table`.

    Raises
    ------
    ValueError
        If ``values`` is not a non-empty 1-d array or holds NaN or infinite numbers, ``delta``
        lies outside ``[1/m, 1]``, or ``kind``, ``solver``, ``numeric_columns`` or
        ``max_range_columns`` is out of range (an ``InvalidParameterError``, also a
        ``TypeError``).
    TypeError
        If ``kind="numeric"`` and the values are not numbers.
    RuntimeError
        From :func:`solve_random_output_table`, if the LP cannot be solved.

    Examples
    --------
    Four diseases, 0/1 distance, ``delta = 0.5``: the two flu records keep their value, the
    cold and ulcer records each draw cold or ulcer with probability 1/2:

    >>> from ppdp.mechanisms.mutual_cover import random_output_table
    >>> table = random_output_table(["flu", "cold", "flu", "ulcer"], 0.5, kind="categorical")
    >>> table.columns.tolist(), table.counts.tolist()
    (['cold', 'flu', 'ulcer'], [1, 2, 1])
    >>> table.probabilities.round(3).tolist()
    [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0], [0.5, 0.0, 0.5]]
    >>> round(table.objective, 6), round(table.delta_ratio(), 6)
    (1.0, 0.5)
    """
    check_params(
        {"numeric_columns": numeric_columns, "max_range_columns": max_range_columns},
        _CONSTRAINTS,
        "random_output_table",
    )
    values = np.asarray(values)
    if values.ndim != 1 or len(values) == 0:
        raise ValueError(f"values must be a non-empty 1-d array, got shape {values.shape}")
    check_params({"kind": kind}, _CONSTRAINTS, "random_output_table")
    if pd.isna(values).any():
        raise ValueError("values hold NaN")
    if kind == "numeric" and np.issubdtype(values.dtype, np.number) and np.isinf(values).any():
        raise ValueError("values hold infinite numbers; only finite values are allowed")
    if kind == "numeric":
        if not np.issubdtype(values.dtype, np.number):
            raise TypeError(f"numeric values must be numbers, got dtype {values.dtype}")
        dom = AttributeDomain("values", "numeric", np.unique(values))
    else:
        uniq = np.array(sorted(set(values.tolist()), key=str), dtype=object)
        dom = AttributeDomain("values", "categorical", uniq, hierarchy)
    codes = dom.encode(values)
    uniq_codes, counts = np.unique(codes, return_counts=True)
    cols = (
        _columns_for(dom, codes, numeric_columns, max_range_columns)
        if columns is None
        else np.asarray(columns)
    )
    if kind == "numeric":
        dist = np.abs(dom.values[uniq_codes][:, None] - cols[None, :].astype(float))
    elif hierarchy is None:
        dist = (dom.values[uniq_codes][:, None] != cols[None, :]).astype(float)
    else:
        dist = np.array([[hierarchy.distance(a, b) for b in cols] for a in dom.values[uniq_codes]])
    probs, obj = solve_random_output_table(dist, counts, delta, solver=solver)
    return RandomOutputTable(cols, dom.values[uniq_codes], counts, probs, obj)


@dataclass
class _GroupValues:
    """The distinct codes of one QI in every group, found with one sort for all groups.

    Group ``g``'s distinct codes (ascending) are ``uniq[bounds[g]:bounds[g + 1]]``, each held by
    ``counts`` records; ``local`` is the position of each record's code among its group's.
    """

    uniq: np.ndarray
    counts: np.ndarray
    bounds: np.ndarray
    local: np.ndarray

    @classmethod
    def of(cls, codes: np.ndarray, groups: np.ndarray, n_groups: int, size: int) -> _GroupValues:
        pair = groups * size + codes  # sorts by group, then by code
        uniq, inverse, counts = np.unique(pair, return_inverse=True, return_counts=True)
        bounds = np.searchsorted(uniq, np.arange(n_groups + 1) * size)
        return cls(uniq % size, counts, bounds, inverse.ravel() - bounds[groups])

    def group(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.bounds[g], self.bounds[g + 1]
        return self.uniq[lo:hi], self.counts[lo:hi]


def _check_property_2(delta, l) -> None:  # noqa: E741 (the paper's l)
    """A delta-probability table of an l-diverse group needs ``delta >= 1/l`` (Property 2)."""
    if not (1.0 / l - 1e-12 <= delta <= 1.0):
        raise ValueError(f"delta={delta!r} must lie in [1/l, 1] = [{1 / l:.6g}, 1] (Property 2)")


class MutualCover(Mechanism):
    """Mutual Cover with delta-probability random output tables (Algorithms 1-3).

    Parameters
    ----------
    qi : sequence of str
        Quasi-identifiers.
    sensitive : str
        Sensitive attribute (kept unchanged; used by the l-diverse partition).
    delta : float
        delta-probability bound, in ``[1/l, 1]`` (Property 2).
    l : float
        l-diversity of the partition (Definition 2).
    categorical : sequence of str
        QIs with 0/1 distance; the others must be numeric and use ``|a - b|``.
    hierarchies : mapping name -> Hierarchy
        Categorical QIs with a hierarchy distance.
    randomize_unchanged : bool
        Apply Algorithm 3 (default True, as in the paper).
    solver : {"ipm", "simplex"}
        How the LPs are solved (:func:`solve_random_output_table`); both give optimal tables.
    refine : {"none", "anatomy"}
        Partition step when :meth:`fit` computes it: Algorithm 2 as printed, or followed by the
        Anatomy-style split of the authors' code (see :class:`~ppdp.mechanisms.mondrian.Mondrian`).
    numeric_columns : {"auto", "range", "observed"}
        Output values of an integer QI's table: every integer of the group's range (``"range"``,
        Fig. 2), the values present in the group (``"observed"``), or the range when it holds at
        most ``max_range_columns`` integers and the present values otherwise (``"auto"``).
    max_range_columns : int
        The limit of ``"auto"`` (default 1000; the census QIs span at most 99).
    progress : bool
        Show a progress bar while solving the LPs.

    Attributes
    ----------
    table_ : DataFrame
        A copy of the fitted table; :meth:`sample` publishes this table and no other.
    groups_ : ndarray (n,)
        QI group of every row (for analysis; never part of the release).
    partition_ : Mondrian or None
        The fitted partitioner, when the partition was computed here.
    tables_ : list of dict name -> RandomOutputTable
        The random output table of every group and QI.
    objective_ : float
        Sum of the LP objectives (expected total distance before Algorithm 3).
    n_lp_solved_ : int
        Number of LPs actually solved (the others came from the cache).
    n_unchanged_ : int
        Set by :meth:`sample`: tuples Algorithm 3 perturbed.
    n_unchangeable_ : int
        Set by :meth:`sample`: tuples Algorithm 3 could not perturb.
    algorithm3_weights_ : ndarray (n_groups, n_qi)
        The weight with which Algorithm 3 picks each QI of a group's unchanged tuple to perturb
        (before normalization; all 0 when ``randomize_unchanged`` is False).

    Notes
    -----
    Before :meth:`sample` returns it checks (:meth:`guarantee_checks`) delta-probability of every
    random output table exactly as it is sampled from, and the l-diversity of the partition, and
    raises :class:`~ppdp.guarantees.GuaranteeViolation` instead of releasing a violation. Every
    released column keeps its input dtype (nullable integers, categories, strings).

    Examples
    --------
    Eight patients in 2-diverse pairs; with ``delta = 1/2`` the two records of a pair draw from
    the same row, so each released value covers both:

    >>> import pandas as pd
    >>> from ppdp.mechanisms.mutual_cover import MutualCover
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58],
    ...     "hours": [40, 38, 45, 20, 40, 50, 35, 30],
    ...     "disease": ["flu", "cold", "flu", "ulcer", "cold", "flu", "ulcer", "cold"],
    ... })
    >>> mech = MutualCover(["age", "hours"], "disease", delta=0.5, l=2).fit(df)
    >>> mech.n_groups_, mech.groups_.tolist(), round(mech.objective_, 3)
    (4, [0, 0, 1, 1, 3, 3, 2, 2], 60.0)
    >>> mech.release(random_state=0)
       age  hours disease
    0   24     39     flu
    1   24     39    cold
    2   32     20     flu
    3   32     20   ulcer
    4   42     41    cold
    5   42     41     flu
    6   53     31   ulcer
    7   53     31    cold
    >>> [(c.guarantee, round(c.measured, 6), c.holds) for c in mech.guarantee_checks()]
    [('delta-probability', 0.5, True), ('l-diversity', 2.0, True)]
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "delta-probability (Definition 5): no released value's posterior ratio above ``delta`` "
        "in any random output table; l-diversity (Definition 2) of at least ``l`` of the "
        "partition."
    )

    _parameter_constraints: ClassVar[dict] = {
        "numeric_columns": _CONSTRAINTS["numeric_columns"],
        "max_range_columns": _CONSTRAINTS["max_range_columns"],
        "refine": [StrOptions(("none", "anatomy"))],
        "solver": _CONSTRAINTS["solver"],
        "l": [Interval(Real, 1, None, closed="left")],
        "delta": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(
        self,
        qi: Sequence[str],
        sensitive: str,
        *,
        delta: float,
        l: float,  # noqa: E741 (the paper's l)
        categorical: Sequence[str] = (),
        hierarchies: Mapping[str, Hierarchy] | None = None,
        randomize_unchanged: bool = True,
        solver: str = "ipm",
        refine: str = "none",
        numeric_columns: str = "auto",
        max_range_columns: int = MAX_RANGE_COLUMNS,
        progress: bool = False,
    ):
        self.qi = qi
        self.sensitive = sensitive
        self.delta = delta
        self.l = l
        self.categorical = categorical
        self.hierarchies = hierarchies
        self.randomize_unchanged = randomize_unchanged
        self.solver = solver
        self.refine = refine
        self.numeric_columns = numeric_columns
        self.max_range_columns = max_range_columns
        self.progress = progress

    def fit(self, table: pd.DataFrame, groups=None) -> MutualCover:
        """Partition ``table`` (unless ``groups`` is given) and solve every random output table.

        Parameters
        ----------
        table : DataFrame
        groups : array-like (n,), optional
            A precomputed partition (group id per row), e.g. ``Mondrian(...).fit(table).groups_``
            shared by several values of delta. Every group must hold at least ``1/delta`` tuples.
        """
        validate_hyperparameters(self)
        _check_property_2(self.delta, self.l)
        qi, categorical, hierarchies = validate_table(
            table,
            self.qi,
            self.sensitive,
            categorical=self.categorical,
            hierarchies=self.hierarchies,
        )
        # nothing of an earlier fit may be sampled if this one fails
        self.__dict__.pop("tables_", None)
        sens_codes, sens_values = pd.factorize(table[self.sensitive], sort=False)
        if self.l > len(sens_values):
            raise ValueError(
                f"l={self.l} is larger than the number of distinct sensitive values "
                f"({len(sens_values)}) of column {self.sensitive!r}"
            )
        domains = build_domains(table, qi, categorical, hierarchies)
        codes = np.column_stack([domains[c].encode(table[c].to_numpy()) for c in qi])
        if groups is None:
            self.partition_ = Mondrian(
                qi,
                self.sensitive,
                l=self.l,
                categorical=tuple(categorical),
                hierarchies=hierarchies,
                refine=self.refine,
            ).fit(table)
            groups = self.partition_.groups_
        else:
            self.partition_ = None
            groups = np.asarray(groups)
            if (
                groups.shape != (len(table),)
                or not np.issubdtype(groups.dtype, np.integer)
                or groups.min() < 0
            ):
                raise ValueError(
                    f"groups must hold one non-negative integer id per row ({len(table)}), got shape {groups.shape}"
                )
            groups = np.unique(groups, return_inverse=True)[1]
        sizes = np.bincount(groups)
        if sizes.min() * self.delta < 1 - 1e-12:
            raise ValueError(
                f"delta={self.delta:.6g} needs groups of at least {int(np.ceil(1 / self.delta - 1e-9))} tuples "
                f"(Property 1); the smallest group has {sizes.min()}"
            )
        self.qi_, self.domains_, self.codes_, self.groups_ = qi, domains, codes, groups
        self.sensitive_codes_ = sens_codes.astype(np.int64)
        self.n_groups_ = len(sizes)
        order = np.argsort(groups, kind="stable")
        self.group_rows_ = np.split(order, np.cumsum(sizes)[:-1])
        distinct = [
            _GroupValues.of(codes[:, a], groups, self.n_groups_, domains[c].size)
            for a, c in enumerate(qi)
        ]
        integer = [domains[c].integer for c in qi]
        cache: dict = {}
        self.n_lp_solved_ = 0
        tables = []
        iterator = range(self.n_groups_)
        if self.progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, desc="random output tables")
        for g in iterator:
            tables.append(
                {
                    c: self._table(domains[c], *distinct[a].group(g), integer[a], cache)
                    for a, c in enumerate(qi)
                }
            )
        self.objective_ = float(sum(t.objective for g in tables for t in g.values()))
        self.table_ = table.copy()
        self.tables_ = tables
        self._prepare_sampling([v.local for v in distinct])
        return self

    def _table(
        self,
        dom: AttributeDomain,
        uniq: np.ndarray,
        counts: np.ndarray,
        integer: bool,
        cache: dict,
    ) -> RandomOutputTable:
        """The table of a group whose codes on ``dom`` are ``uniq`` (ascending) ``counts`` times."""
        cols = _columns(dom, uniq, integer, self.numeric_columns, self.max_range_columns)
        vals = dom.values[uniq]
        if dom.kind == "numeric":
            offset = cols[0]
            key = ("n", tuple((vals - offset).tolist()), tuple(counts.tolist()), len(cols))
            if len(cols) == len(vals):
                # observed-value columns: the LP depends on the gaps between the values
                key = ("o", tuple((vals - offset).tolist()), tuple(counts.tolist()))
        else:
            key = ("c", tuple(uniq.tolist()), tuple(counts.tolist()))
        hit = cache.get(key)
        if hit is None:
            if dom.kind == "numeric":
                dist = np.abs(vals[:, None].astype(float) - cols[None, :].astype(float))
            else:
                col_codes = dom.encode(cols)
                dist = dom.distance_matrix(uniq, col_codes)
            hit = solve_random_output_table(dist, counts, self.delta, solver=self.solver)
            self.n_lp_solved_ += 1
            cache[key] = hit
        probs, obj = hit
        return RandomOutputTable(cols, vals, counts, probs, obj)

    def _prepare_sampling(self, local: Sequence[np.ndarray]) -> None:
        """Per attribute: flattened cumulative rows and per-record pointers, for vectorized draws.

        The flat probabilities the cumulative rows are built from are kept with a column-major
        layout (``_perm``, ``_col_start``, ``_entry_w``) so that :meth:`guarantee_checks`
        measures delta-probability on exactly what is sampled.

        Parameters
        ----------
        local : sequence of ndarray (n,), one per QI
            The row of each record in its group's table (:attr:`_GroupValues.local`).
        """
        n_groups, d = self.n_groups_, len(self.qi_)
        self._cum, self._col_vals, self._row_start, self._row_len = [], [], [], []
        self._prob, self._perm, self._col_start, self._entry_w = [], [], [], []
        self._col_group, self._col_index = [], []
        self._weights = np.zeros((n_groups, d))
        self._ncols = np.zeros((n_groups, d), dtype=np.int64)
        every, groups = np.arange(n_groups), self.groups_
        for a, c in enumerate(self.qi_):
            dom = self.domains_[c]
            tables = [self.tables_[g][c] for g in range(n_groups)]
            shape = np.array([t.probabilities.shape for t in tables], dtype=np.int64)
            r, k = shape[:, 0], shape[:, 1]
            pos = np.cumsum(r * k) - r * k  # first flat (row-major) entry of each table
            first_col = np.cumsum(k) - k  # first column of each table, all tables side by side
            # groups whose LP was shared through the cache share one probability array: its
            # cumulative rows are computed once
            flat: dict[int, tuple[np.ndarray, np.ndarray]] = {}
            for t in tables:
                if id(t.probabilities) not in flat:
                    prob = np.asarray(t.probabilities, dtype=float)
                    cum = np.cumsum(prob, axis=1)
                    cum /= cum[:, -1:]
                    flat[id(t.probabilities)] = (cum.ravel(), prob.ravel())
            parts = [flat[id(t.probabilities)] for t in tables]
            self._cum.append(np.concatenate([cum for cum, _ in parts]))
            self._prob.append(np.concatenate([prob for _, prob in parts]))
            # row-major entries: table g's entry (i, j) carries its output value columns[j]
            entry_group = np.repeat(every, r * k)
            j = (np.arange(len(entry_group)) - pos[entry_group]) % k[entry_group]
            columns = np.concatenate(
                [t.columns if dom.kind == "numeric" else t.columns.astype(object) for t in tables]
            )
            self._col_vals.append(columns[first_col[entry_group] + j])
            self._row_start.append(pos[groups] + local[a] * k[groups])
            self._row_len.append(k[groups])
            # column-major layout: column j of table g holds its r entries (i, j), i = 0..r-1
            col_group = np.repeat(every, k)
            col_index = np.arange(len(col_group)) - first_col[col_group]
            rows_per_col = r[col_group]
            col_start = np.concatenate([[0], np.cumsum(rows_per_col)[:-1]])
            entry_col = np.repeat(np.arange(len(col_group)), rows_per_col)
            i = np.arange(len(entry_col)) - col_start[entry_col]
            g_of = col_group[entry_col]
            self._perm.append(pos[g_of] + i * k[g_of] + col_index[entry_col])
            counts = np.concatenate([np.asarray(t.counts, dtype=float) for t in tables])
            self._entry_w.append(counts[(np.cumsum(r) - r)[g_of] + i])
            self._col_start.append(col_start)
            self._col_group.append(col_group)
            self._col_index.append(col_index)
            # Algorithm 3 weight: dis_max(A, group) / dis_max(A, T)
            span_t = dom.span
            if span_t > 0:
                self._weights[:, a] = np.array([self._group_span(dom, t) for t in tables]) / span_t
            self._ncols[:, a] = k

    @property
    def algorithm3_weights_(self) -> np.ndarray:
        """The weight with which Algorithm 3 picks each QI of a group, as :meth:`sample` draws it.

        It is ``dis_max(A, group) / dis_max(A, T)`` times ``(n - 1) / n`` for a table of ``n``
        output values, shape ``(n_groups, n_qi)``; all 0 when ``randomize_unchanged`` is False.
        """
        check_fitted(self, ["tables_", "table_"])
        if not self.randomize_unchanged:
            return np.zeros_like(self._weights)
        return self._weights * (self._ncols - 1) / self._ncols

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """delta-probability of every random output table and l-diversity of the partition.

        delta-probability is measured on the probabilities the cumulative rows of
        :meth:`sample` are built from: the largest ``p_kj / sum_k' c_k' p_k'j`` over every group,
        QI and column with positive mass (Definition 5). l-diversity is the largest ``l`` the
        partition meets in the sense of Definition 2 (smallest group size over the count of its
        most frequent sensitive value).
        """
        check_fitted(self, "tables_")
        worst, where = -np.inf, ""
        for a, c in enumerate(self.qi_):
            p = self._prob[a][self._perm[a]]
            starts = self._col_start[a]
            col_max = np.maximum.reduceat(p, starts)
            mass = np.add.reduceat(p * self._entry_w[a], starts)
            ratio = np.divide(col_max, mass, out=np.zeros_like(mass), where=mass > 0)
            # negative or non-finite entries can never be a release: make them the worst
            bad = ~np.isfinite(ratio) | (np.minimum.reduceat(p, starts) < 0)
            ratio[bad] = np.nan
            j = int(np.argmax(ratio)) if not bad.any() else int(np.flatnonzero(bad)[0])
            if np.isnan(ratio[j]) or ratio[j] > worst:
                g, k = int(self._col_group[a][j]), int(self._col_index[a][j])
                value = self.tables_[g][c].columns[k]
                value = value.item() if isinstance(value, np.generic) else value
                worst, where = float(ratio[j]), f"group {g}, {c} = {value!r}"
                if np.isnan(worst):
                    break
        l_value, g_l = measure_l_diversity(self.groups_, self.sensitive_codes_)
        return [
            GuaranteeCheck("MutualCover", "delta-probability", self.delta, worst, "at_most", where),
            GuaranteeCheck(
                "MutualCover", "l-diversity", float(self.l), l_value, "at_least", f"group {g_l}"
            ),
        ]

    @staticmethod
    def _group_span(dom: AttributeDomain, t: RandomOutputTable) -> float:
        if dom.kind == "numeric":
            return float(t.values.max() - t.values.min())
        if dom.hierarchy is not None:
            h = dom.hierarchy
            return float(h.n_leaves_under(h.lca(t.values.tolist())) - 1)
        return 1.0 if len(t.values) > 1 else 0.0

    def sample(self, table: pd.DataFrame | None, random_state: Any = None) -> pd.DataFrame:
        """Draw a release of the fitted table: same rows, same order, QIs replaced.

        Every row's value on each QI is drawn from its row of the group's random output table
        (``output_values``), then Algorithm 3 perturbs one QI of every tuple left unchanged.

        Parameters
        ----------
        table : DataFrame or None
            The table passed to :meth:`fit` (checked: same index, columns, dtypes and values), or
            None. The release is always built from the fitted table, whose partition and random
            output tables were computed on it.
        random_state : None, int >= 0 or numpy.random.Generator
            :func:`ppdp.base.check_random_state`; a Generator is used as is and advanced.

        Raises
        ------
        GuaranteeViolation
            If a random output table breaks delta-probability or the partition is not l-diverse;
            nothing is released.
        """
        rng = check_random_state(random_state)
        check_fitted(self, "tables_")
        if table is not None and not (
            isinstance(table, pd.DataFrame) and table.equals(self.table_)
        ):
            got = type(table).__name__ if not isinstance(table, pd.DataFrame) else "a DataFrame"
            raise ValueError(
                "table must be the table passed to fit (same index, columns, dtypes and values) "
                f"or None; got {got} that differs from it"
            )
        table = self.table_
        n, d = len(self.groups_), len(self.qi_)
        u = rng.random((n, d))
        out_vals = []
        for a in range(d):
            start, length = self._row_start[a], self._row_len[a]
            # index of the first cumulative probability >= u within the row
            cum = self._cum[a]
            idx = np.empty(n, dtype=np.int64)
            for k in np.unique(length):
                sel = np.flatnonzero(length == k)
                block = cum[start[sel][:, None] + np.arange(k)[None, :]]
                # u in [0, 1): the first column whose cumulative probability exceeds u, so a
                # column without mass (a flat step) is never drawn, not even for u = 0
                j = (block <= u[sel, a][:, None]).sum(axis=1)
                idx[sel] = start[sel] + np.minimum(j, k - 1)
            out_vals.append(self._col_vals[a][idx])
        released = table.copy()
        changed = np.zeros(n, dtype=bool)
        for a, c in enumerate(self.qi_):
            new = out_vals[a]
            orig = table[c].to_numpy()
            changed |= new != orig
            released[c] = _as_column(new, table[c])
        self.n_unchanged_ = int((~changed).sum())
        self.n_unchangeable_ = 0
        if self.randomize_unchanged and self.n_unchanged_:
            self._randomize_unchanged(released, np.flatnonzero(~changed), rng)
        enforce(self.guarantee_checks())
        return released

    def _randomize_unchanged(
        self, released: pd.DataFrame, rows: np.ndarray, rng: np.random.Generator
    ) -> None:
        """Algorithm 3 on the tuples whose QI values all came out unchanged."""
        g = self.groups_[rows]
        w = self.algorithm3_weights_[g]
        total = w.sum(axis=1)
        ok = total > 0
        self.n_unchangeable_ = int((~ok).sum())
        rows, w, total, g = rows[ok], w[ok], total[ok], g[ok]
        if len(rows) == 0:
            return
        u_attr = rng.random(len(rows))
        u_val = rng.random(len(rows))
        attr = (np.cumsum(w / total[:, None], axis=1) < u_attr[:, None]).sum(axis=1)
        attr = np.minimum(attr, len(self.qi_) - 1)
        columns = [released.columns.get_loc(c) for c in self.qi_]
        for a in np.unique(attr):
            sel = np.flatnonzero(attr == a)
            c = self.qi_[a]
            dom = self.domains_[c]
            new_vals = []
            for i in sel:
                t = self.tables_[g[i]][c]
                cols = t.columns
                orig = released.iat[rows[i], columns[a]]
                others = cols[cols != orig]
                new_vals.append(others[min(int(u_val[i] * len(others)), len(others) - 1)])
            col = released.iloc[:, columns[a]].to_numpy().copy()
            col[rows[sel]] = np.array(
                new_vals, dtype=col.dtype if dom.kind == "numeric" else object
            )
            released[c] = _as_column(col, released[c])

    def fit_sample(
        self, table: pd.DataFrame, random_state: Any = None, groups=None
    ) -> pd.DataFrame:
        """``fit(table, groups)`` then ``sample(None, random_state)``."""
        return self.fit(table, groups=groups).sample(None, random_state)

    def release(self, random_state: Any = None) -> pd.DataFrame:
        """Draw one release of the fitted table: :meth:`sample` with ``random_state``'s generator.

        Every row's value on each QI is drawn from its row of the group's random output table
        (Definition 3), which meets delta-probability (Definition 5): within a group, no output
        value comes from one record with probability above ``delta``; then Algorithm 3 perturbs
        one QI of every tuple left unchanged. The sensitive and every other column are kept.

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            :func:`ppdp.base.check_random_state`: an int ``s`` gives the same bytes as
            ``sample(None, np.random.default_rng(s))``; a Generator is used as is and advanced.

        Returns
        -------
        DataFrame
            The fitted table's columns in their order, with its index, row order and dtypes.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        GuaranteeViolation
            From :meth:`sample`, if a random output table breaks delta-probability or the
            partition is not l-diverse (:meth:`guarantee_checks`); nothing is released.
        """
        check_fitted(self, ["tables_", "table_"])
        return self.sample(None, check_random_state(random_state))


def _as_column(values: np.ndarray, like: pd.Series):
    """Released values as an array of ``like``'s dtype (numpy, nullable, category or string)."""
    return pd.Series(np.asarray(values)).astype(like.dtype).array
