"""IMPOSTER: implicit-privacy detection (Algorithm 1) and the VAE-GAN protection (Algorithm 2)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.classifiers import evaluate_setting, split_frame
from ppdp.mechanisms.imposter import (
    Imposter,
    TableCodec,
    attribute_correlations,
    detect_implicit_privacy,
    discretize_for_information,
)

pytest.importorskip("torch")


def planted_table(n: int = 1200, seed: int = 0) -> pd.DataFrame:
    """``copy`` repeats ``s`` (90%), ``shift`` is a numeric shifted by ``s``, ``noise`` and
    ``age`` are independent of ``s``; ``income`` depends on ``noise`` only."""
    rng = np.random.default_rng(seed)
    s = rng.choice(["F", "M"], size=n, p=[0.4, 0.6])
    keep = rng.random(n) < 0.9
    copy = np.where(keep, s, np.where(s == "F", "M", "F"))
    noise = rng.choice(["u", "v", "w"], size=n)
    income = np.where(rng.random(n) < 0.2 + 0.6 * (noise == "u"), ">50K", "<=50K")
    return pd.DataFrame(
        {
            "copy": pd.Series(np.where(copy == "F", "p", "q")).astype("category"),
            "noise": noise,
            "shift": np.round(rng.normal(size=n) + 2.0 * (s == "F"), 2),
            "age": rng.integers(17, 90, size=n),
            "sex": pd.Series(s).astype("category"),
            "income": income,
        }
    )


# --------------------------------------------------------------------------------------------- detection


def _entropy_bits(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def test_scores_match_a_hand_computation():
    df = planted_table(600, seed=3)
    scores = attribute_correlations(df, "sex", label="income")
    # brute force: contingency table by python loops
    x, s = df["copy"].astype(str).to_numpy(), df["sex"].astype(str).to_numpy()
    table = np.zeros((2, 2))
    for a, b in zip(x, s, strict=True):
        table["pq".index(a), "FM".index(b)] += 1
    hx, hs, hxs = (
        _entropy_bits(table.sum(1)),
        _entropy_bits(table.sum(0)),
        _entropy_bits(table.ravel()),
    )
    mi = hx + hs - hxs
    assert scores.loc["copy", "mi_bits"] == pytest.approx(mi, abs=1e-12)
    assert scores.loc["copy", "nmi"] == pytest.approx(mi / ((hx + hs) / 2), abs=1e-12)
    assert scores.loc["copy", "eq7_printed"] == pytest.approx(
        ((hxs - hs) + (hxs - hx)) / hxs, abs=1e-12
    )
    # Eq. (7) as printed is 1 - I / H(x, s)
    assert scores.loc["copy", "eq7_printed"] == pytest.approx(1 - mi / hxs, abs=1e-12)
    r = np.corrcoef((x == "p").astype(float), (s == "M").astype(float))[0, 1]
    assert scores.loc["copy", "pearson"] == pytest.approx(abs(r), abs=1e-12)


def test_nmi_agrees_with_scikit_learn():
    from sklearn.metrics import normalized_mutual_info_score

    df = planted_table(800, seed=1)
    scores = attribute_correlations(df, "sex", label="income")
    for col in ("copy", "noise", "shift", "age"):
        x = discretize_for_information(df[col])
        assert scores.loc[col, "nmi"] == pytest.approx(
            normalized_mutual_info_score(x, df["sex"]), abs=1e-10
        )


def test_detection_selects_the_copy_and_not_the_independent_column():
    df = planted_table(2000)
    res = detect_implicit_privacy(df, "sex", label="income", theta=0.05, beta=0.7, random_state=0)
    assert "copy" in res.candidates and "shift" in res.candidates
    assert "noise" not in res.candidates and "age" not in res.candidates
    assert "income" not in res.scores.index
    assert res.performance is not None and res.performance >= 0.85
    assert res.implicit == res.candidates
    # an unreachable beta empties the set (Algorithm 1, line 11)
    strict = detect_implicit_privacy(
        df, "sex", label="income", theta=0.05, beta=0.999, random_state=0
    )
    assert strict.implicit == [] and strict.candidates == res.candidates


def test_pearson_option_and_zero_inflated_numeric():
    df = planted_table(1500)
    res = detect_implicit_privacy(df, "sex", label="income", theta=0.3, correlation="pearson")
    assert res.candidates[:1] in (["copy"], ["shift"]) and "noise" not in res.candidates
    # a zero-inflated numeric keeps "0" apart from "> 0" when binned
    values = pd.Series(np.r_[np.zeros(95), np.arange(1, 6)])
    assert len(np.unique(discretize_for_information(values))) >= 2


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(10, 200))
def test_scores_are_bounded(seed, n):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "s": rng.choice(["a", "b"], size=n),
            "x": rng.choice(list("xyz"), size=n),
            "y": rng.normal(size=n),
        }
    )
    if df["s"].nunique() < 2:
        df.loc[0, "s"], df.loc[1, "s"] = "a", "b"
    scores = attribute_correlations(df, "s")
    assert ((scores["nmi"] >= 0) & (scores["nmi"] <= 1)).all()
    assert ((scores["eq7_printed"] >= 0) & (scores["eq7_printed"] <= 1 + 1e-12)).all()
    assert (scores["mi_bits"] >= 0).all()
    assert ((scores["pearson"] >= 0) & (scores["pearson"] <= 1 + 1e-12)).all()


def test_detection_bad_input():
    df = planted_table(200)
    with pytest.raises(ValueError, match="binary"):
        detect_implicit_privacy(df, "noise")
    with pytest.raises(ValueError, match="not a column"):
        detect_implicit_privacy(df, "gender")
    with pytest.raises(ValueError, match="must differ"):
        detect_implicit_privacy(df, "sex", label="sex")
    with pytest.raises(ValueError, match="empty"):
        detect_implicit_privacy(df.iloc[:0], "sex")
    with pytest.raises(ValueError, match="theta"):
        detect_implicit_privacy(df, "sex", theta=1.5)
    with pytest.raises(ValueError, match="correlation"):
        detect_implicit_privacy(df, "sex", correlation="spearman")
    bad = df.copy()
    bad.loc[3, "sex"] = np.nan
    with pytest.raises(ValueError, match="missing"):
        detect_implicit_privacy(bad, "sex")


# --------------------------------------------------------------------------------------------- codec


def test_codec_round_trip():
    df = planted_table(300).drop(columns=["sex"])
    codec = TableCodec().fit(df)
    enc = codec.encode(df)
    assert enc.shape == (300, 2 + 3 + 1 + 1 + 2)
    assert np.all((enc > 0) & (enc < 1) | (enc == 0) | (enc == 1))
    # one-hot blocks decode back exactly; numeric CDF values decode to observed values
    back = codec.decode(enc, np.random.default_rng(0))
    for col in ("copy", "noise", "income"):
        assert (back[col].astype(str) == df[col].astype(str)).all()
    assert back["age"].dtype == df["age"].dtype
    assert set(back["shift"]) <= set(df["shift"])
    # the CDF coding is monotone: decoding a numeric's code gives a value of the same rank region
    order = np.argsort(enc[:, codec.blocks_[2][1]])
    assert np.all(np.diff(df["shift"].to_numpy()[order]) >= 0)


# --------------------------------------------------------------------------------------------- protection

EPOCHS = 25


@pytest.fixture(scope="module")
def planted():
    return planted_table(1200)


@pytest.fixture(scope="module")
def fitted(planted):
    out = {}
    for lam in (0.0, 2.0):
        out[lam] = Imposter(
            lam=lam,
            private="sex",
            label="income",
            columns=["copy", "noise", "shift", "age"],
            epochs=EPOCHS,
            batch_size=128,
            progress=False,
        ).fit(planted, random_state=0)
    return out


def test_generated_table_has_the_input_schema(planted, fitted):
    model = fitted[2.0]
    syn = model.sample(500, np.random.default_rng(0))
    assert list(syn.columns) == list(planted.columns)
    assert (syn.dtypes == planted.dtypes).all()
    for col in ("copy", "noise", "sex", "income"):
        assert set(syn[col].astype(str)) <= set(planted[col].astype(str))
    for col in ("shift", "age"):
        assert syn[col].between(planted[col].min(), planted[col].max()).all()
    assert not syn.isna().any().any()
    hist = model.history_
    assert len(hist) == EPOCHS and np.isfinite(hist.drop(columns="epoch").to_numpy()).all()
    # the VAE learns: reconstruction error falls
    assert hist["recon"].iloc[-1] < hist["recon"].iloc[0]


def test_conditioning_on_s_and_prior(fitted):
    model = fitted[0.0]
    syn = model.sample(400, np.random.default_rng(1), s="F")
    assert (syn["sex"] == "F").all()
    many = model.sample(4000, np.random.default_rng(2))
    assert (many["sex"] == "M").mean() == pytest.approx(model.private_prior_, abs=0.03)
    with pytest.raises(ValueError, match="values of"):
        model.sample(3, np.random.default_rng(0), s="X")


def _attack_accuracy(model, n=2000, seed=5):
    syn = model.sample(n, np.random.default_rng(seed))
    train, test = split_frame(syn, random_state=0, stratify="sex")
    res = evaluate_setting(
        train, test, features=["copy", "noise", "shift", "age"], target="sex", classifier="LR"
    )
    return res["accuracy"], (test["sex"] == test["sex"].mode()[0]).mean()


def test_privacy_discriminator_removes_the_planted_correlation(planted, fitted):
    real_train, real_test = split_frame(planted, random_state=0, stratify="sex")
    real = evaluate_setting(
        real_train,
        real_test,
        features=["copy", "noise", "shift", "age"],
        target="sex",
        classifier="LR",
    )["accuracy"]
    acc0, _ = _attack_accuracy(fitted[0.0])
    acc2, majority = _attack_accuracy(fitted[2.0])
    # lambda = 0 (CGAN + VAE) keeps the correlation, lambda > 0 moves the attack towards guessing
    assert acc0 > 0.85 and real > 0.85
    assert acc2 < acc0 - 0.1
    assert abs(acc2 - majority) < abs(acc0 - majority)
    # and D2 itself saw it during training
    assert (
        fitted[2.0].history_["d2_accuracy"].iloc[-5:].mean()
        < fitted[0.0].history_["d2_accuracy"].iloc[-5:].mean()
    )


def test_same_seed_same_samples(planted):
    def run():
        model = Imposter(
            lam=1.0, private="sex", label="income", epochs=2, batch_size=100, progress=False
        ).fit(planted, random_state=3)
        return model.sample(200, np.random.default_rng(9)), model.history_

    a, ha = run()
    b, hb = run()
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(ha, hb)
    c = Imposter(
        lam=1.0, private="sex", label="income", epochs=2, batch_size=100, progress=False
    ).fit(planted, random_state=4)
    assert not c.history_.equals(ha)


def test_protection_bad_input(planted):
    # the constructor stores; fit checks
    for bad, match in (({"lam": -1.0}, "lam"), ({"privacy_loss": "w"}, "privacy_loss")):
        with pytest.raises(ValueError, match=match):
            Imposter(private="sex", progress=False, **bad).fit(planted)
    with pytest.raises(ValueError, match="epochs"):
        Imposter(private="sex", epochs=0).fit(planted)
    with pytest.raises(ValueError, match="private must name"):
        Imposter(epochs=1, progress=False).fit(planted)
    with pytest.raises(ValueError, match="binary"):
        Imposter(private="noise", epochs=1, progress=False).fit(planted)
    with pytest.raises(ValueError, match="not a column"):
        Imposter(private="gender", epochs=1, progress=False).fit(planted)
    with pytest.raises(ValueError, match="must differ"):
        Imposter(private="sex", label="sex", epochs=1, progress=False).fit(planted)
    model = Imposter(private="sex", epochs=1, progress=False)
    with pytest.raises(ValueError, match="empty"):
        model.fit(planted.iloc[:0])
    with pytest.raises(TypeError, match="DataFrame"):
        model.fit(planted.to_numpy())
    with pytest.raises(ValueError, match="not fitted"):
        model.sample(5, np.random.default_rng(0))
    fitted_model = Imposter(private="sex", epochs=1, progress=False).fit(planted)
    with pytest.raises(TypeError, match="random_state"):
        fitted_model.sample(5, "0")
    with pytest.raises(ValueError, match=r"'n' parameter of Imposter\.sample .*Got 0"):
        fitted_model.sample(0, np.random.default_rng(0))


def test_confusion_variant_runs_and_is_finite(planted):
    model = Imposter(
        lam=1.0, private="sex", label="income", epochs=2, privacy_loss="confusion", progress=False
    ).fit(planted)
    assert math.isfinite(model.history_["g_loss"].iloc[-1])


def _weights(model) -> list[np.ndarray]:
    nets = (model.encoder_, model.generator_, model.d1_, model.d2_)
    return [p.detach().numpy().copy() for net in nets for p in net.parameters()]


@pytest.mark.parametrize("lam", [0.0, 2.0])
def test_training_shortcuts_leave_every_bit_as_the_plain_loop_computes_it(
    planted, monkeypatch, lam
):
    """The generator's step freezes D1 and D2, so that its backward pass computes no gradient
    of their weights (their next step zeroes them first), and Adam updates each network's
    tensors together (``foreach``). Trained again without either, every weight, the loss
    history and the samples are the same bits."""
    import torch

    def train():
        model = Imposter(
            lam=lam, private="sex", label="income", epochs=2, batch_size=100, progress=False
        ).fit(planted, random_state=3)
        return model, model.sample(300, np.random.default_rng(9))

    frozen, frozen_sample = train()
    assert all(p.requires_grad for net in (frozen.d1_, frozen.d2_) for p in net.parameters())
    seen = []

    def not_frozen(self, requires_grad=True):
        seen.append(requires_grad)
        return self

    adam = torch.optim.Adam
    foreach = []

    def one_tensor_at_a_time(params, **options):
        foreach.append(options.pop("foreach"))
        return adam(params, foreach=False, **options)

    with monkeypatch.context() as m:
        m.setattr(torch.nn.ModuleList, "requires_grad_", not_frozen)
        m.setattr(torch.optim, "Adam", one_tensor_at_a_time)
        full, full_sample = train()
    # the freeze and foreach were asked for, and not granted
    assert False in seen and foreach == [True, True, True]
    for a, b in zip(_weights(frozen), _weights(full), strict=True):
        np.testing.assert_array_equal(a, b)
    pd.testing.assert_frame_equal(frozen.history_, full.history_)
    pd.testing.assert_frame_equal(frozen_sample, full_sample)


@pytest.mark.parametrize("mode, warn_only", [(False, False), (True, True)])
def test_fit_restores_torchs_deterministic_setting(planted, mode, warn_only):
    import torch

    previous = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    seen = []
    try:
        torch.use_deterministic_algorithms(mode, warn_only=warn_only)
        model = Imposter(private="sex", epochs=1, progress=False)
        original = model._build

        def build(width):  # inside fit, after the setting is made
            seen.append(torch.are_deterministic_algorithms_enabled())
            return original(width)

        model._build = build
        model.fit(planted.iloc[:200], random_state=0)
        assert seen == [True]
        assert torch.are_deterministic_algorithms_enabled() is mode
        assert torch.is_deterministic_algorithms_warn_only_enabled() is warn_only
    finally:
        torch.use_deterministic_algorithms(previous[0], warn_only=previous[1])
