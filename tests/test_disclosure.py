"""Disclosure: Example 1 of the paper, brute-force enumeration, naive matching loops."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.attacks.disclosure import (
    carrier_count_distribution,
    disclosure_generalized,
    disclosure_randomized,
    draw_match_conditions,
    reidentification_probability,
)
from ppdp.experiments.mutual_cover.run import fig2_table as paper_fig2_table
from ppdp.mechanisms.mondrian import Mondrian


def fig2_table():
    """The random output table printed in Fig. 2 (delta = 1/2), columns 28..41, as an array."""
    return paper_fig2_table().to_numpy()


def test_example1_dean():
    """Dean (row 2) by his age 29 (column 1): 0.139 + 0.374/2 + 0.165/3 = 0.381.

    The paper truncates each term to three decimals; the exact values are 0.13962, 0.37414,
    0.16570 and 0.38192, hence the tolerance of 1e-3.
    """
    prob, terms = reidentification_probability(fig2_table(), 2, 1, breakdown=True)
    assert terms[1] == pytest.approx(0.139, abs=1e-3)
    assert terms[2] == pytest.approx(0.374, abs=1e-3)
    assert terms[3] == pytest.approx(0.165, abs=1e-3)
    assert prob == pytest.approx(0.381, abs=1e-3)
    assert prob == pytest.approx(terms[1] + terms[2] / 2 + terms[3] / 3)


def brute_force(p, target, column):
    """Enumerate every output of every record whose column probability is positive."""
    m = p.shape[0]
    carriers_possible = [i for i in range(m) if p[i, column] > 0]
    total = 0.0
    for outcome in itertools.product([0, 1], repeat=len(carriers_possible)):
        pr = 1.0
        carriers = []
        for i, carry in zip(carriers_possible, outcome, strict=True):
            pr *= p[i, column] if carry else 1 - p[i, column]
            if carry:
                carriers.append(i)
        if target in carriers:
            total += pr / len(carriers)
    return total


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 7), n=st.integers(1, 4))
def test_reidentification_matches_enumeration(seed, m, n):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(n), size=m)
    target, column = int(rng.integers(m)), int(rng.integers(n))
    assert reidentification_probability(p, target, column) == pytest.approx(
        brute_force(p, target, column)
    )


def test_carrier_count_distribution():
    dist = carrier_count_distribution([0.5, 0.5])
    np.testing.assert_allclose(dist, [0.25, 0.5, 0.25])
    with pytest.raises(ValueError):
        carrier_count_distribution([1.5])


def naive_randomized(original, released, qi, sensitive, used):
    ident, attr = [], []
    for t in range(len(original)):
        cols = [c for c, u in zip(qi, used[t], strict=True) if u]
        match = np.ones(len(released), dtype=bool)
        for c in cols:
            match &= released[c].to_numpy() == original[c].iloc[t]
        k = match.sum()
        ident.append(1 / k if k and match[t] else 0.0)
        attr.append(
            (released[sensitive].to_numpy()[match] == original[sensitive].iloc[t]).sum() / k
            if k
            else 0.0
        )
    return np.array(ident), np.array(attr)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), p_match=st.sampled_from([0.3, 0.5, 0.8, 1.0]))
def test_randomized_disclosure_matches_naive_loop(seed, p_match):
    rng = np.random.default_rng(seed)
    n = 40
    original = pd.DataFrame(
        {"a": rng.integers(0, 4, n), "b": rng.integers(0, 3, n), "s": rng.integers(0, 5, n)}
    )
    released = original.copy()
    flip = rng.random(n) < 0.5
    released.loc[flip, "a"] = rng.integers(0, 4, flip.sum())
    used = draw_match_conditions(n, 2, p_match, rng)
    got = disclosure_randomized(original, released, ["a", "b"], "s", used)
    want = naive_randomized(original, released, ["a", "b"], "s", used)
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), p_match=st.sampled_from([0.3, 0.6, 1.0]))
def test_generalized_disclosure_matches_naive_loop(seed, p_match):
    rng = np.random.default_rng(seed)
    n = 50
    original = pd.DataFrame(
        {"a": rng.integers(0, 20, n), "b": rng.integers(0, 6, n), "s": rng.integers(0, 8, n)}
    )
    mon = Mondrian(["a", "b"], "s", l=2).fit(original)
    used = draw_match_conditions(n, 2, p_match, rng)
    ident, attr = disclosure_generalized(original, mon.generalized_, "s", used, chunk=7)
    lo = original.assign(g=mon.groups_).groupby("g")[["a", "b"]].min()
    hi = original.assign(g=mon.groups_).groupby("g")[["a", "b"]].max()
    for t in range(n):
        match = np.ones(n, dtype=bool)
        for j, c in enumerate(["a", "b"]):
            if used[t, j]:
                v = original[c].iloc[t]
                match &= ((lo[c] <= v) & (hi[c] >= v)).to_numpy()[mon.groups_]
        assert match[t]
        assert ident[t] == pytest.approx(1 / match.sum())
        same = (original["s"].to_numpy()[match] == original["s"].iloc[t]).sum()
        assert attr[t] == pytest.approx(same / match.sum())


def dense_generalized(original, generalized, sensitive, used):
    """Matching written out as a (targets x groups) bool matrix, the counts as float products."""
    qi = generalized.qi
    codes = np.column_stack([generalized.domains[c].encode(original[c].to_numpy()) for c in qi])
    match = np.ones((len(original), generalized.n_groups), dtype=bool)
    for a, c in enumerate(qi):
        inside = generalized.membership[c][:, codes[:, a]].T
        match &= inside | ~used[:, a][:, None]
    sizes = np.bincount(generalized.groups, minlength=generalized.n_groups).astype(float)
    s_codes, _ = pd.factorize(original[sensitive])
    same = np.zeros((generalized.n_groups, s_codes.max() + 1))
    np.add.at(same, (generalized.groups, s_codes), 1.0)
    n_match = match @ sizes
    n_same = np.einsum("tg,gt->t", match.astype(float), same[:, s_codes])
    return 1.0 / n_match, n_same / n_match


def integer_table(rng, n: int, **sizes: int) -> pd.DataFrame:
    """``n`` rows with one column per keyword, uniform on ``0 .. size - 1`` (drawn in order)."""
    return pd.DataFrame({name: rng.integers(0, size, n) for name, size in sizes.items()})


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    p_match=st.sampled_from([0.3, 0.6, 1.0]),
    k=st.sampled_from([2, 3, 6]),
    categorical=st.booleans(),
    chunk=st.sampled_from([1, 50, 2048]),
)
def test_generalized_disclosure_matches_dense_matching(seed, p_match, k, categorical, chunk):
    """Hundreds of groups (several 64-bit words), sizes and sensitive counts of several binary
    digits, value-set generalization and targets without some QIs: the bit-set counts equal the
    dense matrix's, to the bit."""
    rng = np.random.default_rng(seed)
    n = 800
    original = integer_table(rng, n, a=40, b=9, c=5, s=4)
    mon = Mondrian(["a", "b", "c"], "s", k=k, categorical=("c",) if categorical else ()).fit(
        original
    )
    assert mon.n_groups_ > 64
    used = draw_match_conditions(n, 3, p_match, rng)
    got = disclosure_generalized(original, mon.generalized_, "s", used, chunk=chunk)
    want = dense_generalized(original, mon.generalized_, "s", used)
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)


