"""Implicit-privacy detection: Definition 2 and Algorithm 1 (Section 4.2.1).

:func:`attribute_correlations` scores every public attribute against the explicit private
attribute ``s``; :func:`detect_implicit_privacy` keeps those scoring at least ``theta`` and, given
``beta``, checks with a classifier that they predict ``s``. The package docstring says which score
is used (Eq. 7 as printed is a distance) and how wide numeric attributes are binned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, check_params
from ppdp.infotheory import (
    conditional_entropy_from_samples,
    contingency,
    joint_entropy,
    normalized_mutual_information_from_samples,
)

from .checks import (
    _POSITIVE_INT,
    _UNIT,
    _check_columns,
    _check_values,
    _is_numeric,
    _training_seed,
    check_private_attribute,
)

#: The correlations ``rho`` of Definition 2 (``detect_implicit_privacy(correlation=...)``).
CORRELATIONS = ("nmi", "pearson")


def discretize_for_information(
    series: pd.Series, n_bins: int = 10, max_categories: int = 20
) -> np.ndarray:
    """Labels used for information measures: categories as they are, wide numerics in quantile bins.

    A numeric column with more than ``max_categories`` distinct values is replaced by the index of
    its quantile bin (``n_bins`` bins, ties kept together, so there may be fewer).

    Parameters
    ----------
    series : pandas.Series
        One attribute, without missing or infinite values.
    n_bins : int
        Number of quantile bins of a wide numeric column.
    max_categories : int
        A numeric column with at most this many distinct values is kept as it is.

    Returns
    -------
    numpy.ndarray (n,)
        The values themselves, or the bin index (from 0) of every value.

    Raises
    ------
    ValueError
        If the series has missing or infinite values.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from ppdp.mechanisms.imposter import discretize_for_information
    >>> bins = discretize_for_information(pd.Series(np.arange(30)), n_bins=3)
    >>> np.bincount(bins).tolist()
    [10, 10, 10]
    >>> discretize_for_information(pd.Series(["nurse", "clerk", "nurse"])).tolist()
    ['nurse', 'clerk', 'nurse']
    """
    _check_values(series, series.name)
    if _is_numeric(series) and series.nunique() > max_categories:
        return _quantile_bins(series.to_numpy(dtype=float), n_bins)
    return series.to_numpy()


def _quantile_bins(values: np.ndarray, n_bins: int) -> np.ndarray:
    # bins (e_{i-1}, e_i]: a value equal to an edge falls in the lower bin, so a zero-inflated
    # column keeps "0" apart from "> 0" even when most quantiles are 0
    edges = np.unique(np.quantile(values, np.linspace(0, 1, n_bins + 1)[1:-1]))
    return np.searchsorted(edges, values, side="left")


def attribute_correlations(
    df: pd.DataFrame,
    private: str,
    *,
    columns: Sequence[str] | None = None,
    label: str | None = None,
    average: str = "arithmetic",
    n_bins: int = 10,
    max_categories: int = 20,
) -> pd.DataFrame:
    """Correlation of every attribute with the private one (Algorithm 1, lines 2-3).

    Parameters
    ----------
    df : pandas.DataFrame
        The public attributes, the private attribute and maybe the label.
    private : str
        The binary explicit private attribute ``s`` (:func:`check_private_attribute`).
    columns : sequence of str, optional
        The attributes to score; None: every column but ``private`` and ``label``.
    label : str, optional
        The class label, not scored (it is not a public attribute).
    average : {"arithmetic", "geometric", "min", "max"}
        The mean of ``H(x)`` and ``H(s)`` that normalizes the NMI.
    n_bins, max_categories : int
        How wide numeric attributes are binned (:func:`discretize_for_information`).

    Returns
    -------
    pandas.DataFrame indexed by attribute, sorted by decreasing NMI, with columns
        ``nmi``: ``I(x; s) / avg(H(x), H(s))`` in [0, 1] (the score the text describes);
        ``eq7_printed``: ``(H(x|s) + H(s|x)) / H(x, s)`` as printed in Eq. (7), a distance;
        ``mi_bits``: ``I(x; s)`` in bits; ``pearson``: absolute Pearson correlation (see module doc).

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame, or ``private``, ``label`` or ``columns`` are not column
        names.
    ValueError
        If :func:`check_private_attribute` refuses ``private`` or ``label``, a listed column is
        missing or is ``private``, no column is left to score, a value is missing or infinite,
        or ``n_bins`` (< 2), ``max_categories`` (< 1) or ``average`` is out of range.

    Examples
    --------
    The job tells the sex exactly here; the hours barely:

    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58] * 3,
    ...     "job": ["nurse", "clerk", "nurse", "driver", "clerk", "nurse", "driver", "clerk"] * 3,
    ...     "hours": [40, 40, 30, 30] * 6,
    ...     "sex": ["F", "M", "F", "M", "M", "F", "M", "M"] * 3,
    ...     "income": ["low", "high"] * 12,
    ... })
    >>> from ppdp.mechanisms.imposter import attribute_correlations
    >>> attribute_correlations(df, "sex", label="income").round(3)
                 nmi  eq7_printed  mi_bits  pearson
    attribute
    job        0.759        0.389    0.954    1.000
    age        0.483        0.682    0.954    0.348
    hours      0.050        0.974    0.049    0.258
    """
    values = check_private_attribute(df, private, label)
    exclude = [private] if label is None else [private, label]
    cols = _check_columns(df, columns, exclude)
    check_params(
        {"n_bins": n_bins, "max_categories": max_categories},
        {"n_bins": [Interval(Integral, 2, None, closed="left")], "max_categories": _POSITIVE_INT},
        "attribute_correlations",
    )
    n_bins, max_categories = int(n_bins), int(max_categories)
    s = df[private].to_numpy()
    s01 = (s == values[1]).astype(float)
    rows = []
    for col in cols:
        x = discretize_for_information(df[col], n_bins=n_bins, max_categories=max_categories)
        nmi = normalized_mutual_information_from_samples(x, s, average=average)
        h_xs = joint_entropy(contingency(x, s))
        h_x_given_s = conditional_entropy_from_samples(x, s)
        h_s_given_x = conditional_entropy_from_samples(s, x)
        eq7 = (h_x_given_s + h_s_given_x) / h_xs if h_xs > 0 else 0.0
        mi = h_xs - h_x_given_s - h_s_given_x
        rows.append(
            {
                "attribute": col,
                "nmi": nmi,
                "eq7_printed": eq7,
                "mi_bits": max(mi, 0.0),
                "pearson": _abs_pearson(df[col], s01),
            }
        )
    out = pd.DataFrame(rows).set_index("attribute")
    return out.sort_values("nmi", ascending=False, kind="mergesort")


def _abs_pearson(series: pd.Series, s01: np.ndarray) -> float:
    if _is_numeric(series):
        x = series.to_numpy(dtype=float)[:, None]
    else:
        x = pd.get_dummies(series.astype(str)).to_numpy(dtype=float)
    xc = x - x.mean(axis=0)
    sc = s01 - s01.mean()
    denom = np.sqrt((xc**2).sum(axis=0) * (sc**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(denom > 0, (xc * sc[:, None]).sum(axis=0) / np.where(denom > 0, denom, 1), 0.0)
    return float(np.max(np.abs(r))) if r.size else 0.0


@dataclass
class DetectionResult:
    """Outcome of Algorithm 1.

    Attributes
    ----------
    scores : pandas.DataFrame
        From :func:`attribute_correlations`, plus a boolean ``selected`` column.
    candidates : list of str
        Attributes with ``rho(x_i, s) >= theta`` (``x_p`` of Definition 2).
    implicit : list of str
        The implicit-privacy attribute set ``P_set``: ``candidates`` if the check passed (or no
        ``beta`` was given), otherwise empty.
    performance : float or None
        ``tau(f(x_p), s)`` on a held-out split, or ``None`` when not checked.
    theta, beta, correlation, metric
        The settings used.
    details : dict
        Room for more (empty from :func:`detect_implicit_privacy`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58] * 3,
    ...     "job": ["nurse", "clerk", "nurse", "driver", "clerk", "nurse", "driver", "clerk"] * 3,
    ...     "hours": [40, 40, 30, 30] * 6,
    ...     "sex": ["F", "M", "F", "M", "M", "F", "M", "M"] * 3,
    ...     "income": ["low", "high"] * 12,
    ... })
    >>> from ppdp.mechanisms.imposter import detect_implicit_privacy
    >>> result = detect_implicit_privacy(df, "sex", label="income", theta=0.5)
    >>> type(result).__name__, result.candidates, result.implicit, result.performance
    ('DetectionResult', ['job'], ['job'], None)
    >>> result.scores["selected"].tolist()
    [True, False, False]
    """

    scores: pd.DataFrame
    candidates: list[str]
    implicit: list[str]
    performance: float | None
    theta: float
    beta: float | None
    correlation: str
    metric: str
    details: dict = field(default_factory=dict)


_DETECTION_CONSTRAINTS = {
    "correlation": [StrOptions(CORRELATIONS)],
    "theta": _UNIT,
    "beta": [*_UNIT, None],
    "test_size": [Interval(Real, 0, 1, closed="neither")],
    "random_state": [None, Interval(Integral, 0, None, closed="left"), np.random.Generator],
    "metric": [StrOptions(("accuracy", "f1"))],
}


def detect_implicit_privacy(
    df: pd.DataFrame,
    private: str,
    *,
    theta: float = 0.01,
    beta: float | None = None,
    label: str | None = None,
    columns: Sequence[str] | None = None,
    correlation: str = "nmi",
    metric: str = "accuracy",
    classifier: str = "GBDT",
    test_size: float = 0.3,
    random_state: Any = 0,
    average: str = "arithmetic",
    n_bins: int = 10,
    max_categories: int = 20,
) -> DetectionResult:
    """Algorithm 1: the (theta, beta)-implicit privacy attributes of Definition 2.

    Parameters
    ----------
    df : DataFrame holding the public attributes and the private attribute (and maybe the label).
    private : name of the binary explicit private attribute ``s``.
    theta : correlation threshold; an attribute is a candidate when ``rho(x_i, s) >= theta``.
    beta : performance threshold of Eq. (6); ``None`` skips the classifier check (returns the
        candidates, the usual reading of Fig. 6 and Table 2).
    label : class label, excluded from the candidates (it is not a public attribute).
    correlation : ``"nmi"`` (default) or ``"pearson"``.
    metric : ``"accuracy"`` or ``"f1"`` for ``tau``.
    classifier : name from :data:`ppdp.classifiers.CLASSIFIERS` used as ``f``.
    test_size : share of ``df`` held out to measure ``tau``.
    random_state : None, int or numpy.random.Generator, default 0
        Seeds the held-out split and the classifier: an int is used as the seed, a Generator gives
        one seed drawn from it, None a fresh one.
    columns, average, n_bins, max_categories : as for :func:`attribute_correlations`.

    Returns
    -------
    DetectionResult
        The scores, the candidates, the implicit-privacy set ``P_set`` and the classifier's
        performance (None without ``beta``).

    Raises
    ------
    ValueError
        If a setting is out of range (an ``InvalidParameterError``, also a ``TypeError``), and
        as :func:`attribute_correlations` for the table and its columns.
    TypeError
        As :func:`attribute_correlations`.

    Examples
    --------
    Job and age pass ``theta = 0.1``; a logistic regression on them predicts the sex of the
    held-out rows well enough for ``beta = 0.8``, so both are implicit-privacy attributes:

    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58] * 3,
    ...     "job": ["nurse", "clerk", "nurse", "driver", "clerk", "nurse", "driver", "clerk"] * 3,
    ...     "hours": [40, 40, 30, 30] * 6,
    ...     "sex": ["F", "M", "F", "M", "M", "F", "M", "M"] * 3,
    ...     "income": ["low", "high"] * 12,
    ... })
    >>> from ppdp.mechanisms.imposter import detect_implicit_privacy
    >>> result = detect_implicit_privacy(df, "sex", label="income", theta=0.1, beta=0.8,
    ...                                  classifier="LR")
    >>> result.candidates, result.implicit, result.performance
    (['job', 'age'], ['job', 'age'], 1.0)
    """
    check_params(
        {
            "correlation": correlation,
            "theta": theta,
            "beta": beta,
            "test_size": test_size,
            "random_state": random_state,
            "metric": metric,
        },
        _DETECTION_CONSTRAINTS,
        "detect_implicit_privacy",
    )
    theta = float(theta)
    if beta is not None:
        beta = float(beta)
    scores = attribute_correlations(
        df,
        private,
        columns=columns,
        label=label,
        average=average,
        n_bins=n_bins,
        max_categories=max_categories,
    )
    key = "nmi" if correlation == "nmi" else "pearson"
    scores = scores.assign(selected=scores[key] >= float(theta))
    candidates = [str(a) for a in scores.index[scores["selected"]]]
    performance = None
    if beta is not None and candidates:
        from ppdp.classifiers import evaluate_setting, split_frame

        seed = _training_seed(random_state)
        train, test = split_frame(
            df[[*candidates, private]], test_size=test_size, random_state=seed, stratify=private
        )
        result = evaluate_setting(
            train,
            test,
            features=candidates,
            target=private,
            classifier=classifier,
            random_state=seed,
        )
        performance = float(result[metric])
    if beta is None:
        implicit = list(candidates)
    else:
        implicit = (
            list(candidates) if (performance is not None and performance >= float(beta)) else []
        )
    return DetectionResult(
        scores=scores,
        candidates=candidates,
        implicit=implicit,
        performance=performance,
        theta=float(theta),
        beta=None if beta is None else float(beta),
        correlation=correlation,
        metric=metric,
    )
