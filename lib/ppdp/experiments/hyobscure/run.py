"""The HyObscure experiments' settings and runs: the trade-off of Figs. 3-5, as tidy rows.

The protocol is the package's (:mod:`ppdp.experiments.hyobscure`), on the populations and splits
of :mod:`ppdp.experiments.hyobscure.data`; the sweeps of Figs. 6-11 are in
:mod:`ppdp.experiments.hyobscure.sweeps`. This module also holds the notebook's parameters
(:data:`PARAMETERS`, :func:`check_parameters`) and the authors' protocol's choice of seeds
(:func:`feasible_seeds`).

Every function returns a tidy frame (see :mod:`ppdp.experiments.common`). An attack's score is the
metric ``privacy`` with its facets ``model`` (``rf``, ``xgb``) and ``scenario`` (``sI``, ``sII``);
the claims and the sweeps' figures read the random forest's in Scenario I (:data:`CLAIMS_ATTACK`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ppdp.attacks.inference import InferenceAttack, attack_score
from ppdp.base import InfeasibleError, RepeatedReleaseWarning
from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    Param,
    map_in_workers,
    tidy_frame,
    tidy_rows,
)
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.experiments.hyobscure.data import (
    PROTOCOLS,
    Population,
    Split,
    _relabel,
    make_split,
    protocol_population,
)
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure import (
    DPObfuscation,
    Frapp,
    PrivCheck,
    RandomObfuscation,
    Similarity,
)
from ppdp.memo import Memo, digest
from ppdp.utility.recommendation import activity_map, cf_rmse

__all__ = [
    "AUTHORS_DEFAULTS",
    "CLAIMS_ATTACK",
    "DATASET_DEFAULTS",
    "METHODS",
    "PARAMETERS",
    "SCENARIO_ONE_PREDICTIONS",
    "TABLE_II",
    "PointScores",
    "check_parameters",
    "feasible_seeds",
    "run_point",
    "tradeoff",
]


#: Methods in plotting order. Knobs: budget (HyObscure, XObf, YGen, PrivCheck), p_rand (Random),
#: gamma (Frapp), p_obf (Similarity), beta (DP).
METHODS = ("HyObscure", "XObf", "YGen", "PrivCheck", "Random", "Frapp", "Similarity", "DP")
KNOB = {
    "HyObscure": "budget",
    "XObf": "budget",
    "YGen": "budget",
    "PrivCheck": "budget",
    "Random": "p_rand",
    "Frapp": "gamma",
    "Similarity": "p_obf",
    "DP": "beta",
}

#: The attack whose ``privacy`` the claims, the sweeps' figures and
#: :func:`~ppdp.experiments.hyobscure.claims.decomposition` read:
#: the random forest in Scenario I, the one every figure of the paper draws.
CLAIMS_ATTACK: Mapping[str, str] = {"model": "rf", "scenario": "sI"}

#: Table II, adapted where it is infeasible on the available data (see the notebook).
DATASET_DEFAULTS = {
    "movielens": {"n_groups": 4, "k": 80, "alpha": 200, "l": 4, "beta": 12, "n_clusters": 10},
    "foursquare": {"n_groups": 4, "k": 50, "alpha": 150, "l": 5, "beta": 25, "n_clusters": 8},
}

#: Table II as published, counted on all users of the population (attackers and published).
TABLE_II = {
    "movielens": {"k": 100, "alpha": 200, "l": 4, "beta": 8},
    "foursquare": {"k": 100, "alpha": 150, "l": 5, "beta": 15},
}


#: The authors' settings (``age_tradeoff_scenario_I`` / ``checkin_tradeoff_scenario_I``). Their
#: MovieLens code counts ``k_threshold = 100`` and the entropy ``l_threshold = 4`` of the greedy
#: G-step on all 802 users, attackers and published alike (``constraints_on="population"``); their
#: last band (45-50) holds exactly 100 of them, so it can never give ages away. ``alpha`` and
#: ``beta`` are not enforced by their G-step (here: no bound). Their G-step scores candidates with
#: the mapping read transposed (``greedy_score="transposed"``, their ``Mean_KL_div``; ``"leakage"``
#: fixes it). Budgets (their ``deltaX``) are in nats of mean pairwise Jensen-Shannon divergence,
#: an unweighted mean over clusters per group, an absent cluster costing one nat
#: (``HyObscure.m``). Movies: those rated by users of at least 2 distinct ages among all 943
#: users (their ``item_user_selection``, ``load_population(dataset, "authors")``: 1,538 movies).
AUTHORS_DEFAULTS = {
    "movielens": {
        "n_groups": 4,
        "k": 100,
        "alpha": 10**6,
        "l": 4,
        "beta": 10**6,
        "n_clusters": 10,
        "bands": [25, 35, 45],
        "g_step": "greedy",
        "greedy_score": "transposed",
        "constraints_on": "population",
        "max_iter": 5,
        "distance": "mean_pairwise_js",
        "budget_scope": "cluster_mean",
        "budget_unit": "nats",
        "cluster_on": "kmeans_all",
        "utility_metric": "paper",
    },
    # checkin_tradeoff_scenario_I: k counted on the published users, as in their code
    "foursquare": {
        "n_groups": 4,
        "k": 10,
        "alpha": 10**6,
        "l": 5,
        "beta": 10**6,
        "n_clusters": 8,
        "areas": 4,
        "g_step": "greedy",
        "greedy_score": "transposed",
        "constraints_on": "published",
        "max_iter": 3,
        "distance": "mean_pairwise_js",
        "budget_scope": "cluster_mean",
        "budget_unit": "nats",
        "cluster_on": "hierarchical",
        "drop_cluster": 4,
        "min_value_users": 3,
        "split_by": "value",
        "utility_metric": "paper",
    },
}


_BUDGET_METHODS = ("HyObscure", "XObf", "YGen", "PrivCheck")


def _build(method: str, knob: float, cfg: dict[str, Any]):
    common = {k: cfg[k] for k in ("n_groups", "k", "alpha", "l", "beta", "n_clusters")}
    common.update(
        domain=cfg["kind"],
        distance=cfg.get("distance", "centroid_js"),
        budget_scope=cfg.get("budget_scope", "global"),
        threshold=cfg.get("threshold", 1e-4),
        g_step=cfg.get("g_step", "boundary"),
        greedy_score=cfg.get("greedy_score", "transposed"),
        max_iter=cfg.get("max_iter", 20),
    )
    if method in _BUDGET_METHODS and cfg.get("budget_unit", "bits") == "nats":
        knob = knob / math.log(2.0)  # the estimators take bits
    if method == "HyObscure":
        return hy.HyObscure(budget=knob, **common)
    if method == "XObf":
        return hy.XObf(budget=knob, **common)
    if method == "YGen":
        return hy.YGen(budget=knob, **common)
    if method == "PrivCheck":
        return PrivCheck(budget=knob, distance=common["distance"])
    if method == "Random":
        return RandomObfuscation(p_rand=knob)
    if method == "Frapp":
        return Frapp(gamma=knob)
    if method == "Similarity":
        return Similarity(p_obf=knob)
    if method == "DP":
        return DPObfuscation(beta=knob)
    raise ValueError(f"method must be one of {METHODS}; got {method!r}")


def _fit(mech, X, y, clusters, gen0, rng, population=None):
    """Fit a method on the published users; ``population``: the exact values HyObscure and its
    variants count k and l on (``None``: the published users)."""
    if isinstance(mech, hy.HyObscure):
        return mech.fit(
            X, y, random_state=rng, clusters=clusters, generalization=gen0, population=population
        )
    return mech.fit(X, y, generalization=gen0, clusters=clusters, random_state=rng)


def _utility(
    pop: Population,
    split: Split,
    features_pub: np.ndarray,
    groups: np.ndarray | None = None,
    metric: str = "paper",
) -> float:
    """Utility loss of a release: RMSE (MovieLens) or 1 - mAP (Foursquare).

    ``metric="authors"`` is the authors' ``recommendation()``: the published group is one more
    known column, the group and the cluster (numbered from 1) are two more held-out "ratings",
    and held-out entries no neighbour can predict count as predicted 0."""
    held = pop.X[np.ix_(split.published, split.held)]
    tr, te = split.util_train, split.util_test
    if pop.utility == "rmse":
        if metric == "authors":
            cluster = split.clusters[split.published] + 1.0
            features_pub = np.column_stack([features_pub, groups])
            held = np.column_stack([held, groups, cluster])
            return cf_rmse(
                features_pub[tr], features_pub[te], held[tr], held[te], unpredicted="zero"
            )
        return cf_rmse(features_pub[tr], features_pub[te], held[tr], held[te])
    return 1.0 - activity_map(features_pub[tr], features_pub[te], held[tr], held[te])


#: Every figure of a notebook builds its own context for a seed, and the points whose methods keep
#: the start's generalization (every baseline) train Scenario I's attack on the same users and
#: groups in each: one prediction per distinct input, whichever figure asks first.
SCENARIO_ONE_PREDICTIONS = Memo(
    "experiments.hyobscure.scenario_one_predictions",
    "Scenario I's attack's prediction of every published user's own row, read-only, by a digest "
    "of the attack's settings, the attacker's users' features, groups and private values and the "
    "published users' features and groups",
    maxsize=4096,
    freeze=True,
)


class _Context:
    """Everything shared by the grid points of one seed."""

    def __init__(self, pop: Population, seed: int, cfg: dict[str, Any]):
        pop = protocol_population(pop, cfg, seed)
        self.pop, self.seed, self.cfg = pop, seed, cfg
        self.split = make_split(
            pop,
            seed,
            cfg["n_clusters"],
            kmeans_n_init=cfg.get("kmeans_n_init", 4),
            split_by=cfg.get("split_by", "cluster"),
        )
        s = self.split
        self.Xp = pop.X[np.ix_(s.published, s.known)]
        self.yp = pop.y[s.published]
        self.Xa = pop.X[np.ix_(s.attacker, s.known)]
        self.ya = pop.y[s.attacker]
        self.cp = _relabel(s.clusters[s.published])
        constraints_on = cfg.get("constraints_on", "published")
        if constraints_on not in ("published", "population"):
            raise ValueError(
                f"constraints_on must be 'published' or 'population'; got {constraints_on!r}"
            )
        #: the exact values k and l are counted on (None: the published users')
        self.population = pop.y if constraints_on == "population" else None
        self._gen0: dict[tuple, hy.Generalization] = {}
        self._fits: dict[tuple, Any] = {}
        self._alone: dict[tuple, PointScores] = {}
        self._attacks: dict[tuple, InferenceAttack] = {}
        #: Scenario II's attacks trained on the unobscured training half, per model and groups
        self._unobscured: dict[tuple, InferenceAttack] = {}
        #: the unobscured release: every published user's own row
        self.own_rows = np.arange(len(self.yp))
        #: what Scenario I's predictions read besides the attack's settings and the groups
        self._scenario_one_data = digest(self.Xa, self.ya, self.Xp)

    def scenario_one_attack(self, kw: dict[str, Any], groups_a: np.ndarray) -> InferenceAttack:
        """Scenario I's attack, trained on the attacker's users' real data and their groups.

        It depends on the method only through the groups, so the points whose methods share a
        generalization (every baseline keeps the start's) share one fit; the fit is deterministic,
        so sharing it changes no score."""
        key = (tuple(sorted(kw.items())), groups_a.dtype.str, groups_a.tobytes())
        if key not in self._attacks:
            self._attacks[key] = InferenceAttack(**kw).fit(self.Xa, groups_a, self.ya)
        return self._attacks[key]

    def copied_rows(self, features: np.ndarray, source, groups_p: np.ndarray):
        """``source`` when a release is the published users' own rows ``Xp[source]`` and each row
        was copied from a user of the same group (``groups_p[source] == groups_p``), else None.

        Every mechanism of these experiments publishes copies of rows within a group
        (:class:`~ppdp.mechanisms.hyobscure.Release`'s ``source``); this is checked, not assumed,
        since the shortcuts of :func:`_attack_rows` rest on it."""
        if source is None:
            return None
        source = np.asarray(source)
        if (
            source.shape != self.yp.shape
            or source.dtype.kind not in "iu"
            or (len(source) and (source.min() < 0 or source.max() >= len(self.yp)))
            or not np.array_equal(groups_p[source], groups_p)
            or not np.array_equal(features, self.Xp[source])
        ):
            return None
        return source.astype(np.intp, copy=False)

    def scenario_one_predictions(
        self, kw: dict[str, Any], groups_a: np.ndarray, groups_p: np.ndarray
    ) -> np.ndarray:
        """Scenario I's attack's prediction of every published user's own row and group.

        A random forest's or XGBoost's prediction of a row depends on that row alone (each tree's
        output for it, added up over the trees in their order), so the prediction of a release
        whose rows are copies (:meth:`copied_rows`) is this array indexed by the copied users, the
        same numbers as predicting the release: one prediction per point instead of one per draw.
        The predictions are kept by content (:data:`SCENARIO_ONE_PREDICTIONS`), so the contexts of
        one seed in other figures reuse them without fitting the attack again.
        """
        key = digest(dict(kw), groups_a, groups_p, self._scenario_one_data)
        return SCENARIO_ONE_PREDICTIONS.get(
            key, lambda: self.scenario_one_attack(kw, groups_a).predict(self.Xp, groups_p)
        )

    def scenario_two_scores(
        self,
        kw: dict[str, Any],
        groups_p: np.ndarray,
        features: list[np.ndarray],
        sources: list[np.ndarray | None],
    ) -> list[float]:
        """Scenario II's score of each release: an attack trained on its ``s2_train`` half (the
        published features, generalized and exact values) scores its ``s2_test`` half.

        A fit depends on its training data and the attack's settings alone, so releases whose
        training halves copy the same users (``sources``, from :meth:`copied_rows`; None: not
        known, fitted alone) share one fit, and every training half that is the unobscured one
        shares the reference's (a release that publishes its users' own rows, e.g. DP at a large
        beta: the same numbers, fitted once)."""
        s = self.split
        train, test = s.s2_train, s.s2_test
        g_train, g_test = groups_p[train], groups_p[test]
        y_train, y_test = self.yp[train], self.yp[test]
        own = (tuple(sorted(kw.items())), g_train.dtype.str, g_train.tobytes())
        halves: dict[Any, list[int]] = {}
        for i, source in enumerate(sources):
            halves.setdefault(i if source is None else source[train].tobytes(), []).append(i)
        scores: list[float] = [math.nan] * len(features)
        for draws in halves.values():
            first, source = features[draws[0]], sources[draws[0]]
            unobscured = source is not None and np.array_equal(source[train], train)
            if unobscured and own in self._unobscured:
                attack = self._unobscured[own]
            else:
                attack = InferenceAttack(**kw).fit(first[train], g_train, y_train)
                if unobscured:
                    self._unobscured[own] = attack
            for i in draws:
                scores[i] = attack.score(features[i][test], g_test, y_test)
        return scores

    def gen0(self, n_groups, k, alpha, l, beta) -> hy.Generalization:  # noqa: E741
        """The start: fixed bands when the configuration names them, else Algorithm 1."""
        bands, areas = self.cfg.get("bands"), self.cfg.get("areas")
        key = (n_groups, k, alpha, l, beta, None if bands is None else tuple(bands), areas)
        if key not in self._gen0:
            # counted on the population, the domain holds every value of it
            values = self.yp if self.population is None else self.population
            domain = hy.private_domain(values, self.pop.kind)
            if bands is not None:
                self._gen0[key] = hy.band_generalization(domain, bands)
            elif areas is not None:
                self._gen0[key] = hy.area_generalization(domain, int(areas))
            else:
                rng = np.random.default_rng(np.random.SeedSequence([self.seed, 202]))
                self._gen0[key] = hy.initial_generalization(
                    self.yp, domain, n_groups, k, alpha, l, beta, rng
                )
        return self._gen0[key]

    def utility(self, features: np.ndarray, groups: np.ndarray) -> float:
        metric = self.cfg.get("utility_metric", "paper")
        return _utility(self.pop, self.split, features, groups, metric)

    def table_ii(self, gen: hy.Generalization) -> dict[str, float]:
        """Whether a generalization meets Table II's bounds, counted on all users."""
        bounds = TABLE_II[self.pop.name]
        labels = gen.transform_nearest(self.pop.y)
        K = gen.n_groups
        users = np.bincount(labels, minlength=K)
        values = np.array([len(np.unique(self.pop.y[labels == g])) for g in range(K)])
        return {
            "table2_met": float(
                users.min() >= bounds["k"]
                and users.max() <= bounds["alpha"]
                and values.min() >= bounds["l"]
                and values.max() <= bounds["beta"]
            ),
            "table2_max_users": float(users.max()),
            "table2_min_users": float(users.min()),
            "table2_max_values": float(values.max()),
        }


