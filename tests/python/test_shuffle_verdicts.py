#!/usr/bin/env python3
"""Verdicts of the shuffle paper's throughput sections (paper/make_report.py), on synthetic CSVs:
Table 2 / Fig. 12 beside the paper (compare_throughput), the project's Bijective2 targets (bijective2_targets)
and Fig. 10's fusion claims (fusion_verdict) -- a claim that holds, one that fails, data missing.

Run alone (from the repository root): python3 -m unittest tests.python.test_shuffle_verdicts"""

import os
import unittest

from tests.python import _support as t  # shared test helpers

mr, sr = t.shuffle_section, t.sr  # the shuffle sections' verdicts (paper/shuffle_section.py)

# Registry names whose paper labels are the reference table's columns.
CPU_NAMES = {"Gather": "gather", "VarPhilox": "variable_philox", "DartThrowing": "dart_throwing",
             "std::shuffle": "std_shuffle", "RS": "rao_sandelius", "MergeShuffle": "merge_shuffle",
             "SortShuffle": "sort_shuffle"}


def table2_rows(value_of):
    """One row per (algorithm, size) of the paper's Table 2, items/s = value_of(label, paper M items/s) * 1e6."""
    ref, order, _ = sr.load_reference_table("shuffle_table2_cpu.csv")
    rows = []
    for label in order:
        for w, paper in sorted(ref[label].items()):
            ips = value_of(label, paper) * 1e6
            rows.append({"algorithm": CPU_NAMES[label], "label": label, "log2_size": w, "n": 2 ** w + 1,
                         "threads": 2, "iterations": 10, "seconds_per_iteration": (2 ** w + 1) / ips,
                         "items_per_second": ips})
    return rows


class Table2Verdict(unittest.TestCase):
    def setUp(self):
        self.tmp = t.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def verdict(self, rows):
        t.write_csv(self.tmp.path, "table2_cpu_shuffle", t.TABLE2_COLUMNS, rows)
        t.write_meta(self.tmp.path, "table2_cpu_shuffle")
        loaded, meta = sr.load_experiment(self.tmp.path, "table2_cpu_shuffle")
        _, verdict, why = mr.compare_throughput(loaded, "shuffle_table2_cpu.csv", "Table 2", 40, meta["cores"])
        return verdict, why

    def test_same_numbers_as_the_paper_reproduce(self):
        verdict, why = self.verdict(table2_rows(lambda label, paper: paper))
        self.assertEqual(verdict, "ranking reproduced, absolute numbers close")
        self.assertIn("median ratio this run / paper 1", why[0])

    def test_reversed_ranking_and_tenfold_slower_differ(self):
        # Ours 1000 / paper: the paper's fastest is our slowest, and all far from the paper's numbers.
        verdict, _ = self.verdict(table2_rows(lambda label, paper: 1000.0 / paper))
        self.assertEqual(verdict, "ranking differs, absolute numbers differ")

    def test_close_numbers_with_another_fastest_rank_differently(self):
        # The paper's numbers but RS 3x faster: RS becomes the fastest shuffle at every size (in the
        # paper it is at 2 of 8), while the median ratio stays 1.
        verdict, why = self.verdict(table2_rows(lambda label, paper: paper * (3 if label == "RS" else 1)))
        self.assertEqual(verdict, "ranking differs, absolute numbers close")
        self.assertIn("fastest shuffle the same at 2 of 8 common sizes", why[-1])

    def test_no_size_in_common_is_not_compared(self):
        rows = table2_rows(lambda label, paper: paper)
        for r in rows:
            r["log2_size"] += 1  # sizes the paper did not measure
        verdict, why = self.verdict(rows)
        self.assertEqual(verdict, "not compared")
        self.assertEqual(why, ["no size measured by both"])


