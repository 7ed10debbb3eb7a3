"""The library's modules import each other without cycles and only downward through its layers.

The graph is read from the source with :mod:`ast`, so an import inside a function counts as much as
one at the top of a module: a lazy import hides a cycle from the interpreter, not from a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib"

#: The library's layers, lowest first: a name, the packages it holds (the core holds every module
#: no other layer claims) and what it is. Each layer imports only from the layers below it. This
#: list is the one place the layers are written down: CONTRIBUTING.md and docs/pipeline.md hold
#: its rendering (render_layers), which a test keeps equal.
LAYER_LIST = [
    (
        "core",
        (),
        "the protocol and its contract (`base`, `contract`, `guarantees`, `_validation`), the "
        "table core (`tabular`, `cells`), information theory, classifiers, caches, datasets",
    ),
    ("mechanisms", ("ppdp.mechanisms",), "one module or package per mechanism family"),
    ("attacks and utility", ("ppdp.attacks", "ppdp.utility"), "what a release leaks and keeps"),
    (
        "compendium",
        ("ppdp.compendium",),
        "what only the experiments and the report share: measured anonymity, the papers' "
        "numbers, the YAML reader, the figures' house style",
    ),
    (
        "experiments and report",
        ("ppdp.experiments", "ppdp.report"),
        "the papers' runs and the report",
    ),
]

LAYERS = {
    package: level for level, (_, packages, _) in enumerate(LAYER_LIST) for package in packages
}

#: The markers around the rendered list in the pages that show it.
LAYER_MARKERS = ("<!-- layers: generated from tests/test_import_graph.py -->", "<!-- /layers -->")
LAYER_PAGES = ("CONTRIBUTING.md", "docs/pipeline.md")


def render_layers() -> str:
    """The layer list as the Markdown the pages hold between :data:`LAYER_MARKERS`."""
    lines = [LAYER_MARKERS[0]]
    for level, (name, packages, what) in enumerate(LAYER_LIST):
        where = ", ".join(f"`{p.removeprefix('ppdp.')}/`" for p in packages) or "the rest"
        lines.append(f"{level}. **{name}** ({where}): {what}")
    lines.append(LAYER_MARKERS[1])
    return "\n".join(lines)


def module_name(path: Path, root: Path = LIB) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def library_modules(root: Path = LIB) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted((root / "ppdp").rglob("*.py"))}


def from_target(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` in a module of ``package`` reads from (relative ones
    resolved)."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The library modules that ``path`` (module ``name``) imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = from_target(node, package)
            # `from package import submodule` depends on the submodule, not on the package's
            # own code; any other name depends on the module that defines it
            submodules = {f"{target}.{alias.name}" for alias in node.names} & known
            found.update(submodules)
            if len(submodules) < len(node.names):
                found.add(target)
    return {m for m in found if m in known and m != name}


def import_graph(root: Path = LIB) -> dict[str, set[str]]:
    modules = library_modules(root)
    known = set(modules)
    return {name: imported_modules(name, path, known) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("page", LAYER_PAGES)
def test_the_pages_show_the_layers_as_listed_here(page):
    text = (LIB.parent / page).read_text()
    start, end = text.find(LAYER_MARKERS[0]), text.find(LAYER_MARKERS[1])
    assert 0 <= start < end, f"{page} lacks the generated layer list between {LAYER_MARKERS}"
    shown = text[start : end + len(LAYER_MARKERS[1])]
    assert shown == render_layers(), (
        f"{page}'s layer list differs from tests/test_import_graph.py's; replace it with:\n"
        + render_layers()
    )


def layer(module: str) -> int:
    for prefix, level in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return level
    return 0


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    pkg = tmp_path / "ppdp"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import a\n")
    (pkg / "sub" / "a.py").write_text("def f():\n    from ppdp.sub.b import g\n")
    (pkg / "sub" / "b.py").write_text("from .a import f\n")
    graph = import_graph(tmp_path)
    assert graph["ppdp.sub"] == {"ppdp.sub.a"}
    assert graph["ppdp.sub.a"] == {"ppdp.sub.b"}
    assert graph["ppdp.sub.b"] == {"ppdp.sub.a"}
    assert cycles(graph) == [["ppdp.sub.a", "ppdp.sub.b"]]


def test_no_import_cycle_in_the_library():
    assert len(GRAPH) > 30, "the walk found too few modules to be the library"
    assert cycles(GRAPH) == []


GRAPH = import_graph()


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_go_down_the_layers(module):
    upward = sorted(m for m in GRAPH[module] if layer(m) > layer(module))
    assert upward == [], f"{module} (layer {layer(module)}) imports a higher layer: {upward}"


# ------------------------------------------------------------------------------------------------
# The compendium's cut: each paper's package computes in `run`, judges in `claims`, draws in
# `figures`, and only `figures` draws.

DRAWING = ("matplotlib", "seaborn", "ppdp.compendium.plotting")
EXPERIMENT_PACKAGES = sorted(
    p.parent.name for p in (LIB / "ppdp" / "experiments").glob("*/__init__.py")
)


def imported_names(path: Path) -> set[str]:
    """Every module name ``path`` imports (outside libraries included), anywhere in its body."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_every_paper_is_a_package_cut_into_run_claims_and_figures():
    assert {"hyobscure", "sppm", "mutual_cover", "relay_chains", "imposter", "benchmark"} <= set(
        EXPERIMENT_PACKAGES
    )
    loose = sorted(
        p.name
        for p in (LIB / "ppdp" / "experiments").glob("*.py")
        if p.stem not in ("__init__", "common", "parameter_schema")
    )
    assert loose == [], f"experiment modules outside a package: {loose}"
    for package in EXPERIMENT_PACKAGES:
        root = LIB / "ppdp" / "experiments" / package
        assert (root / "run.py").exists() and (root / "claims.py").exists(), package


@pytest.mark.parametrize("package", EXPERIMENT_PACKAGES)
def test_only_figures_draw_and_runs_do_not_judge(package):
    prefix = f"ppdp.experiments.{package}"
    modules = {m: p for m, p in library_modules().items() if m.startswith(prefix + ".")}
    for module, path in sorted(modules.items()):
        if module == f"{prefix}.figures":
            continue
        drawing = sorted(
            n for n in imported_names(path) if any(n == d or n.startswith(d + ".") for d in DRAWING)
        )
        assert drawing == [], f"{module} draws ({drawing}); drawing belongs in {prefix}.figures"
    above = {"run": ("claims", "figures"), "claims": ("figures",)}
    for name, forbidden in above.items():
        imports = GRAPH.get(f"{prefix}.{name}", set())
        wrong = sorted(m for m in imports if m in {f"{prefix}.{f}" for f in forbidden})
        assert wrong == [], f"{prefix}.{name} imports {wrong}, which sit above it"


@pytest.mark.parametrize("package", EXPERIMENT_PACKAGES)
def test_a_package_init_only_gathers_its_submodules(package):
    path = LIB / "ppdp" / "experiments" / package / "__init__.py"
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module == f"ppdp.experiments.{package}":
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__all__"]:
            continue
        raise AssertionError(
            f"{path.name} of {package} defines or imports more than its submodules "
            f"(line {node.lineno}); code belongs in a submodule"
        )
