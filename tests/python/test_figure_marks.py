#!/usr/bin/env python3
"""What the figures mark and say (figures/sort_results.py, figures/segmented_results.py,
figures/plot_all.py), on synthetic rows: ratios above a panel's top marked with their value,
each CUB configuration grey beside a green CUB (best), the headline chart's rows and labels,
the reason a segmented-shuffle bar is missing, the Gather line's wording, Fig. 10's spread
of repetitions, and the selector figure's legend clear of its footer once saved.

Run alone (from the repository root): python3 -m unittest tests.python.test_figure_marks"""

import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402


from figures import palette  # noqa: E402
from figures import plot_all  # noqa: E402
from figures import segmented_results as sg  # noqa: E402
from figures import sort_results as so  # noqa: E402


def capture(module):
    """Replaces module.save_figure by one that keeps the figure open and returns it in a list."""
    kept = []
    original = module.save_figure

    def keep(fig, out_dir, name):
        kept.append(fig)
        return [name]

    module.save_figure = keep
    return kept, lambda: setattr(module, "save_figure", original)


def sort_row(alg, q, n, rate, spread=0.02):
    seconds = n / rate
    return {"algorithm": alg, "label": alg, "shape": "keys_u32", "q": q, "n": n, "log2_n": n.bit_length() - 1,
            "reps": 5, "seconds_median": seconds, "seconds_min": seconds * (1 - spread),
            "seconds_max": seconds * (1 + spread), "keys_per_second": rate}


class ClippedRatios(unittest.TestCase):
    def test_points_above_the_top_are_returned_in_order(self):
        pts = [(256, 1.1), (512, 3.6), (1024, 2.5), (2048, 6.5)]
        self.assertEqual(so.clipped_points(pts, 2.5), [(512, 3.6), (2048, 6.5)])
        self.assertEqual(so.clipped_points(pts, 10.0), [])

    def test_marked_with_a_triangle_on_the_edge_and_the_value(self):
        fig, ax = plt.subplots()
        ax.set_ylim(0, 2.5)
        marked = so.mark_clipped(ax, [(256, 1.2), (512, 3.64)], 2.5, "#123456")
        self.assertEqual(marked, [(512, 3.64)])
        triangles = [ln for ln in ax.lines if ln.get_marker() == "^"]
        self.assertEqual(len(triangles), 1)
        self.assertEqual(list(triangles[0].get_ydata()), [2.5])  # on the top edge, not above it
        self.assertIn("3.6", [t.get_text() for t in ax.texts])
        plt.close(fig)

    def test_sort_figure_marks_a_spike_and_draws_cub_configurations_grey(self):
        sizes = [2 ** w for w in range(16, 23)]
        rows = []
        for n in sizes:
            rows += [sort_row("onesweep", 1, n, 12e9), sort_row("cub_onesweep_n64", 1, n, 10e9),
                     sort_row("cub_onesweep_n32", 1, n, 9.5e9),
                     sort_row("cub_reduce_then_scan", 1, n, 0.2e9 if n == 2 ** 19 else 7e9)]  # ÷ rts = 60 there
        kept, restore = capture(so)
        try:
            so.draw_sort_figure(rows, {}, "unused", "onesweep_fig09_keys32", None, facts={})
        finally:
            restore()
        fig = kept[0]
        texts = [t.get_text() for a in fig.axes for t in a.texts]
        self.assertIn("60.0", texts)  # the clipped ÷ reduce-then-scan point, its value written
        self.assertTrue(any(ln.get_marker() == "^" and not ln.get_clip_on() for a in fig.axes for ln in a.lines))
        colours = {ln.get_label(): to_hex(ln.get_color()) for a in fig.axes for ln in a.lines}
        greys = [lab for lab, c in colours.items() if c == so.CUB_CONFIG_GREY]
        self.assertEqual(len(greys), 3)  # the three CUB configurations
        self.assertIn(to_hex(palette.CUB_BEST), colours.values())  # CUB (best) keeps its green
        legend = [t.get_text() for t in fig.legends[0].get_texts()]
        self.assertTrue(any("above" in t and "top edge" in t for t in legend))
        plt.close(fig)


