#!/usr/bin/env python3
"""paper/provenance.py in a throw-away git repository: whether the code a GPU result measures
changed after the commit it was measured at (comment-only changes count), the clocks line, and
the check `make record-gpu` runs (dirty tree, unknown or non-ancestor commit, DIRTY_OK_REASON,
FORCE=1) -- through the functions and through the Makefile target itself.

Run alone (from the repository root): python3 -m unittest tests.python.test_provenance"""

import io
import json
import os
import shutil
import subprocess
import sys
import unittest

from tests.python import _support as t  # shared test helpers

pv = t.provenance
ONESWEEP = "lib/include/onepass/sort/onesweep.cuh"


@unittest.skipUnless(t.have_git(), "git not installed")
class CodeFreshness(unittest.TestCase):
    def setUp(self):
        self.tmp = t.TempDir()
        self.repo = t.GitRepo(self.tmp.path)
        self.measured = self.repo.commit({ONESWEEP: "int sort();\n"}, "onesweep")
        self.unrelated = self.repo.commit({"README.md": "readme\n"}, "readme only")

    def tearDown(self):
        self.tmp.cleanup()

    def test_unchanged_code_is_current(self):
        f = pv.code_freshness("sort_headline", self.measured, self.tmp.path)
        self.assertEqual(f["status"], "current")
        self.assertEqual(f["last_change"], self.measured)
        # A later commit that does not touch the measured code changes nothing.
        self.assertEqual(pv.code_freshness("sort_headline", self.unrelated, self.tmp.path)["status"], "current")
        self.assertIn("has not changed since", pv.freshness_text("sort_headline", {"commit": self.measured},
                                                                 self.tmp.path))

    def test_comment_only_change_is_current_and_said(self):
        later = self.repo.commit({ONESWEEP: "// a comment\nint  sort( /* none */ );\n\n"}, "comment only")
        f = pv.code_freshness("sort_headline", self.measured, self.tmp.path)
        self.assertEqual((f["status"], f["comment_only"], f["last_change"], f["changes"]), ("current", True, later, 1))
        text = pv.freshness_text("sort_headline", {"commit": self.measured}, self.tmp.path)
        self.assertIn("changed only comments or layout", text)
        self.assertIn("`%s`" % later[:7], text)
        self.assertIn("comment-only changes", pv.freshness_cell("sort_headline", {"commit": self.measured},
                                                                self.tmp.path))

    def test_code_change_counts(self):
        self.repo.commit({ONESWEEP: "// a comment\nint sort();\n"}, "comment only")
        later = self.repo.commit({ONESWEEP: "// a comment\nint sort(int);\n"}, "code")
        f = pv.code_freshness("sort_headline", self.measured, self.tmp.path)
        self.assertEqual((f["status"], f["comment_only"], f["last_change"], f["changes"]), ("changed", False, later, 2))
        text = pv.freshness_text("sort_headline", {"commit": self.measured[:7], "worktree_dirty": True}, self.tmp.path)
        self.assertIn("measured at commit `%s` (uncommitted changes" % self.measured[:7], text)
        self.assertIn("the data predate the code", text)
        self.assertIn("`%s`" % later[:7], text)
        # Shuffle code was not touched: a shuffle result of the same commit is current.
        self.repo.commit({"lib/include/onepass/shuffle/gpu_shuffle.cuh": "x\n"}, "shuffle")
        self.assertEqual(pv.code_freshness("sort_headline", later, self.tmp.path)["status"], "current")
        self.assertEqual(pv.code_freshness("table1_gpu_shuffle", later, self.tmp.path)["status"], "changed")

    def test_strip_comments(self):
        self.assertEqual(pv.strip_comments('int f(); // x\n/* y */ int  g("//s");\n', "a.cu"),
                         'int f();int g("//s");')
        self.assertNotEqual(pv.strip_comments("int a;", "a.cu"), pv.strip_comments("int b;", "a.cu"))
        # Python keeps its indentation (it is code) and strings that hold a '#'.
        self.assertEqual(pv.strip_comments('x = 1  # c\n\nif y:\n    z = "#s"\n', "a.py"), 'x = 1\nif y:\n    z = "#s"')
        self.assertNotEqual(pv.strip_comments("if y:\n    z\n", "a.py"), pv.strip_comments("if y:\nz\n", "a.py"))
        # A data file keeps its '#'.
        self.assertEqual(pv.strip_comments("a # b\n", "table.inc.csv"), "a # b")
        # Type stubs never run: a regenerated stub is not a change of the measured code.
        self.assertEqual(pv.strip_comments("def f(a: int) -> None: ...\n", "m.pyi"),
                         pv.strip_comments("def f(a: int, b: int) -> None: ...\n", "m.pyi"))
        self.assertNotEqual(pv.strip_comments("def f(a): pass\n", "m.py"), pv.strip_comments("def f(a, b): pass\n", "m.py"))

    def test_the_experiment_program_counts(self):
        self.repo.commit({"experiments/sort_headline.cu": "main\n"}, "program")
        self.assertEqual(pv.code_freshness("sort_headline", self.measured, self.tmp.path)["status"], "changed")
        self.assertEqual(pv.code_freshness("onesweep_fig09_keys32", self.measured, self.tmp.path)["status"],
                         "current")

    def test_unknown(self):
        for commit in ("unknown", "HEAD", "0123456789abcdef0123456789abcdef01234567", ""):
            f = pv.code_freshness("sort_headline", commit, self.tmp.path)
            self.assertEqual(f["status"], "unknown", commit)
        self.assertIn("is unknown", pv.freshness_text("sort_headline", {"commit": "HEAD"}, self.tmp.path))
        self.assertEqual(pv.code_freshness("no_such_experiment", self.measured, self.tmp.path)["status"], "unknown")
        with t.TempDir() as not_a_repo:
            f = pv.code_freshness("sort_headline", self.measured, not_a_repo)
            self.assertEqual((f["status"], f["why"]), ("unknown", "git history not available"))


