"""paper/claims.py: the claims tables of the five seed documents, on small
synthetic results: a claim that holds, one that fails, one whose file is missing, and the
closed vocabulary of verdicts."""

import os
import unittest

from tests.python import _support as s  # shared test helpers
from paper import claims


def table1_rows(rates_by_label, log2=29):
    """table1_gpu_shuffle rows at 2^log2+1: {paper label: items/s}."""
    names = {"Gather": "gather", "VarPhilox": "variable_philox", "LCG": "lcg", "DartThrowing": "dart_throwing",
             "SortShuffle": "sort_shuffle"}
    n = 2 ** log2 + 1
    return [{"algorithm": names[lab], "label": lab, "log2_size": log2, "n": n, "reps": 7,
             "seconds_median": n / r, "seconds_min": n / r, "seconds_max": n / r, "items_per_second": r}
            for lab, r in rates_by_label.items()]


def as_strings(rows):
    return [{k: str(v) for k, v in r.items()} for r in rows]


def claim(claim_id):
    return next(c for c in claims.CLAIMS if c.id == claim_id)


def outcome(claim_id, data):
    c = claim(claim_id)
    return claims.evaluate(c, data, claims.load_references(c.seed))


GPU_META = {"gpu_name": "Test GPU"}


class Vocabulary(unittest.TestCase):
    def test_the_vocabulary_is_closed(self):
        self.assertEqual(claims.VERDICTS, ("reproduced", "reproduced in shape", "differs", "not reproducible here"))
        with self.assertRaises(ValueError):
            claims.verdict_text("meets target", "")
        with self.assertRaises(ValueError):
            claims._v("partly reproduced", "x")

    def test_every_claim_on_any_data_gets_a_verdict_of_the_vocabulary(self):
        for data in (claims.Data(), claims.Data({"table1_gpu_shuffle": (as_strings(table1_rows(
                {"Gather": 1e10, "VarPhilox": 9e9})), GPU_META, "x")})):
            results = claims.evaluate_all(data)
            self.assertEqual(list(results), list(claims.SEEDS))
            for seed, outcomes in results.items():
                self.assertTrue(outcomes, seed)
                for o in outcomes:
                    self.assertIn(o.verdict, claims.VERDICTS, o.claim.id)
                    if o.verdict in claims.NEEDS_REASON:
                        self.assertTrue(o.reason, o.claim.id)
                        self.assertIn(" — because ", claims.verdict_text(o.verdict, o.reason))

    def test_reasons_are_required_where_the_vocabulary_says_because(self):
        self.assertEqual(claims.verdict_text("differs", "x is 2×"), "differs — because x is 2×")
        self.assertEqual(claims.verdict_text("reproduced"), "reproduced")

    def test_registry_ids_unique_and_every_claim_has_a_typed_paper_value(self):
        ids = [c.id for c in claims.CLAIMS]
        self.assertEqual(len(ids), len(set(ids)))
        for seed in claims.SEEDS:
            refs = claims.load_references(seed)
            mine = [c.id for c in claims.CLAIMS if c.seed == seed]
            self.assertTrue(mine, seed)
            for cid in mine:
                self.assertIn(cid, refs, "%s has no row in claims_%s.csv" % (cid, seed))
                for key, (_, _, source) in refs[cid].items():
                    self.assertTrue(source.strip(), "%s.%s has no source" % (cid, key))
            self.assertFalse(set(refs) - set(mine), "rows of claims_%s.csv for no claim" % seed)


