"""The sort report sections (Onesweep, Adinets & Merrill: Figs. 9–11, Table 2; the sort
headline table, the selector, issue 33's small sorts): the family "sort" of
experiments/manifest.toml.

load(results, recorded) reads its experiments; report_section(report, sort_data, table2,
headline, small) writes the sections into a paper.make_report.Report. The verdicts are the
module-level functions (tests/python/test_sort_verdicts.py and test_small_sorts.py test them)."""

import csv
import math
import os
import sys

from figures import shuffle_results as sr
from figures import sort_results as so
from paper import provenance as pv  # commit of older recorded runs
from paper.report_text import GPU_PROVENANCE_KEYS, display_path, median, provenance, sentence, table

def evaluate_targets(targets, points):
    """Each target (what, shape, q, smallest log2 n, largest log2 n, threshold; e.g.
    sort_results.HEADLINE_TARGETS) checked on sort_results.ratio_points: [(what, verdict, lowest
    point or None, threshold, points used)], verdict 'met', 'not met' or 'not measured'."""
    out = []
    for what, shape, q, lo, hi, threshold in targets:
        verdict, low, sel = so.check_target(points, shape, q, lo, hi, threshold)
        out.append((what, verdict, low, threshold, sel))
    return out


def targets_verdict(results):
    """(verdict, why) over evaluate_targets' results: 'all met (k of k)', 'm of k not met',
    'met where measured (j of k)' or 'not measured'."""
    met = [r for r in results if r[1] == "met"]
    missed = [r for r in results if r[1] == "not met"]
    unmeasured = [r for r in results if r[1] == "not measured"]
    why = []
    if missed:
        why.append("not met: %s" % "; ".join("%s (%s, needs ≥ %.2f)" % (w, so.fmt_ratio(low["ratio"], t), t)
                                            for w, _, low, t, *_ in missed))
    if unmeasured:
        why.append("not measured: %s" % "; ".join(w for w, *_ in unmeasured))
    if not met and not missed:
        return "not measured", why
    if missed:
        verdict = "%d of %d not met" % (len(missed), len(results))
    elif unmeasured:
        verdict = "met where measured (%d of %d)" % (len(met), len(results))
    else:
        verdict = "all met (%d of %d)" % (len(met), len(results))
    return verdict, why


def onesweep_target_verdict(rows, target):
    """The project's Onesweep target on one figure (ONESWEEP_TARGET): ours / CUB (best) at q = 1,
    each the median over the sizes n >= 2^SATURATING_LOG2 (the value at the largest size when
    none is that large). rows: a sort experiment's rows (sort_results.load_sort_experiment;
    with or without the synthetic CUB (best) rows). Returns (verdict, ours keys/s, CUB (best)
    keys/s, ratio): 'meets target' or '**below target**', or 'measured' (ratio None) when ours
    or CUB was not measured at q = 1."""
    if not any(r["algorithm"] == so.CUB_BEST for r in rows):
        rows = so.with_cub_best(rows)
    ours, cub = so.saturated(rows, so.OURS, 1)[0], so.saturated(rows, so.CUB_BEST, 1)[0]
    if ours and cub:
        ratio = ours / cub
        return ("meets target" if ratio >= target else "**below target**"), ours, cub, ratio
    return "measured", ours, cub, None


# --------------------------------------------------------------------------- loading and the section hook

def load(results, recorded):
    """(sort_data, table2, headline, small, problems): sort_data {experiment: (GpuSource, rows,
    meta)} of Figs. 9–11 with results; table2 (GpuSource, rows, meta) of
    onesweep_table2_digit_width or None; headline (GpuSource, rows, meta) of sort_headline or
    None; small [(path, device, rows, meta)] of issue 33's small-size runs; problems (messages;
    non-empty: the report cannot be written). Fresh results first, else the newest recorded."""
    problems = []
    sort_data = {}  # Onesweep Figs. 9-11 (GPU): fresh, else the newest recorded copy; absent: "not recorded"
    for name, source in so.sort_sources(results, recorded).items():
        try:
            sort_data[name] = (source,) + so.load_sort_experiment(source.directory, name)
        except sr.MissingInput as e:
            problems.append(str(e))
    headline = None  # the sort headline table: fresh, else recorded; absent: "not measured yet"
    headline_source = sr.gpu_source(results, so.HEADLINE, recorded)
    if headline_source is not None:
        try:
            headline = (headline_source,) + so.load_sort_experiment(headline_source.directory, so.HEADLINE)
        except sr.MissingInput as e:
            problems.append(str(e))
    table2 = None
    table2_source = sr.gpu_source(results, "onesweep_table2_digit_width", recorded)
    if table2_source is not None:  # its columns are the digit-width program's own: read as text
        try:
            with open(os.path.join(table2_source.directory, "onesweep_table2_digit_width.csv"), newline="") as f:
                table2_rows = list(csv.DictReader(f))
            table2_meta = sr.read_meta(os.path.join(table2_source.directory, "onesweep_table2_digit_width.meta.json"))
            if table2_rows:
                table2 = (table2_source, table2_rows, table2_meta)
        except (OSError, csv.Error, sr.MissingInput) as e:
            print("make_report: note: onesweep_table2_digit_width not shown: %s" % e, file=sys.stderr)
    small = []  # issue 33's small-size sort_headline runs: fresh, else the newest recorded first
    if not problems:
        for path, device in so.small_runs(results, recorded):
            try:
                small.append((path, device) + so.load_sort_csv(path))
            except sr.MissingInput as e:
                problems.append(str(e))
    return sort_data, table2, headline, small, problems


def report_section(report, sort_data, table2, headline=None, small=None):
    """The sort sections (onesweep_sections) from load()'s results."""
    onesweep_sections(report, sort_data, table2, headline, small)


# ----------------------------------------------------------------------- Onesweep: Figs. 9–11, Tables 1–2

# The project's Onesweep targets: ours vs CUB (best: the fastest CUB configuration) at 2^28-ish, q = 1.
ONESWEEP_TARGET = {"onesweep_fig09_keys32": 1.0, "onesweep_fig10_pairs32": 0.9, "onesweep_fig11_keys64": 0.9}
# Bytes moved per key by an ideal onesweep with 8-bit digits: p = key bits / 8 passes,
# keys read once for the histogram + read and written per pass; values read and written per pass.
ONESWEEP_BYTES_PER_KEY = {"onesweep_fig09_keys32": 4 * 9, "onesweep_fig10_pairs32": 4 * 9 + 4 * 8,
                          "onesweep_fig11_keys64": 8 * 17}

def _alg_name(algorithm, rows, renamed):
    """Display name of a sort, with the name it was recorded under when that was a legacy one."""
    text = so.display(algorithm, next((r["label"] for r in rows if r["algorithm"] == algorithm), ""))
    if algorithm in renamed:
        text += " (recorded as `%s`)" % renamed[algorithm]
    return text

