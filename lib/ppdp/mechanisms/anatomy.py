"""Anatomy: l-diverse bucketization (Xiao and Tao, VLDB 2006), the query-answering baseline of
Mutual Cover (Fig. 7c).

Anatomy publishes every QI value unchanged together with a group id (the quasi-identifier table,
QIT) and, separately, each group's multiset of sensitive values (the sensitive table, ST). The
group-creation step hashes tuples into buckets by sensitive value and, while at least ``l``
buckets are non-empty, forms a group with one tuple from each of the ``l`` largest buckets; each
residual tuple then joins a group that does not yet hold its sensitive value, preferring groups that
have not taken a residual yet. Every group therefore holds distinct sensitive values, each once (it
is l-diverse in the sense of Definition 2 of Mutual Cover), ``l`` or ``l + 1`` of them whenever
there are at least as many groups as residual tuples (always, once ``n >= l * (l - 1)``).

The tuple taken from a bucket ("an arbitrary tuple" in Xiao and Tao) and the group a residual
tuple joins are chosen at random with the caller's ``random_state``.

:meth:`Anatomy.release` publishes one table instead of the pair: the fitted table with the
sensitive values permuted at random within each group (see its docstring).
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import Interval, validate_hyperparameters
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce
from ppdp.tabular import (
    measure_k_anonymity,
    measure_l_diversity,
    sensitive_codes,
    validate_table,
)

__all__ = ["Anatomy", "anatomy_groups"]


def anatomy_groups(
    sensitive_codes: np.ndarray,
    l: int,  # noqa: E741 (the paper's l)
    *,
    order: np.ndarray | None = None,
    random_state: Any = None,
) -> np.ndarray:
    """Anatomy's group creation on integer sensitive codes; returns a group id per tuple.

    Tuples are taken from each bucket in reverse ``order`` (default: reverse row order); a residual
    tuple joins a random eligible group drawn from ``random_state``, or the first eligible one when
    it is None (here None means no randomness, not fresh entropy). The input must be l-eligible (no
    value on more than ``n / l`` tuples).

    Parameters
    ----------
    sensitive_codes : ndarray (n,) of int
        The sensitive value of every tuple as a code in ``{0, 1, ...}``.
    l : int
        Number of distinct sensitive values per group.
    order : ndarray (n,), optional
        A permutation of the row positions; the tuples of each bucket are taken from its end.
    random_state : None, int or numpy.random.Generator, optional
        Chooses the group each residual tuple joins among the eligible ones; None takes the first.

    Returns
    -------
    ndarray (n,) of int
        Group id of every tuple, from 0; every group holds distinct sensitive values, ``l`` or
        ``l + 1`` of them whenever there are at least as many groups as residual tuples.

    Raises
    ------
    ValueError
        If the codes are not l-eligible, or no group of ``l`` distinct values can be formed.
    RuntimeError
        If a residual tuple finds no group without its sensitive value (fewer groups than
        residual tuples of one value; not possible for l-eligible input with ``n >= l * (l - 1)``).

    Examples
    --------
    Seven tuples with four sensitive values, in groups of three distinct values; the seventh
    tuple is the residual and joins a group that lacks its value:

    >>> import numpy as np
    >>> from ppdp.mechanisms.anatomy import anatomy_groups
    >>> codes = np.array([0, 0, 1, 1, 2, 2, 3])
    >>> groups = anatomy_groups(codes, 3)
    >>> groups.tolist()
    [1, 0, 1, 0, 1, 0, 0]
    >>> [sorted(codes[groups == g].tolist()) for g in range(groups.max() + 1)]
    [[0, 1, 2, 3], [0, 1, 2]]
    >>> anatomy_groups(np.array([0, 0, 0, 1]), 2)
    Traceback (most recent call last):
    ...
    ValueError: not 2-eligible: a sensitive value covers 3 of 4 tuples
    """
    rng = None if random_state is None else check_random_state(random_state)
    codes = np.asarray(sensitive_codes, dtype=np.int64)
    n = len(codes)
    if order is None:
        order = np.arange(n)
    counts = np.bincount(codes)
    if counts.max() * l > n:
        raise ValueError(f"not {l}-eligible: a sensitive value covers {counts.max()} of {n} tuples")
    order = order[np.argsort(codes[order], kind="stable")]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    remaining = counts.copy()
    groups = np.full(n, -1, dtype=np.int64)
    group_values: list[np.ndarray] = []
    g = 0
    while np.count_nonzero(remaining) >= l:
        # one tuple from each of the l largest buckets (ties: lower sensitive code first)
        top = np.argsort(-remaining, kind="stable")[:l]
        rows = order[starts[top] + remaining[top] - 1]
        remaining[top] -= 1
        groups[rows] = g
        group_values.append(np.sort(top))
        g += 1
    if g == 0:
        raise ValueError(f"no group of {l} distinct sensitive values can be formed")
    # residual tuples: at most one per bucket; each joins a group without its value
    for code in np.flatnonzero(remaining):
        for k in range(remaining[code]):
            row = order[starts[code] + k]
            candidates = [i for i, vals in enumerate(group_values) if code not in vals]
            if not candidates:
                raise RuntimeError(f"no group can take a residual tuple with sensitive code {code}")
            # prefer groups that have not taken a residual yet, so that groups keep l or l + 1
            # tuples whenever there are at least as many groups as residuals
            smallest = min(len(group_values[i]) for i in candidates)
            candidates = [i for i in candidates if len(group_values[i]) == smallest]
            target = (
                candidates[int(rng.integers(len(candidates)))] if rng is not None else candidates[0]
            )
            groups[row] = target
            group_values[target] = np.sort(np.append(group_values[target], code))
    return groups


class Anatomy(Mechanism):
    """l-diverse Anatomy.

    Parameters
    ----------
    qi : sequence of str
    sensitive : str
    l : int
        Number of distinct sensitive values per group (at least 2).

    Attributes
    ----------
    groups_ : ndarray (n,)
        Group id of every row, in the input row order.
    n_groups_ : int
    qit_ : DataFrame
        The quasi-identifier table: the QI columns unchanged plus ``group``.
    st_ : DataFrame
        The sensitive table: ``group``, the sensitive value (input dtype kept), ``count``.
        ``qit_`` and ``st_`` are set only once the groups have passed :meth:`guarantee_checks`.
    table_ : DataFrame
        A copy of the fitted table, from which :meth:`release` draws; set with ``qit_``/``st_``.

    Examples
    --------
    Eight patients in groups of two distinct diseases; the release shuffles the diseases within
    each group and keeps every other value:

    >>> import pandas as pd
    >>> from ppdp.mechanisms.anatomy import Anatomy
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58],
    ...     "zip": ["a", "b", "a", "b", "a", "a", "b", "b"],
    ...     "disease": ["flu", "cold", "flu", "ulcer", "cold", "flu", "ulcer", "cold"],
    ... })
    >>> mech = Anatomy(["age", "zip"], "disease", l=2).fit(df, random_state=0)
    >>> mech.n_groups_, mech.groups_.tolist()
    (4, [0, 1, 3, 3, 2, 1, 2, 0])
    >>> mech.st_.head(4)
       group disease  count
    0      0    cold      1
    1      0     flu      1
    2      1    cold      1
    3      1     flu      1
    >>> mech.release(random_state=0)
       age zip disease
    0   23   a     flu
    1   25   b     flu
    2   31   a     flu
    3   35   b   ulcer
    4   41   a   ulcer
    5   47   a    cold
    6   52   b    cold
    7   58   b    cold
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "l-diversity (Definition 2 of Mutual Cover) of at least ``l`` in every group, and every"
        " group at least ``l`` records."
    )

    #: A release permutes the sensitive values within the fitted groups, independently of who
    #: holds which: every release is a fresh draw given what the groups already publish.
    repetition: ClassVar[str] = "post-processing"

    _parameter_constraints: ClassVar[dict] = {"l": [Interval(Integral, 2, None, closed="left")]}

    def __init__(self, qi: Sequence[str], sensitive: str, *, l: int):  # noqa: E741 (the paper's l)
        self.qi = qi
        self.sensitive = sensitive
        self.l = l

    def fit(self, table: pd.DataFrame, random_state: Any = None) -> Anatomy:
        """Form the l-diverse groups of ``table`` and the paper's QIT and ST.

        Parameters
        ----------
        table : DataFrame
            Must be l-eligible: no sensitive value on more than ``n / l`` tuples.
        random_state : None, int >= 0 or numpy.random.Generator
            Chooses the tuple taken from each bucket and the group each residual tuple joins
            (:func:`ppdp.base.check_random_state`). A Generator is used as is and advanced, so
            ``fit(table, np.random.default_rng(s))`` and ``fit(table, s)`` give the same groups.

        Returns
        -------
        Anatomy
            ``self``.
        """
        validate_hyperparameters(self)
        rng = check_random_state(random_state)
        qi, _, _ = validate_table(
            table,
            self.qi,
            self.sensitive,
            categorical=[
                c
                for c in self.qi
                if c in table.columns and not pd.api.types.is_numeric_dtype(table[c])
            ],
        )
        l_div = int(self.l)
        codes, uniques = sensitive_codes(table, self.sensitive)
        n = len(table)
        if l_div > len(uniques):
            raise ValueError(
                f"l={l_div} is larger than the number of distinct sensitive values ({len(uniques)}) of column {self.sensitive!r}"
            )
        counts = np.bincount(codes)
        if counts.max() * l_div > n:
            raise ValueError(
                f"the table is not {l_div}-eligible: the most frequent value of {self.sensitive!r} covers "
                f"{counts.max()} of {n} tuples (more than n/l); Anatomy needs at most n/l"
            )
        # nothing of an earlier fit may be released if this one fails its checks
        for name in ("qit_", "st_", "table_"):
            self.__dict__.pop(name, None)
        groups = anatomy_groups(codes, l_div, order=rng.permutation(n), random_state=rng)
        g = int(groups.max()) + 1
        self.groups_ = groups
        self.n_groups_ = g
        self.qi_ = qi
        self.sensitive_codes_ = codes.astype(np.int64)
        enforce(self.guarantee_checks())
        self.qit_ = table[qi].assign(group=groups)
        st = pd.DataFrame(
            {"group": groups, self.sensitive: table[self.sensitive].reset_index(drop=True)}
        )
        # observed=True: a categorical sensitive column must not add zero-count rows
        self.st_ = (
            st.groupby(["group", self.sensitive], sort=True, observed=True)
            .size()
            .rename("count")
            .reset_index()
        )
        self.table_ = table.copy()
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """l-diversity (Definition 2 of Mutual Cover) and the smallest group size of the groups.

        Every group holds distinct sensitive values, so both measure at least ``l``.
        """
        check_fitted(self, "groups_")
        value, g_div = measure_l_diversity(self.groups_, self.sensitive_codes_)
        size, g_size = measure_k_anonymity(self.groups_)
        return [
            GuaranteeCheck(
                "Anatomy", "l-diversity", float(self.l), value, "at_least", f"group {g_div}"
            ),
            GuaranteeCheck(
                "Anatomy", "group size", float(self.l), float(size), "at_least", f"group {g_size}"
            ),
        ]

    def release(self, random_state: Any = None) -> pd.DataFrame:
        """One table: the fitted table with the sensitive values shuffled within each group.

        Anatomy (Xiao and Tao) publishes two tables, the QIT (every QI value exact, plus the
        group id) and the ST (each group's multiset of sensitive values), which tells a reader
        only that a tuple's sensitive value is one of its group's. This release keeps every row's
        QI and other values and gives it a sensitive value drawn by a uniformly random
        permutation of its group's sensitive values, independently across groups. Anyone holding
        the QIT and the ST could draw such a table themselves; it drops the group ids, so it
        carries the same information as the pair minus the group ids (no more). ``qit_`` and
        ``st_`` stay the paper's two tables.

        Every group's sensitive multiset is kept, so the groups stay l-diverse (Definition 2 of
        Mutual Cover): each holds ``l`` or ``l + 1`` distinct sensitive values, each once.

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            Draws the permutations (:func:`ppdp.base.check_random_state`); the same int gives the
            same release, a Generator is used as is and advanced.

        Returns
        -------
        DataFrame
            The fitted table's columns in their order, with its index and row order; only the
            sensitive column differs (permuted within groups, dtype kept).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        GuaranteeViolation
            If the groups break l-diversity or the group size ``l`` (:meth:`guarantee_checks`);
            nothing is released.
        """
        check_fitted(self, ["qit_", "st_", "table_"])
        rng = check_random_state(random_state)
        enforce(self.guarantee_checks())
        n = len(self.groups_)
        # rows by group, in row order within each group, and the same rows by group in a
        # uniformly random order within each group (random distinct keys): row canonical[i]
        # takes the sensitive value of row shuffled[i], of the same group
        canonical = np.argsort(self.groups_, kind="stable")
        shuffled = np.lexsort((rng.permutation(n), self.groups_))
        source = np.empty(n, dtype=np.int64)
        source[canonical] = shuffled
        released = self.table_.copy()
        sensitive = self.table_[self.sensitive]
        released[self.sensitive] = sensitive.take(source).set_axis(released.index)
        return released
