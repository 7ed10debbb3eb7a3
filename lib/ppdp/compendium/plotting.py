"""One house style for every figure, and one way to save and show them.

``save_figure(fig, name, directory)`` writes ``name.png`` and ``name.pdf``. PDF metadata carries no
creation date, so the same figure gives the same bytes on every run. Inside a Jupyter kernel it also
shows the figure inline (:func:`show_figure`), whatever matplotlib backend is active: the pipeline
runs notebooks with ``MPLBACKEND=Agg``, under which ``plt.show()`` displays nothing and an executed
notebook would carry no image.
"""

from __future__ import annotations

import base64
import io
import os
import sys
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


def in_kernel() -> bool:
    """Whether this code runs inside a Jupyter kernel (a notebook, papermill, nbval)."""
    # a kernel has imported IPython long before any figure exists; scripts need not import it
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def show_figure(fig) -> bool:
    """Show ``fig`` inline in a Jupyter kernel's output, then close it; outside a kernel do nothing.

    The figure is rendered to PNG here rather than left to the backend, so it appears under the
    non-interactive ``Agg`` backend too; closing it keeps the inline backend from showing it twice.

    Returns
    -------
    bool
        Whether the figure was shown.
    """
    if not in_kernel():
        return False
    import matplotlib.pyplot as plt
    from IPython.display import display

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi, bbox_inches="tight")
    bundle = {
        "image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
        "text/plain": repr(fig),
    }
    display(bundle, raw=True)
    plt.close(fig)
    return True


def save_figure(
    fig, name: str, directory: str | os.PathLike | None, formats=("png", "pdf"), *, show=True
) -> list[Path]:
    """Save ``fig`` as ``directory/name.<fmt>`` for each format; nothing when ``directory`` is empty.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    name : str
        File stem, e.g. ``"fig4_utility_vs_delta"``; letters, digits, ``-`` and ``_`` only.
    directory : path or None
        Target folder, created if missing. Empty or None saves nothing (interactive use).
    formats : tuple of str
        File formats, each a matplotlib ``savefig`` format.
    show : bool
        Inside a Jupyter kernel, also show the figure inline and close it (:func:`show_figure`).
        Outside a kernel this has no effect.

    Returns
    -------
    list of Path
        The files written.
    """
    if not name or any(not (c.isalnum() or c in "-_") for c in name):
        raise ValueError(f"figure name {name!r} may hold only letters, digits, '-' and '_'")
    written = _write_figure(fig, name, directory, formats)
    if show:
        show_figure(fig)
    return written


def _write_figure(fig, name: str, directory, formats) -> list[Path]:
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
