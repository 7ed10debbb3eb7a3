"""The authors' greedy G-step: its transposed privacy score (their ``funcs.Mean_KL_div``) and
k and the entropy l counted on a whole population (their MovieLens code counts all users)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from populations import hyobscure_population
from ppdp.guarantees import GuaranteeViolation
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure.boosting import greedy_candidates
from ppdp.mechanisms.hyobscure.leakage import (
    DistanceModel,
    cluster_value_counts,
    expected_distance,
    transposed_leakage,
)

# ------------------------------------------------------------------------------------------------
# the authors' score, transcribed


def _authors_tables(counts_cy, labels, mappings):
    """Their ``pgy`` (ages x cells) and block-diagonal ``xpgg`` (cells x cells), cell
    ``g + c * K``, built with loops as their ``obfuscations.HyObscure`` fills them.

    ``xpgg[to, from]``: their release draws a user's new cell from column ``from``
    (``funcs.get_obf_X``), so ``xpgg[g + c^ K, g + c K] = mappings[g, c, c^]``."""
    C, V = counts_cy.shape
    K = mappings.shape[0]
    total = counts_cy.sum()
    pgy = np.zeros((V, K * C))
    for age in range(V):
        ag = labels[age]
        for c in range(C):
            pgy[age, ag + c * K] = counts_cy[c, age] / total
    xpgg = np.zeros((K * C, K * C))
    for ag in range(K):
        for row in range(C):
            for col in range(C):
                xpgg[ag + col * K, ag + row * K] = mappings[ag, row, col]
    return pgy, xpgg


def _mean_kl_div(pgy, X):
    """``funcs.Mean_KL_div`` and ``funcs.KL_div`` line by line, with 0 log 0 = 0."""
    pg = pgy.sum(axis=1).reshape(pgy.shape[0], 1)
    pyhat = np.dot(pgy.sum(axis=0), X).reshape(pgy.shape[1], 1)
    pgyhat = np.dot(pgy, X)
    Y = np.dot(pg, pyhat.T)
    with np.errstate(divide="ignore", invalid="ignore"):
        xlogx = np.where(pgyhat > 0, pgyhat * np.log(pgyhat / Y), 0.0)
    kl = xlogx - pgyhat + Y
    return np.sum(kl) / np.log(2)


def _authors_score(counts_cy, labels, mappings):
    return _mean_kl_div(*_authors_tables(counts_cy, labels, mappings))


def _instance(rng, C, sizes, zero_share):
    """Counts with some empty (cluster, value) cells and row-stochastic mappings with zeros."""
    K = len(sizes)
    labels = np.repeat(np.arange(K), sizes)
    counts = rng.integers(0, 6, (C, len(labels))).astype(float)
    counts[rng.random(counts.shape) < zero_share] = 0.0
    if counts.sum() == 0:
        counts[0, 0] = 1.0
    mappings = rng.dirichlet(np.ones(C), (K, C))
    mappings[rng.random(mappings.shape) < zero_share] = 0.0
    for g, c in itertools.product(range(K), range(C)):
        if mappings[g, c].sum() == 0:
            mappings[g, c, rng.integers(C)] = 1.0
    return counts, labels, mappings / mappings.sum(axis=2, keepdims=True)


def _doubly_stochastic(rng, K, C):
    """Convex mixtures of permutation matrices (Birkhoff), one per group."""
    perms = [np.eye(C)[list(p)] for p in itertools.permutations(range(C))]
    weights = rng.dirichlet(np.ones(len(perms)), K)
    return np.einsum("kp,pij->kij", weights, np.stack(perms))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    C=st.integers(1, 4),
    sizes=st.lists(st.integers(1, 3), min_size=1, max_size=3),
    zero_share=st.sampled_from([0.0, 0.3, 0.6]),
    seed=st.integers(0, 10_000),
)
def test_transposed_leakage_is_the_authors_mean_kl_div(C, sizes, zero_share, seed):
    counts, labels, mappings = _instance(np.random.default_rng(seed), C, sizes, zero_share)
    got = transposed_leakage(counts, labels, mappings)
    assert got == pytest.approx(_authors_score(counts, labels, mappings), rel=1e-10, abs=1e-12)
    # a mean of KL divergences: non-negative up to the rounding of its sum (a zero mean can come
    # out as -1e-17)
    assert got >= -1e-12


@settings(max_examples=40, deadline=None)
@given(
    C=st.integers(1, 4),
    sizes=st.lists(st.integers(1, 3), min_size=1, max_size=3),
    seed=st.integers(0, 10_000),
)
def test_doubly_stochastic_mappings_make_it_a_leakage(C, sizes, seed):
    """Through a doubly stochastic M the score is the leakage of the channel M^T; for a
    symmetric M (and for permutations) it is the leakage of M itself."""
    rng = np.random.default_rng(seed)
    counts, labels, _ = _instance(rng, C, sizes, 0.3)
    K = len(sizes)
    M = _doubly_stochastic(rng, K, C)
    assert transposed_leakage(counts, labels, M) == pytest.approx(
        hy.hybrid_leakage(counts, labels, M.transpose(0, 2, 1)), rel=1e-9, abs=1e-12
    )
    S = (M + M.transpose(0, 2, 1)) / 2
    assert transposed_leakage(counts, labels, S) == pytest.approx(
        hy.hybrid_leakage(counts, labels, S), rel=1e-9, abs=1e-12
    )
    P = np.stack([np.eye(C)[rng.permutation(C)] for _ in range(K)])
    assert transposed_leakage(counts, labels, P) == pytest.approx(
        hy.hybrid_leakage(counts, labels, P), rel=1e-9, abs=1e-12
    )


def test_a_non_symmetric_mapping_scores_differently_worked_example():
    # two users: y=0 in cluster 0, y=1 in cluster 1; one group. Cluster 0 keeps its cell,
    # cluster 1 is published as 0 or 1 with probability 1/2.
    counts = np.array([[1.0, 0.0], [0.0, 1.0]])
    labels = np.array([0, 0])
    M = np.array([[[1.0, 0.0], [0.5, 0.5]]])
    # I(Y; C^) of M: H(C^) = H(3/4, 1/4), H(C^ | Y) = 1/2
    leak = 2 - 0.75 * math.log2(3) - 0.5
    assert hy.hybrid_leakage(counts, labels, M) == pytest.approx(leak, abs=1e-12)
    # through M^T: q(0, 0) = 1/2, q(0, 1) = 1/4, q(1, 1) = 1/4, p(y) = q(c^) = 1/2 each:
    # 1/2 log2(2) + 0 + 0
    assert transposed_leakage(counts, labels, M) == pytest.approx(0.5, abs=1e-12)
    assert _authors_score(counts, labels, M) == pytest.approx(0.5, abs=1e-12)


def test_the_authors_floors_change_the_score_by_little():
    """Their ``pgy`` starts at 1e-8 and their ``xpgg`` at 1e-8 off the group blocks; without
    these floors the score moves by about 1e-5 bits here."""
    counts, labels, mappings = _instance(np.random.default_rng(3), 3, [3, 2, 3], 0.3)
    pgy, xpgg = _authors_tables(counts, labels, mappings)
    floored = _mean_kl_div(np.where(pgy == 0, 1e-8, pgy), np.where(xpgg == 0, 1e-8, xpgg))
    assert transposed_leakage(counts, labels, mappings) == pytest.approx(floored, abs=1e-4)


def test_transposed_leakage_rejects_bad_shapes():
    counts, labels, mappings = _instance(np.random.default_rng(0), 3, [2, 2], 0.0)
    with pytest.raises(ValueError, match=r"mappings must have shape"):
        transposed_leakage(counts, labels, mappings[:1])
    with pytest.raises(ValueError, match="at least one user"):
        transposed_leakage(np.zeros_like(counts), labels, mappings)


# ------------------------------------------------------------------------------------------------
# the greedy G-step under either score


def _state(seed, n=160):
    """Four age bands, centroid distances and random (non-symmetric) mappings."""
    X, y, clusters = hyobscure_population(seed, n=n)
    domain = hy.private_domain(y)
    gen = hy.band_generalization(domain, [24, 28, 32])
    idx = domain.index(y)
    C = int(clusters.max()) + 1
    counts = cluster_value_counts(clusters, idx, C, len(domain.values))
    model = DistanceModel(X, clusters, idx, C, len(domain.values), "centroid_js")
    mappings = np.random.default_rng(seed).dirichlet(np.ones(C), (gen.n_groups, C))
    return gen, counts, mappings, model


_SCORERS = {"transposed": _authors_score, "leakage": hy.hybrid_leakage}


def _brute_force(labels, candidates, counts, mappings, model, score):
    """Walk the candidates in order; one replaces the incumbent when its loss and its score are
    both strictly below the incumbent's. Returns the labels and the incumbent's score."""

    def loss(lab):
        return np.mean(expected_distance(counts, lab, mappings, model.all_groups(lab), "global"))

    scorer = _SCORERS[score]
    best, best_leak, best_loss = labels, scorer(counts, labels, mappings), loss(labels)
    for cand in candidates:
        leak, cand_loss = scorer(counts, cand, mappings), loss(cand)
        if leak < best_leak and cand_loss < best_loss:
            best, best_leak, best_loss = cand, leak, cand_loss
    return best, best_leak


def test_greedy_step_follows_the_chosen_score():
    differ = 0
    for seed in range(12):
        gen, counts, mappings, model = _state(seed)
        cands = greedy_candidates(gen.labels, counts.sum(axis=0), 10, 2)
        chosen = {}
        for score in ("transposed", "leakage"):
            new, records = hy.greedy_generalization(
                gen, counts, mappings, model, 10, 2, score=score
            )
            want, want_I = _brute_force(gen.labels, cands, counts, mappings, model, score)
            np.testing.assert_array_equal(new.labels, want)
            if records:
                assert records[0]["leakage"] == pytest.approx(want_I, rel=1e-10)
            else:
                assert new is gen
            chosen[score] = new.labels
        differ += not np.array_equal(chosen["transposed"], chosen["leakage"])
    # the two readings of the mapping pick different moves on some of these populations
    assert differ >= 2


def test_greedy_steps_reject_an_unknown_score():
    gen, counts, mappings, model = _state(0)
    with pytest.raises(ValueError, match=r"'score'.*greedy_generalization.*'transposed'"):
        hy.greedy_generalization(gen, counts, mappings, model, 10, 2, score="kl")
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 6, 80) * 60 + rng.integers(0, 6, 80)
    areas = hy.area_generalization(hy.private_domain(cells, "grid"), 4)
    with pytest.raises(ValueError, match=r"'score'.*greedy_area_generalization"):
        hy.greedy_area_generalization(areas, counts, mappings, model, 10, 2, rng, score="kl")


@pytest.mark.parametrize("score", ["transposed", "leakage"])
def test_area_step_records_carry_the_chosen_score(score):
    """Replaying the area moves: every record holds the score of the areas after the move, each
    strictly below the one before."""
    rng = np.random.default_rng(4)
    n = 240
    rows, cols = rng.integers(0, 6, n), rng.integers(0, 6, n)
    cells = rows * 60 + cols
    clusters = rng.integers(0, 3, n)
    X = rng.poisson(rng.gamma(1.0, 1.0, (3, 12))[clusters] * (1 + (rows[:, None] > 2))) + 1.0
    gen = hy.area_generalization(hy.private_domain(cells, "grid"), 4)
    idx = gen.domain.index(cells)
    counts = cluster_value_counts(clusters, idx, 3, len(gen.domain.values))
    model = DistanceModel(X, clusters, idx, 3, len(gen.domain.values), "centroid_js")
    mappings = np.random.default_rng(1).dirichlet(np.ones(3), (4, 3))
    moved = 0
    for seed in range(4):
        new, records = hy.greedy_area_generalization(
            gen, counts, mappings, model, 10, 2, np.random.default_rng(seed), score=score
        )
        labels = gen.labels.copy()
        before = _SCORERS[score](counts, labels, mappings)
        for rec in records:
            labels[np.isin(gen.domain.values, rec["values"])] = rec["to"]
            after = _SCORERS[score](counts, labels, mappings)
            assert rec["leakage"] == pytest.approx(after, rel=1e-10)
            assert after < before
            before = after
        np.testing.assert_array_equal(new.labels, labels)
        moved += len(records)
    assert moved


# ------------------------------------------------------------------------------------------------
# k and l counted on the population


def _authors_candidates(labels, value_counts, k, l):  # noqa: E741
    """``funcs.age_group_adjust_greedy`` with ``reducible_scale``, on dicts of value lists, groups
    numbered from the lowest values up; ``k_anonymity`` and ``l_diversity`` read
    ``value_counts``."""
    K = int(labels.max()) + 1
    group_values = {g: [int(v) for v in np.flatnonzero(labels == g)] for g in range(K)}

    def users(vals):
        return sum(value_counts[v] for v in vals)

    def reducible_scale(vals):
        p = np.array([value_counts[v] for v in vals], dtype=float)
        p = p / p.sum()
        h = -sum(x * math.log(x) for x in p if x > 0)
        reach = int(np.exp(h) - np.exp(np.log(l)))
        left = right = reach
        while left > 0 and users(vals[left:]) < k:
            left -= 1
        while right > 0 and users(vals[:-right]) < k:
            right -= 1
        return left, right

    out = []
    for g in range(K):
        left, right = reducible_scale(group_values[g])
        moves = []
        if g < K - 1:
            moves += [(group_values[g][-r:], g + 1) for r in range(1, right + 1)]
        if g > 0:
            moves += [(group_values[g][:r], g - 1) for r in range(1, left + 1)]
        for vals, target in moves:
            cand = labels.copy()
            cand[vals] = target
            out.append(cand)
    return out


def test_population_counts_forbid_a_move_the_published_users_allow():
    gen, counts, mappings, model = _state(8)
    published = counts.sum(axis=0)
    new, records = hy.greedy_generalization(gen, counts, mappings, model, 10, 2)
    assert records  # the published users' counts allow this move
    giver = records[0]["from"]
    # the population: the published users and 300 more holding the giver's first value, which
    # leaves the giver's entropy too low to give any value away
    population = published.copy()
    population[np.flatnonzero(gen.labels == giver)[0]] += 300
    cands_pub = _authors_candidates(gen.labels, published, 10, 2)
    cands_pop = _authors_candidates(gen.labels, population, 10, 2)
    for got, want in [
        (greedy_candidates(gen.labels, published, 10, 2), cands_pub),
        (greedy_candidates(gen.labels, population, 10, 2), cands_pop),
    ]:
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)
    assert any(np.array_equal(c, new.labels) for c in cands_pub)
    assert not any(np.array_equal(c, new.labels) for c in cands_pop)
    assert not any((c != gen.labels)[gen.labels == giver].any() for c in cands_pop)
    got, recs = hy.greedy_generalization(
        gen, counts, mappings, model, 10, 2, value_counts=population
    )
    want, want_I = _brute_force(gen.labels, cands_pop, counts, mappings, model, "transposed")
    np.testing.assert_array_equal(got.labels, want)
    assert not np.array_equal(got.labels, new.labels)
    if recs:
        assert recs[0]["leakage"] == pytest.approx(want_I, rel=1e-10)
    with pytest.raises(ValueError, match="value_counts must hold one count per value"):
        hy.greedy_generalization(gen, counts, mappings, model, 10, 2, value_counts=population[1:])


def _split_population(seed=1):
    """160 published users (ages 20-35) and 240 attackers (ages 20-37): the domain of the
    population holds two ages no published user has."""
    X, y, clusters = hyobscure_population(seed, n=160)
    rng = np.random.default_rng(seed + 50)
    attackers = rng.integers(20, 38, 240)
    population = np.r_[y, attackers]
    gen = hy.band_generalization(hy.private_domain(population), [24, 28, 32])
    return X, y, clusters, population, gen


def _authors_mech(cls=hy.HyObscure, **params):
    return cls(
        **{
            "n_groups": 4,
            "k": 60,
            "alpha": 10**6,
            "l": 2,
            "beta": 10**6,
            "n_clusters": 3,
            "budget": 1.1,
            "distance": "mean_pairwise_js",
            "budget_scope": "cluster_mean",
            "g_step": "greedy",
            "max_iter": 3,
            **params,
        }
    )


@pytest.mark.parametrize("g_step", ["greedy", "boundary"])
def test_fit_counts_k_on_the_population(g_step):
    X, y, clusters, population, gen = _split_population()
    values = gen.domain.values
    assert not np.isin(values, y).all()  # zero columns in the fitted counts
    pop_counts = np.array([(population == v).sum() for v in values], dtype=float)
    mech = _authors_mech(g_step=g_step)
    mech.fit(
        X,
        y,
        random_state=np.random.default_rng(0),
        clusters=clusters,
        generalization=gen,
        population=population,
    )
    np.testing.assert_array_equal(mech.value_counts_, pop_counts)
    assert any(rec["phase"] == "move" for rec in mech.history_)
    assert mech.counts_.shape[1] == len(values)
    assert (mech.counts_[:, ~np.isin(values, y)] == 0).all()
    checks = {c.guarantee: c for c in mech.guarantee_checks()}
    assert all(c.holds for c in checks.values())
    labels = mech.generalization_.labels
    per_group_pop = [pop_counts[labels == g].sum() for g in range(mech.generalization_.n_groups)]
    per_group_fit = [np.isin(y, values[labels == g]).sum() for g in range(len(per_group_pop))]
    k_check = checks["k-uniqueness (users per group)"]
    assert k_check.measured == min(per_group_pop) >= 60
    assert "population" in k_check.where
    assert "population" in checks["alpha-uniqueness (users per group)"].where
    assert "population" not in checks["l-variety (values per group)"].where
    # the same k counted on the published users alone fails
    assert min(per_group_fit) < 60
    with pytest.raises(GuaranteeViolation, match="k-uniqueness"):
        _authors_mech(g_step=g_step).fit(
            X, y, random_state=np.random.default_rng(0), clusters=clusters, generalization=gen
        )


def test_a_group_without_fitted_users_costs_the_absent_clusters():
    """Counted on the population, a group may hold no fitted user; under the cluster-mean budget
    each of its clusters costs one nat, so the O-problem names the budget it needs (the greedy
    fit then undoes the move) instead of failing in the solver."""
    counts = np.array([[1.0, 2.0, 0.0, 0.0], [2.0, 1.0, 0.0, 0.0]])
    labels = np.array([0, 0, 1, 1])
    D = np.zeros((2, 2, 2))
    D[1] = np.nan
    with pytest.raises(ValueError, match=r"smallest achievable expected distance 1\.4427"):
        hy.solve_obfuscation(counts, labels, D, 1.0, scope="cluster_mean")
    mappings, _ = hy.solve_obfuscation(counts, labels, D, 1.5, scope="cluster_mean")
    np.testing.assert_array_equal(mappings[1], np.eye(2))
    mappings, _ = hy.solve_obfuscation(counts, labels, D, 0.1, scope="global")
    np.testing.assert_array_equal(mappings[1], np.eye(2))


@pytest.mark.parametrize("cls", [hy.XObf, hy.YGen])
def test_variants_pass_the_population_through(cls):
    X, y, clusters, population, gen = _split_population()
    mech = _authors_mech(cls, budget=1.3)
    mech.fit(
        X,
        y,
        random_state=np.random.default_rng(0),
        clusters=clusters,
        generalization=gen,
        population=population,
    )
    want = np.array([(population == v).sum() for v in gen.domain.values], dtype=float)
    np.testing.assert_array_equal(mech.value_counts_, want)
    assert all(c.holds for c in mech.guarantee_checks())


def test_without_population_the_fitted_users_are_counted():
    X, y, clusters = hyobscure_population(1, n=160)
    gen = hy.band_generalization(hy.private_domain(y), [24, 28, 32])
    mech = _authors_mech(k=20, max_iter=1)
    mech.fit(X, y, random_state=np.random.default_rng(0), clusters=clusters, generalization=gen)
    np.testing.assert_array_equal(mech.value_counts_, mech.counts_.sum(axis=0))
    k_check = next(c for c in mech.guarantee_checks() if c.guarantee.startswith("k-"))
    assert "population" not in k_check.where


@pytest.mark.parametrize(
    ("population", "match"),
    [
        (np.r_[np.arange(20, 36), 99], r"population\[16\] = 99"),
        (np.array([], dtype=int), "population must be a non-empty"),
        (np.array([20.0, np.nan]), "population must hold an exact private value"),
        (np.array([[20, 21]]), "population must be a non-empty 1-D"),
    ],
)
def test_bad_population_is_named(population, match):
    X, y, clusters = hyobscure_population(1, n=160)
    gen = hy.band_generalization(hy.private_domain(y), [24, 28, 32])
    with pytest.raises(ValueError, match=match):
        _authors_mech(k=20).fit(
            X,
            y,
            random_state=np.random.default_rng(0),
            clusters=clusters,
            generalization=gen,
            population=population,
        )


# ------------------------------------------------------------------------------------------------
# the estimator's option


def test_greedy_score_is_validated():
    X, y, clusters = hyobscure_population(1, n=160)
    # the constructor stores the value as given; fit checks it
    with pytest.raises(ValueError, match=r"'greedy_score'.*HyObscure.*'leakage'.*'kl'"):
        hy.HyObscure(greedy_score="kl").fit(X, y, random_state=0, clusters=clusters)
    with pytest.raises(ValueError, match="'greedy_score'"):
        hy.YGen(greedy_score=None).fit(X, y, random_state=0, clusters=clusters)
    mech = hy.HyObscure(g_step="greedy")
    assert mech.greedy_score == "transposed"
    mech.greedy_score = "kl"
    with pytest.raises(ValueError, match="'greedy_score'"):
        mech.fit(X, y, random_state=np.random.default_rng(0), clusters=clusters)


@pytest.mark.parametrize("score", ["transposed", "leakage"])
def test_fit_moves_by_the_chosen_score(score):
    """The moves of the fit's history carry the chosen score of the groups after the move,
    under the mapping of the O-step before it."""
    X, y, clusters = hyobscure_population(1, n=300)
    gen = hy.band_generalization(hy.private_domain(y), [24, 28, 32])
    mech = _authors_mech(k=20, greedy_score=score, max_iter=2)
    mech.fit(X, y, random_state=np.random.default_rng(0), clusters=clusters, generalization=gen)
    moves = [i for i, rec in enumerate(mech.history_) if rec["phase"] == "move"]
    assert moves
    first = mech.history_[moves[0]]
    idx = gen.domain.index(y)
    counts = cluster_value_counts(clusters, idx, 3, len(gen.domain.values))
    model = DistanceModel(X, clusters, idx, 3, len(gen.domain.values), "mean_pairwise_js")
    mappings, _ = hy.solve_obfuscation(
        counts, gen.labels, model.all_groups(gen.labels), 1.1, scope="cluster_mean"
    )
    new, records = hy.greedy_generalization(
        gen, counts, mappings, model, 20, 2, scope="cluster_mean", score=score
    )
    assert first["leakage"] == pytest.approx(records[0]["leakage"], rel=1e-6)
    assert first["leakage"] == pytest.approx(
        _SCORERS[score](counts, new.labels, mappings), rel=1e-6
    )
