#!/usr/bin/env python3
"""The CPU benchmark against NumPy (experiments/cpu_peers.py, issue 32 §6) and its report
section (figures/cpu_peers_results.py): verdicts on synthetic rows (met, not met, argsort against
np.sort, the shuffle's fastest peer, a missing reference, sizes without a target), the section
with and without results, and the program itself at a tiny size -- against a NumPy stand-in
for the onepass package (always: the CLI, CSV columns and rows, meta.json, the output checks),
and against the built package where it is found (PYTHONPATH, or build/python-ext/python after
`make test-python-pkg`). A few seconds in all.

Run alone (from the repository root): python3 -m unittest tests.python.test_cpu_peers"""

import csv
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import unittest

from tests.python import _support

from figures import cpu_peers_results as cp

PROGRAM = os.path.join(_support.REPO, "experiments", "cpu_peers.py")
COLUMNS = ["algorithm", "case", "dtype", "n", "seconds_median", "seconds_min", "seconds_max", "items_per_second",
           "repeats", "note"]
N = 10 ** 8
HAVE_NUMPY = importlib.util.find_spec("numpy") is not None

# A stand-in for the onepass package with NumPy behind each call the program times (onepass's
# names and signatures), so that the program runs where the extension is not built. BROKEN=1 in
# the environment makes its sort wrong (the program must then stop).
STUB = textwrap.dedent('''
    import os
    import numpy as np
    __version__ = "stub"

    def sort(keys):
        out = np.sort(keys, kind="stable")
        if os.environ.get("BROKEN") and out.size > 1:
            out[[0, -1]] = out[[-1, 0]]
        return out

    def argsort(keys):
        return np.argsort(keys, kind="stable").astype(np.int64)

    def normal(n, seed, dtype="float64"):
        return np.random.default_rng(seed + 1).standard_normal(n, dtype=dtype)

    def shuffle(x, seed):
        return np.random.default_rng(seed + 1).permutation(x)
''')


def row(algorithm, case, dtype, seconds, n=N, note=""):
    """One CSV row as read_rows_text gives it (every cell a string)."""
    return {"algorithm": algorithm, "case": case, "dtype": dtype, "n": str(n), "seconds_median": repr(seconds),
            "seconds_min": repr(seconds), "seconds_max": repr(seconds), "items_per_second": repr(n / seconds),
            "repeats": "3", "note": note}


def sort_rows(dtype, ours, numpy_sort=1.5, ours_argsort=None, numpy_argsort=15.0, n=N):
    rows = [row("numpy_sort", "sort", dtype, numpy_sort, n), row("onepass", "sort", dtype, ours, n)]
    if ours_argsort is not None:
        rows += [row("numpy_argsort", "argsort", dtype, numpy_argsort, n),
                 row("onepass", "argsort", dtype, ours_argsort, n)]
    return rows


class FakeReport:
    def __init__(self):
        self.parts, self.summary = [], []

    def add(self, *parts):
        self.parts += parts

    def text(self):
        return "\n".join(self.parts)


def one(rows, case, dtype):
    found = [p for p in cp.points(rows) if p["case"] == case and p["dtype"] == dtype]
    assert len(found) == 1, found
    return found[0]


