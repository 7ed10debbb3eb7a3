"""The cross-mechanism attacker suite: attribute inference, anonymeter's risks, record linkage."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ppdp.attacks.suite import anonymeter_risks, attribute_inference, record_linkage
from ppdp.cells import design_matrix, table_domains

FEATURES = ["age", "hours", "edu", "sex"]
NUMERIC = ["age", "hours"]


def population(n: int, seed: int) -> pd.DataFrame:
    """``sick`` is 1 when age + hours is large (5 % of labels flipped); edu and sex are noise."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    hours = rng.integers(10, 70, n)
    sick = ((age + hours > 90) ^ (rng.random(n) < 0.05)).astype(int)
    return pd.DataFrame(
        {
            "age": age,
            "hours": hours,
            "edu": rng.choice(["HS", "BA", "MS", "PhD"], n),
            "sex": rng.choice(["F", "M"], n),
            "sick": sick,
        }
    )


@pytest.fixture(scope="module")
def data():
    df = population(1500, 0)
    domains = table_domains(df, [*FEATURES, "sick"], numeric=NUMERIC)
    return df.iloc[:600].reset_index(drop=True), df.iloc[600:900], df.iloc[900:], domains


def generalize(df: pd.DataFrame) -> pd.DataFrame:
    """A Mondrian-like release: 10-year age ranges, 20-hour ranges and value sets of edu."""
    out = df.copy()
    lo = (df["age"] // 10) * 10
    out["age"] = lo.astype(str) + "-" + (lo + 9).astype(str)
    lo = (df["hours"] // 20) * 20
    out["hours"] = lo.astype(str) + "-" + (lo + 19).astype(str)
    out["edu"] = np.where(df["edu"].isin(["HS", "BA"]), "{HS,BA}", "{MS,PhD}")
    return out


def auc_of(frame: pd.DataFrame, scenario: str, attacker: str) -> float:
    row = frame[
        (frame.scenario == scenario) & (frame.attacker == attacker) & (frame.metric == "auc")
    ]
    assert len(row) == 1
    return float(row["value"].iloc[0])


def mann_whitney_auc(y: np.ndarray, score: np.ndarray) -> float:
    """P(score of a positive > score of a negative) + P(tie) / 2, over all pairs."""
    pos, neg = score[y], score[~y]
    greater = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    return (greater + 0.5 * ties) / (pos.size * neg.size)


# --------------------------------------------------------------------------------------------
# attribute_inference
# --------------------------------------------------------------------------------------------


def test_unprotected_release_is_attacked_in_both_scenarios(data):
    train, test, _, domains = data
    # scenario II's attacker knows other people's records: the held-out ones
    out = attribute_inference(
        test,
        test,
        train,
        domains=domains,
        features=FEATURES,
        private="sick",
        released_truth=train["sick"],
    )
    assert list(out.columns) == ["scenario", "attacker", "metric", "value"]
    assert len(out) == 8
    for scenario in ("I", "II"):
        for attacker in ("xgb", "lr"):
            assert auc_of(out, scenario, attacker) > 0.8
    assert out.loc[out.metric == "accuracy", "value"].between(0.7, 1).all()


def test_shuffled_private_column_leaves_the_attacker_at_chance(data):
    train, test, _, domains = data
    aucs = {"xgb": [], "lr": []}
    for seed in range(20):
        rng = np.random.default_rng(seed)
        shuffled = train.assign(sick=rng.permutation(train["sick"].to_numpy()))
        out = attribute_inference(
            train, test, shuffled, domains=domains, features=FEATURES, private="sick"
        )
        assert set(out.scenario) == {"I"}  # no released_truth, no scenario II
        for attacker, values in aucs.items():
            values.append(auc_of(out, "I", attacker))
    # one shuffle is not enough: a model fitted to noise ranks the test records along a random
    # direction of the features, and since the true label depends strongly on age + hours its
    # AUC lands anywhere in [0.15, 0.8] for lr (sd ~0.18 over shuffles, ~0.06 for xgb); the
    # average over shuffles is at chance
    for values in aucs.values():
        assert abs(np.mean(values) - 0.5) < 0.1


def test_generalized_release_is_attacked_through_its_cells(data):
    train, test, _, domains = data
    released = generalize(train)
    out = attribute_inference(
        test,
        test,
        released,
        domains=domains,
        features=FEATURES,
        private="sick",
        released_truth=train["sick"].to_numpy(),
    )
    assert len(out) == 8 and np.isfinite(out["value"]).all()
    # coarse ranges of age and hours still reveal most of age + hours
    assert auc_of(out, "I", "lr") > 0.7


def test_single_class_training_labels_give_auc_one_half(data):
    train, test, _, domains = data
    released = train.assign(sick=1)
    out = attribute_inference(
        train, test, released, domains=domains, features=FEATURES, private="sick"
    )
    for attacker in ("xgb", "lr"):
        assert auc_of(out, "I", attacker) == 0.5
        acc = out[(out.attacker == attacker) & (out.metric == "accuracy")]["value"].item()
        assert acc == pytest.approx((test["sick"] == 1).mean())


def test_private_values_unseen_in_training_do_not_crash(data):
    train, test, _, domains = data
    # the release holds a value the real tables never had, and lacks nothing else
    released = train.assign(sick=np.where(train["sick"] == 1, "1", "maybe"))
    out = attribute_inference(
        test,
        test,
        released,
        domains=domains,
        features=FEATURES,
        private="sick",
        released_truth=np.where(train["sick"] == 1, "1", "2"),  # "2": unseen by scenario II
        models=("lr",),
    )
    assert np.isfinite(out["value"]).all()
    # "0" never appears in the release: the attacker gives it probability 0, and the AUC of
    # the positive (minority) class is still that of a working attacker
    assert out["value"].between(0, 1).all()


def test_multiclass_private_column_uses_macro_one_vs_rest(data):
    train, test, _, domains = data
    feats = ["age", "hours", "sex"]
    out = attribute_inference(
        train, test, train, domains=domains, features=feats, private="edu", models=("lr",)
    )
    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    clf.fit(design_matrix(train, domains, feats), train["edu"].astype(str))
    proba = clf.predict_proba(design_matrix(test, domains, feats))
    expected = roc_auc_score(test["edu"], proba, multi_class="ovr", average="macro")
    assert auc_of(out, "I", "lr") == pytest.approx(expected)


def test_reported_auc_is_the_mann_whitney_statistic_of_the_minority_class(data):
    train, test, _, domains = data
    # make "1" the minority class of real_train, then check the reported lr AUC independently
    train = train[(train["sick"] == 0) | (train.index % 3 == 0)]
    assert (train["sick"] == 1).mean() < 0.5
    out = attribute_inference(
        train, test, train, domains=domains, features=FEATURES, private="sick", models=("lr",)
    )
    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    clf.fit(design_matrix(train, domains, FEATURES), train["sick"].to_numpy())
    score = clf.predict_proba(design_matrix(test, domains, FEATURES))[:, 1]
    y = test["sick"].to_numpy() == 1
    assert auc_of(out, "I", "lr") == pytest.approx(mann_whitney_auc(y, score), abs=1e-12)
    acc = out[out.metric == "accuracy"]["value"].item()
    assert acc == pytest.approx(np.mean((score > 0.5) == y))


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=2, max_size=40).filter(
        lambda pairs: 0 < sum(p for p, _ in pairs) < len(pairs)
    )
)
def test_sklearn_auc_agrees_with_mann_whitney(pairs):
    y = np.array([p for p, _ in pairs])
    score = np.array([s for _, s in pairs], dtype=float)  # few values: many ties
    assert roc_auc_score(y, score) == pytest.approx(mann_whitney_auc(y, score), abs=1e-12)


