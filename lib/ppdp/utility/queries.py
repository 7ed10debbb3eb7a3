"""Aggregate query answering (Mutual Cover, Section 5.3, after Zhang et al., ICDE 2007).

Queries have the form ``SELECT SUM(sensitive) FROM T WHERE pred(A1) AND ... AND pred(Ak)`` over
``k`` distinct random QIs. A categorical predicate is ``A in {v1, ..., vm}`` with ``m`` distinct
random values of ``D[A]``; a numeric one is ``A op v`` with ``op`` one of ``> < = >= <= !=`` and
``v`` a random value of ``D[A]``. The paper leaves ``m`` open; here it is uniform on
``1 .. ceil(|D[A]| / 2)``. A query whose true answer is 0 is drawn again (a relative error needs a
positive answer).

Error of an answer relative to the true sum ``S``:

* randomized table (Mutual Cover): the query runs on the released records as they are,
  ``|S~ - S| / S``;
* generalized table (Mondrian): groups whose generalized region lies inside the query region count
  fully, groups that merely intersect it may contribute anything between nothing and their whole
  sum, so ``S_upper - S_lower`` is the sum of the intersecting groups that are not inside;
* bucketized table (Anatomy): the matching tuples of each group are known exactly, but not which
  of the group's sensitive values are theirs: with ``c`` matches the group adds between the sum of
  its ``c`` smallest and of its ``c`` largest values.

For the last two the error is ``(S_upper - S_lower) / S`` (the paper's ``R_error``). Bounds assume
non-negative sensitive values (salaries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ppdp._validation import check_columns
from ppdp.base import check_random_state
from ppdp.tabular import GeneralizedTable

__all__ = [
    "OPERATORS",
    "Predicate",
    "Query",
    "bounds_anatomy",
    "bounds_generalized",
    "generate_queries",
    "query_mask",
    "query_sums",
    "relative_error",
    "relative_error_bounds",
]

#: The comparison operators of a numeric :class:`Predicate` (a categorical one uses ``"in"``).
OPERATORS = (">", "<", "=", ">=", "<=", "!=")


@dataclass(frozen=True)
class Predicate:
    """``attribute op value`` (numeric) or ``attribute in values`` (categorical, ``op == "in"``).

    Attributes
    ----------
    attribute : str
        The column the predicate tests.
    op : str
        One of :data:`OPERATORS`, or ``"in"`` for a set-membership predicate.
    values : tuple
        ``(v,)`` for a comparison; the accepted values for ``"in"``.

    Examples
    --------
    >>> older = Predicate("age", ">=", (35,))
    >>> str(older)
    'age >= 35'
    >>> older.evaluate([23, 35, 52]).tolist()
    [False, True, True]
    >>> Predicate("sex", "in", ("F",)).evaluate(["F", "M", "F"]).tolist()
    [True, False, True]
    """

    attribute: str
    op: str
    values: tuple

    def evaluate(self, column) -> np.ndarray:
        """Boolean mask of the values of ``column`` that satisfy the predicate.

        Raises ``ValueError`` for an operator that is neither ``"in"`` nor one of
        :data:`OPERATORS`.
        """
        x = np.asarray(column)
        if self.op == "in":
            return np.isin(
                x, np.asarray(self.values, dtype=x.dtype if x.dtype != object else object)
            )
        v = self.values[0]
        if self.op == ">":
            return x > v
        if self.op == "<":
            return x < v
        if self.op == "=":
            return x == v
        if self.op == ">=":
            return x >= v
        if self.op == "<=":
            return x <= v
        if self.op == "!=":
            return x != v
        raise ValueError(f"unknown operator {self.op!r}; allowed: 'in', {OPERATORS}")

    def __str__(self) -> str:
        if self.op == "in":
            return f"{self.attribute} in {{{', '.join(map(str, self.values))}}}"
        return f"{self.attribute} {self.op} {self.values[0]}"


@dataclass(frozen=True)
class Query:
    """A conjunction of predicates; the aggregate is ``SUM`` of the sensitive attribute.

    Attributes
    ----------
    predicates : tuple of Predicate
        The conjuncts, each on its own attribute (as :func:`generate_queries` draws them).

    Examples
    --------
    >>> query = Query((Predicate("age", "<", (40,)), Predicate("sex", "in", ("F", "M"))))
    >>> print(query)
    age < 40 AND sex in {F, M}
    """

    predicates: tuple[Predicate, ...]

    def __str__(self) -> str:
        return " AND ".join(str(p) for p in self.predicates)


def query_mask(table: pd.DataFrame, query: Query) -> np.ndarray:
    """Rows of ``table`` satisfying ``query``.

    Parameters
    ----------
    table : DataFrame
        A table holding every column the query tests, with exact (not generalized) values.
    query : Query

    Returns
    -------
    ndarray of bool, shape (len(table),)
        True for the rows that satisfy every predicate.

    Raises
    ------
    ValueError
        For a predicate on a column missing from ``table``, or with an unknown operator.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [23, 27, 35, 41, 52, 58],
    ...                       "sex": ["F", "M", "F", "M", "F", "M"],
    ...                       "salary": [30, 40, 50, 60, 70, 80]})
    >>> query = Query((Predicate("age", "<", (40,)), Predicate("sex", "in", ("F",))))
    >>> query_mask(table, query).tolist()
    [True, False, True, False, False, False]
    """
    mask = np.ones(len(table), dtype=bool)
    for p in query.predicates:
        if p.attribute not in table.columns:
            raise ValueError(f"query uses column {p.attribute!r}, which is not in the table")
        mask &= p.evaluate(table[p.attribute].to_numpy())
    return mask


def query_sums(table: pd.DataFrame, queries: Sequence[Query], sensitive: str) -> np.ndarray:
    """``SUM(sensitive)`` of each query evaluated exactly on ``table``.

    On a randomized release this is the answer ``S~`` read off the released records as they
    are; on the original table the true answer ``S``.

    Parameters
    ----------
    table : DataFrame
        The table, with the query columns and ``sensitive``.
    queries : sequence of Query
    sensitive : str
        The numeric column summed.

    Returns
    -------
    ndarray of float, shape (len(queries),)

    Raises
    ------
    ValueError
        If ``sensitive`` or a column a query tests is not in ``table``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [23, 27, 35, 41, 52, 58],
    ...                       "sex": ["F", "M", "F", "M", "F", "M"],
    ...                       "salary": [30, 40, 50, 60, 70, 80]})
    >>> query = Query((Predicate("age", "<", (40,)), Predicate("sex", "in", ("F",))))
    >>> query_sums(table, [query], "salary").tolist()
    [80.0]
    """
    if sensitive not in table.columns:
        raise ValueError(f"sensitive column {sensitive!r} is not in the table")
    s = table[sensitive].to_numpy(dtype=float)
    return np.array([s[query_mask(table, q)].sum() for q in queries])


def generate_queries(
    table: pd.DataFrame,
    qi: Sequence[str],
    sensitive: str,
    *,
    numeric: Sequence[str],
    random_state: Any,
    n_queries: int = 1000,
    n_predicates: int = 4,
    max_tries: int = 1000,
) -> list[Query]:
    """Random SUM queries with ``n_predicates`` predicates on distinct QIs (Section 5.3).

    Parameters
    ----------
    table : DataFrame
        The original table: domains come from it and every query has a positive answer on it.
    qi : sequence of str
        The quasi-identifiers predicates may test.
    sensitive : str
        The summed attribute; non-negative values (salaries).
    numeric : sequence of str
        QIs that get comparison predicates; the others get set-membership predicates.
    random_state : None, int or numpy.random.Generator
        Source of every random choice (the same seed gives the same queries).
    n_queries : int, default 1000
        Number of queries returned.
    n_predicates : int, default 4
        Predicates per query (the paper's ``k``), in ``[1, len(qi)]``.
    max_tries : int, default 1000
        Candidates in a row with a zero answer after which the search gives up.

    Returns
    -------
    list of Query
        ``n_queries`` queries, each with a positive answer on ``table``; the predicates of a
        query follow the order of ``qi``.

    Raises
    ------
    TypeError
        If ``random_state`` is not None, an int >= 0 or a ``numpy.random.Generator``, or ``qi``
        or ``numeric`` is not a sequence of column names.
    ValueError
        For an empty ``qi``, a column listed twice or missing from ``table``, ``numeric`` not a
        subset of ``qi``, ``n_predicates`` outside ``[1, len(qi)]`` or ``n_queries < 1``.
    RuntimeError
        After more than ``max_tries`` candidates in a row with a zero answer.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [23, 27, 35, 41, 52, 58],
    ...                       "sex": ["F", "M", "F", "M", "F", "M"],
    ...                       "salary": [30, 40, 50, 60, 70, 80]})
    >>> queries = generate_queries(table, ["age", "sex"], "salary", numeric=["age"],
    ...                            random_state=0, n_queries=3, n_predicates=2)
    >>> for query in queries:
    ...     print(query)
    age >= 27 AND sex in {F}
    age > 27 AND sex in {M}
    age >= 41 AND sex in {M}
    >>> query_sums(table, queries, "salary").tolist()
    [120.0, 140.0, 140.0]
    """
    rng = check_random_state(random_state)
    qi = check_columns(qi, name="qi", table=table)
    if sensitive not in table.columns:
        raise ValueError(
            f"sensitive column {sensitive!r} is not in the table; it has {list(table.columns)}"
        )
    numeric = check_columns(numeric, name="numeric", allow_empty=True)
    if not set(numeric) <= set(qi):
        raise ValueError(f"numeric {numeric} must be a subset of qi {qi}")
    if not (1 <= n_predicates <= len(qi)):
        raise ValueError(f"n_predicates={n_predicates} must lie in [1, {len(qi)}]")
    if n_queries < 1:
        raise ValueError(f"n_queries must be positive, got {n_queries}")
    domains = {c: np.unique(table[c].to_numpy()) for c in qi}
    queries: list[Query] = []
    tries = 0
    while len(queries) < n_queries:
        attrs = rng.choice(len(qi), size=n_predicates, replace=False)
        preds = []
        for a in sorted(attrs):
            c = qi[a]
            dom = domains[c]
            if c in numeric:
                op = OPERATORS[rng.integers(len(OPERATORS))]
                preds.append(Predicate(c, op, (dom[rng.integers(len(dom))].item(),)))
            else:
                m = int(rng.integers(1, max(1, int(np.ceil(len(dom) / 2))) + 1))
                vals = np.sort(rng.choice(dom, size=m, replace=False))
                preds.append(
                    Predicate(c, "in", tuple(v.item() if hasattr(v, "item") else v for v in vals))
                )
        q = Query(tuple(preds))
        if query_sums(table, [q], sensitive)[0] > 0:
            queries.append(q)
            tries = 0
        else:
            tries += 1
            if tries > max_tries:
                raise RuntimeError(f"{max_tries} random queries in a row had a zero answer")
    return queries


def relative_error(estimate, actual) -> np.ndarray:
    """``|estimate - actual| / actual`` per query (actual answers must be positive).

    The error of a randomized release (Mutual Cover): ``estimate`` is :func:`query_sums` on the
    released records, ``actual`` on the original ones.

    Parameters
    ----------
    estimate : array-like of float
        The answers ``S~`` on the release.
    actual : array-like of float
        The true answers ``S``, positive; broadcast against ``estimate``.

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        If an actual answer is zero or negative.

    Examples
    --------
    >>> relative_error([90.0, 100.0], [80.0, 100.0]).tolist()
    [0.125, 0.0]
    """
    estimate, actual = np.asarray(estimate, dtype=float), np.asarray(actual, dtype=float)
    if np.any(actual <= 0):
        raise ValueError("actual answers must be positive")
    return np.abs(estimate - actual) / actual


def relative_error_bounds(lower, upper, actual) -> np.ndarray:
    """``(upper - lower) / actual`` per query (the paper's ``R_error``).

    The error of a generalized or bucketized release, whose answer is only known to lie in
    ``[lower, upper]`` (:func:`bounds_generalized`, :func:`bounds_anatomy`).

    Parameters
    ----------
    lower, upper : array-like of float
        Bounds of each answer on the release.
    actual : array-like of float
        The true answers, positive.

    Returns
    -------
    ndarray of float
        Non-negative; 0 when the release pins the answer down.

    Raises
    ------
    ValueError
        If an actual answer is zero or negative, or an upper bound lies below its lower bound
        (beyond a relative rounding tolerance of ``1e-9``).

    Examples
    --------
    >>> relative_error_bounds([60.0, 100.0], [120.0, 100.0], [80.0, 100.0]).tolist()
    [0.75, 0.0]
    """
    lower, upper, actual = (np.asarray(x, dtype=float) for x in (lower, upper, actual))
    if np.any(actual <= 0):
        raise ValueError("actual answers must be positive")
    if np.any(upper < lower - 1e-9 * np.abs(upper)):
        raise ValueError("upper bounds below lower bounds")
    return (upper - lower) / actual


def bounds_generalized(
    generalized: GeneralizedTable, queries: Sequence[Query], sensitive_values=None
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of each SUM query on a generalized table.

    Parameters
    ----------
    generalized : GeneralizedTable
    queries : sequence of Query
    sensitive_values : array-like (n,), optional
        Defaults to ``generalized.sensitive``; must be non-negative.

    Returns
    -------
    lower, upper : ndarray of float, shape (len(queries),)
        ``lower`` sums the groups whose region lies inside the query region, ``upper`` the
        groups whose region intersects it.

    Raises
    ------
    TypeError
        If ``generalized`` is not a :class:`~ppdp.tabular.GeneralizedTable`.
    ValueError
        For sensitive values not one per row or negative, or a query on a column that is not a
        QI of the table.

    Examples
    --------
    Three groups of two rows, ages generalized to ranges and sex to ``{F,M}``:

    >>> import numpy as np
    >>> from ppdp.tabular import encode_table, generalize
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [23, 27, 35, 41, 52, 58],
    ...                       "sex": ["F", "M", "F", "M", "F", "M"],
    ...                       "salary": [30, 40, 50, 60, 70, 80]})
    >>> codes, domains = encode_table(table, ["age", "sex"], categorical=["sex"])
    >>> released = generalize(codes, np.array([0, 0, 1, 1, 2, 2]), ["age", "sex"], domains,
    ...                       sensitive=table["salary"])
    >>> released.to_frame("salary")["age"].tolist()
    ['23-27', '23-27', '35-41', '35-41', '52-58', '52-58']
    >>> query = Query((Predicate("age", "<", (40,)), Predicate("sex", "in", ("F",))))
    >>> lower, upper = bounds_generalized(released, [query])
    >>> lower.tolist(), upper.tolist(), query_sums(table, [query], "salary").tolist()
    ([0.0], [180.0], [80.0])
    >>> relative_error_bounds(lower, upper, [80.0]).tolist()
    [2.25]
    """
    if not isinstance(generalized, GeneralizedTable):
        raise TypeError(f"generalized must be a GeneralizedTable, got {type(generalized).__name__}")
    s = np.asarray(
        generalized.sensitive if sensitive_values is None else sensitive_values, dtype=float
    )
    if s.shape != generalized.groups.shape:
        raise ValueError("sensitive_values must hold one value per row of the generalized table")
    if np.any(s < 0):
        raise ValueError("bounds need non-negative sensitive values")
    group_sum = np.bincount(generalized.groups, weights=s, minlength=generalized.n_groups)
    lower, upper = np.empty(len(queries)), np.empty(len(queries))
    for qi_, q in enumerate(queries):
        inside = np.ones(generalized.n_groups, dtype=bool)
        touch = np.ones(generalized.n_groups, dtype=bool)
        for p in q.predicates:
            if p.attribute not in generalized.membership:
                raise ValueError(
                    f"query uses column {p.attribute!r}, which is not a QI of the table"
                )
            dom = generalized.domains[p.attribute]
            m = generalized.membership[p.attribute]
            ok = p.evaluate(dom.values)
            inside &= ~(m & ~ok[None, :]).any(axis=1)
            touch &= (m & ok[None, :]).any(axis=1)
        lower[qi_] = group_sum[inside].sum()
        upper[qi_] = group_sum[touch].sum()
    return lower, upper


def bounds_anatomy(
    qit: pd.DataFrame, groups, sensitive_values, queries: Sequence[Query]
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of each SUM query on an Anatomy release.

    Parameters
    ----------
    qit : DataFrame
        The quasi-identifier table (exact QI values), e.g. ``Anatomy(...).fit(...).qit_``.
    groups : array-like (n,)
        Group of every row of ``qit``.
    sensitive_values : array-like (n,)
        The sensitive values (only their multiset per group is used); non-negative.
    queries : sequence of Query

    Returns
    -------
    lower, upper : ndarray of float, shape (len(queries),)
        With ``c`` matching rows in a group, the sums over the groups of their ``c`` smallest
        and of their ``c`` largest sensitive values.

    Raises
    ------
    ValueError
        For ``groups`` or ``sensitive_values`` not one per row of ``qit``, a negative sensitive
        value, or a query on a column missing from ``qit``.

    Examples
    --------
    Three groups of two rows; the QIs are published exactly, the salaries only per group:

    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [23, 27, 35, 41, 52, 58],
    ...                       "sex": ["F", "M", "F", "M", "F", "M"],
    ...                       "salary": [30, 40, 50, 60, 70, 80]})
    >>> query = Query((Predicate("age", "<", (40,)), Predicate("sex", "in", ("F",))))
    >>> lower, upper = bounds_anatomy(table[["age", "sex"]], [0, 0, 1, 1, 2, 2],
    ...                               table["salary"], [query])
    >>> lower.tolist(), upper.tolist(), query_sums(table, [query], "salary").tolist()
    ([80.0], [100.0], [80.0])
    """
    groups = np.asarray(groups)
    s = np.asarray(sensitive_values, dtype=float)
    if groups.shape != (len(qit),) or s.shape != (len(qit),):
        raise ValueError("groups and sensitive_values must hold one entry per row of qit")
    if np.any(s < 0):
        raise ValueError("bounds need non-negative sensitive values")
    n_groups = int(groups.max()) + 1
    sizes = np.bincount(groups, minlength=n_groups)
    width = int(sizes.max())
    # ascending sensitive values of each group, padded with 0
    order = np.lexsort((s, groups))
    rank = np.arange(len(s)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    asc = np.zeros((n_groups, width))
    asc[groups[order], rank] = s[order]
    prefix_small = np.concatenate([np.zeros((n_groups, 1)), np.cumsum(asc, axis=1)], axis=1)
    total = prefix_small[np.arange(n_groups), sizes]
    lower, upper = np.empty(len(queries)), np.empty(len(queries))
    for qi_, q in enumerate(queries):
        c = np.bincount(groups[query_mask(qit, q)], minlength=n_groups)
        lower[qi_] = prefix_small[np.arange(n_groups), c].sum()
        upper[qi_] = (total - prefix_small[np.arange(n_groups), sizes - c]).sum()
    return lower, upper
