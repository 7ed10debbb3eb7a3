"""The benchmark's measures beyond the average: the tail of an attack and the population's utility.

An AUC averages over every target; a release that discloses a few people with certainty can
keep it near the baseline's. The tail measures read the confident end of an attacker's
posterior instead:

* :func:`tpr_at_fpr`: the share of true claims "target ``t`` has value ``s``" that the attacker
  makes at a confidence where at most a fraction ``fpr`` of the false claims are made, one-vs-rest
  over every (target, value) pair, so that disclosing any value counts (a man's sex as much as a
  woman's);
* :func:`confident_share`: the share of targets named correctly by claims made with posterior at
  least 0.99 that hold at least 99% of the time.

Each is reported as an advantage over the no-release baseline's, like the AUC
(:func:`tail_measures`).

Utility is what the population keeps (:func:`population_utility`): a model trained on the release
to predict the private attribute from the quasi-identifiers, scored on real people outside the
release, against the floor of a model that learns nothing (AUC 0.5): a release that scrambles the
private column scores the floor.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CONFIDENT",
    "TAIL_FPRS",
    "TAIL_MEASURES",
    "confident_share",
    "population_utility",
    "tail_measures",
    "tpr_at_fpr",
]

#: The false positive rates of the tail: 1% and 0.1%.
TAIL_FPRS = {"tpr_1pct": 0.01, "tpr_01pct": 0.001}
#: A confident disclosure: the true value inferred with at least this posterior.
CONFIDENT = 0.99
#: The tail measures' names, in the order reported.
TAIL_MEASURES = (*TAIL_FPRS, "confident")


def _checked(posterior, truth) -> tuple[np.ndarray, np.ndarray]:
    post = np.asarray(posterior, dtype=np.float64)
    codes = np.asarray(truth)
    if post.ndim != 2 or post.shape[0] == 0 or post.shape[1] < 2:
        raise ValueError(
            f"posterior must be a (n_targets, n_values >= 2) array, got shape {post.shape}"
        )
    if codes.shape != (post.shape[0],) or not np.issubdtype(codes.dtype, np.integer):
        raise ValueError(
            f"truth must hold one integer code per posterior row ({post.shape[0]}), got "
            f"{codes.dtype} of shape {codes.shape}"
        )
    if codes.min() < 0 or codes.max() >= post.shape[1]:
        raise ValueError(f"truth codes must lie in 0..{post.shape[1] - 1}")
    if not np.isfinite(post).all():
        raise ValueError("posterior must hold finite scores")
    return post, codes


def tpr_at_fpr(posterior, truth, fpr: float) -> float:
    """The attacker's true positive rate at a false positive rate of at most ``fpr``.

    Every (target, value) pair is one claim, scored by the posterior: positive when the value is
    the target's own. The rate is the largest TPR over the thresholds (the distinct scores; a tie
    enters whole, as a threshold cannot split it) whose FPR is at most ``fpr``; 0 when even the
    highest score's tie block has more false claims than that.

    Parameters
    ----------
    posterior : array-like, shape (n, n_values)
        Each target's scores over the private values.
    truth : array-like of int, shape (n,)
        Each target's true value, as a column of ``posterior``.
    fpr : float in (0, 1)

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For a posterior that is not a finite (n, n_values >= 2) array, truth codes outside its
        columns, or ``fpr`` outside (0, 1).

    Examples
    --------
    Three targets; the attacker is certain and right about the first, unsure about the others. Of
    the six claims, the three true ones score 1.0, 0.5 and 0.4, the false ones 0.6, 0.5 and 0.0:

    >>> post = [[1.0, 0.0], [0.6, 0.4], [0.5, 0.5]]
    >>> tpr_at_fpr(post, [0, 1, 0], 0.01)
    0.3333333333333333
    >>> tpr_at_fpr(post, [0, 1, 0], 0.7)  # down to 0.4, two of three false claims are made
    1.0
    """
    if not 0.0 < float(fpr) < 1.0:
        raise ValueError(f"fpr must lie in (0, 1), got {fpr!r}")
    return _tprs(posterior, truth, [fpr])[0]


def _tprs(posterior, truth, rates) -> list[float]:
    """:func:`tpr_at_fpr` at each of ``rates``, from one ROC: the true claims' scores against the
    false claims' (:func:`ppdp.attacks.membership.true_positive_rates`)."""
    from ppdp.attacks.membership import true_positive_rates

    post, codes = _checked(posterior, truth)
    true_claim = np.zeros(post.shape, dtype=bool)
    true_claim[np.arange(len(codes)), codes] = True
    return true_positive_rates(post[true_claim], post[~true_claim], rates)


