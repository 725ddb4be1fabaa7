"""Beyond one GPU: the distributed sort and shuffle over NCCL (experiments/multi_gpu_sort.cu,
experiments/multi_gpu_shuffle.cu): their figures and their report section.

    python -m figures.multi_gpu_results --results DIR --out DIR [--recorded DIR] [--only sort|shuffle]

Reads, from the results directory when a fresh run is there, else from the recorded copy
results/recorded/<device>/ (the folder holding it with the most ranks, the newest run among equals):

  multi_gpu_sort.csv      algorithm,shape,num_ranks,n_per_rank,n_total,seconds_median,seconds_min,
                          seconds_max,keys_per_second; algorithms distributed_sort (ours,
                          onepass::distributed::sort_keys/sort_pairs), onepass_sort (one GPU over the
                          whole input, num_ranks 1), alltoall (NCCL grouped send/recv of the same bytes);
                          shapes keys_u32, keys_u64, pairs_u32 (strong scaling), weak_keys_u32 (2^30 keys
                          per GPU), q4_band_u32, one_percent_equal_u32, presorted_u32, reverse_u32 (skewed).
  multi_gpu_shuffle.csv, else multi_gpu_shuffle_medians*.csv (parsed from the progress log: medians
                          only) — algorithm,shape,num_ranks,n_total,seconds_median,items_per_second;
                          algorithms distributed_shuffle, distributed_shuffle_walking, bijective_shuffle
                          (one GPU), alltoall; shapes u64 (strong), weak_u64 (2^30 u64 items per GPU).

Beside multi_gpu_sort.csv, when present in the same folder (all three optional):
  multi_gpu_sort_big.csv  the same columns: 2^34 u32 keys on the world's GPUs (--big)
  rmg_sort.csv            the same columns, RMG sort (hpides/rmg-sort) on the same machine, from its
                          own timers: rmg_sort = its total minus its host-to-device copy (so its GPU
                          phases plus its copy back to the host, which it overlaps with its local
                          sort: an upper bound of a GPU-resident RMG sort), rmg_sort_before_local_sort
                          = its histogram + scatter (slowest GPU) + peer key swap (a lower bound)
  bench_distributed_partition-*.txt  scripts/bench_distributed_partition.cu's output (the per-rank
                          kernels of the distributed sort timed one by one on one GPU)
The device is read from nvidia-smi.txt beside the CSV when present.

Figures (written to --out as .png and .pdf):
  multi_gpu_sort_strong   time vs P for keys_u32, keys_u64, pairs_u32, the one-GPU sort (dashed), the
                          measured all-to-all (dotted) and the issue's targets (hollow stars)
  multi_gpu_sort_weak     weak_keys_u32 time vs P, the all-to-all, the target 1.5 x the 1-GPU time at P = 4
  multi_gpu_sort_skew     the skewed shapes and uniform keys_u32 vs P, the target 1.3 x uniform
  multi_gpu_shuffle       u64 and weak_u64: both distributed shuffles, the all-to-all, the one-GPU
                          bijective shuffle and the weak-scaling target 1.3 x (all-to-all + one-GPU shuffle)

Targets (the issue; H100, the same run):
  sort strong scaling, 2^31 u32 keys: >= 1.5x faster than onepass::sort on one GPU at P = 2, >= 2.6x at
  P = 4; u64 keys (2^30) and u32 pairs (2^31): >= 1.4x / >= 2.4x;
  weak scaling, 2^30 u32 keys per GPU: time(4) <= 1.5 x time(1);
  skewed keys: <= 1.3 x the uniform time at the same P, output counts exactly balanced;
  shuffle, 2^30 u64 items per GPU: time <= 1.3 x (all-to-all of the same bytes + one-GPU
  bijective_shuffle of 2^30 items).
Standard library only, except the draw functions (matplotlib).
"""

import argparse
import csv
import glob
import json
import os
import re
import sys

from figures import shuffle_results as sr
from figures.figure_files import footer, save_figure
from paper import provenance as pv

SORT = "multi_gpu_sort"
SHUFFLE = "multi_gpu_shuffle"
SORT_COLUMNS = ["algorithm", "shape", "num_ranks", "n_per_rank", "n_total", "seconds_median", "seconds_min",
                "seconds_max", "keys_per_second"]
SHUFFLE_COLUMNS = ["algorithm", "shape", "num_ranks", "n_total", "seconds_median", "items_per_second"]
SORT_FIGURES = ["multi_gpu_sort_strong", "multi_gpu_sort_weak", "multi_gpu_sort_skew"]
SHUFFLE_FIGURES = ["multi_gpu_shuffle"]
FIGURES = SORT_FIGURES + SHUFFLE_FIGURES

STRONG = ["keys_u32", "keys_u64", "pairs_u32"]
WEAK = "weak_keys_u32"
UNIFORM = "keys_u32"
BIG = "big_keys_u32"  # --big: 2^34 u32 keys over the world (the distributed sort only)
SKEWED = ["q4_band_u32", "one_percent_equal_u32", "presorted_u32", "reverse_u32"]
# Strong scaling: {shape: {P: minimum speedup over onepass_sort on one GPU}}.
STRONG_TARGETS = {"keys_u32": {2: 1.5, 4: 2.6}, "keys_u64": {2: 1.4, 4: 2.4}, "pairs_u32": {2: 1.4, 4: 2.4}}
WEAK_TARGET = (4, 1.5)  # time(P = 4) <= 1.5 x time(1)
SKEW_TARGET = 1.3  # <= 1.3 x the uniform time at the same P
MERGE = "distributed_sort_merge"  # sort_first's rows while partition_first was the default (to 2026-11-27)
PARTITION = "distributed_sort_partition_first"  # partition_first's rows since sort_first is the default
SHUFFLE_WEAK = "weak_u64"
SHUFFLE_STRONG = "u64"
SHUFFLE_OURS = ["distributed_shuffle", "distributed_shuffle_walking"]
SHUFFLE_TARGET = 1.3  # x (all-to-all of the same bytes + one-GPU bijective_shuffle of 2^30 items)

SHAPE_TEXT = {"keys_u32": "u32 keys, N = 2^31", "keys_u64": "u64 keys, N = 2^30", "pairs_u32": "u32 pairs, N = 2^31",
              "weak_keys_u32": "u32 keys, 2^30 per GPU", "q4_band_u32": "q4 band (low entropy)",
              "one_percent_equal_u32": "1 % of keys equal", "presorted_u32": "presorted", "reverse_u32": "reverse sorted",
              "big_keys_u32": "u32 keys, N = 2^34", "u64": "u64 items, N = 2^30", "weak_u64": "u64 items, 2^30 per GPU"}
ALG_TEXT = {"distributed_sort": "distributed sort (ours)", "onepass_sort": "onepass::sort, one GPU",
            "alltoall": "NCCL all-to-all of the same bytes", "distributed_shuffle": "distributed shuffle (ours)",
            "distributed_shuffle_walking": "distributed shuffle, walking (ours)",
            "bijective_shuffle": "bijective shuffle, one GPU"}
SHAPE_COLOURS = {"keys_u32": "#1f77b4", "keys_u64": "#d62728", "pairs_u32": "#2ca02c", "weak_keys_u32": "#1f77b4",
                 "q4_band_u32": "#d62728", "one_percent_equal_u32": "#9467bd", "presorted_u32": "#2ca02c",
                 "reverse_u32": "#ff7f0e", "u64": "#1f77b4", "weak_u64": "#d62728"}


# ------------------------------------------------------------------------------------ input

class Data:
    """One experiment's rows and where they came from: path (the CSV), device (the recorded
    folder's name, or None for a fresh run), gpu (from nvidia-smi.txt beside it, else None),
    medians_only (the CSV has no min/max)."""

    def __init__(self, path, rows, device, medians_only=False):
        self.path, self.rows, self.device, self.medians_only = path, rows, device, medians_only
        self.directory = os.path.dirname(path)
        self.gpu = gpu_of(self.directory)

    @property
    def fresh(self):
        return self.device is None

    def where(self):
        return "this run (`%s`)" % sr.repo_relative(self.path) if self.fresh else \
            "recorded copy `%s`" % sr.repo_relative(self.path)

    def provenance(self, report):
        """The report's provenance sentences for this run (the commit it measured and whether the code it
        measures changed since, experiments/manifest.toml's stale_when; the clocks), from the meta.json
        beside the CSV, which also enters the report's provenance table; "" when there is none (a CSV
        parsed from a log)."""
        name = os.path.splitext(os.path.basename(self.path))[0]
        try:
            meta = sr.read_meta(os.path.join(self.directory, name + ".meta.json"))
        except sr.MissingInput:  # an old record (parsed from a log) has none
            return ""
        if not meta:
            return ""
        return " " + report.note_gpu_provenance(sr.GpuSource(name, self.directory, self.device), meta)

    def label(self):
        text = "%s; %s" % (self.gpu or "GPU not named", "this run %s" % sr.repo_relative(self.path) if self.fresh
                           else "recorded copy %s" % sr.repo_relative(self.path))
        if self.medians_only:
            text += " (medians only: min/max not recorded)"
        return text


