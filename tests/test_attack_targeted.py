"""Targeted attribute inference: class matching on generalized releases, Bayes through a known
channel (k-RR), and the scores of their posteriors.

The attackers are checked against brute-force posteriors that read every released cell by hand
(ranges, value sets, class means) and loop over targets, released rows and private values.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score

from ppdp.attacks.targeted import (
    channel_posterior,
    class_matching_posterior,
    krr_channel,
    posterior_scores,
)
from ppdp.cells import cell_membership, design_matrix, table_domains

# --------------------------------------------------------------------------------------------
# Brute force: cells read by hand, loops over targets, rows and values
# --------------------------------------------------------------------------------------------


def cell_mass(cell, value, domain_values) -> float:
    """Mass that a released cell puts on ``value`` under the uniformity reading."""
    if isinstance(cell, str) and cell.startswith("{"):
        members = cell[1:-1].split(",")
        return 1.0 / len(members) if str(value) in members else 0.0
    if isinstance(cell, str) and "-" in cell:
        lo, hi = (float(x) for x in cell.split("-"))
        inside = [v for v in domain_values if lo <= v <= hi]
        return 1.0 / len(inside) if lo <= value <= hi else 0.0
    if not isinstance(cell, str) and cell not in domain_values:
        # a class mean: split between its two neighbouring domain values
        below = max(v for v in domain_values if v < cell)
        above = min(v for v in domain_values if v > cell)
        if value == below:
            return (above - cell) / (above - below)
        if value == above:
            return (cell - below) / (above - below)
        return 0.0
    return float(cell == value)


def brute_weights(target, released, qi, domains) -> list[float]:
    weights = []
    for _, row in released.iterrows():
        w = 1.0
        for q in qi:
            w *= cell_mass(row[q], target[q], list(domains[q].values))
        weights.append(w)
    return weights


def brute_class_matching(targets, released, qi, private, domains, prior) -> np.ndarray:
    values = list(domains[private].values)
    out = np.zeros((len(targets), len(values)))
    for i, (_, target) in enumerate(targets.iterrows()):
        weights = brute_weights(target, released, qi, domains)
        if sum(weights) == 0:
            out[i] = np.asarray(prior) / np.sum(prior)
            continue
        for j, s in enumerate(values):
            out[i, j] = sum(
                w * cell_mass(cell, s, values)
                for w, cell in zip(weights, released[private], strict=True)
            )
        out[i] /= out[i].sum()
    return out


def brute_channel(targets, released, qi, private, domains, channel, prior) -> np.ndarray:
    values = list(domains[private].values)
    prior = np.broadcast_to(np.asarray(prior, dtype=float), (len(targets), len(values)))
    out = np.zeros((len(targets), len(values)))
    for i, (_, target) in enumerate(targets.iterrows()):
        weights = brute_weights(target, released, qi, domains)
        p = prior[i] / prior[i].sum()
        if sum(weights) == 0:
            out[i] = p
            continue
        for j in range(len(values)):
            like = sum(
                w * channel[j, values.index(r)]
                for w, r in zip(weights, released[private], strict=True)
            )
            out[i, j] = p[j] * like
        out[i] /= out[i].sum()
    return out


# --------------------------------------------------------------------------------------------
# Class matching
# --------------------------------------------------------------------------------------------


def small_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 41, n),
            "edu": rng.choice(["a", "b", "c", "d"], n),
            "dis": rng.choice(["x", "y", "z"], n, p=[0.5, 0.3, 0.2]),
        }
    )


def generalize_classes(
    table: pd.DataFrame, cuts, rng, *, widen: bool, private_sets: bool, edu_domain=()
) -> pd.DataFrame:
    """Equivalence classes of contiguous runs of the table sorted by age: an age range, a value
    set of edu and, optionally, a value set of the private column per class. ``widen`` widens
    each range by up to 3 years on each side and adds up to two values of ``edu_domain`` to each
    set."""
    order = np.argsort(table["age"].to_numpy(), kind="stable")
    out = table.iloc[order].reset_index(drop=True).astype(object)
    bounds = [0, *sorted(cuts), len(out)]
    for start, stop in itertools.pairwise(bounds):
        if stop <= start:
            continue
        cls = slice(start, stop - 1)
        lo, hi = out.loc[cls, "age"].min(), out.loc[cls, "age"].max()
        if widen:
            lo, hi = lo - int(rng.integers(0, 4)), hi + int(rng.integers(0, 4))
        out.loc[cls, "age"] = f"{lo}-{hi}"
        members = set(out.loc[cls, "edu"])
        if widen:
            members |= set(rng.choice(edu_domain, int(rng.integers(0, 3))).tolist())
        out.loc[cls, "edu"] = "{" + ",".join(sorted(members)) + "}"
        if private_sets and rng.random() < 0.5:
            out.loc[cls, "dis"] = "{" + ",".join(sorted(set(out.loc[cls, "dis"]))) + "}"
    return out


def test_class_matching_matches_brute_force_on_mixed_cells():
    table = small_table(30, 1)
    outsiders = pd.DataFrame({"age": [45, 21], "edu": ["a", "d"], "dis": ["x", "z"]})
    everyone = pd.concat([table, outsiders], ignore_index=True)
    domains = table_domains(everyone, ["age", "edu", "dis"], numeric=["age"])
    released = generalize_classes(
        table, [5, 11, 18, 24], np.random.default_rng(2), widen=False, private_sets=False
    )
    # one class with a generalized private cell, exact rows and a class mean between ages
    released.loc[:4, "dis"] = "{x,y}"
    released.loc[5, ["age", "edu"]] = [int(table["age"].min()), "b"]
    released.loc[6, "age"] = float(domains["age"].values[3] + domains["age"].values[4]) / 2
    released.loc[6, "edu"] = "{a,b,c,d}"
    qi, private = ["age", "edu"], "dis"

    got = class_matching_posterior(everyone, released, domains=domains, qi=qi, private=private)
    # the default prior: the private column's distribution in the release
    prior = cell_membership(released["dis"], domains["dis"]).mean(axis=0)
    want = brute_class_matching(everyone, released, qi, private, domains, prior)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
    # the first outsider (age 45) is outside every range: the prior
    np.testing.assert_allclose(got[30], prior / prior.sum())

    custom = np.array([0.2, 0.3, 0.5])
    got = class_matching_posterior(
        everyone, released, domains=domains, qi=qi, private=private, prior=custom
    )
    np.testing.assert_allclose(got[30], custom)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(3, 25),
    n_cuts=st.integers(0, 6),
    widen=st.booleans(),
    private_sets=st.booleans(),
)
def test_class_matching_matches_brute_force_on_random_generalizations(
    seed, n, n_cuts, widen, private_sets
):
    rng = np.random.default_rng(seed)
    table = small_table(n, seed)
    outsiders = small_table(3, seed + 1)
    everyone = pd.concat([table, outsiders], ignore_index=True)
    domains = table_domains(everyone, ["age", "edu", "dis"], numeric=["age"])
    cuts = rng.integers(1, n, n_cuts) if n > 1 else []
    released = generalize_classes(
        table,
        cuts,
        rng,
        widen=widen,
        private_sets=private_sets,
        edu_domain=list(domains["edu"].values),
    )
    prior = rng.random(domains["dis"].size) + 0.01
    got = class_matching_posterior(
        everyone, released, domains=domains, qi=["age", "edu"], private="dis", prior=prior
    )
    want = brute_class_matching(everyone, released, ["age", "edu"], "dis", domains, prior)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_class_matching_on_exact_release_is_the_matching_rows_distribution():
    table = small_table(200, 3)
    domains = table_domains(table, ["age", "edu", "dis"], numeric=["age"])
    got = class_matching_posterior(table, table, domains=domains, qi=["age", "edu"], private="dis")
    counts = pd.crosstab([table["age"], table["edu"]], table["dis"])
    share = counts.div(counts.sum(axis=1), axis=0)
    want = share.loc[list(zip(table["age"], table["edu"], strict=True))].to_numpy()
    np.testing.assert_allclose(got, want)


# --------------------------------------------------------------------------------------------
# Channel attacker
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("duplicates", [False, True])
def test_channel_posterior_matches_brute_force_bayes(duplicates):
    rng = np.random.default_rng(4)
    n = 40
    if duplicates:
        # 3 ages x 2 values of edu: every target shares its QIs with several rows
        table = pd.DataFrame({"age": rng.choice([30, 40, 50], n), "edu": rng.choice(["a", "b"], n)})
    else:
        table = pd.DataFrame({"age": np.arange(20, 20 + n), "edu": rng.choice(["a", "b"], n)})
    table["dis"] = rng.choice(["x", "y", "z"], n)
    outsider = pd.DataFrame({"age": [int(table["age"].max()) + 1], "edu": ["a"], "dis": ["x"]})
    everyone = pd.concat([table, outsider], ignore_index=True)
    domains = table_domains(everyone, ["age", "edu", "dis"], numeric=["age"])
    channel = krr_channel(3, 1.0)
    values = list(domains["dis"].values)
    codes = np.array([values.index(v) for v in table["dis"]])
    released = table.copy()
    draws = np.array([rng.choice(3, p=channel[c]) for c in codes])
    released["dis"] = np.array(values, dtype=object)[draws]
    prior = rng.dirichlet(np.ones(3), len(everyone))

    # k-RR with one prior per target, then a skewed channel (not k-RR) with one prior for all
    skewed = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]])
    shared = np.array([0.5, 0.3, 0.2])
    for chan, belief in ((channel, prior), (skewed, shared)):
        got = channel_posterior(
            everyone,
            released,
            domains=domains,
            qi=["age", "edu"],
            private="dis",
            channel=chan,
            prior=belief,
        )
        want = brute_channel(everyone, released, ["age", "edu"], "dis", domains, chan, belief)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        # the outsider matches no released row: his prior
        np.testing.assert_allclose(got[-1], np.atleast_2d(belief)[-1])


def test_channel_posterior_with_a_contradicted_prior_is_the_likelihood():
    table = pd.DataFrame({"age": [30, 31], "dis": ["x", "y"]})
    domains = table_domains(table, ["age", "dis"], numeric=["age"])
    channel = np.array([[1.0, 0.0], [0.2, 0.8]])
    # the attacker is sure of "x" for both; the second row released "y", impossible from "x"
    got = channel_posterior(
        table,
        table,
        domains=domains,
        qi=["age"],
        private="dis",
        channel=channel,
        prior=[1.0, 0.0],
    )
    np.testing.assert_allclose(got, [[1.0, 0.0], [0.0, 1.0]])


def test_krr_channel_values():
    p = krr_channel(4, 2.0)
    keep = np.exp(2.0) / (np.exp(2.0) + 3)
    np.testing.assert_allclose(np.diag(p), keep)
    np.testing.assert_allclose(p[0, 1:], (1 - keep) / 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.all(np.isfinite(krr_channel(3, 800.0)))


def krr_population(n: int, seed: int) -> pd.DataFrame:
    """``sick`` depends on age + hours (logistic, moderate noise); edu is noise."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    hours = rng.integers(10, 70, n)
    logit = (age + hours - 90) / 15
    sick = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return pd.DataFrame(
        {"age": age, "hours": hours, "edu": rng.choice(["HS", "BA", "MS", "PhD"], n), "sick": sick}
    )


