"""HyObscure (Algorithm 4) and its variants XObf and YGen."""

from __future__ import annotations

import logging
import math
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from scipy.sparse.csgraph import connected_components

from ppdp._validation import Interval
from ppdp.base import ArrayMechanism, InfeasibleError, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce

from .areas import greedy_area_generalization
from .baselines import PrivCheck
from .boosting import greedy_generalization, improve_generalization
from .checks import (
    BOUNDS,
    BUDGET_SCOPE,
    DISTANCE,
    DOMAIN,
    G_STEP,
    GREEDY_SCORE,
    NON_NEGATIVE,
    POSITIVE_INT,
    SOLVER,
    as_features,
    as_private,
    check_bound_order,
    check_clusters,
    check_mappings,
    checked_params,
)
from .domain import Generalization, initial_generalization, private_domain
from .leakage import (
    DistanceModel,
    DistanceSpec,
    cluster_users,
    cluster_value_counts,
    expected_distance,
    hybrid_leakage,
    repair_budget,
    scalar_loss,
    solve_obfuscation,
)
from .release import Release, keep_own, sample_cluster_release

#: The module's logger (silent unless the application configures ``ppdp``'s).
logger = logging.getLogger(__name__)

# ------------------------------------------------------------------------------------------------
# HyObscure (Algorithm 4) and variants

#: The hyper-parameters of :class:`HyObscure` that ``fit`` reads as Python ints.
_INT_PARAMS = (
    "n_groups",
    "k",
    "alpha",
    "l",
    "beta",
    "n_clusters",
    "grid_width",
    "max_iter",
    "max_moves",
    "n_init",
)


def _population_index(domain, population: np.ndarray) -> np.ndarray:
    """Position of each of the population's values in ``domain``; a value outside it raises a
    ValueError naming ``population``."""
    inside = np.isin(population, domain.values)
    if not inside.all():
        first = int(np.flatnonzero(~inside)[0])
        raise ValueError(
            f"population must hold values of the generalization's domain of "
            f"{len(domain.values)} values ({int(domain.values[0])} to {int(domain.values[-1])}); "
            f"population[{first}] = {int(population[first])} is not one of them"
        )
    return domain.index(population)


