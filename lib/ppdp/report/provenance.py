"""The provenance of the report's numbers: the environment of every notebook run and its wall time.

A run's environment (Python, key packages, the BLAS library and kernel, CPUs, git commit) is
``results/<profile>/provenance/<run>.json``, written by ``python -m ppdp.report provenance`` after
the run (:func:`write_provenance`); its wall time is ``results/<profile>/benchmarks/<run>.tsv``,
written by Snakemake. :func:`render_provenance` opens the report with them beside the report's own
environment, flagging runs whose environments differ.
"""

from __future__ import annotations

import csv
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import subprocess
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "COMPUTATION_SOURCES",
    "PACKAGES",
    "PUBLISHED_OUTPUTS",
    "SAME_SOURCES",
    "SCHEDULING_KEYS",
    "changed_sources",
    "collect_provenance",
    "cpu_model",
    "git_state",
    "load_provenance",
    "numpy_simd_targets",
    "read_benchmark",
    "render_provenance",
    "stamp_notebook",
    "torch_cpu_capability",
    "write_provenance",
]

#: The provenance table's note, beside the report's commit, that its runs' computation sources
#: are those of the report's commit (:func:`changed_sources`).
SAME_SOURCES = "the runs' computation sources unchanged"

# the packages whose versions a run's provenance records (distribution names; the first installed
# of each tuple counts)
PACKAGES = (
    ("numpy",),
    ("scipy",),
    ("pandas",),
    ("scikit-learn",),
    ("cvxpy", "cvxpy-base"),
    ("highspy",),
    ("clarabel",),
    ("torch",),
    ("xgboost", "xgboost-cpu"),
)


