#!/usr/bin/env python3
"""Checks that the figure pipeline produced everything (used by `make smoke`).

    check_outputs.py --results DIR --figures DIR --report FILE

Checks, for the shuffle reproduction:
  - every CPU experiment's DIR/<name>.csv (agreed header, at least one data row) and
    DIR/<name>.meta.json (valid JSON);
  - every figure as non-empty .png and .pdf in the figures directory;
  - the report exists, is non-empty, links every figure's .png, and every image it
    links (relative to the report's directory) exists.
Prints each problem and exits 1; otherwise prints one OK line and exits 0.
Standard library only.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "figures"))
import shuffle_results as sr  # noqa: E402


def check(results, figures, report):
    """List of problems (empty when everything is in place)."""
    problems = []
    for name in sr.CPU_EXPERIMENTS:
        try:
            sr.load_experiment(results, name)
        except sr.MissingInput as e:
            problems.append(str(e))
    for name in sr.CPU_FIGURES:
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
    for name in sr.CPU_FIGURES:
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
    args = parser.parse_args(argv)
    problems = check(args.results, args.figures, args.report)
    if problems:
        for p in problems:
            print("check_outputs: MISSING: %s" % p, file=sys.stderr)
        print("check_outputs: %d problem(s)" % len(problems), file=sys.stderr)
        return 1
    print("check_outputs: OK — %d experiments (CSV + meta.json), %d figures (png + pdf) and the report %s"
          % (len(sr.CPU_EXPERIMENTS), len(sr.CPU_FIGURES), args.report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
