#!/usr/bin/env python3
"""Writes the reproduction report (markdown) for the bijective-shuffle paper.

    make_report.py --results DIR --figures DIR --out FILE [--recorded DIR]

Every number in the report comes from the experiments' CSVs and meta.json files in
--results (schemas: figures/shuffle_results.py) or from the paper's published numbers
in figures/reference/*.csv; the verdicts are computed from them. Figures are linked
by paths relative to the report's directory. GPU results (Table 1, Figs. 10-11) are
read from --results when a GPU run wrote them there, else from the newest copy under
--recorded DIR/<device>/ (default: DIR/recorded, else the repository's results/recorded),
labelled with where they were measured, and reported as not recorded while absent. The
GPU section also checks the project's performance targets for Bijective2 against the data. Each GPU result is
named with the commit it was measured at, whether the code it measures changed in a later
commit, and its clocks (paper/provenance.py); a table after the summary lists them all. The
verdicts are computed by the section modules' functions (tests/python/ tests them).

The report is this file's frame (header, summary, provenance table) around one section per
experiment family, in the order of [report] sections in experiments/manifest.toml: the shuffle
paper (paper/shuffle_section.py), the sorts (paper/sort_section.py), and figures/gaussian_results.py,
segmented_results.py, python_results.py, sampler_results.py, walking_results.py and
multi_gpu_results.py; then the variability and claims sections (paper/variability.py, paper/claims.py).

Exits with status 1, naming the files, when a CPU experiment's CSV or meta.json is
missing or malformed, or when a GPU experiment's is malformed.
"""

import argparse
import datetime
import importlib
import os
import sys

from figures import shuffle_results as sr
from figures import manifest  # experiments/manifest.toml: the order of the family sections
from figures import python_results  # the Python package on GPU arrays (python_peers): its GPU name
from figures import segmented_results  # the segmented shuffle: its experiment's name
from paper import provenance as pv  # commit vs measured code, clocks
from paper import claims  # one claims table per seed document
from paper import variability  # spread, repeated runs, ranges, seed replicates
from paper import shuffle_section  # the shuffle paper's sections (family "shuffle")
from paper import sort_section  # the sort sections (family "sort")
from paper.report_text import display_path, table  # noqa: F401 - the helpers every section shares


# The report's title names every reproduced work (issue 32, section 3); each part below is an h1, which the
# PDF's running footer shows (scripts/report_pdf.py), and each section an h2, which its running header shows.
TITLE = ("Reproduction report — Bandwidth-Optimal Random Shuffling for GPUs (Mitchell et al.); Onesweep "
         "(Adinets & Merrill); VREN's 4-bit radix sort; the warp-parallel Gaussian generator (Goucher)")
# Part titles by report family (experiments/manifest.toml's [report] sections); every other family's section
# belongs to LIBRARY_PART.
PARTS = {
    "shuffle": "Part I — Bandwidth-Optimal Random Shuffling for GPUs (Mitchell et al.)",
    "sort": "Part II — Onesweep: A Faster Least Significant Digit Radix Sort for GPUs (Adinets & Merrill), with "
            "VREN's 4-bit radix sort",
    "gaussian": "Part III — Training a random Gaussian generator (Goucher): the warp-parallel generator",
}
LIBRARY_PART = "Part IV — The onepass library beyond the papers: segments, Python, samplers, several GPUs"
ACROSS_PART = "Part V — Across the report: seed replicates, timing variability, claims"


def part_title(family):
    """The h1 title of the part a report family's section belongs to."""
    return PARTS.get(family, LIBRARY_PART)


