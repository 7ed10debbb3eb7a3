"""Tables with increasing privacy along a multi-hop relay chain: BUA, PLSA, TDA, FLA.

Implements the relay-chain paper of Wei Chang and Jie Wu (privacy strengthened during propagation
on a mobile social network): a table ``T0`` travels along a social
chain ``v0 -> v1 -> ... -> vl``; participant ``v_{i-1}`` publishes ``T_i``, computed only from the
table it received, such that ``P(T_i) <= (l - i + 1) * delta`` (Sec. 2, problem formulation).

Definitions (Sec. 2 and Sec. 5)
-------------------------------
* Equivalence class: rows with identical quasi-identifier (QI) tuples.
* Privacy disclosure ``P(T) = max over classes JS(p(sensitive in T), p(sensitive in class))`` with
  the Jensen-Shannon divergence in bits (:func:`ppdp.infotheory.pairwise_js_divergence`).
* Merging cost: weighted squared Euclidean distance ``d(a, b) = sum_k w_k (a_k - b_k)^2`` with QI
  weights ``W`` (``w_k >= 0``, ``sum w_k = 1``, uniform by default). A class's QIs are replaced by the
  class mean (Sec. 5).
* Utility loss ``UL(T') = sum_t d(t', t) / sum_t d(t_bar, t)`` over rows, where ``t`` is the original
  value, ``t'`` the sanitized one and ``t_bar`` the value in the all-in-one-class table (Sec. 5): 0
  for the untouched table, 1 for the table merged into one class.

Algorithms
----------
* :func:`bua` - Algorithm 1 (bottom-up): basic groups holding every sensitive value once, a dominating
  sensitive value per group (quotas proportional to frequencies), the remaining tuples join the
  nearest group dominated by their value; then groups violating ``delta`` merge with the nearest
  group that lowers their disclosure until every class meets ``delta``; then PLSA.
* :func:`plsa` - Algorithm 2: split a class by halving each sensitive value's tuples (lower and
  upper half along the class's principal axis), so the halves keep the class's sensitive
  distribution; recurse while both halves meet the bound.
* :func:`tda` - Algorithm 3 (top-down): binary splits while both halves meet ``delta`` (phase I),
  then PLSA (phase II).
* :func:`fla` - Sec. 3.3 (forward looking): TDA phase I gives master classes; inside each master
  class the partition with the smaller loss among BUA and TDA phase II is kept (ties: TDA phase
  II). With a look-ahead
  threshold it also builds ``T1`` at the next hop's threshold, ``T2`` at the current one and ``T3``
  from ``T2`` at the next one, and publishes ``T1`` when ``2 U(T1) > U(T2) + U(T3)``.
* :class:`RelayChain` - the chain ``T_1, ..., T_l``.

Choices where the paper is silent or ambiguous
----------------------------------------------
* Relay view. A participant sees only the table it received: its units are that table's
  equivalence classes, which it can merge but never split (rows of one class are
  indistinguishable). Every output is therefore a coarsening of the input. Because class means
  are size-weighted, the loss that a participant measures on its own input differs from the loss
  against ``T0`` by a constant (parallel-axis theorem), so every comparison it makes (FLA's options
  and look-ahead) is the one it would make knowing ``T0``.
* An input table that already meets the threshold is forwarded unchanged (option I of Fig. 2); no
  coarsening can lose less.
* TDA phase I "creates clusters T1 and T2": we sort the units along the principal axis of the
  weighted QIs and along each QI axis, and take the cut with the smallest within-cluster loss among
  the cuts whose two halves both meet ``delta`` (all cuts evaluated at once with cumulative sums).
  If no cut qualifies, the set is an output class.
* BUA phase I: seeds are the tuples (units) carrying the rarest sensitive value, in row order; each
  seed takes the nearest free unit carrying each value it still lacks. Dominating values are
  handed out with quotas proportional to the value frequencies (largest remainder), greedily by the
  distance from a group's centroid to the nearest remaining unit of that value; each remaining unit
  joins the nearest group dominated by its (majority) value.
* PLSA's acceptance bound is ``min(delta, P)`` where ``P`` is the disclosure of the partition it
  receives, so PLSA never raises ``P(T)`` (Sec. 3.1: "keeping their privacy-level unchanged").
  Odd counts are rounded up and down alternately over the sensitive values.
* BUA phase II picks the violating group with the largest disclosure (ties: lowest index), scans
  the other groups by centroid distance and merges with the first whose union has a smaller
  disclosure; if none exists, with the one whose union discloses least (so the loop terminates).
* Ties are broken by row number (first row of a unit), so equal inputs give equal outputs
  (Theorem 2).
* Classes as published. Two classes of a partition can have the same mean, and then the published
  table shows them as one class (their rows are indistinguishable to a reader and to the next
  participant). Counts and labels of published tables (``RelayChain.labels_``, ``n_classes_``)
  are those of the published table; the merged class discloses no more than the worse of its
  parts (the JS divergence is convex), so the bound still holds.

Guarantee
---------
Every published table is measured before it leaves: :func:`sanitize` raises
:class:`ppdp.guarantees.GuaranteeViolation` if ``P`` of the table it is about to return exceeds
``delta``, and :class:`RelayChain` if any ``P(T_i)`` exceeds ``(l - i + 1) * delta``
(:meth:`RelayChain.guarantee_checks`).

Computation
-----------
The delta-independent parts of the algorithms (the candidate cuts of a set of units, PLSA's split
of a class, BUA's phase I) are computed once per table and reused for every threshold; whole
steps are cached by exact threshold, and BUA by the range of thresholds that decides all of its
comparisons alike. Within :func:`reuse_units` the tables of several chains are shared by content
(every chain from ``T0`` starts on the same table). None of this changes a result: the values are
the same to the last bit as those computed afresh.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections import Counter, deque
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree
from scipy.special import entr

from ppdp._validation import Interval, StrOptions, check_params, validate_hyperparameters
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.guarantees import CHECK_TOL, GuaranteeCheck, enforce
from ppdp.memo import Memo, digest

__all__ = [
    "METHODS",
    "RelayChain",
    "RelayWarning",
    "bua",
    "class_disclosure",
    "equivalence_classes",
    "fla",
    "generalize",
    "plsa",
    "privacy_disclosure",
    "reuse_units",
    "sanitize",
    "tda",
    "utility_loss",
]

#: Sanitization algorithms of the paper, by name.
METHODS = ("bua", "tda", "fla")

#: Slack on ``P <= delta`` comparisons (JS values are computed to about 1e-15); the same slack
#: as the release check, so every partition the algorithms accept passes it.
_TOL = CHECK_TOL


class RelayWarning(UserWarning):
    """A threshold could only be met by merging the whole table into one class.

    Emitted by :func:`bua`, :func:`tda`, :func:`fla`, :func:`sanitize` and :class:`RelayChain`;
    the all-in-one table discloses nothing (``P = 0``) and loses all utility (``UL = 1``).

    Parameters
    ----------
    *args
        The message, as for any warning.

    Examples
    --------
    No partition of this table but the whole table meets a threshold of ``1e-6`` bits:

    >>> import warnings
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [30, 30, 40, 40, 40, 50],
    ...     "disease": ["flu", "cold", "flu", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import RelayWarning, sanitize
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     out = sanitize(table, 1e-6, method="tda", sensitive="disease")
    >>> [str(w.message) for w in caught if w.category is RelayWarning]
    ['delta=1e-06 could only be met by merging the whole table into one class (the all-in-one ...)']
    >>> out["age"].nunique()
    1
    """


# ---------------------------------------------------------------------------------------------------
# validation


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
        if isinstance(quasi_identifiers, str) or not isinstance(quasi_identifiers, Sequence):
            raise TypeError(
                f"quasi_identifiers must be a list of column names or None; "
                f"got {quasi_identifiers!r}"
            )
        qis = list(quasi_identifiers)
        missing = [c for c in qis if c not in table.columns]
        if missing:
            raise ValueError(
                f"quasi_identifiers {missing} are not in the table; columns are "
                f"{list(table.columns)}"
            )
        if sensitive in qis:
            raise ValueError(
                f"the sensitive column {sensitive!r} cannot also be a quasi-identifier"
            )
        if len(set(qis)) != len(qis):
            raise ValueError(f"quasi_identifiers has duplicates: {qis}")
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


# ---------------------------------------------------------------------------------------------------
# units: the equivalence classes of the table a participant receives


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


# ---------------------------------------------------------------------------------------------------
# measures on units


_LN2 = math.log(2.0)

#: The normalized reference distribution and its entropy, per table distribution (by value).
REFERENCES = Memo(
    "mechanisms.relay.references",
    "a table's normalized sensitive distribution and its entropy, read-only, by the "
    "distribution's dtype, shape and bytes",
    maxsize=256,
    freeze=True,
)


def _reference(gdist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Q`` of :func:`_js_rows` normalized and its entropy, computed once per distribution."""

    def compute():
        q = gdist[None, :].astype(np.float64, copy=False)
        qn = q / q.sum(axis=1)[:, None]
        return qn, entr(qn).sum(axis=1) / _LN2

    # the whole content, as digest() would hold it, without its cost: a chain run looks up the
    # reference thousands of times, and its few bytes are cheaper to key on than to hash
    return REFERENCES.get((gdist.dtype.str, gdist.shape, gdist.tobytes()), compute)


def _js_rows(counts: np.ndarray, gdist: np.ndarray) -> np.ndarray:
    """JS divergence (bits) of each row of ``counts`` from the table's sensitive distribution.

    The arithmetic of :func:`ppdp.infotheory.pairwise_js_divergence` (``Q = gdist``), operation
    for operation and on arrays of the same shapes, so the values are the same to the last bit;
    it skips that function's input validation, which dominated the cost of the many small calls
    made here. Every row here is a non-empty class's (or half's) counts: finite, non-negative,
    with a positive total.
    """
    p = np.atleast_2d(counts).astype(np.float64, copy=False)
    qn, hq = _reference(gdist)
    pn = p / p.sum(axis=1)[:, None]
    hp = entr(pn).sum(axis=1) / _LN2
    hm = entr(0.5 * (pn[:, None, :] + qn[None, :, :])).sum(axis=2) / _LN2
    out = hm - 0.5 * (hp[:, None] + hq[None, :])
    np.clip(out, 0.0, 1.0, out=out)
    return out[:, 0]


def _class_counts(u: _Units, classes: list[np.ndarray]) -> np.ndarray:
    return np.stack([u.counts[c].sum(axis=0) for c in classes])


def _partition_disclosure(u: _Units, classes: list[np.ndarray]) -> float:
    return float(_js_rows(_class_counts(u, classes), u.gdist).max())


def _sse(u: _Units, idx: np.ndarray) -> float:
    """Loss (between-unit weighted squared deviation) of merging the units ``idx`` into one class."""
    if idx.size < 2:
        return 0.0
    n = u.size[idx]
    x = u.x[idx]
    mean = (n[:, None] * x).sum(axis=0) / n.sum()
    return float((n * ((x - mean) ** 2).sum(axis=1)).sum())


def _partition_sse(u: _Units, classes: list[np.ndarray]) -> float:
    # FLA weighs the same PLSA and BUA classes at several thresholds
    losses = _memo(u, "sse")
    total = 0
    for c in classes:
        key = _idx_key(c)
        if key not in losses:
            losses[key] = _sse(u, c)
        total += losses[key]
    return float(total)


def _principal_axis(u: _Units, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centered units of ``idx`` and the principal axis of their size-weighted scatter."""
    n = u.size[idx]
    x = u.x[idx]
    centered = x - (n[:, None] * x).sum(axis=0) / n.sum()
    cov = (centered * n[:, None]).T @ centered
    _, vecs = np.linalg.eigh(cov)
    axis = vecs[:, -1]
    pivot = int(np.argmax(np.abs(axis)))
    if axis[pivot] < 0:
        axis = -axis
    return centered, axis


def _principal_order(u: _Units, idx: np.ndarray) -> np.ndarray:
    """``idx`` sorted along the principal axis of its size-weighted units (ties: row number)."""
    orders = _memo(u, "order")
    key = _idx_key(idx)
    if key not in orders:
        centered, axis = _principal_axis(u, idx)
        orders[key] = idx[np.lexsort((u.first[idx], centered @ axis))]
    return orders[key]


# ---------------------------------------------------------------------------------------------------
# TDA phase I (Algorithm 3)


def _cut_frontier(u: _Units, idx: np.ndarray):
    """Every candidate cut of ``idx``, reduced to what any threshold can select.

    The loss of a cut and the disclosure of its halves do not depend on ``delta``; only which
    cuts qualify does. Candidates are sorted by loss (ties: flat position, i.e. principal axis
    first, then QI order, then the smaller left part, as :func:`numpy.argmin` breaks them); the
    cut chosen at ``delta`` is the first in that order whose worse half meets ``delta``. Only
    the candidates whose worse half discloses less than every cheaper one's can be chosen: the
    frontier.

    Returns
    -------
    levels : numpy.ndarray
        Worse-half disclosure of the frontier's cuts, strictly decreasing.
    cuts : list of (int, int)
        ``(axis, k)`` of each frontier cut: the left part is the first ``k + 1`` units along
        ``axis``.
    orders : dict
        ``idx`` sorted along each axis that a frontier cut uses.
    """
    centered, axis = _principal_axis(u, idx)
    spread = np.ptp(centered, axis=0) > 0
    projections = np.concatenate([(centered @ axis)[None, :], centered[:, spread].T])  # (A, m)
    # np.lexsort((first, proj)) for every axis at once: stable sorts compose, so sorting by row
    # number and then stably by the projection gives exactly lexsort's order
    by_first = np.argsort(u.first[idx], kind="stable")
    local = by_first[np.argsort(projections[:, by_first], axis=1, kind="stable")]  # (A, m)
    _memo(u, "order")[_idx_key(idx)] = idx[local[0]]
    size = u.size[idx]
    n = size[local]  # (A, m)
    # per-unit products gathered, rather than computed on the (A, m, d) gather: the same values
    nx = (size[:, None] * centered)[local]  # (A, m, d)
    sq = (size * (centered**2).sum(axis=1))[local]  # (A, m)
    c = u.counts[idx][local]  # (A, m, K)
    loss, js = _cut_costs(n, nx, sq, c, u.gdist)
    worst = np.maximum(js[0], js[1]).ravel()
    by_cost = np.argsort(loss.ravel(), kind="stable")
    running = np.minimum.accumulate(worst[by_cost])
    steps = np.flatnonzero(np.concatenate([[True], running[1:] < running[:-1]]))
    cuts = [divmod(int(f), loss.shape[1]) for f in by_cost[steps]]
    orders = {a: idx[local[a]] for a, _ in cuts}
    return running[steps], cuts, orders


def _cut_costs(n, nx, sq, c, gdist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Loss and disclosure of every cut along every axis, from cumulative sums.

    ``n``, ``nx``, ``sq``, ``c``: per axis, the units in cut order with their sizes, size-weighted
    centred QI vectors, size-weighted squared norms and sensitive counts, shapes ``(A, m)``,
    ``(A, m, d)``, ``(A, m)``, ``(A, m, K)``. Cut ``k`` puts the first ``k + 1`` units left.

    Returns
    -------
    loss : ndarray, shape (A, m - 1)
        Within-part sum of squared distances of both parts.
    js : ndarray, shape (2, A, m - 1)
        Disclosure of the left and the right part.
    """
    cn = np.cumsum(n, axis=1)[:, :-1]
    cs = np.cumsum(nx, axis=1)[:, :-1]
    cq = np.cumsum(sq, axis=1)[:, :-1]
    cc = np.cumsum(c, axis=1)[:, :-1]
    tn = n.sum(axis=1, keepdims=True)
    ts = nx.sum(axis=1, keepdims=True)
    tq = sq.sum(axis=1, keepdims=True)
    tc = c.sum(axis=1, keepdims=True)
    left = cq - (cs**2).sum(axis=2) / cn
    right = (tq - cq) - ((ts - cs) ** 2).sum(axis=2) / (tn - cn)
    halves = np.concatenate([cc.reshape(-1, cc.shape[2]), (tc - cc).reshape(-1, cc.shape[2])])
    js = _js_rows(halves, gdist).reshape(2, *cn.shape)
    return left + right, js


def _best_cut(u: _Units, idx: np.ndarray, delta: float):
    """Cheapest binary cut of ``idx`` whose two halves both meet ``delta``, or ``None``.

    Candidate cuts are the thresholds along the principal axis and along every weighted QI axis
    (all evaluated at once with cumulative sums); the one with the smallest within-cluster loss
    wins (ties: principal axis first, then QI order, then the smaller left part). The candidates
    of ``idx`` are computed once per units (:func:`_cut_frontier`); each ``delta`` then only
    picks among them.
    """
    if idx.size < 2:
        return None
    frontiers = _memo(u, "cut")
    key = _idx_key(idx)
    if key not in frontiers:
        frontiers[key] = _cut_frontier(u, idx)
    levels, cuts, orders = frontiers[key]
    hit = np.flatnonzero(levels <= delta + _TOL)
    if hit.size == 0:
        return None
    a, k = cuts[int(hit[0])]
    order = orders[a]
    return order[: k + 1], order[k + 1 :]


def _tda_phase1(u: _Units, idx: np.ndarray, delta: float) -> list[np.ndarray]:
    queue = deque([idx])
    out = []
    while queue:
        current = queue.popleft()
        cut = _best_cut(u, current, delta)
        if cut is None:
            out.append(current)
        else:
            queue.extend(cut)
    return out


# ---------------------------------------------------------------------------------------------------
# PLSA (Algorithm 2)


def _stratified_split(u: _Units, idx: np.ndarray):
    """Halve each sensitive value's tuples along the principal axis: lower halves vs upper halves."""
    if idx.size < 2:
        return None
    order = _principal_order(u, idx)
    counts = u.counts[order].astype(np.int64)
    total = counts.sum(axis=0)
    target = total // 2
    odd = np.flatnonzero(total % 2 == 1)
    target[odd[::2]] += 1  # alternate rounding up and down over the odd counts
    # a greedy scan in exact integers; Python ints beat per-row numpy calls for a few values
    goal = target.tolist()
    acc = [0] * len(goal)
    lower = np.zeros(order.size, dtype=bool)
    for pos, row in enumerate(counts.tolist()):
        if all(a + r <= g for a, r, g in zip(acc, row, goal, strict=True)):
            acc = [a + r for a, r in zip(acc, row, strict=True)]
            lower[pos] = True
    if lower.all() or not lower.any():
        return None
    return order[lower], order[~lower]


def _plsa_split(u: _Units, idx: np.ndarray):
    """:func:`_stratified_split` of ``idx`` and the disclosure of its halves (``None``: no split).

    Neither depends on the bound, so both are computed once per class and units.
    """
    splits = _memo(u, "split")
    key = _idx_key(idx)
    if key not in splits:
        split = _stratified_split(u, idx)
        if split is None:
            splits[key] = None
        else:
            p = _js_rows(np.stack([u.counts[s].sum(axis=0) for s in split]), u.gdist)
            splits[key] = (split, p)
    return splits[key]


def _plsa(
    u: _Units, classes: list[np.ndarray], bound: float, window: _Window | None = None
) -> list[np.ndarray]:
    """PLSA of ``classes``; ``window``: record the comparisons (``bound`` is then ``delta``)."""
    queue = deque(classes)
    out = []
    while queue:
        current = queue.popleft()
        found = _plsa_split(u, current)
        if found is not None:
            split, p = found
            t = bound + _TOL
            if (p <= t).all() if window is None else window.meets(p, t):
                queue.extend(split)
                continue
        out.append(current)
    return out


# ---------------------------------------------------------------------------------------------------
# BUA (Algorithm 1)


def _largest_remainder(total: int, freq: np.ndarray) -> np.ndarray:
    raw = total * freq
    quota = np.floor(raw).astype(np.int64)
    short = total - int(quota.sum())
    if short > 0:
        order = np.lexsort((np.arange(freq.size), -(raw - quota)))
        quota[order[:short]] += 1
    return quota


def _bua_groups(u: _Units, idx: np.ndarray) -> list[list[int]]:
    """Phase I: basic groups (every sensitive value once), dominating values, remaining tuples."""
    idx = idx[np.argsort(u.first[idx], kind="stable")]
    x = u.x[idx]
    c = u.counts[idx]
    has = c > 0
    present = c.sum(axis=0) > 0
    totals = np.where(present, c.sum(axis=0), np.inf)
    rare = int(np.argmin(totals))
    assigned = np.full(idx.size, -1)
    groups: list[list[int]] = []
    for s in np.flatnonzero(has[:, rare]):
        if assigned[s] >= 0:
            continue
        gid = len(groups)
        members = [int(s)]
        assigned[s] = gid
        cover = has[s].copy()
        while True:
            missing = np.flatnonzero(present & ~cover)
            if missing.size == 0:
                break
            a = missing[0]
            cand = np.flatnonzero(has[:, a] & (assigned < 0))
            if cand.size == 0:
                cover[a] = True  # no free tuple carries a: the group stays without it
                continue
            dist = ((x[cand] - x[s]) ** 2).sum(axis=1)
            j = int(cand[np.argmin(dist)])
            members.append(j)
            assigned[j] = gid
            cover |= has[j]
        groups.append(members)

    rest = np.flatnonzero(assigned < 0)
    if rest.size:
        n_groups = len(groups)
        size = np.array([u.size[idx[g]].sum() for g in groups])
        centroid = (
            np.stack([(u.size[idx[g], None] * x[g]).sum(axis=0) for g in groups]) / size[:, None]
        )
        major = np.argmax(c[rest], axis=1)
        freq = c.sum(axis=0) / c.sum()
        quota = _largest_remainder(n_groups, freq)
        k = c.shape[1]
        near = np.full((n_groups, k), np.inf)
        for a in range(k):
            members = rest[major == a]
            if members.size:
                near[:, a] = cKDTree(x[members]).query(centroid, k=1)[0] ** 2
        dominant = np.full(n_groups, -1)
        for flat in np.argsort(near.ravel(), kind="stable"):
            g, a = divmod(int(flat), k)
            if dominant[g] < 0 and quota[a] > 0:
                dominant[g] = a
                quota[a] -= 1
        for a in range(k):
            members = rest[major == a]
            if not members.size:
                continue
            pool = np.flatnonzero(dominant == a)
            if pool.size == 0:
                pool = np.arange(n_groups)
            _, nearest = cKDTree(centroid[pool]).query(x[members], k=1)
            for j, g in zip(members, pool[np.atleast_1d(nearest)], strict=True):
                groups[int(g)].append(int(j))
    return [sorted(idx[g].tolist(), key=lambda v: u.first[v]) for g in groups]


def _bua(u: _Units, idx: np.ndarray, delta: float) -> list[np.ndarray]:
    """BUA on the units ``idx`` (phase I, phase II, then PLSA).

    FLA runs BUA on the same master class at several thresholds, which mostly decide every
    comparison alike: a result is reused for each ``delta`` inside its :class:`_Window`.
    """
    runs = _memo(u, "bua").setdefault(_idx_key(idx), [])
    for window, result in runs:
        if window.contains(delta):
            return list(result)
    window = _Window()
    result = _bua_run(u, idx, delta, window)
    runs.append((window, result))
    return list(result)


def _bua_run(u: _Units, idx: np.ndarray, delta: float, window: _Window) -> list[np.ndarray]:
    # phase I does not depend on delta
    phase1 = _memo(u, "groups")
    key = _idx_key(idx)
    if key not in phase1:
        phase1[key] = _bua_groups(u, idx)
    groups = phase1[key]
    # Phase II: merge until every group meets delta
    members = [np.asarray(g) for g in groups]
    n_groups = len(members)
    gsize = np.array([u.size[g].sum() for g in members])
    gsum = np.stack([(u.size[g, None] * u.x[g]).sum(axis=0) for g in members])
    gcounts = np.stack([u.counts[g].sum(axis=0) for g in members])
    alive = np.ones(n_groups, dtype=bool)
    disc = _js_rows(gcounts, u.gdist)
    index = np.arange(n_groups)
    while True:
        violating = alive.copy()
        violating[alive] = window.exceed(disc[alive], delta + _TOL)
        if not violating.any():
            break
        i = int(np.flatnonzero(violating)[np.argmax(disc[violating])])
        others = np.flatnonzero(alive & (index != i))
        if others.size == 0:
            break
        centroid = gsum[others] / gsize[others, None]
        dist = ((centroid - gsum[i] / gsize[i]) ** 2).sum(axis=1)
        merged = _js_rows(gcounts[others] + gcounts[i], u.gdist)
        by_distance = np.lexsort((others, dist))
        better = merged[by_distance] < disc[i]
        if better.any():
            pick = int(by_distance[int(np.argmax(better))])
        else:
            pick = int(np.lexsort((others, dist, merged))[0])
        j = int(others[pick])
        gsize[i] += gsize[j]
        gsum[i] += gsum[j]
        gcounts[i] += gcounts[j]
        members[i] = np.concatenate([members[i], members[j]])
        alive[j] = False
        # the union's disclosure was just computed (counts are integers, so their sums are
        # exact in any order, and _js_rows treats each row alone)
        disc[i] = merged[pick]
    classes = [members[g] for g in np.flatnonzero(alive)]
    # _partition_disclosure(u, classes), whose class counts are the alive groups' counts
    disclosure = float(disc[alive].max())
    bound = window.bound(delta, disclosure)
    # PLSA compares against delta itself only when delta is the bound
    return _plsa(u, classes, bound, None if disclosure < delta else window)


# ---------------------------------------------------------------------------------------------------
# one participant's sanitization on units


def _canonical(u: _Units, classes: list[np.ndarray]) -> list[np.ndarray]:
    classes = [np.sort(c) for c in classes]
    return sorted(classes, key=lambda c: int(u.first[c].min()))


def _single(u: _Units, method: str, delta: float) -> list[np.ndarray]:
    """Partition of the units meeting ``delta`` by one algorithm, without look-ahead."""
    results = _memo(u, "single")
    key = (method, delta)
    if key not in results:
        results[key] = _partition(u, method, delta)
    return list(results[key])


def _masters(u: _Units, delta: float) -> list[np.ndarray]:
    """TDA phase I on all units: TDA's and FLA's master classes (computed once per delta)."""
    masters = _memo(u, "masters")
    if delta not in masters:
        masters[delta] = _tda_phase1(u, np.arange(u.m), delta)
    return masters[delta]


def _partition(u: _Units, method: str, delta: float) -> list[np.ndarray]:
    if float(_js_rows(u.counts, u.gdist).max()) <= delta + _TOL:
        return [np.array([i]) for i in np.arange(u.m)]
    if method == "bua":
        return _canonical(u, _bua(u, np.arange(u.m), delta))
    masters = _masters(u, delta)
    bound = min(delta, _partition_disclosure(u, masters))
    if method == "tda":
        return _canonical(u, _plsa(u, masters, bound))
    out = []
    for master in masters:
        split = _plsa(u, [master], bound)
        if master.size > 1:
            bottom_up = _bua(u, master, delta)
            if _partition_sse(u, bottom_up) < _partition_sse(u, split):
                split = bottom_up
        out.extend(split)
    return _canonical(u, out)


def _merge_units(u: _Units, classes: list[np.ndarray]) -> _Units:
    size = np.array([u.size[c].sum() for c in classes])
    x = np.stack([(u.size[c, None] * u.x[c]).sum(axis=0) for c in classes]) / size[:, None]
    counts = np.stack([u.counts[c].sum(axis=0) for c in classes])
    first = np.array([u.first[c].min() for c in classes])
    return _Units(x=x, size=size, counts=counts, first=first, gdist=u.gdist)


def _step(u: _Units, method: str, delta: float, next_delta: float | None) -> list[np.ndarray]:
    """One participant: ``method`` at ``delta``; FLA also looks one hop ahead to ``next_delta``."""
    steps = _memo(u, "step")
    key = (method, delta, next_delta)
    if key not in steps:
        steps[key] = _look_ahead(u, method, delta, next_delta)
    return list(steps[key])


def _look_ahead(u: _Units, method: str, delta: float, next_delta: float | None):
    """The uncached :func:`_step`."""
    current = _single(u, method, delta)
    if method != "fla" or next_delta is None:
        return current
    ahead = _single(u, "fla", next_delta)  # T1: meets the next hop's requirement already
    merged = _shared(_merge_units(u, current))  # T2 as the next participant would see it
    after = _single(merged, "fla", next_delta)  # T3 built from T2
    loss_ahead = _partition_sse(u, ahead)
    loss_current = _partition_sse(u, current)
    loss_after = loss_current + _partition_sse(merged, after)
    # 2 U(T1) > U(T2) + U(T3)  <=>  2 L(T1) < L(T2) + L(T3), U = 1 - L on a common scale
    if 2.0 * loss_ahead < loss_current + loss_after:
        return ahead
    return current


def _row_labels(u: _Units, row_unit: np.ndarray, classes: list[np.ndarray]) -> np.ndarray:
    unit_label = np.empty(u.m, dtype=np.int64)
    for label, c in enumerate(_canonical(u, classes)):
        unit_label[c] = label
    return unit_label[row_unit]


def _warn_if_all_in_one(
    u: _Units, classes: list[np.ndarray], delta: float, stacklevel: int = 3
) -> None:
    if u.m > 1 and len(classes) == 1:
        warnings.warn(
            f"delta={delta:g} could only be met by merging the whole table into one class "
            f"(the all-in-one table, P = 0)",
            RelayWarning,
            stacklevel=stacklevel,
        )


# ---------------------------------------------------------------------------------------------------
# public functions


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


def _unit_labels(
    units: _Units,
    row_unit: np.ndarray,
    method: str,
    delta: float,
    next_delta: float | None,
    *,
    warn: bool,
    stacklevel: int,
) -> np.ndarray:
    """Class label per row of one participant's step on the units of its table.

    ``stacklevel`` is that of the :class:`RelayWarning` as seen from the caller of this function.
    """
    units = _shared(units)
    classes = _step(units, method, delta, next_delta)
    if warn:
        _warn_if_all_in_one(units, classes, delta, stacklevel=stacklevel + 1)
    return _row_labels(units, row_unit, classes)


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


def _chain_checks(
    tables: list[pd.DataFrame], thresholds: np.ndarray, sensitive, qis, privacy=None
) -> tuple[list[GuaranteeCheck], np.ndarray]:
    """The worst ``P(T_i) - (l - i + 1) delta`` of the chain as one check, and every ``P(T_i)``.

    ``privacy``: the ``P(T_i)`` already measured on ``tables`` (by default they are measured).
    """
    if privacy is None:
        privacy = [privacy_disclosure(t, sensitive, qis) for t in tables]
    privacy = np.array(privacy)
    i = int(np.argmax(privacy - thresholds))
    check = GuaranteeCheck(
        mechanism="RelayChain",
        guarantee="P(T_i) <= (l - i + 1) * delta",
        declared=float(thresholds[i]),
        measured=float(privacy[i]),
        sense="at_most",
        where=f"T_{i + 1}",
    )
    return [check], privacy


_FITTED = ("qis_", "tables_", "labels_", "thresholds_", "privacy_", "utility_loss_", "n_classes_")


class RelayChain(Mechanism):
    """Tables ``T_1, ..., T_l`` along a relay chain with ``P(T_i) <= (l - i + 1) * delta``.

    Each ``T_i`` is computed by :func:`sanitize` from ``T_{i-1}`` alone, with FLA's look-ahead to
    ``(l - i) * delta`` (none at the last hop).

    Parameters
    ----------
    method : {"bua", "tda", "fla"}
    hops : int >= 1
        Chain length ``l``.
    delta : float in (0, 1]
        Threshold step (bits); the last table meets ``delta``, the first ``l * delta``.
    sensitive : column label
    quasi_identifiers : list, optional
    weights : array_like, optional
        QI weights, ``>= 0`` and summing to 1 (uniform by default).
    progress : bool, default False
        Show a progress bar over hops.

    Attributes
    ----------
    tables_ : list of pandas.DataFrame
        ``T_1, ..., T_l``.
    labels_ : list of numpy.ndarray
        Class label per row of each table: its equivalence classes as published (rows with
        identical published QI tuples share a label, numbered by first row).
    thresholds_ : numpy.ndarray
        ``(l - i + 1) * delta`` for ``i = 1..l``.
    privacy_ : numpy.ndarray
        ``P(T_i)``.
    utility_loss_ : numpy.ndarray
        ``UL(T_i)`` against ``T0``.
    n_classes_ : numpy.ndarray
        Number of equivalence classes of each published table (distinct published QI tuples; two
        classes of a partition with equal means count once).

    Raises
    ------
    ppdp.guarantees.GuaranteeViolation
        From :meth:`fit` if a table would break ``P(T_i) <= (l - i + 1) * delta``; no table is
        exposed then.

    Examples
    --------
    Two hops at ``delta = 0.1``: TDA publishes the three age bands (0.2 bits) and the next
    participant must then merge two of them; FLA looks ahead and publishes a finer table that
    already meets 0.1, losing less at the last hop:

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "age": [21, 23, 25, 27, 41, 43, 45, 47, 61, 63, 65, 67],
    ...     "zip": [10, 11, 10, 12, 20, 21, 20, 22, 30, 31, 30, 32],
    ...     "disease": ["flu", "flu", "cold", "flu", "cold", "cold",
    ...                 "flu", "cold", "hiv", "flu", "cold", "hiv"],
    ... })
    >>> from ppdp.mechanisms.relay import RelayChain
    >>> top_down = RelayChain("tda", hops=2, delta=0.1, sensitive="disease").fit(table)
    >>> top_down.thresholds_, top_down.privacy_.round(3), top_down.utility_loss_.round(3)
    (array([0.2, 0.1]), array([0.133, 0.093]), array([0.017, 0.263]))
    >>> ahead = RelayChain("fla", hops=2, delta=0.1, sensitive="disease").fit(table)
    >>> ahead.privacy_.round(3), ahead.utility_loss_.round(3), ahead.n_classes_
    (array([0.093, 0.093]), array([0.1, 0.1]), array([5, 5]))
    >>> ahead.release(hop=2)[["age", "zip"]].drop_duplicates().shape
    (5, 2)
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "increasing privacy along the chain (Sec. 2): the privacy disclosure P(T_i) of the"
        " ``i``-th table is at most ``(l - i + 1) * delta``."
    )
    #: Quasi-identifiers are released as class means (floats), whatever their input dtype.
    recast_columns: ClassVar[tuple[str, ...]] = ("qis_",)

    _parameter_constraints: ClassVar[dict] = {
        "method": [StrOptions(METHODS)],
        "hops": [Interval(Integral, 1, None, closed="left")],
        "delta": _CHAIN_DELTA,
    }

    def __init__(
        self,
        method: str = "fla",
        hops: int = 3,
        delta: float = 0.05,
        *,
        sensitive="label",
        quasi_identifiers=None,
        weights=None,
        progress: bool = False,
    ):
        self.method = method
        self.hops = hops
        self.delta = delta
        self.sensitive = sensitive
        self.quasi_identifiers = quasi_identifiers
        self.weights = weights
        self.progress = progress

    def fit(self, table: pd.DataFrame) -> RelayChain:
        """Run the chain from ``T0 = table``."""
        # a failed fit must not leave an earlier chain's tables looking like this one's
        for name in _FITTED:
            self.__dict__.pop(name, None)
        # the method in any case, as the constructor accepts it
        method = _check_method(self.method, type(self).__name__)
        validate_hyperparameters(self, {"method": method, "hops": self.hops, "delta": self.delta})
        table = _check_table(table)
        qis = _check_columns(table, self.sensitive, self.quasi_identifiers)
        w = _check_weights(self.weights, len(qis))
        if len(table) > 1 and float(_qi_matrix(table, qis).var(axis=0).sum()) == 0:
            raise ValueError("all QI tuples of the table are equal; there is nothing to sanitize")
        length, delta = int(self.hops), float(self.delta)
        self.thresholds_ = np.array([(length - i + 1) * delta for i in range(1, length + 1)])
        steps = range(1, length + 1)
        if self.progress:
            from tqdm.auto import tqdm

            steps = tqdm(steps, desc=f"{method} chain", leave=False)
        # Each table is read (QI matrix, equivalence classes) once: as the next participant's
        # input and for its measures, which are those of privacy_disclosure, equivalence_classes
        # and utility_loss on the published table (class counts do not depend on the weights).
        caller = type(self).__name__
        current = table
        codes = n_values = original = None
        tables, measured = [], []
        for i in steps:
            nxt = (length - i) * delta if i < length else None
            threshold, nxt = _check_thresholds(self.thresholds_[i - 1], nxt, caller)
            values = _qi_matrix(current, qis)
            if codes is None:
                codes, n_values = _sensitive_codes(table, self.sensitive)
                original = values
            units, row_unit = _build_units(values, codes, n_values, w)
            if tables:
                measured.append((units, row_unit, values))
            label = _unit_labels(units, row_unit, method, threshold, nxt, warn=True, stacklevel=2)
            current = generalize(current, label, sensitive=self.sensitive, quasi_identifiers=qis)
            tables.append(current)
        values = _qi_matrix(current, qis)
        measured.append((*_build_units(values, codes, n_values, w), values))
        privacy = [float(_js_rows(u.counts, u.gdist).max()) for u, _, _ in measured]
        checks, privacy = _chain_checks(tables, self.thresholds_, self.sensitive, qis, privacy)
        enforce(checks)
        self.qis_ = qis
        self.tables_ = tables
        self.labels_ = [row_unit for _, row_unit, _ in measured]
        self.privacy_ = privacy
        self.utility_loss_ = np.array([_utility_loss(original, b, w) for _, _, b in measured])
        self.n_classes_ = np.array([int(lab.max()) + 1 for lab in self.labels_])
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """``P(T_i) <= (l - i + 1) * delta`` measured on every table of the fitted chain.

        One check: the table with the least slack (largest ``P(T_i) - (l - i + 1) delta``), its
        threshold as ``declared`` and ``where = "T_i"``.
        """
        check_fitted(self, "tables_")
        return _chain_checks(self.tables_, self.thresholds_, self.sensitive, self.qis_)[0]

    def release(self, random_state: Any = None, *, hop: int = 1) -> pd.DataFrame:
        """The table ``T_hop`` published to the ``hop``-th recipient of the chain.

        Participant ``v_{hop-1}`` publishes ``T_hop`` to ``v_hop``, computed from ``T_{hop-1}``
        alone; its QIs are class means and ``P(T_hop) <= (l - hop + 1) * delta`` (Sec. 2), so
        privacy increases (the bound decreases) with ``hop``: ``hop=1`` is the first and least
        generalized table, ``hop=hops`` the last, meeting ``delta``.

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            Validated (:func:`ppdp.base.check_random_state`) and otherwise unused: BUA, TDA and
            FLA are deterministic (Theorem 2), so every ``random_state`` gives the same table and
            a Generator is not advanced.
        hop : int in ``1..hops``
            Which table of the chain, ``tables_[hop - 1]``.

        Returns
        -------
        DataFrame
            A copy of ``tables_[hop - 1]``: the fitted table's columns in their order, with its
            index and row order; QIs replaced by their class means (float), the sensitive and
            other columns unchanged.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        TypeError, ValueError
            If ``hop`` is not an integer in ``1..hops``.
        GuaranteeViolation
            If a table of the chain breaks ``P(T_i) <= (l - i + 1) * delta``
            (:meth:`guarantee_checks`); nothing is released.
        """
        check_fitted(self, list(_FITTED))
        check_random_state(random_state)
        hops = len(self.tables_)
        check_params(
            {"hop": hop},
            {"hop": [Interval(Integral, 1, hops, closed="both")]},
            "RelayChain.release",
        )
        enforce(self.guarantee_checks())
        return self.tables_[int(hop) - 1].copy()
