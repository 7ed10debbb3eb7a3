"""The benchmark's targeted attacks: every attacker, its advantage over no release, the worst case.

Threat model (the conventions of anonymeter and TAPAS; stated for the report in
``roles.yaml``): the attacker targets a person he knows to be in the release, knows
the target's true quasi-identifiers and wants the target's private value. Each attacker below
turns that knowledge, plus what it is allowed to see, into a posterior over the private domain;
each is scored by AUC on

* **targets**: released people (a random sample of the released rows' people, as many as the
  control set), and
* **controls**: people not in the release, attacked the same way.

The **no-release baseline** is the strongest of two models (XGBoost, logistic regression) that
the attacker trains on auxiliary real records of other people (``aux``), disjoint from targets
and controls. An attacker's **advantage** is its AUC on the targets minus the baseline's on the
same targets; its **gap** that advantage minus the same on the controls; its **tail** the excess
over the baseline in TPR at 1% and 0.1% FPR and in confident disclosures
(:mod:`ppdp.experiments.benchmark.measures`). The **risk** of a release on each measure is the
worst attacker's, with no floor at 0, so that intervals over seeds come before any clamping (an
attacker who also holds the auxiliary data can ignore the release, which the reader applies to
the interval, not to each seed). The Scenario I XGBoost's AUC on the controls is the population
utility of the attribute: what the release teaches about everyone. One attacker is left
out of the risk of some releases: ``xgb_II`` (below) on a release that publishes every kept
record's private values unchanged (``private_unchanged``: Mondrian, Mutual Cover, relay chains,
the unprotected table) reads the target's value off his row. Those mechanisms' premise is that the
attacker cannot single out the row, so that knowledge is outside their threat model; ``xgb_II`` is
still reported for them as its own metric.

The suite:

* ``xgb_I``, ``lr_I``: models trained on the release (released quasi-identifier cells ->
  released private value), applied to the target's true quasi-identifiers;
* ``xgb_II``: the attacker is told which released row is the target's (releases that keep
  records) and reads all of it: the no-release XGBoost's posterior on the row's released
  quasi-identifiers, combined with what the row's released private cell says
  (:func:`with_own_cell`: a value states itself, a set or range restricts to its members);
* ``class_matching``: the released rows whose cells hold the target's values, mixed
  (:func:`ppdp.attacks.targeted.class_matching_posterior`): every release;
* ``class_matching_aux``: the same classes combined with the baseline's belief about the target
  (:func:`with_prior`): a class of one private value discloses it, a mixed class sharpens the
  prior;
* ``anonymeter_nn``: anonymeter's inference attack, the secret of the released record nearest
  to the target (Gower distance on the quasi-identifiers), scored by AUC as a hard guess;
* a **mechanism-aware** attacker where the registry names one (``Entry.aware``), who knows the
  mechanism and its parameters: the Bayes posterior through k-RR's channel with the baseline as
  prior; through HyObscure's (or a variant's or baseline's) obfuscation channel with the baseline
  as prior (:mod:`ppdp.attacks.obfuscation`); through Mutual Cover's random output tables
  (:mod:`ppdp.attacks.random_tables`); the nearest class mean of a relay chain (and SPPM's fitted
  mapping, for SPPM releases that keep the private column).

anonymeter's own risks (inference, linkability, singling out) and record linkage are scored by
:mod:`ppdp.attacks.suite` as separate axes, in their own units.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ppdp.base import check_random_state
from ppdp.experiments.benchmark.data import BenchmarkData, Split

__all__ = [
    "AWARE_ATTACKERS",
    "ROW_READERS",
    "AttackContext",
    "attack_context",
    "holds_own_values",
    "targeted_risks",
    "with_own_cell",
    "with_prior",
]

#: The models of the no-release baseline and of Scenario I.
LEARNED = ("xgb", "lr")

#: The attackers told which released row is the target's. On a release that publishes every kept
#: record's private values unchanged (``private_unchanged``) they read the value off the row, so
#: they are reported but left out of its risk.
ROW_READERS = ("xgb_II",)


@dataclass
class AttackContext:
    """What every attack on one private attribute of one split shares: the people attacked, their
    true values and the no-release baseline.

    Made by :func:`attack_context`.

    Attributes
    ----------
    private : str
        The attacked private column.
    qi : list of str
        The quasi-identifiers every attacker knows of a target.
    values : ndarray
        The private column's domain values, the columns of every posterior.
    targets, controls : DataFrame
        The released people attacked, and the people in neither the release nor ``aux``.
    x_targets, x_controls, x_aux : ndarray
        :func:`ppdp.cells.design_matrix` of the quasi-identifiers of targets, controls and the
        auxiliary records.
    y_aux : ndarray
        The auxiliary records' private values.
    baseline : dict of str to (ndarray, ndarray)
        Per no-release model (``"xgb"``, ``"lr"``), its posteriors on the targets and on the
        controls.
    seed : int
        Seed of the learned attackers.
    n_estimators : int
        Trees of their XGBoost models.

    Examples
    --------
    The attacker knows the age and zip of 8 released people and 8 controls and wants their sex;
    without a release his best model of 16 other people scores an AUC of 0.8 on the targets:

    >>> import numpy as np, pandas as pd
    >>> from ppdp.cells import table_domains
    >>> from ppdp.experiments.benchmark.data import BenchmarkData, split
    >>> rng = np.random.default_rng(0)
    >>> table = pd.DataFrame({"age": rng.integers(20, 70, 40),
    ...                       "zip": rng.choice(["a", "b", "c"], 40),
    ...                       "sex": rng.choice(["F", "M"], 40)})
    >>> roles = {"private": ["sex"], "quasi_identifiers": ["age", "zip"], "numeric": ["age"]}
    >>> domains = table_domains(table, list(table.columns), numeric=["age"])
    >>> data = BenchmarkData("toy", table, roles, domains)
    >>> parts = split(data, 0)  # 16 released people, 16 auxiliary records, 8 controls
    >>> ctx = attack_context(data, parts, "sex", seed=0, n_estimators=5)
    >>> len(ctx.targets), len(ctx.controls), ctx.values
    (8, 8, array(['F', 'M'], dtype=object))
    >>> ctx.best_baseline, [round(auc, 3) for auc in ctx.baseline_scores]
    ('lr', [0.8, 0.625])
    >>> ctx.priors[0].shape  # the best baseline's posteriors on the targets
    (8, 2)
    """

    private: str
    qi: list[str]
    values: np.ndarray
    targets: pd.DataFrame
    controls: pd.DataFrame
    x_targets: np.ndarray
    x_controls: np.ndarray
    x_aux: np.ndarray
    y_aux: np.ndarray
    baseline: dict[str, tuple[np.ndarray, np.ndarray]]
    seed: int
    n_estimators: int

    def scores(self, posterior_targets, posterior_controls) -> tuple[float, float]:
        """AUC on the targets and on the controls."""
        from ppdp.attacks.targeted import posterior_scores

        auc_t = posterior_scores(posterior_targets, self.targets[self.private], self.values)[0]
        if posterior_controls is None:
            return auc_t, float("nan")
        auc_c = posterior_scores(posterior_controls, self.controls[self.private], self.values)[0]
        return auc_t, auc_c

    @cached_property
    def best_baseline(self) -> str:
        """The baseline model with the higher AUC on the targets, computed once per context."""
        return max(LEARNED, key=lambda m: self.scores(*self.baseline[m])[0])

    @cached_property
    def baseline_scores(self) -> tuple[float, float]:
        """The best baseline's AUC on the targets and on the controls, computed once."""
        return self.scores(*self.baseline[self.best_baseline])

    @cached_property
    def truth_codes(self) -> np.ndarray:
        """The targets' true private values as columns of every posterior."""
        return pd.Index(list(self.values)).get_indexer(list(self.targets[self.private]))

    @cached_property
    def baseline_tail(self) -> dict[str, float]:
        """Each tail measure (:data:`~ppdp.experiments.benchmark.measures.TAIL_MEASURES`) of the
        no-release attacker on the targets: the larger of its two models' values, as the
        strongest attacker without the release sets the bar for each measure."""
        from ppdp.experiments.benchmark.measures import tail_measures

        per_model = [tail_measures(self.baseline[m][0], self.truth_codes) for m in LEARNED]
        return {name: max(t[name] for t in per_model) for name in per_model[0]}

    @property
    def priors(self) -> tuple[np.ndarray, np.ndarray]:
        """The best baseline's posteriors on the targets and on the controls, the prior of an
        attacker who also holds the auxiliary records."""
        return self.baseline[self.best_baseline]


