#!/usr/bin/env bash
# Builds examples/consumer/ (a project that links onepass::onepass, shuffles and sorts on
# the CPU) the two ways README.md shows, and runs it:
#   (a) onepass configured as its own project with the library alone, installed into a
#       temporary prefix; the consumer finds it with find_package(onepass CONFIG) through
#       CMAKE_PREFIX_PATH;
#   (b) the consumer adds this source tree with add_subdirectory (ONEPASS_SOURCE_DIR).
# and checks that (b) built the library alone and left the consumer's build type and flags
# alone (no experiments, tests, CLI, CUDA, -march=native, -Wall). CPU only, no GPU needed.
# About half a minute on 2 cores; temporary directories are removed on exit.
# Usage: scripts/test-consumer.sh   (make test-consumer; part of make test). Env: JOBS, CMAKE_GENERATOR.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
generator=()  # Ninja when there is one, unless the environment names one (CMAKE_GENERATOR)
if [[ -z ${CMAKE_GENERATOR:-} ]] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

scratch=$(mktemp -d /tmp/onepass-consumer.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

say() { echo "test-consumer: $*"; }
fail() { echo "test-consumer: FAILED: $*" >&2; exit 1; }
quiet() {  # runs a command, shows its output only when it fails
  local log=$scratch/step.log
  if ! "$@" >"$log" 2>&1; then cat "$log" >&2; fail "$*"; fi
}

# (a) install, then find_package.
say "(a) installing the onepass library into $prefix"
quiet cmake -S "$root" -B "$scratch/onepass-build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DONEPASS_ENABLE_CUDA=OFF -DONEPASS_BUILD_TESTS=OFF -DONEPASS_BUILD_EXPERIMENTS=OFF -DONEPASS_BUILD_CLI=OFF \
  -DONEPASS_NATIVE=OFF -DCMAKE_INSTALL_PREFIX="$prefix"
quiet cmake --build "$scratch/onepass-build" -j "$jobs"
quiet cmake --install "$scratch/onepass-build"
for f in lib/cmake/onepass/onepassConfig.cmake lib/cmake/onepass/onepassConfigVersion.cmake \
         include/onepass/version.hpp include/onepass/shuffle/cpu_shuffle.hpp include/onepass/sort/onesweep.cuh; do
  [[ -f $prefix/$f ]] || fail "the install lacks $f"
done
# The consumer is copied out of the source tree, so nothing can reach onepass's sources.
cp -r "$root/examples/consumer" "$scratch/consumer-src"
say "(a) building examples/consumer with find_package(onepass) (CMAKE_PREFIX_PATH=$prefix)"
quiet cmake -S "$scratch/consumer-src" -B "$scratch/consumer-installed" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix"
grep -qx "onepass_DIR:PATH=$prefix/lib/cmake/onepass" "$scratch/consumer-installed/CMakeCache.txt" ||
  fail "find_package(onepass) did not find the package in $prefix"
quiet cmake --build "$scratch/consumer-installed" -j "$jobs"
"$scratch/consumer-installed/consumer" || fail "(a) the consumer built against the installed onepass failed"

# (b) add_subdirectory of this source tree.
say "(b) building examples/consumer with add_subdirectory($root)"
quiet cmake -S "$root/examples/consumer" -B "$scratch/consumer-subdir" "${generator[@]}" \
  -DONEPASS_SOURCE_DIR="$root"
cache=$scratch/consumer-subdir/CMakeCache.txt
grep -qx "CMAKE_BUILD_TYPE:STRING=" "$cache" || fail "onepass set the consumer's CMAKE_BUILD_TYPE"
for dep in GTest_DIR benchmark_DIR CLI11_DIR CMAKE_CUDA_COMPILER CMAKE_CUDA_ARCHITECTURES; do
  ! grep -q "^$dep:" "$cache" || fail "onepass as a subproject looked up $dep"
done
# The generator's files that hold the compile flags: build.ninja, or each target's flags.make.
mapfile -t flag_files < <(find "$scratch/consumer-subdir" \( -name build.ninja -o -name flags.make \) -type f)
[[ ${#flag_files[@]} -gt 0 ]] || fail "no build.ninja or flags.make in $scratch/consumer-subdir"
if grep -qE -- '-march=native|-Wextra' "${flag_files[@]}"; then
  fail "onepass as a subproject added -march=native or -Wall -Wextra"
fi
for t in onepass_algorithms onepass_baselines onepass_stats onepass_cli onepass_harness test_cpu_shuffle; do
  [[ -z $(find "$scratch/consumer-subdir" -type d -name "$t.dir") ]] || fail "onepass as a subproject defined $t"
done
quiet cmake --build "$scratch/consumer-subdir" -j "$jobs"
"$scratch/consumer-subdir/consumer" || fail "(b) the consumer built with add_subdirectory failed"

say "OK (find_package and add_subdirectory)"
