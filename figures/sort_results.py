"""Reading and drawing the Onesweep sort experiments (Adinets & Merrill, "Onesweep: A Faster
Least Significant Digit Radix Sort for GPUs", §4: Figs. 9–11, Tables 1–2) and the
headline table (experiment sort_headline: ours vs CUB (best) at fixed sizes), and issue 33's
small-sort table (sort_headline at 2^12..2^21, recorded as sort_headline_small[-<commit>].csv:
small_runs, small_sorts; and over every entropy band of Figs. 9–11: figure_small_bands).

Shared by figures/plot_all.py (draw_sort_figures), paper/make_report.py (the Onesweep
section) and scripts/check_outputs.py (SORT_GPU_FIGURES), like shuffle_results.py is for
the shuffle paper. The reading part is standard library only; matplotlib is imported only
by the drawing functions.

The sort experiments are GPU programs (experiments/onesweep_*.cu, sort_headline). `make
figures` runs them only on a machine with a GPU; elsewhere the figures and the report use
the newest copy recorded on a GPU under results/recorded/<device>/
(shuffle_results.gpu_source), and a figure whose experiment has neither is skipped with a
note (not an error).

CUB (best). cub::DeviceRadixSort is registered in several configurations a user can choose
(the offset type NumItemsT, the in/out or DoubleBuffer overload; see README.md), and their
speeds differ. Every comparison with CUB is made against CUB (best): at each point (shape,
q, n), the fastest of the CUB configurations measured at that point (every algorithm whose
registry name starts with "cub_"), with the configuration that won. cub_best() computes it;
with_cub_best() adds it to the rows as the synthetic series CUB_BEST.
"""

import csv
import math
import os

from figures import shuffle_results as sr
from figures import palette
from figures.figure_files import footer, save_figure

# The CSV contract of experiments/common/sort_bench.cu (one row per algorithm, size and band).
SORT_COLUMNS = ["algorithm", "label", "shape", "q", "n", "log2_n", "reps", "seconds_median", "seconds_min",
                "seconds_max", "keys_per_second"]
SORT_EXPERIMENTS = {
    # experiment: (paper figure number, what is sorted)
    "onesweep_fig09_keys32": (9, "32-bit keys only"),
    "onesweep_fig10_pairs32": (10, "32-bit keys + 32-bit values"),
    "onesweep_fig11_keys64": (11, "64-bit keys only"),
}
# The headline sort experiment: fixed sizes, every shape, every registered GPU sort; same columns.
HEADLINE = "sort_headline"
# Figures drawn from GPU runs (fresh or recorded), each named like its experiment.
SORT_GPU_FIGURES = {name: name for name in SORT_EXPERIMENTS}
SORT_GPU_FIGURES[HEADLINE] = HEADLINE  # ours / CUB (best) per shape and size (bar chart)
SORT_GPU_SCHEMAS = {name: SORT_COLUMNS for name in list(SORT_EXPERIMENTS) + [HEADLINE]}
# The paper's Table 2 (histogram and partition cost vs digit width), our run of it and its figure.
TABLE2 = "onesweep_table2_digit_width"
TABLE2_COLUMNS = ["digit_bits", "passes", "phase", "n", "reps", "microseconds_median", "microseconds_min",
                  "microseconds_max", "microseconds_per_bit"]
# GPU table figures (Onesweep Table 2), drawn by plot_all.py, linked from the report and
# required by scripts/check_outputs.py when their experiment has results, fresh or recorded.
SORT_TABLE_FIGURES = {TABLE2: TABLE2}

BANDS = [1, 2, 3, 4, 8, 16]

OURS = "onesweep"        # ours, out-of-place API: the one every ratio and target uses
OURS_DB = "onesweep_db"  # ours, double-buffer API (input copied into the first buffer outside the timing)
CUB_BEST = "cub(best)"   # synthetic series (not a registry name): the fastest CUB configuration per point
# The CUB configurations registered today (a run without some of them predates them).
EXPECTED_CUB = ["cub_onesweep_n64", "cub_onesweep_n32", "cub_onesweep_db_n64", "cub_onesweep_db_n32",
                "cub_reduce_then_scan"]
# Registry names of older recorded runs, read as today's names (the old cub_onesweep was
# cub::DeviceRadixSort's in/out overload with a 32-bit NumItemsT).
LEGACY_ALIASES = {"cub_onesweep": "cub_onesweep_n32"}
# Shape names as older notes spell them, read as the experiments write them.
SHAPE_ALIASES = {"pairs_u32": "pairs_u32_u32", "pairs_u64": "pairs_u64_u64"}
# The registry's sort shapes (ONEPASS_SORT_SHAPES in harness/include/onepass/harness/
# registry.hpp, the one list), in its order, with their figure labels; the Python side's one
# list, checked against the C++ one by tests/python/test_sort_shapes.py.
SHAPES = [
    ("keys_u32", "u32 keys"),
    ("pairs_u32_u32", "u32 + u32 pairs"),
    ("keys_u64", "u64 keys"),
    ("pairs_u64_u64", "u64 + u64 pairs"),
    ("keys_f32", "f32 keys"),
    ("keys_i64", "i64 keys"),
]
SHAPE_ORDER = [name for name, _ in SHAPES]
SHAPE_DISPLAY = dict(SHAPES)

# Display names and colours by registry name; unknown algorithms keep their label.
DISPLAY = {
    "onesweep": "onesweep (ours)",
    "onesweep_db": "onesweep (ours, double buffer)",
    "hybrid_msd": "hybrid MSD (ours, after HRS)",
    "onepass_sort": "onepass::sort (ours: selector)",
    CUB_BEST: "CUB (best)",
    "cub_onesweep_n64": "CUB onesweep, in/out, 64-bit count",
    "cub_onesweep_n32": "CUB onesweep, in/out, 32-bit count",
    "cub_onesweep_db_n64": "CUB onesweep, DoubleBuffer, 64-bit count",
    "cub_onesweep_db_n32": "CUB onesweep, DoubleBuffer, 32-bit count",
    "cub_onesweep": "CUB onesweep (cub::DeviceRadixSort)",
    "cub_reduce_then_scan": "CUB reduce-then-scan (CUB 1.10 style)",
    "thrust_sort": "thrust::sort",
    "vren": "VREN (4-bit, ported)",
}
# Short names for table headers and "which configuration won".
SHORT = {
    "cub_onesweep_n64": "n64", "cub_onesweep_n32": "n32", "cub_onesweep_db_n64": "db n64",
    "cub_onesweep_db_n32": "db n32", "cub_onesweep": "cub_onesweep", "cub_reduce_then_scan": "rts",
}
# Colours by registry name, from figures/palette.py (the same in every figure).
COLOURS = {a: palette.colour(a) for a in (
    "onesweep", "onesweep_db", "hybrid_msd", "onepass_sort", CUB_BEST, "cub_onesweep_n64", "cub_onesweep_n32", "cub_onesweep_db_n64",
    "cub_onesweep_db_n32", "cub_onesweep", "cub_reduce_then_scan", "thrust_sort", "vren")}
ORDER = ["onesweep", "onesweep_db", "hybrid_msd", "onepass_sort", CUB_BEST, "cub_onesweep_n64", "cub_onesweep_n32", "cub_onesweep_db_n64",
         "cub_onesweep_db_n32", "cub_onesweep", "cub_reduce_then_scan", "thrust_sort", "vren"]
# "Saturating problem sizes" (paper §4) for the summary numbers: n >= 2^SATURATING_LOG2.
SATURATING_LOG2 = 26

# The sort headline targets (the project's, not claims of the paper): ours / CUB (best) >= threshold,
# measured by sort_headline on the H100 with CUB in the same run.
#   (what, shape, q, smallest log2 n, largest log2 n, threshold); every size measured in the
#   range must meet it.
HEADLINE_TARGETS = [
    ("u32 keys, q = 1, n = 2^28", "keys_u32", 1, 28, 28, 1.05),
    ("u32 keys, q = 2, n = 2^28", "keys_u32", 2, 28, 28, 1.0),
    ("u32 keys, q = 3, n = 2^28", "keys_u32", 3, 28, 28, 1.0),
    ("u32 keys, q = 4, n = 2^28", "keys_u32", 4, 28, 28, 1.0),
    ("u32 keys, q = 8, n = 2^28", "keys_u32", 8, 28, 28, 1.0),
    ("u32 keys, q = 16, n = 2^28", "keys_u32", 16, 28, 28, 1.0),
    ("u32 keys, q = 1, every size 2^20 to 2^30", "keys_u32", 1, 20, 30, 0.95),
    ("u32 + u32 pairs, q = 1, n = 2^24", "pairs_u32_u32", 1, 24, 24, 1.0),
    ("u32 + u32 pairs, q = 1, n = 2^28", "pairs_u32_u32", 1, 28, 28, 1.0),
    ("u64 keys, q = 1, n = 2^28", "keys_u64", 1, 28, 28, 1.05),
]
# The sort targets (the project's) stated over Figure 9's sizes (checked on onesweep_fig09_keys32).
FIG09_TARGETS = [
    ("u32 keys, q = 1, every Fig. 9 size 2^20 to 2^30", "keys_u32", 1, 20, 30, 0.95),
    ("u32 keys, q = 4, every Fig. 9 size 2^22 to 2^25 (no step)", "keys_u32", 4, 22, 25, 0.95),
    ("u32 keys, q = 8, every Fig. 9 size 2^22 to 2^25 (no step)", "keys_u32", 8, 22, 25, 0.95),
]


