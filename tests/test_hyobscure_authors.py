"""HyObscure under the authors' protocol: age bands, the greedy G-step, the pp release, the
cluster-mean budget, the authors' utility metric and the gain decomposition."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from populations import hyobscure_population
from ppdp.experiments import hyobscure as hx
from ppdp.experiments.common import tidy_frame, tidy_rows, with_parameters
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure.boosting import greedy_candidates
from ppdp.mechanisms.hyobscure.leakage import (
    ABSENT_CLUSTER_COST,
    DistanceModel,
    cluster_value_counts,
    expected_distance,
)
from ppdp.utility.recommendation import cf_rmse

# ------------------------------------------------------------------------------------------------
# bands


def test_bands_are_the_authors_age_groups():
    domain = hy.private_domain(np.arange(18, 51))
    gen = hy.band_generalization(domain, [25, 35, 45])
    assert gen.intervals() == [(18, 24), (25, 34), (35, 44), (45, 50)]


@pytest.mark.parametrize(
    ("cuts", "match"),
    [([35, 25], "strictly increasing"), ([60], "without a value"), ([], "non-empty")],
)
def test_bands_reject_bad_cuts(cuts, match):
    domain = hy.private_domain(np.arange(18, 51))
    with pytest.raises(ValueError, match=match):
        hy.band_generalization(domain, cuts)


def test_bands_need_ordered_values():
    domain = hy.private_domain([0, 1, 61, 62], kind="grid")
    with pytest.raises(ValueError, match="interval"):
        hy.band_generalization(domain, [30])


# ------------------------------------------------------------------------------------------------
# the greedy G-step


def test_greedy_candidates_worked_example():
    # group 0: six ages of 10 users (exp(H) = 6, so at most 6 - 2 = 4 ages may leave); with
    # k = 25 at most 3 may leave (30 users stay); group 0 is the first, so only its high end
    # moves. Group 1: four ages of 5 users: exp(H) = 4 allows 2, but 15 < 25 users would stay.
    labels = np.array([0] * 6 + [1] * 4)
    counts = np.array([10.0] * 6 + [5.0] * 4)
    cands = greedy_candidates(labels, counts, k=25, l=2)
    expected = [np.array([0] * (6 - r) + [1] * (4 + r)) for r in (1, 2, 3)]
    assert len(cands) == 3
    for got, want in zip(cands, expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_greedy_candidates_ignore_alpha_and_beta_of_the_receiver():
    # the middle group gives to both sides; receivers may grow without bound
    labels = np.array([0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2])
    counts = np.array([50.0, 50.0, 10, 10, 10, 10, 10, 10, 11, 50.0, 50.0])
    cands = greedy_candidates(labels, counts, k=20, l=2)
    moved = [np.flatnonzero(c != labels) for c in cands]
    # from group 1 (exp(H) = 6.99, reach 4; three values keep >= 20 users): 1..4 values to
    # either side; groups 0 and 2 (exp(H) = 2) give nothing
    to_high = [m for m, c in zip(moved, cands, strict=True) if (c[m] == 2).all() and len(m)]
    to_low = [m for m, c in zip(moved, cands, strict=True) if (c[m] == 0).all() and len(m)]
    assert [len(m) for m in to_high] == [1, 2, 3, 4]
    assert [len(m) for m in to_low] == [1, 2, 3, 4]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(1, 6), min_size=2, max_size=4),
    counts_seed=st.integers(0, 10_000),
    k=st.integers(1, 40),
    l=st.integers(1, 4),
)
def test_greedy_candidates_properties(sizes, counts_seed, k, l):  # noqa: E741
    """Every candidate moves a run of end values of one group to its neighbour and leaves the
    giving group with >= k users, >= l values and at most exp(H) - l values fewer."""
    labels = np.repeat(np.arange(len(sizes)), sizes)
    counts = np.random.default_rng(counts_seed).integers(1, 20, len(labels)).astype(float)
    for cand in greedy_candidates(labels, counts, k, l):
        moved = np.flatnonzero(cand != labels)
        assert len(moved) >= 1
        assert (np.diff(moved) == 1).all()  # contiguous
        giver = labels[moved[0]]
        assert (labels[moved] == giver).all()
        receiver = cand[moved[0]]
        assert abs(int(receiver) - int(giver)) == 1
        members = np.flatnonzero(labels == giver)
        assert moved[0] == members[0] or moved[-1] == members[-1]  # an end of the group
        left = members[cand[members] == giver]
        assert counts[left].sum() >= k
        assert len(left) >= l
        p = counts[members] / counts[members].sum()
        assert len(moved) <= int(math.exp(-(p * np.log(p)).sum()) - l)


def _fitted_state(seed=0, budget=0.2):
    X, y, clusters = hyobscure_population(seed)
    domain = hy.private_domain(y)
    gen = hy.band_generalization(domain, [24, 28, 32])
    idx = domain.index(y)
    C = int(clusters.max()) + 1
    counts = cluster_value_counts(clusters, idx, C, len(domain.values))
    model = DistanceModel(X, clusters, idx, C, len(domain.values), "mean_pairwise_js")
    mappings, _ = hy.solve_obfuscation(
        counts, gen.labels, model.all_groups(gen.labels), budget + 0.6, scope="cluster_mean"
    )
    return gen, counts, mappings, model


@pytest.mark.parametrize("seed", range(4))
def test_greedy_step_accepts_the_last_dominating_candidate(seed):
    """The accepted candidate lowers both leakage and loss, and no later candidate in the
    authors' order lowers both further (their incumbent walk)."""
    gen, counts, mappings, model = _fitted_state(seed)
    new, records = hy.greedy_generalization(
        gen, counts, mappings, model, k=10, l=2, scope="cluster_mean", score="leakage"
    )

    def score(labels):
        loss = np.mean(
            expected_distance(counts, labels, mappings, model.all_groups(labels), "cluster_mean")
        )
        return hy.hybrid_leakage(counts, labels, mappings), loss

    I0, Q0 = score(gen.labels)
    cands = greedy_candidates(gen.labels, counts.sum(axis=0), 10, 2)
    scores = [score(c) for c in cands]
    improving = [i for i, (leak, Q) in enumerate(scores) if leak < I0 and Q < Q0]
    if not records:
        assert not improving
        return
    pos = next(i for i, c in enumerate(cands) if np.array_equal(c, new.labels))
    I1, Q1 = scores[pos]
    assert I1 < I0 and Q1 < Q0
    assert records[0]["leakage"] == pytest.approx(I1)
    assert not any(leak < I1 and Q < Q1 for leak, Q in scores[pos + 1 :])


