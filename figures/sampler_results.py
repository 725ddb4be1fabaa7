"""The shuffle sampler for distributed data loaders (experiment sampler, issue 28 §3): its
figure and its report section.

Reads sampler.csv (written by experiments/sampler.py; columns algorithm, num_samples,
world_size, indices_per_second, peak_rss_bytes, first_index_seconds, bytes_beyond_batch,
status, note) from a run's results directory ("this run") and from every recorded copy
results/recorded/<machine>/sampler.csv: the CPU part is recorded on a 2-core CPU machine, the
GPU part on the H100, so every copy is read, each labelled with its machine.

Targets (issue 28 §3), decided from the rows of ours (status ok) at N = 10^6, 10^8, 10^9,
3·10^9 (and any other N measured, the cycle walk's worst case 2^k + 1 included):
  memory       bytes_beyond_batch < 4 KB per rank (onepass_cpu, onepass_sampler_iter)
  first index  first_index_seconds <= 1 ms (every row of ours: onepass_cpu, the sampler, onepass_gpu)
  CPU          onepass_cpu indices/s ÷ the cores its run used (meta cores_used) >= 50 M, at the
               target N only (other N, the worst case 2^k + 1, reported beside the verdict)
  GPU          onepass_gpu indices/s >= 10 G (a batch of 2^28)
A verdict is "met" (every target N measured, all pass), "not met" (a measured point fails),
"met where measured" (all measured points pass, some target N not measured) or "not measured".
Standard library only, except draw() (matplotlib).
"""

import functools
import os
import re

from figures import palette
from figures import shuffle_results as sr
from paper import provenance as pv
from figures.figure_files import footer, save_figure

EXPERIMENT = "sampler"
FIGURE = "sampler"
COLUMNS = ["algorithm", "num_samples", "world_size", "indices_per_second", "peak_rss_bytes",
           "first_index_seconds", "bytes_beyond_batch", "status", "note"]
OURS = ["onepass_cpu", "onepass_sampler_iter", "onepass_gpu"]
PEERS = ["torch_distributed_sampler", "torch_randperm_cpu", "torch_randperm_cuda"]
ALGORITHMS = OURS + PEERS
CALLS = {
    "onepass_cpu": "onepass.data.epoch_indices (CPU batch)",
    "onepass_sampler_iter": "DistributedShuffleSampler (Python ints)",
    "onepass_gpu": "epoch_indices(device='cuda')",
    "torch_distributed_sampler": "torch DistributedSampler",
    "torch_randperm_cpu": "torch.randperm (CPU)",
    "torch_randperm_cuda": "torch.randperm (CUDA)",
}
TARGET_SIZES = [10 ** 6, 10 ** 8, 10 ** 9, 3 * 10 ** 9]
TARGET_BEYOND_BATCH = 4096          # bytes per rank beyond the batch buffer
TARGET_FIRST_INDEX = 1e-3           # seconds
TARGET_CPU_PER_CORE = 50e6          # indices/s per CPU core
TARGET_GPU = 10e9                   # indices/s on the H100


def size_text(n):
    """10^6, 3·10^9, 2^30+1, else the digits (as the experiment prints them)."""
    n = int(n)
    for k in range(1, 64):
        if n == 2 ** k:
            return "2^%d" % k
        if n == 2 ** k + 1:
            return "2^%d+1" % k
    s = str(n)
    stripped = s.rstrip("0")
    zeros = len(s) - len(stripped)
    if zeros >= 3 and len(stripped) == 1:
        return ("10^%d" % zeros) if stripped == "1" else "%s·10^%d" % (stripped, zeros)
    return s


def bytes_text(b):
    if b is None:
        return "—"
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if b >= scale:
            return "%.3g %s" % (b / scale, unit)
    return "%d B" % b


def rate_text(r):
    if r is None:
        return "—"
    return "%.3g G/s" % (r / 1e9) if r >= 1e9 else "%.3g M/s" % (r / 1e6)


def seconds_text(s):
    if s is None:
        return "—"
    if s >= 1:
        return "%.3g s" % s
    if s >= 1e-3:
        return "%.3g ms" % (s * 1e3)
    return "%.3g µs" % (s * 1e6)