def test_attribute_inference_is_reproducible(data):
    train, test, _, domains = data
    released = generalize(train)
    kwargs = dict(
        domains=domains, features=FEATURES, private="sick", random_state=3, n_estimators=20
    )
    a = attribute_inference(test, test, released, released_truth=train["sick"], **kwargs)
    b = attribute_inference(test, test, released, released_truth=train["sick"], **kwargs)
    pd.testing.assert_frame_equal(a, b)


def test_scenario_two_never_trains_on_a_target(data):
    """An attacker scored on its own training rows scores the same on every release: refused."""
    train, test, _, domains = data
    kwargs = dict(domains=domains, features=FEATURES, private="sick", models=("lr",))
    with pytest.raises(ValueError, match="rows it trained on"):
        attribute_inference(train, test, train, released_truth=train["sick"], **kwargs)
    # one shared record is enough
    aux = pd.concat([test, train.iloc[:1]])
    with pytest.raises(ValueError, match="share 1 index labels"):
        attribute_inference(aux, test, train, released_truth=train["sick"], **kwargs)
    # without scenario II the same frames are fine (scenario I trains on the release)
    out = attribute_inference(train, test, train, **kwargs)
    assert set(out["scenario"]) == {"I"}


# --------------------------------------------------------------------------------------------
# record_linkage
# --------------------------------------------------------------------------------------------