class ClaimsOnSyntheticData(unittest.TestCase):
    def test_a_claim_that_holds(self):
        data = claims.Data({"table1_gpu_shuffle": (as_strings(table1_rows({"Gather": 1e10, "VarPhilox": 0.92e10})),
                                                   GPU_META, "synthetic")})
        o = outcome("ss_91pct", data)
        self.assertEqual(o.verdict, "reproduced")
        self.assertAlmostEqual(o.ratio, 0.92 / 0.91, places=6)
        self.assertEqual(o.ours, "92.0 %")

    def test_a_claim_that_fails_says_why_from_the_data(self):
        data = claims.Data({"table1_gpu_shuffle": (as_strings(table1_rows(
            {"Gather": 1e10, "VarPhilox": 0.9e10, "SortShuffle": 3e9, "DartThrowing": 2e9})), GPU_META, "synthetic")})
        o = outcome("ss_30x", data)
        self.assertEqual(o.verdict, "differs")
        self.assertIn("3×", o.reason)              # the measured ratio, 0.9e10 / 3e9
        self.assertIn("30.0 % of Gather", o.reason)  # why: the peer is strong here
        o = outcome("sp_gpu_10x", data)
        self.assertEqual(o.verdict, "differs")
        self.assertIn("3×", o.reason)

    def test_a_claim_whose_file_is_missing(self):
        o = outcome("ss_91pct", claims.Data())
        self.assertEqual(o.verdict, "not reproducible here")
        self.assertEqual(o.reason, "table1_gpu_shuffle.csv was not produced")
        self.assertTrue(claims.verdict_text(o.verdict, o.reason).startswith(
            "not reproducible here — because table1_gpu_shuffle.csv was not produced"))
        o = outcome("ss_bigcrush", claims.Data())
        self.assertEqual((o.verdict, o.reason), ("not reproducible here",
                                                 "bigcrush_variable_philox.csv was not produced"))

    def test_absolute_numbers_on_other_hardware_name_both_machines(self):
        data = claims.Data({"table1_gpu_shuffle": (as_strings(table1_rows({"Gather": 1e10, "VarPhilox": 8e9})),
                                                   {"gpu_name": "Test GPU 9000"}, "synthetic")})
        o = outcome("sp_table1_absolute", data)
        self.assertEqual(o.verdict, "not reproducible here")
        self.assertIn("Test GPU 9000", o.reason)
        self.assertIn("V100", o.reason)
        self.assertAlmostEqual(o.ratio, 8e9 / 4018e6)

    def test_files_are_read_from_a_results_directory(self):
        with s.TempDir() as d:
            s.write_csv(d, "table1_gpu_shuffle", s.TABLE1_COLUMNS,
                        table1_rows({"Gather": 1e10, "VarPhilox": 0.5e10}))
            s.write_meta(d, "table1_gpu_shuffle")
            empty = os.path.join(d, "recorded")
            os.makedirs(empty)
            data = claims.load_data(d, empty)
            o = outcome("ss_91pct", data)
            self.assertEqual(o.verdict, "differs")
            self.assertIn("0.549×", o.reason)
            self.assertEqual(outcome("os_headline", data).reason, "sort_headline.csv was not produced")

    def test_onesweep_unilateral_counts_the_slower_points(self):
        rows = [s.sort_row("onesweep", "keys_u32", 1, 20, 2e10), s.sort_row("cub_reduce_then_scan", "keys_u32", 1, 20,
                                                                          1.5e10),
                s.sort_row("onesweep", "keys_u32", 16, 13, 1e8), s.sort_row("cub_reduce_then_scan", "keys_u32", 16, 13,
                                                                          4e8)]
        data = claims.Data({"onesweep_fig09_keys32": (as_strings(rows), GPU_META, "synthetic")})
        o = outcome("os_unilateral_fig9", data)
        self.assertEqual(o.verdict, "differs")
        self.assertIn("1 of 2 points", o.reason)
        self.assertIn("0.25× at n = 8192, q = 16", o.reason)
        data = claims.Data({"onesweep_fig09_keys32": (as_strings(rows[:2]), GPU_META, "synthetic")})
        self.assertEqual(outcome("os_unilateral_fig9", data).verdict, "reproduced")

    def test_onesweep_table1_from_the_bands_measured(self):
        rows = [s.sort_row("onesweep", "keys_u32", q, 20, 1e10) for q in (1, 2, 3, 4, 8, 16)]
        data = claims.Data({"onesweep_fig09_keys32": (as_strings(rows), GPU_META, "synthetic")})
        self.assertEqual(outcome("os_table1", data).verdict, "reproduced")
        data = claims.Data({"onesweep_fig09_keys32": (as_strings(rows[:4]), GPU_META, "synthetic")})
        o = outcome("os_table1", data)
        self.assertEqual(o.verdict, "differs")
        self.assertIn("q = 8, 16", o.reason)

    def test_vren_worked_example_is_computed(self):
        counts, offsets, first = claims.lsd_pass([10, 25, 39, 92, 1, 5, 68, 23, 21, 10], 10, 0)
        self.assertEqual(counts, [2, 2, 1, 1, 0, 2, 0, 0, 1, 1])
        self.assertEqual(offsets, [0, 2, 4, 5, 6, 6, 8, 8, 8, 9])
        self.assertEqual(claims.lsd_pass(first, 10, 1)[2], [1, 5, 10, 10, 21, 23, 25, 39, 68, 92])
        self.assertEqual(outcome("v_counts", claims.Data()).verdict, "reproduced")

    def test_gaussian_statistics_log_is_parsed(self):
        log = ("== test_gaussian_statistics, 2^38\norder            z  z_predicted   z - z_pred\n"
               "    1       1.2961       0.0000       1.2961\n    2      -4.5000       0.0000      -4.5000\n"
               "|x| > 4: 17412270 outputs; N(0,1) expects ...\n")
        data = claims.Data(logs={claims.LOG_FILES[0]: log})
        o = outcome("g_optimised_2_38", data)
        self.assertEqual(o.verdict, "differs")
        self.assertIn("order 2", o.reason)
        self.assertEqual(outcome("g_tail_rate", data).verdict, "reproduced")


