"""The cross-paper benchmark's figures: the privacy-utility planes (:func:`plot_planes`) and the
risk against the release size (:func:`plot_release_size`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
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

__all__ = ["plot_planes", "plot_release_size"]


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
    risks: Sequence[str] = ("risk", "risk_tpr_1pct", "risk_confident", "class_matching"),
    utility: str = "population_auc",
):
    """One panel per privacy axis of ``private`` (default: the dataset's protected attribute; the
    panels by default the worst attacker's AUC advantage, the tail's worst excess TPR at 1% FPR
    and of confident disclosures, and class matching's advantage; the utility what the
    population keeps of ``private``): the curve over its levels (95% bars over seeds)
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


#: The measures drawn against the release size, and their axis labels.
SIZE_MEASURES = {
    "risk": "worst AUC advantage",
    "risk_tpr_1pct": "worst excess TPR at 1% FPR",
    "risk_confident": "worst excess of disclosures\nat confidence 0.99",
}


def plot_release_size(results: pd.DataFrame, dataset: str, *, private: str | None = None):
    """The risk of each (mechanism, level) of a release-size sweep
    (:func:`ppdp.experiments.benchmark.sizes.release_size_sweep`) against the number of released
    people: one panel per measure of :data:`SIZE_MEASURES`, means over seeds with 95% t
    intervals, a log scale of sizes."""
    import matplotlib.pyplot as plt

    from ppdp.experiments.common import facet, mean_halfwidth

    private = private or load_roles()[dataset]["private"][0]
    frame = results[
        (results["experiment"] == f"release_size_{dataset}")
        & (facet(results, "attribute") == private)
    ]
    fig, axes = plt.subplots(1, len(SIZE_MEASURES), figsize=(3.6 * len(SIZE_MEASURES), 3.3))
    for ax, (measure, label) in zip(axes, SIZE_MEASURES.items(), strict=True):
        sub = frame[frame["metric"] == measure]
        stats = sub.groupby(["method", "level", "released_rows"])["value"].agg(
            ["mean", "std", "count"]
        )
        # one seed draws no bar
        stats["hw"] = np.nan_to_num(
            mean_halfwidth(stats["std"].fillna(0.0), stats["count"], distribution="t")
        )
        for (method, level), grp in stats.reset_index().groupby(["method", "level"]):
            ax.errorbar(
                grp["released_rows"],
                grp["mean"],
                yerr=grp["hw"],
                marker="o",
                ms=4,
                capsize=2,
                label=f"{method} ({REGISTRY[method].knob} = {level:g})",
            )
        ax.axhline(0.0, color="0.6", lw=0.8)
        ax.set_xscale("log")
        # the sizes themselves as ticks: a log axis over one decade labels nothing useful
        sizes = sorted(set(sub["released_rows"]))
        ax.set_xticks(sizes, [f"{int(n):,}" for n in sizes], rotation=30)
        ax.minorticks_off()
        ax.set_xlabel("released people")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=8, frameon=False)
    fig.suptitle(f"{dataset}: risk on {private!r} against the size of the release")
    fig.tight_layout()
    return fig
