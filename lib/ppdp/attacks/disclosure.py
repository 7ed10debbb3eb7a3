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

from collections.abc import Sequence

import numpy as np
import pandas as pd

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

    Notes
    -----
    The adversary picks uniformly among the records carrying the value; it fails if the target is
    not among them. Records draw independently, so with ``K`` the number of other carriers the
    probability is ``p_target * E[1 / (1 + K)]``.
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
    n_targets: int, n_qi: int, p_match: float, rng: np.random.Generator
) -> np.ndarray:
    """Which QIs the adversary uses for each target: each with probability ``p_match``.

    A target whose draw uses no QI draws again until at least one is used.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
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
    """
    qi = list(qi)
    used = _check(original, released, qi, sensitive, used)
    if len(released) != len(original):
        raise ValueError("original and released must have the same number of rows")
    orig_codes, rel_codes = _codes(original, released, qi)
    sens_codes, _ = pd.factorize(
        pd.concat([original[sensitive], released[sensitive]], ignore_index=True)
    )
    n = len(original)
    s_orig, s_rel = sens_codes[:n], sens_codes[n:]
    radix = np.maximum(orig_codes.max(axis=0), rel_codes.max(axis=0)) + 1
    n_sens = int(sens_codes.max()) + 1
    identity = np.zeros(n)
    attribute = np.zeros(n)
    patterns, inverse = np.unique(used, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    for pi, pattern in enumerate(patterns):
        targets = np.flatnonzero(inverse == pi)
        cols = np.flatnonzero(pattern)
        key_rel = _mixed_radix(rel_codes[:, cols], radix[cols])
        key_tgt = _mixed_radix(orig_codes[targets][:, cols], radix[cols])
        uniq, counts = np.unique(key_rel, return_counts=True)
        pos = np.searchsorted(uniq, key_tgt)
        pos_c = np.minimum(pos, len(uniq) - 1)
        found = uniq[pos_c] == key_tgt
        n_match = np.where(found, counts[pos_c], 0)
        # records matching the condition *and* carrying the target's sensitive value
        key_rel_s = key_rel * n_sens + s_rel
        key_tgt_s = key_tgt * n_sens + s_orig[targets]
        uniq_s, counts_s = np.unique(key_rel_s, return_counts=True)
        pos_s = np.minimum(np.searchsorted(uniq_s, key_tgt_s), len(uniq_s) - 1)
        n_same = np.where(uniq_s[pos_s] == key_tgt_s, counts_s[pos_s], 0)
        own = np.all(rel_codes[targets][:, cols] == orig_codes[targets][:, cols], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            identity[targets] = np.where(own & (n_match > 0), 1.0 / n_match, 0.0)
            attribute[targets] = np.where(n_match > 0, n_same / n_match, 0.0)
    return identity, attribute


def _mixed_radix(codes: np.ndarray, radix: np.ndarray) -> np.ndarray:
    key = np.zeros(len(codes), dtype=np.int64)
    for a in range(codes.shape[1]):
        if key.max(initial=0) > np.iinfo(np.int64).max // max(int(radix[a]), 1):
            raise OverflowError("too many QI values to encode one condition in 64 bits")
        key = key * int(radix[a]) + codes[:, a]
    return key


def disclosure_generalized(
    original: pd.DataFrame, generalized: GeneralizedTable, sensitive: str, used, *, chunk: int = 512
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
    """
    qi = generalized.qi
    if not isinstance(generalized, GeneralizedTable):
        raise TypeError(f"generalized must be a GeneralizedTable, got {type(generalized).__name__}")
    used = _check(original, original, qi, sensitive, used)
    if len(generalized.groups) != len(original):
        raise ValueError("original and generalized must have the same number of rows")
    n = len(original)
    codes = np.column_stack([generalized.domains[c].encode(original[c].to_numpy()) for c in qi])
    groups = generalized.groups
    n_groups = generalized.n_groups
    sizes = np.bincount(groups, minlength=n_groups).astype(float)
    s_codes, _ = pd.factorize(original[sensitive])
    # per group, how many records carry each sensitive value
    same = np.zeros((n_groups, int(s_codes.max()) + 1))
    np.add.at(same, (groups, s_codes), 1.0)
    identity = np.zeros(n)
    attribute = np.zeros(n)
    for lo in range(0, n, chunk):
        hi = min(lo + chunk, n)
        miss = np.zeros((hi - lo, n_groups), dtype=np.int32)
        for a, c in enumerate(qi):
            inside = generalized.membership[c][:, codes[lo:hi, a]].T  # (targets, groups)
            miss += (~inside) & used[lo:hi, a][:, None]
        match = miss == 0
        n_match = match @ sizes
        n_same = np.einsum("tg,gt->t", match.astype(float), same[:, s_codes[lo:hi]])
        identity[lo:hi] = 1.0 / n_match
        attribute[lo:hi] = n_same / n_match
    return identity, attribute
