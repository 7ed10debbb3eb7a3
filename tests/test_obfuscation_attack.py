"""The attacker who knows HyObscure's (or a baseline's) obfuscation channel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from populations import SMALL, hyobscure_population
from ppdp.attacks.obfuscation import (
    ObfuscationChannel,
    member_weights,
    obfuscation_channel,
    obfuscation_posterior,
)
from ppdp.cells import table_domains
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure import TableObfuscation

BASELINES = {
    "RandomObfuscation": (hy.RandomObfuscation, "p_rand", 0.3),
    "Frapp": (hy.Frapp, "gamma", 7.0),
    "Similarity": (hy.Similarity, "p_obf", 0.6),
    "DPObfuscation": (hy.DPObfuscation, "beta", 4.0),
}


@pytest.mark.parametrize("kind", list(BASELINES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_member_weights_are_the_rows_of_the_baselines_own_matrix(kind, seed):
    """Each user's row of the baseline's ``_group_matrix`` is his own weight and the others'."""
    cls, name, value = BASELINES[kind]
    rng = np.random.default_rng(seed)
    Xg = rng.poisson(2.0, (9, 5)) + np.eye(9, 5)  # no all-zero row
    matrix = cls(**{name: value})
    if kind == "DPObfuscation":
        matrix.distances_ = []
    M = matrix._group_matrix(Xg, value)
    for i in range(len(Xg)):
        others = np.delete(np.arange(len(Xg)), i)
        own, weights = member_weights(kind, value, Xg[[i]], Xg[others])
        np.testing.assert_allclose(own[0], M[i, i], rtol=1e-12)
        np.testing.assert_allclose(weights[0], M[i, others], rtol=1e-12, atol=1e-15)


def test_member_weights_names_an_unknown_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        member_weights("Laplace", 1.0, np.ones((1, 2)), np.ones((2, 2)))


# ------------------------------------------------------------------------------------------------
# the posterior against a plain enumeration


def _toy(seed: int, n_rows: int = 14):
    """A release of two groups of ages with features on a 3-value grid (no all-zero row, which
    the DP baseline cannot weigh), targets and their priors."""
    rng = np.random.default_rng(seed)
    released = pd.DataFrame(
        {
            "occ": rng.choice(["a", "b"], n_rows),
            "f1": rng.integers(1, 4, n_rows).astype(float),
            "f2": rng.integers(1, 4, n_rows).astype(float),
            "age": rng.choice(["18-25", "35-50"], n_rows),
        }
    )
    targets = pd.DataFrame(
        {
            "occ": rng.choice(["a", "b"], 6),
            "f1": rng.integers(1, 4, 6).astype(float),
            "f2": rng.integers(1, 4, 6).astype(float),
            "age": rng.choice([18, 25, 35, 50], 6),
        }
    )
    # every value of every domain occurs
    corners = {"occ": ["a", "b", "a", "b"], "f1": [1.0, 3.0, 2, 2], "f2": [1.0, 3.0, 2, 2]}
    everyone = pd.concat([targets, pd.DataFrame({**corners, "age": [18, 25, 35, 50]})])
    domains = table_domains(everyone, ["occ", "f1", "f2", "age"], numeric=["f1", "f2", "age"])
    prior = rng.dirichlet(np.ones(4), size=6)
    return released, targets, domains, prior


def _channel(kind: str, seed: int) -> ObfuscationChannel:
    rng = np.random.default_rng(seed)
    common = {
        "features": ("f1", "f2"),
        "labels": ("18-25", "35-50"),
        "generalization": hy.Generalization(
            hy.private_domain(np.array([18, 25, 35, 50])), np.array([0, 0, 1, 1])
        ),
    }
    if kind == "cluster":
        return ObfuscationChannel(
            kind="cluster",
            centres=np.array([[1.0, 1.0], [3.0, 3.0], [1.0, 3.0]]),
            mappings=rng.dirichlet(np.ones(3), size=(2, 3)),
            **common,
        )
    return ObfuscationChannel(kind=kind, parameter=BASELINES[kind][2], **common)


def _brute_force(kind, channel, released, targets, prior):
    """The module's formula written out with loops, one target, group and row at a time."""
    values = [18, 25, 35, 50]
    out = np.zeros((len(targets), 4))
    for i, (_, t) in enumerate(targets.iterrows()):
        x = np.array([t.f1, t.f2])
        evidence = np.zeros(2)
        for g, label in enumerate(channel.labels):
            group = released[released.age == label]
            shown = group[["f1", "f2"]].to_numpy()
            for _, r in group.iterrows():
                if r.occ != t.occ:
                    continue
                xr = np.array([r.f1, r.f2])
                same = sum(bool((s == xr).all()) for s in shown)
                if kind == "cluster":

                    def nearest(v):
                        d = [float(((v - c) ** 2).sum()) for c in channel.centres]
                        return int(np.argmin(d))

                    in_cluster = sum(nearest(s) == nearest(xr) for s in shown)
                    lik = channel.mappings[g, nearest(x), nearest(xr)] * same / in_cluster
                else:
                    own, w = member_weights(kind, channel.parameter, x[None, :], shown)
                    # every member showing xr has the same weight: that of row r's features
                    j = next(k for k, s in enumerate(shown) if (s == xr).all())
                    lik = own[0] * float((x == xr).all()) + same * w[0, j]
                # the share of released rows showing what r shows
                alike = (
                    (released.occ == r.occ)
                    & (released.age == label)
                    & (released.f1 == r.f1)
                    & (released.f2 == r.f2)
                )
                evidence[g] += lik / (alike.sum() / len(released))
        if evidence.sum() == 0:
            out[i] = prior[i]
            continue
        joint = np.array(
            [
                prior[i, v] * evidence[channel.generalization.transform([value])[0]]
                for v, value in enumerate(values)
            ]
        )
        out[i] = joint / joint.sum()
    return out


