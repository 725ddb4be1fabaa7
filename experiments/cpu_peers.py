"""onepass from Python on the CPU against what NumPy users call today, in one process, in one
run (issue 32 §6, "CPU speed against what NumPy users have"): writes DIR/cpu_peers.csv and
DIR/cpu_peers.meta.json.

    python experiments/cpu_peers.py --out-dir DIR [--scale smoke|default|paper] [--items N]
                                    [--repeats R] [--warmup W] [--cases sort,argsort,normal,shuffle]

Needs onepass importable with its CPU extension (PYTHONPATH=build/python-ext/python after
`make test-python-pkg`, or the installed package) and NumPy.

Scales: default n = 10^8 (the issue's size), 3 timed calls after 1 warm-up each (about 11
minutes on 2 cores, two thirds of it in np.argsort); paper the same with 5; smoke n = 10^6, 3
after 1 (seconds). --items (e.g. 1e7, 2^20), --repeats and --warmup override them.

Cases:
  sort     uint32, uint64, float32, float64: onepass.sort(x) (the library's CPU LSD radix sort,
           oneTBB) | numpy_sort: np.sort(x) (default kind, "quicksort": introsort, or NumPy's
           SIMD sort where its build dispatches one)
  argsort  the same dtypes: onepass.argsort(x) | numpy_argsort: np.argsort(x) (default kind);
           the issue's target compares onepass.argsort with np.sort of the same keys (the sort
           case's numpy_sort row)
  normal   float64, float32: onepass.normal(n, seed, dtype=) (the warp Gaussian generator's CPU
           emulation; float32: the float-native generator, its default) |
           numpy_standard_normal: np.random.default_rng(seed).standard_normal(n, dtype=)
           (PCG64, ziggurat)
  shuffle  int64: onepass.shuffle(x, seed) (the bijective shuffle, out of place) |
           numpy_permutation: rng.permutation(x) (a shuffled copy) | numpy_shuffle:
           rng.shuffle(x) (in place, on a copy of x made before the timing); the fastest
           NumPy configuration is the one to compare with
Keys: uniform integers over the whole range (uint32, uint64) and standard normal values
(float64; float32 the same values rounded), from np.random.default_rng(--seed), made before
the timed region, like the shuffle's input 0 … n-1 and every peer's generator.

Timing: time.perf_counter() around each call, which allocates its result as a NumPy user's
call does (the result is dropped after the clock stops); --warmup untimed calls, then
--repeats timed calls: median, min and max. onepass runs on oneTBB's default number of
threads (every core of the process's affinity mask); NumPy's sort, argsort, generators and
shuffles run on one thread. One call of ours per case is checked outside the timing: sort
equals np.sort's output, keys[argsort] equals it, the normal samples are finite with mean
and standard deviation near 0 and 1, and the shuffle is a permutation of 0 … n-1 other than
the identity; a failed check stops the program (exit 1). A peer that fails (e.g.
MemoryError) is skipped with a note on stderr and in meta.json.

Columns: algorithm (onepass | numpy_sort | numpy_argsort | numpy_standard_normal |
numpy_permutation | numpy_shuffle), case, dtype, n, seconds_median, seconds_min, seconds_max,
items_per_second (n / median), repeats, note. meta.json: commit, dirty flags, CPU model and
cores, the 1-minute load average before and after (loadavg_before / loadavg_after, as the C++
programs record it; all three averages too, and the 1-minute one at the start of each case),
versions, NumPy's SIMD dispatch on this CPU, the process's peak RSS. Run it with nothing else
on the machine: the load average says whether it was.

Memory: at n = 10^8 about 5 GB at the peak (float64 keys, NumPy's sorted copy kept as the
check's reference, our argsort's output and buffers, the check's gathered keys).
"""

import argparse
import csv
import gc
import json
import os
import re
import resource
import statistics
import sys
import time

try:  # imported as experiments.<name> (tests, python -m)
    from experiments.host_info import loadavg, proc_kib, run_provenance
except ImportError:  # run as a script: experiments/ is sys.path[0]
    from host_info import loadavg, proc_kib, run_provenance

import numpy as np

EXPERIMENT = "cpu_peers"
COLUMNS = ["algorithm", "case", "dtype", "n", "seconds_median", "seconds_min", "seconds_max", "items_per_second",
           "repeats", "note"]