class Verdicts(unittest.TestCase):
    def test_sort_met_and_not_met_against_np_sort(self):
        p = one(sort_rows("uint32", 1.0), "sort", "uint32")  # 1.5 / 1.0
        self.assertAlmostEqual(p["vs_reference"], 1.5)
        self.assertEqual((p["target"], p["reference_name"], p["verdict"]), (1.5, "numpy_sort", "met"))
        p = one(sort_rows("float64", 11.9, numpy_sort=1.97), "sort", "float64")
        self.assertAlmostEqual(p["vs_reference"], 1.97 / 11.9)
        self.assertEqual(p["verdict"], "not met")
        self.assertIn("**not met**", cp.verdict_text(p))

    def test_argsort_is_decided_against_np_sort_not_np_argsort(self):
        rows = sort_rows("uint64", 1.0, numpy_sort=2.0, ours_argsort=2.0, numpy_argsort=16.0)
        p = one(rows, "argsort", "uint64")
        self.assertAlmostEqual(p["vs_fastest"], 8.0)  # np.argsort is the case's own peer
        self.assertEqual(p["fastest_name"], "numpy_argsort")
        self.assertAlmostEqual(p["vs_reference"], 1.0)  # but the target is 1.5x np.sort
        self.assertEqual(p["verdict"], "not met")
        self.assertIn("np.sort(x)", cp.target_text(p))
        # without the sort case's numpy_sort row the argsort target is undecided
        p = one([r for r in rows if r["algorithm"] != "numpy_sort"], "argsort", "uint64")
        self.assertEqual((p["verdict"], p["missing"]), ("undecided", ["numpy_sort"]))

    def test_normal_targets_both_dtypes(self):
        rows = [row("numpy_standard_normal", "normal", "float64", 1.26), row("onepass", "normal", "float64", 0.80),
                row("numpy_standard_normal", "normal", "float32", 1.11), row("onepass", "normal", "float32", 4.13)]
        self.assertEqual(one(rows, "normal", "float64")["verdict"], "met")  # 1.575x
        self.assertEqual(one(rows, "normal", "float32")["verdict"], "not met")

    def test_shuffle_has_no_target_and_takes_the_faster_numpy_call(self):
        rows = [row("numpy_permutation", "shuffle", "int64", 3.0), row("numpy_shuffle", "shuffle", "int64", 2.0),
                row("onepass", "shuffle", "int64", 1.0)]
        p = one(rows, "shuffle", "int64")
        self.assertEqual((p["fastest_name"], p["target"], p["verdict"]), ("numpy_shuffle", None, None))
        self.assertAlmostEqual(p["vs_fastest"], 2.0)
        self.assertEqual(cp.verdict_text(p), "no target")

    def test_no_target_at_other_sizes_and_missing_ours(self):
        p = one(sort_rows("uint32", 0.01, numpy_sort=0.04, n=10 ** 6), "sort", "uint32")
        self.assertIsNone(p["verdict"])
        self.assertIn("n ≠ 10^8", cp.verdict_text(p))
        p = one([row("numpy_sort", "sort", "float32", 1.5)], "sort", "float32")
        self.assertEqual((p["verdict"], p["missing"]), ("undecided", ["onepass"]))

    def test_order_and_sizes(self):
        rows = [row("onepass", "normal", "float32", 1.0), row("onepass", "normal", "float64", 1.0)] + \
            sort_rows("float64", 1.0) + sort_rows("uint32", 1.0)
        self.assertEqual([(p["case"], p["dtype"]) for p in cp.points(rows)],
                         [("sort", "uint32"), ("sort", "float64"), ("normal", "float64"), ("normal", "float32")])
        self.assertEqual([cp.n_text(n) for n in (10 ** 8, 10 ** 6, 2 ** 20, 12345)], ["10^8", "10^6", "2^20", "12345"])


class Section(unittest.TestCase):
    def section(self, rows, meta=None):
        r = FakeReport()
        original = cp.load
        cp.load = lambda results, recorded: (None, rows, meta or {"cpu_model": "CPU", "cores": 2, "commit": "abc"})
        try:
            cp.report_section(r, "unused-results-dir", "unused-recorded-dir")
        finally:
            cp.load = original
        return r

    def test_summary_counts_verdicts(self):
        rows = sort_rows("uint32", 1.0, ours_argsort=0.5) + sort_rows("float64", 11.9, numpy_sort=1.97)
        r = self.section(rows)
        self.assertEqual(r.summary[0][0], cp.SUMMARY_ITEM)
        self.assertEqual(r.summary[0][1], "2 of 3 met")
        self.assertIn("**not met**", r.text())
        self.assertIn("sort float64: ours ÷ `np.sort(x)` 0.17×", r.summary[0][2])
        self.assertNotIn("stated for 2 cores", r.text())

    def test_other_core_counts_are_named(self):
        r = self.section(sort_rows("uint32", 1.0), {"cpu_model": "CPU", "cores": 8, "cores_used": 8})
        self.assertIn("The targets are stated for 2 cores; this run used 8", r.text())

    def test_small_runs_have_no_verdict(self):
        r = self.section(sort_rows("uint32", 0.01, numpy_sort=0.04, n=10 ** 6))
        self.assertEqual(r.summary[0][1], "no target measured (n = 10^8 only)")

    def test_not_measured(self):
        with _support.TempDir() as d:
            r = FakeReport()
            cp.report_section(r, d, os.path.join(d, "no-recorded"))
        self.assertEqual(r.summary[0][1], "not measured yet")
        self.assertIn("experiments/cpu_peers.py", r.text())


def run_program(out_dir, pythonpath, *extra, env_extra=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(pythonpath))
    env.update(env_extra or {})
    return subprocess.run([sys.executable, PROGRAM, "--out-dir", out_dir, "--items", "4096", "--repeats", "2",
                           "--warmup", "0"] + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120, env=env, cwd=_support.REPO)


def read_outputs(out_dir):
    with open(os.path.join(out_dir, "cpu_peers.csv"), newline="") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    with open(os.path.join(out_dir, "cpu_peers.meta.json")) as f:
        meta = json.load(f)
    return header, rows, meta