def confident_share(posterior, truth, level: float = CONFIDENT) -> float:
    """The share of targets disclosed with confidence ``level``: named correctly by claims the
    attacker makes with posterior at least ``level`` and that hold at least at that rate.

    Each target's claim is his most probable value (the first on ties), made with its posterior.
    Among the claims at ``level`` or above, taken from the most confident down (a tie enters
    whole), the longest run whose share of correct claims is at least ``level`` counts; its
    correct claims, over all targets, are the share. An attacker whose certainty is not earned
    (a hard guess stated as 1.0, a randomized value read at its word) discloses no one this way,
    while a class of one private value, published unchanged, discloses its members.

    Parameters
    ----------
    posterior : array-like, shape (n, n_values)
        Each target's posterior over the private values.
    truth : array-like of int, shape (n,)
        Each target's true value, as a column of ``posterior``.
    level : float in [0.5, 1], default CONFIDENT (0.99)
        The confidence a claim states and must earn.

    Returns
    -------
    float
        The share of all targets disclosed.

    Raises
    ------
    ValueError
        For a malformed posterior or truth (as :func:`tpr_at_fpr`) or ``level`` outside [0.5, 1].

    Examples
    --------
    Three of four targets claimed at 0.995 or more, all correctly; then the same claims with one
    wrong among them, at one posterior (a tie: no run of them is 99% right):

    >>> confident_share([[0.995, 0.005], [0.0, 1.0], [1.0, 0.0], [0.4, 0.6]], [0, 1, 0, 0])
    0.75
    >>> confident_share([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.4, 0.6]], [0, 1, 1, 0])
    0.0
    """
    post, codes = _checked(posterior, truth)
    if not 0.5 <= float(level) <= 1.0:
        raise ValueError(f"level must lie in [0.5, 1], got {level!r}")
    top = post.argmax(axis=1)
    score = post[np.arange(len(codes)), top]
    claimed = score >= level
    if not claimed.any():
        return 0.0
    score, correct = score[claimed], top[claimed] == codes[claimed]
    order = np.argsort(-score, kind="stable")
    score, correct = score[order], correct[order]
    ends = np.r_[np.flatnonzero(np.diff(score) != 0), len(score) - 1]
    hits = np.cumsum(correct)[ends]
    earned = hits >= level * (ends + 1)
    return float(hits[earned].max() / len(codes)) if earned.any() else 0.0


def tail_measures(posterior, truth) -> dict[str, float]:
    """:func:`tpr_at_fpr` at each of :data:`TAIL_FPRS` and :func:`confident_share`, by name.

    Parameters
    ----------
    posterior : array-like, shape (n, n_values)
        Each target's posterior over the private values.
    truth : array-like of int, shape (n,)
        Each target's true value, as a column of ``posterior``.

    Returns
    -------
    dict of str to float
        ``tpr_1pct``, ``tpr_01pct`` and ``confident`` (:data:`TAIL_MEASURES`).

    Examples
    --------
    >>> tail_measures([[1.0, 0.0], [0.6, 0.4], [0.5, 0.5]], [0, 1, 0])
    {'tpr_1pct': 0.3333333333333333, 'tpr_01pct': 0.3333333333333333, 'confident': 0.3333333333333333}
    """
    out = dict(zip(TAIL_FPRS, _tprs(posterior, truth, TAIL_FPRS.values()), strict=True))
    out["confident"] = confident_share(posterior, truth)
    return out


def population_utility(release_auc: float, *, states_values: bool = True) -> tuple[float, float]:
    """What the population keeps of a private attribute: ``(utility, gain)``.

    ``release_auc`` is the AUC, on real people outside the release, of the model trained on the
    release to predict the attribute from the quasi-identifiers. The floor is 0.5, the AUC of any
    model that learns nothing about the attribute (what the ``nothing`` reference measures); the
    gain is the AUC above it. A release that scrambles or permutes the attribute scores the floor
    up to sampling noise; the unprotected table sets the ceiling.

    A release that states no value of the attribute (``states_values=False``: every released
    cell of it holds several values, as when the column is suppressed or withheld) scores the
    floor exactly. A model trained on values drawn from such cells learns only the draw: its AUC
    scatters around 0.5 with a standard deviation of about 0.06 per seed (Adult, 10,000 released
    people, coin-flip labels, 12 seeds: mean 0.495), so that at five seeds the lower end of its
    interval would clear the floor about once in forty, and a release that keeps nothing of the
    attribute would reach the leaderboard.

    Parameters
    ----------
    release_auc : float
        The release-trained model's AUC on people outside the release.
    states_values : bool, default True
        Whether at least one released cell of the attribute holds a single value.

    Returns
    -------
    utility : float
        ``release_auc`` itself.
    gain : float
        ``release_auc - 0.5``.

    Raises
    ------
    ValueError
        For an AUC that is not finite.

    Examples
    --------
    >>> population_utility(0.81)
    (0.81, 0.31000000000000005)
    >>> population_utility(0.54, states_values=False)  # a suppressed column: the floor
    (0.5, 0.0)
    """
    if not np.isfinite(release_auc):
        raise ValueError(f"release_auc must be a finite AUC, got {release_auc!r}")
    if not states_values:
        return 0.5, 0.0
    return float(release_auc), float(release_auc) - 0.5
