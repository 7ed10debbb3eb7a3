"""The mechanism-aware attacker on Mutual Cover's random output tables.

The posterior is checked against a brute force that loops over groups, released rows and
quasi-identifiers with the formula of :func:`ppdp.attacks.random_tables.random_table_posterior`
written out plainly, on real Mutual Cover fits and on random hand-made tables; then against class
matching on a weakly protected release, and on bad arguments.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from ppdp.attacks.random_tables import KnownTable, mutual_cover_tables, random_table_posterior
from ppdp.attacks.targeted import class_matching_posterior, posterior_scores
from ppdp.cells import table_domains
from ppdp.mechanisms.mutual_cover import MutualCover

QI = ["age", "edu"]

# --------------------------------------------------------------------------------------------
# Brute force
# --------------------------------------------------------------------------------------------


def same(a, b, numeric: bool) -> bool:
    return float(a) == float(b) if numeric else a == b


def position(value, listed, numeric: bool) -> int | None:
    """Index of ``value`` in ``listed``, None when it is not there."""
    for i, v in enumerate(listed):
        if same(value, v, numeric):
            return i
    return None


def likely_column(row, group, qi, numeric) -> bool:
    """Whether every value of ``row`` is an output value of the group's tables (Algorithm 3
    moves a value to another column of its table)."""
    return all(position(row[c], list(group[c].columns), c in numeric) is not None for c in qi)


def brute_posterior(targets, released, qi, private, tables, numeric, private_values, prior):
    """``posterior(t, s) ∝ sum_g pi_g(t) sum_r L_g(t, r) [released[private][r] == s]``, from
    loops over targets, groups, released rows and quasi-identifiers."""
    private_values = list(private_values)
    prior = np.broadcast_to(np.asarray(prior, dtype=float), (len(targets), len(private_values)))
    out = np.zeros((len(targets), len(private_values)))
    for i, (_, target) in enumerate(targets.iterrows()):
        evidence = np.zeros(len(private_values))
        for group in tables:
            rows = [position(target[c], list(group[c].values), c in numeric) for c in qi]
            if any(k is None for k in rows):
                continue  # the target cannot be in this group
            size = float(np.sum(group[qi[0]].counts))
            pi = size
            for c, k in zip(qi, rows, strict=True):
                pi *= group[c].counts[k] / size
            perturb = [float(getattr(group[c], "perturb", 0.0)) for c in qi]
            for _, row in released.iterrows():
                likelihood = 1.0
                for c, k in zip(qi, rows, strict=True):
                    j = position(row[c], list(group[c].columns), c in numeric)
                    likelihood *= 0.0 if j is None else group[c].probabilities[k, j]
                if sum(perturb) > 0:
                    # Algorithm 3: a tuple drawn unchanged is moved on one quasi-identifier
                    differs = [not same(row[c], target[c], c in numeric) for c in qi]
                    if not any(differs):
                        likelihood = 0.0
                    elif sum(differs) == 1 and likely_column(row, group, qi, numeric):
                        stay = 1.0
                        for c, k in zip(qi, rows, strict=True):
                            own = position(target[c], list(group[c].columns), c in numeric)
                            stay *= 0.0 if own is None else group[c].probabilities[k, own]
                        a = differs.index(True)
                        n_cols = len(group[qi[a]].columns)
                        if perturb[a] > 0:  # Algorithm 3 never picks a weight-0 column
                            likelihood += stay * perturb[a] / sum(perturb) / (n_cols - 1)
                evidence[private_values.index(row[private])] += pi * likelihood
        if evidence.sum() > 0:
            out[i] = evidence / evidence.sum()
        else:
            out[i] = prior[i] / prior[i].sum()
    return out


# --------------------------------------------------------------------------------------------
# Against the brute force
# --------------------------------------------------------------------------------------------


def tiny_table() -> pd.DataFrame:
    """12 people, an integer and a categorical quasi-identifier, a binary private column
    balanced within each block of 4 rows (the groups given to Mutual Cover)."""
    return pd.DataFrame(
        {
            "age": [21, 23, 23, 25, 30, 31, 31, 33, 40, 40, 42, 45],
            "edu": ["a", "b", "a", "a", "b", "b", "c", "b", "c", "a", "c", "c"],
            "sick": ["no", "yes", "yes", "no", "yes", "no", "no", "yes", "no", "yes", "yes", "no"],
        }
    )


@pytest.mark.parametrize("delta", [0.5, 0.75, 1.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_posterior_matches_brute_force_on_a_mutual_cover_release(delta, seed):
    table = tiny_table()
    mech = MutualCover(QI, "sick", delta=delta, l=2, categorical=["edu"])
    mech.fit(table, groups=np.arange(12) // 4)
    released = mech.release(random_state=seed)
    # an outsider whose age no group holds, and one whose edu value his age's group lacks
    outsiders = pd.DataFrame({"age": [99, 21], "edu": ["a", "c"], "sick": ["no", "no"]})
    targets = pd.concat([table, outsiders], ignore_index=True)
    domains = table_domains(targets, [*QI, "sick"], numeric=["age"])
    tables = mutual_cover_tables(mech)
    prior = np.array([0.3, 0.7])

    got = random_table_posterior(
        targets, released, domains=domains, qi=QI, private="sick", tables=tables, prior=prior
    )
    want = brute_posterior(
        targets, released, QI, "sick", tables, {"age"}, domains["sick"].values, prior
    )
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[12:], [prior, prior])
    if delta < 1:
        # the tables spread each value over several outputs: someone learns something
        assert np.abs(got[:12] - 0.5).max() > 0.05
    # the mechanism's own tables (RandomOutputTable) carry no Algorithm 3 weights: the same
    # posterior as the attacker's tables without them
    again = random_table_posterior(
        targets, released, domains=domains, qi=QI, private="sick", tables=mech.tables_, prior=prior
    )
    plain = [{c: dataclasses.replace(t, perturb=0.0) for c, t in g.items()} for g in tables]
    want = brute_posterior(
        targets, released, QI, "sick", plain, {"age"}, domains["sick"].values, prior
    )
    np.testing.assert_allclose(again, want, rtol=1e-10, atol=1e-12)


def test_released_dtypes_are_compared_as_values():
    """Nullable integers, floats and categories in the release give the same posterior."""
    table = tiny_table()
    mech = MutualCover(QI, "sick", delta=0.5, l=2, categorical=["edu"])
    released = mech.fit(table, groups=np.arange(12) // 4).release(random_state=3)
    domains = table_domains(table, [*QI, "sick"], numeric=["age"])
    kw = {"domains": domains, "qi": QI, "private": "sick", "tables": mutual_cover_tables(mech)}
    base = random_table_posterior(table, released, **kw)
    for age, edu in [("Int64", "category"), ("float64", object)]:
        other = released.astype({"age": age, "edu": edu})
        np.testing.assert_allclose(random_table_posterior(table, other, **kw), base, rtol=1e-12)


def random_tables(rng, n_groups, ages, edus):
    """Hand-made tables: random values, counts summing to the group's size on both
    quasi-identifiers, random columns and sparse random rows of probabilities."""
    tables = []
    for _ in range(n_groups):
        size = int(rng.integers(2, 6))
        group = {}
        for c, domain in (("age", ages), ("edu", edus)):
            r = int(rng.integers(1, min(size, len(domain)) + 1))
            values = rng.choice(domain, r, replace=False)
            counts = 1 + rng.multinomial(size - r, np.ones(r) / r)
            columns = rng.choice(domain, int(rng.integers(1, len(domain) + 1)), replace=False)
            probabilities = rng.random((r, columns.size)) * (rng.random((r, columns.size)) < 0.6)
            probabilities[np.arange(r), rng.integers(0, columns.size, r)] += 0.1
            probabilities /= probabilities.sum(axis=1, keepdims=True)
            # Algorithm 3 acts on some tables (never on a table of one column)
            perturb = float(rng.random()) if columns.size > 1 and rng.random() < 0.5 else 0.0
            group[c] = KnownTable(values, columns, probabilities, counts.astype(float), perturb)
        tables.append(group)
    return tables


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_groups=st.integers(1, 5),
    n_released=st.integers(1, 12),
    n_targets=st.integers(1, 8),
)
def test_random_tables_rows_sum_to_one_and_strangers_keep_the_prior(
    seed, n_groups, n_released, n_targets
):
    rng = np.random.default_rng(seed)
    ages, edus, private = np.array([20, 21, 22, 23]), np.array(["a", "b", "c"]), ["x", "y", "z"]
    tables = random_tables(rng, n_groups, ages, edus)
    # 99 is in the domain but in no group's values: that target has no compatible group
    targets = pd.DataFrame(
        {"age": [99, *rng.choice(ages, n_targets)], "edu": ["a", *rng.choice(edus, n_targets)]}
    )
    released = pd.DataFrame(
        {
            "age": rng.choice([*ages, 99], n_released),
            "edu": rng.choice(edus, n_released),
            "dis": rng.choice(private, n_released),
        }
    )
    domains = table_domains(
        pd.DataFrame({"age": [*ages, 99], "edu": [*edus, "a", "a"], "dis": [*private, "x", "x"]}),
        ["age", "edu", "dis"],
        numeric=["age"],
    )
    prior = rng.random(3) + 0.01
    got = random_table_posterior(
        targets, released, domains=domains, qi=QI, private="dis", tables=tables, prior=prior
    )
    assert got.shape == (n_targets + 1, 3)
    assert (got >= 0).all()
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(got[0], prior / prior.sum(), rtol=1e-12)
    want = brute_posterior(targets, released, QI, "dis", tables, {"age"}, private, prior)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------------------------
# A weakly protected release
# --------------------------------------------------------------------------------------------


def adult_like(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "edu": rng.choice(["hs", "college", "bachelor", "master"], n),
            "hours": rng.integers(20, 60, n),
            "sex": rng.choice(["f", "m"], n),
            "income": np.where(rng.random(n) < 0.3, ">50K", "<=50K"),
        }
    )


def test_weak_delta_release_is_attacked_better_than_by_class_matching():
    """delta = 0.9 on a Mondrian partition (l = 1.25), Algorithm 3 on: most tuples come out
    unchanged and are perturbed on one quasi-identifier, so exact matching finds almost nobody,
    while the tables still point at the target's row."""
    table = adult_like(200, 0)
    qi = ["age", "edu", "hours", "sex"]
    domains = table_domains(table, [*qi, "income"], numeric=["age", "hours"])
    mech = MutualCover(qi, "income", delta=0.9, l=1.25, categorical=["edu", "sex"]).fit(table)
    released = mech.release(random_state=0)
    assert mech.n_unchanged_ > 0  # Algorithm 3 acted: the posterior must survive it
    kw = {"domains": domains, "qi": qi, "private": "income"}
    attacked = random_table_posterior(table, released, **kw, tables=mutual_cover_tables(mech))
    without_step = random_table_posterior(table, released, **kw, tables=mech.tables_)
    matched = class_matching_posterior(table, released, **kw)
    np.testing.assert_allclose(attacked.sum(axis=1), 1.0)
    values = domains["income"].values
    auc, _ = posterior_scores(attacked, table["income"], values)
    auc_without, _ = posterior_scores(without_step, table["income"], values)
    auc_matching, _ = posterior_scores(matched, table["income"], values)
    # measured: 0.99 with Algorithm 3 in the likelihood, 0.64 without, class matching 0.50
    assert auc > 0.9
    assert auc > auc_without + 0.2
    assert auc_without > auc_matching + 0.1


