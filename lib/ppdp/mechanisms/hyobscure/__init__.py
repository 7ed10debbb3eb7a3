"""HyObscure: hybrid generalization of private data and obfuscation of insensitive data.

Han, Yang and Wu, "HyObscure: Hybrid Obscuring for Privacy-Preserving Data Publishing".

The publisher holds, per user, insensitive features ``X`` (ratings, check-in counts) and an exact
private value ``Y`` (age, home cell). It releases the generalized value ``Y~`` of each user and
obfuscated features ``X^`` copied from another user with the same ``Y~``. This package implements

* :func:`hybrid_leakage`: the privacy leakage ``I(Y; X^, Y~)`` of Theorem 1 / Eq. (6), computed on
  user clusters (Algorithm 2 replaces ``X`` by the user's cluster ``C``);
* :func:`initial_generalization`: the I-problem, constraint-aware k-means (Algorithm 1);
* :func:`solve_obfuscation`: the O-problem (Algorithm 2), a convex program solved with cvxpy;
* :func:`improve_generalization`: the G-problem, stochastic boundary moves (Algorithm 3);
* :class:`HyObscure` (Algorithm 4) and its variants :class:`XObf` and :class:`YGen`.
* the obfuscation baselines of the evaluation (Sect. IV-A5): :class:`RandomObfuscation`,
  :class:`Frapp`, :class:`Similarity`, :class:`DPObfuscation` and :class:`PrivCheck`.

Conventions and choices (the paper leaves them open)
-----------------------------------------------------
* An obfuscation mapping is stored per generalized group ``g`` as a matrix ``O[g, c, c^] =
  p(c^ | c, g)`` whose **rows** sum to one (the paper's "column-stochastic" matrix, transposed).
  Clusters with no user in group ``g`` neither send nor receive mass there.
* The private domain is a graph over the distinct exact values: consecutive values for ages
  (``kind="interval"``), Delaunay neighbours of occupied cells for home cells (``kind="grid"``).
  A group must be a connected set of values (an interval of ages, a contiguous area of cells).
* The distance between two clusters inside a group is pluggable: ``"centroid_js"`` (default,
  the Jensen-Shannon divergence between the two clusters' aggregate feature distributions, so a
  cluster is at distance 0 from itself and a zero budget means no obfuscation) or
  ``"mean_pairwise_js"`` (the mean Jensen-Shannon divergence over pairs of their users, as in
  the authors' code, where the identity mapping already costs a positive amount), or a callable.
  Divergences are in bits.
* The utility budget of Eq. (16) bounds the expectation over all users (``budget_scope="global"``);
  ``"group"`` bounds each group's expectation separately; ``"cluster_mean"`` bounds each group's
  unweighted mean over clusters, an absent cluster costing one nat, as the authors' ``HyObscure.m``.
* The authors' own protocol (their repository, scottshufe/HyObscure) is available piece by piece:
  fixed age bands or grid areas as the start (:func:`band_generalization`,
  :func:`area_generalization`), their greedy G-step
  (``HyObscure(g_step="greedy")``, :func:`greedy_generalization`) and their ``pp`` knob, a
  probability of leaving a user unobfuscated (``release(random_state, keep=pp)``,
  :func:`keep_own`).
* Guarantees: the O-problem's solution is brought within the budget exactly
  (:func:`repair_budget`), and :meth:`HyObscure.guarantee_checks` measures the budget and the
  (k, alpha), (l, beta) and contiguity bounds the estimator was constructed with on the fitted
  generalization and mappings; ``fit`` and ``release`` raise
  :class:`~ppdp.guarantees.GuaranteeViolation` instead of returning a violation.
* Protocol: every estimator and baseline is a :class:`ppdp.base.ArrayMechanism`. The constructor
  stores the hyper-parameters as given, ``fit`` checks them, ``release`` draws one published data
  set (:class:`Release`). Each class declares what a repeated release adds (``repetition``):
  :class:`DPObfuscation`'s releases compose (``n`` releases spend ``n epsilon_``); every other's
  is another draw for the same users, and a second release of one fit issues a
  :class:`~ppdp.base.RepeatedReleaseWarning`.

Modules, each importing only from the ones listed before it
-----------------------------------------------------------
* ``checks``: the parameter and input checks shared by the others;
* ``domain``: :class:`PrivateDomain`, :class:`Generalization`, :func:`check_generalization` and
  the I-problem (:func:`initial_generalization`, :func:`optimal_interval_partition`);
* ``leakage``: user clusters and their distances (:func:`cluster_users`,
  :func:`cluster_distances`), the leakage of Theorem 1 (:func:`hybrid_joint`,
  :func:`hybrid_leakage`), the utility loss of Eq. (16) (:func:`expected_distance`,
  :func:`repair_budget`) and the O-problem (:func:`solve_obfuscation`);
* ``boosting``: the G-problem (:func:`improve_generalization`);
* ``areas``: the authors' home-cell areas and their G-step (:func:`area_generalization`,
  :func:`greedy_area_generalization`);
* ``release``: :class:`Release` and the drawing of a published data set
  (:func:`sample_cluster_release`);
* ``baselines``: the obfuscation baselines and :func:`dp_epsilon`;
* ``estimators``: :class:`HyObscure`, :class:`XObf` and :class:`YGen`;
* ``table``: :class:`TableObfuscation`, any of the above on a DataFrame with ``fit`` / ``release``.
"""

from __future__ import annotations

from .areas import area_generalization, greedy_area_generalization
from .baselines import DPObfuscation, Frapp, PrivCheck, RandomObfuscation, Similarity, dp_epsilon
from .boosting import greedy_generalization, improve_generalization
from .domain import (
    Generalization,
    PrivateDomain,
    band_generalization,
    check_generalization,
    initial_generalization,
    optimal_interval_partition,
    private_domain,
)
from .estimators import HyObscure, XObf, YGen
from .leakage import (
    DistanceSpec,
    cluster_distances,
    cluster_users,
    expected_distance,
    hybrid_joint,
    hybrid_leakage,
    repair_budget,
    solve_obfuscation,
    transposed_leakage,
)
from .release import Release, keep_own, sample_cluster_release
from .table import TableObfuscation

__all__ = [
    "DPObfuscation",
    "DistanceSpec",
    "Frapp",
    "Generalization",
    "HyObscure",
    "PrivCheck",
    "PrivateDomain",
    "RandomObfuscation",
    "Release",
    "Similarity",
    "TableObfuscation",
    "XObf",
    "YGen",
    "area_generalization",
    "band_generalization",
    "check_generalization",
    "cluster_distances",
    "cluster_users",
    "dp_epsilon",
    "expected_distance",
    "greedy_area_generalization",
    "greedy_generalization",
    "hybrid_joint",
    "hybrid_leakage",
    "improve_generalization",
    "initial_generalization",
    "keep_own",
    "optimal_interval_partition",
    "private_domain",
    "repair_budget",
    "sample_cluster_release",
    "solve_obfuscation",
    "transposed_leakage",
]
