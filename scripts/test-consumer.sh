#!/usr/bin/env bash
# Builds examples/consumer/ (a project that shuffles and sorts on the CPU with
# onepass::onepass, main.cpp, and on the GPU with onepass::cuda, gpu_consumer.cu) the two
# ways README.md shows, and runs it:
#   (a) onepass configured as its own project with the library alone (CUDA on: the package
#       gets onepass::cuda when the CUDA toolkit is there), installed into a temporary
#       prefix; the consumer finds it with find_package(onepass CONFIG) through
#       CMAKE_PREFIX_PATH. Then the same build reconfigured with ONEPASS_ENABLE_CUDA=OFF
#       and installed into a second prefix: a CPU-only package, which the CPU consumer
#       builds against with CUDAToolkit lookups disabled;
#   (b) the consumer adds this source tree with add_subdirectory (ONEPASS_SOURCE_DIR),
#       first configured without its GPU part (CONSUMER_WITH_CUDA=OFF) to check that onepass
#       as a subproject built the library alone, looked up nothing else and left the
#       consumer's build type and flags alone (no experiments, tests, CLI, CUDA,
#       -march=native, -Wall), then with it.
# The GPU consumer is required wherever nvcc is found (PATH, CUDACXX, /usr/local/cuda/bin);
# it is compiled for one architecture, ONEPASS_CONSUMER_CUDA_ARCHITECTURES (default 90),
# and without a GPU it runs and says "skipped: no GPU". No GPU needed.
# About 1.5 minutes on 2 cores (each GPU consumer compile takes about 30 s of CPU);
# temporary directories are removed on exit.
# Usage: scripts/test-consumer.sh   (make test-consumer; part of make test).
# Env: JOBS, CMAKE_GENERATOR, ONEPASS_CONSUMER_CUDA_ARCHITECTURES.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
generator=()  # Ninja when there is one, unless the environment names one (CMAKE_GENERATOR)
if [[ -z ${CMAKE_GENERATOR:-} ]] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

