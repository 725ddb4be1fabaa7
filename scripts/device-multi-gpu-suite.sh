#!/usr/bin/env bash
# scripts/device-multi-gpu-suite.sh — the distributed sort and shuffle (issue 29) on a
# multi-GPU machine: build, the GPU tests (ranks as threads, 1..4), and the experiments
# started with mpirun (one rank per GPU). Writes logs and results under OUTDIR.
#   scripts/device-multi-gpu-suite.sh OUTDIR
# Environment: ONEPASS_DEPS_PREFIX (oneTBB unpacked from .deps/), BUILD_DIR (default
# /tmp/onepass-build), TESTS (test programs, default test_distributed_sort
# test_distributed_shuffle), TEST_FILTER (gtest filter, default all but the long tests),
# EXPERIMENTS (default multi_gpu_sort multi_gpu_shuffle), SCALE (default: default),
# RANKS (mpirun -np, default: the number of GPUs), EXPERIMENT_ARGS (extra arguments);
# PROFILE=1 / PROFILE_SHUFFLE=1 (with PROFILE_ARGS): nsys kernel summaries of the sort / shuffle (when
# nsys is installed; the x2 image of 2026-11-26 had none); SANITIZE=1: compute-sanitizer memcheck over the
# distributed shuffle test (SANITIZE_FILTER, default the item-size, edge-size and chunk tests); SANITIZE_SORT=1:
# the four compute-sanitizer tools over the distributed sort's tests (records: nvidia-h200-x2/sanitize-*); PYTHON_DIST=1: build the Python extension
# there and run tests/python_pkg/test_distributed.py under torchrun (PYTHON: the interpreter).
set -uo pipefail
out=${1:?usage: device-multi-gpu-suite.sh OUTDIR}
mkdir -p "$out/results"
out=$(cd "$out" && pwd)
build=${BUILD_DIR:-/tmp/onepass-build}
export NCCL_NVLS_ENABLE=0
# shellcheck source=scripts/device-env.sh
source "$(dirname "$0")/device-env.sh"  # PATH, prefix_args, LD_LIBRARY_PATH, gen
tests=${TESTS-test_distributed_sort test_distributed_shuffle}
experiments=${EXPERIMENTS-multi_gpu_sort multi_gpu_shuffle}
gpus=$(nvidia-smi -L | grep -c '^GPU')
ranks=${RANKS:-$gpus}
status=0
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
nvidia-smi topo -m > "$out/nvidia-smi-topo.txt" 2>&1
cmake -S . -B "$build" $gen -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
  "${prefix_args[@]}" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
grep "onepass: NCCL" "$out/configure.log"
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" --target $tests $experiments ${BUILD_EXTRA:-} > "$out/build.log" 2>&1 \
  || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build ok ($SECONDS s, $gpus GPUs)"
for t in $tests; do
  "$build/tests/$t" --gtest_filter="${TEST_FILTER:--*MoreThan2Pow31*}" > "$out/$t.log" 2>&1 || status=1
  echo "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$t.log" | tr '\n' ' ' | cut -c1-600)"
  grep -E '^\[  FAILED  \]|Failure|threw' "$out/$t.log" | head -20
done
for e in $experiments; do
  # shellcheck disable=SC2086
  timeout "${EXPERIMENT_TIMEOUT:-400}" mpirun --allow-run-as-root --oversubscribe -np "$ranks" -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x ONEPASS_COMMIT \
    "$build/bin/$e" --scale "${SCALE:-default}" --out-dir "$out/results" ${EXPERIMENT_ARGS:-} \
    > "$out/$e.out" 2> "$out/$e.log" || { status=1; tail -15 "$out/$e.log"; }
  echo "$e done ($SECONDS s)"
  grep -E "ms$" "$out/$e.log" | sed 's/^.*] //' | cut -c1-160
done
if [[ "${SANITIZE:-0}" == 1 ]]; then
  # compute-sanitizer memcheck over the distributed shuffle's kernels (and NCCL's), ranks as threads.
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  timeout "${SANITIZE_TIMEOUT:-240}" "$san" --tool memcheck --report-api-errors no --print-limit 20 --error-exitcode 3 \
    "$build/tests/test_distributed_shuffle" \
    --gtest_filter="${SANITIZE_FILTER:-*ItemsOfOne*:*EdgeSizes*:*LongChunks*:*GeneralPath*}" \
    > "$out/sanitizer-memcheck.log" 2>&1
  echo "compute-sanitizer memcheck: exit $? ($SECONDS s)"
  grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) |Invalid|========= [A-Z]" "$out/sanitizer-memcheck.log" | head -20
