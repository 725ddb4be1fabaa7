"""The Python package on GPU arrays against what Python users call today (experiment
python_peers): its figure and its report section.

Reads python_peers.csv (written by experiments/python_peers.py; columns: case, algorithm,
framework, dtype, n, num_segments, items, items_per_second, seconds_median, seconds_min,
repeats, note) from a run's results directory or, where absent, the newest copy recorded on a
GPU (results/recorded/<device>/, shuffle_results.gpu_source). Per case -- and per row length n
for the batched shuffle -- it computes ours (`onepass`) ÷ the fastest peer and decides issue
16's targets:

  shuffle          2^28 int64: ours >= 3x the fastest framework
  batched_shuffle  B n = 2^28: ours >= 5x the fastest framework for rows of n <= 2^20,
                   >= 2x for n = 2^24
  sort             u32, 2^28: ours >= 1.0x torch.sort (torch_sort)
  normal_f64       2^28: ours >= 1.2x torch.randn (torch_randn)
  normal_f32       2^28: ours >= 1.5x the fastest framework (torch.randn, cupy standard_normal;
                   issue 30: the float-native generator)

A verdict is "met" or "not met" when ours and every peer the target compares with were
measured; otherwise it is "undecided" and says what is missing. Standard library only, except
draw() (matplotlib).
"""

import math
import os

from figures import palette
from figures import shuffle_results as sr
from figures.figure_files import footer, save_figure

EXPERIMENT = "python_peers"
FIGURE = "python_peers"
OURS = "onepass"
CASES = ["shuffle", "batched_shuffle", "sort", "normal_f64", "normal_f32"]
CASE_TITLES = {"shuffle": "Shuffle (int64)", "batched_shuffle": "Batched shuffle (int64, B rows of n)",
               "sort": "Sort (uint32 keys)", "normal_f64": "Normal float64", "normal_f32": "Normal float32"}
# The peers experiments/python_peers.py times in each case, in its order: a target against
# "the fastest framework" is decided only when all of them were measured.
PEERS = {
    "shuffle": ["torch_randperm_gather", "cupy_permutation", "jax_permutation"],
    "batched_shuffle": ["torch_argsort_rand_gather", "jax_permutation_independent"],
    "sort": ["torch_sort", "cupy_sort"],
    "normal_f64": ["torch_randn", "cupy_standard_normal"],
    "normal_f32": ["torch_randn", "cupy_standard_normal"],
}
CALLS = {  # what each peer's Python user writes
    OURS: "onepass (ours)",
    "torch_randperm_gather": "x[torch.randperm(n)]",
    "cupy_permutation": "cupy.random.permutation(x)",
    "jax_permutation": "jax.random.permutation(key, x)",
    "torch_argsort_rand_gather": "gather(x, argsort(rand(B, n)))",
    "jax_permutation_independent": "jax.random.permutation(independent=True)",
    "torch_sort": "torch.sort",
    "cupy_sort": "cupy.sort",
    "torch_randn": "torch.randn",
    "cupy_standard_normal": "cupy.random.standard_normal",
}
TARGET_ITEMS = 2 ** 28  # every target is stated at 2^28 items (B n = 2^28 for the batched shuffle)
FASTEST = None  # target_for's reference meaning "the fastest peer measured in the case"


def target_for(case, n, items):
    """(ratio, reference) of the project's target for one measured point, or None where it
    sets none (a size other than 2^28 items). reference: a peer algorithm name, or
    FASTEST."""
    if items != TARGET_ITEMS:
        return None
    if case == "shuffle":
        return 3.0, FASTEST
    if case == "batched_shuffle":
        if n <= 2 ** 20:
            return 5.0, FASTEST
        if n == 2 ** 24:
            return 2.0, FASTEST
        return None
    if case == "sort":
        return 1.0, "torch_sort"
    if case == "normal_f64":
        return 1.2, "torch_randn"
    if case == "normal_f32":
        return 1.5, FASTEST
    return None


