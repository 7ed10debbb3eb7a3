"""The reproduction report: each paper's published claims beside the values this compendium measures.

``claims.yaml`` lists the claims. Each names the run whose tidy results hold the measured value (a row
with ``experiment == "claims"`` and ``metric`` equal to the claim's id) and a check that decides
whether the measured value reproduces the claim. The report is Markdown, one table per paper.

A claim that is not reproduced shows its ``cause`` from ``claims.yaml`` (:data:`CAUSES`: protocol,
data, budget, ambiguous, refuted or unstable, with the claims, notebook sections, benchmarks or runs
that show it), and the summary counts the misses per cause; ``--require-causes`` makes a miss
without one an error. ``--compare`` names a second run of the profile (another machine or BLAS
kernel): a claim reproduced in one run and not in the other is *unstable*, decided by neither;
``--fail-on-unstable`` makes any verdict that differs between the two runs an error unless the
claim's cause is ``unstable``.

A report is complete or it fails. ``claims.yaml`` states its number of claims (``n_claims``, before
the list, so that a file cut short keeps it), and :func:`load_claims` checks it. ``--complete``
(the pipeline's mode) also requires that count (or ``--expected-claims``), every run's results, a
claim for every run, a value for every claim (except those the profile's config lists as
``unmeasured``, which its parameters cannot measure) and a claim in ``claims.yaml`` for every
claims row of the results, and of every claim that declares its unstated settings (``across``)
the values at their other values. Damaged results (a value that is nan or infinite, an interval
with one end or inverted, a seed counted twice, another run's rows, a claim's row under another
experiment label) are never judged, in either mode: :class:`ResultsError` lists every problem, a
line each naming the file, the row's line and the claim. Without ``--complete`` the command line
writes a report that leaves claims unjudged, and says so in its exit status (3).

The report opens with the provenance of its numbers: the environment of every notebook run and its
wall time, flagging runs whose environments differ. Run it as ``python -m ppdp.report --claims
claims.yaml --results results/default ... --output reports/default/reproduction.md`` (see
:mod:`ppdp.report.cli`).

Submodules, lowest first; each imports only the ones listed before it:

- ``claims``: the vocabulary of ``claims.yaml`` (:class:`Check`, :class:`Cause`, :class:`Claim`,
  :data:`OPS`, :data:`CAUSES`) and its loading (:func:`load_claims`, :func:`load_summaries`,
  :func:`fill_summary`);
- ``verdicts``: judging measured values (:func:`evaluate`, :class:`ResultsError`,
  :func:`check_complete`, :func:`verdict_differences`, :func:`mark_unstable`,
  :func:`cause_counts`, :data:`VERDICTS`);
- ``provenance``: the environment of a run (:func:`collect_provenance`, :func:`write_provenance`,
  :func:`load_provenance`) and the report's provenance section (:func:`render_provenance`);
- ``deciding``: deciding profiles, which rerun some runs with more seeds to decide verdicts that
  another profile leaves open (:func:`deciding_problems`, :func:`decided_by_problems`), their
  verdicts file (:func:`decided_verdicts`, :func:`read_decided_verdicts`), how many seeds would
  decide a claim still open (:func:`seeds_to_decide`) and how the decided profile's report takes
  them (:func:`apply_decided`);
- ``figures``: the figures the report links and their downscaled published copies
  (:func:`benchmark_figures`, :func:`copy_figures`);
- ``overview``: the verdict figures, every claim's margin to its check on one scale
  (:func:`write_overview`, :func:`claim_margins`, :func:`margin`);
- ``markdown``: the report's Markdown (:func:`render`: the verdict figures, a narrow table per
  paper and a details block per claim) and the benchmark's section (:func:`render_benchmark`);
- ``build``: :func:`build_report`, which loads, judges, checks, draws, renders and writes a
  report;
- ``cli``: the command line (:func:`main`; ``python -m ppdp.report`` and its ``provenance``
  subcommand).

This package re-exports the public names of its submodules: ``from ppdp.report import evaluate``.
"""

