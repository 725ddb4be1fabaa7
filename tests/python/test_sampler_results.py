#!/usr/bin/env python3
"""The data-loader sampler's section (figures/sampler_results.py, experiment sampler, issue 28
§3): the four targets' verdicts on small synthetic CSVs (met, not met, met where measured, not
measured), per-core CPU rates from meta.json's cores, several machines read at once, the
section and the figure hook; and experiments/sampler.py's size parsing and memory estimates.

Run alone (from the repository root): python3 -m unittest tests.python.test_sampler_results"""

import os
import unittest

from tests.python import _support  # shared test helpers

from figures import sampler_results as smp  
from experiments import sampler as experiment  

SIZES = smp.TARGET_SIZES


def row(algorithm, n, rate=None, p=1, rss=50e6, first=1e-5, beyond=None, status="ok", note=""):
    return {"algorithm": algorithm, "num_samples": n, "world_size": p, "indices_per_second": rate,
            "peak_rss_bytes": rss, "first_index_seconds": first, "bytes_beyond_batch": beyond, "status": status,
            "note": note}


def cpu_rows(rate=120e6, beyond=500, first=2e-5, sampler_first=4e-4, sizes=SIZES):
    rows = []
    for n in sizes:
        for p in (1, 8):
            rows.append(row("onepass_cpu", n, rate, p, beyond=beyond, first=first))
            rows.append(row("onepass_sampler_iter", n, 9e6, p, beyond=beyond, first=sampler_first))
            rows.append(row("torch_randperm_cpu", n, 30e6 / p, p, rss=8 * n, first=n / 30e6)
                        if 8 * n < 20e9 else
                        row("torch_randperm_cpu", n, None, p, rss=None, first=None, status="not_run_memory",
                            note="would ask for %d bytes (%.1f GiB) > 90%% of MemAvailable" % (8 * n, 8 * n / 2 ** 30)))
    return rows


def gpu_rows(rate=20e9, sizes=SIZES + [2 ** 30 + 1]):
    return [row("onepass_gpu", n, rate, p, first=3e-5) for n in sizes for p in (1, 8)]


class FakeReport:
    def __init__(self):
        self.parts, self.summary = [], []

    def add(self, *parts):
        self.parts += parts

    def figure(self, name, caption):
        return "![%s](%s.png)" % (caption, name)

    def text(self):
        return "\n".join(self.parts)


class Machines:
    """Writes synthetic results: recorded/<machine>/sampler.csv + meta, or a fresh results dir."""

    def __init__(self):
        self.tmp = _support.TempDir()
        self.results = os.path.join(self.tmp.path, "results")
        self.recorded = os.path.join(self.tmp.path, "recorded")
        os.makedirs(self.results)

    def record(self, machine, rows, **meta):
        d = os.path.join(self.recorded, machine)
        self.write(d, rows, **meta)
        return d

    def write(self, d, rows, **meta):
        _support.write_csv(d, "sampler", smp.COLUMNS, rows)
        fields = {"cores_used": 2, "cpu_model": "Test CPU", "gpu": None, "date": "2026-01-01T00:00:00Z"}
        fields.update(meta)
        _support.write_meta(d, "sampler", **fields)

    def load(self):
        return smp.load(self.results, self.recorded)

    def cleanup(self):
        self.tmp.cleanup()