def _greedy_hyobscure(**params):
    """HyObscure as the authors run it: k and entropy l only, their budget and G-step."""
    return hy.HyObscure(
        **{
            "n_groups": 4,
            "alpha": 10**6,
            "beta": 10**6,
            "n_clusters": 3,
            "distance": "mean_pairwise_js",
            "budget_scope": "cluster_mean",
            "g_step": "greedy",
            **params,
        }
    )


def test_greedy_fit_keeps_k_and_contiguity_and_meets_the_budget():
    X, y, clusters = hyobscure_population(1, n=300)
    gen = hy.band_generalization(hy.private_domain(y), [24, 28, 32])
    mech = _greedy_hyobscure(k=20, l=2, budget=1.1, max_iter=5)
    mech.fit(X, y, random_state=np.random.default_rng(0), clusters=clusters, generalization=gen)
    assert all(check.holds for check in mech.guarantee_checks())
    # the released mapping was solved for the released groups: no move after the last O-step
    last = mech.history_[-1]
    assert last["phase"] in ("O", "undo") or (last["phase"] == "G" and last["moves"] == 0)
    assert any(rec["phase"] == "G" and rec["moves"] for rec in mech.history_)
    release = mech.release(random_state=np.random.default_rng(1))
    assert release.features.shape == X.shape


def test_greedy_step_on_home_cells_moves_lines_between_areas():
    rng = np.random.default_rng(4)
    n = 240
    rows, cols = rng.integers(0, 6, n), rng.integers(0, 6, n)
    cells = rows * 60 + cols
    clusters = rng.integers(0, 3, n)
    base = rng.gamma(1.0, 1.0, (3, 12))
    X = rng.poisson(base[clusters] * (1 + (rows[:, None] > 2))) + 0.0
    X[:, 0] += 1.0
    gen = hy.area_generalization(hy.private_domain(cells, "grid"), 4)
    mech = _greedy_hyobscure(k=10, l=2, budget=1.3, domain="grid", max_iter=3)
    mech.fit(X, cells, random_state=np.random.default_rng(0), clusters=clusters, generalization=gen)
    assert all(check.holds for check in mech.guarantee_checks())
    moved = [rec for rec in mech.history_ if rec["phase"] == "G" and rec["moves"]]
    assert moved
    assert not np.array_equal(mech.generalization_.labels, gen.labels)


# ------------------------------------------------------------------------------------------------
# the pp release


def _xobf(seed=0):
    X, y, clusters = hyobscure_population(seed)
    gen = hy.band_generalization(hy.private_domain(y), [24, 28, 32])
    mech = hy.XObf(n_groups=4, k=5, alpha=500, l=1, beta=50, budget=0.3, n_clusters=3)
    mech.fit(X, y, random_state=np.random.default_rng(0), clusters=clusters, generalization=gen)
    return mech, X


