"""The ``public-surface`` directive: every name of ``ppdp.__all__``, linked, with its summary.

The table is generated from the package's ``__all__``, the one list of public names; a name that
no API page documents stays an unresolved link, which ``make docs`` (``-n -W``) fails on.
"""

from __future__ import annotations

import inspect

from docutils import nodes
from mechanism_guarantees import _row
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective


def surface_rows() -> list[tuple[str, str, str, str]]:
    """(name, documented module, cross-reference role, first docstring line) per public name."""
    import ppdp

    rows = []
    for name in ppdp.__all__:
        obj = getattr(ppdp, name)
        module = ppdp._SURFACE[name]
        role = "class" if inspect.isclass(obj) else "func"
        summary = (inspect.getdoc(obj) or "").strip().split("\n", 1)[0]
        rows.append((name, module, role, summary))
    return rows


class PublicSurface(SphinxDirective):
    """A table: each public name (linked to its API page) and its docstring's first line."""

    def run(self) -> list[nodes.Node]:
        group = nodes.tgroup(cols=2)
        group += nodes.colspec(colwidth=30)
        group += nodes.colspec(colwidth=70)
        head = nodes.thead()
        head += _row([nodes.Text("Name")], [nodes.Text("What it is")])
        group += head
        body = nodes.tbody()
        for name, module, role, summary in surface_rows():
            link = addnodes.pending_xref(
                "", refdomain="py", reftype=role, reftarget=f"{module}.{name}", refexplicit=True
            )
            link += nodes.literal(name, name)
            body += _row([link], [nodes.Text(summary.replace("``", ""))])
        group += body
        table = nodes.table(classes=["public-surface"])
        table += group
        return [table]


def setup(app):
    app.add_directive("public-surface", PublicSurface)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
