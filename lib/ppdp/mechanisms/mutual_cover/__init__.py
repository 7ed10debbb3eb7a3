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

Modules, each importing only from the ones listed before it:

* ``checks``: the tolerances, the column rule's limit, the parameter constraints shared by the
  others and Property 2;
* ``output_table``: :class:`RandomOutputTable` and :func:`table_delta_ratio` (Definitions 3
  and 5);
* ``batch_ipm``: many LPs of Section 4 in one compiled interior-point loop (numba, imported on
  first use), and the lower bound that any row-sum multipliers certify;
* ``lp``: the LP of Section 4 solved with HiGHS, :func:`solve_random_output_table`,
  :func:`solve_random_output_tables` (many at once, ``solver="batch"``), and
  :func:`repair_table`;
* ``groups``: the output values of a group's table, :func:`random_output_table`, and the
  distinct values of every group;
* ``estimator``: :class:`MutualCover`, from the partition to the tables of every group, the draws
  of a release and Algorithm 3.
"""

from __future__ import annotations

from .estimator import MutualCover
from .groups import random_output_table
from .lp import repair_table, solve_random_output_table, solve_random_output_tables
from .output_table import RandomOutputTable, table_delta_ratio

__all__ = [
    "MutualCover",
    "RandomOutputTable",
    "random_output_table",
    "repair_table",
    "solve_random_output_table",
    "solve_random_output_tables",
    "table_delta_ratio",
]

# Constants and internals that tests and benchmarks read through this package
# (``mutual_cover.LP_PATTERNS``, ...). Replace one (monkeypatch) in the module that defines it,
# where its callers look it up.
from .checks import FEASIBILITY_TOL as FEASIBILITY_TOL
from .checks import MAX_RANGE_COLUMNS as MAX_RANGE_COLUMNS
from .checks import RESIDUE_MASS as RESIDUE_MASS
from .lp import LP_PATTERNS as LP_PATTERNS
from .lp import _lp_pattern as _lp_pattern
from .lp import _new_lp_pattern as _new_lp_pattern
from .lp import _repair as _repair
from .lp import _run_highs as _run_highs
