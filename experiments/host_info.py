"""What the Python experiments record about the machine and the checkout they ran on (shared by
experiments/cpu_peers.py and experiments/sampler.py): git's output for this repository, the load
averages, the CPU model, fields of /proc files (memory, the process's resident set), and the
provenance fields every meta.json of theirs starts with. Not an experiment itself."""

import datetime
import os
import platform
import socket
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(*args):
    """git's output for this repository (trailing newlines dropped; leading blanks kept: porcelain
    columns), or None (no git, or a copy of the tree without .git)."""
    try:
        return subprocess.run(["git", "-C", REPO] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=60, check=True).stdout.rstrip("\n")
    except Exception:  # noqa: BLE001 - a copy of the tree without git
        return None


def loadavg():
    """The 1-, 5- and 15-minute load averages (other work on the machine while timing), or None where
    the system gives none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def proc_line(path, prefix):
    """The rest of the first line of the text file `path` (a /proc file, e.g. /proc/meminfo) that
    starts with `prefix`, the prefix cut off (newline kept); None where no line does or the file
    cannot be read (not Linux)."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line[len(prefix):]
    except OSError:
        pass
    return None


def proc_kib(path, key):
    """The field `key` of a /proc file of "Key:   N kB" lines (/proc/meminfo, /proc/self/status), in
    bytes (N * 1024); None where the file, the field or its number is missing."""
    rest = proc_line(path, key + ":")
    if rest is None:
        return None
    try:
        return int(rest.split()[0]) * 1024
    except (ValueError, IndexError):
        return None


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, else platform.processor(), else "unknown"."""
    rest = proc_line("/proc/cpuinfo", "model name")
    if rest is not None:
        return rest.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def run_provenance(measured_code):
    """The meta.json fields both Python CPU experiments share: commit (ONEPASS_COMMIT, else git's
    HEAD, else "unknown"), worktree_dirty (None without git), measured_code_dirty (the tracked
    paths under the pathspecs `measured_code` with uncommitted changes, sorted), the command, the
    UTC start date, host, CPU model, cores and the cores this process may use."""
    commit = os.environ.get("ONEPASS_COMMIT") or (git("rev-parse", "HEAD") or "").strip() or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    measured_dirty = git("status", "--porcelain", "--untracked-files=no", "--", *measured_code)
    cores_used = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"commit": commit, "worktree_dirty": bool(dirty) if dirty is not None else None,
            "measured_code_dirty": sorted(line[3:] for line in measured_dirty.splitlines()) if measured_dirty else [],
            "command": " ".join(["python"] + sys.argv),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "host": socket.gethostname(), "cpu_model": cpu_model(), "cores": os.cpu_count(),
            "cores_used": cores_used}
