"""The IMPOSTER experiment's figures, drawn from the tidy rows of its runs.

``plot_fig6``, ``plot_training_history``, ``plot_fig7``, ``plot_fig8`` and
``plot_privacy_utility``: each takes tidy rows (any superset of the experiments it draws) and
returns the figure; the notebook saves it with :func:`ppdp.compendium.plotting.save_figure`. They lay the
rows out with :mod:`ppdp.experiments.imposter.claims` and read the paper's numbers with
:func:`ppdp.compendium.published.published_value` (``claims.yaml``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ppdp.compendium.published import published_value
from ppdp.experiments.imposter.claims import (
    _expand,
    _rows,
    detection_scores,
    detection_theta,
    nmi_matrix,
    score_table,
)
from ppdp.experiments.imposter.run import LABEL, PRIVATE

__all__ = [
    "plot_fig6",
    "plot_fig7",
    "plot_fig8",
    "plot_privacy_utility",
    "plot_training_history",
]


# ------------------------------------------------------------------------------------------------
# Figures. Each takes tidy rows (any superset of the experiments it draws) and returns the figure;
# the notebook saves it with ppdp.compendium.plotting.save_figure.


def _seed_note(fig, rows: pd.DataFrame) -> None:
    if rows["seed"].nunique() > 1:
        fig.suptitle("error bars: 95% interval of the mean over seeds", fontsize=8)


def plot_fig6(frame: pd.DataFrame, columns: Sequence[str] | None = None):
    """Fig. 6: (a) NMI between every pair of attributes; (b) each attribute's NMI with ``sex``
    (log scale), the selected ones in orange, and the threshold ``theta`` (Algorithm 1).

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`ppdp.experiments.imposter.run.run_fig6`'s rows.
    columns : sequence of str, optional
        Order of the attributes in panel (a); see
        :func:`ppdp.experiments.imposter.claims.nmi_matrix`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import PALETTE

    matrix = nmi_matrix(frame, columns)
    scores = detection_scores(frame)
    theta = detection_theta(frame)
    names = list(matrix.index)
    values = matrix.to_numpy()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1.25, 1]})
    off_diagonal = np.nanmax(values * (1 - np.eye(len(names))))
    im = ax1.imshow(values, cmap="Blues", vmin=0, vmax=min(1, off_diagonal))
    ax1.set_xticks(range(len(names)), names, rotation=90)
    ax1.set_yticks(range(len(names)), names)
    ax1.grid(False)
    fig.colorbar(im, ax=ax1, shrink=0.8, label="NMI")
    ax1.set_title("(a) NMI between attributes")
    order = scores.iloc[::-1]  # barh draws bottom up: the largest NMI on top
    colors = [PALETTE[1] if s else PALETTE[0] for s in order["selected"]]
    ax2.barh(order.index, order["nmi"], color=colors)
    ax2.axvline(theta, color="k", ls="--", lw=1, label=f"theta = {theta:g}")
    ax2.set_xscale("log")
    ax2.set_xlabel("NMI with sex (log scale)")
    ax2.set_title("(b) detection: selected in orange")
    ax2.legend(loc="lower right")
    fig.tight_layout()
    return fig


def plot_training_history(history: pd.DataFrame, seed: int | None = None):
    """IMPOSTER's training: (a) the VAE and D1 losses, (b) D2's accuracy on generated records.

    Parameters
    ----------
    history : DataFrame
        The training histories returned by :func:`ppdp.experiments.imposter.run.run_table1` (columns
        ``epoch``, ``recon``, ``kl``, ``d1_loss``, ``g_d1_loss``, ``d2_accuracy``, ``lam``,
        ``seed``).
    seed : int, optional
        The run to draw; by default the first one.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    seed = int(history["seed"].iloc[0]) if seed is None else seed
    run = history[history["seed"] == seed]
    if run.empty:
        raise ValueError(
            f"history has no run with seed {seed}; it has {sorted(history.seed.unique())}"
        )
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for i, col in enumerate(["recon", "kl", "d1_loss", "g_d1_loss"]):
        axes[0].plot(run["epoch"], run[col], label=col, **method_style(i))
    axes[0].set_xlabel("epoch")
    axes[0].set_title("(a) VAE and D1 losses")
    axes[0].legend()
    axes[1].plot(
        run["epoch"], run["d2_accuracy"], label="D2 accuracy on generated data", **method_style(4)
    )
    axes[1].axhline(0.5, color="k", ls="--", lw=1, label="chance (balanced batches)")
    axes[1].set_ylim(0.3, 1.05)
    axes[1].set_xlabel("epoch")
    axes[1].set_title(f"(b) privacy discriminator, lambda = {float(run['lam'].iloc[0])}")
    axes[1].legend()
    fig.tight_layout()
    return fig


def _imposter_point(frame: pd.DataFrame, setting: str, classifier: str) -> pd.Series:
    t1 = score_table(frame, "table1")
    if (setting, classifier) not in t1.index:
        raise ValueError(
            f"the table1 rows have no {classifier} scores on Setting {setting}; "
            f"run run_table1 with {classifier!r} among the classifiers"
        )
    return t1.loc[(setting, classifier)]


def plot_fig7(frame: pd.DataFrame, classifier: str = "GBDT"):
    """Fig. 7: k-RR's accuracy and F1 (Setting B) against epsilon, with IMPOSTER's as lines.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`ppdp.experiments.imposter.run.run_fig7`'s and
        :func:`ppdp.experiments.imposter.run.run_table1`'s rows.
    classifier : str
        The classifier of the IMPOSTER reference lines (Table 1, Setting B); Fig. 7's own.

    Returns
    -------
    matplotlib.figure.Figure
        Error bars: 95% interval of the mean over seeds (none with one seed).
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    imp_b = _imposter_point(frame, "B", classifier)
    b7 = score_table(frame, "fig7").loc["B"]
    e7 = score_table(frame, "fig7", stat="ci").loc["B"]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    panels = [
        (PRIVATE, "(a) explicit private attribute: sex"),
        (LABEL, "(b) class label: income"),
    ]
    for ax, (target, title) in zip(axes, panels, strict=True):
        for i, metric in enumerate(["accuracy", "f1"]):
            ax.errorbar(
                b7.index,
                b7[(target, metric)],
                yerr=e7[(target, metric)],
                capsize=2,
                label=f"k-RR {metric}",
                **method_style(i),
            )
            ax.axhline(
                imp_b[(target, metric)],
                color=method_style(i)["color"],
                ls="--",
                lw=1,
                label=f"IMPOSTER {metric}",
            )
        ax.set_xscale("log")
        ax.set_xlabel("privacy budget epsilon")
        ax.set_title(title)
    axes[0].set_ylabel("score (%)")
    axes[1].legend(loc="lower right")
    _seed_note(fig, _rows(frame, "fig7"))
    fig.tight_layout()
    return fig


