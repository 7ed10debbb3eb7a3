"""Bad notebook parameters and bad command lines: clear errors naming what is wrong.

Each notebook checks its parameters once, right after its parameters cell, against the
``PARAMETERS`` its experiment's ``run`` module declares. Cases here call that check with the notebook's own
defaults and one parameter changed, as papermill (``-p name value``) or a profile would inject it.
"""

import math
import re
from pathlib import Path

import nbformat
import pytest
import yaml

from ppdp.datasets import __main__ as cli
from ppdp.experiments import (
    benchmark,
    datasets_overview,
    hyobscure,
    imposter,
    mutual_cover,
    relay_chains,
    sppm,
)
from ppdp.experiments.common import Param, check_parameters

ROOT = Path(__file__).resolve().parents[1]
# the run module of each notebook's experiment: it declares the notebook's PARAMETERS
MODULES = {
    "benchmark": benchmark.run,
    "datasets": datasets_overview.run,
    "hyobscure": hyobscure.run,
    "imposter": imposter.run,
    "mutual_cover": mutual_cover.run,
    "relay_chains": relay_chains.run,
    "sppm": sppm.run,
}


def _code_cells(notebook: str):
    nb = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    return [c for c in nb.cells if c.cell_type == "code"]


def defaults(notebook: str) -> dict:
    """The values of the notebook's parameters cell."""
    namespace: dict = {}
    exec(_code_cells(notebook)[0].source, namespace)
    return {k: v for k, v in namespace.items() if not k.startswith("__")}


def check(notebook: str, **changed):
    return MODULES[notebook].check_parameters({**defaults(notebook), **changed})


@pytest.mark.parametrize("notebook", MODULES)
def test_spec_covers_exactly_the_parameters_cell(notebook):
    assert set(MODULES[notebook].PARAMETERS) == set(defaults(notebook))


@pytest.mark.parametrize("notebook", MODULES)
def test_defaults_pass_unchanged(notebook):
    values = defaults(notebook)
    assert check(notebook) == values


@pytest.mark.parametrize("notebook", MODULES)
def test_notebook_checks_its_parameters_once_after_the_parameters_cell(notebook):
    cells = _code_cells(notebook)
    assert "parameters" in cells[0].metadata.get("tags", [])
    calls = [i for i, c in enumerate(cells) if "check_parameters(globals())" in c.source]
    assert calls == [1]
    # before the set-up cell uses any parameter
    source = cells[1].source
    first_use = min(
        (m.start() for name in defaults(notebook) if (m := re.search(rf"\b{name}\b", source))),
        default=len(source),
    )
    assert source.index("check_parameters(globals())") < first_use


def _profile_runs():
    cases = []
    for path in sorted((ROOT / "config").glob("*.yaml")):
        config = yaml.safe_load(path.read_text())
        if "runs" not in config:  # not a profile (the profiles' schema)
            continue
        for run, spec in config["runs"].items():
            cases.append(pytest.param(path.stem, run, spec, id=f"{path.stem}-{run}"))
    assert cases
    return cases


@pytest.mark.parametrize(("profile", "run", "spec"), _profile_runs())
def test_every_profile_passes_the_check(profile, run, spec):
    """What the pipeline injects (see the Snakefile) is valid for the notebook."""
    injected = {
        **spec.get("parameters", {}),
        "profile": profile,
        "results_csv": f"results/{profile}/{run}.csv",
        "figures_dir": f"figures/{profile}/{run}",
    }
    if "threads" in spec:
        injected["n_jobs"] = spec["threads"]
    checked = check(spec["notebook"], **injected)
    for name, value in injected.items():
        assert checked[name] == value


# -- values that are read the obvious way ---------------------------------------------------------


def test_a_single_dataset_name_is_a_one_element_list():
    # papermill -p datasets adult injects the string "adult"; iterated, it would be five letters
    assert check("datasets", datasets="adult")["datasets"] == ["adult"]


def test_a_single_delta_is_a_one_element_list():
    # papermill -p deltas 0.01 injects a float
    assert check("relay_chains", deltas=0.01)["deltas"] == [0.01]
    assert check("sppm", roc_seeds=3)["roc_seeds"] == [3]
    # one knob value for a method is a one-point curve
    assert check("hyobscure", knobs={"Random": 0.4})["knobs"] == {"Random": [0.4]}


def test_integral_float_is_an_integer():
    out = check("datasets", bins=8.0)["bins"]
    assert out == 8 and isinstance(out, int)
    assert check("imposter", n_rows=1e4)["n_rows"] == 10_000