CASES = ["sort", "argsort", "normal", "shuffle"]
SORT_DTYPES = ["uint32", "uint64", "float32", "float64"]
NORMAL_DTYPES = ["float64", "float32"]
OURS = "onepass"
# n, repeats, warm-up calls of each scale (--items, --repeats, --warmup override).
SCALES = {
    "smoke": {"items": 10 ** 6, "repeats": 3, "warmup": 1},
    "default": {"items": 10 ** 8, "repeats": 3, "warmup": 1},
    "paper": {"items": 10 ** 8, "repeats": 5, "warmup": 1},
}
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def measured_code():
    """The code this experiment measures (git pathspecs; whether it was clean when measured): its
    stale_when groups in experiments/manifest.toml and this program."""
    if REPO not in sys.path:
        sys.path.insert(0, REPO)  # run as a script: figures/ is a package of the repository root
    from figures.manifest import manifest
    return manifest().code_paths(EXPERIMENT)


# ----------------------------------------------------------------------------- arguments

def parse_items(text):
    """'1e8', '10^8', '2^20', '2^20+1', '1000000' -> a positive int; ValueError otherwise."""
    t = text.strip().replace(" ", "").replace("**", "^")
    m = re.fullmatch(r"(\d+)\^(\d+)([+-]\d+)?", t)
    if m:
        value = int(m.group(1)) ** int(m.group(2)) + int(m.group(3) or 0)
    else:
        m = re.fullmatch(r"(\d+)(?:\.(\d+))?[eE](\d+)", t)
        if m:
            frac = m.group(2) or ""
            value = int(m.group(1) + frac) * 10 ** int(m.group(3)) // 10 ** len(frac)
        else:
            value = int(t)
    if value < 2:
        raise ValueError("at least 2 items, got %r" % text)
    return value


# ----------------------------------------------------------------------------- provenance

def numpy_simd():
    """NumPy's SIMD on this CPU: its compiled baseline and the dispatched extensions the CPU has
    (np.sort's speed depends on them), or None where this NumPy does not say."""
    for path in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            module = __import__(path, fromlist=["__cpu_features__"])
            features = module.__cpu_features__
            return {"baseline": list(module.__cpu_baseline__),
                    "dispatched_on_this_cpu": [f for f in module.__cpu_dispatch__ if features.get(f)]}
        except Exception:  # noqa: BLE001 - another NumPy layout
            continue
    return None


def provenance(args):
    out = {"experiment": EXPERIMENT, "program": "experiments/cpu_peers.py"}
    out.update(run_provenance(measured_code()))
    out.update({"memory_total_bytes": proc_kib("/proc/meminfo", "MemTotal"), "scale": args.scale})
    return out


# ----------------------------------------------------------------------------- the benchmark

class CheckFailed(RuntimeError):
    """One of our outputs is wrong: its timing means nothing."""


