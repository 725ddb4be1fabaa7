#!/usr/bin/env python3
"""Verdicts of the Gaussian section (figures/gaussian_results.py's report_section, which the
report calls), on synthetic CSVs: the throughput bar (ours >= 1.3 x curand_normal2_double in
registers), dieharder (the double generator's stream and issue 30's float-native one,
gaussian_dieharder_float_native.csv) and the project's table-quality bar (every Hermite, moment and
best-polynomial test of order <= 24 lasts >= 1e31 outputs, orders <= 16 >= 1e33, with the
per-order table of the report) -- a claim that holds, one that fails, data missing.

Run alone (from the repository root): python3 -m unittest tests.python.test_gaussian_verdicts"""

import os
import unittest

from tests.python import _support as t  # shared test helpers
from figures import gaussian_results

THROUGHPUT = "Gaussian throughput"
DIEHARDER = "Gaussian stream passes dieharder"
DIEHARDER_FLOAT_NATIVE = "Float-native Gaussian stream passes dieharder"
TABLE_BAR = "Gaussian table: every test of order"
FAILURE_COLUMNS = ["table", "order", "hermite", "hermite_failure_outputs", "moment_discrepancy",
                   "moment_failure_outputs", "best_polynomial_failure_outputs", "controlled_by_optimiser"]


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


