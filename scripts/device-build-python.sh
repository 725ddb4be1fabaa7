#!/usr/bin/env bash
# scripts/device-build-python.sh — builds the Python extension (CPU and CUDA modules) on a GPU
# machine for the device suites (device-sampler-suite.sh, device-multi-gpu-suite.sh):
#   scripts/device-build-python.sh PYTHON BUILD_DIR OUTDIR JOBS [cmake -D... for the prefix]
# Logs configure-py.log and build-py.log in OUTDIR; exits nonzero (printing the errors) on failure.
set -uo pipefail
py=${1:?usage: device-build-python.sh PYTHON BUILD_DIR OUTDIR JOBS [CMAKE_ARGS...]}
build=${2:?} out=${3:?} jobs=${4:?}
shift 4
gen=$(command -v ninja >/dev/null && echo "-G Ninja")
nanobind_dir=$("$py" -m nanobind --cmake_dir 2>/dev/null) || { echo "no nanobind for $py"; exit 1; }
# shellcheck disable=SC2086
cmake -S . -B "$build" $gen -DCMAKE_BUILD_TYPE=Release -DONEPASS_PYTHON=ON -DONEPASS_BUILD_TESTS=OFF \
  -DONEPASS_BUILD_EXPERIMENTS=OFF -DONEPASS_BUILD_CLI=OFF -DONEPASS_ENABLE_CUDA=ON -DONEPASS_INSTALL=OFF \
  -DONEPASS_NATIVE=OFF -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DPython_EXECUTABLE="$py" \
  -Dnanobind_DIR="$nanobind_dir" "$@" > "$out/configure-py.log" 2>&1 \
  || { tail -30 "$out/configure-py.log"; exit 1; }
cmake --build "$build" --target _onepass _onepass_cuda -j "$jobs" > "$out/build-py.log" 2>&1 \
  || { grep -E "error" "$out/build-py.log" | head -40; exit 1; }
