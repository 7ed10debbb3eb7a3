"""A real browser renders the documentation site: headless Chromium on the index and a notebook page.

Chromium loads each page of the built site (``docs_site`` in conftest.py) over ``file://``, its DOM
after scripts ran must hold the page's title, and its screenshot must be a picture of a page: a
PNG of the window's size with many colours, not one blank colour. Skipped where Debian's
``chromium`` is not installed (``.ci/run`` installs it when it runs as root).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

PIL = pytest.importorskip("PIL.Image")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (Debian: apt-get install chromium), so no browser renders the site",
)

WIDTH, HEIGHT = 1280, 900
#: page -> (path in the site, its title, whether it holds formulas MathJax must typeset)
PAGES = {
    "index": ("docs/index.html", "ppdp documentation", False),
    "notebook": (
        "notebooks/mutual_cover.html",
        "Privacy-Preserving Data Publishing via Mutual Cover",
        True,
    ),
}
#: how long (virtual milliseconds) the page's scripts may run before the DOM is read
SCRIPT_TIME = "--virtual-time-budget=5000"


def chromium(profile, *args: str) -> subprocess.CompletedProcess:
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_browser_renders_the_page(docs_site, tmp_path, name):
    path, title, math = PAGES[name]
    url = (docs_site / path).as_uri()
    dom = chromium(tmp_path / "profile", SCRIPT_TIME, "--dump-dom", url).stdout
    assert title in dom, f"{path}: the rendered page does not hold its title {title!r}"
    if math:
        # the site's own MathJax typeset the formulas (offline: no CDN to fetch it from)
        assert "mjx-container" in dom, f"{path}: MathJax left its formulas as raw TeX"

    shot = tmp_path / f"{name}.png"
    chromium(
        tmp_path / "profile",
        SCRIPT_TIME,
        f"--screenshot={shot}",
        f"--window-size={WIDTH},{HEIGHT}",
        url,
    )
    assert shot.stat().st_size > 20_000, f"{shot.name}: {shot.stat().st_size} bytes"
    with PIL.open(shot) as image:
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
        colours = image.convert("RGB").getcolors(maxcolors=WIDTH * HEIGHT)
    commonest = max(count for count, _ in colours)
    assert len(colours) > 50, f"{shot.name} has {len(colours)} colours: a blank page"
    assert commonest < 0.95 * WIDTH * HEIGHT, f"{shot.name} is almost one colour"
