"""Training throughput and peak memory of the IMPOSTER generator on UCI Adult.

Each configuration runs in its own process (so its peak resident memory is its own):

1. scaling: growing subsets of Adult (``--sizes``) for ``--scaling-epochs`` epochs on 1 and 2 torch
   threads (lambda = 1; lambda = 0 costs the same, since D2 is trained and monitored either way);
2. full: all 48,842 rows for the default number of epochs (``Imposter().epochs``), lambda = 1; if the
   scaling runs project it past ``--max-seconds`` the epochs are reduced and the row says so.

Writes ``benchmarks/results/imposter_training.csv`` and ``.png``. Quote ratios from one run.

    nice -n 10 python benchmarks/imposter_training.py            # about 5-10 minutes on 2 cores
    python benchmarks/imposter_training.py --sizes 2000 --scaling-epochs 1 --skip-full   # seconds
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def one_run(rows: int, epochs: int, lam: float, threads: int, seed: int) -> dict:
    """Fit once in this process and report timings and peak memory."""
    from ppdp.experiments.imposter.run import LABEL, PRIVATE, _features, prepare_adult
    from ppdp.mechanisms.imposter import Imposter

    df = prepare_adult(n_rows=None if rows >= 48842 else rows, seed=seed)
    features = _features(df, 0.01)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    model = Imposter(
        lam=lam,
        private=PRIVATE,
        label=LABEL,
        columns=features,
        epochs=epochs,
        n_threads=threads,
        progress=False,
    )
    start = time.perf_counter()
    model.fit(df, random_state=seed)
    seconds = time.perf_counter() - start
    import numpy as np

    start = time.perf_counter()
    model.sample(len(df), np.random.default_rng(seed))
    sample_seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "rows": len(df),
        "epochs": epochs,
        "lambda": lam,
        "threads": threads,
        "fit_seconds": seconds,
        "train_samples_per_second": len(df) * epochs / seconds,
        "sample_seconds": sample_seconds,
        "peak_rss_mib": peak_kib / 1024,
        "rss_before_fit_mib": rss_before / 1024,
        "final_d2_accuracy": float(model.history_["d2_accuracy"].iloc[-1]),
    }


def spawn(rows: int, epochs: int, lam: float, threads: int, seed: int, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--one", json.dumps([rows, epochs, lam, threads, seed])]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="5000,20000,48842")
    parser.add_argument("--scaling-epochs", type=int, default=1)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="cap for the full run")
    parser.add_argument("--skip-full", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.one:
        rows, epochs, lam, threads, seed = json.loads(args.one)
        print(json.dumps(one_run(rows, epochs, lam, threads, seed)))
        return

    import pandas as pd

    from ppdp.mechanisms.imposter import Imposter

    RESULTS.mkdir(parents=True, exist_ok=True)
    records = []
    sizes = [int(s) for s in args.sizes.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    for rows in sizes:
        for lam in (1.0,):
            for th in threads:
                rec = spawn(rows, args.scaling_epochs, lam, th, args.seed, timeout=args.max_seconds)
                rec["run"] = "scaling"
                records.append(rec)
                print(json.dumps(rec), flush=True)
    if not args.skip_full:
        default_epochs = Imposter().epochs
        scaling = pd.DataFrame(records)
        largest = scaling[scaling["rows"] == scaling["rows"].max()]
        best = largest.loc[largest["train_samples_per_second"].idxmax()]
        th = int(best["threads"])
        projected = 48842 * default_epochs / best["train_samples_per_second"]
        epochs = default_epochs
        if projected > args.max_seconds:
            epochs = max(1, int(args.max_seconds * best["train_samples_per_second"] / 48842))
        rec = spawn(48842, epochs, 1.0, th, args.seed, timeout=args.max_seconds * 2)
        rec.update(
            run="full",
            default_epochs=default_epochs,
            capped=epochs < default_epochs,
            projected_default_seconds=48842 * default_epochs / rec["train_samples_per_second"],
        )
        records.append(rec)
        print(json.dumps(rec), flush=True)
    frame = pd.DataFrame(records)
    frame.to_csv(RESULTS / "imposter_training.csv", index=False)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style, save_figure, use_style

    use_style()
    fig, ax = plt.subplots()
    scal = frame[frame["run"] == "scaling"]
    for i, ((lam, th), grp) in enumerate(scal.groupby(["lambda", "threads"])):
        name = "IMPOSTER (lambda = 1)" if lam else "CGAN + VAE (lambda = 0)"
        ax.plot(
            grp["rows"],
            grp["train_samples_per_second"],
            label=f"{name}, {th} thread(s)",
            **method_style(i),
        )
    ax.set_xscale("log")
    ax.set_xlabel("training rows")
    ax.set_ylabel("training samples per second")
    ax.legend()
    save_figure(fig, "imposter_training", RESULTS)
    # ratios measured in this run
    piv = scal.pivot_table(
        index=["rows", "threads"], columns="lambda", values="train_samples_per_second"
    )
    if {0.0, 1.0} <= set(piv.columns):
        print("throughput ratio CGAN+VAE / IMPOSTER (cost of D2):")
        print((piv[0.0] / piv[1.0]).round(2).to_string())
    if len(threads) > 1:
        tp = scal.pivot_table(
            index=["rows", "lambda"], columns="threads", values="train_samples_per_second"
        )
        print(f"throughput ratio {threads[-1]} / {threads[0]} threads:")
        print((tp[threads[-1]] / tp[threads[0]]).round(2).to_string())


if __name__ == "__main__":
    main()
