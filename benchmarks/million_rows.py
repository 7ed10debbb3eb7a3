"""The table mechanisms at a million rows: Mondrian, Anatomy, Mutual Cover and k-RR.

Census-like tables of 10,000 to 1,000,000 rows are resampled with replacement from the 40,152
IPUMS tuples of the Mutual Cover experiment (7 quasi-identifiers, INCWAGE sensitive). Each
(mechanism, size) runs in its own process, so that its peak resident memory is that of one fit
and release: the time covers ``fit_release`` (the data load and resampling are excluded from the
time; the memory is the peak resident set of the fit and release above what the process held
once the table was loaded, read from the kernel's high-water mark, which is reset after the load). The settings are the paper's:
Mondrian with k = 10, Anatomy and Mutual Cover with l = 10 (Mutual Cover at delta = 1/6, both of
its LP solvers), k-RR at epsilon = 1 on the sensitive column.

The peer is anonypy's Mondrian (``anonypy.Mondrian(...).partition(k=10)``, pandas-based), timed
and measured in the same run against our Mondrian's ``fit`` (the partition alone, the same
question) on the sizes it finishes within ``--peer-timeout``; the ratios are anonypy's time and
peak memory over ours. anonypy pins an old pandas: ``make benchmarks`` installs it with
``--no-deps``.

Writes ``benchmarks/results/million_rows.csv``. Usage::

    nice -n 10 python benchmarks/million_rows.py [--sizes 10000 100000 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"

#: mechanism name -> what its process fits and releases (see ``run_one``)
MECHANISMS = (
    "krr",
    "mondrian",
    "anatomy",
    "mutual_cover_simplex",
    "mutual_cover_ipm",
    "mondrian_partition",
    "anonypy_partition",
)


def census(n: int, seed: int = 0):
    """``n`` rows resampled with replacement from the census tuples."""
    from ppdp.experiments import mutual_cover as mcx

    base = mcx.run.load_data()
    rng = np.random.default_rng(np.random.SeedSequence([seed, n]))
    return base.iloc[rng.integers(0, len(base), n)].reset_index(drop=True)


def run_one(mechanism: str, n: int, seed: int) -> dict:
    """One fit and release of ``mechanism`` on ``n`` rows; seconds and peak RSS of this process."""
    from ppdp.experiments import mutual_cover as mcx
    from ppdp.mechanisms.anatomy import Anatomy
    from ppdp.mechanisms.mondrian import Mondrian
    from ppdp.mechanisms.mutual_cover import MutualCover
    from ppdp.mechanisms.randomized_response import KaryRandomizedResponse

    qi, sensitive = list(mcx.run.QI), mcx.run.SENSITIVE
    data = census(n, seed)
    loaded = reset_peak_memory()
    start = time.perf_counter()
    extra = {}
    if mechanism == "krr":
        out = KaryRandomizedResponse(1.0, columns=[sensitive]).fit_release(data, random_state=seed)
    elif mechanism == "mondrian":
        out = Mondrian(qi, sensitive, k=10).fit_release(data, random_state=seed)
    elif mechanism == "anatomy":
        out = Anatomy(qi, sensitive, l=10).fit_release(data, random_state=seed)
    elif mechanism.startswith("mutual_cover_"):
        mech = MutualCover(qi, sensitive, delta=1 / 6, l=10, solver=mechanism.rsplit("_", 1)[1])
        out = mech.fit_release(data, random_state=seed)
        extra = {"groups": int(mech.n_groups_), "lp_solved": int(mech.n_lp_solved_)}
    elif mechanism == "mondrian_partition":
        mech = Mondrian(qi, k=10).fit(data)
        out = data
        extra = {"groups": int(mech.n_groups_)}
    elif mechanism == "anonypy_partition":
        import anonypy

        parts = anonypy.Mondrian(data, qi, sensitive).partition(k=10)
        out = data
        extra = {"groups": len(parts)}
    else:
        raise ValueError(f"mechanism must be one of {MECHANISMS}, got {mechanism!r}")
    seconds = time.perf_counter() - start
    if len(out) != n:
        raise AssertionError(f"{mechanism} released {len(out)} rows of {n}")
    peak = _status_gib("VmHWM")
    return {
        "mechanism": mechanism,
        "rows": n,
        "seconds": seconds,
        "peak_gib": peak,
        "extra_peak_gib": peak - loaded,
        **extra,
    }


def _status_gib(field: str) -> float:
    """A memory field of /proc/self/status (``VmRSS``, ``VmHWM``) in GiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 2**20
    raise RuntimeError(f"/proc/self/status has no {field}")


def reset_peak_memory() -> float:
    """Reset the kernel's peak-RSS mark of this process; return the resident set now (GiB).

    Writing 5 to /proc/self/clear_refs (Linux 4.0 and later) sets ``VmHWM`` to ``VmRSS``.
    """
    Path("/proc/self/clear_refs").write_text("5")
    return _status_gib("VmRSS")


def child(mechanism: str, n: int, seed: int, timeout: float) -> dict:
    """``run_one`` in a fresh process, or a row saying it did not finish in ``timeout`` s."""
    cmd = [sys.executable, __file__, "--seed", str(seed), "--child", mechanism, str(n)]
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, check=True, env=os.environ.copy()
        )
    except subprocess.TimeoutExpired:
        return {"mechanism": mechanism, "rows": n, "seconds": float("nan"), "note": "timeout"}
    except subprocess.CalledProcessError as exc:
        raise RuntimeError(f"{mechanism} at {n} rows failed:\n{exc.stderr[-3000:]}") from exc
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--peer-sizes", type=int, nargs="+", default=[10_000, 40_000, 100_000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--peer-timeout", type=float, default=900.0, help="seconds per peer run")
    parser.add_argument("--child", nargs=2, metavar=("MECHANISM", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_one(args.child[0], int(args.child[1]), args.seed)))
        return 0

    import pandas as pd

    rows = []
    for n in args.sizes:
        for mechanism in MECHANISMS[:5]:
            rows.append(child(mechanism, n, args.seed, args.timeout))
            print(json.dumps(rows[-1]), flush=True)
    try:
        import anonypy  # noqa: F401
    except ImportError:
        print("anonypy is not installed (make benchmarks installs it); no peer ratios")
    else:
        for n in args.peer_sizes:
            for mechanism in ("mondrian_partition", "anonypy_partition"):
                rows.append(child(mechanism, n, args.seed, args.peer_timeout))
                print(json.dumps(rows[-1]), flush=True)
    frame = pd.DataFrame(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    frame.to_csv(RESULTS / "million_rows.csv", index=False)
    print(frame.pivot_table(index="mechanism", columns="rows", values="seconds").round(2))
    peer = frame[frame["mechanism"].isin(["mondrian_partition", "anonypy_partition"])]
    if peer["mechanism"].nunique() == 2:
        wide = peer.pivot_table(
            index="rows", columns="mechanism", values=["seconds", "extra_peak_gib"]
        )
        ratio = pd.DataFrame(
            {
                "time anonypy / ppdp": wide["seconds"]["anonypy_partition"]
                / wide["seconds"]["mondrian_partition"],
                "extra peak memory anonypy / ppdp": wide["extra_peak_gib"]["anonypy_partition"]
                / wide["extra_peak_gib"]["mondrian_partition"],
            }
        )
        print(ratio.round(2).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
