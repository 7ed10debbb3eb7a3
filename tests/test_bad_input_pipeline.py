"""Bad input to the pipeline and the report: a truncated, incomplete or misspelt profile stops
Snakemake before any job runs, with a message naming the key; a truncated or inconsistent claims
file, a wrong results folder or unreadable results stop the report with a message naming the claim
and the file. Also: a deleted run is rerun and the report rebuilt; an interrupted run recovers by
itself."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from ppdp.experiments.common import tidy_rows, write_results
from ppdp.report import build_report, evaluate, load_claims, main
from ppdp.report.profiles import check_profile

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SMOKE = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
DEFAULT_TEXT = (ROOT / "config" / "default.yaml").read_text()


def _snakemake(*args, cwd=ROOT, timeout=600):
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    cmd = [str(BIN / "snakemake"), "--snakefile", str(ROOT / "Snakefile"), *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _config(tmp_path, text):
    path = tmp_path / "profile.yaml"
    path.write_text(text)
    return ["--configfile", str(path)]


def _truncated(text):
    cut = text.index("  mutual_cover:")
    return text[: cut + 120]


def _smoke_with(**changes):
    config = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    for path, value in changes.items():
        *keys, last = path.split("__")
        node = config
        for key in keys:
            node = node[key]
        node[last] = value
    return yaml.safe_dump(config)


# ---- profiles: each case is (config text or None, the key the message must name) ---------------
BAD_CONFIGS = {
    "no configfile": (None, r"--configfile"),
    "truncated inside mutual_cover": (_truncated(DEFAULT_TEXT), r"'imposter' is a required"),
    "no profile key": (
        DEFAULT_TEXT.replace("profile: default\n", ""),
        r"'profile' is a required",
    ),
    "misspelt parameter": (
        DEFAULT_TEXT.replace("bins: 10", "bin: 10"),
        r"run 'datasets': unknown parameters \['bin'\]",
    ),
    "unknown top-level key": (DEFAULT_TEXT + "seeds: 3\n", r"'seeds' was unexpected"),
    "unknown run-level key": (
        _smoke_with(runs__datasets__thread=2),
        r"'thread' was unexpected",
    ),
    "unknown notebook": (
        _smoke_with(runs__datasets__notebook="dataset"),
        r"'dataset' is not one of",
    ),
    "parameter set by the pipeline": (
        _smoke_with(runs__datasets__parameters={"results_csv": "x.csv"}),
        r"unknown parameters \['results_csv'\]",
    ),
    "threads not an integer": (_smoke_with(runs__imposter__threads="two"), r"'two' is not of type"),
    "parameter value out of range": (
        _smoke_with(runs__relay_chains__parameters__hops=0),
        r"run 'relay_chains': parameter hops: 0 is less than the minimum of 1",
    ),
}


@pytest.mark.parametrize("case", [case for case, (text, _) in BAD_CONFIGS.items() if text])
def test_bad_profile_is_refused_naming_the_key(case, tmp_path):
    """The Snakefile's check of the profile it is given (ppdp.report.profiles.check_profile), on
    the profile as Snakemake reads it."""
    text, message = BAD_CONFIGS[case]
    path = tmp_path / "profile.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        check_profile(path, yaml.safe_load(text), ROOT)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["no configfile", "misspelt parameter", "unknown top-level key"])
def test_bad_profile_stops_the_dry_run_naming_the_key(case, tmp_path):
    """A profile the check refuses, or no profile, stops Snakemake before any job runs: the
    command line's own check and two of the profile's (its shape, a run's parameters)."""
    text, message = BAD_CONFIGS[case]
    args = [] if text is None else _config(tmp_path, text)
    (tmp_path / "work").mkdir()
    proc = _snakemake("-n", "--cores", "1", "--directory", str(tmp_path / "work"), *args)
    assert proc.returncode != 0
    assert re.search(message, proc.stdout + proc.stderr), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert not (tmp_path / "work" / "results").exists()


@pytest.mark.slow
def test_two_profiles_are_not_merged(tmp_path):
    proc = _snakemake(
        "-n",
        "--cores",
        "1",
        "--directory",
        str(tmp_path),
        "--configfile",
        str(ROOT / "config" / "smoke.yaml"),
        str(ROOT / "config" / "default.yaml"),
    )
    assert proc.returncode != 0
    assert "exactly one profile with --configfile" in proc.stdout + proc.stderr


def test_schema_lists_the_runs_of_every_profile():
    schema = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())
    # every profile but a deciding one (tests/test_deciding_profile.py) runs them all
    required = set(schema["then"]["properties"]["runs"]["required"])
    notebooks = set(schema["$defs"]["run"]["properties"]["notebook"]["enum"])
    assert notebooks == {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
    for name in ("smoke", "default", "paper"):
        config = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())
        assert set(config["runs"]) == required, name