class HyObscure(ArrayMechanism):
    """Hybrid obscuring (Algorithm 4): I-problem, then O- and G-problems cross-iterated.

    The constructor stores the hyper-parameters as given; :meth:`fit` checks them.

    Parameters
    ----------
    n_groups : int
        Requested number of generalized values ``|Y~|`` (Table II: 4); the I-problem may add groups
        when stuck (Algorithm 1, line 22).
    k, alpha : int
        (k, alpha)-uniqueness: every group holds between ``k`` and ``alpha`` users.
    l, beta : int
        (l, beta)-variety: every group holds between ``l`` and ``beta`` distinct exact values.
    budget : float
        Obfuscation budget ``Delta Q`` of Eq. (16), bits of Jensen-Shannon divergence.
    n_clusters : int
        Number of user clusters ``|C|`` (Table II: 10 MovieLens, 8 Foursquare).
    domain : {"interval", "grid"}
        Ages (intervals) or home cells (contiguous areas of a grid ``grid_width`` cells wide).
    distance : {"centroid_js", "mean_pairwise_js"} or callable
        Cluster distance (see the notes of :mod:`ppdp.mechanisms.hyobscure`).
    budget_scope : {"global", "group", "cluster_mean"}
        Over what the budget bounds the expected distance (see
        :func:`~ppdp.mechanisms.hyobscure.expected_distance`): all users (Eq. 16), each group, or
        each group's unweighted mean over clusters (the authors' code).
    g_step : {"boundary", "greedy"}
        ``"boundary"``: Algorithm 3, one-value boundary moves under (k, alpha) and (l, beta)
        (:func:`improve_generalization`). ``"greedy"``: the authors' code, constrained by ``k``
        and the entropy ``l`` only: for ages at most one move per iteration that may shift
        several ages (:func:`~ppdp.mechanisms.hyobscure.greedy_generalization`), for
        home cells one pass of line moves between areas
        (:func:`~ppdp.mechanisms.hyobscure.greedy_area_generalization`). Set ``alpha``
        and ``beta`` to the number of users and values to declare what it enforces.
    greedy_score : {"transposed", "leakage"}
        Privacy score with which the greedy G-step compares candidates (read only with
        ``g_step="greedy"``). ``"transposed"`` (the authors' code): their ``Mean_KL_div``, which
        reads each group's mapping transposed
        (:func:`~ppdp.mechanisms.hyobscure.transposed_leakage`); it equals the leakage
        only for symmetric mappings. ``"leakage"``: the leakage ``I(Y; C^, Y~)`` of the mappings
        as released (:func:`hybrid_leakage`). The O-problem and ``leakage_`` use the leakage
        either way.
    threshold : float
        Stop when the leakage improves by less than this between iterations (paper: 1e-4).
    max_iter : int
        Maximum number of O/G cross-iterations.
    max_moves : int
        Maximum accepted boundary moves per G-problem.
    n_init : int
        Random restarts of the I-problem per number of groups.
    solver : str
        cvxpy solver for the O-problem.

    Attributes
    ----------
    generalization_ : Generalization
    initial_generalization_ : Generalization
    clusters_ : ndarray (n,)
    groups_ : ndarray (n,)
        Generalized value of each user.
    mappings_ : ndarray (K, C, C)
    counts_ : ndarray (C, V)
        Fitted users per (cluster, value of the generalization's domain).
    value_counts_ : ndarray (V,)
        Users per value on which k and l are counted (the G-steps and the (k, alpha) checks):
        those of ``population`` when ``fit`` got one, else the fitted users',
        ``counts_.sum(axis=0)``.
    leakage_ : float
        ``I(Y; C^, Y~)`` of the final pair, bits.
    utility_loss_ : float
    history_ : list of dict
        One record per phase: ``iteration``, ``phase`` ("O", "G", "move" or "undo"),
        ``leakage``, ``utility_loss``. The ``leakage`` of a "move" record (one per accepted
        G-move) is the score the G-step compared: with ``g_step="greedy"`` the
        ``greedy_score``, which is not ``I(Y; C^, Y~)`` under ``"transposed"``; the other
        phases record ``I(Y; C^, Y~)``.

    Examples
    --------
    Forty users aged 20 to 27 in two clusters; two age groups of 10 to 30 users and 2 to 6 ages:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import HyObscure
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(20, 28, 40)  # ages of 40 users
    >>> clusters = rng.integers(0, 2, 40)  # two activity profiles
    >>> X = rng.poisson(1 + 2 * clusters[:, None] + (y[:, None] > 23), (40, 3)) + 1.0
    >>> hy = HyObscure(n_groups=2, k=10, alpha=30, l=2, beta=6, budget=0.05, n_clusters=2)
    >>> hy = hy.fit(X, y, random_state=0, clusters=clusters)
    >>> hy.initial_generalization_.intervals(), hy.generalization_.intervals()
    ([(20, 23), (24, 27)], [(20, 21), (22, 27)])
    >>> [h["phase"] for h in hy.history_]  # two boundary moves, then no further gain
    ['O', 'move', 'move', 'G', 'O', 'G']
    >>> round(hy.leakage_, 3), hy.utility_loss_ <= 0.05
    (0.811, True)
    >>> all(check.holds for check in hy.guarantee_checks())
    True
    >>> release = hy.release(random_state=0)
    >>> release.features.shape, bool((release.groups == hy.groups_).all())
    ((40, 3), True)
    """

    #: The bounds every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "the utility budget of Eq. (16) (an expected distance of at most ``budget``), (k, "
        "alpha)-uniqueness (Definition 2: ``k`` to ``alpha`` users per group), (l, beta)-variety "
        "(Definition 3: ``l`` to ``beta`` values per group) and contiguous groups (but with the "
        "authors' area moves), measured on the fitted generalization and mappings."
    )

    #: Each release draws every user's published cluster again from the fitted mappings; several
    #: releases of one fit are several independent draws for the same users, and the leakage
    #: I(Y; X^, Y~) of Theorem 1 is that of one.
    repetition: ClassVar[str] = "leaks"

    _do_o = True
    _do_g = True

    _parameter_constraints: ClassVar[dict] = {
        **BOUNDS,
        "n_groups": POSITIVE_INT,
        "budget": NON_NEGATIVE,
        "n_clusters": POSITIVE_INT,
        "domain": DOMAIN,
        "grid_width": POSITIVE_INT,
        "distance": DISTANCE,
        "budget_scope": BUDGET_SCOPE,
        "g_step": G_STEP,
        "greedy_score": GREEDY_SCORE,
        "threshold": NON_NEGATIVE,
        "max_iter": POSITIVE_INT,
        "max_moves": [Interval(Integral, 0, None, closed="left")],
        "n_init": POSITIVE_INT,
        "solver": SOLVER,
    }

    def __init__(
        self,
        n_groups: int = 4,
        k: int = 100,
        alpha: int = 200,
        l: int = 4,  # noqa: E741
        beta: int = 8,
        budget: float = 0.1,
        n_clusters: int = 10,
        *,
        domain: str = "interval",
        grid_width: int = 60,
        distance: DistanceSpec = "centroid_js",
        budget_scope: str = "global",
        g_step: str = "boundary",
        greedy_score: str = "transposed",
        threshold: float = 1e-4,
        max_iter: int = 20,
        max_moves: int = 100,
        n_init: int = 10,
        solver: str = "CLARABEL",
    ):
        self.n_groups = n_groups
        self.k = k
        self.alpha = alpha
        self.l = l
        self.beta = beta
        self.budget = budget
        self.n_clusters = n_clusters
        self.domain = domain
        self.grid_width = grid_width
        self.distance = distance
        self.budget_scope = budget_scope
        self.g_step = g_step
        self.greedy_score = greedy_score
        self.threshold = threshold
        self.max_iter = max_iter
        self.max_moves = max_moves
        self.n_init = n_init
        self.solver = solver

    def _checked_params(self):
        """The hyper-parameters as ``fit`` reads them: checked (they may have been set since
        ``__init__``), with ``alpha >= k`` and ``beta >= l``, numbers as ``int`` and ``float``."""
        p = checked_params(self, ints=_INT_PARAMS, floats=("budget", "threshold"))
        check_bound_order(p.k, p.alpha, p.l, p.beta)
        return p

    # -- fitting ---------------------------------------------------------------------------------
    def _initial_generalization(self, y, rng):
        """G^0 of Algorithm 1 under this estimator's (k, alpha) and (l, beta) constraints."""
        p = self._checked_params()
        domain = private_domain(y, p.domain, p.grid_width)
        return initial_generalization(
            y, domain, p.n_groups, p.k, p.alpha, p.l, p.beta, rng, n_init=p.n_init
        )

    def _prepare(self, X, y, clusters, generalization, rng, population=None):
        X = as_features(X)
        y = as_private(y, X.shape[0])
        if population is not None:
            population = as_private(population, name="population")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        if clusters is None:
            clusters = cluster_users(X, self._params.n_clusters, rng)
        else:
            clusters = check_clusters(clusters, X.shape[0])
        if generalization is None:
            generalization = self._initial_generalization(y, rng)
        elif not isinstance(generalization, Generalization):
            raise TypeError(
                f"generalization must be a Generalization; got {type(generalization).__name__}"
            )
        domain = generalization.domain
        value_idx = domain.index(y)
        C = max(int(clusters.max()) + 1, 1)
        counts = cluster_value_counts(clusters, value_idx, C, len(domain.values))
        if population is None:
            value_counts = counts.sum(axis=0)
        else:
            value_counts = np.bincount(
                _population_index(domain, population), minlength=len(domain.values)
            ).astype(np.float64)
        dist_model = DistanceModel(
            X, clusters, value_idx, C, len(domain.values), self._params.distance
        )
        self.X_ = X
        self.y_ = y
        self.clusters_ = clusters
        self.initial_generalization_ = generalization
        self.counts_ = counts
        self.value_counts_ = value_counts
        self._on_population = population is not None
        self._value_idx = value_idx
        self._dist_model = dist_model
        return X, y, clusters, generalization, counts, dist_model

    def fit(
        self,
        X: Any,
        y: Any,
        *,
        random_state: Any = None,
        clusters: Any = None,
        generalization: Generalization | None = None,
        mappings: np.ndarray | None = None,
        population: Any = None,
        progress: bool = False,
    ) -> HyObscure:
        """Learn the generalization and the obfuscation.

        Parameters
        ----------
        X : array_like, shape (n, m)
            Insensitive features (non-negative).
        y : array_like of int, shape (n,)
            Exact private values.
        random_state : None, int >= 0 or numpy.random.Generator
            Drives clustering, the I-problem restarts and the G-problem's move order
            (:func:`ppdp.base.check_random_state`; a Generator is used as is and advanced).
        clusters : array_like, optional
            Precomputed user clusters (otherwise k-means with ``n_clusters``).
        generalization : Generalization, optional
            Start from this generalization instead of solving the I-problem.
        mappings : ndarray (K, C, C), optional
            Fixed obfuscation (used by :class:`YGen`; the O-problem is then skipped).
        population : array_like of int, shape (N,), optional
            Exact private values of every user of the population on which the group sizes and
            entropies are counted (the authors count ``k`` and ``l`` on all users, those of the
            attacker's half included); it need not contain the fitted users, but each of its
            values must lie in the generalization's domain. The counts, ``value_counts_``,
            serve the G-steps (``k`` and the entropy ``l`` of the greedy step, ``k`` and
            ``alpha`` of the boundary step) and the (k, alpha)-uniqueness checks; the leakage,
            the utility loss and the O-problem stay those of the fitted users. Without
            ``generalization`` the I-problem still counts the fitted users and builds the domain
            from their values, which ``population`` must then stay within. By default the
            fitted users are counted.
        progress : bool
            Show a progress bar over the cross-iterations.

        Raises
        ------
        ValueError
            Besides the checks of the hyper-parameters, ``X``, ``y`` and the other arguments:
            when ``population`` is empty, not 1-D, or holds a value outside the generalization's
            domain.
        """
        # the fitted state reads this checked copy, never the attributes set_params may change
        self._params = p = self._checked_params()
        rng = check_random_state(random_state)
        X, y, clusters, gen, counts, dist_model = self._prepare(
            X, y, clusters, generalization, rng, population
        )
        history: list[dict] = []
        iterator = range(p.max_iter)
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, desc="HyObscure")
        fixed = mappings is not None
        if fixed:
            C = counts.shape[0]
            mappings = check_mappings(mappings, (gen.n_groups, C, C))
        previous = math.inf
        before_move = None

        def record(it, phase, labels, maps, **extra):
            """Append the leakage and utility loss of (labels, maps) to the history."""
            loss = scalar_loss(counts, labels, maps, dist_model.all_groups(labels), p.budget_scope)
            history.append(
                {
                    "iteration": it,
                    "phase": phase,
                    "leakage": hybrid_leakage(counts, labels, maps),
                    "utility_loss": loss,
                    **extra,
                }
            )
            return history[-1]["leakage"]

        for it in iterator:
            if self._do_o and not fixed:
                distances = dist_model.all_groups(gen.labels)
                try:
                    mappings, _ = solve_obfuscation(
                        counts,
                        gen.labels,
                        distances,
                        p.budget,
                        scope=p.budget_scope,
                        solver=p.solver,
                    )
                except InfeasibleError:
                    if before_move is None:
                        raise
                    # the greedy move left a group no mapping within budget can serve (with
                    # "cluster_mean", clusters absent from a group cost the budget): undo it
                    gen, mappings = before_move
                    record(it, "undo", gen.labels, mappings)
                    break
            leak = record(it, "O", gen.labels, mappings)
            if previous - leak < p.threshold or not self._do_g:
                break
            previous = leak
            if p.g_step == "greedy":
                before_move = (gen, mappings)
            gen, moves = self._g_problem(gen, counts, mappings, dist_model, rng)
            history.extend(
                {
                    "iteration": it,
                    "phase": "move",
                    "leakage": rec["leakage"],
                    "utility_loss": rec["utility_loss"],
                }
                for rec in moves
            )
            record(it, "G", gen.labels, mappings, moves=len(moves))
            if fixed or not moves:
                break
        else:
            if p.g_step == "greedy" and self._do_o and not fixed and history[-1]["moves"]:
                # the last move left the mapping of the old groups: solve it for the new ones
                mappings, _ = solve_obfuscation(
                    counts,
                    gen.labels,
                    dist_model.all_groups(gen.labels),
                    p.budget,
                    scope=p.budget_scope,
                    solver=p.solver,
                )
                record(p.max_iter, "O", gen.labels, mappings)
        self.generalization_ = gen
        self.mappings_ = self._final_mappings(counts, gen.labels, mappings)
        self.groups_ = gen.labels[self._value_idx]
        self.leakage_ = hybrid_leakage(counts, gen.labels, self.mappings_)
        self.utility_loss_ = scalar_loss(
            counts, gen.labels, self.mappings_, dist_model.all_groups(gen.labels), p.budget_scope
        )
        self.history_ = history
        logger.info(
            "%s: %d users in %d groups, leakage %.6g bits after %d O/G steps",
            type(self).__name__,
            len(self.groups_),
            len(np.unique(gen.labels)),
            self.leakage_,
            len(history),
        )
        enforce(self.guarantee_checks())
        return self

    def _g_problem(self, gen, counts, mappings, dist_model, rng):
        p = self._params
        if p.g_step == "greedy":
            state = (gen, counts, mappings, dist_model, p.k, p.l)
            options = dict(
                scope=p.budget_scope, score=p.greedy_score, value_counts=self.value_counts_
            )
            if gen.domain.kind == "grid":
                return greedy_area_generalization(*state, rng, **options)
            return greedy_generalization(*state, **options)
        return improve_generalization(
            gen,
            counts,
            mappings,
            dist_model,
            p.k,
            p.alpha,
            p.l,
            p.beta,
            rng,
            scope=p.budget_scope,
            max_moves=p.max_moves,
            value_counts=self.value_counts_,
        )

    def _final_mappings(self, counts, labels, mappings):
        """The mappings to release. The O-problem's solution already meets the budget exactly
        (:func:`repair_budget`) and accepted G-moves only lower the utility loss; given mappings
        are released as they are, so the budget check raises if they break it."""
        return mappings

    def _budget_terms(self):
        """Distances and scope in which the budget is declared: Eq. (16) inside the groups."""
        return self._dist_model.all_groups(self.generalization_.labels), self._params.budget_scope

    # -- guarantees ------------------------------------------------------------------------------
    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """The declared bounds measured on the fitted generalization and obfuscation.

        * ``utility budget``: the expected distance of Eq. (16) of ``mappings_`` on the
          fitted groups, at most ``budget`` (over all users, or the worst group with
          a per-group ``budget_scope``);
        * ``k-uniqueness`` / ``alpha-uniqueness``: the fewest / most users in a group
          (Definition 2), at least ``k`` / at most ``alpha``, counted on ``value_counts_``:
          the users of the ``population`` given to ``fit`` when there was one (the check's
          ``where`` then says so), else the fitted users;
        * ``l-variety`` / ``beta-variety``: the fewest / most exact values in a group
          (Definition 3), at least ``l`` / at most ``beta``;
        * ``contiguity``: the most connected pieces of a group, at most 1 (not declared by the
          authors' area moves, ``g_step="greedy"`` on home cells).

        The bounds are the hyper-parameters the last ``fit`` read, whatever generalization it
        started from.
        """
        check_fitted(self, "mappings_")
        p = self._params
        name = type(self).__name__
        gen = self.generalization_
        distances, scope = self._budget_terms()
        loss = expected_distance(self.counts_, gen.labels, self.mappings_, distances, scope)
        if scope != "global":
            worst = int(np.argmax(loss))
            measured, where = float(loss[worst]), f"group {worst}"
        else:
            measured, where = float(loss), "all users"
        checks = [GuaranteeCheck(name, "utility budget", p.budget, measured, "at_most", where)]
        labels = gen.labels
        K = gen.n_groups
        users = np.bincount(labels, weights=self.value_counts_, minlength=K)
        nvals = np.bincount(labels, minlength=K)
        pieces = np.zeros(K, dtype=np.int64)
        for g in range(K):
            members = np.flatnonzero(labels == g)
            if len(members):
                sub = gen.domain.adjacency[members][:, members]
                pieces[g] = connected_components(sub, directed=False)[0]
        counted = ", users of the population" if getattr(self, "_on_population", False) else ""
        bounds = [
            ("k-uniqueness (users per group)", users, p.k, "at_least", counted),
            ("alpha-uniqueness (users per group)", users, p.alpha, "at_most", counted),
            ("l-variety (values per group)", nvals, p.l, "at_least", ""),
            ("beta-variety (values per group)", nvals, p.beta, "at_most", ""),
        ]
        if not (p.g_step == "greedy" and gen.domain.kind == "grid"):
            # the authors' area moves hand over runs of cells, not necessarily bordering ones
            bounds.append(("contiguity (pieces per group)", pieces, 1, "at_most", ""))
        for guarantee, values, bound, sense, note in bounds:
            g = int(np.argmin(values) if sense == "at_least" else np.argmax(values))
            checks.append(
                GuaranteeCheck(name, guarantee, bound, float(values[g]), sense, f"group {g}{note}")
            )
        return checks

    # -- releasing -------------------------------------------------------------------------------
    def release(self, random_state: Any = None, *, keep: float = 0.0) -> Release:
        """Publish one data set with the fitted functions (Algorithm 4, line 6).

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            Drives each user's published cluster and user (:func:`ppdp.base.check_random_state`;
            a Generator is used as is and advanced).
        keep : float in [0, 1]
            With ``keep > 0`` each user keeps their own features with that probability (the
            authors' ``pp``, :func:`~ppdp.mechanisms.hyobscure.keep_own`); the generalized values
            are the fitted ones either way.

        Returns
        -------
        Release
            The published features, each user's generalized value and the user each row was
            copied from.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        ppdp.guarantees.GuaranteeViolation
            When the fitted generalization or mappings break a declared bound
            (:meth:`guarantee_checks`); nothing is drawn then.
        """
        check_fitted(self, "mappings_")
        rng = check_random_state(random_state)
        # the bounds are properties of the fitted channel: a broken one is never sampled from
        enforce(self.guarantee_checks())
        release = sample_cluster_release(self.X_, self.clusters_, self.groups_, self.mappings_, rng)
        return keep_own(release, self.X_, keep, rng)


