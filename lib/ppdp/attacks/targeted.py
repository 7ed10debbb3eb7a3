"""Targeted attribute inference on released people, by attackers who know the mechanism.

The trained attackers of :mod:`ppdp.attacks.suite` learn a mapping from features to the private
value and know nothing of how the release was made. The attackers here are the adversaries of the
mechanisms' own privacy definitions (k-anonymity, l-diversity, local differential privacy):

**Threat model.** The attacker targets a person he knows to be in the release. He knows the
target's true quasi-identifier values (the ``qi`` columns) and the mechanism's output format: how
a released cell relates to the values it covers (a range, a value set, a class mean) and, for the
channel attacker, the randomization channel applied to the private column. He does not know which
released row is the target's. He wants the target's private value and states his belief as a
posterior distribution over the private column's domain.

* :func:`class_matching_posterior` attacks generalized or bucketized releases (Mondrian,
  Anatomy-like buckets, Mutual Cover, relay chains' class means). Every released row is a
  candidate for the target, weighted by the probability that its quasi-identifier cells hold the
  target's values; the posterior is the weighted mixture of the candidates' private cells. With
  exact-match equivalence classes this is the q*-block posterior of l-diversity under a uniform
  prior (Machanavajjhala et al., 2007, Section 3).
* :func:`channel_posterior` attacks releases that keep the records and randomize the private
  column through a known channel ``P(released | true)`` (k-ary randomized response, SPPM and
  HyObscure-style mappings): Bayes' rule on the target's matched rows from an attacker's prior,
  for instance a model trained on auxiliary records. :func:`krr_channel` gives the channel of
  k-RR (Kairouz, Oh and Viswanath, 2016).
* :func:`posterior_scores` scores the posteriors as :func:`ppdp.attacks.suite.attribute_inference`
  scores its models: AUC and accuracy of the argmax.

Released cells are read by :func:`ppdp.cells.cell_membership` (uniformity over a region: a range
``"28-33"`` or a set ``"{a,b}"`` spreads its mass evenly over its domain values; a number between
two domain values is split between its two neighbours).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral, Real

import numpy as np
import pandas as pd

from ppdp.attacks.suite import (
    _check_column_name,
    _check_domains,
    _check_has_columns,
    _check_names,
    _scores,
    minority_index,
)
from ppdp.base import check_frame
from ppdp.cells import cell_membership
from ppdp.mechanisms._validation import Interval, check_params
from ppdp.mechanisms.randomized_response import krr_matrix
from ppdp.tabular import AttributeDomain

__all__ = ["channel_posterior", "class_matching_posterior", "krr_channel", "posterior_scores"]

# tolerance on the row sums of a channel matrix
_STOCHASTIC_TOL = 1e-9


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------


def _check_roles(
    targets, released, domains, qi, private, caller: str
) -> tuple[pd.DataFrame, pd.DataFrame, list[str], str]:
    """The checked frames and column roles shared by both attackers."""
    targets = check_frame(targets, "targets")
    released = check_frame(released, "released")
    qi = _check_names(qi, "qi", caller)
    private = _check_column_name(private, "private", caller)
    if private in qi:
        raise ValueError(f"private={private!r} must not be among the qi columns {qi}")
    _check_domains(domains, [*qi, private], caller)
    _check_has_columns(targets, "targets", qi)
    _check_has_columns(released, "released", [*qi, private])
    return targets, released, qi, private


def _target_codes(targets: pd.DataFrame, domains: Mapping[str, AttributeDomain], qi) -> np.ndarray:
    """The targets' quasi-identifier values as domain codes, shape ``(n_targets, len(qi))``."""
    codes = np.empty((len(targets), len(qi)), dtype=np.int64)
    for j, c in enumerate(qi):
        col = targets[c]
        if col.isna().any():
            raise ValueError(
                f"targets[{c!r}] has missing values; the attacker knows every target's exact "
                "quasi-identifiers"
            )
        domain = domains[c]
        if domain.kind == "numeric":
            values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
            if np.isnan(values).any():
                bad = col[np.isnan(values)].head(3).tolist()
                raise ValueError(
                    f"targets[{c!r}] must hold values of its numeric domain, got {bad!r}"
                )
        else:
            values = col.to_numpy(dtype=object)
        try:
            codes[:, j] = domain.encode(values)
        except ValueError as err:
            raise ValueError(
                f"targets[{c!r}] must hold exact values of domains[{c!r}]: {err}"
            ) from None
    return codes


