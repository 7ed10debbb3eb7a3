"""Every documented route to a result computes the same bits: `make`, plain Snakemake, papermill by
hand (and so nbval and JupyterLab, which start the same kernel), with or without the CPU kernel
caps and the data mirror in the caller's environment.

The caps (lib/ppdp/kernels.py) change the bits only on machines whose widest kernels are not AVX2
ones (AVX512, or OpenBLAS's and MKL's own choice for the CPU's vendor): there the results CSVs of
the routes would differ without them. On any machine the runs' provenance records the kernels each
ran with, so the routes are also compared on those records.
"""

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import shared_smoke_run as shared_smoke
from ppdp import kernels

# the module (the package's `fetch` is the function)
fetch_mod = importlib.import_module("ppdp.datasets.fetch")

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: what a shell that never ran `make` lacks: the caps, the hash seed, the matplotlib backend, the
#: data mirror and the opt-out
ROUTE_VARIABLES = (
    *kernels.CAPS,
    *kernels.HASH_SEED,
    "MPLBACKEND",
    "PPDP_DATA_MIRROR",
    kernels.NATIVE,
)
#: the run compared: the cheapest notebook whose results come from numpy's loops and BLAS
RUN = "datasets"


def _plain_environment() -> dict[str, str]:
    """This process's environment less everything the Makefile or the test set-up exports."""
    return {k: v for k, v in os.environ.items() if k not in ROUTE_VARIABLES}


def _makefile_environment(tmp_path: Path) -> dict[str, str]:
    """The environment the Makefile's recipes run in, started from a plain environment (so the
    Makefile itself must supply the caps)."""
    probe = tmp_path / "env.mk"
    probe.write_text(
        "include Makefile\n"
        "route-environment:\n"
        '\t@$(BIN)/python -c "import json, os; print(json.dumps(dict(os.environ)))"\n'
    )
    proc = subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(ROOT),
            "-f",
            str(probe),
            "route-environment",
            f"VENV={sys.prefix}",
        ],
        env=_plain_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def _expected_caps() -> dict[str, str]:
    """The caps this machine gets from ppdp.kernels (none off x86-64 with AVX2)."""
    return kernels.environment({}, hash_seed=False)


def _assert_capped(record: dict, route: str) -> None:
    """A run's provenance records the kernels the caps select (or, without caps on this machine,
    no MKL branch)."""
    caps = _expected_caps()
    assert record["mkl_cbwr"] == caps.get("MKL_CBWR", "unset"), (route, record["mkl_cbwr"])
    if "OPENBLAS_CORETYPE" in caps:
        kernels_seen = {b["kernel"] for b in record["blas"] if b["internal_api"] == "openblas"}
        assert kernels_seen <= {caps["OPENBLAS_CORETYPE"]}, (route, kernels_seen)
    if "NPY_DISABLE_CPU_FEATURES" in caps:
        dispatched = set(record["numpy_simd"].split())
        assert not dispatched & set(caps["NPY_DISABLE_CPU_FEATURES"].split()), (route, dispatched)
    if "ATEN_CPU_CAPABILITY" in caps and record["torch_cpu"] != "not installed":
        assert record["torch_cpu"] == caps["ATEN_CPU_CAPABILITY"].upper(), (route, record)


@pytest.mark.slow
def test_plain_snakemake_and_make_compute_alike(smoke_run, tmp_path):
    """One run of the smoke profile through Snakemake started from a plain shell (no caps, no
    mirror, no hash seed) and from the Makefile's environment: the same results CSV, and both
    provenance records show the capped kernels. The Makefile's run is the smoke run ``make test``
    made before the tests; without it (pytest started by hand) the two runs go side by side here,
    one core each."""
    make_env = _makefile_environment(tmp_path)
    for name, value in _expected_caps().items():
        assert make_env.get(name) == value, f"the Makefile does not export {name}={value}"
    routes = {"plain": _plain_environment(), "make": make_env}
    folders = {"make": smoke_run} if shared_smoke.made_by_make(smoke_run) else {}
    procs = {}
    for route, env in routes.items():
        if route in folders:
            continue
        folders[route] = work = tmp_path / route
        work.mkdir()
        cmd = shared_smoke.snakemake_command(work, f"results/smoke/{RUN}.csv", cores=1)
        log = (tmp_path / f"{route}.log").open("w")
        procs[route] = (subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT), log)
    for route, (proc, log) in procs.items():
        proc.wait(timeout=900)
        log.close()
        assert proc.returncode == 0, (route, (tmp_path / f"{route}.log").read_text()[-3000:])
    csv = {
        route: (folders[route] / "results" / "smoke" / f"{RUN}.csv").read_bytes()
        for route in routes
    }
    assert csv["plain"] == csv["make"]
    for route in routes:
        record = json.loads(
            (folders[route] / "results" / "smoke" / "provenance" / f"{RUN}.json").read_text()
        )
        _assert_capped(record, route)


PROBE = """\
import json, os
from ppdp.report.provenance import numpy_simd_targets
print(json.dumps({"env": {name: os.environ.get(name) for name in NAMES}, "simd": numpy_simd_targets()}))
"""