def test_krr_risk_rises_with_epsilon():
    qi = ["age", "hours", "edu"]
    table = krr_population(4000, 5)
    domains = table_domains(table, [*qi, "sick"], numeric=["age", "hours"])
    aux, people = table.iloc[:2000], table.iloc[2000:].reset_index(drop=True)
    values = domains["sick"].values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LogisticRegression(max_iter=1000).fit(
            design_matrix(aux, domains, qi), aux["sick"].to_numpy()
        )
    proba = model.predict_proba(design_matrix(people, domains, qi))
    prior = proba[:, [list(model.classes_).index(v) for v in values]]
    truth = people["sick"].to_numpy()
    prior_auc, _ = posterior_scores(prior, truth, values)

    rng = np.random.default_rng(6)
    k = len(values)
    codes = domains["sick"].encode(truth)
    aucs = []
    for epsilon in (0.1, 1.0, 3.0, 10.0):
        keep = np.exp(epsilon) / (np.exp(epsilon) + k - 1)
        flip = rng.random(len(people)) >= keep
        # uniform over the other values
        other = (codes + rng.integers(1, k, len(people))) % k
        released = people.copy()
        released["sick"] = values[np.where(flip, other, codes)]
        post = channel_posterior(
            people,
            released,
            domains=domains,
            qi=qi,
            private="sick",
            channel=krr_channel(k, epsilon),
            prior=prior,
        )
        aucs.append(posterior_scores(post, truth, values)[0])
    assert all(b >= a - 0.01 for a, b in itertools.pairwise(aucs)), aucs
    assert aucs[-1] > prior_auc + 0.1, (prior_auc, aucs)


