"""The exact attackers of :mod:`ppdp.attacks.exact` against brute force, and the approximations
against them.

The brute force enumerates every permutation of people to released rows (and, for Mutual Cover,
every assignment of people to groups that fills the tables' counts) with each record's release
distribution obtained by running the mechanism's generative process over every draw; it shares
no code with the module's subset sums. Then the approximate attackers are compared with the
exact ones on random small releases, and the bound on the block size is timed.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pandas as pd
import pytest

from ppdp.attacks.exact import (
    EXACT_MAX_BLOCK,
    assignment_marginals,
    exact_class_matching_posterior,
    exact_random_table_posterior,
)
from ppdp.attacks.random_tables import mutual_cover_tables, random_table_posterior
from ppdp.attacks.targeted import class_matching_posterior
from ppdp.cells import table_domains
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mutual_cover import MutualCover

QI = ["age", "edu"]
NUMERIC = {"age"}

# --------------------------------------------------------------------------------------------
# Brute force
# --------------------------------------------------------------------------------------------


def brute_marginals(weights: np.ndarray) -> np.ndarray:
    """``P(person i holds row r)`` over all permutations, weighted by ``prod_i W[i, sigma(i)]``."""
    n = len(weights)
    out = np.zeros((n, n))
    for sigma in itertools.permutations(range(n)):
        out[np.arange(n), sigma] += np.prod(weights[np.arange(n), sigma])
    return out / out.sum(axis=1, keepdims=True)


def key(values, qi):
    return tuple(float(v) if c in NUMERIC else v for v, c in zip(values, qi, strict=True))


def record_outputs(tables_of_group, person, qi) -> dict:
    """Every release of one record with its probability, by running the mechanism over every
    draw: each quasi-identifier from the record's row of its table, then Algorithm 3 moving
    one quasi-identifier of a tuple drawn all unchanged to another column, uniformly."""
    rows, columns = [], []
    for c in qi:
        table = tables_of_group[c]
        k = key([person[c]], [c])[0]
        rows.append(table.probabilities[[key([v], [c])[0] for v in table.values].index(k)])
        columns.append([key([v], [c])[0] for v in table.columns])
    perturb = [tables_of_group[c].perturb for c in qi]
    own = key([person[c] for c in qi], qi)
    out: dict = {}
    for picks in itertools.product(*(range(len(cols)) for cols in columns)):
        p = np.prod([rows[a][j] for a, j in enumerate(picks)])
        drawn = tuple(columns[a][j] for a, j in enumerate(picks))
        if drawn == own and sum(perturb) > 0:
            for a in range(len(qi)):
                others = [v for v in columns[a] if v != drawn[a]]
                for v in others if perturb[a] > 0 else []:
                    moved = (*drawn[:a], v, *drawn[a + 1 :])
                    out[moved] = out.get(moved, 0.0) + p * perturb[a] / sum(perturb) / len(others)
        else:
            out[drawn] = out.get(drawn, 0.0) + p
    return out


def group_assignments(people, tables, qi):
    """Every map person -> group that gives each group exactly its counts of each value."""
    for gamma in itertools.product(range(len(tables)), repeat=len(people)):
        if all(
            sum(
                gamma[i] == g and key([people[i][c]], [c]) == key([v], [c])
                for i in range(len(people))
            )
            == count
            for g, group in enumerate(tables)
            for c in qi
            for v, count in zip(group[c].values, group[c].counts, strict=True)
        ):
            yield gamma


def brute_mutual_cover(people, released, tables, private_values):
    """``posterior[i, s] ∝ sum_gamma sum_sigma prod_j L_gamma(j)(j, sigma(j)) [s of row
    sigma(i)]``, returned with the number of group assignments."""
    people = [row for _, row in people.iterrows()]
    rows = [key([r[c] for c in QI], QI) for _, r in released.iterrows()]
    secret = [list(private_values).index(v) for v in released["sick"]]
    n = len(people)
    out = np.zeros((n, len(private_values)))
    gammas = list(group_assignments(people, tables, QI))
    for gamma in gammas:
        outputs = [record_outputs(tables[gamma[i]], people[i], QI) for i in range(n)]
        like = np.array([[outputs[i].get(r, 0.0) for r in rows] for i in range(n)])
        for sigma in itertools.permutations(range(n)):
            w = np.prod(like[np.arange(n), sigma])
            for i in range(n):
                out[i, secret[sigma[i]]] += w
    return out / out.sum(axis=1, keepdims=True), len(gammas)


# --------------------------------------------------------------------------------------------
# Random small releases
# --------------------------------------------------------------------------------------------


def mutual_cover_release(seed: int, sizes=(3, 3), ages=(20, 25), delta=0.8):
    """A random table of groups of ``sizes`` (both private values in each), its Mutual Cover
    release (l = 1.5, Algorithm 3 on) and what the attackers read."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    while True:
        table = pd.DataFrame(
            {
                "age": rng.integers(*ages, n),
                "edu": rng.choice(["a", "b", "c"], n),
                "sick": rng.choice(["no", "yes"], n),
            }
        )
        if all(table["sick"][groups == g].nunique() == 2 for g in range(len(sizes))):
            break
    mech = MutualCover(QI, "sick", delta=delta, l=1.5, categorical=["edu"])
    released = mech.fit(table, groups=groups).release(random_state=seed)
    domains = table_domains(table, [*QI, "sick"], numeric=["age"])
    return table, released, domains, mutual_cover_tables(mech)