def test_record_linkage_of_the_real_table_and_of_a_shuffled_copy(data):
    train, _, _, domains = data
    # age x hours x edu x sex holds duplicates; drop them so that every row can be linked
    real = train.drop_duplicates(FEATURES).reset_index(drop=True)
    assert record_linkage(real, real, domains=domains, columns=FEATURES) == 1.0
    shuffled = real.sample(frac=1.0, random_state=0).reset_index(drop=True)
    assert record_linkage(real, shuffled, domains=domains, columns=FEATURES) < 0.05
    generalized = generalize(real)
    share = record_linkage(real, generalized, domains=domains, columns=FEATURES)
    assert 0.0 < share < 1.0
    assert share == record_linkage(real, generalized, domains=domains, columns=FEATURES)


@settings(max_examples=30, deadline=None)
@given(st.permutations(list(range(12))))
def test_record_linkage_counts_the_fixed_points_of_a_permutation(perm):
    real = pd.DataFrame({"x": np.arange(12) * 3, "c": list("ab") * 6})
    domains = table_domains(real, ["x", "c"], numeric=["x"])
    released = real.iloc[list(perm)].reset_index(drop=True)
    expected = np.mean(np.array(perm) == np.arange(12))
    assert record_linkage(real, released, domains=domains, columns=["x", "c"]) == expected


def test_record_linkage_breaks_ties_by_the_lowest_index():
    real = pd.DataFrame({"x": [1, 1, 2, 5]})
    domains = table_domains(real, ["x"], numeric=["x"])
    # row 1 is a duplicate of row 0: its nearest real record is row 0
    assert record_linkage(real, real, domains=domains, columns=["x"]) == 0.75
    # a released 1.5 is as close to 1 (rows 0, 1) as to 2 (row 2): linked to row 0
    released = pd.DataFrame({"x": [1.5, 1.5, 1.5, 5]})
    assert record_linkage(real, released, domains=domains, columns=["x"]) == 0.5


def test_record_linkage_needs_aligned_tables(data):
    train, _, _, domains = data
    with pytest.raises(ValueError, match="released has 599 rows and real has 600"):
        record_linkage(train, train.iloc[1:], domains=domains, columns=FEATURES)


# --------------------------------------------------------------------------------------------
# anonymeter_risks
# --------------------------------------------------------------------------------------------

COLUMNS = [*FEATURES, "sick"]


