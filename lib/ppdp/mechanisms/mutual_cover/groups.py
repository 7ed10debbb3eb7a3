"""One group's values on one quasi-identifier: its output values, its table, its distinct values.

The output values (columns) of a group's random output table follow the column rule of the
package notes (every integer of an integer range, or the values present);
:func:`random_output_table` builds the table of one group from its raw values (``calculate_table``,
Section 4) with the LP of :func:`~ppdp.mechanisms.mutual_cover.solve_random_output_table`;
``_GroupValues`` finds the distinct values and counts of one QI in every group with one sort, as
:class:`~ppdp.mechanisms.mutual_cover.MutualCover` needs them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ppdp._validation import check_params
from ppdp.tabular import AttributeDomain, Hierarchy

from .checks import _CONSTRAINTS, MAX_RANGE_COLUMNS
from .lp import solve_random_output_table
from .output_table import RandomOutputTable


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
    solver : {"ipm", "simplex", "batch"}
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
