#!/usr/bin/env bash
# tests/cli/shuf_compat.sh ONEPASS — `onepass shuf` as a drop-in for GNU coreutils shuf.
#
# Compares `ONEPASS shuf` with GNU `shuf` wherever the result is defined: the multiset of
# output lines (files, stdin, several files, -e, -i), the number of lines (-n, -r -n),
# membership, -z framing, -o to a new file and to the input itself, exit status and
# message of errors. Checks what GNU cannot do the same way: --seed and --random-source
# determinism, `--seed S` equal to the library's shuffle (`onepass permutation`), the
# `onepass unshuf` round trip, and a fresh order per run without --seed.
#
# Usage: bash tests/cli/shuf_compat.sh path/to/onepass   (CTest: cli_shuf_compat, label cpu)
# Without GNU shuf on PATH the comparisons against it are skipped; the rest still runs.
set -u
export LC_ALL=C

ONEPASS=${1:?usage: shuf_compat.sh path/to/onepass}
[ -x "$ONEPASS" ] || { echo "shuf_compat: '$ONEPASS' is not executable" >&2; exit 2; }
GNU=$(command -v shuf || true)
if [ -n "$GNU" ] && ! "$GNU" --version 2>/dev/null | grep -q 'GNU coreutils'; then GNU=""; fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/shuf_compat.XXXXXX")
trap 'umount "$WORK/small" 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2

failures=0
checks=0
pass() { checks=$((checks + 1)); }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*" >&2; }
check() {  # check DESCRIPTION COMMAND...: passes when COMMAND succeeds
  local what=$1; shift
  if "$@"; then pass; else fail "$what"; fi
}
same_multiset() { cmp -s <(sort "$1") <(sort "$2"); }
# Every line of $1 occurs in $2 at least as often (a sub-multiset).
sub_multiset() { [ -z "$(comm -23 <(sort "$1") <(sort "$2"))" ]; }
differ() { ! cmp -s "$1" "$2"; }
lines_of() { wc -l < "$1" | tr -d ' '; }
nuls_of() { tr -cd '\0' < "$1" | wc -c | tr -d ' '; }
op() { "$ONEPASS" shuf "$@"; }
un() { "$ONEPASS" unshuf "$@"; }

# --- Inputs --------------------------------------------------------------------------
seq 1000 > nums                                            # 1000 distinct lines
{ for i in $(seq 200); do echo "dup $((i % 37))"; done; echo; echo "  spaced  "; printf 'cr\r\n'; } > dups
printf 'no\nfinal\nnewline' > nofinal                      # last line without '\n'
printf 'no\nfinal\nnewline\n' > nofinal.expected
: > empty
printf 'one\n' > one
printf 'a\nb\0c d\0\0e' > zin                              # -z: 4 items, newlines inside
printf 'a\nb\0c d\0\0e\0' > zin.expected

# --- Whole shuffles: the multiset of lines is the input's, as GNU's --------------------
for f in nums dups nofinal empty one; do
  expected=$f; [ -e "$f.expected" ] && expected=$f.expected
  op "$f" > out.$f; check "shuf $f: status" [ $? -eq 0 ]
  check "shuf $f: same lines as the input" same_multiset out.$f "$expected"
  if [ -n "$GNU" ]; then
    "$GNU" "$f" > gnu.$f
    check "shuf $f: same lines as GNU shuf" same_multiset out.$f gnu.$f
  fi
  op < "$f" > stdin.$f; check "shuf < $f: same lines" same_multiset stdin.$f "$expected"
  op - < "$f" > dash.$f; check "shuf - < $f: same lines" same_multiset dash.$f "$expected"
done
check "shuf nums: the order changed" differ out.nums nums
check "shuf empty: no output" [ ! -s out.empty ]

# Several files, '-' among them: the lines of all of them (each last line terminated).
cat dups | op nums - nofinal > several
cat nums dups nofinal.expected > several.expected
check "shuf FILE - FILE: the lines of all three" same_multiset several several.expected
if [ -n "$GNU" ]; then
  cat nums dups nofinal.expected | "$GNU" > several.gnu
  check "shuf FILE - FILE: as GNU shuf of their concatenation" same_multiset several several.gnu
fi