def _probabilities(value, name: str, shapes: Sequence[tuple], shape_text: str) -> np.ndarray:
    """``value`` as a float array of one of ``shapes`` holding finite non-negative entries; a
    ValueError naming ``name`` otherwise (``shape_text`` says which shapes are allowed)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be an array of probabilities, got {type(value).__name__}"
        ) from None
    if arr.shape not in set(shapes):
        raise ValueError(f"{name} must have shape {shape_text}, got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must hold finite non-negative probabilities, got "
            f"{name}{list(at)} = {float(arr[at])!r}"
        )
    return arr


def _check_prior(prior, n_targets: int, n_values: int, name: str) -> np.ndarray:
    """``prior`` as an ``(n_targets, n_values)`` array of row-normalized probabilities."""
    arr = _probabilities(
        prior,
        name,
        [(n_values,), (n_targets, n_values)],
        f"({n_values},) (one prior for every target) or ({n_targets}, {n_values}) (one per target)",
    )
    arr = np.broadcast_to(arr, (n_targets, n_values))
    total = arr.sum(axis=1, keepdims=True)
    if (total <= 0).any():
        rows = np.flatnonzero(total[:, 0] <= 0)[:5].tolist()
        raise ValueError(f"{name} puts no mass on any private value (rows {rows})")
    return arr / total


def _check_channel(channel, n_values: int, private: str) -> np.ndarray:
    """``channel`` as a checked ``(n_values, n_values)`` row-stochastic float array of
    ``P(released | true)``."""
    arr = _probabilities(
        channel,
        "channel",
        [(n_values, n_values)],
        f"({n_values}, {n_values}), one row and one column per value of domains[{private!r}]",
    )
    gap = np.abs(arr.sum(axis=1) - 1.0)
    if (gap > _STOCHASTIC_TOL).any():
        row = int(np.argmax(gap))
        raise ValueError(
            f"channel must be row-stochastic (each row P(. | true value) sums to 1 within "
            f"{_STOCHASTIC_TOL:g}); row {row} sums to {float(arr[row].sum())!r}"
        )
    return arr


# --------------------------------------------------------------------------------------------
# Matching targets to released rows
# --------------------------------------------------------------------------------------------


def _factorize_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of an integer matrix, in order of first appearance.

    Returns ``(first, group)``: the position of each distinct row's first occurrence and every
    row's group. Columns are folded in one at a time, each fold re-factorized so that the
    combined key stays below ``n_rows * (max code + 1)``.
    """
    group = np.zeros(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[1]):
        column = codes[:, j]
        group, _ = pd.factorize(group * (int(column.max(initial=0)) + 1) + column)
    _, first = np.unique(group, return_index=True)
    return first, group.astype(np.int64, copy=False)


