#!/usr/bin/env python3
"""The walking permutation's index generator on the GPU (figures/walking_results.py, experiment
walking_sampler, issue 28 §1 and §3) on small synthetic CSVs: the target "≥ 10 G indices/s on the
H100 at every N, worst case 2^k + 1 included" (met, not met, met where measured, not measured, a GPU
other than the H100, decided on the default structure only), the structure finding (warp queue
against one walk per lane), the section, the figure hook and the provenance map.

Run alone (from the repository root): python3 -m unittest tests.python.test_walking_results"""

import os
import unittest

from tests.python import _support  # shared test helpers

from figures import walking_results as wk

SAMPLER = [10 ** 6, 10 ** 8, 10 ** 9, 3 * 10 ** 9]
KS = [20, 24, 28, 32]


def row(algorithm, n, case, rate, evaluations=1.0, slots=1.0, max_walk=1, batch=2 ** 28):
    b = max(1, (n - 1).bit_length())
    seconds = batch / rate
    return {"algorithm": algorithm, "num_items": n, "case": case, "domain_bits": b, "batch": batch, "reps": 7,
            "seconds_median": seconds, "seconds_min": seconds, "seconds_max": seconds, "indices_per_second": rate,
            "mean_evaluations": evaluations, "max_walk": max_walk, "lane_slots_per_index": slots,
            "bijective2_evaluations_per_index": 2 ** b / n}


def rows_of(queue=40e9, lane=17e9, sizes=None, worst_queue=None, structures=(wk.DEFAULT, wk.NAIVE)):
    """Both structures at the sampler sizes, 2^k and 2^k + 1: the warp queue at `queue` indices/s
    (worst case `worst_queue` if given), one walk per lane at `lane`; worst case 2 evaluations,
    lane slots 2.07 (queue) and 6.35 (per lane); best case one per lane 1.2x the queue."""
    points = [(n, "sampler") for n in SAMPLER]
    for k in KS:
        points += [(2 ** k, "best"), (2 ** k + 1, "worst")]
    if sizes is not None:
        points = [p for p in points if p[0] in sizes]
    out = []
    for n, case in points:
        for a in structures:
            if case == "best":
                rate = queue if a == wk.DEFAULT else 1.2 * queue
                out.append(row(a, n, case, rate))
            elif case == "worst":
                rate = (worst_queue or queue) if a == wk.DEFAULT else lane
                out.append(row(a, n, case, rate, 2.0, 2.07 if a == wk.DEFAULT else 6.35, 22))
            else:
                rate = 2 * queue if a == wk.DEFAULT else queue
                out.append(row(a, n, case, rate, 1.3, 1.35 if a == wk.DEFAULT else 3.5, 12))
    return out


class FakeReport:
    def __init__(self):
        self.parts, self.summary = [], []

    def add(self, *parts):
        self.parts += parts

    def figure(self, name, caption):
        return "![%s](%s.png)" % (caption, name)

    def text(self):
        return "\n".join(self.parts)


class Results:
    """recorded/<device>/walking_sampler.csv + meta.json in a scratch directory."""

    def __init__(self):
        self.tmp = _support.TempDir()
        self.results = os.path.join(self.tmp.path, "results")
        self.recorded = os.path.join(self.tmp.path, "recorded")
        os.makedirs(self.results)

    def record(self, rows, device="nvidia-h100", **meta):
        d = os.path.join(self.recorded, device)
        _support.write_csv(d, wk.EXPERIMENT, wk.COLUMNS, rows)
        fields = {"gpu_name": "NVIDIA H100 80GB HBM3", "stat_positions": "4194304", "reps": "7"}
        fields.update(meta)
        _support.write_meta(d, wk.EXPERIMENT, **fields)
        return d

    def load(self):
        return wk.load(self.results, self.recorded)

    def cleanup(self):
        self.tmp.cleanup()