def attack_context(
    data: BenchmarkData,
    parts: Split,
    private: str,
    *,
    seed: int,
    n_estimators: int,
    n_targets: int | None = None,
) -> AttackContext:
    """Targets, controls and the no-release baseline of one private attribute on one split.

    The targets are a random sample (seeded by ``seed``) of the released people, as many as the
    controls; with ``n_targets``, at most that many of each (the controls then a random sample
    of ``parts.control`` too). The baseline's models train on ``parts.aux``.

    Parameters
    ----------
    data : BenchmarkData
        The dataset: its quasi-identifiers and domains.
    parts : Split
        ``train`` (the released people), ``aux`` (the attacker's auxiliary records) and
        ``control``.
    private : str
        The attacked private column.
    seed : int
        Seeds the sample of targets and the XGBoost models.
    n_estimators : int
        Trees of the XGBoost models.
    n_targets : int, optional
        At most this many targets and controls (None: every control, and as many targets). A
        cap that binds draws other targets than no cap; one that does not bind changes nothing.

    Returns
    -------
    AttackContext

    Raises
    ------
    ValueError
        When ``parts.aux`` shares a row label with the targets or the controls (the attacker's
        auxiliary records must be other people), or ``n_targets`` is not an int >= 1 or None.

    Examples
    --------
    The attacker knows the age and zip of the people attacked and holds 16 auxiliary records
    of other people; he wants the attacked people's sex:

    >>> import numpy as np, pandas as pd
    >>> from ppdp.cells import table_domains
    >>> from ppdp.experiments.benchmark.data import BenchmarkData, split
    >>> rng = np.random.default_rng(0)
    >>> table = pd.DataFrame({"age": rng.integers(20, 70, 40),
    ...                       "zip": rng.choice(["a", "b", "c"], 40),
    ...                       "sex": rng.choice(["F", "M"], 40)})
    >>> roles = {"private": ["sex"], "quasi_identifiers": ["age", "zip"], "numeric": ["age"]}
    >>> domains = table_domains(table, list(table.columns), numeric=["age"])
    >>> data = BenchmarkData("toy", table, roles, domains)
    >>> parts = split(data, 0)  # 16 released people, 16 auxiliary records, 8 controls
    >>> ctx = attack_context(data, parts, "sex", seed=0, n_estimators=5)
    >>> len(ctx.targets), bool(ctx.targets.index.isin(parts.train.index).all())
    (8, True)
    >>> ctx.x_aux.shape  # age, and the zip one-hot
    (16, 4)
    >>> capped = attack_context(data, parts, "sex", seed=0, n_estimators=5, n_targets=5)
    >>> len(capped.targets), len(capped.controls)
    (5, 5)
    """
    from ppdp.attacks.suite import learned_posteriors
    from ppdp.cells import design_matrix

    if n_targets is not None and (
        isinstance(n_targets, bool) or not isinstance(n_targets, int) or n_targets < 1
    ):
        raise ValueError(f"n_targets must be an int >= 1 or None, got {n_targets!r}")
    rng = np.random.default_rng([seed, 13])
    n = min(len(parts.control), len(parts.train))
    if n_targets is not None:
        n = min(n, n_targets)
    pick = np.sort(rng.choice(len(parts.train), size=n, replace=False))
    targets = parts.train.iloc[pick]
    controls = parts.control
    if len(controls) > n:
        # drawn after the targets, so a cap that does not bind changes no draw
        controls = controls.iloc[np.sort(rng.choice(len(controls), size=n, replace=False))]
    if (
        targets.index.intersection(parts.aux.index).size
        or controls.index.intersection(parts.aux.index).size
    ):
        raise ValueError("the auxiliary records must be other people than targets and controls")
    qi = data.qi
    values = np.asarray(data.domains[private].values, dtype=object)
    x_t = design_matrix(targets, data.domains, qi)
    x_c = design_matrix(controls, data.domains, qi)
    x_aux = design_matrix(parts.aux, data.domains, qi)
    y_aux = parts.aux[private].to_numpy()
    baseline = {}
    for model in LEARNED:
        post_t, post_c = learned_posteriors(
            model, x_aux, y_aux, [x_t, x_c], values, random_state=seed, n_estimators=n_estimators
        )
        baseline[model] = (post_t, post_c)
    return AttackContext(
        private,
        qi,
        values,
        targets,
        controls,
        x_t,
        x_c,
        x_aux,
        y_aux,
        baseline,
        seed,
        n_estimators,
    )


