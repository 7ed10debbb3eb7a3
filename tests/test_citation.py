"""The citation metadata follows the one version, ``ppdp.__version__``.

CITATION.cff holds the keys of CFF 1.2.0 that a citation needs; its version, the README's BibTeX
entry and the installed package's metadata equal ``ppdp.__version__``, and CHANGELOG.md has a
section for that version, released on CITATION.cff's date.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
import yaml

import ppdp

ROOT = Path(__file__).resolve().parents[1]
#: The keys this file must hold: CFF 1.2.0's required ones (cff-version, message, title, authors)
#: and those a reader of a software citation looks for.
REQUIRED = (
    "cff-version",
    "message",
    "title",
    "version",
    "authors",
    "license",
    "date-released",
    "abstract",
    "keywords",
)


@pytest.fixture(scope="module")
def citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


@pytest.fixture(scope="module")
def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def bibtex() -> str:
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"```bibtex\n(.*?)```", readme, flags=re.S)
    assert match, "the README has no BibTeX entry"
    return match.group(1)


def test_citation_cff_holds_the_keys_of_cff_1_2_0(citation):
    missing = [key for key in REQUIRED if key not in citation]
    assert missing == [], f"CITATION.cff lacks {missing}"
    assert citation["cff-version"] == "1.2.0"
    for key in ("message", "title", "abstract"):
        assert isinstance(citation[key], str) and citation[key].strip(), key
    assert isinstance(citation["keywords"], list) and citation["keywords"]
    # CFF wants a date as YYYY-MM-DD; YAML reads an unquoted one as a date, a quoted one as text
    released = citation["date-released"]
    assert datetime.date.fromisoformat(str(released)).isoformat() == str(released)


def test_citation_cff_version_is_the_packages(citation):
    assert str(citation["version"]) == ppdp.__version__


def test_the_version_is_stated_once(project):
    """pyproject.toml reads ppdp.__version__ instead of stating a second one."""
    assert "version" not in project
    assert "version" in project["dynamic"]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ppdp.__version__"}


def test_the_installed_metadata_has_the_packages_version():
    assert importlib.metadata.version("ppdp") == ppdp.__version__


def test_citation_authors_and_license_are_pyprojects(citation, project):
    assert [a["name"] for a in citation["authors"]] == [a["name"] for a in project["authors"]]
    assert citation["license"] == project["license"]


def test_the_readmes_bibtex_names_the_version_and_authors(project):
    entry = bibtex()
    version = re.search(r"version\s*=\s*\{([^}]*)\}", entry)
    assert version and version.group(1) == ppdp.__version__
    author = re.search(r"author\s*=\s*\{\{?([^}]*)\}?\}", entry)
    assert author and author.group(1) == " and ".join(a["name"] for a in project["authors"])


def test_the_changelog_has_a_section_for_the_version(citation):
    changelog = (ROOT / "CHANGELOG.md").read_text()
    heading = re.search(
        rf"^## \[{re.escape(ppdp.__version__)}\] - (\d{{4}}-\d{{2}}-\d{{2}})$", changelog, re.M
    )
    assert heading, f"CHANGELOG.md has no '## [{ppdp.__version__}] - YYYY-MM-DD' section"
    assert heading.group(1) == str(citation["date-released"])
    body = changelog[heading.end() :].split("\n## ", 1)[0]
    assert re.search(r"^- ", body, re.M), "the version's section lists no change"
