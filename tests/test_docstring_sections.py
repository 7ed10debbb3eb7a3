"""Every public class and function on the API pages has a complete numpy docstring.

``Examples`` with a doctest (run by ``make doctest``), ``Parameters`` when it takes arguments,
``Returns`` when a function returns something and ``Raises`` when its own body raises; the rule
is ``incomplete`` in docs/_ext/api_docstrings.py.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _checker():
    spec = importlib.util.spec_from_file_location(
        "api_docstrings", ROOT / "docs" / "_ext" / "api_docstrings.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK = _checker()
MODULES = CHECK.api_modules(ROOT / "docs" / "api")


@pytest.mark.parametrize("modname", MODULES)
def test_public_docstrings_have_their_sections(modname):
    assert CHECK.incomplete(modname) == []


def test_the_section_check_names_what_is_missing(tmp_path, monkeypatch):
    (tmp_path / "pkg_sections.py").write_text(
        textwrap.dedent(
            '''
            __all__ = ["complete", "bare", "Thing"]


            def complete(x):
                """Twice ``x``.

                Parameters
                ----------
                x : int
                    A number.

                Returns
                -------
                int

                Raises
                ------
                ValueError
                    If ``x`` is negative.

                Examples
                --------
                >>> complete(2)
                4
                """
                if x < 0:
                    raise ValueError("x must be >= 0")
                return 2 * x


            def bare(x):
                """Twice ``x``."""
                if x < 0:
                    raise ValueError("x must be >= 0")
                return 2 * x


            class Thing:
                """A thing.

                Examples
                --------
                Thing(1)
                """

                def __init__(self, size):
                    self.size = size
            '''
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert CHECK.incomplete("pkg_sections") == [
        "pkg_sections.bare lacks Examples (with >>>), Parameters, Returns, Raises",
        "pkg_sections.Thing lacks Examples (with >>>), Parameters",
    ]
