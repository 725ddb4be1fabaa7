"""Unit tests of figures/stability.py: two runs of a timing table compared row by row."""

import os
import tempfile
import unittest

from tests.python import _support  # shared test helpers
from figures import stability as st


def row(alg, n, med, lo, hi, label="x"):
    return {"algorithm": alg, "label": label, "n": str(n), "reps": "7", "seconds_median": str(med),
            "seconds_min": str(lo), "seconds_max": str(hi), "items_per_second": str(n / med if med else 0.0)}


class CompareRuns(unittest.TestCase):
    def test_matched_rows_and_drift(self):
        first = [row("a", 10, 1.0, 0.9, 1.1), row("b", 10, 2.0, 1.9, 2.1)]
        # The label and the rate are measurements, not keys: a changed label still matches.
        second = [row("b", 10, 2.2, 2.1, 2.3, label="y"), row("a", 10, 1.05, 1.0, 1.1)]
        pairs = st.compare_runs(first, second)
        self.assertEqual(len(pairs), 2)
        by_alg = {dict(p["key"])["algorithm"]: p for p in pairs}
        self.assertAlmostEqual(by_alg["a"]["drift"], 1.05)
        self.assertTrue(by_alg["a"]["inside"])
        self.assertAlmostEqual(by_alg["b"]["drift"], 1.1)
        self.assertFalse(by_alg["b"]["inside"])
        s = st.summarise(pairs)
        self.assertEqual(s["rows"], 2)
        self.assertAlmostEqual(s["max_abs_drift"], 0.1)
        self.assertAlmostEqual(s["median_abs_drift"], 0.075)
        self.assertEqual(dict(s["worst"]["key"])["algorithm"], "b")
        self.assertAlmostEqual(s["inside_share"], 0.5)

    def test_unmatched_rows_are_counted_not_compared(self):
        first = [row("a", 10, 1.0, 0.9, 1.1), row("a", 20, 2.0, 1.9, 2.1)]
        second = [row("a", 10, 1.0, 0.9, 1.1), row("c", 10, 1.0, 0.9, 1.1)]
        self.assertEqual(len(st.compare_runs(first, second)), 1)
        self.assertEqual(st.unmatched(first, second), 2)

    def test_microsecond_columns(self):
        r = {"digit_bits": "8", "phase": "pass", "reps": "7", "microseconds_median": "10",
             "microseconds_min": "9", "microseconds_max": "11", "microseconds_per_bit": ""}
        r2 = dict(r, microseconds_median="12")
        self.assertAlmostEqual(st.compare_runs([r], [r2])[0]["drift"], 1.2)

    def test_errors(self):
        with self.assertRaises(ValueError):
            st.time_columns(["algorithm", "n"])
        with self.assertRaises(ValueError):
            st.compare_runs([row("a", 1, 1.0, 1.0, 1.0)], [row("a", 1, 0.0, 0.0, 0.0)])
        self.assertIsNone(st.summarise([]))

    def test_stability_table_reads_run2_folder(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "run2"))
            header = ["algorithm", "label", "n", "reps", "seconds_median", "seconds_min", "seconds_max",
                      "items_per_second"]
            for path, med in ((os.path.join(d, "table1_gpu_shuffle.csv"), 1.0),
                              (os.path.join(d, "run2", "table1_gpu_shuffle.csv"), 1.02)):
                with open(path, "w") as f:
                    f.write(",".join(header) + "\n")
                    r = row("a", 10, med, 0.99, 1.01)
                    f.write(",".join(r[h] for h in header) + "\n")
            table = st.stability_table(d)
            self.assertEqual([t[0] for t in table], ["table1_gpu_shuffle"])
            self.assertAlmostEqual(table[0][1]["max_abs_drift"], 0.02)
            self.assertFalse(table[0][1]["worst"]["inside"])
            self.assertEqual(st.stability_table(d, experiments=("sort_headline",)), [])


if __name__ == "__main__":
    unittest.main()


