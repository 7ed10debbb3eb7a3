"""Reading the project's YAML files (profiles, claims, roles) with one-line syntax errors."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["read_yaml"]


def read_yaml(path: str | os.PathLike) -> Any:
    """The parsed content of the YAML file ``path``.

    Raises
    ------
    ValueError
        For a syntax error, one line naming the file, the line and column (1-based) and
        PyYAML's description of the problem, instead of PyYAML's traceback.
    """
    import yaml

    with open(path) as handle:
        try:
            return yaml.safe_load(handle)
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
            problem = err.problem or err.context or "not valid YAML"
            raise ValueError(f"{where}: YAML syntax error: {problem}") from None
        except yaml.YAMLError as err:
            raise ValueError(f"{path}: YAML syntax error: {err}") from None
