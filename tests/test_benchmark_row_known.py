"""The attacker told the target's row (``xgb_II``) reads all of it, its private cell included,
and is kept out of the risk of releases that publish every kept record's private values
unchanged (``Entry.private_unchanged``), a declaration checked here against the releases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdp.cells import cell_membership, design_matrix, table_domains
from ppdp.experiments import benchmark as bm
from ppdp.experiments.benchmark import attacks as ba
from ppdp.experiments.common import tidy_frame, tidy_rows


@pytest.fixture(scope="module")
def toy():
    """The doctests' toy table (40 people: age, zip, sex), split with seed 0: 16 released
    people, 16 auxiliary records, 8 controls; (data, parts, ctx)."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame(
        {
            "age": rng.integers(20, 70, 40),
            "zip": rng.choice(["a", "b", "c"], 40),
            "sex": rng.choice(["F", "M"], 40),
        }
    )
    roles = {"private": ["sex"], "quasi_identifiers": ["age", "zip"], "numeric": ["age"]}
    domains = table_domains(table, list(table.columns), numeric=["age"])
    data = bm.data.BenchmarkData("toy", table, roles, domains)
    parts = bm.data.split(data, 0)
    ctx = ba.attack_context(data, parts, "sex", seed=0, n_estimators=5)
    return data, parts, ctx


def _spy_own_cell(monkeypatch):
    """Record every (prior, cells, posterior) that ``targeted_risks`` combines for xgb_II."""
    calls = []
    real = ba.with_own_cell

    def spy(prior, cells):
        post = real(prior, cells)
        calls.append((np.array(prior), np.array(cells), post))
        return post

    monkeypatch.setattr(ba, "with_own_cell", spy)
    return calls


def _qi_only(ctx, data, released):
    """The former xgb_II: the no-release XGBoost on the target's released quasi-identifiers."""
    from ppdp.attacks.suite import learned_posteriors

    rows = design_matrix(released.loc[ctx.targets.index], data.domains, ctx.qi)
    (post,) = learned_posteriors(
        "xgb",
        ctx.x_aux,
        ctx.y_aux,
        [rows],
        ctx.values,
        random_state=ctx.seed,
        n_estimators=ctx.n_estimators,
    )
    return post


def _others(metrics):
    """The advantages of every attacker but those told the target's row."""
    readers = {f"sex:{name}_advantage" for name in ba.ROW_READERS}
    return [v for k, v in metrics.items() if k.endswith("_advantage") and k not in readers]


def test_xgb_ii_reads_the_unprotected_row_and_is_kept_out_of_its_risk(toy):
    data, parts, ctx = toy
    entry = bm.registry.REGISTRY["none"]
    assert entry.private_unchanged
    released, _ = entry.release(data, parts.train, 0, np.random.default_rng(0))
    metrics = ba.targeted_risks(
        ctx,
        data,
        released,
        keeps_records=True,
        private_unchanged=entry.private_unchanged,
        random_state=0,
    )
    assert metrics["sex:xgb_II_auc"] == 1.0
    assert metrics["sex:xgb_II_advantage"] == pytest.approx(1.0 - metrics["sex:baseline_auc"])
    assert metrics["sex:risk"] == max(_others(metrics))


def test_xgb_ii_is_excluded_where_it_alone_would_set_the_risk(toy):
    """Mondrian generalizes the quasi-identifiers and publishes the sex unchanged: told the row,
    xgb_II reads it (AUC 1) while the attackers that must find the target do worse; the risk is
    theirs, not xgb_II's, and the same release declared otherwise would count it."""
    data, parts, ctx = toy
    entry = bm.registry.REGISTRY["mondrian"]
    assert entry.private_unchanged
    released, _ = entry.release(data, parts.train, 4, np.random.default_rng(0))
    kwargs = {"keeps_records": True, "random_state": 0}
    excluded = ba.targeted_risks(ctx, data, released, private_unchanged=True, **kwargs)
    counted = ba.targeted_risks(ctx, data, released, private_unchanged=False, **kwargs)
    assert excluded["sex:xgb_II_auc"] == 1.0
    assert max(_others(excluded)) < excluded["sex:xgb_II_advantage"]
    assert excluded["sex:risk"] == max(_others(excluded))
    assert excluded["sex:risk"] < excluded["sex:xgb_II_advantage"]
    assert counted["sex:risk"] == counted["sex:xgb_II_advantage"]
    # every metric but the release's risks is the same: the declaration changes what counts,
    # not what is measured
    assert {k: v for k, v in excluded.items() if not k.startswith("sex:risk")} == {
        k: v for k, v in counted.items() if not k.startswith("sex:risk")
    }


def test_an_excluded_attacker_does_not_bind_the_risk():
    """The leaderboard names the attacker that sets the risk: never one left out of it."""
    rows = []
    for seed in (0, 1, 2):
        for method in ("mondrian", "krr"):
            rows += tidy_rows(
                "benchmark_adult",
                method,
                {
                    "risk": 0.01,
                    "xgb_II_advantage": 0.3,
                    "class_matching_advantage": 0.01,
                    "task_auc": 0.8,
                },
                parameters={"level": 1},
                seed=seed,
                facets={"attribute": "sex"},
            )
    binding = bm.claims.binding_attackers(tidy_frame(rows), "adult", "sex")
    assert binding.loc[("mondrian", 1)] == "class_matching"
    assert binding.loc[("krr", 1)] == "xgb_II"


