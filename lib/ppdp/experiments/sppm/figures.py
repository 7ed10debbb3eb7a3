"""The SPPM paper's figures (Figs. 2-7), each drawn from the tidy rows of its experiment.

Every ``plot_*`` function returns a matplotlib figure; the tables it reads come from
:mod:`ppdp.experiments.sppm.claims`. Methods are drawn in the house style
(:func:`ppdp.compendium.plotting.method_style`) given by :data:`METHOD_STYLE`, labelled by
:func:`method_label`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ppdp.experiments.sppm.claims import (
    _rows,
    auc_table,
    curve_table,
    nearest_point_table,
    support_table,
    time_table,
)

__all__ = [
    "FIG2_PANELS",
    "METHOD_STYLE",
    "method_label",
    "plot_nearest",
    "plot_roc",
    "plot_support",
    "plot_time",
    "plot_tradeoff",
]


#: House-style index (colour and marker, :func:`ppdp.compendium.plotting.method_style`) of each method; the
#: figures draw methods in this order.
METHOD_STYLE = {
    "optimal": 0,
    "exact": 0,
    "sppm_L100": 1,
    "sppm": 1,
    "expmec": 2,
    "sppm_L3": 3,
    "sppm_L10": 4,
    "sppm_L500": 5,
    "none": 7,
}


_METHOD_LABELS = {
    "none": "No privacy",
    "sppm": "SPPM",
    "expmec": "ExpMec",
    "optimal": "Optimal (certified)",
    "exact": "Exact (cvxpy)",
}


#: The panels of Fig. 2: experiment and title.
FIG2_PANELS = (
    ("fig2_synthetic", "Synthetic"),
    ("fig2_census", "Census"),
    ("fig2_movie", "Movie"),
)


def method_label(method: str) -> str:
    """The legend label of a method name of the frames (``sppm_L100`` -> ``SPPM L=100``)."""
    if method in _METHOD_LABELS:
        return _METHOD_LABELS[method]
    if method.startswith("sppm_L"):
        return "SPPM L=" + method.removeprefix("sppm_L")
    return method


def _by_style(methods) -> list:
    return sorted(methods, key=lambda m: METHOD_STYLE.get(m, 9))


# ------------------------------------------------------------------------------------------------
# Figures


def plot_tradeoff(frame: pd.DataFrame):
    """Fig. 2: leakage ``I(A; B^)`` against distortion, one panel per dataset.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of one or more of the experiments ``fig2_synthetic``,
        ``fig2_census`` and ``fig2_movie`` (from :func:`~ppdp.experiments.sppm.run.tradeoff`); a
        panel for each present.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    present = set(frame["experiment"])
    panels = [(exp, title) for exp, title in FIG2_PANELS if exp in present]
    if not panels:
        raise ValueError(
            f"frame has none of the experiments {[exp for exp, _ in FIG2_PANELS]}; it holds "
            f"{sorted(present)}"
        )
    fig, axes = plt.subplots(1, len(panels), figsize=(13 * len(panels) / 3, 3.6), squeeze=False)
    for ax, (exp, title) in zip(axes[0], panels, strict=True):
        tab = curve_table(frame, exp)
        for method in _by_style(tab["leakage"].columns):
            xs, ys = tab["distortion"][method], tab["leakage"][method]
            ok = xs.notna() & ys.notna()
            style = method_style(METHOD_STYLE.get(method, 6))
            ax.plot(xs[ok], ys[ok], label=method_label(method), **style)
        ax.set_xlabel("distortion $E[d(B,\\hat B)]$")
        ax.set_ylabel("$I(A;\\hat B)$ (bits)")
        ax.set_title(title)
        ax.legend()
    return fig


