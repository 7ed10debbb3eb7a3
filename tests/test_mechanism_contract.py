"""Every DataFrame-level mechanism through the one contract of :mod:`ppdp.contract`.

A new mechanism gets every check by adding its :class:`~ppdp.contract.MechanismCase` to
``CASES``. A deliberately broken mechanism, at the end, must fail the checks it breaks.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from populations import SMALL, hyobscure_population
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.contract import (
    MechanismCase,
    check_fit_returns_self_and_keeps_the_table,
    check_guarantees_are_enforced,
    check_release_schema,
    check_same_random_state_same_bytes,
    contract_checks,
)
from ppdp.guarantees import enforce
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.anatomy import Anatomy
from ppdp.mechanisms.imposter import Imposter
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mst import MST
from ppdp.mechanisms.mutual_cover import MutualCover
from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
from ppdp.mechanisms.relay import RelayChain
from ppdp.mechanisms.sppm import TableMapping

pytestmark = pytest.mark.filterwarnings(
    "ignore::ppdp.mechanisms.relay.RelayWarning", "ignore::FutureWarning"
)

DISEASES = np.array(["flu", "cold", "asthma", "ulcer", "gastritis", "none"])


def people(n: int = 60) -> pd.DataFrame:
    """A small census: numeric and text quasi-identifiers, a sensitive column with every value
    on n/6 rows, a binary private attribute and a label, and a non-default index."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 60, n),
            "zip": rng.choice(["a", "b", "c"], n),
            "hours": rng.integers(10, 60, n),
            "disease": DISEASES[np.arange(n) % 6],
            "sex": np.where(np.arange(n) % 3 == 0, "F", "M"),
            "income": rng.choice(["low", "high"], n),
        }
    )
    return frame.set_axis(pd.Index(rng.permutation(n) * 3 + 100, name="row"))


def users(n: int = 160) -> pd.DataFrame:
    """HyObscure's users: non-negative features and an age."""
    X, y, _ = hyobscure_population(0, n=n, n_values=16, m=4)
    frame = pd.DataFrame(X.astype(np.int64), columns=[f"f{j}" for j in range(4)])
    frame["age"] = y
    return frame


GENERALIZATION = {k: SMALL[k] for k in ("n_groups", "k", "alpha", "l", "beta")}

CASES = [
    MechanismCase(
        "mondrian",
        lambda: Mondrian(["age", "zip"], "disease", k=4, categorical=["zip"]),
        people,
        {"k": 0, "refine": "both"},
        column="age",
        numeric="age",
        random=False,
    ),
    MechanismCase(
        "anatomy",
        lambda: Anatomy(["age", "zip"], "disease", l=3),
        people,
        {"l": 1},
        column="disease",
    ),
    MechanismCase(
        "mutual_cover",
        lambda: MutualCover(["age", "hours"], "disease", delta=0.5, l=2),
        people,
        {"delta": 1.5, "solver": "magic"},
        column="age",
        numeric="age",
    ),
    MechanismCase(
        "krr",
        lambda: KaryRandomizedResponse(1.0, columns=["disease", "zip"]),
        people,
        {"epsilon": -1.0, "columns": "disease"},
        column="disease",
    ),
    MechanismCase(
        "relay",
        lambda: RelayChain(
            "tda", hops=2, delta=0.1, sensitive="sex", quasi_identifiers=["age", "hours"]
        ),
        people,
        {"hops": 0, "method": "xyz"},
        column="hours",
        numeric="hours",
        random=False,
    ),
    MechanismCase(
        "sppm",
        lambda: TableMapping(private="sex", released=["zip", "disease"], delta=0.5),
        people,
        {"delta": -0.5},
        column="zip",
    ),
    MechanismCase(
        "hyobscure",
        lambda: hy.TableObfuscation(hy.HyObscure(**SMALL), private="age", kmeans_n_init=1),
        users,
        {"kmeans_n_init": 0},
        column="age",
        numeric="f0",
    ),
    MechanismCase(
        "random_obfuscation",
        lambda: hy.TableObfuscation(
            hy.RandomObfuscation(p_rand=0.5), private="age", **GENERALIZATION
        ),
        users,
        {"k": 0},
        column="age",
        numeric="f1",
    ),
    MechanismCase(
        "imposter",
        lambda: Imposter(
            1.0, private="sex", label="income", epochs=1, hidden=8, batch_size=32, progress=False
        ),
        people,
        {"lam": -1.0, "epochs": 0},
        column="sex",
        numeric="hours",
    ),
    MechanismCase(
        "mst",
        lambda: MST(1.0, n_iters=20),
        lambda: people()[["zip", "disease", "sex", "income"]],
        {"epsilon": -1.0},
        column="zip",
        named_columns=False,
        keeps_index=False,  # as many rows as the noisy total, under a RangeIndex
    ),
]


# The same mechanisms on the tables of the release tests (text columns they do not read, shuffled
# string or integer indexes, categorical dtypes), and the other engines of the two adapters.
from test_release_api_hyobscure import CONSTRAINTS as HY_CONSTRAINTS  # noqa: E402
from test_release_api_hyobscure import FEATURES as HY_FEATURES  # noqa: E402
from test_release_api_hyobscure import _frame as hyobscure_frame  # noqa: E402
from test_release_api_sppm_imposter import small_table as sppm_table  # noqa: E402
from test_release_api_tables import MECHANISMS as TABLE_MECHANISMS  # noqa: E402

