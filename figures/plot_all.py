#!/usr/bin/env python3
"""Draws every shuffle figure of the reproduction from the experiments' CSVs.

    plot_all.py --results DIR --out DIR [--recorded DIR]

Reads DIR/<experiment>.csv and DIR/<experiment>.meta.json (columns: see
figures/shuffle_results.py SCHEMAS) and writes <figure>.png and <figure>.pdf to --out:

    fig06_chi2_rounds   χ² vs VariablePhilox rounds, n = 5 (paper §5, Fig. 6)
    fig07_mmd_n5        |MMD²| vs rounds, n = 5 (Fig. 7)
    fig08_mmd_n100      |MMD²| vs rounds, n = 100 (Fig. 8)
    fig09_mmd_n1000     |MMD²| vs rounds, n = 1000 (Fig. 9)
                        (LCG and std::shuffle, which have no rounds, as labelled points right of
                        the rounds: their ratio to the threshold and their verdict under each;
                        the walking permutation over the same bijection as a second rounds
                        series when the CSV has its rows)
    fig12_cpu_shuffle   CPU throughput vs size, ours beside the paper's Table 2 (Fig. 12), and
                        each ÷ Gather (std::shuffle labelled single-threaded)

GPU figures come from the GPU experiments' CSVs in DIR when present (a run on a machine
with a GPU), else from the newest copy recorded on a GPU, --recorded DIR/<device>/
(default: DIR/recorded, else the repository's results/recorded); each is skipped with a
note while neither exists:

    fig10_fusion        Bijective0/1/2, walking and gather throughput vs size, worst and best case,
                        and each ÷ gather, with the paper's statements about its Fig. 10 (Fig. 10)
    fig11_gpu_shuffle   GPU throughput vs size beside the paper's Table 1, each ÷ Gather, and
                        the implementations the paper does not time ÷ Gather (Fig. 11)

and, for the Onesweep paper (figures/sort_results.py), one figure per sort experiment:

    onesweep_fig09_keys32   GKey/s vs size, uint32 keys, one panel per entropy band (Fig. 9);
                            ours and CUB (best) bold, each CUB configuration thin grey
    onesweep_fig10_pairs32  the same for uint32 keys + uint32 values (Fig. 10)
    onesweep_fig11_keys64   the same for uint64 keys (Fig. 11)
                            (each band with ours ÷ CUB (best) and ÷ CUB reduce-then-scan below it)
    sort_headline           ours / CUB (best) per shape, band and size, with the project's targets
                            (experiment sort_headline; skipped with a note while it has no results)
    onesweep_table2_digit_width  Table 2: histogram, one partition pass and partition per bit vs
                            digit width, ours beside the paper's, and our whole sort (skipped with
                            a note while it has no results; not yet required by check_outputs.py,
                            see sort_results.SORT_TABLE_FIGURES)

Every figure takes its colours from figures/palette.py: one colour and marker per algorithm in
every figure, ours in one blue, the paper's published numbers dashed in the colour of the
algorithm they belong to.

A missing or malformed CPU CSV, or a malformed GPU CSV, is reported and the script exits
with status 1 after drawing what it can. Every figure is labelled with the machine from
its meta.json (and, for GPU figures, whether it is this run or a recorded copy).
Adding a figure is one function plus one entry in CPU_FIGURES_DRAWN or GPU_FIGURES_DRAWN.
"""

import argparse
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402

from figures import shuffle_results as sr
from figures.figure_files import footer, save_figure
from figures import palette  # one colour per algorithm, every figure
from figures import sort_results
from figures import gaussian_results  # warp Gaussian figures
from figures import segmented_results  # the segmented shuffle's figure
from figures import python_results  # the Python package against torch, CuPy and JAX (python_peers)
from figures import sampler_results  # the data-loader sampler against torch's DistributedSampler (sampler)
from figures import walking_results  # the walking permutation's index generator on the GPU (walking_sampler)
from figures import multi_gpu_results  # the distributed sort and shuffle over NCCL (multi_gpu_sort, multi_gpu_shuffle)

palette.apply_rc()
PASS_COLOUR = palette.OURS
FAIL_COLOUR = palette.FAIL


# --------------------------------------------------------------------------- helpers

_footer = footer
_save = save_figure


def _rounds_rows(rows, algorithm="variable_philox", **match):
    """Rows of one rounds series (VariablePhilox by default; sr.ROUNDS_SERIES) matching the
    given column values, sorted by rounds."""
    sel = [r for r in rows if r["algorithm"] == algorithm and r["rounds"] is not None
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


def _legend_below(ax, ncol=2, handles=None, labels=None):
    # Anchored at the axes' bottom edge and pushed below the tick and axis labels by a
    # distance in font sizes, so the gap does not depend on the axes' height.
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, framealpha=0.92,
              borderaxespad=3.4)