def _winners_text(counts):
    """'n64 at 9, db n64 at 4' (most wins first), '—' when empty."""
    ranked = sorted(counts.items(), key=lambda ac: (-ac[1], ac[0]))
    return ", ".join("%s at %d" % (so.short(a), c) for a, c in ranked) or "—"

def _cub_configurations_note(report, rows, renamed, experiment):
    """One paragraph: which CUB configurations CUB (best) is taken over in this run, and which
    of today's registered ones the run lacks (an older recording)."""
    configs = so.cub_configurations(rows)
    listed = ", ".join("`%s`%s" % (a, " (recorded as `%s`)" % renamed[a] if a in renamed else "") for a in configs)
    text = ("**CUB (best)** in this section is, at each point (shape, band q, size n), the fastest of the CUB "
            "configurations measured in this run: %s." % (listed or "none"))
    missing = [a for a in so.EXPECTED_CUB if a not in configs]
    if configs and missing:
        text += (" This run has no %s (%s), so CUB (best) here is over fewer configurations than the registry "
                 "has today; the 64-bit-count configuration measured about 15%% faster than the 32-bit "
                 "one for 2^28 uint32 keys on the H100. Rerun `%s` to compare with every configuration."
                 % (", ".join("`%s`" % a for a in missing),
                    "`%s.csv` was recorded before they were registered" % experiment if renamed else
                    "the build that ran it did not register them", experiment))
    return text

def onesweep_sections(report, sort_data, table2, headline=None, small=None):
    """sort_data: {experiment: (GpuSource, rows, meta)} for the sort experiments with results;
    table2: (GpuSource, rows, meta) of onesweep_table2_digit_width, or None; headline:
    (GpuSource, rows, meta) of sort_headline, or None (not measured yet); small: the
    small-size sort_headline runs [(csv path, device or None, rows, meta)], the one to
    report first (sort_results.small_runs), or None / [] (not measured yet)."""
    facts = so.load_facts()
    report.sort_used = sort_data
    report.add("The paper (§4) sorts 32-bit keys, 32-bit keys with 32-bit values and 64-bit keys on an %s, at "
             "%d problem sizes per entropy band drawn log-uniformly from 2^%d to 2^%d, for the Thearling–Smith "
             "bands q = {%s} (key = AND of q uniform words; Table 1 gives their entropy per bit), and compares "
             "Onesweep with CUB 1.10's reduce-then-scan LSD sort and with HRS (an MSD sort). Our programs "
             "`onesweep_fig09_keys32`, `onesweep_fig10_pairs32`, `onesweep_fig11_keys64` and `%s` time every "
             "GPU sort in the registry (CUDA events, median of ≥ 5 runs, L2 flushed; each output checked on the "
             "GPU). Summary numbers below are medians over the sizes n ≥ 2^%d (the paper's \"saturating problem "
             "sizes\"), in GKey/s."
             % (facts["gpu_machine"]["value"], int(facts["sizes_per_band"]["number"]),
                int(facts["sizes_min_log2"]["number"]), int(facts["sizes_max_log2"]["number"]),
                facts["bands"]["value"], so.HEADLINE, so.SATURATING_LOG2))
    report.add("**Ours vs CUB (best).** `cub::DeviceRadixSort` is registered in every configuration a user can "
             "choose that changes its speed: the in/out overload with a 32-bit or a 64-bit item count "
             "(`cub_onesweep_n32`, `cub_onesweep_n64`; CCCL's sm_90 tuning gives them different items per "
             "thread), the `cub::DoubleBuffer` overload with either count (`cub_onesweep_db_n32`, "
             "`cub_onesweep_db_n64`; no n-sized temporary, the input is overwritten), and CUB's "
             "reduce-then-scan path (`cub_reduce_then_scan`). Every comparison with CUB below is with **CUB "
             "(best)**: at each point (shape, q, n) the fastest CUB configuration measured there, named where "
             "it matters. Ours is `onesweep` (the out-of-place API) unless a column says otherwise. Runs "
             "recorded before these configurations existed name the one CUB sort `cub_onesweep`; it was the "
             "in/out overload with a 32-bit count and is read as `cub_onesweep_n32`.")
    report.add("**HRS** (Stehle & Jacobsen, SIGMOD 2017), the paper's MSD comparison in Figs. 9–11, has no "
             "licensed, buildable public code; we wrote the algorithm from its paper: `%s` "
             "(`lib/include/onepass/sort/hybrid_msd.cuh`: 8-bit MSD levels of a bucket histogram and a "
             "coalesced scatter, buckets of up to 6144 keys finished in shared memory, small buckets batched, "
             "the bookkeeping on the device), drawn in Figs. 9–11 beside ours. `%s` is `onepass::sort`, which "
             "runs onesweep or the hybrid sort per call: inputs of at most 6144 keys by one block in shared memory, "
             "64-bit keys from 2^25 keys (2^22 with values) to about 2^28.5 by the hybrid sort when a "
             "2^14-key sample says their top 16 bits spread like uniform keys', everything else by onesweep "
             "(`lib/include/onepass/sort/sort.cuh`). The paper's own finding about HRS (§4): Onesweep is "
             "more consistent across entropy bands and faster in almost all cases for 32-bit keys; HRS leads "
             "for large 64-bit inputs." % (so.HYBRID, so.SELECTOR))
    sort_headline_section(report, headline)
    small_sorts_section(report, small, sort_data)
    selector_section(report, headline, sort_data)
    for name, (fig_no, what) in so.SORT_EXPERIMENTS.items():
        report.add("## Fig. %d — %s" % (fig_no, what))
        if name in sort_data:
            onesweep_figure_section(report, name, fig_no, what, facts, *sort_data[name])
        else:
            report.add("Not recorded: no `%s.csv` in `%s` (a run on a machine with a GPU) nor under `%s/<device>/` "
                     "(a run recorded with `make record-gpu`)." % (name, report.results, display_path(report.recorded)))
            if fig_no == 9:
                report.add("The paper's numbers for Onesweep on the A100 (text of §4): %s GKey/s at q = 1 (256M keys), "
                         "%s at q = 8, up to %s at q = 16; %s–%s× faster than CUB 1.10 for uniform keys at "
                         "saturating sizes." % (sr.fmt_num(facts["keys32_q1_gkeys"]["number"]),
                                                sr.fmt_num(facts["keys32_q8_gkeys"]["number"]),
                                                sr.fmt_num(facts["keys32_q16_gkeys"]["number"]),
                                                sr.fmt_num(facts["speedup_vs_cub110_low"]["number"]),
                                                sr.fmt_num(facts["speedup_vs_cub110_high"]["number"])))
            report.summary.append(("Onesweep Fig. %d (%s)" % (fig_no, what), "not recorded",
                                 "needs a GPU run (make figures on a GPU machine, or results/recorded/<device>/)"))
    report.add("## Table 2 — histogram and partition time vs digit width (paper §4)")
    paper = so.load_table2()
    report.add("The paper's Table 2 (%s, 256M random uint32 keys; partition = one digit-binning pass, "
             "per bit = partition / d):" % paper[0]["machine"],
             table(["passes p", "bits d", "histogram (µs)", "partition (µs)", "partition / bit (µs)"],
                   [[r["partition_passes"], r["digit_bits"], r["histogram_us"], r["partition_us"],
                     r["partition_per_bit_us"]] for r in paper], "rrrrr"))
    if table2 is None:
        report.add("Ours: not recorded (`onesweep_table2_digit_width.csv` neither in `%s` nor under `%s/<device>/`)."
                 % (report.results, display_path(report.recorded)))
        report.summary.append(("Onesweep Table 2 (digit width)", "not recorded", "needs a GPU run"))
    else:
        source, rows, meta = table2
        columns = list(rows[0].keys())
        report.add(report._measured_on(source, meta) + " Ours, as the experiment wrote it:",
                 table(columns, [[sr.fmt_num(r[c]) if isinstance(r[c], float) else r[c] for c in columns]
                                 for r in rows]))
        report.add(report.figure(so.TABLE2, "Onesweep paper Table 2 as a figure: histogram, one partition pass "
                             "and partition time per bit vs digit width, ours (%s) beside the paper's"
                             % meta.get("gpu_name", "GPU")))
        report.summary.append(("Onesweep Table 2 (digit width, %s)" % meta.get("gpu_name", "GPU"), "measured",
                             "see the table beside the paper's"))

