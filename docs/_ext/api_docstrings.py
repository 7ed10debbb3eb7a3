"""Every public name of the modules on the API pages has a docstring, or the build fails.

The modules are those that an ``automodule`` directive of docs/api/ names, and their public names
the ones in their ``__all__`` (which a module on those pages must define). A class or function needs
a docstring of its own (not one inherited, nor the signature a dataclass writes in place of a
missing one); any other object (a constant, a type alias) a ``#:`` comment before its assignment or
a string after it, in the module that defines it: a package that re-exports a name is followed to
the module it imports the name from. Each undocumented name is a warning, which ``make docs`` (``-W``)
turns into a failed build; ``tests/test_docs_site.py`` runs the same check without building.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from pathlib import Path

from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: An ``automodule`` directive in MyST (a fenced ``{automodule}`` block) or reStructuredText.
AUTOMODULE = re.compile(r"^\s*(?:[`~]{3,}\s*\{automodule\}|\.\.\s+automodule::)\s+([\w.]+)", re.M)


def api_modules(pages: Path) -> list[str]:
    """The modules named by the ``automodule`` directives of the pages in ``pages``, in order."""
    found: list[str] = []
    for page in sorted(pages.glob("*.md")) + sorted(pages.glob("*.rst")):
        found += [m for m in AUTOMODULE.findall(page.read_text()) if m not in found]
    return found


def _own_docstring(obj: object) -> str | None:
    """The docstring written for a class or function itself, or None."""
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    if inspect.isclass(obj) and re.fullmatch(rf"{re.escape(obj.__name__)}\(.*\)", doc.strip()):
        return None  # the signature that dataclasses and named tuples write for a missing docstring
    return doc


def source_comment(modname: str, name: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """The ``#:`` comment or docstring of ``name`` where ``modname`` (or its source) assigns it.

    Empty when there is none. A name that ``modname`` imports (``from .x import name``) is looked
    up in the module it comes from.
    """
    try:
        analyzer = ModuleAnalyzer.for_module(modname)
    except Exception:  # a module without Python source (an extension module): nothing to read
        return []
    docs = analyzer.find_attr_docs()
    if ("", name) in docs:
        return list(docs["", name])
    if modname in seen:
        return []
    for node in ast.parse(analyzer.code).body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    origin = importlib.util.resolve_name(
                        "." * node.level + (node.module or ""), _package_of(modname)
                    )
                    return source_comment(origin, alias.name, seen | {modname})
    return []


def _package_of(modname: str) -> str:
    module = importlib.import_module(modname)
    return module.__package__ or modname.rpartition(".")[0]


def undocumented(modname: str) -> list[str]:
    """The names of ``modname.__all__`` without a docstring, each with the reason."""
    module = importlib.import_module(modname)
    names = getattr(module, "__all__", None)
    if names is None:
        return [f"{modname} defines no __all__, so its public names are unknown"]
    problems = []
    for name in names:
        if not hasattr(module, name):
            problems.append(f"{modname}.{name} is in __all__ but not defined")
            continue
        obj = getattr(module, name)
        if inspect.isclass(obj) or inspect.isroutine(obj):
            if _own_docstring(obj) is None:
                problems.append(f"{modname}.{name} has no docstring")
        elif not source_comment(modname, name):
            problems.append(f"{modname}.{name} has no '#:' comment or docstring")
    return problems


#: A numpy-style section header: the title, then a line of dashes as long.
SECTION = re.compile(r"^[ \t]*(\w+)[ \t]*\n[ \t]*-{3,}[ \t]*$", re.M)


def sections(doc: str) -> set[str]:
    """The numpy-style section titles of a docstring (``Parameters``, ``Returns``, ...)."""
    return set(SECTION.findall(inspect.cleandoc(doc)))


def _raises_itself(obj: object) -> bool:
    """Whether the function's own body holds a ``raise`` statement (nested functions excluded)."""
    try:
        tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(obj)))
    except (OSError, TypeError, SyntaxError):
        return False
    func = tree.body[0]
    stack = list(getattr(func, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Raise):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _takes_parameters(obj: object) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
    return any(name not in ("self", "cls") for name in params)


def incomplete(modname: str) -> list[str]:
    """The public classes and functions of ``modname.__all__`` whose docstring lacks a section.

    Every one needs an ``Examples`` section with a doctest (``>>>``); one that takes arguments
    needs ``Parameters`` (or, for a dataclass or named tuple, ``Attributes``); a function that
    returns something needs ``Returns`` (or ``Yields``); a function whose own body raises needs
    ``Raises``. Names defined in another module are checked there, not here.
    """
    module = importlib.import_module(modname)
    problems = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name, None)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", modname) != modname and not modname.startswith(
            obj.__module__.rsplit(".", 1)[0]
        ):
            continue  # re-exported from outside this package: checked where it is defined
        doc = _own_docstring(obj)
        if doc is None:
            continue  # undocumented() reports it
        have = sections(doc)
        missing = []
        if "Examples" not in have or ">>>" not in doc:
            missing.append("Examples (with >>>)")
        if _takes_parameters(obj) and not have & {"Parameters", "Attributes"}:
            missing.append("Parameters")
        if inspect.isfunction(obj):
            returns = inspect.signature(obj).return_annotation
            if returns not in (None, "None") and not have & {"Returns", "Yields"}:
                missing.append("Returns")
            if _raises_itself(obj) and "Raises" not in have:
                missing.append("Raises")
        if missing:
            problems.append(f"{modname}.{name} lacks {', '.join(missing)}")
    return problems


def _constant(obj: object) -> bool:
    return not (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj))


def check_api_docstrings(app) -> None:
    """Warn about every undocumented public name of the modules on the API pages.

    A constant that a module re-exports is given the comment of the module that assigns it, in
    the analysis of the re-exporting module that autodoc reads (autodoc documents a module's
    constants from that module's own comments only).
    """
    pages = Path(app.srcdir, app.config.api_docstrings_pages)
    modules = api_modules(pages)
    if not modules:
        logger.warning(f"no automodule directive in {pages}", type="api_docstrings")
    exempt = dict(app.config.api_docstrings_exempt)
    for modname in modules:
        for problem in undocumented(modname):
            name = problem.split(" ", 1)[0]
            if exempt.pop(name, None) is None:
                logger.warning(problem, type="api_docstrings", subtype="undocumented")
        module = importlib.import_module(modname)
        analyzer = ModuleAnalyzer.for_module(modname)
        docs = analyzer.find_attr_docs()  # the cached analysis that autodoc reads
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if _constant(obj) and ("", name) not in docs and (doc := source_comment(modname, name)):
                docs["", name] = doc
    for name in exempt:
        logger.warning(
            f"{name} is exempt from the docstring check but documented or not on the API pages: "
            "take it off api_docstrings_exempt",
            type="api_docstrings",
            subtype="exempt",
        )


def setup(app):
    app.add_config_value("api_docstrings_pages", "docs/api", "env", str)
    # name -> why it may stay undocumented; a name listed here that is documented fails the build
    app.add_config_value("api_docstrings_exempt", {}, "env", dict)
    app.connect("builder-inited", check_api_docstrings)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