class Clocks(unittest.TestCase):
    def test_now_equal_max_is_not_locked(self):
        text = pv.clocks_text({"gpu_clock_sm_now": "1980 MHz", "gpu_clock_sm_max": "1980 MHz",
                               "gpu_clock_mem_now": "2619 MHz", "gpu_clock_mem_max": "2619 MHz"})
        self.assertTrue(text.startswith("Clocks: not locked (application clocks default)"), text)
        self.assertIn("SM 1980 MHz (max 1980 MHz)", text)

    def test_locked_only_when_a_field_says_so(self):
        self.assertIn("Clocks: locked", pv.clocks_text({"gpu_clocks_locked": True, "gpu_clock_sm_now": "1410 MHz"}))
        self.assertIn("Clocks: locked", pv.clocks_text({"gpu_clocks_locked": "yes"}))
        self.assertIn("not locked", pv.clocks_text({"gpu_clocks_locked": "false"}))

    def test_not_recorded(self):
        self.assertEqual(pv.clocks_text({}), "Clocks: not locked (application clocks default); clocks not recorded.")


@unittest.skipUnless(t.have_git(), "git not installed")
class RecordCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = t.TempDir()
        self.repo_dir = os.path.join(self.tmp.path, "repo")
        os.makedirs(self.repo_dir)
        self.repo = t.GitRepo(self.repo_dir)
        self.first = self.repo.commit({"a.txt": "1\n"}, "first")
        self.repo.git("checkout", "-q", "-b", "side")
        self.side = self.repo.commit({"b.txt": "side\n"}, "side branch")
        self.repo.git("checkout", "-q", "main")
        self.head = self.repo.commit({"a.txt": "2\n"}, "second")

    def tearDown(self):
        self.tmp.cleanup()

    def meta(self, **fields):
        path = os.path.join(self.tmp.path, "run.meta.json")
        with open(path, "w") as f:
            json.dump(dict({"experiment": "table1_gpu_shuffle", "commit": self.head, "worktree_dirty": False},
                           **fields), f, indent=2)
        return path

    def check(self, path, **kw):
        err = io.StringIO()
        ok, note = pv.check_record([path], repo=self.repo_dir, err=err, **kw)
        return ok, note, err.getvalue()

    def test_clean_head_and_ancestor_are_accepted(self):
        for commit in (self.head, self.first, self.first[:7]):
            ok, note, err = self.check(self.meta(commit=commit))
            self.assertEqual((ok, note, err), (True, "", ""), commit)

    def test_dirty_is_refused(self):
        ok, note, err = self.check(self.meta(worktree_dirty=True))
        self.assertFalse(ok)
        self.assertIn("REFUSED", err)
        self.assertIn("worktree_dirty", err)

    def test_dirty_with_a_reason_is_accepted_and_noted(self):
        ok, note, err = self.check(self.meta(worktree_dirty=True), dirty_ok_reason="copy carried build folders")
        self.assertTrue(ok)
        self.assertIn("worktree_dirty accepted (DIRTY_OK_REASON): copy carried build folders", note)

    def test_unknown_or_side_branch_commit_is_refused_even_with_a_reason(self):
        for commit in ("HEAD", "unknown", "0123456789abcdef0123456789abcdef01234567", self.side):
            ok, note, err = self.check(self.meta(commit=commit, worktree_dirty=True), dirty_ok_reason="because")
            self.assertFalse(ok, commit)
            self.assertIn("REFUSED", err)

    def test_force_records_with_a_loud_warning_and_a_note(self):
        ok, note, err = self.check(self.meta(commit=self.side), force=True)
        self.assertTrue(ok)
        self.assertIn("WARNING: FORCE=1", err)
        self.assertIn("FORCE=1 despite", note)
        self.assertIn("not HEAD nor an ancestor of HEAD", note)

    def test_add_note_keeps_the_file(self):
        path = self.meta()
        with open(path) as f:
            before = f.read()
        pv.add_note(path, "a note")
        with open(path) as f:
            after = f.read()
        self.assertTrue(after.startswith(before.rstrip()[:-1].rstrip()))
        self.assertEqual(json.loads(after)["recorded_note"], "a note")
        pv.add_note(path, "second")
        with open(path) as f:
            self.assertEqual(json.load(f)["recorded_note"], "a note | second")