def reported_ratio(case):
    """The peer whose ratio a case reports where it has no target, or None (every case has one at
    2^28 items since issue 30 set normal_f32's)."""
    return None


def log2_text(n):
    k = round(math.log2(n)) if n and n > 0 else None
    return "2^%d" % k if k is not None and 2 ** k == n else str(n)


def load(results, recorded_root):
    """(source, rows, meta) of the newest python_peers run (fresh, else recorded), or None.
    Raises sr.MissingInput for a CSV without data rows or a missing/malformed meta.json."""
    source = sr.gpu_source(results, EXPERIMENT, recorded_root)
    if source is None:
        return None
    rows = sr.read_rows_text(os.path.join(source.directory, EXPERIMENT + ".csv"))
    if not rows:
        raise sr.MissingInput("no data rows: %s" % os.path.join(source.directory, EXPERIMENT + ".csv"))
    meta = sr.read_meta(os.path.join(source.directory, EXPERIMENT + ".meta.json"))
    return source, rows, meta


def points(rows):
    """One dict per measured (case, n), in CASES order then n: case, n, segments, items, dtype,
    rate {algorithm: items/s}, notes {algorithm: note}, peers (measured, fastest first), fastest,
    fastest_name, vs_fastest, target, reference, reference_rate, vs_reference, missing, verdict
    ("met", "not met", "undecided", or None without a target)."""
    by = {}
    for r in rows:
        rate = sr.number_or_none(r.get("items_per_second"))
        n = sr.number_or_none(r.get("n"))
        if rate is None or rate <= 0 or n is None or not r.get("case"):
            continue
        n = int(n)
        items = sr.number_or_none(r.get("items"))
        segs = sr.number_or_none(r.get("num_segments"))
        p = by.setdefault((r["case"], n), {
            "case": r["case"], "n": n, "segments": int(segs) if segs else 1,
            "items": int(items) if items else n, "dtype": r.get("dtype", ""), "rate": {}, "notes": {}})
        p["rate"][r["algorithm"]] = rate
        if (r.get("note") or "").strip():
            p["notes"][r["algorithm"]] = r["note"].strip()
    order = {c: i for i, c in enumerate(CASES)}
    out = []
    for key in sorted(by, key=lambda k: (order.get(k[0], len(CASES)), k[0], k[1])):
        p = by[key]
        ours = p["rate"].get(OURS)
        peers = sorted((a for a in p["rate"] if a != OURS), key=lambda a: -p["rate"][a])
        p["peers"] = peers
        p["fastest_name"] = peers[0] if peers else None
        p["fastest"] = p["rate"][peers[0]] if peers else None
        p["vs_fastest"] = ours / p["fastest"] if ours and p["fastest"] else None
        target = target_for(p["case"], p["n"], p["items"])
        p["target"], p["reference"] = target if target else (None, reported_ratio(p["case"]))
        if target and target[1] is FASTEST:
            p["missing"] = [a for a in PEERS.get(p["case"], []) if a not in p["rate"]]
            p["reference_rate"] = p["fastest"]
            p["reference_name"] = p["fastest_name"]
        else:
            ref = p["reference"]
            p["missing"] = [ref] if ref and ref not in p["rate"] else []
            p["reference_rate"] = p["rate"].get(ref) if ref else None
            p["reference_name"] = ref
        if ours is None:
            p["missing"] = [OURS] + p["missing"]
        p["vs_reference"] = ours / p["reference_rate"] if ours and p["reference_rate"] else None
        if p["target"] is None:
            p["verdict"] = None
        elif p["missing"] or p["vs_reference"] is None:
            p["verdict"] = "undecided"
        else:
            p["verdict"] = "met" if p["vs_reference"] >= p["target"] else "not met"
        out.append(p)
    return out


def target_text(p):
    """'≥ 3× the fastest framework', '≥ 1.0× torch_sort', or '—'."""
    if p["target"] is None:
        return "—"
    against = "the fastest framework" if target_for(p["case"], p["n"], p["items"])[1] is FASTEST \
        else "`%s`" % p["reference"]
    return "≥ %.1f× %s" % (p["target"], against)


