"""Constants and parameter checks shared by the modules of Mutual Cover.

The tolerances a solved table is held to, the limit of the integer-range column rule
(``MAX_RANGE_COLUMNS``), the parameter constraints that
:class:`~ppdp.mechanisms.mutual_cover.MutualCover` and the one-table functions share, and the
bound of Property 2 (``delta >= 1/l``).
"""

from __future__ import annotations

from numbers import Integral

from ppdp._validation import Interval, StrOptions

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
    "solver": [StrOptions(("ipm", "simplex", "batch"))],
    "kind": [StrOptions(("numeric", "categorical"))],
}


def _check_property_2(delta, l) -> None:  # noqa: E741 (the paper's l)
    """A delta-probability table of an l-diverse group needs ``delta >= 1/l`` (Property 2)."""
    if not (1.0 / l - 1e-12 <= delta <= 1.0):
        raise ValueError(f"delta={delta!r} must lie in [1/l, 1] = [{1 / l:.6g}, 1] (Property 2)")
