# onepass — the front door.
#   make figures    reproduce every table and figure (default scale: ~11 min on 2 cores, see README.md)
#   make test       build and run the CPU test suite and the report's Python unit tests (tests/python),
#                   plus a smoke run of the figure pipeline
#   make test-gpu   run the GPU test suite (needs an NVIDIA GPU)
#   make test-gpu-sanitize   the public GPU primitives under compute-sanitizer's four tools (needs a GPU)
#   make paper      regenerate the report from existing results, and its PDF beside it (REPORT with .pdf
#                   for .md, figures embedded; needs python3-markdown and weasyprint, else says it skipped the PDF)
#   make deps       install missing Debian packages
#   make fig-<name> run the one experiment program behind figure <name> (figures/out/<name>.png), then redraw,
#                   e.g. make fig-fig06_chi2_rounds; names: FIGURE_NAMES below (a GPU figure's program runs
#                   only where a GPU is; elsewhere it is redrawn from results/recorded/<device>/)
#   make record-gpu DEVICE=<slug>   keep this machine's GPU results in git (results/recorded/<slug>/);
#                   refuses results whose meta.json says worktree_dirty: true or names a commit that is not
#                   HEAD or an ancestor of it (paper/provenance.py check). DIRTY_OK_REASON="why" accepts
#                   worktree_dirty only (e.g. a copy of a clean commit carrying git-ignored folders) and
#                   writes the reason as "recorded_note" into each recorded meta.json; FORCE=1 records
#                   anyway, with a loud warning and a recorded_note naming what did not check out.
#
# On a machine with an NVIDIA GPU (nvidia-smi -L lists one) `make figures` also runs the
# GPU experiments; elsewhere it skips them and the GPU figures come from the newest
# results/recorded/<device>/ copy, when there is one.
#
# Variables: SCALE=smoke|default|paper, BUILD_DIR, RESULTS_DIR, PYTHON, JOBS,
#            CUDA_ARCH (default 90), CMAKE_ARGS, DEVICE, FORCE, DIRTY_OK_REASON (record-gpu).
#            REPORT (make paper), REPORT_PDF (default: REPORT with .pdf), PDF_PYTHON, FIGURES_DIR.

SHELL := /bin/bash
SCALE ?= default
BUILD_DIR ?= build
RESULTS_DIR ?= results
FIGURES_DIR ?= figures/out
REPORT ?= paper/reproduction.md
REPORT_PDF ?= $(basename $(REPORT)).pdf
JOBS ?= $(shell nproc)
CUDA_ARCH ?= 90
CMAKE_ARGS ?=
# The first interpreter that imports matplotlib (Debian's is /usr/bin/python3).
PYTHON ?= $(shell for p in python3 /usr/bin/python3 python; do \
            $$p -c 'import matplotlib, numpy' >/dev/null 2>&1 && { command -v $$p; break; }; done)
# The interpreter that writes the report's PDF (scripts/report_pdf.py): the first that imports
# markdown and weasyprint (Debian: python3-markdown, weasyprint), else $(PYTHON), with which the
# script says that it skipped the PDF and why.
PDF_PYTHON ?= $(or $(shell for p in $(PYTHON) /usr/bin/python3 python3; do \
                $$p -c 'import markdown, weasyprint' >/dev/null 2>&1 && { command -v $$p; break; }; done),$(PYTHON))
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
BIN := $(BUILD_DIR)/bin

# The experiments are listed once, in experiments/manifest.toml (README.md, "Adding an experiment"),
# read by figures/manifest.py with the standard library only: MANIFEST_PYTHON is the first python
# that imports tomllib (3.11+), matplotlib or not, so `make test` runs the C++ tests without it.
# The lists below are read on first use only (a rule that runs no experiment never asks).
MANIFEST_PYTHON ?= $(eval MANIFEST_PYTHON := $(shell for p in $(PYTHON) /usr/bin/python3 python3; do \
                     $$p -c 'import tomllib' >/dev/null 2>&1 && { command -v $$p; break; }; done))$(MANIFEST_PYTHON)
