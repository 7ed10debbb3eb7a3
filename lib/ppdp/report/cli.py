"""The reproduction report: each paper's published claims beside the values this compendium measures.

This module is the report's command line (:func:`main`, whose ``--help`` prints the line above).
Run it as ``python -m ppdp.report --claims claims.yaml --results results/default
--figures figures/default --profile default --config config/default.yaml --complete
--output reports/default/reproduction.md``. ``--publish-figures DIR`` copies the linked figures
(downscaled to at most 150 kB each) to ``DIR`` and links the copies, so that a committed report shows
its figures. ``python -m ppdp.report provenance --output FILE --run RUN --profile PROFILE`` records
the environment of a notebook run after it (:func:`ppdp.report.provenance.write_provenance`).
``python -m ppdp.report costs --config config/default.yaml --results results/default --csv
reports/costs.csv --markdown reports/costs.md`` writes the table of what the profile's runs cost
(:mod:`ppdp.report.costs`); ``python -m ppdp.report cost --config config/paper.yaml --measured
reports/costs.csv`` estimates, before anything runs, what another profile's runs will cost.

Exit statuses (:data:`EXIT_STATUSES`, also in ``--help``): 0 when the report is written and judges
every claim; 1 when no report is written (damaged results, which are never judged, or with
``--complete`` any claim left unjudged: every problem is printed on stderr, a line each naming the
file, the row's line and the claim); 2 for a command-line usage error; 3 when the report is written
without ``--complete`` but leaves claims unjudged (not measured or not yet run, those allowed by
``--allow-unmeasured`` aside), with their number on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ppdp.compendium.yamlfile import read_yaml
from ppdp.report import costs
from ppdp.report.build import build_report
from ppdp.report.deciding import OTHER_KERNELS_SUFFIX
from ppdp.report.provenance import write_provenance
from ppdp.report.verdicts import AMBIGUOUS, UNSTABLE, VERDICTS

__all__ = ["EXIT_NOT_JUDGED", "EXIT_STATUSES", "main"]

#: The exit status of a report written without ``--complete`` that leaves claims unjudged.
EXIT_NOT_JUDGED = 3
#: What each exit status of ``python -m ppdp.report`` means.
EXIT_STATUSES = {
    0: "the report is written and judges every claim",
    1: "no report is written: the results are damaged (never judged), or with --complete a claim "
    "is left unjudged; stderr lists every problem, a line each naming the file, row and claim",
    2: "command-line usage error",
    EXIT_NOT_JUDGED: "without --complete, the report is written but leaves claims unjudged (not "
    "measured or not yet run, --allow-unmeasured aside); stderr gives their number",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["provenance"]:
        return _main_provenance(argv[1:])
    if argv[:1] == ["costs"]:
        return _main_costs(argv[1:])
    if argv[:1] == ["cost"]:
        return _main_cost(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.report",
        description=__doc__.splitlines()[0]
        + " (`python -m ppdp.report provenance --help`: record a run's environment; `costs "
        "--help`: the table of a profile's measured costs; `cost --help`: estimate a profile's)",
        epilog="exit status: "
        + "; ".join(f"{code}: {meaning}" for code, meaning in EXIT_STATUSES.items()),
    )
    parser.add_argument("--claims", required=True, help="claims.yaml")
    parser.add_argument("--results", required=True, help="folder with <run>.csv tidy results")
    parser.add_argument("--output", required=True, help="Markdown file to write")
    parser.add_argument("--profile", required=True, help="profile name shown in the title")
    parser.add_argument("--figures", default=None, help="folder with <run>/<figure>.png")
    runs = parser.add_mutually_exclusive_group()
    runs.add_argument("--config", default=None, help="the profile's config: its runs")
    runs.add_argument("--runs", nargs="+", default=None, help="the profile's runs")
    parser.add_argument(
        "--complete",
        action="store_true",
        help="the pipeline's mode: every run must have its results, every claim a value (and "
        "its .across values where claims.yaml declares its unstated settings), every claims row "
        "of the results a claim, and the claims file its stated n_claims; otherwise no report "
        "(exit 1)",
    )
    parser.add_argument(
        "--expected-claims",
        type=int,
        default=None,
        help="number of claims (besides the claims file's own n_claims)",
    )
    parser.add_argument(
        "--allow-unmeasured",
        nargs="+",
        default=[],
        metavar="CLAIM",
        help="claims that this profile's parameters cannot measure (with --config: also its "
        "runs' `unmeasured`)",
    )
    parser.add_argument(
        "--publish-figures", default=None, help="copy the linked figures here and link the copies"
    )
    parser.add_argument(
        "--compare",
        default=None,
        help="results folder of a second run of the profile: claims whose verdicts differ "
        "between the two runs are marked unstable",
    )
    parser.add_argument(
        "--fail-on-unstable",
        action="store_true",
        help="with --compare: a verdict that differs between the two runs is an error unless the "
        "claim's cause is `unstable`",
    )
    parser.add_argument(
        "--require-causes",
        action="store_true",
        help="a claim that is not reproduced must have a cause in the claims file",
    )
    parser.add_argument(
        "--decides",
        default=None,
        metavar="CONFIG",
        help="the report of a deciding profile (its config, with `decides`): judge only the "
        "claims of its runs and write the verdicts of those it decides to verdicts.csv beside "
        "--output",
    )
    parser.add_argument(
        "--decided-by",
        nargs="+",
        default=[],
        metavar="VERDICTS",
        help="verdicts.csv of deciding profiles of this one: their claims get the deciding "
        "verdict, this profile's own beside it",
    )
    args = parser.parse_args(argv)
    if args.fail_on_unstable and args.compare is None:
        parser.error("--fail-on-unstable needs --compare OTHER_RESULTS")
    try:
        run_names, unmeasured = args.runs, list(args.allow_unmeasured)
        if args.config is not None:
            run_names = _config_runs(args.config)
            unmeasured += _config_unmeasured(args.config)
        decides = None
        if args.decides is not None:
            decides = _config(args.decides)
            if not isinstance(decides.get("decides"), dict):
                raise ValueError(f"--decides {args.decides}: the config has no `decides` mapping")
        table = build_report(
            args.claims,
            args.results,
            args.output,
            profile=args.profile,
            figures_dir=args.figures,
            runs=run_names,
            complete=args.complete,
            expected_claims=args.expected_claims,
            publish_figures=args.publish_figures,
            require_causes=args.require_causes,
            compare=args.compare,
            allow_unmeasured=unmeasured,
            strict_compare=args.fail_on_unstable,
            decides=decides,
            decided_by=args.decided_by,
        )
    except (ValueError, FileNotFoundError) as error:
        print(f"python -m ppdp.report: error: {error}", file=sys.stderr)
        return 1
    counts = table["verdict"].value_counts()
    shown = [*VERDICTS, *(v for v in (UNSTABLE, AMBIGUOUS) if counts.get(v, 0))]
    print(f"{args.output}: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in shown), file=sys.stderr)
    if counts.get("not yet run", 0):
        print(f"warning: {counts['not yet run']} claims are not yet run", file=sys.stderr)
    for note in table.attrs.get("warnings", []):
        print(f"warning: {note}", file=sys.stderr)
    for line in table.attrs.get("unlisted_lines", []):
        print(f"warning: {line}", file=sys.stderr)
    unjudged = table[
        table["verdict"].isin(["not measured", "not yet run"]) & ~table["id"].isin(unmeasured)
    ]
    if len(unjudged):
        gaps = table.attrs.get("gaps", {})
        for cid in unjudged["id"]:
            if cid in gaps:
                print(f"warning: {gaps[cid]}", file=sys.stderr)
        print(
            f"python -m ppdp.report: {len(unjudged)} of {len(table)} claims not judged (not "
            f"measured or not yet run): exit status {EXIT_NOT_JUDGED}",
            file=sys.stderr,
        )
        return EXIT_NOT_JUDGED
    return 0


def _config_runs(path: str | os.PathLike) -> list[str]:
    return list(_config(path)["runs"])


def _config_unmeasured(path: str | os.PathLike) -> list[str]:
    """The claims a profile cannot measure: the ``unmeasured`` lists of its runs."""
    out = []
    for run, spec in _config(path)["runs"].items():
        ids = spec.get("unmeasured", []) if isinstance(spec, dict) else []
        if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
            raise ValueError(
                f"--config {path}: runs.{run}.unmeasured must be a list of claim ids, got {ids!r}"
            )
        out += ids
    return out


def _compare_kernels(config: dict) -> list[str]:
    """The runs a deciding profile runs again under other kernels (none for another profile)."""
    decides = config.get("decides")
    return list(decides.get("compare_kernels", [])) if isinstance(decides, dict) else []


def _config(path: str | os.PathLike) -> dict:
    config = read_yaml(path)
    if not isinstance(config, dict) or not isinstance(config.get("runs"), dict):
        raise ValueError(f"--config {path}: expected a profile config with a 'runs' mapping")
    return config


def _main_provenance(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.report provenance",
        description="Record the environment of a notebook run as JSON.",
    )
    parser.add_argument("--output", required=True, help="JSON file to write")
    parser.add_argument("--run", required=True, help="the run's name")
    parser.add_argument("--profile", required=True, help="the run's profile")
    parser.add_argument("--repo", default=".", help="the compendium's folder (its git commit)")
    args = parser.parse_args(argv)
    write_provenance(args.output, run=args.run, profile=args.profile, repo=args.repo)
    return 0


def _main_costs(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.report costs",
        description="Write the table of a profile's measured costs: each run's wall time, CPU "
        "minutes and peak memory (results/<profile>/benchmarks/<run>.tsv), the total and the "
        "makespan on two cores, with the commit and CPU of the runs "
        "(results/<profile>/provenance/<run>.json). Refused when a run lacks its files or the "
        "runs come from different commits.",
    )
    parser.add_argument("--config", required=True, help="the profile's config: its runs")
    parser.add_argument(
        "--results", default=None, help="the profile's results folder (default: results/<profile>)"
    )
    parser.add_argument("--csv", default=None, help="tidy CSV to write (reports/costs.csv)")
    parser.add_argument("--markdown", default=None, help="Markdown to write (reports/costs.md)")
    args = parser.parse_args(argv)
    if args.csv is None and args.markdown is None:
        parser.error("give --csv FILE, --markdown FILE or both")
    try:
        config = _config(args.config)
        profile = str(config.get("profile", Path(args.config).stem))
        runs = costs.runs_of(config, f"--config {args.config}")
        results = args.results if args.results is not None else f"results/{profile}"
        rows = costs.cost_table(results, runs, profile)
        threads = {run: int(spec.get("threads", 1)) for run, spec in runs.items()}
        # a deciding profile's runs under other kernels cost as much again: rows of their own
        again = _compare_kernels(config)
        if again:
            reruns = costs.cost_table(
                Path(results).parent / f"{profile}{OTHER_KERNELS_SUFFIX}",
                {run: runs[run] for run in again},
                profile,
            )
            for row in reruns:
                threads[row["run"] + OTHER_KERNELS_SUFFIX] = threads[row["run"]]
                row["run"] += OTHER_KERNELS_SUFFIX
            rows += reruns
            costs.check_one_commit(rows, profile)
        costs.write_cost_table(rows, args.csv, args.markdown, threads)
    except (ValueError, FileNotFoundError) as error:
        print(f"python -m ppdp.report costs: error: {error}", file=sys.stderr)
        return 1
    return 0


def _main_cost(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.report cost",
        description="Estimate, before anything runs, what each run of a profile will cost: the "
        "measured CPU minutes of the run (a table written by `python -m ppdp.report costs`) "
        "times the ratio of its work at the two profiles' parameters "
        "(ppdp.report.costs.WORK_FACTORS), with the total and the makespan on two cores.",
    )
    parser.add_argument("--config", required=True, help="the profile to estimate")
    parser.add_argument("--measured", required=True, help="the measured table (reports/costs.csv)")
    parser.add_argument(
        "--measured-config",
        default=None,
        help="the config of the measured profile (default: <profile>.yaml beside --config)",
    )
    parser.add_argument(
        "--notebooks",
        default=None,
        help="the notebooks' folder (default: notebooks/ of the compendium of --config)",
    )
    args = parser.parse_args(argv)
    try:
        config = _config(args.config)
        runs = costs.runs_of(config, f"--config {args.config}")
        measured = costs.read_cost_table(args.measured)
        if not measured:
            raise ValueError(f"--measured {args.measured}: the table has no runs")
        base_path = args.measured_config or Path(args.config).parent / (
            f"{measured[0]['profile']}.yaml"
        )
        base_runs = costs.runs_of(_config(base_path), f"--measured-config {base_path}")
        notebooks = args.notebooks or Path(args.config).resolve().parent.parent / "notebooks"
        estimates = costs.estimate_costs(runs, measured, base_runs, notebooks)
        again = set(_compare_kernels(config))
        estimates += [
            {**e, "run": f"{e['run']}{OTHER_KERNELS_SUFFIX}"}
            for e in estimates
            if e["run"] in again
        ]
    except (ValueError, FileNotFoundError) as error:
        print(f"python -m ppdp.report cost: error: {error}", file=sys.stderr)
        return 1
    profile = str(config.get("profile", Path(args.config).stem))
    sys.stdout.write(costs.render_estimate(estimates, profile, measured))
    return 0
