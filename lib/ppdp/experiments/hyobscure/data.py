"""The data sets of the HyObscure experiments and each seed's split of items and users.

:func:`load_population` prepares MovieLens-100K or Foursquare NYC as a protocol
(:data:`PROTOCOLS`) reads it, :func:`protocol_population` first clusters all its users where the
authors' protocol does, and :func:`make_split` draws a seed's split of the items (published and
held out) and of the users (the attacker's and the published), within each cluster (see the
package's docstring, :mod:`ppdp.experiments.hyobscure`). Both keep what they computed in a memo
(:data:`POPULATIONS`, :data:`SPLITS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ppdp.mechanisms import hyobscure as hy
from ppdp.memo import Memo, digest

__all__ = [
    "PROTOCOLS",
    "Population",
    "Split",
    "load_population",
    "make_split",
]


#: ``paper``: the paper's text (Algorithm 1's start, Algorithm 3's G-step, Eq. 16's budget).
#: ``authors``: the settings of the authors' code (scottshufe/HyObscure, ``age_tradeoff_*/main.py``).
PROTOCOLS = ("paper", "authors")


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
    "a seed's split (items, users, clusters), read-only, by a digest of the population's ratings, "
    "private values and clusters, the seed, clusters, fraction, restarts and rule",
    freeze=True,
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
    Splits are cached (:data:`SPLITS`) by the content of what they read (the ratings, the
    private values, the clusters) and the arguments, within a session; their arrays are
    read-only."""
    if split_by not in ("cluster", "value"):
        raise ValueError(f"split_by must be 'cluster' or 'value'; got {split_by!r}")
    key = digest(
        pop.X,
        pop.y,
        pop.clusters,
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
    "a protocol's population with its clusters, read-only, by a digest of the population's "
    "ratings and private values, the clustering, drop rules and seed",
    maxsize=24,
    freeze=True,
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
    # the result carries pop's name, kind, task and utility: they are part of the key too
    key = digest(pop, how, n_clusters, drop, least, n_init, drawn)

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
