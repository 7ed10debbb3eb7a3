"""Declared guarantees of k-RR and relay chains, measured on what they release."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon

from ppdp.guarantees import GuaranteeViolation, guarantee_report
from ppdp.mechanisms import relay
from ppdp.mechanisms.randomized_response import (
    KaryRandomizedResponse,
    krr_applied_keep,
    krr_keep_probability,
    krr_matrix,
    randomize_codes,
)
from ppdp.mechanisms.relay import RelayChain, equivalence_classes, sanitize

# ---------------------------------------------------------------------------------------------------
# independent references


def brute_log_ratio(q: np.ndarray) -> float:
    """max over outputs r and input pairs (s, s') of log Q(r|s) / Q(r|s'), by broadcasting."""
    ratios = q[:, None, :] / q[None, :, :]
    return float(np.log(ratios.max()))


def keep_channel(keep: float, k: int) -> np.ndarray:
    q = np.full((k, k), (1.0 - keep) / (k - 1))
    np.fill_diagonal(q, keep)
    return q


def reference_disclosure(frame: pd.DataFrame, sensitive: str) -> float:
    """max over classes (identical QI tuples) of JS(whole table, class) in bits, via scipy."""
    qis = [c for c in frame.columns if c != sensitive]
    values = sorted(frame[sensitive].unique())
    whole = frame[sensitive].value_counts().reindex(values, fill_value=0).to_numpy(float)
    worst = 0.0
    for _, part in frame.groupby(qis, sort=False):
        dist = part[sensitive].value_counts().reindex(values, fill_value=0).to_numpy(float)
        worst = max(worst, jensenshannon(whole / whole.sum(), dist / dist.sum(), base=2) ** 2)
    return float(worst)


def random_table(seed: int, n: int = 60, d: int = 2, levels: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"q{j}": rng.integers(0, levels, size=n) for j in range(d)})
    frame["s"] = rng.integers(0, 2, size=n)
    return frame


# ---------------------------------------------------------------------------------------------------
# k-RR: epsilon-LDP of the applied channel


@pytest.mark.parametrize(("k", "eps"), [(2, 0.5), (5, 1.0), (12, 2.5), (3, 7.0)])
def test_krr_check_matches_ratio_of_eq1_channel(k, eps):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": np.arange(200) % k, "b": rng.choice(list("xyz"), 200)})
    mech = KaryRandomizedResponse({"a": eps, "b": 0.3}).fit(df)
    report = guarantee_report(mech).set_index("where")
    assert list(report.index) == ["a", "b"]
    assert (report["guarantee"] == "epsilon-LDP").all()
    assert (report["sense"] == "at_most").all()
    assert report["holds"].all()
    assert report.loc["a", "declared"] == eps
    # the applied channel is Eq. (1) up to the last bit of the keep probability
    assert report.loc["a", "measured"] == pytest.approx(
        brute_log_ratio(krr_matrix(k, eps)), abs=1e-12
    )
    assert report.loc["b", "measured"] == pytest.approx(
        brute_log_ratio(krr_matrix(3, 0.3)), abs=1e-12
    )


@settings(max_examples=80, deadline=None)
@given(k=st.integers(2, 30), eps=st.floats(1e-6, 800.0))
def test_applied_channel_never_exceeds_epsilon(k, eps):
    keep = krr_applied_keep(k, eps)
    # on the grid of Generator.random(), so u < keep happens with probability exactly keep
    assert keep * 2.0**53 == math.floor(keep * 2.0**53)
    assert 0.0 < keep < 1.0
    assert brute_log_ratio(keep_channel(keep, k)) <= eps + 1e-12
    mech = KaryRandomizedResponse(eps).fit(pd.DataFrame({"a": np.arange(k)}))
    (check,) = mech.guarantee_checks()
    assert check.measured == pytest.approx(brute_log_ratio(keep_channel(keep, k)), abs=1e-12)
    assert check.holds


def test_large_epsilon_still_randomizes_and_meets_its_bound():
    # Eq. (1)'s keep probability rounds to 1 in float64: a naive draw would never flip
    assert krr_keep_probability(2, 100.0) == 1.0
    keep = krr_applied_keep(2, 100.0)
    assert keep == 1.0 - 2.0**-53
    assert math.log(keep / (1.0 - keep)) <= 100.0
    mech = KaryRandomizedResponse(100.0).fit(pd.DataFrame({"a": [0, 1]}))
    assert guarantee_report(mech)["holds"].all()


def test_applied_keep_moves_eq1_by_a_few_grid_steps():
    for k in (2, 5, 40):
        for eps in (0.1, 1.0, 5.0, 20.0):
            assert 0 <= krr_keep_probability(k, eps) - krr_applied_keep(k, eps) <= 3 * 2.0**-53


def test_tampered_channel_is_caught_and_nothing_is_released():
    df = pd.DataFrame({"a": list("abcd") * 25, "b": np.arange(100) % 3})
    mech = KaryRandomizedResponse(1.0).fit(df)
    mech.matrices_["a"] = krr_matrix(4, 2.0)  # a weaker channel than the declared epsilon = 1
    (bad,) = [c for c in mech.guarantee_checks() if not c.holds]
    assert bad.where == "a"
    assert bad.measured == pytest.approx(2.0, abs=1e-12)
    with pytest.raises(GuaranteeViolation, match=r"epsilon-LDP.*at a"):
        mech.randomize(df, np.random.default_rng(0))


def test_tampered_single_row_is_caught():
    df = pd.DataFrame({"a": np.arange(60) % 6})
    mech = KaryRandomizedResponse(0.5).fit(df)
    q = mech.matrices_["a"].copy()
    q[2] = (1 - 0.9) / 5
    q[2, 2] = 0.9  # value 2 kept far more often than the others
    mech.matrices_["a"] = q
    (check,) = mech.guarantee_checks()
    assert check.measured == pytest.approx(brute_log_ratio(q), abs=1e-12)
    assert not check.holds
    with pytest.raises(GuaranteeViolation):
        mech.randomize(df, np.random.default_rng(1))


def test_randomize_uses_the_fitted_keep_probabilities():
    # a tampered but still valid (stronger) channel is what gets applied
    df = pd.DataFrame({"a": np.zeros(20_000, dtype=int)})
    df.loc[::2, "a"] = 1
    mech = KaryRandomizedResponse(3.0).fit(df)
    mech.matrices_["a"] = keep_channel(0.6, 2)  # log(0.6 / 0.4) < 3
    out = mech.randomize(df, np.random.default_rng(2))
    assert (out["a"] == df["a"]).mean() == pytest.approx(0.6, abs=0.02)


def test_randomize_codes_uses_the_applied_keep():
    rng = np.random.default_rng(4)
    codes = np.zeros(50_000, dtype=int)
    out = randomize_codes(codes, 3, 0.2, rng)
    assert (out == 0).mean() == pytest.approx(krr_applied_keep(3, 0.2), abs=0.01)


# ---------------------------------------------------------------------------------------------------
# relay chains: P(T_i) <= (l - i + 1) delta on every table


@pytest.mark.parametrize("method", relay.METHODS)
def test_chain_check_is_the_worst_slack_over_tables(method):
    frame = random_table(3, n=80, d=2, levels=10)
    chain = RelayChain(method, hops=3, delta=0.02, sensitive="s").fit(frame)
    measured = np.array([reference_disclosure(t, "s") for t in chain.tables_])
    np.testing.assert_allclose(chain.privacy_, measured, atol=1e-12)
    worst = int(np.argmax(measured - chain.thresholds_))
    report = guarantee_report(chain)
    assert len(report) == 1
    row = report.iloc[0]
    assert row["where"] == f"T_{worst + 1}"
    assert row["declared"] == pytest.approx(chain.thresholds_[worst])
    assert row["measured"] == pytest.approx(measured[worst], abs=1e-12)
    assert row["sense"] == "at_most" and row["holds"]


def test_tampered_chain_table_fails_its_check():
    frame = random_table(5, n=80, d=2, levels=10)
    chain = RelayChain("tda", hops=2, delta=0.02, sensitive="s").fit(frame)
    chain.tables_[1] = frame.copy()  # the raw table in place of T_2
    (check,) = chain.guarantee_checks()
    assert not check.holds
    assert check.where == "T_2"
    assert check.measured == pytest.approx(reference_disclosure(frame, "s"), abs=1e-12)


def _no_sanitization(u, method, delta, next_delta):
    """Every unit its own class: the raw table, whatever the threshold."""
    return [np.array([i]) for i in range(u.m)]


def test_injected_violation_withholds_every_chain_table(monkeypatch):
    frame = random_table(6, n=80, d=2, levels=10)
    assert reference_disclosure(frame, "s") > 0.04
    chain = RelayChain("fla", hops=2, delta=0.02, sensitive="s").fit(frame)
    monkeypatch.setattr(relay.partition, "_step", _no_sanitization)
    with pytest.raises(GuaranteeViolation, match=r"T_2"):
        chain.fit(frame)
    assert not hasattr(chain, "tables_")
    assert not hasattr(chain, "n_classes_")


def test_injected_violation_withholds_the_sanitized_table(monkeypatch):
    frame = random_table(7, n=80, d=2, levels=10)
    monkeypatch.setattr(relay.partition, "_step", _no_sanitization)
    with pytest.raises(GuaranteeViolation, match="privacy disclosure"):
        sanitize(frame, 0.01, method="bua", sensitive="s")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), delta=st.floats(0.005, 0.1), hops=st.integers(1, 4))
def test_every_fitted_chain_passes_its_check(seed, delta, hops):
    frame = random_table(seed, n=40, d=2, levels=6)
    if frame[["q0", "q1"]].nunique().max() == 1:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relay.RelayWarning)
        chain = RelayChain("bua", hops=hops, delta=delta, sensitive="s").fit(frame)
    (check,) = chain.guarantee_checks()
    assert check.holds
    for table, threshold in zip(chain.tables_, chain.thresholds_, strict=True):
        assert reference_disclosure(table, "s") <= threshold + 1e-12


# ---------------------------------------------------------------------------------------------------
# relay chains: classes counted as published


def test_classes_with_equal_means_count_once(monkeypatch):
    # classes {0, 4} and {1, 3} both publish q = 2: a reader sees one class of four rows
    frame = pd.DataFrame({"q": [0.0, 4.0, 1.0, 3.0, 10.0, 11.0], "s": [0, 1, 0, 1, 0, 1]})

    def pairs(u, method, delta, next_delta):
        return [np.array([0, 1]), np.array([2, 3]), np.array([4, 5])]

    monkeypatch.setattr(relay.partition, "_step", pairs)
    chain = RelayChain("tda", hops=1, delta=0.5, sensitive="s").fit(frame)
    published = chain.tables_[0]
    assert published["q"].tolist() == [2.0, 2.0, 2.0, 2.0, 10.5, 10.5]
    assert chain.n_classes_.tolist() == [published["q"].nunique()] == [2]
    np.testing.assert_array_equal(chain.labels_[0], [0, 0, 0, 0, 1, 1])
    np.testing.assert_array_equal(chain.labels_[0], equivalence_classes(published, "s"))


@pytest.mark.parametrize("method", relay.METHODS)
def test_n_classes_is_the_number_of_distinct_published_rows(method):
    frame = random_table(11, n=120, d=2, levels=12)
    chain = RelayChain(method, hops=3, delta=0.01, sensitive="s").fit(frame)
    for table, n_classes, labels in zip(
        chain.tables_, chain.n_classes_, chain.labels_, strict=True
    ):
        assert n_classes == len(table[["q0", "q1"]].drop_duplicates())
        assert labels.max() + 1 == n_classes
