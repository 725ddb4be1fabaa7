#!/usr/bin/env python3
"""baselines/rmg/to_csv.py (RMG sort's GPU-resident times as the experiments' CSV rows): the recorded
4-GPU output (results/recorded/nvidia-h100-x4/rmg_sort-resident-output.txt) gives exactly the
`rmg_sort_gpu_resident` rows already in rmg_sort.csv beside it, to the printed precision; runs that
timed out, failed RMG's sortedness check or printed no time are left out; repetitions are pooled.

Run alone (from the repository root): /usr/bin/python3 -m unittest tests.python.test_rmg_to_csv"""

import csv
import importlib.util
import os
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECORDED = os.path.join(REPO, "results", "recorded", "nvidia-h100-x4")


def _load_to_csv():
    """baselines/rmg/to_csv.py as a module (baselines/rmg is a folder of files, not a package)."""
    spec = importlib.util.spec_from_file_location("rmg_to_csv", os.path.join(REPO, "baselines", "rmg", "to_csv.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


to_csv = _load_to_csv()


class Recorded(unittest.TestCase):
    def test_rows_equal_the_recorded_csv(self):
        with open(os.path.join(RECORDED, "rmg_sort-resident-output.txt"), encoding="utf-8") as f:
            notes = []
            got = [to_csv.format_row(r) for r in to_csv.rows(to_csv.parse(f.read()), notes)]
        with open(os.path.join(RECORDED, "rmg_sort.csv"), newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            self.assertEqual(next(reader), to_csv.COLUMNS)
            want = [r for r in reader if r[0] == "rmg_sort_gpu_resident"]
        self.assertEqual(len(want), 3)  # u32 keys at P = 2 and 4, u64 keys at P = 4
        self.assertEqual(got, want)
        # the first u64 run (seventeenth session) left a header and no output: no time from it, one note;
        # the two u64 runs appended later (742f203's session) give the row
        self.assertEqual([r[6:8] for r in got if r[1] == "keys_u64"], [["0.040132", "0.058740"]])
        self.assertEqual(len(notes), 1)
        self.assertIn("type=uint64", notes[0])


class Synthetic(unittest.TestCase):
    TEXT = "\n".join([
        "### n=1000 gpus=0,1 type=uint32 rep=1",
        "Total sort duration: 9.0000ms",
        "GPU-resident sort time: 4.0000ms",
        "### n=1000 gpus=0,1 type=uint32 rep=2",
        "GPU-resident sort time: 2.0000ms",
        "### n=1000 gpus=2,3 type=uint32 rep=1",  # the same shape and P: pooled
        "GPU-resident sort time: 3.0000ms",
        "### n=1000 gpus=0,1 type=uint32 rep=3",
        "GPU-resident sort time: 1.0000ms",
        "Error: Invalid sort order: 5 wrong positions.",
        "### n=500 gpus=0,1,2,3 type=uint64 rep=1",
        "### exit status 124",
        "### n=500 gpus=0,1,2,3 type=uint64 rep=2",
        "GPU-resident sort time: 8.0000ms",
        "### n=500 gpus=0,1,2,3 type=float32 rep=1",
        "GPU-resident sort time: 8.0000ms",
        "### n=500 gpus=0,1,2,3 type=uint32 rep=1 dist=zipf",
        "GPU-resident sort time: 8.0000ms",
    ])

    def test_counts_good_runs_only(self):
        notes = []
        got = to_csv.rows(to_csv.parse(self.TEXT), notes)
        self.assertEqual([(r["shape"], r["num_ranks"], r["n_total"]) for r in got],
                         [("keys_u32", 2, 1000), ("keys_u64", 4, 500)])
        u32, u64 = got
        self.assertEqual((u32["seconds_median"], u32["seconds_min"], u32["seconds_max"]), (0.003, 0.002, 0.004))
        self.assertEqual(u32["n_per_rank"], 500)
        self.assertAlmostEqual(u32["keys_per_second"], 1000 / 0.003)
        self.assertEqual((u64["seconds_median"], u64["n_per_rank"]), (0.008, 125))
        self.assertEqual(len(notes), 4)  # wrong order, timeout, float keys, zipf
        self.assertTrue(any("wrong sort order" in n for n in notes))
        self.assertTrue(any("timeout" in n for n in notes))

    def test_format(self):
        row = to_csv.rows(to_csv.parse(self.TEXT))[0]
        self.assertEqual(to_csv.format_row(row),
                         ["rmg_sort_gpu_resident", "keys_u32", "2", "500", "1000", "0.003000", "0.002000", "0.004000",
                          "3.333333e+05"])


if __name__ == "__main__":
    unittest.main()
