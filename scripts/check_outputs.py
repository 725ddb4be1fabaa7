#!/usr/bin/env python3
"""Checks that the figure pipeline produced everything (used by `make smoke`).

    check_outputs.py --results DIR --figures DIR --report FILE [--recorded DIR]

Checks, for the shuffle reproduction (and the Onesweep sort figures, figures/sort_results.py
SORT_GPU_FIGURES: Figs. 9-11 and the sort_headline table, which are GPU figures like the
shuffle's):
  - every CPU experiment's DIR/<name>.csv (agreed header, at least one data row) and
    DIR/<name>.meta.json (valid JSON);
  - each GPU experiment's CSV and meta.json where it has results: DIR/<name>.csv when a
    GPU run wrote it, else the newest recorded copy under --recorded DIR/<device>/
    (default: DIR/recorded, else the repository's results/recorded); a GPU experiment
    with neither is not required (a machine without a GPU, nothing recorded);
  - every CPU figure, and every GPU figure whose experiment has results, as non-empty
    .png and .pdf in the figures directory;
  - the report exists, is non-empty, links each of those figures' .png, and every image
    it links (relative to the report's directory) exists.
Prints each problem and exits 1; otherwise prints one OK line and exits 0.
Standard library only.
"""

import argparse
import os
import re
import sys

from figures import shuffle_results as sr
from figures import sort_results
from figures import gaussian_results  # warp Gaussian figures that have data
from figures import python_results  # python_peers (the Python package's benchmark), when recorded or run
from figures import sampler_results  # sampler (the data-loader sampler's benchmark), when recorded or run
from figures import walking_results  # walking_sampler (the walking permutation's index generator), when recorded or run


def required_gpu_figures(results, recorded):
    """({figure: GpuSource} for the GPU figures whose experiment has results, problems)."""
    figures, problems = {}, []
    families = ((sr.GPU_FIGURES, sr.load_experiment),  # the shuffle paper's GPU figures
                (sort_results.SORT_GPU_FIGURES, sort_results.load_sort_experiment),  # Figs. 9-11, sort_headline
                (sort_results.SORT_TABLE_FIGURES, sort_results.load_table2_experiment))  # Onesweep Table 2
    for figure_map, load in families:
        for figure, experiment in sorted(figure_map.items()):
            source = sr.gpu_source(results, experiment, recorded)
            if source is None:
                continue
            try:
                load(source.directory, experiment)
            except sr.MissingInput as e:
                problems.append(str(e))
            figures[figure] = source
    return figures, problems


def check(results, figures, report, recorded=None):
    """List of problems (empty when everything is in place)."""
    problems = []
    for name in sr.CPU_EXPERIMENTS:
        try:
            sr.load_experiment(results, name)
        except sr.MissingInput as e:
            problems.append(str(e))
    gpu_figures, gpu_problems = required_gpu_figures(results, recorded or sr.default_recorded_root(results))
    gpu_figures.update({f: None for f in gaussian_results.required_figures(
        results, recorded or sr.default_recorded_root(results))})
    gpu_figures.update({f: None for f in python_results.required_figures(
        results, recorded or sr.default_recorded_root(results))})
    gpu_figures.update({f: None for f in sampler_results.required_figures(
        results, recorded or sr.default_recorded_root(results))})
    gpu_figures.update({f: None for f in walking_results.required_figures(
        results, recorded or sr.default_recorded_root(results))})
    problems += gpu_problems
    for name in list(sr.CPU_FIGURES) + sorted(gpu_figures):
        for ext in ("png", "pdf"):
            path = os.path.join(figures, "%s.%s" % (name, ext))
            if not os.path.isfile(path):
                problems.append("missing figure: %s" % path)
            elif os.path.getsize(path) == 0:
                problems.append("empty figure: %s" % path)
    if not os.path.isfile(report):
        problems.append("missing report: %s" % report)
        return problems
    with open(report, encoding="utf-8") as f:
        text = f.read()
    if not text.strip():
        problems.append("empty report: %s" % report)
        return problems
    base = os.path.dirname(os.path.abspath(report))
    linked = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text)
    linked_names = {os.path.basename(p) for p in linked}
    for name in list(sr.CPU_FIGURES) + sorted(gpu_figures):
        if name + ".png" not in linked_names:
            problems.append("report %s does not show figure %s.png" % (report, name))
    for rel in linked:
        if not os.path.isfile(os.path.join(base, rel)):
            problems.append("report %s links %s, which does not exist (relative to %s)" % (report, rel, base))
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--figures", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--recorded", default=None, help="GPU runs, one directory per device "
                        "(default: RESULTS/recorded, else the repository's results/recorded)")
    args = parser.parse_args(argv)
    recorded = args.recorded or sr.default_recorded_root(args.results)
    problems = check(args.results, args.figures, args.report, recorded)
    if problems:
        for p in problems:
            print("check_outputs: MISSING: %s" % p, file=sys.stderr)
        print("check_outputs: %d problem(s)" % len(problems), file=sys.stderr)
        return 1
    gpu_figures, _ = required_gpu_figures(args.results, recorded)
    gpu_text = ", ".join("%s (%s)" % (f, "this run" if src.fresh else "recorded: %s" % src.device)
                         for f, src in sorted(gpu_figures.items())) or "none (no GPU results, fresh or recorded)"
    print("check_outputs: OK — %d CPU experiments (CSV + meta.json), %d CPU figures (png + pdf), GPU figures: %s; "
          "and the report %s" % (len(sr.CPU_EXPERIMENTS), len(sr.CPU_FIGURES), gpu_text, args.report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