def test_pp_one_publishes_the_unobscured_data_exactly():
    mech, X = _xobf()
    release = mech.release(random_state=np.random.default_rng(5), keep=1.0)
    np.testing.assert_array_equal(release.features, X)
    np.testing.assert_array_equal(release.source, np.arange(len(X)))
    np.testing.assert_array_equal(release.groups, mech.groups_)


def test_pp_zero_is_the_plain_release_byte_for_byte():
    mech, X = _xobf()
    plain = hy.sample_cluster_release(
        X, mech.clusters_, mech.groups_, mech.mappings_, np.random.default_rng(5)
    )
    kept = mech.release(random_state=np.random.default_rng(5), keep=0.0)
    assert kept.features.tobytes() == plain.features.tobytes()
    assert kept.source.tobytes() == plain.source.tobytes()


def test_pp_keeps_about_that_share_and_only_changes_sources():
    mech, X = _xobf()
    plain = mech.release(random_state=np.random.default_rng(9))
    mixed = hy.keep_own(plain, X, 0.6, np.random.default_rng(10))
    own = mixed.source == np.arange(len(X))
    changed = mixed.source != plain.source
    assert (own | ~changed).all()  # a user either keeps their own row or the drawn one
    assert 0.45 < own.mean() < 0.8
    np.testing.assert_array_equal(mixed.features, X[mixed.source])


@pytest.mark.parametrize("keep", [-0.1, 1.5, "half"])
def test_pp_rejects_non_probabilities(keep):
    mech, _ = _xobf()
    with pytest.raises((ValueError, TypeError), match="keep"):
        mech.release(random_state=np.random.default_rng(0), keep=keep)


def test_baselines_take_pp_too():
    X, y, clusters = hyobscure_population(0)
    gen = hy.band_generalization(hy.private_domain(y), [24, 28, 32])
    for mech in (hy.RandomObfuscation(p_rand=0.5), hy.PrivCheck(budget=0.3)):
        mech.fit(X, y, generalization=gen, clusters=clusters)
        release = mech.release(random_state=np.random.default_rng(0), keep=1.0)
        np.testing.assert_array_equal(release.features, X)


# ------------------------------------------------------------------------------------------------
# the cluster-mean budget (HyObscure.m)


def test_cluster_mean_loss_matches_the_authors_formula():
    # one group, three clusters, cluster 2 absent: (E_0 + E_1 + 1 nat) / 3
    counts = np.array([[3.0, 1.0], [2.0, 2.0], [0.0, 0.0]])
    labels = np.array([0, 0])
    D = np.array([[[0.2, 0.5, np.nan], [0.5, 0.1, np.nan], [np.nan, np.nan, np.nan]]])
    obf = np.array([[[0.7, 0.3, 0.0], [0.4, 0.6, 0.0], [0.0, 0.0, 1.0]]])
    e0 = 0.7 * 0.2 + 0.3 * 0.5
    e1 = 0.4 * 0.5 + 0.6 * 0.1
    want = (e0 + e1 + ABSENT_CLUSTER_COST) / 3
    got = expected_distance(counts, labels, obf, D, "cluster_mean")
    assert got == pytest.approx([want])
    assert pytest.approx(1 / math.log(2)) == ABSENT_CLUSTER_COST


@pytest.mark.parametrize("seed", range(3))
def test_cluster_mean_budget_holds_and_binds(seed):
    gen, counts, _, model = _fitted_state(seed)
    D = model.all_groups(gen.labels)
    floor = np.max(
        expected_distance(
            counts,
            gen.labels,
            np.broadcast_to(np.eye(3), (gen.n_groups, 3, 3)).copy(),
            D,
            "cluster_mean",
        )
    )
    budget = floor + 0.05
    mappings, _ = hy.solve_obfuscation(counts, gen.labels, D, budget, scope="cluster_mean")
    loss = expected_distance(counts, gen.labels, mappings, D, "cluster_mean")
    assert (loss <= budget).all()
    np.testing.assert_allclose(mappings.sum(axis=2), 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="below the smallest achievable"):
        hy.solve_obfuscation(counts, gen.labels, D, 0.01, scope="cluster_mean")


# ------------------------------------------------------------------------------------------------
# the authors' utility metric


def test_cf_rmse_zero_counts_unpredictable_entries():
    known_train = np.array([[1.0, 0.0], [0.0, 1.0]])
    known_test = np.array([[1.0, 0.0]])
    held_train = np.array([[4.0, 0.0], [0.0, 0.0]])
    held_test = np.array([[5.0, 3.0]])  # item 1: no neighbour rated it
    # item 0 is predicted from neighbour 0 only (similarity 1): 4
    assert cf_rmse(known_train, known_test, held_train, held_test) == pytest.approx(1.0)
    zero = cf_rmse(known_train, known_test, held_train, held_test, unpredicted="zero")
    assert zero == pytest.approx(math.sqrt((1.0 + 9.0) / 2))
    with pytest.raises(ValueError, match="unpredicted"):
        cf_rmse(known_train, known_test, held_train, held_test, unpredicted="drop")


