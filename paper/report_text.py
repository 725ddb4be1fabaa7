"""Helpers every report section shares (paper/make_report.py and the section modules
paper/shuffle_section.py, paper/sort_section.py, figures/*_results.py): markdown tables, the
provenance line of a run, ranges, sentences. Standard library only."""

import math
import os

from paper import provenance as pv  # the commit's dirty flag

PROVENANCE_KEYS = ["cpu_model", "cores", "tbb_concurrency", "host", "date", "commit", "scale", "seed",
                   "command", "run_seconds", "compiler", "build"]
STANDARD_META = set(PROVENANCE_KEYS) | {"experiment", "worktree_dirty"}
GPU_PROVENANCE_KEYS = ["gpu_name", "gpu_compute_capability", "gpu_sm_count", "gpu_memory_bytes", "gpu_l2_bytes",
                       "nvidia_driver_version", "cuda_runtime_version", "cuda_driver_api_version", "cccl_version",
                       "cuda_compiler_version", "cuda_architectures"]

# --------------------------------------------------------------------------- small helpers

def ranges(values):
    """[1, 2, 3, 5, 7, 8] -> '1–3, 5, 7–8'; [] -> 'none'."""
    values = sorted(values)
    if not values:
        return "none"
    out, start, prev = [], values[0], values[0]
    for v in values[1:] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        out.append("%d" % start if start == prev else "%d–%d" % (start, prev))
        if v is not None:
            start = prev = v
    return ", ".join(out)


def first_all_pass(rows, ok):
    """Smallest round count r such that every row with rounds >= r passes; None if the largest fails."""
    rows = sorted(rows, key=lambda r: r["rounds"])
    first = None
    for r in reversed(rows):
        if not ok(r):
            break
        first = r["rounds"]
    return first


def binomial_tail(k, m, p):
    """P(X >= k) for X ~ Binomial(m, p): how likely k or more false rejections are among m tests at level p."""
    return sum(math.comb(m, j) * p ** j * (1 - p) ** (m - j) for j in range(k, m + 1))


def display_path(path):
    """path relative to the working directory when it lies below it, else absolute."""
    rel = os.path.relpath(path)
    return os.path.abspath(path) if rel.startswith("..") else rel


def sentence(parts):
    """Joins computed reasons into one sentence with a capital letter and a full stop."""
    text = "; ".join(parts)
    return (text[:1].upper() + text[1:] + ".") if text else ""


def yes_no(flag):
    return "yes" if flag else "no"


def pass_word(flag):
    return "passes" if flag else "**fails**"


def table(header, rows, align=None):
    """Markdown table; align: string of 'l'/'r' per column."""
    align = align or "l" * len(header)
    esc = lambda c: str(c).replace("|", "\\|")  # noqa: E731
    header = [esc(h) for h in header]
    rows = [[esc(c) for c in row] for row in rows]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


def provenance(meta, name, lead=()):
    """Key/value table of one experiment's meta.json (keys in `lead` first)."""
    rows = []
    for key in lead:
        if key in meta:
            rows.append((key, meta[key]))
    for key in PROVENANCE_KEYS:
        if key not in meta:
            continue
        value = meta[key]
        if key == "commit":
            value = "`%s`%s" % (value, pv.dirty_text(meta))
        elif key == "command":
            value = "`%s`" % value
        elif key == "run_seconds":
            value = "%.1f s" % float(value)
        rows.append((key, value))
    for key in sorted(set(meta) - STANDARD_META - set(lead)):
        rows.append((key, meta[key]))
    return "**Provenance** (`%s.meta.json`)\n\n" % name + table(("", "value"), rows)


def kendall_tau(order_a, order_b):
    """Kendall rank correlation of two orderings of the same items (1 = same order)."""
    items = [x for x in order_a if x in order_b]
    pos_b = {x: i for i, x in enumerate(order_b)}
    concordant = discordant = 0
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if pos_b[items[i]] < pos_b[items[j]]:
                concordant += 1
            else:
                discordant += 1
    pairs = concordant + discordant
    return (concordant - discordant) / pairs if pairs else 1.0


def median(values):
    v = sorted(values)
    if not v:
        return None
    m = len(v) // 2
    return v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])
