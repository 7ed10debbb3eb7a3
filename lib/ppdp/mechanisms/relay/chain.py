"""The relay chain: tables ``T_1, ..., T_l`` with ``P(T_i) <= (l - i + 1) * delta`` (Sec. 2)."""

from __future__ import annotations

import logging
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, check_params, validate_hyperparameters
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce

from .checks import (
    _CHAIN_DELTA,
    METHODS,
    _check_columns,
    _check_method,
    _check_table,
    _check_thresholds,
    _check_weights,
)
from .measures import _js_rows
from .metrics import _utility_loss, privacy_disclosure
from .partition import _unit_labels
from .sanitization import generalize
from .units import _build_units, _qi_matrix, _sensitive_codes

#: The module's logger (silent unless the application configures ``ppdp``'s).
logger = logging.getLogger(__name__)


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
    #: BUA, TDA and FLA are deterministic (Theorem 2); every release of a hop is the same table.
    repetition: ClassVar[str] = "deterministic"
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
        logger.info(
            "relay chain (%s): %d hops, classes per hop %s, privacy disclosure %s",
            self.method,
            len(tables),
            self.n_classes_.tolist(),
            np.round(np.asarray(privacy, dtype=float), 4).tolist(),
        )
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