# ------------------------------------------------------------------------------------------------
# the experiment: protocols and the decomposition


def _toy_population():
    X, y, _ = hyobscure_population(3, n=240, n_values=33, m=40)
    y = y - 20 + 18  # ages 18-50
    return hx.data.Population("movielens", X, y, "interval", "regression", "rmse")


def test_protocols_are_named_and_checked():
    pop = _toy_population()
    with pytest.raises(ValueError, match="protocol must be one of"):
        hx.run._config(pop, {"protocol": "theirs"})
    four = hx.data.Population("foursquare", pop.X, pop.y, "grid", "classification", "map")
    assert hx.run._config(four, {"protocol": "authors"})["areas"] == 4
    assert hx.run._config(pop, {"protocol": "authors"})["g_step"] == "greedy"
    assert hx.run._config(pop, {"protocol": "authors", "k": 7})["k"] == 7
    assert hx.run._config(pop, None)["protocol"] == "paper"


#: the attack these runs score: the random forest in Scenario I
ATTACK = {"model": "rf", "scenario": "sI"}


def _privacy(frame):
    """Which rows are the privacy of :data:`ATTACK`."""
    return (
        (frame["metric"] == "privacy")
        & (frame["model"] == ATTACK["model"])
        & (frame["scenario"] == ATTACK["scenario"])
    )


@pytest.fixture(scope="module")
def authors_run():
    pop = _toy_population()
    overrides = {"protocol": "authors", "k": 10, "n_clusters": 3, "n_estimators": 10}
    knobs = {"HyObscure": [[0.6, 1.0], [0.6, 0.0]], "Random": [0.3]}
    return hx.run.tradeoff(
        pop,
        [0],
        knobs,
        n_draws=1,
        overrides=overrides,
        models=("rf",),
        scenarios=("I",),
        decompose=True,
    )


def test_pp_one_point_is_the_generalization_only_point(authors_run):
    """At pp = 1 HyObscure publishes the unobscured features under its final groups: exactly
    what the GenOnly row attacks."""
    fr = authors_run
    pick = fr[(fr["budget"] == 0.6) & (fr["pp"] == 1) & _privacy(fr)]
    hy_value = pick[pick["method"] == "HyObscure"]["value"].item()
    alone = pick[pick["method"] == "GenOnly"]["value"].item()
    assert hy_value == alone


def test_decomposition_adds_up(authors_run):
    dec = hx.claims.decomposition(authors_run)
    # one row per point, its parameters as columns (as typed in the tidy rows) and as a label
    assert list(dec.columns[:4]) == ["seed", "budget", "pp", "point"]
    assert sorted(zip(dec["budget"], dec["pp"], strict=True)) == [(0.6, 0.0), (0.6, 1.0)]
    assert set(dec["point"]) == {"budget = 0.6, pp = 1", "budget = 0.6, pp = 0"}
    np.testing.assert_allclose(dec["generalization"] + dec["obfuscation"], dec["total"])
    fr = authors_run
    ref = fr[(fr["method"] == "Original") & _privacy(fr)]["value"].item()
    row = dec[dec["pp"] == 0].iloc[0]
    hy_value = fr[(fr["method"] == "HyObscure") & (fr["pp"] == 0) & _privacy(fr)]["value"].item()
    assert row["total"] == pytest.approx(hy_value - ref)
    assert row["total_pct"] == pytest.approx(100 * (hy_value - ref) / ref)
    assert row["table2_met"] in (0.0, 1.0)
    # pp = 1 has no obfuscation share at all
    assert dec[dec["pp"] == 1]["obfuscation"].item() == 0.0


def test_decomposition_needs_genonly_rows():
    frame = tidy_frame(
        tidy_rows("tradeoff", "Original", {"privacy": 1.0}, seed=0, facets=ATTACK)
        + tidy_rows(
            "tradeoff",
            "HyObscure",
            {"privacy": 1.1},
            parameters={"budget": 0.1},
            seed=0,
            facets=ATTACK,
        )
    )
    with pytest.raises(ValueError, match="decompose=True"):
        hx.claims.decomposition(frame)


def test_protocol_population_drops_one_cluster_then_thin_values():
    from sklearn.cluster import AgglomerativeClustering

    pop = _toy_population()
    cfg = {"cluster_on": "hierarchical", "n_clusters": 4, "drop_cluster": 1, "min_value_users": 3}
    out = hx.data.protocol_population(pop, cfg)
    labels = (
        AgglomerativeClustering(n_clusters=4, metric="cosine", linkage="complete")
        .fit(pop.X)
        .labels_
    )
    dropped = {tuple(row) for row in pop.X[labels == 1]}
    assert not any(tuple(row) in dropped for row in out.X)
    _, counts = np.unique(out.y, return_counts=True)
    assert counts.min() >= 3
    assert sorted(set(out.clusters)) == [0, 1, 2]
    assert len(out.y) == len(out.X) == len(out.clusters) < len(pop.y)
    assert hx.data.protocol_population(pop, {"cluster_on": "known"}) is pop
    with pytest.raises(ValueError, match="cluster_on must be"):
        hx.data.protocol_population(pop, {"cluster_on": "dbscan", "n_clusters": 3})


