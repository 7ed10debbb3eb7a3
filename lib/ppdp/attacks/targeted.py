"""Targeted attribute inference on released people, by attackers who know the mechanism.

The trained attackers of :mod:`ppdp.attacks.suite` learn a mapping from features to the private
value and know nothing of how the release was made. The attackers here are the adversaries of the
mechanisms' own privacy definitions (k-anonymity, l-diversity, local differential privacy):

**Threat model.** The attacker targets a person he knows to be in the release. He knows the
target's true quasi-identifier values (the ``qi`` columns) and the mechanism's output format: how
a released cell relates to the values it covers (a range, a value set, a class mean) and, for the
mechanism-aware attackers, the mechanism and its parameters (the randomization channel applied to
the private column or to a quasi-identifier profile, the nearest-centroid construction of
microaggregated classes). He does not know which released row is the target's. He wants the
target's private value and states his belief as a posterior distribution over the private
column's domain.

* :func:`class_matching_posterior` attacks generalized or bucketized releases (Mondrian,
  Anatomy-like buckets, Mutual Cover, relay chains' class means). Every released row is a
  candidate for the target, weighted by the probability that its quasi-identifier cells hold the
  target's values; the posterior is the weighted mixture of the candidates' private cells. With
  exact-match equivalence classes this is the q*-block posterior of l-diversity under a uniform
  prior (Machanavajjhala et al., 2007, Section 3).
* :func:`channel_posterior` attacks releases that keep the records and randomize the private
  column through a known channel ``P(released | true)`` (k-ary randomized response, a mapping of
  the private column): Bayes' rule on the target's matched rows from an attacker's prior,
  for instance a model trained on auxiliary records. :func:`krr_channel` gives the channel of
  k-RR (Kairouz, Oh and Viswanath, 2016).
* :func:`mapping_matching_posterior` attacks releases that keep the records and replace the
  profile of some quasi-identifiers by a draw from a known channel ``P(released profile | true
  profile)`` (SPPM's :class:`~ppdp.mechanisms.sppm.TableMapping`, HyObscure-style feature
  obfuscation): class matching in which a released row's weight for the target is the channel's
  probability of the row's profile given the target's true one. :func:`sppm_channel` gives the
  channel and its profiles of a fitted ``TableMapping``.
* :func:`nearest_class_posterior` attacks microaggregated releases (relay chains: numeric
  quasi-identifiers as class means, categorical ones as value sets): the target is placed in the
  class whose means are nearest to his values among the classes whose cells contain them, as
  microaggregation builds classes around centroids; the posterior is that class's private
  distribution.
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
import scipy.sparse as sp

from ppdp._validation import Interval, check_columns, check_params
from ppdp.attacks.suite import _check_column_name, _check_domains, _scores, minority_index
from ppdp.base import check_fitted, check_frame
from ppdp.cells import cell_membership
from ppdp.mechanisms.randomized_response import krr_matrix
from ppdp.tabular import AttributeDomain

__all__ = [
    "channel_posterior",
    "class_matching_posterior",
    "krr_channel",
    "mapping_matching_posterior",
    "nearest_class_posterior",
    "posterior_scores",
    "sppm_channel",
]

# tolerance on the row sums of a channel matrix
_STOCHASTIC_TOL = 1e-9
# cells of one (targets x released classes) block: bounds each working array to 32 MB
_BLOCK_CELLS = 1 << 22
# two squared standardized distances d <= d_min * (1 + rtol) + atol are a tie
_TIE_RTOL = 1e-9
_TIE_ATOL = 1e-12


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------


def _check_roles(
    targets, released, domains, qi, private, caller: str
) -> tuple[pd.DataFrame, pd.DataFrame, list[str], str]:
    """The checked frames and column roles shared by both attackers."""
    targets = check_frame(targets, "targets")
    released = check_frame(released, "released")
    qi = check_columns(qi, name="qi", caller=caller)
    private = _check_column_name(private, "private", caller)
    if private in qi:
        raise ValueError(f"private={private!r} must not be among the qi columns {qi}")
    _check_domains(domains, [*qi, private], caller)
    check_columns(qi, name="qi", table=targets, table_name="targets")
    check_columns([*qi, private], name="columns", table=released, table_name="released")
    return targets, released, qi, private


def _exact_codes(
    frame: pd.DataFrame,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
    name: str,
    missing_hint: str = "",
) -> np.ndarray:
    """``frame[columns]`` as domain codes, shape ``(len(frame), len(columns))``.

    Every cell must be a value of its column's domain (no region); a ValueError naming
    ``name[column]`` otherwise. ``missing_hint`` ends the message about missing values.
    """
    codes = np.empty((len(frame), len(columns)), dtype=np.int64)
    for j, c in enumerate(columns):
        col = frame[c]
        if col.isna().any():
            raise ValueError(f"{name}[{c!r}] has missing values{missing_hint}")
        domain = domains[c]
        if domain.kind == "numeric":
            values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
            if np.isnan(values).any():
                bad = col[np.isnan(values)].head(3).tolist()
                raise ValueError(
                    f"{name}[{c!r}] must hold values of its numeric domain, got {bad!r}"
                )
        else:
            values = col.to_numpy(dtype=object)
        try:
            codes[:, j] = domain.encode(values)
        except ValueError as err:
            raise ValueError(
                f"{name}[{c!r}] must hold exact values of domains[{c!r}]: {err}"
            ) from None
    return codes


def _target_codes(targets: pd.DataFrame, domains: Mapping[str, AttributeDomain], qi) -> np.ndarray:
    """The targets' quasi-identifier values as domain codes, shape ``(n_targets, len(qi))``."""
    return _exact_codes(
        targets,
        domains,
        qi,
        "targets",
        "; the attacker knows every target's exact quasi-identifiers",
    )


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


