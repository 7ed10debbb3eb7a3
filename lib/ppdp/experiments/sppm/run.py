"""The SPPM paper's experiments (Figs. 2-7 and Table 1) as grid runs that return tidy rows.

Every experiment function returns a tidy frame (see :mod:`ppdp.experiments.common`) on the problems
of :mod:`ppdp.experiments.sppm.data`; :mod:`ppdp.experiments.sppm.claims` reads them and
:mod:`ppdp.experiments.sppm.figures` draws them. Fits are memoized (:data:`FITS`) so that the
experiments sharing a budget reuse one mapping. Also the notebook's :data:`PARAMETERS`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ppdp import infotheory
from ppdp.classifiers import make_model
from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    Param,
    concat_tidy,
    tidy_frame,
    tidy_rows,
)
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.experiments.sppm.data import (
    AGE_BINS,
    CENSUS_DEFAULT_ENCODING,
    CENSUS_ENCODINGS,
    CENSUS_FEATURES,
    MISSING,
    Problem,
    census_problem,
    synthetic,
)
from ppdp.guarantees import enforce
from ppdp.mechanisms import sppm as S
from ppdp.mechanisms.sppm.problem import budget_check
from ppdp.memo import Memo, digest

__all__ = [
    "FITS",
    "FPR_GRID",
    "PARAMETERS",
    "census_across",
    "check_parameters",
    "clear_cache",
    "encoding_sensitivity",
    "feature_leakage",
    "nearest_point_experiment",
    "published_table1",
    "roc_attack",
    "roc_experiment",
    "support_across",
    "support_experiment",
    "support_sizes",
    "synthetic_across",
    "table1",
    "table1_across",
    "timing_experiment",
    "tradeoff",
]


# ------------------------------------------------------------------------------------------------
# Fig. 2: privacy-distortion trade-off


#: Fitted mappings with their fit times, so that the figures sharing a budget reuse one fit.
FITS = Memo(
    "experiments.sppm.fits",
    "(fitted mapping, seconds) by a digest of the prior, profiles and whole distortion, the "
    "method, budget, steps, path and options",
)


def _distortion_content(distortion: S.Distortion) -> tuple:
    """What defines every entry of ``distortion``: the arrays it computes its blocks from, or, for
    a distortion of another kind, all its rows (the fits read every entry)."""
    kind = type(distortion).__name__
    if type(distortion) is S.DenseDistortion:
        return kind, distortion.matrix
    if type(distortion) is S.SquaredDistortion:
        return kind, distortion.points
    if type(distortion) is S.HammingDistortion:
        return kind, distortion.codes, distortion.scale
    return kind, distortion.shape, [distortion.block(rows) for rows in distortion.chunks()]


def _fingerprint(problem: Problem) -> str:
    """A digest of everything a fit reads of ``problem``: the prior, the profiles and the whole
    distortion (encodings of one data set share a name and often an alphabet size, and two
    distortions can agree on some rows and not on others)."""
    return digest(problem.p_ab, problem.codes, _distortion_content(problem.distortion))


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

    A fit from the cache passes the same budget check as a fresh one, measured on ``problem``
    (not on the problem the fit keeps): a mapping that does not belong to ``problem`` raises
    :class:`~ppdp.guarantees.GuaranteeViolation` rather than being used.
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
        digest(kwargs),
    )
    model, seconds = FITS.get(
        key, lambda: _fit_now(method, problem, delta, n_steps, path, **kwargs)
    )
    _check_budget(model, problem, delta)
    return model, seconds


def _check_budget(model, problem: Problem, delta: float) -> None:
    """The distortion budget of Eq. 2 of ``model``'s mapping on ``problem``, enforced."""
    if hasattr(model, "mapping_"):
        enforce([budget_check(model, problem.p_ab, problem.distortion, model.mapping_, delta)])
    else:
        # the exponential mechanism fitted without a mapping: its budget is of beta alone
        enforce(model.guarantee_checks())


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
    :data:`~ppdp.experiments.sppm.data.CENSUS_ENCODINGS`) besides the profile's ``base``, which is
    skipped. Each encoding gets the curves of SPPM (L = ``n_steps``) and the certified optimum over
    ``deltas`` exactly as :func:`tradeoff` fits the profile's (ExpMec is not needed for these
    claims). Rows of experiment ``fig2_census_across`` with the parameter ``encoding``.
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
# Table 1 under the Census encodings the paper leaves open


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


def published_table1() -> dict[str, float]:
    """The paper's Table 1 "before" values, feature -> bits (from ``claims.yaml``)."""
    from ppdp.compendium.published import published_value

    return {f: published_value(f"sppm.table1.{f}")[0] for f in CENSUS_FEATURES}


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
