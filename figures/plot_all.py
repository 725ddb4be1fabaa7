#!/usr/bin/env python3
"""Draws every shuffle figure of the reproduction from the experiments' CSVs.

    plot_all.py --results DIR --out DIR [--recorded DIR]

Reads DIR/<experiment>.csv and DIR/<experiment>.meta.json (columns: see
figures/shuffle_results.py SCHEMAS) and writes <figure>.png and <figure>.pdf to --out:

    fig06_chi2_rounds   χ² vs VariablePhilox rounds, n = 5 (paper §5, Fig. 6)
    fig07_mmd_n5        |MMD²| vs rounds, n = 5 (Fig. 7)
    fig08_mmd_n100      |MMD²| vs rounds, n = 100 (Fig. 8)
    fig09_mmd_n1000     |MMD²| vs rounds, n = 1000 (Fig. 9)
    fig12_cpu_shuffle   CPU throughput vs size, ours beside the paper's Table 2 (Fig. 12)

GPU figures come from the GPU experiments' CSVs in DIR when present (a run on a machine
with a GPU), else from the newest copy recorded on a GPU, --recorded DIR/<device>/
(default: DIR/recorded, else the repository's results/recorded); each is skipped with a
note while neither exists:

    fig10_fusion        Bijective0/1/2 and gather throughput vs size, worst and best case (Fig. 10)
    fig11_gpu_shuffle   GPU throughput vs size beside the paper's Table 1 (Fig. 11)

and, for the Onesweep paper (figures/sort_results.py), one figure per sort experiment:

    onesweep_fig09_keys32   GKey/s vs size, uint32 keys, one panel per entropy band (Fig. 9);
                            ours and CUB (best) bold, each CUB configuration thin
    onesweep_fig10_pairs32  the same for uint32 keys + uint32 values (Fig. 10)
    onesweep_fig11_keys64   the same for uint64 keys (Fig. 11)
    sort_headline           ours / CUB (best) per shape, band and size, with issue 11's targets
                            (experiment sort_headline; skipped with a note while it has no results)

A missing or malformed CPU CSV, or a malformed GPU CSV, is reported and the script exits
with status 1 after drawing what it can. Every figure is labelled with the machine from
its meta.json (and, for GPU figures, whether it is this run or a recorded copy).
Adding a figure is one function plus one entry in CPU_FIGURES_DRAWN or GPU_FIGURES_DRAWN.
"""

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shuffle_results as sr  # noqa: E402
from figure_files import save_figure  # noqa: E402
import sort_results  # noqa: E402
import gaussian_results  # noqa: E402  (warp Gaussian figures, issue 5)

plt.rcParams.update({
    "font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 8.5,
    "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.6, "figure.dpi": 100,
    "savefig.dpi": 150, "pdf.fonttype": 42,
})
PASS_COLOUR = sr.COLOURS["VarPhilox"]
FAIL_COLOUR = "#d62728"


# --------------------------------------------------------------------------- helpers

def _footer(fig, text):
    """Writes the provenance line under everything drawn so far (axes, tick labels, legends)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bottom = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes)
    to_fig = fig.transFigure.inverted()
    y = to_fig.transform((0, bottom))[1]
    fig.text(0.005, y - 0.015, text, fontsize=7.5, color="#555555", ha="left", va="top")


_save = save_figure


def _rounds_rows(rows, **match):
    """VariablePhilox rows matching the given column values, sorted by rounds."""
    sel = [r for r in rows if r["algorithm"] == "variable_philox" and r["rounds"] is not None
           and all(r[k] == v for k, v in match.items())]
    return sorted(sel, key=lambda r: r["rounds"])


def _single(rows, algorithm, **match):
    sel = [r for r in rows if r["algorithm"] == algorithm and all(r[k] == v for k, v in match.items())]
    return sel[0] if sel else None


def _mark_rounds(ax, facts):
    """Faint vertical lines at the paper's ≈20 (first passing) and 24 (recommended) rounds."""
    first = facts.get("chi2_min_passing_rounds", {}).get("number")
    rec = facts.get("recommended_rounds", {}).get("number")
    if first:
        ax.axvline(first, color="#999999", lw=0.9, ls=":", zorder=0,
                   label="paper: fails below ≈%d rounds" % first)
    if rec:
        ax.axvline(rec, color="#999999", lw=0.9, ls="--", zorder=0,
                   label="paper: %d rounds recommended" % rec)


