"""Units: the equivalence classes of the table a participant receives, and their caches.

A participant sees only the table it received; its units are that table's equivalence classes
(rows with identical quasi-identifier tuples), which it can merge but never split. ``_Units``
holds them with their sizes and sensitive counts, ``_memo`` keeps the results of the pure
functions of one set of units, ``_Window`` records the thresholds for which a computation takes
the path it took, and :func:`reuse_units` shares units by content between the chains run inside
it (the cache ``UNITS``). The last part reads a table into units.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ppdp.guarantees import CHECK_TOL
from ppdp.memo import Memo, digest

from .checks import _check_columns, _check_table, _check_weights

#: Slack on ``P <= delta`` comparisons (JS values are computed to about 1e-15); the same slack
#: as the release check, so every partition the algorithms accept passes it.
_TOL = CHECK_TOL


@dataclass
class _Units:
    """Equivalence classes of a table, the atoms a participant can merge but not split.

    ``x`` holds QI values scaled by ``sqrt(w)`` so that plain squared Euclidean distance is the
    paper's weighted distance.
    """

    x: np.ndarray  # (m, d) scaled QI tuple of each unit
    size: np.ndarray  # (m,) number of rows
    counts: np.ndarray  # (m, K) sensitive-value counts
    first: np.ndarray  # (m,) first row number (tie-breaking key)
    gdist: np.ndarray  # (K,) sensitive distribution of the whole table
    # results of the pure functions of these units (see _memo); never part of a result
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def m(self) -> int:
        return self.x.shape[0]


def _memo(u: _Units, name: str) -> dict:
    """The cache ``name`` of ``u``: results of a pure function of ``u`` and exact keys.

    A chain run asks the same questions of the same units many times (TDA and FLA share TDA's
    phase I, FLA looks ahead with the same partitions, chains at different deltas share the
    cut searches near the root, ...). Every cached function is deterministic in ``u`` and its
    key (index arrays by their bytes, thresholds as exact floats), so a hit returns exactly what
    the computation would.
    """
    return u.memo.setdefault(name, {})


def _idx_key(idx: np.ndarray) -> tuple:
    # the order of idx matters (sums run in that order), so the bytes, not the set, are the key
    return (idx.dtype.str, idx.tobytes())


class _Window:
    """The thresholds for which a computation takes the path it took at one ``delta``.

    A computation that uses ``delta`` only in comparisons ``value <= delta + _TOL`` (or ``>``)
    and in ``min(delta, value)`` takes the same path, and returns the same result, for every
    ``delta`` that decides each of those comparisons the same way. The window records them as
    ``lo <= t < hi`` with ``t = delta + _TOL`` and ``above < delta <= at_most``.
    """

    __slots__ = ("above", "at_most", "hi", "lo")

    def __init__(self) -> None:
        self.lo, self.hi = -np.inf, np.inf
        self.above, self.at_most = -np.inf, np.inf

    def contains(self, delta: float) -> bool:
        t = delta + _TOL
        return self.lo <= t < self.hi and self.above < delta <= self.at_most

    def exceed(self, values: np.ndarray, t: float) -> np.ndarray:
        """``values > t``, recorded."""
        over = values > t
        if over.any():
            self.hi = min(self.hi, float(values[over].min()))
        if not over.all():
            self.lo = max(self.lo, float(values[~over].max()))
        return over

    def meets(self, values: np.ndarray, t: float) -> bool:
        """``(values <= t).all()``, recorded."""
        return not self.exceed(values, t).any()

    def bound(self, delta: float, value: float) -> float:
        """``min(delta, value)``, recorded."""
        if value < delta:
            self.above = max(self.above, value)
            return value
        self.at_most = min(self.at_most, value)
        return delta


#: Units shared by content, only inside a :func:`reuse_units` block (nothing is kept outside).
UNITS = Memo(
    "mechanisms.relay.units",
    "a participant's input units with their cached partial results, by the units' content",
)


def _shared(u: _Units) -> _Units:
    """The pooled units with the same content as ``u`` (and their caches), or ``u`` itself."""
    if not UNITS.scopes:
        return u
    # everything the cached partial results read: the five arrays, whole
    return UNITS.get(digest(u.x, u.size, u.counts, u.first, u.gdist), lambda: u)


@contextmanager
def reuse_units(maxsize: int = 16) -> Iterator[None]:
    """Share the work on identical tables between the chains run inside this block.

    Chains started from the same ``T0`` (other methods, deltas or lengths) hand their first
    participant the same equivalence classes; inside this block the partial results on a table
    (cut searches, PLSA splits, BUA groups, whole steps) are computed once and reused, by exact
    content. Results are identical to those without the block; only the time differs. The
    ``maxsize`` most recently used tables are kept, and everything is dropped on exit.

    Parameters
    ----------
    maxsize : int, default 16
        Number of distinct tables (units of a participant's input) whose results are kept.

    Yields
    ------
    None

    Examples
    --------
    The three methods' chains from one table share its first participant's work:

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [21, 23, 25, 27, 41, 43, 45, 47, 61, 63, 65, 67],
    ...     "zip": [10, 11, 10, 12, 20, 21, 20, 22, 30, 31, 30, 32],
    ...     "disease": ["flu", "flu", "cold", "flu", "cold", "cold",
    ...                 "flu", "cold", "hiv", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import METHODS, RelayChain, reuse_units
    >>> with reuse_units():
    ...     chains = {m: RelayChain(m, hops=2, delta=0.1, sensitive="disease").fit(table)
    ...               for m in METHODS}
    >>> {m: round(float(c.utility_loss_[-1]), 3) for m, c in chains.items()}
    {'bua': 0.999, 'tda': 0.263, 'fla': 0.1}
    """
    with UNITS.isolated(max(1, int(maxsize))):
        yield


# ---------------------------------------------------------------------------------------------------
# reading a table into units


def _sensitive_codes(table: pd.DataFrame, sensitive) -> tuple[np.ndarray, int]:
    col = table[sensitive]
    if col.isna().any():
        pos = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise ValueError(f"sensitive column {sensitive!r} has a missing value at row {pos}")
    if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
        finite = np.isfinite(col.to_numpy(dtype=np.float64))
        if not finite.all():
            pos = int(np.flatnonzero(~finite)[0])
            bad = float(col.iloc[pos])
            raise ValueError(
                f"sensitive column {sensitive!r} has a non-finite value {bad!r} at row {pos}"
            )
    elif col.dtype == object:
        kinds = sorted(
            {
                "number"
                if isinstance(v, numbers.Number) and not isinstance(v, bool)
                else type(v).__name__
                for v in pd.unique(col.to_numpy())
            }
        )
        if len(kinds) > 1:
            raise TypeError(
                f"sensitive column {sensitive!r} mixes value types {kinds}; give it one type "
                f"(e.g. .astype(str))"
            )
    codes, labels = pd.factorize(col, sort=True)
    return codes.astype(np.int64), len(labels)


def _qi_matrix(table: pd.DataFrame, qis: list) -> np.ndarray:
    values = table[qis].to_numpy(dtype=np.float64)
    if not np.isfinite(values).all():
        r, c = np.argwhere(~np.isfinite(values))[0]
        bad = float(values[r, c])
        raise ValueError(f"quasi-identifier {qis[c]!r} has a non-finite value {bad!r} at row {r}")
    return values


def _row_units(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit of each row (units numbered by first appearance) and the first row of each unit."""
    _, first, inverse = np.unique(values, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inverse], first[order]


def _build_units(values: np.ndarray, codes: np.ndarray, n_values: int, weights: np.ndarray):
    row_unit, first = _row_units(values)
    m = first.size
    size = np.bincount(row_unit, minlength=m).astype(np.float64)
    counts = np.zeros((m, n_values))
    np.add.at(counts, (row_unit, codes), 1.0)
    x = values[first] * np.sqrt(weights)
    gdist = counts.sum(axis=0) / counts.sum()
    return _Units(x=x, size=size, counts=counts, first=first, gdist=gdist), row_unit


def _prepare(table, sensitive, quasi_identifiers, weights):
    table = _check_table(table)
    qis = _check_columns(table, sensitive, quasi_identifiers)
    w = _check_weights(weights, len(qis))
    values = _qi_matrix(table, qis)
    codes, k = _sensitive_codes(table, sensitive)
    units, row_unit = _build_units(values, codes, k, w)
    return qis, w, values, units, row_unit
