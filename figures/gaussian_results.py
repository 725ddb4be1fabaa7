#!/usr/bin/env python3
"""Figures and the report section of the warp Gaussian generator (article "Training a
random Gaussian generator", A. P. Goucher, cp4space 2022; paper/references.bib).

Called from figures/plot_all.py (draw_gaussian_figures) and paper/make_report.py
(report_section). Inputs, each optional — a figure or table whose input is absent is
skipped with a message, never an error:

    <results>/gaussian_density.csv     CPU emulation sample: output density vs N(0,1) and
                                       the table's 16 base distributions (kind = base rows)
    <results>/gaussian_dieharder.csv   dieharder p-values on the CDF-mapped stream
    <results>/gaussian_dieharder_float_native.csv   the same for the float-native generator
                                       (issue 30; gaussian_dieharder --generator float_native)
    gaussian_throughput.csv            GPU throughput: <results>/ when a GPU run wrote it,
                                       else the newest results/recorded/<device>/ copy
    figures/reference/gaussian_article.csv   the article's numbers (typed, with sections)

Figures (png + pdf): gaussian_base_distributions, gaussian_density, gaussian_throughput.
"""

import math
import os

from figures import shuffle_results as sr  # gpu_source, machine_label, read_meta
from figures.figure_files import footer, save_figure
from figures import palette  # one colour per algorithm, every figure

HERE = os.path.dirname(os.path.abspath(__file__))

FIGURES = ["gaussian_base_distributions", "gaussian_density", "gaussian_throughput"]
REFERENCE = os.path.join(HERE, "reference", "gaussian_article.csv")


def _rows(path):
    """Rows of a CSV as dicts of strings, or None when the file is absent or has no rows."""
    return sr.read_rows_text(path) or None


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


_num = sr.number_or_none


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
        ax.plot(q, [nd.inv_cdf(0.5 + 0.5 * p) for p in q], color=palette.colour("gaussian_inverse_cdf"), lw=1.1,
                ls="--")
        ax.plot(q, vals, ".", ms=2.2, color=palette.OURS)
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
    footer(fig, sr.machine_label(meta) + "   |   " + meta.get("table", ""))
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
    ax.plot([m for m, _ in pos], [g for _, g in pos], "o", ms=3, color=palette.OURS,
            label="warp Gaussian (CPU emulation, %s outputs)" % meta.get("outputs", "?"))
    ax.set_yscale("log")
    ax.set_ylabel("density (log scale)")
    ax.legend(loc="lower center", fontsize=8)
    ax.set_title("Output density of the warp Gaussian generator vs N(0,1) (bins of 0.125)")
    axz.axhline(0, color="black", lw=0.8)
    for lim in (-3, 3):
        axz.axhline(lim, color="#999999", lw=0.8, ls=":")
    axz.plot(mid, z, ".", color=palette.OURS)
    axz.set_ylabel("binomial z")
    axz.set_xlabel("x")
    fig.tight_layout()
    footer(fig, sr.machine_label(meta))
    return save_figure(fig, out_dir, "gaussian_density")


