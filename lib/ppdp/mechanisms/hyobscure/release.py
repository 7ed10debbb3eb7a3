"""Published data sets of HyObscure and its baselines, and how one is drawn (Sect. III-F)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ppdp._validation import check_params
from ppdp.base import check_random_state

from .checks import PROBABILITY

# ------------------------------------------------------------------------------------------------
# releases


@dataclass(frozen=True)
class Release:
    """One published data set.

    Attributes
    ----------
    features : ndarray, shape (n, m)
        Published (obfuscated) features: row ``u`` is the feature row of user ``source[u]``.
    groups : ndarray, shape (n,)
        Published generalized value (group index) of each user.
    source : ndarray, shape (n,)
        Index of the user whose features were published for each user.

    Examples
    --------
    Drawn by a mechanism's ``release`` or by :func:`sample_cluster_release`; with the identity
    mapping every user is published with features of a user of their own cluster and group:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import sample_cluster_release
    >>> X = np.array([[1.0, 0], [2, 0], [0, 1], [0, 2]])
    >>> release = sample_cluster_release(
    ...     X, np.array([0, 0, 1, 1]), np.array([0, 0, 0, 0]), np.eye(2)[None], random_state=0)
    >>> release.groups
    array([0, 0, 0, 0])
    >>> bool((release.features == X[release.source]).all())
    True
    """

    features: np.ndarray
    groups: np.ndarray
    source: np.ndarray


def draw_categorical(probs: np.ndarray, random_state: Any = None) -> np.ndarray:
    """One draw per row of a row-stochastic matrix (inverse CDF, vectorized).

    Round-off in the cumulative sums can never select a zero-probability entry: the CDF is set to
    infinity from the last positive entry of each row on.
    """
    n, C = probs.shape
    cdf = np.cumsum(probs, axis=1)
    last = C - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
    cdf[np.arange(C)[None, :] >= last[:, None]] = np.inf
    u = check_random_state(random_state).random(n)
    return (cdf < u[:, None]).sum(axis=1)


def _cell_members(clusters: np.ndarray, groups: np.ndarray, C: int, K: int):
    cell = groups * C + clusters
    order = np.argsort(cell, kind="stable")
    sizes = np.bincount(cell, minlength=K * C)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return order, sizes, starts


def sample_cluster_release(
    X: np.ndarray,
    clusters: np.ndarray,
    groups: np.ndarray,
    mappings: np.ndarray,
    random_state: Any = None,
) -> Release:
    """Publish one data set (Sect. III-F): per user, draw ``c^ ~ O(.|c, y~)``, then a uniformly
    random user of cluster ``c^`` with the same ``y~``, and publish that user's features.

    Parameters
    ----------
    X : ndarray, shape (n, m)
        The users' features.
    clusters : ndarray of int, shape (n,)
        Cluster ``c`` of each user.
    groups : ndarray of int, shape (n,)
        Generalized value ``y~`` (group index) of each user.
    mappings : ndarray, shape (K, C, C)
        ``mappings[g, c, c^] = p(c^ | c, g)``.
    random_state : None, int >= 0 or numpy.random.Generator
        :func:`ppdp.base.check_random_state`; a Generator is used as is and advanced.

    Returns
    -------
    Release
        The published features, the users' own groups and the user each row was copied from.

    Raises
    ------
    RuntimeError
        When a mapping sends mass to a cluster with no user in the group.

    Examples
    --------
    Four users in one group, two clusters; cluster 0 is always published as cluster 1 and
    cluster 1 as itself:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import sample_cluster_release
    >>> X = np.array([[1.0, 0], [2, 0], [0, 1], [0, 2]])
    >>> clusters = np.array([0, 0, 1, 1])
    >>> mappings = np.array([[[0.0, 1.0], [0.0, 1.0]]])
    >>> release = sample_cluster_release(X, clusters, np.zeros(4, int), mappings, random_state=0)
    >>> clusters[release.source]
    array([1, 1, 1, 1])
    >>> release.features.shape
    (4, 2)
    """
    rng = check_random_state(random_state)
    K, C, _ = mappings.shape
    order, sizes, starts = _cell_members(clusters, groups, C, K)
    probs = mappings[groups, clusters]
    c_hat = draw_categorical(probs, rng)
    cell = groups * C + c_hat
    if (sizes[cell] == 0).any():
        raise RuntimeError(
            "an obfuscation mapping sends mass to a cluster with no user in the group"
        )
    pick = np.floor(rng.random(len(groups)) * sizes[cell]).astype(np.int64)
    source = order[starts[cell] + pick]
    return Release(features=X[source], groups=groups.copy(), source=source)


def keep_own(release: Release, X: np.ndarray, keep: float, random_state: Any = None) -> Release:
    """Leave each user unobfuscated with probability ``keep`` (the authors' ``pp``).

    The authors' evaluation joins low-utility-loss points to the curve this way: a user keeps
    their own features with probability ``pp`` and is obfuscated otherwise, while the published
    generalized value is the mechanism's at every ``pp``. ``keep=0`` returns ``release`` itself
    and draws nothing from ``rng`` (so the release is the same bytes as without this step);
    ``keep=1`` publishes every user's own features.

    Parameters
    ----------
    release : Release
        A release of the users whose features are the rows of ``X``.
    X : ndarray, shape (n, m)
        The users' own features.
    keep : float in [0, 1]
    random_state : None, int >= 0 or numpy.random.Generator
        :func:`ppdp.base.check_random_state`; a Generator is used as is and advanced.

    Returns
    -------
    Release
        The release with some (``keep`` in (0, 1)), none (0) or all (1) users publishing their
        own features; the groups are unchanged.

    Raises
    ------
    ValueError
        When ``keep`` is not in [0, 1] or ``X`` does not have one row per user of ``release``.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Release, keep_own
    >>> X = np.array([[1.0, 0], [2, 0], [0, 1], [0, 2]])
    >>> swapped = Release(features=X[[1, 0, 3, 2]], groups=np.zeros(4, int),
    ...                   source=np.array([1, 0, 3, 2]))
    >>> keep_own(swapped, X, keep=1.0).source
    array([0, 1, 2, 3])
    >>> keep_own(swapped, X, keep=0.0) is swapped
    True
    """
    check_params({"keep": keep}, {"keep": PROBABILITY}, "keep_own")
    keep = float(keep)
    rng = check_random_state(random_state)
    n = len(release.source)
    if X.shape[0] != n:
        raise ValueError(f"X has {X.shape[0]} rows; the release has {n} users")
    if keep == 0.0:
        return release
    own = rng.random(n) < keep
    source = np.where(own, np.arange(n), release.source)
    return Release(features=X[source], groups=release.groups.copy(), source=source)
