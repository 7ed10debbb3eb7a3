"""Marginal fidelity of a release: how far its 1-way and 2-way marginals lie from the real table's.

A utility measure that sees every released column, the private one included. Each cell of both
tables is read by :func:`ppdp.cells.cell_membership` as a distribution over its column's original
domain (a domain value puts all its mass on itself, a range ``"lo-hi"``, a value set ``"{a,b}"``
or a hierarchy node spreads it uniformly over its members, a number between two domain values
splits it between its neighbours). A table's marginals are then expected frequencies:

* the 1-way marginal of column ``c`` is the mean over rows of the rows' distributions,
  ``p_c = M_c.sum(axis=0) / n`` with ``M_c`` the ``(n, |D_c|)`` membership matrix;
* the 2-way marginal of ``(a, b)`` is the mean over rows of the outer product of the row's two
  distributions, ``p_ab = M_a.T @ M_b / n``: within a row the cells are read as independent, the
  uniformity reading of generalized tables (LeFevre et al., 2006) that
  :mod:`ppdp.utility.workload` also uses for its expected counts.

On a real table every cell is a domain value, so these are the exact empirical marginals. The
distance between the real marginal ``q`` and the released one ``p`` is their total-variation
distance ``TV = 0.5 * sum |p - q|`` in ``[0, 1]``: 0 when the release preserves the marginal, 1
when the two put their mass on disjoint sets of values. The tables may have different numbers of
rows (a synthetic release): marginals are frequencies, not counts.

Computation goes through the distinct cells of each column: with ``T_c`` the membership of the
``m_c`` distinct cells and ``C`` the ``(m_a, m_b)`` counts of distinct cell pairs over the rows,
``M_a.T @ M_b = T_a.T @ C @ T_b``. Released columns hold few distinct cells (regions, domain
values), so a 2-way marginal costs one :func:`numpy.bincount` over the rows plus two small matrix
products.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from numbers import Integral

import numpy as np
import pandas as pd

from ppdp._validation import check_columns
from ppdp.base import check_frame
from ppdp.cells import cell_membership
from ppdp.tabular import AttributeDomain
from ppdp.utility.workload import _check_domains

__all__ = ["marginal_distance", "mean_marginal_tv"]


def _check_columns(columns, order: int) -> list[str]:
    columns = check_columns(columns, name="columns")
    if len(columns) < order:
        raise ValueError(
            f"columns {columns!r} has {len(columns)} column(s); order={order} marginals need "
            f"at least {order}"
        )
    return columns


def _check_order(order) -> int:
    if isinstance(order, bool) or not isinstance(order, Integral) or order not in (1, 2):
        raise ValueError(f"order must be 1 (1-way marginals) or 2 (2-way marginals), got {order!r}")
    return int(order)


def _distinct_membership(
    column: pd.Series, domain: AttributeDomain
) -> tuple[np.ndarray, np.ndarray]:
    """The membership rows of a column's distinct cells and each cell's index into them.

    Returns ``(table, codes)`` with ``table[codes]`` equal to ``cell_membership(column, domain)``:
    cells equal under ``==`` (one value, possibly of two numeric types) read as one distribution.
    """
    if column.isna().any():
        raise ValueError(f"column {domain.name!r} has missing values")
    codes, uniques = pd.factorize(column.to_numpy(dtype=object), use_na_sentinel=True)
    table = cell_membership(pd.Series(list(uniques), dtype=object), domain)
    return table, codes.astype(np.int64)


def _marginals_of(
    frame: pd.DataFrame, domains: Mapping[str, AttributeDomain], columns: list[str], order: int
) -> dict[tuple[str, ...], np.ndarray]:
    """Each 1-way or 2-way marginal of ``frame`` over ``columns``, as a frequency array."""
    n = len(frame)
    parts = {c: _distinct_membership(frame[c], domains[c]) for c in columns}
    out: dict[tuple[str, ...], np.ndarray] = {}
    if order == 1:
        for c in columns:
            table, codes = parts[c]
            weights = np.bincount(codes, minlength=table.shape[0]).astype(float)
            out[(c,)] = weights @ table / n
        return out
    for a, b in itertools.combinations(columns, 2):
        (ta, ca), (tb, cb) = parts[a], parts[b]
        ma, mb = ta.shape[0], tb.shape[0]
        pairs = np.bincount(ca * mb + cb, minlength=ma * mb).reshape(ma, mb).astype(float)
        out[(a, b)] = ta.T @ pairs @ tb / n
    return out


def marginal_distance(
    real: pd.DataFrame,
    released: pd.DataFrame,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
    *,
    order: int,
) -> pd.DataFrame:
    """Total-variation distance between the real and the released marginal, for each marginal.

    Parameters
    ----------
    real : DataFrame
        The original table; its cells must be values of ``domains``.
    released : DataFrame
        The release: domain values, ranges ``"lo-hi"``, value sets ``"{a,b}"``, hierarchy nodes
        or numbers inside a numeric domain (anything :func:`ppdp.cells.cell_membership` reads).
        It may have another number of rows than ``real``.
    domains : mapping str -> AttributeDomain
        The original domain of every column in ``columns`` (e.g.
        :func:`ppdp.cells.table_domains` of the real table).
    columns : sequence of str
        The columns whose marginals are compared, distinct; at least two for ``order=2``.
    order : {1, 2}
        1 for one marginal per column, 2 for one per unordered pair of columns (in the order of
        :func:`itertools.combinations`).

    Returns
    -------
    DataFrame
        One row per marginal, with columns

        ``columns`` (str)
            the marginal's columns joined by ``","``: ``"age"`` or ``"age,sex"``;
        ``tv`` (float)
            ``0.5 * sum |p - q|`` over the marginal's cells, in ``[0, 1]``: the largest
            difference, over every set of value combinations, between the share of real and of
            released rows falling in it. 0 means the release keeps the marginal exactly.

    Raises
    ------
    TypeError
        For a table that is not a DataFrame, ``columns`` that is not a sequence of names, or
        ``domains`` that is not a mapping of :class:`~ppdp.tabular.AttributeDomain`.
    ValueError
        For an empty table, an empty or repeated column list, a column missing from either
        table or from ``domains``, ``order`` not 1 or 2, fewer than two columns with
        ``order=2``, or a cell that cannot be read as a region of its domain.

    Notes
    -----
    A released row's cells are read as independent distributions, so a 2-way marginal of a
    generalized table is the uniformity estimate inside each row's region; see the module
    docstring.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [20, 30, 40, 50], "sex": ["F", "M", "F", "M"]})
    >>> released = pd.DataFrame({"age": ["20-30", "20-30", "40-50", "40-50"],
    ...                          "sex": ["{F,M}"] * 4})
    >>> domains = table_domains(real, ["age", "sex"], numeric=["age"])
    >>> marginal_distance(real, released, domains, ["age", "sex"], order=1)
      columns   tv
    0     age  0.0
    1     sex  0.0
    >>> marginal_distance(real, released, domains, ["age", "sex"], order=2)
       columns   tv
    0  age,sex  0.5
    """
    order = _check_order(order)
    real = check_frame(real, "real")
    released = check_frame(released, "released")
    _check_domains(domains, "marginal_distance")
    columns = _check_columns(columns, order)
    no_domain = [c for c in columns if c not in domains]
    if no_domain:
        raise ValueError(f"columns {no_domain} have no domain in domains (it has {list(domains)})")
    for name, frame in (("real", real), ("released", released)):
        check_columns(columns, name="columns", table=frame, table_name=f"the {name} table")
    p_real = _marginals_of(real, domains, columns, order)
    p_released = _marginals_of(released, domains, columns, order)
    keys = list(p_real)
    # a sum of |p - q| over two distributions is at most 2 up to rounding
    tv = [min(1.0, 0.5 * float(np.abs(p_released[k] - p_real[k]).sum())) for k in keys]
    return pd.DataFrame({"columns": [",".join(k) for k in keys], "tv": tv})


def mean_marginal_tv(
    real: pd.DataFrame,
    released: pd.DataFrame,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
    order: int,
) -> float:
    """The mean, over all ``order``-way marginals of ``columns``, of :func:`marginal_distance`'s TV.

    One number per release: 0 when every marginal is preserved, 1 when every marginal puts its
    mass where the real one has none. Parameters and errors as in :func:`marginal_distance`.

    Parameters
    ----------
    real : DataFrame
        The original table; its cells must be values of ``domains``.
    released : DataFrame
        The release (any cells :func:`ppdp.cells.cell_membership` reads), of any number of rows.
    domains : mapping str -> AttributeDomain
        The original domain of every column in ``columns``.
    columns : sequence of str
        The columns whose marginals are compared, distinct; at least two for ``order=2``.
    order : {1, 2}
        1-way or 2-way marginals.

    Returns
    -------
    float
        The mean TV distance, in ``[0, 1]``.

    Raises
    ------
    TypeError, ValueError
        As :func:`marginal_distance`: a table that is not a non-empty DataFrame, a bad column
        list or ``order``, a column without a domain, or a cell that cannot be read.

    Examples
    --------
    Generalizing ages to ranges of two and sex to ``{F,M}`` keeps both 1-way marginals but not
    their joint distribution:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [20, 30, 40, 50], "sex": ["F", "M", "F", "M"]})
    >>> released = pd.DataFrame({"age": ["20-30", "20-30", "40-50", "40-50"],
    ...                          "sex": ["{F,M}"] * 4})
    >>> domains = table_domains(real, ["age", "sex"], numeric=["age"])
    >>> mean_marginal_tv(real, released, domains, ["age", "sex"], order=1)
    0.0
    >>> mean_marginal_tv(real, released, domains, ["age", "sex"], order=2)
    0.5
    """
    return float(marginal_distance(real, released, domains, columns, order=order)["tv"].mean())
