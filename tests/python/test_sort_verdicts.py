#!/usr/bin/env python3
"""Verdicts of the Onesweep sections (paper/make_report.py), on synthetic sort CSVs: each
figure's row (ours / CUB (best) at q = 1 against the project's target, onesweep_target_verdict) and
the project's targets table of sort_headline (evaluate_targets, targets_verdict) -- a claim that
holds, one that fails, data missing.

Run alone (from the repository root): python3 -m unittest tests.python.test_sort_verdicts"""

import os
import unittest

from tests.python import _support as t  # shared test helpers

mr, so = t.sort_section, t.so  # the sort sections' verdicts (paper/sort_section.py)
FIG9 = "onesweep_fig09_keys32"


def figure_rows(ours, n32=45e9, n64=42e9, rts=30e9, sizes=(20, 24, 26, 27, 28, 29), bands=(1, 8)):
    """A Fig. 9-like run: u32 keys, every band and size with the same speeds (keys/s)."""
    rows = []
    for q in bands:
        for w in sizes:
            for name, v in (("onesweep", ours), ("cub_onesweep_n32", n32), ("cub_onesweep_n64", n64),
                            ("cub_reduce_then_scan", rts)):
                if v is not None:
                    rows.append(t.sort_row(name, "keys_u32", q, w, v))
    return rows


class OnesweepFigureRow(unittest.TestCase):
    def setUp(self):
        self.tmp = t.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def verdict(self, rows, name=FIG9):
        loaded, _ = t.write_sort(self.tmp.path, name, rows)
        return mr.onesweep_target_verdict(loaded, mr.ONESWEEP_TARGET[name])

    def test_meets_target(self):
        verdict, ours, cub, ratio = self.verdict(figure_rows(ours=50e9))
        self.assertEqual(verdict, "meets target")
        self.assertAlmostEqual(ratio, 50 / 45)

    def test_below_target_against_the_fastest_cub_configuration(self):
        # Faster than cub_onesweep_n64 but slower than n32: CUB (best) is n32, so below target 1.0.
        verdict, _, cub, ratio = self.verdict(figure_rows(ours=44e9))
        self.assertEqual(verdict, "**below target**")
        self.assertEqual(cub, 45e9)
        self.assertLess(ratio, 1.0)

    def test_pairs_target_is_lower(self):
        # 0.92 x CUB (best) meets Fig. 10's target (>= 0.9) but would not meet Fig. 9's (>= 1.0).
        self.assertEqual(self.verdict(figure_rows(ours=0.92 * 45e9), "onesweep_fig10_pairs32")[0], "meets target")
        self.assertEqual(self.verdict(figure_rows(ours=0.92 * 45e9), FIG9)[0], "**below target**")

    def test_median_over_saturating_sizes_only(self):
        # Slow at the small sizes (< 2^26) only: the median over n >= 2^26 still meets the target.
        rows = [r if r["algorithm"] != "onesweep" or r["log2_n"] >= so.SATURATING_LOG2 else
                t.sort_row("onesweep", r["shape"], r["q"], r["log2_n"], 10e9) for r in figure_rows(ours=50e9)]
        self.assertEqual(self.verdict(rows)[0], "meets target")

    def test_ours_missing_is_only_measured(self):
        verdict, ours, cub, ratio = self.verdict(figure_rows(ours=None))
        self.assertEqual((verdict, ours, ratio), ("measured", None, None))
        self.assertEqual(cub, 45e9)

    def test_section_summary_carries_the_verdict(self):
        for ours, expected in ((50e9, "meets target"), (40e9, "**below target**")):
            rows, meta = t.write_sort(self.tmp.path, FIG9, figure_rows(ours=ours))
            report = t.empty_report(self.tmp.path)
            source = t.sr.GpuSource(FIG9, self.tmp.path, None)
            mr.onesweep_figure_section(report, FIG9, 9, "32-bit keys only", so.load_facts(), source, rows, meta)
            self.assertEqual(t.summary_verdict(report, "Onesweep Fig. 9"), expected)

    def test_missing_file_is_not_recorded(self):
        report = t.empty_report(self.tmp.path)
        mr.onesweep_sections(report, {}, None, None)
        self.assertEqual(t.summary_verdict(report, "Onesweep Fig. 9"), "not recorded")
        self.assertEqual(t.summary_verdict(report, "Sort headline"), "not measured yet")


