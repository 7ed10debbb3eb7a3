"""The dataset overview's runs: each dataset as one per-individual table with its private
attribute, its summary rows and NMI matrix, and the sizes the papers state.

Each dataset is reduced to one table with one row per individual (a user, a person, a tuple) and its
private attribute, as the papers treat it:

============================  ======================  ==========================================
dataset                       private attribute       paper
============================  ======================  ==========================================
``adult``                     ``sex``                 IMPOSTER (SPPM uses ``income`` instead)
``german-credit-numeric``     ``label``               Relay chains (class label as sensitive)
``mutual-cover-census``       ``INCWAGE``             Mutual Cover ("salary")
``movielens-100k``            ``age``                 HyObscure
``movielens-1m``              ``gender``              SPPM
``hyobscure-foursquare``      ``grid`` (home cell)    HyObscure
============================  ======================  ==========================================

Also the notebook's ``PARAMETERS`` and :func:`check_parameters`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ppdp import datasets as ds
from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    Param,
    tidy_frame,
    tidy_rows,
)
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.infotheory import normalized_mutual_information_from_samples

__all__ = [
    "PARAMETERS",
    "VIEWS",
    "PrivateView",
    "check_parameters",
    "dataset_sizes",
    "discretize",
    "load_view",
    "nmi_matrix",
    "summarize_view",
]


@dataclass(frozen=True)
class PrivateView:
    """One dataset as a per-individual table with a named private attribute."""

    name: str
    paper: str
    table: pd.DataFrame
    private: str
    unit: str


def _adult() -> PrivateView:
    return PrivateView(
        "adult", "imposter", ds.load_adult().drop(columns=["split"]), "sex", "person"
    )


def _german() -> PrivateView:
    return PrivateView(
        "german-credit-numeric",
        "relay_chains",
        ds.load_german_credit(kind="numeric"),
        "label",
        "applicant",
    )


def _census() -> PrivateView:
    return PrivateView(
        "mutual-cover-census", "mutual_cover", ds.load_mutual_cover_census(), "INCWAGE", "tuple"
    )


def _user_activity(ratings: pd.DataFrame) -> pd.DataFrame:
    grouped = ratings.groupby("user_id")["rating"]
    return pd.DataFrame({"n_ratings": grouped.size(), "mean_rating": grouped.mean()})


def _movielens(
    loader: Callable, name: str, paper: str, private: str, keep: Sequence[str]
) -> PrivateView:
    data = loader()
    users = data.users.set_index("user_id")[[c for c in keep if c in data.users.columns]]
    table = users.join(_user_activity(data.ratings), how="inner").reset_index(drop=True)
    return PrivateView(name, paper, table, private, "user")


def _foursquare(top: int = 10) -> PrivateView:
    frame = ds.load_foursquare_nyc(variant="3users")
    counts = frame.drop(columns=["uid", "grid", "grid_row", "grid_col"])
    busiest = counts.sum().sort_values(ascending=False, kind="mergesort").index[:top]
    # the home cell is an identifier, not a quantity: keep it categorical so it is never binned
    table = counts[busiest].assign(
        total_checkins=counts.sum(axis=1), grid=pd.Categorical(frame["grid"])
    )
    return PrivateView("hyobscure-foursquare", "hyobscure", table, "grid", "user")


VIEWS: dict[str, Callable[[], PrivateView]] = {
    "adult": _adult,
    "german-credit-numeric": _german,
    "mutual-cover-census": _census,
    "movielens-100k": lambda: _movielens(
        ds.load_movielens_100k,
        "movielens-100k",
        "hyobscure",
        "age",
        ["age", "gender", "occupation"],
    ),
    "movielens-1m": lambda: _movielens(
        ds.load_movielens_1m, "movielens-1m", "sppm", "gender", ["gender", "age", "occupation"]
    ),
    "hyobscure-foursquare": _foursquare,
}


def load_view(name: str) -> PrivateView:
    """The per-individual table of dataset ``name`` (one of :data:`VIEWS`)."""
    if name not in VIEWS:
        raise ValueError(f"dataset {name!r} has no overview; choose one of {sorted(VIEWS)}")
    return VIEWS[name]()


def discretize(column: pd.Series, bins: int) -> pd.Series:
    """Integer codes for a column: categories as they are, numbers with more than ``bins`` distinct
    values cut at their interior ``bins``-quantiles.

    A value ``v`` gets code ``#{edges < v}``, so the bins are ``(-inf, e1], (e1, e2], ...``. Where
    quantiles coincide (a column that is mostly zero, like Adult's ``capital_gain``) the duplicate
    edges merge, and the dominant value still keeps a bin of its own instead of swallowing the
    column. Mutual information between continuous columns depends on this choice; the same
    ``bins`` is used for every numeric column so that the heat maps compare like with like.
    """
    if bins < 2:
        raise ValueError(f"bins must be at least 2, got {bins}")
    if pd.api.types.is_numeric_dtype(column) and column.nunique(dropna=True) > bins:
        values = column.to_numpy(dtype="float64")
        if np.isnan(values).any():
            raise ValueError(
                f"column {column.name!r} has missing values; numeric columns must be complete"
            )
        edges = np.unique(np.quantile(values, np.arange(1, bins) / bins))
        return pd.Series(
            np.searchsorted(edges, values, side="left"), index=column.index, dtype="int64"
        )
    codes, _ = pd.factorize(column.astype("string").fillna("<missing>"), sort=True)
    return pd.Series(codes, index=column.index, dtype="int64")


def nmi_matrix(table: pd.DataFrame, bins: int) -> pd.DataFrame:
    """Pairwise normalized mutual information (arithmetic mean normalization) between columns."""
    codes = {c: discretize(table[c], bins).to_numpy() for c in table.columns}
    names = list(table.columns)
    out = np.eye(len(names))
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            out[i, j] = out[j, i] = normalized_mutual_information_from_samples(
                codes[a], codes[names[j]]
            )
    return pd.DataFrame(out, index=names, columns=names)


def summarize_view(view: PrivateView, bins: int) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """Tidy rows for one dataset, the distribution of its private attribute, and its NMI matrix."""
    table = view.table
    private = table[view.private]
    if pd.api.types.is_numeric_dtype(private) and private.nunique() > bins:
        codes = discretize(private, bins)
        spans = private.groupby(codes).agg(["min", "max"])
        distribution = codes.value_counts(normalize=True).sort_index()
        distribution.index = [
            f"{lo:g}–{hi:g}" for lo, hi in spans.loc[distribution.index].to_numpy()
        ]
        private = codes
    else:
        distribution = private.value_counts(normalize=True, sort=False).sort_index()
    nmi = nmi_matrix(table, bins)
    rows = tidy_rows(
        "overview",
        view.name,
        {
            "rows": len(table),
            "attributes": table.shape[1] - 1,
            "private_values": table[view.private].nunique(),
            "private_entropy_bits": _entropy_bits(private),
            "missing_cells": int(table.isna().sum().sum()),
        },
        parameters={"private": view.private, "bins": bins},
    )
    for attribute, value in nmi[view.private].drop(view.private).items():
        # the NMI is of one attribute (with the private one): a facet of the metric
        rows += tidy_rows(
            "nmi_with_private",
            view.name,
            {"nmi": value},
            parameters={"bins": bins},
            facets={"attribute": attribute},
        )
    return tidy_frame(rows), distribution, nmi


def _entropy_bits(column: pd.Series) -> float:
    from ppdp.infotheory import entropy_from_samples

    return float(entropy_from_samples(column.astype("string").fillna("<missing>").to_numpy()))


def dataset_sizes(views: dict[str, PrivateView]) -> pd.DataFrame:
    """Rows of experiment ``"sizes"``: the counts the papers state about their datasets.

    Adult and the census sample: ``rows``; MovieLens-100K: ``users``, ``items`` and
    ``min_ratings_per_user``; MovieLens-1M: ``users`` and ``ratings`` (from the raw ratings, not
    the private view).
    """
    rows = []
    for name in ("adult", "mutual-cover-census"):
        if name in views:
            rows += tidy_rows("sizes", name, {"rows": len(views[name].table)})
    if "movielens-100k" in views:
        data = ds.load_movielens_100k()
        per_user = data.ratings.groupby("user_id").size()
        rows += tidy_rows(
            "sizes",
            "movielens-100k",
            {
                "users": data.users["user_id"].nunique(),
                "items": data.items["item_id"].nunique(),
                "min_ratings_per_user": int(per_user.min()),
            },
        )
    if "movielens-1m" in views:
        data = ds.load_movielens_1m()
        rows += tidy_rows(
            "sizes",
            "movielens-1m",
            {"users": data.users["user_id"].nunique(), "ratings": len(data.ratings)},
        )
    return tidy_frame(rows)


# ------------------------------------------------------------------------------------------------
# Notebook parameters

#: The parameters of notebooks/datasets.ipynb.
PARAMETERS: dict[str, Param] = {
    **COMMON_PARAMETERS,
    "bins": Param("int", low=2),
    "datasets": Param("list", item=Param("str", choices=tuple(VIEWS))),
}


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's parameters checked against :data:`PARAMETERS`, in canonical form.

    See :func:`ppdp.experiments.common.check_parameters`; the notebook calls
    ``globals().update(check_parameters(globals()))`` right after its parameters cell.
    """
    return _check_parameters(values, PARAMETERS)