# ------------------------------------------------------------------------------------------------
# Mechanism-aware attackers: name -> posterior(ctx, data, released, level, fitted, people, prior),
# ``prior`` the no-release baseline's posterior on ``people``


def _krr_posterior(ctx, data, released, level, fitted, people, prior, population):
    """Bayes through k-RR's channel at the release's epsilon, the baseline as prior."""
    from ppdp.attacks.targeted import channel_posterior, krr_channel

    channel = krr_channel(len(ctx.values), float(level))
    return channel_posterior(
        people,
        released,
        domains=data.domains,
        qi=ctx.qi,
        private=ctx.private,
        channel=channel,
        prior=prior,
    )


def _sppm_posterior(ctx, data, released, level, fitted, people, prior, population):
    """The released rows weighted by SPPM's fitted mapping from the target's true profile."""
    from ppdp.attacks.targeted import mapping_matching_posterior, sppm_channel

    channel, in_profiles, out_profiles = sppm_channel(fitted)
    return mapping_matching_posterior(
        people,
        released,
        domains=data.domains,
        qi=ctx.qi,
        private=ctx.private,
        mapped=list(fitted.released_columns_),
        channel=channel,
        in_profiles=in_profiles,
        out_profiles=out_profiles,
    )


def _obfuscation_posterior(ctx, data, released, level, fitted, people, prior, population):
    """Bayes through HyObscure's (or a baseline's) feature channel, the baseline as prior."""
    from ppdp.attacks.obfuscation import obfuscation_channel, obfuscation_posterior

    return obfuscation_posterior(
        people,
        released,
        domains=data.domains,
        qi=ctx.qi,
        private=ctx.private,
        channel=obfuscation_channel(fitted),
        prior=prior,
    )