def test_randomized_disclosure_counts_every_condition_pattern():
    """All 2^3 - 1 patterns of used QIs and released values outside the original's: the same as
    the naive loop, to the bit."""
    rng = np.random.default_rng(1)
    n = 300
    original = integer_table(rng, n, a=6, b=4, c=3, s=5)
    released = original.copy()
    for c in ("a", "b", "c"):
        flip = rng.random(n) < 0.4
        released.loc[flip, c] = rng.integers(0, 8, flip.sum())
    patterns = np.array([[(i >> b) & 1 for b in range(3)] for i in range(1, 8)], dtype=bool)
    used = patterns[rng.integers(0, 7, n)]
    got = disclosure_randomized(original, released, ["a", "b", "c"], "s", used)
    want = naive_randomized(original, released, ["a", "b", "c"], "s", used)
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)


def test_match_conditions():
    rng = np.random.default_rng(0)
    used = draw_match_conditions(20_000, 7, 0.3, rng)
    assert used.any(axis=1).all()
    # conditional on a non-empty draw each QI is used with probability p / (1 - (1-p)^7)
    assert used.mean() == pytest.approx(0.3 / (1 - 0.7**7), abs=0.01)
    np.testing.assert_array_equal(
        used, draw_match_conditions(20_000, 7, 0.3, np.random.default_rng(0))
    )
    with pytest.raises(ValueError, match="p_match"):
        draw_match_conditions(5, 2, 0.0, rng)


def test_full_knowledge_on_perturbed_table_gives_no_identity_disclosure():
    """With every QI used, a target whose released record changed is never matched (Fig. 3f)."""
    original = pd.DataFrame({"a": [1, 2, 3, 4], "s": [1, 2, 3, 4]})
    released = pd.DataFrame({"a": [2, 1, 4, 3], "s": [1, 2, 3, 4]})
    ident, attr = disclosure_randomized(original, released, ["a"], "s", np.ones((4, 1), bool))
    np.testing.assert_array_equal(ident, 0)
    np.testing.assert_array_equal(attr, 0)
