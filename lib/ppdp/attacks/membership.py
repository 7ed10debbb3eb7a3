"""Membership inference against any release: distance to the closest record and shadow models.

**Threat model.** The attacker knows a target's full record (every column of the table:
quasi-identifiers, private attributes and the task) and the release, and wants to know whether the
target's record was in the mechanism's input. The attack is scored on members (``targets``,
people in the mechanism's input) against non-members (``controls``, people drawn from the same
population but kept out of it) by the area under the ROC curve, the advantage ``AUC - 0.5`` and
the true-positive rate at 1% and 0.1% false-positive rate (:func:`membership_scores`); a release
that tells nothing about who is in it scores ``AUC = 0.5`` whatever it declares.

Two attackers:

* :func:`dcr_membership`, the *distance to the closest record*: a target closer to the release
  than controls are is more likely a member. It needs nothing but the release and catches every
  release that copies real records (the unprotected table, a shuffle of some columns, a
  "synthesizer" that resamples real rows).
* :func:`shadow_membership`, the *shadow-model* attack of Shokri et al. (2017) in the form TAPAS
  (Houssiau et al., 2022) gives it for synthetic data: the attacker also holds auxiliary real
  records of other people and can run the mechanism. It releases random halves of them as shadow
  inputs, learns how what a release holds near a record (:func:`neighbour_features`: distances
  to the closest rows, counts of rows sharing the record's values) differs between records that
  were in the input and records that were not, and applies what it learned to the targets and
  controls under the real release. It catches mechanisms that leak membership without copying,
  such as a synthesizer fitted too closely (MST at a large epsilon). Each shadow input holds half
  of the auxiliary records.

Released cells may be generalized (ranges ``"20-29"``, value sets ``"{a,b}"``, hierarchy nodes,
numbers between domain values); they are read as :mod:`ppdp.cells` reads them, and a record is at
distance 0 from a cell that covers its value (:func:`closest_record_distances`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import combinations
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from ppdp._validation import Interval, check_columns, check_params
from ppdp.base import check_random_state
from ppdp.cells import cell_membership
from ppdp.tabular import AttributeDomain

__all__ = [
    "closest_record_distances",
    "dcr_membership",
    "membership_scores",
    "neighbour_features",
    "shadow_membership",
    "true_positive_rates",
]

#: Floats per block of the distance matrix (2 MiB): a block holds as many distinct people as
#: keep it within this size against the distinct released rows, at least one. A block and the
#: column it is summing stay in the processor's cache: on the default profile's Adult (10,000
#: people against 10,000 distinct released rows) the features take about half the time they take
#: with blocks of 512 people; the sums are the same per person whatever the block.
_BLOCK_ENTRIES = 1 << 18
#: The most cells of a table of counts per pair of values of two columns (32 MiB of float64);
#: a pair of larger domains is counted record by record, one block of records at a time.
_PAIR_CELLS = 1 << 22


# -- inputs ------------------------------------------------------------------------------------


def _check_tables(
    tables: Mapping[str, Any], domains: Mapping[str, AttributeDomain], columns: Any
) -> list:
    """``columns`` as a list, after checking that every table is a non-empty DataFrame holding
    them and that ``domains`` has a domain for each."""
    for name, table in tables.items():
        if not isinstance(table, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(table).__name__}")
        if len(table) == 0:
            raise ValueError(f"{name} has no rows; membership needs at least one record")
    columns = check_columns(columns, name="columns")
    for name, table in tables.items():
        missing = [c for c in columns if c not in table.columns]
        if missing:
            raise ValueError(
                f"{name} lacks the columns {missing} of columns {columns}; "
                f"it has {list(table.columns)}"
            )
    missing = [c for c in columns if c not in domains]
    if missing:
        raise ValueError(f"domains has no domain for the columns {missing} of columns {columns}")
    return columns


# -- distances ---------------------------------------------------------------------------------


def _point(value: Any) -> float:
    """A numeric cell's number, or NaN for a range (as :mod:`ppdp.cells` tells them apart)."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return np.nan
    return float(value)


