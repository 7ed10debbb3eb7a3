"""Parameter and input checks shared by the modules of :mod:`ppdp.mechanisms.hyobscure`."""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral, Real
from types import SimpleNamespace
from typing import Any

import numpy as np

from ppdp._validation import Interval, StrOptions, validate_hyperparameters

#: Constraints of the hyper-parameters of this package's mechanisms and functions.
POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
NON_NEGATIVE = [Interval(Real, 0, None, closed="left")]
PROBABILITY = [Interval(Real, 0, 1, closed="both")]
SOLVER = [StrOptions(("CLARABEL", "SCS"))]
DISTANCE = [StrOptions(("centroid_js", "mean_pairwise_js")), callable]
DOMAIN = [StrOptions(("interval", "grid"))]
BUDGET_SCOPE = [StrOptions(("global", "group", "cluster_mean"))]
G_STEP = [StrOptions(("boundary", "greedy"))]
GREEDY_SCORE = [StrOptions(("transposed", "leakage"))]

#: (k, alpha)-uniqueness (Definition 2) and (l, beta)-variety (Definition 3).
BOUNDS = {"k": POSITIVE_INT, "alpha": POSITIVE_INT, "l": POSITIVE_INT, "beta": POSITIVE_INT}


def checked_params(
    owner: Any, *, ints: Iterable[str] = (), floats: Iterable[str] = ()
) -> SimpleNamespace:
    """``owner``'s hyper-parameters as one ``fit`` reads them: checked, numbers converted.

    The constructors of this package's mechanisms store their arguments as given (so that
    :func:`sklearn.base.clone` works); ``fit`` checks them against the class's
    ``_parameter_constraints`` here and reads the converted copy, never overwriting the
    attributes. A numpy scalar (``np.int32(30)``, ``np.float32(0.05)``) becomes the Python
    ``int`` or ``float`` the computations were written for.

    Parameters
    ----------
    owner : estimator
        A mechanism with ``get_params`` and ``_parameter_constraints``.
    ints, floats : iterable of str
        The parameters to convert with ``int`` and ``float``.

    Returns
    -------
    types.SimpleNamespace
        Every constructor parameter by name, the named ones converted.

    Raises
    ------
    ppdp._validation.InvalidParameterError
        When a parameter breaks its constraints; the message names it.
    """
    validate_hyperparameters(owner)
    params = owner.get_params(deep=False)
    params.update({name: int(params[name]) for name in ints})
    params.update({name: float(params[name]) for name in floats})
    return SimpleNamespace(**params)


def check_bound_order(k: int, alpha: int, l: int, beta: int) -> tuple[int, ...]:  # noqa: E741
    """``alpha >= k`` and ``beta >= l``: each upper bound at least its lower bound."""
    if alpha < k:
        raise ValueError(f"alpha must be >= k (Definition 2); got k={k}, alpha={alpha}")
    if beta < l:
        raise ValueError(f"beta must be >= l (Definition 3); got l={l}, beta={beta}")
    return k, alpha, l, beta


def as_features(X: Any) -> np.ndarray:
    """The users' features as float64: a dense array, or CSR when ``X`` is a scipy sparse matrix.

    Ratings stay sparse, so that a million users fit in memory; every step of the package that
    reads features (k-means, the cluster aggregates, the release's row copies) takes either.
    """
    import scipy.sparse as sp

    if sp.issparse(X):
        csr = sp.csr_matrix(X, dtype=np.float64)
        if csr.ndim != 2 or csr.shape[0] == 0 or csr.shape[1] == 0:
            raise ValueError(
                f"X must be a non-empty 2-D array (users x features); got shape {csr.shape}"
            )
        if not np.isfinite(csr.data).all() or (csr.data < 0).any():
            raise ValueError("X must hold finite, non-negative feature values (ratings or counts)")
        return csr
    _reject_non_numeric(X, "X")
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(
            f"X must be a non-empty 2-D array (users x features); got shape {arr.shape}"
        )
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError("X must hold finite, non-negative feature values (ratings or counts)")
    return arr


def _reject_non_numeric(X: Any, name: str) -> None:
    """A table with a text or object column cannot be cast silently: name the column and dtype."""
    from pandas.api.types import is_numeric_dtype

    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):  # a DataFrame
        for col, dtype in dtypes.items():
            if not is_numeric_dtype(dtype):
                raise TypeError(
                    f"{name} must hold numeric feature values; column {col!r} has dtype {dtype}"
                )
        return
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold numeric feature values; got an array of dtype {arr.dtype}"
        )


