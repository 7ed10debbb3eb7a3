"""The cross-paper benchmark: registry, releases, workload, Pareto frontier, leaderboard, report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.cells import cell_membership
from ppdp.experiments import benchmark as bm
from ppdp.experiments.benchmark import attacks as ba
from ppdp.experiments.benchmark import registry as reg
from ppdp.experiments.common import tidy_frame, tidy_rows

N_ROWS = 500


@pytest.fixture(scope="module")
def small():
    """Both datasets at 500 rows, split with seed 0: (data, train, parts)."""
    out = {}
    for name in bm.data.DATASETS:
        data = bm.data.load_dataset(name, N_ROWS)
        parts = bm.data.split(data, 0)
        out[name] = (data, parts.train, parts)
    return out


@pytest.fixture(scope="module")
def strongest():
    """The benchmark at each mechanism's strongest level on both datasets (two seeds of 2,000
    rows: on fewer, the age attacker's AUC on MovieLens varies by more than HyObscure lowers it)."""
    bm.registry.configure(imposter_epochs=1)
    try:
        return bm.run.run_benchmark(
            n_rows={d: 2000 for d in bm.data.DATASETS},
            seeds=[0, 1],
            max_levels=1,
            n_queries=30,
            n_estimators=50,
            anonymeter=False,
            membership_shadows=0,
        )
    finally:
        bm.registry.configure()


def test_roles_name_columns_of_the_tables(small):
    for data, train, parts in small.values():
        roles = data.roles
        expected = [*roles["quasi_identifiers"], *roles["private"], roles["task"]]
        assert list(data.table.columns) == expected
        assert set(roles["numeric"]) <= set(expected)
        # released people, the attacker's auxiliary records and the controls: disjoint, all rows
        assert len(train) + len(parts.aux) + len(parts.control) == N_ROWS
        assert len(train) == len(parts.aux)
        labels = [set(train.index), set(parts.aux.index), set(parts.control.index)]
        assert not (labels[0] & labels[1] or labels[0] & labels[2] or labels[1] & labels[2])
        assert set(parts.test.index) == labels[1] | labels[2]
        # the split is stratified on the protected attribute
        share = data.table[data.protected].value_counts(normalize=True)
        share_train = train[data.protected].value_counts(normalize=True)
        assert np.allclose(share.sort_index(), share_train.sort_index(), atol=0.01)


@pytest.mark.parametrize("name", sorted(bm.registry.REGISTRY))
def test_every_registered_mechanism_releases_the_input_columns(small, name):
    entry = bm.registry.REGISTRY[name]
    ran = 0
    for dataset, (data, train, _) in small.items():
        levels = entry.levels.get(dataset)
        if not levels:
            assert entry.not_applicable.get(dataset), f"{name} on {dataset}: no level and no reason"
            continue
        # IMPOSTER at one epoch: the test is about the release's shape, not its quality
        release = reg._imposter(epochs=1, hidden=16) if name == "imposter" else entry.release
        result = release(data, train, levels[-1], np.random.default_rng(0))
        released, native, _ = bm.run._unpack_release(name, result)
        assert isinstance(released, pd.DataFrame)
        assert list(released.columns) == list(train.columns)
        # the check every benchmark release passes: a record-keeping one keeps the index
        bm.run._check_release(name, train, released, entry.keeps_records)
        assert all(np.isfinite(v) for v in native.values())
        # every released cell can be read over the original domain
        for column in released.columns:
            cell_membership(released[column], data.domains[column])
        ran += 1
    assert ran >= 1


def test_unprotected_table_leaks_more_than_every_protected_one(strongest):
    """The risk (the worst attacker's AUC advantage over no release) on the attribute each
    mechanism protects."""
    frame = tidy_frame(strongest)
    for dataset in bm.data.DATASETS:
        sub = frame[frame["experiment"] == f"benchmark_{dataset}"]
        protected = bm.data.load_roles()[dataset]["private"][0]
        for method in sorted(set(sub["method"]) - {"none"}):
            attr = bm.registry.REGISTRY[method].protects or protected
            risk = sub[(sub["metric"] == "risk") & (sub["attribute"] == attr)]
            ref = risk[risk["method"] == "none"]["value"].mean()
            val = risk[risk["method"] == method]["value"].mean()
            print(f"{dataset}/{method}: {attr} risk {val:.3f}, unprotected {ref:.3f}")
            assert val < ref, f"{dataset}/{method}: risk {val:.3f} not below unprotected {ref:.3f}"


