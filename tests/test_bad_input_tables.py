"""Bad input to the table mechanisms (Mutual Cover, Mondrian, Anatomy): a clear error naming the
parameter, or, for input that should work (nullable integers, categories, wide integer ranges),
the right answer."""

import time

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from ppdp.mechanisms.anatomy import Anatomy
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mutual_cover import MutualCover

pycanon = pytest.importorskip("pycanon.anonymity")
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore:.*keys of .groups.*")

QI = ["AGE", "EDUC", "HOURS"]


def table(seed=0, n=60):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "AGE": rng.integers(18, 60, n),
            "EDUC": rng.integers(0, 6, n),
            "HOURS": rng.integers(10, 60, n),
            "INCOME": np.arange(n) % 8,
        }
    )


def with_inf(sign):
    t = table().astype({"HOURS": float})
    t.loc[7, "HOURS"] = sign * np.inf
    return t


def duplicated():
    t = table()
    return pd.concat([t, t[["AGE"]]], axis=1)


def mc(**kw):
    return MutualCover(QI, "INCOME", **{"delta": 0.25, "l": 4, **kw})


def fit_mc(data, **kw):
    return mc(**kw).fit(data)


def fitted():
    return mc().fit(table())


GEN = np.random.default_rng(0)

# (id, callable, exception, pattern naming the parameter)
CASES = [
    # -- MutualCover: hyper-parameters
    (
        "mc-delta-above-1",
        lambda: fit_mc(table(), delta=1.5),
        ValueError,
        r"'delta' parameter of MutualCover must be a float in the range \(0\.0, 1\.0\]\. "
        r"Got 1\.5 instead",
    ),
    (
        "mc-delta-below-1/l",
        lambda: fit_mc(table(), delta=0.1),
        ValueError,
        r"delta=0\.1 must lie in \[1/l",
    ),
    ("mc-delta-nan", lambda: fit_mc(table(), delta=float("nan")), ValueError, r"'delta' .*Got nan"),
    ("mc-delta-text", lambda: fit_mc(table(), delta="0.5"), TypeError, r"'delta' .*Got '0\.5'"),
    ("mc-l-below-1", lambda: fit_mc(table(), l=0.5), ValueError, r"'l' .*\[1\.0, inf\)\. Got 0\.5"),
    ("mc-l-bool", lambda: fit_mc(table(), l=True), ValueError, r"'l' .*\[1\.0, inf\)\. Got True"),
    (
        "mc-solver",
        lambda: fit_mc(table(), solver="magic"),
        ValueError,
        r"'solver' .*among \{'ipm', 'simplex', 'batch'\}\. Got 'magic'",
    ),
    (
        "mc-refine",
        lambda: fit_mc(table(), refine="x"),
        ValueError,
        r"'refine' .*among \{'none', 'anatomy'\}\. Got 'x'",
    ),
    (
        "mc-numeric-columns",
        lambda: fit_mc(table(), numeric_columns="all"),
        ValueError,
        r"numeric_columns",
    ),
    (
        "mc-max-range-0",
        lambda: fit_mc(table(), max_range_columns=0),
        ValueError,
        r"max_range_columns",
    ),
    # -- MutualCover: the table and its roles
    ("mc-not-frame", lambda: fit_mc(table().to_numpy()), TypeError, r"table must be a pandas"),
    ("mc-empty", lambda: fit_mc(table().iloc[:0]), ValueError, r"table is empty"),
    (
        "mc-qi-missing",
        lambda: MutualCover(["AGE", "nope"], "INCOME", delta=0.25, l=4).fit(table()),
        ValueError,
        r"qi columns \['nope'\] are not in the table",
    ),
    (
        "mc-qi-string",
        lambda: MutualCover("AGE", "INCOME", delta=0.25, l=4).fit(table()),
        TypeError,
        r"qi must be a non-empty sequence",
    ),
    (
        "mc-sensitive-in-qi",
        lambda: MutualCover([*QI, "INCOME"], "INCOME", delta=0.25, l=4).fit(table()),
        ValueError,
        r"sensitive column 'INCOME' is also listed in qi",
    ),
    (
        "mc-sensitive-missing",
        lambda: MutualCover(QI, "SALARY", delta=0.25, l=4).fit(table()),
        ValueError,
        r"sensitive column 'SALARY' is not in the table",
    ),
    (
        "mc-categorical-not-qi",
        lambda: fit_mc(table(), categorical=["INCOME"]),
        ValueError,
        r"categorical/hierarchies name columns \['INCOME'\]",
    ),
    (
        "mc-l-above-distinct",
        lambda: MutualCover(QI, "INCOME", delta=0.1, l=10).fit(table()),
        ValueError,
        r"l=10 is larger than the number of distinct sensitive values \(8\)",
    ),
    ("mc-duplicate-columns", lambda: fit_mc(duplicated()), ValueError, r"duplicated.*\['AGE'\]"),
    ("mc-inf", lambda: fit_mc(with_inf(1)), ValueError, r"'HOURS' holds infinite"),
    ("mc-minus-inf", lambda: fit_mc(with_inf(-1)), ValueError, r"'HOURS' holds infinite"),
    (
        "mc-groups-shape",
        lambda: mc().fit(table(), groups=np.zeros(5, dtype=int)),
        ValueError,
        r"groups must hold one non-negative integer id per row \(60\)",
    ),
    (
        "mc-groups-too-small",
        lambda: mc().fit(table(), groups=np.arange(60) // 2),
        ValueError,
        r"delta=0\.25 needs groups of at least 4 tuples",
    ),
    # -- MutualCover.sample
    (
        "mc-sample-before-fit",
        lambda: mc().sample(None, np.random.default_rng(0)),
        NotFittedError,
        r"not fitted",
    ),
    ("mc-sample-rng", lambda: fitted().sample(None, "0"), TypeError, r"random_state must be"),
    (
        "mc-sample-other-table",
        lambda: fitted().sample(table(seed=1), np.random.default_rng(0)),
        ValueError,
        r"table must be the table passed to fit",
    ),
    (
        "mc-sample-other-sensitive",
        lambda: fitted().sample(table().assign(INCOME=7 - table()["INCOME"]), GEN),
        ValueError,
        r"table must be the table passed to fit",
    ),
    # -- Mondrian
    (
        "mondrian-k-0",
        lambda: Mondrian(QI, k=0).fit(table()),
        ValueError,
        r"'k' parameter of Mondrian must be an int in the range \[1, inf\) or None\. Got 0",
    ),
    ("mondrian-k-float", lambda: Mondrian(QI, k=2.5).fit(table()), ValueError, r"'k' .*Got 2\.5"),
    ("mondrian-k-bool", lambda: Mondrian(QI, k=True).fit(table()), ValueError, r"'k' .*Got True"),
    (
        "mondrian-l-below-1",
        lambda: Mondrian(QI, "INCOME", l=0.5).fit(table()),
        ValueError,
        r"'l' .*0\.5",
    ),
    ("mondrian-neither", lambda: Mondrian(QI).fit(table()), ValueError, r"give k .* or both"),
    (
        "mondrian-refine",
        lambda: Mondrian(QI, k=2, refine="y").fit(table()),
        ValueError,
        r"'refine' .*'y'",
    ),
    (
        "mondrian-k-above-n",
        lambda: Mondrian(QI, k=61).fit(table()),
        ValueError,
        r"k=61 is larger than the number of tuples \(60\)",
    ),
    (
        "mondrian-l-above-distinct",
        lambda: Mondrian(QI, "INCOME", l=9).fit(table()),
        ValueError,
        r"l=9 is larger than the number of distinct",
    ),
    (
        "mondrian-duplicate-columns",
        lambda: Mondrian(QI, "INCOME", l=2).fit(duplicated()),
        ValueError,
        r"duplicated column names \['AGE'\]",
    ),
    (
        "mondrian-inf",
        lambda: Mondrian(QI, "INCOME", l=2).fit(with_inf(1)),
        ValueError,
        r"QI column 'HOURS' holds infinite",
    ),
    (
        "mondrian-empty",
        lambda: Mondrian(QI, k=2).fit(table().iloc[:0]),
        ValueError,
        r"table is empty",
    ),
    (
        "mondrian-sensitive-in-qi",
        lambda: Mondrian([*QI, "INCOME"], "INCOME", l=2).fit(table()),
        ValueError,
        r"sensitive column 'INCOME' is also listed in qi",
    ),
    (
        "mondrian-transform-before-fit",
        lambda: Mondrian(QI, k=2).transform(),
        NotFittedError,
        r"not fitted",
    ),
    # -- a sensitive column of numbers and strings, which cannot be ordered together
    *(
        (
            f"{name}-mixed-sensitive",
            lambda make=make: make().fit(table().assign(INCOME=[1, "x"] * 30)),
            TypeError,
            r"sensitive column 'INCOME' mixes value types \['number', 'str'\]",
        )
        for name, make in (
            ("mondrian", lambda: Mondrian(QI, "INCOME", l=2)),
            ("anatomy", lambda: Anatomy(QI, "INCOME", l=2)),
            ("mc", lambda: MutualCover(QI, "INCOME", delta=0.5, l=2)),
        )
    ),
    # -- Anatomy
    (
        "anatomy-l-1",
        lambda: Anatomy(QI, "INCOME", l=1).fit(table()),
        ValueError,
        r"'l' parameter of Anatomy must be an int in the range \[2, inf\)\. Got 1 instead",
    ),
    (
        "anatomy-l-float",
        lambda: Anatomy(QI, "INCOME", l=2.5).fit(table()),
        ValueError,
        r"'l' .*Got 2\.5",
    ),
    (
        "anatomy-random-state",
        lambda: Anatomy(QI, "INCOME", l=2).fit(table(), "0"),
        TypeError,
        r"random_state must be None, an int >= 0 or a numpy.random.Generator",
    ),
    (
        "anatomy-l-above-distinct",
        lambda: Anatomy(QI, "INCOME", l=9).fit(table(), np.random.default_rng(0)),
        ValueError,
        r"l=9 is larger than the number of distinct",
    ),
    (
        "anatomy-duplicate-columns",
        lambda: Anatomy(QI, "INCOME", l=2).fit(duplicated(), np.random.default_rng(0)),
        ValueError,
        r"duplicated column names \['AGE'\]",
    ),
    (
        "anatomy-inf",
        lambda: Anatomy(QI, "INCOME", l=2).fit(with_inf(-1), np.random.default_rng(0)),
        ValueError,
        r"'HOURS' holds infinite",
    ),
    (
        "anatomy-sensitive-in-qi",
        lambda: Anatomy([*QI, "INCOME"], "INCOME", l=2).fit(table(), np.random.default_rng(0)),
        ValueError,
        r"sensitive column 'INCOME' is also listed in qi",
    ),
    (
        "anatomy-empty",
        lambda: Anatomy(QI, "INCOME", l=2).fit(table().iloc[:0], np.random.default_rng(0)),
        ValueError,
        r"table is empty",
    ),
]


@pytest.mark.parametrize(
    ("call", "error", "pattern"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input_raises_a_clear_error(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# -- input that must work ------------------------------------------------------------------------


def assert_release_in_tables(model, source, released):
    for g, rows in enumerate(model.group_rows_):
        for c in model.qi_:
            values = pd.Series(released[c]).to_numpy(dtype=object)[rows]
            assert np.isin(values, model.tables_[g][c].columns.astype(object)).all()
    pd.testing.assert_series_equal(released["INCOME"], source["INCOME"])


def test_nullable_integer_qi_works_and_stays_nullable():
    source = table().astype({"AGE": "Int64", "EDUC": "Int32"})
    model = mc().fit(source)
    released = model.sample(source, np.random.default_rng(0))
    assert released.dtypes.equals(source.dtypes)
    assert_release_in_tables(model, source, released)
    # same draws as the plain int64 table
    plain = mc().fit(table()).sample(None, np.random.default_rng(0))
    np.testing.assert_array_equal(released[QI].to_numpy(dtype=float), plain[QI].to_numpy(float))


def test_category_and_string_qis_keep_their_dtype():
    source = table()
    source["EDUC"] = pd.Categorical(
        np.array(list("abcdef"))[source["EDUC"]], categories=list("fedcba")
    )
    source["SEXC"] = pd.Series(np.where(source["AGE"] % 2 == 0, "m", "f"), dtype="str")
    source["INCOME"] = pd.Categorical(source["INCOME"])
    qi = ["AGE", "EDUC", "SEXC"]
    model = MutualCover(qi, "INCOME", delta=0.25, l=4, categorical=["EDUC", "SEXC"]).fit(source)
    released = model.sample(None, np.random.default_rng(1))
    assert released.dtypes.equals(source.dtypes)
    assert list(released["EDUC"].cat.categories) == list("fedcba")
    assert set(released["SEXC"]) <= {"m", "f"}
    # Mondrian's release keeps the sensitive dtype; its QIs are ranges and sets as text
    gen = Mondrian(qi, "INCOME", l=4, categorical=["EDUC", "SEXC"]).fit(source).transform()
    assert gen["INCOME"].dtype == source["INCOME"].dtype
    assert pycanon.l_diversity(gen, qi, ["INCOME"]) >= 4
    # Anatomy's sensitive table lists only the values a group holds, in the input dtype
    an = Anatomy(qi, "INCOME", l=4).fit(source, np.random.default_rng(0))
    assert (an.st_["count"] > 0).all() and an.st_["count"].sum() == len(source)
    assert an.st_["INCOME"].dtype == source["INCOME"].dtype
    pd.testing.assert_frame_equal(an.qit_[qi], source[qi])


def test_sample_publishes_the_fitted_table_only():
    source = table()
    model = mc().fit(source)
    a = model.sample(None, np.random.default_rng(4))
    b = model.sample(source.copy(), np.random.default_rng(4))
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_series_equal(a["INCOME"], source["INCOME"])
    # changing the caller's table after fit does not change what is published
    source.loc[0, "INCOME"] = 99
    c = model.sample(None, np.random.default_rng(4))
    pd.testing.assert_frame_equal(a, c)
    with pytest.raises(ValueError, match="table must be the table passed to fit"):
        model.sample(source, np.random.default_rng(4))


@pytest.mark.parametrize("high", [20_000, 200_000])
def test_wide_integer_qi_uses_the_values_present(high):
    """One LP column per integer of 0..200,000 ran for minutes; the present values take ms."""
    rng = np.random.default_rng(0)
    source = table(n=40).assign(HOURS=rng.integers(0, high, 40))
    start = time.perf_counter()
    model = mc().fit(source)
    released = model.sample(None, np.random.default_rng(0))
    assert time.perf_counter() - start < 30
    for g, rows in enumerate(model.group_rows_):
        present = np.unique(source["HOURS"].to_numpy()[rows])
        span = np.arange(present.min(), present.max() + 1)
        expected = span if len(span) <= 1000 else present
        np.testing.assert_array_equal(model.tables_[g]["HOURS"].columns, expected)
        # narrow QIs keep every integer of the group's range (Fig. 2)
        ages = source["AGE"].to_numpy()[rows]
        np.testing.assert_array_equal(
            model.tables_[g]["AGE"].columns, np.arange(ages.min(), ages.max() + 1)
        )
    assert max(len(t["HOURS"].columns) for t in model.tables_) <= 1000
    assert_release_in_tables(model, source, released)


def test_auto_columns_equal_the_integer_range_on_census_like_ranges():
    """The census QIs span at most 99 integers: "auto" solves exactly the paper's tables."""
    source = table(3)
    auto = mc().fit(source)
    full = mc(numeric_columns="range").fit(source)
    assert auto.objective_ == full.objective_
    for ga, gf in zip(auto.tables_, full.tables_, strict=True):
        for c in QI:
            np.testing.assert_array_equal(ga[c].columns, gf[c].columns)
            np.testing.assert_array_equal(ga[c].probabilities, gf[c].probabilities)
    pd.testing.assert_frame_equal(
        auto.sample(None, np.random.default_rng(2)), full.sample(None, np.random.default_rng(2))
    )


def test_observed_columns_and_a_lower_limit():
    source = table(5)
    obs = mc(numeric_columns="observed").fit(source)
    small = mc(max_range_columns=3).fit(source)
    for go, gs, rows in zip(obs.tables_, small.tables_, obs.group_rows_, strict=True):
        present = np.unique(source["AGE"].to_numpy()[rows])
        np.testing.assert_array_equal(go["AGE"].columns, present)
        if present.max() - present.min() + 1 > 3:
            np.testing.assert_array_equal(gs["AGE"].columns, present)
    assert obs.sample(None, np.random.default_rng(0)).dtypes.equals(source.dtypes)


def test_mondrian_inf_no_longer_publishes_infinite_ranges():
    t = with_inf(1)
    with pytest.raises(ValueError, match="infinite"):
        Mondrian(QI, "INCOME", l=2).fit(t)
    # the finite rows are partitioned normally
    finite = t.drop(index=7)
    gen = Mondrian(QI, "INCOME", l=2).fit(finite).transform()
    assert not gen["HOURS"].str.contains("inf").any()
    assert pycanon.l_diversity(gen, QI, ["INCOME"]) >= 2
