"""How the site presents the repository: its root page, figure links and the API reference.

* An ``index.html`` at the top of the output opens the root page (docs/index.html), since the
  source directory is the repository itself.
* A link to a figure file (the report's ``figures/...png``) opens the figure in the browser: Sphinx
  copies a linked file into ``_downloads/`` and marks the link as a download; the copy stays, the
  link becomes an ordinary one.
* Napoleon reads the first line of a constant's docstring as ``type: text``; the library documents
  its constants in prose, so their docstrings are kept as written.
* The methods scikit-learn generates on a subclass (``set_fit_request``, ...) are left out.
* A private base class is shown as the public classes it derives from.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

FIGURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg")


def root_redirect(app, exception) -> None:
    """Write ``index.html`` at the top of the HTML output, opening the root document."""
    if exception is None and app.builder.format == "html":
        target = app.builder.get_target_uri(app.config.root_doc)
        if target != "index.html":
            Path(app.outdir, "index.html").write_text(
                '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f"<title>{app.config.project}</title>"
                f'<meta http-equiv="refresh" content="0; url={target}"></head>'
                f'<body><p><a href="{target}">{app.config.project} documentation</a></p></body>'
                "</html>\n"
            )


def figure_links(app, doctree, docname) -> None:
    """Turn the download links to figure files into links that open them."""
    if app.builder.format != "html":
        return
    here = posixpath.dirname(app.builder.get_target_uri(docname))
    for node in list(doctree.findall(addnodes.download_reference)):
        filename = node.get("filename", "")
        if not filename.lower().endswith(FIGURE_SUFFIXES):
            continue
        uri = posixpath.relpath(posixpath.join("_downloads", filename), here)
        link = nodes.reference("", "", *node.children, refuri=uri, internal=True)
        node.replace_self(link)


_CONSTANT_DOCS: dict[str, list[str]] = {}


def keep_constant_doc(app, what, name, obj, options, lines) -> None:
    """Before napoleon: remember a constant's docstring."""
    if what in ("data", "attribute"):
        _CONSTANT_DOCS[name] = list(lines)


def restore_constant_doc(app, what, name, obj, options, lines) -> None:
    """After napoleon: give the constant its docstring back."""
    if what in ("data", "attribute") and name in _CONSTANT_DOCS:
        lines[:] = _CONSTANT_DOCS.pop(name)


def skip_generated(app, what, name, obj, skip, options):
    """Leave out a class's members that scikit-learn generates."""
    if what == "class" and getattr(obj, "__module__", "").startswith("sklearn."):
        return True
    return None


def public_bases(app, name, obj, options, bases) -> None:
    """Replace each private base class by the public classes it derives from."""
    shown: list[type] = []
    for base in bases:
        stack = [base]
        while stack:
            cls = stack.pop(0)
            if cls.__name__.startswith("_"):
                stack[:0] = [b for b in cls.__bases__ if b is not object]
            elif cls not in shown:
                shown.append(cls)
    bases[:] = shown or [object]


def setup(app):
    app.connect("autodoc-process-docstring", keep_constant_doc, priority=100)  # before napoleon
    app.connect("autodoc-process-docstring", restore_constant_doc, priority=900)  # after it
    app.connect("autodoc-skip-member", skip_generated)
    app.connect("autodoc-process-bases", public_bases)
    app.connect("doctree-resolved", figure_links)
    app.connect("build-finished", root_redirect)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