def test_blocks_of_one_pair_give_the_same_posterior(monkeypatch):
    """The candidate expansion and the likelihood join, cut into the smallest blocks."""
    import ppdp.attacks.random_tables as module

    table = adult_like(60, 1)
    qi = ["age", "edu", "hours", "sex"]
    domains = table_domains(table, [*qi, "income"], numeric=["age", "hours"])
    mech = MutualCover(qi, "income", delta=0.8, l=1.25, categorical=["edu", "sex"]).fit(table)
    released = mech.release(random_state=0)
    kw = {"domains": domains, "qi": qi, "private": "income", "tables": mutual_cover_tables(mech)}
    whole = random_table_posterior(table, released, **kw)
    monkeypatch.setattr(module, "_BLOCK_CELLS", 1)
    np.testing.assert_allclose(random_table_posterior(table, released, **kw), whole, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Bad arguments
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fitted():
    table = tiny_table()
    mech = MutualCover(QI, "sick", delta=0.5, l=2, categorical=["edu"])
    released = mech.fit(table, groups=np.arange(12) // 4).release(random_state=0)
    domains = table_domains(table, [*QI, "sick"], numeric=["age"])
    return table, released, domains, mutual_cover_tables(mech)


def test_mutual_cover_tables_reads_a_fitted_mechanism_only(fitted):
    *_, tables = fitted
    assert len(tables) == 3 and all(set(g) == set(QI) for g in tables)
    assert all(g[c].counts.sum() == 4 for g in tables for c in QI)
    with pytest.raises(ValueError, match="read-only"):
        tables[0]["age"].probabilities[0, 0] = 0.5
    with pytest.raises(TypeError, match="mechanism of mutual_cover_tables must be a fitted"):
        mutual_cover_tables(object())
    with pytest.raises(NotFittedError):
        mutual_cover_tables(MutualCover(QI, "sick", delta=0.5, l=2, categorical=["edu"]))


def replace(tables, g, c, **fields):
    """``tables`` with group g's table on c given other fields."""
    out = [dict(group) for group in tables]
    out[g][c] = dataclasses.replace(out[g][c], **fields)
    return out


def test_bad_arguments_are_named(fitted):
    table, released, domains, tables = fitted
    kw = {"domains": domains, "qi": QI, "private": "sick", "tables": tables}

    def call(targets=table, rel=released, **changes):
        return random_table_posterior(targets, rel, **{**kw, **changes})

    np.testing.assert_allclose(call().sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="private='sick' must not be among the qi"):
        call(qi=["age", "sick"])
    with pytest.raises(ValueError, match=r"columns \['edu'\] are not in targets"):
        call(targets=table.drop(columns="edu"))
    with pytest.raises(ValueError, match="domains of random_table_posterior has no domain"):
        call(domains={"age": domains["age"], "sick": domains["sick"]})
    with pytest.raises(ValueError, match=r"prior must have shape \(2,\)"):
        call(prior=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"targets\['age'\] must hold exact values"):
        call(targets=table.assign(age=99))
    with pytest.raises(ValueError, match=r"released\['age'\] must hold numbers"):
        call(rel=released.astype({"age": object}).assign(age="20-30"))
    with pytest.raises(ValueError, match=r"released\['edu'\] has missing values"):
        call(rel=released.assign(edu=None))
    with pytest.raises(TypeError, match="tables of random_table_posterior must be a non-empty"):
        call(tables=tables[0])
    with pytest.raises(TypeError, match="tables of random_table_posterior must be a non-empty"):
        call(tables=[])
    with pytest.raises(TypeError, match=r"tables\[1\] must be a mapping"):
        call(tables=[tables[0], "edu"])
    with pytest.raises(ValueError, match=r"tables\[2\] has no table for the qi columns \['edu'\]"):
        call(tables=[*tables[:2], {"age": tables[2]["age"]}])
    with pytest.raises(TypeError, match=r"tables\[0\]\['age'\] must have values, columns"):
        call(tables=[{**tables[0], "age": {"values": [21]}}, *tables[1:]])
    t = tables[1]["age"]
    bad = t.probabilities.copy()
    bad[0] *= 2
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].probabilities must be row-stoch"):
        call(tables=replace(tables, 1, "age", probabilities=bad))
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].probabilities must hold finite"):
        call(tables=replace(tables, 1, "age", probabilities=-t.probabilities))
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].probabilities must have shape"):
        call(tables=replace(tables, 1, "age", probabilities=t.probabilities[:, :1]))
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].counts must be finite and pos"):
        call(tables=replace(tables, 1, "age", counts=-t.counts))
    with pytest.raises(ValueError, match=r"tables\[1\] counts .* on 'age' but .* on 'edu'"):
        call(tables=replace(tables, 1, "edu", counts=tables[1]["edu"].counts + 1))
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].values holds 99, which is not"):
        call(tables=replace(tables, 1, "age", values=np.r_[t.values[:-1], 99]))
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].values must be distinct"):
        call(tables=replace(tables, 1, "age", values=np.r_[t.values[:-1], t.values[0]]))
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].columns must be distinct"):
        call(tables=replace(tables, 1, "age", columns=np.r_[t.columns[:-1], t.columns[0]]))
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].perturb must be finite"):
        call(tables=replace(tables, 1, "age", perturb=-1.0))
    with pytest.raises(ValueError, match=r"tables\[1\]\['age'\].columns must hold numbers"):
        call(tables=replace(tables, 1, "age", columns=np.array(["x"] * t.columns.size)))
