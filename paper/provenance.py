#!/usr/bin/env python3
"""Provenance of recorded GPU results: the commit that measured them, whether the code they
measure changed since, the clocks they ran at; and the check `make record-gpu` runs.

Used by paper/make_report.py (one line per GPU figure, and a table) and by the Makefile:

    provenance.py check META.json...   exit 1 (refused) when a run's meta.json says
        worktree_dirty: true, or names a commit that is not a commit of this repository or not
        an ancestor of (or equal to) HEAD. Environment: DIRTY_OK_REASON="why the dirty flag is
        harmless" accepts worktree_dirty (only that); FORCE=1 accepts everything, with a loud
        warning. Prints on stdout the note to keep with the recorded files (empty when none).
    provenance.py note TEXT META.json...   adds "recorded_note": TEXT to each meta.json.

Standard library only; git is optional (without it, or for a commit it does not know, the
answers are "unknown" and `check` refuses unless FORCE=1).
"""

import datetime
import json
import os
import re
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if __package__ in (None, ""):  # run as a script (the Makefile's `python3 paper/provenance.py check`)
    sys.path.insert(0, REPO_ROOT)
from figures import manifest  # noqa: E402 - experiments/manifest.toml, standard library only

# The source paths (git pathspecs, from the repository root) whose code each GPU experiment
# measures -- the library code it times, the peers timed beside it, and its own program -- are its
# `stale_when` groups of [code] in experiments/manifest.toml. A commit that touches one of them
# counts as a change of the measured code unless, between the measured commit and HEAD, the files
# differ only in comments and whitespace (strip_comments). The C++ experiments' timing harness
# (experiments/common/harness.*, gpu_harness.*, multi_gpu.cuh) is one of those groups
# (timing_harness_cpu / _gpu / _multi_gpu).


def code_paths(experiment):
    """The pathspecs of the code `experiment` measures (its own program included), or None
    when experiments/manifest.toml gives it no `stale_when` (or does not list it)."""
    return manifest.manifest().code_paths(experiment)


def _git(repo, *args):
    """git's stdout (stripped) when it exits 0, else None (also when git is not installed)."""
    out = _git_raw(repo, *args)
    return None if out is None else out.strip()


def _git_raw(repo, *args):
    """git's stdout as it is (a file's content from `git show`) when it exits 0, else None."""
    try:
        done = subprocess.run(["git", "-C", repo] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=60)
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return done.stdout if done.returncode == 0 else None


