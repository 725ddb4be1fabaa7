"""The report's "Variability of the GPU timings" section: how far the
timed repetitions of each GPU table spread, how far a second run of the same commit on
the same GPU moved (results/recorded/<device>/run2/), and the headline ratios with the
range their repetitions allow. Everything is computed from the CSVs by
figures/stability.py; nothing is typed here."""

import os

from figures import shuffle_results as sr
from figures import stability as st
from figures import manifest

#: GPU experiments whose timing spread is tabulated, with a few words on what each times: those
#: with a `spread` text in experiments/manifest.toml, in its order.
EXPERIMENTS = tuple((e.name, e.spread) for e in manifest.manifest().select(spread=True))


def _rows(directory, name):
    return sr.read_rows_text(os.path.join(directory, name + ".csv"))


def _pct(x):
    return "%.1f %%" % (100.0 * x)


def spread_table(directories):
    """Rows (experiment, what, rows, median spread, largest spread, where) for every
    experiment of EXPERIMENTS with a CSV in directories[name] (a dict name -> folder)."""
    out = []
    for name, what in EXPERIMENTS:
        directory = directories.get(name)
        rows = _rows(directory, name) if directory else None
        if not rows:
            continue
        s = st.spread_summary(rows)
        out.append(("`%s`" % name, what, str(s["rows"]), _pct(s["median_spread"]), _pct(s["max_spread"]),
                    st.describe_key(st.row_key(s["worst"]))))
    return out


def stability_rows(directories):
    """Rows (experiment, rows matched, median |drift|, largest |drift|, where, share of
    second medians inside the first run's range) for the experiments with a run2/ copy."""
    out = []
    for name, _ in EXPERIMENTS:
        directory = directories.get(name)
        if not directory:
            continue
        for e, summary, unmatched, commits in st.stability_table(directory, experiments=(name,)):
            if summary is None:
                continue
            same = commits[0] == commits[1] and commits[0] is not None
            out.append(("`%s`" % e, "%d%s" % (summary["rows"], " (%d unmatched)" % unmatched if unmatched else ""),
                        _pct(summary["median_abs_drift"]), _pct(summary["max_abs_drift"]),
                        "%s: %+.1f %%" % (st.describe_key(summary["worst"]["key"]),
                                          100.0 * (summary["worst"]["drift"] - 1.0)),
                        "%.0f %%" % (100.0 * summary["inside_share"]),
                        "same commit `%s`" % str(commits[0])[:7] if same else "commits %s / %s" % tuple(
                            str(c)[:7] for c in commits)))
    return out


def bijective2_gather(directory):
    """Rows (size, ratio, range) of VarPhilox Bijective2 (registry `variable_philox`)
    over the random gather (`gather`) per size of Table 1, the range from the extremes
    of their timed repetitions."""
    rows = _rows(directory, "table1_gpu_shuffle") if directory else None
    if not rows:
        return []
    by = {(r["algorithm"], int(r["log2_size"])): r for r in rows}
    out = []
    for w in sorted({int(r["log2_size"]) for r in rows}):
        a, b = by.get(("variable_philox", w)), by.get(("gather", w))
        if a is None or b is None:
            continue
        med, lo, hi = st.rate_ratio(a, b)
        out.append(("2^%d+1" % w, "%.3f" % med, "%.3f – %.3f" % (lo, hi)))
    return out


def section(directories, table=None, second_run_note=""):
    """Markdown blocks of the section; directories: {experiment: folder of its CSV} (the
    fresh results or the recorded copy the report uses). table: the report's table
    function (header, rows, align). Returns [] when no GPU timing table is present."""
    spreads = spread_table(directories)
    if not spreads:
        return []
    blocks = ["## Variability of the GPU timings",
              "Every GPU timing is the median of its timed repetitions (count in each CSV's `reps` column; "
              "the L2 cache flushed before each). *Spread* is (slowest − fastest) ÷ median over those "
              "repetitions, per row; the table gives its median over a table's rows and its largest, with the "
              "row where it occurs.",
              table(("experiment", "what", "rows", "median spread", "largest spread", "largest at"), spreads,
                    "llrrrl")]
    stab = stability_rows(directories)
    if stab:
        blocks += ["**Repeated-run stability.** The same binaries run a second time on a GPU of the "
                   "same kind (`run2/` beside the recorded files; its meta.json notes say which lease%s). *Drift* is the second run's median ÷ the first's − 1, "
                   "per matched row; the last column is the share of rows whose second median falls inside the "
                   "first run's slowest-to-fastest range." % second_run_note,
                   table(("experiment", "rows", "median |drift|", "largest |drift|", "largest at",
                          "inside run 1's range", "commits"), stab, "lrrrlrl")]
    b2 = bijective2_gather(directories.get("table1_gpu_shuffle"))
    if b2:
        blocks += ["**Bijective2 ÷ random gather (Table 1), with the range of the repetitions** (low: "
                   "Bijective2's slowest run against the gather's fastest; high: the reverse):",
                   table(("n", "ratio of medians", "range"), b2, "lrr")]
    return blocks