def _random_table_posterior(ctx, data, released, level, fitted, people, prior, population):
    """Mutual Cover's random output tables: each row weighed by the chance that the target's
    record became it, in each group that can hold him (Algorithm 3 included), combined with the
    baseline's belief as class matching is (:func:`with_prior`).

    Released people are attacked exactly where their block is small
    (:func:`ppdp.attacks.exact.exact_random_table_posterior`, knowing every released person's
    quasi-identifiers, ``population``); controls, who are none of them, by the approximation."""
    from ppdp.attacks.exact import exact_random_table_posterior
    from ppdp.attacks.random_tables import mutual_cover_tables, random_table_posterior
    from ppdp.cells import cell_membership

    tables = mutual_cover_tables(fitted)
    common = {"domains": data.domains, "qi": ctx.qi, "private": ctx.private, "tables": tables}
    inside = people.index.isin(population.index) if population is not None else None
    if inside is None or not inside.any():
        matched = random_table_posterior(people, released, prior=prior, **common)
    else:
        matched = np.empty((len(people), len(ctx.values)))
        matched[inside] = exact_random_table_posterior(
            people[inside], released, population=population, prior=prior[inside], **common
        )
        if (~inside).any():
            matched[~inside] = random_table_posterior(
                people[~inside], released, prior=prior[~inside], **common
            )
    marginal = cell_membership(released[ctx.private], data.domains[ctx.private]).mean(axis=0)
    return with_prior(matched, prior, marginal)


def _nearest_class_posterior(ctx, data, released, level, fitted, people, prior, population):
    """The class whose released means are nearest to the target (microaggregation)."""
    from ppdp.attacks.targeted import nearest_class_posterior

    return nearest_class_posterior(
        people,
        released,
        domains=data.domains,
        qi=ctx.qi,
        private=ctx.private,
        numeric=[c for c in ctx.qi if c in data.numeric],
    )


#: The mechanism-aware attackers an Entry may name (``Entry.aware``); they attack the protected
#: attribute. ``sppm_mapping`` serves SPPM releases that keep the private column
#: (``TableMapping.release``); the benchmark's SPPM entry withholds it, as the paper's model does.
AWARE_ATTACKERS: dict[str, Callable] = {
    "krr_channel": _krr_posterior,
    "sppm_mapping": _sppm_posterior,
    "nearest_class": _nearest_class_posterior,
    "obfuscation_channel": _obfuscation_posterior,
    "random_tables": _random_table_posterior,
}