def headline_rows(ratio_of):
    """sort_headline's points (u32 keys q = 1..16, u32 pairs, u64 keys, u64 pairs, f32 keys at q = 1;
    n = 2^20, 2^24, 2^28, 2^30) with ours = ratio_of(shape, q, log2 n) x CUB (best); CUB (best) is
    cub_onesweep_n64 at 40 GKey/s, n32 slower."""
    rows = []
    points = [("keys_u32", q) for q in (1, 2, 3, 4, 8, 16)] + [(s, 1) for s in ("pairs_u32_u32", "keys_u64",
                                                                                 "pairs_u64_u64", "keys_f32")]
    for shape, q in points:
        for w in (20, 24, 28, 30):
            r = ratio_of(shape, q, w)
            if r is None:
                continue
            rows += [t.sort_row("cub_onesweep_n64", shape, q, w, 40e9),
                     t.sort_row("cub_onesweep_n32", shape, q, w, 35e9),
                     t.sort_row("onesweep", shape, q, w, r * 40e9)]
    return rows


class HeadlineTargets(unittest.TestCase):
    def setUp(self):
        self.tmp = t.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def evaluate(self, rows):
        loaded, _ = t.write_sort(self.tmp.path, so.HEADLINE, rows)
        results = mr.evaluate_targets(so.HEADLINE_TARGETS, so.ratio_points(loaded))
        verdict, why = mr.targets_verdict(results)
        return {what: v for what, v, *_ in results}, verdict, why

    def test_all_met(self):
        each, verdict, why = self.evaluate(headline_rows(lambda s, q, w: 1.10))
        self.assertEqual(verdict, "all met (10 of 10)")
        self.assertEqual(set(each.values()), {"met"})
        self.assertEqual(why, [])

    def test_one_missed(self):
        # 1.04 x at u32 q = 1, n = 2^28: the target there is >= 1.05; 1.04 still meets the
        # every-size q = 1 target (>= 0.95).
        each, verdict, why = self.evaluate(headline_rows(
            lambda s, q, w: 1.04 if (s, q, w) == ("keys_u32", 1, 28) else 1.10))
        self.assertEqual(verdict, "1 of 10 not met")
        self.assertEqual(each["u32 keys, q = 1, n = 2^28"], "not met")
        self.assertEqual(each["u32 keys, q = 1, every size 2^20 to 2^30"], "met")
        self.assertIn("u32 keys, q = 1, n = 2^28 (1.040, needs ≥ 1.05)", why[0])

    def test_one_size_below_fails_the_range_target(self):
        each, verdict, _ = self.evaluate(headline_rows(
            lambda s, q, w: 0.90 if (s, q, w) == ("keys_u32", 1, 20) else 1.10))
        self.assertEqual(each["u32 keys, q = 1, every size 2^20 to 2^30"], "not met")
        self.assertEqual(verdict, "1 of 10 not met")

    def test_shapes_missing_are_not_measured(self):
        each, verdict, why = self.evaluate(headline_rows(lambda s, q, w: 1.10 if s == "keys_u32" else None))
        self.assertEqual(verdict, "met where measured (7 of 10)")
        self.assertEqual(each["u64 keys, q = 1, n = 2^28"], "not measured")
        self.assertTrue(why[0].startswith("not measured: "))

    def test_no_data_is_not_measured(self):
        verdict, why = mr.targets_verdict(mr.evaluate_targets(so.HEADLINE_TARGETS, []))
        self.assertEqual(verdict, "not measured")

    def test_section_summary_carries_the_verdict(self):
        rows, meta = t.write_sort(self.tmp.path, so.HEADLINE, headline_rows(
            lambda s, q, w: 0.5 if s == "keys_u64" else 1.10))
        report = t.empty_report(self.tmp.path)
        mr.sort_headline_section(report, (t.sr.GpuSource(so.HEADLINE, self.tmp.path, None), rows, meta))
        self.assertEqual(t.summary_verdict(report, "Sort headline"), "1 of 10 not met")