class Verdict(unittest.TestCase):
    def setUp(self):
        self.r = Results()

    def tearDown(self):
        self.r.cleanup()

    def verdict(self, rows, **meta):
        self.r.record(rows, **meta)
        _, loaded, m = self.r.load()
        return wk.target_verdict(loaded, m)

    def test_met_everywhere_names_the_minimum(self):
        t = self.verdict(rows_of(queue=40e9, worst_queue=35e9))
        self.assertEqual(t["verdict"], "met")
        self.assertEqual(t["minimum"]["case"], "worst")
        self.assertAlmostEqual(t["minimum"]["indices_per_second"], 35e9)
        self.assertEqual(len(t["points"]), 12)  # the default structure's rows only
        self.assertTrue(wk.verdict_text(t).startswith("met; minimum 35 G/s at N = 2^20+1 (worst case 2^k+1)"))

    def test_the_naive_structure_does_not_decide(self):
        t = self.verdict(rows_of(queue=40e9, lane=5e9))  # one walk per lane below 10 G/s at the worst case
        self.assertEqual(t["verdict"], "met")

    def test_one_worst_case_below_ten_is_not_met(self):
        rows = [r for r in rows_of(queue=40e9) if not (r["num_items"] == 2 ** 32 + 1 and r["algorithm"] == wk.DEFAULT)]
        rows.append(row(wk.DEFAULT, 2 ** 32 + 1, "worst", 9.5e9, 2.0, 2.07, 22))
        t = self.verdict(rows)
        self.assertEqual(t["verdict"], "not met")
        self.assertEqual(t["minimum"]["num_items"], 2 ** 32 + 1)
        text = wk.verdict_text(t)
        self.assertIn("**not met**; minimum 9.5 G/s at N = 2^32+1", text)
        self.assertIn("1 of 12 sizes below 10 G/s", text)

    def test_exactly_ten_meets(self):
        self.assertEqual(self.verdict(rows_of(queue=10e9, worst_queue=10e9))["verdict"], "met")

    def test_missing_sizes_give_met_where_measured(self):
        sizes = SAMPLER[:2] + [2 ** k for k in KS] + [2 ** 20 + 1]
        t = self.verdict(rows_of(sizes=sizes))
        self.assertEqual(t["verdict"], "met where measured")
        self.assertEqual(t["missing"], [10 ** 9, 3 * 10 ** 9, 2 ** 24 + 1, 2 ** 28 + 1, 2 ** 32 + 1])
        self.assertIn("not measured at N = 10^9, 3·10^9, 2^24+1", wk.verdict_text(t))

    def test_no_default_rows_is_not_measured(self):
        t = self.verdict(rows_of(structures=(wk.NAIVE,)))
        self.assertEqual(t["verdict"], "not measured")
        self.assertEqual(wk.verdict_text(t), "not measured")

    def test_another_gpu_is_named(self):
        t = self.verdict(rows_of(), gpu_name="NVIDIA H200")
        self.assertEqual(t["verdict"], "met")
        self.assertFalse(t["on_target_device"])
        self.assertIn("measured on NVIDIA H200, not an H100", wk.verdict_text(t))


class Structure(unittest.TestCase):
    def test_worst_case_savings_in_slots_and_time(self):
        f = wk.structure_finding(rows_of(queue=40e9, lane=16e9))
        self.assertEqual(f["worst"]["sizes"], [2 ** k + 1 for k in KS])
        self.assertAlmostEqual(f["worst"]["speedup"][0], 2.5)
        self.assertAlmostEqual(f["worst"]["slots_saved"][0], 6.35 / 2.07)
        text = wk.finding_sentences(f)
        self.assertTrue(text[0].startswith("At the worst case 2^k + 1 (N = 2^20+1, 2^24+1, 2^28+1, 2^32+1) the warp "
                                           "queue is 2.50× faster than one walk per lane: it spends 2.07 lane slots "
                                           "per index against 6.35 (3.07× fewer)"), text[0])
        self.assertIn("At the sampler sizes (N = 10^6, 10^8, 10^9, 3·10^9) the warp queue is 2.00× faster", text[1])
        self.assertIn("At the best case 2^k (N = 2^20, 2^24, 2^28, 2^32) one walk per lane is 1.20× faster "
                      "(both 1.00 lane slots per index)", text[2])

    def test_a_slower_queue_at_the_worst_case_is_said(self):
        f = wk.structure_finding(rows_of(queue=40e9, lane=50e9))
        self.assertIn("the warp queue is 1.25× slower than one walk per lane", wk.finding_sentences(f)[0])

    def test_one_structure_alone_gives_no_finding(self):
        self.assertEqual(wk.structure_finding(rows_of(structures=(wk.DEFAULT,))), {})


