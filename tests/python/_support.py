"""Shared helpers of the report tests (run as the package tests.python from the repository
root: `python -m unittest discover -s tests/python -t .`, so figures/ and paper/ import as
packages without path edits): small synthetic results written to a
temporary directory by the tests themselves (nothing here is committed data)."""

import csv
import json
import os
import shutil
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from paper import make_report
from paper import shuffle_section  # the shuffle paper's sections and verdicts
from paper import sort_section  # the sort sections and verdicts
from paper import provenance
from figures import shuffle_results as sr
from figures import sort_results as so

SORT_COLUMNS = so.SORT_COLUMNS
TABLE2_COLUMNS = sr.SCHEMAS["table2_cpu_shuffle"]
TABLE1_COLUMNS = sr.GPU_SCHEMAS["table1_gpu_shuffle"]
FUSION_COLUMNS = sr.GPU_SCHEMAS["fig10_fusion"]
GAUSSIAN_THROUGHPUT_COLUMNS = ["algorithm", "label", "mode", "form", "outputs", "threads", "reps", "seconds_median",
                               "seconds_min", "seconds_max", "outputs_per_second", "check"]
DIEHARDER_COLUMNS = ["test_id", "test_name", "ntup", "tsamples", "psamples", "p_value", "assessment"]


class TempDir:
    """A scratch directory removed at the end (use in setUp/tearDown or as a context manager)."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="onepass-report-test.")

    def cleanup(self):
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        self.cleanup()


def write_csv(directory, name, columns, rows):
    """directory/name.csv with the given header; rows are dicts (missing cells empty)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in columns])


def write_meta(directory, name, **fields):
    """directory/name.meta.json: a GPU run's usual fields, overridden by `fields`."""
    meta = {"experiment": name, "command": "synthetic %s" % name, "scale": "default", "commit": "unknown",
            "worktree_dirty": False, "date": "2026-01-01T00:00:00Z", "host": "test", "cpu_model": "test CPU",
            "cores": 2, "gpu_name": "Test GPU"}
    meta.update(fields)
    with open(os.path.join(directory, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    return meta


def sort_row(algorithm, shape, q, log2_n, keys_per_second):
    n = 2 ** log2_n
    seconds = n / keys_per_second
    return {"algorithm": algorithm, "label": algorithm, "shape": shape, "q": q, "n": n, "log2_n": log2_n, "reps": 7,
            "seconds_median": seconds, "seconds_min": seconds, "seconds_max": seconds,
            "keys_per_second": keys_per_second}


def write_sort(directory, name, rows, **meta):
    """A sort experiment's CSV + meta.json; returns (rows, meta) as the report loads them."""
    write_csv(directory, name, SORT_COLUMNS, rows)
    write_meta(directory, name, **meta)
    return so.load_sort_experiment(directory, name)


def empty_report(directory):
    """A make_report.Report writing nowhere (figures looked up in an empty directory)."""
    figures = os.path.join(directory, "figures")
    os.makedirs(figures, exist_ok=True)
    recorded = os.path.join(directory, "recorded")
    os.makedirs(recorded, exist_ok=True)
    return make_report.Report(directory, figures, os.path.join(directory, "report.md"), recorded)


def summary_verdict(report, item_prefix):
    """The verdict of the one summary row whose item starts with item_prefix."""
    found = [v for item, v, _ in report.summary if item.startswith(item_prefix)]
    if len(found) != 1:
        raise AssertionError("expected one summary row starting %r, got %r" % (item_prefix, report.summary))
    return found[0]


def have_git():
    try:
        return subprocess.run(["git", "--version"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


class GitRepo:
    """A throw-away git repository: commit(files, message) -> full hash."""

    def __init__(self, path):
        self.path = path
        self.git("init", "-q")
        self.git("checkout", "-q", "-b", "main")

    def git(self, *args):
        done = subprocess.run(["git", "-C", self.path, "-c", "user.name=test", "-c", "user.email=test@example.com",
                               "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if done.returncode != 0:
            raise RuntimeError("git %s: %s" % (" ".join(args), done.stderr))
        return done.stdout.strip()

    def commit(self, files, message):
        for rel, text in files.items():
            path = os.path.join(self.path, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            self.git("add", rel)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")