def _cell_distances(cells: np.ndarray, domain: AttributeDomain) -> np.ndarray:
    """``[cell, domain value]`` distance in ``[0, 1]`` from each domain value to each cell.

    A categorical cell is at 0 from the values it covers and 1 from the others. A numeric cell is at
    ``|v - x| / span`` from ``v``: ``x`` is the cell's number, or, for a range, the nearest domain
    value the range covers; ``span`` is the domain's range (max - min).
    """
    cover = cell_membership(cells, domain) > 0  # also checks that every cell reads
    if domain.kind != "numeric":
        return (~cover).astype(float)
    values = domain.values.astype(float)
    points = np.array([_point(v) for v in cells.tolist()], dtype=float)
    out = np.abs(values[None, :] - points[:, None])
    ranges = np.isnan(points)
    if ranges.any():
        gap = np.abs(values[:, None] - values[None, :])  # [value, covered value]
        out[ranges] = np.where(cover[ranges][:, None, :], gap[None], np.inf).min(axis=2)
    span = float(values[-1] - values[0])
    return out / span if span > 0 else out


def _distance_blocks(
    people: pd.DataFrame,
    released: pd.DataFrame,
    domains: Mapping[str, AttributeDomain],
    columns: list,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], Iterator[tuple[np.ndarray, np.ndarray]]]:
    """Distances from people to the distinct released rows, one block of people at a time.

    Returns
    -------
    multiplicity : ndarray of int, shape (n_distinct,)
        How many released rows each distinct released row stands for.
    inverse : ndarray of int, shape (len(people),)
        Each person's index among the distinct records of ``people``.
    by_row : list of ndarray
        Per column, the distance of each distinct released row's cell to each domain value,
        shape ``(n_distinct, len(domain))``; 0 where the cell covers the value.
    blocks : iterator of (distances, records)
        One item per block of ``b`` distinct records of ``people``, in order: ``distances``
        (shape ``(b, n_distinct)``) is their mean per-column distance to each distinct released
        row, ``records`` (shape ``(b, len(columns))``) their values as domain codes.
    """
    # released rows factorized column by column, then to distinct tuples of cells
    cell_codes, tables = [], []
    for c in columns:
        codes, cells = pd.factorize(released[c].to_numpy(dtype=object), use_na_sentinel=False)
        cell_codes.append(codes)
        tables.append(_cell_distances(np.asarray(cells, dtype=object), domains[c]))
    rows, multiplicity = np.unique(np.column_stack(cell_codes), axis=0, return_counts=True)
    # people's records as domain codes, also factorized: duplicate records are scored once
    person_codes = np.column_stack([domains[c].encode(people[c].to_numpy()) for c in columns])
    records, inverse = np.unique(person_codes, axis=0, return_inverse=True)
    # per column, the distance of each distinct released row to each domain value
    by_row = [tables[j][rows[:, j]] for j in range(len(columns))]

    # the same tables by domain value: a block's rows are then whole rows of memory
    by_value = [np.ascontiguousarray(table.T) for table in by_row]

    size = max(1, _BLOCK_ENTRIES // len(rows))

    def blocks():
        for start in range(0, len(records), size):
            chunk = records[start : start + size]
            total = np.zeros((len(chunk), len(rows)))
            for j, table in enumerate(by_value):
                total += table[chunk[:, j]]
            yield total / len(columns), chunk

    return multiplicity, inverse.reshape(-1), by_row, blocks()


def closest_record_distances(
    people: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
) -> np.ndarray:
    """Gower-style distance from each person's record to the nearest released row.

    The distance between a record ``x`` and a released row ``r`` is the mean over ``columns`` of
    a per-column distance in ``[0, 1]``: for a categorical column 0 when ``r``'s cell covers
    ``x``'s value (the value itself, a value set or a hierarchy node holding it) and 1 otherwise;
    for a numeric column the distance from ``x``'s value to the nearest value the cell covers (the
    cell's number, or the nearest domain value inside its range) divided by the domain's range
    (Gower, 1971). A record copied into the release is at distance 0; so is one whose generalized
    row covers it.

    Parameters
    ----------
    people : pandas.DataFrame
        The records scored (targets or controls), with values of ``domains``.
    released : pandas.DataFrame
        The release; its cells are read as :func:`ppdp.cells.cell_membership` reads them.
    domains : mapping str -> AttributeDomain
        The domain of every column of ``columns`` (see :func:`ppdp.cells.table_domains`).
    columns : sequence of str
        The columns compared: every column the attacker knows, usually all of the table's.

    Returns
    -------
    numpy.ndarray of float, shape (len(people),)
        Each person's distance to the closest released row, in ``[0, 1]``.

    Raises
    ------
    TypeError
        If ``people`` or ``released`` is not a DataFrame.
    ValueError
        If ``people`` or ``released`` has no rows or lacks a column of ``columns``, ``domains``
        lacks one, a person's value lies outside its domain or a released cell cannot be read.

    Notes
    -----
    The released rows are reduced to their distinct tuples of cells, the people to their distinct
    records, and each column to a table of distances ``[distinct cell, domain value]``: a block of
    people then costs one gather per column over the distinct released rows, and memory stays at
    one block (about ``2**18`` floats) whatever the number of people.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [20, 30, 40, 60], "sex": ["F", "M", "F", "M"]})
    >>> domains = table_domains(real, ["age", "sex"], numeric=["age"])
    >>> released = pd.DataFrame({"age": ["20-30", "40"], "sex": ["{F,M}", "M"]})
    >>> closest_record_distances(real, released, domains=domains, columns=["age", "sex"])
    array([0.   , 0.   , 0.125, 0.25 ])
    """
    columns = _check_tables({"people": people, "released": released}, domains, columns)
    _, inverse, _, blocks = _distance_blocks(people, released, domains, columns)
    nearest = np.concatenate([d.min(axis=1) for d, _ in blocks])
    return nearest[inverse]


def neighbour_features(
    people: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
) -> np.ndarray:
    """What the release holds near each person's record: the shadow attack's features.

    Seven features per person: four from the distances of :func:`closest_record_distances`,

    0. the distance to the closest released row;
    1. the distance to the second closest (equal to the first when two released rows tie);
    2. ``log(1 + n)`` for ``n`` released rows at distance 0 (copies of the record, or
       generalized rows covering it);
    3. ``log(1 + n)`` for ``n`` released rows within ``1 / len(columns)`` (rows that differ from
       the record in about one column at most);

    and three from counting queries on the record's own values, the features of TAPAS's
    query-based attacks (Houssiau et al., 2022), which see what a synthesizer of marginals keeps
    of a record when it copies no row:

    4. the smallest ``log(1 + n)`` over pairs of columns, ``n`` the released rows covering the
       record on both;
    5. the mean of ``log(1 + n)`` over the pairs of columns;
    6. the smallest ``log(1 + n)`` over single columns.

    A member of a release that copies or overfits its input tends to have a near, lonely copy
    (small closest, larger second closest distance) and no empty pair of values; a non-member
    with a rare combination of values finds it missing from such a release. With one column, the
    pair features are the single-column ones.

    Parameters
    ----------
    people : pandas.DataFrame
        The records described.
    released : pandas.DataFrame
        The release.
    domains : mapping str -> AttributeDomain
        The domain of every column of ``columns``.
    columns : sequence of str
        The columns compared.

    Returns
    -------
    numpy.ndarray of float, shape (len(people), 7)

    Raises
    ------
    TypeError
        If ``people`` or ``released`` is not a DataFrame.
    ValueError
        As :func:`closest_record_distances`.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [20, 30, 40, 60], "sex": ["F", "M", "F", "M"]})
    >>> domains = table_domains(real, ["age", "sex"], numeric=["age"])
    >>> released = real.iloc[[0, 0, 1]]
    >>> features = neighbour_features(real, released, domains=domains, columns=["age", "sex"])
    >>> features.round(2)  # two copies of the first record, one of the second
    array([[0.  , 0.  , 1.1 , 1.1 , 1.1 , 1.1 , 1.1 ],
           [0.  , 0.62, 0.69, 0.69, 0.69, 0.69, 0.69],
           [0.25, 0.25, 0.  , 1.1 , 0.  , 0.  , 0.  ],
           [0.38, 1.  , 0.  , 0.69, 0.  , 0.  , 0.  ]])
    """
    columns = _check_tables({"people": people, "released": released}, domains, columns)
    multiplicity, inverse, by_row, blocks = _distance_blocks(people, released, domains, columns)
    weights = multiplicity.astype(float)
    radius = 1.0 / len(columns) + 1e-12
    pairs = list(combinations(range(len(columns)), 2)) or [(0, 0)]
    # The counting queries, per domain value (one column) and pair of values (two columns): the
    # released rows covering it, weighted by their multiplicity, read off per record below
    # instead of summed over the released rows for every record. Counts of rows are integers,
    # exact in float64 in any order of summation, so both ways give the same bits.
    # A pair of columns whose table of value pairs would exceed _PAIR_CELLS is counted per record.
    cover = [(table == 0).astype(float) for table in by_row]  # (n_distinct, len(domain))
    single_counts = [c.T @ weights for c in cover]
    pair_counts = [
        cover[i].T @ (cover[j] * weights[:, None])
        if cover[i].shape[1] * cover[j].shape[1] <= _PAIR_CELLS
        else None
        for i, j in pairs
    ]
    per_record = {c for pair, n in zip(pairs, pair_counts, strict=True) if n is None for c in pair}
    parts = []
    for d, chunk in blocks:
        # for the columns of pairs counted per record: the released rows covering each record
        covered = {j: cover[j][:, chunk[:, j]].T > 0 for j in sorted(per_record)}
        nearest = d.argmin(axis=1)
        rows = np.arange(len(d))
        first = d[rows, nearest]
        # a lone nearest row is masked for the second distance; a repeated one is its own second
        alone = multiplicity[nearest] == 1
        d[rows[alone], nearest[alone]] = np.inf
        second = d.min(axis=1)
        d[rows[alone], nearest[alone]] = first[alone]
        second = np.where(np.isfinite(second), second, first)  # one released row in all
        single = np.log1p(
            np.column_stack([counts[chunk[:, j]] for j, counts in enumerate(single_counts)])
        )
        pair = np.log1p(
            np.column_stack(
                [
                    counts[chunk[:, i], chunk[:, j]]
                    if counts is not None
                    else (covered[i] & covered[j]) @ weights
                    for (i, j), counts in zip(pairs, pair_counts, strict=True)
                ]
            )
        )
        parts.append(
            np.column_stack(
                [
                    first,
                    second,
                    np.log1p((d == 0) @ weights),
                    np.log1p((d <= radius) @ weights),
                    pair.min(axis=1),
                    pair.mean(axis=1),
                    single.min(axis=1),
                ]
            )
        )
    return np.vstack(parts)[inverse]


# -- scores ------------------------------------------------------------------------------------


def _check_scores(scores: Any, name: str) -> np.ndarray:
    arr = np.asarray(scores, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of scores, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} holds {int((~np.isfinite(arr)).sum())} non-finite scores")
    return arr


def membership_scores(member_scores: Any, nonmember_scores: Any) -> dict[str, float]:
    """How well a score separates members from non-members (a higher score says "member").

    Parameters
    ----------
    member_scores : array_like of float, shape (n_pos,)
        The attack's scores of people in the mechanism's input (targets).
    nonmember_scores : array_like of float, shape (n_neg,)
        Its scores of people outside it (controls).

    Returns
    -------
    dict
        ``auc``: the area under the ROC curve, the probability that a random member scores above
        a random non-member, ties counting one half (Mann-Whitney); ``advantage``: ``auc - 0.5``;
        ``tpr_at_1pct_fpr`` and ``tpr_at_01pct_fpr``: the largest true-positive rate among the
        thresholds ``t`` ("member" when the score is at least ``t``, ``t = +inf`` included) whose
        false-positive rate is at most 1% (0.1%). Below ``1 / n_neg`` only thresholds that no
        non-member reaches qualify, so the rate is the share of members scoring above every
        non-member (0 when the top score is a non-member's): a strict reading that never credits
        a false positive the sample cannot resolve.

    Raises
    ------
    ValueError
        If either array is empty, not 1-D or holds a non-finite score.

    Examples
    --------
    >>> s = membership_scores([0.9, 0.8, 0.4, 0.3], [0.7, 0.2, 0.1, 0.0])
    >>> s["auc"], s["advantage"], s["tpr_at_1pct_fpr"]
    (0.875, 0.375, 0.5)
    >>> membership_scores([1.0], [])
    Traceback (most recent call last):
    ...
    ValueError: nonmember_scores must be a non-empty 1-D array of scores, got shape (0,)
    """
    tpr, fpr = _roc(member_scores, nonmember_scores)
    # trapezoids between consecutive thresholds: a tie of members and non-members counts half
    auc = float(np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2))
    at_1pct, at_01pct = _tpr_at(tpr, fpr, (0.01, 0.001))
    return {
        "auc": auc,
        "advantage": auc - 0.5,
        "tpr_at_1pct_fpr": at_1pct,
        "tpr_at_01pct_fpr": at_01pct,
    }


