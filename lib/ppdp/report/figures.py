"""The figures the report links, and their published copies.

A claim may link a figure of its run; the benchmark's section links its privacy-utility planes
(:func:`benchmark_figures`); the report shows its verdict figures, which it draws into the
``report`` folder beside the runs' (:mod:`ppdp.report.overview`). ``--publish-figures DIR`` copies
the linked and shown figures (downscaled to at most :data:`MAX_FIGURE_BYTES` each) to ``DIR``
(:func:`copy_figures`), so that a committed report shows its figures.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path

from ppdp.experiments.common import read_results

__all__ = ["MAX_FIGURE_BYTES", "benchmark_figures", "copy_figures"]

# a published figure copied next to the committed report is downscaled to at most this size
MAX_FIGURE_BYTES = 150_000


def _benchmark_figure_names(dataset: str, *, sized: bool = False) -> list[str]:
    """The benchmark notebook's figures of ``dataset``: the protected attribute's planes
    (population AUC, then count-query error), one per further private attribute, and the risk
    against the release size when the run swept it (``sized``)."""
    from ppdp.experiments.benchmark.data import load_roles

    _, *others = load_roles()[dataset]["private"]
    return [
        f"plane_{dataset}",
        f"plane_{dataset}_queries",
        *(f"plane_{dataset}_{p}" for p in others),
        *([f"release_size_{dataset}"] if sized else []),
    ]


def _swept_datasets(frame) -> set[str]:
    """The datasets of a benchmark run's release-size sweep (experiments ``release_size_<d>``)."""
    return {
        e.removeprefix("release_size_")
        for e in frame["experiment"]
        if e.startswith("release_size_")
    }


def benchmark_figures(results_dir: str | os.PathLike, run: str = "benchmark") -> list[str]:
    """Names of the figures :func:`render_benchmark` links for the datasets the run measured."""
    csv_path = Path(results_dir) / f"{run}.csv"
    if not csv_path.exists():
        return []
    frame = read_results(csv_path)
    datasets = sorted(
        {e.removeprefix("benchmark_") for e in frame["experiment"] if e.startswith("benchmark_")}
    )
    sized = _swept_datasets(frame)
    return [name for d in datasets for name in _benchmark_figure_names(d, sized=d in sized)]


def copy_figures(
    figures: Iterable[tuple[str, str]],
    source: str | os.PathLike,
    target: str | os.PathLike,
    max_bytes: int = MAX_FIGURE_BYTES,
) -> int:
    """Copy ``source/<run>/<name>.png`` to ``target/<run>/<name>.png`` for each (run, name),
    downscaled when larger than ``max_bytes``; remove other PNGs under ``target``. Returns the
    total size in bytes."""
    source, target = Path(source), Path(target)
    wanted = {target / run / f"{name}.png" for run, name in figures}
    for stale in target.glob("*/*.png"):
        if stale not in wanted:
            stale.unlink()
    total = 0
    for run, name in sorted(figures):
        dst = target / run / f"{name}.png"
        dst.parent.mkdir(parents=True, exist_ok=True)
        data = _shrink_png(source / run / f"{name}.png", max_bytes)
        tmp = dst.with_name(f".{dst.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, dst)
        total += len(data)
    return total


def _shrink_png(path: Path, max_bytes: int) -> bytes:
    """The PNG's bytes, or a palette-quantized and if need be downscaled copy of at most
    ``max_bytes``."""
    import io

    from PIL import Image

    data = path.read_bytes()
    if len(data) <= max_bytes:
        return data
    with Image.open(path) as image:
        image = image.convert("RGB")
    scale = 1.0
    for _ in range(12):
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        frame = image if scale == 1.0 else image.resize(size, Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        # a plot has few colours: a 256-colour palette keeps it legible at a fraction of the size
        frame.quantize(colors=256, dither=Image.Dither.NONE).save(buffer, "PNG", optimize=True)
        if buffer.tell() <= max_bytes:
            return buffer.getvalue()
        scale *= min(0.9, math.sqrt(max_bytes / buffer.tell()))
    raise ValueError(f"{path}: cannot shrink below {max_bytes} bytes")
