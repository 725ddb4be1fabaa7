"""The Python package on the CPU against NumPy (experiment cpu_peers, issue 32 §6, "CPU speed
against what NumPy users have"): its report section (family "python_cpu" of
experiments/manifest.toml).

Reads cpu_peers.csv (written by experiments/cpu_peers.py; columns algorithm, case, dtype, n,
seconds_median, seconds_min, seconds_max, items_per_second, repeats, note) and its meta.json
from a run's results directory or, where absent, the newest recorded copy
(results/recorded/<machine>/, shuffle_results.gpu_source). Per case, dtype and n it states
ours (`onepass`) against the fastest NumPy call timed beside it, as a speed-up: NumPy's median
seconds ÷ ours (above 1: ours is faster). The issue's targets, at n = 10^8 on 2 cores:

  sort     uint32, uint64, float32, float64: onepass.sort >= 1.5x np.sort (default kind)
  argsort  the same dtypes: onepass.argsort >= 1.5x np.sort of the same keys (the sort case's
           numpy_sort row; the ratio to np.argsort is shown beside it)
  normal   float64, float32: onepass.normal >= 1.5x rng.standard_normal

The shuffle has no target; its ratio is to the faster of rng.permutation and rng.shuffle. A
verdict is "met" or "not met" when ours and the reference were both measured at n = 10^8,
"undecided" (naming what is missing) when one was not; other n have no target. The targets are
stated for 2 cores: a run on another number of cores says so beside its verdicts. Standard
library only.
"""

import os

from figures import shuffle_results as sr
from paper import provenance as pv

EXPERIMENT = "cpu_peers"
OURS = "onepass"
CASES = ["sort", "argsort", "normal", "shuffle"]
# The NumPy calls experiments/cpu_peers.py times in each case.
PEERS = {"sort": ["numpy_sort"], "argsort": ["numpy_argsort"], "normal": ["numpy_standard_normal"],
         "shuffle": ["numpy_permutation", "numpy_shuffle"]}
CALLS = {  # what each row's NumPy user writes
    OURS: "onepass",
    "numpy_sort": "np.sort(x)",
    "numpy_argsort": "np.argsort(x)",
    "numpy_standard_normal": "rng.standard_normal(n, dtype=)",
    "numpy_permutation": "rng.permutation(x)",
    "numpy_shuffle": "rng.shuffle(x)",
}
TARGET_ITEMS = 10 ** 8
TARGET_CORES = 2
SORT_DTYPES = ("uint32", "uint64", "float32", "float64")
# (case, dtype) -> (speed-up, (reference case, reference algorithm)) at TARGET_ITEMS.
TARGETS = {}
for _dtype in SORT_DTYPES:
    TARGETS[("sort", _dtype)] = (1.5, ("sort", "numpy_sort"))
    TARGETS[("argsort", _dtype)] = (1.5, ("sort", "numpy_sort"))
for _dtype in ("float64", "float32"):
    TARGETS[("normal", _dtype)] = (1.5, ("normal", "numpy_standard_normal"))
SUMMARY_ITEM = "Python package on the CPU vs NumPy (issue 32 targets)"


def load(results, recorded_root):
    """(source, rows, meta) of the newest cpu_peers run (fresh, else recorded), or None.
    Raises sr.MissingInput for a CSV without data rows or a missing/malformed meta.json."""
    source = sr.gpu_source(results, EXPERIMENT, recorded_root)
    if source is None:
        return None
    path = os.path.join(source.directory, EXPERIMENT + ".csv")
    rows = sr.read_rows_text(path)
    if not rows:
        raise sr.MissingInput("no data rows: %s" % path)
    meta = sr.read_meta(os.path.join(source.directory, EXPERIMENT + ".meta.json"))
    return source, rows, meta


def _seconds(row):
    """A row's median seconds (else n ÷ items_per_second), or None."""
    s = sr.number_or_none(row.get("seconds_median"))
    if s is not None and s > 0:
        return s
    rate, n = sr.number_or_none(row.get("items_per_second")), sr.number_or_none(row.get("n"))
    return n / rate if rate and n else None