def gpu_of(directory):
    """'4 x NVIDIA H100 80GB HBM3, driver …, CUDA …' from nvidia-smi.txt in directory, else None."""
    path = os.path.join(directory, "nvidia-smi.txt")
    if not os.path.isfile(path):
        return None
    with open(path, errors="replace") as f:
        text = f.read()
    names = re.findall(r"^\|\s+\d+\s+(NVIDIA [^|]*?)\s{2,}\S+\s+\|", text, re.M)
    driver = re.search(r"Driver Version:\s*(\S+)", text)
    cuda = re.search(r"CUDA Version:\s*(\S+)", text)
    if not names:
        return None
    out = "%d × %s" % (len(names), names[0]) if len(set(names)) == 1 else ", ".join(names)
    if driver:
        out += ", driver %s" % driver.group(1)
    if cuda:
        out += ", CUDA %s" % cuda.group(1)
    return out


def _parse(rows):
    for r in rows:
        for key in ("num_ranks", "n_per_rank", "n_total"):
            if r.get(key) is not None:
                r[key] = int(r[key])
    return rows


def _max_ranks(path):
    """The largest num_ranks of a CSV (0 when it has no such column or cannot be read)."""
    try:
        with open(path, newline="") as f:
            return max((int(r["num_ranks"]) for r in csv.DictReader(f) if r.get("num_ranks")), default=0)
    except (OSError, ValueError, KeyError):
        return 0


def _find(results, recorded_root, patterns):
    """(path, device) of the first pattern found in results (fresh), else in the recorded device
    folder holding it with the most ranks (a 4-GPU run before a 2-GPU one; among equals the newest
    by its meta.json date, then the last by name); None when absent."""
    for pattern in patterns:
        hits = sorted(glob.glob(os.path.join(results, pattern)))
        if hits:
            return hits[-1], None
    if recorded_root and os.path.isdir(recorded_root):
        for pattern in patterns:
            found = []
            for device in sorted(os.listdir(recorded_root)):
                hits = sorted(glob.glob(os.path.join(recorded_root, device, pattern)))
                if hits:
                    found.append((hits[-1], device))
            if found:
                return max(found, key=lambda hit: (_max_ranks(hit[0]), recorded_date(hit[0]), hit[1]))
    return None


def load_sort(results, recorded_root):
    """Data of multi_gpu_sort.csv (fresh, else recorded), or None; raises sr.MissingInput for a
    CSV with other columns or no rows."""
    hit = _find(results, recorded_root, [SORT + ".csv"])
    if hit is None:
        return None
    return Data(hit[0], _parse(sr.read_csv(hit[0], SORT_COLUMNS)), hit[1])


def recorded_field(csv_path, field):
    """A field of the meta.json beside a CSV ('' when there is none)."""
    meta = csv_path[:-len(".csv")] + ".meta.json"
    try:
        with open(meta) as f:
            return str(json.load(f).get(field, ""))
    except (OSError, ValueError):
        return ""


def recorded_commit(csv_path):
    """The 'commit' of the meta.json beside a CSV, shortened as the report writes commits ('unknown'
    when there is none)."""
    return pv.short(recorded_field(csv_path, "commit") or "unknown")


def recorded_date(csv_path):
    """The 'date' of the meta.json beside a CSV ('' when there is none)."""
    return recorded_field(csv_path, "date")


def shuffle_records(recorded_root):
    """[(path, device)] of every recorded device folder's multi_gpu_shuffle.csv, the one judged first:
    most ranks first (a 4-GPU run before a 2-GPU one, as _find does for the sort), then the newest run
    (by the meta.json date; folders without one last), then by name."""
    found = []
    if recorded_root and os.path.isdir(recorded_root):
        for device in sorted(os.listdir(recorded_root)):
            path = os.path.join(recorded_root, device, SHUFFLE + ".csv")
            if os.path.isfile(path):
                found.append((path, device))
    return sorted(found, key=lambda hit: (_max_ranks(hit[0]), recorded_date(hit[0]), hit[1]), reverse=True)


def load_shuffle(results, recorded_root, hit=None):
    """Data of multi_gpu_shuffle.csv (fresh, else the recorded run of most ranks, newest among equals:
    shuffle_records), else
    multi_gpu_shuffle_medians*.csv (medians only), or None; `hit`: (path, device) to load."""
    if hit is None:
        fresh = _find(results, None, [SHUFFLE + ".csv"])
        records = shuffle_records(recorded_root)
        hit = fresh or (records[0] if records else None) or \
            _find(results, recorded_root, [SHUFFLE + ".csv", SHUFFLE + "_medians*.csv"])
    if hit is None:
        return None
    path = hit[0]
    with open(path) as f:
        header = f.readline().strip().split(",")
    columns = SORT_COLUMNS if header == SORT_COLUMNS else None
    rows = _parse(sr.read_csv(path, columns))
    missing = [c for c in SHUFFLE_COLUMNS if c not in rows[0]]
    if missing:
        raise sr.MissingInput("%s: missing columns %s" % (path, ",".join(missing)))
    return Data(path, rows, hit[1], medians_only="seconds_min" not in rows[0])


def seconds(rows, algorithm, shape, p):
    """The median seconds of one row, or None."""
    for r in rows:
        if r["algorithm"] == algorithm and r["shape"] == shape and r["num_ranks"] == p:
            return r["seconds_median"]
    return None


def ranks(rows, shape, algorithm=None):
    return sorted({r["num_ranks"] for r in rows if r["shape"] == shape and (algorithm is None or r["algorithm"] == algorithm)})


def one_gpu(rows, shape, algorithm="onepass_sort"):
    """The one-GPU baseline's seconds for a shape (P = 1), else the distributed run's at P = 1."""
    t = seconds(rows, algorithm, shape, 1)
    return t if t is not None else seconds(rows, "distributed_sort", shape, 1)


# --------------------------------------------------------------------------------- verdicts

def verdict(ok):
    return "not measured" if ok is None else ("met" if ok else "not met")


def strong_rows(rows):
    """[{shape, P, ours, speedup, alltoall, need (None where no target), ok}] for the strong-scaling shapes."""
    out = []
    for shape in STRONG:
        base = one_gpu(rows, shape)
        for p in ranks(rows, shape, "distributed_sort"):
            t = seconds(rows, "distributed_sort", shape, p)
            speedup = base / t if base and t else None
            need = STRONG_TARGETS.get(shape, {}).get(p)
            out.append({"shape": shape, "P": p, "ours": t, "one_gpu": base, "speedup": speedup,
                        "alltoall": seconds(rows, "alltoall", shape, p), "need": need,
                        "ok": None if need is None or speedup is None else speedup >= need})
        for p, need in sorted(STRONG_TARGETS.get(shape, {}).items()):
            if p not in ranks(rows, shape, "distributed_sort"):
                out.append({"shape": shape, "P": p, "ours": None, "one_gpu": base, "speedup": None,
                            "alltoall": None, "need": need, "ok": None})
    return out


def weak_rows(rows):
    """[{P, ours, ratio = time(P) / time(1), alltoall, need, ok}] for weak_keys_u32; time(1) is
    onepass_sort on one GPU at P = 1 (else the distributed sort's P = 1 row)."""
    base = one_gpu(rows, WEAK)
    out = []
    for p in ranks(rows, WEAK, "distributed_sort"):
        t = seconds(rows, "distributed_sort", WEAK, p)
        ratio = t / base if base and t else None
        need = WEAK_TARGET[1] if p == WEAK_TARGET[0] else None
        out.append({"P": p, "ours": t, "one_gpu": base, "ratio": ratio, "alltoall": seconds(rows, "alltoall", WEAK, p),
                    "need": need, "ok": None if need is None or ratio is None else ratio <= need})
    return out


def skew_rows(rows):
    """[{shape, P, ours, uniform, ratio, alltoall, need, ok}] for the skewed shapes at P >= 2
    (the target compares distributed runs; P = 1 is one GPU's sort and shown without a verdict)."""
    out = []
    for shape in SKEWED:
        for p in ranks(rows, shape, "distributed_sort"):
            t = seconds(rows, "distributed_sort", shape, p)
            u = seconds(rows, "distributed_sort", UNIFORM, p)
            ratio = t / u if t and u else None
            need = SKEW_TARGET if p >= 2 else None
            out.append({"shape": shape, "P": p, "ours": t, "uniform": u, "ratio": ratio,
                        "alltoall": seconds(rows, "alltoall", shape, p), "need": need,
                        "ok": None if need is None or ratio is None else ratio <= need})
    return out


# Bytes per item of each shape's all-to-all row (4 where not named).
ITEM_BYTES = {"keys_u64": 8, "pairs_u32": 8, "u64": 8, "weak_u64": 8}
ALIGNED_NOTE = "aligned16"  # meta.json alltoall_pieces of runs whose all-to-all pieces start on 16-byte boundaries