def display(algorithm, label=""):
    return DISPLAY.get(algorithm) or label or algorithm


def short(algorithm):
    return SHORT.get(algorithm, algorithm)


def colour(algorithm, index=0):
    """The algorithm's colour (figures/palette.py); index is no longer used."""
    return palette.colour(algorithm)


def is_cub(algorithm):
    """A CUB configuration (registry name starting with "cub_"; the synthetic CUB_BEST is not one)."""
    return algorithm.startswith("cub_")


def ordered_algorithms(rows):
    found = {r["algorithm"] for r in rows}
    return [a for a in ORDER if a in found] + sorted(found - set(ORDER))


def cub_configurations(rows):
    """The CUB configurations measured in rows, in display order."""
    return [a for a in ordered_algorithms(rows) if is_cub(a)]


def shape_order(shapes):
    shapes = set(shapes)
    return [s for s in SHAPE_ORDER if s in shapes] + sorted(shapes - set(SHAPE_ORDER))


def size_text(n):
    """'2^28' for a power of two, else '2^27.9'."""
    e = math.log2(n)
    return "2^%d" % round(e) if abs(e - round(e)) < 1e-9 else "2^%.1f" % e


def apply_aliases(rows):
    """Renames legacy registry names (LEGACY_ALIASES) and older shape names (SHAPE_ALIASES)
    in place; a renamed row keeps its old name in row['recorded_as']. A legacy name is left
    alone when its new name is in the same run too."""
    present = {r["algorithm"] for r in rows}
    for r in rows:
        new = LEGACY_ALIASES.get(r["algorithm"])
        if new and new not in present:
            r["recorded_as"] = r["algorithm"]
            r["algorithm"] = new
        r["shape"] = SHAPE_ALIASES.get(r["shape"], r["shape"])
    return rows


def legacy_names(rows):
    """{new name: name in the CSV} for the rows apply_aliases renamed."""
    return {r["algorithm"]: r["recorded_as"] for r in rows if r.get("recorded_as")}


def load_sort_experiment(directory, name):
    """(rows, meta) of a sort experiment, legacy names read as today's (apply_aliases);
    raises sr.MissingInput when absent or malformed."""
    rows, meta = sr.load_experiment(directory, name, SORT_COLUMNS)
    for r in rows:  # q and n are integers, read as numbers by shuffle_results
        r["q"] = int(r["q"])
        r["n"] = int(r["n"])
    return apply_aliases(rows), meta


def sort_sources(results_dir, recorded_root, names=None):
    """{experiment: GpuSource} for the sort experiments (default: Figs. 9-11) that have results,
    fresh or recorded."""
    out = {}
    for name in (names if names is not None else SORT_EXPERIMENTS):
        source = sr.gpu_source(results_dir, name, recorded_root)
        if source is not None:
            out[name] = source
    return out


# --------------------------------------------------------------------------- CUB (best)

def cub_best(rows):
    """{(shape, q, n): row of the fastest CUB configuration measured at that point}."""
    best = {}
    for r in rows:
        if not is_cub(r["algorithm"]) or not r["keys_per_second"]:
            continue
        key = (r["shape"], r["q"], r["n"])
        if key not in best or r["keys_per_second"] > best[key]["keys_per_second"]:
            best[key] = r
    return best


def with_cub_best(rows):
    """rows plus one synthetic row per point for CUB (best) (algorithm CUB_BEST, the winning
    configuration in row['winner'], its timings copied); rows unchanged when no CUB was measured."""
    extra = []
    for key, r in sorted(cub_best(rows).items()):
        extra.append(dict(r, algorithm=CUB_BEST, label="CUB (best)", winner=r["algorithm"]))
    return list(rows) + extra


def ratio_points(rows, ours=OURS):
    """[{shape, q, n, ratio, ours, best, winner}] at every point where `ours` and a CUB
    configuration were both measured; ratio = ours keys/s / CUB (best) keys/s. Sorted."""
    best = cub_best(rows)
    out = []
    for r in rows:
        if r["algorithm"] != ours or not r["keys_per_second"]:
            continue
        b = best.get((r["shape"], r["q"], r["n"]))
        if b is None:
            continue
        out.append({"shape": r["shape"], "q": r["q"], "n": r["n"], "ours": r["keys_per_second"],
                    "best": b["keys_per_second"], "winner": b["algorithm"],
                    "ratio": r["keys_per_second"] / b["keys_per_second"]})
    order = {s: i for i, s in enumerate(shape_order({p["shape"] for p in out}))}
    return sorted(out, key=lambda p: (order[p["shape"]], p["q"], p["n"]))


def ratio_ranges(rows, ours=OURS):
    """{(shape, q, n): (low, high)}: the range of ours ÷ CUB (best) over the timed repetitions
    at each point where both were measured, from each row's fastest and slowest run
    (seconds_min, seconds_max): low = CUB (best)'s fastest ÷ ours' slowest, high = CUB (best)'s
    slowest ÷ ours' fastest (CUB (best) is the configuration with the best median there).
    Points whose rows lack min/max timings are left out."""
    best = cub_best(rows)
    out = {}
    for r in rows:
        if r["algorithm"] != ours:
            continue
        b = best.get((r["shape"], r["q"], r["n"]))
        if b is None or not all(x.get(c) for x in (r, b) for c in ("seconds_min", "seconds_max")):
            continue
        out[(r["shape"], r["q"], r["n"])] = (b["seconds_min"] / r["seconds_max"], b["seconds_max"] / r["seconds_min"])
    return out


def winner_counts(rows, q=None, min_log2=None):
    """{configuration: number of points it won} over CUB (best)'s points (optionally one band,
    sizes n >= 2^min_log2)."""
    counts = {}
    for (shape, qq, n), r in cub_best(rows).items():
        if (q is not None and qq != q) or (min_log2 is not None and n < 2 ** min_log2):
            continue
        counts[r["algorithm"]] = counts.get(r["algorithm"], 0) + 1
    return counts


def check_target(points, shape, q, lo_log2, hi_log2, threshold):
    """Evaluates one target over ratio_points: (verdict, lowest point or None, points used).
    verdict: 'met', 'not met' or 'not measured' (no point of that shape and band in range)."""
    sel = [p for p in points if p["shape"] == shape and p["q"] == q
           and 2 ** lo_log2 * (1 - 1e-9) <= p["n"] <= 2 ** hi_log2 * (1 + 1e-9)]
    if not sel:
        return "not measured", None, []
    low = min(sel, key=lambda p: p["ratio"])
    return ("met" if low["ratio"] >= threshold else "not met"), low, sel


def _read_reference(filename, columns):
    return sr.read_csv(os.path.join(sr.REFERENCE_DIR, filename), columns)


def load_facts():
    """{key: row} of figures/reference/onesweep_facts.csv, row['number'] a float when numeric."""
    rows = _read_reference("onesweep_facts.csv", ["key", "value", "unit", "source"])
    facts = {}
    for r in rows:
        r = dict(r)
        try:
            r["number"] = float(r["value"])
        except (TypeError, ValueError):
            r["number"] = None
        facts[r["key"]] = r
    return facts


def load_table2():
    """The paper's Table 2 rows (digit width d = 5..9 at 256M random uint32 keys)."""
    path = os.path.join(sr.REFERENCE_DIR, "onesweep_table2_digit_width.csv")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load_entropy_table():
    path = os.path.join(sr.REFERENCE_DIR, "onesweep_table1_entropy.csv")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def saturated(rows, algorithm, q, min_log2=SATURATING_LOG2):
    """Median keys/s of `algorithm` at band q over sizes n >= 2^min_log2, and how many sizes;
    when there are none (a smoke run), the value at the largest size measured (count 0)."""
    pts = sorted((r["n"], r["keys_per_second"]) for r in rows if r["algorithm"] == algorithm and r["q"] == q)
    if not pts:
        return None, 0
    big = [v for n, v in pts if n >= 2 ** min_log2]
    if big:
        big.sort()
        m = len(big) // 2
        return (big[m] if len(big) % 2 else 0.5 * (big[m - 1] + big[m])), len(big)
    return pts[-1][1], 0


