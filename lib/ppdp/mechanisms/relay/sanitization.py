"""One participant's sanitization of a DataFrame: BUA, TDA, FLA, PLSA and class means.

:func:`bua`, :func:`tda`, :func:`fla` and :func:`plsa` return a class label per row,
:func:`generalize` replaces each class's QIs by the class mean (Sec. 5), and :func:`sanitize`
returns the table a participant publishes, measured against ``delta`` before it leaves.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ppdp.guarantees import GuaranteeCheck, enforce

from .checks import _check_columns, _check_delta, _check_method, _check_table, _check_thresholds
from .level_split import _plsa
from .measures import _partition_disclosure
from .metrics import privacy_disclosure
from .partition import _row_labels, _unit_labels
from .units import _prepare, _qi_matrix


def generalize(table: pd.DataFrame, labels, *, sensitive, quasi_identifiers=None) -> pd.DataFrame:
    """Replace each class's QI values by the class mean (Sec. 5); other columns are kept.

    Parameters
    ----------
    table : pandas.DataFrame
        Numeric QI columns and one sensitive column.
    labels : array_like of int, shape (len(table),)
        Class label per row (e.g. from :func:`bua`, :func:`tda` or :func:`fla`).
    sensitive : column label
        The sensitive attribute (left unchanged).
    quasi_identifiers : list, optional
        QI columns (default: every other column).

    Returns
    -------
    pandas.DataFrame
        A copy of ``table`` whose QIs hold their class means (float).

    Raises
    ------
    ValueError
        If ``labels`` is not one integer per row, or a column is missing, repeated or holds
        non-finite values.
    TypeError
        If ``table`` is not a DataFrame or a quasi-identifier is not numeric.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [30, 30, 40, 40, 40, 50],
    ...     "disease": ["flu", "cold", "flu", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import generalize
    >>> generalize(table, [0, 0, 0, 0, 0, 1], sensitive="disease")
        age disease
    0  36.0     flu
    1  36.0    cold
    2  36.0     flu
    3  36.0     flu
    4  36.0    cold
    5  50.0     hiv
    """
    table = _check_table(table)
    qis = _check_columns(table, sensitive, quasi_identifiers)
    labels = np.asarray(labels)
    if labels.shape != (len(table),) or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(
            f"labels must be one integer class label per row ({len(table)}); got shape "
            f"{labels.shape} and dtype {labels.dtype}"
        )
    values = _qi_matrix(table, qis)
    _, inverse = np.unique(labels, return_inverse=True)
    inverse = inverse.reshape(-1)
    sizes = np.bincount(inverse).astype(np.float64)
    sums = np.zeros((sizes.size, values.shape[1]))
    np.add.at(sums, inverse, values)
    out = table.copy()
    out[qis] = (sums / sizes[:, None])[inverse]
    return out


def _labels(
    table, delta, method, sensitive, quasi_identifiers, weights, next_delta, *, caller, warn=True
):
    delta, next_delta = _check_thresholds(delta, next_delta, caller)
    _, _, _, units, row_unit = _prepare(table, sensitive, quasi_identifiers, weights)
    return _unit_labels(units, row_unit, method, delta, next_delta, warn=warn, stacklevel=3)


def bua(table, delta, *, sensitive, quasi_identifiers=None, weights=None) -> np.ndarray:
    """Bottom-up approach (Algorithm 1, then PLSA): class label per row meeting ``delta``.

    Parameters
    ----------
    table : pandas.DataFrame
        The table the participant received: numeric QI columns and one sensitive column.
    delta : float > 0
        Disclosure threshold (bits): every class of the result meets ``P <= delta``.
    sensitive : column label
        The sensitive attribute.
    quasi_identifiers : list, optional
        QI columns (default: every other column).
    weights : array_like, optional
        QI weights of the merging cost, ``>= 0`` and summing to 1 (uniform by default).

    Returns
    -------
    numpy.ndarray of int64, shape (len(table),)
        Class label per row, ``0, 1, ...`` in order of each class's first row; a coarsening of
        the table's equivalence classes (apply it with :func:`generalize`).

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame, a quasi-identifier is not numeric, or ``weights`` are not
        real numbers.
    ValueError
        If a column is missing or named twice, the table is empty or holds missing or non-finite
        values, ``weights`` are not ``>= 0`` summing to 1, or ``delta`` is not a number ``> 0``
        (an ``InvalidParameterError``, also a ``TypeError``).

    Warns
    -----
    RelayWarning
        When only the all-in-one table (one class) meets ``delta``.

    Examples
    --------
    On this table BUA's groups mix the three age bands, which meets the threshold but loses
    almost all utility (compare :func:`tda`):

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [21, 23, 25, 27, 41, 43, 45, 47, 61, 63, 65, 67],
    ...     "zip": [10, 11, 10, 12, 20, 21, 20, 22, 30, 31, 30, 32],
    ...     "disease": ["flu", "flu", "cold", "flu", "cold", "cold",
    ...                 "flu", "cold", "hiv", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import bua, generalize, privacy_disclosure, utility_loss
    >>> round(privacy_disclosure(table, "disease"), 3)
    0.655
    >>> labels = bua(table, 0.1, sensitive="disease")
    >>> labels
    array([0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1])
    >>> out = generalize(table, labels, sensitive="disease")
    >>> loss = utility_loss(table, out, sensitive="disease")
    >>> round(privacy_disclosure(out, "disease"), 3), round(loss, 3)
    (0.061, 0.999)
    """
    return _labels(table, delta, "bua", sensitive, quasi_identifiers, weights, None, caller="bua")


def tda(table, delta, *, sensitive, quasi_identifiers=None, weights=None) -> np.ndarray:
    """Top-down approach (Algorithm 3: binary splits, then PLSA): class label per row.

    Parameters
    ----------
    table : pandas.DataFrame
        The table the participant received: numeric QI columns and one sensitive column.
    delta : float > 0
        Disclosure threshold (bits): every class of the result meets ``P <= delta``.
    sensitive : column label
        The sensitive attribute.
    quasi_identifiers : list, optional
        QI columns (default: every other column).
    weights : array_like, optional
        QI weights of the merging cost, ``>= 0`` and summing to 1 (uniform by default).

    Returns
    -------
    numpy.ndarray of int64, shape (len(table),)
        Class label per row, ``0, 1, ...`` in order of each class's first row; a coarsening of
        the table's equivalence classes (apply it with :func:`generalize`).

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame, a quasi-identifier is not numeric, or ``weights`` are not
        real numbers.
    ValueError
        If a column is missing or named twice, the table is empty or holds missing or non-finite
        values, ``weights`` are not ``>= 0`` summing to 1, or ``delta`` is not a number ``> 0``
        (an ``InvalidParameterError``, also a ``TypeError``).

    Warns
    -----
    RelayWarning
        When only the all-in-one table (one class) meets ``delta``.

    Examples
    --------
    At 0.2 bits the three age bands stay apart; at 0.1 PLSA splits them further, keeping each
    class's mix of values:

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [21, 23, 25, 27, 41, 43, 45, 47, 61, 63, 65, 67],
    ...     "zip": [10, 11, 10, 12, 20, 21, 20, 22, 30, 31, 30, 32],
    ...     "disease": ["flu", "flu", "cold", "flu", "cold", "cold",
    ...                 "flu", "cold", "hiv", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import generalize, privacy_disclosure, tda, utility_loss
    >>> tda(table, 0.2, sensitive="disease")
    array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    >>> labels = tda(table, 0.1, sensitive="disease")
    >>> labels
    array([0, 1, 0, 2, 1, 2, 3, 3, 4, 4, 4, 4])
    >>> out = generalize(table, labels, sensitive="disease")
    >>> loss = utility_loss(table, out, sensitive="disease")
    >>> round(privacy_disclosure(out, "disease"), 3), round(loss, 3)
    (0.093, 0.1)
    """
    return _labels(table, delta, "tda", sensitive, quasi_identifiers, weights, None, caller="tda")


def fla(
    table, delta, *, sensitive, quasi_identifiers=None, weights=None, next_delta=None
) -> np.ndarray:
    """Forward-looking approach (Sec. 3.3): class label per row meeting ``delta``.

    With ``next_delta`` (the next hop's threshold, ``<= delta``) the result is the table meeting
    ``next_delta`` when ``2 U(T1) > U(T2) + U(T3)``, otherwise the one meeting ``delta``.

    Parameters
    ----------
    table : pandas.DataFrame
        The table the participant received: numeric QI columns and one sensitive column.
    delta : float > 0
        Disclosure threshold (bits): every class of the result meets ``P <= delta``.
    sensitive : column label
        The sensitive attribute.
    quasi_identifiers : list, optional
        QI columns (default: every other column).
    weights : array_like, optional
        QI weights of the merging cost, ``>= 0`` and summing to 1 (uniform by default).
    next_delta : float > 0, optional
        The next hop's threshold, at most ``delta``; ``None`` looks no further.

    Returns
    -------
    numpy.ndarray of int64, shape (len(table),)
        Class label per row, ``0, 1, ...`` in order of each class's first row; a coarsening of
        the table's equivalence classes (apply it with :func:`generalize`).

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame, a quasi-identifier is not numeric, or ``weights`` are not
        real numbers.
    ValueError
        If a column is missing or named twice, the table is empty or holds missing or non-finite
        values, ``weights`` are not ``>= 0`` summing to 1, or ``delta`` is not a number ``> 0``
        (an ``InvalidParameterError``, also a ``TypeError``), or ``next_delta`` exceeds
        ``delta``.

    Warns
    -----
    RelayWarning
        When only the all-in-one table (one class) meets ``delta``.

    Examples
    --------
    Alone, FLA keeps TDA's three age bands at 0.2 bits; told that the next hop must meet 0.1,
    it publishes the finer table meeting 0.1 at once, which the next participant can forward
    unchanged:

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [21, 23, 25, 27, 41, 43, 45, 47, 61, 63, 65, 67],
    ...     "zip": [10, 11, 10, 12, 20, 21, 20, 22, 30, 31, 30, 32],
    ...     "disease": ["flu", "flu", "cold", "flu", "cold", "cold",
    ...                 "flu", "cold", "hiv", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import fla
    >>> fla(table, 0.2, sensitive="disease")
    array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    >>> fla(table, 0.2, sensitive="disease", next_delta=0.1)
    array([0, 1, 0, 2, 1, 2, 3, 3, 4, 4, 4, 4])
    """
    return _labels(
        table, delta, "fla", sensitive, quasi_identifiers, weights, next_delta, caller="fla"
    )


def plsa(table, labels, delta, *, sensitive, quasi_identifiers=None, weights=None) -> np.ndarray:
    """Privacy-level-preserving split (Algorithm 2) of the classes given by ``labels``.

    Each class is split while both halves disclose at most ``min(delta, P)``, ``P`` being the
    disclosure of the partition ``labels``; hence the result never discloses more than the input.
    ``labels`` must not separate rows with identical QI tuples.

    Parameters
    ----------
    table : pandas.DataFrame
        Numeric QI columns and one sensitive column.
    labels : array_like of int, shape (len(table),)
        The classes to split.
    delta : float > 0
        Disclosure threshold (bits) of the halves.
    sensitive : column label
        The sensitive attribute.
    quasi_identifiers : list, optional
        QI columns (default: every other column).
    weights : array_like, optional
        QI weights of the merging cost, ``>= 0`` and summing to 1 (uniform by default).

    Returns
    -------
    numpy.ndarray of int64, shape (len(table),)
        Class label per row, ``0, 1, ...`` in order of each class's first row; a refinement of
        ``labels`` (apply it with :func:`generalize`).

    Raises
    ------
    ValueError
        If ``labels`` is not one integer per row or separates rows with identical QI tuples, or
        the inputs are invalid as for :func:`bua`.
    TypeError
        As for :func:`bua`.

    Examples
    --------
    Of two classes of six rows, the second splits into halves with the same distribution of
    values; the disclosure of the table is unchanged:

    >>> import numpy as np
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [21, 23, 25, 27, 41, 43, 45, 47, 61, 63, 65, 67],
    ...     "zip": [10, 11, 10, 12, 20, 21, 20, 22, 30, 31, 30, 32],
    ...     "disease": ["flu", "flu", "cold", "flu", "cold", "cold",
    ...                 "flu", "cold", "hiv", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import generalize, plsa, privacy_disclosure
    >>> halves = np.repeat([0, 1], 6)
    >>> labels = plsa(table, halves, 0.3, sensitive="disease")
    >>> labels
    array([0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
    >>> [round(privacy_disclosure(generalize(table, x, sensitive="disease"), "disease"), 3)
    ...  for x in (halves, labels)]
    [0.089, 0.089]
    """
    delta = _check_delta(delta, "plsa")
    _, _, _, units, row_unit = _prepare(table, sensitive, quasi_identifiers, weights)
    labels = np.asarray(labels)
    if labels.shape != row_unit.shape or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(
            f"labels must be one integer class label per row ({row_unit.size}); got shape "
            f"{labels.shape} and dtype {labels.dtype}"
        )
    unit_label = np.full(units.m, -1, dtype=np.int64)
    unit_label[row_unit] = labels
    if not np.array_equal(unit_label[row_unit], labels):
        raise ValueError("labels must give rows with identical QI tuples the same class")
    _, inverse = np.unique(unit_label, return_inverse=True)
    classes = [np.flatnonzero(inverse == g) for g in range(int(inverse.max()) + 1)]
    bound = min(delta, _partition_disclosure(units, classes))
    return _row_labels(units, row_unit, _plsa(units, classes, bound))


def sanitize(
    table: pd.DataFrame,
    delta,
    *,
    method: str = "fla",
    sensitive,
    quasi_identifiers=None,
    weights=None,
    next_delta=None,
) -> pd.DataFrame:
    """One participant's step: the table it publishes, meeting ``P <= delta``.

    The participant sees only ``table``; the output merges whole classes of it and replaces QIs by
    class means. ``next_delta`` is used by FLA only (look-ahead). Emits :class:`RelayWarning` when
    only the all-in-one table meets ``delta``.

    Parameters
    ----------
    table : pandas.DataFrame
        The table the participant received: numeric QI columns and one sensitive column.
    delta : float > 0
        Disclosure threshold (bits): every class of the result meets ``P <= delta``.
    method : {"bua", "tda", "fla"}, default "fla"
        The algorithm (in any case).
    sensitive : column label
        The sensitive attribute.
    quasi_identifiers : list, optional
        QI columns (default: every other column).
    weights : array_like, optional
        QI weights of the merging cost, ``>= 0`` and summing to 1 (uniform by default).
    next_delta : float > 0, optional
        The next hop's threshold, at most ``delta`` (FLA's look-ahead).

    Returns
    -------
    pandas.DataFrame
        A copy of ``table`` whose QIs hold their class means; ``P <= delta``.

    Raises
    ------
    ppdp.guarantees.GuaranteeViolation
        If ``P`` of the table about to be returned exceeds ``delta`` (nothing is returned).
    TypeError, ValueError
        If the inputs are invalid (as for :func:`fla`), or ``method`` is not one of
        :data:`METHODS`.

    Warns
    -----
    RelayWarning
        When only the all-in-one table (one class) meets ``delta``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [21, 23, 25, 27, 41, 43, 45, 47, 61, 63, 65, 67],
    ...     "zip": [10, 11, 10, 12, 20, 21, 20, 22, 30, 31, 30, 32],
    ...     "disease": ["flu", "flu", "cold", "flu", "cold", "cold",
    ...                 "flu", "cold", "hiv", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import privacy_disclosure, sanitize
    >>> out = sanitize(table, 0.2, method="tda", sensitive="disease")
    >>> out.head(5)
        age    zip disease
    0  24.0  10.75     flu
    1  24.0  10.75     flu
    2  24.0  10.75    cold
    3  24.0  10.75     flu
    4  44.0  20.75    cold
    >>> round(privacy_disclosure(out, "disease"), 3)
    0.133
    """
    method = _check_method(method, "sanitize")
    labels = _labels(
        table, delta, method, sensitive, quasi_identifiers, weights, next_delta, caller="sanitize"
    )
    out = generalize(table, labels, sensitive=sensitive, quasi_identifiers=quasi_identifiers)
    enforce(
        [
            _disclosure_check(
                method.upper(), privacy_disclosure(out, sensitive, quasi_identifiers), delta, "T"
            )
        ]
    )
    return out


def _disclosure_check(mechanism: str, measured: float, threshold: float, where: str):
    return GuaranteeCheck(
        mechanism=mechanism,
        guarantee="privacy disclosure P(T) <= threshold",
        declared=float(threshold),
        measured=float(measured),
        sense="at_most",
        where=where,
    )
