"""Mutual Cover's summaries and claims, derived from the tidy rows of the ``run`` module.

:func:`summary` gives the paper's max / min / mean over runs per method and parameters;
:func:`claims` derives the paper's claims (``experiment == "claims"``) from the rows alone, so they
can be recomputed from a written run. :func:`mondrian_ordering` and :func:`delta_influence` judge
two readings beyond the paper: the disclosure orderings against Mondrians of other group sizes, and
Fig. 7(a)'s "little influence" of delta.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ppdp.experiments.common import rank_correlation, tidy_frame, tidy_rows, with_parameters
from ppdp.experiments.mutual_cover.run import METHOD_ANATOMY, METHOD_MC, METHOD_MONDRIAN, MINIMAL

__all__ = [
    "claims",
    "delta_influence",
    "mondrian_ordering",
    "mondrian_size",
    "summary",
]


def _params(frame: pd.DataFrame) -> pd.DataFrame:
    # every key a column (a subset may lack one) and floats throughout: the summaries print l as
    # 10.0 whatever the grid
    keys = ("delta", "l", "p_match")
    return with_parameters(frame, keys).astype(dict.fromkeys(keys, "float64"))


def summary(frame: pd.DataFrame, experiment: str, metric: str) -> pd.DataFrame:
    """Max / min / mean over runs (the paper's reporting) per method and parameters."""
    sub = _params(frame[(frame["experiment"] == experiment) & (frame["metric"] == metric)])
    keys = [k for k in ("method", "l", "delta", "p_match") if k == "method" or sub[k].notna().any()]
    out = sub.groupby(keys, dropna=False)["value"].agg(["mean", "min", "max"]).reset_index()
    if "delta" in out:
        out.insert(out.columns.get_loc("delta") + 1, "1/delta", (1 / out["delta"]).round(3))
    return out


def claims(results: pd.DataFrame) -> pd.DataFrame:
    """Claims of the paper as tidy rows (``experiment == "claims"``); see the claims file.

    ``results`` holds the tidy rows of the notebook's experiments, as written to its results CSV
    (claims rows in it are ignored), so the claims can be recomputed from a written run.

    The two comparisons with Fig. 5's Mondrian (``identity_below_mondrian_fraction``,
    ``attribute_below_mondrian_fraction``) are also made with every Mondrian of another group size
    among the ``mondrian_groups`` rows
    (:func:`ppdp.experiments.mutual_cover.run.mondrian_group_sizes` of
    :func:`ppdp.experiments.mutual_cover.run.mondrian_variants`), as ``<id>.across`` rows with the
    parameter ``mondrian_k`` (``"minimal"`` or ``k``): the paper gives its Mondrian only ``l``.
    """
    frame = results
    rows: list[dict] = []
    d3 = _params(frame[(frame.experiment == "fig3") & (frame.metric == "identity_disclosure")])
    d4 = _params(frame[(frame.experiment == "fig4") & (frame.metric == "attribute_disclosure")])
    d5 = _params(frame[frame.experiment == "fig5"])
    f6 = _params(frame[(frame.experiment == "fig6") & (frame.metric == "iloss")])
    f7 = _params(frame[(frame.experiment == "fig7") & (frame.metric == "relative_error")])
    f8 = _params(frame[frame.experiment == "fig8"])

    def add(claim, value, method=""):
        rows.extend(tidy_rows("claims", method, {f"mutual_cover.{claim}": float(value)}))

    l_main = (
        f6.loc[f6.method == METHOD_MC, "l"].iloc[0] if (f6.method == METHOD_MC).any() else np.nan
    )
    # Figs. 3/4: mean disclosure (over P_match < 1 and runs) is non-increasing as delta falls
    for name, d in (("identity_falls_with_delta", d3), ("attribute_falls_with_delta", d4)):
        means = d[d.p_match < 1].groupby("delta")["value"].mean().sort_index(ascending=False)
        if len(means) > 1:
            add(
                name,
                float(
                    means.iloc[0] >= means.iloc[-1]
                    and rank_correlation(means.index, means.to_numpy()) > 0
                ),
                METHOD_MC,
            )
    # Fig. 3(f): with P_match = 1 every identity disclosure is 0
    full = d3[np.isclose(d3.p_match, 1.0)]
    if len(full):
        add("identity_zero_at_full_match", full["value"].max(), METHOD_MC)
    # the disclosure peaks at an intermediate P_match (0.7-0.8), not at the extremes
    if len(d3):
        by_p = d3.groupby("p_match")["value"].mean()
        add("identity_peak_p_match", by_p.idxmax(), METHOD_MC)
    # Figs. 3-5: MutualCover discloses less than Mondrian, averaged over P_match and delta
    if len(d3) and len(d5):
        mc_id = d3.groupby("p_match")["value"].mean()
        mo_id = d5[d5.metric == "identity_disclosure"].groupby("p_match")["value"].mean()
        common = mc_id.index.intersection(mo_id.index)
        add(
            "identity_below_mondrian_fraction",
            float((mc_id[common] < mo_id[common]).mean()),
            METHOD_MC,
        )
        mc_at = d4.groupby("p_match")["value"].mean()
        mo_at = d5[d5.metric == "attribute_disclosure"].groupby("p_match")["value"].mean()
        add(
            "attribute_below_mondrian_fraction",
            float((mc_at[common] < mo_at[common]).mean()),
            METHOD_MC,
        )
        # the same at the Mondrian group sizes the paper leaves open (mondrian_group_sizes' rows):
        # "<id>.across" rows, one per size, parameter mondrian_k ("minimal" or k); Fig. 5's own
        # Mondrian is the plain rows above
        for _, size, mondrian in _mondrian_baselines(frame):
            if size is None:
                continue
            values = {
                "identity_below_mondrian_fraction": _below_share(
                    mc_id, _by_p_match(mondrian, "identity_disclosure")
                ),
                "attribute_below_mondrian_fraction": _below_share(
                    mc_at, _by_p_match(mondrian, "attribute_disclosure")
                ),
            }
            rows += tidy_rows(
                "claims",
                METHOD_MC,
                {f"mutual_cover.{c}.across": v for c, v in values.items() if not np.isnan(v)},
                parameters={"mondrian_k": size},
            )
    # Fig. 6: information loss rises as delta falls; far below Mondrian's
    mc6 = f6[f6.method == METHOD_MC].groupby("delta")["value"].mean().sort_index(ascending=False)
    if len(mc6) > 1:
        add(
            "iloss_rises_as_delta_falls",
            float(rank_correlation(mc6.index, mc6.to_numpy()) < 0),
            METHOD_MC,
        )
    mo6 = f6[(f6.method == METHOD_MONDRIAN) & (f6.l == l_main)]["value"]
    if len(mc6) and len(mo6):
        add("iloss_ratio_mondrian_over_mc", float(mo6.mean() / mc6.max()), METHOD_MC)
    # Fig. 7: query error far below Mondrian's and Anatomy's, nearly flat in delta
    mc7 = f7[f7.method == METHOD_MC].groupby("delta")["value"].mean()
    mo7 = f7[(f7.method == METHOD_MONDRIAN) & (f7.l == l_main)]["value"]
    an7 = f7[(f7.method == METHOD_ANATOMY) & (f7.l == l_main)]["value"]
    if len(mc7) and len(mo7):
        add("query_error_ratio_mondrian_over_mc", float(mo7.mean() / mc7.max()), METHOD_MC)
    if len(mc7) and len(an7):
        add("query_error_ratio_anatomy_over_mc", float(an7.mean() / mc7.max()), METHOD_MC)
    if len(mc7) > 1:
        add("query_error_spread_over_delta", float((mc7.max() - mc7.min()) / mc7.mean()), METHOD_MC)
    # Fig. 8: raising l lowers information loss and raises query error
    il8 = f8[f8.metric == "iloss"].groupby("l")["value"].mean()
    er8 = f8[f8.metric == "relative_error"].groupby("l")["value"].mean()
    if len(il8) > 1:
        add("iloss_falls_with_l", float(rank_correlation(il8.index, il8.to_numpy()) < 0), METHOD_MC)
        add(
            "query_error_rises_with_l",
            float(rank_correlation(er8.index, er8.to_numpy()) > 0),
            METHOD_MC,
        )
    return tidy_frame(rows)


def mondrian_size(variant: Mapping[str, Any], l: float) -> int | str | None:  # noqa: E741
    """The group size (as in :func:`ppdp.experiments.mutual_cover.run.mondrian_variants`) of a
    ``mondrian_groups`` row's Mondrian, from its parameters ``variant`` (``l``, ``k``, ``refine``; a
    missing one is absent or nan); ``None`` when it is Fig. 5's Mondrian at ``l`` (or one of another
    ``l``, or a combination :func:`ppdp.experiments.mutual_cover.run.mondrian_variants` does not
    make)."""

    def given(key):
        value = variant.get(key)
        return value is not None and not pd.isna(value)

    if not given("l") or not np.isclose(float(variant["l"]), l):
        return None
    k = int(float(variant["k"])) if given("k") else None
    if (variant["refine"] if given("refine") else "none") == "anatomy":
        return MINIMAL if k is None else None
    return k if k is not None and k > l else None


def _by_p_match(rows: pd.DataFrame, metric: str) -> pd.Series:
    """Mean ``value`` of ``metric`` per ``p_match`` (float index) of tidy rows."""
    sub = rows[rows["metric"] == metric]
    sub = with_parameters(sub, ["p_match"])
    return sub.groupby(sub["p_match"].astype(float))["value"].mean()


def _below_share(mc: pd.Series, mondrian: pd.Series) -> float:
    """Share of the common ``P_match`` values at which MutualCover's mean is below Mondrian's."""
    common = mc.index.intersection(mondrian.index)
    return float((mc[common] < mondrian[common]).mean()) if len(common) else np.nan


def _mondrian_baselines(frame: pd.DataFrame):
    """Fig. 5's Mondrian and every ``mondrian_groups`` variant of the tidy ``frame``, as
    ``(name, size, rows)``: ``size`` is ``None`` for Fig. 5's own (and variants of the same group
    size or another ``l``, see :func:`mondrian_size`), ``rows`` the Mondrian's tidy rows."""
    d5 = frame[(frame["experiment"] == "fig5") & (frame["method"] == METHOD_MONDRIAN)]
    if d5.empty:
        return
    l5 = float(with_parameters(d5, ["l"])["l"].dropna().iloc[0])
    yield f"Mondrian(l={l5:g}) (Fig. 5)", None, d5
    sub = frame[frame["experiment"] == "mondrian_groups"]
    for name, block in sub.groupby("method", sort=False):
        sizes = block[block["metric"] == "mean_group_size"]
        if not len(sizes):
            yield name, None, block
            continue
        keys = ["l", "k", "refine"]
        variant = with_parameters(sizes.iloc[:1], keys)[keys].iloc[0].to_dict()
        yield name, mondrian_size(variant, l5), block


def mondrian_ordering(frame: pd.DataFrame) -> pd.DataFrame:
    """Per Mondrian, Fig. 5's first and then the variants of
    :func:`ppdp.experiments.mutual_cover.run.mondrian_group_sizes` by rising mean group size: the
    share of ``P_match`` values at which MutualCover's mean identity (``fig3``) and attribute
    (``fig4``) disclosure, over deltas and runs, is below the Mondrian's
    (the readings of ``mutual_cover.identity_below_mondrian_fraction`` and
    ``mutual_cover.attribute_below_mondrian_fraction``), and the Mondrian's largest gap between its
    mean attribute and identity disclosure over ``P_match`` (the paper finds them identical).
    ``mondrian_k`` is the size of the variant's ``.across`` rows (``"minimal"`` or ``k``; empty for
    Fig. 5's Mondrian and for variants that are not an other size of it)."""
    mc_id = _by_p_match(frame[frame["experiment"] == "fig3"], "identity_disclosure")
    mc_at = _by_p_match(frame[frame["experiment"] == "fig4"], "attribute_disclosure")
    out = []
    for name, size, rows in _mondrian_baselines(frame):
        mo_id = _by_p_match(rows, "identity_disclosure")
        mo_at = _by_p_match(rows, "attribute_disclosure")
        gap = (mo_at - mo_id).dropna()
        out.append(
            {
                "variant": name,
                "mondrian_k": "" if size is None else str(size),
                "mean group size": rows.loc[rows["metric"] == "mean_group_size", "value"].mean(),
                "identity: MutualCover below (share of P_match)": _below_share(mc_id, mo_id),
                "attribute: MutualCover below (share of P_match)": _below_share(mc_at, mo_at),
                "attribute - identity (largest)": float(gap.max()) if len(gap) else np.nan,
            }
        )
    # Fig. 5's Mondrian first, then the variants from the smallest groups up
    table = pd.DataFrame(out)
    if len(table) > 1:
        order = [0, *(table["mean group size"].iloc[1:].sort_values(kind="stable").index)]
        table = table.loc[order].reset_index(drop=True)
    return table


def delta_influence(frame: pd.DataFrame, spread: float = 0.25, alpha: float = 0.05) -> pd.DataFrame:
    """Readings of Fig. 7(a)'s "delta has little influence on the query error", each judged.

    From MutualCover's per-run query errors (experiment ``fig7``):

    * ``spread of means``: ``(max - min) / mean`` of the per-delta mean errors, at most ``spread``
      (the reading of ``mutual_cover.query_error_spread_over_delta``);
    * ``spread of medians``: the same with the per-delta median over runs, which one unlucky run
      cannot move;
    * ``within run noise``: a one-way ANOVA of the per-run errors on delta does not reject "no
      effect" at level ``alpha`` (delta moves the error by no more than runs do among themselves);
    * ``monotone trend``: the Spearman correlation of the per-delta means with delta (a value,
      not a verdict: the paper's figure shows no trend).

    Returns
    -------
    DataFrame
        Columns ``reading``, ``value``, ``criterion``, ``holds`` (NaN for the trend).
    """
    from scipy.stats import f_oneway

    sub = frame[(frame["experiment"] == "fig7") & (frame["method"] == METHOD_MC)]
    sub = with_parameters(sub[sub["metric"] == "relative_error"], ["delta"])
    by = sub.groupby(sub["delta"].astype(float))["value"]
    means, medians = by.mean(), by.median()
    groups = [g.to_numpy(float) for _, g in by]
    rows = []
    for name, series in (("spread of means", means), ("spread of medians", medians)):
        value = float((series.max() - series.min()) / series.mean())
        rows.append((name, value, f"<= {spread}", value <= spread))
    if all(len(g) > 1 for g in groups) and len(groups) > 1:
        p_value = float(f_oneway(*groups).pvalue)
        rows.append(("within run noise (ANOVA p)", p_value, f">= {alpha}", p_value >= alpha))
    rho = float(rank_correlation(means.index.to_numpy(), means.to_numpy()))
    rows.append(("monotone trend (Spearman, delta)", rho, "none", np.nan))
    return pd.DataFrame(rows, columns=["reading", "value", "criterion", "holds"])