def copy_rates(meta, shapes=None):
    """{n: bytes/s} of the device-to-device copy measured beside the sorts, from meta.json's
    copy_bytes_per_second_by_n: items "n:rate" (older runs) or "shape:n:rate" (kept when the
    shape is in `shapes`, or always when shapes is None); the trailing explanation is skipped."""
    out = {}
    for item in str(meta.get("copy_bytes_per_second_by_n", "")).split():
        parts = item.split(":")
        if len(parts) == 3:
            shape, n_text, rate = parts
            if shapes is not None and SHAPE_ALIASES.get(shape, shape) not in shapes:
                continue
        elif len(parts) == 2:
            n_text, rate = parts
        else:
            continue
        try:
            out[int(n_text)] = float(rate)
        except ValueError:
            pass
    return out


def fmt_ratio(ratio, threshold=None):
    """'0.965'; four decimals where three would round a miss up to the threshold."""
    text = "%.3f" % ratio
    if threshold is not None and ratio < threshold and float(text) >= threshold:
        text = "%.4f" % ratio
    return text


# --------------------------------------------------------------------------- drawing

# Each CUB configuration in the Figs. 9-11 charts: thin grey, so that CUB (best), the one
# compared against, is the only green; reduce-then-scan (the paper's CUB 1.10 baseline) dotted.
CUB_CONFIG_GREY = "#9a9a9a"
# The ratio panels of Figs. 9-11 show ratios up to this; higher points are marked at the top edge.
RATIO_TOP = 2.5


def _series_style(alg):
    """(line width, alpha, marker size, line style, z-order) by role: ours and CUB (best)
    prominent, each CUB configuration thin grey (reduce-then-scan dotted), the other sorts in
    between. Dashed lines are kept for the paper's numbers."""
    if alg == OURS:
        return 2.0, 1.0, 3.0, "-", 5
    if alg == CUB_BEST:
        return 2.4, 0.9, 0.0, "-", 4
    if alg == OURS_DB:
        return 1.3, 0.9, 0.0, "-", 4
    if is_cub(alg):
        return 0.8, 0.8, 0.0, ":" if alg == "cub_reduce_then_scan" else "-", 2
    return 1.0, 0.85, 2.0, "-", 3


def clipped_points(points, top):
    """The points of a ratio panel that lie above its top edge: [(n, ratio)] of `points`
    ([(n, ratio)]) with ratio > top, in the order given."""
    return [(n, v) for n, v in points if v > top]


def mark_clipped(ax, points, top, colour):
    """Marks each point of `points` ([(n, ratio)]) above `top` on ax (whose y range ends at
    top) with a triangle on the top edge and its value beside it, so a spike is not cut off
    silently. Returns the marked points ([(n, ratio)])."""
    marked = clipped_points(points, top)
    for n, v in marked:
        ax.plot([n], [top], ls="", marker="^", ms=5.5, color=colour, mec="white", mew=0.5, clip_on=False, zorder=6)
        ax.annotate("%.1f" % v, (n, top), xytext=(3, -1), textcoords="offset points", ha="left", va="top",
                    fontsize=6.5, color=colour, annotation_clip=False, zorder=6)
    return marked


def _ratio_by_n(rows, q, numerator, denominator_best=True, denominator=None):
    """[(n, numerator keys/s ÷ CUB (best) or ÷ `denominator`)] at band q, sorted by n."""
    num = {r["n"]: r["keys_per_second"] for r in rows if r["algorithm"] == numerator and r["q"] == q
           and r["keys_per_second"]}
    if denominator_best:
        den = {n: r["keys_per_second"] for (shape, qq, n), r in cub_best(rows).items() if qq == q}
    else:
        den = {r["n"]: r["keys_per_second"] for r in rows if r["algorithm"] == denominator and r["q"] == q
               and r["keys_per_second"]}
    return [(n, num[n] / den[n]) for n in sorted(num) if den.get(n)]


