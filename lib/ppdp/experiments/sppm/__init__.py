"""Experiments of the SPPM paper (Salamatian et al., UAI 2014), Figs. 2-7 and Table 1.

The notebook ``notebooks/sppm.ipynb`` runs the experiments (each returns a tidy frame, see
:mod:`ppdp.experiments.common`), shows the tables built from those frames and the figures drawn from
them, and derives the claim rows with :func:`ppdp.experiments.sppm.claims.claims`, which also
recomputes them from a written results CSV. The paper's own numbers (Table 1) come from
``claims.yaml`` through :func:`ppdp.compendium.published.published_value`.

Submodules
----------
* :mod:`~ppdp.experiments.sppm.data`: the Synthetic, Census and Movie problems of Sec. 4.1
  (:class:`~ppdp.experiments.sppm.data.Problem`), the Census encodings the paper leaves open, and
  the size of each problem (``data_table``).
* :mod:`~ppdp.experiments.sppm.run`: the memoized fits of each method, the grid runs of Figs. 2-7
  and Table 1 (and of the settings the paper leaves open) as tidy rows, and the notebook's
  ``PARAMETERS`` and ``check_parameters``.
* :mod:`~ppdp.experiments.sppm.claims`: what is read from the result rows: the claim rows
  (``claims``), the across-setting tables and the tables the notebook shows (``*_table``).
* :mod:`~ppdp.experiments.sppm.figures`: the figures (``plot_*``, each returning a matplotlib
  figure) and the methods' house style and labels.
"""

from ppdp.experiments.sppm import claims, data, figures, run

__all__ = ["claims", "data", "figures", "run"]
