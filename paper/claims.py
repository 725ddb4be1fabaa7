#!/usr/bin/env python3
"""Claims of the five seed documents, each checked against our results by a rule in code.

One claims table per seed document (the bijective-shuffle paper, its summary
card, the Onesweep paper, the warp Gaussian article, the VREN radix-sort article). Every claim
names where the seed states it, a paraphrase of it, the seed's number (typed, with its source,
in figures/reference/claims_<seed>.csv), our number computed from the result files, the ratio
where both are numbers, and a verdict from a closed vocabulary (VERDICTS) decided by a rule:

    reproduced                            our number meets the claim (within the rule's tolerance)
    reproduced in shape                   the relation the claim rests on holds (ordering, sign,
                                          trend), its magnitude does not, or only in relative terms,
                                          or it holds at the median but not over every repetition
                                          or seed replicate
    by construction                       the check only recomputes a formula or reads back our own
                                          labels: it agrees, but measures nothing, so it cannot
                                          fail by the code's behaviour
    differs — because …                   the claim does not hold on our data; the reason says why
    not reproducible here — because …     no data: a result file was not produced, the hardware or
                                          the tool the claim needs is absent (named from the data)

Rules are pure functions rule_*(numbers...) -> (verdict, reason); the reasons are built from
the numbers and the metadata they are given, never typed as fixed verdicts. A claim whose input
file is absent comes out as "not reproducible here — because <file> was not produced".
"reproduced" of a timed claim holds over the range of the timed repetitions (the CSVs'
seconds_min / seconds_max), and of a statistical claim over every seed replicate that `make
figures` ran (RESULTS/seeds/<k>/), not at the median alone.
Internal engineering targets (the issues' performance bars) are not claims and are not here.

Used by paper/make_report.py (section "Claims, seed by seed" and the summary at the top);
tested by tests/python/test_claims.py.
"""

import collections
import math
import os
import re

from figures import shuffle_results as sr  # gpu_source, paper_label, reference tables
from figures import sort_results as so  # the hybrid sort's statements (HRS row)
from figures import manifest  # experiments/manifest.toml
from paper import variability  # replicate_dirs: the seed replicates of the χ² and MMD programs

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

REFERENCE_DIR = os.path.join(REPO, "figures", "reference")

REPRODUCED = "reproduced"
IN_SHAPE = "reproduced in shape"
BY_CONSTRUCTION = "by construction"
DIFFERS = "differs"
NOT_HERE = "not reproducible here"
VERDICTS = (REPRODUCED, IN_SHAPE, BY_CONSTRUCTION, DIFFERS, NOT_HERE)
NEEDS_REASON = (DIFFERS, NOT_HERE)

SEEDS = collections.OrderedDict([
    ("shuffle_paper", "Bandwidth-Optimal Random Shuffling for GPUs (Mitchell et al., arXiv:2106.06161)"),
    ("shuffle_summary", "Summary card “Bijective Shuffle — Bandwidth-Optimal GPU Permutation”"),
    ("onesweep", "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs (Adinets & Merrill, arXiv:2206.01784)"),
    ("gaussian", "Training a random Gaussian generator (A. P. Goucher, cp4space, 2022)"),
    ("vren", "VREN's GPU radix sort (article “GPU radix-sort”)"),
])

# Experiments read by the claims: CPU ones from the results directory; GPU ones fresh from the
# results directory, else the newest recorded copy (shuffle_results.gpu_source).
# Those with `claims = true` in experiments/manifest.toml, in its order.
CPU_FILES = manifest.manifest().names(device="cpu", claims=True)
GPU_FILES = manifest.manifest().names(device="gpu", claims=True)
LOG_FILES = ["gaussian-statistics-optimised-table.log"]
# CPU experiments that `make figures` runs again with further base seeds (RESULTS/seeds/<k>/).
SEED_REPLICATED = ["fig06_chi2_rounds", "fig07_09_mmd"]

# Readings of words the seeds use without a number (ours, stated in the report's reasons):
FUSION_EQUIVALENT = 0.90   # "equivalent in performance" (shuffle paper, Fig. 10): within 10 %
SATURATING_LOG2 = 26       # "saturating problem sizes" (Onesweep §4): n >= 2^26, as figures/sort_results.py
MMD_POWER_FRACTION = 0.5   # an MMD test "can fail" at a sample count when it still rejects VariablePhilox
                           # at >= this fraction of the claimed round count (else passing there is untested)
VREN_WORKS_WELL = 0.5      # "works well on large buffers" (VREN): >= half CUB (best)'s keys/s at n >= 2^26
FAILURE_POLY_MIN_DEGREE = 16  # the Gaussian article's "outputs to fail a moment test" (1.6e30) is its loss's quantity,
                              # the worst polynomial test of degree <= 2n over the first n even Hermites (n not stated):
                              # read as the worst polynomial test of every degree computed, at least 16 (on the article's
                              # own table, cpads, degree 16 gives 1.62e30 and 18-24 1.54e30; its moment tests of orders
                              # <= 8 last 2.4e36, so the number is not those)


# --------------------------------------------------------------------------- verdicts

def verdict_text(verdict, reason=""):
    """The verdict as the report prints it: 'differs — because …', 'reproduced (…)'."""
    if verdict not in VERDICTS:
        raise ValueError("verdict %r is not one of %s" % (verdict, ", ".join(VERDICTS)))
    if verdict in NEEDS_REASON:
        return "%s — because %s" % (verdict, reason or "(no reason given)")
    return "%s (%s)" % (verdict, reason) if reason else verdict


def _v(verdict, reason):
    if verdict not in VERDICTS:
        raise ValueError("verdict %r is not one of %s" % (verdict, ", ".join(VERDICTS)))
    return verdict, reason


def fmt(x, digits=3):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1e6 or a < 1e-3:
        return "%.*g" % (digits, x)
    if a >= 100:
        return "{:,.0f}".format(x)
    return "%.*g" % (digits, x)


def fx(x):
    """A ratio as '3.16×'."""
    return "—" if x is None else "%.3g×" % x


# --------------------------------------------------------------------------- rules (pure)

def rule_missing(filename):
    """A claim whose input file is absent."""
    return _v(NOT_HERE, "%s was not produced" % filename)


def rule_close(ours, paper, rel_tol, what="ours"):
    """Reproduced when |ours / paper - 1| <= rel_tol; else differs, naming the ratio."""
    r = ours / paper
    if abs(r - 1) <= rel_tol:
        return _v(REPRODUCED, "%s is %s the paper's, within ±%g %%" % (what, fx(r), rel_tol * 100))
    return _v(DIFFERS, "%s is %s the paper's (%s vs %s), outside ±%g %%" % (what, fx(r), fmt(ours), fmt(paper),
                                                                         rel_tol * 100))


def rule_within_factor(ours, paper, factor, what="ours"):
    """Reproduced when ours / paper is within [1/factor, factor]; differs otherwise."""
    r = ours / paper
    if 1.0 / factor <= r <= factor:
        return _v(REPRODUCED, "%s is %s the paper's, within a factor %g" % (what, fx(r), factor))
    return _v(DIFFERS, "%s is %s the paper's (%s vs %s), beyond a factor %g" % (what, fx(r), fmt(ours), fmt(paper),
                                                                             factor))


def rule_at_least(ours, minimum, what, why_short="", unit="", tol=0.0):
    """A claim 'at least `minimum`' (tol: the fraction of it forgiven for a rounded claim):
    reproduced when ours >= minimum x (1 - tol), else differs."""
    floor = minimum * (1 - tol)
    allowance = " (%s%s allowing %g %% for rounding)" % (fmt(floor), unit, tol * 100) if tol else ""
    if ours >= floor:
        return _v(REPRODUCED, "%s %s%s ≥ %s%s%s" % (what, fmt(ours), unit, fmt(minimum), unit, allowance))
    return _v(DIFFERS, "%s is %s%s, below the claimed %s%s%s%s" % (what, fmt(ours), unit, fmt(minimum), unit, allowance,
                                                                   ("; " + why_short) if why_short else ""))


def rule_range(ours_lo, ours_hi, lo, hi, what, why_short="", unit=""):
    """A claim 'between lo and hi': reproduced when [ours_lo, ours_hi] lies inside, else differs."""
    span = fmt(ours_lo) + unit if ours_lo == ours_hi else "%s%s–%s%s" % (fmt(ours_lo), unit, fmt(ours_hi), unit)
    if lo <= ours_lo and ours_hi <= hi:
        return _v(REPRODUCED, "%s %s lies in %s–%s%s" % (what, span, fmt(lo), fmt(hi), unit))
    side = "below" if ours_hi < lo else ("above" if ours_lo > hi else "partly outside")
    return _v(DIFFERS, "%s is %s, %s the claimed %s–%s%s%s" % (what, span, side, fmt(lo), fmt(hi), unit,
                                                               ("; " + why_short) if why_short else ""))


def rule_by_construction(agrees, what, detail=""):
    """A check that only recomputes a formula or reads back our own label strings: 'by
    construction' when it agrees (it measures nothing, so it could only fail by a typing or
    labelling slip), 'differs' when it does not."""
    if agrees:
        return _v(BY_CONSTRUCTION, "%s%s" % (what, ("; " + detail) if detail else ""))
    return _v(DIFFERS, "%s%s" % (what, ("; " + detail) if detail else ""))


def rule_over_range(lo, median, hi, floor, what, unit="×"):
    """A claim 'ours >= floor' on a timed ratio with the range its timed repetitions allow
    (lo: the least favourable pairing, hi: the most): reproduced when even lo >= floor;
    reproduced in shape when the median does but lo does not (the repetitions do not decide
    it); differs when the median is below. Raises ValueError when lo <= median <= hi fails."""
    if not lo <= median <= hi:
        raise ValueError("rule_over_range: need lo <= median <= hi, got %r, %r, %r" % (lo, median, hi))
    span = "%.4g%s (repetitions %.4g–%.4g%s)" % (median, unit, lo, hi, unit)
    if lo >= floor:
        return _v(REPRODUCED, "%s %s ≥ %g%s over every repetition" % (what, span, floor, unit))
    if median >= floor:
        return _v(IN_SHAPE, "%s %s: the median reaches %g%s but the least favourable repetition does not, so "
                            "the repetitions do not decide it" % (what, span, floor, unit))
    return _v(DIFFERS, "%s is %s, below %g%s" % (what, span, floor, unit))


def rule_other_machine(our_machine, paper_machine, what):
    """An absolute number measured on hardware we do not have."""
    return _v(NOT_HERE, "%s was measured on a %s; ours ran on %s, so only relative numbers compare"
              % (what, paper_machine, our_machine or "another machine"))


def rule_all_points(bad, total, worst_text, what):
    """A claim 'at every point': reproduced when no point fails, else differs naming the count and worst."""
    if total == 0:
        return _v(NOT_HERE, "no point of %s was measured" % what)
    if bad == 0:
        return _v(REPRODUCED, "all %d points of %s" % (total, what))
    return _v(DIFFERS, "%d of %d points of %s fail (worst %s)" % (bad, total, what, worst_text))


def rule_ratio_shape(ours, paper, rel_tol, holds, relation):
    """A relative number (a ratio of two of our measurements vs the same ratio in the paper):
    reproduced within rel_tol; in shape when the relation it rests on still holds; else differs."""
    r = ours / paper
    if abs(r - 1) <= rel_tol:
        return _v(REPRODUCED, "ours %s vs the paper's %s, within ±%g %%" % (fmt(ours), fmt(paper), rel_tol * 100))
    if holds:
        return _v(IN_SHAPE, "%s holds; ours %s vs the paper's %s" % (relation, fmt(ours), fmt(paper)))
    return _v(DIFFERS, "%s does not hold: ours %s vs the paper's %s" % (relation, fmt(ours), fmt(paper)))


def rule_ranking(tau, n_items, ours_order, paper_order):
    """A ranking of algorithms: identical -> reproduced; Kendall tau >= 0.6 -> in shape; else differs."""
    if n_items < 2:
        return _v(NOT_HERE, "fewer than two of the paper's algorithms were measured")
    if ours_order == paper_order:
        return _v(REPRODUCED, "same order of all %d algorithms" % n_items)
    text = "ours %s, paper %s (Kendall τ = %.2f)" % (" > ".join(ours_order), " > ".join(paper_order), tau)
    if tau >= 0.6:
        return _v(IN_SHAPE, text)
    return _v(DIFFERS, "the order differs: " + text)


def rule_equal(ours, paper, what):
    """Exact agreement of lists/values (counts, pass numbers, labels)."""
    if ours == paper:
        return _v(REPRODUCED, "%s equal" % what)
    return _v(DIFFERS, "%s differ: ours %s, paper %s" % (what, ours, paper))


def rule_chance_failures(failed, total, alpha, what):
    """Tests at level alpha: reproduced when the failures are as many as chance allows
    (P(X >= failed) >= 0.01 for X ~ Binomial(total, alpha)); else differs."""
    if total == 0:
        return _v(NOT_HERE, "no %s was run" % what)
    expected = total * alpha
    p = binomial_tail(failed, total, alpha)
    if failed == 0 or p >= 0.01:
        return _v(REPRODUCED, "%d of %d %s fail at α = %g, %.2g expected by chance" % (failed, total, what, alpha,
                                                                                   expected))
    return _v(DIFFERS, "%d of %d %s fail at α = %g where %.2g are expected by chance (P = %.2g)"
              % (failed, total, what, alpha, expected, p))


def binomial_tail(k, m, p):
    """P(X >= k) for X ~ Binomial(m, p)."""
    return sum(math.comb(m, i) * p ** i * (1 - p) ** (m - i) for i in range(k, m + 1))


def kendall_tau(order_a, order_b):
    """Kendall's tau between two orders of the same items."""
    common = [x for x in order_a if x in order_b]
    pos_b = {x: i for i, x in enumerate(order_b)}
    n = len(common)
    if n < 2:
        return 1.0
    s = 0
    for i in range(n):
        for j in range(i + 1, n):
            s += 1 if pos_b[common[i]] < pos_b[common[j]] else -1
    return s / (n * (n - 1) / 2)


