"""IMPOSTER: implicit-privacy detection and protection by data generation.

Yang, Wang, Hu, Chen and Jiang, "Implicit privacy preservation: a framework based on data
generation", Security and Safety 1 (2022) 2022008.

Two modules:

Detection (Section 4.2.1, Definition 2, Algorithm 1)
    :func:`attribute_correlations` scores every public attribute ``x_i`` against the explicit
    private attribute ``s``; :func:`detect_implicit_privacy` keeps those with score ``>= theta``
    and, when a performance threshold ``beta`` is given, checks with a classifier ``f`` that the
    kept set predicts ``s`` with accuracy (or F1) ``>= beta``; otherwise it returns the empty set.

    The paper describes the score as normalized mutual information (0 = independent, 1 = perfect
    correlation) but prints Eq. (7) as ``(H(x|s) + H(s|x)) / H(x, s)``, which is a normalized
    *distance* (0 = identical, 1 = independent); it equals ``1 - I(x; s) / H(x, s)``. We select on
    a proper NMI from :mod:`ppdp.infotheory` (``I / mean(H(x), H(s))``, scikit-learn's arithmetic
    normalization) and report the printed formula's value beside it. Numeric attributes with more
    than ``max_categories`` distinct values are cut into ``n_bins`` quantile bins before any
    information measure (plug-in mutual information of a near-unique column is biased up to
    ``H(s)``; the paper does not say how it treated them). Pearson's correlation is offered as the
    alternative ``rho`` of Definition 2 (absolute value; a categorical attribute scores the largest
    absolute point-biserial correlation of its one-hot indicators with ``s``).

Protection (Section 4.2.2, Eqs. 8-13, Algorithm 2), class :class:`Imposter`
    A VAE (encoder ``E``, decoder/generator ``G``; Eq. 8) whose decoder is also the generator of a
    conditional GAN with two discriminators (Eq. 10): ``D1`` tells reconstructions
    ``x~ = G(E(x) | s)`` from generated samples ``x^ = G(z | s)``, both conditioned on ``s``
    (Eq. 11); ``D2`` predicts ``s`` from a generated sample (Eq. 12) and ``G`` is trained to fool it
    with weight ``lambda``. ``lambda = 0`` is the CGAN + VAE the paper compares against.

    Mixed tables: each categorical column is one-hot encoded and decoded by a softmax block
    (reconstruction = cross-entropy); each numeric column is mapped to its empirical CDF value in
    ``(0, 1)`` (mid-ranks), decoded by a sigmoid and mapped back by the inverse empirical CDF, so
    generated numerics are always values seen in training (in range, same dtype). Reconstruction of
    a numeric column is a Gaussian log-likelihood with ``sigma = numeric_sigma``.

Choices where the paper is silent or loose (also stated in the notebook):

- The generated record covers every modelled column (the public attributes and the class label);
  ``s`` is the condition and is drawn from its training marginal when sampling.
- ``E`` and ``G`` take one combined gradient step per batch on Eq. (13) (VAE loss + the generator
  side of Eq. 10) after ``D1`` and ``D2`` took theirs, instead of the three separate ``G`` steps of
  Algorithm 2 (lines 7, 10, 11); the objective is the same.
- ``G`` plays ``D1`` with the non-saturating loss ``-log D1(x^|s)`` (Goodfellow et al. 2014), which
  has the same fixed point as Eq. (3) and does not stall early in training.
- ``G`` plays ``D2`` as written (``privacy_loss="minimax"``: descend ``V2``); ``"confusion"``
  instead pushes ``D2``'s output towards 1/2 (cross-entropy to the uniform label), a common and
  more stable variant.
- Categorical outputs reach ``D1``/``D2`` as softmax probabilities (both the "real"
  reconstructions and the generated samples come out of ``G``, so neither is one-hot); a release
  draws each category from those probabilities.
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, check_params, validate_hyperparameters
from ppdp.base import Mechanism, NotFittedError, check_fitted, check_random_state
from ppdp.guarantees import enforce
from ppdp.infotheory import (
    conditional_entropy_from_samples,
    contingency,
    joint_entropy,
    normalized_mutual_information_from_samples,
)

__all__ = [
    "DetectionResult",
    "Imposter",
    "TableCodec",
    "attribute_correlations",
    "check_private_attribute",
    "detect_implicit_privacy",
    "discretize_for_information",
]

CORRELATIONS = ("nmi", "pearson")
PRIVACY_LOSSES = ("minimax", "confusion")


# ---------------------------------------------------------------------------------------------------
# input checks shared by both modules


def _check_frame(df: Any, name: str = "df") -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0 or df.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {df.shape}); it needs rows and columns")
    duplicated = [c for c, n in Counter(df.columns).items() if n > 1]
    if duplicated:
        raise ValueError(f"{name} has duplicated column names {duplicated}; names must be unique")
    return df


_POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
_UNIT = [Interval(Real, 0, 1, closed="both")]


def _value_kinds(values: np.ndarray) -> list[str]:
    return sorted(
        {
            "number"
            if isinstance(v, numbers.Number) and not isinstance(v, bool | np.bool_)
            else type(v).__name__
            for v in values
        }
    )


def _check_values(series: pd.Series, col: Any, *, allow_mixed: bool = False) -> None:
    """Reject missing and infinite values and (unless ``allow_mixed``) mixed-type columns."""
    if series.isna().any():
        raise ValueError(f"column {col!r} has missing values; fill or drop them first")
    if _is_numeric(series):
        values = series.to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            bad = [float(v) for v in pd.unique(values[~np.isfinite(values)])]
            raise ValueError(f"column {col!r} holds non-finite values {bad}; give finite numbers")
    elif series.dtype == object and not allow_mixed:
        kinds = _value_kinds(pd.unique(series.to_numpy()))
        if len(kinds) > 1:
            raise TypeError(
                f"column {col!r} mixes value types {kinds}; give it one type (e.g. .astype(str))"
            )


def check_private_attribute(df: pd.DataFrame, private: Any, label: Any = None) -> np.ndarray:
    """Validate the explicit private attribute ``s`` (and the label); return ``s``'s two values.

    ``s`` must be a column of ``df``, without missing values, with exactly two distinct values
    (the paper's ``D2`` is a binary classifier). ``label``, if given, must be another column.

    Parameters
    ----------
    df : pandas.DataFrame
        The table, non-empty, with unique column names.
    private : str
        The column of ``s``.
    label : str, optional
        The class label's column.

    Returns
    -------
    numpy.ndarray (2,)
        The two values of ``s``, sorted; the second is the one coded 1.

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame, ``private`` or ``label`` is not a column name (str), or
        ``s`` mixes value types.
    ValueError
        If ``df`` is empty or repeats a column name, ``s`` is not a column, has missing or
        infinite values or not exactly two values, or ``label`` is ``private`` or not a column.

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
    >>> from ppdp.mechanisms.imposter import check_private_attribute
    >>> check_private_attribute(df, "sex", label="income").tolist()
    ['F', 'M']
    >>> check_private_attribute(df, "job")
    Traceback (most recent call last):
    ...
    ValueError: private attribute 'job' must be binary (exactly 2 distinct values), got 3: ['clerk', 'driver', 'nurse']
    """
    df = _check_frame(df)
    if not isinstance(private, str):
        raise TypeError(f"private must be a column name (str), got {private!r}")
    if private not in df.columns:
        raise ValueError(
            f"private attribute {private!r} is not a column; columns are {list(df.columns)}"
        )
    if df[private].isna().any():
        raise ValueError(f"private attribute {private!r} has missing values")
    _check_values(df[private], private)
    values = np.sort(pd.unique(df[private].to_numpy()))
    if len(values) != 2:
        raise ValueError(
            f"private attribute {private!r} must be binary (exactly 2 distinct values), "
            f"got {len(values)}: {list(values[:5])}"
        )
    if label is not None:
        if not isinstance(label, str):
            raise TypeError(f"label must be a column name (str) or None, got {label!r}")
        if label == private:
            raise ValueError(f"label {label!r} must differ from the private attribute {private!r}")
        if label not in df.columns:
            raise ValueError(f"label {label!r} is not a column; columns are {list(df.columns)}")
    return values


def _check_columns(
    df: pd.DataFrame, columns: Sequence[str] | None, exclude: Sequence[str]
) -> list[str]:
    if columns is None:
        cols = [c for c in df.columns if c not in exclude]
    else:
        if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
            raise TypeError(f"columns must be a sequence of column names, got {columns!r}")
        cols = list(columns)
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise ValueError(f"columns {missing} are not in the table; it has {list(df.columns)}")
        clash = [c for c in cols if c in exclude]
        if clash:
            raise ValueError(f"columns {clash} may not include the private attribute")
    if not cols:
        raise ValueError("no attribute left to score besides the private attribute (and label)")
    return cols


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


# ---------------------------------------------------------------------------------------------------
# detection (Algorithm 1)


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
            df[[*candidates, private]], test_size=test_size, seed=seed, stratify=private
        )
        result = evaluate_setting(
            train, test, features=candidates, target=private, classifier=classifier, seed=seed
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


# ---------------------------------------------------------------------------------------------------
# table encoding for the generator


class TableCodec:
    """One-hot categoricals and empirical-CDF numerics, and the way back to a typed table.

    The constructor takes no argument; :meth:`fit` learns every attribute below.

    Attributes
    ----------
    columns_ : list
        The column names, in table order.
    kinds_ : dict
        Column -> ``"categorical"`` or ``"numeric"``.
    categories_ : dict
        Column -> numpy array of its categories (categoricals).
    sorted_values_ : dict
        Column -> its sorted training values (numerics).
    dtypes_ : dict
        Column -> its original dtype.
    blocks_ : list of (column, start, stop)
        The slice of the encoded vector that holds each column.
    width_ : int
        The encoded width.

    Examples
    --------
    A numeric age (one CDF value: mid-ranks of 24 rows) and a job of three categories (one-hot):

    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58] * 3,
    ...     "job": ["nurse", "clerk", "nurse", "driver", "clerk", "nurse", "driver", "clerk"] * 3,
    ...     "hours": [40, 40, 30, 30] * 6,
    ...     "sex": ["F", "M", "F", "M", "M", "F", "M", "M"] * 3,
    ...     "income": ["low", "high"] * 12,
    ... })
    >>> from ppdp.mechanisms.imposter import TableCodec
    >>> codec = TableCodec().fit(df[["age", "job"]])
    >>> codec.blocks_, codec.width_
    ([('age', 0, 1), ('job', 1, 4)], 4)
    >>> encoded = codec.encode(df[["age", "job"]].head(3))
    >>> encoded.tolist()
    [[0.0625, 0.0, 0.0, 1.0], [0.1875, 1.0, 0.0, 0.0], [0.3125, 0.0, 0.0, 1.0]]
    >>> codec.decode(encoded, random_state=0)
       age    job
    0   23  nurse
    1   25  clerk
    2   31  nurse
    """

    def fit(self, df: pd.DataFrame) -> TableCodec:
        """Learn each column's kind, categories or sorted values, and the encoded layout."""
        df = _check_frame(df)
        self.columns_ = list(df.columns)
        self.kinds_, self.categories_, self.sorted_values_, self.dtypes_ = {}, {}, {}, {}
        self.blocks_ = []
        start = 0
        for col in self.columns_:
            series = df[col]
            # categories are ordered by their text, so a column may mix types here
            _check_values(series, col, allow_mixed=True)
            self.dtypes_[col] = series.dtype
            if _is_numeric(series):
                self.kinds_[col] = "numeric"
                self.sorted_values_[col] = np.sort(series.to_numpy())
                width = 1
            else:
                self.kinds_[col] = "categorical"
                # observed categories in a fixed order (by their text, whatever their type)
                observed = pd.unique(series.to_numpy())
                cats = np.asarray(sorted(observed, key=str), dtype=object)
                self.categories_[col] = cats
                width = len(cats)
            self.blocks_.append((col, start, start + width))
            start += width
        self.width_ = start
        return self

    def encode(self, df: pd.DataFrame) -> np.ndarray:
        """Encoded matrix (float32): one-hot blocks and CDF values in (0, 1)."""
        n = len(df)
        out = np.zeros((n, self.width_), dtype=np.float32)
        for col, start, _stop in self.blocks_:
            if col not in df.columns:
                raise ValueError(f"column {col!r} was fitted but is not in the table")
            values = df[col].to_numpy()
            if self.kinds_[col] == "numeric":
                srt = self.sorted_values_[col]
                lo = np.searchsorted(srt, values, side="left")
                hi = np.searchsorted(srt, values, side="right")
                out[:, start] = (lo + hi) / (2.0 * len(srt))
            else:
                cats = self.categories_[col]
                codes = pd.Categorical(values, categories=cats).codes
                if np.any(codes < 0):
                    bad = pd.unique(values[codes < 0])[:5]
                    raise ValueError(f"column {col!r} holds categories unseen in fit: {list(bad)}")
                out[np.arange(n), start + codes] = 1.0
        return out

    def targets(self, df: pd.DataFrame) -> np.ndarray:
        """Integer category codes per categorical column (for the cross-entropy), shape (n, n_cat)."""
        cols = [c for c, _, _ in self.blocks_ if self.kinds_[c] == "categorical"]
        out = np.zeros((len(df), len(cols)), dtype=np.int64)
        for j, col in enumerate(cols):
            out[:, j] = pd.Categorical(df[col].to_numpy(), categories=self.categories_[col]).codes
        return out

    def decode(self, activated: np.ndarray, random_state: Any = None) -> pd.DataFrame:
        """Table from generator outputs: categories drawn from the softmax blocks, numerics by the
        inverse empirical CDF of the sigmoid outputs."""
        rng = check_random_state(random_state)
        n = activated.shape[0]
        data = {}
        for col, start, stop in self.blocks_:
            if self.kinds_[col] == "numeric":
                srt = self.sorted_values_[col]
                u = np.asarray(activated[:, start], dtype=np.float64)
                idx = np.minimum((u * len(srt)).astype(np.int64), len(srt) - 1)
                data[col] = pd.Series(srt[idx]).astype(self.dtypes_[col])
            else:
                probs = np.asarray(activated[:, start:stop], dtype=np.float64)
                cum = np.cumsum(probs, axis=1)
                draw = rng.random(n)[:, None] * cum[:, -1:]
                codes = np.minimum((cum < draw).sum(axis=1), stop - start - 1)
                values = self.categories_[col][codes]
                data[col] = pd.Series(values).astype(self.dtypes_[col])
        return pd.DataFrame(data, columns=self.columns_)


