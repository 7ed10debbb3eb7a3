"""The CPU kernel caps that make x86-64 machines compute the same bits, in one place.

numpy, PyTorch and OpenBLAS each dispatch to code for the machine's widest instruction set, and
their AVX512 code rounds differently from their AVX2 code: with the same code and seeds, PyTorch's
kernels trained other IMPOSTER networks, numpy's loops moved SPPM's Frank-Wolfe steps, and OpenBLAS
picks its kernel by the CPU too. Capped at AVX2, every x86-64 machine with AVX2 (Intel since 2013,
AMD since 2015) computes alike, with one exception below. PyTorch's matrix products run in the MKL
it ships, which picks its kernels by the CPU's vendor as well as its instruction set (AVX2 and
``MKL_CBWR=AVX2`` still differ between Intel and AMD); its COMPATIBLE branch is meant to give the
same bits on both. Under all four caps every result of the default profile is equal on an Intel
AVX-512 and an AMD AVX2 machine except IMPOSTER's trained networks, whose cause
``benchmarks/imposter_vendor_probe.py`` narrows down (run it on both CPUs and compare). The
libraries read these variables once, when they load, so they must be in the environment before the
computing process starts: setting them in a Python process that has imported numpy changes nothing
for that process.

Every route to a result applies them itself:

- ``make`` exports them (``python lib/ppdp/kernels.py make`` prints them as Makefile assignments),
  so the tests' processes get them;
- the Snakefile applies them to its own environment before any job starts (:func:`apply`), so every
  job inherits them, with or without ``make``;
- the notebooks' Jupyter kernel ``python3`` runs ``python -m ppdp.kernels launch``, which applies
  them and then starts ipykernel (:func:`install_kernelspec`, run by ``make install``), so that
  papermill run by hand, nbval and JupyterLab compute as the pipeline does.

A variable already set is kept (``ATEN_CPU_CAPABILITY=avx512 make ...`` runs with AVX512 kernels),
and ``PPDP_NATIVE_KERNELS=1`` leaves all four unset: each library then takes the machine's own
kernels. Each run's provenance records the kernels it ran with (:mod:`ppdp.report.provenance`).

At import this module loads nothing beyond the standard library (nothing of ppdp; ipykernel only
when :func:`install_kernelspec` runs), so that the Makefile can run it as a script before the
environment is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Mapping, MutableMapping, Sequence
from pathlib import Path
from types import MappingProxyType

__all__ = [
    "CAPS",
    "HASH_SEED",
    "KERNEL_FIELDS",
    "NATIVE",
    "SNAKEMAKE_THREAD_VARIABLES",
    "TORCH_NOTEBOOKS",
    "apply",
    "blas_entries",
    "caps_apply",
    "compared_families",
    "differing_families",
    "environment",
    "environment_record",
    "install_kernelspec",
    "kernel_argv",
    "launch",
    "main",
    "other_kernels",
    "probe_environment",
]

CAPS: Mapping[str, str] = MappingProxyType(
    {
        # PyTorch's CPU kernels (read on its first operator dispatch)
        "ATEN_CPU_CAPABILITY": "avx2",
        # numpy's loops for AVX512 (Skylake-X, Ice Lake, Sapphire Rapids) and x86-64-v4
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
        # OpenBLAS (numpy's and scipy's BLAS): its AVX2 kernel whatever the CPU
        "OPENBLAS_CORETYPE": "Haswell",
        # the MKL inside PyTorch: the branch that computes alike on Intel and AMD
        "MKL_CBWR": "COMPATIBLE",
    }
)
"""The four variables and their values, applied on x86-64 machines with AVX2."""

HASH_SEED: Mapping[str, str] = MappingProxyType({"PYTHONHASHSEED": "0"})
"""The order of sets of strings: fixed on every route, whatever the CPU, so that a result that
came to depend on it would still repeat."""

NATIVE = "PPDP_NATIVE_KERNELS"
"""The opt-out: set to 1 (or true, yes, on), no cap is applied."""

_TRUE = {"1", "true", "yes", "on"}
_X86_64 = {"x86_64", "amd64", "x64"}


def _has_avx2() -> bool:
    """Whether this CPU has AVX2: Linux's ``/proc/cpuinfo``, else macOS's ``sysctl``."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return "avx2" in line.split(":", 1)[1].split()
        return False
    except OSError:
        pass
    if sys.platform == "darwin":
        try:
            out = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.leaf7_features"],
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return False
        return "AVX2" in out.split()
    return False