def draw_throughput(rows, meta, source, facts, out_dir):
    """G outputs/s of ours and cuRAND, one panel per mode (in registers, to memory), each bar
    in its algorithm's colour with its ratio to cuRAND in the same mode; the article's V100
    number beside ours (in registers), and the rate at which this GPU could merely read
    doubles from DRAM (the article's claim: generating beats loading from memory)."""
    plt = _plt()
    palette.apply_rc()
    modes = [("in_register", "in registers (generated and consumed in a kernel)"),
             ("to_memory", "to memory (written to a device array)")]
    modes += [(m, m) for m in sorted({r["mode"] for r in rows} - {m for m, _ in modes})]
    by_mode = {m: [r for r in rows if r["mode"] == m] for m, _ in modes}
    modes = [(m, t) for m, t in modes if by_mode[m]]
    v100 = _num(facts.get("throughput_v100", ("",))[0])
    v100_bw = _num(facts.get("v100_memory_bandwidth", ("",))[0])
    heights = [len(by_mode[m]) + (1 if m == "in_register" and v100 else 0) for m, _ in modes]
    fig, axes = plt.subplots(len(modes), 1, figsize=(10.4, 0.42 * sum(heights) + 1.1 * len(modes) + 0.6),
                             sharex=True, squeeze=False, gridspec_kw={"height_ratios": heights})
    bw = None
    try:
        bw = float(meta["gpu_memory_clock_khz"]) * 1e3 * 2 * float(meta["gpu_memory_bus_width_bits"]) / 8
    except (KeyError, TypeError, ValueError):
        pass
    top = 0.0
    for ax, (mode, title) in zip(axes[:, 0], modes):
        part = by_mode[mode]
        # cuRAND's row of the same output type (dtype f64 / f32) is the peer of each of ours.
        def dtype_of(r):
            return r.get("dtype") or "f64"
        peers = {}
        for r in part:
            if r["algorithm"].startswith("curand") and dtype_of(r) not in peers:
                peers[dtype_of(r)] = float(r["outputs_per_second"])

        def base_name(alg):  # the colour of a float row is its double twin's
            return alg.replace("_f32", "")
        def short(label):
            for suffix in (" (in registers)", " (to memory)"):
                if label.endswith(suffix):
                    return label[:-len(suffix)]
            return label
        bars = [(short(r["label"]), float(r["outputs_per_second"]) / 1e9, r["algorithm"], False, peers.get(dtype_of(r)),
                 dtype_of(r) == "f32") for r in part]
        if mode == "in_register" and v100:
            bars.append(("article: ours on a %s (its tail test)" % facts.get("throughput_machine", ("V100",))[0],
                         v100 / 1e9, "ours_register_3", True, None, False))
        y = list(range(len(bars)))[::-1]
        for yi, (label, value, alg, article, peer, is_f32) in zip(y, bars):
            if article:
                ax.barh(yi, value, 0.7, facecolor="white", edgecolor=palette.colour(alg), hatch="///", ls="--", lw=1.0)
            else:
                ax.barh(yi, value, 0.7, color=palette.colour(base_name(alg)),
                        hatch="..." if is_f32 else None)
            text = " %.0f" % value
            if peer and not article and alg.startswith("ours_"):
                text += "  (%.2f× cuRAND)" % (value * 1e9 / peer)
            if article and v100_bw:
                text += "  (V100 DRAM peak %.0f G doubles/s: dashed tick)" % (v100_bw / 8 / 1e9)
            ax.text(value, yi, text, va="center", fontsize=8)
            top = max(top, value)
        ax.set_yticks(y)
        ax.set_yticklabels([b[0] for b in bars], fontsize=8)
        ax.set_ylim(-0.6, len(bars) - 0.4)
        ax.set_title(title, fontsize=9.5, loc="left")
        ax.grid(axis="y", visible=False)
        if mode == "in_register" and bw:
            ax.axvline(bw / 8 / 1e9, color=palette.BOUND, lw=1.2)
            ax.set_title("%s\nblack line: merely reading doubles from DRAM at this GPU's peak bandwidth, %.2f TB/s "
                         "= %.0f G/s" % (title, bw / 1e12, bw / 8 / 1e9), fontsize=9.5, loc="left")
            top = max(top, bw / 8 / 1e9)
        if mode == "in_register" and v100 and v100_bw:
            yi = y[-1]
            ax.plot([v100_bw / 8 / 1e9] * 2, [yi - 0.45, yi + 0.45], color=palette.BOUND, lw=1.4, ls="--")
    axes[-1, 0].set_xlabel("G N(0,1) outputs/s (doubles; dotted bars: floats); × cuRAND of the same type")
    axes[-1, 0].set_xlim(0, top * 1.3)
    fig.suptitle("Warp Gaussian generator (ours, blue) vs cuRAND on %s" % (meta.get("gpu_name") or "the GPU"),
                 fontsize=10.5)
    where = "this run" if source.fresh else "recorded copy results/recorded/%s" % source.device
    fig.tight_layout()
    footer(fig, sr.machine_label(meta, where))
    return save_figure(fig, out_dir, "gaussian_throughput")


