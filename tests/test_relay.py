"""Relay chains: privacy P(T), utility loss, BUA, PLSA, TDA, FLA and the chain (relay paper)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon

from ppdp.mechanisms.relay import (
    METHODS,
    RelayChain,
    RelayWarning,
    bua,
    class_disclosure,
    equivalence_classes,
    fla,
    generalize,
    plsa,
    privacy_disclosure,
    sanitize,
    tda,
    utility_loss,
)

ALGORITHMS = {"bua": bua, "tda": tda, "fla": fla}


# ---------------------------------------------------------------------------------------------------
# independent reference computations


def js_bits(p, q):
    """JS divergence in bits from scipy (the square of its distance)."""
    return float(jensenshannon(p, q, base=2) ** 2)


def reference_disclosure(frame, sensitive, qis, labels=None):
    """max over classes of JS(whole table, class), classes by label or by identical QI tuples."""
    values = sorted(frame[sensitive].unique())
    whole = frame[sensitive].value_counts().reindex(values, fill_value=0).to_numpy(float)
    keys = list(map(tuple, frame[qis].to_numpy())) if labels is None else list(labels)
    worst = 0.0
    for key in set(keys):
        members = frame[sensitive][[k == key for k in keys]]
        dist = members.value_counts().reindex(values, fill_value=0).to_numpy(float)
        worst = max(worst, js_bits(whole / whole.sum(), dist / dist.sum()))
    return worst


def reference_loss(frame, labels, qis, weights):
    """Sum over rows of the weighted squared distance to the class mean, over that of one class."""
    x = frame[qis].to_numpy(float)
    num = 0.0
    for lab in np.unique(labels):
        part = x[labels == lab]
        num += float((((part - part.mean(axis=0)) ** 2) * weights).sum())
    den = float((((x - x.mean(axis=0)) ** 2) * weights).sum())
    return num / den


def partitions(items):
    """Every set partition of ``items`` (Bell-number many)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in partitions(rest):
        for i in range(len(smaller)):
            yield [*smaller[:i], [first, *smaller[i]], *smaller[i + 1 :]]
        yield [[first], *smaller]


def is_coarsening(fine, coarse):
    """Every class of ``fine`` lies inside one class of ``coarse``."""
    frame = pd.DataFrame({"f": fine, "c": coarse})
    return bool((frame.groupby("f")["c"].nunique() == 1).all())


def random_table(rng, n, d=2, levels=4, values=2):
    x = rng.integers(0, levels, size=(n, d))
    frame = pd.DataFrame(x, columns=[f"q{i}" for i in range(d)])
    frame["s"] = rng.integers(0, values, size=n)
    return frame


@st.composite
def tables(draw, max_rows=14):
    n = draw(st.integers(2, max_rows))
    d = draw(st.integers(1, 3))
    levels = draw(st.integers(2, 6))
    values = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_table(np.random.default_rng(seed), n, d, levels, values)


# ---------------------------------------------------------------------------------------------------
# privacy disclosure and utility loss


def test_disclosure_of_raw_table_is_max_over_identical_qi_tuples():
    frame = random_table(np.random.default_rng(3), 40, d=2, levels=3, values=3)
    expected = reference_disclosure(frame, "s", ["q0", "q1"])
    assert privacy_disclosure(frame, "s") == pytest.approx(expected, abs=1e-12)
    per_class = class_disclosure(frame, "s")
    assert per_class.size == len(frame[["q0", "q1"]].drop_duplicates())
    assert per_class.max() == pytest.approx(expected, abs=1e-12)


def test_disclosure_of_all_in_one_table_is_zero():
    frame = random_table(np.random.default_rng(4), 30, values=3)
    merged = generalize(frame, np.zeros(len(frame), dtype=int), sensitive="s")
    assert privacy_disclosure(merged, "s") == 0.0