# ---- the report ---------------------------------------------------------------------------------
def _claim(cid, run="nb", **extra):
    return {
        "id": cid,
        "paper": "p",
        "notebook": "nb",
        "run": run,
        "where": "Fig. 1",
        "statement": "s",
        "published": 1.0,
        "check": {"op": ">=", "value": 1.0},
        **extra,
    }


def _claims_file(tmp_path, entries):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": entries}))
    return path


@pytest.fixture
def results(tmp_path):
    folder = tmp_path / "results"
    write_results(tidy_rows("claims", "", {"p.a": 2.0, "p.b": 1.0}), folder / "nb.csv")
    return folder


BAD_CLAIMS = {
    "empty file": ("", ValueError, r"the key 'claims'"),
    "empty list": ({"claims": []}, ValueError, r"non-empty list"),
    "non-numeric check value": (
        [_claim("p.a", check={"op": ">=", "value": "high"})],
        ValueError,
        r"\(p\.a\): check 'value' must be a finite number .*, got 'high'",
    ),
    "negative tolerance": (
        [_claim("p.a", check={"op": "approx", "value": 1, "rel_tol": -0.1})],
        ValueError,
        r"\(p\.a\): check 'rel_tol' must be a finite number >= 0 .*, got -0\.1",
    ),
    "published is a list": (
        [_claim("p.a", published=[1, 2])],
        ValueError,
        r"\(p\.a\): 'published' must be a number or a string",
    ),
    "misspelt key": (
        [_claim("p.a", figures="f")],
        ValueError,
        r"\(p\.a\): unknown keys \['figures'\]",
    ),
    "run is not a string": ([_claim("p.a", run=3)], ValueError, r"\(p\.a\): 'run' must be"),
}


@pytest.mark.parametrize("case", list(BAD_CLAIMS))
def test_bad_claims_file_names_the_claim(case, tmp_path):
    content, error, message = BAD_CLAIMS[case]
    path = tmp_path / "claims.yaml"
    path.write_text(
        content
        if isinstance(content, str)
        else yaml.safe_dump(content if isinstance(content, dict) else {"claims": content})
    )
    with pytest.raises(error, match=message):
        load_claims(path)


def test_missing_results_folder_is_an_error(tmp_path, capsys):
    claims = _claims_file(tmp_path, [_claim("p.a")])
    args = ["--claims", str(claims), "--results", str(tmp_path / "resluts"), "--profile", "x"]
    assert main([*args, "--output", str(tmp_path / "r.md"), "--runs", "nb"]) == 1
    err = capsys.readouterr().err
    assert "results folder" in err and "resluts" in err and "does not exist" in err
    assert not (tmp_path / "r.md").exists()


