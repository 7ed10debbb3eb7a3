"""Sphinx configuration of the documentation site: ``make docs`` builds it into docs/_build/html.

The source directory is the repository itself and this folder only its configuration
(``sphinx-build -c docs . docs/_build/html``): the pages in docs/, the executed notebooks in
notebooks/, the committed report in reports/ and the README then link to one another by the same
relative paths as on the repository's web page, and nothing is copied. ``include_patterns`` keeps
the site to those files, and every folder that holds none of them is left unread. The notebooks are
rendered from their committed outputs, never executed. Nothing is fetched at build time: there is no
intersphinx, and importing the library for the API reference downloads nothing (its data layer
fetches only when a loader is called).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(DOCS / "_ext"), str(ROOT / "lib")]

import ppdp  # noqa: E402  (the checkout's library, whether or not it is installed)

project = "ppdp"
author = "ppdp contributors"
project_copyright = "ppdp contributors"
version = release = ppdp.__version__

extensions = [
    "myst_nb",
    # a local MathJax (copied into _static/mathjax): the formulas of the notebooks and docstrings
    # render offline, where the default MathJax from a CDN would leave raw TeX
    "sphinx-mathjax-offline",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "api_docstrings",
    "mechanism_guarantees",
    "public_surface",
    "ppdp_site",
]

# ---- sources -----------------------------------------------------------------------------------
root_doc = "docs/index"
include_patterns = [
    "README.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
    "docs/**",
    "notebooks/*.ipynb",
    "reports/reproduction.md",
    "reports/deciding/*/reproduction.md",
    "data/README.md",
    "profiles/slurm/README.md",
]
# The folders that hold a source; every other folder of the repository (.venv, .git, lib, data/raw,
# results, reports/figures, docs/_build, ...) is excluded, so Sphinx does not walk it.
SOURCE_DIRS = {
    "docs",
    "docs/api",
    "notebooks",
    "reports",
    "reports/deciding",
    *(
        f"reports/deciding/{p.name}"
        for p in (ROOT / "reports" / "deciding").glob("*")
        if p.is_dir()
    ),
    "data",
    "profiles",
    "profiles/slurm",
}
exclude_patterns = sorted(
    path.relative_to(ROOT).as_posix()
    for folder in [ROOT, *(ROOT / d for d in SOURCE_DIRS)]
    if folder.is_dir()
    for path in folder.iterdir()
    if path.is_dir() and path.relative_to(ROOT).as_posix() not in SOURCE_DIRS
)

# ---- MyST and notebooks ------------------------------------------------------------------------
# GitHub's heading anchors (docs/x.md#a-heading), which the pages and the README link to
myst_heading_anchors = 6
# $...$ in the notebooks' Markdown, as Jupyter renders it
myst_enable_extensions = ["dollarmath"]
nb_execution_mode = "off"
# a notebook's committed outputs as they are: figures, tables and printed text
nb_merge_streams = True

# ---- API reference -----------------------------------------------------------------------------
autodoc_default_options = {"members": True, "member-order": "bysource", "show-inheritance": True}
autodoc_typehints = "none"
autodoc_inherit_docstrings = False
# Public names without a docstring fail the build (docs/_ext/api_docstrings.py), except the names
# listed here (none now); a name listed here that gets a docstring fails it too.
api_docstrings_exempt: dict[str, str] = {}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_param = False
napoleon_use_rtype = False
napoleon_custom_sections = [
    # an Attributes section reads like Parameters: names and types as text, not object entries
    ("Attributes", "params_style"),
    ("Attributes (after :meth:`fit`)", "params_style"),
    # the sections of the library's own that follow a class's Attributes
    "Release (the library protocol of :mod:`ppdp.base`)",
    "Release (:meth:`release`, the library protocol of :mod:`ppdp.base`)",
]

# ---- HTML --------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"ppdp {release}"
html_copy_source = False
html_show_sourcelink = False
html_static_path = ["_static"]
# long claim ids wrap inside table cells (tests/test_docs_site.py measures the tables)
html_css_files = ["report-tables.css"]

# ---- cross-references --------------------------------------------------------------------------
# -n (nitpicky) reports every reference that resolves to nothing. Without intersphinx (which would
# fetch inventories) the outside objects that docstrings name cannot resolve; they are listed here.
nitpicky = True
nitpick_ignore = [
    ("py:class", "numpy.random.Generator"),
    ("py:meth", "numpy.random.Generator.random"),
    ("py:func", "numpy.bincount"),
    ("py:class", "scipy.sparse.csr_matrix"),
    ("py:func", "scipy.stats.entropy"),
    ("py:class", "sklearn.base.BaseEstimator"),
    ("py:class", "abc.ABC"),
    ("py:func", "sklearn.base.clone"),
    ("py:func", "sklearn.metrics.mutual_info_score"),
    ("py:func", "sklearn.metrics.normalized_mutual_info_score"),
    ("py:func", "itertools.combinations"),
    ("py:class", "pathlib.Path"),
]