class Section(unittest.TestCase):
    def setUp(self):
        self.r = Results()

    def tearDown(self):
        self.r.cleanup()

    def section(self, report=None):
        report = report or FakeReport()
        wk.report_section(report, self.r.results, self.r.recorded)
        return report

    def test_not_measured_yet(self):
        rep = self.section()
        self.assertEqual(rep.summary[0][1], "not measured")
        self.assertIn("Not measured yet", rep.text())

    def test_table_verdict_finding_and_fig10_reference(self):
        self.r.record(rows_of(queue=40e9, worst_queue=35e9))
        rep = self.section()
        text = rep.text()
        self.assertIn("## The walking permutation as an index generator (`walking_sampler`)", text)
        self.assertIn("| 3·10^9 | sampler | 32 | 80.0 | 40.0 | 1.300 |", text)
        self.assertIn("| 2^32+1 | worst | 33 | 35.0 | 17.0 | 2.000 | 2.000 | 22 | 2.070 | 6.350 |", text)
        self.assertIn("for the default structure: met; minimum 35 G/s at N = 2^20+1", text)
        self.assertIn("Fig. 10 section", text)
        self.assertIn("![", text)
        self.assertEqual(rep.summary[0][1], "met")

    def test_summary_names_another_gpu(self):
        self.r.record(rows_of(), gpu_name="NVIDIA H200")
        self.assertEqual(self.section().summary[0][1], "met (on NVIDIA H200, not an H100)")

    def test_malformed_csv_is_reported_not_raised(self):
        d = os.path.join(self.r.recorded, "nvidia-h100")
        _support.write_csv(d, wk.EXPERIMENT, ["algorithm", "num_items"], [{"algorithm": wk.DEFAULT, "num_items": 1}])
        _support.write_meta(d, wk.EXPERIMENT)
        rep = self.section()
        self.assertEqual(rep.summary[0][1], "not measured")
        self.assertEqual(wk.required_figures(self.r.results, self.r.recorded), [wk.FIGURE])

    def test_in_the_real_report_its_provenance_is_kept(self):
        self.r.record(rows_of())
        rep = _support.empty_report(self.r.tmp.path)
        self.section(rep)
        self.assertIn(wk.EXPERIMENT, rep.gpu_provenance)
        self.assertEqual(_support.summary_verdict(rep, "Walking permutation on the GPU"), "met")


class Hooks(unittest.TestCase):
    def setUp(self):
        self.r = Results()

    def tearDown(self):
        self.r.cleanup()

    def test_hook_skips_silently_without_results(self):
        written, problems = wk.extend(self.r.results, self.r.tmp.path, self.r.recorded, [], [])
        self.assertEqual((written, problems), ([], []))
        self.assertEqual(wk.required_figures(self.r.results, self.r.recorded), [])

    def test_hook_draws_from_the_recorded_copy(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib not installed")
        self.r.record(rows_of())
        out = os.path.join(self.r.tmp.path, "figures")
        os.makedirs(out)
        written, problems = wk.extend(self.r.results, out, self.r.recorded, [], [])
        self.assertEqual(problems, [])
        self.assertEqual(sorted(os.path.basename(p) for p in written), ["walking_sampler.pdf", "walking_sampler.png"])
        self.assertEqual(wk.required_figures(self.r.results, self.r.recorded), [wk.FIGURE])

    def test_provenance_maps_the_measured_code(self):
        paths = _support.provenance.code_paths(wk.EXPERIMENT)
        self.assertEqual(paths[-1], "experiments/walking_sampler.cu")
        for p in ("lib/include/onepass/shuffle/gpu_walking.cuh", "lib/include/onepass/shuffle/walking_permutation.hpp",
                  "lib/include/onepass/shuffle/cpu_walking.hpp", "lib/include/onepass/shuffle/gpu_evaluator.cuh"):
            self.assertIn(p, paths)


if __name__ == "__main__":
    unittest.main()
