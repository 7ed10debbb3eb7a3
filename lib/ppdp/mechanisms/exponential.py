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

    Parameters
    ----------
    distances : ndarray (r, n)
        ``d(i, j)`` from each of ``r`` inputs to each of ``n`` outputs.
    beta : float
        The inverse temperature; 0 gives uniform rows.

    Returns
    -------
    ndarray (r, n)
        ``p(j | i)``, each row summing to one.

    Examples
    --------
    Three points on a line, ``beta = ln 2``: each step away halves the weight. The largest log
    ratio between two rows stays below :func:`exponential_epsilon`'s bound ``2 beta d_max``:

    >>> import numpy as np
    >>> from ppdp.mechanisms.exponential import exponential_epsilon, exponential_weights
    >>> d = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    >>> w = exponential_weights(d, np.log(2))
    >>> w.round(3).tolist()
    [[0.571, 0.286, 0.143], [0.25, 0.5, 0.25], [0.143, 0.286, 0.571]]
    >>> round(float(np.log(w.max(axis=0) / w.min(axis=0)).max()), 3)
    1.386
    >>> round(float(exponential_epsilon(np.log(2), d.max())), 3)
    2.773
    >>> exponential_weights(np.array([[1000.0, 1001.0]]), 5.0).round(4).tolist()  # no underflow
    [[0.9933, 0.0067]]
    """
    d = np.asarray(distances, dtype=np.float64)
    w = np.exp(-beta * (d - d.min(axis=1, keepdims=True)))
    w /= w.sum(axis=1, keepdims=True)
    return w


def exponential_epsilon(beta: float, d_max: float) -> float:
    """The mechanism's privacy level ``2 beta d_max``.

    Parameters
    ----------
    beta : float
        The inverse temperature of :func:`exponential_weights`.
    d_max : float
        The largest distance between an input and an output.

    Returns
    -------
    float
        ``epsilon``: any two rows of the mechanism differ by a factor of at most ``e^epsilon``.

    Examples
    --------
    >>> from ppdp.mechanisms.exponential import exponential_epsilon
    >>> exponential_epsilon(0.25, 4.0)
    2.0
    """
    return 2.0 * beta * d_max