def _attack_rows(
    ctx: _Context,
    gen: hy.Generalization,
    releases: list[np.ndarray] | None,
    models: tuple[str, ...],
    scenarios: tuple[str, ...],
    scenario_ii_draws: int | None = None,
    sources: list[np.ndarray | None] | None = None,
) -> dict[tuple[str, str], float]:
    """Mean privacy scores over releases (``None``: the unobscured reference), per attack
    ``(model, scenario)``, e.g. ``("rf", "sI")``: the facets of the metric ``privacy``.

    Scenario I's attack is trained once and scores every release; Scenario II's is trained on each
    release it scores, the first ``scenario_ii_draws`` of them (all when ``None``). ``sources``:
    the published user each row of a release copies (``Release.source``), which lets Scenario I
    predict every user once per point and Scenario II fit equal training halves once (see
    :meth:`_Context.copied_rows`); the scores are the same numbers with or without them."""
    pop, cfg = ctx.pop, ctx.cfg
    groups_p = gen.transform(ctx.yp)
    groups_a = gen.transform_nearest(ctx.ya)
    if releases is None:
        feats, copied = [ctx.Xp], [ctx.own_rows]
    else:
        feats = releases
        given = [None] * len(feats) if sources is None else sources
        copied = [ctx.copied_rows(f, src, groups_p) for f, src in zip(feats, given, strict=True)]
    out: dict[tuple[str, str], float] = {}
    for model in models:
        kw = {
            "model": model,
            "task": pop.task,
            "random_state": ctx.seed,
            "n_estimators": cfg.get("n_estimators", 100),
        }
        if "I" in scenarios:
            # the attack itself is fitted only for a release that does not copy rows; copies are
            # scored from the (kept) predictions of the published users' own rows
            if any(src is not None for src in copied):
                pred = ctx.scenario_one_predictions(kw, groups_a, groups_p)
            scores = [
                ctx.scenario_one_attack(kw, groups_a).score(f, groups_p, ctx.yp)
                if src is None
                else attack_score(ctx.yp, pred[src], pop.task)
                for f, src in zip(feats, copied, strict=True)
            ]
            out[model, "sI"] = float(np.mean(scores))
        if "II" in scenarios:
            n = scenario_ii_draws
            scores = ctx.scenario_two_scores(kw, groups_p, feats[:n], copied[:n])
            out[model, "sII"] = float(np.mean(scores))
    return out


