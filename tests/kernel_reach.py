"""Which smoke runs can compute other bits under other CPU kernels, decided from observation.

The comparison of verdicts across kernels (``tests/test_pipeline.py``) reruns the smoke profile in
an environment whose kernels differ from the tests' own. On many machines most runs compute the same
bits in both: an AVX2 machine picks the same numpy loops and the same OpenBLAS kernel with or
without the caps of :mod:`ppdp.kernels`, and only ``MKL_CBWR`` differs, which only PyTorch reads.
Then only the runs whose notebooks can load PyTorch can differ. This module finds them:

- :func:`ppdp.kernels.environment_record` probes the kernels a run would get in an environment;
- :func:`ppdp.kernels.differing_families` compares two such records by library family (numpy,
  BLAS, PyTorch);
- :func:`runs_reaching` reads, statically, which runs' notebooks can import a module, through the
  library's import graph (``tests/test_import_graph.py``) and its computed imports;
- :func:`runs_to_rerun` puts them together: every run, unless only PyTorch's kernels differ.

Every doubt is resolved towards rerunning more: a computed import the analysis cannot resolve makes
it raise rather than guess.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
from collections import deque
from collections.abc import Collection, Mapping
from functools import cache
from pathlib import Path

import nbformat
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from ppdp.kernels import blas_entries, differing_families
from test_import_graph import GRAPH, LIB, from_target, import_graph, library_modules

ROOT = LIB.parent
NOTEBOOKS = ROOT / "notebooks"

#: The library's top-level package.
TOP = "ppdp"

#: Names through which code can import a module whose name it computes.
COMPUTED_IMPORTS = frozenset(
    {"import_module", "__import__", "exec_module", "spec_from_file_location", "run_module"}
)

#: The library's computed imports the analysis resolves, by (module, enclosing function):
#: ``lazy`` is the PEP 562 table of ``ppdp/__init__.py``, resolved where a name is read from the
#: package; ``pattern`` is an f-string of constant parts, resolved to every library module whose
#: name it can spell (``parameter_schema`` loads each experiment's ``run``).
RESOLVED_COMPUTED_IMPORTS = {
    (TOP, "__getattr__"): "lazy",
    (f"{TOP}.experiments.parameter_schema", "parameters_schema"): "pattern",
}

#: The name of the lazy table (public name -> module) in ``ppdp/__init__.py``.
SURFACE_TABLE = "_SURFACE"

_BLAS_NAMES = {"openblas": "OpenBLAS", "mkl": "MKL", "blis": "BLIS", "accelerate": "Accelerate"}


# ------------------------------------------------------------------------------------------------
# The kernels an environment gives a run


def _kernel_view(record: Mapping) -> tuple:
    """A record's kernel fields in a comparable form."""
    return (
        record.get("numpy_simd"),
        tuple(blas_entries(record)),
        record.get("torch_cpu"),
        record.get("mkl_cbwr"),
    )


def _describe_blas(record: Mapping) -> str:
    kinds = []
    for entry in record.get("blas") or []:
        api = _BLAS_NAMES.get(str(entry.get("internal_api")), str(entry.get("internal_api")))
        threads = entry.get("num_threads")
        kind = f"{api} {entry.get('kernel')} ({threads} thread{'' if threads == 1 else 's'})"
        if kind not in kinds:
            kinds.append(kind)
    return ", ".join(kinds) or "no BLAS"


def runs_to_rerun(
    first: Mapping[str, Mapping],
    other: Mapping,
    runs: Mapping[str, Mapping],
    *,
    judged: Collection[str] | None = None,
    root: Path = LIB,
    notebooks: Path = NOTEBOOKS,
) -> tuple[list[str], str]:
    """The runs to rerun in the other environment, and why, in one line for the log.

    Every run, unless the two environments differ in PyTorch's kernels alone: then only the runs
    whose notebooks can import PyTorch (:func:`runs_reaching`), since only they can compute other
    bits. Every run too when a run has no record, when the runs' records disagree among
    themselves (they ran in one environment), or when nothing differs (then what the other
    environment changes is not in the records). With ``judged``, the runs some claim reads, a
    run outside it is never rerun: it gives no verdict to compare, whatever its kernels.

    Parameters
    ----------
    first : mapping of str to dict
        Each run's provenance from the first run (``results/<profile>/provenance/<run>.json``).
    other : mapping
        The record of the other environment (:func:`environment_record`).
    runs : mapping of str to dict
        The profile's ``runs`` (``config/smoke.yaml``): name -> {notebook, parameters, ...}.
    judged : collection of str, optional
        The runs whose results some claim reads (``claims.yaml``); None reruns runs without
        claims too.
    root, notebooks : pathlib.Path
        The library's ``lib`` folder and the notebooks' folder.

    Returns
    -------
    (list of str, str)
        The runs to rerun, sorted, and the reason.
    """
    chosen, reason = _runs_to_rerun(first, other, runs, root=root, notebooks=notebooks)
    if judged is None:
        return chosen, reason
    unread = [run for run in chosen if run not in judged]
    if unread:
        chosen = [run for run in chosen if run in judged]
        reason += f"; not {', '.join(unread)}, which no claim reads"
    return chosen, reason


