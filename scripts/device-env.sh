# scripts/device-env.sh — sourced by the scripts/device-*.sh programs on a GPU machine: puts
# the CUDA toolkit's bin first on PATH, and, when ONEPASS_DEPS_PREFIX names a prefix of
# dependencies unpacked outside the system paths (oneTBB from .deps/, e.g. /opt/deps/usr),
# sets prefix_args (CMake arguments: -DCMAKE_PREFIX_PATH=that prefix; empty otherwise) and
# adds its lib/x86_64-linux-gnu to LD_LIBRARY_PATH; gen: "-G Ninja" where ninja is installed.
export PATH="/usr/local/cuda/bin:$PATH"
prefix_args=()
if [[ -n "${ONEPASS_DEPS_PREFIX:-}" ]]; then
  prefix_args=(-DCMAKE_PREFIX_PATH="$ONEPASS_DEPS_PREFIX")
  export LD_LIBRARY_PATH="$ONEPASS_DEPS_PREFIX/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
gen=$(command -v ninja >/dev/null && echo "-G Ninja")