# ------------------------------------------------------------------------------------ input

class Dataset:
    """One run's rows: machine (the recorded folder's name, or "this run"), directory, meta,
    rows (dicts with numbers converted: num_samples, world_size int; rates, bytes, seconds float
    or None)."""

    def __init__(self, machine, directory, rows, meta, fresh=False):
        self.machine, self.directory, self.meta, self.fresh = machine, directory, meta, fresh
        self.rows = [parse_row(r) for r in rows]

    @property
    def cores(self):
        """CPU cores the run used (meta cores_used, else cores), or None."""
        c = self.meta.get("cores_used") or self.meta.get("cores")
        return int(c) if c else None

    @functools.cached_property
    def stale(self):
        """True when a recorded copy's measured code changed after its commit (provenance.code_freshness
        "changed"): its rows are shown but not judged. A fresh run ("this run") is never stale."""
        return not self.fresh and \
            pv.code_freshness(EXPERIMENT, self.meta.get("commit", "unknown"))["status"] == "changed"

    def label(self):
        gpu = self.meta.get("gpu")
        cpu = "%s, %s cores" % (self.meta.get("cpu_model", "CPU ?"), self.cores or "?")
        return "%s (%s%s)" % (self.machine, cpu, "; " + gpu if gpu else "")


def parse_row(r):
    out = dict(r)
    for key in ("num_samples", "world_size"):
        v = sr.number_or_none(r.get(key))
        out[key] = int(v) if v is not None else None
    for key in ("indices_per_second", "peak_rss_bytes", "first_index_seconds", "bytes_beyond_batch"):
        out[key] = sr.number_or_none(r.get(key))
    out["status"] = (r.get("status") or "").strip() or "ok"
    out["note"] = (r.get("note") or "").strip()
    return out


def _read(directory, machine, fresh):
    path = os.path.join(directory, EXPERIMENT + ".csv")
    rows = sr.read_rows_text(path)
    if not rows:
        raise sr.MissingInput("no data rows: %s" % path)
    missing = [c for c in COLUMNS if c not in rows[0]]
    if missing:
        raise sr.MissingInput("%s: columns missing: %s" % (path, ", ".join(missing)))
    meta = sr.read_meta(os.path.join(directory, EXPERIMENT + ".meta.json"))
    return Dataset(machine, directory, rows, meta, fresh)


def load(results, recorded_root):
    """[Dataset] of this run (results/sampler.csv) and of every recorded copy, oldest first
    (this run last); [] when none exists. Raises sr.MissingInput for a CSV without rows or
    columns, or a missing or malformed meta.json."""
    out = []
    for device, directory in sr.find_recorded(recorded_root, EXPERIMENT):
        if results and os.path.abspath(directory) == os.path.abspath(results):
            continue
        out.append(_read(directory, device, False))
    out.sort(key=lambda d: (str(d.meta.get("date", "")), d.machine))
    if results and os.path.isfile(os.path.join(results, EXPERIMENT + ".csv")):
        out.append(_read(results, "this run", True))
    return out


# --------------------------------------------------------------------------------- verdicts

def _decide(points, passes, required=TARGET_SIZES):
    """points: [(n, value, dataset, row)]. A dict: verdict, worst (the point furthest from
    passing), failing, missing (target N without a point), points."""
    if not points:
        return {"verdict": "not measured", "points": [], "failing": [], "missing": list(required), "worst": None}
    failing = [p for p in points if not passes(p[1])]
    measured = {p[0] for p in points}
    missing = [n for n in required if n not in measured]
    if failing:
        verdict = "not met"
    elif missing:
        verdict = "met where measured"
    else:
        verdict = "met"
    return {"verdict": verdict, "points": points, "failing": failing, "missing": missing}


def _points(datasets, algorithms, value):
    pts = []
    for d in datasets:
        for r in d.rows:
            if r["algorithm"] in algorithms and r["status"] == "ok" and r["num_samples"]:
                v = value(d, r)
                if v is not None:
                    pts.append((r["num_samples"], v, d, r))
    return pts


