"""environment.yml (the conda route), pyproject.toml and constraints.txt agree.

pyproject.toml declares the dependencies (lower bounds), constraints.txt pins the versions CI uses,
and environment.yml gives conda's part (Python, pip, make, PyTorch's CPU build), after which
`make install ENV=conda` installs the rest from pyproject.toml and constraints.txt. Where two of them
state the same dependency they must agree; a dependency one of them declares and the other lacks
fails with its name.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
#: conda packages that are tools of the route, not Python dependencies of the package
CONDA_TOOLS = {"python", "pip", "make"}
#: conda package names whose pip distribution is named otherwise
CONDA_TO_PIP = {"pytorch": "torch", "pytorch-cpu": "torch"}


def declared(pyproject: dict) -> dict[str, SpecifierSet]:
    """Every dependency of pyproject.toml, its extras included (the package's own extras
    aside), by canonical name."""
    project = pyproject["project"]
    name = canonicalize_name(project["name"])
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    out: dict[str, SpecifierSet] = {}
    for text in requirements:
        req = Requirement(text)
        if canonicalize_name(req.name) != name:
            out[canonicalize_name(req.name)] = req.specifier
    return out


def pins(text: str) -> dict[str, Version]:
    """The ``NAME==VERSION`` lines of a constraints file, by canonical name."""
    out = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", f"constraints.txt: {line!r} is not an exact pin"
            out[canonicalize_name(req.name)] = Version(spec.version)
    return out


def conda_specifier(spec: str) -> tuple[str, SpecifierSet]:
    """A conda match spec (``name``, ``name=1.2``, ``name>=1.2``, ``name==1.2``) as a name and a
    PEP 440 specifier (conda's ``=1.2`` means any 1.2.x)."""
    match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", spec.strip())
    assert match, f"environment.yml: cannot read {spec!r}"
    name, version = match.group(1), match.group(2).replace(" ", "")
    if re.fullmatch(r"=[^=].*", version):
        version = f"=={version[1:]}.*"
    return name, SpecifierSet(version)


def parity_errors(environment: dict, pyproject: dict, constraints: str) -> list[str]:
    """Every disagreement between the three files, each naming the dependency."""
    errors = []
    wanted = declared(pyproject)
    pinned = pins(constraints)
    project = pyproject["project"]
    for name, spec in sorted(wanted.items()):
        if name not in pinned:
            errors.append(f"{name}: declared in pyproject.toml, not pinned in constraints.txt")
        elif pinned[name] not in spec:
            errors.append(
                f"{name}: constraints.txt pins {pinned[name]}, pyproject.toml asks {spec}"
            )
    for entry in environment.get("dependencies", []):
        if isinstance(entry, dict):
            for line in entry.get("pip", []):
                errors += _pip_entry_errors(line, pyproject, wanted)
            continue
        conda_name, spec = conda_specifier(entry)
        if conda_name == "python":
            # the oldest Python the spec allows must be one pyproject.toml allows
            oldest = re.search(r"[0-9]+(?:\.[0-9]+)*", entry)
            allowed = SpecifierSet(project.get("requires-python", ""))
            if oldest and Version(oldest.group(0)) not in allowed:
                errors.append(
                    f"python: environment.yml gives {entry}, pyproject.toml requires {allowed}"
                )
            continue
        if conda_name in CONDA_TOOLS:
            continue
        name = canonicalize_name(CONDA_TO_PIP.get(conda_name, conda_name))
        if name not in wanted:
            errors.append(f"{name}: environment.yml installs {conda_name}, pyproject.toml lacks it")
            continue
        if str(spec) != str(wanted[name]):
            errors.append(
                f"{name}: environment.yml asks {conda_name}{spec}, pyproject.toml {wanted[name]}"
            )
    return errors


def _pip_entry_errors(line: str, pyproject: dict, wanted: dict[str, SpecifierSet]) -> list[str]:
    line = line.strip()
    local = re.fullmatch(r"(?:-e\s+)?\.(?:\[([^\]]*)\])?", line)
    if local:
        extras = {e.strip() for e in (local.group(1) or "").split(",") if e.strip()}
        unknown = extras - set(pyproject["project"].get("optional-dependencies", {}))
        return [
            f"environment.yml: extra {e!r} of the package is not in pyproject.toml" for e in unknown
        ]
    if line.startswith("-"):
        return []  # pip options (-c FILE, --index-url ...)
    req = Requirement(line)
    name = canonicalize_name(req.name)
    if name not in wanted:
        return [f"{name}: environment.yml's pip section installs it, pyproject.toml lacks it"]
    if str(req.specifier) != str(wanted[name]):
        return [
            f"{name}: environment.yml's pip section asks {req.specifier}, pyproject.toml {wanted[name]}"
        ]
    return []


def _files() -> tuple[dict, dict, str]:
    return (
        yaml.safe_load((ROOT / "environment.yml").read_text()),
        tomllib.loads((ROOT / "pyproject.toml").read_text()),
        (ROOT / "constraints.txt").read_text(),
    )


def test_environment_yml_pyproject_and_constraints_agree():
    environment, pyproject, constraints = _files()
    assert parity_errors(environment, pyproject, constraints) == []


def test_the_packages_installed_without_dependencies_are_pinned():
    """pycanon and anonymeter come from the Makefile with --no-deps, at constraints.txt's pins on
    both routes."""
    makefile = (ROOT / "Makefile").read_text()
    no_deps = re.findall(r"pip install --quiet --no-deps -c \$\(PIP_CONSTRAINTS\) (\S+)", makefile)
    assert sorted(no_deps) == ["anonymeter", "pycanon"]
    pinned = pins((ROOT / "constraints.txt").read_text())
    assert all(canonicalize_name(name) in pinned for name in no_deps), no_deps


def test_the_conda_route_supplies_a_cpu_pytorch_and_the_tools_make_needs():
    environment, _, _ = _files()
    names = {conda_specifier(e)[0] for e in environment["dependencies"] if isinstance(e, str)}
    assert {"python", "pip", "make", "pytorch-cpu"} <= names


@pytest.mark.parametrize(
    ("change", "named"),
    [
        # a conda package pyproject.toml does not declare
        (lambda env, pp, c: env["dependencies"].append("polars-lts-cpu"), "polars-lts-cpu"),
        # another lower bound for PyTorch
        (lambda env, pp, c: env["dependencies"].append("pytorch-cpu>=2.1"), "torch"),
        # a Python older than pyproject.toml allows
        (lambda env, pp, c: env["dependencies"].append("python=3.10"), "python"),
        # a declared dependency without a pin
        (
            lambda env, pp, c: pp["project"]["dependencies"].append("tabulate-extra>=1"),
            "tabulate-extra",
        ),
        # an unknown extra in the pip section
        (lambda env, pp, c: env["dependencies"].append({"pip": ["-e .[gpu]"]}), "gpu"),
    ],
)
def test_a_disagreement_is_named(change, named):
    environment, pyproject, constraints = _files()
    change(environment, pyproject, constraints)
    errors = parity_errors(environment, pyproject, constraints)
    assert any(named in e for e in errors), errors


def test_a_pin_outside_the_declared_range_is_named():
    environment, pyproject, constraints = _files()
    constraints = re.sub(r"(?m)^numpy==.*$", "numpy==1.20.0", constraints)
    assert any(e.startswith("numpy:") for e in parity_errors(environment, pyproject, constraints))