def _pass_fail_points(ax, x, y, ok, label, passes="passes", fails="fails", colour=PASS_COLOUR, marker="o"):
    x, y, ok = np.asarray(x), np.asarray(y), np.asarray(ok, dtype=bool)
    ax.plot(x, y, "-", color=colour, lw=1.2, zorder=2)
    if ok.any():
        ax.plot(x[ok], y[ok], marker, ls="", color=colour, ms=4.5, zorder=3, label="%s, %s" % (label, passes))
    if (~ok).any():
        ax.plot(x[~ok], y[~ok], marker, ls="", mfc="white", mec=FAIL_COLOUR, mew=1.3, ms=5, zorder=3,
                label="%s, %s" % (label, fails))


def _series_style(algorithm):
    """(colour, marker) of a rounds series: VariablePhilox in the pass colour with circles, the
    others (the walking permutation) in their palette colour and marker."""
    if algorithm == "variable_philox":
        return PASS_COLOUR, "o"
    return palette.colour(algorithm), palette.marker(algorithm) or "o"


def _times(ratio):
    """'1.21×', '35.5×', '3.55e+04×'."""
    if ratio >= 1000:
        return "{:,.0f}×".format(ratio)
    return ("%.2f×" if ratio < 10 else "%.3g×") % ratio


def _reference_column(ax, last_round, entries):
    """The non-VariablePhilox shuffles of a statistics figure as single points in columns to
    the right of the rounds axis (they have no rounds). Each column's tick label names the
    shuffle and gives its ratio to the threshold it is judged by and its verdict (green:
    passes, red: fails), so a point that sits near a threshold line is read, not guessed.

    entries: [(name, value, passes, short note, legend text)]; passes: filled marker in the
    algorithm's colour, else hollow with a red edge (like VariablePhilox's failing points).
    Returns (x positions, tick labels, tick colours) of the columns."""
    ax.axvline(last_round + 2, color=palette.NOTE, lw=0.8, zorder=1)
    xs, labels, colours = [], [], []
    for i, (name, value, passes, note, legend) in enumerate(entries):
        x = last_round + 5.5 + 6.5 * i
        c, m = palette.colour(name), palette.marker(name)
        ax.plot([x], [value], ls="", marker=m, ms=9.5, mfc=c if passes else "white",
                mec=c if passes else FAIL_COLOUR, mew=1.8, zorder=6, label=legend)
        xs.append(x)
        labels.append("%s\n%s" % (name, note))
        colours.append("#1a7f37" if passes else FAIL_COLOUR)
    return xs, labels, colours


def _rounds_ticks(ax, last_round, ref_xs, ref_labels, ref_colours):
    ticks = list(range(0, last_round + 1, 5))
    ax.set_xticks(ticks + ref_xs)
    ax.set_xticklabels([str(t) for t in ticks] + ref_labels)
    for label, colour in zip(ax.get_xticklabels()[len(ticks):], ref_colours):
        label.set_color(colour)
        label.set_fontsize(8)
    ax.set_xlim(0, (ref_xs[-1] + 3.5) if ref_xs else last_round + 1)
    ax.set_xlabel("VariablePhilox rounds", loc="left")


# --------------------------------------------------------------------------- Fig. 6

def draw_fig06(results, facts, out_dir):
    """χ² statistic vs VariablePhilox rounds at n = 5 with the α critical value (paper Fig. 6);
    the walking permutation over the same bijection as a second series when measured; LCG and
    std::shuffle (no rounds) as single points to the right, with the paper's LCG value."""
    rows, meta = results["fig06_chi2_rounds"]
    vp = _rounds_rows(rows)
    if not vp:
        raise sr.MissingInput("fig06_chi2_rounds.csv has no variable_philox rows")
    x = [r["rounds"] for r in vp]
    fig, ax = plt.subplots(figsize=(8.6, 4.6))
    for algorithm, shown in sr.ROUNDS_SERIES:
        series = _rounds_rows(rows, algorithm)
        if series:
            colour, marker = _series_style(algorithm)
            _pass_fail_points(ax, [r["rounds"] for r in series], [max(r["statistic"], 1e-3) for r in series],
                              [r["passes"] == 1 for r in series], shown, colour=colour, marker=marker)
    crit = vp[0]["critical_value"]
    ax.axhline(crit, color=palette.THRESHOLD, ls="--", lw=1.1,
               label="critical value %.1f (α = %g)" % (crit, vp[0]["alpha"]))
    entries = []
    for alg, name in (("lcg", "LCG"), ("std_shuffle", "std::shuffle")):
        r = _single(rows, alg)
        if r:
            word = "passes" if r["passes"] else "fails"
            entries.append((name, max(r["statistic"], 1e-3), bool(r["passes"]),
                            "%s crit.\n%s" % (_times(r["statistic"] / crit), word),
                            "%s: χ² = %s = %s the critical value (%s)" % (name, sr.fmt_num(r["statistic"]),
                                                                          _times(r["statistic"] / crit), word)))
    ax.set_yscale("log")
    xs, labels, colours = _reference_column(ax, max(x), entries)
    paper_lcg = facts.get("lcg_chi2_statistic", {}).get("number")
    if paper_lcg and entries and entries[0][0] == "LCG":
        ax.plot([xs[0]], [paper_lcg], ls="", **{k: v for k, v in palette.paper_line("LCG", ms=9, mew=1.5).items()
                                               if k not in ("ls", "lw")},
                label="LCG, paper: χ² ≈ %s at 10⁶ samples" % sr.fmt_num(paper_lcg))
    _mark_rounds(ax, facts)
    _rounds_ticks(ax, max(x), xs, labels, colours)
    ax.set_ylabel("χ² statistic (log scale)")
    ax.set_title("Fig. 6 — χ² vs. rounds: n = %d (%d permutations), %s samples per point%s"
                 % (vp[0]["n"], _factorial(vp[0]["n"]), "{:,}".format(vp[0]["samples"]),
                    _paper_samples(facts, "chi2_samples")))
    fig.tight_layout()
    handles, labels = ax.get_legend_handles_labels()
    _legends_under(fig, [(ax, handles, labels, 2, [])])
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


