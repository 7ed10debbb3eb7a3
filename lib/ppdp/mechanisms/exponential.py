"""The exponential mechanism over a distance matrix (McSherry and Talwar, FOCS 2007).

Row ``i`` of the mechanism draws output ``j`` with probability proportional to
``exp(-beta d(i, j))``. For outputs shared by all inputs it is ``epsilon = 2 beta d_max``
differentially private between any two inputs, ``d_max`` the largest distance. SPPM compares with it
as its baseline (Sec. 4.2) and HyObscure's "DP" obfuscation baseline (Sect. IV-A5) uses it between
the users of a generalized group.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exponential_epsilon", "exponential_weights"]


def exponential_weights(distances: np.ndarray, beta: float) -> np.ndarray:
    """Row-stochastic ``p(j | i) ∝ exp(-beta d(i, j))`` of a block of rows of distances.

    Each row is shifted by its smallest distance before exponentiating, so that its largest weight
    is ``exp(0) = 1``: no underflow to an all-zero row, whatever ``beta``.
    """
    d = np.asarray(distances, dtype=np.float64)
    w = np.exp(-beta * (d - d.min(axis=1, keepdims=True)))
    w /= w.sum(axis=1, keepdims=True)
    return w


def exponential_epsilon(beta: float, d_max: float) -> float:
    """The mechanism's privacy level ``2 beta d_max``."""
    return 2.0 * beta * d_max
