"""ILoss of randomized and generalized values; SUM-query errors and bounds."""

import operator

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.mechanisms.anatomy import Anatomy
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mutual_cover import MutualCover
from ppdp.utility.information_loss import iloss_generalized, iloss_randomized
from ppdp.utility.queries import (
    Predicate,
    Query,
    bounds_anatomy,
    bounds_generalized,
    generate_queries,
    query_mask,
    query_sums,
    relative_error,
    relative_error_bounds,
)


def table(seed=0, n=120):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "sex": rng.integers(1, 3, n),
            "educ": rng.choice(["hs", "ba", "ms", "phd"], n),
            "hours": rng.integers(10, 60, n),
            "salary": rng.integers(1, 40, n) * 1000,
        }
    )


QI = ["age", "sex", "educ", "hours"]


def test_iloss_of_unchanged_table_is_zero():
    t = table()
    assert iloss_randomized(t, t, QI, categorical=["educ"]) == 0.0
    # generalization into singleton groups loses nothing either
    t1 = t.drop_duplicates(QI).reset_index(drop=True)
    mon = Mondrian(QI, k=1, categorical=["educ"]).fit(t1)
    gen = Mondrian(QI, k=1, categorical=["educ"]).fit(t1).generalized_
    assert mon.n_groups_ <= len(t1)
    if mon.n_groups_ == len(t1):
        assert iloss_generalized(gen) == 0.0


def test_iloss_by_hand():
    orig = pd.DataFrame({"age": [20, 30, 40], "c": ["a", "b", "c"]})
    rel = pd.DataFrame({"age": [22, 30, 39], "c": ["a", "c", "c"]})
    # |D_age| = 40 - 20 + 1 = 21, |D_c| = 3
    want = (2 + 0 + 1) / 21 + 1 / 3
    assert iloss_randomized(orig, rel, ["age", "c"], categorical=["c"]) == pytest.approx(want)
    per = iloss_randomized(orig, rel, ["age", "c"], categorical=["c"], per_attribute=True)
    assert per["age"] == pytest.approx(3 / 21)


def test_iloss_generalized_by_hand():
    # Fig. 1(c): [28-33] x5 and [35-41] x5 over ages 28..41 (|D| = 14)
    fig1 = pd.DataFrame({"age": [28, 29, 29, 32, 33, 35, 39, 39, 40, 41], "d": list("ABCDEEDFAC")})
    gen = Mondrian(["age"], "d", l=5).fit(fig1).generalized_
    assert iloss_generalized(gen) == pytest.approx((5 * 5 + 5 * 6) / 14)


def test_iloss_errors():
    t = table()
    with pytest.raises(ValueError, match="rows"):
        iloss_randomized(t, t.iloc[:5], QI, categorical=["educ"])
    with pytest.raises(ValueError, match="not in the table"):
        iloss_randomized(t, t, ["age", "zip"])


def naive_sum(t, q):
    mask = np.ones(len(t), bool)
    for p in q.predicates:
        col = t[p.attribute]
        if p.op == "in":
            mask &= col.isin(p.values).to_numpy()
        else:
            op = {
                ">": operator.gt,
                "<": operator.lt,
                "=": operator.eq,
                ">=": operator.ge,
                "<=": operator.le,
                "!=": operator.ne,
            }[p.op]
            mask &= np.array([op(v, p.values[0]) for v in col], dtype=bool)
    return t.loc[mask, "salary"].sum()


def test_generated_queries_structure_and_exact_sums():
    t = table(1)
    qs = generate_queries(
        t,
        QI,
        "salary",
        numeric=["age", "hours"],
        random_state=np.random.default_rng(0),
        n_queries=50,
    )
    assert len(qs) == 50
    for q in qs:
        assert len(q.predicates) == 4
        assert len({p.attribute for p in q.predicates}) == 4
        for p in q.predicates:
            assert (p.op == "in") == (p.attribute in ("sex", "educ"))
    sums = query_sums(t, qs, "salary")
    assert np.all(sums > 0)
    np.testing.assert_allclose(sums, [naive_sum(t, q) for q in qs])
    again = generate_queries(
        t,
        QI,
        "salary",
        numeric=["age", "hours"],
        random_state=np.random.default_rng(0),
        n_queries=50,
    )
    assert [str(q) for q in qs] == [str(q) for q in again]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_bounds_contain_the_true_answer(seed):
    t = table(seed)
    rng = np.random.default_rng(seed)
    qs = generate_queries(
        t, QI, "salary", numeric=["age", "hours"], random_state=rng, n_queries=30, n_predicates=2
    )
    actual = query_sums(t, qs, "salary")
    mon = Mondrian(QI, "salary", l=3, categorical=["educ"]).fit(t)
    lo, hi = bounds_generalized(mon.generalized_, qs)
    assert np.all(lo <= actual + 1e-9) and np.all(hi >= actual - 1e-9)
    an = Anatomy(QI, "salary", l=3).fit(t, rng)
    lo2, hi2 = bounds_anatomy(an.qit_, an.groups_, t["salary"], qs)
    assert np.all(lo2 <= actual + 1e-9) and np.all(hi2 >= actual - 1e-9)
    assert np.all(relative_error_bounds(lo2, hi2, actual) >= 0)


def test_anatomy_bounds_by_hand():
    qit = pd.DataFrame({"age": [1, 2, 3, 4]})
    groups = np.array([0, 0, 1, 1])
    s = np.array([10.0, 30.0, 5.0, 7.0])
    q = Query((Predicate("age", "<=", (3,)),))
    lo, hi = bounds_anatomy(qit, groups, s, [q])
    # group 0 fully matches (40); group 1 has one match: 5 .. 7
    assert lo[0] == 45 and hi[0] == 47


def test_generalized_bounds_by_hand():
    fig1 = pd.DataFrame(
        {"age": [28, 29, 29, 32, 33, 35, 39, 39, 40, 41], "s": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}
    )
    gen = Mondrian(["age"], "s", l=5).fit(fig1).generalized_  # [28-33], [35-41]
    q = Query((Predicate("age", ">", (30,)),))
    lo, hi = bounds_generalized(gen, [q])
    assert lo[0] == 40 and hi[0] == 55
    q2 = Query((Predicate("age", ">=", (28,)),))
    lo, hi = bounds_generalized(gen, [q2])
    assert lo[0] == hi[0] == 55


def test_randomized_release_exact_evaluation():
    t = table(3, n=200)
    mc = MutualCover(QI, "salary", delta=0.25, l=4, categorical=["educ"])
    rel = mc.fit_sample(t, np.random.default_rng(0))
    qs = generate_queries(
        t,
        QI,
        "salary",
        numeric=["age", "hours"],
        random_state=np.random.default_rng(1),
        n_queries=20,
    )
    est = query_sums(rel, qs, "salary")
    np.testing.assert_allclose(est, [naive_sum(rel, q) for q in qs])
    err = relative_error(est, query_sums(t, qs, "salary"))
    assert np.all(err >= 0)
    assert relative_error(query_sums(t, qs, "salary"), query_sums(t, qs, "salary")).max() == 0


def test_query_errors():
    t = table()
    with pytest.raises(ValueError, match="n_predicates"):
        generate_queries(
            t, QI, "salary", numeric=["age"], random_state=np.random.default_rng(0), n_predicates=9
        )
    with pytest.raises(ValueError, match="not in the table"):
        query_mask(t, Query((Predicate("zip", "=", (1,)),)))
    with pytest.raises(ValueError, match="positive"):
        relative_error([1.0], [0.0])
