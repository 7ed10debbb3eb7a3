"""The dataset overview's tables and claims, derived from the tidy rows of the ``run`` module:
the attributes most informative of each private attribute, and the dataset sizes the papers state.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ppdp.experiments.common import tidy_frame, tidy_rows

__all__ = [
    "SIZE_CLAIMS",
    "claims",
    "top_nmi",
]


def top_nmi(frame: pd.DataFrame, n: int = 3) -> pd.DataFrame:
    """The ``n`` attributes of each dataset most informative of its private attribute (NMI).

    The attribute of an NMI row is its facet ``attribute``.
    """
    nmi = frame[frame["experiment"] == "nmi_with_private"]
    if "attribute" not in nmi.columns:  # no NMI rows
        nmi = nmi.assign(attribute=pd.Series(np.nan, index=nmi.index, dtype=object))
    return (
        nmi.sort_values(
            ["method", "value", "attribute"], ascending=[True, False, True], kind="mergesort"
        )
        .groupby("method")
        .head(n)[["method", "attribute", "value"]]
        .rename(columns={"method": "dataset", "value": "nmi"})
    )


#: claim id -> (dataset, size metric) of the rows of
#: :func:`ppdp.experiments.datasets_overview.run.dataset_sizes`.
SIZE_CLAIMS = {
    "datasets.adult_rows": ("adult", "rows"),
    "datasets.census_rows": ("mutual-cover-census", "rows"),
    "datasets.ml100k_users": ("movielens-100k", "users"),
    "datasets.ml100k_items": ("movielens-100k", "items"),
    "datasets.ml100k_min_ratings_per_user": ("movielens-100k", "min_ratings_per_user"),
    "datasets.ml1m_users": ("movielens-1m", "users"),
    "datasets.ml1m_ratings": ("movielens-1m", "ratings"),
}


def claims(results: pd.DataFrame) -> pd.DataFrame:
    """Claims rows: the dataset sizes that the papers state (checked in ``claims.yaml``).

    ``results`` holds the notebook's tidy rows (those of experiment ``"sizes"`` are used), as
    written to its results CSV, so the claims can be recomputed from a written run.
    """
    sizes = results[results["experiment"] == "sizes"].set_index(["method", "metric"])["value"]
    rows = []
    for claim_id, key in SIZE_CLAIMS.items():
        if key in sizes.index:
            rows += tidy_rows("claims", key[0], {claim_id: sizes.loc[key]})
    return tidy_frame(rows)
