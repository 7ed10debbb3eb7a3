"""The report's verdict figures: every claim on one scale, grouped by paper.

Each claim becomes one mark at its *margin* (:func:`margin`): the signed distance from the measured
value to the boundary of its check, positive on the claim's side, so that every check kind shares
one axis:

- ``>= x`` and ``> x``: ``(measured - x) / s``; ``<= x`` and ``< x``: ``(x - measured) / s``;
- ``== x``: ``-|measured - x| / s``, zero only when the value is exact;
- ``≈ x (± t)``: ``1 - |measured - x| / t``, where ``t`` is the check's tolerance (the larger of
  ``rel_tol * |x|`` and ``abs_tol``): 1 at ``x``, 0 at the tolerance's edge;

with ``s = |x|``, or 1 (the claim's own unit) when ``x`` is 0. A check holds at a margin of at least
0 (above 0 for the strict ``>`` and ``<``, exactly 0 for ``==``). A claim's 95% interval and, where
its verdict is ambiguous, the range of its values over the settings the paper leaves unstated are
mapped the same way (:func:`margin_interval`). The axis is linear within ±1 and logarithmic beyond;
a value beyond ±:data:`MARGIN_LIMIT` is drawn at the edge with a triangle pointing outwards.

:func:`write_overview` writes ``overview.png`` (every paper, a band each) and one figure per paper
(``<paper>.png``, a labelled row per claim). The PNGs carry no timestamp or software version, and
their size and resolution are fixed, so the same results give the same bytes.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ppdp.compendium.plotting import PALETTE
from ppdp.report.claims import Check, Claim
from ppdp.report.verdicts import AMBIGUOUS, UNSTABLE

__all__ = [
    "MARGIN_LIMIT",
    "OVERVIEW_NAME",
    "SCALE_TEXT",
    "VERDICT_STYLES",
    "Overview",
    "claim_margins",
    "margin",
    "margin_interval",
    "plot_overview",
    "plot_paper",
    "write_overview",
]

#: Margins beyond ± this are drawn at the axis edge, with a triangle pointing outwards.
MARGIN_LIMIT = 10.0
#: The axis is linear within ± this margin and logarithmic beyond.
_LINEAR = 1.0
#: The file name (without ``.png``) of the figure of every paper.
OVERVIEW_NAME = "overview"
#: Width of every figure in inches; at :data:`_DPI` and shown at the width of a page column
#: (about 740 px) the fonts below read at 10-12 px.
_WIDTH = 7.4
_DPI = 150
#: Colour, marker and legend label of each drawn verdict (Okabe-Ito colours, distinct markers, so
#: that the verdict reads without colour too).
VERDICT_STYLES = {
    "reproduced": (PALETTE[2], "o", "reproduced"),
    "not reproduced": (PALETTE[1], "X", "not reproduced"),
    AMBIGUOUS: (PALETTE[0], "D", "ambiguous"),
    UNSTABLE: (PALETTE[4], "s", "unstable (differs between runs)"),
}
_NO_VALUE = "#999999"
_CLIP_GID = "clip:"

#: The Markdown caption of the figures: the scale, the marks and the clipping.
SCALE_TEXT = (
    "Each mark is one claim at its *margin*: the signed distance from the measured value to the "
    "boundary of its check, positive on the claim's side. For `>= x` and `> x` it is "
    "(measured − x)/|x|, for `<= x` and `< x` (x − measured)/|x|, for `== x` −|measured − x|/|x| "
    "(0 only when exact), each in the claim's own unit instead of |x| when x is 0; for "
    "`≈ x (± t)` it is 1 − |measured − x|/t, 1 at x and 0 at the tolerance's edge. A check holds "
    "at a margin of at least 0 (above 0 for `>` and `<`, exactly 0 for `==`). The colour and "
    "shape give the verdict (a check on the *whole interval* fails without an interval, "
    "wherever the mean lies); a ring marks a claim that claims.yaml marks *unstable* (its verdict "
    "decides nothing). The bar is the 95% interval, mapped the same way; for an *ambiguous* claim "
    "the pale band spans its values over the settings the paper leaves unstated. The axis is "
    "linear within ±1 and logarithmic beyond; a value beyond ±10 is drawn at the edge with a "
    "triangle pointing outwards."
)


def margin(check: Check, value: float) -> float:
    """Signed, normalised distance from ``value`` to the boundary of ``check``: positive on the
    claim's side (see the module's docstring for each kind); nan for a value that is not finite.

    Examples
    --------
    >>> margin(Check(">=", 2.0), 3.0), margin(Check("<", 2.0), 3.0)
    (0.5, -0.5)
    >>> margin(Check("approx", 10.0, rel_tol=0.1), 10.5), margin(Check("==", 1.0), 1.0)
    (0.5, 0.0)
    """
    if not math.isfinite(value):
        return math.nan
    x = float(check.value)
    if check.op == "approx":
        tolerance = max(check.rel_tol * abs(x), check.abs_tol)
        if tolerance <= 0:
            raise ValueError(
                f"check {check.describe()!r}: an approx check needs rel_tol or abs_tol > 0 to "
                "scale its margin"
            )
        return 1.0 - abs(value - x) / tolerance
    scale = abs(x) if x != 0 else 1.0
    if check.op in (">=", ">"):
        return (value - x) / scale
    if check.op in ("<=", "<"):
        return (x - value) / scale
    if check.op == "==":
        return 0.0 - abs(value - x) / scale  # 0.0, not -0.0, when exact
    raise ValueError(f"check op {check.op!r}: expected one of >=, >, <=, <, ==, approx")


def margin_interval(check: Check, low: float, high: float) -> tuple[float, float]:
    """The margins of the values in ``[low, high]``: their smallest and largest.

    A margin is linear in the value, or (``==``, ``≈``) peaks at the check's value, so the extremes
    are at the ends or at that value. (nan, nan) when the interval is not finite."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.nan, math.nan
    low, high = min(low, high), max(low, high)
    ends = [margin(check, low), margin(check, high)]
    peak = margin(check, min(max(float(check.value), low), high))
    return min(ends), max(*ends, peak)


