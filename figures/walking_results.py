"""The walking permutation as the data-loader sampler's index generator on the GPU (experiment
walking_sampler, issue 28 §1 and §3): its figure and its report section.

Reads walking_sampler.csv (written by experiments/walking_sampler.cu; columns algorithm,
num_items, case, domain_bits, batch, reps, seconds_median, seconds_min, seconds_max,
indices_per_second, mean_evaluations, max_walk, lane_slots_per_index,
bijective2_evaluations_per_index) from a run's results directory, else the newest recorded copy
results/recorded/<device>/walking_sampler.csv. Rows: gpu::walking_indices writing a batch of
2^28 indices of the global order, in its two walk structures (walking_warp_queue, the default,
and walking_one_per_lane, the naive one), at the sampler's sizes N = 10^6, 10^8, 10^9, 3·10^9
(case "sampler"), the best case N = 2^k and the worst case N = 2^k + 1 (k = 20, 24, 28, 32).

Target (issue 28 §3): >= 10 G indices/s on the H100 at every N, worst case 2^k + 1 included (a
batch of 2^28 indices), decided on the default structure's rows. A verdict is "met" (every
required N measured, all pass), "not met" (a measured point fails), "met where measured" (all
measured points pass, some required N not measured) or "not measured"; a GPU other than an H100
is named beside it. The structure finding compares the two structures' lane slots per index and
times where both were measured, per case.
Standard library only, except draw() (matplotlib).
"""

import os

from figures import palette
from figures import sampler_results as smp
from figures import shuffle_results as sr
from figures.figure_files import footer, save_figure

EXPERIMENT = "walking_sampler"
FIGURE = "walking_sampler"
COLUMNS = ["algorithm", "num_items", "case", "domain_bits", "batch", "reps", "seconds_median", "seconds_min",
           "seconds_max", "indices_per_second", "mean_evaluations", "max_walk", "lane_slots_per_index",
           "bijective2_evaluations_per_index"]
DEFAULT = "walking_warp_queue"
NAIVE = "walking_one_per_lane"
STRUCTURES = [DEFAULT, NAIVE]
LABELS = {DEFAULT: "warp queue (default)", NAIVE: "one walk per lane (naive)"}
COLOURS = {DEFAULT: palette.colour("walking"), NAIVE: "#e6550d"}
CASES = ["sampler", "best", "worst"]
CASE_TEXT = {"sampler": "sampler sizes", "best": "best case 2^k", "worst": "worst case 2^k+1"}
MARKERS = {"sampler": "o", "best": "^", "worst": "v"}
TARGET_GPU = 10e9  # indices/s on the H100
TARGET_DEVICE = "H100"
WORST_KS = [20, 24, 28, 32]
# The N the target is stated at: the sampler benchmark's sizes and the cycle walk's worst cases.
TARGET_SIZES = list(smp.TARGET_SIZES) + [2 ** k + 1 for k in WORST_KS]

size_text = smp.size_text


def rate_text(r):
    return "—" if r is None else "%.3g G/s" % (r / 1e9)


# ------------------------------------------------------------------------------------ input

def parse_rows(rows):
    """Rows as read by sr.read_csv, with num_items, domain_bits, batch, max_walk as int."""
    out = []
    for r in rows:
        r = dict(r)
        for key in ("num_items", "domain_bits", "batch", "max_walk"):
            if r.get(key) is not None:
                r[key] = int(r[key])
        out.append(r)
    return out


def load(results, recorded_root):
    """(source, rows, meta) of the fresh run in results, else the newest recorded copy; None when
    neither exists. Raises sr.MissingInput for a CSV with other columns or no rows, or a missing
    or malformed meta.json."""
    source = sr.gpu_source(results, EXPERIMENT, recorded_root)
    if source is None:
        return None
    rows, meta = sr.load_experiment(source.directory, EXPERIMENT, COLUMNS)
    return source, parse_rows(rows), meta


