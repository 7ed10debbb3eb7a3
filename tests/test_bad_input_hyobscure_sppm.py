"""Bad input to HyObscure, its baselines and SPPM: a clear error naming the parameter."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from populations import SMALL, hyobscure_population
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms import sppm as S
from ppdp.mechanisms.hyobscure import DPObfuscation, PrivCheck, RandomObfuscation

X, Y, CLUSTERS = hyobscure_population(0)
GEN = hy.HyObscure(**SMALL)._initial_generalization(Y, np.random.default_rng(0))


def _fit_sppm(mech):
    """Fit one of SPPM's solvers on the eight-point synthetic problem (where it checks)."""
    return mech.fit(*S.synthetic_problem(3))


def _good_mappings():
    return np.broadcast_to(np.eye(3), (GEN.n_groups, 3, 3)).copy()


def _mappings(edit):
    M = _good_mappings()
    edit(M)
    return M


def _fit_mappings(M):
    return hy.HyObscure(**SMALL).fit(
        X,
        Y,
        random_state=np.random.default_rng(0),
        clusters=CLUSTERS,
        generalization=GEN,
        mappings=M,
    )


# ------------------------------------------------------------------------------------------------
# HyObscure: given mappings


def _scale_row(factor):
    def edit(M):
        M[1, 2] *= factor

    return edit


def _negative(M):
    M[0, 1] = [0.5, 0.7, -0.2]


def _nan(M):
    M[0, 0, 0] = np.nan


@pytest.mark.parametrize(
    ("M", "match"),
    [
        (_mappings(_scale_row(1.5)), r"row mappings\[1, 2\] sums to 1\.5"),
        (_mappings(_scale_row(0.3)), r"row mappings\[1, 2\] sums to 0\.3"),
        (_mappings(_negative), r"mappings must be non-negative.*mappings\[0, 1, 2\] = -0\.2"),
        (_mappings(_nan), "mappings must be finite"),
        (np.ones((1, 3, 3)) / 3, r"mappings must have shape \(K, C, C\)"),
    ],
    ids=["row-sum-1.5", "row-sum-0.3", "negative", "nan", "shape"],
)
def test_hyobscure_rejects_bad_mappings(M, match):
    with pytest.raises(ValueError, match=match):
        _fit_mappings(M)


def test_hyobscure_valid_mappings_give_the_right_loss():
    m = _fit_mappings(_good_mappings())
    # the identity publishes every user's own cluster: zero centroid distance, zero loss
    assert m.utility_loss_ == 0.0


# ------------------------------------------------------------------------------------------------
# clusters (PrivCheck and HyObscure)


@pytest.mark.parametrize(
    ("clusters", "exc", "match"),
    [
        (np.where(CLUSTERS == 2, -1, CLUSTERS), ValueError, r"clusters.*clusters\[\d+\] = -1"),
        (CLUSTERS[:-5], ValueError, "clusters must hold one label per row of X"),
        (CLUSTERS + 0.5, TypeError, r"clusters must hold integer.*is not an integer"),
        (CLUSTERS.astype(float), TypeError, "clusters must hold integer cluster labels.*astype"),
        (CLUSTERS.astype(str), TypeError, "clusters must hold integer cluster labels"),
    ],
    ids=["negative", "short", "fractional", "integral-float", "strings"],
)
@pytest.mark.parametrize("who", ["PrivCheck", "HyObscure"])
def test_bad_clusters_are_rejected(clusters, exc, match, who):
    with pytest.raises(exc, match=match):
        if who == "PrivCheck":
            PrivCheck(budget=0.05).fit(X, Y, generalization=GEN, clusters=clusters)
        else:
            hy.HyObscure(**SMALL).fit(
                X, Y, random_state=np.random.default_rng(0), clusters=clusters, generalization=GEN
            )


# ------------------------------------------------------------------------------------------------
# X and y


def test_string_uid_column_in_x_names_the_column():
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    frame.insert(0, "uid", [f"u{i}" for i in range(len(frame))])
    with pytest.raises(TypeError, match=r"X must hold numeric.*column 'uid' has dtype"):
        hy.HyObscure(**SMALL).fit(
            frame, Y, random_state=np.random.default_rng(0), clusters=CLUSTERS
        )


