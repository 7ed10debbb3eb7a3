"""Links in README.md and docs/ resolve, and the README's summaries agree with the pages they summarize.

A link is checked when it is relative: its file must exist and, when it names an ``#anchor`` in a
Markdown file, one of that file's headings must give that anchor under GitHub's rules.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"
)
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans (links there are not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text, lower-cased, punctuation dropped, spaces to -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    found, seen = set(), {}
    for _, heading in HEADING.findall(text):
        base = slug(heading)
        n = seen.get(base, 0)
        found.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return found | set(HTML_ANCHOR.findall(text))


def links(page: Path) -> list[str]:
    text = prose(page.read_text())
    return INLINE_LINK.findall(text) + REFERENCE.findall(text)


def shown(file: Path) -> str:
    return str(file.relative_to(ROOT)) if file.is_relative_to(ROOT) else file.name


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / unquote(path)).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {shown(file)}")
        elif anchor and file.suffix == ".md" and unquote(anchor) not in anchors(file):
            broken.append(f"{target}: no heading in {shown(file)} gives #{anchor}")
    return broken


def test_the_pages_exist():
    assert (ROOT / "docs" / "index.md") in PAGES
    for page in PAGES[1:]:
        assert len(re.findall(r"^# ", FENCE.sub("", page.read_text()), flags=re.M)) == 1, (
            f"{page.name} has not exactly one H1"
        )


def test_the_index_lists_every_page():
    listed = set(links(ROOT / "docs" / "index.md"))
    for page in PAGES[1:]:
        if page.name != "index.md":
            assert page.name in listed, f"docs/index.md does not list {page.name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []


def test_the_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n## Its section: one (two)\n\n"
        "[ok](#its-section-one-two) [bad](#its-section) [gone](missing.md) `[code](nowhere.md)`\n"
    )
    assert [b.split(":")[0] for b in broken_links(page)] == ["#its-section", "missing.md"]


def section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def test_the_readme_summaries_agree_with_the_docs():
    """The README repeats a few numbers of docs/status.md, docs/install.md and docs/tests.md."""
    readme = (ROOT / "README.md").read_text()
    status = (ROOT / "docs" / "status.md").read_text()
    totals = r"(\d+) of (\d+)[^,]*?,\s+(\d+)\s+do\s+not\s+and\s+(\d+)\s+are\s+\*ambiguous\*"
    summary = section(readme, "## Reproduction status")
    assert re.search(totals, summary).groups() == re.search(totals, status).groups()

    rows = re.findall(r"^\| \[([^\]]+)\]\([^)]*\) \| (\d+) of (\d+) \|", summary, flags=re.M)
    assert len(rows) == 5
    for paper, reproduced, judged in rows:
        assert re.search(
            rf"^\| {re.escape(paper)} \| {reproduced} of {judged}\b", status, flags=re.M
        ), paper
    left_out = int(re.search(r"leave\s+out\s+the\s+(\d+)\s+checks", summary).group(1))
    reproduced_total, judged_total = (int(n) for n in re.search(totals, summary).groups()[:2])
    assert sum(int(r) for _, r, _ in rows) + left_out == reproduced_total
    assert sum(int(j) for _, _, j in rows) + left_out == judged_total

    timings = (ROOT / "docs" / "install.md").read_text() + (ROOT / "docs" / "tests.md").read_text()
    durations = re.findall(r"\d+\s+min\s+\d+\s+s", section(readme, "## Quick start"))
    assert len(durations) == 1
    for duration in durations:
        pattern = r"\s+".join(map(re.escape, duration.split()))
        assert re.search(pattern, timings), f"{duration} is not in docs/install.md or docs/tests.md"


def test_the_readme_is_a_front_door():
    """At most about 150 lines, with the own-table example on its first screen (first 60 lines)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150
    first_release = next(i for i, line in enumerate(lines, 1) if ".release(" in line)
    assert first_release <= 60