def draw_failure_times(rows, meta, facts, out_dir):
    """Expected outputs until a 4-sigma failure per even order, for the moment test (the
    article's measure; solid) and the Hermite test (dotted), of the initial (inverse-CDF)
    table and our optimised one; the article's two numbers dashed in the colour of the table
    they belong to, labelled in the right margin beside ours (the worst order it covers)."""
    plt = _plt()
    palette.apply_rc()
    fig, ax = plt.subplots(figsize=(8.6, 4.8))
    tables = (("inverse_cdf", "initial table (inverse CDF)", "failure_outputs_initial", 8),
              ("optimised", "optimised table (ours)", "failure_outputs_optimised", 24))
    notes = []
    for table, label, key, order_max in tables:
        part = [r for r in rows if r["table"] == table and int(r["order"]) % 2 == 0]
        if not part:
            continue
        name = "gaussian_" + table
        c, m = palette.colour(name), palette.marker(name)
        orders = [int(r["order"]) for r in part]
        moment = [_num(r["moment_failure_outputs"]) for r in part]
        hermite = [_num(r["hermite_failure_outputs"]) for r in part]
        ax.semilogy(orders, moment, ls="-", marker=m, color=c, lw=2.0, ms=6, label="%s, moment test" % label)
        ax.semilogy(orders, hermite, ls=":", marker=m, mfc="white", color=c, lw=1.4, ms=6,
                    label="%s, Hermite test" % label)
        value = _num(facts.get(key, ("",))[0])
        finite = [v for o, v in zip(orders, moment) if v is not None and math.isfinite(v) and o <= order_max]
        if value:
            ax.axhline(value, color=c, ls=palette.PAPER_LS, lw=1.2, alpha=0.85)
            ours = min(finite) if finite else None
            notes.append((value, c, "article: %s\nours: %s\n(min. moment test,\norders ≤ %d)"
                          % (facts[key][0], _fmt(ours), order_max)))
    for value, c, text in notes:
        ax.annotate(text, (1.0, value), xycoords=("axes fraction", "data"), xytext=(6, 0),
                    textcoords="offset points", va="center", ha="left", fontsize=7.5, color=c)
    ax.set_xlabel("Hermite / moment order (odd orders vanish by symmetry)")
    ax.set_ylabel("expected outputs to a 4σ failure (log)")
    ax.set_title("Warp Gaussian: how many outputs until a test of each order fails (exact analytics);\n"
                 "dashed: the article's numbers, in the colour of the table they belong to", fontsize=10)
    fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    y0 = fig.transFigure.inverted().transform((0, ax.get_tightbbox(renderer).y0))[1]
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, y0 - 0.01), ncol=2, framealpha=0.92)
    footer(fig, sr.machine_label(meta) if meta else "exact analytics (gaussian_hermite_failure)")
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

TABLE_BAR_ITEM = "Gaussian table: every test of order ≤ 24 lasts ≥ 1e31 outputs (orders ≤ 16: ≥ 1e33)"
FAILURE_COLUMNS = (("hermite_failure_outputs", "Hermite"), ("moment_failure_outputs", "moment"),
                   ("best_polynomial_failure_outputs", "best polynomial"))


