"""Experiments of the HyObscure paper (Sect. IV, Figs. 3-11) as tidy tables.

Protocol (the paper's Sect. IV-A with the details of the authors' code, see the notebook):

* MovieLens-100K: the user x movie rating matrix (0 = unrated) of users aged 18 to 50, movies rated
  by at least 3 of them; private value: age (regression attack, MAE). Foursquare NYC: check-in
  counts per venue category of the 692 users whose home cell holds at least 3 users; private
  value: home cell (classification attack, 1 - accuracy).
* Per seed: the items are split 80/20 into published (obfuscated) features and held-out
  recommendation targets; users are clustered (k-means on the published items) and, within each
  cluster, split 50/50 into the attacker's users and the published users. Mechanisms are fitted on
  the published users.
* Per draw: one release of the published users. Scenario I: a model trained on the attacker's
  users' real data (features and generalized value) predicts the published users' exact values
  from the release. Scenario II: a model trained on the release of half of the published users
  (with their exact values) predicts the other half. Utility: recommendation on the release, 70%
  of the published users as neighbours, 30% as targets.

Every function returns a tidy frame (see :mod:`ppdp.experiments.common`). An attack's score is the
metric ``privacy`` with its facets ``model`` (``rf``, ``xgb``) and ``scenario`` (``sI``, ``sII``);
the claims and the sweeps' figures read the random forest's in Scenario I (:data:`CLAIMS_ATTACK`).
"""

from __future__ import annotations

import math
import time
import tracemalloc
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ppdp.attacks.inference import InferenceAttack, attack_score
from ppdp.base import InfeasibleError
from ppdp.experiments.common import (
    COMMON_PARAMETERS,
    TIDY_COLUMNS,
    Param,
    concat_tidy,
    facet,
    facet_columns,
    mean_halfwidth,
    parameter_columns,
    parameter_labels,
    rank_correlation,
    setting_ids,
    summarize,
    tidy_frame,
    tidy_rows,
    with_parameters,
)
from ppdp.experiments.common import check_parameters as _check_parameters
from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure import (
    DPObfuscation,
    Frapp,
    PrivCheck,
    RandomObfuscation,
    Similarity,
)
from ppdp.memo import Memo
from ppdp.utility.recommendation import activity_map, cf_rmse

__all__ = [
    "AUTHORS_DEFAULTS",
    "CLAIMS_ATTACK",
    "CONSTRAINT_SWEEPS",
    "DATASET_DEFAULTS",
    "METHODS",
    "PARAMETERS",
    "PROTOCOLS",
    "TABLE_II",
    "PointScores",
    "Population",
    "Split",
    "across_table",
    "check_parameters",
    "claims",
    "cluster_count_sweep",
    "constraint_across",
    "constraint_sweep",
    "convergence",
    "decomposition",
    "feasible_seeds",
    "grid_label",
    "group_count_sweep",
    "load_population",
    "make_split",
    "plot_convergence",
    "plot_decomposition",
    "plot_scaling",
    "plot_sweep",
    "plot_tradeoff",
    "point_means",
    "run_point",
    "scaling",
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

#: The attack whose ``privacy`` the claims, the sweeps' figures and :func:`decomposition` read:
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

#: ``paper``: the paper's text (Algorithm 1's start, Algorithm 3's G-step, Eq. 16's budget).
#: ``authors``: the settings of the authors' code (scottshufe/HyObscure, ``age_tradeoff_*/main.py``).
PROTOCOLS = ("paper", "authors")

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


@dataclass(frozen=True)
class Population:
    """A prepared data set: features, exact private values and how to attack and use them."""

    name: str
    X: np.ndarray
    y: np.ndarray
    kind: str
    task: str
    utility: str
    #: user clusters drawn before the split (the authors' protocol clusters all users)
    clusters: np.ndarray | None = None


def load_population(dataset: str, protocol: str = "paper") -> Population:
    """MovieLens-100K (users aged 18-50) or Foursquare NYC ("3users") as a protocol prepares it.

    MovieLens movies: under the paper's protocol those rated by at least 3 of the users aged 18 to
    50 (1,445 movies); under the authors', their ``item_user_selection``: those rated by users of
    at least 2 distinct ages among all 943 users, before the age filter (1,538 movies).
    Foursquare is the same under both."""
    from ppdp import datasets

    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}; got {protocol!r}")
    if dataset == "movielens":
        ml = datasets.load_movielens_100k()
        users = ml.users[(ml.users["age"] >= 18) & (ml.users["age"] <= 50)]
        ratings = ml.ratings[ml.ratings["user_id"].isin(users["user_id"])]
        mat = ratings.pivot_table(index="user_id", columns="item_id", values="rating", fill_value=0)
        if protocol == "authors":
            ages = ml.ratings.merge(ml.users[["user_id", "age"]], on="user_id")
            distinct = ages.groupby("item_id")["age"].nunique()
            kept = distinct.index[distinct >= 2]
            # a kept movie that only users outside 18-50 rated stays as a column of zeros
            mat = mat.reindex(columns=kept, fill_value=0)
        else:
            mat = mat.loc[:, (mat > 0).sum(axis=0) >= 3]
        mat = mat.sort_index().sort_index(axis=1)
        ages = users.set_index("user_id").loc[mat.index, "age"].to_numpy(np.int64)
        return Population(
            "movielens", mat.to_numpy(np.float64), ages, "interval", "regression", "rmse"
        )
    if dataset == "foursquare":
        fs = datasets.load_foursquare_nyc(variant="3users")
        cols = [c for c in fs.columns if c not in ("uid", "grid", "grid_row", "grid_col")]
        fs = fs.sort_values("uid", kind="mergesort")
        return Population(
            "foursquare",
            fs[cols].to_numpy(np.float64),
            fs["grid"].to_numpy(np.int64),
            "grid",
            "classification",
            "map",
        )
    raise ValueError(f"dataset must be 'movielens' or 'foursquare'; got {dataset!r}")


@dataclass(frozen=True)
class Split:
    """One seed's split of items and users (indices into the population)."""

    known: np.ndarray
    held: np.ndarray
    clusters: np.ndarray  # cluster of every user of the population
    attacker: np.ndarray
    published: np.ndarray
    util_train: np.ndarray  # positions within ``published``
    util_test: np.ndarray
    s2_train: np.ndarray  # positions within ``published``
    s2_test: np.ndarray


#: The seeds' item and user splits with their k-means clusters, reused by every experiment.
SPLITS = Memo(
    "experiments.hyobscure.splits",
    "a seed's split (items, users, clusters) by data set, seed, clusters, fraction, restarts, rule",
)


def make_split(
    pop: Population,
    seed: int,
    n_clusters: int,
    *,
    known_fraction: float = 0.8,
    kmeans_n_init: int = 4,
    split_by: str = "cluster",
) -> Split:
    """Items 80/20; k-means clusters; users 50/50 within each cluster (reference notes).

    Users are clustered with k-means on the seed's published items, unless the population
    carries fixed clusters (:func:`protocol_population`). ``split_by="value"`` halves the users
    within each exact private value instead of each cluster (the authors' Foursquare code).
    Splits are cached per (data set, seed, number of clusters, ...) within a session."""
    if split_by not in ("cluster", "value"):
        raise ValueError(f"split_by must be 'cluster' or 'value'; got {split_by!r}")
    key = (
        pop.name,
        pop.X.shape,
        None if pop.clusters is None else pop.clusters.tobytes(),
        int(seed),
        int(n_clusters),
        float(known_fraction),
        int(kmeans_n_init),
        split_by,
    )
    return SPLITS.get(
        key, lambda: _make_split(pop, seed, n_clusters, known_fraction, kmeans_n_init, split_by)
    )