def risk(posterior, table, domains):
    """Accuracy of the argmax and the mean posterior on the true value."""
    y = domains["sick"].encode(table["sick"].to_numpy(dtype=object))
    return float(np.mean(posterior.argmax(axis=1) == y)), float(
        posterior[np.arange(len(y)), y].mean()
    )


# --------------------------------------------------------------------------------------------
# Against brute force
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_assignment_marginals_match_the_permutations(seed):
    rng = np.random.default_rng(seed)
    n = 2 + seed
    weights = rng.random((n, n)) * (rng.random((n, n)) < 0.7)
    np.fill_diagonal(weights, rng.random(n) + 0.1)  # one assignment at least
    got = assignment_marginals(weights)
    np.testing.assert_allclose(got, brute_marginals(weights), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=0), 1.0, atol=1e-12)


def test_assignment_marginals_refuse_bad_weights():
    with pytest.raises(ValueError, match="square"):
        assignment_marginals(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        assignment_marginals([[1.0, -1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="permanent is 0"):
        assignment_marginals([[1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="at most 24"):
        assignment_marginals(np.ones((25, 25)))


def test_mutual_cover_exact_matches_brute_force():
    several_groupings = 0
    for seed in range(6):
        table, released, domains, tables = mutual_cover_release(seed)
        got = exact_random_table_posterior(
            table,
            released,
            domains=domains,
            qi=QI,
            private="sick",
            tables=tables,
            population=table.sample(frac=1.0, random_state=seed),  # any order
        )
        want, n_gamma = brute_mutual_cover(table, released, tables, domains["sick"].values)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        several_groupings += n_gamma > 1
    # people whose values fit both groups: the enumeration over groupings is exercised
    assert several_groupings >= 1


def test_class_matching_exact_matches_brute_force():
    overlapping = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        people = pd.DataFrame(
            {
                "age": rng.integers(20, 26, 7),
                "edu": rng.choice(["a", "b"], 7),
                "sick": rng.permutation(["flu", "flu", "flu", "cold", "cold", "ulcer", "ulcer"]),
            }
        )
        released = Mondrian(QI, "sick", l=2, categorical=["edu"], refine="anatomy").fit(people)
        released = released.release()
        domains = table_domains(people, [*QI, "sick"], numeric=["age"])
        got = exact_class_matching_posterior(
            people, released, domains=domains, qi=QI, private="sick", population=people
        )
        # brute force: the permutations in which each person's values lie in his row's cells
        inside = (
            np.array(
                [
                    [domains[c].values.tolist().index(p[c]) in cells(r[c], domains[c]) for c in QI]
                    for _, p in people.iterrows()
                    for _, r in released.iterrows()
                ]
            )
            .all(axis=1)
            .reshape(7, 7)
            .astype(float)
        )
        secret = np.array([domains["sick"].values.tolist().index(v) for v in released["sick"]])
        want = brute_marginals(inside) @ np.eye(3)[secret]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        matched = class_matching_posterior(people, released, domains=domains, qi=QI, private="sick")
        overlapping += np.abs(matched - got).max() > 1e-9
    # Anatomy's groups overlap on some draws: the exact attacker is not class matching there
    assert overlapping >= 1


def cells(cell, domain) -> set[int]:
    """Domain positions a released cell covers: a range ``"lo-hi"``, a set ``"{a,b}"`` or a
    value."""
    values = domain.values.tolist()
    text = str(cell)
    if text.startswith("{"):
        return {values.index(v) for v in text[1:-1].split(",")}
    if domain.kind == "numeric" and "-" in text:
        lo, hi = (float(x) for x in text.split("-"))
        return {i for i, v in enumerate(values) if lo <= v <= hi}
    return {values.index(float(text) if domain.kind == "numeric" else text)}


# --------------------------------------------------------------------------------------------
# The approximations against the exact attackers
# --------------------------------------------------------------------------------------------


def test_mutual_cover_approximation_understates_and_the_combined_attacker_does_not():
    """Two groups of three on ages 20-24 and three education values, delta = 0.8, 40 seeds.

    Measured: accuracy 0.733 (approximation) against 0.783 (exact), mean posterior on the true
    value 0.666 against 0.741, total variation up to 0.73 between the two posteriors of one
    person. The combined attacker at the default bound enumerates every block of these tables:
    it is the exact attacker.
    """
    approx, exact, combined = [], [], []
    for seed in range(40):
        table, released, domains, tables = mutual_cover_release(seed)
        kw = {"domains": domains, "qi": QI, "private": "sick", "tables": tables}
        a = random_table_posterior(table, released, **kw)
        e = exact_random_table_posterior(table, released, **kw, population=table, max_block=24)
        c = exact_random_table_posterior(table, released, **kw, population=table)
        approx.append(risk(a, table, domains))
        exact.append(risk(e, table, domains))
        combined.append(risk(c, table, domains))
    approx, exact, combined = (np.mean(x, axis=0) for x in (approx, exact, combined))
    # the approximation understates both measures (by 0.050 and 0.075)
    assert (exact - approx > 0.03).all(), (approx, exact)
    np.testing.assert_allclose(combined, exact, atol=1e-12)


def test_the_bound_routes_small_blocks_to_the_enumeration():
    """Groups of 3 and 5 on ages 40 years apart (one block each): a bound of 4 enumerates the
    first and leaves the second to the approximation; 0 is the approximation everywhere."""
    table = mutual_cover_release(3, sizes=(3, 5), ages=(20, 25))[0]
    table["age"] = np.where(np.arange(8) < 3, table["age"], table["age"] + 40)
    groups = np.repeat([0, 1], [3, 5])
    mech = MutualCover(QI, "sick", delta=0.8, l=1.5, categorical=["edu"])
    released = mech.fit(table, groups=groups).release(random_state=0)
    domains = table_domains(table, [*QI, "sick"], numeric=["age"])
    kw = {"domains": domains, "qi": QI, "private": "sick", "tables": mutual_cover_tables(mech)}
    approx = random_table_posterior(table, released, **kw)
    exact = exact_random_table_posterior(table, released, **kw, population=table, max_block=5)
    mixed = exact_random_table_posterior(table, released, **kw, population=table, max_block=4)
    np.testing.assert_allclose(mixed[:3], exact[:3], atol=1e-12)
    np.testing.assert_allclose(mixed[3:], approx[3:], atol=1e-12)
    none = exact_random_table_posterior(table, released, **kw, population=table, max_block=0)
    np.testing.assert_allclose(none, approx, atol=1e-12)
    assert np.abs(exact - approx).max() > 0.01  # the two attackers differ on this release


def test_class_matching_on_mondrian_is_exact_and_on_anatomy_cells_understates():
    """Random tables of 12 people (ages 20-39, three education values, three diseases), 60
    seeds (35 admit a 2-diverse partition). Mondrian's classes (k = 2, l = 2) are disjoint
    boxes: class matching is the exact attacker. Refined into Anatomy's groups their cells
    overlap and class matching understates; the combined attacker at the default bound
    enumerates every block of these releases.

    Measured on the refined releases: accuracy 0.510 (class matching) against 0.519 (exact),
    mean posterior on the true value 0.480 against 0.485, total variation up to 0.28.
    """
    plain, approx, exact = [], [], []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        people = pd.DataFrame(
            {
                "age": rng.integers(20, 40, 12),
                "edu": rng.choice(["a", "b", "c"], 12),
                "sick": rng.choice(["flu", "cold", "ulcer"], 12, p=[0.5, 0.3, 0.2]),
            }
        )
        domains = table_domains(people, [*QI, "sick"], numeric=["age"])
        kw = {"domains": domains, "qi": QI, "private": "sick"}
        for refine, out in (("none", plain), ("anatomy", None)):
            try:
                mech = Mondrian(QI, "sick", k=2, l=2, categorical=["edu"], refine=refine)
                released = mech.fit(people).release()
            except ValueError:
                break  # no 2-diverse partition of this draw
            a = class_matching_posterior(people, released, **kw)
            e = exact_class_matching_posterior(people, released, **kw, population=people)
            if out is plain:
                plain.append(np.abs(a - e).max())
            else:
                approx.append(risk(a, people, domains))
                exact.append(risk(e, people, domains))
    assert len(plain) > 20 and max(plain) < 1e-12
    approx, exact = np.mean(approx, axis=0), np.mean(exact, axis=0)
    assert (exact > approx).all(), (approx, exact)


# --------------------------------------------------------------------------------------------
# The bound
# --------------------------------------------------------------------------------------------


def test_a_block_at_the_bound_is_enumerated_in_well_under_a_second():
    """Measured on one core: 2 ms at 6 people, 5 ms at 10, 16 ms at 14 (the default bound),
    50 ms at 16, 1 s at 18 and 3.4 s at 20 per group assignment."""
    weights = np.random.default_rng(0).random((EXACT_MAX_BLOCK, EXACT_MAX_BLOCK))
    assignment_marginals(weights)  # warm up
    start = time.perf_counter()
    assignment_marginals(weights)
    assert time.perf_counter() - start < 1.0