# $(call manifest,ARGS): `python3 -m figures.manifest ARGS`, its lines joined by spaces; stops make
# with a message when no python reads the manifest or the manifest is malformed.
# (figures/manifest.py runs as a script, found beside this Makefile whatever the directory make runs in.)
MANIFEST_READER := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))figures/manifest.py
manifest = $(if $(MANIFEST_PYTHON),,$(error no python3 with tomllib (Python 3.11+) to read experiments/manifest.toml; set MANIFEST_PYTHON=))$(shell \
             $(MANIFEST_PYTHON) $(MANIFEST_READER) $(1))$(if $(filter 0,$(.SHELLSTATUS)),,$(error \
             experiments/manifest.toml: `$(MANIFEST_PYTHON) $(MANIFEST_READER) $(1)` failed (message above)))
# $(call lazy,VAR,ARGS): VAR := $(call manifest,ARGS) on first use.
lazy = $(eval $(1) := $(call manifest,$(2)))$($(1))
comma := ,
define newline


endef
# CPU experiments (one program per paper figure/table), in manifest order.
CPU_EXPERIMENTS = $(call lazy,CPU_EXPERIMENTS,names --device cpu --built --in-figures)
# The CPU experiments' further runs (manifest `runs` after the first): TARGET,ARG,ARG... each.
CPU_EXTRA_RUNS = $(call lazy,CPU_EXTRA_RUNS,runs --extra --device cpu --built --in-figures)
# GPU experiments (experiments/*.cu, built when nvcc is found; run only where a GPU is).
GPU_EXPERIMENTS = $(call lazy,GPU_EXPERIMENTS,names --device gpu --built --in-figures)
# GPU results written by Python programs, not built here (experiments/python_peers.py, run on a GPU
# machine by scripts/device-python-gpu.sh OUTDIR; experiments/sampler.py's GPU rows, see README.md):
# `make record-gpu RESULTS_DIR=OUTDIR` records them beside the others; the figures and the report read
# them like any GPU experiment.
PYTHON_GPU_EXPERIMENTS = $(call lazy,PYTHON_GPU_EXPERIMENTS,names --device gpu --python --in-figures)

.PHONY: all deps configure build test test-python test-python-pkg test-gpu test-gpu-long test-gpu-sanitize figures experiments seed-replicates gpu-experiments plots paper smoke \
        record-gpu clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCH) $(CMAKE_ARGS)

configure: $(BUILD_DIR)/CMakeCache.txt

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD_DIR) -L cpu --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory test-python
	$(MAKE) --no-print-directory test-python-pkg
	$(MAKE) --no-print-directory smoke
	$(MAKE) --no-print-directory test-consumer

# examples/consumer/ built against onepass installed into a temporary prefix (find_package;
# also a CPU-only package) and through add_subdirectory, then run: shuffles and sorts on the
# CPU, and on the GPU where nvcc is found (compiled for ONEPASS_CONSUMER_CUDA_ARCHITECTURES,
# default 90; without a GPU it says "skipped: no GPU"). About 1.5 minutes of CPU on 2 cores.
.PHONY: test-consumer
test-consumer:
	JOBS=$(JOBS) bash scripts/test-consumer.sh

# Unit tests of the report generator's verdicts and provenance (tests/python; no build needed).
test-python:
	$(PYTHON) -m unittest discover -s tests/python -t . -p 'test_*.py'