def _make_split(pop, seed, n_clusters, known_fraction, kmeans_n_init, split_by) -> Split:
    rng = np.random.default_rng(np.random.SeedSequence([seed, 101]))
    m = pop.X.shape[1]
    perm = rng.permutation(m)
    n_known = round(known_fraction * m)
    known, held = np.sort(perm[:n_known]), np.sort(perm[n_known:])
    Xk = pop.X[:, known]
    active = Xk.sum(axis=1) > 0
    if not active.all():
        raise ValueError(f"{int((~active).sum())} users have no published item for seed {seed}")
    if pop.clusters is not None:
        clusters = pop.clusters
    else:
        clusters = hy.cluster_users(Xk, n_clusters, rng, n_init=kmeans_n_init)
    strata = clusters if split_by == "cluster" else np.unique(pop.y, return_inverse=True)[1]
    attacker, published = [], []
    for c in range(int(strata.max()) + 1):
        members = np.flatnonzero(strata == c)
        members = members[rng.permutation(len(members))]
        half = len(members) // 2
        attacker.extend(members[:half])
        published.extend(members[half:])
    attacker, published = np.sort(attacker), np.sort(published)
    n_pub = len(published)
    p1 = rng.permutation(n_pub)
    cut = round(0.7 * n_pub)
    p2 = rng.permutation(n_pub)
    cut2 = n_pub // 2
    return Split(
        known,
        held,
        clusters,
        attacker,
        published,
        np.sort(p1[:cut]),
        np.sort(p1[cut:]),
        np.sort(p2[:cut2]),
        np.sort(p2[cut2:]),
    )


def _relabel(clusters: np.ndarray) -> np.ndarray:
    _, inv = np.unique(clusters, return_inverse=True)
    return inv.astype(np.int64)


#: The populations a protocol runs on, with their clusters; one per seed under k-means, of which
#: the newest few are kept, as a sweep visits the seeds in order.
POPULATIONS = Memo(
    "experiments.hyobscure.populations",
    "a protocol's population with its clusters, by data set, clustering, drop rules and seed",
    maxsize=24,
)


def protocol_population(pop: Population, cfg: dict[str, Any], seed: int = 0) -> Population:
    """The population a protocol runs on, with the seed's clusters when it clusters all users.

    ``cluster_on``: ``"known"`` (the paper protocol: per seed, k-means on the published items,
    see :func:`make_split`), ``"kmeans_all"`` (the authors' MovieLens code: k-means on all items
    of all users) or ``"hierarchical"`` (the authors' Foursquare code: agglomerative clustering,
    cosine distance, complete linkage, on all check-in counts). ``drop_cluster`` removes the
    users of one cluster (sklearn's numbering, as the authors' code drops its cluster 5 of 1-8),
    and ``min_value_users`` then removes the users whose exact value fewer users hold.

    k-means starts from random centres, and on MovieLens a different start moves a few users
    between clusters (8 of 802 change the feasible seeds and every split), so ``"kmeans_all"``
    redraws it for every ``seed``: an interval over seeds then covers the clustering too.
    Agglomerative clustering has no random choice and is the same for every seed.
    """
    how = cfg.get("cluster_on", "known")
    if how == "known":
        return pop
    if how not in ("kmeans_all", "hierarchical"):
        raise ValueError(f"cluster_on must be 'known', 'kmeans_all' or 'hierarchical'; got {how!r}")
    n_clusters = int(cfg["n_clusters"])
    drop, least = cfg.get("drop_cluster"), int(cfg.get("min_value_users", 1))
    n_init = int(cfg.get("kmeans_n_init", 4))
    # the hierarchical clustering is deterministic: one population serves every seed
    drawn = int(seed) if how == "kmeans_all" else None
    key = (pop.name, pop.X.shape, how, n_clusters, drop, least, n_init, drawn)

    def cluster_and_drop() -> Population:
        if how == "kmeans_all":
            rng = np.random.default_rng(np.random.SeedSequence([drawn, 303]))
            clusters = hy.cluster_users(pop.X, n_clusters, rng, n_init=n_init)
        else:
            from sklearn.cluster import AgglomerativeClustering

            clusters = (
                AgglomerativeClustering(n_clusters=n_clusters, metric="cosine", linkage="complete")
                .fit(pop.X)
                .labels_
            )
        keep = np.ones(len(pop.y), dtype=bool) if drop is None else clusters != int(drop)
        _, inverse, counts = np.unique(pop.y[keep], return_inverse=True, return_counts=True)
        kept = np.flatnonzero(keep)[counts[inverse] >= least]
        return Population(
            pop.name,
            pop.X[kept],
            pop.y[kept],
            pop.kind,
            pop.task,
            pop.utility,
            clusters=_relabel(clusters[kept]),
        )

    return POPULATIONS.get(key, cluster_and_drop)


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
        #: Scenario I's predictions of every published user's own row, per attack and groups
        self._predictions: dict[tuple, np.ndarray] = {}
        #: Scenario II's attacks trained on the unobscured training half, per model and groups
        self._unobscured: dict[tuple, InferenceAttack] = {}
        #: the unobscured release: every published user's own row
        self.own_rows = np.arange(len(self.yp))

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
        """
        key = (
            tuple(sorted(kw.items())),
            groups_a.dtype.str,
            groups_a.tobytes(),
            groups_p.dtype.str,
            groups_p.tobytes(),
        )
        if key not in self._predictions:
            attack = self.scenario_one_attack(kw, groups_a)
            self._predictions[key] = attack.predict(self.Xp, groups_p)
        return self._predictions[key]

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
            "seed": ctx.seed,
            "n_estimators": cfg.get("n_estimators", 100),
        }
        if "I" in scenarios:
            att = ctx.scenario_one_attack(kw, groups_a)
            if any(src is not None for src in copied):
                pred = ctx.scenario_one_predictions(kw, groups_a, groups_p)
            scores = [
                att.score(f, groups_p, ctx.yp)
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
    for d in range(n_draws):
        rng = np.random.default_rng(
            np.random.SeedSequence([ctx.seed, 404, METHODS.index(method), d])
        )
        release = mech.sample(rng, keep=keep)
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


def _map_seeds(fn, seeds, n_jobs: int, desc: str, progress: bool) -> list:
    """``[fn(seed) for seed in seeds]``, in worker processes when ``n_jobs > 1``.

    Seeds are independent (each seeds its own generators), so the rows, concatenated in seed
    order, are the same bytes whatever ``n_jobs`` is."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer; got {n_jobs!r}")
    seeds = list(seeds)
    if n_jobs == 1:
        results = (fn(seed) for seed in seeds)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=min(n_jobs, len(seeds)), return_as="generator")(
            delayed(fn)(seed) for seed in seeds
        )
    if progress:
        from tqdm.auto import tqdm

        results = tqdm(results, total=len(seeds), desc=desc, unit="seed")
    return list(results)


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
    :func:`decomposition`), and HyObscure's rows record whether its groups meet Table II.
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

    per_seed = _map_seeds(one, seeds, n_jobs, experiment, progress)
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


