"""Obfuscation baselines of the HyObscure evaluation (Sect. IV-A5).

Every baseline keeps the generalized private value of each user (the optimized initial
generalization ``G^0`` of the I-problem, as the paper prescribes) and publishes, for each user, the
features of a user drawn from the same generalized group (Sect. II-A: obfuscation only happens
between users with the same ``y~``). They differ in how that user is drawn:

* :class:`RandomObfuscation` ("Random"): with probability ``p_rand`` another member of the group,
  uniformly; otherwise the user's own features.
* :class:`Frapp`: the FRAPP gamma-diagonal matrix, own features with weight ``gamma`` and every
  other member with weight 1, i.e. ``p(self) = gamma e`` and ``p(other) = e``,
  ``e = 1 / (gamma + n_g - 1)``.
* :class:`Similarity` ("Simp"): with probability ``p_obf`` another member drawn with probability
  proportional to the cosine similarity of their features; otherwise own features.
* :class:`DPObfuscation` ("DP"): ``p(v | u) ∝ exp(-beta d(u, v))`` over the group, ``d`` the
  Jensen-Shannon divergence (bits) of the users' features. The mapping satisfies
  ``epsilon = 2 beta d_max``-differential privacy over the users of a group (``d_max`` the largest
  distance within the group), reported as :attr:`DPObfuscation.epsilon_`.
* :class:`PrivCheck`: one cluster-level obfuscation matrix, optimized as in PrivCheck for minimal
  ``I(Y; C^)`` under the distortion budget, blind to the generalization; at release time the
  published user is drawn from the chosen cluster inside the user's group (the row of the matrix
  is renormalized over the clusters present in the group).

The original authors' code let some baselines draw across groups and toggled obfuscation per
draw; here every baseline obfuscates inside groups so that all methods publish the same
generalized values and differ only in their obfuscation.
"""

from __future__ import annotations

from abc import abstractmethod
from numbers import Real
from typing import Any, ClassVar

import numpy as np

from ppdp._validation import Interval, check_params
from ppdp.base import ArrayMechanism, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce
from ppdp.infotheory import pairwise_js_divergence
from ppdp.mechanisms.exponential import exponential_epsilon, exponential_weights

from .checks import (
    DISTANCE,
    NON_NEGATIVE,
    POSITIVE_INT,
    PROBABILITY,
    SOLVER,
    as_features,
    as_private,
    check_clusters,
    checked_params,
)
from .domain import Generalization
from .leakage import (
    DistanceModel,
    DistanceSpec,
    cluster_users,
    cluster_value_counts,
    expected_distance,
    hybrid_leakage,
    repair_budget,
    solve_obfuscation,
)
from .release import Release, draw_categorical, keep_own, sample_cluster_release

__all__ = ["DPObfuscation", "Frapp", "PrivCheck", "RandomObfuscation", "Similarity", "dp_epsilon"]


def _check_generalization(generalization: Any) -> Generalization:
    if not isinstance(generalization, Generalization):
        raise TypeError(
            f"generalization must be a ppdp.mechanisms.hyobscure.Generalization; got {type(generalization).__name__}"
        )
    return generalization