def test_integer_where_a_number_is_expected_stays_an_integer():
    out = check("imposter", epsilons=[1, 10])["epsilons"]
    assert out == [1, 10] and all(isinstance(e, int) for e in out)


def test_none_where_allowed_and_mixed_group_sweep():
    assert check("mutual_cover", n_rows=None)["n_rows"] is None
    groups = [3, {"n_groups": 2, "k": 150, "alpha": 300, "beta": 20}]
    assert check("hyobscure", groups_list=groups)["groups_list"] == groups


# -- bad values ---------------------------------------------------------------------------------

BAD = [
    # (notebook, parameter, value, exception, message pattern)
    ("datasets", "bins", 8.5, ValueError, r"bins=8\.5 .*an integer >= 2"),
    ("datasets", "bins", 1, ValueError, r"bins=1 .*>= 2"),
    ("datasets", "bins", "8", TypeError, r"bins='8' .*an integer"),
    ("datasets", "bins", True, TypeError, r"bins=True"),
    ("datasets", "datasets", "adlt", ValueError, r"datasets='adlt' .*one of 'adult'"),
    ("datasets", "datasets", [], ValueError, r"datasets=\[\] .*non-empty list"),
    ("datasets", "datasets", ["adult", 3], TypeError, r"datasets\[1\]=3 .*one of 'adult'"),
    ("datasets", "seed", -1, ValueError, r"seed=-1 .*>= 0"),
    ("datasets", "results_csv", None, TypeError, r"results_csv=None .*a string"),
    (
        "relay_chains",
        "deltas",
        "0.01",
        TypeError,
        r"deltas='0\.01' .*non-empty list, each a number > 0",
    ),
    ("relay_chains", "deltas", [0.01, -0.02], ValueError, r"deltas\[1\]=-0\.02 .*> 0"),
    ("relay_chains", "weighting", "uniformly", ValueError, r"weighting='uniformly' .*'uniform'"),
    ("relay_chains", "adult_rows", -1, ValueError, r"adult_rows=-1 .*None or an integer >= 0"),
    ("mutual_cover", "p_match", [0.5, 1.5], ValueError, r"p_match\[1\]=1\.5 .*in \[0, 1\]"),
    ("mutual_cover", "inverse_deltas", [1, 5], ValueError, r"inverse_deltas\[0\]=1 .*> 1"),
    ("mutual_cover", "distance", "euclid", ValueError, r"distance='euclid' .*'ordinal'"),
    ("mutual_cover", "l", 1, ValueError, r"l=1 .*>= 2"),
    ("hyobscure", "dataset", "movielens-100k", ValueError, r"dataset='movielens-100k'"),
    ("hyobscure", "models", ["svm"], ValueError, r"models\[0\]='svm' .*'rf', 'xgb'"),
    ("hyobscure", "knobs", {"HyObscur": [0.1]}, ValueError, r"knobs has key 'HyObscur'"),
    ("hyobscure", "knobs", {"Random": "0.4"}, TypeError, r"knobs\['Random'\]='0\.4' .*list"),
    (
        "hyobscure",
        "k_alpha_list",
        [60, 200],
        TypeError,
        r"k_alpha_list\[0\]=60 .*a list of 2 values, each an integer >= 1",
    ),
    ("hyobscure", "k_alpha_list", [[60, 200, 3]], ValueError, r"k_alpha_list\[0\]=\[60, 200, 3\]"),
    ("hyobscure", "groups_list", [{"k": 100}, 3], ValueError, r"groups_list\[0\]=.*'n_groups'"),
    ("hyobscure", "n_jobs", 0, ValueError, r"n_jobs=0 .*>= 1"),
    ("imposter", "theta", 1.5, ValueError, r"theta=1\.5 .*in \[0, 1\]"),
    ("imposter", "lam", math.nan, ValueError, r"lam=nan"),
    ("imposter", "classifiers", "SVM", ValueError, r"classifiers='SVM' .*'XGBoost'"),
    ("imposter", "epsilons", [0, 1], ValueError, r"epsilons\[0\]=0 .*> 0"),
    ("imposter", "n_rows", 5, ValueError, r"n_rows=5 .*None or an integer >= 10"),
    ("sppm", "census_top", 1, ValueError, r"census_top=1 .*>= 2"),
    ("sppm", "synthetic_deltas", [0.0, -1.0], ValueError, r"synthetic_deltas\[1\]=-1\.0"),
    ("sppm", "fig6_steps", [3, 0], ValueError, r"fig6_steps\[1\]=0 .*>= 1"),
    ("sppm", "movie_top", "all", TypeError, r"movie_top='all' .*None or an integer"),
]


