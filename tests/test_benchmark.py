"""The cross-paper benchmark: registry, releases, workload, Pareto frontier, leaderboard, report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.experiments import benchmark as bm
from ppdp.experiments import benchmark_registry as reg
from ppdp.experiments.common import tidy_frame, tidy_rows

N_ROWS = 500


@pytest.fixture(scope="module")
def small():
    """Both datasets at 500 rows, split with seed 0."""
    out = {}
    for name in bm.DATASETS:
        data = bm.load_dataset(name, N_ROWS)
        out[name] = (data, *bm.split(data, 0))
    return out


@pytest.fixture(scope="module")
def strongest():
    """The benchmark at each mechanism's strongest level on both datasets (two seeds of 2,000
    rows: on fewer, the age attacker's AUC on MovieLens varies by more than HyObscure lowers it)."""
    bm.configure(imposter_epochs=1)
    try:
        return bm.run_benchmark(
            n_rows={d: 2000 for d in bm.DATASETS},
            seeds=[0, 1],
            max_levels=1,
            n_queries=30,
            n_estimators=50,
            anonymeter=False,
        )
    finally:
        bm.configure()


def test_roles_name_columns_of_the_tables(small):
    for data, train, test in small.values():
        roles = data.roles
        expected = [*roles["quasi_identifiers"], *roles["private"], roles["task"]]
        assert list(data.table.columns) == expected
        assert set(roles["numeric"]) <= set(expected)
        assert len(train) + len(test) == N_ROWS
        # the split is stratified on the protected attribute
        share = data.table[data.protected].value_counts(normalize=True)
        share_train = train[data.protected].value_counts(normalize=True)
        assert np.allclose(share.sort_index(), share_train.sort_index(), atol=0.01)


@pytest.mark.parametrize("name", sorted(bm.REGISTRY))
def test_every_registered_mechanism_releases_the_input_columns(small, name):
    entry = bm.REGISTRY[name]
    ran = 0
    for dataset, (data, train, _) in small.items():
        levels = entry.levels.get(dataset)
        if not levels:
            assert entry.not_applicable.get(dataset), f"{name} on {dataset}: no level and no reason"
            continue
        # IMPOSTER at one epoch: the test is about the release's shape, not its quality
        release = reg._imposter(epochs=1, hidden=16) if name == "imposter" else entry.release
        released, native = release(data, train, levels[-1], np.random.default_rng(0))
        assert isinstance(released, pd.DataFrame)
        assert list(released.columns) == list(train.columns)
        # the check every benchmark release passes: a record-keeping one keeps the index
        bm._check_release(name, train, released, entry.keeps_records)
        assert all(np.isfinite(v) for v in native.values())
        # every released cell can be read over the original domain
        bm._attack_release(data, released, np.random.default_rng(1))
        ran += 1
    assert ran >= 1


def test_unprotected_table_leaks_more_than_every_protected_one(strongest):
    """Attacker AUC (XGBoost, Scenario I) on the attribute each mechanism protects."""
    frame = tidy_frame(strongest)
    for dataset in bm.DATASETS:
        sub = frame[frame["experiment"] == f"benchmark_{dataset}"]
        protected = bm.load_roles()[dataset]["private"][0]
        for method in sorted(set(sub["method"]) - {"none"}):
            attr = bm.REGISTRY[method].protects or protected
            metric = f"{attr}:xgb_I_auc"
            ref = sub[(sub["method"] == "none") & (sub["metric"] == metric)]["value"].mean()
            val = sub[(sub["method"] == method) & (sub["metric"] == metric)]["value"].mean()
            print(f"{dataset}/{method}: {attr} AUC {val:.3f}, unprotected {ref:.3f}")
            assert val < ref, f"{dataset}/{method}: AUC {val:.3f} not below unprotected {ref:.3f}"


