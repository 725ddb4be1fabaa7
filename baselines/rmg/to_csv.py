#!/usr/bin/env python3
"""RMG sort's GPU-resident times as the experiments' CSV rows.

Reads the output of baselines/rmg/build-and-run.sh (`rmg_sort-resident-output.txt`: per run a header
`### n=<num_keys> gpus=<ids> type=<data_type> rep=<K>` (optionally ` dist=<distribution>`), then
radix-mgpu-sort's output with gpu-resident.patch, whose line `GPU-resident sort time: <ms>ms` is the
host clock from every GPU holding its keys to every GPU having finished its local sort) and prints
CSV rows in the columns of results/recorded/*/rmg_sort.csv:

    algorithm,shape,num_ranks,n_per_rank,n_total,seconds_median,seconds_min,seconds_max,keys_per_second

algorithm `rmg_sort_gpu_resident`; shape `keys_u32` (type uint32) or `keys_u64` (uint64); num_ranks
the number of GPU ids in the header; n_total the header's n, n_per_rank = n_total // num_ranks;
seconds: median / min / max over the runs' GPU-resident times (ms / 1000); keys_per_second =
n_total / seconds_median. Seconds are printed with 6 decimals, keys_per_second as %.6e, as in the
recorded CSV. Runs are grouped by (shape, num_ranks, n_total) in order of first appearance, so the
repetitions of one spec (and of the same spec appended by a later call) are pooled.

A run counts only if it printed exactly one GPU-resident time, no `Error: Invalid sort order` line
(RMG's own sortedness check) and no `### exit status` line (non-zero exit or timeout). Runs that do
not count, float keys, and distributions other than uniform are left out with a note on stderr.

    python3 baselines/rmg/to_csv.py OUTPUT.txt [--no-header] > rows.csv

Source: hpides/rmg-sort (Ilic, Tolovski & Rabl, BTW 2023) at fa32f526a9fb8b0b41449404d40ee0b13415ac27;
see baselines/rmg/README.md. Standard library only.
"""

import re
import statistics
import sys

ALGORITHM = "rmg_sort_gpu_resident"
COLUMNS = ["algorithm", "shape", "num_ranks", "n_per_rank", "n_total", "seconds_median", "seconds_min",
           "seconds_max", "keys_per_second"]
SHAPES = {"uint32": "keys_u32", "uint64": "keys_u64"}

_HEADER = re.compile(r"^### n=(\d+) gpus=([\d,]+) type=(\w+) rep=(\d+)(?: dist=(\S+))?\s*$")
_RESIDENT = re.compile(r"^GPU-resident sort time: ([0-9.]+)ms\s*$")
_EXIT = re.compile(r"^### exit status (\d+)")
_WRONG = "Error: Invalid sort order"


class Run:
    """One run of radix-mgpu-sort: its header's fields and what its output said.

    n_total: number of keys (>= 1); gpus: device ids as written ("0,1,2,3"); dtype: uint32 | uint64 |
    float32 | float64; rep: repetition number (>= 1); dist: distribution ("uniform" unless the header
    names another); resident_ms: the GPU-resident times printed (a list; one for a good run);
    wrong_order: RMG's sortedness check failed; exit_status: non-zero exit status or None."""

    def __init__(self, n_total, gpus, dtype, rep, dist):
        self.n_total, self.gpus, self.dtype, self.rep, self.dist = n_total, gpus, dtype, rep, dist
        self.resident_ms = []
        self.wrong_order = False
        self.exit_status = None

    @property
    def num_ranks(self):
        return len(self.gpus.split(","))

    def problem(self):
        """Why this run does not count (a short phrase), or None if it does."""
        if self.exit_status is not None:
            return "exit status %d%s" % (self.exit_status, " (timeout)" if self.exit_status in (124, 137) else "")
        if self.wrong_order:
            return "wrong sort order"
        if len(self.resident_ms) != 1:
            return "%d GPU-resident times" % len(self.resident_ms)
        return None

    def label(self):
        return "n=%d gpus=%s type=%s rep=%d" % (self.n_total, self.gpus, self.dtype, self.rep)


def parse(text):
    """The runs in build-and-run.sh's output text, in order (a list of Run).

    Lines before the first header are ignored; a header with no output (a run cut off before it
    printed anything) gives a Run with no times."""
    runs = []
    for line in text.splitlines():
        m = _HEADER.match(line)
        if m:
            runs.append(Run(int(m.group(1)), m.group(2), m.group(3), int(m.group(4)), m.group(5) or "uniform"))
            continue
        if not runs:
            continue
        run = runs[-1]
        m = _RESIDENT.match(line)
        if m:
            run.resident_ms.append(float(m.group(1)))
        elif line.startswith(_WRONG):
            run.wrong_order = True
        else:
            m = _EXIT.match(line)
            if m:
                run.exit_status = int(m.group(1))
    return runs


def rows(runs, notes=None):
    """CSV rows (dicts keyed by COLUMNS, numbers unformatted) from parsed runs.

    Groups the counting runs by (shape, num_ranks, n_total), in order of first appearance; notes (a
    list, optional) receives one line for every run or group left out and why."""
    notes = notes if notes is not None else []
    groups = {}
    for run in runs:
        shape = SHAPES.get(run.dtype)
        if shape is None or run.dist != "uniform":
            notes.append("%s: left out (shape: %s keys, %s)" % (run.label(), run.dtype, run.dist))
            continue
        why = run.problem()
        if why is not None:
            notes.append("%s: left out (%s)" % (run.label(), why))
            continue
        groups.setdefault((shape, run.num_ranks, run.n_total), []).append(run.resident_ms[0] / 1e3)
    out = []
    for (shape, p, n), seconds in groups.items():
        median = statistics.median(seconds)
        out.append({"algorithm": ALGORITHM, "shape": shape, "num_ranks": p, "n_per_rank": n // p, "n_total": n,
                    "seconds_median": median, "seconds_min": min(seconds), "seconds_max": max(seconds),
                    "keys_per_second": n / median})
    return out


def format_row(row):
    """One row as the list of CSV fields, formatted as in the recorded rmg_sort.csv."""
    return [row["algorithm"], row["shape"], str(row["num_ranks"]), str(row["n_per_rank"]), str(row["n_total"]),
            "%.6f" % row["seconds_median"], "%.6f" % row["seconds_min"], "%.6f" % row["seconds_max"],
            "%.6e" % row["keys_per_second"]]


def main(argv):
    args = [a for a in argv[1:] if a != "--no-header"]
    if len(args) != 1:
        sys.stderr.write("usage: to_csv.py OUTPUT.txt [--no-header]\n")
        return 2
    with open(args[0], encoding="utf-8", errors="replace") as f:
        runs = parse(f.read())
    notes = []
    out = rows(runs, notes)
    for note in notes:
        sys.stderr.write("to_csv.py: %s\n" % note)
    if "--no-header" not in argv:
        print(",".join(COLUMNS))
    for row in out:
        print(",".join(format_row(row)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