def _sweep(
    pop,
    seeds,
    name,
    values,
    methods,
    knob_of,
    make_overrides,
    n_draws,
    overrides,
    models,
    scenarios,
    progress,
    n_jobs=1,
):
    def one(seed) -> list[dict]:
        rows = []
        for value in values:
            cfg = _config(pop, {**(overrides or {}), **make_overrides(value)})
            ctx = _Context(pop, seed, cfg)
            for method in methods:
                knob = knob_of(method)
                try:
                    scores = run_point(ctx, method, knob, cfg, n_draws, models, scenarios)
                except InfeasibleError:
                    # an infeasible constraint setting is a result, recorded as such
                    scores = PointScores({}, {"infeasible": 1.0})
                params = {**make_overrides(value)}
                if method != "Original":
                    params[KNOB[method]] = knob
                rows += scores.rows(name, method, params, seed)
        return rows

    per_seed = _map_seeds(one, seeds, n_jobs, name, progress)
    return tidy_frame([row for rows in per_seed for row in rows])


def group_count_sweep(
    pop,
    seeds,
    n_groups_list,
    fixed_knobs: dict[str, float],
    *,
    n_draws=1,
    overrides=None,
    models=("rf",),
    scenarios=("I",),
    progress=False,
    n_jobs=1,
) -> pd.DataFrame:
    """Fig. 6: privacy with |Y~| varied, each method at a fixed knob.

    Each entry of ``n_groups_list`` is a number of groups or a dict of constraint overrides that
    includes ``n_groups`` (e.g. ``{"n_groups": 2, "k": 150, "alpha": 300, "beta": 20}``): fewer
    groups need larger ``alpha`` and ``beta`` to hold all users and values.
    """

    def overrides_of(v):
        if isinstance(v, dict):
            if "n_groups" not in v:
                raise ValueError(f"each dict of n_groups_list needs an 'n_groups' entry; got {v!r}")
            return {key: int(val) for key, val in v.items()}
        return {"n_groups": int(v)}

    return _sweep(
        pop,
        seeds,
        "fig6",
        n_groups_list,
        list(fixed_knobs),
        fixed_knobs.get,
        overrides_of,
        n_draws,
        overrides,
        models,
        scenarios,
        progress,
        n_jobs,
    )


def cluster_count_sweep(
    pop,
    seeds,
    n_clusters_list,
    budget: float,
    *,
    n_draws=1,
    overrides=None,
    models=("rf",),
    scenarios=("I",),
    progress=False,
    n_jobs=1,
) -> pd.DataFrame:
    """Fig. 7: HyObscure vs PrivCheck with the number of user clusters varied."""
    return _sweep(
        pop,
        seeds,
        "fig7",
        n_clusters_list,
        ["HyObscure", "PrivCheck"],
        lambda m: budget,
        lambda v: {"n_clusters": int(v)},
        n_draws,
        overrides,
        models,
        scenarios,
        progress,
        n_jobs,
    )


def constraint_sweep(
    pop,
    seeds,
    pairs,
    which: str,
    budget: float,
    *,
    n_draws=1,
    overrides=None,
    models=("rf",),
    scenarios=("I",),
    progress=False,
    n_jobs=1,
) -> pd.DataFrame:
    """Fig. 8 (``which="k_alpha"``) or Fig. 9 (``"l_beta"``): HyObscure under varied constraints."""
    if which == "k_alpha":
        name, mk = "fig8", (lambda v: {"k": int(v[0]), "alpha": int(v[1])})
    elif which == "l_beta":
        name, mk = "fig9", (lambda v: {"l": int(v[0]), "beta": int(v[1])})
    else:
        raise ValueError(f"which must be 'k_alpha' or 'l_beta'; got {which!r}")
    return _sweep(
        pop,
        seeds,
        name,
        [tuple(p) for p in pairs],
        ["HyObscure"],
        lambda m: budget,
        mk,
        n_draws,
        overrides,
        models,
        scenarios,
        progress,
        n_jobs,
    )


#: Per sweep of :func:`constraint_sweep`: (figure, lower bound, upper bound).
CONSTRAINT_SWEEPS = {"k_alpha": ("fig8", "k", "alpha"), "l_beta": ("fig9", "l", "beta")}
#: Metric suffix of a claim on another grid of Figs. 8/9 (the report's ``ACROSS_SUFFIX``).
ACROSS = ".across"


def _grid_points(grid: Mapping[str, Any], low: str, high: str) -> tuple[tuple[int, int], ...]:
    """The (lower, upper) bound pairs of one grid ``{low: [...], high: [...]}`` (their product)."""
    if set(grid) != {low, high}:
        raise ValueError(f"a grid needs exactly the keys {low!r} and {high!r}; got {dict(grid)!r}")
    lows, highs = (sorted({int(v) for v in np.atleast_1d(grid[key])}) for key in (low, high))
    return tuple((a, b) for a in lows for b in highs)


def grid_label(points, low: str, high: str) -> str:
    """A grid's name, e.g. ``"k 20/40/60/80 alpha 150/200"``: the parameter ``grid``'s value."""
    lows = "/".join(str(v) for v in sorted({int(p[0]) for p in points}))
    highs = "/".join(str(v) for v in sorted({int(p[1]) for p in points}))
    return f"{low} {lows} {high} {highs}"


def constraint_across(
    pop,
    seeds,
    grids,
    pairs,
    which: str,
    budget: float,
    *,
    base: pd.DataFrame | None = None,
    n_draws=1,
    overrides=None,
    models=("rf",),
    scenarios=("I",),
    progress=False,
    n_jobs=1,
) -> pd.DataFrame:
    """Fig. 8 or Fig. 9 on the other grids of bounds the paper may have used (it states none).

    ``grids`` are dicts ``{"k": [...], "alpha": [...]}`` (Fig. 8, ``which="k_alpha"``) or
    ``{"l": [...], "beta": [...]}`` (Fig. 9), each meaning every pair of their values; ``pairs`` is
    the profile's own grid (``k_alpha_list`` / ``l_beta_list``), and a grid of the same pairs is
    skipped: its claim is the plain one. Every point is one HyObscure fit per seed, as in
    :func:`constraint_sweep` (same seeds, budget and settings), and each is fitted once however
    many grids hold it; the points of ``base`` (that sweep's frame, run with the same arguments)
    are taken from it instead of fitted again. Rows as :func:`constraint_sweep`'s, experiment
    ``fig8_across`` / ``fig9_across``, one copy of a point's rows per grid that holds it, the
    parameter ``grid`` (:func:`grid_label`) telling the grids apart; the facets stay.
    """
    if which not in CONSTRAINT_SWEEPS:
        raise ValueError(f"which must be 'k_alpha' or 'l_beta'; got {which!r}")
    name, low, high = CONSTRAINT_SWEEPS[which]
    seeds = [int(s) for s in seeds]
    profile = {(int(a), int(b)) for a, b in pairs}
    chosen: dict[str, tuple[tuple[int, int], ...]] = {}
    for grid in grids or ():
        points = _grid_points(grid, low, high)
        if set(points) != profile:
            chosen.setdefault(grid_label(points, low, high), points)
    if not chosen:
        return tidy_frame([])

    knob = KNOB["HyObscure"]
    have = tidy_frame([])
    if base is not None and len(base):
        have = base[(base["experiment"] == name) & (base["method"] == "HyObscure")]
    have = with_parameters(have, [low, high, knob])
    have = have[np.isclose(have[knob].astype(float), budget) & have["seed"].isin(seeds)]
    # a point of the base sweep is reused when the sweep ran it on every seed
    ran = have.groupby([have[low].astype(int), have[high].astype(int)])["seed"].nunique()
    wanted = {p for points in chosen.values() for p in points}
    missing = sorted(p for p in wanted if ran.get(p, 0) < len(set(seeds)))
    fitted = tidy_frame([])
    if missing:
        fitted = constraint_sweep(
            pop,
            seeds,
            missing,
            which,
            budget,
            n_draws=n_draws,
            overrides=overrides,
            models=models,
            scenarios=scenarios,
            progress=progress,
            n_jobs=n_jobs,
        )
    reused = have[[(a, b) not in missing for a, b in zip(have[low], have[high], strict=True)]]
    pool = pd.concat([f for f in (reused, fitted) if len(f)], ignore_index=True)
    at = list(zip(pool[low].astype(int), pool[high].astype(int), strict=True))
    frames = []
    for label, points in chosen.items():
        block = pool[[p in points for p in at]]
        # a copy's parameters are the point's bounds, the budget and the grid, nothing else
        params = {
            low: block[low].astype(int),
            high: block[high].astype(int),
            knob: budget,
            "grid": label,
        }
        kept = [*TIDY_COLUMNS, *facet_columns(block)]
        frames.append(block[kept].assign(experiment=f"{name}_across", **params))
    return concat_tidy(frames)


