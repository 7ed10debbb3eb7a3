"""The reproduction report: each paper's published claims beside the values this compendium measures.

``claims.yaml`` lists the claims. Each names the run whose tidy results hold the measured value (a row
with ``experiment == "claims"`` and ``metric`` equal to the claim's id) and a check that decides
whether the measured value reproduces the claim. The report is Markdown, one table per paper.

Every measured value comes with a 95% interval when the run gives one: the rows ``<id>.ci_low`` and
``<id>.ci_high`` written by the experiment (e.g. a bootstrap over seeds), otherwise a Student-t
interval over the claim's per-seed rows when there are at least two. A check with
``basis: interval`` holds only if the whole interval is on the claimed side (an ordering that is
stable across seeds); by default (``basis: mean``) the check applies to the measured mean.

Run it as ``python -m ppdp.report --claims claims.yaml --results results/default
--figures figures/default --profile default --output reports/default/reproduction.md``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from ppdp.experiments.common import read_results

OPS = (">=", "<=", ">", "<", "==", "approx")
INTERVAL_OPS = (">=", "<=", ">", "<")
CHECK_KEYS = ("op", "value", "rel_tol", "abs_tol", "basis")
VERDICTS = ("reproduced", "not reproduced", "not yet run")
REQUIRED_KEYS = ("id", "paper", "notebook", "where", "statement", "published", "check")
PAPER_TITLES = {
    "datasets": "Datasets",
    "hyobscure": "HyObscure (hybrid generalization + obfuscation)",
    "mutual_cover": "Mutual Cover (random output tables)",
    "sppm": "SPPM (sparse privacy-preserving mappings)",
    "imposter": "IMPOSTER (implicit privacy, VAE-GAN)",
    "relay_chains": "Relay chains (increasing privacy along a path)",
}


@dataclass(frozen=True)
class Check:
    """How a measured value is judged: ``value <op> threshold`` or approximately equal."""

    op: str
    value: float
    rel_tol: float = 0.0
    abs_tol: float = 0.0
    basis: str = "mean"

    def holds_interval(self, measured: float, low: float, high: float) -> bool:
        """The verdict: on the mean, or (``basis == "interval"``) on the interval's weaker end."""
        if self.basis == "mean":
            return self.holds(measured)
        if not (math.isfinite(low) and math.isfinite(high)):
            return False
        weak = low if self.op in (">=", ">") else high
        return self.holds(measured) and self.holds(weak)

    def holds(self, measured: float) -> bool:
        if not math.isfinite(measured):
            return False
        if self.op == ">=":
            return measured >= self.value
        if self.op == "<=":
            return measured <= self.value
        if self.op == ">":
            return measured > self.value
        if self.op == "<":
            return measured < self.value
        if self.op == "==":
            return measured == self.value
        # relative to the published value, not to the larger of the two as math.isclose does
        return abs(measured - self.value) <= max(self.rel_tol * abs(self.value), self.abs_tol)

    def describe(self) -> str:
        if self.op != "approx":
            text = f"{self.op} {_fmt(self.value)}"
            return text + " (whole interval)" if self.basis == "interval" else text
        tol = []
        if self.rel_tol:
            tol.append(f"{self.rel_tol:.0%}")
        if self.abs_tol:
            tol.append(f"{_fmt(self.abs_tol)}")
        return f"≈ {_fmt(self.value)} (± {' or '.join(tol)})"


@dataclass(frozen=True)
class Claim:
    """One quantitative or ordinal claim of a paper."""

    id: str
    paper: str
    notebook: str
    where: str
    statement: str
    published: Any
    check: Check
    run: str
    unit: str = ""
    figure: str | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)


