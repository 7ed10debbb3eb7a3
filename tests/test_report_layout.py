"""The report's layout: a verdict figure on top, narrow tables, a details block per claim.

A reader takes the report in at a glance: the overview figure places every claim on one scale (its
margin to the check's boundary, positive on the claim's side), each paper's table has four narrow
columns, and everything else about a claim sits under its own heading, which the table links to by
the anchor GitHub and MyST both derive from the heading.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from myst_parser.slugs import github_slugify, unique_slug

from ppdp.experiments.common import tidy_rows, write_results
from ppdp.report import build_report, evaluate, load_claims
from ppdp.report.markdown import _leaderboard_lines
from ppdp.report.overview import (
    MARGIN_LIMIT,
    claim_margins,
    margin,
    plot_overview,
    plot_paper,
)

ROOT = Path(__file__).resolve().parents[1]
#: The narrow table of every paper, written out here rather than taken from the module.
NARROW_HEADER = "| claim | published | measured | verdict |"


def _claim(cid, paper="p", op=">=", value=1.0, **check):
    return {
        "id": cid,
        "paper": paper,
        "notebook": "nb",
        "where": "Fig. 1",
        "statement": f"the statement of {cid}",
        "published": value,
        "check": {"op": op, "value": value, **check},
    }


def _report(tmp_path, *, figures=True, publish=None, out=None):
    """A report of two papers, seven claims of every check kind, one of them far off the scale,
    one ambiguous, one marked unstable, one with a figure and a note."""
    entries = [
        {**_claim("p.ge", op=">=", value=2.0), "figure": "fig1", "note": "a note"},
        _claim("p.lt", op="<", value=0.5),
        _claim("p.eq", op="==", value=1),
        _claim("p.approx", op="approx", value=10.0, rel_tol=0.1),
        {
            **_claim("p.far", op="<=", value=1.0),
            "cause": {"kind": "refuted", "why": "it is far", "evidence": ["p.ge"]},
        },
        {
            **_claim("q.Mixed_Case.id", paper="q", op=">", value=0.0),
            "cause": {"kind": "unstable", "why": "kernels differ", "evidence": ["p.ge"]},
        },
        {
            **_claim("q.amb", paper="q", op="<=", value=0.02),
            "cause": {"kind": "ambiguous", "why": "m is unstated", "evidence": ["p.ge"]},
        },
    ]
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"n_claims": len(entries), "claims": entries}, sort_keys=False))
    results = tmp_path / "results"
    rows = []
    for seed, shift in enumerate((0.0, 0.1, -0.1)):
        values = {
            "p.ge": 3.0 + shift,
            "p.lt": 0.9 + shift,
            "p.eq": 1.0,
            "p.approx": 10.5 + shift,
            "p.far": 500.0 + shift,
            "q.Mixed_Case.id": 0.4 + shift,
        }
        rows += tidy_rows("claims", "", values, seed=seed)
    rows += tidy_rows("claims", "", {"q.amb": 0.041}, seed=0)
    for m, value in ((4, 0.012), (8, 0.058)):
        rows += tidy_rows("claims", "", {"q.amb.across": value}, parameters={"m": m})
    write_results(rows, results / "nb.csv")
    figures_dir = tmp_path / "figures"
    (figures_dir / "nb").mkdir(parents=True, exist_ok=True)
    from PIL import Image

    Image.new("RGB", (40, 30), "white").save(figures_dir / "nb" / "fig1.png")
    out = out or tmp_path / "reports" / "reproduction.md"
    table = build_report(
        path,
        results,
        out,
        profile="t",
        figures_dir=figures_dir if figures else None,
        runs=["nb"],
        complete=True,
        publish_figures=publish,
    )
    return table, out.read_text(), figures_dir


def _tables(text):
    """Each Markdown table of ``text``: its lines."""
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return tables + ([current] if current else [])


def _cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_every_papers_table_is_the_narrow_one(tmp_path):
    table, text, _ = _report(tmp_path)
    claim_tables = [t for t in _tables(text) if "claim" in t[0]]
    assert len(claim_tables) == 2  # one per paper
    for lines in claim_tables:
        assert lines[0] == NARROW_HEADER
        assert all(len(_cells(line)) == 4 for line in lines), lines
    rows = {_cells(line)[0]: _cells(line) for t in claim_tables for line in t[2:]}
    assert len(rows) == len(table)
    # the verdict is short; the details carry the long part
    amb = next(cells for link, cells in rows.items() if "`q.amb`" in link)
    assert amb[3] == "ambiguous" and "(" not in amb[3]
    assert amb[2] == "0.041"  # no across list in the table
    assert "m = 4: 0.012" in text  # ... it is in the details
    # the measured value keeps its interval
    ge = next(cells for link, cells in rows.items() if "`p.ge`" in link)
    assert re.fullmatch(r"3 \[[\d.]+, [\d.]+\]", ge[2]), ge[2]
    # a claim marked unstable is flagged beside its verdict
    marked = next(cells for link, cells in rows.items() if "`q.Mixed_Case.id`" in link)
    assert marked[3].startswith("reproduced") and marked[3] != "reproduced"


def test_every_claim_has_one_details_heading_and_one_link_to_it(tmp_path):
    table, text, _ = _report(tmp_path)
    # the anchors as MyST (myst_heading_anchors) computes them from each heading in turn,
    # GitHub-style; a slug taken twice would get a "-1" and break the link
    slugs: dict[str, str] = {}
    for line in text.splitlines():
        heading = re.match(r"^(#{1,6}) (.*)$", line)
        if heading:
            title = heading.group(2).replace("`", "")
            slugs.setdefault(title, unique_slug(github_slugify(title), set(slugs.values())))
    links = re.findall(r"\]\(#([^)]+)\)", text)
    for cid in table["id"]:
        assert text.count(f"\n#### `{cid}`\n") == 1, cid
        anchor = slugs[cid]
        assert links.count(anchor) == 1, (cid, anchor)
        assert f"[`{cid}`](#{anchor})" in text
    assert len(links) == len(table)
    # every level-4 heading sits under a level-3 one (MyST warns on a skipped level)
    levels = [len(m) for m in re.findall(r"^(#+) ", text, flags=re.M)]
    assert all(b <= a + 1 for a, b in itertools.pairwise(levels)), levels


def test_the_details_hold_everything_the_table_leaves_out(tmp_path):
    _, text, _ = _report(tmp_path)
    far = text.split("\n#### `p.far`\n", 1)[1].split("\n#### ", 1)[0]
    assert "Fig. 1: the statement of p.far" in far
    assert "- **check**: <= 1" in far
    assert "- **measured**: 500 [" in far and "(n = 3)" in far
    assert "- **why**: **refuted**: it is far" in far
    ge = text.split("\n#### `p.ge`\n", 1)[1].split("\n#### ", 1)[0]
    assert "- **figure**: [fig1](../figures/nb/fig1.png)" in ge
    assert "- **note**: a note" in ge
    amb = text.split("\n#### `q.amb`\n", 1)[1].split("\n#### ", 1)[0]
    assert "- **across the unstated settings**: m = 4: 0.012; m = 8: 0.058" in amb
    assert "- **verdict**: ambiguous (fails at this profile's value, holds at m = 4)" in amb


def test_the_overview_figures_are_written_linked_and_deterministic(tmp_path):
    from PIL import Image

    _, text, figures = _report(tmp_path)
    folder = figures / "report"
    names = sorted(p.name for p in folder.glob("*.png"))
    assert names == ["overview.png", "p.png", "q.png"]
    first = {name: (folder / name).read_bytes() for name in names}
    # on top of the report: before the first paper's section
    top = text.index("(../figures/report/overview.png)")
    assert top < text.index("\n## p\n")
    # each paper's figure opens its section, before its table
    section = text.split("\n## q\n", 1)[1]
    assert section.index("(../figures/report/q.png)") < section.index(NARROW_HEADER)
    _report(tmp_path)
    for name in names:
        assert (folder / name).read_bytes() == first[name], f"{name} differs between two runs"
        with Image.open(folder / name) as image:
            assert "Software" not in image.info and not any("time" in k.lower() for k in image.info)
            assert image.width == 1110  # 7.4 in at 150 dpi: a page column at double density
    # no report figure without a figures folder
    _, text, _ = _report(tmp_path, figures=False, out=tmp_path / "bare.md")
    assert "overview.png" not in text


def test_published_report_figures_are_copied_and_kept(tmp_path):
    published = tmp_path / "reports" / "figures"
    (published / "report").mkdir(parents=True)
    (published / "report" / "stale.png").write_bytes(b"old")
    _, text, figures = _report(tmp_path, publish=published)
    copied = sorted(p.name for p in (published / "report").glob("*.png"))
    assert copied == ["overview.png", "p.png", "q.png"]
    for name in copied:
        assert (published / "report" / name).read_bytes() == (
            figures / "report" / name
        ).read_bytes()
    assert "[![" in text and "](figures/report/overview.png)" in text
    assert "(figures/report/p.png)" in text and "(figures/nb/fig1.png)" in text


# (op, threshold, measured, tolerance, expected margin): the margin worked out by hand from the
# definition in the report's caption
HAND_MARGINS = [
    (">=", 2.0, 3.0, None, 0.5),
    (">=", 2.0, 1.0, None, -0.5),
    (">", 0.0, -1.0, None, -1.0),  # a threshold of 0: the claim's own unit
    ("<=", 2.0, 3.0, None, -0.5),
    ("<", 4.0, 1.0, None, 0.75),
    ("<", -2.0, -1.0, None, -0.5),  # scaled by |x|
    ("==", 1.0, 1.0, None, 0.0),
    ("==", 1.0, 0.0, None, -1.0),
    ("approx", 10.0, 10.5, 0.1, 0.5),
    ("approx", 10.0, 8.0, 0.1, -1.0),
]


@pytest.mark.parametrize(("op", "threshold", "measured", "tol", "expected"), HAND_MARGINS)
def test_margin_by_hand(op, threshold, measured, tol, expected):
    from ppdp.report import Check

    check = Check(op, threshold, rel_tol=tol or 0.0)
    assert margin(check, measured) == pytest.approx(expected)


# every check kind, a value on each side of its boundary: (op, threshold, value, tolerance)
KIND_CASES = [
    (op, threshold, value, tol)
    for op, threshold, values, tol in [
        (">=", 2.0, (1.5, 2.0, 2.5, 40.0), 0.0),
        (">", 2.0, (1.5, 2.0, 2.5), 0.0),
        ("<=", 0.0, (-0.5, 0.0, 0.5), 0.0),
        ("<", 3.0, (1.0, 3.0, 5.0), 0.0),
        ("==", 7.0, (7.0, 6.0, 8.0), 0.0),
        ("approx", 10.0, (9.5, 10.0, 11.5, 8.0), 0.1),
    ]
    for value in values
]


@pytest.mark.parametrize(("op", "threshold", "value", "tol"), KIND_CASES)
def test_each_check_kind_lands_on_its_side_of_zero(tmp_path, op, threshold, value, tol):
    """The sign of the margin agrees with the verdict that :func:`evaluate` gives, for every check
    kind: reproduced on the holding side (at 0 only where the check admits its boundary), not
    reproduced on the other; the side is worked out here from the value and the threshold."""
    check = {"op": op, "value": threshold, **({"rel_tol": tol} if tol else {})}
    entry = {**_claim("p.x"), "check": check}
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [entry]}))
    write_results(tidy_rows("claims", "", {"p.x": value}), tmp_path / "r" / "nb.csv")
    claims = load_claims(path)
    table = evaluate(claims, tmp_path / "r")
    mark = claim_margins(claims, table)["margin"].iloc[0]
    holds = {
        ">=": value >= threshold,
        ">": value > threshold,
        "<=": value <= threshold,
        "<": value < threshold,
        "==": value == threshold,
        "approx": abs(value - threshold) <= tol * abs(threshold),
    }[op]
    assert (table["verdict"].iloc[0] == "reproduced") == holds
    if holds:
        assert mark >= 0
    else:
        assert mark < 0 or (mark == 0 and op in (">", "<"))
    # on the boundary exactly where the value is the threshold (or the tolerance's edge)
    on_edge = value == threshold if op != "approx" else abs(value - threshold) == tol * threshold
    assert (mark == 0) == (on_edge or (op == "==" and holds))


def test_an_interval_maps_around_its_mark(tmp_path):
    _, _, _ = _report(tmp_path)
    claims = load_claims(tmp_path / "claims.yaml")
    table = evaluate(claims, tmp_path / "results", runs=["nb"])
    frame = claim_margins(claims, table).set_index("id")
    for cid in ("p.ge", "p.lt", "p.approx"):
        low, mark, high = frame.loc[cid, ["low", "margin", "high"]]
        assert low <= mark <= high, cid
    # the approx margin peaks at the published value: an interval around it reaches 1
    assert frame.loc["p.approx", "high"] <= 1.0


#: The longest claim id of the compendium's claims: its label must fit a paper's figure.
LONGEST_ID = max((c.id for c in load_claims(ROOT / "claims.yaml")), key=len)


def _frame(margins, verdict="not reproduced"):
    n = len(margins)
    ids = [f"p.claim_{i}_with_a_long_identifier" for i in range(n)]
    ids[-1] = "p." + LONGEST_ID.partition(".")[2]
    return pd.DataFrame(
        {
            "id": ids,
            "paper": ["p"] * n,
            "verdict": [verdict] * n,
            "marked": [False] * n,
            "margin": margins,
            "low": [m - 0.1 for m in margins],
            "high": [m + 0.1 for m in margins],
            "across_low": [np.nan] * n,
            "across_high": [np.nan] * n,
        }
    )


@pytest.mark.parametrize("plot", [plot_paper, plot_overview], ids=["paper", "overview"])
def test_a_clipped_value_shows_a_marker_at_the_edge(plot):
    frame = _frame([0.3, 1000.0, -50.0, 0.0])
    fig, clipped = plot(frame)
    fig.canvas.draw()
    ax = fig.axes[0]
    marks = {
        artist.get_gid(): artist.get_xdata()[0]
        for artist in ax.get_lines()
        if (artist.get_gid() or "").startswith("clip:")
    }
    assert set(marks) == {
        "clip:p.claim_1_with_a_long_identifier",
        "clip:p.claim_2_with_a_long_identifier",
    }
    assert marks["clip:p.claim_1_with_a_long_identifier"] > MARGIN_LIMIT
    assert marks["clip:p.claim_2_with_a_long_identifier"] < -MARGIN_LIMIT
    assert clipped == 2
    # the triangles lie inside the figure, where a reader sees them
    width = fig.get_window_extent().width
    for artist in ax.get_lines():
        if (artist.get_gid() or "").startswith("clip:"):
            x, _ = ax.transData.transform((artist.get_xdata()[0], artist.get_ydata()[0]))
            assert 0 < x < width
    # the mark itself is drawn at the edge, not dropped
    xs = [line.get_xdata()[0] for line in ax.get_lines() if line.get_marker() == "X"]
    assert max(xs) == MARGIN_LIMIT and min(xs) == -MARGIN_LIMIT


def _overlaps(boxes):
    return [
        (i, j)
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if boxes[i].overlaps(boxes[j])
    ]


@pytest.mark.parametrize("n", [1, 12, 40])
def test_labels_do_not_overlap_and_stay_inside(n):
    frame = _frame(list(np.linspace(-2, 2, n)))
    frame.loc[: n // 2, "paper"] = "q"  # two papers for the overview
    for fig, _ in (plot_paper(frame), plot_overview(frame, {"p": "Paper P (long)", "q": "Q"})):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        width, height = fig.get_window_extent().width, fig.get_window_extent().height
        for ticks in (ax.get_yticklabels(), ax.get_xticklabels()):
            boxes = [t.get_window_extent(renderer) for t in ticks if t.get_text()]
            assert not _overlaps(boxes)
            for box in boxes:
                assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height
        # the fonts read at page width: at least 8 points
        assert min(t.get_fontsize() for t in ax.get_yticklabels()) >= 8


def test_the_leaderboard_is_long_and_keeps_every_number():
    board = pd.DataFrame(
        {
            "mechanism": ["a", "b", "c"],
            "risk<=0.02": [
                "0.771 ± 0.024 (level 1; risk <= 0.000, AUC advantage by baseline)",
                "",
                "",
            ],
            "risk<=0.05": [
                "0.771 ± 0.024 (level 1; risk <= 0.000, AUC advantage by baseline)",
                "0.870 ± 0.007 (level 5; risk <= 0.030, TPR at 1% FPR by class_matching_aux)",
                "",
            ],
        }
    )
    lines = _leaderboard_lines(board)
    assert lines[0] == "| mechanism | risk ≤ | population AUC | level | risk bound | bound by |"
    rows = [line for line in lines[2:] if line.startswith("|")]
    assert rows == [
        "| a | 0.02, 0.05 | 0.771 ± 0.024 | 1 | 0.000 | AUC advantage by baseline |",
        "| b | 0.05 | 0.870 ± 0.007 | 5 | 0.030 | TPR at 1% FPR by class_matching_aux |",
    ]
    assert "No level qualifies under any threshold (0.02, 0.05): `c`." in lines
    text = "\n".join(lines)
    for cell in board[["risk<=0.02", "risk<=0.05"]].to_numpy().ravel():
        for number in re.findall(r"\d+(?:\.\d+)?", cell):
            assert number in text


def test_report_text_explains_the_scale(tmp_path):
    _, text, _ = _report(tmp_path)
    caption = text.split("(../figures/report/overview.png)", 2)[2].split("\n\n", 2)[1]
    for phrase in ("(measured − x)/|x|", "1 − |measured − x|/t", "beyond ±10", "edge"):
        assert phrase in caption
    # the caption counts the clipped marks: p.far (500 against <= 1) lies beyond the edge
    assert re.search(r"\b1 of them reach beyond ±10\b", caption), caption
    assert Path(tmp_path / "figures" / "report" / "overview.png").stat().st_size > 10_000


def test_a_run_named_like_the_report_folder_is_refused(tmp_path):
    path = tmp_path / "claims.yaml"
    entry = {**_claim("p.a"), "notebook": "report"}
    path.write_text(yaml.safe_dump({"claims": [entry]}))
    write_results(tidy_rows("claims", "", {"p.a": 2.0}), tmp_path / "r" / "report.csv")
    with pytest.raises(ValueError, match="a run named 'report' would share its figures folder"):
        build_report(path, tmp_path / "r", tmp_path / "out.md", profile="t", figures_dir=tmp_path)
    assert not (tmp_path / "out.md").exists()
    # without figures there is nothing to share
    build_report(path, tmp_path / "r", tmp_path / "out.md", profile="t")
    assert (tmp_path / "out.md").exists()
