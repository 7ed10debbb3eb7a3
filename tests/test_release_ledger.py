"""Releases count themselves: what a second release from one fit adds, per mechanism.

k-RR's releases compose (n releases of one fit spend n epsilon) and a cap refuses the release that
would pass it; Mutual Cover's are new draws for the same people, so the second warns; MST's are
post-processing of a private model and Mondrian's are the same table, so neither warns.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ppdp import (
    MST,
    GuaranteeViolation,
    KaryRandomizedResponse,
    Mechanism,
    Mondrian,
    MutualCover,
    RepeatedReleaseWarning,
)
from ppdp.base import REPETITION, check_random_state


def people(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 60, n),
            "hours": rng.integers(10, 60, n),
            "zip": rng.choice(["a", "b", "c"], n),
            "disease": np.array(["flu", "cold", "asthma", "ulcer", "gastritis", "none"])[
                np.arange(n) % 6
            ],
            "sex": np.where(np.arange(n) % 3 == 0, "F", "M"),
        }
    )


def releases_warned(mech, n: int, **release_params) -> list[int]:
    """The number of RepeatedReleaseWarnings each of ``n`` releases issued."""
    counts = []
    for seed in range(n):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mech.release(random_state=seed, **release_params)
        counts.append(sum(issubclass(w.category, RepeatedReleaseWarning) for w in caught))
    return counts


def test_krr_refuses_the_release_that_would_pass_its_cap():
    mech = KaryRandomizedResponse(1.0, columns=["sex"], epsilon_cap=2.0).fit(people())
    assert mech.spent() == {"sex": 0.0}
    first, second = mech.release(random_state=0), mech.release(random_state=1)
    assert mech.n_releases_ == 2 and mech.spent() == {"sex": 2.0}
    assert not first.equals(second)
    with pytest.raises(GuaranteeViolation, match=r"requires <= 2, measured 3 at sex, release 3"):
        mech.release(random_state=2)
    assert mech.n_releases_ == 2, "a refused release was counted"
    mech.fit(people())
    assert mech.n_releases_ == 0 and mech.spent() == {"sex": 0.0}, "fit did not reset the ledger"
    mech.release(random_state=3)
    assert mech.spent() == {"sex": 1.0}


def test_krr_composes_each_columns_own_epsilon_without_a_cap():
    mech = KaryRandomizedResponse({"sex": 0.5, "zip": 2.0}, columns=["sex", "zip"]).fit(people())
    assert releases_warned(mech, 3) == [0, 0, 0]
    assert mech.spent() == {"sex": 1.5, "zip": 6.0}


@pytest.mark.parametrize("cap", [0.0, -1.0, True, "2", float("nan")])
def test_krr_refuses_a_bad_cap_at_fit_by_name(cap):
    with pytest.raises((ValueError, TypeError), match="epsilon_cap"):
        KaryRandomizedResponse(1.0, columns=["sex"], epsilon_cap=cap).fit(people())


def test_mutual_cover_warns_once_on_its_second_release():
    mech = MutualCover(["age", "hours"], "disease", delta=0.5, l=2).fit(people())
    assert releases_warned(mech, 3) == [0, 1, 0]
    fresh = MutualCover(["age", "hours"], "disease", delta=0.5, l=2).fit(people())
    fresh.release(random_state=0)
    with pytest.warns(RepeatedReleaseWarning, match="another independent draw for the same"):
        fresh.release(random_state=1)
    assert mech.spent() is None, "no theorem bounds Mutual Cover's repeated releases"


def test_post_processing_and_deterministic_releases_do_not_warn():
    mst = MST(1.0, n_iters=20).fit(people()[["zip", "disease", "sex"]], random_state=0)
    assert releases_warned(mst, 3) == [0, 0, 0]
    assert mst.spent() == {"epsilon": 1.0, "delta": mst.delta}
    mondrian = Mondrian(["age", "zip"], "disease", k=4, categorical=["zip"]).fit(people())
    assert releases_warned(mondrian, 3) == [0, 0, 0]
    assert mondrian.n_releases_ == 3


class Noisy(Mechanism):
    """A mechanism whose release adds noise; its subclass releases through it."""

    guarantee = "none declared: a test mechanism"
    repetition = "leaks"

    def fit(self, df):
        self.table_ = df.copy()
        return self

    def guarantee_checks(self):
        return []

    def release(self, random_state=None):
        rng = check_random_state(random_state)
        return self.table_.assign(age=self.table_["age"] + rng.normal(size=len(self.table_)))


class Noisier(Noisy):
    def release(self, random_state=None):
        return super().release(random_state).assign(hours=0)


def test_a_release_through_the_parent_class_counts_once():
    mech = Noisier().fit(people())
    assert releases_warned(mech, 3) == [0, 1, 0]
    assert mech.n_releases_ == 3


def test_a_failed_release_is_not_counted():
    mech = Noisy().fit(people())
    with pytest.raises(TypeError, match="random_state"):
        mech.release(random_state=1.5)
    assert mech.n_releases_ == 0


def test_every_kind_of_repetition_is_explained():
    assert set(REPETITION) == {"deterministic", "post-processing", "composes", "leaks"}
    assert all(len(text.split()) > 8 for text in REPETITION.values())
