"""Membership inference (ppdp.attacks.membership): distances, scores, and the attacks on Adult.

The distances and features are checked against a brute-force reading of the cells on small random
tables, the scores against scikit-learn's ROC curve. On 1,200 Adult rows (480 members, 480
auxiliary records, 240 controls) the attacks must tell the releases apart: the unprotected table
and a resampling "synthesizer" are caught, a release of other people is not, and MST at
epsilon = 1e4 leaks more than at epsilon = 1.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score, roc_curve

from ppdp.attacks.membership import (
    closest_record_distances,
    dcr_membership,
    membership_scores,
    neighbour_features,
    shadow_membership,
)
from ppdp.cells import table_domains

# -- brute force on small random tables --------------------------------------------------------


def _random_tables(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """People with a numeric and two categorical columns, and a release mixing domain values,
    numbers between them, ranges and value sets."""
    rng = np.random.default_rng(seed)
    ages = np.array([18, 21, 25, 30, 42, 57, 66])
    cities = ["a", "b", "c", "d"]
    people = pd.DataFrame(
        {
            "age": rng.choice(ages, 30),
            "city": rng.choice(cities, 30),
            "sex": rng.choice(["F", "M"], 30),
        }
    )
    domains = table_domains(
        pd.DataFrame({"age": ages, "city": (cities * 2)[:7], "sex": (["F", "M"] * 4)[:7]}),
        ["age", "city", "sex"],
        numeric=["age"],
    )
    n = 25
    age_cells, city_cells = [], []
    for _ in range(n):
        kind = rng.integers(3)
        if kind == 0:
            age_cells.append(int(rng.choice(ages)))
        elif kind == 1:
            age_cells.append(float(rng.uniform(18, 66)))
        else:
            lo, hi = sorted(rng.choice(ages, 2, replace=False))
            age_cells.append(f"{lo}-{hi}")
        members = rng.choice(cities, rng.integers(1, 4), replace=False)
        city_cells.append(members[0] if len(members) == 1 else "{" + ",".join(members) + "}")
    released = pd.DataFrame(
        {"age": age_cells, "city": city_cells, "sex": rng.choice(["F", "M"], n)}
    ).astype(object)
    # repeat a few rows, as a release does
    released = pd.concat([released, released.iloc[:5]], ignore_index=True)
    return people, released, domains


def _cell_distance(value, cell, domain) -> float:
    """One column's distance from a value to a cell, read from the cell's text."""
    if domain.kind == "numeric":
        values = domain.values.astype(float)
        span = values.max() - values.min()
        if isinstance(cell, str) and "-" in cell[1:]:
            lo, hi = (float(x) for x in cell.split("-"))
            covered = values[(values >= lo) & (values <= hi)]
            return float(np.min(np.abs(covered - value))) / span
        return abs(float(cell) - value) / span
    members = cell[1:-1].split(",") if cell.startswith("{") else [cell]
    return 0.0 if value in members else 1.0


def _brute_distances(people, released, domains, columns) -> np.ndarray:
    """``[person, released row]`` mean per-column distance, one pair at a time."""
    out = np.zeros((len(people), len(released)))
    for i, person in enumerate(people[columns].itertuples(index=False)):
        for j, row in enumerate(released[columns].itertuples(index=False)):
            out[i, j] = np.mean(
                [
                    _cell_distance(v, c, domains[k])
                    for v, c, k in zip(person, row, columns, strict=True)
                ]
            )
    return out


@pytest.mark.parametrize("seed", range(5))
def test_closest_distances_equal_brute_force(seed):
    people, released, domains = _random_tables(seed)
    columns = ["age", "city", "sex"]
    brute = _brute_distances(people, released, domains, columns)
    got = closest_record_distances(people, released, domains=domains, columns=columns)
    np.testing.assert_allclose(got, brute.min(axis=1), atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_neighbour_features_equal_brute_force(seed):
    people, released, domains = _random_tables(seed)
    columns = ["age", "city", "sex"]
    brute = _brute_distances(people, released, domains, columns)
    ordered = np.sort(brute, axis=1)
    covers = [
        np.array(
            [[_cell_distance(v, cell, domains[c]) == 0 for cell in released[c]] for v in people[c]]
        )
        for c in columns
    ]
    pairs = np.log1p(
        np.column_stack(
            [(covers[i] & covers[j]).sum(axis=1) for i, j in itertools.combinations(range(3), 2)]
        )
    )
    singles = np.log1p(np.column_stack([c.sum(axis=1) for c in covers]))
    expected = np.column_stack(
        [
            ordered[:, 0],
            ordered[:, 1],
            np.log1p((brute == 0).sum(axis=1)),
            np.log1p((brute <= 1 / 3 + 1e-12).sum(axis=1)),
            pairs.min(axis=1),
            pairs.mean(axis=1),
            singles.min(axis=1),
        ]
    )
    got = neighbour_features(people, released, domains=domains, columns=columns)
    np.testing.assert_allclose(got, expected, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_pair_counts_per_record_equal_those_per_value_pair(seed, monkeypatch):
    """A pair of columns whose table of value pairs is too large is counted record by record:
    the same features, bit for bit (counts of rows are exact in any order)."""
    import ppdp.attacks.membership as membership

    people, released, domains = _random_tables(seed)
    columns = ["age", "city", "sex"]
    per_value = neighbour_features(people, released, domains=domains, columns=columns)
    monkeypatch.setattr(membership, "_PAIR_CELLS", 10)  # age x city and age x sex per record
    mixed = neighbour_features(people, released, domains=domains, columns=columns)
    monkeypatch.setattr(membership, "_PAIR_CELLS", 0)
    per_record = neighbour_features(people, released, domains=domains, columns=columns)
    np.testing.assert_array_equal(mixed, per_value)
    np.testing.assert_array_equal(per_record, per_value)


def test_distances_are_read_in_blocks(monkeypatch):
    """More distinct people than one block: the blocks join in order."""
    import ppdp.attacks.membership as membership

    people, released, domains = _random_tables(7)
    columns = ["age", "city", "sex"]
    whole = closest_record_distances(people, released, domains=domains, columns=columns)
    features = neighbour_features(people, released, domains=domains, columns=columns)
    monkeypatch.setattr(membership, "_BLOCK_ENTRIES", 4 * len(released.drop_duplicates()))
    blocks = membership._distance_blocks(people, released, domains, columns)[3]
    assert len(list(blocks)) > 1
    np.testing.assert_array_equal(
        closest_record_distances(people, released, domains=domains, columns=columns), whole
    )
    np.testing.assert_array_equal(
        neighbour_features(people, released, domains=domains, columns=columns), features
    )


# -- scores against scikit-learn ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_pos", "n_neg", "levels"), [(50, 80, 5), (300, 1000, 40), (200, 400, 10**6), (7, 3, 2)]
)
def test_membership_scores_match_roc_curve(n_pos, n_neg, levels):
    """Ties included (few levels); an FPR below 1/n_neg keeps only thresholds no non-member
    reaches, and exactly 0.1% of 1,000 non-members is one false positive, allowed."""
    rng = np.random.default_rng(n_pos + n_neg)
    # members score higher on average; integer scores tie within and across the groups
    pos = rng.integers(levels, size=n_pos) + rng.integers(2, size=n_pos) * (levels // 3)
    neg = rng.integers(levels, size=n_neg)
    y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    fpr, tpr, _ = roc_curve(y, np.r_[pos, neg], drop_intermediate=False)
    got = membership_scores(pos, neg)
    assert got["auc"] == pytest.approx(roc_auc_score(y, np.r_[pos, neg]), abs=1e-12)
    assert got["advantage"] == pytest.approx(got["auc"] - 0.5, abs=1e-15)
    assert got["tpr_at_1pct_fpr"] == pytest.approx(tpr[fpr <= 0.01 + 1e-12].max())
    assert got["tpr_at_01pct_fpr"] == pytest.approx(tpr[fpr <= 0.001 + 1e-12].max())


def test_tpr_below_one_false_positive_is_what_beats_every_non_member():
    got = membership_scores([5.0, 4.0, 1.0, 0.0], [3.0, 2.0, 1.0])
    # 1% < 1/3: only thresholds above 3 qualify, where 2 of 4 members are
    assert got["tpr_at_1pct_fpr"] == got["tpr_at_01pct_fpr"] == 0.5
    top_is_a_non_member = membership_scores([1.0, 2.0], [3.0])
    assert top_is_a_non_member["tpr_at_1pct_fpr"] == 0.0
    assert top_is_a_non_member["auc"] == 0.0
    assert membership_scores([1.0], [1.0])["auc"] == 0.5


# -- bad input ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small():
    people, released, domains = _random_tables(0)
    return people, released, domains, ["age", "city", "sex"]


def test_bad_input_names_the_parameter(small):
    people, released, domains, columns = small
    kw = {"domains": domains, "columns": columns}
    with pytest.raises(ValueError, match=r"released lacks the columns \['sex'\]"):
        closest_record_distances(people, released.drop(columns="sex"), **kw)
    with pytest.raises(ValueError, match=r"people has no rows"):
        closest_record_distances(people.iloc[:0], released, **kw)
    with pytest.raises(ValueError, match=r"controls lacks the columns \['city'\]"):
        dcr_membership(people, people.drop(columns="city"), released, **kw)
    with pytest.raises(
        ValueError, match=r"domains has no domain for the columns \['city', 'sex'\]"
    ):
        dcr_membership(people, people, released, domains={"age": domains["age"]}, columns=columns)
    with pytest.raises(ValueError, match=r"columns lists a column twice"):
        closest_record_distances(people, released, domains=domains, columns=["age", "age"])
    with pytest.raises(TypeError, match=r"people must be a pandas DataFrame, got ndarray"):
        closest_record_distances(people.to_numpy(), released, **kw)
    with pytest.raises(ValueError, match=r"column 'city' has values \['z'\] outside its domain"):
        closest_record_distances(people.assign(city="z").head(1), released, **kw)
    with pytest.raises(ValueError, match=r"column 'age': range '90-99' holds no value"):
        closest_record_distances(people, released.assign(age="90-99"), **kw)
    with pytest.raises(ValueError, match=r"member_scores must be a non-empty 1-D array"):
        membership_scores([], [1.0])
    with pytest.raises(ValueError, match=r"nonmember_scores holds 1 non-finite scores"):
        membership_scores([1.0], [np.nan, 0.0])


def test_bad_shadow_input_names_the_parameter(small):
    people, released, domains, columns = small
    kw = {"domains": domains, "columns": columns}

    def copy(frame, random_state):
        return frame

    with pytest.raises(ValueError, match=r"'n_shadows' parameter of shadow_membership"):
        shadow_membership(copy, people, people, people, released, n_shadows=0, **kw)
    with pytest.raises(TypeError, match=r"release must be a callable"):
        shadow_membership("copy", people, people, people, released, **kw)
    with pytest.raises(ValueError, match=r"aux has 1 row; a shadow needs at least two"):
        shadow_membership(copy, people.head(1), people, people, released, **kw)
    with pytest.raises(ValueError, match=r"aux lacks the columns \['age'\]"):
        shadow_membership(copy, people.drop(columns="age"), people, people, released, **kw)
    with pytest.raises(TypeError, match=r"release must return a DataFrame, got list"):
        shadow_membership(lambda f, r: [], people, people, people, released, **kw)
    with pytest.raises(TypeError, match=r"random_state must be None, an int"):
        shadow_membership(copy, people, people, people, released, random_state=1.5, **kw)


# -- the attacks on Adult ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def adult():
    from ppdp.experiments.benchmark.data import load_dataset, split

    data = load_dataset("adult", 1200, 0)
    return data, split(data, 0)


def _copy(frame, random_state):
    return frame.reset_index(drop=True)


def _resample(frame, random_state):
    """A "synthesizer" that draws its rows from the real ones, with replacement."""
    draw = np.random.default_rng(random_state).integers(len(frame), size=len(frame))
    return frame.iloc[draw].reset_index(drop=True)


def _attacks(adult, release, released, random_state=0):
    data, parts = adult
    kw = {"domains": data.domains, "columns": data.columns}
    dcr = dcr_membership(parts.train, parts.control, released, **kw)
    shadow = shadow_membership(
        release, parts.aux, parts.train, parts.control, released, random_state=random_state, **kw
    )
    return dcr, shadow


def _twins(people, table):
    """Whether each person's record occurs in ``table``."""
    keys = set(table.itertuples(index=False, name=None))
    return np.array([r in keys for r in people.itertuples(index=False, name=None)])


