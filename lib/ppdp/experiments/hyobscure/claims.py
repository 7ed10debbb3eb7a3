"""The HyObscure experiments' claims and tables, derived from their tidy rows.

:func:`claims` computes the values the paper's claims are judged on, each with a bootstrap
interval over the seeds; :func:`across_table` tabulates Figs. 8/9's on every grid of bounds,
:func:`point_means` the means over seeds of every point, and :func:`decomposition` splits
HyObscure's privacy gain into re-generalization and obfuscation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ppdp.experiments.common import (
    concat_tidy,
    facet_columns,
    is_metric,
    parameter_columns,
    parameter_labels,
    rank_correlation,
    setting_ids,
    summarize,
    tidy_frame,
    tidy_rows,
    with_parameters,
)
from ppdp.experiments.hyobscure.run import CLAIMS_ATTACK
from ppdp.experiments.hyobscure.sweeps import ACROSS, CONSTRAINT_SWEEPS, grid_label

__all__ = [
    "across_table",
    "claims",
    "decomposition",
    "point_means",
]


#: Bootstrap resamples of the seeds behind every claim's 95% interval.
N_BOOTSTRAP = 2000
BASELINES = ("PrivCheck", "Random", "Frapp", "Similarity", "DP")


def _interp(x, y, x0):
    return float(_interp_at(x, y, x0))


def _interp_at(x, y, points):
    """``y`` at ``points`` on the curve (x, y), linear between its points sorted by ``x`` (ties
    keep their order). Points in an array are read from one sort, each as it would be alone."""
    x, y = np.asarray(x), np.asarray(y)
    order = x.argsort(kind="mergesort")
    return np.interp(points, x[order], y[order])


def _by_seed(frame, method, metric, seeds, key=None, **facets) -> tuple[np.ndarray, np.ndarray]:
    """Values of one method and metric (with its ``facets``) as an array (setting, seed) and the
    settings.

    Settings are the distinct combinations of parameter values (:func:`setting_ids`, numbered in
    their sorted order), or the integer values of the parameter ``key`` when it is given (several
    settings with one key are averaged, e.g. Fig. 8's k over alpha)."""
    sub = frame[(frame["method"] == method) & is_metric(frame, metric, **facets)]
    params = setting_ids(sub) if key is None else with_parameters(sub, [key])[key].astype(int)
    piv = sub.assign(setting=params.to_numpy()).pivot_table(
        index="setting", columns="seed", values="value", aggfunc="mean"
    )
    piv = piv.reindex(columns=seeds)
    if piv.isna().any().any():
        raise ValueError(f"{method}/{metric}: some seeds lack some settings; seeds {list(seeds)}")
    return piv.to_numpy(float), piv.index.to_numpy()


class _Bootstrap:
    """A statistic of per-seed results, with a percentile interval from resampling the seeds.

    Seeds are paired across methods (every method sees the same split and attacker), so margins
    between methods are resampled jointly, which is what makes their intervals narrow enough to
    order the methods. A statistic is a function of weights over the seeds (equal weights give the
    estimate); ``scipy.stats.bootstrap`` draws the resamples of seed indices, every claim the same
    ones, and a resample becomes the weights ``count / n``."""

    def __init__(self, seeds, n_boot: int = N_BOOTSTRAP, seed: int = 0):
        self.seeds = list(seeds)
        self.n_boot = n_boot
        self.seed = seed

    def rows(self, claim_id: str, method: str, stat, parameters=None) -> list[dict]:
        """A claim row: the estimate ``stat(w)`` at equal weights with its interval in ``ci_low``
        and ``ci_high`` (missing when it has none), and ``parameters`` (e.g. the setting of a
        claim's ``.across`` rows)."""
        from scipy import stats

        n = len(self.seeds)
        metrics = {claim_id: float(stat(np.full(n, 1.0 / n)))}
        intervals = {}
        if n > 1:
            result = stats.bootstrap(
                (np.arange(n),),
                lambda idx: stat(np.bincount(idx, minlength=n) / n),
                n_resamples=self.n_boot,
                vectorized=False,
                method="percentile",
                confidence_level=0.95,
                rng=np.random.default_rng(np.random.SeedSequence([self.seed, 707])),
            )
            boot = np.asarray(result.bootstrap_distribution, dtype=float)
            if np.isfinite(boot).all():
                lo, hi = result.confidence_interval
            elif np.isfinite(boot).any():
                # a statistic undefined on some resamples (a ratio over a zero): skip those
                lo, hi = np.percentile(boot[np.isfinite(boot)], [2.5, 97.5])
            else:
                lo = hi = np.nan
            if np.isfinite(lo):
                intervals[claim_id] = (float(lo), float(hi))
        return tidy_rows("claims", method, metrics, parameters=parameters, intervals=intervals)


def _tradeoff_curves(trade, attack, seeds):
    """Per method: (utility loss, privacy, % utility change, % privacy change), each (knob, seed);
    the privacy of ``attack`` (its facets, e.g.
    :data:`~ppdp.experiments.hyobscure.run.CLAIMS_ATTACK`)."""
    u0, _ = _by_seed(trade, "Original", "utility_loss", seeds)
    p0, _ = _by_seed(trade, "Original", "privacy", seeds, **attack)
    out = {}
    for method in sorted(set(trade["method"]) - {"Original"}):
        u, _ = _by_seed(trade, method, "utility_loss", seeds)
        p, _ = _by_seed(trade, method, "privacy", seeds, **attack)
        out[method] = (u, p, 100 * (u - u0) / u0, 100 * (p - p0) / p0)
    return out, u0[0]  # the reference's utility loss per seed


def _bound_rank_rows(boot, claim_id, frame, key, attack, seeds, parameters=None) -> list[dict]:
    """Figs. 8/9's claim on one grid: Spearman's correlation of HyObscure's protection (the
    privacy of ``attack``, mean over the upper bound and the seeds) with the lower bound ``key``;
    no rows when a point of the grid is infeasible or the frame holds no protection."""
    if frame is None or not len(frame) or "infeasible" in set(frame["metric"]):
        return []
    if not len(frame[is_metric(frame, "privacy", **attack) & (frame["method"] == "HyObscure")]):
        return []
    # averaged over the upper bound and the seeds: the effect of the lower bound alone
    v, keys = _by_seed(frame, "HyObscure", "privacy", seeds, key=key, **attack)
    return boot.rows(
        claim_id,
        "HyObscure",
        lambda w: rank_correlation(keys, v @ w),
        parameters=parameters,
    )


def _authors_fig3a_rows(boot, curves, anchored, gains_at) -> list[dict]:
    """Fig. 3a's claims at the other reading of the authors' protocol, as ``.across`` rows.

    * ``fig3a_mae_gain.across`` at ``reference=final_groups``: HyObscure's MAE gain at 0.2% RMSE
      loss against their code's reference point, the unobscured features under HyObscure's final
      groups (``GenOnly``, which nobody obfuscated: the curve runs through (0, 0) there). The
      claim itself reads the gain against the starting bands, the one reference point the
      paper's figure draws.
    * ``fig3a_generalization_share.across`` at ``order=obfuscation_first``: the share of the gain
      left to re-generalization once obfuscation alone (``ObfOnly``, XObf at the same knob and
      pp) is credited first, both read at HyObscure's utility change. The claim itself credits
      re-generalization first (``GenOnly``).
    * ``claim_context`` rows: the utility change of the authors' lowest-loss point and the gains
      there under both references, to show how much the reading at 0.2% rests on the
      interpolation from the reference point.
    """
    rows: list[dict] = []
    if "GenOnly" in curves:
        (hy_u, hy_p), (gen_u, gen_p) = curves["HyObscure"][:2], curves["GenOnly"][:2]
        du_final = 100 * (hy_u - gen_u) / gen_u
        dp_final = 100 * (hy_p - gen_p) / gen_p

        def final_gain(w):
            du, dp = anchored(du_final @ w, dp_final @ w)
            return _interp(du, dp, 0.2)

        rows += boot.rows(
            "hyobscure.fig3a_mae_gain" + ACROSS,
            "HyObscure",
            final_gain,
            parameters={"reference": "final_groups"},
        )
        lowest = int(np.argmin(curves["HyObscure"][2].mean(axis=1)))
        context = {
            "hyobscure.fig3a_lowest_point_utility_change": curves["HyObscure"][2][lowest].mean(),
            "hyobscure.fig3a_lowest_point_mae_gain": curves["HyObscure"][3][lowest].mean(),
            "hyobscure.fig3a_lowest_point_mae_gain_final_reference": dp_final[lowest].mean(),
        }
        rows += tidy_rows("claim_context", "HyObscure", {k: float(v) for k, v in context.items()})
    if "ObfOnly" in curves:

        def regroup_after_share(w):
            total, alone = gains_at("ObfOnly", w)
            return 100 * (total - alone) / total if total > 0 else float("nan")

        rows += boot.rows(
            "hyobscure.fig3a_generalization_share" + ACROSS,
            "HyObscure",
            regroup_after_share,
            parameters={"order": "obfuscation_first"},
        )
    return rows


def claims(results: pd.DataFrame, dataset: str, protocol: str = "paper") -> pd.DataFrame:
    """Claims rows (``experiment == "claims"``) from the tidy rows of this notebook's experiments.

    Claim ids are ``hyobscure.<dataset>_<claim>`` under the paper's protocol and
    ``hyobscure.<dataset>_authors_<claim>`` under the authors'.

    ``results`` holds the rows of ``tradeoff``, ``fig6``, ``fig8``, ``fig9``, ``fig10`` and
    ``fig11`` as written to the results CSV (other rows, claims included, are ignored), so the
    claims can be recomputed from a written run.

    The paper states no grid of bounds behind Figs. 8 and 9, so their rank correlations are also
    computed on every other grid of
    :func:`~ppdp.experiments.hyobscure.sweeps.constraint_across` (rows ``fig8_across`` /
    ``fig9_across``): rows of metric ``<id>.across`` with the grid as the parameter ``grid`` (e.g.
    ``k 20/40/60/80 alpha 150/200``), by the same statistic and the same bootstrap resamples of the
    same seeds as the profile's grid.

    Privacy is the random forest's in Scenario I
    (:data:`~ppdp.experiments.hyobscure.run.CLAIMS_ATTACK`), as in the paper's
    figures. Every statistic is computed on the means over seeds (the curves of the figures) and
    comes with a 95% percentile interval from ``N_BOOTSTRAP`` resamples of the seeds (the columns
    ``ci_low`` and ``ci_high`` of its row). Orderings are reported as margins (HyObscure minus its
    best competitor), so that "the ordering is stable" reads as "the margin's interval excludes
    zero".
    """
    results = {name: frame for name, frame in results.groupby("experiment", sort=False)}
    rows = []
    attack = CLAIMS_ATTACK
    trade = results.get("tradeoff")
    # every experiment of a notebook runs the same seeds; bootstrap them together
    frames = [
        results.get(k) for k in ("tradeoff", "fig6", "fig8", "fig9", "fig8_across", "fig9_across")
    ]
    seeds = sorted({int(s) for f in frames if f is not None and len(f) for s in f["seed"]})
    boot = _Bootstrap(seeds)
    if trade is not None and len(trade):
        curves, u0 = _tradeoff_curves(trade, attack, seeds)
        base = [m for m in BASELINES if m in curves]
        if dataset == "movielens":
            # Fig. 3a: privacy gain at about 0.2% utility loss, curves through the reference
            # (0, 0) unless a point of their own costs no utility at all (a pp = 1 point, nobody
            # obfuscated, which the authors' lists do not hold)
            def anchored(du, *ys):
                if (du == 0).any():
                    return (du, *ys)
                return tuple(np.concatenate(([0.0], v)) for v in (du, *ys))

            def gain(m, w):
                du, dp = anchored(curves[m][2] @ w, curves[m][3] @ w)
                return _interp(du, dp, 0.2)

            rows += boot.rows(
                "hyobscure.fig3a_mae_gain", "HyObscure", lambda w: gain("HyObscure", w)
            )
            rows += boot.rows(
                "hyobscure.fig3a_baseline_mae_gain",
                "",
                lambda w: max(gain(m, w) for m in base),
            )
            rows += boot.rows(
                "hyobscure.fig3a_margin",
                "HyObscure",
                lambda w: gain("HyObscure", w) - max(gain(m, w) for m in base),
            )

            def gains_at(part, w):
                """HyObscure's gain and ``part``'s (GenOnly, ObfOnly), both read at 0.2% of
                HyObscure's utility change."""
                du, dp, dq = anchored(
                    curves["HyObscure"][2] @ w, curves["HyObscure"][3] @ w, curves[part][3] @ w
                )
                return _interp(du, dp, 0.2), _interp(du, dq, 0.2)

            if "GenOnly" in curves:

                def gen_share(w):
                    total, alone = gains_at("GenOnly", w)
                    return 100 * alone / total if total > 0 else float("nan")

                rows += boot.rows("hyobscure.fig3a_generalization_share", "HyObscure", gen_share)
            if protocol == "authors":
                rows += _authors_fig3a_rows(boot, curves, anchored, gains_at)
        else:
            # Fig. 4a: utility loss above the reference at equal privacy, HyObscure vs best baseline
            hy_priv = curves["HyObscure"][1].mean(axis=1)
            target = 0.817
            if not hy_priv.min() <= target <= hy_priv.max():
                target = float(np.median(hy_priv))

            def uloss(m, w):
                return _interp(curves[m][1] @ w, curves[m][0] @ w, target) - u0 @ w

            def saving(w):
                hy_l, base_l = uloss("HyObscure", w), min(uloss(m, w) for m in base)
                return 100 * (1 - hy_l / base_l) if base_l > 0 else float("nan")

            rows += boot.rows("hyobscure.fig4a_utility_saving", "HyObscure", saving)
            if "GenOnly" in curves:
                # both gains read where HyObscure's privacy reaches the target
                def gen_share(w):
                    hp = curves["HyObscure"][1] @ w
                    total = _interp(hp, curves["HyObscure"][3] @ w, target)
                    alone = _interp(hp, curves["GenOnly"][3] @ w, target)
                    return 100 * alone / total if total > 0 else float("nan")

                rows += boot.rows("hyobscure.fig4a_generalization_share", "HyObscure", gen_share)
            # the privacy level at which the saving is read: context, not a claim of the paper
            rows += tidy_rows(
                "claim_context", "HyObscure", {"hyobscure.fig4a_privacy_level": target}
            )
        # Fig. 5: HyObscure above XObf and YGen at equal utility (mean over a common utility range)
        if {"HyObscure", "XObf", "YGen"} <= set(curves):

            def variant_margin(w):
                cur = {
                    m: (curves[m][0] @ w, curves[m][1] @ w) for m in ("HyObscure", "XObf", "YGen")
                }
                lo = max(u.min() for u, _ in cur.values())
                hi = min(u.max() for u, _ in cur.values())
                grid = np.linspace(lo, hi, 11) if hi > lo else np.array([lo])
                area = {m: np.mean(_interp_at(u, p, grid)) for m, (u, p) in cur.items()}
                return area["HyObscure"] - max(area["XObf"], area["YGen"])

            rows += boot.rows("hyobscure.fig5_margin", "HyObscure", variant_margin)
    f6 = results.get("fig6")
    if f6 is not None and len(f6) and "infeasible" not in set(f6["metric"]):
        methods = sorted(set(f6["method"]) - {"Original"})
        vals = {m: _by_seed(f6, m, "privacy", seeds, key="n_groups", **attack) for m in methods}
        if "HyObscure" in vals:
            groups = vals["HyObscure"][1]
            rows += boot.rows(
                "hyobscure.fig6_rank_correlation",
                "HyObscure",
                lambda w: rank_correlation(groups, vals["HyObscure"][0] @ w),
            )
            others = [m for m in methods if m != "HyObscure"]
            if others:

                def min_margin(w):
                    h = vals["HyObscure"][0] @ w
                    best = np.max([vals[m][0] @ w for m in others], axis=0)
                    return float(np.min(h - best))

                rows += boot.rows("hyobscure.fig6_min_margin", "HyObscure", min_margin)
    for name, key, _ in CONSTRAINT_SWEEPS.values():
        claim_id = f"hyobscure.{name}_rank_correlation"
        rows += _bound_rank_rows(boot, claim_id, results.get(name), key, attack, seeds)
        # the same claim on the other grids (the paper states none): "<id>.across" rows
        across = results.get(f"{name}_across")
        if across is None or not len(across):
            continue
        labels = with_parameters(across, ["grid"])["grid"].to_numpy()
        for label, block in across.groupby(labels, sort=True):
            rows += _bound_rank_rows(
                boot, claim_id + ACROSS, block, key, attack, seeds, parameters={"grid": label}
            )
    f10 = results.get("fig10")
    if f10 is not None and len(f10):
        sub = f10[f10["metric"] == "seconds_total"]
        n = sub["n_users"].to_numpy(float)
        if len(np.unique(n)) >= 2:
            slope = float(np.polyfit(np.log(n), np.log(sub["value"].to_numpy()), 1)[0])
            rows += tidy_rows("claims", "HyObscure", {"hyobscure.fig10_growth_exponent": slope})
    f11 = results.get("fig11")
    if f11 is not None and len(f11):
        sub = f11[f11["metric"] == "leakage"]
        vals11 = sub.sort_values("step")["value"].to_numpy()
        rows += tidy_rows(
            "claims",
            "HyObscure",
            {"hyobscure.fig11_monotone": float(np.all(np.diff(vals11) <= 1e-6))},
        )
    if protocol == "authors" and trade is not None and "table2_met" in set(trade["metric"]):
        met = trade[(trade["method"] == "HyObscure") & (trade["metric"] == "table2_met")]
        # the share of HyObscure's fits (seeds x budgets) whose final groups meet Table II
        fits = met.drop_duplicates(["seed", *parameter_columns(met)])
        rows += tidy_rows(
            "claims", "HyObscure", {"hyobscure.table2_met_share": float(fits["value"].mean())}
        )
    prefix = f"hyobscure.{dataset}_" + ("authors_" if protocol == "authors" else "")
    for r in rows:
        r["metric"] = r["metric"].replace("hyobscure.", prefix, 1)
    return concat_tidy([tidy_frame(rows)])


def across_table(claim_rows: pd.DataFrame, k_alpha_list=None, l_beta_list=None) -> pd.DataFrame:
    """Figs. 8/9's rank correlations on every grid, from :func:`claims` rows: index (claim,
    grid), columns ``ci_high``, ``ci_low`` and ``value``. The profile's own grid (the plain claim
    rows) is named from ``k_alpha_list`` / ``l_beta_list`` when given, and marked ``(profile)``."""
    sel = claim_rows[claim_rows["metric"].str.contains(r"_fig[89]_rank_correlation", regex=True)]
    sel = with_parameters(sel, ["grid"])
    profile = {"fig8": k_alpha_list, "fig9": l_beta_list}
    grids = []
    for label, name in zip(sel["grid"], sel["metric"], strict=True):
        fig = "fig8" if "_fig8_" in name else "fig9"
        _, low, high = CONSTRAINT_SWEEPS["k_alpha" if fig == "fig8" else "l_beta"]
        if name.endswith(ACROSS):
            grids.append(label)
        else:
            pairs = profile[fig]
            grids.append(
                ("" if pairs is None else grid_label(pairs, low, high) + " ") + "(profile)"
            )
    table = sel.assign(claim=sel["metric"].str.removesuffix(ACROSS), grid=grids)
    table = table.groupby(["claim", "grid"], sort=True)[["ci_high", "ci_low", "value"]].mean()
    table.columns.name = "bound"
    return table


def point_means(frame: pd.DataFrame, index=("method",)) -> pd.DataFrame:
    """Means over seeds as a table for reading: a row per ``index`` and point (the parameters as
    text, :func:`parameter_labels`), a column per metric, or per metric and facets when the rows
    have facets (column levels ``metric`` and e.g. ``model``, ``scenario``; "" where a metric has
    none).

    Examples
    --------
    >>> rows = tidy_frame(
    ...     tidy_rows("tradeoff", "Original", {"utility_loss": 1.0}, seed=0)
    ...     + tidy_rows("tradeoff", "DP", {"utility_loss": 2.0}, parameters={"beta": 3.0}, seed=0)
    ...     + tidy_rows("tradeoff", "DP", {"utility_loss": 4.0}, parameters={"beta": 3.0}, seed=1)
    ... )
    >>> point_means(rows)["utility_loss"].to_dict()
    {('DP', 'beta = 3'): 3.0, ('Original', ''): 1.0}
    >>> attack = {"model": "rf", "scenario": "sI"}
    >>> rows = concat_tidy(
    ...     [rows, tidy_frame(tidy_rows("tradeoff", "Original", {"privacy": 2.0}, facets=attack))]
    ... )
    >>> point_means(rows).columns.tolist()
    [('privacy', 'rf', 'sI'), ('utility_loss', '', '')]
    """
    summ = summarize(frame)
    summ["point"] = parameter_labels(summ, parameter_columns(frame))
    facets = facet_columns(frame)
    # a metric without a facet is "" there: a missing column key would drop its rows
    summ[facets] = summ[facets].fillna("")
    return summ.pivot_table(index=[*index, "point"], columns=["metric", *facets], values="mean")


def _mean_ci(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and interval over seeds per method, ``setting`` (:func:`setting_ids`), metric and
    facets."""
    by = ("method", "setting", "metric", *facet_columns(frame))
    return summarize(frame.assign(setting=setting_ids(frame)), by=by)


def decomposition(
    frame: pd.DataFrame,
    model: str = CLAIMS_ATTACK["model"],
    scenario: str = CLAIMS_ATTACK["scenario"],
) -> pd.DataFrame:
    """Split every HyObscure point's privacy gain into re-generalization and obfuscation.

    From the tidy rows of :func:`~ppdp.experiments.hyobscure.run.tradeoff` run with
    ``decompose=True``, per seed and point
    (``*_pct`` columns: % of the reference's privacy, that of the attack ``model`` in
    ``scenario``):

    * ``total``: HyObscure's privacy minus the reference's (``Original``, the starting groups);
    * regrouping first: ``generalization``, the same for ``GenOnly`` (the unobscured features
      under HyObscure's final groups), and ``obfuscation`` the rest;
    * obfuscation first: ``obfuscation_alone``, the same for ``ObfOnly`` (XObf at the same knob
      and pp: the obfuscation on the starting groups), and ``regrouping_after`` the rest;
    * ``final_reference_pct``: HyObscure's gain against ``GenOnly``, the reference point of the
      authors' code (their "ori" scores the unobscured features under each method's final
      groups); it equals ``obfuscation`` in % of ``GenOnly``'s privacy.

    The attribution depends on the order; both orders add up to the total.

    Returns
    -------
    DataFrame
        One row per (seed, point): ``seed``, the parameters of HyObscure's points as columns (typed
        as in ``frame``), ``point`` (those parameters as text, :func:`parameter_labels`: one label
        per point, for tables and figures), the columns above, ``utility_change_pct`` and
        ``table2_met`` (whether the final groups meet Table II); the obfuscation-first columns are
        NaN when the rows hold no ``ObfOnly``.
    """
    metric = "privacy"
    attack = is_metric(frame, metric, model=model, scenario=scenario)
    sub = frame[attack | frame["metric"].isin(["utility_loss", "table2_met"])]
    # one id per point, shared by HyObscure's rows and its GenOnly and ObfOnly rows
    sub = sub.assign(setting=setting_ids(sub))
    ref = sub[(sub["method"] == "Original")].pivot_table(
        index="seed", columns="metric", values="value"
    )

    def by_point(method):
        rows = sub[sub["method"] == method]
        if not len(rows):
            return None
        return rows.pivot_table(index=["seed", "setting"], columns="metric", values="value")

    hy_p, al_p, ob_p = by_point("HyObscure"), by_point("GenOnly"), by_point("ObfOnly")
    if al_p is None:
        raise ValueError("no GenOnly rows: run tradeoff(..., decompose=True)")
    joined = hy_p.merge(
        al_p, left_index=True, right_index=True, how="inner", suffixes=("", "_genonly")
    )
    out = []
    for (seed, setting), row in joined.iterrows():
        p0, u0 = ref.loc[seed, metric], ref.loc[seed, "utility_loss"]
        total = row[metric] - p0
        gen = row[f"{metric}_genonly"] - p0
        first = np.nan
        if ob_p is not None and (seed, setting) in ob_p.index:
            first = ob_p.loc[(seed, setting), metric] - p0
        out.append(
            {
                "seed": seed,
                "setting": setting,
                "total": total,
                "generalization": gen,
                "obfuscation": total - gen,
                "obfuscation_alone": first,
                "regrouping_after": total - first,
                "total_pct": 100 * total / p0,
                "generalization_pct": 100 * gen / p0,
                "obfuscation_pct": 100 * (total - gen) / p0,
                "obfuscation_alone_pct": 100 * first / p0,
                "regrouping_after_pct": 100 * (total - first) / p0,
                "final_reference_pct": 100 * (total - gen) / row[f"{metric}_genonly"],
                "utility_change_pct": 100 * (row["utility_loss"] - u0) / u0,
                "table2_met": row.get("table2_met", np.nan),
            }
        )
    return _with_points(pd.DataFrame(out), sub[sub["method"] == "HyObscure"])


def _with_points(values: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """:func:`decomposition`'s rows with the parameters of their ``setting`` in its place: the
    columns HyObscure's rows (``points``) give, typed as there, and ``point``, their label."""
    keys = [c for c in parameter_columns(points) if c != "setting" and points[c].notna().any()]
    if values.empty:
        return pd.DataFrame(columns=["seed", *keys, "point"])
    by_setting = points.drop_duplicates("setting").set_index("setting")[keys]
    params = by_setting.loc[values["setting"]].reset_index(drop=True)
    params["point"] = parameter_labels(params, keys)
    rest = values.drop(columns=["seed", "setting"])
    return pd.concat([values[["seed"]], params, rest], axis=1)
