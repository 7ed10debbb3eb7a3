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

import numpy as np
import pandas as pd

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
    """
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the table; it has {list(table.columns)}")
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

    Raises ValueError, naming the column and the value, for a cell that is missing or cannot be
    read as a region of the domain.
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
    """Names of :func:`design_matrix`'s columns: ``col`` (numeric) or ``col=value``."""
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
    """
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the table; it has {list(frame.columns)}")
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
    rng: np.random.Generator,
) -> pd.DataFrame:
    """A copy of ``frame`` whose ``columns`` hold one domain value per cell, drawn from the cell.

    Cells that already are domain values are kept as they are; a region gives a value drawn
    uniformly from it. For evaluators that compare records value by value (anonymeter).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
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