def points(rows):
    """One dict per measured (case, dtype, n), in CASES then SORT_DTYPES order: case, dtype, n,
    seconds {algorithm: median s}, notes, ours (s), peers (NumPy algorithms measured, fastest
    first), fastest_name, fastest (s), vs_fastest (fastest ÷ ours), target (speed-up or None),
    reference_name, reference (s), vs_reference, missing, verdict ("met", "not met", "undecided",
    or None without a target)."""
    by = {}
    for r in rows:
        n, s = sr.number_or_none(r.get("n")), _seconds(r)
        if n is None or s is None or not r.get("case") or not r.get("algorithm"):
            continue
        p = by.setdefault((r["case"], r.get("dtype", ""), int(n)),
                          {"case": r["case"], "dtype": r.get("dtype", ""), "n": int(n), "seconds": {}, "notes": {}})
        p["seconds"][r["algorithm"]] = s
        if (r.get("note") or "").strip():
            p["notes"][r["algorithm"]] = r["note"].strip()
    case_order = {c: i for i, c in enumerate(CASES)}
    dtype_order = {d: i for i, d in enumerate(SORT_DTYPES + ("int64",))}
    dtype_order_of = {"normal": {"float64": 0, "float32": 1}}  # the program's order
    out = []
    for key in sorted(by, key=lambda k: (case_order.get(k[0], len(CASES)), k[0],
                                         dtype_order_of.get(k[0], dtype_order).get(k[1], len(dtype_order)),
                                         k[1], k[2])):
        p = by[key]
        ours = p["seconds"].get(OURS)
        peers = sorted((a for a in p["seconds"] if a != OURS), key=lambda a: p["seconds"][a])
        p["ours"], p["peers"] = ours, peers
        p["fastest_name"] = peers[0] if peers else None
        p["fastest"] = p["seconds"][peers[0]] if peers else None
        p["vs_fastest"] = p["fastest"] / ours if ours and p["fastest"] else None
        target = TARGETS.get((p["case"], p["dtype"])) if p["n"] == TARGET_ITEMS else None
        p["target"] = target[0] if target else None
        p["reference_name"] = target[1][1] if target else None
        p["reference"] = by.get((target[1][0], p["dtype"], p["n"]), {}).get("seconds", {}).get(target[1][1]) \
            if target else None
        p["vs_reference"] = p["reference"] / ours if ours and p["reference"] else None
        p["missing"] = ([] if ours else [OURS]) + ([p["reference_name"]] if target and not p["reference"] else [])
        if target is None:
            p["verdict"] = None
        elif p["missing"]:
            p["verdict"] = "undecided"
        else:
            p["verdict"] = "met" if p["vs_reference"] >= p["target"] else "not met"
        out.append(p)
    return out


def n_text(n):
    """10^8, 10^6, 2^20, else the digits."""
    for base, sign in ((10, "10^%d"), (2, "2^%d")):
        k = 1
        while base ** k < n:
            k += 1
        if base ** k == n:
            return sign % k
    return str(n)


def verdict_text(p):
    if p["verdict"] is None:
        return "no target" + ("" if p["n"] == TARGET_ITEMS else " (n ≠ 10^8)")
    if p["verdict"] == "undecided":
        return "undecided (not measured: %s)" % ", ".join("`%s`" % m for m in p["missing"])
    return "met" if p["verdict"] == "met" else "**not met**"


def target_text(p):
    """'≥ 1.5× `np.sort(x)` (1.33 s): 0.35×' or '—'."""
    if p["target"] is None:
        return "—"
    reference = "%.3g s" % p["reference"] if p["reference"] else "not measured"
    got = ": %.2f×" % p["vs_reference"] if p["vs_reference"] else ""
    return "≥ %.1f× `%s` (%s)%s" % (p["target"], CALLS.get(p["reference_name"], p["reference_name"]), reference, got)


