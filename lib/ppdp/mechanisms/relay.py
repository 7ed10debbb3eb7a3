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
"""

from __future__ import annotations

import numbers
import warnings
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from ppdp.base import ReleaseMixin, check_fitted, check_random_state
from ppdp.guarantees import CHECK_TOL, GuaranteeCheck, enforce
from ppdp.infotheory import pairwise_js_divergence
from ppdp.mechanisms._validation import Interval, StrOptions, check_params, validate_hyperparameters

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
    """A threshold could only be met by merging the whole table into one class."""


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

    @property
    def m(self) -> int:
        return self.x.shape[0]


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


def _js_rows(counts: np.ndarray, gdist: np.ndarray) -> np.ndarray:
    """JS divergence (bits) of each row of ``counts`` from the table's sensitive distribution."""
    counts = np.atleast_2d(counts)
    return pairwise_js_divergence(counts, gdist[None, :])[:, 0]


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
    return float(sum(_sse(u, c) for c in classes))


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
    centered, axis = _principal_axis(u, idx)
    return idx[np.lexsort((u.first[idx], centered @ axis))]


# ---------------------------------------------------------------------------------------------------
# TDA phase I (Algorithm 3)


def _best_cut(u: _Units, idx: np.ndarray, delta: float):
    """Cheapest binary cut of ``idx`` whose two halves both meet ``delta``, or ``None``.

    Candidate cuts are the thresholds along the principal axis and along every weighted QI axis
    (all evaluated at once with cumulative sums); the one with the smallest within-cluster loss
    wins (ties: principal axis first, then QI order, then the smaller left part).
    """
    if idx.size < 2:
        return None
    centered, axis = _principal_axis(u, idx)
    projections = [centered @ axis]
    projections += [centered[:, k] for k in range(centered.shape[1]) if np.ptp(centered[:, k]) > 0]
    local = np.stack([np.lexsort((u.first[idx], proj)) for proj in projections])  # (A, m)
    n = u.size[idx][local]  # (A, m)
    x = centered[local]  # (A, m, d)
    c = u.counts[idx][local]  # (A, m, K)
    nx = n[..., None] * x
    sq = n * (x**2).sum(axis=2)
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
    js = _js_rows(halves, u.gdist).reshape(2, *cn.shape)
    ok = (js <= delta + _TOL).all(axis=0)
    if not ok.any():
        return None
    cost = np.where(ok, left + right, np.inf)
    a, k = np.unravel_index(int(np.argmin(cost)), cost.shape)
    order = idx[local[a]]
    return order[: k + 1], order[k + 1 :]


def _tda_phase1(u: _Units, idx: np.ndarray, delta: float) -> list[np.ndarray]:
    queue = [idx]
    out = []
    while queue:
        current = queue.pop(0)
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
    acc = np.zeros_like(total)
    lower = np.zeros(order.size, dtype=bool)
    for pos, row in enumerate(counts):
        if np.all(acc + row <= target):
            acc += row
            lower[pos] = True
    if lower.all() or not lower.any():
        return None
    return order[lower], order[~lower]


def _plsa(u: _Units, classes: list[np.ndarray], bound: float) -> list[np.ndarray]:
    queue = list(classes)
    out = []
    while queue:
        current = queue.pop(0)
        split = _stratified_split(u, current)
        if split is not None:
            p = _js_rows(np.stack([u.counts[s].sum(axis=0) for s in split]), u.gdist)
            if (p <= bound + _TOL).all():
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
    groups = _bua_groups(u, idx)
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
        violating = alive & (disc > delta + _TOL)
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
            j = int(others[by_distance[int(np.argmax(better))]])
        else:
            j = int(others[np.lexsort((others, dist, merged))[0]])
        gsize[i] += gsize[j]
        gsum[i] += gsum[j]
        gcounts[i] += gcounts[j]
        members[i] = np.concatenate([members[i], members[j]])
        alive[j] = False
        disc[i] = _js_rows(gcounts[i], u.gdist)[0]
    classes = [members[g] for g in np.flatnonzero(alive)]
    bound = min(delta, _partition_disclosure(u, classes))
    return _plsa(u, classes, bound)