def _check_row_stochastic(arr: np.ndarray, row_text: str) -> np.ndarray:
    """``arr`` itself if each row sums to 1 within the tolerance (``row_text``: what a row is)."""
    gap = np.abs(arr.sum(axis=1) - 1.0)
    if (gap > _STOCHASTIC_TOL).any():
        row = int(np.argmax(gap))
        raise ValueError(
            f"channel must be row-stochastic (each row {row_text} sums to 1 within "
            f"{_STOCHASTIC_TOL:g}); row {row} sums to {float(arr[row].sum())!r}"
        )
    return arr


def _check_channel(channel, n_values: int, private: str) -> np.ndarray:
    """``channel`` as a checked ``(n_values, n_values)`` row-stochastic float array of
    ``P(released | true)``."""
    arr = _probabilities(
        channel,
        "channel",
        [(n_values, n_values)],
        f"({n_values}, {n_values}), one row and one column per value of domains[{private!r}]",
    )
    return _check_row_stochastic(arr, "P(. | true value)")


def _check_profile_channel(channel, n_in: int, n_out: int) -> np.ndarray:
    """``channel`` (dense or scipy sparse) as a checked ``(n_in, n_out)`` row-stochastic float
    array of ``P(released profile | true profile)``."""
    if sp.issparse(channel):
        channel = channel.toarray()
    arr = _probabilities(
        channel,
        "channel",
        [(n_in, n_out)],
        f"({n_in}, {n_out}), one row per row of in_profiles and one column per row of out_profiles",
    )
    return _check_row_stochastic(arr, "P(. | true profile)")


def _profile_codes(
    profiles, name: str, mapped: Sequence[str], domains: Mapping[str, AttributeDomain], caller
) -> np.ndarray:
    """The profiles of a channel's rows or columns as domain codes, shape ``(n_profiles,
    len(mapped))``; each profile listed once."""
    if not isinstance(profiles, pd.DataFrame):
        raise TypeError(
            f"{name} of {caller} must be a DataFrame with the mapped columns {list(mapped)}, one "
            f"row per profile, got {type(profiles).__name__}"
        )
    if len(profiles) == 0:
        raise ValueError(f"{name} has no rows; a channel needs at least one profile")
    check_columns(mapped, name="mapped", table=profiles, table_name=name)
    codes = _exact_codes(profiles, domains, mapped, name)
    first, group = _factorize_rows(codes)
    if first.size < len(codes):
        again = np.flatnonzero(np.bincount(group) > 1)[0]
        rows = np.flatnonzero(group == again)[:2].tolist()
        profile = tuple(profiles[list(mapped)].iloc[rows[0]].tolist())
        raise ValueError(f"{name} must list each profile once; rows {rows} are both {profile!r}")
    return codes


def _check_numeric(numeric, qi: Sequence[str], domains, caller: str) -> list[str]:
    """``numeric``: distinct qi columns with numeric domains (possibly none)."""
    names = check_columns(numeric, name="numeric", caller=caller, allow_empty=True)
    outside = [c for c in names if c not in qi]
    if outside:
        raise ValueError(f"numeric columns {outside} of {caller} must be among the qi {qi}")
    categorical = [c for c in names if domains[c].kind != "numeric"]
    if categorical:
        raise ValueError(
            f"numeric columns {categorical} of {caller} must have numeric domains; their "
            "domains are categorical"
        )
    return names


def _released_numbers(column: pd.Series, domain: AttributeDomain, name: str) -> np.ndarray:
    """A numeric released column as numbers: a number as it is (a class mean), any other cell
    (a range ``"lo-hi"``) as the expected value of its :func:`ppdp.cells.cell_membership`."""
    if column.isna().any():
        raise ValueError(f"released[{name!r}] has missing values")
    numbers = np.array(pd.to_numeric(column, errors="coerce"), dtype=float)
    regions = np.isnan(numbers)
    if regions.any():
        membership = cell_membership(column[regions], domain)
        numbers[regions] = membership @ domain.values.astype(float)
    if not np.isfinite(numbers).all():
        bad = column[~np.isfinite(numbers)].head(3).tolist()
        raise ValueError(f"released[{name!r}] must hold finite numbers, got {bad!r}")
    return numbers


