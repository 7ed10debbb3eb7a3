"""Machine-learning efficacy of a released table: train a classifier suite, score accuracy and F1.

The suite and the settings follow the IMPOSTER paper (Yang et al., Security and Safety 2022,
Section 5.3): XGBoost, GBDT, random forest, multi-layer perceptron and logistic regression, and

- Setting A: train on real records, test on real records;
- Setting B: train on released (synthetic or perturbed) records, test on released records;
- Setting C: train on released records, test on real records (absent from the paper; it is what
  a data consumer who trains on the release and deploys on real data gets).

Scores are accuracy (Eq. 17) and binary F1 (Eq. 18) of a chosen positive class (by default the
minority class of the real training target, e.g. "Female" for sex and ">50K" for income on Adult).

The classifiers, their settings and the single evaluation are those of :mod:`ppdp.classifiers`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ppdp.classifiers import CLASSIFIERS, evaluate_setting

__all__ = ["SETTINGS", "ml_efficacy"]

#: The settings of :func:`ml_efficacy`: A trains and tests on real records, B on released ones,
#: C trains on released records and tests on real ones.
SETTINGS = ("A", "B", "C")


def ml_efficacy(
    real_train: pd.DataFrame,
    real_test: pd.DataFrame,
    released_train: pd.DataFrame | None = None,
    released_test: pd.DataFrame | None = None,
    *,
    features: Sequence[str],
    targets: Sequence[str],
    classifiers: Sequence[str] = CLASSIFIERS,
    settings: Sequence[str] = SETTINGS,
    random_state: int = 0,
    feature_map: dict[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Scores of every (setting, target, classifier); long frame with columns
    ``setting, target, classifier, metric, value``.

    ``feature_map`` may give per-target features (default: ``features`` minus the target). The
    positive class of each target is the minority class of ``real_train``.

    Parameters
    ----------
    real_train, real_test : DataFrame
        Real records to train and to test on (settings A and C test on ``real_test``).
    released_train, released_test : DataFrame, optional
        Released records; ``released_train`` is needed by settings B and C, ``released_test``
        by B.
    features : sequence of str
        Feature columns (numeric ones standardised, the others one-hot encoded).
    targets : sequence of str
        Columns predicted in turn, each from the features other than itself.
    classifiers : sequence of str, default all of ``ppdp.classifiers.CLASSIFIERS``
        Names among ``"XGBoost"``, ``"GBDT"``, ``"RF"``, ``"MLP"``, ``"LR"``.
    settings : sequence of str, default :data:`SETTINGS`
        Drawn from ``"A"``, ``"B"``, ``"C"``.
    random_state : int >= 0, default 0
        The classifiers' int seed (:func:`ppdp.classifiers.make_model`): the same int gives the
        same scores.
    feature_map : dict of str to sequence of str, optional
        Features of each target listed, in place of ``features``.

    Returns
    -------
    DataFrame
        One row per (setting, target, classifier, metric), ``metric`` being ``"accuracy"`` or
        ``"f1"`` and ``value`` a float in ``[0, 1]``.

    Raises
    ------
    ValueError
        For a setting not in :data:`SETTINGS`, settings B or C without ``released_train``, B
        without ``released_test``, an unknown classifier, or a table that is empty or lacks a
        feature or target column.
    TypeError
        For a table that is not a DataFrame.

    Examples
    --------
    Income is high when age plus weekly hours exceed 85; the release perturbs the ages by up to
    5 years, which on these 40 records costs no accuracy. Logistic regression only, to keep the
    example fast:

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> real = pd.DataFrame({"age": rng.integers(20, 60, 40), "hours": rng.integers(20, 60, 40)})
    >>> real["income"] = np.where(real["age"] + real["hours"] > 85, ">50K", "<=50K")
    >>> released = real.assign(age=real["age"] + rng.integers(-5, 6, 40))
    >>> scores = ml_efficacy(real[:24], real[24:], released[:24], released[24:],
    ...                      features=["age", "hours"], targets=["income"], classifiers=["LR"])
    >>> scores.columns.tolist()
    ['setting', 'target', 'classifier', 'metric', 'value']
    >>> scores.pivot(index="setting", columns="metric", values="value").round(3)
    metric   accuracy     f1
    setting
    A           0.875  0.875
    B           0.875  0.875
    C           0.875  0.875
    """
    for s in settings:
        if s not in SETTINGS:
            raise ValueError(f"settings must be drawn from {SETTINGS}, got {s!r}")
    if any(s in ("B", "C") for s in settings) and released_train is None:
        raise ValueError("settings B and C need released_train")
    if "B" in settings and released_test is None:
        raise ValueError("setting B needs released_test")
    rows = []
    for target in targets:
        feats = (
            list(feature_map[target]) if feature_map and target in feature_map else list(features)
        )
        feats = [c for c in feats if c != target]
        positive = real_train[target].value_counts(sort=False).sort_index().idxmin()
        pairs = {
            "A": (real_train, real_test),
            "B": (released_train, released_test),
            "C": (released_train, real_test),
        }
        for setting in settings:
            train, test = pairs[setting]
            for clf in classifiers:
                scores = evaluate_setting(
                    train,
                    test,
                    features=feats,
                    target=target,
                    classifier=clf,
                    random_state=random_state,
                    positive=positive,
                )
                for metric, value in scores.items():
                    rows.append(
                        {
                            "setting": setting,
                            "target": target,
                            "classifier": clf,
                            "metric": metric,
                            "value": value,
                        }
                    )
    return pd.DataFrame(rows)
