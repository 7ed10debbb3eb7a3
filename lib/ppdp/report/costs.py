"""What a profile's runs cost: the measured table, and the estimate for another profile.

Two commands of ``python -m ppdp.report`` use this module:

* ``costs`` reads a profile's Snakemake benchmark files (``results/<profile>/benchmarks/<run>.tsv``)
  and provenance records (``results/<profile>/provenance/<run>.json``) and writes one table
  (:func:`cost_table`): each run's wall time, CPU minutes and peak memory, the profile's total and
  its makespan on two cores, with the commit and the CPU they were measured on. The default
  profile's table is committed as ``reports/costs.csv`` (tidy) and ``reports/costs.md``.
* ``cost`` estimates, before anything runs, what each run of a profile will cost
  (:func:`estimate_costs`): the measured CPU minutes of the run scaled by the ratio of its *work*
  at the two profiles' parameters.

A run's work is the product of the factors of :data:`WORK_FACTORS`, declared per notebook: counts
such as seeds, draws, trees, epochs, rows and grid points, each with why it multiplies the run's
work. The model is linear in each factor by assumption and leaves out what does not scale (the
kernel's start, imports, loading the data), so it is rough far from the measured scale: a run
estimated at a few CPU seconds takes at least the tens of seconds its start costs.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# one duration format and one atomic write for the report's tables
from ppdp.report.provenance import _duration, _write_atomic, load_provenance

__all__ = [
    "COLUMNS",
    "WORK_FACTORS",
    "Factor",
    "check_one_commit",
    "cost_table",
    "estimate_costs",
    "makespan",
    "notebook_defaults",
    "priorities",
    "read_cost_table",
    "render_costs",
    "render_estimate",
    "run_parameters",
    "runs_of",
    "work",
    "write_cost_table",
]

#: The columns of the tidy cost table (``reports/costs.csv``), one row per run.
COLUMNS = (
    "profile",
    "run",
    "notebook",
    "wall_s",
    "cpu_minutes",
    "max_rss_mb",
    "commit",
    "clean",
    "cpu_model",
    "cpu_count",
)

#: The cores the makespan is computed for: those of the machine ``make reproduce`` is timed on.
CORES = 2

# Rows of the data sets when a profile passes None ("all rows"), as the loaders give them.
ADULT_ROWS = 48_842  # UCI Adult, train and test (relay chains, IMPOSTER)
ADULT_COMPLETE_ROWS = 45_222  # UCI Adult without missing values (the benchmark)
GERMAN_ROWS = 1_000  # German Credit
CENSUS_ROWS = 40_152  # the Mutual Cover census sample
MOVIELENS_USERS = 6_040  # MovieLens 1M


@dataclass(frozen=True)
class Factor:
    """One factor of a run's work: a count computed from the notebook's parameters.

    Parameters
    ----------
    name : str
        What is counted.
    count : callable
        ``count(parameters) -> float``: the count at a run's parameters (the notebook's defaults
        updated by the profile's).
    why : str
        Why the run's work grows in proportion to it, and what the proportion assumes.
    """

    name: str
    count: Callable[[Mapping[str, Any]], float]
    why: str


# ------------------------------------------------------------------------------------------------
# The work of each notebook's run


def _relay_row_hops(p: Mapping[str, Any]) -> float:
    from ppdp.experiments.relay_chains.run import across_values, chain_points

    points = set(
        chain_points(
            deltas=p["deltas"],
            hops=p["hops"],
            fig5_delta=p["fig5_delta"],
            fig6_delta=p["fig6_delta"],
            max_hops=p["max_hops"],
            fig6_top=p["fig6_top"],
        )
    )
    other = across_values(
        weighting=p["weighting"],
        deltas=p["deltas"],
        fig6_delta=p["fig6_delta"],
        weighting_range=p["weighting_range"],
        deltas_range=p["deltas_range"],
        fig6_delta_range=p["fig6_delta_range"],
    )
    fig6_hops = range(1, int(p["max_hops"]) + 1)
    german = set(points)
    german |= {(int(p["hops"]), float(d)) for _, grid in other["deltas"] for d in grid}
    german |= {(h, float(d)) for d in other["fig6_delta"] for h in fig6_hops}
    reweighted = {(int(p["hops"]), float(d)) for d in p["deltas"]}
    reweighted |= {(h, float(p["fig6_delta"])) for h in fig6_hops}
    german_rows = GERMAN_ROWS if p["german_rows"] is None else p["german_rows"]
    adult_rows = ADULT_ROWS if p["adult_rows"] is None else p["adult_rows"]
    german_hops = sum(h for h, _ in german) + len(other["weighting"]) * sum(
        h for h, _ in reweighted
    )
    return german_rows * german_hops + adult_rows * sum(h for h, _ in points)


def _hyobscure_forests(p: Mapping[str, Any]) -> float:
    knobs = p["knobs"]
    hyobscure = [_knob(v) for v in knobs.get("HyObscure", [])]
    xobf = {_knob(v) for v in knobs.get("XObf", [])}
    # the reference, every knob value, and per HyObscure point its GenOnly scoring and, where XObf
    # has no point at its knob, its ObfOnly point (the notebook's tradeoff decomposes HyObscure)
    points = 1 + sum(len(v) for v in knobs.values()) + len(hyobscure)
    points += len({k for k in hyobscure if k not in xobf})
    scenario_ii = p["n_draws"] if p["scenario_ii_draws"] is None else p["scenario_ii_draws"]
    per_point = len(p["models"]) * (
        ("I" in p["scenarios"]) + ("II" in p["scenarios"]) * scenario_ii
    )
    forests = points * per_point
    if p["protocol"] == "paper":
        # Figs. 6-9: one random-forest attack in Scenario I per sweep point
        lists = {tuple(map(int, pair)) for pair in p["k_alpha_list"]}
        lists |= {("l", *map(int, pair)) for pair in p["l_beta_list"]}
        extra = set()
        for key, grids in (("k", p["k_alpha_grids"]), ("l", p["l_beta_grids"])):
            high = "alpha" if key == "k" else "beta"
            for grid in grids or ():
                for a in grid[key]:
                    for b in grid[high]:
                        extra.add((int(a), int(b)) if key == "k" else ("l", int(a), int(b)))
        forests += len(p["groups_list"]) * len(p["fixed_knobs"]) + 2 * len(p["clusters_list"])
        forests += len(lists) + len(extra - lists)
    return forests


def _knob(value) -> tuple[float, ...]:
    return tuple(map(float, value)) if isinstance(value, list | tuple) else (float(value),)


def _imposter_networks(p: Mapping[str, Any]) -> float:
    other_lambdas = {float(v) for v in p["lam_range"]} - {float(p["lam"])}
    return 1 + len(p["thetas"]) + len(p["lambdas"]) + len(other_lambdas)


def _mutual_cover_settings(p: Mapping[str, Any]) -> float:
    settings = {(int(p["l"]), int(d)) for d in p["inverse_deltas"]}
    settings |= {(int(lv), int(p["inverse_delta_for_l"])) for lv in p["l_values"]}
    return len(settings)


def _sppm_solves(p: Mapping[str, Any]) -> float:
    steps = len(set(p["synthetic_steps"]) | {p["n_steps"]})
    synthetic_ms = 1 + len({int(m) for m in p["synthetic_m_range"]} - {int(p["synthetic_m"])})
    return (
        len(p["synthetic_deltas"]) * steps * synthetic_ms
        + len(p["census_deltas"]) * len(set(p["census_encoding_range"]) | {"age_decade"})
        + len(p["movie_deltas"])
        + len(p["roc_seeds"]) * (len(p["census_roc_deltas"]) + len(p["movie_roc_deltas"]))
        + len(set(p["table1_delta_range"]) | {p["table1_delta"]})
        + len(set(p["fig7_delta_range"]) | {p["fig7_delta"]})
    )


def _benchmark_release_rows(p: Mapping[str, Any]) -> float:
    from ppdp.experiments.benchmark.registry import REGISTRY
    from ppdp.experiments.benchmark.run import _pick_levels

    full = {"adult": ADULT_COMPLETE_ROWS, "movielens": MOVIELENS_USERS}
    given = {"adult": p["adult_rows"], "movielens": p["movielens_rows"]}
    names = list(REGISTRY) if p["mechanisms"] is None else list(p["mechanisms"])
    total = 0
    for dataset in p["datasets"]:
        rows = full[dataset] if given[dataset] is None else given[dataset]
        for name in names:
            levels = REGISTRY[name].levels.get(dataset)
            if levels:
                total += rows * len(_pick_levels(levels, p["max_levels"]))
    return total


#: The factors whose product is each notebook's work (see :func:`work`). The estimate of a run is
#: its measured CPU minutes times the ratio of its work at two profiles' parameters, so a factor
#: needs only to be proportional to the work, not to count it in any unit; what a factor leaves
#: out is what its ``why`` says. Linear by assumption wherever a ``why`` says "linear".
WORK_FACTORS: dict[str, tuple[Factor, ...]] = {
    "datasets": (
        Factor(
            "data sets",
            lambda p: len(p["datasets"]),
            "each data set is loaded and summarized once; `bins` only sets a histogram's bars",
        ),
    ),
    "relay_chains": (
        Factor(
            "seeds",
            lambda p: p["n_seeds"],
            "each seed draws its own row subsamples and runs every chain on them again",
        ),
        Factor(
            "rows x chain hops per seed",
            _relay_row_hops,
            "every hop of every chain (Figs. 4-6, the other grids, steps and weightings on German "
            "Credit; Figs. 4-6 on Adult) re-clusters its table; linear in the rows by assumption "
            "(tables shared between chains are computed once, so this is an upper bound)",
        ),
    ),
    "hyobscure": (
        Factor(
            "seeds",
            lambda p: p["n_seeds"],
            "each seed repeats the split, every mechanism fit and every attack",
        ),
        Factor(
            "attack forests per seed",
            _hyobscure_forests,
            "per trade-off point (the reference, each knob value, HyObscure's GenOnly and ObfOnly) "
            "an attack per model in Scenario I and one per scored draw in Scenario II "
            "(`scenario_ii_draws`, else `n_draws`), plus one per sweep point of Figs. 6-9 in the "
            "paper's protocol: fitting them dominates the run; the mechanism fits, the releases' "
            "sampling and utility (which grow with `n_draws`) and Figs. 10-11 are left out",
        ),
        Factor(
            "trees",
            lambda p: p["n_estimators"],
            "each attack is a forest of `n_estimators` trees; linear by assumption",
        ),
    ),
    "mutual_cover": (
        Factor(
            "rows",
            lambda p: CENSUS_ROWS if p["n_rows"] is None else p["n_rows"],
            "every partition, release and disclosure count passes over the tuples; linear by "
            "assumption (the interior-point solves grow faster)",
        ),
        Factor(
            "(l, delta) settings",
            _mutual_cover_settings,
            "each setting of Figs. 3-8 fits Mutual Cover once and samples its releases",
        ),
        Factor(
            "releases per setting",
            lambda p: p["n_runs"],
            "each release is sampled and scored (information loss, query error, disclosure); the "
            "fit per setting is shared by its releases, so this overstates the growth",
        ),
    ),
    "imposter": (
        Factor("seeds", lambda p: p["n_seeds"], "each seed trains every network again"),
        Factor(
            "networks per seed",
            _imposter_networks,
            "a generator is trained for Table 1, each theta of Table 2, each lambda of Fig. 8 and "
            "each other lambda of `lam_range`; training dominates the run",
        ),
        Factor("epochs", lambda p: p["epochs"], "each epoch passes over the training rows once"),
        Factor(
            "rows",
            lambda p: ADULT_ROWS if p["n_rows"] is None else p["n_rows"],
            "an epoch's cost grows with the rows; linear by assumption (the classifiers of "
            "Table 1 and Fig. 7 are left out)",
        ),
    ),
    "sppm": (
        Factor(
            "solves",
            _sppm_solves,
            "each point of a curve (Fig. 2 and its other m and encodings, the ROC budgets per "
            "seed, Table 1's and Fig. 7's budgets) runs SPPM once; the problems' sizes (m, the "
            "top profiles), the certified optimum and Fig. 6's timing, which grow faster than "
            "linearly with m, are left out",
        ),
        Factor("steps", lambda p: p["n_steps"], "each solve takes `n_steps` steps; linear"),
    ),
    "benchmark": (
        Factor(
            "seeds",
            lambda p: len(p["seeds"]),
            "each seed draws its own subsample, releases and attackers",
        ),
        Factor(
            "rows x releases per seed",
            _benchmark_release_rows,
            "every release (each mechanism at each of its levels, `max_levels` of them, per data "
            "set) is drawn and attacked on the data set's rows; linear by assumption (trees, "
            "anonymeter's attacks and IMPOSTER's epochs are left out)",
        ),
    ),
}


def parameters_cell(notebook: str, notebooks_dir: str | os.PathLike) -> list[ast.stmt]:
    """The statements of the notebook's one ``parameters`` cell (the cell papermill sets).

    Raises
    ------
    ValueError
        If ``notebooks/<notebook>.ipynb`` has no ``parameters`` cell or more than one.
    """
    path = Path(notebooks_dir) / f"{notebook}.ipynb"
    cells = [
        cell
        for cell in json.loads(path.read_text())["cells"]
        if "parameters" in cell.get("metadata", {}).get("tags", [])
    ]
    if len(cells) != 1:
        raise ValueError(f"{path} must have exactly one `parameters` cell, found {len(cells)}")
    return ast.parse("".join(cells[0]["source"])).body


def notebook_defaults(notebook: str, notebooks_dir: str | os.PathLike) -> dict[str, Any]:
    """The values the notebook's ``parameters`` cell assigns: what a profile leaves unset.

    Parameters
    ----------
    notebook : str
        The notebook's name (``notebooks/<notebook>.ipynb``).
    notebooks_dir : path
        The folder of the notebooks.

    Returns
    -------
    dict
        Each parameter's literal value.
    """
    values = {}
    for node in parameters_cell(notebook, notebooks_dir):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values[target.id] = ast.literal_eval(node.value)
    return values


def run_parameters(spec: Mapping[str, Any], notebooks_dir: str | os.PathLike) -> dict[str, Any]:
    """A run's parameters as its notebook sees them: its defaults, then the profile's values."""
    return {**notebook_defaults(spec["notebook"], notebooks_dir), **spec.get("parameters", {})}


def work(notebook: str, parameters: Mapping[str, Any]) -> dict[str, float]:
    """Each factor of a run's work (:data:`WORK_FACTORS`) at ``parameters``.

    Parameters
    ----------
    notebook : str
        One of :data:`WORK_FACTORS`.
    parameters : mapping
        The run's parameters (:func:`run_parameters`).

    Returns
    -------
    dict
        ``{factor name: count}``; the work is their product.

    Examples
    --------
    >>> work("imposter", {"n_seeds": 3, "epochs": 15, "n_rows": None, "thetas": [0.01],
    ...                   "lambdas": [0.0, 1.0], "lam": 1.0, "lam_range": [1.0, 2.0]})
    {'seeds': 3, 'networks per seed': 5, 'epochs': 15, 'rows': 48842}
    """
    if notebook not in WORK_FACTORS:
        raise ValueError(f"notebook={notebook!r} has no work model; known: {sorted(WORK_FACTORS)}")
    return {factor.name: factor.count(parameters) for factor in WORK_FACTORS[notebook]}


# ------------------------------------------------------------------------------------------------
# The measured table


def cost_table(
    results_dir: str | os.PathLike, runs: Mapping[str, Mapping[str, Any]], profile: str
) -> list[dict[str, Any]]:
    """One row per run of a profile: its wall time, CPU minutes, peak memory, commit and CPU.

    Parameters
    ----------
    results_dir : path
        ``results/<profile>``, with ``benchmarks/<run>.tsv`` (Snakemake's benchmark: columns
        ``s``, ``max_rss``, ``cpu_time``, ...) and ``provenance/<run>.json`` for every run.
    runs : mapping
        The profile's runs (its config's ``runs``), each with its ``notebook``.
    profile : str
        The profile's name.

    Returns
    -------
    list of dict
        Rows with the keys :data:`COLUMNS`.

    Raises
    ------
    ValueError
        When a run has no benchmark file or provenance record, or the runs were measured at
        different commits (one commit, one table).
    """
    results_dir = Path(results_dir)
    missing = [
        str(results_dir / folder / f"{run}.{ext}")
        for run in runs
        for folder, ext in (("benchmarks", "tsv"), ("provenance", "json"))
        if not (results_dir / folder / f"{run}.{ext}").is_file()
    ]
    if missing:
        raise ValueError(
            f"profile {profile!r}: no cost table without every run's benchmark and provenance; "
            f"missing {', '.join(missing)}"
        )
    records = load_provenance(results_dir, runs)
    rows = []
    for run, spec in runs.items():
        env = records[run]
        git = env.get("git", {})
        rows.append(
            {
                "profile": profile,
                "run": run,
                "notebook": spec["notebook"],
                "wall_s": env["wall_s"],
                "cpu_minutes": env["cpu_s"] / 60,
                "max_rss_mb": env["max_rss_mb"],
                "commit": str(git.get("commit", "unknown")),
                "clean": git.get("clean", "unknown"),
                "cpu_model": str(env.get("cpu_model", "unknown")),
                "cpu_count": env.get("cpu_count", "unknown"),
            }
        )
    check_one_commit(rows, profile)
    return rows


def check_one_commit(rows: Sequence[Mapping[str, Any]], profile: str) -> None:
    """Refuse (``ValueError``) cost rows measured at more than one commit: one table measures
    one commit."""
    commits: dict[str, list[str]] = {}
    for row in rows:
        commits.setdefault(row["commit"], []).append(row["run"])
    if len(commits) > 1:
        raise ValueError(
            f"profile {profile!r}: the runs come from {len(commits)} commits ("
            + "; ".join(f"{c[:10]}: {', '.join(r)}" for c, r in commits.items())
            + "); one table measures one commit: rerun the profile"
        )


def priorities(
    minutes: Mapping[str, float], threads: Mapping[str, int] | None = None
) -> dict[str, float]:
    """Each run's Snakemake priority, as the Snakefile gives it: its CPU minutes, plus every
    run's CPU minutes for each core it takes beyond the first.

    Snakemake starts the set of waiting jobs with the largest sum of priorities that fits the
    free cores. A run's CPU minutes alone would let any two one-core runs outrank a two-core run,
    which then starts last, with one core idle while the last one-core run ends; with the step of
    every run's minutes, runs on more cores start first, and runs on equal cores longest first.

    Examples
    --------
    >>> priorities({"wide": 30.0, "a": 42.0, "b": 40.0}, {"wide": 2})
    {'wide': 142.0, 'a': 42.0, 'b': 40.0}
    """
    threads = threads or {}
    total = sum(minutes.values())
    return {run: m + (int(threads.get(run, 1)) - 1) * total for run, m in minutes.items()}


def makespan(
    minutes: Mapping[str, float],
    cores: int = CORES,
    threads: Mapping[str, int] | None = None,
    priority: Mapping[str, float] | None = None,
) -> float:
    """Minutes until the last run ends when runs start in the Snakefile's order on ``cores``
    cores.

    Snakemake starts the waiting job of highest priority whenever cores are free, and the Snakefile
    gives each run the priority of :func:`priorities`: runs on several cores first, then a greedy
    longest-first schedule. A run with ``threads`` takes ``min(threads, cores)`` cores (Snakemake
    scales a job's threads down to the cores it has) and, by assumption, divides its CPU minutes
    evenly over them.

    Parameters
    ----------
    minutes : mapping
        Each run's CPU minutes.
    cores : int
        Cores of the machine.
    threads : mapping, optional
        Each run's threads (1 when absent).
    priority : mapping, optional
        The order: highest first (default: :func:`priorities` of ``minutes`` and ``threads``).
        Ties keep the order of ``minutes``.

    Returns
    -------
    float
        The makespan in minutes.

    Examples
    --------
    >>> makespan({"a": 3, "b": 3, "c": 2, "d": 2, "e": 2})
    7.0
    """
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise ValueError(f"cores must be a positive integer; got {cores!r}")
    threads = threads or {}
    priority = priorities(minutes, threads) if priority is None else priority
    free = [0.0] * cores
    end = 0.0
    for run in sorted(minutes, key=lambda r: -priority.get(r, 0)):
        width = min(int(threads.get(run, 1)), cores)
        free.sort()
        start = free[width - 1]
        finish = start + minutes[run] / width
        free[:width] = [finish] * width
        end = max(end, finish)
    return end


def write_cost_table(
    rows: Sequence[Mapping[str, Any]],
    csv_path: str | os.PathLike | None = None,
    markdown_path: str | os.PathLike | None = None,
    threads: Mapping[str, int] | None = None,
) -> None:
    """Write the cost table as tidy CSV and, or, Markdown (:func:`render_costs`, with each run's
    ``threads``), atomically."""
    if csv_path is not None:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_value(row[k]) for k in COLUMNS})
        _write_atomic(Path(csv_path), buffer.getvalue())
    if markdown_path is not None:
        _write_atomic(Path(markdown_path), render_costs(rows, threads))


def _csv_value(value: Any) -> Any:
    return f"{value:.4f}" if isinstance(value, float) else value


def read_cost_table(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The rows of a cost table written by :func:`write_cost_table`, numbers as numbers."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        absent = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if absent:
            raise ValueError(f"{path}: not a cost table; it lacks the columns {absent}")
        rows = list(reader)
    for row in rows:
        for column in ("wall_s", "cpu_minutes", "max_rss_mb"):
            try:
                row[column] = float(row[column])
            except ValueError as error:
                raise ValueError(f"{path}: run {row['run']!r}: {column}: {error}") from error
    if len({row["profile"] for row in rows}) > 1 or len({row["commit"] for row in rows}) > 1:
        raise ValueError(f"{path}: a cost table holds one profile measured at one commit")
    return rows


def render_costs(
    rows: Sequence[Mapping[str, Any]], threads: Mapping[str, int] | None = None
) -> str:
    """The cost table as Markdown: a line per run, the total, the makespan (:func:`makespan`, with
    each run's ``threads``; one where absent) and where measured."""
    if not rows:
        raise ValueError("no runs: a cost table needs at least one")
    first = rows[0]
    commit = first["commit"][:10] if first["commit"] != "unknown" else "unknown"
    if any(row["clean"] in (False, "False") for row in rows):
        commit += " (uncommitted changes)"
    cpu = {row["run"]: row["cpu_minutes"] for row in rows}
    total = sum(cpu.values())
    lines = [
        f"CPU time of the `{first['profile']}` profile's runs (Snakemake's benchmark files), "
        f"measured at commit `{commit}` on {first['cpu_model']} ({first['cpu_count']} CPUs); "
        "generated by `python -m ppdp.report costs`.",
        "",
        "| run | wall time | CPU minutes | peak memory (MB) |",
        "|---|---:|---:|---:|",
    ]
    for row in sorted(rows, key=lambda r: -r["cpu_minutes"]):
        lines.append(
            f"| `{row['run']}` | {_duration(row['wall_s'])} | {row['cpu_minutes']:.1f} | "
            f"{row['max_rss_mb']:.0f} |"
        )
    lines += [
        f"| total | | {total:.1f} | |",
        "",
        f"{total:.1f} CPU minutes ({total / 60:.2f} CPU hours); on {CORES} cores, started as "
        "the Snakefile orders them (runs on several cores first, then longest first), the runs "
        f"would end after {makespan(cpu, CORES, threads):.1f} minutes (a schedule computed from "
        "the CPU minutes).",
        "",
    ]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# The estimate for another profile


def estimate_costs(
    runs: Mapping[str, Mapping[str, Any]],
    measured: Sequence[Mapping[str, Any]],
    measured_runs: Mapping[str, Mapping[str, Any]],
    notebooks_dir: str | os.PathLike,
) -> list[dict[str, Any]]:
    """Each run's estimated CPU minutes: measured minutes times the ratio of its work.

    Parameters
    ----------
    runs : mapping
        The target profile's runs (its config's ``runs``).
    measured : sequence of dict
        The measured cost table (:func:`read_cost_table`).
    measured_runs : mapping
        The runs of the measured profile's config: the parameters the table was measured at.
    notebooks_dir : path
        The notebooks' folder (their ``parameters`` cells give the values a profile leaves unset).

    Returns
    -------
    list of dict
        Per run: ``run``, ``notebook``, ``measured_minutes``, ``factor``, ``minutes`` (the
        estimate), ``threads`` and ``work`` (each factor's count at the target's parameters).
    """
    by_run = {row["run"]: row for row in measured}
    missing = [run for run in runs if run not in by_run or run not in measured_runs]
    if missing:
        raise ValueError(
            f"runs {missing} have no measurement in the cost table (measured runs: "
            f"{sorted(by_run)}); every run is scaled from its own measurement"
        )
    out = []
    for run, spec in runs.items():
        base_spec = measured_runs[run]
        if spec["notebook"] != base_spec["notebook"]:
            raise ValueError(
                f"run {run!r}: notebook {spec['notebook']!r} here, {base_spec['notebook']!r} "
                "where it was measured"
            )
        target = work(spec["notebook"], run_parameters(spec, notebooks_dir))
        base = work(base_spec["notebook"], run_parameters(base_spec, notebooks_dir))
        zero = [name for name, count in base.items() if not count > 0]
        if zero:
            raise ValueError(f"run {run!r}: the measured work has no {zero[0]} to scale from")
        factor = math.prod(target[n] / base[n] for n in target)
        minutes = float(by_run[run]["cpu_minutes"])
        out.append(
            {
                "run": run,
                "notebook": spec["notebook"],
                "measured_minutes": minutes,
                "factor": factor,
                "minutes": minutes * factor,
                "threads": int(spec.get("threads", 1)),
                "work": target,
            }
        )
    return out


def render_estimate(
    estimates: Sequence[Mapping[str, Any]], profile: str, measured: Sequence[Mapping[str, Any]]
) -> str:
    """The estimate as a plain-text table, its totals and what it was scaled from."""
    first = measured[0]
    header = ("run", "measured min", "scale factor", "estimated CPU min")
    body = [
        (e["run"], f"{e['measured_minutes']:.1f}", f"{e['factor']:.3g}", f"{e['minutes']:.1f}")
        for e in estimates
    ]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(4)]
    line = "  ".join([f"{{:<{widths[0]}}}"] + [f"{{:>{w}}}" for w in widths[1:]])
    minutes = {e["run"]: e["minutes"] for e in estimates}
    threads = {e["run"]: e["threads"] for e in estimates}
    total = sum(minutes.values())
    span = makespan(minutes, CORES, threads)
    lines = [
        f"profile {profile!r}: estimated from the {first['profile']!r} profile's CPU minutes "
        f"(commit {first['commit'][:10]}, {first['cpu_model']}), scaled by the ratio of each "
        "run's work (ppdp.report.costs.WORK_FACTORS)",
        line.format(*header),
        *(line.format(*row) for row in body),
        f"total: {total:.1f} CPU minutes = {total / 60:.2f} CPU hours",
        f"makespan on {CORES} cores, in the Snakefile's order: {span:.1f} minutes = "
        f"{span / 60:.2f} hours",
    ]
    return "\n".join(lines) + "\n"


def runs_of(config: Mapping[str, Any], where: str) -> dict[str, Mapping[str, Any]]:
    """The ``runs`` of a profile config, each with its ``notebook``."""
    runs = config.get("runs") if isinstance(config, Mapping) else None
    if not isinstance(runs, Mapping) or not all(
        isinstance(s, Mapping) and "notebook" in s for s in runs.values()
    ):
        raise ValueError(f"{where}: expected a profile config whose runs each name a notebook")
    return dict(runs)
