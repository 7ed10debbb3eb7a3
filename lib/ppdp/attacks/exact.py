"""Exact Bayes attackers that enumerate every assignment of released people to released rows.

:func:`~ppdp.attacks.random_tables.random_table_posterior` (Mutual Cover) and
:func:`~ppdp.attacks.targeted.class_matching_posterior` (generalized releases) link a target to
the released rows one row at a time: they never use the fact that the release holds each of its
people exactly once, so a row that surely belongs to someone else still counts for the target.
The attackers here use it, exactly, where that is affordable.

**Threat model.** On top of what the approximate attacker knows (the target is in the release,
his exact quasi-identifiers, the mechanism and what it fitted), the exact attacker knows the
quasi-identifiers of *every* released person: the released population's QI table, the external
table generalization assumes (``population``, one person per released row, in any order). He
does not know which released row is whose, nor (for Mutual Cover) which group a person was put
in; he knows nothing of anyone's private value, and does not use the l-diversity of the
partition as evidence. Every assignment of people to rows (and of people to groups) that the
mechanism could have produced is a priori equally likely; each is weighted by the probability
that the mechanism turns each person's record into his row. The target's posterior is then
exact: the probability, over these assignments, that his row holds each private value.

* :func:`assignment_marginals` is the core: for a weight matrix ``W`` (people x rows), the
  probability of each person holding each row under ``P(sigma) ∝ prod_i W[i, sigma(i)]``,
  ``W[i, r] * perm(W without i and r) / perm(W)``, by a forward-backward sum over subsets.
* :func:`exact_random_table_posterior` is the exact attacker of Mutual Cover.
* :func:`exact_class_matching_posterior` is the exact attacker of a generalized release.

Both work block by block: people and rows that no chain of possible links joins are
independent, so each connected block is enumerated on its own. A block of more than
``max_block`` people is left to the approximate attacker (the combined attacker: exact where the
block is small, the approximation elsewhere). The bound is set by time: one block of ``n``
people costs ``O(2^n n)`` per group assignment (see :data:`EXACT_MAX_BLOCK`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ppdp._validation import Interval, check_params
from ppdp.attacks.random_tables import (
    _check_tables,
    _compatible,
    _likelihood,
    _released_ids,
    random_table_posterior,
)
from ppdp.attacks.targeted import (
    _check_prior,
    _check_roles,
    _factorize_rows,
    _match_weights,
    _qi_classes,
    _target_codes,
    class_matching_posterior,
)
from ppdp.base import check_frame
from ppdp.cells import cell_membership
from ppdp.tabular import AttributeDomain

__all__ = [
    "EXACT_MAX_BLOCK",
    "assignment_marginals",
    "exact_class_matching_posterior",
    "exact_random_table_posterior",
]

#: Largest block (people) enumerated exactly by default. One block of ``n`` people sums over
#: ``2^n`` subsets of rows, ``n`` times: on one core 2 ms at 6, 5 ms at 10, 16 ms at 14, 50 ms
#: at 16 and 1 s at 18 per group assignment (``tests/test_exact_attackers.py`` measures it).
EXACT_MAX_BLOCK = 14
#: Largest block ever enumerated: ``2^24`` subsets are two 128 MB arrays.
_HARD_MAX_BLOCK = 24
#: Group assignments of one Mutual Cover block beyond which the block is left to the
#: approximation (each costs one subset sum: at most about 1 s for a block of 14).
_MAX_GROUP_ASSIGNMENTS = 64


# --------------------------------------------------------------------------------------------
# Marginals of a weighted assignment
# --------------------------------------------------------------------------------------------


def _popcounts(n: int) -> np.ndarray:
    masks = np.arange(1 << n, dtype=np.int64)
    counts = np.zeros(1 << n, dtype=np.int64)
    for r in range(n):
        counts += (masks >> r) & 1
    return counts


def _marginals(weights: np.ndarray) -> tuple[np.ndarray, float]:
    """``(M, log perm(W))`` of a square non-negative ``W``; ``M`` is all 0 when ``perm = 0``.

    Each row is first divided by its largest entry (a person's weights scaled by one factor
    scale every assignment alike, so ``M`` does not move; the log-permanent adds the factors
    back), then ``F[S]`` = sum over assignments of people ``0..|S|-1`` to the rows of ``S``,
    ``B[S]`` = sum over assignments of people ``|S|..n-1`` to the rows outside ``S``, and::

        M[k, r] = sum_{|S| = k, r not in S} F[S] W[k, r] B[S + r] / F[all rows]

    Every term is non-negative: no cancellation (Ryser's formula alternates signs).
    """
    n = weights.shape[0]
    scale = weights.max(axis=1)
    if n == 0:
        return np.zeros((0, 0)), 0.0
    if (scale <= 0).any():
        return np.zeros((n, n)), -np.inf
    w = weights / scale[:, None]
    size = 1 << n
    pop = _popcounts(n)
    layers = [np.flatnonzero(pop == k) for k in range(n + 1)]
    forward = np.zeros(size)
    forward[0] = 1.0
    for k in range(1, n + 1):
        masks = layers[k]
        for r in range(n):
            sel = masks[(masks >> r) & 1 == 1]
            forward[sel] += forward[sel ^ (1 << r)] * w[k - 1, r]
    backward = np.zeros(size)
    backward[size - 1] = 1.0
    marginals = np.zeros((n, n))
    for k in range(n - 1, -1, -1):
        masks = layers[k]
        for r in range(n):
            sel = masks[(masks >> r) & 1 == 0]
            term = backward[sel | (1 << r)] * w[k, r]
            backward[sel] += term
            marginals[k, r] = forward[sel] @ term
    total = forward[size - 1]
    if total <= 0:
        return np.zeros((n, n)), -np.inf
    return marginals / total, float(np.log(total) + np.log(scale).sum())


def assignment_marginals(weights) -> np.ndarray:
    """Probability that each person holds each row, over the weighted assignments.

    Each assignment ``sigma`` of the ``n`` people (rows of ``weights``) to the ``n`` rows
    (columns) is a permutation, with probability proportional to ``prod_i W[i, sigma(i)]``.
    Person ``i`` holds row ``r`` with probability::

        M[i, r] = W[i, r] * perm(W without row i and column r) / perm(W)

    (the derivative of the permanent). It is computed by a forward-backward sum over the
    ``2^n`` subsets of rows, ``O(2^n n)`` time and two arrays of ``2^n`` floats.

    Parameters
    ----------
    weights : array-like, shape (n, n)
        Finite non-negative weights, ``n <= 24``; ``W[i, r]`` is proportional to the probability
        that person ``i``'s record became row ``r``.

    Returns
    -------
    ndarray, shape (n, n)
        ``M``; every row and column sums to 1 (a doubly stochastic matrix).

    Raises
    ------
    ValueError
        When ``weights`` is not a square array of finite non-negative numbers of at most 24
        rows, or admits no assignment (``perm(W) = 0``).

    Examples
    --------
    Two people who could each be either row, the first three times as likely to be row 0:

    >>> assignment_marginals([[3.0, 1.0], [1.0, 1.0]])
    array([[0.75, 0.25],
           [0.25, 0.75]])

    Row 1 can only be the second person's, so the first holds row 0 for certain, whatever his
    own weights say (an attacker reading rows one at a time gives him row 1 a half):

    >>> assignment_marginals([[1.0, 1.0], [0.0, 1.0]])
    array([[1., 0.],
           [0., 1.]])
    """
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"weights must be a square array of numbers, got {type(weights).__name__}"
        ) from None
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"weights must be a square (people x rows) array, got shape {w.shape}")
    if w.shape[0] > _HARD_MAX_BLOCK:
        raise ValueError(
            f"weights must have at most {_HARD_MAX_BLOCK} rows (2^n subsets are enumerated), "
            f"got {w.shape[0]}"
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("weights must hold finite non-negative numbers")
    marginals, log_perm = _marginals(w)
    if w.shape[0] and not np.isfinite(log_perm):
        raise ValueError("weights admit no assignment of people to rows (the permanent is 0)")
    return marginals


# --------------------------------------------------------------------------------------------
# Shared plumbing
# --------------------------------------------------------------------------------------------


def _check_max_block(max_block, caller: str) -> int:
    check_params(
        {"max_block": max_block},
        {"max_block": [Interval(Integral, 0, _HARD_MAX_BLOCK, closed="both")]},
        caller,
    )
    return int(max_block)


def _check_population(population, released, qi, domains, caller: str) -> np.ndarray:
    """The released people's quasi-identifiers as domain codes; one person per released row."""
    population = check_frame(population, "population")
    if len(population) != len(released):
        raise ValueError(
            f"population of {caller} must hold one person per released row ({len(released)}), "
            f"got {len(population)} rows"
        )
    missing = [c for c in qi if c not in population.columns]
    if missing:
        raise ValueError(f"population has no column {missing}; it needs every qi column {qi}")
    return _target_codes(population, domains, qi)


def _person_of_target(target_codes: np.ndarray, people_codes: np.ndarray) -> np.ndarray:
    """A population person with each target's quasi-identifiers (people with equal values are
    exchangeable: they have equal marginals); ValueError when a target is nobody."""
    _, group = _factorize_rows(np.vstack([people_codes, target_codes]))
    person = np.full(int(group.max()) + 1, -1, dtype=np.int64)
    person[group[: len(people_codes)][::-1]] = np.arange(len(people_codes))[::-1]
    found = person[group[len(people_codes) :]]
    if (found < 0).any():
        i = int(np.argmax(found < 0))
        raise ValueError(
            f"targets row {i} has quasi-identifiers no person of population has; the exact "
            "attacker knows that every target is one of the released people"
        )
    return found


def _blocks(n_people: int, n_rows: int, n_hubs: int, people_hub, rows_hub):
    """Connected blocks of the graph people -- hub -- rows (a hub is a group or a class).

    Returns the block of every person, row and hub, and the number of blocks.
    """
    n = n_people + n_rows + n_hubs
    src = np.concatenate([people_hub[0], n_people + rows_hub[0]])
    dst = np.concatenate([n_people + n_rows + people_hub[1], n_people + n_rows + rows_hub[1]])
    graph = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    n_blocks, label = connected_components(graph, directed=False)
    return (
        label[:n_people],
        label[n_people : n_people + n_rows],
        label[n_people + n_rows :],
        n_blocks,
    )


def _combine(exact_rows, exact_post, approx, n_targets: int, n_values: int) -> np.ndarray:
    """The exact posteriors where they were computed, the approximation's elsewhere."""
    out = np.empty((n_targets, n_values))
    done = np.zeros(n_targets, dtype=bool)
    done[exact_rows] = True
    out[exact_rows] = exact_post
    if (~done).any():
        out[~done] = approx(np.flatnonzero(~done))
    return out


def _inconsistent(caller: str, what: str) -> ValueError:
    return ValueError(
        f"population of {caller} is inconsistent with the release: {what} (it must be the "
        "released people)"
    )


# --------------------------------------------------------------------------------------------
# Mutual Cover
# --------------------------------------------------------------------------------------------


def _group_assignments(options, capacity, limit: int):
    """Every assignment of people to groups that fills each group's value counts exactly.

    ``options[i]`` lists person ``i``'s ``(group, keys)``: the group and the ``(group, qi,
    value)`` count entries he would take; ``capacity`` maps each entry to its count. Returns
    the list of tuples of option indices, or None when there are more than ``limit``.
    """
    found: list[tuple[int, ...]] = []
    left = dict(capacity)
    chosen: list[int] = []

    def walk(i: int) -> bool:
        if i == len(options):
            found.append(tuple(chosen))
            return len(found) <= limit
        for o, (_, keys) in enumerate(options[i]):
            if all(left[k] >= 1 for k in keys):
                for k in keys:
                    left[k] -= 1
                chosen.append(o)
                going = walk(i + 1)
                chosen.pop()
                for k in keys:
                    left[k] += 1
                if not going:
                    return False
        return True

    return found if walk(0) else None


def exact_random_table_posterior(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    qi: Sequence[str],
    private: str,
    tables,
    population: pd.DataFrame,
    prior=None,
    max_block: int = EXACT_MAX_BLOCK,
) -> np.ndarray:
    """Exact Bayes posterior of each target's private value from a Mutual Cover release.

    Threat model: that of :func:`~ppdp.attacks.random_tables.random_table_posterior` (the
    target is released, his exact quasi-identifiers, the fitted random output tables with their
    counts and Algorithm 3's weights; not the assignment of people to groups or rows), plus the
    quasi-identifiers of every released person (``population``).

    A person ``i`` can be in group ``g`` when each of his values is among ``values_gc``; an
    assignment ``gamma`` of people to groups is possible when it gives every group exactly its
    ``counts_gc`` of each value. Given ``gamma``, person ``i``'s record becomes released row
    ``r`` with probability ``L_gamma(i)(i, r)`` (the per-record likelihood of
    ``random_table_posterior``, Algorithm 3 included), independently across people. With every
    possible ``gamma`` and every assignment ``sigma`` of people to rows equally likely a
    priori::

        P(gamma, sigma | release) ∝ prod_i L_gamma(i)(i, sigma(i))
        posterior(t, s) = sum_gamma perm(L_gamma) sum_r M_gamma[t, r] secret(r, s)
                          / sum_gamma perm(L_gamma)

    with ``M_gamma`` the :func:`assignment_marginals` of ``L_gamma`` and ``secret(r, s)`` row
    ``r``'s private cell read by :func:`ppdp.cells.cell_membership`.

    Parameters
    ----------
    targets, released, domains, qi, private, tables, prior
        As for :func:`~ppdp.attacks.random_tables.random_table_posterior`; ``prior`` is used
        only by the approximation, for targets of blocks above ``max_block``. Every target must
        have the quasi-identifiers of some person of ``population``.
    population : DataFrame
        The released people's true ``qi`` values, one row per released row (any order; other
        columns are ignored).
    max_block : int, default EXACT_MAX_BLOCK
        Blocks (connected sets of people, groups and rows that can be linked) of at most this
        many people, and at most 64 possible group assignments, are enumerated exactly; the
        targets of larger blocks get ``random_table_posterior``. 0 gives the approximation
        everywhere; at most 24.

    Returns
    -------
    ndarray, shape (n_targets, n_values)
        Row ``i`` is target ``i``'s posterior over ``domains[private].values``; rows sum to 1.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it; ValueError when ``population``
        does not have one person per released row, when a target is none of its people, or
        when a small block admits no assignment (``population`` is not the released people).

    See Also
    --------
    assignment_marginals : the marginals of one weighted assignment.

    Notes
    -----
    The blocks are the connected components of the graph linking each person to the groups
    that can hold him and each released row to the groups whose tables can output it; a block
    holds as many people as rows. People with equal quasi-identifiers are exchangeable, so a
    target's posterior is that of any person with his values.

    Examples
    --------
    Two groups of two, each record released as its own age with probability 0.6 and as the
    other's with 0.4. The second group's rows show 38 and 35: either both records kept their
    ages (0.6 x 0.6) or both took the other's (0.4 x 0.4), so the person aged 35 holds the row
    showing 35 with probability 0.36 / 0.52 = 0.69; the approximate attacker, who reads one row
    at a time, says 0.6. Both rows of the first group show 23 and tell nobody anything:

    >>> from ppdp.attacks.random_tables import KnownTable
    >>> from ppdp.cells import table_domains
    >>> people = pd.DataFrame({"age": [21, 23, 35, 38], "sick": ["no", "yes", "yes", "no"]})
    >>> released = pd.DataFrame({"age": [23, 23, 38, 35], "sick": ["no", "yes", "no", "yes"]})
    >>> swap = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> tables = [{"age": KnownTable(np.array([21, 23]), np.array([21, 23]), swap, np.ones(2))},
    ...           {"age": KnownTable(np.array([35, 38]), np.array([35, 38]), swap, np.ones(2))}]
    >>> domains = table_domains(people, ["age", "sick"], numeric=["age"])
    >>> exact_random_table_posterior(people, released, domains=domains, qi=["age"],
    ...                              private="sick", tables=tables, population=people).round(3)
    array([[0.5  , 0.5  ],
           [0.5  , 0.5  ],
           [0.308, 0.692],
           [0.692, 0.308]])
    """
    caller = "exact_random_table_posterior"
    targets, released, qi, private = _check_roles(targets, released, domains, qi, private, caller)
    max_block = _check_max_block(max_block, caller)
    people = _check_population(population, released, qi, domains, caller)
    per_qi, sizes = _check_tables(tables, qi, domains)
    secret = cell_membership(released[private], domains[private])
    n_values = domains[private].size
    if prior is None:
        prior = secret.mean(axis=0)
    prior = _check_prior(prior, len(targets), n_values, "prior")
    codes = _target_codes(targets, domains, qi)
    person_of = _person_of_target(codes, people)

    p_item, p_group, p_local = _compatible(
        people,
        [
            (q.row_group, q.row_code, q.row_local, domains[c].size)
            for c, q in zip(qi, per_qi, strict=True)
        ],
    )
    r_item, r_group, r_local = _compatible(
        _released_ids(released, qi, domains, per_qi),
        [(q.col_group, q.col_id, q.col_local, len(q.col_index)) for q in per_qi],
    )
    person_block, row_block, group_block, n_blocks = _blocks(
        len(people), len(released), len(sizes), (p_item, p_group), (r_item, r_group)
    )
    block_people = np.bincount(person_block, minlength=n_blocks)
    perturb_total = np.sum([q.perturb for q in per_qi], axis=0)

    wanted = np.unique(person_block[person_of])
    wanted = wanted[block_people[wanted] <= max_block]
    exact_of_person: dict[int, np.ndarray] = {}
    for b in wanted:
        got = _mutual_cover_block(
            b,
            person_block,
            row_block,
            group_block,
            sizes,
            per_qi,
            perturb_total,
            (p_item, p_group, p_local),
            (r_item, r_group, r_local),
            secret,
            caller,
        )
        if got is not None:
            exact_of_person.update(got)
    exact_targets = np.flatnonzero([int(p) in exact_of_person for p in person_of])
    exact_post = np.array([exact_of_person[int(person_of[t])] for t in exact_targets])

    def approx(rows: np.ndarray) -> np.ndarray:
        return random_table_posterior(
            targets.iloc[rows],
            released,
            domains=domains,
            qi=qi,
            private=private,
            tables=tables,
            prior=prior[rows],
        )

    return _combine(exact_targets, exact_post.reshape(-1, n_values), approx, len(targets), n_values)


def _mutual_cover_block(
    b,
    person_block,
    row_block,
    group_block,
    sizes,
    per_qi,
    perturb_total,
    pairs,
    row_pairs,
    secret,
    caller,
):
    """The exact posterior of every person of block ``b`` (dict person -> posterior), or None
    when the block has too many group assignments to enumerate."""
    p_item, p_group, p_local = pairs
    r_item, r_group, r_local = row_pairs
    persons = np.flatnonzero(person_block == b)
    rows = np.flatnonzero(row_block == b)
    groups = np.flatnonzero(group_block == b)
    if len(rows) != len(persons) or sizes[groups].sum() != len(persons):
        raise _inconsistent(
            caller,
            f"a block of {len(persons)} people, {len(rows)} released rows and groups of "
            f"{sizes[groups].sum():g} records",
        )
    n = len(persons)
    person_pos = {int(p): k for k, p in enumerate(persons)}
    row_pos = np.full(row_block.size, -1)
    row_pos[rows] = np.arange(n)
    # every (person, group) option: the person's likelihood row and the counts he takes
    options: list[list[tuple[int, tuple]]] = [[] for _ in range(n)]
    likelihood_rows: list[list[np.ndarray]] = [[] for _ in range(n)]
    for e in np.flatnonzero(np.isin(p_item, persons)):
        g = int(p_group[e])
        emit = np.flatnonzero(r_group == g)
        vec = np.zeros(n)
        if emit.size:
            local = np.repeat(p_local[e : e + 1], emit.size, axis=0)
            gs = np.full(emit.size, g)
            vec[row_pos[r_item[emit]]] = _likelihood(
                per_qi, gs, local, r_local[emit], perturb_total
            )
        keys = tuple((g, a, int(p_local[e, a])) for a in range(len(per_qi)))
        k = person_pos[int(p_item[e])]
        options[k].append((g, keys))
        likelihood_rows[k].append(vec)
    capacity = {}
    for a, q in enumerate(per_qi):
        for g in groups:
            first = int(q.row_start[g])
            for k in range(int(np.count_nonzero(q.row_group == g))):
                capacity[(int(g), a, k)] = float(q.row_count[first + k])
    assignments = _group_assignments(options, capacity, _MAX_GROUP_ASSIGNMENTS)
    if assignments is None:
        return None
    logs, mixed = [], []
    for choice in assignments:
        w = np.array([likelihood_rows[k][o] for k, o in enumerate(choice)]).reshape(n, n)
        marginals, log_perm = _marginals(w)
        if np.isfinite(log_perm):
            logs.append(log_perm)
            mixed.append(marginals)
    if not logs:
        raise _inconsistent(caller, f"no assignment of a block of {n} people to its rows")
    logs = np.array(logs)
    share = np.exp(logs - logs.max())
    share /= share.sum()
    marginals = np.tensordot(share, np.array(mixed), axes=1)
    posterior = marginals @ secret[rows]
    return {int(p): posterior[k] for k, p in enumerate(persons)}


# --------------------------------------------------------------------------------------------
# Class matching on a generalized release
# --------------------------------------------------------------------------------------------


def exact_class_matching_posterior(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    qi: Sequence[str],
    private: str,
    population: pd.DataFrame,
    prior=None,
    max_block: int = EXACT_MAX_BLOCK,
) -> np.ndarray:
    """Exact Bayes posterior of each target's private value from a generalized release.

    Threat model: that of :func:`~ppdp.attacks.targeted.class_matching_posterior` (the target
    is released, his exact quasi-identifiers, the released cells as the mechanism publishes
    them), plus the quasi-identifiers of every released person (``population``), the external
    table of the generalization literature. A person can hold a released row when each of the
    row's cells can hold his value (positive :func:`ppdp.cells.cell_membership`); every
    assignment of people to rows in which each person holds such a row is equally likely::

        A[i, r] = 1 if row r's cells hold person i's values, else 0
        posterior(t, s) = sum_r M[t, r] secret(r, s),   M = assignment_marginals(A)

    Parameters
    ----------
    targets, released, domains, qi, private, prior
        As for :func:`~ppdp.attacks.targeted.class_matching_posterior`; ``prior`` is used only by
        the approximation, for targets of blocks above ``max_block``. Every target must have the
        quasi-identifiers of some person of ``population``.
    population : DataFrame
        The released people's true ``qi`` values, one row per released row (any order; other
        columns are ignored).
    max_block : int, default EXACT_MAX_BLOCK
        Blocks of at most this many people are enumerated exactly, and so is every block in
        which each person can hold each row (its marginals are uniform: an equivalence class
        no outsider fits, as Mondrian's); the targets of other blocks get
        ``class_matching_posterior``. 0 and at most 24.

    Returns
    -------
    ndarray, shape (n_targets, n_values)
        Row ``i`` is target ``i``'s posterior over ``domains[private].values``; rows sum to 1.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it; ValueError when ``population``
        does not have one person per released row, when a target is none of its people, or
        when a block admits no assignment (``population`` is not the released people).

    See Also
    --------
    assignment_marginals : the marginals of one weighted assignment.

    Notes
    -----
    Blocks are the connected components of the graph linking each person to the released
    classes (rows with equal cells) that can hold him. Class matching weighs a row by
    ``prod 1 / |cell|`` and never excludes a row that another person must hold; the two agree
    on a release whose classes no person of another class fits.

    Examples
    --------
    Three people aged 21, 23 and 25 were released as ``"21-25"``, ``"23-25"`` and ``"21-25"``.
    Class matching gives the 23- and 25-year-olds the rows with weights 1/3, 1/2 and 1/3 (the
    cells cover three and two of the domain's ages); the exact attacker counts the assignments:
    the 21-year-old holds one of the ``"21-25"`` rows, the other two share the remaining rows
    evenly:

    >>> from ppdp.cells import table_domains
    >>> people = pd.DataFrame({"age": [21, 23, 25], "sick": ["no", "yes", "no"]})
    >>> released = pd.DataFrame({"age": ["21-25", "23-25", "21-25"],
    ...                          "sick": ["no", "yes", "no"]})
    >>> doms = table_domains(people, ["age", "sick"], numeric=["age"])
    >>> exact_class_matching_posterior(people, released, domains=doms, qi=["age"],
    ...                                private="sick", population=people).round(3)
    array([[1. , 0. ],
           [0.5, 0.5],
           [0.5, 0.5]])
    """
    caller = "exact_class_matching_posterior"
    targets, released, qi, private = _check_roles(targets, released, domains, qi, private, caller)
    max_block = _check_max_block(max_block, caller)
    people = _check_population(population, released, qi, domains, caller)
    secret = cell_membership(released[private], domains[private])
    n_values = domains[private].size
    if prior is None:
        prior = secret.mean(axis=0)
    prior = _check_prior(prior, len(targets), n_values, "prior")
    person_of = _person_of_target(_target_codes(targets, domains, qi), people)

    cells, class_cells, row_class = _qi_classes(released, domains, qi)
    first, kind_of_person = _factorize_rows(people)
    fits = _match_weights(people[first], cells, class_cells) > 0  # (distinct people x classes)
    kind, klass = np.nonzero(fits)
    # every person of a kind joins the classes his kind fits
    members = [np.flatnonzero(kind_of_person == k) for k in range(first.size)]
    p_item = np.concatenate([members[k] for k in kind]) if kind.size else kind
    p_class = np.repeat(klass, [members[k].size for k in kind]) if kind.size else klass
    person_block, row_block, _, n_blocks = _blocks(
        len(people),
        len(released),
        class_cells.shape[0],
        (p_item, p_class),
        (np.arange(len(released)), row_class),
    )
    block_people = np.bincount(person_block, minlength=n_blocks)
    block_rows = np.bincount(row_block, minlength=n_blocks)

    exact_of_block: dict[int, np.ndarray] = {}
    for b in np.unique(person_block[person_of]):
        persons = np.flatnonzero(person_block == b)
        rows = np.flatnonzero(row_block == b)
        if block_rows[b] != block_people[b]:
            raise _inconsistent(
                caller, f"a block of {block_people[b]} people and {block_rows[b]} released rows"
            )
        a = fits[kind_of_person[persons]][:, row_class[rows]].astype(float)
        if a.all():
            # each person can hold each row: by symmetry every row is equally his
            marginals = np.full(a.shape, 1.0 / len(rows))
        elif len(persons) <= max_block:
            marginals, log_perm = _marginals(a)
            if not np.isfinite(log_perm):
                raise _inconsistent(
                    caller, f"no assignment of a block of {len(persons)} people to its rows"
                )
        else:
            continue
        exact_of_block[int(b)] = (persons, marginals @ secret[rows])
    exact_targets = np.flatnonzero([int(person_block[p]) in exact_of_block for p in person_of])
    exact_post = np.empty((exact_targets.size, n_values))
    for j, t in enumerate(exact_targets):
        persons, posterior = exact_of_block[int(person_block[person_of[t]])]
        exact_post[j] = posterior[np.searchsorted(persons, person_of[t])]

    def approx(rows: np.ndarray) -> np.ndarray:
        return class_matching_posterior(
            targets.iloc[rows],
            released,
            domains=domains,
            qi=qi,
            private=private,
            prior=prior[rows],
        )

    return _combine(exact_targets, exact_post, approx, len(targets), n_values)
