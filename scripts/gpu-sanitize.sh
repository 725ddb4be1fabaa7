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
# exits 1 when any run reports an error, fails a test, runs no test or times out.
# racecheck runs take race_filter's test where a program has one (else the same filter):
# racecheck instruments every shared-memory access and checks it against the others of its
# block, so it costs far more than the other tools, and on an H100 it did not finish the
# small-size tests of onesweep, the hybrid MSD sort and the shuffle (millions of keys in
# some: Onesweep.PairsShapeBySize sorts 2^25 pairs) in 75-150 s. Their SanitizerSizes test
# launches every kernel of the primitive at least once with the smallest inputs that reach
# it (its comment in the test file lists them), checked against the same oracles.
# Environment: TOOLS (default: memcheck racecheck synccheck initcheck), PROGRAMS (default: every
# program of the list), RUN_TIMEOUT (seconds per run of memcheck, synccheck and initcheck,
# default 300), RACE_TIMEOUT (seconds per racecheck run, default 600), SANITIZER (the binary).
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
  [test_hybrid_msd]='HybridMsd.KeysU32:HybridMsd.KeysU64:HybridMsd.KeysI64:HybridMsd.PairsStable:HybridMsd.LocalFinishThreshold:HybridMsd.SanitizerSizes'
  [test_warp_gaussian]='WarpGaussianGpu.GenerateNormalEqualsCpuTwin:WarpGaussianGpu.GenerateNormalFloatEqualsCpuTwin:WarpGaussianGpu.UserKernelDrawsEqualGenerateNormal'
  [test_gaussian_float_gpu]='GaussianFloatGpu.GenerateNormalEqualsTheCpuTwin:GaussianFloatGpu.UserKernelDrawsEqualGenerateNormal'
)
# program -> gtest filter of its racecheck runs (racecheck's cost: see the file comment);
# programs not listed take their filter above.
declare -A race_filter=(
  [test_onesweep]='Onesweep.SanitizerSizes'
  [test_hybrid_msd]='HybridMsd.SanitizerSizes'
  [test_gpu_shuffle]='GpuShuffle.SanitizerSizes'
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
    run_filter=${filter[$p]}
    limit=${RUN_TIMEOUT:-300}
    if [[ $tool == racecheck ]]; then
      limit=${RACE_TIMEOUT:-600}
      if [[ -n "${race_filter[$p]+x}" ]]; then run_filter=${race_filter[$p]}; fi
    fi
    start=$SECONDS
    timeout "$limit" "$san" --tool "$tool" --error-exitcode 9 --report-api-errors no \
      "$build/tests/$p" --gtest_filter="$run_filter" > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^=* *//')
    tests=$(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | head -1)
    verdict=clean
    if [[ $rc == 124 ]]; then verdict="timed out after $limit s"; status=1
    elif [[ $rc != 0 ]]; then verdict="FAILED (exit $rc)"; status=1
    elif [[ $tests == *"PASSED  ] 0 tests"* ]]; then verdict="ran no test (filter $run_filter)"; status=1; fi
    echo "$tool $p: $verdict; ${summary:-no summary}; ${tests:-no test result} ($((SECONDS - start)) s)"
  done
done
exit $status