def true_positive_rates(member_scores: Any, nonmember_scores: Any, rates) -> list[float]:
    """The largest true-positive rate at a false-positive rate of at most each of ``rates``.

    The thresholds are the distinct scores (a tie enters whole) and ``+inf``, as in
    :func:`membership_scores`, whose ``tpr_at_1pct_fpr`` and ``tpr_at_01pct_fpr`` this gives.

    Parameters
    ----------
    member_scores, nonmember_scores : array_like of float
        As for :func:`membership_scores` (any positives against any negatives).
    rates : sequence of float in (0, 1)
        The false-positive rates.

    Returns
    -------
    list of float
        One rate per entry of ``rates``.

    Raises
    ------
    ValueError
        As :func:`membership_scores`, or for a rate outside (0, 1).

    Examples
    --------
    >>> true_positive_rates([0.9, 0.8, 0.4, 0.3], [0.7, 0.2, 0.1, 0.0], [0.01, 0.3])
    [0.5, 1.0]
    """
    rates = [float(r) for r in rates]
    bad = [r for r in rates if not 0.0 < r < 1.0]
    if bad:
        raise ValueError(f"rates must lie in (0, 1), got {bad}")
    return _tpr_at(*_roc(member_scores, nonmember_scores), rates)


def _roc(member_scores: Any, nonmember_scores: Any) -> tuple[np.ndarray, np.ndarray]:
    """The ROC's (TPR, FPR) at every distinct score, highest last, then at ``+inf`` (0, 0)."""
    pos = np.sort(_check_scores(member_scores, "member_scores"))
    neg = np.sort(_check_scores(nonmember_scores, "nonmember_scores"))
    thresholds = np.unique(np.concatenate([pos, neg]))  # ascending: the ROC from (1, 1) down
    tp = np.append(pos.size - np.searchsorted(pos, thresholds, side="left"), 0)
    fp = np.append(neg.size - np.searchsorted(neg, thresholds, side="left"), 0)
    return tp / pos.size, fp / neg.size