# -e and -i.
op -e alpha beta 'gamma delta' beta > echo.out
printf 'alpha\nbeta\ngamma delta\nbeta\n' > echo.expected
check "shuf -e: the arguments" same_multiset echo.out echo.expected
[ -n "$GNU" ] && { "$GNU" -e alpha beta 'gamma delta' beta > echo.gnu; check "shuf -e: as GNU" same_multiset echo.out echo.gnu; }
op -i 7-1006 > range.out
check "shuf -i 7-1006: the numbers 7..1006" same_multiset range.out <(seq 7 1006)
[ -n "$GNU" ] && { "$GNU" -i 7-1006 > range.gnu; check "shuf -i: as GNU" same_multiset range.out range.gnu; }
check "shuf -i 5-4: empty range, no output" [ -z "$(op -i 5-4)" ]
check "shuf -i 5-5: one number" [ "$(op -i 5-5)" = 5 ]
check "shuf -n 3 -i 0-18446744073709551614: 3 distinct numbers" \
  [ "$(op -n 3 -i 0-18446744073709551614 | sort -u | wc -l)" -eq 3 ]

# --- -n: min(n, lines) lines, all from the input, none twice more than in the input ----
for n in 0 1 3 999 1000 5000; do
  op -n "$n" nums > head.out; expected=$(( n < 1000 ? n : 1000 ))
  check "shuf -n $n nums: $expected lines" [ "$(lines_of head.out)" -eq "$expected" ]
  check "shuf -n $n nums: lines of the input" sub_multiset head.out nums
  if [ -n "$GNU" ]; then
    check "shuf -n $n: as many lines as GNU" [ "$(lines_of head.out)" -eq "$("$GNU" -n "$n" nums | wc -l)" ]
  fi
done
op --head-count=5 dups > head.dups
check "shuf --head-count=5 dups: 5 lines of the input" eval '[ "$(lines_of head.dups)" -eq 5 ] && sub_multiset head.dups dups'
check "shuf -n 1 -n 7 (smallest wins, as GNU): 7 -> 1 line" [ "$(op -n 7 -n 1 nums | wc -l)" -eq 1 ]
check "shuf -n 3 -e: 3 arguments" [ "$(op -n 3 -e a b c d e | sort -u | wc -l)" -eq 3 ]
check "shuf --seed S -n K: the first K lines of shuf --seed S" \
  cmp -s <(op --seed 77 -n 10 nums) <(op --seed 77 nums | head -n 10)
# -n of regular files reads them twice and keeps only the chosen lines: same output.
for n in 1 10 600 2000; do
  check "shuf --seed S -n $n FILE FILE: as from a pipe" \
    cmp -s <(op --seed 77 -n "$n" nums nofinal dups) <(cat nums nofinal.expected dups | op --seed 77 -n "$n")
  check "shuf --seed S -n $n < FILE: as from a pipe" cmp -s <(op --seed 77 -n "$n" < nums) <(cat nums | op --seed 77 -n "$n")
done

# -n from a pipe: copied to an unlinked temporary file in $TMPDIR, then read twice like a file.
mkdir -p spill
check "shuf -n K from a pipe: nothing left in TMPDIR" \
  eval '[ "$(seq 1 50000 | TMPDIR=$PWD/spill op --seed 5 -n 3 | wc -l)" -eq 3 ] && [ -z "$(ls -A spill)" ]'
check "shuf -n K from a pipe, TMPDIR unusable: held instead, the same lines" \
  cmp -s <(seq 1 50000 | TMPDIR=$PWD/no-such-dir op --seed 5 -n 3) <(seq 1 50000 | op --seed 5 -n 3)
check "shuf -n K - - from a pipe: standard input read once (the second '-' is empty)" \
  [ "$(printf 'x\ny' | op --seed 1 -n 5 - - | sort | tr '\n' ' ')" = "x y " ]
