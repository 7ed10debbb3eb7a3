"""One run of the smoke profile, shared by every test that reads one.

``make test`` runs the smoke profile once, before the tests, into a folder of its own
(``python tests/shared_smoke_run.py build/smoke-run``), and gives the tests its path in
:data:`SHARED_RUN_VARIABLE`. The tests that read a smoke run (the pipeline's end-to-end checks, the
comparison across kernels, the routes, the committed notebooks' checked outputs, the figures
embedded by papermill) then read that one run instead of each starting their own. Without the
variable, the ``smoke_run`` fixture (conftest.py) runs the profile itself, as it did before.

A shared run belongs to the sources it was made from: the folder holds a digest of every file
the run reads (:func:`sources_digest`), taken before the run started, and a test refuses a
folder whose digest differs from the tree's (an edit since, or a folder from another checkout).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

#: The environment variable that names a finished shared run.
SHARED_RUN_VARIABLE = "PPDP_SMOKE_RUN"
#: The file in the run's folder that records what it was made from.
STAMP = "smoke-run.json"
#: What a smoke run reads from the tree: the workflow, its profiles and schemas, the claims, the
#: library, the notebooks and the committed cost table the report reads.
SOURCES = (
    "Snakefile",
    "claims.yaml",
    "pyproject.toml",
    "constraints.txt",
    "config",
    "lib",
    "notebooks",
    "reports/costs.csv",
)
#: Variables that change what a run computes (lib/ppdp/kernels.py) or how its figures are drawn.
ENVIRONMENT = (
    "ATEN_CPU_CAPABILITY",
    "NPY_DISABLE_CPU_FEATURES",
    "OPENBLAS_CORETYPE",
    "MKL_CBWR",
    "PPDP_NATIVE_KERNELS",
    "PYTHONHASHSEED",
    "MPLBACKEND",
)


def _source_files() -> list[Path]:
    files = []
    for name in SOURCES:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            # compiled files, notebook checkpoints and the install's metadata are not read
            files.extend(
                p
                for p in path.rglob("*")
                if p.is_file()
                and not any(
                    part in {"__pycache__", ".ipynb_checkpoints"} or part.endswith(".egg-info")
                    for part in p.relative_to(ROOT).parts
                )
            )
    return sorted(files)


def sources_digest() -> str:
    """SHA-256 over the relative path and bytes of every file a smoke run reads, the interpreter
    it runs with and the variables that change its arithmetic."""
    digest = hashlib.sha256()
    for path in _source_files():
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(sys.executable.encode() + b"\0")
    for name in ENVIRONMENT:
        digest.update(f"{name}={os.environ.get(name, '')}\0".encode())
    return digest.hexdigest()


def snakemake_command(folder: Path, *args: str, cores: int = 2) -> list[str]:
    """Snakemake on the smoke profile, its outputs under ``folder``."""
    return [
        str(BIN / "snakemake"),
        "--snakefile",
        str(ROOT / "Snakefile"),
        "--cores",
        str(cores),
        "--configfile",
        str(ROOT / "config" / "smoke.yaml"),
        "--directory",
        str(folder),
        *args,
    ]


def snakemake_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    return {
        **(os.environ if env is None else env),
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "MPLBACKEND": "Agg",
    }


def run(folder: Path, *, capture: bool = True) -> Path:
    """Run the whole smoke profile into the empty folder ``folder`` and stamp it.

    Raises RuntimeError with Snakemake's output when the run fails, and when a source file
    changed while it ran (the run would then belong to no tree).
    """
    folder = Path(folder).resolve()
    if folder.exists() and any(folder.iterdir()):
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    before = sources_digest()
    proc = subprocess.run(
        snakemake_command(folder),
        env=snakemake_environment(),
        capture_output=capture,
        text=True,
    )
    if proc.returncode != 0:
        output = f"\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}" if capture else ""
        raise RuntimeError(f"the smoke run in {folder} failed{output}")
    if sources_digest() != before:
        raise RuntimeError("a source file changed while the smoke run ran: run it again")
    # MAKELEVEL is set in every recipe make runs: the routes test reads whether this run took the
    # Makefile's route
    stamp = {"sources": before, "made_by_make": "MAKELEVEL" in os.environ}
    (folder / STAMP).write_text(json.dumps(stamp, indent=1) + "\n")
    return folder


def shared_run() -> Path | None:
    """The finished run named by :data:`SHARED_RUN_VARIABLE`, or None when the variable is unset.

    Raises RuntimeError when the folder is not a finished run of this tree's sources.
    """
    value = os.environ.get(SHARED_RUN_VARIABLE, "").strip()
    if not value:
        return None
    folder = Path(value)
    stamp = folder / STAMP
    if not stamp.is_file():
        raise RuntimeError(
            f"{SHARED_RUN_VARIABLE}={value} holds no finished smoke run (no {STAMP}): "
            f"run `python tests/shared_smoke_run.py {value}` or unset {SHARED_RUN_VARIABLE}"
        )
    if not current(folder):
        raise RuntimeError(
            f"{SHARED_RUN_VARIABLE}={value} was made from other sources or another environment "
            f"than this tree's: run `python tests/shared_smoke_run.py {value}` again or unset "
            f"{SHARED_RUN_VARIABLE}"
        )
    return folder


def made_by_make(folder: Path) -> bool:
    """Whether the run in ``folder`` was started by a Makefile recipe (``make test``)."""
    return bool(json.loads((Path(folder) / STAMP).read_text()).get("made_by_make"))


def current(folder: Path) -> bool:
    """Whether ``folder`` holds a finished run of this tree's sources and environment."""
    stamp = Path(folder) / STAMP
    return stamp.is_file() and json.loads(stamp.read_text())["sources"] == sources_digest()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Run the smoke profile into FOLDER for the tests.")
    parser.add_argument("folder", type=Path)
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep a finished run of the same sources and environment instead of running again",
    )
    args = parser.parse_args(argv)
    if args.reuse and current(args.folder):
        print(f"{args.folder} holds a smoke run of these sources: reused")
        return 0
    try:
        run(args.folder, capture=False)
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"smoke run finished in {args.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
