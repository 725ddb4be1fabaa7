#!/usr/bin/env bash
# scripts/gpu-sanitize.sh — every public GPU primitive at small and odd sizes under the four
# compute-sanitizer tools (issue 32, section 5): the shuffle variants and their unshuffle, the
# walking shuffle, the segmented shuffle (uniform rows and ragged offsets), onesweep, the hybrid
# MSD sort and onepass::sort (keys and pairs, signed 64-bit keys included), and the Gaussian
# generator (double, float through the rounded double, and the float-native kernel).
#   scripts/gpu-sanitize.sh BUILD_DIR OUTDIR
# Each (tool, test program) runs the GPU test program under `compute-sanitizer --tool TOOL
# --error-exitcode 9 --report-api-errors no` with a gtest filter that picks its small-size tests
# (the list below); its log is OUTDIR/sanitize-TOOL-PROGRAM.log. Prints one line per run and
# exits 1 when any run reports an error, fails a test or times out.
# Environment: TOOLS (default: memcheck racecheck synccheck initcheck), PROGRAMS (default: every
# program of the list), RUN_TIMEOUT (seconds per run, default 300), SANITIZER (the binary).
# `make test-gpu-sanitize` calls it on a machine with a GPU (without one it says so and runs
# nothing). CUDA API errors are not reported: NCCL and CUB probe the device through calls that
# fail by design (cudaFuncGetAttributes on kernels built for other architectures).
set -uo pipefail
build=${1:?usage: gpu-sanitize.sh BUILD_DIR OUTDIR}
out=${2:?usage: gpu-sanitize.sh BUILD_DIR OUTDIR}
mkdir -p "$out"
san=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
tools=${TOOLS:-memcheck racecheck synccheck initcheck}

# program -> gtest filter (small and odd sizes; every primitive named in the file comment)
declare -A filter=(
  [test_gpu_shuffle]='GpuShuffle.ElementSize*:GpuShuffle.UnshuffleInvertsEveryVariant:GpuShuffle.StagedAndTiledStructuresEqualCpu'
  [test_gpu_walking]='GpuWalking.ShuffleAndUnshuffleEqualTheCpu'
  [test_gpu_segmented_shuffle]='GpuSegmentedShuffle.UniformRowsEqualTheCpuTwin:GpuSegmentedShuffle.RaggedOffsetsEqualTheCpuTwin'
  [test_onesweep]='Onesweep.Uint32:Onesweep.Uint64:Onesweep.Int64:Onesweep.Float:Onesweep.PairsShapeBySize'
  [test_hybrid_msd]='HybridMsd.KeysU32:HybridMsd.KeysU64:HybridMsd.KeysI64:HybridMsd.PairsStable:HybridMsd.LocalFinishThreshold'
  [test_warp_gaussian]='WarpGaussianGpu.GenerateNormalEqualsCpuTwin:WarpGaussianGpu.GenerateNormalFloatEqualsCpuTwin:WarpGaussianGpu.UserKernelDrawsEqualGenerateNormal'
  [test_gaussian_float_gpu]='GaussianFloatGpu.GenerateNormalEqualsTheCpuTwin:GaussianFloatGpu.UserKernelDrawsEqualGenerateNormal'
)
programs=${PROGRAMS:-test_gpu_shuffle test_gpu_walking test_gpu_segmented_shuffle test_onesweep test_hybrid_msd test_warp_gaussian test_gaussian_float_gpu}

status=0
for tool in $tools; do
  for p in $programs; do
    if [[ -z "${filter[$p]+x}" ]]; then
      echo "gpu-sanitize: unknown program $p (known: ${!filter[*]})" >&2
      exit 2
    fi
    log="$out/sanitize-$tool-$p.log"
    start=$SECONDS
    timeout "${RUN_TIMEOUT:-300}" "$san" --tool "$tool" --error-exitcode 9 --report-api-errors no \
      "$build/tests/$p" --gtest_filter="${filter[$p]}" > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^=* *//')
    tests=$(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | head -1)
    verdict=clean
    if [[ $rc == 124 ]]; then verdict="timed out after ${RUN_TIMEOUT:-300} s"; status=1
    elif [[ $rc != 0 ]]; then verdict="FAILED (exit $rc)"; status=1; fi
    echo "$tool $p: $verdict; ${summary:-no summary}; ${tests:-no test result} ($((SECONDS - start)) s)"
  done
done
exit $status