def _legend_below(ax, ncol=2):
    # Anchored at the axes' bottom edge and pushed below the tick and axis labels by a
    # distance in font sizes, so the gap does not depend on the axes' height.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, framealpha=0.92,
              borderaxespad=3.6)


def _pass_fail_points(ax, x, y, ok, label, passes="passes", fails="fails"):
    x, y, ok = np.asarray(x), np.asarray(y), np.asarray(ok, dtype=bool)
    ax.plot(x, y, "-", color=PASS_COLOUR, lw=1.2, zorder=2)
    ax.plot(x[ok], y[ok], "o", color=PASS_COLOUR, ms=4.5, zorder=3, label="%s, %s" % (label, passes))
    if (~ok).any():
        ax.plot(x[~ok], y[~ok], "o", mfc="white", mec=FAIL_COLOUR, mew=1.3, ms=5, zorder=3,
                label="%s, %s" % (label, fails))


# --------------------------------------------------------------------------- Fig. 6

def draw_fig06(results, facts, out_dir):
    """χ² statistic vs VariablePhilox rounds at n = 5 with the α critical value (paper Fig. 6)."""
    rows, meta = results["fig06_chi2_rounds"]
    vp = _rounds_rows(rows)
    if not vp:
        raise sr.MissingInput("fig06_chi2_rounds.csv has no variable_philox rows")
    x = [r["rounds"] for r in vp]
    y = [max(r["statistic"], 1e-3) for r in vp]
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    _pass_fail_points(ax, x, y, [r["passes"] == 1 for r in vp], "VariablePhilox")
    crit = vp[0]["critical_value"]
    ax.axhline(crit, color="black", ls="--", lw=1.1,
               label="critical value %.1f (α = %g)" % (crit, vp[0]["alpha"]))
    std = _single(rows, "std_shuffle")
    if std:
        ax.axhline(std["statistic"], color=sr.COLOURS["std::shuffle"], ls=":", lw=1.4,
                   label="std::shuffle: χ² = %s (%s)" % (sr.fmt_num(std["statistic"]),
                                                       "passes" if std["passes"] else "fails"))
    lcg = _single(rows, "lcg")
    ax.set_yscale("log")
    if lcg:
        paper_lcg = facts.get("lcg_chi2_statistic", {}).get("number")
        text = "LCG: χ² = %s (%s)" % (sr.fmt_num(lcg["statistic"]), "passes" if lcg["passes"] else "fails")
        if paper_lcg:
            text += "; paper: ≈%s at 10⁶ samples" % sr.fmt_num(paper_lcg)
        lo, hi = min(y + [crit]), max(y + [crit])
        if lo <= lcg["statistic"] <= hi:
            ax.axhline(lcg["statistic"], color=sr.COLOURS["LCG"], lw=1.4, label=text)
        else:  # off scale, as in the paper: stated in the legend only
            ax.plot([], [], "^", color=sr.COLOURS["LCG"], label=text + " — off scale")
    _mark_rounds(ax, facts)
    ax.set_xlabel("VariablePhilox rounds")
    ax.set_ylabel("χ² statistic (log scale)")
    ax.set_xlim(0, max(x) + 1)
    ax.set_title("Fig. 6 — χ² statistic vs. rounds: n = %d (%d permutations), %s samples per point%s"
                 % (vp[0]["n"], _factorial(vp[0]["n"]), "{:,}".format(vp[0]["samples"]),
                    _paper_samples(facts, "chi2_samples")))
    _legend_below(ax)
    _footer(fig, sr.machine_label(meta))
    return _save(fig, out_dir, "fig06_chi2_rounds")


