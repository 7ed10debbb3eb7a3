"""Targeted attribute inference: class matching on generalized releases, Bayes through a known
channel (k-RR), class matching through a known profile mapping (SPPM), the nearest class of a
microaggregated release (relay chains), and the scores of their posteriors.

The attackers are checked against brute-force posteriors that read every released cell by hand
(ranges, value sets, class means) and loop over targets, released rows and private values.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score

from ppdp.attacks.targeted import (
    channel_posterior,
    class_matching_posterior,
    krr_channel,
    mapping_matching_posterior,
    nearest_class_posterior,
    posterior_scores,
    sppm_channel,
)
from ppdp.cells import cell_membership, design_matrix, table_domains
from ppdp.mechanisms.relay import RelayChain
from ppdp.mechanisms.sppm import TableMapping

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


def brute_mapping(
    targets, released, qi, private, domains, mapped, channel, in_profiles, out_profiles, prior
) -> np.ndarray:
    """Bayes over the released rows: the channel's probability of the row's profile from the
    target's, times the unmapped cells' masses on the target's values."""
    values = list(domains[private].values)
    rows_in = [tuple(r) for r in in_profiles[mapped].itertuples(index=False)]
    columns_out = [tuple(r) for r in out_profiles[mapped].itertuples(index=False)]
    rest = [q for q in qi if q not in mapped]
    prior = np.broadcast_to(np.asarray(prior, dtype=float), (len(targets), len(values)))
    out = np.zeros((len(targets), len(values)))
    for i, (_, target) in enumerate(targets.iterrows()):
        profile = tuple(target[c] for c in mapped)
        weights = []
        for _, row in released.iterrows():
            if profile not in rows_in:
                weights.append(0.0)
                continue
            w = channel[rows_in.index(profile), columns_out.index(tuple(row[c] for c in mapped))]
            for q in rest:
                w *= cell_mass(row[q], target[q], list(domains[q].values))
            weights.append(w)
        if sum(weights) == 0:
            out[i] = prior[i] / prior[i].sum()
            continue
        for j, s in enumerate(values):
            out[i, j] = sum(
                w * cell_mass(cell, s, values)
                for w, cell in zip(weights, released[private], strict=True)
            )
        out[i] /= out[i].sum()
    return out


def brute_nearest(targets, released, qi, private, domains, numeric, scale, prior) -> np.ndarray:
    """The classes (equal released cells) whose non-numeric cells contain the target's values,
    the nearest by standardized distance of the numeric cells, ties averaged."""
    values = list(domains[private].values)
    contained = [q for q in qi if q not in numeric]
    classes: dict[tuple, list[int]] = {}
    for pos, (_, row) in enumerate(released.iterrows()):
        key = tuple(float(row[q]) if q in numeric else row[q] for q in qi)
        classes.setdefault(key, []).append(pos)
    if scale is None:
        scale = {}
        for q in numeric:
            spread = float(np.std([float(v) for v in released[q]]))
            scale[q] = spread if spread > 0 else 1.0
    prior = np.broadcast_to(np.asarray(prior, dtype=float), (len(targets), len(values)))
    out = np.zeros((len(targets), len(values)))
    for i, (_, target) in enumerate(targets.iterrows()):
        candidates = [
            key
            for key in classes
            if all(
                cell_mass(key[qi.index(q)], target[q], list(domains[q].values)) > 0
                for q in contained
            )
        ]
        if not candidates:
            if not numeric:
                out[i] = prior[i] / prior[i].sum()
                continue
            candidates = list(classes)
        distance = {
            key: sum(((float(target[q]) - key[qi.index(q)]) / scale[q]) ** 2 for q in numeric)
            for key in candidates
        }
        nearest = min(distance.values())
        tied = [key for key in candidates if distance[key] <= nearest * (1 + 1e-9) + 1e-12]
        for key in tied:
            rows = classes[key]
            for j, s in enumerate(values):
                share = sum(cell_mass(released[private].iloc[r], s, values) for r in rows)
                out[i, j] += share / len(rows) / len(tied)
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
# Profile mapping (SPPM)
# --------------------------------------------------------------------------------------------


