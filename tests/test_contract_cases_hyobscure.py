"""HyObscure's estimators and baselines through the array-level contract of :mod:`ppdp.contract`.

One :class:`~ppdp.contract.ArrayCase` per public class (HyObscure, XObf, YGen, PrivCheck and the
user-level baselines of Sect. IV-A5), fitted on a small population of :mod:`populations` with its
clusters given (no k-means) and, for the baselines, a fixed starting generalization ``G^0``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from populations import SMALL, hyobscure_population
from ppdp.base import ArrayMechanism, RepeatedReleaseWarning
from ppdp.contract import ArrayCase, array_contract_checks
from ppdp.mechanisms import hyobscure as hy

#: 120 users, 16 ages, 6 features, 3 clusters: SMALL's bounds hold, and a fit takes a fraction
#: of a second.
X, Y, CLUSTERS = hyobscure_population(0, n=120, m=6)
GEN0 = hy.HyObscure(**SMALL)._initial_generalization(Y, np.random.default_rng(0))


def _estimator_inputs():
    """HyObscure, XObf and YGen: features, ages and the users' clusters."""
    return (X.copy(), Y.copy()), {"clusters": CLUSTERS.copy()}


def _baseline_inputs():
    """The baselines obfuscate inside a given generalization (the paper's G^0)."""
    return (X.copy(), Y.copy()), {"generalization": GEN0, "clusters": CLUSTERS.copy()}


CASES = [
    ArrayCase(
        "hyobscure",
        lambda: hy.HyObscure(**SMALL),
        _estimator_inputs,
        {"budget": -0.1, "k": 0, "alpha": 5, "g_step": "random"},
    ),
    ArrayCase(
        "xobf",
        lambda: hy.XObf(**SMALL),
        _estimator_inputs,
        {"n_clusters": 0, "solver": "MOSEK"},
    ),
    ArrayCase(
        "ygen",
        lambda: hy.YGen(**SMALL),
        _estimator_inputs,
        {"budget": -1.0, "beta": 2},
    ),
    ArrayCase(
        "privcheck",
        lambda: hy.PrivCheck(budget=SMALL["budget"], n_clusters=SMALL["n_clusters"]),
        _baseline_inputs,
        {"budget": -1.0, "distance": "euclid"},
    ),
    ArrayCase(
        "random_obfuscation",
        lambda: hy.RandomObfuscation(p_rand=0.5),
        _baseline_inputs,
        {"p_rand": 1.5},
    ),
    ArrayCase("frapp", lambda: hy.Frapp(gamma=4.0), _baseline_inputs, {"gamma": 0.5}),
    ArrayCase("similarity", lambda: hy.Similarity(p_obf=0.5), _baseline_inputs, {"p_obf": -0.1}),
    ArrayCase(
        "dp_obfuscation", lambda: hy.DPObfuscation(beta=5.0), _baseline_inputs, {"beta": -1.0}
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("check", list(array_contract_checks()), ids=lambda c: c.__name__)
def test_array_contract(case, check):
    check(case)


def test_every_public_array_mechanism_of_the_family_has_a_case():
    public = {
        name
        for name in hy.__all__
        if isinstance(getattr(hy, name), type) and issubclass(getattr(hy, name), ArrayMechanism)
    }
    assert public == {type(case.make()).__name__ for case in CASES}


def _fitted(case_name: str):
    case = next(c for c in CASES if c.name == case_name)
    args, kwargs = case.fit_inputs()
    return case.make().fit(*args, random_state=0, **kwargs)


def test_the_constructor_stores_what_it_is_given_and_fit_checks_it():
    budget, k = np.float32(0.05), np.int32(30)
    mech = hy.HyObscure(**{**SMALL, "budget": budget, "k": k})
    assert mech.budget is budget and mech.k is k
    plain = _fitted("hyobscure")
    args, kwargs = _estimator_inputs()
    fitted = mech.fit(*args, random_state=0, **kwargs)
    assert fitted.leakage_ == pytest.approx(plain.leakage_, abs=1e-6)
    assert mech.budget is budget  # fit reads a converted copy, never overwrites the parameter
    bad = hy.HyObscure(**{**SMALL, "k": 50, "alpha": 40})  # accepted here, refused by fit
    with pytest.raises(ValueError, match="alpha must be >= k"):
        bad.fit(*args, random_state=0, **kwargs)


def test_a_bad_knob_of_a_baseline_is_refused_by_fit_and_named():
    mech = hy.Frapp(gamma=0.5)
    assert mech.gamma == 0.5
    args, kwargs = _baseline_inputs()
    with pytest.raises(ValueError, match=r"'gamma' parameter of Frapp"):
        mech.fit(*args, **kwargs)


def test_dp_releases_compose_and_the_others_warn_on_a_repeated_release():
    dp = _fitted("dp_obfuscation")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RepeatedReleaseWarning)
        for seed in range(3):
            dp.release(random_state=seed)
    assert dp.spent() == pytest.approx(3 * dp.epsilon_)
    frapp = _fitted("frapp")
    frapp.release(random_state=0)
    with pytest.warns(RepeatedReleaseWarning, match="a second release from one fit of Frapp"):
        frapp.release(random_state=1)


def test_the_table_adapter_warns_once_for_itself_not_for_its_engine():
    frame = pd.DataFrame(X.astype(np.int64), columns=[f"f{j}" for j in range(X.shape[1])])
    frame["age"] = Y
    adapter = hy.TableObfuscation(hy.HyObscure(**SMALL), private="age", kmeans_n_init=1)
    adapter.fit(frame, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = adapter.release(random_state=1)
        second = adapter.release(random_state=1)
    repeated = [w for w in caught if issubclass(w.category, RepeatedReleaseWarning)]
    assert len(repeated) == 1 and "TableObfuscation" in str(repeated[0].message)
    assert adapter.n_releases_ == 2 and adapter.mechanism_.n_releases_ == 2
    pd.testing.assert_frame_equal(first, second)
