# The compendium's DAG: every notebook of a profile, executed by papermill with that profile's
# parameters, then the reproduction report.
#
#   snakemake --cores 2 --configfile config/default.yaml      # one profile
#   snakemake --cores 2 --configfile config/smoke.yaml        # CI scale, seconds per notebook
#   snakemake --profile profiles/slurm --configfile config/paper.yaml   # a SLURM cluster
#
# Outputs of a run named R under profile P:
#   results/P/R.ipynb        the executed notebook
#   results/P/R.csv          tidy results (experiment, method, parameters, seed, metric, value)
#   figures/P/R/*.png|pdf    the figures
#   reports/P/reproduction.md   claims vs measured values (the default profile also writes
#                               reports/reproduction.md, the committed copy)
import json
import shlex
import sys
from pathlib import Path

BASE = Path(workflow.basedir)
# the interpreter that runs Snakemake, so jobs use the same environment without activating it
PYTHON = shlex.quote(sys.executable)


configfile: str(BASE / "config" / "smoke.yaml")


PROFILE = config["profile"]
RUNS = config["runs"]
for _name, _run in RUNS.items():
    if not (BASE / "notebooks" / f"{_run['notebook']}.ipynb").exists():
        raise ValueError(
            f"config profile {PROFILE!r}, run {_name!r}: notebook "
            f"notebooks/{_run['notebook']}.ipynb does not exist"
        )

REPORTS = [f"reports/{PROFILE}/reproduction.md"]
if PROFILE == "default":
    REPORTS.append("reports/reproduction.md")


wildcard_constraints:
    profile=PROFILE,
    run="|".join(RUNS),


rule all:
    input:
        REPORTS,


rule notebook:
    input:
        notebook=lambda wc: str(BASE / "notebooks" / f"{RUNS[wc.run]['notebook']}.ipynb"),
    output:
        notebook="results/{profile}/{run}.ipynb",
        csv="results/{profile}/{run}.csv",
        figures=directory("figures/{profile}/{run}"),
    log:
        "results/{profile}/logs/{run}.log",
    params:
        parameters=lambda wc, output, threads: shlex.quote(
            json.dumps(
                {
                    **RUNS[wc.run].get("parameters", {}),
                    # a run that asks for threads gets the number granted as its n_jobs
                    **({"n_jobs": threads} if "threads" in RUNS[wc.run] else {}),
                    "profile": wc.profile,
                    "results_csv": output.csv,
                    "figures_dir": output.figures,
                }
            )
        ),
        partial=lambda wc: f"results/{wc.profile}/{wc.run}.partial.ipynb",
    # most notebooks compute on one core; a run that benefits from more sets `threads` in the config
    threads: lambda wc: RUNS[wc.run].get("threads", 1)
    resources:
        mem_mb=lambda wc: RUNS[wc.run].get("mem_mb", 4000),
        runtime=lambda wc: RUNS[wc.run].get("runtime_min", 60),
        # on a cluster, a job gets the cores its threads use
        cpus_per_task=lambda wc, threads: threads,
    # papermill writes the executed notebook to a .partial file that is renamed only on success,
    # and the notebook writes its CSV atomically as its last step; Snakemake removes the figures of
    # a failed job, so a failed run leaves nothing that looks complete.
    shell:
        "mkdir -p {output.figures} && "
        "{PYTHON} -m papermill --no-progress-bar --log-output {input.notebook} {params.partial} "
        "-y {params.parameters} > {log} 2>&1 && "
        "mv {params.partial} {output.notebook}"


rule report:
    input:
        claims=str(BASE / "claims.yaml"),
        csv=expand("results/{{profile}}/{run}.csv", run=RUNS),
    output:
        "reports/{profile}/reproduction.md",
    shell:
        "{PYTHON} -m ppdp.report --claims {input.claims} --results results/{wildcards.profile} "
        "--figures figures/{wildcards.profile} --profile {wildcards.profile} --output {output}"


rule publish_report:
    input:
        claims=str(BASE / "claims.yaml"),
        report="reports/default/reproduction.md",
    output:
        "reports/reproduction.md",
    shell:
        "{PYTHON} -m ppdp.report --claims {input.claims} --results results/default "
        "--figures figures/default --profile default --output {output}"
