"""The IMPOSTER experiment's tables and claims, derived from the tidy rows of its runs.

The notebook's tables are built from the tidy rows: :func:`score_table` (over
:func:`wide_scores`), :func:`detection_scores`, :func:`detection_theta`, :func:`nmi_matrix` and
:func:`selected_counts`; :func:`claims` gives the values the paper's claims are judged on (with
intervals over seeds, and ``.across`` rows at the other ``lambda`` of Table 1, laid out by
:func:`across_table`). They read the parameters from their columns
(:func:`ppdp.experiments.common.with_parameters`), the attribute a Fig. 6 score is of from the
facet column ``attribute``, and the paper's numbers with :func:`ppdp.compendium.published.published_value`
(``claims.yaml``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp.classifiers import CLASSIFIERS
from ppdp.compendium.published import published_value
from ppdp.experiments.common import (
    DERIVED_EXPERIMENTS,
    mean_halfwidth,
    tidy_frame,
    tidy_rows,
    with_parameters,
)
from ppdp.experiments.imposter.run import LABEL, PRIVATE

__all__ = [
    "ACROSS_CLAIMS",
    "N_BOOTSTRAP",
    "SCORE_INDEX",
    "SCORE_KEYS",
    "across_table",
    "claims",
    "detection_scores",
    "detection_theta",
    "krr_matched_income",
    "nmi_matrix",
    "score_table",
    "selected_counts",
    "wide_scores",
]


# ------------------------------------------------------------------------------------------------
# Tables: tidy rows back to the paper's layout

#: Parameters the figures, tables and claims read from a tidy frame; the grid values among them
#: (``theta``, ``lambda``, ``epsilon``) are always floats, whatever their written form.
SCORE_KEYS = ("setting", "target", "theta", "lambda", "epsilon", "classifier")
_GRID_KEYS = ("theta", "lambda", "epsilon")

#: The row index of each experiment's score table (:func:`score_table`).
SCORE_INDEX: dict[str, tuple[str, ...]] = {
    "table1": ("setting", "classifier"),
    "fig7": ("setting", "epsilon"),
    "table2": ("theta", "setting"),
    "fig8": ("lambda",),
}


def _expand(frame: pd.DataFrame, keys: Sequence[str] = SCORE_KEYS) -> pd.DataFrame:
    """``frame`` with a column per parameter of ``keys`` (missing where a row lacks it); grid
    parameters as float64."""
    out = with_parameters(frame, keys).copy()
    for key in _GRID_KEYS:
        if key in out.columns:
            out[key] = out[key].astype("float64")
    return out


def _rows(frame: pd.DataFrame, experiment: str) -> pd.DataFrame:
    return frame[frame["experiment"] == experiment]


def wide_scores(
    frame: pd.DataFrame,
    index: Sequence[str],
    columns: Sequence[str] = ("target", "metric"),
    scale: float = 100.0,
    stat: str = "mean",
) -> pd.DataFrame:
    """Mean over seeds of a tidy score frame, pivoted for display.

    Parameters
    ----------
    frame : DataFrame
        Tidy score rows (:func:`ppdp.experiments.imposter.run.run_table1`,
        :func:`ppdp.experiments.imposter.run.run_fig7`,
        :func:`ppdp.experiments.imposter.run.run_table2`,
        :func:`ppdp.experiments.imposter.run.run_fig8`).
    index, columns : sequence of str
        Row and column keys, each a tidy column or one of :data:`SCORE_KEYS`; ``classifier`` is the
        ``classifier`` parameter where a row has one, else the row's method. Rows lacking a key are
        left out.
    scale : float
        Factor applied to the values (100 gives percent).
    stat : {"mean", "ci"}
        ``"mean"``: the mean over seeds; ``"ci"``: the half-width of the normal-approximation 95%
        interval of that mean (0 with a single seed).

    Returns
    -------
    DataFrame
        One row per combination of ``index`` (sorted; ``theta``, ``lambda`` and ``epsilon`` as
        floats), one column per combination of ``columns``.
    """
    if stat not in ("mean", "ci"):
        raise ValueError(f"stat must be 'mean' or 'ci', got {stat!r}")
    parsed = _expand(frame)
    named = parsed["classifier"].notna()
    parsed["classifier"] = parsed["classifier"].astype(object).where(named, parsed["method"])
    grouped = parsed.groupby([*index, *columns], sort=True)["value"]
    if stat == "mean":
        values = grouped.mean()
    else:
        std = grouped.std(ddof=1)
        values = pd.Series(mean_halfwidth(std, grouped.count()), index=std.index)
    return values.mul(scale).unstack(list(columns))


def score_table(frame: pd.DataFrame, experiment: str, stat: str = "mean") -> pd.DataFrame:
    """Accuracy and F1 (percent) of one experiment, laid out like the paper's table or figure.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding the experiment's rows (other experiments are ignored).
    experiment : {"table1", "fig7", "table2", "fig8"}
        Rows are indexed by :data:`SCORE_INDEX` of the experiment: (setting, classifier) for
        Table 1, (setting, epsilon) for Fig. 7, (theta, setting) for Table 2, lambda for Fig. 8.
        Columns are (target, metric).
    stat : {"mean", "ci"}
        See :func:`wide_scores`.
    """
    if experiment not in SCORE_INDEX:
        raise ValueError(f"experiment must be one of {list(SCORE_INDEX)}, got {experiment!r}")
    rows = _rows(frame, experiment)
    rows = rows[rows["metric"] != "n_attributes"]
    return wide_scores(rows, index=list(SCORE_INDEX[experiment]), stat=stat)


def selected_counts(frame: pd.DataFrame) -> pd.Series:
    """Number of implicit-privacy attributes selected at each ``theta`` of Table 2.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`ppdp.experiments.imposter.run.run_table2`'s rows (other experiments
        are ignored).

    Returns
    -------
    Series
        int counts indexed by ``theta`` (float, sorted); the first seed's count (detection does not
        depend on the seed).
    """
    rows = _rows(frame, "table2")
    rows = _expand(rows[rows["metric"] == "n_attributes"], ["theta"])
    return rows.groupby("theta")["value"].first().astype(int)


def detection_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6(b) as a table: each attribute's correlation with ``sex`` and the detection outcome.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`ppdp.experiments.imposter.run.run_fig6`'s rows (other experiments
        are ignored).

    Returns
    -------
    DataFrame
        Indexed by attribute, sorted by decreasing NMI, with the columns ``nmi``, ``eq7_printed``,
        ``pearson`` (the methods of :func:`ppdp.experiments.imposter.run.run_fig6`) and ``selected``
        (bool, Algorithm 1 at the run's ``theta``).
    """
    rows = _rows(frame, "fig6")
    if "attribute" not in rows.columns:  # no scored attribute among the rows
        rows = rows.assign(attribute=pd.Series(np.nan, index=rows.index, dtype=object))
    scores = rows[rows["method"].isin(["nmi", "eq7_printed", "pearson"])].pivot(
        index="attribute", columns="method", values="value"
    )
    detection = rows[(rows["method"] == "detection") & (rows["metric"] == "selected")]
    selected = detection.set_index("attribute")["value"].astype(bool)
    scores = scores.assign(selected=selected)
    # attributes that determine each other (education and education_num) have equal NMI up to the
    # summation order of their tables: rank on 12 digits, ties by name, so the order is stable
    rank = pd.DataFrame({"nmi": -scores["nmi"].round(12), "name": scores.index.astype(str)})
    return scores.iloc[np.lexsort((rank["name"].to_numpy(), rank["nmi"].to_numpy()))]