class Verdicts(unittest.TestCase):
    def setUp(self):
        self.m = Machines()

    def tearDown(self):
        self.m.cleanup()

    def verdicts(self):
        return {t["key"]: t for t in smp.targets(self.m.load())}

    def test_all_met_on_a_cpu_and_a_gpu_machine(self):
        self.m.record("cpu-2core", cpu_rows(), date="2026-01-02T00:00:00Z")
        self.m.record("h100", gpu_rows(), gpu="NVIDIA H100", cores_used=16)
        t = self.verdicts()
        self.assertEqual({k: v["verdict"] for k, v in t.items()},
                         {"memory": "met", "first_index": "met", "cpu": "met", "gpu": "met"})
        self.assertAlmostEqual(t["cpu"]["worst"][1], 60e6)  # 120 M/s on 2 cores
        self.assertEqual(len(t["gpu"]["points"]), 10)  # four sizes and the worst case 2^30+1, P = 1 and 8

    def test_a_record_that_predates_the_code_is_shown_not_judged(self):
        # A GPU record whose measured code changed since (stale) fails the GPU target, a current one
        # meets it: the verdict comes from the current one; the section says which was left out.
        self.m.record("cpu-2core", cpu_rows(), commit="c-current")
        self.m.record("h100", gpu_rows(rate=5e9), gpu="NVIDIA H100", cores_used=16, commit="c-old")
        self.m.record("h200", gpu_rows(), gpu="NVIDIA H200", cores_used=16, commit="c-current")
        real = smp.pv.code_freshness
        smp.pv.code_freshness = lambda exp, commit, repo=None: {
            "status": "changed" if commit == "c-old" else "current", "commit": commit, "last_change": "c-new",
            "changes": 3 if commit == "c-old" else 0, "comment_only": False, "why": ""}
        try:
            self.assertEqual(self.verdicts()["gpu"]["verdict"], "met")
            r = FakeReport()
            smp.report_section(r, self.m.results, self.m.recorded)
            text = r.text()
            self.assertIn("not on `h100` (measured before the code changed)", text)
            self.assertIn("Its rows are shown, not judged.", text)
            # every record stale: judged on all of them (the verdict is not left undecided)
            smp.pv.code_freshness = lambda exp, commit, repo=None: {
                "status": "changed", "commit": commit, "last_change": "c-new", "changes": 1, "comment_only": False,
                "why": ""}
            self.assertEqual(self.verdicts()["gpu"]["verdict"], "not met")
        finally:
            smp.pv.code_freshness = real

    def test_per_core_rate_divides_by_the_cores_the_run_used(self):
        self.m.record("cpu-16core", cpu_rows(rate=120e6), cores_used=16)
        t = self.verdicts()
        self.assertEqual(t["cpu"]["verdict"], "not met")  # 7.5 M/s per core
        self.assertAlmostEqual(t["cpu"]["worst"][1], 7.5e6)
        self.assertIn("**not met**", smp.target_line(t["cpu"]))

    def test_cpu_worst_case_is_reported_beside_the_verdict(self):
        rows = cpu_rows(rate=120e6) + [row("onepass_cpu", 2 ** 30 + 1, 80e6, p) for p in (1, 8)]
        self.m.record("cpu-2core", rows)
        t = self.verdicts()["cpu"]
        self.assertEqual(t["verdict"], "met")  # 60 M/s per core at the target N
        self.assertEqual(len(t["beside"]), 2)
        self.assertIn("beside the target: 40 M/s at N = 2^30+1, P = 1 (cpu-2core)", smp.target_line(t))

    def test_cpu_verdict_per_machine(self):
        self.m.record("cpu-2core", cpu_rows(rate=120e6), date="2026-01-02T00:00:00Z")
        self.m.record("gpu-host", cpu_rows(rate=400e6), cores_used=16)  # 25 M/s per core
        t = self.verdicts()["cpu"]
        self.assertEqual(t["verdict"], "not met")
        self.assertIn("per machine: gpu-host (16 cores) worst 25 M/s (8 of 8 fail), "
                      "cpu-2core (2 cores) worst 60 M/s (met there)", smp.target_line(t))

    def test_cores_fall_back_to_meta_cores(self):
        d = self.m.record("cpu", cpu_rows(rate=90e6))
        self.m.write(d, cpu_rows(rate=90e6), cores_used=None, cores=1)
        self.assertAlmostEqual(self.verdicts()["cpu"]["worst"][1], 90e6)

    def test_memory_and_first_index_not_met(self):
        self.m.record("cpu", cpu_rows(beyond=4096, sampler_first=1.5e-3))
        t = self.verdicts()
        self.assertEqual(t["memory"]["verdict"], "not met")  # 4096 B is not < 4 KB
        self.assertEqual(t["first_index"]["verdict"], "not met")
        self.assertEqual(t["first_index"]["worst"][3]["algorithm"], "onepass_sampler_iter")
        self.assertEqual(len(t["first_index"]["failing"]), 8)  # the sampler at four N and two P

    def test_first_index_of_exactly_one_ms_meets(self):
        self.m.record("cpu", cpu_rows(sampler_first=1e-3))
        self.assertEqual(self.verdicts()["first_index"]["verdict"], "met")

    def test_missing_sizes_give_met_where_measured(self):
        self.m.record("cpu", cpu_rows(sizes=[10 ** 6, 10 ** 8]))
        t = self.verdicts()
        self.assertEqual(t["memory"]["verdict"], "met where measured")
        self.assertEqual(t["memory"]["missing"], [10 ** 9, 3 * 10 ** 9])
        self.assertIn("not measured at N = 10^9, 3·10^9", smp.verdict_text(t["memory"]))

    def test_no_gpu_rows_is_not_measured(self):
        self.m.record("cpu", cpu_rows() + [row("onepass_gpu", 10 ** 6, status="not_run_missing",
                                               note="no GPU that torch sees")])
        t = self.verdicts()
        self.assertEqual(t["gpu"]["verdict"], "not measured")
        self.assertEqual(smp.target_line(t["gpu"]), "- %s (%s): not measured" % (t["gpu"]["title"],
                                                                              t["gpu"]["target"]))

    def test_gpu_below_target_at_the_worst_case(self):
        rows = gpu_rows(rate=12e9) + [row("onepass_gpu", 2 ** 32 + 1, 9e9)]
        self.m.record("h100", rows, gpu="NVIDIA H100")
        t = self.verdicts()
        self.assertEqual(t["gpu"]["verdict"], "not met")
        self.assertEqual(t["gpu"]["worst"][0], 2 ** 32 + 1)

    def test_failed_and_not_run_rows_do_not_count(self):
        rows = cpu_rows() + [row("onepass_cpu", 10 ** 9, 1e6, beyond=10 ** 6, first=5.0, status="failed",
                                 note="MemoryError")]
        self.m.record("cpu", rows)
        t = self.verdicts()
        self.assertEqual((t["memory"]["verdict"], t["first_index"]["verdict"], t["cpu"]["verdict"]),
                         ("met", "met", "met"))

    def test_nothing_is_not_measured(self):
        self.assertEqual([t["verdict"] for t in smp.targets([])], ["not measured"] * 4)


