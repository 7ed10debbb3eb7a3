"""Attribute inference by an attacker who knows a feature-obfuscation mechanism (HyObscure family).

HyObscure, its variants (XObf, YGen) and its baselines (PrivCheck, Random, FRAPP, Similarity, the
exponential-mechanism "DP") publish, for every user, the generalized private value ``y~`` (an age
group, exactly) and the features ``x^`` of a user drawn from the same group (Sect. II-A and III-F
of the HyObscure paper): the cluster-level mechanisms draw a cluster ``c^ ~ O(. | c, y~)`` and then
a uniform member of cell ``(y~, c^)``; the user-level baselines draw a member of the group from a
row of their matrix.

**Threat model.** The attacker targets a person he knows to be in the release and knows the
target's true features and other quasi-identifiers. He knows the mechanism and its fitted
parameters (Kerckhoffs): the k-means centres and the obfuscation mapping ``O`` of the cluster-level
mechanisms, the rule and parameter of a user-level baseline. He does not know which released row
is the target's, nor the private data behind the release: how many users of a group share a
feature vector he estimates from the group's released rows. He wants the target's exact private
value (an age, where the release shows only its group).

Every released row ``r`` of group ``g`` whose unobfuscated quasi-identifiers equal the target's
is a candidate. With the target equally likely to be any released row and the other rows drawn
from the population, Bayes' rule weighs each candidate by the likelihood that the target's record,
placed in group ``g``, became that row, over the probability of the row for anybody::

    E(t, g) = sum_{r in group g, rest of qi matching} P(x^_r | x_t, g) / P(o_r)
    posterior(t, s) ∝ prior(t, s) * E(t, g(s))

``P(o_r)`` is the share of released rows showing what row ``r`` shows (its quasi-identifiers and
group). The ratio is what makes the attack sound: a mechanism that replaces every user's features
by those of a random member of his cluster and group makes ``E`` the same for every group that
holds the target's cluster, and the posterior is the prior: the release hides which row is the
target's. A mechanism that keeps a user's own features makes ``E`` vanish for the groups where no
row shows them.

The channel ``P(x^ | x, g)``:

* cluster-level (HyObscure, XObf, YGen, PrivCheck): ``O[g, c(x), c(x^)] * m_g(x^) / n_g(c(x^))``,
  with ``c(.)`` the nearest k-means centre, ``m_g(x^)`` the group's released rows showing ``x^``
  and ``n_g(c)`` those showing a vector of cluster ``c`` (a uniform member of the cell, whose
  composition the release estimates);
* user-level: ``a(x) [x^ = x] + m_g(x^) w(x, x^)``: the weight ``a`` of the user's own features
  and the weight ``w`` of a member with features ``x^``, by the baseline's rule, with the group's
  released rows as its other members (:func:`member_weights`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ppdp.attacks.targeted import _check_prior, _check_roles, _exact_codes, _target_codes
from ppdp.base import check_fitted
from ppdp.infotheory import pairwise_js_divergence
from ppdp.tabular import AttributeDomain

__all__ = ["ObfuscationChannel", "member_weights", "obfuscation_channel", "obfuscation_posterior"]

#: The user-level baselines and the name of their parameter.
USER_LEVEL = {
    "RandomObfuscation": "p_rand",
    "Frapp": "gamma",
    "Similarity": "p_obf",
    "DPObfuscation": "beta",
}

# targets per block of the (targets x released rows) likelihood: bounds it to about 32 MB
_BLOCK_CELLS = 1 << 22


def member_weights(kind: str, parameter: float, x: np.ndarray, others: np.ndarray):
    """The row of a user-level baseline's matrix for a user with features ``x`` among ``others``.

    Parameters
    ----------
    kind : {"RandomObfuscation", "Frapp", "Similarity", "DPObfuscation"}
        The baseline (HyObscure paper, Sect. IV-A5).
    parameter : float
        Its parameter: ``p_rand``, ``gamma``, ``p_obf`` or ``beta``.
    x : ndarray, shape (n, m)
        Features of ``n`` hypothetical users, each joining the group alone.
    others : ndarray, shape (k, m)
        Features of the group's other members.

    Returns
    -------
    own : ndarray, shape (n,)
        Probability that user ``i`` publishes his own features.
    weights : ndarray, shape (n, k)
        Probability that user ``i`` publishes the features of member ``j``.

    Notes
    -----
    The rules of the baselines' ``_group_matrix`` for a group of ``k + 1`` members, row by row:
    Random keeps his own with ``1 - p_rand`` and draws another uniformly; FRAPP weighs his own
    ``gamma`` times another's; Similarity keeps his own with ``1 - p_obf`` and draws another in
    proportion to cosine similarity (uniformly when all are 0); DP draws member ``j`` with
    probability ``∝ exp(-beta JS(x, x_j))`` (Jensen-Shannon in bits, his own at distance 0).

    Raises
    ------
    ValueError
        For a ``kind`` that is not one of the four baselines (when ``others`` is not empty).

    Examples
    --------
    A user joining a group of two: Random at ``p_rand = 0.3`` keeps his features with
    probability 0.7 and shows each other member's with 0.15; FRAPP at ``gamma = 2`` weighs his
    own twice as much as each other's:

    >>> x, others = np.array([[1.0, 2.0]]), np.array([[1.0, 2.0], [3.0, 1.0]])
    >>> own, weights = member_weights("RandomObfuscation", 0.3, x, others)
    >>> own.round(3), weights.round(3)
    (array([0.7]), array([[0.15, 0.15]]))
    >>> own, weights = member_weights("Frapp", 2.0, x, others)
    >>> own.round(3), weights.round(3)
    (array([0.5]), array([[0.25, 0.25]]))
    """
    x = np.asarray(x, dtype=np.float64)
    others = np.asarray(others, dtype=np.float64)
    n, k = x.shape[0], others.shape[0]
    p = float(parameter)
    if k == 0:
        return np.ones(n), np.zeros((n, 0))
    if kind == "RandomObfuscation":
        return np.full(n, 1.0 - p), np.full((n, k), p / k)
    if kind == "Frapp":
        e = 1.0 / (p + k)
        return np.full(n, p * e), np.full((n, k), e)
    if kind == "Similarity":
        unit = x / np.where((norm := np.linalg.norm(x, axis=1)) > 0, norm, 1.0)[:, None]
        ounit = others / np.where((on := np.linalg.norm(others, axis=1)) > 0, on, 1.0)[:, None]
        sim = unit @ ounit.T
        total = sim.sum(axis=1, keepdims=True)
        share = np.where(total > 0, sim / np.where(total > 0, total, 1.0), 1.0 / k)
        return np.full(n, 1.0 - p), p * share
    if kind == "DPObfuscation":
        weight = np.exp(-p * pairwise_js_divergence(x, others))
        total = 1.0 + weight.sum(axis=1)  # his own features: distance 0, weight 1
        return 1.0 / total, weight / total[:, None]
    raise ValueError(f"kind must be one of {sorted(USER_LEVEL)}, got {kind!r}")


@dataclass(frozen=True)
class ObfuscationChannel:
    """What the attacker knows of a fitted obfuscation mechanism (see the module's threat model).

    Attributes
    ----------
    features : tuple of str
        The obfuscated feature columns.
    labels : tuple of str
        The released label of each group ``0..K-1``.
    generalization : Generalization
        The released generalization: the group of each private value
        (:meth:`~ppdp.mechanisms.hyobscure.Generalization.transform_nearest` places a value the
        fitted table did not hold in the group of the nearest one).
    kind : str
        ``"cluster"``, or the user-level baseline's class name (``"RandomObfuscation"``,
        ``"Frapp"``, ``"Similarity"``, ``"DPObfuscation"``).
    parameter : float
        A user-level baseline's parameter (NaN for ``"cluster"``).
    centres : ndarray, shape (C, m) or None
        The k-means centres (cluster-level).
    mappings : ndarray, shape (K, C, C) or None
        ``O[g, c, c^]`` (cluster-level).

    Examples
    --------
    The attacker knows Random obfuscation at ``p_rand = 0.5`` and the generalization of ages
    into two groups; for a target with features ``(1, 2)`` placed in group 0, the likelihood
    that he became each of the group's three released rows:

    >>> from ppdp.mechanisms.hyobscure import Generalization, private_domain
    >>> ages = private_domain(np.array([18, 25, 35, 50]))
    >>> channel = ObfuscationChannel(
    ...     features=("f1", "f2"), labels=("18-25", "35-50"),
    ...     generalization=Generalization(ages, np.array([0, 0, 1, 1])),
    ...     kind="RandomObfuscation", parameter=0.5)
    >>> shown = np.array([[1.0, 2.0], [3.0, 1.0], [3.0, 1.0]])
    >>> channel.likelihood(np.array([[1.0, 2.0]]), shown, group=0).round(3)
    array([[0.667, 0.333, 0.333]])
    """

    features: tuple
    labels: tuple
    generalization: Any
    kind: str
    parameter: float = float("nan")
    centres: np.ndarray | None = None
    mappings: np.ndarray | None = None

    def likelihood(self, x: np.ndarray, shown: np.ndarray, group: int) -> np.ndarray:
        """``P(x^_r | x_i, group)`` for targets' features ``x`` (n, m) and every released row of
        the group, ``shown`` (k, m): shape (n, k)."""
        _, inverse, counts = np.unique(shown, axis=0, return_inverse=True, return_counts=True)
        same_shown = counts[inverse.reshape(-1)].astype(np.float64)  # m_g(x^_r)
        if self.kind == "cluster":
            c_target, c_shown = self._nearest(x), self._nearest(shown)
            per_cluster = np.bincount(c_shown, minlength=self.centres.shape[0])
            draw = same_shown / per_cluster[c_shown]
            return self.mappings[group][c_target][:, c_shown] * draw[None, :]
        own, weights = member_weights(self.kind, self.parameter, x, shown)
        equal = (x[:, None, :] == shown[None, :, :]).all(axis=2)
        return own[:, None] * equal + weights * same_shown[None, :]

    def _nearest(self, x: np.ndarray) -> np.ndarray:
        d = ((x[:, None, :] - self.centres[None, :, :]) ** 2).sum(axis=2)
        return d.argmin(axis=1)


def obfuscation_channel(mechanism) -> ObfuscationChannel:
    """The channel of a fitted :class:`~ppdp.mechanisms.hyobscure.TableObfuscation`.

    Parameters
    ----------
    mechanism : TableObfuscation
        Fitted, around HyObscure, XObf, YGen, PrivCheck or a user-level baseline.

    Returns
    -------
    ObfuscationChannel
        The centres are the means of the fitted users' features per cluster (the k-means
        centres the clusters were assigned to).

    Raises
    ------
    TypeError
        When ``mechanism`` is not a TableObfuscation.
    sklearn.exceptions.NotFittedError
        When it is not fitted.

    Examples
    --------
    What an attacker who knows the fitted mechanism reads from it, here Random obfuscation of
    12 users' two features inside groups of ages:

    >>> import pandas as pd
    >>> from ppdp.mechanisms.hyobscure import RandomObfuscation, TableObfuscation
    >>> df = pd.DataFrame({"f1": [1, 1, 2, 3, 1, 2, 3, 3, 1, 2, 3, 2],
    ...                    "f2": [1, 2, 1, 3, 1, 2, 3, 1, 2, 3, 3, 2],
    ...                    "age": [20, 21, 22, 23, 24, 25, 30, 31, 32, 33, 34, 35]})
    >>> mech = TableObfuscation(RandomObfuscation(p_rand=0.5), private="age", n_groups=2, k=2,
    ...                         alpha=6, l=2, beta=3, kmeans_n_init=1).fit(df, random_state=0)
    >>> channel = obfuscation_channel(mech)
    >>> channel.kind, channel.parameter, channel.features
    ('RandomObfuscation', 0.5, ('f1', 'f2'))
    >>> channel.labels
    ('20-22', '23-25', '30-32', '33-35')
    """
    from ppdp.mechanisms.hyobscure import TableObfuscation

    if not isinstance(mechanism, TableObfuscation):
        raise TypeError(
            f"mechanism of obfuscation_channel must be a fitted TableObfuscation, got "
            f"{type(mechanism).__name__}"
        )
    check_fitted(mechanism, "mechanism_")
    inner = mechanism.mechanism_
    gen = mechanism.generalization_
    common = {
        "features": tuple(mechanism.feature_columns_),
        "labels": tuple(mechanism.group_labels_),
        "generalization": gen,
    }
    name = type(inner).__name__
    if name in USER_LEVEL:
        return ObfuscationChannel(
            kind=name, parameter=float(getattr(inner, USER_LEVEL[name])), **common
        )
    X, clusters = np.asarray(inner.X_, dtype=np.float64), np.asarray(inner.clusters_)
    n_clusters = inner.mappings_.shape[1]
    centres = np.zeros((n_clusters, X.shape[1]))
    sizes = np.bincount(clusters, minlength=n_clusters)
    np.add.at(centres, clusters, X)
    centres /= np.maximum(sizes, 1)[:, None]
    # a cluster without users can never be a target's nearest centre
    centres[sizes == 0] = np.inf
    return ObfuscationChannel(
        kind="cluster", centres=centres, mappings=np.asarray(inner.mappings_), **common
    )


def obfuscation_posterior(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    qi: Sequence[str],
    private: str,
    channel: ObfuscationChannel,
    prior,
) -> np.ndarray:
    """Posterior of each target's private value from an obfuscated, generalized release.

    Parameters
    ----------
    targets : DataFrame
        The attacked people, one row each, with their true ``qi`` values.
    released : DataFrame
        The release: ``channel.features`` as published (numbers), ``private`` holding group
        labels of ``channel.labels``, the other ``qi`` exact values of their domains.
    domains : mapping str -> AttributeDomain
        Domains of ``qi`` and ``private``.
    qi : sequence of str
        The quasi-identifiers the attacker knows, ``channel.features`` among them.
    private : str
        The generalized column.
    channel : ObfuscationChannel
        From :func:`obfuscation_channel`.
    prior : array-like, shape (n_values,) or (n_targets, n_values)
        The attacker's belief over ``domains[private].values`` before the release.

    Returns
    -------
    ndarray, shape (n_targets, n_values)
        Rows sum to 1. A target no released row can hold keeps his prior; a target whose prior
        is 0 on every group his candidate rows show gets the normalized likelihood.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value, naming it; a released label that is not a
        group's, a feature column outside ``qi``, a private value that is not an integer (an age,
        a home cell).

    Notes
    -----
    The likelihood takes the released rows as independent draws, as in
    :func:`~ppdp.attacks.targeted.mapping_matching_posterior`. The work is one
    ``(targets x rows of a group)`` likelihood per group, in blocks of targets.

    Examples
    --------
    The attacker knows every user's true features and the fitted mechanism, and wants each
    user's age; below, the posterior mass on the user's true age group. Users who publish their
    own features (``p_rand = 0``) and whose features are unique (rows 2, 7 and 9) are found; when
    every user publishes another's (``p_rand = 1``), the posterior is the prior, 1/4 per group:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> from ppdp.mechanisms.hyobscure import RandomObfuscation, TableObfuscation
    >>> df = pd.DataFrame({"f1": [1, 1, 2, 3, 1, 2, 3, 3, 1, 2, 3, 2],
    ...                    "f2": [1, 2, 1, 3, 1, 2, 3, 1, 2, 3, 3, 2],
    ...                    "age": [20, 21, 22, 23, 24, 25, 30, 31, 32, 33, 34, 35]})
    >>> doms = table_domains(df, ["f1", "f2", "age"], numeric=["f1", "f2", "age"])
    >>> uniform = np.full(doms["age"].size, 1 / doms["age"].size)
    >>> for p_rand in (0.0, 1.0):
    ...     mech = TableObfuscation(RandomObfuscation(p_rand=p_rand), private="age", n_groups=2,
    ...                             k=2, alpha=6, l=2, beta=3, kmeans_n_init=1)
    ...     mech = mech.fit(df, random_state=0)
    ...     post = obfuscation_posterior(df, mech.release(random_state=1), domains=doms,
    ...                                  qi=["f1", "f2"], private="age",
    ...                                  channel=obfuscation_channel(mech), prior=uniform)
    ...     own = mech.generalization_.transform(df["age"].to_numpy())
    ...     group_of_value = mech.generalization_.transform(doms["age"].values)
    ...     print(p_rand, (post * (group_of_value == own[:, None])).sum(axis=1).round(2))
    0.0 [0.5  0.5  1.   0.33 0.5  0.5  0.33 1.   0.5  1.   0.33 0.5 ]
    1.0 [0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25]
    """
    caller = "obfuscation_posterior"
    if not isinstance(channel, ObfuscationChannel):
        raise TypeError(
            f"channel of {caller} must be an ObfuscationChannel (obfuscation_channel), got "
            f"{type(channel).__name__}"
        )
    targets, released, qi, private = _check_roles(targets, released, domains, qi, private, caller)
    features = list(channel.features)
    outside = [c for c in features if c not in qi]
    if outside:
        raise ValueError(
            f"the obfuscated features {outside} must be among the qi {qi}: the attacker knows "
            "the target's true features"
        )
    value_group = channel.generalization.transform_nearest(domains[private].values)
    values = domains[private].values
    n_groups = len(channel.labels)
    prior = _check_prior(prior, len(targets), len(values), "prior")

    row_group = pd.Index(channel.labels).get_indexer(released[private].astype(str))
    if (row_group < 0).any():
        bad = released[private][row_group < 0].head(3).tolist()
        raise ValueError(
            f"released[{private!r}] must hold the mechanism's group labels "
            f"{list(channel.labels)}, got {bad!r}"
        )
    x_targets = targets[features].to_numpy(dtype=np.float64)
    x_rows = released[features].to_numpy(dtype=np.float64)
    rest = [c for c in qi if c not in features]
    # the unobfuscated quasi-identifiers as one key per row; a target matches rows of his key
    t_codes = _target_codes(targets, domains, rest) if rest else np.zeros((len(targets), 0))
    r_codes = (
        _exact_codes(released, domains, rest, "released") if rest else np.zeros((len(released), 0))
    )
    _, keys = np.unique(np.vstack([t_codes, r_codes]), axis=0, return_inverse=True)
    keys = keys.reshape(-1)
    t_key, r_key = keys[: len(targets)], keys[len(targets) :]
    # P(o_r): the share of released rows that show what row r shows
    _, shown_as, shown_count = np.unique(
        np.column_stack([r_key, row_group, x_rows]), axis=0, return_inverse=True, return_counts=True
    )
    surprise = len(released) / shown_count[shown_as.reshape(-1)]

    evidence = np.zeros((len(targets), n_groups))
    for g in range(n_groups):
        rows = np.flatnonzero(row_group == g)
        if rows.size == 0:
            continue
        step = max(1, _BLOCK_CELLS // rows.size)
        for start in range(0, len(targets), step):
            block = slice(start, start + step)
            lik = channel.likelihood(x_targets[block], x_rows[rows], g) * surprise[rows]
            match = t_key[block, None] == r_key[None, rows]
            evidence[block, g] = (lik * match).sum(axis=1)
    joint = prior * evidence[:, value_group]
    total = joint.sum(axis=1, keepdims=True)
    # no candidate row: the prior; a prior that rules out every candidate's group: the
    # likelihood alone (the release contradicts the prior)
    matched = evidence.sum(axis=1) > 0
    contradicted = matched & (total[:, 0] <= 0)
    joint[contradicted] = evidence[contradicted][:, value_group]
    total = joint.sum(axis=1, keepdims=True)
    return np.where(matched[:, None], joint / np.where(total > 0, total, 1.0), prior)
