#!/usr/bin/env bash
# baselines/rmg/build-and-run.sh — RMG sort (hpides/rmg-sort at fa32f526a9fb8b0b41449404d40ee0b13415ac27,
# Apache-2.0; see baselines/rmg/README.md) on a GPU machine, which has no network: unpack its source
# from TARBALL (made beforehand with `git archive`, README.md says how), apply cuda13.patch and
# gpu-resident.patch beside this script (stops if either does not apply), build radix-mgpu-sort
# (cmake, Release, -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-90}, all cores), then run every run spec
# of RUNS REPS times with RMG_GPU_RESIDENT=1.
#   baselines/rmg/build-and-run.sh TARBALL OUTDIR "RUNS"
# RUNS: run specs separated by ';'; each is the argument list of radix-mgpu-sort, which takes
#   <num_keys> <gpus> [<data_type=uint32> [<distribution_type=uniform> [<distribution_parameter=0>
#   [<output_mode=default>]]]]
# (src/parser.cuh: 2 to 6 arguments; <gpus> a comma-separated list of device ids, e.g. 0,1,2,3;
# data_type uint32 | uint64 | float32 | float64; output_mode default | debug | csv), e.g.
#   "2147483648 0,1 uint32 uniform;2147483648 0,1,2,3 uint32 uniform;1073741824 0,1,2,3 uint64 uniform"
# Output, appended to OUTDIR/rmg_sort-resident-output.txt: per run a header
#   ### n=<num_keys> gpus=<gpus> type=<data_type> rep=<K>            (dist=<distribution> added if not uniform)
# then the program's stdout and stderr (its breakdown ends with "GPU-resident sort time: <ms>ms"); a run
# that exits non-zero or is stopped by the timeout is followed by "### exit status <rc>" (124: timeout).
# A failed sortedness check is RMG's own line "Error: Invalid sort order: <count> wrong positions.".
# baselines/rmg/to_csv.py turns that file into the experiments' CSV rows. Also written: OUTDIR/rmg_sort-build.log
# (versions, checksums, configure and build output).
# Environment: REPS (repetitions of each spec, default 2), RUN_TIMEOUT (seconds per run, default 240),
# CUDA_ARCH (default 90), RMG_SRC (unpack directory, default /tmp/rmg-sort-src; emptied first),
# RMG_BUILD (build directory, default /tmp/rmg-sort-build; emptied first), RUN_PREFIX (a command put before each run,
# e.g. "numactl -N 0 -m 0" as RMG's README does; default none).
# Exit status: 1 if the build failed or a run failed, timed out or reported a wrong sort order; else 0.
set -uo pipefail
usage="usage: build-and-run.sh TARBALL OUTDIR \"RUNS\""
tarball=${1:?$usage}
outdir=${2:?$usage}
runs=${3:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
reps=${REPS:-2}
run_timeout=${RUN_TIMEOUT:-240}
src=${RMG_SRC:-/tmp/rmg-sort-src}
build=${RMG_BUILD:-/tmp/rmg-sort-build}
export PATH="/usr/local/cuda/bin:$PATH"

[[ -f "$tarball" ]] || { echo "build-and-run.sh: no tarball $tarball (see baselines/rmg/README.md)" >&2; exit 1; }
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")
mkdir -p "$outdir" && outdir=$(cd "$outdir" && pwd)
out="$outdir/rmg_sort-resident-output.txt"
log="$outdir/rmg_sort-build.log"

# Unpack: `git archive` writes the repository's files at the top; a tarball with one top folder works too.
rm -rf "$src" && mkdir -p "$src"
tar xzf "$tarball" -C "$src" || { echo "build-and-run.sh: cannot unpack $tarball" >&2; exit 1; }
if [[ ! -f "$src/CMakeLists.txt" ]]; then
  top=$(find "$src" -mindepth 2 -maxdepth 2 -name CMakeLists.txt -printf '%h\n' | head -1)
  [[ -n "$top" ]] || { echo "build-and-run.sh: no CMakeLists.txt in $tarball" >&2; exit 1; }
  src=$top
fi
[[ -f "$src/src/radix_mgpu_sort.cuh" ]] || { echo "build-and-run.sh: $tarball is not hpides/rmg-sort" >&2; exit 1; }

{
  echo "tarball: $tarball sha256 $(sha256sum < "$tarball" | cut -d' ' -f1)"
  for p in cuda13.patch gpu-resident.patch; do echo "$p: sha256 $(sha256sum < "$here/$p" | cut -d' ' -f1)"; done
  nvcc --version | tail -2
  cmake --version | head -1
  nvidia-smi -L 2>&1
} > "$log"

# Patches: each checked whole before it is applied; either failing stops the script.
for p in cuda13.patch gpu-resident.patch; do
  if command -v patch > /dev/null; then
    (cd "$src" && patch -p1 --forward --batch --dry-run < "$here/$p" >> "$log" 2>&1 && patch -p1 --forward --batch < "$here/$p" >> "$log" 2>&1)
  else
    (cd "$src" && git apply --check "$here/$p" >> "$log" 2>&1 && git apply "$here/$p" >> "$log" 2>&1)
  fi || { echo "build-and-run.sh: $p does not apply to $tarball:" >&2; tail -20 "$log" >&2; exit 1; }
done
echo "patched: cuda13.patch gpu-resident.patch"

rm -rf "$build"  # a fresh build: the source was just unpacked and patched
gen=$(command -v ninja > /dev/null && echo "-G Ninja")
# shellcheck disable=SC2086
cmake -S "$src" -B "$build" $gen -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >> "$log" 2>&1 \
  || { echo "build-and-run.sh: configure failed:" >&2; tail -30 "$log" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" --target radix-mgpu-sort >> "$log" 2>&1 \
  || { echo "build-and-run.sh: build failed:" >&2; grep -E "error" "$log" | head -40 >&2; exit 1; }
bin="$build/radix-mgpu-sort"
echo "build ok ($SECONDS s): $bin"

status=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
IFS=';' read -r -a specs <<< "$runs"
for spec in "${specs[@]}"; do
  read -r -a args <<< "$spec"
  [[ ${#args[@]} -ge 2 ]] || { [[ ${#args[@]} -eq 0 ]] && continue; echo "build-and-run.sh: bad run spec '$spec'" >&2; status=1; continue; }
  dist=${args[3]:-uniform}
  extra=""
  [[ "$dist" != uniform ]] && extra=" dist=$dist"
  for ((k = 1; k <= reps; k++)); do
    header="### n=${args[0]} gpus=${args[1]} type=${args[2]:-uint32} rep=$k$extra"
    # shellcheck disable=SC2086
    (cd "$build" && RMG_GPU_RESIDENT=1 timeout -k 10 "$run_timeout" ${RUN_PREFIX:-} "$bin" "${args[@]}") > "$tmp" 2>&1
    rc=$?
    { echo "$header"; cat "$tmp"; [[ $rc -ne 0 ]] && echo "### exit status $rc"; } >> "$out"
    resident=$(grep -m1 '^GPU-resident sort time:' "$tmp")
    wrong=$(grep -m1 '^Error: Invalid sort order' "$tmp")
    [[ $rc -ne 0 ]] && status=1
    [[ -n "$wrong" ]] && status=1
    echo "$header: ${resident:-no GPU-resident time}${wrong:+; $wrong}$([[ $rc -ne 0 ]] && echo "; exit status $rc")"
  done
done
echo "output: $out ($SECONDS s)"
exit $status
