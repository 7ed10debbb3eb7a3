"""Bad input to k-RR, relay chains and IMPOSTER: clear errors naming the parameter, or the right
answer where the input is legitimate (numpy scalars, mixed-type categories in the codec)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdp.mechanisms.imposter import (
    Imposter,
    TableCodec,
    attribute_correlations,
    detect_implicit_privacy,
)
from ppdp.mechanisms.randomized_response import KaryRandomizedResponse, krr_applied_keep
from ppdp.mechanisms.relay import RelayChain, bua, privacy_disclosure, sanitize

NAN, INF = float("nan"), float("inf")


def krr_frame() -> pd.DataFrame:
    return pd.DataFrame({"a": list("xyzx") * 5, "b": np.arange(20) % 4})


def relay_frame(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "q0": rng.integers(0, 8, n).astype(float),
            "q1": rng.integers(0, 8, n).astype(float),
            "s": rng.integers(0, 2, n),
        }
    )


def detection_frame(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    return pd.DataFrame(
        {
            "x": rng.normal(size=n) + (sex == "M"),
            "c": np.where(rng.random(n) < 0.8, sex, "U"),
            "income": rng.choice(["<=50K", ">50K"], n),
            "sex": sex,
        }
    )


def with_value(frame: pd.DataFrame, column: str, row: int, value) -> pd.DataFrame:
    out = frame.copy()
    if not isinstance(value, float):
        out[column] = out[column].astype(object)
    out.loc[row, column] = value
    return out


def duplicated(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    out = pd.concat([frame, frame[[column]]], axis=1)
    return out


# ---------------------------------------------------------------------------------------------------
# k-RR


# an empty table, like every mechanism's, is checked by the contract (tests/test_mechanism_contract.py)
KRR_CASES = {
    "epsilon zero": (
        lambda: KaryRandomizedResponse(0).fit(krr_frame()),
        ValueError,
        r"'epsilon' parameter of KaryRandomizedResponse must be a float in the range "
        r"\(0\.0, inf\) or an instance of 'collections\.abc\.Mapping'\. Got 0 instead",
    ),
    "epsilon negative in mapping": (
        lambda: KaryRandomizedResponse({"a": -1.0}).fit(krr_frame()),
        ValueError,
        r"epsilon\['a'\].*-1\.0",
    ),
    "epsilon inf": (
        lambda: KaryRandomizedResponse(INF).fit(krr_frame()),
        ValueError,
        r"'epsilon' .*Got inf",
    ),
    "epsilon nan": (
        lambda: KaryRandomizedResponse(NAN).fit(krr_frame()),
        ValueError,
        r"'epsilon' .*Got nan",
    ),
    "epsilon text": (
        lambda: KaryRandomizedResponse("1").fit(krr_frame()),
        TypeError,
        r"'epsilon' .*Got '1'",
    ),
    "epsilon bool": (
        lambda: KaryRandomizedResponse(True).fit(krr_frame()),
        TypeError,
        r"'epsilon' .*Got True",
    ),
    "columns repeated": (
        lambda: KaryRandomizedResponse(1.0, columns=["a", "a"]).fit(krr_frame()),
        ValueError,
        r"columns lists a column twice: \['a'\]",
    ),
    "unknown column": (
        lambda: KaryRandomizedResponse(1.0, columns=["zz"]).fit(krr_frame()),
        ValueError,
        r"columns \['zz'\] are not in the table",
    ),
    "inf in numeric column": (
        lambda: KaryRandomizedResponse(1.0).fit(
            with_value(krr_frame().astype({"b": float}), "b", 3, INF)
        ),
        ValueError,
        r"column 'b' holds non-finite values \[inf\]",
    ),
    "-inf in object column of numbers": (
        lambda: KaryRandomizedResponse(1.0).fit(
            pd.DataFrame({"b": pd.Series([1, 2.5, -INF], dtype=object)})
        ),
        ValueError,
        r"column 'b' holds non-finite values \[-inf\]",
    ),
    "nan in column": (
        lambda: KaryRandomizedResponse(1.0).fit(
            with_value(krr_frame().astype({"b": float}), "b", 0, NAN)
        ),
        ValueError,
        r"column 'b' holds missing values",
    ),
    "duplicated column names": (
        lambda: KaryRandomizedResponse(1.0).fit(duplicated(krr_frame(), "a")),
        ValueError,
        r"duplicated column names \['a'\]",
    ),
    "mixed int and str": (
        lambda: KaryRandomizedResponse(1.0).fit(pd.DataFrame({"a": [1, "1", 2, "x"]})),
        TypeError,
        r"column 'a' mixes value types \['number', 'str'\]",
    ),
    "mixed types at randomize": (
        lambda: (
            KaryRandomizedResponse(1.0)
            .fit(pd.DataFrame({"a": ["x", "y"]}))
            .randomize(pd.DataFrame({"a": ["x", 3]}), np.random.default_rng(0))
        ),
        TypeError,
        r"column 'a' holds values not comparable",
    ),
}


@pytest.mark.parametrize("case", list(KRR_CASES), ids=list(KRR_CASES))
def test_krr_bad_input(case):
    call, error, match = KRR_CASES[case]
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("eps", [np.float32(1.5), np.int64(2), np.float64(0.5)])
def test_krr_accepts_numpy_scalars(eps):
    mech = KaryRandomizedResponse(eps).fit(krr_frame())
    out = mech.randomize(krr_frame(), np.random.default_rng(0))
    assert mech.epsilons_["a"] == float(eps)
    assert np.diag(mech.matrices_["a"])[0] == krr_applied_keep(3, float(eps))
    assert set(out["a"]) <= {"x", "y", "z"}
    mapped = KaryRandomizedResponse({"a": np.float32(1.0), "b": np.int64(3)}).fit(krr_frame())
    assert mapped.epsilons_ == {"a": 1.0, "b": 3.0}


# ---------------------------------------------------------------------------------------------------
# relay chains


RELAY_CASES = {
    "delta zero": (
        lambda: RelayChain("fla", hops=2, delta=0).fit(relay_frame()),
        ValueError,
        r"'delta' parameter of RelayChain must be a float in the range \(0\.0, 1\.0\]\. Got 0",
    ),
    "delta inf": (
        lambda: RelayChain("fla", hops=2, delta=INF).fit(relay_frame()),
        ValueError,
        r"'delta' .*Got inf",
    ),
    "delta nan": (
        lambda: sanitize(relay_frame(), NAN, sensitive="s"),
        ValueError,
        r"'delta' parameter of sanitize must be a float in the range \(0\.0, inf\)\. Got nan",
    ),
    "delta above one bit": (
        lambda: RelayChain("tda", hops=2, delta=1.5).fit(relay_frame()),
        ValueError,
        r"'delta' .*\(0\.0, 1\.0\]\. Got 1\.5",
    ),
    "delta text": (
        lambda: bua(relay_frame(), "high", sensitive="s"),
        TypeError,
        r"'delta' parameter of bua must be a float .*Got 'high'",
    ),
    "hops zero": (
        lambda: RelayChain("bua", hops=0).fit(relay_frame()),
        ValueError,
        r"'hops' .*Got 0 instead",
    ),
    "hops float": (
        lambda: RelayChain("bua", hops=2.0).fit(relay_frame()),
        TypeError,
        r"'hops' .*Got 2\.0",
    ),
    "hops bool": (
        lambda: RelayChain("bua", hops=True).fit(relay_frame()),
        TypeError,
        r"'hops' .*Got True",
    ),
    "method unknown": (
        lambda: RelayChain("xla").fit(relay_frame()),
        ValueError,
        r"'method' parameter of RelayChain must be a str among \{'bua', 'tda', 'fla'\}",
    ),
    "inf in quasi-identifier": (
        lambda: RelayChain("bua", hops=2, delta=0.05, sensitive="s").fit(
            with_value(relay_frame(), "q1", 5, INF)
        ),
        ValueError,
        r"quasi-identifier 'q1' has a non-finite value inf at row 5",
    ),
    "-inf in numeric sensitive": (
        lambda: sanitize(
            with_value(relay_frame().astype({"s": float}), "s", 2, -INF), 0.05, sensitive="s"
        ),
        ValueError,
        r"sensitive column 's' has a non-finite value -inf at row 2",
    ),
    "duplicated column names": (
        lambda: RelayChain("tda", hops=2, delta=0.05, sensitive="s").fit(
            duplicated(relay_frame(), "q0")
        ),
        ValueError,
        r"duplicated column names \['q0'\]",
    ),
    "mixed int and str sensitive": (
        lambda: sanitize(with_value(relay_frame(), "s", 0, "yes"), 0.05, sensitive="s"),
        TypeError,
        r"sensitive column 's' mixes value types \['number', 'str'\]",
    ),
    "unknown quasi-identifier": (
        lambda: sanitize(relay_frame(), 0.05, sensitive="s", quasi_identifiers=["q0", "zz"]),
        ValueError,
        r"quasi_identifiers columns \['zz'\] are not in the table",
    ),
    "unknown sensitive": (
        lambda: RelayChain("fla", hops=2, delta=0.05, sensitive="label").fit(relay_frame()),
        ValueError,
        r"sensitive column 'label' is not in the table",
    ),
    "text quasi-identifier": (
        lambda: sanitize(with_value(relay_frame(), "q0", 1, "high"), 0.05, sensitive="s"),
        TypeError,
        r"quasi-identifier 'q0' must be numeric",
    ),
}


@pytest.mark.parametrize("case", list(RELAY_CASES), ids=list(RELAY_CASES))
def test_relay_bad_input(case):
    call, error, match = RELAY_CASES[case]
    with pytest.raises(error, match=match):
        call()


def test_relay_accepts_numpy_scalars():
    frame = relay_frame(60, seed=1)
    plain = RelayChain("fla", hops=2, delta=0.03, sensitive="s").fit(frame)
    numpy = RelayChain("fla", hops=np.int64(2), delta=np.float32(0.03), sensitive="s").fit(frame)
    assert numpy.hops == 2
    assert numpy.delta == float(np.float32(0.03))
    np.testing.assert_allclose(numpy.thresholds_, [2 * numpy.delta, numpy.delta])
    assert np.all(numpy.privacy_ <= numpy.thresholds_ + 1e-12)
    assert len(numpy.tables_) == len(plain.tables_) == 2
    out = sanitize(frame, np.float32(0.03), method="tda", sensitive="s")
    assert privacy_disclosure(out, "s") <= float(np.float32(0.03)) + 1e-12


def test_relay_accepts_float32_weights():
    # float32 weights sum to 1 only up to float32 rounding (here 1 + 3e-8)
    frame = relay_frame(60, seed=2)
    w32 = np.array([0.4, 0.6], dtype=np.float32)
    assert abs(w32.astype(float).sum() - 1.0) > 1e-9
    chain = RelayChain("bua", hops=2, delta=0.03, sensitive="s", weights=w32).fit(frame)
    assert chain.guarantee_checks()[0].holds
    # the loss is measured with the weights as given: sum of w_k (t'_k - t_k)^2 over the original's
    w = w32.astype(float)
    x = frame[["q0", "q1"]].to_numpy(float)
    for table, loss in zip(chain.tables_, chain.utility_loss_, strict=True):
        y = table[["q0", "q1"]].to_numpy(float)
        assert loss == pytest.approx(((y - x) ** 2 @ w).sum() / ((x - x.mean(0)) ** 2 @ w).sum())
    with pytest.raises(ValueError, match=r"weights must sum to 1"):
        RelayChain("bua", hops=2, delta=0.03, sensitive="s", weights=[0.3, 0.6]).fit(frame)


# ---------------------------------------------------------------------------------------------------
# IMPOSTER detection


def _detect(**kwargs):
    return detect_implicit_privacy(detection_frame(), "sex", label="income", **kwargs)


DETECTION_CASES = {
    "beta text": (
        lambda: _detect(beta="high"),
        TypeError,
        r"'beta' parameter of detect_implicit_privacy must be a float in the range "
        r"\[0\.0, 1\.0\] or None\. Got 'high' instead",
    ),
    "beta above one": (lambda: _detect(beta=1.5), ValueError, r"'beta' .*\[0\.0, 1\.0\].*1\.5"),
    "beta nan": (lambda: _detect(beta=NAN), ValueError, r"'beta' .*Got nan"),
    "theta text": (lambda: _detect(theta="0.1"), TypeError, r"'theta' .*Got '0\.1'"),
    "theta negative": (lambda: _detect(theta=-0.1), ValueError, r"'theta' .*Got -0\.1"),
    "theta inf": (lambda: _detect(theta=INF), ValueError, r"'theta' .*Got inf"),
    "theta bool": (lambda: _detect(theta=False), TypeError, r"'theta' .*Got False"),
    "test_size zero": (
        lambda: _detect(beta=0.5, test_size=0.0),
        ValueError,
        r"'test_size' .*a float in the range \(0\.0, 1\.0\)\. Got 0\.0",
    ),
    "test_size one": (
        lambda: _detect(beta=0.5, test_size=1.0),
        ValueError,
        r"'test_size' .*a float in the range \(0\.0, 1\.0\)\. Got 1\.0",
    ),
    "random_state float": (
        lambda: _detect(random_state=1.5),
        TypeError,
        r"'random_state' .*None, an int .*Got 1\.5",
    ),
    "n_bins one": (
        lambda: _detect(n_bins=1),
        ValueError,
        r"'n_bins' parameter of attribute_correlations must be an int in the range \[2, inf\)\. "
        r"Got 1 instead",
    ),
    "n_bins float": (lambda: _detect(n_bins=2.5), TypeError, r"'n_bins' .*an int"),
    "max_categories zero": (
        lambda: _detect(max_categories=0),
        ValueError,
        r"'max_categories' .*an int in the range \[1, inf\)\. Got 0",
    ),
    "inf in numeric attribute": (
        lambda: attribute_correlations(with_value(detection_frame(), "x", 7, INF), "sex"),
        ValueError,
        r"column 'x' holds non-finite values \[inf\]",
    ),
    "-inf in numeric attribute": (
        lambda: detect_implicit_privacy(with_value(detection_frame(), "x", 7, -INF), "sex"),
        ValueError,
        r"column 'x' holds non-finite values \[-inf\]",
    ),
    "mixed int and str attribute": (
        lambda: attribute_correlations(with_value(detection_frame(), "c", 4, 7), "sex"),
        TypeError,
        r"column 'c' mixes value types \['number', 'str'\]",
    ),
    "mixed int and str private": (
        lambda: detect_implicit_privacy(
            detection_frame().assign(
                sex=lambda d: pd.Series(["F" if v == "F" else 1 for v in d["sex"]], dtype=object)
            ),
            "sex",
        ),
        TypeError,
        r"column 'sex' mixes value types",
    ),
    "duplicated column names": (
        lambda: attribute_correlations(duplicated(detection_frame(), "x"), "sex"),
        ValueError,
        r"duplicated column names \['x'\]",
    ),
    "unknown column": (
        lambda: _detect(columns=["x", "zz"]),
        ValueError,
        r"columns \['zz'\] are not in the table",
    ),
}


@pytest.mark.parametrize("case", list(DETECTION_CASES), ids=list(DETECTION_CASES))
def test_detection_bad_input(case):
    call, error, match = DETECTION_CASES[case]
    with pytest.raises(error, match=match):
        call()


def test_detection_accepts_numpy_scalars():
    plain = _detect(theta=0.05)
    numpy = _detect(theta=np.float32(0.05), n_bins=np.int64(10), random_state=np.int64(0))
    assert numpy.candidates == plain.candidates
    assert numpy.theta == float(np.float32(0.05))
    pd.testing.assert_frame_equal(numpy.scores, plain.scores)


# ---------------------------------------------------------------------------------------------------
# IMPOSTER protection


def _imposter_fit(**params):
    """Imposter with ``params`` fitted on the detection frame: the constructor stores, fit
    checks."""
    settings = {"private": "sex", "epochs": 1, "progress": False, **params}
    return Imposter(**settings).fit(detection_frame())


PROTECTION_CASES = {
    "lr zero": (
        lambda: _imposter_fit(lr=0.0),
        ValueError,
        r"'lr' parameter of Imposter must be a float in the range \(0\.0, inf\)\. Got 0\.0",
    ),
    "lr text": (lambda: _imposter_fit(lr="fast"), TypeError, r"'lr' .*Got 'fast'"),
    "numeric_sigma negative": (
        lambda: _imposter_fit(numeric_sigma=-1.0),
        ValueError,
        r"'numeric_sigma' .*\(0\.0, inf\)\. Got -1\.0",
    ),
    "lam nan": (lambda: _imposter_fit(lam=NAN), ValueError, r"'lam' .*Got nan"),
    "epochs float": (lambda: _imposter_fit(epochs=2.0), TypeError, r"'epochs' .*an int"),
    "epochs bool": (lambda: _imposter_fit(epochs=True), TypeError, r"'epochs' .*Got True"),
    "n_threads three": (
        lambda: _imposter_fit(n_threads=3),
        ValueError,
        r"'n_threads' .*\[1, 2\]",
    ),
    "negative random_state": (
        lambda: Imposter(private="sex", epochs=1).fit(detection_frame(), random_state=-1),
        ValueError,
        r"random_state must be an int >= 0",
    ),
    "inf in training data": (
        lambda: Imposter(private="sex", epochs=1, progress=False).fit(
            with_value(detection_frame(), "x", 3, INF)
        ),
        ValueError,
        r"column 'x' holds non-finite values \[inf\]",
    ),
    "nan in training data": (
        lambda: Imposter(private="sex", epochs=1, progress=False).fit(
            with_value(detection_frame(), "x", 3, NAN)
        ),
        ValueError,
        r"column 'x' has missing values",
    ),
    "duplicated column names": (
        lambda: Imposter(private="sex", epochs=1, progress=False).fit(
            duplicated(detection_frame(), "c")
        ),
        ValueError,
        r"duplicated column names \['c'\]",
    ),
}


@pytest.mark.parametrize("case", list(PROTECTION_CASES), ids=list(PROTECTION_CASES))
def test_protection_bad_input(case):
    call, error, match = PROTECTION_CASES[case]
    with pytest.raises(error, match=match):
        call()


def test_protection_accepts_numpy_scalars():
    model = Imposter(
        lam=np.float32(0.5),
        private="sex",
        label="income",
        lr=np.float32(1e-3),
        numeric_sigma=np.float32(0.1),
        epochs=np.int64(1),
        batch_size=np.int64(64),
        progress=False,
    )
    # stored as given (scikit-learn's rule), used as numbers
    assert model.lr is not None and model.lr == np.float32(1e-3)
    model.fit(detection_frame(), random_state=np.int64(0))
    sample = model.sample(np.int64(5), np.random.default_rng(0))
    assert len(sample) == 5
    for n in (0, -3):
        with pytest.raises(ValueError, match=rf"'n' parameter of Imposter\.sample .*Got {n} "):
            model.sample(n, np.random.default_rng(0))


def test_codec_keeps_mixed_type_categories_apart():
    # a categorical column may mix types: 1 and "1" are different categories
    frame = pd.DataFrame({"c": pd.Series([1, "1", "a", 1, "a"], dtype=object)})
    codec = TableCodec().fit(frame)
    assert list(codec.categories_["c"]) == [1, "1", "a"]
    encoded = codec.encode(frame)
    np.testing.assert_array_equal(encoded.argmax(axis=1), [0, 1, 2, 0, 2])
    decoded = codec.decode(encoded, np.random.default_rng(0))
    assert decoded["c"].tolist() == frame["c"].tolist()