def claim_margins(claims: Iterable[Claim], table: pd.DataFrame) -> pd.DataFrame:
    """Every claim's margin, with its interval's and (ambiguous claims) its across range's.

    Parameters
    ----------
    claims : list of Claim
        The claims of ``table``, in the report's order.
    table : pandas.DataFrame
        :func:`ppdp.report.verdicts.evaluate`'s table (``id``, ``verdict``, ``measured``,
        ``ci_low``, ``ci_high`` and, optionally, ``across_values``: the claim's values over its
        unstated settings).

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``id``, ``paper``, ``verdict``, ``marked`` (claims.yaml marks it
        unstable), ``margin``, ``low`` and ``high`` (its interval's margins), ``across_low`` and
        ``across_high`` (nan unless ambiguous).
    """
    rows = table.set_index("id")
    out = []
    for claim in claims:
        row = rows.loc[claim.id]
        measured = float(row["measured"])
        low, high = margin_interval(claim.check, float(row["ci_low"]), float(row["ci_high"]))
        a_low = a_high = math.nan
        values = [v for v in row.get("across_values", ()) or () if math.isfinite(v)]
        if row["verdict"] == AMBIGUOUS and values and math.isfinite(measured):
            a_low, a_high = margin_interval(
                claim.check, min(*values, measured), max(*values, measured)
            )
        out.append(
            {
                "id": claim.id,
                "paper": claim.paper,
                "verdict": str(row["verdict"]),
                "marked": claim.cause is not None and claim.cause.kind == "unstable",
                "margin": margin(claim.check, measured),
                "low": low,
                "high": high,
                "across_low": a_low,
                "across_high": a_high,
            }
        )
    return pd.DataFrame(
        out,
        columns=[
            "id",
            "paper",
            "verdict",
            "marked",
            "margin",
            "low",
            "high",
            "across_low",
            "across_high",
        ],
    )


