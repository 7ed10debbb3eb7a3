"""Parameter and input checks shared by the modules of :mod:`ppdp.mechanisms.relay`.

The table (a non-empty DataFrame), its sensitive column and numeric quasi-identifiers, the QI
weights of the merging cost (Sec. 5), the disclosure thresholds in bits (Sec. 2) and the name of
the method. Each failure names the parameter, the value given and what is allowed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from numbers import Real

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, check_columns, check_params

#: Sanitization algorithms of the paper, by name.
METHODS = ("bua", "tda", "fla")


def _check_table(table) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame; got {type(table).__name__}")
    if len(table) == 0:
        raise ValueError("table must have at least one row; got 0 rows")
    return table


def _check_columns(table: pd.DataFrame, sensitive, quasi_identifiers) -> list:
    if not isinstance(sensitive, Hashable):
        raise TypeError(f"sensitive must be a column label; got {sensitive!r}")
    if sensitive not in table.columns:
        raise ValueError(
            f"sensitive column {sensitive!r} is not in the table; columns are {list(table.columns)}"
        )
    if quasi_identifiers is None:
        qis = [c for c in table.columns if c != sensitive]
    else:
        qis = check_columns(quasi_identifiers, name="quasi_identifiers", table=table)
        if sensitive in qis:
            raise ValueError(
                f"the sensitive column {sensitive!r} cannot also be a quasi-identifier"
            )
    if not qis:
        raise ValueError(
            "the table needs at least one quasi-identifier column besides the sensitive one"
        )
    used = {sensitive, *qis}
    duplicated = [c for c, n in Counter(table.columns).items() if n > 1 and c in used]
    if duplicated:
        raise ValueError(
            f"table has duplicated column names {duplicated}; the sensitive column and every "
            f"quasi-identifier need a unique name"
        )
    for c in qis:
        dtype = table[c].dtype
        if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
            raise TypeError(
                f"quasi-identifier {c!r} must be numeric (int or float); got dtype {dtype}"
            )
    return qis


def _check_weights(weights, d: int) -> np.ndarray:
    if weights is None:
        return np.full(d, 1.0 / d)
    w = np.asarray(weights)
    if w.dtype == np.bool_ or not (
        np.issubdtype(w.dtype, np.integer) or np.issubdtype(w.dtype, np.floating)
    ):
        raise TypeError(f"weights must be real numbers; got dtype {w.dtype}")
    # weights given in a narrower float (e.g. float32) sum to 1 only up to that type's rounding;
    # a common scale of the weights changes no decision and no loss ratio
    eps = np.finfo(w.dtype).eps if np.issubdtype(w.dtype, np.floating) else 0.0
    tol = max(1e-9, 4.0 * max(w.size, 1) * eps)
    w = w.astype(np.float64)
    if w.ndim != 1 or w.shape[0] != d:
        raise ValueError(
            f"weights must have one entry per quasi-identifier ({d}); got shape {w.shape}"
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"weights must be finite and >= 0; got {w.tolist()}")
    if abs(w.sum() - 1.0) > tol:
        raise ValueError(f"weights must sum to 1 (within {tol:.1g}); got sum {float(w.sum())!r}")
    return w


#: A Jensen-Shannon divergence bound in bits: finite and > 0 (a chain's delta is at most 1 bit).
_DELTA = [Interval(Real, 0, None, closed="neither")]
_CHAIN_DELTA = [Interval(Real, 0, 1, closed="right")]


def _check_delta(delta, caller: str, name: str = "delta") -> float:
    check_params({name: delta}, {name: _DELTA}, caller)
    return float(delta)


def _check_method(method, caller: str) -> str:
    """One of :data:`METHODS`, in any case."""
    if isinstance(method, str) and method.lower() in METHODS:
        return method.lower()
    check_params({"method": method}, {"method": [StrOptions(METHODS)]}, caller)
    return method


def _check_thresholds(delta, next_delta, caller: str) -> tuple[float, float | None]:
    delta = _check_delta(delta, caller)
    if next_delta is not None:
        next_delta = _check_delta(next_delta, caller, "next_delta")
        if next_delta > delta:
            raise ValueError(
                f"next_delta must not exceed delta (privacy only strengthens along the chain); "
                f"got next_delta={next_delta!r} > delta={delta!r}"
            )
    return delta, next_delta