def mapped_release(seed: int):
    """A table whose (age, edu) profile goes through a hand-made channel between two alphabets.

    The channel's rows miss the profile of the table's first row (those people have no row), its
    columns are 8 profiles of the domain grid; ``job`` is released exact or as a value set and
    some private cells are sets."""
    rng = np.random.default_rng(seed)
    n = 24
    table = pd.DataFrame(
        {
            "age": rng.integers(20, 26, n),
            "edu": rng.choice(list("abc"), n),
            "job": rng.choice(list("pqr"), n),
            "dis": rng.choice(list("xyz"), n),
        }
    )
    outsiders = pd.DataFrame({"age": [27, 21], "edu": ["a", "c"], "job": ["p", "q"], "dis": "x"})
    everyone = pd.concat([table, outsiders], ignore_index=True)
    domains = table_domains(everyone, ["age", "edu", "job", "dis"], numeric=["age"])
    mapped = ["age", "edu"]
    in_profiles = table[mapped].drop_duplicates().iloc[1:].reset_index(drop=True)
    grid = pd.DataFrame(
        list(itertools.product(domains["age"].values.tolist(), domains["edu"].values.tolist())),
        columns=mapped,
    )
    out_profiles = grid.iloc[np.sort(rng.choice(len(grid), 8, replace=False))]
    out_profiles = out_profiles.reset_index(drop=True)
    channel = rng.dirichlet(np.ones(8), len(in_profiles))
    channel[channel < 0.05] = 0.0
    channel /= channel.sum(axis=1, keepdims=True)

    rows_in = [tuple(r) for r in in_profiles.itertuples(index=False)]
    released = table.astype(object)
    for i, row in table.iterrows():
        profile = (row["age"], row["edu"])
        p = channel[rows_in.index(profile)] if profile in rows_in else np.full(8, 1 / 8)
        drawn = out_profiles.iloc[rng.choice(8, p=p)]
        released.loc[i, mapped] = [drawn["age"], drawn["edu"]]
        if rng.random() < 0.4:
            released.loc[i, "job"] = "{" + ",".join(sorted({row["job"], "p"})) + "}"
        if rng.random() < 0.2:
            released.loc[i, "dis"] = "{x,y}"
    return everyone, released, domains, mapped, channel, in_profiles, out_profiles


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mapping_matching_matches_brute_force_bayes(seed):
    everyone, released, domains, mapped, channel, in_profiles, out_profiles = mapped_release(seed)
    qi = ["age", "edu", "job"]
    kw = {"domains": domains, "qi": qi, "private": "dis", "mapped": mapped, "channel": channel}
    got = mapping_matching_posterior(
        everyone, released, **kw, in_profiles=in_profiles, out_profiles=out_profiles
    )
    prior = cell_membership(released["dis"], domains["dis"]).mean(axis=0)
    want = brute_mapping(
        everyone, released, qi, "dis", domains, mapped, channel, in_profiles, out_profiles, prior
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
    # the first person's profile and the first outsider's have no row in the channel: the prior
    np.testing.assert_allclose(got[0], prior)
    np.testing.assert_allclose(got[24], prior)

    # one prior per target; a sparse channel is read as its dense array
    belief = np.random.default_rng(seed).dirichlet(np.ones(3), len(everyone))
    got = mapping_matching_posterior(
        everyone,
        released,
        **{**kw, "channel": sp.csr_matrix(channel)},
        in_profiles=in_profiles,
        out_profiles=out_profiles,
        prior=belief,
    )
    want = brute_mapping(
        everyone, released, qi, "dis", domains, mapped, channel, in_profiles, out_profiles, belief
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mapped", [["edu"], ["age", "edu"]])
def test_mapping_matching_with_the_identity_channel_is_class_matching(mapped):
    table = small_table(40, 11)
    outsiders = pd.DataFrame({"age": [45, 22], "edu": ["a", "b"], "dis": ["x", "y"]})
    everyone = pd.concat([table, outsiders], ignore_index=True)
    domains = table_domains(everyone, ["age", "edu", "dis"], numeric=["age"])
    released = table.astype(object)
    if mapped == ["edu"]:
        # ages generalized to five-year ranges (45 lies in none)
        released["age"] = [f"{a - a % 5}-{a - a % 5 + 4}" for a in table["age"]]
    released.loc[::3, "dis"] = "{x,z}"
    profiles = pd.DataFrame(
        list(itertools.product(*(domains[c].values.tolist() for c in mapped))), columns=mapped
    )
    got = mapping_matching_posterior(
        everyone,
        released,
        domains=domains,
        qi=["age", "edu"],
        private="dis",
        mapped=mapped,
        channel=np.eye(len(profiles)),
        in_profiles=profiles,
    )
    want = class_matching_posterior(
        everyone, released, domains=domains, qi=["age", "edu"], private="dis"
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_mapping_matching_on_a_fitted_table_mapping():
    rng = np.random.default_rng(9)
    n = 150
    s = rng.integers(0, 2, n)
    x = np.where(rng.random(n) < 0.8, s + rng.integers(0, 2, n), rng.integers(0, 3, n))
    table = pd.DataFrame(
        {
            "age": rng.integers(30, 40, n),
            "x": np.array(["a", "b", "c"])[x],
            "y": np.array(["u", "v"])[np.where(rng.random(n) < 0.7, s, 1 - s)],
            "sex": np.where(s == 1, "M", "F"),
        }
    )
    mech = TableMapping(private="sex", released=["x", "y"], delta=0.3, certify=False)
    released = mech.fit_release(table, random_state=0)
    # an outsider whose profile the mapping never saw
    outsider = pd.DataFrame({"age": [31], "x": ["d"], "y": ["u"], "sex": ["F"]})
    everyone = pd.concat([table, outsider], ignore_index=True)
    domains = table_domains(everyone, ["age", "x", "y", "sex"], numeric=["age"])
    qi = ["age", "x", "y"]

    channel, in_profiles, out_profiles = sppm_channel(mech)
    pd.testing.assert_frame_equal(in_profiles, mech.profiles_)
    pd.testing.assert_frame_equal(out_profiles, mech.profiles_)
    np.testing.assert_allclose(channel.sum(axis=1), 1.0)
    got = mapping_matching_posterior(
        everyone,
        released,
        domains=domains,
        qi=qi,
        private="sex",
        mapped=mech.released_columns_,
        channel=channel,
        in_profiles=in_profiles,
        out_profiles=out_profiles,
    )
    mapping = mech.mapping_.toarray() if sp.issparse(mech.mapping_) else mech.mapping_
    mapping = mapping / mapping.sum(axis=1, keepdims=True)
    prior = cell_membership(released["sex"], domains["sex"]).mean(axis=0)
    want = brute_mapping(
        everyone,
        released,
        qi,
        "sex",
        domains,
        ["x", "y"],
        mapping,
        mech.profiles_,
        mech.profiles_,
        prior,
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[-1], prior)
    # the release leaks: the posterior puts more mass on the truth than the prior does
    truth = domains["sex"].encode(table["sex"].to_numpy())
    assert got[np.arange(n), truth].mean() > prior[truth].mean() + 0.1


# --------------------------------------------------------------------------------------------
# Nearest class (microaggregation)
# --------------------------------------------------------------------------------------------


def hand_microaggregation():
    """Four classes: A (25, 40, {a,b}; x x y), B (35, 40, {a,c}; y z), C (30, 20, b; z) and
    D (45.5, 50, {c,d}; {x,y} x)."""
    cells = [
        (25.0, 40.0, "{a,b}", ["x", "x", "y"]),
        (35.0, 40.0, "{a,c}", ["y", "z"]),
        (30.0, 20.0, "b", ["z"]),
        (45.5, 50.0, "{c,d}", ["{x,y}", "x"]),
    ]
    released = pd.DataFrame(
        [
            {"age": age, "hours": hours, "edu": edu, "dis": dis}
            for age, hours, edu, private in cells
            for dis in private
        ]
    )
    targets = pd.DataFrame(
        {
            "age": [30, 30, 30, 44, 36],
            "hours": [40, 20, 40, 50, 41],
            "edu": ["a", "b", "e", "d", "c"],
        }
    )
    real = pd.concat(
        [targets, pd.DataFrame({"age": [20, 50], "hours": [10, 60], "edu": ["a", "b"]})],
        ignore_index=True,
    ).assign(dis=["x", "y", "z", "x", "y", "z", "x"])
    domains = table_domains(real, ["age", "hours", "edu", "dis"], numeric=["age", "hours"])
    return targets, released, domains


def test_nearest_class_hand_computed():
    targets, released, domains = hand_microaggregation()
    kw = {"domains": domains, "qi": ["age", "hours", "edu"], "private": "dis"}
    got = nearest_class_posterior(
        targets, released, **kw, numeric=["age", "hours"], scale={"age": 5.0, "hours": 10.0}
    )
    tie = [1 / 3, 5 / 12, 1 / 4]  # A and B at distance 1: the mean of (2/3, 1/3, 0), (0, .5, .5)
    want = [
        tie,
        [0.0, 0.0, 1.0],  # C at distance 0, A at 5
        tie,  # edu "e" in no class: the nearest on numbers alone, A and B again
        [0.75, 0.25, 0.0],  # only D holds "d"
        [0.0, 0.5, 0.5],  # B (0.05) nearer than D
    ]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    # the same scale given as a sequence in the order of numeric
    again = nearest_class_posterior(
        targets, released, **kw, numeric=["age", "hours"], scale=[5, 10]
    )
    np.testing.assert_allclose(again, want, rtol=1e-12, atol=1e-15)

    # default scale: the standard deviation of the released numbers
    got = nearest_class_posterior(targets, released, **kw, numeric=["age", "hours"])
    prior = cell_membership(released["dis"], domains["dis"]).mean(axis=0)
    want = brute_nearest(
        targets, released, ["age", "hours", "edu"], "dis", domains, ["age", "hours"], None, prior
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_nearest_class_without_numeric_columns_averages_the_containing_classes():
    targets, released, domains = hand_microaggregation()
    belief = np.array([0.2, 0.3, 0.5])
    got = nearest_class_posterior(
        targets,
        released,
        domains=domains,
        qi=["edu"],
        private="dis",
        numeric=[],
        prior=belief,
    )
    want = brute_nearest(targets, released, ["edu"], "dis", domains, [], None, belief)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    # "a" is in A and B: their mean; "e" is in no class and there is no number: the prior
    np.testing.assert_allclose(got[0], [1 / 3, 5 / 12, 1 / 4])
    np.testing.assert_allclose(got[2], belief)


def test_nearest_class_reads_ranges_and_constant_columns():
    targets, released, domains = hand_microaggregation()
    # a constant hours column (default scale 1, no division by zero) and class A's age given as
    # the range "20-30", read as the mean of the domain values it covers (20 and 30): 25
    released = released.assign(hours=40.0).astype({"age": object})
    released.loc[released["age"] == 25.0, "age"] = "20-30"
    kw = {"domains": domains, "qi": ["age", "hours", "edu"], "private": "dis"}
    got = nearest_class_posterior(targets, released, **kw, numeric=["age", "hours"])
    assert np.isfinite(got).all()
    means = released.assign(age=released["age"].replace("20-30", 25.0).astype(float))
    prior = cell_membership(released["dis"], domains["dis"]).mean(axis=0)
    want = brute_nearest(
        targets, means, ["age", "hours", "edu"], "dis", domains, ["age", "hours"], None, prior
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def microaggregate(table, cuts, rng, *, numeric, widen, edu_domain=()) -> pd.DataFrame:
    """Classes of contiguous runs of the table sorted by age: the numeric columns replaced by
    the class means, edu by the set of the class's values (``widen``: up to two more values of
    ``edu_domain``)."""
    order = np.argsort(table["age"].to_numpy(), kind="stable")
    out = table.iloc[order].reset_index(drop=True).astype(object)
    bounds = [0, *sorted(cuts), len(out)]
    for start, stop in itertools.pairwise(bounds):
        if stop <= start:
            continue
        cls = slice(start, stop - 1)
        for c in numeric:
            out.loc[cls, c] = float(np.mean(out.loc[cls, c].astype(float)))
        members = set(out.loc[cls, "edu"])
        if widen:
            members |= set(rng.choice(edu_domain, int(rng.integers(0, 3))).tolist())
        out.loc[cls, "edu"] = "{" + ",".join(sorted(members)) + "}"
    return out


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 25),
    n_cuts=st.integers(0, 8),
    numeric=st.sampled_from([("age", "hours"), ("age",), ("hours",)]),
    widen=st.booleans(),
    explicit_scale=st.booleans(),
)
def test_nearest_class_matches_brute_force(seed, n, n_cuts, numeric, widen, explicit_scale):
    rng = np.random.default_rng(seed)
    table = small_table(n, seed).assign(hours=rng.integers(10, 15, n))
    outsiders = small_table(3, seed + 1).assign(hours=[10, 12, 14])
    everyone = pd.concat([table, outsiders], ignore_index=True)
    qi = ["age", "hours", "edu"]
    domains = table_domains(everyone, [*qi, "dis"], numeric=["age", "hours"])
    cuts = rng.integers(1, n, n_cuts) if n > 1 else []
    released = microaggregate(
        table,
        cuts,
        rng,
        numeric=list(numeric),
        widen=widen,
        edu_domain=list(domains["edu"].values),
    )
    scale = {c: float(rng.uniform(0.5, 5.0)) for c in numeric} if explicit_scale else None
    prior = rng.random(domains["dis"].size) + 0.01
    got = nearest_class_posterior(
        everyone,
        released,
        domains=domains,
        qi=qi,
        private="dis",
        numeric=list(numeric),
        scale=scale,
        prior=prior,
    )
    want = brute_nearest(everyone, released, qi, "dis", domains, list(numeric), scale, prior)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def relay_release(table, qi, numeric, private, delta):
    """A one-hop TDA relay chain released as the benchmark does: numeric QIs as class means,
    categorical ones as the class's value set; with the chain's class labels."""
    categorical = [c for c in qi if c not in numeric]
    coords = table[numeric].astype(np.float64)
    for c in categorical:
        dummies = pd.get_dummies(table[c], prefix=f"{c}=", prefix_sep="", dtype=np.float64)
        coords = pd.concat([coords, dummies], axis=1)
    variance = coords.to_numpy().var(axis=0)
    weights = (1 / variance) / (1 / variance).sum()
    coords[private] = table[private].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chain = RelayChain("tda", hops=1, delta=delta, sensitive=private, weights=weights)
        labels = chain.fit(coords).labels_[0]
    classes = pd.Series(labels, index=table.index)
    released = table.copy()
    for c in numeric:
        released[c] = table[c].astype(np.float64).groupby(classes).transform("mean")
    for c in categorical:
        sets = (
            table[c]
            .groupby(classes)
            .agg(
                lambda v: sorted(v)[0] if v.nunique() == 1 else "{" + ",".join(sorted(set(v))) + "}"
            )
        )
        released[c] = sets.loc[labels].to_numpy()
    return released, labels


def test_nearest_class_places_relay_people_in_their_own_class():
    table = krr_population(400, 5)
    qi, numeric = ["age", "hours", "edu"], ["age", "hours"]
    released, labels = relay_release(table, qi, numeric, "sick", delta=0.2)
    n = len(table)
    # with the class label as the private column, the posterior is the classes the attacker
    # picks: its mass on the person's own label is the share of him placed in his class
    people = table.assign(cls=labels)
    domains = table_domains(people, [*qi, "sick", "cls"], numeric=numeric)
    kw = {"domains": domains, "qi": qi}
    placed = nearest_class_posterior(
        table, released.assign(cls=labels), **kw, private="cls", numeric=numeric
    )
    own = placed[np.arange(n), domains["cls"].encode(labels)]
    # 89 % of the people (85 classes); class matching puts 6 % of its mass on the own class
    assert own.mean() >= 0.85, own.mean()
    matched = class_matching_posterior(table, released.assign(cls=labels), **kw, private="cls")
    assert matched[np.arange(n), domains["cls"].encode(labels)].mean() < 0.2

    # on the private column: class matching keeps the prior for nearly everyone, the nearest
    # class gives its own class's distribution to the people placed in it
    secret = cell_membership(released["sick"], domains["sick"])
    prior = secret.mean(axis=0)
    cm = class_matching_posterior(table, released, **kw, private="sick")
    assert np.all(np.abs(cm - prior) < 1e-12, axis=1).mean() >= 0.9
    post = nearest_class_posterior(table, released, **kw, private="sick", numeric=numeric)
    own_share = pd.DataFrame(secret).groupby(labels).transform("mean").to_numpy()
    at_home = own == 1.0
    np.testing.assert_allclose(post[at_home], own_share[at_home], rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Bad input of the mechanism-aware attackers
# --------------------------------------------------------------------------------------------


def test_mapping_matching_rejects_bad_input(tiny):
    table, domains = tiny
    profiles = pd.DataFrame({"edu": ["a", "b"]})
    kw = {"domains": domains, "qi": ["age", "edu"], "private": "dis", "mapped": ["edu"]}
    eye = np.eye(2)

    def call(frame=table, released=table, **changes):
        args = {**kw, "channel": eye, "in_profiles": profiles, **changes}
        return mapping_matching_posterior(frame, released, **args)

    np.testing.assert_allclose(call().sum(axis=1), 1.0)
    with pytest.raises(ValueError, match=r"mapped columns \['job'\] of mapping_matching"):
        call(mapped=["job"])
    with pytest.raises(TypeError, match="mapped of mapping_matching_posterior must be"):
        call(mapped="edu")
    with pytest.raises(TypeError, match="in_profiles of mapping_matching_posterior must be a"):
        call(in_profiles=["a", "b"])
    with pytest.raises(ValueError, match=r"columns \['edu'\] are not in out_profiles"):
        call(out_profiles=pd.DataFrame({"x": ["a", "b"]}))
    with pytest.raises(ValueError, match=r"in_profiles must list each profile once; rows \[0, 1\]"):
        call(in_profiles=pd.DataFrame({"edu": ["a", "a"]}))
    with pytest.raises(ValueError, match=r"in_profiles\['edu'\] must hold exact values"):
        call(in_profiles=pd.DataFrame({"edu": ["a", "q"]}))
    with pytest.raises(ValueError, match=r"channel must have shape \(2, 2\)"):
        call(channel=np.eye(3))
    with pytest.raises(ValueError, match=r"channel must be row-stochastic .*P\(. \| true profile"):
        call(channel=np.array([[0.9, 0.2], [0.1, 0.9]]))
    with pytest.raises(ValueError, match="channel must hold finite non-negative"):
        call(channel=np.array([[1.5, -0.5], [0.5, 0.5]]))
    with pytest.raises(ValueError, match=r"released row 1 shows the profile \('b',\)"):
        call(out_profiles=pd.DataFrame({"edu": ["a"]}), channel=np.ones((2, 1)))
    with pytest.raises(ValueError, match=r"released\['edu'\] must hold exact values"):
        call(released=table.assign(edu="{a,b}"))
    with pytest.raises(ValueError, match=r"prior must have shape \(2,\)"):
        call(prior=[1.0, 0.0, 0.0])


def test_sppm_channel_rejects_other_objects():
    with pytest.raises(TypeError, match="mechanism of sppm_channel must be a fitted TableMapping"):
        sppm_channel(np.eye(2))
    with pytest.raises(NotFittedError):
        sppm_channel(TableMapping(private="s", released=["x"], delta=0.1))


def test_nearest_class_rejects_bad_input(tiny):
    table, domains = tiny
    kw = {"domains": domains, "qi": ["age", "edu"], "private": "dis"}
    np.testing.assert_allclose(
        nearest_class_posterior(table, table, **kw, numeric=["age"]).sum(axis=1), 1.0
    )
    with pytest.raises(ValueError, match=r"numeric columns \['job'\] of nearest_class"):
        nearest_class_posterior(table, table, **kw, numeric=["job"])
    with pytest.raises(ValueError, match=r"numeric columns \['edu'\] .* must have numeric"):
        nearest_class_posterior(table, table, **kw, numeric=["edu"])
    with pytest.raises(TypeError, match="numeric of nearest_class_posterior must be a sequence"):
        nearest_class_posterior(table, table, **kw, numeric="age")
    with pytest.raises(ValueError, match="numeric of nearest_class_posterior lists a column"):
        nearest_class_posterior(table, table, **kw, numeric=["age", "age"])
    with pytest.raises(ValueError, match=r"scale must be finite and > 0 .* scale\['age'\] = 0.0"):
        nearest_class_posterior(table, table, **kw, numeric=["age"], scale=0)
    with pytest.raises(ValueError, match="scale must be finite and > 0"):
        nearest_class_posterior(table, table, **kw, numeric=["age"], scale=[np.inf])
    with pytest.raises(ValueError, match=r"scale must hold one number per numeric column \(1\)"):
        nearest_class_posterior(table, table, **kw, numeric=["age"], scale=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"missing \['age'\], unknown \['edu'\]"):
        nearest_class_posterior(table, table, **kw, numeric=["age"], scale={"edu": 1.0})
    with pytest.raises(ValueError, match=r"released\['age'\] has missing values"):
        nearest_class_posterior(
            table, table.assign(age=[30.5, np.nan, 31, 32]), **kw, numeric=["age"]
        )
    with pytest.raises(ValueError, match="neither a number nor a range"):
        nearest_class_posterior(table, table.assign(age="old"), **kw, numeric=["age"])


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
