"""A real browser renders the documentation site: headless Chromium on the index and a notebook page.

Chromium loads each page of the built site (``docs_site`` in conftest.py) over ``file://``, its DOM
after scripts ran must hold the page's title, and its screenshot must be a picture of a page: a
PNG of the window's size with many colours, not one blank colour. On the reproduction report, at a
wide and a narrow window, no table is wider than the column that holds it (none scrolls sideways).
Skipped where Debian's ``chromium`` is not installed (``.ci/run`` installs it when it runs as root).
"""

from __future__ import annotations

import html
import json
import re
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


#: The report's page in the site, and the window widths at which its tables must fit.
REPORT_PAGE = "reports/reproduction.html"
REPORT_WIDTHS = (1400, 800)
#: Appended to a copy of the report's page: once the page has loaded, the width of every table
#: beside the width of the element that holds it, with the heading above it, written into the DOM.
MEASURE_TABLES = """
<script>
window.addEventListener("load", () => {
  const headings = Array.from(document.querySelectorAll("h1, h2, h3, h4"));
  const tables = Array.from(document.querySelectorAll("article table")).map((table, index) => {
    const above = headings.filter(
      (h) => h.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING
    );
    return {
      index: index,
      heading: above.length ? above[above.length - 1].textContent.replace(/[#¶]/g, "").trim() : "",
      width: table.scrollWidth,
      container: table.parentElement.clientWidth,
    };
  });
  const out = document.createElement("pre");
  out.id = "table-widths";
  out.textContent = JSON.stringify({
    window: window.innerWidth,
    document: document.documentElement.scrollWidth,
    tables: tables,
  });
  document.body.appendChild(out);
});
</script>
"""


def measure_tables(docs_site, tmp_path, width: int) -> dict:
    """The widths :data:`MEASURE_TABLES` writes for the report's page at a window ``width`` px
    wide; the measuring copy sits beside the page (its styles load) and is removed after."""
    page = docs_site / REPORT_PAGE
    copy = page.with_name(f"_measure_{page.name}")
    copy.write_text(page.read_text().replace("</body>", MEASURE_TABLES + "</body>"))
    try:
        dom = chromium(
            tmp_path / "profile",
            SCRIPT_TIME,
            f"--window-size={width},{HEIGHT}",
            "--dump-dom",
            copy.as_uri(),
        ).stdout
    finally:
        copy.unlink()
    found = re.search(r'<pre id="table-widths">(.*?)</pre>', dom, re.S)
    assert found, f"{REPORT_PAGE}: the measuring script wrote nothing (did the page load?)"
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.parametrize("width", REPORT_WIDTHS)
def test_no_table_of_the_report_scrolls_sideways(docs_site, tmp_path, width):
    """Every table of the report fits the page's column: a reader sees every column without
    scrolling, at a wide window and at a narrow one."""
    measured = measure_tables(docs_site, tmp_path, width)
    tables = measured["tables"]
    assert len(tables) >= 5, f"{REPORT_PAGE}: only {len(tables)} tables measured"
    assert measured["window"] == width, measured["window"]
    widest = max(tables, key=lambda t: t["width"] - t["container"])
    assert widest["width"] <= widest["container"], (
        f"at a {width} px window, table #{widest['index']} (under {widest['heading']!r}) is "
        f"{widest['width']} px wide in a {widest['container']} px column; "
        f"{sum(t['width'] > t['container'] for t in tables)} of {len(tables)} tables scroll sideways"
    )
    assert measured["document"] <= width, (
        f"at a {width} px window the page is {measured['document']} px wide"
    )
