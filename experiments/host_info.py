"""What the Python experiments record about the machine and the checkout they ran on (shared by
experiments/cpu_peers.py and experiments/sampler.py): git's output for this repository, the load
averages and the CPU model. Not an experiment itself."""

import os
import platform
import subprocess

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


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, else platform.processor(), else "unknown"."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
