"""The cross-mechanism utility suite: count workload, expected answers, workload error, task scores.

Expected answers are checked against independent computations: a pandas count on real tables, a
hand computation on a tiny generalized release, and the laws every probability must obey
(bounds, complements) on random tables with random generalizations.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ppdp.cells import table_domains
from ppdp.tabular import AttributeDomain
from ppdp.utility.workload import (
    CountQuery,
    count_workload,
    expected_counts,
    task_scores,
    workload_error,
)

NUMERIC = ["age", "hours"]
CATEGORICAL = ["edu", "sex", "race"]
COLUMNS = NUMERIC + CATEGORICAL


def make_table(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(17, 70, n),
            "hours": rng.choice([10, 20, 35, 40, 45, 60], n),
            "edu": rng.choice(["BA", "HS", "MS", "PhD", "Assoc"], n, p=[0.3, 0.4, 0.15, 0.05, 0.1]),
            "sex": rng.choice(["F", "M"], n),
            "race": rng.choice(["A", "B", "C", "D"], n, p=[0.6, 0.2, 0.15, 0.05]),
        }
    )


@pytest.fixture(scope="module")
def real():
    return make_table()


@pytest.fixture(scope="module")
def domains(real):
    return table_domains(real, COLUMNS, numeric=NUMERIC)


def pandas_count(frame: pd.DataFrame, domains, query: CountQuery) -> int:
    """The query evaluated on domain values with pandas, independently of cell_membership."""
    mask = pd.Series(True, index=frame.index)
    for c, codes in zip(query.columns, query.codes, strict=True):
        values = domains[c].values[list(codes)]
        if domains[c].kind == "numeric":
            mask &= frame[c].between(values.min(), values.max()) & frame[c].isin(values)
        else:
            mask &= frame[c].isin(values.tolist())
    return int(mask.sum())


# --------------------------------------------------------------------------------------------
# count_workload
# --------------------------------------------------------------------------------------------


def test_same_seed_gives_the_same_workload_and_another_seed_another(real, domains):
    a = count_workload(real, domains, COLUMNS, n_queries=50, random_state=3)
    b = count_workload(real, domains, COLUMNS, n_queries=50, random_state=np.random.default_rng(3))
    c = count_workload(real, domains, COLUMNS, n_queries=50, random_state=4)
    assert a == b
    assert [str(q) for q in a] == [str(q) for q in b]
    assert a != c
    # candidates come one after the other from the stream: a shorter run is a prefix
    assert count_workload(real, domains, COLUMNS, n_queries=20, random_state=3) == a[:20]


@pytest.mark.parametrize("max_attributes", [1, 3, 5, 9])
def test_queries_have_a_positive_count_and_1_to_max_attributes_columns(
    real, domains, max_attributes
):
    queries = count_workload(
        real, domains, COLUMNS, n_queries=120, max_attributes=max_attributes, random_state=0
    )
    assert len(queries) == 120
    sizes = {len(q.columns) for q in queries}
    # at most len(COLUMNS) = 5 columns, however large max_attributes
    assert sizes == set(range(1, min(max_attributes, len(COLUMNS)) + 1))
    for q in queries:
        assert len(set(q.columns)) == len(q.columns)
        assert pandas_count(real, domains, q) > 0
        for c, codes in zip(q.columns, q.codes, strict=True):
            size = domains[c].size
            if c in NUMERIC:
                assert codes == tuple(range(codes[0], codes[-1] + 1))  # contiguous
                assert len(codes) < size  # proper range
            else:
                assert 1 <= len(codes) <= math.ceil(size / 2)  # a proper subset


def test_query_text_is_readable(real, domains):
    q = CountQuery.from_codes(domains, {"age": (13, 14, 15), "edu": (1, 3), "hours": (3,)})
    assert str(q) == "age in [30, 32] AND edu in {BA, MS} AND hours = 40"
    assert q == CountQuery(("age", "edu", "hours"), ((15, 14, 13), (3, 1), (3,)))
    assert str(CountQuery(("sex",), ((1,),))) == "sex in codes {1}"
    for q in count_workload(real, domains, COLUMNS, n_queries=20, random_state=1):
        parts = str(q).split(" AND ")
        assert [p.split(" ")[0] for p in parts] == list(q.columns)
        assert "codes" not in str(q)


def test_zero_count_queries_are_redrawn():
    # two columns whose values always go together: a 2-column query matches in half the cases
    table = pd.DataFrame({"a": ["x", "y"] * 4, "b": ["u", "v"] * 4})
    doms = table_domains(table, ["a", "b"])
    queries = count_workload(
        table, doms, ["a", "b"], n_queries=40, max_attributes=2, random_state=0
    )
    assert all(pandas_count(table, doms, q) > 0 for q in queries)
    pairs = [q for q in queries if len(q.columns) == 2]
    assert pairs and all(q.codes in {((0,), (0,)), ((1,), (1,))} for q in pairs)


def never_matching(monkeypatch):
    """A table holding the smallest of 2000 domain values: almost no proper range contains it."""
    import ppdp.utility.workload as workload

    monkeypatch.setattr(workload, "_MAX_FAILURES", 50)
    table = pd.DataFrame({"v": [0.0] * 4})
    doms = {"v": AttributeDomain("v", "numeric", np.arange(2000.0))}
    count_workload(table, doms, ["v"], n_queries=50, random_state=0)


# --------------------------------------------------------------------------------------------
# expected_counts
# --------------------------------------------------------------------------------------------


def test_expected_counts_on_the_real_table_are_the_pandas_counts(real, domains):
    queries = count_workload(
        real, domains, COLUMNS, n_queries=200, max_attributes=4, random_state=7
    )
    got = expected_counts(real, domains, queries)
    want = np.array([pandas_count(real, domains, q) for q in queries], dtype=float)
    np.testing.assert_array_equal(got, want)
    # a shuffled table with another index gives the same counts
    shuffled = real.sample(frac=1.0, random_state=1).set_index(np.arange(len(real)) * 7 + 3)
    np.testing.assert_array_equal(expected_counts(shuffled, domains, queries), want)
    assert expected_counts(real, domains, []).shape == (0,)


def test_expected_counts_of_a_generalized_release_by_hand():
    real = pd.DataFrame(
        {
            "age": [20, 25, 30, 50, 50, 25],
            "edu": ["BA", "HS", "BA", "MS", "HS", "MS"],
        }
    )
    doms = table_domains(real, ["age", "edu"], numeric=["age"])  # ages 20, 25, 30, 50
    # two groups of a partition, published as Mondrian does
    released = pd.DataFrame(
        {
            "age": ["20-30", "20-30", "20-30", "50-50", "50-50", "25-50"],
            "edu": ["{BA,HS}", "{BA,HS}", "{BA,HS}", "{HS,MS}", "{HS,MS}", "MS"],
        }
    )
    q_age = CountQuery.from_codes(doms, {"age": (1, 2)})  # age in [25, 30]
    q_edu = CountQuery.from_codes(doms, {"edu": (0,)})  # edu = BA
    q_both = CountQuery.from_codes(doms, {"age": (1, 2), "edu": (0,)})
    q_ms = CountQuery.from_codes(doms, {"age": (3,), "edu": (2,)})  # age 50 AND MS
    got = expected_counts(released, doms, [q_age, q_edu, q_both, q_ms])
    # "20-30" holds 3 domain values (20, 25, 30): 2/3 of each of rows 0-2 is in [25, 30];
    # "50-50" none; "25-50" holds 25, 30, 50: 2/3
    age = 3 * (2 / 3) + 0 + 2 / 3
    # "{BA,HS}" puts 1/2 on BA; "{HS,MS}" and "MS" nothing
    edu = 3 * (1 / 2)
    both = 3 * (2 / 3) * (1 / 2)
    # rows 3, 4: age 50 surely, MS with 1/2; row 5: 50 with 1/3, MS surely
    ms = 2 * (1 / 2) + 1 / 3
    np.testing.assert_allclose(got, [age, edu, both, ms], rtol=1e-12)
    # real answers: ages 25, 30, 25 -> 3; BA twice; age in [25, 30] and BA: row 2; 50 and MS: row 3
    np.testing.assert_array_equal(
        expected_counts(real, doms, [q_age, q_edu, q_both, q_ms]), [3, 2, 1, 1]
    )
    errors = workload_error(real, released, doms, [q_age, q_edu, q_both, q_ms])
    np.testing.assert_allclose(
        errors, np.abs(np.array([age, edu, both, ms]) - [3, 2, 1, 1]) / [3, 2, 1, 1]
    )


def test_class_means_split_between_neighbouring_values():
    real = pd.DataFrame({"age": [20, 30, 40, 40]})
    doms = table_domains(real, ["age"], numeric=["age"])
    # a relay chain publishes class means: 27.5 is 1/4 of the way from 20 to 30... 3/4 towards 30
    released = pd.DataFrame({"age": [27.5, 27.5, 40.0, 35.0]})
    q30 = CountQuery.from_codes(doms, {"age": (1,)})
    q_hi = CountQuery.from_codes(doms, {"age": (1, 2)})
    np.testing.assert_allclose(
        expected_counts(released, doms, [q30, q_hi]), [0.75 + 0.75 + 0.5, 1.5 + 1 + 1]
    )


def test_release_of_another_size_is_scaled(real, domains):
    queries = count_workload(real, domains, COLUMNS, n_queries=30, random_state=2)
    doubled = pd.concat([real, real], ignore_index=True)
    np.testing.assert_allclose(workload_error(real, doubled, domains, queries), 0.0, atol=1e-12)
    half = real.iloc[: len(real) // 2]
    errors = workload_error(real, half, domains, queries)
    c_real = expected_counts(real, domains, queries)
    c_half = expected_counts(half, domains, queries)
    np.testing.assert_allclose(errors, np.abs(2 * c_half - c_real) / c_real)


# --------------------------------------------------------------------------------------------
# Properties on random tables and random generalizations
# --------------------------------------------------------------------------------------------


@st.composite
def table_and_release(draw):
    n = draw(st.integers(3, 40))
    real = pd.DataFrame(
        {
            "x": draw(st.lists(st.integers(0, 12), min_size=n, max_size=n)),
            "y": draw(st.lists(st.sampled_from([1.5, 2.0, 7.25, 10.0]), min_size=n, max_size=n)),
            "c": draw(st.lists(st.sampled_from("abcde"), min_size=n, max_size=n)),
        }
    )
    groups = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    released = real.copy().astype(object)
    by_group = real.groupby(groups)
    modes = draw(st.tuples(*[st.sampled_from(["keep", "region", "mean"])] * 3))
    for col, mode in zip(["x", "y", "c"], modes, strict=True):
        if mode == "keep":
            continue
        if col == "c":
            cells = by_group[col].transform(lambda s: "{" + ",".join(sorted(set(s))) + "}")
        elif mode == "region":
            lo, hi = by_group[col].transform("min"), by_group[col].transform("max")
            cells = lo.map("{:g}".format) + "-" + hi.map("{:g}".format)
        else:
            cells = by_group[col].transform("mean")
        released[col] = cells.to_numpy()
    seed = draw(st.integers(0, 2**16))
    return real, released, seed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table_and_release())
def test_expected_counts_obey_probability_laws(case):
    real, released, seed = case
    doms = table_domains(real, ["x", "y", "c"], numeric=["x", "y"])
    queries = count_workload(
        real, doms, ["x", "y", "c"], n_queries=8, max_attributes=3, random_state=seed
    )
    for frame in (real, released):
        counts = expected_counts(frame, doms, queries)
        assert np.all(counts >= -1e-9) and np.all(counts <= len(frame) + 1e-9)
        for q, count in zip(queries, counts, strict=True):
            c, codes = q.columns[0], q.codes[0]
            rest = set(range(doms[c].size)) - set(codes)
            if not rest:
                continue
            # the query and its complement on one column, with or without the other columns
            single = CountQuery((c,), (codes,))
            single_not = CountQuery((c,), (tuple(rest),))
            other = CountQuery((c, *q.columns[1:]), (tuple(rest), *q.codes[1:]))
            pair = expected_counts(frame, doms, [single, single_not])
            np.testing.assert_allclose(pair.sum(), len(frame), rtol=1e-9)
            if len(q.columns) > 1:
                without = CountQuery(q.columns[1:], q.codes[1:])
                total = expected_counts(frame, doms, [other, without])
                np.testing.assert_allclose(count + total[0], total[1], rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(workload_error(real, real.copy(), doms, queries), 0.0)


# --------------------------------------------------------------------------------------------
# task_scores
# --------------------------------------------------------------------------------------------


def toy_task(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 100, n)
    c = rng.choice(["a", "b", "c"], n)
    logit = (x - 50) / 8 + np.where(c == "a", 2.0, 0.0)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), ">50K", "<=50K")
    return pd.DataFrame({"x": x, "c": c, "y": y})


@pytest.fixture(scope="module")
def toy():
    table = toy_task()
    doms = table_domains(table, ["x", "c"], numeric=["x"])
    return table.iloc[:1500].reset_index(drop=True), table.iloc[1500:].reset_index(drop=True), doms


@pytest.mark.parametrize("model", ["xgb", "lr"])
def test_task_scores_learn_a_learnable_task_and_not_shuffled_labels(toy, model):
    train, test, doms = toy
    kw = {"domains": doms, "features": ["x", "c"], "target": "y", "model": model}
    scores = task_scores(train, test, **kw)
    assert set(scores) == {"auc", "accuracy"}
    assert scores["auc"] > 0.85 and scores["accuracy"] > 0.75
    assert task_scores(train, test, **kw) == scores  # deterministic
    # shuffled labels: nothing to learn. Both sides are shuffled, because a model fitted to noise
    # still ranks the real test records by some direction of x (a logistic regression by a tiny
    # slope of random sign), which on the real labels gives an AUC far from 0.5 either way
    shuffled = train.assign(y=np.random.default_rng(1).permutation(train["y"].to_numpy()))
    shuffled_test = test.assign(y=np.random.default_rng(2).permutation(test["y"].to_numpy()))
    null = task_scores(shuffled, shuffled_test, **kw)
    assert abs(null["auc"] - 0.5) < 0.06


def test_task_scores_on_a_generalized_release_and_edge_cases(toy):
    train, test, doms = toy
    kw = {"domains": doms, "features": ["x", "c"], "target": "y", "n_estimators": 30}
    general = train.assign(x=(train.x // 10 * 10).map(lambda v: f"{v}-{min(v + 9, 99)}"))
    assert task_scores(general, test, **kw)["auc"] > 0.8
    # positive given: the AUC of the other class is the same for two classes
    a = task_scores(train, test, **kw)
    b = task_scores(train, test, positive="<=50K", **kw)
    assert a["auc"] == pytest.approx(b["auc"]) and a["accuracy"] == b["accuracy"]
    # a single class in the release: predict it
    one = train.assign(y="<=50K")
    scores = task_scores(one, test, **kw)
    assert scores["auc"] == 0.5
    assert scores["accuracy"] == pytest.approx(np.mean(test.y == "<=50K"))
    # a single class in the test records: AUC undefined
    assert math.isnan(task_scores(train, test[test.y == ">50K"], **kw)["auc"])
    # three classes: macro one-vs-rest AUC
    three = train.assign(y=np.where(train.x < 33, "lo", np.where(train.x < 66, "mid", "hi")))
    three_test = test.assign(y=np.where(test.x < 33, "lo", np.where(test.x < 66, "mid", "hi")))
    assert task_scores(three, three_test, **kw)["auc"] > 0.95
    # integer labels are compared as text
    ints = train.assign(y=(train.y == ">50K").astype(int))
    ints_test = test.assign(y=(test.y == ">50K").astype(int))
    assert task_scores(ints, ints_test, positive=1, **kw)["auc"] == pytest.approx(a["auc"])


# --------------------------------------------------------------------------------------------
# Bad inputs
# --------------------------------------------------------------------------------------------


def test_bad_workload_arguments_name_the_parameter(real, domains, monkeypatch):
    with pytest.raises(ValueError, match="n_queries"):
        count_workload(real, domains, COLUMNS, n_queries=0, random_state=0)
    with pytest.raises(ValueError, match="max_attributes"):
        count_workload(real, domains, COLUMNS, max_attributes=0, random_state=0)
    with pytest.raises(TypeError, match="random_state"):
        count_workload(real, domains, COLUMNS, random_state="seed")
    with pytest.raises(ValueError, match="random_state"):
        count_workload(real, domains, COLUMNS, random_state=-1)
    with pytest.raises(ValueError, match=r"columns \['zip'\] are not in real"):
        count_workload(real, domains, ["age", "zip"], random_state=0)
    with pytest.raises(ValueError, match="lists a column twice"):
        count_workload(real, domains, ["age", "age"], random_state=0)
    with pytest.raises(TypeError, match="columns"):
        count_workload(real, domains, "age", random_state=0)
    with pytest.raises(TypeError, match="real must be a pandas DataFrame"):
        count_workload(real.to_numpy(), domains, COLUMNS, random_state=0)
    with pytest.raises(TypeError, match="domains"):
        count_workload(real, list(domains.values()), COLUMNS, random_state=0)
    with pytest.raises(ValueError, match=r"have no domain"):
        count_workload(real, {"age": domains["age"]}, ["age", "sex"], random_state=0)
    with pytest.raises(RuntimeError, match="50 random queries in a row had no matching row"):
        never_matching(monkeypatch)


def test_bad_queries_name_the_problem(real, domains):
    with pytest.raises(ValueError, match="one code set per column"):
        CountQuery(("age", "sex"), ((1,),))
    with pytest.raises(ValueError, match="codes of column 'age' is empty"):
        CountQuery(("age",), ((),))
    with pytest.raises(ValueError, match="lists a column twice"):
        CountQuery(("age", "age"), ((1,), (2,)))
    with pytest.raises(TypeError, match="codes of column 'age' must be ints"):
        CountQuery(("age",), ((1.5,),))
    with pytest.raises(TypeError, match="columns must be"):
        CountQuery("age", ((1,),))
    with pytest.raises(ValueError, match=r"queries\[1\] accepts code 9 of column 'sex'"):
        expected_counts(
            real, domains, [CountQuery(("sex",), ((0,),)), CountQuery(("sex",), ((9,),))]
        )
    with pytest.raises(
        ValueError, match=r"queries\[0\] uses column 'sex', which is not in the table"
    ):
        expected_counts(real.drop(columns="sex"), domains, [CountQuery(("sex",), ((0,),))])
    with pytest.raises(TypeError, match=r"queries\[0\] must be a CountQuery"):
        expected_counts(real, domains, [("sex", (0,))])
    with pytest.raises(TypeError, match="queries must be a sequence of CountQuery"):
        expected_counts(real, domains, CountQuery(("sex",), ((0,),)))
    with pytest.raises(TypeError, match="frame must be a pandas DataFrame"):
        expected_counts(real.to_dict(), domains, [])
    with pytest.raises(ValueError, match=r"column 'edu'.*'\{BA,College\}'"):
        bad = real.assign(edu="{BA,College}")
        expected_counts(bad, domains, [CountQuery(("edu",), ((0,),))])
    nothing = CountQuery(("age", "sex"), ((0,), (0,)))
    tiny = real.iloc[:1].assign(age=int(domains["age"].values[1]))
    with pytest.raises(ValueError, match=r"queries \[0\] have no matching row in real"):
        workload_error(tiny, tiny, domains, [nothing])
    with pytest.raises(ValueError, match="released has no rows"):
        workload_error(real, real.iloc[:0], domains, [])


def test_bad_task_arguments_name_the_parameter(toy):
    train, test, doms = toy
    kw = {"domains": doms, "features": ["x", "c"], "target": "y"}
    with pytest.raises(ValueError, match="model"):
        task_scores(train, test, **{**kw, "model": "svm"})
    with pytest.raises(ValueError, match="n_estimators"):
        task_scores(train, test, **{**kw, "n_estimators": 0})
    with pytest.raises(ValueError, match="random_state"):
        task_scores(train, test, **{**kw, "random_state": -1})
    with pytest.raises(ValueError, match="target 'y' must not be among the features"):
        task_scores(train, test, **{**kw, "features": ["x", "y"]})
    with pytest.raises(ValueError, match="target 'z' is not a column of released"):
        task_scores(train, test, **{**kw, "target": "z"})
    with pytest.raises(ValueError, match=r"positive='yes' is not a class of real_test\['y'\]"):
        task_scores(train, test, positive="yes", **kw)
    with pytest.raises(ValueError, match="features is empty; name at least one column"):
        task_scores(train, test, **{**kw, "features": []})
    with pytest.raises(ValueError, match=r"features \['w'\] have no domain"):
        task_scores(train, test, **{**kw, "features": ["x", "w"]})
    with pytest.raises(TypeError, match="real_test must be a pandas DataFrame"):
        task_scores(train, None, **kw)


def test_precomputed_truth_gives_the_same_errors(real, domains):
    queries = count_workload(real, domains, COLUMNS, n_queries=30, random_state=3)
    half = real.iloc[: len(real) // 2]
    truth = expected_counts(real, domains, queries)
    np.testing.assert_array_equal(
        workload_error(real, half, domains, queries, truth=truth),
        workload_error(real, half, domains, queries),
    )
    with pytest.raises(ValueError, match=r"truth must hold one count per query \(30\)"):
        workload_error(real, half, domains, queries, truth=truth[:-1])