def _tpr_at(tpr: np.ndarray, fpr: np.ndarray, rates) -> list[float]:
    # the +inf threshold (0, 0) always qualifies; the tolerance absorbs fp / n_neg rounding
    return [float(tpr[fpr <= rate + 1e-12].max()) for rate in rates]


def dcr_membership(
    targets: pd.DataFrame,
    controls: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
) -> dict[str, float]:
    """The distance-to-closest-record attack: a person nearer the release is said to be in it.

    Each person's score is minus their distance to the closest released row
    (:func:`closest_record_distances`); the scores of ``targets`` against those of ``controls``
    give :func:`membership_scores`.

    Parameters
    ----------
    targets : pandas.DataFrame
        Members: people in the mechanism's input.
    controls : pandas.DataFrame
        Non-members from the same population.
    released : pandas.DataFrame
        The release.
    domains : mapping str -> AttributeDomain
        The domain of every column of ``columns``.
    columns : sequence of str
        The columns the attacker compares (it knows the targets' full records).

    Returns
    -------
    dict
        As :func:`membership_scores`: ``auc``, ``advantage``, ``tpr_at_1pct_fpr``,
        ``tpr_at_01pct_fpr``.

    Raises
    ------
    TypeError
        If a table is not a DataFrame.
    ValueError
        If a table has no rows or lacks a column of ``columns`` (the message names it), or as
        :func:`closest_record_distances`.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [20, 30, 40, 60], "sex": ["F", "M", "F", "M"]})
    >>> domains = table_domains(real, ["age", "sex"], numeric=["age"])
    >>> members, others = real.iloc[:2], real.iloc[2:]
    >>> dcr_membership(members, others, members, domains=domains, columns=["age", "sex"])["auc"]
    1.0
    """
    tables = {"targets": targets, "controls": controls, "released": released}
    columns = _check_tables(tables, domains, columns)
    near = [
        -closest_record_distances(p, released, domains=domains, columns=columns)
        for p in (targets, controls)
    ]
    return membership_scores(*near)