def test_xgb_ii_reads_a_randomized_cell_at_its_word(toy, monkeypatch):
    """k-RR at epsilon 0.1 flips about half the sexes: xgb_II's posterior is no longer the
    QI-only one but the released value, prior times the cell's indicator, renormalized."""
    data, parts, ctx = toy
    entry = bm.registry.REGISTRY["krr"]
    assert not entry.private_unchanged
    released, _, _ = entry.release(data, parts.train, 0.1, np.random.default_rng(0))
    own = released.loc[ctx.targets.index, "sex"]
    assert (own != ctx.targets["sex"]).any()  # some targets' cells lie
    calls = _spy_own_cell(monkeypatch)
    metrics = ba.targeted_risks(ctx, data, released, keeps_records=True, random_state=0)
    ((prior, cells, post),) = calls
    qi_only = _qi_only(ctx, data, released)
    np.testing.assert_array_equal(prior, qi_only)
    np.testing.assert_array_equal(cells, cell_membership(own, data.domains["sex"]))
    assert not np.allclose(post, qi_only)
    values = list(ctx.values)
    for t in range(4):
        by_hand = np.array([qi_only[t, j] * (own.iloc[t] == s) for j, s in enumerate(values)])
        np.testing.assert_allclose(post[t], by_hand / by_hand.sum())
        assert post[t, values.index(own.iloc[t])] == 1.0
    assert metrics["sex:xgb_II_auc"] == ctx.scores(post, None)[0]
    assert metrics["sex:xgb_II_auc"] != ctx.scores(qi_only, None)[0]
    # k-RR does not publish the sex unchanged: xgb_II counts in its risk
    assert metrics["sex:risk"] == max(v for k, v in metrics.items() if k.endswith("_advantage"))


def test_xgb_ii_restricts_to_a_set_valued_cell():
    """A generalized private cell restricts the prior to its members, weighed by the prior:
    checked by hand on a three-valued attribute."""
    prior = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    cells = cell_membership(["{F,X}", "{M,X}", "F"], _three_valued_domain())
    post = ba.with_own_cell(prior, cells)
    np.testing.assert_allclose(post[0], [0.5 / 0.7, 0.0, 0.2 / 0.7])
    np.testing.assert_allclose(post[1], [0.0, 0.6 / 0.9, 0.3 / 0.9])
    np.testing.assert_allclose(post[2], [1.0, 0.0, 0.0])


def _three_valued_domain():
    frame = pd.DataFrame({"s": ["F", "M", "X"]})
    return table_domains(frame, ["s"])["s"]


def test_a_suppressed_private_column_leaves_the_baseline_posterior(toy, monkeypatch):
    data, parts, ctx = toy
    entry = bm.registry.REGISTRY["suppressed"]
    assert not entry.private_unchanged
    released, _ = entry.release(data, parts.train, 0, np.random.default_rng(0))
    calls = _spy_own_cell(monkeypatch)
    metrics = ba.targeted_risks(ctx, data, released, keeps_records=True, random_state=0)
    ((prior, _, post),) = calls
    baseline_xgb = ctx.baseline["xgb"][0]
    np.testing.assert_array_equal(prior, baseline_xgb)  # the released QIs are the true ones
    np.testing.assert_allclose(post, baseline_xgb, rtol=0, atol=1e-15)
    assert metrics["sex:xgb_II_auc"] == ctx.scores(*ctx.baseline["xgb"])[0]


@pytest.mark.parametrize("cell", ["X", "{}", "{F,X}"])
def test_a_private_cell_outside_the_domain_is_refused(toy, cell):
    data, parts, ctx = toy
    released = parts.train.copy()
    released.loc[ctx.targets.index[0], "sex"] = cell
    with pytest.raises(ValueError, match="sex"):
        ba.targeted_risks(ctx, data, released, keeps_records=True, random_state=0)


def test_with_own_cell_refuses_an_empty_cell_and_mismatched_shapes():
    prior = np.full((2, 2), 0.5)
    with pytest.raises(ValueError, match="row 1 covers no value"):
        ba.with_own_cell(prior, np.array([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="one shape"):
        ba.with_own_cell(prior, np.ones((2, 3)))


def test_private_unchanged_needs_records():
    def copy(data, train, level, random_state):
        return train.copy(), {}

    with pytest.raises(ValueError, match="private_unchanged=True needs keeps_records=True"):
        bm.registry.Entry(
            "x", "", "-", {"adult": (0,)}, copy, keeps_records=False, private_unchanged=True
        )


@pytest.fixture(scope="module")
def small():
    """Both benchmark datasets at 300 rows, split with seed 0: (data, train) by name."""
    out = {}
    for name in bm.data.DATASETS:
        data = bm.data.load_dataset(name, 300)
        out[name] = (data, bm.data.split(data, 0).train)
    return out


@pytest.mark.parametrize("name", sorted(bm.registry.REGISTRY))
def test_private_unchanged_matches_the_releases(small, name):
    """An entry declares ``private_unchanged`` iff, at its weakest and its strongest level on
    every dataset it applies to, every released private cell is the single true value of its
    row."""
    entry = bm.registry.REGISTRY[name]
    if not entry.keeps_records:
        assert not entry.private_unchanged, name
        return
    unchanged = []
    for dataset, (data, train) in small.items():
        levels = entry.levels.get(dataset)
        if not levels:
            continue
        for level in dict.fromkeys((levels[0], levels[-1])):
            result = entry.release(data, train, level, np.random.default_rng(0))
            released = bm.run._unpack_release(name, result)[0]
            for c in data.private:
                cells = cell_membership(released[c], data.domains[c])
                truth = cell_membership(train[c], data.domains[c])
                unchanged.append(bool(np.array_equal(cells, truth)))
    assert unchanged
    assert entry.private_unchanged == all(unchanged), (name, unchanged)
