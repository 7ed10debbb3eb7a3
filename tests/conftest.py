"""Shared test set-up: a non-interactive matplotlib backend and the documentation site.

The offline mirror of the authors'-repository datasets is found by the data layer itself
(``ppdp.datasets.fetch``: ``PPDP_DATA_MIRROR``, else ../shared/data beside the project).
"""

import os
from pathlib import Path

import matplotlib
import pytest
from hypothesis import settings

from docs_build import build_site

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
    closed: its HTML folder (tests/test_docs_site.py, tests/test_docs_browser.py)."""
    return build_site(tmp_path_factory.mktemp("docs_site"))