def measured(rows, algorithm=None):
    """Rows with a rate (of one structure when algorithm is given), by N."""
    return sorted((r for r in rows if r.get("indices_per_second") and (algorithm is None or r["algorithm"] == algorithm)),
                  key=lambda r: (r["num_items"], r["algorithm"]))


# --------------------------------------------------------------------------------- verdicts

def is_target_device(meta):
    return TARGET_DEVICE.lower() in str(meta.get("gpu_name") or meta.get("gpu") or "").lower()


def target_verdict(rows, meta, algorithm=DEFAULT, required=TARGET_SIZES, threshold=TARGET_GPU):
    """The issue's GPU target on one structure's rows: {verdict, minimum (the slowest row or None),
    failing [rows], missing [N], points [rows], device (the GPU's name), on_target_device}."""
    pts = measured(rows, algorithm)
    device = meta.get("gpu_name") or meta.get("gpu") or "an unnamed GPU"
    out = {"points": pts, "device": device, "on_target_device": is_target_device(meta), "algorithm": algorithm,
           "threshold": threshold}
    if not pts:
        out.update(verdict="not measured", minimum=None, failing=[], missing=list(required))
        return out
    failing = [r for r in pts if r["indices_per_second"] < threshold]
    have = {r["num_items"] for r in pts}
    missing = [n for n in required if n not in have]
    verdict = "not met" if failing else ("met where measured" if missing else "met")
    out.update(verdict=verdict, minimum=min(pts, key=lambda r: r["indices_per_second"]), failing=failing,
               missing=missing)
    return out


def verdict_text(t):
    """'met', '**not met**', 'met where measured (not measured at N = …)' or 'not measured', with
    the minimum and the device when it is not the target's."""
    v = t["verdict"]
    if v == "not measured":
        return "not measured"
    text = {"met": "met", "not met": "**not met**"}.get(v) or \
        "met where measured (not measured at N = %s)" % ", ".join(size_text(n) for n in t["missing"])
    m = t["minimum"]
    text += "; minimum %s at N = %s (%s)" % (rate_text(m["indices_per_second"]), size_text(m["num_items"]),
                                             CASE_TEXT.get(m["case"], m["case"]))
    if t["failing"]:
        text += "; %d of %d sizes below %s" % (len(t["failing"]), len(t["points"]), rate_text(t["threshold"]))
    if not t["on_target_device"]:
        text += "; measured on %s, not an %s" % (t["device"], TARGET_DEVICE)
    return text


def pairs(rows, case=None):
    """[(N, default row, naive row)] where both structures were measured (of one case if given)."""
    by = {(r["algorithm"], r["num_items"]): r for r in measured(rows)}
    out = []
    for n in sorted({r["num_items"] for r in rows}):
        a, b = by.get((DEFAULT, n)), by.get((NAIVE, n))
        if a and b and (case is None or a["case"] == case):
            out.append((n, a, b))
    return out


def structure_finding(rows):
    """{case: {sizes, slots_saved (naive ÷ default lane slots: lo, hi), speedup (naive ÷ default
    time: lo, hi), default_slots (lo, hi), naive_slots (lo, hi), mean_evaluations (lo, hi)}} for
    every case where both structures were measured."""
    out = {}
    for case in CASES:
        ps = pairs(rows, case)
        if not ps:
            continue
        span = lambda vals: (min(vals), max(vals))  # noqa: E731
        slots = [b["lane_slots_per_index"] / a["lane_slots_per_index"] for _, a, b in ps
                 if a.get("lane_slots_per_index") and b.get("lane_slots_per_index")]
        out[case] = {
            "sizes": [n for n, _, _ in ps],
            "speedup": span([b["seconds_median"] / a["seconds_median"] for _, a, b in ps]),
            "slots_saved": span(slots) if slots else None,
            "default_slots": span([a["lane_slots_per_index"] for _, a, _ in ps if a.get("lane_slots_per_index")])
            if slots else None,
            "naive_slots": span([b["lane_slots_per_index"] for _, _, b in ps if b.get("lane_slots_per_index")])
            if slots else None,
            "mean_evaluations": span([a["mean_evaluations"] for _, a, _ in ps if a.get("mean_evaluations")]),
        }
    return out