def alltoall_aligned(rows, shape, p, aligned_record=False):
    """Whether the all-to-all row of (shape, P) moved pieces that start on 16-byte boundaries, NCCL's
    fastest form (pieces 4 bytes off were 1.2-1.4x slower: bench_alltoall_alignment). Runs whose
    meta.json notes alltoall_pieces = aligned16 (aligned_record; since 2026-11-27, nineteenth
    session) always did; before, every rank sent n_r / P items at share boundaries, aligned only
    when P^2 x (items per 16 bytes) divides N (so not at P = 3). True where there is no row."""
    if aligned_record or p <= 1:
        return True
    row = next((r for r in rows if r["algorithm"] == "alltoall" and r["shape"] == shape and r["num_ranks"] == p), None)
    if row is None or not row.get("n_total"):
        return True
    unit = max(1, 16 // ITEM_BYTES.get(shape, 4))
    return row["n_total"] % (p * p * unit) == 0


def shuffle_rows(rows, shape, aligned_record=False):
    """[{P, algorithm, ours, one_gpu, speedup, alltoall, bound, misaligned, ok}] per P and distributed
    shuffle; for weak_u64 the target bound = 1.3 x (all-to-all at P + one-GPU bijective_shuffle of 2^30
    items) at P >= 2 (at P = 1 no exchange happens: shown without a verdict). Where the all-to-all's
    pieces were not 16-byte aligned (alltoall_aligned) the bound is too generous: a time above it is
    still not met, one below it is not decided (ok None, misaligned True)."""
    base = one_gpu(rows, shape, "bijective_shuffle")
    out = []
    for p in ranks(rows, shape):
        a2a = seconds(rows, "alltoall", shape, p)
        misaligned = not alltoall_aligned(rows, shape, p, aligned_record)
        for alg in SHUFFLE_OURS:
            t = seconds(rows, alg, shape, p)
            if t is None:
                continue
            bound = SHUFFLE_TARGET * (a2a + base) if shape == SHUFFLE_WEAK and p >= 2 and a2a and base else None
            out.append({"P": p, "algorithm": alg, "ours": t, "one_gpu": base,
                        "speedup": base / t if base else None, "ratio": t / base if base else None,
                        "alltoall": a2a, "bound": bound, "misaligned": misaligned and bound is not None,
                        # a misaligned (slower) all-to-all makes the bound too generous: above it is
                        # still a decided miss, below it decides nothing
                        "ok": None if bound is None or (misaligned and t <= bound) else t <= bound})
    return out


def reachability(rows):
    """The 2-GPU strong-scaling target against a lower bound built from measured numbers: one GPU's
    sort of 2^30 u32 keys (weak_keys_u32, P = 1) + the all-to-all of keys_u32 at P = 2, against the
    target time onepass_sort(2^31) / 1.5. None when a number is missing."""
    local = one_gpu(rows, WEAK)
    a2a = seconds(rows, "alltoall", UNIFORM, 2)
    one = one_gpu(rows, UNIFORM)
    need = STRONG_TARGETS[UNIFORM][2]
    if None in (local, a2a, one):
        return None
    return {"local": local, "alltoall": a2a, "bound": local + a2a, "one_gpu": one, "target_time": one / need,
            "need": need, "reachable": local + a2a <= one / need,
            "ours": seconds(rows, "distributed_sort", UNIFORM, 2)}


def bounds(rows, aligned_record=False):
    """Every scaling target against the bound of a sort that sorts locally and exchanges without
    overlapping the two, from rows of the same run: local_sort(shape, P) (every rank's one-GPU sort
    of its own N/P keys at once) + alltoall(shape, P), against the target time (strong: the one-GPU
    time / the speedup asked; weak: the ratio asked x the one-GPU time of 2^30 keys).
    [{shape, P, local, alltoall, bound, target_time, ours, misaligned, reachable (None: not decided)}];
    empty for runs without
    local_sort rows (before 2026-11-27: see reachability)."""
    out = []
    items = [(shape, p, one_gpu(rows, shape) / need if one_gpu(rows, shape) else None)
             for shape, targets in STRONG_TARGETS.items() for p, need in sorted(targets.items())]
    base = one_gpu(rows, WEAK)
    items.append((WEAK, WEAK_TARGET[0], WEAK_TARGET[1] * base if base else None))
    for shape, p, target_time in items:
        local, a2a = seconds(rows, "local_sort", shape, p), seconds(rows, "alltoall", shape, p)
        if None in (local, a2a, target_time):
            continue
        misaligned = not alltoall_aligned(rows, shape, p, aligned_record)
        # a misaligned (slower) all-to-all makes the bound too high: "within reach" still holds, "out
        # of reach" is not decided
        reachable = local + a2a <= target_time
        out.append({"shape": shape, "P": p, "local": local, "alltoall": a2a, "bound": local + a2a,
                    "target_time": target_time, "ours": seconds(rows, "distributed_sort", shape, p),
                    "misaligned": misaligned and not reachable, "reachable": True if reachable else
                    (None if misaligned else False)})
    return out


PHASE_COLUMNS = ["algorithm", "shape", "num_ranks", "rank", "phase", "seconds_median"]
EXCHANGE_TARGET = 0.8  # the exchange phase at >= 80 % of the all-to-all's rate (same bytes)


def phase_table(phase_rows, algorithm):
    """{(shape, P): {"phases": [names in call order], "max": {phase: s}, "min": {phase: s}}} of one
    algorithm's rows of multi_gpu_sort_phases.csv: per phase the largest and the smallest of the
    ranks' medians (a phase opened by a collective, the exchange, includes the wait for the last
    rank to arrive; the smallest over the ranks is the time of the rank that waited least)."""
    out = {}
    for r in phase_rows:
        if r["algorithm"] != algorithm:
            continue
        e = out.setdefault((r["shape"], r["num_ranks"]), {"phases": [], "max": {}, "min": {}})
        if r["phase"] not in e["phases"]:
            e["phases"].append(r["phase"])
        t = r["seconds_median"]
        e["max"][r["phase"]] = max(t, e["max"].get(r["phase"], t))
        e["min"][r["phase"]] = min(t, e["min"].get(r["phase"], t))
    return out


def exchange_rows(sort_rows_, phase_rows, aligned_record=False):
    """[{shape, P, exchange, alltoall, rate, need, ok}] for the default method's exchange phase at P >= 2 of
    the uniform shapes: rate = all-to-all time / exchange time (the smallest over the ranks) for the
    same bytes (uniform keys: every rank sends n_r / P keys to every rank, as the all-to-all row);
    the target (>= 0.8) is judged on the weak-scaling shape, the issue's."""
    table = phase_table(phase_rows, "distributed_sort")
    out = []
    for shape in [UNIFORM, WEAK]:
        for (s, p), e in sorted(table.items(), key=lambda kv: kv[0][1]):
            if s != shape or p < 2 or "exchange" not in e["min"]:
                continue
            a2a = seconds(sort_rows_, "alltoall", shape, p)
            ex = e["min"]["exchange"]
            rate = a2a / ex if a2a and ex else None
            need = EXCHANGE_TARGET if shape == WEAK else None
            misaligned = not alltoall_aligned(sort_rows_, shape, p, aligned_record)
            # a misaligned (slower) all-to-all inflates the rate: below the target is still a miss,
            # above it decides nothing
            undecided = misaligned and rate is not None and need is not None and rate >= need
            out.append({"shape": shape, "P": p, "exchange": ex, "exchange_max": e["max"]["exchange"], "alltoall": a2a,
                        "rate": rate, "need": need, "misaligned": undecided,
                        "ok": None if need is None or rate is None or undecided else rate >= need})
    return out


def count_verdicts(items):
    """(verdict, met, decided) over items' "ok" (None: no verdict). "not decided" when every decided
    item is met but some were left undecided by a misaligned all-to-all (item "misaligned")."""
    got = [i["ok"] for i in items if i["ok"] is not None]
    undecided = any(i.get("misaligned") and i["ok"] is None for i in items)
    if not got:
        return ("not decided" if undecided else "not measured"), 0, 0
    if all(got) and undecided:
        return "not decided", sum(got), len(got)
    return ("met" if all(got) else "not met"), sum(got), len(got)


# ------------------------------------------------------------------------------------ figures

def ms(t):
    return None if t is None else 1e3 * t


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from figures import palette

    palette.apply_rc()
    return plt


def _finish(fig, ax, data, out_dir, name, title, ncol=2):
    ax.set_xlabel("GPUs (P)")
    ax.set_ylabel("time (ms, median; slowest rank)")
    ax.set_title(title, fontsize=10.5)
    ax.set_ylim(bottom=0)
    fig.tight_layout()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=ncol, fontsize=7.5, framealpha=0.92)
    footer(fig, data.label())
    return save_figure(fig, out_dir, name)


def _new(size=(8.6, 5.0)):
    return _plt().subplots(figsize=size)


