"""The cost table of a profile's runs and the estimate of another profile's (ppdp.report.costs)."""

from __future__ import annotations

import csv
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ppdp.compendium.yamlfile import read_yaml
from ppdp.report import costs
from ppdp.report.cli import main

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

# wall s, max_rss MB, cpu_time s per run of the fixture
MEASURED = {"a": (100.0, 512.5, 300.0), "b": (50.0, 256.0, 120.0), "c": (40.0, 128.0, 180.0)}
RUNS = {run: {"notebook": "datasets"} for run in MEASURED}


def write_run(results: Path, run: str, wall: float, rss: float, cpu: float, commit="c0ffee" * 6):
    bench = results / "benchmarks" / f"{run}.tsv"
    bench.parent.mkdir(parents=True, exist_ok=True)
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time"
    bench.write_text(f"{header}\n{wall}\t0:00:00\t{rss}\t1\t1\t1\t0\t0\t50\t{cpu}\n")
    prov = results / "provenance" / f"{run}.json"
    prov.parent.mkdir(parents=True, exist_ok=True)
    record = {"git": {"commit": commit, "clean": True}, "cpu_model": "Test CPU", "cpu_count": 2}
    prov.write_text(json.dumps(record))


@pytest.fixture
def results(tmp_path):
    for run, values in MEASURED.items():
        write_run(tmp_path / "results", run, *values)
    return tmp_path / "results"


def brute_force_makespan(minutes: list[float], cores: int = 2) -> float:
    """The shortest makespan over every assignment of single-core runs to the cores."""
    best = float("inf")
    for assignment in itertools.product(range(cores), repeat=len(minutes)):
        loads = [0.0] * cores
        for core, m in zip(assignment, minutes, strict=True):
            loads[core] += m
        best = min(best, max(loads))
    return best


def test_table_holds_each_runs_measurements(results, tmp_path):
    rows = costs.cost_table(results, RUNS, "fixture")
    assert [r["run"] for r in rows] == list(MEASURED)
    for row in rows:
        wall, rss, cpu = MEASURED[row["run"]]
        assert row["wall_s"] == wall
        assert row["max_rss_mb"] == rss
        assert row["cpu_minutes"] == pytest.approx(cpu / 60)
        assert row["commit"] == "c0ffee" * 6 and row["cpu_model"] == "Test CPU"
    csv_path, md_path = tmp_path / "costs.csv", tmp_path / "costs.md"
    costs.write_cost_table(rows, csv_path, md_path)
    with open(csv_path, newline="") as handle:
        written = list(csv.DictReader(handle))
    assert tuple(written[0]) == costs.COLUMNS
    assert [float(r["cpu_minutes"]) for r in written] == pytest.approx([5.0, 2.0, 3.0])
    back = costs.read_cost_table(csv_path)
    assert [r["cpu_minutes"] for r in back] == pytest.approx([5.0, 2.0, 3.0])
    text = md_path.read_text()
    total = sum(cpu for _, _, cpu in MEASURED.values()) / 60
    assert f"| total | | {total:.1f} | |" in text
    # 5 on one core, 3 then 2 on the other: both end at 5 minutes
    assert "end after 5.0 minutes" in text
    assert "`c0ffeec0ff`" in text and "Test CPU (2 CPUs)" in text
    assert "| `a` | 1 min 40 s | 5.0 | 512 |" in text


@pytest.mark.parametrize(
    "minutes",
    [[5.0, 3.0, 2.0], [4.0, 4.0, 3.0, 3.0, 2.0], [7.0, 1.0, 1.0, 1.0], [3.0, 3.0, 2.0, 2.0, 2.0]],
)
def test_makespan_is_the_greedy_longest_first_schedule(minutes):
    runs = {f"r{i}": m for i, m in enumerate(minutes)}
    greedy = costs.makespan(runs)
    best = brute_force_makespan(minutes)
    # longest first is at most 7/6 of the best on two cores (Graham's bound), never below it
    assert best <= greedy <= best * 7 / 6 + 1e-12
    # and it is the simulation of that rule: each run starts on the core that frees first
    loads = [0.0, 0.0]
    for m in sorted(minutes, reverse=True):
        loads[loads.index(min(loads))] += m
    assert greedy == pytest.approx(max(loads))


def test_makespan_of_tiny_case_equals_brute_force():
    minutes = [5.0, 3.0, 2.0]
    assert costs.makespan(dict(zip("abc", minutes, strict=True))) == brute_force_makespan(minutes)


