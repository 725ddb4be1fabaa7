"""Repeated-run stability of the GPU timing tables: the same experiment
run twice at one commit on one GPU (results/recorded/<device>/ and its run2/ folder),
compared row by row.

Every GPU experiment CSV has a median time column (seconds_median or
microseconds_median) with its min and max over the timed repetitions, and some key
columns that name the measurement (algorithm, size, band, ...). Two runs are matched on
the key columns; for each matched row the second run's median divided by the first's
is its drift (1.0: no change; above 1: slower the second time)."""

import math
import os

from figures import shuffle_results
from figures import manifest

#: The timing columns, in the order looked for: (median, min, max).
TIME_COLUMNS = (("seconds_median", "seconds_min", "seconds_max"),
                ("microseconds_median", "microseconds_min", "microseconds_max"))
#: Columns that are measurements (or derived from them), never part of a row's key.
VALUE_COLUMNS = {"reps", "items_per_second", "keys_per_second", "outputs_per_second", "microseconds_per_bit",
                 "check", "label"}
VALUE_COLUMNS.update(c for cols in TIME_COLUMNS for c in cols)

#: The experiments whose second run is recorded (the short GPU tables): `second_run = true` in
#: experiments/manifest.toml, in its order.
STABILITY_EXPERIMENTS = tuple(manifest.manifest().names(second_run=True))


def time_columns(header):
    """The (median, min, max) column names of a CSV header (a sequence of names).
    Raises ValueError when the header has neither seconds_* nor microseconds_* columns."""
    for cols in TIME_COLUMNS:
        if all(c in header for c in cols):
            return cols
    raise ValueError("no timing columns (seconds_median/min/max or microseconds_median/min/max) in %s"
                     % ",".join(header))


def row_key(row):
    """The identity of a measurement: every column that is not a measurement, as a
    sorted tuple of (name, value) pairs."""
    return tuple(sorted((k, v) for k, v in row.items() if k not in VALUE_COLUMNS))


def compare_runs(first, second):
    """Matches two runs' rows (lists of dicts from csv.DictReader with the same header)
    on row_key and returns one dict per matched row: key (the row_key), median_1,
    median_2, drift (median_2 / median_1), inside (whether run 2's median lies within
    run 1's [min, max]). Rows present in one run only are left out (see unmatched()).
    Raises ValueError when the runs have no timing columns or a median is not positive."""
    if not first or not second:
        return []
    med, lo, hi = time_columns(list(first[0].keys()))
    index = {row_key(r): r for r in first}
    out = []
    for r2 in second:
        r1 = index.get(row_key(r2))
        if r1 is None:
            continue
        m1, m2 = float(r1[med]), float(r2[med])
        if not (m1 > 0 and m2 > 0):
            raise ValueError("median time must be positive, got %r and %r for %r" % (m1, m2, row_key(r2)))
        out.append({"key": row_key(r2), "median_1": m1, "median_2": m2, "drift": m2 / m1,
                    "inside": float(r1[lo]) <= m2 <= float(r1[hi])})
    return out


def unmatched(first, second):
    """Number of rows of either run with no partner in the other."""
    k1 = {row_key(r) for r in first}
    k2 = {row_key(r) for r in second}
    return len(k1 ^ k2)


def summarise(pairs):
    """Summary of compare_runs' output: rows, median and largest |drift - 1|, the row
    with the largest, and the share of rows whose second median lies inside the first
    run's min-max range. None for no rows."""
    if not pairs:
        return None
    dev = sorted(abs(p["drift"] - 1.0) for p in pairs)
    worst = max(pairs, key=lambda p: abs(p["drift"] - 1.0))
    mid = len(dev) // 2
    median = dev[mid] if len(dev) % 2 else 0.5 * (dev[mid - 1] + dev[mid])
    return {"rows": len(pairs), "median_abs_drift": median, "max_abs_drift": dev[-1], "worst": worst,
            "inside_share": sum(p["inside"] for p in pairs) / len(pairs)}


def read_rows(path):
    """Rows of a CSV as dicts of strings; raises FileNotFoundError when it is absent."""
    rows = shuffle_results.read_rows_text(path)
    if rows is None:
        raise FileNotFoundError(path)
    return rows


def stability_table(recorded_dir, experiments=STABILITY_EXPERIMENTS, second="run2"):
    """For each experiment with both recorded_dir/<e>.csv and recorded_dir/<second>/<e>.csv:
    (experiment, summarise(...), unmatched count, commit of each run or None). Experiments
    missing either file are left out."""
    out = []
    for e in experiments:
        p1 = os.path.join(recorded_dir, e + ".csv")
        p2 = os.path.join(recorded_dir, second, e + ".csv")
        if not (os.path.exists(p1) and os.path.exists(p2)):
            continue
        r1, r2 = read_rows(p1), read_rows(p2)
        commits = []
        for p in (p1, p2):
            meta = p[:-4] + ".meta.json"
            commit = None
            if os.path.exists(meta):
                import json
                with open(meta) as f:
                    commit = json.load(f).get("commit")
            commits.append(commit)
        out.append((e, summarise(compare_runs(r1, r2)), unmatched(r1, r2), commits))
    return out


def describe_key(key, keep=("algorithm", "shape", "q", "n", "log2_size", "digit_bits", "phase", "mode", "form",
                            "case")):
    """A short text for a row key: its most telling columns."""
    d = dict(key)
    return ", ".join("%s %s" % (k, d[k]) for k in keep if k in d and d[k] != "")


def percent(x):
    return "%.1f %%" % (100.0 * x) if x is not None and math.isfinite(x) else "–"


def spread(row):
    """Relative spread of one timing row: (max - min) / median of its timed repetitions.
    Raises ValueError when the row has no timing columns or a non-positive median."""
    med, lo, hi = time_columns(list(row.keys()))
    m = float(row[med])
    if not m > 0:
        raise ValueError("median time must be positive, got %r" % m)
    return (float(row[hi]) - float(row[lo])) / m


def spread_summary(rows):
    """Over the rows of one timing table: rows, median and largest relative spread, and
    the row with the largest. None for no rows."""
    if not rows:
        return None
    values = sorted((spread(r), i) for i, r in enumerate(rows))
    mid = len(values) // 2
    median = values[mid][0] if len(values) % 2 else 0.5 * (values[mid - 1][0] + values[mid][0])
    return {"rows": len(rows), "median_spread": median, "max_spread": values[-1][0], "worst": rows[values[-1][1]]}


def rate_ratio(numerator, denominator):
    """Throughput of `numerator` over that of `denominator` (two timing rows of the same
    problem size): (median ratio, lowest, highest), the bounds from the extremes of the
    timed repetitions (slowest numerator over fastest denominator and the reverse).
    Raises ValueError for a non-positive time."""
    med, lo, hi = time_columns(list(numerator.keys()))
    tn = [float(numerator[c]) for c in (med, lo, hi)]
    td = [float(denominator[c]) for c in (med, lo, hi)]
    if min(tn + td) <= 0:
        raise ValueError("times must be positive")
    return td[0] / tn[0], td[1] / tn[2], td[2] / tn[1]


def overlaps(a, b):
    """Whether two timing rows' [min, max] ranges overlap (their order is then not
    decided by these repetitions)."""
    _, lo, hi = time_columns(list(a.keys()))
    return float(a[lo]) <= float(b[hi]) and float(b[lo]) <= float(a[hi])