def test_disclosure_hand_computed_binary():
    # whole table (1/2, 1/2), a pure class (1, 0): JS = H(3/4, 1/4) - (H(p) + H(q)) / 2
    # = H(3/4, 1/4) - 1/2 = 0.3112781...
    frame = pd.DataFrame({"q": [0, 0, 1, 1], "s": [0, 0, 1, 1]})
    expected = -(0.75 * np.log2(0.75) + 0.25 * np.log2(0.25)) - 0.5
    assert privacy_disclosure(frame, "s") == pytest.approx(expected, abs=1e-12)


def test_utility_loss_zero_for_untouched_and_one_for_all_in_one():
    frame = random_table(np.random.default_rng(5), 25, d=3, levels=10)
    assert utility_loss(frame, frame, sensitive="s") == 0.0
    merged = generalize(frame, np.zeros(len(frame), dtype=int), sensitive="s")
    assert utility_loss(frame, merged, sensitive="s") == pytest.approx(1.0, abs=1e-12)


def test_utility_loss_matches_reference_with_weights():
    rng = np.random.default_rng(6)
    frame = random_table(rng, 30, d=3, levels=20)
    labels = rng.integers(0, 5, size=30)
    w = np.array([0.5, 0.3, 0.2])
    out = generalize(frame, labels, sensitive="s")
    got = utility_loss(frame, out, sensitive="s", weights=w)
    assert got == pytest.approx(reference_loss(frame, labels, ["q0", "q1", "q2"], w), rel=1e-12)


# ---------------------------------------------------------------------------------------------------
# hand-worked examples


def two_clusters():
    # two far-apart clusters, each with the whole table's distribution (a, b, a, b)
    return pd.DataFrame({"q": [0, 1, 2, 3, 100, 101, 102, 103], "s": list("abab" * 2)})


def test_tda_splits_clusters_then_plsa_halves_them():
    frame = two_clusters()
    labels = tda(frame, 1e-6, sensitive="s")
    assert labels.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    # each class {x, x + 1} loses 2 * 0.5**2; the whole table loses sum (x - 51.5)**2
    total = float(((frame["q"] - 51.5) ** 2).sum())
    out = generalize(frame, labels, sensitive="s")
    assert utility_loss(frame, out, sensitive="s") == pytest.approx(4 * 0.5 / total, rel=1e-12)


def test_bua_pairs_nearest_opposite_values():
    frame = two_clusters()
    labels = bua(frame, 1e-6, sensitive="s")
    # basic groups: each 'b' (rarest, first by row) takes its nearest free 'a'
    assert labels.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]


def test_plsa_keeps_distribution_and_stops_at_pure_halves():
    frame = two_clusters()
    labels = plsa(frame, np.array([0] * 4 + [1] * 4), 0.5, sensitive="s")
    assert labels.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]


def brute_force_optimum(frame, qis, weights, delta):
    """Smallest utility loss over all set partitions whose classes disclose at most delta."""
    x = frame[qis].to_numpy(float)
    codes = pd.factorize(frame["s"], sort=True)[0]
    k = codes.max() + 1
    whole = np.bincount(codes, minlength=k) / len(codes)
    den = float((((x - x.mean(axis=0)) ** 2) * weights).sum())
    best = np.inf
    for parts in partitions(list(range(len(frame)))):
        counts = np.stack([np.bincount(codes[p], minlength=k) for p in parts]).astype(float)
        counts /= counts.sum(axis=1, keepdims=True)
        js = jensenshannon(np.broadcast_to(whole, counts.shape), counts, base=2, axis=1) ** 2
        if js.max() <= delta:
            loss = sum(float((((x[p] - x[p].mean(axis=0)) ** 2) * weights).sum()) for p in parts)
            best = min(best, loss / den)
    return best


@pytest.fixture(scope="module")
def tiny_cases():
    rng = np.random.default_rng(11)
    cases = []
    for _ in range(3):
        frame = random_table(rng, 7, d=2, levels=50, values=2)
        cases.append((frame, brute_force_optimum(frame, ["q0", "q1"], np.array([0.5, 0.5]), 0.05)))
    return cases


