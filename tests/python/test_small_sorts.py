#!/usr/bin/env python3
"""Issue 33's small-sort table and verdicts (figures/sort_results.small_sorts and the report's
"Small sorts (issue 33)" subsection, paper/sort_section.small_sorts_section), on synthetic
sort_headline rows: the band each size falls in, CUB (best) as the fastest CUB configuration,
targets met, not met (a band median below 1.0, a point below 0.95) and rows missing (a shape, a
band, CUB at a point); which recorded run is reported (newest by meta.json date, a fresh one
first); the same table over every entropy band of a Figs. 9–11 run (figure_small_bands: disturbed
points set aside, end points with one neighbour) and its part of the section.

Run alone (from the repository root): python3 -m unittest tests.python.test_small_sorts"""

import os
import unittest

from tests.python import _support as t  # shared test helpers

mr, so = t.sort_section, t.so  # the sort sections' verdicts (paper/sort_section.py)
SIZES = range(12, 22)  # 2^12..2^21, as the recorded run


def small_rows(ratio_of, sizes=SIZES, shapes=tuple(so.SMALL_SHAPES), n32=10e9, n64=8e9, q=1):
    """sort_headline-like rows: per (shape, log2 n), two CUB configurations (n32 the faster) and
    onepass_sort at ratio_of(shape, log2 n) x the faster (no onepass_sort row where it is None)."""
    rows = []
    for shape in shapes:
        for w in sizes:
            rows += [t.sort_row("cub_onesweep_n32", shape, q, w, n32), t.sort_row("cub_onesweep_n64", shape, q, w, n64)]
            r = ratio_of(shape, w)
            if r is not None:
                rows.append(t.sort_row(so.SELECTOR, shape, q, w, r * max(n32, n64)))
    return rows


def by_shape(result):
    return {s["shape"]: s for s in result["shapes"]}


class Bands(unittest.TestCase):
    def test_half_open_bands_last_closed(self):
        got = {w: so.small_band(2 ** w) for w in range(10, 23)}
        self.assertEqual(got, {10: None, 11: None, 12: 0, 13: 0, 14: 1, 15: 1, 16: 2, 17: 2, 18: 3, 19: 3, 20: 3,
                               21: None, 22: None})

    def test_sizes_between_powers_of_two(self):
        self.assertEqual(so.small_band(2 ** 14 - 1), 0)
        self.assertEqual(so.small_band(3 * 2 ** 13), 1)  # 2^14.6
        self.assertEqual(so.small_band(3 * 2 ** 15), 2)  # 2^16.6
        self.assertEqual(so.small_band(2 ** 20 + 1), None)
        self.assertEqual(so.small_band(2 ** 12 - 1), None)

    def test_band_text(self):
        self.assertEqual([so.small_band_text(i) for i in range(4)],
                         ["[2^12, 2^14)", "[2^14, 2^16)", "[2^16, 2^18)", "[2^18, 2^20]"])

    def test_other_bands(self):
        bands = [(10, 12), (12, 14)]
        self.assertEqual([so.small_band(2 ** w, bands) for w in (10, 11, 12, 13, 14, 15)], [0, 0, 1, 1, 1, None])