def draw_sort_strong(data, out_dir):
    rows = data.rows
    if not any(r["shape"] in STRONG and r["algorithm"] == "distributed_sort" for r in rows):
        raise sr.MissingInput("%s has no strong-scaling rows (%s)" % (data.path, ", ".join(STRONG)))
    fig, ax = _new()
    ps = set()
    for shape in STRONG:
        c = SHAPE_COLOURS[shape]
        pts = [(p, seconds(rows, "distributed_sort", shape, p)) for p in ranks(rows, shape, "distributed_sort")]
        if not pts:
            continue
        ps.update(p for p, _ in pts)
        ax.plot([p for p, _ in pts], [ms(t) for _, t in pts], "-o", color=c, lw=1.8, ms=5,
                label="distributed sort, %s" % SHAPE_TEXT[shape])
        base = one_gpu(rows, shape)
        if base:
            ax.axhline(ms(base), color=c, ls="--", lw=1.0, alpha=0.8, label="onepass::sort on one GPU, %s" % shape)
        a2a = [(p, seconds(rows, "alltoall", shape, p)) for p in ranks(rows, shape, "alltoall")]
        if a2a:
            ax.plot([p for p, _ in a2a], [ms(t) for _, t in a2a], ":s", color=c, lw=1.2, ms=4,
                    label="NCCL all-to-all of the same bytes, %s" % shape)
        bound = [(p, seconds(rows, "local_sort", shape, p) + seconds(rows, "alltoall", shape, p))
                 for p in ranks(rows, shape, "local_sort") if seconds(rows, "alltoall", shape, p)]
        if bound:
            ax.plot([p for p, _ in bound], [ms(t) for _, t in bound], "_", color=c, mew=2.0, ms=16, zorder=4,
                    label="local sort of N/P + all-to-all (bound without overlap), %s" % shape)
        for p, need in sorted(STRONG_TARGETS.get(shape, {}).items()):
            if base:
                ax.plot([p], [ms(base / need)], "*", color=c, mfc="white", mew=1.4, ms=13, zorder=5,
                        label="target %s: %s× at P = %s" % (shape, " / ".join("%.1f" % v for v in
                                                                           STRONG_TARGETS[shape].values()),
                                                           " / ".join(str(k) for k in STRONG_TARGETS[shape]))
                        if p == min(STRONG_TARGETS[shape]) else None)
    ax.set_xticks(sorted(ps))
    return _finish(fig, ax, data, out_dir, "multi_gpu_sort_strong",
                   "Distributed sort, strong scaling: time vs GPUs (hollow stars: the issue's targets)")


def draw_sort_weak(data, out_dir):
    rows = data.rows
    pts = [(p, seconds(rows, "distributed_sort", WEAK, p)) for p in ranks(rows, WEAK, "distributed_sort")]
    if not pts:
        raise sr.MissingInput("%s has no %s rows" % (data.path, WEAK))
    fig, ax = _new((7.6, 4.8))
    c = SHAPE_COLOURS[WEAK]
    ax.plot([p for p, _ in pts], [ms(t) for _, t in pts], "-o", color=c, lw=1.8, ms=5,
            label="distributed sort, %s" % SHAPE_TEXT[WEAK])
    base = one_gpu(rows, WEAK)
    if base:
        ax.axhline(ms(base), color=c, ls="--", lw=1.0, label="onepass::sort on one GPU (2^30 keys)")
        p, need = WEAK_TARGET
        ax.plot([p], [ms(need * base)], "*", color=c, mfc="white", mew=1.4, ms=13, zorder=5,
                label="target: ≤ %.1f× the 1-GPU time at P = %d" % (need, p))
        ax.axhline(ms(need * base), color="#999999", ls="-.", lw=0.8)
    a2a = [(p, seconds(rows, "alltoall", WEAK, p)) for p in ranks(rows, WEAK, "alltoall")]
    if a2a:
        ax.plot([p for p, _ in a2a], [ms(t) for _, t in a2a], ":s", color="#555555", lw=1.2, ms=4,
                label="NCCL all-to-all of the same bytes")
    ax.set_xticks([p for p, _ in pts])
    return _finish(fig, ax, data, out_dir, "multi_gpu_sort_weak", "Distributed sort, weak scaling: 2^30 u32 keys per GPU")


def draw_sort_skew(data, out_dir):
    rows = data.rows
    if not any(r["shape"] in SKEWED for r in rows):
        raise sr.MissingInput("%s has no skewed-key rows (%s)" % (data.path, ", ".join(SKEWED)))
    fig, ax = _new()
    ps = set()
    for shape in [UNIFORM] + SKEWED:
        pts = [(p, seconds(rows, "distributed_sort", shape, p)) for p in ranks(rows, shape, "distributed_sort")]
        if not pts:
            continue
        ps.update(p for p, _ in pts)
        uniform = shape == UNIFORM
        ax.plot([p for p, _ in pts], [ms(t) for _, t in pts], "-o" if uniform else "-^",
                color="#111111" if uniform else SHAPE_COLOURS[shape], lw=2.2 if uniform else 1.4, ms=5,
                label="uniform keys_u32 (N = 2^31)" if uniform else SHAPE_TEXT[shape])
    up = [(p, seconds(rows, "distributed_sort", UNIFORM, p)) for p in sorted(ps) if p >= 2]
    up = [(p, t) for p, t in up if t]
    if up:
        ax.plot([p for p, _ in up], [ms(SKEW_TARGET * t) for _, t in up], "--", color="#999999", lw=1.2,
                label="target: ≤ %.1f× uniform at the same P" % SKEW_TARGET)
    a2a = [(p, seconds(rows, "alltoall", UNIFORM, p)) for p in ranks(rows, UNIFORM, "alltoall")]
    if a2a:
        ax.plot([p for p, _ in a2a], [ms(t) for _, t in a2a], ":s", color="#555555", lw=1.0, ms=4,
                label="NCCL all-to-all of the same bytes (keys_u32)")
    ax.set_xticks(sorted(ps))
    return _finish(fig, ax, data, out_dir, "multi_gpu_sort_skew",
                   "Distributed sort, skewed u32 keys (N = 2^31) against uniform; every output checked "
                   "sorted and balanced", ncol=2)


def draw_shuffle(data, out_dir):
    rows = data.rows
    plt = _plt()
    shapes = [s for s in (SHUFFLE_STRONG, SHUFFLE_WEAK) if any(r["shape"] == s for r in rows)]
    if not shapes:
        raise sr.MissingInput("%s has no %s or %s rows" % (data.path, SHUFFLE_STRONG, SHUFFLE_WEAK))
    fig, axes = plt.subplots(1, len(shapes), figsize=(6.6 * len(shapes), 4.8), squeeze=False)
    styles = {"distributed_shuffle": ("-o", "#1f77b4"), "distributed_shuffle_walking": ("-D", "#9467bd"),
              "alltoall": (":s", "#555555")}
    for ax, shape in zip(axes[0], shapes):
        ps = ranks(rows, shape)
        for alg in SHUFFLE_OURS + ["alltoall"]:
            pts = [(p, seconds(rows, alg, shape, p)) for p in ps]
            pts = [(p, t) for p, t in pts if t is not None]
            if pts:
                ls, c = styles[alg]
                ax.plot([p for p, _ in pts], [ms(t) for _, t in pts], ls, color=c, lw=1.6, ms=5, label=ALG_TEXT[alg])
        base = one_gpu(rows, shape, "bijective_shuffle")
        if base:
            ax.axhline(ms(base), color="#2ca02c", ls="--", lw=1.1, label="bijective shuffle on one GPU (2^30 items)")
        if shape == SHUFFLE_WEAK and base:
            bound = [(p, SHUFFLE_TARGET * (seconds(rows, "alltoall", shape, p) + base)) for p in ps
                     if p >= 2 and seconds(rows, "alltoall", shape, p)]
            if bound:
                ax.plot([p for p, _ in bound], [ms(t) for _, t in bound], "*--", color="#d62728", mfc="white",
                        mew=1.3, ms=11, lw=1.0, label="target: ≤ %.1f× (all-to-all + one-GPU shuffle)" % SHUFFLE_TARGET)
        ax.set_xticks(ps)
        ax.set_xlabel("GPUs (P)")
        ax.set_ylabel("time (ms, median; slowest rank)")
        ax.set_ylim(bottom=0)
        ax.set_title(("strong scaling: " if shape == SHUFFLE_STRONG else "weak scaling: ") + SHAPE_TEXT[shape],
                     fontsize=10)
    fig.suptitle("Distributed shuffle of u64 items over NCCL", fontsize=11)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    handles, labels = {}, {}
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=3,
               fontsize=7.5, framealpha=0.92)
    footer(fig, data.label())
    return save_figure(fig, out_dir, "multi_gpu_shuffle")


def draw(results, out_dir, recorded_root, which=("sort", "shuffle")):
    """Draws the sort figures and/or the shuffle figure; returns (written paths, problems, notes)."""
    written, problems, notes = [], [], []
    os.makedirs(out_dir, exist_ok=True)
    jobs = []
    if "sort" in which:
        jobs.append((SORT, load_sort, [("multi_gpu_sort_strong", draw_sort_strong),
                                       ("multi_gpu_sort_weak", draw_sort_weak),
                                       ("multi_gpu_sort_skew", draw_sort_skew)]))
    if "shuffle" in which:
        jobs.append((SHUFFLE, load_shuffle, [("multi_gpu_shuffle", draw_shuffle)]))
    for experiment, load, figures in jobs:
        try:
            data = load(results, recorded_root)
        except sr.MissingInput as e:
            problems += ["%s not drawn: %s" % (name, e) for name, _ in figures]
            continue
        if data is None:
            notes.append("%s: not drawn, no %s results (fresh or recorded)" % (", ".join(n for n, _ in figures),
                                                                               experiment))
            continue
        for name, fn in figures:
            try:
                written += fn(data, out_dir)
            except sr.MissingInput as e:
                problems.append("%s not drawn: %s" % (name, e))
    return written, problems, notes


