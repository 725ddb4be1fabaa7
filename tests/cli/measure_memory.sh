#!/usr/bin/env bash
# tests/cli/measure_memory.sh ONEPASS [LOG2_LINES] — peak resident memory per line of
# GNU shuf, `onepass shuf` and `onepass unshuf` on 2^LOG2_LINES (default 24) empty
# lines read from a file, as /usr/bin/time reports it (maximum resident set size),
# minus each program's peak on an empty file. Not a CTest test (it takes ~10 s and
# 300 MB at 2^24); the numbers are quoted in cli/shuf_io.hpp.
set -eu
export LC_ALL=C
ONEPASS=${1:?usage: measure_memory.sh path/to/onepass [log2_lines]}
BITS=${2:-24}
GNU=$(command -v shuf)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/shuf_memory.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
lines=$((1 << BITS))
head -c "$lines" /dev/zero | tr '\0' '\n' > "$WORK/lines"
: > "$WORK/empty"
peak_kib() { /usr/bin/time -f %M "$@" > /dev/null 2> "$WORK/time" && tail -n 1 "$WORK/time"; }
report() {  # report NAME COMMAND...
  local name=$1; shift
  local base full
  base=$(peak_kib "$@" "$WORK/empty")
  full=$(peak_kib "$@" "$WORK/lines")
  awk -v n="$name" -v b="$base" -v f="$full" -v l="$lines" \
    'BEGIN { printf "%-16s %9d KiB at 2^%d lines, %9d KiB empty: %.1f bytes per line\n", n, f, '"$BITS"', b, (f - b) * 1024 / l }'
}
report "GNU shuf" "$GNU"
report "onepass shuf" "$ONEPASS" shuf
report "onepass unshuf" "$ONEPASS" unshuf --seed 1