def draw_sort_figure(rows, meta, out_dir, name, source, facts=None):
    """Fig. 9/10/11-style chart: for each entropy band, GKey/s vs problem size (log x) with
    one series per registered GPU sort, and under it ours ÷ CUB (best) at each size (the
    question the figure answers), with ours ÷ CUB reduce-then-scan beside the paper's
    1.4–1.6× over CUB 1.10 (its reduce-then-scan design) at saturating sizes. Ours and CUB
    (best) (the fastest CUB configuration at each size; each panel's top left counts the sizes
    each configuration won) are bold, each CUB configuration thin grey (reduce-then-scan
    dotted); the paper's stated A100 numbers (Fig. 9: 29.4 GKey/s at q = 1, 28 at q = 8, 36
    at q = 16) dashed in ours' colour. Ratios above RATIO_TOP are marked on the ratio panel's
    top edge with their value (mark_clipped)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    palette.apply_rc()
    fig_no, what = SORT_EXPERIMENTS[name]
    facts = facts if facts is not None else load_facts()
    plain_rows = rows
    rows = with_cub_best(rows)
    bands = [q for q in BANDS if any(r["q"] == q for r in rows)]
    bands += sorted({r["q"] for r in rows} - set(bands))
    if not bands:
        raise sr.MissingInput("%s.csv has no rows" % name)
    algorithms = ordered_algorithms(rows)
    renamed = legacy_names(rows)
    cols = 3 if len(bands) > 2 else len(bands)
    nrows = (len(bands) + cols - 1) // cols
    fig = plt.figure(figsize=(4.9 * cols, 4.7 * nrows))
    outer = fig.add_gridspec(nrows, cols, left=0.055, right=0.995, top=1 - 0.62 / (4.7 * nrows),
                             bottom=0.45 / (4.7 * nrows), hspace=0.13, wspace=0.06)
    paper_lines = {}
    if fig_no == 9:
        for q, key in ((1, "keys32_q1_gkeys"), (8, "keys32_q8_gkeys"), (16, "keys32_q16_gkeys")):
            if facts.get(key, {}).get("number"):
                paper_lines[q] = facts[key]["number"]
    lo = facts.get("speedup_vs_cub110_low", {}).get("number")
    hi = facts.get("speedup_vs_cub110_high", {}).get("number")
    rts = "cub_reduce_then_scan"
    has_rts = any(r["algorithm"] == rts for r in rows)
    handles = {}
    ratio_axes, all_ratios, main_axes = [], [], []
    ratio_series = []  # (ratio axes, [(n, ratio)], colour): checked for points above the top edge
    sizes_all = sorted({r["n"] for r in rows})
    for k, q in enumerate(bands):
        row, col = k // cols, k % cols
        cell = outer[row, col].subgridspec(2, 1, height_ratios=[2.6, 1.25], hspace=0.07)
        ax = fig.add_subplot(cell[0], sharex=main_axes[0] if main_axes else None,
                             sharey=main_axes[0] if main_axes else None)
        axr = fig.add_subplot(cell[1], sharex=ax, sharey=ratio_axes[0] if ratio_axes else None)
        main_axes.append(ax)
        ratio_axes.append(axr)
        for i, alg in enumerate(algorithms):
            sel = sorted((r for r in rows if r["algorithm"] == alg and r["q"] == q), key=lambda r: r["n"])
            if not sel:
                continue
            label = display(alg, next((r["label"] for r in rows if r["algorithm"] == alg), ""))
            if alg in renamed:
                label += " (recorded as %s)" % renamed[alg]
            if alg == CUB_BEST:
                label = "CUB (best): the fastest CUB configuration at each size (its wins: top left)"
            lw, alpha, ms, ls, z = _series_style(alg)
            xs, ys = [r["n"] for r in sel], [r["keys_per_second"] / 1e9 for r in sel]
            (h,) = ax.plot(xs, ys, ls, marker="o" if ms else None, ms=ms, lw=lw, alpha=alpha,
                           color=CUB_CONFIG_GREY if is_cub(alg) else colour(alg, i), label=label, zorder=z)
            if is_cub(alg):  # one legend entry for the grey lines (the footer names each configuration)
                label = ("thin grey, dotted: %s" % label if alg == rts else
                         "thin grey: each other CUB configuration (%s)"
                         % ", ".join(short(a) for a in algorithms if is_cub(a) and a != rts))
            if alg in (OURS, CUB_BEST) and all(r.get("seconds_min") and r.get("seconds_max") for r in sel):
                # the spread of the timed repetitions (slowest to fastest run) around the median
                spread = ax.fill_between(xs, [r["n"] / r["seconds_max"] / 1e9 for r in sel],
                                         [r["n"] / r["seconds_min"] / 1e9 for r in sel], color=colour(alg, i),
                                         alpha=0.18, lw=0, zorder=z - 0.5)
                handles.setdefault("shaded: slowest to fastest of the timed repetitions (ours, CUB (best))", spread)
            handles.setdefault(label, h)
        wins = sorted(winner_counts(plain_rows, q).items(), key=lambda kv: (-kv[1], ORDER.index(kv[0])
                                                                             if kv[0] in ORDER else len(ORDER)))
        if wins:
            ax.text(0.02, 0.96, "CUB (best) is\n" + "\n".join("%s at %d size%s" % (short(a), c, "" if c == 1 else "s")
                                                              for a, c in wins),
                    transform=ax.transAxes, ha="left", va="top", fontsize=7, color=palette.CUB_BEST,
                    bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "#cccccc", "alpha": 0.9})
        if q in paper_lines:
            h = ax.axhline(paper_lines[q], **{k2: v for k2, v in palette.paper_line(OURS).items()
                                              if k2 in ("color", "ls", "lw")})
            text = "paper: Onesweep on A100 (text of §4), dashed in ours' colour"
            handles.setdefault(text, h)
            ax.annotate("paper %.1f" % paper_lines[q], (0.01, paper_lines[q]), xycoords=("axes fraction", "data"),
                        va="bottom", fontsize=7.5, color=palette.OURS)
        ax.set_title("q = %d (AND of %d uniform word%s)" % (q, q, "" if q == 1 else "s"), fontsize=9.5)
        ax.tick_params(labelbottom=False)
        if col == 0:
            ax.set_ylabel("GKey/s")
            axr.set_ylabel("ours ÷ peer")
        else:
            ax.tick_params(labelleft=False)
            axr.tick_params(labelleft=False)
        # ours ÷ CUB (best), and ours ÷ reduce-then-scan beside the paper's claim about CUB 1.10
        pts = _ratio_by_n(plain_rows, q, OURS)
        spans = ratio_ranges(plain_rows)
        ranged = [(n, spans[key]) for n, _ in pts for key in [k2 for k2 in spans if k2[1] == q and k2[2] == n][:1]]
        if ranged:
            band = axr.fill_between([n for n, _ in ranged], [lohi[0] for _, lohi in ranged],
                                    [lohi[1] for _, lohi in ranged], color=palette.OURS, alpha=0.18, lw=0, zorder=3)
            handles.setdefault("shaded: range of ours ÷ CUB (best) over the repetitions", band)
        if pts:
            all_ratios += [v for _, v in pts]
            ratio_series.append((axr, pts, palette.OURS))
            (h,) = axr.plot([n for n, _ in pts], [v for _, v in pts], color=palette.OURS, lw=1.6, zorder=4,
                            label="ours ÷ CUB (best) at the same size")
            handles.setdefault("ours ÷ CUB (best) at the same size", h)
        if has_rts:
            pts = _ratio_by_n(plain_rows, q, OURS, False, rts)
            if pts:
                all_ratios += [v for _, v in pts]
                ratio_series.append((axr, pts, colour(rts)))
                (h,) = axr.plot([n for n, _ in pts], [v for _, v in pts], color=colour(rts), lw=1.1, zorder=3)
                handles.setdefault("ours ÷ CUB reduce-then-scan (CUB 1.10 style)", h)
            if lo and hi:
                span = [max(2 ** SATURATING_LOG2, sizes_all[0]), sizes_all[-1]]
                band = axr.fill_between(span, [lo, lo], [hi, hi], color=colour(rts), alpha=0.25, lw=0, zorder=1)
                handles.setdefault("paper: Onesweep ÷ CUB 1.10 = %g–%g× (A100, sizes ≥ 2^%d here)"
                                   % (lo, hi, SATURATING_LOG2), band)
        axr.axhline(1.0, color=palette.CUB_BEST, lw=1.0, zorder=2)
        axr.set_xscale("log", base=2)
        if row == nrows - 1 or k + cols >= len(bands):
            axr.set_xlabel("problem size n (keys)")
        else:
            axr.tick_params(labelbottom=False)
    main_axes[0].set_xscale("log", base=2)
    if all_ratios:
        lo_r = max(0.0, min(min(all_ratios), 0.9) - 0.05)
        hi_r = min(RATIO_TOP, max(max(all_ratios), (hi or 1.0)) + 0.05)
        ratio_axes[0].set_ylim(lo_r, hi_r)
        clipped = []
        for axr, pts, c in ratio_series:
            clipped += mark_clipped(axr, pts, hi_r, c)
        if clipped:
            handles["a ratio above %.1f (the panel's top edge), its value beside it" % hi_r] = Line2D(
                [], [], ls="", marker="^", ms=5.5, color="#555555")
    for axr in ratio_axes:
        axr.grid(True, alpha=0.3)
    gpu = meta.get("gpu_name") or (("device '%s'" % source.device) if source and source.device else "the GPU")
    fig.suptitle("Onesweep paper Fig. %d — %s sorting throughput on %s (%s): ours vs CUB (best); "
                 "below each band, ours ÷ CUB (best)"
                 % (fig_no, what, gpu, "this run" if (source is None or source.fresh) else "recorded run"),
                 fontsize=11, y=1 - 0.12 / (4.7 * nrows), va="top")
    labels, hs = list(handles.keys()), list(handles.values())
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bottom = min(a.get_tightbbox(renderer).y0 for a in ratio_axes)
    y0 = fig.transFigure.inverted().transform((0, bottom))[1]
    fig.legend(hs, labels, loc="upper center", ncol=3, bbox_to_anchor=(0.5, y0 - 0.005), framealpha=0.92,
               fontsize=8.5)
    where = None if source is None or source.fresh else "recorded copy results/recorded/%s" % source.device
    configs = [a for a in algorithms if is_cub(a)]
    footer(fig, sr.machine_label(meta, where) +
           "\nCUB (best) is the fastest at each size of the CUB configurations in this run: %s"
           % (", ".join(configs) or "none") +
           "   |   paper: A100-80GB-SXM, 1000 sizes per band; its Fig. %d is shown only through the numbers its "
           "text states" % fig_no)
    return save_figure(fig, out_dir, name)


# sort_headline's chart: at most this many (shape, band) groups per row of panels, so that the
# figure stays about 10 inches wide and its value labels stay readable when the PDF report
# scales it to the page (the single row it had was 33 inches wide).
HEADLINE_GROUPS_PER_ROW = 4
HEADLINE_LABEL_PT = 8.0


def headline_rows(groups, per_row=HEADLINE_GROUPS_PER_ROW):
    """The (shape, band) groups of the sort_headline chart split into rows of panels: a list
    of lists of at most per_row groups each (per_row >= 1), in order; [] for no groups."""
    if per_row < 1:
        raise ValueError("per_row must be at least 1, got %r" % (per_row,))
    return [groups[i:i + per_row] for i in range(0, len(groups), per_row)]


def headline_label(ratio):
    """A bar's value label: two decimals ('1.17'), more where two would round a ratio below
    1 up to '1.00' ('0.998'), so that a bar drawn as below CUB (best) never reads 1.00."""
    for digits in (2, 3, 4):
        text = "%.*f" % (digits, ratio)
        if ratio >= 1 or float(text) < 1:
            return text
    return text


def draw_headline_figure(rows, meta, out_dir, source):
    """sort_headline: ours / CUB (best) per shape (and band) and size, one bar per size, with
    the project's targets as short red marks and 1.0 as a line; the groups laid out in rows
    of HEADLINE_GROUPS_PER_ROW panels, each bar's value written above it. Raises
    sr.MissingInput when no point has both ours and a CUB configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    points = ratio_points(rows)
    if not points:
        raise sr.MissingInput("%s.csv has no point where both %s and a CUB configuration were measured"
                              % (HEADLINE, OURS))
    groups = []
    for p in points:
        if (p["shape"], p["q"]) not in groups:
            groups.append((p["shape"], p["q"]))
    sizes = sorted({p["n"] for p in points})
    by = {(p["shape"], p["q"], p["n"]): p for p in points}
    width = 0.8 / len(sizes)
    from matplotlib.colors import LinearSegmentedColormap

    palette.apply_rc()
    cmap = LinearSegmentedColormap.from_list("ours", [palette.OURS_PALE, palette.OURS, "#002a5c"])
    size_colours = {n: cmap(i / max(1, len(sizes) - 1)) for i, n in enumerate(sizes)}  # ours' blues, by size
    layout = headline_rows(groups)
    per_row = max(len(r) for r in layout)
    fig, axes = plt.subplots(len(layout), 1, figsize=(max(6.0, 0.3 * per_row * max(len(sizes), 4) + 1.2),
                                                      2.7 * len(layout) + 0.4), squeeze=False, sharey=True)
    lows = [p["ratio"] for p in points]
    top = max([1.0] + lows)
    y_lo = max(0.0, min(lows) - 0.15)
    # room above the tallest bar for its rotated label (about 4.5 characters of the label font)
    label_room = (top - y_lo) * 0.2 + 0.05
    for ax, row_groups in zip(axes[:, 0], layout):
        for g, (shape, q) in enumerate(row_groups):
            for i, n in enumerate(sizes):
                p = by.get((shape, q, n))
                if p is None:
                    continue
                x = g - 0.4 + width * (i + 0.5)
                below = p["ratio"] < 1
                ax.bar(x, p["ratio"], width * 0.92, color=size_colours[n],
                       edgecolor="#d62728" if below else "#002a5c", linewidth=1.2 if below else 0.6)
                ax.annotate(headline_label(p["ratio"]), (x, p["ratio"]), xytext=(0, 2), textcoords="offset points",
                            ha="center", va="bottom", rotation=90, fontsize=HEADLINE_LABEL_PT,
                            color="#d62728" if below else "#222222")
                for what, tshape, tq, lo, hi, threshold in HEADLINE_TARGETS:
                    if tshape == shape and tq == q and 2 ** lo <= n <= 2 ** hi:
                        ax.plot([x - width * 0.46, x + width * 0.46], [threshold, threshold], color="#d62728",
                                lw=1.6, zorder=5)
        ax.axhline(1.0, color=palette.CUB_BEST, lw=1.2)
        ax.set_xticks(range(len(row_groups)))
        ax.set_xticklabels(["%s, q = %d" % (SHAPE_DISPLAY.get(s, s), q) if s == "keys_u32" else SHAPE_DISPLAY.get(s, s)
                            for s, q in row_groups], fontsize=9)
        ax.set_xlim(-0.5, per_row - 0.5)
        ax.grid(False, axis="x")
        ax.set_ylabel("ours / CUB (best)")
    axes[0, 0].set_ylim(y_lo, top + label_room)
    gpu = meta.get("gpu_name") or (("device '%s'" % source.device) if source and source.device else "the GPU")
    axes[0, 0].set_title("Sort headline — onesweep (ours) / CUB (best), keys/s ratio, at fixed sizes on %s (%s)"
                         % (gpu, "this run" if (source is None or source.fresh) else "recorded run"), fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, color=size_colours[n]) for n in sizes]
    labels = ["n = %s" % size_text(n) for n in sizes]
    handles += [Line2D([], [], color=palette.CUB_BEST, lw=1.2), Line2D([], [], color="#d62728", lw=1.6),
                plt.Rectangle((0, 0), 1, 1, fc="white", ec="#d62728", lw=1.2)]
    labels += ["1 = CUB (best)", "target (project's, not the paper's)", "red edge and value: below CUB (best)"]
    fig.tight_layout()
    fig.canvas.draw()
    bottom = axes[-1, 0].get_tightbbox(fig.canvas.get_renderer()).y0
    y0 = fig.transFigure.inverted().transform((0, bottom))[1]
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, y0 - 0.005),
               ncol=min(len(handles), 6), framealpha=0.92, fontsize=8.5)
    where = None if source is None or source.fresh else "recorded copy results/recorded/%s" % source.device
    footer(fig, sr.machine_label(meta, where) + "\nCUB (best): the fastest at each point of %s"
           % ", ".join(cub_configurations(rows)))
    return save_figure(fig, out_dir, HEADLINE)