check "shuf -n K FILE - from a pipe: as the concatenation" \
  cmp -s <(seq 3 | op --seed 9 -n 40 nums -) <(cat nums <(seq 3) | op --seed 9 -n 40)
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true 2>/dev/null; then
  # 2^23 numbers (about 64 MB of text) through a pipe: -n 3 holds the 3 lines, not the input.
  seq 1 8388608 > big.txt
  all_kib=$( { /usr/bin/time -f %M "$ONEPASS" shuf --seed 1 < big.txt > /dev/null; } 2>&1 | tail -n 1)
  few_kib=$( { cat big.txt | /usr/bin/time -f %M "$ONEPASS" shuf --seed 1 -n 3 > /dev/null; } 2>&1 | tail -n 1)
  check "shuf -n 3 from a pipe: peak memory ($few_kib KiB) well below holding the input ($all_kib KiB)" \
    [ "$((few_kib + 40000))" -lt "$all_kib" ]
  rm -f big.txt
else
  echo "shuf_compat: skipped the -n memory check: no GNU time at /usr/bin/time"
fi

# --- -r -n: exactly n lines, each one of the input -------------------------------------
op -r -n 5000 -e x y z > rep.out
check "shuf -r -n 5000 -e x y z: 5000 lines" [ "$(lines_of rep.out)" -eq 5000 ]
check "shuf -r: only the inputs" [ -z "$(grep -vx -e x -e y -e z rep.out)" ]
check "shuf -r: all three appear in 5000 draws" [ "$(sort -u rep.out | wc -l)" -eq 3 ]
[ -n "$GNU" ] && check "shuf -r -n 5000: as many lines as GNU" [ "$("$GNU" -r -n 5000 -e x y z | wc -l)" -eq 5000 ]
op -rn 300 nums > rep.nums
check "shuf -rn 300 nums: 300 lines of the input" \
  eval '[ "$(lines_of rep.nums)" -eq 300 ] && [ -z "$(comm -23 <(sort -u rep.nums) <(sort nums))" ]'
check "shuf -r without -n: keeps going (head -n 100000 stops it)" [ "$(op -r -i 1-3 | head -n 100000 | wc -l)" -eq 100000 ]
check "shuf -r --seed: deterministic" cmp -s <(op -r -n 100 --seed 3 nums) <(op -r -n 100 --seed 3 nums)
check "shuf -i ' +1- +3' -n '+2': GNU's number syntax (leading space, '+')" \
  [ "$(op -i ' +1- +3' -n '+2' | sort -u | wc -l)" -eq 2 ]
check "shuf -n ' 5' -i +1-3: all three numbers" [ "$(op -n ' 5' -i +1-3 | sort -n | tr '\n' ' ')" = "1 2 3 " ]
check "shuf -r -i 4-4 -n 3: the one number three times" [ "$(op -r -i 4-4 -n 3 | tr '\n' ' ')" = "4 4 4 " ]

# --- -z: NUL-separated in and out -------------------------------------------------------
op -z zin > z.out
check "shuf -z: 4 NUL-terminated items" [ "$(nuls_of z.out)" -eq 4 ]
check "shuf -z: the items (newlines inside kept)" \
  cmp -s <(tr '\0\n' '\n\1' < z.out | sort) <(tr '\0\n' '\n\1' < zin.expected | sort)
if [ -n "$GNU" ]; then
  "$GNU" -z zin > z.gnu
  check "shuf -z: as GNU" cmp -s <(tr '\0\n' '\n\1' < z.out | sort) <(tr '\0\n' '\n\1' < z.gnu | sort)
fi
check "shuf -z -e: NUL after each argument" [ "$(op -z -e a b c | nuls_of /dev/stdin)" -eq 3 ]
check "shuf -z -i 1-9: NUL after each number" [ "$(op -z -i 1-9 | nuls_of /dev/stdin)" -eq 9 ]
check "shuf -z: no newline added" [ "$(op -z -e a b | tr -cd '\n' | wc -c)" -eq 0 ]