def caps_apply(machine: str | None = None, avx2: bool | None = None) -> bool:
    """Whether :data:`CAPS` apply to a machine: x86-64 with AVX2.

    On another machine (ARM, or x86-64 without AVX2) the caps would name kernels it lacks; the
    libraries' own choice is kept there.

    Parameters
    ----------
    machine : str, optional
        The machine type (``platform.machine()``); default: this machine's.
    avx2 : bool, optional
        Whether the CPU has AVX2; default: read from this machine (``/proc/cpuinfo``).

    Returns
    -------
    bool

    Examples
    --------
    >>> caps_apply("x86_64", avx2=True), caps_apply("x86_64", avx2=False)
    (True, False)
    >>> caps_apply("aarch64", avx2=False)
    False
    """
    machine = platform.machine() if machine is None else machine
    if machine.lower() not in _X86_64:
        return False
    return _has_avx2() if avx2 is None else bool(avx2)


def environment(
    environ: Mapping[str, str] | None = None,
    *,
    capped: bool | None = None,
    hash_seed: bool = True,
) -> dict[str, str]:
    """The variables to add to ``environ``: the caps that apply and the hash seed, less those
    already set there.

    Parameters
    ----------
    environ : mapping, optional
        The environment the caps are for; default: ``os.environ``. A variable it sets is kept,
        and with ``PPDP_NATIVE_KERNELS=1`` in it no cap is added.
    capped : bool, optional
        Whether the caps apply to the machine; default: :func:`caps_apply` of this machine.
    hash_seed : bool, default True
        Add ``PYTHONHASHSEED=0`` too (:data:`HASH_SEED`).

    Returns
    -------
    dict of str to str
        The variables to set, in the order of :data:`CAPS`, then the hash seed.

    Examples
    --------
    >>> environment({}, capped=True)["NPY_DISABLE_CPU_FEATURES"]
    'X86_V4 AVX512_ICL AVX512_SPR'
    >>> sorted(environment({"ATEN_CPU_CAPABILITY": "avx512"}, capped=True, hash_seed=False))
    ['MKL_CBWR', 'NPY_DISABLE_CPU_FEATURES', 'OPENBLAS_CORETYPE']
    >>> environment({"PPDP_NATIVE_KERNELS": "1"}, capped=True)
    {'PYTHONHASHSEED': '0'}
    >>> environment({}, capped=False, hash_seed=False)
    {}
    """
    environ = os.environ if environ is None else environ
    native = environ.get(NATIVE, "").strip().lower() in _TRUE
    if capped is None:
        capped = not native and caps_apply()
    wanted = dict(CAPS) if capped and not native else {}
    if hash_seed:
        wanted.update(HASH_SEED)
    return {name: value for name, value in wanted.items() if name not in environ}


def other_kernels(
    environ: Mapping[str, str] | None = None, *, capped: bool | None = None
) -> tuple[str, dict[str, str]]:
    """An environment whose arithmetic differs from ``environ``'s, to run a computation again
    and see which of its results the kernels move.

    Where the caps apply (:func:`caps_apply`), the other environment takes the machine's own
    kernels when ``environ`` has the caps, and the caps when it opted out (``PPDP_NATIVE_KERNELS``);
    where none apply, it runs every library on one thread (other summation orders in the BLAS
    and in PyTorch).

    Parameters
    ----------
    environ : mapping, optional
        Default ``os.environ``; it is not changed.
    capped : bool, optional
        Whether the caps apply to the machine; default: :func:`caps_apply` of this machine.

    Returns
    -------
    (str, dict of str to str)
        What differs, in words, and the whole other environment.

    Examples
    --------
    >>> other_kernels({"OPENBLAS_CORETYPE": "Haswell"}, capped=True)
    ("the machine's own kernels (no caps)", {'PPDP_NATIVE_KERNELS': '1'})
    >>> other_kernels({"PPDP_NATIVE_KERNELS": "1"}, capped=True)
    ('the kernel caps', {})
    >>> other_kernels({}, capped=False)[1]["OPENBLAS_NUM_THREADS"]
    '1'
    """
    env = dict(os.environ if environ is None else environ)
    capped = caps_apply() if capped is None else capped
    if capped:
        for name in CAPS:
            env.pop(name, None)
        if env.pop(NATIVE, "").strip().lower() in _TRUE:
            return "the kernel caps", env
        env[NATIVE] = "1"
        return "the machine's own kernels (no caps)", env
    env.update(dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"), "1"))
    return "one thread per library", env


#: The provenance fields that say which CPU kernels a run computed with
#: (:func:`ppdp.report.provenance.collect_provenance`).
KERNEL_FIELDS = ("numpy_simd", "blas", "torch_cpu", "mkl_cbwr")

#: The thread variables Snakemake sets in every job's environment to the job's ``threads``
#: (``snakemake/shell.py``): a run's BLAS thread count is theirs, not the machine's.
SNAKEMAKE_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)