def cpu_ranking(rows):
    """Rows (size, ranking) of CPU Table 2 (rows as read by shuffle_results: numbers
    converted): at each size the algorithms from fastest to slowest by mean time per
    iteration, with "≈" between neighbours whose per-repetition [seconds_min,
    seconds_max] ranges overlap (their order is not decided by the repetitions) and ">"
    elsewhere. Rows without seconds_min/seconds_max (older CSVs) give []."""
    usable = [r for r in rows if r.get("seconds_min") is not None and r.get("seconds_max") is not None]
    if not usable:
        return []
    out = []
    for w in sorted({int(r["log2_size"]) for r in usable}):
        at = sorted((r for r in usable if int(r["log2_size"]) == w), key=lambda r: float(r["seconds_per_iteration"]))
        text = str(at[0]["label"])
        for a, b in zip(at, at[1:]):
            tied = float(a["seconds_min"]) <= float(b["seconds_max"]) and float(b["seconds_min"]) <= float(a["seconds_max"])
            text += (" ≈ " if tied else " > ") + str(b["label"])
        out.append(("2^%d+1" % w, text))
    return out


def cpu_spread(rows):
    """(repetitions, median CV, largest CV and where) over CPU Table 2's rows, or None when
    the CSV has no cv column (older runs)."""
    usable = [r for r in rows if r.get("cv") is not None]
    if not usable:
        return None
    cvs = sorted(float(r["cv"]) for r in usable)
    worst = max(usable, key=lambda r: float(r["cv"]))
    mid = len(cvs) // 2
    median = cvs[mid] if len(cvs) % 2 else 0.5 * (cvs[mid - 1] + cvs[mid])
    reps = sorted({int(r["repetitions"]) for r in usable if r.get("repetitions") is not None})
    return {"repetitions": reps, "median_cv": median, "max_cv": float(worst["cv"]),
            "worst": "%s at 2^%d+1" % (worst["label"], int(worst["log2_size"]))}


def cpu_section(rows, table):
    """Markdown blocks on the CPU Table 2's variability: CV over the repetitions and the
    ranking per size with undecided neighbours marked. [] for an older CSV."""
    spread = cpu_spread(rows)
    ranking = cpu_ranking(rows)
    if spread is None or not ranking:
        return []
    return ["**Variability of CPU Table 2.** Each cell is timed in %s repetitions (Google Benchmark, real "
            "time); the coefficient of variation of a cell's per-repetition times has median %s and reaches %s "
            "(%s). Ranking per size, fastest first; “≈” joins neighbours whose slowest-to-fastest ranges "
            "overlap, so that their order (and any rank statistic such as Kendall's τ over it) is not decided "
            "by this run:" % ("/".join(str(x) for x in spread["repetitions"]), _pct(spread["median_cv"]),
                              _pct(spread["max_cv"]), spread["worst"]),
            table(("n", "ranking"), ranking, "ll")]


# --------------------------------------------------------------------------- χ² / MMD over several seeds

#: Where `make figures` puts the seed replicates of the χ² and MMD programs (replicate k in
#: RESULTS/seeds/<k>/, base seed 1 + k * 2^40; replicate 0 is RESULTS itself).
SEEDS_FOLDER = "seeds"
#: The configurations that should pass (the null hypothesis holds): VariablePhilox with at
#: least this many rounds (the library's default, the paper's recommendation, §5) and
#: std::shuffle.
NULL_MIN_ROUNDS = 24


def binomial_upper(m, p, level=0.975):
    """Smallest k with P(X <= k) >= level for X ~ Binomial(m, p): the upper end of the
    central 95 % range of the number of chance failures among m tests at level p.
    Raises ValueError for m < 0 or p outside [0, 1]."""
    if m < 0 or not 0.0 <= p <= 1.0:
        raise ValueError("binomial_upper: m >= 0 and p in [0, 1] required, got %r, %r" % (m, p))
    import math
    total = 0.0
    for k in range(m + 1):
        total += math.comb(m, k) * p ** k * (1.0 - p) ** (m - k)
        if total >= level:
            return k
    return m


def replicate_dirs(results_dir):
    """[results_dir] plus results_dir/seeds/<k>/ for every k present, in order of k."""
    out = [results_dir]
    seeds = os.path.join(results_dir, SEEDS_FOLDER)
    if os.path.isdir(seeds):
        out += [os.path.join(seeds, d) for d in sorted(os.listdir(seeds), key=lambda d: (len(d), d))
                if os.path.isdir(os.path.join(seeds, d))]
    return out