def _targets_table(report, targets, points, heading):
    """Rows of a targets table (sort_results HEADLINE_TARGETS, FIG09_TARGETS) and the (what,
    verdict, lowest point) of each."""
    out, trows = [], []
    for (what, shape, q, lo, hi, threshold), (_, verdict, low, _, sel) in zip(targets,
                                                                              evaluate_targets(targets, points)):
        if low is None:
            measured = "—"
        elif lo == hi:
            measured = "%s (%.2f vs %.2f GKey/s; CUB (best) = `%s`)" % (
                so.fmt_ratio(low["ratio"], threshold), low["ours"] / 1e9, low["best"] / 1e9, low["winner"])
        else:
            measured = "lowest %s at n = %s (CUB (best) = `%s`), over %d sizes: %s" % (
                so.fmt_ratio(low["ratio"], threshold), so.size_text(low["n"]), low["winner"], len(sel),
                ", ".join("%s %s" % (so.size_text(p["n"]), so.fmt_ratio(p["ratio"], threshold)) for p in sel)
                if len(sel) <= 6 else "%d of them below %g" % (sum(p["ratio"] < threshold for p in sel),
                                                                threshold))
        trows.append((what, "≥ %.2f×" % threshold, measured,
                      {"met": "met", "not met": "**not met**"}.get(verdict, verdict)))
        out.append((what, verdict, low, threshold))
    return table((heading, "ours / CUB (best)", "measured", "verdict"), trows, "lrll"), out

