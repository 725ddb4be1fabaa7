"""Reading the shuffle experiments' results and the paper's published numbers.

Shared by figures/plot_all.py, paper/make_report.py and scripts/check_outputs.py so
that the three agree on file names, CSV columns and algorithm names. Standard
library only (no numpy/matplotlib here).

Paper: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs" (§5 statistical
tests: Figs. 6-9; §6 throughput: Tables 1-2, Figs. 10-12).
"""

import csv
import datetime
import json
import math
import os
import re

FIGURES_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(FIGURES_DIR)
REFERENCE_DIR = os.path.join(FIGURES_DIR, "reference")
from figures import palette  # one colour per algorithm in every figure
from figures import manifest  # experiments/manifest.toml: the experiments, their figures

# The agreed CSV contract (column names and order) of each CPU experiment.
SCHEMAS = {
    "fig06_chi2_rounds": [
        "algorithm", "rounds", "n", "samples", "alpha", "statistic", "critical_value", "p_value", "passes"],
    "fig07_09_mmd": [
        "algorithm", "rounds", "n", "samples", "form", "lambda", "alpha", "statistic",
        "hoeffding_threshold", "normal_threshold", "passes_hoeffding", "passes_normal"],
    "table2_cpu_shuffle": [
        "algorithm", "label", "log2_size", "n", "threads", "iterations", "seconds_per_iteration",
        "items_per_second", "repetitions", "seconds_min", "seconds_max", "cv"],
}
# The GPU experiments (experiments/*.cu). `make figures` runs them only on a machine with
# a GPU; elsewhere the figures and the report read the newest copy recorded on a GPU under
# results/recorded/<device>/ (see gpu_source). Timing: CUDA events, median/min/max over
# `reps` timed runs after warm-up; items_per_second = n / seconds_median.
GPU_SCHEMAS = {
    "table1_gpu_shuffle": [
        "algorithm", "label", "log2_size", "n", "reps", "seconds_median", "seconds_min", "seconds_max",
        "items_per_second"],
    "fig10_fusion": [
        "algorithm", "case", "log2_size", "n", "reps", "seconds_median", "seconds_min", "seconds_max",
        "items_per_second"],
}
# The shuffle paper's experiments and figures, from experiments/manifest.toml (family "shuffle").
GPU_EXPERIMENTS = manifest.manifest().names(family="shuffle", device="gpu")
# GPU figures (each as .png and .pdf, drawn when their experiment's CSV exists, fresh or
# recorded) and the experiment each needs.
GPU_FIGURES = manifest.manifest().figures(family="shuffle", device="gpu")

# Experiments `make figures` runs on the CPU, in order.
CPU_EXPERIMENTS = manifest.manifest().names(family="shuffle", device="cpu")

# Figures plot_all.py always draws (each as .png and .pdf) and the experiment each needs.
CPU_FIGURES = manifest.manifest().figures(family="shuffle", device="cpu")
MMD_FIGURE_N = {"fig07_mmd_n5": 5, "fig08_mmd_n100": 100, "fig09_mmd_n1000": 1000}

INT_COLUMNS = {"rounds", "n", "samples", "log2_size", "threads", "iterations", "passes",
               "passes_hoeffding", "passes_normal", "cores", "reps"}
TEXT_COLUMNS = {"algorithm", "label", "form", "source", "machine", "as_printed", "unit", "key", "value", "shape",
                "case"}

# Display names as the paper's tables print them; keys are normalised names
# (lower case, letters and digits only) of experiment algorithm names and labels.
PAPER_LABELS = {
    "gather": "Gather", "randomgather": "Gather",
    "variablephilox": "VarPhilox", "varphilox": "VarPhilox",
    "lcg": "LCG",
    "dartthrowing": "DartThrowing", "dart": "DartThrowing",
    "stdshuffle": "std::shuffle",
    "rs": "RS", "raosandelius": "RS",
    "mergeshuffle": "MergeShuffle",
    "sortshuffle": "SortShuffle",
    "walking": "Walking",  # not in the paper: the walking permutation (issue 28)
}
# Fixed colours so one algorithm has one colour in every figure (from figures/palette.py,
# which every figure uses; kept here by name for callers of shuffle_results).
COLOURS = {lab: palette.colour(lab) for lab in (
    "Gather", "VarPhilox", "LCG", "DartThrowing", "std::shuffle", "RS", "MergeShuffle", "SortShuffle")}
# Algorithms that run on one thread whatever oneTBB's concurrency (the CPU experiment's
# threads column records oneTBB's default concurrency for every row): by paper label.
SEQUENTIAL = {"std::shuffle"}  # baselines/cpu/std_shuffle.cpp: single-threaded std::shuffle
NON_SHUFFLES = {"Gather", "Gather (index array)"}  # bounds on throughput, not shuffles (paper §2.2)

