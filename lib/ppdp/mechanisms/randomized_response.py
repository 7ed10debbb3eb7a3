"""k-ary randomized response (k-RR), the baseline of the IMPOSTER paper.

Yang, Wang, Hu, Chen and Jiang, "Implicit privacy preservation: a framework based on data
generation", Security and Safety 1 (2022) 2022008, Section 3.1, Eq. (1); the mechanism is that of
Kairouz, Oh and Viswanath (2016). A value ``s`` of an attribute with alphabet of size ``k`` is kept
with probability ``e^eps / (k - 1 + e^eps)`` and replaced by each of the ``k - 1`` other values with
probability ``1 / (k - 1 + e^eps)``. The channel satisfies ``eps``-local differential privacy: any
two rows of its matrix differ by a factor of at most ``e^eps``.

The alphabet of an attribute is the set of values observed when the mechanism is fitted (for a
numeric attribute, its distinct values), so a randomized table only holds values of the original
one and keeps every column's dtype.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "KaryRandomizedResponse",
    "krr_keep_probability",
    "krr_matrix",
    "randomize_codes",
]


def _check_epsilon(epsilon, name: str = "epsilon") -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a positive real number, got {epsilon!r}")
    value = float(epsilon)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {epsilon!r}")
    return value


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise TypeError(f"k must be an integer >= 1 (the alphabet size), got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1 (the alphabet size), got {k!r}")
    return int(k)


def krr_keep_probability(k: int, epsilon: float) -> float:
    """Probability that k-RR reports the true value, ``e^eps / (k - 1 + e^eps)`` (Eq. 1).

    Computed as ``1 / (1 + (k - 1) e^-eps)`` so that large ``epsilon`` does not overflow.
    """
    k = _check_k(k)
    epsilon = _check_epsilon(epsilon)
    return float(1.0 / (1.0 + (k - 1) * np.exp(-epsilon)))


def krr_matrix(k: int, epsilon: float) -> np.ndarray:
    """The ``(k, k)`` channel ``Q[s, r] = Q(r | s)`` of Eq. (1); rows sum to one."""
    k = _check_k(k)
    keep = krr_keep_probability(k, epsilon)
    # 1 / (k - 1 + e^eps) written without the cancellation of (1 - keep) / (k - 1)
    flip = float(np.exp(-epsilon) / (1.0 + (k - 1) * np.exp(-epsilon))) if k > 1 else 0.0
    matrix = np.full((k, k), flip)
    np.fill_diagonal(matrix, keep)
    return matrix


def randomize_codes(codes, k: int, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Apply k-RR to integer codes in ``{0, ..., k-1}``.

    With probability ``1 - keep`` a code is replaced by one of the other ``k - 1`` codes, drawn
    uniformly: draw ``u`` in ``{0, ..., k-2}`` and report ``u + (u >= code)``.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    k = _check_k(k)
    codes = np.asarray(codes)
    if codes.size and (not np.issubdtype(codes.dtype, np.integer)):
        raise TypeError(f"codes must be integers, got dtype {codes.dtype}")
    if codes.size and (codes.min() < 0 or codes.max() >= k):
        raise ValueError(
            f"codes must lie in [0, {k - 1}], got range [{codes.min()}, {codes.max()}]"
        )
    keep = krr_keep_probability(k, epsilon)
    codes = codes.astype(np.int64, copy=False)
    if k == 1:
        return codes.copy()
    flip = rng.random(codes.shape) >= keep
    other = rng.integers(0, k - 1, size=codes.shape)
    other = other + (other >= codes)
    return np.where(flip, other, codes)


class KaryRandomizedResponse:
    """k-RR applied independently to several columns of a table (Section 3.1, Eq. 1).

    Parameters
    ----------
    epsilon : float or mapping column -> float
        Privacy budget of each randomized attribute (> 0). A single number applies to every column.
    columns : sequence of str or None
        Columns to randomize; ``None`` randomizes every column of the table given to ``fit``.

    Attributes
    ----------
    columns_ : list of str
    domains_ : dict column -> numpy array of the observed values (the alphabet, sorted)
    epsilons_ : dict column -> float
    matrices_ : dict column -> (k, k) channel of Eq. (1)
    """

    def __init__(
        self, epsilon: float | Mapping[str, float] = 1.0, columns: Sequence[str] | None = None
    ):
        if isinstance(epsilon, Mapping):
            for col, eps in epsilon.items():
                _check_epsilon(eps, name=f"epsilon[{col!r}]")
        else:
            _check_epsilon(epsilon)
        if columns is not None:
            if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
                raise TypeError(f"columns must be a sequence of column names, got {columns!r}")
            columns = list(columns)
        self.epsilon = epsilon
        self.columns = columns

    def fit(self, df: pd.DataFrame) -> KaryRandomizedResponse:
        """Learn each column's alphabet (its observed values) and its channel."""
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
        if len(df) == 0:
            raise ValueError("df is empty: k-RR needs at least one row to learn the alphabets")
        columns = list(df.columns) if self.columns is None else list(self.columns)
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise ValueError(f"columns {missing} are not in the table; it has {list(df.columns)}")
        if not columns:
            raise ValueError("columns is empty: give at least one column to randomize")
        if isinstance(self.epsilon, Mapping):
            absent = [c for c in columns if c not in self.epsilon]
            if absent:
                raise ValueError(f"epsilon gives no budget for columns {absent}")
            epsilons = {c: float(self.epsilon[c]) for c in columns}
        else:
            epsilons = dict.fromkeys(columns, float(self.epsilon))
        self.columns_ = columns
        self.epsilons_ = epsilons
        self.domains_ = {}
        self.matrices_ = {}
        for col in columns:
            values = df[col]
            if values.isna().any():
                raise ValueError(
                    f"column {col!r} holds missing values; k-RR needs complete columns"
                )
            self.domains_[col] = np.sort(pd.unique(values.to_numpy()))
            self.matrices_[col] = krr_matrix(len(self.domains_[col]), epsilons[col])
        return self

    def randomize(self, df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        """Return a copy of ``df`` whose fitted columns went through k-RR; other columns unchanged."""
        if not hasattr(self, "domains_"):
            raise ValueError("this KaryRandomizedResponse is not fitted yet; call fit(df) first")
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        out = df.copy()
        for col in self.columns_:
            if col not in df.columns:
                raise ValueError(f"column {col!r} was fitted but is not in the table")
            domain = self.domains_[col]
            values = df[col].to_numpy()
            codes = np.searchsorted(domain, values)
            codes = np.clip(codes, 0, len(domain) - 1)
            unknown = domain[codes] != values
            if np.any(unknown):
                bad = pd.unique(values[unknown])[:5]
                raise ValueError(
                    f"column {col!r} holds values outside the fitted alphabet: {list(bad)}"
                )
            new = randomize_codes(codes, len(domain), self.epsilons_[col], rng)
            out[col] = pd.Series(domain[new], index=df.index).astype(df[col].dtype)
        return out

    def fit_randomize(self, df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        """``fit(df)`` then ``randomize(df, rng)``."""
        return self.fit(df).randomize(df, rng)