def across_table(claim_rows: pd.DataFrame, k_alpha_list=None, l_beta_list=None) -> pd.DataFrame:
    """Figs. 8/9's rank correlations on every grid, from :func:`claims` rows: index (claim,
    grid), columns ``ci_high``, ``ci_low`` and ``value``. The profile's own grid (the plain claim
    rows) is named from ``k_alpha_list`` / ``l_beta_list`` when given, and marked ``(profile)``."""
    sel = claim_rows[claim_rows["metric"].str.contains(r"_fig[89]_rank_correlation", regex=True)]
    sel = with_parameters(sel, ["grid"])
    profile = {"fig8": k_alpha_list, "fig9": l_beta_list}
    grids = []
    for label, name in zip(sel["grid"], sel["metric"], strict=True):
        fig = "fig8" if "_fig8_" in name else "fig9"
        _, low, high = CONSTRAINT_SWEEPS["k_alpha" if fig == "fig8" else "l_beta"]
        if name.endswith(ACROSS):
            grids.append(label)
        else:
            pairs = profile[fig]
            grids.append(
                ("" if pairs is None else grid_label(pairs, low, high) + " ") + "(profile)"
            )
    table = sel.assign(claim=sel["metric"].str.removesuffix(ACROSS), grid=grids)
    table = table.groupby(["claim", "grid"], sort=True)[["ci_high", "ci_low", "value"]].mean()
    table.columns.name = "bound"
    return table


def convergence(pop, seed: int, budget: float, *, overrides=None) -> pd.DataFrame:
    """Fig. 11: the leakage after every O-problem and every accepted G move of one fit."""
    cfg = _config(pop, overrides)
    ctx = _Context(pop, seed, cfg)
    gen0 = ctx.gen0(cfg["n_groups"], cfg["k"], cfg["alpha"], cfg["l"], cfg["beta"])
    mech = _build("HyObscure", budget, cfg)
    mech.fit(
        ctx.Xp,
        ctx.yp,
        random_state=np.random.default_rng(np.random.SeedSequence([seed, 505])),
        clusters=ctx.cp,
        generalization=gen0,
    )
    rows = []
    for step, rec in enumerate(mech.history_):
        rows += tidy_rows(
            "fig11",
            "HyObscure",
            {"leakage": rec["leakage"], "utility_loss": rec["utility_loss"]},
            parameters={
                "step": step,
                "iteration": rec["iteration"],
                "phase": rec["phase"],
                "budget": budget,
            },
            seed=seed,
        )
    return tidy_frame(rows)


def scaling(
    pop,
    seed: int,
    n_users_list,
    budget: float,
    *,
    overrides=None,
    kmeans_n_init: int = 1,
    measure_memory: bool = False,
    repeats: int = 3,
    repeat_below_seconds: float = 5.0,
) -> pd.DataFrame:
    """Fig. 10: run time of a full fit (clustering, I, cross-iterated O/G) and one release.

    Populations larger than the data are resampled with replacement from the real users (their
    features and exact values); ``k`` and ``alpha`` scale with the population (``k = n/5``,
    ``alpha = n/2``) so that the constraints keep their meaning.

    Each size is timed up to ``repeats`` times from the same seed (so every repeat computes the
    same fit) and the fastest run is kept, as ``timeit`` does: sub-second fits at small sizes are
    otherwise dominated by whatever else the machine does, and a slope from two such points moves
    with the load. Sizes whose fastest run already takes ``repeat_below_seconds`` are timed once.
    """
    if int(repeats) < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    cfg = _config(pop, overrides)
    rows = []
    for n in n_users_list:
        best = None
        for _ in range(int(repeats)):
            metrics = _time_one_fit(pop, cfg, seed, int(n), budget, kmeans_n_init, measure_memory)
            if best is None or metrics["seconds_total"] < best["seconds_total"]:
                best = metrics
            if best["seconds_total"] >= repeat_below_seconds:
                break
        rows += tidy_rows("fig10", "HyObscure", best, parameters={"n_users": int(n)}, seed=seed)
    return tidy_frame(rows)