fi
if [[ "${SANITIZE_SORT:-0}" == 1 ]]; then
  # compute-sanitizer over the distributed sort's tests, ranks as threads (both methods):
  # memcheck and synccheck with NCCL's kernels, racecheck and initcheck without them (initcheck then
  # cannot see NCCL's writes: it reports copies of all-gathered buffers). The four run together.
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  sf=${SANITIZE_SORT_FILTER:-Ranks/DistributedSort.EmptyAndTinyInputs/1Ranks:Ranks/DistributedSort.EmptyAndTinyInputs/2Ranks:Ranks/DistributedSort.KeysU32/2Ranks}
  sg=${SANITIZE_SORT_SMALL_FILTER:-Ranks/DistributedSort.EmptyAndTinyInputs/2Ranks}
  for tool in memcheck synccheck racecheck initcheck; do
    case $tool in memcheck|synccheck) args=(); f=$sf;; *) args=(--kernel-name-exclude kns=nccl); f=$sg;; esac
    ( timeout "${SANITIZE_TIMEOUT:-200}" "$san" --tool $tool --print-limit 200 --error-exitcode 3 "${args[@]}" \
        "$build/tests/test_distributed_sort" --gtest_filter="$f" > "$out/sanitize-sort-$tool.log" 2>&1
      echo "exit $?" >> "$out/sanitize-sort-$tool.log" ) &
  done
  wait
  for tool in memcheck synccheck racecheck initcheck; do
    echo "compute-sanitizer $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^exit' "$out/sanitize-sort-$tool.log" | tr '\n' ' ')"
  done
fi
if [[ "${PROFILE:-0}" == 1 ]] && command -v nsys >/dev/null; then
  # Kernel and NCCL times of the distributed sort of 2^31 u32 keys on 2 and 4 ranks.
  for p in 2 4; do
    mpirun --allow-run-as-root --oversubscribe -np "$p" -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH \
      nsys profile -t cuda,nvtx -o "$out/profile-p$p-rank%q{OMPI_COMM_WORLD_RANK}" --force-overwrite true \
      "$build/bin/multi_gpu_sort" --cases keys_u32 --min-ranks "$p" --max-ranks "$p" --reps 3 --warmup 1 \
      --out-dir "$out/profile-results" > "$out/profile-p$p.log" 2>&1 || echo "profile P=$p failed"
    nsys stats --report cuda_gpu_kern_sum --report cuda_gpu_mem_time_sum --format csv \
      --output "$out/profile-p$p-rank0" "$out/profile-p$p-rank0.nsys-rep" > /dev/null 2>&1
    rm -f "$out"/profile-p$p-rank*.nsys-rep "$out"/profile-p$p-rank*.sqlite
    echo "profile P=$p done ($SECONDS s)"
  done
fi
if [[ "${PYTHON_DIST:-0}" == 1 ]]; then
  # onepass.distributed under torchrun (tests/python_pkg/test_distributed.py: 2 ranks, and 4 where
  # there are 4 GPUs), the extension built here with its CUDA module; each check is printed.
  py=${PYTHON:-/opt/torch/.venv/bin/python}
  bash scripts/device-build-python.sh "$py" "$build-py" "$out" "$(nproc)" "${prefix_args[@]}" || exit 1
  echo "python build ok ($SECONDS s)"
  ONEPASS_TEST_TRACE=1 PYTHONPATH="$build-py/python" "$py" -m pytest -q -rs tests/python_pkg/test_distributed.py \
    > "$out/python-test_distributed.log" 2>&1 || status=1
  grep -E "FAILED|passed|failed" "$out/python-test_distributed.log" | tail -8
fi
if [[ "${PROFILE_SHUFFLE:-0}" == 1 ]] && command -v nsys >/dev/null; then
  # Kernel and NCCL times of the distributed shuffle (P = 1 .. RANKS, 3 timed runs each).
  mpirun --allow-run-as-root --oversubscribe -np "$ranks" -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH \
    nsys profile -t cuda,nvtx -o "$out/profile-shuffle-rank%q{OMPI_COMM_WORLD_RANK}" --force-overwrite true \
    "$build/bin/multi_gpu_shuffle" --reps 3 --warmup 1 ${PROFILE_ARGS:-} \
    --out-dir "$out/profile-results" > "$out/profile-shuffle.log" 2>&1 || echo "shuffle profile failed"
  nsys stats --report cuda_gpu_kern_sum --report cuda_gpu_mem_time_sum --format csv \
    --output "$out/profile-shuffle-rank0" "$out/profile-shuffle-rank0.nsys-rep" > /dev/null 2>&1
  rm -f "$out"/profile-shuffle-rank*.nsys-rep "$out"/profile-shuffle-rank*.sqlite
  echo "shuffle profile done ($SECONDS s)"
fi
exit $status
