"""Timing of Mutual Cover and of our Mondrian against anonypy's.

1. Mutual Cover end to end on all 40,152 census tuples (7 QIs, l = 10, delta = 1/6): the l-diverse
   Mondrian partition, every random output table, one release; interior-point LPs on Algorithm 2's
   partition, then simplex for comparison, then interior point on the refined partition of the
   authors' code (more, smaller groups). Target: under 60 s on two cores.
2. Mondrian under k-anonymity (k = 10) on growing row subsamples, ours against anonypy's
   (``anonypy.Mondrian``, pandas-based, median split on the widest normalized span) in the same
   run, with the ILoss (Xiao and Tao) of both partitions generalized the same way. anonypy's
   l-diversity is the distinct-values kind and its cut is ``< median`` against ``>= median``, so the
   comparison uses k-anonymity, where both partitions answer the same question.

Writes ``benchmarks/results/mutual_cover.csv`` and ``mutual_cover.png``. Run from the project root
with ``nice -n 10 python benchmarks/mutual_cover.py [--quick]``; quote ratios, not times.
"""

from __future__ import annotations

import argparse
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


def end_to_end(data: pd.DataFrame, solver: str, refine: str) -> dict:
    mc = MutualCover(QI, mcx.run.SENSITIVE, delta=1 / 6, l=10, solver=solver, refine=refine)
    t_fit, _ = timed(mc.fit, data)
    t_sample, released = timed(mc.sample, data, np.random.default_rng(0))
    return {
        "task": "mutual_cover_end_to_end",
        "method": f"ppdp ({solver}, refine={refine})",
        "rows": len(data),
        "seconds": t_fit + t_sample,
        "fit_seconds": t_fit,
        "lp_solved": mc.n_lp_solved_,
        "lp_total": mc.n_groups_ * len(QI),
        "iloss": iloss_randomized(data, released, QI),
    }


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
    args = parser.parse_args(argv)
    data = mcx.run.load_data()
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    full = data.iloc[:5000] if args.quick else data
    for solver, refine in (("ipm", "none"), ("simplex", "none"), ("ipm", "anatomy")):
        rows.append(end_to_end(full, solver, refine))
        print(rows[-1])
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
            label=f"MutualCover end to end, {r['method']}",
            **method_style(2 + i),
        )
    ax.set_xlabel("tuples")
    ax.set_ylabel("seconds")
    ax.legend()
    fig.savefig(OUT / "mutual_cover.png")
    return frame


if __name__ == "__main__":
    main()