def targeted_risks(
    ctx: AttackContext,
    data: BenchmarkData,
    released: pd.DataFrame,
    *,
    keeps_records: bool,
    private_unchanged: bool = False,
    aware: str | None = None,
    protects: str | None = None,
    level=None,
    fitted=None,
    population: pd.DataFrame | None = None,
    random_state: Any,
) -> dict[str, float]:
    """Every attacker's AUC on targets and controls, its advantage, and the release's risk.

    Returns flat metrics ``<private>:<attacker>_auc``, ``..._auc_control``, ``..._advantage``,
    ``<private>:baseline_auc`` (``_control``) and ``<private>:risk`` (the largest advantage, at
    least 0; :data:`ROW_READERS` left out when ``private_unchanged``). ``released`` holds the
    cells as published; the learned attackers train on one domain value drawn from each private
    cell (:func:`ppdp.cells.sample_cells`). The benchmark's tidy rows split each name at its
    colon: metric ``risk`` with the facet ``attribute`` the private attribute
    (``ppdp.experiments.benchmark.run.metric_facets``).

    Parameters
    ----------
    ctx : AttackContext
        Targets, controls and baseline (:func:`attack_context`).
    data : BenchmarkData
        The dataset: its quasi-identifiers, domains and protected attribute.
    released : DataFrame
        The release of ``ctx``'s split, ``train``'s columns.
    keeps_records : bool
        Whether released row ``i`` is a version of the released person ``i`` (adds ``xgb_II``,
        which reads the target's own row by its label, its private cell included).
    private_unchanged : bool, default False
        Whether the release publishes every kept record's private values unchanged
        (``Entry.private_unchanged``). ``xgb_II`` then reads the target's value off his row,
        which the mechanism's threat model excludes: its metrics are reported, its advantage is
        left out of the risk.
    aware : str, optional
        A key of :data:`AWARE_ATTACKERS`: the mechanism-aware attacker, run when ``ctx.private``
        is the attribute the mechanism protects.
    protects : str, optional
        That attribute, when not ``data.protected``.
    level : optional
        The mechanism's privacy level (k-RR's epsilon for its channel).
    fitted : optional
        The fitted mechanism, for an attacker that reads it (tables, channels, mappings).
    population : DataFrame, optional
        The released people's true records (``train``), for a release that keeps records: the
        exact attackers (:mod:`ppdp.attacks.exact`) know every released person's
        quasi-identifiers. ``class_matching`` is then exact on the targets where their blocks
        are small, when every released row's cells hold its person's values
        (:func:`holds_own_values`); Mutual Cover's ``random_tables`` likewise. Controls, who are
        in no block, keep the approximations.
    random_state : None, int or numpy.random.Generator
        Draws the private values the learned attackers train on.

    Returns
    -------
    dict of str to float
        The metrics above, keys prefixed by ``ctx.private``.

    Notes
    -----
    ``anonymeter_nn`` runs :func:`ppdp.attacks.suite.nearest_record_guesses`, whose search
    numba compiles once per machine (about 10 s) and caches on disk.

    Examples
    --------
    The attacker knows the age and zip of 8 released people and wants their sex. The
    unprotected table lets class matching find each of them (AUC 1 against the baseline's
    0.8); ``xgb_II``, told each target's row, reads the sex off it, outside the risk of a
    release that publishes it unchanged. With the sex suppressed, no attacker beats the baseline:

    >>> import numpy as np, pandas as pd
    >>> from ppdp.cells import table_domains
    >>> from ppdp.experiments.benchmark.data import BenchmarkData, split
    >>> rng = np.random.default_rng(0)
    >>> table = pd.DataFrame({"age": rng.integers(20, 70, 40),
    ...                       "zip": rng.choice(["a", "b", "c"], 40),
    ...                       "sex": rng.choice(["F", "M"], 40)})
    >>> roles = {"private": ["sex"], "quasi_identifiers": ["age", "zip"], "numeric": ["age"]}
    >>> domains = table_domains(table, list(table.columns), numeric=["age"])
    >>> data = BenchmarkData("toy", table, roles, domains)
    >>> parts = split(data, 0)  # 16 released people, 16 auxiliary records, 8 controls
    >>> ctx = attack_context(data, parts, "sex", seed=0, n_estimators=5)
    >>> shown = ("sex:baseline_auc", "sex:class_matching_auc", "sex:xgb_II_auc", "sex:risk")
    >>> metrics = targeted_risks(ctx, data, parts.train.copy(), keeps_records=True,
    ...                          private_unchanged=True, random_state=0)
    >>> {name: round(metrics[name], 3) for name in shown}
    {'sex:baseline_auc': 0.8, 'sex:class_matching_auc': 1.0, 'sex:xgb_II_auc': 1.0, 'sex:risk': 0.2}
    >>> [name for name in metrics if name.endswith("_advantage")]
    ['sex:xgb_I_advantage', 'sex:lr_I_advantage', 'sex:xgb_II_advantage',
     'sex:anonymeter_nn_advantage', 'sex:class_matching_advantage',
     'sex:class_matching_aux_advantage']
    >>> suppressed = parts.train.assign(sex="{F,M}")
    >>> metrics = targeted_risks(ctx, data, suppressed, keeps_records=True,
    ...                          random_state=0)
    >>> metrics["sex:risk"]
    0.0
    """
    rng = check_random_state(random_state)
    from ppdp.attacks.exact import exact_class_matching_posterior
    from ppdp.attacks.suite import learned_posteriors, nearest_record_guesses
    from ppdp.attacks.targeted import class_matching_posterior
    from ppdp.cells import cell_membership, design_matrix, sample_cells

    p = ctx.private
    out: dict[str, float] = {}
    base_t, base_c = ctx.baseline_scores
    out[f"{p}:baseline_auc"], out[f"{p}:baseline_auc_control"] = base_t, base_c
    posteriors: dict[str, tuple] = {}
    drawn = sample_cells(released, data.domains, [p], rng)
    x_rel = design_matrix(released, data.domains, ctx.qi)
    for model in LEARNED:
        post_t, post_c = learned_posteriors(
            model,
            x_rel,
            drawn[p].to_numpy(),
            [ctx.x_targets, ctx.x_controls],
            ctx.values,
            random_state=ctx.seed,
            n_estimators=ctx.n_estimators,
        )
        posteriors[f"{model}_I"] = (post_t, post_c)
    if keeps_records:
        own = released.loc[ctx.targets.index]
        rows = design_matrix(own, data.domains, ctx.qi)
        (from_qi,) = learned_posteriors(
            "xgb",
            ctx.x_aux,
            ctx.y_aux,
            [rows],
            ctx.values,
            random_state=ctx.seed,
            n_estimators=ctx.n_estimators,
        )
        own_cells = cell_membership(own[p], data.domains[p])
        posteriors["xgb_II"] = (with_own_cell(from_qi, own_cells), None)
    # one draw of the released cells for targets and controls alike
    guesses = _one_hot(
        nearest_record_guesses(
            released,
            pd.concat([ctx.targets, ctx.controls]),
            domains=data.domains,
            aux=ctx.qi,
            secret=p,
            random_state=ctx.seed,
        ),
        ctx.values,
    )
    posteriors["anonymeter_nn"] = (guesses[: len(ctx.targets)], guesses[len(ctx.targets) :])
    posteriors["class_matching"] = tuple(
        class_matching_posterior(people, released, domains=data.domains, qi=ctx.qi, private=p)
        for people in (ctx.targets, ctx.controls)
    )
    if population is not None and holds_own_values(released, population, data.domains, ctx.qi):
        # every released row's cells hold its person's values (generalization, suppression,
        # perturbation of the private column only): the attacker who knows every released
        # person's quasi-identifiers assigns people to rows exactly where the blocks are small
        exact = exact_class_matching_posterior(
            ctx.targets,
            released,
            domains=data.domains,
            qi=ctx.qi,
            private=p,
            population=population,
        )
        posteriors["class_matching"] = (exact, posteriors["class_matching"][1])
    marginal = cell_membership(released[p], data.domains[p]).mean(axis=0)
    posteriors["class_matching_aux"] = tuple(
        with_prior(matched, prior, marginal)
        for matched, prior in zip(posteriors["class_matching"], ctx.priors, strict=True)
    )
    if aware is not None and p == (protects or data.protected):
        attack = AWARE_ATTACKERS[aware]
        # one call for targets and controls: each person's posterior is his own, and the
        # mechanism's channel or tables are read once
        both = attack(
            ctx,
            data,
            released,
            level,
            fitted,
            pd.concat([ctx.targets, ctx.controls]),
            np.vstack(ctx.priors),
            population,
        )
        posteriors[aware] = (both[: len(ctx.targets)], both[len(ctx.targets) :])
    # a release whose every cell of the attribute holds several values states none of them
    states_values = bool(
        ((cell_membership(released[p], data.domains[p]) > 0).sum(axis=1) == 1).any()
    )
    out.update(_scored(ctx, posteriors, ROW_READERS if private_unchanged else (), states_values))
    return out


