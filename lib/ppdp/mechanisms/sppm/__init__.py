"""Sparse privacy-preserving mappings (SPPM), the exact optimum and the exponential mechanism.

Salamatian, Fawaz, Kveton and Taft, "SPPM: Sparse Privacy Preserving Mappings", UAI 2014.

The problem (Eq. 1-2 of the paper): given a joint distribution ``p_ab`` of a private attribute
``A`` (rows) and a public profile ``B`` (columns), a distortion ``d(b, b^)`` and a budget ``delta``,
find the privacy-preserving mapping ``p(b^ | b)`` that minimizes the leakage ``I(A; B^)`` subject to
``E[d(B, B^)] <= delta``.

Conventions
-----------
* ``p_ab`` has shape ``(|A|, |B|)`` and sums to one.
* A mapping has shape ``(|B|, |B^|)``; row ``b`` is the distribution ``p(. | b)``. The paper stores
  the transpose (``x_ij = p(b^_i | b_j)``, one column per ``b``); every formula here is the paper's
  with rows and columns swapped.
* A distortion is a :class:`Distortion` (dense, squared Euclidean or Hamming) or any array of shape
  ``(|B|, |B^|)``. The structured ones compute blocks on demand, so no ``|B| x |B^|`` array is ever
  materialized by :class:`SPPM`.
* Leakage is in bits and always computed by :func:`ppdp.infotheory.leakage`.
* Every fitted mapping meets the budget exactly: solver residue is removed by
  :func:`repair_distortion`, and ``fit`` and ``release`` check ``E[d(B, B^)] <= delta`` on the
  mapping (``guarantee_checks``), raising :class:`~ppdp.guarantees.GuaranteeViolation` otherwise.
* Each solver is a :class:`ppdp.base.ArrayMechanism`: the constructor stores its hyper-parameters
  as given, ``fit(p_ab, distortion)`` checks them and learns the mapping, and
  ``release(b, random_state=None)`` draws ``b^ ~ p(. | b)`` for profile indices ``b``.

Four solvers are provided:

:class:`SPPM`
    Algorithms 1 and 2: Frank-Wolfe over the feasible set, each linear step (Eq. 3) solved by column
    generation (the Dantzig-Wolfe scheme of Algorithm 2) on a growing set of active variables.
:class:`ExactMapping`
    The convex program (1) solved with cvxpy (relative-entropy cones, Clarabel or SCS), the
    reference for SPPM's quality on small alphabets.
:class:`CertifiedMapping`
    The convex program (1) by column generation: a restricted master over active pairs solved
    with Clarabel, priced from its multipliers, stopped when its certificate's gap is small (not
    in the paper; it scales where :class:`ExactMapping` cannot hold all pairs).
:class:`ExponentialMechanism`
    ``p(b^ | b) ~ exp(-beta d(b, b^))``, which is ``2 beta d_max``-locally differentially private;
    ``beta`` is set by bisection so that the expected distortion meets the budget.

Layout
------
Each module imports only from those listed above it; this package re-exports the public API.

``distortion``
    :class:`Distortion` and its dense, squared Euclidean and Hamming forms, :func:`as_distortion`.
``problem``
    Problem (1) and the budget of Eq. (2): :func:`validate_problem`, :func:`min_feasible_budget`,
    :func:`expected_distortion`, :func:`repair_distortion`, the budget's guarantee check, and
    :func:`synthetic_problem` (the toy example of Sec. 2, the synthetic data of Sec. 4.1).
``release``
    :func:`sample_release` and :func:`nearest_point_profile` (Fig. 5).
``column_generation``
    The linear step (Eq. 3-4, Algorithm 2): the restricted master LP (4), pricing (Eq. 7-8),
    :class:`LinearStep`, :func:`solve_linear_step`, :func:`solve_linear_step_full`.
``bounds``
    :func:`variational_lower_bound`: a certified lower bound on the optimum from the posterior of
    any mapping (Barber-Agakov, minimized over the feasible set by the linear step's solver).
``frank_wolfe``
    The gradient of the leakage (Sec. 3.4), the line search (Eq. 5) and :class:`SPPM`
    (Algorithm 1).
``exact``
    :class:`ExactMapping`, the convex program (1) with cvxpy.
``certified``
    :class:`CertifiedMapping`, the convex program (1) by column generation over a restricted
    convex master, with a certificate (lower bound, upper bound, gap) of its optimality.
``exponential``
    :class:`ExponentialMechanism` (Sec. 4.2), on :mod:`ppdp.mechanisms.exponential`.
``table``
    :class:`TableMapping`: any of the four on a DataFrame (profiles of declared private and
    released columns, their empirical joint and distortion), with ``fit`` / ``release``.
"""

from __future__ import annotations

from .bounds import variational_lower_bound
from .certified import CertifiedMapping
from .column_generation import LinearStep, solve_linear_step, solve_linear_step_full
from .distortion import (
    DenseDistortion,
    Distortion,
    HammingDistortion,
    SquaredDistortion,
    as_distortion,
)
from .exact import ExactMapping
from .exponential import ExponentialMechanism
from .frank_wolfe import SPPM
from .problem import (
    expected_distortion,
    min_feasible_budget,
    repair_distortion,
    synthetic_problem,
    validate_problem,
)
from .release import nearest_point_profile, sample_release
from .table import TableMapping

__all__ = [
    "SPPM",
    "CertifiedMapping",
    "DenseDistortion",
    "Distortion",
    "ExactMapping",
    "ExponentialMechanism",
    "HammingDistortion",
    "LinearStep",
    "SquaredDistortion",
    "TableMapping",
    "as_distortion",
    "expected_distortion",
    "min_feasible_budget",
    "nearest_point_profile",
    "repair_distortion",
    "sample_release",
    "solve_linear_step",
    "solve_linear_step_full",
    "synthetic_problem",
    "validate_problem",
    "variational_lower_bound",
]