def verdict_text(p):
    if p["verdict"] is None:
        return "no target"
    if p["verdict"] == "undecided":
        return "undecided (not measured: %s)" % ", ".join(p["missing"])
    return "met" if p["verdict"] == "met" else "**not met**"


def shape_text(p):
    if p["case"] == "batched_shuffle":
        return "n = %s (%s rows)" % (log2_text(p["n"]), log2_text(p["segments"]))
    return "n = %s" % log2_text(p["n"])


def gpu_of(meta):
    return meta.get("gpu_name") or meta.get("gpu") or "an unnamed GPU"


def versions_text(meta):
    v = meta.get("versions") or {}
    return ", ".join("%s %s" % (k, v[k]) for k in v) if v else "versions not recorded"


def footer_text(meta, source):
    parts = [gpu_of(meta)]
    if meta.get("date"):
        parts.append(str(meta["date"])[:10])
    if meta.get("commit"):
        parts.append("commit %s%s" % (str(meta["commit"])[:10], "+dirty" if meta.get("worktree_dirty") else ""))
    parts.append(versions_text(meta))
    if meta.get("repeats"):
        parts.append("median of %s timed calls after %s warm-up" % (meta["repeats"], meta.get("warmup", "?")))
    parts.append("this run" if source is None or source.fresh else "recorded copy results/recorded/%s"
                 % source.device)
    return "Measured on " + " · ".join(parts)


def colour(algorithm):
    return palette.OURS if algorithm == OURS else palette.colour(algorithm)


def group_label(p):
    if p["case"] == "batched_shuffle":
        return "batched\nn = %s\n(%s rows)" % (log2_text(p["n"]), log2_text(p["segments"]))
    word = {"shuffle": "shuffle", "sort": "sort", "normal_f64": "normal", "normal_f32": "normal"}.get(p["case"],
                                                                                                   p["case"])
    return "%s\n%s\nn = %s" % (word, p["dtype"], log2_text(p["n"]))


def draw(rows, meta, out_dir, source):
    """Grouped bars (G items/s, log scale) per case and shape: ours, then each peer; above our
    bar ours ÷ the fastest peer; a dashed mark where the target puts ours."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    palette.apply_rc()
    pts = points(rows)
    if not pts:
        raise sr.MissingInput("%s.csv has no rows with a rate" % EXPERIMENT)
    fig, ax = plt.subplots(figsize=(11.0, 4.8))
    width = 0.8 / max(1 + len(p["peers"]) for p in pts)
    seen, target_drawn = set(), False
    for x, p in enumerate(pts):
        known = PEERS.get(p["case"], [])
        algs = ([OURS] if OURS in p["rate"] else []) + [a for a in known if a in p["rate"]] + \
            [a for a in p["peers"] if a not in known]
        for j, a in enumerate(algs):
            bx = x + (j - (len(algs) - 1) / 2) * width
            ax.bar(bx, p["rate"][a] / 1e9, width, color=colour(a), edgecolor="black" if a == OURS else "none",
                   linewidth=0.6, label=None if a in seen else CALLS.get(a, a), zorder=3)
            seen.add(a)
            if a == OURS:
                top = p["rate"][a]
                if p["target"] is not None and p["reference_rate"]:
                    need = p["target"] * p["reference_rate"]
                    top = max(top, need)
                    ax.hlines(need / 1e9, bx - width * 0.75, bx + width * 0.75,
                              colors=palette.THRESHOLD, linestyles="--", lw=1.1, zorder=4,
                              label=None if target_drawn else "the project's target (ours must reach it)")
                    target_drawn = True
                if p["vs_fastest"]:
                    ax.annotate("%.2f×" % p["vs_fastest"], (bx, top / 1e9), textcoords="offset points",
                                xytext=(0, 3), ha="center", fontsize=7.5)
    ax.set_yscale("log")
    ax.set_xticks(range(len(pts)))
    ax.set_xticklabels([group_label(p) for p in pts], fontsize=8)
    ax.set_xlim(-0.6, len(pts) - 0.4)
    ax.set_ylabel("G items / s (log scale)")
    ax.grid(True, axis="y", alpha=0.3, zorder=0)
    ax.grid(False, axis="x")
    ax.text(0.005, 0.98, "above our bars: ours ÷ the fastest peer of that case and shape", transform=ax.transAxes,
            fontsize=7.5, va="top", color=palette.NOTE)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=4, framealpha=0.9)
    ax.set_title("onepass from Python against torch, CuPy and JAX on %s (%s), %s"
                 % (gpu_of(meta), "this run" if source is None or source.fresh else "recorded run",
                    "2^%s items per call" % meta["log2_items"] if meta.get("log2_items") else ""), fontsize=10.5)
    fig.tight_layout()
    footer(fig, footer_text(meta, source))
    return save_figure(fig, out_dir, FIGURE)


def extend(results, out_dir, recorded_root, written, problems):
    """plot_all.py's hook: draws the figure when python_peers results exist (fresh or recorded)."""
    def load_and_say(res, root):
        loaded = load(res, root)
        if loaded is not None:
            source = loaded[0]
            print("plot_all: %s from %s" % (FIGURE, "this run (%s)" % source.directory if source.fresh else
                                            "the recorded copy in %s" % source.directory))
        return loaded

    return sr.gpu_figure_hook(FIGURE, EXPERIMENT, load_and_say, draw, results, out_dir, recorded_root, written,
                              problems)


