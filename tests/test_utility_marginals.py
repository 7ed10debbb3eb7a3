"""Marginal fidelity: TV distance between the real and the released 1-way and 2-way marginals.

The released marginals are checked against an independent computation that parses every cell by
hand and loops over rows and domain values, against the closed form of a release that replaces a
column by its whole domain, and against the laws of total variation (bounds, symmetry, and that
summing a 2-way marginal down to one column cannot increase the distance).
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.cells import table_domains
from ppdp.tabular import AttributeDomain, Hierarchy
from ppdp.utility.marginals import marginal_distance, mean_marginal_tv

AGES = [1, 2, 3, 4, 5, 6, 7, 8]
EDUS = ["a", "b", "c", "d", "e"]
SEXES = ["F", "M"]
COLUMNS = ["age", "edu", "sex"]
DOMAINS = {
    "age": AttributeDomain("age", "numeric", np.array(AGES)),
    "edu": AttributeDomain("edu", "categorical", np.array(EDUS, dtype=object)),
    "sex": AttributeDomain("sex", "categorical", np.array(SEXES, dtype=object)),
}


def random_real(n: int, rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": rng.choice(AGES, n),
            "edu": rng.choice(EDUS, n, p=[0.4, 0.3, 0.15, 0.1, 0.05]),
            "sex": rng.choice(SEXES, n),
        }
    )


def random_release(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Ranges ``"lo-hi"`` and single ages, value sets and single values, exact sexes."""
    ages, edus = [], []
    for _ in range(n):
        lo = int(rng.choice(AGES))
        hi = int(rng.choice([a for a in AGES if a >= lo]))
        ages.append(f"{lo}-{hi}" if rng.random() < 0.7 else lo)
        size = int(rng.integers(1, len(EDUS) + 1))
        members = sorted(rng.choice(EDUS, size, replace=False).tolist())
        edus.append("{" + ",".join(members) + "}" if size > 1 or rng.random() < 0.5 else members[0])
    return pd.DataFrame({"age": ages, "edu": edus, "sex": rng.choice(SEXES, n)})


def parse_cell(value, column: str) -> dict:
    """A cell's distribution over its domain, parsed without :mod:`ppdp.cells`."""
    if column == "age":
        if isinstance(value, str) and "-" in value:
            lo, hi = (int(x) for x in value.split("-"))
            inside = [a for a in AGES if lo <= a <= hi]
            return {a: 1 / len(inside) for a in inside}
        return {int(value): 1.0}
    if isinstance(value, str) and value.startswith("{"):
        members = value[1:-1].split(",")
        return {m: 1 / len(members) for m in members}
    return {value: 1.0}


def values_of(column: str) -> list:
    return {"age": AGES, "edu": EDUS, "sex": SEXES}[column]


def brute_marginal(frame: pd.DataFrame, cols: tuple[str, ...]) -> dict:
    """Mean over rows of the product of the rows' cell distributions, by explicit loops."""
    out = {key: 0.0 for key in itertools.product(*(values_of(c) for c in cols))}
    for _, row in frame.iterrows():
        dists = [parse_cell(row[c], c) for c in cols]
        for key in out:
            p = 1.0
            for dist, v in zip(dists, key, strict=True):
                p *= dist.get(v, 0.0)
            out[key] += p
    return {key: p / len(frame) for key, p in out.items()}


def brute_tv(real: pd.DataFrame, released: pd.DataFrame, cols: tuple[str, ...]) -> float:
    p, q = brute_marginal(real, cols), brute_marginal(released, cols)
    return 0.5 * sum(abs(p[key] - q[key]) for key in p)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("order", [1, 2])
def test_marginals_match_a_brute_force_computation(seed, order):
    rng = np.random.default_rng(seed)
    real = random_real(40, rng)
    released = random_release(27, rng)  # another number of rows, as a synthetic table has
    got = marginal_distance(real, released, DOMAINS, COLUMNS, order=order)
    combos = list(itertools.combinations(COLUMNS, order))
    assert got["columns"].tolist() == [",".join(c) for c in combos]
    want = [brute_tv(real, released, c) for c in combos]
    np.testing.assert_allclose(got["tv"].to_numpy(), want, rtol=0, atol=1e-12)
    assert mean_marginal_tv(real, released, DOMAINS, COLUMNS, order) == pytest.approx(
        np.mean(want), abs=1e-12
    )


def test_result_is_a_tidy_frame():
    real = random_real(30, np.random.default_rng(3))
    got = marginal_distance(real, real, DOMAINS, COLUMNS, order=2)
    assert list(got.columns) == ["columns", "tv"]
    assert got["columns"].tolist() == ["age,edu", "age,sex", "edu,sex"]
    assert got["tv"].dtype == float


