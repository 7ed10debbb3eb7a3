"""Mutual Cover's figures (Figs. 3-8), drawn from the tidy rows of the ``run`` module.

Each ``plot_*`` function draws the max / min / mean over runs that
:func:`ppdp.experiments.mutual_cover.claims.summary` reports, and returns the figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ppdp.experiments.mutual_cover.claims import summary
from ppdp.experiments.mutual_cover.run import METHOD_MC

__all__ = [
    "plot_disclosure",
    "plot_effect_of_l",
    "plot_mondrian_disclosure",
    "plot_tradeoff",
]


def _band(ax, x, s, label, style):
    ax.plot(x, s["mean"], label=label, **style)
    ax.fill_between(x, s["min"], s["max"], color=style["color"], alpha=0.2, linewidth=0)


def plot_disclosure(frame: pd.DataFrame, experiment: str, metric: str, ylabel: str):
    """One panel per P_match: mean over runs with the min-max band, x = 1/delta (Figs. 3, 4)."""
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    s = summary(frame, experiment, metric)
    ps = sorted(s["p_match"].unique())
    ncol = 3
    nrow = int(np.ceil(len(ps) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(9, 2.6 * nrow), sharey=True, squeeze=False)
    ymax = s["max"].max()
    for i, p in enumerate(ps):
        ax = axes.flat[i]
        sub = s[s["p_match"] == p].sort_values("1/delta")
        ax.errorbar(
            sub["1/delta"],
            sub["mean"],
            yerr=[sub["mean"] - sub["min"], sub["max"] - sub["mean"]],
            capsize=3,
            **method_style(0),
        )
        ax.set_title(f"({chr(97 + i)}) $P_{{match}}$ = {p:g}")
        ax.set_xlabel(r"$1/\delta$")
        ax.set_ylim(0, ymax * 1.1 if ymax > 0 else 1)
        if i % ncol == 0:
            ax.set_ylabel(ylabel)
    for ax in axes.flat[len(ps) :]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def plot_mondrian_disclosure(frame: pd.DataFrame):
    """Fig. 5: Mondrian's identity and attribute disclosure against P_match, beside MutualCover."""
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    fig, axes = plt.subplots(1, 2, figsize=(9.4, 3), sharey=True)
    for ax, metric, mc_exp, title in (
        (axes[0], "identity_disclosure", "fig3", "(a) identity disclosure"),
        (axes[1], "attribute_disclosure", "fig4", "(b) attribute disclosure"),
    ):
        mo = summary(frame, "fig5", metric).sort_values("p_match")
        _band(ax, mo["p_match"], mo, "Mondrian", method_style(1))
        mc = summary(frame, mc_exp, metric)
        for i, (delta, sub) in enumerate(mc.groupby("delta", sort=False)):
            sub = sub.sort_values("p_match")
            ax.plot(
                sub["p_match"],
                sub["mean"],
                linestyle="--",
                linewidth=1,
                label=f"MC δ=1/{1 / delta:.0f}",
                **{**method_style(2 + i), "markersize": 3},
            )
        ax.set_xlabel("$P_{match}$")
        ax.set_title(title)
    axes[0].set_ylabel("probability")
    # outside the panels: inside, it covers the curves near P_match = 1
    axes[1].legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def plot_tradeoff(
    frame: pd.DataFrame,
    experiment: str,
    metric: str,
    ylabel: str,
    baselines: Sequence[str],
    *,
    log_baselines: bool = False,
):
    """Figs. 6/7: MutualCover per 1/delta (max/min/mean) and the baselines per l.

    ``log_baselines`` draws the baselines' panels on a logarithmic y axis (Fig. 7: their errors
    span decades), labelled with plain numbers."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator

    from ppdp.compendium.plotting import method_style

    fig, axes = plt.subplots(1, 1 + len(baselines), figsize=(3.2 * (1 + len(baselines)), 3))
    axes = np.atleast_1d(axes)
    s = summary(frame, experiment, metric)
    mc = s[s.method == METHOD_MC].sort_values("1/delta")
    axes[0].errorbar(
        mc["1/delta"],
        mc["mean"],
        yerr=[mc["mean"] - mc["min"], mc["max"] - mc["mean"]],
        capsize=3,
        **method_style(0),
    )
    axes[0].set_xlabel(r"$1/\delta$ ($l$ = 10)")
    axes[0].set_title("(a) MutualCover")
    axes[0].set_ylabel(ylabel)
    for i, b in enumerate(baselines):
        sub = s[s.method == b].sort_values("l")
        ax = axes[i + 1]
        ax.errorbar(
            sub["l"],
            sub["mean"],
            yerr=[sub["mean"] - sub["min"], sub["max"] - sub["mean"]],
            capsize=3,
            **method_style(i + 1),
        )
        ax.set_xlabel("$l$")
        ax.set_title(f"({chr(98 + i)}) {b}")
        if log_baselines:
            ax.set_yscale("log")
            plain = FuncFormatter(lambda v, _: f"{v:g}")
            ax.yaxis.set_major_formatter(plain)
            # label the 2x and 5x minor ticks too, as numbers (not "2×10⁰")
            ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
            ax.yaxis.set_minor_formatter(plain)
    fig.tight_layout()
    return fig


def plot_effect_of_l(frame: pd.DataFrame):
    """Fig. 8: information loss and query error of MutualCover against l at delta = 1/6."""
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    fig, axes = plt.subplots(1, 2, figsize=(7, 3))
    for ax, metric, title in (
        (axes[0], "iloss", "(a) information loss"),
        (axes[1], "relative_error", "(b) relative error"),
    ):
        ax.set_ylabel({"iloss": "ILoss", "relative_error": "relative error"}[metric])
        s = summary(frame, "fig8", metric).sort_values("l")
        ax.errorbar(
            s["l"],
            s["mean"],
            yerr=[s["mean"] - s["min"], s["max"] - s["mean"]],
            capsize=3,
            **method_style(0),
        )
        ax.set_xlabel("$l$")
        ax.set_title(title)
    fig.tight_layout()
    return fig