def extend(results, out_dir, recorded_root, written, problems):
    """A plot_all.py-style hook: draws every multi-GPU figure that has results."""
    w, p, notes = draw(results, out_dir, recorded_root)
    for n in notes:
        print("plot_all: %s" % n)
    return written + w, problems + p


# ----------------------------------------------------------------------------------- section

def _ms(t):
    return "—" if t is None else "%.2f" % (1e3 * t)


def _x(v):
    return "—" if v is None else "%.2f×" % v


def _verdict_cell(ok, misaligned=False):
    if misaligned and ok is None:
        return "not decided (all-to-all misaligned)"
    return "—" if ok is None else ("met" if ok else "**not met**")


def _aligned(data):
    """Whether the run's all-to-all rows moved 16-byte aligned pieces (its meta.json says so)."""
    return recorded_field(data.path, "alltoall_pieces") == ALIGNED_NOTE


MISALIGNED_TEXT = ("Rows marked *not decided (all-to-all misaligned)*: this record's all-to-all sent every rank n_r / P "
                   "items at share boundaries, which at this P do not start on 16-byte boundaries; NCCL moves such "
                   "pieces 1.2–1.4× slower (`scripts/bench_alltoall_alignment.cu`, 4 × H100), so the bound built from "
                   "it is too generous: a time that misses it is still a miss, one that meets it decides nothing. Runs since 2026-11-27 (nineteenth session) time "
                   "the all-to-all with aligned pieces (meta.json `alltoall_pieces`).")


def _rel(path):
    return sr.repo_relative(path)


def report_section(report, results, recorded_root):
    """Adds "Beyond one GPU" to a make_report.Report (add, figure, summary)."""
    from figures.walking_results import report_table as table

    report.add("## Beyond one GPU: distributed sort and shuffle over NCCL (`%s`, `%s`)" % (SORT, SHUFFLE))
    try:
        sort_data = load_sort(results, recorded_root)
    except sr.MissingInput as e:
        sort_data, sort_why = None, str(e)
    else:
        sort_why = "no `%s.csv` fresh or recorded" % SORT
    try:
        shuffle_data = load_shuffle(results, recorded_root)
    except sr.MissingInput as e:
        shuffle_data, shuffle_why = None, str(e)
    else:
        shuffle_why = "no `%s.csv` (or `%s_medians*.csv`) fresh or recorded" % (SHUFFLE, SHUFFLE)
    report.add("`onepass::distributed::sort_keys` / `sort_pairs` and the distributed shuffle run one rank per GPU "
               "over a NCCL communicator. Each time is the median of the timed runs of the *slowest rank's* wall "
               "time around the call (GPU-resident input and output, input restored outside the timed region). "
               "`alltoall` is a NCCL grouped send/recv of the same bytes as the exchange — the exchange's bound, "
               "measured in the same run. Speedups are against the one-GPU baseline at P = 1 of the same shape "
               "(`onepass_sort` for the sort, `bijective_shuffle` for the shuffle). The figures are drawn by "
               "`make fig-multi_gpu_sort fig-multi_gpu_shuffle` from the recorded CSVs (no GPU needed).")
    phase_times = False  # whether the run's phase times (and the exchange-phase verdict) were reported
    if sort_data is None:
        report.add("**Sort not measured yet:** %s." % sort_why)
        report.summary.append(("Distributed sort (beyond one GPU)", "not measured", sort_why))
    else:
        _sort_part(report, sort_data, table)
        _big_part(report, sort_data, table)
        phase_times = _phase_times_part(report, sort_data, table)
        _other_sort_part(report, sort_data, recorded_root, table)
        _phases_part(report, sort_data, table)
        _rmg_part(report, sort_data, table)
        _other_rmg_part(report, sort_data, recorded_root, table)
    if shuffle_data is None:
        report.add("**Shuffle not measured yet:** %s." % shuffle_why)
        report.summary.append(("Distributed shuffle (beyond one GPU)", "not measured", shuffle_why))
    else:
        _shuffle_part(report, shuffle_data, table)
        _earlier_shuffle_part(report, shuffle_data, recorded_root, table)
    if phase_times:
        return
    report.add("Not measured: the issue's exchange-phase target (the exchange at ≥ 80 % of the all-to-all rate) — "
               "the recorded run times the whole call (`multi_gpu_sort_phases.csv`, the phase times, was not "
               "recorded beside it); the per-rank kernels are timed one by one on one GPU (above).")


def _beside(data, name, columns=SORT_COLUMNS):
    """Rows of the CSV `name` in the sort data's folder, or None."""
    path = os.path.join(data.directory, name)
    if not os.path.isfile(path):
        return None
    return _parse(sr.read_csv(path, columns))


def _big_part(report, data, table):
    """The --big case: rows of shape big_keys_u32 in the sort CSV itself (runs since 2026-11-27, both methods),
    else the separate multi_gpu_sort_big.csv beside it (the earlier `--cases big_keys_u32` run)."""
    rows = [r for r in data.rows if r["shape"] == BIG]
    where = data.path
    if not rows:
        rows = [r for r in (_beside(data, SORT + "_big.csv") or []) if r["shape"] == BIG]
        where = os.path.join(data.directory, SORT + "_big.csv")
    if not rows:
        report.add("**A sort that does not fit one GPU** (2^34 u32 keys): not recorded.")
        report.summary.append(("Distributed sort of 2^34 u32 keys (does not fit one GPU)", "not measured",
                               "no big_keys_u32 rows in the sort CSV and no multi_gpu_sort_big.csv beside it"))
        return
    rows.sort(key=lambda r: (r["algorithm"] != "distributed_sort", r["algorithm"], r["num_ranks"]))
    report.add("**A sort that does not fit one GPU** (`--big`, 2^34 u32 keys = 64 GiB, recorded in `%s`; "
               "`distributed_sort` is the library's default method):" % _rel(where),
               table(["algorithm", "P", "N", "ours (ms)", "min–max (ms)", "keys/s"],
                     [[r["algorithm"], r["num_ranks"], "2^%d" % (r["n_total"].bit_length() - 1), _ms(r["seconds_median"]),
                       "%s–%s" % (_ms(r["seconds_min"]), _ms(r["seconds_max"])), "%.3g" % r["keys_per_second"]]
                      for r in rows], "lrlrrr"))
    r = rows[0]
    report.summary.append(("Distributed sort of 2^34 u32 keys (does not fit one GPU)", "recorded",
                           "%.1f ms on %d GPUs (%s)" % (1e3 * r["seconds_median"], r["num_ranks"], r["algorithm"])))


def other_sort_records(data, recorded_root):
    """[(path, device)] of the multi_gpu_sort.csv records of the other recorded devices (not the
    one the section judges), by device name."""
    if not recorded_root or not os.path.isdir(recorded_root):
        return []
    out = []
    for device in sorted(os.listdir(recorded_root)):
        path = os.path.join(recorded_root, device, SORT + ".csv")
        if os.path.isfile(path) and os.path.abspath(path) != os.path.abspath(data.path):
            out.append((path, device))
    return out


def other_sort_rows(rows):
    """[{P, cells: {shape: (ours, ratio)}}] of one record at every P >= 2 with distributed_sort rows:
    strong shapes ratio = speedup over its one-GPU sort, weak ratio = time(P) / time(1)."""
    out = []
    for p in sorted({r["num_ranks"] for r in rows if r["algorithm"] == "distributed_sort" and r["num_ranks"] >= 2}):
        cells = {}
        for shape in STRONG + [WEAK]:
            t, base = seconds(rows, "distributed_sort", shape, p), one_gpu(rows, shape)
            if t is not None:
                cells[shape] = (t, (base / t if shape != WEAK else t / base) if base else None)
        out.append({"P": p, "cells": cells})
    return out


def _other_sort_part(report, data, recorded_root, table):
    """The other recorded devices' distributed sort (the default method's rows), so that the 2-GPU
    and H200 records the section does not judge are still shown."""
    lines = []
    for path, device in other_sort_records(data, recorded_root):
        try:
            rows = _parse(sr.read_csv(path, SORT_COLUMNS))
        except sr.MissingInput:
            continue
        named = method_names(rows)
        method = recorded_field(path, "default_method") or (named["default"] if named else "")
        label = "%s (`%s`, commit %s%s)" % (gpu_of(os.path.dirname(path)) or device, device, recorded_commit(path),
                                            ", default method %s" % method if method else "")
        for r in other_sort_rows(rows):
            cell = lambda shape: ("%s (%s)" % (_ms(r["cells"][shape][0]), _x(r["cells"][shape][1]))
                                  if shape in r["cells"] else "—")
            lines.append([label, r["P"]] + [cell(shape) for shape in STRONG + [WEAK]])
    if lines:
        report.add("**Also recorded** (the other devices' `multi_gpu_sort.csv`, the `distributed_sort` rows: the default "
                   "method of that run's commit; ms, "
                   "in brackets the speedup over that record's one-GPU sort, for weak scaling time(P) ÷ time(1); "
                   "the verdicts above are of the record named there):",
                   table(["device", "P"] + [SHAPE_TEXT[s] for s in STRONG + [WEAK]], lines, "lr" + "r" * 4))


