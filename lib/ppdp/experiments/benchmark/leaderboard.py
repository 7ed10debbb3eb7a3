"""The benchmark's leaderboard: the most a release keeps for the population while every risk
measure of an individual stays under a threshold.

A release qualifies under a threshold ``t`` when, with 95% intervals over seeds (Student t; a run
of one seed has no interval, and qualifies nothing: a model trained on a scrambled private column
still scores an AUC anywhere from about 0.3 to 0.65 on one seed):

* every **gate** (:data:`GATES`) has its upper end at most ``t``: the average (the largest AUC
  advantage over the no-release baseline, over the attackers) and the tail (the largest excess in
  TPR at 1% and at 0.1% FPR, and in the share of targets disclosed with posterior >= 0.99) on the
  attacked attribute; and, for a release that does not keep records, the membership attacks' AUC
  advantage and TPR excess at 1% and 0.1% FPR (:data:`MEMBERSHIP_GATES`). A release that keeps
  records publishes one row per member by construction, so its threat model gives the attacker
  membership: the attribute attacks then target people known to be in it, and the membership
  measures are reported, not gated;
* its **population utility** (:func:`ppdp.experiments.benchmark.measures.population_utility`)
  gains over the floor of a release that teaches nothing: the lower end of the gain's interval
  is above 0. A release that scrambles, permutes or suppresses
  the private attribute gains nothing and qualifies nowhere.

A cell is the best population utility among the qualifying levels, with the level, the tightest
bound (the largest upper end among the gates) and the measure and attacker that set it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ppdp.experiments.benchmark.claims import binding_attackers
from ppdp.experiments.benchmark.data import load_roles
from ppdp.experiments.benchmark.registry import REGISTRY
from ppdp.experiments.common import facet, is_metric, mean_halfwidth, with_parameters

__all__ = ["GATES", "MEMBERSHIP_GATES", "RISK_THRESHOLDS", "leaderboard", "level_statistics"]

#: The leaderboard's default thresholds (every gate is a difference of rates or AUCs).
RISK_THRESHOLDS = (0.02, 0.05)
#: The gates on the attacked attribute: the release-wide metric (the worst attacker's), its
#: per-attacker metric (``{a}``: the attacker) and its label.
GATES = {
    "risk": ("{a}_advantage", "AUC advantage"),
    "risk_tpr_1pct": ("{a}_tpr_1pct_excess", "TPR at 1% FPR"),
    "risk_tpr_01pct": ("{a}_tpr_01pct_excess", "TPR at 0.1% FPR"),
    "risk_confident": ("{a}_confident_excess", "disclosures at 0.99"),
}
#: The membership gates of a release that does not keep records (release-wide metrics).
MEMBERSHIP_GATES = {
    "membership_risk": ("membership_{a}_advantage", "membership AUC advantage"),
    "membership_risk_tpr_1pct": ("membership_{a}_tpr_1pct_excess", "membership TPR at 1% FPR"),
    "membership_risk_tpr_01pct": (
        "membership_{a}_tpr_01pct_excess",
        "membership TPR at 0.1% FPR",
    ),
}


def level_statistics(
    results: pd.DataFrame,
    dataset: str,
    selections: dict[str, tuple[str, str | None]],
    *,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Mean and t half-width over seeds of each selected metric at every (method, level).

    Parameters
    ----------
    results : DataFrame
        The benchmark's tidy rows.
    dataset : str
    selections : dict of str to (str, str or None)
        A name per ``(metric, attribute)``, ``attribute`` None for a metric of the whole release
        (its rows have no ``attribute`` facet).
    confidence : float, default 0.95

    Returns
    -------
    DataFrame
        Columns ``<name>`` and ``<name>_hw`` (NaN with one seed), indexed by ``method`` and
        ``level``; a metric a (method, level) lacks is NaN there.

    Examples
    --------
    >>> from ppdp.experiments.common import tidy_frame, tidy_rows
    >>> rows = tidy_frame([row for seed in (0, 1) for row in
    ...     tidy_rows("benchmark_adult", "krr", {"risk": 0.01 + 0.01 * seed},
    ...               parameters={"level": 1.0}, seed=seed, facets={"attribute": "sex"})])
    >>> stats = level_statistics(rows, "adult", {"risk": ("risk", "sex")})
    >>> print(stats.round(3).reset_index().to_string(index=False))
    method  level  risk  risk_hw
       krr      1 0.015    0.064
    """
    frame = with_parameters(results[results["experiment"] == f"benchmark_{dataset}"], ["level"])
    attribute = facet(frame, "attribute")
    parts = []
    for name, (metric, attr) in selections.items():
        mask = (
            is_metric(frame, metric, attribute=attr)
            if attr is not None
            else (frame["metric"] == metric) & attribute.isna()
        )
        stats = frame[mask].groupby(["method", "level"])["value"].agg(["mean", "std", "count"])
        hw = mean_halfwidth(
            stats["std"].fillna(0.0), stats["count"], confidence=confidence, distribution="t"
        )
        parts.append(pd.DataFrame({name: stats["mean"], f"{name}_hw": hw}))
    if not parts:
        return pd.DataFrame()
    return pd.concat(parts, axis=1).sort_index()


