"""The shadow attack's counting features, per value, against per record, on the default profile's
Adult releases.

The membership attack (``ppdp.attacks.membership``) describes each person by what the release
holds near the record, among it three counting queries: the released rows covering the record's
value in each column and its pair of values in each pair of columns. The library counts the
released rows covering each domain value and each pair of values once per release and reads them
per record (:func:`~ppdp.attacks.membership.neighbour_features`). The reference here is the
computation it replaced for the pairs, which the library keeps for pairs of large domains: for
every record and every pair of columns, the sum over the distinct released rows of their
multiplicity where both cells cover the record's values. Both count rows, integers exact in
float64 in any order of summation, so the features must be equal bit for bit (checked here on
every input).

Inputs are the benchmark's: Adult at the default profile's 25,000 rows, split with seed 0, the
auxiliary people (10,000) described against three releases of the released people: the table
itself (cells kept exactly, as k-RR keeps them), MST at epsilon = 10 (a synthetic table) and
Mondrian at k = 10 (generalized cells). Each computation is timed on the same inputs in this one
run, best of ``--repeat``.

Writes ``benchmarks/results/membership_features.csv``. Usage::

    nice -n 10 python benchmarks/membership_features.py [--rows 25000] [--repeat 3]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from _timing import adult_options, best_of

RESULTS = Path(__file__).resolve().parent / "results"


def per_record_features(people, released, *, domains, columns) -> np.ndarray:
    """``neighbour_features`` with every pair of columns counted record by record: the library's
    path for pairs of large domains (``_PAIR_CELLS``), forced here for all of them, which is how
    every pair was counted before."""
    from ppdp.attacks import membership as M

    bound = M._PAIR_CELLS
    M._PAIR_CELLS = 0
    try:
        return M.neighbour_features(people, released, domains=domains, columns=columns)
    finally:
        M._PAIR_CELLS = bound


def main(argv=None) -> pd.DataFrame:
    args = adult_options(__doc__.split("\n", 1)[0], argv)

    from ppdp.attacks.membership import neighbour_features
    from ppdp.experiments import benchmark as bm

    data = bm.data.load_dataset("adult", args.rows)
    parts = bm.data.split(data, 0)
    releases = {"unprotected (exact cells)": parts.train}
    for name, mechanism, level in (
        ("MST epsilon = 10 (synthetic)", "mst", 10.0),
        ("Mondrian k = 10 (generalized cells)", "mondrian", 10),
    ):
        entry = bm.registry.REGISTRY[mechanism]
        releases[name] = entry.release(data, parts.train, level, np.random.default_rng(0))[0]
    kw = {"domains": data.domains, "columns": data.columns}
    rows = []
    for name, released in releases.items():
        record_s, reference = best_of(args.repeat, per_record_features, parts.aux, released, **kw)
        value_s, features = best_of(args.repeat, neighbour_features, parts.aux, released, **kw)
        if not np.array_equal(reference, features):
            raise AssertionError(f"{name}: the features differ from the per-record ones")
        distinct = len(released.drop_duplicates())
        rows.append(
            {
                "release": name,
                "people": len(parts.aux),
                "released_rows": len(released),
                "distinct_released_rows": distinct,
                "per_record_s": record_s,
                "per_value_s": value_s,
                "speedup": record_s / value_s,
            }
        )
        print(
            f"{name}: {len(parts.aux)} people, {len(released)} released rows ({distinct} "
            f"distinct); per record {record_s:.2f} s, per value {value_s:.2f} s "
            f"({rows[-1]['speedup']:.1f}x), same bits"
        )
    out = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    out.to_csv(RESULTS / "membership_features.csv", index=False)
    return out


if __name__ == "__main__":
    main()