def test_split_within_values_halves_every_value():
    pop = _toy_population()
    split = hx.data.make_split(pop, 0, 3, split_by="value")
    for value in np.unique(pop.y):
        a = int((pop.y[split.attacker] == value).sum())
        p = int((pop.y[split.published] == value).sum())
        assert p - a in (0, 1)
    with pytest.raises(ValueError, match="split_by"):
        hx.data.make_split(pop, 0, 3, split_by="age")


def test_feasible_seeds_names_the_budget_when_none_is_feasible():
    pop = _toy_population()
    overrides = {"protocol": "authors", "k": 10, "n_clusters": 3}
    with pytest.raises(ValueError, match=r"only 0 of the seeds 0-1 are feasible at budget=0\.01"):
        hx.run.feasible_seeds(pop, 1, 0.01, overrides=overrides, max_seed=2)
    seeds, skipped = hx.run.feasible_seeds(pop, 2, 0.9, overrides=overrides)
    assert seeds == [0, 1] and skipped == []


def test_a_move_that_leaves_no_mapping_within_budget_is_undone(monkeypatch):
    """Under the cluster-mean budget a group that loses clusters can need more than the budget;
    the fit then keeps the groups and mapping from before that move."""
    from ppdp.mechanisms.hyobscure import estimators
    from ppdp.mechanisms.hyobscure.leakage import _min_budget

    X, y, clusters = hyobscure_population(2, n=300)
    clusters = np.where(y == 20, 0, clusters)  # the youngest users all in one cluster
    domain = hy.private_domain(y)
    gen0 = hy.band_generalization(domain, [24, 28, 32])
    idx = domain.index(y)
    counts = cluster_value_counts(clusters, idx, 3, len(domain.values))
    model = DistanceModel(X, clusters, idx, 3, len(domain.values), "mean_pairwise_js")

    def floor(labels):
        K = int(labels.max()) + 1
        pcg = np.stack([counts[:, labels == g].sum(axis=1) for g in range(K)]) / counts.sum()
        return float(np.max(_min_budget(pcg, model.all_groups(labels), "cluster_mean")))

    # the move: the youngest age alone stays in group 0, where two of three clusters are absent
    bad = np.r_[0, np.ones(7, dtype=np.int64), np.full(4, 2), np.full(4, 3)]
    assert len(bad) == len(domain.values)
    budget = floor(gen0.labels) + 0.01
    assert floor(bad) > budget

    def fake_move(gen, *args, **kwargs):
        record = {"values": [20], "leakage": 0.0, "utility_loss": 0.0}
        return hy.Generalization(domain=gen.domain, labels=bad), [record]

    monkeypatch.setattr(estimators, "greedy_generalization", fake_move)
    mech = _greedy_hyobscure(k=1, l=1, budget=budget, max_iter=5)
    mech.fit(X, y, random_state=np.random.default_rng(0), clusters=clusters, generalization=gen0)
    assert mech.history_[-1]["phase"] == "undo"
    np.testing.assert_array_equal(mech.generalization_.labels, gen0.labels)
    assert all(check.holds for check in mech.guarantee_checks())


def test_scenario_one_attack_is_shared_by_points_with_the_same_groups():
    """The shared fit scores exactly as a fresh one, and only equal groups share it."""
    from ppdp.attacks.inference import InferenceAttack

    pop = _toy_population()
    ctx = hx.run._Context(
        pop, 0, hx.run._config(pop, {"n_clusters": 3, "n_estimators": 5, "k": 10})
    )
    cfg = ctx.cfg
    gen0 = ctx.gen0(cfg["n_groups"], cfg["k"], cfg["alpha"], cfg["l"], cfg["beta"])
    kw = {"model": "rf", "task": pop.task, "random_state": 0, "n_estimators": 5}
    groups = gen0.transform_nearest(ctx.ya)
    shared = ctx.scenario_one_attack(kw, groups)
    assert ctx.scenario_one_attack(kw, groups.copy()) is shared
    fresh = InferenceAttack(**kw).fit(ctx.Xa, groups, ctx.ya)
    gp = gen0.transform(ctx.yp)
    np.testing.assert_array_equal(shared.predict(ctx.Xp, gp), fresh.predict(ctx.Xp, gp))
    other = np.where(groups == groups.max(), groups.min(), groups)
    assert ctx.scenario_one_attack(kw, other) is not shared
    assert ctx.scenario_one_attack({**kw, "model": "xgb"}, groups) is not shared


