"""The ``mechanism-guarantees`` directive: every mechanism of the library with its guarantee.

It lists each concrete subclass of :class:`ppdp.base.Mechanism` and
:class:`ppdp.base.ArrayMechanism` defined under ``ppdp.mechanisms``, linked to the API page that
documents it, with the sentence of its ``guarantee`` attribute, the bound its releases are checked
against, and its ``repetition``, what a second release from one fit adds. A mechanism without
either, or on no API page, is a warning, which ``make docs`` (``-W``) turns into a failed build.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

from api_docstrings import api_modules
from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)


def mechanisms() -> list[type]:
    """The concrete mechanism classes (table- and array-level) of ``ppdp.mechanisms``, by name."""
    import ppdp.mechanisms
    from ppdp.base import ArrayMechanism, Mechanism

    for info in pkgutil.walk_packages(ppdp.mechanisms.__path__, "ppdp.mechanisms."):
        importlib.import_module(info.name)
    found, todo = set(), [Mechanism, ArrayMechanism]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if not inspect.isabstract(sub) and sub.__module__.startswith("ppdp.mechanisms."):
                found.add(sub)
    return sorted(found, key=lambda c: c.__name__)


def documented_as(cls: type, modules: list[str]) -> str | None:
    """The name an API page documents ``cls`` under (``module.Name``), or None."""
    for modname in modules:
        module = importlib.import_module(modname)
        if cls.__name__ in getattr(module, "__all__", ()) and getattr(module, cls.__name__) is cls:
            return f"{modname}.{cls.__name__}"
    return None


def guarantee_rows(pages: Path) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(documented name, guarantee, repetition) per mechanism, and the problems found."""
    from ppdp.base import REPETITION

    modules = api_modules(pages)
    rows, problems = [], []
    for cls in mechanisms():
        name = documented_as(cls, modules)
        stated = getattr(cls, "guarantee", None)
        if name is None:
            problems.append(f"{cls.__module__}.{cls.__name__} is on no API page")
            continue
        if not isinstance(stated, str) or not stated.strip():
            problems.append(f"{name} states no guarantee (its class attribute 'guarantee')")
            continue
        repetition = getattr(cls, "repetition", None)
        if repetition not in REPETITION:
            problems.append(f"{name} declares no repetition (one of {sorted(REPETITION)})")
            continue
        rows.append((name, " ".join(stated.split()), repetition))
    return rows, problems


def _inline(text: str) -> list[nodes.Node]:
    """``text`` with its double-backquoted parts as literals (the attribute is reST-like)."""
    parts = re.split(r"``(.+?)``", text)
    return [nodes.literal(p, p) if i % 2 else nodes.Text(p) for i, p in enumerate(parts) if p]


def _row(*cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *content)
        row += entry
    return row


class MechanismGuarantees(SphinxDirective):
    """A table: each mechanism (linked) and the guarantee checked on every release.

    Built from docutils nodes, so that it renders the same in a MyST or a reST page.
    """

    def run(self) -> list[nodes.Node]:
        pages = Path(self.env.srcdir, self.config.api_docstrings_pages)
        rows, problems = guarantee_rows(pages)
        for problem in problems:
            logger.warning(problem, location=self.get_location(), type="mechanism_guarantees")
        group = nodes.tgroup(cols=3)
        group += nodes.colspec(colwidth=22)
        group += nodes.colspec(colwidth=63)
        group += nodes.colspec(colwidth=15)
        head = nodes.thead()
        head += _row(
            [nodes.Text("Mechanism")],
            [nodes.Text("Guarantee checked on every release")],
            [nodes.Text("A second release")],
        )
        group += head
        body = nodes.tbody()
        for name, stated, repetition in rows:
            short = name.rsplit(".", 1)[1]
            link = addnodes.pending_xref(
                "", refdomain="py", reftype="class", reftarget=name, refexplicit=True
            )
            link += nodes.literal(short, short)
            body += _row([link], _inline(stated), [nodes.Text(repetition)])
        group += body
        table = nodes.table(classes=["mechanism-guarantees"])
        table += group
        return [table]


def setup(app):
    app.add_directive("mechanism-guarantees", MechanismGuarantees)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
