"""The relay-chain experiment's claims: tables derived from the result rows.

:func:`mean_over_seeds` gives a figure's curves, :func:`claims` the claim rows (experiment
``"claims"``; ``claims.yaml`` states them), :func:`across_table` the claims of
:data:`ACROSS_CLAIMS` at every value of the settings the paper leaves open
(:data:`ppdp.experiments.relay_chains.run.ACROSS_SETTINGS`), and :func:`adult_sensitivity_table`
which method loses least under each Adult variant
(:func:`ppdp.experiments.relay_chains.run.adult_sensitivity`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ppdp.experiments.common import tidy_frame, tidy_rows, with_parameters
from ppdp.experiments.relay_chains.run import (
    ACROSS_EXPERIMENTS,
    ACROSS_SETTINGS,
    METHOD_LABELS,
    grid_label,
    wide,
)
from ppdp.mechanisms.relay import METHODS

__all__ = [
    "ACROSS_CLAIMS",
    "FIGURE_EXPERIMENTS",
    "across_table",
    "adult_sensitivity_table",
    "claims",
    "mean_over_seeds",
]


#: The experiments whose rows the figures (and most claims) are drawn from.
FIGURE_EXPERIMENTS = ("fig4", "fig5", "fig6", "fig6b")


#: The claims judged across :data:`ppdp.experiments.relay_chains.run.ACROSS_SETTINGS`, by the
#: figure they are read from. Fig. 4's claims move with the weighting and the grid, Fig. 6's with
#: the weighting and ``fig6_delta``.
ACROSS_CLAIMS = {
    "fig4": ("bua_loses_most", "loss_rises_sharply"),
    "fig6": (
        "fla_least_along_chains",
        "bua_most_along_chains",
        "fla_slowest_growth",
        "bua_fastest_growth",
    ),
}


def mean_over_seeds(
    figs: pd.DataFrame, experiment: str, metric: str, dataset: str, key: str
) -> pd.DataFrame:
    """One figure's curves: ``metric`` averaged over seeds, rows ``key`` values, columns methods."""
    w = wide(figs[(figs["experiment"] == experiment) & (figs["metric"] == metric)])
    if w.empty:
        return pd.DataFrame()
    w = w[w["dataset"] == dataset]
    return w.groupby([key, "method"])[metric].mean().unstack("method")


def _fig4_claims(f4: pd.DataFrame) -> list[tuple[str, float, str]]:
    """Fig. 4's claims (name, value, method) from its curves (:func:`mean_over_seeds`)."""
    if f4.empty:
        return []
    avg = f4.mean(axis=0)
    loose, strict = f4.index.max(), f4.index.min()
    gap = abs(f4.loc[loose, "fla"] - f4.loc[loose, "tda"]) / f4.loc[loose, "tda"]
    return [
        ("bua_loses_most", float(avg.idxmax() == "bua"), "bua"),
        ("loss_rises_sharply", float(f4.loc[strict].mean() / f4.loc[loose].mean()), ""),
        ("tda_fla_close_loose", 100.0 * float(gap), "fla"),
    ]


def _fig6_claims(f6: pd.DataFrame) -> list[tuple[str, float, str]]:
    """Fig. 6's claims (name, value, method) from its curves (:func:`mean_over_seeds`)."""
    if f6.empty:
        return []
    avg = f6.mean(axis=0)
    out = [
        ("fla_least_along_chains", float(avg.idxmin() == "fla"), "fla"),
        ("bua_most_along_chains", float(avg.idxmax() == "bua"), "bua"),
    ]
    if len(f6.index) > 1:
        growth = f6.loc[f6.index.max()] - f6.loc[f6.index.min()]
        out += [
            ("loss_grows_with_hops", float((growth > 0).all()), ""),
            ("fla_slowest_growth", float(growth.idxmin() == "fla"), "fla"),
            ("bua_fastest_growth", float(growth.idxmax() == "bua"), "bua"),
        ]
    return out


