"""The choice of the smoke runs to rerun under other CPU kernels (tests/kernel_reach.py): the
kernels an environment gives a run, their comparison, and which notebooks can import PyTorch."""

import json
import os
import textwrap

import nbformat
import pytest
import yaml

from kernel_reach import NOTEBOOKS, ROOT, import_chain, runs_reaching, runs_to_rerun
from ppdp import kernels
from ppdp.kernels import (
    SNAKEMAKE_THREAD_VARIABLES,
    differing_families,
    environment_record,
    probe_environment,
)

SMOKE_RUNS = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["runs"]

#: A record as an AVX2 machine under the caps writes it.
CAPPED = {
    "numpy_simd": "X86_V3",
    "blas": [
        {
            "owner": "numpy",
            "internal_api": "openblas",
            "version": "0.3.31",
            "kernel": "Haswell",
            "num_threads": 1,
        },
        {
            "owner": "scipy",
            "internal_api": "openblas",
            "version": "0.3.30",
            "kernel": "Haswell",
            "num_threads": 1,
        },
    ],
    "torch_cpu": "AVX2",
    "mkl_cbwr": "COMPATIBLE",
}


def _with_blas(**changes):
    return {**CAPPED, "blas": [{**CAPPED["blas"][0], **changes}, CAPPED["blas"][1]]}


# ------------------------------------------------------------------------------------------------
# which notebooks can import PyTorch


def test_the_runs_that_reach_torch_are_imposter_and_benchmark():
    reaching = runs_reaching("torch", SMOKE_RUNS)
    chains = {
        run: " -> ".join(import_chain("torch", spec["notebook"]))
        for run, spec in SMOKE_RUNS.items()
    }
    assert {"imposter", "benchmark"} <= reaching, chains
    assert not reaching & {"datasets", "relay_chains", "mutual_cover"}, chains
    for run in reaching:
        assert chains[run].endswith("torch"), chains[run]
    # the runs of one notebook go together
    for notebook in {spec["notebook"] for spec in SMOKE_RUNS.values()}:
        same = {r for r, s in SMOKE_RUNS.items() if s["notebook"] == notebook}
        assert (same <= reaching) or not (same & reaching), notebook


def test_the_library_knows_which_notebooks_can_import_torch():
    # the report credits a comparison with PyTorch's kernels only for these notebooks' runs
    everyone = {path.stem: {"notebook": path.stem} for path in NOTEBOOKS.glob("*.ipynb")}
    assert len(everyone) >= 7
    assert runs_reaching("torch", everyone) == set(kernels.TORCH_NOTEBOOKS)


def test_no_notebook_can_import_the_report_package():
    # the report's code may change between a run and its report (COMPUTATION_SOURCES leaves it
    # out) only because no run computes with it
    from ppdp.report.provenance import COMPUTATION_SOURCES

    assert ":(exclude)lib/ppdp/report" in COMPUTATION_SOURCES
    chains = {p.stem: import_chain("ppdp.report", p.stem) for p in NOTEBOOKS.glob("*.ipynb")}
    assert len(chains) >= 7 and not any(chains.values()), chains


def test_a_library_module_is_a_prefix_too():
    reaching = runs_reaching("ppdp.mechanisms.imposter", SMOKE_RUNS)
    assert reaching == runs_reaching("torch", SMOKE_RUNS)


def _tree(tmp_path, modules, notebook_code):
    """A library (``lib/ppdp/...``) and one notebook ``nb`` in tmp_path; returns the keywords of
    :func:`runs_reaching`."""
    for name, code in {"ppdp/__init__.py": "", **modules}.items():
        path = tmp_path / "lib" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code))
    (tmp_path / "notebooks").mkdir(parents=True)
    cells = []
    if notebook_code:
        # a magic first, as the notebooks have: the analysis reads it as `pass`
        cells = [nbformat.v4.new_code_cell("%matplotlib inline"), nbformat.v4.new_code_cell("")]
        cells[1].source = textwrap.dedent(notebook_code)
    notebook = nbformat.v4.new_notebook(cells=cells)
    nbformat.write(notebook, tmp_path / "notebooks" / "nb.ipynb")
    return {"root": tmp_path / "lib", "notebooks": tmp_path / "notebooks"}


LAZY_INIT = """\
    import importlib

    _SURFACE = {"Heavy": "ppdp.heavy", "Light": "ppdp.light"}


    def __getattr__(name):
        return getattr(importlib.import_module(_SURFACE[name]), name)
"""

HEAVY = """\
    def Heavy():
        import torch.nn

        return torch.nn.Linear(1, 1)
"""


