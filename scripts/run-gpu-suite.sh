#!/usr/bin/env bash
# Builds onepass for the local GPU, runs the GPU test suite and the GPU
# experiments, and leaves logs, CSVs and provenance in OUTDIR.
#   scripts/run-gpu-suite.sh OUTDIR [SCALE]
# Environment: CUDA_ARCH (default 90), BUILD_DIR (default build-gpu), JOBS,
# CMAKE_PREFIX_PATH for dependencies installed outside the system paths,
# ONEPASS_COMMIT (the commit the meta.json files name, for a copy of the tree without git),
# GPU_EXPERIMENTS (default: every experiments/*.cu program), SKIP_TESTS=1.
set -uo pipefail
out=${1:?usage: run-gpu-suite.sh OUTDIR [SCALE]}
scale=${2:-default}
build=${BUILD_DIR:-build-gpu}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed" >&2
gen=$(command -v ninja >/dev/null && echo "-G Ninja")
cmake -S . -B "$build" $gen -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
  ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
echo "build ok"
status=0
# SCALE paper: the warp Gaussian statistics test draws the article's 2^38 outputs (default 2^36).
[[ "$scale" == paper ]] && export ONEPASS_GAUSSIAN_OUTPUTS_LOG2=${ONEPASS_GAUSSIAN_OUTPUTS_LOG2:-38}
if [[ "${SKIP_TESTS:-0}" != 1 ]]; then
  ctest --test-dir "$build" -L gpu --output-on-failure --timeout 600 > "$out/ctest-gpu.log" 2>&1 || status=1
  tail -15 "$out/ctest-gpu.log"
fi
experiments=${GPU_EXPERIMENTS:-$(for f in experiments/*.cu; do [[ -e $f ]] && basename "$f" .cu; done)}
for e in $experiments; do
  if [[ -x "$build/bin/$e" ]]; then
    "$build/bin/$e" --scale "$scale" --out-dir "$out" 2> "$out/$e.log" || { status=1; tail -5 "$out/$e.log"; }
  fi
done
exit $status