def _beside_phases(data):
    """Rows of multi_gpu_sort_phases.csv beside the sort CSV (num_ranks, rank int; seconds_median float), or None."""
    rows = sr.read_rows_text(os.path.join(data.directory, SORT + "_phases.csv"))
    if not rows:
        return None
    return [{"algorithm": r["algorithm"], "shape": r["shape"], "num_ranks": int(r["num_ranks"]), "rank": int(r["rank"]),
             "phase": r["phase"], "seconds_median": float(r["seconds_median"])} for r in rows]


def _phase_times_part(report, data, table):
    """The phase tables and the exchange-phase verdict from multi_gpu_sort_phases.csv beside the
    sort CSV; returns whether that file had rows."""
    phases = _beside_phases(data)
    if not phases:
        return False
    path = _rel(os.path.join(data.directory, SORT + "_phases.csv"))
    for algorithm in ["distributed_sort", PARTITION, MERGE]:
        t = phase_table(phases, algorithm)
        if not t:
            continue
        names = []
        for e in t.values():
            names += [n for n in e["phases"] if n not in names]
        keys = sorted(t, key=lambda k: (list(SHAPE_TEXT).index(k[0]) if k[0] in SHAPE_TEXT else 99, k[1]))
        report.add("**Where the time goes, per phase** (`%s`, `%s`; the same run: each method called --reps more "
                   "times with a `phase_observer` recording a CUDA event at each phase boundary; per rank the median, "
                   "shown as the largest over the ranks, and for the exchange smallest–largest: the exchange opens "
                   "with the collective, so a rank that arrives early waits in it for the last):" % (algorithm, path),
                   table(["shape", "P"] + ["%s (ms)" % n for n in names] + ["sum (ms)"],
                         [[SHAPE_TEXT.get(k[0], k[0]), k[1]] +
                          [("%s–%s" % (_ms(t[k]["min"][n]), _ms(t[k]["max"][n])) if n == "exchange" else
                            _ms(t[k]["max"][n])) if n in t[k]["max"] else "—" for n in names] +
                          [_ms(sum(t[k]["max"].values()))] for k in keys],
                         "lr" + "r" * (len(names) + 1)))
    xrows = exchange_rows(data.rows, phases, _aligned(data))
    if not xrows:
        return True
    report.add("**The exchange against the all-to-all** (the default method's exchange phase, the smallest over the "
               "ranks, against the NCCL all-to-all of the same bytes in the same run; rate = all-to-all ÷ exchange; "
               "target ≥ %.1f on the weak-scaling run):" % EXCHANGE_TARGET,
               table(["shape", "P", "exchange (ms)", "exchange, slowest rank (ms)", "all-to-all (ms)", "rate",
                      "target", "verdict"],
                     [[SHAPE_TEXT[r["shape"]], r["P"], _ms(r["exchange"]), _ms(r["exchange_max"]), _ms(r["alltoall"]),
                       "%.2f" % r["rate"] if r["rate"] else "—", "≥ %.1f" % r["need"] if r["need"] else "—",
                       _verdict_cell(r["ok"], r["misaligned"])] for r in xrows], "lrrrrrrl"))
    if any(r["misaligned"] and r["ok"] is None for r in xrows):
        report.add(MISALIGNED_TEXT)
    v, met, n = count_verdicts(xrows)
    report.summary.append(("Distributed sort, exchange phase (≥ 80 % of the all-to-all rate, weak scaling)", v,
                           "%d of %d P met; rate %s" % (met, n, ", ".join("P = %d %.2f" % (r["P"], r["rate"])
                                                                          for r in xrows if r["need"] and r["rate"]))))
    return True


BENCH_LINE = re.compile(r"^(u32|u64)\s+P=(\d+)\s+n=2\^(\d+)\s+(.+?)\s+([\d.]+) ms\s+(\d+) GB/s")


def _phases_part(report, data, table):
    hits = sorted(glob.glob(os.path.join(data.directory, "bench_distributed_partition-*.txt")))
    if not hits:
        return
    path = hits[-1]
    rows = []
    with open(path) as f:
        for line in f:
            m = BENCH_LINE.match(line)
            # (count_chunk_destinations: a pass of the chunked exchange measured at d2f817a and
            # reverted; the library does not run it)
            if (m and m.group(1) == "u32" and not m.group(4).startswith("candidate")
                    and not m.group(4).startswith("count_chunk_destinations")):
                rows.append([m.group(2), m.group(4), m.group(5), m.group(6) if float(m.group(6)) else "—"])
    if not rows:
        return
    report.add("**Where the time goes** (`scripts/bench_distributed_partition.cu`, `%s`): one rank's kernels "
               "between the agreement and the exchange, timed one by one on one GPU of the same machine with "
               "2^30 uniform u32 keys and the uniform quantiles as splitters (CUDA events, median of 7; GB/s of "
               "key bytes read + written). The copy is the floor of a pass that reads and writes the keys once; "
               "the partition reaches about half of it." % _rel(path),
               table(["P", "kernel", "ms", "GB/s"], rows, "rlrr"))


RMG_ALGORITHMS = ("rmg_sort", "rmg_sort_before_local_sort", "rmg_sort_gpu_resident")


def _rmg_outputs(directory):
    """Where RMG sort's own output lies beside the sort CSV, as a clause."""
    kept = ["`%s`" % f for f in ("rmg_sort-output.txt", "rmg_sort-resident-output.txt")
            if os.path.isfile(os.path.join(directory, f))]
    return ("%s beside the CSV %s its output" % (" and ".join(kept), "is" if len(kept) == 1 else "are")) if kept \
        else "its output is not kept beside the CSV"


def _rmg_part(report, data, table):
    """RMG sort's rows beside the sort CSV (rmg_sort.csv): per (shape, P) its timers' bounds where recorded
    (rmg_sort, rmg_sort_before_local_sort) and its GPU-resident time where recorded (a record may hold only
    the GPU-resident rows); the verdict from the GPU-resident time, else from the bounds when they agree."""
    rows = _beside(data, "rmg_sort.csv")
    if not rows:
        report.add("**RMG sort** (the multi-GPU peer): not recorded.")
        report.summary.append(("Distributed sort vs RMG sort (≥ 1.3×)", "not measured", "no rmg_sort.csv"))
        return

    def rmg(algorithm, shape, P):
        return next((x["seconds_median"] for x in rows if x["algorithm"] == algorithm and x["shape"] == shape
                     and x["num_ranks"] == P), None)

    out, decided, cases = [], [], []
    for r in rows:  # every (shape, P) with RMG rows, in order of first appearance
        if r["algorithm"] in RMG_ALGORITHMS and (r["shape"], r["num_ranks"]) not in cases:
            cases.append((r["shape"], r["num_ranks"]))
    for shape, P in cases:
        ours = seconds(data.rows, "distributed_sort", shape, P)
        low = rmg("rmg_sort_before_local_sort", shape, P)
        hi = rmg("rmg_sort", shape, P)
        resident = rmg("rmg_sort_gpu_resident", shape, P)
        if ours is None or (resident is None and (low is None or hi is None)):
            continue
        if resident is not None:  # its GPU-resident time, measured: decides alone
            verdict = "met" if resident / ours >= 1.3 else "**not met**"
            ratio = "%.2f×" % (resident / ours)
        else:
            verdict = "met" if low / ours >= 1.3 else ("**not met**" if hi / ours < 1.3 else "not decided")
            ratio = "%.2f×–%.2f×" % (low / ours, hi / ours)
        decided.append(verdict)
        out.append([SHAPE_TEXT[shape], P, _ms(ours), _ms(low), _ms(hi), _ms(resident), ratio, verdict])
    report.add("**Against RMG sort** (hpides/rmg-sort built from its repository on the same machine for sm_90, a "
               "two-file patch for CUDA 13; %s). RMG sort "
               "starts and ends in host memory and times itself from the copy in to the copy back; it overlaps the "
               "copy back with its local sort, so its GPU-resident time cannot be read off its own timers. Given are "
               "its phases before the local sort (histogram + scatter + peer swap: a lower bound), its total "
               "minus the copy in (an upper bound: includes the copy back) and, where recorded, its GPU-resident "
               "time (`rmg_sort_gpu_resident`, `rmg_sort-resident-output.txt`: a second patch that adds a clock "
               "from the moment every GPU holds its keys to the moment every GPU has finished its local sort, the "
               "copy back moved after it; its algorithm unchanged). The target (ours ≥ 1.3× faster) is decided by "
               "the GPU-resident time where it was measured, else only where both bounds agree. It sorts keys only "
               "(no pairs)." % _rmg_outputs(data.directory),
               table(["shape", "P", "ours (ms)", "RMG ≥ (ms)", "RMG ≤ (ms)", "RMG resident (ms)", "RMG ÷ ours",
                      "verdict"], out, "lrrrrrrl"))
    v = "not met" if "**not met**" in decided else ("met" if decided and all(d == "met" for d in decided)
                                                     else "not decided")
    report.summary.append(("Distributed sort vs RMG sort (≥ 1.3×)", v,
                           "; ".join("%s P = %d: RMG ÷ ours %s" % (o[0], o[1], o[6]) for o in out)))