class Bench:
    def __init__(self, args, onepass):
        self.args, self.op = args, onepass
        self.n = args.items
        self.rows, self.skipped = [], []
        self.loadavg_by_case = {}
        self.rng_seed = args.seed

    def note_load(self, what):
        """Keeps the 1-minute load average at the start of a case (meta.json's loadavg_by_case)."""
        load = loadavg()
        self.loadavg_by_case[what] = load[0] if load else None

    def record(self, case, algorithm, dtype, fn, check=None, note=""):
        """Times fn() (--warmup untimed calls, then --repeats timed ones) and appends the row;
        check(output) runs on the first timed call's output, after its clock stopped."""
        try:
            for _ in range(self.args.warmup):
                fn()
            times = []
            for i in range(self.args.repeats):
                gc.collect()
                start = time.perf_counter()
                out = fn()
                times.append(time.perf_counter() - start)
                if i == 0 and check is not None:
                    check(out)
                del out
        except CheckFailed:
            raise
        except Exception as e:  # noqa: BLE001 - e.g. MemoryError: recorded as skipped
            message = "%s %s %s n=%d: %s: %s" % (case, algorithm, dtype, self.n, type(e).__name__, str(e)[:200])
            print("cpu_peers: skipped " + message, file=sys.stderr, flush=True)
            self.skipped.append(message)
            gc.collect()
            return None
        median = statistics.median(times)
        self.rows.append({"algorithm": algorithm, "case": case, "dtype": dtype, "n": self.n,
                          "seconds_median": "%.6g" % median, "seconds_min": "%.6g" % min(times),
                          "seconds_max": "%.6g" % max(times), "items_per_second": "%.6g" % (self.n / median),
                          "repeats": len(times), "note": note})
        print("%-8s %-8s %-22s n=%-10d %9.4f s (min %.4f)  %8.2f M items/s" % (
            case, dtype, algorithm, self.n, median, min(times), self.n / median / 1e6), flush=True)
        return median

    def keys(self, dtype):
        rng = np.random.default_rng(self.rng_seed)
        if dtype in ("uint32", "uint64"):
            return rng.integers(0, np.iinfo(dtype).max, size=self.n, dtype=dtype, endpoint=True)
        return rng.standard_normal(self.n, dtype=np.float64).astype(dtype)

    def sorted_reference(self, dtype, keys):
        """NumPy's sorted copy of keys (untimed), kept between the sort and argsort cases."""
        ref = getattr(self, "_reference", None)
        if ref is not None and ref[0] == dtype:
            return ref[1]
        self._reference = None
        gc.collect()
        self._reference = (dtype, np.sort(keys))
        return self._reference[1]

    def sort_cases(self, cases):
        op = self.op
        for dtype in SORT_DTYPES:
            keys = self.keys(dtype)
            self._reference = None
            if "sort" in cases:
                self.note_load("sort " + dtype)
                self.record("sort", "numpy_sort", dtype, lambda: np.sort(keys))
                ref = self.sorted_reference(dtype, keys)

                def check_sort(out, ref=ref, dtype=dtype):
                    if out.dtype != np.dtype(dtype) or not np.array_equal(out, ref):
                        raise CheckFailed("onepass.sort(%s) differs from np.sort's output" % dtype)
                self.record("sort", OURS, dtype, lambda: op.sort(keys), check_sort)
            if "argsort" in cases:
                self.note_load("argsort " + dtype)
                self.record("argsort", "numpy_argsort", dtype, lambda: np.argsort(keys))
                ref = self.sorted_reference(dtype, keys)

                def check_argsort(index, ref=ref, keys=keys, dtype=dtype):
                    if index.dtype != np.int64 or index.shape != keys.shape or not np.array_equal(keys[index], ref):
                        raise CheckFailed("keys[onepass.argsort(keys)] (%s) differs from np.sort's output" % dtype)
                self.record("argsort", OURS, dtype, lambda: op.argsort(keys), check_argsort)
            keys = None  # freed before the next dtype's keys are made
            self._reference = None
            gc.collect()

    def normal(self):
        op, n, seed = self.op, self.n, self.rng_seed
        for dtype in NORMAL_DTYPES:
            self.note_load("normal " + dtype)
            rng = np.random.default_rng(seed)
            self.record("normal", "numpy_standard_normal", dtype, lambda: rng.standard_normal(n, dtype=dtype))

            def check_normal(out, dtype=dtype):
                if out.dtype != np.dtype(dtype) or out.shape != (n,) or not np.isfinite(out).all():
                    raise CheckFailed("onepass.normal(%d, dtype=%s): wrong dtype/shape or non-finite values"
                                      % (n, dtype))
                mean, std = float(out.mean(dtype=np.float64)), float(out.std(dtype=np.float64))
                if abs(mean) > 0.01 + 6 / n ** 0.5 or abs(std - 1) > 0.01 + 6 / (2 * n) ** 0.5:
                    raise CheckFailed("onepass.normal(%d, dtype=%s): mean %.4g, std %.4g" % (n, dtype, mean, std))
            note = "float-native generator (method='float_native', the default)" if dtype == "float32" else ""
            self.record("normal", OURS, dtype, lambda: op.normal(n, seed, dtype=dtype), check_normal, note)

    def shuffle(self):
        op, n, seed = self.op, self.n, self.rng_seed
        self.note_load("shuffle int64")
        x = np.arange(n, dtype=np.int64)
        rng = np.random.default_rng(seed)
        self.record("shuffle", "numpy_permutation", "int64", lambda: rng.permutation(x))
        y = x.copy()  # shuffled in place, again at each call

        def shuffle_in_place():
            rng.shuffle(y)
            return y
        self.record("shuffle", "numpy_shuffle", "int64", shuffle_in_place, note="in place: no output array")
        y = None
        gc.collect()

        def check_shuffle(out):
            seen = np.zeros(n, dtype=bool)
            seen[out] = True
            if out.dtype != np.int64 or out.shape != (n,) or not seen.all() or np.array_equal(out, x):
                raise CheckFailed("onepass.shuffle(0 … n-1) is not a permutation of its input other than the "
                                  "identity")
        self.record("shuffle", OURS, "int64", lambda: op.shuffle(x, seed), check_shuffle)