def selector_section(report, headline, sort_data):
    """The hybrid MSD sort (after HRS) and onepass::sort against onesweep and CUB
    (best) at the headline points, the selector's choices, its targets, and the paper's HRS
    statements beside our hybrid sort's numbers from Figs. 9 and 11."""
    report.add("## Hybrid MSD (after HRS) and `onepass::sort`")
    heading = "target (the project's, not a claim of the paper)"
    if headline is None or not any(r["algorithm"] == so.SELECTOR for r in headline[1]):
        report.add("**Not measured yet:** no `%s` rows in `%s.csv` (fresh or recorded). `%s` and `%s` are "
                 "registered GPU sorts; a GPU run of `%s` times them beside onesweep and CUB."
                 % (so.SELECTOR, so.HEADLINE, so.HYBRID, so.SELECTOR, so.HEADLINE))
        report.summary.append(("onepass::sort and the hybrid MSD sort (targets)", "not measured yet",
                             "no %s rows in %s.csv" % (so.SELECTOR, so.HEADLINE)))
        return
    source, rows, meta = headline
    choices = so.selector_choices(meta)
    pts = so.selector_points(rows)
    body = []
    for p in pts:
        c = so.choice_at(choices, p["shape"], p["n"], p["q"]) or "—"
        faster = "hybrid_msd" if p["hybrid"] > p["onesweep"] else "onesweep"
        body.append([so.SHAPE_DISPLAY.get(p["shape"], p["shape"]), p["q"], so.size_text(p["n"]),
                     "%.2f" % (p["onesweep"] / 1e9), "%.2f" % (p["hybrid"] / 1e9), "%.2f" % (p["selector"] / 1e9),
                     "%.2f" % (p["cub"] / 1e9) if p["cub"] else "—", c, faster,
                     ("**%.3f**" if p["keeps"] < so.SELECTOR_KEEPS else "%.3f") % p["keeps"],
                     "—" if p["vs_cub"] is None else ("**%.3f**" if p["vs_cub"] < 1 else "%.3f") % p["vs_cub"],
                     "—" if not p["cub"] else "%.3f" % (p["hybrid"] / p["cub"])])
    report.add(report._measured_on(source, meta) + " GKey/s; *chose*: what `onepass::sort` ran there (logged by the "
             "experiment, meta.json `onepass_sort_choice`); *faster*: the faster of our two sorts in this run; "
             "*kept*: onepass::sort / the faster of ours (bold below %.2f); ratios to CUB (best) below 1 in bold."
             % so.SELECTOR_KEEPS,
             table(["shape", "q", "n", "onesweep", "hybrid MSD", "onepass::sort", "CUB (best)", "chose",
                    "faster", "kept", "onepass::sort / CUB (best)", "hybrid / CUB (best)"], body,
                   "lrrrrrrllrrr"))
    sel_points = [dict(p, ratio=p["vs_cub"], ours=p["selector"], best=p["cub"],
                       winner=so.short(so.cub_best(rows)[(p["shape"], p["q"], p["n"])]["algorithm"]))
                  for p in pts if p["vs_cub"] is not None]
    text, results = _targets_table(report, so.SELECTOR_TARGETS, sel_points, heading)
    lost = [p for p in pts if p["keeps"] < so.SELECTOR_KEEPS]
    below = [p for p in pts if p["vs_cub"] is not None and p["best_ours"] / p["cub"] >= 1 and p["vs_cub"] < 1]

    def where(p, value):
        # A point where onepass::sort ran the faster sort's code: the gap is between two timings
        # of the same kernels (run-to-run noise), not a wrong choice.
        chose = so.choice_at(choices, p["shape"], p["n"], p["q"])
        same = chose is not None and chose == ("hybrid_msd" if p["hybrid"] > p["onesweep"] else "onesweep")
        return "%s q = %d %s (%.3f%s)" % (p["shape"], p["q"], so.size_text(p["n"]), value,
                                          "; it ran %s, the faster sort's code" % chose if same else "")
    lines = ["onepass::sort ≥ %.2f× the faster of ours at every point: %s" % (
                 so.SELECTOR_KEEPS, "**not met** at %s" % ", ".join(where(p, p["keeps"]) for p in lost)
                 if lost else "met (%d points; lowest %.3f)" % (len(pts), min(p["keeps"] for p in pts))),
             "onepass::sort ≥ 1.0× CUB (best) wherever either of ours is: %s" % (
                 "**not met** at %s" % ", ".join(where(p, p["vs_cub"]) for p in below) if below else "met")]
    verdict, why = targets_verdict(results)
    if lost or below:
        verdict = "not all met"
    report.add("The project's targets, `onepass::sort` against CUB (best) in the same run:", text,
             "\n".join("- " + l for l in lines),
             "**Verdict (onepass::sort targets): %s.**%s" % (verdict, (" " + sentence(why)) if why else ""))
    report.summary.append(("onepass::sort and the hybrid MSD sort (targets)", verdict,
                         "; ".join(lines)))
    # The paper's HRS statements beside our hybrid sort (Figs. 9 and 11, q = 1).
    notes = []
    for name, what in (("onesweep_fig09_keys32", "u32 keys (Fig. 9)"), ("onesweep_fig11_keys64",
                                                                       "u64 keys (Fig. 11)")):
        if name not in sort_data:
            continue
        st = so.hybrid_statements(sort_data[name][1])
        if st["advantage"] is None:
            continue
        drop = ("median %.2f GKey/s above %s keys against %.2f from 2^27 to there (%.2f×)"
                % (st["drop_above"] / 1e9, so.size_text(so.HRS_DROP_KEYS), st["drop_below"] / 1e9,
                   st["drop_ratio"]) if st["drop_ratio"] else "no sizes on both sides of %s keys"
                % so.size_text(so.HRS_DROP_KEYS))
        notes.append("- %s, q = 1: *advantage for 64-bit keys* — hybrid / onesweep %.2f× (median over %d sizes "
                     "n ≥ 2^%d); *drop above ~550M keys* — %s; *choppier* — median change between neighbouring "
                     "sizes %.1f %% for the hybrid sort, %.1f %% for onesweep."
                     % (what, st["advantage"], st["advantage_sizes"], so.SATURATING_LOG2, drop,
                        100 * st["choppy_hybrid"], 100 * st["choppy_onesweep"]))
    # The selector over every size and band of Figs. 9-11 (sort_headline has bands for u32 keys only).
    fig_lines = []
    for name, what in (("onesweep_fig09_keys32", "u32 keys (Fig. 9)"), ("onesweep_fig10_pairs32",
                                                                       "u32 + u32 pairs (Fig. 10)"),
                       ("onesweep_fig11_keys64", "u64 keys (Fig. 11)")):
        if name not in sort_data:
            continue
        fpts = so.selector_points(sort_data[name][1])
        if not fpts:
            continue
        low = min(fpts, key=lambda p: p["keeps"])
        kept = sum(p["keeps"] >= so.SELECTOR_KEEPS for p in fpts)
        fchoices = so.selector_choices(sort_data[name][2])
        chosen = [(p, so.choice_at(fchoices, p["shape"], p["n"], p["q"])) for p in fpts]
        wrong = [(p, c) for p, c in chosen
                 if c is not None and c != ("hybrid_msd" if p["hybrid"] > p["onesweep"] else "onesweep")]
        logged = sum(c is not None for _, c in chosen)
        fig_lines.append("- %s: onepass::sort ≥ %.2f× the faster of ours at %d of %d points (sizes × bands); "
                         "lowest %.3f at %s, q = %d; the hybrid sort was the faster at %d points; the choice "
                         "was the faster sort at %d of %d logged points%s."
                         % (what, so.SELECTOR_KEEPS, kept, len(fpts), low["keeps"], so.size_text(low["n"]),
                            low["q"], sum(p["hybrid"] > p["onesweep"] for p in fpts), logged - len(wrong), logged,
                            (" (not at %s)" % "; ".join("%s q = %d, ran %s, hybrid / onesweep %.2f×" % (
                                so.size_text(p["n"]), p["q"], c, p["hybrid"] / p["onesweep"])
                                for p, c in wrong[:6])) if wrong else ""))
    if fig_lines:
        report.add("The same check over every size and entropy band of the Figs. 9–11 runs (not issue targets; "
                 "skewed bands are where stage 2 of the rule, the sample, matters). Where onepass::sort ran "
                 "the faster sort, a kept ratio below 1 compares two timings of the same kernels: the low "
                 "points are disturbed measurements of single rows (7 timed runs each), which move from run "
                 "to run; the choice itself is judged by the last count.", "\n".join(fig_lines))
    if notes:
        report.add("The paper's HRS statements (§4–5: HRS's response is choppier, it drops above about 550M "
                 "keys, and it leads for 64-bit keys) beside our hybrid sort after it:", "\n".join(notes))
    report.add(report.figure("sort_selector", "onepass::sort's choice and the faster of our two sorts over (n, q), "
                         "u32 keys (Fig. 9's run) and u64 keys (Fig. 11's run)"))