def _runs_to_rerun(
    first: Mapping[str, Mapping],
    other: Mapping,
    runs: Mapping[str, Mapping],
    *,
    root: Path,
    notebooks: Path,
) -> tuple[list[str], str]:
    """:func:`runs_to_rerun` before the runs no claim reads are left out."""
    everything = sorted(runs)
    missing = sorted(set(runs) - set(first))
    if missing:
        return everything, f"rerun all {len(everything)} runs: no record of {', '.join(missing)}"
    views = {run: _kernel_view(first[run]) for run in everything}
    if len(set(views.values())) > 1:
        groups: dict[tuple, list[str]] = {}
        for run, view in views.items():
            groups.setdefault(view, []).append(run)
        split = "; ".join(", ".join(names) for names in groups.values())
        return everything, (
            f"rerun all {len(everything)} runs: the first run's records disagree on the kernels "
            f"among themselves ({split})"
        )
    ours = first[everything[0]] if everything else {}
    families = differing_families(ours, other)
    numpy_ours, numpy_other = ours.get("numpy_simd"), other.get("numpy_simd")
    blas_ours, blas_other = _describe_blas(ours), _describe_blas(other)
    torch_text = (
        f"torch {ours.get('torch_cpu')} vs {other.get('torch_cpu')}, "
        f"MKL_CBWR {ours.get('mkl_cbwr')} vs {other.get('mkl_cbwr')}"
    )
    if not families:
        return everything, (
            f"rerun all {len(everything)} runs: no kernel differs (numpy {numpy_ours}, "
            f"{blas_ours}, torch {ours.get('torch_cpu')}, MKL_CBWR {ours.get('mkl_cbwr')}), so "
            "the records do not say what the other environment changes"
        )
    if families & {"numpy", "blas"}:
        changed = []
        if "numpy" in families:
            changed.append(f"numpy {numpy_ours} vs {numpy_other}")
        if "blas" in families:
            changed.append(f"BLAS {blas_ours} vs {blas_other}")
        if "torch" in families:
            changed.append(torch_text)
        return everything, f"rerun all {len(everything)} runs: {'; '.join(changed)} differ"
    chosen = sorted(runs_reaching("torch", runs, root=root, notebooks=notebooks))
    return chosen, (
        f"rerun {', '.join(chosen) or 'no run'}: torch/MKL differ ({torch_text}); numpy "
        f"{numpy_ours} and {blas_ours} are equal, and only these runs' notebooks can import torch"
    )


# ------------------------------------------------------------------------------------------------
# Which notebooks can import a module


def _is_library(name: str) -> bool:
    return name == TOP or name.startswith(TOP + ".")


