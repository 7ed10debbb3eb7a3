"""One attacker suite for every release: attribute inference, anonymeter's risks, record linkage.

A cross-mechanism benchmark attacks tables of very different shapes with the same adversaries:
Mondrian generalizations (``"28-33"``, ``"{BA,HS}"``), k-ary randomized response and SPPM
mappings (domain values), IMPOSTER synthetic records (possibly another number of rows, no record
correspondence) and relay chains' class means (numbers between domain values).
:mod:`ppdp.cells` reads every released cell as a distribution over the original domain; this
module attacks a release with

* **attribute inference by trained models** (:func:`attribute_inference`): XGBoost and logistic
  regression on the features of :func:`ppdp.cells.design_matrix`, in two scenarios. I: the
  attacker trains on the release (quasi-identifiers -> released private value) and predicts the
  private value of real records he knows the quasi-identifiers of. II: the attacker trains on real
  records (background knowledge) and predicts the true private value of the released rows (only
  when the mechanism keeps the record correspondence). Scored by AUC and accuracy;
* **anonymeter** (:func:`anonymeter_risks`, Giomi et al., PoPETs 2023): the inference,
  linkability and (univariate) singling-out evaluators on one original-domain record per released
  row (:func:`ppdp.cells.sample_cells`), each risk measured against a control set of real records
  that the release did not see;
* **record linkage** (:func:`record_linkage`): the share of released rows whose nearest real
  record is their own original, the distance-based re-identification of Domingo-Ferrer and
  Torra (2001) for releases that keep the rows in order.

Every random step is seeded by ``random_state``; the same arguments (an int seed) give the same
frame.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from numbers import Integral

import numpy as np
import pandas as pd

from ppdp._validation import Interval, check_columns, check_params
from ppdp.base import check_frame, check_random_state
from ppdp.cells import design_matrix, sample_cells
from ppdp.classifiers import make_model
from ppdp.memo import Memo, digest
from ppdp.tabular import AttributeDomain

__all__ = [
    "ANONYMETER_EVALUATORS",
    "ATTACKERS",
    "anonymeter_risks",
    "attribute_inference",
    "learned_posteriors",
    "nearest_record_guesses",
    "record_linkage",
]

#: The learned attackers: XGBoost and logistic regression.
ATTACKERS = ("xgb", "lr")
#: anonymeter's evaluators that :func:`anonymeter_risks` runs.
ANONYMETER_EVALUATORS = ("inference", "linkability", "singling_out")

# cap on the entries of one (released rows x real rows) distance block of record_linkage
_BLOCK_ENTRIES = 1 << 22
# neighbours of the linkability attack and queries of the univariate singling-out attack
_LINK_NEIGHBORS = 10
_MAX_SINGLING_OUT = 100


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------


def _check_column_name(value, name: str, caller: str) -> str:
    if not isinstance(value, str):
        raise TypeError(
            f"{name} of {caller} must be a column name (str), got {type(value).__name__} {value!r}"
        )
    return value


def _check_domains(domains, columns: Sequence[str], caller: str) -> None:
    if not isinstance(domains, Mapping):
        raise TypeError(
            f"domains of {caller} must be a mapping column -> AttributeDomain, "
            f"got {type(domains).__name__}"
        )
    missing = [c for c in columns if c not in domains]
    if missing:
        raise ValueError(
            f"domains of {caller} has no domain for the columns {missing}; it has {list(domains)}"
        )
    for c in columns:
        if not isinstance(domains[c], AttributeDomain):
            raise TypeError(
                f"domains[{c!r}] of {caller} must be an AttributeDomain, "
                f"got {type(domains[c]).__name__}"
            )


def _check_choices(value, name: str, allowed: tuple[str, ...], caller: str) -> list[str]:
    """A non-empty tuple of distinct options among ``allowed``."""
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) == 0:
        raise TypeError(
            f"{name} of {caller} must be a non-empty sequence of names among {allowed}, got "
            f"{type(value).__name__} {value!r}"
        )
    chosen = list(value)
    bad = [v for v in chosen if not isinstance(v, str) or v not in allowed]
    if bad:
        raise ValueError(f"{name} of {caller} must be among {allowed}; got {bad!r} in {value!r}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"{name} of {caller} lists a name twice: {value!r}")
    return chosen


#: The int seed the attackers hand to scikit-learn and XGBoost.
_INT_SEED = {"random_state": [Interval(Integral, 0, None, closed="left")]}


# --------------------------------------------------------------------------------------------
# Attribute inference
# --------------------------------------------------------------------------------------------


def _attacker(model: str, seed: int, n_estimators: int):
    return make_model(model, random_state=seed, n_estimators=n_estimators)


#: Attackers fitted on a training set seen before, by content (see _fitted_attacker).
FITTED_ATTACKERS = Memo(
    "attacks.suite.fitted_attackers",
    "an attacker fitted on a training set, by model, seed, trees and a digest of the arrays",
    maxsize=32,
)


def _fitted_attacker(model: str, seed: int, n_estimators: int, x_train, codes):
    """The attacker fitted on ``(x_train, codes)``, reused when the same training set comes again.

    A benchmark attacks many releases of one real table: scenario II trains on the same real rows
    for every release (and a release that leaves the attacked columns as they are repeats the
    table's scenario I). The fits are deterministic (one thread, seeded), so a model fitted once
    predicts what a refit would; it is looked up in :data:`FITTED_ATTACKERS` by a digest of the
    training arrays and the model's parameters, which keeps the last 32. Call it with one thread.
    """
    from sklearn.exceptions import ConvergenceWarning

    x_train = np.ascontiguousarray(x_train)
    key = digest(model, int(seed), int(n_estimators), x_train, codes)

    def fit():
        clf = _attacker(model, seed, n_estimators)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(x_train, codes)
        return clf

    return FITTED_ATTACKERS.get(key, fit)


def _fit_predict(
    model: str, seed: int, n_estimators: int, x_train, y_train, x_test
) -> tuple[np.ndarray, np.ndarray]:
    """The training classes and the class probabilities of the test rows."""
    from threadpoolctl import threadpool_limits

    classes, codes = np.unique(y_train, return_inverse=True)
    if classes.size == 1:
        # one class to learn: the attacker predicts it with certainty
        return classes, np.ones((x_test.shape[0], 1))
    # one thread: OpenMP/BLAS pools on a shared machine spin far more than they gain
    with threadpool_limits(limits=1):
        clf = _fitted_attacker(model, seed, n_estimators, x_train, codes)
        proba = np.asarray(clf.predict_proba(x_test), dtype=float)
    return classes, proba


def minority_index(labels: Sequence, counts: np.ndarray) -> int:
    """Position of the rarer of two classes in ``labels``; on a tie the greater label as a string.

    The positive class whose AUC the attackers report (:func:`attribute_inference`,
    :func:`ppdp.attacks.targeted.posterior_scores`)."""
    counts = np.asarray(counts)
    if counts[0] != counts[1]:
        return int(np.argmin(counts))
    return max(range(2), key=lambda i: str(labels[i]))


def _binary_auc(y: np.ndarray, score: np.ndarray) -> float:
    """ROC AUC by the Mann-Whitney statistic on mid-ranks (ties count one half), the value of
    :func:`sklearn.metrics.roc_auc_score` without its per-call input checks, which cost more than
    the computation on the benchmark's small test sets."""
    from scipy.stats import rankdata

    y = np.asarray(y, dtype=bool)
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(score)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _scores(
    classes: np.ndarray, proba: np.ndarray, y_true: np.ndarray, positive: str | None
) -> tuple[float, float]:
    """(AUC, accuracy) of the class probabilities ``proba`` (columns: ``classes``)."""
    pred = classes[np.argmax(proba, axis=1)]
    accuracy = float(np.mean(pred == y_true))

    def score_of(label: str) -> np.ndarray:
        # a class the attacker never saw gets probability 0
        hit = np.flatnonzero(classes == label)
        return proba[:, hit[0]] if hit.size else np.zeros(len(y_true))

    present = np.unique(y_true)
    if present.size < 2:
        auc = float("nan")
    elif positive is not None:
        auc = _binary_auc(y_true == positive, score_of(positive))
    else:
        auc = float(np.mean([_binary_auc(y_true == c, score_of(c)) for c in present]))
    return auc, accuracy


def learned_posteriors(
    model: str,
    x_train: np.ndarray,
    y_train,
    x_tests: Sequence[np.ndarray],
    values: Sequence,
    *,
    random_state: int = 0,
    n_estimators: int = 100,
) -> list[np.ndarray]:
    """Class probabilities of a model trained on ``(x_train, y_train)``, one array per test set.

    The columns follow ``values`` (labels are matched to them by value, so a numeric label drawn
    as ``18.0`` is the value ``18``); a value the model never saw in training gets probability 0,
    and a single training class is predicted with probability 1, as in
    :func:`attribute_inference`. The fitted model is reused when the same training set comes again
    (see ``_fitted_attacker``), so a benchmark that scores many releases against one auxiliary
    table fits its no-release attacker once.

    Parameters
    ----------
    model : {"xgb", "lr"}
        The attacker of :func:`attribute_inference` (:data:`ATTACKERS`).
    x_train : ndarray, shape (n, m)
        Training features (e.g. :func:`ppdp.cells.design_matrix`).
    y_train : array-like, shape (n,)
        Training labels, each among ``values``.
    x_tests : sequence of ndarray, shape (n_i, m)
        The test sets, predicted together.
    values : sequence
        The private values, in the order of the output's columns.
    random_state : int >= 0, default 0
        The int seed handed to XGBoost's ``random_state`` (logistic regression is deterministic):
        the same int gives the same probabilities.
    n_estimators : int, default 100
        Trees of the XGBoost model.

    Returns
    -------
    list of ndarray, shape (n_i, len(values))
        One array of class probabilities per test set; rows sum to 1.

    Raises
    ------
    ValueError
        For an unknown ``model``, ``y_train`` not one label per training row, a label outside
        ``values``, or a ``random_state`` that is not an int >= 0.

    Examples
    --------
    The attacker knows the age and sickness of six other people and wants the sickness of two
    targets from their ages; ``"maybe"``, never seen in training, gets probability 0:

    >>> import numpy as np
    >>> x = np.array([[20.0], [25.0], [30.0], [45.0], [50.0], [60.0]])
    >>> y = ["no", "no", "no", "yes", "yes", "yes"]
    >>> (post,) = learned_posteriors("lr", x, y, [np.array([[22.0], [55.0]])],
    ...                              ["no", "yes", "maybe"])
    >>> post.round(2)
    array([[0.8 , 0.2 , 0.  ],
           [0.19, 0.81, 0.  ]])
    """
    if model not in ATTACKERS:
        raise ValueError(f"model must be one of {ATTACKERS}, got {model!r}")
    check_params({"random_state": random_state}, _INT_SEED, "learned_posteriors")
    labels = np.asarray(y_train, dtype=object)
    if labels.ndim != 1 or labels.shape[0] != np.shape(x_train)[0] or labels.shape[0] == 0:
        raise ValueError(
            f"y_train must hold one label per row of x_train ({np.shape(x_train)[0]}), got "
            f"shape {labels.shape}"
        )
    wanted = pd.Index(list(values))
    codes = wanted.get_indexer(labels.tolist())
    if (codes < 0).any():
        bad = list(dict.fromkeys(labels[codes < 0].tolist()))[:5]
        raise ValueError(f"y_train holds values {bad!r} outside values {wanted.tolist()}")
    out = []
    stacked = np.vstack(x_tests) if len(x_tests) else np.zeros((0, np.shape(x_train)[1]))
    classes, proba = _fit_predict(
        model, int(random_state), int(n_estimators), x_train, codes, stacked
    )
    where = classes.astype(np.int64)
    full = np.zeros((stacked.shape[0], len(wanted)))
    full[:, where] = proba
    start = 0
    for x in x_tests:
        out.append(full[start : start + x.shape[0]])
        start += x.shape[0]
    return out


def attribute_inference(
    real_train: pd.DataFrame,
    real_test: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    features: Sequence[str],
    private: str,
    models: Sequence[str] = ATTACKERS,
    random_state: int = 0,
    released_truth=None,
    n_estimators: int = 100,
) -> pd.DataFrame:
    """Attribute inference of the private column by trained classifiers, in two scenarios.

    Features are :func:`ppdp.cells.design_matrix` of ``features`` (expected value of a numeric
    cell, membership weights of a categorical one), one encoding for real and released rows;
    labels are the private values as strings (``astype(str)``).

    * Scenario ``"I"`` (train on the release, test on real records): the attacker fits each model
      on the released rows (``released[features]`` -> ``released[private]``) and predicts
      ``real_test[private]`` from ``real_test[features]``.
    * Scenario ``"II"`` (train on real records, apply to the release): the attacker fits each
      model on ``real_train``, auxiliary real records of other people than the released ones,
      and predicts the true private value of each released row, ``released_truth``, from its
      released features. Its targets are never among its training rows: ``real_train``'s index
      labels must not meet ``released``'s (an attacker scored on the rows it trained on scores
      the same on every release, however protected).

    Parameters
    ----------
    real_train : DataFrame
        Real records the attacker knows entirely (scenario II's training set), disjoint from the
        released rows (no common index label); its private column
        also fixes the classes: with two, the AUC is that of the minority class (ties: the
        greater label as a string); with more, the macro average of the one-vs-rest AUCs of the
        classes present in the scored labels.
    real_test : DataFrame
        Held-out real records, the targets of scenario I.
    released : DataFrame
        The release: ``features`` (any cell :mod:`ppdp.cells` reads) and ``private``.
    domains : mapping str -> AttributeDomain
        Domains of ``features`` (:func:`ppdp.cells.table_domains` of the real table).
    features : sequence of str
        Distinct quasi-identifier columns the attacker knows; not ``private``.
    private : str
        The column the attacker infers.
    models : sequence of {"xgb", "lr"}, default ("xgb", "lr")
        ``"xgb"``: ``XGBClassifier(n_estimators, max_depth=6, learning_rate=0.1,
        tree_method="hist", n_jobs=1, random_state=random_state)``; ``"lr"``: ``StandardScaler``
        then ``LogisticRegression(max_iter=1000)``.
    random_state : int >= 0, default 0
        The int seed handed to XGBoost's ``random_state`` (logistic regression is deterministic):
        the same int gives the same frame.
    released_truth : array-like, optional
        The true private value of each released row, aligned with ``released``'s rows. None
        (a mechanism without record correspondence, e.g. synthetic data): no scenario II.
    n_estimators : int, default 100
        Trees of the XGBoost model.

    Returns
    -------
    DataFrame
        Columns ``scenario`` (``"I"``, ``"II"``), ``attacker`` (the model), ``metric``
        (``"auc"``, ``"accuracy"``) and ``value``. A single training class is predicted with
        probability 1 (AUC 0.5); a class unseen in training gets probability 0; the AUC is NaN
        when the scored labels hold a single class (undefined).

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it.

    Notes
    -----
    A release whose private column carries no information leaves the attacker at chance only on
    average over releases: a model fitted to noise ranks records along a random direction of the
    features, and when the true private value depends strongly on them its AUC can land far from
    0.5 (in the tests' table, standard deviation 0.18 over shuffles for ``"lr"``, 0.06 for
    ``"xgb"``).

    Runtime, both models and both scenarios, 5,000 real training rows, 5,000 released rows,
    2,000 test rows, 8 feature columns (30 design columns), ``n_estimators=100``: about 0.7 s on
    one core (1.3 s for the first call of a process, which imports xgboost and sklearn).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from ppdp.cells import table_domains
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"age": rng.integers(20, 60, 300), "sex": rng.choice(["F", "M"], 300)})
    >>> df["sick"] = (df["age"] > 40).astype(int)
    >>> doms = table_domains(df, ["age", "sex"], numeric=["age"])
    >>> out = attribute_inference(df[:200], df[200:], df[:200], domains=doms,
    ...                           features=["age", "sex"], private="sick", models=("lr",))
    >>> out["metric"].tolist()
    ['auc', 'accuracy']
    """
    caller = "attribute_inference"
    check_params(
        {"random_state": random_state, "n_estimators": n_estimators},
        {**_INT_SEED, "n_estimators": [Interval(Integral, 1, None, closed="left")]},
        caller,
    )
    models = _check_choices(models, "models", ATTACKERS, caller)
    real_train = check_frame(real_train, "real_train")
    real_test = check_frame(real_test, "real_test")
    released = check_frame(released, "released")
    features = check_columns(features, name="features", caller=caller)
    private = _check_column_name(private, "private", caller)
    if private in features:
        raise ValueError(f"private={private!r} must not be among the features {features}")
    _check_domains(domains, features, caller)
    for name, frame in (("real_train", real_train), ("real_test", real_test)):
        check_columns([*features, private], name="columns", table=frame, table_name=name)
    check_columns(features, name="features", table=released, table_name="released")
    if private not in released.columns and released_truth is None:
        raise ValueError(
            f"private={private!r} is not a column of released (it has {list(released.columns)}) "
            "and released_truth is None: no scenario to run"
        )
    for name, frame in (("real_train", real_train), ("real_test", real_test)):
        if frame[private].isna().any():
            raise ValueError(f"private column {private!r} has missing values in {name}")
    truth = None
    if released_truth is not None:
        truth = np.asarray(released_truth, dtype=object)
        if truth.ndim != 1 or truth.shape[0] != len(released):
            raise ValueError(
                f"released_truth must hold one value per released row ({len(released)}), got "
                f"shape {truth.shape}"
            )
        if pd.isna(truth).any():
            raise ValueError("released_truth has missing values")
        truth = truth.astype(str)
        shared = real_train.index.intersection(released.index)
        if len(shared):
            raise ValueError(
                f"real_train and released share {len(shared)} index labels (e.g. "
                f"{list(shared[:3])}): scenario II would score the attacker on rows it trained on; "
                "give it real records of other people than the released ones"
            )

    y_real = real_train[private].astype(str).to_numpy()
    labels, counts = np.unique(y_real, return_counts=True)
    positive = None
    if labels.size == 2:
        positive = str(labels[minority_index(labels, counts)])

    x_released = design_matrix(released, domains, features)
    rows = []
    if private in released.columns:
        if released[private].isna().any():
            raise ValueError(f"private column {private!r} has missing values in released")
        x_test = design_matrix(real_test, domains, features)
        y_released = released[private].astype(str).to_numpy()
        y_test = real_test[private].astype(str).to_numpy()
        for model in models:
            classes, proba = _fit_predict(
                model, int(random_state), int(n_estimators), x_released, y_released, x_test
            )
            auc, acc = _scores(classes, proba, y_test, positive)
            rows += [("I", model, "auc", auc), ("I", model, "accuracy", acc)]
    if truth is not None:
        x_train = design_matrix(real_train, domains, features)
        for model in models:
            classes, proba = _fit_predict(
                model, int(random_state), int(n_estimators), x_train, y_real, x_released
            )
            auc, acc = _scores(classes, proba, truth, positive)
            rows += [("II", model, "auc", auc), ("II", model, "accuracy", acc)]
    out = pd.DataFrame(rows, columns=["scenario", "attacker", "metric", "value"])
    out["value"] = out["value"].astype(float)
    return out


# --------------------------------------------------------------------------------------------
# anonymeter
# --------------------------------------------------------------------------------------------


@contextmanager
def _numpy_global_seed(seed: int):
    """numpy's legacy global state seeded with ``seed``, restored on exit.

    anonymeter (through pandas' ``sample``) draws its targets from it.
    """
    state = np.random.get_state()  # noqa: NPY002 (anonymeter draws from the legacy state)
    np.random.seed(seed)  # noqa: NPY002
    try:
        yield
    finally:
        np.random.set_state(state)  # noqa: NPY002


def _anonymeter_frame(
    frame: pd.DataFrame, domains: Mapping[str, AttributeDomain], columns: Sequence[str]
) -> pd.DataFrame:
    """``columns`` with one dtype per column for all three frames (float or str), fresh index."""
    out = {}
    for c in columns:
        col = frame[c]
        out[c] = col.astype(float) if domains[c].kind == "numeric" else col.astype(str)
    return pd.DataFrame(out).reset_index(drop=True)


def _risk_rows(name: str, results) -> list[tuple]:
    risk = results.risk()
    rows = [
        (name, "risk", float(risk.value)),
        (name, "ci_low", float(risk.ci[0])),
        (name, "ci_high", float(risk.ci[1])),
        (name, "attack_rate", float(results.attack_rate.value)),
        (name, "baseline_rate", float(results.baseline_rate.value)),
    ]
    if results.control_rate is not None:
        rows.append((name, "control_rate", float(results.control_rate.value)))
    return rows


def _link_baseline(
    n_released: int, n_attacks: int, n_neighbors: int, rng: np.random.Generator
) -> int:
    """Successes of anonymeter's random linkability attacker, drawn from their exact law.

    The random attacker draws two sets of ``n_neighbors`` released rows per target and succeeds
    when they meet, with probability ``1 - C(n - k, k) / C(n, k)``; anonymeter simulates the draws
    with an unseeded generator, this draws the binomial count of successes from ``rng``.
    """
    k, n = n_neighbors, n_released
    miss = math.comb(n - k, k) / math.comb(n, k) if n - k >= k else 0.0
    return int(rng.binomial(n_attacks, 1.0 - miss))


def _gower_search():
    """The compiled search of ``_gower_neighbors``: ``ppdp.attacks.gower_kernel.search``.

    Imported on first use: numba compiles it once per machine and keeps the machine code in the
    module's ``__pycache__``, which later processes (test workers, the benchmark's worker
    processes) load in about a second instead of compiling for about ten.
    """
    from ppdp.attacks.gower_kernel import search

    return search


def _gower_neighbors(
    candidates: pd.DataFrame, queries: pd.DataFrame, n_neighbors: int
) -> np.ndarray:
    """anonymeter's ``MixedTypeKNeighbors(n_neighbors).fit(candidates).kneighbors(queries)``.

    The same neighbours, found faster: anonymeter scales and encodes both frames with pandas,
    then searches one query per joblib task, sorting all its distances. Here the numbers are
    anonymeter's (numeric columns divided by their range over both frames, 1 for a constant one;
    categorical ones as codes of one encoding of both, which its distance compares for equality
    only; numeric columns first, each kind in name order) and every query is searched in one call
    of :func:`_gower_search`. The frames hold no missing values.

    Returns
    -------
    ndarray of int, shape (len(queries), min(n_neighbors, len(candidates)))
        Positions in ``candidates`` of each query's neighbours, the closest first.
    """
    from anonymeter.preprocessing.type_detection import detect_consistent_col_types

    ctypes = detect_consistent_col_types(df1=candidates, df2=queries)
    cand_blocks, query_blocks = [], []
    if ctypes["num"]:
        a = candidates[ctypes["num"]].to_numpy(dtype=np.float64)
        b = queries[ctypes["num"]].to_numpy(dtype=np.float64)
        ranges = np.maximum(a.max(axis=0), b.max(axis=0)) - np.minimum(a.min(axis=0), b.min(axis=0))
        ranges[ranges == 0] = 1.0
        cand_blocks.append(a / ranges)
        query_blocks.append(b / ranges)
    for c in ctypes["cat"]:
        both = np.concatenate(
            [candidates[c].to_numpy(dtype=object), queries[c].to_numpy(dtype=object)]
        )
        codes = pd.factorize(both)[0].astype(np.float64)
        cand_blocks.append(codes[: len(candidates), None])
        query_blocks.append(codes[len(candidates) :, None])
    # candidates one column per row: the search runs down the columns
    cand_t = np.ascontiguousarray(np.hstack(cand_blocks).T)
    query = np.ascontiguousarray(np.hstack(query_blocks))
    k = min(int(n_neighbors), len(candidates))
    return _gower_search()(query, cand_t, len(ctypes["num"]), k)


class _GowerInference:
    """anonymeter's ``KNNInferencePredictor``: each target gets the secret of its closest
    released record, found by ``_gower_neighbors``; an ``inference_model`` for its
    ``InferenceEvaluator``."""

    def __init__(self, syn: pd.DataFrame, aux: Sequence[str], secret: str):
        self._aux = list(aux)
        self._candidates = syn[self._aux]
        self._secret = syn[secret]

    def predict(self, x: pd.DataFrame) -> pd.Series:
        idx = _gower_neighbors(self._candidates, x[self._aux], 1)
        guesses = self._secret.iloc[idx.flatten()]
        guesses.index = x.index
        return guesses


def nearest_record_guesses(
    released: pd.DataFrame,
    people: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    aux: Sequence[str],
    secret: str,
    random_state: np.random.Generator | int | None = 0,
) -> np.ndarray:
    """anonymeter's inference attack on ``people``: each gets the secret of its closest released
    record on the ``aux`` columns (its ``KNNInferencePredictor`` and Gower distance, by
    ``_gower_neighbors``), on one original-domain record per released row drawn from its cells
    (:func:`ppdp.cells.sample_cells`, drawn from ``random_state``), as :func:`anonymeter_risks`
    attacks.

    Parameters
    ----------
    released : DataFrame
        The release: ``aux`` and ``secret`` in any form :mod:`ppdp.cells` reads.
    people : DataFrame
        The attacked people, with their true ``aux`` values.
    domains : mapping str -> AttributeDomain
        Domains of ``aux`` and ``secret``.
    aux : sequence of str
        The columns the attacker knows of each person.
    secret : str
        The column the attacker guesses.
    random_state : None, int >= 0 or numpy.random.Generator, default 0
        The stream of the draw of one record per released row
        (:func:`ppdp.base.check_random_state`): an int seeds a new generator (the same int, the
        same guesses), a Generator is drawn from and advanced, None draws fresh entropy.

    Returns
    -------
    ndarray, shape (len(people),)
        The guesses, one per row of ``people``, as values of ``domains[secret]``.

    Notes
    -----
    The first call on a machine compiles the search with numba (about 10 s); later processes
    load it from numba's cache (``ppdp.attacks.gower_kernel``).

    Examples
    --------
    The attacker knows each person's age and zip and wants his sickness. Ages released in
    ranges of two people leave the exact zip to tell them apart; with the zip hidden too, the
    guesses are right for half the people:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> people = pd.DataFrame({"age": [21, 25, 34, 38, 47, 52], "zip": list("ababab"),
    ...                        "sick": ["no", "yes", "yes", "no", "yes", "yes"]})
    >>> doms = table_domains(people, ["age", "zip", "sick"], numeric=["age"])
    >>> released = people.assign(age=["21-25", "21-25", "34-38", "34-38", "47-52", "47-52"])
    >>> nearest_record_guesses(released, people, domains=doms, aux=["age", "zip"], secret="sick")
    array(['no', 'yes', 'yes', 'no', 'yes', 'yes'], dtype=object)
    >>> nearest_record_guesses(released.assign(zip="{a,b}"), people, domains=doms,
    ...                        aux=["age", "zip"], secret="sick")
    array(['yes', 'no', 'yes', 'yes', 'yes', 'yes'], dtype=object)
    """
    columns = [*aux, secret]
    drawn = sample_cells(released, domains, columns, check_random_state(random_state))
    syn = _anonymeter_frame(drawn, domains, columns)
    queries = _anonymeter_frame(people, domains, list(aux))
    idx = _gower_neighbors(syn[list(aux)], queries, 1).ravel()
    return drawn[secret].to_numpy()[idx]


def _linked(
    ori: pd.DataFrame,
    syn: pd.DataFrame,
    n_attacks: int,
    aux_cols: tuple[list[str], list[str]],
    n_neighbors: int,
) -> int:
    """Targets linked by anonymeter's linkability attack (its ``_linkability_attack`` and
    ``count_links``): ``n_attacks`` targets drawn from ``ori`` by pandas' ``sample`` (numpy's
    legacy state), each half of ``aux_cols`` searched with ``_gower_neighbors``."""
    from anonymeter.evaluators.linkability_evaluator import LinkabilityIndexes

    targets = ori.sample(n_attacks, replace=False)
    idx_0, idx_1 = (_gower_neighbors(syn[cols], targets[cols], n_neighbors) for cols in aux_cols)
    return LinkabilityIndexes(idx_0=idx_0, idx_1=idx_1).count_links(n_neighbors=n_neighbors)


def _count_matches(frame, queries: list) -> np.ndarray:
    import polars as pl

    if not queries:
        return np.zeros(0, dtype=np.int64)
    counts = frame.select([q.cast(pl.Int64).sum().alias(f"q{i}") for i, q in enumerate(queries)])
    return np.asarray(counts.row(0), dtype=np.int64)


def _singling_out_results(
    ori: pd.DataFrame,
    syn: pd.DataFrame,
    control: pd.DataFrame,
    n_attacks: int,
    rng: np.random.Generator,
    polars_seed: int,
):
    """anonymeter's univariate singling-out evaluation, made reproducible.

    ``SinglingOutEvaluator.evaluate(mode="univariate")`` lists its candidate queries (extreme
    values, values that occur once) in the order of a polars ``group_by``, which changes from run
    to run, and truncates the shuffled list at ``n_attacks``; its random baseline draws values in
    the order of a polars ``unique``. Here the same candidates (anonymeter's
    ``univariate_singling_out_queries``) are sorted before the seeded shuffle, the baseline
    draws from sorted values, and polars' sampling for the control-size correction
    (anonymeter's ``fit_correction_term``) is seeded. Success counts, the correction and the
    confidence intervals are anonymeter's.
    """
    import operator

    import polars as pl
    from anonymeter.evaluators.singling_out_evaluator import (
        fit_correction_term,
        univariate_singling_out_queries,
    )
    from anonymeter.stats.confidence import EvaluationResults

    ori_pl = pl.DataFrame(ori).unique(maintain_order=True)
    syn_pl = pl.DataFrame(syn).unique(maintain_order=True)
    control_pl = pl.DataFrame(control).unique(maintain_order=True)
    # every candidate: two extremes per numeric column and the values met once
    bound = len(syn_pl) * syn_pl.width + 3 * syn_pl.width + 1
    candidates = univariate_singling_out_queries(
        df=syn_pl, n_queries=bound, rng=np.random.default_rng(0)
    )
    candidates = sorted(candidates, key=str)
    order = rng.permutation(len(candidates))[:n_attacks]
    queries = [candidates[i] for i in order.tolist()]
    n_success = int((_count_matches(ori_pl, queries) == 1).sum())

    # the random baseline: one column, one of its values, one operator per query
    columns = list(syn_pl.columns)
    numeric_ops = (operator.eq, operator.ne, operator.gt, operator.lt, operator.ge, operator.le)
    baseline = []
    picks = rng.integers(len(columns), size=n_attacks)
    # each picked column's sorted values and operators, found once per column
    choices: dict[str, tuple[list, tuple]] = {}
    for j in picks.tolist():
        col = columns[j]
        if col not in choices:
            numeric = syn_pl.schema[col].is_numeric()
            choices[col] = (
                sorted(syn_pl[col].unique().to_list()),
                numeric_ops if numeric else numeric_ops[:2],
            )
        values, ops = choices[col]
        value = values[int(rng.integers(len(values)))]
        baseline.append(ops[int(rng.integers(len(ops)))](pl.col(col), value))
    n_baseline = int((_count_matches(ori_pl, baseline) == 1).sum())

    n_control: float = float((_count_matches(control_pl, queries) == 1).sum())
    if n_control > 0 and len(control_pl) != len(ori_pl):
        # anonymeter's correction for a control set of another size, on seeded polars samples
        pl.set_random_seed(polars_seed)
        try:
            model = fit_correction_term(df=control_pl, queries=queries)
        finally:
            pl.set_random_seed(int(np.random.SeedSequence().generate_state(1)[0]))
        n_control *= model(len(ori_pl)) / model(len(control_pl))
    return EvaluationResults(
        n_attacks=n_attacks, n_success=n_success, n_baseline=n_baseline, n_control=n_control
    )


def anonymeter_risks(
    real_train: pd.DataFrame,
    real_control: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
    secret: str,
    aux: Sequence[str] | None = None,
    n_attacks: int = 500,
    random_state: np.random.Generator | int | None = 0,
    evaluators: Sequence[str] = ANONYMETER_EVALUATORS,
) -> pd.DataFrame:
    """anonymeter's inference, linkability and singling-out risks of a release.

    The released table is first read as original-domain records, one per released row, drawn
    from its cells (:func:`ppdp.cells.sample_cells`: a generalized cell gives a value drawn
    uniformly from its region). The three frames are restricted to ``columns``, numeric columns
    (per ``domains``) as floats and the others as strings. Each risk is anonymeter's residual
    risk ``(attack - control) / (1 - control)`` of the success rates of the attack on
    ``real_train`` (records the mechanism saw) and on ``real_control`` (records it did not see),
    with its 95 % confidence interval.

    * ``"inference"``: anonymeter's ``InferenceEvaluator``; the attacker knows ``aux`` of a target
      and guesses ``secret`` from the closest released record (Gower distance); a numeric secret
      is guessed right within 5 %, another exactly.
    * ``"linkability"``: ``LinkabilityEvaluator`` with ``n_neighbors=10`` (fewer if the release
      is smaller); the attacker holds the first half of ``aux`` (``ceil(len/2)`` columns) and the
      second half separately and links them when their 10 closest released records meet.
    * ``"singling_out"``: the univariate singling-out attack (predicates on one column: extreme
      values and values met once in the release) with ``min(n_attacks, 100)`` queries, made
      reproducible as described in the Notes.

    Parameters
    ----------
    real_train : DataFrame
        The real records the release was made from.
    real_control : DataFrame
        Real records of the same population that the release did not see.
    released : DataFrame
        The release; its ``columns`` are read with ``domains``.
    domains : mapping str -> AttributeDomain
        Domains of ``columns`` (:func:`ppdp.cells.table_domains` of the real table).
    columns : sequence of str
        Distinct columns the evaluators look at, ``secret`` among them.
    secret : str
        The column the inference attacker guesses.
    aux : sequence of str, optional
        The attacker's auxiliary columns, among ``columns`` and not ``secret``; by default every
        column of ``columns`` but ``secret``. Linkability needs at least two.
    n_attacks : int, default 500
        Targets of the inference and linkability attacks (at most the rows of each real table).
    random_state : None, int >= 0 or numpy.random.Generator, default 0
        The stream of every random step (:func:`ppdp.base.check_random_state`). The cell draws
        come from it (for an int, ``numpy.random.default_rng(random_state)``); each evaluator
        gets a child of its seed sequence (for an int, of
        ``numpy.random.SeedSequence(random_state)``), which seeds anonymeter's target draws
        (numpy's legacy global state, restored afterwards), the baselines and the singling-out
        queries. polars' global seed is set for the singling-out correction and re-seeded from
        fresh entropy afterwards. The same int gives the same frame; a Generator is drawn from
        and advanced (its seed sequence spawns the children); None draws fresh entropy.
    evaluators : sequence of {"inference", "linkability", "singling_out"}
        The evaluators to run, in this order in the output. Each has its own stream of random
        numbers: its result does not depend on which others run.

    Returns
    -------
    DataFrame
        Columns ``evaluator``, ``metric`` and ``value``; metrics ``risk``, ``ci_low``,
        ``ci_high``, ``attack_rate``, ``baseline_rate`` (the random-guess attacker) and
        ``control_rate`` (anonymeter's Wilson estimates of the success rates).

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it.
    ImportError
        When anonymeter (or polars) is not installed.

    Notes
    -----
    Needs ``anonymeter`` 1.1, which pins numpy < 1.27 and is therefore installed with
    ``--no-deps`` (the Makefile does it; its ``polars``, ``pyarrow`` and ``numba`` are declared
    dependencies of this library). Its "attack is as good or worse as baseline" warnings are
    silenced.

    anonymeter 1.1 is not reproducible by itself: it draws targets from numpy's legacy global
    state (seeded here, then restored), the random linkability baseline from an unseeded
    generator (here the number of random successes is drawn from its exact binomial law), and its
    univariate singling-out queries and their random baseline in the order of polars'
    ``group_by``/``unique``, which changes from run to run. The singling-out attack is therefore
    run here from anonymeter's parts: its candidate queries
    (``univariate_singling_out_queries``) sorted before a seeded shuffle, a baseline drawn from
    sorted values, and its control-size correction (``fit_correction_term``) on polars samples
    seeded with ``polars.set_random_seed``.

    The nearest-neighbour searches of the inference and linkability attacks are anonymeter's,
    run faster (``_gower_neighbors``): the records scaled and encoded as anonymeter does,
    its Gower distance, numba's quicksort order of ties, and every target in one compiled call.
    The neighbours, hence the success counts, are those of its ``InferenceEvaluator`` (given as
    its ``inference_model``) and ``LinkabilityEvaluator`` (its attack, run from its parts).

    The inference ``baseline_rate`` is anonymeter 1.1's: it aligns its random guesses with the
    targets by index label, so it is not the rate of a random guess (it does not enter the risk).
    Linkability is informative only when both halves of ``aux`` single out records: a half of
    a few coarse columns leaves its 10 neighbours to the order of ties.

    Runtime, 2,000 rows in each of the three tables, 5 columns (2 numeric), ``n_attacks=500``,
    one core: about 0.8 s for the three evaluators (inference 0.3 s, linkability 0.4 s,
    singling out 0.1 s), plus about 10 s once per machine for numba to compile anonymeter's
    Gower distance (about 1 s per process to load it from numba's cache afterwards). With a near-unique numeric column (many singling-out queries) and a control
    table of another size (anonymeter's size correction), about 2.6 s.

    Examples
    --------
    The attacker knows the age, zip and sex of real people, some of them in the release and
    some not (the controls), and wants their sickness, to link his partial records or to
    single people out. An unprotected release of 30 records, then the same with age and zip
    generalized to their whole domains:

    >>> import numpy as np, pandas as pd
    >>> from ppdp.cells import table_domains
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"age": rng.integers(20, 70, 60),
    ...                    "zip": rng.choice(["a", "b", "c"], 60),
    ...                    "sex": rng.choice(["F", "M"], 60),
    ...                    "sick": rng.choice(["no", "yes"], 60)})
    >>> doms = table_domains(df, list(df.columns), numeric=["age"])
    >>> train, control = df[:30], df[30:]
    >>> def risks(release):
    ...     out = anonymeter_risks(train, control, release, domains=doms, columns=list(df.columns),
    ...                            secret="sick", n_attacks=30)
    ...     table = out.pivot(index="evaluator", columns="metric", values="value")
    ...     return table[["attack_rate", "control_rate", "risk"]].round(2)
    >>> risks(train)
    metric        attack_rate  control_rate  risk
    evaluator
    inference            0.94          0.47  0.89
    linkability          0.94          0.94  0.00
    singling_out         0.47          0.22  0.32
    >>> risks(train.assign(age="20-69", zip="{a,b,c}"))
    metric        attack_rate  control_rate  risk
    evaluator
    inference            0.56          0.50  0.12
    linkability          0.94          0.94  0.00
    singling_out         0.15          0.31  0.00

    Linkability is 0 on both: with 10 neighbours among 30 released rows, the halves' neighbours
    meet for the controls as often as for the released people.
    """
    caller = "anonymeter_risks"
    check_params(
        {"n_attacks": n_attacks},
        {"n_attacks": [Interval(Integral, 1, None, closed="left")]},
        caller,
    )
    generator = check_random_state(random_state)
    evaluators = _check_choices(evaluators, "evaluators", ANONYMETER_EVALUATORS, caller)
    real_train = check_frame(real_train, "real_train")
    real_control = check_frame(real_control, "real_control")
    released = check_frame(released, "released")
    columns = check_columns(columns, name="columns", caller=caller)
    secret = _check_column_name(secret, "secret", caller)
    if secret not in columns:
        raise ValueError(f"secret={secret!r} must be among columns {columns}")
    if aux is None:
        aux = [c for c in columns if c != secret]
    else:
        aux = check_columns(aux, name="aux", caller=caller)
        outside = [c for c in aux if c not in columns]
        if outside:
            raise ValueError(f"aux columns {outside} are not among columns {columns}")
        if secret in aux:
            raise ValueError(f"secret={secret!r} must not be among the aux columns {aux}")
    if not aux:
        raise ValueError(f"aux is empty: columns {columns} hold no column besides the secret")
    if "linkability" in evaluators and len(aux) < 2:
        raise ValueError(
            f"the linkability evaluator splits aux in two halves and needs at least two aux "
            f"columns, got aux={aux!r}"
        )
    _check_domains(domains, columns, caller)
    for name, frame in (
        ("real_train", real_train),
        ("real_control", real_control),
        ("released", released),
    ):
        check_columns(columns, name="columns", table=frame, table_name=name)
        if frame[columns].isna().any().any():
            raise ValueError(f"{name} has missing values in columns {columns}")

    from anonymeter.evaluators import InferenceEvaluator
    from anonymeter.stats.confidence import EvaluationResults

    syn = _anonymeter_frame(sample_cells(released, domains, columns, generator), domains, columns)
    # for an int seed these are the children of numpy.random.SeedSequence(seed), however many
    # cells were drawn above: the seed sequence is not the generator's state
    streams = generator.bit_generator.seed_seq.spawn(len(ANONYMETER_EVALUATORS))
    train = _anonymeter_frame(real_train, domains, columns)
    control = _anonymeter_frame(real_control, domains, columns)

    rows: list[tuple] = []
    for name in evaluators:
        stream = streams[ANONYMETER_EVALUATORS.index(name)]
        legacy_seed, polars_seed = (int(s) for s in stream.generate_state(2))
        rng = np.random.default_rng(stream)
        with warnings.catch_warnings(), _numpy_global_seed(legacy_seed):
            warnings.simplefilter("ignore", UserWarning)
            if name == "inference":
                ev = InferenceEvaluator(
                    ori=train,
                    syn=syn,
                    aux_cols=list(aux),
                    secret=secret,
                    regression=domains[secret].kind == "numeric",
                    n_attacks=int(n_attacks),
                    control=control,
                    inference_model=_GowerInference(syn, aux, secret),
                )
                results = ev.evaluate(n_jobs=1).results()
            elif name == "linkability":
                n_link = min(int(n_attacks), len(train), len(control))
                k = min(_LINK_NEIGHBORS, len(syn))
                half = (len(aux) + 1) // 2
                halves = (list(aux[:half]), list(aux[half:]))
                # anonymeter's LinkabilityEvaluator draws the targets of the attack on train, then
                # those on control, from numpy's legacy state; its random baseline is unseeded
                # (drawn from rng instead)
                n_success = _linked(train, syn, n_link, halves, k)
                n_control = _linked(control, syn, n_link, halves, k)
                results = EvaluationResults(
                    n_attacks=n_link,
                    n_success=n_success,
                    n_baseline=_link_baseline(len(syn), n_link, k, rng),
                    n_control=n_control,
                )
            else:
                results = _singling_out_results(
                    train, syn, control, min(int(n_attacks), _MAX_SINGLING_OUT), rng, polars_seed
                )
        rows += _risk_rows(name, results)
    return pd.DataFrame(rows, columns=["evaluator", "metric", "value"])


# --------------------------------------------------------------------------------------------
# Record linkage
# --------------------------------------------------------------------------------------------


def record_linkage(
    real: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
) -> float:
    """Share of released rows whose nearest real record is their own original.

    Distance-based record linkage: each released row is linked to the real record closest in
    Euclidean distance on :func:`ppdp.cells.design_matrix` features of ``columns``, each feature
    divided by its standard deviation in ``real`` (a constant feature is left as is); of equally
    close records, the one of lowest position. Row ``i`` of ``released`` is the release of row
    ``i`` of ``real`` (the mechanism keeps the records in order), so the link is correct when it
    points to position ``i``. Real records that are exact duplicates of each other cannot all be
    linked: the first one takes the link.

    Parameters
    ----------
    real : DataFrame
        The real table, in the order of the release.
    released : DataFrame
        The release, one row per row of ``real``.
    domains : mapping str -> AttributeDomain
        Domains of ``columns``.
    columns : sequence of str
        Distinct columns the attacker matches on.

    Returns
    -------
    float
        In [0, 1]; 1/n is the rate of a random guess.

    Raises
    ------
    ValueError
        When ``released`` and ``real`` have different numbers of rows, or a cell cannot be read.
    TypeError
        For arguments of the wrong type.

    Examples
    --------
    The attacker holds the real table and wants to link each released row to its person. Ages
    in ranges of two with the zip exact still link every row; ranges of four and a hidden zip
    leave him a third:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [21, 25, 34, 38, 47, 52], "zip": list("ababab")})
    >>> doms = table_domains(real, ["age", "zip"], numeric=["age"])
    >>> pairs = real.assign(age=["21-25", "21-25", "34-38", "34-38", "47-52", "47-52"])
    >>> record_linkage(real, pairs, domains=doms, columns=["age", "zip"])
    1.0
    >>> coarse = real.assign(age=["21-38"] * 4 + ["47-52"] * 2, zip="{a,b}")
    >>> round(record_linkage(real, coarse, domains=doms, columns=["age", "zip"]), 3)
    0.333
    """
    caller = "record_linkage"
    real = check_frame(real, "real")
    released = check_frame(released, "released")
    columns = check_columns(columns, name="columns", caller=caller)
    _check_domains(domains, columns, caller)
    check_columns(columns, name="columns", table=real, table_name="real")
    check_columns(columns, name="columns", table=released, table_name="released")
    if len(released) != len(real):
        raise ValueError(
            f"released has {len(released)} rows and real has {len(real)}; record_linkage needs "
            "one released row per real row, in the same order"
        )
    x_real = design_matrix(real, domains, columns)
    x_rel = design_matrix(released, domains, columns)
    mean = x_real.mean(axis=0)
    std = x_real.std(axis=0)
    std[std == 0] = 1.0
    x_real = (x_real - mean) / std
    x_rel = (x_rel - mean) / std
    n = len(real)
    # ||a - b||^2 = ||a||^2 - 2 a.b + ||b||^2; ||a||^2 is the same for every candidate b
    norms = np.einsum("ij,ij->i", x_real, x_real)
    block = max(1, _BLOCK_ENTRIES // n)
    hits = 0
    for start in range(0, n, block):
        stop = min(n, start + block)
        # in place, the same numbers as norms - 2.0 * (x_rel @ x_real.T): x + (-2y) is x - 2y
        dist = x_rel[start:stop] @ x_real.T
        dist *= -2.0
        dist += norms[None, :]
        hits += int(np.count_nonzero(np.argmin(dist, axis=1) == np.arange(start, stop)))
    return hits / n
