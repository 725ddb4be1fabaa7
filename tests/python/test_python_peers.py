#!/usr/bin/env python3
"""The Python-package section (figures/python_results.py, experiment python_peers):
ratios and verdicts on synthetic rows (met, not met, a missing peer), the comparison with the
C++ library, and the section and figure from the recorded H100 CSV.

Run alone (from the repository root): python3 -m unittest tests.python.test_python_peers"""

import os
import unittest

from tests.python import _support  # shared test helpers

from figures import python_results as pr  
from figures import shuffle_results as sr  

N = 2 ** 28
RECORDED = os.path.join(_support.REPO, "results", "recorded")


def row(case, algorithm, rate, n=N, segments=1, note=""):
    """One CSV row as read_rows_text gives it (every cell a string)."""
    return {"case": case, "algorithm": algorithm, "framework": algorithm.split("_")[0], "dtype": "int64",
            "n": str(n), "num_segments": str(segments), "items": str(n * segments), "items_per_second": repr(rate),
            "seconds_median": "", "seconds_min": "", "repeats": "5", "note": note}


def shuffle_rows(ours):
    return [row("shuffle", "onepass", ours), row("shuffle", "torch_randperm_gather", 5e9),
            row("shuffle", "cupy_permutation", 10e9), row("shuffle", "jax_permutation", 6e9)]


class FakeReport:
    def __init__(self):
        self.parts, self.summary = [], []

    def add(self, *parts):
        self.parts += parts

    def figure(self, name, caption):
        return "![%s](%s.png)" % (caption, name)

    def text(self):
        return "\n".join(self.parts)


