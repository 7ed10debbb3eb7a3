"""The exponential mechanism ``p(b^ | b) ~ exp(-beta d(b, b^))`` (McSherry and Talwar; Sec. 4.2)."""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np

from ppdp import infotheory
from ppdp._validation import Interval, validate_hyperparameters
from ppdp.base import ArrayMechanism, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce
from ppdp.mechanisms.exponential import exponential_epsilon, exponential_weights

from .distortion import Distortion, as_distortion
from .problem import DELTA, budget_check, min_feasible_budget, validate_problem
from .release import sample_release


def _gibbs_block(dist: Distortion, rows, beta):
    d = dist.block(rows)
    return exponential_weights(d, beta), d


def _check_beta_or_delta(beta, delta) -> None:
    if (beta is None) == (delta is None):
        raise ValueError(
            f"give exactly one of beta and delta; got beta={beta!r} and delta={delta!r}"
        )


class ExponentialMechanism(ArrayMechanism):
    """Exponential mechanism ``p(b^ | b) ~ exp(-beta d(b, b^))`` (McSherry and Talwar; Sec. 4.2).

    It is ``epsilon = 2 beta d_max`` locally differentially private. Give either ``beta`` or a
    distortion budget ``delta``; with ``delta``, ``beta`` is the smallest value whose expected
    distortion is at most ``delta`` (found by bisection, the expected distortion being
    non-increasing in ``beta``), so that the mechanism is compared with SPPM at equal budget.

    Parameters
    ----------
    beta : float >= 0, optional
        Inverse temperature of the mechanism.
    delta : float >= 0, optional
        Distortion budget; ``beta`` is then solved for (see above).
    rtol : float in (0, 1), default 1e-10
        Relative tolerance of the bisection on ``beta``.

    Attributes
    ----------
    beta_, epsilon_, d_max_ : float
    mapping_ : ndarray of shape (|B|, |B^|)
        Row ``b`` is ``p(. | b)`` (not set by ``fit(..., mapping=False)``).
    leakage_, distortion_ : float
    n_releases_ : int
        Releases since the last ``fit`` (``release``, :class:`~ppdp.base.ReleaseLedger`).

    Raises
    ------
    ValueError
        From ``fit`` (the constructor stores its arguments as given and checks nothing): if
        both or neither of ``beta`` and ``delta`` are given, a parameter is out of range (an
        ``InvalidParameterError``, also a ``TypeError``, naming it), or no finite ``beta`` meets
        ``delta``.

    Examples
    --------
    On the synthetic problem of :class:`SPPM`'s example (eight points, a budget of 1), the
    exponential mechanism leaks twice as much as the optimum (0.314 bits):

    >>> from ppdp.mechanisms.sppm import ExponentialMechanism, synthetic_problem
    >>> p, d = synthetic_problem(3)
    >>> mech = ExponentialMechanism(delta=1.0).fit(p, d)
    >>> round(mech.beta_, 3), round(mech.epsilon_, 3), round(mech.leakage_, 3)
    (0.429, 42.022, 0.657)
    >>> round(mech.distortion_, 6)
    1.0

    With ``beta`` alone no budget is declared:

    >>> mech = ExponentialMechanism(beta=1.0).fit(p, d)
    >>> mech.epsilon_, round(mech.distortion_, 3), mech.guarantee_checks()
    (98.0, 0.445, [])

    A release draws ``b^ ~ p(. | b)`` for each profile index:

    >>> mech.release([0, 3, 4, 7], random_state=0)
    array([0, 3, 3, 6])
    """

    #: With ``delta``, every release is checked against the budget on the mapping it draws
    #: from; with ``beta`` alone the mechanism declares no budget (its epsilon follows from beta).
    guarantee: ClassVar[str] = (
        "with ``delta``, the distortion budget E[d(B, B^)] at most ``delta`` (Eq. 2) of the "
        "mapping every release draws from; none declared with ``beta`` alone, whose "
        "epsilon = 2 beta d_max local differential privacy holds by construction."
    )

    #: Each release draws b^ again for the same profiles; an attacker holding several releases
    #: of one person's profile sees several independent draws (their local epsilons add up),
    #: while the budget and the leakage are those of one draw.
    repetition: ClassVar[str] = "leaks"

    _parameter_constraints: ClassVar[dict] = {
        "beta": [Interval(Real, 0, None, closed="left"), None],
        "delta": [*DELTA, None],
        "rtol": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(self, *, beta=None, delta=None, rtol: float = 1e-10):
        self.beta = beta
        self.delta = delta
        self.rtol = rtol

    @staticmethod
    def expected_distortion_at(p_ab, distortion, beta) -> float:
        """Expected distortion of the mechanism with parameter ``beta`` (chunked, no n^2 array)."""
        dist = as_distortion(distortion)
        p_b = np.asarray(p_ab, dtype=float).sum(axis=0)
        total = 0.0
        for rows in dist.chunks():
            w, d = _gibbs_block(dist, rows, beta)
            total += float(p_b[rows] @ (w * d).sum(axis=1))
        return total

    def fit(self, p_ab, distortion, *, mapping: bool = True):
        """Set ``beta`` (solved for ``delta`` when given) and the mapping; returns ``self``.

        Parameters
        ----------
        p_ab, distortion
            The problem (see :func:`~ppdp.mechanisms.sppm.validate_problem`).
        mapping : bool, default True
            Whether to build ``mapping_`` (``|B| x |B^|``, needed by :meth:`release`); without
            it the leakage is computed block by block from the joint alone.
        """
        _check_beta_or_delta(self.beta, self.delta)
        validate_hyperparameters(self)
        p, dist, delta = validate_problem(p_ab, distortion, self.delta)
        beta = self.beta
        if beta is None:
            beta = self._solve_beta(p, dist, delta, float(self.rtol))
        self.beta_ = float(beta)
        self.d_max_ = dist.max()
        self.epsilon_ = exponential_epsilon(self.beta_, self.d_max_)
        self.distortion_ = self.expected_distortion_at(p, dist, self.beta_)
        if mapping:
            self.mapping_ = np.vstack(
                [_gibbs_block(dist, rows, self.beta_)[0] for rows in dist.chunks()]
            )
            self.leakage_ = float(infotheory.leakage(p, self.mapping_))
        else:
            joint = np.zeros((p.shape[0], dist.shape[1]))
            for rows in dist.chunks():
                joint += p[:, rows] @ _gibbs_block(dist, rows, self.beta_)[0]
            self.leakage_ = float(infotheory.mutual_information(joint))
        self.p_ab_, self._distortion = p, dist
        enforce(self.guarantee_checks())
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """With a budget ``delta``: the expected distortion of ``mapping_`` (of ``beta_``
        when fitted with ``mapping=False``), at most ``delta``. With ``beta`` alone no budget is
        declared and the list is empty; ``epsilon_`` follows from ``beta`` by construction."""
        check_fitted(self, "beta_")
        if self.delta is None:
            return []
        if hasattr(self, "mapping_"):
            return [budget_check(self, self.p_ab_, self._distortion, self.mapping_, self.delta)]
        return [
            GuaranteeCheck(
                type(self).__name__,
                "distortion budget",
                float(self.delta),
                self.distortion_,
                "at_most",
                "E[d(B, B^)] over all profiles",
            )
        ]

    def _solve_beta(self, p, dist, delta, rtol):
        f = lambda b: self.expected_distortion_at(p, dist, b)  # noqa: E731
        if f(0.0) <= delta:
            return 0.0
        if delta == 0 and min_feasible_budget(p, dist) == 0:
            raise ValueError(
                "delta = 0 is below what the exponential mechanism reaches at any finite beta "
                "(its expected distortion is positive for every beta < inf)"
            )
        hi = 1.0
        while f(hi) > delta:
            hi *= 2.0
            if hi > 1e12:
                raise ValueError(f"no finite beta meets delta = {delta}; the budget is too small")
        lo = 0.0 if hi == 1.0 else hi / 2.0
        while hi - lo > rtol * hi:
            mid = 0.5 * (lo + hi)
            if f(mid) > delta:
                lo = mid
            else:
                hi = mid
        return hi

    def release(self, b, random_state=None) -> np.ndarray:
        """Release ``b^ ~ p(. | b)`` for each profile index in ``b``, after the budget check.

        Parameters
        ----------
        b : array_like of int
            Profile indices in ``[0, |B|)`` (integral floats are accepted).
        random_state : None, int >= 0 or numpy.random.Generator, optional
            Seed or stream (:func:`ppdp.base.check_random_state`).

        Returns
        -------
        ndarray of int64, of the length of ``b``

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        RuntimeError
            After ``fit(..., mapping=False)``, which builds no mapping to draw from.
        ppdp.guarantees.GuaranteeViolation
            If the mapping breaks the budget ``delta`` (:meth:`guarantee_checks`).
        """
        check_fitted(self, "beta_")
        if not hasattr(self, "mapping_"):
            raise RuntimeError(
                f"{type(self).__name__} has no mapping; call fit (with mapping=True) first"
            )
        rng = check_random_state(random_state)
        enforce(self.guarantee_checks())
        return sample_release(self.mapping_, b, rng)