def test_kmeans_clusters_are_redrawn_for_every_seed():
    """Under ``cluster_on="kmeans_all"`` each seed clusters all users from its own k-means start
    (so an interval over seeds covers the clustering); the hierarchical clustering has no random
    choice and serves every seed."""
    from ppdp.mechanisms.hyobscure.leakage import cluster_users

    pop = _toy_population()
    cfg = {"cluster_on": "kmeans_all", "n_clusters": 6, "kmeans_n_init": 1}
    by_seed = {seed: hx.data.protocol_population(pop, cfg, seed).clusters for seed in range(6)}
    for seed, clusters in by_seed.items():
        rng = np.random.default_rng(np.random.SeedSequence([seed, 303]))
        np.testing.assert_array_equal(clusters, cluster_users(pop.X, 6, rng, n_init=1))
    assert len({c.tobytes() for c in by_seed.values()}) > 1
    np.testing.assert_array_equal(hx.data.protocol_population(pop, cfg, 2).clusters, by_seed[2])
    tree = {"cluster_on": "hierarchical", "n_clusters": 4}
    assert hx.data.protocol_population(pop, tree, 0) is hx.data.protocol_population(pop, tree, 5)


# ------------------------------------------------------------------------------------------------
# the authors' protocol point by point (their main.py / funcs.py / obfuscations.py)


def test_decomposition_in_both_orders_and_the_final_reference(authors_run):
    """Obfuscation first credits XObf's gain (ObfOnly) and leaves the rest to regrouping; the
    authors' reference point is GenOnly, the unobscured features under the final groups."""
    fr = authors_run
    dec = hx.claims.decomposition(fr)

    def at(row):
        return fr[(fr["budget"] == row["budget"]) & (fr["pp"] == row["pp"])]

    def value(method, row):
        pick = at(row)
        pick = pick[(pick["method"] == method) & _privacy(pick)]
        return pick["value"].item()

    ref = fr[(fr["method"] == "Original") & _privacy(fr)]["value"].item()
    assert len(dec) == 2
    for _, row in dec.iterrows():
        hy_value, gen, obf = (value(m, row) for m in ("HyObscure", "GenOnly", "ObfOnly"))
        # ObfOnly is XObf at the same knob and pp, drawn the same way
        knob_pp = at(row)[at(row)["method"] == "ObfOnly"]
        facets = knob_pp[["model", "scenario"]].fillna("")
        measured = zip(knob_pp["metric"], facets["model"], facets["scenario"], strict=True)
        assert sorted(measured) == [("privacy", "rf", "sI"), ("utility_loss", "", "")]
        assert row["obfuscation_alone"] == pytest.approx(obf - ref)
        assert row["regrouping_after"] == pytest.approx(hy_value - obf)
        assert row["obfuscation_alone"] + row["regrouping_after"] == pytest.approx(row["total"])
        assert row["final_reference_pct"] == pytest.approx(100 * (hy_value - gen) / gen)


def test_obfonly_is_xobf_at_the_same_point():
    pop = _toy_population()
    overrides = {"protocol": "authors", "k": 10, "n_clusters": 3, "n_estimators": 10}
    knobs = {"HyObscure": [[0.6, 0.5]], "XObf": [[0.6, 0.5]]}
    fr = hx.run.tradeoff(
        pop,
        [0],
        knobs,
        n_draws=2,
        overrides=overrides,
        models=("rf",),
        scenarios=("I",),
        decompose=True,
    )
    pick = fr[_privacy(fr) | (fr["metric"] == "utility_loss")]
    xobf = pick[pick["method"] == "XObf"].set_index("metric")["value"]
    alone = pick[pick["method"] == "ObfOnly"].set_index("metric")["value"]
    pd.testing.assert_series_equal(xobf.sort_index(), alone.sort_index())


def _fig3a_frame(hyobscure, genonly, obfonly, original=(1.0, 10.0)):
    """A tradeoff frame of one seed: (utility loss, privacy) per point of each method."""
    points = [("Original", {}, *original)]
    for method, curve in (("HyObscure", hyobscure), ("GenOnly", genonly), ("ObfOnly", obfonly)):
        points += [(method, {"budget": 0.48, "pp": pp}, u, p) for pp, (u, p) in curve.items()]
    points += [("Random", {"p_rand": 0.1}, 1.001, 10.01), ("Random", {"p_rand": 0.2}, 1.01, 10.05)]
    rows = []
    for method, params, u, p in points:
        rows += tidy_rows("tradeoff", method, {"utility_loss": u}, parameters=params, seed=0)
        rows += tidy_rows(
            "tradeoff", method, {"privacy": p}, parameters=params, seed=0, facets=ATTACK
        )
    return tidy_frame(rows)


