"""The Snakemake + papermill pipeline: dry runs of every profile, a real smoke run in a temporary
folder, clean failure, and byte-for-byte determinism of a notebook's tidy results."""

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
import yaml

import shared_smoke_run as shared_smoke
from ppdp import kernels
from ppdp.experiments.common import DERIVED_EXPERIMENTS, read_results, tidy_frame

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
# config/schema.yaml and config/claims.schema.yaml are schemas, not profiles
PROFILES = sorted(
    p.stem for p in (ROOT / "config").glob("*.yaml") if not p.name.endswith("schema.yaml")
)

pytestmark = pytest.mark.slow


def _snakemake(*args, cwd=ROOT, check=True, env=None):
    cmd = [str(BIN / "snakemake"), "--snakefile", str(ROOT / "Snakefile"), *args]
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        env=shared_smoke.snakemake_environment(env),
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if check and proc.returncode != 0:
        pytest.fail(
            f"snakemake {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return proc


def test_profiles_exist():
    assert {"smoke", "default", "paper"} <= set(PROFILES)
    configs = {p: yaml.safe_load((ROOT / "config" / f"{p}.yaml").read_text()) for p in PROFILES}
    # every profile runs the same experiments, only at another scale, except a deciding profile,
    # which reruns those of the claims it decides (tests/test_deciding_profile.py)
    runs = [tuple(sorted(c["runs"])) for c in configs.values() if "decides" not in c]
    assert len(set(runs)) == 1 and len(runs) >= 3


@pytest.mark.parametrize("profile", PROFILES)
def test_dry_run(profile, tmp_path):
    from ppdp.report.deciding import kernel_comparison_problems

    config = yaml.safe_load((ROOT / "config" / f"{profile}.yaml").read_text())
    capped = dict(os.environ)
    kernels.apply(capped)  # as the Snakefile does before its checks
    # a deciding profile that compares kernels needs a machine whose kernels the caps change
    cannot_compare = kernel_comparison_problems(config, capped)
    proc = _snakemake(
        "-n",
        "--cores",
        "2",
        "--configfile",
        str(ROOT / "config" / f"{profile}.yaml"),
        "--directory",
        str(tmp_path),
        check=not cannot_compare,
    )
    if cannot_compare:
        output = proc.stdout + proc.stderr
        assert proc.returncode != 0 and "decides.compare_kernels" in output, output[-3000:]
        assert not (tmp_path / "results").exists()
        return
    assert "notebook" in proc.stdout and "report" in proc.stdout
    for run in (config.get("decides") or {}).get("compare_kernels", []):
        assert f"results/{profile}-other-kernels/{run}.csv" in proc.stdout
    # only the default profile refreshes the committed report and the figures it shows
    assert ("publish_report" in proc.stdout) is (profile == "default")
    assert ("output: reports/reproduction.md, reports/figures" in proc.stdout) is (
        profile == "default"
    )


def test_a_run_on_several_cores_starts_before_pairs_of_one_core_runs(tmp_path):
    """Snakemake starts the set of jobs with the largest sum of priorities that fits the cores;
    the Snakefile gives each run the priority of ppdp.report.costs.priorities (the one the cost
    table's makespan reads), so the default profile's two-core benchmark outranks any two
    one-core runs and starts first."""
    from ppdp.report.costs import priorities

    config = yaml.safe_load((ROOT / "config" / "default.yaml").read_text())
    runs = config["runs"]
    proc = _snakemake(
        "-n",
        "--cores",
        "2",
        "--configfile",
        str(ROOT / "config" / "default.yaml"),
        "--directory",
        str(tmp_path),
    )
    priority = dict(re.findall(r"run=(\w+)\n\s+priority: ([\d.]+)", proc.stdout))
    assert set(priority) == set(runs)
    expected = priorities(
        {run: spec["cpu_minutes"] for run, spec in runs.items()},
        {run: spec.get("threads", 1) for run, spec in runs.items()},
    )
    for run in runs:
        assert float(priority[run]) == pytest.approx(expected[run]), run
    two_core = [r for r, s in runs.items() if s.get("threads", 1) == 2]
    one_core = sorted(float(priority[r]) for r, s in runs.items() if s.get("threads", 1) == 1)
    assert two_core and all(float(priority[r]) > sum(one_core[-2:]) for r in two_core)


def test_threads_reach_the_notebook_as_n_jobs(tmp_path):
    """A run that asks for threads gets the number Snakemake grants (capped by --cores) as n_jobs."""
    config = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    assert config["runs"]["hyobscure_movielens"]["threads"] > 2
    proc = _snakemake(
        "-n",
        "-p",
        "--cores",
        "2",
        "--configfile",
        str(ROOT / "config" / "paper.yaml"),
        "--directory",
        str(tmp_path),
        "results/paper/hyobscure_movielens.csv",
        "results/paper/mutual_cover.csv",
    )
    lines = [line for line in proc.stdout.splitlines() if "papermill" in line]
    hy = [line for line in lines if "hyobscure_movielens" in line]
    other = [line for line in lines if "mutual_cover" in line]
    assert hy and other
    assert '"n_jobs": 2' in hy[0]
    assert "n_jobs" not in other[0]


def test_slurm_profile_dry_run(tmp_path):
    proc = _snakemake(
        "-n",
        "--profile",
        str(ROOT / "profiles" / "slurm"),
        "--configfile",
        str(ROOT / "config" / "smoke.yaml"),
        "--directory",
        str(tmp_path),
    )
    assert "notebook" in proc.stdout
    # the paper profile's HyObscure runs get their 16 threads as SLURM CPUs and as n_jobs
    proc = _snakemake(
        "-n",
        "-p",
        "--profile",
        str(ROOT / "profiles" / "slurm"),
        "--configfile",
        str(ROOT / "config" / "paper.yaml"),
        "--directory",
        str(tmp_path),
        "results/paper/hyobscure_movielens.csv",
    )
    assert "cpus_per_task=16" in proc.stdout
    assert '"n_jobs": 16' in proc.stdout


def test_committed_notebooks_match_smoke_profile():
    """The committed notebooks are executed with their defaults, which must be the smoke profile's."""
    smoke = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["runs"]
    for run in smoke.values():
        nb = nbformat.read(ROOT / "notebooks" / f"{run['notebook']}.ipynb", as_version=4)
        cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(cells) == 1, run["notebook"]
        namespace = {}
        exec(cells[0].source, namespace)
        for key in ("profile", "seed", "results_csv", "figures_dir"):
            assert key in namespace, (run["notebook"], key)
        assert namespace["profile"] == "smoke"
        if sum(r["notebook"] == run["notebook"] for r in smoke.values()) == 1:
            for key, value in run.get("parameters", {}).items():
                assert namespace[key] == value, (run["notebook"], key, namespace[key], value)
        executed = [c for c in nb.cells if c.cell_type == "code"]
        assert all(c.get("execution_count") for c in executed), f"{run['notebook']} is not executed"
        # the kernel JupyterLab offers: another display name marks the notebook modified on open
        spec = nb.metadata.kernelspec
        assert (spec.name, spec.display_name) == ("python3", "Python 3 (ipykernel)"), spec
        # progress bars and warnings belong to a run's log, not to the committed notebook
        stderr = [o for c in executed for o in c.outputs if o.get("name") == "stderr"]
        assert not stderr, f"{run['notebook']} commits stderr (make notebooks drops it)"


def test_smoke_profile_end_to_end(smoke_run):
    tmp_path = smoke_run
    runs = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["runs"]
    for run in runs:
        assert (tmp_path / "results" / "smoke" / f"{run}.ipynb").exists()
        assert (tmp_path / "results" / "smoke" / f"{run}.csv").stat().st_size > 0
        assert list((tmp_path / "figures" / "smoke" / run).glob("*.png")), run
        assert not list((tmp_path / "results" / "smoke").glob("*.partial.ipynb"))
        # each run's environment and wall time, shown in the report's header
        provenance = json.loads(
            (tmp_path / "results" / "smoke" / "provenance" / f"{run}.json").read_text()
        )
        assert provenance["run"] == run and provenance["blas"], run
        assert (tmp_path / "results" / "smoke" / "benchmarks" / f"{run}.tsv").stat().st_size > 0
        _assert_claims_recompute(runs[run], tmp_path / "results" / "smoke" / f"{run}.csv")
    report = (tmp_path / "reports" / "smoke" / "reproduction.md").read_text()
    assert "profile `smoke`" in report
    assert "## Provenance" in report and "Runs without a recorded environment" not in report
    assert "## Benchmark" in report and "### adult" in report
    walls = next(line for line in report.splitlines() if line.startswith("Wall time per run:"))
    assert "unknown" not in walls and all(run in walls for run in runs)
    # the smoke report links the smoke figures; only the default profile publishes figures
    assert "(../../figures/smoke/" in report
    assert not (tmp_path / "reports" / "figures").exists()
    # nothing left to do: the outputs are complete and up to date
    proc = _snakemake(
        "-n",
        "--cores",
        "2",
        "--configfile",
        str(ROOT / "config" / "smoke.yaml"),
        "--directory",
        str(tmp_path),
    )
    assert "Nothing to be done" in proc.stdout + proc.stderr


def _other_kernels() -> tuple[str, dict[str, str]]:
    """An environment whose arithmetic differs from the tests' own (:func:`kernels.other_kernels`):
    the machine's own kernels when the tests' run has the Snakefile's caps, the caps when it has
    opted out, and, where no caps apply, one thread for every library."""
    return kernels.other_kernels(os.environ)


def test_verdicts_agree_across_kernels(smoke_run, tmp_path):
    """The smoke profile again under other CPU kernels: every claim gets the same verdict, unless
    claims.yaml marks it ``unstable`` with the evidence. Trained networks, k-means and Frank-Wolfe
    move in their last bits between kernels; a verdict must not.

    Only the runs that can compute other bits are run again (tests/kernel_reach.py): the kernels
    each library picks in the other environment are probed and compared with those the runs
    recorded; when only PyTorch's differ, the runs whose notebooks cannot import PyTorch compute
    the same bits, and their results are copied. So are the results of runs no claim reads (the
    benchmark's): they give no verdict. Every claim is judged on both sides."""
    from kernel_reach import runs_to_rerun
    from ppdp.kernels import differing_families, environment_record
    from ppdp.report import evaluate, load_claims, verdict_differences

    setting, env = _other_kernels()
    runs = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["runs"]
    claims = load_claims(ROOT / "claims.yaml")
    judged = {claim.run for claim in claims}
    assert judged <= set(runs), sorted(judged - set(runs))
    results = smoke_run / "results" / "smoke"
    recorded = {
        run: json.loads((results / "provenance" / f"{run}.json").read_text()) for run in runs
    }
    # every smoke run computes on one thread, the number Snakemake gives a job that asks for none
    assert not any("threads" in spec for spec in runs.values())
    probed = environment_record(env, threads=1)
    rerun, reason = runs_to_rerun(recorded, probed, runs, judged=judged)
    print(f"under {setting}: {reason}")
    other = tmp_path
    (other / "results" / "smoke").mkdir(parents=True)
    for run in set(runs) - set(rerun):
        shutil.copy(results / f"{run}.csv", other / "results" / "smoke" / f"{run}.csv")
    if rerun:  # without targets Snakemake would make every run
        _snakemake(
            "--cores",
            "2",
            "--configfile",
            str(ROOT / "config" / "smoke.yaml"),
            "--directory",
            str(other),
            *(f"results/smoke/{run}.csv" for run in rerun),
            env=env,
        )
    # the probe saw the kernels the runs got
    for run in rerun:
        record = json.loads(
            (other / "results" / "smoke" / "provenance" / f"{run}.json").read_text()
        )
        assert not differing_families(probed, record), (run, probed, record)
    ours = evaluate(claims, smoke_run / "results" / "smoke", runs=list(runs), complete=True)
    theirs = evaluate(claims, other / "results" / "smoke", runs=list(runs), complete=True)
    differ = verdict_differences(ours, theirs)
    # a claim the smoke scale cannot decide alike on every kernel is named, with its measurement,
    # in its run's `kernel_sensitive`; the default profile's verdicts are compared in the report
    sensitive = {cid for run in runs.values() for cid in run.get("kernel_sensitive", {})}
    run_of = {claim.id: claim.run for claim in claims}
    for name, run in runs.items():
        for cid in run.get("kernel_sensitive", {}):
            assert run_of.get(cid) == name, f"smoke.yaml: {cid} is not a claim of run {name}"
    unexplained = differ[(differ["cause"] != "unstable") & ~differ["id"].isin(sensitive)]
    assert unexplained.empty, f"verdicts differ under {setting}:\n{unexplained.to_string()}"


def _assert_claims_recompute(run: dict, csv: Path) -> None:
    """Every paper's ``claims(results, **context)`` gives back, from the written results alone,
    the claims its notebook wrote. The CSV keeps 10 digits; a claim built on differences of
    near-equal values (HyObscure's percent changes) loses up to three of them, hence ``rtol``."""
    notebook = run["notebook"]
    module = importlib.import_module(
        f"ppdp.experiments.{'datasets_overview' if notebook == 'datasets' else notebook}.claims"
    )
    context = {k: v for k, v in run.get("parameters", {}).items() if k in ("dataset", "protocol")}
    frame = read_results(csv)
    derived = frame["experiment"].isin(DERIVED_EXPERIMENTS)
    again = module.claims(frame[~derived].reset_index(drop=True), **context)
    # the claims rows carry the parameter columns of the whole run (missing), again only its own:
    # both are compared on the columns they fill
    numbers = ["value", "ci_low", "ci_high"]
    written, again = (tidy_frame(f).dropna(axis=1, how="all") for f in (frame[derived], again))
    keys = [c for c in written.columns if c not in numbers]
    assert keys == [c for c in again.columns if c not in numbers], csv.name
    pd.testing.assert_frame_equal(again[keys], written[keys], obj=csv.name)
    for col in numbers:
        np.testing.assert_allclose(
            again.get(col, pd.Series(np.nan, index=again.index)).to_numpy(float),
            written.get(col, pd.Series(np.nan, index=written.index)).to_numpy(float),
            rtol=1e-6,
            atol=1e-12,
            err_msg=f"{csv.name}: {col}",
        )


def test_failed_notebook_leaves_no_complete_outputs(tmp_path):
    """A notebook that fails while it runs (its parameters are valid and its data files are in the
    mirror, so the Snakefile's checks let it start; the mirror's bytes are damaged) leaves only its
    log and partial notebook."""
    from ppdp.datasets.registry import DATASETS

    broken = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    broken["profile"] = "broken"
    config = tmp_path / "broken.yaml"
    config.write_text(yaml.safe_dump(broken))
    work = tmp_path / "work"
    mirror = tmp_path / "damaged-mirror"
    for dataset in DATASETS.values():
        for file in dataset.files:
            (src,) = [s for s in file.sources if s.kind == "mirror"]
            (mirror / src.subdir).mkdir(parents=True, exist_ok=True)
            (mirror / src.subdir / file.name).write_bytes(b"damaged\n")
    env = {
        **os.environ,
        "PPDP_DATA_DIR": str(tmp_path / "empty-cache"),
        "PPDP_DATA_MIRROR": str(mirror),
        "PPDP_OFFLINE": "1",
    }
    proc = _snakemake(
        "--cores",
        "1",
        "--configfile",
        str(config),
        "--directory",
        str(work),
        "results/broken/datasets.csv",
        check=False,
        env=env,
    )
    assert proc.returncode != 0
    out = work / "results" / "broken"
    assert not (out / "datasets.csv").exists()
    assert not (out / "datasets.ipynb").exists()
    assert not (work / "figures" / "broken" / "datasets").exists()
    assert not (work / "reports" / "broken" / "reproduction.md").exists()
    assert not (out / "provenance" / "datasets.json").exists()
    log = (out / "logs" / "datasets.log").read_text()
    assert "sha256 mismatch" in log and "PPDP_DATA_MIRROR" in log


def test_same_seed_same_bytes(smoke_run, tmp_path):
    """A notebook run by papermill by hand writes, with the same seed, byte-identical tidy results
    and figures to those of the same notebook run by the pipeline (the smoke run's ``datasets``)."""
    csv = tmp_path / "datasets.csv"
    params = {"seed": 0, "results_csv": str(csv), "figures_dir": str(tmp_path / "figs")}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "papermill",
            "--no-progress-bar",
            str(ROOT / "notebooks" / "datasets.ipynb"),
            str(tmp_path / "out.ipynb"),
            "-y",
            json.dumps(params),
        ],
        check=True,
        capture_output=True,
        timeout=600,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    pipeline = smoke_run / "results" / "smoke" / "datasets.csv"
    assert csv.read_bytes() == pipeline.read_bytes()
    assert len(csv.read_bytes()) > 100
    figures = sorted((tmp_path / "figs").glob("*.png"))
    assert figures
    pipeline_figures = smoke_run / "figures" / "smoke" / "datasets"
    assert [p.name for p in figures] == sorted(p.name for p in pipeline_figures.glob("*.png"))
    for png in figures:
        assert png.read_bytes() == (pipeline_figures / png.name).read_bytes(), png.name
