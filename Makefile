# Two commands for a fresh machine with Python 3.11 or newer:
#   make reproduce   create .venv if missing, install, run the default reproduction
#   make test        same set-up, then lint, one smoke run, unit/property tests, pipeline checks, nbval's check
# Other targets: make install, make lab (JupyterLab on notebooks/), make notebooks (re-execute the
# committed notebooks in place), make docs (the documentation site), make reproduce PROFILE=paper,
# make cost PROFILE=paper (what a profile's runs will cost), make benchmarks, make clean. With conda
# (environment.yml), ENV=conda installs into and runs from the active conda environment instead of
# .venv: make test ENV=conda.

PYTHON ?= python3
VENV ?= .venv
PROFILE ?= default
CORES ?= 2

# ENV=conda on the command line: the active conda environment ($CONDA_PREFIX) is the environment.
# (Only from the command line: many shells export a variable ENV of their own.)
ifeq ($(origin ENV),command line)
ifeq ($(ENV),conda)
ifeq ($(CONDA_PREFIX),)
$(error ENV=conda needs an active conda environment (conda activate ppdp); CONDA_PREFIX is not set)
endif
override VENV := $(CONDA_PREFIX)
else ifneq ($(ENV),venv)
$(error ENV must be venv (the default, .venv) or conda (the active conda environment); got '$(ENV)')
endif
endif
BIN := $(abspath $(VENV))/bin
STAMP := $(VENV)/.installed
# a conda environment (ENV=conda, or VENV naming one) is never created here, and its own packages
# (Python, pip, PyTorch from environment.yml) are left to conda
CONDA := $(if $(wildcard $(VENV)/conda-meta),yes)
ifeq ($(CONDA),yes)
PYTHON := $(BIN)/python
PIP_CONSTRAINTS := $(VENV)/.ppdp-constraints.txt
else
PIP_CONSTRAINTS := constraints.txt
endif

export PATH := $(BIN):$(PATH)
export MPLBACKEND := Agg
export PYTHONHASHSEED := 0
# The CPU kernel caps on x86-64 machines with AVX2 (ATEN_CPU_CAPABILITY, NPY_DISABLE_CPU_FEATURES,
# OPENBLAS_CORETYPE, MKL_CBWR; why: lib/ppdp/kernels.py, their one source), exported for every
# recipe so that the tests' processes compute as the pipeline's. The Snakefile and the notebooks'
# Jupyter kernel apply them too, so a route without make gets them as well. A variable already set
# is kept; PPDP_NATIVE_KERNELS=1 applies none. The module runs as a plain script (standard library
# only), before the environment is installed.
define newline


endef
KERNELS_PYTHON := $(firstword $(wildcard $(BIN)/python) $(PYTHON))
$(eval $(subst ;,$(newline),$(shell PPDP_NATIVE_KERNELS="$(PPDP_NATIVE_KERNELS)" $(KERNELS_PYTHON) lib/ppdp/kernels.py make)))
# The offline data mirror (../shared/data beside the project) is found by the data layer itself
# (lib/ppdp/datasets/fetch.py); PPDP_DATA_MIRROR, if set, overrides it.

.PHONY: install reproduce cost test test-cluster lint smoke-run unit doctest nbval notebooks lab docs benchmarks clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt lib/ppdp/kernels.py
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else f"ppdp needs Python 3.11 or newer (numpy, pandas, scipy and matplotlib at the versions constraints.txt pins do); PYTHON=$(PYTHON) is {sys.version.split()[0]}: set PYTHON=/path/to/python3.11")'
ifeq ($(CONDA),yes)
	@test -x $(BIN)/python || { echo "$(VENV) is a conda environment without python: conda env create -f environment.yml" >&2; exit 1; }
	# conda supplies Python, pip and PyTorch's CPU build (environment.yml); pip gets the pins of
	# constraints.txt less those of the distributions conda installed, which it would fight over
	$(BIN)/python -c "$$CONDA_CONSTRAINTS" constraints.txt > $(PIP_CONSTRAINTS)
