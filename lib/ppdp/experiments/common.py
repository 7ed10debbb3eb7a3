"""Tidy result tables shared by every experiment and by the reproduction report.

A tidy row is one measurement: which experiment (usually a figure or table of the paper), which
method, with which seed, which metric, its value and, where the run gives one, its 95% interval
(``ci_low``, ``ci_high``). The facets of the metric follow where it has any (:data:`FACET_COLUMNS`:
the attacker's model, the scenario, the attribute, the statistic), then the parameters of the
measurement as columns of their own, one per parameter name, typed (numbers as numbers); both are
missing where a row does not have them. Derived values that a paper's claim is judged on are rows with
``experiment == "claims"`` and ``metric`` set to the claim's id in ``claims.yaml``.
"""

from __future__ import annotations

import difflib
import inspect
import math
import numbers
import os
import re
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: The columns of every tidy frame, in this order; the parameter columns follow, sorted by name.
TIDY_COLUMNS: tuple[str, ...] = (
    "experiment",
    "method",
    "seed",
    "metric",
    "value",
    "ci_low",
    "ci_high",
)

#: The columns a row must give; ``ci_low`` and ``ci_high`` are missing when it gives none.
REQUIRED_COLUMNS: tuple[str, ...] = ("experiment", "method", "seed", "metric", "value")

#: What a metric is measured of, beside its name: the attacker's model (``rf``), the scenario
#: (``sI``), the attribute (``age``) and the statistic (``risk``, ``attack_rate``). Text columns
#: after the tidy ones, present when some row has them; one metric name with its facets replaces
#: names that spell them (``privacy_rf_sI`` is ``privacy`` with model ``rf`` and scenario ``sI``).
FACET_COLUMNS: tuple[str, ...] = ("model", "scenario", "attribute", "statistic")

#: Names no parameter may take: the tidy columns, the facets, and the string column of the old
#: format, so that a CSV written before parameters became columns is refused by name.
RESERVED_NAMES: frozenset[str] = frozenset(TIDY_COLUMNS) | frozenset(FACET_COLUMNS) | {"parameters"}

#: Experiments whose rows are derived from the others (claims and their context): a paper's
#: ``claims(results)`` ignores them, so that it can run on a written results CSV.
DERIVED_EXPERIMENTS: tuple[str, ...] = ("claims", "claim_context")

#: Digits kept in written results: enough for any figure, few enough that the same computation on
#: another BLAS gives the same bytes.
RESULT_DIGITS = 10

#: Significant digits of a real-valued parameter: the same grid point computed two ways (``0.1 * 3``
#: and ``0.3``) is one setting.
PARAMETER_DIGITS = 12


def parameter_columns(frame: pd.DataFrame) -> list[str]:
    """The parameter columns of a tidy frame: every column that is neither one of
    :data:`TIDY_COLUMNS` nor a facet (:data:`FACET_COLUMNS`).

    Parameters
    ----------
    frame : DataFrame
        Tidy rows.

    Returns
    -------
    list of str
        The parameter names, in the frame's column order.

    Examples
    --------
    >>> rows = tidy_frame(tidy_rows("fig4", "MC", {"loss": 0.5}, parameters={"l": 10, "delta": 0.2}))
    >>> parameter_columns(rows)
    ['delta', 'l']
    """
    return [c for c in frame.columns if c not in TIDY_COLUMNS and c not in FACET_COLUMNS]


def facet_columns(frame: pd.DataFrame) -> list[str]:
    """The facet columns of a tidy frame (:data:`FACET_COLUMNS` that it has), in that order.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows.

    Returns
    -------
    list of str
        The facets the frame has.

    Examples
    --------
    >>> rows = tidy_frame(tidy_rows("fig3", "H", {"privacy": 0.4}, facets={"model": "rf"}))
    >>> facet_columns(rows), parameter_columns(rows)
    (['model'], [])
    """
    return [c for c in FACET_COLUMNS if c in frame.columns]


def facet(frame: pd.DataFrame, name: str) -> pd.Series:
    """One facet's values per row, missing on every row when the frame has no such column.

    A frame of experiments whose metrics have no ``name`` facet lacks that column, so a selection
    such as ``facet(frame, "attribute") == "age"`` is false on each of its rows instead of raising.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows.
    name : str
        A facet of :data:`FACET_COLUMNS`.

    Returns
    -------
    Series
        The facet's values, aligned with ``frame``.

    Examples
    --------
    >>> rows = tidy_frame(tidy_rows("fig3", "H", {"privacy": 0.4}, facets={"model": "rf"}))
    >>> facet(rows, "model").tolist(), facet(rows, "attribute").isna().tolist()
    (['rf'], [True])
    """
    if name not in FACET_COLUMNS:
        raise ValueError(f"name={name!r} is not a facet; the facets are {', '.join(FACET_COLUMNS)}")
    if name in frame.columns:
        return frame[name]
    return pd.Series(np.nan, index=frame.index, dtype=object)