# --------------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------------


def test_posterior_scores_binary_matches_sklearn():
    rng = np.random.default_rng(7)
    truth = rng.choice(np.array([0, 1]), 300, p=[0.7, 0.3])
    post = rng.dirichlet([1, 1], 300)
    post[:, 1] += 0.3 * truth
    auc, acc = posterior_scores(post, truth, [0, 1])
    # default positive: the minority class (1)
    assert auc == pytest.approx(roc_auc_score(truth == 1, post[:, 1]))
    assert acc == pytest.approx(accuracy_score(truth, np.argmax(post, axis=1)))
    auc0, _ = posterior_scores(post, truth, [0, 1], positive=0)
    assert auc0 == pytest.approx(roc_auc_score(truth == 0, post[:, 0]))
    # labels are matched by value: float truth against an integer domain
    assert posterior_scores(post, truth.astype(float), np.array([0, 1]))[0] == pytest.approx(auc)


def test_posterior_scores_multiclass_matches_sklearn():
    rng = np.random.default_rng(8)
    values = np.array(["p", "q", "r", "s"], dtype=object)
    truth = rng.choice(values, 400)
    post = rng.dirichlet(np.ones(4), 400)
    post[np.arange(400), pd.Index(values).get_indexer(truth)] += 0.2
    post /= post.sum(axis=1, keepdims=True)
    auc, acc = posterior_scores(post, truth, values)
    assert auc == pytest.approx(
        roc_auc_score(truth, post, multi_class="ovr", average="macro", labels=values)
    )
    assert acc == pytest.approx(accuracy_score(truth, values[np.argmax(post, axis=1)]))
    # a class absent from truth is left out of the macro average
    present = truth != "s"
    auc, _ = posterior_scores(post[present], truth[present], values)
    want = np.mean(
        [roc_auc_score(truth[present] == c, post[present, i]) for i, c in enumerate("pqr")]
    )
    assert auc == pytest.approx(want)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny():
    table = pd.DataFrame({"age": [30, 31, 32, 33], "edu": list("abab"), "dis": list("xyxy")})
    domains = table_domains(table, ["age", "edu", "dis"], numeric=["age"])
    return table, domains