def _scored(
    ctx: AttackContext, posteriors: dict[str, tuple], outside_risk, states_values: bool = True
) -> dict[str, float]:
    """Every attacker's measures and the release's risks on one private attribute.

    Per attacker: its AUC on targets and controls, its ``advantage`` (AUC on the targets minus
    the no-release baseline's), its ``gap`` (that advantage minus the same on the controls: what
    the release tells about its own people beyond the population) and each tail measure's
    ``excess`` over the baseline's (:func:`ppdp.experiments.benchmark.measures.tail_measures`).
    Per release: ``risk`` and ``risk_<measure>``, the largest of each over the attackers that
    count (not ``outside_risk``), with no floor at 0, so that intervals over seeds are taken
    before any clamping; and the population utility of the attribute, the AUC on the controls of
    the XGBoost trained on the release, the floor exactly when the release states no value of
    the attribute (``states_values=False``;
    :func:`~ppdp.experiments.benchmark.measures.population_utility`).
    """
    from ppdp.experiments.benchmark.measures import TAIL_MEASURES, population_utility, tail_measures

    p = ctx.private
    base_t, base_c = ctx.baseline_scores
    out: dict[str, float] = {}
    worst: dict[str, list[float]] = {"": [], "gap": [], **{m: [] for m in TAIL_MEASURES}}
    for name, (post_t, post_c) in posteriors.items():
        auc_t, auc_c = ctx.scores(post_t, post_c)
        counts = name not in outside_risk
        out[f"{p}:{name}_auc"] = auc_t
        out[f"{p}:{name}_advantage"] = auc_t - base_t
        if post_c is not None:
            out[f"{p}:{name}_auc_control"] = auc_c
            out[f"{p}:{name}_gap"] = (auc_t - base_t) - (auc_c - base_c)
            if counts:
                worst["gap"].append(out[f"{p}:{name}_gap"])
        for measure, value in tail_measures(post_t, ctx.truth_codes).items():
            out[f"{p}:{name}_{measure}_excess"] = value - ctx.baseline_tail[measure]
            if counts:
                worst[measure].append(out[f"{p}:{name}_{measure}_excess"])
        if counts:
            worst[""].append(auc_t - base_t)
    for measure, values in worst.items():
        out[f"{p}:risk_{measure}" if measure else f"{p}:risk"] = max(values)
    # one fixed learner, the task model's: the best of several would drift above the floor on
    # a release that teaches nothing
    utility, gain = population_utility(out[f"{p}:xgb_I_auc_control"], states_values=states_values)
    out[f"{p}:population_auc"] = utility
    out[f"{p}:population_gain"] = gain
    return out


