"""Every cache of the library is keyed by the content of what its computation reads.

One property test per :class:`ppdp.memo.Memo`: change one input element at a time and the lookup
misses (the ``misses`` counter moves); give equal content again and it hits. Expensive computations
(an IMPOSTER release, a fitted attacker, an SPPM fit) are replaced by stand-ins, so that the tests
exercise the real key-building code and not the training. Alongside: cached values cannot be
changed by their receiver, and a fit taken from the cache passes the budget check of a fresh one.
"""

from __future__ import annotations

import dataclasses
import os
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.attacks import suite
from ppdp.compendium.published import CLAIMS_FILES, published_value
from ppdp.experiments.hyobscure import data as hydata
from ppdp.experiments.imposter import run as imposter_run
from ppdp.experiments.sppm import run as sppm_run
from ppdp.experiments.sppm.data import Problem
from ppdp.guarantees import GuaranteeViolation
from ppdp.mechanisms import mutual_cover, relay
from ppdp.mechanisms import sppm as S

PROPERTY = settings(max_examples=25, deadline=None)


def other_value(data, old: float, low: int = 1, high: int = 9) -> float:
    """A value in [low, high] other than ``old``."""
    return float(data.draw(st.integers(low, high).filter(lambda v: v != old)))


def cell(data, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(data.draw(st.integers(0, n - 1)) for n in shape)


def misses_of(memo, call) -> int:
    before = memo.misses
    call()
    return memo.misses - before


# ------------------------------------------------------------------------------------------------
# published.CLAIMS_FILES


def write_claims(path, values) -> None:
    claims = [
        {
            "id": "p.a",
            "paper": "p",
            "notebook": "nb",
            "where": "Sec. 1",
            "statement": "a",
            "published": 0.25,
            "check": {"op": "<=", "value": 0.3},
        }
    ]
    published = {"p.table": {"where": "Table 1", "value": list(values)}}
    path.write_text(yaml.safe_dump({"claims": claims, "published": published}))


@PROPERTY
@given(data=st.data())
def test_a_claims_file_replaced_with_its_mtime_restored_is_read_again(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("claims") / "claims.yaml"
    values = [1.0, 2.0, 3.0]
    write_claims(path, values)
    stamp = os.stat(path)
    with CLAIMS_FILES.isolated():
        assert published_value("p.table", path) == values
        i = data.draw(st.integers(0, len(values) - 1))
        values[i] = other_value(data, values[i])
        write_claims(path, values)
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        assert misses_of(CLAIMS_FILES, lambda: published_value("p.table", path)) == 1
        assert published_value("p.table", path) == values
        # the same content again, under another name: one parse serves both
        twin = path.with_name("twin.yaml")
        twin.write_bytes(path.read_bytes())
        assert misses_of(CLAIMS_FILES, lambda: published_value("p.table", twin)) == 0


def test_a_published_list_changed_by_its_caller_changes_nothing_later(tmp_path):
    path = tmp_path / "claims.yaml"
    write_claims(path, [1.0, 2.5])
    with CLAIMS_FILES.isolated():
        first = published_value("p.table", path)
        first[0] = 99.0
        first.append(7.0)
        assert published_value("p.table", path) == [1.0, 2.5]


# ------------------------------------------------------------------------------------------------
# datasets.ADULT_FRAMES

ADULT_LINES = (
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, "
    "Male, 2174, 0, 40, United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, "
    "White, Male, 0, 0, 13, ?, >50K",
)


def adult_files(folder, ages) -> dict:
    """``adult.data`` and ``adult.test`` (its first line a comment, its labels ending in "."),
    each of the two rows above with the given ages."""
    rows = [
        line.replace("39,", f"{a},", 1) if i % 2 == 0 else line.replace("50,", f"{a},", 1)
        for i, (line, a) in enumerate(zip(ADULT_LINES * 2, ages, strict=True))
    ]
    data, test = folder / "adult.data", folder / "adult.test"
    data.write_text("\n".join(rows[:2]) + "\n")
    test.write_text("|1x3 Cross validator\n" + "\n".join(r + "." for r in rows[2:]) + "\n")
    return {"adult.data": data, "adult.test": test}


@PROPERTY
@given(data=st.data())
def test_adult_frames_miss_when_a_file_read_changes_and_hit_when_another_does(
    tmp_path_factory, data
):
    from ppdp.datasets import load_adult, loaders

    folder = tmp_path_factory.mktemp("adult")
    ages = [20, 30, 40, 50]
    paths = adult_files(folder, ages)
    fetch = mock.patch.object(
        loaders, "fetch", lambda name, progress=False, files=(): {f: paths[f] for f in files}
    )
    with fetch, loaders.ADULT_FRAMES.isolated():
        split = data.draw(st.sampled_from(["all", "train", "test"]))
        first = load_adult(split)
        i = data.draw(st.integers(0, 3))
        ages[i] = int(other_value(data, ages[i], 17, 90))
        adult_files(folder, ages)
        read = {"train": [0, 1], "test": [2, 3], "all": [0, 1, 2, 3]}[split]
        again = misses_of(loaders.ADULT_FRAMES, lambda: load_adult(split))
        assert again == (1 if i in read else 0)
        assert list(load_adult(split)["age"]) == [ages[j] for j in read]
        if i not in read:
            pd.testing.assert_frame_equal(load_adult(split), first)


def test_an_adult_frame_changed_by_its_caller_changes_nothing_later(tmp_path, monkeypatch):
    from ppdp.datasets import load_adult, loaders

    paths = adult_files(tmp_path, [20, 30, 40, 50])
    monkeypatch.setattr(
        loaders, "fetch", lambda name, progress=False, files=(): {f: paths[f] for f in files}
    )
    with loaders.ADULT_FRAMES.isolated():
        first = load_adult()
        first.loc[0, "age"] = 99
        del first["sex"]
        again = load_adult()
        assert list(again["age"]) == [20, 30, 40, 50] and "sex" in again
        assert list(again["income"]) == ["<=50K", ">50K", "<=50K", ">50K"]


# ------------------------------------------------------------------------------------------------
# mechanisms.relay.UNITS and REFERENCES


def relay_units(seed: int = 0) -> relay._Units:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, 5, size=(40, 2)), columns=["q0", "q1"])
    frame["s"] = rng.choice(3, size=40)
    return relay._prepare(frame, "s", None, None)[3]


