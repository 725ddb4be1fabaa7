"""Reading and drawing the Onesweep sort experiments (Adinets & Merrill, "Onesweep: A Faster
Least Significant Digit Radix Sort for GPUs", §4: Figs. 9–11, Tables 1–2).

Shared by figures/plot_all.py (draw_sort_figures), paper/make_report.py (the Onesweep
section) and scripts/check_outputs.py (SORT_GPU_FIGURES), like shuffle_results.py is for
the shuffle paper. The reading part is standard library only; matplotlib is imported only
by the drawing functions.

The sort experiments are GPU programs (experiments/onesweep_*.cu). `make figures` runs them
only on a machine with a GPU; elsewhere the figures and the report use the newest copy
recorded on a GPU under results/recorded/<device>/ (shuffle_results.gpu_source), and a
figure whose experiment has neither is skipped with a note (not an error).
"""

import csv
import os

import shuffle_results as sr
from figure_files import save_figure

# The CSV contract of experiments/common/sort_bench.cu (one row per algorithm, size and band).
SORT_COLUMNS = ["algorithm", "label", "shape", "q", "n", "log2_n", "reps", "seconds_median", "seconds_min",
                "seconds_max", "keys_per_second"]
SORT_EXPERIMENTS = {
    # experiment: (paper figure number, what is sorted)
    "onesweep_fig09_keys32": (9, "32-bit keys only"),
    "onesweep_fig10_pairs32": (10, "32-bit keys + 32-bit values"),
    "onesweep_fig11_keys64": (11, "64-bit keys only"),
}
# Figures drawn from GPU runs (fresh or recorded), each named like its experiment.
SORT_GPU_FIGURES = {name: name for name in SORT_EXPERIMENTS}
SORT_GPU_SCHEMAS = {name: SORT_COLUMNS for name in SORT_EXPERIMENTS}

BANDS = [1, 2, 3, 4, 8, 16]

# Display names and colours by registry name; unknown algorithms keep their label.
DISPLAY = {
    "onesweep": "onesweep (ours)",
    "cub_onesweep": "CUB onesweep (cub::DeviceRadixSort)",
    "cub_reduce_then_scan": "CUB reduce-then-scan (CUB 1.10 style)",
    "thrust_sort": "thrust::sort",
    "vren": "VREN (4-bit, ported)",
}
COLOURS = {
    "onesweep": "#1f77b4", "cub_onesweep": "#2ca02c", "cub_reduce_then_scan": "#ff7f0e",
    "thrust_sort": "#9467bd", "vren": "#8c564b",
}
ORDER = ["onesweep", "cub_onesweep", "cub_reduce_then_scan", "thrust_sort", "vren"]
# "Saturating problem sizes" (paper §4) for the summary numbers: n >= 2^SATURATING_LOG2.
SATURATING_LOG2 = 26


def display(algorithm, label=""):
    return DISPLAY.get(algorithm) or label or algorithm


def colour(algorithm, index=0):
    extra = ["#17becf", "#bcbd22", "#7f7f7f", "#e377c2", "#d62728"]
    return COLOURS.get(algorithm, extra[index % len(extra)])


def ordered_algorithms(rows):
    found = {r["algorithm"] for r in rows}
    return [a for a in ORDER if a in found] + sorted(found - set(ORDER))


def load_sort_experiment(directory, name):
    """(rows, meta) of a sort experiment; raises sr.MissingInput when absent or malformed."""
    rows, meta = sr.load_experiment(directory, name, SORT_COLUMNS)
    for r in rows:  # q and n are integers, read as numbers by shuffle_results
        r["q"] = int(r["q"])
        r["n"] = int(r["n"])
    return rows, meta


def sort_sources(results_dir, recorded_root):
    """{experiment: GpuSource} for the sort experiments that have results, fresh or recorded."""
    out = {}
    for name in SORT_EXPERIMENTS:
        source = sr.gpu_source(results_dir, name, recorded_root)
        if source is not None:
            out[name] = source
    return out


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


# --------------------------------------------------------------------------- drawing

