"""How far SPPM's default run ends from the optimum, certified by the variational lower bound.

Synthetic data of the SPPM paper (Sec. 2 / 4.1), |B| = 2^m on the points 1..2^m, squared
distortion, a budget of 0.02 on [0, 1] (``delta = 0.02 (|B| - 1)^2``). For each size: the exact
optimum (cvxpy, Clarabel), SPPM with the paper's L = 100, and the lower bound of
:func:`ppdp.mechanisms.sppm.variational_lower_bound` from each one's posterior; also the smallest
posterior ``q(a | b^)`` over released values, which is what makes the bound tight (all mixed) or
loose (some unmixed). Writes ``benchmarks/results/sppm_bound.csv``.

Usage::

    nice -n 10 python benchmarks/sppm_bound.py --sizes 4 6 8
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ppdp.mechanisms import sppm as S

RESULTS = Path(__file__).resolve().parent / "results"


def smallest_posterior(p_ab: np.ndarray, mapping) -> float:
    joint = np.asarray((sp.csr_matrix(p_ab) @ sp.csr_matrix(mapping)).todense())
    q_b = joint.sum(axis=0)
    used = q_b > 1e-12
    return float((joint[:, used] / q_b[used]).min())


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 6, 8])
    args = parser.parse_args(argv)
    rows = []
    for m in args.sizes:
        p, d = S.synthetic_problem(m)
        delta = 0.02 * (2**m - 1) ** 2
        for name, solver in (("exact", S.ExactMapping(delta)), ("sppm_L100", S.SPPM(delta))):
            t0 = time.perf_counter()
            solver.fit(p, d)
            seconds = time.perf_counter() - t0
            t0 = time.perf_counter()
            bound, _ = S.variational_lower_bound(p, d, delta, solver.mapping_)
            rows.append(
                dict(
                    m=m,
                    method=name,
                    leakage=solver.leakage_,
                    bound=bound,
                    smallest_posterior=smallest_posterior(p, solver.mapping_),
                    seconds=seconds,
                    bound_seconds=time.perf_counter() - t0,
                )
            )
            print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    frame.to_csv(RESULTS / "sppm_bound.csv", index=False)
    best = frame.groupby("m")["bound"].max()
    exact = frame[frame.method == "exact"].set_index("m")["leakage"]
    sppm = frame[frame.method == "sppm_L100"].set_index("m")["leakage"]
    print(
        pd.DataFrame(
            {
                "optimum <=": exact,
                "optimum >=": best,
                "SPPM L=100": sppm,
                "SPPM above optimum (%)": 100 * (sppm / exact - 1),
            }
        ).round(5)
    )
    return frame


if __name__ == "__main__":
    main()
