"""Tidy result tables shared by every experiment and by the reproduction report.

A tidy row is one measurement: which experiment (usually a figure or table of the paper), which
method, under which parameters, with which seed, which metric, and its value. Derived values that a
paper's claim is judged on are rows with ``experiment == "claims"`` and ``metric`` set to the
claim's id in ``claims.yaml``.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

TIDY_COLUMNS: tuple[str, ...] = ("experiment", "method", "parameters", "seed", "metric", "value")

#: Digits kept in written results: enough for any figure, few enough that the same computation on
#: another BLAS gives the same bytes.
RESULT_DIGITS = 10


def format_parameters(params: Mapping[str, Any] | None) -> str:
    """Encode parameters as ``"key=value;key=value"`` with sorted keys.

    Floats are written with ``repr`` rounded to 12 significant digits so that the same grid point
    always gets the same string.

    Examples
    --------
    >>> format_parameters({"l": 10, "delta": 1 / 6})
    'delta=0.166666666667;l=10'
    """
    if not params:
        return ""
    parts = []
    for key in sorted(params):
        if ";" in key or "=" in key:
            raise ValueError(f"parameter name {key!r} must not contain ';' or '='")
        value = params[key]
        text = f"{float(value):.12g}" if isinstance(value, float | np.floating) else str(value)
        if ";" in text:
            raise ValueError(f"parameter {key!r} has value {text!r}, which must not contain ';'")
        parts.append(f"{key}={text}")
    return ";".join(parts)


def parse_parameters(text: str) -> dict[str, str]:
    """Inverse of :func:`format_parameters` (values come back as strings)."""
    if not isinstance(text, str) or not text:
        return {}
    return dict(part.split("=", 1) for part in text.split(";"))


def tidy_rows(
    experiment: str,
    method: str,
    metrics: Mapping[str, float],
    *,
    parameters: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> list[dict[str, Any]]:
    """Rows for one (experiment, method, parameters, seed) and several metrics."""
    params = format_parameters(parameters)
    return [
        {
            "experiment": experiment,
            "method": method,
            "parameters": params,
            "seed": -1 if seed is None else int(seed),
            "metric": metric,
            "value": float(value),
        }
        for metric, value in metrics.items()
    ]


def tidy_frame(rows: Iterable[Mapping[str, Any]] | pd.DataFrame) -> pd.DataFrame:
    """Validate and order tidy rows: the columns of :data:`TIDY_COLUMNS`, sorted, fixed dtypes."""
    frame = rows.copy() if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    if frame.empty:
        return pd.DataFrame(
            {c: pd.Series(dtype="float64" if c == "value" else "object") for c in TIDY_COLUMNS}
        )
    missing = [c for c in TIDY_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"tidy rows lack the columns {missing}; expected {list(TIDY_COLUMNS)}")
    frame = frame[list(TIDY_COLUMNS)].copy()
    for col in ("experiment", "method", "parameters", "metric"):
        frame[col] = frame[col].fillna("").astype(str)
    frame["seed"] = frame["seed"].fillna(-1).astype("int64")
    frame["value"] = frame["value"].astype("float64")
    return frame.sort_values(list(TIDY_COLUMNS[:5]), kind="mergesort").reset_index(drop=True)


def concat_tidy(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate tidy frames and re-sort them."""
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
    frame = frame.assign(value=frame["value"].map(_round_value))
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
    """Read a tidy CSV written by :func:`write_results`."""
    frame = pd.read_csv(path, keep_default_na=False, na_values={"value": ["", "nan", "NaN"]})
    return tidy_frame(frame)


def summarize(
    frame: pd.DataFrame,
    by: Iterable[str] = ("experiment", "method", "parameters", "metric"),
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Mean, standard deviation, min, max, count and a normal-approximation interval over seeds."""
    from scipy import stats

    by = list(by)
    grouped = frame.groupby(by, sort=True)["value"]
    out = grouped.agg(["mean", "std", "min", "max", "count"]).reset_index()
    z = stats.norm.ppf(0.5 + confidence / 2)
    half = z * out["std"].fillna(0.0) / np.sqrt(out["count"].clip(lower=1))
    out["ci_low"] = out["mean"] - half
    out["ci_high"] = out["mean"] + half
    return out


def _round_value(value: float) -> float:
    if not math.isfinite(value) or value == 0:
        return value
    return float(f"{value:.{RESULT_DIGITS}g}")
