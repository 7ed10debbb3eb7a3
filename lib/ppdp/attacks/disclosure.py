"""Identity and attribute disclosure against randomized (Mutual Cover) and generalized tables.

The adversary of Mutual Cover's Section 5.1 knows every QI value of the target and uses each QI
in the matching condition with probability ``P_match`` (a condition that came out empty is drawn
again, as in the authors' evaluation code). It then collects the released records that match:

* identity disclosure of a target: ``1/|M|`` if the target's own released record is among the
  ``|M|`` matching records, else 0;
* attribute disclosure of a target: the fraction of matching records whose sensitive value equals
  the target's (0 when nothing matches).

Both are averaged over all tuples. On a randomized table a record matches when its released values
equal the target's original values on the used QIs; on a generalized table when each used value
lies in the record's generalized value (range, value set or hierarchy node), so the target's own
record always matches.

:func:`reidentification_probability` is the exact single-attribute re-identification probability
of Example 1: with ``K`` the number of *other* records that output the target's value,
``Pr = p_target * E[1 / (1 + K)]``, where ``K`` is a sum of independent Bernoulli variables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp.base import check_random_state
from ppdp.tabular import GeneralizedTable

__all__ = [
    "carrier_count_distribution",
    "disclosure_generalized",
    "disclosure_randomized",
    "draw_match_conditions",
    "reidentification_probability",
]


def carrier_count_distribution(probabilities) -> np.ndarray:
    """Distribution of the number of successes of independent Bernoulli trials (Poisson binomial).

    Returns ``dist`` with ``dist[k] = Pr[exactly k trials succeed]``, ``k = 0..len(probabilities)``.

    Parameters
    ----------
    probabilities : array-like (n,)
        The success probability of each trial, in [0, 1] (in Example 1: the probability that each
        other record outputs the target's value).

    Returns
    -------
    ndarray (n + 1,)
        ``dist[k]``, summing to one.

    Raises
    ------
    ValueError
        When ``probabilities`` is not 1-d or holds a number outside [0, 1] (or NaN).

    Examples
    --------
    Two fair coins and a sure success:

    >>> carrier_count_distribution([0.5, 0.5])
    array([0.25, 0.5 , 0.25])
    >>> carrier_count_distribution([0.5, 0.5, 1.0])
    array([0.  , 0.25, 0.5 , 0.25])
    """
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ValueError(
            f"probabilities must be a 1-d array of numbers in [0, 1], got {probabilities!r}"
        )
    dist = np.zeros(len(p) + 1)
    dist[0] = 1.0
    for k, pk in enumerate(p):
        dist[1 : k + 2] = dist[1 : k + 2] * (1 - pk) + dist[: k + 1] * pk
        dist[0] *= 1 - pk
    return dist


def reidentification_probability(table, target: int, column: int, *, breakdown: bool = False):
    """Probability that the adversary re-identifies ``target`` by its value in ``column`` (Example 1).

    Parameters
    ----------
    table : array-like (m, n)
        A random output table (rows: records, columns: output values; rows sum to one).
    target : int
        Row of the target record.
    column : int
        Column of the target's original value (the value the adversary knows).
    breakdown : bool
        Also return ``terms[c]``: the probability that exactly ``c`` records output the value and
        the target is one of them, so that the answer is ``sum_c terms[c] / c``.

    Returns
    -------
    float
        The probability; with ``breakdown``, the tuple ``(probability, terms)``, ``terms`` an
        ndarray of ``m + 1`` entries (``terms[0] = 0``).

    Raises
    ------
    ValueError
        When ``table`` is not 2-d or its rows are not probabilities summing to one, or
        ``target`` or ``column`` is out of range.

    Notes
    -----
    The adversary picks uniformly among the records carrying the value; it fails if the target is
    not among them. Records draw independently, so with ``K`` the number of other carriers the
    probability is ``p_target * E[1 / (1 + K)]``.

    Examples
    --------
    The adversary knows that the target, record 0, had the first value (column 0) and wants to
    pick him out among the records that output it:

    >>> table = [[0.9, 0.1], [0.5, 0.5], [0.5, 0.5]]
    >>> round(reidentification_probability(table, target=0, column=0), 4)
    0.525
    >>> prob, terms = reidentification_probability(table, 0, 0, breakdown=True)
    >>> terms  # exactly 1, 2 or 3 carriers, the target among them
    array([0.   , 0.225, 0.45 , 0.225])
    """
    p = np.asarray(table, dtype=float)
    if p.ndim != 2:
        raise ValueError(f"table must be 2-d (records x output values), got shape {p.shape}")
    m, n = p.shape
    if not (0 <= target < m):
        raise ValueError(f"target={target} must be a row index in [0, {m})")
    if not (0 <= column < n):
        raise ValueError(f"column={column} must be a column index in [0, {n})")
    if np.any(p < -1e-12) or not np.allclose(p.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError("table must hold probabilities whose rows sum to one")
    others = np.delete(p[:, column], target)
    dist = carrier_count_distribution(np.clip(others, 0.0, 1.0))
    terms = p[target, column] * dist  # terms[k]: k others and the target carry the value
    prob = float(np.sum(terms / np.arange(1, len(dist) + 1)))
    if breakdown:
        return prob, np.concatenate([[0.0], terms])
    return prob


def draw_match_conditions(
    n_targets: int, n_qi: int, p_match: float, random_state: Any
) -> np.ndarray:
    """Which QIs the adversary uses for each target: each with probability ``p_match``.

    A target whose draw uses no QI draws again until at least one is used.

    Parameters
    ----------
    n_targets : int
        Number of targets (rows), at least 0.
    n_qi : int
        Number of quasi-identifiers (columns), at least 1.
    p_match : float
        Probability ``P_match`` that a QI is used, in (0, 1].
    random_state : None, int or numpy.random.Generator
        Source of the draws.

    Returns
    -------
    bool ndarray (n_targets, n_qi)
        ``used[t, a]``: target ``t``'s condition uses QI ``a``; every row uses one at least.

    Raises
    ------
    TypeError
        When ``random_state`` is not None, an int >= 0 or a ``numpy.random.Generator``.
    ValueError
        For ``p_match`` outside (0, 1], ``n_targets < 0`` or ``n_qi < 1``.

    Examples
    --------
    >>> used = draw_match_conditions(5, 3, 0.3, np.random.default_rng(0))
    >>> used.astype(int)
    array([[0, 1, 1],
           [1, 0, 0],
           [1, 0, 0],
           [0, 0, 1],
           [0, 1, 0]])
    >>> bool(used.any(axis=1).all())
    True
    """
    rng = check_random_state(random_state)
    if not (0 < p_match <= 1):
        raise ValueError(f"p_match must lie in (0, 1], got {p_match!r}")
    if n_targets < 0 or n_qi < 1:
        raise ValueError(f"need n_targets >= 0 and n_qi >= 1, got {n_targets}, {n_qi}")
    used = rng.random((n_targets, n_qi)) < p_match
    empty = ~used.any(axis=1)
    while empty.any():
        used[empty] = rng.random((int(empty.sum()), n_qi)) < p_match
        empty = ~used.any(axis=1)
    return used


def _codes(
    original: pd.DataFrame, released: pd.DataFrame, qi: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Joint integer codes of original and released QI values (same code = same value)."""
    n = len(original)
    orig_codes = np.empty((n, len(qi)), dtype=np.int64)
    rel_codes = np.empty((len(released), len(qi)), dtype=np.int64)
    for a, c in enumerate(qi):
        joint = pd.concat([original[c], released[c]], ignore_index=True)
        codes, _ = pd.factorize(joint)
        orig_codes[:, a] = codes[:n]
        rel_codes[:, a] = codes[n:]
    return orig_codes, rel_codes


def _check(original, released, qi, sensitive, used):
    for name, t in (("original", original), ("released", released)):
        if not isinstance(t, pd.DataFrame):
            raise TypeError(f"{name} must be a DataFrame, got {type(t).__name__}")
        missing = [c for c in [*qi, sensitive] if c not in t.columns]
        if missing:
            raise ValueError(f"{name} lacks the columns {missing}")
    used = np.asarray(used, dtype=bool)
    if used.shape != (len(original), len(qi)):
        raise ValueError(f"used must have shape {(len(original), len(qi))}, got {used.shape}")
    return used


def disclosure_randomized(
    original: pd.DataFrame, released: pd.DataFrame, qi: Sequence[str], sensitive: str, used
) -> tuple[np.ndarray, np.ndarray]:
    """Per-target identity and attribute disclosure against a randomized release.

    Parameters
    ----------
    original, released : DataFrame
        Row ``t`` of ``released`` is the released record of target ``t`` (Mutual Cover keeps the
        row order).
    qi, sensitive : column names
    used : bool ndarray (n, d)
        The QIs used for each target (:func:`draw_match_conditions`).

    Returns
    -------
    identity, attribute : ndarray (n,)

    Raises
    ------
    TypeError
        When ``original`` or ``released`` is not a DataFrame.
    ValueError
        When a frame lacks a column, ``used`` has the wrong shape or the frames differ in
        length.

    Examples
    --------
    The adversary knows every target's age and zip and wants to find the target's released row
    (identity) or sickness (attribute); row ``t`` of ``released`` is target ``t``'s:

    >>> import pandas as pd
    >>> original = pd.DataFrame({"age": [21, 21, 35, 35], "zip": ["a", "b", "a", "a"],
    ...                          "sick": ["no", "yes", "no", "yes"]})
    >>> released = pd.DataFrame({"age": [21, 35, 35, 21], "zip": ["a", "b", "a", "a"],
    ...                          "sick": ["no", "yes", "no", "yes"]})
    >>> used = np.ones((4, 2), dtype=bool)  # P_match = 1: both QIs in every condition
    >>> disclosure_randomized(original, released, ["age", "zip"], "sick", used)
    (array([0.5, 0. , 1. , 0. ]), array([0.5, 0. , 1. , 0. ]))
    """
    qi = list(qi)
    used = _check(original, released, qi, sensitive, used)
    if len(released) != len(original):
        raise ValueError("original and released must have the same number of rows")
    orig_codes, rel_codes = _codes(original, released, qi)
    # a missing value is a value of its own: the counts below need codes >= 0
    sens_codes, _ = pd.factorize(
        pd.concat([original[sensitive], released[sensitive]], ignore_index=True),
        use_na_sentinel=False,
    )
    n = len(original)
    s_orig, s_rel = sens_codes[:n], sens_codes[n:]
    radix = np.maximum(orig_codes.max(axis=0), rel_codes.max(axis=0)) + 1
    n_sens = int(sens_codes.max()) + 1
    identity = np.zeros(n)
    attribute = np.zeros(n)
    for targets in _equal_rows(used):
        cols = np.flatnonzero(used[targets[0]])
        key_rel = _mixed_radix(rel_codes[:, cols], radix[cols])
        key_tgt = _mixed_radix(orig_codes[targets][:, cols], radix[cols])
        # One sort of (condition key, sensitive code) answers both counts: the records matching
        # a key form one run of the sorted array, those also carrying a sensitive value a sub-run.
        rel_sorted = np.sort(key_rel * n_sens + s_rel)
        first = key_tgt * n_sens
        n_match = np.searchsorted(rel_sorted, first + n_sens) - np.searchsorted(rel_sorted, first)
        key_tgt_s = first + s_orig[targets]
        n_same = np.searchsorted(rel_sorted, key_tgt_s, side="right") - np.searchsorted(
            rel_sorted, key_tgt_s
        )
        # the key is one-to-one on the codes: equal keys, equal values on every used QI
        own = key_rel[targets] == key_tgt
        with np.errstate(divide="ignore", invalid="ignore"):
            identity[targets] = np.where(own & (n_match > 0), 1.0 / n_match, 0.0)
            attribute[targets] = np.where(n_match > 0, n_same / n_match, 0.0)
    return identity, attribute


def _equal_rows(used: np.ndarray) -> list[np.ndarray]:
    """Positions of the rows of a bool matrix grouped by equal rows, ascending in each group."""
    if len(used) == 0:
        return []
    if used.shape[1] < 63:
        # a row as the integer of its bits: sorting ints is far cheaper than np.unique(axis=0)
        key = used.astype(np.int64) @ (np.int64(1) << np.arange(used.shape[1], dtype=np.int64))
    else:
        key = np.unique(used, axis=0, return_inverse=True)[1].ravel()
    order = np.argsort(key, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(key[order])) + 1)


