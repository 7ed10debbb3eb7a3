"""Experiments of the SPPM paper (Salamatian et al., UAI 2014), Figs. 2-7 and Table 1.

Every experiment function returns a tidy frame (see :mod:`ppdp.experiments.common`). The notebook
``notebooks/sppm.ipynb`` runs them, shows the tables built from those frames (``*_table``) and the
figures drawn from them (``plot_*``, each returning a matplotlib figure), and derives the claim rows
with :func:`claims`, which also recomputes them from a written results CSV. The paper's own numbers
(Table 1) come from ``claims.yaml`` through :func:`ppdp.published.published_value`.

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

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ppdp import infotheory
from ppdp.classifiers import make_model
from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    DERIVED_EXPERIMENTS,
    Param,
    concat_tidy,
    facet,
    setting_ids,
    tidy_frame,
    tidy_rows,
    with_parameters,
)
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.mechanisms import sppm as S
from ppdp.mechanisms.sppm.table import empirical_joint, profile_alphabet
from ppdp.memo import Memo

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
    are this compendium's reading, and :func:`encoding_sensitivity` compares the others.

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


def encoding_sensitivity(
    tops=(300, None),
    age_bins=tuple(AGE_BINS),
    missing=MISSING,
    splits=("all", "train"),
    published: Mapping[str, float] | None = None,
    reduction_delta: float | None = None,
    n_steps: int = 100,
) -> pd.DataFrame:
    """How the Census numbers the paper states depend on the encoding it does not state.

    For every combination of alphabet size, age binning, handling of missing values and rows:
    ``I(A; B)`` of the alphabet (``leakage_before``, Fig. 2's starting point), ``I(A; F)`` per
    feature before any mapping (``feature_leakage_before`` with the feature as its ``attribute``
    facet, Table 1's first column), whether education, marital status and occupation lead them
    (``top3``), and, given the paper's Table 1 values ``published`` (feature -> bits), the largest
    absolute difference from them (``table1_max_diff``). These are properties of the data alone.

    With ``reduction_delta``, SPPM (``n_steps`` steps, as :func:`table1`) is also fitted at that
    budget on every encoding with a bounded alphabet (``top`` not ``None``), giving Table 1's
    reductions ``I(A; F) - I(A; F^)`` (``feature_leakage_reduction``, per ``attribute``) and
    whether the same three features lead them (``top3_reduction``).

    Returns
    -------
    DataFrame
        Tidy rows of experiment ``"census_encodings"``, one method per encoding, named by its
        settings (``top=300;age=decade;missing=drop;rows=all``, a label only), with the parameters
        ``top`` (``"None"`` for the unbounded alphabet, so a column of text), ``age``,
        ``missing`` and ``rows``.
    """
    rows = []
    for top in tops:
        for age in age_bins:
            for miss in missing:
                for split in splits:
                    problem = census_problem(top, age_bins=age, missing=miss, split=split)
                    before = feature_leakage(problem, None)
                    leaders = sorted(CENSUS_FEATURES, key=lambda f: -before[f])[:3]
                    metrics = {
                        "leakage_before": infotheory.mutual_information(problem.p_ab),
                        "profiles": float(problem.n),
                        "users": float(len(problem.user_label)),
                        "top3": float(
                            set(leaders) == {"education", "marital_status", "occupation"}
                        ),
                    }
                    per_feature = {f: {"feature_leakage_before": v} for f, v in before.items()}
                    if published:
                        metrics["table1_max_diff"] = max(
                            abs(before[f] - v) for f, v in published.items()
                        )
                    if reduction_delta is not None and top is not None:
                        model = _fit("sppm", problem, reduction_delta, n_steps=n_steps)[0]
                        after = feature_leakage(problem, model.mapping_)
                        cut = {f: before[f] - after[f] for f in CENSUS_FEATURES}
                        leaders = sorted(CENSUS_FEATURES, key=lambda f: -cut[f])[:3]
                        metrics["top3_reduction"] = float(
                            set(leaders) == {"education", "marital_status", "occupation"}
                        )
                        for f, v in cut.items():
                            per_feature[f]["feature_leakage_reduction"] = v
                    name = f"top={top};age={age};missing={miss};rows={split}"
                    # the unbounded alphabet is top "None", as the results have always named it
                    # (None would be a missing value, as if the row had no alphabet size at all)
                    size = "None" if top is None else top
                    setting = {"top": size, "age": age, "missing": miss, "rows": split}
                    rows += tidy_rows("census_encodings", name, metrics, parameters=setting)
                    for f, values in per_feature.items():
                        rows += tidy_rows(
                            "census_encodings",
                            name,
                            values,
                            parameters=setting,
                            facets={"attribute": f},
                        )
    return tidy_frame(rows)


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


# ------------------------------------------------------------------------------------------------
# Fig. 2: privacy-distortion trade-off


#: Fitted mappings with their fit times, so that the figures sharing a budget reuse one fit.
FITS = Memo(
    "experiments.sppm.fits",
    "(fitted mapping, seconds) by problem name and digest, method, budget, steps, path, options",
)


def _fingerprint(problem: Problem) -> str:
    """A digest of the prior, the profiles and the distortion: encodings of one data set share a
    name and often an alphabet size, so neither identifies the problem a memoized fit belongs to."""
    digest = hashlib.sha1(np.ascontiguousarray(problem.p_ab, dtype=np.float64).tobytes())
    if problem.codes is not None:
        digest.update(np.ascontiguousarray(problem.codes, dtype=np.int64).tobytes())
    # two rows of the distortion tell apart problems with one prior on other points or scales
    corners = problem.distortion.block(np.array([0, problem.n - 1]))
    digest.update(np.ascontiguousarray(corners, dtype=np.float64).tobytes())
    return digest.hexdigest()


def _fit(method: str, problem: Problem, delta: float, n_steps: int = 100, path=None, **kwargs):
    """Fit one method; results are memoized per (problem, method, delta, n_steps, path) so that
    the figures sharing a budget reuse one mapping (every fit is deterministic).

    Methods: ``"sppm"`` (Algorithms 1-2), ``"optimal"`` (the certified optimum,
    :class:`~ppdp.mechanisms.sppm.CertifiedMapping`), ``"exact"`` (the optimum by cvxpy on all
    pairs, :class:`~ppdp.mechanisms.sppm.ExactMapping`, Fig. 6's reference), ``"expmec"``.

    ``path``, for SPPM and the certified optimum, is a budget grid: the fit at ``delta`` starts
    from the method's mapping at the largest grid budget below ``delta`` (itself warm-started the
    same way). SPPM's leakage then never increases along the grid; the certified optimum reuses
    the smaller budget's support as its first active set. ``None`` starts from the nearest-point
    mapping (SPPM) or from SPPM's support (certified).
    """
    warm = method in ("sppm", "optimal")
    path = None if path is None or not warm else tuple(sorted(float(d) for d in path))
    key = (
        problem.name,
        _fingerprint(problem),
        method,
        float(delta),
        n_steps if method == "sppm" else None,
        path,
        tuple(sorted(kwargs.items())),
    )
    return FITS.get(key, lambda: _fit_now(method, problem, delta, n_steps, path, **kwargs))


def _fit_now(method: str, problem: Problem, delta: float, n_steps: int, path, **kwargs):
    """``(model, seconds)`` of one fit of :func:`_fit`, its warm start looked up first."""
    init = None
    if path is not None:
        below = [d for d in path if d < float(delta)]
        if below:
            init = _fit(method, problem, below[-1], n_steps, path, **kwargs)[0].mapping_
    t0 = time.perf_counter()
    if method == "sppm":
        # the paper's algorithm: its times (Fig. 6) do not include the certificate's extra LP
        options = {"certify": False, **kwargs}
        model = S.SPPM(delta, n_steps=n_steps, **options).fit(
            problem.p_ab, problem.distortion, init=init
        )
    elif method == "optimal":
        model = S.CertifiedMapping(delta, **kwargs).fit(problem.p_ab, problem.distortion, init=init)
    elif method == "exact":
        model = S.ExactMapping(delta, **kwargs).fit(problem.p_ab, problem.distortion)
    elif method == "expmec":
        model = S.ExponentialMechanism(delta=delta, **kwargs).fit(problem.p_ab, problem.distortion)
    else:
        raise ValueError(f"method must be 'sppm', 'optimal', 'exact' or 'expmec', got {method!r}")
    return model, time.perf_counter() - t0


def clear_cache() -> None:
    """Forget memoized fits (timing runs call it so that every time is a fresh fit)."""
    FITS.clear()


def tradeoff(
    problem: Problem,
    deltas,
    *,
    experiment: str,
    methods=("sppm", "optimal", "expmec"),
    n_steps=(100,),
    optimal_max_n: int | None = None,
    warm_start: bool = True,
    parameters: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Leakage ``I(A; B^)`` and expected distortion of each method over a grid of budgets.

    Method names in the frame: ``sppm_L<steps>``, ``optimal``, ``expmec``. ``optimal`` is the
    certified optimum (:class:`~ppdp.mechanisms.sppm.CertifiedMapping`), with its lower bound
    (``lower_bound``) and relative gap (``relative_gap``) beside its leakage; it is skipped for
    alphabets larger than ``optimal_max_n`` (``None``: never). Rows at ``delta = 0`` give
    ``I(A; B)``. With ``warm_start``, SPPM at each budget starts from its own mapping at the next
    smaller budget of ``deltas`` (Algorithm 1 leaves ``X_0`` open), so its curve never goes up,
    and the optimum from the smaller budget's support; without, every budget starts afresh.
    ``parameters`` are added to every row's ``delta`` and ``n`` (e.g. the Census encoding).
    """
    rows = []
    extra = dict(parameters or {})
    for delta in deltas:
        delta = float(delta)
        for method in methods:
            if method == "optimal" and optimal_max_n is not None and problem.n > optimal_max_n:
                continue
            if method == "expmec" and delta == 0:
                continue  # only beta = inf reaches zero distortion: the identity, I(A; B)
            steps_list = n_steps if method == "sppm" else (None,)
            for steps in steps_list:
                if method == "sppm":
                    model, secs = _fit(
                        method,
                        problem,
                        delta,
                        n_steps=int(steps),
                        path=deltas if warm_start else None,
                    )
                    name = f"sppm_L{int(steps)}"
                else:
                    path = deltas if warm_start and method == "optimal" else None
                    model, secs = _fit(method, problem, delta, path=path)
                    name = method
                metrics = {
                    "leakage": model.leakage_,
                    "distortion": model.distortion_,
                    "seconds": secs,
                }
                if method == "expmec":
                    metrics["epsilon"] = model.epsilon_
                if method == "optimal":
                    metrics["lower_bound"] = model.lower_bound_
                    metrics["relative_gap"] = model.relative_gap_
                rows += tidy_rows(
                    experiment,
                    name,
                    metrics,
                    parameters={**extra, "delta": delta, "n": problem.n},
                )
    return tidy_frame(rows)


def synthetic_across(
    ms,
    base_m: int,
    deltas,
    *,
    n_steps=(100,),
    optimal_max_n: int | None = None,
) -> pd.DataFrame:
    """Fig. 2 (left) at the alphabet sizes ``2^m`` the paper leaves open, budgets scaled alike.

    The paper states no ``m`` for its synthetic curve, so its claims on that curve are judged at
    every ``m`` of ``ms`` besides the profile's ``base_m`` (which ``ms`` may contain; it is
    skipped). The squared distortion grows with the square of the alphabet, so the budgets are
    ``deltas`` (those of ``base_m``) times ``(2^m / 2^base_m)^2``: every curve spans the same
    share of its distortion range. Rows as :func:`tradeoff`'s, experiment
    ``fig2_synthetic_across``; the parameter ``n`` tells the alphabets apart.
    """
    frames = []
    for m in sorted({int(m) for m in ms} - {int(base_m)}):
        scale = (2.0 ** (m - int(base_m))) ** 2
        frames.append(
            tradeoff(
                synthetic(m),
                [float(d) * scale for d in deltas],
                experiment="fig2_synthetic_across",
                methods=("sppm", "optimal"),
                n_steps=n_steps,
                optimal_max_n=optimal_max_n,
            )
        )
    return concat_tidy(frames) if frames else tidy_frame([])


def census_across(
    encodings,
    deltas,
    *,
    base: str = CENSUS_DEFAULT_ENCODING,
    top: int = 300,
    n_steps: int = 100,
    optimal_max_n: int | None = None,
) -> pd.DataFrame:
    """Fig. 2 (middle) under the Census encodings the paper leaves open.

    The paper gives neither the age binning nor the handling of missing values nor the rows of its
    Census alphabet, so its claims on SPPM's Census curve (the distortion it needs to reach 0.07
    bits and its gap to the optimum) are judged under every encoding of ``encodings`` (names of
    :data:`CENSUS_ENCODINGS`) besides the profile's ``base``, which is skipped. Each encoding gets
    the curves of SPPM (L = ``n_steps``) and the certified optimum over ``deltas`` exactly as
    :func:`tradeoff` fits the profile's (ExpMec is not needed for these claims). Rows of experiment
    ``fig2_census_across`` with the parameter ``encoding``.
    """
    unknown = [e for e in encodings if e not in CENSUS_ENCODINGS]
    if unknown:
        raise ValueError(f"unknown Census encodings {unknown}; known: {sorted(CENSUS_ENCODINGS)}")
    frames = []
    for label in dict.fromkeys(e for e in encodings if e != base):
        frames.append(
            tradeoff(
                census_problem(top, **CENSUS_ENCODINGS[label]),
                deltas,
                experiment="fig2_census_across",
                methods=("sppm", "optimal"),
                n_steps=(n_steps,),
                optimal_max_n=optimal_max_n,
                parameters={"encoding": label},
            )
        )
    return concat_tidy(frames) if frames else tidy_frame([])


def across_values(claims_rows: pd.DataFrame, names, key: str, base) -> pd.DataFrame:
    """Claims at the profile's value of an unstated setting and at every other one.

    Parameters
    ----------
    claims_rows : DataFrame
        Rows of :func:`claims`: the plain ``<id>`` rows (at the profile's value) and the
        ``<id>.across`` rows (parameter column ``key``).
    names : iterable of str
        Claim ids without the ``sppm.`` prefix.
    key : str
        The setting (``"m"``, ``"encoding"``, ``"delta"``).
    base
        The profile's value of the setting (the plain rows').

    Returns
    -------
    DataFrame
        Index ``key`` (its values, ``base`` among them), one column per claim of ``names``.
    """
    metric = claims_rows["metric"].str.removeprefix("sppm.").str.removesuffix(".across")
    rows = claims_rows.assign(claim=metric)[metric.isin(list(names))]
    plain = ~rows["metric"].str.endswith(".across")
    # the plain rows have no value of the setting (the column is missing there, or absent from a
    # frame without across rows): they are the profile's
    values = with_parameters(rows, [key])[key].astype(object).where(~plain.to_numpy(), base)
    kind = int if isinstance(base, int | np.integer) else float if isinstance(base, float) else str
    rows = rows.assign(**{key: values.map(kind).to_numpy()})
    return rows.pivot_table(index=key, columns="claim", values="value")


def across_table(claims_rows: pd.DataFrame, base_m: int) -> pd.DataFrame:
    """The synthetic claims at every alphabet: index ``m``, a column per claim (without the
    ``sppm.`` prefix), from :func:`claims` rows of ``fig2_synthetic`` and
    ``fig2_synthetic_across``."""
    names = ("synthetic_L100_gap", "synthetic_L500_gain", "synthetic_more_steps_better")
    return across_values(claims_rows, names, "m", int(base_m))


def distortion_to_reach(curve: pd.DataFrame, method: str, target: float) -> float:
    """Smallest budget at which ``method``'s leakage falls to ``target`` (linear interpolation
    of the curve's (distortion, leakage) points; ``nan`` if never reached).

    Examples
    --------
    >>> point = lambda d, i: tidy_rows(
    ...     "fig2", "sppm_L100", {"leakage": i, "distortion": d}, parameters={"delta": d}
    ... )
    >>> curve = tidy_frame(point(0.0, 0.5) + point(0.2, 0.1) + point(0.4, 0.0))
    >>> round(distortion_to_reach(curve, "sppm_L100", 0.3), 12)
    0.1
    """
    sub = curve[curve["method"] == method]
    # one point per setting (budget, alphabet, encoding, whichever the curve has)
    sub = sub.assign(setting=setting_ids(sub))
    wide = sub.pivot_table(index="setting", columns="metric", values="value")
    wide = wide.sort_values("distortion")
    d = wide["distortion"].to_numpy()
    i = wide["leakage"].to_numpy()
    below = np.flatnonzero(i <= target)
    if below.size == 0:
        return float("nan")
    k = int(below[0])
    if k == 0:
        return float(d[0])
    d0, d1, i0, i1 = d[k - 1], d[k], i[k - 1], i[k]
    return float(d0 + (i0 - target) * (d1 - d0) / (i0 - i1))


# ------------------------------------------------------------------------------------------------
# Table 1


def feature_leakage(problem: Problem, mapping) -> dict:
    """``I(A; F^)`` for each feature ``F`` of the released profile (``mapping=None``: before)."""
    import scipy.sparse as sp

    joint = (
        problem.p_ab
        if mapping is None
        else np.asarray((sp.csr_matrix(problem.p_ab) @ sp.csr_matrix(mapping)).todense())
    )
    out = {}
    for k, feat in enumerate(problem.features):
        codes = problem.codes[:, k]
        n_cat = int(codes.max()) + 1
        agg = np.zeros((joint.shape[0], n_cat))
        for a in range(joint.shape[0]):
            agg[a] = np.bincount(codes, weights=joint[a], minlength=n_cat)
        out[feat] = infotheory.mutual_information(agg)
    return out


def table1(
    problem: Problem, delta: float, n_steps: int = 100, path=None, *, experiment: str = "table1"
):
    """Table 1: ``I(A; F)`` per feature before and after SPPM at budget ``delta``.

    Rows ``feature_leakage_before`` and ``feature_leakage_after`` with the feature as their
    ``attribute`` facet, and the whole profile's ``leakage_before`` (``I(A; B)``) and
    ``leakage_after`` (``I(A; B^)``) without one.

    ``path``: the budget grid SPPM is warm-started along (see :func:`tradeoff`); pass the curve's
    grid to reuse its mappings. ``None`` starts from the nearest-point mapping. ``experiment``
    names the rows (:func:`table1_across` uses ``"table1_across"``).
    """
    model = _fit("sppm", problem, delta, n_steps=n_steps, path=path)[0]
    before = feature_leakage(problem, None)
    after = feature_leakage(problem, model.mapping_)
    rows = []
    for feat in problem.features:
        rows += tidy_rows(
            experiment,
            "sppm",
            {"feature_leakage_before": before[feat], "feature_leakage_after": after[feat]},
            parameters={"delta": delta},
            facets={"attribute": feat},
        )
    rows += tidy_rows(
        experiment,
        "sppm",
        {
            "leakage_before": infotheory.mutual_information(problem.p_ab),
            "leakage_after": model.leakage_,
        },
        parameters={"delta": delta},
    )
    return tidy_frame(rows), model


def _other_budgets(deltas, base_delta) -> list[float]:
    """The budgets of ``deltas`` other than the profile's ``base_delta``, once each, in order."""
    return sorted({float(d) for d in deltas} - {float(base_delta)})


def table1_across(problem: Problem, deltas, base_delta: float, n_steps: int = 100) -> pd.DataFrame:
    """Table 1 at the budgets the paper leaves open: :func:`table1` (from the nearest-point
    mapping, as the profile's) at every budget of ``deltas`` but the profile's ``base_delta``,
    as rows of experiment ``table1_across``. The fits are memoized, so a budget that Fig. 3 fits
    from the same start (:func:`roc_experiment` without ``path``) is fitted once."""
    frames = [
        table1(problem, d, n_steps=n_steps, experiment="table1_across")[0]
        for d in _other_budgets(deltas, base_delta)
    ]
    return concat_tidy(frames) if frames else tidy_frame([])


# ------------------------------------------------------------------------------------------------
# Figs. 3-4: ROC of an inference attack on released data

FPR_GRID = np.round(np.linspace(0, 1, 21), 2)


def _classifier(kind: str, n_categories=None):
    if kind not in ("naive_bayes", "logistic"):
        raise ValueError(f"classifier must be 'naive_bayes' or 'logistic', got {kind!r}")
    return make_model(kind, n_categories=n_categories)


def roc_attack(
    problem: Problem,
    mappings: dict,
    delta: float,
    *,
    classifier: str,
    experiment: str,
    seed: int,
    test_size: float = 0.5,
) -> pd.DataFrame:
    """ROC of a classifier inferring the private label from released profiles.

    Each user's release ``b^`` is drawn from the mapping (seeded); the classifier is trained on the
    releases of a random half of the users with their true labels and scored on the other half.
    ``mappings`` maps a method name to a mapping (``"none"`` = identity, no privacy). Returns the
    AUC and the true-positive rate on a fixed false-positive grid (parameter ``fpr``).
    """
    from sklearn.metrics import roc_auc_score, roc_curve
    from sklearn.model_selection import train_test_split

    users = np.arange(problem.user_profile.size)
    train, test = train_test_split(
        users, test_size=test_size, random_state=seed, stratify=problem.user_label
    )
    n_cat = np.array([len(c) for c in problem.categories])
    rows = []
    for i, (method, mapping) in enumerate(sorted(mappings.items())):
        rng = np.random.default_rng([seed, i])
        if mapping is None:
            released = problem.user_profile
        else:
            released = S.sample_release(mapping, problem.user_profile, rng)
        X = problem.codes[released]
        y = problem.user_label
        clf = _classifier(classifier, n_cat)
        clf.fit(X[train], y[train])
        score = clf.predict_proba(X[test])[:, 1]
        auc = roc_auc_score(y[test], score)
        fpr, tpr, _ = roc_curve(y[test], score)
        tpr_grid = np.interp(FPR_GRID, fpr, tpr)
        rows += tidy_rows(experiment, method, {"auc": auc}, parameters={"delta": delta}, seed=seed)
        for f, t in zip(FPR_GRID, tpr_grid, strict=True):
            rows += tidy_rows(
                experiment,
                method,
                {"tpr": t},
                parameters={"delta": delta, "fpr": float(f)},
                seed=seed,
            )
    return tidy_frame(rows)


def roc_experiment(
    problem: Problem,
    deltas,
    *,
    classifier: str,
    experiment: str,
    seeds=(0,),
    n_steps: int = 100,
    optimal_max_n: int | None = None,
    path=None,
    optimal_path=None,
) -> pd.DataFrame:
    """Figs. 3-4: for each budget, fit SPPM, ExpMec and the certified optimum (on alphabets of at
    most ``optimal_max_n`` profiles; ``None``: always) and run the attack of :func:`roc_attack`
    on each release, plus the unprotected baseline.

    ``path`` and ``optimal_path``: the budget grids SPPM and the optimum are warm-started along
    (see :func:`tradeoff`); pass the curve's grid to reuse its fits. ``None`` starts each budget
    afresh. The optimum is the same either way up to its certificate's gap, but a warm start
    saves most of its time (a budget where the smaller one already leaks nothing costs nothing);
    SPPM's mapping depends on its start.
    """
    frames = []
    for delta in deltas:
        mappings = {"none": None}
        mappings["sppm"] = _fit("sppm", problem, delta, n_steps=n_steps, path=path)[0].mapping_
        mappings["expmec"] = _fit("expmec", problem, delta)[0].mapping_
        if optimal_max_n is None or problem.n <= optimal_max_n:
            mappings["optimal"] = _fit("optimal", problem, delta, path=optimal_path)[0].mapping_
        for seed in seeds:
            frames.append(
                roc_attack(
                    problem,
                    mappings,
                    float(delta),
                    classifier=classifier,
                    experiment=experiment,
                    seed=int(seed),
                )
            )
    return concat_tidy(frames)


# ------------------------------------------------------------------------------------------------
# Fig. 5: probability of mapping to the k-th nearest point


def nearest_point_experiment(
    m: int, delta: float, k_max: int = 10, n_steps: int = 100
) -> pd.DataFrame:
    """Fig. 5 on the synthetic data: mean (and spread) over profiles of ``p(k-th nearest | b)``.

    Rows ``kth_nearest_probability`` with the ``statistic`` facet ``mean``, ``std`` or ``sem``
    (over the profiles) and the parameters ``k`` (1 = the point itself), ``delta`` and ``m``.
    """
    problem = synthetic(m)
    rows = []
    for method in ("sppm", "expmec"):
        model, _ = (
            _fit(method, problem, delta, n_steps=n_steps)
            if method == "sppm"
            else _fit(method, problem, delta)
        )
        prof = S.nearest_point_profile(model.mapping_, problem.distortion, k_max=k_max)
        for rec in prof.itertuples():
            for statistic in ("mean", "std", "sem"):
                rows += tidy_rows(
                    "fig5",
                    method,
                    {"kth_nearest_probability": getattr(rec, statistic)},
                    parameters={"delta": delta, "k": int(rec.k) + 1, "m": m},
                    facets={"statistic": statistic},
                )
    return tidy_frame(rows)


# ------------------------------------------------------------------------------------------------
# Fig. 6: run time vs alphabet size


def timing_experiment(
    ms,
    n_steps=(3, 10, 100),
    *,
    delta_per_point: float = 0.05,
    exact_max_n: int = 256,
    repeats: int = 1,
) -> pd.DataFrame:
    """Fig. 6: seconds to compute each mapping on the synthetic data, ``delta = c |B|``.

    The budget grows in proportion to the alphabet (Sec. 4.3, "Scalability"); ``c`` is
    ``delta_per_point``. Times are minima over ``repeats`` runs; machine-dependent. Every fit is
    fresh; the fits memoized before the call are kept (Fig. 7's across budgets reuse Fig. 4's).
    """
    with FITS.isolated():
        return _timing_rows(ms, n_steps, delta_per_point, exact_max_n, repeats)


def _timing_rows(ms, n_steps, delta_per_point, exact_max_n, repeats) -> pd.DataFrame:
    rows = []
    for m in ms:
        problem = synthetic(int(m))
        delta = delta_per_point * problem.n
        runs = [("expmec", None)] + [("sppm", L) for L in n_steps]
        if problem.n <= exact_max_n:
            runs.append(("exact", None))
        for method, L in runs:
            best, model = np.inf, None
            for _ in range(repeats):
                clear_cache()
                if method == "sppm":
                    model, secs = _fit(method, problem, delta, n_steps=L)
                else:
                    model, secs = _fit(method, problem, delta)
                best = min(best, secs)
            name = f"sppm_L{L}" if method == "sppm" else method
            rows += tidy_rows(
                "fig6",
                name,
                {"seconds": best, "leakage": model.leakage_},
                parameters={"n": problem.n, "delta": delta},
            )
    return tidy_frame(rows)


# ------------------------------------------------------------------------------------------------
# Fig. 7: support sizes


def support_sizes(mapping) -> np.ndarray:
    """Number of released values each profile maps to with positive probability."""
    import scipy.sparse as sp

    M = sp.csr_matrix(mapping)
    return np.diff(M.indptr)


def support_experiment(
    problem: Problem, delta: float, n_steps: int = 100, path=None, *, experiment: str = "fig7"
):
    """Fig. 7: histogram of the support sizes of SPPM's ``p(. | b)`` (weighted by profile count
    and unweighted).

    Rows ``profiles`` per support size (parameter ``support``), and ``support_size`` with the
    ``statistic`` facet ``max``, ``median`` or ``frac_le10`` (share of profiles with at most 10
    released values), beside the alphabet size, leakage and distortion of the mapping.

    ``path``: the budget grid SPPM is warm-started along (see :func:`tradeoff`); pass the curve's
    grid to reuse its mappings. ``None`` starts from the nearest-point mapping. ``experiment``
    names the rows (:func:`support_across` uses ``"fig7_across"``).
    """
    model = _fit("sppm", problem, delta, n_steps=n_steps, path=path)[0]
    sizes = support_sizes(model.mapping_)
    rows = []
    counts = np.bincount(sizes)
    for size, count in enumerate(counts):
        if count:
            rows += tidy_rows(
                experiment,
                "sppm",
                {"profiles": count},
                parameters={"delta": delta, "support": size},
            )
    statistics = {
        "max": sizes.max(),
        "median": float(np.median(sizes)),
        "frac_le10": float(np.mean(sizes <= 10)),
    }
    for statistic, value in statistics.items():
        rows += tidy_rows(
            experiment,
            "sppm",
            {"support_size": value},
            parameters={"delta": delta},
            facets={"statistic": statistic},
        )
    rows += tidy_rows(
        experiment,
        "sppm",
        {
            "alphabet": problem.n,
            "leakage": model.leakage_,
            "distortion": model.distortion_,
            "leakage_before": infotheory.mutual_information(problem.p_ab),
        },
        parameters={"delta": delta},
    )
    return tidy_frame(rows), model


def support_across(problem: Problem, deltas, base_delta: float, n_steps: int = 100) -> pd.DataFrame:
    """Fig. 7 at the budgets the paper leaves open: :func:`support_experiment` (from the
    nearest-point mapping, as the profile's) at every budget of ``deltas`` but the profile's
    ``base_delta``, as rows of experiment ``fig7_across``. The fits are memoized: a budget of
    Fig. 4 (:func:`roc_experiment` without ``path``, same steps) reuses Fig. 4's mapping."""
    frames = [
        support_experiment(problem, d, n_steps=n_steps, experiment="fig7_across")[0]
        for d in _other_budgets(deltas, base_delta)
    ]
    return concat_tidy(frames) if frames else tidy_frame([])


# ------------------------------------------------------------------------------------------------
# claims


def _synthetic_claims(curve: pd.DataFrame) -> dict[str, float]:
    """Fig. 2 (left)'s claims on one synthetic curve (rows of one alphabet)."""
    lk = curve[curve["metric"] == "leakage"].pivot_table(
        index="delta", columns="method", values="value"
    )
    out = {}
    if {"sppm_L100", "optimal"} <= set(lk.columns):
        out["sppm.synthetic_L100_gap"] = float((lk["sppm_L100"] - lk["optimal"]).max())
    if {"sppm_L100", "sppm_L500"} <= set(lk.columns):
        out["sppm.synthetic_L500_gain"] = float((lk["sppm_L100"] - lk["sppm_L500"]).max())
    if {"sppm_L3", "sppm_L100"} <= set(lk.columns):
        ordered = float((lk["sppm_L3"] >= lk["sppm_L100"] - 1e-9).all())
        out["sppm.synthetic_more_steps_better"] = ordered
    return out


#: Census target of Sec. 4.3 (bits): the leakage SPPM's distortion is read at.
CENSUS_TARGET = 0.07


def _census_curve_claims(curve: pd.DataFrame) -> dict[str, float]:
    """The claims on SPPM's Census curve that :func:`census_across` judges under other encodings
    (rows of one encoding): the distortion SPPM (L = 100) needs to reach 0.07 bits and its largest
    gap above the certified optimum, each where its curves are present."""
    out = {}
    methods = set(curve["method"])
    if "sppm_L100" in methods:
        out["sppm.census_sppm_distortion"] = distortion_to_reach(curve, "sppm_L100", CENSUS_TARGET)
    lk = curve[curve["metric"] == "leakage"].pivot_table(
        index="delta", columns="method", values="value"
    )
    if {"sppm_L100", "optimal"} <= set(lk.columns):
        both = lk[["sppm_L100", "optimal"]].dropna()
        out["sppm.census_gap_to_optimal"] = float((both["sppm_L100"] - both["optimal"]).max())
    return out


def claims(results: pd.DataFrame) -> pd.DataFrame:
    """The values the paper's claims are judged on, as tidy rows (``experiment == "claims"``).

    Parameters
    ----------
    results : DataFrame
        The tidy rows of the notebook's experiments (``fig2_*``, ``table1``, ``fig3``, ``fig4``,
        ``fig6``, ``fig7``), as the notebook builds them or as :func:`read_results
        <ppdp.experiments.common.read_results>` reads them back from its results CSV. Rows of the
        experiments ``"claims"`` and ``"claim_context"`` are ignored, so the claims can be
        recomputed from a written run. Experiments that are absent give no claim rows.

    Returns
    -------
    DataFrame
        Tidy rows, one per claim id of ``claims.yaml`` (``metric``), plus ``"claim_context"`` rows
        (Census ExpMec distortion, the context of the Census ratio claim, and Movie's largest gap
        of SPPM above the certified optimum, which the paper does not draw).

    Notes
    -----
    * Fig. 2: the budget at which SPPM (``sppm_L100``) and ExpMec reach a target leakage (0.07 bits
      on Census, 0.05 on Movie; :func:`distortion_to_reach`), their ratio, ``I(A; B)`` (the leakage
      at ``delta = 0``), SPPM below ExpMec at every common budget (1/0) and the largest gap of SPPM
      above the optimum; on the synthetic data the largest gap of ``L = 100`` above the optimum,
      the largest gain of ``L = 500`` over ``L = 100`` and whether ``L = 3`` never beats
      ``L = 100``; the same three at every other alphabet of :func:`synthetic_across` as
      ``<id>.across`` rows with the parameter ``m`` (the paper states no ``m``). SPPM's Census
      distortion to 0.07 bits and its gap to the optimum under every other encoding of
      :func:`census_across` as ``<id>.across`` rows with the parameter ``encoding``.
    * Table 1: education before and after, and whether education, marital status and occupation
      are the three features with the most leakage before and with the largest reduction;
      education after at every other budget of :func:`table1_across` as ``<id>.across`` rows
      with the parameter ``delta`` (the paper states no budget).
    * Figs. 3-4: SPPM's AUC below ExpMec's at every budget (means over seeds) and SPPM's AUC at the
      largest budget.
    * Fig. 6: exact over SPPM time at the largest alphabet both were run on.
    * Fig. 7: the largest support and the share of supports of at most 10; both at every other
      budget of :func:`support_across` as ``<id>.across`` rows with the parameter ``delta``.
    """
    frame = results[~results["experiment"].isin(DERIVED_EXPERIMENTS)]
    # results without any curve or budget still have the columns the selections below read
    frame = with_parameters(frame, ("delta", "n"))
    rows = []

    def get(exp, method, metric, **facets):
        sel = (
            (frame["experiment"] == exp) & (frame["method"] == method) & (frame["metric"] == metric)
        )
        for name, value in facets.items():
            sel &= facet(frame, name) == value
        vals = frame.loc[sel, "value"]
        return float(vals.mean()) if len(vals) else float("nan")

    for name, exp, target in (("census", "fig2_census", 0.07), ("movie", "fig2_movie", 0.05)):
        curve = frame[frame["experiment"] == exp]
        if curve.empty:
            continue
        d_sppm = distortion_to_reach(curve, "sppm_L100", target)
        d_exp = distortion_to_reach(curve, "expmec", target)
        zero = curve[(curve["metric"] == "leakage") & (curve["delta"] == 0)]
        rows += tidy_rows(
            "claims",
            "sppm",
            {
                f"sppm.{name}_leakage_before": float(zero["value"].max())
                if len(zero)
                else float("nan")
            },
        )
        rows += tidy_rows("claims", "sppm", {f"sppm.{name}_sppm_distortion": d_sppm})
        # the paper states ExpMec's own distortion for Movie; for Census only the ratio, so the
        # Census value is kept as context for that ratio rather than as a claim of its own
        exp_kind = "claims" if name == "movie" else "claim_context"
        rows += tidy_rows(exp_kind, "expmec", {f"sppm.{name}_expmec_distortion": d_exp})
        rows += tidy_rows(
            "claims",
            "",
            {f"sppm.{name}_expmec_ratio": d_exp / d_sppm if d_sppm > 0 else float("nan")},
        )
        # SPPM below ExpMec at every common budget > 0
        lk = curve[curve["metric"] == "leakage"].pivot_table(
            index="delta", columns="method", values="value"
        )
        if {"sppm_L100", "expmec"} <= set(lk.columns):
            both = lk[["sppm_L100", "expmec"]].dropna()
            rows += tidy_rows(
                "claims",
                "",
                {
                    f"sppm.{name}_sppm_below_expmec": float(
                        (both["sppm_L100"] <= both["expmec"] + 1e-9).all()
                    )
                },
            )
        if {"sppm_L100", "optimal"} <= set(lk.columns):
            both = lk[["sppm_L100", "optimal"]].dropna()
            # the paper compares with the optimum on Census only; Movie's gap is context
            rows += tidy_rows(
                "claims" if name == "census" else "claim_context",
                "",
                {f"sppm.{name}_gap_to_optimal": float((both["sppm_L100"] - both["optimal"]).max())},
            )

    syn = frame[frame["experiment"] == "fig2_synthetic"]
    if not syn.empty:
        rows += tidy_rows("claims", "", _synthetic_claims(syn))
    # the same claims at the other alphabets (m unstated): "<id>.across" rows, one per m
    across = frame[frame["experiment"] == "fig2_synthetic_across"]
    for n, block in across.groupby(across["n"].astype(int)):  # float where other rows lack n
        m = int(n).bit_length() - 1  # n = 2^m
        values = {f"{claim}.across": v for claim, v in _synthetic_claims(block).items()}
        rows += tidy_rows("claims", "", values, parameters={"m": m})
    # SPPM's Census curve under the other encodings (unstated): one row per claim and encoding
    across = frame[frame["experiment"] == "fig2_census_across"]
    if not across.empty:
        label = across["encoding"].astype(str)
        for encoding, block in across.groupby(label.to_numpy()):
            values = {f"{claim}.across": v for claim, v in _census_curve_claims(block).items()}
            rows += tidy_rows("claims", "", values, parameters={"encoding": encoding})

    t1 = frame[frame["experiment"] == "table1"]
    if not t1.empty:
        before = {
            f: get("table1", "sppm", "feature_leakage_before", attribute=f) for f in CENSUS_FEATURES
        }
        after = {
            f: get("table1", "sppm", "feature_leakage_after", attribute=f) for f in CENSUS_FEATURES
        }
        rows += tidy_rows(
            "claims",
            "",
            {
                "sppm.table1_education_before": before["education"],
                "sppm.table1_education_after": after["education"],
            },
        )

        # Table 1: education, marital status and occupation lead both before and in reduction
        def paper_top3(score: dict) -> float:
            top3 = sorted(CENSUS_FEATURES, key=lambda f: -score[f])[:3]
            return float(set(top3) == {"education", "marital_status", "occupation"})

        reduction = {f: before[f] - after[f] for f in CENSUS_FEATURES}
        rows += tidy_rows(
            "claims",
            "",
            {
                "sppm.table1_top3_before": paper_top3(before),
                "sppm.table1_top3_reduction": paper_top3(reduction),
            },
        )
    # Table 1 at the other budgets (unstated): education after, one row per budget
    t1x = frame[
        (frame["experiment"] == "table1_across")
        & (frame["metric"] == "feature_leakage_after")
        & (facet(frame, "attribute") == "education")
    ]
    for delta, block in t1x.groupby("delta"):
        rows += tidy_rows(
            "claims",
            "",
            {"sppm.table1_education_after.across": float(block["value"].mean())},
            parameters={"delta": float(delta)},
        )

    for exp, name in (("fig3", "census"), ("fig4", "movie")):
        roc = frame[(frame["experiment"] == exp) & (frame["metric"] == "auc")]
        if roc.empty:
            continue
        auc = roc.groupby(["delta", "method"])["value"].mean().unstack()
        if {"sppm", "expmec"} <= set(auc.columns):
            rows += tidy_rows(
                "claims",
                "",
                {
                    f"sppm.{name}_auc_sppm_below_expmec": float(
                        (auc["sppm"] <= auc["expmec"] + 1e-9).all()
                    )
                },
            )
            rows += tidy_rows(
                "claims",
                "",
                {
                    f"sppm.{name}_auc_largest_delta_sppm": float(
                        auc["sppm"].iloc[np.argmax(auc.index.to_numpy())]
                    )
                },
            )

    f7 = frame[(frame["experiment"] == "fig7")]
    if not f7.empty:
        rows += tidy_rows(
            "claims",
            "sppm",
            {
                "sppm.movie_support_max": get("fig7", "sppm", "support_size", statistic="max"),
                "sppm.movie_support_frac_le10": get(
                    "fig7", "sppm", "support_size", statistic="frac_le10"
                ),
            },
        )
    # Fig. 7 at the other budgets (unstated): one row per claim and budget
    f7x = frame[(frame["experiment"] == "fig7_across") & (frame["metric"] == "support_size")]
    for delta, block in f7x.groupby("delta"):
        stats = block.groupby(facet(block, "statistic"))["value"].mean()
        rows += tidy_rows(
            "claims",
            "sppm",
            {
                "sppm.movie_support_max.across": stats["max"],
                "sppm.movie_support_frac_le10.across": stats["frac_le10"],
            },
            parameters={"delta": float(delta)},
        )

    f6 = frame[(frame["experiment"] == "fig6") & (frame["metric"] == "seconds")]
    if not f6.empty:
        sec = f6.pivot_table(index="n", columns="method", values="value")
        if {"sppm_L100", "exact"} <= set(sec.columns):
            common = sec.dropna(subset=["sppm_L100", "exact"]).sort_index()
            if len(common):
                last = common.iloc[-1]
                rows += tidy_rows(
                    "claims",
                    "",
                    {"sppm.fig6_exact_over_sppm_time": float(last["exact"] / last["sppm_L100"])},
                )
    return tidy_frame(rows)


# ------------------------------------------------------------------------------------------------
# Tables shown by the notebook

#: House-style index (colour and marker, :func:`ppdp.plotting.method_style`) of each method; the
#: figures draw methods in this order.
METHOD_STYLE = {
    "optimal": 0,
    "exact": 0,
    "sppm_L100": 1,
    "sppm": 1,
    "expmec": 2,
    "sppm_L3": 3,
    "sppm_L10": 4,
    "sppm_L500": 5,
    "none": 7,
}
_METHOD_LABELS = {
    "none": "No privacy",
    "sppm": "SPPM",
    "expmec": "ExpMec",
    "optimal": "Optimal (certified)",
    "exact": "Exact (cvxpy)",
}
#: The panels of Fig. 2: experiment and title.
FIG2_PANELS = (
    ("fig2_synthetic", "Synthetic"),
    ("fig2_census", "Census"),
    ("fig2_movie", "Movie"),
)


def method_label(method: str) -> str:
    """The legend label of a method name of the frames (``sppm_L100`` -> ``SPPM L=100``)."""
    if method in _METHOD_LABELS:
        return _METHOD_LABELS[method]
    if method.startswith("sppm_L"):
        return "SPPM L=" + method.removeprefix("sppm_L")
    return method


def _by_style(methods) -> list:
    return sorted(methods, key=lambda m: METHOD_STYLE.get(m, 9))


def _rows(frame: pd.DataFrame, experiment: str, metrics=None) -> pd.DataFrame:
    """The rows of one experiment (and of some metrics); an error when there are none."""
    sel = frame["experiment"] == experiment
    if metrics is not None:
        sel &= frame["metric"].isin(list(metrics))
    if not sel.any():
        wanted = "" if metrics is None else f" with metrics {list(metrics)}"
        raise ValueError(
            f"frame has no rows of experiment {experiment!r}{wanted}; it holds the experiments "
            f"{sorted(frame['experiment'].unique())}"
        )
    return frame[sel]


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


def curve_table(frame: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """Fig. 2's curves: leakage and distortion per budget and method.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of ``experiment`` (from :func:`tradeoff`).
    experiment : str
        ``"fig2_synthetic"``, ``"fig2_census"`` or ``"fig2_movie"``.

    Returns
    -------
    DataFrame
        Indexed by ``delta`` (float), columns ``(metric, method)`` with metric ``leakage`` or
        ``distortion``; missing where a method was not run at that budget.
    """
    sub = _rows(frame, experiment, ("leakage", "distortion"))
    sub = sub.assign(delta=sub["delta"].astype(float))
    return sub.pivot_table(index="delta", columns=["metric", "method"], values="value")


def certificate_table(frame: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """The certified optimum of one Fig. 2 curve: per budget, the leakage of the returned mapping
    (an upper bound on the optimum), the certified lower bound, their relative gap and SPPM's
    distance above the optimum (L = 100, measured against the upper bound).

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of ``experiment`` (from :func:`tradeoff` with ``"optimal"``).
    experiment : str
        ``"fig2_synthetic"``, ``"fig2_census"`` or ``"fig2_movie"``.

    Returns
    -------
    DataFrame
        Indexed by ``delta``: ``upper``, ``lower``, ``relative_gap`` (NaN where the optimum is zero
        up to the solver's 1e-7 bits) and, when SPPM with L = 100 ran, ``sppm_L100_above``.
    """
    sub = _rows(frame, experiment)
    opt = sub[sub["method"] == "optimal"]
    if opt.empty:
        raise ValueError(f"experiment {experiment!r} has no rows of the certified optimum")
    opt = opt.assign(delta=opt["delta"].astype(float))
    wide = opt.pivot_table(index="delta", columns="metric", values="value", dropna=False)
    out = pd.DataFrame(
        {
            "upper": wide["leakage"],
            "lower": wide["lower_bound"],
            "relative_gap": wide["relative_gap"],
        }
    )
    leak = curve_table(frame, experiment)["leakage"]
    if "sppm_L100" in leak.columns:
        out["sppm_L100_above"] = leak["sppm_L100"] - out["upper"]
    return out


def table1_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1: ``I(A; F)`` per Census feature before and after SPPM, beside the paper's values.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"table1"`` at one budget (from :func:`table1`).

    Returns
    -------
    DataFrame
        Columns ``feature`` (label), ``before``, ``after``, ``paper before``, ``paper after``; the
        paper's values are the ``sppm.table1.<feature>`` entries of ``claims.yaml``
        (:func:`ppdp.published.published_value`).
    """
    from ppdp.published import published_value

    t1 = _rows(frame, "table1", ("feature_leakage_before", "feature_leakage_after"))

    def ours(metric: str, feature: str) -> float:
        sel = (t1["metric"] == metric) & (facet(t1, "attribute") == feature)
        return t1.loc[sel, "value"].item()

    paper = {f: published_value(f"sppm.table1.{f}") for f in CENSUS_FEATURES}
    return pd.DataFrame(
        {
            "feature": [CENSUS_LABELS[f] for f in CENSUS_FEATURES],
            "before": [ours("feature_leakage_before", f) for f in CENSUS_FEATURES],
            "after": [ours("feature_leakage_after", f) for f in CENSUS_FEATURES],
            "paper before": [paper[f][0] for f in CENSUS_FEATURES],
            "paper after": [paper[f][1] for f in CENSUS_FEATURES],
        }
    )


def published_table1() -> dict[str, float]:
    """The paper's Table 1 "before" values, feature -> bits (from ``claims.yaml``)."""
    from ppdp.published import published_value

    return {f: published_value(f"sppm.table1.{f}")[0] for f in CENSUS_FEATURES}


def encoding_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`encoding_sensitivity`, one per encoding, closest to Table 1 first.

    Columns: ``I(A;B)``, profiles, users, whether education, marital status and occupation lead
    (``top3``) and lead the reductions (``top3 reduction``, when fitted), the largest difference
    from Table 1's before-values, and ``I(A;F)`` (``feature_leakage_before``) of the features that
    decide the ordering."""
    sub = frame[frame["experiment"] == "census_encodings"]
    attribute = facet(sub, "attribute")
    # one column per metric of the whole encoding, then one per feature of I(A; F) before
    whole = sub[attribute.isna()].pivot_table(index="method", columns="metric", values="value")
    before = sub[(sub["metric"] == "feature_leakage_before") & attribute.notna()]
    per_feature = before.pivot_table(index="method", columns="attribute", values="value")
    columns = {
        "leakage_before": "I(A;B)",
        "profiles": "profiles",
        "users": "users",
        "top3": "top3",
        "top3_reduction": "top3 reduction",
        "table1_max_diff": "max |diff| Table 1",
    }
    features = {
        "education": "education",
        "marital_status": "marital",
        "occupation": "occupation",
        "age": "age",
        "sex": "gender",
        "native_country": "country",
    }
    wide = pd.concat(
        [
            whole[[c for c in columns if c in whole.columns]].rename(columns=columns),
            per_feature[[f for f in features if f in per_feature.columns]].rename(columns=features),
        ],
        axis=1,
    ).rename_axis(columns="metric")
    key = "max |diff| Table 1" if "max |diff| Table 1" in wide.columns else "I(A;B)"
    return wide.sort_values([key, "I(A;B)"]).rename_axis("encoding")


def auc_table(frame: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """Figs. 3-4: the attack's AUC per budget and method, mean over seeds.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of ``experiment`` (from :func:`roc_experiment`).
    experiment : str
        ``"fig3"`` (Census) or ``"fig4"`` (Movie).

    Returns
    -------
    DataFrame
        Indexed by ``delta`` (float), one column per method (``none`` = no privacy).
    """
    sub = _rows(frame, experiment, ("auc",))
    sub = sub.assign(delta=sub["delta"].astype(float))
    return sub.groupby(["delta", "method"])["value"].mean().unstack()


def nearest_point_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5: ``p(k-th nearest | b)`` over profiles ``b``, per ``k`` and method.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig5"`` (from :func:`nearest_point_experiment`).

    Returns
    -------
    DataFrame
        Indexed by ``k`` (1 = the point itself), columns ``(statistic, method)`` with statistic
        ``mean``, ``std`` or ``sem`` (over the profiles).
    """
    sub = _rows(frame, "fig5", ("kth_nearest_probability",))
    sub = sub.assign(k=sub["k"].astype("int64"))  # float where other experiments' rows lack k
    return sub.pivot_table(index="k", columns=["statistic", "method"], values="value")


def time_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6: seconds per alphabet size and method.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig6"`` (from :func:`timing_experiment`).

    Returns
    -------
    DataFrame
        Indexed by the alphabet size ``n`` (int), one column per method; missing where a method
        was not run.
    """
    sub = _rows(frame, "fig6", ("seconds",))
    sub = sub.assign(n=sub["n"].astype("int64"))  # float where other experiments' rows lack n
    return sub.pivot_table(index="n", columns="method", values="value")


def support_table(frame: pd.DataFrame) -> pd.Series:
    """Fig. 7 in numbers: alphabet size, largest and median support, share of supports <= 10.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig7"`` at one budget (from
        :func:`support_experiment`).

    Returns
    -------
    Series
        ``alphabet``, ``max``, ``median`` and ``share <= 10``.
    """
    f7 = _rows(frame, "fig7")
    statistic = facet(f7, "statistic")
    sizes = {"max": "max", "median": "median", "share <= 10": "frac_le10"}
    values = {"alphabet": f7.loc[f7["metric"] == "alphabet", "value"].item()}
    for label, name in sizes.items():
        sel = (f7["metric"] == "support_size") & (statistic == name)
        values[label] = f7.loc[sel, "value"].item()
    return pd.Series(values)


# ------------------------------------------------------------------------------------------------
# Figures


def plot_tradeoff(frame: pd.DataFrame):
    """Fig. 2: leakage ``I(A; B^)`` against distortion, one panel per dataset.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of one or more of the experiments ``fig2_synthetic``,
        ``fig2_census`` and ``fig2_movie`` (from :func:`tradeoff`); a panel for each present.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

    present = set(frame["experiment"])
    panels = [(exp, title) for exp, title in FIG2_PANELS if exp in present]
    if not panels:
        raise ValueError(
            f"frame has none of the experiments {[exp for exp, _ in FIG2_PANELS]}; it holds "
            f"{sorted(present)}"
        )
    fig, axes = plt.subplots(1, len(panels), figsize=(13 * len(panels) / 3, 3.6), squeeze=False)
    for ax, (exp, title) in zip(axes[0], panels, strict=True):
        tab = curve_table(frame, exp)
        for method in _by_style(tab["leakage"].columns):
            xs, ys = tab["distortion"][method], tab["leakage"][method]
            ok = xs.notna() & ys.notna()
            style = method_style(METHOD_STYLE.get(method, 6))
            ax.plot(xs[ok], ys[ok], label=method_label(method), **style)
        ax.set_xlabel("distortion $E[d(B,\\hat B)]$")
        ax.set_ylabel("$I(A;\\hat B)$ (bits)")
        ax.set_title(title)
        ax.legend()
    return fig


def plot_roc(frame: pd.DataFrame, experiment: str, title: str):
    """Figs. 3-4: ROC curves of the attack (mean over seeds), one panel per budget.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of ``experiment`` (from :func:`roc_experiment`).
    experiment : str
        ``"fig3"`` (Census) or ``"fig4"`` (Movie).
    title : str
        Start of each panel's title (the budget follows).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

    auc = auc_table(frame, experiment)
    tpr = _rows(frame, experiment, ("tpr",))
    tpr = tpr.assign(delta=tpr["delta"].astype(float))
    deltas = sorted(auc.index)
    fig, axes = plt.subplots(1, len(deltas), figsize=(4.2 * len(deltas), 3.6), squeeze=False)
    for ax, d in zip(axes[0], deltas, strict=True):
        sub = tpr[tpr["delta"] == d].groupby(["method", "fpr"])["value"].mean().unstack(0)
        for method in _by_style(sub.columns):
            ax.plot(
                sub.index,
                sub[method],
                label=f"{method_label(method)} (AUC {auc.loc[d, method]:.3f})",
                **method_style(METHOD_STYLE.get(method, 6)),
                markevery=4,
            )
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        ax.set_title(f"{title}, $\\Delta$ = {d:g}")
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        ax.legend(loc="lower right")
    return fig


def plot_nearest(frame: pd.DataFrame):
    """Fig. 5: mean (and standard deviation over profiles) of ``p(k-th nearest | b)`` against k.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig5"`` (from :func:`nearest_point_experiment`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

    tab = nearest_point_table(frame)
    methods = [m for m in ("sppm", "expmec") if ("mean", m) in tab.columns]
    fig, ax = plt.subplots()
    for i, method in enumerate(methods):
        ax.errorbar(
            tab.index + (i - 0.5) * 0.15,
            tab[("mean", method)],
            yerr=tab[("std", method)],
            capsize=3,
            label=method_label(method),
            **method_style(METHOD_STYLE[method]),
        )
    ax.set_xlabel("k (k-th nearest point; 1 = the point itself)")
    ax.set_ylabel("mean $p(\\hat b = k$-th nearest $\\mid b)$")
    ax.legend()
    return fig


def plot_time(frame: pd.DataFrame):
    """Fig. 6: seconds to compute each mapping against the alphabet size (log-log).

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig6"`` (from :func:`timing_experiment`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

    tab = time_table(frame)
    fig, ax = plt.subplots()
    for method in _by_style(tab.columns):
        ok = tab[method].notna()
        style = method_style(METHOD_STYLE.get(method, 6))
        ax.loglog(tab.index[ok], tab[method][ok], label=method_label(method), **style)
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(tab.index), [str(n) for n in tab.index])
    ax.minorticks_off()
    ax.set_xlabel("alphabet size $|\\mathcal{B}|$")
    ax.set_ylabel("seconds")
    ax.legend()
    return fig


def plot_support(frame: pd.DataFrame, dataset: str = "Movie"):
    """Fig. 7: histogram of the support sizes of SPPM's ``p(. | b)`` over the profiles ``b``.

    Parameters
    ----------
    frame : DataFrame
        Tidy rows holding those of experiment ``"fig7"`` at one budget (from
        :func:`support_experiment`).
    dataset : str
        Name of the dataset, for the title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

    counts = _rows(frame, "fig7", ("profiles",))
    deltas = counts["delta"].unique()
    if len(deltas) != 1:
        raise ValueError(f"fig7 rows must hold one budget, got delta = {sorted(deltas)}")
    support = counts["support"].to_numpy(dtype=float)
    alphabet = int(support_table(frame)["alphabet"])
    fig, ax = plt.subplots()
    ax.hist(
        support,
        bins=np.arange(0.5, support.max() + 1.5),
        weights=counts["value"].to_numpy(),
        color=method_style(METHOD_STYLE["sppm"])["color"],
    )
    ax.set_xlabel("support size of $p(\\hat B \\mid b)$")
    ax.set_ylabel("profiles")
    ax.set_title(f"{dataset}, |B| = {alphabet}, $\\Delta$ = {float(deltas[0]):g}")
    return fig


# ------------------------------------------------------------------------------------------------
# Notebook parameters

_BUDGET = Param("float", low=0)
_STEPS = Param("list", item=Param("int", low=1))

#: The parameters of notebooks/sppm.ipynb.
PARAMETERS: dict[str, Param] = {
    **COMMON_PARAMETERS,
    "synthetic_m": Param("int", low=1),
    "synthetic_deltas": Param("list", item=_BUDGET),
    "synthetic_steps": _STEPS,
    "synthetic_m_range": Param("list", item=Param("int", low=1)),
    "census_top": Param("int", low=2),
    "census_deltas": Param("list", item=_BUDGET),
    "census_encoding_range": Param("list", item=Param("str", choices=tuple(CENSUS_ENCODINGS))),
    "movie_top": Param("int", low=2, none=True),
    "movie_deltas": Param("list", item=_BUDGET),
    "n_steps": Param("int", low=1),
    "optimal_max_n": Param("int", low=0, none=True),
    "census_roc_deltas": Param("list", item=_BUDGET),
    "movie_roc_deltas": Param("list", item=_BUDGET),
    "roc_seeds": Param("list", item=Param("int", low=0)),
    "table1_delta": _BUDGET,
    "table1_delta_range": Param("list", item=_BUDGET),
    "fig5_m": Param("int", low=1),
    "fig5_delta": _BUDGET,
    "fig6_ms": Param("list", item=Param("int", low=1)),
    "fig6_steps": _STEPS,
    "fig6_exact_max_n": Param("int", low=0),
    "fig7_delta": _BUDGET,
    "fig7_delta_range": Param("list", item=_BUDGET),
}


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's parameters checked against :data:`PARAMETERS`, in canonical form.

    See :func:`ppdp.experiments.common.check_parameters`; the notebook calls
    ``globals().update(check_parameters(globals()))`` right after its parameters cell.
    """
    return _check_parameters(values, PARAMETERS)