@pytest.mark.parametrize("order", [1, 2])
def test_identical_tables_are_at_distance_zero(order):
    real = random_real(50, np.random.default_rng(4))
    got = marginal_distance(real, real.copy(), DOMAINS, COLUMNS, order=order)
    assert (got["tv"] == 0).all()
    assert mean_marginal_tv(real, real, DOMAINS, COLUMNS, order=order) == 0


@pytest.mark.parametrize(
    ("column", "whole"), [("age", "1-8"), ("edu", "{a,b,c,d,e}"), ("sex", "{F,M}")]
)
def test_a_whole_domain_column_is_at_the_distance_of_the_uniform(column, whole):
    real = random_real(60, np.random.default_rng(5))
    released = real.copy()
    released[column] = whole
    got = marginal_distance(real, released, DOMAINS, COLUMNS, order=1).set_index("columns")["tv"]
    values = values_of(column)
    freq = real[column].value_counts(normalize=True).reindex(values, fill_value=0.0)
    want = 0.5 * sum(abs(f - 1 / len(values)) for f in freq)
    assert got[column] == pytest.approx(want, abs=1e-12)
    assert all(got[c] == 0 for c in COLUMNS if c != column)


def test_a_whole_domain_pair_is_at_the_distance_of_the_uniform_pair():
    real = random_real(60, np.random.default_rng(6))
    released = real.copy()
    released["edu"] = "{a,b,c,d,e}"
    released["sex"] = "{F,M}"
    got = marginal_distance(real, released, DOMAINS, ["edu", "sex"], order=2)
    joint = pd.crosstab(real["edu"], real["sex"], normalize=True)
    joint = joint.reindex(index=EDUS, columns=SEXES, fill_value=0.0)
    want = 0.5 * np.abs(joint.to_numpy() - 1 / (len(EDUS) * len(SEXES))).sum()
    assert got["tv"].iloc[0] == pytest.approx(want, abs=1e-12)


def test_disjoint_supports_are_at_distance_one():
    real = pd.DataFrame({"sex": ["F"] * 5})
    released = pd.DataFrame({"sex": ["M"] * 3})
    assert mean_marginal_tv(real, released, DOMAINS, ["sex"], order=1) == 1.0


def test_a_class_mean_is_read_between_its_neighbours():
    # 2.5 splits its mass between 2 and 3: the release's age marginal is (0, 1/2, 1/2, 0, ...)
    real = pd.DataFrame({"age": [2, 3]})
    released = pd.DataFrame({"age": [2.5, 2.5]})
    assert mean_marginal_tv(real, released, DOMAINS, ["age"], order=1) == pytest.approx(0.0)


def test_a_hierarchy_node_is_uniform_over_its_leaves():
    tree = Hierarchy({"a": "low", "b": "low", "c": "high", "low": "*", "high": "*"})
    domains = {
        "edu": AttributeDomain("edu", "categorical", np.array(["a", "b", "c"], dtype=object), tree)
    }
    real = pd.DataFrame({"edu": ["a", "a", "c", "c"]})
    released = pd.DataFrame({"edu": ["low", "low", "c", "*"]})
    # released marginal: a = (1/2 + 1/2 + 1/3) / 4 = 1/3, b = 1/3, c = (1 + 1/3) / 4 = 1/3
    want = 0.5 * (abs(1 / 2 - 1 / 3) + abs(0 - 1 / 3) + abs(1 / 2 - 1 / 3))
    got = mean_marginal_tv(real, released, domains, ["edu"], order=1)
    assert got == pytest.approx(want, abs=1e-12)


def test_domains_from_the_real_table():
    real = random_real(40, np.random.default_rng(7))
    domains = table_domains(real, COLUMNS, numeric=["age"])
    released = random_release(20, np.random.default_rng(8))
    released["age"] = released["age"].map(lambda v: v if isinstance(v, str) else "1-8")
    released["edu"] = "{" + ",".join(domains["edu"].values.tolist()) + "}"
    got = marginal_distance(real, released, domains, COLUMNS, order=2)
    assert ((got["tv"] >= 0) & (got["tv"] <= 1)).all()


# --------------------------------------------------------------------------------------------
# Laws of total variation
# --------------------------------------------------------------------------------------------


def exact_tables():
    row = st.tuples(st.sampled_from(AGES), st.sampled_from(EDUS), st.sampled_from(SEXES))
    return st.lists(row, min_size=1, max_size=25).map(
        lambda rows: pd.DataFrame(rows, columns=COLUMNS)
    )


age_cells = st.one_of(
    st.sampled_from(AGES),
    st.tuples(st.sampled_from(AGES), st.sampled_from(AGES)).map(lambda t: f"{min(t)}-{max(t)}"),
)
edu_cells = st.one_of(
    st.sampled_from(EDUS),
    st.sets(st.sampled_from(EDUS), min_size=2).map(lambda s: "{" + ",".join(sorted(s)) + "}"),
)
sex_cells = st.sampled_from(["F", "M", "{F,M}"])
released_tables = st.lists(st.tuples(age_cells, edu_cells, sex_cells), min_size=1, max_size=25).map(
    lambda rows: pd.DataFrame(rows, columns=COLUMNS)
)


@settings(max_examples=30, deadline=None)
@given(real=exact_tables(), released=released_tables)
def test_tv_is_a_probability_and_pairs_bound_their_columns(real, released):
    one = marginal_distance(real, released, DOMAINS, COLUMNS, order=1)
    two = marginal_distance(real, released, DOMAINS, COLUMNS, order=2)
    for got in (one, two):
        assert ((got["tv"] >= 0) & (got["tv"] <= 1)).all()
    single = one.set_index("columns")["tv"]
    for pair, tv in zip(two["columns"], two["tv"], strict=True):
        a, b = pair.split(",")
        # summing a 2-way marginal over one column gives the other's 1-way marginal
        assert tv >= max(single[a], single[b]) - 1e-12


@settings(max_examples=30, deadline=None)
@given(first=exact_tables(), second=exact_tables())
def test_tv_is_symmetric_between_exact_tables(first, second):
    for order in (1, 2):
        ab = marginal_distance(first, second, DOMAINS, COLUMNS, order=order)["tv"].to_numpy()
        ba = marginal_distance(second, first, DOMAINS, COLUMNS, order=order)["tv"].to_numpy()
        np.testing.assert_allclose(ab, ba, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------------
# Scale and errors
# --------------------------------------------------------------------------------------------


def test_ten_thousand_rows_and_nine_columns_are_fast():
    rng = np.random.default_rng(9)
    n, sizes = 10_000, [70, 16, 7, 14, 6, 5, 2, 40, 90]
    real = pd.DataFrame({f"c{i}": rng.integers(0, s, n) for i, s in enumerate(sizes)})
    columns = list(real.columns)
    domains = table_domains(real, columns, numeric=columns)
    released = real.copy()
    released["c0"] = [f"{lo}-{lo + 4}" for lo in (real["c0"] // 5) * 5]
    released["c8"] = (real["c8"] + 0.5).clip(upper=89)
    start = time.perf_counter()
    got = marginal_distance(real, released, domains, columns, order=2)
    elapsed = time.perf_counter() - start
    assert len(got) == 36
    assert elapsed < 2.0, f"36 pairs over 10,000 rows took {elapsed:.2f} s"


def bad_call(**overrides):
    real = random_real(10, np.random.default_rng(10))
    args = {
        "real": real,
        "released": real,
        "domains": DOMAINS,
        "columns": COLUMNS,
        "order": 1,
        **overrides,
    }
    order = args.pop("order")
    return marginal_distance(**args, order=order)


@pytest.mark.parametrize(
    ("overrides", "error", "match"),
    [
        ({"columns": ["age", "zip"]}, ValueError, r"columns \['zip'\] have no domain"),
        ({"domains": {"age": DOMAINS["age"]}}, ValueError, r"\['edu', 'sex'\] have no domain"),
        ({"released": pd.DataFrame({"age": [1]})}, ValueError, "not in the released table"),
        ({"real": pd.DataFrame({"age": [1]})}, ValueError, "not in the real table"),
        ({"order": 3}, ValueError, "order must be 1"),
        ({"order": 0}, ValueError, "order must be 1"),
        ({"order": True}, ValueError, "order must be 1"),
        ({"order": 1.0}, ValueError, "order must be 1"),
        ({"order": 2, "columns": ["age"]}, ValueError, "order=2 marginals need at least 2"),
        ({"columns": []}, ValueError, "columns is empty"),
        ({"columns": ["age", "age"]}, ValueError, "lists a column twice"),
        ({"columns": "age"}, TypeError, "columns must be a non-empty sequence"),
        ({"real": pd.DataFrame(columns=COLUMNS)}, ValueError, "real has no rows"),
        ({"released": pd.DataFrame(columns=COLUMNS)}, ValueError, "released has no rows"),
        ({"released": [[1, "a", "F"]]}, TypeError, "released must be a pandas DataFrame"),
        ({"domains": ["age"]}, TypeError, "domains of marginal_distance must be a mapping"),
        (
            {"released": pd.DataFrame({"age": ["9-12"], "edu": ["a"], "sex": ["F"]})},
            ValueError,
            "range '9-12' holds no value",
        ),
        (
            {"released": pd.DataFrame({"age": [1], "edu": [None], "sex": ["F"]})},
            ValueError,
            "column 'edu' has missing values",
        ),
    ],
)
def test_bad_input_names_the_parameter(overrides, error, match):
    with pytest.raises(error, match=match):
        bad_call(**overrides)