def failure_rows(ours, initial=1e11, orders=24):
    """gaussian_hermite_failure rows: odd orders inf, even orders `initial` (inverse-CDF) and
    ours[n] (or 1e35) for all three tests of the optimised table."""
    rows = []
    for table in ("inverse_cdf", "optimised"):
        for n in range(1, orders + 1):
            value = "inf" if n % 2 else (ours.get(n, 1e35) if table == "optimised" else initial)
            rows.append({"table": table, "order": n, "hermite": 0, "hermite_failure_outputs": value,
                         "moment_discrepancy": 0, "moment_failure_outputs": value,
                         "best_polynomial_failure_outputs": value, "controlled_by_optimiser": 1})
    return rows


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

    def test_speed_targets_met_not_met_and_out_of_reach(self):
        g = 1e9
        rate = {"ours_register_3": 430 * g, "ours_generator_3": 412 * g, "ours_register_4": 420 * g,
                "ours_generator_4": 390 * g, "store_only": 400 * g, "ours_memory_3": 362 * g,
                "ours_memory_4": 350 * g, "store_only_f32": 800 * g, "ours_memory_3_f32": 360 * g,
                "curand_host_philox_f32": 510 * g, "ours_generator_f32_3": 405 * g,
                "curand_normal2_double": 200 * g, "ours_register_philox_3": 370 * g}
        got = {item: (ratio, verdict) for item, ratio, bar, verdict in gaussian_results.speed_targets(rate)}
        self.assertEqual(got["API next_pair ≥ 0.95 × best in-register kernel (3 coefficients)"][1], "met")
        self.assertEqual(got["API next_pair ≥ 0.95 × best in-register kernel (4 coefficients)"][1], "not met")
        self.assertEqual(got["generate_normal f64 to memory ≥ 0.9 × store-only (3 coefficients)"][1], "met")
        self.assertEqual(got["generate_normal f64 to memory ≥ 0.9 × store-only (4 coefficients)"][1], "not met")
        f32 = got["generate_normal f32 ≥ 1.0 × cuRAND host curandGenerateNormal (3 coefficients)"]
        self.assertAlmostEqual(f32[0], 360 / 510)
        self.assertTrue(f32[1].startswith("not met (out of reach"), f32[1])
        self.assertEqual(got["generate_normal f32 ≥ 1.0 × cuRAND host curandGenerateNormal (4 coefficients)"][1],
                         "not run")
        self.assertEqual(got["Philox-fed in registers ≥ 1.3 × curand_normal2_double (3 coefficients)"][1], "met")
        # Issue 30's float-native targets: against the fastest cuRAND float row of the run.
        rate.update({"ours_memory_float_native_f32": 505 * g, "ours_float_native_generator": 587 * g,
                     "curand_normal4": 636 * g, "curand_host_philox_dynamic_f32": 566 * g,
                     "curand_host_mrg32k3a_f32": 292 * g})
        got = {item: (ratio, verdict) for item, ratio, bar, verdict in gaussian_results.speed_targets(rate)}
        native = got["float-native f32 to memory ≥ 1.3 × cuRAND's fastest host curandGenerateNormal"]
        self.assertAlmostEqual(native[0], 505 / 566)
        self.assertTrue(native[1].startswith("not met (out of reach"), native[1])  # 587 < 1.3 x 566
        self.assertEqual(got["float-native f32 to memory ≥ 0.9 × float store-only"][1], "not met (out of reach: the "
                         "float API in registers, no stores, runs %.2f × the bar's rate)" % (587 / (0.9 * 800)))
        self.assertEqual(got["float-native in registers ≥ 1.2 × curand_normal4"][1], "not met")
        rate["ours_float_native_generator"] = 800 * g
        got = {item: verdict for item, ratio, bar, verdict in gaussian_results.speed_targets(rate)}
        self.assertEqual(got["float-native in registers ≥ 1.2 × curand_normal4"], "met")
        self.assertEqual(got["float-native f32 to memory ≥ 0.9 × float store-only"], "not met")
        del rate["ours_memory_float_native_f32"]
        got = {item: verdict for item, ratio, bar, verdict in gaussian_results.speed_targets(rate)}
        self.assertEqual(got["float-native f32 to memory ≥ 0.9 × float store-only"], "not run")
        # A float bar below the in-register ceiling is plainly "not met", not out of reach.
        rate["curand_host_philox_f32"] = 380 * g
        got = {item: verdict for item, ratio, bar, verdict in gaussian_results.speed_targets(rate)}
        self.assertEqual(got["generate_normal f32 ≥ 1.0 × cuRAND host curandGenerateNormal (3 coefficients)"],
                         "not met")

    def test_dieharder_passes(self):
        t.write_csv(self.results, "gaussian_dieharder", t.DIEHARDER_COLUMNS,
                    dieharder_rows(["PASSED"] * 17 + ["WEAK"]))
        self.assertEqual(t.summary_verdict(self.summary(), DIEHARDER), "passes")

    def test_dieharder_fails(self):
        t.write_csv(self.results, "gaussian_dieharder", t.DIEHARDER_COLUMNS,
                    dieharder_rows(["PASSED"] * 17 + ["FAILED"]))
        self.assertEqual(t.summary_verdict(self.summary(), DIEHARDER), "fails")

    def test_dieharder_float_native_passes_beside_the_double(self):
        t.write_csv(self.results, "gaussian_dieharder", t.DIEHARDER_COLUMNS,
                    dieharder_rows(["PASSED"] * 17 + ["FAILED"]))
        t.write_csv(self.results, "gaussian_dieharder_float_native", t.DIEHARDER_COLUMNS,
                    dieharder_rows(["PASSED"] * 15 + ["WEAK"] * 3))
        report = self.summary()
        self.assertEqual(t.summary_verdict(report, DIEHARDER), "fails")  # each run has its own verdict
        self.assertEqual(t.summary_verdict(report, DIEHARDER_FLOAT_NATIVE), "passes")
        text = "\n".join(report.blocks)
        self.assertIn("### dieharder (float-native generator, issue 30)", text)
        self.assertIn("15 PASSED, 3 WEAK", text)
        self.assertIn("top 16 bits of Φ(x)", text)

    def test_dieharder_float_native_fails(self):
        t.write_csv(self.results, "gaussian_dieharder", t.DIEHARDER_COLUMNS, dieharder_rows(["PASSED"] * 18))
        t.write_csv(self.results, "gaussian_dieharder_float_native", t.DIEHARDER_COLUMNS,
                    dieharder_rows(["PASSED"] * 17 + ["FAILED"]))
        report = self.summary()
        self.assertEqual(t.summary_verdict(report, DIEHARDER), "passes")
        self.assertEqual(t.summary_verdict(report, DIEHARDER_FLOAT_NATIVE), "fails")

    def test_dieharder_float_native_missing_is_not_run(self):
        # The double's run alone (an older results directory): the float-native row says "not run".
        t.write_csv(self.results, "gaussian_dieharder", t.DIEHARDER_COLUMNS, dieharder_rows(["PASSED"] * 18))
        report = self.summary()
        self.assertEqual(t.summary_verdict(report, DIEHARDER), "passes")
        self.assertEqual(t.summary_verdict(report, DIEHARDER_FLOAT_NATIVE), "not run")

    def test_dieharder_float_native_without_dieharder_is_not_run(self):
        # gaussian_dieharder without dieharder installed: the header, no rows, and the meta says so.
        t.write_csv(self.results, "gaussian_dieharder_float_native", t.DIEHARDER_COLUMNS, [])
        t.write_meta(self.results, "gaussian_dieharder_float_native", dieharder="not installed")
        report = self.summary()
        self.assertEqual(t.summary_verdict(report, DIEHARDER_FLOAT_NATIVE), "not run")
        self.assertIn("dieharder not installed", [why for item, v, why in report.summary
                                                  if item.startswith(DIEHARDER_FLOAT_NATIVE)])

    def table_bar(self, rows):
        t.write_csv(self.results, "gaussian_hermite_failure", FAILURE_COLUMNS, rows)
        report = self.summary()
        return t.summary_verdict(report, TABLE_BAR), report

    def test_table_bar_met_and_the_report_lists_orders_1_to_24(self):
        verdict, report = self.table_bar(failure_rows({10: 2e33, 18: 3e31}))
        self.assertEqual(verdict, "met")
        text = "\n".join(report.blocks)
        for n in range(1, 25):
            self.assertRegex(text, r"\n\| %d \| " % n)
        self.assertIn("9.1e10 (initial table)", text)  # the article's figures, from gaussian_article.csv
        self.assertIn("1.6e30 (the article's optimised table)", text)
        self.assertIn("3.00e+31", text)

    def test_table_bar_not_met_when_a_high_order_fails_early(self):
        # an earlier optimised table: order 18 fails after 1.3e29 outputs
        self.assertEqual(self.table_bar(failure_rows({18: 1.3e29}))[0], "not met")

    def test_table_bar_not_met_when_a_low_order_is_below_1e33(self):
        self.assertEqual(self.table_bar(failure_rows({10: 8e32}))[0], "not met")

    def test_table_bar_not_measured_when_the_run_stops_below_order_24(self):
        self.assertEqual(self.table_bar(failure_rows({}, orders=16))[0], "not measured")

    def test_table_bar_not_met_when_an_order_inside_the_run_is_missing(self):
        rows = [r for r in failure_rows({}) if not (r["table"] == "optimised" and int(r["order"]) == 12)]
        self.assertEqual(self.table_bar(rows)[0], "not met")

    def test_table_bar_missing_is_not_run(self):
        self.assertEqual(t.summary_verdict(self.summary(), TABLE_BAR), "not run")

    def test_dieharder_missing_is_not_run(self):
        report = self.summary()
        self.assertEqual(t.summary_verdict(report, DIEHARDER), "not run")
        self.assertEqual(t.summary_verdict(report, DIEHARDER_FLOAT_NATIVE), "not run")


if __name__ == "__main__":
    unittest.main()
