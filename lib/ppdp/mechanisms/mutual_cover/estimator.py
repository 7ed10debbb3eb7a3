"""The Mutual Cover estimator (Algorithms 1-3): fit the tables, sample a release.

:class:`MutualCover` partitions the table (Algorithm 2 through
:class:`~ppdp.mechanisms.mondrian.Mondrian`, or a given partition), solves the random output table
of every group and QI (groups with the same values relative to their minimum share one solved LP),
lays the tables out for vectorized draws, and samples releases from them: each record's QI values
from its rows, then Algorithm 3 on the tuples left unchanged, and delta-probability and
l-diversity checked before anything leaves.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, validate_hyperparameters
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.tabular import (
    AttributeDomain,
    Hierarchy,
    build_domains,
    measure_l_diversity,
    validate_table,
)

from .checks import _CONSTRAINTS, MAX_RANGE_COLUMNS, _check_property_2
from .groups import _columns, _GroupValues
from .lp import _solve_batch, solve_random_output_table
from .output_table import RandomOutputTable

#: The module's logger (silent unless the application configures ``ppdp``'s).
logger = logging.getLogger(__name__)


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
    solver : {"batch", "ipm", "simplex"}
        How the LPs are solved (:func:`solve_random_output_table`); all give optimal tables.
        ``"batch"`` (the default) solves every distinct LP of the fit in one call of the batched
        interior-point method (:func:`~ppdp.mechanisms.mutual_cover.solve_random_output_tables`),
        each table certified within ``1e-6`` (relative) of the optimum or solved with ``"ipm"``
        (HiGHS's interior point, one LP at a time) instead; on the census it is about five
        times faster than ``"ipm"``. The solvers may pick different optimal tables where an LP
        has several.
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
    n_lp_fallback_ : int
        With ``solver="batch"``: LPs whose batched table was not certified and that HiGHS solved
        instead; 0 with the other solvers.
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

    #: Each release draws every record's output again from a distribution that depends on its true
    #: value: several releases of one fit let an attacker average the draws.
    repetition: ClassVar[str] = "leaks"

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
        solver: str = "batch",
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
        # with solver="batch", the distinct LPs left for one batched solve, by cache key
        pending: dict = {}
        self.n_lp_solved_ = 0
        self.n_lp_fallback_ = 0
        specs = []
        iterator = range(self.n_groups_)
        if self.progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, desc="random output tables")
        for g in iterator:
            specs.append(
                {
                    c: self._table(domains[c], *distinct[a].group(g), integer[a], cache, pending)
                    for a, c in enumerate(qi)
                }
            )
        if pending:
            solved, self.n_lp_fallback_ = _solve_batch(list(pending.values()), self.delta)
            cache.update(zip(pending, solved, strict=True))
        tables = [
            {c: RandomOutputTable(*spec[:3], *cache[spec[3]]) for c, spec in group.items()}
            for group in specs
        ]
        self.objective_ = float(sum(t.objective for g in tables for t in g.values()))
        logger.info(
            "Mutual Cover: %d groups of %d tuples, %d LPs solved for %d quasi-identifiers%s",
            self.n_groups_,
            len(table),
            self.n_lp_solved_,
            len(qi),
            f" ({self.n_lp_fallback_} batched tables not certified, solved by HiGHS)"
            if self.solver == "batch"
            else "",
        )
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
        pending: dict,
    ) -> tuple:
        """Output values, distinct values, counts and LP key of the table of a group whose codes
        on ``dom`` are ``uniq`` (ascending) ``counts`` times.

        The first time a key is met its LP is solved into ``cache[key]`` (``(probabilities,
        objective)``), or, with ``solver="batch"``, recorded in ``pending[key]`` for one batched
        solve.
        """
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
        if key not in cache:
            if dom.kind == "numeric":
                dist = np.abs(vals[:, None].astype(float) - cols[None, :].astype(float))
            else:
                col_codes = dom.encode(cols)
                dist = dom.distance_matrix(uniq, col_codes)
            self.n_lp_solved_ += 1
            if self.solver == "batch":
                cache[key] = None
                pending[key] = (dist, counts)
            else:
                cache[key] = solve_random_output_table(dist, counts, self.delta, solver=self.solver)
        return cols, vals, counts, key

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
        self._columns_flat, self._first_col = [], []
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
            self._columns_flat.append(columns)
            self._first_col.append(first_col)
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
        for a in np.unique(attr):
            sel = np.flatnonzero(attr == a)
            c = self.qi_[a]
            col = released[c].to_numpy().copy()
            col[rows[sel]] = self._other_columns(a, g[sel], col[rows[sel]], u_val[sel])
            released[c] = _as_column(col, released[c])

    #: Largest number of table cells :meth:`_other_columns` lays out at once (64 MiB of floats).
    _BLOCK_CELLS = 1 << 23

    def _other_columns(
        self, a: int, groups: np.ndarray, values: np.ndarray, u: np.ndarray
    ) -> np.ndarray:
        """Algorithm 3's new value of each tuple on QI ``a``: uniform among its table's other columns.

        For a tuple of group ``g`` with value ``v``, the output values of ``g``'s table on ``a``
        other than ``v`` (in the table's column order) are ``others``; the pick is
        ``others[min(floor(u * len(others)), len(others) - 1)]``. Tuples are handled in blocks of
        equal column count.
        """
        flat, first = self._columns_flat[a], self._first_col[a][groups]
        ncols = self._ncols[groups, a]
        out = np.empty(len(values), dtype=flat.dtype)
        for k in np.unique(ncols):
            same = np.flatnonzero(ncols == k)
            step = max(1, self._BLOCK_CELLS // int(k))
            for lo in range(0, len(same), step):
                sel = same[lo : lo + step]
                block = flat[first[sel][:, None] + np.arange(k)[None, :]]
                other = block != values[sel][:, None]
                n_other = other.sum(axis=1)
                pick = np.minimum((u[sel] * n_other).astype(np.int64), n_other - 1)
                # the pick-th other column: where the running count of others reaches pick + 1
                hit = other & (np.cumsum(other, axis=1) == (pick + 1)[:, None])
                out[sel] = block[np.arange(len(sel)), hit.argmax(axis=1)]
                # no other column (a table of one output value is never picked): keep the value
                keep = n_other == 0
                out[sel[keep]] = values[sel][keep]
        return out

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