class Verdicts(unittest.TestCase):
    def one(self, rows):
        pts = pr.points(rows)
        self.assertEqual(len(pts), 1)
        return pts[0]

    def test_shuffle_met_and_not_met_against_the_fastest(self):
        p = self.one(shuffle_rows(31e9))
        self.assertEqual(p["fastest_name"], "cupy_permutation")
        self.assertAlmostEqual(p["vs_fastest"], 3.1)
        self.assertEqual((p["target"], p["verdict"]), (3.0, "met"))
        p = self.one(shuffle_rows(29e9))
        self.assertAlmostEqual(p["vs_fastest"], 2.9)
        self.assertEqual(p["verdict"], "not met")

    def test_missing_peer_leaves_the_fastest_target_undecided(self):
        rows = [r for r in shuffle_rows(40e9) if r["algorithm"] != "cupy_permutation"]
        p = self.one(rows)
        self.assertEqual(p["verdict"], "undecided")  # 40/6 = 6.7x, but the fastest framework was not measured
        self.assertEqual(p["missing"], ["cupy_permutation"])
        self.assertIn("cupy_permutation", pr.verdict_text(p))

    def test_missing_ours_is_undecided(self):
        p = self.one([r for r in shuffle_rows(40e9) if r["algorithm"] != "onepass"])
        self.assertEqual(p["verdict"], "undecided")
        self.assertIn("onepass", p["missing"])

    def test_sort_is_decided_against_torch_sort_not_the_fastest(self):
        rows = [row("sort", "onepass", 30e9), row("sort", "torch_sort", 20e9), row("sort", "cupy_sort", 40e9)]
        p = self.one(rows)
        self.assertEqual(p["fastest_name"], "cupy_sort")
        self.assertAlmostEqual(p["vs_fastest"], 0.75)
        self.assertAlmostEqual(p["vs_reference"], 1.5)
        self.assertEqual(p["verdict"], "met")
        p = self.one(rows[:1] + rows[2:])  # no torch_sort: cupy_sort does not stand in for it
        self.assertEqual(p["verdict"], "undecided")
        self.assertEqual(p["missing"], ["torch_sort"])

    def test_normal_targets(self):
        f64 = [row("normal_f64", "onepass", 119e9), row("normal_f64", "torch_randn", 100e9),
               row("normal_f64", "cupy_standard_normal", 20e9)]
        self.assertEqual(self.one(f64)["verdict"], "not met")  # 1.19x < 1.2x
        f64[0] = row("normal_f64", "onepass", 121e9)
        self.assertEqual(self.one(f64)["verdict"], "met")
        f32 = [row("normal_f32", "onepass", 149e9), row("normal_f32", "torch_randn", 100e9)]
        p = self.one(f32)
        self.assertEqual(p["target"], 1.5)
        self.assertEqual(p["verdict"], "undecided")  # cupy's standard_normal not measured
        self.assertEqual(p["missing"], ["cupy_standard_normal"])
        f32.append(row("normal_f32", "cupy_standard_normal", 20e9))
        self.assertEqual(self.one(f32)["verdict"], "not met")  # 1.49x the fastest, torch.randn
        f32[0] = row("normal_f32", "onepass", 151e9)
        p = self.one(f32)
        self.assertEqual(p["verdict"], "met")
        self.assertAlmostEqual(p["vs_reference"], 1.51)

    def test_batched_targets_by_row_length(self):
        rows = []
        for n, ours in ((2 ** 8, 51e9), (2 ** 20, 49e9), (2 ** 22, 10e9), (2 ** 24, 21e9)):
            rows += [row("batched_shuffle", "onepass", ours, n, N // n),
                     row("batched_shuffle", "torch_argsort_rand_gather", 10e9, n, N // n),
                     row("batched_shuffle", "jax_permutation_independent", 4e9, n, N // n)]
        pts = pr.points(rows)
        self.assertEqual([p["n"] for p in pts], [2 ** 8, 2 ** 20, 2 ** 22, 2 ** 24])
        self.assertEqual([p["target"] for p in pts], [5.0, 5.0, None, 2.0])
        self.assertEqual([p["verdict"] for p in pts], ["met", "not met", None, "met"])

    def test_no_target_at_other_sizes(self):
        p = self.one([row("shuffle", "onepass", 40e9, n=2 ** 20), row("shuffle", "cupy_permutation", 1e9, n=2 ** 20)])
        self.assertIsNone(p["target"])
        self.assertIsNone(p["verdict"])

    def test_cpp_comparison_numbers_and_the_gather_bound(self):
        point = pr.points(shuffle_rows(27e9))[0]
        fusion = [{"algorithm": "variable_philox", "case": "best", "n": N, "items_per_second": 28e9},
                  {"algorithm": "variable_philox", "case": "worst", "n": N + 1, "items_per_second": 26e9},
                  {"algorithm": "gather", "case": "best", "n": N, "items_per_second": 28.5e9}]
        c = pr.cpp_comparison(point, fusion, {"gpu_name": "G"}, {"gpu": "G"})
        self.assertAlmostEqual(c["vs_cpp"], 27 / 28)
        self.assertAlmostEqual(c["need"], 30e9)  # 3 x cupy_permutation's 10e9
        self.assertAlmostEqual(c["need_vs_gather"], 30 / 28.5)
        self.assertTrue(c["same_gpu"])
        text = pr.cpp_text(c, point)
        self.assertIn("more than the random gather reaches", text)
        self.assertIn("within 5%", text)
        self.assertIsNone(pr.cpp_comparison(point, fusion[1:2], {}, {}))  # no best-case row at 2^28


class Section(unittest.TestCase):
    def section(self, rows, meta=None):
        r = FakeReport()
        original = pr.load
        pr.load = lambda results, recorded: (None, rows, meta or {"gpu": "GPU", "commit": "abc"})
        try:
            pr.report_section(r, "unused-results-dir", "unused-recorded-dir")
        finally:
            pr.load = original
        return r

    def test_summary_counts_verdicts(self):
        rows = shuffle_rows(31e9) + [row("normal_f64", "onepass", 100e9), row("normal_f64", "torch_randn", 100e9),
                                     row("normal_f64", "cupy_standard_normal", 9e9)]
        r = self.section(rows)
        self.assertEqual(r.summary[0][1], "1 of 2 met")
        self.assertIn("**not met**", r.text())

    def test_summary_names_the_fastest_peer_beside_the_target_reference(self):
        # The sort target is against torch.sort, but the line must also state ours against the fastest
        # peer (here CuPy): the old line gave only "ours ÷ torch_sort 2.73×".
        rows = [row("sort", "onepass", 27.3e9), row("sort", "torch_sort", 10e9), row("sort", "cupy_sort", 20.5e9)]
        r = self.section(rows)
        self.assertIn("ours ÷ `torch_sort` 2.73×", r.summary[0][2])
        self.assertIn("ours ÷ the fastest peer `cupy_sort` 1.33×", r.summary[0][2])
        # Where the reference is the fastest peer, nothing is repeated.
        r = self.section(shuffle_rows(31e9))
        self.assertNotIn("the fastest peer `", r.summary[0][2])

    def test_not_measured(self):
        r = FakeReport()
        original = pr.load
        pr.load = lambda results, recorded: None
        try:
            pr.report_section(r, "unused", "unused")
        finally:
            pr.load = original
        self.assertEqual(r.summary[0][1], "not measured yet")


class Provenance(unittest.TestCase):
    def test_code_paths_name_the_python_program_and_package(self):
        paths = _support.provenance.code_paths("python_peers")
        self.assertEqual(paths[-1], "experiments/python_peers.py")  # not experiments/python_peers.cu
        self.assertIn("python/", paths)
        for path in paths:  # each pathspec names something in the repository (a glob-free path)
            self.assertTrue(os.path.exists(os.path.join(_support.REPO, path)), path)
        self.assertEqual(_support.provenance.code_paths("segmented_shuffle")[-1], "experiments/segmented_shuffle.cu")


@unittest.skipUnless(os.path.isfile(os.path.join(RECORDED, "nvidia-h100", "python_peers.csv")),
                     "no recorded results/recorded/nvidia-h100/python_peers.csv")
class Recorded(unittest.TestCase):
    """The section and figure from the committed H100 run (an empty results directory, so the
    recorded copies are what is read)."""

    def setUp(self):
        self.tmp = _support.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def test_section_renders_with_every_case_and_the_cpp_rates(self):
        r = FakeReport()
        pr.report_section(r, self.tmp.path, RECORDED)
        text = r.text()
        source, rows, meta = pr.load(self.tmp.path, RECORDED)
        self.assertFalse(source.fresh)
        for case in pr.CASES:
            self.assertIn("**%s**" % pr.CASE_TITLES[case], text)
        self.assertIn(meta["gpu"], text)
        self.assertIn(meta["versions"]["torch"], text)
        self.assertIn(meta["timing"], text)
        self.assertIn("![", text)
        pts = pr.points(rows)
        decided = [p for p in pts if p["verdict"] in ("met", "not met")]
        self.assertEqual(len(decided), 9)  # shuffle, five batched shapes, sort, normal_f64, normal_f32
        verdict = r.summary[0][1]
        self.assertEqual(verdict, "%d of 9 met" % sum(p["verdict"] == "met" for p in decided))
        # the C++ paragraph's rates are those of fig10_fusion.csv at 2^28, best case
        fusion, _ = sr.load_experiment(os.path.join(RECORDED, "nvidia-h100"), "fig10_fusion")
        best28 = [f for f in fusion if f["case"] == "best" and f["log2_size"] == 28]
        cpp = [f for f in best28 if f["algorithm"] == "variable_philox"]
        gather = [f for f in best28 if f["algorithm"] == "gather"]
        self.assertIn("%.1f G items/s" % (cpp[0]["items_per_second"] / 1e9), text)
        self.assertIn("%.1f G items/s" % (gather[0]["items_per_second"] / 1e9), text)

    def test_figure_is_drawn_from_the_recorded_csv(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib not installed")
        written, problems = pr.extend(self.tmp.path, self.tmp.path, RECORDED, [], [])
        self.assertEqual(problems, [])
        self.assertEqual(sorted(os.path.basename(p) for p in written), ["python_peers.pdf", "python_peers.png"])
        for p in written:
            self.assertGreater(os.path.getsize(p), 1000)


if __name__ == "__main__":
    unittest.main()
