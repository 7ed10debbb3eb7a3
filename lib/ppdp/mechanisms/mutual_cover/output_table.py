"""A random output table of one group and one attribute (Definition 3) and its delta (Definition 5).

:class:`RandomOutputTable` holds one row per distinct original value of the group, weighted by how
many records carry it; :func:`table_delta_ratio` measures Definition 5 on such a table: the largest
probability that an output value came from one given record.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class RandomOutputTable:
    """A random output table of one QI group and one attribute (Definition 3).

    Attributes
    ----------
    columns : ndarray (n,)
        The output values ``v_j^col``.
    values : ndarray (r,)
        The distinct original values of the group.
    counts : ndarray (r,)
        How many records carry each distinct value.
    probabilities : ndarray (r, n)
        ``p(v_j^col | value)``; every record with original value ``values[k]`` uses row ``k``.
    objective : float
        The LP objective over all records, ``sum_k counts[k] * sum_j dis(values[k], columns[j]) p_kj``.

    Examples
    --------
    A group of four ages, two of them equal: the integer columns 28 to 33 (as in Fig. 2), one
    row per distinct age:

    >>> from ppdp.mechanisms.mutual_cover import random_output_table
    >>> table = random_output_table([28, 30, 30, 33], delta=0.5)
    >>> table.columns.tolist(), table.values.tolist(), table.counts.tolist()
    ([28, 29, 30, 31, 32, 33], [28, 30, 33], [1, 2, 1])
    >>> table.probabilities.shape, table.expand([30, 28, 33, 30]).shape
    ((3, 6), (4, 6))
    >>> round(table.objective, 6), round(table.delta_ratio(), 6)
    (5.0, 0.5)
    """

    columns: np.ndarray
    values: np.ndarray
    counts: np.ndarray
    probabilities: np.ndarray
    objective: float

    def expand(self, original_values) -> np.ndarray:
        """The full ``m x n`` table, one row per record of ``original_values``."""
        lookup = {v: k for k, v in enumerate(self.values.tolist())}
        rows = [lookup[v] for v in np.asarray(original_values).tolist()]
        return self.probabilities[rows]

    def delta_ratio(self) -> float:
        """``max_j max_i p_ij / sum_i p_ij`` over columns with positive mass (Definition 5)."""
        return table_delta_ratio(self.probabilities, self.counts)


def table_delta_ratio(probabilities: np.ndarray, counts: np.ndarray) -> float:
    """Largest ``p_kj / sum_k' c_k' p_k'j`` over the columns with positive mass (Definition 5).

    ``probabilities`` has one row per distinct value, ``counts`` the records of each row.

    Parameters
    ----------
    probabilities : array-like (r, n)
        ``p(v_j^col | value_k)``, one row per distinct original value.
    counts : array-like (r,)
        Records per row.

    Returns
    -------
    float
        The table's delta: the largest probability that an output value came from one given
        record; NaN when no column has mass.

    Examples
    --------
    Two records that keep their value give it away (delta 1); two that draw from the same row
    cover each other (delta 1/2):

    >>> import numpy as np
    >>> from ppdp.mechanisms.mutual_cover import table_delta_ratio
    >>> table_delta_ratio(np.eye(2), [1, 1])
    1.0
    >>> table_delta_ratio([[0.5, 0.5], [0.5, 0.5]], [1, 1])
    0.5
    >>> table_delta_ratio([[0.7, 0.3], [0.3, 0.7]], [1, 1])
    0.7
    """
    p = np.asarray(probabilities, dtype=float)
    mass = np.asarray(counts, dtype=float) @ p
    used = mass > 0
    if not used.any():
        return float("nan")
    return float((p.max(axis=0)[used] / mass[used]).max())