def load_claims(path: str | os.PathLike) -> list[Claim]:
    """Read and validate ``claims.yaml``.

    Raises
    ------
    ValueError
        When an entry lacks a required key, repeats an id, or has an unknown check operator.
    """
    with open(path) as handle:
        raw = yaml.safe_load(handle) or {}
    entries = raw.get("claims", []) if isinstance(raw, dict) else raw
    if not isinstance(entries, list):
        raise ValueError(
            f"{path}: expected a list of claims under 'claims', got {type(entries).__name__}"
        )
    claims, seen = [], set()
    for position, entry in enumerate(entries):
        where = f"{path}: claim #{position + 1}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} must be a mapping, got {entry!r}")
        missing = [k for k in REQUIRED_KEYS if k not in entry]
        if missing:
            raise ValueError(f"{where} ({entry.get('id', '?')}) lacks the keys {missing}")
        if entry["id"] in seen:
            raise ValueError(f"{where}: the id {entry['id']!r} appears twice")
        seen.add(entry["id"])
        check = entry["check"]
        if not isinstance(check, dict) or check.get("op") not in OPS or "value" not in check:
            raise ValueError(
                f"{where} ({entry['id']}): check must be {{op: one of {OPS}, value: number}}, got {check!r}"
            )
        if check["op"] == "approx" and not (check.get("rel_tol") or check.get("abs_tol")):
            raise ValueError(f"{where} ({entry['id']}): an 'approx' check needs rel_tol or abs_tol")
        unknown = set(check) - set(CHECK_KEYS)
        if unknown:
            # YAML 1.1 reads a bare `on`/`yes`/`no` key as a boolean: catch that and typos alike
            raise ValueError(
                f"{where} ({entry['id']}): unknown check keys {sorted(map(str, unknown))}; "
                f"allowed: {CHECK_KEYS}"
            )
        basis = check.get("basis", "mean")
        if basis not in ("mean", "interval") or (
            basis == "interval" and check["op"] not in INTERVAL_OPS
        ):
            raise ValueError(
                f"{where} ({entry['id']}): check 'basis' must be 'mean', or 'interval' with one "
                f"of {INTERVAL_OPS}; got basis={basis!r} with op={check['op']!r}"
            )
        known = set(REQUIRED_KEYS) | {"unit", "figure", "note", "run"}
        claims.append(
            Claim(
                id=str(entry["id"]),
                paper=str(entry["paper"]),
                notebook=str(entry["notebook"]),
                where=str(entry["where"]),
                statement=str(entry["statement"]),
                published=entry["published"],
                check=Check(
                    op=check["op"],
                    value=float(check["value"]),
                    rel_tol=float(check.get("rel_tol", 0.0)),
                    abs_tol=float(check.get("abs_tol", 0.0)),
                    basis=basis,
                ),
                run=str(entry.get("run", entry["notebook"])),
                unit=str(entry.get("unit", "")),
                figure=entry.get("figure"),
                note=str(entry.get("note", "")),
                extra={k: v for k, v in entry.items() if k not in known},
            )
        )
    return claims


def evaluate(claims: list[Claim], results_dir: str | os.PathLike) -> pd.DataFrame:
    """Measured value, 95% interval and verdict of every claim.

    The measured value is the mean over the claim's rows (one per seed) in
    ``results_dir/<run>.csv``; a missing file or a missing row gives "not yet run". The interval
    is the run's own (``<id>.ci_low``/``<id>.ci_high`` rows) or a t-interval over the rows.
    """
    results_dir = Path(results_dir)
    cache: dict[str, pd.DataFrame | None] = {}
    rows = []
    for claim in claims:
        if claim.run not in cache:
            csv = results_dir / f"{claim.run}.csv"
            # only the claims rows matter here: filter each run's results once
            frame = read_results(csv) if csv.exists() else None
            cache[claim.run] = None if frame is None else frame[frame["experiment"] == "claims"]
        frame = cache[claim.run]
        measured, count, detail = math.nan, 0, ""
        low = high = math.nan
        if frame is None:
            verdict, detail = "not yet run", f"no results for run '{claim.run}'"
        else:
            hit = frame[frame["metric"] == claim.id]
            count = len(hit)
            if count == 0:
                verdict, detail = (
                    "not yet run",
                    f"run '{claim.run}' measured no value for this claim",
                )
            else:
                measured = float(hit["value"].mean())
                low, high = _interval(frame, claim.id, hit["value"].to_numpy(float))
                holds = claim.check.holds_interval(measured, low, high)
                verdict = "reproduced" if holds else "not reproduced"
        rows.append(
            {
                "id": claim.id,
                "paper": claim.paper,
                "run": claim.run,
                "where": claim.where,
                "statement": claim.statement,
                "published": claim.published,
                "check": claim.check.describe(),
                "measured": measured,
                "ci_low": low,
                "ci_high": high,
                "n": count,
                "verdict": verdict,
                "detail": detail,
            }
        )
    return pd.DataFrame(rows)