def leaderboard(
    results: pd.DataFrame,
    dataset: str,
    *,
    thresholds: Sequence[float] = RISK_THRESHOLDS,
    private: str | None = None,
    utility: str = "population_auc",
) -> pd.DataFrame:
    """For each mechanism, its best population utility among the levels that qualify under each
    threshold (the module's rules); empty where none does.

    Parameters
    ----------
    results : DataFrame
        The benchmark's tidy rows.
    dataset : str
    thresholds : sequence of float
        Upper bounds on every gate.
    private : str, optional
        The attacked attribute (default the dataset's protected one).
    utility : str
        The ranked utility of the attribute (its facet ``attribute``).

    Returns
    -------
    DataFrame
        ``mechanism`` and one column ``risk<=<t>`` per threshold, each cell
        ``"<utility> ± <hw> (level <level>; risk <= <bound>, <measure> by <attacker>)"``.

    Examples
    --------
    k-RR at one level over three seeds: every risk measure small, but the confident disclosures
    of class matching pass only the looser threshold:

    >>> from ppdp.experiments.common import tidy_frame, tidy_rows
    >>> measures = {"population_auc": 0.7, "population_gain": 0.2, "risk": 0.004,
    ...             "risk_tpr_1pct": 0.003, "risk_tpr_01pct": 0.002, "risk_confident": 0.03,
    ...             "class_matching_confident_excess": 0.03}
    >>> rows = tidy_frame([row for seed in (0, 1, 2) for row in tidy_rows(
    ...     "benchmark_adult", "krr", {k: v + 0.001 * seed for k, v in measures.items()},
    ...     parameters={"level": 1.0}, seed=seed, facets={"attribute": "sex"})])
    >>> board = leaderboard(rows, "adult", thresholds=(0.02, 0.05))
    >>> board.loc[0, "risk<=0.02"]
    ''
    >>> board.loc[0, "risk<=0.05"]
    '0.701 ± 0.002 (level 1; risk <= 0.033, disclosures at 0.99 by class_matching)'
    """
    private = private or load_roles()[dataset]["private"][0]
    selections: dict[str, tuple[str, str | None]] = {
        "utility": (utility, private),
        "gain": ("population_gain", private),
    }
    selections.update({gate: (gate, private) for gate in GATES})
    selections.update({gate: (gate, None) for gate in MEMBERSHIP_GATES})
    stats = level_statistics(results, dataset, selections)
    rows = []
    if stats.empty or "utility" not in stats:
        return pd.DataFrame(columns=["mechanism", *(f"risk<={t:g}" for t in thresholds)])
    stats = stats.dropna(subset=["utility"])
    binding: dict[str, pd.Series] = {}  # per gate, the attacker that sets it at each level
    for method, grp in stats.groupby(level="method", sort=True):
        entry = REGISTRY.get(method)
        gates = dict(GATES)
        if entry is not None and not entry.keeps_records:
            gates.update(MEMBERSHIP_GATES)
        # one seed gives no interval (NaN half-widths), and a gate never measured (an older run)
        # cannot vouch for a level: NaN bounds qualify nothing
        upper = pd.DataFrame({g: grp.get(g, np.nan) + grp.get(f"{g}_hw", np.nan) for g in gates})
        ok_gain = grp.get("gain", np.nan) - grp.get("gain_hw", np.nan) > 0
        row: dict[str, Any] = {"mechanism": method}
        for t in thresholds:
            ok = grp[(upper <= t).all(axis=1) & upper.notna().all(axis=1) & ok_gain]
            if ok.empty:
                row[f"risk<={t:g}"] = ""
                continue
            best = ok["utility"].idxmax()
            level = best[1]
            bound_gate = upper.loc[best].idxmax()
            if bound_gate not in binding:
                on = private if bound_gate in GATES else None
                binding[bound_gate] = binding_attackers(results, dataset, on, gates[bound_gate][0])
            who = binding[bound_gate].get((method, level), "")
            row[f"risk<={t:g}"] = (
                f"{ok.loc[best, 'utility']:.3f} ± {ok.loc[best, 'utility_hw']:.3f} "
                f"(level {level:g}; risk <= "
                f"{upper.loc[best, bound_gate]:.3f}, {gates[bound_gate][1]} by {who or 'baseline'})"
            )
        rows.append(row)
    return pd.DataFrame(rows)