def required_figures(results, recorded_root):
    """Figure names scripts/check_outputs.py requires: ours when python_peers results exist."""
    return sr.required_if_loaded(FIGURE, load, results, recorded_root)


# ------------------------------------------------------------------ the C++ library beside it

FUSION = "fig10_fusion"


def cpp_comparison(shuffle_point, fusion_rows, fusion_meta, meta):
    """ours from Python beside the C++ library at the same size, from fig10_fusion rows (best
    case n = 2^w: Bijective2 `variable_philox` and the random gather `gather`): a dict, or None
    when fig10_fusion has no best-case row at that size."""
    if not shuffle_point or OURS not in shuffle_point["rate"]:
        return None
    n = shuffle_point["n"]

    def rate(algorithm):
        for r in fusion_rows or []:
            if r.get("algorithm") == algorithm and r.get("case") == "best" and \
                    sr.number_or_none(r.get("n")) == n:
                return sr.number_or_none(r.get("items_per_second"))
        return None

    cpp, gather = rate("variable_philox"), rate("gather")
    if not cpp or not gather:
        return None
    ours = shuffle_point["rate"][OURS]
    out = {"n": n, "ours": ours, "cpp": cpp, "gather": gather, "vs_cpp": ours / cpp, "vs_gather": ours / gather,
           "same_gpu": (fusion_meta.get("gpu_name") or fusion_meta.get("gpu")) == gpu_of(meta),
           "fusion_gpu": fusion_meta.get("gpu_name") or fusion_meta.get("gpu") or "?",
           "fusion_commit": fusion_meta.get("commit", "?")}
    if shuffle_point["target"] is not None and shuffle_point["fastest"]:
        need = shuffle_point["target"] * shuffle_point["fastest"]
        out.update(need=need, need_vs_gather=need / gather)
    return out