def plot_fig8(frame: pd.DataFrame):
    """Fig. 8: accuracy and F1 on Setting B against lambda, for ``sex`` and ``income``.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`ppdp.experiments.imposter.run.run_fig8`'s rows.

    Returns
    -------
    matplotlib.figure.Figure
        Error bars: 95% interval of the mean over seeds (none with one seed).
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    t8 = score_table(frame, "fig8")
    ci8 = score_table(frame, "fig8", stat="ci")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    panels = [
        (PRIVATE, "(a) correlation elimination: sex"),
        (LABEL, "(b) data utility: income"),
    ]
    for ax, (target, title) in zip(axes, panels, strict=True):
        for i, metric in enumerate(["accuracy", "f1"]):
            ax.errorbar(
                t8.index,
                t8[(target, metric)],
                yerr=ci8[(target, metric)],
                capsize=2,
                label=metric,
                **method_style(i),
            )
        ax.set_xlabel("lambda")
        ax.set_title(title)
    axes[0].set_ylabel("score (%)")
    axes[0].legend()
    _seed_note(fig, _rows(frame, "fig8"))
    fig.tight_layout()
    return fig


def plot_privacy_utility(
    frame: pd.DataFrame, majority: float | None = None, classifier: str = "GBDT"
):
    """Privacy against utility: sex accuracy vs income accuracy (Setting B) of IMPOSTER and of
    k-RR at every epsilon, with real data (Setting A) and the paper's two points (Section 5.6).

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`ppdp.experiments.imposter.run.run_table1`'s and
        :func:`ppdp.experiments.imposter.run.run_fig7`'s rows.
    majority : float, optional
        The sex majority rate in percent (:func:`ppdp.experiments.imposter.run.majority_rate`),
        drawn as a vertical line.
    classifier : str
        The classifier of the IMPOSTER and real-data points; Fig. 7's own.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    acc_private, acc_label = (PRIVATE, "accuracy"), (LABEL, "accuracy")
    a_real = _imposter_point(frame, "A", classifier)
    imp_b = _imposter_point(frame, "B", classifier)
    b7 = score_table(frame, "fig7").loc["B"]
    lams = _expand(_rows(frame, "table1"), ["lambda"])["lambda"].dropna().unique()
    lam = ", ".join(str(float(v)) for v in sorted(lams))
    fig, ax = plt.subplots(figsize=(5.4, 4.0))
    ax.scatter(
        a_real[acc_private],
        a_real[acc_label],
        marker="*",
        s=120,
        color="k",
        label="real data (Setting A)",
    )
    ax.plot(b7[acc_private], b7[acc_label], label="k-RR", **method_style(0))
    last_xy = None
    for eps, r in b7.iterrows():
        xy = (r[acc_private], r[acc_label])
        if last_xy is not None and abs(xy[0] - last_xy[0]) < 0.5 and abs(xy[1] - last_xy[1]) < 0.3:
            continue  # coincides with the previous epsilon's point
        last_xy = xy
        ax.annotate(f"eps={eps:g}", xy, fontsize=7, textcoords="offset points", xytext=(4, -8))
    ax.scatter(
        imp_b[acc_private],
        imp_b[acc_label],
        s=70,
        label=f"IMPOSTER (lambda = {lam})",
        **method_style(1),
    )
    if majority is not None:
        ax.axvline(majority, color="grey", ls=":", lw=1, label="sex majority rate")
    ax.scatter(
        published_value("imposter.gender_accuracy_b"),
        published_value("imposter.income_accuracy_b"),
        marker="x",
        color=method_style(1)["color"],
        label="IMPOSTER, published",
    )
    ax.scatter(
        published_value("imposter.krr_gender_accuracy"),
        published_value("imposter.krr_income_at_gender_6891"),
        marker="x",
        color=method_style(0)["color"],
        label="k-RR, published",
    )
    ax.set_xlabel("sex accuracy (%)  (lower = more private)")
    ax.set_ylabel("income accuracy (%)  (higher = more useful)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig
