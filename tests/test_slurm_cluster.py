"""The smoke profile on a real SLURM cluster through profiles/slurm: every notebook run is a SLURM
job (sacct's records of the run), and the results equal a local smoke run's apart from wall-clock
metrics.

The cluster is whatever ``sinfo`` reaches: the single-node one of ``cluster/start`` (as root,
profiles/slurm/README.md) or a real one. Without one the test is skipped, unless
PPDP_REQUIRE_SLURM=1 (``make test-cluster``, CI), which turns the skip into a failure. The site
layer of the profile (account, partition) is profiles/slurm-local, or the profile folder that
PPDP_SLURM_SITE_PROFILE names.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
import yaml

from ppdp.experiments.common import read_results

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SLURM_PROFILE = ROOT / "profiles" / "slurm"
SITE_PROFILE = Path(os.environ.get("PPDP_SLURM_SITE_PROFILE", ROOT / "profiles" / "slurm-local"))
SMOKE = ROOT / "config" / "smoke.yaml"
REQUIRED = os.environ.get("PPDP_REQUIRE_SLURM") == "1"
#: where cluster/start keeps the cluster's configuration (PPDP_SLURM_DIR)
STATE = Path(os.environ.get("PPDP_SLURM_DIR") or Path(tempfile.gettempdir()) / "ppdp-slurm")
#: a node that can take jobs
READY = ("idle", "mixed", "allocated", "completing")


def _slurm_env() -> dict[str, str]:
    """This environment, pointed at cluster/start's configuration (SLURM_CONF) unless it names
    another cluster's already."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    ours = STATE / "etc" / "slurm.conf"
    if "SLURM_CONF" not in env and ours.exists():
        env["SLURM_CONF"] = str(ours)
    # the executor's job step drops SLURM_CONF before its srun: cluster/start's srun on PATH
    # points it at this cluster (profiles/slurm/README.md)
    wrapper = STATE / "bin" / "srun"
    if env.get("SLURM_CONF") == str(ours) and wrapper.exists():
        env["PATH"] = f"{wrapper.parent}{os.pathsep}{env['PATH']}"
    return env


def _run(cmd, env, timeout=60):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def _cluster_problem(env) -> str | None:
    """Why no SLURM cluster can run the pipeline here, or None when one can."""
    start = "start one with `cluster/start --install` as root (profiles/slurm/README.md)"
    missing = [
        c for c in ("sinfo", "sbatch", "sacct", "srun") if not shutil.which(c, path=env["PATH"])
    ]
    if missing:
        return f"no SLURM client commands ({', '.join(missing)} not found): {start}"
    try:
        proc = _run(["sinfo", "-h", "-o", "%a %T"], env, timeout=30)
    except subprocess.TimeoutExpired:
        return f"sinfo did not answer within 30 s: {start}"
    if proc.returncode != 0:
        return f"no SLURM cluster answers (sinfo: {proc.stderr.strip()[:300]}): {start}"
    nodes = [line.split() for line in proc.stdout.splitlines() if line.strip()]
    if not any(a == "up" and t.rstrip("*~#!%$@^-").startswith(READY) for a, t in nodes):
        return f"no SLURM node can take jobs (sinfo: {proc.stdout.strip()[:300]})"
    # Snakemake's SLURM executor asks sacct for its jobs' states
    try:
        proc = _run(["sacct", "-n", "-X", "-S", "now-1minutes"], env, timeout=30)
    except subprocess.TimeoutExpired:
        return "sacct did not answer within 30 s (slurmdbd down?)"
    if proc.returncode != 0 or "disabled" in proc.stderr:
        return f"SLURM accounting does not answer (sacct: {proc.stderr.strip()[:300]})"
    return None


@pytest.fixture(scope="module")
def slurm_env():
    env = _slurm_env()
    problem = _cluster_problem(env)
    if problem:
        if REQUIRED:
            pytest.fail(f"PPDP_REQUIRE_SLURM=1 but {problem}")
        pytest.skip(problem)
    return env


def _profile(folder: Path) -> dict:
    return yaml.safe_load((folder / "config.yaml").read_text())


def test_site_profile_keeps_the_slurm_profile_defaults():
    """A later --profile replaces whole top-level keys: the site layer repeats profiles/slurm's
    default resources, with only the account and the partition its own."""
    site = ROOT / "profiles" / "slurm-local"
    ours, theirs = _profile(SLURM_PROFILE), _profile(site)
    assert ours["executor"] == "slurm"
    site_keys = ("slurm_account", "slurm_partition")
    assert {k: v for k, v in theirs["default-resources"].items() if k not in site_keys} == {
        k: v for k, v in ours["default-resources"].items() if k not in site_keys
    }
    assert all(theirs["default-resources"].get(k) for k in site_keys)
    # nothing else of profiles/slurm is overridden
    assert not (set(theirs) - {"default-resources"}) & set(ours)


def _wall_clock_claims() -> set[str]:
    """The claims computed from run times (claims.yaml states them as times)."""
    claims = yaml.safe_load((ROOT / "claims.yaml").read_text())
    claims = claims["claims"] if isinstance(claims, dict) else claims
    return {c["id"] for c in claims if re.search(r"\btime\b", c.get("statement", ""), re.I)}


def _wall_clock(metric: pd.Series, claims: set[str]) -> pd.Series:
    """Rows whose value is a wall-clock measurement: metrics in seconds (``seconds``,
    ``seconds_total``, ...) and the claims derived from them, with their context rows."""
    derived = metric.isin(claims) | metric.str.startswith(tuple(f"{c}." for c in claims))
    return metric.str.contains("seconds") | derived


def _files(folder: Path) -> set[str]:
    return {
        str(p.relative_to(folder))
        for top in ("results", "figures", "reports")
        for p in (folder / top).rglob("*")
        if p.is_file()
    }


def _submissions(log: str) -> dict[str, tuple[str, str]]:
    """SLURM job id -> the rule and the wildcards of the Snakemake job it ran, from Snakemake's log
    ("rule notebook:", "    jobid: 5", "    wildcards: ...", "Job 5 has been submitted with SLURM
    jobid 12 ...")."""
    jobs, rule, job = {}, None, None
    for line in log.splitlines():
        if m := re.match(r"(?:local)?rule (\w+):$", line):
            rule, job = m.group(1), None
        elif rule and (m := re.match(r"\s+jobid: (\d+)$", line)):
            job = m.group(1)
            jobs[job] = (rule, "")
        elif job and (m := re.match(r"\s+wildcards: (.*)$", line)):
            jobs[job] = (rule, m.group(1))
    submitted = re.findall(r"^Job (\d+) has been submitted with SLURM jobid (\d+)", log, re.M)
    return {slurm: jobs.get(job, ("?", "")) for job, slurm in submitted}