def _mmd_verdict(r):
    """(passes both, short note, legend text) for one LCG / std::shuffle row: its ratio to the
    stricter (lower) threshold, and which tests it fails."""
    h, n = r["hoeffding_threshold"], r["normal_threshold"]
    strict, which = (n, "normal") if n <= h else (h, "Hoeffding")
    ok_h, ok_n = bool(r["passes_hoeffding"]), bool(r["passes_normal"])
    verdict = ("passes both" if ok_h and ok_n else "fails both" if not (ok_h or ok_n) else
               "fails %s" % ("Hoeffding" if not ok_h else "normal"))
    ratio = r["statistic"] / strict
    note = "%s %s\n%s" % (_times(ratio), "N" if which == "normal" else "H", "passes" if ok_h and ok_n else "fails")
    return ok_h and ok_n, note, "%s = %s %s threshold (%s)" % (sr.fmt_num(r["statistic"]), _times(ratio), which,
                                                             verdict)


def draw_mmd(results, facts, out_dir, name, n):
    """|MMD²| vs VariablePhilox rounds at one n, one panel per form (paper Figs. 7–9), with the
    walking permutation as a second series when measured; LCG and std::shuffle as single
    labelled points right of the rounds."""
    rows, meta = results["fig07_09_mmd"]
    at_n = [r for r in rows if r["n"] == n]
    if not at_n:
        raise sr.MissingInput("fig07_09_mmd.csv has no rows for n = %d (needed by %s)" % (n, name))
    forms = [f for f in ("one_sample", "pairwise") if any(r["form"] == f for r in at_n)]
    forms += sorted({r["form"] for r in at_n} - set(forms))
    fig, axes = plt.subplots(1, len(forms), figsize=(7.4 * len(forms), 4.4), squeeze=False)
    placements = []
    for ax, form in zip(axes[0], forms):
        vp = _rounds_rows(at_n, form=form)
        if not vp:
            raise sr.MissingInput("fig07_09_mmd.csv has no variable_philox rows for n = %d, form %s" % (n, form))
        x = np.array([r["rounds"] for r in vp])
        stats = np.array([r["statistic"] for r in vp], dtype=float)
        positives = np.concatenate([stats[stats > 0], [r["statistic"] for r in at_n if r["statistic"] > 0]])
        floor = positives.min() / 3 if positives.size else 1e-12
        for algorithm, shown in sr.ROUNDS_SERIES:
            series = _rounds_rows(at_n, algorithm, form=form)
            if series:
                colour, marker = _series_style(algorithm)
                _pass_fail_points(ax, [r["rounds"] for r in series],
                                  np.maximum(np.array([r["statistic"] for r in series], dtype=float), floor),
                                  [r["passes_hoeffding"] == 1 and r["passes_normal"] == 1 for r in series], shown,
                                  "passes both tests", "fails a test", colour=colour, marker=marker)
        entries = []
        for alg, lab in (("lcg", "LCG"), ("std_shuffle", "std::shuffle")):
            r = _single(at_n, alg, form=form)
            if r:
                passes, note, legend = _mmd_verdict(r)
                entries.append((lab, max(r["statistic"], floor), passes, note, "%s: %s" % (lab, legend)))
        ax.set_yscale("log")
        xs, labels, colours = _reference_column(ax, int(max(x)), entries)
        for key, colour, ls, text in (("hoeffding_threshold", palette.THRESHOLD, "--", "Hoeffding threshold"),
                                      ("normal_threshold", "#555555", "-.", "normal (CLT) threshold")):
            values = [r[key] for r in vp]
            label = "%s (α = %g)" % (text, vp[0]["alpha"])
            if max(values) == min(values):
                ax.axhline(values[0], color=colour, ls=ls, lw=1.1, label=label, zorder=2)
            else:
                ax.plot(x, values, color=colour, ls=ls, lw=1.1, label=label)
        _mark_rounds(ax, facts)
        _rounds_ticks(ax, int(max(x)), xs, labels, colours)
        ax.set_ylabel("|MMD²| estimate (log scale)")
        ax.set_title(FORM_TITLES.get(form, form))
        placements.append((ax,) + tuple(ax.get_legend_handles_labels()) + (2, []))
    fig_no = {5: 7, 100: 8, 1000: 9}.get(n, "")
    fig.suptitle("Fig. %s — |MMD²| vs. rounds, n = %d (Mallows kernel λ = %g, %s samples per point%s)\n"
                 "LCG and std::shuffle (no rounds) on the right, labelled with their ratio to the stricter "
                 "threshold (N: normal, H: Hoeffding)"
                 % (fig_no, n, at_n[0]["lambda"], "{:,}".format(at_n[0]["samples"]),
                    _paper_samples(facts, "mmd_samples").replace(" (", "; ").rstrip(")")), fontsize=10.5)
    fig.tight_layout()
    _legends_under(fig, placements)
    _footer(fig, sr.machine_label(meta))
    return _save(fig, out_dir, name)