class _UserLevel(ArrayMechanism):
    """Shared machinery: one row-stochastic matrix over the members of each group.

    A subclass names in ``_knob`` the one hyper-parameter that sets its matrices and builds a
    group's matrix in :meth:`_group_matrix`; its constructor stores that parameter as given.
    """

    #: The hyper-parameter (a probability or a weight, read as a float) that sets the matrices.
    _knob: ClassVar[str]

    @abstractmethod
    def _group_matrix(self, Xg: np.ndarray, knob: float) -> np.ndarray:
        """The row-stochastic user-to-user matrix of one group's features ``Xg``."""

    def _checked_params(self):
        """The hyper-parameters as ``fit`` reads them: checked, the knob as a ``float``."""
        return checked_params(self, floats=(self._knob,))

    def fit(
        self,
        X: Any,
        y: Any,
        *,
        generalization: Generalization,
        clusters: Any = None,
        random_state: Any = None,
    ):
        """Learn the user-to-user obfuscation inside each group of ``generalization``.

        ``clusters`` and ``random_state`` are accepted for a uniform interface and not used (the
        fit draws nothing; a bad ``random_state`` is refused all the same).
        """
        knob = getattr(self._checked_params(), self._knob)
        check_random_state(random_state)
        X = as_features(X)
        y = as_private(y, X.shape[0])
        gen = _check_generalization(generalization)
        groups = gen.transform(y)
        self.X_ = X
        self.groups_ = groups
        self.generalization_ = gen
        self.members_ = [np.flatnonzero(groups == g) for g in range(gen.n_groups)]
        self.matrices_ = []
        for members in self.members_:
            if len(members) == 0:
                raise ValueError(
                    "a generalized group holds no user; every group needs at least one"
                )
            M = self._group_matrix(X[members], knob)
            self.matrices_.append(M)
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """No measured bound: the user-level baselines declare none (an empty list)."""
        check_fitted(self, "matrices_")
        return []

    def release(self, random_state: Any = None, *, keep: float = 0.0) -> Release:
        """Publish one data set: each user's features replaced by those of a drawn group member.

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            Drives the draws (:func:`ppdp.base.check_random_state`; a Generator is used as is and
            advanced).
        keep : float in [0, 1]
            Each user keeps their own features with this probability (the authors' ``pp``,
            :func:`keep_own`).

        Returns
        -------
        Release
            The published features, each user's group and the user each row was copied from.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        """
        check_fitted(self, "matrices_")
        rng = check_random_state(random_state)
        enforce(self.guarantee_checks())
        source = np.empty(len(self.groups_), dtype=np.int64)
        for members, M in zip(self.members_, self.matrices_, strict=True):
            source[members] = members[draw_categorical(M, rng)]
        release = Release(features=self.X_[source], groups=self.groups_.copy(), source=source)
        return keep_own(release, self.X_, keep, rng)


class RandomObfuscation(_UserLevel):
    """ "Random": keep own features with probability ``1 - p_rand``, else a uniform other member.

    Parameters
    ----------
    p_rand : float in [0, 1]
        Probability of publishing another member's features (a member alone in its group keeps
        its own).

    Attributes
    ----------
    members_ : list of ndarray
        The users of each group.
    matrices_ : list of ndarray
        Row-stochastic user-to-user matrix of each group, rows and columns in ``members_`` order.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Generalization, RandomObfuscation, private_domain
    >>> X = np.array([[3, 1], [2, 2], [1, 3], [4, 0], [0, 4], [2, 1]])
    >>> y = np.array([20, 21, 21, 22, 23, 23])  # two groups: ages 20-21 and 22-23
    >>> gen = Generalization(private_domain(y), np.array([0, 0, 1, 1]))
    >>> mech = RandomObfuscation(p_rand=0.5).fit(X, y, generalization=gen)
    >>> mech.matrices_[0]  # users 0, 1 and 2, aged 20-21
    array([[0.5 , 0.25, 0.25],
           [0.25, 0.5 , 0.25],
           [0.25, 0.25, 0.5 ]])
    >>> release = mech.release(random_state=0)
    >>> release.source, release.groups
    (array([1, 1, 0, 3, 5, 5]), array([0, 0, 0, 1, 1, 1]))
    """

    #: The paper evaluates it as a baseline, with no privacy level of its own.
    guarantee: ClassVar[str] = (
        "none declared: a baseline of Sect. IV-A5 that the paper measures by attack, with no "
        "bound of its own."
    )

    #: Each release draws every user's published member again; several releases of one fit are
    #: several independent draws for the same users.
    repetition: ClassVar[str] = "leaks"

    _parameter_constraints: ClassVar[dict] = {"p_rand": PROBABILITY}
    _knob = "p_rand"

    def __init__(self, p_rand: float = 0.5):
        self.p_rand = p_rand

    def _group_matrix(self, Xg, knob):
        n = Xg.shape[0]
        if n == 1:
            return np.ones((1, 1))
        M = np.full((n, n), knob / (n - 1))
        np.fill_diagonal(M, 1.0 - knob)
        return M