# Display names of the GPU algorithms, by registry name. The GPU registry has several
# VariablePhilox implementations, so names (not labels) decide which one is the paper's
# VarPhilox column: Bijective2 ("variable_philox"), the fully fused single pass (§4, §6).
GPU_DISPLAY = {
    "gather": "Gather",
    "gather_index_array": "Gather (index array)",
    "variable_philox": "VarPhilox",
    "variable_philox_bijective0": "VarPhilox Bijective0",
    "variable_philox_bijective1": "VarPhilox Bijective1",
    "lcg": "LCG",
    "dart_throwing": "DartThrowing",
    "sort_shuffle": "SortShuffle",
    "thrust_shuffle": "thrust::shuffle_copy",
    "randperm": "randperm+gather",
    "walking": "Walking",
}
COLOURS.update({lab: palette.colour(lab) for lab in (
    "Gather (index array)", "VarPhilox Bijective0", "VarPhilox Bijective1", "thrust::shuffle_copy",
    "randperm+gather", "Walking")})
# The rounds series of the statistics experiments (fig06_chi2_rounds, fig07_09_mmd), by registry
# name: the paper's VariablePhilox shuffle and the walking permutation over the same bijection
# (cycle walking, issue 28), with the name each is drawn and reported under.
ROUNDS_SERIES = [("variable_philox", "VariablePhilox"), ("walking", "Walking")]


class MissingInput(Exception):
    """A results or reference file that a figure or the report needs is absent or malformed."""


def _normalise(name):
    return re.sub(r"[^a-z0-9]", "", (name or "").lower())


def paper_label(algorithm, label=""):
    """The paper's display name for an experiment algorithm (by label, then by name).

    Unknown algorithms keep their label (or name), so nothing is dropped.
    """
    for candidate in (label, algorithm):
        key = _normalise(candidate)
        if key in PAPER_LABELS:
            return PAPER_LABELS[key]
    return label or algorithm


def colour(label, fallback_index=0):
    """Colour for a paper label (figures/palette.py; an unknown label gets a colour of its own,
    the same in every figure). fallback_index is no longer used."""
    return palette.colour(label)


def _convert(column, text):
    if column in TEXT_COLUMNS:
        return text
    if text is None or text.strip() == "":
        return None
    if column in INT_COLUMNS:
        return int(float(text))
    value = float(text)
    return value