@pytest.mark.slow
def test_smoke_profile_on_slurm_equals_local_run(slurm_env, smoke_run, tmp_path):
    runs = list(yaml.safe_load(SMOKE.read_text())["runs"])

    # the SLURM run: profiles/slurm, then the site's account and partition
    work = tmp_path / "slurm"
    work.mkdir()
    prefix = f"ppdp-test-{uuid.uuid4().hex[:8]}"
    since = (datetime.now() - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S")
    cmd = [
        str(BIN / "snakemake"),
        "--snakefile",
        str(ROOT / "Snakefile"),
        "--profile",
        str(SLURM_PROFILE),
        "--profile",
        str(SITE_PROFILE),
        "--configfile",
        str(SMOKE),
        "--directory",
        str(work),
        # the job name of every SLURM job of the run starts with it
        "--slurm-jobname-prefix",
        prefix,
    ]
    started = time.monotonic()
    try:
        # the executor writes its SLURM logs under the working directory's .snakemake/
        proc = subprocess.run(
            cmd, cwd=work, env=slurm_env, capture_output=True, text=True, timeout=3600
        )
    finally:
        _cancel(prefix, slurm_env)
    slurm_seconds = time.monotonic() - started
    log = proc.stdout + proc.stderr
    (tmp_path / "slurm-run.log").write_text(log)
    assert proc.returncode == 0, f"the SLURM run failed:\n{log[-3000:]}{_job_logs(work)}"

    # every job Snakemake launched is a SLURM job of this run, COMPLETED, in sacct's records
    submitted = _submissions(log)
    records = _sacct(prefix, since, slurm_env)
    assert set(records) == set(submitted), (sorted(records), sorted(submitted))
    failed = {
        j: r for j, r in records.items() if r["State"] != "COMPLETED" or r["ExitCode"] != "0:0"
    }
    assert not failed, failed
    notebooks = sorted(w for rule, w in submitted.values() if rule == "notebook")
    assert notebooks == sorted(f"profile=smoke, run={run}" for run in runs), notebooks
    assert sorted(rule for rule, _ in submitted.values()) == ["notebook"] * len(runs) + ["report"]
    # the executor's comment names the rule and wildcards (sacct keeps it: AccountingStoreFlags)
    comments = [r["Comment"] for r in records.values() if r["Comment"]]
    if comments:
        for run in runs:
            assert sum(c.endswith(f"_smoke_{run}") for c in comments) == 1, (run, comments)

    # the same profile run locally (the shared smoke run, or one made here): the same files, and
    # the same results but for wall clocks
    local = smoke_run
    assert _files(work) == _files(local)
    claims = _wall_clock_claims()
    masked = 0
    for run in runs:
        ours = read_results(work / "results" / "smoke" / f"{run}.csv")
        theirs = read_results(local / "results" / "smoke" / f"{run}.csv")
        clocks = _wall_clock(ours["metric"], claims)
        assert clocks.equals(_wall_clock(theirs["metric"], claims)), run
        masked += int(clocks.sum())
        ours.loc[clocks, "value"] = theirs.loc[clocks, "value"] = float("nan")
        pd.testing.assert_frame_equal(
            ours, theirs, check_exact=True, obj=f"results/smoke/{run}.csv"
        )
    jobs = ", ".join(f"{j} {records[j]['State']}" for j in sorted(records, key=int))
    print(
        f"\nSLURM smoke run: {slurm_seconds:.0f} s, {len(records)} SLURM jobs ({jobs}); "
        f"compared with the local smoke run; {masked} wall-clock rows not compared"
    )


def _job_logs(work: Path, lines: int = 12) -> str:
    """The ends of the run's SLURM job logs and notebook logs: why a job failed, which Snakemake's
    own log does not say ("SLURM status is: 'FAILED'. Reason: Unknown")."""
    logs = sorted((work / ".snakemake" / "slurm_logs").rglob("*.log"))
    logs += sorted((work / "results").glob("*/logs/*.log"))
    parts = []
    for path in logs[:20]:
        tail = path.read_text(errors="replace").splitlines()[-lines:]
        parts.append(f"\n--- {path.relative_to(work)}\n" + "\n".join(tail))
    return "".join(parts)


def _sacct(prefix: str, since: str, env) -> dict[str, dict[str, str]]:
    """sacct's records (allocations, not steps) of the jobs whose names start with ``prefix``."""
    fields = ["JobIDRaw", "JobName", "State", "ExitCode", "Comment", "Elapsed", "NodeList"]
    proc = _run(
        ["sacct", "-X", "-P", "-n", "-S", since, "-o", ",".join(f"{f}%200" for f in fields)],
        env,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [dict(zip(fields, line.split("|"), strict=True)) for line in proc.stdout.splitlines()]
    return {r["JobIDRaw"]: r for r in rows if r["JobName"].startswith(f"{prefix}_")}


def _cancel(prefix: str, env) -> None:
    """Cancel the run's jobs that are still queued or running (after a timeout, say)."""
    proc = _run(["squeue", "-h", "-o", "%i %j"], env)
    ids = [
        i
        for i, _, name in (line.partition(" ") for line in proc.stdout.splitlines())
        if name.startswith(f"{prefix}_")
    ]
    if ids:
        _run(["scancel", *ids], env)
