# Two commands for a fresh machine with Python 3.11 or newer:
#   make reproduce   create .venv if missing, install, run the default reproduction
#   make test        same set-up, then lint, unit/property tests, pipeline checks and nbval
# Other targets: make install, make lab (JupyterLab on notebooks/), make notebooks (re-execute the
# committed notebooks in place), make docs (the documentation site), make reproduce PROFILE=paper,
# make benchmarks, make clean.

PYTHON ?= python3
VENV ?= .venv
BIN := $(abspath $(VENV))/bin
STAMP := $(VENV)/.installed
PROFILE ?= default
CORES ?= 2

# The offline mirror of the datasets that live only in the authors' repositories.
ifneq ($(wildcard ../shared/data/MANIFEST.md),)
export PPDP_DATA_MIRROR ?= $(abspath ../shared/data)
endif
export PATH := $(BIN):$(PATH)
export MPLBACKEND := Agg
export PYTHONHASHSEED := 0
# Kernels for AVX512 round differently from those for AVX2: with the same code and seeds, PyTorch's
# trained other IMPOSTER networks, numpy's loops moved SPPM's Frank-Wolfe steps, and OpenBLAS picks
# its kernel by the CPU too. Capped at AVX2, every x86-64 machine with AVX2 (Intel since 2013, AMD
# since 2015) computes alike; the report records the kernels of each run. PyTorch's matrix products
# run in the MKL it ships, which picks its kernels by the CPU's vendor as well as its instruction
# set (AVX2 and MKL_CBWR=AVX2 still differ between Intel and AMD); its COMPATIBLE branch gives the
# same bits on both.
ifneq ($(shell grep -m1 -o -w avx2 /proc/cpuinfo 2>/dev/null),)
export ATEN_CPU_CAPABILITY ?= avx2
export NPY_DISABLE_CPU_FEATURES ?= X86_V4 AVX512_ICL AVX512_SPR
export OPENBLAS_CORETYPE ?= Haswell
export MKL_CBWR ?= COMPATIBLE
endif

.PHONY: install reproduce test test-cluster lint unit doctest nbval notebooks lab docs benchmarks clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else f"ppdp needs Python 3.11 or newer (numpy, pandas, scipy and matplotlib at the versions constraints.txt pins do); PYTHON=$(PYTHON) is {sys.version.split()[0]}: set PYTHON=/path/to/python3.11")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, alone, at the version constraints.txt pins: resolved together with everything
	# else, pip may prefer a CUDA build of the same version and its gigabytes of dependencies
	$(BIN)/python -m pip install --quiet "$$(grep '^torch==' constraints.txt)"
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev]"
	# pycanon (an independent k-anonymity/l-diversity checker used only by tests) pins exact old
	# numpy/pandas/scipy in every release; its own code runs on current ones.
	$(BIN)/python -m pip install --quiet --no-deps -c constraints.txt pycanon
	# anonymeter (the benchmark's independent risk evaluator) pins numpy<1.27; its evaluators run
	# on current numpy and pandas (tests/test_attack_suite.py); its dependencies come with ".[dev]"
	$(BIN)/python -m pip install --quiet --no-deps -c constraints.txt anonymeter
	touch $(STAMP)

reproduce: $(STAMP)
	@# Snakemake reads the profile before the Snakefile and names no line for a YAML syntax
	@# error (nor a key given twice): this check names the file, line and column first
	@$(BIN)/python -m ppdp.yamlfile config/$(PROFILE).yaml
	$(BIN)/snakemake --cores $(CORES) --rerun-incomplete --configfile config/$(PROFILE).yaml
	@echo "Report: reports/$(PROFILE)/reproduction.md; figures: figures/$(PROFILE)/"

test: lint unit doctest nbval

LINTED := lib tests benchmarks notebooks docs

lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

# Test processes: one per core of the two-core reference machine. Each test file runs whole in one
# process (--dist loadfile), so its module fixtures are built once; a test's result never depends on
# the process it ran in (every random step is seeded, every notebook runs in a kernel of its own).
TEST_WORKERS ?= 2

# unit and property tests, plus the pipeline tests (snakemake dry runs, a real smoke run, determinism);
# the log ends with the slowest tests, the first place to look when the suite grows slower
unit: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile --durations=15 tests

# the Examples sections of the library's docstrings, executed as written (docs/tests.md)
doctest: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider --doctest-modules lib/ppdp

# The smoke profile through profiles/slurm on a single-node SLURM cluster of this machine (root;
# cluster/start --install adds slurm-wlm, slurmdbd, munge, mariadb-server if missing), compared
# with a local smoke run; fails instead of skipping without a cluster. cluster/stop stops it.
test-cluster: $(STAMP)
	cluster/start --install
	PPDP_REQUIRE_SLURM=1 $(BIN)/pytest -q -p no:cacheprovider -rA tests/test_slurm_cluster.py

nbval: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile --nbval-lax notebooks

# progress bars go to stderr: useful in a run's log, noise in a committed notebook, so dropped
notebooks: $(STAMP)
	for nb in notebooks/*.ipynb; do $(BIN)/python -m papermill --no-progress-bar $$nb $$nb || exit 1; done
	$(BIN)/python -c "$$STRIP_STDERR" notebooks/*.ipynb

define STRIP_STDERR
import sys, nbformat
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if o.get("name") != "stderr"]
    nbformat.write(nb, path)
endef
export STRIP_STDERR

# JupyterLab on this environment, browsing notebooks/. Its python3 kernel is this environment's
# interpreter; MPLBACKEND is unset so that figures made by hand also show inline.
# extra JupyterLab arguments, e.g. make lab LAB_ARGS="--no-browser --port 8890" for a headless server
LAB_ARGS ?=

lab: $(STAMP)
	env -u MPLBACKEND $(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" --LabApp.default_url=/lab/tree/notebooks $(LAB_ARGS)

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
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf results figures/smoke figures/default figures/paper reports/smoke reports/paper .snakemake docs/_build
