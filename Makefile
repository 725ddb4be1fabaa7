# onepass — the front door.
#   make figures    reproduce every table and figure (default scale: ~20 min on 2 cores)
#   make test       build and run the CPU test suite, plus a smoke run of the figure pipeline
#   make test-gpu   run the GPU test suite (needs an NVIDIA GPU)
#   make paper      regenerate the report from existing results
#   make deps       install missing Debian packages
#   make record-gpu DEVICE=<slug>   keep this machine's GPU results in git (results/recorded/<slug>/)
#
# On a machine with an NVIDIA GPU (nvidia-smi -L lists one) `make figures` also runs the
# GPU experiments; elsewhere it skips them and the GPU figures come from the newest
# results/recorded/<device>/ copy, when there is one.
#
# Variables: SCALE=smoke|default|paper, BUILD_DIR, RESULTS_DIR, PYTHON, JOBS,
#            CUDA_ARCH (default 90), CMAKE_ARGS, DEVICE (record-gpu).

SHELL := /bin/bash
SCALE ?= default
BUILD_DIR ?= build
RESULTS_DIR ?= results
FIGURES_DIR ?= figures/out
REPORT ?= paper/reproduction.md
JOBS ?= $(shell nproc)
CUDA_ARCH ?= 90
CMAKE_ARGS ?=
# The first interpreter that imports matplotlib (Debian's is /usr/bin/python3).
PYTHON ?= $(shell for p in python3 /usr/bin/python3 python; do \
            $$p -c 'import matplotlib, numpy' >/dev/null 2>&1 && { command -v $$p; break; }; done)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
BIN := $(BUILD_DIR)/bin

# CPU experiments (one program per paper figure/table); see README.md.
CPU_EXPERIMENTS := fig06_chi2_rounds fig07_09_mmd table2_cpu_shuffle gaussian_density gaussian_dieharder gaussian_hermite_failure
# GPU experiments (experiments/*.cu, built when nvcc is found; run only where a GPU is).
GPU_EXPERIMENTS := table1_gpu_shuffle fig10_fusion onesweep_fig09_keys32 onesweep_fig10_pairs32 onesweep_fig11_keys64 \
                   onesweep_table2_digit_width sort_headline gaussian_throughput

.PHONY: all deps configure build test test-gpu figures experiments gpu-experiments plots paper smoke \
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
	$(MAKE) --no-print-directory smoke

# The whole figure pipeline at a tiny scale into a scratch directory, then a check
# that every figure and the report came out.
smoke:
	@scratch=$$(mktemp -d /tmp/onepass-smoke.XXXXXX); \
	echo "smoke: running the figure pipeline at SCALE=smoke into $$scratch"; \
	$(MAKE) --no-print-directory figures SCALE=smoke RESULTS_DIR=$$scratch/results \
	    FIGURES_DIR=$$scratch/figures REPORT=$$scratch/reproduction.md && \
	$(PYTHON) scripts/check_outputs.py --results $$scratch/results --figures $$scratch/figures \
	    --report $$scratch/reproduction.md && rm -rf $$scratch

# SCALE=paper: the warp Gaussian statistics test draws the article's 2^38 outputs (default 2^36).
test-gpu: build
	$(if $(filter paper,$(SCALE)),ONEPASS_GAUSSIAN_OUTPUTS_LOG2=$${ONEPASS_GAUSSIAN_OUTPUTS_LOG2:-38}) \
	ctest --test-dir $(BUILD_DIR) -L gpu --output-on-failure

figures: build
	$(MAKE) --no-print-directory experiments
	$(MAKE) --no-print-directory plots
	$(MAKE) --no-print-directory paper

experiments:
	@set -e; for e in $(CPU_EXPERIMENTS); do \
	  $(BIN)/$$e --scale $(SCALE) --out-dir $(RESULTS_DIR); \
	done
	@$(MAKE) --no-print-directory gpu-experiments

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
# so that machines without a GPU draw the GPU figures from them.
record-gpu:
	@test -n "$(DEVICE)" || { echo "record-gpu: name the device, e.g. make record-gpu DEVICE=h100-sxm5-80gb" >&2; exit 2; }
	@case "$(DEVICE)" in *[!A-Za-z0-9._-]*|.*) echo "record-gpu: DEVICE may hold only letters, digits, '.', '_' and '-' (got '$(DEVICE)')" >&2; exit 2;; esac
	@set -e; dest=results/recorded/$(DEVICE); copied=0; \
	for e in $(GPU_EXPERIMENTS); do \
	  if [ ! -f $(RESULTS_DIR)/$$e.csv ]; then echo "record-gpu: $(RESULTS_DIR)/$$e.csv missing: not recorded" >&2; continue; fi; \
	  test -f $(RESULTS_DIR)/$$e.meta.json || { echo "record-gpu: $(RESULTS_DIR)/$$e.meta.json missing" >&2; exit 1; }; \
	  mkdir -p $$dest; cp $(RESULTS_DIR)/$$e.csv $(RESULTS_DIR)/$$e.meta.json $$dest/; copied=$$((copied + 1)); \
	  if grep -q '"scale": "smoke"' $$dest/$$e.meta.json; then echo "record-gpu: warning: $$e ran at SCALE=smoke (small sizes only); record a default or paper run" >&2; fi; \
	  echo "record-gpu: $$e ($$(sed -n 's/.*"scale": "\([a-z]*\)".*/scale \1/p; s/.*"gpu_name": "\(.*\)".*/\1/p' $$dest/$$e.meta.json | paste -sd, -)) -> $$dest/"; \
	done; \
	test $$copied -gt 0 || { echo "record-gpu: no GPU results in $(RESULTS_DIR); run make figures on a machine with a GPU first" >&2; exit 1; }

plots:
	@test -n "$(PYTHON)" || { echo "no python with matplotlib found; run make deps or set PYTHON=" >&2; exit 1; }
	$(PYTHON) figures/plot_all.py --results $(RESULTS_DIR) --out $(FIGURES_DIR)

paper:
	$(PYTHON) paper/make_report.py --results $(RESULTS_DIR) --figures $(FIGURES_DIR) --out $(REPORT)

clean:
	rm -rf $(BUILD_DIR)

# The warp Gaussian generator's optimised table (issue 5): BFGS + local search
# (stats/table_optimiser, needs libdlib-dev and libnanoflann-dev) rewrites
# lib/data/gaussian_table_optimised.{inc,csv,log}; rebuild afterwards to embed it.
# Deterministic (the .inc and .csv come out byte for byte). Not part of `make figures`.
.PHONY: gaussian-table
gaussian-table: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target gaussian_table_optimiser
	OPENBLAS_NUM_THREADS=1 $(BIN)/gaussian_table_optimiser $(GAUSSIAN_TABLE_ARGS)
