"""Shared test set-up: a non-interactive matplotlib backend, the documentation site and one run of
the smoke profile.

The offline mirror of the authors'-repository datasets is found by the data layer itself
(``ppdp.datasets.fetch``: ``PPDP_DATA_MIRROR``, else ../shared/data beside the project).
"""

import os
from pathlib import Path

import matplotlib
import pytest
from _pytest.doctest import DoctestItem
from hypothesis import settings

import shared_smoke_run as shared_smoke
from docs_build import build_site

TESTS = Path(__file__).resolve().parent

matplotlib.use("Agg")

os.environ.setdefault("MPLBACKEND", "Agg")

# Property tests explore new random cases on developers' machines; CI replays a fixed sequence so
# that a run is reproducible. Neither has a deadline: a test's wall time on two shared cores says
# nothing about what it checks, and Hypothesis fails a case that is slow once as flaky.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory) -> Path:
    """The documentation site, built once per session as ``make docs`` builds it, with the network
    closed: its HTML folder (tests/test_docs_site.py)."""
    return build_site(tmp_path_factory.mktemp("docs_site"))


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """The folder of a finished run of the smoke profile (``results/smoke``, ``figures/smoke``,
    ``reports/smoke``): the one ``make test`` made before the tests (tests/shared_smoke_run.py), else one
    run here, in the environment the tests run in."""
    folder = shared_smoke.shared_run()
    if folder is None:
        folder = shared_smoke.run(tmp_path_factory.mktemp("smoke"))
    return folder


def pytest_collection_modifyitems(config, items):
    """``make test`` runs the library's docstring examples (``--doctest-modules lib/ppdp``) in the
    tests' session; the option also reads the tests' own modules, whose ``>>>`` lines are test
    data (docstrings checked by tests), not examples, so those are left out."""
    items[:] = [
        item
        for item in items
        if not (isinstance(item, DoctestItem) and TESTS in Path(item.path).resolve().parents)
    ]