#: The notebooks whose code can import PyTorch, the only ones whose results PyTorch's kernels and
#: ``MKL_CBWR`` can move. ``tests/test_kernel_reach.py`` checks it against the static import
#: analysis of every notebook (``tests/kernel_reach.py``).
TORCH_NOTEBOOKS = frozenset({"benchmark", "imposter"})


def blas_entries(record: Mapping) -> list[tuple]:
    """The BLAS libraries of a provenance record, each as (owner, API, version, kernel, threads),
    sorted."""
    return sorted(
        tuple(
            str(entry.get(key))
            for key in ("owner", "internal_api", "version", "kernel", "num_threads")
        )
        for entry in record.get("blas") or []
    )


def differing_families(a: Mapping, b: Mapping) -> set[str]:
    """The library families whose kernels differ between two provenance records.

    Parameters
    ----------
    a, b : mapping
        Records with the fields :data:`KERNEL_FIELDS` (a run's provenance); a field one lacks
        differs (unknown kernels).

    Returns
    -------
    set of str
        ``"numpy"`` if the numpy SIMD targets differ; ``"blas"`` if the BLAS libraries differ
        (in kernel or thread count, or in which libraries and versions are loaded); ``"torch"`` if
        PyTorch's CPU capability or ``MKL_CBWR`` differ.

    Examples
    --------
    >>> same = {"numpy_simd": "X86_V3", "blas": [], "torch_cpu": "AVX2", "mkl_cbwr": "unset"}
    >>> sorted(differing_families(same, {**same, "mkl_cbwr": "COMPATIBLE"}))
    ['torch']
    >>> differing_families(same, dict(same))
    set()
    """
    families = set()
    if _field_differs(a, b, "numpy_simd"):
        families.add("numpy")
    if "blas" not in a or "blas" not in b or blas_entries(a) != blas_entries(b):
        families.add("blas")
    if _field_differs(a, b, "torch_cpu") or _field_differs(a, b, "mkl_cbwr"):
        families.add("torch")
    return families


def environment_record(env: Mapping[str, str], *, threads: int | None = None) -> dict:
    """The kernel fields of the provenance a run would record in the environment ``env``.

    A fresh interpreter (this one's executable) records them with
    :func:`ppdp.report.provenance.collect_provenance`, after the caps of :mod:`ppdp.kernels` are
    applied to ``env`` exactly as a run's job and its Jupyter kernel apply them
    (:func:`apply`, which the Snakefile and ``python -m ppdp.kernels launch`` call):
    the caps that apply to this machine, less those ``env`` sets, none with
    ``PPDP_NATIVE_KERNELS=1``. numpy, OpenBLAS and PyTorch read them once, when they load, hence
    the new process.

    Parameters
    ----------
    env : mapping of str to str
        The environment the run would start from (e.g. ``os.environ``, or the environment of the
        other kernels).
    threads : int, optional
        The job's threads: Snakemake sets :data:`SNAKEMAKE_THREAD_VARIABLES` of every job to them
        (1 for a smoke run), which the BLAS's ``num_threads`` shows. Default: keep ``env``'s own.

    Returns
    -------
    dict
        The fields :data:`KERNEL_FIELDS`.
    """
    code = (
        "import json\n"
        "from ppdp.report.provenance import collect_provenance\n"
        "record = collect_provenance()\n"
        f"print(json.dumps({{field: record[field] for field in {KERNEL_FIELDS!r}}}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=probe_environment(env, threads=threads),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"the kernel probe failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}"
        )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def probe_environment(env: Mapping[str, str], *, threads: int | None = None) -> dict[str, str]:
    """The environment a run's job and its Jupyter kernel compute in, started from ``env``:
    ``env`` with :func:`apply` applied, and Snakemake's thread variables set to
    ``threads`` if given (see :func:`environment_record`)."""
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)):
        raise TypeError(f"threads must be an int or None, got {threads!r}")
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    probed = dict(env)
    apply(probed)
    if threads is not None:
        probed.update(dict.fromkeys(SNAKEMAKE_THREAD_VARIABLES, str(threads)))
    return probed