@unittest.skipUnless(t.have_git() and shutil.which("make"), "git or make not installed")
class MakeRecordGpu(unittest.TestCase):
    """`make record-gpu` of this repository's Makefile, run in a throw-away repository."""

    def setUp(self):
        self.tmp = t.TempDir()
        self.repo_dir = os.path.join(self.tmp.path, "repo")
        os.makedirs(os.path.join(self.repo_dir, "paper"))
        shutil.copy(os.path.join(t.REPO, "Makefile"), self.repo_dir)
        shutil.copy(os.path.join(t.REPO, "paper", "provenance.py"), os.path.join(self.repo_dir, "paper"))
        # The Makefile's experiment lists and provenance.py's code paths come from the manifest.
        manifest_files = ["experiments/manifest.toml", "figures/__init__.py", "figures/manifest.py"]
        for rel in manifest_files:
            os.makedirs(os.path.dirname(os.path.join(self.repo_dir, rel)), exist_ok=True)
            shutil.copy(os.path.join(t.REPO, rel), os.path.join(self.repo_dir, rel))
        self.repo = t.GitRepo(self.repo_dir)
        self.repo.git("add", "Makefile", "paper/provenance.py", *manifest_files)
        self.head = self.repo.commit({"README.md": "x\n"}, "tree")
        self.results = os.path.join(self.tmp.path, "results")
        os.makedirs(self.results)
        t.write_csv(self.results, "table1_gpu_shuffle", t.TABLE1_COLUMNS, [])

    def tearDown(self):
        self.tmp.cleanup()

    def record(self, meta, **env):
        t.write_meta(self.results, "table1_gpu_shuffle", **meta)
        clean = {k: v for k, v in os.environ.items()
                 if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "FORCE", "DIRTY_OK_REASON")}
        clean.update(env)
        done = subprocess.run(["make", "--no-print-directory", "-C", self.repo_dir, "record-gpu", "DEVICE=testdev",
                               "RESULTS_DIR=" + self.results, "PYTHON=" + sys.executable],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=clean)
        path = os.path.join(self.repo_dir, "results", "recorded", "testdev", "table1_gpu_shuffle.meta.json")
        recorded = None
        if os.path.isfile(path):
            with open(path) as f:
                recorded = json.load(f)
        return done.returncode, done.stdout, recorded

    def test_clean_commit_is_recorded(self):
        rc, out, recorded = self.record({"commit": self.head})
        self.assertEqual(rc, 0, out)
        self.assertNotIn("recorded_note", recorded)

    def test_dirty_is_refused_and_nothing_copied(self):
        rc, out, recorded = self.record({"commit": self.head, "worktree_dirty": True})
        self.assertNotEqual(rc, 0)
        self.assertIn("REFUSED", out)
        self.assertIsNone(recorded)

    def test_dirty_ok_reason_is_written_next_to_the_files(self):
        rc, out, recorded = self.record({"commit": self.head, "worktree_dirty": True},
                                        DIRTY_OK_REASON="lent machine: git-ignored carried folders")
        self.assertEqual(rc, 0, out)
        self.assertIn("git-ignored carried folders", recorded["recorded_note"])

    def test_unknown_commit_needs_force(self):
        rc, out, recorded = self.record({"commit": "HEAD"})
        self.assertNotEqual(rc, 0)
        self.assertIsNone(recorded)
        rc, out, recorded = self.record({"commit": "HEAD"}, FORCE="1")
        self.assertEqual(rc, 0, out)
        self.assertIn("WARNING: FORCE=1", out)
        self.assertIn("FORCE=1 despite", recorded["recorded_note"])


if __name__ == "__main__":
    unittest.main()


class CpuLoad(unittest.TestCase):
    def test_flags_a_run_above_its_core_count(self):
        text = pv.cpu_load_text({"quiet": {"loadavg_before": 0.5, "loadavg_after": 1.9, "cores": 2},
                                 "busy": {"loadavg_before": 1.0, "loadavg_after": 3.4, "cores": 2},
                                 "old": {"cores": 2}})
        self.assertIn("loaded above its core count", text)
        self.assertIn("`busy` (1.0 → 3.4 on 2 cores)", text)
        self.assertNotIn("`quiet`", text.split("stayed")[0])
        self.assertIn("1 CPU run stayed at or below the core count", text)
        self.assertIn("no load recorded for `old`", text)

    def test_quiet_runs_only_and_nothing(self):
        text = pv.cpu_load_text({"a": {"loadavg_before": 1.0, "loadavg_after": 2.0, "cores": 2}})
        self.assertNotIn("loaded above", text)
        self.assertIn("1 CPU run stayed", text)
        self.assertEqual(pv.cpu_load_text({}), "")