# ---------------------------------------------------------------------------------------------------
# one participant's sanitization on units


def _canonical(u: _Units, classes: list[np.ndarray]) -> list[np.ndarray]:
    classes = [np.sort(c) for c in classes]
    return sorted(classes, key=lambda c: int(u.first[c].min()))


def _single(u: _Units, method: str, delta: float) -> list[np.ndarray]:
    """Partition of the units meeting ``delta`` by one algorithm, without look-ahead."""
    every = np.arange(u.m)
    singletons = [np.array([i]) for i in every]
    if float(_js_rows(u.counts, u.gdist).max()) <= delta + _TOL:
        return singletons
    if method == "bua":
        return _canonical(u, _bua(u, every, delta))
    masters = _tda_phase1(u, every, delta)
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
    current = _single(u, method, delta)
    if method != "fla" or next_delta is None:
        return current
    ahead = _single(u, "fla", next_delta)  # T1: meets the next hop's requirement already
    merged = _merge_units(u, current)  # T2 as the next participant would see it
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


def _warn_if_all_in_one(u: _Units, classes: list[np.ndarray], delta: float) -> None:
    if u.m > 1 and len(classes) == 1:
        warnings.warn(
            f"delta={delta:g} could only be met by merging the whole table into one class "
            f"(the all-in-one table, P = 0)",
            RelayWarning,
            stacklevel=3,
        )


# ---------------------------------------------------------------------------------------------------
# public functions


def equivalence_classes(table: pd.DataFrame, sensitive, quasi_identifiers=None) -> np.ndarray:
    """Class label of each row: rows with identical QI tuples share a label.

    Labels are ``0, 1, ...`` in order of each class's first row.
    """
    table = _check_table(table)
    qis = _check_columns(table, sensitive, quasi_identifiers)
    return _row_units(_qi_matrix(table, qis))[0]


def class_disclosure(table: pd.DataFrame, sensitive, quasi_identifiers=None) -> np.ndarray:
    """``JS(p(sensitive in T), p(sensitive in class))`` (bits) of each equivalence class.

    Classes are ordered as in :func:`equivalence_classes`.
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

    Raises
    ------
    ValueError
        If the tables differ in shape, columns or index, or all original QI tuples are equal (the
        loss is then undefined).
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
    a = _qi_matrix(original, qis)
    b = _qi_matrix(sanitized, qis)
    denom = float(((a - a.mean(axis=0)) ** 2 @ w).sum())
    if denom <= 0:
        raise ValueError(
            "all original QI tuples are equal (under the weights); utility loss is undefined"
        )
    return float(((b - a) ** 2 @ w).sum() / denom)


def generalize(table: pd.DataFrame, labels, *, sensitive, quasi_identifiers=None) -> pd.DataFrame:
    """Replace each class's QI values by the class mean (Sec. 5); other columns are kept."""
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
    delta = _check_delta(delta, caller)
    if next_delta is not None:
        next_delta = _check_delta(next_delta, caller, "next_delta")
        if next_delta > delta:
            raise ValueError(
                f"next_delta must not exceed delta (privacy only strengthens along the chain); "
                f"got next_delta={next_delta!r} > delta={delta!r}"
            )
    _, _, _, units, row_unit = _prepare(table, sensitive, quasi_identifiers, weights)
    classes = _step(units, method, delta, next_delta)
    if warn:
        _warn_if_all_in_one(units, classes, delta)
    return _row_labels(units, row_unit, classes)


def bua(table, delta, *, sensitive, quasi_identifiers=None, weights=None) -> np.ndarray:
    """Bottom-up approach (Algorithm 1, then PLSA): class label per row meeting ``delta``."""
    return _labels(table, delta, "bua", sensitive, quasi_identifiers, weights, None, caller="bua")


def tda(table, delta, *, sensitive, quasi_identifiers=None, weights=None) -> np.ndarray:
    """Top-down approach (Algorithm 3: binary splits, then PLSA): class label per row."""
    return _labels(table, delta, "tda", sensitive, quasi_identifiers, weights, None, caller="tda")


