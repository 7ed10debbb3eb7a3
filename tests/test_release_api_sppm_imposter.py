"""The release protocol (:mod:`ppdp.base`) of SPPM on a table (:class:`TableMapping`) and IMPOSTER."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from ppdp import infotheory
from ppdp.mechanisms.sppm import TableMapping
from ppdp.mechanisms.sppm.table import empirical_joint, encode_columns, profile_alphabet

METHODS = ("sppm", "exact", "exponential")
DELTA = 0.3


def small_table(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """Binary private ``sex``; released ``x`` (3 categories, categorical dtype) and ``y`` (2),
    both correlated with ``sex``; ``age`` and ``note`` ride along. A non-default index."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    x = np.where(rng.random(n) < 0.8, s + rng.integers(0, 2, n), rng.integers(0, 3, n))
    y = np.where(rng.random(n) < 0.7, s, 1 - s)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "x": pd.Categorical(np.array(["a", "b", "c"])[x]),
            "sex": np.where(s == 1, "M", "F"),
            "y": np.array(["u", "v"])[y],
            "note": rng.normal(size=n),
        },
        index=pd.Index([f"r{i}" for i in rng.permutation(n)], name="row"),
    )


@pytest.fixture(scope="module")
def df():
    return small_table()


@pytest.fixture(scope="module")
def fitted(df):
    return {
        m: TableMapping(private="sex", released=["x", "y"], delta=DELTA, method=m).fit(df)
        for m in METHODS
    }


def dense(mapping) -> np.ndarray:
    return mapping.toarray() if sp.issparse(mapping) else np.asarray(mapping, dtype=float)


def independent_p_b(df, released, profiles) -> np.ndarray:
    """``p(b)`` over the alphabet rows, counted from the table's value tuples."""
    position = {tuple(row): j for j, row in enumerate(profiles[released].itertuples(index=False))}
    counts = np.zeros(len(profiles))
    for row in df[released].itertuples(index=False):
        counts[position[tuple(row)]] += 1
    return counts / counts.sum()


def hamming_matrix(profiles) -> np.ndarray:
    vals = profiles.astype(object).to_numpy()
    return (vals[:, None, :] != vals[None, :, :]).sum(axis=2).astype(float)


# --------------------------------------------------------------------------------------------- helpers


def test_helpers_build_the_sorted_alphabet_and_the_joint():
    codes = np.array([[1, 0], [0, 1], [1, 0], [0, 0], [1, 0]])
    alphabet, index, first = profile_alphabet(codes)
    np.testing.assert_array_equal(alphabet, [[0, 0], [0, 1], [1, 0]])
    np.testing.assert_array_equal(index, [2, 1, 2, 0, 2])
    np.testing.assert_array_equal(first, [3, 1, 0])
    # frequency order, ties lexicographic; top drops the rest
    alphabet, index, _ = profile_alphabet(codes, order="frequency", top=2)
    np.testing.assert_array_equal(alphabet, [[1, 0], [0, 0]])
    np.testing.assert_array_equal(index, [0, -1, 0, 1, 0])
    p = empirical_joint([0, 1, 0, 1], [0, 0, 2, 2], 2, 3)
    np.testing.assert_array_equal(p, [[0.25, 0, 0.25], [0.25, 0, 0.25]])
    frame = pd.DataFrame({"c": ["z", "a", "z"], "n": [3.0, 1.0, 2.0]})
    enc, cats = encode_columns(frame, ["c", "n"])
    np.testing.assert_array_equal(enc, [[1, 2], [0, 0], [1, 1]])
    assert list(cats[0]) == ["a", "z"] and list(cats[1]) == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="order"):
        profile_alphabet(codes, order="random")


# --------------------------------------------------------------------------------------------- TableMapping


@pytest.mark.parametrize("method", METHODS)
def test_release_keeps_the_table_and_draws_from_the_alphabet(df, fitted, method):
    tm = fitted[method]
    out = tm.release(random_state=0)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(df.columns)
    pd.testing.assert_index_equal(out.index, df.index)
    pd.testing.assert_series_equal(out.dtypes, df.dtypes)
    for col in ("sex", "age", "note"):
        pd.testing.assert_series_equal(out[col], df[col])
    alphabet = set(tm.profiles_.astype(object).itertuples(index=False, name=None))
    released = set(out[["x", "y"]].astype(object).itertuples(index=False, name=None))
    assert released <= alphabet
    # the alphabet is the sorted set of observed profiles
    assert list(tm.profiles_.itertuples(index=False, name=None)) == sorted(
        set(df[["x", "y"]].astype(object).itertuples(index=False, name=None))
    )
    # something is perturbed at this budget, and each row's change is within the alphabet
    assert (out[["x", "y"]].astype(object) != df[["x", "y"]].astype(object)).any(axis=None)