def judged(datasets):
    """The datasets the verdicts are decided on: those whose measured code has not changed since they
    were measured (Dataset.stale), or all of them when every one is stale."""
    current = [d for d in datasets if not d.stale]
    return current or list(datasets)


def targets(datasets):
    """The four verdicts: [{key, title, target, verdict, points, failing, missing, worst, unit}], decided
    on judged(datasets)."""
    out = []
    datasets = judged(datasets)
    mem = _points(datasets, ["onepass_cpu", "onepass_sampler_iter"], lambda d, r: r["bytes_beyond_batch"])
    t = _decide(mem, lambda v: v < TARGET_BEYOND_BATCH)
    t.update(key="memory", title="memory beyond the batch buffer, per rank", target="< 4 KB (4096 B)",
             worst=max(mem, key=lambda p: p[1]) if mem else None, show=lambda v: "%d B" % v)
    out.append(t)
    first = _points(datasets, OURS, lambda d, r: r["first_index_seconds"])
    t = _decide(first, lambda v: v <= TARGET_FIRST_INDEX)
    t.update(key="first_index", title="time to the first index of an epoch", target="≤ 1 ms",
             worst=max(first, key=lambda p: p[1]) if first else None, show=seconds_text)
    out.append(t)
    # The CPU target is stated at the target sizes (issue 28 names the worst case 2^k + 1 for the
    # H100 only): other N, the worst case among them, are reported beside the verdict.
    cpu_all = _points(datasets, ["onepass_cpu"],
                      lambda d, r: r["indices_per_second"] / d.cores if r["indices_per_second"] and d.cores else None)
    cpu = [p for p in cpu_all if p[0] in TARGET_SIZES]
    t = _decide(cpu, lambda v: v >= TARGET_CPU_PER_CORE)
    t.update(lower_is_worse=True)
    t.update(key="cpu", title="CPU indices/s per core (epoch_indices)", target="≥ 50 M/s per core at the target N",
             worst=min(cpu, key=lambda p: p[1]) if cpu else None, show=rate_text,
             beside=[p for p in cpu_all if p[0] not in TARGET_SIZES])
    out.append(t)
    gpu = _points(datasets, ["onepass_gpu"], lambda d, r: r["indices_per_second"])
    t = _decide(gpu, lambda v: v >= TARGET_GPU)
    t.update(lower_is_worse=True)
    t.update(key="gpu", title="GPU indices/s (epoch_indices, a batch of 2^28)", target="≥ 10 G/s on the H100",
             worst=min(gpu, key=lambda p: p[1]) if gpu else None, show=rate_text)
    out.append(t)
    return out


def verdict_text(t):
    v = t["verdict"]
    if v == "not measured":
        return "not measured"
    if v == "not met":
        return "**not met**"
    if v == "met where measured":
        return "met where measured (not measured at N = %s)" % ", ".join(size_text(n) for n in t["missing"])
    return "met"


def target_line(t):
    """'- title (target): verdict; worst ...' for the report."""
    text = "- %s (%s): %s" % (t["title"], t["target"], verdict_text(t))
    if t["worst"] is not None:
        n, v, d, r = t["worst"]
        text += "; %s %s (`%s`, N = %s, P = %s, %s)" % ("worst" if len(t["points"]) > 1 else "measured", t["show"](v),
                                                       r["algorithm"], size_text(n), r["world_size"], d.machine)
        if t["failing"]:
            text += "; %d of %d points fail" % (len(t["failing"]), len(t["points"]))
        sizes = sorted({p[0] for p in t["points"]})
        text += "; measured at N = %s" % ", ".join(size_text(n) for n in sizes)
        machines = []
        for p in t["points"]:
            if p[2] not in machines:
                machines.append(p[2])
        if len(machines) > 1:  # each machine's worst point and whether it alone would meet the target
            parts = []
            for d in machines:
                own = [p for p in t["points"] if p[2] is d]
                w = (min if t.get("lower_is_worse") else max)(own, key=lambda p: p[1])
                fails = [p for p in own if p in t["failing"]]
                parts.append("%s%s worst %s (%s)" % (d.machine, " (%s cores)" % d.cores if t["key"] == "cpu" else "",
                                                     t["show"](w[1]), "%d of %d fail" % (len(fails), len(own))
                                                     if fails else "met there"))
            text += "; per machine: " + ", ".join(parts)
    if t.get("beside"):
        text += "; beside the target: %s" % ", ".join(
            "%s at N = %s, P = %s (%s)" % (t["show"](v), size_text(n), r["world_size"], d.machine)
            for n, v, d, r in sorted(t["beside"], key=lambda p: (p[0], p[3]["world_size"])))
    return text


