"""Scaling of HyObscure (Fig. 10): a full fit and one release at growing numbers of users.

Each size runs in its own process (so that the peak resident memory is that of one fit): k-means
clustering of the users, the I-problem, the cross-iterated O/G problems until the leakage improves
by less than 1e-4, and one release. Populations are resampled with replacement from the real users
of the data set, with k = n/5 and alpha = n/2; their features are a scipy sparse matrix, which the
mechanism keeps sparse (k-means runs on it above 2**27 cells, on its dense copy below). The peer in the same run is the authors' formulation
of the obfuscation cost (mean pairwise Jensen-Shannon divergence between users, a budget per group),
which needs an n x n divergence matrix and is only run at the smaller sizes.

Writes ``benchmarks/results/hyobscure_scaling.csv`` and ``.png``. Usage::

    nice -n 10 python benchmarks/hyobscure_scaling.py --dataset movielens --sizes 1000 10000 100000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

RESULTS = Path(__file__).resolve().parent / "results"


def run_one(dataset: str, n: int, variant: str, budget: float, seed: int) -> dict:
    """One full fit and release; returns phase times (s) and peak RSS (MiB) of this process."""
    from ppdp.experiments import hyobscure as E
    from ppdp.mechanisms import hyobscure as hy

    pop = E.data.load_population(dataset)
    cfg = E.run.DATASET_DEFAULTS[dataset]
    rng = np.random.default_rng(np.random.SeedSequence([seed, n]))
    idx = rng.choice(pop.X.shape[0], size=n, replace=True)
    # the ratings stay sparse (a million MovieLens users: 1.3 GiB as CSR, 11 GiB dense)
    X, y = sp.csr_matrix(pop.X)[idx], pop.y[idx]
    k, alpha = max(1, n // 5), n // 2
    t0 = time.perf_counter()
    clusters = hy.cluster_users(X, cfg["n_clusters"], rng, n_init=1)
    t1 = time.perf_counter()
    domain = hy.private_domain(y, pop.kind)
    gen0 = hy.initial_generalization(
        y, domain, cfg["n_groups"], k, alpha, cfg["l"], cfg["beta"], rng
    )
    t2 = time.perf_counter()
    extra = {}
    if variant == "authors":
        extra = {"distance": "mean_pairwise_js", "budget_scope": "group"}
        # the pairwise mean already costs a positive amount for the identity: add it to the budget
        D = hy.cluster_distances(X, clusters, y, gen0, "mean_pairwise_js")
        budget = budget + float(np.nanmax(np.diagonal(D, axis1=1, axis2=2)))
    mech = hy.HyObscure(
        n_groups=cfg["n_groups"],
        k=k,
        alpha=alpha,
        l=cfg["l"],
        beta=cfg["beta"],
        budget=budget,
        n_clusters=cfg["n_clusters"],
        domain=pop.kind,
        **extra,
    )
    mech.fit(X, y, random_state=rng, clusters=clusters, generalization=gen0)
    t3 = time.perf_counter()
    mech.release(random_state=rng)
    t4 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "dataset": dataset,
        "variant": variant,
        "n_users": n,
        "cluster_s": t1 - t0,
        "initial_s": t2 - t1,
        "cross_s": t3 - t2,
        "release_s": t4 - t3,
        "total_s": t4 - t0,
        "iterations": int(max(r["iteration"] for r in mech.history_) + 1),
        "peak_rss_mib": peak,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="movielens", choices=["movielens", "foursquare"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument(
        "--peer-max", type=int, default=10000, help="largest size for the authors' formulation"
    )
    parser.add_argument("--budget", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds per size before giving up"
    )
    parser.add_argument("--child", nargs=2, metavar=("N", "VARIANT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(
            json.dumps(
                run_one(args.dataset, int(args.child[0]), args.child[1], args.budget, args.seed)
            )
        )
        return 0

    import pandas as pd

    rows = []
    for n in args.sizes:
        for variant in ("ours", "authors"):
            if variant == "authors" and n > args.peer_max:
                continue
            cmd = [
                sys.executable,
                __file__,
                "--dataset",
                args.dataset,
                "--budget",
                str(args.budget),
                "--seed",
                str(args.seed),
                "--child",
                str(n),
                variant,
            ]
            try:
                out = subprocess.run(
                    cmd,
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=True,
                    env=os.environ.copy(),
                )
            except subprocess.TimeoutExpired:
                print(f"n={n} {variant}: over {args.timeout:.0f} s, stopped", flush=True)
                rows.append(
                    {
                        "dataset": args.dataset,
                        "variant": variant,
                        "n_users": n,
                        "total_s": float("nan"),
                    }
                )
                continue
            except subprocess.CalledProcessError as exc:
                print(f"n={n} {variant}: failed\n{exc.stderr[-2000:]}", flush=True)
                raise
            row = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(json.dumps(row), flush=True)
    frame = pd.DataFrame(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stem = RESULTS / f"hyobscure_scaling_{args.dataset}"
    frame.to_csv(f"{stem}.csv", index=False)
    ours = frame[(frame["variant"] == "ours") & frame["total_s"].notna()]
    if len(ours) >= 2:
        slope = np.polyfit(np.log(ours["n_users"]), np.log(ours["total_s"]), 1)[0]
        print(f"growth exponent (log-log slope of total time): {slope:.2f}")
    both = frame.pivot_table(index="n_users", columns="variant", values="total_s")
    if "authors" in both:
        print("time ratio authors' formulation / ours:")
        print((both["authors"] / both["ours"]).dropna().round(2).to_string())
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 3.4))
    for variant, grp in frame.dropna(subset=["total_s"]).groupby("variant"):
        ax.loglog(grp["n_users"], grp["total_s"], marker="o", label=variant)
    ax.set_xlabel("number of users")
    ax.set_ylabel("fit + release (s)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{stem}.png", dpi=150)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
