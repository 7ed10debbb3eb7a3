"""Released cells as distributions over the original domain, so that any release can be scored.

Mechanisms publish a column in one of three forms: the original values (k-RR, SPPM, Mutual Cover,
IMPOSTER's synthetic records), generalized regions (Mondrian's ``"28-33"`` and ``"{BA,HS}"``, a
hierarchy node) or numbers off the domain (a relay chain's class means). A cross-mechanism
comparison needs one reading of all of them: each released cell is read as a probability
distribution over the column's original domain,

* a domain value: all its mass on that value;
* a numeric range ``"lo-hi"``: uniform over the domain values in ``[lo, hi]``;
* a number between two domain values: split between the two neighbours in proportion to its
  distance from them (its expected value is the number itself);
* a value set ``"{a,b}"`` or a hierarchy node: uniform over its members (the node's leaves).

From the distributions come the attackers' features (:func:`design_matrix`: expected value of a
numeric column, membership weights of a categorical one), expected query answers (the workload in
:mod:`ppdp.utility.workload`) and, for evaluators that need records of the original domain
(anonymeter), one record per cell drawn from its distribution (:func:`sample_cells`). This is the
uniformity assumption of the generalization literature (LeFevre et al., 2006; the ``R_error`` of
Mutual Cover), applied to every mechanism alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp._validation import check_columns
from ppdp.base import check_random_state
from ppdp.tabular import AttributeDomain, build_domains

__all__ = ["cell_membership", "design_matrix", "feature_names", "sample_cells", "table_domains"]

_RANGE = re.compile(
    r"^\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*-\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$"
)


def table_domains(
    table: pd.DataFrame, columns: Sequence[str], *, numeric: Sequence[str] = ()
) -> dict[str, AttributeDomain]:
    """One :class:`~ppdp.tabular.AttributeDomain` per column, from the values of the real table.

    ``numeric`` columns get numeric domains (sorted unique values); every other column is
    categorical.

    Parameters
    ----------
    table : pandas.DataFrame
        The real (original) table whose values make the domains.
    columns : sequence of str
        The columns to build domains for, in the order of the returned dict.
    numeric : sequence of str, default ()
        The columns among ``columns`` with numeric domains.

    Returns
    -------
    dict of str -> AttributeDomain
        The domain of each column of ``columns``.

    Raises
    ------
    TypeError
        If ``columns`` is not a sequence of column names.
    ValueError
        If ``columns`` lists a column twice or one that is not in ``table``, or a column of
        ``numeric`` is not among ``columns``.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"age": [23, 25, 27, 31], "edu": ["BA", "MS", "HS", "HS"]})
    >>> domains = table_domains(real, ["age", "edu"], numeric=["age"])
    >>> [(d.kind, d.values.tolist()) for d in domains.values()]
    [('numeric', [23, 25, 27, 31]), ('categorical', ['BA', 'HS', 'MS'])]
    """
    columns = check_columns(columns, name="columns", table=table, allow_empty=True)
    bad = [c for c in numeric if c not in columns]
    if bad:
        raise ValueError(f"numeric columns {bad} must be among columns {list(columns)}")
    categorical = [c for c in columns if c not in numeric]
    return build_domains(table, list(columns), categorical, {})


def _numeric_cell(value, domain: AttributeDomain, column: str) -> np.ndarray:
    vals = domain.values.astype(float)
    row = np.zeros(domain.size)
    if isinstance(value, str):
        match = _RANGE.match(value)
        if match:
            lo, hi = float(match.group(1)), float(match.group(2))
            inside = (vals >= lo) & (vals <= hi)
            if lo > hi or not inside.any():
                raise ValueError(
                    f"column {column!r}: range {value!r} holds no value of the domain "
                    f"[{vals[0]:g}, {vals[-1]:g}]"
                )
            row[inside] = 1.0 / inside.sum()
            return row
        try:
            value = float(value)
        except ValueError:
            raise ValueError(
                f"column {column!r}: released value {value!r} is neither a number nor a range 'lo-hi'"
            ) from None
    x = float(value)
    if not np.isfinite(x) or x < vals[0] or x > vals[-1]:
        raise ValueError(
            f"column {column!r}: released value {value!r} lies outside the domain "
            f"[{vals[0]:g}, {vals[-1]:g}]"
        )
    j = int(np.searchsorted(vals, x))
    if vals[min(j, domain.size - 1)] == x:
        row[j] = 1.0
        return row
    lo, hi = vals[j - 1], vals[j]
    row[j - 1], row[j] = (hi - x) / (hi - lo), (x - lo) / (hi - lo)
    return row


def _categorical_cell(value, domain: AttributeDomain, lookup: Mapping, column: str) -> np.ndarray:
    row = np.zeros(domain.size)
    if value in lookup:
        row[lookup[value]] = 1.0
        return row
    members: list = []
    if domain.hierarchy is not None and (
        value in domain.hierarchy.parents or value == domain.hierarchy.root
    ):
        members = [v for v in domain.hierarchy.leaves_under(value) if v in lookup]
    elif isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        by_text = {str(v): i for v, i in lookup.items()}
        parts = value[1:-1].split(",")
        unknown = [p for p in parts if p not in by_text]
        if unknown:
            raise ValueError(
                f"column {column!r}: value set {value!r} has members {unknown} outside the domain"
            )
        idx = [by_text[p] for p in parts]
        row[idx] = 1.0 / len(idx)
        return row
    if not members:
        raise ValueError(
            f"column {column!r}: released value {value!r} is neither a domain value nor a value "
            "set '{a,b}'" + (" nor a hierarchy node" if domain.hierarchy is not None else "")
        )
    row[[lookup[v] for v in members]] = 1.0 / len(members)
    return row


def _cell_key(value) -> str:
    """A cell's identity: its type and its text (``1``, ``1.0`` and ``"1"`` are three cells)."""
    return f"{type(value).__name__}:{value}"