UNIT_ARRAYS = ("x", "size", "counts", "first", "gdist")


@PROPERTY
@given(data=st.data())
def test_relay_units_are_shared_only_when_all_five_arrays_are_equal(data):
    u = relay_units()
    name = data.draw(st.sampled_from(UNIT_ARRAYS))
    changed = getattr(u, name).copy()
    at = cell(data, changed.shape)
    changed[at] = changed[at] + data.draw(st.sampled_from([1, 2, 5]))
    other = dataclasses.replace(u, **{name: changed}, memo={})
    with relay.reuse_units():
        assert misses_of(relay.UNITS, lambda: relay._shared(u)) == 1
        same = dataclasses.replace(u, memo={})
        assert relay._shared(same) is u
        assert misses_of(relay.UNITS, lambda: relay._shared(other)) == 1
        assert relay._shared(other) is other


@PROPERTY
@given(data=st.data())
def test_relay_references_miss_on_any_changed_entry(data):
    gdist = np.array([0.2, 0.3, 0.5, 0.1])
    changed = gdist.copy()
    i = data.draw(st.integers(0, gdist.size - 1))
    changed[i] = other_value(data, changed[i] * 10) / 10
    with relay.REFERENCES.isolated():
        assert misses_of(relay.REFERENCES, lambda: relay._reference(gdist)) == 1
        assert misses_of(relay.REFERENCES, lambda: relay._reference(gdist.copy())) == 0
        assert misses_of(relay.REFERENCES, lambda: relay._reference(changed)) == 1
        assert misses_of(relay.REFERENCES, lambda: relay._reference(changed[:-1])) == 1


def test_relay_references_are_read_only():
    gdist = np.array([0.25, 0.75])
    with relay.REFERENCES.isolated():
        qn, hq = relay._reference(gdist)
        with pytest.raises(ValueError, match="read-only"):
            qn[0, 0] = 1.0
        with pytest.raises(ValueError, match="read-only"):
            hq[0] = 0.0
        assert np.array_equal(relay._reference(gdist)[0], [[0.25, 0.75]])


# ------------------------------------------------------------------------------------------------
# mechanisms.mutual_cover.LP_PATTERNS