@pytest.mark.parametrize("method", METHODS)
def test_single_table_against_brute_force_optimum(method, tiny_cases):
    # the table meets delta by an independent JS computation and never beats the exact optimum
    for frame, best in tiny_cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RelayWarning)
            labels = ALGORITHMS[method](frame, 0.05, sensitive="s")
        assert reference_disclosure(frame, "s", ["q0", "q1"], labels) <= 0.05 + 1e-12
        loss = reference_loss(frame, labels, ["q0", "q1"], np.array([0.5, 0.5]))
        assert best - 1e-12 <= loss <= 1.0 + 1e-12


def test_fla_look_ahead_follows_the_rule_measured_against_t0():
    # the participant holds T1 (not T0); its choice must match 2 U(T1') > U(T2') + U(T3') with the
    # utilities measured against T0 by an independent route (public functions only)
    frame = random_table(np.random.default_rng(31), 150, d=3, levels=40, values=2)
    received = sanitize(frame, 0.08, method="tda", sensitive="s")
    chosen = 0
    for cur, nxt in [(0.06, 0.03), (0.05, 0.04), (0.04, 0.03), (0.02, 0.01)]:
        ahead = sanitize(received, nxt, method="fla", sensitive="s")
        current = sanitize(received, cur, method="fla", sensitive="s")
        after = sanitize(current, nxt, method="fla", sensitive="s")
        ul = [utility_loss(frame, t, sensitive="s") for t in (ahead, current, after)]
        expected = ahead if 2 * (1 - ul[0]) > (1 - ul[1]) + (1 - ul[2]) else current
        chosen += expected is ahead
        got = sanitize(received, cur, method="fla", sensitive="s", next_delta=nxt)
        pd.testing.assert_frame_equal(got, expected)
    assert 1 <= chosen < 4  # both branches of the rule occur in this grid


def test_fla_never_loses_more_than_tda_on_one_table():
    frame = random_table(np.random.default_rng(12), 120, d=3, levels=30, values=3)
    for delta in (0.01, 0.05, 0.2):
        lt = tda(frame, delta, sensitive="s")
        lf = fla(frame, delta, sensitive="s")
        w = np.full(3, 1 / 3)
        assert (
            reference_loss(frame, lf, ["q0", "q1", "q2"], w)
            <= reference_loss(frame, lt, ["q0", "q1", "q2"], w) + 1e-12
        )


# ---------------------------------------------------------------------------------------------------
# properties


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=tables(), delta=st.floats(1e-4, 0.4), method=st.sampled_from(METHODS))
def test_every_table_meets_delta_and_coarsens_the_input(frame, delta, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelayWarning)
        labels = ALGORITHMS[method](frame, delta, sensitive="s")
    qis = [c for c in frame.columns if c != "s"]
    assert reference_disclosure(frame, "s", qis, labels) <= delta + 1e-12
    assert is_coarsening(equivalence_classes(frame, "s"), labels)
    out = generalize(frame, labels, sensitive="s")
    assert privacy_disclosure(out, "s") <= delta + 1e-12
    assert 0.0 <= privacy_disclosure(out, "s") <= 1.0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=tables(), delta=st.floats(1e-3, 0.5), seed=st.integers(0, 1000))