else
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, alone, at the version constraints.txt pins: resolved together with everything
	# else, pip may prefer a CUDA build of the same version and its gigabytes of dependencies
	$(BIN)/python -m pip install --quiet "$$(grep '^torch==' constraints.txt)"
endif
	$(BIN)/python -m pip install --quiet -c $(PIP_CONSTRAINTS) -e ".[dev]"
	# pycanon (an independent k-anonymity/l-diversity checker used only by tests) pins exact old
	# numpy/pandas/scipy in every release; its own code runs on current ones.
	$(BIN)/python -m pip install --quiet --no-deps -c $(PIP_CONSTRAINTS) pycanon
	# anonymeter (the benchmark's independent risk evaluator) pins numpy<1.27; its evaluators run
	# on current numpy and pandas (tests/test_attack_suite.py); its dependencies come with ".[dev]"
	$(BIN)/python -m pip install --quiet --no-deps -c $(PIP_CONSTRAINTS) anonymeter
	# jsonschema imports rfc3987-syntax (pulled in by jupyter-events for the IRI formats, which no
	# schema here uses) at start-up, and it builds ~35 grammars there: 3 CPU seconds in every
	# Snakemake, papermill, pytest and Sphinx process. Without it jsonschema skips those formats.
	$(BIN)/python -m pip uninstall --quiet --yes rfc3987-syntax
	# the notebooks' kernel "python3" of this environment starts through ppdp.kernels, which applies
	# the CPU kernel caps first: papermill, nbval and JupyterLab compute as the pipeline does
	$(BIN)/python -m ppdp.kernels install-kernelspec --prefix "$(abspath $(VENV))"
	touch $(STAMP)

# constraints.txt less the distributions installed by anything but pip (in a conda environment:
# conda's Python packages, PyTorch and its dependencies among them)
define CONDA_CONSTRAINTS
import importlib.metadata as md, re, sys
def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()
conda = {norm(d.metadata["Name"]) for d in md.distributions() if (d.read_text("INSTALLER") or "").strip() != "pip"}
for line in open(sys.argv[1]):
    name = re.split(r"[=<>!~\s\[;]", line.strip(), maxsplit=1)[0]
    if not name or line.lstrip().startswith("#") or norm(name) not in conda:
        sys.stdout.write(line)
endef
export CONDA_CONSTRAINTS

reproduce: $(STAMP)
	@# Snakemake reads the profile before the Snakefile and names no line for a YAML syntax
	@# error (nor a key given twice): this check names the file, line and column first
	@$(BIN)/python -m ppdp.compendium.yamlfile config/$(PROFILE).yaml
	$(BIN)/snakemake --cores $(CORES) --rerun-incomplete --configfile config/$(PROFILE).yaml
	@if grep -q '^decides:' config/$(PROFILE).yaml; then \
		echo "Report: reports/deciding/$(PROFILE)/ (commit it); figures: figures/$(PROFILE)/"; \
	else echo "Report: reports/$(PROFILE)/reproduction.md; figures: figures/$(PROFILE)/"; fi

# what each run of a profile will cost on two cores, before it runs: the committed report's
# measured CPU minutes (reports/costs.csv, generated with it) scaled by the ratio of each run's work
# (ppdp.report.costs.WORK_FACTORS)
cost: $(STAMP)
	@$(BIN)/python -m ppdp.compendium.yamlfile config/$(PROFILE).yaml
	$(BIN)/python -m ppdp.report cost --config config/$(PROFILE).yaml --measured reports/costs.csv

test: lint unit

LINTED := lib tests benchmarks notebooks docs

lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

# Test processes: one per core of the two-core reference machine. Each test file runs whole in one
# process (--dist loadfile), so its module fixtures are built once; a test's result never depends on
# the process it ran in (every random step is seeded, every notebook runs in a kernel of its own).
TEST_WORKERS ?= 2