# --------------------------------------------------------------------------- throughput (Fig. 12, Fig. 11)

def _size_axis(ax, sizes, label=True):
    """log2 x axis at n = 2^w + 1, a tick every third measured w."""
    ax.set_xscale("log", base=2)
    ax.minorticks_off()
    ticks = sorted(sizes)
    ax.set_xticks([2.0 ** w + 1 for w in ticks])
    ax.set_xticklabels(["$2^{%d}$" % w for w in ticks])
    if label:
        ax.set_xlabel("input size n = 2^w + 1 (64-bit items)")


def _legends_under(fig, placements):
    """Figure legends, each centred under its axes, below the axes' tick and axis labels
    (call after tight_layout; the saved canvas grows to hold them).
    placements: [(axes, handles, labels, ncol, bold label indices)]."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_fig = fig.transFigure.inverted()
    for under, handles, labels, ncol, bold in placements:
        under = under if isinstance(under, (list, tuple)) else [under]
        y0 = min(to_fig.transform((0, a.get_tightbbox(renderer).y0))[1] for a in under)
        centre = 0.5 * (min(a.get_position().x0 for a in under) + max(a.get_position().x1 for a in under))
        leg = fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(centre, y0 - 0.01),
                         ncol=ncol, framealpha=0.92, handlelength=2.6, columnspacing=1.4)
        for i in bold:
            leg.get_texts()[i].set_fontweight("bold")


def _header(text):
    """An invisible legend handle, so a legend column can carry a heading."""
    return Line2D([], [], ls="", marker=""), text


def _paired_legend(pairs, run_title, paper_title, per_row=6):
    """Legend entries laid out as a table: one column per algorithm, this run's line above
    the paper's line of the same algorithm, headed by run_title / paper_title; more than
    per_row algorithms wrap onto further pairs of rows.
    pairs: [((handle, label) or None, (handle, label) or None)].
    Returns (handles, labels, ncol, bold label indices) for fig.legend (which fills columns
    first)."""
    blank = (Line2D([], [], ls="", marker=""), "")
    chunks = [pairs[i:i + per_row] for i in range(0, len(pairs), per_row)] or [[]]
    ncol = 1 + max(len(c) for c in chunks)
    grid = []  # rows of ncol entries
    for chunk in chunks:
        run_row = [_header(run_title)] + [p[0] or blank for p in chunk]
        paper_row = [_header(paper_title)] + [p[1] or blank for p in chunk]
        grid += [run_row + [blank] * (ncol - len(run_row)), paper_row + [blank] * (ncol - len(paper_row))]
    entries = [grid[r][c] for c in range(ncol) for r in range(len(grid))]
    bold = list(range(len(grid)))  # column 0 holds the headings
    return [h for h, _ in entries], [t for _, t in entries], ncol, bold


def _ratio_summary(ours, ref, peers, ours_label="VarPhilox"):
    """'at n = 2^29+1, VarPhilox ÷ DartThrowing = 3.8× (paper 33×), …' at the largest size
    measured for ours and each peer; '' when nothing can be compared."""
    parts, size = [], None
    for peer in peers:
        common = sorted(set(ours.get(ours_label, {})) & set(ours.get(peer, {})))
        if not common:
            continue
        w = common[-1]
        size = w if size is None else size
        ratio = ours[ours_label][w] / ours[peer][w]
        text = "%s %s" % (_times(ratio), peer)
        if w in ref.get(ours_label, {}) and w in ref.get(peer, {}):
            text += " (paper %s)" % _times(ref[ours_label][w] / ref[peer][w])
        parts.append(text)
    if not parts:
        return ""
    return "%s at n = 2^%d+1 is %s" % (ours_label, size, ", ".join(parts))


def _rate_ranges(rows, name_of=None):
    """{paper label: {log2_size: (lowest, highest) M items/s}} over the timed repetitions
    (n / seconds_max, n / seconds_min), for rows that carry seconds_min and seconds_max;
    with several thread counts, the highest (as best_throughput)."""
    out, threads_of = {}, {}
    for r in rows:
        if r.get("seconds_min") is None or r.get("seconds_max") is None or not r["seconds_min"] > 0:
            continue
        lab = name_of(r) if name_of else sr.paper_label(r["algorithm"], r.get("label", ""))
        t = r.get("threads") or 0
        if lab in threads_of and t < threads_of[lab]:
            continue
        if t > threads_of.get(lab, -1):
            threads_of[lab] = t
            out[lab] = {}
        out[lab][r["log2_size"]] = (r["n"] / r["seconds_max"] / 1e6, r["n"] / r["seconds_min"] / 1e6)
    return out


def gather_line_label(above):
    """(label of the Gather = 1 line, title of the ÷ Gather panel) for the series that rise
    above 1 somewhere (above: their names, this run's plain and the paper's as 'X (paper)', in
    the order drawn): Gather is called the upper bound only when none does; else the title
    names them (at most four, then a count)."""
    if not above:
        return "Gather = 1 (upper bound)", "(b) ÷ Gather at the same n: the distance to the bound"
    names = list(dict.fromkeys(above))
    shown = ", ".join(names[:4]) + (" and %d more" % (len(names) - 4) if len(names) > 4 else "")
    return "Gather = 1", "(b) ÷ Gather at the same n; Gather is no upper bound here:\n%s rise%s above 1" % (
        shown, "s" if len(names) == 1 else "")


def draw_throughput(rows, meta, reference_file, title, out_dir, name, name_of=None, where=None, markers=None,
                    run_word="this run", threads_note="", split_extras=False):
    """Throughput vs size beside the paper's table, in two or three panels:
      left: M items/s (log–log) of the paper's algorithms, this run solid and the paper's
            published numbers dashed in the same colour (legend: one column each);
      middle: the same ÷ Gather at the same size (linear), so gaps between shuffles and the
            distance to the gather bound read directly, this run's and the paper's;
      right (split_extras): the measured series the paper does not have, ÷ Gather.
    name_of(row): series name (default: the paper label); where: appended to the footer;
    markers: unused (the palette gives each algorithm its marker)."""
    ref, ref_order, ref_rows = sr.load_reference_table(reference_file)
    paper_machine = ref_rows[0]["machine"]
    paper_short = paper_machine.split(" (")[0]
    best = sr.best_throughput(rows, name_of)
    ours = {lab: {w: v for w, (v, _) in pts.items()} for lab, pts in best.items()}
    ranges = _rate_ranges(rows, name_of)
    threads = {lab: next(iter(pts.values()))[1] for lab, pts in best.items() if pts}
    main = [lab for lab in ref_order] + ([] if split_extras else sorted(set(ours) - set(ref_order)))
    extras = sorted(set(ours) - set(ref_order)) if split_extras else []
    ncols = 3 if extras else 2
    fig, axes = plt.subplots(1, ncols, figsize=(5.6 * ncols, 5.0), squeeze=False)
    ax, axr = axes[0][0], axes[0][1]
    sizes = set()
    pairs = []
    above_one = []  # series above Gather somewhere (this run's, then the paper's as "X (paper)")
    gather = "Gather"
    for lab in main:
        run_entry = paper_entry = None
        if lab in ours:
            ws = sorted(ours[lab])
            sizes.update(ws)
            t = threads.get(lab) or 0
            text = lab
            if t == 1 and lab in sr.SEQUENTIAL:
                text += " (1 thread)"
            (h,) = ax.plot([2.0 ** w + 1 for w in ws], [ours[lab][w] for w in ws], **palette.line(lab))
            run_entry = (h, text)
            band = ranges.get(lab, {})
            bw = [w for w in ws if w in band]
            if bw:  # slowest to fastest of the timed repetitions
                ax.fill_between([2.0 ** w + 1 for w in bw], [band[w][0] for w in bw], [band[w][1] for w in bw],
                                color=palette.colour(lab), alpha=0.18, lw=0, zorder=1)
            if gather in ours:
                common = [w for w in ws if w in ours[gather]]
                if lab != gather and common:
                    axr.plot([2.0 ** w + 1 for w in common], [ours[lab][w] / ours[gather][w] for w in common],
                             **palette.line(lab))
                    if max(ours[lab][w] / ours[gather][w] for w in common) > 1:
                        above_one.append(lab)
                    gb = ranges.get(gather, {})
                    rw = [w for w in common if w in band and w in gb]
                    if rw:  # ratio range: slowest ÷ gather's fastest to fastest ÷ gather's slowest
                        # whiskers, each series nudged sideways, not bands: overlapping bands of
                        # several colours mix into one another
                        nudge = 2.0 ** (0.09 * (main.index(lab) - (len(main) - 1) / 2))
                        mid = [ours[lab][w] / ours[gather][w] for w in rw]
                        axr.errorbar([(2.0 ** w + 1) * nudge for w in rw], mid,
                                     yerr=[[m - band[w][0] / gb[w][1] for m, w in zip(mid, rw)],
                                           [band[w][1] / gb[w][0] - m for m, w in zip(mid, rw)]],
                                     fmt="none", ecolor=palette.colour(lab), elinewidth=1.0, capsize=1.8, alpha=0.75,
                                     zorder=1)
        if lab in ref:
            ws = sorted(ref[lab])
            sizes.update(ws)
            (h,) = ax.plot([2.0 ** w + 1 for w in ws], [ref[lab][w] for w in ws], **palette.paper_line(lab))
            paper_entry = (h, lab)
            if gather in ref and lab != gather:
                common = [w for w in ws if w in ref[gather]]
                axr.plot([2.0 ** w + 1 for w in common], [ref[lab][w] / ref[gather][w] for w in common],
                         **palette.paper_line(lab))
                if common and max(ref[lab][w] / ref[gather][w] for w in common) > 1:
                    above_one.append("%s (paper)" % lab)
        if run_entry or paper_entry:
            pairs.append((run_entry, paper_entry))
    if not pairs:
        plt.close(fig)
        raise sr.MissingInput("no throughput series to draw for %s" % name)
    # One legend under (a) and (b): a column per algorithm, this run (solid) above the paper (dashed).
    handles, labels, ncol, bold = _paired_legend(pairs, "%s, solid:" % run_word, "paper (%s), dashed:" % paper_short,
                                                 per_row=5)
    placements = [((ax, axr), handles, labels, ncol, bold)]
    ax.set_yscale("log")
    _size_axis(ax, sizes)
    ax.set_ylabel("throughput (million items/s, log scale)")
    ax.set_title("(a) throughput")
    axr.axhline(1.0, **{k: v for k, v in palette.line(gather).items() if k in ("color", "lw")})
    line_label, panel_title = gather_line_label(above_one)
    axr.text(0.01, 1.0, " " + line_label, transform=axr.get_yaxis_transform(), va="bottom", fontsize=7.5,
             color=palette.colour(gather))
    _size_axis(axr, sizes)
    axr.set_ylim(0, max(1.12, axr.get_ylim()[1]))
    axr.set_ylabel("÷ Gather at the same n")
    summary = _ratio_summary(ours, ref, [lab for lab in ref_order if palette.family(lab) == "peer"])
    axr.set_title(panel_title, fontsize=10 if not above_one else 9)
    if extras:
        axe = axes[0][2]
        eh = []
        for lab in ["VarPhilox"] + extras:
            if lab not in ours or gather not in ours:
                continue
            common = [w for w in sorted(ours[lab]) if w in ours[gather]]
            (h,) = axe.plot([2.0 ** w + 1 for w in common], [ours[lab][w] / ours[gather][w] for w in common],
                            **palette.line(lab))
            eh.append((h, lab + (" (Bijective2; as in (b))" if lab == "VarPhilox" else "")))
        axe.axhline(1.0, **{k: v for k, v in palette.line(gather).items() if k in ("color", "lw")})
        _size_axis(axe, sizes)
        axe.set_ylim(0, max(1.12, axe.get_ylim()[1]))
        axe.set_ylabel("÷ Gather at the same n")
        axe.set_title("(c) not in the paper's table (%s only), ÷ Gather" % run_word.split(",")[0])
        placements.append((axe, [h for h, _ in eh], [t for _, t in eh], 2, []))
    if summary:
        title += "\n" + "\n".join(textwrap.wrap(summary, int(13 * fig.get_figwidth())))
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    _legends_under(fig, placements)
    _footer(fig, sr.machine_label(meta, where) + (("   |   " + threads_note) if threads_note else "") +
            ("   |   (a) shaded, (b) whiskers: slowest to fastest of the timed repetitions" if ranges else "") +
            "   |   paper: %s" % ref_rows[0]["source"])
    return _save(fig, out_dir, name)


def draw_fig12(results, facts, out_dir):
    """CPU shuffle throughput vs size beside the paper's Table 2 (Fig. 12)."""
    rows, meta = results["table2_cpu_shuffle"]
    threads = sorted({r["threads"] for r in rows if r.get("threads")})
    cores = facts.get("cpu_cores", {}).get("number")
    note = ("this run: the parallel algorithms on %s oneTBB thread%s, std::shuffle on one (it is sequential)"
            % ("/".join(str(t) for t in threads) or "?", "" if threads == [1] else "s"))
    if cores:
        note += "; paper: %d physical cores, std::shuffle on one" % cores
    return draw_throughput(rows, meta, "shuffle_table2_cpu.csv",
                           "Fig. 12 — CPU shuffling throughput on %s (%s cores) beside the paper's Table 2"
                           % (meta.get("cpu_model", "this CPU"), meta.get("cores", "?")),
                           out_dir, "fig12_cpu_shuffle", run_word="this run (%s cores)" % meta.get("cores", "?"),
                           threads_note=note)