def _paper_samples(facts, key):
    """' (paper: 1,000,000)' from the reference facts, or '' when the fact is absent."""
    number = facts.get(key, {}).get("number")
    return " (paper: {:,})".format(int(number)) if number else ""


def _factorial(n):
    out = 1
    for k in range(2, n + 1):
        out *= k
    return out


# --------------------------------------------------------------------------- Figs. 7–9

FORM_TITLES = {"one_sample": "one-sample form: kernel between each sample and the identity",
               "pairwise": "pairwise form: kernel between consecutive pairs of samples"}


def draw_mmd(results, facts, out_dir, name, n):
    """|MMD²| vs VariablePhilox rounds at one n, one panel per form (paper Figs. 7–9)."""
    rows, meta = results["fig07_09_mmd"]
    at_n = [r for r in rows if r["n"] == n]
    if not at_n:
        raise sr.MissingInput("fig07_09_mmd.csv has no rows for n = %d (needed by %s)" % (n, name))
    forms = [f for f in ("one_sample", "pairwise") if any(r["form"] == f for r in at_n)]
    forms += sorted({r["form"] for r in at_n} - set(forms))
    fig, axes = plt.subplots(1, len(forms), figsize=(6.2 * len(forms), 4.6), squeeze=False)
    for ax, form in zip(axes[0], forms):
        vp = _rounds_rows(at_n, form=form)
        if not vp:
            raise sr.MissingInput("fig07_09_mmd.csv has no variable_philox rows for n = %d, form %s" % (n, form))
        x = np.array([r["rounds"] for r in vp])
        stats = np.array([r["statistic"] for r in vp], dtype=float)
        positives = np.concatenate([stats[stats > 0], [r["statistic"] for r in at_n if r["statistic"] > 0]])
        floor = positives.min() / 3 if positives.size else 1e-12
        ok = [r["passes_hoeffding"] == 1 and r["passes_normal"] == 1 for r in vp]
        _pass_fail_points(ax, x, np.maximum(stats, floor), ok, "VariablePhilox",
                          "passes both tests", "fails a test")
        ax.plot(x, [r["hoeffding_threshold"] for r in vp], color="black", ls="--", lw=1.1,
                label="Hoeffding threshold (α = %g)" % vp[0]["alpha"])
        ax.plot(x, [r["normal_threshold"] for r in vp], color="#555555", ls="-.", lw=1.1,
                label="normal (CLT) threshold (α = %g)" % vp[0]["alpha"])
        for alg, lab, ls in (("lcg", "LCG", "-"), ("std_shuffle", "std::shuffle", ":")):
            r = _single(at_n, alg, form=form)
            if r:
                verdict = ("passes both" if r["passes_hoeffding"] and r["passes_normal"] else
                           "fails both" if not (r["passes_hoeffding"] or r["passes_normal"]) else
                           "fails %s" % ("Hoeffding" if not r["passes_hoeffding"] else "normal"))
                ax.axhline(max(r["statistic"], floor), color=sr.COLOURS[lab], ls=ls, lw=1.5,
                           label="%s: %s (%s)" % (lab, sr.fmt_num(r["statistic"]), verdict))
        ax.set_yscale("log")
        _mark_rounds(ax, facts)
        ax.set_xlim(0, max(x) + 1)
        ax.set_xlabel("VariablePhilox rounds")
        ax.set_ylabel("|MMD²| estimate (log scale)")
        ax.set_title(FORM_TITLES.get(form, form))
        _legend_below(ax)
    fig_no = {5: 7, 100: 8, 1000: 9}.get(n, "")
    fig.suptitle("Fig. %s — |MMD²| statistic vs. rounds, n = %d (Mallows kernel λ = %g, %s samples per point%s)"
                 % (fig_no, n, at_n[0]["lambda"], "{:,}".format(at_n[0]["samples"]),
                    _paper_samples(facts, "mmd_samples").replace(" (", "; ").rstrip(")")), fontsize=11)
    fig.tight_layout()
    _footer(fig, sr.machine_label(meta))
    return _save(fig, out_dir, name)


# --------------------------------------------------------------------------- throughput (Fig. 12, Fig. 11)

