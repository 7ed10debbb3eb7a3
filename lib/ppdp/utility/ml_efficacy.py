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
    seed: int = 0,
    feature_map: dict[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Scores of every (setting, target, classifier); long frame with columns
    ``setting, target, classifier, metric, value``.

    ``feature_map`` may give per-target features (default: ``features`` minus the target). The
    positive class of each target is the minority class of ``real_train``.
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
                    seed=seed,
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
