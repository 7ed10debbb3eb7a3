"""Timing of Mutual Cover and of our Mondrian against anonypy's.

1. Mutual Cover end to end on all 40,152 census tuples (7 QIs, l = 10, delta = 1/6): the l-diverse
   Mondrian partition, every random output table, one release; interior-point LPs on Algorithm 2's
   partition, then simplex for comparison, then interior point on the refined partition of the
   authors' code (more, smaller groups), then the batched interior-point solver
   (``solver="batch"``, every distinct LP of the fit in one compiled call, each table certified
   within 1e-6 of the optimum or solved again with HiGHS: ``lp_fallback``). Target: under 60 s on
   two cores; with ``solver="batch"``, under 5 s. Wall and CPU seconds (``time.process_time``), the
   total objective, the delta measured on what is sampled and a digest of the release. The
   batched solver's numba code is timed apart, each in a child process: its first compilation
   (an empty ``NUMBA_CACHE_DIR``) and a load from that cache. With ``--baseline-lib DIR`` (a copy
   of the library's ``lib`` folder at another commit) the interior-point and simplex runs are
   repeated with that library, each in a child process with ``DIR`` first on ``PYTHONPATH``, in
   the same run: the ratio of CPU seconds measures a change, the digests say whether it kept every
   release.
2. Mondrian under k-anonymity (k = 10) on growing row subsamples, ours against anonypy's
   (``anonypy.Mondrian``, pandas-based, median split on the widest normalized span) in the same
   run, with the ILoss (Xiao and Tao) of both partitions generalized the same way. anonypy's
   l-diversity is the distinct-values kind and its cut is ``< median`` against ``>= median``, so the
   comparison uses k-anonymity, where both partitions answer the same question.

Writes ``benchmarks/results/mutual_cover.csv`` and ``mutual_cover.png``. Run from the project root
with ``nice -n 10 python benchmarks/mutual_cover.py [--quick] [--baseline-lib DIR]``; quote ratios,
not times.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ppdp.experiments import mutual_cover as mcx
from ppdp.mechanisms.mondrian import Mondrian
from ppdp.mechanisms.mutual_cover import MutualCover
from ppdp.tabular import generalize
from ppdp.utility.information_loss import iloss_generalized, iloss_randomized

OUT = Path(__file__).resolve().parent / "results"
QI = list(mcx.run.QI)


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - start, out


def release_digest(frame: pd.DataFrame) -> str:
    """sha256 over each column's name, dtype and values: equal digests, equal releases."""
    digest = hashlib.sha256()
    for name in frame.columns:
        values = np.ascontiguousarray(frame[name].to_numpy())
        digest.update(f"{name}:{values.dtype.str}:".encode())
        digest.update(values.tobytes())
    return digest.hexdigest()


def end_to_end(data: pd.DataFrame, solver: str, refine: str) -> dict:
    """Fit and ``release(random_state=0)``: wall and CPU seconds and the release's digest."""
    mc = MutualCover(QI, mcx.run.SENSITIVE, delta=1 / 6, l=10, solver=solver, refine=refine)
    cpu = time.process_time()
    t_fit, _ = timed(mc.fit, data)
    cpu_fit = time.process_time() - cpu
    t_release, released = timed(mc.release, random_state=0)
    cpu_total = time.process_time() - cpu
    return {
        "task": "mutual_cover_end_to_end",
        "method": f"ppdp ({solver}, refine={refine})",
        "library": "this",
        "rows": len(data),
        "seconds": t_fit + t_release,
        "fit_seconds": t_fit,
        "cpu_seconds": cpu_total,
        "fit_cpu_seconds": cpu_fit,
        "lp_solved": mc.n_lp_solved_,
        "lp_total": mc.n_groups_ * len(QI),
        # a library without the batched solver has no fallbacks to count
        "lp_fallback": getattr(mc, "n_lp_fallback_", 0),
        "objective": mc.objective_,
        "delta_measured": next(
            c.measured for c in mc.guarantee_checks() if c.guarantee == "delta-probability"
        ),
        "iloss": iloss_randomized(data, released, QI),
        "release_sha256": release_digest(released),
    }