@PROPERTY
@given(r=st.integers(1, 6), n=st.integers(1, 6), dr=st.integers(-1, 1), dn=st.integers(-1, 1))
def test_lp_patterns_are_keyed_by_the_whole_shape(r, n, dr, dn):
    with mutual_cover.LP_PATTERNS.isolated():
        assert misses_of(mutual_cover.LP_PATTERNS, lambda: mutual_cover._lp_pattern(r, n)) == 1
        assert misses_of(mutual_cover.LP_PATTERNS, lambda: mutual_cover._lp_pattern(r, n)) == 0
        r2, n2 = max(1, r + dr), max(1, n + dn)
        expected = int((r2, n2) != (r, n))
        assert misses_of(mutual_cover.LP_PATTERNS, lambda: mutual_cover._lp_pattern(r2, n2)) == (
            expected
        )
        # the pattern is the shape's alone: what a fresh build gives
        fresh = mutual_cover._new_lp_pattern(r2, n2)
        kept = mutual_cover._lp_pattern(r2, n2)
        assert all(np.array_equal(a, b) for a, b in zip(kept, fresh, strict=True))


# ------------------------------------------------------------------------------------------------
# experiments.sppm.FITS


class _Identity:
    """A stand-in fit: the identity mapping (no distortion wherever d(b, b) = 0)."""

    def __init__(self, n: int):
        self.mapping_ = np.eye(n)


def stand_in_fits(patch: pytest.MonkeyPatch) -> list:
    calls = []

    def fit_now(method, problem, delta, n_steps, path, **kwargs):
        calls.append(problem)
        return _Identity(problem.n), 0.0

    patch.setattr(sppm_run, "_fit_now", fit_now)
    return calls


def toy_problem(kind: str) -> Problem:
    p_ab = np.array([[0.2, 0.1, 0.05, 0.15], [0.05, 0.2, 0.15, 0.1]])
    codes = np.array([[0, 0], [0, 1], [1, 1], [1, 2]])
    if kind == "dense":
        distortion = S.DenseDistortion(np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0))))
    elif kind == "squared":
        distortion = S.SquaredDistortion([0.0, 1.0, 3.0, 4.0])
    else:
        distortion = S.HammingDistortion(codes, normalize=True)
    return Problem("toy", p_ab, distortion, codes)


def changed_problem(data, problem: Problem) -> Problem:
    """``problem`` with one element of its prior, profiles or distortion changed."""
    d = problem.distortion
    where = data.draw(st.sampled_from(["p_ab", "codes", "distortion"]))
    if where == "p_ab":
        p_ab = problem.p_ab.copy()
        at = cell(data, p_ab.shape)
        p_ab[at] = other_value(data, p_ab[at] * 100) / 100
        return dataclasses.replace(problem, p_ab=p_ab)
    if where == "codes":
        codes = problem.codes.copy()
        at = cell(data, codes.shape)
        codes[at] = other_value(data, codes[at], 0, 5)
        return dataclasses.replace(problem, codes=codes)
    if isinstance(d, S.DenseDistortion):
        matrix = d.matrix.copy()
        # off the diagonal, so that the stand-in identity mapping stays within budget
        at = data.draw(st.sampled_from([(i, j) for i in range(4) for j in range(4) if i != j]))
        matrix[at] = other_value(data, matrix[at])
        return dataclasses.replace(problem, distortion=S.DenseDistortion(matrix))
    if isinstance(d, S.SquaredDistortion):
        points = d.points[:, 0].copy()
        i = data.draw(st.integers(0, points.size - 1))
        points[i] = other_value(data, points[i], 5, 20)
        return dataclasses.replace(problem, distortion=S.SquaredDistortion(points))
    codes = d.codes.copy()
    at = cell(data, codes.shape)
    codes[at] = other_value(data, codes[at], 0, 5)
    return dataclasses.replace(problem, distortion=S.HammingDistortion(codes, normalize=True))


@PROPERTY
@given(data=st.data(), kind=st.sampled_from(["dense", "squared", "hamming"]))
def test_sppm_fits_miss_on_any_changed_element_of_the_problem(data, kind):
    problem = toy_problem(kind)
    other = changed_problem(data, problem)
    with pytest.MonkeyPatch.context() as patch, sppm_run.FITS.isolated():
        stand_in_fits(patch)
        assert misses_of(sppm_run.FITS, lambda: sppm_run._fit("sppm", problem, 0.5)) == 1
        twin = dataclasses.replace(problem, p_ab=problem.p_ab.copy())
        assert misses_of(sppm_run.FITS, lambda: sppm_run._fit("sppm", twin, 0.5)) == 0
        assert misses_of(sppm_run.FITS, lambda: sppm_run._fit("sppm", other, 0.5)) == 1
        # and the method, budget, steps and options each tell fits apart
        for call in (
            lambda: sppm_run._fit("optimal", problem, 0.5),
            lambda: sppm_run._fit("sppm", problem, 0.25),
            lambda: sppm_run._fit("sppm", problem, 0.5, n_steps=7),
            lambda: sppm_run._fit("sppm", problem, 0.5, tol=1e-3),
        ):
            assert misses_of(sppm_run.FITS, call) == 1