def _distinct_cells(col: pd.Series, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first position of each distinct cell, in the order of their :func:`_cell_key`, and
    each cell's index into them.

    Parameters
    ----------
    col : Series
        The cells, without missing values.
    raw : ndarray of object
        ``col``'s cells as Python objects.

    Returns
    -------
    first : ndarray of int, shape (m,)
    inverse : ndarray of int, shape (len(col),)

    Notes
    -----
    A column of one Python type (a numeric dtype, or text only) is grouped by value with
    :func:`pandas.factorize` and only its ``m`` distinct cells get a key: building a key per cell
    cost more than everything else of :func:`cell_membership`. Within one type, equal values have
    the same key or parse to the same distribution (``0.0`` and ``-0.0``), and the distinct cells
    are put in key order, so the cells are parsed in the same order as by keying each one (the
    first unreadable cell is the one reported). A column mixing types keys every cell.
    """
    if col.dtype.kind in "biuf" or pd.api.types.infer_dtype(raw, skipna=False) == "string":
        codes, _ = pd.factorize(raw if col.dtype.kind == "O" else col.to_numpy())
        _, first = np.unique(codes, return_index=True)
        keys = np.array([_cell_key(v) for v in raw[first].tolist()], dtype=object)
        order = np.argsort(keys, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return first[order], rank[codes]
    keys = np.array([_cell_key(v) for v in raw.tolist()], dtype=object)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def cell_membership(column, domain: AttributeDomain) -> np.ndarray:
    """Each released cell as a distribution over ``domain``: shape ``(n, |domain|)``, rows sum to 1.

    Parameters
    ----------
    column : array_like or pandas.Series, shape (n,)
        The released cells of one column: domain values, numeric ranges ``"lo-hi"``, numbers between
        domain values, value sets ``"{a,b}"`` or hierarchy nodes (see the module docstring).
    domain : AttributeDomain
        The column's original domain, as from :func:`table_domains`.

    Returns
    -------
    numpy.ndarray of float, shape (n, domain.size)
        Row ``i`` is the distribution of cell ``i`` over ``domain.values``.

    Raises
    ------
    ValueError
        For a cell that is missing or cannot be read as a region of the domain (a range or a number
        outside it, a value set with foreign members, an unknown value); the message names the
        column and the value.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"age": [23, 25, 27, 31], "edu": ["BA", "MS", "HS", "HS"]})
    >>> domains = table_domains(real, ["age", "edu"], numeric=["age"])
    >>> cell_membership([25, "23-27", 29.0], domains["age"]).round(3)  # over 23, 25, 27, 31
    array([[0.   , 1.   , 0.   , 0.   ],
           [0.333, 0.333, 0.333, 0.   ],
           [0.   , 0.   , 0.5  , 0.5  ]])
    >>> cell_membership(["BA", "{BA,MS}"], domains["edu"])  # over BA, HS, MS
    array([[1. , 0. , 0. ],
           [0.5, 0. , 0.5]])
    >>> cell_membership(["40-50"], domains["age"])
    Traceback (most recent call last):
    ...
    ValueError: column 'age': range '40-50' holds no value of the domain [23, 31]
    """
    col = pd.Series(column)
    if col.isna().any():
        raise ValueError(f"column {domain.name!r} has missing released values")
    raw = col.to_numpy(dtype=object)
    # distinct cells are few (generalized regions, domain values): parse each once
    first, inverse = _distinct_cells(col, raw)
    if domain.kind == "numeric":
        rows = [_numeric_cell(raw[i], domain, domain.name) for i in first]
    else:
        lookup = {v: i for i, v in enumerate(domain.values.tolist())}
        rows = [_categorical_cell(raw[i], domain, lookup, domain.name) for i in first]
    table = np.vstack(rows) if rows else np.zeros((0, domain.size))
    return table[inverse.reshape(-1)]


def feature_names(domains: Mapping[str, AttributeDomain], columns: Sequence[str]) -> list[str]:
    """Names of :func:`design_matrix`'s columns: ``col`` (numeric) or ``col=value``.

    Parameters
    ----------
    domains : mapping str -> AttributeDomain
        The domain of every column.
    columns : sequence of str
        The columns, in the order of :func:`design_matrix`.

    Returns
    -------
    list of str
        One name per feature: a numeric column's name, or ``col=value`` for each value of a
        categorical column's domain.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"age": [23, 25, 27, 31], "edu": ["BA", "MS", "HS", "HS"]})
    >>> domains = table_domains(real, ["age", "edu"], numeric=["age"])
    >>> feature_names(domains, ["age", "edu"])
    ['age', 'edu=BA', 'edu=HS', 'edu=MS']
    """
    names: list[str] = []
    for c in columns:
        d = domains[c]
        names += [c] if d.kind == "numeric" else [f"{c}={v}" for v in d.values.tolist()]
    return names


def design_matrix(
    frame: pd.DataFrame, domains: Mapping[str, AttributeDomain], columns: Sequence[str]
) -> np.ndarray:
    """Attack and task features of a real or released table, in one encoding for both.

    A numeric column gives its cells' expected values, a categorical one its membership weights
    (a one-hot row for a single value, ``1/m`` on each of ``m`` members of a set).

    Parameters
    ----------
    frame : pandas.DataFrame
        The real table or a release of it.
    domains : mapping str -> AttributeDomain
        The original domain of every column of ``columns`` (see :func:`table_domains`).
    columns : sequence of str
        The columns to encode, in order.

    Returns
    -------
    numpy.ndarray of float, shape (len(frame), n_features)
        One row per row of ``frame``; its columns are named by :func:`feature_names`.

    Raises
    ------
    TypeError
        If ``columns`` is not a sequence of column names.
    ValueError
        If ``columns`` lists a column twice or one that is not in ``frame``, or a cell cannot be
        read as a region of its domain (see :func:`cell_membership`).

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"age": [23, 25, 27, 31], "edu": ["BA", "MS", "HS", "HS"]})
    >>> domains = table_domains(real, ["age", "edu"], numeric=["age"])
    >>> released = pd.DataFrame({"age": ["23-27", "23-27", "23-27", "31"],
    ...                          "edu": ["{BA,MS}", "{BA,MS}", "HS", "HS"]})
    >>> feature_names(domains, ["age", "edu"])
    ['age', 'edu=BA', 'edu=HS', 'edu=MS']
    >>> design_matrix(released, domains, ["age", "edu"])
    array([[25. ,  0.5,  0. ,  0.5],
           [25. ,  0.5,  0. ,  0.5],
           [25. ,  0. ,  1. ,  0. ],
           [31. ,  0. ,  1. ,  0. ]])
    """
    columns = check_columns(columns, name="columns", table=frame, allow_empty=True)
    blocks = []
    for c in columns:
        d = domains[c]
        m = cell_membership(frame[c], d)
        blocks.append(m @ d.values.astype(float)[:, None] if d.kind == "numeric" else m)
    return np.hstack(blocks) if blocks else np.zeros((len(frame), 0))


def sample_cells(
    frame: pd.DataFrame,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
    random_state: Any,
) -> pd.DataFrame:
    """A copy of ``frame`` whose ``columns`` hold one domain value per cell, drawn from the cell.

    Cells that already are domain values are kept as they are; a region gives a value drawn
    uniformly from it. For evaluators that compare records value by value (anonymeter).

    Parameters
    ----------
    frame : pandas.DataFrame
        The released table.
    domains : mapping str -> AttributeDomain
        The original domain of every column of ``columns``.
    columns : sequence of str
        The columns to sample; the other columns are copied unchanged.
    random_state : None, int or numpy.random.Generator
        The source of the draws.

    Returns
    -------
    pandas.DataFrame
        ``frame`` with the index kept and each column of ``columns`` holding domain values (floats
        for a numeric column).

    Raises
    ------
    TypeError
        If ``random_state`` is not None, an int >= 0 or a ``numpy.random.Generator``.
    ValueError
        If a cell cannot be read as a region of its domain (see :func:`cell_membership`).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> real = pd.DataFrame({"age": [23, 25, 27, 31], "edu": ["BA", "MS", "HS", "HS"]})
    >>> domains = table_domains(real, ["age", "edu"], numeric=["age"])
    >>> released = pd.DataFrame({"age": ["23-27", "23-27", "23-27", "31"],
    ...                          "edu": ["{BA,MS}", "{BA,MS}", "HS", "HS"]})
    >>> sampled = sample_cells(released, domains, ["age", "edu"], np.random.default_rng(0))
    >>> sampled["age"].tolist(), sampled["edu"].tolist()
    ([25.0, 23.0, 23.0, 31.0], ['MS', 'MS', 'HS', 'HS'])
    """
    rng = check_random_state(random_state)
    out = frame.copy()
    for c in columns:
        d = domains[c]
        m = cell_membership(frame[c], d)
        cum = np.cumsum(m, axis=1)
        u = rng.random(len(frame))[:, None] * cum[:, -1:]
        codes = np.minimum((cum <= u).sum(axis=1), d.size - 1)
        values = d.values[codes]
        out[c] = pd.Series(
            values.astype(float) if d.kind == "numeric" else values, index=frame.index
        )
    return out