def other_rmg_rows(data, recorded_root):
    """[[device label, shape text, P, ours, RMG resident, RMG ÷ ours]] of the other recorded devices' RMG
    GPU-resident rows (rmg_sort.csv beside their multi_gpu_sort.csv), each against that record's own
    distributed_sort time at the same (shape, P); rows without both are left out."""
    out = []
    for path, device in other_sort_records(data, recorded_root):
        rmg = os.path.join(os.path.dirname(path), "rmg_sort.csv")
        if not os.path.isfile(rmg):
            continue
        try:
            ours_rows = _parse(sr.read_csv(path, SORT_COLUMNS))
            rmg_rows = _parse(sr.read_csv(rmg, SORT_COLUMNS))
        except sr.MissingInput:
            continue
        label = "%s (`%s`, commit %s)" % (gpu_of(os.path.dirname(path)) or device, device, recorded_commit(path))
        for r in rmg_rows:
            if r["algorithm"] != "rmg_sort_gpu_resident":
                continue
            ours = seconds(ours_rows, "distributed_sort", r["shape"], r["num_ranks"])
            if ours:
                out.append([label, SHAPE_TEXT.get(r["shape"], r["shape"]), r["num_ranks"], ours,
                            r["seconds_median"], r["seconds_median"] / ours])
    return out


def _other_rmg_part(report, data, recorded_root, table):
    """RMG sort against ours on the other recorded devices (shown, not judged: the verdict above is of the
    record the section judges)."""
    rows = other_rmg_rows(data, recorded_root)
    if rows:
        report.add("**Also recorded against RMG sort** (its GPU-resident time beside another device's "
                   "`multi_gpu_sort.csv`, against that record's `distributed_sort`; not judged):",
                   table(["device", "shape", "P", "ours (ms)", "RMG resident (ms)", "RMG ÷ ours"],
                         [[r[0], r[1], r[2], _ms(r[3]), _ms(r[4]), "%.2f×" % r[5]] for r in rows], "llrrrr"))


def _sort_part(report, data, table):
    rows = data.rows
    report.add("### Distributed sort", "Measured on **%s** — %s. Every run is checked after timing (untimed): each "
               "rank's output is sorted, holds exactly its input count (the outputs are exactly balanced: rank r "
               "holds ⌊(r+1)N/P⌋ − ⌊rN/P⌋ keys) and rank r's last key is at most rank r+1's first; a failed check "
               "fails the run, so every row in the CSV passed it.%s" % (data.gpu or "an unnamed GPU", data.where(),
                                                                        data.provenance(report)))
    report.add(report.figure("multi_gpu_sort_strong", "Distributed sort, strong scaling: time vs GPUs, one-GPU "
                                                      "onepass::sort (dashed), NCCL all-to-all (dotted), targets (stars)"))
    srows = strong_rows(rows)
    report.add("**Strong scaling** (speedup = onepass::sort on one GPU ÷ ours; targets: ≥ 1.5× at P = 2 and ≥ 2.6× "
               "at P = 4 for 2^31 u32 keys, ≥ 1.4× / ≥ 2.4× for 2^30 u64 keys and 2^31 u32 pairs):",
               table(["shape", "P", "ours (ms)", "one GPU (ms)", "speedup", "all-to-all (ms)", "target", "verdict"],
                     [[SHAPE_TEXT[r["shape"]], r["P"], _ms(r["ours"]), _ms(r["one_gpu"]), _x(r["speedup"]),
                       _ms(r["alltoall"]), "≥ %.1f×" % r["need"] if r["need"] else "—", _verdict_cell(r["ok"])]
                      for r in srows], "lrrrrrrl"))
    v, met, n = count_verdicts(srows)
    best = {r["shape"]: r for r in srows if r["P"] == max(STRONG_TARGETS[r["shape"]]) and r["speedup"]}
    why = "%d of %d targets met; at P = 4: %s" % (met, n, ", ".join("%s %.2f× (target %.1f×)" % (s, r["speedup"], r["need"])
                                                                     for s, r in best.items()))
    report.summary.append(("Distributed sort, strong scaling (≥ 1.5×/2.6× u32, 1.4×/2.4× u64 and pairs)", v, why))
    brows = bounds(rows, _aligned(data))
    reach = None if brows else reachability(rows)
    if brows:
        out_of_reach = [b for b in brows if b["reachable"] is False]
        report.add("**Are the targets reachable?** A lower bound for any sort that sorts its N/P keys locally and "
                   "exchanges them without overlapping the two, from numbers measured in this run: `local_sort` "
                   "(every rank's one-GPU onepass::sort of its own N/P keys, all ranks at once, the slowest rank) + "
                   "the all-to-all of the same bytes, against the time the target asks for (strong: one GPU ÷ "
                   "speedup; weak: 1.5 × the one-GPU time of 2^30 keys). Where the bound is above that time, the "
                   "target is out of reach of such a sort on this machine (%d of %d):" % (len(out_of_reach), len(brows)),
                   table(["shape", "P", "local sort (ms)", "all-to-all (ms)", "bound (ms)", "target time (ms)",
                          "bound ÷ target time", "ours (ms)", "ours ÷ bound", "target"],
                         [[SHAPE_TEXT[b["shape"]], b["P"], _ms(b["local"]), _ms(b["alltoall"]), _ms(b["bound"]),
                           _ms(b["target_time"]), "%.2f" % (b["bound"] / b["target_time"]), _ms(b["ours"]),
                           "%.2f" % (b["ours"] / b["bound"]) if b["ours"] else "—",
                           "not decided (all-to-all misaligned)" if b["misaligned"] else
                           "within reach" if b["reachable"] else "**out of reach**"] for b in brows],
                         "lrrrrrrrrl"))
        report.summary.append(("Distributed sort: targets against the local-sort + all-to-all bound", "measured",
                               "%d of %d scaling targets out of reach of a sort without overlap (%s)"
                               % (len(out_of_reach), len(brows),
                                  ", ".join("%s P = %d %.2f×" % (b["shape"], b["P"], b["bound"] / b["target_time"])
                                            for b in out_of_reach) or "none")))
    if reach:
        report.add("**Is the 2-GPU target reachable?** A lower bound for a sort that sorts its N/P keys locally and "
                   "exchanges them, from numbers measured in this run: one GPU's sort of 2^30 u32 keys (the weak "
                   "run's P = 1 row) %.2f ms + the all-to-all of 2^31 u32 keys at P = 2 %.2f ms = **%.2f ms**, "
                   "against the target time onepass::sort(2^31) ÷ %.1f = %.2f ÷ %.1f = **%.2f ms**: the bound is "
                   "%s the target time (%.2f× it), so %s. Ours at P = 2: %.2f ms (%.2f× the bound). (The local "
                   "sort of N/P keys at P = 4, 2^29 keys, was not measured, so no such bound is given for P = 4.)"
                   % (1e3 * reach["local"], 1e3 * reach["alltoall"], 1e3 * reach["bound"], reach["need"],
                      1e3 * reach["one_gpu"], reach["need"], 1e3 * reach["target_time"],
                      "below" if reach["reachable"] else "above", reach["bound"] / reach["target_time"],
                      "the target is within reach of such a pipeline" if reach["reachable"] else
                      "no sort that sorts locally and then exchanges the keys (without overlapping the two) can "
                      "meet it on this machine",
                      1e3 * reach["ours"], reach["ours"] / reach["bound"]))
    report.add(report.figure("multi_gpu_sort_weak", "Distributed sort, weak scaling: 2^30 u32 keys per GPU"))
    wrows = weak_rows(rows)
    report.add("**Weak scaling** (2^30 u32 keys per GPU; ratio = time(P) ÷ onepass::sort of 2^30 keys on one GPU; "
               "target: ≤ 1.5× at P = 4):",
               table(["P", "N", "ours (ms)", "1-GPU time (ms)", "time(P) ÷ time(1)", "all-to-all (ms)", "target",
                      "verdict"],
                     [[r["P"], "%d × 2^30" % r["P"], _ms(r["ours"]), _ms(r["one_gpu"]), _x(r["ratio"]), _ms(r["alltoall"]),
                       "≤ %.1f×" % r["need"] if r["need"] else "—", _verdict_cell(r["ok"])] for r in wrows],
                     "rlrrrrrl"))
    v, _, _ = count_verdicts(wrows)
    at4 = [r for r in wrows if r["need"]]
    report.summary.append(("Distributed sort, weak scaling (time(4) ≤ 1.5 × time(1))", v,
                           "time(4) ÷ time(1) = %s" % _x(at4[0]["ratio"]) if at4 else "P = 4 not measured"))
    report.add(report.figure("multi_gpu_sort_skew", "Distributed sort, skewed keys against uniform keys_u32"))
    krows = skew_rows(rows)
    report.add("**Skewed keys** (N = 2^31 u32; ratio = ours ÷ ours on uniform keys_u32 at the same P; target: ≤ "
               "1.3×, outputs exactly balanced — checked in every run, see above; P = 1 is one GPU, shown without "
               "a verdict):",
               table(["shape", "P", "ours (ms)", "uniform (ms)", "÷ uniform", "all-to-all (ms)", "target", "verdict"],
                     [[SHAPE_TEXT[r["shape"]], r["P"], _ms(r["ours"]), _ms(r["uniform"]), _x(r["ratio"]),
                       _ms(r["alltoall"]), "≤ %.1f×" % r["need"] if r["need"] else "—", _verdict_cell(r["ok"])]
                      for r in krows], "lrrrrrrl"))
    v, met, n = count_verdicts(krows)
    fails = ["%s at P = %d (%.2f×)" % (r["shape"], r["P"], r["ratio"]) for r in krows if r["ok"] is False]
    report.summary.append(("Distributed sort, skewed keys (≤ 1.3× uniform, balanced)", v,
                           "%d of %d (shape, P) met; balance and sortedness checked in every run%s"
                           % (met, n, "; not met: " + ", ".join(fails) if fails else "")))
    _methods_part(report, rows, table)