def table_quality_verdict(rows, order_max=24, bar=1e31, low_order=16, low_bar=1e33):
    """The project's bar on the optimised table: every Hermite, moment and best-polynomial test
    (gaussian_hermite_failure.csv columns) of order 1..order_max lasts >= bar expected
    outputs to a 4-sigma failure, those of order <= low_order >= low_bar. rows: dicts of
    strings as read from the CSV (table, order and the three *_failure_outputs columns;
    "inf" allowed). Returns (verdict, detail): "met" / "not met" (also when orders are
    missing inside the range reported, or a cell is not a number) / "not measured" (the run
    reports orders 1..k with k < order_max: SCALE=smoke reports up to 8)."""
    ours = {int(r["order"]): r for r in rows if r["table"] == "optimised"}
    missing = [n for n in range(1, order_max + 1) if n not in ours]
    if missing:
        top = max(ours) if ours else 0
        if ours and all(n > top for n in missing):
            return "not measured", "this run reports orders up to %d (the bar is stated to order %d; run " \
                                   "gaussian_hermite_failure at the default scale)" % (top, order_max)
        return "not met", "optimised table: no rows for orders %s" % ", ".join(str(n) for n in missing)
    worst = {}  # (order range) -> (outputs, order, test)
    failures = []
    for n in range(1, order_max + 1):
        need = low_bar if n <= low_order else bar
        for column, test in FAILURE_COLUMNS:
            value = _num(ours[n][column])
            key = "≤ %d" % low_order if n <= low_order else "%d–%d" % (low_order + 1, order_max)
            if value is None or value < need:
                failures.append("%s test of order %d: %s < %s" % (test, n, _fmt(value), _fmt(need)))
            elif key not in worst or value < worst[key][0]:
                worst[key] = (value, n, test)
    if failures:
        return "not met", "; ".join(failures)
    return "met", "; ".join("orders %s: first failure %s outputs (%s test of order %d)" % (k, _fmt(v[0]), v[2], v[1])
                            for k, v in sorted(worst.items()))


def failure_table(rows, facts):
    """Markdown table: per order 1..N, the Hermite, moment and best-polynomial (degree <= n)
    failure times of the inverse-CDF table and ours, then the article's reported figures
    (one per table: figures/reference/gaussian_article.csv failure_outputs_initial and
    failure_outputs_optimised; the article gives no per-order breakdown)."""
    by = {(r["table"], int(r["order"])): r for r in rows}
    orders = sorted({int(r["order"]) for r in rows})
    head = ["| order | inverse-CDF: Hermite | moment | best polynomial | ours: Hermite | moment | best polynomial |",
            "|---:|---:|---:|---:|---:|---:|---:|"]
    body = []
    for n in orders:
        cells = []
        for table in ("inverse_cdf", "optimised"):
            r = by.get((table, n))
            cells += [_fmt(_num(r[c])) if r else "—" for c, _ in FAILURE_COLUMNS]
        body.append("| %d | %s |" % (n, " | ".join(cells)))
    initial = facts.get("failure_outputs_initial", ("?",))[0]
    optimised = facts.get("failure_outputs_optimised", ("?",))[0]
    body.append("| article (reported, one figure per table) | — | %s (initial table) | — | — | %s (the article's "
                "optimised table) | — |" % (initial, optimised))
    return "\n".join(head + body)


# The project's speed targets (same run of gaussian_throughput): (summary item, numerator row,
# denominator row, bar). The float rows against cuRAND's host API are judged for both forms.
SPEED_TARGETS = (
    ("API next_pair ≥ 0.95 × best in-register kernel (3 coefficients)", "ours_generator_3", "ours_register_3", 0.95),
    ("API next_pair ≥ 0.95 × best in-register kernel (4 coefficients)", "ours_generator_4", "ours_register_4", 0.95),
    ("generate_normal f64 to memory ≥ 0.9 × store-only (3 coefficients)", "ours_memory_3", "store_only", 0.9),
    ("generate_normal f64 to memory ≥ 0.9 × store-only (4 coefficients)", "ours_memory_4", "store_only", 0.9),
    ("generate_normal f32 ≥ 1.0 × cuRAND host curandGenerateNormal (3 coefficients)", "ours_memory_3_f32",
     "curand_host_philox_f32", 1.0),
    ("generate_normal f32 ≥ 1.0 × cuRAND host curandGenerateNormal (4 coefficients)", "ours_memory_4_f32",
     "curand_host_philox_f32", 1.0),
    ("generate_normal f32 ≥ 0.9 × float store-only (3 coefficients)", "ours_memory_3_f32", "store_only_f32", 0.9),
    ("generate_normal f32 ≥ 0.9 × float store-only (4 coefficients)", "ours_memory_4_f32", "store_only_f32", 0.9),
    ("Philox-fed in registers ≥ 1.3 × curand_normal2_double (3 coefficients)", "ours_register_philox_3",
     "curand_normal2_double", 1.3),
    # Issue 30: the float-native generator against cuRAND's fastest float configuration of the
    # run (curand_best_f32: the fastest curand_host_*_f32 row) and the float store-only kernel.
    ("float-native f32 to memory ≥ 1.3 × cuRAND's fastest host curandGenerateNormal", "ours_memory_float_native_f32",
     "curand_best_f32", 1.3),
    ("float-native f32 to memory ≥ 0.9 × float store-only", "ours_memory_float_native_f32", "store_only_f32", 0.9),
    ("float-native in registers ≥ 1.2 × curand_normal4", "ours_float_native_generator", "curand_normal4", 1.2),
)

