#!/usr/bin/env python3
"""Figures and the report section of the warp Gaussian generator (issue 5; article
"Training a random Gaussian generator", ../shared/papers/warp-gaussian-generator.md).

Called from figures/plot_all.py (draw_gaussian_figures) and paper/make_report.py
(report_section). Inputs, each optional — a figure or table whose input is absent is
skipped with a message, never an error:

    <results>/gaussian_density.csv     CPU emulation sample: output density vs N(0,1) and
                                       the table's 16 base distributions (kind = base rows)
    <results>/gaussian_dieharder.csv   dieharder p-values on the CDF-mapped stream
    gaussian_throughput.csv            GPU throughput: <results>/ when a GPU run wrote it,
                                       else the newest results/recorded/<device>/ copy
    figures/reference/gaussian_article.csv   the article's numbers (typed, with sections)

Figures (png + pdf): gaussian_base_distributions, gaussian_density, gaussian_throughput.
"""

import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shuffle_results as sr  # noqa: E402  (gpu_source, machine_label, read_meta)
from figure_files import save_figure  # noqa: E402

FIGURES = ["gaussian_base_distributions", "gaussian_density", "gaussian_throughput"]
REFERENCE = os.path.join(HERE, "reference", "gaussian_article.csv")


def _rows(path):
    """Rows of a CSV as dicts of strings, or None when the file is absent or has no rows."""
    if not os.path.isfile(path):
        return None
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows or None


def _meta(directory, name):
    try:
        return sr.read_meta(os.path.join(directory, name + ".meta.json"))
    except Exception:  # noqa: BLE001 - provenance is optional for the drawing
        return {}


def article_facts():
    """{key: (value text, unit, source)} from figures/reference/gaussian_article.csv."""
    facts = {}
    for r in _rows(REFERENCE) or []:
        facts[r["key"]] = (r["value"], r["unit"], r["source"])
    return facts


def _num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _throughput_source(results, recorded_root):
    return sr.gpu_source(results, "gaussian_throughput", recorded_root)


# --------------------------------------------------------------------------- figures

def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt




def draw_base_distributions(rows, meta, out_dir):
    """The 16 base distributions: sorted magnitudes of each sub-table vs the half-normal
    quantile at the same rank (the article's inverse-CDF start)."""
    plt = _plt()
    from statistics import NormalDist
    base = [r for r in rows if r["kind"] == "base"]
    tables = {}
    for r in base:
        tables.setdefault(int(r["subtable"]), []).append(float(r["value"]))
    fig, axes = plt.subplots(4, 4, figsize=(10, 8.4), sharex=True, sharey=True)
    nd = NormalDist()
    for s in range(16):
        ax = axes[s // 4][s % 4]
        vals = sorted(tables.get(s, []))
        if not vals:
            ax.set_visible(False)
            continue
        n = len(vals)
        q = [(k + 0.5) / n for k in range(n)]
        ax.plot(q, [nd.inv_cdf(0.5 + 0.5 * p) for p in q], color="#999999", lw=1.0, ls="--")
        ax.plot(q, vals, ".", ms=2.2, color="#1f77b4")
        sd = math.sqrt(sum(v * v for v in vals) / n)
        ax.set_title("sub-table %d (rms %.3g)" % (s, sd), fontsize=8.5)
        ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("rank / 256", fontsize=8.5)
    for row in axes:
        row[0].set_ylabel("|entry| / 2^24", fontsize=8.5)
    fig.suptitle("The 16 base distributions of the table in use (dots: sorted magnitudes; dashed: the "
                 "half-normal quantiles of the article's inverse-CDF start)", fontsize=10)
    fig.tight_layout()
    fig.text(0.01, -0.01, sr.machine_label(meta) + "   |   " + meta.get("table", ""), fontsize=7, color="#555555")
    return save_figure(fig, out_dir, "gaussian_base_distributions")


def draw_density(rows, meta, out_dir):
    """Output density vs N(0,1), log scale into the tails, and the binomial z per bin."""
    plt = _plt()
    dens = [r for r in rows if r["kind"] == "density" and _num(r["x_lo"]) is not None
            and math.isfinite(float(r["x_lo"])) and math.isfinite(float(r["x_hi"]))]
    if not dens:
        return []
    mid = [(float(r["x_lo"]) + float(r["x_hi"])) / 2 for r in dens]
    got = [float(r["density"]) for r in dens]
    ref = [float(r["normal_density"]) for r in dens]
    z = [float(r["z"]) for r in dens]
    fig, (ax, axz) = plt.subplots(2, 1, figsize=(8, 6.4), sharex=True, gridspec_kw={"height_ratios": [3, 1.2]})
    ax.plot(mid, ref, "-", color="black", lw=1.0, label="N(0,1)")
    pos = [(m, g) for m, g in zip(mid, got) if g > 0]
    ax.plot([m for m, _ in pos], [g for _, g in pos], "o", ms=3, color="#1f77b4",
            label="warp Gaussian (CPU emulation, %s outputs)" % meta.get("outputs", "?"))
    ax.set_yscale("log")
    ax.set_ylabel("density (log scale)")
    ax.legend(loc="lower center", fontsize=8)
    ax.set_title("Output density of the warp Gaussian generator vs N(0,1) (bins of 0.125)")
    axz.axhline(0, color="black", lw=0.8)
    for lim in (-3, 3):
        axz.axhline(lim, color="#999999", lw=0.8, ls=":")
    axz.plot(mid, z, ".", color="#1f77b4")
    axz.set_ylabel("binomial z")
    axz.set_xlabel("x")
    fig.tight_layout()
    fig.text(0.01, -0.01, sr.machine_label(meta), fontsize=7, color="#555555")
    return save_figure(fig, out_dir, "gaussian_density")


def draw_throughput(rows, meta, source, facts, out_dir):
    """Bars of G outputs/s: ours and cuRAND, in registers and to memory; the article's V100."""
    plt = _plt()
    bars = [(r["label"], float(r["outputs_per_second"]) / 1e9, r["mode"]) for r in rows]
    v100 = _num(facts.get("throughput_v100", ("",))[0])
    if v100:
        bars.append(("article: V100, tail test (in registers)", v100 / 1e9, "article"))
    colours = {"in_register": "#1f77b4", "to_memory": "#ff7f0e", "article": "#bbbbbb"}
    fig, ax = plt.subplots(figsize=(8.6, 0.45 * len(bars) + 1.6))
    y = list(range(len(bars)))[::-1]
    ax.barh(y, [b[1] for b in bars], color=[colours.get(b[2], "#2ca02c") for b in bars])
    for yi, b in zip(y, bars):
        ax.text(b[1], yi, " %.1f" % b[1], va="center", fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels([b[0] for b in bars], fontsize=8)
    ax.set_xlabel("G outputs/s (N(0,1) doubles)")
    ax.set_title("Warp Gaussian generator vs cuRAND on %s (blue: in registers, orange: to memory)"
                 % (meta.get("gpu_name") or "the GPU"), fontsize=9.5)
    where = "this run" if source.fresh else "recorded copy results/recorded/%s" % source.device
    fig.tight_layout()
    fig.text(0.01, -0.02, sr.machine_label(meta, where), fontsize=7, color="#555555")
    return save_figure(fig, out_dir, "gaussian_throughput")


def draw_failure_times(rows, meta, facts, out_dir):
    """Expected outputs until a 4-sigma failure per even Hermite order, Hermite test and
    moment test, initial (inverse-CDF) vs optimised table; the article's two figures."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    styles = {"inverse_cdf": ("#1f77b4", "initial (inverse CDF)"), "optimised": ("#d62728", "optimised (ours)")}
    for table, (colour, label) in styles.items():
        part = [r for r in rows if r["table"] == table and int(r["order"]) % 2 == 0]
        if not part:
            continue
        orders = [int(r["order"]) for r in part]
        hermite = [_num(r["hermite_failure_outputs"]) for r in part]
        moment = [_num(r["moment_failure_outputs"]) for r in part]
        ax.semilogy(orders, hermite, "o-", color=colour, label="%s, Hermite test" % label)
        ax.semilogy(orders, moment, "s--", color=colour, label="%s, moment test" % label)
    for key, text in (("failure_outputs_initial", "article, initial"), ("failure_outputs_optimised", "article, optimised")):
        if key in facts:
            value = _num(facts[key][0])
            if value:
                ax.axhline(value, color="#555555", lw=0.8, ls=":")
                ax.text(2.1, value * 1.6, "%s: %s" % (text, facts[key][0]), fontsize=7, color="#555555")
    ax.set_xlabel("Hermite / moment order")
    ax.set_ylabel("expected outputs to a 4-sigma failure")
    ax.set_title("Warp Gaussian: failure time per order (exact analytics)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return save_figure(fig, out_dir, "gaussian_failure_times")


def draw_gaussian_figures(results, out_dir, recorded_root):
    """Draws what has data. Returns (written paths, problems, notes)."""
    written, problems, notes = [], [], []
    density = _rows(os.path.join(results, "gaussian_density.csv"))
    if density is None:
        notes.append("gaussian_density, gaussian_base_distributions: not drawn, no %s/gaussian_density.csv "
                     "(run gaussian_density)" % results)
    else:
        meta = _meta(results, "gaussian_density")
        for name, draw in (("gaussian_base_distributions", draw_base_distributions), ("gaussian_density", draw_density)):
            try:
                written += draw(density, meta, out_dir)
            except (KeyError, ValueError) as e:
                problems.append("%s not drawn: gaussian_density.csv malformed (%s)" % (name, e))
    failure = _rows(os.path.join(results, "gaussian_hermite_failure.csv"))
    if failure is None:
        notes.append("gaussian_failure_times: not drawn, no %s/gaussian_hermite_failure.csv "
                     "(run gaussian_hermite_failure)" % results)
    else:
        try:
            written += draw_failure_times(failure, _meta(results, "gaussian_hermite_failure"), article_facts(), out_dir)
        except (KeyError, ValueError) as e:
            problems.append("gaussian_failure_times not drawn: gaussian_hermite_failure.csv malformed (%s)" % e)
    source = _throughput_source(results, recorded_root)
    if source is None:
        notes.append("gaussian_throughput: not drawn, no GPU results (neither %s/gaussian_throughput.csv nor a "
                     "recorded copy)" % results)
    else:
        rows = _rows(os.path.join(source.directory, "gaussian_throughput.csv"))
        if rows is None:
            notes.append("gaussian_throughput: not drawn, %s/gaussian_throughput.csv has no rows" % source.directory)
        else:
            try:
                written += draw_throughput(rows, _meta(source.directory, "gaussian_throughput"), source,
                                           article_facts(), out_dir)
            except (KeyError, ValueError) as e:
                problems.append("gaussian_throughput not drawn: gaussian_throughput.csv malformed (%s)" % e)
    return written, problems, notes


def extend(results, out_dir, recorded_root, written, problems):
    """plot_all.py's one-line hook: draws, prints the notes, returns (written, problems) extended."""
    w, p, notes = draw_gaussian_figures(results, out_dir, recorded_root)
    for note in notes:
        print("plot_all: %s" % note)
    return written + w, problems + p


# --------------------------------------------------------------------------- report

def _fmt(x):
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        return "%.2e" % x
    return "%.4g" % x


def report_section(report, results, recorded_root):
    """Adds the Gaussian section to a make_report.Report (its add, figure, summary)."""
    facts = article_facts()
    art = {k: v[0] for k, v in facts.items()}
    lines = ["## Warp-parallel Gaussian generator (issue 5; article “Training a random Gaussian generator”)",
             "The article's numbers are typed in `figures/reference/gaussian_article.csv` with their sections. "
             "Ours come from `gaussian_density`, `gaussian_dieharder` (CPU, bit-exact emulation of the warp) and "
             "`gaussian_throughput` (GPU); the Hermite z-scores and tail tests on ≥ 2^36 GPU outputs are the "
             "ctest `gpu` test `test_gaussian_statistics` (its log, when recorded, is in "
             "`results/recorded/<device>/ctest-gpu.log`)."]
    # Throughput
    source = _throughput_source(results, recorded_root)
    rows = _rows(os.path.join(source.directory, "gaussian_throughput.csv")) if source else None
    lines.append("### Throughput")
    if not rows:
        lines.append("*Not run: no GPU results (neither `%s/gaussian_throughput.csv` nor a recorded copy).* "
                     "Article: %s G outputs/s on a %s (section “Tail tests and measuring the speed of the "
                     "generator”)." % (results, _fmt(_num(art.get("throughput_v100")) / 1e9 if art.get("throughput_v100") else None),
                                       art.get("throughput_machine", "V100")))
        report.summary.append(("Gaussian throughput ≥ 1.3 × curand_normal2_double in registers", "not run",
                               "no gaussian_throughput results"))
    else:
        meta = _meta(source.directory, "gaussian_throughput")
        table_rows = ["| %s | %s | %s | %s |" % (r["algorithm"], r["mode"], _fmt(float(r["outputs_per_second"]) / 1e9),
                                                 r["check"]) for r in rows]
        lines.append("Measured on %s, %s:" % (meta.get("gpu_name", "the GPU"),
                                               source.describe() if hasattr(source, "describe") else ""))
        lines.append("\n".join(["| algorithm | mode | G outputs/s | check |", "|---|---|---:|---|"] + table_rows))
        rate = {r["algorithm"]: float(r["outputs_per_second"]) for r in rows}
        peer = rate.get("curand_normal2_double")
        ratios = []
        ok = True
        for name in ("ours_register_3", "ours_register_4"):
            if peer and name in rate:
                ratios.append("%s %.2f×" % (name, rate[name] / peer))
                ok = ok and rate[name] / peer >= 1.3
            else:
                ok = False
        lines.append("Article: %s G outputs/s on a V100 (in registers, tail test). Bar (issue 5): ours ≥ 1.3 × "
                     "`curand_normal2_double` in registers: %s." % (_fmt(_num(art.get("throughput_v100", "0")) / 1e9),
                                                                   ", ".join(ratios) or "not measured"))
        report.summary.append(("Gaussian throughput ≥ 1.3 × curand_normal2_double in registers",
                               "met" if ok else "not met", ", ".join(ratios) or "peer missing"))
    if os.path.isfile(os.path.join(report.figures, "gaussian_throughput.png")):
        lines.append(report.figure("gaussian_throughput", "Throughput of the warp Gaussian generator and cuRAND"))
    # Density and base distributions
    lines.append("### Output density and the base distributions")
    density = _rows(os.path.join(results, "gaussian_density.csv"))
    if not density:
        lines.append("*Not run: no `%s/gaussian_density.csv`.*" % results)
    else:
        meta = _meta(results, "gaussian_density")
        dens = [r for r in density if r["kind"] == "density"]
        worst = max(dens, key=lambda r: abs(float(r["z"])))
        lines.append("%s outputs of the CPU emulation (%s). Largest |z| of a bin: %.2f at [%s, %s) (%d bins); "
                     "chi-square of the bins with ≥ 5 expected: %s."
                     % (meta.get("outputs", "?"), meta.get("table", ""), abs(float(worst["z"])), worst["x_lo"],
                        worst["x_hi"], len(dens), meta.get("chi_square_bins_expected_ge_5", "?")))
        for name, caption in (("gaussian_density", "Output density vs N(0,1), log scale"),
                              ("gaussian_base_distributions", "The 16 base distributions of the table in use")):
            if os.path.isfile(os.path.join(report.figures, name + ".png")):
                lines.append(report.figure(name, caption))
            else:
                lines.append("*Figure %s not drawn (run figures/plot_all.py).*" % name)
    # Failure times per order (the article's 9.1e10 and 1.6e30)
    lines.append("### Failure time per Hermite order")
    failure = _rows(os.path.join(results, "gaussian_hermite_failure.csv"))
    if not failure:
        lines.append("*Not run: no `%s/gaussian_hermite_failure.csv`.*" % results)
    else:
        def worst(table, order_max, column):
            values = [_num(r[column]) for r in failure if r["table"] == table and int(r["order"]) <= order_max]
            values = [v for v in values if v is not None]
            return _fmt(min(values)) if values else "—"
        facts = article_facts()
        lines.append("Expected outputs until a test reaches 4σ, from the exact analytics (`gaussian_hermite_failure`). "
                     "Initial table, moment tests of orders ≤ 8: %s (article %s, a moment test); Hermite tests of "
                     "orders ≤ 8: %s. Optimised table, orders ≤ 10: moment %s, Hermite %s; orders ≤ 16: moment %s, "
                     "Hermite %s (article %s)."
                     % (worst("inverse_cdf", 8, "moment_failure_outputs"),
                        facts.get("failure_outputs_initial", ("?",))[0],
                        worst("inverse_cdf", 8, "hermite_failure_outputs"),
                        worst("optimised", 10, "moment_failure_outputs"),
                        worst("optimised", 10, "hermite_failure_outputs"),
                        worst("optimised", 16, "moment_failure_outputs"),
                        worst("optimised", 16, "hermite_failure_outputs"),
                        facts.get("failure_outputs_optimised", ("?",))[0]))
        if os.path.isfile(os.path.join(report.figures, "gaussian_failure_times.png")):
            lines.append(report.figure("gaussian_failure_times", "Failure time per order, initial vs optimised table"))
    # dieharder
    lines.append("### dieharder on the CDF-mapped stream")
    dh = _rows(os.path.join(results, "gaussian_dieharder.csv"))
    dh_meta = _meta(results, "gaussian_dieharder") if os.path.isfile(
        os.path.join(results, "gaussian_dieharder.meta.json")) else {}
    if not dh:
        why = "dieharder not installed" if dh_meta.get("dieharder") == "not installed" else "no results"
        lines.append("*Not run (%s).*" % why)
        report.summary.append(("Gaussian stream passes dieharder", "not run", why))
    else:
        counts = {}
        for r in dh:
            counts[r["assessment"]] = counts.get(r["assessment"], 0) + 1
        lines.append("%s, psamples %s, stream `%s`: %s. The article ran PractRand to 2^%s bytes of the CDF-mapped "
                     "stream and 2^%s bytes of the tail stream without a failure (section “Testing with PractRand”)."
                     % (dh_meta.get("dieharder", "dieharder"), dh_meta.get("psamples", "?"), dh_meta.get("stream", ""),
                        ", ".join("%d %s" % (n, a) for a, n in sorted(counts.items())),
                        art.get("practrand_full_bytes_log2", "?"), art.get("practrand_tail_bytes_log2", "?")))
        lines.append("\n".join(["| -d | test | ntup | tsamples | psamples | p-value | assessment |",
                                "|---:|---|---:|---:|---:|---:|---|"] +
                               ["| %s | %s | %s | %s | %s | %s | %s |" % (r["test_id"], r["test_name"], r["ntup"],
                                                                       r["tsamples"], r["psamples"], r["p_value"],
                                                                       r["assessment"]) for r in dh]))
        failed = counts.get("FAILED", 0)
        report.summary.append(("Gaussian stream passes dieharder", "passes" if failed == 0 else "fails",
                               "%d result lines, %d FAILED, %d WEAK (dieharder: p < 0.005 or > 0.995; expected "
                               "about 1 %% of lines by chance)" % (len(dh), failed, counts.get("WEAK", 0))))
    # Article numbers
    lines.append("### The article's numbers")
    lines.append("\n".join(["| quantity | article | section |", "|---|---|---|"] +
                           ["| %s (%s) | %s | %s |" % (k, v[1], v[0], v[2]) for k, v in facts.items()]))
    report.add(*lines)


def required_figures(results, recorded_root):
    """Figure names scripts/check_outputs.py requires: those whose input exists."""
    names = []
    if _rows(os.path.join(results, "gaussian_density.csv")):
        names += ["gaussian_base_distributions", "gaussian_density"]
    if _rows(os.path.join(results, "gaussian_hermite_failure.csv")):
        names.append("gaussian_failure_times")
    source = _throughput_source(results, recorded_root)
    if source is not None and _rows(os.path.join(source.directory, "gaussian_throughput.csv")):
        names.append("gaussian_throughput")
    return names
