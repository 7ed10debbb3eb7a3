"""One package per paper experiment, each cut the same way.

- ``run``: the experiment's data, the grid points it runs (each returns tidy rows) and its
  notebook's ``PARAMETERS``;
- ``claims``: tables derived from result rows, and ``claims(results)``, the rows the reproduction
  report judges;
- ``figures``: the plots, drawn from result rows only; no other module draws.

A notebook imports a package and calls through these modules, e.g.
``mc.run.run_experiments(...)``, ``mc.claims.claims(results)``, ``mc.figures.plot_tradeoff(...)``.
Every experiment returns rows with the columns of :data:`ppdp.experiments.common.TIDY_COLUMNS`
(experiment, method, seed, metric, value, ci_low, ci_high), then the facets of the metric and one
column per parameter.
"""

from ppdp.compendium.logs import show_library_logs

# a notebook run of the pipeline shows the library's long steps in its log (PPDP_LOG_LEVEL)
show_library_logs()
