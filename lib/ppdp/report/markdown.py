"""The report's Markdown: the verdict figures, a narrow table per paper and each claim's details
(:func:`render`), and the benchmark's section (:func:`render_benchmark`)."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd

from ppdp.experiments.common import read_results
from ppdp.report.claims import CAUSES, Claim, _fmt, _is_interval, fill_summary
from ppdp.report.deciding import seeds_to_decide
from ppdp.report.figures import _benchmark_figure_names, _swept_datasets
from ppdp.report.overview import MARGIN_LIMIT, OVERVIEW_NAME, SCALE_TEXT, Overview
from ppdp.report.provenance import _cell
from ppdp.report.verdicts import AMBIGUOUS, UNSTABLE, VERDICTS, cause_counts

__all__ = ["PAPER_TITLES", "TABLE_HEADER", "claim_anchor", "render", "render_benchmark"]

#: The header of each paper's table: four narrow columns, the rest in each claim's details.
TABLE_HEADER = "| claim | published | measured | verdict |"
#: Beside the verdict of a claim that claims.yaml marks unstable.
MARKED = "†"
#: The mark, beside a verdict, of a claim whose verdict a deciding profile gave.
DECIDED = "‡"

PAPER_TITLES = {
    "datasets": "Datasets",
    "hyobscure": "HyObscure (hybrid generalization + obfuscation)",
    "mutual_cover": "Mutual Cover (random output tables)",
    "sppm": "SPPM (sparse privacy-preserving mappings)",
    "imposter": "IMPOSTER (implicit privacy, VAE-GAN)",
    "relay_chains": "Relay chains (increasing privacy along a path)",
}


def render(
    claims: list[Claim],
    table: pd.DataFrame,
    *,
    profile: str,
    figures_dir: str | os.PathLike | None = None,
    output: str | os.PathLike | None = None,
    provenance: list[str] | None = None,
    extra: list[str] | None = None,
    summaries: dict[str, str] | None = None,
    overview: Overview | None = None,
    decides: Mapping[str, Any] | None = None,
) -> str:
    """The report's Markdown.

    The report opens with the verdict figure of every claim (``overview``), then per paper its
    figure, a table of four narrow columns (claim, published, measured, verdict) whose claim links
    to the claim's details, and the details: a heading per claim (:func:`claim_anchor`) with where,
    statement, check, measured value with its number of values, verdict, the values over the
    unstated settings, the cause, figure and note.

    Parameters
    ----------
    claims, table
        The claims and :func:`ppdp.report.verdicts.evaluate`'s table of them.
    profile
        The profile's name, in the title.
    figures_dir
        The folder of the runs' figures (``<run>/<figure>.png``) that claims link.
    output
        The report's path: links are relative to its folder.
    provenance
        The lines of :func:`ppdp.report.provenance.render_provenance`.
    extra
        Sections after the papers' (the benchmark's, :func:`render_benchmark`).
    summaries
        Per paper, the paragraph that opens its section
        (:func:`ppdp.report.claims.load_summaries`).
    overview
        The verdict figures (:func:`ppdp.report.overview.write_overview`); none without it.
    decides
        A deciding profile's ``decides`` (:mod:`ppdp.report.deciding`): the report says which
        profile's claims it decides, and which.

    Claims that a deciding profile decided (``table``'s ``decided_by``, from
    :func:`ppdp.report.deciding.apply_decided`) show its verdict, marked :data:`DECIDED`, and
    their details this profile's own.
    """
    by_id = {c.id: c for c in claims}
    base = Path(output).parent if output else Path(".")
    counts = table["verdict"].value_counts().reindex([*VERDICTS, UNSTABLE, AMBIGUOUS], fill_value=0)
    lines = [
        f"# Reproduction report: profile `{profile}`",
        "",
        "Each paper's section sets its published claims beside the values measured by this "
        "compendium's pipeline for this profile: a table (claim, published value, measured value, "
        "verdict), then each claim's details under its own heading (the table's claim links "
        "there): where the paper states it, the statement, the *check* (the rule that decides the "
        "verdict), the number *n* of measured values, and why a claim is not reproduced. "
        "*Measured* is the mean over the run's seeds with its 95% interval in brackets: the "
        "experiment's own (a bootstrap over seeds) or a t-interval over the *n* values. A check "
        "marked *whole interval* holds only if the entire interval is on the claimed side, i.e. the "
        "ordering is stable across seeds. Smaller profiles run fewer seeds on smaller data, so "
        "their verdicts are indicative only.",
        "",
        "Summary: "
        + ", ".join(
            f"{counts[v]} {v}"
            for v in (*VERDICTS, UNSTABLE, AMBIGUOUS)
            if v in VERDICTS or counts[v]
        )
        + f" (of {len(table)} claims).",
        "",
    ]
    if overview and OVERVIEW_NAME in overview.paths:
        link = _relpath(overview.paths[OVERVIEW_NAME], base)
        drawn = int(table["measured"].notna().sum())
        lines += [
            _image("Every claim's margin to its check, by paper, coloured by verdict", link),
            "",
            f"*Where the papers stand.* {SCALE_TEXT} Drawn: the {drawn} claims with a measured "
            f"value; {overview.clipped} of them reach beyond ±{MARGIN_LIMIT:g} (mark, interval "
            "or range) and are drawn to the edge. Each paper's section opens with the same figure of its claims, "
            "a row each.",
            "",
        ]
    if decides is not None:
        lines += [
            f"This is a *deciding profile* of profile `{decides['profile']}`: it reruns the runs "
            f"below with that profile's parameters but {_names(decides.get('differs_in', []))}, "
            f"and judges their claims. It decides {len(decides['claims'])} claims, whose verdicts "
            f"(verdicts.csv, beside this report) the report of `{decides['profile']}` shows: "
            + ", ".join(f"`{cid}`" for cid in decides["claims"])
            + ".",
            "",
        ]
    decided = _decided(table)
    if len(decided):
        deciders = ", ".join(f"`{name}`" for name in dict.fromkeys(decided["decided_by"]))
        changed = int((decided["verdict"] != decided["own_verdict"]).sum())
        lines += [
            f"{len(decided)} claims ({DECIDED}) are decided by a deciding profile ({deciders}), "
            "which reran their runs with this profile's parameters but those it names (more "
            "seeds): their verdict, measured value and interval are that profile's, counted "
            "above; their "
            f"details give this profile's own. {changed} of them have another verdict here.",
            "",
        ]
    marked = [c.id for c in claims if c.cause and c.cause.kind == "unstable"]
    if marked:
        lines += [
            f"{len(marked)} claims are marked *unstable* in claims.yaml: their verdicts differed "
            "between kernel settings or clusterings of this profile, so this run's verdict on them "
            "decides nothing; their details give the runs: "
            + ", ".join(f"`{cid}`" for cid in marked)
            + ".",
            "",
        ]
    if counts[AMBIGUOUS]:
        lines += [
            f"{counts[AMBIGUOUS]} claims are *ambiguous*: the paper leaves a setting unstated, and "
            "the verdict differs over its plausible values (each claim's details give the value "
            "measured at each of them, *across*, and say which setting and why that range).",
            "",
        ]
    if counts[UNSTABLE]:
        lines += [
            f"{counts[UNSTABLE]} claims are *unstable*: reproduced in one of two runs of this "
            f"profile and not in the other ({table.attrs.get('compare', 'the compared run')}); "
            "neither run decides them.",
            "",
        ]
    elif "compare" in table.attrs:
        lines += [
            f"Runs again under other CPU kernels (`{table.attrs['compare']}`): each of the "
            f"{table.attrs.get('compared', 0)} claims judged in both gets the same verdict in "
            "both.",
            "",
        ]
    if counts["not reproduced"]:
        by_cause = cause_counts(table)
        lines += [
            "Not reproduced, by cause: "
            + ", ".join(f"{by_cause[k]} {k}" for k in (*CAUSES, "no cause given") if by_cause[k])
            + ". Each one's details give its reason (*why*) and the claims, notebook sections or "
            "benchmarks that show it: *protocol* (the authors ran something other than the "
            "paper says), *data* (our data or encoding differs), *budget* (fewer seeds, epochs or "
            "steps than the paper), *ambiguous* (the wording admits several readings, each judged), "
            "*refuted* (none of these explains it), *unstable* (the verdict differs between kernel "
            "settings, thread counts or clusterings).",
            "",
        ]
    if counts["not yet run"]:
        lines += [
            f"**Warning:** {counts['not yet run']} claims are not yet run: this report is partial.",
            "",
        ]
    lines += [f"**Warning:** {_cell(note)}" + "\n" for note in table.attrs.get("warnings", [])]
    lines += provenance or []
    for paper, block in table.groupby("paper", sort=False):
        title = PAPER_TITLES.get(paper, paper)
        lines += [f"## {title}", ""]
        if overview and paper in overview.paths:
            link = _relpath(overview.paths[paper], base)
            alt = f"The claims of {_cell(title)}: the margin of each to its check"
            lines += [_image(alt, link), ""]
        if summaries and paper in summaries:
            lines += [fill_summary(summaries[paper], claims, table), ""]
        lines += [TABLE_HEADER, "|---|---|---|---|"]
        marked_here = decided_here = False
        for row in block.itertuples(index=False):
            claim = by_id[row.id]
            marked = claim.cause is not None and claim.cause.kind == "unstable"
            marked_here = marked_here or marked
            was_decided = bool(getattr(row, "decided_by", ""))
            decided_here = decided_here or was_decided
            cells = [
                f"[`{row.id}`](#{claim_anchor(row.id)})",
                _cell(_published(claim)),
                _measured(claim, row),
                row.verdict
                + (f" {MARKED}" if marked else "")
                + (f" {DECIDED}" if was_decided else ""),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        if marked_here:
            lines += [
                "",
                f"{MARKED} marked *unstable* in claims.yaml: this run's verdict decides nothing "
                "(its details give the runs).",
            ]
        if decided_here:
            lines += [
                "",
                f"{DECIDED} decided by a deciding profile: its verdict and measurement (the "
                "details give this profile's own).",
            ]
        lines += ["", f"### {title}: the claims in detail", ""]
        for row in block.itertuples(index=False):
            deciding = decides is not None and row.id in decides["claims"]
            lines += _details(by_id[row.id], row, figures_dir, base, deciding)
    lines += extra or []
    return "\n".join(lines)


def render_benchmark(
    results_dir: str | os.PathLike,
    *,
    figures_dir: str | os.PathLike | None,
    base: Path,
    run: str = "benchmark",
    thresholds: Iterable[float] | None = None,
) -> list[str]:
    """The report's *Benchmark* section: the threat models, and per dataset the leaderboard of
    each private attribute (in long form: a row per mechanism and best level, six narrow
    columns), the columns each mechanism leaves untouched and links to the privacy-utility
    planes; then the time per mechanism (no claims are judged). Empty if the run has no CSV."""
    from ppdp.experiments.benchmark.claims import coverage_table, time_table
    from ppdp.experiments.benchmark.data import load_roles, load_threat_models
    from ppdp.experiments.benchmark.leaderboard import RISK_THRESHOLDS, leaderboard

    csv_path = Path(results_dir) / f"{run}.csv"
    if not csv_path.exists():
        return []
    thresholds = tuple(RISK_THRESHOLDS if thresholds is None else thresholds)
    frame = read_results(csv_path)
    seeds = sorted(set(frame.loc[frame["seed"] >= 0, "seed"]))
    lines = [
        "## Benchmark (every mechanism, the same data and attackers)",
        "",
        "No published claim is judged here. Every mechanism that fits a dataset releases it at a "
        "few privacy levels; one attacker suite and one utility suite score every release "
        f"(notebook `benchmark`, {len(seeds)} seeds, each with its own subsample and a 40/40/20 "
        "split into released people, the attacker's auxiliary records and controls).",
        "",
        "Threat models. Every targeted attacker targets a person known to be in the release, "
        "knows the target's true quasi-identifiers and wants the target's private value; it is "
        "scored on released targets and, with the same attack, on controls outside the release. "
        "Risk is what an individual loses beyond the population: an attacker's advantage is its "
        "AUC on the targets minus that of the no-release baseline, its gap that advantage minus "
        "the same on the controls, and its tail the excess over the baseline in TPR at 1% and "
        "0.1% FPR and in the share of targets whose value it infers with posterior >= 0.99. A "
        "release's risk on each measure is the worst attacker's, averaged over seeds without a "
        "floor at 0. Membership attacks (distance to the closest released record, and a shadow "
        "model trained on the mechanism's releases of auxiliary records) score every release; "
        "they gate the releases that do not keep records, as a release that keeps records "
        "publishes one row per member by construction.",
        "",
        "| attacker | knows | wants |",
        "|---|---|---|",
        *(
            f"| {name} | {_cell(model['knows'])} | {_cell(model['wants'])} |"
            for name, model in load_threat_models().items()
        ),
        "",
        "Utility is what the population keeps: the AUC, on real people outside the release, "
        "of XGBoost trained on the release to predict the private attribute from the "
        "quasi-identifiers. A release that scrambles, permutes or suppresses the attribute "
        "scores the floor of 0.5 (`nothing`), the unprotected table the ceiling. Each leaderboard "
        "row is a mechanism's best population AUC among its levels that gain over the floor "
        "(the lower end of the AUC's 95% interval over seeds above 0.5) and whose every risk "
        "measure (average and tail; membership for releases without records) has the upper "
        "end of its 95% interval under the threshold (*risk ≤*), with the utility's half-width, "
        "the level, the largest upper end (*risk bound*) and the measure and attacker that set "
        "it; one row stands for every threshold under which the same level is the best, and a "
        "threshold missing from a mechanism's rows has no qualifying level. The income task, "
        "the count workload and the marginals are secondary utilities, in the notebook. `none` "
        "is the unprotected table, `suppressed` the private columns suppressed, `nothing` "
        "nothing released. On MovieLens the HyObscure "
        "family protects age, the other mechanisms gender.",
        "",
    ]
    for experiment in sorted({e for e in frame["experiment"] if e.startswith("benchmark_")}):
        dataset = experiment.removeprefix("benchmark_")
        lines += [f"### {dataset}", ""]
        for private in load_roles()[dataset]["private"]:
            board = leaderboard(frame, dataset, private=private, thresholds=thresholds)
            if board.empty:
                continue
            lines += [f"Attacker's target: `{private}`.", ""]
            lines += _leaderboard_lines(board)
        coverage = coverage_table(frame)
        coverage = coverage[(coverage["dataset"] == dataset) & (coverage["untouched"] != "")]
        if len(coverage):
            lines += [
                "Columns left exactly as they were at every level (not protected by the "
                "mechanism's model): "
                + "; ".join(f"{r.mechanism}: {r.untouched}" for r in coverage.itertuples())
                + ".",
                "",
            ]
        links = []
        for fig in _benchmark_figure_names(dataset, sized=dataset in _swept_datasets(frame)):
            if figures_dir is not None:
                target = Path(figures_dir) / run / f"{fig}.png"
                links.append(f"[{fig}]({_relpath(target, base)})")
        if links:
            lines += ["Figures: " + ", ".join(links) + "."]
        lines.append("")
    times = time_table(frame)
    lines += [
        "Mean seconds of fit and release per mechanism, and of a release's evaluation (its "
        "attacks and measures):",
        "",
    ]
    lines += [
        "| dataset | mechanism | mean s | max s | releases | evaluation s |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.dataset} | {r.method} | {r.mean_seconds:.2f} | {r.max_seconds:.2f} | {r.releases} "
        f"| {_seconds_or_dash(r.mean_evaluation_seconds)} |"
        for r in times.itertuples(index=False)
    ]
    lines.append("")
    return lines


def _seconds_or_dash(value: float) -> str:
    """Seconds to two decimals; a dash where a run did not record them."""
    return "–" if pd.isna(value) else f"{value:.2f}"


#: A leaderboard cell of :func:`ppdp.experiments.benchmark.claims.leaderboard`.
_CELL = re.compile(
    r"^(?P<utility>\S+)(?: ± (?P<spread>\S+))? \(level (?P<level>[^;]+); "
    r"risk <= (?P<bound>[^,)]+)(?:, (?P<attacker>[^)]+))?\)$"
)


def _leaderboard_lines(board: pd.DataFrame) -> list[str]:
    """A leaderboard in long form, narrow enough for a page: a row per mechanism and best level,
    with the thresholds under which that level is the best (the cells of one mechanism that are
    the same at several thresholds make one row), and a sentence for the mechanisms without any
    qualifying level."""
    thresholds = [c for c in board.columns if c != "mechanism"]
    rows, none = [], []
    for record in board.to_dict("records"):
        cells: dict[str, list[str]] = {}
        for column in thresholds:
            if record[column]:
                cells.setdefault(str(record[column]), []).append(column.removeprefix("risk<="))
        if not cells:
            none.append(f"`{record['mechanism']}`")
        for cell, under in cells.items():
            match = _CELL.match(cell)
            if match is None:  # a cell of another shape: shown whole
                parts = [_cell(cell), "", "", ""]
            else:
                utility = match["utility"] + (f" ± {match['spread']}" if match["spread"] else "")
                parts = [utility, match["level"], match["bound"], match["attacker"] or ""]
            rows.append(
                f"| {record['mechanism']} | {', '.join(under)} | " + " | ".join(parts) + " |"
            )
    lines = []
    if rows:
        lines = [
            "| mechanism | risk ≤ | population AUC | level | risk bound | bound by |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    if none:
        lines += [
            "No level qualifies under any threshold ("
            + ", ".join(t.removeprefix("risk<=") for t in thresholds)
            + "): "
            + ", ".join(none)
            + ".",
            "",
        ]
    return lines


def claim_anchor(claim_id: str) -> str:
    """The anchor of a claim's details heading (``#### `<id>```), as GitHub and MyST
    (``myst_heading_anchors``) both derive it from the heading's text: lower case, spaces as
    hyphens, every character but letters, digits, ``_`` and ``-`` dropped.

    Examples
    --------
    >>> claim_anchor("relay_chains.fig2_optionI_unit_cost")
    'relay_chainsfig2_optioni_unit_cost'
    """
    return re.sub(r"[^\w\- ]", "", claim_id.lower().replace(" ", "-"))


def _published(claim: Claim) -> str:
    unit = f" {claim.unit}" if claim.unit else ""
    if isinstance(claim.published, int | float):
        return f"{claim.published}{unit}"
    return str(claim.published)


def _measured(claim: Claim, row) -> str:
    """The measured mean with its unit and 95% interval (a dash when there is none)."""
    unit = f" {claim.unit}" if claim.unit else ""
    if math.isnan(row.measured):
        return "—"
    out = f"{_fmt(row.measured)}{unit}"
    if _is_interval(row.ci_low, row.ci_high):
        out += f" [{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"
    return out


def _details(claim: Claim, row, figures_dir, base: Path, deciding: bool = False) -> list[str]:
    """A claim's details block: its heading (the table links to it) and a short list; in a
    deciding profile's report (``deciding``), how many values would decide a claim it leaves
    open (:func:`ppdp.report.deciding.seeds_to_decide`)."""
    lines = [f"#### `{claim.id}`", "", f"{_cell(row.where)}: {_cell(row.statement)}", ""]
    items = [
        f"**check**: {row.check}",
        f"**measured**: {_measured(claim, row)} (n = {row.n})",
        "**verdict**: "
        + (row.verdict if not row.detail else f"{row.verdict} ({_cell(row.detail)})"),
    ]
    if getattr(row, "decided_by", ""):
        own = SimpleNamespace(
            measured=row.own_measured, ci_low=row.own_ci_low, ci_high=row.own_ci_high
        )
        verdict = row.own_verdict + (f" ({_cell(row.own_detail)})" if row.own_detail else "")
        items.append(
            f"**decided by**: profile {_cell(row.decided_by)}, whose measurement and verdict "
            f"these are; this profile's own: {_measured(claim, own)} (n = {row.own_n}), {verdict}"
        )
    # the seeds the interval rests on: its rows, or the run's n_seeds for an interval the run
    # computed over them (ppdp.report.build._with_seeds)
    seeds = getattr(row, "seeds", row.n)
    if deciding and claim.check.op != "approx" and math.isfinite(seeds):
        needed = seeds_to_decide(
            claim.check.value, row.measured, row.ci_low, row.ci_high, int(seeds)
        )
        if needed is not None:
            items.append(
                f"**still open**: the interval spans the threshold {_fmt(claim.check.value)}; "
                f"at the measured spread about {needed} seeds (now {int(seeds)}) would end it on "
                "one side (the interval's arm towards it shrinks as 1/√n)"
            )
    if getattr(row, "across", ""):
        items.append(f"**across the unstated settings**: {_cell(row.across)}")
    # an unstable claim's cause stands beside whichever verdict this run gave it
    if claim.cause and (
        row.verdict in ("not reproduced", AMBIGUOUS) or claim.cause.kind == "unstable"
    ):
        items.append(f"**why**: {_cell(claim.cause.describe())}")
    if claim.figure and figures_dir is not None:
        target = Path(figures_dir) / claim.run / f"{claim.figure}.png"
        items.append(f"**figure**: [{claim.figure}]({_relpath(target, base)})")
    if claim.note:
        items.append(f"**note**: {_cell(claim.note)}")
    return lines + [f"- {item}" for item in items] + [""]


def _decided(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of claims that a deciding profile decided (none without ``decided_by``)."""
    if "decided_by" not in table.columns:
        return table.iloc[:0]
    return table[table["decided_by"] != ""]


def _names(names) -> str:
    return ", ".join(f"`{name}`" for name in names) or "none"


def _image(alt: str, link: str) -> str:
    """An image that links to itself: shown at the page's width, opened at full size."""
    return f"[![{alt}]({link})]({link})"


def _relpath(target: Path, base: Path) -> str:
    return Path(os.path.relpath(target, base)).as_posix()