def sort_headline_section(report, headline):
    """The one-screen sort table (experiment sort_headline): ours, CUB (best) and the
    configuration that won, each CUB configuration, thrust, and ours / CUB (best), at fixed
    sizes; then the project's targets, met or not."""
    report.add("## Sort headline — ours vs CUB (best) at fixed sizes (`%s`)" % so.HEADLINE)
    target_heading = "target (the project's, not a claim of the paper)"
    if headline is None:
        report.add("**Not measured yet:** no `%s.csv` in `%s` (a run on a machine with a GPU) nor under "
                 "`%s/<device>/` (a run recorded with `make record-gpu`). The experiment times every registered "
                 "GPU sort at n = 2^20, 2^24, 2^28 and 2^30 for u32 keys at q = 1, 2, 3, 4, 8, 16 and for u32 + "
                 "u32 pairs, u64 keys, u64 + u64 pairs and f32 keys at q = 1; this section then shows ours, CUB "
                 "(best), each CUB configuration, thrust and the ratio ours / CUB (best), and checks the targets "
                 "below." % (so.HEADLINE, report.results, display_path(report.recorded)))
        text, results = _targets_table(report, so.HEADLINE_TARGETS, [], target_heading)
        report.add(text)
        report.summary.append(("Sort headline vs CUB (best) (targets)", "not measured yet",
                             "no %s.csv, fresh or recorded" % so.HEADLINE))
        return
    source, rows, meta = headline
    renamed = so.legacy_names(rows)
    points = so.ratio_points(rows)
    db_points = {(p["shape"], p["q"], p["n"]): p for p in so.ratio_points(rows, so.OURS_DB)}
    best = so.cub_best(rows)
    configs = so.cub_configurations(rows)
    present = {r["algorithm"] for r in rows}
    has_db = so.OURS_DB in present
    has_thrust = "thrust_sort" in present
    value = {(r["algorithm"], r["shape"], r["q"], r["n"]): r["keys_per_second"] for r in rows}
    keys = sorted({(r["shape"], r["q"], r["n"]) for r in rows},
                  key=lambda k: (so.shape_order({r["shape"] for r in rows}).index(k[0]), k[1], k[2]))
    gk = lambda a, k: ("%.2f" % (value[(a,) + k] / 1e9)) if value.get((a,) + k) else "—"  # noqa: E731
    header = ["shape", "q", "n", "ours"] + (["ours (db)"] if has_db else []) + ["CUB (best)", "won by"]
    header += [so.short(a) for a in configs] + (["thrust"] if has_thrust else [])
    header += ["ours / CUB (best)", "range over the runs"] + (["ours (db) / CUB (best)"] if has_db else [])
    by_point = {(p["shape"], p["q"], p["n"]): p for p in points}
    spread = so.ratio_ranges(rows)
    body = []
    for k in keys:
        b = best.get(k)
        row = [so.SHAPE_DISPLAY.get(k[0], k[0]), k[1], so.size_text(k[2]), gk(so.OURS, k)]
        row += [gk(so.OURS_DB, k)] if has_db else []
        row += ["%.2f" % (b["keys_per_second"] / 1e9) if b else "—", so.short(b["algorithm"]) if b else "—"]
        row += [gk(a, k) for a in configs] + ([gk("thrust_sort", k)] if has_thrust else [])
        for pts in ([by_point] + ([db_points] if has_db else [])):
            p = pts.get(k)
            row.append("—" if p is None else ("**%s**" if p["ratio"] < 1 else "%s") % so.fmt_ratio(p["ratio"]))
            if pts is by_point:
                lohi = spread.get(k)
                row.append("—" if lohi is None else "%.3f–%.3f" % lohi)
        body.append(row)
    report.add(report._measured_on(source, meta) + " GKey/s (n / median time); **CUB (best)** is the fastest of "
             "the CUB columns at that point, *won by* names it (n32 / n64: `cub_onesweep_n32` / `_n64`, in/out "
             "overload with a 32- / 64-bit item count; db: the `cub::DoubleBuffer` overload; rts: "
             "`cub_reduce_then_scan`); *ours* is `onesweep` (out-of-place)%s; ratios below 1 in bold; *range over "
             "the runs*: ours / CUB (best) from the least to the most favourable pairing of the timed repetitions "
             "(CUB (best)'s fastest run over our slowest, its slowest over our fastest)."
             % ("; *ours (db)* is `onesweep_db` (double-buffer API, input copied into the first buffer outside "
                "the timed region)" if has_db else ""),
             table(header, body, "".join("l" if h in ("shape", "q", "won by") else "r" for h in header)))
    report.add(_cub_configurations_note(report, rows, renamed, so.HEADLINE))
    slower = [p for p in points if p["ratio"] < 1]
    if not points:
        report.add("No point has both `%s` and a CUB configuration, so no ratio can be given." % so.OURS)
    elif slower:
        report.add("Ours / CUB (best) is **below 1 at %d of %d points**: %s." % (
            len(slower), len(points), "; ".join(
                "%s%s at %s: %s (CUB (best) = `%s`)" % (so.SHAPE_DISPLAY.get(p["shape"], p["shape"]),
                                                       " q = %d" % p["q"] if p["shape"] == "keys_u32" else "",
                                                       so.size_text(p["n"]), so.fmt_ratio(p["ratio"]), p["winner"])
                for p in slower)))
    else:
        report.add("Ours / CUB (best) is at least 1 at every one of the %d points." % len(points))
    report.add(report.figure(so.HEADLINE, "Sort headline: onesweep (ours) / CUB (best) per shape, band and size on "
                         "%s, with the project's targets" % meta.get("gpu_name", "the GPU")))
    text, results = _targets_table(report, so.HEADLINE_TARGETS, points, target_heading)
    verdict, why = targets_verdict(results)
    report.add("The targets (the project's own goals for this GPU, checked on this table; the paper makes "
             "no such claim), ours = `%s` against CUB (best) in the same run:" % so.OURS, text,
             "**Verdict (sort headline targets): %s.**%s" % (verdict, (" " + sentence(why)) if why else ""))
    report.add(provenance(meta, so.HEADLINE, GPU_PROVENANCE_KEYS))
    report.summary.append(("Sort headline vs CUB (best) (targets, %s)" % meta.get("gpu_name", "GPU"),
                         verdict, "; ".join(why) or "every target met"))

