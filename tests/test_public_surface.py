"""One public surface: ``ppdp.__all__`` and the API reference name the same objects.

Every class on the library's API pages is importable from ``ppdp``; every name of ``ppdp.__all__``
is an object an API page documents; ``import ppdp`` loads nothing heavy until a name is used; the
user guide imports from ``ppdp`` alone.
"""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ppdp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from api_docstrings import api_modules  # noqa: E402

#: The pages of the compendium document its own layers, which the library's surface leaves out.
COMPENDIUM = ("ppdp.experiments", "ppdp.report", "ppdp.compendium")


def documented() -> dict[str, list[object]]:
    """Public name -> the objects of that name in the ``__all__`` of the library's API modules."""
    found: dict[str, list[object]] = {}
    for modname in api_modules(ROOT / "docs" / "api"):
        if modname.startswith(COMPENDIUM):
            continue
        module = importlib.import_module(modname)
        for name in module.__all__:
            found.setdefault(name, []).append(getattr(module, name))
    return found


DOCUMENTED = documented()


def test_every_class_on_the_api_pages_is_public():
    classes = {n for n, objs in DOCUMENTED.items() if any(inspect.isclass(o) for o in objs)}
    assert len(classes) > 40, "the walk found too few classes to be the API reference"
    missing = sorted(classes - set(ppdp.__all__))
    assert missing == [], f"classes on the API pages that ppdp does not export: {missing}"
    for name in sorted(classes):
        assert any(getattr(ppdp, name) is obj for obj in DOCUMENTED[name]), name


@pytest.mark.parametrize("name", ppdp.__all__)
def test_every_public_name_is_documented(name):
    obj = getattr(ppdp, name)
    assert any(obj is o for o in DOCUMENTED.get(name, ())), (
        f"ppdp.{name} is on no API page: add its module to docs/api/ or drop it from the surface"
    )


def test_import_ppdp_loads_a_name_only_when_used():
    code = (
        "import sys, ppdp\n"
        "print('torch' in sys.modules, 'ppdp.mechanisms.mondrian' in sys.modules)\n"
        "ppdp.Mondrian\n"
        "print('ppdp.mechanisms.mondrian' in sys.modules, 'Mondrian' in dir(ppdp))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True", "True"]


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Mondrain'"):
        ppdp.Mondrain  # noqa: B018


def test_the_library_is_silent_until_logging_is_configured():
    import logging

    handlers = logging.getLogger("ppdp").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)


def test_the_user_guide_imports_from_the_surface():
    text = (ROOT / "docs" / "user-guide.md").read_text()
    imports = re.findall(r"^\s*(?:>>> )?from (ppdp[\w.]*) import", text, re.M)
    assert imports, "the user guide imports nothing from ppdp"
    deep = sorted({m for m in imports if m != "ppdp"})
    assert deep == [], f"the user guide imports from module paths instead of ppdp: {deep}"
