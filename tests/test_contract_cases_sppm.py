"""SPPM's array-level solvers and the exponential mechanism through the contract of
:mod:`ppdp.contract` (:func:`~ppdp.contract.array_contract_checks`).

One :class:`~ppdp.contract.ArrayCase` per public class, on the synthetic problem of Sec. 2 with
four points (``|B| = 4``), so that every check fits in well under a second: ``fit(p_ab,
distortion)`` learns the mapping and ``release(b, random_state)`` draws ``b^ ~ p(. | b)`` for
twenty profile indices.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ppdp.base import RepeatedReleaseWarning
from ppdp.contract import ArrayCase, array_contract_checks
from ppdp.mechanisms import sppm as S

#: A budget at which every solver's mapping mixes (the identity leaks 1 bit, the optimum 0.25;
#: from a budget of 1 on the optimum is deterministic, and its releases do not depend on the seed).
DELTA = 0.5


def problem() -> tuple[tuple, dict]:
    """``fit``'s arguments: the synthetic joint over four points and its squared distortion."""
    return S.synthetic_problem(2), {}


def profiles() -> tuple[tuple, dict]:
    """``release``'s arguments: every profile five times."""
    return (np.tile(np.arange(4), 5),), {}


CASES = [
    ArrayCase(
        "sppm",
        lambda: S.SPPM(DELTA, n_steps=5),
        problem,
        {"delta": -1.0, "n_steps": -1, "variant": "fast", "floor": 1.5, "columns_per_row": 0},
        profiles,
    ),
    ArrayCase(
        "exact",
        lambda: S.ExactMapping(DELTA),
        problem,
        {"delta": -1.0, "solver": "MOSEK", "fallback": "ECOS"},
        profiles,
    ),
    ArrayCase(
        "certified",
        lambda: S.CertifiedMapping(DELTA, warm_steps=3),
        problem,
        {"delta": -1.0, "gap_tol": 1.0, "max_rounds": 0, "multilevel": 32},
        profiles,
    ),
    ArrayCase(
        "exponential",
        lambda: S.ExponentialMechanism(delta=DELTA),
        problem,
        {"delta": -1.0, "rtol": 0.0},
        profiles,
    ),
    ArrayCase(
        "exponential_beta",
        lambda: S.ExponentialMechanism(beta=0.5),
        problem,
        {"beta": -1.0},
        profiles,
    ),
]


@pytest.mark.parametrize("check", list(array_contract_checks()), ids=lambda c: c.__name__)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_array_contract(case, check):
    check(case)


def test_every_public_class_has_a_case():
    exercised = {type(case.make()) for case in CASES}
    assert {S.SPPM, S.ExactMapping, S.CertifiedMapping, S.ExponentialMechanism} <= exercised


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_constructor_stores_bad_values_and_fit_refuses_them(case):
    """The constructor checks nothing (``get_params`` returns what it was given)."""
    for name, value in case.bad_params.items():
        mech = type(case.make())(**{**case.make().get_params(), name: value})
        assert mech.get_params()[name] == value


def test_exponential_mechanism_needs_exactly_one_of_beta_and_delta_at_fit():
    p, d = S.synthetic_problem(2)
    for mech in (S.ExponentialMechanism(), S.ExponentialMechanism(beta=1.0, delta=1.0)):
        with pytest.raises(ValueError, match=r"exactly one of beta and delta; got beta="):
            mech.fit(p, d)


def test_exponential_mechanism_without_a_mapping_cannot_release():
    p, d = S.synthetic_problem(2)
    mech = S.ExponentialMechanism(delta=DELTA).fit(p, d, mapping=False)
    with pytest.raises(RuntimeError, match="has no mapping"):
        mech.release(np.arange(4), random_state=0)


def test_table_mapping_warns_once_for_its_own_repeated_release():
    """The table adapter's ledger accounts for repetition; its core's warning is silenced."""
    df = pd.DataFrame(
        {
            "income": ["low", "low", "high", "high", "low", "high"],
            "age": [20, 30, 30, 40, 20, 40],
        }
    )
    tm = S.TableMapping(private="income", released="age", delta=0.5, n_steps=3).fit(df)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in range(3):
            tm.release(random_state=seed)
    repeated = [w for w in caught if issubclass(w.category, RepeatedReleaseWarning)]
    assert len(repeated) == 1 and "TableMapping" in str(repeated[0].message)
    assert tm.mechanism_.n_releases_ == 3