def small_sorts_section(report, small, figures=None):
    """Issue 33 ("Sorts below a million keys: at or above CUB (best) at every size"):
    onepass::sort / CUB (best) per shape and size band from 2^12 to 2^20, median (min), and the
    issue's two targets per shape (sort_results.small_sorts), from the first of `small`
    [(csv path, device or None, rows, meta)] (a fresh run, else the newest recorded one; see
    sort_results.small_runs); the others are listed as also recorded. Then, when `figures`
    ({experiment: (GpuSource, rows, meta)} of Figs. 9–11, as load() returns sort_data) is not
    None, the same ratio over every entropy band of those runs (small_figures_part)."""
    report.add("### Small sorts (issue 33): `%s` ÷ CUB (best) below a million keys" % so.SELECTOR)
    what = "Small sorts vs CUB (best), 2^12 to 2^20 keys (issue 33"
    bands = so.SMALL_BANDS
    span = "2^%d to 2^%d" % (bands[0][0], bands[-1][1])
    if not small:
        report.add("**Not measured yet:** no `%s.csv` in `%s` nor `%s.csv` / `%s-<commit>.csv` under `%s/<device>/`. "
                 "`sort_headline --sizes-log2 12,13,...,21 --bands 1` on a GPU, with `%s` and the CUB "
                 "configurations, gives this table." % (so.SMALL, report.results, so.SMALL, so.SMALL,
                                                       display_path(report.recorded), so.SELECTOR))
        report.summary.append((what + ")", "not measured yet", "no %s.csv, fresh or recorded" % so.SMALL))
        small_figures_part(report, figures)
        return
    path, device, rows, meta = small[0]
    res = so.small_sorts(rows)
    gpu = meta.get("gpu_name", "an unnamed GPU")
    where = ("this run (`%s`)" % display_path(path) if device is None else
             "recorded copy `%s` (measured %s)" % (sr.repo_relative(path), so.run_date(path)[:10]))
    provenance_note = report.note_gpu_provenance(sr.GpuSource(so.SMALL, os.path.dirname(path), device), meta)
    outside = sorted({r["n"] for r in rows if r["q"] == 1 and so.small_band(r["n"]) is None})
    per_band = [len({p["n"] for s in res["shapes"] for c in s["cells"] if c["band"] == i for p in c["points"]})
                for i in range(len(bands))]
    configs = so.cub_configurations(rows)
    report.add("Measured on **%s** — %s. %s Command: `%s`." % (gpu, where, provenance_note,
                                                             meta.get("command", "?")),
             "Ratio = `%s` keys/s ÷ CUB (best) keys/s at each size (uniform keys, q = 1), CUB (best) being the "
             "fastest CUB configuration measured at that point (%s). Each cell is the **median (min)** of the "
             "ratios over the sizes of one band (the median of two sizes is their mean). Bands are half-open, "
             "[2^a, 2^b) holding 2^a ≤ n < 2^b, except the last one, [2^%d, 2^%d], which also holds 2^%d: each "
             "size from 2^%d to 2^%d is in exactly one band (in this run the bands hold %s sizes)%s. Medians "
             "below %s and minima below %s in bold."
             % (so.SELECTOR, ", ".join("`%s`" % a for a in configs) or "none", bands[-1][0], bands[-1][1],
                bands[-1][1], bands[0][0], bands[-1][1],
                ", ".join(map(str, per_band[:-1])) + " and %d" % per_band[-1] if len(per_band) > 1 else
                str(per_band[0]),
                "; sizes outside them (%s) are not in the table" % ", ".join(so.size_text(n) for n in outside)
                if outside else "", so.threshold_text(so.SMALL_MEDIAN_TARGET),
                so.threshold_text(so.SMALL_POINT_TARGET)),
             table(res["header"], res["table"], "l" + "r" * len(bands)))
    choices = so.selector_choices(meta)
    if choices:
        ran = {}
        for s in res["shapes"]:
            for p in s["points"]:
                alg = so.choice_at(choices, p["shape"], p["n"], p["q"])
                if alg:
                    ran.setdefault(alg, set()).add(p["n"])
        if ran:
            report.add("What `%s` ran at these points (meta.json `onepass_sort_choice`): %s." % (
                so.SELECTOR, "; ".join("`%s` at %s" % (alg, ", ".join(so.size_text(n) for n in sorted(ns)))
                                      for alg, ns in sorted(ran.items()))))
    vrows = []
    for s in res["shapes"]:
        name = so.SHAPE_DISPLAY.get(s["shape"], s["shape"])
        if s["median_verdict"] == "met":
            mtext = "met (lowest median %s)" % so.fmt_ratio(min(c["median"] for c in s["cells"]))
        elif s["median_verdict"] == "not met":
            mtext = "**not met**: %s" % ", ".join("%s median %s" % (so.small_band_text(i), so.fmt_ratio(
                s["cells"][i]["median"], so.SMALL_MEDIAN_TARGET)) for i in s["failing"])
        else:
            mtext = "not measured (no point in %s)" % ", ".join(so.small_band_text(i) for i in s["missing"])
        if s["point_verdict"] == "met":
            ptext = "met (lowest %s at %s)" % (so.fmt_ratio(min(p["ratio"] for p in s["points"])), so.size_text(
                min(s["points"], key=lambda p: p["ratio"])["n"]))
        elif s["point_verdict"] == "not met":
            ptext = "**not met**: %s" % ", ".join("%s %s" % (so.size_text(p["n"]), so.fmt_ratio(
                p["ratio"], so.SMALL_POINT_TARGET)) for p in s["below"])
        else:
            ptext = "not measured (no point in %s)" % ", ".join(so.small_band_text(i) for i in s["missing"])
        if not s["counted"]:
            name += " (not one of the issue's shapes: not counted)"
        vrows.append((name, mtext, ptext))
    verdict, why = targets_verdict(res["targets"])
    below = res["below"] + res["below_other"]
    report.add("The issue's targets per shape (its four: %s; a shape beyond them is shown, not counted in the "
               "verdict), `%s` against CUB (best) in the same run:"
               % (", ".join(so.SHAPE_DISPLAY.get(x, x) for x in so.SMALL_SHAPES), so.SELECTOR),
             table(("shape", "median ≥ %s in every band from %s" % (so.threshold_text(so.SMALL_MEDIAN_TARGET),
                                                                     span),
                    "≥ %s at every point from %s" % (so.threshold_text(so.SMALL_POINT_TARGET), span)), vrows),
             "Points below %s: %s." % (so.threshold_text(so.SMALL_POINT_TARGET), "; ".join(
                 "%s at %s: %s (CUB (best) = `%s`)" % (so.SHAPE_DISPLAY.get(p["shape"], p["shape"]),
                                                      so.size_text(p["n"]), so.fmt_ratio(p["ratio"]), p["winner"])
                 for p in below) if below else "none"),
             "**Verdict (small sorts, issue 33): %s.**%s" % (verdict, (" " + sentence(why)) if why else ""))
    others = []
    for opath, odevice, orows, ometa in small[1:]:
        # Older runs may predate onepass_sort's rows: then onesweep's, the sort it runs there.
        body = "no `%s` or `%s` rows with CUB beside them" % (so.SELECTOR, so.OURS)
        for ours in (so.SELECTOR, so.OURS):
            ores = so.small_sorts(orows, ours=ours)
            if any(s["points"] for s in ores["shapes"]):
                body = "`%s` ÷ CUB (best), band medians (%s): %s" % (ours, ", ".join(
                    so.small_band_text(i) for i in range(len(bands))), "; ".join(
                    "%s %s" % (so.SHAPE_DISPLAY.get(s["shape"], s["shape"]), " / ".join(
                        "—" if c["median"] is None else so.fmt_ratio(c["median"]) for c in s["cells"]))
                    for s in ores["shapes"] if s["points"]))
                if ours != so.SELECTOR:
                    body = "no `%s` rows; %s" % (so.SELECTOR, body)
                break
        others.append("- `%s` (%s, measured %s at commit %s): %s." % (
            sr.repo_relative(opath), ometa.get("gpu_name", odevice or "this run"), so.run_date(opath)[:10],
            pv.short(str(ometa.get("commit", "unknown"))), body))
    if others:
        report.add("**Also recorded** (older runs; the table and verdict above are of the newest, whose code "
                 "may differ):", "\n".join(others))
    report.summary.append(("%s, %s)" % (what, gpu), verdict, "; ".join(why) or "every target met"))
    small_figures_part(report, figures)