def compared_families(a: Mapping, b: Mapping, notebook: str | None) -> set[str]:
    """The kernel families that differ between two runs of one notebook and that its code can
    compute with: :func:`differing_families`, PyTorch's left out unless the notebook is one of
    :data:`TORCH_NOTEBOOKS`. An unknown notebook (``None``) is not credited with PyTorch: a
    comparison that rests on PyTorch's kernels alone then compares nothing it can show.

    Examples
    --------
    >>> same = {"numpy_simd": "X86_V3", "blas": [], "torch_cpu": "AVX2", "mkl_cbwr": "unset"}
    >>> compared_families(same, {**same, "mkl_cbwr": "COMPATIBLE"}, "hyobscure")
    set()
    >>> compared_families(same, {**same, "mkl_cbwr": "COMPATIBLE"}, "imposter")
    {'torch'}
    """
    families = differing_families(a, b)
    return families if notebook in TORCH_NOTEBOOKS else families - {"torch"}


def _field_differs(a: Mapping, b: Mapping, field: str) -> bool:
    """Whether ``field`` differs, a field that either record lacks included (unknown kernels)."""
    return field not in a or field not in b or a[field] != b[field]


def apply(
    environ: MutableMapping[str, str] | None = None,
    *,
    capped: bool | None = None,
    hash_seed: bool = True,
) -> dict[str, str]:
    """Set the variables of :func:`environment` in ``environ``; return those it set.

    Parameters
    ----------
    environ : mutable mapping, optional
        Default ``os.environ``: then every process started afterwards inherits them (the process
        itself only if it has not loaded numpy, PyTorch or OpenBLAS yet).
    capped, hash_seed
        As for :func:`environment`.

    Returns
    -------
    dict of str to str
        The variables set (those already in ``environ`` are left as they are).

    Examples
    --------
    >>> env = {"MKL_CBWR": "AVX2"}
    >>> sorted(apply(env, capped=True))
    ['ATEN_CPU_CAPABILITY', 'NPY_DISABLE_CPU_FEATURES', 'OPENBLAS_CORETYPE', 'PYTHONHASHSEED']
    >>> env["MKL_CBWR"], env["OPENBLAS_CORETYPE"]
    ('AVX2', 'Haswell')
    """
    environ = os.environ if environ is None else environ
    added = environment(environ, capped=capped, hash_seed=hash_seed)
    environ.update(added)
    return added


def kernel_argv() -> list[str]:
    """The command of the notebooks' Jupyter kernel: :func:`launch` through this module.

    ``python`` stands for the interpreter that starts the kernel (jupyter_client puts its own
    there), as in ipykernel's own ``kernel.json``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> kernel_argv()
    ['python', '-m', 'ppdp.kernels', 'launch', '-f', '{connection_file}']
    """
    return ["python", "-m", "ppdp.kernels", "launch", "-f", "{connection_file}"]


