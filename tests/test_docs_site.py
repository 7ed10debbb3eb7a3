"""The documentation site builds offline without a warning, and its pages show what they promise.

The site is built once (``docs_site`` in conftest.py, with the options of ``make docs`` and the
network closed). Then: every notebook has its page, with every figure of its committed outputs as
an image of the build; every figure link of the report opens the committed figure; the API pages
show their classes; every link between the pages lands on a page and an anchor that exist. Without
a build: every public name of the modules on the API pages has a docstring, and the check that
says so catches a name without one.

A real browser renders the site: headless Chromium loads the index and a notebook page over
``file://``; its DOM after scripts ran must hold the page's title, and its screenshot must be a
picture of a page (a PNG of the window's size with many colours, not one blank colour). On the
reproduction report, at a wide and a narrow window, no table is wider than the column that holds
it (none scrolls sideways). These tests are skipped where Debian's ``chromium`` is not installed
(``.ci/run`` installs it when it runs as root). They live in this file so that the site is built
once: each test file runs whole in one test process, and each process builds its own site.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import runpy
import shutil
import subprocess
import textwrap
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest

from docs_build import ROOT, SPHINX_OPTIONS

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
REPORT = ROOT / "reports" / "reproduction.md"
BENCHMARK_SECTION = "benchmark-every-mechanism-the-same-data-and-attackers"


def _api_docstrings():
    spec = importlib.util.spec_from_file_location(
        "api_docstrings", ROOT / "docs" / "_ext" / "api_docstrings.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def attributes(page: Path, tag: str, attribute: str) -> list[str]:
    """The values of ``attribute`` of every ``tag`` element of an HTML page, unescaped."""
    pattern = rf"<{tag}\b[^>]*?\b{attribute}=\"([^\"]*)\""
    return [html.unescape(v) for v in re.findall(pattern, page.read_text())]


def resolve(page: Path, url: str) -> Path:
    """The file a relative URL of ``page`` points to (query and fragment dropped)."""
    path = url.split("#", 1)[0].split("?", 1)[0]
    return (page.parent / unquote(path)).resolve() if path else page


def figure_outputs(notebook: Path) -> int:
    """The number of figures (PNG outputs) among a notebook's committed outputs."""
    nb = nbformat.read(notebook, as_version=4)
    return sum(
        "image/png" in output.get("data", {})
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


def test_the_makefile_builds_the_site_as_the_tests_do():
    recipe = re.search(r"^docs:.*\n\t(.*sphinx-build.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert recipe, "the Makefile has no docs target running sphinx-build"
    assert " ".join(SPHINX_OPTIONS) in recipe.group(1)
    assert "-c docs . docs/_build/html" in recipe.group(1)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_has_a_page_with_its_figures(docs_site, notebook):
    page = docs_site / "notebooks" / f"{notebook.stem}.html"
    assert page.is_file(), f"no page for {notebook.name}"
    images = attributes(page, "img", "src")
    figures = figure_outputs(notebook)
    assert figures > 0, f"{notebook.name} has no figure among its committed outputs"
    assert len(images) >= figures, f"{page.name} shows {len(images)} of {figures} figures"
    for src in images:
        assert resolve(page, src).is_file(), f"{page.name}: image {src} is not in the build"


def test_the_site_ships_its_own_mathjax(docs_site):
    """Formulas are typeset by a MathJax copied into the site, not fetched from a CDN, which an
    offline reader cannot reach (the browser check sees them typeset)."""
    page = (docs_site / "notebooks" / "mutual_cover.html").read_text()
    sources = re.findall(r'<script[^>]*src="([^"]*mathjax[^"]*)"', page)
    assert sources and all(not s.startswith(("http:", "https:", "//")) for s in sources), sources
    assert resolve(docs_site / "notebooks" / "mutual_cover.html", sources[0]).is_file()


def test_every_figure_link_of_the_report_opens_the_committed_figure(docs_site):
    page = docs_site / "reports" / "reproduction.html"
    linked = set(re.findall(r"\]\((figures/[^)\s]+\.png)\)", REPORT.read_text()))
    assert len(linked) > 30, "the report links fewer figures than it should"
    shown = [href for href in attributes(page, "a", "href") if href.endswith(".png")]
    names = {Path(href).name for href in shown}
    assert names >= {Path(f).name for f in linked}
    built = {resolve(page, href) for href in shown}
    for figure in linked:
        source = REPORT.parent / figure
        copies = [
            b for b in built if b.name == source.name and b.read_bytes() == source.read_bytes()
        ]
        assert copies, f"the report page links no copy of {figure}"
    assert all(b.is_file() for b in built)


def test_the_report_shows_the_benchmark_leaderboards_and_planes(docs_site):
    text = (docs_site / "reports" / "reproduction.html").read_text()
    start = text.index(f'id="{BENCHMARK_SECTION}"')
    section = text[start:]
    assert section.count("<table") >= 2, "the Benchmark section shows no leaderboard"
    for plane in ("plane_adult.png", "plane_movielens.png"):
        assert plane in section, f"the Benchmark section does not link {plane}"


@pytest.mark.parametrize(
    ("page", "name"),
    [
        ("generalization", "ppdp.mechanisms.mondrian.Mondrian"),
        ("mutual-cover", "ppdp.mechanisms.mutual_cover.MutualCover"),
        ("randomized-response", "ppdp.mechanisms.randomized_response.KaryRandomizedResponse"),
        ("relay", "ppdp.mechanisms.relay.RelayChain"),
        ("sppm", "ppdp.mechanisms.sppm.SPPM"),
        ("hyobscure", "ppdp.mechanisms.hyobscure.HyObscure"),
        ("imposter", "ppdp.mechanisms.imposter.Imposter"),
        ("mst", "ppdp.mechanisms.mst.MST"),
        ("core", "ppdp.base.Mechanism"),
        ("core", "ppdp.contract.MechanismCase"),
        ("datasets", "ppdp.datasets.load_adult"),
        ("datasets", "ppdp.datasets.DATASETS"),
    ],
)
def test_the_api_pages_document_their_objects(docs_site, page, name):
    assert f'id="{name}"' in (docs_site / "docs" / "api" / f"{page}.html").read_text()


def test_every_link_between_the_pages_resolves(docs_site):
    pages = [
        p for p in docs_site.rglob("*.html") if p.relative_to(docs_site).parts[0][0] not in "._"
    ]
    anchors = {p: set(re.findall(r'\bid="([^"]+)"', p.read_text())) for p in pages}
    broken = []
    for page in pages:
        for url in attributes(page, "a", "href") + attributes(page, "img", "src"):
            if re.match(r"^[a-z][a-z0-9+.-]*:", url, re.I):  # http:, mailto:, data:
                continue
            target = resolve(page, url)
            fragment = unquote(url.partition("#")[2])
            if not target.exists():
                broken.append(f"{page.relative_to(docs_site)}: {url} (no file)")
            elif fragment and target.suffix == ".html" and fragment not in anchors.get(target, ()):
                broken.append(f"{page.relative_to(docs_site)}: {url} (no anchor)")
    assert len(pages) > 30
    assert broken == []


def test_the_top_of_the_site_opens_the_root_page(docs_site):
    index = (docs_site / "index.html").read_text()
    target = re.search(r'url=([^"]+)"', index).group(1)
    assert target == "docs/index.html" and (docs_site / target).is_file()


def test_every_public_name_on_the_api_pages_has_a_docstring():
    check = _api_docstrings()
    modules = check.api_modules(ROOT / "docs" / "api")
    assert "ppdp.mechanisms.mst" in modules and len(modules) > 20
    problems = [p for m in modules for p in check.undocumented(m)]
    exempt = runpy.run_path(str(ROOT / "docs" / "conf.py"))["api_docstrings_exempt"]
    assert sorted(p.split(" ", 1)[0] for p in problems) == sorted(exempt), problems


def test_the_docstring_check_catches_an_undocumented_name(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(
        "from .inner import DOCUMENTED, UNDOCUMENTED, Plain, Record, documented, plain\n"
        "__all__ = ['DOCUMENTED', 'UNDOCUMENTED', 'Plain', 'Record', 'documented', 'plain']\n"
    )
    (tmp_path / "pkg" / "inner.py").write_text(
        textwrap.dedent('''
        from dataclasses import dataclass

        #: A constant with its comment.
        DOCUMENTED = 1
        UNDOCUMENTED = 2

        @dataclass
        class Record:
            x: int

        class Plain:
            pass

        def documented():
            """Has one."""

        def plain():
            pass
        ''')
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    problems = _api_docstrings().undocumented("pkg")
    assert [p.split(" ", 1)[0] for p in problems] == [
        "pkg.UNDOCUMENTED",
        "pkg.Plain",
        "pkg.Record",
        "pkg.plain",
    ]


def test_the_api_index_lists_every_mechanism_with_its_guarantee(docs_site, monkeypatch):
    """One row per concrete mechanism: a link to its class, its ``guarantee`` sentence and its
    ``repetition``."""
    monkeypatch.syspath_prepend(str(ROOT / "docs" / "_ext"))
    from mechanism_guarantees import mechanisms

    page = (docs_site / "docs" / "api" / "index.html").read_text()
    table = page[page.index('class="mechanism-guarantees') :].split("</table>", 1)[0]
    rows = table.split("<tr")[2:]  # the header row first
    found = mechanisms()
    assert len(found) >= 9 and len(rows) == len(found)
    for cls in found:
        row = next((r for r in rows if re.search(rf'href="[^"]*\.{cls.__name__}"', r)), None)
        assert row is not None, f"no linked row for {cls.__name__}"
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", row)).split())
        stated = " ".join(cls.guarantee.replace("``", "").split())
        assert stated.replace("'", "\u2019") in text.replace("'", "\u2019"), cls.__name__
        assert text.endswith(cls.repetition), f"{cls.__name__}: no repetition in its row"


# ----------------------------------------------------------------------------------------------
# A real browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
browser = pytest.mark.skipif(
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


@browser
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
    pil_image = pytest.importorskip("PIL.Image")
    with pil_image.open(shot) as image:
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


@browser
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