@pytest.mark.parametrize("method", METHODS)
def test_mapping_meets_the_budget_and_its_leakage_is_the_library_s(df, fitted, method):
    tm = fitted[method]
    released = ["x", "y"]
    p_b = independent_p_b(df, released, tm.profiles_)
    D = hamming_matrix(tm.profiles_)
    M = dense(tm.mapping_)
    np.testing.assert_allclose(M.sum(axis=1), 1.0, atol=1e-12)
    expected = float(np.sum(p_b[:, None] * M * D))
    assert expected <= DELTA + 1e-12
    assert expected == pytest.approx(tm.expected_distortion_, abs=1e-12)
    np.testing.assert_allclose(tm.p_ab_.sum(axis=0), p_b, atol=1e-15)
    # p(a, b) is the empirical joint, counted independently
    crosstab = pd.crosstab(df["sex"], [df["x"].astype(str), df["y"]]) / len(df)
    np.testing.assert_allclose(tm.p_ab_, crosstab.to_numpy(), atol=1e-15)
    np.testing.assert_array_equal(tm.distortion_.toarray(), D)
    assert tm.leakage_ == pytest.approx(infotheory.leakage(tm.p_ab_, tm.mapping_), abs=1e-12)
    # and the mapping hides something: leakage below I(A; B)
    assert tm.leakage_ < infotheory.mutual_information(tm.p_ab_)


def test_sppm_reaches_the_exact_optimum_on_a_tiny_problem(df):
    delta = 0.2
    exact = TableMapping(private="sex", released=["x", "y"], delta=delta, method="exact").fit(df)
    sppm = TableMapping(
        private="sex", released=["x", "y"], delta=delta, method="sppm", variant="away"
    ).fit(df)
    for tm in (exact, sppm):
        assert tm.leakage_ == pytest.approx(infotheory.leakage(tm.p_ab_, tm.mapping_), abs=1e-12)
    assert sppm.leakage_ == pytest.approx(exact.leakage_, abs=1e-6)
    assert sppm.mechanism_.lower_bound_ <= exact.leakage_ + 1e-6


def test_squared_and_normalized_distortions(df):
    data = df.assign(level=df["age"] // 30)
    tm = TableMapping(private="sex", released=["level"], delta=0.2, distortion="squared").fit(data)
    pts = tm.profiles_["level"].to_numpy(dtype=float)
    D = (pts[:, None] - pts[None, :]) ** 2
    np.testing.assert_allclose(tm.distortion_.toarray(), D)
    p_b = independent_p_b(data, ["level"], tm.profiles_)
    assert float(np.sum(p_b[:, None] * dense(tm.mapping_) * D)) <= 0.2 + 1e-12
    out = tm.release(0)
    assert set(out["level"]) <= set(data["level"]) and out["level"].dtype == data["level"].dtype
    norm = TableMapping(
        private="sex", released=["x", "y"], delta=0.15, distortion="normalized_hamming"
    ).fit(df)
    np.testing.assert_array_equal(norm.distortion_.toarray(), hamming_matrix(norm.profiles_) / 2)


def test_params_round_trip_through_scikit_learn(df):
    from sklearn.base import clone

    tm = TableMapping(private="sex", released=["x", "y"], delta=DELTA, n_steps=5)
    assert tm.get_params()["n_steps"] == 5
    twin = clone(tm)
    assert twin.method_params == {"n_steps": 5}
    twin.set_params(n_steps=7, delta=0.2)
    assert twin.method_params == {"n_steps": 7} and twin.delta == 0.2
    assert twin.fit(df).mechanism_.n_steps == 7


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        (dict(private="gender"), ValueError, r"private columns \['gender'\] are not in df"),
        (dict(released=["x", "zip"]), ValueError, r"released columns \['zip'\] are not in df"),
        (dict(released=["x", "x"]), ValueError, r"released lists a column twice: \['x'\]"),
        (dict(released=[]), ValueError, "released is empty; name at least one column"),
        (dict(released=None), TypeError, "released must be a column name"),
        (dict(released=["x", "sex"]), ValueError, r"private .* share the columns \['sex'\]"),
        (
            dict(method="laplace"),
            ValueError,
            r"'method' parameter of TableMapping must be a str among "
            r"\{'sppm', 'certified', 'exact', 'exponential'\}\. Got 'laplace' instead",
        ),
        (dict(distortion="cosine"), ValueError, r"'distortion' .*Got 'cosine'"),
        (dict(delta=-0.1), ValueError, r"'delta' .*\[0\.0, inf\)\. Got -0\.1 instead"),
        (dict(delta=float("nan")), ValueError, r"'delta' .*Got nan"),
        (dict(distortion="squared"), TypeError, r"distortion='squared'.*\['x', 'y'\]"),
        (dict(n_stepz=3), TypeError, r"method_params \['n_stepz'\].*'sppm'"),
        (dict(method="exponential", beta=1.0), TypeError, r"method_params \['beta'\]"),
    ],
)
def test_bad_inputs_name_the_parameter(df, params, error, match):
    kwargs = dict(private="sex", released=["x", "y"], delta=DELTA) | params
    with pytest.raises(error, match=match):
        TableMapping(**kwargs).fit(df)