EXPECTED_ROWS = {("sort", d, a) for d in cp.SORT_DTYPES for a in ("onepass", "numpy_sort")} | \
    {("argsort", d, a) for d in cp.SORT_DTYPES for a in ("onepass", "numpy_argsort")} | \
    {("normal", d, a) for d in ("float64", "float32") for a in ("onepass", "numpy_standard_normal")} | \
    {("shuffle", "int64", a) for a in ("onepass", "numpy_permutation", "numpy_shuffle")}


@unittest.skipUnless(HAVE_NUMPY, "numpy not installed")
class ProgramWithStandIn(unittest.TestCase):
    """experiments/cpu_peers.py end to end against the NumPy stand-in for onepass."""

    def setUp(self):
        self.tmp = _support.TempDir()
        stub = os.path.join(self.tmp.path, "stub", "onepass")
        os.makedirs(stub)
        with open(os.path.join(stub, "__init__.py"), "w") as f:
            f.write(STUB)
        self.path = [os.path.dirname(stub)]

    def tearDown(self):
        self.tmp.cleanup()

    def test_every_case_row_and_the_meta(self):
        out = os.path.join(self.tmp.path, "out")
        done = run_program(out, self.path)
        self.assertEqual(done.returncode, 0, done.stderr)
        header, rows, meta = read_outputs(out)
        self.assertEqual(header, COLUMNS)
        self.assertEqual({(r["case"], r["dtype"], r["algorithm"]) for r in rows}, EXPECTED_ROWS)
        self.assertEqual(len(rows), len(EXPECTED_ROWS))
        for r in rows:
            self.assertEqual((r["n"], r["repeats"]), ("4096", "2"))
            lo, mid, hi = (float(r[k]) for k in ("seconds_min", "seconds_median", "seconds_max"))
            self.assertTrue(0 < lo <= mid <= hi, r)
            self.assertAlmostEqual(float(r["items_per_second"]), 4096 / mid, delta=4096 / mid * 1e-4)
        for key in ("commit", "cpu_model", "cores", "loadavg_before", "loadavg_after", "loadavg_by_case", "date",
                    "run_seconds", "peak_rss_bytes", "skipped", "timing"):
            self.assertIn(key, meta)
        self.assertEqual((meta["experiment"], meta["n"], meta["scale"]), ("cpu_peers", 4096, "default"))
        self.assertEqual(meta["versions"]["onepass"], "stub")
        self.assertEqual(meta["skipped"], [])
        # the report section reads what the program wrote (no target at 4096 items)
        r = FakeReport()
        cp.report_section(r, out, os.path.join(self.tmp.path, "no-recorded"))
        self.assertEqual(r.summary[0][1], "no target measured (n = 10^8 only)")
        self.assertIn("| argsort | float64 | 2^12 |", r.text())

    def test_a_wrong_output_stops_the_program(self):
        done = run_program(os.path.join(self.tmp.path, "out"), self.path, "--cases", "sort",
                           env_extra={"BROKEN": "1"})
        self.assertEqual(done.returncode, 1)
        self.assertIn("onepass.sort(uint32) differs from np.sort's output", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.path, "out", "cpu_peers.csv")))

    def test_arguments_are_checked(self):
        for extra in (["--cases", "sort,fft"], ["--items", "1"], ["--repeats", "0"]):
            done = run_program(os.path.join(self.tmp.path, "out"), self.path, *extra)
            self.assertEqual(done.returncode, 2, extra)


def built_package_path():
    """The directory to put on PYTHONPATH for the built onepass package (with its CPU extension),
    or None: the current PYTHONPATH when onepass imports from it, else build/python-ext/python."""
    def has_extension(package_dir):
        return os.path.isdir(package_dir) and any(name.startswith("_onepass.") for name in os.listdir(package_dir))
    spec = importlib.util.find_spec("onepass")
    if spec is not None and spec.origin and has_extension(os.path.dirname(spec.origin)):
        return os.path.dirname(os.path.dirname(spec.origin))
    candidate = os.path.join(_support.REPO, "build", "python-ext", "python")
    return candidate if has_extension(os.path.join(candidate, "onepass")) else None


@unittest.skipUnless(HAVE_NUMPY and built_package_path(), "onepass not built (make test-python-pkg) or numpy missing")
class ProgramWithThePackage(unittest.TestCase):
    """The same run against the real package: its outputs pass the program's checks."""

    def test_smoke_run(self):
        with _support.TempDir() as d:
            done = run_program(d, [built_package_path()])
            self.assertEqual(done.returncode, 0, done.stderr)
            header, rows, meta = read_outputs(d)
        self.assertEqual(header, COLUMNS)
        self.assertEqual({(r["case"], r["dtype"], r["algorithm"]) for r in rows}, EXPECTED_ROWS)
        self.assertNotEqual(meta["versions"]["onepass"], "stub")


if __name__ == "__main__":
    unittest.main()