def test_misspelt_run_is_an_error_naming_the_claim(tmp_path, results):
    claims = load_claims(_claims_file(tmp_path, [_claim("p.a"), _claim("p.b", run="nbb")]))
    with pytest.raises(ValueError, match=r"claim 'p\.b'.*run 'nbb' is not a run of this profile"):
        evaluate(claims, results, runs=["nb"])
    # without the profile's runs, a run must have results
    with pytest.raises(ValueError, match=r"claim 'p\.b'.*run 'nbb' has no results"):
        evaluate(claims, results)


def test_claims_file_cut_at_an_entry_boundary_is_flagged(tmp_path, results, capsys):
    # the results measure p.a and p.b; claims.yaml lost p.b
    claims_path = _claims_file(tmp_path, [_claim("p.a")])
    out = tmp_path / "r.md"
    args = ["--claims", str(claims_path), "--results", str(results), "--profile", "x"]
    # the pipeline's mode: an error, even with a count that agrees with the cut file
    complete = ["--runs", "nb", "--complete", "--expected-claims", "1"]
    assert main([*args, "--output", str(out), *complete]) == 1
    err = capsys.readouterr().err
    assert f"{results / 'nb.csv'}:3: claims row 'p.b' is not a claim of claims.yaml" in err
    assert not out.exists()
    # otherwise a warning in the report
    assert main([*args, "--output", str(out), "--runs", "nb"]) == 0
    warning = "has claims rows that claims.yaml does not list for run 'nb'"
    assert warning in capsys.readouterr().err
    assert f"**Warning:** {results / 'nb.csv'} {warning}" in out.read_text()
    assert main([*args, "--output", str(out), "--expected-claims", "2"]) == 1
    assert "holds 1 claims, expected 2 (--expected-claims)" in capsys.readouterr().err


def test_run_without_claims_is_an_error_in_the_pipeline(tmp_path, results):
    write_results(tidy_rows("claims", "", {"q.x": 1.0}), results / "other.csv")
    claims = load_claims(_claims_file(tmp_path, [_claim("p.a"), _claim("p.b")]))
    with pytest.raises(ValueError, match=r"run 'other': claims.yaml has no claim for it"):
        evaluate(claims, results, runs=["nb", "other"], complete=True)


def test_missing_results_csv_is_an_error_in_the_pipeline(tmp_path, results):
    claims = load_claims(
        _claims_file(tmp_path, [_claim("p.a"), _claim("p.b"), _claim("p.c", run="late")])
    )
    table = evaluate(claims, results, runs=["nb", "late"]).set_index("id")
    assert table.loc["p.c", "verdict"] == "not yet run"
    with pytest.raises(
        FileNotFoundError, match=r"run 'late': its results .*late\.csv.* are missing"
    ):
        evaluate(claims, results, runs=["nb", "late"], complete=True)


def test_claim_without_a_value_is_not_measured_not_not_yet_run(tmp_path, results):
    claims = load_claims(_claims_file(tmp_path, [_claim("p.a"), _claim("p.b"), _claim("p.z")]))
    table = evaluate(claims, results, runs=["nb"], complete=True).set_index("id")
    assert table.loc["p.z", "verdict"] == "not measured"
    assert table.loc["p.a", "verdict"] == "reproduced"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", r"nb\.csv \(claims \['p\.a'\]\) cannot be read"),
        (
            "experiment,method,seed,metric,value\nclaims,,0,p.a,high\n",
            r"nb\.csv \(claims \['p\.a'\]\) cannot be read",
        ),
        ("experiment,metric\nclaims,p.a\n", r"nb\.csv \(claims \['p\.a'\]\) cannot be read"),
        (
            "experiment,method,parameters,seed,metric,value\nclaims,,k=1,0,p.a,1.0\n",
            r"nb\.csv \(claims \['p\.a'\]\) cannot be read.*before parameters became columns",
        ),
    ],
    ids=["empty", "non-numeric value", "missing columns", "old format"],
)
def test_unreadable_results_name_the_file_and_the_claims(tmp_path, content, message):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "nb.csv").write_text(content)
    claims = load_claims(_claims_file(tmp_path, [_claim("p.a")]))
    with pytest.raises(ValueError, match=message):
        evaluate(claims, tmp_path / "results", runs=["nb"])


