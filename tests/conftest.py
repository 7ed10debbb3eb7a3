"""Shared test set-up: a non-interactive matplotlib backend and the offline data mirror.

The Makefile exports PPDP_DATA_MIRROR when the mirror of the authors'-repository datasets sits
beside the project (../shared/data); this does the same for a bare `pytest` run.
"""

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

_MIRROR = Path(__file__).resolve().parents[1].parent / "shared" / "data"
if "PPDP_DATA_MIRROR" not in os.environ and (_MIRROR / "MANIFEST.md").exists():
    os.environ["PPDP_DATA_MIRROR"] = str(_MIRROR)
os.environ.setdefault("MPLBACKEND", "Agg")
