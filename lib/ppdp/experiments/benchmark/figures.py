"""The cross-paper benchmark's figures: the privacy-utility planes (:func:`plot_planes`)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ppdp.experiments.benchmark.claims import (
    REFERENCES,
    RISK_LABELS,
    UTILITY_LABELS,
    pareto_front,
    plane_points,
)
from ppdp.experiments.benchmark.data import load_roles
from ppdp.experiments.benchmark.registry import REGISTRY

__all__ = ["plot_planes"]


_REFERENCE_STYLE = {
    "none": ("*", 12, "unprotected"),
    "suppressed": ("s", 7, "private columns suppressed"),
    "nothing": ("X", 8, "nothing released"),
}


def plot_planes(
    results: pd.DataFrame,
    dataset: str,
    *,
    private: str | None = None,
    risks: Sequence[str] = ("risk", "xgb_I", "class_matching", "anonymeter_inference"),
    utility: str = "task_auc",
):
    """One panel per privacy axis of ``private`` (default: the dataset's protected attribute; the
    first panel the worst attacker's advantage): the curve over its levels (95% bars over seeds)
    of each mechanism that protects ``private`` (MovieLens' HyObscure family protects age, the
    others gender), the reference releases as black markers (unprotected: star, private columns
    suppressed: square, nothing released: cross) and the Pareto frontier of the points drawn as a
    grey step line. Every mechanism of a figure has its own colour."""
    import matplotlib.pyplot as plt

    protected = load_roles()[dataset]["private"][0]
    private = private or protected

    def protects(method: str) -> str:
        entry = REGISTRY.get(method)
        return (entry.protects if entry is not None else None) or protected

    drawn = results["method"].isin(REFERENCES) | results["method"].map(
        lambda m: protects(m) == private
    )
    results = results[drawn]

    planes = {
        r: plane_points(results, dataset, private=private, risk=r, utility=utility) for r in risks
    }
    risks = [r for r in risks if not planes[r].empty]
    n_panels = max(len(risks), 1)
    legend_width = 2.4  # inches right of the panels, for the legend
    fig, axes = plt.subplots(
        1, n_panels, figsize=(3.3 * n_panels + legend_width, 3.4), squeeze=False
    )
    # one style per mechanism drawn, stable across panels: a colour of its own (tab20's dark
    # shades first, then the light ones) and a marker cycling through eight
    present = sorted(set(results.loc[results["experiment"] == f"benchmark_{dataset}", "method"]))
    present = [m for m in present if m not in REFERENCES]
    palette = plt.get_cmap("tab20").colors
    shades = [palette[i] for i in range(0, 20, 2)] + [palette[i] for i in range(1, 20, 2)]
    markers = "osD^vP*X"
    styles = {
        m: {
            "color": shades[i % len(shades)],
            "marker": markers[i % len(markers)],
            "linestyle": "-" if i < len(shades) else "--",
        }
        for i, m in enumerate(present)
    }
    for ax, risk in zip(axes[0], risks, strict=False):
        pts = planes[risk]
        front = pareto_front(pts, utility)
        ax.step(
            front["risk"],
            front["utility"],
            where="post",
            color="0.75",
            lw=4,
            zorder=0,
            label="Pareto frontier",
        )
        for method, grp in pts.groupby("method", sort=True):
            grp = grp.sort_values("risk")
            if method in REFERENCES:
                marker, size, label = _REFERENCE_STYLE[method]
                ax.plot(grp["risk"], grp["utility"], marker, ms=size, color="black", label=label)
                continue
            ax.errorbar(
                grp["risk"],
                grp["utility"],
                xerr=grp["risk_hw"],
                yerr=grp["utility_hw"],
                ms=3.5,
                lw=1.1,
                capsize=2,
                label=method,
                **styles[method],
            )
        ax.set_xlabel(RISK_LABELS[risk])
    axes[0][0].set_ylabel(UTILITY_LABELS[utility])
    # every panel holds the same mechanisms; take the legend from the fullest one
    handles, labels = max(
        (ax.get_legend_handles_labels() for ax in axes[0]), key=lambda hl: len(hl[1])
    )
    fig.legend(handles, labels, loc="center right", fontsize=9, frameon=False)
    fig.suptitle(f"{dataset}: attacks on {private!r} against utility")
    fig.tight_layout(rect=(0, 0, (3.3 * n_panels) / (3.3 * n_panels + legend_width), 1))
    return fig
