"""Why SPPM's default run ends above the optimum: Frank-Wolfe's convergence against the step count.

Synthetic data of the SPPM paper (Sec. 2 / 4.1), |B| = 2^m on the points 1..2^m, squared
distortion, a budget of 0.02 on [0, 1] (``delta = 0.02 (|B| - 1)^2``). For each size the exact
optimum (cvxpy, Clarabel) and one long SPPM run per variant, whose history gives the leakage after
every step ``L``:

* ``default``: Algorithm 1 as the library runs it (start at the nearest-point mapping, gradient
  floored at ``log2 0.01`` where a released value is unmixed);
* ``floor_1e-8``: the same with the floor at ``log2 1e-8``, closer to the true ``-inf`` slope;
* ``start_expmec``: started from the exponential mechanism at the same budget, which mixes every
  released value and spends the whole budget, so that no gradient is ever floored and no weight
  stays on an under-spending start;
* ``away``: away steps (Lacoste-Julien and Jaggi, 2015).

For each variant: the relative gap to the optimum at L = 3, 10, 30, 100, 300, 1000, the budget
spent at L = 100, and the slope of log(gap) against log(L) between L = 100 and the last step (a
Frank-Wolfe rate ``O(1 / L)`` has slope -1). Writes ``benchmarks/results/sppm_convergence.csv``.

Usage::

    nice -n 10 python benchmarks/sppm_convergence.py --sizes 4 6 8 --steps 1000
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ppdp.mechanisms import sppm as S

RESULTS = Path(__file__).resolve().parent / "results"
CHECKPOINTS = (3, 10, 30, 100, 300, 1000)


def variants(delta: float, p, d, steps: int) -> dict:
    """Name -> (SPPM estimator, start mapping or None)."""
    common = dict(n_steps=steps, certify=False)
    expmec = S.ExponentialMechanism(delta=delta).fit(p, d).mapping_
    return {
        "default": (S.SPPM(delta, **common), None),
        "floor_1e-8": (S.SPPM(delta, floor=1e-8, **common), None),
        "start_expmec": (S.SPPM(delta, **common), expmec),
        "away": (S.SPPM(delta, variant="away", **common), None),
    }


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 6, 8])
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args(argv)
    rows = []
    for m in args.sizes:
        p, d = S.synthetic_problem(m)
        delta = 0.02 * (2**m - 1) ** 2
        t0 = time.perf_counter()
        optimum = S.ExactMapping(delta).fit(p, d).leakage_
        print(f"|B| = {2**m}: optimum {optimum:.5f} bits ({time.perf_counter() - t0:.1f} s)")
        for name, (model, start) in variants(delta, p, d, args.steps).items():
            t0 = time.perf_counter()
            model.fit(p, d, init=start)
            seconds = time.perf_counter() - t0
            hist = model.history_.set_index("step")
            gap = hist["leakage"] / optimum - 1
            last = int(hist.index.max())
            tail = gap.loc[100:last]
            slope = (
                float(np.polyfit(np.log(tail.index), np.log(tail.clip(lower=1e-12)), 1)[0])
                if len(tail) > 10
                else np.nan
            )
            row = dict(
                m=m,
                n=2**m,
                variant=name,
                optimum=optimum,
                seconds=seconds,
                floored_steps=int(hist["floored"].sum()),
                distortion_L100=float(hist["distortion"].get(100, np.nan)) / (2**m - 1) ** 2,
                slope=slope,
            )
            row.update({f"gap_L{k}": float(gap.get(k, np.nan)) for k in CHECKPOINTS})
            rows.append(row)
            print(
                f"  {name:13s} gap at L = "
                + " / ".join(f"{k}: {100 * row[f'gap_L{k}']:.2f}%" for k in CHECKPOINTS)
                + f"; slope {slope:.2f}; floored steps {row['floored_steps']};"
                f" E[d] at L = 100: {row['distortion_L100']:.5f}; {seconds:.1f} s",
                flush=True,
            )
    frame = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    frame.to_csv(RESULTS / "sppm_convergence.csv", index=False)
    return frame


if __name__ == "__main__":
    main()
