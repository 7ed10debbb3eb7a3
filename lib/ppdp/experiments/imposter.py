"""Experiments of the IMPOSTER paper (Yang et al., Security and Safety 2022) on UCI Adult.

Each function runs the grid points of one figure or table and returns a tidy frame
(:data:`ppdp.experiments.common.TIDY_COLUMNS`):

- :func:`run_fig6`: NMI of every attribute with ``sex`` (and every pair of attributes), the printed
  Eq. (7) value, Pearson, and the detection result at ``theta``.
- :func:`run_table1`: accuracy and F1 of XGBoost, GBDT, RF, MLP and LR predicting ``sex`` and
  ``income`` from the implicit-privacy attributes, Settings A, B and C.
- :func:`run_table1_across`: Table 1's Setting B again at the other plausible ``lambda`` (the
  paper does not state the one of Table 1), for the claims' ``.across`` rows.
- :func:`run_fig7`: k-RR on the implicit-privacy attributes for a grid of epsilons, GBDT trained
  and tested on the perturbed table (the paper's protocol) and tested on real records.
- :func:`run_table2`: XGBoost, Settings A and B, for several ``theta``.
- :func:`run_fig8`: XGBoost on IMPOSTER data for several ``lambda`` (0 = CGAN + VAE).
- :func:`claims`: the values the paper's claims are judged on, from the tidy rows of all of these.

The notebook's tables and figures are built from the tidy rows too: :func:`score_table`,
:func:`detection_scores`, :func:`selected_counts`, and ``plot_fig6``, ``plot_training_history``,
``plot_fig7``, ``plot_fig8``, ``plot_privacy_utility``. They read the parameters from their columns
(:func:`ppdp.experiments.common.with_parameters`), the attribute a Fig. 6 score is of from the
facet column ``attribute``, and the paper's numbers with :func:`ppdp.published.published_value`
(``claims.yaml``).

Protocol (the paper gives no split or sample size): the real table is split 70/30, stratified on
``sex``, with the run's seed; the generator is trained on the real training part only; it releases
as many records as the real table has, which are split 70/30 the same way for Setting B. Setting C
trains on the released training part and tests on the real test part. k-RR perturbs the whole
table, which is then split like the real one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp.classifiers import CLASSIFIERS, evaluate_setting, split_frame
from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    DERIVED_EXPERIMENTS,
    Param,
    mean_halfwidth,
    tidy_frame,
    tidy_rows,
    with_parameters,
)
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.mechanisms.imposter import Imposter, detect_implicit_privacy
from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
from ppdp.memo import Memo
from ppdp.published import published_value

__all__ = [
    "ACROSS_CLAIMS",
    "LABEL",
    "PARAMETERS",
    "PRIVATE",
    "SCORE_INDEX",
    "SCORE_KEYS",
    "across_table",
    "check_parameters",
    "claims",
    "detection_scores",
    "detection_theta",
    "imposter_release",
    "krr_matched_income",
    "majority_rate",
    "nmi_matrix",
    "pairwise_nmi",
    "plot_fig6",
    "plot_fig7",
    "plot_fig8",
    "plot_privacy_utility",
    "plot_training_history",
    "prepare_adult",
    "run_fig6",
    "run_fig7",
    "run_fig8",
    "run_table1",
    "run_table1_across",
    "run_table2",
    "score_table",
    "selected_counts",
    "wide_scores",
]

PRIVATE = "sex"
LABEL = "income"
TEST_SIZE = 0.3


def prepare_adult(n_rows: int | None = None, seed: int = 0) -> pd.DataFrame:
    """UCI Adult, all 48,842 rows, as the experiments use it.

    UCI's missing values (``?`` in ``workclass``, ``occupation``, ``native_country``) are kept as a
    category ``"?"`` (the paper keeps all 48,842 instances); the ``split`` column is dropped. With
    ``n_rows`` a random subset of that many rows (stratified on ``sex``) is returned.
    """
    from ppdp.datasets import load_adult

    df = load_adult().drop(columns="split")
    for col in df.columns:
        if isinstance(df[col].dtype, pd.CategoricalDtype) and df[col].isna().any():
            df[col] = df[col].cat.add_categories("?").fillna("?")
    if n_rows is not None:
        if not isinstance(n_rows, int | np.integer) or not 10 <= n_rows <= len(df):
            raise ValueError(
                f"n_rows must be an integer in [10, {len(df)}] or None, got {n_rows!r}"
            )
        if n_rows < len(df):
            df, _ = split_frame(df, test_size=1 - n_rows / len(df), seed=seed, stratify=PRIVATE)
    return df.reset_index(drop=True)


def pairwise_nmi(df: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Symmetric matrix of NMI between every pair of columns (wide numerics binned), Fig. 6."""
    from ppdp.infotheory import normalized_mutual_information_from_samples
    from ppdp.mechanisms.imposter import discretize_for_information

    cols = list(df.columns) if columns is None else list(columns)
    labels = {c: discretize_for_information(df[c]) for c in cols}
    out = pd.DataFrame(np.eye(len(cols)), index=cols, columns=cols)
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            value = normalized_mutual_information_from_samples(labels[a], labels[b])
            out.loc[a, b] = out.loc[b, a] = value
    return out


