"""The IMPOSTER experiment's scoring: one fitted model per training table and design, and the
memo of scores, give the rows that scoring every setting on its own gives."""

from __future__ import annotations

import pandas as pd
import pytest

from ppdp import classifiers
from ppdp.classifiers import CLASSIFIERS, _evaluate_tests, evaluate_setting, split_frame
from ppdp.experiments.common import tidy_frame, tidy_rows
from ppdp.experiments.imposter import run
from test_imposter_experiment_claims import small_table as claims_table


def small_table(n: int = 240, seed: int = 0) -> pd.DataFrame:
    """The claims tests' table (``rel`` follows sex, ``job`` drives income), 240 rows."""
    return claims_table(n=n, seed=seed)


def one_by_one(experiment, method, pairs, features, classifiers_, seed, positives, extra):
    """The rows of every (setting, target, classifier), each scored by its own evaluate_setting."""
    rows = []
    for setting, (train, test) in pairs.items():
        for target in (run.PRIVATE, run.LABEL):
            for clf in classifiers_:
                res = evaluate_setting(
                    train,
                    test,
                    features=list(features),
                    target=target,
                    classifier=clf,
                    random_state=seed,
                    positive=positives[target],
                )
                params = {**extra, "setting": setting, "target": target}
                name = clf if method == "" else method
                if method and len(classifiers_) > 1:
                    params["classifier"] = clf
                rows += tidy_rows(experiment, name, res, parameters=params, seed=seed)
    return tidy_frame(rows)


def settings_abc(seed: int = 0):
    """Settings A, B, C as Table 1 builds them; B's training table lacks the ``job`` "c" that
    both test tables hold, so B and C one-hot encode it the same way."""
    df = small_table(seed=seed)
    train, test = split_frame(df, test_size=0.3, random_state=seed, stratify="sex")
    rel_train, rel_test = split_frame(
        small_table(seed=seed + 1), test_size=0.3, random_state=seed, stratify="sex"
    )
    rel_train = rel_train.assign(job=rel_train["job"].astype(str).replace("c", "b"))
    return df, {"A": (train, test), "B": (rel_train, rel_test), "C": (rel_train, test)}


def count_fits(monkeypatch) -> list[str]:
    """The classifier of every model fitted from now on."""
    fitted: list[str] = []
    make_model = classifiers.make_model

    def counting(name, **kw):
        model = make_model(name, **kw)
        fit = model.fit

        def fit_and_count(*args, **kwargs):
            fitted.append(name)
            return fit(*args, **kwargs)

        model.fit = fit_and_count
        return model

    monkeypatch.setattr(classifiers, "make_model", counting)
    return fitted


@pytest.mark.parametrize("seed", [0, 3])
def test_deduplicated_scoring_gives_the_rows_of_scoring_each_setting(monkeypatch, seed):
    df, pairs = settings_abc(seed)
    features = ["rel", "hours", "job"]
    positives = run._positives(df)
    args = ("table1", "", pairs, features, CLASSIFIERS, seed, positives, {"lambda": 1.0})
    expected = one_by_one(*args)
    fitted = count_fits(monkeypatch)
    with run.SCORES.isolated():
        got = tidy_frame(run._score(*args[:-1], args[-1]))
        # the same settings again: every score from the memo, no model fitted
        n_fits = len(fitted)
        again = tidy_frame(run._score(*args[:-1], args[-1]))
        assert len(fitted) == n_fits
    pd.testing.assert_frame_equal(got, expected)
    pd.testing.assert_frame_equal(again, expected)
    # A and B fit a model per target and classifier; C takes B's (same training table and design)
    assert n_fits == 2 * 2 * len(CLASSIFIERS)


def test_settings_b_and_c_share_a_model_only_when_their_designs_agree(monkeypatch):
    df = small_table()
    train, test = split_frame(df, test_size=0.3, random_state=0, stratify="sex")
    train = train.assign(job=train["job"].astype(str).replace("c", "b"))
    same = test.assign(job=test["job"].astype(str).replace("c", "a"))  # no category new to train
    kw = {"features": ["rel", "hours", "job"], "target": "income", "random_state": 0}
    for clf in CLASSIFIERS:
        fitted = count_fits(monkeypatch)
        got = _evaluate_tests(train, [same, test, same.copy()], classifier=clf, **kw)
        # ``test`` brings "c", which one-hot encodes train with one more (empty) column
        assert fitted == [clf, clf]
        monkeypatch.undo()
        assert got == [
            evaluate_setting(train, t, classifier=clf, **kw) for t in (same, test, same.copy())
        ]


def test_scores_memo_misses_on_a_changed_cell_and_hits_on_equal_content():
    df, pairs = settings_abc()
    positives = run._positives(df)

    def score(p):
        return run._score("table2", "LR", p, ["rel", "hours", "job"], ["LR"], 0, positives, {})

    changed = pairs["A"][1].copy()
    changed.loc[0, "hours"] += 1
    with run.SCORES.isolated():
        score({"A": pairs["A"]})
        misses = run.SCORES.misses
        score({"A": (pairs["A"][0].copy(), pairs["A"][1].copy())})
        assert run.SCORES.misses == misses
        score({"A": (pairs["A"][0], changed)})
        assert run.SCORES.misses == misses + 2  # both targets
