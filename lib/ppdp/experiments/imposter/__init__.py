"""Experiments of the IMPOSTER paper (Yang et al., Security and Safety 2022) on UCI Adult.

``notebooks/imposter.ipynb`` runs Fig. 6 (implicit-privacy detection), Table 1 (and Setting C),
Fig. 7 (k-RR), Table 2 and Fig. 8, Table 1's Setting B again at the other plausible ``lambda``,
lays the tidy rows out as the paper's tables and figures, and writes the claims.

- :mod:`~ppdp.experiments.imposter.run`: the data, the protocol and one grid run per figure or
  table (each returns tidy rows), the memo of trained generators, and the notebook's
  ``PARAMETERS`` and ``check_parameters``;
- :mod:`~ppdp.experiments.imposter.claims`: the tidy rows laid out as the paper's tables, and the
  claim rows (``claims(results)``) with their intervals over seeds and their ``.across`` rows;
- :mod:`~ppdp.experiments.imposter.figures`: Figs. 6, 7, 8, the training history and the
  privacy-utility plane.
"""

from ppdp.experiments.imposter import claims, figures, run

__all__ = ["claims", "figures", "run"]
