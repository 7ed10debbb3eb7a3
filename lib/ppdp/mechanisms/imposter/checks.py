"""Input checks shared by the modules of :mod:`ppdp.mechanisms.imposter`.

The table (a non-empty DataFrame with unique column names, without missing or infinite values),
the explicit private attribute ``s`` (binary, as the paper's ``D2`` needs) and the label, the
attributes to score or generate, and the seed that the classifier check and torch draw from. Each
failure names the parameter, the value given and what is allowed.
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from ppdp._validation import Interval, check_columns
from ppdp.base import check_random_state


def _check_frame(df: Any, name: str = "df") -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0 or df.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {df.shape}); it needs rows and columns")
    duplicated = [c for c, n in Counter(df.columns).items() if n > 1]
    if duplicated:
        raise ValueError(f"{name} has duplicated column names {duplicated}; names must be unique")
    return df


_POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
_UNIT = [Interval(Real, 0, 1, closed="both")]


def _value_kinds(values: np.ndarray) -> list[str]:
    return sorted(
        {
            "number"
            if isinstance(v, numbers.Number) and not isinstance(v, bool | np.bool_)
            else type(v).__name__
            for v in values
        }
    )


def _check_values(series: pd.Series, col: Any, *, allow_mixed: bool = False) -> None:
    """Reject missing and infinite values and (unless ``allow_mixed``) mixed-type columns."""
    if series.isna().any():
        raise ValueError(f"column {col!r} has missing values; fill or drop them first")
    if _is_numeric(series):
        values = series.to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            bad = [float(v) for v in pd.unique(values[~np.isfinite(values)])]
            raise ValueError(f"column {col!r} holds non-finite values {bad}; give finite numbers")
    elif series.dtype == object and not allow_mixed:
        kinds = _value_kinds(pd.unique(series.to_numpy()))
        if len(kinds) > 1:
            raise TypeError(
                f"column {col!r} mixes value types {kinds}; give it one type (e.g. .astype(str))"
            )


def check_private_attribute(df: pd.DataFrame, private: Any, label: Any = None) -> np.ndarray:
    """Validate the explicit private attribute ``s`` (and the label); return ``s``'s two values.

    ``s`` must be a column of ``df``, without missing values, with exactly two distinct values
    (the paper's ``D2`` is a binary classifier). ``label``, if given, must be another column.

    Parameters
    ----------
    df : pandas.DataFrame
        The table, non-empty, with unique column names.
    private : str
        The column of ``s``.
    label : str, optional
        The class label's column.

    Returns
    -------
    numpy.ndarray (2,)
        The two values of ``s``, sorted; the second is the one coded 1.

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame, ``private`` or ``label`` is not a column name (str), or
        ``s`` mixes value types.
    ValueError
        If ``df`` is empty or repeats a column name, ``s`` is not a column, has missing or
        infinite values or not exactly two values, or ``label`` is ``private`` or not a column.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58] * 3,
    ...     "job": ["nurse", "clerk", "nurse", "driver", "clerk", "nurse", "driver", "clerk"] * 3,
    ...     "hours": [40, 40, 30, 30] * 6,
    ...     "sex": ["F", "M", "F", "M", "M", "F", "M", "M"] * 3,
    ...     "income": ["low", "high"] * 12,
    ... })
    >>> from ppdp.mechanisms.imposter import check_private_attribute
    >>> check_private_attribute(df, "sex", label="income").tolist()
    ['F', 'M']
    >>> check_private_attribute(df, "job")
    Traceback (most recent call last):
    ...
    ValueError: private attribute 'job' must be binary (exactly 2 distinct values), got 3: ['clerk', 'driver', 'nurse']
    """
    df = _check_frame(df)
    if not isinstance(private, str):
        raise TypeError(f"private must be a column name (str), got {private!r}")
    if private not in df.columns:
        raise ValueError(
            f"private attribute {private!r} is not a column; columns are {list(df.columns)}"
        )
    if df[private].isna().any():
        raise ValueError(f"private attribute {private!r} has missing values")
    _check_values(df[private], private)
    values = np.sort(pd.unique(df[private].to_numpy()))
    if len(values) != 2:
        raise ValueError(
            f"private attribute {private!r} must be binary (exactly 2 distinct values), "
            f"got {len(values)}: {list(values[:5])}"
        )
    if label is not None:
        if not isinstance(label, str):
            raise TypeError(f"label must be a column name (str) or None, got {label!r}")
        if label == private:
            raise ValueError(f"label {label!r} must differ from the private attribute {private!r}")
        if label not in df.columns:
            raise ValueError(f"label {label!r} is not a column; columns are {list(df.columns)}")
    return values


def _check_columns(
    df: pd.DataFrame, columns: Sequence[str] | None, exclude: Sequence[str]
) -> list[str]:
    if columns is None:
        cols = [c for c in df.columns if c not in exclude]
    else:
        # an empty list is refused below, with the message of a table that has nothing to score
        cols = check_columns(columns, name="columns", table=df, allow_empty=True)
        clash = [c for c in cols if c in exclude]
        if clash:
            raise ValueError(f"columns {clash} may not include the private attribute")
    if not cols:
        raise ValueError("no attribute left to score besides the private attribute (and label)")
    return cols


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _training_seed(random_state: Any) -> int:
    """torch's seed: the int itself, or one int drawn from the Generator (fresh for None)."""
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        check_random_state(random_state)  # an int >= 0
        return int(random_state)
    return int(check_random_state(random_state).integers(2**31 - 1))