# ----------------------------------------------------------------------------------- tables

def cell(r):
    if r is None:
        return "—"
    if r["status"] == "not_run_memory":
        need = None
        note = r["note"]
        if "(" in note and "GiB" in note:
            need = note.split("(", 1)[1].split(")", 1)[0]
        return "not run (memory%s)" % (": needs " + need if need else "")
    if r["status"] == "not_run_missing":
        return "not run"
    if r["status"] != "ok":
        return "**failed**"
    return rate_text(r["indices_per_second"])


def machine_tables(d):
    """Two Markdown tables of one dataset: indices/s per (N, P) and algorithm; first index and
    peak RSS per (N, P) and algorithm (only the algorithms with a row there)."""
    algs = [a for a in ALGORITHMS if any(r["algorithm"] == a for r in d.rows)] + \
        sorted({r["algorithm"] for r in d.rows} - set(ALGORITHMS))
    keys = sorted({(r["num_samples"], r["world_size"]) for r in d.rows if r["num_samples"]})
    by = {(r["algorithm"], r["num_samples"], r["world_size"]): r for r in d.rows}
    algs = [a for a in algs if any(by.get((a,) + k) and by[(a,) + k]["status"] != "not_run_missing" for k in keys)]
    head = ["N", "P"] + ["`%s`" % a for a in algs]
    rate = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    mem = list(rate)
    for n, p in keys:
        rate.append("| " + " | ".join([size_text(n), str(p)] + [cell(by.get((a, n, p))) for a in algs]) + " |")
        cells = []
        for a in algs:
            r = by.get((a, n, p))
            if r is None or r["status"] != "ok":
                cells.append(cell(r))
            else:
                cells.append("%s · %s" % (seconds_text(r["first_index_seconds"]), bytes_text(r["peak_rss_bytes"])))
        mem.append("| " + " | ".join([size_text(n), str(p)] + cells) + " |")
    return "\n".join(rate), "\n".join(mem)


def beyond_batch_text(d):
    pts = [(r["num_samples"], r["world_size"], r["algorithm"], r["bytes_beyond_batch"]) for r in d.rows
           if r["algorithm"] in OURS and r["status"] == "ok" and r["bytes_beyond_batch"] is not None]
    if not pts:
        return None
    by_alg = {}
    for n, p, a, b in sorted(pts):
        by_alg.setdefault(a, []).append("%s/P=%d: %d B" % (size_text(n), p, b))
    return "; ".join("`%s` %s" % (a, ", ".join(v)) for a, v in by_alg.items())


def others_share(r):
    """The share (0..1) of the machine's CPU other processes used while the row's case ran, from
    its note ("other processes used N% of the machine's CPU meanwhile"), or None."""
    m = re.search(r"other processes used (\d+(?:\.\d+)?)% of the machine's CPU", r["note"])
    return float(m.group(1)) / 100 if m else None


def others_text(d):
    """One sentence on other processes' CPU share during the CPU cases of ours, or None."""
    shares = [(others_share(r), r) for r in d.rows if r["algorithm"] in ("onepass_cpu", "onepass_sampler_iter")
              and r["status"] == "ok"]
    shares = [(s, r) for s, r in shares if s is not None]
    if not shares:
        return None
    worst, r = max(shares, key=lambda x: x[0])
    return ("Other processes on the machine while ours ran on the CPU: at most %.0f%% of its CPU time (`%s`, N = %s, "
            "P = %d)%s." % (100 * worst, r["algorithm"], size_text(r["num_samples"]), r["world_size"],
                            "; those rates are low by about that share" if worst >= 0.05 else ""))


