"""Releasing values from a fitted mapping, and the nearest-point profile of a mapping (Fig. 5)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ppdp.base import ArrayMechanism, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce

from .distortion import as_distortion
from .problem import budget_check


def _check_profiles(b, n: int) -> np.ndarray:
    """Profile indices to release: integers (or integral floats) in ``[0, n)``."""
    arr = np.asarray(b)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"b must hold integer profile indices; got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            first = int(np.flatnonzero(bad.ravel())[0])
            raise ValueError(
                f"b must hold integer profile indices; b[{first}] = {float(arr.ravel()[first])!r} is "
                "not an integer"
            )
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        first = int(np.flatnonzero(((arr < 0) | (arr >= n)).ravel())[0])
        raise ValueError(
            f"b must hold profile indices in [0, {n}); b[{first}] = {arr.ravel()[first]} "
            f"(range [{arr.min()}, {arr.max()}])"
        )
    return arr


def sample_release(mapping, b, random_state=None) -> np.ndarray:
    """Draw ``b^ ~ p(. | b)`` for each index in ``b`` (dense or sparse mapping).

    One uniform number per entry of ``b``, inverted through the cumulative sum of its row; no
    budget check (the fitted mechanisms' ``release`` adds it).

    Parameters
    ----------
    mapping : array or sparse matrix of shape (|B|, |B^|)
        Row ``b`` is ``p(. | b)``.
    b : array_like of int
        Profile indices in ``[0, |B|)`` (integral floats are accepted).
    random_state : None, int or numpy.random.Generator, optional
        Seed or generator (:func:`ppdp.base.check_random_state`).

    Returns
    -------
    ndarray of int64, of the length of ``b``
        The released value's index for each entry of ``b``.

    Raises
    ------
    TypeError
        If ``b`` does not hold integer indices.
    ValueError
        If an index is not an integer or lies outside ``[0, |B|)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import sample_release
    >>> mapping = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 1.0]])
    >>> sample_release(mapping, [0, 1, 1, 1, 2, 1], random_state=0)
    array([0, 1, 1, 1, 2, 2])
    """
    rng = check_random_state(random_state)
    n = mapping.shape[0]
    b = _check_profiles(b, n)
    u = rng.random(b.size)
    out = np.empty(b.size, dtype=np.int64)
    M = sp.csr_matrix(mapping)
    for row in np.unique(b):
        sel = np.flatnonzero(b == row)
        lo, hi = M.indptr[row], M.indptr[row + 1]
        cdf = np.cumsum(M.data[lo:hi])
        cdf /= cdf[-1]
        out[sel] = M.indices[lo:hi][
            np.minimum(np.searchsorted(cdf, u[sel], side="right"), hi - lo - 1)
        ]
    return out


def nearest_point_profile(mapping, distortion, k_max: int | None = None, weights=None):
    """Probability of mapping each ``b`` to its ``k``-th nearest released value (Fig. 5).

    Values are ranked by increasing distortion ``d(b, .)`` (ties by index; ``k = 0`` is the
    nearest, which is ``b`` itself when ``d(b, b) = 0``).

    Parameters
    ----------
    mapping : array or sparse matrix of shape (|B|, |B^|)
        Row ``b`` is ``p(. | b)``.
    distortion : array or Distortion of shape (|B|, |B^|)
        Ranks the released values of each row.
    k_max : int, optional
        Report ranks ``0 .. k_max - 1`` (default: all ``|B^|``).
    weights : array_like of shape (|B|,), optional
        Weights of the profiles (normalized to sum to one); uniform by default.

    Returns
    -------
    pandas.DataFrame with columns ``k, mean, std, sem`` over the profiles (weighted by ``weights``
    when given, e.g. ``p(b)``).

    Examples
    --------
    Profile 1 keeps its own value half the time and otherwise takes its farthest value:

    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm import SquaredDistortion, nearest_point_profile
    >>> mapping = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 1.0]])
    >>> nearest_point_profile(mapping, SquaredDistortion([0.0, 1.0, 3.0])).round(3)
       k   mean    std    sem
    0  0  0.833  0.236  0.136
    1  1  0.000  0.000  0.000
    2  2  0.167  0.236  0.136
    """
    dist = as_distortion(distortion)
    n, m = dist.shape
    k_max = m if k_max is None else min(int(k_max), m)
    M = sp.csr_matrix(mapping)
    probs = np.empty((n, k_max))
    for rows in dist.chunks():
        d = dist.block(rows)
        order = np.argsort(d, axis=1, kind="stable")[:, :k_max]
        dense = M[rows].toarray()
        probs[rows] = np.take_along_axis(dense, order, axis=1)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    w = w / w.sum()
    mean = w @ probs
    var = w @ (probs - mean) ** 2
    std = np.sqrt(var)
    n_eff = 1.0 / np.sum(w**2)
    return pd.DataFrame(
        {"k": np.arange(k_max), "mean": mean, "std": std, "sem": std / np.sqrt(n_eff)}
    )


class BudgetedMapping(ArrayMechanism):
    """What SPPM and the exact and certified optima share once fitted: the budget and the release.

    A subclass stores its hyper-parameters as given (``delta`` among them), checks them in
    ``fit(p_ab, distortion)``, and sets there ``p_ab_``, ``_distortion`` and ``mapping_``, the
    mapping :meth:`release` draws from, repaired to the budget (see
    :func:`~ppdp.mechanisms.sppm.repair_distortion`).

    Attributes
    ----------
    guarantee : str
        Class attribute: the distortion budget of Eq. (2).
    repetition : str
        Class attribute: ``"leaks"`` (see below).
    n_releases_ : int
        Releases since the last ``fit`` (:class:`~ppdp.base.ReleaseLedger`).
    """

    #: Every release is checked against the budget of problem (1) on the mapping it draws from.
    guarantee: ClassVar[str] = (
        "the distortion budget of the mapping every release draws from, E[d(B, B^)] at most "
        "``delta`` (Eq. 2)."
    )

    #: Each release draws b^ ~ p(. | b) again for the same profiles; an attacker holding several
    #: releases of one person's profile sees several independent draws, and the leakage I(A; B^)
    #: the mapping minimizes is that of one draw.
    repetition: ClassVar[str] = "leaks"

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """The distortion budget ``E[d(B, B^)] <= delta`` (Eq. 2) measured on ``mapping_``."""
        check_fitted(self, "mapping_")
        return [budget_check(self, self.p_ab_, self._distortion, self.mapping_, self.delta)]

    def release(self, b, random_state=None) -> np.ndarray:
        """Release ``b^ ~ p(. | b)`` for each profile index in ``b``, after the budget check.

        Parameters
        ----------
        b : array_like of int
            Profile indices in ``[0, |B|)`` (integral floats are accepted).
        random_state : None, int >= 0 or numpy.random.Generator, optional
            Seed or stream (:func:`ppdp.base.check_random_state`): one uniform number per entry
            of ``b``.

        Returns
        -------
        ndarray of int64, of the length of ``b``
            The released value's index for each entry of ``b`` (:func:`~ppdp.mechanisms.sppm.sample_release`).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ppdp.guarantees.GuaranteeViolation
            If the fitted mapping breaks the budget (:meth:`guarantee_checks`).
        """
        check_fitted(self, "mapping_")
        rng = check_random_state(random_state)
        enforce(self.guarantee_checks())
        return sample_release(self.mapping_, b, rng)