class Verdicts(unittest.TestCase):
    def setUp(self):
        self.tmp = t.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def run_rows(self, rows):
        loaded, _ = t.write_sort(self.tmp.path, so.SMALL, rows)
        return so.small_sorts(loaded)

    def test_all_met(self):
        res = self.run_rows(small_rows(lambda s, w: 1.1))
        self.assertEqual(res["header"], ["shape", "[2^12, 2^14)", "[2^14, 2^16)", "[2^16, 2^18)", "[2^18, 2^20]"])
        self.assertEqual([r[0] for r in res["table"]], ["u32 keys", "u32 + u32 pairs", "u64 keys", "u64 + u64 pairs"])
        self.assertEqual(res["table"][0][1:], ["1.100 (1.100)"] * 4)
        for s in res["shapes"]:
            self.assertEqual((s["median_verdict"], s["point_verdict"]), ("met", "met"))
        self.assertEqual(res["below"], [])
        self.assertEqual(mr.targets_verdict(res["targets"]), ("all met (8 of 8)", []))

    def test_ratio_is_against_the_fastest_cub_configuration(self):
        # 0.9 x n32 (the faster) is above n64 (8 / 10 of it) but below CUB (best).
        res = self.run_rows(small_rows(lambda s, w: 0.9))
        s = by_shape(res)["keys_u32"]
        self.assertAlmostEqual(s["cells"][0]["median"], 0.9)
        self.assertEqual({p["winner"] for p in s["points"]}, {"cub_onesweep_n32"})
        self.assertEqual((s["median_verdict"], s["point_verdict"]), ("not met", "not met"))

    def test_one_point_below_095_fails_points_not_median(self):
        # u32 keys at 2^12: 0.83 x; 2^13: 1.24 x -> band median 1.035 (met), the point fails.
        res = self.run_rows(small_rows(lambda s, w: 0.83 if (s, w) == ("keys_u32", 12) else 1.24))
        s = by_shape(res)["keys_u32"]
        self.assertAlmostEqual(s["cells"][0]["median"], (0.83 + 1.24) / 2)
        self.assertAlmostEqual(s["cells"][0]["min"], 0.83)
        self.assertEqual(s["median_verdict"], "met")
        self.assertEqual(s["point_verdict"], "not met")
        self.assertEqual([p["n"] for p in res["below"]], [2 ** 12])
        self.assertEqual(res["table"][0][1], "1.035 (**0.830**)")
        verdict, why = mr.targets_verdict(res["targets"])
        self.assertEqual(verdict, "1 of 8 not met")
        self.assertIn("u32 keys: ≥ 0.95 at every point from 2^12 to 2^20 (0.830, needs ≥ 0.95)", why[0])

    def test_band_median_below_one_fails_median_not_points(self):
        # u64 pairs at 0.97 x from 2^18 to 2^20: every point >= 0.95, the band median < 1.0.
        res = self.run_rows(small_rows(lambda s, w: 0.97 if s == "pairs_u64_u64" and 18 <= w <= 20 else 1.2))
        s = by_shape(res)["pairs_u64_u64"]
        self.assertEqual((s["median_verdict"], s["point_verdict"]), ("not met", "met"))
        self.assertEqual(s["failing"], [3])
        self.assertEqual(len(s["cells"][3]["points"]), 3)  # 2^18, 2^19 and 2^20
        self.assertEqual(res["table"][3][4], "**0.970** (0.970)")

    def test_sizes_outside_the_bands_are_ignored(self):
        res = self.run_rows(small_rows(lambda s, w: 0.5 if w == 21 else 1.1))
        self.assertEqual(mr.targets_verdict(res["targets"])[0], "all met (8 of 8)")
        self.assertNotIn(2 ** 21, [p["n"] for s in res["shapes"] for p in s["points"]])

    def test_other_bands_q_are_ignored(self):
        rows = small_rows(lambda s, w: 1.1) + small_rows(lambda s, w: 0.5, q=8)
        res = self.run_rows(rows)
        self.assertEqual(mr.targets_verdict(res["targets"])[0], "all met (8 of 8)")

    def test_shape_without_onepass_rows_is_not_measured(self):
        res = self.run_rows(small_rows(lambda s, w: None if s == "keys_u64" else 1.1))
        s = by_shape(res)["keys_u64"]
        self.assertEqual((s["median_verdict"], s["point_verdict"]), ("not measured", "not measured"))
        self.assertEqual(res["table"][2], ["u64 keys", "—", "—", "—", "—"])
        self.assertEqual(mr.targets_verdict(res["targets"])[0], "met where measured (6 of 8)")

    def test_other_shape_is_shown_not_counted(self):
        # sort_headline's f32 keys below 0.95 at 2^12: a row and its own verdicts, not a target.
        rows = small_rows(lambda s, w: 1.1) + small_rows(lambda s, w: 0.75 if w == 12 else 1.2, shapes=("keys_f32",))
        res = self.run_rows(rows)
        self.assertEqual([r[0] for r in res["table"]][-1], "f32 keys")
        f = by_shape(res)["keys_f32"]
        self.assertFalse(f["counted"])
        self.assertTrue(by_shape(res)["keys_u32"]["counted"])
        self.assertEqual(f["point_verdict"], "not met")
        self.assertEqual(res["below"], [])
        self.assertEqual([p["n"] for p in res["below_other"]], [2 ** 12])
        self.assertEqual(mr.targets_verdict(res["targets"]), ("all met (8 of 8)", []))

    def test_shape_absent_from_the_run_is_still_a_row(self):
        res = self.run_rows(small_rows(lambda s, w: 1.1, shapes=("keys_u32",)))
        self.assertEqual([s["shape"] for s in res["shapes"]], so.SMALL_SHAPES)
        self.assertEqual(by_shape(res)["pairs_u64_u64"]["median_verdict"], "not measured")

    def test_missing_band_is_not_measured_unless_another_fails(self):
        sizes = [w for w in SIZES if w not in (16, 17)]
        res = self.run_rows(small_rows(lambda s, w: 1.1, sizes=sizes))
        s = by_shape(res)["keys_u32"]
        self.assertEqual((s["missing"], s["median_verdict"], s["point_verdict"]), ([2], "not measured", "not measured"))
        self.assertEqual(res["table"][0][3], "—")
        res = self.run_rows(small_rows(lambda s, w: 0.8 if w == 12 else 1.1, sizes=sizes))  # band median 0.95
        s = by_shape(res)["keys_u32"]
        self.assertEqual((s["median_verdict"], s["point_verdict"]), ("not met", "not met"))

    def test_point_without_cub_is_left_out(self):
        rows = [r for r in small_rows(lambda s, w: 0.5 if w == 13 else 1.1)
                if not (r["log2_n"] == 13 and r["algorithm"].startswith("cub_"))]
        res = self.run_rows(rows)
        s = by_shape(res)["keys_u32"]
        self.assertEqual([p["n"] for p in s["cells"][0]["points"]], [2 ** 12])
        self.assertEqual(mr.targets_verdict(res["targets"])[0], "all met (8 of 8)")

    def test_no_rows_at_all(self):
        res = so.small_sorts([])
        self.assertEqual(mr.targets_verdict(res["targets"])[0], "not measured")


