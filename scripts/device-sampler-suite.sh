#!/usr/bin/env bash
# The walking permutation and the data-loader sampler on a GPU machine, in two parts that each
# fit one device call:
#   scripts/device-sampler-suite.sh cpp OUTDIR      build the GPU tests and experiments that
#       involve the walking permutation; run test_gpu_walking, test_gpu_shuffle and
#       test_gpu_baselines; then walking_sampler, table1_gpu_shuffle and fig10_fusion at
#       --scale default into OUTDIR/results. CPP_TESTS: the test programs to run (default those
#       three); SANITIZE=1: also test_gpu_walking under compute-sanitizer's memcheck, racecheck,
#       synccheck and initcheck (OUTDIR/sanitize-<tool>.log).
#   scripts/device-sampler-suite.sh python OUTDIR   build the Python extension (CPU and CUDA
#       modules), run tests/python_pkg/test_data.py and test_onepass_gpu.py, then
#       experiments/sampler.py into OUTDIR/results.
#   scripts/device-sampler-suite.sh ranks OUTDIR    on a machine of two GPUs or more: the Python
#       build and test_data.py as above, then examples/train_sampler.py with torchrun: 2 ranks,
#       resumed on 3, then on 1, and its --check of the global order (logs in OUTDIR).
# EXTRA_PYTHONPATH: prepended to PYTHONPATH in the Python parts (e.g. a folder holding torchdata).
# Environment: ONEPASS_DEPS_PREFIX (oneTBB unpacked from Debian packages, e.g. /opt/deps/usr),
# ONEPASS_COMMIT (the commit the meta.json files name: the device's copy of .git may be stale),
# BUILD_DIR (default /tmp/onepass-build), PYTHON (default /opt/torch/.venv/bin/python), JOBS (16).
# The Python parts build the extension in "$BUILD_DIR-py" (about 220 s on an H200 machine from scratch;
# incremental when it is there): after scripts/device-python-gpu.sh with BUILD_DIR=X-py in the same call or a
# warm one, give this script BUILD_DIR=X to reuse that build.
set -uo pipefail
part=${1:?usage: device-sampler-suite.sh cpp|python OUTDIR}
out=${2:?usage: device-sampler-suite.sh cpp|python OUTDIR}
mkdir -p "$out/results"
out=$(cd "$out" && pwd)
build=${BUILD_DIR:-/tmp/onepass-build}
jobs=${JOBS:-16}
export NCCL_NVLS_ENABLE=0
# shellcheck source=scripts/device-env.sh
source "$(dirname "$0")/device-env.sh"  # PATH, prefix_args, LD_LIBRARY_PATH, gen
status=0
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
case "$part" in
  cpp)
    cmake -S . -B "$build" $gen -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
      "${prefix_args[@]}" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
    cmake --build "$build" -j "$jobs" --target test_gpu_walking test_gpu_shuffle test_gpu_baselines walking_sampler \
      table1_gpu_shuffle fig10_fusion > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
    echo "build ok ($SECONDS s)"
    for t in ${CPP_TESTS:-test_gpu_walking test_gpu_shuffle test_gpu_baselines}; do
      "$build/tests/$t" > "$out/$t.log" 2>&1 || status=1
      echo "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$t.log" | tr '\n' ' ')"
    done
    if [[ "${SANITIZE:-0}" == 1 ]]; then
      # The walking kernels under each compute-sanitizer tool (test_gpu_walking: both walk
      # structures, forward and inverse, indices and shuffles of 4 element types).
      for tool in memcheck racecheck synccheck initcheck; do
        timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/test_gpu_walking" \
          > "$out/sanitize-$tool.log" 2>&1
        rc=$?
        [[ $rc == 0 ]] || status=1
        echo "compute-sanitizer $tool: exit $rc; $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' "$out/sanitize-$tool.log" | tr '\n' ' ')"
      done
    fi
    for e in walking_sampler table1_gpu_shuffle fig10_fusion; do
      "$build/bin/$e" --scale default --out-dir "$out/results" 2> "$out/$e.log" || { status=1; tail -5 "$out/$e.log"; }
      echo "$e done ($SECONDS s)"
    done
    grep -E "walking_(warp_queue|one_per_lane)" "$out/walking_sampler.log" | sed 's/^.*] //' | cut -c1-200
    ;;
  python|ranks)
    py=${PYTHON:-/opt/torch/.venv/bin/python}
    bash scripts/device-build-python.sh "$py" "$build-py" "$out" "$jobs" "${prefix_args[@]}" || exit 1
    echo "python build ok ($SECONDS s)"
    export PYTHONPATH="$PWD/$build-py/python"
    [[ "$build" = /* ]] && export PYTHONPATH="$build-py/python"
    [[ -n "${EXTRA_PYTHONPATH:-}" ]] && export PYTHONPATH="$EXTRA_PYTHONPATH:$PYTHONPATH"
    "$py" -m pytest -q -rs tests/python_pkg/test_data.py > "$out/test_data.log" 2>&1 || status=1
    tail -4 "$out/test_data.log"
    if [[ "$part" == ranks ]]; then
      torchrun=$(dirname "$py")/torchrun
      d="$out/train_sampler"
      mkdir -p "$d"
      "$torchrun" --nproc-per-node 2 examples/train_sampler.py --steps 30 --save "$d/state1.pt" --record "$d" \
        --tag run1 > "$out/train_sampler_run1.log" 2>&1 || status=1
      "$torchrun" --nproc-per-node 3 examples/train_sampler.py --steps 20 --resume "$d/state1.pt" \
        --save "$d/state2.pt" --record "$d" --tag run2 > "$out/train_sampler_run2.log" 2>&1 || status=1
      "$torchrun" --nproc-per-node 1 examples/train_sampler.py --steps 10 --resume "$d/state2.pt" --record "$d" \
        --tag run3 > "$out/train_sampler_run3.log" 2>&1 || status=1
      "$py" examples/train_sampler.py --check "$d" run1 run2 run3 > "$out/train_sampler_check.log" 2>&1 || status=1
      tail -n 3 "$out"/train_sampler_run*.log "$out/train_sampler_check.log"
      rm -f "$d"/*.pt
      exit $status
    fi
    PYTHONUNBUFFERED=1 "$py" experiments/sampler.py --out-dir "$out/results" ${SAMPLER_ARGS:-} > "$out/sampler.log" 2>&1 \
      || { status=1; tail -20 "$out/sampler.log"; }
    tail -25 "$out/sampler.log"
    ;;
  *) echo "unknown part $part"; exit 2 ;;
esac
exit $status