def test_missing_linked_figure_is_an_error_in_the_pipeline(tmp_path, results):
    claims_path = _claims_file(tmp_path, [_claim("p.a", figure="fig9"), _claim("p.b")])
    (tmp_path / "figures" / "nb").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match=r"claim 'p\.a': its figure .*fig9\.png"):
        build_report(
            claims_path,
            results,
            tmp_path / "r.md",
            profile="x",
            figures_dir=tmp_path / "figures",
            runs=["nb"],
            complete=True,
            expected_claims=2,
        )


# ---- reruns ---------------------------------------------------------------------------------------
def _fake_complete_outputs(work):
    """Every output of the smoke profile, older files first, as if the pipeline had run."""
    for run in SMOKE["runs"]:
        for path in (
            f"results/smoke/{run}.ipynb",
            f"results/smoke/{run}.csv",
            f"results/smoke/provenance/{run}.json",
            f"results/smoke/benchmarks/{run}.tsv",
        ):
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            (work / path).write_text("x")
        (work / "figures" / "smoke" / run).mkdir(parents=True)
    report = work / "reports" / "smoke" / "reproduction.md"
    report.parent.mkdir(parents=True)
    report.write_text("x")
    later = time.time() + 5
    os.utime(report, (later, later))


@pytest.mark.slow
def test_deleted_run_is_rerun_and_the_report_rebuilt(tmp_path):
    _fake_complete_outputs(tmp_path)
    args = ("-n", "--cores", "1", "--configfile", str(ROOT / "config" / "smoke.yaml"))
    proc = _snakemake(*args, "--directory", str(tmp_path))
    assert "Nothing to be done" in proc.stdout + proc.stderr, proc.stdout[-2000:]
    (tmp_path / "results" / "smoke" / "sppm.csv").unlink()
    proc = _snakemake(*args, "--directory", str(tmp_path))
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Missing output files: results/smoke/sppm.csv" in out
    assert "wildcards: profile=smoke, run=sppm" in out
    assert "output: reports/smoke/reproduction.md" in out
    assert "wildcards: profile=smoke, run=imposter" not in out


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_interrupted_run_recovers_by_itself(tmp_path):
    """Ctrl-C during a notebook: its figures are removed, its outputs marked incomplete, and the
    same command (no --rerun-incomplete: the workflow profile sets it) plans the job again."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    target = "results/smoke/relay_chains.csv"
    cmd = [
        str(BIN / "snakemake"),
        "--snakefile",
        str(ROOT / "Snakefile"),
        "--cores",
        "1",
        "--configfile",
        str(ROOT / "config" / "smoke.yaml"),
        "--directory",
        str(tmp_path),
    ]
    proc = subprocess.Popen(
        [*cmd, target],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        # as in a terminal, Ctrl-C interrupts: a test runner's worker may ignore SIGINT, and an
        # ignored signal stays ignored in its children (Python then installs no KeyboardInterrupt)
        preexec_fn=_interruptible,
    )
    log = tmp_path / "results" / "smoke" / "logs" / "relay_chains.log"
    deadline = time.time() + 120
    while not (log.exists() and log.stat().st_size > 0) and time.time() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, proc.stdout.read().decode()[-2000:]
    figures = tmp_path / "figures" / "smoke" / "relay_chains"
    assert figures.is_dir()
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    proc.communicate(timeout=120)
    assert proc.returncode != 0
    assert not figures.exists()
    assert not (tmp_path / target).exists()
    plan = subprocess.run(
        [*cmd, "-n", target], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert plan.returncode == 0, plan.stdout[-2000:] + plan.stderr[-2000:]
    assert "wildcards: profile=smoke, run=relay_chains" in plan.stdout
