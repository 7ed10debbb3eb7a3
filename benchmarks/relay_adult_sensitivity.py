"""Which relay-chain method loses least on UCI Adult, under each setting the extension chose.

On German Credit FLA has the lowest average utility loss per table along chains (Fig. 6); on
Adult, in the relay notebook's extension (numeric quasi-identifiers, income sensitive,
inverse-variance weights), BUA does, so ``relay_chains.adult_fla_least_along_chains`` fails. This
script reruns the extension's Fig. 6 grid (chains of 1 to ``--max-hops`` hops at ``--delta``) for
every combination of the weighting (uniform or inverse-variance), the quasi-identifiers (all five
numeric ones, or without the two capital columns, zero for most rows) and the sensitive attribute
(income or sex), on ``--rows`` rows per subsample, and prints each method's loss and the least
one per setting (:func:`ppdp.experiments.relay_chains.run.adult_sensitivity`).

Writes ``benchmarks/results/relay_adult_sensitivity.csv``.

Usage::

    nice -n 10 python benchmarks/relay_adult_sensitivity.py
    python benchmarks/relay_adult_sensitivity.py --rows 400 --seeds 0 --max-hops 3
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from ppdp.experiments import relay_chains as rc

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", type=int, default=2000, help="rows per subsample (the notebook's)"
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--delta", type=float, default=0.01)
    parser.add_argument("--max-hops", type=int, default=6)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    frame = rc.run.adult_sensitivity(
        n_rows=args.rows, seeds=args.seeds, delta=args.delta, max_hops=args.max_hops
    )
    RESULTS.mkdir(exist_ok=True)
    frame.to_csv(RESULTS / "relay_adult_sensitivity.csv", index=False)
    print(rc.claims.adult_sensitivity_table(frame).round(4).to_string())
    print(f"{time.perf_counter() - t0:.0f} s")
    return frame


if __name__ == "__main__":
    main()
