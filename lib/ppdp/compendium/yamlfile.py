"""Reading the project's YAML files (profiles, claims, roles, the profile schema) with one-line
errors: a syntax error or a key given twice in one mapping names the file and the line."""

from __future__ import annotations

import functools
import os
from typing import Any

__all__ = ["read_yaml"]


@functools.cache
def _unique_key_loader():
    """A SafeLoader that refuses a mapping with the same key twice.

    PyYAML keeps the last of two equal keys, so ``bins: 8`` followed by ``bins: 3`` would run with
    3 whichever the author meant; the loader raises instead, at the second occurrence.
    """
    import yaml

    class _DuplicateKeyError(yaml.constructor.ConstructorError):
        pass

    class UniqueKeyLoader(yaml.SafeLoader):
        DuplicateKeyError = _DuplicateKeyError

        def construct_mapping(self, node, deep=False):
            # merge keys (<<) are resolved first, so that a key given once and merged in is
            # compared as PyYAML would keep it
            self.flatten_mapping(node)
            seen = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:
                    # an unhashable key; PyYAML's own construct_mapping names it
                    break
                if first is not key_node:
                    raise _DuplicateKeyError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"duplicate key {key!r} (first given on line {first.start_mark.line + 1})",
                        key_node.start_mark,
                    )
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def read_yaml(path: str | os.PathLike, text: str | None = None) -> Any:
    """The parsed content of the YAML file ``path``.

    Parameters
    ----------
    path : str or path-like
        The YAML file.
    text : str, optional
        The file's content, already read: parsed instead of reading ``path`` again, so that a
        caller that keyed a cache by these bytes parses exactly them (``path`` then only names the
        file in errors).

    Returns
    -------
    object
        What the file holds (safe YAML: mappings, lists, strings, numbers, booleans, None).

    Raises
    ------
    ValueError
        For a syntax error or a mapping with a key given twice, one line naming the file, the line
        and column (1-based) and the problem, instead of PyYAML's traceback.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "profile.yaml").write_text("runs:\\n  bins: 8\\n  bins: 3\\n")
    >>> read_yaml(folder / "profile.yaml")
    Traceback (most recent call last):
    ...
    ValueError: .../profile.yaml:3:3: YAML error: duplicate key 'bins' (first given on line 2)
    """
    import yaml

    loader = _unique_key_loader()
    if text is None:
        with open(path) as handle:
            text = handle.read()
    try:
        return yaml.load(text, Loader=loader)
    except loader.DuplicateKeyError as err:
        # valid syntax, but which of the two values was meant is unknown
        raise ValueError(f"{_where(path, err)}: YAML error: {_problem(err)}") from None
    except yaml.MarkedYAMLError as err:
        raise ValueError(f"{_where(path, err)}: YAML syntax error: {_problem(err)}") from None
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: YAML syntax error: {err}") from None


def _where(path, err) -> str:
    mark = err.problem_mark or err.context_mark
    return f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)


def _problem(err) -> str:
    return err.problem or err.context or "not valid YAML"


def main(argv: list[str] | None = None) -> int:
    """Check YAML files: ``python -m ppdp.compendium.yamlfile config/<profile>.yaml ...``.

    Snakemake reads a ``--configfile`` itself, before the Snakefile runs, and reports a syntax
    error in it without the file or the line; this names both. Prints one line per broken file
    and returns 1 if any is broken, 0 otherwise.
    """
    import sys

    broken = 0
    for path in sys.argv[1:] if argv is None else argv:
        try:
            read_yaml(path)
        except (OSError, ValueError) as err:
            print(err, file=sys.stderr)
            broken += 1
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
