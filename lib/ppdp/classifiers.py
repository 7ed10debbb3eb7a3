"""The classifier suite the papers train, and one train-then-score evaluation.

IMPOSTER (Yang et al., Security and Safety 2022, Section 5.3) scores a release with XGBoost, GBDT,
random forest, multi-layer perceptron and logistic regression; its detection step (Algorithm 1) asks
one of them whether candidate attributes predict the private one. Both the mechanism and the
utility measures use this module, so it sits below both.

Classifier choices: "MLP" has one hidden layer of 32 units, mini-batches of 512 and early
stopping (at most 50 epochs), which keeps it to seconds on Adult; "GBDT" is scikit-learn's
histogram gradient boosting (the same model family as Friedman's GBDT, much faster on tens of
thousands of rows); every model runs single-threaded (also through ``threadpoolctl``) with its
defaults except where noted in :func:`make_model`. Features: categoricals one-hot, numerics
standardised (trees are indifferent to the scaling). Scores are accuracy (Eq. 17) and binary F1
(Eq. 18) of a chosen positive class.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["CLASSIFIERS", "MODELS", "evaluate_setting", "make_model", "split_frame"]

#: IMPOSTER's classifier suite (Section 5.3), the names :func:`evaluate_setting` takes.
CLASSIFIERS = ("XGBoost", "GBDT", "RF", "MLP", "LR")

#: Every model :func:`make_model` builds: IMPOSTER's suite, then the attackers' models
#: (HyObscure's ``"rf"`` and ``"xgb"``, the benchmark's ``"xgb"`` and ``"lr"``) and SPPM's ROC
#: attackers (``"logistic"``, ``"naive_bayes"``).
MODELS = (*CLASSIFIERS, "rf", "xgb", "lr", "logistic", "naive_bayes")

_TASKS = ("classification", "regression")
_REGRESSORS = ("rf", "xgb")


def _check_seed(random_state: Any) -> int:
    """``random_state`` as the int seed the models and the split take.

    scikit-learn and XGBoost seed themselves from an int; a Generator is refused rather than
    turned into an int, which would draw from it and change what a given int has always built.
    """
    if isinstance(random_state, bool) or not isinstance(random_state, Integral):
        raise TypeError(
            f"random_state must be an int >= 0 (the models' seed); got {random_state!r}"
        )
    if random_state < 0:
        raise ValueError(f"random_state must be an int >= 0; got {random_state!r}")
    return int(random_state)


def make_model(
    name: str,
    *,
    task: str = "classification",
    random_state: int = 0,
    n_estimators: int = 100,
    n_jobs: int = 1,
    n_categories: Any = None,
):
    """An unfitted model of the library, by name: the one place where models are built.

    Parameters
    ----------
    name : str
        One of :data:`MODELS`.

        * IMPOSTER's suite (:data:`CLASSIFIERS`; classification only, ``n_estimators`` and
          ``n_jobs`` not used): ``"XGBoost"``, ``xgboost.XGBClassifier`` (100 trees of depth 6,
          learning rate 0.3); ``"GBDT"``, ``sklearn.ensemble.HistGradientBoostingClassifier``
          (100 iterations, no early stopping); ``"RF"``, ``sklearn.ensemble.RandomForestClassifier``
          (100 trees, at least 2 rows per leaf); ``"MLP"``,
          ``sklearn.neural_network.MLPClassifier`` (see the module docstring); ``"LR"``,
          ``sklearn.linear_model.LogisticRegression`` (at most 1000 iterations).
        * The attackers: ``"rf"``, a random forest of ``n_estimators`` trees; ``"xgb"``, XGBoost
          with ``n_estimators`` trees of depth 6 and learning rate 0.1 (``tree_method="hist"``),
          each a regressor or a classifier by ``task``; ``"lr"``, standardisation then logistic
          regression (at most 1000 iterations).
        * SPPM's ROC attackers: ``"logistic"``, logistic regression on the raw features (at most
          1000 iterations); ``"naive_bayes"``, ``sklearn.naive_bayes.CategoricalNB`` with
          ``min_categories=n_categories``.
    task : {"classification", "regression"}, default "classification"
        Regression is available for ``"rf"`` and ``"xgb"`` (HyObscure's age attackers).
    random_state : int >= 0, default 0
        The seed handed to the model's own ``random_state`` (scikit-learn, XGBoost): the same int
        builds the same model. An int only, not a Generator, since the models seed themselves
        from an int. The logistic regressions and naive Bayes are deterministic and do not use
        it.
    n_estimators : int, default 100
        Trees of ``"rf"`` and ``"xgb"``.
    n_jobs : int, default 1
        Threads of ``"rf"`` and ``"xgb"`` (IMPOSTER's suite always runs on one).
    n_categories : int or array_like of int, optional
        ``min_categories`` of ``"naive_bayes"``.

    Returns
    -------
    estimator
        A scikit-learn-compatible model, not fitted.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`MODELS`, ``task`` is not one of the two tasks or is
        ``"regression"`` for a model without a regressor, or ``random_state`` is a negative int.
    TypeError
        If ``random_state`` is not an int.

    Examples
    --------
    >>> from ppdp.classifiers import make_model
    >>> model = make_model("RF", random_state=1)
    >>> type(model).__name__, model.random_state, model.min_samples_leaf
    ('RandomForestClassifier', 1, 2)
    >>> type(make_model("xgb", task="regression", n_estimators=10)).__name__
    'XGBRegressor'
    >>> make_model("lr").steps[0][0]
    'standardscaler'
    >>> make_model("SVM")
    Traceback (most recent call last):
    ...
    ValueError: model must be one of ('XGBoost', 'GBDT', 'RF', 'MLP', 'LR', 'rf', 'xgb', 'lr', 'logistic', 'naive_bayes'), got 'SVM'
    """
    if name not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {name!r}")
    if task not in _TASKS:
        raise ValueError(f"task must be one of {_TASKS}, got {task!r}")
    if task == "regression" and name not in _REGRESSORS:
        raise ValueError(f"task='regression' needs one of {_REGRESSORS}, got {name!r}")
    seed = _check_seed(random_state)
    if name == "XGBoost":
        from xgboost import XGBClassifier

        return XGBClassifier(
            n_estimators=100,
            max_depth=6,
            learning_rate=0.3,
            tree_method="hist",
            n_jobs=1,
            random_state=seed,
        )
    if name == "GBDT":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=seed)
    if name == "RF":
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(
            n_estimators=100, min_samples_leaf=2, n_jobs=1, random_state=seed
        )
    if name == "MLP":
        from sklearn.neural_network import MLPClassifier

        return MLPClassifier(
            hidden_layer_sizes=(32,),
            batch_size=512,
            max_iter=50,
            early_stopping=True,
            n_iter_no_change=5,
            random_state=seed,
        )
    if name in ("LR", "logistic"):
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)
    if name == "rf":
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

        cls = RandomForestRegressor if task == "regression" else RandomForestClassifier
        return cls(n_estimators=n_estimators, random_state=seed, n_jobs=n_jobs)
    if name == "xgb":
        import xgboost as xgb

        cls = xgb.XGBRegressor if task == "regression" else xgb.XGBClassifier
        return cls(
            n_estimators=n_estimators,
            max_depth=6,
            learning_rate=0.1,
            random_state=seed,
            n_jobs=n_jobs,
            tree_method="hist",
            verbosity=0,
        )
    if name == "lr":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    from sklearn.naive_bayes import CategoricalNB

    return CategoricalNB(min_categories=n_categories)


def split_frame(
    df: pd.DataFrame,
    *,
    test_size: float = 0.3,
    random_state: int = 0,
    stratify: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random train/test split (stratified on a column if given), indices reset.

    Parameters
    ----------
    df : pandas.DataFrame
        The table to split, at least 4 rows.
    test_size : float, default 0.3
        The share of rows in the test part, in ``(0, 1)``.
    random_state : int >= 0, default 0
        The ``random_state`` of ``sklearn.model_selection.train_test_split``, an int seed: the
        same int gives the same split.
    stratify : str, optional
        A column whose class shares both parts keep; ignored (plain random split) when one of its
        classes has fewer than 2 rows.

    Returns
    -------
    train, test : pandas.DataFrame
        The two parts, each with a fresh ``RangeIndex``.

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame, or ``random_state`` is not an int.
    ValueError
        If ``df`` has fewer than 4 rows, ``test_size`` is outside ``(0, 1)``, ``random_state`` is
        negative or ``stratify`` is not a column of ``df``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": range(22, 82, 3), "income": ["low"] * 10 + ["high"] * 10})
    >>> train, test = split_frame(df, test_size=0.25, random_state=0, stratify="income")
    >>> len(train), len(test), test["income"].value_counts().to_dict()
    (15, 5, {'high': 3, 'low': 2})
    >>> test.index.tolist()
    [0, 1, 2, 3, 4]
    """
    from sklearn.model_selection import train_test_split

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if len(df) < 4:
        raise ValueError(f"df needs at least 4 rows to split, got {len(df)}")
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must lie in (0, 1), got {test_size!r}")
    seed = _check_seed(random_state)
    strat = None
    if stratify is not None:
        if stratify not in df.columns:
            raise ValueError(f"stratify column {stratify!r} is not in the table")
        counts = df[stratify].value_counts()
        strat = df[stratify] if counts.min() >= 2 else None
    train, test = train_test_split(df, test_size=test_size, random_state=seed, stratify=strat)
    return train.reset_index(drop=True), test.reset_index(drop=True)


def _design(train: pd.DataFrame, test: pd.DataFrame, features: Sequence[str]):
    """One-hot categoricals (categories of both frames) and standardised numerics."""
    numeric = [
        c
        for c in features
        if pd.api.types.is_numeric_dtype(train[c]) and not pd.api.types.is_bool_dtype(train[c])
    ]
    categorical = [c for c in features if c not in numeric]
    parts_train, parts_test = [], []
    if numeric:
        a = train[numeric].to_numpy(dtype=float)
        b = test[numeric].to_numpy(dtype=float)
        mean, std = a.mean(axis=0), a.std(axis=0)
        std = np.where(std > 0, std, 1.0)
        parts_train.append((a - mean) / std)
        parts_test.append((b - mean) / std)
    for col in categorical:
        cats = pd.unique(pd.concat([train[col], test[col]], ignore_index=True).astype(str))
        cats = np.sort(cats)
        ca = pd.Categorical(train[col].astype(str), categories=cats).codes
        cb = pd.Categorical(test[col].astype(str), categories=cats).codes
        parts_train.append(np.eye(len(cats))[ca])
        parts_test.append(np.eye(len(cats))[cb])
    return np.hstack(parts_train), np.hstack(parts_test)


def evaluate_setting(
    train: pd.DataFrame,
    test: pd.DataFrame,
    *,
    features: Sequence[str],
    target: str,
    classifier: str = "GBDT",
    random_state: int = 0,
    positive: Any = None,
) -> dict[str, float]:
    """Train ``classifier`` on ``train[features] -> train[target]``; accuracy and F1 on ``test``.

    ``positive`` is the class scored by F1 (default: the minority class of ``train[target]``).
    When the training target has a single class the model predicts that class (accuracy and F1
    follow from it), because no classifier can be fitted on one class.

    Parameters
    ----------
    train, test : pandas.DataFrame
        The training and test tables, both holding ``features`` and ``target``. Categorical features
        are one-hot encoded over the categories of both, numeric ones standardised with the mean and
        deviation of ``train``.
    features : sequence of str
        The feature columns, at least one.
    target : str
        The column to predict, not among ``features``; it is scored as ``positive`` against the
        rest.
    classifier : {"XGBoost", "GBDT", "RF", "MLP", "LR"}, default "GBDT"
        The model, built by :func:`make_model`.
    random_state : int >= 0, default 0
        The model's int seed (:func:`make_model`): the same int gives the same scores.
    positive : object, optional
        The class scored as positive (Eq. 18); by default the least frequent class of
        ``train[target]`` (the first in sorted order on a tie).

    Returns
    -------
    dict of str -> float
        ``{"accuracy": ..., "f1": ...}`` on ``test``: accuracy (Eq. 17) and binary F1 of
        ``positive`` (Eq. 18; 0.0 when neither the truth nor the prediction has a positive).

    Raises
    ------
    TypeError
        If ``train`` or ``test`` is not a DataFrame, or ``random_state`` is not an int.
    ValueError
        If ``train`` or ``test`` is empty or lacks a column of ``features`` or ``target``, if
        ``features`` is empty or holds ``target``, if ``classifier`` is not one of
        :data:`CLASSIFIERS`, or if ``random_state`` is negative.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": range(22, 82, 3), "job": ["clerk", "nurse"] * 10})
    >>> df["income"] = np.where(df["age"] >= 50, "high", "low")
    >>> train, test = split_frame(df, test_size=0.25, random_state=0, stratify="income")
    >>> evaluate_setting(train, test, features=["age", "job"], target="income", classifier="LR")
    {'accuracy': 1.0, 'f1': 1.0}
    >>> evaluate_setting(train, test, features=["job"], target="income", classifier="LR")
    {'accuracy': 0.4, 'f1': 0.0}
    """
    return _evaluate_tests(
        train,
        [test],
        features=features,
        target=target,
        classifier=classifier,
        random_state=random_state,
        positive=positive,
    )[0]


def _evaluate_tests(
    train: pd.DataFrame,
    tests: Sequence[pd.DataFrame],
    *,
    features: Sequence[str],
    target: str,
    classifier: str = "GBDT",
    random_state: int = 0,
    positive: Any = None,
) -> list[dict[str, float]]:
    """:func:`evaluate_setting` of one training table against several test tables, in order.

    The scores of each test table are those :func:`evaluate_setting` gives for it. The model is
    fitted once for every test table whose design matrix of ``train`` is the same: that matrix
    depends on the test table only through the categories one-hot encoded (those of both
    tables), and a model fitted on the same matrix, target and seed is the same model. A test
    table bringing a category that ``train`` and the earlier ones lack gets a model of its own.

    Parameters
    ----------
    train : pandas.DataFrame
        The training table.
    tests : sequence of pandas.DataFrame
        The test tables, at least one.
    features, target, classifier, random_state, positive
        As for :func:`evaluate_setting`.

    Returns
    -------
    list of dict of str -> float
        One ``{"accuracy": ..., "f1": ...}`` per test table.

    Raises
    ------
    TypeError, ValueError
        As :func:`evaluate_setting`, for ``train`` and each test table.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import accuracy_score, f1_score
    from threadpoolctl import threadpool_limits

    if len(tests) == 0:
        raise ValueError("tests is empty: give at least one test table")
    for name, frame in (("train", train), *(("test", t) for t in tests)):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
        if len(frame) == 0:
            raise ValueError(f"{name} is empty")
        missing = [c for c in [*features, target] if c not in frame.columns]
        if missing:
            raise ValueError(f"{name} lacks the columns {missing}")
    if not features:
        raise ValueError("features is empty: give at least one feature column")
    if target in features:
        raise ValueError(f"target {target!r} must not be among the features")
    if classifier not in CLASSIFIERS:
        raise ValueError(f"classifier must be one of {CLASSIFIERS}, got {classifier!r}")
    seed = _check_seed(random_state)
    if positive is None:
        counts = train[target].value_counts(sort=False).sort_index()
        positive = counts.idxmin()
    y_train = (train[target] == positive).to_numpy().astype(int)
    fitted: list[tuple[np.ndarray, Any]] = []  # (design of train, model fitted on it)
    scores = []
    for test in tests:
        y_test = (test[target] == positive).to_numpy().astype(int)
        if np.unique(y_train).size < 2:
            pred = np.full(len(test), y_train[0])
        else:
            x_train, x_test = _design(train, test, list(features))
            model = next(
                (m for x, m in fitted if x.shape == x_train.shape and np.array_equal(x, x_train)),
                None,
            )
            fit = model is None
            if fit:
                model = make_model(classifier, random_state=seed)
                if classifier == "MLP":
                    # early stopping holds out 10% for validation; the batch must fit in the rest
                    model.set_params(batch_size=min(512, max(1, int(0.8 * len(x_train)))))
            # one thread: OpenMP/BLAS pools on a shared two-core machine spin far more than they
            # gain
            with threadpool_limits(limits=1), warnings.catch_warnings():
                # an MLP or LR stopped at its iteration cap is still a valid (if weaker) classifier
                warnings.simplefilter("ignore", ConvergenceWarning)
                if fit:
                    model.fit(x_train, y_train)
                    fitted.append((x_train, model))
                pred = np.asarray(model.predict(x_test)).astype(int)
        scores.append(
            {
                "accuracy": float(accuracy_score(y_test, pred)),
                "f1": float(f1_score(y_test, pred, zero_division=0.0)),
            }
        )
    return scores
