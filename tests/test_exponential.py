"""The one exponential mechanism shared by SPPM's baseline and HyObscure's DP obfuscation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import softmax

from ppdp.mechanisms.exponential import exponential_epsilon, exponential_weights

distances = arrays(
    np.float64,
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
    elements=st.floats(0.0, 10.0, allow_nan=False),
)


@settings(max_examples=200, deadline=None)
@given(d=distances, beta=st.floats(0.0, 50.0))
def test_weights_are_scipy_softmax_rows_and_sum_to_one(d, beta):
    w = exponential_weights(d, beta)
    np.testing.assert_allclose(w, softmax(-beta * d, axis=1), rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (w > 0).all()


@settings(max_examples=200, deadline=None)
@given(d=distances, beta=st.floats(0.0, 5.0))
def test_likelihood_ratio_between_inputs_is_within_epsilon(d, beta):
    # every input shares the same outputs: p(j | i) <= exp(2 beta d_max) p(j | i')
    w = exponential_weights(d, beta)
    eps = exponential_epsilon(beta, float(d.max()))
    ratio = w.max(axis=0) / w.min(axis=0)
    assert np.all(np.log(ratio) <= eps + 1e-9)


def test_large_beta_does_not_underflow_to_an_empty_row():
    w = exponential_weights(np.array([[1000.0, 1001.0, 2000.0]]), beta=1e6)
    np.testing.assert_array_equal(w, [[1.0, 0.0, 0.0]])
    assert exponential_epsilon(2.0, 0.5) == pytest.approx(2.0)