def lsd_pass(values, radix, place):
    """One stable counting-sort pass on digit `place` (0 = least significant) in base `radix`:
    (counts, exclusive offsets, reordered values) — the article's sequential example."""
    digit = [(v // radix ** place) % radix for v in values]
    counts = [digit.count(s) for s in range(radix)]
    offsets, run = [], 0
    for c in counts:
        offsets.append(run)
        run += c
    out, nxt = [None] * len(values), list(offsets)
    for v, d in zip(values, digit):
        out[nxt[d]] = v
        nxt[d] += 1
    return counts, offsets, out


# --------------------------------------------------------------------------- data

class Missing(Exception):
    """An input of a claim is absent; `what` names it (a file, or a field of a file)."""

    def __init__(self, what, field=False):
        super().__init__(what)
        self.what, self.field = what, field


class Data:
    """The results a claim may read: experiments {name: (rows as dicts of strings, meta, where)},
    text logs {name: text} and seed replicates {name: [rows of seed replicate k = 1, 2, ...]}
    (the further seeds of `make figures`, RESULTS/seeds/<k>/; the experiment's own rows are
    replicate 0). Built by load_data() or directly by tests."""

    def __init__(self, experiments=None, logs=None, replicates=None):
        self.experiments = dict(experiments or {})
        self.logs = dict(logs or {})
        self.seed_replicates = {k: [r for r in v if r] for k, v in (replicates or {}).items()}

    def replicates(self, name):
        """[rows of the figures' seed, rows of each further seed replicate]; Missing without the
        experiment's own rows."""
        return [self.rows(name)] + list(self.seed_replicates.get(name, []))

    def rows(self, name):
        if name not in self.experiments or not self.experiments[name][0]:
            raise Missing(name + ".csv")
        return self.experiments[name][0]

    def meta(self, name):
        if name not in self.experiments:
            raise Missing(name + ".meta.json")
        return self.experiments[name][1] or {}

    def log(self, name):
        if name not in self.logs:
            raise Missing(name)
        return self.logs[name]

    def has(self, name):
        return name in self.experiments and bool(self.experiments[name][0])

    def machine(self, name):
        m = self.meta(name)
        return m.get("gpu_name") or m.get("cpu_model") or "an unnamed machine"


def _read_rows(path):
    rows = sr.read_rows_text(path)
    if rows is None:
        raise FileNotFoundError(path)
    return rows


def _read_meta(path):
    try:
        return sr.read_meta(path)
    except Exception:  # noqa: BLE001 - a missing meta.json leaves the machine unnamed, not the claim unchecked
        return {}


def load_data(results, recorded_root):
    """Data from a results directory and the recorded GPU runs (newest per experiment)."""
    experiments, logs = {}, {}
    for name in CPU_FILES:
        path = os.path.join(results, name + ".csv")
        if os.path.isfile(path):
            experiments[name] = (_read_rows(path), _read_meta(os.path.join(results, name + ".meta.json")), results)
    for name in GPU_FILES:
        source = sr.gpu_source(results, name, recorded_root)
        if source is not None:
            experiments[name] = (_read_rows(os.path.join(source.directory, name + ".csv")),
                                 _read_meta(os.path.join(source.directory, name + ".meta.json")), source.directory)
    for name in LOG_FILES:
        candidates = [os.path.join(results, name)]
        if recorded_root and os.path.isdir(recorded_root):
            candidates += [os.path.join(recorded_root, d, name) for d in sorted(os.listdir(recorded_root))]
        found = [p for p in candidates if os.path.isfile(p)]
        if found:
            with open(max(found, key=os.path.getmtime)) as f:
                logs[name] = f.read()
    replicates = {}
    for name in SEED_REPLICATED:
        if name in experiments:
            dirs = variability.replicate_dirs(results)[1:]
            replicates[name] = [rows for rows in (sr.read_rows_text(os.path.join(d, name + ".csv")) for d in dirs)
                                if rows]
    return Data(experiments, logs, replicates)


def load_references(seed, directory=REFERENCE_DIR):
    """{claim: {key: (number or text, unit, source)}} from figures/reference/claims_<seed>.csv."""
    refs = {}
    path = os.path.join(directory, "claims_%s.csv" % seed)
    for r in _read_rows(path):
        try:
            value = float(r["value"])
        except ValueError:
            value = r["value"]
        refs.setdefault(r["claim"], {})[r["key"]] = (value, r["unit"], r["source"])
    return refs


_f = sr.number_or_none


def _paper(ref, key):
    return ref[key][0]


def _size_text(log2):
    return "2^%d+1" % log2


# --------------------------------------------------------------------------- shuffle helpers

def _shuffle_rate(data, name, label, log2, case=None):
    """items/s of the paper's column `label` at 2^log2+1 in a shuffle experiment, or None."""
    key = "items_per_second"
    for r in data.rows(name):
        if case is not None and r.get("case") != case:
            continue
        if int(r["log2_size"]) != log2:
            continue
        lab = sr.GPU_DISPLAY.get(r["algorithm"]) if name != "table2_cpu_shuffle" else None
        lab = lab or sr.paper_label(r["algorithm"], r.get("label", ""))
        if lab == label:
            return _f(r[key])
    return None


def _largest(data, name):
    return max(int(r["log2_size"]) for r in data.rows(name))


def _peer_strength(data, ref, log2, peers, seed_noun="the paper's"):
    """'our X / Gather = a % (paper b %)' for each peer: how strong the peers are here."""
    parts = []
    g = _shuffle_rate(data, "table1_gpu_shuffle", "Gather", log2)
    for p in peers:
        ours = _shuffle_rate(data, "table1_gpu_shuffle", p, log2)
        if g and ours and ("paper_" + p) in ref and "paper_Gather" in ref:
            parts.append("our %s reaches %.1f %% of Gather, %s %.1f %%"
                         % (p, 100 * ours / g, seed_noun, 100 * _paper(ref, "paper_" + p) / _paper(ref, "paper_Gather")))
    return "; ".join(parts)


def _table1_ratio_claim(ref, data, peers, mode):
    """VarPhilox / peer at the paper's largest size (2^29+1): 'min' or 'range' of the peers."""
    log2 = int(_paper(ref, "log2_size"))
    if _largest(data, "table1_gpu_shuffle") < log2:
        log2 = _largest(data, "table1_gpu_shuffle")
    ours = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", log2)
    ratios = {}
    for p in peers:
        rate = _shuffle_rate(data, "table1_gpu_shuffle", p, log2)
        if rate and ours:
            ratios[p] = ours / rate
    if not ratios:
        raise Missing("VarPhilox and %s rows at %s in table1_gpu_shuffle.csv" % ("/".join(peers), _size_text(log2)),
                      field=True)
    return log2, ratios


# --------------------------------------------------------------------------- shuffle paper

def _passes(value):
    return str(value).strip() in ("1", "true", "True")


def _first_passing(rows):
    """The smallest round count from which VarPhilox passes χ² at every larger count in one
    seed's rows, or None."""
    vp = [r for r in rows if sr.paper_label(r["algorithm"]) == "VarPhilox"]
    if not vp:
        raise Missing("VarPhilox rows in fig06_chi2_rounds.csv", field=True)
    by_rounds = sorted((int(r["rounds"]), _passes(r["passes"])) for r in vp)
    for i, (rounds, _) in enumerate(by_rounds):
        if all(p for _, p in by_rounds[i:]):
            return rounds
    return None


def first_passing_rounds(data):
    """([first passing round count per seed, the figures' seed first], permutations per point of
    the figures' seed): _first_passing over every seed replicate of fig06_chi2_rounds."""
    reps = data.replicates("fig06_chi2_rounds")
    firsts = [_first_passing(rows) for rows in reps]
    return firsts, int(float(reps[0][0]["samples"]))


def _median(xs):
    xs = sorted(xs)
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else 0.5 * (xs[m - 1] + xs[m])


def _seeds_text(firsts):
    """'22, 22, 25, 24, 22' ('never' where a seed never passes)."""
    return ", ".join("never" if f is None else str(f) for f in firsts)


def _seeds_count(firsts):
    return " (%d seeds)" % len(firsts) if len(firsts) > 1 else ""


def sp_chi2_rounds(ref, data):
    firsts, samples = first_passing_rounds(data)
    paper = _paper(ref, "min_passing_rounds")
    tol = 4.0 / paper
    note = "%s permutations per point (paper %s)" % ("{:,}".format(samples), "{:,}".format(int(_paper(ref, "samples"))))
    ours = "passes from %s rounds%s" % (_seeds_text(firsts), _seeds_count(firsts))
    if any(f is None for f in firsts):
        bad = [k for k, f in enumerate(firsts) if f is None]
        return "≈%d rounds" % paper, ours, None, _v(DIFFERS, "VarPhilox fails at the largest round count with seed "
                                                    "replicate(s) %s; %s" % (", ".join(map(str, bad)), note))
    med = _median(firsts)
    inside = [abs(f / paper - 1) <= tol for f in firsts]
    outside = ", ".join("seed %d at %d" % (k, f) for k, f in enumerate(firsts) if not inside[k])
    if all(inside):
        counts = "every seed's first passing round count (%s)" % _seeds_text(firsts) if len(firsts) > 1 else \
            "the first passing round count (%d, one seed)" % firsts[0]
        v = _v(REPRODUCED, "%s is within ±%g %% of the paper's ≈%d; %s" % (counts, tol * 100, paper, note))
    elif max(firsts) < paper:
        v = _v(IN_SHAPE, "VarPhilox passes from %s rounds, earlier than the paper's ≈%d; %s — fewer samples make "
                         "the test less sensitive" % (_seeds_text(firsts), paper, note))
    elif abs(med / paper - 1) <= tol:
        v = _v(IN_SHAPE, "the median seed passes from %g rounds, within ±%g %% of the paper's ≈%d, but not every seed "
                         "does (%s; seed 0 is the figures' run); %s" % (med, tol * 100, paper, outside, note))
    else:
        v = _v(DIFFERS, "the median first passing round count %g is outside ±%g %% of the paper's ≈%d (%s); %s"
               % (med, tol * 100, paper, _seeds_text(firsts), note))
    return "≈%d rounds" % paper, ours, med / paper, v


def sp_lcg_chi2(ref, data):
    rows = [r for r in data.rows("fig06_chi2_rounds") if sr.paper_label(r["algorithm"]) == "LCG"]
    if not rows:
        raise Missing("LCG rows in fig06_chi2_rounds.csv", field=True)
    r = rows[0]
    samples, stat = float(r["samples"]), float(r["statistic"])
    paper, paper_samples = _paper(ref, "statistic"), _paper(ref, "samples")
    scaled = stat * paper_samples / samples  # a fixed bias: chi-square grows in proportion to the samples
    fails = r["passes"] not in ("1", "true", "True")
    ratio = scaled / paper
    ours = "χ² = %s at %s samples (%s scaled to %s)" % (fmt(stat), "{:,}".format(int(samples)), fmt(scaled),
                                                        "{:,}".format(int(paper_samples)))
    if not fails:
        return paper, ours, ratio, _v(DIFFERS, "the LCG passes the χ² test here")
    if 0.5 <= ratio <= 2:
        return paper, ours, ratio, _v(REPRODUCED, "the LCG fails, its χ² scaled to the paper's samples is %s the "
                                                  "paper's" % fx(ratio))
    return paper, ours, ratio, _v(IN_SHAPE, "the LCG fails as in the paper, but its χ² scaled to the paper's samples "
                                            "is %s the paper's (the statistic depends on the LCG's constants and the "
                                            "seed)" % fx(ratio))


def mmd_power(rows, rounds, passed):
    """{n: (largest VarPhilox round count the MMD test still rejects, or 0; samples)} of one
    seed's fig07_09_mmd rows (passed: row -> bool). A test at n can fail at that sample count
    when it rejects at >= MMD_POWER_FRACTION x rounds."""
    out = {}
    for r in rows:
        if sr.paper_label(r["algorithm"]) != "VarPhilox" or not r["rounds"]:
            continue
        n = int(r["n"])
        last, samples = out.get(n, (0, int(float(r["samples"]))))
        if not passed(r):
            last = max(last, int(r["rounds"]))
        out[n] = (last, samples)
    return out


def sp_mmd_24(ref, data):
    rounds = int(_paper(ref, "rounds"))
    reps = data.replicates("fig07_09_mmd")

    def passed(r):
        col = "passes_normal" if int(float(r["samples"])) >= int(_paper(ref, "hoeffding_below")) else "passes_hoeffding"
        return _passes(r[col])
    at = [r for rows in reps for r in rows if sr.paper_label(r["algorithm"]) == "VarPhilox" and r["rounds"]
          and int(r["rounds"]) == rounds]
    if not at:
        raise Missing("VarPhilox rows at %d rounds in fig07_09_mmd.csv" % rounds, field=True)
    power = mmd_power(reps[0], rounds, passed)
    floor = MMD_POWER_FRACTION * rounds
    weak = sorted(n for n, (last, _) in power.items() if last < floor)
    strong = [r for r in at if int(r["n"]) not in weak]
    failed = sum(1 for r in strong if not passed(r))
    alpha = float(at[0]["alpha"])
    ns = sorted({int(r["n"]) for r in strong})
    seeds = " over %d seeds" % len(reps) if len(reps) > 1 else ""
    ours = "%d of %d pass%s" % (sum(1 for r in at if passed(r)), len(at), seeds)
    v = rule_chance_failures(failed, len(strong), alpha, "MMD tests of VarPhilox at %d rounds (n = %s%s)"
                             % (rounds, ", ".join(map(str, ns)), seeds)) if strong else None
    if weak:
        why = "; ".join("at n = %d with %s samples the test rejects VariablePhilox at no round count above %d, "
                        "below %g (%g × the claimed %d): it has no power there, so passing at %d rounds is untested "
                        "at this scale" % (n, "{:,}".format(power[n][1]), power[n][0], floor, MMD_POWER_FRACTION,
                                           rounds, rounds) for n in weak)
        if v is not None:
            why += "; where the test has power: %s (%s)" % (v[0], v[1])
        return "all pass", ours, None, _v(NOT_HERE, why)
    return "all pass", ours, None, v


def sp_table1_ranking(ref, data):
    log2 = int(_paper(ref, "log2_size"))
    labels = ["Gather", "VarPhilox", "LCG", "DartThrowing", "SortShuffle"]
    ours = {lab: _shuffle_rate(data, "table1_gpu_shuffle", lab, log2) for lab in labels}
    paper = {lab: _paper(ref, "paper_" + lab) for lab in labels}
    common = [lab for lab in labels if ours[lab]]
    ours_order = sorted(common, key=lambda lab: -ours[lab])
    paper_order = sorted(common, key=lambda lab: -paper[lab])
    tau = kendall_tau(ours_order, paper_order)
    return (" > ".join(paper_order), " > ".join(ours_order), None,
            rule_ranking(tau, len(common), ours_order, paper_order))


def sp_table1_absolute(ref, data):
    log2 = int(_paper(ref, "log2_size"))
    ours = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", log2)
    if ours is None:
        raise Missing("VarPhilox at %s in table1_gpu_shuffle.csv" % _size_text(log2), field=True)
    paper = _paper(ref, "paper_VarPhilox") * 1e6
    return (fmt(paper / 1e6) + " M items/s", fmt(ours / 1e6) + " M items/s", ours / paper,
            rule_other_machine(data.machine("table1_gpu_shuffle"), ref["paper_VarPhilox"][1].split(" on ")[-1],
                               "the paper's Table 1"))


def sp_gpu_10x(ref, data):
    log2, ratios = _table1_ratio_claim(ref, data, ["DartThrowing", "SortShuffle"], "min")
    low = min(ratios.values())
    why = _peer_strength(data, ref, log2, ["DartThrowing", "SortShuffle"])
    v = rule_at_least(low, _paper(ref, "factor"), "VarPhilox over its slower peer at %s" % _size_text(log2),
                      ("our peers are stronger: " + why) if why else "", unit="×")
    return ("≥ %s×" % fmt(_paper(ref, "factor")), ", ".join("%s %s" % (fx(x), p) for p, x in ratios.items()),
            low / _paper(ref, "factor"), v)


def sp_orders_of_magnitude(ref, data):
    log2, ratios = _table1_ratio_claim(ref, data, ["DartThrowing", "SortShuffle"], "range")
    lo, hi = min(ratios.values()), max(ratios.values())
    why = _peer_strength(data, ref, log2, ["DartThrowing", "SortShuffle"])
    v = rule_range(lo, hi, _paper(ref, "low"), _paper(ref, "high"),
                   "VarPhilox over DartThrowing/SortShuffle at %s on the GPU" % _size_text(log2),
                   ("our peers are stronger: " + why) if why else "", unit="×")
    return ("%s–%s×" % (fmt(_paper(ref, "low")), fmt(_paper(ref, "high"))), "%s–%s" % (fx(lo), fx(hi)), None, v)


def sp_table2_ranking(ref, data):
    rows = data.rows("table2_cpu_shuffle")
    table = _read_rows(os.path.join(REFERENCE_DIR, "shuffle_table2_cpu.csv"))
    paper_sizes = {int(r["log2_size"]) for r in table}
    ours_sizes = {int(r["log2_size"]) for r in rows}
    common = sorted(paper_sizes & ours_sizes)
    if not common:
        raise Missing("a size of the paper's Table 2 in table2_cpu_shuffle.csv", field=True)
    log2 = common[-1]
    ours, paper = {}, {}
    for r in rows:
        if int(r["log2_size"]) == log2:
            ours[sr.paper_label(r["algorithm"], r.get("label", ""))] = float(r["items_per_second"])
    for r in table:
        if int(r["log2_size"]) == log2:
            paper[r["label"]] = float(r["m_items_per_second"])
    labels = [lab for lab in paper if lab in ours]
    ours_order = sorted(labels, key=lambda lab: -ours[lab])
    paper_order = sorted(labels, key=lambda lab: -paper[lab])
    tau = kendall_tau(ours_order, paper_order)
    v, why = rule_ranking(tau, len(labels), ours_order, paper_order)
    cores = data.meta("table2_cpu_shuffle").get("cores", "?")
    why += " at %s; %s cores here, %d in the paper" % (_size_text(log2), cores, int(_paper(ref, "cores")))
    return " > ".join(paper_order), " > ".join(ours_order), None, (v, why)


def sp_fig10_fused(ref, data):
    above = int(_paper(ref, "above_log2"))
    rows = data.rows("fig10_fusion")
    g = {(int(r["log2_size"]), r["case"]): float(r["items_per_second"]) for r in rows if r["algorithm"] == "gather"}
    pts = [(float(r["items_per_second"]) / g[(int(r["log2_size"]), r["case"])], int(r["log2_size"]), r["case"])
           for r in rows if r["algorithm"] == "variable_philox" and int(r["log2_size"]) > above
           and (int(r["log2_size"]), r["case"]) in g]
    if not pts:
        raise Missing("VarPhilox and Gather rows above 2^%d in fig10_fusion.csv" % above, field=True)
    worst = min(pts)
    level = FUSION_EQUIVALENT
    bad = [p for p in pts if p[0] < level]
    v = rule_all_points(len(bad), len(pts), "%s at 2^%d, %s case" % (fx(worst[0]), worst[1], worst[2]),
                        "VarPhilox ≥ %g × Gather above 2^%d" % (level, above))
    return "≈ Gather (≥ %g×)" % level, "%s–%s of Gather" % (fx(worst[0]), fx(max(pts)[0])), None, v


# --------------------------------------------------------------------------- summary card

def ss_v100_table(ref, data):
    ours = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", 29)
    if ours is None:
        raise Missing("VarPhilox at 2^29+1 in table1_gpu_shuffle.csv", field=True)
    paper = _paper(ref, "VarPhilox")
    return (fmt(paper) + " M items/s", fmt(ours / 1e6) + " M items/s", ours / 1e6 / paper,
            rule_other_machine(data.machine("table1_gpu_shuffle"), "Tesla V100", "the card's table"))


def ss_fraction_of_gather(ref, data):
    log2 = 29
    ours = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", log2)
    g = _shuffle_rate(data, "table1_gpu_shuffle", "Gather", log2)
    if not ours or not g:
        raise Missing("VarPhilox and Gather at 2^29+1 in table1_gpu_shuffle.csv", field=True)
    paper = _paper(ref, "fraction")
    v, why = rule_close(ours / g, paper, 0.05, "VarPhilox / Gather")
    return "%.0f %%" % (100 * paper), "%.1f %%" % (100 * ours / g), ours / g / paper, (v, why)


def ss_within_2x(ref, data):
    ours = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", 29)
    g = _shuffle_rate(data, "table1_gpu_shuffle", "Gather", 29)
    if not ours or not g:
        raise Missing("VarPhilox and Gather at 2^29+1 in table1_gpu_shuffle.csv", field=True)
    floor = 1.0 / _paper(ref, "factor")
    v = rule_at_least(ours / g, floor, "VarPhilox / Gather at 2^29+1")
    return "≥ %g of Gather" % floor, "%.3f of Gather" % (ours / g), None, v


def ss_vs_sort(ref, data):
    ours = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", 29)
    s = _shuffle_rate(data, "table1_gpu_shuffle", "SortShuffle", 29)
    if not ours or not s:
        raise Missing("VarPhilox and SortShuffle at 2^29+1 in table1_gpu_shuffle.csv", field=True)
    paper = _paper(ref, "speedup")
    g = _shuffle_rate(data, "table1_gpu_shuffle", "Gather", 29)
    why = "our SortShuffle reaches %.1f %% of Gather, the card's %.1f %%" % (
        100 * s / g, 100 * _paper(ref, "SortShuffle") / _paper(ref, "Gather")) if g else ""
    v = rule_at_least(ours / s, paper, "VarPhilox / SortShuffle at 2^29+1", why, unit="×", tol=0.10)
    return fx(paper), fx(ours / s), ours / s / paper, v


def ss_epoch_times(ref, data):
    n = 2 ** 29
    ours = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", 29)
    s = _shuffle_rate(data, "table1_gpu_shuffle", "SortShuffle", 29)
    if not ours or not s:
        raise Missing("VarPhilox and SortShuffle at 2^29+1 in table1_gpu_shuffle.csv", field=True)
    t_ours, t_sort = n / ours, n / s
    paper = _paper(ref, "speedup")
    v = rule_at_least(t_sort / t_ours, paper, "the per-epoch speed-up",
                      "our times are %.0f ms vs %.0f ms on %s (the card's %.0f ms vs %.1f s on a V100)"
                      % (1e3 * t_ours, 1e3 * t_sort, data.machine("table1_gpu_shuffle"),
                         1e3 * _paper(ref, "bijective_seconds"), _paper(ref, "sort_seconds")), unit="×", tol=0.10)
    return ("%.0f ms vs %.1f s (%s)" % (1e3 * _paper(ref, "bijective_seconds"), _paper(ref, "sort_seconds"),
                                       fx(paper)),
            "%.1f ms vs %.1f ms (%s)" % (1e3 * t_ours, 1e3 * t_sort, fx(t_sort / t_ours)), t_sort / t_ours / paper, v)


def ss_10_100x(ref, data):
    log2, ratios = _table1_ratio_claim(ref, data, ["DartThrowing", "SortShuffle"], "range")
    lo, hi = min(ratios.values()), max(ratios.values())
    why = _peer_strength(data, ref, log2, ["DartThrowing", "SortShuffle"], "the card's")
    v = rule_range(lo, hi, _paper(ref, "low"), _paper(ref, "high"),
                   "VarPhilox over DartThrowing/SortShuffle at %s" % _size_text(log2),
                   ("our peers are stronger: " + why) if why else "", unit="×")
    return ("%s–%s×" % (fmt(_paper(ref, "low")), fmt(_paper(ref, "high"))), "%s–%s" % (fx(lo), fx(hi)), None, v)


def ss_rtx2080(ref, data):
    machine = data.machine("table1_gpu_shuffle")
    ours = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", 26)
    g = _shuffle_rate(data, "table1_gpu_shuffle", "Gather", 26)
    ours_text = "%s M items/s (%s of Gather) on %s" % (fmt(ours / 1e6), fx(ours / g), machine) if ours and g else "—"
    if "2080" in machine:
        return fmt(_paper(ref, "VarPhilox")) + " M items/s", ours_text, ours / 1e6 / _paper(ref, "VarPhilox"), \
            rule_close(ours / 1e6, _paper(ref, "VarPhilox"), 0.10)
    return (fmt(_paper(ref, "VarPhilox")) + " M items/s (%s of Gather)" % fx(_paper(ref, "VarPhilox") /
                                                                               _paper(ref, "Gather")),
            ours_text, None, rule_other_machine(machine, "GeForce RTX 2080", "the card's second table"))


def ss_bigcrush(ref, data):
    rows = data.rows("bigcrush_variable_philox")  # no experiment writes it yet: Missing
    failed = sum(1 for r in rows if r.get("assessment") == "FAILED")
    return "passes at %d rounds" % _paper(ref, "rounds"), "%d of %d fail" % (failed, len(rows)), None, \
        rule_chance_failures(failed, len(rows), 0.001, "BigCrush tests")


def ss_24_rounds(ref, data):
    rounds = int(_paper(ref, "rounds"))
    firsts, samples = first_passing_rounds(data)
    ours = "χ² passes from %s rounds%s" % (_seeds_text(firsts), _seeds_count(firsts))
    late = [(k, f) for k, f in enumerate(firsts) if f is None or f > rounds]
    if not late:
        return "%d rounds suffice" % rounds, ours, None, _v(
            REPRODUCED, "with every seed χ² passes at every round count from %d or fewer, so %d rounds suffice "
                        "(%s permutations per point)" % (max(firsts), rounds, "{:,}".format(samples)))
    # The late seeds: chance failures at >= rounds, or a defect? Count every test at >= rounds.
    tests = [r for rows in data.replicates("fig06_chi2_rounds") for r in rows
             if sr.paper_label(r["algorithm"]) == "VarPhilox" and int(r["rounds"]) >= rounds]
    failed = sum(1 for r in tests if not _passes(r["passes"]))
    chance, why = rule_chance_failures(failed, len(tests), float(tests[0]["alpha"]),
                                       "χ² tests of VarPhilox at ≥ %d rounds over %d seeds" % (rounds, len(firsts)))
    lates = ", ".join("seed %d %s" % (k, "never passes" if f is None else "passes only from %d" % f) for k, f in late)
    if chance == REPRODUCED:
        return "%d rounds suffice" % rounds, ours, None, _v(
            IN_SHAPE, "%s (seed 0 is the figures' run), yet the failures at ≥ %d rounds are as many as chance "
                      "allows: %s" % (lates, rounds, why))
    return "%d rounds suffice" % rounds, ours, None, _v(DIFFERS, "%s; %s" % (lates, why))


# --------------------------------------------------------------------------- Onesweep

def _sort_rate(rows, algorithm, shape, q, n):
    for r in rows:
        if r["algorithm"] == algorithm and r["shape"] == shape and int(r["q"]) == q and int(r["n"]) == n:
            return float(r["keys_per_second"])
    return None


def _speedups(rows, ours="onesweep", peer="cub_reduce_then_scan"):
    """[(ratio, n, q, shape)] of ours / peer at every point both measured."""
    peer_rate = {(r["shape"], int(r["q"]), int(r["n"])): float(r["keys_per_second"]) for r in rows
                 if r["algorithm"] == peer}
    out = []
    for r in rows:
        if r["algorithm"] == ours:
            k = (r["shape"], int(r["q"]), int(r["n"]))
            if k in peer_rate and peer_rate[k] > 0:
                out.append((float(r["keys_per_second"]) / peer_rate[k], int(r["n"]), int(r["q"]), r["shape"]))
    return out


def os_headline(ref, data):
    rows = data.rows("sort_headline")
    n = int(_paper(ref, "n"))
    ours = _sort_rate(rows, "onesweep", "keys_u32", 1, n)
    if ours is None:
        raise Missing("onesweep keys_u32 q = 1 n = %d in sort_headline.csv" % n, field=True)
    paper = _paper(ref, "gkeys") * 1e9
    return ("%s GKey/s" % fmt(paper / 1e9), "%s GKey/s" % fmt(ours / 1e9), ours / paper,
            rule_other_machine(data.machine("sort_headline"), "A100-80GB (clocks locked to 1410 MHz)", "29.4 GKey/s"))


def os_speedup_range(ref, data):
    lo_p, hi_p = _paper(ref, "low"), _paper(ref, "high")
    sat = 2 ** SATURATING_LOG2
    medians, parts = [], []
    for name in ("onesweep_fig09_keys32", "onesweep_fig10_pairs32", "onesweep_fig11_keys64"):
        if not data.has(name):
            continue
        pts = sorted(p[0] for p in _speedups(data.rows(name)) if p[2] == 1 and p[1] >= sat)
        if pts:
            m = pts[len(pts) // 2] if len(pts) % 2 else 0.5 * (pts[len(pts) // 2 - 1] + pts[len(pts) // 2])
            medians.append(m)
            parts.append("%s %s" % (name.split("_", 2)[-1], fx(m)))
    if not medians:
        raise Missing("onesweep_fig09_keys32.csv")
    v = rule_range(min(medians), max(medians), lo_p, hi_p,
                   "the median speed-up over CUB's reduce-then-scan sort (q = 1, n ≥ 2^%d)"
                   % SATURATING_LOG2, unit="×")
    return "%s–%s×" % (fmt(lo_p), fmt(hi_p)), ", ".join(parts), None, v


def _unilateral(name):
    def compute(ref, data):
        pts = _speedups(data.rows(name))
        if not pts:
            raise Missing("onesweep and cub_reduce_then_scan rows in %s.csv" % name, field=True)
        bad = [p for p in pts if p[0] < 1]
        worst = min(pts)
        verdict, why = rule_all_points(len(bad), len(pts), "%s at n = %d, q = %d" % (fx(worst[0]), worst[1], worst[2]),
                                       "%s (ours faster than CUB's reduce-then-scan sort)" % name)
        best = _speedups_vs_cub_best(data.rows(name))
        ours = "slower at %d of %d points" % (len(bad), len(pts))
        if best:
            below = [p for p in best if p[0] < 1]
            med = _median([p[0] for p in best])
            vs = "against today's fastest peer, CUB (best) of the %d CUB configurations measured per point, ours is " \
                 "below 1 at %d of %d points (median %s, lowest %s at n = %d, q = %d)" % (
                     len({r["algorithm"] for r in data.rows(name) if r["algorithm"].startswith("cub_")}), len(below),
                     len(best), fx(med), fx(min(best)[0]), min(best)[1], min(best)[2])
            why += "; " + vs
            ours += "; vs CUB (best): below at %d of %d" % (len(below), len(best))
        return "faster at every point", ours, None, (verdict, why)
    return compute


def _speedups_vs_cub_best(rows, ours="onesweep"):
    """[(ratio, n, q, shape)] of ours / the fastest CUB configuration (any algorithm named cub_*)
    at every point where both were measured."""
    best = {}
    for r in rows:
        if r["algorithm"].startswith("cub_") and _f(r["keys_per_second"]):
            k = (r["shape"], int(r["q"]), int(r["n"]))
            best[k] = max(best.get(k, 0.0), float(r["keys_per_second"]))
    return [(float(r["keys_per_second"]) / best[k], k[2], k[1], k[0]) for r in rows if r["algorithm"] == ours
            for k in [(r["shape"], int(r["q"]), int(r["n"]))] if best.get(k)]


def os_ceiling(ref, data):
    ceiling = _paper(ref, "ceiling")
    sat = 2 ** SATURATING_LOG2
    pts = [p for p in _speedups(data.rows("onesweep_fig09_keys32")) if p[2] == 1 and p[1] >= sat]
    if not pts:
        raise Missing("q = 1 saturating points in onesweep_fig09_keys32.csv", field=True)
    top = max(pts)
    # Beside it, the skewed bands (q > 1) at the same sizes: the ceiling is derived for uniform keys.
    skew = [p for p in _speedups(data.rows("onesweep_fig09_keys32")) if p[2] > 1 and p[1] >= sat]
    beside = ""
    if skew:
        high = max(skew)
        above = sum(1 for p in skew if p[0] > ceiling)
        beside = "; at q > 1 (skewed keys, n ≥ 2^%d) the speed-up reaches %s (q = %d, n = %d), above %s× at %d of " \
                 "%d points: the ceiling is the uniform-key model's" % (SATURATING_LOG2, fx(high[0]), high[2], high[1],
                                                                       fmt(ceiling), above, len(skew))
    if top[0] <= ceiling:
        v = _v(REPRODUCED, "the largest measured q = 1 speed-up, %s at n = %d, stays under the %s× ceiling%s"
               % (fx(top[0]), top[1], fmt(ceiling), beside))
    else:
        v = _v(DIFFERS, "the measured q = 1 speed-up reaches %s at n = %d, above the %s× ceiling (our reduce-then-scan "
                        "peer is slower than the paper's model of it)%s" % (fx(top[0]), top[1], fmt(ceiling), beside))
    ours = "max %s (q = 1)" % fx(top[0]) + ("; q > 1: max %s" % fx(max(skew)[0]) if skew else "")
    return "≤ %s×" % fmt(ceiling), ours, top[0] / ceiling, v


def os_traffic(ref, data):
    d = int(_paper(ref, "digit_bits"))
    passes = [int(r["passes"]) for r in data.rows("onesweep_table2_digit_width") if int(r["digit_bits"]) == d]
    if not passes:
        raise Missing("digit_bits = %d in onesweep_table2_digit_width.csv" % d, field=True)
    p = passes[0]
    ours = 3.0 * p / (2 * p + 1)
    close, why = rule_close(ours, _paper(ref, "reduction"), 0.01, "3p/(2p+1) with our p = %d passes of %d-bit digits"
                            % (p, d))
    v, why = rule_by_construction(close == REPRODUCED, why, "the paper's formula evaluated at our pass count, not a "
                                  "measured memory traffic")
    return fx(_paper(ref, "reduction")), fx(ours), ours / _paper(ref, "reduction"), (v, why)


def _band_ratio(ref, data, q_key):
    rows = data.rows("sort_headline")
    n = int(_paper(ref, "n"))
    q = int(_paper(ref, q_key))
    base, other = _sort_rate(rows, "onesweep", "keys_u32", 1, n), _sort_rate(rows, "onesweep", "keys_u32", q, n)
    if base is None or other is None:
        raise Missing("onesweep keys_u32 q = 1 and q = %d at n = %d in sort_headline.csv" % (q, n), field=True)
    return q, base, other


def os_q8(ref, data):
    q, base, other = _band_ratio(ref, data, "q")
    paper = _paper(ref, "gkeys_q") / _paper(ref, "gkeys_q1")
    ours = other / base
    v = rule_ratio_shape(ours, paper, 0.05, ours >= 0.8,
                         "consistency (q = %d at ≥ 0.8 × the q = 1 throughput)" % q)
    return ("%s→%s GKey/s (%s)" % (fmt(_paper(ref, "gkeys_q1")), fmt(_paper(ref, "gkeys_q")), fx(paper)),
            "%s→%s GKey/s (%s)" % (fmt(base / 1e9), fmt(other / 1e9), fx(ours)), ours / paper, v)


def os_q16(ref, data):
    q, base, other = _band_ratio(ref, data, "q")
    paper = _paper(ref, "gkeys_q") / _paper(ref, "gkeys_q1")
    ours = other / base
    v = rule_ratio_shape(ours, paper, 0.10, ours > 1, "q = %d faster than q = 1" % q)
    return ("%s→%s GKey/s (%s)" % (fmt(_paper(ref, "gkeys_q1")), fmt(_paper(ref, "gkeys_q")), fx(paper)),
            "%s→%s GKey/s (%s)" % (fmt(base / 1e9), fmt(other / 1e9), fx(ours)), ours / paper, v)


def entropy_per_bit(q):
    """Shannon entropy per key bit of the AND of q uniform words: H(2^-q)."""
    p = 2.0 ** -q
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p)) if p < 1 else 0.0


def os_table1(ref, data):
    bands = sorted({int(r["q"]) for r in data.rows("onesweep_fig09_keys32")})
    paper = {int(k[1:]): v[0] for k, v in ref.items() if k.startswith("q")}
    missing = [q for q in sorted(paper) if q not in bands]
    worst = max(abs(entropy_per_bit(q) - paper[q]) for q in paper if q in bands) if bands else None
    if missing:
        v = _v(DIFFERS, "band(s) q = %s were not measured" % ", ".join(map(str, missing)))
    elif worst <= 5e-6:
        v = rule_by_construction(True, "H(2^-q) of our bands q = %s equals the table to its 6 digits (largest gap "
                                 "%.1g)" % (", ".join(map(str, bands)), worst), "the entropy formula recomputed for "
                                 "the bands our key generator is asked for, not measured from the keys")
    else:
        v = _v(DIFFERS, "H(2^-q) differs from the table by up to %.3g" % worst)
    return (", ".join("%g" % paper[q] for q in sorted(paper)),
            ", ".join("%.6g" % entropy_per_bit(q) for q in sorted(paper) if q in bands), None, v)


def _table2_rows(data):
    return [r for r in data.rows("onesweep_table2_digit_width") if r["phase"] == "partition"]


def os_table2_passes(ref, data):
    rows = _table2_rows(data)
    ours = {int(r["digit_bits"]): int(r["passes"]) for r in rows}
    paper = {int(k[1:]): int(v[0]) for k, v in ref.items() if k.startswith("d")}
    widths = sorted(paper)
    o = [ours.get(d) for d in widths]
    p = [paper[d] for d in widths]
    v, why = rule_equal(o, p, "pass counts for d = %s bits" % "/".join(map(str, widths)))
    if v == DIFFERS:
        if all(ours.get(d) == -(-32 // d) for d in widths):
            why += "; ours are ⌈32/d⌉ (every key bit sorted)"
        if all(paper[d] == 32 // d for d in widths):
            why += ", the paper's equal ⌊32/d⌋"
    return "/".join(map(str, p)), "/".join("—" if x is None else str(x) for x in o), None, (v, why)


def os_table2_best_width(ref, data):
    rows = [r for r in _table2_rows(data) if _f(r["microseconds_per_bit"]) is not None]
    if not rows:
        raise Missing("partition rows with microseconds_per_bit in onesweep_table2_digit_width.csv", field=True)
    best = min(rows, key=lambda r: float(r["microseconds_per_bit"]))
    ours_d = int(best["digit_bits"])
    paper_d = int(_paper(ref, "best_digit_bits"))
    if ours_d == paper_d:
        v = _v(REPRODUCED, "the partition cost per bit is lowest at %d-bit digits here too" % ours_d)
    else:
        v = _v(DIFFERS, "the partition cost per bit is lowest at %d-bit digits here (%s µs/bit), at %d in the paper"
               % (ours_d, fmt(float(best["microseconds_per_bit"])), paper_d))
    return "%d bits" % paper_d, "%d bits" % ours_d, None, v


def os_table2_absolute(ref, data):
    d = int(_paper(ref, "digit_bits"))
    rows = [r for r in _table2_rows(data) if int(r["digit_bits"]) == d]
    if not rows:
        raise Missing("partition at %d bits in onesweep_table2_digit_width.csv" % d, field=True)
    ours = float(rows[0]["microseconds_median"])
    paper = _paper(ref, "partition_us")
    return ("%s µs" % fmt(paper), "%s µs" % fmt(ours), ours / paper,
            rule_other_machine(data.machine("onesweep_table2_digit_width"), "A100-80GB", "Table 2"))


def os_hrs(ref, data):
    rows = data.rows("onesweep_fig09_keys32")
    algs = sorted({r["algorithm"] for r in rows})
    paper = "drop above %s keys" % fmt(_paper(ref, "n"))
    if not any(r["algorithm"] == so.HYBRID for r in rows):
        return (paper, "no HRS rows", None,
                _v(NOT_HERE, "HRS was not measured: onesweep_fig09_keys32.csv holds %s" % ", ".join(algs)))
    st = so.hybrid_statements(rows)
    if st["drop_ratio"] is None:
        return (paper, "no %s sizes on both sides of %s keys" % (so.HYBRID, fmt(_paper(ref, "n"))), None,
                _v(NOT_HERE, "HRS itself has no licensed, buildable code; our %s after it was not measured on both "
                   "sides of the drop" % so.HYBRID))
    return (paper, "%s: %.2f× above it" % (so.HYBRID, st["drop_ratio"]), None,
            _v(NOT_HERE, "HRS itself has no licensed, buildable code; our %s, written after its paper, runs at %.2f× "
               "above %s keys of what it reaches from 2^27 to there (median %.2f against %.2f GKey/s, q = 1): a "
               "third MSD level whose scatter no longer coalesces" % (so.HYBRID, st["drop_ratio"],
                                                                       fmt(_paper(ref, "n")), st["drop_above"] / 1e9,
                                                                       st["drop_below"] / 1e9)))


# --------------------------------------------------------------------------- Gaussian

def _gauss_rate(data, algorithm):
    for r in data.rows("gaussian_throughput"):
        if r["algorithm"] == algorithm:
            return float(r["outputs_per_second"])
    return None


def g_throughput(ref, data):
    r4, r3 = _gauss_rate(data, "ours_register_4"), _gauss_rate(data, "ours_register_3")
    if r4 is None:
        raise Missing("ours_register_4 in gaussian_throughput.csv", field=True)
    paper = _paper(ref, "outputs_per_second")
    return ("%s G/s" % fmt(paper / 1e9), "%s G/s (3 coefficients %s)" % (fmt(r4 / 1e9), fmt(r3 / 1e9) if r3 else "—"),
            r4 / paper, rule_other_machine(data.machine("gaussian_throughput"), "Tesla V100", "121 G outputs/s"))


def nominal_bandwidth(meta):
    """Nominal memory bandwidth (bytes/s) from a GPU meta.json: 2 x memory clock x bus width / 8."""
    clock, width = _f(meta.get("gpu_memory_clock_khz")), _f(meta.get("gpu_memory_bus_width_bits"))
    if not clock or not width:
        return None
    return 2 * clock * 1e3 * width / 8


def _gauss_row(data, algorithm):
    for r in data.rows("gaussian_throughput"):
        if r["algorithm"] == algorithm:
            return r
    return None


def g_faster_than_memory(ref, data):
    row4, row3 = _gauss_row(data, "ours_register_4"), _gauss_row(data, "ours_register_3")
    if row4 is None:
        raise Missing("ours_register_4 in gaussian_throughput.csv", field=True)
    bw = nominal_bandwidth(data.meta("gaussian_throughput"))
    if bw is None:
        raise Missing("gpu_memory_clock_khz and gpu_memory_bus_width_bits in gaussian_throughput.meta.json",
                      field=True)
    paper = _paper(ref, "outputs_per_second") * 8 / _paper(ref, "memory_bandwidth")
    r4 = float(row4["outputs_per_second"])
    ours = r4 * 8 / bw
    # The range of the timed repetitions: outputs / slowest and / fastest time (older CSVs: the median only).
    outputs = _f(row4.get("outputs"))
    t_max, t_min = _f(row4.get("seconds_max")), _f(row4.get("seconds_min"))
    if outputs and t_max and t_min:
        lo, hi = outputs * 8 / t_max / bw, outputs * 8 / t_min / bw
    else:
        lo = hi = ours
    text = "%.2f TB/s of doubles vs %.2f TB/s nominal (%.4g×, repetitions %.4g–%.4g×)" % (
        r4 * 8 / 1e12, bw / 1e12, ours, min(lo, ours), max(hi, ours))
    if row3:
        text += "; 3 coefficients %s" % fx(float(row3["outputs_per_second"]) * 8 / bw)
    v = rule_over_range(min(lo, ours), ours, max(hi, ours), 1.0,
                        "the 4-coefficient generator's bytes/s of doubles ÷ the nominal memory bandwidth of %s"
                        % data.machine("gaussian_throughput"))
    return ("%.3g TB/s vs %.3g TB/s (%s)" % (_paper(ref, "outputs_per_second") * 8 / 1e12,
                                             _paper(ref, "memory_bandwidth") / 1e12, fx(paper)), text, None, v)


def _hermite(data, table, order_max, column):
    vals = [(float(r[column]), int(r["order"])) for r in data.rows("gaussian_hermite_failure")
            if r["table"] == table and int(r["order"]) <= order_max and _f(r[column]) is not None]
    if not vals:
        raise Missing("%s rows of orders ≤ %d in gaussian_hermite_failure.csv" % (table, order_max), field=True)
    return min(vals)


def g_initial_failure(ref, data):
    outputs, order = _hermite(data, "inverse_cdf", int(_paper(ref, "order")), "moment_failure_outputs")
    paper = _paper(ref, "outputs")
    v, why = rule_within_factor(outputs, paper, 2, "the expected outputs to a 4σ moment failure")
    if order != int(_paper(ref, "order")):
        v, why = DIFFERS, "the first moment to fail is order %d, not %d" % (order, int(_paper(ref, "order")))
    return "%s (order %d)" % (fmt(paper), int(_paper(ref, "order"))), "%s (order %d)" % (fmt(outputs), order), \
        outputs / paper, (v, why)


FailureMeasures = collections.namedtuple("FailureMeasures", "polynomial degree moment moment_order moment_orders "
                                                           "moment_all moment_all_order")


def failure_measures(data, table, moment_orders):
    """The expected outputs to a 4σ failure of one table of gaussian_hermite_failure.csv
    ("inverse_cdf", "optimised", "article_published"), by two measures:
    polynomial — the worst polynomial test of every degree the run computed (the
    best_polynomial_failure_outputs column at the highest order: it never increases with the
    order), `degree` that order; moment / moment_order — the first moment test to fail among
    orders 1..moment_orders (the article's listing: 8); moment_all / moment_all_order — the
    same over every order computed. Raises Missing (field) when the table has no rows, or
    its rows stop below FAILURE_POLY_MIN_DEGREE (SCALE=smoke computes orders up to 8)."""
    rows = [r for r in data.rows("gaussian_hermite_failure") if r["table"] == table]
    if not rows:
        raise Missing("%s rows in gaussian_hermite_failure.csv" % table, field=True)
    by_order = {int(r["order"]): r for r in rows}
    top = max(by_order)
    poly = _f(by_order[top]["best_polynomial_failure_outputs"])
    if top < FAILURE_POLY_MIN_DEGREE or poly is None:
        raise Missing("%s rows of orders up to %d or more in gaussian_hermite_failure.csv (this run stops at %d; run "
                      "it at the default scale)" % (table, FAILURE_POLY_MIN_DEGREE, top), field=True)

    def first(orders):
        vals = [(_f(by_order[n]["moment_failure_outputs"]), n) for n in orders
                if n in by_order and _f(by_order[n]["moment_failure_outputs"]) is not None]
        return min(vals) if vals else (None, None)

    moment, moment_order = first(range(1, moment_orders + 1))
    moment_all, moment_all_order = first(sorted(by_order))
    if moment is None:
        raise Missing("%s moment rows of orders ≤ %d in gaussian_hermite_failure.csv" % (table, moment_orders),
                      field=True)
    return FailureMeasures(poly, top, moment, moment_order, moment_orders, moment_all, moment_all_order)


def _measures_text(m):
    return "%s (worst polynomial test, degree ≤ %d); moment tests %s (orders ≤ %d, order %d fails first), %s " \
           "(orders ≤ %d, order %d)" % (fmt(m.polynomial), m.degree, fmt(m.moment), m.moment_orders, m.moment_order,
                                         fmt(m.moment_all), m.degree, m.moment_all_order)


def cpads_stored_failure(directory=REFERENCE_DIR):
    """The fifth value cpads stores beside its coefficients (ordinary_params[4], unread by the
    generator; figures/reference/gaussian_cpads_coefficients.csv, key params4), or None."""
    try:
        rows = _read_rows(os.path.join(directory, "gaussian_cpads_coefficients.csv"))
    except (OSError, ValueError):
        return None
    return next((_f(r["value"]) for r in rows if r.get("key") == "params4"), None)


def g_optimised_failure(ref, data):
    """Our re-optimised table against the article's 1.6e30, by the measure that gives the
    article's number on the article's own table (g_published_failure): the worst polynomial
    test; the moment tests of the listing's orders and the published table's numbers (when the
    CSV has its rows) are stated beside it."""
    m = failure_measures(data, "optimised", int(_paper(ref, "orders")))
    paper = _paper(ref, "outputs")
    outputs = m.polynomial
    ratio = outputs / paper
    try:
        pub = failure_measures(data, "article_published", int(_paper(ref, "orders")))
        beside = "; the article's published table by the same code: %s on the worst polynomial test (ours lasts %s " \
                 "as long) and %s on the moment tests of orders ≤ %d (ours %s)" % (
                     fmt(pub.polynomial), fx(outputs / pub.polynomial), fmt(pub.moment), m.moment_orders,
                     fx(m.moment / pub.moment))
    except Missing as e:
        beside = "; the article's published table: not measured (the results hold no %s)" % e.what
    if ratio >= 0.5:
        v = _v(REPRODUCED, "our optimised table needs %s the article's outputs to a 4σ failure of the worst polynomial "
                           "test of degree ≤ %d%s" % (fx(ratio), m.degree, beside))
    elif outputs >= _paper(ref, "initial_outputs") * 1e6:
        v = _v(IN_SHAPE, "the optimised table improves on the initial one by %s, less than the article's %s (worst "
                         "polynomial test of degree ≤ %d)%s" % (fx(outputs / _paper(ref, "initial_outputs")),
                                                               fx(paper / _paper(ref, "initial_outputs")), m.degree,
                                                               beside))
    else:
        v = _v(DIFFERS, "our optimised table fails a 4σ polynomial test of degree ≤ %d after %s outputs%s"
               % (m.degree, fmt(outputs), beside))
    return fmt(paper), _measures_text(m), ratio, v


def g_published_failure(ref, data):
    """The article's published table (cpads, typed into figures/reference/gaussian_cpads_*.csv)
    evaluated by our analytics (gaussian_hermite_failure, table "article_published"): does our
    code give the article's 1.6e30 for the article's own table? Within a factor 2 on the worst
    polynomial test (the article's loss) -> reproduced; the moment tests are stated beside it."""
    m = failure_measures(data, "article_published", int(_paper(ref, "orders")))
    paper = _paper(ref, "outputs")
    v, why = rule_within_factor(m.polynomial, paper, 2, "our analytics on the article's own table (worst "
                                                       "polynomial test of degree ≤ %d)" % m.degree)
    why += "; its moment tests of orders ≤ %d last %s (%s the article's number)" % (m.moment_orders, fmt(m.moment),
                                                                                  fx(m.moment / paper))
    stored = cpads_stored_failure()
    if stored:
        why += "; cpads stores %s beside the coefficients" % fmt(stored)
    return fmt(paper), _measures_text(m), m.polynomial / paper, (v, why)


GAUSSIAN_MOMENT_SD = {4: math.sqrt(105 - 9), 6: math.sqrt(10395 - 225), 8: math.sqrt(2027025 - 11025)}


def g_moments_2_38(ref, data):
    """The article's moment listing (initial table, 2^38 outputs) vs our exact discrepancies."""
    rows = {int(r["order"]): float(r["moment_discrepancy"]) for r in data.rows("gaussian_hermite_failure")
            if r["table"] == "inverse_cdf" and _f(r["moment_discrepancy"]) is not None}
    outputs = _paper(ref, "outputs")
    orders = sorted(int(k[6:]) for k in ref if k.startswith("moment"))
    if not all(o in rows for o in orders):
        raise Missing("inverse_cdf moment discrepancies of orders %s in gaussian_hermite_failure.csv" % orders,
                      field=True)
    ratios = {o: rows[o] / _paper(ref, "moment%d" % o) for o in orders}
    z = {o: rows[o] / (GAUSSIAN_MOMENT_SD[o] / math.sqrt(outputs)) for o in orders if o in GAUSSIAN_MOMENT_SD}
    paper_text = ", ".join("m%d %.3g" % (o, _paper(ref, "moment%d" % o)) for o in orders)
    ours_text = ", ".join("m%d %.3g (z = %.1f at 2^38)" % (o, rows[o], z.get(o, float("nan"))) for o in orders)
    if all(0.5 <= r <= 2 for r in ratios.values()):
        v = _v(REPRODUCED, "our exact discrepancies are %s the article's sampled ones; |z| > 4 at 2^38 for orders %s"
               % ("/".join(fx(ratios[o]) for o in orders), ", ".join(str(o) for o in z if abs(z[o]) > 4) or "none"))
    elif all(r > 0 for r in ratios.values()):
        v = _v(IN_SHAPE, "same signs; ratios %s" % "/".join(fx(ratios[o]) for o in orders))
    else:
        v = _v(DIFFERS, "signs or sizes disagree: ratios %s" % "/".join(fx(ratios[o]) for o in orders))
    return paper_text, ours_text, None, v


def parse_statistics_log(text, log2):
    """{order: z} and (N, tail count) of the 'test_gaussian_statistics, 2^log2' part of the log."""
    part = text.split("== test_gaussian_statistics, 2^%d" % log2)
    if len(part) < 2:
        return None
    body = part[1].split("\n== ")[0]
    z = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^\s+(\d+)\s+(-?[\d.]+)\s+-?[\d.]+\s+-?[\d.]+\s*$",
                                                                  body, re.M)}
    tail = re.search(r"\|x\| > 4: (\d+) outputs", body)
    return z, (2 ** log2, int(tail.group(1)) if tail else None)


def g_optimised_2_38(ref, data):
    name = LOG_FILES[0]
    parsed = parse_statistics_log(data.log(name), int(_paper(ref, "log2_outputs")))
    if not parsed or not parsed[0]:
        raise Missing("the 2^%d part of %s" % (int(_paper(ref, "log2_outputs")), name), field=True)
    z = parsed[0]
    worst = max(z, key=lambda o: abs(z[o]))
    limit = _paper(ref, "sigma")
    if abs(z[worst]) < limit:
        v = _v(REPRODUCED, "no Hermite z-score of orders 1–%d reaches %gσ at 2^%d GPU outputs (largest |z| = %.2f, "
                           "order %d)" % (max(z), limit, int(_paper(ref, "log2_outputs")), abs(z[worst]), worst))
    else:
        v = _v(DIFFERS, "order %d reaches |z| = %.2f at 2^%d outputs" % (worst, abs(z[worst]),
                                                                         int(_paper(ref, "log2_outputs"))))
    return "no 4σ failure before %s outputs" % fmt(_paper(ref, "failure_outputs")), \
        "max |z| = %.2f (order %d)" % (abs(z[worst]), worst), None, v


def g_tail_rate(ref, data):
    name = LOG_FILES[0]
    parsed = parse_statistics_log(data.log(name), 38) or parse_statistics_log(data.log(name), 36)
    if not parsed or parsed[1][1] is None:
        raise Missing("the |x| > 4 count in %s" % name, field=True)
    n, count = parsed[1]
    ours = n / count
    paper = _paper(ref, "one_in")
    v, why = rule_close(ours, paper, 0.01, "outputs per tail output")
    return "1 in %s" % fmt(paper), "1 in %s (%s of 2^%d)" % (fmt(ours), "{:,}".format(count), round(math.log2(n))), \
        ours / paper, (v, why)


def g_quanta(ref, data):
    meta = data.meta("gaussian_hermite_failure")
    keys = ("quantum_log2_three", "quantum_log2_four")
    if not all(k in meta for k in keys):
        raise Missing("%s in gaussian_hermite_failure.meta.json" % " and ".join(keys), field=True)
    ours = [int(float(meta[k])) for k in keys]
    paper = [int(_paper(ref, k)) for k in keys]
    return "2^%d / 2^%d" % tuple(paper), "2^%d / 2^%d" % tuple(ours), None, rule_equal(ours, paper, "quanta")


def g_practrand(ref, data):
    try:
        data.rows("gaussian_practrand")
    except Missing:
        note = ""
        if data.has("gaussian_dieharder"):
            dh = data.rows("gaussian_dieharder")
            failed = sum(1 for r in dh if r["assessment"] == "FAILED")
            note = "; dieharder ran instead: %d FAILED of %d result lines" % (failed, len(dh))
        return "no failure to 2^%d bytes" % _paper(ref, "log2_bytes"), "—", None, \
            _v(NOT_HERE, "gaussian_practrand.csv was not produced%s" % note)
    return "no failure to 2^%d bytes" % _paper(ref, "log2_bytes"), "present", None, \
        _v(NOT_HERE, "no rule reads gaussian_practrand.csv yet")


# --------------------------------------------------------------------------- VREN

def _ints(text):
    return [int(x) for x in str(text).split()]


def v_counts(ref, data):
    values, radix = _ints(_paper(ref, "input")), int(_paper(ref, "radix"))
    counts, offsets, _ = lsd_pass(values, radix, 0)
    paper = (_ints(_paper(ref, "counts")), _ints(_paper(ref, "offsets")))
    v = rule_equal((counts, offsets), paper, "counts and exclusive-scan offsets of the least significant digit")
    return "counts %s; offsets %s" % tuple(" ".join(map(str, x)) for x in paper), \
        "counts %s; offsets %s" % (" ".join(map(str, counts)), " ".join(map(str, offsets))), None, v


def v_passes_example(ref, data):
    values, radix = _ints(_paper(ref, "input")), int(_paper(ref, "radix"))
    _, _, first = lsd_pass(values, radix, 0)
    _, _, second = lsd_pass(first, radix, 1)
    paper = (_ints(_paper(ref, "after_pass1")), _ints(_paper(ref, "after_pass2")))
    v = rule_equal((first, second), paper, "arrays after the first and second pass")
    return "(%s) then (%s)" % tuple(" ".join(map(str, x)) for x in paper), \
        "(%s) then (%s)" % (" ".join(map(str, first)), " ".join(map(str, second))), None, v


def _vren_label(data, name):
    rows = [r for r in data.rows(name) if r["algorithm"] == "vren"]
    if not rows:
        raise Missing("vren rows in %s.csv" % name, field=True)
    return rows[0].get("label", ""), rows


def v_pass_count(key_bits, name):
    def compute(ref, data):
        label, _ = _vren_label(data, name)
        m = re.search(r"(\d+)-bit", label)
        if not m:
            raise Missing("the digit width in the vren label of %s.csv" % name, field=True)
        d = int(m.group(1))
        ours = -(-key_bits // d)
        paper = int(_paper(ref, "passes"))
        eq, why = rule_equal(ours, paper, "passes for %d-bit keys" % key_bits)
        return "%d passes" % paper, "%d passes (%d-bit digits, label “%s”)" % (ours, d, label), ours / paper, \
            rule_by_construction(eq == REPRODUCED, why, "⌈%d/d⌉ with d parsed from our own label of the VREN port"
                                 % key_bits)
    return compute


def v_workgroup(ref, data):
    label, _ = _vren_label(data, "onesweep_fig09_keys32")
    m = re.search(r"(\d+)-thread workgroup", label)
    if not m:
        raise Missing("the workgroup size in the vren label of onesweep_fig09_keys32.csv", field=True)
    eq, why = rule_equal(int(m.group(1)), int(_paper(ref, "threads")), "workgroup sizes")
    return "%d" % _paper(ref, "threads"), "%s (label “%s”)" % (m.group(1), label), None, \
        rule_by_construction(eq == REPRODUCED, why, "read from our own label of the VREN port")


def v_large_buffers(ref, data):
    label, rows = _vren_label(data, "onesweep_fig09_keys32")
    rows = sorted((int(r["n"]), float(r["keys_per_second"])) for r in rows if int(r["q"]) == 1)
    if len(rows) < 2:
        raise Missing("vren q = 1 rows at two sizes in onesweep_fig09_keys32.csv", field=True)
    (n0, r0), (n1, r1) = rows[0], rows[-1]
    grow = r1 / r0
    # Against CUB (best), the fastest CUB configuration per point, at the large (saturating) sizes.
    vs = [p for p in _speedups_vs_cub_best(data.rows("onesweep_fig09_keys32"), ours="vren")
          if p[2] == 1 and p[1] >= 2 ** SATURATING_LOG2]
    ours = "%s→%s GKey/s" % (fmt(r0 / 1e9), fmt(r1 / 1e9))
    if not vs:
        v = _v(NOT_HERE, "no CUB rows at q = 1, n ≥ 2^%d to compare VREN with (its throughput rises %s from n = %d to "
                         "n = %d)" % (SATURATING_LOG2, fx(grow), n0, n1))
        return "works well for large buffers (no number)", ours, None, v
    med, low, high = _median([p[0] for p in vs]), min(vs)[0], max(vs)[0]
    ours += "; %s–%s of CUB (best) at n ≥ 2^%d" % (fx(low), fx(high), SATURATING_LOG2)
    what = "at q = 1, n ≥ 2^%d (%d sizes) VREN reaches %s–%s CUB (best)'s keys/s (median %s)" % (
        SATURATING_LOG2, len(vs), fx(low), fx(high), fx(med))
    if low >= VREN_WORKS_WELL:
        v = _v(REPRODUCED, "%s, ≥ %g× at every size" % (what, VREN_WORKS_WELL))
    elif grow > 1:
        v = _v(IN_SHAPE, "large buffers are where it works best (throughput rises %s from n = %d to n = %d), but %s, "
                         "below the %g× that 'works well' is read as" % (fx(grow), n0, n1, what, VREN_WORKS_WELL))
    else:
        v = _v(DIFFERS, "%s and its throughput falls %s from n = %d to n = %d" % (what, fx(grow), n0, n1))
    return "works well for large buffers (no number)", ours, None, v


# --------------------------------------------------------------------------- issue 32 §2: the remaining statements
# Readings of words these statements use without a number (ours, stated in the reasons):
NOT_GREATLY = 1.5          # "do not differ greatly" (shuffle paper, Fig. 10): best case within 1.5x of the worst case
REDUNDANT_WORK = 2.0       # the worst case (n = 2^w + 1) evaluates the bijection over a domain of 2^(w+1): ~2x the work
PEAK_WINDOW = 1            # "peaks around 2^20": within one doubling, 2^19 ... 2^21
APPROACHING_PEAK = 0.8     # "approaching peak device bandwidth": >= 80 % of the device-to-device copy's bytes/s
INSENSITIVE = 1.25         # "relatively insensitive to d" (Onesweep Table 2): slowest / fastest histogram <= 1.25
SLIGHT_SLOWDOWN = 0.10     # "will slightly slow down" (Gaussian article): the 4-coefficient form loses at most 10 %


def _timed_rate(row, rate_key="items_per_second", count_key="n"):
    """(slowest, median, fastest) items/s of a timed row: count / seconds_max, the median rate, count / seconds_min
    (the median alone where the row has no repetition range)."""
    med = float(row[rate_key])
    count, t_max, t_min = _f(row.get(count_key)), _f(row.get("seconds_max")), _f(row.get("seconds_min"))
    if count and t_max and t_min:
        return min(count / t_max, med), med, max(count / t_min, med)
    return med, med, med


def _fig10(data):
    """{(algorithm, case, log2_size): row} of fig10_fusion."""
    return {(r["algorithm"], r["case"], int(r["log2_size"])): r for r in data.rows("fig10_fusion")}


FUSION_VARIANTS = [("variable_philox_bijective0", "Bijective0"), ("variable_philox_bijective1", "Bijective1"),
                   ("variable_philox", "Bijective2")]


def sp_fusion_order(ref, data):
    rows = _fig10(data)
    points = sorted({(k[1], k[2]) for k in rows if all((a, k[1], k[2]) in rows for a, _ in FUSION_VARIANTS)},
                    key=lambda p: (p[1], p[0]))
    if not points:
        raise Missing("Bijective0/1/2 rows at a common size in fig10_fusion.csv", field=True)
    med_bad, rep_bad, b2_not_first = [], [], []
    for case, w in points:
        r = [_timed_rate(rows[(a, case, w)]) for a, _ in FUSION_VARIANTS]
        if not r[2][1] > r[1][1] > r[0][1]:
            med_bad.append((case, w, r))
        if not (r[2][0] > r[1][2] and r[1][0] > r[0][2]):
            rep_bad.append((case, w))
        if not r[2][1] > max(r[0][1], r[1][1]):
            b2_not_first.append((case, w))
    n = len(points)
    ours = "B2 > B1 > B0 at %d of %d points (median)" % (n - len(med_bad), n)
    where = ", ".join("2^%d %s" % (w, case) for case, w, _ in med_bad)
    if med_bad:
        case, w, r = med_bad[-1]
        where += " (at 2^%d %s: B0 %s, B1 %s, B2 %s G items/s)" % (w, case, fmt(r[0][1] / 1e9), fmt(r[1][1] / 1e9),
                                                                   fmt(r[2][1] / 1e9))
        above = [p for p in points if p[1] > med_bad[-1][1]]
        if above:
            where += "; above 2^%d it holds at the median at all %d points" % (med_bad[-1][1], len(above))
    more = ""
    if not rep_bad:
        v = _v(REPRODUCED, "Bijective2 > Bijective1 > Bijective0 at all %d points (sizes 2^%d–2^%d, both cases), over "
                           "every repetition" % (n, points[0][1], points[-1][1]))
    elif not med_bad:
        v = _v(IN_SHAPE, "the order holds at the median at all %d points, but the repetitions do not decide it at %d"
               % (n, len(rep_bad)))
    elif not b2_not_first and len(med_bad) * 2 < n:
        v = _v(IN_SHAPE, "Bijective2 is the fastest of the three at all %d points, but Bijective1 is not faster than "
                         "Bijective0 at %d of them: %s%s" % (n, len(med_bad), where, more))
    else:
        v = _v(DIFFERS, "the order fails at %d of %d points (Bijective2 not the fastest at %d): %s%s"
               % (len(med_bad), n, len(b2_not_first), where, more))
    return "Bijective2 > Bijective1 > Bijective0", ours, None, v


def sp_best_worst(ref, data):
    rows = _fig10(data)
    pts = []
    for (a, case, w), best in rows.items():
        if a == "variable_philox" and case == "best" and ("variable_philox", "worst", w) in rows:
            b, x = _timed_rate(best), _timed_rate(rows[("variable_philox", "worst", w)])
            pts.append((b[1] / x[1], b[2] / x[0], w))
    if not pts:
        raise Missing("variable_philox best and worst case rows in fig10_fusion.csv", field=True)
    pts.sort(key=lambda p: p[2])
    top = max(pts)
    top_rep = max(pts, key=lambda p: p[1])
    med = _median([p[0] for p in pts])
    above = [p for p in pts if p[0] > NOT_GREATLY]
    ours = "best / worst %s at the median size, up to %s at 2^%d" % (fx(med), fx(top[0]), top[2])
    text = "Bijective2's best case (n = 2^w) over its worst (n = 2^w + 1) is %s–%s over sizes 2^%d–2^%d (median " \
           "%s); largest %s at 2^%d (%s in the least favourable pairing of repetitions, at 2^%d)%s" % (
               fx(min(pts)[0]), fx(top[0]), pts[0][2], pts[-1][2], fx(med), fx(top[0]), top[2], fx(top_rep[1]),
               top_rep[2], "; above %g× at %s" % (NOT_GREATLY, ", ".join("2^%d (%s)" % (p[2], fx(p[0]))
                                                                         for p in above)) if above else "")
    if top_rep[1] <= NOT_GREATLY:
        v = _v(REPRODUCED, "%s, within the %g× read as 'not greatly' over every repetition" % (text, NOT_GREATLY))
    elif top[0] < REDUNDANT_WORK:
        v = _v(IN_SHAPE, "%s: below the %g× of the worst case's doubled domain everywhere, so the redundant elements "
                         "cost less than real ones as the paper explains, but not within %g× at every size"
               % (text, REDUNDANT_WORK, NOT_GREATLY))
    else:
        v = _v(DIFFERS, "%s, reaching the %g× of evaluating the doubled domain" % (text, REDUNDANT_WORK))
    return "do not differ greatly (no number)", ours, None, v


def sp_gather_peak(ref, data):
    rows = _fig10(data)
    paper = int(_paper(ref, "peak_log2"))
    parts, verdicts = [], []
    for case in ("worst", "best"):
        g = {w: _timed_rate(r) for (a, c, w), r in rows.items() if a == "gather" and c == case}
        if not g:
            continue
        peak = max(g, key=lambda w: g[w][1])
        # Sizes the repetitions cannot tell from the peak: their fastest repetition reaches its slowest.
        tied = sorted(w for w in g if g[w][2] >= g[peak][0])
        second = max((w for w in g if w != peak), key=lambda w: g[w][1], default=None)
        gap = " (next 2^%d at %s of it)" % (second, fx(g[second][1] / g[peak][1])) if second is not None else ""
        parts.append("%s case: peak at 2^%d, %s G items/s%s%s" % (case, peak, fmt(g[peak][1] / 1e9), gap,
                                                                 "; undecided against 2^%s" % ", 2^".join(
                                                                     str(w) for w in tied if w != peak)
                                                                 if len(tied) > 1 else ""))
        if all(abs(w - paper) <= PEAK_WINDOW for w in tied):
            verdicts.append(REPRODUCED)
        elif abs(peak - paper) <= PEAK_WINDOW:
            verdicts.append(IN_SHAPE)
        else:
            verdicts.append(DIFFERS)
    if not verdicts:
        raise Missing("gather rows in fig10_fusion.csv", field=True)
    l2 = _f(data.meta("fig10_fusion").get("gpu_l2_bytes"))
    text = "; ".join(parts) + ("; L2 %s MiB on %s" % (fmt(l2 / 2 ** 20), data.machine("fig10_fusion")) if l2 else "")
    window = "2^%d–2^%d" % (paper - PEAK_WINDOW, paper + PEAK_WINDOW)
    ours = ", ".join(p.split(",")[0] for p in parts)
    if all(v == REPRODUCED for v in verdicts):
        return "≈ 2^%d" % paper, ours, None, _v(REPRODUCED, "within %s, decided by the repetitions: %s" % (window, text))
    if DIFFERS not in verdicts:
        return "≈ 2^%d" % paper, ours, None, _v(IN_SHAPE, "the median peak lies within %s, but the repetitions leave "
                                                          "a size outside it undecided: %s" % (window, text))
    return "≈ 2^%d" % paper, ours, None, _v(DIFFERS, "the peak lies outside %s: %s" % (window, text))


def copy_bandwidth(meta):
    """{log2_size: bytes/s} of the device-to-device copy a GPU shuffle meta.json records
    ("copy_bytes_per_second_by_log2_size": "8:1.2e+09 11:8.8e+09 ... (note)"), {} when absent."""
    text = meta.get("copy_bytes_per_second_by_log2_size") or ""
    return {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"(\d+):([\d.]+(?:e[+-]?\d+)?)", text)}


ELEMENT_BYTES = {"uint32": 4, "uint64": 8, "float32": 4, "float64": 8}


def sp_peak_bandwidth(ref, data):
    meta = data.meta("table1_gpu_shuffle")
    copy = copy_bandwidth(meta)
    log2 = _largest(data, "table1_gpu_shuffle")
    vp, g = _shuffle_rate(data, "table1_gpu_shuffle", "VarPhilox", log2), \
        _shuffle_rate(data, "table1_gpu_shuffle", "Gather", log2)
    if not vp or not g:
        raise Missing("VarPhilox and Gather rows at %s in table1_gpu_shuffle.csv" % _size_text(log2), field=True)
    if log2 not in copy:
        raise Missing("a copy bandwidth at 2^%d (copy_bytes_per_second_by_log2_size) in table1_gpu_shuffle.meta.json"
                      % log2, field=True)
    elem = ELEMENT_BYTES.get(meta.get("element_type", ""))
    if elem is None:
        raise Missing("the element_type in table1_gpu_shuffle.meta.json", field=True)
    moved = 2 * elem * vp  # one read and one write per item: the paper's "single global memory read and write"
    frac, of_gather = moved / copy[log2], vp / g
    ours = "%s GB/s moved vs %s GB/s copy (%s); %s of Gather" % (fmt(moved / 1e9), fmt(copy[log2] / 1e9), fx(frac),
                                                                 fx(of_gather))
    text = "VarPhilox at %s moves %s GB/s (%d bytes per item, one %d-byte read and write) against the %s GB/s of a " \
           "device-to-device copy of the same size on %s: %s; it reaches %s of the random gather" % (
               _size_text(log2), fmt(moved / 1e9), 2 * elem, elem, fmt(copy[log2] / 1e9),
               data.machine("table1_gpu_shuffle"), fx(frac), fx(of_gather))
    if frac >= APPROACHING_PEAK:
        v = _v(REPRODUCED, "%s (≥ %g× read as 'approaching')" % (text, APPROACHING_PEAK))
    elif of_gather >= FUSION_EQUIVALENT:
        v = _v(IN_SHAPE, "%s: it approaches the random-gather bound the paper posits as the peak of any shuffle (§2), "
                         "not the copy bandwidth (< %g×)" % (text, APPROACHING_PEAK))
    else:
        v = _v(DIFFERS, "%s: below %g× of the copy and %g× of the gather" % (text, APPROACHING_PEAK, FUSION_EQUIVALENT))
    return "approaching peak bandwidth (no number)", ours, None, v


def sp_gather_scatter(ref, data):
    rows = data.rows("table1_gpu_shuffle")
    algs = sorted({r["algorithm"] for r in rows})
    rate = {}
    for r in rows:
        if r["algorithm"] in ("gather", "scatter"):
            rate.setdefault(int(r["log2_size"]), {})[r["algorithm"]] = _timed_rate(r)
    pts = sorted(w for w, x in rate.items() if len(x) == 2)
    if not pts:
        return "gather > scatter", "no scatter rows", None, _v(
            NOT_HERE, "no recorded experiment times a random scatter: table1_gpu_shuffle.csv holds %s" % ", ".join(algs))
    ratios = [(rate[w]["gather"][1] / rate[w]["scatter"][1], w) for w in pts]
    slower = [w for r, w in ratios if r <= 1]
    undecided = [w for w in pts if rate[w]["gather"][0] <= rate[w]["scatter"][2]]
    text = "gather / scatter %s–%s over 2^%d–2^%d" % (fx(min(ratios)[0]), fx(max(ratios)[0]), pts[0], pts[-1])
    if slower:
        v = _v(DIFFERS, "%s; gather is not faster at 2^%s" % (text, ", 2^".join(map(str, slower))))
    elif undecided:
        v = _v(IN_SHAPE, "%s; the repetitions do not decide it at 2^%s" % (text, ", 2^".join(map(str, undecided))))
    else:
        v = _v(REPRODUCED, "%s, faster at every size over every repetition" % text)
    return "gather > scatter", text, None, v


def sp_working_memory(ref, data):
    rows = data.rows("table1_gpu_shuffle")
    if "temp_bytes" not in rows[0]:
        return "none vs O(n)", "—", None, _v(
            NOT_HERE, "the working memory of each shuffle is not recorded: table1_gpu_shuffle.csv has no temp_bytes "
                      "column (its columns: %s), and the GPU shuffles query their temporary storage at run time "
                      "without writing it down" % ", ".join(rows[0]))
    mem = {}
    for r in rows:
        lab = sr.GPU_DISPLAY.get(r["algorithm"]) or r.get("label")
        if lab in ("VarPhilox", "DartThrowing", "SortShuffle") and _f(r["temp_bytes"]) is not None:
            mem.setdefault(lab, {})[int(r["n"])] = float(r["temp_bytes"])
    if "VarPhilox" not in mem or not any(p in mem for p in ("DartThrowing", "SortShuffle")):
        raise Missing("temp_bytes of VarPhilox and a peer in table1_gpu_shuffle.csv", field=True)
    n_big = max(mem["VarPhilox"])
    ours = mem["VarPhilox"][n_big]
    peers = {}
    for p in ("DartThrowing", "SortShuffle"):
        if p in mem and len(mem[p]) >= 2:
            lo, hi = min(mem[p]), max(mem[p])
            growth = (mem[p][hi] / mem[p][lo]) / (hi / lo) if mem[p][lo] > 0 else float("inf")
            peers[p] = (mem[p][hi] / hi, growth)
    text = "VarPhilox %s bytes at n = %d (%s per item); %s" % (fmt(ours), n_big, fmt(ours / n_big), "; ".join(
        "%s %s bytes per item at its largest n, growing %s as fast as n" % (p, fmt(b), fx(gr))
        for p, (b, gr) in peers.items()))
    linear = peers and all(gr >= 0.5 for _, gr in peers.values())
    if ours == 0 and linear:
        v = _v(REPRODUCED, text)
    elif linear and ours / n_big <= min(b for b, _ in peers.values()) / 16:
        v = _v(IN_SHAPE, "%s: ours is not none, but at most 1/16 of the peers' bytes per item" % text)
    else:
        v = _v(DIFFERS, text)
    return "none vs O(n)", "%s bytes at n = %d" % (fmt(ours), n_big), None, v


def _mmd_passed(ref):
    def passed(r):
        col = "passes_normal" if int(float(r["samples"])) >= int(_paper(ref, "hoeffding_below")) else \
            "passes_hoeffding"
        return _passes(r[col])
    return passed


def sp_lcg_mmd(ref, data):
    reps = data.replicates("fig07_09_mmd")
    passed = _mmd_passed(ref)
    tests = [(k, r) for k, rows in enumerate(reps) for r in rows if sr.paper_label(r["algorithm"]) == "LCG"]
    if not tests:
        raise Missing("LCG rows in fig07_09_mmd.csv", field=True)
    by_n = collections.OrderedDict()
    for k, r in sorted(tests, key=lambda t: int(t[1]["n"])):
        by_n.setdefault(int(r["n"]), []).append((k, r))
    seeds = " over %d seeds" % len(reps) if len(reps) > 1 else ""
    parts, every_n, all_fail = [], True, True
    for n, ts in by_n.items():
        fails = [t for t in ts if not passed(t[1])]
        samples = sorted({int(float(t[1]["samples"])) for t in ts})
        cols = sorted({"normal" if x >= int(_paper(ref, "hoeffding_below")) else "Hoeffding" for x in samples})
        parts.append("n = %d: %d of %d fail (%s threshold, %s samples)" % (n, len(fails), len(ts), "/".join(cols),
                                                                         "/".join("{:,}".format(x) for x in samples)))
        every_n &= bool(fails)
        all_fail &= len(fails) == len(ts)
    text = "; ".join(parts) + seeds
    ours = "%d of %d fail%s" % (sum(1 for _, r in tests if not passed(r)), len(tests), seeds)
    if all_fail:
        v = _v(REPRODUCED, "every MMD test of the LCG fails: %s" % text)
    elif every_n:
        v = _v(IN_SHAPE, "the LCG fails at every length, but not every form of the test: %s" % text)
    else:
        v = _v(DIFFERS, "the LCG passes every test at some length: %s" % text)
    return "fails", ours, None, v


def os_merge_passes(ref, data):
    n, sublist = int(_paper(ref, "n")), int(_paper(ref, "sublist"))
    d = int(_paper(ref, "digit_bits"))
    passes = [int(r["passes"]) for r in data.rows("onesweep_table2_digit_width") if int(r["digit_bits"]) == d]
    if not passes:
        raise Missing("digit_bits = %d in onesweep_table2_digit_width.csv" % d, field=True)
    merge = 1 + math.ceil(math.log2(n / sublist))
    ours = 1 + passes[0]
    agrees = merge == int(_paper(ref, "merge_passes")) and ours == int(_paper(ref, "onesweep_passes"))
    v = rule_by_construction(agrees, "1 + log2(%s / %s) = %d passes of a binary merge sort bootstrapped with "
                             "%s-key sublists, 1 + p = %d for ours (p = %d partition passes of %d-bit digits)"
                             % (fmt(n), fmt(sublist), merge, fmt(sublist), ours, passes[0], d),
                             "pass counts from the formula and our own pass count; no merge sort is timed here and "
                             "the passes through global memory are not measured")
    return "~%d vs %d passes" % (int(_paper(ref, "merge_passes")), int(_paper(ref, "onesweep_passes"))), \
        "%d vs %d passes" % (merge, ours), None, v


def os_histogram_insensitive(ref, data):
    rows = [r for r in data.rows("onesweep_table2_digit_width") if r["phase"] == "histogram"]
    if len(rows) < 2:
        raise Missing("histogram rows at two digit widths in onesweep_table2_digit_width.csv", field=True)
    rows.sort(key=lambda r: int(r["digit_bits"]))
    med = {int(r["digit_bits"]): float(r["microseconds_median"]) for r in rows}
    t_min = {int(r["digit_bits"]): _f(r.get("microseconds_min")) or med[int(r["digit_bits"])] for r in rows}
    t_max = {int(r["digit_bits"]): _f(r.get("microseconds_max")) or med[int(r["digit_bits"])] for r in rows}
    spread = max(med.values()) / min(med.values())
    spread_lo = max(t_min.values()) / min(t_max.values())  # the least spread the repetitions allow
    spread_hi = max(t_max.values()) / min(t_min.values())  # the largest
    paper = [float(r["histogram_us"]) for r in _read_rows(os.path.join(REFERENCE_DIR, "onesweep_table2_digit_width.csv"))]
    paper_spread = max(paper) / min(paper)
    ds = sorted(med)
    per_place = ", ".join("%s" % fmt(med[d] / int(r["passes"])) for d, r in zip(ds, rows))
    text = "our histogram kernel takes %s µs at d = %d and %s µs at d = %d (slowest / fastest %s, at least %s over " \
           "the repetitions), the paper's %s–%s µs (%s); ours per digit place: %s µs" % (
               fmt(med[ds[0]]), ds[0], fmt(med[ds[-1]]), ds[-1], fx(spread), fx(spread_lo), fmt(min(paper)),
               fmt(max(paper)), fx(paper_spread), per_place)
    ours = "%s→%s µs (%s)" % (fmt(med[ds[0]]), fmt(med[ds[-1]]), fx(spread))
    if spread_hi <= INSENSITIVE:
        v = _v(REPRODUCED, "%s, within %g× over every repetition" % (text, INSENSITIVE))
    elif spread <= INSENSITIVE:
        v = _v(IN_SHAPE, "%s: within %g× at the median, not over every repetition" % (text, INSENSITIVE))
    else:
        v = _v(DIFFERS, "%s: beyond the %g× read as 'relatively insensitive', it falls as the digit places it counts "
                        "fall" % (text, INSENSITIVE))
    return "%s–%s µs (%s)" % (fmt(min(paper)), fmt(max(paper)), fx(paper_spread)), ours, spread / paper_spread, v


def _skew_ratios(rows, q):
    """{n: (least, median, most) of onesweep's q / q = 1 throughput} at saturating n."""
    on = {(int(r["q"]), int(r["n"])): _timed_rate(r, "keys_per_second") for r in rows if r["algorithm"] == "onesweep"}
    return {n: (on[(q, n)][0] / on[(1, n)][2], on[(q, n)][1] / on[(1, n)][1], on[(q, n)][2] / on[(1, n)][0])
            for (qq, n) in on if qq == 1 and (q, n) in on and n >= 2 ** SATURATING_LOG2}


def os_skew_64(ref, data):
    q = int(_paper(ref, "q"))
    r32 = _skew_ratios(data.rows("onesweep_fig09_keys32"), q)
    r64 = _skew_ratios(data.rows("onesweep_fig11_keys64"), q)
    common = sorted(set(r32) & set(r64))
    if not common:
        raise Missing("onesweep q = 1 and q = %d rows at n ≥ 2^%d in both onesweep_fig09_keys32.csv and "
                      "onesweep_fig11_keys64.csv" % (q, SATURATING_LOG2), field=True)
    m32, m64 = _median([r32[n][1] for n in common]), _median([r64[n][1] for n in common])
    drop32, drop64 = 1 - m32, 1 - m64
    paper32 = 1 - _paper(ref, "gkeys_q") / _paper(ref, "gkeys_q1")
    decided = [n for n in common if r64[n][0] >= r32[n][2]]
    at_least = sum(1 for n in common if r64[n][1] >= r32[n][1])

    def change(d):
        return "a %.1f %% drop" % (100 * d) if d > 0 else "a %.1f %% gain" % (-100 * d)
    text = "from q = 1 to q = %d onesweep shows %s on 64-bit keys and %s on 32-bit keys (median over %d sizes n ≥ " \
           "2^%d; the paper's 32-bit drop %.1f %%); 64-bit no worse at %d of %d sizes, decided by the repetitions at " \
           "%d" % (q, change(drop64), change(drop32), len(common), SATURATING_LOG2, 100 * paper32, at_least,
                   len(common), len(decided))
    ours = "64-bit %s, 32-bit %s" % (change(drop64), change(drop32))
    if drop64 > drop32:
        v = _v(DIFFERS, "%s: the 64-bit drop is larger" % text)
    elif len(decided) == len(common) and drop32 > 0:
        v = _v(REPRODUCED, text)
    else:
        why = "neither drops, so 'even smaller' holds only as 'no larger'" if drop32 <= 0 else \
            "the repetitions do not decide it at every size"
        v = _v(IN_SHAPE, "%s: %s" % (text, why))
    return "64-bit drop < 32-bit drop (%.1f %%)" % (100 * paper32), ours, None, v


def g_fma_cost(ref, data):
    row4, row3 = _gauss_row(data, "ours_register_4"), _gauss_row(data, "ours_register_3")
    if row4 is None or row3 is None:
        raise Missing("ours_register_3 and ours_register_4 in gaussian_throughput.csv", field=True)
    r4 = _timed_rate(row4, "outputs_per_second", "outputs")
    r3 = _timed_rate(row3, "outputs_per_second", "outputs")
    lo, med, hi = r4[0] / r3[2], r4[1] / r3[1], r4[2] / r3[0]
    text = "4 coefficients %s G/s vs 3 coefficients %s G/s on %s: %s (repetitions %s–%s)" % (
        fmt(r4[1] / 1e9), fmt(r3[1] / 1e9), data.machine("gaussian_throughput"), fx(med), fx(lo), fx(hi))
    ours = "%s vs %s G/s (%s)" % (fmt(r4[1] / 1e9), fmt(r3[1] / 1e9), fx(med))
    if hi < 1 and lo >= 1 - SLIGHT_SLOWDOWN:
        v = _v(REPRODUCED, "%s: slower over every repetition, by at most %g %%" % (text, 100 * SLIGHT_SLOWDOWN))
    elif med < 1 and med >= 1 - SLIGHT_SLOWDOWN:
        v = _v(IN_SHAPE, "%s: slower at the median, but the repetitions do not decide it" % text)
    elif med >= 1:
        v = _v(DIFFERS, "%s: the extra FMA costs nothing measurable" % text)
    else:
        v = _v(DIFFERS, "%s: more than the %g %% read as 'slightly'" % (text, 100 * SLIGHT_SLOWDOWN))
    return "slightly slower (no number)", ours, None, v


def g_tail_9_5(ref, data):
    sigma, log2_n = _paper(ref, "sigma"), int(_paper(ref, "log2_outputs"))
    p = math.erfc(sigma / math.sqrt(2))
    ours = 2 ** log2_n * p
    close, why = rule_close(ours, _paper(ref, "expected"), 0.001, "2^%d × P(|Z| > %g) = %s" % (log2_n, sigma, fmt(ours)))
    largest = ""
    if LOG_FILES[0] in data.logs:
        logged = [int(m) for m in re.findall(r"== test_gaussian_statistics, 2\^(\d+)", data.log(LOG_FILES[0]))]
        if logged:
            largest = "; our largest recorded run, 2^%d outputs (%s), expects %s such outputs and counts only " \
                      "|x| > 4" % (max(logged), LOG_FILES[0], fmt(2 ** max(logged) * p))
    v = rule_by_construction(close == REPRODUCED, why, "the normal tail recomputed, not a count of our outputs: no "
                             "run draws 2^%d outputs%s" % (log2_n, largest))
    return fmt(_paper(ref, "expected")), "%s (formula)" % fmt(ours), ours / _paper(ref, "expected"), v


def v_32bit_only(ref, data):
    if not data.has("onesweep_fig11_keys64"):
        raise Missing("onesweep_fig11_keys64.csv")
    rows = [r for r in data.rows("onesweep_fig11_keys64") if r["algorithm"] == "vren"]
    check = data.meta("onesweep_fig11_keys64").get("check", "")
    if not rows:
        port = "our port of it was not run on 64-bit keys (no vren rows in onesweep_fig11_keys64.csv)"
        ours = "no 64-bit rows"
    else:
        ns = sorted({int(r["n"]) for r in rows})
        port = "the algorithm it describes is not limited to 32 bits (the article itself counts 16 runs for 64-bit " \
               "keys), and our CUDA port of it sorts 64-bit keys: %d vren rows of onesweep_fig11_keys64.csv, n = " \
               "%d–%d%s" % (len(rows), ns[0], ns[-1], ", each output checked" if check else "")
        ours = "our port sorts 64-bit keys (%d rows)" % len(rows)
    return "32-bit keys only", ours, None, _v(
        NOT_HERE, "the constraint is one of VREN's own (Vulkan) code, which is not built here; %s" % port)


VREN_SOURCE = os.path.join("baselines", "include", "onepass_baselines", "gpu", "vren_radix_sort.cuh")


def vren_temp_keys(text):
    """The temporary-storage layout of our VREN port (its header's text): the number of key
    elements its alternate key buffer holds, as the expression it is sized with ('n' when it
    is n keys), or None when the layout names no such buffer."""
    m = re.search(r"alt_keys\s*=\s*t\.add\(\s*(\w+)\s*\*\s*key_size\s*\)", text)
    return m.group(1) if m else None


def v_temp_buffer(ref, data):
    path = os.path.join(REPO, VREN_SOURCE)
    if not os.path.isfile(path):
        raise Missing(VREN_SOURCE)
    with open(path) as f:
        keys = vren_temp_keys(f.read())
    v = rule_by_construction(keys == "n", "our port's temporary storage holds an alternate key buffer of %s keys "
                             "(%s)" % (keys or "no", VREN_SOURCE), "a property of our port's code, read from its "
                             "source, not a measured allocation")
    return "a temporary array ≥ the input", "%s keys" % (keys or "none"), None, v


# --------------------------------------------------------------------------- registry

Claim = collections.namedtuple("Claim", "id seed statement compute")

CLAIMS = [
    # bijective-shuffle paper
    Claim("sp_orders", "shuffle_paper", "The bijective shuffle beats competing GPU shuffles by one to two orders of "
          "magnitude", sp_orders_of_magnitude),
    Claim("sp_chi2_rounds", "shuffle_paper", "VariablePhilox passes the χ² test (n = 5) from about 20 rounds",
          sp_chi2_rounds),
    Claim("sp_lcg_chi2", "shuffle_paper", "The LCG bijection fails χ² badly (statistic about 500,000)", sp_lcg_chi2),
    Claim("sp_mmd_24", "shuffle_paper", "At 24 rounds VariablePhilox passes the MMD tests for n = 5, 100, 1000",
          sp_mmd_24),
    Claim("sp_fig10_fused", "shuffle_paper", "Above 2^21 the fused bijective shuffle is about as fast as Gather",
          sp_fig10_fused),
    Claim("sp_table1_ranking", "shuffle_paper", "GPU throughput order at 2^29+1: Gather, VarPhilox, LCG, then "
          "DartThrowing and SortShuffle", sp_table1_ranking),
    Claim("sp_table1_absolute", "shuffle_paper", "VarPhilox shuffles about 4,018 M items/s at 2^29+1 (V100)",
          sp_table1_absolute),
    Claim("sp_gpu_10x", "shuffle_paper", "On the GPU, VarPhilox is over an order of magnitude faster than "
          "DartThrowing and SortShuffle", sp_gpu_10x),
    Claim("sp_table2_ranking", "shuffle_paper", "CPU throughput order of the shuffles (Table 2) at the largest common "
          "size", sp_table2_ranking),
    Claim("sp_gather_scatter", "shuffle_paper", "Random gather has a higher bandwidth than random scatter",
          sp_gather_scatter),
    Claim("sp_fusion_order", "shuffle_paper", "More kernel fusion is faster: Bijective2 > Bijective1 > Bijective0 "
          "(Fig. 10)", sp_fusion_order),
    Claim("sp_best_worst", "shuffle_paper", "Best case (n = 2^w) and worst case (n = 2^w + 1) do not differ greatly "
          "(Fig. 10)", sp_best_worst),
    Claim("sp_gather_peak", "shuffle_paper", "Random gather's throughput peaks around 2^20 (Fig. 10)", sp_gather_peak),
    Claim("sp_peak_bandwidth", "shuffle_paper", "The bijective shuffle approaches peak device bandwidth",
          sp_peak_bandwidth),
    Claim("sp_working_memory", "shuffle_paper", "The bijective shuffle needs no global working memory; DartThrowing "
          "and SortShuffle need O(n)", sp_working_memory),
    Claim("sp_lcg_mmd", "shuffle_paper", "The LCG bijection fails the MMD tests (Figs. 7–9)", sp_lcg_mmd),
    # summary card
    Claim("ss_v100_table", "shuffle_summary", "V100 table: bijective shuffle 4,018 M items/s at 2^29+1",
          ss_v100_table),
    Claim("ss_91pct", "shuffle_summary", "The bijective shuffle reaches 91 % of the random-gather ceiling",
          ss_fraction_of_gather),
    Claim("ss_within_2x", "shuffle_summary", "Within 2× of the random-gather bound at large sizes", ss_within_2x),
    Claim("ss_30x", "shuffle_summary", "30× faster than sort-based shuffling", ss_vs_sort),
    Claim("ss_epoch", "shuffle_summary", "At 2^29 items: about 130 ms vs 4.2 s for sort-based (32×)", ss_epoch_times),
    Claim("ss_10_100x", "shuffle_summary", "10–100× faster than sort-based or dart-throwing shuffles", ss_10_100x),
    Claim("ss_rtx2080", "shuffle_summary", "RTX 2080 table at 2^26+1: bijective 2,233 vs gather 2,096 M items/s",
          ss_rtx2080),
    Claim("ss_bigcrush", "shuffle_summary", "VariablePhilox with 24 rounds passes BigCrush", ss_bigcrush),
    Claim("ss_24_rounds", "shuffle_summary", "24 rounds are recommended (enough for the statistical tests)",
          ss_24_rounds),
    # Onesweep
    Claim("os_headline", "onesweep", "29.4 GKey/s for 256M random uint32 keys on an A100", os_headline),
    Claim("os_speedup", "onesweep", "1.4–1.6× over CUB 1.10 at saturating sizes (about 1.5× in the abstract)",
          os_speedup_range),
    Claim("os_unilateral_fig9", "onesweep", "Faster than CUB 1.10 at every size and band: 32-bit keys (Fig. 9)",
          _unilateral("onesweep_fig09_keys32")),
    Claim("os_unilateral_fig10", "onesweep", "Faster than CUB 1.10 everywhere: 32-bit pairs (Fig. 10)",
          _unilateral("onesweep_fig10_pairs32")),
    Claim("os_unilateral_fig11", "onesweep", "Faster than CUB 1.10 everywhere: 64-bit keys (Fig. 11)",
          _unilateral("onesweep_fig11_keys64")),
    Claim("os_ceiling", "onesweep", "The speed-up ceiling for 32-bit keys is 1.67×", os_ceiling),
    Claim("os_traffic", "onesweep", "8-bit digits on 32-bit keys cut memory accesses 1.33× (3p/(2p+1))", os_traffic),
    Claim("os_q8", "onesweep", "Consistent under skew: only 5 % slower at q = 8 (28 vs 29.4 GKey/s)", os_q8),
    Claim("os_q16", "onesweep", "Up to 36 GKey/s at q = 16 (mostly homogeneous tiles)", os_q16),
    Claim("os_table1", "onesweep", "Table 1: entropy per key bit of the bands q = 1…16", os_table1),
    Claim("os_table2_passes", "onesweep", "Table 2: partition passes for 5–9-bit digits", os_table2_passes),
    Claim("os_table2_best", "onesweep", "Table 2: 8-bit digits give the lowest partition time per bit",
          os_table2_best_width),
    Claim("os_table2_absolute", "onesweep", "Table 2: one 8-bit partition pass of 256M keys takes 1,995 µs",
          os_table2_absolute),
    Claim("os_hrs", "onesweep", "HRS slows sharply above about 550M keys (Fig. 9a)", os_hrs),
    Claim("os_merge_passes", "onesweep", "A merge sort of 16M 32-bit keys needs ~10 passes through global memory, "
          "Onesweep five", os_merge_passes),
    Claim("os_histogram_d", "onesweep", "Table 2: the upfront histogram kernel is relatively insensitive to the digit "
          "width d", os_histogram_insensitive),
    Claim("os_skew_64", "onesweep", "The throughput drop under skew (q = 1 to 8) is even smaller for 64-bit keys",
          os_skew_64),
    # warp Gaussian article
    Claim("g_throughput", "gaussian", "121 billion Gaussians per second on a V100", g_throughput),
    Claim("g_faster_than_memory", "gaussian", "Generating is faster than loading precomputed doubles from memory",
          g_faster_than_memory),
    Claim("g_moments_2_38", "gaussian", "Initial table, 2^38 outputs: the higher even moments fail (listing of "
          "moments 4, 6, 8)", g_moments_2_38),
    Claim("g_initial_failure", "gaussian", "Initial table: the 8th moment fails first, after about 9.1e10 outputs",
          g_initial_failure),
    Claim("g_optimised_failure", "gaussian", "Optimised table: about 1.6e30 outputs before a 4σ moment failure "
          "(our re-optimised table)", g_optimised_failure),
    Claim("g_published_failure", "gaussian", "Optimised table: about 1.6e30 outputs before a 4σ moment failure "
          "(the article's published table, cpads, by our analytics)", g_published_failure),
    Claim("g_optimised_2_38", "gaussian", "Optimised table: no moment failure at 2^38 outputs", g_optimised_2_38),
    Claim("g_tail_rate", "gaussian", "One output in 15,787 lies beyond 4σ", g_tail_rate),
    Claim("g_quanta", "gaussian", "Output quantum 2^-95 with 3 coefficients, 2^-150 with 4", g_quanta),
    Claim("g_practrand", "gaussian", "PractRand finds no failure up to 2^45 bytes of the CDF-mapped stream",
          g_practrand),
    Claim("g_fma_cost", "gaussian", "The fourth coefficient's extra fused multiply-add slightly slows the generator",
          g_fma_cost),
    Claim("g_tail_9_5", "gaussian", "A true Gaussian gives an expected 2537 outputs beyond 9.5σ in 2^80 outputs",
          g_tail_9_5),
    # VREN article
    Claim("v_counts", "vren", "Worked example: digit counts and offsets of (10, 25, 39, 92, 1, 5, 68, 23, 21, 10)",
          v_counts),
    Claim("v_passes_example", "vren", "Worked example: the array after the first and the second pass",
          v_passes_example),
    Claim("v_passes_32", "vren", "4-bit digits: 8 passes for 32-bit keys", v_pass_count(32, "onesweep_fig09_keys32")),
    Claim("v_passes_64", "vren", "4-bit digits: 16 passes for 64-bit keys", v_pass_count(64, "onesweep_fig11_keys64")),
    Claim("v_workgroup", "vren", "Workgroups of 32 invocations", v_workgroup),
    Claim("v_large_buffers", "vren", "Works well on large buffers", v_large_buffers),
    Claim("v_32bit_only", "vren", "Constrained to sort only 32-bit integer keys", v_32bit_only),
    Claim("v_temp_buffer", "vren", "Needs an additional temporary array at least as large as the input",
          v_temp_buffer),
]


# --------------------------------------------------------------------------- evaluation

Outcome = collections.namedtuple("Outcome", "claim where paper ours ratio verdict reason")


def evaluate(claim, data, refs):
    """Outcome of one claim: its compute function on the data, or 'not reproducible here' when
    an input is missing. refs: {claim id: {key: (value, unit, source)}} of the claim's seed."""
    ref = refs.get(claim.id, {})
    parts = []
    for v in ref.values():
        for part in v[2].split("; "):
            if part not in parts:
                parts.append(part)
    where = "; ".join(parts) or "—"
    paper_default = "; ".join("%s %s" % (fmt(v[0]), v[1]) for v in ref.values()) or "—"
    try:
        paper, ours, ratio, (verdict, reason) = claim.compute(ref, data)
    except Missing as m:
        verdict, reason = (NOT_HERE, "the results hold no %s" % m.what) if m.field else rule_missing(m.what)
        paper, ours, ratio = paper_default, "—", None
    if verdict not in VERDICTS:
        raise ValueError("claim %s: verdict %r outside the vocabulary" % (claim.id, verdict))
    if paper is None:
        paper = paper_default
    return Outcome(claim, where, fmt(paper) if not isinstance(paper, str) else paper, ours, ratio, verdict, reason)


def evaluate_all(data, refs_by_seed=None, claims=None):
    """{seed: [Outcome]} for every seed; refs_by_seed defaults to figures/reference/claims_<seed>.csv."""
    out = collections.OrderedDict((s, []) for s in SEEDS)
    for c in claims or CLAIMS:
        refs = (refs_by_seed or {}).get(c.seed)
        if refs is None:
            refs = load_references(c.seed)
            if refs_by_seed is not None:
                refs_by_seed[c.seed] = refs
        out.setdefault(c.seed, []).append(evaluate(c, data, refs))
    return out


def counts(outcomes):
    """{verdict: count} over the closed vocabulary (zeros included)."""
    c = collections.OrderedDict((v, 0) for v in VERDICTS)
    for o in outcomes:
        c[o.verdict] += 1
    return c


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_table(results):
    """Markdown: per seed, the number of claims of each verdict."""
    lines = ["| seed | claims | " + " | ".join(VERDICTS) + " |", "|---|---:|" + "---:|" * len(VERDICTS)]
    for seed, outcomes in results.items():
        c = counts(outcomes)
        lines.append("| %s | %d | %s |" % (_cell(SEEDS.get(seed, seed)), len(outcomes),
                                            " | ".join(str(c[v]) for v in VERDICTS)))
    return "\n".join(lines)


def section(results):
    """Markdown blocks of the section 'Claims, seed by seed': one table per seed."""
    blocks = ["## Claims, seed by seed",
              "Each seed document's numbered tables, figures and headline sentences (paraphrased), the seed's number "
              "(typed in `figures/reference/claims_<seed>.csv` with its source), ours (computed by `paper/claims.py` "
              "from the result files this report reads), their ratio where both are numbers, and a verdict decided "
              "by a rule in code from a closed vocabulary: *%s*. The reasons are generated from the data. *%s* marks a "
              "check that only recomputes a formula or reads back our own labels: it agrees, but measures nothing. "
              "A timed claim is *%s* only over the range of its timed repetitions, a statistical one only over every "
              "seed replicate, not at the median alone. Internal engineering targets are not claims of the seeds "
              "and are not counted here." % ("*, *".join(VERDICTS), BY_CONSTRUCTION.capitalize(), REPRODUCED)]
    for seed, outcomes in results.items():
        blocks.append("### %s" % SEEDS.get(seed, seed))
        rows = ["| claim | where | paper | ours | ratio | verdict |", "|---|---|---|---|---:|---|"]
        for o in outcomes:
            rows.append("| %s | %s | %s | %s | %s | %s |" % (
                _cell(o.claim.statement), _cell(o.where), _cell(o.paper), _cell(o.ours),
                "" if o.ratio is None else "%.3g" % o.ratio, _cell(verdict_text(o.verdict, o.reason))))
        blocks.append("\n".join(rows))
    return blocks


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="Print the claims tables for a results directory.")
    ap.add_argument("--results", required=True)
    ap.add_argument("--recorded", default=None)
    a = ap.parse_args()
    res = evaluate_all(load_data(a.results, a.recorded or sr.default_recorded_root(a.results)))
    print(summary_table(res))
    print("\n\n".join(section(res)))