def _is_ancestor(repo, older, newer):
    """True when `older` is an ancestor of `newer` or equal to it; None when git cannot say."""
    try:
        done = subprocess.run(["git", "-C", repo, "merge-base", "--is-ancestor", older, newer],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return {0: True, 1: False}.get(done.returncode)


def git_available(repo=REPO_ROOT):
    """True when git runs and `repo` is (inside) a git checkout with a HEAD."""
    return _git(repo, "rev-parse", "--verify", "--quiet", "HEAD") is not None


def _shallow(repo):
    """', a shallow clone' when repo's history is cut short, else ''."""
    return ", a shallow clone" if _git(repo, "rev-parse", "--is-shallow-repository") == "true" else ""


def resolve_commit(commit, repo=REPO_ROOT):
    """The full hash of `commit` (a 7..40 hex digit hash) when it names a commit of `repo`;
    None for anything else ('unknown', 'HEAD', a hash git does not know, no git)."""
    if not isinstance(commit, str) or not re.fullmatch(r"[0-9a-fA-F]{7,40}", commit):
        return None
    return _git(repo, "rev-parse", "--verify", "--quiet", commit + "^{commit}")


def short(commit):
    return str(commit)[:7] if re.fullmatch(r"[0-9a-fA-F]{8,40}", str(commit)) else str(commit)


_C_LIKE = (".c", ".h", ".cc", ".cpp", ".hpp", ".cu", ".cuh", ".inc")


def strip_comments(text, path):
    """`text` (the content of file `path`) without its comments, in a form in which two versions
    compare equal when they differ only in comments or layout. C, C++ and CUDA files: // and
    /* */ comments outside string and character literals are dropped, every run of whitespace
    becomes one space, and none is kept next to punctuation. Python, shell and CMake files: #
    comments outside strings are dropped, then trailing whitespace and blank lines (indentation
    stays: it is code). Python type stubs (.pyi): nothing (they are read by editors and type
    checkers, never run; scripts/device-python-gpu.sh regenerates the CUDA module's in the run it
    records). Any other file: trailing whitespace and blank lines only."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".pyi":
        return ""
    c_like = ext in _C_LIKE
    hash_comments = ext in (".py", ".cmake", ".sh") or os.path.basename(path) == "CMakeLists.txt"
    out, i, n, quote = [], 0, len(text), None
    while i < n:
        ch = text[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
            i += 1
        elif ch in "\"'":
            quote = ch
            out.append(ch)
            i += 1
        elif c_like and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c_like and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif hash_comments and ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(ch)
            i += 1
    code = "".join(out)
    if c_like:
        # One space between two words ("unsigned int"), none next to punctuation.
        return re.sub(r"\s*([^\w\s])\s*", r"\1", re.sub(r"\s+", " ", code)).strip()
    return "\n".join(line.rstrip() for line in code.splitlines() if line.strip())


def _code_differs(repo, older, newer, paths):
    """The files under `paths` whose code (strip_comments) differs between commits older and
    newer; None when git cannot say."""
    names = _git(repo, "diff", "--name-only", older, newer, "--", *paths)
    if names is None:
        return None
    differ = []
    for name in names.splitlines():
        before = _git_raw(repo, "show", "%s:%s" % (older, name))
        after = _git_raw(repo, "show", "%s:%s" % (newer, name))
        if before is None or after is None or strip_comments(before, name) != strip_comments(after, name):
            differ.append(name)
    return differ


def code_freshness(experiment, commit, repo=REPO_ROOT):
    """Whether the code `experiment` measures changed after the commit its data were measured at.

    Returns {"status": "current" | "changed" | "unknown", "commit": full hash or None,
    "last_change": the newest commit on HEAD touching the code (or None), "changes": how many
    commits in commit..HEAD touch it, "comment_only": True when those commits changed only
    comments or layout, "why": reason when unknown}. 'changed' when that newest change is not an
    ancestor of (or equal to) the measured commit and the code differs between the measured
    commit and HEAD once comments and whitespace are set aside (strip_comments); when only those
    differ, 'current' with comment_only set."""
    out = {"status": "unknown", "commit": None, "last_change": None, "changes": 0, "comment_only": False, "why": ""}
    paths = code_paths(experiment)
    if paths is None:
        out["why"] = "no code paths are mapped for %s" % experiment
        return out
    if not git_available(repo):
        out["why"] = "git history not available"
        return out
    full = resolve_commit(commit, repo)
    if full is None:
        out["why"] = "`%s` is not a commit in this checkout's history%s" % (short(commit), _shallow(repo))
        return out
    out["commit"] = full
    last = _git(repo, "log", "-1", "--format=%H", "HEAD", "--", *paths)
    if not last:
        out["why"] = "no commit on HEAD touches the measured code"
        return out
    out["last_change"] = last
    older = _is_ancestor(repo, last, full)
    if older is None:
        out["why"] = "git merge-base failed"
        return out
    if older:
        out["status"] = "current"
    else:
        count = _git(repo, "rev-list", "--count", "%s..HEAD" % full, "--", *paths)
        out["changes"] = int(count) if count and count.isdigit() else 0
        differ = _code_differs(repo, full, "HEAD", paths)
        if differ == []:
            out["status"] = "current"
            out["comment_only"] = True
        else:
            out["status"] = "changed"
    return out


def dirty_text(meta, long=False):
    """How the report qualifies a result's commit: nothing for a clean tree; for a dirty one,
    "uncommitted changes" — unless `make record-gpu` accepted the flag with a reason
    (recorded_note), which then is what it was (e.g. a copy of the committed tree carrying
    git-ignored build outputs)."""
    if not meta.get("worktree_dirty"):
        return ""
    if meta.get("recorded_note"):
        return " (dirty flag accepted when recorded: %s)" % meta["recorded_note"] if long else \
            " (dirty flag accepted when recorded, see its meta.json)"
    return " (uncommitted changes in the measuring tree)" if long else " (uncommitted changes)"


def freshness_text(experiment, meta, repo=REPO_ROOT):
    """One sentence: the commit the data were measured at and whether the measured code changed since."""
    commit = meta.get("commit", "unknown")
    dirty = dirty_text(meta, long=True)
    f = code_freshness(experiment, commit, repo)
    head = "Data measured at commit `%s`%s" % (short(commit), dirty)
    if f["status"] == "current" and f["comment_only"]:
        return ("%s; the code it measures has not changed since: %d later commit%s changed only comments or layout "
                "of the measured files (newest `%s`)." % (head, f["changes"], "" if f["changes"] == 1 else "s",
                                                          short(f["last_change"])))
    if f["status"] == "current":
        return ("%s; the code it measures has not changed since (last change `%s`)."
                % (head, short(f["last_change"])))
    if f["status"] == "changed":
        return ("%s; **the measured code changed since**: %d later commit%s touch%s the measured files, the newest "
                "`%s` (beyond comments and layout): the data predate the code."
                % (head, f["changes"], "" if f["changes"] == 1 else "s", "es" if f["changes"] == 1 else "",
                   short(f["last_change"])))
    return "%s; whether the measured code changed since is unknown (%s)." % (head, f["why"])


def freshness_cell(experiment, meta, repo=REPO_ROOT):
    """freshness_text in a few words, for a table cell."""
    f = code_freshness(experiment, meta.get("commit", "unknown"), repo)
    if f["status"] == "current" and f["comment_only"]:
        return "unchanged since (comment-only changes, newest `%s`)" % short(f["last_change"])
    if f["status"] == "current":
        return "unchanged since (last change `%s`)" % short(f["last_change"])
    if f["status"] == "changed":
        return "**changed since**: %d later commit%s, newest `%s`" % (f["changes"], "" if f["changes"] == 1 else "s",
                                                                   short(f["last_change"]))
    return "unknown (%s)" % f["why"]


def clocks_locked(meta):
    """True / False when a meta.json field says whether the GPU clocks were locked (a key
    ending in 'clocks_locked' or 'clock_locked'), None when none does."""
    for key, value in meta.items():
        if re.search(r"clocks?_locked$", key):
            if isinstance(value, bool):
                return value
            return str(value).strip().lower() in ("true", "yes", "1", "locked", "on", "enabled")
    return None


def clocks_text(meta, lead="Clocks: "):
    """One line on the clocks: locked only when a meta.json field says so -- current == max
    when the program read them is no proof of locking."""
    sm_now, sm_max = meta.get("gpu_clock_sm_now"), meta.get("gpu_clock_sm_max")
    mem_now, mem_max = meta.get("gpu_clock_mem_now"), meta.get("gpu_clock_mem_max")
    seen = []
    if sm_now or sm_max:
        seen.append("SM %s (max %s)" % (sm_now or "?", sm_max or "?"))
    if mem_now or mem_max:
        seen.append("memory %s (max %s)" % (mem_now or "?", mem_max or "?"))
    read = ("; nvidia-smi read %s during the run" % ", ".join(seen)) if seen else "; clocks not recorded"
    locked = clocks_locked(meta)
    if locked:
        return "%slocked (per meta.json)%s." % (lead, read)
    return "%snot locked (application clocks default)%s." % (lead, read)


# --------------------------------------------------------------------------- make record-gpu

def cpu_load_text(metas):
    """One sentence on the load of the machine during the CPU runs, from their meta.json
    (`loadavg_before` / `loadavg_after`, the 1-minute load average at the start and end of the
    run, and `cores`): it names every run whose load exceeded its core count (its timings were
    shared with other work), says when every run stayed at or below it, and names the runs that
    did not record it. metas: {experiment: meta dict}. Returns "" for no metas."""
    loaded, quiet, unknown = [], [], []
    for name, meta in sorted(metas.items()):
        before, after, cores = meta.get("loadavg_before"), meta.get("loadavg_after"), meta.get("cores")
        try:
            highest = max(float(x) for x in (before, after) if x is not None)
            cores = float(cores)
        except (TypeError, ValueError):
            unknown.append(name)
            continue
        (loaded if highest > cores else quiet).append(
            "`%s` (%s → %s on %d cores)" % (name, before if before is not None else "?",
                                           after if after is not None else "?", int(cores)))
    if not (loaded or quiet or unknown):
        return ""
    parts = []
    if loaded:
        parts.append("**measured on a machine loaded above its core count** (1-minute load average before → "
                     "after; the timings shared the cores with other work): " + "; ".join(loaded))
    if quiet:
        parts.append("%d CPU run%s stayed at or below the core count" % (len(quiet), "" if len(quiet) == 1 else "s"))
    if unknown:
        parts.append("no load recorded for " + ", ".join("`%s`" % n for n in unknown))
    return "**Load during the CPU runs:** " + "; ".join(parts) + "."


def record_problems(meta, repo=REPO_ROOT):
    """Why a run should not be recorded as is: [(kind, text)], kind 'dirty' or 'commit'."""
    problems = []
    if meta.get("worktree_dirty"):
        problems.append(("dirty", "worktree_dirty is true (the measuring tree had uncommitted changes)"))
    commit = meta.get("commit", "unknown")
    if not git_available(repo):
        problems.append(("commit", "cannot check commit `%s`: git history not available" % commit))
        return problems
    full = resolve_commit(commit, repo)
    if full is None:
        problems.append(("commit", "commit `%s` is not a commit in this checkout's history%s"
                         % (short(commit), _shallow(repo))))
    elif not _is_ancestor(repo, full, "HEAD"):
        problems.append(("commit", "commit `%s` is not HEAD nor an ancestor of HEAD" % short(commit)))
    return problems


def check_record(meta_paths, force=False, dirty_ok_reason="", repo=REPO_ROOT, err=sys.stderr):
    """(ok, note): ok False means refuse; note is the text to keep as recorded_note ('' when none)."""
    reason = (dirty_ok_reason or "").strip()
    blocking, accepted_dirty = [], []
    for path in meta_paths:
        with open(path) as f:
            meta = json.load(f)
        name = os.path.basename(path)
        for kind, text in record_problems(meta, repo):
            if kind == "dirty" and reason:
                accepted_dirty.append(name)
            else:
                blocking.append("%s: %s" % (name, text))
    head = _git(repo, "rev-parse", "--short", "HEAD") or "unknown"
    stamp = "make record-gpu, %s, HEAD %s" % (
        datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"), head)
    notes = []
    if accepted_dirty:
        notes.append("worktree_dirty accepted (DIRTY_OK_REASON): %s" % reason)
        print("record-gpu: worktree_dirty accepted for %s: %s" % (", ".join(accepted_dirty), reason), file=err)
    if blocking and not force:
        for b in blocking:
            print("record-gpu: REFUSED: %s" % b, file=err)
        print("record-gpu: record from a committed HEAD (clean tree, or DIRTY_OK_REASON=\"...\" when the dirty "
              "flag is known to be harmless, e.g. git-ignored or untracked files of a copied tree); FORCE=1 records "
              "anyway, with a note", file=err)
        return False, ""
    if blocking:
        bar = "!" * 78
        print(bar, file=err)
        print("record-gpu: WARNING: FORCE=1: recording results whose provenance does not check out:", file=err)
        for b in blocking:
            print("record-gpu: WARNING:   %s" % b, file=err)
        print("record-gpu: WARNING: a recorded_note saying so is written into each recorded meta.json", file=err)
        print(bar, file=err)
        notes.append("FORCE=1 despite: %s" % "; ".join(blocking))
    return True, ("%s: %s" % (stamp, " | ".join(notes))) if notes else ""


def add_note(path, note):
    """Adds "recorded_note": note to a meta.json, keeping the rest of the file byte for byte
    (an existing recorded_note is kept, the new one appended to it)."""
    with open(path) as f:
        text = f.read()
    data = json.loads(text)
    if "recorded_note" in data:
        data["recorded_note"] = "%s | %s" % (data["recorded_note"], note)
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        body = text.rstrip()
        if not body.endswith("}"):
            raise ValueError("%s: not a JSON object" % path)
        body = body[:-1].rstrip()
        sep = "" if body.endswith("{") else ","
        text = '%s%s\n  "recorded_note": %s\n}\n' % (body, sep, json.dumps(note, ensure_ascii=False))
    json.loads(text)  # still valid
    with open(path, "w") as f:
        f.write(text)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) >= 2 and argv[0] == "check":
        ok, note = check_record(argv[1:], force=os.environ.get("FORCE", "") not in ("", "0"),
                                dirty_ok_reason=os.environ.get("DIRTY_OK_REASON", ""))
        if note:
            print(note)
        return 0 if ok else 1
    if len(argv) >= 3 and argv[0] == "note":
        for path in argv[2:]:
            add_note(path, argv[1])
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