def write_outputs(out_dir, rows, meta):
    with open(os.path.join(out_dir, EXPERIMENT + ".csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    with open(os.path.join(out_dir, EXPERIMENT + ".meta.json"), "w") as fh:
        json.dump(meta, fh, indent=2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", required=True, help="writes cpu_peers.csv and cpu_peers.meta.json there")
    parser.add_argument("--scale", choices=list(SCALES), default="default",
                        help="smoke: 10^6 items, 3 repeats; default: 10^8, 3 repeats; paper: 10^8, 5 repeats")
    parser.add_argument("--items", help="n per call (1e8, 10^8, 2^20, ...; default: the scale's)")
    parser.add_argument("--repeats", type=int, help="timed calls per row (default: the scale's)")
    parser.add_argument("--warmup", type=int, help="untimed calls before them (default: the scale's, 1)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the inputs, of ours and of NumPy's generator")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated subset of " + ", ".join(CASES))
    args = parser.parse_args(argv)
    scale = SCALES[args.scale]
    try:
        args.items = parse_items(args.items) if args.items is not None else scale["items"]
    except ValueError as e:
        parser.error("--items: %s" % e)
    args.repeats = scale["repeats"] if args.repeats is None else args.repeats
    args.warmup = scale["warmup"] if args.warmup is None else args.warmup
    if args.repeats < 1 or args.warmup < 0 or not 0 <= args.seed < 2 ** 63:
        parser.error("--repeats >= 1, --warmup >= 0, --seed in [0, 2^63)")
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in CASES:
            parser.error("--cases: unknown case %r (known: %s)" % (c, ", ".join(CASES)))
    if os.path.exists(args.out_dir) and not os.path.isdir(args.out_dir):
        parser.error("--out-dir: %s is not a directory" % args.out_dir)
    try:
        import onepass
    except Exception as e:  # noqa: BLE001
        raise SystemExit("cpu_peers: onepass is not importable (%s); PYTHONPATH=build/python-ext/python after "
                         "make test-python-pkg" % e)
    os.makedirs(args.out_dir, exist_ok=True)
    meta = provenance(args)
    load_before = loadavg()
    started = time.time()
    bench = Bench(args, onepass)
    try:
        if "sort" in cases or "argsort" in cases:
            bench.sort_cases(cases)
        if "normal" in cases:
            bench.normal()
        if "shuffle" in cases:
            bench.shuffle()
    except CheckFailed as e:
        print("cpu_peers: ERROR: %s" % e, file=sys.stderr)
        return 1
    load_after = loadavg()
    meta.update({
        "n": args.items, "seed": args.seed, "repeats": args.repeats, "warmup": args.warmup, "cases": cases,
        "loadavg_before": load_before[0] if load_before else None,
        "loadavg_after": load_after[0] if load_after else None,
        "loadavg_1_5_15_before": load_before, "loadavg_1_5_15_after": load_after,
        "loadavg_by_case": bench.loadavg_by_case,
        "versions": {"python": sys.version.split()[0], "numpy": np.__version__, "onepass": onepass.__version__},
        "onepass_module": os.path.dirname(os.path.abspath(onepass.__file__)),
        "numpy_simd": numpy_simd(),
        "threads": "onepass: oneTBB's default concurrency (%d, the process's affinity mask); NumPy: 1"
                   % meta["cores_used"],
        "timing": "time.perf_counter() around each call, which allocates its result (in-place rng.shuffle "
                  "excepted); median, min and max of the timed calls",
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "skipped": bench.skipped, "run_seconds": round(time.time() - started, 1)})
    write_outputs(args.out_dir, bench.rows, meta)
    print("cpu_peers: %d rows in %s (%.0f s; load average %s -> %s)" % (
        len(bench.rows), os.path.join(args.out_dir, EXPERIMENT + ".csv"), time.time() - started,
        load_before, load_after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
