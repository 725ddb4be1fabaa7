#!/usr/bin/env python3
"""Verdicts of the walking permutation's rows (issue 28) in paper/make_report.py, on synthetic rows:
the target "fig06's χ² rows pass from the same round count as the bijective shuffle"
(walking_rounds_verdict), the plateau of a series that never passes (walking_plateau) and the
walking ÷ Bijective2 rows of Fig. 10 (walking_throughput).

Run alone (from the repository root): python3 -m unittest tests.python.test_walking_verdicts"""

import unittest

from tests.python import _support as t  # shared test helpers

mr = t.shuffle_section  # the walking permutation's verdicts (paper/shuffle_section.py)

ALPHA = 0.01


def chi_rows(algorithm, passing, last=32, statistic=100.0, critical=157.8):
    """fig06_chi2_rounds rows of one rounds series, 1..last; passing(rounds) -> bool."""
    return [{"algorithm": algorithm, "rounds": k, "n": 5, "samples": 1000000, "alpha": ALPHA,
             "statistic": statistic if passing(k) else 10 * critical, "critical_value": critical,
             "p_value": 0.5 if passing(k) else 0.0, "passes": 1 if passing(k) else 0}
            for k in range(1, last + 1)]


def verdict(vp_passing, walk_passing, walk=True):
    vp = chi_rows("variable_philox", vp_passing)
    wk = chi_rows("walking", walk_passing) if walk else []
    ok = lambda r: r["passes"] == 1  # noqa: E731
    return mr.walking_rounds_verdict([("χ² (Fig. 6, n = 5)", vp, wk, ok, ALPHA)])


class WalkingRoundsVerdict(unittest.TestCase):
    def test_same_round_count_is_met(self):
        rows, v, why = verdict(lambda k: k >= 22, lambda k: k >= 22)
        self.assertEqual(v, "met")
        self.assertEqual(rows[0][1:3], (22, 22))
        self.assertIn("the same round count", rows[0][4])
        self.assertIn("1 of 1 cases", why[0])

    def test_earlier_is_met(self):
        rows, v, _ = verdict(lambda k: k >= 22, lambda k: k >= 20)
        self.assertEqual(v, "met")
        self.assertIn("2 rounds earlier", rows[0][4])

    def test_never_passing_is_not_met(self):
        rows, v, why = verdict(lambda k: k >= 22, lambda k: False)
        self.assertEqual(v, "not met")
        self.assertEqual(rows[0][2], "none")
        self.assertIn("fails at the largest count (32)", rows[0][4])
        self.assertTrue(any("fails at 11 of the 11 counts from VariablePhilox's 22 rounds on" in w for w in why))

    def test_many_later_failures_are_not_met(self):
        rows, v, why = verdict(lambda k: k >= 20, lambda k: k >= 28)
        self.assertEqual(v, "not met")
        self.assertIn("8 rounds later", rows[0][4])
        self.assertTrue(any("walking fails at 20–27" in w for w in why))

    def test_one_late_failure_is_chance(self):
        # Walking passes from 22 like VariablePhilox but fails once at 30: first all-pass 31, a
        # single failure among 11 tests at alpha = 0.01 (chance ~0.10) -- met up to chance.
        rows, v, _ = verdict(lambda k: k >= 22, lambda k: k >= 22 and k != 30)
        self.assertEqual(v, "met up to chance failures")
        self.assertEqual(rows[0][2], 31)
        self.assertIn("met up to chance", rows[0][4])

    def test_no_walking_rows_is_not_measured(self):
        rows, v, why = verdict(lambda k: k >= 22, None, walk=False)
        self.assertEqual(v, "not measured")
        self.assertEqual(rows[0][4], "not measured")
        self.assertEqual(why, ["no walking rows in the results"])

    def test_one_case_not_met_decides(self):
        ok = lambda r: r["passes"] == 1  # noqa: E731
        same = ("a", chi_rows("variable_philox", lambda k: k >= 10), chi_rows("walking", lambda k: k >= 10), ok, ALPHA)
        never = ("b", chi_rows("variable_philox", lambda k: k >= 10), chi_rows("walking", lambda k: False), ok, ALPHA)
        _, v, why = mr.walking_rounds_verdict([same, never])
        self.assertEqual(v, "not met")
        self.assertIn("1 of 2 cases", why[0])


class WalkingPlateauAndThroughput(unittest.TestCase):
    def test_plateau_is_the_median_ratio_from_a_round_count(self):
        walk = chi_rows("walking", lambda k: False)  # statistic 10 x critical everywhere
        level, counts = mr.walking_plateau(walk, "statistic", "critical_value", 22)
        self.assertAlmostEqual(level, 10.0)
        self.assertEqual(counts, list(range(22, 33)))

    def test_throughput_pairs_walking_with_bijective2_per_case(self):
        rows = []
        for w in (20, 21):
            for case, walk, b2 in (("worst", 2.0e9, 4.0e9), ("best", 6.0e9, 5.0e9)):
                rows.append({"algorithm": "walking", "case": case, "log2_size": w, "items_per_second": walk})
                rows.append({"algorithm": "variable_philox", "case": case, "log2_size": w, "items_per_second": b2})
        rows.append({"algorithm": "walking", "case": "worst", "log2_size": 22, "items_per_second": 1e9})  # no pair
        got = mr.walking_throughput(rows)
        self.assertEqual([(w, c) for w, c, _, _ in got], [(20, "worst"), (20, "best"), (21, "worst"), (21, "best")])
        self.assertEqual(got[1][2:], (6.0e9, 5.0e9))


if __name__ == "__main__":
    unittest.main()
