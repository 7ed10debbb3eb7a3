"""Measured anonymity of a release: its k, distinct l and entropy l, read from the published cells.

Checked against a brute-force computation with Python dictionaries on random tables, against
pycanon on an exact table, and on generalized tables whose k and l are known by construction.
"""

from __future__ import annotations

import math
import time
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.compendium.measured import MeasuredAnonymity, measured_anonymity
from ppdp.tabular import AttributeDomain

DISEASES = ["cold", "flu", "hiv", "ulcer"]
PRIVATE_DOMAIN = {"dis": AttributeDomain("dis", "categorical", np.array(DISEASES, dtype=object))}


def brute_force(frame: pd.DataFrame, qi: list[str], private: str, *, regions: bool):
    """k, distinct l, entropy l and class count with dictionaries, row by row."""
    classes: dict[tuple, list] = defaultdict(list)
    for _, row in frame.iterrows():
        classes[tuple(str(row[c]) for c in qi)].append(row[private])
    k = min(len(cells) for cells in classes.values())
    l_distinct = min(len({str(v) for v in cells}) for cells in classes.values())
    entropies = []
    for cells in classes.values():
        if regions:
            mass: dict = defaultdict(float)
            for v in cells:
                members = v[1:-1].split(",") if v.startswith("{") else [v]
                for m in members:
                    mass[m] += 1 / len(members) / len(cells)
            shares = list(mass.values())
        else:
            shares = [c / len(cells) for c in Counter(str(v) for v in cells).values()]
        entropies.append(-sum(p * math.log(p) for p in shares if p > 0))
    return k, l_distinct, math.exp(min(entropies)), len(classes)


qi_age = st.sampled_from([20, 25, 30, "20-29", "30-39"])
qi_zip = st.sampled_from(["100", "101", "10*", "*"])
exact_private = st.sampled_from(DISEASES)
region_private = st.one_of(
    exact_private,
    st.sets(st.sampled_from(DISEASES), min_size=2).map(lambda s: "{" + ",".join(sorted(s)) + "}"),
)


def tables(private):
    return st.lists(st.tuples(qi_age, qi_zip, private), min_size=1, max_size=30).map(
        lambda rows: pd.DataFrame(rows, columns=["age", "zip", "dis"])
    )


@settings(max_examples=30, deadline=None)
@given(frame=tables(exact_private))
def test_exact_private_cells_match_a_brute_force_count(frame):
    want = brute_force(frame, ["age", "zip"], "dis", regions=False)
    for domains in (None, PRIVATE_DOMAIN):  # the two readings agree on exact cells
        got = measured_anonymity(frame, ["age", "zip"], "dis", domains)
        assert (got.k, got.l_distinct, got.n_classes) == (want[0], want[1], want[3])
        assert got.l_entropy == pytest.approx(want[2], rel=1e-12)
        assert 1 <= got.l_entropy <= got.l_distinct + 1e-12


@settings(max_examples=30, deadline=None)
@given(frame=tables(region_private))
def test_region_private_cells_match_a_brute_force_membership(frame):
    want = brute_force(frame, ["age", "zip"], "dis", regions=True)
    got = measured_anonymity(frame, ["age", "zip"], "dis", PRIVATE_DOMAIN)
    assert (got.k, got.l_distinct, got.l_entropy, got.n_classes) == pytest.approx(want, rel=1e-12)
    assert got.k >= 1 and got.l_distinct >= 1 and got.l_entropy >= 1 - 1e-12


def test_a_region_spreads_entropy_over_its_members():
    frame = pd.DataFrame({"age": ["20-29"], "dis": ["{cold,flu,hiv}"]})
    by_cell = measured_anonymity(frame, ["age"], "dis")
    by_domain = measured_anonymity(frame, ["age"], "dis", PRIVATE_DOMAIN)
    assert (by_cell.l_distinct, by_cell.l_entropy) == (1, 1.0)
    assert (by_domain.l_distinct, by_domain.l_entropy) == (1, pytest.approx(3.0))


def test_generalized_groups_have_the_k_and_l_they_were_built_with():
    # a Mondrian-like release: groups of 3, 5, 4 and 7 rows, each with one generalized QI tuple
    groups = [
        (("20-29", "{BA,HS}"), ["cold", "flu", "hiv"]),
        (("20-29", "{MS,PhD}"), ["cold", "cold", "flu", "flu", "ulcer"]),
        (("30-45", "{BA,HS}"), ["flu", "flu", "hiv", "hiv"]),
        (("30-45", "{MS,PhD}"), ["cold", "flu", "hiv", "ulcer", "cold", "flu", "hiv"]),
    ]
    rows = [(age, edu, d) for (age, edu), diseases in groups for d in diseases]
    frame = pd.DataFrame(rows, columns=["age", "edu", "dis"]).sample(frac=1.0, random_state=0)
    got = measured_anonymity(frame, ["age", "edu"], "dis")
    assert got == MeasuredAnonymity(k=3, l_distinct=2, l_entropy=pytest.approx(2.0), n_classes=4)
    # the smallest entropy is the 30-45/{BA,HS} group's ln 2 (two values, half each)
    assert got.as_dict() == {"k": 3, "l_distinct": 2, "l_entropy": got.l_entropy, "n_classes": 4}


