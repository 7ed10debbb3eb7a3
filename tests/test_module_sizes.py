"""Rooms that say what they hold: no module of the mechanisms over 900 lines.

A family that outgrows one module becomes a package cut at its seams (``hyobscure/``, ``sppm/``,
``relay/``, ``mutual_cover/``, ``imposter/``), so that a reader finds the LP, the sampler or the
estimator by the module's name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

MECHANISMS = Path(__file__).resolve().parents[1] / "lib" / "ppdp" / "mechanisms"
LIMIT = 900
MODULES = sorted(MECHANISMS.rglob("*.py"))


def test_the_walk_finds_the_mechanisms():
    assert len(MODULES) > 20


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(MECHANISMS)))
def test_no_mechanism_module_is_over_the_limit(path):
    lines = len(path.read_text().splitlines())
    assert lines <= LIMIT, f"{path.relative_to(MECHANISMS)} has {lines} lines (limit {LIMIT})"