def test_plsa_never_raises_disclosure_and_only_splits(frame, delta, seed):
    units = equivalence_classes(frame, "s")
    coarse = np.random.default_rng(seed).integers(0, 3, size=units.max() + 1)[units]
    qis = [c for c in frame.columns if c != "s"]
    before = reference_disclosure(frame, "s", qis, coarse)
    split = plsa(frame, coarse, delta, sensitive="s")
    assert reference_disclosure(frame, "s", qis, split) <= before + 1e-12
    assert is_coarsening(split, coarse)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frame=tables(max_rows=16),
    delta=st.floats(1e-3, 0.15),
    hops=st.integers(1, 4),
    method=st.sampled_from(METHODS),
)
def test_chain_meets_every_requirement_and_coarsens(frame, delta, hops, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelayWarning)
        if frame.drop(columns="s").nunique().max() == 1:
            return
        chain = RelayChain(method, hops=hops, delta=delta, sensitive="s").fit(frame)
    np.testing.assert_allclose(chain.thresholds_, [(hops - i) * delta for i in range(hops)])
    assert np.all(chain.privacy_ <= chain.thresholds_ + 1e-12)
    assert np.all((chain.utility_loss_ >= -1e-12) & (chain.utility_loss_ <= 1 + 1e-12))
    previous = equivalence_classes(frame, "s")
    for table, labels in zip(chain.tables_, chain.labels_, strict=True):
        assert is_coarsening(previous, labels)
        np.testing.assert_array_equal(equivalence_classes(table, "s") >= 0, True)
        assert is_coarsening(labels, equivalence_classes(table, "s"))
        previous = labels
    # utility loss only grows along the chain (each table coarsens the previous one)
    assert np.all(np.diff(chain.utility_loss_) >= -1e-12)


# ---------------------------------------------------------------------------------------------------
# relay view and Theorem 2


@pytest.mark.parametrize("method", METHODS)
def test_theorem2_same_hop_distance_same_table(method):
    # two participants at the same hop distance from v0, each on its own chain of relays
    frame = random_table(np.random.default_rng(21), 80, d=3, levels=12, values=2)
    first = RelayChain(method, hops=3, delta=0.02, sensitive="s").fit(frame)
    other = frame.copy()
    second = [other]
    for i in range(1, 4):
        nxt = (3 - i) * 0.02 if i < 3 else None
        second.append(
            sanitize(second[-1], (3 - i + 1) * 0.02, method=method, sensitive="s", next_delta=nxt)
        )
    for a, b in zip(first.tables_, second[1:], strict=True):
        pd.testing.assert_frame_equal(a, b)
        assert a.to_numpy().tobytes() == b.to_numpy().tobytes()


def test_participant_never_recovers_finer_values():
    frame = random_table(np.random.default_rng(22), 60, d=2, levels=15, values=2)
    received = sanitize(frame, 0.03, method="tda", sensitive="s")
    published = sanitize(received, 0.01, method="bua", sensitive="s")
    fine = equivalence_classes(received, "s")
    assert is_coarsening(fine, equivalence_classes(published, "s"))
    # and the published values are means of what it received, weighted by class size
    assert published["q0"].mean() == pytest.approx(frame["q0"].mean(), rel=1e-12)


def test_input_that_meets_delta_is_forwarded_unchanged():
    frame = random_table(np.random.default_rng(23), 50, d=2, levels=6, values=2)
    t1 = sanitize(frame, 0.01, method="tda", sensitive="s")
    assert privacy_disclosure(t1, "s") <= 0.01
    for method in METHODS:
        pd.testing.assert_frame_equal(sanitize(t1, 0.02, method=method, sensitive="s"), t1)


def test_ties_are_broken_by_row_number_for_identical_tuples():
    frame = pd.DataFrame({"q": [1, 1, 1, 1, 5, 5], "s": [0, 1, 0, 1, 0, 1]})
    a = bua(frame, 0.001, sensitive="s")
    b = bua(frame, 0.001, sensitive="s")
    np.testing.assert_array_equal(a, b)
    assert is_coarsening(equivalence_classes(frame, "s"), a)


# ---------------------------------------------------------------------------------------------------
# errors and warnings


def test_unmeetable_delta_yields_all_in_one_table_with_warning():
    # whole table (3/4, 1/4): no class of fewer than 4 rows has that distribution
    frame = pd.DataFrame({"q": [0, 1, 2, 3], "s": [0, 0, 0, 1]})
    for method in METHODS:
        with pytest.warns(RelayWarning, match="one class"):
            out = sanitize(frame, 1e-9, method=method, sensitive="s")
        assert out["q"].nunique() == 1
        assert privacy_disclosure(out, "s") == 0.0
        with pytest.warns(RelayWarning):
            chain = RelayChain(method, hops=2, delta=1e-9, sensitive="s").fit(frame)
        assert chain.n_classes_.tolist() == [1, 1]
        np.testing.assert_allclose(chain.utility_loss_, 1.0)


