#!/usr/bin/env python3
"""The segmented-shuffle section (figures/segmented_results.py): ratios per shape and the
targets' verdicts on synthetic rows.

Run alone (from the repository root): python3 -m unittest tests.python.test_segmented_results"""

import os
import unittest

from tests.python import _support  # shared test helpers

from figures import segmented_results as sg  


def row(alg, n, segs, rate):
    return {"algorithm": alg, "n": n, "num_segments": segs, "items_per_second": rate}


class Points(unittest.TestCase):
    def test_ratios_and_order(self):
        rows = [row("segmented_shuffle", 0, 10, 40e9), row("cub_segmented_sort", 0, 10, 10e9),
                row("segmented_shuffle", 256, 4, 100e9), row("copy", 256, 4, 180e9),
                row("segment_id_sort", 256, 4, 9e9), row("loop_shuffle", 256, 4, 20e9)]
        small, ragged = sg.points(rows)
        self.assertEqual((small["n"], ragged["n"]), (256, 0))  # the ragged case last
        self.assertEqual(small["best_name"], "loop_shuffle")
        self.assertAlmostEqual(small["vs_best"], 5.0)
        self.assertAlmostEqual(small["vs_sorts"], 100 / 9)
        self.assertAlmostEqual(small["vs_copy"], 100 / 180)
        self.assertIsNone(ragged["vs_copy"])


class Section(unittest.TestCase):
    class Report:
        def __init__(self):
            self.parts, self.summary = [], []

        def add(self, *parts):
            self.parts += parts

        def figure(self, name, caption):
            return "![%s](%s)" % (caption, name)

    def section(self, rows):
        r = self.Report()
        original = sg.load
        sg.load = lambda results, recorded: (None, rows, {"gpu_name": "GPU", "commit": "abc"})
        try:
            sg.report_section(r, "unused", "unused")
        finally:
            sg.load = original
        return r

    def test_met_and_not_met(self):
        ok = [row("segmented_shuffle", 256, 4, 100e9), row("copy", 256, 4, 180e9), row("segment_id_sort", 256, 4, 9e9)]
        self.assertEqual(self.section(ok).summary[0][1], "all met")
        slow = [row("segmented_shuffle", 256, 4, 80e9), row("copy", 256, 4, 180e9), row("segment_id_sort", 256, 4, 9e9)]
        r = self.section(slow)  # 0.44x copy
        self.assertEqual(r.summary[0][1], "not all met")
        self.assertIn("**not met**", "\n".join(r.parts))

    def test_not_measured(self):
        r = self.Report()
        original = sg.load
        sg.load = lambda results, recorded: None
        try:
            sg.report_section(r, "unused", "unused")
        finally:
            sg.load = original
        self.assertEqual(r.summary[0][1], "not measured yet")


if __name__ == "__main__":
    unittest.main()
