"""Experiments of Mutual Cover (Li, Wang and He): Figs. 3-8 on the IPUMS census sample.

``notebooks/mutual_cover.ipynb`` runs them: the running example of Fig. 2 and Example 1, the
disclosure of MutualCover and Mondrian against ``P_match`` (Figs. 3-5), information loss (Fig. 6),
the relative error of SUM queries (Fig. 7) and the effect of ``l`` (Fig. 8), and beyond the paper
Fig. 5's Mondrian at other group sizes and the readings of Fig. 7(a)'s "little influence" of delta.

Submodules:

* :mod:`~ppdp.experiments.mutual_cover.run`: constants, the census sample, the grid runs of
  Figs. 3-8 and the Mondrian group sizes as tidy rows, the running example, and the notebook's
  ``PARAMETERS`` and ``check_parameters``;
* :mod:`~ppdp.experiments.mutual_cover.claims`: summaries over runs, the paper's claims, the
  disclosure orderings per Mondrian group size and the readings of delta's influence;
* :mod:`~ppdp.experiments.mutual_cover.figures`: the ``plot_*`` functions of Figs. 3-8.
"""

from ppdp.experiments.mutual_cover import claims, figures, run

__all__ = ["claims", "figures", "run"]