class Section(unittest.TestCase):
    def setUp(self):
        self.m = Machines()

    def tearDown(self):
        self.m.cleanup()

    def section(self):
        r = FakeReport()
        smp.report_section(r, self.m.results, self.m.recorded)
        return r

    def test_not_measured_yet(self):
        r = self.section()
        self.assertEqual(r.summary[0][1], "not measured")
        self.assertIn("Not measured yet", r.text())

    def test_tables_verdicts_and_not_run_notes(self):
        self.m.record("cpu-2core", cpu_rows(rate=80e6), date="2026-01-02T00:00:00Z")
        self.m.record("h100", gpu_rows(rate=8e9), gpu="NVIDIA H100", cores_used=16)
        r = self.section()
        text = r.text()
        self.assertIn("**cpu-2core**", text)
        self.assertIn("**h100**", text)
        self.assertIn("| 3·10^9 | 1 |", text)
        self.assertIn("not run (memory: needs 22.4 GiB)", text)
        self.assertIn("![", text)
        # CPU 40 M/s per core: not met; GPU 8 G/s: not met; memory and first index met
        self.assertEqual(r.summary[0][1], "2 of 4 met")
        self.assertIn("CPU indices/s per core (epoch_indices) (≥ 50 M/s per core at the target N): **not met**", text)

    def test_fresh_run_is_read_beside_the_recorded_copies(self):
        self.m.record("cpu-2core", cpu_rows())
        self.m.write(self.m.results, gpu_rows(), gpu="NVIDIA H100", cores_used=16)
        datasets = self.m.load()
        self.assertEqual([d.machine for d in datasets], ["cpu-2core", "this run"])
        self.assertTrue(datasets[-1].fresh)
        self.assertEqual(self.section().summary[0][1], "4 of 4 met")

    def test_other_processes_share_is_reported(self):
        rows = cpu_rows()
        rows[0]["note"] = "batch 2^20; other processes used 12% of the machine's CPU meanwhile"
        rows[1]["note"] = "other processes used 0% of the machine's CPU meanwhile"
        self.m.record("cpu", rows)
        d = self.m.load()[0]
        self.assertAlmostEqual(smp.others_share(d.rows[0]), 0.12)
        self.assertIsNone(smp.others_share(d.rows[2]))  # a peer's row without it
        self.assertIn("at most 12% of its CPU time (`onepass_cpu`, N = 10^6, P = 1); those rates are low",
                      smp.others_text(d))
        self.assertIn("at most 12%", self.section().text())

    def test_malformed_input_is_reported_not_raised(self):
        d = os.path.join(self.m.recorded, "cpu")
        _support.write_csv(d, "sampler", ["algorithm", "num_samples"], [{"algorithm": "onepass_cpu", "num_samples": 1}])
        r = self.section()
        self.assertEqual(r.summary[0][1], "not measured")
        self.assertIn("columns missing", r.text())


