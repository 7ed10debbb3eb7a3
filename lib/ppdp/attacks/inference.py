"""Attribute inference attacks with trained models (HyObscure Sect. IV-A2/A3).

An attacker learns to predict a user's exact private value from published data (features and
generalized value). Two models are available, Random Forest and XGBoost, and two tasks:
regression scored by the mean absolute error (age) and classification scored by ``1 - accuracy``
(home cell). Larger scores mean better privacy protection.

Scenario I: the model is trained on a few users' *real* data (exact features and their generalized
value) and applied to the published data of other users. Scenario II: the model is trained on the
*published* (obscured) data of a few users whose exact private value the attacker also knows, and
applied to the published data of the remaining users.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ppdp.classifiers import make_model

__all__ = ["InferenceAttack", "attack_score"]

_MODELS = ("rf", "xgb")
_TASKS = ("regression", "classification")


def _design(features: Any, groups: Any) -> np.ndarray:
    X = np.asarray(features, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"features must be 2-D; got shape {X.shape}")
    if groups is None:
        return X
    g = np.asarray(groups, dtype=np.float64)
    if g.shape != (X.shape[0],):
        raise ValueError(
            f"groups must have one entry per row of features; got {g.shape} for {X.shape[0]} rows"
        )
    return np.column_stack([X, g])


class InferenceAttack:
    """A trained attribute-inference model.

    Parameters
    ----------
    model : {"rf", "xgb"}
    task : {"regression", "classification"}
    random_state : int >= 0, default 0
        The model's int seed (:func:`ppdp.classifiers.make_model` hands it to scikit-learn or
        XGBoost): the same int trains the same model.
    n_estimators : int
    n_jobs : int
        The arguments of :func:`ppdp.classifiers.make_model`, checked when the attack is made.

    Raises
    ------
    ValueError, TypeError
        For an unknown ``model`` or ``task``, or a ``random_state`` that is not an int >= 0.

    Examples
    --------
    Scenario I: the attacker knows the exact features, generalized age and exact age of 30
    users, and wants the exact age of 10 others from their features and generalized age:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> features = rng.integers(0, 5, (40, 2))
    >>> age = 20 + 5 * features[:, 0] + features[:, 1]
    >>> group = (age >= 30).astype(int)  # the generalized age: under 30, or 30 and over
    >>> attack = InferenceAttack("rf", "regression", random_state=0, n_estimators=10)
    >>> attack = attack.fit(features[:30], group[:30], age[:30])
    >>> attack.predict(features[30:], group[30:]).shape
    (10,)
    >>> round(attack.score(features[30:], group[30:], age[30:]), 2)  # mean absolute error
    0.32
    """

    def __init__(
        self,
        model: str = "rf",
        task: str = "regression",
        random_state: int = 0,
        n_estimators: int = 100,
        n_jobs: int = 1,
    ):
        self.model = model
        self.task = task
        self.random_state = random_state
        self.n_estimators = n_estimators
        self.n_jobs = n_jobs
        if model not in _MODELS:
            raise ValueError(f"model must be one of {_MODELS}; got {model!r}")
        # checks task and random_state when the attack is made, not at fit
        make_model(model, task=task, random_state=random_state, n_estimators=n_estimators)

    def fit(self, features: Any, groups: Any, y: Any) -> InferenceAttack:
        """Train on (features, generalized value) -> exact private value."""
        X = _design(features, groups)
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have one entry per row of features; got {y.shape}")
        est = make_model(
            self.model,
            task=self.task,
            random_state=self.random_state,
            n_estimators=self.n_estimators,
            n_jobs=self.n_jobs,
        )
        if self.task == "classification":
            self.classes_, codes = np.unique(y, return_inverse=True)
            est.fit(X, codes)
        else:
            est.fit(X, y.astype(np.float64))
        self.estimator_ = est
        return self

    def predict(self, features: Any, groups: Any) -> np.ndarray:
        X = _design(features, groups)
        pred = self.estimator_.predict(X)
        if self.task == "classification":
            return self.classes_[np.asarray(pred, dtype=np.int64)]
        return np.asarray(pred, dtype=np.float64)

    def score(self, features: Any, groups: Any, y: Any) -> float:
        """Privacy score: MAE (regression) or 1 - accuracy (classification)."""
        return attack_score(np.asarray(y), self.predict(features, groups), self.task)


def attack_score(y_true: np.ndarray, y_pred: np.ndarray, task: str) -> float:
    """MAE for regression, ``1 - accuracy`` for classification.

    The attack's privacy score: larger means better protection.

    Parameters
    ----------
    y_true : ndarray
        The exact private values.
    y_pred : ndarray
        The attacker's predictions, same shape.
    task : {"regression", "classification"}

    Returns
    -------
    float
        The mean absolute error, or the share of wrong predictions.

    Raises
    ------
    ValueError
        When the arrays are empty or of different shapes, or for an unknown ``task``.

    Examples
    --------
    >>> import numpy as np
    >>> attack_score(np.array([30, 40]), np.array([32, 37]), "regression")
    2.5
    >>> y_true, y_pred = np.array(["a", "b", "b"]), np.array(["a", "a", "b"])
    >>> round(attack_score(y_true, y_pred, "classification"), 3)
    0.333
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.size == 0:
        raise ValueError(
            f"y_true and y_pred must be non-empty and of equal shape; got {y_true.shape}, {y_pred.shape}"
        )
    if task == "regression":
        return float(np.mean(np.abs(y_true.astype(np.float64) - y_pred.astype(np.float64))))
    if task == "classification":
        return float(1.0 - np.mean(y_true == y_pred))
    raise ValueError(f"task must be one of {_TASKS}; got {task!r}")