def test_makespan_gives_threaded_runs_both_cores():
    # a 2-thread run of 8 CPU minutes takes both cores for 4 minutes, then the others run
    span = costs.makespan({"wide": 8.0, "x": 2.0, "y": 2.0}, threads={"wide": 16})
    assert span == pytest.approx(6.0)


def test_runs_on_several_cores_start_first_and_end_sooner():
    """The Snakefile's priorities start a two-core run before one-core runs it would lose to by
    CPU minutes alone: it takes both cores for 15 minutes, then the one-core runs share them
    (55 minutes); started by CPU minutes it would wait for the 40-minute run, alone (65)."""
    minutes, threads = {"a": 40.0, "wide": 30.0, "b": 10.0, "c": 10.0}, {"wide": 2}
    order = costs.priorities(minutes, threads)
    assert max(order, key=order.get) == "wide"
    assert order["wide"] > order["a"] + order["b"]  # it outranks any pair of one-core runs
    assert [r for r in sorted(order, key=order.get, reverse=True) if r != "wide"] == ["a", "b", "c"]
    assert costs.makespan(minutes, 2, threads) == pytest.approx(55.0)
    assert costs.makespan(minutes, 2, threads, priority=minutes) == pytest.approx(65.0)


def test_the_cost_table_schedules_threaded_runs_on_their_cores(results):
    rows = costs.cost_table(results, RUNS, "fixture")  # 5, 2 and 3 CPU minutes
    assert "would end after 5.0 minutes" in costs.render_costs(rows)
    # run a on both cores: 2.5 minutes, then b and c side by side: 3
    assert "would end after 5.5 minutes" in costs.render_costs(rows, {"a": 2})


def test_missing_tsv_is_refused(results):
    (results / "benchmarks" / "b.tsv").unlink()
    with pytest.raises(ValueError, match=r"missing .*benchmarks/b\.tsv"):
        costs.cost_table(results, RUNS, "fixture")


def test_mixed_commits_are_refused(results):
    write_run(results, "c", *MEASURED["c"], commit="beef" * 10)
    with pytest.raises(ValueError, match=r"2 commits.*one table measures one commit"):
        costs.cost_table(results, RUNS, "fixture")


def test_costs_command_writes_both_files_and_refuses_a_missing_run(results, tmp_path, capsys):
    config = tmp_path / "fixture.yaml"
    config.write_text(
        "profile: fixture\nruns:\n" + "".join(f"  {r}: {{notebook: datasets}}\n" for r in RUNS)
    )
    out_csv, out_md = tmp_path / "out" / "costs.csv", tmp_path / "out" / "costs.md"
    args = ["costs", "--config", str(config), "--results", str(results)]
    assert main([*args, "--csv", str(out_csv), "--markdown", str(out_md)]) == 0
    assert len(costs.read_cost_table(out_csv)) == 3 and "| total |" in out_md.read_text()
    (results / "provenance" / "a.json").unlink()
    assert main([*args, "--csv", str(tmp_path / "other.csv")]) == 1
    assert "provenance/a.json" in capsys.readouterr().err
    assert not (tmp_path / "other.csv").exists()


def test_a_deciding_profiles_reruns_under_other_kernels_are_rows_of_their_own(tmp_path):
    """A deciding profile that runs ``a`` again under other kernels: its table has a row for the
    rerun, named apart, and refuses reruns of another commit."""
    for run, values in MEASURED.items():
        write_run(tmp_path / "results" / "fixture", run, *values)
    write_run(tmp_path / "results" / "fixture-other-kernels", "a", 90.0, 500.0, 240.0)
    config = tmp_path / "fixture.yaml"
    config.write_text(
        "profile: fixture\ndecides: {profile: p, claims: [x], differs_in: [y], "
        "compare_kernels: [a]}\nruns:\n" + "".join(f"  {r}: {{notebook: datasets}}\n" for r in RUNS)
    )
    csv_path = tmp_path / "costs.csv"
    args = ["costs", "--config", str(config), "--results", str(tmp_path / "results" / "fixture")]
    assert main([*args, "--csv", str(csv_path)]) == 0
    rows = costs.read_cost_table(csv_path)
    assert [(r["profile"], r["run"]) for r in rows] == [
        ("fixture", "a"),
        ("fixture", "b"),
        ("fixture", "c"),
        ("fixture", "a-other-kernels"),
    ]
    assert rows[-1]["cpu_minutes"] == pytest.approx(4.0)
    write_run(tmp_path / "results" / "fixture-other-kernels", "a", 90.0, 500.0, 240.0, "beef" * 10)
    assert main([*args, "--csv", str(tmp_path / "other.csv")]) == 1
    assert not (tmp_path / "other.csv").exists()


