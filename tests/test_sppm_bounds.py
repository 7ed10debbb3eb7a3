"""The variational (Barber-Agakov) lower bound on problem (1): valid on random problems, tight at
the optimum, loose only where the posterior leaves released values unmixed."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ppdp import infotheory
from ppdp.mechanisms import sppm as S


def _problem(seed: int, n_a: int, n_b: int):
    rng = np.random.default_rng(seed)
    p = rng.random((n_a, n_b)) + 0.05
    p /= p.sum()
    d = rng.random((n_b, n_b))
    np.fill_diagonal(d, 0.0)
    return p, d


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_a=st.integers(2, 3),
    n_b=st.integers(3, 6),
    budget=st.floats(0.05, 0.6),
    mapping_kind=st.sampled_from(["random", "identity", "exact"]),
)
def test_the_bound_is_never_above_the_optimum(seed, n_a, n_b, budget, mapping_kind):
    p, d = _problem(seed, n_a, n_b)
    delta = budget * float((p.sum(axis=0)[:, None] * d).sum(axis=1).max())
    exact = S.ExactMapping(delta).fit(p, d)
    if mapping_kind == "random":
        X = np.random.default_rng(seed + 1).random((n_b, n_b))
        X /= X.sum(axis=1, keepdims=True)
    elif mapping_kind == "identity":
        X = np.eye(n_b)
    else:
        X = exact.mapping_
    bound, argmin = S.variational_lower_bound(p, d, delta, X)
    assert np.isfinite(bound)
    # Clarabel's optimum is accurate to ~1e-7 bits here; the bound must not exceed it
    assert bound <= exact.leakage_ + 1e-6
    # the linear program's minimizer is a feasible mapping: its leakage bounds the optimum above
    assert infotheory.leakage(p, argmin) >= exact.leakage_ - 1e-6


@pytest.mark.parametrize("m", [4, 6])
def test_the_bound_certifies_the_exact_optimum_of_the_synthetic_problem(m):
    p, d = S.synthetic_problem(m)
    delta = 0.02 * (2**m - 1) ** 2  # 0.02 on [0, 1]
    exact = S.ExactMapping(delta).fit(p, d)
    bound, _ = S.variational_lower_bound(p, d, delta, exact.mapping_)
    assert bound <= exact.leakage_ + 1e-7
    assert exact.leakage_ - bound < 1e-3  # measured: 2.6e-4 (m = 4), 1.2e-4 (m = 6)


def test_an_unmixed_posterior_gives_a_valid_but_loose_bound():
    p, d = S.synthetic_problem(4)
    delta = 0.02 * 15**2
    exact = S.ExactMapping(delta).fit(p, d)
    identity_bound, _ = S.variational_lower_bound(p, d, delta, np.eye(16))
    exact_bound, _ = S.variational_lower_bound(p, d, delta, exact.mapping_)
    assert identity_bound < exact_bound <= exact.leakage_ + 1e-7


def test_mixing_weights_are_checked():
    p, d = _problem(0, 2, 3)
    for bad in ((), (0.0,), (1.0,), (0.5, 2.0)):
        with pytest.raises(ValueError, match="mixing must be weights in"):
            S.variational_lower_bound(p, d, 0.1, np.eye(3), mixing=bad)


def test_sppm_reports_a_finite_bound_where_every_gradient_was_floored():
    m = 6  # at 16 values later steps have finite gradients; at 64 none of the first 20 does
    p, d = S.synthetic_problem(m)
    delta = 0.02 * (2**m - 1) ** 2
    exact = S.ExactMapping(delta).fit(p, d)
    model = S.SPPM(delta, n_steps=20).fit(p, d)
    assert model.history_["floored"].iloc[1:].all()  # no step gave a finite Frank-Wolfe bound
    assert np.isfinite(model.lower_bound_)
    assert 0 <= model.lower_bound_ <= exact.leakage_ + 1e-7
    uncertified = S.SPPM(delta, n_steps=20, certify=False).fit(p, d)
    assert uncertified.lower_bound_ == -np.inf
    assert uncertified.leakage_ == model.leakage_