class Runs(unittest.TestCase):
    """Which run is reported: a fresh results/sort_headline_small.csv, else the newest recorded."""

    def setUp(self):
        self.tmp = t.TempDir()
        self.results = os.path.join(self.tmp.path, "results")
        self.recorded = os.path.join(self.tmp.path, "recorded")
        os.makedirs(self.results)

    def tearDown(self):
        self.tmp.cleanup()

    def record(self, device, name, date, ratio=1.1):
        d = os.path.join(self.recorded, device)
        os.makedirs(d, exist_ok=True)
        t.write_sort(d, name, small_rows(lambda s, w: ratio), date=date, commit=name[-7:])
        return os.path.join(d, name + ".csv")

    def test_newest_recorded_by_meta_date(self):
        older = self.record("gpu-a", so.SMALL + "-aaaaaaa", "2026-11-27T01:46:25Z")
        newer = self.record("gpu-a", so.SMALL + "-bbbbbbb", "2026-11-27T01:57:09Z")
        other = self.record("gpu-b", so.SMALL, "2026-11-26T00:00:00Z")
        self.record("gpu-b", "sort_headline", "2026-12-01T00:00:00Z")      # not a small run
        self.record("gpu-b", so.SMALL + "er", "2026-12-01T00:00:00Z")       # another name
        self.assertEqual(so.small_runs(self.results, self.recorded),
                         [(newer, "gpu-a"), (older, "gpu-a"), (other, "gpu-b")])

    def test_date_beats_the_name(self):
        # The name sorts later but the run is older: the date decides.
        newer = self.record("gpu-a", so.SMALL + "-aaaaaaa", "2026-11-28T00:00:00Z")
        older = self.record("gpu-a", so.SMALL + "-zzzzzzz", "2026-11-27T00:00:00Z")
        self.assertEqual([p for p, _ in so.small_runs(self.results, self.recorded)], [newer, older])

    def test_fresh_run_first(self):
        recorded = self.record("gpu-a", so.SMALL + "-bbbbbbb", "2027-01-01T00:00:00Z")
        t.write_sort(self.results, so.SMALL, small_rows(lambda s, w: 1.1), date="2026-01-01T00:00:00Z")
        self.assertEqual(so.small_runs(self.results, self.recorded),
                         [(os.path.join(self.results, so.SMALL + ".csv"), None), (recorded, "gpu-a")])

    def test_none(self):
        self.assertEqual(so.small_runs(self.results, self.recorded), [])

    def loaded(self):
        return [(p, d) + so.load_sort_csv(p) for p, d in so.small_runs(self.results, self.recorded)]

    def test_section_reports_the_newest_and_lists_the_older(self):
        older = self.record("gpu-a", so.SMALL + "-aaaaaaa", "2026-11-27T01:46:25Z", ratio=0.9)
        self.record("gpu-a", so.SMALL + "-bbbbbbb", "2026-11-27T01:57:09Z", ratio=1.1)
        report = t.empty_report(self.tmp.path)
        mr.small_sorts_section(report, self.loaded())
        self.assertEqual(t.summary_verdict(report, "Small sorts vs CUB (best)"), "all met (8 of 8)")
        text = "\n".join(report.lines)
        self.assertIn("### Small sorts (issue 33)", text)
        self.assertIn("| u32 keys | 1.100 (1.100) | 1.100 (1.100) | 1.100 (1.100) | 1.100 (1.100) |", text)
        self.assertIn("**Also recorded**", text)
        self.assertIn(os.path.basename(older), text)
        self.assertIn("u32 keys 0.900 / 0.900 / 0.900 / 0.900", text)
        self.assertIn(so.SMALL, report.gpu_provenance)

    def test_section_not_met(self):
        self.record("gpu-a", so.SMALL + "-bbbbbbb", "2026-11-27T01:57:09Z", ratio=0.9)
        report = t.empty_report(self.tmp.path)
        mr.small_sorts_section(report, self.loaded())
        self.assertEqual(t.summary_verdict(report, "Small sorts vs CUB (best)"), "8 of 8 not met")
        self.assertNotIn("**Also recorded**", "\n".join(report.lines))

    def test_section_not_measured_yet(self):
        report = t.empty_report(self.tmp.path)
        mr.small_sorts_section(report, [])
        self.assertEqual(t.summary_verdict(report, "Small sorts vs CUB (best)"), "not measured yet")
        report = t.empty_report(self.tmp.path)
        mr.onesweep_sections(report, {}, None, None)
        self.assertEqual(t.summary_verdict(report, "Small sorts vs CUB (best)"), "not measured yet")


