"""Overview of every dataset the five papers use: size, private attribute, and how much the other
attributes reveal about it (normalized mutual information).

``notebooks/datasets.ipynb`` runs it: each dataset as one per-individual table with its private
attribute, its size and the distribution of that attribute, the NMI between its attributes, and
the dataset sizes the papers state, checked as claims.

Submodules:

* :mod:`~ppdp.experiments.datasets_overview.run`: the per-individual views of the datasets,
  discretization, the NMI matrix, the summary rows of a view and the dataset sizes as tidy rows,
  and the notebook's ``PARAMETERS`` and ``check_parameters``;
* :mod:`~ppdp.experiments.datasets_overview.claims`: the attributes most informative of each
  private attribute, and the claims (the dataset sizes the papers state);
* :mod:`~ppdp.experiments.datasets_overview.figures`: the bar charts of the private attributes'
  distributions and the NMI heat maps the notebook draws.
"""

from ppdp.experiments.datasets_overview import claims, figures, run

__all__ = ["claims", "figures", "run"]
