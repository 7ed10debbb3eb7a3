"""Experiments of the relay-chain paper: Fig. 2 worked example, Figs. 4-6 on German Credit, Adult.

``notebooks/relay_chains.ipynb`` prints the Fig. 2 example, runs the chains of Figs. 4-6 on German
Credit and the extension's on UCI Adult, draws the figures and writes the claims, each judged also
at the values of the settings the paper leaves open.

- :mod:`~ppdp.experiments.relay_chains.run`: the constants, the Fig. 2 example, German Credit and
  Adult, the chain runs and the figure rows derived from them, the settings the paper leaves open,
  the Adult variants, and the notebook's ``PARAMETERS`` and ``check_parameters``;
- :mod:`~ppdp.experiments.relay_chains.claims`: the figures' curves averaged over seeds, the claim
  rows (``claims(results)``), the claims across the open settings and the Adult variants' table;
- :mod:`~ppdp.experiments.relay_chains.figures`: Figs. 4, 5 and 6.
"""

from ppdp.experiments.relay_chains import claims, figures, run

__all__ = ["claims", "figures", "run"]