def is_metric(frame: pd.DataFrame, metric: str, **facets: str) -> pd.Series:
    """Which rows measure ``metric`` with the given facets (e.g. ``model="rf"``): a boolean mask,
    false on every row when the frame has no column for one of the facets.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows.
    metric : str
        The metric's name.
    **facets : str
        Values of facets of :data:`FACET_COLUMNS` the rows must have.

    Returns
    -------
    Series of bool
        Aligned with ``frame``.

    Examples
    --------
    >>> rows = tidy_frame(
    ...     tidy_rows("fig6", "DP", {"utility_loss": 1.0})
    ...     + tidy_rows("fig6", "DP", {"privacy": 2.0}, facets={"model": "rf", "scenario": "sI"})
    ...     + tidy_rows("fig6", "DP", {"privacy": 3.0}, facets={"model": "xgb", "scenario": "sI"})
    ... )
    >>> rows[is_metric(rows, "privacy", model="rf", scenario="sI")]["value"].tolist()
    [2.0]
    >>> bool(is_metric(rows, "privacy", attribute="age").any())  # no row has an attribute
    False
    """
    keep = frame["metric"] == metric
    for name, value in facets.items():
        keep &= facet(frame, name) == value
    return keep


def with_parameters(frame: pd.DataFrame, keys: Iterable[str]) -> pd.DataFrame:
    """The frame with a column for each of ``keys``: a key no row has gives a missing column.

    A frame built from one experiment's rows has only the parameters those rows have; code that
    reads a parameter by name from any frame asks for it here.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows.
    keys : iterable of str
        Parameter names.

    Returns
    -------
    DataFrame
        ``frame`` itself when it has every column, else a copy with the missing ones added (float
        NaN).

    Raises
    ------
    ValueError
        When a key is one of the tidy columns.

    Examples
    --------
    >>> rows = tidy_frame(tidy_rows("fig4", "MC", {"loss": 0.5}, parameters={"l": 10}))
    >>> with_parameters(rows, ["l", "delta"])[["l", "delta"]].to_numpy().tolist()
    [[10.0, nan]]
    """
    keys = list(keys)
    reserved = sorted(set(keys) & RESERVED_NAMES)
    if reserved:
        raise ValueError(f"{reserved} are tidy columns, not parameters; parameters are {keys}")
    missing = [k for k in keys if k not in frame.columns]
    if not missing:
        return frame
    return frame.assign(
        **{k: pd.Series(np.nan, index=frame.index, dtype="float64") for k in missing}
    )


def parameter_labels(frame: pd.DataFrame, keys: Iterable[str] | None = None) -> pd.Series:
    """Each row's parameters as text, ``"k = 25, l = 3"`` (sorted names, missing ones left out).

    Numbers read as they were given: integral values without a decimal point, others with
    :data:`PARAMETER_DIGITS` significant digits.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows.
    keys : iterable of str, optional
        The parameters to show; by default all of them.

    Returns
    -------
    Series of str
        One label per row ("" for a row without parameters), on ``frame``'s index.

    Examples
    --------
    >>> rows = tidy_frame(tidy_rows("fig4", "MC", {"loss": 0.5}, parameters={"l": 10, "delta": 0.25}))
    >>> parameter_labels(rows).tolist()
    ['delta = 0.25, l = 10']
    """
    keys = sorted(parameter_columns(frame) if keys is None else keys)
    frame = with_parameters(frame, keys)
    labels = []
    for values in frame[keys].itertuples(index=False, name=None):
        parts = [f"{k} = {_parameter_text(v)}" for k, v in zip(keys, values, strict=True)]
        labels.append(", ".join(p for p, v in zip(parts, values, strict=True) if not _missing(v)))
    return pd.Series(labels, index=frame.index, dtype=object)


def setting_ids(frame: pd.DataFrame, keys: Iterable[str] | None = None) -> pd.Series:
    """A number per distinct combination of parameter values (missing values included), for
    grouping and pivoting rows by their setting.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows.
    keys : iterable of str, optional
        The parameters that make a setting; by default all of them.

    Returns
    -------
    Series of int
        0, 1, ... in the sorted order of the settings, on ``frame``'s index.

    Examples
    --------
    >>> rows = tidy_frame(
    ...     tidy_rows("f", "M", {"a": 1.0}, parameters={"k": 2})
    ...     + tidy_rows("f", "M", {"a": 2.0}, parameters={"k": 1})
    ...     + tidy_rows("f", "M", {"a": 3.0})
    ... )
    >>> setting_ids(rows).tolist()
    [2, 0, 1]
    """
    keys = parameter_columns(frame) if keys is None else list(keys)
    if not keys or frame.empty:
        return pd.Series(0, index=frame.index, dtype="int64")
    frame = with_parameters(frame, keys)
    return frame.groupby(keys, dropna=False, sort=True).ngroup().astype("int64")


