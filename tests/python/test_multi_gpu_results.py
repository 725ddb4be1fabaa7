#!/usr/bin/env python3
"""Beyond one GPU (figures/multi_gpu_results.py, experiments multi_gpu_sort and multi_gpu_shuffle):
the verdicts of the issue's targets on small synthetic CSVs, the reachability bound, the report
section (with the recorded 4-GPU copy and without any results) and the figures.

Run alone (from the repository root): python3 -m unittest tests.python.test_multi_gpu_results"""

import os
import unittest

from tests.python import _support

from figures import multi_gpu_results as mg


def sort_row(algorithm, shape, p, ms, n_total=2 ** 31):
    s = ms / 1e3
    return {"algorithm": algorithm, "shape": shape, "num_ranks": p, "n_per_rank": n_total // p, "n_total": n_total,
            "seconds_median": s, "seconds_min": s, "seconds_max": s, "keys_per_second": n_total / s}


def sort_rows(fast=True):
    """One GPU 40 ms for every 2^31 shape (u64 2^30: 60 ms); ours 20/10 ms at P = 2/4 when fast (meets
    every target), else 50/30 ms; weak: 1-GPU 20 ms, P = 4 25 ms (fast) or 50 ms; skewed: q4 band 2x
    uniform; all-to-all 7 ms at P = 2, 5 ms at P = 4."""
    rows = []
    for shape in mg.STRONG + mg.SKEWED:
        one = 60.0 if shape == "keys_u64" else 40.0
        rows += [sort_row("distributed_sort", shape, 1, one), sort_row("onepass_sort", shape, 1, one)]
        for p, t in ((2, 20.0 if fast else 50.0), (4, 10.0 if fast else 30.0)):
            rows += [sort_row("distributed_sort", shape, p, t * (2 if shape == "q4_band_u32" else 1)),
                     sort_row("alltoall", shape, p, 7.0 if p == 2 else 5.0)]
    rows += [sort_row("distributed_sort", mg.WEAK, 1, 20.0, 2 ** 30), sort_row("onepass_sort", mg.WEAK, 1, 20.0, 2 ** 30)]
    for p, t in ((2, 22.0), (4, 25.0 if fast else 50.0)):
        rows += [sort_row("distributed_sort", mg.WEAK, p, t, p * 2 ** 30), sort_row("alltoall", mg.WEAK, p, 9.0, p * 2 ** 30)]
    return rows


def shuffle_rows(ours_ms):
    out = []
    for shape in (mg.SHUFFLE_STRONG, mg.SHUFFLE_WEAK):
        out += [{"algorithm": "bijective_shuffle", "shape": shape, "num_ranks": 1, "n_total": 2 ** 30,
                 "seconds_median": 0.038, "items_per_second": 2 ** 30 / 0.038}]
        for p in (1, 2, 4):
            for alg in mg.SHUFFLE_OURS:
                t = 0.038 if p == 1 else ours_ms / 1e3
                out.append({"algorithm": alg, "shape": shape, "num_ranks": p, "n_total": 2 ** 30 * p,
                            "seconds_median": t, "items_per_second": 2 ** 30 * p / t})
            if p > 1:
                out.append({"algorithm": "alltoall", "shape": shape, "num_ranks": p, "n_total": 2 ** 30 * p,
                            "seconds_median": 0.015, "items_per_second": 2 ** 30 * p / 0.015})
    return out