def collect_provenance(repo: str | os.PathLike | None = None) -> dict[str, Any]:
    """The environment a computation runs in: Python, key packages, BLAS, CPUs, git state.

    ``repo`` is the compendium's folder whose git commit is recorded ("unknown" without git or
    outside a repository). Importing numpy and scipy loads their BLAS libraries, which
    threadpoolctl then describes: the library, its version, the CPU kernel it selected and its
    thread count, which together decide the last bits of every linear-algebra result.
    """
    import numpy  # noqa: F401  (loads its BLAS for threadpoolctl)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    packages = {}
    for names in PACKAGES:
        version = "not installed"
        for name in names:
            try:
                version = importlib.metadata.version(name)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
        packages[names[0]] = version
    blas = []
    for lib in threadpool_info():
        if lib.get("user_api") != "blas":
            continue
        # the wheel that bundles the library (numpy.libs, scipy.libs), never a machine path
        folder = Path(lib.get("filepath") or "").parent.name
        blas.append(
            {
                "owner": folder.removesuffix(".libs") if folder.endswith(".libs") else "",
                "internal_api": lib.get("internal_api"),
                "version": lib.get("version"),
                "kernel": lib.get("architecture") or lib.get("threading_layer") or "unknown",
                "num_threads": lib.get("num_threads"),
            }
        )
    blas.sort(key=lambda b: (b["owner"], str(b["internal_api"]), str(b["version"])))
    affinity = getattr(os, "sched_getaffinity", None)
    return {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "packages": packages,
        "blas": blas,
        "torch_cpu": torch_cpu_capability(),
        # PyTorch's MKL picks its matrix kernels by the CPU's vendor unless MKL_CBWR fixes a branch
        "mkl_cbwr": os.environ.get("MKL_CBWR", "") or "unset",
        "cpu_model": cpu_model(),
        "numpy_simd": numpy_simd_targets(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(affinity(0)) if affinity else os.cpu_count(),
        "git": git_state(repo),
        "recorded_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else the processor or machine type that
    :mod:`platform` reports (ARM's ``/proc/cpuinfo`` names no model)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def torch_cpu_capability() -> str:
    """The CPU kernels PyTorch dispatches to (``"AVX2"``, ``"AVX512"``, ...), or "not installed".

    PyTorch picks its kernels by the best instruction set of the machine unless the environment
    variable ``ATEN_CPU_CAPABILITY`` caps it; the kernels round differently, so a network trained
    with the same seed differs between an AVX2 and an AVX512 machine (IMPOSTER's releases do).
    ``ppdp.kernels`` caps it at ``avx2`` on x86-64 machines with AVX2 (every route applies it) so
    that they all train alike.
    """
    if importlib.util.find_spec("torch") is None:
        return "not installed"
    # PyTorch takes these two values of the variable as they are (an x86-64 build has its AVX2
    # kernels), without a look at the CPU: the answer needs no import of PyTorch, which costs
    # about 3 CPU seconds in every run's provenance step. Any other value, or none, is asked.
    named = os.environ.get("ATEN_CPU_CAPABILITY")
    if named == "default":
        return "DEFAULT"
    if named == "avx2" and platform.machine().lower() in ("x86_64", "amd64"):
        return "AVX2"
    import torch

    return str(torch.backends.cpu.get_cpu_capability())


def numpy_simd_targets() -> str:
    """The instruction sets numpy dispatches its loops to beyond its baseline (``"X86_V3"``, ...).

    Like PyTorch, numpy picks the widest its machine offers (``NPY_DISABLE_CPU_FEATURES`` caps
    them), and its AVX512 loops for ``log``, ``exp`` and reductions round differently from its
    AVX2 ones.
    """
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return "unknown"
    used = [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]
    return " ".join(used) or "baseline only"


#: git pathspecs of the published report (with its figures and cost table), excluded from the
#: provenance's "clean" check.
PUBLISHED_OUTPUTS = (
    ":(exclude)reports/reproduction.md",
    ":(exclude)reports/figures",
    ":(exclude)reports/costs.csv",
    ":(exclude)reports/costs.md",
    # a deciding profile's committed report, verdicts, figures and costs (ppdp.report.deciding)
    ":(exclude)reports/deciding",
)


def git_state(repo: str | os.PathLike | None, exclude: Iterable[str] = ()) -> dict[str, Any]:
    """The commit of ``repo`` and whether its tracked files are unchanged, the published report
    and ``exclude`` (git pathspecs, e.g. the notebooks a run rewrites) aside."""
    cmd = ["git", "-C", str(repo or ".")]
    skipped = [*PUBLISHED_OUTPUTS, *(f":(exclude){path}" for path in exclude)]
    try:
        head = subprocess.run(
            [*cmd, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30
        )
        # the committed report and its figures are this pipeline's own outputs (Snakemake removes
        # them before it rewrites them): they never make the tree that produced them unclean
        status = subprocess.run(
            [*cmd, "status", "--porcelain", "--untracked-files=no", "--", ".", *skipped],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return {"commit": "unknown", "clean": "unknown"}
    if head.returncode != 0 or status.returncode != 0:
        return {"commit": "unknown", "clean": "unknown"}
    return {"commit": head.stdout.strip(), "clean": not status.stdout.strip()}


#: What decides a notebook run's results, as git pathspecs: the library but its report package
#: (no notebook imports it: tests/test_kernel_reach.py), the notebooks, the pipeline and the
#: pinned environment. Between a run and the report that judges it, claims.yaml, the docs, the
#: tests and the report's own code may change; these may not (:func:`changed_sources`).
COMPUTATION_SOURCES = (
    "lib",
    ":(exclude)lib/ppdp/report",
    "notebooks",
    "Snakefile",
    "Makefile",
    "constraints.txt",
    "environment.yml",
    "pyproject.toml",
)


def changed_sources(
    repo: str | os.PathLike, commit: str, *, profile: str, runs: Iterable[str]
) -> list[str] | None:
    """What of a run's computation differs between ``commit`` and ``repo``'s working tree: the
    files of :data:`COMPUTATION_SOURCES` (committed or not), and ``config/<profile>.yaml``'s entry
    of each of ``runs`` (its notebook, parameters and threads; its :data:`SCHEDULING_KEYS` and the
    file's other keys, such as ``decided_by``, say nothing about what a run computes). ``[]``
    when nothing differs, so that runs made at ``commit`` are the runs the working tree would
    make; ``None`` when git cannot tell (no repository, an unknown commit, no such profile file
    at it).

    Examples
    --------
    >>> changed_sources(".", "0" * 40, profile="default", runs=[]) is None
    True
    """
    from ppdp.compendium.yamlfile import read_yaml

    cmd = ["git", "-C", str(repo)]
    try:
        diff = subprocess.run(
            [*cmd, "diff", "--name-only", commit, "--", *COMPUTATION_SOURCES],
            capture_output=True,
            text=True,
            timeout=60,
        )
        then = subprocess.run(
            [*cmd, "show", f"{commit}:config/{profile}.yaml"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    now = Path(repo) / "config" / f"{profile}.yaml"
    if diff.returncode != 0 or then.returncode != 0 or not now.exists():
        return None
    changed = diff.stdout.split()
    old_runs = (read_yaml(now, text=then.stdout) or {}).get("runs") or {}
    new_runs = (read_yaml(now) or {}).get("runs") or {}
    changed += [
        f"config/{profile}.yaml (run {run})"
        for run in runs
        if run not in old_runs or _computed(old_runs.get(run)) != _computed(new_runs.get(run))
    ]
    return changed


#: A run's config keys that only schedule it (its CPU minutes, memory and wall-time limit) or tell
#: the report and the tests which of its claims to let pass: they change nothing it computes.
SCHEDULING_KEYS = frozenset(
    {"cpu_minutes", "mem_mb", "runtime_min", "unmeasured", "kernel_sensitive"}
)


def _computed(spec: Any) -> Any:
    """A run's config entry without :data:`SCHEDULING_KEYS`."""
    if not isinstance(spec, dict):
        return spec
    return {key: value for key, value in spec.items() if key not in SCHEDULING_KEYS}


def write_provenance(
    output: str | os.PathLike, *, repo: str | os.PathLike | None = None, **fields: Any
) -> dict[str, Any]:
    """Write :func:`collect_provenance` of ``repo`` plus ``fields`` (run, profile, ...) as JSON,
    atomically."""
    record = {**fields, **collect_provenance(repo)}
    _write_atomic(Path(output), json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def read_benchmark(path: str | os.PathLike) -> dict[str, float]:
    """The one row of a Snakemake benchmark file: wall seconds ``s``, peak resident memory
    ``max_rss`` (MB) and ``cpu_time`` (seconds), each a finite number >= 0, or ValueError."""
    path = Path(path)
    with open(path, newline="") as handle:
        records = list(csv.DictReader(handle, delimiter="\t"))
    if len(records) != 1:
        raise ValueError(f"{path}: expected one benchmark row, found {len(records)}")
    out = {}
    for column in ("s", "max_rss", "cpu_time"):
        try:
            out[column] = float(records[0][column])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path}: no number in column {column!r}: {error}") from error
        if not math.isfinite(out[column]) or out[column] < 0:
            raise ValueError(f"{path}: column {column!r} is {out[column]}, not a duration")
    return out


def load_provenance(results_dir: str | os.PathLike, runs: Iterable[str]) -> dict[str, dict]:
    """Each run's provenance (``provenance/<run>.json``) with its wall time ``wall_s``, CPU time
    ``cpu_s`` and peak memory ``max_rss_mb`` (``benchmarks/<run>.tsv``, :func:`read_benchmark`);
    ``{}`` for a run that recorded none."""
    results_dir = Path(results_dir)
    out = {}
    for run in runs:
        record: dict[str, Any] = {}
        path = results_dir / "provenance" / f"{run}.json"
        if path.exists():
            try:
                record = json.loads(path.read_text())
            except json.JSONDecodeError as error:
                raise ValueError(f"run {run!r}: {path} is not valid JSON: {error}") from error
        bench = results_dir / "benchmarks" / f"{run}.tsv"
        if bench.exists():
            try:
                measured = read_benchmark(bench)
            except ValueError as error:
                raise ValueError(f"run {run!r}: {error}") from error
            record.update(
                wall_s=measured["s"], cpu_s=measured["cpu_time"], max_rss_mb=measured["max_rss"]
            )
        out[run] = record
    return out


def _environment_rows(env: dict[str, Any]) -> dict[str, str]:
    """The properties of an environment that the report compares, as display strings."""
    if not env or "python" not in env:
        return {}
    git = env.get("git", {})
    commit = str(git.get("commit", "unknown"))
    if commit != "unknown":
        commit = commit[:10] + ("" if git.get("clean") is True else " (uncommitted changes)")
    blas = "; ".join(
        f"{b['owner'] + ': ' if b.get('owner') else ''}{b.get('internal_api')} {b.get('version')} "
        f"({b.get('kernel')}, {b.get('num_threads')} thread{'' if b.get('num_threads') == 1 else 's'})"
        for b in env.get("blas", [])
    )
    rows = {"Python": f"{env['python']} ({env.get('platform', '')})"}
    packages = env.get("packages", {})
    rows["packages"] = ", ".join(
        f"{name} {packages[name]}" for (name, *_) in PACKAGES if name in packages
    )
    rows["BLAS"] = blas or "none found"
    rows["numpy SIMD"] = str(env.get("numpy_simd", "not recorded"))
    rows["PyTorch CPU kernels"] = str(env.get("torch_cpu", "not recorded"))
    rows["MKL branch (MKL_CBWR)"] = str(env.get("mkl_cbwr", "not recorded"))
    rows["CPU"] = str(env.get("cpu_model", "not recorded"))
    rows["CPUs"] = f"{env.get('cpus_usable')} usable of {env.get('cpu_count')}"
    rows["git commit"] = commit
    return rows


def render_provenance(
    provenance: dict[str, dict], report_env: dict[str, Any], *, sources_unchanged: bool = False
) -> list[str]:
    """Markdown lines: the runs' environment beside the report's, the runs that differ flagged,
    and each run's wall time. With ``sources_unchanged`` (the runs' one commit differs from the
    report's, and :func:`changed_sources` finds nothing between them), the report's commit says
    so."""
    runs = {run: _environment_rows(rec) for run, rec in provenance.items()}
    recorded = {run: rows for run, rows in runs.items() if rows}
    mine = _environment_rows(report_env)
    lines = ["## Provenance", ""]
    missing = sorted(set(runs) - set(recorded))
    if missing:
        lines += [f"Runs without a recorded environment: {', '.join(missing)}.", ""]
    differ = []
    lines += ["| | notebook runs | this report |", "|---|---|---|"]
    for key, own in mine.items():
        values: dict[str, list[str]] = {}
        for run, rows in recorded.items():
            values.setdefault(rows.get(key, "unknown"), []).append(run)
        if len(values) > 1:
            differ.append(key)
            cell = "**differ**: " + "; ".join(
                f"{value} ({', '.join(names)})" for value, names in values.items()
            )
        else:
            cell = next(iter(values), "—")
        mark = "same" if cell == own else _cell(own)
        if key == "git commit" and sources_unchanged and cell != own:
            mark += f"; {SAME_SOURCES}"
        lines.append(f"| {key} | {_cell(cell)} | {mark} |")
    walls = [
        f"{run} {_duration(rec['wall_s'])}" if "wall_s" in rec else f"{run} unknown"
        for run, rec in provenance.items()
    ]
    lines += ["", "Wall time per run: " + ", ".join(walls) + "."]
    if differ:
        lines += [
            "",
            f"**Warning:** the notebook runs did not all run in the same environment "
            f"({', '.join(differ)}): a verdict that differs between runs may come from that.",
        ]
    lines.append("")
    return lines


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def _write_atomic(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, target)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def stamp_notebook(notebook: Any, repo: str | os.PathLike | None = None) -> dict[str, Any]:
    """Record in an executed notebook's metadata (``metadata["ppdp"]``) the commit it ran from.

    ``notebook`` is an nbformat node; ``make notebooks`` stamps every committed notebook after
    executing it, so that a test can check that the committed notebooks and the committed report
    come from one commit. The notebooks themselves are not counted as changes: the run rewrites
    them.
    """
    state = git_state(repo, exclude=("notebooks/*.ipynb",))
    notebook.metadata["ppdp"] = {"commit": state["commit"], "clean": state["clean"]}
    return notebook.metadata["ppdp"]