def holds_own_values(released: pd.DataFrame, population: pd.DataFrame, domains, qi) -> bool:
    """Whether every released row's quasi-identifier cells hold its person's true values.

    ``population`` is the release's input, row for row (a release that keeps records). True for
    a generalization, a suppression or a release that perturbs only the private column; false
    where a mechanism moves quasi-identifiers (Mutual Cover's draws, class means, obfuscation).

    Parameters
    ----------
    released : DataFrame
        The release, its ``qi`` cells in any form :func:`ppdp.cells.cell_membership` reads.
    population : DataFrame
        The release's input, row ``i`` the person of released row ``i``.
    domains : mapping str -> AttributeDomain
        The domains of ``qi``.
    qi : sequence of str
        The quasi-identifiers compared.

    Returns
    -------
    bool
        False also when the two tables differ in length or a true value is outside its domain.

    Examples
    --------
    >>> from ppdp.cells import table_domains
    >>> people = pd.DataFrame({"age": [21, 23, 25]})
    >>> doms = table_domains(people, ["age"], numeric=["age"])
    >>> holds_own_values(pd.DataFrame({"age": ["21-23", "21-23", "25"]}), people, doms, ["age"])
    True
    >>> holds_own_values(pd.DataFrame({"age": ["21-23", "25", "21-23"]}), people, doms, ["age"])
    False
    """
    from ppdp.cells import cell_membership

    if len(released) != len(population):
        return False
    rows = np.arange(len(released))
    for c in qi:
        weights = cell_membership(released[c], domains[c])
        codes = pd.Index(list(domains[c].values)).get_indexer(population[c].tolist())
        if (codes < 0).any() or not (weights[rows, codes] > 0).all():
            return False
    return True