def load_table2_experiment(directory, name=TABLE2):
    """(rows, meta) of our run of Table 2 (experiments/onesweep_table2_digit_width): rows
    with digit_bits and passes as int, the microsecond columns as float (per-bit empty ->
    None). Raises sr.MissingInput when absent or malformed. Same signature as
    load_sort_experiment, so scripts/check_outputs.py can list it beside SORT_GPU_FIGURES."""
    path = os.path.join(directory, name + ".csv")
    if not os.path.isfile(path):
        raise sr.MissingInput("missing file: %s" % path)
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != TABLE2_COLUMNS:
            raise sr.MissingInput("%s: header %s differs from the agreed columns %s"
                                  % (path, ",".join(header or []), ",".join(TABLE2_COLUMNS)))
        rows = []
        for lineno, values in enumerate(reader, start=2):
            if not values:
                continue
            if len(values) != len(header):
                raise sr.MissingInput("%s:%d: %d values for %d columns" % (path, lineno, len(values), len(header)))
            r = dict(zip(header, values))
            try:
                for c in ("digit_bits", "passes", "n", "reps"):
                    r[c] = int(float(r[c]))
                for c in ("microseconds_median", "microseconds_min", "microseconds_max", "microseconds_per_bit"):
                    r[c] = float(r[c]) if r[c].strip() else None
            except ValueError as e:
                raise sr.MissingInput("%s:%d: %s" % (path, lineno, e))
            rows.append(r)
    if not rows:
        raise sr.MissingInput("no data rows: %s" % path)
    meta = sr.read_meta(os.path.join(directory, name + ".meta.json"))
    return rows, meta