@pytest.mark.parametrize(
    ("channel", "match"),
    [
        (np.array([[0.9, 0.2], [0.1, 0.9]]), "channel must be row-stochastic"),
        (np.array([[1.5, -0.5], [0.5, 0.5]]), "channel must hold finite non-negative"),
        (np.eye(3), r"channel must have shape \(2, 2\)"),
        (np.ones(2) / 2, r"channel must have shape \(2, 2\)"),
        (np.array([[np.nan, 1.0], [0.5, 0.5]]), "channel must hold finite"),
    ],
)
def test_channel_posterior_rejects_bad_channels(tiny, channel, match):
    table, domains = tiny
    with pytest.raises(ValueError, match=match):
        channel_posterior(
            table,
            table,
            domains=domains,
            qi=["age", "edu"],
            private="dis",
            channel=channel,
            prior=[0.5, 0.5],
        )


def test_bad_inputs_name_the_parameter(tiny):
    table, domains = tiny
    kw = {"domains": domains, "qi": ["age", "edu"], "private": "dis"}
    eye = np.eye(2)
    with pytest.raises(ValueError, match=r"columns \['edu'\] are not in targets"):
        class_matching_posterior(table.drop(columns="edu"), table, **kw)
    with pytest.raises(ValueError, match=r"columns \['dis'\] are not in released"):
        channel_posterior(table, table.drop(columns="dis"), **kw, channel=eye, prior=[0.5, 0.5])
    with pytest.raises(ValueError, match="domains of class_matching_posterior has no domain"):
        class_matching_posterior(table, table, **{**kw, "domains": {"age": domains["age"]}})
    with pytest.raises(ValueError, match="private='dis' must not be among the qi"):
        class_matching_posterior(table, table, **{**kw, "qi": ["age", "dis"]})
    with pytest.raises(ValueError, match=r"prior must have shape \(2,\)"):
        class_matching_posterior(table, table, **kw, prior=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="prior must hold finite non-negative"):
        channel_posterior(table, table, **kw, channel=eye, prior=[-0.5, 1.5])
    with pytest.raises(ValueError, match="prior puts no mass"):
        channel_posterior(table, table, **kw, channel=eye, prior=[0.0, 0.0])
    with pytest.raises(ValueError, match=r"targets\['age'\] must hold exact values"):
        class_matching_posterior(table.assign(age=[30, 31, 32, 99]), table, **kw)
    with pytest.raises(ValueError, match=r"targets\['age'\] must hold values of its numeric"):
        class_matching_posterior(table.assign(age=["30-31"] * 4), table, **kw)
    with pytest.raises(ValueError, match=r"released\['dis'\] must hold values of domains"):
        channel_posterior(table, table.assign(dis="{x,y}"), **kw, channel=eye, prior=[0.5, 0.5])
    with pytest.raises(ValueError, match="lies outside the domain"):
        class_matching_posterior(table, table.assign(age=[30, 31, 32, 99]), **kw)


