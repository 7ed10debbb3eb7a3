"""The relay-chain experiment's figures, drawn from the figure rows: Figs. 4, 5 and 6.

Each takes the figure rows of :func:`ppdp.experiments.relay_chains.run.run_experiment` (mean and 95%
interval over seeds) and returns the figure.
"""

from __future__ import annotations

import pandas as pd

from ppdp.experiments.common import mean_halfwidth
from ppdp.experiments.relay_chains.run import METHOD_LABELS, wide
from ppdp.mechanisms.relay import METHODS

__all__ = ["plot_fig4", "plot_fig5", "plot_fig6"]


def _summary(figs, experiment, metric, dataset, key):
    w = wide(figs[(figs["experiment"] == experiment) & (figs["metric"] == metric)])
    w = w[w["dataset"] == dataset]
    g = w.groupby(["method", key])[metric]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["half"] = mean_halfwidth(out["std"], out["count"])
    return out


def _methods_in(frame) -> list[str]:
    return [m for m in METHODS if m in set(frame["method"])]


def _curves(ax, summary: pd.DataFrame, key: str) -> None:
    """One line per method: the mean over seeds against ``key``, with its 95% interval."""
    from ppdp.compendium.plotting import method_style

    for i, method in enumerate(_methods_in(summary)):
        part = summary[summary["method"] == method].sort_values(key)
        ax.errorbar(
            part[key],
            part["mean"],
            yerr=part["half"],
            label=METHOD_LABELS[method],
            capsize=2,
            **method_style(i),
        )


def plot_fig4(figs: pd.DataFrame, dataset: str = "german", ax=None):
    """Fig. 4: average utility loss per table vs delta (mean and 95% interval over seeds)."""
    import matplotlib.pyplot as plt

    s = _summary(figs, "fig4", "mean_utility_loss", dataset, "delta")
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots()
    _curves(ax, s, "delta")
    ax.set_xlabel(r"privacy-disclosure threshold $\delta$")
    ax.set_ylabel("utility loss per table")
    ax.legend()
    return fig


def plot_fig5(figs: pd.DataFrame, dataset: str = "german", ax=None):
    """Fig. 5: each table's privacy P(T_i) along the chain, bars, with the requirement lines."""
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    s = _summary(figs, "fig5", "privacy", dataset, "hop")
    t = _summary(figs, "fig5", "threshold", dataset, "hop")
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots()
    methods = _methods_in(s)
    width = 0.8 / max(1, len(methods))
    for i, method in enumerate(methods):
        part = s[s["method"] == method].sort_values("hop")
        x = part["hop"] + (i - (len(methods) - 1) / 2) * width
        ax.bar(
            x,
            part["mean"],
            width=width,
            yerr=part["half"],
            label=METHOD_LABELS[method],
            color=method_style(i)["color"],
        )
    req = t[t["method"] == methods[0]].sort_values("hop")
    for j, (hop, value) in enumerate(zip(req["hop"], req["mean"], strict=True)):
        ax.hlines(
            value,
            hop - 0.45,
            hop + 0.45,
            colors="k",
            linestyles="--",
            linewidth=1,
            label="requirement" if j == 0 else None,
        )
    ax.set_xlabel("propagation hops")
    ax.set_ylabel(r"privacy disclosure $P(T_i)$ (bits)")
    ax.set_xticks(sorted(req["hop"].unique()))
    ax.legend()
    return fig


def plot_fig6(figs: pd.DataFrame, dataset: str = "german", ax=None, experiment: str = "fig6"):
    """Fig. 6: average utility loss per table vs the number of hops (``experiment="fig6b"``: the
    variant with the loosest requirement fixed)."""
    import matplotlib.pyplot as plt

    s = _summary(figs, experiment, "mean_utility_loss", dataset, "hops")
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots()
    _curves(ax, s, "hops")
    ax.set_xlabel("propagation hops")
    ax.set_ylabel("average utility loss per table")
    ax.set_xticks(sorted(s["hops"].unique()))
    ax.legend()
    return fig