# The Python package (python/; `pip install .` builds it with scikit-build-core): nanobind is
# fetched with pip into PY_DEPS when it is not importable, the extension built by CMake into
# PY_EXT (CPU only), then tests/python_pkg run against it and the built CLI. Without nanobind
# (offline) or Python's headers (Debian: python3-dev) it says so in one line and skips.
PY_DEPS ?= $(BUILD_DIR)/py-deps
PY_EXT ?= $(BUILD_DIR)/python-ext
test-python-pkg:
	@if ! PYTHONPATH=$(PY_DEPS) $(PYTHON) -c 'import nanobind' 2>/dev/null; then \
	  $(PYTHON) -m pip install -q --disable-pip-version-check --root-user-action=ignore --target $(PY_DEPS) \
	    'nanobind>=2.0' >/dev/null 2>&1 || true; \
	fi; \
	if ! PYTHONPATH=$(PY_DEPS) $(PYTHON) -c 'import nanobind' 2>/dev/null; then \
	  echo "test-python-pkg: nanobind is not importable and pip could not fetch it (offline?): Python package tests skipped"; \
	  exit 0; \
	fi; \
	if ! $(PYTHON) -c 'import os, sysconfig; raise SystemExit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then \
	  echo "test-python-pkg: no Python.h for $(PYTHON) (Debian: python3-dev): Python package tests skipped"; \
	  exit 0; \
	fi; \
	set -e; \
	PYTHONPATH=$(PY_DEPS) cmake -S . -B $(PY_EXT) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DONEPASS_PYTHON=ON \
	  -DONEPASS_BUILD_TESTS=OFF -DONEPASS_BUILD_EXPERIMENTS=OFF -DONEPASS_BUILD_CLI=OFF -DONEPASS_ENABLE_CUDA=OFF \
	  -DONEPASS_INSTALL=OFF -DONEPASS_NATIVE=OFF -DPython_EXECUTABLE=$(PYTHON) > $(PY_EXT).log 2>&1 \
	  || { tail -20 $(PY_EXT).log; exit 1; }; \
	cmake --build $(PY_EXT) --target _onepass -j $(JOBS) >> $(PY_EXT).log 2>&1 || { tail -30 $(PY_EXT).log; exit 1; }; \
	ONEPASS_CLI=$(abspath $(BIN))/onepass PYTHONPATH=$(PY_EXT)/python $(PYTHON) -m unittest discover -s tests/python_pkg -p 'test_*.py'

# The CPU extension's type stub python/onepass/_onepass.pyi, regenerated with nanobind's stubgen
# from the extension that test-python-pkg builds (tests/python_pkg checks that it lists every member).
.PHONY: python-stubs
python-stubs: test-python-pkg
	PYTHONPATH=$(PY_DEPS):$(PY_EXT)/python $(PYTHON) -m nanobind.stubgen -m onepass._onepass -o python/onepass/_onepass.pyi

# The whole figure pipeline at a tiny scale into a scratch directory, then a check
# that every figure and the report came out.
smoke:
	@scratch=$$(mktemp -d /tmp/onepass-smoke.XXXXXX); \
	echo "smoke: running the figure pipeline at SCALE=smoke into $$scratch"; \
	$(MAKE) --no-print-directory figures SCALE=smoke RESULTS_DIR=$$scratch/results \
	    FIGURES_DIR=$$scratch/figures REPORT=$$scratch/reproduction.md && \
	$(PYTHON) -m scripts.check_outputs --results $$scratch/results --figures $$scratch/figures \
	    --report $$scratch/reproduction.md && rm -rf $$scratch

# SCALE=paper: the warp Gaussian statistics test draws the article's 2^38 outputs (default 2^36).
# Without a GPU it says so in one line and runs nothing (each GPU test would only skip).
test-gpu: build
	@if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then \
	  echo "test-gpu: no NVIDIA GPU here (nvidia-smi -L lists none): the $$(ctest --test-dir $(BUILD_DIR) -L gpu -N 2>/dev/null | sed -n 's/^Total Tests: //p') GPU tests were skipped, none ran"; \
	else \
	  $(if $(filter paper,$(SCALE)),ONEPASS_GAUSSIAN_OUTPUTS_LOG2=$${ONEPASS_GAUSSIAN_OUTPUTS_LOG2:-38}) \
	  ctest --test-dir $(BUILD_DIR) -L gpu --output-on-failure; \
	fi

