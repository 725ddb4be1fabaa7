#!/usr/bin/env bash
# scripts/device-gaussian-float.sh — the float-native warp Gaussian (issue 30) on one GPU:
# build, its GPU tests (bit identity with the CPU twin, the registry, the 2^36-output
# statistics of the double, rounded-float and float-native draws), gaussian_throughput
# (every generator and cuRAND configuration in one run), and, where ncu is installed, the
# float-native and cuRAND kernels' instruction and memory-pipe use. Writes under OUTDIR.
#   scripts/device-gaussian-float.sh OUTDIR
# Environment: ONEPASS_DEPS_PREFIX (oneTBB unpacked from .deps/), BUILD_DIR (default
# /tmp/onepass-build), TESTS, SCALE (gaussian_throughput's, default: default), NCU=0 to skip ncu,
# ONEPASS_GAUSSIAN_OUTPUTS_LOG2 (the statistics test's N, default 36).
set -uo pipefail
out=${1:?usage: device-gaussian-float.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${BUILD_DIR:-/tmp/onepass-build}
# shellcheck source=scripts/device-env.sh
source "$(dirname "$0")/device-env.sh"  # PATH, prefix_args, LD_LIBRARY_PATH, gen
tests=${TESTS-test_gaussian_float_gpu test_gpu_gaussian_registry test_gaussian_statistics}
status=0
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
cmake -S . -B "$build" $gen -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
  "${prefix_args[@]}" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" --target $tests gaussian_throughput > "$out/build.log" 2>&1 \
  || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build ok ($SECONDS s)"
for t in $tests; do
  timeout 300 "$build/tests/$t" > "$out/$t.log" 2>&1 || status=1
  echo "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$t.log" | tr '\n' ' ' | cut -c1-300) ($SECONDS s)"
  grep -E '^\[  FAILED  \]|Failure|threw|G/s|\|x\| > 4|chi-square' "$out/$t.log" | head -20
done
timeout 300 "$build/bin/gaussian_throughput" --scale "${SCALE:-default}" --out-dir "$out" > "$out/gaussian_throughput.out" \
  2> "$out/gaussian_throughput.log" || { status=1; tail -5 "$out/gaussian_throughput.log"; }
echo "gaussian_throughput done ($SECONDS s)"
grep -E "G outputs/s|ratio" "$out/gaussian_throughput.log" | sed 's/^.*] //' | cut -c1-150
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/nvidia-smi-clocks-after.txt" 2>&1
if [[ "${NCU:-1}" == 1 ]] && command -v ncu > /dev/null; then
  # One launch each of the float-native and rounded-double memory kernels and cuRAND's float
  # kernel at 2^28 outputs: instructions executed, issue-slot and pipe use, DRAM throughput.
  timeout 200 ncu --kernel-name regex:'generate_normal_float_kernel|generate_normal_kernel|gen_sequenced|generate_seed' \
    --launch-count 6 --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats \
    --section MemoryWorkloadAnalysis --section Occupancy \
    "$build/bin/gaussian_throughput" --scale small --memory-log2 28 --register-log2 20 --reps 1 --warmup 0 \
    --out-dir /tmp/ncu-out > "$out/ncu-gaussian.txt" 2>&1
  echo "ncu exit $? ($SECONDS s)"
fi
exit $status