def test_strongest_run_has_every_applicable_mechanism(strongest):
    for dataset in bm.DATASETS:
        methods = set(strongest.loc[strongest["experiment"] == f"benchmark_{dataset}", "method"])
        expected = {n for n, e in bm.REGISTRY.items() if e.levels.get(dataset)}
        assert methods == expected


def test_workload_is_the_same_for_every_mechanism(small, monkeypatch):
    data, train, _ = small["adult"]
    a = bm.benchmark_workload(data, train, 3, 40)
    b = bm.benchmark_workload(data, train, 3, 40)
    assert a == b and len(a) == 40
    assert bm.benchmark_workload(data, train, 4, 40) != a
    # run_benchmark draws it once per dataset and seed and hands the same list to every release
    seen = []
    real = bm.evaluate_release

    def spy(*args, **kwargs):
        seen.append(kwargs["queries"])
        return real(*args, **kwargs)

    monkeypatch.setattr(bm, "evaluate_release", spy)
    bm.run_benchmark(
        ["adult"],
        n_rows={"adult": 300},
        mechanisms=["none", "krr", "mondrian"],
        max_levels=1,
        n_queries=20,
        n_estimators=5,
        anonymeter=False,
    )
    assert len(seen) == 3
    assert all(q is seen[0] for q in seen)


def test_registry_rejects_bad_entries_and_runs_a_new_one():
    with pytest.raises(ValueError, match="registered already"):
        bm.register(bm.REGISTRY["krr"])
    with pytest.raises(TypeError, match="Entry"):
        bm.register("krr")
    with pytest.raises(ValueError, match="unknown datasets"):
        bm.register(bm.Entry("x", "", "k", {"census": (1,)}, reg._none))
    with pytest.raises(ValueError, match="not registered"):
        bm.run_benchmark(["adult"], mechanisms=["nope"])
    with pytest.raises(ValueError, match="datasets"):
        bm.run_benchmark(["census"])

    def identity(data, train, level, rng):
        return train.copy(), {"level": float(level)}

    bm.register(bm.Entry("identity_test", "test", "level", {"adult": (1,)}, identity))
    try:
        out = bm.run_benchmark(
            ["adult"],
            n_rows={"adult": 300},
            mechanisms=["identity_test"],
            n_queries=10,
            n_estimators=5,
            anonymeter=False,
        )
        assert set(out["method"]) == {"identity_test"}
        # an identity release answers the workload exactly and keeps every record linkable
        wide = out.set_index("metric")["value"]
        assert wide["query_error"] == 0.0
        assert wide["native_level"] == 1.0
    finally:
        del bm.REGISTRY["identity_test"]


def test_a_release_with_other_columns_is_refused():
    train = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    with pytest.raises(ValueError, match="differ"):
        bm._check_release("m", train, train[["b", "a"]], True)
    with pytest.raises(ValueError, match="keeps records"):
        bm._check_release("m", train, train.iloc[:1], True)


def test_scenario_two_attacker_knows_only_people_outside_the_release(small, monkeypatch):
    """The benchmark's Scenario II trains on held-out real records and is scored on the released
    rows: no target is among its training rows, for a record-keeping release."""
    import ppdp.attacks.suite as suite

    seen = []
    original = suite.attribute_inference

    def spy(real_train, real_test, released, **kwargs):
        seen.append((real_train.index, released.index, kwargs.get("released_truth")))
        return original(real_train, real_test, released, **kwargs)

    monkeypatch.setattr(suite, "attribute_inference", spy)
    data, train, test = small["adult"]
    queries = bm.benchmark_workload(data, train, 0, 5)
    bm.evaluate_release(
        data,
        train,
        test,
        train.copy(),
        keeps_records=True,
        queries=queries,
        seed=0,
        n_estimators=5,
        anonymeter=False,
    )
    assert seen
    for aux, targets, truth in seen:
        assert truth is not None
        assert aux.intersection(targets).empty
        assert targets.equals(train.index)