def draw_throughput(rows, meta, reference_file, title, out_dir, name, name_of=None, where=None, markers=None):
    """Throughput (M items/s) vs input size, log–log, one solid line per measured series;
    the paper's published numbers (reference_file) as faint dashed lines of the same colour.
    name_of(row): series name (default: the paper label); where: appended to the footer;
    markers: {series label: matplotlib marker} (default "o")."""
    ref, ref_order, ref_rows = sr.load_reference_table(reference_file)
    series = sr.throughput_series(rows, name_of)
    labels_order = ref_order + sorted({s["label"] for s in series.values()} - set(ref_order))
    fig, ax = plt.subplots(figsize=(8.4, 5.0))
    extra = 0
    colours = {}
    for lab in labels_order:
        if lab not in sr.COLOURS:
            colours[lab] = sr.colour(lab, extra)
            extra += 1
        else:
            colours[lab] = sr.COLOURS[lab]
    sizes = set()
    for sname in sorted(series, key=lambda s: (labels_order.index(series[s]["label"]), s)):
        s = series[sname]
        ws = sorted(s["points"])
        sizes.update(ws)
        if "thr)" in sname or not s["threads"] or s["threads"] <= 0:  # GPU runs record no thread count
            legend = sname
        else:
            legend = "%s (%d thread%s)" % (sname, s["threads"], "" if s["threads"] == 1 else "s")
        ax.plot([2.0 ** w + 1 for w in ws], [s["points"][w] for w in ws], "-", marker=(markers or {}).get(
            s["label"], "o"), ms=4, lw=1.6, color=colours[s["label"]], label=legend)
    measured_labels = {s["label"] for s in series.values()}
    for lab in ref_order:
        ws = sorted(ref[lab])
        sizes.update(ws)
        ax.plot([2.0 ** w + 1 for w in ws], [ref[lab][w] for w in ws], "--", lw=1.1, alpha=0.45,
                color=colours[lab],
                label=None if lab in measured_labels else "%s (paper only)" % lab)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted(sizes)
    ax.set_xticks([2.0 ** w + 1 for w in ticks])
    ax.set_xticklabels(["$2^{%d}$+1" % w for w in ticks])
    ax.minorticks_off()
    ax.set_xlabel("input size n (64-bit items)")
    ax.set_ylabel("throughput (million items/s, log scale)")
    ax.set_title(title)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="#777777", ls="--", alpha=0.6))
    labels.append("dashed: paper (%s)" % ref_rows[0]["machine"])
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), framealpha=0.92)
    _footer(fig, sr.machine_label(meta, where) + "   |   paper: %s" % ref_rows[0]["source"])
    return _save(fig, out_dir, name)


def draw_fig12(results, facts, out_dir):
    """CPU shuffle throughput vs size beside the paper's Table 2 (Fig. 12)."""
    rows, meta = results["table2_cpu_shuffle"]
    return draw_throughput(rows, meta, "shuffle_table2_cpu.csv",
                           "Fig. 12 — CPU shuffling throughput (solid: this run, dashed: paper Table 2)",
                           out_dir, "fig12_cpu_shuffle")


def _where(source):
    """Footer text saying whether a GPU figure shows this run or a recorded copy."""
    if source.fresh:
        return "this run"
    return "recorded copy results/recorded/%s" % source.device


def _gpu_name(meta, source):
    return meta.get("gpu_name") or ("device '%s'" % source.device if source.device else "the GPU")


def draw_fig11_gpu(rows, meta, facts, out_dir, source):
    """GPU shuffle throughput vs size beside the paper's Table 1 (Fig. 11)."""
    return draw_throughput(rows, meta, "shuffle_table1_gpu.csv",
                           "Fig. 11 — GPU shuffling throughput on %s (solid: %s, dashed: paper Table 1)"
                           % (_gpu_name(meta, source), "this run" if source.fresh else "recorded run"),
                           out_dir, "fig11_gpu_shuffle", name_of=sr.gpu_name_of(rows), where=_where(source),
                           markers=GPU_MARKERS)