def test_bad_tables(df):
    tm = TableMapping(private="sex", released=["x", "y"], delta=DELTA)
    with pytest.raises(TypeError, match="DataFrame"):
        tm.fit(df.to_numpy())
    with pytest.raises(ValueError, match="no rows"):
        tm.fit(df.iloc[:0])
    holes = df.astype({"y": object})
    holes.iloc[4, holes.columns.get_loc("y")] = None
    with pytest.raises(ValueError, match="column 'y' has missing values"):
        tm.fit(holes)


# --------------------------------------------------------------------------------------------- IMPOSTER

torch = pytest.importorskip("torch")

from ppdp.mechanisms.imposter import Imposter  # noqa: E402

TINY = dict(epochs=2, batch_size=32, latent_dim=2, hidden=8, progress=False)
GENERATED = ["copy", "shift", "income"]


def imposter_table(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.choice(["F", "M"], size=n)
    copy = np.where(rng.random(n) < 0.9, s, np.where(s == "F", "M", "F"))
    return pd.DataFrame(
        {
            "noise": rng.choice(["u", "v", "w"], size=n),
            "copy": pd.Categorical(np.where(copy == "F", "p", "q")),
            "sex": pd.Categorical(s),
            "shift": np.round(rng.normal(size=n) + 2.0 * (s == "F"), 2),
            "age": rng.integers(17, 90, size=n),
            "income": np.where(rng.random(n) < 0.3, ">50K", "<=50K"),
        },
        index=pd.RangeIndex(1000, 1000 + 2 * n, 2),
    )


@pytest.fixture(scope="module")
def imp_table():
    return imposter_table()


@pytest.fixture(scope="module")
def imposter(imp_table):
    mech = Imposter(lam=1.0, private="sex", label="income", columns=["copy", "shift"], **TINY)
    return mech.fit(imp_table, random_state=0)


def test_imposter_release_has_the_fitted_schema(imp_table, imposter):
    out = imposter.release(random_state=0)
    assert list(out.columns) == list(imp_table.columns)
    pd.testing.assert_index_equal(out.index, imp_table.index)
    generated = [*GENERATED, "sex"]
    pd.testing.assert_series_equal(out[generated].dtypes, imp_table[generated].dtypes)
    # the columns IMPOSTER does not model carry no real value: they are released empty
    assert out[["noise", "age"]].isna().all(axis=None)
    assert not out[generated].isna().any(axis=None)
    # the generated columns are sample()'s with the same generator
    syn = imposter.sample(len(imp_table), np.random.default_rng(0))
    pd.testing.assert_frame_equal(
        out[[*GENERATED, "sex"]].reset_index(drop=True), syn[[*GENERATED, "sex"]]
    )


def test_imposter_release_n_and_reproducibility(imp_table, imposter):
    out = imposter.release(random_state=4, n=50)
    assert len(out) == 50 and list(out.columns) == list(imp_table.columns)
    pd.testing.assert_index_equal(out.index, pd.RangeIndex(50))
    assert out[["noise", "age"]].isna().all(axis=None)
    pd.testing.assert_frame_equal(out, imposter.release(random_state=4, n=50))
    pd.testing.assert_frame_equal(out, imposter.release(np.random.default_rng(4), n=50))
    assert not out.equals(imposter.release(random_state=5, n=50))
    big = imposter.release(random_state=1, n=300)
    assert len(big) == 300 and big.index.equals(pd.RangeIndex(300))
    with pytest.raises(ValueError, match=r"'n' parameter of Imposter\.release .*Got 0 instead"):
        imposter.release(0, n=0)
    with pytest.raises(ValueError, match=r"'n' parameter of Imposter\.release .*Got 2\.5"):
        imposter.release(0, n=2.5)


def test_imposter_release_all_columns_generated_and_fit_release(imp_table):
    model = Imposter(lam=0.0, private="sex", **TINY)
    out = model.fit_release(imp_table, random_state=2)
    assert list(out.columns) == list(imp_table.columns)
    assert model.unmodelled_ == []
    assert not out.isna().any(axis=None)
    # one stream: the training seed is the first int drawn from it
    stream = np.random.default_rng(2)
    again = Imposter(lam=0.0, private="sex", **TINY).fit(imp_table, random_state=stream)
    pd.testing.assert_frame_equal(out, again.release(random_state=stream))