def test_fig3a_under_both_reference_points_against_a_direct_reading():
    """The gain at 0.2% RMSE loss read against the starting groups and against the final groups
    (the authors' "ori"), each interpolated from (0, 0) through the points, and the regrouping's
    share in both orders."""
    hyo = {0.8: (1.004, 11.0), 0.0: (1.01, 12.0)}  # +0.4% / +1% utility; +10% / +20% privacy
    gen = {0.8: (1.0, 10.8), 0.0: (1.0, 10.8)}  # final groups, nobody obfuscated
    obf = {0.8: (1.004, 10.1), 0.0: (1.01, 10.4)}
    rows = hx.claims.claims(_fig3a_frame(hyo, gen, obf), "movielens", protocol="authors")
    claim_rows = with_parameters(rows[rows["experiment"] == "claims"], ["reference", "order"])

    def got(claim, reference=None, order=None):
        """The claim's value at that setting (None: the parameter is missing)."""
        pick = claim_rows[claim_rows["metric"] == claim]
        for key, want in (("reference", reference), ("order", order)):
            pick = pick[pick[key].isna() if want is None else pick[key] == want]
        return pick["value"].item()

    prefix = "hyobscure.movielens_authors_"
    # against the starting groups: (0, 0) -> (0.4, 10): 5% at 0.2
    assert got(prefix + "fig3a_mae_gain") == pytest.approx(5.0)
    # against the final groups: (0, 0) -> (0.4, 100 * (11 - 10.8) / 10.8)
    assert got(prefix + "fig3a_mae_gain.across", reference="final_groups") == pytest.approx(
        0.5 * 100 * 0.2 / 10.8
    )
    # regrouping first: GenOnly's 8% of the 5% read at 0.2 (4%) -> 80%
    assert got(prefix + "fig3a_generalization_share") == pytest.approx(80.0)
    # obfuscation first: ObfOnly's 1% at 0.4 -> 0.5% at 0.2, regrouping the other 4.5 of 5
    share = got(prefix + "fig3a_generalization_share.across", order="obfuscation_first")
    assert share == pytest.approx(90.0)
    context = rows[rows["experiment"] == "claim_context"].set_index("metric")["value"]
    assert context[prefix + "fig3a_lowest_point_utility_change"] == pytest.approx(0.4)
    assert context[prefix + "fig3a_lowest_point_mae_gain"] == pytest.approx(10.0)
    assert context[prefix + "fig3a_lowest_point_mae_gain_final_reference"] == pytest.approx(
        100 * 0.2 / 10.8
    )
    # the paper's protocol writes neither reading of the authors'
    paper = hx.claims.claims(_fig3a_frame(hyo, gen, obf), "movielens")
    assert not paper["metric"].str.contains(r"\.across").any()


def _config_blocks(name):
    import yaml

    root = Path(__file__).resolve().parents[1]
    runs = yaml.safe_load((root / "config" / f"{name}.yaml").read_text())["runs"]
    return {k: v["parameters"] for k, v in runs.items() if k.startswith("hyobscure_")}


@pytest.mark.parametrize("profile", ["default", "paper", "smoke"])
def test_authors_runs_use_only_their_pp_lists(profile):
    """Their main.py: HyObscure pp_list [0.8, 0.7, 0.5, 0.3, 0.2, 0] at deltaX 0.48 and deltaX
    [0.5, 0.56] at pp 0 (MovieLens); pp_list [0.9 ... 0.2] at deltaX 0.6 (Foursquare); no
    pp = 1 point, which would anchor the curve at zero utility loss."""
    theirs = {
        "movielens": {(0.48, pp) for pp in (0.8, 0.7, 0.5, 0.3, 0.2, 0)} | {(0.5, 0), (0.56, 0)},
        "foursquare": {(0.6, pp / 10) for pp in range(2, 10)},
    }
    for name, params in _config_blocks(profile).items():
        if params.get("protocol") != "authors":
            continue
        for method, values in params["knobs"].items():
            pairs = [v for v in values if isinstance(v, list)]
            assert all(pp < 1 for _, pp in pairs), (name, method)
        points = {tuple(v) for v in params["knobs"]["HyObscure"]}
        assert points <= theirs[params["dataset"]], name
        if profile != "smoke":
            assert points == theirs[params["dataset"]], name


@pytest.mark.parametrize("profile", ["default", "paper"])
def test_authors_runs_use_their_trees_and_draws(profile):
    """Their funcs.train_rf_model: 100 trees; main.py: 100 draws (MovieLens), 50 (Foursquare)."""
    for name, params in _config_blocks(profile).items():
        if params.get("protocol") != "authors":
            continue
        assert params["n_estimators"] == 100, name
        assert params["n_draws"] == {"movielens": 100, "foursquare": 50}[params["dataset"]], name