@pytest.mark.parametrize(
    ("notebook", "name", "value", "exception", "pattern"),
    BAD,
    ids=[f"{b[0]}-{b[1]}={b[2]!r}" for b in BAD],
)
def test_bad_parameter_is_refused(notebook, name, value, exception, pattern):
    with pytest.raises(exception, match=pattern):
        check(notebook, **{name: value})


def test_missing_parameter_is_named():
    values = defaults("datasets")
    del values["bins"]
    with pytest.raises(ValueError, match=r"\['bins'\] are not set"):
        datasets_overview.run.check_parameters(values)


def test_other_names_in_the_namespace_are_ignored():
    spec = {"n": Param("int", low=1)}
    assert check_parameters({"n": 2, "plt": object(), "_": None}, spec) == {"n": 2}


@pytest.mark.slow
def test_papermill_run_with_a_bad_parameter_fails_at_the_check(tmp_path, monkeypatch):
    papermill = pytest.importorskip("papermill")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    with pytest.raises(papermill.PapermillExecutionError, match=r"bins=8\.5"):
        papermill.execute_notebook(
            str(ROOT / "notebooks" / "datasets.ipynb"),
            str(tmp_path / "out.ipynb"),
            parameters={"bins": 8.5},
            progress_bar=False,
            cwd=str(tmp_path),
        )


# -- the datasets command line -------------------------------------------------------------------

CLI_BAD = [
    ([], r"the following arguments are required: command"),
    (["frobnicate"], r"invalid choice: 'frobnicate'"),
    (["info", "Adult"], r"unknown dataset 'Adult'\. Did you mean 'adult'\?"),
    (["fetch", "adult", "nope"], r"unknown dataset 'nope'"),
    (["fetch"], r"give at least one dataset name, or --all"),
    (["fetch", "--all", "adult"], r"give dataset names or --all, not both"),
    (["info", "adult", "--jsn"], r"datasets info: error: unrecognized arguments: --jsn"),
    (["info", "adult", "german-credit"], r"info: error: unrecognized arguments: german-credit"),
    (["list", "--all"], r"datasets list: error: unrecognized arguments: --all"),
    (["fetch", "adult", "--force=3"], r"argument --force: ignored explicit argument '3'"),
]


@pytest.mark.parametrize(("argv", "pattern"), CLI_BAD, ids=[" ".join(a) for a, _ in CLI_BAD])
def test_datasets_cli_bad_input(argv, pattern, capsys):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert re.search(pattern, captured.err), captured.err
    assert captured.out == ""


# -- the same rules as the Snakefile's JSON schema ----------------------------------------------


def _schema_errors(notebook: str, parameters: dict) -> list:
    import json

    import jsonschema

    defs = json.loads((ROOT / "config" / "parameters.schema.json").read_text())["$defs"]
    return list(jsonschema.Draft202012Validator(defs[notebook]).iter_errors(parameters))


def test_the_committed_parameter_schema_is_generated_from_the_rules():
    """config/parameters.schema.json is what `python -m ppdp.experiments.parameter_schema`
    prints: the notebooks' parameters are declared once, in their run modules' PARAMETERS."""
    import json

    from ppdp.experiments.parameter_schema import NOTEBOOK_MODULES, parameters_schema

    committed = json.loads((ROOT / "config" / "parameters.schema.json").read_text())
    assert committed == json.loads(json.dumps(parameters_schema())), (
        "regenerate it: python -m ppdp.experiments.parameter_schema > config/parameters.schema.json"
    )
    assert {n: f"ppdp.experiments.{m}.run" for n, m in NOTEBOOK_MODULES.items()} == {
        n: m.__name__ for n, m in MODULES.items()
    }


@pytest.mark.parametrize("notebook", MODULES)
def test_the_schema_accepts_the_notebooks_defaults(notebook):
    injected = ("profile", "results_csv", "figures_dir")
    values = {k: v for k, v in defaults(notebook).items() if k not in injected}
    assert _schema_errors(notebook, values) == []


@pytest.mark.parametrize(
    ("notebook", "name", "value"),
    [
        (b[0], b[1], b[2])
        for b in BAD
        if b[1] not in ("results_csv",) and not (isinstance(b[2], float) and math.isnan(b[2]))
    ],
)
def test_the_schema_refuses_what_the_notebook_refuses(notebook, name, value):
    """Before any job runs, the Snakefile refuses the values the notebook's check refuses (NaN
    aside: JSON numbers have no NaN, and the notebook's check still refuses it)."""
    assert _schema_errors(notebook, {name: value})
