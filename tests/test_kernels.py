"""The CPU kernel caps of ppdp.kernels: their one source, who applies them, and what they select.

tests/test_routes.py runs the routes end to end (Snakemake, papermill); these are the parts.
"""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager

from ppdp import kernels

ROOT = Path(__file__).resolve().parents[1]
ALL = (*kernels.CAPS, *kernels.HASH_SEED, kernels.NATIVE)


def _plain_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ALL}


def test_a_variable_set_is_kept_and_the_opt_out_sets_no_cap():
    env = {"ATEN_CPU_CAPABILITY": "avx512", "PYTHONHASHSEED": "7"}
    added = kernels.apply(env, capped=True)
    assert env["ATEN_CPU_CAPABILITY"] == "avx512" and env["PYTHONHASHSEED"] == "7"
    assert set(added) == set(kernels.CAPS) - {"ATEN_CPU_CAPABILITY"}
    for value in ("1", "true", " Yes ", "ON"):
        assert kernels.environment({kernels.NATIVE: value}, capped=True) == {"PYTHONHASHSEED": "0"}
    for value in ("0", "", "no"):
        assert set(kernels.environment({kernels.NATIVE: value}, capped=True)) > set(kernels.CAPS)
    # off x86-64 with AVX2 only the hash seed
    assert kernels.environment({}, capped=False) == dict(kernels.HASH_SEED)


def test_the_caps_apply_to_x86_64_with_avx2_only(monkeypatch):
    monkeypatch.setattr(kernels, "_has_avx2", lambda: True)
    assert kernels.caps_apply("x86_64") and kernels.caps_apply("AMD64")
    assert not kernels.caps_apply("arm64")
    monkeypatch.setattr(kernels, "_has_avx2", lambda: False)
    assert not kernels.caps_apply("x86_64")


def _makefile_exports(extra: dict[str, str], tmp_path: Path, *args: str) -> dict[str, str]:
    probe = tmp_path / "env.mk"
    probe.write_text(
        "include Makefile\n"
        "exports:\n"
        '\t@$(BIN)/python -c "import json, os; print(json.dumps(dict(os.environ)))"\n'
    )
    proc = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "-f", str(probe), "exports", f"VENV={sys.prefix}", *args],
        env={**_plain_environment(), **extra},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_makefile_takes_the_caps_from_the_module(tmp_path):
    """The Makefile holds no copy of the values: it exports what ppdp.kernels gives this machine,
    keeps a value the caller set, and exports none with the opt-out (from the environment or from
    make's command line)."""
    makefile = (ROOT / "Makefile").read_text()
    for value in kernels.CAPS.values():
        assert value not in makefile, f"the Makefile repeats {value!r}"
    expected = kernels.environment({}, hash_seed=False)
    exported = _makefile_exports({}, tmp_path)
    assert {name: exported.get(name) for name in kernels.CAPS} == {
        name: expected.get(name) for name in kernels.CAPS
    }
    assert exported["PYTHONHASHSEED"] == "0"
    kept = _makefile_exports({"MKL_CBWR": "AVX2"}, tmp_path)
    assert kept["MKL_CBWR"] == "AVX2"
    from_environment = _makefile_exports({kernels.NATIVE: "1"}, tmp_path)
    assert not set(kernels.CAPS) & set(from_environment)
    from_command_line = _makefile_exports({}, tmp_path, f"{kernels.NATIVE}=1")
    assert not set(kernels.CAPS) & set(from_command_line)


def test_the_module_runs_as_a_script_on_the_standard_library_alone():
    """The Makefile runs lib/ppdp/kernels.py before the environment exists: no site-packages."""
    proc = subprocess.run(
        [sys.executable, "-S", str(ROOT / "lib" / "ppdp" / "kernels.py"), "make"],
        env={**_plain_environment(), "PPDP_NATIVE_KERNELS": "0"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.strip().split(";") if line]
    assert lines == [
        f"export {n} ?= {v}" for n, v in kernels.environment({}, hash_seed=False).items()
    ]


def test_launch_applies_the_caps_then_becomes_ipykernel(monkeypatch, tmp_path):
    connection = str(tmp_path / "kernel-1.json")
    calls = []
    for name in ALL:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(kernels, "caps_apply", lambda *a, **k: True)
    monkeypatch.setattr(
        os, "execv", lambda path, argv: calls.append((path, argv, dict(os.environ)))
    )
    kernels.main(["launch", "-f", connection])
    ((path, argv, env),) = calls
    assert path == sys.executable
    assert argv == [sys.executable, "-m", "ipykernel_launcher", "-f", connection]
    assert {name: env.get(name) for name in kernels.CAPS} == dict(kernels.CAPS)
    assert env["PYTHONHASHSEED"] == "0"


def test_the_notebooks_kernel_starts_through_the_launcher():
    """The kernel the notebooks name, as papermill, nbval and JupyterLab resolve it in this
    environment (make install writes it): its command is ppdp.kernels launch."""
    names = {
        nbformat.read(path, as_version=4).metadata.kernelspec.name
        for path in (ROOT / "notebooks").glob("*.ipynb")
    }
    assert names == {"python3"}
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert spec.argv == kernels.kernel_argv(), (
        f"the python3 kernel ({spec.resource_dir}) starts with {spec.argv}; run make install "
        "(python -m ppdp.kernels install-kernelspec)"
    )
    assert Path(spec.resource_dir).resolve().is_relative_to(Path(sys.prefix).resolve())
    assert spec.display_name == "Python 3 (ipykernel)"


@pytest.mark.skipif(not kernels.caps_apply(), reason="the caps apply to x86-64 machines with AVX2")
def test_the_caps_leave_avx2_kernels_in_every_library():
    code = (
        "import json, numpy, scipy.linalg, torch\n"
        "from threadpoolctl import threadpool_info\n"
        "from ppdp.report import numpy_simd_targets\n"
        "print(json.dumps([torch.backends.cpu.get_cpu_capability(), numpy_simd_targets(),"
        " sorted({i.get('architecture') for i in threadpool_info() if i['user_api'] == 'blas'})]))"
    )
    env = _plain_environment()
    kernels.apply(env)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    torch_cpu, simd, blas = json.loads(out.stdout)
    assert torch_cpu == "AVX2"
    assert simd == "X86_V3"
    assert blas == ["Haswell"]


@pytest.mark.parametrize("named", ["default", "avx2"])
def test_the_provenance_reads_the_capability_pytorch_takes(named):
    """The provenance answers for these values without importing PyTorch; PyTorch, asked in a
    process started with the same variable, gives the same answer."""
    pytest.importorskip("torch")
    if named == "avx2" and platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("PyTorch has AVX2 kernels on x86-64 machines only")
    code = (
        "import sys, torch\n"
        "from ppdp.report import torch_cpu_capability\n"
        "print(torch.backends.cpu.get_cpu_capability(), torch_cpu_capability())\n"
    )
    env = {**_plain_environment(), "ATEN_CPU_CAPABILITY": named}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    asked, read = out.stdout.split()
    assert read == asked
    quick = (
        "import sys\nfrom ppdp.report import torch_cpu_capability\n"
        "print(torch_cpu_capability(), 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", quick], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [asked, "False"]
