#!/usr/bin/env python3
"""Verdicts of the Gaussian section (figures/gaussian_results.py's report_section, which the
report calls), on synthetic CSVs: the throughput bar (ours >= 1.3 x curand_normal2_double in
registers) and dieharder -- a claim that holds, one that fails, data missing.

Run alone: python3 tests/python/test_gaussian_verdicts.py"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _support as t  # noqa: E402
from figures import gaussian_results  # noqa: E402  (the repository root is on the path through _support)

THROUGHPUT = "Gaussian throughput"
DIEHARDER = "Gaussian stream passes dieharder"


class FakeReport:
    """What report_section uses of make_report.Report: add, figure, figures, summary."""

    def __init__(self, figures):
        self.figures, self.summary, self.blocks = figures, [], []

    def add(self, *blocks):
        self.blocks.extend(blocks)

    def figure(self, name, caption):
        return "![%s](%s.png)" % (caption, name)


def throughput_rows(rates):
    rows = []
    for name, rate in rates.items():
        rows.append({"algorithm": name, "label": name, "mode": "in_register", "form": 3, "outputs": 2 ** 34,
                     "threads": 1024, "reps": 7, "seconds_median": 2 ** 34 / rate, "seconds_min": 2 ** 34 / rate,
                     "seconds_max": 2 ** 34 / rate, "outputs_per_second": rate, "check": "ok"})
    return rows


def dieharder_rows(assessments):
    return [{"test_id": i, "test_name": "test %d" % i, "ntup": 0, "tsamples": 100000, "psamples": 20,
             "p_value": 0.5, "assessment": a} for i, a in enumerate(assessments)]


class GaussianVerdicts(unittest.TestCase):
    def setUp(self):
        self.tmp = t.TempDir()
        self.results = os.path.join(self.tmp.path, "results")
        self.recorded = os.path.join(self.tmp.path, "recorded")  # empty: no recorded GPU run
        os.makedirs(self.results)
        os.makedirs(self.recorded)

    def tearDown(self):
        self.tmp.cleanup()

    def summary(self):
        report = FakeReport(os.path.join(self.tmp.path, "figures"))
        gaussian_results.report_section(report, self.results, self.recorded)
        return report

    def throughput(self, rates):
        t.write_csv(self.results, "gaussian_throughput", t.GAUSSIAN_THROUGHPUT_COLUMNS, throughput_rows(rates))
        t.write_meta(self.results, "gaussian_throughput")
        return t.summary_verdict(self.summary(), THROUGHPUT)

    def test_throughput_met(self):
        self.assertEqual(self.throughput({"ours_register_3": 2.7e11, "ours_register_4": 2.62e11,
                                          "curand_normal2_double": 2.0e11}), "met")

    def test_throughput_not_met_when_one_form_is_below(self):
        # 4 coefficients at 1.25 x (needs >= 1.3).
        self.assertEqual(self.throughput({"ours_register_3": 2.7e11, "ours_register_4": 2.5e11,
                                          "curand_normal2_double": 2.0e11}), "not met")

    def test_throughput_not_met_without_the_peer(self):
        self.assertEqual(self.throughput({"ours_register_3": 2.7e11, "ours_register_4": 2.62e11}), "not met")

    def test_throughput_missing_is_not_run(self):
        self.assertEqual(t.summary_verdict(self.summary(), THROUGHPUT), "not run")

    def test_dieharder_passes(self):
        t.write_csv(self.results, "gaussian_dieharder", t.DIEHARDER_COLUMNS,
                    dieharder_rows(["PASSED"] * 17 + ["WEAK"]))
        self.assertEqual(t.summary_verdict(self.summary(), DIEHARDER), "passes")

    def test_dieharder_fails(self):
        t.write_csv(self.results, "gaussian_dieharder", t.DIEHARDER_COLUMNS,
                    dieharder_rows(["PASSED"] * 17 + ["FAILED"]))
        self.assertEqual(t.summary_verdict(self.summary(), DIEHARDER), "fails")

    def test_dieharder_missing_is_not_run(self):
        self.assertEqual(t.summary_verdict(self.summary(), DIEHARDER), "not run")


if __name__ == "__main__":
    unittest.main()