def tidy_rows(
    experiment: str,
    method: str,
    metrics: Mapping[str, float],
    *,
    parameters: Mapping[str, Any] | None = None,
    seed: int | None = None,
    intervals: Mapping[str, tuple[float, float]] | None = None,
    facets: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Rows for one (experiment, method, parameters, seed, facets) and several metrics.

    Parameters
    ----------
    experiment, method : str
        What the rows measure (a figure or table of the paper) and with which method.
    metrics : mapping of str to float
        One row per metric.
    parameters : mapping of str to value, optional
        The setting, one column per name; a value of None is missing.
    seed : int, optional
        The seed of the measurement; -1 (the default) for one that no seed varies.
    intervals : mapping of str to (float, float), optional
        The 95% interval ``(ci_low, ci_high)`` of some of the metrics.
    facets : mapping of str to str, optional
        The facets of every metric of the call (keys from :data:`FACET_COLUMNS`).

    Returns
    -------
    list of dict
        The rows, for :func:`tidy_frame`.

    Raises
    ------
    ValueError
        When a parameter takes the name of a tidy column or a facet, a facet is not one of
        :data:`FACET_COLUMNS`, or an interval names no metric.

    Examples
    --------
    >>> rows = tidy_rows("fig4", "MC", {"loss": 0.5}, parameters={"l": 10}, intervals={"loss": (0.4, 0.6)})
    >>> rows[0]["l"], rows[0]["ci_low"], rows[0]["ci_high"]
    (10, 0.4, 0.6)
    """
    params = dict(parameters or {})
    bad = sorted(k for k in params if not isinstance(k, str) or not k or k in RESERVED_NAMES)
    if bad:
        raise ValueError(
            f"parameter names {bad} are not allowed: a name is a non-empty string other than "
            f"{sorted(RESERVED_NAMES)}"
        )
    facets = dict(facets or {})
    strange = sorted(set(facets) - set(FACET_COLUMNS))
    if strange:
        raise ValueError(
            f"facets {strange} are not allowed: a facet is one of {list(FACET_COLUMNS)}"
        )
    intervals = dict(intervals or {})
    unknown = sorted(set(intervals) - set(metrics))
    if unknown:
        raise ValueError(f"intervals {unknown} name no metric; the metrics are {sorted(metrics)}")
    rows = []
    for metric, value in metrics.items():
        low, high = intervals.get(metric, (math.nan, math.nan))
        rows.append(
            {
                "experiment": experiment,
                "method": method,
                "seed": -1 if seed is None else int(seed),
                "metric": metric,
                "value": float(value),
                "ci_low": float(low),
                "ci_high": float(high),
                **facets,
                **params,
            }
        )
    return rows


def tidy_frame(rows: Iterable[Mapping[str, Any]] | pd.DataFrame) -> pd.DataFrame:
    """Validate and order tidy rows.

    The columns of :data:`TIDY_COLUMNS` come first, then the facets the rows have (text, in the
    order of :data:`FACET_COLUMNS`), then the parameters sorted by name. A parameter whose values
    are all numbers becomes a numeric column (``int64`` when they are all integral and none is
    missing, else ``float64`` rounded to :data:`PARAMETER_DIGITS` digits), any other a column of
    strings; an empty string is a missing value. Rows are sorted by experiment, method,
    parameters, seed, metric and facets, so the same rows give the same frame in any order.

    Parameters
    ----------
    rows : iterable of mapping, or DataFrame
        Rows with at least the columns of :data:`REQUIRED_COLUMNS`.

    Returns
    -------
    DataFrame
        The tidy frame, with a fresh index.

    Raises
    ------
    ValueError
        When a required column is missing, or a parameter takes a reserved name.

    Examples
    --------
    >>> frame = tidy_frame(tidy_rows("fig4", "MC", {"loss": 0.5}, parameters={"l": 10}))
    >>> list(frame.columns), frame["l"].dtype.name
    (['experiment', 'method', 'seed', 'metric', 'value', 'ci_low', 'ci_high', 'l'], 'int64')
    """
    frame = rows.copy() if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    if frame.empty and not len(frame.columns):
        frame = pd.DataFrame(columns=list(TIDY_COLUMNS))
    if "parameters" in frame.columns:
        raise ValueError(
            "the rows have a 'parameters' column: results written before parameters became "
            "columns of their own (one per name); run the experiment again"
        )
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"tidy rows lack the columns {missing}; expected {list(REQUIRED_COLUMNS)}")
    for col in ("ci_low", "ci_high"):
        if col not in frame.columns:
            frame[col] = np.nan
    facets = facet_columns(frame)
    params = sorted(parameter_columns(frame))
    bad = [c for c in params if not isinstance(c, str) or not c]
    if bad:
        raise ValueError(f"parameter names {bad} are not allowed: a name is a non-empty string")
    frame = frame[[*TIDY_COLUMNS, *facets, *params]].copy()
    for col in ("experiment", "method", "metric"):
        frame[col] = frame[col].fillna("").astype(str).astype(object)
    frame["seed"] = frame["seed"].fillna(-1).astype("int64")
    for col in ("value", "ci_low", "ci_high"):
        frame[col] = frame[col].astype("float64")
    for col in facets:
        frame[col] = _facet_column(frame[col])
    for col in params:
        frame[col] = _parameter_column(frame[col])
    order = ["experiment", "method", *params, "seed", "metric", *facets]
    frame = frame.sort_values(order, kind="mergesort", na_position="first")
    return frame.reset_index(drop=True)


def concat_tidy(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate tidy frames (their parameter columns united) and re-sort them."""
    frames = [f for f in frames if f is not None and len(f)]
    return tidy_frame(pd.concat(frames, ignore_index=True) if frames else [])


def write_results(frame: pd.DataFrame, path: str | os.PathLike | None) -> Path | None:
    """Write a tidy frame as CSV atomically (temporary file, then rename).

    A run that fails before this call leaves no CSV behind, so a pipeline never mistakes a partial
    run for a complete one. An empty ``path`` writes nothing and returns ``None``, which is what the
    committed notebooks do when run on their own.
    """
    if not path:
        return None
    frame = tidy_frame(frame)
    frame = frame.assign(**{c: frame[c].map(_round_value) for c in ("value", "ci_low", "ci_high")})
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", newline="") as handle:
            frame.to_csv(handle, index=False, lineterminator="\n")
        # mkstemp creates the file private (0600); give it the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def read_results(path: str | os.PathLike) -> pd.DataFrame:
    """Read a tidy CSV written by :func:`write_results`: the same frame, parameter types included."""
    return tidy_frame(read_raw_results(path))


def read_raw_results(path: str | os.PathLike) -> pd.DataFrame:
    """A tidy CSV's rows in file order before :func:`tidy_frame` types them: a missing cell is
    missing, and only the measurement columns read ``nan`` as a number (a label stays text)."""
    header = pd.read_csv(path, nrows=0).columns
    numbers = ["", "nan", "NaN"]
    na_values = {c: numbers if c in ("value", "ci_low", "ci_high") else [""] for c in header}
    for col in ("experiment", "method", "metric"):
        na_values.pop(col, None)
    return pd.read_csv(path, keep_default_na=False, na_values=na_values)


def summarize(
    frame: pd.DataFrame,
    by: Iterable[str] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Mean, standard deviation, min, max, count and a normal-approximation interval over seeds.

    ``by`` defaults to experiment, method, every parameter, metric and every facet; a missing
    value is a value of its own, not a dropped row.
    """
    if by is None:
        by = ["experiment", "method", *parameter_columns(frame), "metric", *facet_columns(frame)]
    by = list(by)
    grouped = frame.groupby(by, sort=True, dropna=False)["value"]
    out = grouped.agg(["mean", "std", "min", "max", "count"]).reset_index()
    half = mean_halfwidth(out["std"], out["count"], confidence=confidence)
    out["ci_low"] = out["mean"] - half
    out["ci_high"] = out["mean"] + half
    return out


def mean_halfwidth(std: Any, count: Any, *, confidence: float = 0.95, distribution: str = "normal"):
    """Half-width of the confidence interval of a mean over seeds: the one interval helper.

    ``distribution="normal"`` gives ``z * std / sqrt(n)`` with ``z = Phi^-1(1/2 + confidence/2)``
    (1.95996 at 95%), used for error bars; a single seed (``std`` missing) gives 0.
    ``distribution="t"`` gives Student's ``t_{n-1}`` quantile instead, used by the report for a
    claim measured over few seeds; fewer than two values give nan.

    Parameters
    ----------
    std, count : float or array-like
        Sample standard deviation (``ddof=1``) and number of values, elementwise.
    confidence : float in (0, 1)
    distribution : {"normal", "t"}
    """
    from scipy import stats

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    count = np.asarray(count, dtype=float)
    std = np.asarray(std, dtype=float)
    if distribution == "normal":
        quantile = stats.norm.ppf(0.5 + confidence / 2)
        std = np.nan_to_num(std, nan=0.0)
    elif distribution == "t":
        with np.errstate(invalid="ignore", divide="ignore"):
            quantile = np.where(count >= 2, stats.t.ppf(0.5 + confidence / 2, count - 1), np.nan)
    else:
        raise ValueError(f"distribution must be 'normal' or 't', got {distribution!r}")
    half = quantile * std / np.sqrt(np.maximum(count, 1))
    return half if half.ndim else float(half)


def claim_intervals(rows: pd.DataFrame) -> pd.DataFrame:
    """Claims rows as a table: one row per claim id, columns ``ci_high``, ``ci_low`` and ``value``
    (missing where the run gives no interval); several rows of one claim are averaged."""
    table = rows.groupby("metric", sort=True)[["ci_high", "ci_low", "value"]].mean()
    table.index.name = "claim"
    table.columns.name = "bound"
    return table


def rank_correlation(x: Any, y: Any) -> float:
    """Spearman's rank correlation (``scipy.stats.spearmanr``), 0 where it is undefined.

    Fewer than two points, or a constant side, mean no trend: 0 rather than nan, so that a claim
    "y falls as x grows" reads as not holding.

    Values of a side that agree to ``TIE_DIGITS`` decimals of its largest magnitude are ties. Equal
    means computed in another order (a matrix product's kernel, a CSV round trip) differ in their
    last bits, and ranking those bits would turn a flat curve into a trend of either sign.
    """
    from scipy.stats import spearmanr

    x, y = _snap_ties(x), _snap_ties(y)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    if x.ndim == 1 and x.shape == y.shape and np.isfinite(x).all() and np.isfinite(y).all():
        # spearmanr's statistic without its p-value and checks, which cost ten times the
        # correlation in a bootstrap of thousands of resamples: the same average ranks (exact
        # half-integers) in the same (n, 2) array, through the same np.corrcoef
        ranked = np.column_stack((_average_ranks(x), _average_ranks(y)))
        return float(np.corrcoef(ranked, rowvar=0)[1, 0])
    return float(spearmanr(x, y).statistic)


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties at their mean rank: ``scipy.stats.rankdata(values)`` of a finite 1-D
    array."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    first = np.empty(values.size, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    dense = np.empty(values.size, dtype=np.intp)
    dense[order] = np.cumsum(first)
    starts = np.append(np.flatnonzero(first), values.size)
    return 0.5 * (starts[dense] + starts[dense - 1] + 1)


#: Decimals, relative to a side's largest magnitude, below which :func:`rank_correlation` sees ties.
TIE_DIGITS = 9


def _snap_ties(values: Any) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    scale = np.max(np.abs(values), initial=0.0, where=np.isfinite(values))
    if not scale > 0:
        return values
    return np.round(values / scale, TIE_DIGITS) * scale


def _round_value(value: float) -> float:
    if not math.isfinite(value) or value == 0:
        return value
    return float(f"{value:.{RESULT_DIGITS}g}")


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _parameter_text(value: Any) -> str:
    """A parameter value as text: integral numbers without a decimal point."""
    if _is_number(value):
        return f"{float(value):.{PARAMETER_DIGITS}g}"
    return str(value)


def _facet_column(column: pd.Series) -> pd.Series:
    """One facet's values as text; "" and None are missing."""
    out = pd.Series(np.nan, index=column.index, dtype=object)
    present = column.notna() & (column.astype(str) != "")
    out[present] = column[present].map(_parameter_text).to_numpy()
    return out


def _parameter_column(column: pd.Series) -> pd.Series:
    """One parameter's values, typed: numbers (``int64`` when all integral and none missing, else
    ``float64`` rounded to :data:`PARAMETER_DIGITS` digits) or strings; "" and None are missing."""
    present = column.notna()
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        # numbers already (most parameters, and every numeric column read back from a CSV)
        kept = as_numbers = column[present]
    else:
        values = column.astype(object).where(present, None)
        values = values.map(lambda v: None if v is None or (isinstance(v, str) and not v) else v)
        present = values.notna()
        kept = values[present]
        as_numbers = pd.to_numeric(
            kept.map(lambda v: np.nan if isinstance(v, bool | np.bool_) else v), errors="coerce"
        )
    if len(kept) and as_numbers.notna().all():
        # a grid has few distinct values: round each once, not once per row
        as_floats = as_numbers.astype("float64")
        to_digits = {
            v: float(f"{v:.{PARAMETER_DIGITS}g}") if math.isfinite(v) else v
            for v in pd.unique(as_floats)
        }
        rounded = as_floats.map(to_digits)
        out = pd.Series(np.nan, index=column.index, dtype="float64")
        out[present] = rounded.to_numpy()
        integral = np.isfinite(out[present]) & (out[present] % 1 == 0)
        if present.all() and integral.all() and (out.abs() < 2**53).all():
            return out.astype("int64")
        return out
    if not len(kept):
        return pd.Series(np.nan, index=column.index, dtype="float64")
    out = pd.Series(np.nan, index=column.index, dtype=object)
    out[present] = [_parameter_text(v) for v in kept]
    return out


# ------------------------------------------------------------------------------------------------
# Notebook parameters. Papermill injects whatever the command line or the profile gives, with the
# type YAML or its own parsing guessed: ``-p datasets adult`` is a string (a notebook iterating it
# would see letters), ``-p deltas 0.01`` a float where a list is expected, ``bins: 8.5`` a float
# where an integer is. Each experiment module declares its notebook's parameters once with
# :class:`Param`; the notebook checks them with one call right after its parameters cell.


@dataclass(frozen=True)
class Param:
    """What one notebook parameter may hold.

    Parameters
    ----------
    kind : {"int", "float", "str", "bool", "list", "dict", "any"}
        ``"int"`` accepts integers and integral floats (``1e4``, returned as an int);
        ``"float"`` any finite real number (an int is returned as it is); ``"list"`` a list or
        tuple of ``item``, or one value that is a valid ``item`` (read as a one-element list);
        ``"dict"`` a mapping with string keys (from ``keys`` if given) to ``item`` values.
    low, high : float, optional
        Bounds of a number, inclusive unless ``open_low`` / ``open_high``.
    choices : tuple, optional
        The allowed values.
    item : Param, optional
        The elements of a list or the values of a dict.
    keys : tuple of str, optional
        The allowed keys of a dict.
    required : tuple of str
        The keys a dict must have.
    length : int, optional
        The exact length of a list; otherwise a list needs at least one element.
    none : bool
        Whether ``None`` is allowed.
    alternatives : tuple of Param, optional
        With ``kind="any"``: the value must satisfy one of these.
    """

    kind: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple | None = None
    item: Param | None = None
    keys: tuple[str, ...] | None = None
    required: tuple[str, ...] = ()
    length: int | None = None
    none: bool = False
    alternatives: tuple[Param, ...] = ()

    def describe(self) -> str:
        """The allowed values in words, for error messages."""
        if self.choices is not None:
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.alternatives:
            text = " or ".join(a.describe() for a in self.alternatives)
        elif self.kind in ("int", "float"):
            text = ("an integer" if self.kind == "int" else "a number") + self._bounds()
        elif self.kind == "list":
            size = f"a list of {self.length} values" if self.length else "a non-empty list"
            text = f"{size}, each {self.item.describe()}" if self.item else size
        elif self.kind == "dict":
            keys = f"keys from {list(self.keys)}" if self.keys else "string keys"
            if self.required:
                keys += f" including {list(self.required)}"
            text = f"a dict with {keys}" + (
                f", each value {self.item.describe()}" if self.item else ""
            )
        else:
            text = {"str": "a string", "bool": "True or False", "any": "any value"}[self.kind]
        return f"None or {text}" if self.none else text

    def json_schema(self) -> dict[str, Any]:
        """The same rule as a JSON schema (draft 2020-12), for the Snakefile's check of a profile.

        The schema accepts what :meth:`check` accepts (an integral float where an integer is
        expected, one value where a list is), before any job runs; :meth:`check` then gives the
        canonical form inside the notebook.
        """
        if self.alternatives:
            schema: dict[str, Any] = {"anyOf": [a.json_schema() for a in self.alternatives]}
        elif self.kind == "list":
            array: dict[str, Any] = {"type": "array", "minItems": self.length or 1}
            if self.length is not None:
                array["maxItems"] = self.length
            if self.item is not None:
                array["items"] = self.item.json_schema()
            if self.item is not None and self.length in (None, 1):
                # one value that is not itself a list stands for the one-element list
                single = {"allOf": [self.item.json_schema(), {"not": {"type": "array"}}]}
                schema = {"anyOf": [array, single]}
            else:
                schema = array
        elif self.kind == "dict":
            schema = {"type": "object"}
            if self.keys is not None:
                schema["propertyNames"] = {"enum": list(self.keys)}
            if self.required:
                schema["required"] = list(self.required)
            if self.item is not None:
                schema["additionalProperties"] = self.item.json_schema()
        else:
            json_type = {"int": "integer", "float": "number", "str": "string", "bool": "boolean"}
            schema = {"type": json_type[self.kind]} if self.kind in json_type else {}
            if self.kind in ("int", "float"):
                for bound, closed, opened, value in (
                    ("low", "minimum", "exclusiveMinimum", self.low),
                    ("high", "maximum", "exclusiveMaximum", self.high),
                ):
                    if value is not None:
                        is_open = self.open_low if bound == "low" else self.open_high
                        schema[opened if is_open else closed] = value
        if self.choices is not None:
            schema["enum"] = list(self.choices)
        if self.none:
            schema = {"anyOf": [{"type": "null"}, schema]}
        return schema

    def _bounds(self) -> str:
        if self.low is not None and self.high is not None:
            left, right = "(" if self.open_low else "[", ")" if self.open_high else "]"
            return f" in {left}{self.low:g}, {self.high:g}{right}"
        if self.low is not None:
            return f" {'>' if self.open_low else '>='} {self.low:g}"
        if self.high is not None:
            return f" {'<' if self.open_high else '<='} {self.high:g}"
        return ""

    def check(self, name: str, value: Any) -> Any:
        """Return ``value`` in canonical form, or raise naming ``name``, the value and the rule."""
        if value is None and self.none:
            return None
        if self.alternatives:
            wrong_types = True
            for option in self.alternatives:
                try:
                    return option.check(name, value)
                except TypeError:
                    continue
                except ValueError:
                    wrong_types = False
            # a value of a type no alternative takes is a TypeError, like a single Param's
            raise self._error(name, value, TypeError if wrong_types else ValueError)
        checker = {
            "int": self._check_int,
            "float": self._check_float,
            "str": self._check_str,
            "bool": self._check_bool,
            "list": self._check_list,
            "dict": self._check_dict,
            "any": lambda name, value: value,
        }[self.kind]
        out = checker(name, value)
        if self.choices is not None and out not in self.choices:
            raise self._error(name, value, ValueError)
        return out

    def _error(self, name: str, value: Any, cls: type[Exception]) -> Exception:
        return cls(f"parameter {name}={value!r} is not allowed: expected {self.describe()}")

    def _in_bounds(self, number: float) -> bool:
        low_ok = self.low is None or (number > self.low if self.open_low else number >= self.low)
        high_ok = self.high is None or (
            number < self.high if self.open_high else number <= self.high
        )
        return low_ok and high_ok

    def _check_int(self, name, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise self._error(name, value, TypeError)
        if not isinstance(value, numbers.Integral) and not (
            math.isfinite(value) and float(value).is_integer()
        ):
            raise self._error(name, value, ValueError)
        value = int(value)
        if not self._in_bounds(value):
            raise self._error(name, value, ValueError)
        return value

    def _check_float(self, name, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise self._error(name, value, TypeError)
        # an integer stays one: what the experiment computes and prints must not change with it
        if not math.isfinite(value) or not self._in_bounds(value):
            raise self._error(name, value, ValueError)
        return value

    def _check_str(self, name, value):
        if not isinstance(value, str):
            raise self._error(name, value, TypeError)
        return value

    def _check_bool(self, name, value):
        if not isinstance(value, bool):
            raise self._error(name, value, TypeError)
        return value

    def _check_list(self, name, value):
        if not isinstance(value, list | tuple):
            # one value where a list is expected is that one-element list, if it is a valid element
            if isinstance(value, Mapping) or self.item is None or self.length not in (None, 1):
                raise self._error(name, value, TypeError)
            try:
                return [self.item.check(name, value)]
            except TypeError:
                raise self._error(name, value, TypeError) from None
        if (self.length is not None and len(value) != self.length) or not value:
            raise self._error(name, value, ValueError)
        if self.item is None:
            return list(value)
        return [self.item.check(f"{name}[{i}]", v) for i, v in enumerate(value)]

    def _check_dict(self, name, value):
        if not isinstance(value, Mapping):
            raise self._error(name, value, TypeError)
        for key in value:
            if not isinstance(key, str) or (self.keys is not None and key not in self.keys):
                raise ValueError(
                    f"parameter {name} has key {key!r}, which is not allowed: expected "
                    f"{f'one of {list(self.keys)}' if self.keys else 'string keys'}"
                )
        if any(key not in value for key in self.required):
            raise self._error(name, value, ValueError)
        if self.item is None:
            return dict(value)
        return {key: self.item.check(f"{name}[{key!r}]", v) for key, v in value.items()}


class _OneLineInNotebooks:
    """An error a Jupyter kernel shows as one line, its message, without the frames of the
    library code that raised it: IPython renders an exception with ``_render_traceback_`` by
    calling it. Outside a kernel the traceback is Python's own."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class ParameterValueError(_OneLineInNotebooks, ValueError):
    """A notebook parameter with a value outside what is allowed (one line in a notebook)."""


class ParameterTypeError(_OneLineInNotebooks, TypeError):
    """A notebook parameter of the wrong type (one line in a notebook)."""


#: The parameters every notebook takes: the profile's name, the base seed and where outputs go.
COMMON_PARAMETERS: dict[str, Param] = {
    "profile": Param("str"),
    "seed": Param("int", low=0),
    "results_csv": Param("str"),
    "figures_dir": Param("str"),
}


def check_parameters(values: Mapping[str, Any], spec: Mapping[str, Param]) -> dict[str, Any]:
    """Check a notebook's parameters against ``spec``; return them in canonical form.

    Parameters
    ----------
    values : mapping
        The notebook's namespace (``globals()`` right after its parameters cell) or any mapping
        holding every name of ``spec``; other names are ignored.
    spec : mapping of str to Param
        The allowed values of each parameter.

    Returns
    -------
    dict
        Each parameter of ``spec``, with integral floats made ints where an integer is expected and
        a single value where a list is expected made a one-element list; a notebook rebinds its
        names with ``globals().update(...)``.

    Raises
    ------
    ParameterTypeError, ParameterValueError
        A TypeError or ValueError naming the parameter, its value and what is allowed, which a
        notebook shows as that one line.
    """
    missing = [name for name in spec if name not in values]
    if missing:
        raise ParameterValueError(f"parameters {missing} are not set; expected all of {list(spec)}")
    out = {}
    for name, rule in spec.items():
        try:
            out[name] = rule.check(name, values[name])
        except TypeError as err:
            raise ParameterTypeError(str(err)) from None
        except ValueError as err:
            raise ParameterValueError(str(err)) from None
    return out


#: Names an IPython kernel binds to data in a notebook's namespace by itself: its input and
#: output history (``In``, ``Out``, ``_ih``, ``_oh``, ``_dh``, ``_``, ``__``, ``___``, ``_i``,
#: ``_ii``, ``_iii``, ``_i<n>`` and ``_<n>``) and Python's module attributes (``__name__``, ...).
_KERNEL_NAMES = re.compile(r"In|Out|_(ih|oh|dh|_?_?|i{1,3}|i?\d+)|__\w+__")


def check_notebook_names(namespace: Mapping[str, Any], spec: Mapping[str, Param]) -> None:
    """Refuse a notebook parameter that the notebook does not declare.

    Papermill injects every parameter it is given, known to the notebook or not, as a variable
    after the parameters cell: ``-p bin 3`` (for ``bins``) defines ``bin`` and runs with the default
    ``bins``, and papermill's warning about unknown parameters cannot be told from the one it gives
    for declared parameters it fails to parse. A notebook calls this right after its parameters
    cell, before it defines anything of its own: every name bound to data (neither a module, nor a
    function or class, nor the kernel's own history) must then be a declared parameter.

    Parameters
    ----------
    namespace : mapping
        The notebook's namespace, ``globals()``, right after its parameters cell and imports.
    spec : mapping of str to Param
        The notebook's declared parameters (its experiment's ``PARAMETERS``).

    Returns
    -------
    None

    Raises
    ------
    ParameterValueError
        Naming each undeclared name with the closest declared one, which a notebook shows as
        that one line.

    Examples
    --------
    >>> spec = {"seed": Param("int"), "bins": Param("int", low=2)}
    >>> check_notebook_names({"seed": 0, "bins": 8, "np": np}, spec)
    >>> check_notebook_names({"seed": 0, "bins": 8, "bin": 3}, spec)
    Traceback (most recent call last):
    ...
    ppdp.experiments.common.ParameterValueError: parameter bin=3 is not a parameter of this \
notebook (did you mean bins?); its parameters are ['bins', 'seed'] (a name left by an earlier run \
of the notebook's cells goes with a kernel restart)
    """
    unknown = [
        name
        for name, value in namespace.items()
        if name not in spec
        and not _KERNEL_NAMES.fullmatch(name)
        and not (inspect.ismodule(value) or callable(value))
    ]
    if unknown:
        problems = []
        for name in unknown:
            close = difflib.get_close_matches(name, list(spec), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            problems.append(
                f"parameter {name}={namespace[name]!r} is not a parameter of this notebook{hint}"
            )
        # in JupyterLab, rerunning this cell after later cells ran also finds their names
        raise ParameterValueError(
            "; ".join(problems) + f"; its parameters are {sorted(spec)} (a name left by an "
            "earlier run of the notebook's cells goes with a kernel restart)"
        )


# ------------------------------------------------------------------------------------------------
# Independent jobs (seeds, splits) in worker processes: each seeds its own generators, so the
# results, kept in the jobs' order, do not depend on how many processes ran them


def map_in_workers(
    fn: Callable[[Any], Any],
    items: Iterable,
    *,
    n_jobs: int,
    desc: str = "",
    progress: bool = False,
    unit: str = "it",
    one_thread: bool = False,
) -> list:
    """``[fn(item) for item in items]``, in ``n_jobs`` worker processes when ``n_jobs > 1``.

    Parameters
    ----------
    fn : callable
        One job; it and the items travel to the workers by cloudpickle (closures included).
    items : iterable
        The jobs' arguments, one per job.
    n_jobs : int >= 1
        Worker processes (at most one per item); 1 runs the jobs here, one after the other.
    desc, unit : str
        The progress bar's label and unit.
    progress : bool
        Show a progress bar, one step per finished job.
    one_thread : bool
        Limit each worker's BLAS and OpenMP pools to one thread, so that ``n_jobs`` workers on
        as many cores compute instead of contending (for jobs whose values do not depend on the
        thread count).

    Returns
    -------
    list
        The jobs' results, in the order of ``items``.

    Raises
    ------
    ValueError
        If ``n_jobs`` is not a positive integer.

    Examples
    --------
    >>> map_in_workers(abs, [-3, 1, -2], n_jobs=1)
    [3, 1, 2]
    >>> map_in_workers(abs, [-1], n_jobs=0)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs must be a positive integer; got 0
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer; got {n_jobs!r}")
    items = list(items)
    if n_jobs == 1 or len(items) < 2:
        results = (fn(item) for item in items)
    else:
        from joblib import Parallel, delayed

        job = _on_one_thread if one_thread else _call
        results = Parallel(n_jobs=min(n_jobs, len(items)), return_as="generator")(
            delayed(job)(fn, item) for item in items
        )
    if not progress:
        return list(results)
    bar = progress_bar(total=len(items), desc=desc, unit=unit)
    out = []
    for result in results:
        out.append(result)
        bar.update(1)
    bar.close()
    return out


def _call(fn, item):
    return fn(item)


def _on_one_thread(fn, item):
    """``fn(item)`` with one BLAS and one OpenMP thread (in a worker process)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return fn(item)


def progress_bar(total: int, desc: str, unit: str = "it"):
    """A tqdm bar (a widget in a notebook with ipywidgets, text otherwise)."""
    from tqdm import TqdmWarning

    with warnings.catch_warnings():
        # without ipywidgets tqdm.auto falls back to a text bar, with a warning that would
        # print this machine's paths into the notebook
        warnings.simplefilter("ignore", TqdmWarning)
        from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit)