def _parents(name: str) -> set[str]:
    """The packages whose ``__init__`` runs before module ``name`` loads."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def lazy_surface(root: Path = LIB) -> dict[str, str]:
    """The lazy table of ``ppdp/__init__.py`` (public name -> module), read from its source.

    Returns ``{}`` for a package without one; raises if the table is not a literal dict of
    strings (the analysis could not know what ``from ppdp import X`` loads).
    """
    path = root / TOP / "__init__.py"
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if not any(isinstance(t, ast.Name) and t.id == SURFACE_TABLE for t in targets):
            continue
        try:
            table = ast.literal_eval(node.value)
        except ValueError as error:
            raise ValueError(f"{path}: {SURFACE_TABLE} is not a literal dict: {error}") from error
        if not isinstance(table, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in table.items()
        ):
            raise ValueError(f"{path}: {SURFACE_TABLE} must map names to module names")
        return table
    return {}


class _ImportScan(ast.NodeVisitor):
    """One pass over a module's code: every module it imports (at any depth of its body), what it
    reads from the top package, and its computed imports with their enclosing function.

    The library holds two megabytes of source: one walk per module keeps the analysis fast.
    """

    def __init__(self, name: str, is_package: bool) -> None:
        self.name, self.is_package = name, is_package
        self.imported: set[str] = set()
        self.from_top: set[str] = set()  # names of `from ppdp import name`
        self.bound: set[str] = set()  # local names of the top package (`import ppdp [as p]`)
        self.attribute_reads: set[tuple[str, str]] = set()  # (local name, attribute)
        self.bare: set[str] = set()  # names used other than to read an attribute
        self.calls: list[tuple[str, ast.Call]] = []
        self.references: list[tuple[str, ast.AST]] = []
        self._scope: list[str] = []

    def _enter(self, node: ast.AST) -> None:
        self._scope.append(node.name)
        self.generic_visit(node)
        self._scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _enter

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.imported.add(alias.name)
            if alias.asname is None and alias.name.split(".")[0] == TOP:
                self.bound.add(TOP)
            elif alias.asname is not None and alias.name == TOP:
                self.bound.add(alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        package = self.name if self.is_package else self.name.rpartition(".")[0]
        target = from_target(node, package)
        self.imported.add(target)
        # `from package import name` loads package.name when it is a submodule
        self.imported.update(f"{target}.{alias.name}" for alias in node.names)
        if target == TOP:
            self.from_top.update(alias.name for alias in node.names)
        star = target in ("importlib", "importlib.util", "runpy")
        if any(a.name in COMPUTED_IMPORTS or (star and a.name == "*") for a in node.names):
            self.references.append((self._where(), node))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (isinstance(func, ast.Name) and func.id in COMPUTED_IMPORTS) or (
            isinstance(func, ast.Attribute) and func.attr in COMPUTED_IMPORTS
        ):
            self.calls.append((self._where(), node))
            # the callee is accounted for by the call; its parts may still hold references
            if isinstance(func, ast.Attribute):
                self.visit(func.value)
        else:
            self.visit(func)
        for child in (*node.args, *node.keywords):
            self.visit(child)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in COMPUTED_IMPORTS:
            self.references.append((self._where(), node))
        if isinstance(node.value, ast.Name):
            self.attribute_reads.add((node.value.id, node.attr))
        else:
            self.visit(node.value)

    def visit_Name(self, node: ast.Name) -> None:
        self.bare.add(node.id)
        if node.id in COMPUTED_IMPORTS:
            self.references.append((self._where(), node))

    def _where(self) -> str:
        return ".".join(self._scope)

    def surface_uses(self, surface: Mapping[str, str], known: set[str]) -> set[str]:
        """The modules that reading names from the top package loads: ``from ppdp import X`` and
        ``ppdp.X`` the module of X in the lazy table; ``from ppdp import *``, or the package
        itself handed on (``getattr(ppdp, name)``), any of them."""
        every = set(surface.values())
        if "*" in self.from_top or self.bound & self.bare:
            return every
        names = self.from_top | {
            attr for local, attr in self.attribute_reads if local in self.bound
        }
        uses = {surface[n] for n in names if n in surface}
        return uses | ({f"{TOP}.{n}" for n in names} & known)


def _pattern_targets(arg: ast.AST, known: set[str]) -> set[str]:
    """The library modules a string of constant parts (an f-string) can name."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return {arg.value} & known
    if not isinstance(arg, ast.JoinedStr):
        return set()
    pattern = "".join(
        re.escape(str(part.value)) if isinstance(part, ast.Constant) else ".+"
        for part in arg.values
    )
    return {m for m in known if re.fullmatch(pattern, m)}