def _mixed_radix(codes: np.ndarray, radix: np.ndarray) -> np.ndarray:
    """One int64 key per row of ``codes`` (column ``a`` holding codes below ``radix[a]``)."""
    radix = [int(b) for b in radix]
    if math.prod(radix) - 1 <= np.iinfo(np.int64).max:
        # no key can overflow: one product with the place values
        place = [math.prod(radix[a + 1 :]) for a in range(len(radix))]
        return codes @ np.array(place, dtype=np.int64)
    key = np.zeros(len(codes), dtype=np.int64)
    for a in range(codes.shape[1]):
        if key.max(initial=0) > np.iinfo(np.int64).max // max(int(radix[a]), 1):
            raise OverflowError("too many QI values to encode one condition in 64 bits")
        key = key * int(radix[a]) + codes[:, a]
    return key


def disclosure_generalized(
    original: pd.DataFrame,
    generalized: GeneralizedTable,
    sensitive: str,
    used,
    *,
    chunk: int = 2048,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-target identity and attribute disclosure against a generalized table.

    A record matches a target when every used QI value of the target lies in the record's
    generalized value; all records of a group share their generalized values, so matching is
    decided per group. The target's own group always matches.

    Parameters
    ----------
    original : DataFrame
        The original table (the adversary's knowledge), same rows as ``generalized``.
    generalized : GeneralizedTable
        E.g. ``Mondrian(...).fit(original).generalized_``.
    sensitive : str
    used : bool ndarray (n, d)
    chunk : int
        Targets matched at a time (bounds the memory, ``chunk * n_groups / 8`` bytes per array).

    Returns
    -------
    identity, attribute : ndarray (n,)

    Raises
    ------
    TypeError
        When ``generalized`` is not a :class:`~ppdp.tabular.GeneralizedTable` or ``original`` not
        a DataFrame.
    ValueError
        When ``original`` lacks a column, ``used`` has the wrong shape, the tables differ in
        length or ``chunk < 1``.

    Notes
    -----
    Every target is matched against every group, so the groups are held as bit sets (one bit per
    group, 64 per word): per QI and domain value the groups covering it, the target's matching
    groups being the AND of one such row per used QI. Group sizes and per-group counts of a
    sensitive value are split into binary digits, one bit set per digit, so that the number of
    matching records is a sum of population counts. All counts are exact integers.

    Examples
    --------
    The adversary knows every target's age and zip and wants to find the target's record
    (identity) or sickness (attribute) in a 3-anonymous Mondrian table:

    >>> import pandas as pd
    >>> from ppdp.mechanisms.mondrian import Mondrian
    >>> original = pd.DataFrame({"age": [21, 23, 25, 30, 34, 38], "zip": [1, 2, 1, 3, 3, 2],
    ...                          "sick": ["no", "yes", "no", "yes", "yes", "no"]})
    >>> generalized = Mondrian(["age", "zip"], k=3).fit(original).generalized_
    >>> used = np.ones((6, 2), dtype=bool)
    >>> identity, attribute = disclosure_generalized(original, generalized, "sick", used)
    >>> identity.round(3)
    array([0.333, 0.333, 0.333, 0.333, 0.333, 0.333])
    >>> attribute.round(3)
    array([0.667, 0.333, 0.667, 0.667, 0.667, 0.333])
    """
    qi = generalized.qi
    if not isinstance(generalized, GeneralizedTable):
        raise TypeError(f"generalized must be a GeneralizedTable, got {type(generalized).__name__}")
    used = _check(original, original, qi, sensitive, used)
    if len(generalized.groups) != len(original):
        raise ValueError("original and generalized must have the same number of rows")
    if chunk < 1:
        raise ValueError(f"chunk must be positive, got {chunk}")
    n = len(original)
    groups = generalized.groups
    n_groups = generalized.n_groups
    n_words = -(-n_groups // 64)
    # covers[a][v]: the groups whose value of QI a covers domain value v, and a last row of every
    # group, which a target that does not use QI a picks (rows[t, a]) so that it constrains nothing
    every = np.full((1, n_words), np.iinfo(np.uint64).max)
    covers, rows = [], np.empty((n, len(qi)), dtype=np.intp)
    for a, c in enumerate(qi):
        member = generalized.membership[c].T  # (domain values, groups)
        covers.append(np.vstack([_pack_groups(member, n_words), every]))
        codes = generalized.domains[c].encode(original[c].to_numpy())
        rows[:, a] = np.where(used[:, a], codes, len(member))
    s_codes, _ = pd.factorize(original[sensitive], use_na_sentinel=False)
    # per sensitive value, how many records of each group carry it
    n_sens = int(s_codes.max()) + 1
    same = np.bincount(s_codes * n_groups + groups, minlength=n_sens * n_groups)
    same = same.reshape(n_sens, n_groups)
    size_digits = _digit_sets(np.bincount(groups, minlength=n_groups)[None, :], n_words)[:, 0]
    same_digits = _digit_sets(same, n_words)
    n_match = np.empty(n, dtype=np.int64)
    n_same = np.empty(n, dtype=np.int64)
    for lo in range(0, n, chunk):
        hi = min(lo + chunk, n)
        match = covers[0][rows[lo:hi, 0]]
        for a in range(1, len(qi)):
            match &= covers[a][rows[lo:hi, a]]
        n_match[lo:hi] = _weighted_count(match, size_digits)
        n_same[lo:hi] = _weighted_count(match, same_digits[:, s_codes[lo:hi]])
    # the float division of exact counts, as ``1 / |M|`` and ``same / |M|`` are defined
    n_match_f = n_match.astype(float)
    return 1.0 / n_match_f, n_same.astype(float) / n_match_f


def _pack_groups(member: np.ndarray, n_words: int) -> np.ndarray:
    """Bool rows over the groups as bit sets: ``(k, n_groups)`` -> ``(k, n_words)`` uint64."""
    padded = np.zeros((len(member), 64 * n_words), dtype=bool)
    padded[:, : member.shape[1]] = member
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64)


def _digit_sets(counts: np.ndarray, n_words: int) -> np.ndarray:
    """Binary digits of non-negative counts ``(k, n_groups)`` as bit sets ``(digits, k, n_words)``:
    digit ``b`` holds the groups whose count has bit ``b`` set."""
    n_digits = max(int(counts.max(initial=0)).bit_length(), 1)
    return np.stack([_pack_groups((counts >> b) & 1 == 1, n_words) for b in range(n_digits)])


def _weighted_count(match: np.ndarray, digits: np.ndarray) -> np.ndarray:
    """``sum_g match[t, g] * count[t, g]`` per row ``t``, from bit sets ``match`` (t, words) and
    the binary digits of the counts (:func:`_digit_sets`; each digit (words,) or (t, words))."""
    total = np.zeros(len(match), dtype=np.int64)
    for b, digit in enumerate(digits):
        total += np.bitwise_count(match & digit).sum(axis=1, dtype=np.int64) << b
    return total
