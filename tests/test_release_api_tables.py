"""One release API for the table mechanisms: ``fit(df)``, ``release(random_state)``, ``fit_release``.

Mondrian, Anatomy, Mutual Cover, k-RR and the relay chain each release one DataFrame with the
fitted table's columns, index and row order; the guarantee is checked here on the release itself,
independently of the mechanism's own check (and with pycanon for Mondrian and Anatomy).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from ppdp.mechanisms.anatomy import Anatomy
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mutual_cover import MutualCover
from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
from ppdp.mechanisms.relay import RelayChain, RelayWarning, privacy_disclosure, sanitize

pycanon = pytest.importorskip("pycanon.anonymity")
pytestmark = pytest.mark.filterwarnings(
    "ignore::FutureWarning",
    "ignore:.*keys of .groups.*",
    "ignore::ppdp.mechanisms.relay.RelayWarning",
)

QI = ["AGE", "EDUC", "HOURS"]
DISEASES = np.array(["flu", "cold", "asthma", "ulcer", "gastritis", "bronchitis", "none", "hiv"])


def shuffled_index(n: int) -> pd.Index:
    """A non-default index, so that a release that reset it would be caught."""
    return pd.Index(np.random.default_rng(99).permutation(n) * 3 + 100, name="row")


def mondrian_table(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "note": [f"r{i}" for i in range(n)],
            "AGE": rng.integers(18, 60, n),
            "EDUC": rng.integers(0, 6, n),
            "DISEASE": DISEASES[np.arange(n) % 8],
            "HOURS": rng.integers(10, 60, n),
        }
    )
    return frame.set_axis(shuffled_index(n))


def anatomy_table(n: int = 60) -> pd.DataFrame:
    # every disease on n/8 rows: 3-eligible
    return mondrian_table(n)


def mc_table(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "AGE": rng.integers(18, 60, n),
            "EDUC": rng.integers(0, 6, n),
            "note": [f"r{i}" for i in range(n)],
            "HOURS": rng.integers(10, 60, n),
            "INCOME": np.arange(n) % 8,
        }
    )
    return frame.set_axis(shuffled_index(n))


def krr_table(n: int = 80) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "id": np.arange(n),
            "colour": rng.choice(["red", "green", "blue", "black"], n),
            "size": rng.integers(0, 5, n),
        }
    )
    return frame.set_axis(shuffled_index(n))


def relay_table(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(21)
    frame = pd.DataFrame(
        {
            "q0": rng.integers(0, 12, n),
            "note": [f"r{i}" for i in range(n)],
            "q1": rng.integers(0, 12, n),
            "s": rng.integers(0, 2, n),
        }
    )
    return frame.set_axis(shuffled_index(n))


RELAY = {"method": "fla", "hops": 3, "delta": 0.02, "sensitive": "s"}

# name -> (factory, table, draws at random in release)
MECHANISMS = {
    "mondrian": (lambda: Mondrian(QI, "DISEASE", k=4, l=3), mondrian_table, False),
    "anatomy": (lambda: Anatomy(QI, "DISEASE", l=3), anatomy_table, True),
    "mutual_cover": (lambda: MutualCover(QI, "INCOME", delta=0.25, l=4), mc_table, True),
    "krr": (lambda: KaryRandomizedResponse(0.1, columns=["colour", "size"]), krr_table, True),
    "relay": (lambda: RelayChain(**RELAY, quasi_identifiers=["q0", "q1"]), relay_table, False),
}
NAMES = sorted(MECHANISMS)
RANDOM = [name for name in NAMES if MECHANISMS[name][2]]


def fitted(name: str):
    factory, table, _ = MECHANISMS[name]
    df = table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelayWarning)
        return factory().fit(df), df


# -- the protocol --------------------------------------------------------------------------------


def test_anatomy_fit_release_seeds_the_groups_and_the_shuffle():
    # Anatomy draws its groups in fit: fit_release(df, s) runs fit and release on one generator
    df = anatomy_table()
    one = Anatomy(QI, "DISEASE", l=3).fit_release(df, random_state=0)
    gen = np.random.default_rng(0)
    two = Anatomy(QI, "DISEASE", l=3).fit(df, gen).release(random_state=gen)
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(one, Anatomy(QI, "DISEASE", l=3).fit_release(df, random_state=0))


# -- the guarantee, checked on the release -------------------------------------------------------


def test_mondrian_release_is_k_anonymous_and_l_diverse():
    mech, df = fitted("mondrian")
    released = mech.release(random_state=0)
    pd.testing.assert_frame_equal(released, mech.release(random_state=None))
    # QIs are what transform publishes, the rest is the input
    transformed = mech.transform()
    for c in QI:
        np.testing.assert_array_equal(released[c].to_numpy(), transformed[c].to_numpy())
    pd.testing.assert_frame_equal(released[["note", "DISEASE"]], df[["note", "DISEASE"]])
    classes = released.groupby(QI)["DISEASE"]
    assert classes.size().min() >= 4
    top = classes.agg(lambda s: s.value_counts().max())
    assert (top * 3 <= classes.size()).all()
    # pycanon selects the rows of a class by position: give it a default index
    plain = released.reset_index(drop=True)
    assert pycanon.k_anonymity(plain, QI) >= 4
    assert pycanon.l_diversity(plain, QI, ["DISEASE"]) >= 3


def test_anatomy_release_keeps_every_group_multiset():
    mech, df = fitted("anatomy")
    released = mech.release(random_state=0)
    pd.testing.assert_frame_equal(released.drop(columns="DISEASE"), df.drop(columns="DISEASE"))
    assert released["DISEASE"].dtype == df["DISEASE"].dtype
    assert not released["DISEASE"].equals(df["DISEASE"])  # the shuffle moved something
    groups = pd.Series(mech.groups_, index=df.index)
    for _, rows in groups.groupby(groups).groups.items():
        assert sorted(released.loc[rows, "DISEASE"]) == sorted(df.loc[rows, "DISEASE"])
    # the paper's two tables are unchanged by a release
    assert mech.st_["count"].sum() == len(df)
    pd.testing.assert_frame_equal(mech.qit_[QI], df[QI])
    published = released.assign(group=mech.groups_.astype(str)).reset_index(drop=True)
    assert pycanon.l_diversity(published, ["group"], ["DISEASE"]) >= 3
    assert pycanon.k_anonymity(published, ["group"]) >= 3


def test_anatomy_accepts_int_and_generator_alike():
    df = anatomy_table()
    by_int = Anatomy(QI, "DISEASE", l=3).fit(df, 5)
    by_gen = Anatomy(QI, "DISEASE", l=3).fit(df, np.random.default_rng(5))
    np.testing.assert_array_equal(by_int.groups_, by_gen.groups_)
    pd.testing.assert_frame_equal(by_int.st_, by_gen.st_)
    with pytest.raises(ValueError, match="random_state"):
        Anatomy(QI, "DISEASE", l=3).fit(df, -1)


def test_mutual_cover_release_is_sample():
    mech, df = fitted("mutual_cover")
    for seed in (0, 7):
        expected = mech.sample(None, np.random.default_rng(seed))
        pd.testing.assert_frame_equal(mech.release(random_state=seed), expected)
    released = mech.release(random_state=0)
    assert released.dtypes.equals(df.dtypes)
    pd.testing.assert_frame_equal(released[["note", "INCOME"]], df[["note", "INCOME"]])


def test_krr_release_is_randomize():
    mech, df = fitted("krr")
    for seed in (0, 7):
        expected = mech.randomize(df, np.random.default_rng(seed))
        pd.testing.assert_frame_equal(mech.release(random_state=seed), expected)
    released = mech.release(random_state=0)
    pd.testing.assert_series_equal(released["id"], df["id"])
    for c in ("colour", "size"):
        assert set(released[c]) <= set(df[c])


def test_relay_release_is_the_hop_th_table():
    mech, df = fitted("relay")
    hops, delta = RELAY["hops"], RELAY["delta"]
    # the chain recomputed hop by hop with sanitize (each participant sees only its input)
    current = df
    for i in range(1, hops + 1):
        nxt = (hops - i) * delta if i < hops else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RelayWarning)
            current = sanitize(
                current,
                (hops - i + 1) * delta,
                method="fla",
                sensitive="s",
                quasi_identifiers=["q0", "q1"],
                next_delta=nxt,
            )
        released = mech.release(random_state=0, hop=i)
        pd.testing.assert_frame_equal(released, mech.tables_[i - 1])
        pd.testing.assert_frame_equal(released, current)
        assert privacy_disclosure(released, "s", ["q0", "q1"]) <= (hops - i + 1) * delta + 1e-12
    pd.testing.assert_frame_equal(mech.release(), mech.tables_[0])
    # a copy: editing the release leaves the chain as published
    released = mech.release(hop=2)
    released["q0"] = -1.0
    assert (mech.tables_[1]["q0"] != -1.0).all()


@pytest.mark.parametrize(("hop", "error"), [(0, ValueError), (4, ValueError), (-1, ValueError)])
def test_relay_bad_hop_out_of_range(hop, error):
    mech, _ = fitted("relay")
    pattern = r"'hop' parameter of RelayChain\.release must be an int in the range \[1, 3\]\. "
    with pytest.raises(error, match=pattern + rf"Got {hop} instead"):
        mech.release(hop=hop)


@pytest.mark.parametrize("hop", [1.5, True, "1", None])
def test_relay_bad_hop_type(hop):
    mech, _ = fitted("relay")
    with pytest.raises(TypeError, match=rf"'hop' .*\[1, 3\]\. Got {re.escape(repr(hop))} "):
        mech.release(hop=hop)
