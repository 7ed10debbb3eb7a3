"""One house style for every figure, and one way to save them.

``save_figure(fig, name, directory)`` writes ``name.png`` and ``name.pdf``. PDF metadata carries no
creation date, so the same figure gives the same bytes on every run.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib as mpl

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

STYLE = {
    "figure.figsize": (5.0, 3.6),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "legend.fontsize": 8,
    "lines.markersize": 5,
    "axes.prop_cycle": mpl.cycler(color=list(PALETTE)),
    "svg.hashsalt": "ppdp",
}


def use_style() -> None:
    """Apply the house style to matplotlib's global settings."""
    mpl.rcParams.update(STYLE)


def method_style(index: int) -> dict:
    """Colour and marker for the ``index``-th method of a figure, stable across figures."""
    return {"color": PALETTE[index % len(PALETTE)], "marker": MARKERS[index % len(MARKERS)]}


def save_figure(
    fig, name: str, directory: str | os.PathLike | None, formats=("png", "pdf")
) -> list[Path]:
    """Save ``fig`` as ``directory/name.<fmt>`` for each format; nothing when ``directory`` is empty.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    name : str
        File stem, e.g. ``"fig4_utility_vs_delta"``; letters, digits, ``-`` and ``_`` only.
    directory : path or None
        Target folder, created if missing. Empty or None saves nothing (interactive use).
    """
    if not name or any(not (c.isalnum() or c in "-_") for c in name):
        raise ValueError(f"figure name {name!r} may hold only letters, digits, '-' and '_'")
    if not directory:
        return []
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        path = target / f"{name}.{fmt}"
        metadata = {"CreationDate": None} if fmt == "pdf" else None
        fig.savefig(path, format=fmt, metadata=metadata)
        written.append(path)
    return written