def _time_one_fit(pop, cfg, seed, n, budget, kmeans_n_init, measure_memory) -> dict:
    """One timed fit and release of ``n`` users resampled from ``pop`` (``scaling``'s unit)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 606, n]))
    idx = rng.choice(pop.X.shape[0], size=n, replace=True)
    X, y = pop.X[idx], pop.y[idx]
    if measure_memory:
        tracemalloc.start()
    t0 = time.perf_counter()
    clusters = hy.cluster_users(X, cfg["n_clusters"], rng, n_init=kmeans_n_init)
    t1 = time.perf_counter()
    k, alpha = max(1, n // 5), n // 2
    domain = hy.private_domain(y, pop.kind)
    gen0 = hy.initial_generalization(
        y, domain, cfg["n_groups"], k, alpha, cfg["l"], cfg["beta"], rng
    )
    t2 = time.perf_counter()
    mech = hy.HyObscure(
        budget=budget,
        **{
            **{q: cfg[q] for q in ("n_groups", "l", "beta", "n_clusters")},
            "k": k,
            "alpha": alpha,
        },
        domain=pop.kind,
    )
    mech.fit(X, y, random_state=rng, clusters=clusters, generalization=gen0)
    t3 = time.perf_counter()
    mech.sample(rng)
    t4 = time.perf_counter()
    metrics = {
        "seconds_cluster": t1 - t0,
        "seconds_initial": t2 - t1,
        "seconds_cross": t3 - t2,
        "seconds_release": t4 - t3,
        "seconds_total": t4 - t0,
        "iterations": float(max(r["iteration"] for r in mech.history_) + 1),
    }
    if measure_memory:
        metrics["peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return metrics


# ------------------------------------------------------------------------------------------------
# claims


#: Bootstrap resamples of the seeds behind every claim's 95% interval.
N_BOOTSTRAP = 2000
BASELINES = ("PrivCheck", "Random", "Frapp", "Similarity", "DP")


def _interp(x, y, x0):
    order = np.argsort(x, kind="mergesort")
    return float(np.interp(x0, np.asarray(x)[order], np.asarray(y)[order]))


def _is_metric(frame: pd.DataFrame, metric: str, **facets: str) -> pd.Series:
    """Which rows are of ``metric`` with the given facets (e.g. ``model="rf"``); none when the
    frame has no column for one of the facets.

    Examples
    --------
    >>> rows = tidy_frame(
    ...     tidy_rows("fig6", "DP", {"utility_loss": 1.0})
    ...     + tidy_rows("fig6", "DP", {"privacy": 2.0}, facets={"model": "rf", "scenario": "sI"})
    ...     + tidy_rows("fig6", "DP", {"privacy": 3.0}, facets={"model": "xgb", "scenario": "sI"})
    ... )
    >>> rows[_is_metric(rows, "privacy", **CLAIMS_ATTACK)]["value"].tolist()
    [2.0]
    """
    keep = frame["metric"] == metric
    for name, value in facets.items():
        keep &= facet(frame, name) == value
    return keep


def _by_seed(frame, method, metric, seeds, key=None, **facets) -> tuple[np.ndarray, np.ndarray]:
    """Values of one method and metric (with its ``facets``) as an array (setting, seed) and the
    settings.

    Settings are the distinct combinations of parameter values (:func:`setting_ids`, numbered in
    their sorted order), or the integer values of the parameter ``key`` when it is given (several
    settings with one key are averaged, e.g. Fig. 8's k over alpha)."""
    sub = frame[(frame["method"] == method) & _is_metric(frame, metric, **facets)]
    params = setting_ids(sub) if key is None else with_parameters(sub, [key])[key].astype(int)
    piv = sub.assign(setting=params.to_numpy()).pivot_table(
        index="setting", columns="seed", values="value", aggfunc="mean"
    )
    piv = piv.reindex(columns=seeds)
    if piv.isna().any().any():
        raise ValueError(f"{method}/{metric}: some seeds lack some settings; seeds {list(seeds)}")
    return piv.to_numpy(float), piv.index.to_numpy()


class _Bootstrap:
    """A statistic of per-seed results, with a percentile interval from resampling the seeds.

    Seeds are paired across methods (every method sees the same split and attacker), so margins
    between methods are resampled jointly, which is what makes their intervals narrow enough to
    order the methods. A statistic is a function of weights over the seeds (equal weights give the
    estimate); ``scipy.stats.bootstrap`` draws the resamples of seed indices, every claim the same
    ones, and a resample becomes the weights ``count / n``."""

    def __init__(self, seeds, n_boot: int = N_BOOTSTRAP, seed: int = 0):
        self.seeds = list(seeds)
        self.n_boot = n_boot
        self.seed = seed

    def rows(self, claim_id: str, method: str, stat, parameters=None) -> list[dict]:
        """A claim row: the estimate ``stat(w)`` at equal weights with its interval in ``ci_low``
        and ``ci_high`` (missing when it has none), and ``parameters`` (e.g. the setting of a
        claim's ``.across`` rows)."""
        from scipy import stats

        n = len(self.seeds)
        metrics = {claim_id: float(stat(np.full(n, 1.0 / n)))}
        intervals = {}
        if n > 1:
            result = stats.bootstrap(
                (np.arange(n),),
                lambda idx: stat(np.bincount(idx, minlength=n) / n),
                n_resamples=self.n_boot,
                vectorized=False,
                method="percentile",
                confidence_level=0.95,
                rng=np.random.default_rng(np.random.SeedSequence([self.seed, 707])),
            )
            boot = np.asarray(result.bootstrap_distribution, dtype=float)
            if np.isfinite(boot).all():
                lo, hi = result.confidence_interval
            elif np.isfinite(boot).any():
                # a statistic undefined on some resamples (a ratio over a zero): skip those
                lo, hi = np.percentile(boot[np.isfinite(boot)], [2.5, 97.5])
            else:
                lo = hi = np.nan
            if np.isfinite(lo):
                intervals[claim_id] = (float(lo), float(hi))
        return tidy_rows("claims", method, metrics, parameters=parameters, intervals=intervals)


def _tradeoff_curves(trade, attack, seeds):
    """Per method: (utility loss, privacy, % utility change, % privacy change), each (knob, seed);
    the privacy of ``attack`` (its facets, e.g. :data:`CLAIMS_ATTACK`)."""
    u0, _ = _by_seed(trade, "Original", "utility_loss", seeds)
    p0, _ = _by_seed(trade, "Original", "privacy", seeds, **attack)
    out = {}
    for method in sorted(set(trade["method"]) - {"Original"}):
        u, _ = _by_seed(trade, method, "utility_loss", seeds)
        p, _ = _by_seed(trade, method, "privacy", seeds, **attack)
        out[method] = (u, p, 100 * (u - u0) / u0, 100 * (p - p0) / p0)
    return out, u0[0]  # the reference's utility loss per seed


def _bound_rank_rows(boot, claim_id, frame, key, attack, seeds, parameters=None) -> list[dict]:
    """Figs. 8/9's claim on one grid: Spearman's correlation of HyObscure's protection (the
    privacy of ``attack``, mean over the upper bound and the seeds) with the lower bound ``key``;
    no rows when a point of the grid is infeasible or the frame holds no protection."""
    if frame is None or not len(frame) or "infeasible" in set(frame["metric"]):
        return []
    if not len(frame[_is_metric(frame, "privacy", **attack) & (frame["method"] == "HyObscure")]):
        return []
    # averaged over the upper bound and the seeds: the effect of the lower bound alone
    v, keys = _by_seed(frame, "HyObscure", "privacy", seeds, key=key, **attack)
    return boot.rows(
        claim_id,
        "HyObscure",
        lambda w: rank_correlation(keys, v @ w),
        parameters=parameters,
    )


def _authors_fig3a_rows(boot, curves, anchored, gains_at) -> list[dict]:
    """Fig. 3a's claims at the other reading of the authors' protocol, as ``.across`` rows.

    * ``fig3a_mae_gain.across`` at ``reference=final_groups``: HyObscure's MAE gain at 0.2% RMSE
      loss against their code's reference point, the unobscured features under HyObscure's final
      groups (``GenOnly``, which nobody obfuscated: the curve runs through (0, 0) there). The
      claim itself reads the gain against the starting bands, the one reference point the
      paper's figure draws.
    * ``fig3a_generalization_share.across`` at ``order=obfuscation_first``: the share of the gain
      left to re-generalization once obfuscation alone (``ObfOnly``, XObf at the same knob and
      pp) is credited first, both read at HyObscure's utility change. The claim itself credits
      re-generalization first (``GenOnly``).
    * ``claim_context`` rows: the utility change of the authors' lowest-loss point and the gains
      there under both references, to show how much the reading at 0.2% rests on the
      interpolation from the reference point.
    """
    rows: list[dict] = []
    if "GenOnly" in curves:
        (hy_u, hy_p), (gen_u, gen_p) = curves["HyObscure"][:2], curves["GenOnly"][:2]
        du_final = 100 * (hy_u - gen_u) / gen_u
        dp_final = 100 * (hy_p - gen_p) / gen_p

        def final_gain(w):
            du, dp = anchored(du_final @ w, dp_final @ w)
            return _interp(du, dp, 0.2)

        rows += boot.rows(
            "hyobscure.fig3a_mae_gain" + ACROSS,
            "HyObscure",
            final_gain,
            parameters={"reference": "final_groups"},
        )
        lowest = int(np.argmin(curves["HyObscure"][2].mean(axis=1)))
        context = {
            "hyobscure.fig3a_lowest_point_utility_change": curves["HyObscure"][2][lowest].mean(),
            "hyobscure.fig3a_lowest_point_mae_gain": curves["HyObscure"][3][lowest].mean(),
            "hyobscure.fig3a_lowest_point_mae_gain_final_reference": dp_final[lowest].mean(),
        }
        rows += tidy_rows("claim_context", "HyObscure", {k: float(v) for k, v in context.items()})
    if "ObfOnly" in curves:

        def regroup_after_share(w):
            total, alone = gains_at("ObfOnly", w)
            return 100 * (total - alone) / total if total > 0 else float("nan")

        rows += boot.rows(
            "hyobscure.fig3a_generalization_share" + ACROSS,
            "HyObscure",
            regroup_after_share,
            parameters={"order": "obfuscation_first"},
        )
    return rows


def claims(results: pd.DataFrame, dataset: str, protocol: str = "paper") -> pd.DataFrame:
    """Claims rows (``experiment == "claims"``) from the tidy rows of this notebook's experiments.

    Claim ids are ``hyobscure.<dataset>_<claim>`` under the paper's protocol and
    ``hyobscure.<dataset>_authors_<claim>`` under the authors'.

    ``results`` holds the rows of ``tradeoff``, ``fig6``, ``fig8``, ``fig9``, ``fig10`` and
    ``fig11`` as written to the results CSV (other rows, claims included, are ignored), so the
    claims can be recomputed from a written run.

    The paper states no grid of bounds behind Figs. 8 and 9, so their rank correlations are also
    computed on every other grid of :func:`constraint_across` (rows ``fig8_across`` /
    ``fig9_across``): rows of metric ``<id>.across`` with the grid as the parameter ``grid`` (e.g.
    ``k 20/40/60/80 alpha 150/200``), by the same statistic and the same bootstrap resamples of the
    same seeds as the profile's grid.

    Privacy is the random forest's in Scenario I (:data:`CLAIMS_ATTACK`), as in the paper's
    figures. Every statistic is computed on the means over seeds (the curves of the figures) and
    comes with a 95% percentile interval from ``N_BOOTSTRAP`` resamples of the seeds (the columns
    ``ci_low`` and ``ci_high`` of its row). Orderings are reported as margins (HyObscure minus its
    best competitor), so that "the ordering is stable" reads as "the margin's interval excludes
    zero".
    """
    results = {name: frame for name, frame in results.groupby("experiment", sort=False)}
    rows = []
    attack = CLAIMS_ATTACK
    trade = results.get("tradeoff")
    # every experiment of a notebook runs the same seeds; bootstrap them together
    frames = [
        results.get(k) for k in ("tradeoff", "fig6", "fig8", "fig9", "fig8_across", "fig9_across")
    ]
    seeds = sorted({int(s) for f in frames if f is not None and len(f) for s in f["seed"]})
    boot = _Bootstrap(seeds)
    if trade is not None and len(trade):
        curves, u0 = _tradeoff_curves(trade, attack, seeds)
        base = [m for m in BASELINES if m in curves]
        if dataset == "movielens":
            # Fig. 3a: privacy gain at about 0.2% utility loss, curves through the reference
            # (0, 0) unless a point of their own costs no utility at all (a pp = 1 point, nobody
            # obfuscated, which the authors' lists do not hold)
            def anchored(du, *ys):
                if (du == 0).any():
                    return (du, *ys)
                return (np.r_[0.0, du], *(np.r_[0.0, y] for y in ys))

            def gain(m, w):
                du, dp = anchored(curves[m][2] @ w, curves[m][3] @ w)
                return _interp(du, dp, 0.2)

            rows += boot.rows(
                "hyobscure.fig3a_mae_gain", "HyObscure", lambda w: gain("HyObscure", w)
            )
            rows += boot.rows(
                "hyobscure.fig3a_baseline_mae_gain",
                "",
                lambda w: max(gain(m, w) for m in base),
            )
            rows += boot.rows(
                "hyobscure.fig3a_margin",
                "HyObscure",
                lambda w: gain("HyObscure", w) - max(gain(m, w) for m in base),
            )

            def gains_at(part, w):
                """HyObscure's gain and ``part``'s (GenOnly, ObfOnly), both read at 0.2% of
                HyObscure's utility change."""
                du, dp, dq = anchored(
                    curves["HyObscure"][2] @ w, curves["HyObscure"][3] @ w, curves[part][3] @ w
                )
                return _interp(du, dp, 0.2), _interp(du, dq, 0.2)

            if "GenOnly" in curves:

                def gen_share(w):
                    total, alone = gains_at("GenOnly", w)
                    return 100 * alone / total if total > 0 else float("nan")

                rows += boot.rows("hyobscure.fig3a_generalization_share", "HyObscure", gen_share)
            if protocol == "authors":
                rows += _authors_fig3a_rows(boot, curves, anchored, gains_at)
        else:
            # Fig. 4a: utility loss above the reference at equal privacy, HyObscure vs best baseline
            hy_priv = curves["HyObscure"][1].mean(axis=1)
            target = 0.817
            if not hy_priv.min() <= target <= hy_priv.max():
                target = float(np.median(hy_priv))

            def uloss(m, w):
                return _interp(curves[m][1] @ w, curves[m][0] @ w, target) - u0 @ w

            def saving(w):
                hy_l, base_l = uloss("HyObscure", w), min(uloss(m, w) for m in base)
                return 100 * (1 - hy_l / base_l) if base_l > 0 else float("nan")

            rows += boot.rows("hyobscure.fig4a_utility_saving", "HyObscure", saving)
            if "GenOnly" in curves:
                # both gains read where HyObscure's privacy reaches the target
                def gen_share(w):
                    hp = curves["HyObscure"][1] @ w
                    total = _interp(hp, curves["HyObscure"][3] @ w, target)
                    alone = _interp(hp, curves["GenOnly"][3] @ w, target)
                    return 100 * alone / total if total > 0 else float("nan")

                rows += boot.rows("hyobscure.fig4a_generalization_share", "HyObscure", gen_share)
            # the privacy level at which the saving is read: context, not a claim of the paper
            rows += tidy_rows(
                "claim_context", "HyObscure", {"hyobscure.fig4a_privacy_level": target}
            )
        # Fig. 5: HyObscure above XObf and YGen at equal utility (mean over a common utility range)
        if {"HyObscure", "XObf", "YGen"} <= set(curves):

            def variant_margin(w):
                cur = {
                    m: (curves[m][0] @ w, curves[m][1] @ w) for m in ("HyObscure", "XObf", "YGen")
                }
                lo = max(u.min() for u, _ in cur.values())
                hi = min(u.max() for u, _ in cur.values())
                grid = np.linspace(lo, hi, 11) if hi > lo else np.array([lo])
                area = {m: np.mean([_interp(u, p, g) for g in grid]) for m, (u, p) in cur.items()}
                return area["HyObscure"] - max(area["XObf"], area["YGen"])

            rows += boot.rows("hyobscure.fig5_margin", "HyObscure", variant_margin)
    f6 = results.get("fig6")
    if f6 is not None and len(f6) and "infeasible" not in set(f6["metric"]):
        methods = sorted(set(f6["method"]) - {"Original"})
        vals = {m: _by_seed(f6, m, "privacy", seeds, key="n_groups", **attack) for m in methods}
        if "HyObscure" in vals:
            groups = vals["HyObscure"][1]
            rows += boot.rows(
                "hyobscure.fig6_rank_correlation",
                "HyObscure",
                lambda w: rank_correlation(groups, vals["HyObscure"][0] @ w),
            )
            others = [m for m in methods if m != "HyObscure"]
            if others:

                def min_margin(w):
                    h = vals["HyObscure"][0] @ w
                    best = np.max([vals[m][0] @ w for m in others], axis=0)
                    return float(np.min(h - best))

                rows += boot.rows("hyobscure.fig6_min_margin", "HyObscure", min_margin)
    for name, key, _ in CONSTRAINT_SWEEPS.values():
        claim_id = f"hyobscure.{name}_rank_correlation"
        rows += _bound_rank_rows(boot, claim_id, results.get(name), key, attack, seeds)
        # the same claim on the other grids (the paper states none): "<id>.across" rows
        across = results.get(f"{name}_across")
        if across is None or not len(across):
            continue
        labels = with_parameters(across, ["grid"])["grid"].to_numpy()
        for label, block in across.groupby(labels, sort=True):
            rows += _bound_rank_rows(
                boot, claim_id + ACROSS, block, key, attack, seeds, parameters={"grid": label}
            )
    f10 = results.get("fig10")
    if f10 is not None and len(f10):
        sub = f10[f10["metric"] == "seconds_total"]
        n = sub["n_users"].to_numpy(float)
        if len(np.unique(n)) >= 2:
            slope = float(np.polyfit(np.log(n), np.log(sub["value"].to_numpy()), 1)[0])
            rows += tidy_rows("claims", "HyObscure", {"hyobscure.fig10_growth_exponent": slope})
    f11 = results.get("fig11")
    if f11 is not None and len(f11):
        sub = f11[f11["metric"] == "leakage"]
        vals11 = sub.sort_values("step")["value"].to_numpy()
        rows += tidy_rows(
            "claims",
            "HyObscure",
            {"hyobscure.fig11_monotone": float(np.all(np.diff(vals11) <= 1e-6))},
        )
    if protocol == "authors" and trade is not None and "table2_met" in set(trade["metric"]):
        met = trade[(trade["method"] == "HyObscure") & (trade["metric"] == "table2_met")]
        # the share of HyObscure's fits (seeds x budgets) whose final groups meet Table II
        fits = met.drop_duplicates(["seed", *parameter_columns(met)])
        rows += tidy_rows(
            "claims", "HyObscure", {"hyobscure.table2_met_share": float(fits["value"].mean())}
        )
    prefix = f"hyobscure.{dataset}_" + ("authors_" if protocol == "authors" else "")
    for r in rows:
        r["metric"] = r["metric"].replace("hyobscure.", prefix, 1)
    return concat_tidy([tidy_frame(rows)])


# ------------------------------------------------------------------------------------------------
# figures


def _labels(dataset: str) -> tuple[str, str]:
    if dataset == "movielens":
        return "RMSE (movie rating prediction)", "MAE (age inference)"
    return "1 - mAP (activity recommendation)", "1 - acc (home inference)"


def point_means(frame: pd.DataFrame, index=("method",)) -> pd.DataFrame:
    """Means over seeds as a table for reading: a row per ``index`` and point (the parameters as
    text, :func:`parameter_labels`), a column per metric, or per metric and facets when the rows
    have facets (column levels ``metric`` and e.g. ``model``, ``scenario``; "" where a metric has
    none).

    Examples
    --------
    >>> rows = tidy_frame(
    ...     tidy_rows("tradeoff", "Original", {"utility_loss": 1.0}, seed=0)
    ...     + tidy_rows("tradeoff", "DP", {"utility_loss": 2.0}, parameters={"beta": 3.0}, seed=0)
    ...     + tidy_rows("tradeoff", "DP", {"utility_loss": 4.0}, parameters={"beta": 3.0}, seed=1)
    ... )
    >>> point_means(rows)["utility_loss"].to_dict()
    {('DP', 'beta = 3'): 3.0, ('Original', ''): 1.0}
    >>> attack = {"model": "rf", "scenario": "sI"}
    >>> rows = concat_tidy(
    ...     [rows, tidy_frame(tidy_rows("tradeoff", "Original", {"privacy": 2.0}, facets=attack))]
    ... )
    >>> point_means(rows).columns.tolist()
    [('privacy', 'rf', 'sI'), ('utility_loss', '', '')]
    """
    summ = summarize(frame)
    summ["point"] = parameter_labels(summ, parameter_columns(frame))
    facets = facet_columns(frame)
    # a metric without a facet is "" there: a missing column key would drop its rows
    summ[facets] = summ[facets].fillna("")
    return summ.pivot_table(index=[*index, "point"], columns=["metric", *facets], values="mean")


def _mean_ci(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and interval over seeds per method, ``setting`` (:func:`setting_ids`), metric and
    facets."""
    by = ("method", "setting", "metric", *facet_columns(frame))
    return summarize(frame.assign(setting=setting_ids(frame)), by=by)


def plot_tradeoff(
    frame: pd.DataFrame,
    dataset: str,
    methods=(*METHODS, "GenOnly"),
    models=("rf", "xgb"),
    scenarios=("I", "II"),
):
    """Figs. 3/4: one panel per (attack model, scenario); privacy vs utility loss per method."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from ppdp.plotting import method_style

    summ = _mean_ci(frame)
    xlab, ylab = _labels(dataset)
    panels = [(m, s) for m in models for s in scenarios]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.3 * len(panels), 3.2), squeeze=False)
    for ax, (model, scen) in zip(axes[0], panels, strict=True):
        attack = {"model": model, "scenario": f"s{scen}"}
        for i, method in enumerate([m for m in methods if m in set(summ["method"])]):
            sub = summ[summ["method"] == method]
            u = sub[sub["metric"] == "utility_loss"].set_index("setting")
            p = sub[_is_metric(sub, "privacy", **attack)].set_index("setting")
            if p.empty:
                continue
            idx = u.index.intersection(p.index)
            order = np.argsort(u.loc[idx, "mean"].to_numpy(), kind="mergesort")
            idx = idx[order]
            ax.errorbar(
                u.loc[idx, "mean"],
                p.loc[idx, "mean"],
                yerr=(p.loc[idx, "ci_high"] - p.loc[idx, "mean"]).to_numpy(),
                label=method,
                capsize=2,
                lw=1,
                **method_style(i),
            )
        ref = summ[summ["method"] == "Original"]
        if len(ref):
            ax.plot(
                ref[ref["metric"] == "utility_loss"]["mean"],
                ref[_is_metric(ref, "privacy", **attack)]["mean"],
                "k*",
                ms=10,
                label="Reference",
            )
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.set_title(f"{model.upper()}, Scenario {scen}")
        ax.set_xlabel(xlab)
        ax.set_ylabel(ylab)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, 0.86 if len(panels) == 1 else 0.92, 1))
    fig.legend(handles, labels, loc="center right", fontsize=7)
    return fig