# --- -o: a new file, the input itself (in place), nothing lost on failure -------------
op -o new.out nums; check "shuf -o NEW: status" [ $? -eq 0 ]
check "shuf -o NEW: the lines" same_multiset new.out nums
cp nums inplace; chmod 640 inplace
op -o inplace inplace; check "shuf -o FILE FILE: status" [ $? -eq 0 ]
check "shuf -o FILE FILE (in place): the same lines" same_multiset inplace nums
check "shuf -o FILE FILE: shuffled" differ inplace nums
# A disk that cannot hold FILE and its replacement at once: written in place, as GNU does
# (needs root and tmpfs; skipped otherwise).
mkdir -p small
if mount -t tmpfs -o size=1m tmpfs small 2>/dev/null; then
  seq 1 110000 > small/f  # 659 KB of the 1 MiB
  cp small/f f.orig
  op --seed 3 -o small/f small/f; status=$?
  check "shuf -o FILE FILE on a nearly full disk: status 0" [ $status -eq 0 ]
  check "shuf -o FILE FILE on a nearly full disk: the order of --seed 3" cmp -s small/f <(op --seed 3 f.orig)
  check "shuf -o FILE FILE on a nearly full disk: no temporary file left" [ "$(ls -A small)" = "f" ]
  umount small
else
  echo "shuf_compat: skipped the nearly-full-disk -o check: cannot mount a tmpfs here (needs root)"
fi
check "shuf -o FILE FILE: mode kept" [ "$(stat -c %a inplace)" = 640 ]
cp nums inplace2; op --output=inplace2 -n 10 inplace2
check "shuf -n 10 --output=FILE FILE: 10 of its lines" eval '[ "$(lines_of inplace2)" -eq 10 ] && sub_multiset inplace2 nums'
if [ -n "$GNU" ]; then
  cp nums gnu.inplace; "$GNU" -o gnu.inplace gnu.inplace
  check "shuf -o FILE FILE: same lines as GNU in place" same_multiset inplace gnu.inplace
fi
cp nums keep; cp nums keep.orig
op -o keep --random-source=empty keep 2>/dev/null
check "shuf -o FILE FILE failing (empty --random-source): status 1" [ $? -eq 1 ]
check "shuf -o FILE FILE failing: FILE untouched" cmp -s keep keep.orig
check "shuf -o: no temporary file left" [ -z "$(ls -A | grep onepass-shuf)" ]
op -o /dev/null nums; check "shuf -o /dev/null: status 0" [ $? -eq 0 ]
check "shuf -o /dev/null: still a device" [ -c /dev/null ]
op -n 0 -o zero.out nums; check "shuf -n 0 -o NEW: an empty file (as GNU)" eval '[ -e zero.out ] && [ ! -s zero.out ]'

# --- Determinism: --seed, --random-source; unshuf; fresh seeds without --seed ----------
check "--seed S twice: same output" cmp -s <(op --seed 42 nums) <(op --seed 42 nums)
check "--seed 42 and 43: different output" differ <(op --seed 42 nums) <(op --seed 43 nums)
check "shuf --seed S = the library's shuffle (onepass permutation --seed S)" \
  cmp -s <(op --seed 42 -i 0-999) <("$ONEPASS" permutation --n 1000 --seed 42 | tr ' ' '\n')
check "shuf --seed S FILE: line j is line perm[j] + 1" \
  cmp -s <(op --seed 42 nums) <("$ONEPASS" permutation --n 1000 --seed 42 | tr ' ' '\n' | awk '{print $1 + 1}')
check "shuf --seed S --rounds 7 -a lcg: as permutation" \
  cmp -s <(op --seed 5 --rounds 7 -a lcg -i 0-99) <("$ONEPASS" permutation -a lcg --n 100 --seed 5 | tr ' ' '\n')
head -c 100 /dev/urandom > key1; head -c 100 /dev/urandom > key2
check "--random-source=FILE twice: same output" \
  cmp -s <(op --random-source=key1 nums) <(op --random-source=key1 nums)
check "--random-source: another FILE, another order" differ <(op --random-source=key1 nums) <(op --random-source=key2 nums)
check "--random-source: -r -n deterministic" \
  cmp -s <(op --random-source=key1 -r -n 50 nums) <(op --random-source=key1 -r -n 50 nums)
# --random-source=FILE is --seed S for S = FILE's first 8 bytes, little-endian (later bytes
# do not count); -n K then prints the first K lines of the whole order.
printf '\052\000\000\000\000\000\000\000\377\001' > key42; printf '\052\000\000\000\000\000\000\000\000' > key42b
check "--random-source=FILE: --seed of FILE's first 8 bytes (little-endian)" \
  cmp -s <(op --random-source=key42 nums) <(op --seed 42 nums)
check "--random-source=FILE: bytes after the 8th do not count" \
  cmp -s <(op --random-source=key42 nums) <(op --random-source=key42b nums)