@pytest.mark.parametrize(
    "y",
    [
        pd.Series(Y, dtype="Int64").mask(np.arange(len(Y)) == 7, pd.NA),
        np.where(np.arange(len(Y)) == 7, np.nan, Y.astype(float)),
        [None if i == 7 else int(v) for i, v in enumerate(Y)],
    ],
    ids=["pd.NA", "nan", "None"],
)
def test_missing_private_values_are_counted_and_located(y):
    with pytest.raises(
        ValueError, match=r"y must hold.*1 values are missing \(first at position 7\)"
    ):
        hy.HyObscure(**SMALL).fit(X, y, random_state=np.random.default_rng(0), clusters=CLUSTERS)


def test_nullable_y_without_missing_values_is_accepted():
    y = pd.Series(Y, dtype="Int64")
    a = hy.HyObscure(**SMALL).fit(X, y, random_state=np.random.default_rng(0), clusters=CLUSTERS)
    b = hy.HyObscure(**SMALL).fit(X, Y, random_state=np.random.default_rng(0), clusters=CLUSTERS)
    np.testing.assert_array_equal(a.mappings_, b.mappings_)


# ------------------------------------------------------------------------------------------------
# hyper-parameters


def _fit_params(mech):
    """Fit a HyObscure-family mechanism, whose constructor stores its parameters as given and
    whose ``fit`` checks them."""
    if isinstance(mech, hy.HyObscure):
        return mech.fit(X, Y, random_state=np.random.default_rng(0), clusters=CLUSTERS)
    return mech.fit(X, Y, generalization=GEN, clusters=CLUSTERS)