class Rules(unittest.TestCase):
    def test_rules(self):
        self.assertEqual(claims.rule_close(1.04, 1.0, 0.05, "x")[0], "reproduced")
        self.assertEqual(claims.rule_close(1.2, 1.0, 0.05, "x")[0], "differs")
        self.assertEqual(claims.rule_range(1.45, 1.55, 1.4, 1.6, "x")[0], "reproduced")
        v, why = claims.rule_range(1.19, 1.33, 1.4, 1.6, "x", unit="×")
        self.assertEqual(v, "differs")
        self.assertIn("below the claimed 1.4–1.6×", why)
        self.assertEqual(claims.rule_at_least(28, 30, "x", tol=0.10)[0], "reproduced")
        self.assertEqual(claims.rule_at_least(3.2, 30, "x", tol=0.10)[0], "differs")
        self.assertEqual(claims.rule_ranking(1.0, 3, ["a", "b", "c"], ["a", "b", "c"])[0], "reproduced")
        self.assertEqual(claims.rule_ranking(claims.kendall_tau(["a", "c", "b"], ["a", "b", "c"]), 3,
                                             ["a", "c", "b"], ["a", "b", "c"])[0], "differs")  # tau = 1/3
        self.assertEqual(claims.rule_chance_failures(1, 60, 0.01, "tests")[0], "reproduced")
        self.assertEqual(claims.rule_chance_failures(6, 60, 0.01, "tests")[0], "differs")
        self.assertEqual(claims.rule_missing("a.csv"), ("not reproducible here", "a.csv was not produced"))

    def test_summary_counts_every_verdict(self):
        results = claims.evaluate_all(claims.Data())
        table = claims.summary_table(results)
        self.assertEqual(len(table.splitlines()), 2 + len(claims.SEEDS))
        total = sum(sum(claims.counts(o).values()) for o in results.values())
        self.assertEqual(total, len(claims.CLAIMS))
        blocks = claims.section(results)
        self.assertEqual(blocks[0], "## Claims, seed by seed")
        self.assertEqual(sum(1 for b in blocks if b.startswith("### ")), len(claims.SEEDS))

    def test_table2_ranking_on_a_cpu_run(self):
        ref = {r["label"]: float(r["m_items_per_second"]) for r in
               claims._read_rows(os.path.join(claims.REFERENCE_DIR, "shuffle_table2_cpu.csv"))
               if int(r["log2_size"]) == 20}
        names = {"Gather": "gather", "VarPhilox": "variable_philox", "std::shuffle": "std_shuffle"}
        rows = [{"algorithm": names[lab], "label": lab, "log2_size": "20", "n": str(2 ** 20 + 1), "threads": "2",
                 "iterations": "3", "seconds_per_iteration": "1", "items_per_second": str(ref[lab] * 1e6 / 10)}
                for lab in names]
        data = claims.Data({"table2_cpu_shuffle": (rows, {"cores": 2}, "synthetic")})
        o = outcome("sp_table2_ranking", data)
        self.assertEqual(o.verdict, "reproduced", o.reason)
        self.assertIn("2 cores here, 40 in the paper", o.reason)

    def test_typed_table_values_agree_with_the_reference_tables(self):
        refs = claims.load_references("shuffle_paper")["sp_table1_ranking"]
        table = {r["label"]: float(r["m_items_per_second"]) for r in
                 claims._read_rows(os.path.join(claims.REFERENCE_DIR, "shuffle_table1_gpu.csv"))
                 if int(r["log2_size"]) == 29}
        for key, (value, _, _) in refs.items():
            if key.startswith("paper_"):
                self.assertEqual(value, table[key[6:]], key)
        entropy = {int(r["q"]): float(r["entropy_per_bit"]) for r in
                   claims._read_rows(os.path.join(claims.REFERENCE_DIR, "onesweep_table1_entropy.csv"))}
        for key, (value, _, _) in claims.load_references("onesweep")["os_table1"].items():
            self.assertEqual(value, entropy[int(key[1:])])


if __name__ == "__main__":
    unittest.main()