def as_private(y: Any, n: int | None = None, name: str = "y") -> np.ndarray:
    """Exact private values (ages, cell ids) as a non-empty 1-D int64 array.

    Parameters
    ----------
    y : array_like
        The values; integral floats are accepted, missing or non-integral entries are not.
    n : int, optional
        Required length (the rows of ``X``).
    name : str
        Name of the argument in the error messages.
    """
    missing = _missing_mask(y)
    if missing is not None and missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{name} must hold an exact private value for every user; {int(missing.sum())} values "
            f"are missing (first at position {first})"
        )
    arr = np.asarray(y)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must hold integer private values (ages, cell ids); got non-numeric entries"
            ) from exc
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array of exact private values; got shape {arr.shape}"
        )
    if not np.issubdtype(arr.dtype, np.integer):
        if (
            np.issubdtype(arr.dtype, np.floating)
            and np.all(np.isfinite(arr))
            and np.all(arr == np.round(arr))
        ):
            arr = arr.astype(np.int64)
        else:
            raise TypeError(
                f"{name} must hold integer private values (ages, cell ids); got dtype {arr.dtype}"
            )
    if n is not None and arr.size != n:
        raise ValueError(f"{name} has {arr.size} entries but X has {n} rows")
    return arr.astype(np.int64)


def _missing_mask(y: Any) -> np.ndarray | None:
    """Positions of missing values (None, NaN, pd.NA) in ``y``; None when ``y`` cannot hold any."""
    import pandas as pd

    if isinstance(y, pd.Series | pd.Index):
        return np.asarray(pd.isna(y))
    arr = np.asarray(y)
    if arr.dtype == object:
        return np.asarray(pd.isna(arr), dtype=bool).reshape(arr.shape).ravel()
    if arr.dtype.kind == "f":
        return np.isnan(arr).ravel()
    return None


def check_clusters(clusters: Any, n: int, name: str = "clusters") -> np.ndarray:
    """Precomputed user clusters: one non-negative integer label per row of X."""
    arr = np.asarray(clusters)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"{name} must hold one label per row of X ({n}); got shape {arr.shape}")
    if arr.dtype.kind == "f":
        frac = ~np.isfinite(arr) | (arr != np.round(arr))
        if frac.any():
            first = int(np.flatnonzero(frac)[0])
            raise TypeError(
                f"{name} must hold integer cluster labels; {name}[{first}] = {float(arr[first])!r} is "
                "not an integer"
            )
        raise TypeError(
            f"{name} must hold integer cluster labels; got dtype {arr.dtype} (cast integral labels "
            "with astype(int) first)"
        )
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer cluster labels; got dtype {arr.dtype}")
    if n and arr.min() < 0:
        first = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(
            f"{name} must be labels in [0, n_clusters); {name}[{first}] = {int(arr[first])}"
        )
    return arr.astype(np.int64)


def check_value_counts(value_counts: Any, counts_cy: np.ndarray) -> np.ndarray:
    """Users per exact value on which k and l are counted: the fitted users' by default.

    Parameters
    ----------
    value_counts : array_like, shape (V,), or None
        Users per value of the domain (e.g. of a whole population); ``None`` for
        ``counts_cy.sum(axis=0)``.
    counts_cy : ndarray, shape (C, V)
        Users per (cluster, value) being fitted.

    Raises
    ------
    ValueError
        When ``value_counts`` does not hold one finite, non-negative count per value.
    """
    counts_cy = np.asarray(counts_cy, dtype=np.float64)
    if value_counts is None:
        return counts_cy.sum(axis=0)
    arr = np.asarray(value_counts, dtype=np.float64)
    V = counts_cy.shape[1]
    if arr.shape != (V,):
        raise ValueError(
            f"value_counts must hold one count per value of the domain ({V}); got shape {arr.shape}"
        )
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError("value_counts must hold finite, non-negative numbers of users")
    return arr


#: Largest deviation of a mapping row's sum from one accepted as rounding.
_ROW_SUM_TOL = 1e-9


def check_mappings(mappings: Any, shape: tuple[int, int, int], name: str = "mappings"):
    """Obfuscation mappings: shape ``(K, C, C)``, finite, non-negative, rows summing to one."""
    arr = np.asarray(mappings, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape (K, C, C) = {shape}; got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite; it holds NaN or infinite entries")
    if (arr < 0).any():
        g, c, d = np.argwhere(arr < 0)[0]
        raise ValueError(
            f"{name} must be non-negative probabilities; {name}[{g}, {c}, {d}] = {arr[g, c, d]:.10g}"
        )
    sums = arr.sum(axis=2)
    bad = np.abs(sums - 1.0) > _ROW_SUM_TOL
    if bad.any():
        g, c = np.argwhere(bad)[0]
        raise ValueError(
            f"every row of {name} must sum to 1 (within {_ROW_SUM_TOL:g}); row {name}[{g}, {c}] "
            f"sums to {sums[g, c]:.12g}"
        )
    return arr