def draw_sort_figure(rows, meta, out_dir, name, source, facts=None):
    """Fig. 9/10/11-style chart: GKey/s vs problem size (log x), one panel per entropy band,
    one series per registered GPU sort; the paper's stated A100 numbers as dashed lines
    (Fig. 9: 29.4 GKey/s at q = 1, 28 at q = 8, 36 at q = 16)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig_no, what = SORT_EXPERIMENTS[name]
    facts = facts if facts is not None else load_facts()
    bands = [q for q in BANDS if any(r["q"] == q for r in rows)]
    bands += sorted({r["q"] for r in rows} - set(bands))
    if not bands:
        raise sr.MissingInput("%s.csv has no rows" % name)
    algorithms = ordered_algorithms(rows)
    cols = 3 if len(bands) > 2 else len(bands)
    nrows = (len(bands) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.6 * cols, 3.5 * nrows), squeeze=False, sharex=True, sharey=True)
    paper_lines = {}
    if fig_no == 9:
        for q, key in ((1, "keys32_q1_gkeys"), (8, "keys32_q8_gkeys"), (16, "keys32_q16_gkeys")):
            if facts.get(key, {}).get("number"):
                paper_lines[q] = facts[key]["number"]
    handles = {}
    for k, q in enumerate(bands):
        ax = axes[k // cols][k % cols]
        for i, alg in enumerate(algorithms):
            pts = sorted((r["n"], r["keys_per_second"] / 1e9) for r in rows if r["algorithm"] == alg and r["q"] == q)
            if not pts:
                continue
            label = display(alg, next((r["label"] for r in rows if r["algorithm"] == alg), ""))
            (h,) = ax.plot([n for n, _ in pts], [v for _, v in pts], "-", marker="o", ms=2.5, lw=1.1,
                           color=colour(alg, i), label=label)
            handles.setdefault(label, h)
        if q in paper_lines:
            h = ax.axhline(paper_lines[q], color="#555555", ls="--", lw=1.0,
                           label="paper: Onesweep on A100 (text of §4)")
            handles.setdefault("paper: Onesweep on A100 (text of §4)", h)
            ax.text(2 ** 12.2, paper_lines[q], " %.1f" % paper_lines[q], va="bottom", fontsize=7.5, color="#555555")
        ax.set_xscale("log", base=2)
        ax.set_title("q = %d (AND of %d uniform word%s)" % (q, q, "" if q == 1 else "s"), fontsize=9.5)
        ax.grid(True, alpha=0.3)
        if k % cols == 0:
            ax.set_ylabel("GKey/s")
        if k // cols == nrows - 1:
            ax.set_xlabel("problem size n (keys)")
    for k in range(len(bands), nrows * cols):
        axes[k // cols][k % cols].set_visible(False)
    gpu = meta.get("gpu_name") or (("device '%s'" % source.device) if source and source.device else "the GPU")
    fig.suptitle("Onesweep paper Fig. %d — %s sorting throughput on %s (%s)"
                 % (fig_no, what, gpu, "this run" if (source is None or source.fresh) else "recorded run"),
                 fontsize=11)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=min(3, len(handles)),
               bbox_to_anchor=(0.5, -0.02 - 0.035 * ((len(handles) + 2) // 3)), framealpha=0.92, fontsize=8.5)
    fig.tight_layout(rect=(0, 0.02, 1, 0.96))
    where = None if source is None or source.fresh else "recorded copy results/recorded/%s" % source.device
    fig.text(0.005, -0.03 - 0.035 * ((len(handles) + 2) // 3) - 0.03, sr.machine_label(meta, where) +
             "   |   paper: A100-80GB-SXM, 1000 sizes per band, its Figs. %d shown only as the numbers its text "
             "states" % fig_no, fontsize=7, color="#555555", ha="left", va="top")
    return save_figure(fig, out_dir, name)


def draw_sort_figures(results_dir, out_dir, recorded_root):
    """Draws every sort figure whose experiment has results (fresh, else recorded).
    Returns (written paths, problems, notes); a figure without results is a note, not a problem."""
    written, problems, notes = [], [], []
    facts = load_facts()
    for name in SORT_EXPERIMENTS:
        source = sr.gpu_source(results_dir, name, recorded_root)
        if source is None:
            notes.append("%s: not drawn, no GPU results (neither %s/%s.csv nor a recorded %s/<device>/%s.csv)"
                         % (name, results_dir, name, recorded_root, name))
            continue
        notes.append("%s from %s" % (name, "this run (%s)" % source.directory if source.fresh else
                                      "the recorded copy in %s" % source.directory))
        try:
            rows, meta = load_sort_experiment(source.directory, name)
            written += draw_sort_figure(rows, meta, out_dir, name, source, facts)
        except sr.MissingInput as e:
            problems.append("%s not drawn: %s" % (name, e))
    return written, problems, notes
