"""The G-problem of HyObscure: stochastic privacy-utility boosting of the generalization
(Algorithm 3)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .domain import Generalization, check_generalization
from .leakage import DistanceModel, hybrid_leakage, scalar_loss

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
    rng: np.random.Generator,
    *,
    scope: str = "global",
    max_moves: int = 100,
) -> tuple[Generalization, list[dict]]:
    """Solve the G-problem (Eqs. 19-22) by stochastic privacy-utility boosting (Algorithm 3).

    Candidates move one boundary value of a group into a neighbouring group (for ages: shift
    the boundary between two adjacent age stages by one year). Candidates are visited in a random
    order; one is accepted only if the constraints still hold (k, alpha, l, beta, contiguity) and
    both the leakage and the utility loss fall under the fixed obfuscation (line 7). After an
    acceptance the candidate list is rebuilt; the search stops when a full pass accepts nothing
    (no further improvement, line 10) or after ``max_moves`` acceptances.

    Returns the improved generalization and one record per accepted move.
    """
    domain = generalization.domain
    labels = generalization.labels.copy()
    value_counts = counts_cy.sum(axis=0)
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
