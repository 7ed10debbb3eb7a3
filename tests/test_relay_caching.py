"""Relay chains: the caches and shortcuts of ppdp.mechanisms.relay change no result.

The reference functions below are the direct computations that the cached and vectorized ones
replace; every comparison is exact (same bits, same order).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ppdp.infotheory import pairwise_js_divergence
from ppdp.mechanisms import relay
from ppdp.mechanisms.relay import (
    METHODS,
    RelayChain,
    RelayWarning,
    equivalence_classes,
    privacy_disclosure,
    reuse_units,
    utility_loss,
)


def random_table(seed: int, n: int = 60, d: int = 3, k: int = 2, levels: int = 6) -> pd.DataFrame:
    """Integer QIs with few levels (so rows repeat and projections tie) and a skewed label."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, levels, size=(n, d)), columns=[f"q{i}" for i in range(d)])
    frame["s"] = rng.choice(k, size=n, p=np.linspace(1, 2, k) / np.linspace(1, 2, k).sum())
    return frame


def units_of(frame: pd.DataFrame, weights=None):
    return relay._prepare(frame, "s", None, weights)[3]


def reference_js_rows(counts, gdist):
    return pairwise_js_divergence(np.atleast_2d(counts), gdist[None, :])[:, 0]


def reference_best_cut(u, idx, delta):
    """The direct cut search: every axis sorted on its own, the mask applied to all costs (the
    cumulative-sum costs are the library's; `test_cut_costs_match_a_direct_sum` checks them)."""
    if idx.size < 2:
        return None
    centered, axis = relay._principal_axis(u, idx)
    projections = [centered @ axis]
    projections += [centered[:, k] for k in range(centered.shape[1]) if np.ptp(centered[:, k]) > 0]
    local = np.stack([np.lexsort((u.first[idx], proj)) for proj in projections])
    n = u.size[idx][local]
    x = centered[local]
    c = u.counts[idx][local]
    # the products computed on the gather (the library gathers per-unit products)
    loss, js = relay._cut_costs(n, n[..., None] * x, n * (x**2).sum(axis=2), c, u.gdist)
    ok = (js <= delta + relay._TOL).all(axis=0)
    if not ok.any():
        return None
    cost = np.where(ok, loss, np.inf)
    a, k = np.unravel_index(int(np.argmin(cost)), cost.shape)
    order = idx[local[a]]
    return order[: k + 1], order[k + 1 :]


def reference_tda_phase1(u, delta):
    queue, out = [np.arange(u.m)], []
    while queue:
        current = queue.pop(0)
        cut = reference_best_cut(u, current, delta)
        if cut is None:
            out.append(current)
        else:
            queue.extend(cut)
    return out


def same_classes(a, b) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