def table1_rows(sizes, vp, gather, thrust):
    """table1_gpu_shuffle rows: VarPhilox (Bijective2), random gather and thrust::shuffle_copy, items/s
    given by functions of log2 size."""
    rows = []
    for w in sizes:
        for name, f in (("variable_philox", vp), ("gather", gather), ("thrust_shuffle", thrust)):
            ips = f(w)
            s = (2 ** w + 1) / ips
            rows.append({"algorithm": name, "label": name, "log2_size": w, "n": 2 ** w + 1, "reps": 7,
                         "seconds_median": s, "seconds_min": s, "seconds_max": s, "items_per_second": ips})
    return rows


class Bijective2Targets(unittest.TestCase):
    SIZES = [14, 17, 20, 23, 26, 29]

    def setUp(self):
        self.tmp = t.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def targets(self, rows):
        t.write_csv(self.tmp.path, "table1_gpu_shuffle", t.TABLE1_COLUMNS, rows)
        t.write_meta(self.tmp.path, "table1_gpu_shuffle")
        loaded, _ = sr.load_experiment(self.tmp.path, "table1_gpu_shuffle")
        return mr.bijective2_targets(sr.best_throughput(loaded, sr.gpu_name_of(loaded)))

    def test_met(self):
        trows, verdict = self.targets(table1_rows(self.SIZES, lambda w: 19e9, lambda w: 20e9, lambda w: 9e9))
        self.assertEqual(verdict, "met")
        self.assertEqual([r[3] for r in trows], ["met", "met", "met"])

    def test_not_met_below_gather(self):
        # 0.5 x gather at 2^29+1 (target >= 0.90), the others met.
        trows, verdict = self.targets(table1_rows(self.SIZES, lambda w: 10e9, lambda w: 20e9, lambda w: 4e9))
        self.assertEqual(verdict, "not met")
        self.assertEqual(trows[0][3], "**not met**")

    def test_not_met_when_thrust_is_faster_at_one_size(self):
        trows, verdict = self.targets(table1_rows(self.SIZES, lambda w: 19e9, lambda w: 20e9,
                                                  lambda w: 30e9 if w == 17 else 9e9))
        self.assertEqual(verdict, "not met")
        self.assertIn("slower at 2^17+1", trows[2][1])

    def test_not_measured_below_the_target_size(self):
        trows, verdict = self.targets(table1_rows([14, 17, 20, 23], lambda w: 19e9, lambda w: 20e9, lambda w: 9e9))
        self.assertEqual(verdict, "not measured")
        self.assertEqual(trows[0][3], "not measured")

    def test_missing_file_reports_not_measured(self):
        report = t.empty_report(self.tmp.path)
        mr.gpu_sections(report, {})
        self.assertEqual(t.summary_verdict(report, "Bijective2 performance targets"), "not measured")
        self.assertEqual(t.summary_verdict(report, "Table 1 / Fig. 11"), "not recorded")


def fusion_rows(sizes, b0, b1, b2, best, gather):
    rows = []
    for w in sizes:
        for name, case, f in (("variable_philox_bijective0", "worst", b0), ("variable_philox_bijective1", "worst", b1),
                              ("variable_philox", "worst", b2), ("variable_philox", "best", best),
                              ("gather", "worst", gather)):
            n = 2 ** w + (1 if case == "worst" else 0)
            ips = f(w)
            rows.append({"algorithm": name, "case": case, "log2_size": w, "n": n, "reps": 7, "seconds_median": n / ips,
                         "seconds_min": n / ips, "seconds_max": n / ips, "items_per_second": ips})
    return rows