FIG = "onesweep_fig09_keys32"


def fig_rows(rate_of, sizes=range(11, 22), qs=(1, 8), shape="keys_u32"):
    """Onesweep-figure-like rows of one shape: per (q, log2 n), cub_onesweep_n32 and onepass_sort at
    rate_of(q, log2 n) = (ours keys/s, CUB keys/s); no onepass_sort row where ours is None."""
    rows = []
    for q in qs:
        for w in sizes:
            ours, cub = rate_of(q, w)
            rows.append(t.sort_row("cub_onesweep_n32", shape, q, w, cub))
            if ours is not None:
                rows.append(t.sort_row(so.SELECTOR, shape, q, w, ours))
    return rows


def dip(at, ours=1.0, cub=1.0, base=(11e9, 10e9)):
    """rate_of: base rates (ours 1.1 x CUB) except ours x ours and CUB x cub at the (q, log2 n) in `at`."""
    return lambda q, w: (base[0] * ours, base[1] * cub) if (q, w) in at else base


class FigureBands(unittest.TestCase):
    """figure_small_bands: issue 33's table over every entropy band of one Figs. 9–11 run."""

    def setUp(self):
        self.tmp = t.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def run_rows(self, rows):
        loaded, _ = t.write_sort(self.tmp.path, FIG, rows)
        return so.figure_small_bands(loaded)

    def test_band_median_and_min_over_every_q(self):
        # q = 1 at 1.2 x, q = 8 at 1.0 x: band [2^12, 2^14) holds 1.2, 1.2, 1.0, 1.0; 2^11 and 2^21 ignored.
        res = self.run_rows(fig_rows(lambda q, w: (0.1 if w in (11, 21) else (12e9 if q == 1 else 10e9), 10e9)))
        s = by_shape(res)["keys_u32"]
        self.assertEqual([s["shape"] for s in res["shapes"]], ["keys_u32"])
        self.assertAlmostEqual(s["cells"][0]["median"], 1.1)
        self.assertAlmostEqual(s["cells"][0]["min"], 1.0)
        self.assertEqual(len(s["cells"][3]["points"]), 6)  # 2^18..2^20 at q = 1 and 8
        self.assertEqual(res["table"][0], ["u32 keys"] + ["1.100 (1.000)"] * 4)
        self.assertEqual((s["median_verdict"], s["point_verdict"]), ("met", "met"))
        self.assertEqual(mr.targets_verdict(res["targets"])[0], "all met (2 of 2)")

    def test_disturbed_point_is_set_aside(self):
        # q = 8, 2^15: ours at 0.38 x and CUB at 0.45 x the rates of 2^14 and 2^16 (both below half of
        # both neighbours'): ratio 0.38 x 11 / (0.45 x 10) = 0.929.
        res = self.run_rows(fig_rows(dip({(8, 15)}, ours=0.38, cub=0.45)))
        s = by_shape(res)["keys_u32"]
        self.assertEqual([(p["q"], p["n"], p["disturbed"]) for p in s["below"]], [(8, 2 ** 15, True)])
        self.assertEqual(s["set_aside"], s["below"])
        self.assertAlmostEqual(s["below"][0]["ratio"], 0.38 * 1.1 / 0.45)
        self.assertEqual(s["below"][0]["winner"], "cub_onesweep_n32")
        self.assertEqual((s["median_verdict"], s["point_verdict"]), ("met", "met"))
        self.assertIn("(**0.929**)", res["table"][0][2])  # the minimum still shows it

    def test_only_ours_slow_is_not_disturbed(self):
        res = self.run_rows(fig_rows(dip({(8, 15)}, ours=0.38)))
        s = by_shape(res)["keys_u32"]
        self.assertEqual([p["disturbed"] for p in s["below"]], [False])
        self.assertEqual((s["median_verdict"], s["point_verdict"]), ("met", "not met"))
        verdict, why = mr.targets_verdict(res["targets"])
        self.assertEqual(verdict, "1 of 2 not met")
        self.assertIn("that is not disturbed (0.418, needs ≥ 0.95)", why[0])

    def test_slow_beside_one_neighbour_only_is_not_disturbed(self):
        # 2^15 and 2^16 both slow: 2^15 is not below half of 2^16's rates, nor 2^16 of 2^15's.
        res = self.run_rows(fig_rows(dip({(8, 15), (8, 16)}, ours=0.38, cub=0.45)))
        s = by_shape(res)["keys_u32"]
        self.assertEqual([(p["n"], p["disturbed"]) for p in s["below"]], [(2 ** 15, False), (2 ** 16, False)])
        self.assertEqual(s["point_verdict"], "not met")

    def test_end_points_have_one_neighbour(self):
        # Sizes 2^12..2^20: 2^12 (only 2^13 beside it) and 2^20 (only 2^19) both slow at q = 1.
        res = self.run_rows(fig_rows(dip({(1, 12), (1, 20)}, ours=0.38, cub=0.45), sizes=range(12, 21)))
        s = by_shape(res)["keys_u32"]
        self.assertEqual([(p["n"], p["disturbed"]) for p in s["below"]], [(2 ** 12, True), (2 ** 20, True)])
        self.assertEqual(s["point_verdict"], "met")
        res = self.run_rows(fig_rows(dip({(1, 12)}, ours=0.38, cub=0.6), sizes=range(12, 21)))  # CUB not slow enough
        self.assertEqual(by_shape(res)["keys_u32"]["point_verdict"], "not met")

    def test_spread_of_ours_timed_runs(self):
        rows = fig_rows(dip({(8, 15)}, ours=0.38))
        for r in rows:
            if r["algorithm"] == so.SELECTOR and (r["q"], r["log2_n"]) == (8, 15):
                r["seconds_max"] = 2 * r["seconds_min"]
        s = by_shape(self.run_rows(rows))["keys_u32"]
        self.assertAlmostEqual(s["below"][0]["spread"], 2.0)
        self.assertAlmostEqual(s["points"][0]["spread"], 1.0)

    def test_without_onepass_rows_not_measured(self):
        res = self.run_rows(fig_rows(lambda q, w: (None, 10e9)))
        s = by_shape(res)["keys_u32"]
        self.assertEqual((s["median_verdict"], s["point_verdict"]), ("not measured", "not measured"))
        self.assertEqual(res["table"][0], ["u32 keys", "—", "—", "—", "—"])
        self.assertEqual(mr.targets_verdict(res["targets"])[0], "not measured")
        self.assertEqual(so.figure_small_bands([])["shapes"], [])

    def test_section_table_with_and_without_figure_runs(self):
        loaded, meta = t.write_sort(self.tmp.path, FIG, fig_rows(dip({(8, 15)}, ours=0.38, cub=0.45)))
        figures = {FIG: (t.sr.GpuSource(FIG, self.tmp.path, None), loaded, meta)}
        title = "#### The same ratio over every entropy band of Figs. 9–11"
        item = "Small sorts vs CUB (best), Figs. 9–11, every band (issue 33)"
        report = t.empty_report(self.tmp.path)
        mr.small_sorts_section(report, [], figures)
        text = "\n".join(report.lines)
        self.assertIn(title, text)
        self.assertIn("| Fig. 9 / u32 keys | 1.100 (1.100) | 1.100 (**0.929**) | 1.100 (1.100) | 1.100 (1.100) | "
                      "met | met |", text)
        self.assertIn("Fig. 10: not measured", text)
        self.assertIn("- Fig. 9, u32 keys, n = 32,768 (2^15), q = 8: 0.929 (CUB (best) = `cub_onesweep_n32`; "
                      "ours' max/min 1.00); disturbed, set aside", text)
        self.assertEqual(t.summary_verdict(report, item), "met where measured (2 of 4)")
        self.assertEqual(t.summary_verdict(report, "Small sorts vs CUB (best), 2^12"), "not measured yet")
        for figs in (None, {}):
            report = t.empty_report(self.tmp.path)
            mr.small_sorts_section(report, [], figs)
            text = "\n".join(report.lines)
            self.assertNotIn("| Fig. 9 /", text)
            self.assertEqual([i for i, *_ in report.summary if i == item], [])
            self.assertEqual(title in text, figs is not None)
        self.assertIn("Fig. 9: not measured", text)


if __name__ == "__main__":
    unittest.main()