def failures_text(d):
    items = []
    for r in d.rows:
        if r["status"] in ("not_run_memory", "failed"):
            items.append("`%s` N = %s, P = %d: %s — %s" % (r["algorithm"], size_text(r["num_samples"]),
                                                          r["world_size"], r["status"], r["note"]))
    return items


# ------------------------------------------------------------------------------------ figure

def footer_text(datasets):
    parts = []
    for d in datasets:
        m = d.meta
        bits = [d.label()]
        if m.get("date"):
            bits.append(str(m["date"])[:10])
        if m.get("commit"):
            bits.append("commit %s%s" % (str(m["commit"])[:10], "+dirty" if m.get("worktree_dirty") else ""))
        v = m.get("versions") or {}
        if v.get("torch"):
            bits.append("torch %s" % v["torch"])
        parts.append(", ".join(bits))
    return "Measured on " + " | ".join(parts)


def draw(datasets, out_dir):
    """Three panels against N (log-log): rank 0's indices/s, peak RSS of the process, time to
    the first index. P = 1 solid, P = 8 (or other P) dashed; one series per algorithm and
    machine (the first machine's markers filled, the others' hollow); peers not run for memory (or
    failed) as x on the bottom edge; a dotted vertical line at the cycle walk's worst case 2^k + 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    palette.apply_rc()
    fig, axes = plt.subplots(1, 3, figsize=(15.0, 5.0))
    panels = [("indices_per_second", "rank 0's indices / s", 1.0),
              ("peak_rss_bytes", "peak RSS of the process (GiB)", 2.0 ** -30),
              ("first_index_seconds", "time to the first index (s)", 1.0)]
    worlds = sorted({r["world_size"] for d in datasets for r in d.rows if r["world_size"]})
    styles = ["-", "--", ":", "-."]
    drawn = False
    several = len(datasets) > 1
    handles = []
    worst = sorted({r["num_samples"] for d in datasets for r in d.rows if r["num_samples"] and r["num_samples"] > 2
                    and (r["num_samples"] - 1) & (r["num_samples"] - 2) == 0})  # 2^k + 1
    for ax, (key, ylabel, scale) in zip(axes, panels):
        for w in worst:
            ax.axvline(w, color=palette.NOTE, lw=0.6, ls=(0, (1, 3)), zorder=1)
            ax.annotate("%s (worst case)" % size_text(w), (w, 0.98), xycoords=("data", "axes fraction"), fontsize=6.5,
                        ha="right", va="top", rotation=90, color=palette.NOTE)
        for di, d in enumerate(datasets):
            # the same algorithm on another machine: hollow markers, thinner line
            other = {"mfc": "white", "lw": 1.2} if di else {}
            for a in [a for a in ALGORITHMS if any(r["algorithm"] == a for r in d.rows)]:
                for wi, p in enumerate(worlds):
                    rows = sorted((r for r in d.rows if r["algorithm"] == a and r["world_size"] == p),
                                  key=lambda r: r["num_samples"])
                    pts = [(r["num_samples"], r[key] * scale) for r in rows if r["status"] == "ok" and r[key]]
                    if pts:
                        label = "%s%s" % (CALLS.get(a, a), " — %s" % d.machine if several else "")
                        ax.plot([x for x, _ in pts], [y for _, y in pts],
                                **palette.line(a, ls=styles[wi % len(styles)], label=label, **other))
                        drawn = True
                    skipped = [r["num_samples"] for r in rows if r["status"] in ("not_run_memory", "failed")]
                    if skipped:
                        ax.plot(skipped, [0.0] * len(skipped), ls="none", marker="x", ms=7, mew=1.6,
                                color=palette.colour(a), transform=ax.get_xaxis_transform(), clip_on=False,
                                zorder=5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("N (samples in the dataset)")
        ax.set_ylabel(ylabel)
    if not drawn:
        plt.close(fig)
        raise sr.MissingInput("%s.csv has no measured rows" % EXPERIMENT)
    ax = axes[0]
    cores = [d.cores for d in datasets if d.cores and any(r["algorithm"] == "onepass_cpu" and r["status"] == "ok"
                                                          for r in d.rows)]
    if cores:
        c = min(cores)
        ax.axhline(TARGET_CPU_PER_CORE * c, color=palette.THRESHOLD, ls=":", lw=1.0)
        ax.annotate("target 50 M/s per core × %d cores" % c, (0.01, TARGET_CPU_PER_CORE * c),
                    xycoords=("axes fraction", "data"), fontsize=7, va="bottom", color=palette.NOTE)
    if any(r["algorithm"] == "onepass_gpu" and r["status"] == "ok" for d in datasets for r in d.rows):
        ax.axhline(TARGET_GPU, color=palette.THRESHOLD, ls=":", lw=1.0)
        ax.annotate("target 10 G/s (H100)", (0.01, TARGET_GPU), xycoords=("axes fraction", "data"), fontsize=7,
                    va="bottom", color=palette.NOTE)
    axes[2].axhline(TARGET_FIRST_INDEX, color=palette.THRESHOLD, ls=":", lw=1.0)
    axes[2].annotate("target 1 ms", (0.01, TARGET_FIRST_INDEX), xycoords=("axes fraction", "data"), fontsize=7,
                     va="bottom", color=palette.NOTE)
    axes[0].set_title("throughput per rank")
    axes[1].set_title("memory (x on the axis: peer not run, or failed)")
    axes[2].set_title("start of an epoch")
    seen = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in seen and not lab.startswith("_"):
                seen[lab] = Line2D([], [], color=h.get_color(), marker=h.get_marker(), lw=h.get_linewidth(),
                                   mfc=h.get_markerfacecolor())
    handles = list(seen.values())
    labels = list(seen)
    handles += [Line2D([], [], color="grey", ls=styles[i % len(styles)]) for i in range(len(worlds))]
    labels += ["world size P = %d (rank 0)" % p for p in worlds]
    fig.tight_layout(rect=(0, 0.12, 1, 0.95))
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=4, fontsize=8, framealpha=0.92)
    fig.suptitle("Shuffle sampler for distributed data loaders: onepass.data against torch's DistributedSampler "
                 "and randperm", fontsize=11)
    footer(fig, footer_text(datasets))
    return save_figure(fig, out_dir, FIGURE)


def extend(results, out_dir, recorded_root, written, problems):
    """plot_all.py's hook: draws the figure when sampler results exist (fresh or recorded);
    without any it says so in one line and adds no problem."""
    try:
        datasets = load(results, recorded_root)
    except sr.MissingInput as e:
        return written, problems + ["%s not drawn: %s" % (FIGURE, e)]
    if not datasets:
        print("plot_all: %s: not drawn, no %s.csv (fresh or recorded)" % (FIGURE, EXPERIMENT))
        return written, problems
    print("plot_all: %s from %s" % (FIGURE, ", ".join(d.directory for d in datasets)))
    try:
        return written + draw(datasets, out_dir), problems
    except sr.MissingInput as e:
        return written, problems + ["%s not drawn: %s" % (FIGURE, e)]


def required_figures(results, recorded_root):
    """Figure names scripts/check_outputs.py requires: ours when sampler results exist."""
    return sr.required_if_loaded(FIGURE, load, results, recorded_root)


# ----------------------------------------------------------------------------------- section


def report_section(report, results, recorded_root):
    """Adds the sampler section to a make_report.Report (add, figure, summary)."""
    report.add("## Shuffle sampler for distributed data loaders (`%s`)" % EXPERIMENT)
    try:
        datasets = load(results, recorded_root)
        why = "no `%s.csv` fresh or recorded" % EXPERIMENT
    except sr.MissingInput as e:
        datasets, why = [], str(e)
    if not datasets:
        report.add("**Not measured yet:** %s. `python experiments/sampler.py --out-dir DIR` (with "
                   "`PYTHONPATH=build/python-ext/python` after `make test-python-pkg`, torch optional) times "
                   "`onepass.data.epoch_indices` and `DistributedShuffleSampler` against "
                   "`torch.utils.data.DistributedSampler` and `torch.randperm`." % why)
        report.summary.append(("Data-loader sampler (targets)", "not measured", why))
        return
    report.add("Rank 0's indices of one epoch of the global order, per process, at dataset sizes N up to 3·10^9, "
               "world size P = 1 and 8: ours (`onepass.data`: the walking permutation, cycle walking over the "
               "VariablePhilox bijection, each index computable alone) against what PyTorch users run today — "
               "`torch.utils.data.DistributedSampler` (every rank draws `torch.randperm(N).tolist()` each epoch, "
               "then keeps every P-th) and `torch.randperm` itself (its faster dtype). Each case runs in a fresh "
               "process: peak RSS is that process's high-water mark, the interpreter and its imports included "
               "(torch's import alone is several hundred MiB; the notes give the RSS after imports). Peers whose "
               "memory would exceed the machine's are not run (the bytes they would ask for are in the notes); "
               "the figure marks them with x.")
    report.add(report.figure(FIGURE, "Sampler: rank 0's indices/s, peak RSS and time to the first index "
                                     "against N (log-log); P = 1 solid, P = 8 dashed"))
    judged_sets = judged(datasets)
    for d in datasets:
        m = d.meta
        dirty = ""
        if m.get("worktree_dirty"):
            dirty = " (work tree dirty; %s)" % ("measured code changed: " + ", ".join(m["measured_code_dirty"])
                                                if m.get("measured_code_dirty") else "the measured code clean")
        report.add("**%s** — %s; commit `%s`%s, %s; %s. Versions: %s. Timing: %s. Memory: %s."
                   % (d.machine, d.label().split(" (", 1)[1][:-1], str(m.get("commit", "?"))[:10], dirty,
                      str(m.get("date", "?"))[:10], "this run (`%s`)" % sr.repo_relative(d.directory) if d.fresh
                      else "recorded copy `%s`" % sr.repo_relative(d.directory),
                      ", ".join("%s %s" % (k, v) for k, v in (m.get("versions") or {}).items() if v),
                      m.get("timing", "not recorded"), m.get("memory_rule", "not recorded")))
        if not d.fresh:
            report.add(pv.freshness_text(EXPERIMENT, m) + (" Its rows are shown, not judged." if d not in judged_sets
                                                           else ""))
        if m.get("loadavg_before") or m.get("loadavg_after"):
            report.add("Load average of the machine (1, 5, 15 min) before the run: %s; after: %s (the CPU rates "
                       "assume a quiet machine: a load above its cores means other work shared them)."
                       % (m.get("loadavg_before"), m.get("loadavg_after")))
        rate, mem = machine_tables(d)
        report.add("Rank 0's indices per second (M/s or G/s):", rate,
                   "Time to the first index · peak RSS of the process:", mem)
        others = others_text(d)
        if others:
            report.add(others)
        beyond = beyond_batch_text(d)
        if beyond:
            report.add("Ours, bytes beyond the batch buffer (traced intercept): %s." % beyond)
        fails = failures_text(d)
        if fails:
            report.add("Not run or failed:\n" + "\n".join("- " + f for f in fails))
    ts = targets(datasets)
    lines = [target_line(t) for t in ts]
    met = sum(t["verdict"] == "met" for t in ts)
    decided = sum(t["verdict"] in ("met", "not met") for t in ts)
    verdict = "%d of %d met" % (met, len(ts))
    others = [t["verdict"] for t in ts if t["verdict"] not in ("met", "not met")]
    if others:
        verdict += " (%s)" % ", ".join("%d %s" % (others.count(v), v) for v in sorted(set(others)))
    left_out = [d.machine for d in datasets if d not in judged_sets]
    report.add("Targets (issue 28 §3, the project's own) at N = %s: memory, first index and the GPU rate at every "
               "N measured (the cycle walk's worst case 2^k + 1 included), the CPU rate at these N (other N "
               "reported beside it)%s:" % (", ".join(size_text(n) for n in TARGET_SIZES),
                                            "; decided on the records of the current code, not on %s (measured "
                                            "before the code changed)" % ", ".join("`%s`" % m for m in left_out)
                                            if left_out else ""),
               "\n".join(lines), "**Verdict: %s.**" % verdict)
    report.summary.append(("Data-loader sampler (targets)", verdict,
                           "; ".join(l[2:].replace("**", "") for l in lines)))
    return decided