# Every public GPU primitive at small sizes under compute-sanitizer's memcheck, racecheck,
# synccheck and initcheck (scripts/gpu-sanitize.sh; logs in $(RESULTS_DIR)/sanitize/).
test-gpu-sanitize: build
	@if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then \
	  echo "test-gpu-sanitize: no NVIDIA GPU here (nvidia-smi -L lists none): nothing ran"; \
	else \
	  bash scripts/gpu-sanitize.sh $(BUILD_DIR) $(RESULTS_DIR)/sanitize; \
	fi

# The GPU tests of minutes (label gpu_long: more than 2^31 elements, crowded digit places).
test-gpu-long: build
	@if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then \
	  echo "test-gpu-long: no NVIDIA GPU here (nvidia-smi -L lists none): the $$(ctest --test-dir $(BUILD_DIR) -L gpu_long -N 2>/dev/null | sed -n 's/^Total Tests: //p') long GPU tests were skipped, none ran"; \
	else \
	  ctest --test-dir $(BUILD_DIR) -L gpu_long --output-on-failure; \
	fi

figures: build
	$(MAKE) --no-print-directory experiments
	$(MAKE) --no-print-directory plots
	$(MAKE) --no-print-directory paper

# Each CPU experiment once, then the further runs its manifest entry lists (gaussian_dieharder again
# with --generator float_native: issue 30's float-native generator, gaussian_dieharder_float_native.csv).
experiments:
	@set -e; for e in $(CPU_EXPERIMENTS); do \
	  $(BIN)/$$e --scale $(SCALE) --out-dir $(RESULTS_DIR); \
	done
	$(foreach r,$(CPU_EXTRA_RUNS),@$(BIN)/$(subst $(comma), ,$(r)) --scale $(SCALE) --out-dir $(RESULTS_DIR)$(newline))
	@$(MAKE) --no-print-directory seed-replicates
	@$(MAKE) --no-print-directory gpu-experiments

# The χ² and MMD programs again with other seeds (the report's "χ² and MMD over several seeds";
# which programs, with which arguments: the manifest's `seed_replicate`): replicate k in RESULTS_DIR/seeds/k/ with base seed 1 + k * 2^40 (sample j uses base + j, so
# the replicates share no seed). The MMD replicates test n = 5 and 100 with REPLICATE_MMD_SAMPLES
# permutations each (n = 1000 costs ~40 us a sample). Default scale: about 2 minutes on 2 cores.
SEED_REPLICATES ?= $(if $(filter smoke,$(SCALE)),1,4)
REPLICATE_MMD_SAMPLES ?= $(if $(filter smoke,$(SCALE)),2000,100000)
# The programs and their arguments: the manifest's `seed_replicate` entries (TARGET,ARG,ARG... each).
SEED_REPLICATE_RUNS = $(call lazy,SEED_REPLICATE_RUNS,replicate-runs --built)
seed-replicates:
	@set -e; for k in $$(seq 1 $(SEED_REPLICATES)); do \
	  seed=$$((1 + k * 1099511627776)); mkdir -p $(RESULTS_DIR)/seeds/$$k; \
	  for run in $(subst {REPLICATE_MMD_SAMPLES},$(REPLICATE_MMD_SAMPLES),$(SEED_REPLICATE_RUNS)); do \
	    set -- $$(echo "$$run" | tr ',' ' '); exe=$$1; shift; \
	    $(BIN)/$$exe --scale $(SCALE) --seed $$seed "$$@" --out-dir $(RESULTS_DIR)/seeds/$$k; \
	  done; \
	done