def draw_table2_figure(rows, meta, out_dir, source, paper=None):
    """Onesweep Table 2 as a figure: for digit widths d = 5..9 (2^28 random uint32 keys), the
    upfront histogram and one partition (digit-binning) pass, ours beside the paper's (bars;
    ours with min–max whiskers), the partition time per bit (the paper's argument for d = 8,
    minimum marked), and our whole sort (the paper gives none). Passes per sort under each d,
    ours and the paper's. Raises sr.MissingInput when no partition row is present."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D

    palette.apply_rc()
    paper = paper if paper is not None else load_table2()
    ours = {}
    for r in rows:
        ours.setdefault(r["digit_bits"], {})[r["phase"]] = r
    widths = sorted(d for d in ours if "partition" in ours[d])
    if not widths:
        raise sr.MissingInput("%s.csv has no partition rows" % TABLE2)
    ref = {int(float(p["digit_bits"])): p for p in paper}
    widths = sorted(set(widths) | set(ref))
    gpu = meta.get("gpu_name") or (("device '%s'" % source.device) if source and source.device else "the GPU")
    gpu_short = next((w for w in gpu.split() if any(ch.isdigit() for ch in w) and w.upper() != "NVIDIA"), gpu)
    paper_gpu = (paper[0].get("machine") or "A100").replace("NVIDIA ", "")
    paper_short = next((w for w in paper_gpu.split() if any(ch.isdigit() for ch in w)), paper_gpu).split("-")[0]
    fig, axes = plt.subplots(2, 2, figsize=(11.5, 7.6))
    (ah, ap), (ab, asort) = axes
    x = list(range(len(widths)))
    bw = 0.38

    def bars(ax, phase, paper_key, title):
        for i, d in enumerate(widths):
            r = ours.get(d, {}).get(phase)
            if r:
                v = r["microseconds_median"]
                ax.bar(i - bw / 2, v, bw, color=palette.OURS, zorder=3)
                ax.errorbar(i - bw / 2, v, yerr=[[v - r["microseconds_min"]], [r["microseconds_max"] - v]],
                            color="black", lw=0.8, capsize=2, zorder=4)
                ax.annotate("%.0f" % v, (i - bw / 2, r["microseconds_max"]),
                            xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=7.5,
                            zorder=5)
            p = ref.get(d)
            if p and p.get(paper_key):
                v = float(p[paper_key])
                ax.bar(i + bw / 2, v, bw, facecolor="white", edgecolor=palette.OURS, hatch="///", ls="--", lw=1.0,
                       zorder=3)
                ax.annotate("%.0f" % v, (i + bw / 2, v), xytext=(0, 2), textcoords="offset points", ha="center",
                            va="bottom", fontsize=7.5, color=palette.OURS, zorder=5)
        ax.set_title(title)
        ax.set_ylabel("µs")
        ax.set_ylim(0, ax.get_ylim()[1] * 1.08)

    bars(ah, "histogram", "histogram_us", "(a) upfront histogram (all digit places), µs")
    bars(ap, "partition", "partition_us", "(b) one partition (digit-binning) pass, µs")
    # (c) per bit
    xs_o = [i for i, d in enumerate(widths) if ours.get(d, {}).get("partition")]
    ys_o = [ours[widths[i]]["partition"]["microseconds_per_bit"] or
            ours[widths[i]]["partition"]["microseconds_median"] / widths[i] for i in xs_o]
    ab.plot(xs_o, ys_o, **palette.line(OURS, ms=6))
    xs_p = [i for i, d in enumerate(widths) if d in ref and ref[d].get("partition_per_bit_us")]
    ys_p = [float(ref[widths[i]]["partition_per_bit_us"]) for i in xs_p]
    ab.plot(xs_p, ys_p, **palette.paper_line(OURS, ms=6, lw=1.5))
    cheapest = []
    for xs, ys, who in ((xs_o, ys_o, "ours"), (xs_p, ys_p, "paper")):
        if ys:
            k = min(range(len(ys)), key=lambda j: ys[j])
            ab.plot([xs[k]], [ys[k]], ls="", marker="o", ms=13, mfc="none", mec=palette.FAIL, mew=1.4, zorder=6)
            cheapest.append("%s: d = %d (%.0f µs per bit)" % (who, widths[xs[k]], ys[k]))
    if cheapest:
        ab.text(0.98, 0.97, "cheapest per bit (circled)\n" + "\n".join(cheapest), transform=ab.transAxes,
                ha="right", va="top", fontsize=8, color=palette.OURS,
                bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="#cccccc"))
    lo = min(ys_o + ys_p) if (ys_o + ys_p) else 0
    hi = max(ys_o + ys_p) if (ys_o + ys_p) else 1
    ab.set_ylim(max(0, lo - 0.2 * (hi - lo) - 10), hi + 0.45 * (hi - lo) + 10)
    ab.set_title("(c) partition time per bit (one pass ÷ d), µs — the paper's case for d = 8")
    ab.set_ylabel("µs per bit")
    # (d) our whole sort
    xs_s = [i for i, d in enumerate(widths) if ours.get(d, {}).get("sort")]
    ys_s = [ours[widths[i]]["sort"]["microseconds_median"] / 1000 for i in xs_s]
    asort.bar(xs_s, ys_s, 0.55, color=palette.OURS, zorder=3)
    for i, v in zip(xs_s, ys_s):
        r = ours[widths[i]]["sort"]
        asort.errorbar(i, v, yerr=[[v - r["microseconds_min"] / 1000], [r["microseconds_max"] / 1000 - v]],
                       color="black", lw=0.8, capsize=2, zorder=4)
        asort.annotate("%.2f ms\n%.1f GKey/s" % (v, r["n"] / (v / 1000) / 1e9), (i, r["microseconds_max"] / 1000),
                       xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=7.5)
    if ys_s:
        k = min(range(len(ys_s)), key=lambda j: ys_s[j])
        asort.bar([xs_s[k]], [ys_s[k]], 0.55, facecolor="none", edgecolor=palette.FAIL, lw=1.6, zorder=5)
        asort.set_ylim(0, max(ys_s) * 1.25)
    asort.set_title("(d) our whole sort (histogram + every pass), ms; the paper gives none")
    asort.set_ylabel("ms")
    labels = []
    for d in widths:
        o = ours.get(d, {}).get("partition")
        p = ref.get(d)
        labels.append("d = %d\n%s / %s passes" % (d, o["passes"] if o else "—",
                                                 int(float(p["partition_passes"])) if p else "—"))
    for ax in axes.flat:
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_xlim(-0.6, len(widths) - 0.4)
        ax.grid(axis="x", visible=False)
    handles = [Patch(facecolor=palette.OURS), Patch(facecolor="white", edgecolor=palette.OURS, hatch="///", ls="--"),
               Line2D([], [], **palette.line(OURS)), Line2D([], [], **palette.paper_line(OURS)),
               Line2D([], [], ls="", marker="o", ms=10, mfc="none", mec=palette.FAIL, mew=1.4)]
    labels = ["ours, %s (bar: median of %s; whisker: min–max)" % (gpu_short, rows[0]["reps"]),
              "paper, %s (hatched, dashed edge)" % paper_short, "ours, %s" % gpu_short, "paper, %s" % paper_short,
              "the cheapest digit width"]
    fig.suptitle("Onesweep paper Table 2 — histogram and partition cost vs digit width d, %s random uint32 keys: "
                 "ours on %s beside the paper's %s\n(x labels: passes per sort, ours / the paper's)"
                 % (size_text(rows[0]["n"]), gpu, paper_gpu), fontsize=10.5)
    fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bottom = min(a.get_tightbbox(renderer).y0 for a in axes[1])
    y0 = fig.transFigure.inverted().transform((0, bottom))[1]
    fig.legend(handles, labels, loc="upper center", ncol=3, bbox_to_anchor=(0.5, y0 - 0.005), framealpha=0.92)
    where = None if source is None or source.fresh else "recorded copy results/recorded/%s" % source.device
    footer(fig, sr.machine_label(meta, where) + "   |   paper: " + (paper[0].get("source") or "Table 2"))
    return save_figure(fig, out_dir, TABLE2)


def draw_sort_figures(results_dir, out_dir, recorded_root):
    """Draws every sort figure whose experiment has results (fresh, else recorded): Figs. 9-11,
    the sort_headline bar chart and Table 2 (onesweep_table2_digit_width). Returns (written
    paths, problems, notes); a figure without results is a note, not a problem."""
    written, problems, notes = [], [], []
    facts = load_facts()
    for name in list(SORT_EXPERIMENTS) + [HEADLINE] + list(SORT_TABLE_FIGURES):
        source = sr.gpu_source(results_dir, name, recorded_root)
        if source is None:
            notes.append("%s: not drawn, no GPU results (neither %s/%s.csv nor a recorded %s/<device>/%s.csv)"
                         % (name, results_dir, name, recorded_root, name))
            continue
        notes.append("%s from %s" % (name, "this run (%s)" % source.directory if source.fresh else
                                      "the recorded copy in %s" % source.directory))
        try:
            if name == TABLE2:
                rows, meta = load_table2_experiment(source.directory, name)
                written += draw_table2_figure(rows, meta, out_dir, source)
                continue
            rows, meta = load_sort_experiment(source.directory, name)
            if name == HEADLINE:
                written += draw_headline_figure(rows, meta, out_dir, source)
            else:
                written += draw_sort_figure(rows, meta, out_dir, name, source, facts)
        except sr.MissingInput as e:
            problems.append("%s not drawn: %s" % (name, e))
    # onepass::sort's choices, from Figs. 9 and 11 when they hold both of our sorts.
    panels = []
    for name, title in (("onesweep_fig09_keys32", "u32 keys (Fig. 9 run)"),
                        ("onesweep_fig11_keys64", "u64 keys (Fig. 11 run)")):
        source = sr.gpu_source(results_dir, name, recorded_root)
        if source is None:
            continue
        try:
            rows, meta = load_sort_experiment(source.directory, name)
        except sr.MissingInput:
            continue
        panels.append((title, rows, meta))
    drawn = draw_selector_figure(panels, out_dir) if panels else []
    written += drawn
    if panels and not drawn:
        notes.append("%s: not drawn, Figs. 9 / 11 hold no %s rows" % (SELECTOR_FIGURE, HYBRID))
    return written, problems, notes


# --------------------------------------------------------------------------- HRS (hybrid MSD)

HYBRID = "hybrid_msd"      # our hybrid MSD radix sort after HRS (Stehle & Jacobsen 2017)
SELECTOR = "onepass_sort"  # onepass::sort: onesweep or the hybrid sort, chosen per call
# The paper's HRS statements (§4/§5) compared on the figures' q = 1 series.
HRS_DROP_KEYS = 550_000_000


def _series(rows, algorithm, q=1, min_n=0):
    return sorted((int(r["n"]), float(r["keys_per_second"])) for r in rows
                  if r["algorithm"] == algorithm and int(r["q"]) == q and r["keys_per_second"]
                  and int(r["n"]) >= min_n)


def _median(values):
    values = sorted(values)
    if not values:
        return None
    m = len(values) // 2
    return values[m] if len(values) % 2 else 0.5 * (values[m - 1] + values[m])


def hybrid_statements(rows, q=1):
    """Numbers beside the paper's HRS statements, from one figure's rows at band q:
    advantage: median over n >= 2^SATURATING_LOG2 of hybrid / onesweep (keys/s) and how many
    sizes; drop: median hybrid keys/s for 2^27 <= n <= HRS_DROP_KEYS and above it, and their
    ratio (None when either side has no size); choppy: median |relative change| of keys/s
    between neighbouring sizes (n >= 2^20) for the hybrid sort and for onesweep."""
    hyb = dict(_series(rows, HYBRID, q))
    ones = dict(_series(rows, OURS, q))
    adv = [hyb[n] / ones[n] for n in hyb if n in ones and n >= 2 ** SATURATING_LOG2]
    below = [v for n, v in hyb.items() if 2 ** 27 <= n <= HRS_DROP_KEYS]
    above = [v for n, v in hyb.items() if n > HRS_DROP_KEYS]

    def choppy(series):
        pts = [(n, v) for n, v in sorted(series.items()) if n >= 2 ** 20]
        steps = [abs(b[1] / a[1] - 1) for a, b in zip(pts, pts[1:])]
        return _median(steps)

    mb, ma = _median(below), _median(above)
    return {"advantage": _median(adv), "advantage_sizes": len(adv),
            "drop_below": mb, "drop_above": ma, "drop_ratio": (ma / mb) if ma and mb else None,
            "choppy_hybrid": choppy(hyb), "choppy_onesweep": choppy(ones)}


def selector_choices(meta):
    """{(shape, n, q): algorithm} from meta.json's onepass_sort_choice ("shape n=N q=Q: algorithm;
    ..."); entries logged without a band (older runs: "shape n=N: algorithm") have q = None."""
    out = {}
    text = str(meta.get("onepass_sort_choice", ""))
    if ":" not in text:
        return out
    body = text.split("): ", 1)[1] if "): " in text else text
    for item in body.split(";"):
        item = item.strip()
        if " n=" not in item or ": " not in item:
            continue
        head, alg = item.rsplit(": ", 1)
        shape, rest = head.split(" n=", 1)
        n, _, q = rest.partition(" q=")
        try:
            out[(shape.strip(), int(n), int(q) if q.strip() else None)] = alg.strip()
        except ValueError:
            continue
    return out