# The in-register row that bounds a to-memory float row: the same generator with no stores.
FLOAT_CEILINGS = {"ours_memory_float_native_f32": "ours_float_native_generator"}


def speed_targets(rate):
    """The project's speed targets from one run's rates ({algorithm: outputs per second}):
    a list of (item, ratio or None, bar, verdict), verdict "met", "not met" or "not run"
    (a row missing). A float to-memory target against a rate that the generator does not
    reach even in registers, with no stores at all (`ours_generator_f32_3`; for the
    float-native rows `ours_float_native_generator`), is marked "out of reach" with that
    ceiling: the to-memory kernel cannot beat its own in-register rate. `curand_best_f32` is
    the fastest cuRAND host-API float row of the run."""
    out = []
    rate = dict(rate)
    curand_f32 = [v for k, v in rate.items() if k.startswith("curand_host_") and k.endswith("_f32")]
    if curand_f32:
        rate["curand_best_f32"] = max(curand_f32)
    for item, num, den, bar in SPEED_TARGETS:
        ceiling = rate.get(FLOAT_CEILINGS.get(num, "ours_generator_f32_3"))
        if num not in rate or den not in rate or rate[den] <= 0:
            out.append((item, None, bar, "not run"))
            continue
        ratio = rate[num] / rate[den]
        verdict = "met" if ratio >= bar else "not met"
        if verdict == "not met" and num.endswith("_f32") and ceiling and ceiling < bar * rate[den]:
            # The to-memory kernel cannot beat its own in-register rate.
            verdict = "not met (out of reach: the float API in registers, no stores, runs %.2f × the bar's rate)" % (
                ceiling / (bar * rate[den]))
        out.append((item, ratio, bar, verdict))
    return out


def _fmt(x):
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        return "%.2e" % x
    return "%.4g" % x


DIEHARDER_ITEM = "Gaussian stream passes dieharder"
DIEHARDER_FLOAT_NATIVE_ITEM = "Float-native Gaussian stream passes dieharder (issue 30)"


def dieharder_block(report, results, name, item, note):
    """The report lines of one dieharder run (<results>/<name>.csv and .meta.json, written by
    gaussian_dieharder), and its summary row `item`: "passes" when no line is FAILED, else
    "fails"; "not run" when the CSV is absent or has no rows (dieharder not installed)."""
    rows = _rows(os.path.join(results, name + ".csv"))
    meta = _meta(results, name) if os.path.isfile(os.path.join(results, name + ".meta.json")) else {}
    if not rows:
        why = "dieharder not installed" if meta.get("dieharder") == "not installed" else "no results"
        report.summary.append((item, "not run", why))
        return ["*Not run (%s: `%s.csv`).*" % (why, name)]
    counts = {}
    for r in rows:
        counts[r["assessment"]] = counts.get(r["assessment"], 0) + 1
    lines = ["%s, psamples %s, stream `%s`: %s. %s"
             % (meta.get("dieharder", "dieharder"), meta.get("psamples", "?"), meta.get("stream", ""),
                ", ".join("%d %s" % (n, a) for a, n in sorted(counts.items())), note),
             "\n".join(["| -d | test | ntup | tsamples | psamples | p-value | assessment |",
                        "|---:|---|---:|---:|---:|---:|---|"] +
                       ["| %s | %s | %s | %s | %s | %s | %s |" % (r["test_id"], r["test_name"], r["ntup"],
                                                               r["tsamples"], r["psamples"], r["p_value"],
                                                               r["assessment"]) for r in rows])]
    failed = counts.get("FAILED", 0)
    report.summary.append((item, "passes" if failed == 0 else "fails",
                           "%d result lines, %d FAILED, %d WEAK (dieharder: p < 0.005 or > 0.995; expected "
                           "about 1 %% of lines by chance)" % (len(rows), failed, counts.get("WEAK", 0))))
    return lines


