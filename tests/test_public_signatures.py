"""``random_state`` is the one name for randomness in the library's public signatures.

scikit-learn and diffprivlib call a function's source of randomness ``random_state`` (None, an int
seed or a generator), and so does every mechanism's ``fit`` and ``release``. The signatures are
read from the source with :mod:`ast`: outside ``ppdp.experiments`` no public function or method
takes a parameter named ``seed``, ``seeds`` or ``rng``; inside it none takes ``rng``, while
``seed`` stays, since there it is one entry of an experiment's list of seeds (``load_data(n_rows,
seed)``), not a stream. Public means: a function or method whose name does not start with ``_``
(dunders such as ``__init__`` are public), in a module and, for a method, a class whose names do
not either. Nested functions are nobody's signature and are not read.

The benchmark's release callbacks are private functions, so they are checked by their
signatures: each takes ``(data, train, level, random_state)``.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "lib" / "ppdp"

#: The parameter names that are not ``random_state``: everywhere, and inside the experiments.
BANNED = frozenset({"seed", "seeds", "rng"})
BANNED_IN_EXPERIMENTS = frozenset({"rng"})


def _is_public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def _public_functions(body: list[ast.stmt], owner: str = ""):
    """``(qualified name, function node)`` of each public function or method in ``body``,
    through classes and module-level ``if``/``try``/``with`` blocks, not into function bodies."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            if _is_public(node.name):
                yield from _public_functions(node.body, f"{owner}{node.name}.")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if _is_public(node.name):
                yield f"{owner}{node.name}", node
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody", "handlers"):
                for part in getattr(node, block, []):
                    inner = part.body if isinstance(part, ast.ExceptHandler) else [part]
                    yield from _public_functions(inner, owner)


def signature_violations(source: str, where: str, banned: frozenset[str]) -> list[str]:
    """``"where: function(parameter)"`` for each public function of ``source`` that takes a
    parameter named in ``banned``."""
    tree = ast.parse(source, filename=where)
    return [
        f"{where}: {name}({parameter})"
        for name, node in _public_functions(tree.body)
        for parameter in _parameters(node)
        if parameter in banned
    ]


def library_violations(package: Path = PACKAGE) -> list[str]:
    """The violations of every public module of ``package``, experiments by their own rule."""
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent)
        if not all(_is_public(part.removesuffix(".py")) for part in relative.parts):
            continue  # a private module (ppdp._validation) is nobody's public signature
        in_experiments = relative.parts[1] == "experiments"
        banned = BANNED_IN_EXPERIMENTS if in_experiments else BANNED
        found += signature_violations(path.read_text(), f"lib/{relative.as_posix()}", banned)
    return found


def test_public_signatures_name_randomness_random_state():
    violations = library_violations()
    assert not violations, (
        "name these parameters random_state (None, an int >= 0 or a numpy Generator, as "
        "ppdp.base.check_random_state takes; an int where it seeds scikit-learn or XGBoost):\n  "
        + "\n  ".join(violations)
    )


def test_the_walk_finds_the_library_and_its_experiments():
    # a walk that read no file would pass whatever the library holds
    read = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")]
    assert "attacks/suite.py" in read and "experiments/benchmark/registry.py" in read


PLANTED = """
def draw(n, seed=0): ...
def spread(n, *, seeds): ...
def fine(n, random_state=None): ...
def _helper(seed): ...
class Sampler:
    def __init__(self, rng): ...
    def sample(self, n, *args, seed=None, **kw): ...
    def _private(self, rng): ...
    class Inner:
        def run(self, rng): ...
class _Hidden:
    def run(self, seed): ...
if True:
    def guarded(rng): ...
def outer(random_state=None):
    def nested(rng): ...
"""


def test_the_walk_catches_planted_violations():
    found = signature_violations(PLANTED, "lib/ppdp/planted.py", BANNED)
    assert found == [
        "lib/ppdp/planted.py: draw(seed)",
        "lib/ppdp/planted.py: spread(seeds)",
        "lib/ppdp/planted.py: Sampler.__init__(rng)",
        "lib/ppdp/planted.py: Sampler.sample(seed)",
        "lib/ppdp/planted.py: Sampler.Inner.run(rng)",
        "lib/ppdp/planted.py: guarded(rng)",
    ]


def test_experiments_keep_their_seed_but_not_rng():
    source = "def load_data(n_rows, seed): ...\ndef split(data, rng): ...\n"
    found = signature_violations(source, "lib/ppdp/experiments/x.py", BANNED_IN_EXPERIMENTS)
    assert found == ["lib/ppdp/experiments/x.py: split(rng)"]


def test_library_violations_reports_a_planted_module(tmp_path):
    package = tmp_path / "ppdp"
    (package / "experiments").mkdir(parents=True)
    (package / "attacks.py").write_text("def attack(data, seed=0): ...\n")
    (package / "_private.py").write_text("def helper(seed): ...\n")
    (package / "experiments" / "run.py").write_text(
        "def run(seed): ...\ndef release(data, rng): ...\n"
    )
    assert library_violations(package) == [
        "lib/ppdp/attacks.py: attack(seed)",
        "lib/ppdp/experiments/run.py: release(rng)",
    ]


@pytest.fixture(scope="module")
def registry():
    from ppdp.experiments.benchmark import registry

    return registry


def test_benchmark_release_callbacks_take_random_state(registry):
    releases = {name: entry.release for name, entry in registry.REGISTRY.items()}
    assert releases
    for name, release in releases.items():
        parameters = list(inspect.signature(release).parameters)
        assert parameters == ["data", "train", "level", "random_state"], (name, parameters)