@pytest.mark.parametrize("delta", [0, -0.1, float("nan"), float("inf")])
def test_bad_delta(delta):
    frame = two_clusters()
    with pytest.raises(ValueError, match="delta"):
        tda(frame, delta, sensitive="s")
    with pytest.raises(ValueError, match="delta"):
        RelayChain("fla", hops=2, delta=delta, sensitive="s").fit(frame)


def test_bad_hops_and_method():
    # the constructor stores, fit checks
    frame = two_clusters()
    with pytest.raises(ValueError, match="hops"):
        RelayChain("fla", hops=0, delta=0.1, sensitive="s").fit(frame)
    with pytest.raises(TypeError, match="hops"):
        RelayChain("fla", hops=2.5, delta=0.1, sensitive="s").fit(frame)
    with pytest.raises(ValueError, match="method"):
        RelayChain("mondrian", hops=2, delta=0.1, sensitive="s").fit(frame)


@pytest.mark.parametrize(
    ("weights", "match"),
    [([0.5, 0.2], "sum to 1"), ([0.5, 0.25, 0.25], "one entry per"), ([1.5, -0.5], ">= 0")],
)
def test_bad_weights(weights, match):
    frame = pd.DataFrame({"q0": [0, 1, 2], "q1": [1, 2, 3], "s": [0, 1, 0]})
    with pytest.raises(ValueError, match=match):
        bua(frame, 0.1, sensitive="s", weights=weights)
    with pytest.raises(ValueError, match=match):
        RelayChain("tda", hops=2, delta=0.1, sensitive="s", weights=weights).fit(frame)


def test_missing_sensitive_column_and_bad_columns():
    frame = two_clusters()
    with pytest.raises(ValueError, match="sensitive column 'label'"):
        privacy_disclosure(frame, "label")
    with pytest.raises(ValueError, match="sensitive column 'label'"):
        RelayChain("fla", hops=2, delta=0.1).fit(frame)
    with pytest.raises(ValueError, match="not in the table"):
        tda(frame, 0.1, sensitive="s", quasi_identifiers=["zz"])
    with pytest.raises(TypeError, match="numeric"):
        tda(frame.assign(q=frame["q"].astype(str)), 0.1, sensitive="s")
    with pytest.raises(ValueError, match="non-finite"):
        tda(frame.assign(q=frame["q"].astype(float).where(frame["q"] > 0)), 0.1, sensitive="s")
    with pytest.raises(ValueError, match="next_delta"):
        fla(frame, 0.1, sensitive="s", next_delta=0.2)


def test_plsa_rejects_labels_that_split_identical_tuples():
    frame = pd.DataFrame({"q": [1, 1, 2], "s": [0, 1, 0]})
    with pytest.raises(ValueError, match="identical QI tuples"):
        plsa(frame, np.array([0, 1, 1]), 0.1, sensitive="s")


def test_brute_force_partitions_helper_counts_bell_numbers():
    # guard for the reference used above: Bell numbers 1, 2, 5, 15, 52
    assert [sum(1 for _ in partitions(list(range(n)))) for n in range(1, 6)] == [1, 2, 5, 15, 52]
    assert len(list(itertools.islice(partitions(list(range(7))), 1000))) == 877


def test_fig2_worked_example_costs_match_the_paper():
    from ppdp.experiments.relay_chains.run import fig2_example

    summary, rows = fig2_example()
    totals = {
        (r.method, r.weighting): r.value for r in rows.itertuples() if r.metric == "total_cost"
    }
    # Sec. 1: option I loses 12 units, option II 16; with age costing 2.5, 30 and 28
    assert totals[("option_I", "unit")] == 12
    assert totals[("option_II", "unit")] == 16
    assert totals[("option_I", "age2.5")] == 30
    assert totals[("option_II", "age2.5")] == 28
    assert summary["diversity"].tolist() == [3, 3, 2, 4]
    assert summary["coarsens_input"].all()