@pytest.fixture(scope="module")
def risks(data):
    import anonymeter  # noqa: F401  (installed by the Makefile; a missing one must fail, not skip)

    train, _, control, domains = data
    control = control.iloc[:500]
    rng = np.random.default_rng(5)
    # an independent table: every column drawn uniformly from its domain
    independent = pd.DataFrame({c: rng.choice(domains[c].values, size=len(train)) for c in COLUMNS})
    kwargs = dict(domains=domains, columns=COLUMNS, secret="sick", n_attacks=200, random_state=7)
    state = np.random.get_state()  # noqa: NPY002 (checked to be left as it was)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning may escape
        out = {
            "real": anonymeter_risks(train, control, train, **kwargs),
            "real_again": anonymeter_risks(train, control, train, **kwargs),
            "independent": anonymeter_risks(train, control, independent, **kwargs),
            "generalized": anonymeter_risks(train, control, generalize(train), **kwargs),
        }
    after = np.random.get_state()  # noqa: NPY002
    out["global_state_kept"] = state[0] == after[0] and np.array_equal(state[1], after[1])
    return out


def value(frame: pd.DataFrame, evaluator: str, metric: str) -> float:
    return frame[(frame.evaluator == evaluator) & (frame.metric == metric)]["value"].item()


def test_anonymeter_frame_layout(risks):
    out = risks["real"]
    assert list(out.columns) == ["evaluator", "metric", "value"]
    assert list(dict.fromkeys(out.evaluator)) == ["inference", "linkability", "singling_out"]
    metrics = ["risk", "ci_low", "ci_high", "attack_rate", "baseline_rate", "control_rate"]
    for evaluator in ("inference", "linkability", "singling_out"):
        assert out[out.evaluator == evaluator]["metric"].tolist() == metrics
        lo, risk, hi = (value(out, evaluator, m) for m in ("ci_low", "risk", "ci_high"))
        assert 0 <= lo <= risk <= hi <= 1
    assert np.isfinite(risks["generalized"]["value"]).all()


def test_anonymeter_inference_risk_of_the_real_table_exceeds_an_independent_one(risks):
    real, independent = risks["real"], risks["independent"]
    assert value(real, "inference", "risk") > 0.5
    assert value(real, "inference", "risk") > value(independent, "inference", "ci_high")


def test_anonymeter_is_reproducible_and_keeps_numpy_global_state(risks):
    pd.testing.assert_frame_equal(risks["real"], risks["real_again"])
    assert risks["global_state_kept"]


def test_anonymeter_evaluators_have_their_own_streams(data, risks):
    train, _, control, domains = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alone = anonymeter_risks(
            train,
            control.iloc[:500],
            train,
            domains=domains,
            columns=COLUMNS,
            secret="sick",
            n_attacks=200,
            random_state=7,
            evaluators=("linkability",),
        )
    full = risks["real"]
    pd.testing.assert_frame_equal(
        alone, full[full.evaluator == "linkability"].reset_index(drop=True)
    )


def test_anonymeter_singling_out_is_reproducible_with_unique_values():
    import anonymeter  # noqa: F401  (installed by the Makefile; a missing one must fail, not skip)

    rng = np.random.default_rng(0)
    # a near-continuous column: most of its values occur once, many singling-out candidates
    df = pd.DataFrame(
        {
            "x": rng.integers(0, 5000, 900),
            "g": rng.choice(list("abc"), 900),
            "s": rng.choice(["y", "n"], 900),
        }
    )
    domains = table_domains(df, ["x", "g", "s"], numeric=["x"])
    train, control = df.iloc[:500], df.iloc[500:]
    kwargs = dict(
        domains=domains,
        columns=["x", "g", "s"],
        secret="s",
        random_state=1,
        evaluators=["singling_out"],
    )
    a = anonymeter_risks(train, control, train, **kwargs)
    b = anonymeter_risks(train, control, train, **kwargs)
    pd.testing.assert_frame_equal(a, b)
    assert value(a, "singling_out", "attack_rate") > 0.5
    # a fresh Generator seeded with the int gives the int's frame (random_state's one contract)
    generator = np.random.default_rng(1)
    c = anonymeter_risks(train, control, train, **{**kwargs, "random_state": generator})
    pd.testing.assert_frame_equal(a, c)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