# One run of the smoke profile, made before the tests and read by every test that reads a run
# (tests/shared_smoke_run.py): the pipeline's end-to-end checks, the comparison across kernels, the
# routes, nbval's check of the committed notebooks' outputs, the figures papermill embeds. The
# folder records the digest of the sources it was made from; a test refuses it after an edit.
SMOKE_RUN := build/smoke-run

smoke-run: $(STAMP)
	$(BIN)/python tests/shared_smoke_run.py $(SMOKE_RUN)

# unit and property tests, the pipeline tests on the smoke run, nbval's comparison of the committed
# notebooks' checked outputs with that run's executions (tests/test_committed_notebooks.py), and the
# Examples sections of the library's docstrings, executed as written (docs/tests.md), in one session;
# the log ends with the slowest tests, the first place to look when the suite grows slower
unit: smoke-run
	PPDP_SMOKE_RUN=$(abspath $(SMOKE_RUN)) $(BIN)/pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile --durations=15 --doctest-modules tests lib/ppdp

# the docstrings' examples alone
doctest: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider --doctest-modules lib/ppdp

# The smoke profile through profiles/slurm on a single-node SLURM cluster of this machine (root;
# cluster/start --install adds slurm-wlm, slurmdbd, munge, mariadb-server if missing), compared
# with the local smoke run of make test (made again if the sources changed since); fails instead
# of skipping without a cluster. cluster/stop stops it.
test-cluster: $(STAMP)
	cluster/start --install
	$(BIN)/python tests/shared_smoke_run.py --reuse $(SMOKE_RUN)
	PPDP_SMOKE_RUN=$(abspath $(SMOKE_RUN)) PPDP_REQUIRE_SLURM=1 $(BIN)/pytest -q -p no:cacheprovider -rA tests/test_slurm_cluster.py

# nbval itself: every committed notebook executed again with its defaults (make test applies nbval's
# comparison to the smoke run's executions of the same notebooks instead)
nbval: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile --nbval-lax notebooks

# progress bars go to stderr: useful in a run's log, noise in a committed notebook, so dropped;
# each notebook is stamped with the commit it ran from (tests/test_one_commit.py compares it with
# the committed report's)
notebooks: $(STAMP)
	for nb in notebooks/*.ipynb; do $(BIN)/python -m papermill --no-progress-bar $$nb $$nb || exit 1; done
	$(BIN)/python -c "$$STRIP_STDERR" notebooks/*.ipynb

define STRIP_STDERR
import sys, nbformat
from ppdp.report.provenance import stamp_notebook
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if o.get("name") != "stderr"]
    stamp_notebook(nb)
    nbformat.write(nb, path)
endef
export STRIP_STDERR

# JupyterLab on this environment, browsing notebooks/. Its python3 kernel is this environment's
# interpreter (started through ppdp.kernels, with the CPU kernel caps); MPLBACKEND is unset so that
# figures made by hand also show inline. Jupyter refuses to run as root without --allow-root
# (containers and CI runners often are root), so root gets it.
# extra JupyterLab arguments, e.g. make lab LAB_ARGS="--no-browser --port 8890" for a headless server
LAB_ARGS ?=

lab: $(STAMP)
	env -u MPLBACKEND $(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" --LabApp.default_url=/lab/tree/notebooks $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root) $(LAB_ARGS)

# The documentation site in docs/_build/html (open its index.html): docs/, the API reference from
# the docstrings, the notebooks with their committed outputs (not executed) and the committed report.
# Offline; any warning fails it, a cross-reference that resolves to nothing and a public name
# without a docstring included (docs/conf.py). The source directory is the repository itself.
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -n -q -b html -d docs/_build/doctrees -c docs . docs/_build/html
	@echo "Site: docs/_build/html/index.html"

benchmarks: $(STAMP)
	# anonypy: the peer Mondrian of benchmarks/mutual_cover.py (pins old pandas; its code runs on current ones)
	$(BIN)/python -m pip install --quiet --no-deps anonypy
	for b in benchmarks/[!_]*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf results figures/smoke figures/default figures/paper reports/smoke reports/paper .snakemake docs/_build $(SMOKE_RUN)
