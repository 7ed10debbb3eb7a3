"""A configuration means one thing or is refused before anything runs: a key given twice, two
profiles, NaN or infinite numbers, a run the report knows nothing of, a YAML syntax error and a
notebook parameter that the notebook does not declare each stop with a message naming the file,
the line or the parameter."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ppdp import kernels
from ppdp.compendium.yamlfile import read_yaml
from ppdp.report.deciding import kernel_comparison_problems
from ppdp.report.profiles import check_profile
from test_bad_input_pipeline import _config, _snakemake

ROOT = Path(__file__).resolve().parents[1]
SMOKE_TEXT = (ROOT / "config" / "smoke.yaml").read_text()


def _dry_run(tmp_path, *args):
    work = tmp_path / "work"
    work.mkdir()
    proc = _snakemake("-n", "--cores", "1", "--directory", str(work), *args)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-3000:]
    assert not (work / "results").exists()
    return output


def _refusal(tmp_path, text) -> str:
    """The message the profile ``text`` is refused with by the Snakefile's check before a dry run
    builds a job (ppdp.report.profiles.check_profile, called as the Snakefile calls it; that a
    refusal stops the dry run is tests/test_bad_input_pipeline.py's)."""
    path = tmp_path / "profile.yaml"
    path.write_text(text)
    with pytest.raises(ValueError) as refused:
        check_profile(path, yaml.safe_load(text), ROOT)
    return str(refused.value)


def _smoke_replacing(old, new):
    assert SMOKE_TEXT.count(old) == 1, old
    return SMOKE_TEXT.replace(old, new)


# ---- a key given twice ----------------------------------------------------------------------------
def test_a_profile_with_a_key_given_twice_is_refused_naming_file_and_line(tmp_path):
    text = _smoke_replacing(
        "parameters: {seed: 0, bins: 8}", "parameters:\n      bins: 8\n      bins: 3"
    )
    line = text.splitlines().index("      bins: 3") + 1
    output = _refusal(tmp_path, text)
    assert re.search(
        rf"profile\.yaml:{line}:7: YAML error: duplicate key 'bins' \(first given on line "
        rf"{line - 1}\)",
        output,
    ), output[-3000:]


@pytest.mark.parametrize("name", ["claims.yaml", "roles.yaml", "schema.yaml"])
def test_every_project_yaml_file_refuses_a_key_given_twice(name, tmp_path):
    path = tmp_path / name
    path.write_text("top:\n  a: 1\n  b: [1, 2]\n  a: 2\n")
    with pytest.raises(
        ValueError, match=rf"{name}:4:3: YAML error: duplicate key 'a' \(first given on line 2\)$"
    ):
        read_yaml(path)


def test_the_report_and_the_benchmark_refuse_a_key_given_twice(tmp_path):
    from ppdp import report
    from ppdp.experiments.benchmark.data import load_roles

    claims = (ROOT / "claims.yaml").read_text()
    doubled = claims.replace("n_claims:", "n_claims: 1\nn_claims:", 1)
    (tmp_path / "claims.yaml").write_text(doubled)
    with pytest.raises(
        ValueError, match=r"claims\.yaml:\d+:1: YAML error: duplicate key 'n_claims'"
    ):
        report.load_claims(tmp_path / "claims.yaml")
    (tmp_path / "roles.yaml").write_text("adult:\n  private: sex\n  private: income\n")
    with pytest.raises(ValueError, match=r"roles\.yaml:3:3: YAML error: duplicate key 'private'"):
        load_roles(tmp_path / "roles.yaml")


def test_equal_keys_in_different_mappings_are_fine(tmp_path):
    path = tmp_path / "profile.yaml"
    path.write_text("a: {bins: 8}\nb: {bins: 8}\nc: [{x: 1}, {x: 2}]\n")
    assert read_yaml(path) == {"a": {"bins": 8}, "b": {"bins": 8}, "c": [{"x": 1}, {"x": 2}]}


# ---- two profiles ---------------------------------------------------------------------------------
def test_two_configfile_options_are_refused(tmp_path):
    output = _dry_run(
        tmp_path,
        "--configfile",
        str(ROOT / "config" / "smoke.yaml"),
        "--configfile",
        str(ROOT / "config" / "default.yaml"),
    )
    assert "exactly one profile with --configfile" in output, output[-3000:]
    assert re.search(r"got 2 files \(.*smoke\.yaml, .*default\.yaml\)", output), output[-3000:]


# ---- NaN and infinity -----------------------------------------------------------------------------
def test_nan_is_refused(tmp_path):
    text = _smoke_replacing("fig6_top: 0.06", "fig6_top: .nan")
    output = _refusal(tmp_path, text)
    assert "run 'relay_chains': parameter fig6_top: nan is not a finite number" in output, output[
        -3000:
    ]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")], ids=str)
def test_the_schemas_refuse_nan_and_infinity_wherever_a_number_goes(value):
    """The Snakefile's check of a profile (schema_error) against the committed schemas: YAML's
    .nan, .inf and -.inf fail where a plain JSON Schema validator lets them through every bound."""
    from ppdp.experiments.parameter_schema import schema_error

    rules = json.loads((ROOT / "config" / "parameters.schema.json").read_text())["$defs"]
    for notebook, parameter in [
        ("imposter", "lam"),
        ("relay_chains", "fig6_top"),
        ("sppm", "fig5_delta"),
    ]:
        error = schema_error(rules[notebook], {parameter: value})
        assert error is not None, (notebook, parameter)
        assert list(error.absolute_path) == [parameter]
        assert error.message == f"{value!r} is not a finite number"
    profile = yaml.safe_load(SMOKE_TEXT)
    profile["runs"]["sppm"]["cpu_minutes"] = value
    error = schema_error(read_yaml(ROOT / "config" / "schema.yaml"), profile)
    assert list(error.absolute_path) == ["runs", "sppm", "cpu_minutes"]


# ---- a run the report knows nothing of ------------------------------------------------------------
def test_an_extra_run_of_an_existing_notebook_is_refused(tmp_path):
    text = _smoke_replacing(
        "  relay_chains:\n", "  datasets_again:\n    notebook: datasets\n  relay_chains:\n"
    )
    output = _refusal(tmp_path, text)
    assert re.search(r"runs: 'datasets_again' is not one of \['datasets', ", output), output[-3000:]


def test_the_runs_a_profile_may_name_are_the_runs_with_claims():
    schema = read_yaml(ROOT / "config" / "schema.yaml")
    runs = schema["properties"]["runs"]
    claims = read_yaml(ROOT / "claims.yaml")["claims"]
    from ppdp.report.verdicts import RUNS_WITHOUT_CLAIMS

    with_claims = {claim.get("run", claim["notebook"]) for claim in claims}
    with_claims |= set(RUNS_WITHOUT_CLAIMS)
    # every profile but a deciding one runs them all
    required = schema["then"]["properties"]["runs"]["required"]
    assert schema["if"] == {"not": {"required": ["decides"]}}
    assert set(runs["propertyNames"]["enum"]) == set(required) == with_claims


# ---- a deciding profile that differs in more than it says -----------------------------------------
SMOKE_MC_RUNS = yaml.safe_load(SMOKE_TEXT)["runs"]["mutual_cover"]["parameters"]["n_runs"]


def _deciding_smoke(n_runs, *, compare=True):
    """A deciding profile of the smoke profile: its Mutual Cover run with ``n_runs``, run again
    under other kernels unless ``compare`` is false."""
    smoke = yaml.safe_load(SMOKE_TEXT)
    run = smoke["runs"]["mutual_cover"]
    claim = next(
        c["id"]
        for c in read_yaml(ROOT / "claims.yaml")["claims"]
        if c["notebook"] == "mutual_cover"
    )
    spec = {**run, "parameters": {**run["parameters"], "n_runs": n_runs}}
    return yaml.safe_dump(
        {
            "profile": "deciding_smoke",
            "decides": {
                "profile": "smoke",
                "claims": [claim],
                "differs_in": ["n_runs"],
                **({"compare_kernels": ["mutual_cover"]} if compare else {}),
            },
            "runs": {"mutual_cover": spec},
        }
    )


def test_a_deciding_profile_runs_its_runs_and_writes_its_report_where_it_is_committed(tmp_path):
    text = _deciding_smoke(SMOKE_MC_RUNS + 2)
    capped = dict(os.environ)
    kernels.apply(capped)  # as the Snakefile does before its checks
    cannot_compare = kernel_comparison_problems(yaml.safe_load(text), capped)
    if cannot_compare:
        # on this machine the other kernels are the capped ones (x86-64 with AVX2 but no
        # AVX-512): the comparison would test nothing, so the profile is refused before any job
        output = _refusal(tmp_path, text)
        assert "decides.compare_kernels runs 'mutual_cover' again" in output, output
        assert "AVX-512" in output
        text = _deciding_smoke(SMOKE_MC_RUNS + 2, compare=False)
    work = tmp_path / "work"
    work.mkdir()
    proc = _snakemake(
        "-n", "-p", "--cores", "1", "--directory", str(work), *_config(tmp_path, text)
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "rule deciding_report" in proc.stdout
    assert "reports/deciding/deciding_smoke/verdicts.csv" in proc.stdout
    assert "run=mutual_cover" in proc.stdout and "run=sppm" not in proc.stdout
    if cannot_compare:
        assert "other-kernels" not in proc.stdout
        return
    # the run again under other kernels, and the report comparing the two
    setting, other = kernels.other_kernels(os.environ)
    again = [
        line
        for line in proc.stdout.splitlines()
        if "papermill" in line and "deciding_smoke-other-kernels/mutual_cover" in line
    ]
    assert len(again) == 1 and re.search(r"&& env [^&]* -m papermill ", again[0]), again
    changed = [f"{k}={v}" for k, v in other.items() if os.environ.get(k) != v]
    assert all(item in again[0] for item in changed), (setting, changed, again[0])
    assert '"profile": "deciding_smoke"' in again[0]
    assert "--compare results/deciding_smoke-other-kernels" in proc.stdout


def test_a_deciding_profile_that_changes_another_parameter_is_refused(tmp_path):
    config = yaml.safe_load(_deciding_smoke(SMOKE_MC_RUNS + 2))
    config["runs"]["mutual_cover"]["parameters"]["n_queries"] = 7
    output = _refusal(tmp_path, yaml.safe_dump(config))
    assert "run 'mutual_cover': parameter n_queries is 7" in output, output[-3000:]
    assert "differs_in (n_runs) does not name it" in output


# ---- a YAML syntax error --------------------------------------------------------------------------
def test_a_profile_with_a_syntax_error_is_named_with_file_and_line(tmp_path):
    """Snakemake reads a --configfile before the Snakefile and reports a syntax error in it without
    file or line (`Config file is not valid JSON or YAML`); `python -m ppdp.compendium.yamlfile` names both."""
    text = _smoke_replacing("    notebook: datasets\n", "    notebook: datasets\n   bins: 3\n")
    line = text.splitlines().index("   bins: 3") + 1
    path = tmp_path / "profile.yaml"
    path.write_text(text)
    good = ROOT / "config" / "smoke.yaml"
    proc = subprocess.run(
        [sys.executable, "-m", "ppdp.compendium.yamlfile", str(good), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines() == [
        f"{path}:{line}:4: YAML syntax error: expected <block end>, but found '<block mapping start>'"
    ]
    ok = subprocess.run(
        [sys.executable, "-m", "ppdp.compendium.yamlfile", str(good)],
        capture_output=True,
        timeout=60,
    )
    assert ok.returncode == 0


# ---- a notebook parameter the notebook does not declare ---------------------------------------------
def test_papermill_with_an_undeclared_parameter_fails_naming_the_closest(tmp_path):
    """`-p bin 3` (for `bins`) fails at the notebook's check, before any data is read."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "papermill",
            "--no-progress-bar",
            str(ROOT / "notebooks" / "datasets.ipynb"),
            str(tmp_path / "out.ipynb"),
            "-p",
            "bin",
            "3",
            "-p",
            "datasets",
            "adult",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode != 0, proc.stderr[-3000:]
    assert (
        "parameter bin=3 is not a parameter of this notebook (did you mean bins?)" in proc.stderr
    ), proc.stderr[-3000:]


def test_undeclared_names_are_named_with_their_closest_declared_parameter():
    from ppdp.experiments.common import ParameterValueError, check_notebook_names
    from ppdp.experiments.datasets_overview.run import PARAMETERS

    namespace = {
        "In": [""],
        "Out": {},
        "_i1": "bins = 8",
        "__name__": "__main__",
        "json": json,
        "print_table": print,
        **{name: 0 for name in PARAMETERS},
    }
    check_notebook_names(namespace, PARAMETERS)
    with pytest.raises(ParameterValueError) as info:
        check_notebook_names({**namespace, "bin": 3, "zzz": "x"}, PARAMETERS)
    message = str(info.value)
    assert "parameter bin=3 is not a parameter of this notebook (did you mean bins?)" in message
    assert "parameter zzz='x' is not a parameter of this notebook;" in message
    assert f"its parameters are {sorted(PARAMETERS)}" in message


def _cells(notebook):
    cells = json.loads(notebook.read_text())["cells"]
    at = next(i for i, c in enumerate(cells) if "parameters" in c["metadata"].get("tags", []))
    return cells[at], cells[at + 1]


@pytest.mark.parametrize("notebook", sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_every_notebook_checks_its_names_before_defining_its_own(notebook):
    """The cell after the parameters cell (papermill injects its cell between them) checks the
    names first: anything it binds to data before the check would be taken for a parameter."""
    from ppdp.experiments.parameter_schema import NOTEBOOK_MODULES

    parameters, first = _cells(ROOT / "notebooks" / f"{notebook}.ipynb")
    source = "".join(first["source"])
    call = re.search(r"^check_notebook_names\(globals\(\), (\w+)\.run\.PARAMETERS\)$", source, re.M)
    assert call, source
    before = source[: call.start()]
    # only imports before the check: they bind modules and functions, never data
    assert all(
        line.startswith(("import ", "from ", "    ", ")")) or not line.strip()
        for line in before.splitlines()
    ), before
    assert re.search(
        rf"from ppdp\.experiments import {NOTEBOOK_MODULES[notebook]} as {call.group(1)}$",
        before,
        re.M,
    ), before
    # the check compares with PARAMETERS: the parameters cell declares exactly those names
    spec = __import__(f"ppdp.experiments.{NOTEBOOK_MODULES[notebook]}.run", fromlist=["PARAMETERS"])
    assigned = set()
    for line in "".join(parameters["source"]).splitlines():
        match = re.match(r"(\w+) = ", line)
        if match:
            assigned.add(match.group(1))
    assert assigned == set(spec.PARAMETERS), notebook


def test_smoke_profile_parses_the_same_through_read_yaml():
    assert read_yaml(ROOT / "config" / "smoke.yaml") == yaml.safe_load(SMOKE_TEXT)