def _span_text(lo_hi, fmt="%.2f", unit=""):
    lo, hi = lo_hi
    return (fmt % lo + unit) if fmt % lo == fmt % hi else "%s–%s%s" % (fmt % lo, fmt % hi, unit)


def finding_sentences(finding):
    """The structure finding as sentences (one per case measured with both structures)."""
    out = []
    f = finding.get("worst")
    if f:
        lo, hi = f["speedup"]
        if lo >= 1:
            how = "%s× faster" % _span_text(f["speedup"])
        elif hi <= 1:
            how = "%s× slower" % _span_text((1 / hi, 1 / lo))
        else:
            how = "between %.2f× slower and %.2f× faster" % (1 / lo, hi)
        text = "At the worst case 2^k + 1 (N = %s) the warp queue is %s than one walk per lane" % (
            ", ".join(size_text(n) for n in f["sizes"]), how)
        if f["slots_saved"]:
            text += (": it spends %s lane slots per index against %s (%s× fewer), for %s evaluations per index"
                     % (_span_text(f["default_slots"]), _span_text(f["naive_slots"]), _span_text(f["slots_saved"]),
                        _span_text(f["mean_evaluations"], "%.3f")))
        out.append(text + ".")
    for case in ("sampler", "best"):
        f = finding.get(case)
        if not f:
            continue
        lo, hi = f["speedup"]
        if lo >= 1:
            how = "the warp queue is %s× faster" % _span_text(f["speedup"])
        elif hi <= 1:
            how = "one walk per lane is %s× faster" % _span_text((1 / hi, 1 / lo))
        else:
            how = "neither wins everywhere (default ÷ naive time %s)" % _span_text((1 / hi, 1 / lo))
        text = "At the %s (N = %s) %s" % (CASE_TEXT[case], ", ".join(size_text(n) for n in f["sizes"]), how)
        if f["slots_saved"] and f["default_slots"] == f["naive_slots"]:
            text += " (both %s lane slots per index)" % _span_text(f["default_slots"])
        elif f["slots_saved"]:
            text += " (lane slots per index %s against %s)" % (_span_text(f["default_slots"]),
                                                              _span_text(f["naive_slots"]))
        if case == "best" and hi <= 1:
            text += ": every walk is one evaluation, so the queue's bookkeeping is pure overhead"
        out.append(text + ".")
    return out


# ----------------------------------------------------------------------------------- tables

def report_table(header, body, align=None):
    align = align or "l" * len(header)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    for row in body:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    return "\n".join(out)


def size_table(rows):
    """One row per N (sampler sizes first, then 2^k and 2^k + 1 by k): both structures' G
    indices/s, the walks' evaluations per index (mean; Bijective2's 2^b/N), the longest walk, and
    each structure's lane slots per index."""
    by = {(r["algorithm"], r["num_items"]): r for r in rows}
    case_of = {r["num_items"]: r["case"] for r in rows}
    sizes = sorted(case_of, key=lambda n: (case_of[n] != "sampler", n))
    body = []
    for n in sizes:
        a, b = by.get((DEFAULT, n)), by.get((NAIVE, n))
        any_row = a or b
        g = lambda r: "%.1f" % (r["indices_per_second"] / 1e9) if r and r.get("indices_per_second") else "—"  # noqa: E731
        s = lambda r: "%.3f" % r["lane_slots_per_index"] if r and r.get("lane_slots_per_index") else "—"  # noqa: E731
        ev = any_row.get("mean_evaluations")
        b2 = any_row.get("bijective2_evaluations_per_index")
        body.append([size_text(n), any_row["case"], any_row.get("domain_bits", "—"), g(a), g(b),
                     "%.3f" % ev if ev is not None else "—", "%.3f" % b2 if b2 is not None else "—",
                     any_row.get("max_walk", "—"), s(a), s(b)])
    return report_table(["N", "case", "b", "warp queue G/s", "one per lane G/s", "evaluations / index",
                         "Bijective2 2^b/N", "longest walk", "lane slots / index (queue)",
                         "lane slots / index (per lane)"], body, "llrrrrrrrr")


