"""The G-problem of HyObscure: stochastic privacy-utility boosting of the generalization
(Algorithm 3)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ppdp._validation import check_params
from ppdp.base import check_random_state

from .checks import GREEDY_SCORE, check_value_counts
from .domain import Generalization, check_generalization, entropy_reach
from .leakage import GREEDY_SCORES, DistanceModel, expected_distance, hybrid_leakage, scalar_loss

# ------------------------------------------------------------------------------------------------
# G-problem (Algorithm 3)


def _candidate_moves(labels: np.ndarray, adjacency: sp.csr_matrix) -> list[tuple[int, int]]:
    """All (value, target group) pairs that move a boundary value into a neighbouring group."""
    coo = adjacency.tocoo()
    moves = set()
    for a, b in zip(coo.row, coo.col, strict=True):
        if labels[a] != labels[b]:
            moves.add((int(a), int(labels[b])))
    return sorted(moves)


def improve_generalization(
    generalization: Generalization,
    counts_cy: np.ndarray,
    mappings: np.ndarray,
    distance_model: DistanceModel,
    k: int,
    alpha: int,
    l: int,  # noqa: E741
    beta: int,
    random_state: Any,
    *,
    scope: str = "global",
    max_moves: int = 100,
    value_counts: np.ndarray | None = None,
) -> tuple[Generalization, list[dict]]:
    """Solve the G-problem (Eqs. 19-22) by stochastic privacy-utility boosting (Algorithm 3).

    Candidates move one boundary value of a group into a neighbouring group (for ages: shift
    the boundary between two adjacent age stages by one year). Candidates are visited in a random
    order; one is accepted only if the constraints still hold (k, alpha, l, beta, contiguity) and
    both the leakage and the utility loss fall under the fixed obfuscation (line 7). After an
    acceptance the candidate list is rebuilt; the search stops when a full pass accepts nothing
    (no further improvement, line 10) or after ``max_moves`` acceptances.

    ``value_counts`` (shape (V,)) gives the users per value on which (k, alpha)-uniqueness is
    counted, e.g. those of a whole population; by default the users of ``counts_cy``. The
    leakage and the loss are always those of ``counts_cy``.

    Parameters
    ----------
    generalization : Generalization
        The current generalization (e.g. ``G^0`` of the I-problem).
    counts_cy : ndarray, shape (C, V)
        Users per (cluster, value) being fitted.
    mappings : ndarray, shape (K, C, C)
        Fixed obfuscation mappings (from the O-problem).
    distance_model : DistanceModel
        Cluster distances inside each group
        (``ppdp.mechanisms.hyobscure.leakage.DistanceModel``), recomputed for the two groups a
        move changes.
    k, alpha : int
        (k, alpha)-uniqueness every accepted generalization keeps.
    l, beta : int
        (l, beta)-variety every accepted generalization keeps.
    random_state : None, int or numpy.random.Generator
        Order in which the candidates are visited.
    scope : {"global", "group", "cluster_mean"}
        Loss scope of :func:`expected_distance` (the largest group's loss for a per-group scope).
    max_moves : int
        Most accepted moves.
    value_counts : ndarray, shape (V,), optional
        Users per value on which (k, alpha) is counted.

    Returns
    -------
    generalization : Generalization
        The improved generalization (the input's groups when no move was accepted).
    records : list of dict
        One per accepted move, in order: ``"value"`` (the moved value), ``"from"``, ``"to"``,
        ``"leakage"`` (bits) and ``"utility_loss"`` after the move.

    Raises
    ------
    ValueError
        When ``value_counts`` does not hold one finite, non-negative count per value.

    Examples
    --------
    Forty users aged 20 to 27, two clusters, the age bands 20-23 and 24-27 and the O-problem's
    mappings under a budget of 0.02:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import (
    ...     band_generalization, private_domain, solve_obfuscation, improve_generalization)
    >>> from ppdp.mechanisms.hyobscure.leakage import DistanceModel, cluster_value_counts
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(20, 28, 40)  # ages of 40 users
    >>> clusters = rng.integers(0, 2, 40)  # two activity profiles
    >>> X = rng.poisson(1 + 2 * clusters[:, None] + (y[:, None] > 23), (40, 3)) + 1.0
    >>> domain = private_domain(y)
    >>> gen = band_generalization(domain, [24])  # ages 20-23 and 24-27
    >>> idx = domain.index(y)
    >>> counts = cluster_value_counts(clusters, idx, 2, len(domain.values))
    >>> model = DistanceModel(X, clusters, idx, 2, len(domain.values), "centroid_js")
    >>> mappings, _ = solve_obfuscation(counts, gen.labels, model.all_groups(gen.labels), 0.02)
    >>> new, records = improve_generalization(
    ...     gen, counts, mappings, model, 10, 30, 2, 6, np.random.default_rng(0))
    >>> new.intervals()
    [(20, 21), (22, 27)]
    >>> [(r["value"], r["from"], r["to"]) for r in records]
    [(23, 0, 1), (22, 0, 1)]
    >>> records[-1]["leakage"] < records[0]["leakage"]
    True
    """
    rng = check_random_state(random_state)
    domain = generalization.domain
    labels = generalization.labels.copy()
    value_counts = check_value_counts(value_counts, counts_cy)
    K = mappings.shape[0]
    distances = distance_model.all_groups(labels)
    I0 = hybrid_leakage(counts_cy, labels, mappings)
    Q0 = scalar_loss(counts_cy, labels, mappings, distances, scope)
    records = []
    accepted = 0
    while accepted < max_moves:
        moves = _candidate_moves(labels, domain.adjacency)
        order = rng.permutation(len(moves))
        found = False
        for i in order:
            v, target = moves[i]
            source = int(labels[v])
            cand = labels.copy()
            cand[v] = target
            if np.bincount(cand, minlength=K).min() == 0:
                continue
            if check_generalization(cand, value_counts, domain, k, alpha, l, beta):
                continue
            cand_d = distances.copy()
            cand_d[source] = distance_model.group(cand == source)
            cand_d[target] = distance_model.group(cand == target)
            Qc = scalar_loss(counts_cy, cand, mappings, cand_d, scope)
            if not Qc < Q0:
                continue
            Ic = hybrid_leakage(counts_cy, cand, mappings)
            if Ic < I0:
                labels, distances, I0, Q0 = cand, cand_d, Ic, Qc
                records.append(
                    {
                        "value": int(domain.values[v]),
                        "from": source,
                        "to": target,
                        "leakage": Ic,
                        "utility_loss": Qc,
                    }
                )
                accepted += 1
                found = True
                break
        if not found:
            break
    return Generalization(domain=domain, labels=labels), records


# ------------------------------------------------------------------------------------------------
# the authors' G-step (their code's ``age_group_adjust_greedy`` / ``reducible_scale``)


def _reducible_range(ages_counts: np.ndarray, k: int, l: int) -> tuple[int, int]:  # noqa: E741
    """How many values a group can give away from its low and from its high end.

    At most :func:`~.domain.entropy_reach` values, and fewer while the values left behind hold
    fewer than ``k`` users."""
    reach = entropy_reach(ages_counts, l)
    low = high = 0
    for r in range(reach, 0, -1):
        if ages_counts[r:].sum() >= k:
            low = r
            break
    for r in range(reach, 0, -1):
        if ages_counts[:-r].sum() >= k:
            high = r
            break
    return low, high


def greedy_candidates(
    labels: np.ndarray,
    value_counts: np.ndarray,
    k: int,
    l: int,  # noqa: E741
) -> list[np.ndarray]:
    """The authors' candidate generalizations for ordered values (ages), in their order.

    A group is reducible when it can give away values (:func:`_reducible_range`) to a neighbour;
    a candidate moves its ``r`` highest values to the next group (``r = 1 ... high``) or its ``r``
    lowest values to the previous group (``r = 1 ... low``). Only ``k`` and the entropy ``l`` of
    the giving group are consulted: the receiving group may exceed ``alpha`` and ``beta``.

    Parameters
    ----------
    labels : ndarray, shape (V,)
        Group of each value; groups are intervals of the sorted values.
    value_counts : ndarray, shape (V,)
        Users per value.
    """
    K = int(labels.max()) + 1
    firsts = np.array([np.flatnonzero(labels == g)[0] for g in range(K)])
    order = np.argsort(firsts)  # groups from the lowest values up
    out = []
    for pos, g in enumerate(order):
        members = np.flatnonzero(labels == g)
        low, high = _reducible_range(value_counts[members], k, l)
        moves = []
        if pos < K - 1:
            moves += [(members[-r:], order[pos + 1]) for r in range(1, high + 1)]
        if pos > 0:
            moves += [(members[:r], order[pos - 1]) for r in range(1, low + 1)]
        for values, target in moves:
            cand = labels.copy()
            cand[values] = target
            out.append(cand)
    return out


def greedy_generalization(
    generalization: Generalization,
    counts_cy: np.ndarray,
    mappings: np.ndarray,
    distance_model: DistanceModel,
    k: int,
    l: int,  # noqa: E741
    *,
    scope: str = "global",
    score: str = "transposed",
    value_counts: np.ndarray | None = None,
) -> tuple[Generalization, list[dict]]:
    """One G-step as the authors' code runs it (their ``main.py`` / ``obfuscations.HyObscure``).

    Every candidate of ``greedy_candidates`` is scored under the fixed obfuscation; walking
    the candidates in order, one replaces the incumbent when both its privacy score and its
    utility loss (the mean over groups of the per-group loss, their ``Mean_JSD``) are strictly
    below the incumbent's. At most one candidate (possibly moving several values) is accepted per
    call. Unlike :func:`improve_generalization` (Algorithm 3), only ``k`` and the giving group's
    entropy ``l`` constrain a move, so groups can grow past ``alpha`` users and ``beta`` values.

    Parameters
    ----------
    generalization : Generalization
        Current age groups (``kind="interval"``).
    counts_cy : ndarray, shape (C, V)
        Users per (cluster, value) being fitted; the score and the loss are computed on them.
    mappings : ndarray, shape (K, C, C)
        Fixed obfuscation mappings (from the O-problem).
    distance_model : DistanceModel
        Cluster distances inside each group.
    k : int
        Fewest users a giving group must keep.
    l : int
        Entropy threshold of the giving group (see ``greedy_candidates``).
    scope : {"global", "group", "cluster_mean"}
        Loss scope of :func:`expected_distance` (the authors': ``"cluster_mean"``).
    score : {"transposed", "leakage"}
        Privacy score of the incumbent and of every candidate: ``"transposed"``, the authors'
        ``Mean_KL_div`` with the mapping read transposed
        (:func:`~ppdp.mechanisms.hyobscure.transposed_leakage`), or ``"leakage"``, the
        leakage ``I(Y; C^, Y~)`` of the mapping as released (:func:`hybrid_leakage`).
    value_counts : ndarray, shape (V,), optional
        Users per value on which ``k`` and the entropy ``l`` are counted (the authors count all
        users of the population, attackers included); by default ``counts_cy.sum(axis=0)``.

    Returns
    -------
    generalization : Generalization
        The accepted candidate, or the input when none dominates it.
    records : list of dict
        Empty, or one record of the accepted move: ``"value"`` (first moved value), ``"values"``,
        ``"from"``, ``"to"``, ``"leakage"`` (the candidate's ``score``, bits) and
        ``"utility_loss"``.

    Raises
    ------
    ValueError
        When the domain is not ``"interval"``, ``score`` is not one of the options or
        ``value_counts`` does not hold one count per value.

    Examples
    --------
    The population of :func:`improve_generalization`'s example; the greedy step moves one age:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import (
    ...     band_generalization, private_domain, solve_obfuscation, greedy_generalization)
    >>> from ppdp.mechanisms.hyobscure.leakage import DistanceModel, cluster_value_counts
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(20, 28, 40)  # ages of 40 users
    >>> clusters = rng.integers(0, 2, 40)  # two activity profiles
    >>> X = rng.poisson(1 + 2 * clusters[:, None] + (y[:, None] > 23), (40, 3)) + 1.0
    >>> domain = private_domain(y)
    >>> gen = band_generalization(domain, [24])  # ages 20-23 and 24-27
    >>> idx = domain.index(y)
    >>> counts = cluster_value_counts(clusters, idx, 2, len(domain.values))
    >>> model = DistanceModel(X, clusters, idx, 2, len(domain.values), "centroid_js")
    >>> mappings, _ = solve_obfuscation(counts, gen.labels, model.all_groups(gen.labels), 0.02)
    >>> new, records = greedy_generalization(gen, counts, mappings, model, 10, 2)
    >>> new.intervals()
    [(20, 22), (23, 27)]
    >>> records[0]["values"], records[0]["from"], records[0]["to"]
    ([23], 0, 1)
    """
    check_params({"score": score}, {"score": GREEDY_SCORE}, "greedy_generalization")
    if generalization.domain.kind != "interval":
        raise ValueError(
            "the greedy G-step moves ends of age intervals; it needs domain='interval'"
        )
    domain = generalization.domain
    labels = generalization.labels
    value_counts = check_value_counts(value_counts, counts_cy)
    privacy = GREEDY_SCORES[score]

    def loss(lab, dist):
        return float(np.mean(expected_distance(counts_cy, lab, mappings, dist, scope)))

    best_I = privacy(counts_cy, labels, mappings)
    best_Q = loss(labels, distance_model.all_groups(labels))
    best = None
    for cand in greedy_candidates(labels, value_counts, k, l):
        Qc = loss(cand, distance_model.all_groups(cand))
        if not Qc < best_Q:
            continue
        Ic = privacy(counts_cy, cand, mappings)
        if Ic < best_I:
            best, best_I, best_Q = cand, Ic, Qc
    if best is None:
        return generalization, []
    moved = np.flatnonzero(best != labels)
    record = {
        "value": int(domain.values[moved[0]]),
        "values": [int(v) for v in domain.values[moved]],
        "from": int(labels[moved[0]]),
        "to": int(best[moved[0]]),
        "leakage": best_I,
        "utility_loss": best_Q,
    }
    return Generalization(domain=domain, labels=best), [record]