class XObf(HyObscure):
    """Variant XObf: the initial generalization ``G^0`` and one generalization-aware obfuscation
    (O-problem), without cross-iteration.

    Parameters
    ----------
    n_groups, k, alpha, l, beta, budget, n_clusters
        As for :class:`HyObscure`, and so are the keyword-only options; those of the G-problem
        (``g_step``, ``max_moves``, ...) are not used.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import XObf
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(20, 28, 40)  # ages of 40 users
    >>> clusters = rng.integers(0, 2, 40)  # two activity profiles
    >>> X = rng.poisson(1 + 2 * clusters[:, None] + (y[:, None] > 23), (40, 3)) + 1.0
    >>> xobf = XObf(n_groups=2, k=10, alpha=30, l=2, beta=6, budget=0.05, n_clusters=2)
    >>> xobf = xobf.fit(X, y, random_state=0, clusters=clusters)
    >>> [h["phase"] for h in xobf.history_]
    ['O']
    >>> xobf.generalization_ is xobf.initial_generalization_
    True
    >>> round(xobf.leakage_, 3)
    0.984
    """

    _do_g = False


class YGen(HyObscure):
    """Variant YGen: a given obfuscation (by default PrivCheck's) and the stochastic
    privacy-utility boosting of the generalization (G-problem), without re-optimizing it.

    ``fit`` takes ``mappings`` (K, C, C); without them PrivCheck's mapping is learned first.

    The budget is PrivCheck's: the expected distance between a user's cluster and the published
    one over all users, with distances between the clusters' aggregates over the whole population
    (blind to the groups), not Eq. (16)'s distances inside the groups; ``utility_loss_``
    still reports the latter, for comparison with HyObscure. The G-problem's moves keep Eq. (16)'s
    loss from rising, not PrivCheck's, so after them PrivCheck's mapping is brought back within
    its budget by :func:`repair_budget`; given ``mappings`` are released as they are and must
    meet the budget themselves.

    Parameters
    ----------
    n_groups, k, alpha, l, beta, budget, n_clusters
        As for :class:`HyObscure`, and so are the keyword-only options; ``budget`` bounds
        PrivCheck's expected distance.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import YGen
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(20, 28, 40)  # ages of 40 users
    >>> clusters = rng.integers(0, 2, 40)  # two activity profiles
    >>> X = rng.poisson(1 + 2 * clusters[:, None] + (y[:, None] > 23), (40, 3)) + 1.0
    >>> ygen = YGen(n_groups=2, k=10, alpha=30, l=2, beta=6, budget=0.05, n_clusters=2)
    >>> ygen = ygen.fit(X, y, random_state=0, clusters=clusters)
    >>> ygen.initial_generalization_.intervals(), ygen.generalization_.intervals()
    ([(20, 23), (24, 27)], [(20, 21), (22, 27)])
    >>> [h["phase"] for h in ygen.history_]  # PrivCheck's mapping, then the G-problem
    ['O', 'move', 'move', 'G']
    >>> round(ygen.leakage_, 3), ygen.budget_excess_
    (0.811, 0.0)
    """

    #: PrivCheck's budget replaces Eq. (16)'s; the group bounds are HyObscure's.
    guarantee: ClassVar[str] = (
        "PrivCheck's utility budget (an expected distance of at most ``budget`` between a user's "
        "cluster and the published one, with group-blind distances), (k, alpha)-uniqueness "
        "(Definition 2), (l, beta)-variety (Definition 3) and contiguous groups (but with the "
        "authors' area moves), measured on the fitted generalization and mappings."
    )

    def _blind_distances(self, K: int) -> np.ndarray:
        V = len(self.initial_generalization_.domain.values)
        D = self._dist_model.group(np.ones(V, dtype=bool))
        return np.broadcast_to(D, (K, *D.shape)).copy()

    def _budget_terms(self):
        return self._blind_distances(self.generalization_.n_groups), "global"

    def _final_mappings(self, counts, labels, mappings):
        self.budget_excess_ = 0.0
        if not self._from_privcheck:
            return mappings
        D = self._blind_distances(mappings.shape[0])
        repaired, self.budget_excess_ = repair_budget(
            counts, labels, mappings, D, self._params.budget, "global"
        )
        return repaired

    def fit(
        self,
        X,
        y,
        *,
        random_state=None,
        clusters=None,
        generalization=None,
        mappings=None,
        population=None,
        progress=False,
    ):
        rng = check_random_state(random_state)
        p = self._checked_params()
        self._from_privcheck = mappings is None
        if mappings is None:
            X_arr = as_features(X)
            if clusters is None:
                clusters = cluster_users(X_arr, p.n_clusters, rng)
            if generalization is None:
                generalization = self._initial_generalization(y, rng)
            pc = PrivCheck(budget=p.budget, distance=p.distance, solver=p.solver)
            pc.fit(X_arr, y, generalization=generalization, clusters=clusters)
            mappings = pc.mappings_
        return super().fit(
            X,
            y,
            random_state=rng,
            clusters=clusters,
            generalization=generalization,
            mappings=mappings,
            population=population,
            progress=progress,
        )
