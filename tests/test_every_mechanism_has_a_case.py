"""The contract harness runs every public mechanism: a class without a case fails here.

The concrete subclasses of :class:`ppdp.base.Mechanism` (tables) and
:class:`ppdp.base.ArrayMechanism` (arrays) are listed from the package itself, so a new mechanism
cannot be added without a :class:`~ppdp.contract.MechanismCase` in
``tests/test_mechanism_contract.py`` or an :class:`~ppdp.contract.ArrayCase` in
``tests/test_contract_cases_<family>.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ppdp.base import ArrayMechanism

# the API index's guarantee table walks the same classes: one walk for both
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
from mechanism_guarantees import mechanisms


def covered() -> set[type]:
    """The classes the harness builds: the table cases and each family's array cases."""
    from test_contract_cases_hyobscure import CASES as HYOBSCURE
    from test_contract_cases_sppm import CASES as SPPM
    from test_mechanism_contract import CASES as TABLES

    return {type(case.make()) for case in [*TABLES, *HYOBSCURE, *SPPM]}


MECHANISMS = mechanisms()


def test_the_walk_finds_both_kinds():
    kinds = {issubclass(c, ArrayMechanism) for c in MECHANISMS}
    assert len(MECHANISMS) >= 20 and kinds == {True, False}, [c.__name__ for c in MECHANISMS]


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=lambda c: c.__name__)
def test_the_contract_runs_every_public_mechanism(mechanism):
    assert mechanism in covered(), (
        f"{mechanism.__module__}.{mechanism.__name__} has no case: the contract harness never "
        "runs it (add one to tests/test_mechanism_contract.py or tests/test_contract_cases_*.py)"
    )
