"""The encoding of a mixed table for the generator, and the way back: :class:`TableCodec`.

Each categorical column is a one-hot block (the generator decodes it by a softmax); each numeric
column is its empirical CDF value in ``(0, 1)`` (decoded by a sigmoid and mapped back by the
inverse empirical CDF), so a generated numeric is always a value seen in training.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ppdp.base import check_random_state

from .checks import _check_frame, _check_values, _is_numeric


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
