"""Privacy-preserving data publishing: five papers in one library."""

# the one place for the version: pyproject.toml reads it, tests compare CITATION.cff and CHANGELOG.md
__version__ = "0.1.0"
