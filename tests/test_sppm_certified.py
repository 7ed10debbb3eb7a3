"""The certified optimum of problem (1) by column generation: equal to the exact cvxpy optimum on
small problems, its lower bound never above the true optimum, its mapping within the budget."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ppdp import infotheory
from ppdp.guarantees import guarantee_report
from ppdp.mechanisms import sppm as S


def _problem(seed: int, n_a: int, n_b: int):
    rng = np.random.default_rng(seed)
    p = rng.random((n_a, n_b)) * (rng.random((n_a, n_b)) < 0.8) + 1e-3
    p /= p.sum()
    d = rng.random((n_b, n_b))
    np.fill_diagonal(d, 0.0)
    return p, d


@pytest.mark.parametrize("m", [3, 4, 5, 6])
def test_equals_the_exact_optimum_on_the_synthetic_problem(m):
    p, d = S.synthetic_problem(m)
    delta = 0.02 * (2**m - 1) ** 2  # 0.02 on [0, 1]
    exact = S.ExactMapping(delta).fit(p, d)
    cert = S.CertifiedMapping(delta).fit(p, d)
    assert abs(cert.leakage_ - exact.leakage_) < 1e-4
    assert cert.lower_bound_ <= exact.leakage_ + 1e-7
    assert cert.lower_bound_ <= cert.leakage_
    # measured: relative gaps 5.6e-5, 5.6e-5, 1.0e-4, 1.1e-4 (m = 3 ... 6)
    assert cert.converged_ and cert.relative_gap_ <= 1e-3
    assert cert.leakage_ == pytest.approx(infotheory.leakage(p, cert.mapping_), abs=1e-12)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_a=st.integers(2, 3),
    n_b=st.integers(3, 7),
    budget=st.floats(0.0, 0.8),
    warm_steps=st.sampled_from([0, 5]),
)
def test_bounds_bracket_the_true_optimum_on_random_problems(seed, n_a, n_b, budget, warm_steps):
    p, d = _problem(seed, n_a, n_b)
    smallest = S.min_feasible_budget(p, d)
    largest = float((p.sum(axis=0)[:, None] * d).sum(axis=1).max())
    delta = smallest + budget * (largest - smallest)
    exact = S.ExactMapping(delta).fit(p, d)
    cert = S.CertifiedMapping(delta, warm_steps=warm_steps).fit(p, d)
    # Clarabel's full optimum is accurate to ~1e-7 bits here; the bound must not exceed it
    assert cert.lower_bound_ <= exact.leakage_ + 1e-6
    assert cert.leakage_ >= cert.lower_bound_ - 1e-12
    # the optimum lies in the certificate's bracket, whose width a converged run bounds by gap_tol
    # of its upper end (or abs_tol): at a budget next to the smallest feasible one the upper end
    # may sit 1.1e-4 bits above the optimum
    assert exact.leakage_ <= cert.leakage_ + 1e-6
    assert cert.leakage_ - exact.leakage_ <= cert.gap_ + 1e-6
    if cert.converged_:
        assert cert.gap_ <= max(cert.abs_tol, cert.gap_tol * cert.leakage_) + 1e-12
    assert cert.distortion_ <= delta
    assert S.expected_distortion(p, d, cert.mapping_) <= delta
    rows = np.asarray(cert.mapping_.sum(axis=1)).ravel()
    np.testing.assert_allclose(rows, 1.0, atol=1e-9)
    assert cert.mapping_.min() >= 0


def test_the_certificate_is_reported_per_round_and_checked_on_release():
    p, d = S.synthetic_problem(5)
    delta = 0.02 * 31**2
    cert = S.CertifiedMapping(delta, gap_tol=1e-3).fit(p, d)
    hist = cert.history_
    assert list(hist["round"]) == list(range(1, len(hist) + 1))
    # the reported bounds only improve: upper never rises, lower never falls
    assert (np.diff(hist["upper"]) <= 0).all()
    assert (np.diff(hist["lower"]) >= 0).all()
    assert cert.converged_ and cert.stop_reason_ in ("gap", "no column prices out")
    assert cert.gap_ == pytest.approx(cert.leakage_ - cert.lower_bound_)
    report = guarantee_report(cert)
    assert report["holds"].all()
    b = np.arange(32)
    released = cert.release(b, random_state=np.random.default_rng(0))
    assert released.shape == b.shape


def test_one_round_still_gives_a_valid_certificate():
    p, d = S.synthetic_problem(6)
    delta = 0.02 * 63**2
    exact = S.ExactMapping(delta).fit(p, d)
    one = S.CertifiedMapping(delta, max_rounds=1, gap_tol=0.0, abs_tol=0.0).fit(p, d)
    assert one.stop_reason_ == "max_rounds"
    assert one.lower_bound_ <= exact.leakage_ + 1e-7 <= one.leakage_ + 2e-7


def test_a_start_mapping_seeds_the_active_set():
    p, d = S.synthetic_problem(5)
    delta = 0.02 * 31**2
    first = S.CertifiedMapping(delta).fit(p, d)
    again = S.CertifiedMapping(delta * 1.2, warm_steps=0).fit(p, d, init=first.mapping_)
    assert again.leakage_ <= first.leakage_ + 1e-6
    # started from the smaller budget's optimum, it still reaches the larger budget's optimum
    exact = S.ExactMapping(delta * 1.2).fit(p, d)
    assert again.leakage_ == pytest.approx(exact.leakage_, abs=1e-4)
    assert again.lower_bound_ <= exact.leakage_ + 1e-7
    assert not again.kept_start_ and again.leakage_ < first.leakage_ - 1e-3
    with pytest.raises(ValueError, match="init must have shape"):
        S.CertifiedMapping(delta).fit(p, d, init=np.eye(4))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"gap_tol": -0.1}, "gap_tol"),
        ({"gap_tol": 1.0}, "gap_tol"),
        ({"columns_per_row": 0}, "columns_per_row"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"warm_steps": -1}, "warm_steps"),
        ({"abs_tol": -1.0}, "abs_tol"),
        ({"multilevel": 32}, "multilevel"),
        ({"multilevel": 100.5}, "multilevel"),
    ],
)
def test_bad_hyperparameters_name_the_parameter(kwargs, name):
    p, d = S.synthetic_problem(2)
    mech = S.CertifiedMapping(0.1, **kwargs)  # stored as given, checked by fit
    with pytest.raises(ValueError, match=name):
        mech.fit(p, d)


def test_an_infeasible_budget_is_refused():
    p = np.array([[0.25, 0.25], [0.25, 0.25]])
    d = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="infeasible"):
        S.CertifiedMapping(0.5).fit(p, d)


def test_near_empty_values_made_least_attractive_tighten_a_valid_bound():
    """32 points at a budget of 0.05 on [0, 1]: the optimum's own posterior leaves the bound 2.7%
    below it, because released values the optimum never uses keep arbitrary posteriors."""
    from ppdp.mechanisms.sppm import bounds as B

    p, d = S.synthetic_problem(5)
    delta = 50.0
    exact = S.ExactMapping(delta).fit(p, d)
    plain, _ = S.variational_lower_bound(p, d, delta, exact.mapping_, mixing=(1e-6,))
    cert = S.CertifiedMapping(delta).fit(p, d)
    X = cert.mapping_
    post = B.posterior_of(p, X)
    mass = np.asarray(p.sum(axis=0) @ X).ravel()
    dist = S.as_distortion(d)
    # any multiplier gives a valid bound: scan a few, including none
    for nu in (0.0, 1e-4, 1e-3, 1e-2):
        refined = B.least_attractive_posterior(p, dist, post, mass, nu)
        np.testing.assert_allclose(refined.sum(axis=0), 1.0)
        bound, _ = B.posterior_lower_bound(p, dist, delta, refined, mixing=(1e-6,))
        assert bound <= exact.leakage_ + 1e-7
    assert (exact.leakage_ - plain) / exact.leakage_ > 0.02
    assert cert.lower_bound_ <= exact.leakage_ + 1e-7
    assert (exact.leakage_ - cert.lower_bound_) / exact.leakage_ < 1e-3


def test_the_optimal_curve_along_a_budget_grid_never_rises():
    from ppdp.experiments import sppm as E

    problem = E.data.synthetic(5)
    deltas = [0.0, 1.0, 2.0, 4.0, 10.0, 25.0, 50.0, 100.0, 400.0]
    curve = E.run.tradeoff(problem, deltas, experiment="w", methods=("optimal",))
    table = E.claims.curve_table(curve, "w")
    leak = table[("leakage", "optimal")].to_numpy()
    assert (np.diff(leak) <= 0).all()
    spent = table[("distortion", "optimal")].to_numpy()
    assert (spent <= np.asarray(deltas) + 1e-12).all()
    cert = E.claims.certificate_table(curve, "w")
    assert (cert["lower"] <= cert["upper"] + 1e-12).all()
    assert (cert["relative_gap"].dropna() <= 1e-3).all()
    # each point is the certified optimum of its own budget, warm-started or not
    for delta in (4.0, 50.0):
        cold = S.CertifiedMapping(delta).fit(problem.p_ab, problem.distortion)
        assert table.loc[delta, ("leakage", "optimal")] == pytest.approx(
            cold.leakage_, abs=1e-3 * cold.leakage_ + 1e-7
        )
    E.run.clear_cache()


def test_the_history_counts_the_pairs_of_each_master():
    p, d = S.synthetic_problem(7)
    cert = S.CertifiedMapping(0.02 * 127**2, multilevel=None).fit(p, d)
    hist = cert.history_
    assert (hist["grid"] == 128).all()
    assert len(hist) > 2
    # each master holds the previous one's pairs, minus those dropped, plus those added
    expected = (
        hist["active"].iloc[:-1].to_numpy() - hist["dropped"].iloc[:-1] + hist["added"].iloc[:-1]
    )
    np.testing.assert_array_equal(hist["active"].iloc[1:].to_numpy(), expected.to_numpy())
    assert hist["added"].iloc[-1] == 0 and hist["dropped"].iloc[-1] == 0
    assert cert.n_active_ == hist["active"].iloc[-1]