def cpp_text(c, point):
    """The paragraph on the C++ rates (all numbers from the dict of cpp_comparison)."""
    same = abs(c["vs_cpp"] - 1.0) <= 0.05
    text = ("**Against the C++ library.** `onepass.shuffle` of %s int64 items from Python runs at %.1f G items/s, "
            "%.2f× the C++ library's Bijective2 shuffle at the same size (best case n = %s, %.1f G items/s, "
            "`%s.csv`, %s, commit `%s`)%s, and %.2f× the random gather of the same size (%.1f G items/s) — "
            "the bound "
            "of a shuffle that reads and writes every item once (paper §2.2)."
            % (log2_text(c["n"]), c["ours"] / 1e9, c["vs_cpp"], log2_text(c["n"]), c["cpp"] / 1e9, FUSION,
               c["fusion_gpu"] if c["same_gpu"] else "**another GPU: %s**" % c["fusion_gpu"], c["fusion_commit"],
               ": the same rate, within 5%" if same else
               " (%s the C++ rate by more than 5%%)" % ("below" if c["vs_cpp"] < 1 else "above"),
               c["vs_gather"], c["gather"] / 1e9))
    if "need" in c:
        text += (" The target, %.1f× the fastest framework (`%s`, %.1f G items/s, itself %.2f× the gather), asks for "
                 "%.1f G items/s: %.2f× the gather rate%s."
                 % (point["target"], point["fastest_name"], point["fastest"] / 1e9, point["fastest"] / c["gather"],
                    c["need"] / 1e9, c["need_vs_gather"],
                    ", more than the random gather reaches on this GPU, so no shuffle that reads and writes each item "
                    "once can meet it here"
                    if c["need_vs_gather"] > 1 else ", within the gather's reach"))
    return text


# ------------------------------------------------------------------------------ the section

def _fusion(results, recorded_root):
    """(rows, meta) of fig10_fusion (fresh, else recorded), or (None, None)."""
    source = sr.gpu_source(results, FUSION, recorded_root)
    if source is None:
        return None, None
    try:
        return sr.load_experiment(source.directory, FUSION)
    except sr.MissingInput:
        return None, None


def fastest_text(p):
    """'; ours ÷ the fastest peer `cupy_sort` 1.33×' where a point's target names a peer other than
    the fastest one measured (the comparison against the strongest peer is always stated), else ''."""
    if p.get("fastest_name") and p.get("reference_name") != p["fastest_name"] and p.get("vs_fastest"):
        return "; ours ÷ the fastest peer `%s` %.2f×" % (p["fastest_name"], p["vs_fastest"])
    return ""


def case_table(case_points):
    """A Markdown table of one case: shape, ours, each peer, ours ÷ fastest peer, target, verdict."""
    case = case_points[0]["case"]
    peers = []
    for p in case_points:
        for a in PEERS.get(case, []) + p["peers"]:
            if a not in peers:
                peers.append(a)
    header = ["n (rows)" if case == "batched_shuffle" else "n", "ours"] + ["`%s`" % a for a in peers] + \
        ["ours ÷ fastest peer", "target", "verdict"]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for p in case_points:
        g = lambda a: "%.2f" % (p["rate"][a] / 1e9) if a in p["rate"] else "—"  # noqa: E731
        shape = log2_text(p["n"]) + (" (%s)" % log2_text(p["segments"]) if case == "batched_shuffle" else "")
        cells = [shape, g(OURS)] + [g(a) for a in peers]
        cells.append("%.2f× (`%s`)" % (p["vs_fastest"], p["fastest_name"]) if p["vs_fastest"] else "—")
        target = target_text(p)
        if p["reference_name"] and p["reference_name"] != p["fastest_name"] and p["vs_reference"]:
            target += " (ours ÷ `%s`: %.2f×)" % (p["reference_name"], p["vs_reference"])
        cells += [target, verdict_text(p)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)