def install_kernelspec(prefix: str | os.PathLike | None = None, name: str = "python3") -> Path:
    """Write the kernel ``name`` of the environment at ``prefix`` so that it starts through
    :func:`launch`.

    The notebooks name the kernel ``python3`` ("Python 3 (ipykernel)"), which papermill, nbval and
    JupyterLab look up first in the running environment's ``share/jupyter/kernels``; ipykernel
    installs one there that starts ipykernel directly. This one keeps its name, display name and
    logos and changes only the command, so the notebooks' metadata stays as committed.

    Parameters
    ----------
    prefix : str or path-like, optional
        The environment's prefix; default ``sys.prefix``.
    name : str, default "python3"
        The kernel's name.

    Returns
    -------
    pathlib.Path
        The kernel's folder (``<prefix>/share/jupyter/kernels/<name>``).

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as prefix:
    ...     spec = json.loads((install_kernelspec(prefix) / "kernel.json").read_text())
    >>> spec["argv"][2:4], spec["display_name"]
    (['ppdp.kernels', 'launch'], 'Python 3 (ipykernel)')
    """
    from ipykernel.kernelspec import write_kernel_spec
    from jupyter_client.kernelspec import KernelSpecManager

    prefix = sys.prefix if prefix is None else os.fspath(prefix)
    with tempfile.TemporaryDirectory() as tmp:
        # ipykernel's own spec (display name, language, logos, debugger metadata), another argv
        source = write_kernel_spec(Path(tmp) / name, overrides={"argv": kernel_argv()})
        folder = KernelSpecManager().install_kernel_spec(source, kernel_name=name, prefix=prefix)
    return Path(folder)


def launch(argv: Sequence[str]) -> None:
    """Apply the caps to this process's environment, then become the ipykernel kernel.

    The kernel process starts with the caps in its environment, before anything in it imports
    numpy; the arguments are ipykernel's (``-f CONNECTION_FILE``).

    Parameters
    ----------
    argv : sequence of str
        ipykernel's command-line arguments.
    """
    apply(os.environ)
    command = [sys.executable, "-m", "ipykernel_launcher", *argv]
    if os.name != "posix":  # pragma: no cover  (Windows: execv would detach the kernel)
        sys.exit(subprocess.call(command))
    # the same process (the same pid, so interrupts and shutdowns reach the kernel), a new image
    os.execv(sys.executable, command)


def _makefile_lines(environ: Mapping[str, str]) -> str:
    """The caps as ``export NAME ?= VALUE`` Makefile lines joined by ``;`` (make's ``$(shell)``
    turns newlines into spaces; the Makefile turns ``;`` back into newlines)."""
    added = environment(environ, hash_seed=False)
    # make expands $ and starts a comment at #
    escaped = {name: value.replace("$", "$$").replace("#", "\\#") for name, value in added.items()}
    return ";".join(f"export {name} ?= {value}" for name, value in escaped.items())


def _show(environ: Mapping[str, str]) -> dict:
    """Each cap's value in effect for a process started from ``environ`` and why."""
    added = environment(environ, hash_seed=False)
    native = environ.get(NATIVE, "").strip().lower() in _TRUE
    shown = {"caps_apply": caps_apply(), NATIVE: native, "variables": {}}
    for name in CAPS:
        if name in environ:
            shown["variables"][name] = {"value": environ[name], "from": "environment"}
        elif name in added:
            shown["variables"][name] = {"value": added[name], "from": "ppdp.kernels"}
        else:
            shown["variables"][name] = {"value": None, "from": "the library's own choice"}
    return shown


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ppdp.kernels {show, make, launch, install-kernelspec}``; return the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0, or 2 for a usage error.
    """
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.kernels",
        description="The CPU kernel caps that make x86-64 machines with AVX2 compute alike.",
        epilog=f"{NATIVE}=1 applies none; a variable already set is kept.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("show", help="print the caps in effect here and where each comes from (JSON)")
    sub.add_parser("make", help="print them as Makefile assignments (used by the Makefile)")
    sub.add_parser("launch", help="apply them, then run ipykernel with the arguments that follow")
    p_install = sub.add_parser(
        "install-kernelspec", help="make the environment's python3 kernel start through launch"
    )
    p_install.add_argument("--prefix", default=sys.prefix, help="the environment (sys.prefix)")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["launch"]:
        # everything after it is ipykernel's, options included
        launch(argv[1:])
        return 0
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if args.command == "show":
        print(json.dumps(_show(os.environ), indent=1))
    elif args.command == "make":
        print(_makefile_lines(os.environ))
    else:
        print(install_kernelspec(args.prefix))
    return 0


if __name__ == "__main__":
    sys.exit(main())