def shadow_membership(
    release: Callable[[pd.DataFrame, Any], pd.DataFrame],
    aux: pd.DataFrame,
    targets: pd.DataFrame,
    controls: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
    n_shadows: int = 2,
    random_state: Any = None,
) -> dict[str, float]:
    """The shadow-model attack (TAPAS's threat model): learn membership from the mechanism run on
    auxiliary records.

    For each shadow, ``aux`` is split at random into two halves, "in" and "out"; ``release`` runs
    the mechanism on "in"; every auxiliary record gets :func:`neighbour_features` against that
    shadow release and the label 1 (in) or 0 (out). A logistic regression (on standardized
    features) trained on all shadows' records then scores the targets and controls against the
    real release, and :func:`membership_scores` compares them.

    Parameters
    ----------
    release : callable ``(frame, random_state) -> DataFrame``
        The mechanism as the attacker can run it: it protects ``frame`` and returns a release
        with (at least) ``columns``. It receives an int seed drawn from ``random_state``.
    aux : pandas.DataFrame
        Auxiliary real records of other people than the targets and controls. Each shadow input
        holds half of them (``len(aux) // 2`` rows), so a shadow release is half the size of the
        real one when ``aux`` is as large as the real input (as in the benchmark's split). The
        distances hardly depend on the size; the counts of :func:`neighbour_features` shift by
        about ``log 2``, for targets and controls alike, which moves a linear score without
        reordering them.
    targets : pandas.DataFrame
        Members: people in the real release's input.
    controls : pandas.DataFrame
        Non-members from the same population.
    released : pandas.DataFrame
        The real release.
    domains : mapping str -> AttributeDomain
        The domain of every column of ``columns``.
    columns : sequence of str
        The columns the attacker compares.
    n_shadows : int >= 1, default 2
        Shadow releases to learn from.
    random_state : None, int or numpy.random.Generator
        The source of the splits and of the seeds given to ``release``.

    Returns
    -------
    dict
        As :func:`membership_scores`.

    Raises
    ------
    TypeError
        If ``release`` is not callable, a table is not a DataFrame or ``random_state`` is not a
        seed or Generator.
    ValueError
        If ``aux`` has fewer than two rows, a table has no rows or lacks a column of ``columns``,
        ``n_shadows`` is below 1, or a shadow release lacks a column of ``columns``.

    Examples
    --------
    A "mechanism" that publishes its input unchanged is caught:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> people = pd.DataFrame({"age": [20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75],
    ...                        "sex": ["F", "M"] * 6})
    >>> domains = table_domains(people, ["age", "sex"], numeric=["age"])
    >>> aux, members, others = people.iloc[:6], people.iloc[6:9], people.iloc[9:]
    >>> copy = lambda frame, random_state: frame
    >>> scores = shadow_membership(copy, aux, members, others, members, domains=domains,
    ...                            columns=["age", "sex"], random_state=0)
    >>> scores["auc"]
    1.0
    """
    if not callable(release):
        raise TypeError(f"release must be a callable (frame, random_state), got {release!r}")
    check_params(
        {"n_shadows": n_shadows},
        {"n_shadows": [Interval(Integral, 1, None, closed="left")]},
        "shadow_membership",
    )
    tables = {"aux": aux, "targets": targets, "controls": controls, "released": released}
    columns = _check_tables(tables, domains, columns)
    if len(aux) < 2:
        raise ValueError(f"aux has {len(aux)} row; a shadow needs at least two (in and out)")
    rng = check_random_state(random_state)
    features, labels = [], []
    for shadow in range(n_shadows):
        order = rng.permutation(len(aux))
        inside = np.zeros(len(aux), dtype=bool)
        inside[order[: len(aux) // 2]] = True
        shadow_release = release(
            aux.iloc[np.sort(order[: len(aux) // 2])], int(rng.integers(2**31))
        )
        if not isinstance(shadow_release, pd.DataFrame):
            raise TypeError(
                f"release must return a DataFrame, got {type(shadow_release).__name__} "
                f"(shadow {shadow})"
            )
        features.append(neighbour_features(aux, shadow_release, domains=domains, columns=columns))
        labels.append(inside.astype(int))
    model = _classifier().fit(np.vstack(features), np.concatenate(labels))
    scores = [
        model.decision_function(neighbour_features(p, released, domains=domains, columns=columns))
        for p in (targets, controls)
    ]
    return membership_scores(*scores)


def _classifier():
    """Standardized logistic regression: deterministic, and monotone in each feature, so that a
    shift of the features between shadow and real releases moves targets and controls alike."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