def _is_null(row):
    alg = row["algorithm"]
    if alg == "std_shuffle":
        return True
    return alg == "variable_philox" and row.get("rounds") not in (None, "") and int(row["rounds"]) >= NULL_MIN_ROUNDS


def chance_failures(replicates, tests):
    """Counts over seed replicates (a list of row lists, one per seed) of the tests that
    should pass. tests: [(name, passes_column)]. Returns one dict per test: name,
    replicates, tests (rows of the null set over all replicates), failures, alpha (the
    rows' alpha), expected (alpha x tests), upper (binomial_upper of tests, alpha),
    verdict ("consistent with chance" when failures <= upper, else "more failures than
    chance")."""
    out = []
    for name, column in tests:
        rows = [r for rep in replicates for r in rep if _is_null(r)]
        if not rows:
            continue
        alpha = float(rows[0]["alpha"])
        m = len(rows)
        failures = sum(1 for r in rows if str(r[column]).strip() not in ("1", "true", "True"))
        upper = binomial_upper(m, alpha)
        out.append({"name": name, "replicates": len(replicates), "tests": m, "failures": failures, "alpha": alpha,
                    "expected": alpha * m, "upper": upper,
                    "verdict": "consistent with chance" if failures <= upper else "more failures than chance"})
    return out


def first_passing_rounds(rows, column="passes", algorithm="variable_philox"):
    """The smallest round count of a rounds series (VariablePhilox by default; "walking": the
    walking permutation) from which every larger count measured passes (column), or None."""
    by_round = sorted((int(r["rounds"]), str(r[column]).strip() in ("1", "true", "True"))
                      for r in rows if r["algorithm"] == algorithm and r.get("rounds") not in (None, ""))
    first = None
    for k, ok in by_round:
        if ok and first is None:
            first = k
        elif not ok:
            first = None
    return first


def seeds_section(results_dir, table):
    """Markdown blocks on the χ² (Fig. 6) and MMD (Figs. 7-9) tests over every seed
    replicate found (replicate_dirs); [] when only one seed ran."""
    blocks = []
    dirs = replicate_dirs(results_dir)
    chi = [rows for rows in (_rows(d, "fig06_chi2_rounds") for d in dirs) if rows]
    mmd = [rows for rows in (_rows(d, "fig07_09_mmd") for d in dirs) if rows]
    if max(len(chi), len(mmd)) < 2:
        return []
    rows = []
    for c in chance_failures(chi, [("χ² (Fig. 6, n = 5)", "passes")]):
        rows.append(c)
    for form in ("one_sample", "pairwise"):
        for thr in ("hoeffding", "normal"):
            sub = [[r for r in rep if r["form"] == form] for rep in mmd]
            rows += chance_failures(sub, [("MMD %s, %s threshold (Figs. 7–9)" % (form.replace("_", "-"), thr),
                                           "passes_" + thr)])
    firsts = ", ".join(str(first_passing_rounds(rep)) for rep in chi)
    samples = sorted({int(r["samples"]) for rep in chi[1:] for r in rep}) if len(chi) > 1 else []
    mmd_samples = sorted({int(r["samples"]) for rep in mmd[1:] for r in rep}) if len(mmd) > 1 else []
    blocks.append("## χ² and MMD over several seeds")
    blocks.append(
        "The χ² and MMD programs ran with %d seeds (%d for the MMD): the figures' run, plus replicates "
        "with base seeds 1 + k·2^40 in `%s/<k>/` (χ² samples per configuration there: %s; MMD: %s). Under the "
        "null hypothesis (VariablePhilox with ≥ %d rounds, std::shuffle) each test fails with probability "
        "α, so about α·M of M such tests fail by chance; the binomial distribution gives the 95 %% range "
        "of that count." % (len(chi), len(mmd), SEEDS_FOLDER, ", ".join(map(str, samples)) or "—",
                            ", ".join(map(str, mmd_samples)) or "—", NULL_MIN_ROUNDS))
    blocks.append(table(("test", "seeds", "tests M under the null", "failed", "expected α·M", "95 % range",
                         "verdict"),
                        [(c["name"], str(c["replicates"]), str(c["tests"]), str(c["failures"]),
                          "%.2f" % c["expected"], "0–%d" % c["upper"], c["verdict"]) for c in rows], "lrrrrrl"))
    blocks.append("First VariablePhilox round count from which χ² passes at every larger count, seed by seed: "
                  "%s (the figures' seed first)." % firsts)
    if any(r["algorithm"] == "walking" for rep in chi for r in rep):
        blocks.append("The same for the walking permutation (cycle walking over the same bijection, issue 28), "
                      "seed by seed: %s." % ", ".join(str(first_passing_rounds(rep, algorithm="walking"))
                                                      for rep in chi))
    return blocks
