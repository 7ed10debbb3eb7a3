"""A cross-paper benchmark: every mechanism on the same data, against the same attackers.

The five papers each pick their own data, attacker and utility measure. Here every mechanism that
fits a dataset is applied through the common release API (``fit(df).release(random_state)``) at a
few privacy levels spanning its range, and every release is scored by one attacker suite and one
utility suite (:mod:`ppdp.attacks.suite`, :mod:`ppdp.utility.workload`), with released cells read
as distributions over the original domain (:mod:`ppdp.cells`). ``notebooks/benchmark.ipynb`` runs
it and shows its planes, Pareto frontiers and leaderboards.

Datasets and column roles are stated once, in ``roles.yaml`` beside these modules:

* **UCI Adult**: private ``sex``; task ``income``; quasi-identifiers age, education (its ordinal
  code ``education_num``), marital status, occupation, race and native country. Rows with a missing
  value are dropped and a stratified subsample of ``n_rows`` is drawn.
* **MovieLens-1M**: private ``gender`` and ``age`` (the seven GroupLens age groups); features
  from each user's ratings: the share of six genres among the user's rated movies and the number of
  ratings, each in terciles (1/2/3), and the occupation; the task is what the user watches next:
  ``action_fan`` = 1 when the share of action movies among a random fifth of the user's ratings,
  not used for the features, is above the median user's.

Modules
-------
- :mod:`~ppdp.experiments.benchmark.data`: the column roles, the two tables and their split;
- :mod:`~ppdp.experiments.benchmark.registry`: one
  :class:`~ppdp.experiments.benchmark.registry.Entry` per mechanism (adding a mechanism is one
  :func:`~ppdp.experiments.benchmark.registry.register` call);
- :mod:`~ppdp.experiments.benchmark.attacks`: the targeted attackers, their advantage over no
  release and the risk of a release;
- :mod:`~ppdp.experiments.benchmark.measures`: the tail of an attack and what the population
  keeps of a private attribute;
- :mod:`~ppdp.experiments.benchmark.run`: the protocol, every release run through the attackers
  and the utility measures (tidy rows), and the notebook's ``PARAMETERS``;
- :mod:`~ppdp.experiments.benchmark.claims`: what is read from the result rows: the planes' points,
  the Pareto frontiers and the other tables (the benchmark judges no claim);
- :mod:`~ppdp.experiments.benchmark.leaderboard`: the leaderboard, the best population utility
  under each threshold on every risk measure;
- :mod:`~ppdp.experiments.benchmark.sizes`: the risk against the release size;
- :mod:`~ppdp.experiments.benchmark.figures`: the privacy-utility planes and the risk against the
  release size.
"""

from ppdp.experiments.benchmark import (
    attacks,
    claims,
    data,
    figures,
    leaderboard,
    measures,
    registry,
    run,
    sizes,
)

__all__ = [
    "attacks",
    "claims",
    "data",
    "figures",
    "leaderboard",
    "measures",
    "registry",
    "run",
    "sizes",
]
