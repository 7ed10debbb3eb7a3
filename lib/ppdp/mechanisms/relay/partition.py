"""One participant's step on the units of its table: BUA, TDA or FLA, and FLA's look-ahead.

The partition of the units meeting ``delta`` by one method (an input that already meets it is
forwarded unchanged), FLA's choice inside each master class between BUA and TDA phase II and its
look-ahead to the next hop's threshold (Sec. 3.3), and the class label of each row. Steps are
cached by exact threshold. :class:`RelayWarning` is emitted when only the all-in-one table meets
``delta``.
"""

from __future__ import annotations

import warnings

import numpy as np

from .bottom_up import _bua
from .level_split import _plsa
from .measures import _js_rows, _partition_disclosure, _partition_sse
from .top_down import _tda_phase1
from .units import _TOL, _memo, _shared, _Units


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
