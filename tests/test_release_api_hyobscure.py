"""HyObscure and its baselines through the table protocol: ``TableObfuscation.fit(df).release()``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from populations import SMALL, hyobscure_population
from ppdp.guarantees import GuaranteeCheck, GuaranteeViolation
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure import TableObfuscation
from ppdp.mechanisms.hyobscure.table import group_labels

# the module's fitted adapters are released by several tests, on purpose
pytestmark = pytest.mark.filterwarnings("ignore::ppdp.base.RepeatedReleaseWarning")

N_USERS = 240
FEATURES = [f"item{j}" for j in range(15)]
#: The I-problem's settings, given to the adapter for the baselines (HyObscure holds its own).
CONSTRAINTS = {name: SMALL[name] for name in ("n_groups", "k", "alpha", "l", "beta")}

MECHANISMS = {
    "HyObscure": lambda: hy.HyObscure(**SMALL),
    "DPObfuscation": lambda: hy.DPObfuscation(beta=5.0),
    "PrivCheck": lambda: hy.PrivCheck(budget=SMALL["budget"], n_clusters=SMALL["n_clusters"]),
}


def _frame(seed: int = 0, n: int = N_USERS) -> pd.DataFrame:
    """``n`` users: integer ratings ``item0..item14``, the private ``age`` (between them, to check
    the column order) and an untouched text column ``city``; string index."""
    X, y, _ = hyobscure_population(seed, n=n, n_values=16)
    df = pd.DataFrame(X.astype(np.int64), columns=FEATURES)
    df.insert(3, "age", y)
    df["city"] = np.where(np.arange(n) % 3 == 0, "Paris", "Lyon")
    df.index = pd.Index([f"u{i:03d}" for i in range(n)], name="user")
    return df


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return _frame()


def _adapter(name: str, **kw) -> TableObfuscation:
    mech = MECHANISMS[name]()
    settings = {} if isinstance(mech, hy.HyObscure) else dict(CONSTRAINTS)
    settings.update(kw)
    settings.setdefault("features", FEATURES)
    settings.setdefault("kmeans_n_init", 1)
    return TableObfuscation(mech, private="age", **settings)


@pytest.fixture(scope="module", params=list(MECHANISMS))
def fitted(request, df):
    return request.param, _adapter(request.param).fit(df, random_state=0)


# ------------------------------------------------------------------------------------------------
# protocol


def test_release_keeps_columns_index_dtypes_and_other_columns(fitted, df):
    _, adapter = fitted
    out = adapter.release(random_state=1)
    assert list(out.columns) == list(df.columns)
    assert out.index.equals(df.index)
    assert (out[FEATURES].dtypes == df[FEATURES].dtypes).all()
    pd.testing.assert_series_equal(out["city"], df["city"])
    assert out["age"].map(type).eq(str).all()
    # the user's frame is untouched and the given mechanism left unfitted
    assert df["age"].dtype == np.int64
    assert not hasattr(adapter.mechanism, "generalization_")


# ------------------------------------------------------------------------------------------------
# what is released


def test_a_fit_from_a_generator_equals_a_fit_from_its_seed(fitted, df):
    """The numpy-seeded fit reads an int and a fresh Generator of that seed alike (the contract
    checks the rest of the random_state protocol for every mechanism)."""
    name, adapter = fitted
    by_gen = _adapter(name).fit(df, random_state=np.random.default_rng(0))
    pd.testing.assert_frame_equal(by_gen.release(random_state=1), adapter.release(random_state=1))


def test_private_column_holds_one_label_per_group(fitted, df):
    _, adapter = fitted
    out = adapter.release(random_state=3)
    gen = adapter.generalization_
    labels = adapter.group_labels_
    assert labels == group_labels(gen)
    assert len(labels) == len(set(labels)) == gen.n_groups
    assert set(out["age"]) == set(labels)  # every group holds users, so every label appears
    expected = np.asarray(labels, dtype=object)[gen.transform(df["age"].to_numpy())]
    assert (out["age"].to_numpy(dtype=object) == expected).all()
    for label, age in zip(out["age"], df["age"], strict=True):
        lo, _, hi = label.partition("-")
        assert int(lo) <= age <= int(hi or lo)


def test_every_feature_row_comes_from_a_user_of_the_same_group(fitted, df):
    _, adapter = fitted
    out = adapter.release(random_state=4)
    labels = np.asarray(adapter.group_labels_, dtype=object)
    own_label = labels[adapter.generalization_.transform(df["age"].to_numpy())]
    rows_of = {
        label: {tuple(r) for r in df.loc[own_label == label, FEATURES].to_numpy()}
        for label in labels
    }
    released = out[FEATURES].to_numpy()
    assert all(
        tuple(row) in rows_of[label] for row, label in zip(released, out["age"], strict=True)
    )
    assert (released != df[FEATURES].to_numpy()).any()  # something was obfuscated


def test_released_features_are_the_cores_release(fitted, df):
    """The documented pipeline, run on the arrays with the core functions, gives the same draw."""
    name, adapter = fitted
    mech = MECHANISMS[name]()
    X = df[FEATURES].to_numpy(np.float64)
    y = df["age"].to_numpy()
    rng = np.random.default_rng(0)
    clusters = None
    if isinstance(mech, hy.HyObscure | hy.PrivCheck):
        clusters = hy.cluster_users(X, SMALL["n_clusters"], rng, n_init=1)
    gen0 = hy.initial_generalization(y, hy.private_domain(y), *CONSTRAINTS.values(), rng, n_init=10)
    if isinstance(mech, hy.HyObscure):
        mech.fit(X, y, random_state=rng, clusters=clusters, generalization=gen0)
    else:
        mech.fit(X, y, generalization=gen0, clusters=clusters, random_state=rng)
    core = mech.release(random_state=np.random.default_rng(5))
    out = adapter.release(random_state=5)
    assert np.array_equal(out[FEATURES].to_numpy(np.float64), core.features)
    labels = np.asarray(group_labels(mech.generalization_), dtype=object)
    assert (out["age"].to_numpy(dtype=object) == labels[core.groups]).all()
    assert np.array_equal(adapter.generalization_.labels, mech.generalization_.labels)


def test_hyobscure_through_the_table_is_its_own_fit(df):
    """With k-means restarts as in ``cluster_users`` and no clusters, the adapter adds nothing to
    ``HyObscure.fit(X, y, random_state=...)``: same clusters, same G^0, same G-problem moves."""
    adapter = _adapter("HyObscure", kmeans_n_init=10).fit(df, random_state=11)
    core = hy.HyObscure(**SMALL).fit(
        df[FEATURES].to_numpy(np.float64),
        df["age"].to_numpy(),
        random_state=np.random.default_rng(11),
    )
    assert np.array_equal(adapter.mechanism_.mappings_, core.mappings_)
    released = adapter.release(random_state=2)[FEATURES].to_numpy(np.float64)
    assert np.array_equal(released, core.release(random_state=np.random.default_rng(2)).features)


def test_release_runs_the_mechanisms_guarantee_checks(df, monkeypatch):
    adapter = _adapter("PrivCheck").fit(df, random_state=0)
    assert [c.guarantee for c in adapter.guarantee_checks()] == ["utility budget"]
    broken = GuaranteeCheck("PrivCheck", "utility budget", 0.0, 1.0, "at_most", "all users")
    monkeypatch.setattr(adapter.mechanism_, "guarantee_checks", lambda: [broken])
    with pytest.raises(GuaranteeViolation, match="utility budget"):
        adapter.release(random_state=0)


def test_other_mechanisms_default_features_and_cluster_column():
    df = _frame(1).drop(columns="city")
    _, _, clusters = hyobscure_population(1, n=N_USERS, n_values=16)
    for mech in (
        hy.XObf(**SMALL),
        hy.YGen(**SMALL),
        hy.RandomObfuscation(0.5),
        hy.Frapp(10.0),
        hy.Similarity(0.5),
    ):
        settings = {} if isinstance(mech, hy.HyObscure) else CONSTRAINTS
        adapter = TableObfuscation(mech, private="age", kmeans_n_init=1, **settings)
        out = adapter.fit_release(df, random_state=0)
        assert adapter.feature_columns_ == FEATURES
        assert list(out.columns) == list(df.columns) and out.index.equals(df.index)
        assert set(out["age"]) == set(adapter.group_labels_)
    # a column of given clusters is not a feature, goes to the mechanism and is released as is
    with_clusters = df.assign(segment=clusters)
    adapter = TableObfuscation(
        hy.PrivCheck(budget=0.05), private="age", clusters="segment", **CONSTRAINTS
    )
    out = adapter.fit_release(with_clusters, random_state=0)
    assert "segment" not in adapter.feature_columns_
    assert np.array_equal(adapter.clusters_, clusters)
    pd.testing.assert_series_equal(out["segment"], with_clusters["segment"])


def test_group_labels_of_a_grid():
    cells = np.array([0, 1, 2, 60, 61, 62, 120, 121, 122])  # a 3 x 3 block of a 60-wide grid
    domain = hy.private_domain(cells, "grid")
    gen = hy.Generalization(domain, (cells % 60 >= 2).astype(np.int64))
    assert group_labels(gen) == ["area 0: rows 0-2, cols 0-1", "area 1: rows 0-2, cols 2-2"]


# ------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"mechanism": "x"}, TypeError, r"mechanism must be an instance of one of HyObscure.*'x'"),
        ({"mechanism": hy.HyObscure}, TypeError, r"mechanism .*class HyObscure"),
        ({"private": "salary"}, ValueError, r"private must name a column of df; got 'salary'"),
        ({"features": ["item0", "nope"]}, ValueError, r"features columns \['nope'\] are not in df"),
        ({"features": "item0"}, TypeError, r"features must be a non-empty sequence.*\['item0'\]"),
        ({"features": ["item0", "age"]}, ValueError, r"features must not include .*'age'"),
        ({"features": None}, TypeError, r"features must be numeric.*'city'"),
        ({"clusters": "nope"}, ValueError, r"clusters must be None, a column.*'nope'"),
        ({"clusters": [0, 1]}, ValueError, r"clusters must be .*one label per row \(240\)"),
        ({"k": 31}, ValueError, r"k=31 conflicts with the mechanism's own k=30"),
        (
            {"domain": "ring"},
            ValueError,
            r"'domain' parameter of TableObfuscation must be a str among "
            r"\{'interval', 'grid'\} or None\. Got 'ring' instead",
        ),
        ({"kmeans_n_init": 0}, ValueError, r"'kmeans_n_init' .*\[1, inf\)\. Got 0 instead"),
        ({"n_groups": 2.5}, TypeError, r"'n_groups' .*\[1, inf\) or None\. Got 2\.5 instead"),
        ({"k": True}, TypeError, r"'k' parameter of TableObfuscation .*Got True"),
    ],
)
def test_bad_parameters_name_themselves(df, kwargs, error, match):
    params = {"mechanism": hy.HyObscure(**SMALL), "private": "age", "features": FEATURES}
    params.update(kwargs)
    adapter = TableObfuscation(**params)  # the constructor stores, fit checks
    with pytest.raises(error, match=match):
        adapter.fit(df, random_state=0)
    assert not hasattr(adapter, "mechanism_")


def test_baseline_constraints_are_checked(df):
    adapter = _adapter("DPObfuscation", k=50, alpha=40)
    with pytest.raises(
        ValueError, match=r"alpha must be >= k \(Definition 2\); got k=50, alpha=40"
    ):
        adapter.fit(df, random_state=0)


def test_private_values_and_features_are_checked(df):
    with pytest.raises(TypeError, match=r"private column 'city'.*integer private values"):
        _adapter("DPObfuscation", features=FEATURES).set_params(private="city").fit(df)
    negative = df.assign(item0=-df["item0"])
    with pytest.raises(ValueError, match=r"features must hold finite, non-negative.*'item0'"):
        _adapter("DPObfuscation").fit(negative, random_state=0)
    with pytest.raises(TypeError, match="df must be a pandas DataFrame"):
        _adapter("DPObfuscation").fit(df.to_numpy(), random_state=0)