def _where(source):
    """Footer text saying whether a GPU figure shows this run or a recorded copy."""
    if source.fresh:
        return "this run"
    return "recorded copy results/recorded/%s" % source.device


def _gpu_name(meta, source):
    return meta.get("gpu_name") or ("device '%s'" % source.device if source.device else "the GPU")


def _gpu_short(meta, source):
    """'H100' from 'NVIDIA H100 80GB HBM3' (the first word with a digit), else the full name."""
    name = _gpu_name(meta, source)
    for word in name.split():
        if any(ch.isdigit() for ch in word) and word.upper() != "NVIDIA":
            return word
    return name


def draw_fig11_gpu(rows, meta, facts, out_dir, source):
    """GPU shuffle throughput vs size beside the paper's Table 1 (Fig. 11)."""
    run = "%s, %s" % (_gpu_short(meta, source), "this run" if source.fresh else "recorded run")
    return draw_throughput(rows, meta, "shuffle_table1_gpu.csv",
                           "Fig. 11 — GPU shuffling throughput on %s beside the paper's Table 1 (%s)"
                           % (_gpu_name(meta, source), facts.get("gpu_machine", {}).get("value", "V100")),
                           out_dir, "fig11_gpu_shuffle", name_of=sr.gpu_name_of(rows), where=_where(source),
                           run_word=run, split_extras=True)