def test_a_distortion_of_another_kind_is_keyed_by_all_its_entries(monkeypatch):
    stand_in_fits(monkeypatch)

    class Scaled(S.Distortion):
        def __init__(self, scale):
            self.scale, self.shape = np.asarray(scale, dtype=float), (3, 3)

        def block(self, rows):
            base = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
            return base[rows] * self.scale[rows, None]

    p_ab = np.full((2, 3), 1 / 6)
    one = Problem("custom", p_ab, Scaled([1.0, 1.0, 1.0]))
    other = Problem("custom", p_ab, Scaled([1.0, 2.0, 1.0]))  # a middle row differs
    with sppm_run.FITS.isolated():
        assert misses_of(sppm_run.FITS, lambda: sppm_run._fit("sppm", one, 0.5)) == 1
        assert misses_of(sppm_run.FITS, lambda: sppm_run._fit("sppm", other, 0.5)) == 1


def two_problems_alike_at_the_ends() -> tuple[Problem, Problem]:
    """One prior and name; the distortions share their first and last rows only."""
    p_ab, squared = S.synthetic_problem(3)
    base = squared.toarray()
    far = base.copy()
    far[1:-1] *= 10.0
    return (
        Problem("synthetic", p_ab, S.DenseDistortion(base)),
        Problem("synthetic", p_ab, S.DenseDistortion(far)),
    )


def test_a_fit_for_another_distortion_is_not_returned_and_each_keeps_its_budget():
    near, far = two_problems_alike_at_the_ends()
    delta = 2.0
    with sppm_run.FITS.isolated():
        before = sppm_run.FITS.misses
        fit_near, _ = sppm_run._fit("sppm", near, delta, n_steps=20)
        fit_far, _ = sppm_run._fit("sppm", far, delta, n_steps=20)
        assert sppm_run.FITS.misses - before == 2 and fit_far is not fit_near
        spent = S.expected_distortion(far.p_ab, far.distortion, fit_far.mapping_)
        assert spent <= delta + 1e-9


def test_a_cached_fit_that_breaks_the_budget_raises_instead_of_being_used():
    near, _ = two_problems_alike_at_the_ends()
    delta = 2.0
    with sppm_run.FITS.isolated():
        model, _ = sppm_run._fit("sppm", near, delta, n_steps=20)
        # the cached fit now holds a mapping that sends every profile to its farthest value
        n = near.n
        farthest = np.argmax(near.distortion.toarray(), axis=1)
        wrong = np.zeros((n, n))
        wrong[np.arange(n), farthest] = 1.0
        assert S.expected_distortion(near.p_ab, near.distortion, wrong) > delta
        model.mapping_ = wrong
        with pytest.raises(GuaranteeViolation, match="distortion budget"):
            sppm_run._fit("sppm", near, delta, n_steps=20)


# ------------------------------------------------------------------------------------------------
# experiments.imposter.RELEASES


class _StandInImposter:
    """Draws rows of its training table: fast, and what it releases depends on every cell."""

    def __init__(self, *, lam, private, label, columns, **params):
        self.columns = [*columns, private, label]

    def fit(self, df, random_state=None):
        self.table_ = df[self.columns].reset_index(drop=True)
        self.history_ = pd.DataFrame({"epoch": [0], "loss": [0.0]})
        return self

    def sample(self, n, rng):
        return self.table_.iloc[rng.integers(0, len(self.table_), size=n)].reset_index(drop=True)


def imposter_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": np.array([25, 38, 47, 52, 33, 61], dtype=np.int64),
            "hours": np.array([40, 50, 38, 45, 20, 60], dtype=np.int64),
            "job": pd.Categorical(["a", "b", "a", "c", "b", "c"]),
            "sex": ["F", "M", "F", "M", "F", "M"],
            "income": ["<=50K", ">50K", "<=50K", ">50K", "<=50K", ">50K"],
        }
    )


