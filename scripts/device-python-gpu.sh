#!/usr/bin/env bash
# The Python package's GPU path on a GPU machine: builds the extension only
# (onepass._onepass, CPU, and onepass._onepass_cuda, CUDA) with CMake, runs the GPU and CPU
# Python tests, then the benchmark experiments/python_peers.py into OUTDIR.
#   scripts/device-python-gpu.sh OUTDIR
# Run from the repository root. Environment:
#   PYTHON               interpreter with nanobind, numpy, pytest, torch/cupy/jax (default
#                        /opt/torch/.venv/bin/python, else python3)
#   ONEPASS_DEPS_PREFIX  prefix of dependencies not installed system-wide (oneTBB):
#                        added to CMAKE_PREFIX_PATH and its lib/x86_64-linux-gnu (and lib)
#                        to LD_LIBRARY_PATH
#   CUDA_ARCH (90), BUILD_DIR (build-pygpu), JOBS (16), BENCH_ARGS (extra benchmark flags)
# Writes OUTDIR/{nvidia-smi.txt, configure.log, build.log, _onepass_cuda.pyi (the CUDA module's
# type stub, kept in git as python/onepass/_onepass_cuda.pyi), test-gpu.log, test-cpu.log,
# python_peers.csv, python_peers.meta.json, python_peers.log}. Exit status: 0 when every
# step passed.
set -uo pipefail
out=${1:?usage: scripts/device-python-gpu.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x /opt/torch/.venv/bin/python ]]; then PYTHON=/opt/torch/.venv/bin/python; else PYTHON=python3; fi
fi
build=${BUILD_DIR:-build-pygpu}
jobs=${JOBS:-16}
status=0
section() { printf '\n==== %s ====\n' "$*"; }
started=$SECONDS

section "machine"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 && head -15 "$out/nvidia-smi.txt" || echo "nvidia-smi failed"
"$PYTHON" --version
prefix_args=()
if [[ -n "${ONEPASS_DEPS_PREFIX:-}" ]]; then
  prefix_args=(-DCMAKE_PREFIX_PATH="$ONEPASS_DEPS_PREFIX")
  export LD_LIBRARY_PATH="$ONEPASS_DEPS_PREFIX/lib/x86_64-linux-gnu:$ONEPASS_DEPS_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export PATH="/usr/local/cuda/bin:$PATH"
export XLA_PYTHON_CLIENT_PREALLOCATE=false  # JAX shares the GPU with torch and CuPy in one process
nanobind_dir=$("$PYTHON" -m nanobind --cmake_dir 2>/dev/null) || { echo "nanobind is not importable by $PYTHON"; exit 1; }

section "configure (extension only, CUDA on, sm_${CUDA_ARCH:-90})"
gen=$(command -v ninja >/dev/null && echo "-G Ninja")
cmake -S . -B "$build" $gen -DCMAKE_BUILD_TYPE=Release -DONEPASS_PYTHON=ON -DONEPASS_BUILD_TESTS=OFF \
  -DONEPASS_BUILD_EXPERIMENTS=OFF -DONEPASS_BUILD_CLI=OFF -DONEPASS_ENABLE_CUDA=ON -DONEPASS_INSTALL=OFF \
  -DONEPASS_NATIVE=OFF -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DPython_EXECUTABLE="$PYTHON" \
  -Dnanobind_DIR="$nanobind_dir" "${prefix_args[@]}" > "$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
grep -E "onepass: Python CUDA module" "$out/configure.log"
grep -q "onepass: Python CUDA module ON" "$out/configure.log" || { echo "the CUDA module is not configured"; exit 1; }

section "build _onepass and _onepass_cuda (-j $jobs)"
cmake --build "$build" --target _onepass _onepass_cuda -j "$jobs" > "$out/build.log" 2>&1 \
  || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
ls -l "$build"/python/onepass/*.so
echo "build ok ($((SECONDS - started)) s)"
build_abs=$(cd "$build" && pwd)  # BUILD_DIR may be absolute or relative
export PYTHONPATH="$build_abs/python"
"$PYTHON" -c 'import onepass, onepass._gpu as g; print("onepass", onepass.__version__, "CUDA module:", g.available(), "devices:", g._cu.device_count() if g.available() else 0)'

section "type stub of the CUDA module -> $out/_onepass_cuda.pyi (nanobind stubgen; commit it as python/onepass/_onepass_cuda.pyi)"
"$PYTHON" -m nanobind.stubgen -m onepass._onepass_cuda -o "$out/_onepass_cuda.pyi" 2>&1 | tail -2 || status=1
if [[ ! -f python/onepass/_onepass_cuda.pyi && -f "$out/_onepass_cuda.pyi" ]]; then
  echo "python/onepass/_onepass_cuda.pyi is not in this tree: the fresh stub is placed beside the built package"
  cp "$out/_onepass_cuda.pyi" "$build/python/onepass/"
elif [[ -f python/onepass/_onepass_cuda.pyi ]] && ! cmp -s python/onepass/_onepass_cuda.pyi "$out/_onepass_cuda.pyi"; then
  echo "python/onepass/_onepass_cuda.pyi differs from the fresh stub: commit $out/_onepass_cuda.pyi"
fi

section "GPU tests (tests/python_pkg/test_onepass_gpu.py)"
if "$PYTHON" -c 'import pytest' 2>/dev/null; then
  timeout 300 "$PYTHON" -m pytest -v -rs -p no:cacheprovider tests/python_pkg/test_onepass_gpu.py > "$out/test-gpu.log" 2>&1 || status=1
else
  timeout 300 "$PYTHON" -m unittest -v tests/python_pkg/test_onepass_gpu.py > "$out/test-gpu.log" 2>&1 || status=1
fi
tail -40 "$out/test-gpu.log"

section "CPU tests (tests/python_pkg/test_onepass_cpu.py, with the CUDA module present)"
timeout 180 "$PYTHON" -m unittest discover -s tests/python_pkg -p 'test_onepass_cpu.py' > "$out/test-cpu.log" 2>&1 || status=1
tail -8 "$out/test-cpu.log"

section "benchmark experiments/python_peers.py -> $out"
timeout 240 "$PYTHON" experiments/python_peers.py --out-dir "$out" ${BENCH_ARGS:-} 2>&1 | tee "$out/python_peers.log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
[[ -f "$out/python_peers.csv" ]] && column -s, -t < "$out/python_peers.csv" | cut -c1-160

section "done: status $status, $((SECONDS - started)) s"
exit $status
