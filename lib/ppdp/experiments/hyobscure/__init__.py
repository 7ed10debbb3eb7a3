"""Experiments of the HyObscure paper (Sect. IV, Figs. 3-11) as tidy tables.

X. Han, Y. Yang, J. Wu, *HyObscure: Hybrid Obscuring for Privacy-Preserving Data Publishing*.
``notebooks/hyobscure.ipynb`` runs them for one data set (``dataset``: ``movielens``, private
attribute age; ``foursquare``, home cell) under one protocol (``protocol``: ``paper`` or
``authors``): the privacy-utility trade-off of Figs. 3-5 and, under the paper's protocol, the
sweeps of Figs. 6-9, the run time (Fig. 10) and the convergence (Fig. 11), and computes the values
the paper's claims are judged on.

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

Submodules:

* :mod:`~ppdp.experiments.hyobscure.data`: the populations (``load_population``, the authors'
  clustering of all users in ``protocol_population``) and each seed's split (``make_split``);
* :mod:`~ppdp.experiments.hyobscure.run`: the settings (methods, Table II, the protocols'
  defaults), one scored point (``run_point``), the trade-off of Figs. 3-5 (``tradeoff``), the
  authors' seeds (``feasible_seeds``) and the notebook's ``PARAMETERS`` and ``check_parameters``;
* :mod:`~ppdp.experiments.hyobscure.sweeps`: the sweeps of Figs. 6-9, on other grids of bounds
  too (``constraint_across``), the run time (``scaling``) and the convergence (``convergence``);
* :mod:`~ppdp.experiments.hyobscure.claims`: what is derived from the rows: ``claims``,
  ``across_table``, ``point_means`` and ``decomposition``;
* :mod:`~ppdp.experiments.hyobscure.figures`: the ``plot_*`` functions.
"""

from ppdp.experiments.hyobscure import claims, data, figures, run, sweeps

__all__ = ["claims", "data", "figures", "run", "sweeps"]