check "--random-source -n 5: the first 5 lines of the whole order" \
  cmp -s <(op --random-source=key42 -n 5 nums) <(op --random-source=key42 nums | head -n 5)
check "no --seed: two runs differ (1000 lines)" differ <(op nums) <(op nums)
check "no --seed -r -n: two runs differ" differ <(op -r -n 1000 nums) <(op -r -n 1000 nums)

for f in nums dups nofinal.expected empty one; do
  check "unshuf --seed 9 of shuf --seed 9 $f: the original" cmp -s <(op --seed 9 "$f" | un --seed 9) "$f"
done
check "unshuf round trip, 2^20 + 3 lines (several batches)" \
  cmp -s <(seq 1048579 | op --seed 1 | un --seed 1) <(seq 1048579)
check "unshuf round trip: -z" cmp -s <(op -z --seed 4 zin | un -z --seed 4) zin.expected
check "unshuf round trip: --rounds 5 -a lcg" cmp -s <(op --rounds 5 -a lcg --seed 4 nums | un --rounds 5 -a lcg --seed 4) nums
check "unshuf round trip: --random-source" cmp -s <(op --random-source=key1 nums | un --random-source=key1) nums
check "unshuf round trip: -a std_shuffle (registry baseline)" \
  cmp -s <(op -a std_shuffle --seed 2 nums | un -a std_shuffle --seed 2) nums
op --seed 3 -o rt nums; un --seed 3 -o rt rt
check "unshuf -o FILE FILE: restores in place" cmp -s rt nums
check "unshuf with another seed: not the original" differ <(op --seed 9 nums | un --seed 10) nums

# --- Errors: status 1 (as GNU) and a message naming the option or file ----------------
expect_error() {  # expect_error DESCRIPTION EXPECTED-STDERR-SUBSTRING ARGS...
  local what=$1 words=$2; shift 2
  "$ONEPASS" "$@" > err.out 2> err.msg < /dev/null; local status=$?
  check "$what: exit status 1 (got $status)" [ "$status" -eq 1 ]
  check "$what: nothing on stdout" [ ! -s err.out ]
  check "$what: one line on stderr" [ "$(wc -l < err.msg)" -eq 1 ]
  check "$what: message contains \"$words\" (got: $(cat err.msg))" grep -qF -- "$words" err.msg
}
expect_error "bad -i" "onepass: shuf: invalid input range: '5-3'" shuf -i 5-3
expect_error "bad -i text" "invalid input range: 'x'" shuf -i x
expect_error "-i too large" "invalid input range: '0-18446744073709551615'" shuf -i 0-18446744073709551615
expect_error "missing file" "onepass: shuf: no_such_file: No such file or directory" shuf no_such_file
expect_error "missing second file" "no_such_file" shuf nums no_such_file
expect_error "directory" "read error" shuf .
expect_error "bad -n" "invalid line count: 'x'" shuf -n x nums
if [ -w /dev/full ]; then
  check "shuf --help > /dev/full: exit 1 with GNU's write error" \
    sh -c '"$0" shuf --help > /dev/full 2> full.msg; [ $? -eq 1 ] && grep -q "write error: No space left on device" full.msg' \
    "$ONEPASS"
fi
printf 'one\n' > one_line
expect_error "missing --random-source with one line" "no_such_source: No such file or directory" \
  shuf --random-source=no_such_source one_line
expect_error "negative -n" "invalid line count: ' -5'" shuf -n ' -5' nums
expect_error "-i LO too large" "invalid input range: '99999999999999999999': Value too large for defined data type" \
  shuf -i 99999999999999999999-3
expect_error "-i HI too large" "invalid input range: '18446744073709551616': Value too large for defined data type" \
  shuf -i 0-18446744073709551616
