"""The report's Markdown: one table per paper (:func:`render`) and the benchmark's section
(:func:`render_benchmark`)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ppdp.experiments.common import read_results
from ppdp.report.claims import CAUSES, Claim, _fmt, _is_interval, fill_summary
from ppdp.report.figures import _benchmark_figure_names
from ppdp.report.provenance import _cell
from ppdp.report.verdicts import AMBIGUOUS, UNSTABLE, VERDICTS, cause_counts

__all__ = ["PAPER_TITLES", "render", "render_benchmark"]

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
) -> str:
    """Markdown report; figure links are relative to ``output``'s folder; ``provenance``: the
    lines of :func:`render_provenance`; ``extra``: sections after the papers' (the benchmark's,
    :func:`render_benchmark`); ``summaries``: per paper, the paragraph that opens its section
    (:func:`load_summaries`)."""
    by_id = {c.id: c for c in claims}
    counts = table["verdict"].value_counts().reindex([*VERDICTS, UNSTABLE, AMBIGUOUS], fill_value=0)
    lines = [
        f"# Reproduction report: profile `{profile}`",
        "",
        "Each row sets a paper's published claim beside the value measured by this compendium's "
        "pipeline for this profile. *Check* is the rule that decides the verdict; *measured* is the "
        "mean over the run's seeds (*n* values) with its 95% interval in brackets: the experiment's "
        "own (a bootstrap over seeds) or a t-interval over the *n* values. A check marked *whole "
        "interval* holds only if the entire interval is on the claimed side, i.e. the ordering is "
        "stable across seeds. Smaller profiles run fewer seeds on smaller data, so their verdicts "
        "are indicative only.",
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
    marked = [c.id for c in claims if c.cause and c.cause.kind == "unstable"]
    if marked:
        lines += [
            f"{len(marked)} claims are marked *unstable* in claims.yaml: their verdicts differed "
            "between kernel settings or clusterings of this profile, so this run's verdict on them "
            "decides nothing; the *why* column gives the runs: "
            + ", ".join(f"`{cid}`" for cid in marked)
            + ".",
            "",
        ]
    if counts[AMBIGUOUS]:
        lines += [
            f"{counts[AMBIGUOUS]} claims are *ambiguous*: the paper leaves a setting unstated, and "
            "the verdict differs over its plausible values (each value's measurement is shown "
            "after *across*, and the *why* column says which setting and why that range).",
            "",
        ]
    if counts[UNSTABLE]:
        lines += [
            f"{counts[UNSTABLE]} claims are *unstable*: reproduced in one of two runs of this "
            f"profile and not in the other ({table.attrs.get('compare', 'the compared run')}); "
            "neither run decides them.",
            "",
        ]
    if counts["not reproduced"]:
        by_cause = cause_counts(table)
        lines += [
            "Not reproduced, by cause: "
            + ", ".join(f"{by_cause[k]} {k}" for k in (*CAUSES, "no cause given") if by_cause[k])
            + ". The *why* column gives each one's reason and the claims, notebook sections or "
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
    base = Path(output).parent if output else Path(".")
    for paper, block in table.groupby("paper", sort=False):
        lines += [f"## {PAPER_TITLES.get(paper, paper)}", ""]
        if summaries and paper in summaries:
            lines += [fill_summary(summaries[paper], claims, table), ""]
        lines += [
            "| claim | where | statement | published | check | measured | n | verdict | why | "
            "figure |"
        ]
        lines += ["|---|---|---|---|---|---|---|---|---|---|"]
        for row in block.itertuples(index=False):
            claim = by_id[row.id]
            unit = f" {claim.unit}" if claim.unit else ""
            measured = "—" if math.isnan(row.measured) else f"{_fmt(row.measured)}{unit}"
            if _is_interval(row.ci_low, row.ci_high):
                measured += f" [{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"
            if getattr(row, "across", ""):
                measured += f"; across {row.across}"
            verdict = row.verdict if not row.detail else f"{row.verdict} ({row.detail})"
            link = ""
            if claim.figure and figures_dir is not None:
                target = Path(figures_dir) / claim.run / f"{claim.figure}.png"
                link = f"[{claim.figure}]({_relpath(target, base)})"
            published = (
                f"{claim.published}{unit}"
                if isinstance(claim.published, int | float)
                else str(claim.published)
            )
            cells = [
                f"`{row.id}`",
                row.where,
                _cell(row.statement),
                _cell(published),
                row.check,
                measured,
                str(row.n),
                verdict,
                # an unstable claim's cause stands beside whichever verdict this run gave it
                _cell(claim.cause.describe())
                if claim.cause
                and (row.verdict in ("not reproduced", AMBIGUOUS) or claim.cause.kind == "unstable")
                else "",
                link,
            ]
            lines.append("| " + " | ".join(cells) + " |")
        notes = [(c.id, c.note) for c in claims if c.paper == paper and c.note]
        if notes:
            lines += ["", "Notes:"]
            lines += [f"- `{cid}`: {_cell(note)}" for cid, note in notes]
        lines.append("")
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
    """The report's *Benchmark* section: the threat models, the leaderboard per dataset, the
    columns each mechanism leaves untouched, the time per mechanism and links to the
    privacy-utility planes (no claims are judged). Empty if the run has no CSV."""
    from ppdp.experiments.benchmark.claims import (
        RISK_THRESHOLDS,
        coverage_table,
        leaderboard,
        time_table,
    )
    from ppdp.experiments.benchmark.data import load_roles, load_threat_models

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
        "scored by AUC on released targets and, with the same attack, on controls outside the "
        "release. An attacker's advantage is its AUC on the targets minus that of the no-release "
        "baseline; the risk of a release is the largest advantage over the suite, and at least 0.",
        "",
        "| attacker | knows | wants |",
        "|---|---|---|",
        *(
            f"| {name} | {_cell(model['knows'])} | {_cell(model['wants'])} |"
            for name, model in load_threat_models().items()
        ),
        "",
        "Each leaderboard cell is the best task AUC (trained on the release with the private "
        "columns among its features, tested on held-out real rows) among a mechanism's levels "
        "whose risk interval lies under the threshold (the upper end of its 95% interval over "
        "seeds), with the utility's half-width, the level, that upper end and the attacker that "
        "bound it; empty where no level qualifies. `none` is the unprotected table, `suppressed` "
        "the private columns suppressed, `nothing` nothing released. On MovieLens the HyObscure "
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
            lines += ["| " + " | ".join(board.columns) + " |"]
            lines += ["|" + "---|" * len(board.columns)]
            lines += [
                "| " + " | ".join(_cell(str(v)) for v in row) + " |"
                for row in board.itertuples(index=False)
            ]
            lines.append("")
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
        for fig in _benchmark_figure_names(dataset):
            if figures_dir is not None:
                target = Path(figures_dir) / run / f"{fig}.png"
                links.append(f"[{fig}]({_relpath(target, base)})")
        if links:
            lines += ["Figures: " + ", ".join(links) + "."]
        lines.append("")
    times = time_table(frame)
    lines += ["Mean seconds of fit and release per mechanism:", ""]
    lines += ["| dataset | mechanism | mean s | max s | releases |", "|---|---|---|---|---|"]
    lines += [
        f"| {r.dataset} | {r.method} | {r.mean_seconds:.2f} | {r.max_seconds:.2f} | {r.releases} |"
        for r in times.itertuples(index=False)
    ]
    lines.append("")
    return lines


def _relpath(target: Path, base: Path) -> str:
    return Path(os.path.relpath(target, base)).as_posix()
