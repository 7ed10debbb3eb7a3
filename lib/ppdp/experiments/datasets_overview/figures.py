"""The dataset overview's figures: the distribution of each private attribute, and the NMI heat
map of each dataset.

Both take what :func:`ppdp.experiments.datasets_overview.run.summarize_view` returns and return the
figure; the notebook saves it (``private_distributions``, ``nmi_<dataset>``).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ppdp.experiments.datasets_overview.run import PrivateView

__all__ = ["plot_nmi", "plot_private_distributions"]


def plot_private_distributions(
    views: Mapping[str, PrivateView],
    summaries: Mapping[str, tuple[pd.DataFrame, pd.Series, pd.DataFrame]],
):
    """One bar chart per dataset: the shares of its private attribute's values (the 25 most
    frequent when it has more), three charts a row.

    ``summaries`` maps each name of ``views`` to its
    :func:`~ppdp.experiments.datasets_overview.run.summarize_view` (rows, distribution, NMI matrix).
    """
    import matplotlib.pyplot as plt

    ncols = 3
    nrows = -(-len(views) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(12, 3.2 * nrows), squeeze=False)
    for ax, (name, view) in zip(axes.flat, views.items(), strict=False):
        distribution = summaries[name][1]
        if len(distribution) > 25:
            distribution = distribution.sort_values(ascending=False, kind="mergesort").head(25)
            ax.set_title(
                f"{name}: {view.private} (25 most frequent of {view.table[view.private].nunique()})"
            )
        else:
            ax.set_title(f"{name}: {view.private}")
        ax.bar([str(i) for i in distribution.index], distribution.to_numpy(), color="#0072B2")
        ax.set_ylabel(f"share of {view.unit}s")
        ax.tick_params(axis="x", labelrotation=90, labelsize=7)
    for ax in list(axes.flat)[len(views) :]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def plot_nmi(view: PrivateView, matrix: pd.DataFrame):
    """Heat map of the pairwise NMI ``matrix`` of ``view``'s attributes (the third item of its
    :func:`~ppdp.experiments.datasets_overview.run.summarize_view`), the private attribute first;
    annotated with the values when there are at most 16 attributes."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    order = [view.private] + [c for c in matrix.columns if c != view.private]
    matrix = matrix.loc[order, order]
    size = max(4.0, 0.38 * len(order) + 1.5)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    sns.heatmap(
        matrix,
        ax=ax,
        vmin=0,
        vmax=1,
        cmap="viridis",
        square=True,
        annot=len(order) <= 16,
        fmt=".2f",
        annot_kws={"size": 6},
        cbar_kws={"label": "normalized mutual information"},
    )
    ax.set_title(f"{view.name}: NMI between attributes (private: {view.private})")
    fig.tight_layout()
    return fig