@pytest.mark.parametrize(
    ("make", "exc", "match"),
    [
        (
            lambda: _fit_params(hy.HyObscure(budget=-0.1)),
            ValueError,
            r"'budget' parameter of HyObscure must be a float in the range \[0\.0, inf\)\. "
            r"Got -0\.1",
        ),
        (lambda: _fit_params(hy.HyObscure(budget=math.nan)), ValueError, r"'budget'.*Got nan"),
        (lambda: _fit_params(hy.HyObscure(budget=math.inf)), ValueError, r"'budget'.*Got inf"),
        (
            lambda: _fit_params(hy.HyObscure(budget="0.1")),
            TypeError,
            r"'budget' parameter .*Got '0\.1'",
        ),
        (
            lambda: _fit_params(hy.HyObscure(k=0)),
            ValueError,
            r"'k' parameter .*an int in the range \[1, inf\)",
        ),
        (lambda: _fit_params(hy.HyObscure(k=True)), TypeError, r"'k' parameter .*Got True"),
        (lambda: _fit_params(hy.HyObscure(k=10, alpha=5)), ValueError, "alpha must be >= k"),
        (lambda: _fit_params(hy.HyObscure(l=5, beta=4)), ValueError, "beta must be >= l"),
        (
            lambda: _fit_params(hy.HyObscure(solver="MOSEK")),
            ValueError,
            r"'solver' parameter of HyObscure must be a str among \{'CLARABEL', 'SCS'\}",
        ),
        (lambda: _fit_params(hy.HyObscure(budget_scope="user")), ValueError, "'budget_scope'"),
        (
            lambda: _fit_params(PrivCheck(budget=-1.0)),
            ValueError,
            "'budget' parameter of PrivCheck",
        ),
        (
            lambda: _fit_params(PrivCheck(solver="ECOS")),
            ValueError,
            "'solver' parameter of PrivCheck",
        ),
        (
            lambda: _fit_params(PrivCheck(n_clusters=0)),
            ValueError,
            r"'n_clusters' .*\[1, inf\)\. Got 0",
        ),
        (
            lambda: _fit_params(PrivCheck(distance="euclid")),
            ValueError,
            r"'distance' .* among \{'centroid_js', 'mean_pairwise_js'\} or a callable",
        ),
        (
            lambda: _fit_params(RandomObfuscation(p_rand=1.5)),
            ValueError,
            r"'p_rand' .*in the range \[0\.0, 1\.0\]\. Got 1\.5",
        ),
        # SPPM's solvers store their parameters as given and check them in fit
        (
            lambda: _fit_sppm(S.SPPM(math.nan)),
            ValueError,
            r"'delta' parameter of SPPM .*\[0\.0, inf\)",
        ),
        (lambda: _fit_sppm(S.SPPM(-1.0)), ValueError, r"'delta' parameter of SPPM .*Got -1\.0"),
        (
            lambda: _fit_sppm(S.SPPM(1.0, floor=1.5)),
            ValueError,
            r"'floor' .*\(0\.0, 1\.0\)\. Got 1\.5",
        ),
        (lambda: _fit_sppm(S.ExactMapping(1.0, solver="MOSEK")), ValueError, "'solver' parameter"),
        (
            lambda: _fit_sppm(S.ExponentialMechanism(delta=math.inf)),
            ValueError,
            r"'delta' .*Got inf",
        ),
        (
            lambda: _fit_sppm(S.ExponentialMechanism(delta=1.0, rtol=0.0)),
            ValueError,
            r"'rtol' .*\(0\.0, 1\.0\)",
        ),
    ],
)
def test_bad_hyper_parameters(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_k_above_the_number_of_users():
    with pytest.raises(ValueError, match=r"k=500 exceeds the number of users \|U\|=160"):
        hy.HyObscure(**{**SMALL, "k": 500, "alpha": 600}).fit(
            X, Y, random_state=np.random.default_rng(0), clusters=CLUSTERS
        )


# ------------------------------------------------------------------------------------------------
# numpy scalars are numbers


def test_numpy_scalars_are_accepted_wherever_numbers_are():
    f32 = np.float32
    params = {**SMALL, "budget": f32(0.05), "k": np.int32(30), "threshold": f32(1e-4)}
    a = hy.HyObscure(**params).fit(X, Y, random_state=np.random.default_rng(0), clusters=CLUSTERS)
    b = hy.HyObscure(**SMALL).fit(X, Y, random_state=np.random.default_rng(0), clusters=CLUSTERS)
    assert a.budget == pytest.approx(0.05) and a.leakage_ == pytest.approx(b.leakage_, abs=1e-6)
    assert PrivCheck(budget=f32(0.05), n_clusters=np.int64(3)).budget == pytest.approx(0.05)
    assert RandomObfuscation(p_rand=f32(0.25)).p_rand == 0.25
    assert DPObfuscation(beta=f32(2.0)).beta == 2.0
    p, d = S.synthetic_problem(np.int64(3))
    model = S.SPPM(
        f32(0.5), n_steps=np.int32(5), floor=f32(0.01), tol=f32(0.0), cg_tol=f32(1e-9)
    ).fit(p, d)
    ref = S.SPPM(0.5, n_steps=5).fit(p, d)
    assert model.leakage_ == pytest.approx(ref.leakage_, abs=1e-9)
    assert S.ExponentialMechanism(delta=f32(0.5)).fit(p, d).distortion_ <= 0.5


# ------------------------------------------------------------------------------------------------
# SPPM releases


@pytest.mark.parametrize(
    ("b", "exc", "match"),
    [
        (np.array([0.0, 1.5, 2.0]), ValueError, r"b\[1\] = 1\.5 is not an integer"),
        (np.array([0, 8]), ValueError, r"b must hold profile indices in \[0, 8\); b\[1\] = 8"),
        (np.array([-1, 0]), ValueError, r"b\[0\] = -1"),
        (np.array(["a", "b"]), TypeError, "b must hold integer profile indices"),
        (np.array([True, False]), TypeError, "b must hold integer profile indices"),
    ],
    ids=["fractional", "above", "negative", "strings", "booleans"],
)
def test_sppm_release_rejects_bad_profile_ids(b, exc, match):
    p, d = S.synthetic_problem(3)
    model = S.SPPM(0.5, n_steps=3).fit(p, d)
    with pytest.raises(exc, match=match):
        model.release(b, random_state=np.random.default_rng(0))


# two releases of one fit on purpose: they must agree draw for draw
@pytest.mark.filterwarnings("ignore::ppdp.base.RepeatedReleaseWarning")
def test_sppm_release_takes_integral_floats_as_indices():
    p, d = S.synthetic_problem(3)
    model = S.SPPM(0.5, n_steps=3).fit(p, d)
    a = model.release(np.array([0.0, 3.0, 7.0]), random_state=np.random.default_rng(1))
    b = model.release(np.array([0, 3, 7]), random_state=np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
