"""The HyObscure experiments skip repeated attack work and give the same numbers.

Every release of these experiments copies published users' rows within their group
(``Release.source``): Scenario I then predicts each user once per point instead of once per draw,
and Scenario II fits each distinct training half once (draws that publish the unobscured training
half share the reference's fit). Scenario I's predictions are kept by content, so the figures of
one seed share them. The frames are compared with the per-draw code they replace,
kept here as ``_per_draw_attack_rows``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from populations import hyobscure_population
from ppdp.attacks.inference import InferenceAttack
from ppdp.experiments import hyobscure as hx


def _toy_population():
    X, y, _ = hyobscure_population(3, n=240, n_values=33, m=40)
    return hx.data.Population("movielens", X, y - 2, "interval", "regression", "rmse")


def _per_draw_attack_rows(
    ctx, gen, releases, models, scenarios, scenario_ii_draws=None, sources=None
):
    """``_attack_rows`` before the cut: Scenario I predicts every release, Scenario II fits one
    attack per scored release (``sources`` is ignored). Privacy per (model, scenario)."""
    s = ctx.split
    groups_p = gen.transform(ctx.yp)
    groups_a = gen.transform_nearest(ctx.ya)
    feats = releases if releases is not None else [ctx.Xp]
    out = {}
    for model in models:
        kw = {
            "model": model,
            "task": ctx.pop.task,
            "random_state": ctx.seed,
            "n_estimators": ctx.cfg.get("n_estimators", 100),
        }
        if "I" in scenarios:
            att = ctx.scenario_one_attack(kw, groups_a)
            out[model, "sI"] = float(np.mean([att.score(f, groups_p, ctx.yp) for f in feats]))
        if "II" in scenarios:
            scores = []
            for f in feats[:scenario_ii_draws]:
                att = hx.run.InferenceAttack(**kw).fit(
                    f[s.s2_train], groups_p[s.s2_train], ctx.yp[s.s2_train]
                )
                scores.append(att.score(f[s.s2_test], groups_p[s.s2_test], ctx.yp[s.s2_test]))
            out[model, "sII"] = float(np.mean(scores))
    return out


def _counted(monkeypatch):
    """Record every attack fit (model, training design) and every prediction (model, rows)."""
    fits, predictions = [], []
    real_fit, real_predict = InferenceAttack.fit, InferenceAttack.predict

    def fit(self, features, groups, y):
        design = np.column_stack([np.asarray(features, float), np.asarray(groups, float)])
        fits.append((self.model, design.shape, design.tobytes()))
        return real_fit(self, features, groups, y)

    def predict(self, features, groups):
        predictions.append((self.model, len(features)))
        return real_predict(self, features, groups)

    monkeypatch.setattr(InferenceAttack, "fit", fit)
    monkeypatch.setattr(InferenceAttack, "predict", predict)
    return fits, predictions


@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("model", ["rf", "xgb"])
def test_a_prediction_depends_on_its_row_alone(model, task):
    """What Scenario I's shortcut rests on: predicting copies of rows gives the rows'
    predictions, bit for bit, whatever else the batch holds."""
    X, y, _ = hyobscure_population(5, n=200, m=30)
    y = y if task == "regression" else y % 4
    groups = (y > np.median(y)).astype(np.int64)
    attack = InferenceAttack(model, task, random_state=1, n_estimators=8).fit(
        X[:120], groups[:120], y[:120]
    )
    own = attack.predict(X[120:], groups[120:])
    source = np.random.default_rng(0).integers(0, 80, 80)
    np.testing.assert_array_equal(
        attack.predict(X[120:][source], groups[120:][source]), own[source]
    )


def test_tradeoff_fits_each_training_set_once_with_the_same_results(monkeypatch):
    """A paper-like tradeoff (both models, both scenarios, several draws, the decomposition), with
    DP at a large beta, whose every release is the unobscured data: the same frame as fitting
    per draw, and the skipped fits are exactly the repeated ones."""
    pop = _toy_population()
    knobs = {"HyObscure": [0.05], "XObf": [0.05], "Random": [0.3], "DP": [1000.0, 2.0]}
    kw = dict(
        n_draws=3,
        overrides={"n_clusters": 3, "k": 10, "n_estimators": 4, "kmeans_n_init": 1},
        models=("rf", "xgb"),
        scenarios=("I", "II"),
        decompose=True,
    )
    hx.data.SPLITS.clear()
    fits, predictions = _counted(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(hx.run, "_attack_rows", _per_draw_attack_rows)
        before = hx.run.tradeoff(pop, [0, 1], knobs, **kw)
    fits_before, predictions_before = list(fits), list(predictions)
    fits.clear()
    predictions.clear()
    hx.run.SCENARIO_ONE_PREDICTIONS.clear()
    after = hx.run.tradeoff(pop, [0, 1], knobs, **kw)
    pd.testing.assert_frame_equal(before, after, check_exact=True)
    # one privacy row per point and attack, the attack as the facets model and scenario
    privacy = after[after["metric"] == "privacy"]
    attacks = set(zip(privacy["model"], privacy["scenario"], strict=True))
    assert attacks == {("rf", "sI"), ("rf", "sII"), ("xgb", "sI"), ("xgb", "sII")}
    assert after[after["metric"] != "privacy"][["model", "scenario"]].isna().all().all()

    # every training set is fitted once, and no other
    assert len(fits) == len(set(fits))
    assert set(fits) == set(fits_before)
    # Scenario II, per seed and model: Original, GenOnly and 5 points x 3 draws (ObfOnly is XObf's
    # point); DP at beta = 1000 publishes the unobscured data, so it reuses the reference's fit
    n_pub = len(hx.data.make_split(pop, 0, 3, kmeans_n_init=1).published)
    s2_before = [f for f in fits_before if f[1][0] == n_pub // 2]
    s2 = [f for f in fits if f[1][0] == n_pub // 2]
    assert len(s2_before) == 2 * 2 * (1 + 1 + 5 * 3)
    assert len(s2) == len(s2_before) - 2 * 2 * 3
    # Scenario I predicts every published user once per attack and groups (the starting ones and
    # HyObscure's, which GenOnly shares), not once per release
    s1_before = [p for p in predictions_before if p[1] == n_pub]
    s1 = [p for p in predictions if p[1] == n_pub]
    assert len(s1_before) == 2 * 2 * (1 + 1 + 5 * 3)
    assert len(s1) == 2 * 2 * 2


def test_a_release_that_is_not_copied_rows_is_scored_directly():
    """The shortcuts apply only to releases checked to be copies of rows within their group;
    any other release (changed values, a row from another group, no source) is attacked as is."""
    pop = _toy_population()
    cfg = hx.run._config(pop, {"n_clusters": 3, "k": 10, "n_estimators": 4, "kmeans_n_init": 1})
    ctx = hx.run._Context(pop, 0, cfg)
    gen0 = ctx.gen0(cfg["n_groups"], cfg["k"], cfg["alpha"], cfg["l"], cfg["beta"])
    groups = gen0.transform(ctx.yp)
    rng = np.random.default_rng(0)
    same = np.array([rng.choice(np.flatnonzero(groups == g)) for g in groups])
    assert np.array_equal(ctx.copied_rows(ctx.Xp[same], same, groups), same)
    changed = ctx.Xp[same].copy()
    changed[0, 0] += 0.5
    other = same.copy()
    other[0] = np.flatnonzero(groups != groups[0])[0]
    assert ctx.copied_rows(changed, same, groups) is None
    assert ctx.copied_rows(ctx.Xp[other], other, groups) is None
    assert ctx.copied_rows(ctx.Xp[same], None, groups) is None
    releases = [ctx.Xp[same], changed, ctx.Xp[other], ctx.Xp]
    sources = [same, same, other, ctx.own_rows]
    args = (gen0, releases, ("rf", "xgb"), ("I", "II"))
    direct = _per_draw_attack_rows(hx.run._Context(pop, 0, cfg), *args)
    assert hx.run._attack_rows(ctx, *args, sources=sources) == direct
    assert hx.run._attack_rows(hx.run._Context(pop, 0, cfg), *args) == direct


def test_figures_of_one_seed_share_scenario_one_predictions(monkeypatch):
    """Each figure builds its own context per seed; a second figure on the same users and groups
    fits no Scenario I attack again, and its frame is the one a fresh computation gives."""
    pop = _toy_population()
    knobs = {"XObf": [0.05], "Random": [0.3]}
    kw = dict(
        n_draws=2,
        overrides={"n_clusters": 3, "k": 10, "n_estimators": 4, "kmeans_n_init": 1},
        models=("rf", "xgb"),
        scenarios=("I",),
    )
    memo = hx.run.SCENARIO_ONE_PREDICTIONS
    memo.clear()
    fits, _ = _counted(monkeypatch)
    first = hx.run.tradeoff(pop, [0], knobs, **kw)
    n_first = len(fits)
    assert n_first > 0 and memo.misses > 0
    fits.clear()
    again = hx.run.tradeoff(pop, [0], knobs, experiment="again", **kw)
    assert fits == [] and memo.hits > 0
    memo.clear()
    fresh = hx.run.tradeoff(pop, [0], knobs, experiment="again", **kw)
    assert len(fits) == n_first
    pd.testing.assert_frame_equal(again, fresh, check_exact=True)
    pd.testing.assert_frame_equal(
        first.drop(columns="experiment"), again.drop(columns="experiment"), check_exact=True
    )


def test_scenario_one_predictions_are_kept_by_content():
    """Another seed (the attack's random_state), other groups or other attacker data never reuse
    a kept prediction; the kept array cannot be changed by its receiver."""
    pop = _toy_population()
    cfg = hx.run._config(pop, {"n_clusters": 3, "k": 10, "n_estimators": 4, "kmeans_n_init": 1})
    hx.run.SCENARIO_ONE_PREDICTIONS.clear()
    ctx = hx.run._Context(pop, 0, cfg)
    gen0 = ctx.gen0(cfg["n_groups"], cfg["k"], cfg["alpha"], cfg["l"], cfg["beta"])
    g_p, g_a = gen0.transform(ctx.yp), gen0.transform_nearest(ctx.ya)
    kw = {"model": "rf", "task": pop.task, "random_state": 0, "n_estimators": 4}
    pred = ctx.scenario_one_predictions(kw, g_a, g_p)
    assert not pred.flags.writeable
    fresh = InferenceAttack(**kw).fit(ctx.Xa, g_a, ctx.ya).predict(ctx.Xp, g_p)
    np.testing.assert_array_equal(pred, fresh)
    flipped = g_a.copy()
    flipped[0] = (flipped[0] + 1) % (g_a.max() + 1)
    for other_kw, ga in (({**kw, "random_state": 1}, g_a), (kw, flipped)):
        expected = InferenceAttack(**other_kw).fit(ctx.Xa, ga, ctx.ya).predict(ctx.Xp, g_p)
        np.testing.assert_array_equal(ctx.scenario_one_predictions(other_kw, ga, g_p), expected)
    # the same seed on other ratings: a context of its own, whose groups may coincide
    other = hx.run._Context(dataclasses.replace(pop, X=pop.X + 1.0), 0, cfg)
    g_p, g_a = gen0.transform(other.yp), gen0.transform_nearest(other.ya)
    expected = InferenceAttack(**kw).fit(other.Xa, g_a, other.ya).predict(other.Xp, g_p)
    np.testing.assert_array_equal(other.scenario_one_predictions(kw, g_a, g_p), expected)
    assert hx.run.SCENARIO_ONE_PREDICTIONS.hits == 0