def test_the_unprotected_table_is_caught(adult):
    """Every member is at distance 0; so is every control with a twin among the members (5% of
    them on Adult), a tie counting one half: DCR's AUC is exactly 1 - share / 2 (0.975). The tie
    also puts DCR's TPR at 1% FPR at 0 (no threshold keeps the twins out); the shadow attack's
    counts break it."""
    _, parts = adult
    dcr, shadow = _attacks(adult, _copy, _copy(parts.train, 0))
    share = _twins(parts.control, parts.train).mean()
    assert dcr["auc"] == pytest.approx(1 - share / 2, abs=1e-12)
    assert dcr["advantage"] > 0.45
    assert shadow["auc"] > 0.95  # measured 0.977
    assert shadow["tpr_at_1pct_fpr"] > 0.2  # measured 0.33


def test_a_resampling_synthesizer_scores_as_the_table_it_copies(adult):
    """A bootstrap copies each member with probability 1 - (1 - 1/n)^n (63% at n = 480; 64.8%
    of the members here, twins included): the members it copied are caught as in the unprotected
    table (DCR AUC within 0.02 of it, measured 0.983 against 0.975), and its advantage is about
    that share of the unprotected table's (tolerance: at least 55% of it; measured DCR 0.312
    against 0.475, shadow 0.292 against 0.477), far above a release of other people (0.01)."""
    data, parts = adult
    released = _resample(parts.train, 0)
    dcr, shadow = _attacks(adult, _resample, released)
    plain_dcr, plain_shadow = _attacks(adult, _copy, _copy(parts.train, 0))
    copied = parts.train[_twins(parts.train, released)]
    dcr_copied = dcr_membership(
        copied, parts.control, released, domains=data.domains, columns=data.columns
    )
    assert dcr_copied["auc"] == pytest.approx(plain_dcr["auc"], abs=0.02)
    assert dcr["advantage"] >= 0.55 * plain_dcr["advantage"]
    assert shadow["advantage"] >= 0.55 * plain_shadow["advantage"]
    assert min(dcr["advantage"], shadow["advantage"]) > 0.25