class Frapp(_UserLevel):
    """FRAPP gamma-diagonal obfuscation: ``p(self) = gamma e``, ``p(other) = e``.

    Parameters
    ----------
    gamma : float >= 1
        Weight of a user's own features against each other member's;
        ``e = 1 / (gamma + n_g - 1)`` for a group of ``n_g`` users.

    Attributes
    ----------
    members_ : list of ndarray
        The users of each group.
    matrices_ : list of ndarray
        Row-stochastic user-to-user matrix of each group, rows and columns in ``members_`` order.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Generalization, Frapp, private_domain
    >>> X = np.array([[3, 1], [2, 2], [1, 3], [4, 0], [0, 4], [2, 1]])
    >>> y = np.array([20, 21, 21, 22, 23, 23])  # two groups: ages 20-21 and 22-23
    >>> gen = Generalization(private_domain(y), np.array([0, 0, 1, 1]))
    >>> mech = Frapp(gamma=2.0).fit(X, y, generalization=gen)
    >>> mech.matrices_[0]  # own features with weight 2, each other member 1
    array([[0.5 , 0.25, 0.25],
           [0.25, 0.5 , 0.25],
           [0.25, 0.25, 0.5 ]])
    >>> mech.release(random_state=0).source
    array([1, 1, 0, 3, 5, 5])
    """

    #: The paper evaluates it as a baseline, with no privacy level of its own.
    guarantee: ClassVar[str] = (
        "none declared: a baseline of Sect. IV-A5 that the paper measures by attack, with no "
        "bound of its own."
    )

    #: Each release draws every user's published member again; several releases of one fit are
    #: several independent draws for the same users.
    repetition: ClassVar[str] = "leaks"

    # gamma >= 1: a user's own features are at least as likely as another user's
    _parameter_constraints: ClassVar[dict] = {"gamma": [Interval(Real, 1, None, closed="left")]}
    _knob = "gamma"

    def __init__(self, gamma: float = 10.0):
        self.gamma = gamma

    def _group_matrix(self, Xg, knob):
        n = Xg.shape[0]
        e = 1.0 / (knob + n - 1)
        M = np.full((n, n), e)
        np.fill_diagonal(M, knob * e)
        return M


class Similarity(_UserLevel):
    """ "Simp": another member drawn proportionally to cosine similarity, with probability ``p_obf``.

    Parameters
    ----------
    p_obf : float in [0, 1]
        Probability of publishing another member's features; a user with no positive
        similarity to any other member draws one uniformly.

    Attributes
    ----------
    members_ : list of ndarray
        The users of each group.
    matrices_ : list of ndarray
        Row-stochastic user-to-user matrix of each group, rows and columns in ``members_`` order.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Generalization, Similarity, private_domain
    >>> X = np.array([[3, 1], [2, 2], [1, 3], [4, 0], [0, 4], [2, 1]])
    >>> y = np.array([20, 21, 21, 22, 23, 23])  # two groups: ages 20-21 and 22-23
    >>> gen = Generalization(private_domain(y), np.array([0, 0, 1, 1]))
    >>> mech = Similarity(p_obf=0.5).fit(X, y, generalization=gen)
    >>> mech.matrices_[0].round(3)  # users 0 and 1 are more alike than users 0 and 2
    array([[0.5  , 0.299, 0.201],
           [0.25 , 0.5  , 0.25 ],
           [0.201, 0.299, 0.5  ]])
    >>> mech.release(random_state=0).source
    array([1, 1, 0, 3, 5, 5])
    """

    #: The paper evaluates it as a baseline, with no privacy level of its own.
    guarantee: ClassVar[str] = (
        "none declared: a baseline of Sect. IV-A5 that the paper measures by attack, with no "
        "bound of its own."
    )

    #: Each release draws every user's published member again; several releases of one fit are
    #: several independent draws for the same users.
    repetition: ClassVar[str] = "leaks"

    _parameter_constraints: ClassVar[dict] = {"p_obf": PROBABILITY}
    _knob = "p_obf"

    def __init__(self, p_obf: float = 0.5):
        self.p_obf = p_obf

    def _group_matrix(self, Xg, knob):
        n = Xg.shape[0]
        if n == 1:
            return np.ones((1, 1))
        norms = np.linalg.norm(Xg, axis=1)
        norms[norms == 0] = 1.0
        S = (Xg / norms[:, None]) @ (Xg / norms[:, None]).T
        np.fill_diagonal(S, 0.0)
        totals = S.sum(axis=1)
        uniform = np.full((n, n), 1.0 / (n - 1))
        np.fill_diagonal(uniform, 0.0)
        W = np.where(totals[:, None] > 0, S / np.where(totals > 0, totals, 1.0)[:, None], uniform)
        M = knob * W
        M[np.diag_indices(n)] += 1.0 - knob
        return M


