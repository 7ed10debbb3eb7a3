"""The HyObscure experiments' figures (Figs. 3-11 and the decomposition of HyObscure's gain)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ppdp.experiments.common import is_metric, mean_halfwidth, parameter_labels, with_parameters
from ppdp.experiments.hyobscure.claims import _mean_ci
from ppdp.experiments.hyobscure.run import CLAIMS_ATTACK, METHODS

__all__ = [
    "plot_convergence",
    "plot_decomposition",
    "plot_scaling",
    "plot_sweep",
    "plot_tradeoff",
]


def _labels(dataset: str) -> tuple[str, str]:
    if dataset == "movielens":
        return "RMSE (movie rating prediction)", "MAE (age inference)"
    return "1 - mAP (activity recommendation)", "1 - acc (home inference)"


def plot_tradeoff(
    frame: pd.DataFrame,
    dataset: str,
    methods=(*METHODS, "GenOnly"),
    models=("rf", "xgb"),
    scenarios=("I", "II"),
):
    """Figs. 3/4: one panel per (attack model, scenario); privacy vs utility loss per method."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from ppdp.compendium.plotting import method_style

    summ = _mean_ci(frame)
    xlab, ylab = _labels(dataset)
    panels = [(m, s) for m in models for s in scenarios]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.3 * len(panels), 3.2), squeeze=False)
    for ax, (model, scen) in zip(axes[0], panels, strict=True):
        attack = {"model": model, "scenario": f"s{scen}"}
        for i, method in enumerate([m for m in methods if m in set(summ["method"])]):
            sub = summ[summ["method"] == method]
            u = sub[sub["metric"] == "utility_loss"].set_index("setting")
            p = sub[is_metric(sub, "privacy", **attack)].set_index("setting")
            if p.empty:
                continue
            idx = u.index.intersection(p.index)
            order = np.argsort(u.loc[idx, "mean"].to_numpy(), kind="mergesort")
            idx = idx[order]
            ax.errorbar(
                u.loc[idx, "mean"],
                p.loc[idx, "mean"],
                yerr=(p.loc[idx, "ci_high"] - p.loc[idx, "mean"]).to_numpy(),
                label=method,
                capsize=2,
                lw=1,
                **method_style(i),
            )
        ref = summ[summ["method"] == "Original"]
        if len(ref):
            ax.plot(
                ref[ref["metric"] == "utility_loss"]["mean"],
                ref[is_metric(ref, "privacy", **attack)]["mean"],
                "k*",
                ms=10,
                label="Reference",
            )
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.set_title(f"{model.upper()}, Scenario {scen}")
        ax.set_xlabel(xlab)
        ax.set_ylabel(ylab)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, 0.86 if len(panels) == 1 else 0.92, 1))
    fig.legend(handles, labels, loc="center right", fontsize=7)
    return fig


def plot_decomposition(dec: pd.DataFrame, dataset: str, protocol: str = "paper"):
    """HyObscure's privacy gain per point, stacked: re-generalization alone and obfuscation on
    top (means over seeds, % of the reference's privacy), with the utility change and whether the
    final groups meet Table II under each bar; a diamond marks obfuscation alone (the other
    order), when the frame holds it. ``dec`` is
    :func:`~ppdp.experiments.hyobscure.claims.decomposition`'s frame."""
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import PALETTE

    summ = dec.groupby("point", sort=False).mean(numeric_only=True)
    summ = summ.sort_values("utility_change_pct", kind="mergesort")
    x = np.arange(len(summ))
    gen, obf = summ["generalization_pct"].to_numpy(), summ["obfuscation_pct"].to_numpy()
    fig, ax = plt.subplots(figsize=(max(3.6, 0.75 * len(summ) + 1.5), 3.4))
    ax.bar(x, gen, color=PALETTE[0], label="generalization only")
    ax.bar(x, obf, bottom=np.where(obf >= 0, gen, 0), color=PALETTE[1], label="obfuscation on top")
    ax.plot(x, summ["total_pct"], "k_", ms=14, mew=2, label="total")
    if summ["obfuscation_alone_pct"].notna().any():
        # the other order: obfuscation alone on the starting groups (XObf at the same point)
        ax.plot(x, summ["obfuscation_alone_pct"], "D", color="0.2", ms=4, label="obfuscation alone")
    ax.axhline(0, color="0.5", lw=0.6)
    labels = []
    for point, row in summ.iterrows():
        met = row.get("table2_met", np.nan)
        mark = "" if np.isnan(met) else f"\nTable II {met:.0%}"
        # one parameter a line: the bars are narrow
        labels.append(
            f"{point.replace(', ', chr(10))}\nutil {row['utility_change_pct']:+.2f}%{mark}"
        )
    ax.set_xticks(x, labels, fontsize=6)
    _, ylab = _labels(dataset)
    ax.set_ylabel(f"gain in {ylab.split(' (')[0]} (% of reference)")
    ax.set_title(f"HyObscure's gain, {dataset}, {protocol} protocol", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_sweep(
    frame: pd.DataFrame,
    dataset: str,
    key: str,
    xlabel: str,
    series: str | None = None,
    *,
    model: str = CLAIMS_ATTACK["model"],
    scenario: str = CLAIMS_ATTACK["scenario"],
):
    """Figs. 6-9: privacy (of the attack ``model`` in ``scenario``) against a swept parameter, one
    line per method (or per ``series`` value)."""
    import matplotlib.pyplot as plt

    from ppdp.compendium.plotting import method_style

    attack = is_metric(frame, "privacy", model=model, scenario=scenario)
    sub = with_parameters(frame[attack], [key] if series is None else [key, series]).copy()
    sub["x"] = sub[key].astype(float)
    sub["line"] = sub["method"] if series is None else parameter_labels(sub, [series])
    fig, ax = plt.subplots(figsize=(4.2, 3.2))
    for i, (name, grp) in enumerate(sub.groupby("line", sort=False)):
        stats = grp.groupby("x")["value"].agg(["mean", "std", "count"]).reset_index()
        half = mean_halfwidth(stats["std"], stats["count"])
        ax.errorbar(
            stats["x"],
            stats["mean"],
            yerr=half,
            label=name,
            capsize=2,
            lw=1,
            **method_style(i),
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(_labels(dataset)[1])
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_scaling(frame: pd.DataFrame):
    """Fig. 10: run time of a full fit and release against the number of users (log-log)."""
    import matplotlib.pyplot as plt

    sub = frame[frame["metric"].str.startswith("seconds_")].copy()
    sub["n"] = sub["n_users"].astype(float)
    fig, ax = plt.subplots(figsize=(4.2, 3.2))
    for i, (metric, grp) in enumerate(sub.groupby("metric", sort=True)):
        g = grp.groupby("n")["value"].mean()
        ax.loglog(
            g.index,
            g.values,
            marker="os^Dv"[i % 5],
            label=metric.replace("seconds_", ""),
        )
    ax.set_xlabel("number of users")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_convergence(frame: pd.DataFrame):
    """Fig. 11: leakage after each O-problem and each accepted G move."""
    import matplotlib.pyplot as plt

    sub = frame[frame["metric"] == "leakage"].sort_values("step")
    fig, ax = plt.subplots(figsize=(4.2, 3.2))
    ax.plot(sub["step"], sub["value"], marker="o", ms=3)
    ax.set_xlabel("optimization step (O-problems and accepted G moves)")
    ax.set_ylabel("privacy leakage I(Y; X^, Y~) (bits)")
    fig.tight_layout()
    return fig