def with_prior(matched: np.ndarray, prior: np.ndarray, marginal: np.ndarray) -> np.ndarray:
    """Class matching combined with the attacker's own prior on the target (naive Bayes).

    A target hides among ``n`` released rows whose private values count ``n_s`` of each value
    ``s``; the other ``n - 1`` people are drawn from a population where ``s`` has the share
    ``q_s``. Then ``P(counts | target has s) / P(counts | target has s') = (n_s / q_s) /
    (n_s' / q_s')`` (the binomial of the others' counts), so the posterior is ::

        posterior(t, s) ∝ prior(t, s) * matched(t, s) / q_s

    with ``matched`` the class share (:func:`ppdp.attacks.targeted.class_matching_posterior`),
    ``prior`` the no-release baseline's belief and ``q`` the release's marginal of ``s``. A class
    without value ``s`` rules it out; a class of one value makes it certain; a target that no
    class holds keeps its prior. Rows whose product vanishes everywhere keep ``matched``.

    Parameters
    ----------
    matched : ndarray, shape (n, n_values)
        Class matching's posteriors.
    prior : ndarray, shape (n, n_values)
        The attacker's own belief about each target (the no-release baseline).
    marginal : ndarray, shape (n_values,)
        ``q``: the share of each value in the release.

    Returns
    -------
    ndarray, shape (n, n_values)
        Rows sum to 1.

    Examples
    --------
    The attacker believes a target's value is the first at 0.8 and finds him in a class of
    two rows, one of each value; the first value is a quarter of the release, so a class of
    two holding it once is evidence for it. A class of one value settles the target's:

    >>> matched = np.array([[0.5, 0.5], [1.0, 0.0], [0.5, 0.5]])
    >>> prior = np.array([[0.8, 0.2], [0.3, 0.7], [0.5, 0.5]])
    >>> with_prior(matched, prior, np.array([0.25, 0.75])).round(3)
    array([[0.923, 0.077],
           [1.   , 0.   ],
           [0.75 , 0.25 ]])
    """
    ratio = np.divide(matched, marginal, out=np.zeros_like(matched), where=marginal > 0)
    post = prior * ratio
    total = post.sum(axis=1, keepdims=True)
    return np.where(total > 0, post / np.where(total > 0, total, 1.0), matched)


def with_own_cell(prior: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """A belief about each target combined with his own released private cell (naive Bayes).

    The attacker knows which released row is the target's and believes ``prior(t, s)`` from the
    row's other cells; the row's private cell ``c_t`` is evidence with the likelihood
    ``P(c_t | s) ∝ m(c_t, s)``, the cell's membership weight of value ``s``
    (:func:`ppdp.cells.cell_membership`: one on the value a cell states, uniform over the
    members of a set or range). The posterior is ::

        posterior(t, s) = prior(t, s) * m(c_t, s) / sum_s' prior(t, s') * m(c_t, s')

    A cell that is one value makes it certain, a set or range restricts the prior to its
    members, a cell of the whole domain (a suppressed value) leaves the prior as it is. The cell
    is taken at its word, as class matching takes it: a randomized value (k-RR) reads as the
    value it shows. Where the prior gives no weight to any member of the cell, the cell alone
    (``m(c_t, .)`` normalized) is the posterior.

    Parameters
    ----------
    prior : ndarray, shape (n, n_values)
        The attacker's belief about each target from the rest of his row.
    cells : ndarray, shape (n, n_values)
        The targets' released private cells over the domain, rows of
        :func:`ppdp.cells.cell_membership`.

    Returns
    -------
    ndarray, shape (n, n_values)
        Rows sum to 1.

    Raises
    ------
    ValueError
        When the shapes differ, or a cell covers no value of the domain (an empty or foreign
        cell is an error of the release, never evidence to skip).

    Examples
    --------
    A belief of 0.8 in the first of three values, and the target's row releases the second
    value, the set of the first two, the whole domain:

    >>> prior = np.array([[0.8, 0.15, 0.05]] * 3)
    >>> cells = np.array([[0.0, 1.0, 0.0], [0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    >>> with_own_cell(prior, cells).round(3)
    array([[0.   , 1.   , 0.   ],
           [0.842, 0.158, 0.   ],
           [0.8  , 0.15 , 0.05 ]])
    >>> with_own_cell(prior[:1], np.zeros((1, 3)))
    Traceback (most recent call last):
    ...
    ValueError: cells: row 0 covers no value of the private domain
    """
    prior = np.asarray(prior, dtype=np.float64)
    cells = np.asarray(cells, dtype=np.float64)
    if prior.shape != cells.shape or prior.ndim != 2:
        raise ValueError(
            f"prior and cells must be two arrays of one shape (n, n_values), got {prior.shape} "
            f"and {cells.shape}"
        )
    covered = cells.sum(axis=1)
    if not (covered > 0).all():
        first = int(np.flatnonzero(~(covered > 0))[0])
        raise ValueError(f"cells: row {first} covers no value of the private domain")
    post = prior * cells
    total = post.sum(axis=1, keepdims=True)
    alone = cells / covered[:, None]
    return np.where(total > 0, post / np.where(total > 0, total, 1.0), alone)


def _one_hot(guesses, values) -> np.ndarray:
    """Hard guesses as a posterior over ``values`` (matched by value: ``18.0`` is ``18``)."""
    codes = pd.Index(list(values)).get_indexer(list(guesses))
    if (codes < 0).any():
        raise ValueError(f"guesses outside the private domain {list(values)}")
    out = np.zeros((len(codes), len(values)))
    out[np.arange(len(codes)), codes] = 1.0
    return out