# ---------------------------------------------------------------------------------------------------
# protection (Algorithm 2)


def _torch():
    import torch

    return torch


def _training_seed(random_state: Any) -> int:
    """torch's seed: the int itself, or one int drawn from the Generator (fresh for None)."""
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        check_random_state(random_state)  # an int >= 0
        return int(random_state)
    return int(check_random_state(random_state).integers(2**31 - 1))


class Imposter(Mechanism):
    """Implicit-privacy protection module: VAE + CGAN with a privacy discriminator (Eqs. 8-13).

    Parameters
    ----------
    lam : float >= 0
        Weight ``lambda`` of the privacy game ``V2`` in Eq. (10). 0 gives CGAN + VAE.
    private : str
        The binary explicit private attribute ``s`` (the condition of ``G`` and ``D1``).
    label : str, optional
        The class label; generated with the public attributes (it must differ from ``s``).
    columns : list of str, optional
        The attributes to generate (the implicit-privacy set ``x_p``); None: every column but
        ``private``. The label is added when it is not listed.
    epochs : int >= 1
        Passes over the training table (``n_ite = epochs * ceil(n / batch_size)`` iterations).
    batch_size : int >= 2
        ``m`` of Algorithm 2.
    latent_dim, hidden : int
        Size of ``z`` and of the hidden layers (two per network).
    lr : float
        Adam learning rate of every network (betas 0.5, 0.9).
    numeric_sigma : float
        Standard deviation of the Gaussian reconstruction likelihood of numeric columns.
    privacy_loss : "minimax" or "confusion"
        How ``G`` plays ``D2`` (see module doc).
    n_threads : int in {1, 2}
        Torch intra-op threads used while fitting and sampling.
    progress : bool
        Show a progress bar over epochs.

    Attributes (after :meth:`fit`)
    -------------------------------
    codec_ : TableCodec of the generated columns
    private_, label_, columns_ : names
    private_values_ : the two values of ``s`` (index 1 is coded 1)
    private_prior_ : training frequency of ``s = private_values_[1]``
    history_ : DataFrame, one row per epoch: mean ``recon``, ``kl``, ``d1_loss``, ``g_d1_loss``,
        ``d2_loss``, ``d2_accuracy`` (on generated batches), ``g_loss``.
    encoder_, generator_, d1_, d2_ : the torch modules
    n_fitted_, fitted_columns_, fitted_index_ : size, columns and index of the fitted table
    unmodelled_ : list of the fitted table's columns that are not generated (neither
        ``columns_`` nor ``private_``; empty when every one is generated)

    Release (:meth:`release`, the library protocol of :mod:`ppdp.base`)
    -------------------------------------------------------------------
    ``release(random_state, n=None)`` returns ``n`` synthetic records (default: as many as the
    fitted table) with exactly the fitted table's columns, in its order and with its dtypes. The
    generated columns (``columns_``, the label and ``s``) are :meth:`sample`'s with the
    :func:`~ppdp.base.check_random_state` generator, so ``release(seed, n=k)`` and
    ``sample(k, numpy.random.default_rng(seed))`` agree on them. Columns that IMPOSTER does not
    model (outside ``columns``) are released empty (missing values): a synthetic release never
    carries a real record's value. The index is the fitted table's when ``n`` equals the fitted
    size and a fresh ``RangeIndex(n)`` otherwise; the rows are synthetic either way.

    Examples
    --------
    One epoch of tiny networks, enough to show the release's shape (the generated values depend
    on torch's kernels, so only their properties are shown): ``hours`` is not modelled and is
    released empty, and every generated age is one seen in training.

    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58] * 3,
    ...     "job": ["nurse", "clerk", "nurse", "driver", "clerk", "nurse", "driver", "clerk"] * 3,
    ...     "hours": [40, 40, 30, 30] * 6,
    ...     "sex": ["F", "M", "F", "M", "M", "F", "M", "M"] * 3,
    ...     "income": ["low", "high"] * 12,
    ... })
    >>> from ppdp.mechanisms.imposter import Imposter
    >>> mech = Imposter(1.0, private="sex", label="income", columns=["age", "job"], epochs=1,
    ...                 hidden=8, latent_dim=2, batch_size=8, progress=False)
    >>> mech = mech.fit(df, random_state=0)
    >>> mech.output_columns_, mech.unmodelled_, len(mech.history_)
    (['age', 'job', 'sex', 'income'], ['hours'], 1)
    >>> released = mech.release(random_state=0)
    >>> released.shape, list(released.columns) == list(df.columns)
    ((24, 5), True)
    >>> bool(released["age"].isin(df["age"]).all()), bool(released["hours"].isna().all())
    (True, True)
    >>> released.equals(mech.release(random_state=0))
    True
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "none declared: ``lam`` weighs the privacy discriminator in the generator's loss (Eq. "
        "10), and how well a release hides the private column is measured by attacks, not "
        "promised."
    )

    _parameter_constraints: ClassVar[dict] = {
        "lam": [Interval(Real, 0, None, closed="left")],
        "epochs": _POSITIVE_INT,
        "batch_size": [Interval(Integral, 2, None, closed="left")],
        "latent_dim": _POSITIVE_INT,
        "hidden": _POSITIVE_INT,
        "lr": [Interval(Real, 0, None, closed="neither")],
        "numeric_sigma": [Interval(Real, 0, None, closed="neither")],
        "privacy_loss": [StrOptions(PRIVACY_LOSSES)],
        # this library trains on small CPUs
        "n_threads": [Interval(Integral, 1, 2, closed="both")],
    }

    def __init__(
        self,
        lam: float = 1.0,
        *,
        private: str | None = None,
        label: str | None = None,
        columns: Sequence[str] | None = None,
        epochs: int = 50,
        batch_size: int = 256,
        latent_dim: int = 16,
        hidden: int = 128,
        lr: float = 1e-3,
        numeric_sigma: float = 0.1,
        privacy_loss: str = "minimax",
        n_threads: int = 1,
        progress: bool = True,
    ):
        self.lam = lam
        self.private = private
        self.label = label
        self.columns = columns
        self.epochs = epochs
        self.batch_size = batch_size
        self.latent_dim = latent_dim
        self.hidden = hidden
        self.lr = lr
        self.numeric_sigma = numeric_sigma
        self.privacy_loss = privacy_loss
        self.n_threads = n_threads
        self.progress = progress

    # -- networks ---------------------------------------------------------------------------------

    def _build(self, width: int):
        torch = _torch()
        nn = torch.nn
        h, d = int(self.hidden), int(self.latent_dim)

        # plain containers of torch's own modules (no class local to this method), so that a
        # fitted Imposter pickles; built in the order that fixes the initial weights
        encoder = nn.ModuleDict(
            {
                "body": nn.Sequential(nn.Linear(width, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU()),
                "mu": nn.Linear(h, d),
                "logvar": nn.Linear(h, d),
            }
        )

        def mlp(n_in, n_out, act):
            return nn.Sequential(
                nn.Linear(n_in, h), act(), nn.Linear(h, h), act(), nn.Linear(h, n_out)
            )

        generator = mlp(d + 2, width, nn.ReLU)
        d1 = mlp(width + 2, 1, lambda: nn.LeakyReLU(0.2))
        d2 = mlp(width, 1, lambda: nn.LeakyReLU(0.2))
        return encoder, generator, d1, d2

    def _activate(self, logits):
        """Softmax per categorical block, sigmoid per numeric column."""
        torch = _torch()
        parts = []
        for col, start, stop in self.codec_.blocks_:
            block = logits[:, start:stop]
            if self.codec_.kinds_[col] == "numeric":
                parts.append(torch.sigmoid(block))
            else:
                parts.append(torch.softmax(block, dim=1))
        return torch.cat(parts, dim=1)

    def _reconstruction(self, logits, x, targets):
        """Negative log-likelihood of Eq. (8): cross-entropy per categorical, Gaussian per numeric."""
        torch = _torch()
        f = torch.nn.functional
        total = logits.new_zeros(())
        j = 0
        for col, start, stop in self.codec_.blocks_:
            if self.codec_.kinds_[col] == "numeric":
                pred = torch.sigmoid(logits[:, start])
                total = total + ((pred - x[:, start]) ** 2).mean() / (
                    2 * float(self.numeric_sigma) ** 2
                )
            else:
                total = total + f.cross_entropy(logits[:, start:stop], targets[:, j])
                j += 1
        return total

    # -- fitting -----------------------------------------------------------------------------------

    def fit(self, df: pd.DataFrame, random_state: Any = None) -> Imposter:
        """Train ``E``, ``G``, ``D1``, ``D2`` on ``df`` (Algorithm 2).

        Parameters
        ----------
        df : DataFrame
            The training table; it holds ``private``, ``label`` and ``columns``.
        random_state : None, int >= 0 or numpy.random.Generator
            Seeds the weight initialisation, the batch order and the training noise: an int
            ``s`` seeds torch with ``s``; a Generator gives one int drawn from it
            (:func:`ppdp.base.check_random_state`).
        """
        validate_hyperparameters(self)
        seed = _training_seed(random_state)
        private, label, columns = self.private, self.label, self.columns
        if private is None:
            raise ValueError(
                "private must name the binary private column of df (Imposter(private=...)), "
                "got None"
            )
        df = _check_frame(df)
        values = check_private_attribute(df, private, label)
        cols = _check_columns(df, columns, [private])
        if label is not None and label not in cols:
            cols = [*cols, label]
        if len(df) < 2:
            raise ValueError(f"df needs at least 2 rows to train, got {len(df)}")
        torch = _torch()
        f = torch.nn.functional
        self.private_, self.label_, self.columns_ = private, label, cols
        self.private_values_ = values
        self.private_dtype_ = df[private].dtype
        self.output_columns_ = [c for c in df.columns if c in cols or c == private]
        self.n_fitted_ = len(df)
        self.fitted_columns_ = list(df.columns)
        self.fitted_index_ = df.index.copy()
        self.unmodelled_ = [c for c in df.columns if c not in self.output_columns_]
        s_np = (df[private].to_numpy() == values[1]).astype(np.float32)
        self.private_prior_ = float(s_np.mean())
        self.codec_ = TableCodec().fit(df[cols])
        x_np = self.codec_.encode(df[cols])
        t_np = self.codec_.targets(df[cols])

        previous_threads = torch.get_num_threads()
        previous_det = torch.are_deterministic_algorithms_enabled()
        torch.set_num_threads(int(self.n_threads))
        torch.use_deterministic_algorithms(True)
        try:
            torch.manual_seed(seed)
            gen = torch.Generator().manual_seed(seed)
            enc, dec, d1, d2 = self._build(self.codec_.width_)
            self.encoder_, self.generator_, self.d1_, self.d2_ = enc, dec, d1, d2
            betas = (0.5, 0.9)
            opt_eg = torch.optim.Adam(
                [*enc.parameters(), *dec.parameters()], lr=float(self.lr), betas=betas
            )
            opt_d1 = torch.optim.Adam(d1.parameters(), lr=float(self.lr), betas=betas)
            opt_d2 = torch.optim.Adam(d2.parameters(), lr=float(self.lr), betas=betas)
            x_all = torch.from_numpy(x_np)
            t_all = torch.from_numpy(t_np)
            s_all = torch.from_numpy(s_np)
            n = x_all.shape[0]
            m = min(int(self.batch_size), n)
            bce = f.binary_cross_entropy_with_logits
            history = []
            from tqdm import tqdm

            for epoch in tqdm(
                range(int(self.epochs)), desc="IMPOSTER", disable=not self.progress, leave=False
            ):
                perm = torch.randperm(n, generator=gen)
                sums = dict.fromkeys(
                    ("recon", "kl", "d1_loss", "g_d1_loss", "d2_loss", "d2_accuracy", "g_loss"), 0.0
                )
                n_batches = 0
                for start in range(0, n - m + 1, m):
                    idx = perm[start : start + m]
                    x, t, s = x_all[idx], t_all[idx], s_all[idx]
                    s_oh = torch.stack([1 - s, s], dim=1)
                    # lines 2-4: encode, reparameterize, reconstruct x~ = G(E(x) | s)
                    hid = enc["body"](x)
                    mu, logvar = enc["mu"](hid), enc["logvar"](hid)
                    zl = mu + torch.exp(0.5 * logvar) * torch.randn(mu.shape, generator=gen)
                    logits_rec = dec(torch.cat([zl, s_oh], dim=1))
                    x_tilde = self._activate(logits_rec)
                    # line 5: x^ = G(z | s), z ~ N(0, I)
                    z = torch.randn((m, int(self.latent_dim)), generator=gen)
                    x_hat = self._activate(dec(torch.cat([z, s_oh], dim=1)))
                    # line 8: generated minibatches with s = 0 and s = 1
                    z2 = torch.randn((2 * m, int(self.latent_dim)), generator=gen)
                    s2 = torch.cat([torch.zeros(m), torch.ones(m)])
                    s2_oh = torch.stack([1 - s2, s2], dim=1)
                    x_priv = self._activate(dec(torch.cat([z2, s2_oh], dim=1)))
                    # line 6: D1 ascends V1 (Eq. 11)
                    d1_loss = bce(
                        d1(torch.cat([x_tilde.detach(), s_oh], 1)).squeeze(1), torch.ones(m)
                    ) + bce(d1(torch.cat([x_hat.detach(), s_oh], 1)).squeeze(1), torch.zeros(m))
                    opt_d1.zero_grad()
                    d1_loss.backward()
                    opt_d1.step()
                    # line 9: D2 ascends V2 (Eq. 12)
                    d2_logits = d2(x_priv.detach()).squeeze(1)
                    d2_loss = bce(d2_logits, s2)
                    opt_d2.zero_grad()
                    d2_loss.backward()
                    opt_d2.step()
                    # lines 7, 10, 11: E and G descend Eq. (13)
                    recon = self._reconstruction(logits_rec, x, t)
                    kl = (-0.5 * (1 + logvar - mu**2 - torch.exp(logvar)).sum(dim=1)).mean()
                    g_d1 = bce(d1(torch.cat([x_hat, s_oh], 1)).squeeze(1), torch.ones(m))
                    d2_out = d2(x_priv).squeeze(1)
                    if self.privacy_loss == "minimax":
                        g_d2 = -bce(d2_out, s2)
                    else:
                        g_d2 = bce(d2_out, torch.full((2 * m,), 0.5))
                    g_loss = recon + kl + g_d1 + float(self.lam) * g_d2
                    opt_eg.zero_grad()
                    g_loss.backward()
                    opt_eg.step()
                    with torch.no_grad():
                        acc = ((d2_logits > 0).float() == s2).float().mean()
                    for key, val in (
                        ("recon", recon),
                        ("kl", kl),
                        ("d1_loss", d1_loss),
                        ("g_d1_loss", g_d1),
                        ("d2_loss", d2_loss),
                        ("d2_accuracy", acc),
                        ("g_loss", g_loss),
                    ):
                        sums[key] += float(val.detach())
                    n_batches += 1
                history.append({"epoch": epoch + 1, **{k: v / n_batches for k, v in sums.items()}})
                if not all(np.isfinite(v) for v in history[-1].values()):
                    raise FloatingPointError(
                        f"training diverged at epoch {epoch + 1} (non-finite loss {history[-1]}); "
                        f"lower lr (now {self.lr}) or lam (now {self.lam})"
                    )
            self.history_ = pd.DataFrame(history)
            for net in (enc, dec, d1, d2):
                net.eval()
        finally:
            torch.set_num_threads(previous_threads)
            torch.use_deterministic_algorithms(previous_det)
        return self

    # -- sampling ----------------------------------------------------------------------------------

    def _check_fitted(self):
        if not hasattr(self, "history_"):
            raise NotFittedError("this Imposter is not fitted yet; call fit(df) first")

    def generate_activated(self, z: np.ndarray, s01: np.ndarray) -> np.ndarray:
        """Generator outputs (softmax/sigmoid blocks) for latent codes ``z`` and conditions ``s``."""
        self._check_fitted()
        torch = _torch()
        previous_threads = torch.get_num_threads()
        torch.set_num_threads(int(self.n_threads))
        try:
            with torch.no_grad():
                zt = torch.from_numpy(np.asarray(z, dtype=np.float32))
                st = torch.from_numpy(np.asarray(s01, dtype=np.float32))
                s_oh = torch.stack([1 - st, st], dim=1)
                out = self._activate(self.generator_(torch.cat([zt, s_oh], dim=1))).numpy()
        finally:
            torch.set_num_threads(previous_threads)
        return out

    def sample(self, n: int, random_state: Any = None, s: Any = None) -> pd.DataFrame:
        """Draw ``n`` synthetic records ``(x^, s)`` with the training table's columns and dtypes.

        ``s`` is drawn from its training marginal unless given (one of the two values, or an
        array of ``n`` such values). Generation: ``z ~ N(0, I)``, ``x^ = G(z | s)`` (Eq. 9), then
        categories drawn from the softmax blocks with ``rng``.
        """
        self._check_fitted()
        check_params({"n": n}, {"n": _POSITIVE_INT}, "Imposter.sample")
        rng = check_random_state(random_state)
        n = int(n)
        if s is None:
            s01 = (rng.random(n) < self.private_prior_).astype(np.float32)
        else:
            s_arr = np.broadcast_to(np.asarray(s, dtype=object), (n,))
            known = np.isin(s_arr, self.private_values_)
            if not known.all():
                raise ValueError(
                    f"s must hold values of {list(self.private_values_)}, got {s_arr[~known][:3]}"
                )
            s01 = (s_arr == self.private_values_[1]).astype(np.float32)
        z = rng.standard_normal((n, int(self.latent_dim))).astype(np.float32)
        table = self.codec_.decode(self.generate_activated(z, s01), rng)
        table[self.private_] = pd.Series(
            np.where(s01 == 1, self.private_values_[1], self.private_values_[0])
        )
        table[self.private_] = table[self.private_].astype(self.private_dtype_)
        return table[self.output_columns_]

    def guarantee_checks(self) -> list:
        """None: IMPOSTER declares no measurable bound.

        ``lam`` weighs the privacy discriminator's game in the generator's loss (Eq. 10); how
        well the release hides ``s`` is measured by attacks (the benchmark, Table 2), not
        promised. The empty list makes :func:`ppdp.guarantees.guarantee_report` say so.
        """
        self._check_fitted()
        return []

    def release(self, random_state: Any = None, *, n: int | None = None) -> pd.DataFrame:
        """``n`` synthetic records with the fitted table's columns (see the class docstring).

        ``n`` defaults to the number of fitted rows; the index is the fitted table's when ``n``
        equals that number, a fresh ``RangeIndex(n)`` otherwise. The same int ``random_state``
        gives the same table.
        """
        check_fitted(self, ["history_", "n_fitted_"])
        rng = check_random_state(random_state)
        check_params({"n": n}, {"n": [*_POSITIVE_INT, None]}, "Imposter.release")
        enforce(self.guarantee_checks())
        if n is None:
            n = self.n_fitted_
        n = int(n)
        table = self.sample(n, rng)
        table.index = self.fitted_index_ if n == self.n_fitted_ else pd.RangeIndex(n)
        for col in self.unmodelled_:
            table[col] = pd.Series(pd.NA, index=table.index, dtype="object")
        return table[self.fitted_columns_]
