"""One module per paper: run one grid point of an experiment, return a tidy DataFrame.

Every experiment returns rows with the columns of :data:`ppdp.experiments.common.TIDY_COLUMNS`
(experiment, method, seed, metric, value, ci_low, ci_high), then the facets of the metric and one
column per parameter. Figures are drawn from those rows only.
"""