def claims(
    results: pd.DataFrame, dataset: str = "german", extension: str = "adult"
) -> pd.DataFrame:
    """Claim rows (experiment ``"claims"``) from the notebook's results, averaged over seeds.

    Orderings are 1 (holds) or 0 (does not); see ``claims.yaml`` for the statements.

    The claims of :data:`ACROSS_CLAIMS` are also given at every other value of the settings the
    paper leaves open that :func:`ppdp.experiments.relay_chains.run.run_experiment` ran (rows
    ``fig4_across``, ``fig6_across``), as ``<id>.across`` rows whose parameter names the setting
    and its value (``weighting``, ``deltas``: the grid's label, ``fig6_delta``); each claim only
    across the settings of its figure.

    Parameters
    ----------
    results : DataFrame
        The tidy rows of the notebook's experiments (``chains``, ``fig2``, ``fig4``, ``fig5``,
        ``fig6``, ``fig6b``, ``fig4_across``, ``fig6_across``), as written to its results CSV;
        claims rows in it are ignored, so the claims can be recomputed from a written run.
    dataset, extension : str
        The paper's dataset and the extension dataset (Adult).
    """
    figs = results[results["experiment"].isin(FIGURE_EXPERIMENTS)]
    chains = results[results["experiment"] == "chains"]
    fig2 = results[results["experiment"] == "fig2"]
    rows = []

    def add(claim: str, value: float, method: str = "") -> None:
        rows.extend(tidy_rows("claims", method, {f"relay_chains.{claim}": value}))

    f4 = mean_over_seeds(figs, "fig4", "mean_utility_loss", dataset, "delta")
    f6 = mean_over_seeds(figs, "fig6", "mean_utility_loss", dataset, "hops")
    for claim, value, method in _fig4_claims(f4) + _fig6_claims(f6):
        add(claim, value, method)
    # the same claims at the other values of the settings the paper leaves open: "<id>.across"
    # rows, one per value, the varied setting as their parameter
    wanted = {c for claims_of in ACROSS_CLAIMS.values() for c in claims_of}
    across = results[results["experiment"].isin(ACROSS_EXPERIMENTS)]
    if not across.empty:
        # a setting with no other value run has no column
        keyed = with_parameters(across, ACROSS_SETTINGS)
        for setting in ACROSS_SETTINGS:
            varied = keyed[keyed[setting].notna()]
            for value, index in varied.groupby(setting, sort=True).groups.items():
                block = across.loc[index]
                found = _fig4_claims(
                    mean_over_seeds(block, "fig4_across", "mean_utility_loss", dataset, "delta")
                ) + _fig6_claims(
                    mean_over_seeds(block, "fig6_across", "mean_utility_loss", dataset, "hops")
                )
                for claim, v, method in found:
                    if claim in wanted:
                        rows.extend(
                            tidy_rows(
                                "claims",
                                method,
                                {f"relay_chains.{claim}.across": v},
                                parameters={setting: value},
                            )
                        )
    f6b = mean_over_seeds(figs, "fig6b", "mean_utility_loss", dataset, "hops")
    if len(f6b.index) > 1:
        growth = f6b.loc[f6b.index.max()] - f6b.loc[f6b.index.min()]
        add("loss_grows_with_hops_fixed_top", float((growth > 0).all()))
    f5 = figs[(figs["experiment"] == "fig5")]
    if not f5.empty:
        w5 = wide(f5)
        w5 = w5[w5["dataset"] == dataset]
        p = w5.groupby(["seed", "hop", "method"])["privacy"].mean().unstack("method")
        add("bua_more_private", float((p["bua"] <= p["tda"]).mean()), "bua")
        fla = w5[w5["method"] == "fla"]
        nxt = fla["threshold"] - fla["delta"]  # the next hop's requirement (l - i) delta
        ahead = (fla["hop"] < fla["hops"]) & (fla["privacy"] <= nxt + 1e-12)
        add("fla_meets_next_requirement", float(ahead.any()), "fla")
    wc = wide(chains)
    if not wc.empty:
        add(
            "all_tables_meet_requirements", float((wc["privacy"] <= wc["threshold"] + 1e-12).mean())
        )
    f6x = mean_over_seeds(figs, "fig6", "mean_utility_loss", extension, "hops")
    if not f6x.empty:
        add("adult_fla_least_along_chains", float(f6x.mean(axis=0).idxmin() == "fla"), "fla")
    if not fig2.empty:
        for _, r in wide(fig2).iterrows():
            option = r["method"].split("_", 1)[1]
            add(
                f"fig2_option{option}_{r['weighting'].replace('.', '_')}_cost",
                float(r["total_cost"]),
                r["method"],
            )
    return tidy_frame(rows)


#: The figures whose claims each setting of
#: :data:`ppdp.experiments.relay_chains.run.ACROSS_SETTINGS` changes.
_SETTING_FIGURES = {"weighting": ("fig4", "fig6"), "deltas": ("fig4",), "fig6_delta": ("fig6",)}


def across_table(
    claims_rows: pd.DataFrame, *, weighting: str, deltas: Sequence[float], fig6_delta: float
) -> pd.DataFrame:
    """The claims of :data:`ACROSS_CLAIMS` at the profile's value of each setting (``weighting``,
    ``deltas``, ``fig6_delta``, the run's parameters) and at every other value it was run at.

    Returns
    -------
    DataFrame
        Index (``setting``, ``value``), a column per claim (without the ``relay_chains.`` prefix;
        empty where the setting does not change the claim) and ``profile`` (True on the profile's
        own value), from :func:`claims` rows.
    """
    name = claims_rows["metric"].str.removeprefix("relay_chains.")
    plain = dict(zip(name, claims_rows["value"], strict=True))
    profile = {"weighting": weighting, "deltas": grid_label(deltas), "fig6_delta": fig6_delta}
    records = []
    settings = with_parameters(claims_rows, ACROSS_SETTINGS)
    for setting in ACROSS_SETTINGS:
        names = [c for f in _SETTING_FIGURES[setting] for c in ACROSS_CLAIMS[f]]
        own = {c: plain[c] for c in names if c in plain}
        records.append({"setting": setting, "value": profile[setting], "profile": True, **own})
        mine = claims_rows[name.str.endswith(".across") & settings[setting].notna()]
        for value, block in mine.groupby(settings[setting], sort=False):
            values = dict(
                zip(
                    block["metric"].str.removeprefix("relay_chains.").str.removesuffix(".across"),
                    block["value"],
                    strict=True,
                )
            )
            records.append({"setting": setting, "value": value, "profile": False, **values})
    columns = ["setting", "value", "profile", *(c for f in ACROSS_CLAIMS.values() for c in f)]
    table = pd.DataFrame.from_records(records).reindex(columns=columns)
    table["value"] = table["value"].astype(str)
    return table.set_index(["setting", "value"])


# ---------------------------------------------------------------------------------------------------
# the Adult variants


def adult_sensitivity_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per variant of :func:`ppdp.experiments.relay_chains.run.adult_sensitivity`: each method's
    loss (mean over subsamples) and the method that loses least."""
    sub = with_parameters(
        frame[frame["experiment"] == "adult_sensitivity"], ("sensitive", "qis", "weighting")
    )
    table = sub.pivot_table(
        index=["sensitive", "qis", "weighting"], columns="method", values="value", aggfunc="mean"
    )
    table = table[[m for m in METHODS if m in table.columns]]
    table["least"] = table.idxmin(axis=1).map(METHOD_LABELS)
    return table.rename(columns=METHOD_LABELS)