def test_unique_qi_tuples_give_k_one():
    frame = pd.DataFrame({"age": [21, 22, 23, 24], "zip": ["1", "1", "2", "2"], "dis": DISEASES})
    got = measured_anonymity(frame, ["age", "zip"], "dis")
    assert (got.k, got.l_distinct, got.l_entropy, got.n_classes) == (1, 1, 1.0, 4)


def test_cells_are_compared_as_published_text():
    # "28-33" is one value, not the ages it covers; 28 and "28" print the same and match
    frame = pd.DataFrame({"age": ["28-33", "28-33", 28, "28"], "dis": ["flu", "cold"] * 2})
    got = measured_anonymity(frame, ["age"], "dis")
    assert (got.k, got.n_classes, got.l_distinct) == (2, 2, 2)


def test_agrees_with_pycanon_on_an_exact_table():
    anonymity = pytest.importorskip(
        "pycanon.anonymity", reason="pycanon is not installed or does not import"
    )
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame(
        {
            "age": rng.choice([20, 30, 40, 50], n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["100", "101", "102"], n),
            "dis": rng.choice(DISEASES, n, p=[0.5, 0.3, 0.15, 0.05]),
        }
    )
    qi = ["age", "sex", "zip"]
    got = measured_anonymity(frame, qi, "dis")
    assert got.k == anonymity.k_anonymity(frame, qi)
    assert got.l_distinct == anonymity.l_diversity(frame, qi, ["dis"])
    # pycanon rounds entropy l down to an integer
    assert anonymity.entropy_l_diversity(frame, qi, ["dis"]) in {
        math.floor(got.l_entropy - 1e-9),
        math.floor(got.l_entropy + 1e-9),
    }


def test_ten_thousand_rows_are_fast():
    rng = np.random.default_rng(1)
    n = 10_000
    frame = pd.DataFrame(
        {
            "age": [f"{lo}-{lo + 9}" for lo in rng.integers(2, 9, n) * 10],
            "zip": rng.integers(0, 500, n).astype(str),
            "sex": rng.choice(["F", "M"], n),
            "dis": rng.choice(["cold", "flu", "{hiv,ulcer}"], n),
        }
    )
    start = time.perf_counter()
    measured_anonymity(frame, ["age", "zip", "sex"], "dis", PRIVATE_DOMAIN)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, f"10,000 rows took {elapsed:.2f} s"


def good_frame() -> pd.DataFrame:
    return pd.DataFrame({"age": ["20-29", "20-29"], "zip": ["1", "1"], "dis": ["flu", "cold"]})


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"released": [[1, 2]]}, TypeError, "released must be a pandas DataFrame"),
        ({"released": pd.DataFrame(columns=["age", "dis"])}, ValueError, "released has no rows"),
        ({"qi": "age"}, TypeError, "qi must be a non-empty sequence"),
        ({"qi": []}, ValueError, "qi is empty"),
        ({"qi": ["age", "age"]}, ValueError, "lists a column twice"),
        ({"qi": ["age", "height"]}, ValueError, r"qi columns \['height'\] are not in released"),
        ({"private": "salary"}, ValueError, "private column 'salary' is not in released"),
        ({"private": ["dis"]}, TypeError, "private must be one column name"),
        ({"qi": ["age", "dis"]}, ValueError, "private column 'dis' is also listed in qi"),
        ({"domains": {}}, ValueError, "domains has no domain for the private column 'dis'"),
        ({"domains": ["dis"]}, TypeError, "domains must be None or a mapping"),
        ({"domains": {"dis": "x"}}, TypeError, r"domains\['dis'\] must be an AttributeDomain"),
        (
            {"released": good_frame().assign(zip=["1", None])},
            ValueError,
            "column 'zip' has missing released values",
        ),
        (
            {"released": good_frame().assign(dis=["flu", "measles"]), "domains": PRIVATE_DOMAIN},
            ValueError,
            "measles",
        ),
    ],
)
def test_bad_input_names_the_parameter(kwargs, error, match):
    args = {"released": good_frame(), "qi": ["age", "zip"], "private": "dis", **kwargs}
    with pytest.raises(error, match=match):
        measured_anonymity(**args)
