"""Problem (1): validation of ``(p_ab, distortion, delta)`` and the distortion budget of Eq. (2).

Expected distortion, the smallest feasible budget, the exact repair of a mapping into the budget,
the budget's guarantee check, and the synthetic problem of Sec. 2 / Sec. 4.1.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from ppdp._validation import Interval, check_params
from ppdp.guarantees import GuaranteeCheck

from .distortion import SquaredDistortion, as_distortion

_PROB_ATOL = 1e-9


#: The distortion budget of Eq. (2): a finite number >= 0.
DELTA = [Interval(Real, 0, None, closed="left")]


def validate_problem(p_ab, distortion, delta=None, *, check_feasible: bool = True):
    """Check the inputs of problem (1) and return them in canonical form.

    Parameters
    ----------
    p_ab : array of shape (|A|, |B|)
        Joint distribution: finite, non-negative, summing to one (tolerance 1e-9).
    distortion : array or Distortion of shape (|B|, |B^|)
        Finite and non-negative.
    delta : float or None
        Distortion budget, ``>= 0``. When ``check_feasible`` and ``d(b, b) > 0`` is possible, a
        budget below the smallest achievable expected distortion
        ``sum_b p(b) min_b^ d(b, b^)`` raises ``ValueError`` naming that smallest budget.

    check_feasible : bool, default True
        Whether to check ``delta`` against the smallest feasible budget.

    Returns
    -------
    p_ab : ndarray, distortion : Distortion, delta : float or None

    Raises
    ------
    TypeError
        If ``p_ab`` is not numeric, or ``distortion`` is neither an array nor a
        :class:`Distortion` (see :func:`as_distortion`).
    ValueError
        If ``p_ab`` is not a finite, non-negative 2-D array summing to one, if the distortion's
        first dimension is not ``|B|`` or it has infinite or negative entries, if ``delta`` is
        not a number ``>= 0`` (an ``InvalidParameterError``, also a ``TypeError``), or if it is
        below the smallest feasible budget.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import validate_problem
    >>> p, dist, delta = validate_problem([[0.25, 0.25], [0.5, 0.0]], np.ones((2, 2)), 1)
    >>> p.shape, type(dist).__name__, delta
    ((2, 2), 'DenseDistortion', 1.0)

    A budget below ``sum_b p(b) min_b^ d(b, b^)`` (here 1) is infeasible:

    >>> validate_problem([[0.5, 0.5]], np.array([[1.0, 2.0], [2.0, 1.0]]), 0.5)
    Traceback (most recent call last):
    ...
    ValueError: delta = 0.5 is infeasible: no mapping has expected distortion below 1 ...
    """
    if sp.issparse(p_ab):
        p_ab = p_ab.toarray()
    try:
        p = np.asarray(p_ab, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"p_ab must be a numeric array of shape (|A|, |B|), got {type(p_ab).__name__}"
        ) from exc
    if p.ndim != 2 or p.shape[0] < 1 or p.shape[1] < 1:
        raise ValueError(f"p_ab must be a 2-D array of shape (|A|, |B|), got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError("p_ab must be finite; it holds NaN or infinite entries")
    if p.min() < 0:
        raise ValueError(f"p_ab must be non-negative; its smallest entry is {p.min():.6g}")
    total = p.sum()
    if abs(total - 1.0) > _PROB_ATOL:
        raise ValueError(
            f"p_ab must be a probability distribution summing to 1, it sums to {total:.12g}"
        )
    dist = as_distortion(distortion)
    if dist.shape[0] != p.shape[1]:
        raise ValueError(
            f"distortion has shape {dist.shape}; its first dimension must equal |B| = {p.shape[1]} "
            "(the number of columns of p_ab)"
        )
    dmin = dist.min()
    if not math.isfinite(dmin) or not math.isfinite(dist.max()):
        raise ValueError("distortion must be finite")
    if dmin < 0:
        raise ValueError(f"distortion must be non-negative; its smallest entry is {dmin:.6g}")
    if delta is not None:
        check_params({"delta": delta}, {"delta": DELTA}, "validate_problem")
        delta = float(delta)
        if check_feasible:
            smallest = min_feasible_budget(p, dist)
            if delta < smallest * (1 - 1e-12) - 1e-15:
                raise ValueError(
                    f"delta = {delta:.6g} is infeasible: no mapping has expected distortion below "
                    f"{smallest:.6g} (the smallest feasible budget, sum_b p(b) min_b^ d(b, b^))"
                )
    return p, dist, delta


def min_feasible_budget(p_ab, distortion) -> float:
    """Smallest achievable expected distortion, ``sum_b p(b) min_b^ d(b, b^)``.

    It is reached by the nearest-point mapping (each ``b`` to its closest ``b^``), and 0 when
    ``d(b, b) = 0`` for every profile; a budget of Eq. (2) below it admits no mapping.

    Parameters
    ----------
    p_ab : array of shape (|A|, |B|)
        Joint distribution (not validated here).
    distortion : array or Distortion of shape (|B|, |B^|)

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import min_feasible_budget, synthetic_problem
    >>> min_feasible_budget(*synthetic_problem(2))
    0.0
    >>> min_feasible_budget([[0.5, 0.5]], np.array([[1.0, 2.0], [3.0, 2.0]]))
    1.5
    """
    p_b = np.asarray(p_ab, dtype=float).sum(axis=0)
    _, vals = as_distortion(distortion).row_min()
    return float(p_b @ vals)


def expected_distortion(p_ab, distortion, mapping) -> float:
    """``E[d(B, B^)] = sum_b p(b) sum_b^ p(b^ | b) d(b, b^)`` for a dense or sparse mapping.

    The left side of the budget constraint (Eq. 2), computed by blocks of the distortion (or on
    the support of a sparse mapping), so no ``|B| x |B^|`` distortion array is formed.

    Parameters
    ----------
    p_ab : array of shape (|A|, |B|)
        Joint distribution (not validated here).
    distortion : array or Distortion of shape (|B|, |B^|)
    mapping : array or sparse matrix of shape (|B|, |B^|)
        Row ``b`` is ``p(. | b)``.

    Returns
    -------
    float

    Examples
    --------
    On the toy problem with four points, the identity costs nothing and the uniform mapping
    ``E[(B - B^)^2] = 2.5``:

    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import expected_distortion, synthetic_problem
    >>> p, d = synthetic_problem(2)
    >>> expected_distortion(p, d, np.eye(4)), expected_distortion(p, d, np.full((4, 4), 0.25))
    (0.0, 2.5)
    """
    p_b = np.asarray(p_ab, dtype=float).sum(axis=0)
    dist = as_distortion(distortion)
    if sp.issparse(mapping):
        coo = sp.coo_matrix(mapping)
        return float(np.sum(p_b[coo.row] * coo.data * dist.entries(coo.row, coo.col)))
    mapping = np.asarray(mapping, dtype=float)
    total = 0.0
    for rows in dist.chunks():
        total += float(p_b[rows] @ (mapping[rows] * dist.block(rows)).sum(axis=1))
    return total


def _check_mapping_shape(mapping, n_rows):
    if mapping.ndim != 2 or mapping.shape[0] != n_rows:
        raise ValueError(
            f"mapping must have shape (|B|, |B^|) with |B| = {n_rows}, got {mapping.shape}"
        )


def repair_distortion(p_ab, distortion, mapping, delta):
    """Bring a mapping back within the distortion budget ``E[d(B, B^)] <= delta`` exactly.

    Solvers meet the budget up to their feasibility tolerance (HiGHS's LP vertices up to ~1e-7
    in scaled units, Clarabel's exponential-cone solution up to ~1e-6 relative, and clipping and
    renormalizing its rows moves it again). The expected distortion is linear in the mapping, so
    the convex combination ``N + lam (X - N)`` with the nearest-point mapping ``N`` (each ``b``
    to its closest ``b^``, the cheapest mapping, within every admissible budget) and
    ``lam = (delta - E_N) / (E_X - E_N)`` meets the budget exactly. A mapping within budget is
    returned unchanged.

    Parameters
    ----------
    p_ab : array of shape (|A|, |B|)
        Joint distribution (not validated here).
    distortion : array or Distortion of shape (|B|, |B^|)
    mapping : array or sparse matrix of shape (|B|, |B^|)
        The mapping to repair; rows sum to one.
    delta : float
        The budget, at least the smallest feasible one (:func:`min_feasible_budget`).

    Returns
    -------
    mapping : same kind as the input (sparse stays sparse)
    excess : float
        By how much the mapping exceeded ``delta`` before the repair (0 when it did not).

    Examples
    --------
    The uniform mapping on the toy problem spends 2.5; repaired to a budget of 1, it moves
    towards the identity until the budget holds:

    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import expected_distortion, repair_distortion, synthetic_problem
    >>> p, d = synthetic_problem(2)
    >>> repaired, excess = repair_distortion(p, d, np.full((4, 4), 0.25), 1.0)
    >>> excess, expected_distortion(p, d, repaired) <= 1.0
    (1.5, True)
    >>> repaired.round(3)
    array([[0.7, 0.1, 0.1, 0.1],
           [0.1, 0.7, 0.1, 0.1],
           [0.1, 0.1, 0.7, 0.1],
           [0.1, 0.1, 0.1, 0.7]])
    """
    dist = as_distortion(distortion)
    value = expected_distortion(p_ab, dist, mapping)
    excess = value - delta
    if excess <= 0:
        return mapping, 0.0
    n, m = dist.shape
    arg, _ = dist.row_min()
    nearest = sp.csr_matrix((np.ones(n), (np.arange(n), arg)), shape=(n, m))
    if not sp.issparse(mapping):
        nearest = nearest.toarray()
    base = expected_distortion(p_ab, dist, nearest)
    lam = min(max((delta - base) / (value - base), 0.0), 1.0) if value > base else 0.0
    # the last bits of the products can land above the budget: step further inside, by
    # doubling relative amounts, down to the nearest-point mapping itself (lam = 0)
    for i in range(42):
        repaired = nearest * (1.0 - lam) + mapping * lam
        if sp.issparse(repaired):
            repaired = sp.csr_matrix(repaired)
            repaired.eliminate_zeros()
        if expected_distortion(p_ab, dist, repaired) <= delta or lam == 0.0:
            break
        lam *= 1.0 - 2.0 ** min(i - 40, 0)
    return repaired, float(excess)


def budget_check(mechanism, p_ab, distortion, mapping, delta) -> GuaranteeCheck:
    return GuaranteeCheck(
        type(mechanism).__name__,
        "distortion budget",
        float(delta),
        expected_distortion(p_ab, distortion, mapping),
        "at_most",
        "E[d(B, B^)] over all profiles",
    )


def synthetic_problem(m: int):
    """The toy example of Sec. 2 / the synthetic data of Sec. 4.1.

    ``A`` is uniform on {0, 1}; ``B`` is uniform on {1, ..., 2^m}, its first half only with
    ``A = 0`` and its second half only with ``A = 1``; squared distortion ``(b - b^)^2``.

    Parameters
    ----------
    m : int >= 1
        ``|B| = 2^m`` points.

    Returns
    -------
    p_ab : ndarray of shape (2, 2^m)
    distortion : SquaredDistortion

    Raises
    ------
    ValueError
        If ``m`` is not an integer ``>= 1`` (an ``InvalidParameterError``, also a ``TypeError``).

    Examples
    --------
    >>> from ppdp.mechanisms.sppm import synthetic_problem
    >>> p, d = synthetic_problem(2)
    >>> p
    array([[0.25, 0.25, 0.  , 0.  ],
           [0.  , 0.  , 0.25, 0.25]])
    >>> d.toarray()[0]
    array([0., 1., 4., 9.])
    """
    check_params({"m": m}, {"m": [Interval(Integral, 1, None, closed="left")]}, "synthetic_problem")
    n = 2 ** int(m)
    p_ab = np.zeros((2, n))
    p_ab[0, : n // 2] = 1.0 / n
    p_ab[1, n // 2 :] = 1.0 / n
    return p_ab, SquaredDistortion(np.arange(1, n + 1, dtype=float))