scratch=$(mktemp -d /tmp/onepass-consumer.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix          # onepass built with CUDA (when the toolkit is there)
cpu_prefix=$scratch/prefix-cpu  # onepass built with ONEPASS_ENABLE_CUDA=OFF
cuda_arch=${ONEPASS_CONSUMER_CUDA_ARCHITECTURES:-90}
expect_gpu=0  # nvcc is there: the GPU consumer must be built (check_language(CUDA) finds it the same ways)
if [[ -n ${CUDACXX:-} ]] || command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then expect_gpu=1; fi

say() { echo "test-consumer: $*"; }
fail() { echo "test-consumer: FAILED: $*" >&2; exit 1; }
quiet() {  # runs a command, shows its output only when it fails
  local log=$scratch/step.log
  if ! "$@" >"$log" 2>&1; then cat "$log" >&2; fail "$*"; fi
}

# Runs the consumers built in $1: the CPU one, and the GPU one, which must exist when nvcc
# is there and must either pass or say that it skipped for want of a GPU.
run_consumers() {
  local dir=$1 what=$2 line
  "$dir/consumer" || fail "$what: the consumer failed"
  if [[ -x $dir/gpu_consumer ]]; then
    line=$("$dir/gpu_consumer") || fail "$what: the GPU consumer failed: $line"
    echo "$line"
    [[ $line =~ ^gpu_consumer:\ (skipped:\ no\ GPU|.*:\ OK$) ]] || fail "$what: unexpected GPU consumer output: $line"
  elif [[ $expect_gpu == 1 ]]; then
    grep -h 'onepass_consumer: GPU consumer' "$dir/configure.log" >&2 || true
    fail "$what: nvcc is here but the GPU consumer was not built"
  else
    say "$what: no nvcc, GPU consumer not built"
  fi
}
configure_consumer() {  # configure_consumer <build dir> <cmake args...>; keeps the log in <build dir>/configure.log
  local dir=$1; shift
  mkdir -p "$dir"
  if ! cmake -B "$dir" "${generator[@]}" "$@" >"$dir/configure.log" 2>&1; then
    cat "$dir/configure.log" >&2; fail "configuring the consumer in $dir"
  fi
}

# (a) install, then find_package.
say "(a) installing the onepass library into $prefix"
quiet cmake -S "$root" -B "$scratch/onepass-build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DONEPASS_ENABLE_CUDA=ON -DONEPASS_BUILD_TESTS=OFF -DONEPASS_BUILD_EXPERIMENTS=OFF -DONEPASS_BUILD_CLI=OFF \
  -DONEPASS_NATIVE=OFF -DCMAKE_INSTALL_PREFIX="$prefix"
quiet cmake --build "$scratch/onepass-build" -j "$jobs"
quiet cmake --install "$scratch/onepass-build"
package=lib/cmake/onepass
for f in $package/onepassConfig.cmake $package/onepassConfigVersion.cmake \
         include/onepass/version.hpp include/onepass/shuffle/cpu_shuffle.hpp include/onepass/sort/onesweep.cuh \
         include/onepass/shuffle/gpu_shuffle.cuh include/onepass/sort/sort.cuh; do
  [[ -f $prefix/$f ]] || fail "the install lacks $f"
done
if [[ $expect_gpu == 1 ]]; then
  [[ -f $prefix/$package/onepassCudaTargets.cmake ]] || fail "nvcc is here but the package has no onepass::cuda"
  grep -qx 'set(onepass_WITH_CUDA ON)' "$prefix/$package/onepassConfig.cmake" ||
    fail "the package built with CUDA does not say so (onepass_WITH_CUDA)"
fi
# The consumer is copied out of the source tree, so nothing can reach onepass's sources.
cp -r "$root/examples/consumer" "$scratch/consumer-src"
say "(a) building examples/consumer with find_package(onepass) (CMAKE_PREFIX_PATH=$prefix, CUDA architectures $cuda_arch)"
configure_consumer "$scratch/consumer-installed" -S "$scratch/consumer-src" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES="$cuda_arch"
grep -qx "onepass_DIR:PATH=$prefix/lib/cmake/onepass" "$scratch/consumer-installed/CMakeCache.txt" ||
  fail "find_package(onepass) did not find the package in $prefix"
quiet cmake --build "$scratch/consumer-installed" -j "$jobs"
run_consumers "$scratch/consumer-installed" "(a)"
# A CPU-only consumer of the CUDA-built package needs no CUDA toolkit (configure only).
configure_consumer "$scratch/consumer-installed-nocuda" -S "$scratch/consumer-src" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_WITH_CUDA=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON

# (a') The same library build without CUDA, installed into its own prefix (nothing to
# recompile: the library has no CUDA sources): a CPU-only package for a CPU consumer.
say "(a') installing onepass built with ONEPASS_ENABLE_CUDA=OFF into $cpu_prefix; the CPU consumer against it"
quiet cmake -S "$root" -B "$scratch/onepass-build" -DONEPASS_ENABLE_CUDA=OFF -DCMAKE_INSTALL_PREFIX="$cpu_prefix"
quiet cmake --build "$scratch/onepass-build" -j "$jobs"
quiet cmake --install "$scratch/onepass-build"
[[ ! -e $cpu_prefix/$package/onepassCudaTargets.cmake ]] || fail "the CPU-only package has onepass::cuda"
grep -qx 'set(onepass_WITH_CUDA OFF)' "$cpu_prefix/$package/onepassConfig.cmake" ||
  fail "the CPU-only package does not say onepass_WITH_CUDA OFF"
configure_consumer "$scratch/consumer-cpu-package" -S "$scratch/consumer-src" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$cpu_prefix" -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
grep -q 'GPU consumer OFF' "$scratch/consumer-cpu-package/configure.log" ||
  fail "(a') the consumer of the CPU-only package did not leave the GPU consumer out"
quiet cmake --build "$scratch/consumer-cpu-package" -j "$jobs"
[[ ! -e $scratch/consumer-cpu-package/gpu_consumer ]] || fail "(a') a GPU consumer was built against the CPU-only package"
"$scratch/consumer-cpu-package/consumer" || fail "(a') the consumer built against the CPU-only onepass failed"

# (b) add_subdirectory of this source tree: first without the consumer's GPU part, to see
# what onepass itself looks up, then with it.
say "(b) building examples/consumer with add_subdirectory($root)"
configure_consumer "$scratch/consumer-subdir" -S "$root/examples/consumer" -DONEPASS_SOURCE_DIR="$root" \
  -DCONSUMER_WITH_CUDA=OFF
cache=$scratch/consumer-subdir/CMakeCache.txt
grep -qx "CMAKE_BUILD_TYPE:STRING=" "$cache" || fail "onepass set the consumer's CMAKE_BUILD_TYPE"
for dep in GTest_DIR benchmark_DIR CLI11_DIR CMAKE_CUDA_COMPILER CMAKE_CUDA_ARCHITECTURES CUDAToolkit_NVCC_EXECUTABLE; do
  ! grep -q "^$dep:" "$cache" || fail "onepass as a subproject looked up $dep"
done
configure_consumer "$scratch/consumer-subdir" -S "$root/examples/consumer" -DCONSUMER_WITH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$cuda_arch"
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
run_consumers "$scratch/consumer-subdir" "(b)"

say "OK (find_package with and without CUDA, and add_subdirectory)"