def _bad_calls(train, test, domains):
    ai = dict(domains=domains, features=FEATURES, private="sick")
    an = dict(domains=domains, columns=COLUMNS, secret="sick")
    rl = dict(domains=domains, columns=FEATURES)
    return [
        ("models", lambda: attribute_inference(train, test, train, **ai, models=("rf",))),
        ("models", lambda: attribute_inference(train, test, train, **ai, models="xgb")),
        ("random_state", lambda: attribute_inference(train, test, train, **ai, random_state=-1)),
        ("random_state", lambda: attribute_inference(train, test, train, **ai, random_state=1.5)),
        ("n_estimators", lambda: attribute_inference(train, test, train, **ai, n_estimators=0)),
        ("real_train", lambda: attribute_inference(train.values, test, train, **ai)),
        ("released", lambda: attribute_inference(train, test, train.iloc[:0], **ai)),
        (
            "private",
            lambda: attribute_inference(
                train, test, train, domains=domains, features=FEATURES, private="age"
            ),
        ),
        (
            "features",
            lambda: attribute_inference(
                train, test, train, domains=domains, features="age", private="sick"
            ),
        ),
        (
            "features",
            lambda: attribute_inference(
                train, test, train, domains=domains, features=["age", "age"], private="sick"
            ),
        ),
        (
            "domains",
            lambda: attribute_inference(
                train, test, train, domains={}, features=FEATURES, private="sick"
            ),
        ),
        (
            "released_truth",
            lambda: attribute_inference(train, test, train, **ai, released_truth=[0, 1]),
        ),
        ("n_attacks", lambda: anonymeter_risks(train, test, train, **an, n_attacks=0)),
        ("random_state", lambda: anonymeter_risks(train, test, train, **an, random_state="0")),
        ("random_state", lambda: anonymeter_risks(train, test, train, **an, random_state=-1)),
        (
            "evaluators",
            lambda: anonymeter_risks(train, test, train, **an, evaluators=("membership",)),
        ),
        (
            "secret",
            lambda: anonymeter_risks(
                train, test, train, domains=domains, columns=FEATURES, secret="sick"
            ),
        ),
        ("aux", lambda: anonymeter_risks(train, test, train, **an, aux=["sick", "age"])),
        ("aux", lambda: anonymeter_risks(train, test, train, **an, aux=["age"])),
        ("real_control", lambda: anonymeter_risks(train, test.drop(columns="edu"), train, **an)),
        ("columns", lambda: record_linkage(train, train, domains=domains, columns=[])),
        ("domains", lambda: record_linkage(train, train, domains=[], columns=FEATURES)),
        ("released", lambda: record_linkage(train, train.drop(columns="age"), **rl)),
    ]


def test_bad_inputs_name_the_parameter(data):
    train, test, _, domains = data
    for name, call in _bad_calls(train, test, domains):
        with pytest.raises((ValueError, TypeError), match=name):
            call()


def test_a_release_cell_outside_the_domain_is_named(data):
    train, test, _, domains = data
    released = train.assign(age=train["age"].astype(object))
    released.loc[0, "age"] = "200-210"
    with pytest.raises(ValueError, match="'age'"):
        attribute_inference(
            train, test, released, domains=domains, features=FEATURES, private="sick"
        )


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=2, max_size=60),
)
def test_rank_auc_equals_scikit_learn(pairs):
    from ppdp.attacks.suite import _binary_auc

    y = np.array([p[0] for p in pairs])
    score = np.array([p[1] for p in pairs], dtype=float)  # many ties
    if y.all() or not y.any():
        assert np.isnan(_binary_auc(y, score))
    else:
        assert _binary_auc(y, score) == pytest.approx(roc_auc_score(y, score), abs=1e-12)