def small_figures_part(report, figures):
    """Issue 33's table as the issue computed it: onepass::sort / CUB (best) over every entropy
    band q of the Figs. 9–11 runs (sort_results.figure_small_bands), per figure and shape: band
    medians (min), the two targets (points below 0.95 that are disturbed set aside), and every
    point below 0.95. figures: {experiment: (GpuSource, rows, meta)} or None (nothing written);
    a figure without a run is named "not measured"; no summary row when none has one."""
    if figures is None:
        return
    bands, t_med, t_pt = so.SMALL_BANDS, so.SMALL_MEDIAN_TARGET, so.SMALL_POINT_TARGET
    report.add("#### The same ratio over every entropy band of Figs. 9–11")
    trows, points, targets, runs, qs = [], [], [], [], set()
    for name, (fig_no, _) in so.SORT_EXPERIMENTS.items():
        if name not in figures:
            runs.append("Fig. %d: not measured (no `%s.csv`, fresh or recorded)" % (fig_no, name))
            targets.append(("Fig. %d (`%s`)" % (fig_no, name), "not measured", None, t_pt, []))
            continue
        source, rows, meta = figures[name][:3]
        res = so.figure_small_bands(rows)
        qs |= {p["q"] for s in res["shapes"] for p in s["points"]}
        runs.append("Fig. %d: %s, %s at commit %s" % (fig_no, meta.get("gpu_name", "an unnamed GPU"),
                                                      source.describe(display_path),
                                                      pv.short(str(meta.get("commit", "unknown")))))
        targets += [("Fig. %d %s" % (fig_no, w), *rest) for w, *rest in res["targets"]]
        for s, row in zip(res["shapes"], res["table"]):
            trows.append(["Fig. %d / %s" % (fig_no, row[0])] + row[1:] + [
                {"not met": "**not met**"}.get(v, v) for v in (s["median_verdict"], s["point_verdict"])])
            points += [(fig_no, p) for p in s["below"]]
    report.add("Runs: %s." % "; ".join(runs))
    if not trows:
        return
    report.add("Ratio = `%s` keys/s ÷ CUB (best) keys/s, as above, now at every point of the Onesweep Figs. 9–11 "
               "runs: every entropy band (q = %s) and the figures' log-uniformly drawn sizes; each cell is the "
               "**median (min)** over every (q, n) of the size band, as issue 33 computed its table. A point below "
               "%s is set aside as **disturbed** (the issue's \"both run at less than half their neighbours' rate\") "
               "when ours' keys/s and CUB (best)'s keys/s are both below half of those at the previous and at the "
               "next measured size of the same (shape, q) series (at the series' ends, the one neighbour)."
               % (so.SELECTOR, ", ".join(map(str, sorted(qs))), so.threshold_text(t_pt)),
               table(["figure / shape"] + [so.small_band_text(i) for i in range(len(bands))] +
                     ["median ≥ %s" % so.threshold_text(t_med), "≥ %s, not disturbed" % so.threshold_text(t_pt)],
                     trows, "l" + "r" * len(bands) + "ll"))
    report.add("Points below %s (ours' max/min: `seconds_max / seconds_min` of ours' timed runs there):%s" % (
               so.threshold_text(t_pt), "" if points else " none."), *(["\n".join(
                   "- Fig. %d, %s, n = %s (%s), q = %d: %s (CUB (best) = `%s`; ours' max/min %s); %s" % (
                       fig_no, so.SHAPE_DISPLAY.get(p["shape"], p["shape"]), "{:,}".format(p["n"]),
                       so.size_text(p["n"]), p["q"], so.fmt_ratio(p["ratio"], t_pt), p["winner"],
                       "—" if p["spread"] is None else "%.2f" % p["spread"],
                       "disturbed, set aside" if p["disturbed"] else "not disturbed")
                   for fig_no, p in points)] if points else []))
    verdict, why = targets_verdict(targets)
    report.add("**Verdict (small sorts, Figs. 9–11, every band q): %s.**%s" % (verdict, (" " + sentence(why))
                                                                               if why else ""))
    report.summary.append(("Small sorts vs CUB (best), Figs. 9–11, every band (issue 33)", verdict,
                           "; ".join(why) or "every target met"))