def _interval(frame: pd.DataFrame, claim_id: str, values) -> tuple[float, float]:
    """The run's own 95% interval for a claim (``frame``: the run's claims rows), else a t-interval
    over its rows (nan if < 2)."""
    bounds = []
    for suffix in (".ci_low", ".ci_high"):
        hit = frame[frame["metric"] == claim_id + suffix]["value"]
        bounds.append(float(hit.mean()) if len(hit) else math.nan)
    if all(math.isfinite(b) for b in bounds):
        return bounds[0], bounds[1]
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return math.nan, math.nan
    from scipy.stats import t

    half = t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values))
    return float(values.mean() - half), float(values.mean() + half)


def render(
    claims: list[Claim],
    table: pd.DataFrame,
    *,
    profile: str,
    figures_dir: str | os.PathLike | None = None,
    output: str | os.PathLike | None = None,
) -> str:
    """Markdown report; figure links are relative to ``output``'s folder."""
    by_id = {c.id: c for c in claims}
    counts = table["verdict"].value_counts().reindex(list(VERDICTS), fill_value=0)
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
        + ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
        + f" (of {len(table)} claims).",
        "",
    ]
    base = Path(output).parent if output else Path(".")
    for paper, block in table.groupby("paper", sort=False):
        lines += [f"## {PAPER_TITLES.get(paper, paper)}", ""]
        lines += [
            "| claim | where | statement | published | check | measured | n | verdict | figure |"
        ]
        lines += ["|---|---|---|---|---|---|---|---|---|"]
        for row in block.itertuples(index=False):
            claim = by_id[row.id]
            unit = f" {claim.unit}" if claim.unit else ""
            measured = "—" if math.isnan(row.measured) else f"{_fmt(row.measured)}{unit}"
            if math.isfinite(row.ci_low) and math.isfinite(row.ci_high):
                measured += f" [{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"
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
                link,
            ]
            lines.append("| " + " | ".join(cells) + " |")
        notes = [(c.id, c.note) for c in claims if c.paper == paper and c.note]
        if notes:
            lines += ["", "Notes:"]
            lines += [f"- `{cid}`: {_cell(note)}" for cid, note in notes]
        lines.append("")
    return "\n".join(lines)


def build_report(
    claims_path, results_dir, output, *, profile: str, figures_dir=None
) -> pd.DataFrame:
    """Load claims, evaluate them against ``results_dir`` and write the Markdown report atomically."""
    claims = load_claims(claims_path)
    table = evaluate(claims, results_dir)
    text = render(claims, table, profile=profile, figures_dir=figures_dir, output=output)
    target = Path(output)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, target)
    return table


def _fmt(value: float) -> str:
    value = float(value)
    if value == int(value) and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.4g}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _relpath(target: Path, base: Path) -> str:
    return Path(os.path.relpath(target, base)).as_posix()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.report", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--claims", required=True, help="claims.yaml")
    parser.add_argument("--results", required=True, help="folder with <run>.csv tidy results")
    parser.add_argument("--output", required=True, help="Markdown file to write")
    parser.add_argument("--profile", required=True, help="profile name shown in the title")
    parser.add_argument("--figures", default=None, help="folder with <run>/<figure>.png")
    args = parser.parse_args(argv)
    table = build_report(
        args.claims, args.results, args.output, profile=args.profile, figures_dir=args.figures
    )
    counts = table["verdict"].value_counts()
    print(
        f"{args.output}: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS), file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