def _computed_import_edges(
    scan: _ImportScan, where: str, known: set[str], surface: Mapping[str, str]
) -> set[str]:
    """The modules a module's computed imports can load; raise for one the analysis does not
    resolve (:data:`RESOLVED_COMPUTED_IMPORTS`), so that none hides an import."""

    def refuse(scope: str, node: ast.AST) -> ValueError:
        return ValueError(
            f"{where} line {node.lineno}: a computed import in {scope or 'the module body'} "
            f"({ast.unparse(node)}) that the import analysis cannot follow; resolve it in "
            "tests/kernel_reach.py (RESOLVED_COMPUTED_IMPORTS)"
        )

    if scan.references:
        raise refuse(*scan.references[0])
    edges: set[str] = set()
    for scope, call in scan.calls:
        kind = RESOLVED_COMPUTED_IMPORTS.get((scan.name, scope))
        plain = (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "import_module"
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "importlib"
            and len(call.args) == 1
            and not call.keywords
        )
        if kind == "lazy" and plain and surface:
            continue  # resolved where a name is read from the package (surface_uses)
        targets = _pattern_targets(call.args[0], known) if plain else set()
        if kind == "pattern" and targets:
            edges |= targets
            continue
        raise refuse(scope, call)
    return edges


def _scan(code: str, name: str, is_package: bool, where: str) -> _ImportScan:
    try:
        tree = ast.parse(code, filename=where)
    except SyntaxError as error:
        raise ValueError(f"{where}: the code does not parse ({error})") from error
    scan = _ImportScan(name, is_package)
    scan.visit(tree)
    return scan


@cache
def library_imports(root: Path = LIB) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """What loading each library module can load.

    Returns
    -------
    (dict, dict)
        Library module -> the library modules it can load directly: its imports at any depth of
        its body (``tests/test_import_graph.py``'s graph), its parent packages, the modules of
        the lazy names it reads from ``ppdp`` and those of its resolved computed imports; and
        library module -> the other modules it imports (third-party and standard library).
    """
    modules = library_modules(root)
    known = set(modules)
    graph = GRAPH if Path(root) == LIB else import_graph(root)
    surface = lazy_surface(root)
    unknown = sorted(set(surface.values()) - known)
    if unknown:
        raise ValueError(f"{TOP}/__init__.py's {SURFACE_TABLE} names missing modules: {unknown}")
    edges: dict[str, set[str]] = {}
    external: dict[str, set[str]] = {}
    for name, path in modules.items():
        where = str(path.relative_to(root))
        scan = _scan(path.read_text(), name, path.name == "__init__.py", where)
        # the graph leaves out a package whose submodules alone are imported (its layering
        # question); its __init__ runs all the same, as do those of a module's own packages
        deps = graph[name] | (scan.imported & known) | _parents(name)
        deps |= scan.surface_uses(surface, known)
        deps |= _computed_import_edges(scan, where, known, surface)
        edges[name] = deps - {name}
        external[name] = {n for n in scan.imported if n and not _is_library(n)}
    return edges, external


def notebook_code(path: Path) -> str:
    """The code cells of a notebook as one Python source, IPython's magics and shell lines
    (``%``, ``!``) replaced by ``pass``."""
    notebook = nbformat.read(path, as_version=4)
    lines = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")):
                line = line[: len(line) - len(stripped)] + "pass"
            lines.append(line)
        lines.append("")
    return "\n".join(lines)


def _notebook_imports(path: Path, root: Path) -> tuple[set[str], set[str]]:
    """The library modules a notebook loads directly, and the other modules it imports. A
    notebook may hold no computed import at all."""
    edges, _ = library_imports(root)
    known = set(edges)
    scan = _scan(notebook_code(path), "", False, path.name)
    _computed_import_edges(scan, path.name, known, {})
    library = (scan.imported & known) | scan.surface_uses(lazy_surface(root), known)
    return library, {n for n in scan.imported if n and not _is_library(n)}


@cache
def _distribution_modules() -> dict[str, set[str]]:
    """Installed distribution (canonical name) -> the top-level modules it provides."""
    provided: dict[str, set[str]] = {}
    for module, dists in _module_distributions().items():
        for dist in dists:
            provided.setdefault(canonicalize_name(dist), set()).add(module)
    return provided


@cache
def _module_distributions() -> Mapping[str, list[str]]:
    """Top-level module -> the installed distributions that provide it."""
    return importlib.metadata.packages_distributions()


@cache
def _direct_requirements(dist: str) -> frozenset[str]:
    """The distributions an installed one requires unconditionally (no extra), canonical names."""
    try:
        requirements = importlib.metadata.requires(dist) or []
    except importlib.metadata.PackageNotFoundError:
        return frozenset()
    needed = set()
    for text in requirements:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            needed.add(canonicalize_name(requirement.name))
    return frozenset(needed)