# ------------------------------------------------------------------------------------ figure

def draw(rows, meta, out_dir, source):
    """(a) G indices/s against N for both structures, the sampler sizes, best and worst cases
    marked differently, the target 10 G/s; (b) lane slots per index against the walks' mean
    evaluations per index, per size and structure, with Bijective2's evaluations per index on the
    diagonal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    pts = measured(rows)
    if not pts:
        raise sr.MissingInput("%s.csv has no measured rows" % EXPERIMENT)
    palette.apply_rc()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13.0, 5.0))
    for a in STRUCTURES:
        for case in CASES:
            sel = [r for r in pts if r["algorithm"] == a and r["case"] == case]
            if not sel:
                continue
            ax.plot([r["num_items"] for r in sel], [r["indices_per_second"] / 1e9 for r in sel],
                    color=COLOURS[a], marker=MARKERS[case], ls="-" if a == DEFAULT else "--",
                    lw=1.8 if a == DEFAULT else 1.3, ms=6, mfc=COLOURS[a] if case != "worst" else "white", mew=1.4,
                    zorder=4 if a == DEFAULT else 3)
            xs = [r["mean_evaluations"] for r in sel if r.get("lane_slots_per_index")]
            ys = [r["lane_slots_per_index"] for r in sel if r.get("lane_slots_per_index")]
            bx.plot(xs, ys, ls="none", color=COLOURS[a], marker=MARKERS[case], ms=7,
                    mfc=COLOURS[a] if case != "worst" else "white", mew=1.4, zorder=4)
    ax.axhline(TARGET_GPU / 1e9, color=palette.THRESHOLD, ls=":", lw=1.0)
    ax.annotate("target 10 G indices/s (H100, issue 28)", (0.01, TARGET_GPU / 1e9), xycoords=("axes fraction", "data"),
                fontsize=7.5, va="bottom", color=palette.NOTE)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=min(5.0, min(r["indices_per_second"] for r in pts) / 1e9 / 2))
    ax.set_xlabel("N (samples in the dataset)")
    ax.set_ylabel("G indices / s (a batch of %s per call)" % size_text(pts[0]["batch"]))
    ax.set_title("(a) gpu::walking_indices throughput")
    # (b): Bijective2 evaluates the whole domain once: 2^b/N evaluations per index, no idle lanes.
    b2 = sorted({(r["bijective2_evaluations_per_index"], r["case"]) for r in pts
                 if r.get("bijective2_evaluations_per_index")})
    for v, case in b2:
        bx.plot([v], [v], ls="none", color=palette.colour("variable_philox"), marker=MARKERS[case], ms=9,
                mfc="none", mew=1.0, zorder=3)
    every = [r["mean_evaluations"] for r in pts if r.get("mean_evaluations")] + [v for v, _ in b2]
    if every:
        lo, hi = 0.95 * min(every), 1.05 * max(every)
        bx.plot([lo, hi], [lo, hi], color=palette.NOTE, lw=0.8, ls=":", zorder=1)
        mid = (lo + hi) / 2
        bx.annotate("lane slots = evaluations (no idle lane)", (mid, mid), textcoords="offset points",
                    xytext=(4, -10), fontsize=7, color=palette.NOTE, ha="left", va="top")
    groups = []  # the naive structure's points, labelled by N; points that (nearly) coincide share one label
    for r in pts:
        if r["algorithm"] == NAIVE and r.get("lane_slots_per_index") and r["case"] != "best":
            x, y = r["mean_evaluations"], r["lane_slots_per_index"]
            near = [g for g in groups if abs(g[0] - x) < 0.01 and abs(g[1] - y) < 0.05]
            if near:
                near[0][2].append(r)
            else:
                groups.append((x, y, [r]))
    for x, y, group in groups:
        ns = [r["num_items"] for r in group]
        if len(ns) > 2 and all(n - 1 > 0 and (n - 1) & (n - 2) == 0 for n in ns):
            text = "2^k+1, k = %s" % ", ".join(str((n - 1).bit_length() - 1) for n in sorted(ns))
        else:
            text = ", ".join(size_text(n) for n in sorted(ns))
        bx.annotate(text, (x, y), textcoords="offset points", xytext=(-8 if x > 1.8 else 6, -6 if y < 1.9 else 0), fontsize=6.5,
                    color=palette.NOTE, ha="right" if x > 1.8 else "left")
    bx.set_xlabel("evaluations of the bijection per index (mean over the walks)")
    bx.set_ylabel("lane slots per index (warp iterations × 32 / indices)")
    bx.set_title("(b) what the warps spend against what the walks need")
    handles = [Line2D([], [], color=COLOURS[a], ls="-" if a == DEFAULT else "--", lw=1.8) for a in STRUCTURES]
    labels = [LABELS[a] for a in STRUCTURES]
    handles += [Line2D([], [], color="grey", ls="none", marker=MARKERS[c], mfc="grey" if c != "worst" else "white")
                for c in CASES]
    labels += ["N = 10^6, 10^8, 10^9, 3·10^9 (sampler)", "N = 2^k (best case)", "N = 2^k + 1 (worst case)"]
    handles.append(Line2D([], [], color=palette.colour("variable_philox"), ls="none", marker="o", mfc="none", ms=9))
    labels.append("Bijective2: 2^b/N evaluations per index (b)")
    fig.tight_layout(rect=(0, 0.1, 1, 0.95))
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=8, framealpha=0.92)
    fig.suptitle("The walking permutation as an index generator on the GPU: cycle walking over VariablePhilox, "
                 "two walk structures", fontsize=11)
    footer(fig, sr.machine_label(meta, "this run" if source.fresh else
                                 "recorded copy results/recorded/%s" % source.device))
    return save_figure(fig, out_dir, FIGURE)


def extend(results, out_dir, recorded_root, written, problems):
    """plot_all.py's hook: draws the figure when walking_sampler results exist (fresh or recorded)."""
    return sr.gpu_figure_hook(FIGURE, EXPERIMENT, load, draw, results, out_dir, recorded_root, written, problems)