class Verdicts(unittest.TestCase):
    def test_strong_targets_met_and_not_met(self):
        self.assertEqual(mg.count_verdicts(mg.strong_rows(sort_rows(True)))[0], "met")
        rows = mg.strong_rows(sort_rows(False))
        self.assertEqual(mg.count_verdicts(rows)[0], "not met")
        u32_p2 = [r for r in rows if r["shape"] == "keys_u32" and r["P"] == 2][0]
        self.assertAlmostEqual(u32_p2["speedup"], 40.0 / 50.0)
        self.assertEqual(u32_p2["need"], 1.5)

    def test_weak_ratio_against_the_one_gpu_sort(self):
        at4 = [r for r in mg.weak_rows(sort_rows(True)) if r["P"] == 4][0]
        self.assertAlmostEqual(at4["ratio"], 25.0 / 20.0)
        self.assertTrue(at4["ok"])
        self.assertFalse([r for r in mg.weak_rows(sort_rows(False)) if r["P"] == 4][0]["ok"])

    def test_skew_compares_with_uniform_at_the_same_p(self):
        rows = mg.skew_rows(sort_rows(True))
        self.assertTrue(all(r["ok"] is None for r in rows if r["P"] == 1))
        self.assertEqual({r["ok"] for r in rows if r["shape"] == "q4_band_u32" and r["P"] > 1}, {False})
        self.assertEqual({r["ok"] for r in rows if r["shape"] == "presorted_u32" and r["P"] > 1}, {True})

    def test_shuffle_weak_target(self):
        # bound at P = 2: 1.3 x (15 + 38) ms = 68.9 ms
        self.assertEqual(mg.count_verdicts(mg.shuffle_rows(shuffle_rows(60.0), mg.SHUFFLE_WEAK))[0], "met")
        self.assertEqual(mg.count_verdicts(mg.shuffle_rows(shuffle_rows(80.0), mg.SHUFFLE_WEAK))[0], "not met")
        self.assertEqual(mg.count_verdicts(mg.shuffle_rows(shuffle_rows(80.0), mg.SHUFFLE_STRONG))[0], "not measured")

    def test_reachability_bound(self):
        reach = mg.reachability(sort_rows(False))
        self.assertAlmostEqual(reach["bound"], (20.0 + 7.0) / 1e3)
        self.assertAlmostEqual(reach["target_time"], 40.0 / 1.5 / 1e3)
        self.assertFalse(reach["reachable"])


    def test_bounds_from_the_local_sort_rows(self):
        rows = sort_rows(False)
        self.assertEqual(mg.bounds(rows), [])  # no local_sort rows: the older reachability only
        # local sort of N/P keys: 18 ms at P = 2, 9 ms at P = 4 (u32 keys); weak P = 4: 20 ms.
        rows += [sort_row("local_sort", "keys_u32", 2, 18.0), sort_row("local_sort", "keys_u32", 4, 9.0),
                 sort_row("local_sort", mg.WEAK, 4, 20.0, 4 * 2 ** 30)]
        got = {(b["shape"], b["P"]): b for b in mg.bounds(rows)}
        self.assertEqual(sorted(got), [("keys_u32", 2), ("keys_u32", 4), (mg.WEAK, 4)])
        b = got[("keys_u32", 2)]  # 18 + 7 = 25 ms against 40 / 1.5 = 26.7 ms: within reach
        self.assertAlmostEqual(b["bound"], 25.0 / 1e3)
        self.assertAlmostEqual(b["target_time"], 40.0 / 1.5 / 1e3)
        self.assertTrue(b["reachable"])
        b = got[("keys_u32", 4)]  # 9 + 5 = 14 ms against 40 / 2.6 = 15.4 ms
        self.assertTrue(b["reachable"])
        b = got[(mg.WEAK, 4)]  # 20 + 9 = 29 ms against 1.5 x 20 = 30 ms; at 22 ms: 31 > 30
        self.assertTrue(b["reachable"])
        rows[-1] = sort_row("local_sort", mg.WEAK, 4, 22.0, 4 * 2 ** 30)
        self.assertFalse({(x["shape"], x["P"]): x for x in mg.bounds(rows)}[(mg.WEAK, 4)]["reachable"])

    def test_exchange_rate_from_the_phases(self):
        # Weak run, P = 2: the exchange 10 ms on rank 0 (it waited) and 8 ms on rank 1; the
        # all-to-all 9 ms: rate 9 / 8 = 1.125, met. P = 4: 12 and 20 ms against 9 ms: 0.75, not met.
        phases = []
        for p, times in ((2, (10.0, 8.0)), (4, (20.0, 12.0, 15.0, 14.0))):
            for r, t in enumerate(times):
                for name, ms in (("local_sort", 19.0), ("splitters", 1.0), ("exchange", t), ("merge", 3.0)):
                    phases.append({"algorithm": "distributed_sort", "shape": mg.WEAK, "num_ranks": p, "rank": r,
                                   "phase": name, "seconds_median": ms / 1e3})
        table = mg.phase_table(phases, "distributed_sort")
        self.assertEqual(table[(mg.WEAK, 2)]["phases"], ["local_sort", "splitters", "exchange", "merge"])
        self.assertAlmostEqual(table[(mg.WEAK, 4)]["max"]["exchange"], 20.0 / 1e3)
        got = {r["P"]: r for r in mg.exchange_rows(sort_rows(True), phases)}
        self.assertAlmostEqual(got[2]["rate"], 9.0 / 8.0)
        self.assertTrue(got[2]["ok"])
        self.assertAlmostEqual(got[4]["rate"], 9.0 / 12.0)
        self.assertFalse(got[4]["ok"])
        self.assertEqual(mg.count_verdicts(list(got.values()))[0], "not met")


    def test_a_misaligned_all_to_all_decides_only_misses(self):
        # Shuffle rows at P = 3 (N = 3 x 2^30 u64: pieces of 2^30 / 3 items, not 16-byte aligned in a
        # record without alltoall_pieces = aligned16): all-to-all 15 ms, one GPU 38 ms, bound 1.3 x 53 ms.
        def rows_at_3(ours_ms):
            rows = [r for r in shuffle_rows(60.0) if r["num_ranks"] == 1]
            for alg in mg.SHUFFLE_OURS:
                rows.append({"algorithm": alg, "shape": mg.SHUFFLE_WEAK, "num_ranks": 3, "n_total": 3 * 2 ** 30,
                             "seconds_median": ours_ms / 1e3, "items_per_second": 1.0})
            rows.append({"algorithm": "alltoall", "shape": mg.SHUFFLE_WEAK, "num_ranks": 3, "n_total": 3 * 2 ** 30,
                         "seconds_median": 0.015, "items_per_second": 1.0})
            return rows
        self.assertFalse(mg.alltoall_aligned(rows_at_3(60.0), mg.SHUFFLE_WEAK, 3))
        self.assertTrue(mg.alltoall_aligned(rows_at_3(60.0), mg.SHUFFLE_WEAK, 3, aligned_record=True))
        self.assertTrue(mg.alltoall_aligned(shuffle_rows(60.0), mg.SHUFFLE_WEAK, 4))  # 4 x 2^30 / 16 pieces: aligned
        below = [r for r in mg.shuffle_rows(rows_at_3(60.0), mg.SHUFFLE_WEAK) if r["P"] == 3]
        self.assertEqual({r["ok"] for r in below}, {None})  # below a too generous bound: not decided
        self.assertEqual(mg.count_verdicts(below)[0], "not decided")
        above = [r for r in mg.shuffle_rows(rows_at_3(90.0), mg.SHUFFLE_WEAK) if r["P"] == 3]
        self.assertEqual({r["ok"] for r in above}, {False})  # above it: still a miss
        aligned = [r for r in mg.shuffle_rows(rows_at_3(60.0), mg.SHUFFLE_WEAK, True) if r["P"] == 3]
        self.assertEqual({r["ok"] for r in aligned}, {True})
        # The sort's bounds: at P = 3 (misaligned) "out of reach" is not decided, "within reach" is.
        rows = [sort_row("onepass_sort", "keys_u32", 1, 40.0), sort_row("local_sort", "keys_u32", 3, 14.0),
                sort_row("alltoall", "keys_u32", 3, 9.0)]
        mg.STRONG_TARGETS["keys_u32"][3] = 2.0  # 20 ms allowed: 23 ms bound is "out of reach" if aligned
        try:
            b = [x for x in mg.bounds(rows) if x["P"] == 3][0]
            self.assertIsNone(b["reachable"])
            self.assertTrue(b["misaligned"])
            self.assertFalse([x for x in mg.bounds(rows, True) if x["P"] == 3][0]["reachable"])
        finally:
            del mg.STRONG_TARGETS["keys_u32"][3]