class Spread(unittest.TestCase):
    def test_spread_and_summary(self):
        rows = [row("a", 10, 1.0, 0.9, 1.1), row("b", 10, 2.0, 2.0, 2.1), row("c", 10, 4.0, 3.0, 5.0)]
        self.assertAlmostEqual(st.spread(rows[0]), 0.2)
        s = st.spread_summary(rows)
        self.assertEqual(s["rows"], 3)
        self.assertAlmostEqual(s["median_spread"], 0.2)
        self.assertAlmostEqual(s["max_spread"], 0.5)
        self.assertEqual(s["worst"]["algorithm"], "c")
        self.assertIsNone(st.spread_summary([]))

    def test_rate_ratio_bounds(self):
        fast = row("fast", 10, 1.0, 0.9, 1.2)
        slow = row("slow", 10, 2.0, 1.8, 2.4)
        med, lo, hi = st.rate_ratio(fast, slow)
        self.assertAlmostEqual(med, 2.0)
        self.assertAlmostEqual(lo, 1.8 / 1.2)
        self.assertAlmostEqual(hi, 2.4 / 0.9)
        self.assertLessEqual(lo, med)
        self.assertLessEqual(med, hi)

    def test_overlaps(self):
        self.assertTrue(st.overlaps(row("a", 1, 1.0, 0.9, 1.1), row("b", 1, 1.15, 1.05, 1.2)))
        self.assertFalse(st.overlaps(row("a", 1, 1.0, 0.9, 1.1), row("b", 1, 1.3, 1.2, 1.4)))


class Section(unittest.TestCase):
    def test_section_renders_spread_stability_and_ratio(self):
        from paper import variability
        header = ["algorithm", "label", "log2_size", "n", "reps", "seconds_median", "seconds_min", "seconds_max",
                  "items_per_second"]
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "run2"))
            for sub, scale in (("", 1.0), ("run2", 1.1)):
                with open(os.path.join(d, sub, "table1_gpu_shuffle.csv"), "w") as f:
                    f.write(",".join(header) + "\n")
                    for alg, t in (("variable_philox", 2.0), ("gather", 1.0)):
                        f.write("%s,x,20,1048577,7,%r,%r,%r,1\n" % (alg, t * scale, t * scale * 0.9, t * scale * 1.1))
            table = lambda h, rows, align=None: "\n".join("|".join(map(str, r)) for r in [h] + list(rows))  # noqa
            text = "\n".join(variability.section({"table1_gpu_shuffle": d}, table))
            self.assertIn("Variability of the GPU timings", text)
            self.assertIn("20.0 %", text)       # spread (1.1 - 0.9) / 1.0
            self.assertIn("10.0 %", text)       # drift of the second run
            self.assertIn("0.500", text)        # Bijective2 / gather
            self.assertEqual(variability.section({}, table), [])


class CpuTable(unittest.TestCase):
    def rows(self):
        def r(label, t, lo, hi, cv):
            return {"algorithm": label.lower(), "label": label, "log2_size": 8, "n": 257, "threads": 2,
                    "iterations": 10, "seconds_per_iteration": t, "items_per_second": 257 / t, "repetitions": 7,
                    "seconds_min": lo, "seconds_max": hi, "cv": cv}
        return [r("A", 1.0, 0.95, 1.05, 0.02), r("B", 1.02, 1.0, 1.1, 0.04), r("C", 2.0, 1.9, 2.1, 0.01)]

    def test_ranking_marks_overlaps(self):
        from paper import variability
        self.assertEqual(variability.cpu_ranking(self.rows()), [("2^8+1", "A ≈ B > C")])
        s = variability.cpu_spread(self.rows())
        self.assertAlmostEqual(s["median_cv"], 0.02)
        self.assertAlmostEqual(s["max_cv"], 0.04)
        self.assertEqual(s["worst"], "B at 2^8+1")

    def test_older_csv_gives_nothing(self):
        from paper import variability
        old = [{k: v for k, v in r.items() if k not in ("seconds_min", "seconds_max", "cv", "repetitions")}
               for r in self.rows()]
        self.assertEqual(variability.cpu_ranking(old), [])
        self.assertIsNone(variability.cpu_spread(old))
        self.assertEqual(variability.cpu_section(old, lambda *a: ""), [])