@pytest.mark.parametrize(
    ("n_values", "epsilon", "name"),
    [
        (3, 0.0, "epsilon"),
        (3, -1.0, "epsilon"),
        (3, np.inf, "epsilon"),
        (3, np.nan, "epsilon"),
        (1, 1.0, "n_values"),
        (2.5, 1.0, "n_values"),
    ],
)
def test_krr_channel_rejects_bad_parameters(n_values, epsilon, name):
    with pytest.raises(ValueError, match=name):
        krr_channel(n_values, epsilon)


def test_posterior_scores_rejects_bad_input():
    post = np.array([[0.2, 0.8], [0.6, 0.4]])
    with pytest.raises(ValueError, match="truth holds values"):
        posterior_scores(post, ["a", "c"], ["a", "b"])
    with pytest.raises(ValueError, match="truth must hold one value per posterior row"):
        posterior_scores(post, ["a"], ["a", "b"])
    with pytest.raises(ValueError, match="private_domain_values must label"):
        posterior_scores(post, ["a", "b"], ["a", "b", "c"])
    with pytest.raises(ValueError, match="private_domain_values must be distinct"):
        posterior_scores(post, ["a", "a"], ["a", "a"])
    with pytest.raises(ValueError, match="positive='z' is not among"):
        posterior_scores(post, ["a", "b"], ["a", "b"], positive="z")
    with pytest.raises(ValueError, match="posterior must be a non-empty 2-D"):
        posterior_scores(post[0], ["a", "b"], ["a", "b"])