class DPObfuscation(_UserLevel):
    """Exponential-mechanism obfuscation ``p(v | u) ∝ exp(-beta d(u, v))`` (DP baseline).

    Parameters
    ----------
    beta : float >= 0
        Inverse temperature: 0 draws uniformly within the group, large values keep each user's
        own features.

    Attributes
    ----------
    epsilon_ : float
        ``2 beta d_max``: for any users ``u, u'`` and output ``v`` of the same group,
        ``p(v | u) <= exp(epsilon_) p(v | u')``.
    distances_ : list of ndarray
        The Jensen-Shannon divergences (bits) inside each group.
    d_max_ : float
        The largest of them.
    n_releases_ : int
        Releases since the last ``fit``; together they spend ``n_releases_ * epsilon_``
        (:meth:`~ppdp.base.ReleaseLedger.spent`).

    Notes
    -----
    Each release draws every user's published member afresh, so the releases of one fit compose
    sequentially: ``n`` of them are ``n epsilon_``-differentially private. The bound holds by
    construction of the exponential mechanism and is not re-measured on the matrices (at a large
    ``beta`` the weights of distant users underflow to zero, where no likelihood ratio can be
    measured); its ``guarantee_checks()`` is empty.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Generalization, DPObfuscation, private_domain
    >>> X = np.array([[3, 1], [2, 2], [1, 3], [4, 0], [0, 4], [2, 1]])
    >>> y = np.array([20, 21, 21, 22, 23, 23])  # two groups: ages 20-21 and 22-23
    >>> gen = Generalization(private_domain(y), np.array([0, 0, 1, 1]))
    >>> mech = DPObfuscation(beta=5.0).fit(X, y, generalization=gen)
    >>> round(mech.d_max_, 3), round(mech.epsilon_, 3)  # users 3 and 4 share no feature
    (1.0, 10.0)
    >>> mech.matrices_[1].round(3)  # users 3, 4 and 5, aged 22-23
    array([[0.718, 0.005, 0.277],
           [0.006, 0.903, 0.091],
           [0.259, 0.068, 0.673]])

    Every release spends ``epsilon_`` again:

    >>> _ = mech.release(random_state=0), mech.release(random_state=1)
    >>> round(mech.spent(), 3)
    20.0
    """

    #: Sect. IV-A5: the exponential obfuscation is 2 beta d_max-differentially private.
    guarantee: ClassVar[str] = (
        "``epsilon_ = 2 beta d_max`` differential privacy between the users of a group (Sect. "
        "IV-A5): ``p(v | u) <= exp(epsilon_) p(v | u')`` for users ``u, u'`` and output ``v`` "
        "of one group, by construction of the exponential mechanism (not re-measured)."
    )

    #: Each release draws every user's published member afresh; the releases of one fit compose
    #: sequentially, n of them spending n ``epsilon_`` (Dwork and Roth, Theorem 3.16).
    repetition: ClassVar[str] = "composes"

    _parameter_constraints: ClassVar[dict] = {"beta": NON_NEGATIVE}
    _knob = "beta"

    def __init__(self, beta: float = 5.0):
        self.beta = beta

    def _group_matrix(self, Xg, knob):
        D = pairwise_js_divergence(Xg)
        self.distances_.append(D)
        return exponential_weights(D, knob)

    def fit(self, X, y, *, generalization, clusters=None, random_state=None):
        self.distances_ = []
        super().fit(
            X, y, generalization=generalization, clusters=clusters, random_state=random_state
        )
        d_max = max(float(D.max()) for D in self.distances_)
        self.d_max_ = d_max
        self.epsilon_ = exponential_epsilon(float(self.beta), d_max)
        return self

    def _composed(self, n_releases: int) -> float:
        """The privacy level of ``n_releases`` releases of one fit: ``n_releases * epsilon_``."""
        return n_releases * self.epsilon_


