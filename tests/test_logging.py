"""The library logs its long steps under ``ppdp`` and prints nothing until asked to.

A user's script stays quiet (the package's NullHandler); ``caplog`` (or any configured handler)
sees the records; the compendium's notebook runs show them when ``PPDP_LOG_LEVEL`` is set, as the
Snakefile sets it.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import numpy as np
import pandas as pd

from ppdp import KaryRandomizedResponse, MutualCover

SCRIPT = (
    "import numpy as np, pandas as pd\n"
    "from ppdp import MutualCover\n"
    "df = pd.DataFrame({'age': np.arange(40) % 17, 'disease': np.arange(40) % 4})\n"
    "MutualCover(['age'], 'disease', delta=0.5, l=2).fit(df)\n"
)


def table() -> pd.DataFrame:
    return pd.DataFrame({"age": np.arange(40) % 17, "disease": np.arange(40) % 4})


def test_a_fit_logs_its_summary_at_info(caplog):
    with caplog.at_level(logging.INFO, logger="ppdp"):
        MutualCover(["age"], "disease", delta=0.5, l=2).fit(table())
    records = [r for r in caplog.records if r.name == "ppdp.mechanisms.mutual_cover.estimator"]
    assert len(records) == 1 and records[0].levelno == logging.INFO
    assert "LPs solved" in records[0].getMessage()


def test_a_short_step_does_not_log(caplog):
    with caplog.at_level(logging.DEBUG, logger="ppdp"):
        KaryRandomizedResponse(1.0).fit(table())
    assert caplog.records == []


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "PPDP_LOG_LEVEL"} | env
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True
    )


def test_the_library_prints_nothing_unless_configured():
    assert run(SCRIPT).stderr == ""


def test_the_compendium_shows_the_logs_when_the_pipeline_asks():
    code = "import ppdp.experiments\n" + SCRIPT
    assert run(code).stderr == "", "PPDP_LOG_LEVEL unset: the notebooks stay quiet"
    shown = run(code, PPDP_LOG_LEVEL="INFO").stderr
    assert "ppdp.mechanisms.mutual_cover.estimator: Mutual Cover: " in shown