from ppdp.report.build import REPORT_FIGURES, build_report
from ppdp.report.claims import (
    CAUSE_KEYS,
    CAUSES,
    CHECK_KEYS,
    CLAIMS_FILE_KEYS,
    CLAIMS_SCHEMA,
    INTERVAL_OPS,
    OPS,
    OPTIONAL_KEYS,
    REQUIRED_KEYS,
    Cause,
    Check,
    Claim,
    fill_summary,
    load_claims,
    load_summaries,
)
from ppdp.report.cli import main
from ppdp.report.deciding import (
    DECIDED_COLUMNS,
    DECIDING_REPORTS,
    OTHER_KERNELS_SUFFIX,
    VERDICTS_FILE,
    apply_decided,
    decided_by_problems,
    decided_verdicts,
    deciding_problems,
    profile_digest,
    read_decided_verdicts,
    seeds_to_decide,
    verdicts_path,
    write_decided_verdicts,
)
from ppdp.report.figures import MAX_FIGURE_BYTES, benchmark_figures, copy_figures
from ppdp.report.markdown import PAPER_TITLES, TABLE_HEADER, claim_anchor, render, render_benchmark
from ppdp.report.overview import (
    MARGIN_LIMIT,
    Overview,
    claim_margins,
    margin,
    margin_interval,
    write_overview,
)
from ppdp.report.provenance import (
    PACKAGES,
    PUBLISHED_OUTPUTS,
    collect_provenance,
    cpu_model,
    git_state,
    load_provenance,
    numpy_simd_targets,
    render_provenance,
    torch_cpu_capability,
    write_provenance,
)
from ppdp.report.verdicts import (
    ACROSS_SUFFIX,
    AMBIGUOUS,
    CI_COLUMNS,
    RUNS_WITHOUT_CLAIMS,
    UNSTABLE,
    VERDICTS,
    ResultsError,
    cause_counts,
    check_complete,
    evaluate,
    mark_unstable,
    verdict_differences,
)

__all__ = [
    "ACROSS_SUFFIX",
    "AMBIGUOUS",
    "CAUSES",
    "CAUSE_KEYS",
    "CHECK_KEYS",
    "CI_COLUMNS",
    "CLAIMS_FILE_KEYS",
    "CLAIMS_SCHEMA",
    "DECIDED_COLUMNS",
    "DECIDING_REPORTS",
    "INTERVAL_OPS",
    "MARGIN_LIMIT",
    "MAX_FIGURE_BYTES",
    "OPS",
    "OPTIONAL_KEYS",
    "OTHER_KERNELS_SUFFIX",
    "PACKAGES",
    "PAPER_TITLES",
    "PUBLISHED_OUTPUTS",
    "REPORT_FIGURES",
    "REQUIRED_KEYS",
    "RUNS_WITHOUT_CLAIMS",
    "TABLE_HEADER",
    "UNSTABLE",
    "VERDICTS",
    "VERDICTS_FILE",
    "Cause",
    "Check",
    "Claim",
    "Overview",
    "ResultsError",
    "apply_decided",
    "benchmark_figures",
    "build_report",
    "cause_counts",
    "check_complete",
    "claim_anchor",
    "claim_margins",
    "collect_provenance",
    "copy_figures",
    "cpu_model",
    "decided_by_problems",
    "decided_verdicts",
    "deciding_problems",
    "evaluate",
    "fill_summary",
    "git_state",
    "load_claims",
    "load_provenance",
    "load_summaries",
    "main",
    "margin",
    "margin_interval",
    "mark_unstable",
    "numpy_simd_targets",
    "profile_digest",
    "read_decided_verdicts",
    "render",
    "render_benchmark",
    "render_provenance",
    "seeds_to_decide",
    "torch_cpu_capability",
    "verdict_differences",
    "verdicts_path",
    "write_decided_verdicts",
    "write_overview",
    "write_provenance",
]
