"""The dataset overview: discretization and the NMI matrix, checked against scikit-learn."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import normalized_mutual_info_score

from ppdp.experiments.common import facet_columns, parameter_columns
from ppdp.experiments.datasets_overview.claims import top_nmi
from ppdp.experiments.datasets_overview.run import (
    PrivateView,
    discretize,
    load_view,
    nmi_matrix,
    summarize_view,
)


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


def test_summarize_view_rows_and_top_nmi():
    """The NMI with the private attribute is one row per other attribute, the attribute its
    facet; top_nmi ranks them per dataset."""
    rng = np.random.default_rng(2)
    s = rng.integers(0, 2, 400)
    table = pd.DataFrame(
        {"copy": s, "noisy": (s + (rng.random(400) < 0.2)) % 2, "free": rng.integers(0, 3, 400)}
    ).assign(s=s)
    rows, distribution, matrix = summarize_view(PrivateView("toy", "p", table, "s", "row"), 4)
    nmi = rows[rows["experiment"] == "nmi_with_private"]
    assert facet_columns(rows) == ["attribute"] and "attribute" not in parameter_columns(rows)
    assert sorted(nmi["attribute"]) == ["copy", "free", "noisy"]
    assert set(nmi["bins"]) == {4}
    assert distribution.sum() == pytest.approx(1.0)
    top = top_nmi(rows, n=2)
    assert top["attribute"].tolist() == ["copy", "noisy"]
    assert top["nmi"].iloc[0] == pytest.approx(matrix.loc["s", "copy"]) == pytest.approx(1.0)