class SizeTargets(unittest.TestCase):
    """The project's targets at every size (size_targets): ratio to the gather by size band, and
    the thrust factor from 2^17 + 1; best_throughput's {label: {w: (M items/s, threads)}}."""

    @staticmethod
    def ours(vp_over_gather, thrust_factor=2.0):
        vp, gather, thrust = {}, {}, {}
        for w, ratio in vp_over_gather.items():
            gather[w] = (1000.0, 1)
            vp[w] = (1000.0 * ratio, 1)
            thrust[w] = (1000.0 * ratio / thrust_factor, 1)
        return {"VarPhilox": vp, "Gather": gather, "thrust::shuffle_copy": thrust}

    def test_every_band_met(self):
        rows, verdict, misses = mr.size_targets(self.ours({14: 0.1, 17: 0.76, 20: 0.75, 23: 0.9, 26: 0.93, 29: 0.95}))
        self.assertEqual(verdict, "met")
        self.assertEqual(misses, [])
        self.assertEqual([r[0] for r in rows], ["2^17+1", "2^20+1", "2^23+1", "2^26+1", "2^29+1"])  # 2^14+1 has none
        self.assertEqual([r[2] for r in rows], ["≥ 0.75", "≥ 0.75", "≥ 0.90", "≥ 0.93", "≥ 0.93"])

    def test_a_band_short_and_thrust_short(self):
        _, verdict, misses = mr.size_targets(self.ours({17: 0.74, 23: 0.95, 26: 0.9298, 29: 0.95}))
        self.assertEqual(verdict, "not met")
        self.assertEqual(misses, [17, 26])
        _, verdict, misses = mr.size_targets(self.ours({17: 0.8, 29: 0.95}, thrust_factor=1.7))
        self.assertEqual((verdict, misses), ("not met", [17, 29]))

    def test_nothing_measured(self):
        self.assertEqual(mr.size_targets({})[1], "not measured")


class Fig10Fusion(unittest.TestCase):
    LARGE = [22, 24, 26, 28]

    def setUp(self):
        self.tmp = t.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def verdict(self, rows):
        t.write_csv(self.tmp.path, "fig10_fusion", t.FUSION_COLUMNS, rows)
        t.write_meta(self.tmp.path, "fig10_fusion")
        loaded, _ = sr.load_experiment(self.tmp.path, "fig10_fusion")
        claims, verdict, _ = mr.fusion_verdict(loaded)
        return [c[2] for c in claims], verdict

    def test_reproduced(self):
        held, verdict = self.verdict(fusion_rows(self.LARGE, lambda w: 10e9, lambda w: 15e9, lambda w: 20e9,
                                                 lambda w: 21e9, lambda w: 21e9))
        self.assertEqual(verdict, "reproduced")
        self.assertEqual(held, ["yes", "yes", "yes"])

    def test_differs(self):
        # Less fusion faster, Bijective2 at half of gather, best case twice the worst.
        held, verdict = self.verdict(fusion_rows(self.LARGE, lambda w: 20e9, lambda w: 15e9, lambda w: 10e9,
                                                 lambda w: 20e9, lambda w: 20e9))
        self.assertEqual(verdict, "differs")
        self.assertEqual(held, ["no", "no", "no"])

    def test_in_part(self):
        # Order and best/worst hold; Bijective2 only 0.8 x gather (needs >= 0.9).
        held, verdict = self.verdict(fusion_rows(self.LARGE, lambda w: 10e9, lambda w: 15e9, lambda w: 20e9,
                                                 lambda w: 21e9, lambda w: 25e9))
        self.assertEqual(verdict, "reproduced in part")
        self.assertEqual(held, ["yes", "no", "yes"])

    def test_not_measured_at_small_sizes(self):
        held, verdict = self.verdict(fusion_rows([16, 18, 20], lambda w: 10e9, lambda w: 15e9, lambda w: 20e9,
                                                 lambda w: 21e9, lambda w: 21e9))
        self.assertEqual(verdict, "not measured at the paper's sizes")
        self.assertEqual(held, [])

    def test_missing_file_is_not_recorded(self):
        report = t.empty_report(self.tmp.path)
        mr.gpu_sections(report, {})
        self.assertEqual(t.summary_verdict(report, "Fig. 10"), "not recorded")


if __name__ == "__main__":
    unittest.main()