def test_a_release_of_other_people_tells_nothing(adult):
    """The auxiliary records released instead of the members: targets and controls are equally
    far from them (measured AUC 0.513 DCR, 0.515 shadow; tolerance 0.05 at 480 x 240 people)."""
    _, parts = adult
    dcr, shadow = _attacks(adult, _copy, _copy(parts.aux, 0))
    assert dcr["auc"] == pytest.approx(0.5, abs=0.05)
    assert shadow["auc"] == pytest.approx(0.5, abs=0.05)


def _mst(data, epsilon):
    """MST as the benchmark fits it: public domains, then the release read in the evaluation's
    domains (numbers clipped to the observed range, unseen categories the whole domain)."""
    from ppdp.experiments.benchmark.data import load_public_domains
    from ppdp.mechanisms.mst import MST

    public = load_public_domains("adult")

    def release(frame, random_state):
        mech = MST(epsilon, delta=1e-9, domains={c: public[c] for c in frame.columns}, n_iters=100)
        out = mech.fit(frame, random_state=random_state).release(random_state=random_state)
        for c in out.columns:
            known = data.domains[c]
            if known.kind == "numeric":
                out[c] = out[c].clip(known.values.min(), known.values.max())
            else:
                unseen = ~out[c].isin(known.values)
                out[c] = out[c].astype(object)
                out.loc[unseen, c] = "{" + ",".join(map(str, known.values)) + "}"
        return out

    return release


def test_mst_at_a_huge_epsilon_leaks_more_than_at_one(adult):
    """Shadow-attack AUC over three seeds (each its own MST fit and shadows): measured 0.470,
    0.476, 0.526 (mean 0.491) at epsilon 1 and 0.574, 0.583, 0.548 (mean 0.569) at epsilon 1e4.
    The distance to the closest record alone barely moves (means 0.481 and 0.505): MST copies no
    row; what it keeps of a member is the member's rare pairs of values, which the shadow
    attack's counting features read."""
    data, parts = adult
    auc = {}
    for epsilon in (1.0, 1e4):
        release = _mst(data, epsilon)
        auc[epsilon] = [
            _attacks(adult, release, release(parts.train, seed), random_state=seed)[1]["auc"]
            for seed in range(3)
        ]
    assert np.mean(auc[1e4]) > np.mean(auc[1.0]) + 0.04, auc
    assert np.mean(auc[1e4]) > 0.53, auc
    assert abs(np.mean(auc[1.0]) - 0.5) < 0.04, auc
