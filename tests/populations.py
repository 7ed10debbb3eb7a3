"""Small synthetic populations shared by the HyObscure test modules."""

import numpy as np

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
