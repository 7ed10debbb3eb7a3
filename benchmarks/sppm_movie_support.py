"""How large SPPM's supports on Movie are, at every budget of Fig. 2 and at other step counts.

The SPPM paper's Fig. 7 shows the histogram of support sizes of ``p(. | b)`` on its Movie data
(3,717 profiles) and states that most profiles use at most 10 released values and the worst case up
to 30; it gives neither the budget nor the number of Frank-Wolfe steps. The default profile reads
Fig. 7 at Delta = 0.03 with 100 steps on MovieLens-1M's 2,124 profiles, started from the identity.
Each Frank-Wolfe step adds at most one released value to a profile, so the support is bounded by
the step count and grows with the budget the mapping may spend.

This script fits SPPM from the identity at every budget of the Movie curve (``--deltas``) and at
``--steps`` Frank-Wolfe steps, on the full alphabet and on the ``--tops`` most frequent profiles
(smaller alphabets), and reports the largest and median support and the share of profiles with at
most 10 values. Writes ``benchmarks/results/sppm_movie_support.csv``.

Usage::

    nice -n 10 python benchmarks/sppm_movie_support.py
    python benchmarks/sppm_movie_support.py --deltas 0.03 --steps 10 --tops 300
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ppdp.experiments import sppm as E

RESULTS = Path(__file__).resolve().parent / "results"


def supports(problem, deltas, steps) -> list[dict]:
    """One row per (budget, step count): the support statistics of SPPM's mapping."""
    rows = []
    for n_steps in steps:
        for delta in deltas:
            t0 = time.perf_counter()
            model = E.run._fit("sppm", problem, delta, n_steps=n_steps)[0]
            sizes = E.run.support_sizes(model.mapping_)
            rows.append(
                {
                    "alphabet": problem.n,
                    "delta": delta,
                    "steps": n_steps,
                    "support_max": int(sizes.max()),
                    "support_median": float(np.median(sizes)),
                    "share_le10": float(np.mean(sizes <= 10)),
                    "leakage": float(model.leakage_),
                    "seconds": time.perf_counter() - t0,
                }
            )
            print(rows[-1], flush=True)
    return rows


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--deltas",
        type=float,
        nargs="+",
        default=[0.01, 0.02, 0.03, 0.05, 0.13, 0.22, 0.3, 0.4],
    )
    parser.add_argument("--steps", type=int, nargs="+", default=[30, 100])
    parser.add_argument(
        "--tops", type=int, nargs="*", default=[500], help="smaller alphabets (besides all)"
    )
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    rows = []
    for top in [None, *args.tops]:
        rows += supports(E.data.movie_problem(top=top), args.deltas, args.steps)
    frame = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    frame.to_csv(RESULTS / "sppm_movie_support.csv", index=False)
    print(frame.round(4).to_string(index=False))
    met = frame[frame["support_max"] <= 30]
    print(
        f"settings with every support <= 30: {len(met)} of {len(frame)}; "
        f"{time.perf_counter() - t0:.0f} s in all"
    )
    return frame


if __name__ == "__main__":
    main()
