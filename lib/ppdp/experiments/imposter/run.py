"""The IMPOSTER experiment's runs on UCI Adult: one function per figure or table.

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

:func:`ppdp.experiments.imposter.claims.claims` derives the values the paper's claims are judged
on from the tidy rows of all of these.

Protocol (the paper gives no split or sample size): the real table is split 70/30, stratified on
``sex``, with the run's seed; the generator is trained on the real training part only; it releases
as many records as the real table has, which are split 70/30 the same way for Setting B. Setting C
trains on the released training part and tests on the real test part. k-RR perturbs the whole
table, which is then split like the real one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp.classifiers import CLASSIFIERS, _evaluate_tests, split_frame
from ppdp.experiments.common import COMMON_PARAMETERS, Param, tidy_frame, tidy_rows
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.mechanisms.imposter import Imposter, detect_implicit_privacy
from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
from ppdp.memo import Memo, digest

__all__ = [
    "LABEL",
    "PARAMETERS",
    "PRIVATE",
    "RELEASES",
    "SCORES",
    "TEST_SIZE",
    "check_parameters",
    "imposter_release",
    "majority_rate",
    "pairwise_nmi",
    "prepare_adult",
    "run_fig6",
    "run_fig7",
    "run_fig8",
    "run_table1",
    "run_table1_across",
    "run_table2",
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
            df, _ = split_frame(
                df, test_size=1 - n_rows / len(df), random_state=seed, stratify=PRIVATE
            )
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


#: Trained IMPOSTER releases, so that the grid points Table 1, Table 2 and Fig. 8 share train once.
RELEASES = Memo(
    "experiments.imposter.releases",
    "(release, loss history), copied on every lookup, by a digest of the training table (values, "
    "index, columns, dtypes), the features, lambda, seed, rows and the generator's parameters",
    freeze=True,
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

    Results are memoized (:data:`RELEASES`) on the training table's content (values, index,
    column names and dtypes, categories included), the features, lambda, seed, n and the
    generator's parameters, so that the grid points shared by Table 1, Table 2 and Fig. 8 train
    once; every call gets its own copy of the frames.
    """
    params = dict(imposter_params or {})
    # the table and the parameters by their digests; the scalars as they are, for a reader
    key = (digest(train), tuple(features), float(lam), int(seed), int(n), digest(params))

    def train_and_draw():
        model = Imposter(
            lam=lam, private=PRIVATE, label=LABEL, columns=list(features), **params
        ).fit(train, random_state=seed)
        release = model.sample(n, np.random.default_rng(seed))
        return release, model.history_.assign(lam=float(lam), seed=int(seed))

    return RELEASES.get(key, train_and_draw)


def _split(df: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    return split_frame(df, test_size=TEST_SIZE, random_state=seed, stratify=PRIVATE)


def _positives(df: pd.DataFrame) -> dict[str, Any]:
    return {t: df[t].value_counts(sort=False).sort_index().idxmin() for t in (PRIVATE, LABEL)}


#: Classifier scores, so that a (training table, test table, classifier) that several grid points
#: share is scored once: Setting A of Table 1 again in Table 2 (``theta`` of Table 1), Setting B
#: of Table 1 again in Table 2 and Fig. 8, Fig. 8's Setting B again in Table 1 across (and Fig. 7
#: at an epsilon so large that k-RR changes no value, which is Setting A).
SCORES = Memo(
    "experiments.imposter.scores",
    "evaluate_setting's accuracy and F1, read-only, by a digest of the training and the test "
    "table (values, index, columns, dtypes), the features, target, classifier, seed and positive "
    "class",
    freeze=True,
)


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
    tables = {s: (digest(train), digest(test)) for s, (train, test) in pairs.items()}
    # settings with the same training table (Settings B and C) share one fitted model wherever
    # their test tables one-hot encode the same categories (see ppdp.classifiers._evaluate_tests)
    groups: dict[str, list[str]] = {}
    for setting, (train_digest, _) in tables.items():
        groups.setdefault(train_digest, []).append(setting)
    scores = {}
    for target in (PRIVATE, LABEL):
        for clf in classifiers:
            keys = {
                s: (*tables[s], tuple(features), target, clf, int(seed), digest(positives[target]))
                for s in pairs
            }
            for group in groups.values():
                todo = list(dict.fromkeys(keys[s] for s in group if keys[s] not in SCORES))
                test_of = {keys[s]: pairs[s][1] for s in group}
                computed = {}
                if todo:
                    results = _evaluate_tests(
                        pairs[group[0]][0],
                        [test_of[k] for k in todo],
                        features=list(features),
                        target=target,
                        classifier=clf,
                        random_state=seed,
                        positive=positives[target],
                    )
                    computed = dict(zip(todo, results, strict=True))
                for s in group:
                    scores[s, target, clf] = SCORES.get(keys[s], lambda k=keys[s], c=computed: c[k])
    rows = []
    for setting in pairs:
        for target in (PRIVATE, LABEL):
            for clf in classifiers:
                params = {**(extra or {}), "setting": setting, "target": target}
                name = clf if method == "" else method
                if method and len(classifiers) > 1:
                    params["classifier"] = clf
                res = dict(scores[setting, target, clf])
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


def majority_rate(df: pd.DataFrame) -> float:
    """Percentage of records holding the most frequent value of ``sex``: the accuracy of a
    classifier that always guesses it (the floor a private attribute's accuracy can reach)."""
    return float(100 * (df[PRIVATE] == df[PRIVATE].mode()[0]).mean())


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