# Kept for callers: the palette now gives every series its marker.
GPU_MARKERS = {lab: palette.marker(lab) for lab in ("Gather (index array)", "VarPhilox Bijective0",
                                                    "VarPhilox Bijective1", "thrust::shuffle_copy", "randperm+gather")}


FUSION_STYLE = [  # (algorithm, case, legend, palette name, line style, hollow marker)
    ("variable_philox_bijective0", "worst", "Bijective0 (separate passes)", "VarPhilox Bijective0", "-", False),
    ("variable_philox_bijective1", "worst", "Bijective1 (fused, two-pass scan)", "VarPhilox Bijective1", "-", False),
    ("variable_philox", "worst", "Bijective2 (fused single pass: staged up to 2^21 indices, look-back tiles above; ours)",
     "VarPhilox", "-", False),
    ("variable_philox", "best", "Bijective2, best case n = 2^w (dotted, hollow)", "VarPhilox", ":", True),
    ("walking", "worst", "Walking (cycle walking, a gather through σ; no scan)", "Walking", "-", False),
    ("walking", "best", "Walking, best case n = 2^w (dotted, hollow)", "Walking", ":", True),
    ("gather", "worst", "gather (random gather, upper bound)", "Gather", "-", False),  # label: see draw_fig10
]


def fusion_ranges(rows):
    """{(algorithm, case): {log2_size: (slowest, fastest) items/s}} over the timed repetitions
    of fig10_fusion rows (n / seconds_max, n / seconds_min); rows without positive
    seconds_min and seconds_max are left out."""
    out = {}
    for r in rows:
        lo_s, hi_s = r.get("seconds_min"), r.get("seconds_max")
        if lo_s is None or hi_s is None or not (lo_s > 0 and hi_s > 0):
            continue
        out.setdefault((r["algorithm"], r["case"]), {})[r["log2_size"]] = (r["n"] / hi_s, r["n"] / lo_s)
    return out