# Runs the GPU experiments when this machine has a GPU and they were built; otherwise one line.
gpu-experiments:
	@if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then \
	  echo "experiments: no NVIDIA GPU here (nvidia-smi -L lists none): GPU experiments skipped; GPU figures come from results/recorded/<device>/ when present"; \
	elif ! ( for e in $(GPU_EXPERIMENTS); do test -x $(BIN)/$$e || exit 1; done ); then \
	  echo "experiments: GPU binaries not built in $(BIN) (no nvcc at configure time?): GPU experiments skipped"; \
	else \
	  status=0; for e in $(GPU_EXPERIMENTS); do \
	    $(BIN)/$$e --scale $(SCALE) --out-dir $(RESULTS_DIR) || { echo "experiments: $$e failed (exit $$?)" >&2; status=1; }; \
	  done; \
	  exit $$status; \
	fi

# Copies the GPU results of $(RESULTS_DIR) to results/recorded/$(DEVICE)/, to be committed,
# so that machines without a GPU draw the GPU figures from them. Checks their provenance first
# (see the header: worktree_dirty, commit not HEAD or an ancestor; DIRTY_OK_REASON, FORCE=1).
record-gpu:
	@test -n "$(DEVICE)" || { echo "record-gpu: name the device, e.g. make record-gpu DEVICE=h100-sxm5-80gb" >&2; exit 2; }
	@case "$(DEVICE)" in *[!A-Za-z0-9._-]*|.*) echo "record-gpu: DEVICE may hold only letters, digits, '.', '_' and '-' (got '$(DEVICE)')" >&2; exit 2;; esac
	@set -e; dest=results/recorded/$(DEVICE); found=""; \
	for e in $(GPU_EXPERIMENTS) $(PYTHON_GPU_EXPERIMENTS); do \
	  if [ ! -f $(RESULTS_DIR)/$$e.csv ]; then echo "record-gpu: $(RESULTS_DIR)/$$e.csv missing: not recorded" >&2; continue; fi; \
	  test -f $(RESULTS_DIR)/$$e.meta.json || { echo "record-gpu: $(RESULTS_DIR)/$$e.meta.json missing" >&2; exit 1; }; \
	  found="$$found $$e"; \
	done; \
	test -n "$$found" || { echo "record-gpu: no GPU results in $(RESULTS_DIR); run make figures on a machine with a GPU first" >&2; exit 1; }; \
	note=$$($(MANIFEST_PYTHON) paper/provenance.py check $$(for e in $$found; do echo $(RESULTS_DIR)/$$e.meta.json; done)) || exit 1; \
	for e in $$found; do \
	  mkdir -p $$dest; cp $(RESULTS_DIR)/$$e.csv $(RESULTS_DIR)/$$e.meta.json $$dest/; \
	  if [ -n "$$note" ]; then $(MANIFEST_PYTHON) paper/provenance.py note "$$note" $$dest/$$e.meta.json; fi; \
	  if grep -q '"scale": "smoke"' $$dest/$$e.meta.json; then echo "record-gpu: warning: $$e ran at SCALE=smoke (small sizes only); record a default or paper run" >&2; fi; \
	  echo "record-gpu: $$e ($$(sed -n 's/.*"scale": "\([a-z]*\)".*/scale \1/p; s/.*"gpu\(_name\)\{0,1\}": "\(.*\)".*/\2/p' $$dest/$$e.meta.json | paste -sd, -)) -> $$dest/"; \
	done

plots:
	@test -n "$(PYTHON)" || { echo "no python with matplotlib found; run make deps or set PYTHON=" >&2; exit 1; }
	$(PYTHON) -m figures.plot_all --results $(RESULTS_DIR) --out $(FIGURES_DIR)

paper:
	$(PYTHON) -m paper.make_report --results $(RESULTS_DIR) --figures $(FIGURES_DIR) --out $(REPORT)
	@$(PDF_PYTHON) scripts/report_pdf.py $(REPORT) $(REPORT_PDF)

clean:
	rm -rf $(BUILD_DIR)

