"""experiments/manifest.toml and its reader figures/manifest.py: the manifest is well formed,
malformed ones are refused with the entry named, and the readers agree with it (the Makefile's
lists, the figure modules' figures, the report's section modules, provenance's code paths)."""

import glob
import importlib
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.python import _support as t
from figures import manifest as mf
from figures import shuffle_results as sr
from figures import sort_results as so
from figures import gaussian_results, multi_gpu_results, python_results, sampler_results, segmented_results
from figures import walking_results


class Wellformed(unittest.TestCase):
    def test_loads_with_every_program_present(self):
        m = mf.load(check_files=True)
        self.assertEqual(len({e.name for e in m.experiments}), len(m.experiments))
        for e in m.experiments:
            self.assertTrue(os.path.isfile(os.path.join(t.REPO, e.program)), e.program)

    def test_every_pathspec_names_something(self):
        m = mf.manifest()
        for group, paths in m.code.items():
            for p in paths:
                if p == "baselines/gpu/gpu_baseline_common*":  # a glob kept for a file that may come back
                    continue
                self.assertTrue(glob.glob(os.path.join(t.REPO, p)), "code.%s: %s" % (group, p))

    def test_gpu_programs_name_their_measured_code(self):
        for e in mf.manifest().select(device="gpu", built=True):
            paths = mf.manifest().code_paths(e.name)
            self.assertIsNotNone(paths, e.name)
            self.assertEqual(paths[-1], e.program)


class Malformed(unittest.TestCase):
    GOOD = ('[report]\nsections = [{ family = "f", module = "m" }]\n[code]\na = ["x"]\nb = ["@a", "y"]\n'
            '[[experiment]]\nname = "e"\nprogram = "experiments/e.cu"\ndevice = "gpu"\nfamily = "f"\n'
            'stale_when = ["b"]\n')

    def load(self, text):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "manifest.toml")
        with open(path, "w") as f:
            f.write(text)
        return mf.load(path)

    def test_good_one_resolves_groups(self):
        m = self.load(self.GOOD)
        self.assertEqual(m.code_paths("e"), ["x", "y", "experiments/e.cu"])
        self.assertEqual(m.experiments[0].target, "e")
        self.assertEqual(m.experiments[0].csv, ("e",))

    def test_refusals_name_the_problem(self):
        cases = [(self.GOOD + "colour = 1\n", "unknown key(s) colour"),
                 (self.GOOD.replace('device = "gpu"', 'device = "tpu"'), "device must be one of"),
                 (self.GOOD.replace('family = "f"\n', 'family = "g"\n'), "family 'g'"),
                 (self.GOOD.replace('["b"]', '["c"]'), "stale_when names 'c'"),
                 (self.GOOD.replace('a = ["x"]', 'a = ["@b"]'), "includes itself"),
                 (self.GOOD + self.GOOD[self.GOOD.index("[[experiment]]"):], "listed twice"),
                 (self.GOOD.replace('program = "experiments/e.cu"\n', ''), "missing key program"),
                 (self.GOOD + 'seed_replicate = ["--x", 3]\n', "seed_replicate must be a list of strings")]
        for text, words in cases:
            with self.assertRaises(mf.ManifestError) as c:
                self.load(text)
            self.assertIn(words, str(c.exception))


class ReadersAgree(unittest.TestCase):
    def make_var(self, name):
        done = subprocess.run(["make", "--no-print-directory", "-s", "-C", t.REPO, "--eval",
                               "print-var-%: ; @echo $($*)", "print-var-" + name],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.split()

    @unittest.skipUnless(shutil.which("make"), "make not installed")
    def test_makefile_lists(self):
        m = mf.manifest()
        self.assertEqual(self.make_var("CPU_EXPERIMENTS"), m.names(device="cpu", built=True, in_figures=True))
        self.assertEqual(self.make_var("GPU_EXPERIMENTS"), m.names(device="gpu", built=True, in_figures=True))
        self.assertEqual(self.make_var("PYTHON_GPU_EXPERIMENTS"), ["python_peers", "sampler"])
        self.assertEqual(self.make_var("CPU_EXTRA_RUNS"), ["gaussian_dieharder,--generator,float_native"])
        # the seed replicates: the χ² and MMD programs, read from the manifest's seed_replicate
        self.assertEqual(self.make_var("SEED_REPLICATE_RUNS"),
                         ["fig06_chi2_rounds", "fig07_09_mmd,--lengths,5,100,--samples,{REPLICATE_MMD_SAMPLES}"])
        self.assertEqual(m.names(seed_replicate=True), ["fig06_chi2_rounds", "fig07_09_mmd"])
        self.assertIn("fig12_cpu_shuffle", self.make_var("FIGURE_NAMES"))

    def test_every_figure_is_drawn_by_a_figure_module(self):
        drawn = set(sr.CPU_FIGURES) | set(sr.GPU_FIGURES) | set(so.SORT_GPU_FIGURES) | set(so.SORT_TABLE_FIGURES)
        drawn |= {so.SELECTOR_FIGURE, segmented_results.FIGURE, python_results.FIGURE, sampler_results.FIGURE,
                  walking_results.FIGURE}
        drawn |= set(gaussian_results.FIGURES) | set(multi_gpu_results.FIGURES) | {"gaussian_failure_times"}
        self.assertEqual(set(mf.manifest().figures()), drawn)

    def test_shuffle_lists(self):
        self.assertEqual(sr.CPU_EXPERIMENTS, ["fig06_chi2_rounds", "fig07_09_mmd", "table2_cpu_shuffle"])
        self.assertEqual(sr.GPU_EXPERIMENTS, ["table1_gpu_shuffle", "fig10_fusion"])
        self.assertEqual(sr.GPU_FIGURES, {"fig10_fusion": "fig10_fusion", "fig11_gpu_shuffle": "table1_gpu_shuffle"})

    def test_section_modules_have_the_hook(self):
        families = {e.family for e in mf.manifest().experiments}
        self.assertEqual(families, {f for f, _ in mf.manifest().sections})
        for _, module in mf.manifest().sections:
            self.assertTrue(callable(getattr(importlib.import_module(module), "report_section", None)), module)


if __name__ == "__main__":
    unittest.main()