def run_fig6(
    df: pd.DataFrame, theta: float = 0.01, *, beta: float | None = None, seed: int = 0
) -> pd.DataFrame:
    """Correlations with ``sex`` (method ``nmi``/``eq7_printed``/``pearson``), pairwise NMI
    (method ``nmi_pairwise``) and the detection outcome (method ``detection``).

    A correlation and a detection outcome are of one attribute: its name is the facet
    ``attribute`` of the row (the pairwise NMI names its pair by the parameters ``a`` and ``b``)."""
    rows = []
    res = detect_implicit_privacy(
        df, PRIVATE, label=LABEL, theta=theta, beta=beta, random_state=seed
    )
    for attr, rec in res.scores.iterrows():
        # what is scored is the attribute: a facet of the score, not a parameter of the run
        of = {"attribute": attr}
        rows += tidy_rows("fig6", "nmi", {"score": rec["nmi"]}, facets=of)
        rows += tidy_rows("fig6", "eq7_printed", {"score": rec["eq7_printed"]}, facets=of)
        rows += tidy_rows("fig6", "pearson", {"score": rec["pearson"]}, facets=of)
        rows += tidy_rows(
            "fig6",
            "detection",
            {"selected": float(rec["selected"])},
            parameters={"theta": theta},
            facets=of,
        )
    metrics = {"n_selected": len(res.candidates), "n_implicit": len(res.implicit)}
    if res.performance is not None:
        metrics["performance"] = res.performance
    rows += tidy_rows(
        "fig6",
        "detection",
        metrics,
        parameters={"theta": theta},
        seed=seed if beta is not None else None,
    )
    matrix = pairwise_nmi(df)
    for i, a in enumerate(matrix.index):
        for b in matrix.columns[i:]:
            rows += tidy_rows(
                "fig6", "nmi_pairwise", {"nmi": matrix.loc[a, b]}, parameters={"a": a, "b": b}
            )
    return tidy_frame(rows)


def _frame_key(df: pd.DataFrame) -> str:
    return hashlib.sha256(
        pd.util.hash_pandas_object(df, index=True).to_numpy().tobytes()
    ).hexdigest()


#: Trained IMPOSTER releases, so that the grid points Table 1, Table 2 and Fig. 8 share train once.
RELEASES = Memo(
    "experiments.imposter.releases",
    "(release, loss history) by table digest, features, lambda, seed, rows and parameters",
)


