"""The documentation site built as ``make docs`` builds it, with every internet connection refused."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The options of the Makefile's ``docs`` target: a warning fails the build, and so does a
#: cross-reference that resolves to nothing.
SPHINX_OPTIONS = ("-W", "--keep-going", "-n", "-q", "-b", "html")

#: sphinx-build in a process whose sockets refuse every internet address.
OFFLINE_SPHINX = """
import socket
import sys


def _local_only(method):
    def guarded(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"the documentation build tried to connect to {address!r}")
        return method(self, address)

    return guarded


socket.socket.connect = _local_only(socket.socket.connect)
socket.socket.connect_ex = _local_only(socket.socket.connect_ex)

from sphinx.cmd.build import main

sys.exit(main(sys.argv[1:]))
"""


def build_site(out: Path) -> Path:
    """Build the site into ``out/html`` (doctrees beside it) and return that folder.

    Raises AssertionError with sphinx-build's output when the build fails or warns.
    """
    html = out / "html"
    command = [sys.executable, "-c", OFFLINE_SPHINX, *SPHINX_OPTIONS, "-d", str(out / "doctrees")]
    command += ["-c", str(ROOT / "docs"), str(ROOT), str(html)]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, (
        f"the documentation site does not build:\n{result.stdout[-3000:]}\n{result.stderr[-8000:]}"
    )
    print(f"documentation site built in {time.perf_counter() - start:.0f} s")
    return html
