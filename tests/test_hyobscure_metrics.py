"""Attribute-inference attacks and recommendation utility used by the HyObscure experiments."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, mean_absolute_error

from ppdp.attacks.inference import InferenceAttack, attack_score
from ppdp.utility.recommendation import activity_map, cf_rmse, cosine_similarity_matrix


def test_attack_scores_match_sklearn():
    rng = np.random.default_rng(0)
    a, b = rng.integers(18, 50, 40), rng.integers(18, 50, 40)
    assert attack_score(a, b, "regression") == pytest.approx(mean_absolute_error(a, b))
    assert attack_score(a, b, "classification") == pytest.approx(1 - accuracy_score(a, b))
    with pytest.raises(ValueError, match="task"):
        attack_score(a, b, "ranking")


@pytest.mark.parametrize("model", ["rf", "xgb"])
@pytest.mark.parametrize("task", ["regression", "classification"])
def test_inference_attack_learns_and_is_deterministic(model, task):
    rng = np.random.default_rng(1)
    n = 200
    y = rng.choice([101, 205, 309], n)
    X = rng.poisson(1.0, (n, 6)).astype(float)
    X[:, 0] += (y == 205) * 5
    X[:, 1] += (y == 309) * 5
    groups = (y > 150).astype(int)
    att = InferenceAttack(model, task, random_state=0, n_estimators=30).fit(
        X[:150], groups[:150], y[:150]
    )
    s = att.score(X[150:], groups[150:], y[150:])
    blind = attack_score(
        y[150:], np.full(50, 205 if task == "classification" else y[:150].mean()), task
    )
    assert s < blind
    att2 = InferenceAttack(model, task, random_state=0, n_estimators=30).fit(
        X[:150], groups[:150], y[:150]
    )
    assert np.array_equal(att.predict(X[150:], groups[150:]), att2.predict(X[150:], groups[150:]))
    if task == "classification":
        assert set(att.predict(X, groups)) <= {101, 205, 309}


def test_inference_attack_rejects_unknown_models_and_tasks():
    with pytest.raises(ValueError, match="model must be one of \\('rf', 'xgb'\\)"):
        InferenceAttack("XGBoost", "classification")
    with pytest.raises(ValueError, match="task"):
        InferenceAttack("rf", "ranking")
    with pytest.raises(TypeError, match="random_state"):
        InferenceAttack("rf", "regression", random_state=1.5)


def _cf_loop(kt, ke, ht, he):
    err = []
    for u in range(ke.shape[0]):
        sims = [
            float(ke[u] @ kt[v] / (np.linalg.norm(ke[u]) * np.linalg.norm(kt[v])))
            for v in range(kt.shape[0])
        ]
        for j in range(he.shape[1]):
            if he[u, j] == 0:
                continue
            raters = [v for v in range(kt.shape[0]) if ht[v, j] > 0]
            den = sum(abs(sims[v]) for v in raters)
            if den == 0:
                continue
            pred = sum(sims[v] * ht[v, j] for v in raters) / den
            err.append((pred - he[u, j]) ** 2)
    return float(np.sqrt(np.mean(err)))


def _map_loop(kt, ke, ht, he):
    """The authors' cal_map: rank items visited by some neighbour, precision at each hit."""
    aps = []
    for u in range(ke.shape[0]):
        truth = [j for j in range(he.shape[1]) if he[u, j] > 0]
        if not truth:
            continue
        scores = {}
        for v in range(kt.shape[0]):
            s = float(ke[u] @ kt[v] / (np.linalg.norm(ke[u]) * np.linalg.norm(kt[v])))
            for j in range(ht.shape[1]):
                if ht[v, j] > 0:
                    scores[j] = scores.get(j, 0.0) + s
        ranked = sorted(scores, key=lambda j: (-scores[j], j))
        precisions, hits = [], 0
        for pos, j in enumerate(ranked, start=1):
            if j in truth:
                hits += 1
                precisions.append(hits / pos)
                if hits == len(truth):
                    break
        aps.append(np.mean(precisions) if precisions else 0.0)
    return float(np.mean(aps))


@pytest.mark.parametrize("seed", range(3))
def test_cf_rmse_and_map_match_loops(seed):
    rng = np.random.default_rng(seed)
    R = rng.integers(0, 6, (30, 20)).astype(float) * (rng.random((30, 20)) < 0.5)
    R[:, 0] += 1
    kt, ke, ht, he = R[:20, :14], R[20:, :14], R[:20, 14:], R[20:, 14:]
    assert cf_rmse(kt, ke, ht, he) == pytest.approx(_cf_loop(kt, ke, ht, he))
    assert activity_map(kt, ke, ht, he) == pytest.approx(_map_loop(kt, ke, ht, he))


def test_perfect_neighbour_gives_perfect_scores():
    kt = np.array([[1.0, 0, 2], [0, 3, 0]])
    ht = np.array([[4.0, 0], [0, 2]])
    assert cf_rmse(kt, kt[:1], ht, ht[:1]) == pytest.approx(0.0)
    assert activity_map(kt, kt[:1], ht, ht[:1]) == pytest.approx(1.0)
    assert np.allclose(np.diag(cosine_similarity_matrix(kt, kt)), 1)


def test_utility_shape_errors():
    with pytest.raises(ValueError, match="same users"):
        cf_rmse(np.ones((3, 2)), np.ones((2, 2)), np.ones((4, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="2-D"):
        activity_map(np.ones(3), np.ones((2, 3)), np.ones((3, 2)), np.ones((2, 2)))


def test_experiment_inputs_are_checked():
    from ppdp.experiments import hyobscure as E

    with pytest.raises(ValueError, match="dataset must be"):
        E.data.load_population("netflix")
    with pytest.raises(ValueError, match="which must be"):
        E.sweeps.constraint_sweep(None, [0], [], "k_l", 0.05)
    with pytest.raises(ValueError, match="method must be one of"):
        E.run._build("Mondrian", 0.1, {**E.run.DATASET_DEFAULTS["movielens"], "kind": "interval"})