def fla(
    table, delta, *, sensitive, quasi_identifiers=None, weights=None, next_delta=None
) -> np.ndarray:
    """Forward-looking approach (Sec. 3.3): class label per row meeting ``delta``.

    With ``next_delta`` (the next hop's threshold, ``<= delta``) the result is the table meeting
    ``next_delta`` when ``2 U(T1) > U(T2) + U(T3)``, otherwise the one meeting ``delta``.
    """
    return _labels(
        table, delta, "fla", sensitive, quasi_identifiers, weights, next_delta, caller="fla"
    )


def plsa(table, labels, delta, *, sensitive, quasi_identifiers=None, weights=None) -> np.ndarray:
    """Privacy-level-preserving split (Algorithm 2) of the classes given by ``labels``.

    Each class is split while both halves disclose at most ``min(delta, P)``, ``P`` being the
    disclosure of the partition ``labels``; hence the result never discloses more than the input.
    ``labels`` must not separate rows with identical QI tuples.
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

    Raises
    ------
    ppdp.guarantees.GuaranteeViolation
        If ``P`` of the table about to be returned exceeds ``delta`` (nothing is returned).
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
    tables: list[pd.DataFrame], thresholds: np.ndarray, sensitive, qis
) -> tuple[list[GuaranteeCheck], np.ndarray]:
    """The worst ``P(T_i) - (l - i + 1) delta`` of the chain as one check, and every ``P(T_i)``."""
    privacy = np.array([privacy_disclosure(t, sensitive, qis) for t in tables])
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


class RelayChain(ReleaseMixin):
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
    """

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
        self.method = _check_method(method, type(self).__name__)
        validate_hyperparameters(self, {"hops": hops, "delta": delta})
        self.hops = int(hops)
        self.delta = float(delta)
        self.sensitive = sensitive
        self.quasi_identifiers = quasi_identifiers
        self.weights = weights
        self.progress = bool(progress)

    def fit(self, table: pd.DataFrame) -> RelayChain:
        """Run the chain from ``T0 = table``."""
        # a failed fit must not leave an earlier chain's tables looking like this one's
        for name in _FITTED:
            self.__dict__.pop(name, None)
        validate_hyperparameters(self)
        table = _check_table(table)
        qis = _check_columns(table, self.sensitive, self.quasi_identifiers)
        _check_weights(self.weights, len(qis))
        if len(table) > 1 and float(_qi_matrix(table, qis).var(axis=0).sum()) == 0:
            raise ValueError("all QI tuples of the table are equal; there is nothing to sanitize")
        length, delta = self.hops, self.delta
        self.thresholds_ = np.array([(length - i + 1) * delta for i in range(1, length + 1)])
        steps = range(1, length + 1)
        if self.progress:
            from tqdm.auto import tqdm

            steps = tqdm(steps, desc=f"{self.method} chain", leave=False)
        current = table
        tables = []
        for i in steps:
            nxt = (length - i) * delta if i < length else None
            label = _labels(
                current,
                self.thresholds_[i - 1],
                self.method,
                self.sensitive,
                qis,
                self.weights,
                nxt,
                caller=type(self).__name__,
            )
            current = generalize(current, label, sensitive=self.sensitive, quasi_identifiers=qis)
            tables.append(current)
        checks, privacy = _chain_checks(tables, self.thresholds_, self.sensitive, qis)
        enforce(checks)
        self.qis_ = qis
        self.tables_ = tables
        self.labels_ = [equivalence_classes(t, self.sensitive, qis) for t in tables]
        self.privacy_ = privacy
        self.utility_loss_ = np.array(
            [
                utility_loss(
                    table, t, sensitive=self.sensitive, quasi_identifiers=qis, weights=self.weights
                )
                for t in tables
            ]
        )
        self.n_classes_ = np.array([int(lab.max()) + 1 for lab in self.labels_])
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """``P(T_i) <= (l - i + 1) * delta`` measured on every table of the fitted chain.

        One check: the table with the least slack (largest ``P(T_i) - (l - i + 1) delta``), its
        threshold as ``declared`` and ``where = "T_i"``.
        """
        if not hasattr(self, "tables_"):
            raise ValueError("this RelayChain is not fitted yet; call fit(table) first")
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
