"""What the compendium shares above the library: the pieces only the experiments and the report use.

- :mod:`ppdp.compendium.measured`: the anonymity a release measurably has (k, l, t per group),
  which the benchmark reports beside each mechanism's declared guarantee;
- :mod:`ppdp.compendium.published`: the papers' numbers, read from ``claims.yaml``;
- :mod:`ppdp.compendium.yamlfile`: the one YAML reader of profiles and claims, which refuses a key
  given twice and names the file and line of an error (also ``python -m ppdp.compendium.yamlfile``);
- :mod:`ppdp.compendium.logs`: the library's logs shown in the pipeline's notebook runs.

The library below (mechanisms, attacks, utility, the table core) never imports this package;
``tests/test_import_graph.py`` holds the layers.
"""
