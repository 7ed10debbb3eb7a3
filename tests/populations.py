"""Small synthetic populations shared by the test modules (HyObscure, Mutual Cover)."""

import numpy as np
import pandas as pd

#: Constraints and budget that the 160-user populations below can meet.
SMALL = {"n_groups": 3, "k": 30, "alpha": 100, "l": 3, "beta": 8, "budget": 0.05, "n_clusters": 3}


def hyobscure_population(seed, n=160, n_values=16, m=15, C=3):
    """Users with a private value y, C clusters of activity and m features that depend on both."""
    rng = np.random.default_rng(seed)
    y = rng.integers(20, 20 + n_values, n)
    base = rng.gamma(1.0, 1.0, (C, m))
    clusters = rng.integers(0, C, n)
    X = rng.poisson(base[clusters] * (1 + (y[:, None] > 20 + n_values // 2))) + 0.0
    X[:, 0] += 1.0  # no empty rows
    return X, y, clusters


def census_sample(seed=0, n=200):
    """A random table with the Mutual Cover census sample's columns (QIs and INCWAGE)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "SEX": rng.integers(1, 3, n),
            "AGE": rng.integers(20, 35, n),
            "RELATE": rng.integers(1, 4, n),
            "MARST": rng.integers(1, 4, n),
            "RACE": rng.integers(1, 3, n),
            "EDUC": rng.integers(5, 10, n),
            "UHRSWORK": rng.integers(35, 45, n),
            "INCWAGE": rng.integers(0, 80, n) * 1000,
        }
    )
