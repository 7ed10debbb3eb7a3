"""The shared guarantee vocabulary: checks, enforcement and the report."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ppdp.guarantees import GuaranteeCheck, GuaranteeViolation, enforce, guarantee_report


def _check(measured, declared=2.0, sense="at_least", tol=1e-12):
    return GuaranteeCheck("M", "k-anonymity", declared, measured, sense, where="group 3", tol=tol)


@given(
    declared=st.floats(-1e6, 1e6, allow_nan=False),
    measured=st.floats(-1e6, 1e6, allow_nan=False),
)
def test_holds_is_the_declared_comparison(declared, measured):
    assert _check(measured, declared, "at_least").holds == (measured >= declared - 1e-12)
    assert _check(measured, declared, "at_most").holds == (measured <= declared + 1e-12)


def test_nan_never_holds():
    assert not _check(math.nan, sense="at_least").holds
    assert not _check(math.nan, sense="at_most").holds


def test_tolerance_is_the_only_slack():
    assert _check(0.25 + 1e-13, 0.25, "at_most").holds
    assert not _check(0.25 + 1e-9, 0.25, "at_most").holds
    assert _check(0.25 + 1e-9, 0.25, "at_most", tol=1e-8).holds


def test_bad_sense_and_tol_are_rejected():
    with pytest.raises(ValueError, match="sense"):
        _check(1.0, sense="below")
    with pytest.raises(ValueError, match="tol"):
        _check(1.0, tol=-1.0)


def test_enforce_raises_with_every_failed_check():
    ok = _check(3.0)
    bad = GuaranteeCheck("MutualCover", "delta-probability", 0.25, 0.2614, "at_most", "group 133")
    assert enforce([ok]) == [ok]
    with pytest.raises(GuaranteeViolation, match=r"delta-probability.*0\.2614.*group 133") as err:
        enforce([ok, bad])
    assert err.value.failed == [bad]


class _Mechanism:
    def __init__(self, checks):
        self._checks = checks

    def guarantee_checks(self):
        return self._checks


def test_report_has_one_row_per_check():
    report = guarantee_report(_Mechanism([_check(3.0), _check(1.0)]))
    assert list(report["holds"]) == [True, False]
    assert list(report.columns[-1:]) == ["holds"]
    assert (report["where"] == "group 3").all()


def test_report_rejects_objects_without_checks():
    with pytest.raises(TypeError, match="guarantee_checks"):
        guarantee_report(object())
    with pytest.raises(TypeError, match="GuaranteeCheck"):
        guarantee_report(_Mechanism([("k", 2)]))