TABLE_CASES = {
    # name: (bad parameters, a column it reads, a numeric column it reads)
    "mondrian": ({"k": 0}, "AGE", "AGE"),
    "anatomy": ({"l": 1}, "DISEASE", None),
    "mutual_cover": ({"delta": 0.0}, "EDUC", "EDUC"),
    "krr": ({"epsilon": 0.0}, "colour", None),
    "relay": ({"delta": -1.0}, "q0", "q0"),
}
for _name, (_bad, _column, _numeric) in TABLE_CASES.items():
    _factory, _table, _random = TABLE_MECHANISMS[_name]
    CASES.append(
        MechanismCase(
            f"{_name}_release_table",
            _factory,
            _table,
            _bad,
            column=_column,
            numeric=_numeric,
            random=_random,
        )
    )
for _engine, _make in {
    "dp_obfuscation": lambda: hy.DPObfuscation(beta=5.0),
    "privcheck": lambda: hy.PrivCheck(budget=SMALL["budget"], n_clusters=SMALL["n_clusters"]),
}.items():
    CASES.append(
        MechanismCase(
            _engine,
            lambda _make=_make: hy.TableObfuscation(
                _make(), private="age", features=HY_FEATURES, kmeans_n_init=1, **HY_CONSTRAINTS
            ),
            hyobscure_frame,
            {"kmeans_n_init": 0},
            column="age",
            numeric="item0",
        )
    )
for _method in ("exact", "exponential"):
    CASES.append(
        MechanismCase(
            f"table_mapping_{_method}",
            lambda _method=_method: TableMapping(
                private="sex", released=["x", "y"], delta=0.3, method=_method
            ),
            sppm_table,
            {"delta": -0.5},
            column="x",
        )
    )


@pytest.mark.parametrize("check", list(contract_checks()), ids=lambda c: c.__name__)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_contract(case, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(case)


def test_every_dataframe_mechanism_has_a_case():
    """The classes that subclass Mechanism in the library are all exercised here."""
    import ppdp.mechanisms as mechanisms  # noqa: F401 (import every family)

    exercised = {type(case.make()).__name__ for case in CASES}
    subclasses = {
        cls.__name__ for cls in _all_subclasses(Mechanism) if cls.__module__.startswith("ppdp.")
    }
    assert subclasses <= exercised, sorted(subclasses - exercised)


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


# ------------------------------------------------------------------------------------------------
# the harness fails a mechanism that breaks the contract


class _Broken(Mechanism):
    """Shuffles the caller's table in place, ignores random_state and its own guarantee."""

    def __init__(self, column="age"):
        self.column = column

    def fit(self, df):
        df[self.column] = df[self.column].to_numpy()[::-1]  # mutates the caller's table
        self.table_ = df
        return self

    def release(self, random_state=None):
        check_fitted(self, "table_")
        check_random_state(random_state)
        noise = np.random.default_rng().permutation(len(self.table_))  # not random_state's
        return self.table_.iloc[noise]

    def guarantee_checks(self):
        check_fitted(self, "table_")
        return []


BROKEN = MechanismCase("broken", _Broken, people, {"column": 3}, column="age")


@pytest.mark.parametrize(
    "check",
    [
        check_fit_returns_self_and_keeps_the_table,
        check_same_random_state_same_bytes,
        check_guarantees_are_enforced,
    ],
)
def test_a_broken_mechanism_fails_the_contract(check):
    with pytest.raises(AssertionError):
        check(BROKEN)


def test_a_mechanism_that_enforces_nothing_is_caught():
    """``release`` that never calls ``enforce(self.guarantee_checks())`` fails the check."""

    class Silent(_Broken):
        def fit(self, df):
            self.table_ = df.copy()
            return self

        def release(self, random_state=None):
            check_fitted(self, "table_")
            return self.table_.copy()

    with pytest.raises(AssertionError, match="did not consult"):
        check_guarantees_are_enforced(MechanismCase("silent", Silent, people, {}, column="age"))

    class Honest(Silent):
        def release(self, random_state=None):
            enforce(self.guarantee_checks())
            return super().release(random_state)

    check_guarantees_are_enforced(MechanismCase("honest", Honest, people, {}, column="age"))


def test_a_release_of_object_columns_is_caught():
    """A release that turns every column into ``object`` fails the dtype check, unless the
    mechanism declares the columns it recasts."""

    class Stringly(_Broken):
        guarantee = "none declared: a test fixture"

        def fit(self, df):
            self.table_ = df.copy()
            return self

        def release(self, random_state=None):
            check_random_state(random_state)
            enforce(self.guarantee_checks())
            return self.table_.astype(object)

    with pytest.raises(
        AssertionError, match=r"dtype of undeclared columns .*'age': 'int64 -> object'"
    ):
        check_release_schema(MechanismCase("stringly", Stringly, people, {}, column="age"))

    class Declared(Stringly):
        recast_columns = ("*",)

    check_release_schema(MechanismCase("declared", Declared, people, {}, column="age"))