def draw_fig10(rows, meta, facts, out_dir, source):
    """Throughput of the three fusion levels of the VariablePhilox shuffle and of the random
    gather vs size (paper Fig. 10), and each ÷ gather at the same size (the point of the
    figure: how close fusion gets to the bound), with the paper's statements about its Fig. 10.
    The spread of the timed repetitions (fusion_ranges) is shaded in the throughput panel and
    drawn as whiskers in the ratio panel, as in Figs. 11 and 12."""
    fig, (ax, axr) = plt.subplots(1, 2, figsize=(12.4, 4.6))
    ranges = fusion_ranges(rows)
    above_one = []  # series above gather somewhere
    styled = {(a, c) for a, c, *_ in FUSION_STYLE}
    extra = sorted({(r["algorithm"], r["case"]) for r in rows if r["case"] == "worst"} - styled)
    styles = FUSION_STYLE + [(a, c, "%s (%s case)" % (a, c), a, "-", False) for a, c in extra]
    gather = {c: {r["log2_size"]: r["items_per_second"] for r in rows if r["algorithm"] == "gather" and r["case"] == c}
              for c in ("worst", "best")}
    sizes, drawn, ratios = set(), 0, []
    for k, (alg, case, legend, pname, ls, hollow) in enumerate(styles):
        pts = sorted((r["log2_size"], r["n"], r["items_per_second"]) for r in rows
                     if r["algorithm"] == alg and r["case"] == case)
        if not pts:
            continue
        drawn += 1
        sizes.update(w for w, _, _ in pts)
        kw = palette.line(pname, ls=ls)
        if hollow:
            kw["mfc"] = "white"
        ax.plot([n for _, n, _ in pts], [v / 1e6 for _, _, v in pts], label=legend, **kw)
        band = ranges.get((alg, case), {})
        bw = [(w, n) for w, n, _ in pts if w in band]
        if bw:  # slowest to fastest of the timed repetitions
            ax.fill_between([n for _, n in bw], [band[w][0] / 1e6 for w, _ in bw], [band[w][1] / 1e6 for w, _ in bw],
                            color=kw["color"], alpha=0.15, lw=0, zorder=1)
        if alg != "gather":
            g_case = case if gather.get(case) else "worst"
            g = gather[g_case]
            rel = [(w, n, v / g[w]) for w, n, v in pts if g.get(w)]
            if rel:
                axr.plot([n for _, n, _ in rel], [x for _, _, x in rel], **kw)
                ratios += [x for _, _, x in rel]
                if max(x for _, _, x in rel) > 1:
                    above_one.append(legend.split(" (")[0].split(",")[0] + (" best case" if case == "best" else ""))
                gb = ranges.get(("gather", g_case), {})
                rw = [(w, n, x) for w, n, x in rel if w in band and w in gb]
                if rw:  # ratio range: slowest ÷ gather's fastest to fastest ÷ gather's slowest
                    nudge = 2.0 ** (0.12 * (k - (len(styles) - 1) / 2))  # side by side, not on top
                    axr.errorbar([n * nudge for _, n, _ in rw], [x for _, _, x in rw],
                                 yerr=[[x - band[w][0] / gb[w][1] for w, _, x in rw],
                                       [band[w][1] / gb[w][0] - x for w, _, x in rw]],
                                 fmt="none", ecolor=kw["color"], elinewidth=0.9, capsize=1.5, alpha=0.7, zorder=1)
    if not drawn:
        plt.close(fig)
        raise sr.MissingInput("fig10_fusion.csv has none of the algorithms of Fig. 10")
    axr.axhline(1.0, color=palette.colour("Gather"), lw=1.5)
    axr.text(0.01, 1.0, " gather = 1", transform=axr.get_yaxis_transform(), va="bottom", fontsize=7.5)
    axr.axhline(0.9, color="#999999", lw=0.9, ls=":")
    axr.text(0.01, 0.9, " 0.9 × gather", transform=axr.get_yaxis_transform(), va="top", fontsize=7.5, color="#777777")
    # The project's targets for Bijective2 ÷ gather (worst case): 0.75 from 2^17+1, 0.90 from
    # 2^23+1, 0.93 at 2^26+1 and up.
    for lo, hi, need in ((17, 23, 0.75), (23, 26, 0.90), (26, 29, 0.93)):
        axr.hlines(need, 2.0 ** lo, 2.0 ** hi, colors=palette.OURS, linestyles="--", lw=1.0, alpha=0.7)
    axr.text(2.0 ** 17, 0.75, "targets ", ha="right", va="center", fontsize=7, color=palette.OURS)
    paper_machine = facts.get("gpu_machine", {}).get("value", "V100")
    match = facts.get("gpu_bijective2_matches_gather_above_log2_size", {}).get("number")
    if match:
        axr.axvline(2.0 ** match, **{k: v for k, v in palette.paper_line("VarPhilox").items()
                                     if k in ("color", "ls", "lw")})
        axr.annotate("paper (%s): Bijective2 ≈ gather\nfrom n ≈ 2^%d" % (paper_machine, match),
                     (2.0 ** match, 0.05),
                     xycoords=("data", "axes fraction"), xytext=(-4, 0), textcoords="offset points", ha="right",
                     va="bottom", fontsize=7.5, color=palette.OURS)
    peak = facts.get("gpu_gather_peak_log2_size", {}).get("number")
    if peak:
        ax.axvline(2.0 ** peak, **{k: v for k, v in palette.paper_line("Gather").items() if k in ("color", "ls", "lw")})
        ax.annotate("paper (%s):\ngather peaks at 2^%d" % (paper_machine, peak), (2.0 ** peak, 0.04),
                    xycoords=("data", "axes fraction"), xytext=(4, 0), textcoords="offset points", ha="left",
                    va="bottom", fontsize=7.5, color=palette.colour("Gather"))
    ticks = sorted(sizes)
    step = max(1, (len(ticks) + 7) // 8)  # at most about 8 tick labels
    for a in (ax, axr):
        a.set_xscale("log", base=2)
        a.minorticks_off()
        a.set_xticks([2.0 ** w for w in ticks[::step]])
        a.set_xticklabels(["$2^{%d}$" % w for w in ticks[::step]])
        a.set_xlabel("input size n (64-bit items): 2^w + 1 (worst case), 2^w (best case)")
    ax.set_yscale("log")
    ax.set_ylabel("throughput (million items/s, log scale)")
    axr.set_ylabel("÷ gather at the same n and case")
    axr.set_ylim(0, max([1.1] + [x + 0.05 for x in ratios]))
    ax.set_title("throughput")
    axr.set_title("÷ gather: how close each fusion level gets to the bound")
    fig.suptitle("Fig. 10 — GPU kernel fusion for the bijective shuffle (VariablePhilox, 24 rounds) on %s (%s)"
                 % (_gpu_name(meta, source), "this run" if source.fresh else "recorded run"), fontsize=11)
    handles, labels = ax.get_legend_handles_labels()
    handles = [h for h, lab in zip(handles, labels) if not lab.startswith("_")]
    labels = [lab for lab in labels if not lab.startswith("_")]
    if above_one:  # the gather is no upper bound where a series rises above it
        labels = ["gather (random gather; %s rise%s above it at some n)" % (", ".join(above_one),
                                                                         "s" if len(above_one) == 1 else "")
                  if lab.startswith("gather (") else lab for lab in labels]
    fig.tight_layout()
    _legends_under(fig, [([ax, axr], handles, labels, 3, [])])
    _footer(fig, sr.machine_label(meta, _where(source)) +
            ("   |   shaded (throughput) and whiskers (÷ gather): slowest to fastest of the timed repetitions"
             if ranges else ""))
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
    written, problems = segmented_results.extend(args.results, args.out, recorded_root, written, problems)
    written, problems = python_results.extend(args.results, args.out, recorded_root, written, problems)
    written, problems = sampler_results.extend(args.results, args.out, recorded_root, written, problems)
    written, problems = walking_results.extend(args.results, args.out, recorded_root, written, problems)
    written, problems = multi_gpu_results.extend(args.results, args.out, recorded_root, written, problems)

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
