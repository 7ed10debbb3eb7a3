"""What the one-run comparisons on the benchmark's Adult share (not a benchmark itself).

``class_matching.py`` and ``membership_features.py`` time two computations on the same inputs in
one run, each the best of a few repeats, on the default profile's Adult rows.
"""

from __future__ import annotations

import argparse
import time


def best_of(repeat: int, compute, *args, **kwargs):
    """``(seconds, value)``: the shortest of ``repeat`` timed calls and the last call's value."""
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = compute(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return min(times), value


def adult_options(description: str, argv=None) -> argparse.Namespace:
    """``--rows`` (Adult rows sampled, the default profile's 25,000) and ``--repeat`` (3)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--rows", type=int, default=25_000, help="Adult rows sampled (default profile)"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timings per computation; the best is kept"
    )
    return parser.parse_args(argv)