def release_of(train: pd.DataFrame, **params):
    return imposter_run.imposter_release(
        train, ["age", "hours", "job"], lam=1.0, seed=0, n=4, imposter_params=params
    )


@PROPERTY
@given(data=st.data())
def test_imposter_releases_miss_on_any_changed_cell(data):
    train = imposter_table()
    other = train.copy()
    row = data.draw(st.integers(0, len(train) - 1))
    column = data.draw(st.sampled_from(["age", "hours", "job", "sex"]))
    if column in ("age", "hours"):
        other.loc[row, column] = int(other_value(data, other.loc[row, column], 0, 99))
    elif column == "job":
        other.loc[row, column] = "c" if other.loc[row, column] != "c" else "a"
    else:
        other.loc[row, column] = "M" if other.loc[row, column] == "F" else "F"
    with pytest.MonkeyPatch.context() as patch, imposter_run.RELEASES.isolated():
        patch.setattr(imposter_run, "Imposter", _StandInImposter)
        assert misses_of(imposter_run.RELEASES, lambda: release_of(train)) == 1
        assert misses_of(imposter_run.RELEASES, lambda: release_of(train.copy())) == 0
        assert misses_of(imposter_run.RELEASES, lambda: release_of(other)) == 1
        assert misses_of(imposter_run.RELEASES, lambda: release_of(train, epochs=3)) == 1


@pytest.mark.parametrize(
    "change",
    [
        "swap_column_names",
        "int_to_float",
        "add_a_category",
        "relabel_the_index",
    ],
)
def test_imposter_releases_miss_on_a_changed_column_name_dtype_or_index(monkeypatch, change):
    monkeypatch.setattr(imposter_run, "Imposter", _StandInImposter)
    train = imposter_table()
    if change == "swap_column_names":
        other = train.rename(columns={"age": "hours", "hours": "age"})
    elif change == "int_to_float":
        other = train.astype({"age": np.float64})
    elif change == "add_a_category":
        other = train.assign(job=train["job"].cat.add_categories(["z"]))
    else:
        other = train.set_axis(np.arange(len(train)) + 100)
    with imposter_run.RELEASES.isolated():
        assert misses_of(imposter_run.RELEASES, lambda: release_of(train)) == 1
        assert misses_of(imposter_run.RELEASES, lambda: release_of(other)) == 1


def test_an_imposter_release_changed_by_its_caller_changes_nothing_later(monkeypatch):
    monkeypatch.setattr(imposter_run, "Imposter", _StandInImposter)
    train = imposter_table()
    with imposter_run.RELEASES.isolated():
        release, history = release_of(train)
        expected = release.copy()
        release.loc[0, "age"] = -1
        history.loc[0, "loss"] = 99.0
        again, history_again = release_of(train)
        pd.testing.assert_frame_equal(again, expected)
        assert history_again.loc[0, "loss"] == 0.0


# ------------------------------------------------------------------------------------------------
# experiments.hyobscure.SPLITS and POPULATIONS


def hy_population(clusters: bool = True) -> hydata.Population:
    rng = np.random.default_rng(3)
    X = rng.integers(1, 6, size=(12, 10)).astype(np.float64)
    y = rng.integers(20, 23, size=12).astype(np.int64)
    fixed = np.arange(12, dtype=np.int64) % 2 if clusters else None
    return hydata.Population("toy", X, y, "interval", "regression", "rmse", clusters=fixed)


def changed_population(data, pop: hydata.Population) -> hydata.Population:
    where = data.draw(st.sampled_from(["X", "y", "clusters"]))
    array = getattr(pop, where).copy()
    at = cell(data, array.shape)
    if where == "X":
        array[at] = other_value(data, array[at], 1, 9)
    elif where == "y":
        array[at] = other_value(data, array[at], 20, 24)
    else:
        array[at] = 1 - array[at]
    return dataclasses.replace(pop, **{where: array})


