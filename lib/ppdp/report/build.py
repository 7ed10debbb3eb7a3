"""Building a report: load the claims, judge them against a results folder, check that the report
is complete, render it and write it (:func:`build_report`)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from ppdp.kernels import compared_families
from ppdp.report.claims import CAUSES, load_claims, load_summaries
from ppdp.report.deciding import (
    VERDICTS_FILE,
    apply_decided,
    decided_verdicts,
    describe_kernels,
    read_decided_verdicts,
    write_decided_verdicts,
)
from ppdp.report.figures import benchmark_figures, copy_figures
from ppdp.report.markdown import PAPER_TITLES, render, render_benchmark
from ppdp.report.overview import write_overview
from ppdp.report.provenance import (
    _write_atomic,
    changed_sources,
    collect_provenance,
    load_provenance,
    render_provenance,
)
from ppdp.report.verdicts import (
    AMBIGUOUS,
    RUNS_WITHOUT_CLAIMS,
    check_complete,
    evaluate,
    mark_unstable,
    verdict_differences,
)

__all__ = ["REPORT_FIGURES", "build_report"]

#: The folder, under the figures folder, of the report's own figures (its verdict figures).
REPORT_FIGURES = "report"


def build_report(
    claims_path,
    results_dir,
    output,
    *,
    profile: str,
    figures_dir=None,
    runs: Iterable[str] | None = None,
    complete: bool = False,
    expected_claims: int | None = None,
    publish_figures=None,
    require_causes: bool = False,
    compare=None,
    allow_unmeasured: Iterable[str] = (),
    strict_compare: bool = False,
    decides: Mapping[str, Any] | None = None,
    decided_by: Iterable[str | os.PathLike] = (),
) -> pd.DataFrame:
    """Load claims, evaluate them against ``results_dir`` and write the Markdown report atomically.

    Parameters
    ----------
    runs
        The profile's runs, as in :func:`evaluate`.
    complete
        The pipeline's mode: :func:`evaluate`'s, and the claims file must state its number of
        claims (``n_claims``) unless ``expected_claims`` is given, and the table must pass
        :func:`check_complete` (every claim measured, every claims row of the results listed).
    expected_claims
        The number of claims the file must hold, checked besides its own ``n_claims``.
    figures_dir
        The folder of the runs' figures (``<run>/<figure>.png``), which claims link; the verdict
        figures (:func:`ppdp.report.overview.write_overview`) are written to its
        :data:`REPORT_FIGURES` folder and shown on top of the report and of each paper's section.
        Without it the report links no figure.
    publish_figures
        A folder that receives a copy of every linked figure (the verdict figures included, in its
        :data:`REPORT_FIGURES` folder), downscaled to at most :data:`MAX_FIGURE_BYTES`; the report
        links the copies.
    require_causes
        A claim that is not reproduced and has no ``cause`` is an error.
    compare
        The results folder of a second run of the same profile (another machine or BLAS kernel,
        say): a claim reproduced in one run and not in the other becomes :data:`UNSTABLE`
        (:func:`mark_unstable`).
    allow_unmeasured
        Ids of claims that the profile's parameters cannot measure: checked by
        :func:`check_complete` when ``complete``, and said so beside them in the report.
    strict_compare
        With ``compare``: a claim whose verdict differs between the two runs
        (:func:`verdict_differences`) is an error unless its cause's kind is ``unstable``.
    decides
        The report of a deciding profile (:mod:`ppdp.report.deciding`): its config, whose
        ``decides`` names the profile it decides and the claims. It judges only the claims of its
        ``runs`` (which must be given) and writes the verdicts of those it decides to
        :data:`~ppdp.report.deciding.VERDICTS_FILE` beside ``output``, with the commit of its runs
        and the config's digest.
    decided_by
        The verdicts files of the profiles that decide some of this profile's claims: those
        claims get the deciding verdict, measurement and interval, this profile's own beside
        them (:func:`~ppdp.report.deciding.apply_decided`).

    Raises
    ------
    ValueError, FileNotFoundError
        See :func:`load_claims`, :func:`evaluate` and :func:`check_complete`; also when the number
        of claims differs from ``expected_claims``, a deciding report is given no ``runs``, leaves
        a claim it decides unjudged or (``complete``) has runs of several commits, a run is named
        :data:`REPORT_FIGURES` (with ``figures_dir``), a verdict differs between the runs
        (``strict_compare``), a linked figure is missing while ``complete`` or publishing, or
        (``require_causes``) a claim not reproduced has no cause; no report is written then.
    """
    if strict_compare and compare is None:
        raise ValueError(
            "strict_compare=True (--fail-on-unstable) needs compare (--compare OTHER_RESULTS)"
        )
    claims = load_claims(claims_path, require_count=complete and expected_claims is None)
    summaries = load_summaries(claims_path, claims)
    if expected_claims is not None and len(claims) != expected_claims:
        raise ValueError(
            f"{claims_path} holds {len(claims)} claims, expected {expected_claims} "
            "(--expected-claims): is it truncated?"
        )
    if decides is not None:
        if runs is None:
            raise ValueError("a deciding profile's report (--decides) needs its runs (--runs)")
        runs = list(runs)
        # a deciding profile runs some experiments: its report judges their claims alone, and
        # the papers' summaries, which quote claims of every run, stay in the full report
        claims = [c for c in claims if c.run in runs]
        summaries = None
    allowed = list(allow_unmeasured)
    table = evaluate(claims, results_dir, runs=runs, complete=complete, allow_unmeasured=allowed)
    if complete:
        check_complete(table, allow_unmeasured=allowed)
    is_allowed = table["id"].isin(allowed) & (table["verdict"] == "not measured")
    table.loc[is_allowed, "detail"] = "this profile's parameters do not measure it"
    if compare is not None:
        compared_runs = runs if runs is not None else dict.fromkeys(c.run for c in claims)
        _check_kernel_comparison(results_dir, compare, compared_runs, decides)
        other = evaluate(claims, compare, runs=runs)
        if strict_compare:
            differ = verdict_differences(table, other)
            differ = differ[differ["cause"] != "unstable"]
            if len(differ):
                pairs = [
                    f"{r.id} ({r.verdict} here, {r.other_verdict} in {compare})"
                    for r in differ.itertuples(index=False)
                ]
                raise ValueError(
                    f"{len(differ)} claims have verdicts that differ between {results_dir} and "
                    f"{compare} and no cause of kind 'unstable' (--fail-on-unstable): "
                    + "; ".join(pairs)
                )
        table = mark_unstable(table, other, compare)
    decided_by = list(decided_by)
    if decided_by:
        table = apply_decided(
            table, pd.concat([read_decided_verdicts(path) for path in decided_by])
        )
    if require_causes:
        missed = table["verdict"].isin(["not reproduced", AMBIGUOUS])
        uncaused = table.loc[missed & (table["cause"] == ""), "id"]
        if len(uncaused):
            raise ValueError(
                f"{len(uncaused)} claims are not reproduced or ambiguous and {claims_path} gives no "
                f"cause for "
                f"them (--require-causes): {', '.join(uncaused)}; add a 'cause' with its kind "
                f"({', '.join(CAUSES)}), why, and evidence"
            )
    run_names = list(runs) if runs is not None else list(dict.fromkeys(c.run for c in claims))
    overview = None
    if figures_dir is not None:
        linked = sorted({(c.run, c.figure, c.id) for c in claims if c.figure})
        missing = [
            (cid, Path(figures_dir) / run / f"{fig}.png")
            for run, fig, cid in linked
            if not (Path(figures_dir) / run / f"{fig}.png").exists()
        ]
        if missing and (complete or publish_figures is not None):
            cid, path = missing[0]
            raise FileNotFoundError(
                f"claim {cid!r}: its figure {str(path)!r} does not exist"
                + (f" (and {len(missing) - 1} more missing figures)" if len(missing) > 1 else "")
            )
        extra_figures = {
            (run, fig)
            for run in run_names
            if run in RUNS_WITHOUT_CLAIMS
            for fig in benchmark_figures(results_dir, run)
        }
        if REPORT_FIGURES in run_names:
            raise ValueError(
                f"a run named {REPORT_FIGURES!r} would share its figures folder with the report's "
                f"verdict figures ({Path(figures_dir) / REPORT_FIGURES}); rename the run"
            )
        # the verdict figures go beside the runs' figures, in a folder of the report's own
        overview = write_overview(
            claims,
            table,
            Path(figures_dir) / REPORT_FIGURES,
            titles=PAPER_TITLES,
        )
        if publish_figures is not None:
            own = {(REPORT_FIGURES, path.stem) for path in overview.paths.values()}
            copy_figures(
                {(run, fig) for run, fig, _ in linked} | extra_figures | own,
                figures_dir,
                publish_figures,
            )
            figures_dir = publish_figures
            overview = replace(
                overview,
                paths={
                    key: Path(publish_figures) / REPORT_FIGURES / path.name
                    for key, path in overview.paths.items()
                },
            )
    provenance = load_provenance(results_dir, run_names)
    decided = None
    if decides is not None:
        table = _with_seeds(table, claims, decides)
        decided = decided_verdicts(
            table, decides, commit=_runs_commit(results_dir, provenance, strict=complete)
        )
    root = Path(claims_path).resolve().parent
    report_env = collect_provenance(root)
    unchanged = _sources_unchanged(
        provenance, report_env, root, profile, run_names, strict=decides is not None and complete
    )
    text = render(
        claims,
        table,
        profile=profile,
        figures_dir=figures_dir,
        output=output,
        provenance=render_provenance(provenance, report_env, sources_unchanged=unchanged),
        extra=[
            line
            for run in run_names
            if run in RUNS_WITHOUT_CLAIMS
            for line in render_benchmark(
                results_dir, figures_dir=figures_dir, base=Path(output).parent, run=run
            )
        ],
        summaries=summaries,
        overview=overview,
        decides=None if decides is None else decides["decides"],
    )
    _write_atomic(Path(output), text)
    if decided is not None:
        write_decided_verdicts(decided, Path(output).parent / VERDICTS_FILE)
    return table


def _with_seeds(table: pd.DataFrame, claims, decides: Mapping[str, Any]) -> pd.DataFrame:
    """``table`` with ``seeds``: how many seeds each claim's interval rests on. A claim written
    as one row per seed has ``n`` of them; one written as a single row with the run's own
    interval over its seeds (HyObscure's paired bootstrap) rests on the run's ``n_seeds``
    parameter, which the deciding profile's config states. What a claim still open would need
    is extrapolated from it (:func:`ppdp.report.deciding.seeds_to_decide`)."""
    run_of = {claim.id: claim.run for claim in claims}
    runs = decides.get("runs") or {}

    def seeds(row) -> float:
        if row.n != 1:
            return row.n
        parameters = (runs.get(run_of.get(row.id)) or {}).get("parameters") or {}
        stated = parameters.get("n_seeds")
        return float(stated) if isinstance(stated, int) and stated > 1 else row.n

    return table.assign(seeds=[seeds(row) for row in table.itertuples(index=False)])


def _check_kernel_comparison(results_dir, compare, runs, decides) -> None:
    """Refuse a comparison that compares nothing: a run of ``compare`` whose provenance shows the
    same kernels as its run in ``results_dir``, in every library family its notebook computes
    with (:func:`ppdp.kernels.compared_families`). On a machine where the kernel caps hold
    nothing back (AVX2 without AVX-512) "the machine's own kernels" are the capped ones; agreeing
    verdicts would then lift *unstable* marks without a test. The notebooks come from the
    deciding profile's runs (``decides``); a run of unknown notebook is not credited with
    PyTorch. A run without kernel fields in either record is not refused (its kernels are
    unknown)."""
    compared = [run for run in runs if (Path(compare) / f"{run}.csv").exists()]
    if not compared:
        return
    notebooks = {
        run: spec.get("notebook")
        for run, spec in ((decides or {}).get("runs") or {}).items()
        if isinstance(spec, Mapping)
    }
    first = load_provenance(results_dir, compared)
    second = load_provenance(compare, compared)
    same = [
        run
        for run in compared
        if not compared_families(first[run], second[run], notebooks.get(run))
    ]
    if same:
        record = first[same[0]]
        raise ValueError(
            f"compare {compare}: run {', '.join(same)} computed with the same kernels as in "
            f"{results_dir} ({describe_kernels(record)}; PyTorch's "
            "count only for the notebooks that import it), so the comparison tests nothing and "
            "cannot mark or clear a verdict as unstable; compare on a machine whose kernels the "
            "caps change (AVX-512), or leave the comparison out"
        )


def _sources_unchanged(provenance, report_env, root, profile, runs, *, strict: bool) -> bool:
    """Whether the runs ran at one commit of a clean tree other than the report's, with the same
    computation sources as the report's tree (:func:`ppdp.report.provenance.changed_sources`):
    then the report may judge them at its later commit (its claims, docs or report code
    changed, not what the runs compute). With ``strict`` (a deciding profile's pipeline report),
    runs of another commit whose sources changed since are refused: their verdicts would not be
    the working tree's. A report outside a repository checks nothing."""
    report_commit = str((report_env.get("git") or {}).get("commit", "unknown"))
    states = [record.get("git") or {} for record in provenance.values() if record]
    commits = {str(state.get("commit", "unknown")) for state in states}
    if report_commit == "unknown" or len(commits) != 1 or commits == {report_commit}:
        return False
    (commit,) = commits
    if commit == "unknown" or not all(state.get("clean") is True for state in states):
        return False
    changed = changed_sources(root, commit, profile=profile, runs=runs)
    if changed == []:
        return True
    if strict:
        what = ", ".join(changed) if changed else "git cannot tell what"
        raise ValueError(
            f"profile {profile!r}: its runs ran at {commit[:10]} and this tree has changed what "
            f"they compute since ({what}): rerun them (`make reproduce PROFILE={profile}`)"
        )
    return False


def _runs_commit(results_dir, provenance: Mapping[str, dict], *, strict: bool) -> str:
    """The commit every run ran at (``provenance``, :func:`load_provenance` of the runs in
    ``results_dir``); with ``strict``, runs of several commits, or of a changed tree, are an
    error: the verdicts of a deciding profile come from one commit."""
    states = [record.get("git", {}) for record in provenance.values()]
    commits = sorted({str(state.get("commit", "unknown")) for state in states})
    clean = all(state.get("clean") is True for state in states)
    if strict and (len(commits) != 1 or commits[0] == "unknown" or not clean):
        raise ValueError(
            f"a deciding profile's runs come from one commit of a clean tree; {results_dir}'s "
            f"come from {', '.join(commits)}" + ("" if clean else " (some on a changed tree)")
        )
    return commits[0] if len(commits) == 1 else "several commits"