def _qi_classes(
    released: pd.DataFrame, domains: Mapping[str, AttributeDomain], qi: Sequence[str]
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The released rows grouped by their quasi-identifier cells.

    Returns
    -------
    cells : list of ndarray
        Per qi column, its distinct cells as distributions over the domain, shape
        ``(m_j, |D_j|)``.
    class_cells : ndarray of int, shape (n_classes, len(qi))
        Each class's cell in every column (index into ``cells[j]``).
    row_class : ndarray of int, shape (n_released,)
        The class of every released row.

    Notes
    -----
    Each distinct released value is read once by :func:`ppdp.cells.cell_membership`. Two cells
    that read as the same distribution (``"20-29"`` and ``"20-29.5"`` on an integer domain) are
    one cell: the attacker cannot tell them apart.
    """
    cell_of_row = np.empty((len(released), len(qi)), dtype=np.int64)
    cells = []
    for j, c in enumerate(qi):
        column = released[c]
        if column.isna().any():
            raise ValueError(f"released[{c!r}] has missing values")
        value_of_row, values = pd.factorize(column)
        membership = cell_membership(pd.Series(values), domains[c])
        distinct, cell_of_value = np.unique(membership, axis=0, return_inverse=True)
        cells.append(distinct)
        cell_of_row[:, j] = cell_of_value.reshape(-1)[value_of_row]
    first, row_class = _factorize_rows(cell_of_row)
    return cells, cell_of_row[first], row_class


def _match_weights(
    target_codes: np.ndarray, cells: Sequence[np.ndarray], class_cells: np.ndarray
) -> np.ndarray:
    """``W[t, c]``: the probability that class ``c``'s cells hold target ``t``'s values.

    The product over columns of each cell's mass on the target's value; shape
    ``(n_targets, n_classes)``, built with one more array of that shape.
    """
    shape = (target_codes.shape[0], class_cells.shape[0])
    weights = np.empty(shape)
    factor = np.empty(shape) if len(cells) > 1 else weights
    for j, distinct in enumerate(cells):
        # (|D_j|, m_j) -> the targets' values (n_targets, m_j) -> the classes' cells (valid
        # indices: "clip" writes straight into out, "raise" would buffer it)
        by_target = distinct.T[target_codes[:, j]]
        np.take(
            by_target, class_cells[:, j], axis=1, out=weights if j == 0 else factor, mode="clip"
        )
        if j > 0:
            weights *= factor
    return weights


def _matched_evidence(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    domains: Mapping[str, AttributeDomain],
    qi: Sequence[str],
    row_evidence: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``sum_rows w(target, row) * row_evidence[row]`` for every target, and whether any row
    matched it.

    Released rows are grouped into classes of equal quasi-identifier cells and targets into
    distinct quasi-identifier values, so the work is one ``(distinct targets x classes)`` weight
    matrix and its product with the classes' summed evidence.
    """
    codes = _target_codes(targets, domains, qi)
    first, target_of = _factorize_rows(codes)
    distinct_targets = codes[first]
    cells, class_cells, row_class = _qi_classes(released, domains, qi)
    class_evidence = np.zeros((class_cells.shape[0], row_evidence.shape[1]))
    np.add.at(class_evidence, row_class, row_evidence)
    weights = _match_weights(distinct_targets, cells, class_cells)
    evidence = weights @ class_evidence
    matched = weights.any(axis=1)
    return evidence[target_of], matched[target_of]


# --------------------------------------------------------------------------------------------
# The attackers
# --------------------------------------------------------------------------------------------


def class_matching_posterior(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    qi: Sequence[str],
    private: str,
    prior=None,
) -> np.ndarray:
    """Posterior of each target's private value from the released classes that can hold it.

    Threat model: the attacker knows that each target is in the release, knows the target's exact
    quasi-identifier values (``targets[qi]``) and reads the released cells as the mechanism
    publishes them (generalized ranges and value sets, bucket memberships, class means). He does
    not know which released row is the target's and has no other background knowledge.

    Every released row ``r`` is a candidate, weighted by the probability that its quasi-identifier
    cells hold the target's values under the uniformity reading of :mod:`ppdp.cells`::

        w(t, r) = prod_{q in qi} membership(released[q][r])[t_q]

    (``1 / |cell|`` when the target's value lies in the cell, 0 otherwise; for a class mean, the
    share of the mean's mass on the target's value). With the target equally likely a priori to be
    any released row, ``w(t, r)`` is the likelihood of row ``r`` being the target, and the
    posterior of private value ``s`` is the mixture of the candidates' private cells::

        posterior(t, s) ∝ sum_r w(t, r) * membership(released[private][r])[s]

    A released private cell may itself be a region (a range, a value set, a class mean) or a
    domain value; it is read by :func:`ppdp.cells.cell_membership` as a distribution over the
    private domain.

    Parameters
    ----------
    targets : DataFrame
        The attacked people, one row each, with their true ``qi`` values (values of ``domains``);
        other columns are ignored.
    released : DataFrame
        The release: ``qi`` and ``private`` columns in any form :func:`ppdp.cells.cell_membership`
        reads.
    domains : mapping str -> AttributeDomain
        Domains of ``qi`` and ``private`` (:func:`ppdp.cells.table_domains` of the real table).
    qi : sequence of str
        Distinct quasi-identifier columns the attacker knows; not ``private``.
    private : str
        The column the attacker infers.
    prior : array-like, shape (n_values,) or (n_targets, n_values), optional
        The attacker's belief for a target no released row can hold, over the values of
        ``domains[private]`` in their order (normalized here). Default: the private column's
        distribution in the release (the mean of its cells' memberships).

    Returns
    -------
    ndarray, shape (n_targets, n_values)
        Row ``i`` is target ``i``'s posterior over ``domains[private].values`` (in that order);
        rows sum to 1.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it; ValueError for a target value
        outside its domain or a released cell :func:`ppdp.cells.cell_membership` cannot read.

    Notes
    -----
    **No match.** When every weight of a target is zero (no released row's cells contain its
    values: the target was suppressed, or its values fall outside every released region) the
    attacker learns nothing from the release about him and keeps ``prior``.

    **Class means.** A relay chain's class mean is read as mass on the two domain values around
    it, so a target matches such a row only when his value is one of the two neighbours in every
    numeric column; with several numeric quasi-identifiers most targets then match nothing and
    receive the prior (on a synthetic table of 2,100 people with three numeric and three
    categorical quasi-identifiers, numeric columns replaced by the means of classes of at least 5,
    99.8 % of them). This is the uniformity reading taken literally, not the best attack on class
    means.

    Released rows with the same quasi-identifier cells (an equivalence class) are grouped first
    and targets with the same values are attacked once: the work is a ``(distinct targets x
    classes)`` weight matrix, one gather per quasi-identifier, and its product with the classes'
    summed private memberships. Memory is two ``(distinct targets x classes)`` float arrays plus
    one ``(distinct cells x |domain|)`` membership per column.

    Runtime, 3,000 targets, 2,100 released rows, 6 quasi-identifiers (3 numeric), one core: about
    0.1 s on a Mondrian release with k = 5 (323 classes), 0.2 s when every row is its own class
    (exact quasi-identifiers; 100 MB at the peak).

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [21, 25, 34, 38], "sick": ["no", "yes", "no", "no"]})
    >>> doms = table_domains(real, ["age", "sick"], numeric=["age"])
    >>> released = pd.DataFrame({"age": ["21-25", "21-25", "34-38", "34-38"],
    ...                          "sick": ["no", "yes", "no", "no"]})
    >>> class_matching_posterior(real, released, domains=doms, qi=["age"], private="sick")
    array([[0.5, 0.5],
           [0.5, 0.5],
           [1. , 0. ],
           [1. , 0. ]])
    """
    caller = "class_matching_posterior"
    targets, released, qi, private = _check_roles(targets, released, domains, qi, private, caller)
    secret = cell_membership(released[private], domains[private])
    n_values = domains[private].size
    if prior is None:
        prior = secret.mean(axis=0)
    prior = _check_prior(prior, len(targets), n_values, "prior")
    evidence, matched = _matched_evidence(targets, released, domains, qi, secret)
    total = evidence.sum(axis=1, keepdims=True)
    return np.where(matched[:, None], evidence / np.where(total > 0, total, 1.0), prior)


def channel_posterior(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    qi: Sequence[str],
    private: str,
    channel,
    prior,
) -> np.ndarray:
    """Bayes posterior of each target's private value through the mechanism's known channel.

    Threat model: the attacker knows that each target is in the release and the target's exact
    quasi-identifier values; the mechanism released each record's quasi-identifiers (exact, or
    generalized) and replaced its private value ``s`` by ``r`` drawn from a known channel
    ``channel[s, r] = P(released = r | true = s)`` (k-ary randomized response, an SPPM or
    HyObscure-style mapping). The attacker holds a prior over the target's private value, for
    instance a model trained on auxiliary records of other people.

    The target is linked to the released rows whose quasi-identifier cells hold his values, with
    the weights ``w(t, row)`` of :func:`class_matching_posterior` (with exact quasi-identifiers:
    1 for the rows equal to the target, 0 for the others). When several rows match, the attacker
    does not know which one is the target and averages their likelihoods with the weights::

        posterior(t, s) ∝ prior[t, s] * sum_rows w(t, row) * channel[s, r_row]

    Parameters
    ----------
    targets : DataFrame
        The attacked people, one row each, with their true ``qi`` values.
    released : DataFrame
        The release: ``qi`` in any form :func:`ppdp.cells.cell_membership` reads; ``private``
        holding values of ``domains[private]`` (the channel's outputs).
    domains : mapping str -> AttributeDomain
        Domains of ``qi`` and ``private``.
    qi : sequence of str
        Distinct quasi-identifier columns the attacker knows; not ``private``.
    private : str
        The randomized column the attacker infers.
    channel : array-like, shape (n_values, n_values)
        Row-stochastic: row ``s`` is ``P(released = . | true = s)``, rows and columns in the order
        of ``domains[private].values``; non-negative, each row summing to 1 within 1e-9. See
        :func:`krr_channel`.
    prior : array-like, shape (n_values,) or (n_targets, n_values)
        The attacker's prior over ``domains[private].values``, shared by every target or one row
        per target (normalized here).

    Returns
    -------
    ndarray, shape (n_targets, n_values)
        Row ``i`` is target ``i``'s posterior over ``domains[private].values``; rows sum to 1.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it; ValueError when a released
        private cell is not a value of ``domains[private]`` (a channel maps values to values).

    Notes
    -----
    **No match.** A target no released row can hold keeps his prior. A target whose prior is zero
    on every value his matched rows support (the prior is contradicted by the release) gets the
    posterior of a uniform prior, the normalized likelihood.

    The likelihood assumes the channel acts on each record independently of the others and of
    the quasi-identifiers (as in k-RR); a mapping chosen per group is attacked with that group's
    rows and channel.
    """
    caller = "channel_posterior"
    targets, released, qi, private = _check_roles(targets, released, domains, qi, private, caller)
    n_values = domains[private].size
    channel = _check_channel(channel, n_values, private)
    prior = _check_prior(prior, len(targets), n_values, "prior")
    observed = cell_membership(released[private], domains[private])
    regions = observed.max(axis=1) < 1.0
    if regions.any():
        bad = released[private][regions].head(3).tolist()
        raise ValueError(
            f"released[{private!r}] must hold values of domains[{private!r}] (the channel's "
            f"outputs), got regions such as {bad!r}"
        )
    # likelihood[row, s] = P(r_row | s) = channel[s, r_row], r_row the released value's code
    likelihood = channel.T[observed.argmax(axis=1)]
    evidence, matched = _matched_evidence(targets, released, domains, qi, likelihood)
    joint = prior * evidence
    total = joint.sum(axis=1, keepdims=True)
    # a matched target whose prior contradicts the release: the normalized likelihood
    contradicted = matched & (total[:, 0] <= 0)
    joint[contradicted] = evidence[contradicted]
    total = joint.sum(axis=1, keepdims=True)
    return np.where(matched[:, None], joint / np.where(total > 0, total, 1.0), prior)


def krr_channel(n_values: int, epsilon: float) -> np.ndarray:
    """The channel of k-ary randomized response over ``n_values`` values.

    k-RR with privacy parameter ``epsilon`` reports the true value with probability
    ``e^eps / (e^eps + k - 1)`` and each other value with probability ``1 / (e^eps + k - 1)``
    (``k = n_values``); the matrix is the mechanism's own
    (:func:`ppdp.mechanisms.randomized_response.krr_matrix`).

    Parameters
    ----------
    n_values : int
        Size of the private domain, at least 2.
    epsilon : float
        Local differential privacy parameter, finite and > 0.

    Returns
    -------
    ndarray, shape (n_values, n_values)
        ``P[s, r] = P(released = r | true = s)``; rows sum to 1.

    Raises
    ------
    ValueError
        For ``n_values < 2`` or ``epsilon`` not finite and positive, naming it.

    Examples
    --------
    >>> krr_channel(2, float(np.log(3)))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    check_params(
        {"n_values": n_values, "epsilon": epsilon},
        {
            "n_values": [Interval(Integral, 2, None, closed="left")],
            # open at both ends: excludes 0 and infinity
            "epsilon": [Interval(Real, 0, None, closed="neither")],
        },
        "krr_channel",
    )
    return krr_matrix(int(n_values), float(epsilon))


# --------------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------------


def posterior_scores(posterior, truth, private_domain_values, positive=None) -> tuple[float, float]:
    """AUC and accuracy of targeted posteriors, as the attacker suite scores its models.

    Parameters
    ----------
    posterior : array-like, shape (n_targets, n_values)
        Each target's scores over the private values (e.g. :func:`class_matching_posterior`).
    truth : array-like, shape (n_targets,)
        The targets' true private values, each among ``private_domain_values``.
    private_domain_values : array-like, shape (n_values,)
        The distinct private values labelling ``posterior``'s columns (``domains[private].values``).
    positive : optional
        The class whose AUC is reported, one of ``private_domain_values``. Default: for a
        two-valued domain the minority class of ``truth`` (on a tie, the greater label as a
        string), the convention of :func:`ppdp.attacks.suite.attribute_inference`; for a larger
        one, none (macro average).

    Returns
    -------
    auc : float
        With a positive class, its one-vs-rest AUC scored by its posterior column; without, the
        macro average of the one-vs-rest AUCs of the classes present in ``truth``. NaN when
        ``truth`` holds a single class.
    accuracy : float
        Share of targets whose most probable value (the first on ties) is the true one.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong shape or value, naming it.
    """
    try:
        post = np.asarray(posterior, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"posterior must be a (n_targets, n_values) array of scores, got "
            f"{type(posterior).__name__}"
        ) from None
    if post.ndim != 2 or post.shape[0] == 0 or post.shape[1] == 0:
        raise ValueError(f"posterior must be a non-empty 2-D array, got shape {post.shape}")
    if not np.isfinite(post).all():
        raise ValueError("posterior must hold finite scores")
    values = pd.Index(np.asarray(private_domain_values, dtype=object).reshape(-1))
    if len(values) != post.shape[1]:
        raise ValueError(
            f"private_domain_values must label posterior's {post.shape[1]} columns, got "
            f"{len(values)} values"
        )
    if not values.is_unique:
        raise ValueError(
            f"private_domain_values must be distinct, got {values[values.duplicated()].tolist()}"
        )
    y = np.asarray(truth, dtype=object)
    if y.ndim != 1 or y.shape[0] != post.shape[0]:
        raise ValueError(
            f"truth must hold one value per posterior row ({post.shape[0]}), got shape {y.shape}"
        )
    codes = values.get_indexer(y)
    if (codes < 0).any():
        bad = list(dict.fromkeys(y[codes < 0].tolist()))[:5]
        raise ValueError(
            f"truth holds values {bad!r} outside private_domain_values {values.tolist()}"
        )
    pos_code = None
    if positive is not None:
        hit = values.get_indexer([positive])
        if hit[0] < 0:
            raise ValueError(
                f"positive={positive!r} is not among private_domain_values {values.tolist()}"
            )
        pos_code = int(hit[0])
    elif len(values) == 2:
        pos_code = minority_index(values, np.bincount(codes, minlength=2))
    return _scores(np.arange(len(values)), post, codes, pos_code)