@dataclass(frozen=True)
class PointScores:
    """One point's measurements: its privacy per attack and its other metrics by name."""

    #: the mean privacy score per attack ``(model, scenario)``, e.g. ``("rf", "sI")``
    privacy: dict[tuple[str, str], float]
    #: the other metrics (``utility_loss``, ``leakage``, ``table2_met``, ...)
    metrics: dict[str, float]
    #: with ``decompose``: the unobscured features under the method's final groups (``GenOnly``)
    genonly: PointScores | None = None

    def rows(
        self, experiment: str, method: str, parameters: Mapping[str, Any] | None, seed: int
    ) -> list[dict]:
        """Tidy rows of the point (not of ``genonly``): the metrics, then ``privacy`` once per
        attack, its model and scenario as facets."""
        rows = tidy_rows(experiment, method, self.metrics, parameters=parameters, seed=seed)
        for (model, scenario), value in self.privacy.items():
            rows += tidy_rows(
                experiment,
                method,
                {"privacy": value},
                parameters=parameters,
                seed=seed,
                facets={"model": model, "scenario": scenario},
            )
        return rows


def run_point(
    ctx: _Context,
    method: str,
    knob: float | None,
    cfg: dict[str, Any],
    n_draws: int,
    models=("rf", "xgb"),
    scenarios=("I", "II"),
    *,
    keep: float = 0.0,
    decompose: bool = False,
    scenario_ii_draws: int | None = None,
) -> PointScores:
    """Fit one method at one knob value and score ``n_draws`` releases; ``method="Original"`` scores
    the unobscured data (the reference point). Scenario II trains and scores its attack on the
    first ``scenario_ii_draws`` releases only (all when ``None``).

    ``keep`` is the authors' ``pp``: the probability that a user is published unobfuscated (under
    the method's generalization). Fits are cached per seed, method and knob, so the points of a
    ``pp`` sweep share one fit. With ``decompose`` the scores also hold ``genonly`` (the
    unobscured features under the method's final groups: generalization alone) and the metrics
    ``table2_*`` (whether those groups meet Table II, counted on all users)."""
    gen0 = ctx.gen0(cfg["n_groups"], cfg["k"], cfg["alpha"], cfg["l"], cfg["beta"])
    groups0 = gen0.transform(ctx.yp)
    if method == "Original":
        privacy = _attack_rows(ctx, gen0, None, models, scenarios)
        return PointScores(privacy, {"utility_loss": ctx.utility(ctx.Xp, groups0)})
    key = (method, knob, tuple(sorted((k, repr(v)) for k, v in cfg.items())))
    if key not in ctx._fits:
        mech = _build(method, knob, cfg)
        fit_rng = np.random.default_rng(
            np.random.SeedSequence([ctx.seed, 303, METHODS.index(method)])
        )
        _fit(mech, ctx.Xp, ctx.yp, ctx.cp, gen0, fit_rng, ctx.population)
        ctx._fits[key] = mech
    mech = ctx._fits[key]
    releases, sources = [], []
    with warnings.catch_warnings():
        # the draws estimate an expectation over releases of one fit; none of them is published
        warnings.simplefilter("ignore", RepeatedReleaseWarning)
        for d in range(n_draws):
            rng = np.random.default_rng(
                np.random.SeedSequence([ctx.seed, 404, METHODS.index(method), d])
            )
            release = mech.release(random_state=rng, keep=keep)
            releases.append(release.features)
            sources.append(getattr(release, "source", None))
    gen = mech.generalization_
    groups = gen.transform(ctx.yp)
    privacy = _attack_rows(ctx, gen, releases, models, scenarios, scenario_ii_draws, sources)
    metrics = {"utility_loss": float(np.mean([ctx.utility(f, groups) for f in releases]))}
    if hasattr(mech, "leakage_"):
        metrics["leakage"] = float(mech.leakage_)
    if hasattr(mech, "epsilon_"):
        metrics["epsilon"] = float(mech.epsilon_)
    if not decompose:
        return PointScores(privacy, metrics)
    if key not in ctx._alone:
        ctx._alone[key] = PointScores(
            _attack_rows(ctx, gen, None, models, scenarios),
            {"utility_loss": ctx.utility(ctx.Xp, groups)},
        )
    metrics.update(ctx.table_ii(gen))
    return PointScores(privacy, metrics, genonly=ctx._alone[key])