# Markers that tell apart the GPU series the paper does not have (its five keep "o").
GPU_MARKERS = {"Gather (index array)": "D", "VarPhilox Bijective0": "s", "VarPhilox Bijective1": "^",
               "thrust::shuffle_copy": "v", "randperm+gather": "P"}


FUSION_STYLE = [  # (algorithm, case, legend, colour, line style, marker)
    ("variable_philox_bijective0", "worst", "Bijective0 (separate passes)", "#9ecae1", "-", "s"),
    ("variable_philox_bijective1", "worst", "Bijective1 (fused, two-pass scan)", "#4292c6", "-", "^"),
    ("variable_philox", "worst", "Bijective2 (fused, single-pass look-back scan)", sr.COLOURS["VarPhilox"], "-", "o"),
    ("variable_philox", "best", "Bijective2 (n = m, best case)", sr.COLOURS["VarPhilox"], "--", "o"),
    ("gather", "worst", "gather (random gather, upper bound)", sr.COLOURS["Gather"], "-", "D"),
]


def draw_fig10(rows, meta, facts, out_dir, source):
    """Throughput of the three fusion levels of the VariablePhilox shuffle and of the random
    gather vs size (paper Fig. 10); below, each relative to gather at the same size."""
    fig, (ax, axr) = plt.subplots(2, 1, figsize=(8.4, 6.6), sharex=True, gridspec_kw={"height_ratios": [3, 1.3]})
    styled = {(a, c) for a, c, *_ in FUSION_STYLE}
    extra = sorted({(r["algorithm"], r["case"]) for r in rows if r["case"] == "worst"} - styled)
    styles = FUSION_STYLE + [(a, c, "%s (%s case)" % (a, c), sr.colour(a, i), "-", "x")
                             for i, (a, c) in enumerate(extra)]
    gather = {r["log2_size"]: r["items_per_second"] for r in rows if r["algorithm"] == "gather" and r["case"] == "worst"}
    sizes, drawn = set(), 0
    for alg, case, legend, colour, ls, marker in styles:
        pts = sorted((r["log2_size"], r["n"], r["items_per_second"]) for r in rows
                     if r["algorithm"] == alg and r["case"] == case)
        if not pts:
            continue
        drawn += 1
        sizes.update(w for w, _, _ in pts)
        ax.plot([n for _, n, _ in pts], [v / 1e6 for _, _, v in pts], ls=ls, marker=marker, ms=4, lw=1.5,
                mfc="white" if ls == "--" else colour, color=colour, label=legend)
        if alg != "gather":
            rel = [(n, v / gather[w]) for w, n, v in pts if gather.get(w)]
            if rel:
                axr.plot([n for n, _ in rel], [x for _, x in rel], ls=ls, marker=marker, ms=3.5, lw=1.2,
                         mfc="white" if ls == "--" else colour, color=colour)
    if not drawn:
        plt.close(fig)
        raise sr.MissingInput("fig10_fusion.csv has none of the algorithms of Fig. 10")
    axr.axhline(1.0, color=sr.COLOURS["Gather"], lw=1.0)
    axr.axhline(0.9, color="#999999", lw=0.9, ls=":", label="0.9 × gather")
    axr.legend(loc="lower right", framealpha=0.92)
    for a in (ax, axr):
        a.set_xscale("log", base=2)
        a.minorticks_off()
    ax.set_yscale("log")
    ticks = sorted(sizes)
    step = max(1, (len(ticks) + 11) // 12)  # at most about 12 tick labels
    axr.set_xticks([2.0 ** w for w in ticks[::step]])
    axr.set_xticklabels(["$2^{%d}$" % w for w in ticks[::step]])
    axr.set_xlabel("input size n (64-bit items): 2^w + 1 (worst case) or 2^w (best case)")
    ax.set_ylabel("throughput (million items/s, log scale)")
    axr.set_ylabel("÷ gather")
    ax.set_title("Fig. 10 — GPU kernel fusion for the bijective shuffle (VariablePhilox, 24 rounds) on %s"
                 % _gpu_name(meta, source))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), framealpha=0.92)
    fig.tight_layout()
    _footer(fig, sr.machine_label(meta, _where(source)))
    return _save(fig, out_dir, "fig10_fusion")