class SeedReplicates(unittest.TestCase):
    def test_binomial_upper(self):
        from paper import variability
        self.assertEqual(variability.binomial_upper(0, 0.01), 0)
        self.assertEqual(variability.binomial_upper(10, 0.0), 0)
        # Bin(100, 0.01): P(X <= 2) = 0.921, P(X <= 3) = 0.982
        self.assertEqual(variability.binomial_upper(100, 0.01), 3)
        with self.assertRaises(ValueError):
            variability.binomial_upper(5, 1.5)

    def chi(self, fails_at_24=False, shuffle_fails=False):
        rows = [{"algorithm": "variable_philox", "rounds": str(k), "alpha": "0.01",
                 "passes": "0" if k < 20 or (k == 24 and fails_at_24) else "1"} for k in range(1, 33)]
        rows.append({"algorithm": "std_shuffle", "rounds": "", "alpha": "0.01", "passes": "0" if shuffle_fails else "1"})
        rows.append({"algorithm": "lcg", "rounds": "", "alpha": "0.01", "passes": "0"})  # not in the null set
        return rows

    def test_chance_failures(self):
        from paper import variability
        ok = variability.chance_failures([self.chi(), self.chi()], [("chi", "passes")])[0]
        self.assertEqual(ok["tests"], 2 * 10)  # rounds 24..32 and std::shuffle, two seeds
        self.assertEqual(ok["failures"], 0)
        self.assertEqual(ok["verdict"], "consistent with chance")
        one = variability.chance_failures([self.chi(fails_at_24=True), self.chi()], [("chi", "passes")])[0]
        self.assertEqual(one["failures"], 1)
        self.assertEqual(one["verdict"], "consistent with chance")  # Bin(20, 0.01): 95 % range 0-1
        many = variability.chance_failures([self.chi(True, True), self.chi(True, True)], [("chi", "passes")])[0]
        self.assertEqual(many["failures"], 4)
        self.assertEqual(many["verdict"], "more failures than chance")

    def test_first_passing_rounds(self):
        from paper import variability
        self.assertEqual(variability.first_passing_rounds(self.chi()), 20)
        self.assertEqual(variability.first_passing_rounds(self.chi(fails_at_24=True)), 25)

    def test_seeds_section_needs_two_seeds(self):
        from paper import variability
        with tempfile.TemporaryDirectory() as d:
            table = lambda h, rows, align=None: "\n".join("|".join(map(str, r)) for r in [h] + list(rows))  # noqa
            header = ["algorithm", "rounds", "n", "samples", "alpha", "statistic", "critical_value", "p_value", "passes"]

            def write(folder, rows):
                os.makedirs(folder, exist_ok=True)
                with open(os.path.join(folder, "fig06_chi2_rounds.csv"), "w") as f:
                    f.write(",".join(header) + "\n")
                    for r in rows:
                        f.write(",".join(str(r.get(h, "1")) for h in header) + "\n")
            write(d, self.chi())
            self.assertEqual(variability.seeds_section(d, table), [])
            write(os.path.join(d, "seeds", "1"), self.chi(fails_at_24=True))
            text = "\n".join(variability.seeds_section(d, table))
            self.assertIn("χ² and MMD over several seeds", text)
            self.assertIn("consistent with chance", text)
            self.assertIn("20, 25", text)


class SharedReaders(unittest.TestCase):
    def test_read_rows_text_and_number_or_none(self):
        from figures import shuffle_results as sr
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(sr.read_rows_text(os.path.join(d, "absent.csv")))
            with open(os.path.join(d, "x.csv"), "w") as f:
                f.write("a,b\n1,\n")
            self.assertEqual(sr.read_rows_text(os.path.join(d, "x.csv")), [{"a": "1", "b": ""}])
            with self.assertRaises(FileNotFoundError):
                st.read_rows(os.path.join(d, "absent.csv"))
        self.assertEqual(sr.number_or_none("2.5"), 2.5)
        self.assertIsNone(sr.number_or_none(""))
        self.assertIsNone(sr.number_or_none(None))


class DirtyText(unittest.TestCase):
    def test_how_a_dirty_flag_is_shown(self):
        from paper import provenance as pv
        self.assertEqual(pv.dirty_text({"worktree_dirty": False}), "")
        self.assertEqual(pv.dirty_text({"worktree_dirty": True}), " (uncommitted changes)")
        accepted = {"worktree_dirty": True, "recorded_note": "a copy of the clean tree"}
        self.assertIn("accepted", pv.dirty_text(accepted))
        self.assertIn("a copy of the clean tree", pv.dirty_text(accepted, long=True))