def method_names(rows):
    """{"partition_first": row name, "sort_first": row name, "default": method, "other": row name}
    of a run, or None when it timed one method: `distributed_sort` is always the default of the
    run's commit; the other method's rows ("other") are distributed_sort_partition_first
    (sort_first the default) or distributed_sort_merge (partition_first the default, before
    2026-11-27)."""
    names = {r["algorithm"] for r in rows}
    if PARTITION in names:
        return {"partition_first": PARTITION, "sort_first": "distributed_sort", "default": "sort_first",
                "other": PARTITION}
    if MERGE in names:
        return {"partition_first": "distributed_sort", "sort_first": MERGE, "default": "partition_first",
                "other": MERGE}
    return None


def method_rows(rows):
    """[{shape, P, partition_first, sort_first, ratio}] for every (shape, P >= 2) with rows of
    both methods (method_names); ratio = partition_first ÷ sort_first (above 1: sort_first is
    faster)."""
    named = method_names(rows)
    if named is None:
        return []
    out = []
    for shape in sorted({r["shape"] for r in rows if r["algorithm"] == named["other"]},
                        key=lambda s: list(SHAPE_TEXT).index(s) if s in SHAPE_TEXT else len(SHAPE_TEXT)):
        for p in ranks(rows, shape, named["other"]):
            first = seconds(rows, named["partition_first"], shape, p)
            merge = seconds(rows, named["sort_first"], shape, p)
            if first is None or merge is None:
                continue
            out.append({"shape": shape, "P": p, "partition_first": first, "sort_first": merge,
                        "ratio": first / merge})
    return out


def _methods_part(report, rows, table):
    """The two methods of the distributed sort side by side, where the run timed both."""
    mrows = method_rows(rows)
    if not mrows:
        return
    named = method_names(rows)
    report.add("**The two methods** (`sort_method::partition_first` against `sort_method::sort_first`: local sort, "
               "exchange of sorted ranges, merge; the run's default was `%s`, the other method's rows `%s` of the same "
               "run; the targets above are judged on the default):" % (named["default"], named["other"]),
               table(["shape", "P", "partition_first (ms)", "sort_first (ms)", "partition_first ÷ sort_first"],
                     [[SHAPE_TEXT.get(r["shape"], r["shape"]), r["P"], _ms(r["partition_first"]), _ms(r["sort_first"]),
                       _x(r["ratio"])] for r in mrows], "lrrrr"))
    ratios = sorted(r["ratio"] for r in mrows)
    faster = sum(1 for x in ratios if x > 1)
    report.summary.append(("Distributed sort: sort_first against partition_first", "measured",
                           "sort_first faster at %d of %d (shape, P); partition_first ÷ sort_first %s–%s (median %s)"
                           % (faster, len(ratios), _x(ratios[0]), _x(ratios[-1]), _x(ratios[len(ratios) // 2]))))


def _shuffle_part(report, data, table):
    rows = data.rows
    report.add("### Distributed shuffle", "Measured on **%s** — %s.%s%s" % (
        data.gpu or "an unnamed GPU", data.where(), data.provenance(report),
        " Medians only: this CSV was parsed from the run's progress log, which prints the median; the minimum and "
        "maximum of the timed runs were not recorded." if data.medians_only else ""))
    report.add(report.figure("multi_gpu_shuffle", "Distributed shuffle of u64 items: strong and weak scaling, "
                                                  "all-to-all, one-GPU bijective shuffle and the weak-scaling target"))
    for shape in (SHUFFLE_STRONG, SHUFFLE_WEAK):
        srows = shuffle_rows(rows, shape, _aligned(data))
        if not srows:
            continue
        if shape == SHUFFLE_STRONG:
            report.add("**Strong scaling** (N = 2^30 u64 items; speedup = bijective shuffle on one GPU ÷ ours; the "
                       "issue states no strong-scaling target for the shuffle):",
                       table(["P", "algorithm", "ours (ms)", "one GPU (ms)", "speedup", "all-to-all (ms)"],
                             [[r["P"], ALG_TEXT[r["algorithm"]], _ms(r["ours"]), _ms(r["one_gpu"]), _x(r["speedup"]),
                               _ms(r["alltoall"])] for r in srows], "rlrrrr"))
        else:
            report.add("**Weak scaling** (2^30 u64 items per GPU; target: ≤ 1.3 × (all-to-all of the same bytes at P + "
                       "one-GPU bijective shuffle of 2^30 items); P = 1 has no exchange and no verdict):",
                       table(["P", "algorithm", "ours (ms)", "time(P) ÷ time(1)", "all-to-all (ms)",
                              "target: ≤ (ms)", "verdict"],
                             [[r["P"], ALG_TEXT[r["algorithm"]], _ms(r["ours"]), _x(r["ratio"]), _ms(r["alltoall"]),
                               _ms(r["bound"]), _verdict_cell(r["ok"], r["misaligned"])] for r in srows], "rlrrrrl"))
            if any(r["misaligned"] and r["ok"] is None for r in srows):
                report.add(MISALIGNED_TEXT)
            v, met, n = count_verdicts(srows)
            worst = max((r for r in srows if r["ok"] is not None), key=lambda r: r["ours"] / r["bound"], default=None)
            undecided = sum(1 for r in srows if r["misaligned"] and r["ok"] is None)
            report.summary.append(("Distributed shuffle, weak scaling (≤ 1.3 × (all-to-all + one-GPU shuffle))", v,
                                   "%d of %d (P, algorithm) met%s%s" % (
                                       met, n, "; worst %s at P = %d: %.1f ms against ≤ %.1f ms (%.2f× the target)"
                                       % (r_alg(worst), worst["P"], 1e3 * worst["ours"], 1e3 * worst["bound"],
                                          worst["ours"] / worst["bound"]) if worst else "",
                                       "; %d not decided (the all-to-all bound's pieces misaligned in this record)"
                                       % undecided if undecided else "")))


def _earlier_shuffle_part(report, data, recorded_root, table):
    """The weak-scaling rows of the other recorded devices' shuffle runs (older runs, often of an
    earlier algorithm), so that a figure drawn from the newest run does not hide them."""
    for path, device in shuffle_records(recorded_root):
        if os.path.abspath(path) == os.path.abspath(data.path):
            continue
        try:
            other = load_shuffle(None, recorded_root, (path, device))
        except sr.MissingInput:
            continue
        srows = [r for r in shuffle_rows(other.rows, SHUFFLE_WEAK, _aligned(other)) if r["bound"]]
        if not srows:
            continue
        report.add("**Also recorded** on %s (`%s`, run of %s at commit %s; the figure and verdict above are of "
                   "the run with the most ranks, newest among equals, whose code may differ):"
                   % (other.gpu or device, sr.repo_relative(path), recorded_date(path) or "an unknown date",
                      recorded_commit(path)),
                   table(["P", "algorithm", "ours (ms)", "target: ≤ (ms)", "verdict"],
                         [[r["P"], ALG_TEXT[r["algorithm"]], _ms(r["ours"]), _ms(r["bound"]),
                           _verdict_cell(r["ok"], r["misaligned"])] for r in srows], "rlrrl"))


def r_alg(r):
    return r["algorithm"]


# -------------------------------------------------------------------------------------- main

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results", help="a run's results directory (fresh CSVs)")
    parser.add_argument("--out", default=os.path.join("figures", "out"), help="directory for the .png and .pdf")
    parser.add_argument("--recorded", default=None, help="recorded runs, one folder per device "
                        "(default: RESULTS/recorded, else the repository's results/recorded)")
    parser.add_argument("--only", choices=("sort", "shuffle"), action="append",
                        help="draw only the sort figures or only the shuffle figure (repeatable)")
    args = parser.parse_args(argv)
    recorded = args.recorded or sr.default_recorded_root(args.results)
    written, problems, notes = draw(args.results, args.out, recorded, tuple(args.only or ("sort", "shuffle")))
    for n in notes:
        print("multi_gpu_results: %s" % n)
    for path in written:
        print("multi_gpu_results: wrote %s" % path)
    for p in problems:
        print("multi_gpu_results: ERROR: %s" % p, file=sys.stderr)
    return 1 if problems or (not written and notes) else 0


if __name__ == "__main__":
    sys.exit(main())