def _config(pop: Population, overrides: dict[str, Any] | None) -> dict[str, Any]:
    """Settings of a run: the protocol's defaults for the data set, then ``overrides``."""
    overrides = dict(overrides or {})
    protocol = overrides.pop("protocol", "paper")
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}; got {protocol!r}")
    defaults = AUTHORS_DEFAULTS if protocol == "authors" else DATASET_DEFAULTS
    cfg = dict(defaults[pop.name])
    cfg["protocol"] = protocol
    cfg["kind"] = pop.kind
    cfg.update(overrides)
    return cfg


def tradeoff(
    pop: Population,
    seeds,
    knobs: dict[str, list[float]],
    *,
    n_draws: int = 1,
    overrides: dict[str, Any] | None = None,
    models=("rf", "xgb"),
    scenarios=("I", "II"),
    experiment: str = "tradeoff",
    decompose: bool = False,
    scenario_ii_draws: int | None = None,
    progress: bool = False,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Figs. 3/4 (and 5): privacy and utility of every method over its knob, plus the reference.

    A knob value may be a pair ``[knob, pp]``: the method at ``knob`` with each user left
    unobfuscated with probability ``pp`` (the authors' low-utility-loss points). With
    ``decompose``, every HyObscure point also yields, at the same parameters, a ``GenOnly`` row
    (the unobscured features under HyObscure's final groups: re-generalization alone, which is
    also the reference point of the authors' code) and an ``ObfOnly`` row (XObf at the same knob
    and pp: HyObscure's first O-step on the starting groups, obfuscation alone; see
    :func:`~ppdp.experiments.hyobscure.claims.decomposition`), and HyObscure's rows record
    whether its groups meet Table II.
    Scenario I scores all ``n_draws`` releases of a point with one attack (predicting each user
    once per point, see :func:`_attack_rows`); Scenario II trains an attack per release, so it
    costs a fit per draw (one per distinct training half: a release that publishes the unobscured
    data shares the reference's): ``scenario_ii_draws`` limits it to the first draws (``None``:
    all; Scenario I's scores do not depend on it).
    ``n_jobs`` seeds run at once in worker processes (same results as ``n_jobs=1``)."""
    cfg = _config(pop, overrides)
    if scenario_ii_draws is not None and (
        isinstance(scenario_ii_draws, bool)
        or not isinstance(scenario_ii_draws, int)
        or not 1 <= scenario_ii_draws <= n_draws
    ):
        raise ValueError(
            f"scenario_ii_draws must be None or an integer in [1, n_draws={n_draws}]; "
            f"got {scenario_ii_draws!r}"
        )

    def one(seed) -> list[dict]:
        ctx = _Context(pop, seed, cfg)
        scored: dict[tuple, PointScores] = {}

        def point(method, knob, keep, split_off) -> PointScores:
            # XObf's points are also HyObscure's ObfOnly rows: draw and score each once
            key = (method, knob, keep, split_off)
            if key not in scored:
                scored[key] = run_point(
                    ctx,
                    method,
                    knob,
                    cfg,
                    n_draws,
                    models,
                    scenarios,
                    keep=keep,
                    decompose=split_off,
                    scenario_ii_draws=scenario_ii_draws,
                )
            return scored[key]

        rows = []
        for method in ["Original", *knobs]:
            for value in [None] if method == "Original" else knobs[method]:
                knob, keep, params = _knob_point(method, value)
                split_off = decompose and method == "HyObscure"
                scores = point(method, knob, keep, split_off)
                rows += scores.rows(experiment, method, params, seed)
                if scores.genonly is not None:
                    rows += scores.genonly.rows(experiment, "GenOnly", params, seed)
                if split_off:
                    # the other order: obfuscation alone is HyObscure's first O-step, XObf
                    xobf = point("XObf", knob, keep, False)
                    first = PointScores(
                        xobf.privacy, {"utility_loss": xobf.metrics["utility_loss"]}
                    )
                    rows += first.rows(experiment, "ObfOnly", params, seed)
        return rows

    per_seed = map_in_workers(
        one, seeds, n_jobs=n_jobs, desc=experiment, progress=progress, unit="seed"
    )
    return tidy_frame([row for rows in per_seed for row in rows])


def _knob_point(method: str, value) -> tuple[float | None, float, dict[str, float]]:
    """(knob, pp, parameters) of one entry of a knob list: a number or a pair ``[knob, pp]``."""
    if value is None:
        return None, 0.0, {}
    if isinstance(value, list | tuple):
        if len(value) != 2:
            raise ValueError(
                f"a {method} knob must be a number or a pair [knob, pp]; got {value!r}"
            )
        knob, keep = float(value[0]), float(value[1])
        if not 0.0 <= keep <= 1.0:
            raise ValueError(f"pp must be a probability in [0, 1]; got {keep} for {method}")
        return knob, keep, {KNOB[method]: knob, "pp": keep}
    return value, 0.0, {KNOB[method]: value}


# ------------------------------------------------------------------------------------------------
# Notebook parameters

_KNOB_VALUE = Param("float")  # each mechanism checks the range of its own knob
_CONSTRAINTS = ("n_groups", "k", "alpha", "l", "beta", "n_clusters")
_PAIR = Param("list", item=Param("int", low=1), length=2)


def _grid_param(low: str, high: str) -> Param:
    """A grid of Fig. 8 or 9: ``{low: [...], high: [...]}``, every pair of their values."""
    bounds = Param("list", item=Param("int", low=1))
    return Param("dict", keys=(low, high), required=(low, high), item=bounds)


#: The parameters of notebooks/hyobscure.ipynb.
PARAMETERS: dict[str, Param] = {
    **COMMON_PARAMETERS,
    "dataset": Param("str", choices=tuple(DATASET_DEFAULTS)),
    "protocol": Param("str", choices=PROTOCOLS),
    "n_seeds": Param("int", low=1),
    "n_draws": Param("int", low=1),
    "scenario_ii_draws": Param("int", low=1, none=True),
    "n_estimators": Param("int", low=1),
    "models": Param("list", item=Param("str", choices=("rf", "xgb"))),
    "scenarios": Param("list", item=Param("str", choices=("I", "II"))),
    # a knob, or [knob, pp]: the knob with each user left unobfuscated with probability pp
    "knobs": Param(
        "dict",
        keys=METHODS,
        item=Param(
            "list",
            item=Param(
                "any",
                alternatives=(
                    _KNOB_VALUE,
                    Param("list", item=Param("float", low=0), length=2),
                ),
            ),
        ),
    ),
    "sweep_budget": Param("float", low=0),
    "convergence_budget": Param("float", low=0),
    "fixed_knobs": Param("dict", keys=METHODS, item=_KNOB_VALUE),
    "groups_list": Param(
        "list",
        item=Param(
            "any",
            alternatives=(
                Param("int", low=1),
                Param("dict", keys=_CONSTRAINTS, required=("n_groups",), item=Param("int", low=1)),
            ),
        ),
    ),
    "clusters_list": Param("list", item=Param("int", low=1)),
    "k_alpha_list": Param("list", item=_PAIR),
    "l_beta_list": Param("list", item=_PAIR),
    # Figs. 8/9 again on other grids of bounds (the paper states none); None: no other grid
    "k_alpha_grids": Param("list", item=_grid_param("k", "alpha"), none=True),
    "l_beta_grids": Param("list", item=_grid_param("l", "beta"), none=True),
    "scaling_users": Param("list", item=Param("int", low=1)),
    "overrides": Param("dict"),
    "n_jobs": Param("int", low=1),
}


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's parameters checked against :data:`PARAMETERS`, in canonical form.

    See :func:`ppdp.experiments.common.check_parameters`; the notebook calls
    ``globals().update(check_parameters(globals()))`` right after its parameters cell.
    """
    return _check_parameters(values, PARAMETERS)


def feasible_seeds(
    pop: Population, n_seeds: int, budget: float, *, overrides=None, max_seed: int = 200
) -> tuple[list[int], list[int]]:
    """The first ``n_seeds`` seeds whose O-problem is feasible at ``budget``, and those skipped.

    Under the authors' budget (``budget_scope="cluster_mean"``) a cluster absent from a group
    costs one nat, so a small group can leave no mapping within a small budget. The authors' code
    runs a fixed list of 50 of the seeds 0-87 (``available_seeds``, no reason given); this
    selection is stated instead: a seed is kept when the unobscured start's O-problem has a
    solution at ``budget`` (the smallest budget of the sweep)."""
    cfg = _config(pop, overrides)
    kept, skipped = [], []
    for seed in range(max_seed):
        if len(kept) == n_seeds:
            break
        ctx = _Context(pop, seed, cfg)
        gen0 = ctx.gen0(cfg["n_groups"], cfg["k"], cfg["alpha"], cfg["l"], cfg["beta"])
        mech = _build("XObf", budget, cfg)
        try:
            _fit(mech, ctx.Xp, ctx.yp, ctx.cp, gen0, np.random.default_rng(0), ctx.population)
        except InfeasibleError:
            skipped.append(seed)
            continue
        kept.append(seed)
    if len(kept) < n_seeds:
        raise ValueError(
            f"only {len(kept)} of the seeds 0-{max_seed - 1} are feasible at budget={budget}"
        )
    return kept, skipped