def _clip(value: float) -> float:
    return float(np.clip(value, -MARGIN_LIMIT, MARGIN_LIMIT))


def _beyond(value: float) -> int:
    """+1 beyond the right edge, -1 beyond the left one, 0 inside (or nan)."""
    if not math.isfinite(value) or abs(value) <= MARGIN_LIMIT:
        return 0
    return 1 if value > 0 else -1


def _draw_claims(ax, frame: pd.DataFrame, ys: np.ndarray, size: float) -> int:
    """Draw each claim of ``frame`` at height ``ys``; return the number of claims drawn to the
    edge (their mark, interval or range reaches beyond it). Every clip triangle carries the gid
    ``clip:<claim id>``."""
    clipped = 0
    for y, row in zip(ys, frame.itertuples(index=False), strict=True):
        colour, marker, _ = VERDICT_STYLES.get(row.verdict, (_NO_VALUE, "o", ""))
        if math.isfinite(row.across_low):
            ax.plot(
                [_clip(row.across_low), _clip(row.across_high)],
                [y, y],
                color=colour,
                alpha=0.25,
                lw=size * 0.9,
                solid_capstyle="butt",
                zorder=1,
            )
        if math.isfinite(row.low):
            ax.plot([_clip(row.low), _clip(row.high)], [y, y], color=colour, lw=1.2, zorder=2)
        ends = [row.margin, row.low, row.high, row.across_low, row.across_high]
        sides = sorted({_beyond(v) for v in ends} - {0})
        clipped += bool(sides)
        for side in sides:
            # the triangle points outwards, just past the edge, so a mark at the edge stays visible
            ax.plot(
                [side * MARGIN_LIMIT * 1.18],
                [y],
                marker=">" if side > 0 else "<",
                color="black",
                markersize=size * 0.8,
                linestyle="none",
                zorder=4,
                clip_on=False,
                gid=f"{_CLIP_GID}{row.id}",
            )
        if not math.isfinite(row.margin):
            continue
        ax.plot(
            [_clip(row.margin)],
            [y],
            marker=marker,
            color=colour,
            markeredgecolor="white",
            markeredgewidth=0.5,
            markersize=size,
            linestyle="none",
            zorder=3,
        )
        if row.marked:
            ax.plot(
                [_clip(row.margin)],
                [y],
                marker="o",
                markerfacecolor="none",
                markeredgecolor="black",
                markeredgewidth=0.9,
                markersize=size * 1.9,
                linestyle="none",
                zorder=3,
            )
    return clipped


def _style_axis(ax) -> None:
    ax.set_xscale("symlog", linthresh=_LINEAR, linscale=1.0)
    edge = MARGIN_LIMIT * 1.35
    ax.set_xlim(-edge, edge)
    ax.set_xticks([-10, -1, -0.5, 0, 0.5, 1, 10])
    ax.set_xticklabels(["−10", "−1", "−0.5", "0", "0.5", "1", "10"])
    ax.axvline(0, color="black", lw=0.8, zorder=0)
    for side in (-1, 1):
        ax.axvline(side * MARGIN_LIMIT, color="#bbbbbb", lw=0.6, ls=":", zorder=0)
    # the claim's side of zero, faintly
    ax.axvspan(0, edge, color=VERDICT_STYLES["reproduced"][0], alpha=0.05, zorder=0, lw=0)
    ax.grid(axis="x", alpha=0.3, lw=0.5)
    ax.tick_params(axis="x", labelsize=9)
    for spine in ("top", "right", "left"):
        ax.spines[spine].set_visible(False)