class Headline(unittest.TestCase):
    def test_groups_in_rows(self):
        groups = list(range(10))
        self.assertEqual(so.headline_rows(groups, 4), [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]])
        self.assertEqual(so.headline_rows([], 4), [])
        with self.assertRaises(ValueError):
            so.headline_rows(groups, 0)

    def test_a_ratio_below_one_never_reads_one(self):
        self.assertEqual(so.headline_label(1.174), "1.17")
        self.assertEqual(so.headline_label(0.69), "0.69")
        self.assertEqual(so.headline_label(0.9964), "0.996")
        self.assertEqual(so.headline_label(0.99996), "1.0000")  # four decimals at most

    def test_figure_is_at_most_about_ten_inches_wide(self):
        rows = []
        for q in (1, 2, 3, 4, 8, 16):
            for n in (2 ** 12, 2 ** 16, 2 ** 20, 2 ** 24, 2 ** 28):
                rows += [sort_row("onesweep", q, n, 11e9), sort_row("cub_onesweep_n64", q, n, 10e9)]
        kept, restore = capture(so)
        try:
            so.draw_headline_figure(rows, {}, "unused", None)
        finally:
            restore()
        fig = kept[0]
        self.assertLessEqual(fig.get_figwidth(), 10.5)
        labels = [t for a in fig.axes for t in a.texts if t.get_text() == "1.10"]
        self.assertEqual(len(labels), 30)
        self.assertGreaterEqual(labels[0].get_fontsize(), 8)
        plt.close(fig)


class SegmentedMissingBars(unittest.TestCase):
    META = {"skipped": "loop_shuffle at n = 2^8 (1048576 rows): more than 4096 rows; "
                       "ragged (44869 rows): buffers: out of memory"}

    def test_reasons_from_the_skipped_note(self):
        self.assertEqual(sg.skipped_reasons(self.META),
                         {("loop_shuffle", 256): "more than 4096 rows", (None, 0): "buffers: out of memory"})
        self.assertEqual(sg.skipped_reasons({}), {})

    def test_each_missing_bar_with_its_reason_or_not_measured(self):
        rows = [{"algorithm": a, "n": n, "num_segments": 2 ** 28 // max(n, 1), "items_per_second": 1e9}
                for a, n in (("segmented_shuffle", 256), ("segmented_shuffle", 65536), ("loop_shuffle", 65536),
                             ("segmented_shuffle", 0), ("copy", 0))]
        pts = sg.points(rows)
        got = sg.missing_bars(pts, self.META)
        self.assertIn((0, "loop_shuffle", "more than 4096 rows"), got)
        self.assertIn((2, "loop_shuffle", "buffers: out of memory"), got)  # the whole shape skipped
        self.assertIn((0, "copy", "not measured"), got)
        self.assertNotIn("cub_segmented_sort", [a for _, a, _ in got])  # never measured: no empty slot


class GatherAndFusion(unittest.TestCase):
    def test_gather_called_a_bound_only_when_nothing_passes_it(self):
        line, title = plot_all.gather_line_label([])
        self.assertIn("upper bound", line)
        line, title = plot_all.gather_line_label(["LCG", "RS (paper)", "LCG"])
        self.assertNotIn("upper bound)", line)
        self.assertIn("no upper bound", title)
        self.assertIn("LCG, RS (paper)", title)

    def test_fusion_ranges_from_the_fastest_and_slowest_runs(self):
        rows = [{"algorithm": "gather", "case": "worst", "log2_size": 8, "n": 257, "seconds_min": 1e-6,
                 "seconds_max": 2e-6},
                {"algorithm": "gather", "case": "worst", "log2_size": 9, "n": 513, "seconds_min": None,
                 "seconds_max": 2e-6}]
        got = plot_all.fusion_ranges(rows)
        self.assertEqual(list(got), [("gather", "worst")])
        lo, hi = got[("gather", "worst")][8]
        self.assertAlmostEqual(lo, 257 / 2e-6)
        self.assertAlmostEqual(hi, 257 / 1e-6)


class SelectorLegend(unittest.TestCase):
    def test_legend_clear_of_the_footer_once_saved_tight(self):
        try:
            from matplotlib._tight_bbox import adjust_bbox
        except ImportError:  # older matplotlib: the same function under another module name
            from matplotlib.tight_bbox import adjust_bbox
        rows = []
        for q in (1, 2):
            for n in (2 ** 20, 2 ** 24):
                rows += [sort_row("onesweep", q, n, 10e9), sort_row(so.HYBRID, q, n, 9e9)]
        kept, restore = capture(so)
        try:
            choices = "; ".join("keys_u32 n=%d q=%d: onesweep" % (n, q) for q in (1, 2) for n in (2 ** 20, 2 ** 24))
            so.draw_selector_figure([("u32 keys", rows, {"gpu_name": "GPU", "onepass_sort_choice": choices})],
                                    "unused")
        finally:
            restore()
        fig = kept[0]
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        # what savefig(bbox_inches="tight") does: the figure's box becomes the tight box
        undo = adjust_bbox(fig, fig.get_tightbbox(renderer).padded(0.08))
        try:
            fig.canvas.draw()
            legend = fig.legends[0].get_window_extent(renderer)
            footer = fig.texts[-1].get_window_extent(renderer)
            self.assertLess(footer.y1, legend.y0)  # the footer below the legend, not under it
        finally:
            undo()
            plt.close(fig)


if __name__ == "__main__":
    unittest.main()
