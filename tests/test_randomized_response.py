"""k-ary randomized response (IMPOSTER paper, Eq. 1)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.mechanisms.randomized_response import (
    KaryRandomizedResponse,
    krr_keep_probability,
    krr_matrix,
    randomize_codes,
)


def test_matrix_matches_eq1_written_out():
    k, eps = 4, 0.7
    denom = k - 1 + math.exp(eps)
    expected = np.full((k, k), 1 / denom)
    np.fill_diagonal(expected, math.exp(eps) / denom)
    np.testing.assert_allclose(krr_matrix(k, eps), expected, rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 40), eps=st.floats(1e-3, 200.0))
def test_matrix_is_a_channel_and_satisfies_epsilon_ldp(k, eps):
    q = krr_matrix(k, eps)
    assert np.all(q >= 0)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=1e-12)
    if k > 1 and eps < 50:
        # every output column: max over inputs / min over inputs is exactly e^eps
        ratio = q.max(axis=0) / q.min(axis=0)
        np.testing.assert_allclose(ratio, math.exp(eps), rtol=1e-9)
        assert np.all(ratio <= math.exp(eps) * (1 + 1e-9))


def test_large_epsilon_does_not_overflow():
    assert krr_keep_probability(10, 1000.0) == 1.0
    assert krr_keep_probability(2, 1e-9) == pytest.approx(0.5)


@pytest.mark.parametrize(("k", "eps"), [(2, 0.5), (5, 1.0), (12, 2.5)])
def test_empirical_flip_rates_match_eq1(k, eps):
    rng = np.random.default_rng(7)
    n = 60_000
    codes = rng.integers(0, k, size=n)
    out = randomize_codes(codes, k, eps, rng)
    q = krr_matrix(k, eps)
    counts = np.zeros((k, k))
    np.add.at(counts, (codes, out), 1)
    rows = counts.sum(axis=1, keepdims=True)
    empirical = counts / rows
    # binomial standard error, 5 sigma
    se = np.sqrt(q * (1 - q) / rows)
    assert np.all(np.abs(empirical - q) <= 5 * se + 1e-12)


def test_flips_are_uniform_over_other_values():
    rng = np.random.default_rng(3)
    codes = np.full(40_000, 2)
    out = randomize_codes(codes, 5, 0.1, rng)
    flipped = out[out != 2]
    freq = np.bincount(flipped, minlength=5)[[0, 1, 3, 4]] / flipped.size
    np.testing.assert_allclose(freq, 0.25, atol=0.02)


def test_table_randomization_keeps_schema_and_alphabet():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], size=500),
            "b": rng.integers(20, 30, size=500),
            "c": rng.normal(size=500),
        }
    )
    mech = KaryRandomizedResponse(epsilon={"a": 1.0, "b": 2.0}, columns=["a", "b"]).fit(df)
    out = mech.randomize(df, np.random.default_rng(1))
    assert list(out.columns) == list(df.columns)
    assert (out.dtypes == df.dtypes).all()
    assert set(out["a"]) <= {"x", "y", "z"}
    assert set(out["b"]) <= set(df["b"])
    pd.testing.assert_series_equal(out["c"], df["c"])
    assert (out["a"] != df["a"]).any()
    assert mech.matrices_["b"].shape == (10, 10)


def test_same_seed_same_output():
    df = pd.DataFrame({"a": list("abcabcabca") * 20})
    mech = KaryRandomizedResponse(1.0).fit(df)
    a = mech.randomize(df, np.random.default_rng(5))
    b = mech.randomize(df, np.random.default_rng(5))
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("eps", [0, -1.0, float("nan"), float("inf")])
def test_non_positive_epsilon_is_rejected(eps):
    with pytest.raises(ValueError, match="epsilon"):
        KaryRandomizedResponse(eps).fit(pd.DataFrame({"a": [1, 2]}))
    with pytest.raises(ValueError, match="epsilon"):
        krr_matrix(3, eps)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="epsilon"):
        KaryRandomizedResponse("1").fit(pd.DataFrame({"a": [1, 2]}))
    with pytest.raises(ValueError, match="empty"):
        KaryRandomizedResponse(1.0).fit(pd.DataFrame({"a": []}))
    with pytest.raises(ValueError, match="not in the table"):
        KaryRandomizedResponse(1.0, columns=["zz"]).fit(pd.DataFrame({"a": [1]}))
    with pytest.raises(ValueError, match="no budget"):
        KaryRandomizedResponse({"a": 1.0}, columns=["a", "b"]).fit(
            pd.DataFrame({"a": [1], "b": [2]})
        )
    mech = KaryRandomizedResponse(1.0).fit(pd.DataFrame({"a": ["x", "y"]}))
    with pytest.raises(ValueError, match="outside the fitted alphabet"):
        mech.randomize(pd.DataFrame({"a": ["w"]}), np.random.default_rng(0))
    with pytest.raises(TypeError, match="random_state"):
        mech.randomize(pd.DataFrame({"a": ["x"]}), "0")
    with pytest.raises(ValueError, match="codes"):
        randomize_codes([0, 3], 3, 1.0, np.random.default_rng(0))