def test_suppressing_the_private_column_cannot_beat_the_unprotected_utility(strongest):
    """Utility that sees the private column: the unprotected table reproduces every marginal and
    count exactly; the table without its private columns cannot."""
    frame = tidy_frame(strongest)
    for dataset in bm.data.DATASETS:
        sub = frame[frame["experiment"] == f"benchmark_{dataset}"]
        mean = sub.groupby(["method", "metric"])["value"].mean()
        for metric in ("marginal_tv_1", "marginal_tv_2", "query_error_mean"):
            assert mean[("none", metric)] == 0.0
            assert mean[("suppressed", metric)] > 0.0, (dataset, metric)
        # and nothing released is the floor: a task model that sees nothing is at chance
        assert mean[("nothing", "task_auc")] == 0.5
        assert mean[("nothing", "marginal_tv_1")] > mean[("suppressed", "marginal_tv_1")]


def test_strongest_run_has_every_applicable_mechanism(strongest):
    for dataset in bm.data.DATASETS:
        methods = set(strongest.loc[strongest["experiment"] == f"benchmark_{dataset}", "method"])
        expected = {n for n, e in bm.registry.REGISTRY.items() if e.levels.get(dataset)}
        assert methods == expected


def test_metric_names_spell_no_facet(strongest):
    """What a metric is of is a facet column: the attacked private attribute of a targeted
    attacker's metrics, the column of ``changed``; names hold no ``<attribute>:``."""
    assert not strongest["metric"].str.contains(":").any()
    # anonymeter did not run: no statistic facet
    assert "statistic" not in strongest.columns
    for dataset in bm.data.DATASETS:
        sub = strongest[strongest["experiment"] == f"benchmark_{dataset}"]
        roles = bm.data.load_roles()[dataset]
        risk = sub[sub["metric"] == "risk"]
        assert set(risk["attribute"]) == set(roles["private"])
        # one risk per private attribute and release
        assert not risk.duplicated(["method", "level", "seed", "attribute"]).any()
        changed = sub[sub["metric"] == "changed"]
        assert set(changed["attribute"]) == set(roles["quasi_identifiers"]) | set(roles["private"])
        assert sub.loc[sub["metric"].isin(["task_auc", "seconds"]), "attribute"].isna().all()
        # coverage reads the changed columns: the unprotected table changes none of them
        coverage = bm.claims.coverage_table(strongest).set_index(["dataset", "mechanism"])[
            "untouched"
        ]
        for method in set(changed["method"]) - set(bm.claims.REFERENCES):
            most = changed[changed["method"] == method].groupby("attribute")["value"].max()
            assert coverage[(dataset, method)] == ", ".join(most.index[most == 0.0])


def test_release_rows_split_names_into_metrics_and_facets():
    metrics = {
        "sex:risk": 0.1,
        "sex:xgb_I_auc": 0.7,
        "changed:age": 0.5,
        "sex:anonymeter_inference_risk": 0.03,
        "sex:anonymeter_inference_ci_low": 0.01,
        "sex:anonymeter_inference_ci_high": 0.05,
        "sex:anonymeter_inference_attack_rate": 0.4,
        "anonymeter_linkability_risk": 0.2,
        "anonymeter_linkability_ci_low": 0.1,
        "anonymeter_linkability_ci_high": 0.3,
        "task_auc": 0.8,
    }
    rows = tidy_frame(bm.run.release_rows("benchmark_adult", "m", metrics, level=2.0, seed=1))
    assert len(rows) == len(metrics) - 4  # the interval bounds are no rows of their own
    got = {
        (r.metric, r.attribute, r.statistic): (r.value, r.ci_low, r.ci_high)
        for r in rows.astype(object).where(rows.notna(), None).itertuples()
    }
    assert got[("risk", "sex", None)] == (0.1, None, None)
    assert got[("xgb_I_auc", "sex", None)] == (0.7, None, None)
    assert got[("changed", "age", None)] == (0.5, None, None)
    assert got[("anonymeter_inference", "sex", "risk")] == (0.03, 0.01, 0.05)
    assert got[("anonymeter_inference", "sex", "attack_rate")] == (0.4, None, None)
    assert got[("anonymeter_linkability", None, "risk")] == (0.2, 0.1, 0.3)
    assert got[("task_auc", None, None)] == (0.8, None, None)
    assert set(rows["level"]) == {2.0} and set(rows["seed"]) == {1}
    with pytest.raises(ValueError, match="without their risk"):
        bm.run.release_rows("b", "m", {"anonymeter_linkability_ci_low": 0.1}, level=1, seed=0)


def test_every_mechanism_aware_attacker_is_stated_and_scored(strongest):
    """Each Entry's mechanism-aware attacker exists, has a threat model, and scores the
    attribute the mechanism protects on every run of that mechanism."""
    frame = tidy_frame(strongest)
    stated = bm.data.load_threat_models()
    aware = {n: e for n, e in bm.registry.REGISTRY.items() if e.aware is not None}
    assert {"krr", "mutual_cover", "hyobscure", "privcheck", "dp_obf", "relay_tda"} <= set(aware)
    for name, entry in aware.items():
        assert entry.aware in ba.AWARE_ATTACKERS and entry.aware in stated, name
        for dataset in entry.levels:
            attr = entry.protects or bm.data.load_roles()[dataset]["private"][0]
            rows = frame[
                (frame["experiment"] == f"benchmark_{dataset}") & (frame["method"] == name)
            ]
            scored = rows[(rows["metric"] == f"{entry.aware}_auc") & (rows["attribute"] == attr)]
            scored = scored["value"]
            assert len(scored) == 2 and np.isfinite(scored).all(), (name, dataset)


def test_workload_is_the_same_for_every_mechanism(small, monkeypatch):
    data, train, _ = small["adult"]
    a = bm.run.benchmark_workload(data, train, 3, 40)
    # the workload constrains every column, the private ones and the task included
    assert {c for q in a for c in q.columns} == set(data.columns)
    b = bm.run.benchmark_workload(data, train, 3, 40)
    assert a == b and len(a) == 40
    assert bm.run.benchmark_workload(data, train, 4, 40) != a
    # run_benchmark draws it once per dataset and seed and hands the same list to every release
    seen = []
    real = bm.run.evaluate_release

    def spy(*args, **kwargs):
        seen.append(kwargs["queries"])
        return real(*args, **kwargs)

    monkeypatch.setattr(bm.run, "evaluate_release", spy)
    bm.run.run_benchmark(
        ["adult"],
        n_rows={"adult": 300},
        mechanisms=["none", "krr", "mondrian"],
        max_levels=1,
        n_queries=20,
        n_estimators=5,
        anonymeter=False,
        membership_shadows=0,
    )
    assert len(seen) == 3
    assert all(q is seen[0] for q in seen)


def test_registry_rejects_bad_entries_and_runs_a_new_one():
    with pytest.raises(ValueError, match="registered already"):
        bm.registry.register(bm.registry.REGISTRY["krr"])
    with pytest.raises(TypeError, match="Entry"):
        bm.registry.register("krr")
    with pytest.raises(ValueError, match="unknown datasets"):
        bm.registry.register(bm.registry.Entry("x", "", "k", {"census": (1,)}, reg._none))
    with pytest.raises(ValueError, match="not registered"):
        bm.run.run_benchmark(["adult"], mechanisms=["nope"])
    with pytest.raises(ValueError, match="datasets"):
        bm.run.run_benchmark(["census"])

    def identity(data, train, level, random_state):
        return train.copy(), {"level": float(level)}

    bm.registry.register(
        bm.registry.Entry("identity_test", "test", "level", {"adult": (1,)}, identity)
    )
    try:
        out = bm.run.run_benchmark(
            ["adult"],
            n_rows={"adult": 300},
            mechanisms=["identity_test"],
            n_queries=10,
            n_estimators=5,
            anonymeter=False,
            membership_shadows=1,
        )
        assert set(out["method"]) == {"identity_test"}
        # an identity release answers the workload exactly and keeps every record linkable
        wide = out.set_index("metric")["value"]
        assert wide["query_error"] == 0.0
        assert wide["native_level"] == 1.0
    finally:
        del bm.registry.REGISTRY["identity_test"]


def test_a_release_with_other_columns_is_refused():
    train = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    with pytest.raises(ValueError, match="differ"):
        bm.run._check_release("m", train, train[["b", "a"]], True)
    with pytest.raises(ValueError, match="keeps records"):
        bm.run._check_release("m", train, train.iloc[:1], True)


def test_no_target_is_among_the_attackers_auxiliary_rows(small, monkeypatch):
    """The no-release baseline and Scenario II train on auxiliary records of other people; the
    targets are released people, the controls people in neither."""
    import ppdp.attacks.suite as suite
    from ppdp.experiments.benchmark import attacks as ba

    data, train, parts = small["adult"]
    trained_on = []
    original = suite.learned_posteriors

    def spy(model, x_train, y_train, x_tests, values, **kwargs):
        trained_on.append(np.asarray(x_train).shape[0])
        return original(model, x_train, y_train, x_tests, values, **kwargs)

    monkeypatch.setattr(suite, "learned_posteriors", spy)
    ctx = ba.attack_context(data, parts, "sex", seed=0, n_estimators=5)
    assert set(ctx.targets.index) <= set(train.index)
    assert ctx.targets.index.intersection(parts.aux.index).empty
    assert ctx.controls.index.intersection(parts.aux.index).empty
    assert ctx.controls.index.equals(parts.control.index)
    assert trained_on == [len(parts.aux)] * 2  # both baseline models, on aux only
    metrics = ba.targeted_risks(
        ctx, data, train.copy(), keeps_records=True, random_state=np.random.default_rng(0)
    )
    # Scenario II reuses the baseline's model: trained on aux, applied to the targets' rows
    assert trained_on[-1] == len(parts.aux)
    # the worst advantage, without a floor at 0 (intervals over seeds come before any clamp)
    assert metrics["sex:risk"] == max(v for k, v in metrics.items() if k.endswith("_advantage"))
    # an auxiliary table that holds released people is refused
    leaky = bm.data.Split(train, pd.concat([parts.aux, train.iloc[:5]]), parts.control)
    with pytest.raises(ValueError, match="other people"):
        ba.attack_context(data, leaky, "sex", seed=0, n_estimators=5)


def test_krr_risk_rises_with_epsilon():
    """Targeted inference through k-RR's channel: the more the release keeps (larger epsilon),
    the larger the worst attacker's advantage."""
    out = bm.run.run_benchmark(
        ["adult"],
        n_rows={"adult": 3000},
        seeds=[0, 1],
        mechanisms=["krr"],
        n_queries=5,
        n_estimators=10,
        anonymeter=False,
        membership_shadows=0,
    )
    risk = bm.claims.plane_points(out, "adult").set_index("level")["risk"]
    print(risk.to_dict())
    assert risk.loc[4.0] > risk.loc[1.0] > risk.loc[0.1]
    assert risk.loc[4.0] - risk.loc[0.1] > 0.05


def test_splits_in_worker_processes_give_the_same_rows():
    """Two worker processes give the rows of one (release times aside), and a cap on the
    targets that does not bind changes nothing while one that binds caps both samples."""
    options = dict(
        datasets=["adult"],
        n_rows={"adult": 400},
        seeds=[0, 1],
        mechanisms=["none", "mst"],
        max_levels=1,
        n_queries=10,
        n_estimators=10,
        anonymeter=False,
        membership_shadows=1,
    )

    def without_times(frame):
        timed = frame["metric"].isin(["seconds", "evaluation_seconds"])
        return frame[~timed].reset_index(drop=True)

    one = bm.run.run_benchmark(n_jobs=1, n_targets=None, **options)
    two = bm.run.run_benchmark(n_jobs=2, n_targets=10_000, **options)
    assert (one.loc[one["metric"] == "evaluation_seconds", "value"] > 0).all()
    pd.testing.assert_frame_equal(without_times(one), without_times(two))
    assert sorted(set(one["seed"])) == [0, 1]
    with pytest.raises(ValueError, match="n_jobs must be a positive integer; got 0"):
        bm.run.run_benchmark(["adult"], mechanisms=["none"], n_jobs=0)
    data = bm.data.load_dataset("adult", 600)
    parts = bm.data.split(data, 0)
    ctx = ba.attack_context(data, parts, "sex", seed=0, n_estimators=5, n_targets=50)
    assert len(ctx.targets) == len(ctx.controls) == 50
    assert ctx.targets.index.isin(parts.train.index).all()
    assert ctx.controls.index.isin(parts.control.index).all()
    with pytest.raises(ValueError, match="n_targets must be an int >= 1 or None, got 0"):
        ba.attack_context(data, parts, "sex", seed=0, n_estimators=5, n_targets=0)


