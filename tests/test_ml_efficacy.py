"""Classifier suite and the train/test settings A, B, C of the IMPOSTER paper."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score

from ppdp.classifiers import CLASSIFIERS, MODELS, evaluate_setting, make_model, split_frame
from ppdp.utility.ml_efficacy import ml_efficacy


def toy(n: int = 400, seed: int = 0, flip: float = 0.05) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.choice(["a", "b"], size=n)
    num = rng.normal(size=n)
    y = np.where((x == "a") ^ (rng.random(n) < flip), "pos", "neg")
    return pd.DataFrame(
        {"x": x, "num": num, "y": y, "z": rng.choice(["k", "l"], size=n, p=[0.8, 0.2])}
    )


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_every_classifier_learns_an_easy_rule(name):
    train, test = toy(600, 0), toy(300, 1)
    res = evaluate_setting(train, test, features=["x", "num"], target="y", classifier=name)
    assert res["accuracy"] > 0.85
    assert 0 <= res["f1"] <= 1


def test_scores_match_sklearn_metrics_on_the_same_predictions():
    train, test = toy(500, 2, flip=0.2), toy(300, 3, flip=0.2)
    res = evaluate_setting(train, test, features=["x"], target="y", classifier="LR", positive="pos")
    # with one binary feature LR predicts the majority label of each x value
    rule = train.groupby("x")["y"].agg(lambda v: v.value_counts().idxmax())
    pred = test["x"].map(rule).to_numpy()
    assert res["accuracy"] == pytest.approx(accuracy_score(test["y"], pred))
    assert res["f1"] == pytest.approx(f1_score(test["y"], pred, pos_label="pos"))


def test_default_positive_class_is_the_training_minority():
    train, test = toy(500, 4), toy(200, 5)
    a = evaluate_setting(train, test, features=["x", "num"], target="z", classifier="LR")
    b = evaluate_setting(
        train, test, features=["x", "num"], target="z", classifier="LR", positive="l"
    )
    assert a == b


def test_single_class_training_target_predicts_that_class():
    train = toy(100, 6).assign(y="neg")
    test = toy(100, 7)
    res = evaluate_setting(
        train, test, features=["x"], target="y", classifier="GBDT", positive="pos"
    )
    assert res["accuracy"] == pytest.approx((test["y"] == "neg").mean())
    assert res["f1"] == 0.0


def test_settings_pair_the_right_frames():
    real_train, real_test = toy(400, 8), toy(200, 9)
    released = toy(400, 10, flip=0.5)  # label unrelated to x
    rel_train, rel_test = split_frame(released, random_state=0)
    out = ml_efficacy(
        real_train,
        real_test,
        rel_train,
        rel_test,
        features=["x", "num"],
        targets=["y"],
        classifiers=["LR"],
    )
    acc = out[out.metric == "accuracy"].set_index("setting")["value"]
    assert set(out["setting"]) == {"A", "B", "C"}
    assert acc["A"] > 0.85
    assert acc["C"] < 0.7  # trained on noise, tested on the real rule
    direct = evaluate_setting(
        rel_train, real_test, features=["x", "num"], target="y", classifier="LR"
    )
    assert acc["C"] == pytest.approx(direct["accuracy"])


def test_deterministic_for_a_seed():
    train, test = toy(300, 11, flip=0.2), toy(200, 12, flip=0.2)
    for name in ("XGBoost", "RF", "MLP"):
        a = evaluate_setting(
            train, test, features=["x", "num"], target="y", classifier=name, random_state=3
        )
        b = evaluate_setting(
            train, test, features=["x", "num"], target="y", classifier=name, random_state=3
        )
        assert a == b


def test_bad_input():
    df = toy(50)
    with pytest.raises(ValueError, match="model must be one of"):
        make_model("SVM")
    with pytest.raises(ValueError, match="classifier must be one of"):
        evaluate_setting(df, df, features=["x"], target="y", classifier="rf")
    with pytest.raises(ValueError, match="lacks the columns"):
        evaluate_setting(df, df, features=["nope"], target="y")
    with pytest.raises(ValueError, match="must not be among"):
        evaluate_setting(df, df, features=["x", "y"], target="y")
    with pytest.raises(ValueError, match="empty"):
        evaluate_setting(df.iloc[:0], df, features=["x"], target="y")
    with pytest.raises(ValueError, match="released_train"):
        ml_efficacy(df, df, features=["x"], targets=["y"], settings=["C"])
    with pytest.raises(ValueError, match="settings"):
        ml_efficacy(df, df, features=["x"], targets=["y"], settings=["D"])
    with pytest.raises(ValueError, match="test_size"):
        split_frame(df, test_size=1.5)
    # the models and the split seed themselves from an int: a Generator is refused, not drawn from
    with pytest.raises(TypeError, match="random_state must be an int"):
        split_frame(df, random_state=np.random.default_rng(0))
    with pytest.raises(ValueError, match="random_state must be an int >= 0"):
        evaluate_setting(df, df, features=["x"], target="y", random_state=-1)
    with pytest.raises(TypeError, match="random_state"):
        ml_efficacy(df, df, features=["x"], targets=["y"], settings=["A"], random_state=1.5)


@pytest.mark.parametrize("name", MODELS)
def test_the_one_factory_builds_every_model_unfitted_and_seeded(name):
    """Every model of the library comes from make_model; a regressor only for rf and xgb."""
    from sklearn.base import clone

    model = make_model(name, random_state=7, n_categories=3)
    assert clone(model).get_params().keys() == model.get_params().keys()
    if "random_state" in model.get_params():
        assert model.get_params()["random_state"] in (7, None)
    if name in ("rf", "xgb"):
        assert "Regressor" in type(make_model(name, task="regression")).__name__
    else:
        with pytest.raises(ValueError, match="regression"):
            make_model(name, task="regression")
    with pytest.raises(TypeError, match="random_state"):
        make_model(name, random_state="7")
    with pytest.raises(ValueError, match="random_state"):
        make_model(name, random_state=-1)