def plot_roc(frame: pd.DataFrame, experiment: str, title: str):
    """Figs. 3-4: ROC curves of the attack (mean over seeds), one panel per budget.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of ``experiment`` (from
        :func:`~ppdp.experiments.sppm.run.roc_experiment`).
    experiment : str
        ``"fig3"`` (Census) or ``"fig4"`` (Movie).
    title : str
        Start of each panel's title (the budget follows).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    auc = auc_table(frame, experiment)
    tpr = _rows(frame, experiment, ("tpr",))
    tpr = tpr.assign(delta=tpr["delta"].astype(float))
    deltas = sorted(auc.index)
    fig, axes = plt.subplots(1, len(deltas), figsize=(4.2 * len(deltas), 3.6), squeeze=False)
    for ax, d in zip(axes[0], deltas, strict=True):
        sub = tpr[tpr["delta"] == d].groupby(["method", "fpr"])["value"].mean().unstack(0)
        for method in _by_style(sub.columns):
            ax.plot(
                sub.index,
                sub[method],
                label=f"{method_label(method)} (AUC {auc.loc[d, method]:.3f})",
                **method_style(METHOD_STYLE.get(method, 6)),
                markevery=4,
            )
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        ax.set_title(f"{title}, $\\Delta$ = {d:g}")
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        ax.legend(loc="lower right")
    return fig


def plot_nearest(frame: pd.DataFrame):
    """Fig. 5: mean (and standard deviation over profiles) of ``p(k-th nearest | b)`` against k.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig5"`` (from
        :func:`~ppdp.experiments.sppm.run.nearest_point_experiment`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    tab = nearest_point_table(frame)
    methods = [m for m in ("sppm", "expmec") if ("mean", m) in tab.columns]
    fig, ax = plt.subplots()
    for i, method in enumerate(methods):
        ax.errorbar(
            tab.index + (i - 0.5) * 0.15,
            tab[("mean", method)],
            yerr=tab[("std", method)],
            capsize=3,
            label=method_label(method),
            **method_style(METHOD_STYLE[method]),
        )
    ax.set_xlabel("k (k-th nearest point; 1 = the point itself)")
    ax.set_ylabel("mean $p(\\hat b = k$-th nearest $\\mid b)$")
    ax.legend()
    return fig


def plot_time(frame: pd.DataFrame):
    """Fig. 6: seconds to compute each mapping against the alphabet size (log-log).

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig6"`` (from
        :func:`~ppdp.experiments.sppm.run.timing_experiment`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    tab = time_table(frame)
    fig, ax = plt.subplots()
    for method in _by_style(tab.columns):
        ok = tab[method].notna()
        style = method_style(METHOD_STYLE.get(method, 6))
        ax.loglog(tab.index[ok], tab[method][ok], label=method_label(method), **style)
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(tab.index), [str(n) for n in tab.index])
    ax.minorticks_off()
    ax.set_xlabel("alphabet size $|\\mathcal{B}|$")
    ax.set_ylabel("seconds")
    ax.legend()
    return fig


def plot_support(frame: pd.DataFrame, dataset: str = "Movie"):
    """Fig. 7: histogram of the support sizes of SPPM's ``p(. | b)`` over the profiles ``b``.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig7"`` at one budget (from
        :func:`~ppdp.experiments.sppm.run.support_experiment`).
    dataset : str
        Name of the dataset, for the title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    counts = _rows(frame, "fig7", ("profiles",))
    deltas = counts["delta"].unique()
    if len(deltas) != 1:
        raise ValueError(f"fig7 rows must hold one budget, got delta = {sorted(deltas)}")
    support = counts["support"].to_numpy(dtype=float)
    alphabet = int(support_table(frame)["alphabet"])
    fig, ax = plt.subplots()
    ax.hist(
        support,
        bins=np.arange(0.5, support.max() + 1.5),
        weights=counts["value"].to_numpy(),
        color=method_style(METHOD_STYLE["sppm"])["color"],
    )
    ax.set_xlabel("support size of $p(\\hat B \\mid b)$")
    ax.set_ylabel("profiles")
    ax.set_title(f"{dataset}, |B| = {alphabet}, $\\Delta$ = {float(deltas[0]):g}")
    return fig