def test_a_record_keeping_release_must_keep_the_index_row_for_row():
    """The real table with its rows shuffled would publish every record unprotected and score as
    near-perfect privacy under row-paired attacks: refused."""
    train = pd.DataFrame({"a": range(6), "b": list("xyzxyz")}, index=[10, 11, 12, 13, 14, 15])
    shuffled = train.sample(frac=1.0, random_state=1)
    with pytest.raises(ValueError, match="keep the input's index row for row"):
        bm.run._check_release("m", train, shuffled, True)
    with pytest.raises(ValueError, match="index"):
        bm.run._check_release("m", train, train.reset_index(drop=True), True)
    bm.run._check_release("m", train, train.copy(), True)
    # synthetic data keeps no records: any index
    bm.run._check_release("m", train, shuffled.reset_index(drop=True), False)


def test_a_release_that_returns_a_bare_frame_names_the_entry():
    with pytest.raises(TypeError, match=r"Entry 'm': release must return \(released DataFrame"):
        bm.run._unpack_release("m", pd.DataFrame({"a": [1]}))
    with pytest.raises(TypeError, match="a tuple of 4"):
        bm.run._unpack_release("m", (pd.DataFrame(), {}, 1, 2))
    released, native, fitted = bm.run._unpack_release("m", (pd.DataFrame({"a": [1]}), {"x": 1.0}))
    assert list(released.columns) == ["a"]
    assert native == {"x": 1.0} and fitted is None
    # a third value is the fitted mechanism, for a mechanism-aware attacker
    assert bm.run._unpack_release("m", (pd.DataFrame(), {}, "mech"))[2] == "mech"


def _brute_front(points: pd.DataFrame, sign: int) -> set[int]:
    keep = set()
    for i, p in points.iterrows():
        dominated = False
        for j, q in points.iterrows():
            if i == j:
                continue
            no_worse = q["risk"] <= p["risk"] and sign * q["utility"] >= sign * p["utility"]
            better = q["risk"] < p["risk"] or sign * q["utility"] > sign * p["utility"]
            if no_worse and better:
                dominated = True
                break
        if not dominated:
            keep.add(i)
    return keep


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=12),
    st.sampled_from(["task_auc", "query_error"]),
)
def test_pareto_front_equals_brute_force(pairs, utility):
    points = pd.DataFrame(
        {"risk": [0.5 + a / 20 for a, _ in pairs], "utility": [0.5 + b / 20 for _, b in pairs]}
    )
    front = bm.claims.pareto_front(points, utility)
    sign = 1 if utility == "task_auc" else -1
    expected = points.loc[sorted(_brute_front(points, sign))]
    got = sorted(map(tuple, front[["risk", "utility"]].to_numpy()))
    assert got == sorted(map(tuple, expected[["risk", "utility"]].to_numpy()))


def _toy_results():
    rows = []
    for seed in (0, 1, 2):
        for method, level, risk, util in (
            ("none", 0, 0.20, 0.90),
            ("a", 1, 0.04, 0.88),
            ("a", 2, 0.00, 0.80),
            ("b", 1, 0.02, 0.85),
            ("b", 2, 0.005, 0.70),
        ):
            rows += tidy_rows(
                "benchmark_adult",
                method,
                {
                    "risk": risk + 0.005 * seed,
                    "xgb_I_advantage": risk + 0.005 * seed - 0.01,
                    "class_matching_advantage": risk + 0.005 * seed,
                },
                parameters={"level": level},
                seed=seed,
                facets={"attribute": "sex"},
            )
            rows += tidy_rows(
                "benchmark_adult",
                method,
                {"task_auc": util - 0.01 * seed, "seconds": 1},
                parameters={"level": level},
                seed=seed,
            )
    return tidy_frame(rows)


def test_plane_points_take_t_intervals_over_seeds():
    # t half-width over three seeds of (r, r + 0.005, r + 0.01): 4.303 * 0.005 / sqrt(3) = 0.0124
    hw = 4.302653 * 0.005 / np.sqrt(3)
    points = bm.claims.plane_points(_toy_results(), "adult", utility="task_auc")
    a2 = points[(points["method"] == "a") & (points["level"] == 2)].iloc[0]
    assert a2["risk"] == pytest.approx(0.005)
    assert a2["risk_hw"] == pytest.approx(hw, rel=1e-5)
    binding = bm.claims.binding_attackers(_toy_results(), "adult", "sex")
    assert binding.loc[("a", 2)] == "class_matching"
    # the table of every metric labels a metric of an attribute "<attribute>:<metric>"
    table = bm.claims.metric_table(_toy_results())
    assert list(table.columns) == [
        "sex:risk",
        "sex:xgb_I_advantage",
        "sex:class_matching_advantage",
        "task_auc",
    ]
    assert table.loc[("adult", "a", 2), "sex:risk"] == pytest.approx(0.005)