class PrivCheck(ArrayMechanism):
    """PrivCheck: cluster-level obfuscation minimizing ``I(Y; C^)`` under a distortion budget.

    Parameters
    ----------
    budget : float
        Expected distance budget (bits of Jensen-Shannon divergence between clusters).
    n_clusters : int
        Used when ``fit`` gets no clusters.
    distance : str or callable
        As for :class:`~ppdp.mechanisms.hyobscure.HyObscure`; computed over all users (no groups).

    Attributes
    ----------
    mapping_ : ndarray (C, C)
        The single obfuscation matrix (rows ``p(c^ | c)``).
    mappings_ : ndarray (K, C, C)
        The matrix as applied inside each group (rows renormalized over the clusters present).
        Renormalizing can raise the expected distance above the budget; the released matrices
        are then mixed with the cheapest mapping until it holds (:func:`repair_budget`).
    budget_excess_ : float
        By how much the renormalized matrices exceeded the budget before that repair (0 if not).
    leakage_ : float
        ``I(Y; C^, Y~)`` of the release, bits.

    Notes
    -----
    ``n_clusters`` only matters when ``fit`` clusters the users itself; given ``clusters`` may
    use any number of labels.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Generalization, PrivCheck, private_domain
    >>> X = np.array([[3, 1], [2, 2], [1, 3], [4, 0], [0, 4], [2, 1]])
    >>> y = np.array([20, 21, 21, 22, 23, 23])  # two groups: ages 20-21 and 22-23
    >>> gen = Generalization(private_domain(y), np.array([0, 0, 1, 1]))
    >>> clusters = np.array([0, 1, 1, 0, 1, 0])
    >>> mech = PrivCheck(budget=0.05).fit(X, y, generalization=gen, clusters=clusters)
    >>> mech.mapping_.round(2)
    array([[0.8, 0.2],
           [0.2, 0.8]])
    >>> round(mech.leakage_, 3)
    1.155
    >>> [(c.guarantee, c.holds) for c in mech.guarantee_checks()]
    [('utility budget', True)]
    >>> mech.release(random_state=0).groups
    array([0, 0, 0, 1, 1, 1])
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "the distortion budget: the expected distance between a user's cluster and the published "
        "one, over all users and with group-blind distances, is at most ``budget``."
    )

    #: Each release draws every user's published cluster again from the fitted matrices; several
    #: releases of one fit are several independent draws for the same users.
    repetition: ClassVar[str] = "leaks"

    _parameter_constraints: ClassVar[dict] = {
        "budget": NON_NEGATIVE,
        "n_clusters": POSITIVE_INT,
        "distance": DISTANCE,
        "solver": SOLVER,
    }

    def __init__(
        self,
        budget: float = 0.1,
        n_clusters: int = 10,
        distance: DistanceSpec = "centroid_js",
        solver: str = "CLARABEL",
    ):
        self.budget = budget
        self.n_clusters = n_clusters
        self.distance = distance
        self.solver = solver

    def _checked_params(self):
        """The hyper-parameters as ``fit`` reads them: checked, numbers as ``int`` and ``float``."""
        return checked_params(self, ints=("n_clusters",), floats=("budget",))

    def fit(
        self,
        X: Any,
        y: Any,
        *,
        generalization: Generalization,
        clusters: Any = None,
        random_state: Any = None,
    ) -> PrivCheck:
        """Learn the shared matrix and its renormalization inside each group.

        Parameters
        ----------
        X : array_like, shape (n, m)
            Insensitive features (non-negative).
        y : array_like of int, shape (n,)
            Exact private values.
        generalization : Generalization
            The groups the release keeps (taken as given).
        clusters : array_like, optional
            Precomputed user clusters (otherwise k-means with ``n_clusters``).
        random_state : None, int >= 0 or numpy.random.Generator
            Drives the k-means when ``clusters`` is None (checked either way).

        Returns
        -------
        self
        """
        # the fitted state reads this checked copy, never the attributes set_params may change
        self._params = p = self._checked_params()
        rng = check_random_state(random_state)
        X = as_features(X)
        y = as_private(y, X.shape[0])
        gen = _check_generalization(generalization)
        if clusters is None:
            clusters = cluster_users(X, p.n_clusters, rng)
        clusters = check_clusters(clusters, X.shape[0])
        value_idx = gen.domain.index(y)
        V = len(gen.domain.values)
        C = int(clusters.max()) + 1
        counts = cluster_value_counts(clusters, value_idx, C, V)
        model = DistanceModel(X, clusters, value_idx, C, V, p.distance)
        D = model.group(np.ones(V, dtype=bool))[None]
        shared, _ = solve_obfuscation(counts, gen.labels, D, p.budget, shared=True, solver=p.solver)
        self.mapping_ = shared[0]
        K = gen.n_groups
        mappings = np.zeros((K, C, C))
        for g in range(K):
            present = counts[:, gen.labels == g].sum(axis=1) > 0
            M = self.mapping_ * present[None, :]
            rows = M.sum(axis=1)
            fallback = np.eye(C)
            M = np.where(rows[:, None] > 0, M / np.where(rows > 0, rows, 1.0)[:, None], fallback)
            # a present cluster whose whole row falls on absent clusters keeps its own users
            mappings[g] = M
        self.distances_ = np.broadcast_to(D[0], (K, C, C)).copy()
        self.counts_ = counts
        self.mappings_, self.budget_excess_ = repair_budget(
            counts, gen.labels, mappings, self.distances_, p.budget, "global"
        )
        self.X_ = X
        self.clusters_ = clusters
        self.groups_ = gen.labels[value_idx]
        self.generalization_ = gen
        self.leakage_ = hybrid_leakage(counts, gen.labels, self.mappings_)
        enforce(self.guarantee_checks())
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """The distortion budget measured on the matrices the release draws from.

        One check: the expected distance (over all users, cluster distances over the whole
        population) of ``mappings_`` on the fitted groups, at most ``budget``. PrivCheck takes
        its generalization as given and declares no (k, alpha) or (l, beta) bound.
        """
        check_fitted(self, "mappings_")
        measured = expected_distance(
            self.counts_, self.generalization_.labels, self.mappings_, self.distances_, "global"
        )
        return [
            GuaranteeCheck(
                "PrivCheck",
                "utility budget",
                self._params.budget,
                float(measured),
                "at_most",
                "all users",
            )
        ]

    def release(self, random_state: Any = None, *, keep: float = 0.0) -> Release:
        """Publish one data set (Sect. III-F) through the matrices of each group.

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            Drives the draws (:func:`ppdp.base.check_random_state`; a Generator is used as is and
            advanced).
        keep : float in [0, 1]
            Each user keeps their own features with this probability (the authors' ``pp``,
            :func:`keep_own`).

        Returns
        -------
        Release
            The published features, each user's group and the user each row was copied from.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        ppdp.guarantees.GuaranteeViolation
            When the fitted matrices break the budget; nothing is drawn then.
        """
        check_fitted(self, "mappings_")
        rng = check_random_state(random_state)
        enforce(self.guarantee_checks())
        release = sample_cluster_release(self.X_, self.clusters_, self.groups_, self.mappings_, rng)
        return keep_own(release, self.X_, keep, rng)


def dp_epsilon(beta: float, d_max: float) -> float:
    """Privacy level ``2 beta d_max`` of the exponential obfuscation (Sect. IV-A5).

    Parameters
    ----------
    beta : float >= 0
        Inverse temperature of :class:`DPObfuscation`.
    d_max : float >= 0
        Largest distance (bits) between two users of a group.

    Returns
    -------
    float
        ``epsilon``: ``p(v | u) <= exp(epsilon) p(v | u')`` for any users ``u, u'`` and output
        ``v`` of a group.

    Raises
    ------
    ValueError
        When ``beta`` or ``d_max`` is negative.

    Examples
    --------
    >>> from ppdp.mechanisms.hyobscure import dp_epsilon
    >>> dp_epsilon(5.0, 0.1)
    1.0
    """
    check_params(
        {"beta": beta, "d_max": d_max}, {"beta": NON_NEGATIVE, "d_max": NON_NEGATIVE}, "dp_epsilon"
    )
    return exponential_epsilon(float(beta), float(d_max))