class Section(unittest.TestCase):
    def setUp(self):
        self.tmp = _support.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def sort_section(self, rows):
        """The section's report from `rows` as this test's fresh multi_gpu_sort.csv (no recorded runs),
        and its text."""
        _support.write_csv(self.tmp.path, mg.SORT, mg.SORT_COLUMNS, rows)
        report = _support.empty_report(self.tmp.path)
        mg.report_section(report, self.tmp.path, os.path.join(self.tmp.path, "recorded"))
        return report, "\n".join(report.lines)

    def test_recorded_copy_gives_the_section_and_its_summary(self):
        report = _support.empty_report(self.tmp.path)
        recorded = os.path.join(_support.REPO, "results", "recorded")
        if mg.load_sort(self.tmp.path, recorded) is None:
            self.skipTest("no recorded multi_gpu_sort.csv in this checkout")
        mg.report_section(report, self.tmp.path, recorded)
        text = "\n".join(report.lines)
        self.assertIn("## Beyond one GPU", text)
        self.assertIn("Against RMG sort", text)
        self.assertIn("Where the time goes", text)
        for prefix in ("Distributed sort, strong", "Distributed sort, weak", "Distributed sort, skewed"):
            self.assertIn(_support.summary_verdict(report, prefix), ("met", "not met"))
        self.assertIn(_support.summary_verdict(report, "Distributed sort vs RMG"), ("met", "not met", "not decided"))
        self.assertEqual(_support.summary_verdict(report, "Distributed sort of 2^34"), "recorded")

    def test_meta_json_gives_the_provenance_sentence(self):
        # A run's meta.json beside its CSV: the section names the commit and the measured code's freshness
        # (experiments/manifest.toml's stale_when), and the run enters the report's provenance table;
        # without one (a CSV parsed from a log) neither appears.
        report, text = self.sort_section(sort_rows(True))
        self.assertNotIn("Data measured at commit", text)
        self.assertNotIn(mg.SORT, report.gpu_provenance)
        with open(os.path.join(self.tmp.path, mg.SORT + ".meta.json"), "w") as f:
            f.write('{"commit": "0123456", "gpu_name": "Test GPU"}')
        report, text = self.sort_section(sort_rows(True))
        self.assertIn("Data measured at commit `0123456`", text)
        self.assertIn(mg.SORT, report.gpu_provenance)

    def test_rmg_verdict_needs_both_bounds(self):
        # Ours 20 ms at P = 2 (fast rows). RMG between 30 and 90 ms: met (30 / 20 >= 1.3); between
        # 10 and 90: not decided; between 10 and 25: not met (25 / 20 < 1.3).
        for low, high, want in ((30.0, 90.0, "met"), (10.0, 90.0, "not decided"), (10.0, 25.0, "not met")):
            with self.subTest(low=low, high=high):
                tmp = _support.TempDir()
                try:
                    _support.write_csv(tmp.path, mg.SORT, mg.SORT_COLUMNS, sort_rows(True))
                    _support.write_csv(tmp.path, "rmg_sort", mg.SORT_COLUMNS,
                                       [sort_row("rmg_sort", "keys_u32", 2, high),
                                        sort_row("rmg_sort_before_local_sort", "keys_u32", 2, low)])
                    report = _support.empty_report(tmp.path)
                    mg.report_section(report, tmp.path, os.path.join(tmp.path, "recorded"))
                    self.assertEqual(_support.summary_verdict(report, "Distributed sort vs RMG"), want)
                    self.assertEqual(_support.summary_verdict(report, "Distributed sort of 2^34"), "not measured")
                finally:
                    tmp.cleanup()

    def test_bounds_and_phases_in_the_section(self):
        rows = sort_rows(False) + [sort_row("local_sort", "keys_u32", 2, 30.0), sort_row("local_sort", "keys_u32", 4, 9.0)]
        phases = [{"algorithm": "distributed_sort", "shape": mg.WEAK, "num_ranks": 2, "rank": r, "phase": name,
                   "seconds_median": ms / 1e3}
                  for r in (0, 1) for name, ms in (("local_sort", 19.0), ("exchange", 8.0 + r), ("merge", 3.0))]
        _support.write_csv(self.tmp.path, mg.SORT + "_phases", mg.PHASE_COLUMNS, phases)
        report, text = self.sort_section(rows)
        self.assertIn("Are the targets reachable?", text)
        self.assertNotIn("Is the 2-GPU target reachable?", text)
        self.assertIn("**out of reach**", text)  # u32 P = 2: 30 + 7 ms against 26.7 ms
        self.assertIn("Where the time goes, per phase", text)
        self.assertIn("8.00–9.00", text)  # the exchange: smallest–largest over the ranks
        self.assertNotIn("Not measured: the issue's exchange-phase target", text)
        self.assertEqual(_support.summary_verdict(report, "Distributed sort, exchange phase"), "met")  # 9 / 8
        self.assertEqual(_support.summary_verdict(report, "Distributed sort: targets against"), "measured")

    def test_other_devices_records_are_shown(self):
        # The judged record (4 GPUs, fresh) and a 2-GPU record of another device: the latter appears
        # under "Also recorded" with its P = 2 times and speedups, not in the verdicts.
        _support.write_csv(self.tmp.path, mg.SORT, mg.SORT_COLUMNS, sort_rows(True))
        other = os.path.join(self.tmp.path, "recorded", "two-gpus")
        two = [r for r in sort_rows(False) if r["num_ranks"] <= 2]
        _support.write_csv(other, mg.SORT, mg.SORT_COLUMNS, two)
        got = mg.other_sort_rows(two)
        self.assertEqual([r["P"] for r in got], [2])
        self.assertAlmostEqual(got[0]["cells"]["keys_u32"][1], 40.0 / 50.0)  # speedup
        self.assertAlmostEqual(got[0]["cells"][mg.WEAK][1], 22.0 / 20.0)    # time(P) / time(1)
        report = _support.empty_report(self.tmp.path)
        mg.report_section(report, self.tmp.path, os.path.join(self.tmp.path, "recorded"))
        text = "\n".join(report.lines)
        self.assertIn("**Also recorded** (the other devices'", text)
        self.assertIn("`two-gpus`", text)
        self.assertIn("50.00 (0.80×)", text)

    def test_the_two_methods_side_by_side(self):
        # sort_first rows at P = 2 and 4 for u32 keys (ours 20 / 10 ms at partition_first): 16 ms
        # (faster) and 12.5 ms (slower); without them, no table and no summary row.
        rows = sort_rows(True)
        self.assertEqual(mg.method_rows(rows), [])
        self.assertIsNone(mg.method_names(rows))
        rows += [sort_row(mg.MERGE, "keys_u32", 2, 16.0), sort_row(mg.MERGE, "keys_u32", 4, 12.5)]
        got = mg.method_rows(rows)
        self.assertEqual([(r["shape"], r["P"]) for r in got], [("keys_u32", 2), ("keys_u32", 4)])
        self.assertAlmostEqual(got[0]["ratio"], 20.0 / 16.0)
        self.assertAlmostEqual(got[1]["ratio"], 10.0 / 12.5)
        report, text = self.sort_section(rows)
        self.assertEqual(_support.summary_verdict(report, "Distributed sort: sort_first"), "measured")
        self.assertIn("The two methods", text)
        # the targets are still judged on the default method's rows
        self.assertEqual(_support.summary_verdict(report, "Distributed sort, strong"), "met")

    def test_rmg_gpu_resident_time_decides_alone(self):
        # Bounds 10-90 ms leave it undecided; a measured GPU-resident time decides: 30 / 20 >= 1.3
        # met, 24 / 20 < 1.3 not met.
        for resident, want in ((30.0, "met"), (24.0, "not met")):
            with self.subTest(resident=resident):
                tmp = _support.TempDir()
                try:
                    _support.write_csv(tmp.path, mg.SORT, mg.SORT_COLUMNS, sort_rows(True))
                    _support.write_csv(tmp.path, "rmg_sort", mg.SORT_COLUMNS,
                                       [sort_row("rmg_sort", "keys_u32", 2, 90.0),
                                        sort_row("rmg_sort_before_local_sort", "keys_u32", 2, 10.0),
                                        sort_row("rmg_sort_gpu_resident", "keys_u32", 2, resident)])
                    report = _support.empty_report(tmp.path)
                    mg.report_section(report, tmp.path, os.path.join(tmp.path, "recorded"))
                    self.assertEqual(_support.summary_verdict(report, "Distributed sort vs RMG"), want)
                finally:
                    tmp.cleanup()

    def test_rmg_gpu_resident_rows_alone(self):
        # A record holding only RMG's GPU-resident rows (no timer bounds; the H200 x4 record of
        # 2026-11-28): each decides its (shape, P); none, or rows for a (shape, P) we did not run, leave the
        # comparison out ("not decided" with no rows).
        for resident, want in ((30.0, "met"), (24.0, "not met"), (None, "not decided")):
            with self.subTest(resident=resident):
                tmp = _support.TempDir()
                try:
                    _support.write_csv(tmp.path, mg.SORT, mg.SORT_COLUMNS, sort_rows(True))
                    rows = [sort_row("rmg_sort_gpu_resident", "keys_u64", 3, 50.0)]  # not in ours: skipped
                    if resident is not None:
                        rows.append(sort_row("rmg_sort_gpu_resident", "keys_u32", 2, resident))
                    _support.write_csv(tmp.path, "rmg_sort", mg.SORT_COLUMNS, rows)
                    report = _support.empty_report(tmp.path)
                    mg.report_section(report, tmp.path, os.path.join(tmp.path, "recorded"))
                    self.assertEqual(_support.summary_verdict(report, "Distributed sort vs RMG"), want)
                    text = "\n".join(report.lines)
                    if resident is not None:
                        self.assertIn("| %.2f× | %s |" % (resident / 20.0, want if want == "met" else "**%s**" % want), text)
                        self.assertIn("its output is not kept beside the CSV", text)
                    self.assertNotIn("50.00", text)
                finally:
                    tmp.cleanup()

    def test_synthetic_fresh_results_and_medians_only_shuffle(self):
        _support.write_csv(self.tmp.path, mg.SORT, mg.SORT_COLUMNS, sort_rows(True))
        _support.write_csv(self.tmp.path, mg.SHUFFLE + "_medians-abc", mg.SHUFFLE_COLUMNS, shuffle_rows(60.0))
        report = _support.empty_report(self.tmp.path)
        mg.report_section(report, self.tmp.path, os.path.join(self.tmp.path, "recorded"))
        self.assertEqual(_support.summary_verdict(report, "Distributed sort, strong"), "met")
        self.assertEqual(_support.summary_verdict(report, "Distributed shuffle, weak"), "met")
        self.assertIn("Medians only", "\n".join(report.lines))

    def test_newest_recorded_shuffle_is_shown_and_older_ones_listed(self):
        # The newer run (by its meta.json date) is in the folder whose name sorts first: it gives
        # the verdict; the older one is listed under "Also recorded".
        recorded = os.path.join(self.tmp.path, "recorded")
        new_dir, old_dir = os.path.join(recorded, "gpu-a"), os.path.join(recorded, "gpu-b")
        _support.write_csv(new_dir, mg.SHUFFLE, mg.SHUFFLE_COLUMNS, shuffle_rows(60.0))
        _support.write_meta(new_dir, mg.SHUFFLE, date="2026-11-26T18:57:28Z")
        _support.write_csv(old_dir, mg.SHUFFLE, mg.SHUFFLE_COLUMNS, shuffle_rows(280.0))
        _support.write_meta(old_dir, mg.SHUFFLE, date="2026-11-20T10:00:00Z")
        self.assertEqual([d for _, d in mg.shuffle_records(recorded)], ["gpu-a", "gpu-b"])
        report = _support.empty_report(self.tmp.path)
        mg.report_section(report, self.tmp.path, recorded)
        text = "\n".join(report.lines)
        self.assertEqual(_support.summary_verdict(report, "Distributed shuffle, weak"), "met")
        self.assertIn("**Also recorded**", text)
        self.assertIn(os.path.join("gpu-b", mg.SHUFFLE + ".csv"), text)
        self.assertIn("280.0", text)

    def test_recorded_shuffle_with_most_ranks_is_judged_before_a_newer_two_gpu_one(self):
        # A newer 2-GPU run must not displace the 4-GPU one: the shuffle's verdict comes from the record
        # with the most ranks, as the sort's does; the 2-GPU run is listed under "Also recorded".
        recorded = os.path.join(self.tmp.path, "recorded")
        four, two = os.path.join(recorded, "machine-x4"), os.path.join(recorded, "machine-x2")
        _support.write_csv(four, mg.SHUFFLE, mg.SHUFFLE_COLUMNS, shuffle_rows(60.0))
        _support.write_meta(four, mg.SHUFFLE, date="2026-11-27T10:00:00Z")
        _support.write_csv(two, mg.SHUFFLE, mg.SHUFFLE_COLUMNS,
                           [r for r in shuffle_rows(280.0) if int(r["num_ranks"]) <= 2])
        _support.write_meta(two, mg.SHUFFLE, date="2026-11-28T10:00:00Z")
        self.assertEqual([d for _, d in mg.shuffle_records(recorded)], ["machine-x4", "machine-x2"])
        self.assertEqual(mg.load_shuffle(self.tmp.path, recorded).device, "machine-x4")

    def test_no_results_is_not_measured(self):
        report = _support.empty_report(self.tmp.path)
        mg.report_section(report, self.tmp.path, os.path.join(self.tmp.path, "recorded"))
        self.assertEqual(_support.summary_verdict(report, "Distributed sort"), "not measured")
        self.assertEqual(_support.summary_verdict(report, "Distributed shuffle"), "not measured")

    def test_the_two_methods_with_sort_first_the_default(self):
        # Since sort_first is the default, distributed_sort holds its times and the other method's
        # rows are distributed_sort_partition_first: here partition_first 25 / 12.5 ms against the
        # default's 20 / 10 ms (sort_first faster at both P).
        rows = sort_rows(True)
        rows += [sort_row(mg.PARTITION, "keys_u32", 2, 25.0), sort_row(mg.PARTITION, "keys_u32", 4, 12.5)]
        self.assertEqual(mg.method_names(rows), {"partition_first": mg.PARTITION, "sort_first": "distributed_sort",
                                                 "default": "sort_first", "other": mg.PARTITION})
        got = mg.method_rows(rows)
        self.assertEqual([(r["shape"], r["P"]) for r in got], [("keys_u32", 2), ("keys_u32", 4)])
        self.assertAlmostEqual(got[0]["partition_first"], 0.025)
        self.assertAlmostEqual(got[0]["sort_first"], 0.020)
        self.assertAlmostEqual(got[1]["ratio"], 12.5 / 10.0)
        report, text = self.sort_section(rows)
        self.assertIn("the run's default was `sort_first`", text)
        self.assertIn("sort_first faster at 2 of 2", dict((k, d) for k, _, d in report.summary)[
            "Distributed sort: sort_first against partition_first"])

    def test_rmg_rows_of_another_record_are_shown_not_judged(self):
        # The judged 4-GPU record has no rmg_sort.csv; a 2-GPU record has RMG's resident time (30 ms) and ours
        # (20 ms at P = 2): shown under "Also recorded against RMG sort" with its ratio 1.50x, no verdict from it.
        recorded = os.path.join(self.tmp.path, "recorded")
        four, two = os.path.join(recorded, "machine-x4"), os.path.join(recorded, "machine-x2")
        _support.write_csv(four, mg.SORT, mg.SORT_COLUMNS, sort_rows(True))
        _support.write_csv(two, mg.SORT, mg.SORT_COLUMNS, [r for r in sort_rows(True) if r["num_ranks"] <= 2])
        _support.write_csv(two, "rmg_sort", mg.SORT_COLUMNS,
                           [sort_row("rmg_sort_gpu_resident", "keys_u32", 2, 30.0),
                            sort_row("rmg_sort_gpu_resident", "keys_u64", 4, 50.0)])  # no P = 4 there: left out
        data = mg.load_sort(os.path.join(self.tmp.path, "fresh"), recorded)
        self.assertEqual(data.device, "machine-x4")
        rows = mg.other_rmg_rows(data, recorded)
        self.assertEqual([(r[1], r[2]) for r in rows], [(mg.SHAPE_TEXT["keys_u32"], 2)])
        self.assertAlmostEqual(rows[0][5], 1.5)
        report = _support.empty_report(self.tmp.path)
        mg.report_section(report, os.path.join(self.tmp.path, "fresh"), recorded)
        text = "\n".join(report.lines)
        self.assertIn("**Also recorded against RMG sort**", text)
        self.assertIn("| 1.50× |", text)
        self.assertEqual(_support.summary_verdict(report, "Distributed sort vs RMG"), "not measured")

    def test_recorded_run_with_most_ranks_is_reported(self):
        # A 2-GPU record in a folder named after the 4-GPU one must not displace it.
        recorded = os.path.join(self.tmp.path, "recorded")
        four = [r for r in sort_rows(True)]
        two = [r for r in sort_rows(False) if r["num_ranks"] <= 2]
        _support.write_csv(os.path.join(recorded, "machine-a-x4"), mg.SORT, mg.SORT_COLUMNS, four)
        _support.write_csv(os.path.join(recorded, "machine-b-x2"), mg.SORT, mg.SORT_COLUMNS, two)
        path, device = mg._find(os.path.join(self.tmp.path, "fresh"), recorded, [mg.SORT + ".csv"])
        self.assertEqual(device, "machine-a-x4")
        self.assertEqual(mg._max_ranks(path), 4)

    def test_among_equal_ranks_the_newest_record_is_reported(self):
        # Two 4-GPU records (two devices): the newer by its meta.json date is judged, whatever the
        # folder names; without dates, the last by name.
        recorded = os.path.join(self.tmp.path, "recorded")
        for name in ("machine-a-x4", "machine-z-x4"):
            _support.write_csv(os.path.join(recorded, name), mg.SORT, mg.SORT_COLUMNS, sort_rows(True))
        fresh = os.path.join(self.tmp.path, "fresh")
        self.assertEqual(mg._find(fresh, recorded, [mg.SORT + ".csv"])[1], "machine-z-x4")
        for name, date in (("machine-a-x4", "2026-11-28T09:00:00Z"), ("machine-z-x4", "2026-11-27T09:00:00Z")):
            with open(os.path.join(recorded, name, mg.SORT + ".meta.json"), "w") as f:
                f.write('{"date": "%s"}' % date)
        self.assertEqual(mg._find(fresh, recorded, [mg.SORT + ".csv"])[1], "machine-a-x4")

    def test_figures_are_drawn(self):
        _support.write_csv(self.tmp.path, mg.SORT, mg.SORT_COLUMNS, sort_rows(False))
        _support.write_csv(self.tmp.path, mg.SHUFFLE, mg.SHUFFLE_COLUMNS, shuffle_rows(80.0))
        out = os.path.join(self.tmp.path, "out")
        written, problems, _ = mg.draw(self.tmp.path, out, os.path.join(self.tmp.path, "recorded"))
        self.assertEqual(problems, [])
        for name in mg.FIGURES:
            self.assertIn(os.path.join(out, name + ".png"), written)


if __name__ == "__main__":
    unittest.main()