class RatioRanges(unittest.TestCase):
    """figures/sort_results.ratio_ranges: the spread of ours ÷ CUB (best) over the repetitions."""

    @staticmethod
    def row(algorithm, median, fastest, slowest, n=2 ** 20):
        return {"algorithm": algorithm, "shape": "keys_u32", "q": 1, "n": n, "keys_per_second": n / median,
                "seconds_median": median, "seconds_min": fastest, "seconds_max": slowest}

    def test_range_from_fastest_and_slowest_runs(self):
        rows = [self.row("onesweep", 1.0, 0.9, 1.2), self.row("cub_onesweep_n64", 1.1, 1.0, 1.3),
                self.row("cub_onesweep_n32", 1.5, 1.4, 1.6)]
        (low, high), = so.ratio_ranges(rows).values()
        # CUB (best) is n64 (best median); low = its fastest / our slowest, high = its slowest / our fastest.
        self.assertAlmostEqual(low, 1.0 / 1.2)
        self.assertAlmostEqual(high, 1.3 / 0.9)
        self.assertLessEqual(low, 1.1 / 1.0)
        self.assertGreaterEqual(high, 1.1 / 1.0)

    def test_points_without_min_max_or_without_cub_are_left_out(self):
        no_spread = dict(self.row("onesweep", 1.0, 0.9, 1.2), seconds_min=None)
        self.assertEqual(so.ratio_ranges([no_spread, self.row("cub_onesweep_n64", 1.1, 1.0, 1.3)]), {})
        self.assertEqual(so.ratio_ranges([self.row("onesweep", 1.0, 0.9, 1.2)]), {})


class SelectorChoices(unittest.TestCase):
    """onepass::sort's logged choices (meta.json onepass_sort_choice) and selector_points."""

    def test_choices_by_band_and_older_logs_without_band(self):
        meta = {"onepass_sort_choice": "the algorithm onepass::sort ran at each shape, n and band q (sort/sort.cuh, "
                                       "select_algorithm on the same keys): keys_u64 n=33554432 q=1: hybrid_msd; "
                                       "keys_u64 n=33554432 q=4: onesweep; keys_u32 n=4603: hybrid_msd"}
        c = so.selector_choices(meta)
        self.assertEqual(c[("keys_u64", 33554432, 1)], "hybrid_msd")
        self.assertEqual(so.choice_at(c, "keys_u64", 33554432, 4), "onesweep")
        self.assertEqual(so.choice_at(c, "keys_u32", 4603, 16), "hybrid_msd")  # logged without a band
        self.assertIsNone(so.choice_at(c, "keys_u64", 1024, 1))
        self.assertEqual(so.selector_choices({}), {})

    def test_points_keep_ratio_against_the_faster_of_ours(self):
        rows = [t.sort_row("onesweep", "keys_u64", 4, 25, 10e9), t.sort_row("hybrid_msd", "keys_u64", 4, 25, 4e9),
                t.sort_row("onepass_sort", "keys_u64", 4, 25, 9.9e9), t.sort_row("cub_onesweep_n64", "keys_u64", 4, 25, 9e9)]
        p, = so.selector_points(rows)
        self.assertAlmostEqual(p["keeps"], 0.99)
        self.assertAlmostEqual(p["vs_cub"], 1.1)
        rows[2] = t.sort_row("onepass_sort", "keys_u64", 4, 25, 4e9)  # the selector took the slower sort
        p, = so.selector_points(rows)
        self.assertLess(p["keeps"], so.SELECTOR_KEEPS)


if __name__ == "__main__":
    unittest.main()