def detection_theta(frame: pd.DataFrame) -> float:
    """The threshold ``theta`` at which :func:`ppdp.experiments.imposter.run.run_fig6` ran the
    detection."""
    rows = _rows(frame, "fig6")
    thetas = _expand(rows[rows["method"] == "detection"], ["theta"])["theta"].dropna().unique()
    if len(thetas) != 1:
        raise ValueError(f"expected the fig6 rows of one theta, found {sorted(thetas)}")
    return float(thetas[0])


def nmi_matrix(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Fig. 6(a): the symmetric matrix of pairwise NMI from
    :func:`ppdp.experiments.imposter.run.run_fig6`'s ``nmi_pairwise`` rows.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`ppdp.experiments.imposter.run.run_fig6`'s rows (other experiments
        are ignored).
    columns : sequence of str, optional
        Order of the attributes (e.g. the table's column order); by default sorted by name.
        Pairs not in ``frame`` are NaN.
    """
    rows = _rows(frame, "fig6")
    pairs = _expand(rows[rows["method"] == "nmi_pairwise"], ["a", "b"])
    names = sorted(set(pairs["a"]) | set(pairs["b"])) if columns is None else list(columns)
    matrix = pd.DataFrame(np.nan, index=names, columns=names)
    for a, b, value in zip(pairs["a"], pairs["b"], pairs["value"], strict=True):
        if a in matrix.index and b in matrix.index:
            matrix.loc[a, b] = matrix.loc[b, a] = value
    return matrix


# ------------------------------------------------------------------------------------------------
# Claims


def _mean(frame: pd.DataFrame, **where: Any) -> float:
    """Mean of ``value`` over the rows whose columns equal ``where`` (NaN when none does)."""
    sel = frame
    for key, value in where.items():
        sel = sel[sel[key] == value]
    if sel.empty:
        return float("nan")
    return float(sel["value"].mean())


def krr_matched_income(fig7: pd.DataFrame, gender_accuracy: float) -> tuple[float, float]:
    """k-RR's income accuracy where its gender accuracy first reaches a given level.

    Parameters
    ----------
    fig7 : DataFrame
        Tidy rows of :func:`ppdp.experiments.imposter.run.run_fig7` (rows of other experiments are
        ignored).
    gender_accuracy : float
        The level, as a fraction (the claims use the paper's k-RR gender accuracy,
        ``published_value("imposter.krr_gender_accuracy") / 100``).

    Returns
    -------
    tuple of float
        The smallest epsilon whose gender accuracy (Setting B, mean over seeds) reaches
        ``gender_accuracy``, and the income accuracy (fraction) there; NaN, NaN if none does.
    """
    rows = _expand(_rows(fig7, "fig7"))
    sub = rows[(rows["metric"] == "accuracy") & (rows["setting"] == "B")]
    table = sub.groupby(["epsilon", "target"])["value"].mean().unstack()
    if PRIVATE not in table.columns or LABEL not in table.columns:
        return float("nan"), float("nan")
    reached = table[table[PRIVATE] >= gender_accuracy]
    if reached.empty:
        return float("nan"), float("nan")
    eps = float(reached.index.min())
    return eps, float(table.loc[eps, LABEL])


#: resamples of the seeds behind every claim's interval
N_BOOTSTRAP = 1000

#: The claims on Table 1's Setting B that are judged again at every other ``lambda`` of
#: :func:`ppdp.experiments.imposter.run.run_table1_across` (``<id>.across`` rows): the paper does
#: not state Table 1's lambda.
ACROSS_CLAIMS = ("imposter.gender_accuracy_b", "imposter.min_income_accuracy_b")


def claims(results: pd.DataFrame, n_boot: int = N_BOOTSTRAP) -> pd.DataFrame:
    """The values the paper's claims are judged on, as tidy rows (``experiment == "claims"``).

    Parameters
    ----------
    results : DataFrame
        The tidy rows of the notebook's experiments, as written to its results CSV; the
        ``experiment`` column tells ``table1``, ``fig7``, ``fig8`` and ``table2`` apart, other
        experiments and earlier claims rows are ignored. Without ``fig8`` (``table2``) rows the
        claims on them are left out.

    Returns
    -------
    DataFrame
        One row per claim, ``metric`` the claim id (``imposter.<name>`` in ``claims.yaml``),
        ``method`` ``"kRR"`` for the k-RR operating point and ``"IMPOSTER"`` otherwise; scores in
        percent, orderings as 1/0 (NaN when the rows needed are missing):

        - ``gender_accuracy_b``, ``income_accuracy_b``: GBDT, Setting B (Table 1);
        - ``min_income_accuracy_b``: the lowest income accuracy on Setting B over the classifiers;
        - ``gender_drop_every_classifier``: every classifier predicts sex less accurately on
          Setting B than on Setting A;
        - ``krr_income_at_gender_6891``: k-RR's income accuracy at the smallest epsilon whose gender
          accuracy reaches the paper's k-RR gender accuracy (``imposter.krr_gender_accuracy`` in
          the ``published:`` section of ``claims.yaml``; :func:`krr_matched_income`);
        - ``beats_krr_at_matched_gender``: IMPOSTER's income accuracy exceeds k-RR's at IMPOSTER's
          gender accuracy;
        - ``lambda1_below_lambda0``: Fig. 8, sex accuracy at lambda 1 below that at lambda 0;
        - ``table2_gender_accuracy_b_max``, ``table2_gender_f1_b_max``: Table 2, the largest sex
          accuracy and F1 on Setting B over theta.

        With several seeds, every claim also gets a 95% percentile interval (its row's ``ci_low``
        and ``ci_high``; missing otherwise) from ``n_boot`` resamples of the seeds: a seed redraws
        the split, the generator's training and the k-RR draws, so the interval covers all of them.
        A resample recomputes the claim from the rows of the drawn seeds, a seed drawn twice
        counting twice.

        The claims of :data:`ACROSS_CLAIMS` are computed the same way (value and interval) from the
        ``table1_across`` rows of every other ``lambda``
        (:func:`ppdp.experiments.imposter.run.run_table1_across`; the paper states no lambda for
        Table 1), as ``<id>.across`` rows with the parameter ``lambda``.
    """
    frame = results[~results["experiment"].isin(DERIVED_EXPERIMENTS)]
    values = _claim_values(frame)
    intervals = _seed_intervals(frame, values, n_boot)
    rows = []
    for metric, value in values.items():
        method = "kRR" if "krr_income" in metric else "IMPOSTER"
        bounds = {metric: intervals[metric]} if metric in intervals else None
        rows += tidy_rows("claims", method, {metric: value}, intervals=bounds)
    # the Table 1 claims at the other lambdas (unstated): "<id>.across" rows, one set per lambda
    across = _expand(_rows(frame, "table1_across"), ["lambda"])
    for lam, block in across.groupby("lambda", sort=True):
        at = block.assign(experiment="table1")
        point = {c: v for c, v in _claim_values(at).items() if c in ACROSS_CLAIMS}
        bounds = _seed_intervals(at, point, n_boot)
        for claim, value in point.items():
            rows += tidy_rows(
                "claims",
                "IMPOSTER",
                {f"{claim}.across": value},
                parameters={"lambda": float(lam)},
                intervals={f"{claim}.across": bounds[claim]} if claim in bounds else None,
            )
    return tidy_frame(rows)


def across_table(claims_rows: pd.DataFrame, base_lam: float) -> pd.DataFrame:
    """The claims of :data:`ACROSS_CLAIMS` at every lambda: index ``lambda`` (float, sorted; the
    profile's ``base_lam`` for the plain rows), a column per claim (without the ``imposter.``
    prefix) and, where the rows give an interval, per bound (``<claim>.ci_low``,
    ``<claim>.ci_high``), from :func:`claims` rows."""
    rows = _expand(_rows(claims_rows, "claims"), ["lambda"])
    claim = rows["metric"].str.replace(".across", "", regex=False)
    rows = rows[claim.isin(ACROSS_CLAIMS)]
    lam = rows["lambda"].fillna(float(base_lam))
    name = claim[rows.index].str.removeprefix("imposter.")
    # one long row per claim and bound; a claim without an interval has no bound rows, so the
    # table has bound columns only where some lambda gives one
    parts = [pd.DataFrame({"lambda": lam, "claim": name, "value": rows["value"]})]
    for bound in ("ci_low", "ci_high"):
        given = rows[bound].notna()
        parts.append(
            pd.DataFrame(
                {
                    "lambda": lam[given],
                    "claim": name[given] + f".{bound}",
                    "value": rows.loc[given, bound],
                }
            )
        )
    table = pd.concat(parts).pivot_table(index="lambda", columns="claim", values="value", sort=True)
    return table[sorted(table.columns)]


def _seed_intervals(
    frame: pd.DataFrame, values: dict[str, float], n_boot: int
) -> dict[str, tuple[float, float]]:
    """``{claim: (ci_low, ci_high)}``, the 95% percentile interval over resamples of the seeds
    (no entry for a claim no resample gives a value; none at all with fewer than two seeds)."""
    seeded = frame["seed"] >= 0  # rows without a seed (detection) carry -1
    seeds = np.sort(frame.loc[seeded, "seed"].astype(int).unique())
    if len(seeds) < 2:
        return {}
    by_seed = {int(s): frame[seeded & (frame["seed"] == s)] for s in seeds}
    unseeded = frame[~seeded]
    rng = np.random.default_rng(np.random.SeedSequence([0, 707]))
    draws = np.sort(rng.integers(0, len(seeds), size=(n_boot, len(seeds))), axis=1)
    # a resample is a multiset of seeds; few seeds make few distinct ones
    distinct, index = np.unique(draws, axis=0, return_inverse=True)
    resampled = [
        _claim_values(pd.concat([unseeded, *(by_seed[int(seeds[i])] for i in draw)]))
        for draw in distinct
    ]
    out = {}
    for claim in values:
        boot = np.array([resampled[i].get(claim, np.nan) for i in np.ravel(index)], dtype=float)
        boot = boot[np.isfinite(boot)]
        if len(boot):
            lo, hi = np.percentile(boot, [2.5, 97.5])
            out[claim] = (float(lo), float(hi))
    return out


def _claim_values(frame: pd.DataFrame) -> dict[str, float]:
    """Every claim's value on the rows of ``frame`` (the experiments of :func:`claims`)."""
    table1 = _expand(_rows(frame, "table1"))
    fig7 = _rows(frame, "fig7")
    fig8 = _expand(_rows(frame, "fig8"))
    table2 = _expand(_rows(frame, "table2"))
    acc, f1 = "accuracy", "f1"

    def t1(setting: str, target: str, clf: str) -> float:
        return 100 * _mean(
            table1[table1["method"] == clf], metric=acc, setting=setting, target=target
        )

    b_gender_acc = {c: t1("B", PRIVATE, c) for c in CLASSIFIERS}
    b_income_acc = {c: t1("B", LABEL, c) for c in CLASSIFIERS}
    a_gender_acc = {c: t1("A", PRIVATE, c) for c in CLASSIFIERS}
    present = [c for c in CLASSIFIERS if np.isfinite(b_gender_acc[c])]
    gbdt_gender, gbdt_income = b_gender_acc["GBDT"], b_income_acc["GBDT"]
    values = {
        "imposter.gender_accuracy_b": gbdt_gender,
        "imposter.income_accuracy_b": gbdt_income,
        "imposter.min_income_accuracy_b": (
            min(b_income_acc[c] for c in present) if present else float("nan")
        ),
        "imposter.gender_drop_every_classifier": (
            float(all(b_gender_acc[c] < a_gender_acc[c] for c in present))
            if present
            else float("nan")
        ),
    }
    krr_gender = published_value("imposter.krr_gender_accuracy")
    _, krr_income = krr_matched_income(fig7, krr_gender / 100)
    values["imposter.krr_income_at_gender_6891"] = 100 * krr_income
    _, krr_income_m = krr_matched_income(fig7, gbdt_gender / 100)
    values["imposter.beats_krr_at_matched_gender"] = (
        float(gbdt_income > 100 * krr_income_m) if np.isfinite(krr_income_m) else float("nan")
    )
    if len(fig8):
        g0 = _mean(fig8, metric=acc, target=PRIVATE, **{"lambda": 0.0})
        g1 = _mean(fig8, metric=acc, target=PRIVATE, **{"lambda": 1.0})
        values["imposter.lambda1_below_lambda0"] = (
            float(g1 < g0) if np.isfinite(g0 + g1) else float("nan")
        )
    if len(table2):
        g = table2[(table2["setting"] == "B") & (table2["target"] == PRIVATE)]
        for metric, claim in ((acc, "accuracy"), (f1, "f1")):
            by_theta = g[g["metric"] == metric].groupby("theta")["value"].mean()
            values[f"imposter.table2_gender_{claim}_b_max"] = 100 * float(by_theta.max())
    return values