def _check_scale(scale, numeric: Sequence[str], numbers: np.ndarray) -> np.ndarray:
    """The divisor of every numeric column's differences, shape ``(len(numeric),)``.

    ``None``: the standard deviation of the column's released numbers over the released rows,
    1 for a constant column (its differences are 0 whatever the divisor).
    """
    if scale is None:
        spread = numbers.std(axis=0)
        return np.where(spread > 0, spread, 1.0)
    if isinstance(scale, Mapping):
        missing = [c for c in numeric if c not in scale]
        extra = [k for k in scale if k not in numeric]
        if missing or extra:
            raise ValueError(
                f"scale must have one entry per numeric column {list(numeric)}; "
                f"missing {missing}, unknown {extra}"
            )
        scale = [scale[c] for c in numeric]
    try:
        arr = np.asarray(scale, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"scale must be a number, a sequence in the order of numeric or a mapping column -> "
            f"number, got {type(scale).__name__}"
        ) from None
    if arr.ndim == 0:
        arr = np.full(len(numeric), float(arr))
    if arr.shape != (len(numeric),):
        raise ValueError(
            f"scale must hold one number per numeric column ({len(numeric)}), got shape {arr.shape}"
        )
    bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(
            f"scale must be finite and > 0 for every numeric column, got "
            f"scale[{numeric[j]!r}] = {float(arr[j])!r}"
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


def _profile_index(alphabet: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Each row of ``codes``'s position among the (distinct) rows of ``alphabet``, -1 when it is
    not one of them."""
    _, group = _factorize_rows(np.vstack([alphabet, codes]))
    position = np.full(int(group.max()) + 1, -1, dtype=np.int64)
    position[group[: len(alphabet)]] = np.arange(len(alphabet))
    return position[group[len(alphabet) :]]


def _blocks(n_rows: int, n_columns: int):
    """Consecutive slices of ``n_rows`` rows whose ``(rows x n_columns)`` arrays hold at most
    ``_BLOCK_CELLS`` cells (at least one row each)."""
    step = max(1, _BLOCK_CELLS // max(n_columns, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


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
    ``(n_targets, n_classes)``. Most pairs of a target and a class share no value in some column
    (released values kept exactly, or narrow cells, match few targets), so the pairs are first
    narrowed to those of the most selective column, then to those every other column allows, and
    only they are multiplied out (:func:`_dense_match_weights` multiplies every pair). Each pair's
    factors are multiplied in column order either way, so the two give the same bits.
    """
    n_targets, n_classes = target_codes.shape[0], class_cells.shape[0]
    if not cells or n_targets == 0 or n_classes == 0:
        return np.ones((n_targets, n_classes))
    # the pairs each column allows: sum over its cells of (targets it holds) x (classes with it)
    allowed = []
    for j, distinct in enumerate(cells):
        per_value = np.bincount(target_codes[:, j], minlength=distinct.shape[1])
        targets_per_cell = (distinct > 0).astype(np.int64) @ per_value
        classes_per_cell = np.bincount(class_cells[:, j], minlength=distinct.shape[0])
        allowed.append(int(targets_per_cell @ classes_per_cell))
    order = np.argsort(allowed, kind="stable")
    first = int(order[0])
    if allowed[first] > n_targets * n_classes // _SPARSE_SHARE:
        return _dense_match_weights(target_codes, cells, class_cells)
    # the pairs of the most selective column, cell by cell
    distinct = cells[first]
    holds = distinct[:, target_codes[:, first]] > 0  # (cells, targets)
    by_cell = np.argsort(class_cells[:, first], kind="stable")
    bounds = np.searchsorted(class_cells[by_cell, first], np.arange(distinct.shape[0] + 1))
    t_parts, c_parts = [], []
    for d in np.flatnonzero(np.diff(bounds)):
        targets = np.flatnonzero(holds[d])
        if targets.size:
            classes = by_cell[bounds[d] : bounds[d + 1]]
            t_parts.append(np.repeat(targets, classes.size))
            c_parts.append(np.tile(classes, targets.size))
    if not t_parts:
        return np.zeros((n_targets, n_classes))
    t_idx, c_idx = np.concatenate(t_parts), np.concatenate(c_parts)
    for j in order[1:]:
        keep = cells[j][class_cells[c_idx, j], target_codes[t_idx, j]] > 0
        t_idx, c_idx = t_idx[keep], c_idx[keep]
    product = cells[0][class_cells[c_idx, 0], target_codes[t_idx, 0]]
    for j in range(1, len(cells)):
        product = product * cells[j][class_cells[c_idx, j], target_codes[t_idx, j]]
    weights = np.zeros((n_targets, n_classes))
    weights[t_idx, c_idx] = product
    return weights


#: The share of all (target, class) pairs, as 1 / this, above which the most selective column
#: allows too many pairs for narrowing them to pay: every pair is multiplied out instead.
_SPARSE_SHARE = 8


def _dense_match_weights(
    target_codes: np.ndarray, cells: Sequence[np.ndarray], class_cells: np.ndarray
) -> np.ndarray:
    """:func:`_match_weights` on every (target, class) pair, with one more array of that shape."""
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
    means: :func:`nearest_class_posterior` places the target in the class with the nearest means.

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

    Examples
    --------
    The attacker knows each target's age (released exactly) and that sickness went through k-RR
    at ``epsilon = ln 3`` (kept with probability 3/4), and wants the target's sickness. With a
    uniform prior the posterior follows the released value 3 to 1; a prior that says "no" at
    0.8 (a model of other people) outweighs a released "yes":

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> people = pd.DataFrame({"age": [21, 25, 34, 38], "sick": ["no", "yes", "no", "no"]})
    >>> released = pd.DataFrame({"age": [21, 25, 34, 38], "sick": ["yes", "yes", "no", "no"]})
    >>> doms = table_domains(people, ["age", "sick"], numeric=["age"])
    >>> channel = krr_channel(2, float(np.log(3)))
    >>> channel_posterior(people, released, domains=doms, qi=["age"], private="sick",
    ...                   channel=channel, prior=[0.5, 0.5])
    array([[0.25, 0.75],
           [0.25, 0.75],
           [0.75, 0.25],
           [0.75, 0.25]])
    >>> channel_posterior(people, released, domains=doms, qi=["age"], private="sick",
    ...                   channel=channel, prior=[0.8, 0.2]).round(3)
    array([[0.571, 0.429],
           [0.571, 0.429],
           [0.923, 0.077],
           [0.923, 0.077]])
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


def mapping_matching_posterior(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    qi: Sequence[str],
    private: str,
    mapped: Sequence[str],
    channel,
    in_profiles: pd.DataFrame,
    out_profiles: pd.DataFrame | None = None,
    prior=None,
) -> np.ndarray:
    """Posterior of each target's private value from a release whose quasi-identifier profile
    went through a known channel.

    Threat model: the attacker knows that each target is in the release and the target's exact
    quasi-identifier values. The mechanism kept the records and replaced each record's profile
    ``b`` of the ``mapped`` columns (a subset of ``qi``) by a profile ``b^`` drawn from a known
    channel ``channel[b, b^] = P(b^ | b)``: SPPM's fitted mapping (:class:`TableMapping
    <ppdp.mechanisms.sppm.TableMapping>`, see :func:`sppm_channel`), HyObscure-style feature
    obfuscation. The private column and the other quasi-identifiers are released as the
    mechanism leaves them (exact values, or any cell :func:`ppdp.cells.cell_membership` reads).

    Every released row ``r`` is a candidate for target ``t``, with the likelihood that the
    target's record became row ``r``::

        w(t, r) = channel[b(t), b^(r)]
                  * prod_{q in qi, q not in mapped} membership(released[q][r])[t_q]

    where ``b(t)`` is the target's true profile of the ``mapped`` columns and ``b^(r)`` the row's
    released profile; the unmapped factor is the weight of :func:`class_matching_posterior`. With
    the target equally likely a priori to be any released row, the posterior of private value
    ``s`` is the ``w``-weighted mixture of the candidates' private cells::

        posterior(t, s) ∝ sum_r w(t, r) * membership(released[private][r])[s]

    Parameters
    ----------
    targets : DataFrame
        The attacked people, one row each, with their true ``qi`` values (values of ``domains``).
    released : DataFrame
        The release: ``mapped`` columns holding values of their domains that form one of the
        ``out_profiles``; other ``qi`` and ``private`` in any form
        :func:`ppdp.cells.cell_membership` reads.
    domains : mapping str -> AttributeDomain
        Domains of ``qi`` and ``private``.
    qi : sequence of str
        Distinct quasi-identifier columns the attacker knows; not ``private``.
    private : str
        The column the attacker infers.
    mapped : sequence of str
        The distinct ``qi`` columns whose joint profile the channel maps.
    channel : array-like or scipy sparse matrix, shape (n_in_profiles, n_out_profiles)
        Row-stochastic: row ``i`` is ``P(released profile = . | true profile = in_profiles row
        i)``, column ``j`` the released profile ``out_profiles`` row ``j``; non-negative, each row
        summing to 1 within 1e-9.
    in_profiles : DataFrame
        The true profiles indexing the channel's rows: one row per profile, columns ``mapped``
        (extra columns are ignored), values of ``domains``, each profile once.
    out_profiles : DataFrame, optional
        The released profiles indexing the channel's columns, in the same form. Default:
        ``in_profiles`` (a square channel over one alphabet, as SPPM's ``B^ = B``).
    prior : array-like, shape (n_values,) or (n_targets, n_values), optional
        The attacker's belief for a target no released row can hold, over the values of
        ``domains[private]`` in their order (normalized here). Default: the private column's
        distribution in the release (the mean of its cells' memberships).

    Returns
    -------
    ndarray, shape (n_targets, n_values)
        Row ``i`` is target ``i``'s posterior over ``domains[private].values``; rows sum to 1.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it; ValueError when a released row's
        profile is not among ``out_profiles`` (the channel cannot have produced it) or a profile
        holds a value outside its domain.

    See Also
    --------
    sppm_channel : ``channel``, ``in_profiles`` and ``out_profiles`` of a fitted TableMapping.

    Notes
    -----
    **Unknown profile.** A target whose true profile is not among ``in_profiles`` has no row in
    the channel: the attacker cannot say how the mechanism would have mapped him, every ``w(t,
    r)`` is taken as 0 and he keeps ``prior``. For SPPM this happens only to people outside the
    fitted table (the alphabet is the profiles observed in it). A target whose weights are all 0
    for another reason (no released row can hold him) keeps ``prior`` too.

    With an identity channel over profiles that the release shows exactly, this is
    :func:`class_matching_posterior`. The likelihood assumes each record's profile is drawn
    independently of the others, as SPPM's release does.

    Released rows are grouped by (unmapped quasi-identifier cells, released profile) and targets
    by (unmapped quasi-identifier values, true profile), so the work is one ``(distinct targets x
    released groups)`` weight matrix, built in blocks of at most 4M cells, and its product with
    the groups' summed private memberships.

    Runtime, 2,000 targets, 6,000 released rows, 6 quasi-identifiers (4 mapped, 2,541 profiles,
    nearly every released row its own group), one core: 0.3 to 0.6 s, 100 MB at the peak.

    Examples
    --------
    The attacker knows each target's true zip and that the release kept a record's zip with
    probability 0.8 and swapped it with 0.2, and wants the target's sickness. A target of zip
    ``a`` weighs the one released ``a`` row four times as much as each ``b`` row:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> people = pd.DataFrame({"zip": ["a", "a", "b", "b"], "sick": ["no", "no", "yes", "yes"]})
    >>> released = pd.DataFrame({"zip": ["a", "b", "b", "b"], "sick": ["no", "no", "yes", "yes"]})
    >>> doms = table_domains(people, ["zip", "sick"])
    >>> mapping_matching_posterior(
    ...     people, released, domains=doms, qi=["zip"], private="sick", mapped=["zip"],
    ...     channel=[[0.8, 0.2], [0.2, 0.8]], in_profiles=pd.DataFrame({"zip": ["a", "b"]}),
    ... ).round(3)
    array([[0.714, 0.286],
           [0.714, 0.286],
           [0.385, 0.615],
           [0.385, 0.615]])
    """
    caller = "mapping_matching_posterior"
    targets, released, qi, private = _check_roles(targets, released, domains, qi, private, caller)
    mapped = check_columns(mapped, name="mapped", caller=caller)
    outside = [c for c in mapped if c not in qi]
    if outside:
        raise ValueError(
            f"mapped columns {outside} of {caller} must be among the qi {qi}: the attacker reads "
            "the target's true profile from his quasi-identifiers"
        )
    in_codes = _profile_codes(in_profiles, "in_profiles", mapped, domains, caller)
    if out_profiles is None:
        out_codes = in_codes
    else:
        out_codes = _profile_codes(out_profiles, "out_profiles", mapped, domains, caller)
    channel = _check_profile_channel(channel, in_codes.shape[0], out_codes.shape[0])
    secret = cell_membership(released[private], domains[private])
    n_values = domains[private].size
    if prior is None:
        prior = secret.mean(axis=0)
    prior = _check_prior(prior, len(targets), n_values, "prior")
    rest = [c for c in qi if c not in mapped]

    # released rows: their profile (a column of the channel) and their class of unmapped cells
    shown = _profile_index(out_codes, _exact_codes(released, domains, mapped, "released"))
    if (shown < 0).any():
        row = int(np.argmax(shown < 0))
        unknown = tuple(released[mapped].iloc[row].tolist())
        raise ValueError(
            f"released row {released.index[row]!r} shows the profile {unknown!r} of {mapped}, "
            "which is not among out_profiles (the channel cannot release it)"
        )
    if rest:
        cells, class_cells, row_class = _qi_classes(released, domains, rest)
    else:
        cells, class_cells = [], np.zeros((1, 0), dtype=np.int64)
        row_class = np.zeros(len(released), dtype=np.int64)
    first, group = _factorize_rows(np.column_stack([row_class, shown]))
    group_cells, group_profile = class_cells[row_class[first]], shown[first]
    group_secret = np.zeros((first.size, n_values))
    np.add.at(group_secret, group, secret)

    # targets: their true profile (a row of the channel, -1 when it has none)
    codes = _target_codes(targets, domains, qi)
    column = {c: j for j, c in enumerate(qi)}
    rest_codes = codes[:, [column[c] for c in rest]]
    profile = _profile_index(in_codes, codes[:, [column[c] for c in mapped]])
    t_first, target_of = _factorize_rows(np.column_stack([rest_codes, profile + 1]))
    known = np.flatnonzero(profile[t_first] >= 0)
    evidence = np.zeros((t_first.size, n_values))
    matched = np.zeros(t_first.size, dtype=bool)
    for block in _blocks(known.size, first.size):
        rows = known[block]
        weights = channel[profile[t_first[rows]]][:, group_profile]
        if rest:
            weights *= _match_weights(rest_codes[t_first[rows]], cells, group_cells)
        evidence[rows] = weights @ group_secret
        matched[rows] = weights.any(axis=1)
    evidence, matched = evidence[target_of], matched[target_of]
    total = evidence.sum(axis=1, keepdims=True)
    return np.where(matched[:, None], evidence / np.where(total > 0, total, 1.0), prior)


def nearest_class_posterior(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    qi: Sequence[str],
    private: str,
    numeric: Sequence[str],
    scale=None,
    prior=None,
) -> np.ndarray:
    """Posterior of each target's private value from the released class whose centre is nearest
    to him (microaggregation, relay chains).

    Threat model: the attacker knows that each target is in the release and the target's exact
    quasi-identifier values; he knows that the mechanism partitioned the records around centroids
    and published each class with its ``numeric`` quasi-identifiers replaced by the class means
    and its other quasi-identifiers by cells that contain the members' values (the value set
    ``"{a,b}"`` of a relay chain's release, a range). A person's class is then the one whose
    centre is nearest to him among those whose cells contain his values.

    The released rows form classes (equal numbers in every ``numeric`` column, equal cells in the
    others). Target ``t`` is assigned to the classes whose non-numeric cells all contain his
    values (membership > 0) and, among those, to the nearest in the standardized Euclidean
    distance::

        d(t, c)^2 = sum_{q in numeric} ((t_q - mean_q(c)) / scale_q)^2

    Classes at the smallest distance (within a relative 1e-9) share the target evenly. The
    posterior is the assigned classes' private distribution: the mean over a class's rows of the
    memberships of their private cells, averaged over the tied classes.

    Parameters
    ----------
    targets : DataFrame
        The attacked people, one row each, with their true ``qi`` values (values of ``domains``).
    released : DataFrame
        The release. ``numeric`` columns hold numbers (class means; a range ``"lo-hi"`` is read
        as the mean of the domain values it covers); the other ``qi`` and ``private`` hold any
        cell :func:`ppdp.cells.cell_membership` reads.
    domains : mapping str -> AttributeDomain
        Domains of ``qi`` and ``private``.
    qi : sequence of str
        Distinct quasi-identifier columns the attacker knows; not ``private``.
    private : str
        The column the attacker infers.
    numeric : sequence of str
        The ``qi`` columns released as class means (numeric domains); may be empty. The other
        ``qi`` columns are matched by containment only.
    scale : float, sequence of float or mapping str -> float, optional
        The divisor of each ``numeric`` column's differences (one number for all, one per column
        in the order of ``numeric``, or a mapping column -> number); finite and > 0. Default: the
        standard deviation of the column's released numbers over the released rows (the spread
        of the class means the attacker sees), and 1 for a column whose released numbers are all
        equal (its differences are the same for every class, so any divisor ranks the classes
        alike).
    prior : array-like, shape (n_values,) or (n_targets, n_values), optional
        The attacker's belief for a target no class can hold: no class's cells contain his
        values and there is no ``numeric`` column to fall back on (see Notes). Over the values
        of ``domains[private]`` in their order (normalized here). Default: the private column's
        distribution in the release (the mean of its cells' memberships).

    Returns
    -------
    ndarray, shape (n_targets, n_values)
        Row ``i`` is target ``i``'s posterior over ``domains[private].values``; rows sum to 1.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it; ValueError for a target value
        outside its domain, a released cell :func:`ppdp.cells.cell_membership` cannot read or a
        ``numeric`` column with a categorical domain.

    Notes
    -----
    **No containing class.** When no class's non-numeric cells contain the target's values (he
    was not in the release, or the cells are not supersets of their members' values), every
    class is a candidate and the nearest on the ``numeric`` columns alone is taken; with no
    ``numeric`` column the target keeps ``prior``.

    **Why the nearest centre.** :func:`class_matching_posterior` reads a class mean as mass on
    the two domain values around it, so a target matches a row of a relay chain's release only
    when his value neighbours the mean in every numeric column: with several numeric
    quasi-identifiers most targets match nothing and keep the prior. Microaggregation builds its
    classes around centroids, so a person often lies nearer to his own class's mean than to any
    other's, but not always: a relay chain cuts along axes with unequal halves and PLSA splits a
    class by halving each sensitive value's tuples separately, so neighbouring classes
    interleave. On a synthetic table of 400 people (two numeric quasi-identifiers, one
    categorical) released by a one-hop TDA chain, the attacker places 89 % of the people in their
    own class at ``delta = 0.2`` (85 classes; class matching puts 6 % of its mass there), 68 % at
    0.05 and 33 % at 0.01, where the larger classes' members often lie nearer to a small
    neighbour's mean. A misplaced person gets a neighbouring class's private distribution, which
    the chain's bound keeps, as his own class's, within ``delta`` (Jensen-Shannon) of the
    table's.

    The default scale standardizes the columns as a relay chain's inverse-variance weights do,
    with the spread of the released means in place of the unpublished spread of the true values.

    Targets with equal values are attacked once; the work is a ``(distinct targets x classes)``
    distance matrix, built in blocks of at most 4M cells.

    Runtime, 2,000 targets, 6,000 released rows, 6 quasi-identifiers (2 numeric), one core: 0.1
    to 0.2 s on classes of 5 (1,200 classes, 60 MB at the peak), 0.4 to 0.6 s when every row is
    its own class (140 MB).

    Examples
    --------
    The attacker knows each target's age and that the release replaced ages by the means of
    classes of three, and wants the target's sickness. Every target lands in his own class;
    class matching finds only the two whose age equals a mean:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> people = pd.DataFrame({"age": [20, 22, 24, 40, 42, 44],
    ...                        "sick": ["no", "no", "yes", "yes", "yes", "no"]})
    >>> released = people.assign(age=[22.0, 22.0, 22.0, 42.0, 42.0, 42.0])
    >>> doms = table_domains(people, ["age", "sick"], numeric=["age"])
    >>> nearest_class_posterior(people, released, domains=doms, qi=["age"], private="sick",
    ...                         numeric=["age"]).round(3)
    array([[0.667, 0.333],
           [0.667, 0.333],
           [0.667, 0.333],
           [0.333, 0.667],
           [0.333, 0.667],
           [0.333, 0.667]])
    >>> class_matching_posterior(people, released, domains=doms, qi=["age"],
    ...                          private="sick").round(3)
    array([[0.5  , 0.5  ],
           [0.667, 0.333],
           [0.5  , 0.5  ],
           [0.5  , 0.5  ],
           [0.333, 0.667],
           [0.5  , 0.5  ]])
    """
    caller = "nearest_class_posterior"
    targets, released, qi, private = _check_roles(targets, released, domains, qi, private, caller)
    numeric = _check_numeric(numeric, qi, domains, caller)
    contained = [c for c in qi if c not in numeric]
    secret = cell_membership(released[private], domains[private])
    n_values = domains[private].size
    if prior is None:
        prior = secret.mean(axis=0)
    prior = _check_prior(prior, len(targets), n_values, "prior")
    numbers = np.zeros((len(released), len(numeric)))
    for j, c in enumerate(numeric):
        numbers[:, j] = _released_numbers(released[c], domains[c], c)
    scales = _check_scale(scale, numeric, numbers)

    # the published classes: equal cells in the contained columns, equal numbers in the others
    if contained:
        cells, cell_classes, row_cells = _qi_classes(released, domains, contained)
    else:
        cells, cell_classes = [], np.zeros((1, 0), dtype=np.int64)
        row_cells = np.zeros(len(released), dtype=np.int64)
    keys = [row_cells, *(pd.factorize(numbers[:, j])[0] for j in range(len(numeric)))]
    first, row_class = _factorize_rows(np.column_stack(keys))
    class_cells = cell_classes[row_cells[first]]
    centres = numbers[first] / scales
    class_secret = np.zeros((first.size, n_values))
    np.add.at(class_secret, row_class, secret)
    class_secret /= np.bincount(row_class)[:, None]

    codes = _target_codes(targets, domains, qi)
    t_first, target_of = _factorize_rows(codes)
    distinct = codes[t_first]
    column = {c: j for j, c in enumerate(qi)}
    contained_codes = distinct[:, [column[c] for c in contained]]
    points = np.zeros((t_first.size, len(numeric)))
    for j, c in enumerate(numeric):
        points[:, j] = domains[c].values.astype(float)[distinct[:, column[c]]] / scales[j]

    posterior = np.empty((t_first.size, n_values))
    unplaced = np.zeros(t_first.size, dtype=bool)
    for block in _blocks(t_first.size, first.size):
        if contained:
            fits = _match_weights(contained_codes[block], cells, class_cells) > 0
        else:
            fits = np.ones((block.stop - block.start, first.size), dtype=bool)
        anywhere = fits.any(axis=1)
        if numeric:
            # no class contains the target's values: every class is a candidate
            fits[~anywhere] = True
            distance = np.zeros(fits.shape)
            for j in range(len(numeric)):
                distance += np.square(points[block, j, None] - centres[None, :, j])
            distance[~fits] = np.inf
            nearest = distance.min(axis=1, keepdims=True)
            chosen = distance <= nearest * (1.0 + _TIE_RTOL) + _TIE_ATOL
        else:
            chosen = fits
            unplaced[block] = ~anywhere
        share = chosen.astype(float)
        share /= np.maximum(share.sum(axis=1, keepdims=True), 1.0)
        posterior[block] = share @ class_secret
    posterior, unplaced = posterior[target_of], unplaced[target_of]
    return np.where(unplaced[:, None], prior, posterior)


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


def sppm_channel(mechanism) -> tuple[np.ndarray, pd.DataFrame, pd.DataFrame]:
    """The channel of a fitted SPPM table mapping and the profiles indexing it.

    :class:`~ppdp.mechanisms.sppm.TableMapping` draws each row's released profile ``b^`` from
    row ``b`` of its ``mapping_`` (normalized), where rows and columns both index the profiles of
    its ``profiles_`` (the alphabet ``B`` of the ``released_columns_`` observed in the fitted
    table, ``B^ = B``).

    Parameters
    ----------
    mechanism : TableMapping
        Fitted.

    Returns
    -------
    channel : ndarray, shape (n_profiles, n_profiles)
        ``mapping_`` as a dense array, each row divided by its sum (the distribution the release
        draws from).
    in_profiles, out_profiles : DataFrame
        ``profiles_`` (one copy, returned twice): row ``j`` is profile ``j``, columns
        ``released_columns_``.

    Raises
    ------
    TypeError
        When ``mechanism`` is not a :class:`~ppdp.mechanisms.sppm.TableMapping`.
    sklearn.exceptions.NotFittedError
        When it is not fitted.

    Examples
    --------
    The attacker knows each target's zip and SPPM's fitted mapping of zips (at an expected
    Hamming distortion of 0.1, zips ``a`` and ``b`` are swapped with probability 0.15), and
    wants the target's sickness. The mapped columns are the mechanism's
    ``released_columns_``:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> from ppdp.mechanisms.sppm import TableMapping
    >>> table = pd.DataFrame({
    ...     "zip": ["a", "a", "a", "b", "b", "b", "c", "c", "a", "b", "c", "c"],
    ...     "sick": ["no", "no", "yes", "yes", "yes", "no", "no", "yes", "no", "yes", "no", "yes"]})
    >>> mech = TableMapping(private="sick", released=["zip"], delta=0.1, n_steps=5, certify=False)
    >>> released = mech.fit_release(table, random_state=0)
    >>> channel, in_profiles, out_profiles = sppm_channel(mech)
    >>> channel.round(2)
    array([[0.85, 0.15, 0.  ],
           [0.15, 0.85, 0.  ],
           [0.  , 0.  , 1.  ]])
    >>> in_profiles["zip"].tolist()
    ['a', 'b', 'c']
    >>> posterior = mapping_matching_posterior(
    ...     table, released, domains=table_domains(table, ["zip", "sick"]), qi=["zip"],
    ...     private="sick", mapped=mech.released_columns_, channel=channel,
    ...     in_profiles=in_profiles, out_profiles=out_profiles)
    >>> posterior.shape
    (12, 2)
    """
    from ppdp.mechanisms.sppm import TableMapping

    if not isinstance(mechanism, TableMapping):
        raise TypeError(
            f"mechanism of sppm_channel must be a fitted TableMapping, got "
            f"{type(mechanism).__name__}"
        )
    check_fitted(mechanism, "mapping_")
    mapping = mechanism.mapping_
    dense = mapping.toarray() if sp.issparse(mapping) else np.array(mapping, dtype=float)
    channel = dense / dense.sum(axis=1, keepdims=True)
    profiles = mechanism.profiles_.copy()
    return channel, profiles, profiles


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

    Examples
    --------
    Four targets, one of them not sick: the default positive class is the minority ``"no"``,
    which the posteriors rank first (AUC 1); the argmax misses one target:

    >>> posterior = [[0.9, 0.1], [0.3, 0.7], [0.6, 0.4], [0.2, 0.8]]
    >>> posterior_scores(posterior, ["no", "yes", "yes", "yes"], ["no", "yes"])
    (1.0, 0.75)
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