def choice_at(choices, shape, n, q):
    """What onepass::sort ran at (shape, n, q) according to selector_choices, else None."""
    got = choices.get((shape, n, q))
    return got if got is not None else choices.get((shape, n, None))


# The project's targets for onepass::sort: onepass::sort (onepass_sort) / CUB (best) on sort_headline, same run.
SELECTOR_TARGETS = [
    ("u64 keys, q = 1, n = 2^28", "keys_u64", 1, 28, 28, 1.3),
    ("u64 + u64 pairs, q = 1, n = 2^28", "pairs_u64_u64", 1, 28, 28, 1.2),
]
# onepass_sort against the faster of ours (onesweep, hybrid_msd) at every point.
SELECTOR_KEEPS = 0.97


def selector_points(rows):
    """[{shape, q, n, onesweep, hybrid, selector, cub, best_ours, keeps, vs_cub}] at every point
    with onepass_sort and both of ours measured (keys/s; cub: CUB (best) or None);
    keeps = selector / max(onesweep, hybrid), vs_cub = selector / cub."""
    value = {(r["algorithm"], r["shape"], int(r["q"]), int(r["n"])): float(r["keys_per_second"])
             for r in rows if r["keys_per_second"]}
    best = cub_best(rows)
    out = []
    for (alg, shape, q, n), v in sorted(value.items()):
        if alg != SELECTOR:
            continue
        o, h = value.get((OURS, shape, q, n)), value.get((HYBRID, shape, q, n))
        if o is None or h is None:
            continue
        b = best.get((shape, q, n))
        cub = float(b["keys_per_second"]) if b else None
        out.append({"shape": shape, "q": q, "n": n, "onesweep": o, "hybrid": h, "selector": v, "cub": cub,
                    "best_ours": max(o, h), "keeps": v / max(o, h), "vs_cub": (v / cub) if cub else None})
    return out


SELECTOR_FIGURE = "sort_selector"


def draw_selector_figure(panels, out_dir):
    """onepass::sort's choice over (n, q): one panel per (title, rows, meta) in `panels` (Fig.
    9's u32 keys, Fig. 11's u64 keys); at each point measured with both of our sorts, the fill
    says which was faster there (blue: onesweep, amber: hybrid MSD) and the marker what
    onepass::sort ran (circle: onesweep, diamond: hybrid MSD; from meta.json). Returns the
    written paths (none when no panel has both sorts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    usable = []
    for title, rows, meta in panels:
        value = {(r["algorithm"], int(r["q"]), int(r["n"])): float(r["keys_per_second"]) for r in rows
                 if r["keys_per_second"]}
        pts = sorted({(q, n) for (a, q, n) in value if a == HYBRID} & {(q, n) for (a, q, n) in value if a == OURS})
        if pts:
            usable.append((title, rows, meta, value, pts))
    if not usable:
        return []
    # Fill by the faster sort: onesweep in our blue, the hybrid sort in amber (its palette
    # colour, the darkest blue, is hard to tell from ours at this marker size).
    faster_colour = {OURS: palette.colour(OURS), HYBRID: "#f0a30a"}
    fig, axes = plt.subplots(1, len(usable), figsize=(6.2 * len(usable), 3.9), squeeze=False)
    for ax, (title, rows, meta, value, pts) in zip(axes[0], usable):
        choices = selector_choices(meta)
        shape = rows[0]["shape"]
        bands = sorted({q for q, _ in pts})
        for q, n in pts:
            faster = HYBRID if value[(HYBRID, q, n)] > value[(OURS, q, n)] else OURS
            chose = choice_at(choices, shape, n, q)
            marker = "D" if chose == HYBRID else ("o" if chose == OURS else "x")
            ax.scatter(math.log2(n), bands.index(q), s=26, marker=marker, color=faster_colour[faster],
                       edgecolors="black" if chose and chose != faster else "none", linewidths=0.9, zorder=3)
        ax.set_yticks(range(len(bands)))
        ax.set_yticklabels(["q = %d" % q for q in bands])
        ax.set_xlabel("log2 n (keys)")
        ax.set_title(title, fontsize=10.5)
        ax.grid(True, axis="x", alpha=0.3)
    handles = [Line2D([], [], ls="", marker="s", color=faster_colour[OURS], label="faster: onesweep"),
               Line2D([], [], ls="", marker="s", color=faster_colour[HYBRID], label="faster: hybrid MSD"),
               Line2D([], [], ls="", marker="o", color="#777777", label="onepass::sort ran onesweep"),
               Line2D([], [], ls="", marker="D", color="#777777", label="onepass::sort ran hybrid MSD"),
               Line2D([], [], ls="", marker="o", color="white", markeredgecolor="black",
                      label="black edge: choice not the faster")]
    # Anchored in figure coordinates: without bbox_to_anchor the legend follows fig.bbox, which
    # savefig(bbox_inches="tight") widens to take in the footer, and it would sit on the footer.
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=8.5,
               framealpha=0.92)
    fig.suptitle("onepass::sort: which of our sorts was faster, and which one it ran", fontsize=11)
    fig.tight_layout(rect=(0, 0.13, 1, 0.95))
    footer(fig, sr.machine_label(usable[0][2], None))
    return save_figure(fig, out_dir, SELECTOR_FIGURE)


# --------------------------------------------------------------------------- small sorts (issue 33)

# sort_headline at the small sizes (issue 33: "Sorts below a million keys: at or above CUB (best)
# at every size"): `sort_headline --sizes-log2 12,...,21 --bands 1`, written as
# sort_headline_small.csv (a fresh run in the results directory) or recorded as
# results/recorded/<device>/sort_headline_small[-<commit>].csv.
SMALL = "sort_headline_small"
SMALL_SHAPES = ["keys_u32", "pairs_u32_u32", "keys_u64", "pairs_u64_u64"]  # the table rows
# The size bands (log2 n): [2^12, 2^14], [2^14, 2^16], [2^16, 2^18], [2^18, 2^20]. Each size
# belongs to one band: a band holds 2^lo <= n < 2^hi, and the last one also n = 2^hi (small_band).
SMALL_BANDS = [(12, 14), (14, 16), (16, 18), (18, 20)]
SMALL_MEDIAN_TARGET = 1.0   # the median of onepass_sort / CUB (best) in every band
SMALL_POINT_TARGET = 0.95   # onepass_sort / CUB (best) at every point from 2^12 to 2^20


def threshold_text(t):
    """A target's threshold as the issues write it: '1.0', '0.95'."""
    return "%.1f" % t if round(t, 1) == t else "%g" % t


def small_band(n, bands=SMALL_BANDS):
    """Index of the band of `bands` ((lo, hi) in log2 n) that holds size n, else None. A band holds
    2^lo <= n < 2^hi; the last band is closed (it holds n = 2^hi too), so every n from 2^lo of the
    first band to 2^hi of the last lies in exactly one band."""
    for i, (lo, hi) in enumerate(bands):
        if 2 ** lo <= n < 2 ** hi or (i == len(bands) - 1 and n == 2 ** hi):
            return i
    return None


def small_band_text(i, bands=SMALL_BANDS):
    """'[2^12, 2^14)' for a band, '[2^18, 2^20]' for the last (closed) one."""
    lo, hi = bands[i]
    return "[2^%d, 2^%d%s" % (lo, hi, "]" if i == len(bands) - 1 else ")")


