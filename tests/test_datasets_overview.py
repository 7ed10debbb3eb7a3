"""The dataset overview: discretization and the NMI matrix, checked against scikit-learn."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import normalized_mutual_info_score

from ppdp.experiments.datasets_overview import discretize, load_view, nmi_matrix


def test_discretize_keeps_dominant_value_apart():
    column = pd.Series([0] * 90 + list(range(1, 11)), name="gain")
    codes = discretize(column, 8)
    assert set(codes[:90]) == {0}
    assert set(codes[90:]) == {1}


def test_discretize_equal_frequency_on_continuous():
    column = pd.Series(np.random.default_rng(0).normal(size=800))
    counts = discretize(column, 8).value_counts()
    assert len(counts) == 8 and counts.min() >= 90


def test_discretize_categories_and_few_values_unchanged():
    assert discretize(pd.Series(["b", "a", "b"]), 4).tolist() == [1, 0, 1]
    assert discretize(pd.Series([3, 1, 3]), 4).tolist() == [1, 0, 1]


def test_discretize_errors():
    with pytest.raises(ValueError, match="bins must be at least 2"):
        discretize(pd.Series([1, 2]), 1)
    with pytest.raises(ValueError, match="missing values"):
        discretize(pd.Series([float(i) for i in range(20)] + [np.nan], name="x"), 4)


def test_nmi_matrix_matches_sklearn():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, 500)
    frame = pd.DataFrame(
        {"a": a, "b": (a + rng.integers(0, 2, 500)) % 4, "c": rng.normal(size=500)}
    )
    matrix = nmi_matrix(frame, 6)
    assert np.allclose(matrix.to_numpy(), matrix.to_numpy().T)
    assert np.allclose(np.diag(matrix), 1.0)
    expected = normalized_mutual_info_score(frame["a"], discretize(frame["c"], 6))
    assert matrix.loc["a", "c"] == pytest.approx(expected, abs=1e-12)


def test_unknown_view():
    with pytest.raises(ValueError, match="has no overview"):
        load_view("nope")
