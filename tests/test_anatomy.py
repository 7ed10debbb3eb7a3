"""Anatomy: l distinct sensitive values per group, Xiao and Tao's group sizes, determinism."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.guarantees import guarantee_report
from ppdp.mechanisms.anatomy import Anatomy, anatomy_groups

pycanon = pytest.importorskip("pycanon.anonymity")
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore:.*keys of .groups.*")


def eligible_table(seed, n=80, n_sens=12, l=4):  # noqa: E741 (the paper's l)
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n_sens, n)
    # cap every value at n / l occurrences
    counts = pd.Series(s).value_counts()
    while counts.max() * l > n:
        s[s == counts.idxmax()] = rng.integers(0, n_sens, (s == counts.idxmax()).sum())
        counts = pd.Series(s).value_counts()
    return pd.DataFrame({"a": rng.integers(0, 50, n), "b": rng.integers(0, 3, n), "s": s})


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), l=st.integers(2, 5))
def test_groups_hold_distinct_values(seed, l):  # noqa: E741 (the paper's l)
    table = eligible_table(seed, l=l)
    an = Anatomy(["a", "b"], "s", l=l).fit(table, np.random.default_rng(seed))
    sizes = np.bincount(an.groups_)
    assert sizes.min() >= l and sizes.max() <= l + 1
    per_group = table.assign(g=an.groups_).groupby("g")["s"]
    assert (per_group.nunique() == per_group.size()).all()
    # independent check: group ids as the published QI of an l-diverse table
    assert pycanon.l_diversity(an.qit_[["group"]].assign(s=table["s"]), ["group"], ["s"]) >= l
    assert pycanon.k_anonymity(an.qit_[["group"]], ["group"]) >= l
    report = guarantee_report(an).set_index("guarantee")
    assert report["holds"].all()
    assert report.loc["group size", "measured"] == sizes.min()
    assert an.st_["count"].sum() == len(table)
    pd.testing.assert_frame_equal(an.qit_[["a", "b"]], table[["a", "b"]])


def test_deterministic_given_seed():
    table = eligible_table(1)
    a = Anatomy(["a", "b"], "s", l=4).fit(table, np.random.default_rng(3))
    b = Anatomy(["a", "b"], "s", l=4).fit(table, np.random.default_rng(3))
    np.testing.assert_array_equal(a.groups_, b.groups_)
    pd.testing.assert_frame_equal(a.st_, b.st_)
    assert pycanon.l_diversity(a.qit_[["group"]].assign(s=table["s"]), ["group"], ["s"]) >= 4
    assert pycanon.k_anonymity(a.qit_[["group"]], ["group"]) >= 4
    assert guarantee_report(a)["holds"].all()


def test_anatomy_groups_residuals():
    # 3 values x 3 + one extra: one residual tuple joins a group without its value
    codes = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3])
    groups = anatomy_groups(codes, 3)
    frame = pd.DataFrame({"g": groups, "s": codes})
    assert (frame.groupby("g")["s"].nunique() == frame.groupby("g").size()).all()


def test_bad_input():
    table = eligible_table(2)
    with pytest.raises(ValueError, match="larger than the number of distinct"):
        Anatomy(["a"], "s", l=50).fit(table, np.random.default_rng(0))
    with pytest.raises(ValueError, match="not in the table"):
        Anatomy(["a", "q"], "s", l=2).fit(table, np.random.default_rng(0))
    with pytest.raises(ValueError, match="eligible"):
        Anatomy(["a"], "s", l=3).fit(
            pd.DataFrame({"a": range(6), "s": [0, 0, 0, 1, 2, 3]}), np.random.default_rng(0)
        )
    too_small = Anatomy(["a"], "s", l=1)  # the constructor stores, fit checks
    with pytest.raises(ValueError, match=r"'l' parameter of Anatomy .*\[2, inf\)\. Got 1"):
        too_small.fit(table, np.random.default_rng(0))