@cache
def _required_modules(top: str) -> frozenset[str]:
    """The top-level modules of the distributions that the one providing module ``top``
    requires, at any depth: a third-party package may import any of them."""
    todo = [canonicalize_name(d) for d in _module_distributions().get(top, [])]
    seen: set[str] = set()
    while todo:
        dist = todo.pop()
        if dist not in seen:
            seen.add(dist)
            todo.extend(_direct_requirements(dist))
    provided = _distribution_modules()
    return frozenset(m for dist in seen for m in provided.get(dist, ()))


def _external_match(name: str, module_prefix: str) -> bool:
    """Whether importing the outside module ``name`` can import one named ``module_prefix...``:
    the name itself, a package the prefix lies in, or a requirement of its distribution."""
    if name.startswith(module_prefix) or module_prefix.startswith(name + "."):
        return True
    return any(
        m.startswith(module_prefix) or module_prefix.split(".")[0] == m
        for m in _required_modules(name.split(".")[0])
    )


def import_chain(
    module_prefix: str, notebook: str, *, root: Path = LIB, notebooks: Path = NOTEBOOKS
) -> list[str]:
    """How a notebook's code can import a module named ``module_prefix...``, or ``[]``.

    Parameters
    ----------
    module_prefix : str
        The start of the module's name (``"torch"``).
    notebook : str
        The notebook's name (``notebooks/<notebook>.ipynb``).
    root, notebooks : pathlib.Path
        The library's ``lib`` folder and the notebooks' folder.

    Returns
    -------
    list of str
        The notebook, the library modules that lead there, and the module imported; ``[]`` if
        none can.
    """
    if not isinstance(module_prefix, str) or not module_prefix:
        raise ValueError(f"module_prefix must be a non-empty module name, got {module_prefix!r}")
    path = Path(notebooks) / f"{notebook}.ipynb"
    if not path.is_file():
        raise FileNotFoundError(f"notebook {notebook!r}: no file {path}")
    edges, external = library_imports(root)
    start, own = _notebook_imports(path, root)
    label = f"notebooks/{path.name}"
    for name in sorted(own):
        if _external_match(name, module_prefix):
            return [label, name]
    came_from: dict[str, str] = {module: label for module in start}
    queue = deque(sorted(start))
    while queue:
        module = queue.popleft()
        if module.startswith(module_prefix):
            return _chain(came_from, module, label)
        for name in sorted(external[module]):
            if _external_match(name, module_prefix):
                return [*_chain(came_from, module, label), name]
        for nxt in sorted(edges[module]):
            if nxt not in came_from:
                came_from[nxt] = module
                queue.append(nxt)
    return []


def _chain(came_from: Mapping[str, str], module: str, label: str) -> list[str]:
    chain = [module]
    while came_from[chain[-1]] != label:
        chain.append(came_from[chain[-1]])
    return [label, *reversed(chain)]


def runs_reaching(
    module_prefix: str,
    runs: Mapping[str, Mapping],
    *,
    root: Path = LIB,
    notebooks: Path = NOTEBOOKS,
) -> set[str]:
    """The runs whose notebook's code can import a module whose name starts with
    ``module_prefix``, read statically (:func:`import_chain`).

    Parameters
    ----------
    module_prefix : str
        The start of the module's name (``"torch"``).
    runs : mapping of str to dict
        A profile's ``runs``: name -> {notebook, parameters, ...}.
    root, notebooks : pathlib.Path
        The library's ``lib`` folder (with ``ppdp/`` in it) and the notebooks' folder.

    Returns
    -------
    set of str
    """
    reaching = set()
    by_notebook: dict[str, bool] = {}
    for run, spec in runs.items():
        if not isinstance(spec, Mapping) or not isinstance(spec.get("notebook"), str):
            raise ValueError(f"run {run!r}: no notebook named (got {spec!r})")
        notebook = spec["notebook"]
        if notebook not in by_notebook:
            chain = import_chain(module_prefix, notebook, root=root, notebooks=notebooks)
            by_notebook[notebook] = bool(chain)
        if by_notebook[notebook]:
            reaching.add(run)
    return reaching