def report_section(report, results, recorded_root):
    """Adds the Python-package section to a make_report.Report (add, figure, summary)."""
    report.add("## Python package on GPU arrays: onepass against torch, CuPy and JAX (`%s`)" % EXPERIMENT)
    loaded, why = sr.load_or_reason(load, results, recorded_root, EXPERIMENT)
    if loaded is None:
        report.add("**Not measured yet:** %s. `scripts/device-python-gpu.sh OUTDIR` on a GPU machine builds the "
                   "package's CUDA module and runs `experiments/python_peers.py` (onepass against "
                   "`torch.randperm` + gather, `cupy.random.permutation`, `jax.random.permutation`, "
                   "`torch.argsort(torch.rand(B, n))` + gather, `torch.sort`, `cupy.sort`, `torch.randn` and "
                   "`cupy.random.standard_normal`)." % why)
        report.summary.append(("Python package vs frameworks (targets)", "not measured yet", why))
        return
    source, rows, meta = loaded
    pts = points(rows)
    where = source.describe(sr.repo_relative) if hasattr(source, "describe") else "given rows"
    report.add("Measured on **%s**, commit `%s`, %s — %s. Versions: %s. Timing: %s; median of %s timed calls after "
               "%s warm-up call%s (items/s = items ÷ median seconds), all frameworks in one process on one GPU. "
               "Rates in G items/s; ours is `onepass.shuffle` / `segmented_shuffle` / `sort` (%s) / `normal` on "
               "torch tensors. The program checks only that our shuffle's output keeps the sum and is not the "
               "identity, "
               "and that our sort's output is sorted; the values are checked by the package's GPU tests "
               "(`tests/python_pkg/test_onepass_gpu.py`)."
               % (gpu_of(meta), meta.get("commit", "?"), str(meta.get("date", "?"))[:10], where, versions_text(meta),
                  meta.get("timing", "not recorded"), meta.get("repeats", "?"), meta.get("warmup", "?"),
                  "" if str(meta.get("warmup")) == "1" else "s", meta.get("onepass_sort_choice", "auto")))
    if meta.get("skipped"):
        report.add("Skipped by the program: %s." % "; ".join(str(s) for s in meta["skipped"]))
    report.add(report.figure(FIGURE, "onepass from Python against torch, CuPy and JAX: G items/s per case and "
                                     "shape (log scale); dashed: where the target puts ours"))
    for case in [c for c in CASES if any(p["case"] == c for p in pts)] + \
            sorted({p["case"] for p in pts} - set(CASES)):
        cps = [p for p in pts if p["case"] == case]
        notes = sorted({"`%s`: %s" % (a, t) for p in cps for a, t in p["notes"].items()})
        report.add("**%s**" % CASE_TITLES.get(case, case), case_table(cps))
        if notes:
            report.add("Notes from the program: " + "; ".join(notes) + ".")
    shuffle = next((p for p in pts if p["case"] == "shuffle" and p["target"] is not None), None)
    fusion_rows, fusion_meta = _fusion(results, recorded_root)
    comparison = cpp_comparison(shuffle, fusion_rows, fusion_meta or {}, meta)
    if comparison:
        report.add(cpp_text(comparison, shuffle))
    elif shuffle:
        report.add("(No best-case `%s` row at n = %s, fresh or recorded: the C++ comparison is not shown.)"
                   % (FUSION, log2_text(shuffle["n"])))
    decided = [p for p in pts if p["target"] is not None]
    lines = ["- %s %s: ours ÷ %s %s (target %s): %s%s"
             % (p["case"], shape_text(p), "`%s`" % p["reference_name"] if p["reference_name"] else "the peer",
                "%.2f×" % p["vs_reference"] if p["vs_reference"] else "—", target_text(p), verdict_text(p),
                fastest_text(p))
             for p in decided]
    lines += ["- %s %s: ours ÷ `%s` %s (no target)" % (p["case"], shape_text(p), p["reference_name"],
                                                       "%.2f×" % p["vs_reference"] if p["vs_reference"] else "—")
              for p in pts if p["target"] is None and p["reference"]]
    met = sum(p["verdict"] == "met" for p in decided)
    undecided = sum(p["verdict"] == "undecided" for p in decided)
    verdict = "%d of %d met" % (met, len(decided)) + (", %d undecided" % undecided if undecided else "")
    report.add("Targets (the project's own):", "\n".join(lines), "**Verdict: %s.**" % verdict)
    report.summary.append(("Python package vs frameworks (targets)", verdict,
                           "; ".join(l[2:].replace("**", "") for l in lines)))