def table(pts):
    """The Markdown table of every point: case, dtype, n, ours, NumPy, speed-up, target, verdict."""
    header = ["case", "dtype", "n", "onepass (s)", "NumPy (s)", "speed-up: fastest NumPy ÷ ours", "target at 10^8",
              "verdict"]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for p in pts:
        numpy_cells = "; ".join("`%s` %.3g" % (CALLS.get(a, a), p["seconds"][a]) for a in p["peers"]) or "—"
        cells = [p["case"], p["dtype"], n_text(p["n"]), "%.3g" % p["ours"] if p["ours"] else "—", numpy_cells,
                 "%.2f× (`%s`)" % (p["vs_fastest"], CALLS.get(p["fastest_name"], p["fastest_name"]))
                 if p["vs_fastest"] else "—",
                 target_text(p), verdict_text(p)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def verdict_summary(pts):
    """'k of m met[, u undecided]' over the points with a target, or None when none has one."""
    decided = [p for p in pts if p["target"] is not None]
    if not decided:
        return None
    met = sum(p["verdict"] == "met" for p in decided)
    undecided = sum(p["verdict"] == "undecided" for p in decided)
    return "%d of %d met" % (met, len(decided)) + (", %d undecided" % undecided if undecided else "")


def report_section(report, results, recorded_root):
    """Adds the section to a make_report.Report (add, summary)."""
    report.add("## Python package on the CPU: onepass against NumPy (`%s`)" % EXPERIMENT)
    loaded, why = sr.load_or_reason(load, results, recorded_root, EXPERIMENT)
    if loaded is None:
        report.add("**Not measured yet:** %s. `PYTHONPATH=build/python-ext/python python3 experiments/cpu_peers.py "
                   "--out-dir DIR` (after `make test-python-pkg`) times `onepass.sort`, `argsort`, `normal` and "
                   "`shuffle` on NumPy arrays against `np.sort`, `np.argsort`, `rng.standard_normal`, "
                   "`rng.permutation` and `rng.shuffle` at n = 10^8 (issue 32 §6)." % why)
        report.summary.append((SUMMARY_ITEM, "not measured yet", why))
        return
    source, rows, meta = loaded
    pts = points(rows)
    where = source.describe(sr.repo_relative) if hasattr(source, "describe") else "given rows"
    versions = meta.get("versions") or {}
    cores = meta.get("cores_used") or meta.get("cores")
    simd = (meta.get("numpy_simd") or {}).get("dispatched_on_this_cpu")
    report.add("Measured on **%s** (%s core%s used), %s — %s. Versions: %s. NumPy's SIMD dispatch on this CPU: %s. "
               "Timing: %s; median of %s timed calls after %s warm-up call%s. Threads: %s. %s %s"
               % (meta.get("cpu_model", "an unnamed CPU"), cores if cores else "?", "" if cores == 1 else "s",
                  str(meta.get("date", "?"))[:10], where,
                  ", ".join("%s %s" % (k, versions[k]) for k in versions) or "not recorded",
                  ", ".join(simd) if simd else "not recorded", meta.get("timing", "not recorded"),
                  meta.get("repeats", "?"), meta.get("warmup", "?"), "" if str(meta.get("warmup")) == "1" else "s",
                  meta.get("threads", "not recorded"),
                  pv.freshness_text(EXPERIMENT, meta), pv.cpu_load_text({EXPERIMENT: meta})))
    if cores and int(cores) != TARGET_CORES:
        report.add("The targets are stated for %d cores; this run used %s: its verdicts are for that machine."
                   % (TARGET_CORES, cores))
    if meta.get("skipped"):
        report.add("Skipped by the program: %s." % "; ".join(str(s) for s in meta["skipped"]))
    report.add("Speed-up = NumPy's median seconds ÷ ours (above 1×: ours is faster); argsort's target is against "
               "`np.sort` of the same keys, as the issue states it.", table(pts))
    notes = sorted({"`%s` %s %s: %s" % (a, p["case"], p["dtype"], t) for p in pts for a, t in p["notes"].items()})
    if notes:
        report.add("Notes from the program: " + "; ".join(notes) + ".")
    decided = [p for p in pts if p["target"] is not None]
    verdict = verdict_summary(pts)
    if verdict is None:
        verdict = "no target measured (n = 10^8 only)"
        report.add("**Verdict: %s** (the run's n: %s)." % (verdict, ", ".join(sorted({n_text(p["n"]) for p in pts}))))
        report.summary.append((SUMMARY_ITEM, verdict, "sizes measured: %s" % ", ".join(
            sorted({n_text(p["n"]) for p in pts}))))
        return
    lines = ["- %s %s: ours ÷ `%s` %s (target ≥ %.1f×): %s"
             % (p["case"], p["dtype"], CALLS.get(p["reference_name"], p["reference_name"]),
                "%.2f×" % p["vs_reference"] if p["vs_reference"] else "—", p["target"], verdict_text(p))
             for p in decided]
    report.add("Targets (issue 32 §6, n = 10^8, 2 cores):", "\n".join(lines), "**Verdict: %s.**" % verdict)
    report.summary.append((SUMMARY_ITEM, verdict, "; ".join(l[2:].replace("**", "") for l in lines)))