# Figures from this machine's results: (figure name, experiment it needs, draw function).
CPU_FIGURES_DRAWN = [
    ("fig06_chi2_rounds", "fig06_chi2_rounds", draw_fig06),
    ("fig07_mmd_n5", "fig07_09_mmd", lambda res, facts, out: draw_mmd(res, facts, out, "fig07_mmd_n5", 5)),
    ("fig08_mmd_n100", "fig07_09_mmd", lambda res, facts, out: draw_mmd(res, facts, out, "fig08_mmd_n100", 100)),
    ("fig09_mmd_n1000", "fig07_09_mmd",
     lambda res, facts, out: draw_mmd(res, facts, out, "fig09_mmd_n1000", 1000)),
    ("fig12_cpu_shuffle", "table2_cpu_shuffle", draw_fig12),
]
# Figures from GPU runs (fresh or recorded): (figure name, experiment, draw(rows, meta, facts, out, source)).
GPU_FIGURES_DRAWN = [
    ("fig10_fusion", "fig10_fusion", draw_fig10),
    ("fig11_gpu_shuffle", "table1_gpu_shuffle", draw_fig11_gpu),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, help="directory holding <experiment>.csv and .meta.json")
    parser.add_argument("--out", required=True, help="directory for the .png and .pdf figures")
    parser.add_argument("--recorded", default=None,
                        help="directory of GPU runs, one subdirectory per device "
                             "(default: RESULTS/recorded, else the repository's results/recorded)")
    args = parser.parse_args(argv)
    assert {name for name, _, _ in CPU_FIGURES_DRAWN} == set(sr.CPU_FIGURES)
    assert {name: experiment for name, experiment, _ in GPU_FIGURES_DRAWN} == sr.GPU_FIGURES
    os.makedirs(args.out, exist_ok=True)
    facts = sr.load_text_facts()

    results, problems, written = {}, [], []
    for experiment in sr.CPU_EXPERIMENTS:
        try:
            results[experiment] = sr.load_experiment(args.results, experiment)
        except sr.MissingInput as e:
            problems.append("%s (run %s --out-dir %s)" % (e, experiment, args.results))
    for name, experiment, draw in CPU_FIGURES_DRAWN:
        if experiment not in results:
            problems.append("%s not drawn: %s.csv missing or malformed" % (name, experiment))
            continue
        try:
            written += draw(results, facts, args.out)
        except sr.MissingInput as e:
            problems.append("%s not drawn: %s" % (name, e))

    recorded_root = args.recorded or sr.default_recorded_root(args.results)
    for name, experiment, draw in GPU_FIGURES_DRAWN:
        source = sr.gpu_source(args.results, experiment, recorded_root)
        if source is None:
            print("plot_all: %s: not drawn, no GPU results (neither %s/%s.csv nor a recorded %s/<device>/%s.csv)"
                  % (name, args.results, experiment, recorded_root, experiment))
            continue
        print("plot_all: %s from %s" % (name, "this run (%s)" % source.directory if source.fresh else
                                         "the recorded copy in %s" % source.directory))
        try:
            rows, meta = sr.load_experiment(source.directory, experiment)
            written += draw(rows, meta, facts, args.out, source)
        except sr.MissingInput as e:
            problems.append("%s not drawn: %s" % (name, e))

    sort_written, sort_problems, sort_notes = sort_results.draw_sort_figures(args.results, args.out, recorded_root)
    for note in sort_notes:
        print("plot_all: %s" % note)
    written += sort_written
    problems += sort_problems
    written, problems = gaussian_results.extend(args.results, args.out, recorded_root, written, problems)

    for path in written:
        print("plot_all: wrote %s" % path)
    if problems:
        for p in problems:
            print("plot_all: ERROR: %s" % p, file=sys.stderr)
        print("plot_all: %d problem(s); figures are incomplete" % len(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
