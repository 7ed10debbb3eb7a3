"""Recommendation utility of a release (HyObscure Sect. IV-A4).

Both scores follow the same protocol: the published features of the *known* items (movies or
venue categories) define user-to-user cosine similarities; the *held-out* items, never obfuscated,
are the recommendation target. Users are split into neighbours (``train``) and targets (``test``).

* :func:`cf_rmse`: user-based collaborative filtering (Herlocker et al.): the predicted rating of
  a held-out movie is the similarity-weighted mean of the neighbours' ratings of it, weights
  L1-normalized over the neighbours who rated it; RMSE over the targets' rated entries.
* :func:`activity_map`: activity recommendation: every held-out category visited by some neighbour
  is scored by the summed similarity of the neighbours who visited it; a target's ranking is
  scored by average precision against the categories it visited; mean over targets with at least
  one visit (the authors' code: precision averaged over the ranks of the hits, items never
  visited by a neighbour cannot be ranked). The paper reports ``1 - mAP``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ppdp._validation import StrOptions, check_params

__all__ = ["activity_map", "cf_rmse", "cosine_similarity_matrix"]


def _matrix(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr


def cosine_similarity_matrix(A: Any, B: Any) -> np.ndarray:
    """Cosine similarity between every row of ``A`` and every row of ``B`` (0 for a zero row).

    Parameters
    ----------
    A : array_like, shape (n, m)
    B : array_like, shape (p, m)
        Finite feature rows (ratings, visit counts), the same ``m`` columns as ``A``.

    Returns
    -------
    ndarray of float, shape (n, p)
        ``A[i] . B[j] / (|A[i]| |B[j]|)``; a row of zeros has similarity 0 with every row.

    Raises
    ------
    ValueError
        For an array that is not 2-D or not finite, or ``A`` and ``B`` with different numbers
        of columns.

    Examples
    --------
    >>> cosine_similarity_matrix([[1, 0], [1, 1], [0, 0]], [[1, 0], [0, 2]]).round(3).tolist()
    [[1.0, 0.0], [0.707, 0.707], [0.0, 0.0]]
    """
    A = _matrix(A, "A")
    B = _matrix(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"A and B need the same number of columns; got {A.shape[1]} and {B.shape[1]}"
        )
    na = np.linalg.norm(A, axis=1)
    nb = np.linalg.norm(B, axis=1)
    na[na == 0] = 1.0
    nb[nb == 0] = 1.0
    return (A / na[:, None]) @ (B / nb[:, None]).T


def _check_pair(known_train, known_test, held_train, held_test):
    kt = _matrix(known_train, "known_train")
    ke = _matrix(known_test, "known_test")
    ht = _matrix(held_train, "held_train")
    he = _matrix(held_test, "held_test")
    if kt.shape[0] != ht.shape[0]:
        raise ValueError(
            f"known_train and held_train need the same users; got {kt.shape[0]} and {ht.shape[0]}"
        )
    if ke.shape[0] != he.shape[0]:
        raise ValueError(
            f"known_test and held_test need the same users; got {ke.shape[0]} and {he.shape[0]}"
        )
    if ht.shape[1] != he.shape[1]:
        raise ValueError("held_train and held_test need the same held-out items")
    return kt, ke, ht, he


def cf_rmse(
    known_train: Any,
    known_test: Any,
    held_train: Any,
    held_test: Any,
    *,
    unpredicted: str = "skip",
) -> float:
    """RMSE of user-based cosine collaborative filtering on held-out ratings (0 = unrated).

    Parameters
    ----------
    known_train, known_test : array_like, shapes (n_tr, m), (n_te, m)
        Published ratings of the known movies (neighbours, targets).
    held_train, held_test : array_like, shapes (n_tr, h), (n_te, h)
        Real ratings of the held-out movies.
    unpredicted : {"skip", "zero"}
        Entries whose movie no neighbour with non-zero similarity rated cannot be predicted:
        ``"skip"`` leaves them out of the score; ``"zero"`` predicts 0 for them and scores them,
        as the authors' HyObscure code (``recommendation()``) does.

    Returns
    -------
    float
        The RMSE over the targets' rated held-out entries (those predicted, with ``"skip"``).

    Raises
    ------
    ValueError
        For arrays that are not 2-D and finite or whose shapes do not pair up, ``unpredicted``
        not one of the two options, or nothing to score (no held-out rating of a target, or,
        with ``"skip"``, none that can be predicted).

    Examples
    --------
    Two neighbours and two targets, three known and two held-out movies; no neighbour rated the
    second held-out movie, which the first target rated 3:

    >>> known_train = [[5, 4, 0], [0, 1, 5]]
    >>> held_train = [[4, 0], [2, 0]]
    >>> known_test = [[4, 5, 0], [0, 0, 4]]
    >>> held_test = [[5, 3], [2, 0]]
    >>> round(cf_rmse(known_train, known_test, held_train, held_test), 3)
    0.899
    >>> round(cf_rmse(known_train, known_test, held_train, held_test, unpredicted="zero"), 3)
    1.881
    """
    check_params(
        {"unpredicted": unpredicted},
        {"unpredicted": [StrOptions(("skip", "zero"))]},
        "cf_rmse",
    )
    kt, ke, ht, he = _check_pair(known_train, known_test, held_train, held_test)
    S = cosine_similarity_matrix(ke, kt)
    rated = (ht > 0).astype(np.float64)
    num = S @ ht
    den = np.abs(S) @ rated
    target = he > 0
    ok = target & (den > 0)
    if unpredicted == "zero":
        if not target.any():
            raise ValueError("no target user has a held-out rating")
        pred = np.zeros_like(he)
        pred[ok] = num[ok] / den[ok]
        return float(np.sqrt(np.mean((pred[target] - he[target]) ** 2)))
    if not ok.any():
        raise ValueError("no held-out rating of a target user can be predicted from the neighbours")
    pred = num[ok] / den[ok]
    return float(np.sqrt(np.mean((pred - he[ok]) ** 2)))


def activity_map(known_train: Any, known_test: Any, held_train: Any, held_test: Any) -> float:
    """Mean average precision of similarity-based activity recommendation (0 = not visited).

    Parameters
    ----------
    known_train, known_test : array_like, shapes (n_tr, m), (n_te, m)
        Published visit counts of the known venue categories (neighbours, targets).
    held_train, held_test : array_like, shapes (n_tr, h), (n_te, h)
        Real visit counts of the held-out categories.

    Returns
    -------
    float
        The mAP in ``[0, 1]`` over the targets with at least one held-out visit (the paper
        reports ``1 - mAP``).

    Raises
    ------
    ValueError
        For arrays that are not 2-D and finite or whose shapes do not pair up, or when no target
        visited a held-out category.

    Examples
    --------
    The first target resembles the first neighbour only and visits what it visited (AP 1); the
    second resembles the first neighbour more but visits what the second one visited (ranked
    second, AP 0.5):

    >>> known_train, held_train = [[3, 0], [0, 2]], [[1, 0], [0, 4]]
    >>> known_test, held_test = [[1, 0], [2, 1]], [[1, 0], [0, 1]]
    >>> activity_map(known_train, known_test, held_train, held_test)
    0.75
    """
    kt, ke, ht, he = _check_pair(known_train, known_test, held_train, held_test)
    S = cosine_similarity_matrix(ke, kt)
    visited = (ht > 0).astype(np.float64)
    candidate = visited.sum(axis=0) > 0
    scores = S @ visited
    aps = []
    for u in range(he.shape[0]):
        relevant = he[u] > 0
        if not relevant.any():
            continue
        items = np.flatnonzero(candidate)
        order = items[np.lexsort((items, -scores[u, items]))]
        hits = relevant[order]
        if not hits.any():
            aps.append(0.0)
            continue
        ranks = np.flatnonzero(hits) + 1
        precision = np.arange(1, len(ranks) + 1) / ranks
        aps.append(float(precision.mean()))
    if not aps:
        raise ValueError("no target user has a held-out activity")
    return float(np.mean(aps))