def required_figures(results, recorded_root):
    """Figure names scripts/check_outputs.py requires: ours when walking_sampler results exist."""
    return sr.required_if_loaded(FIGURE, load, results, recorded_root)


# ----------------------------------------------------------------------------------- section


def report_section(report, results, recorded_root):
    """Adds the walking-sampler section to a make_report.Report (add, figure, summary; and
    note_gpu_provenance, when the report has it, for the provenance table)."""
    report.add("## The walking permutation as an index generator (`%s`)" % EXPERIMENT)
    loaded, why = sr.load_or_reason(load, results, recorded_root, EXPERIMENT)
    if loaded is None:
        report.add("**Not measured yet:** %s. `walking_sampler --scale default` (GPU) times "
                   "`gpu::walking_indices` in both walk structures at N = 10^6 … 3·10^9 and 2^k, 2^k + 1." % why)
        report.summary.append(("Walking permutation on the GPU (≥ 10 G indices/s)", "not measured", why))
        return None
    source, rows, meta = loaded
    where = "this run (`%s`)" % sr.repo_relative(source.directory) if source.fresh else \
        "recorded copy `%s`" % sr.repo_relative(source.directory)
    lead = "Measured on **%s** — %s, %s." % (meta.get("gpu_name", "an unnamed GPU"), where,
                                             str(meta.get("date", "?"))[:10])
    if hasattr(report, "note_gpu_provenance"):  # the commit, whether the measured code changed since, the clocks
        lead += " " + report.note_gpu_provenance(source, meta)
    else:
        lead += " Commit `%s`%s." % (str(meta.get("commit", "?"))[:10],
                                     " (work tree dirty)" if meta.get("worktree_dirty") else "")
    batch = measured(rows)[0]["batch"] if measured(rows) else None
    stat = meta.get("stat_positions")
    stat = size_text(int(stat)) if str(stat or "").isdigit() else "?"
    report.add("The data-loader sampler's global order is σ(0), σ(1), … with σ the walking permutation: σ(j) = "
               "the first of g(j), g(g(j)), … below N (cycle walking, Black & Rogaway, CT-RSA 2002), g the "
               "VariablePhilox bijection f on [0, 2^b), 2^(b−1) < N ≤ 2^b, followed by the exchange of 0 and 1 when "
               "an unused key bit is set (f is always an even permutation; the exchange makes σ odd or even with "
               "equal chance). `gpu::walking_indices` writes a batch of "
               "%s consecutive positions of that order to device memory (positions 0 … batch − 1 taken mod N, as a "
               "padded sampler does; every batch checked against the CPU's `walking_indices` on 2^16 positions). "
               "A walk takes about 2^b/N evaluations of f on average — the work Bijective2 does per item, since it "
               "evaluates the whole domain once — but the lanes of a warp walk for different lengths: with one "
               "walk per lane (`walking_one_per_lane`) the warp waits for its longest walk; the default "
               "(`walking_warp_queue`) hands a lane whose walk ended the next position of a chunk of 2048. *Lane "
               "slots per index* counts what the warps spend (warp iterations × 32 ÷ indices, emulated on the host "
               "for the first %s positions, as are the walk statistics); it cannot fall below the mean "
               "evaluations." % (size_text(batch) if batch else "?", stat) + " " + lead)
    report.add(report.figure(FIGURE, "Walking permutation on the GPU: (a) G indices/s against N for both walk "
                                     "structures, (b) lane slots per index against evaluations per index"))
    report.add("Per N (G indices/s: a batch of %s, CUDA events, median of %s; b: the domain's bits):"
               % (size_text(batch) if batch else "?", meta.get("reps", "?")), size_table(rows))
    t = target_verdict(rows, meta)
    naive = target_verdict(rows, meta, NAIVE)
    text = ("**Target (issue 28 §3): ≥ 10 G indices/s on the H100 at every N, worst case 2^k + 1 included (a batch "
            "of 2^28 indices), for the default structure: %s.**" % verdict_text(t))
    if naive["verdict"] != "not measured":
        text += " The naive structure alone: %s." % verdict_text(naive).replace("**", "")
    report.add(text)
    finding = structure_finding(rows)
    sentences = finding_sentences(finding)
    if sentences:
        report.add("Structure: " + " ".join(sentences))
    longest = max((r for r in rows if r.get("max_walk") is not None and r["case"] == "worst"),
                  key=lambda r: r["max_walk"], default=None)
    worst_mean = max((r for r in rows if r.get("mean_evaluations") is not None and r["case"] == "worst"),
                     key=lambda r: r["mean_evaluations"], default=None)
    if worst_mean is not None:
        report.add("Evaluations per index at the worst case: at most %.4f measured (N = %s; Bijective2 %.4f, the "
                   "walk's expectation 2^b/N < 2; the mean is over the first %s positions), the longest walk %d "
                   "evaluations (N = %s)." % (worst_mean["mean_evaluations"], size_text(worst_mean["num_items"]),
                                             worst_mean["bijective2_evaluations_per_index"], stat, longest["max_walk"],
                                             size_text(longest["num_items"])))
    report.add("The walking *shuffle* (a gather through σ, registry `walking`) against Bijective2 is in the Fig. 10 "
               "section: walking ÷ Bijective2 per size, worst and best case.")
    summary = verdict_text(t).replace("**", "")
    verdict = t["verdict"]
    if not t["on_target_device"]:
        verdict += " (on %s, not an %s)" % (t["device"], TARGET_DEVICE)
    report.summary.append(("Walking permutation on the GPU (≥ 10 G indices/s)", verdict,
                           ". ".join([summary] + sentences[:1])))
    return t