def onesweep_figure_section(report, name, fig_no, what, facts, source, rows, meta):
    gpu_name = meta.get("gpu_name", "the GPU")
    renamed = so.legacy_names(rows)
    points = so.ratio_points(rows)
    rows = so.with_cub_best(rows)
    algorithms = so.ordered_algorithms(rows)
    bands = [q for q in so.BANDS if any(r["q"] == q for r in rows)]
    sat = {(a, q): so.saturated(rows, a, q) for a in algorithms for q in bands}
    any_saturated = any(c for _, c in sat.values())
    sizes = sorted({r["n"] for r in rows})
    report.add(report._measured_on(source, meta) + " %d sizes from %s to %s (2^%.1f to 2^%.1f), bands q = %s."
             % (len(sizes), "{:,}".format(sizes[0]), "{:,}".format(sizes[-1]), math.log2(sizes[0]),
                math.log2(sizes[-1]), ", ".join(str(q) for q in bands)),
             _cub_configurations_note(report, rows, renamed, name),
             report.figure(name, "Onesweep paper Fig. %d: %s sorting throughput on %s, %s; ours and CUB (best) "
                         "bold, each CUB configuration thin" %
                         (fig_no, what, gpu_name, "this run" if source.fresh else "recorded run")))
    sat_min = so.SATURATING_LOG2 if any_saturated else None
    note = ("median over the sizes n ≥ 2^%d (count in parentheses)" % so.SATURATING_LOG2 if any_saturated else
            "no size reached 2^%d in this run (a smoke run?): value at the largest size, %s keys"
            % (so.SATURATING_LOG2, "{:,}".format(sizes[-1])))
    body = []
    for a in algorithms:
        cells = []
        for q in bands:
            v, c = sat[(a, q)]
            cells.append("—" if v is None else ("%.2f (%d)" % (v / 1e9, c) if c else "%.2f" % (v / 1e9)))
        label = _alg_name(a, rows, renamed)
        body.append(["**%s**" % label if a in (so.OURS, so.CUB_BEST) else label] + cells)
    if any(a == so.CUB_BEST for a in algorithms):
        body.append(["*CUB (best): configuration that won, at how many sizes*"] +
                    [_winners_text(so.winner_counts(rows, q, sat_min)) for q in bands])
    if points:
        cells = []
        for q in bands:
            sel = [p["ratio"] for p in points if p["q"] == q and (sat_min is None or p["n"] >= 2 ** sat_min)]
            if sat_min is None:
                sel = [p["ratio"] for p in points if p["q"] == q][-1:]
            cells.append("%.2f (%.2f)" % (median(sel), min(sel)) if sel else "—")
        body.append(["*ours / CUB (best), point by point: median (lowest)*"] + cells)
    if fig_no == 9:
        paper = {1: facts["keys32_q1_gkeys"]["number"], 8: facts["keys32_q8_gkeys"]["number"],
                 16: facts["keys32_q16_gkeys"]["number"]}
        body.append(["*paper: Onesweep, A100 (§4 text)*"] + [sr.fmt_num(paper[q]) if q in paper else "—"
                                                              for q in bands])
    if so.HYBRID not in algorithms:
        body.append(["*HRS (MSD, paper's comparison)*"] + ["not measured in this run (ours after it: `%s`)"
                                                          % so.HYBRID] + [""] * (len(bands) - 1))
    report.add("GKey/s, " + note + ":", table(["algorithm"] + ["q = %d" % q for q in bands], body,
                                             "l" + "r" * len(bands)))
    why = []
    # Reduce-then-scan vs onesweep (paper: 1.4-1.6x for uniform keys at saturating sizes).
    lo, hi = facts["speedup_vs_cub110_low"]["number"], facts["speedup_vs_cub110_high"]["number"]
    rts = sat.get(("cub_reduce_then_scan", 1), (None, 0))[0]
    lines, rts_why = [], []
    for a in [so.OURS] + [a for a in so.cub_configurations(rows) if a != "cub_reduce_then_scan"]:
        v = sat.get((a, 1), (None, 0))[0]
        if v and rts:
            ratio = v / rts
            lines.append("%s / CUB reduce-then-scan at q = 1: **%.2f×**" % (so.display(a), ratio))
            rts_why.append("%s %.2fx" % (a, ratio))
    if lines:
        why.append("%s over reduce-then-scan (paper %.1f-%.1fx over CUB 1.10)" % (", ".join(rts_why), lo, hi))
        report.add("Speed-up of onesweep over reduce-then-scan (the paper: %.1f–%.1f× over CUB 1.10 for uniform "
                 "keys at saturating sizes, §4 and §5; its ceiling for 32-bit keys is %.2f×): %s. Our "
                 "reduce-then-scan is CUB 3.0's upsweep/scan/downsweep path with its SM80 tunings on %s, not the "
                 "CUB 1.10 release itself." % (lo, hi, facts["speedup_ceiling_keys32"]["number"],
                                               "; ".join(lines), gpu_name))
    target = ONESWEEP_TARGET[name]
    verdict, ours, cub, ratio = onesweep_target_verdict(rows, target)
    if ours and cub:
        ok = ratio >= target
        why.insert(0, "ours %.2f GKey/s = %.2fx CUB (best) at q = 1 (target >= %.1fx)" % (ours / 1e9, ratio,
                                                                                         target))
        report.add("Our onesweep vs CUB (best) at q = 1 (%s): %.2f / %.2f GKey/s = **%.2f×** (the project's target "
                 "≥ %.1f×, against CUB (best)): %s. CUB (best) at q = 1 was %s."
                 % ("medians over n ≥ 2^%d" % so.SATURATING_LOG2 if any_saturated else "at the largest size",
                    ours / 1e9, cub / 1e9, ratio, target, "met" if ok else "not met",
                    _winners_text(so.winner_counts(rows, 1, sat_min)) +
                    (" of those sizes" if any_saturated else "")))
    elif cub:
        why.insert(0, "our onesweep not in this run; CUB (best) %.2f GKey/s at q = 1" % (cub / 1e9))
    if points:
        slower = [p for p in points if p["ratio"] < 1]
        big = [p for p in points if p["n"] >= 2 ** so.SATURATING_LOG2]
        slower_big = [p for p in big if p["ratio"] < 1]
        worst = min(points, key=lambda p: p["ratio"])
        at = lambda p: "%.2f× at q = %d, n = %s (CUB (best) = `%s`)" % (  # noqa: E731
            p["ratio"], p["q"], so.size_text(p["n"]), p["winner"])
        text = ("Point by point (every band and size of this figure): ours is slower than CUB (best) at **%d of "
                "%d points**" % (len(slower), len(points)))
        if big:
            text += " (%d of %d at n ≥ 2^%d)" % (len(slower_big), len(big), so.SATURATING_LOG2)
        text += "; the worst point is %s" % at(worst)
        if big:
            text += ", the worst at n ≥ 2^%d %s" % (so.SATURATING_LOG2, at(min(big, key=lambda p: p["ratio"])))
        report.add(text + ".")
        why.append("slower than CUB (best) at %d of %d points%s, worst %.2fx at q = %d, n = %s"
                   % (len(slower), len(points), " (%d of %d at n >= 2^%d)" % (len(slower_big), len(big),
                                                                            so.SATURATING_LOG2) if big else "",
                      worst["ratio"], worst["q"], so.size_text(worst["n"])))
    missing = [a for a in so.EXPECTED_CUB if a not in so.cub_configurations(rows)]
    caveat = ("CUB (best) here is over %s only (recorded before %s were registered)"
              % (", ".join(so.cub_configurations(rows)), ", ".join(missing))) if missing and points else ""
    if caveat:
        why.append(caveat)
    if fig_no == 9 and points:
        text, results = _targets_table(report, so.FIG09_TARGETS, points,
                                            "sort target on Fig. 9's sizes (the project's, not the paper's)")
        tverdict, twhy = targets_verdict(results)
        if caveat:
            twhy.append(caveat)
        report.add("The project's sort targets stated over Figure 9's sizes, ours (`%s`) against CUB (best) of this run:"
                 % so.OURS, text, "**Verdict (sort targets on Fig. 9 sizes): %s.**%s"
                 % (tverdict, (" " + sentence(twhy)) if twhy else ""))
        report.summary.append(("Sort targets on Fig. 9 sizes (%s)" % gpu_name, tverdict,
                             "; ".join(twhy) or "every target met"))
    copy = so.copy_rates(meta, {r["shape"] for r in rows})
    if copy:
        n_big = max(copy)
        bound = copy[n_big] / ONESWEEP_BYTES_PER_KEY[name]
        parts = ["%s %.0f%%" % (so.display(a), 100 * sat[(a, 1)][0] / bound) for a in algorithms
                 if sat.get((a, 1), (None, 0))[0]]
        report.add("Bandwidth bound: the device-to-device copy in the same run reached %.2f TB/s at n = %s; an "
                 "ideal 8-bit onesweep moves %d bytes per key here, so the bound is %.1f GKey/s. Fraction reached "
                 "at q = 1: %s." % (copy[n_big] / 1e12, "{:,}".format(n_big), ONESWEEP_BYTES_PER_KEY[name],
                                     bound / 1e9, ", ".join(parts) or "—"))
    report.add(provenance(meta, name, GPU_PROVENANCE_KEYS))
    report.summary.append(("Onesweep Fig. %d (%s, %s)" % (fig_no, what, gpu_name), verdict,
                         "; ".join(why) or "see the table"))