def read_rows_text(path):
    """Rows of a CSV as dicts of strings (no conversion), or None when the file is absent.
    For the CSVs whose columns are their program's own (no agreed schema here)."""
    if not os.path.isfile(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number_or_none(text):
    """float(text), or None when text is not a number (empty cell, None, words)."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_csv(path, columns=None):
    """Reads a CSV into a list of dicts with numbers converted (empty cells -> None).

    columns: the expected header (exact order); a different header raises MissingInput.
    Raises MissingInput when the file is absent, has no header or has no data rows.
    """
    if not os.path.isfile(path):
        raise MissingInput("missing file: %s" % path)
    with open(path, newline="") as f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            raise MissingInput("empty file (no header): %s" % path)
        if columns is not None and header != list(columns):
            raise MissingInput("%s: header %s differs from the agreed columns %s"
                               % (path, ",".join(header), ",".join(columns)))
        rows = []
        for lineno, values in enumerate(reader, start=2):
            if not values:
                continue
            if len(values) != len(header):
                raise MissingInput("%s:%d: %d values for %d columns" % (path, lineno, len(values), len(header)))
            try:
                rows.append({c: _convert(c, v) for c, v in zip(header, values)})
            except ValueError as e:
                raise MissingInput("%s:%d: %s" % (path, lineno, e))
    if not rows:
        raise MissingInput("no data rows: %s" % path)
    return rows


def read_meta(path):
    """Reads a <name>.meta.json provenance file (written by experiments/common/harness.cpp)."""
    if not os.path.isfile(path):
        raise MissingInput("missing file: %s" % path)
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError as e:
        raise MissingInput("%s: not valid JSON (%s)" % (path, e))


def load_experiment(results_dir, name, columns=None):
    """(rows, meta) of results_dir/<name>.csv and <name>.meta.json; raises MissingInput."""
    if columns is None:
        columns = SCHEMAS.get(name) or GPU_SCHEMAS.get(name)
    rows = read_csv(os.path.join(results_dir, name + ".csv"), columns)
    meta = read_meta(os.path.join(results_dir, name + ".meta.json"))
    return rows, meta


def find_recorded(recorded_root, name):
    """[(device, directory)] for every results/recorded/<device>/ holding <name>.csv, sorted."""
    found = []
    if recorded_root and os.path.isdir(recorded_root):
        for device in sorted(os.listdir(recorded_root)):
            d = os.path.join(recorded_root, device)
            if os.path.isfile(os.path.join(d, name + ".csv")):
                found.append((device, d))
    return found


def default_recorded_root(results_dir):
    """results_dir/recorded if it exists, else the repository's results/recorded."""
    own = os.path.join(results_dir, "recorded")
    return own if os.path.isdir(own) else os.path.join(REPO_ROOT, "results", "recorded")


def _measured_date(directory, name):
    """The meta.json date of a run (ISO text, sorts by time), else the CSV's modification time."""
    try:
        date = read_meta(os.path.join(directory, name + ".meta.json")).get("date")
        if date:
            return str(date)
    except MissingInput:
        pass
    mtime = os.path.getmtime(os.path.join(directory, name + ".csv"))
    return datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class GpuSource:
    """Where a GPU experiment's results are read from.

    directory: holds <name>.csv and <name>.meta.json; device: the results/recorded/<device>
    slug, or None for a fresh run in the results directory; others: the other recorded
    devices that hold the experiment (named in the report, not drawn).
    """

    def __init__(self, name, directory, device, others=()):
        self.name, self.directory, self.device, self.others = name, directory, device, list(others)

    @property
    def fresh(self):
        return self.device is None

    def describe(self, display=lambda p: p):
        """'this run (DIR)' or 'recorded copy DIR (measured DATE)'."""
        if self.fresh:
            return "this run (`%s`)" % display(self.directory)
        return "recorded copy `%s` (measured %s)" % (display(self.directory),
                                                      _measured_date(self.directory, self.name)[:10])


def gpu_source(results_dir, name, recorded_root):
    """The GPU results to use for experiment `name`: the fresh results_dir/<name>.csv when it
    exists (`make figures` on a machine with a GPU), else the newest (by meta.json date) of
    recorded_root/<device>/<name>.csv, else None."""
    if os.path.isfile(os.path.join(results_dir, name + ".csv")):
        return GpuSource(name, results_dir, None, [d for d, _ in find_recorded(recorded_root, name)])
    found = find_recorded(recorded_root, name)
    if not found:
        return None
    dated = sorted(found, key=lambda dd: (_measured_date(dd[1], name), dd[0]))
    device, directory = dated[-1]
    return GpuSource(name, directory, device, sorted(d for d, _ in dated[:-1]))


def gpu_display_names(rows):
    """{algorithm: display name} for GPU rows: GPU_DISPLAY by registry name, else the row's
    label (else its name); a label that two algorithms share gets the algorithm's name added."""
    names, algorithms = {}, []
    for r in rows:
        if r["algorithm"] not in names:
            algorithms.append(r["algorithm"])
            names[r["algorithm"]] = GPU_DISPLAY.get(r["algorithm"]) or r.get("label") or r["algorithm"]
    taken = {}
    for a in algorithms:
        taken.setdefault(names[a], []).append(a)
    for display, owners in taken.items():
        if len(owners) > 1:
            for a in owners:
                if GPU_DISPLAY.get(a) != display:
                    names[a] = "%s (%s)" % (display, a)
    return names


def gpu_name_of(rows):
    """A name_of function for throughput_series/best_throughput over GPU rows."""
    names = gpu_display_names(rows)
    return lambda r: names[r["algorithm"]]


def machine_label(meta, where=None):
    """One line naming where and how a result was measured, from its meta.json; `where`
    (e.g. "recorded copy results/recorded/h100") is appended when given."""
    parts = []
    device = meta.get("gpu_name") or meta.get("gpu")
    if device:
        extra = [x for x in ("%s SMs" % meta["gpu_sm_count"] if meta.get("gpu_sm_count") else "",
                             "CUDA %s" % meta["cuda_runtime_version"] if meta.get("cuda_runtime_version") else "",
                             "driver %s" % meta["nvidia_driver_version"] if meta.get("nvidia_driver_version") else "")
                 if x]
        parts.append("%s (%s)" % (device, ", ".join(extra)) if extra else str(device))
    cpu = meta.get("cpu_model", "unknown CPU")
    cores = meta.get("cores")
    parts.append("%s, %s cores" % (cpu, cores) if cores is not None else str(cpu))
    if meta.get("date"):
        parts.append(str(meta["date"])[:10])
    if meta.get("scale"):
        parts.append("scale %s" % meta["scale"])
    if meta.get("commit"):
        parts.append("commit %s%s" % (str(meta["commit"])[:10], "+dirty" if meta.get("worktree_dirty") else ""))
    if where:
        parts.append(str(where))
    return "Measured on " + " · ".join(parts)


def load_reference_table(filename):
    """Published throughput table: ({label: {log2_size: M items/s}}, [labels in paper order], rows)."""
    rows = read_csv(os.path.join(REFERENCE_DIR, filename),
                    ["label", "log2_size", "n", "m_items_per_second", "as_printed", "machine", "source"])
    table, order = {}, []
    for r in rows:
        if r["label"] not in table:
            order.append(r["label"])
            table[r["label"]] = {}
        table[r["label"]][r["log2_size"]] = r["m_items_per_second"]
    return table, order, rows


def load_text_facts():
    """Facts stated in the paper's text: {key: row} with row['value'] as float when numeric."""
    rows = read_csv(os.path.join(REFERENCE_DIR, "shuffle_text_facts.csv"),
                    ["key", "value", "unit", "source"])
    facts = {}
    for r in rows:
        r = dict(r)
        try:
            r["number"] = float(r["value"])
        except ValueError:
            r["number"] = None
        facts[r["key"]] = r
    return facts


def throughput_series(rows, name_of=None):
    """Throughput rows grouped into plot series.

    Returns {series_label: {"label": paper label, "threads": t, "points": {log2_size: M items/s}}}.
    An algorithm measured at several thread counts gives one series per count
    ("VarPhilox (1 thr)"); otherwise the series is named by the paper label alone.
    Repeated (algorithm, threads, size) rows are averaged. name_of(row) replaces the paper
    label (GPU rows: gpu_name_of); rows without a threads column count as threads 0. A
    sequential algorithm (SEQUENTIAL: std::shuffle) counts as 1 thread, whatever oneTBB
    concurrency its row records.
    """
    by_alg = {}
    for r in rows:
        lab = name_of(r) if name_of else paper_label(r["algorithm"], r.get("label", ""))
        threads = r.get("threads") or 0
        if threads and lab in SEQUENTIAL:
            threads = 1
        by_alg.setdefault(lab, {}).setdefault(threads, {}).setdefault(r["log2_size"], []).append(
            r["items_per_second"] / 1e6)
    series = {}
    for lab, per_threads in by_alg.items():
        for threads, pts in sorted(per_threads.items()):
            name = lab if len(per_threads) == 1 else "%s (%d thr)" % (lab, threads)
            series[name] = {"label": lab, "threads": threads,
                            "points": {w: sum(v) / len(v) for w, v in pts.items()}}
    return series


def best_throughput(rows, name_of=None):
    """{paper label: {log2_size: (M items/s, threads)}} using the highest thread count per algorithm."""
    out = {}
    for name, s in throughput_series(rows, name_of).items():
        cur = out.get(s["label"])
        if cur is None or s["threads"] > cur[1]:
            out[s["label"]] = (s["points"], s["threads"])
    return {lab: {w: (v, t) for w, v in pts.items()} for lab, (pts, t) in out.items()}


def fmt_num(x, digits=3):
    """Compact number for tables: 3 significant digits, thousands separators for large values."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 10 ** digits:
        return "{:,.0f}".format(x)
    if ax < 1e-3:
        return "{:.{p}e}".format(x, p=digits - 1)
    return "{:.{p}g}".format(x, p=digits)


def gpu_figure_hook(figure, experiment, load, draw, results, out_dir, recorded_root, written, problems):
    """The body of a figure module's plot_all hook (extend): load(results, recorded_root) gives
    (source, rows, meta) or None when the experiment has no results, fresh or recorded;
    draw(rows, meta, out_dir, source) the written paths. Returns (written, problems)
    extended with what was drawn or why not."""
    try:
        loaded = load(results, recorded_root)
    except MissingInput as e:
        return written, problems + ["%s not drawn: %s" % (figure, e)]
    if loaded is None:
        print("plot_all: %s: not drawn, no GPU results for %s" % (figure, experiment))
        return written, problems
    source, rows, meta = loaded
    try:
        return written + draw(rows, meta, out_dir, source), problems
    except MissingInput as e:
        return written, problems + ["%s not drawn: %s" % (figure, e)]


def repo_relative(path):
    """A path inside the repository relative to its root (as the report shows paths); other
    paths as given."""
    full = os.path.abspath(path)
    return os.path.relpath(full, REPO_ROOT) if full.startswith(REPO_ROOT + os.sep) else path


def required_if_loaded(figure, load, results, recorded_root):
    """A figure module's required_figures for scripts/check_outputs.py: [figure] when
    load(results, recorded_root) finds results (fresh or recorded), [] when none exist, and
    [figure] when results exist but cannot be read (the figure is due; its absence is reported)."""
    try:
        return [figure] if load(results, recorded_root) else []
    except MissingInput:
        return [figure]


def load_or_reason(load, results, recorded_root, experiment):
    """(loaded, why) for a report section: loaded = load(results, recorded_root), or None with
    `why` the reason (the MissingInput's text, or that no results exist, fresh or recorded)."""
    try:
        loaded = load(results, recorded_root)
    except MissingInput as e:
        return None, str(e)
    return loaded, "no `%s.csv` fresh or recorded" % experiment

