"""The problems of the SPPM paper's experiments (Sec. 4.1): prior, distortion and users.

Data (Sec. 4.1)
---------------
* Synthetic: :func:`ppdp.mechanisms.sppm.synthetic_problem` (the toy example of Sec. 2).
* Census: UCI Adult; public profile = (age decade, education, marital status, occupation, race,
  gender, native country), private = income (<=50K / >50K). Rows with a missing public attribute
  are dropped; the alphabet is the ``top`` (300) most frequent profiles and the prior ``p(a, b)``
  is the empirical joint of the rows whose profile is in the alphabet. Hamming distortion as the
  fraction of the 7 attributes that differ (the paper does not say; the normalized distance puts
  its budgets, 0.02 to 0.44, and its statements about them in a consistent range).
* Movie: MovieLens-1M (6,040 users); the preference of user ``u`` for genre ``g`` is the share of
  ``u``'s rated movies in ``g`` divided by the number of movies in ``g``; the public profile marks
  the ``n_top`` (6) most preferred genres (ties by genre order). The paper used 31 Netflix genre
  tags, which are not public; MovieLens's own 18 genres are used instead. Private = gender.
  Hamming distortion normalized by the number of genres; the alphabet is every observed profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ppdp import infotheory
from ppdp.mechanisms import sppm as S
from ppdp.mechanisms.sppm.table import empirical_joint, profile_alphabet

__all__ = [
    "AGE_BINS",
    "CENSUS_DEFAULT_ENCODING",
    "CENSUS_ENCODINGS",
    "CENSUS_FEATURES",
    "CENSUS_LABELS",
    "MISSING",
    "SPLITS",
    "Problem",
    "census_problem",
    "data_table",
    "encoding_label",
    "movie_problem",
    "movie_profiles",
    "synthetic",
]


CENSUS_FEATURES = (
    "age",
    "education",
    "marital_status",
    "occupation",
    "race",
    "sex",
    "native_country",
)


CENSUS_LABELS = {
    "age": "Age",
    "education": "Education",
    "marital_status": "Marital status",
    "occupation": "Occupation",
    "race": "Race",
    "sex": "Gender",
    "native_country": "Country",
}


@dataclass
class Problem:
    """A privacy problem on a finite alphabet, with the users behind its prior.

    Attributes
    ----------
    name : str
    p_ab : ndarray (|A|, |B|)
    distortion : Distortion
    codes : ndarray (|B|, k) or None
        The profile vectors of the alphabet (categorical codes), when the data have them.
    features : list of str
    categories : list of arrays
        Category labels per feature.
    user_profile, user_label : ndarray
        Profile index and private label of each user whose profile is in the alphabet.
    """

    name: str
    p_ab: np.ndarray
    distortion: S.Distortion
    codes: np.ndarray | None = None
    features: list = field(default_factory=list)
    categories: list = field(default_factory=list)
    user_profile: np.ndarray | None = None
    user_label: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.p_ab.shape[1]


def _alphabet_problem(name, codes_all, label, top, features, categories) -> Problem:
    """The public alphabet: observed profiles by decreasing frequency (ties by first sort order),
    the ``top`` most frequent only when ``top`` is set, with the joint prior over (label, profile),
    the normalized Hamming distortion and, per individual whose profile is kept, its profile index
    and label (the library's table helpers, :mod:`ppdp.mechanisms.sppm.table`)."""
    codes, profile, _ = profile_alphabet(codes_all, order="frequency", top=top)
    keep = profile >= 0
    profile, label = profile[keep], label[keep]
    return Problem(
        name,
        empirical_joint(label, profile, 2, codes.shape[0]),
        S.HammingDistortion(codes, normalize=True),
        codes,
        features,
        categories,
        profile,
        label,
    )


AGE_BINS = {"decade": 10, "5y": 5, "20y": 20, "raw": 1}


MISSING = ("drop", "category")


SPLITS = ("all", "train")


def encoding_label(age_bins: str = "decade", missing: str = "drop", split: str = "all") -> str:
    """The name of a Census encoding in the across rows: ``age_<bins>`` (``exact`` for ``"raw"``),
    then ``_missing_kept`` when "?" is a category and ``_train_rows`` for ``adult.data`` only."""
    age = "exact" if age_bins == "raw" else age_bins
    return (
        f"age_{age}"
        + ("_missing_kept" if missing == "category" else "")
        + ("_train_rows" if split == "train" else "")
    )


#: Every Census encoding :func:`census_problem` offers for a given ``top``, by name
#: (:func:`encoding_label`) -> its ``age_bins``, ``missing`` and ``split``; the notebook parameter
#: ``census_encoding_range`` picks from them.
CENSUS_ENCODINGS: dict[str, dict[str, str]] = {
    encoding_label(a, m, s): {"age_bins": a, "missing": m, "split": s}
    for a in AGE_BINS
    for m in MISSING
    for s in SPLITS
}


#: The encoding of :func:`census_problem`'s defaults, the one the experiments use.
CENSUS_DEFAULT_ENCODING = encoding_label()


def census_problem(
    top: int | None = 300, *, age_bins: str = "decade", missing: str = "drop", split: str = "all"
) -> Problem:
    """The Census problem of Sec. 4.1 (see the module docstring).

    The paper gives neither its age binning nor its handling of UCI's missing values; the defaults
    are this compendium's reading, and :func:`~ppdp.experiments.sppm.run.encoding_sensitivity`
    compares the others.

    Parameters
    ----------
    top : int or None, default 300
        Keep the ``top`` most frequent profiles (the paper's 300); ``None`` keeps all.
    age_bins : {"decade", "5y", "20y", "raw"}
        Width of the age bins (10, 5 or 20 years) or the exact age.
    missing : {"drop", "category"}
        Drop rows with a missing public attribute, or keep "?" as a category of its own.
    split : {"all", "train", "test"}
        UCI Adult's rows (:func:`ppdp.datasets.load_adult`).
    """
    from ppdp.datasets import load_adult

    if top is not None and (
        isinstance(top, bool) or not isinstance(top, int | np.integer) or top < 2
    ):
        raise ValueError(f"top must be None or an integer >= 2, got {top!r}")
    if age_bins not in AGE_BINS:
        raise ValueError(f"age_bins must be one of {sorted(AGE_BINS)}, got {age_bins!r}")
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {list(MISSING)}, got {missing!r}")
    df = load_adult(split)
    public = [c for c in CENSUS_FEATURES if c != "age"]
    if missing == "drop":
        df = df.dropna(subset=public).copy()
    else:
        df = df.copy()
        for col in public:
            df[col] = df[col].astype(object).where(df[col].notna(), "?")
    width = AGE_BINS[age_bins]
    df["age"] = (df["age"] // width * width).map(
        lambda a: str(a) if width == 1 else f"{a}-{a + width}"
    )
    codes_all, cats = [], []
    for col in CENSUS_FEATURES:
        cat = pd.Categorical(df[col].astype(str))
        codes_all.append(cat.codes.astype(np.int64))
        cats.append(np.asarray(cat.categories))
    codes_all = np.column_stack(codes_all)
    label = (df["income"].astype(str) == ">50K").to_numpy().astype(np.int64)
    return _alphabet_problem("census", codes_all, label, top, list(CENSUS_FEATURES), cats)


def movie_profiles(n_top: int = 6):
    """Top-``n_top`` genre profiles of MovieLens-1M users (Sec. 4.1).

    Returns
    -------
    profiles : DataFrame indexed by user_id with one 0/1 column per genre, gender : Series (F/M)
    """
    from ppdp.datasets import load_movielens_1m

    ml = load_movielens_1m()
    genres = [c for c in ml.items.columns if c.startswith("genre_")]
    items = ml.items.set_index("item_id")[genres].astype(float)
    r = ml.ratings[["user_id", "item_id"]].merge(
        items, left_on="item_id", right_index=True, how="inner"
    )
    share = r.groupby("user_id")[genres].mean()  # probability the user's movie is in the genre
    pref = share / items.sum(axis=0).to_numpy()[None, :]
    # top-n genres per user, ties by genre order (stable sort on -pref)
    vals = pref.to_numpy()
    order = np.argsort(-vals, axis=1, kind="stable")[:, :n_top]
    prof = np.zeros_like(vals, dtype=np.int64)
    np.put_along_axis(prof, order, 1, axis=1)
    profiles = pd.DataFrame(
        prof, index=pref.index, columns=[g.removeprefix("genre_") for g in genres]
    )
    gender = ml.users.set_index("user_id")["gender"].reindex(profiles.index)
    return profiles, gender


def movie_problem(n_top: int = 6, top: int | None = None) -> Problem:
    """The Movie problem of Sec. 4.1: top-genre binary profiles, private gender, Hamming.

    ``top`` keeps only the ``top`` most frequent profiles (and their users), for quick runs; the
    paper (and ``None``) uses every observed profile.
    """
    if isinstance(n_top, bool) or not isinstance(n_top, int | np.integer) or n_top < 1:
        raise ValueError(f"n_top must be an integer >= 1, got {n_top!r}")
    if top is not None and (
        isinstance(top, bool) or not isinstance(top, int | np.integer) or top < 2
    ):
        raise ValueError(f"top must be None or an integer >= 2, got {top!r}")
    profiles, gender = movie_profiles(n_top)
    codes_all = profiles.to_numpy()
    label = (gender.astype(str) == "M").to_numpy().astype(np.int64)
    binary = [np.array([0, 1])] * profiles.shape[1]
    return _alphabet_problem("movie", codes_all, label, top, list(profiles.columns), binary)


def synthetic(m: int) -> Problem:
    p_ab, dist = S.synthetic_problem(m)
    return Problem(f"synthetic_m{m}", p_ab, dist)


def data_table(problems: Mapping[str, Problem]) -> pd.DataFrame:
    """Size of each problem: alphabet ``|B|``, users behind the prior and ``I(A; B)`` in bits.

    Parameters
    ----------
    problems : mapping of str to Problem
        The row label of each problem (synthetic problems have no users: 0).

    Returns
    -------
    DataFrame
        Indexed by the labels, columns ``alphabet``, ``users`` and ``I(A;B) bits``.
    """
    return pd.DataFrame(
        {
            "alphabet": [p.n for p in problems.values()],
            "users": [
                0 if p.user_profile is None else p.user_profile.size for p in problems.values()
            ],
            "I(A;B) bits": [infotheory.mutual_information(p.p_ab) for p in problems.values()],
        },
        index=list(problems),
    )