@PROPERTY
@given(data=st.data(), split_by=st.sampled_from(["cluster", "value"]))
def test_splits_miss_on_any_changed_rating_value_or_cluster(data, split_by):
    pop = hy_population()
    other = changed_population(data, pop)
    with hydata.SPLITS.isolated():
        split = lambda p: hydata.make_split(p, 0, 2, split_by=split_by)  # noqa: E731
        assert misses_of(hydata.SPLITS, lambda: split(pop)) == 1
        twin = dataclasses.replace(pop, X=pop.X.copy())
        assert misses_of(hydata.SPLITS, lambda: split(twin)) == 0
        assert misses_of(hydata.SPLITS, lambda: split(other)) == 1
        assert misses_of(hydata.SPLITS, lambda: hydata.make_split(pop, 1, 2)) == 1


def test_a_split_is_read_only_and_the_next_caller_gets_it_unchanged():
    pop = hy_population()
    with hydata.SPLITS.isolated():
        split = hydata.make_split(pop, 0, 2)
        fresh = hydata._make_split(pop, 0, 2, 0.8, 4, "cluster")
        for field in dataclasses.fields(split):
            array = getattr(split, field.name)
            with pytest.raises(ValueError, match="read-only"):
                array[0] = 99
        again = hydata.make_split(pop, 0, 2)
        for field in dataclasses.fields(split):
            assert np.array_equal(getattr(again, field.name), getattr(fresh, field.name))
    # the population's own clusters are the caller's: they stay writeable
    assert pop.clusters.flags.writeable


HIERARCHICAL = {"cluster_on": "hierarchical", "n_clusters": 2}


@PROPERTY
@given(data=st.data())
def test_populations_miss_on_any_changed_rating_or_value(data):
    pop = hy_population(clusters=False)
    where = data.draw(st.sampled_from(["X", "y"]))
    array = getattr(pop, where).copy()
    at = cell(data, array.shape)
    array[at] = other_value(data, array[at], 1, 9) if where == "X" else array[at] + 1
    other = dataclasses.replace(pop, **{where: array})
    with hydata.POPULATIONS.isolated():
        prepared = lambda p: hydata.protocol_population(p, HIERARCHICAL, 0)  # noqa: E731
        assert misses_of(hydata.POPULATIONS, lambda: prepared(pop)) == 1
        twin = dataclasses.replace(pop, y=pop.y.copy())
        assert misses_of(hydata.POPULATIONS, lambda: prepared(twin)) == 0
        assert misses_of(hydata.POPULATIONS, lambda: prepared(other)) == 1
        drop = {**HIERARCHICAL, "drop_cluster": 1}
        assert misses_of(hydata.POPULATIONS, lambda: hydata.protocol_population(pop, drop)) == 1


def test_a_prepared_population_is_read_only():
    pop = hy_population(clusters=False)
    with hydata.POPULATIONS.isolated():
        prepared = hydata.protocol_population(pop, HIERARCHICAL, 0)
        for array in (prepared.X, prepared.y, prepared.clusters):
            with pytest.raises(ValueError, match="read-only"):
                array[0] = 0
    assert pop.X.flags.writeable


# ------------------------------------------------------------------------------------------------
# attacks.suite.FITTED_ATTACKERS


class _StandInAttacker:
    def fit(self, x, y):
        self.x_, self.y_ = x, y
        return self


@PROPERTY
@given(data=st.data())
def test_fitted_attackers_miss_on_any_changed_training_element(data):
    rng = np.random.default_rng(1)
    x = rng.integers(0, 5, size=(10, 3)).astype(np.float64)
    codes = rng.integers(0, 2, size=10)
    where = data.draw(st.sampled_from(["x", "codes"]))
    x2, codes2 = x.copy(), codes.copy()
    if where == "x":
        at = cell(data, x.shape)
        x2[at] = other_value(data, x2[at], 0, 9)
    else:
        i = data.draw(st.integers(0, codes.size - 1))
        codes2[i] = 1 - codes2[i]
    memo = suite.FITTED_ATTACKERS
    with pytest.MonkeyPatch.context() as patch, memo.isolated():
        patch.setattr(suite, "_attacker", lambda model, seed, n_estimators: _StandInAttacker())
        assert misses_of(memo, lambda: suite._fitted_attacker("rf", 0, 10, x, codes)) == 1
        assert misses_of(memo, lambda: suite._fitted_attacker("rf", 0, 10, x.copy(), codes)) == 0
        assert misses_of(memo, lambda: suite._fitted_attacker("rf", 0, 10, x2, codes2)) == 1
        for args in (("lr", 0, 10), ("rf", 1, 10), ("rf", 0, 11)):
            assert misses_of(memo, lambda a=args: suite._fitted_attacker(*a, x, codes)) == 1