class Report:
    def __init__(self, results, figures, out, recorded):
        self.results, self.figures, self.out, self.recorded = results, figures, out, recorded
        self.lines = []
        self.summary = []  # (item, verdict, why)
        self.facts = sr.load_text_facts()
        self.gpu_provenance = {}  # experiment: (GpuSource, meta) of every GPU result the report uses
        self.claims = None  # claims.evaluate_all(...) when main() adds the claims section

    def add(self, *blocks):
        for b in blocks:
            self.lines.append(b)
            self.lines.append("")

    def fact(self, key):
        return self.facts[key]["number"] if key in self.facts else None

    def figure(self, name, caption):
        path = os.path.join(self.figures, name + ".png")
        rel = os.path.relpath(path, os.path.dirname(os.path.abspath(self.out)) or ".")
        pdf = os.path.relpath(os.path.join(self.figures, name + ".pdf"),
                              os.path.dirname(os.path.abspath(self.out)) or ".")
        note = "" if os.path.isfile(path) else " *(figure file not found when this report was written)*"
        return "![%s](%s)\n\n*%s* ([PDF](%s))%s" % (caption, rel.replace(os.sep, "/"), caption,
                                                  pdf.replace(os.sep, "/"), note)

    def note_gpu_provenance(self, source, meta):
        """Keeps a GPU result's source and meta.json for the provenance table; returns the
        provenance sentences of its section: commit vs the measured code, and the clocks."""
        self.gpu_provenance[source.name] = (source, meta)
        return "%s %s" % (pv.freshness_text(source.name, meta), pv.clocks_text(meta))

    def _measured_on(self, source, meta):
        text = "Measured on **%s** — %s." % (meta.get("gpu_name", "an unnamed GPU"), source.describe(display_path))
        if source.others:
            text += " Other recorded devices (not shown): %s." % ", ".join(source.others)
        return text + " " + self.note_gpu_provenance(source, meta)

    def gpu_provenance_section(self):
        """One row per GPU result used: device, date, commit, whether the measured code changed
        since (paper/provenance.py's map of experiment to source paths), clocks."""
        if not self.gpu_provenance:
            return []
        rows = []
        for name, (source, meta) in sorted(self.gpu_provenance.items()):
            commit = "`%s`%s" % (pv.short(meta.get("commit", "unknown")),
                                 pv.dirty_text(meta))
            rows.append(("`%s`" % name, "%s (%s)" % (meta.get("gpu_name", "?"), source.device or "this run"),
                         str(meta.get("date", "?"))[:10], commit, pv.freshness_cell(name, meta),
                         pv.clocks_text(meta, lead="").rstrip(".")))
        return ["## Provenance of the GPU results",
                "The commit each GPU result was measured at, and whether the code it measures (the library "
                "code, the peers and the experiment program mapped in `paper/provenance.py`) changed in a later "
                "commit on this checkout's HEAD — any commit touching those files counts, unless the files "
                "differ from the measured commit's only in comments and layout (then the cell says so). Clocks "
                "are *locked* only where the meta.json says so.",
                table(("experiment", "GPU (recorded device)", "date", "commit", "measured code since", "clocks"),
                      rows)]

    # ----------------------------------------------------------------------- whole report

    def write(self, loaded):
        metas = {name: meta for name, (_, meta) in loaded.items()}
        scales = sorted({str(m.get("scale")) for m in metas.values()})
        total = sum(float(m.get("run_seconds", 0)) for m in metas.values())
        header = [
            "# " + TITLE,
            "Generated %s by `python -m paper.make_report` from the results in `%s` and the figures in `%s`. Every number "
            "below is read from those CSV/meta.json files or from the paper's published numbers in "
            "`figures/reference/` (typed from the paper, with table and section); the verdicts are computed from them."
            % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               self.results, self.figures),
            "## How it was produced",
            "`make figures SCALE=%s` builds the project, runs the experiments (commands as recorded in their "
            "meta.json; %.0f s of experiment run time in all), draws the figures and writes this report:"
            % ("/".join(scales), total),
            "```\n" + "\n".join(m.get("command", name) for name, m in metas.items()) +
            "\npython -m figures.plot_all --results %s --out %s\npython -m paper.make_report %s\n```"
            % (self.results, self.figures, " ".join(sys.argv[1:])),
        ]
        s6 = loaded["fig06_chi2_rounds"][0][0]["samples"]
        s79 = shuffle_section.mmd_samples_text(loaded["fig07_09_mmd"][0])
        paper_s6, paper_s79 = int(self.fact("chi2_samples")), int(self.fact("mmd_samples"))
        sizes = sorted({r["log2_size"] for r in loaded["table2_cpu_shuffle"][0]})
        header.append(
            "**Scale: {}.** The paper uses {:,} permutations per data point for Fig. 6 and {:,} for Figs. 7–9; this "
            "run uses {:,} for Fig. 6 and {} for Figs. 7–9. The default scale uses fewer samples than the paper (so its statistical tests "
            "are less sensitive) and smaller throughput sizes, so that `make figures` finishes in about 17 to 26 minutes (README, measured) on "
            "2 cores; `SCALE=paper` uses the paper's sample counts and sizes. Throughput sizes measured here: {} "
            "(paper: 2^{}+1 to 2^{}+1 in steps of 3, average of {} trials)."
            .format(", ".join(scales), paper_s6, paper_s79, s6, s79, ", ".join("2^%d+1" % w for w in sizes),
                    int(self.fact("throughput_log2_size_min")), int(self.fact("throughput_log2_size_max")),
                    int(self.fact("throughput_trials"))))
        machines = sorted({"%s, %s cores (host %s)" % (m.get("cpu_model", "unknown CPU"), m.get("cores", "?"),
                                                       m.get("host", "?")) for m in metas.values()})
        gpu_runs = ["%s: %s, %s, scale %s" % (name, m.get("gpu_name", "unnamed GPU"),
                                              src.describe(display_path), m.get("scale", "?"))
                    for name, (src, _, m) in sorted(getattr(self, "gpu_used", {}).items())]
        header.append("**Machine:** %s. **GPU results:** %s. The paper's CPU results are from %s (%d physical "
                      "cores), its GPU results from a %s."
                      % ("; ".join(machines), "; ".join(gpu_runs) if gpu_runs else "none (no GPU run in the results "
                         "directory and none recorded)", self.facts["cpu_machine"]["value"], self.fact("cpu_cores"),
                         self.facts["gpu_machine"]["value"]))
        load = pv.cpu_load_text({name: m for name, m in metas.items() if "gpu_name" not in m})
        if load:
            header.append(load)
        body = self.lines
        self.lines = []
        self.add(*header)
        if self.claims is not None:
            self.add("## Claims at a glance", "Verdicts of every claim of the five seed documents (tables in "
                     "“Claims, seed by seed” below; decided by the rules of `paper/claims.py`):",
                     claims.summary_table(self.claims))
        self.add("## Summary", table(("paper item", "verdict", "why (computed from the data)"), self.summary))
        self.add(*self.gpu_provenance_section())
        return "\n".join(self.lines + body).rstrip() + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--figures", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--recorded", default=None, help="GPU runs, one directory per device "
                        "(default: RESULTS/recorded, else the repository's results/recorded)")
    args = parser.parse_args(argv)
    recorded = args.recorded or sr.default_recorded_root(args.results)
    loaded, gpu, problems = shuffle_section.load(args.results, recorded)  # the CPU ones are required
    if problems:
        for p in problems:
            print("make_report: ERROR: %s" % p, file=sys.stderr)
        print("make_report: cannot write the report; run the experiments first (make figures)", file=sys.stderr)
        return 1
    report = Report(args.results, args.figures, args.out, recorded)
    part = None
    for family, module in manifest.manifest().sections:  # experiments/manifest.toml's [report] order
        if part_title(family) != part:
            part = part_title(family)
            report.add("# " + part)
        if family == "shuffle":
            shuffle_section.report_section(report, loaded, gpu)
        elif family == "sort":
            sort_data, table2, headline, small, problems = sort_section.load(args.results, recorded)
            if problems:
                for p in problems:
                    print("make_report: ERROR: %s" % p, file=sys.stderr)
                return 1
            sort_section.report_section(report, sort_data, table2, headline, small)
        else:
            importlib.import_module(module).report_section(report, args.results, recorded)
    gaussian_source = sr.gpu_source(args.results, "gaussian_throughput", recorded)
    if gaussian_source is not None:  # its section is figures/gaussian_results.py's; the table names its commit
        try:
            report.note_gpu_provenance(gaussian_source, sr.read_meta(
                os.path.join(gaussian_source.directory, "gaussian_throughput.meta.json")))
        except sr.MissingInput as e:
            print("make_report: note: gaussian_throughput provenance not shown: %s" % e, file=sys.stderr)
    segmented_source = sr.gpu_source(args.results, segmented_results.EXPERIMENT, recorded)
    if segmented_source is not None:  # its section is figures/segmented_results.py's
        try:
            report.note_gpu_provenance(segmented_source, sr.read_meta(
                os.path.join(segmented_source.directory, segmented_results.EXPERIMENT + ".meta.json")))
        except sr.MissingInput as e:
            print("make_report: note: segmented_shuffle provenance not shown: %s" % e, file=sys.stderr)
    python_source = sr.gpu_source(args.results, python_results.EXPERIMENT, recorded)
    if python_source is not None:  # its section is figures/python_results.py's; its meta.json names the GPU "gpu"
        try:
            python_meta = sr.read_meta(os.path.join(python_source.directory, python_results.EXPERIMENT + ".meta.json"))
            report.note_gpu_provenance(python_source, dict(python_meta, gpu_name=python_results.gpu_of(python_meta)))
        except sr.MissingInput as e:
            print("make_report: note: python_peers provenance not shown: %s" % e, file=sys.stderr)
    timing_dirs = {}  # the folder each GPU timing table is read from (fresh, else recorded)
    for name, _ in variability.EXPERIMENTS:
        source = sr.gpu_source(args.results, name, recorded)
        if source is not None:
            timing_dirs[name] = source.directory
    report.add("# " + ACROSS_PART)
    report.add(*variability.seeds_section(args.results, table))
    report.add(*variability.section(timing_dirs, table))
    report.claims = claims.evaluate_all(claims.load_data(args.results, recorded))
    report.add(*claims.section(report.claims))
    text = report.write(loaded)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".partial"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.out)
    print("make_report: wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
