# onepass — the front door.
#   make figures    reproduce every table and figure (default scale: ~20 min on 2 cores)
#   make test       build and run the CPU test suite, plus a smoke run of the figure pipeline
#   make test-gpu   run the GPU test suite (needs an NVIDIA GPU)
#   make paper      regenerate the report from existing results
#   make deps       install missing Debian packages
#
# Variables: SCALE=smoke|default|paper, BUILD_DIR, RESULTS_DIR, PYTHON, JOBS,
#            CUDA_ARCH (default 90), CMAKE_ARGS.

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
CPU_EXPERIMENTS := fig06_chi2_rounds fig07_09_mmd table2_cpu_shuffle

.PHONY: all deps configure build test test-gpu figures experiments plots paper smoke clean

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

test-gpu: build
	ctest --test-dir $(BUILD_DIR) -L gpu --output-on-failure

figures: build
	$(MAKE) --no-print-directory experiments
	$(MAKE) --no-print-directory plots
	$(MAKE) --no-print-directory paper

experiments:
	@set -e; for e in $(CPU_EXPERIMENTS); do \
	  $(BIN)/$$e --scale $(SCALE) --out-dir $(RESULTS_DIR); \
	done

plots:
	@test -n "$(PYTHON)" || { echo "no python with matplotlib found; run make deps or set PYTHON=" >&2; exit 1; }
	$(PYTHON) figures/plot_all.py --results $(RESULTS_DIR) --out $(FIGURES_DIR)

paper:
	$(PYTHON) paper/make_report.py --results $(RESULTS_DIR) --figures $(FIGURES_DIR) --out $(REPORT)

clean:
	rm -rf $(BUILD_DIR)
