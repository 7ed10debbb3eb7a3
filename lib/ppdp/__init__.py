"""Privacy-preserving data publishing: five papers in one library."""

__version__ = "0.1.0"