def small_sorts(rows, ours=SELECTOR, q=1, shapes=SMALL_SHAPES, bands=SMALL_BANDS,
                median_target=SMALL_MEDIAN_TARGET, point_target=SMALL_POINT_TARGET):
    """Issue 33's table and verdicts from a sort_headline run's rows (load_sort_experiment).

    At each point (shape, band q, n) where `ours` and a CUB configuration were both measured,
    ratio = ours keys/s / CUB (best) keys/s (ratio_points: CUB (best) is the fastest `cub_*` row
    at that point). Points of band q (every band when q is None) with n in one of `bands`
    (small_band) are kept; other sizes are ignored. Rows of the table: `shapes` (the issue's four, reported even when absent), then any
    other shape measured (e.g. sort_headline's f32 keys); columns: one per band, "median (min)" of
    the ratios there, "—" where a band has no point. Only `shapes` carry targets: another shape
    gets its verdicts (its entry's "counted" is False) but adds nothing to "targets" or "below"
    (its points below point_target are in "below_other").

    Verdicts per shape, each 'met', 'not met' or 'not measured':
      median: the median ratio is >= median_target in every band ('not met' when a measured band
        misses it, else 'not measured' when a band has no point);
      points: every point's ratio is >= point_target ('not met' with the points below it, else
        'not measured' when a band has no point).

    Returns {"header": [...], "table": [[cell, ...], ...], "shapes": [{"shape", "cells" (per band:
    {"band", "median", "min", "points"}), "median_verdict", "failing" (band indices), "missing"
    (band indices), "point_verdict", "below" (points), "points", "counted"}], "below": every point
    below point_target of `shapes`, "below_other": those of the other shapes, "targets": [(what,
    verdict, lowest point or None, threshold, points)] in the form of
    paper/make_report.evaluate_targets (for targets_verdict)}."""
    points = [p for p in ratio_points(rows, ours) if q in (None, p["q"]) and small_band(p["n"], bands) is not None]
    measured = {p["shape"] for p in points} | {r["shape"] for r in rows
                                               if q in (None, r["q"]) and small_band(r["n"], bands) is not None}
    order = list(shapes) + [s for s in shape_order(measured) if s not in shapes]
    header = ["shape"] + [small_band_text(i, bands) for i in range(len(bands))]
    out = {"header": header, "table": [], "shapes": [], "below": [], "below_other": [], "targets": []}
    for shape in order:
        counted = shape in shapes
        own = [p for p in points if p["shape"] == shape]
        cells = []
        for i in range(len(bands)):
            sel = [p for p in own if small_band(p["n"], bands) == i]
            ratios = [p["ratio"] for p in sel]
            cells.append({"band": i, "points": sel, "median": _median(ratios), "min": min(ratios) if ratios else None})
        failing = [c["band"] for c in cells if c["median"] is not None and c["median"] < median_target]
        missing = [c["band"] for c in cells if c["median"] is None]
        below = [p for p in own if p["ratio"] < point_target]
        median_verdict = "not met" if failing else ("not measured" if missing else "met")
        point_verdict = "not met" if below else ("not measured" if missing else "met")
        out["shapes"].append({"shape": shape, "cells": cells, "failing": failing, "missing": missing,
                              "median_verdict": median_verdict, "below": below, "point_verdict": point_verdict,
                              "points": own, "counted": counted})
        out["below" if counted else "below_other"].extend(below)
        row = [SHAPE_DISPLAY.get(shape, shape)]
        for c in cells:
            if c["median"] is None:
                row.append("—")
                continue
            med = fmt_ratio(c["median"], median_target)
            low = fmt_ratio(c["min"], point_target)
            row.append("%s (%s)" % ("**%s**" % med if c["median"] < median_target else med,
                                    "**%s**" % low if c["min"] < point_target else low))
        out["table"].append(row)
        if not counted:
            continue  # shown, not one of the targets' shapes
        name = SHAPE_DISPLAY.get(shape, shape)
        span = "2^%d to 2^%d" % (bands[0][0], bands[-1][1])
        measured_cells = [c for c in cells if c["median"] is not None]
        low_band = min(measured_cells, key=lambda c: c["median"]) if measured_cells else None
        out["targets"].append(("%s: median ≥ %s in every band from %s" % (name, threshold_text(median_target), span),
                               median_verdict,
                               None if low_band is None else {"ratio": low_band["median"], "band": low_band["band"]},
                               median_target, own))
        out["targets"].append(("%s: ≥ %s at every point from %s" % (name, threshold_text(point_target), span),
                               point_verdict,
                               min(own, key=lambda p: p["ratio"]) if own else None, point_target, own))
    return out


def figure_small_bands(rows, ours=SELECTOR, bands=SMALL_BANDS, median_target=SMALL_MEDIAN_TARGET,
                       point_target=SMALL_POINT_TARGET):
    """Issue 33's table and targets over every entropy band q of one Onesweep figure run (Figs.
    9–11: onesweep_fig09_keys32, onesweep_fig10_pairs32, onesweep_fig11_keys64; rows as
    load_sort_experiment returns them), the way the issue's own table was computed.

    ratio = ours keys/s / CUB (best) keys/s at each point (shape, q, n) where both were measured
    (ratio_points). Per shape in the run and per size band of `bands` (small_band: 2^lo <= n < 2^hi,
    the last band closed), the median and min of the ratios over every q and every n of the band
    (small_sorts with q = None; sizes outside the bands are ignored).

    Disturbed point (the issue: "a row where our sort and CUB's both run at less than half their
    neighbours' rate"): in the series of one (shape, q), sorted by n over every measured size of the
    run (not only the bands), a point's neighbours are the previous and the next measured n (at the
    smallest or largest n only the one neighbour; a series of one point has none and nothing in it
    is disturbed). The point is disturbed when ours' keys/s is below half of each neighbour's ours
    keys/s AND CUB (best)'s keys/s is below half of each neighbour's CUB (best) keys/s (CUB (best)
    taken at each size, so the configuration may differ between neighbours).

    Verdicts per shape, each 'met', 'not met' or 'not measured' (no `ours` rows, or a band without
    a point):
      median_verdict: the median is >= median_target in every band (as small_sorts);
      point_verdict: every point that is not disturbed is >= point_target.

    Returns small_sorts' {"header", "table", "shapes"} (one row / entry per shape measured in the
    run) where each shape also has "set_aside" (its disturbed points below point_target) and every
    point also "disturbed" (bool) and "spread" (ours' seconds_max / seconds_min at that point: how
    far ours' own timed runs scatter; None without both timings); "below": every point below
    point_target, disturbed or not (the table's minima count disturbed points too); "targets":
    [(what, verdict, lowest point or None, threshold, points)] per shape (median, then points not
    disturbed), for paper/sort_section.targets_verdict.
    Source: issue 33 ("Sorts below a million keys: at or above CUB (best) at every size")."""
    res = small_sorts(rows, ours, None, (), bands, median_target, point_target)
    series = {}
    for p in ratio_points(rows, ours):
        series.setdefault((p["shape"], p["q"]), []).append(p)  # sorted by n
    near = {}
    for pts in series.values():
        for i, p in enumerate(pts):
            near[(p["shape"], p["q"], p["n"])] = pts[max(i - 1, 0):i] + pts[i + 1:i + 2]
    timed = {(r["shape"], r["q"], r["n"]): r for r in rows if r["algorithm"] == ours}
    span = "2^%d to 2^%d" % (bands[0][0], bands[-1][1])
    res["targets"] = []
    for s in res["shapes"]:
        for p in s["points"]:
            key = (p["shape"], p["q"], p["n"])
            nbs = near.get(key, [])
            p["disturbed"] = bool(nbs) and all(p["ours"] < 0.5 * b["ours"] and p["best"] < 0.5 * b["best"]
                                               for b in nbs)
            r = timed[key]
            p["spread"] = r["seconds_max"] / r["seconds_min"] if r.get("seconds_min") and r.get("seconds_max") else None
        s["set_aside"] = [p for p in s["below"] if p["disturbed"]]
        kept = [p for p in s["points"] if not p["disturbed"]]
        s["point_verdict"] = ("not met" if len(s["set_aside"]) < len(s["below"]) else
                              "not measured" if s["missing"] else "met")
        name = SHAPE_DISPLAY.get(s["shape"], s["shape"])
        low_band = min((c for c in s["cells"] if c["median"] is not None), key=lambda c: c["median"], default=None)
        res["targets"].append(("%s: median ≥ %s in every band from %s" % (name, threshold_text(median_target), span),
                               s["median_verdict"],
                               None if low_band is None else {"ratio": low_band["median"], "band": low_band["band"]},
                               median_target, s["points"]))
        res["targets"].append(("%s: ≥ %s at every point from %s that is not disturbed"
                               % (name, threshold_text(point_target), span),
                               s["point_verdict"], min(kept, key=lambda p: p["ratio"], default=None), point_target,
                               kept))
    return res


def small_runs(results_dir, recorded_root):
    """[(csv path, device or None)] of the small-size sort_headline runs, the one to report first:
    a fresh results_dir/sort_headline_small.csv (device None) when it exists, then every
    recorded_root/<device>/sort_headline_small[-<commit>].csv, newest first by its meta.json
    date (a run without one by its CSV's modification time), then by path."""
    fresh = os.path.join(results_dir, SMALL + ".csv")
    out = [(fresh, None)] if os.path.isfile(fresh) else []
    found = []
    if recorded_root and os.path.isdir(recorded_root):
        for device in sorted(os.listdir(recorded_root)):
            d = os.path.join(recorded_root, device)
            if not os.path.isdir(d):
                continue
            for f in sorted(os.listdir(d)):
                if f.endswith(".csv") and (f == SMALL + ".csv" or f.startswith(SMALL + "-")):
                    found.append((os.path.join(d, f), device))
    found.sort(key=lambda hit: (run_date(hit[0]), hit[0]), reverse=True)
    return out + found


def run_date(csv_path):
    """The meta.json date beside a CSV (ISO text), else the CSV's modification time as such text."""
    return sr._measured_date(os.path.dirname(csv_path) or ".", os.path.basename(csv_path)[:-len(".csv")])


def load_sort_csv(csv_path):
    """(rows, meta) of a sort CSV and the meta.json beside it (load_sort_experiment)."""
    return load_sort_experiment(os.path.dirname(csv_path) or ".", os.path.basename(csv_path)[:-len(".csv")])
