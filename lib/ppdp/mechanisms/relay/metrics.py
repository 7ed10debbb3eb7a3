"""Equivalence classes, the privacy disclosure ``P(T)`` (Sec. 2) and the utility loss (Sec. 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .checks import _check_columns, _check_table, _check_weights
from .measures import _js_rows
from .units import _prepare, _qi_matrix, _row_units


def equivalence_classes(table: pd.DataFrame, sensitive, quasi_identifiers=None) -> np.ndarray:
    """Class label of each row: rows with identical QI tuples share a label.

    Labels are ``0, 1, ...`` in order of each class's first row.

    Parameters
    ----------
    table : pandas.DataFrame
        Numeric QI columns and one sensitive column.
    sensitive : column label
        The sensitive attribute (not a QI).
    quasi_identifiers : list, optional
        QI columns (default: every other column).

    Returns
    -------
    numpy.ndarray of int64, shape (len(table),)

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a non-empty DataFrame, or the columns are missing, repeated, not
        numeric (QIs) or hold non-finite values.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [30, 30, 40, 40, 40, 50],
    ...     "disease": ["flu", "cold", "flu", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import equivalence_classes
    >>> equivalence_classes(table, "disease")
    array([0, 0, 1, 1, 1, 2])
    """
    table = _check_table(table)
    qis = _check_columns(table, sensitive, quasi_identifiers)
    return _row_units(_qi_matrix(table, qis))[0]


def class_disclosure(table: pd.DataFrame, sensitive, quasi_identifiers=None) -> np.ndarray:
    """``JS(p(sensitive in T), p(sensitive in class))`` (bits) of each equivalence class.

    Classes are ordered as in :func:`equivalence_classes`.

    Parameters
    ----------
    table : pandas.DataFrame
        Numeric QI columns and one sensitive column.
    sensitive : column label
        The sensitive attribute.
    quasi_identifiers : list, optional
        QI columns (default: every other column).

    Returns
    -------
    numpy.ndarray of float, shape (n_classes,)
        Each in ``[0, 1]``.

    Raises
    ------
    TypeError, ValueError
        As :func:`equivalence_classes`, and if the sensitive column holds missing or non-finite
        values or mixes value types.

    Examples
    --------
    The class of age 50 holds only the rare value ``hiv`` and discloses most:

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [30, 30, 40, 40, 40, 50],
    ...     "disease": ["flu", "cold", "flu", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import class_disclosure
    >>> class_disclosure(table, "disease").round(3)
    array([0.095, 0.092, 0.655])
    """
    _, _, _, units, _ = _prepare(table, sensitive, quasi_identifiers, None)
    return _js_rows(units.counts, units.gdist)


def privacy_disclosure(table: pd.DataFrame, sensitive, quasi_identifiers=None) -> float:
    """Privacy disclosure ``P(T)`` of Sec. 2: the largest JS divergence of a class (bits).

    Parameters
    ----------
    table : pandas.DataFrame
        Numeric QI columns and one sensitive column.
    sensitive : column label
        The sensitive attribute.
    quasi_identifiers : list, optional
        QI columns (default: every other column).

    Returns
    -------
    float
        In ``[0, 1]``; 0 for a table whose QIs are all equal (one class).

    Raises
    ------
    TypeError, ValueError
        As :func:`class_disclosure`.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [30, 30, 40, 40, 40, 50],
    ...     "disease": ["flu", "cold", "flu", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import generalize, privacy_disclosure
    >>> round(privacy_disclosure(table, "disease"), 3)
    0.655
    >>> one_class = generalize(table, [0, 0, 0, 0, 0, 0], sensitive="disease")
    >>> privacy_disclosure(one_class, "disease")
    0.0
    """
    return float(class_disclosure(table, sensitive, quasi_identifiers).max())


def utility_loss(
    original: pd.DataFrame,
    sanitized: pd.DataFrame,
    *,
    sensitive,
    quasi_identifiers=None,
    weights=None,
) -> float:
    """Utility loss ``UL`` of Sec. 5 of a sanitized table against the original.

    ``UL = sum_t d(t', t) / sum_t d(t_bar, t)`` over rows (matched by position), with the weighted
    squared distance ``d`` and ``t_bar`` the QI mean of the original (the all-in-one-class table).

    Parameters
    ----------
    original : pandas.DataFrame
        The table ``T0``.
    sanitized : pandas.DataFrame
        A sanitized version of it, with the same columns and index.
    sensitive : column label
        The sensitive attribute.
    quasi_identifiers : list, optional
        QI columns (default: every column of ``original`` but ``sensitive``).
    weights : array_like, optional
        QI weights, ``>= 0`` and summing to 1 (uniform by default).

    Returns
    -------
    float
        0 for the untouched table, 1 for the all-in-one table.

    Raises
    ------
    ValueError
        If the tables differ in shape, columns or index, or all original QI tuples are equal (the
        loss is then undefined).
    TypeError
        If a table is not a DataFrame, a QI is not numeric, or ``weights`` are not real numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [30, 30, 40, 40, 40, 50],
    ...     "disease": ["flu", "cold", "flu", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import generalize, utility_loss
    >>> merged = generalize(table, [0, 0, 0, 0, 0, 1], sensitive="disease")
    >>> round(utility_loss(table, merged, sensitive="disease"), 3)
    0.424
    >>> utility_loss(table, table, sensitive="disease")
    0.0
    >>> utility_loss(table, generalize(table, [0] * 6, sensitive="disease"), sensitive="disease")
    1.0
    """
    original = _check_table(original)
    sanitized = _check_table(sanitized)
    qis = _check_columns(original, sensitive, quasi_identifiers)
    _check_columns(sanitized, sensitive, qis)
    if len(original) != len(sanitized) or not original.index.equals(sanitized.index):
        raise ValueError(
            f"original and sanitized must have the same rows (index); got {len(original)} and "
            f"{len(sanitized)} rows"
        )
    w = _check_weights(weights, len(qis))
    return _utility_loss(_qi_matrix(original, qis), _qi_matrix(sanitized, qis), w)


def _utility_loss(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    """:func:`utility_loss` of the QI matrix ``b`` against the original ``a``."""
    denom = float(((a - a.mean(axis=0)) ** 2 @ w).sum())
    if denom <= 0:
        raise ValueError(
            "all original QI tuples are equal (under the weights); utility loss is undefined"
        )
    return float(((b - a) ** 2 @ w).sum() / denom)