def plot_decomposition(dec: pd.DataFrame, dataset: str, protocol: str = "paper"):
    """HyObscure's privacy gain per point, stacked: re-generalization alone and obfuscation on
    top (means over seeds, % of the reference's privacy), with the utility change and whether the
    final groups meet Table II under each bar; a diamond marks obfuscation alone (the other
    order), when the frame holds it. ``dec`` is :func:`decomposition`'s frame."""
    import matplotlib.pyplot as plt

    from ppdp.plotting import PALETTE

    summ = dec.groupby("point", sort=False).mean(numeric_only=True)
    summ = summ.sort_values("utility_change_pct", kind="mergesort")
    x = np.arange(len(summ))
    gen, obf = summ["generalization_pct"].to_numpy(), summ["obfuscation_pct"].to_numpy()
    fig, ax = plt.subplots(figsize=(max(3.6, 0.75 * len(summ) + 1.5), 3.4))
    ax.bar(x, gen, color=PALETTE[0], label="generalization only")
    ax.bar(x, obf, bottom=np.where(obf >= 0, gen, 0), color=PALETTE[1], label="obfuscation on top")
    ax.plot(x, summ["total_pct"], "k_", ms=14, mew=2, label="total")
    if summ["obfuscation_alone_pct"].notna().any():
        # the other order: obfuscation alone on the starting groups (XObf at the same point)
        ax.plot(x, summ["obfuscation_alone_pct"], "D", color="0.2", ms=4, label="obfuscation alone")
    ax.axhline(0, color="0.5", lw=0.6)
    labels = []
    for point, row in summ.iterrows():
        met = row.get("table2_met", np.nan)
        mark = "" if np.isnan(met) else f"\nTable II {met:.0%}"
        # one parameter a line: the bars are narrow
        labels.append(
            f"{point.replace(', ', chr(10))}\nutil {row['utility_change_pct']:+.2f}%{mark}"
        )
    ax.set_xticks(x, labels, fontsize=6)
    _, ylab = _labels(dataset)
    ax.set_ylabel(f"gain in {ylab.split(' (')[0]} (% of reference)")
    ax.set_title(f"HyObscure's gain, {dataset}, {protocol} protocol", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_sweep(
    frame: pd.DataFrame,
    dataset: str,
    key: str,
    xlabel: str,
    series: str | None = None,
    *,
    model: str = CLAIMS_ATTACK["model"],
    scenario: str = CLAIMS_ATTACK["scenario"],
):
    """Figs. 6-9: privacy (of the attack ``model`` in ``scenario``) against a swept parameter, one
    line per method (or per ``series`` value)."""
    import matplotlib.pyplot as plt

    from ppdp.plotting import method_style

    attack = _is_metric(frame, "privacy", model=model, scenario=scenario)
    sub = with_parameters(frame[attack], [key] if series is None else [key, series]).copy()
    sub["x"] = sub[key].astype(float)
    sub["line"] = sub["method"] if series is None else parameter_labels(sub, [series])
    fig, ax = plt.subplots(figsize=(4.2, 3.2))
    for i, (name, grp) in enumerate(sub.groupby("line", sort=False)):
        stats = grp.groupby("x")["value"].agg(["mean", "std", "count"]).reset_index()
        half = mean_halfwidth(stats["std"], stats["count"])
        ax.errorbar(
            stats["x"],
            stats["mean"],
            yerr=half,
            label=name,
            capsize=2,
            lw=1,
            **method_style(i),
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(_labels(dataset)[1])
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_scaling(frame: pd.DataFrame):
    """Fig. 10: run time of a full fit and release against the number of users (log-log)."""
    import matplotlib.pyplot as plt

    sub = frame[frame["metric"].str.startswith("seconds_")].copy()
    sub["n"] = sub["n_users"].astype(float)
    fig, ax = plt.subplots(figsize=(4.2, 3.2))
    for i, (metric, grp) in enumerate(sub.groupby("metric", sort=True)):
        g = grp.groupby("n")["value"].mean()
        ax.loglog(
            g.index,
            g.values,
            marker="os^Dv"[i % 5],
            label=metric.replace("seconds_", ""),
        )
    ax.set_xlabel("number of users")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_convergence(frame: pd.DataFrame):
    """Fig. 11: leakage after each O-problem and each accepted G move."""
    import matplotlib.pyplot as plt

    sub = frame[frame["metric"] == "leakage"].sort_values("step")
    fig, ax = plt.subplots(figsize=(4.2, 3.2))
    ax.plot(sub["step"], sub["value"], marker="o", ms=3)
    ax.set_xlabel("optimization step (O-problems and accepted G moves)")
    ax.set_ylabel("privacy leakage I(Y; X^, Y~) (bits)")
    fig.tight_layout()
    return fig


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


def decomposition(
    frame: pd.DataFrame,
    model: str = CLAIMS_ATTACK["model"],
    scenario: str = CLAIMS_ATTACK["scenario"],
) -> pd.DataFrame:
    """Split every HyObscure point's privacy gain into re-generalization and obfuscation.

    From the tidy rows of :func:`tradeoff` run with ``decompose=True``, per seed and point
    (``*_pct`` columns: % of the reference's privacy, that of the attack ``model`` in
    ``scenario``):

    * ``total``: HyObscure's privacy minus the reference's (``Original``, the starting groups);
    * regrouping first: ``generalization``, the same for ``GenOnly`` (the unobscured features
      under HyObscure's final groups), and ``obfuscation`` the rest;
    * obfuscation first: ``obfuscation_alone``, the same for ``ObfOnly`` (XObf at the same knob
      and pp: the obfuscation on the starting groups), and ``regrouping_after`` the rest;
    * ``final_reference_pct``: HyObscure's gain against ``GenOnly``, the reference point of the
      authors' code (their "ori" scores the unobscured features under each method's final
      groups); it equals ``obfuscation`` in % of ``GenOnly``'s privacy.

    The attribution depends on the order; both orders add up to the total.

    Returns
    -------
    DataFrame
        One row per (seed, point): ``seed``, the parameters of HyObscure's points as columns (typed
        as in ``frame``), ``point`` (those parameters as text, :func:`parameter_labels`: one label
        per point, for tables and figures), the columns above, ``utility_change_pct`` and
        ``table2_met`` (whether the final groups meet Table II); the obfuscation-first columns are
        NaN when the rows hold no ``ObfOnly``.
    """
    metric = "privacy"
    attack = _is_metric(frame, metric, model=model, scenario=scenario)
    sub = frame[attack | frame["metric"].isin(["utility_loss", "table2_met"])]
    # one id per point, shared by HyObscure's rows and its GenOnly and ObfOnly rows
    sub = sub.assign(setting=setting_ids(sub))
    ref = sub[(sub["method"] == "Original")].pivot_table(
        index="seed", columns="metric", values="value"
    )

    def by_point(method):
        rows = sub[sub["method"] == method]
        if not len(rows):
            return None
        return rows.pivot_table(index=["seed", "setting"], columns="metric", values="value")

    hy_p, al_p, ob_p = by_point("HyObscure"), by_point("GenOnly"), by_point("ObfOnly")
    if al_p is None:
        raise ValueError("no GenOnly rows: run tradeoff(..., decompose=True)")
    joined = hy_p.merge(
        al_p, left_index=True, right_index=True, how="inner", suffixes=("", "_genonly")
    )
    out = []
    for (seed, setting), row in joined.iterrows():
        p0, u0 = ref.loc[seed, metric], ref.loc[seed, "utility_loss"]
        total = row[metric] - p0
        gen = row[f"{metric}_genonly"] - p0
        first = np.nan
        if ob_p is not None and (seed, setting) in ob_p.index:
            first = ob_p.loc[(seed, setting), metric] - p0
        out.append(
            {
                "seed": seed,
                "setting": setting,
                "total": total,
                "generalization": gen,
                "obfuscation": total - gen,
                "obfuscation_alone": first,
                "regrouping_after": total - first,
                "total_pct": 100 * total / p0,
                "generalization_pct": 100 * gen / p0,
                "obfuscation_pct": 100 * (total - gen) / p0,
                "obfuscation_alone_pct": 100 * first / p0,
                "regrouping_after_pct": 100 * (total - first) / p0,
                "final_reference_pct": 100 * (total - gen) / row[f"{metric}_genonly"],
                "utility_change_pct": 100 * (row["utility_loss"] - u0) / u0,
                "table2_met": row.get("table2_met", np.nan),
            }
        )
    return _with_points(pd.DataFrame(out), sub[sub["method"] == "HyObscure"])


def _with_points(values: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """:func:`decomposition`'s rows with the parameters of their ``setting`` in its place: the
    columns HyObscure's rows (``points``) give, typed as there, and ``point``, their label."""
    keys = [c for c in parameter_columns(points) if c != "setting" and points[c].notna().any()]
    if values.empty:
        return pd.DataFrame(columns=["seed", *keys, "point"])
    by_setting = points.drop_duplicates("setting").set_index("setting")[keys]
    params = by_setting.loc[values["setting"]].reset_index(drop=True)
    params["point"] = parameter_labels(params, keys)
    rest = values.drop(columns=["seed", "setting"])
    return pd.concat([values[["seed"]], params, rest], axis=1)
