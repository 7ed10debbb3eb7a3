"""Class matching's weights, narrowed against dense, on the default profile's Adult release.

The class-matching attackers weigh every (target, class of released rows) pair by the probability
that the class's cells hold the target's quasi-identifiers (``ppdp.attacks.targeted``). The dense
computation multiplies every pair out, column by column; the narrowed one first keeps the pairs the
most selective column allows, then those every other column allows, and multiplies only them, in
the same column order, so both give the same bits (checked here on every input).

Inputs are the benchmark's: Adult at the default profile's 25,000 rows, split with seed 0, the
2,000 targets of the attack on ``sex``, and two releases of the released people: the table itself
(quasi-identifiers kept exactly, as k-RR and MST release them) and Mondrian at k = 10 (generalized
cells). Each computation is timed on the same inputs in this one run, best of ``--repeat``.

Writes ``benchmarks/results/class_matching.csv``. Usage::

    nice -n 10 python benchmarks/class_matching.py [--rows 25000] [--repeat 3]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from _timing import adult_options, best_of

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv=None) -> pd.DataFrame:
    args = adult_options(__doc__.split("\n", 1)[0], argv)

    from ppdp.attacks import targeted as T
    from ppdp.experiments import benchmark as bm

    data = bm.data.load_dataset("adult", args.rows)
    parts = bm.data.split(data, 0)
    ctx = bm.attacks.attack_context(data, parts, "sex", seed=0, n_estimators=10, n_targets=2000)
    releases = {
        "unprotected (exact cells)": parts.train,
        "Mondrian k = 10 (generalized cells)": bm.registry.REGISTRY["mondrian"].release(
            data, parts.train, 10, np.random.default_rng(0)
        )[0],
    }
    rows = []
    for name, released in releases.items():
        codes = T._target_codes(ctx.targets, data.domains, data.qi)
        first, _ = T._factorize_rows(codes)
        targets = codes[first]
        cells, class_cells, _ = T._qi_classes(released, data.domains, data.qi)
        inputs = (targets, cells, class_cells)
        dense_s, dense = best_of(args.repeat, T._dense_match_weights, *inputs)
        narrow_s, narrow = best_of(args.repeat, T._match_weights, *inputs)
        if not np.array_equal(dense, narrow):
            raise AssertionError(f"{name}: the narrowed weights differ from the dense ones")
        rows.append(
            {
                "release": name,
                "targets": targets.shape[0],
                "classes": class_cells.shape[0],
                "nonzero_share": float((dense > 0).mean()),
                "dense_s": dense_s,
                "narrowed_s": narrow_s,
                "speedup": dense_s / narrow_s,
            }
        )
        print(
            f"{name}: {targets.shape[0]} distinct targets x {class_cells.shape[0]} classes, "
            f"{rows[-1]['nonzero_share']:.4f} of the pairs match; dense {dense_s:.3f} s, "
            f"narrowed {narrow_s:.3f} s ({rows[-1]['speedup']:.1f}x), same bits"
        )
    out = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    out.to_csv(RESULTS / "class_matching.csv", index=False)
    return out


if __name__ == "__main__":
    main()