# The warp Gaussian generator's optimised table (article "Training a random Gaussian generator",
# section "Optimising the lookup table"): BFGS + local search (stats/table_optimiser, needs
# libdlib-dev and libnanoflann-dev) rewrites lib/data/gaussian_table_optimised.{inc,csv,log};
# rebuild afterwards to embed it.
# Deterministic (the .inc and .csv come out byte for byte). Not part of `make figures`.
.PHONY: gaussian-table
gaussian-table: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target gaussian_table_optimiser
	OPENBLAS_NUM_THREADS=1 $(BIN)/gaussian_table_optimiser $(GAUSSIAN_TABLE_ARGS)

# make fig-<name>: the one experiment program that makes figure <name> (built first, its target
# only), then figures/plot_all.py, which draws every figure it has results for (it cannot draw
# one alone), then a check that $(FIGURES_DIR)/<name>.png was written. A GPU experiment runs
# only where nvidia-smi finds a GPU; elsewhere the figure is drawn from the newest
# results/recorded/<device>/ copy, as in `make figures`. The manifest (experiments/manifest.toml) names
# the experiment that draws each figure.
FIGURE_NAMES = $(call lazy,FIGURE_NAMES,figures --built --in-figures)

# The multi-GPU figures (figures/multi_gpu_results.py): drawn from the recorded 4-GPU runs,
# results/recorded/<device>/multi_gpu_sort.csv and multi_gpu_shuffle_medians-*.csv (or a fresh
# multi_gpu_sort.csv / multi_gpu_shuffle.csv in RESULTS_DIR); they need no GPU and no build.
# fig-multi_gpu_sort draws multi_gpu_sort_strong, _weak and _skew; fig-multi_gpu_shuffle multi_gpu_shuffle.
.PHONY: fig-multi_gpu_sort fig-multi_gpu_shuffle
fig-multi_gpu_sort fig-multi_gpu_shuffle:
	@test -n "$(PYTHON)" || { echo "no python with matplotlib found; run make deps or set PYTHON=" >&2; exit 1; }
	$(PYTHON) -m figures.multi_gpu_results --results $(RESULTS_DIR) --out $(FIGURES_DIR) --only $(patsubst fig-multi_gpu_%,%,$@)

fig-%: deps configure
	@set -e; fig=$*; exp=$(or $(call manifest,experiment-of $*),$*); \
	if [[ " $(CPU_EXPERIMENTS) " == *" $$exp "* ]]; then run=1; \
	elif [[ " $(GPU_EXPERIMENTS) " == *" $$exp "* ]]; then \
	  if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then run=1; else run=0; \
	    echo "fig-$$fig: no NVIDIA GPU here (nvidia-smi -L lists none): $$exp not run; the figure comes from results/recorded/<device>/"; fi; \
	else echo "fig-$$fig: no experiment makes a figure '$$fig'; figures: $(FIGURE_NAMES)" >&2; exit 2; fi; \
	if [ $$run = 1 ]; then \
	  cmake --build $(BUILD_DIR) -j $(JOBS) --target $$exp; \
	  $(BIN)/$$exp --scale $(SCALE) --out-dir $(RESULTS_DIR); \
	fi; \
	test -n "$(PYTHON)" || { echo "no python with matplotlib found; run make deps or set PYTHON=" >&2; exit 1; }; \
	stamp=$$(mktemp); trap 'rm -f "$$stamp"' EXIT; status=0; \
	$(PYTHON) -m figures.plot_all --results $(RESULTS_DIR) --out $(FIGURES_DIR) || status=$$?; \
	if [ $(FIGURES_DIR)/$$fig.png -nt "$$stamp" ]; then \
	  echo "fig-$$fig: wrote $(FIGURES_DIR)/$$fig.png and .pdf (experiment $$exp)"; \
	  if [ $$status != 0 ]; then echo "fig-$$fig: plot_all.py's errors above are about other figures, whose experiments have not run into $(RESULTS_DIR)"; fi; \
	else echo "fig-$$fig: plot_all.py did not draw $(FIGURES_DIR)/$$fig.png (exit $$status; see above)" >&2; exit 1; fi