@pytest.mark.parametrize(
    "planted",
    [
        "import importlib\n\ndef load(name):\n    return importlib.import_module(name)\n",
        "def load(name):\n    return __import__(name)\n",
        "from importlib import import_module\n",
        "import importlib.util\n\nspec = importlib.util.spec_from_file_location('m', 'm.py')\n",
        "import importlib\n\nload = importlib.import_module\n",
    ],
)
def test_a_computed_import_the_analysis_cannot_follow_is_refused(tmp_path, planted):
    where = _tree(tmp_path, {"ppdp/util.py": planted}, "import ppdp.other\n")
    (tmp_path / "lib" / "ppdp" / "other.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match=r"util\.py line \d+: a computed import"):
        runs_reaching("torch", {"run": {"notebook": "nb"}}, **where)


def test_a_computed_import_in_a_notebook_is_refused(tmp_path):
    where = _tree(tmp_path, {}, "import importlib\nm = importlib.import_module('torch')\n")
    with pytest.raises(ValueError, match=r"nb\.ipynb line 4: a computed import"):
        runs_reaching("torch", {"run": {"notebook": "nb"}}, **where)


def test_the_lazy_table_is_followed_name_by_name(tmp_path):
    modules = {"ppdp/__init__.py": LAZY_INIT, "ppdp/heavy.py": HEAVY, "ppdp/light.py": "Light = 1"}
    runs = {"run": {"notebook": "nb"}}
    light = _tree(tmp_path / "light", modules, "from ppdp import Light\nimport ppdp\nppdp.Light\n")
    assert runs_reaching("torch", runs, **light) == set()
    for i, code in enumerate(
        [
            "from ppdp import Heavy\n",
            "import ppdp\n\nppdp.Heavy()\n",
            "import ppdp as p\n\np.Heavy()\n",
            "from ppdp import *\n",
            "import ppdp\n\ngetattr(ppdp, 'He' + 'avy')\n",  # the package handed on: any name
        ]
    ):
        where = _tree(tmp_path / str(i), modules, code)
        assert runs_reaching("torch", runs, **where) == {"run"}, code
        assert import_chain("torch", "nb", **where)[-2:] == ["ppdp.heavy", "torch.nn"], code


def test_a_lazy_loader_without_a_table_is_refused(tmp_path):
    init = "import importlib\n\ndef __getattr__(name):\n    return importlib.import_module(name)\n"
    where = _tree(tmp_path, {"ppdp/__init__.py": init}, "import ppdp\n")
    with pytest.raises(ValueError, match="computed import in __getattr__"):
        runs_reaching("torch", {"run": {"notebook": "nb"}}, **where)


def test_parameter_schema_reaches_every_experiment_run(tmp_path):
    schema = """\
        import importlib

        def parameters_schema():
            for module in ("a", "b"):
                importlib.import_module(f"ppdp.experiments.{module}.run")
    """
    modules = {
        "ppdp/experiments/__init__.py": "",
        "ppdp/experiments/parameter_schema.py": schema,
        "ppdp/experiments/a/__init__.py": "",
        "ppdp/experiments/a/run.py": "x = 1\n",
        "ppdp/experiments/b/__init__.py": "",
        "ppdp/experiments/b/run.py": "import torch\n",
    }
    where = _tree(tmp_path, modules, "from ppdp.experiments.parameter_schema import schema\n")
    assert import_chain("torch", "nb", **where)[-3:] == [
        "ppdp.experiments.parameter_schema",
        "ppdp.experiments.b.run",
        "torch",
    ]


def test_a_parent_package_and_a_function_level_import_count(tmp_path):
    modules = {
        "ppdp/pkg/__init__.py": "def f():\n    import torch\n",
        "ppdp/pkg/leaf.py": "x = 1\n",
    }
    where = _tree(tmp_path, modules, "from ppdp.pkg.leaf import x\n")
    assert import_chain("torch", "nb", **where) == [
        "notebooks/nb.ipynb",
        "ppdp.pkg.leaf",
        "ppdp.pkg",
        "torch",
    ]


def test_a_run_without_its_notebook_is_refused(tmp_path):
    where = _tree(tmp_path, {}, "")
    with pytest.raises(FileNotFoundError, match="notebook 'missing'"):
        runs_reaching("torch", {"run": {"notebook": "missing"}}, **where)
    with pytest.raises(ValueError, match="run 'run': no notebook named"):
        runs_reaching("torch", {"run": {}}, **where)
    with pytest.raises(ValueError, match="module_prefix must be a non-empty module name"):
        runs_reaching("", {"run": {"notebook": "nb"}}, **where)


# ------------------------------------------------------------------------------------------------
# the comparison of two environments' kernels


@pytest.mark.parametrize(
    ("change", "family"),
    [
        ({"numpy_simd": "X86_V3 X86_V4 AVX512_ICL"}, "numpy"),
        (_with_blas(kernel="SkylakeX"), "blas"),
        (_with_blas(num_threads=2), "blas"),
        ({"torch_cpu": "AVX512"}, "torch"),
        ({"mkl_cbwr": "unset"}, "torch"),
    ],
)
def test_each_family_alone(change, family):
    assert differing_families(CAPPED, {**CAPPED, **change}) == {family}
    assert differing_families({**CAPPED, **change}, CAPPED) == {family}


def test_no_family_differs_between_equal_records():
    assert differing_families(CAPPED, {**CAPPED, "blas": list(reversed(CAPPED["blas"]))}) == set()


def test_a_field_a_record_lacks_differs():
    lacking = {k: v for k, v in CAPPED.items() if k != "numpy_simd"}
    assert differing_families(lacking, lacking) == {"numpy"}


def test_all_runs_are_rerun_when_numpy_or_blas_differ():
    first = {run: CAPPED for run in SMOKE_RUNS}
    everything = sorted(SMOKE_RUNS)
    for other in (
        {**CAPPED, "numpy_simd": "X86_V4", "mkl_cbwr": "unset"},
        _with_blas(kernel="Zen"),
    ):
        chosen, reason = runs_to_rerun(first, other, SMOKE_RUNS)
        assert chosen == everything, reason
        assert reason.startswith(f"rerun all {len(everything)} runs: ") and "differ" in reason


def test_only_the_torch_runs_are_rerun_when_only_torch_differs():
    first = {run: CAPPED for run in SMOKE_RUNS}
    chosen, reason = runs_to_rerun(first, {**CAPPED, "mkl_cbwr": "unset"}, SMOKE_RUNS)
    assert chosen == sorted(runs_reaching("torch", SMOKE_RUNS))
    assert {"imposter", "benchmark"} <= set(chosen) < set(SMOKE_RUNS)
    assert reason == (
        f"rerun {', '.join(chosen)}: torch/MKL differ (torch AVX2 vs AVX2, MKL_CBWR COMPATIBLE vs "
        "unset); numpy X86_V3 and OpenBLAS Haswell (1 thread) are equal, and only these runs' "
        "notebooks can import torch"
    )


def test_runs_no_claim_reads_are_never_rerun():
    first = {run: CAPPED for run in SMOKE_RUNS}
    judged = set(SMOKE_RUNS) - {"benchmark"}
    for other in ({**CAPPED, "mkl_cbwr": "unset"}, _with_blas(kernel="Zen"), dict(CAPPED)):
        every, why = runs_to_rerun(first, other, SMOKE_RUNS)
        chosen, reason = runs_to_rerun(first, other, SMOKE_RUNS, judged=judged)
        assert "benchmark" in every
        assert chosen == [run for run in every if run != "benchmark"]
        assert reason == f"{why}; not benchmark, which no claim reads"
    # nothing left out, nothing said
    assert runs_to_rerun(first, dict(CAPPED), SMOKE_RUNS, judged=set(SMOKE_RUNS)) == runs_to_rerun(
        first, dict(CAPPED), SMOKE_RUNS
    )


def test_all_runs_are_rerun_when_nothing_differs():
    first = {run: CAPPED for run in SMOKE_RUNS}
    chosen, reason = runs_to_rerun(first, dict(CAPPED), SMOKE_RUNS)
    assert chosen == sorted(SMOKE_RUNS)
    assert "no kernel differs" in reason


def test_all_runs_are_rerun_when_the_first_records_disagree_or_lack():
    first = {run: CAPPED for run in SMOKE_RUNS}
    torch_only = {**CAPPED, "mkl_cbwr": "unset"}
    disagreeing = {**first, "datasets": _with_blas(num_threads=2)}
    chosen, reason = runs_to_rerun(disagreeing, torch_only, SMOKE_RUNS)
    assert chosen == sorted(SMOKE_RUNS) and "disagree" in reason
    lacking = {run: rec for run, rec in first.items() if run != "sppm"}
    chosen, reason = runs_to_rerun(lacking, torch_only, SMOKE_RUNS)
    assert chosen == sorted(SMOKE_RUNS) and reason.endswith("no record of sppm")


# ------------------------------------------------------------------------------------------------
# the probe of an environment


def test_the_probe_applies_the_caps_as_a_run_does():
    bare = {k: v for k, v in os.environ.items() if k not in kernels.CAPS and k != kernels.NATIVE}
    probed = probe_environment(bare)
    if kernels.caps_apply():
        assert {k: probed[k] for k in kernels.CAPS} == dict(kernels.CAPS)
    native = probe_environment({**bare, kernels.NATIVE: "1"})
    assert not set(kernels.CAPS) & set(native)
    assert probe_environment({**bare, "MKL_CBWR": "AVX2"})["MKL_CBWR"] == "AVX2"
    jobs = probe_environment(bare, threads=1)
    assert all(jobs[name] == "1" for name in SNAKEMAKE_THREAD_VARIABLES)
    with pytest.raises(ValueError, match="threads must be at least 1, got 0"):
        probe_environment(bare, threads=0)


@pytest.mark.slow
def test_the_probe_sees_what_the_runs_recorded(smoke_run):
    """The probe of this environment records the kernels every run of the smoke run recorded (a
    run's job computes on one thread, as the probe is told). The pipeline's runs and this probe
    start from the same environment: both from make's, or both from the one pytest started in."""
    runs = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["runs"]
    probed = environment_record(os.environ, threads=1)
    for run in runs:
        path = smoke_run / "results" / "smoke" / "provenance" / f"{run}.json"
        record = json.loads(path.read_text())
        assert not differing_families(probed, record), (run, probed, record)