def _legend(fig, frame: pd.DataFrame, columns: int) -> None:
    from matplotlib.lines import Line2D

    shown = [v for v in VERDICT_STYLES if (frame["verdict"] == v).any()]
    handles = [
        Line2D(
            [],
            [],
            marker=VERDICT_STYLES[v][1],
            color=VERDICT_STYLES[v][0],
            markeredgecolor="white",
            linestyle="none",
            markersize=7,
            label=VERDICT_STYLES[v][2],
        )
        for v in shown
    ]
    if frame["marked"].any():
        handles.append(
            Line2D(
                [],
                [],
                marker="o",
                markerfacecolor="none",
                markeredgecolor="black",
                linestyle="none",
                markersize=9,
                label="marked unstable",
            )
        )
    if handles:
        fig.legend(
            handles=handles,
            loc="upper center",
            ncol=min(columns, len(handles)),
            fontsize=9,
            frameon=False,
            bbox_to_anchor=(0.5, 1.0),
            handletextpad=0.3,
            columnspacing=1.2,
        )


def _figure(height: float):
    """A figure on its own Agg canvas: no pyplot, no global figure, whatever the backend."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(_WIDTH, height), dpi=_DPI)
    FigureCanvasAgg(fig)
    return fig


def plot_overview(
    frame: pd.DataFrame, titles: Mapping[str, str] | None = None
) -> tuple[object, int]:
    """The figure of every paper: a band per paper (in ``frame``'s order), a row per claim with a
    value, sorted by margin, without per-claim labels; each band's label counts its verdicts and
    the claims without a value. Returns the figure and the number of claims drawn to the edge."""
    titles = titles or {}
    papers = list(dict.fromkeys(frame["paper"]))
    drawn = frame[np.isfinite(frame["margin"].to_numpy(float))]
    drawn = drawn.sort_values("margin", ascending=False, kind="stable")
    labels = [_band_label(frame[frame["paper"] == paper], titles) for paper in papers]
    gap = 2.0
    ys, order, bands = [], [], []
    top = 0.0
    for paper, label in zip(papers, labels, strict=True):
        block = drawn[drawn["paper"] == paper]
        # a band is at least as tall as its label (a 9-point line spans about two rows)
        rows = max(len(block), 2 * label.count("\n") + 2)
        ys += [-(top + k + (rows - len(block)) / 2) for k in range(len(block))]
        order.append(block)
        bands.append((paper, top, top + rows - 1))
        top += rows + gap
    drawn = pd.concat(order) if order else drawn
    height = 1.3 + 0.085 * top
    fig = _figure(height)
    ax = fig.add_axes((0.27, 0.75 / height, 0.71, 1 - 1.2 / height))
    clipped = _draw_claims(ax, drawn, np.asarray(ys, dtype=float), 5.5)
    _style_axis(ax)
    ax.set_ylim(-(top - gap) + 0.5, 0.8)
    ax.set_yticks([-(a + b) / 2 for _, a, b in bands])
    ax.set_yticklabels(labels, fontsize=9)
    ax.tick_params(axis="y", length=0)
    for _, a, _ in bands[1:]:
        ax.axhline(-a + gap / 2 + 0.5, color="#cccccc", lw=0.6)
    ax.set_xlabel("margin to the check's boundary (> 0: on the claim's side)", fontsize=9)
    _legend(fig, drawn, columns=5)
    return fig, clipped


def _band_label(block: pd.DataFrame, titles: Mapping[str, str]) -> str:
    """A paper's band label: its short title and number of claims, its verdicts, and how many
    claims have no value (not measured, not yet run)."""
    paper = block["paper"].iloc[0]
    title = titles.get(paper, paper).split(" (")[0]
    parts = [
        f"{(block['verdict'] == 'reproduced').sum()} ✓",
        f"{(block['verdict'] == 'not reproduced').sum()} ✗",
    ]
    parts += [
        f"{(block['verdict'] == v).sum()} {v}"
        for v in (AMBIGUOUS, UNSTABLE)
        if (block["verdict"] == v).any()
    ]
    missing = int((~np.isfinite(block["margin"].to_numpy(float))).sum())
    label = f"{title} ({len(block)})\n" + ", ".join(parts)
    return label + (f"\n{missing} without a value" if missing else "")


def plot_paper(frame: pd.DataFrame) -> tuple[object, int]:
    """The figure of one paper's claims: a row per claim, labelled with its id (the paper's prefix
    left out), in ``frame``'s order. Returns the figure and the number of claims drawn to the
    edge."""
    n = len(frame)
    height = 1.1 + 0.2 * n
    fig = _figure(height)
    ax = fig.add_axes((0.42, 0.62 / height, 0.56, 1 - 0.97 / height))
    ys = -np.arange(n, dtype=float)
    clipped = _draw_claims(ax, frame, ys, 5.0)
    _style_axis(ax)
    ax.set_ylim(-n + 0.4, 0.6)
    ax.set_yticks(ys)
    labels = [cid.partition(".")[2] or cid for cid in frame["id"]]
    ax.set_yticklabels(labels, fontsize=8)
    ax.tick_params(axis="y", length=0)
    for y, row in zip(ys, frame.itertuples(index=False), strict=True):
        if not math.isfinite(row.margin):
            ax.text(0, y, f"  {row.verdict}", color=_NO_VALUE, fontsize=8, va="center")
    ax.grid(axis="y", alpha=0.15, lw=0.5)
    ax.set_xlabel("margin to the check's boundary (> 0: on the claim's side)", fontsize=8)
    _legend(fig, frame[np.isfinite(frame["margin"].to_numpy(float))], columns=5)
    return fig, clipped


@dataclass(frozen=True)
class Overview:
    """The verdict figures :func:`write_overview` wrote.

    Attributes
    ----------
    paths : dict of str to Path
        :data:`OVERVIEW_NAME` to the figure of every paper, and each paper to its own figure.
    clipped : int
        The claims of the overview whose mark, interval or range reaches beyond the axis edge.
    """

    paths: dict[str, Path] = field(default_factory=dict)
    clipped: int = 0


def write_overview(
    claims: list[Claim],
    table: pd.DataFrame,
    folder: str | os.PathLike,
    *,
    titles: Mapping[str, str] | None = None,
) -> Overview:
    """Write ``overview.png`` and ``<paper>.png`` for each paper of ``table`` into ``folder``.

    Parameters
    ----------
    claims, table
        As in :func:`claim_margins`.
    folder : str or path
        Where the PNGs go (the report's figures folder, ``<figures>/report``); created if need be.
        Other files there are left alone.
    titles : mapping, optional
        Paper to its title (the report's section titles), for the overview's bands.

    Returns
    -------
    Overview
        The paths written and the number of claims the overview draws to the edge.
    """
    import matplotlib

    frame = claim_margins(claims, table)
    if OVERVIEW_NAME in set(frame["paper"]):
        raise ValueError(
            f"a paper named {OVERVIEW_NAME!r} would overwrite the overview figure; rename it in "
            "claims.yaml"
        )
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    # the library's defaults, whatever style a notebook or the caller set
    defaults = {k: v for k, v in matplotlib.rcParamsDefault.items() if k != "backend"}
    with matplotlib.rc_context(defaults):
        fig, clipped = plot_overview(frame, titles)
        paths[OVERVIEW_NAME] = _save(fig, folder / f"{OVERVIEW_NAME}.png")
        for paper in dict.fromkeys(frame["paper"]):
            block = frame[frame["paper"] == paper].reset_index(drop=True)
            fig, _ = plot_paper(block)
            paths[paper] = _save(fig, folder / f"{paper}.png")
    return Overview(paths=paths, clipped=clipped)


def _save(fig, path: Path) -> Path:
    """Write ``fig`` as a PNG atomically, without metadata that changes between runs."""
    tmp = path.with_name(f".{path.name}.tmp")
    fig.savefig(tmp, format="png", dpi=_DPI, metadata={"Software": None})
    os.replace(tmp, path)
    return path
