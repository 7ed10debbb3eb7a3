"""Mondrian under k-anonymity and l-diversity, checked with pycanon and by brute force."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ppdp.guarantees import guarantee_report
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.tabular import Hierarchy, is_k_anonymous, is_l_diverse

pycanon = pytest.importorskip("pycanon.anonymity")
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore:.*keys of .groups.*")

FIG1 = pd.DataFrame(
    {
        "name": [
            "Daphne",
            "Helen",
            "Dean",
            "Rachel",
            "Neil",
            "Dave",
            "Ella",
            "Bill",
            "Tina",
            "Louis",
        ],
        "age": [28, 29, 29, 32, 33, 35, 39, 39, 40, 41],
        "disease": [
            "Flu",
            "Hepatitis",
            "Bronchitis",
            "Gastritis",
            "Pneumonia",
            "Pneumonia",
            "Gastritis",
            "Cancer",
            "Flu",
            "Bronchitis",
        ],
    }
)


def random_table(seed, n=60, n_sens=8):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.integers(0, 20, n),
            "b": rng.integers(0, 5, n),
            "c": rng.choice(["x", "y", "z", "w"], n),
            "s": rng.integers(0, n_sens, n),
        }
    )


def l_eligible(table, l):  # noqa: E741 (the paper's l)
    """Only an l-diverse table has an l-diverse partition (Mondrian rejects the others)."""
    return table["s"].value_counts().max() * l <= len(table)


def checked_release(m):
    """The generalized release, with its declared k and l measured by pycanon and by Mondrian."""
    gen = m.transform()
    qi = list(m.qi)
    if m.k is not None:
        assert pycanon.k_anonymity(gen, qi) >= m.k
    if m.l is not None:
        # Definition 2 (each value at most 1/l of a group) implies at least l distinct values
        assert pycanon.l_diversity(gen, qi, [m.sensitive]) >= np.ceil(m.l)
        alpha, _ = pycanon.alpha_k_anonymity(gen, qi, [m.sensitive])
        assert alpha <= 1 / m.l + 1e-12
    report = guarantee_report(m)
    assert report["holds"].all() and len(report) == (m.k is not None) + (m.l is not None)
    return gen


def test_fig1c_five_diverse_partition():
    m = Mondrian(["age"], "disease", l=5).fit(FIG1)
    # the paper's Fig. 1(c): [28-33] and [35-41]
    assert checked_release(m)["age"].tolist() == ["28-33"] * 5 + ["35-41"] * 5
    assert pycanon.l_diversity(m.transform(), ["age"], ["disease"]) >= 5


def test_fig1_two_anonymous_partition_is_k_anonymous():
    m = Mondrian(["age"], k=2).fit(FIG1)
    gen = checked_release(m)
    assert pycanon.k_anonymity(gen, ["age"]) >= 2
    assert m.n_groups_ >= 4


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 12))
def test_k_anonymous_checked_by_pycanon(seed, k):
    table = random_table(seed)
    m = Mondrian(["a", "b", "c"], k=k, categorical=["c"]).fit(table)
    gen = checked_release(m)
    assert pycanon.k_anonymity(gen, ["a", "b", "c"]) >= k
    assert is_k_anonymous(m.groups_, k)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    l=st.sampled_from([2, 3, 4]),
    refine=st.sampled_from(["none", "anatomy"]),
)
def test_l_diverse_checked_by_pycanon(seed, l, refine):  # noqa: E741 (the paper's l)
    table = random_table(seed)
    assume(l_eligible(table, l))
    m = Mondrian(["a", "b", "c"], "s", l=l, categorical=["c"], refine=refine).fit(table)
    gen = checked_release(m)
    # distinct l-diversity (pycanon) and the frequency form of Definition 2 (alpha <= 1/l)
    assert pycanon.l_diversity(gen, ["a", "b", "c"], ["s"]) >= l
    alpha, _ = pycanon.alpha_k_anonymity(gen, ["a", "b", "c"], ["s"])
    assert alpha <= 1 / l + 1e-12
    # pycanon works on the generalized values; check the groups themselves independently too
    sizes = pd.Series(m.groups_).value_counts()
    top = table.assign(g=m.groups_).groupby(["g", "s"]).size().groupby(level=0).max()
    assert (top * l <= sizes.sort_index()).all()
    assert is_l_diverse(table["s"], m.groups_, l)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), l=st.sampled_from([2, 3]))
def test_groups_cannot_be_cut_further(seed, l):  # noqa: E741 (the paper's l)
    """Algorithm 2 stops only when no median cut keeps both halves l-diverse (brute force)."""
    table = random_table(seed, n=40, n_sens=6)
    assume(l_eligible(table, l))
    m = Mondrian(["a", "b"], "s", l=l).fit(table)
    checked_release(m)
    for g in range(m.n_groups_):
        part = table[m.groups_ == g]
        for col in ["a", "b"]:
            vals = np.sort(part[col].to_numpy())
            median = vals[(len(vals) - 1) // 2]
            low, high = part[part[col] <= median], part[part[col] > median]
            ok = [len(h) > 0 and h["s"].value_counts().max() * l <= len(h) for h in (low, high)]
            assert not all(ok)


def test_generalized_values_cover_the_records():
    table = random_table(3)
    m = Mondrian(["a", "b", "c"], "s", l=2, categorical=["c"]).fit(table)
    checked_release(m)
    gen = m.generalized_
    for j, c in enumerate(["a", "b", "c"]):
        dom = gen.domains[c]
        codes = dom.encode(table[c].to_numpy())
        assert gen.membership[c][m.groups_, codes].all()
        if dom.kind == "numeric":
            # intervals are contiguous
            for row in gen.membership[c]:
                idx = np.flatnonzero(row)
                assert np.all(np.diff(idx) == 1)
        assert j >= 0


def test_hierarchy_generalizes_to_common_ancestor():
    h = Hierarchy(
        {
            "flu": "resp",
            "bronchitis": "resp",
            "gastritis": "digest",
            "ulcer": "digest",
            "resp": "any",
            "digest": "any",
        }
    )
    assert h.leaves == ["flu", "bronchitis", "gastritis", "ulcer"]
    assert h.lca(["flu", "bronchitis"]) == "resp"
    assert h.distance("flu", "bronchitis") == 1.0
    assert h.distance("flu", "ulcer") == 3.0
    table = pd.DataFrame({"d": ["flu", "bronchitis", "gastritis", "ulcer"] * 3, "x": range(12)})
    m = Mondrian(["d", "x"], k=3, hierarchies={"d": h}).fit(table)
    gen = checked_release(m)
    assert set(gen["d"]) <= {"flu", "bronchitis", "gastritis", "ulcer", "resp", "digest", "any"}
    assert pycanon.k_anonymity(gen, ["d", "x"]) >= 3


def test_deterministic():
    table = random_table(5)
    ma = Mondrian(["a", "b", "c"], "s", l=3, categorical=["c"]).fit(table)
    mb = Mondrian(["a", "b", "c"], "s", l=3, categorical=["c"]).fit(table)
    np.testing.assert_array_equal(ma.groups_, mb.groups_)
    pd.testing.assert_frame_equal(checked_release(ma), checked_release(mb))


def test_bad_input():
    table = random_table(1)
    with pytest.raises(ValueError, match="larger than the number of distinct"):
        Mondrian(["a"], "s", l=9).fit(table)
    with pytest.raises(ValueError, match="not in the table"):
        Mondrian(["a", "zzz"], "s", l=2).fit(table)
    with pytest.raises(TypeError, match="must be numeric"):
        Mondrian(["a", "c"], "s", l=2).fit(table)
    bad = table.astype({"a": float})
    bad.loc[3, "a"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Mondrian(["a"], "s", l=2).fit(bad)
    with pytest.raises(ValueError, match="k="):
        Mondrian(["a"], k=10_000).fit(table)
    # the constructor stores, fit checks
    with pytest.raises(ValueError, match="neither"):
        Mondrian(["a"]).fit(table)
    with pytest.raises(ValueError, match="sensitive"):
        Mondrian(["a"], l=2).fit(table)
    skew = pd.DataFrame({"a": range(10), "s": [0] * 6 + [1, 2, 3, 4]})
    with pytest.raises(ValueError, match="not 2-diverse"):
        Mondrian(["a"], "s", l=2).fit(skew)