def test_a_record_keeping_release_must_keep_the_index_row_for_row():
    """The real table with its rows shuffled would publish every record unprotected and score as
    near-perfect privacy under row-paired attacks: refused."""
    train = pd.DataFrame({"a": range(6), "b": list("xyzxyz")}, index=[10, 11, 12, 13, 14, 15])
    shuffled = train.sample(frac=1.0, random_state=1)
    with pytest.raises(ValueError, match="keep the input's index row for row"):
        bm._check_release("m", train, shuffled, True)
    with pytest.raises(ValueError, match="index"):
        bm._check_release("m", train, train.reset_index(drop=True), True)
    bm._check_release("m", train, train.copy(), True)
    # synthetic data keeps no records: any index
    bm._check_release("m", train, shuffled.reset_index(drop=True), False)


def test_a_release_that_returns_a_bare_frame_names_the_entry():
    with pytest.raises(TypeError, match=r"Entry 'm': release must return \(released DataFrame"):
        bm._unpack_release("m", pd.DataFrame({"a": [1]}))
    with pytest.raises(TypeError, match="a tuple of 3"):
        bm._unpack_release("m", (pd.DataFrame(), {}, 1))
    released, native = bm._unpack_release("m", (pd.DataFrame({"a": [1]}), {"x": 1.0}))
    assert list(released.columns) == ["a"]
    assert native == {"x": 1.0}


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
    front = bm.pareto_front(points, utility)
    sign = 1 if utility == "task_auc" else -1
    expected = points.loc[sorted(_brute_front(points, sign))]
    got = sorted(map(tuple, front[["risk", "utility"]].to_numpy()))
    assert got == sorted(map(tuple, expected[["risk", "utility"]].to_numpy()))


def _toy_results():
    rows = []
    for seed in (0, 1, 2):
        for method, level, risk, util in (
            ("none", 0, 0.80, 0.90),
            ("a", 1, 0.72, 0.88),
            ("a", 2, 0.58, 0.80),
            ("b", 1, 0.65, 0.85),
            ("b", 2, 0.55, 0.70),
        ):
            rows += tidy_rows(
                "benchmark_adult",
                method,
                {"sex:xgb_I_auc": risk + 0.01 * seed, "task_auc": util - 0.01 * seed, "seconds": 1},
                parameters={"level": level},
                seed=seed,
            )
    return tidy_frame(rows)


def test_leaderboard_picks_the_best_utility_under_each_threshold():
    board = bm.leaderboard(_toy_results(), "adult", thresholds=(0.6, 0.7)).set_index("mechanism")
    # b at level 1 (risk 0.66 on average) qualifies at 0.7 only; a's private level at both
    assert board.loc["b", "risk<=0.7"].startswith("0.840")
    assert board.loc["b", "risk<=0.6"].startswith("0.690")
    assert board.loc["a", "risk<=0.6"].startswith("0.790")
    assert board.loc["none", "risk<=0.6"] == ""
    points = bm.plane_points(_toy_results(), "adult")
    a2 = points[(points["method"] == "a") & (points["level"] == 2)].iloc[0]
    # t interval over three seeds of (0.58, 0.59, 0.60): sd 0.01, t(0.975, 2) = 4.303
    assert a2["risk"] == pytest.approx(0.59)
    assert a2["risk_hw"] == pytest.approx(4.302653 * 0.01 / np.sqrt(3), rel=1e-5)


def test_report_shows_the_benchmark_section(tmp_path):
    from ppdp import report

    results = tmp_path / "results"
    results.mkdir()
    _toy_results().to_csv(results / "benchmark.csv", index=False)
    lines = report.render_benchmark(results, figures_dir=tmp_path / "figs", base=tmp_path)
    text = "\n".join(lines)
    assert "## Benchmark" in text and "### adult" in text
    assert "plane_adult" in text
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
        bm.configure(imposter_epochs=0)