expect_error "-i LO with a space after it" "invalid input range: '1 '" shuf -i '1 -3'
expect_error "-e with -i" "cannot combine -e and -i options" shuf -e -i 1-3
expect_error "-i with an operand" "extra operand 'nums'" shuf -i 1-3 nums
expect_error "unknown option" "unrecognized option '--frobnicate'" shuf --frobnicate
expect_error "invalid short option" "invalid option -- 'x'" shuf -x
expect_error "-n without its argument" "option requires an argument -- 'n'" shuf -n
expect_error "-r on empty input" "no lines to repeat" shuf -r empty
expect_error "two -o" "multiple output files specified" shuf -o a -o b nums
expect_error "empty --random-source" "'empty': end of file" shuf --random-source=empty nums
# A --random-source shorter than the output needs: ceil(log2(N) / 8) bytes, at most 8, for N
# possible outputs (1000 lines: 8; -n 2 of 1000: 3; -r -n 9 of 2: 2); GNU also says "end of file".
printf 'abcdefg' > seven_bytes; printf 'ab' > two_bytes; printf 'abc' > three_bytes; printf 'a' > one_byte; printf '1\n2\n' > two_lines
expect_error "--random-source of 7 bytes for 1000 lines" "'seven_bytes': end of file" shuf --random-source=seven_bytes nums
expect_error "--random-source of 2 bytes for -n 2 of 1000" "'two_bytes': end of file" shuf --random-source=two_bytes -n 2 nums
expect_error "--random-source of 1 byte for -r -n 9 of 2" "'one_byte': end of file" shuf --random-source=one_byte -r -n 9 two_lines
check "--random-source of 3 bytes for -n 2 of 1000: enough" eval 'op --random-source=three_bytes -n 2 nums > /dev/null'
check "--random-source of 1 byte for 2 lines: enough" eval 'op --random-source=one_byte two_lines > /dev/null'
check "--random-source of 1 byte for -r -n 8 of 2: enough" eval 'op --random-source=one_byte -r -n 8 two_lines > /dev/null'
expect_error "missing --random-source" "no_such_key: No such file or directory" shuf --random-source=no_such_key nums
expect_error "--seed out of range" "--seed" shuf --seed 18446744073709551616 nums
expect_error "--rounds out of range" "[1, 64]" shuf --rounds 65 nums
expect_error "-o into a missing directory" "no_dir/x: No such file or directory" shuf -o no_dir/x nums
expect_error "unshuf without --seed" "--seed" unshuf nums
expect_error "unshuf -n" "-n/--head-count" unshuf --seed 1 -n 3 nums
expect_error "unshuf -r" "-r/--repeat" unshuf --seed 1 -r nums
if [ -n "$GNU" ]; then
  for args in "-i 5-3" "no_such_file" "-n x" "-e -i 1-3" "-r empty" "--frobnicate" "--random-source=empty nums" \
    "--random-source=one_byte two_lines" "--random-source=one_byte -r -n 8 two_lines" "--random-source=one_byte -r -n 9 two_lines" \
    "--random-source=one_byte -r two_lines" "--random-source=three_bytes -n 2 nums" "--random-source=two_bytes -n 2 nums" \
    "--random-source=seven_bytes nums" "--random-source=key42 one" "--random-source=empty one"; do
    # (-r without -n never ends unless FILE runs out: at most 20 s, status 124 then.)
    # shellcheck disable=SC2086
    timeout 20 "$GNU" $args > /dev/null 2>&1 < /dev/null; gnu_status=$?
    # shellcheck disable=SC2086
    timeout 20 "$ONEPASS" shuf $args > /dev/null 2>&1 < /dev/null; our_status=$?
    check "shuf $args: exit status as GNU ($gnu_status), got $our_status" [ "$our_status" -eq "$gnu_status" ]
  done
fi

# --- --help, --version -------------------------------------------------------------------
op --help > help.out; check "shuf --help: status 0" [ $? -eq 0 ]
for opt in --echo --input-range --head-count --output --random-source --repeat --zero-terminated --seed --rounds; do
  check "shuf --help mentions $opt" grep -q -- "$opt" help.out
done
check "shuf --version: status 0 and a version line" eval 'op --version | head -n 1 | grep -q "^onepass shuf"'
check "unshuf --help: status 0" eval 'un --help > /dev/null'
check "a bare -n for --rounds is -n (GNU's), not --rounds" [ "$(op -n 2 -i 1-9 | wc -l)" -eq 2 ]

echo "shuf_compat: $((checks - failures))/$checks checks passed${GNU:+ (GNU shuf: $GNU)}"
[ "$failures" -eq 0 ]
