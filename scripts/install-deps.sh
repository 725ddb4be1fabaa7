#!/usr/bin/env bash
# Installs the Debian packages onepass needs, only those that are missing.
# Needs no network when nothing is missing. When it cannot install (not root,
# offline, no apt), it names exactly the missing packages and exits 1.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libtbb-dev          # oneTBB: CPU parallelism
  libboost-dev        # Boost.Math: chi-square / normal quantiles
  libgtest-dev libgmock-dev
  libbenchmark-dev    # Google Benchmark: CPU throughput (Table 2)
  libcli11-dev        # CLI11: command lines
  libdlib-dev         # dlib: BFGS of the Gaussian table optimiser (make gaussian-table; optional target)
  libnanoflann-dev    # nanoflann: k-d tree of the optimiser's local search (optional target)
  python3 python3-matplotlib python3-numpy
  dieharder           # uniformity tests of the Gaussian stream (experiments/gaussian_dieharder)
  python3-markdown weasyprint   # the report's PDF (scripts/report_pdf.py; without them make paper skips it)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "deps: missing: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo_cmd=(sudo -n)
  else
    echo "deps: not root and no passwordless sudo; install them with:" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null; then
  echo "deps: apt-get not found; install these packages by hand: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  echo "deps: install failed, refreshing the package index and retrying" >&2
  if ! { "${sudo_cmd[@]}" apt-get update && "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; }; then
    echo "deps: could not install (offline?); still missing: ${missing[*]}" >&2
    exit 1
  fi
fi
echo "deps: installed ${missing[*]}"