def imposter_release(
    train: pd.DataFrame,
    features: Sequence[str],
    *,
    lam: float,
    seed: int,
    n: int,
    imposter_params: dict[str, Any] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fit IMPOSTER on ``train`` (attributes ``features`` + label, conditioned on sex) and draw
    ``n`` records with ``numpy.random.default_rng(seed)``; returns (release, loss history).

    Results are memoized on (table content, features, lambda, seed, n, parameters) so that the
    grid points shared by Table 1, Table 2 and Fig. 8 train once.
    """
    params = dict(imposter_params or {})
    key = (
        _frame_key(train),
        tuple(features),
        float(lam),
        int(seed),
        int(n),
        tuple(sorted(params.items())),  # the generator's parameters, as (name, value) pairs
    )

    def train_and_draw():
        model = Imposter(
            lam=lam, private=PRIVATE, label=LABEL, columns=list(features), **params
        ).fit(train, random_state=seed)
        release = model.sample(n, np.random.default_rng(seed))
        return release, model.history_.assign(lam=float(lam), seed=int(seed))

    release, history = RELEASES.get(key, train_and_draw)
    return release.copy(), history.copy()


def _split(df: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    return split_frame(df, test_size=TEST_SIZE, seed=seed, stratify=PRIVATE)


def _positives(df: pd.DataFrame) -> dict[str, Any]:
    return {t: df[t].value_counts(sort=False).sort_index().idxmin() for t in (PRIVATE, LABEL)}


def _score(
    experiment: str,
    method: str,
    pairs: dict[str, tuple[pd.DataFrame, pd.DataFrame]],
    features: Sequence[str],
    classifiers: Sequence[str],
    seed: int,
    positives: dict[str, Any],
    extra: dict[str, Any] | None = None,
) -> list[dict]:
    rows = []
    for setting, (train, test) in pairs.items():
        for target in (PRIVATE, LABEL):
            for clf in classifiers:
                res = evaluate_setting(
                    train,
                    test,
                    features=list(features),
                    target=target,
                    classifier=clf,
                    seed=seed,
                    positive=positives[target],
                )
                params = {**(extra or {}), "setting": setting, "target": target}
                name = clf if method == "" else method
                if method and len(classifiers) > 1:
                    params["classifier"] = clf
                rows += tidy_rows(experiment, name, res, parameters=params, seed=seed)
    return rows


def _features(df: pd.DataFrame, theta: float) -> list[str]:
    res = detect_implicit_privacy(df, PRIVATE, label=LABEL, theta=theta)
    if not res.candidates:
        raise ValueError(f"theta={theta} selects no attribute; choose a smaller theta")
    return res.candidates


def run_table1(
    df: pd.DataFrame,
    *,
    seeds: Sequence[int] = (0,),
    theta: float = 0.01,
    lam: float = 1.0,
    classifiers: Sequence[str] = CLASSIFIERS,
    imposter_params: dict[str, Any] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 1 (plus Setting C): returns (tidy scores, training histories)."""
    features = _features(df, theta)
    positives = _positives(df)
    rows, histories = [], []
    for seed in seeds:
        train, test = _split(df, seed)
        release, history = imposter_release(
            train, features, lam=lam, seed=seed, n=len(df), imposter_params=imposter_params
        )
        rel_train, rel_test = _split(release, seed)
        pairs = {"A": (train, test), "B": (rel_train, rel_test), "C": (rel_train, test)}
        rows += _score(
            "table1",
            "",
            pairs,
            features,
            classifiers,
            seed,
            positives,
            {"theta": theta, "lambda": lam},
        )
        histories.append(history)
    return tidy_frame(rows), pd.concat(histories, ignore_index=True)


def run_table1_across(
    df: pd.DataFrame,
    lambdas: Sequence[float],
    base_lam: float,
    *,
    seeds: Sequence[int] = (0,),
    theta: float = 0.01,
    classifiers: Sequence[str] = CLASSIFIERS,
    imposter_params: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Table 1's Setting B at the ``lambda`` values the paper leaves open (experiment
    ``table1_across``, the parameter ``lambda`` telling them apart).

    The paper does not state the ``lambda`` of Table 1, so the claims read from its Setting B are
    judged at every value of ``lambdas`` besides the profile's ``base_lam`` (skipped when
    ``lambdas`` holds it). Only ``lambda`` changes: the same data, split, seeds, features,
    generator training (``imposter_params``) and classifiers as :func:`run_table1`. Setting A does
    not depend on ``lambda`` and is not rerun; nor is Setting C, which no claim reads. The
    generator of a (``lambda``, seed) pair that :func:`run_fig8` (or Table 2) already trained in
    this process is reused (:func:`imposter_release` memoizes it), so with ``lambdas`` inside
    Fig. 8's only the classifiers are fitted again.
    """
    features = _features(df, theta)
    positives = _positives(df)
    rows = []
    for lam in sorted({float(v) for v in lambdas} - {float(base_lam)}):
        for seed in seeds:
            train, _ = _split(df, seed)
            release, _ = imposter_release(
                train, features, lam=lam, seed=seed, n=len(df), imposter_params=imposter_params
            )
            rows += _score(
                "table1_across",
                "",
                {"B": _split(release, seed)},
                features,
                classifiers,
                seed,
                positives,
                {"theta": theta, "lambda": lam},
            )
    return tidy_frame(rows)


def run_fig7(
    df: pd.DataFrame,
    *,
    epsilons: Sequence[float] = (1, 2, 5, 10, 20, 50, 100),
    seeds: Sequence[int] = (0,),
    theta: float = 0.01,
    classifier: str = "GBDT",
) -> pd.DataFrame:
    """Fig. 7: k-RR with one epsilon for every implicit-privacy attribute; GBDT on the perturbed
    table (Setting B, the paper's protocol) and trained on perturbed, tested on real (Setting C)."""
    features = _features(df, theta)
    positives = _positives(df)
    rows = []
    for seed in seeds:
        train_idx, test_idx = _split(df.reset_index().rename(columns={"index": "_row"}), seed)
        for eps in epsilons:
            rng = np.random.default_rng([seed, round(float(eps) * 1000)])
            noisy = KaryRandomizedResponse(float(eps), columns=features).fit_randomize(df, rng)
            n_train, n_test = noisy.loc[train_idx["_row"]], noisy.loc[test_idx["_row"]]
            real_test = df.loc[test_idx["_row"]]
            pairs = {
                "B": (n_train.reset_index(drop=True), n_test.reset_index(drop=True)),
                "C": (n_train.reset_index(drop=True), real_test.reset_index(drop=True)),
            }
            rows += _score(
                "fig7",
                "kRR",
                pairs,
                features,
                [classifier],
                seed,
                positives,
                {"epsilon": float(eps)},
            )
    return tidy_frame(rows)


def run_table2(
    df: pd.DataFrame,
    *,
    thetas: Sequence[float] = (0.005, 0.01, 0.05, 0.1),
    seeds: Sequence[int] = (0,),
    lam: float = 1.0,
    classifier: str = "XGBoost",
    imposter_params: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Table 2: for each theta, the selected attributes feed XGBoost on Settings A and B."""
    positives = _positives(df)
    rows = []
    for theta in thetas:
        features = _features(df, theta)
        for seed in seeds:
            train, test = _split(df, seed)
            release, _ = imposter_release(
                train, features, lam=lam, seed=seed, n=len(df), imposter_params=imposter_params
            )
            rel_train, rel_test = _split(release, seed)
            pairs = {"A": (train, test), "B": (rel_train, rel_test)}
            rows += _score(
                "table2",
                classifier,
                pairs,
                features,
                [classifier],
                seed,
                positives,
                {"theta": theta},
            )
            rows += tidy_rows(
                "table2",
                classifier,
                {"n_attributes": len(features)},
                parameters={"theta": theta},
                seed=seed,
            )
    return tidy_frame(rows)


def run_fig8(
    df: pd.DataFrame,
    *,
    lambdas: Sequence[float] = (0.0, 0.5, 1.0, 2.0, 5.0),
    seeds: Sequence[int] = (0,),
    theta: float = 0.01,
    classifier: str = "XGBoost",
    imposter_params: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Fig. 8: XGBoost trained and tested on IMPOSTER data (Setting B) for each lambda."""
    features = _features(df, theta)
    positives = _positives(df)
    rows = []
    for lam in lambdas:
        for seed in seeds:
            train, _ = _split(df, seed)
            release, _ = imposter_release(
                train, features, lam=lam, seed=seed, n=len(df), imposter_params=imposter_params
            )
            rel_train, rel_test = _split(release, seed)
            rows += _score(
                "fig8",
                classifier,
                {"B": (rel_train, rel_test)},
                features,
                [classifier],
                seed,
                positives,
                {"lambda": float(lam)},
            )
    return tidy_frame(rows)


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
        Tidy score rows (:func:`run_table1`, :func:`run_fig7`, :func:`run_table2`,
        :func:`run_fig8`).
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
        Tidy rows holding :func:`run_table2`'s rows (other experiments are ignored).

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
        Tidy rows holding :func:`run_fig6`'s rows (other experiments are ignored).

    Returns
    -------
    DataFrame
        Indexed by attribute, sorted by decreasing NMI, with the columns ``nmi``, ``eq7_printed``,
        ``pearson`` (the methods of :func:`run_fig6`) and ``selected`` (bool, Algorithm 1 at the
        run's ``theta``).
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
    """The threshold ``theta`` at which :func:`run_fig6` ran the detection."""
    rows = _rows(frame, "fig6")
    thetas = _expand(rows[rows["method"] == "detection"], ["theta"])["theta"].dropna().unique()
    if len(thetas) != 1:
        raise ValueError(f"expected the fig6 rows of one theta, found {sorted(thetas)}")
    return float(thetas[0])


def nmi_matrix(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Fig. 6(a): the symmetric matrix of pairwise NMI from :func:`run_fig6`'s ``nmi_pairwise`` rows.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`run_fig6`'s rows (other experiments are ignored).
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


def majority_rate(df: pd.DataFrame) -> float:
    """Percentage of records holding the most frequent value of ``sex``: the accuracy of a
    classifier that always guesses it (the floor a private attribute's accuracy can reach)."""
    return float(100 * (df[PRIVATE] == df[PRIVATE].mode()[0]).mean())


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
        Tidy rows of :func:`run_fig7` (rows of other experiments are ignored).
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
#: :func:`run_table1_across` (``<id>.across`` rows): the paper does not state Table 1's lambda.
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

        The claims of :data:`ACROSS_CLAIMS` are computed the same way (value and interval) from
        the ``table1_across`` rows of every other ``lambda`` (:func:`run_table1_across`; the
        paper states no lambda for Table 1), as ``<id>.across`` rows with the parameter
        ``lambda``.
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


# ------------------------------------------------------------------------------------------------
# Figures. Each takes tidy rows (any superset of the experiments it draws) and returns the figure;
# the notebook saves it with ppdp.plotting.save_figure.


def _seed_note(fig, rows: pd.DataFrame) -> None:
    if rows["seed"].nunique() > 1:
        fig.suptitle("error bars: 95% interval of the mean over seeds", fontsize=8)


def plot_fig6(frame: pd.DataFrame, columns: Sequence[str] | None = None):
    """Fig. 6: (a) NMI between every pair of attributes; (b) each attribute's NMI with ``sex``
    (log scale), the selected ones in orange, and the threshold ``theta`` (Algorithm 1).

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding :func:`run_fig6`'s rows.
    columns : sequence of str, optional
        Order of the attributes in panel (a); see :func:`nmi_matrix`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import PALETTE

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
        The training histories returned by :func:`run_table1` (columns ``epoch``, ``recon``,
        ``kl``, ``d1_loss``, ``g_d1_loss``, ``d2_accuracy``, ``lam``, ``seed``).
    seed : int, optional
        The run to draw; by default the first one.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

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
        Tidy rows holding :func:`run_fig7`'s and :func:`run_table1`'s rows.
    classifier : str
        The classifier of the IMPOSTER reference lines (Table 1, Setting B); Fig. 7's own.

    Returns
    -------
    matplotlib.figure.Figure
        Error bars: 95% interval of the mean over seeds (none with one seed).
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

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
        Tidy rows holding :func:`run_fig8`'s rows.

    Returns
    -------
    matplotlib.figure.Figure
        Error bars: 95% interval of the mean over seeds (none with one seed).
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

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
        Tidy rows holding :func:`run_table1`'s and :func:`run_fig7`'s rows.
    majority : float, optional
        The sex majority rate in percent (:func:`majority_rate`), drawn as a vertical line.
    classifier : str
        The classifier of the IMPOSTER and real-data points; Fig. 7's own.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

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


# ------------------------------------------------------------------------------------------------
# Notebook parameters

#: The parameters of notebooks/imposter.ipynb.
PARAMETERS: dict[str, Param] = {
    **COMMON_PARAMETERS,
    "n_rows": Param("int", low=10, none=True),
    "n_seeds": Param("int", low=1),
    "epochs": Param("int", low=1),
    "batch_size": Param("int", low=2),
    "lam": Param("float", low=0),
    "theta": Param("float", low=0, high=1),
    "thetas": Param("list", item=Param("float", low=0, high=1)),
    "lambdas": Param("list", item=Param("float", low=0)),
    "lam_range": Param("list", item=Param("float", low=0)),
    "epsilons": Param("list", item=Param("float", low=0, open_low=True)),
    "classifiers": Param("list", item=Param("str", choices=CLASSIFIERS)),
}


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's parameters checked against :data:`PARAMETERS`, in canonical form.

    See :func:`ppdp.experiments.common.check_parameters`; the notebook calls
    ``globals().update(check_parameters(globals()))`` right after its parameters cell.
    """
    return _check_parameters(values, PARAMETERS)