@pytest.mark.slow
def test_papermill_by_hand_runs_in_the_capped_kernel(tmp_path):
    """papermill run directly, from a shell without the caps, on a notebook naming the kernel the
    project's notebooks name: the kernel process has the caps and the hash seed, so numpy
    dispatches to no loop they disable."""
    committed = nbformat.read(ROOT / "notebooks" / f"{RUN}.ipynb", as_version=4)
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": dict(committed.metadata.kernelspec)})
    names = [*kernels.CAPS, *kernels.HASH_SEED]
    nb.cells.append(nbformat.v4.new_code_cell(f"NAMES = {names!r}\n" + PROBE))
    nbformat.write(nb, tmp_path / "probe.ipynb")
    proc = subprocess.run(
        [sys.executable, "-m", "papermill", "--no-progress-bar", "probe.ipynb", "out.ipynb"],
        cwd=tmp_path,
        env=_plain_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    seen = json.loads(out.cells[0].outputs[0]["text"])
    expected = {**dict.fromkeys(kernels.CAPS), **_expected_caps(), **kernels.HASH_SEED}
    assert seen["env"] == expected
    disabled = set(_expected_caps().get("NPY_DISABLE_CPU_FEATURES", "").split())
    assert not set(seen["simd"].split()) & disabled


@pytest.mark.slow
def test_snakemake_without_data_stops_before_any_job(tmp_path):
    """Offline, with an empty data cache and no mirror, Snakemake stops while it reads the
    Snakefile, naming PPDP_DATA_MIRROR and the files it lacks; no job starts."""
    env = {
        **_plain_environment(),
        "PPDP_DATA_DIR": str(tmp_path / "empty-cache"),
        "PPDP_DATA_MIRROR": "",
        "PPDP_OFFLINE": "1",
    }
    proc = subprocess.run(
        shared_smoke.snakemake_command(tmp_path / "work", cores=1),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "PPDP_DATA_MIRROR" in out
    for file in (
        "adult/adult.data",
        "mutual-cover-census/filter_data.csv",
        "movielens-1m/ml-1m.inter",
    ):
        assert file in out, file
    assert not (tmp_path / "work" / "results").exists()


def _toy_project(tmp_path: Path) -> Path:
    """A checkout (pyproject.toml) with the mirror beside it, as ../shared/data."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    mirror = tmp_path / "shared" / "data"
    mirror.mkdir(parents=True)
    return project


def test_the_data_layer_finds_the_mirror_beside_the_project(tmp_path, monkeypatch):
    """Without PPDP_DATA_MIRROR, ../shared/data beside the project is the mirror when it holds
    MANIFEST.md; the variable overrides it, and set empty turns the mirror off."""
    project = _toy_project(tmp_path)
    monkeypatch.setattr(fetch_mod, "_project_root", lambda: project)
    monkeypatch.delenv("PPDP_DATA_MIRROR", raising=False)
    assert fetch_mod._mirror_dir() is None  # no MANIFEST.md yet
    assert "../shared/data" in fetch_mod._no_mirror_reason()
    (tmp_path / "shared" / "data" / "MANIFEST.md").write_text("")
    assert fetch_mod._mirror_dir() == (tmp_path / "shared" / "data").resolve()
    monkeypatch.setenv("PPDP_DATA_MIRROR", str(tmp_path / "elsewhere"))
    assert fetch_mod._mirror_dir() == tmp_path / "elsewhere"
    monkeypatch.setenv("PPDP_DATA_MIRROR", "")
    assert fetch_mod._mirror_dir() is None
    assert "set empty" in fetch_mod._no_mirror_reason()
    # installed outside a checkout (no pyproject.toml at the root), no default
    (project / "pyproject.toml").unlink()
    monkeypatch.delenv("PPDP_DATA_MIRROR")
    assert fetch_mod._mirror_dir() is None


def test_the_default_mirror_serves_a_fetch_offline(tmp_path, monkeypatch):
    """A dataset file only the mirror holds is fetched offline with no variable set."""
    import hashlib

    from ppdp.datasets.registry import DATASETS, DataFile, Dataset, MirrorSource

    project = _toy_project(tmp_path)
    mirror = tmp_path / "shared" / "data"
    (mirror / "MANIFEST.md").write_text("")
    data = b"x,y\n1,2\n"
    (mirror / "toy").mkdir()
    (mirror / "toy" / "toy.csv").write_bytes(data)
    file = DataFile(
        "toy.csv",
        hashlib.sha256(data).hexdigest(),
        len(data),
        rows=1,
        sources=(MirrorSource("toy"),),
    )
    monkeypatch.setitem(DATASETS, "toy", Dataset("toy", "", "", "", "", files=(file,), loader=""))
    monkeypatch.setattr(fetch_mod, "_project_root", lambda: project)
    monkeypatch.delenv("PPDP_DATA_MIRROR", raising=False)
    monkeypatch.setenv("PPDP_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PPDP_OFFLINE", "1")
    from ppdp.datasets.__main__ import unavailable

    assert unavailable(["toy"]) == []
    path = fetch_mod.fetch("toy", progress=False)["toy.csv"]
    assert path.read_bytes() == data
    # without the mirror the check names the file and the variable, before anything is fetched
    path.unlink()
    monkeypatch.setenv("PPDP_DATA_MIRROR", "")
    (missing,) = unavailable(["toy/toy.csv"])
    assert missing.startswith("toy/toy.csv: not cached") and "PPDP_DATA_MIRROR" in missing