def test_authors_movie_filter_is_their_item_user_selection():
    """Movies rated by users of at least 2 distinct ages among all 943 users (their
    item_user_selection counts nonzero rows of the per-age sums plus their sum row, < 3 dropped),
    counted here directly from the raw ratings; the users are the 802 aged 18 to 50."""
    from ppdp import datasets

    ml = datasets.load_movielens_100k()
    age = dict(zip(ml.users["user_id"], ml.users["age"], strict=True))
    ages_of = {}
    for user, item in zip(ml.ratings["user_id"], ml.ratings["item_id"], strict=True):
        ages_of.setdefault(item, set()).add(age[user])
    theirs = sorted(item for item, ages in ages_of.items() if len(ages) >= 2)
    pop = hx.data.load_population("movielens", "authors")
    assert pop.X.shape == (802, len(theirs)) == (802, 1538)
    assert ((pop.y >= 18) & (pop.y <= 50)).all()
    paper = hx.data.load_population("movielens")
    assert paper.X.shape == (802, 1445)
    np.testing.assert_array_equal(paper.y, pop.y)


def test_authors_count_k_and_l_on_every_user():
    """Their age_group_adjust_greedy(df_item_age_uid, ..., k_threshold=100, log(4)) counts all
    users, attackers included; the fitted HyObscure counts the same users."""
    pop = _toy_population()
    cfg = hx.run._config(pop, {"protocol": "authors", "k": 10, "n_clusters": 3})
    assert hx.run.AUTHORS_DEFAULTS["movielens"]["k"] == 100
    assert hx.run.AUTHORS_DEFAULTS["movielens"]["l"] == 4
    assert cfg["constraints_on"] == "population"
    ctx = hx.run._Context(pop, 0, cfg)
    np.testing.assert_array_equal(ctx.population, ctx.pop.y)
    scores = hx.run.run_point(ctx, "HyObscure", 0.6, cfg, 1, ("rf",), ("I",))
    assert list(scores.privacy) == [("rf", "sI")] and "utility_loss" in scores.metrics
    (mech,) = [m for key, m in ctx._fits.items() if key[0] == "HyObscure"]
    domain = mech.generalization_.domain
    direct = np.array([(ctx.pop.y == v).sum() for v in domain.values])
    np.testing.assert_array_equal(mech.value_counts_, direct)
    assert direct.sum() == len(pop.y) > len(ctx.yp)
    four = hx.data.Population("foursquare", pop.X, pop.y, "grid", "classification", "map")
    assert hx.run._config(four, {"protocol": "authors"})["constraints_on"] == "published"


def test_authors_score_reads_the_mapping_transposed_unless_fixed():
    pop = _toy_population()
    cfg = hx.run._config(pop, {"protocol": "authors"})
    assert cfg["greedy_score"] == "transposed"
    assert hx.run._build("HyObscure", 0.5, cfg).greedy_score == "transposed"
    fixed = hx.run._config(pop, {"protocol": "authors", "greedy_score": "leakage"})
    assert hx.run._build("HyObscure", 0.5, fixed).greedy_score == "leakage"


def test_scaling_keeps_the_fastest_of_identical_repeats(monkeypatch):
    """Fig. 10's timing: every repeat computes the same fit (same seed), the fastest is kept, and a
    size whose run is already slow is timed once."""
    pop = _toy_population()
    calls = []
    clock = iter([0.0, 1.0, 1.0, 1.0, 1.0] + [10.0, 10.5, 10.5, 10.5, 10.5] + [20.0] * 5)
    real = hx.sweeps._time_one_fit

    def counted(*args):
        calls.append(args[3])
        return real(*args)

    monkeypatch.setattr(hx.sweeps, "_time_one_fit", counted)
    monkeypatch.setattr(hx.sweeps.time, "perf_counter", lambda: next(clock))
    frame = hx.sweeps.scaling(pop, 0, [120], 0.5, overrides={"n_clusters": 3}, repeats=3)
    total = frame[frame["metric"] == "seconds_total"]["value"].to_numpy()
    # three repeats of 1.0 s, 0.5 s and 0.0 s: the fastest is the last
    assert calls == [120, 120, 120] and total.tolist() == [0.0]
    calls.clear()
    clock = iter([0.0, 9.0, 9.0, 9.0, 9.0])
    monkeypatch.setattr(hx.sweeps.time, "perf_counter", lambda: next(clock))
    hx.sweeps.scaling(
        pop, 0, [120], 0.5, overrides={"n_clusters": 3}, repeats=3, repeat_below_seconds=5
    )
    assert calls == [120]
    with pytest.raises(ValueError, match="repeats must be"):
        hx.sweeps.scaling(pop, 0, [120], 0.5, repeats=0)