def report_section(report, results, recorded_root):
    """Adds the Gaussian section to a make_report.Report (its add, figure, summary)."""
    facts = article_facts()
    art = {k: v[0] for k, v in facts.items()}
    lines = ["## Warp-parallel Gaussian generator (article “Training a random Gaussian generator”)",
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
        philox = ["%s %.2f×" % (name, rate[name] / peer) for name in ("ours_register_philox_3", "ours_register_philox_4")
                  if peer and name in rate]
        for name in ("ours_register_philox_3", "ours_register_philox_4"):
            if peer and name in rate:
                ok = ok and rate[name] / peer >= 1.3
        lines.append("Article: %s G outputs/s on a V100 (in registers, tail test). Bar (the project's): ours ≥ 1.3 × "
                     "`curand_normal2_double` in registers: %s." % (_fmt(_num(art.get("throughput_v100", "0")) / 1e9),
                                                                   ", ".join(ratios) or "not measured"))
        lines.append("Bit sources: `ours_register_philox_*` and `ours_memory_philox_*` draw their entropy from cuRAND's Philox4_32_10 "
                     "(`curand4`, like for like with the cuRAND rows, which all run Philox4_32_10), the other "
                     "`ours_*` rows from SplitMix64 (`gaussian/entropy.hpp`)%s."
                     % (("; the Philox-fed rows against `curand_normal2_double`: " + ", ".join(philox)) if philox else
                        "; no Philox-fed row in this run"))
        ratios += philox
        report.summary.append(("Gaussian throughput ≥ 1.3 × curand_normal2_double in registers",
                               "met" if ok else "not met", ", ".join(ratios) or "peer missing"))
        for suffix, word, size in (("", "doubles", 8), ("_f32", "floats", 4)):
            store = rate.get("store_only" + suffix)
            if not store:  # the write-bandwidth reference of the to-memory rows (recorded from 30be5b9 on)
                continue
            parts = ["%s %.3f×" % (name, rate[name] / store)
                     for name in ("ours_memory_3" + suffix, "ours_memory_4" + suffix, "ours_memory_philox_3" + suffix,
                                  "ours_memory_float_native" + suffix)
                     if name in rate]
            peer = rate.get("curand_host_philox" + suffix)
            for name in ("ours_memory_3" + suffix, "ours_memory_philox_3" + suffix):
                if peer and name in rate:
                    parts.append("%s ÷ cuRAND host %.2f×" % (name, rate[name] / peer))
            lines.append("To memory against a kernel that only writes the same %s (`store_only%s`, %s G "
                         "outputs/s = %s GB/s): %s." % (word, suffix, _fmt(store / 1e9), _fmt(size * store / 1e9),
                                                       ", ".join(parts) or "no generate_normal row"))
        targets = speed_targets(rate)
        lines.append("\n".join(["Speed targets (the project's, this run):", "", "| target | ratio | verdict |",
                                 "|---|---:|---|"] +
                                ["| %s | %s | %s |" % (item, "—" if ratio is None else "%.3f" % ratio, verdict)
                                 for item, ratio, bar, verdict in targets]))
        for item, ratio, bar, verdict in targets:
            report.summary.append(("Gaussian: " + item, verdict.split(" (")[0],
                                   "—" if ratio is None else "%.3f× (bar %g×)%s" % (
                                       ratio, bar, (" — " + verdict.split(" (", 1)[1].rstrip(")")) if "(" in verdict
                                       else "")))
        if rate.get("curand_normal4") and rate.get("ours_generator_f32_3"):
            lines.append("Float in registers: the API's `next_pair_float` (3 coefficients) %s G/s against cuRAND "
                         "`curand_normal4` %s G/s (%.2f×)." % (_fmt(rate["ours_generator_f32_3"] / 1e9),
                                                              _fmt(rate["curand_normal4"] / 1e9),
                                                              rate["ours_generator_f32_3"] / rate["curand_normal4"]))
        if rate.get("curand_normal4") and rate.get("ours_float_native_generator"):
            lines.append("Float-native generator (issue 30) in registers: `float_normal_generator::next4` %s G/s "
                         "against `curand_normal4` (%.2f×)." % (_fmt(rate["ours_float_native_generator"] / 1e9),
                                                               rate["ours_float_native_generator"] / rate["curand_normal4"]))
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
        report.summary.append((TABLE_BAR_ITEM, "not run", "no gaussian_hermite_failure results"))
    else:
        def worst(table, order_max, column):
            values = [_num(r[column]) for r in failure if r["table"] == table and int(r["order"]) <= order_max]
            values = [v for v in values if v is not None]
            return _fmt(min(values)) if values else "—"
        facts = article_facts()
        top = max(int(r["order"]) for r in failure)
        lines.append("Expected outputs until a test reaches 4σ, from the exact analytics (`gaussian_hermite_failure`). "
                     "Initial table, moment tests of orders ≤ 8: %s (article %s, a moment test); Hermite tests of "
                     "orders ≤ 8: %s. Optimised table, orders ≤ 16: moment %s, Hermite %s; orders ≤ %d: moment %s, "
                     "Hermite %s, best polynomial %s (article %s for its own optimised table)."
                     % (worst("inverse_cdf", 8, "moment_failure_outputs"),
                        facts.get("failure_outputs_initial", ("?",))[0],
                        worst("inverse_cdf", 8, "hermite_failure_outputs"),
                        worst("optimised", 16, "moment_failure_outputs"),
                        worst("optimised", 16, "hermite_failure_outputs"),
                        top, worst("optimised", top, "moment_failure_outputs"),
                        worst("optimised", top, "hermite_failure_outputs"),
                        worst("optimised", top, "best_polynomial_failure_outputs"),
                        facts.get("failure_outputs_optimised", ("?",))[0]))
        lines.append(failure_table(failure, facts))
        verdict, detail = table_quality_verdict(failure)
        report.summary.append((TABLE_BAR_ITEM, verdict, detail))
        if os.path.isfile(os.path.join(report.figures, "gaussian_failure_times.png")):
            lines.append(report.figure("gaussian_failure_times", "Failure time per order, initial vs optimised table"))
    # dieharder: the double generator's stream, then issue 30's float-native generator's
    lines.append("### dieharder on the CDF-mapped stream")
    lines += dieharder_block(report, results, "gaussian_dieharder", DIEHARDER_ITEM,
                             "The article ran PractRand to 2^%s bytes of the CDF-mapped stream and 2^%s bytes of "
                             "the tail stream without a failure (section “Testing with PractRand”)."
                             % (art.get("practrand_full_bytes_log2", "?"), art.get("practrand_tail_bytes_log2", "?")))
    lines.append("### dieharder (float-native generator, issue 30)")
    lines += dieharder_block(report, results, "gaussian_dieharder_float_native", DIEHARDER_FLOAT_NATIVE_ITEM,
                             "Two outputs per uint32 word, the top 16 bits of Φ(x) each (a float fixes Φ only to "
                             "about 2^-25); `gaussian_dieharder --generator float_native`.")
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