@pytest.mark.parametrize("kind", ["cluster", *BASELINES])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_posterior_equals_the_enumeration(kind, seed):
    released, targets, domains, prior = _toy(seed)
    channel = _channel(kind, seed)
    got = obfuscation_posterior(
        targets,
        released,
        domains=domains,
        qi=["occ", "f1", "f2"],
        private="age",
        channel=channel,
        prior=prior,
    )
    np.testing.assert_allclose(got, _brute_force(kind, channel, released, targets, prior))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["cluster", *BASELINES]))
def test_rows_sum_to_one_and_a_target_without_candidates_keeps_his_prior(seed, kind):
    released, targets, domains, prior = _toy(seed)
    targets.loc[targets.index[0], "occ"] = "z"  # no released row has this occupation
    domains = table_domains(
        pd.concat([targets, released.assign(age=18), pd.DataFrame({"age": [18, 25, 35, 50]})]),
        ["occ", "f1", "f2", "age"],
        numeric=["f1", "f2", "age"],
    )
    got = obfuscation_posterior(
        targets,
        released,
        domains=domains,
        qi=["occ", "f1", "f2"],
        private="age",
        channel=_channel(kind, seed),
        prior=prior,
    )
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
    assert (got >= 0).all()
    np.testing.assert_allclose(got[0], prior[0] / prior[0].sum())


# ------------------------------------------------------------------------------------------------
# fitted mechanisms


def _frame(seed: int = 0, n: int = 240) -> pd.DataFrame:
    X, y, _ = hyobscure_population(seed, n=n, n_values=16, m=4)
    df = pd.DataFrame(X.astype(np.int64), columns=[f"f{j}" for j in range(4)])
    df["age"] = y
    return df


def _fit(mech, df, **settings):
    constraints = {k: SMALL[k] for k in ("n_groups", "k", "alpha", "l", "beta")}
    if not isinstance(mech, hy.HyObscure):
        settings = {**constraints, **settings}
    return TableObfuscation(mech, private="age", kmeans_n_init=1, **settings).fit(
        df, random_state=0
    )


def _attack(adapter, df, released):
    features = adapter.feature_columns_
    domains = table_domains(df, [*features, "age"], numeric=[*features, "age"])
    values = domains["age"].values
    prior = np.full(len(values), 1.0 / len(values))
    return obfuscation_posterior(
        df,
        released,
        domains=domains,
        qi=features,
        private="age",
        channel=obfuscation_channel(adapter),
        prior=prior,
    ), values


def _true_group_mass(adapter, df, post, values):
    groups = adapter.generalization_.transform(df["age"].to_numpy())
    value_groups = adapter.generalization_.transform(values)
    return np.array([post[i, value_groups == g].sum() for i, g in enumerate(groups)])


def test_keeping_ones_own_features_discloses_the_group_and_obfuscating_hides_it():
    """Random obfuscation at p_rand = 0 publishes every user's own features: a user whose
    features are unique is found, and his group is certain; at p_rand = 1 much less so."""
    df = _frame()
    features = [c for c in df.columns if c != "age"]
    unique = ~df.duplicated(features, keep=False).to_numpy()
    masses = {}
    for p in (0.0, 1.0):
        adapter = _fit(hy.RandomObfuscation(p_rand=p), df)
        post, values = _attack(adapter, df, adapter.release(random_state=1))
        masses[p] = _true_group_mass(adapter, df, post, values)
    np.testing.assert_allclose(masses[0.0][unique], 1.0)
    assert masses[1.0][unique].mean() < 0.9


def test_hyobscure_channel_attack_runs_on_a_fitted_release():
    """HyObscure's fitted channel: one mapping per group, centres per cluster, posterior rows
    that sum to 1 and put mass only on values of groups that show the target's cluster."""
    df = _frame()
    adapter = _fit(hy.HyObscure(**SMALL), df)
    channel = obfuscation_channel(adapter)
    assert channel.kind == "cluster"
    assert channel.mappings.shape == (len(channel.labels), 3, 3)
    assert channel.centres.shape == (3, 4)
    post, _ = _attack(adapter, df, adapter.release(random_state=1))
    np.testing.assert_allclose(post.sum(axis=1), 1.0)
    assert np.isfinite(post).all()


def test_channel_of_an_unfitted_or_foreign_mechanism_is_refused():
    with pytest.raises(NotFittedError):
        obfuscation_channel(TableObfuscation(hy.RandomObfuscation(), private="age"))
    with pytest.raises(TypeError, match="TableObfuscation"):
        obfuscation_channel(hy.RandomObfuscation())


def test_bad_arguments_name_themselves():
    released, targets, domains, prior = _toy(0)
    channel = _channel("cluster", 0)
    args = {"domains": domains, "private": "age", "prior": prior}
    with pytest.raises(ValueError, match="must be among the qi"):
        obfuscation_posterior(targets, released, qi=["occ", "f1"], channel=channel, **args)
    with pytest.raises(TypeError, match="ObfuscationChannel"):
        obfuscation_posterior(targets, released, qi=["occ", "f1", "f2"], channel={}, **args)
    bad = released.assign(age="10-12")
    with pytest.raises(ValueError, match="group labels"):
        obfuscation_posterior(targets, bad, qi=["occ", "f1", "f2"], channel=channel, **args)