def test_report_shows_the_benchmark_section(tmp_path):
    from ppdp import report

    results = tmp_path / "results"
    results.mkdir()
    _toy_results().to_csv(results / "benchmark.csv", index=False)
    lines = report.render_benchmark(results, figures_dir=tmp_path / "figs", base=tmp_path)
    text = "\n".join(lines)
    assert "## Benchmark" in text and "### adult" in text
    assert "plane_adult" in text
    # the threat models, from the roles file
    for name in bm.data.load_threat_models():
        assert f"| {name} |" in text
    assert "| adult | a |" in text
    assert report.benchmark_figures(results) == ["plane_adult", "plane_adult_queries"]
    assert report.render_benchmark(tmp_path, figures_dir=None, base=tmp_path) == []


def test_report_accepts_the_benchmark_run_without_claims(tmp_path):
    from ppdp import report

    results = tmp_path / "results"
    results.mkdir()
    _toy_results().to_csv(results / "benchmark.csv", index=False)
    table = report.evaluate([], results, runs=["benchmark"], complete=True)
    assert table.empty


def test_relay_chain_of_one_hop_releases():
    from ppdp.mechanisms.relay import RelayChain

    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {"a": rng.integers(0, 9, 120).astype(float), "s": rng.choice(["x", "y"], 120)}
    )
    chain = RelayChain("tda", hops=1, delta=0.1, sensitive="s", quasi_identifiers=["a"]).fit(df)
    assert chain.release(hop=1).shape == df.shape
    with pytest.raises(ValueError, match="hop"):
        chain.release(hop=2)


def test_imposter_budget_is_checked():
    with pytest.raises(ValueError, match="imposter_epochs"):
        bm.registry.configure(imposter_epochs=0)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 12),
    share=st.floats(0.0, 1.0),
    q=st.floats(0.05, 0.95),
    prior=st.floats(0.02, 0.98),
)
def test_class_matching_with_a_prior_is_the_bayes_posterior_of_a_class(n, share, q, prior):
    """A target hides in a class of n released rows with n_f of value f; the n - 1 others come
    from a population with share q of f. Enumerating the others' counts gives the posterior that
    with_prior computes from the class share, the prior and q."""
    from math import comb

    from ppdp.experiments.benchmark.attacks import with_prior

    n_f = round(share * n)
    # P(class counts | target has f) and | target has m): the others' counts are binomial
    like_f = comb(n - 1, n_f - 1) * q ** (n_f - 1) * (1 - q) ** (n - n_f) if n_f >= 1 else 0.0
    like_m = comb(n - 1, n_f) * q**n_f * (1 - q) ** (n - 1 - n_f) if n_f <= n - 1 else 0.0
    exact = np.array([prior * like_f, (1 - prior) * like_m])
    exact /= exact.sum()
    got = with_prior(
        np.array([[n_f / n, 1 - n_f / n]]), np.array([[prior, 1 - prior]]), np.array([q, 1 - q])
    )
    np.testing.assert_allclose(got[0], exact, rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 6), st.sampled_from(["b", "a", "B", "a b", "é", "10", "9"])),
        min_size=1,
        max_size=40,
    ),
    as_string_dtype=st.booleans(),
    with_missing=st.booleans(),
)
def test_a_relay_release_names_each_class_value_set_as_one_class_at_a_time(
    rows, as_string_dtype, with_missing
):
    """The categorical cells of a relay release, all classes at once, equal those built class by
    class: the value itself, or the sorted set as "{a,b}" (a missing value takes the slow path)."""
    classes = pd.Series([c for c, _ in rows], index=np.arange(len(rows)) * 3)
    values = pd.Series([v for _, v in rows], index=classes.index, dtype=object)
    if with_missing:
        values.iloc[0] = None
    if as_string_dtype:
        values = values.astype("str")

    def one_class(v):
        return sorted(set(v))[0] if v.nunique() == 1 else "{" + ",".join(sorted(set(v))) + "}"

    if with_missing:
        try:
            expected = values.groupby(classes).agg(one_class)
        except TypeError:  # None or NaN beside strings: no order, in either path
            with pytest.raises(TypeError):
                reg._class_value_sets(values, classes)
            return
    else:
        expected = values.groupby(classes).agg(one_class)
    got = reg._class_value_sets(values, classes)
    assert list(got.index) == list(expected.index)
    assert list(got.to_numpy()) == list(expected.to_numpy())