DELTAS = (0.0005, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_js_rows_is_pairwise_js_divergence_to_the_bit(k):
    rng = np.random.default_rng(k)
    counts = rng.integers(0, 7, size=(500, k)).astype(float)
    counts[counts.sum(axis=1) == 0, 0] = 1.0
    gdist = counts.sum(axis=0) / counts.sum()
    fast = relay._js_rows(counts, gdist)
    assert fast.tobytes() == reference_js_rows(counts, gdist).tobytes()
    assert relay._js_rows(counts[3], gdist).tobytes() == fast[3:4].tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_cut_costs_match_a_direct_sum(seed):
    """Each cut's loss is the size-weighted squared distance of its units to their part's mean,
    and its disclosure that of each part's summed counts, computed cut by cut."""
    rng = np.random.default_rng(seed)
    n_axes, m, d, k = 2, 7, 3, 3
    n = rng.integers(1, 5, size=(n_axes, m)).astype(float)
    x = rng.normal(size=(n_axes, m, d))
    c = rng.integers(0, 4, size=(n_axes, m, k)).astype(float)
    c[..., 0] += 1
    gdist = c[0].sum(axis=0) / c[0].sum()
    loss, js = relay._cut_costs(n, n[..., None] * x, n * (x**2).sum(axis=2), c, gdist)
    assert loss.shape == (n_axes, m - 1) and js.shape == (2, n_axes, m - 1)
    for a in range(n_axes):
        for cut in range(m - 1):
            want = 0.0
            for part in (slice(0, cut + 1), slice(cut + 1, m)):
                w, pts = n[a, part], x[a, part]
                mean = (w[:, None] * pts).sum(axis=0) / w.sum()
                want += float((w * ((pts - mean) ** 2).sum(axis=1)).sum())
            np.testing.assert_allclose(loss[a, cut], want, rtol=1e-10, atol=1e-10)
            for side, part in enumerate((slice(0, cut + 1), slice(cut + 1, m))):
                direct = reference_js_rows(c[a, part].sum(axis=0), gdist)[0]
                np.testing.assert_allclose(js[side, a, cut], direct, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("one_axis_at_a_time", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_cut_search_and_tda_phase1_match_the_direct_search(seed, one_axis_at_a_time, monkeypatch):
    """The reference computes every axis's costs in one gather; the library groups its axes
    so that a group's gather fits in the cache (one axis per group here when asked)."""
    if one_axis_at_a_time:
        monkeypatch.setattr("ppdp.mechanisms.relay.top_down._CUT_ENTRIES", 1)
    frame = random_table(seed, n=50 + 10 * seed, d=2 + seed % 3, k=2 + seed % 2)
    u = units_of(frame)
    # several thresholds on the same units: the later ones are answered from the cached frontiers
    for delta in (*DELTAS, *DELTAS[::-1]):
        got = relay._tda_phase1(u, np.arange(u.m), delta)
        assert same_classes(got, reference_tda_phase1(u, delta))
    for idx in (np.arange(u.m), np.arange(u.m)[::-1], np.arange(0, u.m, 2)):
        for delta in DELTAS:
            got, want = relay._best_cut(u, idx, delta), reference_best_cut(u, idx, delta)
            assert (got is None) == (want is None)
            if got is not None:
                assert same_classes(got, want)


@pytest.mark.parametrize("seed", range(4))
def test_principal_order_from_the_cut_search_is_the_direct_one(seed):
    u = units_of(random_table(seed, n=40))
    idx = np.arange(u.m)[::-1].copy()
    relay._best_cut(u, idx, 0.01)  # stores the principal order as a by-product
    centered, axis = relay._principal_axis(u, idx)
    direct = idx[np.lexsort((u.first[idx], centered @ axis))]
    assert np.array_equal(relay._principal_order(u, idx), direct)


@pytest.mark.parametrize("seed", range(6))
def test_bua_reused_across_thresholds_equals_a_fresh_run(seed):
    frame = random_table(seed, n=40 + 8 * seed, k=2 + seed % 3)
    shared = units_of(frame)
    for delta in (*DELTAS, *DELTAS[::-1], 0.003, 0.03):
        for idx in (np.arange(shared.m), np.arange(0, shared.m, 3)):
            fresh = units_of(frame)
            want = relay._bua_run(fresh, idx, delta, relay._Window())
            assert same_classes(relay._bua(shared, idx, delta), want)


def test_window_records_every_comparison():
    window = relay._Window()
    over = window.exceed(np.array([0.1, 0.3, 0.2]), 0.25)
    assert over.tolist() == [False, True, False]
    assert window.meets(np.array([0.05, 0.15]), 0.25)
    assert window.bound(0.25, 0.4) == 0.25
    assert (window.lo, window.hi, window.at_most) == (0.2, 0.3, 0.4)
    t = relay._TOL
    assert window.contains(0.25) and window.contains(0.2 - t) and window.contains(0.29 - t)
    assert not window.contains(0.3 - t) and not window.contains(0.19 - t)
    assert window.bound(0.3, 0.1) == 0.1 and not window.contains(0.1)


def fit(method, hops, delta, frame, weights=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelayWarning)
        return RelayChain(method, hops=hops, delta=delta, sensitive="s", weights=weights).fit(frame)


def assert_same_chain(a: RelayChain, b: RelayChain) -> None:
    for name in ("thresholds_", "privacy_", "utility_loss_", "n_classes_"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    for x, y in zip(a.labels_, b.labels_, strict=True):
        assert np.array_equal(x, y)
    for x, y in zip(a.tables_, b.tables_, strict=True):
        pd.testing.assert_frame_equal(x, y, check_exact=True)


@pytest.mark.parametrize("seed", range(3))
def test_reuse_units_changes_no_chain(seed):
    frame = random_table(seed, n=80, d=3)
    weights = np.array([0.5, 0.3, 0.2])
    points = [(1, 0.06), (2, 0.03), (3, 0.02), (3, 0.01), (6, 0.01), (2, 0.01)]
    alone = {(m, h, d): fit(m, h, d, frame, weights) for m in METHODS for h, d in points}
    with reuse_units(maxsize=4):
        together = {(m, h, d): fit(m, h, d, frame, weights) for m in METHODS for h, d in points}
        assert relay.UNITS.scopes == 1 and 0 < len(relay.UNITS) <= 4
        assert relay.UNITS.hits > 0  # the chains shared units
    assert relay.UNITS.scopes == 0 and len(relay.UNITS) == 0
    for key, chain in alone.items():
        assert_same_chain(chain, together[key])


@pytest.mark.parametrize("method", METHODS)
def test_chain_measures_are_those_of_the_public_functions(method):
    frame = random_table(7, n=90, d=3)
    weights = np.array([0.2, 0.2, 0.6])
    chain = fit(method, 4, 0.01, frame, weights)
    for i, table in enumerate(chain.tables_):
        assert chain.privacy_[i] == privacy_disclosure(table, "s")
        assert np.array_equal(chain.labels_[i], equivalence_classes(table, "s"))
        assert chain.utility_loss_[i] == utility_loss(frame, table, sensitive="s", weights=weights)
    assert (
        chain.privacy_.tobytes()
        == relay._chain_checks(chain.tables_, chain.thresholds_, "s", chain.qis_)[1].tobytes()
    )