def default_runs():
    return read_yaml(ROOT / "config" / "default.yaml")["runs"]


def measured_rows(runs, profile="default"):
    return [
        {
            "profile": profile,
            "run": run,
            "notebook": spec["notebook"],
            "wall_s": 60.0 * (i + 1),
            "cpu_minutes": float(i + 1),
            "max_rss_mb": 100.0,
            "commit": "abc",
            "clean": True,
            "cpu_model": "Test CPU",
            "cpu_count": 2,
        }
        for i, (run, spec) in enumerate(runs.items())
    ]


def test_default_estimated_from_itself_is_its_measurement():
    runs = default_runs()
    estimates = costs.estimate_costs(runs, measured_rows(runs), runs, NOTEBOOKS)
    assert [e["factor"] for e in estimates] == [1.0] * len(runs)
    assert [e["minutes"] for e in estimates] == [float(i + 1) for i in range(len(runs))]


@pytest.mark.parametrize(
    "run, seeds_key",
    [("imposter", "n_seeds"), ("hyobscure_movielens", "n_seeds"), ("relay_chains", "n_seeds")],
)
def test_doubled_seeds_double_the_estimate(run, seeds_key):
    runs = default_runs()
    target = {run: {**runs[run], "parameters": dict(runs[run]["parameters"])}}
    target[run]["parameters"][seeds_key] *= 2
    (estimate,) = costs.estimate_costs(target, measured_rows(runs), runs, NOTEBOOKS)
    assert estimate["factor"] == pytest.approx(2.0)
    assert estimate["minutes"] == pytest.approx(2 * estimate["measured_minutes"])


def test_benchmark_seeds_are_a_list():
    runs = default_runs()
    target = {
        "benchmark": {**runs["benchmark"], "parameters": dict(runs["benchmark"]["parameters"])}
    }
    target["benchmark"]["parameters"]["seeds"] = list(range(10))
    (estimate,) = costs.estimate_costs(target, measured_rows(runs), runs, NOTEBOOKS)
    assert estimate["factor"] == pytest.approx(2.0)


def test_a_profile_leaving_a_parameter_unset_gets_the_notebooks_default():
    runs = default_runs()
    spec = {"notebook": "imposter", "parameters": {}}
    got = costs.run_parameters(spec, NOTEBOOKS)
    assert got == costs.notebook_defaults("imposter", NOTEBOOKS)
    factors = costs.work("imposter", got)
    assert factors["seeds"] == got["n_seeds"] and factors["epochs"] == got["epochs"]
    assert costs.work("imposter", costs.run_parameters(runs["imposter"], NOTEBOOKS))["rows"] == (
        costs.ADULT_ROWS
    )


def test_every_notebook_has_a_work_model():
    notebooks = {spec["notebook"] for spec in default_runs().values()}
    assert notebooks == set(costs.WORK_FACTORS)
    for factors in costs.WORK_FACTORS.values():
        assert all(f.why for f in factors)


def test_a_run_without_measurement_is_refused():
    runs = default_runs()
    rows = [r for r in measured_rows(runs) if r["run"] != "sppm"]
    with pytest.raises(ValueError, match=r"\['sppm'\] have no measurement"):
        costs.estimate_costs(runs, rows, runs, NOTEBOOKS)


def test_cost_command_prints_every_paper_run(tmp_path):
    runs = default_runs()
    measured = tmp_path / "costs.csv"
    costs.write_cost_table(measured_rows(runs), measured)
    command = [sys.executable, "-m", "ppdp.report", "cost", "--config", "config/paper.yaml"]
    done = subprocess.run(
        [*command, "--measured", str(measured)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    paper = read_yaml(ROOT / "config" / "paper.yaml")["runs"]
    table = {line.split()[0]: line.split()[1:] for line in lines[2 : 2 + len(paper)]}
    assert list(table) == list(paper)
    for minutes, factor, estimate in table.values():
        assert float(estimate) == pytest.approx(float(minutes) * float(factor), rel=0.01, abs=0.06)
    # the datasets run is the same at both profiles
    assert table["datasets"][1] == "1"
    total = float(lines[2 + len(paper)].split()[1])
    assert total == pytest.approx(sum(float(v[2]) for v in table.values()), abs=0.1 * len(paper))
    assert lines[-1].startswith("makespan on 2 cores")