def end_to_end_with(library: str, solver: str, refine: str, quick: bool) -> dict:
    """:func:`end_to_end` in a child process that imports ``ppdp`` from the folder ``library``."""
    command = [sys.executable, __file__, "--end-to-end", solver, refine]
    path = [library, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    done = subprocess.run(
        command + (["--quick"] if quick else []), env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"the run with the library in {library} failed:\n{done.stderr}")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    return {**row, "library": "baseline"}


#: What a child process runs to time the batched solver's numba code: the import of the module
#: (numba with it), then the first call, on one tiny LP, which compiles or loads the machine code.
NUMBA_PROBE = """
import json, time
cpu, wall = time.process_time(), time.perf_counter()
import numpy as np
from ppdp.mechanisms.mutual_cover.batch_ipm import interior_point_tables
cpu_import, wall_import = time.process_time(), time.perf_counter()
interior_point_tables([(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([1.0, 2.0]))], 0.5)
print(json.dumps({
    "import_cpu_seconds": cpu_import - cpu, "import_seconds": wall_import - wall,
    "cpu_seconds": time.process_time() - cpu_import, "seconds": time.perf_counter() - wall_import,
}))
"""


def numba_compile_and_load() -> list[dict]:
    """The batched solver's first compilation and a load from numba's cache, each in a child.

    The first child compiles into an empty ``NUMBA_CACHE_DIR``, the second loads from it; the
    seconds of the first call and, apart, of the import (numba's included). A third child, with
    numba's default cache (the package's ``__pycache__``), makes sure the end-to-end run below
    loads rather than compiles.
    """
    import tempfile

    rows = []
    with tempfile.TemporaryDirectory() as cache:
        for what in ("first compile", "cached load"):
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            done = subprocess.run(
                [sys.executable, "-c", NUMBA_PROBE], env=env, capture_output=True, text=True
            )
            if done.returncode != 0:
                raise RuntimeError(f"the numba probe failed:\n{done.stderr}")
            timing = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append({"task": "batch_ipm_numba", "method": what, **timing})
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    subprocess.run([sys.executable, "-c", NUMBA_PROBE], env=env, check=True, capture_output=True)
    return rows


def baseline_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per end-to-end setting run with both libraries: seconds, their ratios, equal releases."""
    e2e = frame[frame.task == "mutual_cover_end_to_end"]
    measures = ["cpu_seconds", "seconds", "release_sha256"]
    both = e2e.pivot(index="method", columns="library", values=measures).dropna()
    out = pd.DataFrame(index=both.index)
    for measure in ("cpu_seconds", "seconds"):
        for library in ("baseline", "this"):
            out[f"{measure} {library}"] = both[(measure, library)].astype(float).round(2)
        ratio = both[(measure, "baseline")] / both[(measure, "this")]
        out[f"{measure} baseline / this"] = ratio.astype(float).round(2)
    out["same release"] = both[("release_sha256", "baseline")] == both[("release_sha256", "this")]
    return out


def anonypy_partition(data: pd.DataFrame, k: int) -> np.ndarray:
    import anonypy

    parts = anonypy.Mondrian(data.reset_index(drop=True), QI, mcx.run.SENSITIVE).partition(k=k)
    groups = np.empty(len(data), dtype=np.int64)
    for g, idx in enumerate(parts):
        groups[np.asarray(idx)] = g
    return groups


def mondrian_compare(data: pd.DataFrame, k: int) -> list[dict]:
    rows = []
    t_ours, ours = timed(Mondrian(QI, k=k).fit, data)
    rows.append(
        {
            "task": "mondrian_k",
            "method": "ppdp",
            "rows": len(data),
            "seconds": t_ours,
            "groups": ours.n_groups_,
            "iloss": iloss_generalized(ours.generalized_),
        }
    )
    try:
        import anonypy  # noqa: F401
    except ImportError:
        print("anonypy is not installed; skipping the peer")
        return rows
    t_peer, groups = timed(anonypy_partition, data, k)
    gen = generalize(ours.codes_, groups, QI, ours.domains_)
    sizes = np.bincount(groups)
    rows.append(
        {
            "task": "mondrian_k",
            "method": "anonypy",
            "rows": len(data),
            "seconds": t_peer,
            "groups": len(sizes),
            "iloss": iloss_generalized(gen),
            "min_group": int(sizes.min()),
        }
    )
    return rows


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller inputs (a minute)")
    parser.add_argument(
        "--baseline-lib",
        metavar="DIR",
        help="a copy of the library's lib folder to time the end to end with as well",
    )
    # the child process of --baseline-lib: one end-to-end run, printed as JSON
    parser.add_argument(
        "--end-to-end", nargs=2, metavar=("SOLVER", "REFINE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    data = mcx.run.load_data()
    full = data.iloc[:5000] if args.quick else data
    if args.end_to_end:
        print(json.dumps(end_to_end(full, *args.end_to_end)))
        return pd.DataFrame()
    OUT.mkdir(parents=True, exist_ok=True)
    rows = numba_compile_and_load()
    print(rows)
    cases = (("ipm", "none"), ("simplex", "none"), ("ipm", "anatomy"), ("batch", "none"))
    for solver, refine in cases:
        # the baseline library has no batched solver
        if args.baseline_lib and refine == "none" and solver != "batch":
            rows.append(end_to_end_with(args.baseline_lib, solver, refine, args.quick))
            print(rows[-1])
        rows.append(end_to_end(full, solver, refine))
        print(rows[-1])
    if args.baseline_lib:
        print(baseline_summary(pd.DataFrame(rows)).to_string())
    sizes = [1000, 2500, 5000] if args.quick else [2500, 5000, 10000, 20000, len(data)]
    for n in sizes:
        sub = mcx.run.load_data(n, seed=0) if n < len(data) else data
        for row in mondrian_compare(sub, k=10):
            rows.append(row)
            print(row)
    frame = pd.DataFrame(rows)
    frame.to_csv(OUT / "mutual_cover.csv", index=False)
    mk = frame[frame.task == "mondrian_k"].pivot(index="rows", columns="method", values="seconds")
    if "anonypy" in mk:
        ratio = (mk["anonypy"] / mk["ppdp"]).rename("anonypy / ppdp time")
        il = frame[frame.task == "mondrian_k"].pivot(index="rows", columns="method", values="iloss")
        print(pd.concat([mk, ratio, il.add_prefix("iloss ")], axis=1).round(3).to_string())
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style, use_style

    use_style()
    fig, ax = plt.subplots()
    for i, method in enumerate(mk.columns):
        ax.loglog(mk.index, mk[method], label=f"Mondrian k=10, {method}", **method_style(i))
    e2e = frame[frame.task == "mutual_cover_end_to_end"]
    for i, (_, r) in enumerate(e2e.iterrows()):
        ax.scatter(
            [r["rows"]],
            [r["seconds"]],
            label=f"MutualCover end to end, {r['method']}, {r['library']} library",
            **method_style(2 + i),
        )
    ax.set_xlabel("tuples")
    ax.set_ylabel("seconds")
    ax.legend()
    fig.savefig(OUT / "mutual_cover.png")
    return frame


if __name__ == "__main__":
    main()