class Figure(unittest.TestCase):
    def setUp(self):
        self.m = Machines()

    def tearDown(self):
        self.m.cleanup()

    def test_hook_skips_silently_without_results(self):
        written, problems = smp.extend(self.m.results, self.m.tmp.path, self.m.recorded, [], [])
        self.assertEqual((written, problems), ([], []))
        self.assertEqual(smp.required_figures(self.m.results, self.m.recorded), [])

    def test_hook_draws_from_recorded_copies(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib not installed")
        self.m.record("cpu-2core", cpu_rows())
        self.m.record("h100", gpu_rows(), gpu="NVIDIA H100", cores_used=16)
        out = os.path.join(self.m.tmp.path, "figures")
        os.makedirs(out)
        written, problems = smp.extend(self.m.results, out, self.m.recorded, [], [])
        self.assertEqual(problems, [])
        self.assertEqual(sorted(os.path.basename(p) for p in written), ["sampler.pdf", "sampler.png"])
        self.assertEqual(smp.required_figures(self.m.results, self.m.recorded), ["sampler"])


class Experiment(unittest.TestCase):
    def test_sizes(self):
        self.assertEqual(experiment.parse_sizes("1e6,3e9, 2^30+1,1000,2.5e3"),
                         [10 ** 6, 3 * 10 ** 9, 2 ** 30 + 1, 1000, 2500])
        self.assertEqual([experiment.size_text(n) for n in (10 ** 6, 3 * 10 ** 9, 2 ** 30 + 1, 2 ** 20, 12345)],
                         ["10^6", "3·10^9", "2^30+1", "2^20", "12345"])
        self.assertEqual(smp.size_text(3 * 10 ** 9), experiment.size_text(3 * 10 ** 9))

    def test_peer_memory(self):
        self.assertEqual(experiment.peer_bytes("torch_randperm_cpu", 10 ** 9, 8), 8 * 10 ** 9)
        self.assertEqual(experiment.peer_bytes("torch_randperm_cuda", 10 ** 9, 1, itemsize=4), 4 * 10 ** 9)
        # randperm 8N + tolist pointers 8N + int objects 32N + rank 0's slice of ceil(N/P) pointers
        self.assertEqual(experiment.peer_bytes("torch_distributed_sampler", 10 ** 9, 8), 48 * 10 ** 9 + 10 ** 9)
        self.assertEqual(experiment.peer_bytes("onepass_cpu", 10 ** 9, 8), 0)
        self.assertEqual(experiment.rank_positions(10, 4), 3)
        self.assertEqual(experiment.rank_positions(10, 4, drop_last=True), 2)


if __name__ == "__main__":
    unittest.main()
