"""The experiment manifest, experiments/manifest.toml: every experiment listed once (its
program, CSVs, figures, report section, the code whose changes make its recorded results
stale, CPU or GPU, extra run arguments). Read here and nowhere else; the Makefile,
figures/ and paper/ ask this module.

Standard library only (tomllib, Python 3.11+), so that the Makefile can run it with any
python3, matplotlib or not:

    python3 -m figures.manifest names [--device cpu|gpu|multi_gpu] [--family F] [--built|--python]
                                      [--in-figures]
        the experiments' names, one line each, in manifest order
    python3 -m figures.manifest figures [same filters]   their figures, in order
    python3 -m figures.manifest experiment-of FIGURE     the experiment that draws FIGURE (nothing: none)
    python3 -m figures.manifest replicate-runs [same filters]
        one line per experiment re-run in each seed replicate, TARGET,ARG,ARG... (its
        seed_replicate arguments; `make seed-replicates` adds --scale, --seed and --out-dir)
    python3 -m figures.manifest runs [--extra] [same filters]
        one line per run, TARGET,ARG,ARG... (commas: one make word); --extra: the runs after each
        experiment's first
    python3 -m figures.manifest check                    load and validate; print a one-line summary

Errors in the manifest (unknown key, wrong type, unknown device/family/code group, duplicate
experiment or figure; with check_files, a missing program) raise ManifestError naming the entry and
the key.
"""

import argparse
import functools
import os
import sys
import tomllib

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST_PATH = os.path.join(REPO_ROOT, "experiments", "manifest.toml")

DEVICES = ("cpu", "gpu", "multi_gpu")
BUILT_SUFFIXES = (".cpp", ".cu")  # a C++ program: CMake target named like the file
# key: (type, default); None default = required.
_FIELDS = {
    "name": (str, None), "program": (str, None), "device": (str, None), "family": (str, None),
    "figures": (list, ()), "csv": (list, None), "runs": (list, ([],)), "in_figures": (bool, True),
    "claims": (bool, False), "spread": (str, ""), "second_run": (bool, False), "stale_when": (list, ()),
    "seed_replicate": (list, None),
}


class ManifestError(ValueError):
    """experiments/manifest.toml is malformed (the message names the entry and the key)."""


class Experiment:
    """One [[experiment]] entry. Attributes: name, program (path from the repository root),
    target (the CMake target for a .cpp/.cu program, else None), device ('cpu', 'gpu',
    'multi_gpu'), family (its report section), figures (tuple), csv (tuple of CSV base names),
    runs (tuple of tuples of extra arguments, one per run), in_figures, claims, spread
    (words for paper/variability.py, '' when not tabulated), second_run, stale_when (code
    group names), seed_replicate (None, or the extra arguments of its run in each seed
    replicate of `make seed-replicates`)."""

    def __init__(self, fields):
        for key, value in fields.items():
            setattr(self, key, value)
        base, ext = os.path.splitext(os.path.basename(self.program))
        self.target = base if ext in BUILT_SUFFIXES else None

    @property
    def built(self):
        """True for a C++ program built by CMake (experiments/<target>.cpp or .cu)."""
        return self.target is not None

    def __repr__(self):
        return "Experiment(%r, %s, %s)" % (self.name, self.device, self.program)


class Manifest:
    """The parsed manifest: experiments (list of Experiment, file order), scales, sections
    (list of (family, module name), report order) and code ({group: [pathspec, ...]},
    "@group" references resolved)."""

    def __init__(self, data, path=MANIFEST_PATH, check_files=False):
        where = os.path.relpath(path, REPO_ROOT)
        unknown = set(data) - {"scales", "report", "code", "experiment"}
        if unknown:
            raise ManifestError("%s: unknown top-level key(s) %s (allowed: scales, report, code, experiment)"
                                % (where, ", ".join(sorted(unknown))))
        self.scales = list(data.get("scales", []))
        self.sections = []
        for i, s in enumerate(data.get("report", {}).get("sections", [])):
            if set(s) != {"family", "module"}:
                raise ManifestError("%s: report.sections[%d] needs exactly the keys family and module" % (where, i))
            self.sections.append((s["family"], s["module"]))
        families = [f for f, _ in self.sections]
        raw_code = data.get("code", {})
        self.code = {g: self._resolve(raw_code, g, (), where) for g in raw_code}
        self.experiments, names, figures = [], set(), {}
        for i, entry in enumerate(data.get("experiment", [])):
            label = "%s: experiment %r" % (where, entry.get("name", "#%d" % (i + 1)))
            extra = set(entry) - set(_FIELDS)
            if extra:
                raise ManifestError("%s: unknown key(s) %s (allowed: %s)"
                                    % (label, ", ".join(sorted(extra)), ", ".join(_FIELDS)))
            fields = {}
            for key, (kind, default) in _FIELDS.items():
                if key not in entry:
                    if default is None and key not in ("csv", "seed_replicate"):
                        raise ManifestError("%s: missing key %s" % (label, key))
                    fields[key] = default
                    continue
                if not isinstance(entry[key], kind):
                    raise ManifestError("%s: %s must be a %s, got %r" % (label, key, kind.__name__, entry[key]))
                fields[key] = entry[key]
            if fields["csv"] is None:
                fields["csv"] = [fields["name"]]
            for key in ("figures", "csv", "stale_when"):
                if not all(isinstance(x, str) for x in fields[key]):
                    raise ManifestError("%s: %s must be a list of strings" % (label, key))
                fields[key] = tuple(fields[key])
            if not fields["runs"] or not all(isinstance(r, list) and all(isinstance(a, str) for a in r)
                                             for r in fields["runs"]):
                raise ManifestError("%s: runs must be a non-empty list of lists of strings" % label)
            fields["runs"] = tuple(tuple(r) for r in fields["runs"])
            if fields["seed_replicate"] is not None:
                if not all(isinstance(a, str) for a in fields["seed_replicate"]):
                    raise ManifestError("%s: seed_replicate must be a list of strings" % label)
                fields["seed_replicate"] = tuple(fields["seed_replicate"])
            if fields["device"] not in DEVICES:
                raise ManifestError("%s: device must be one of %s, got %r" % (label, ", ".join(DEVICES),
                                                                              fields["device"]))
            if fields["family"] not in families:
                raise ManifestError("%s: family %r is not one of report.sections (%s)"
                                    % (label, fields["family"], ", ".join(families)))
            for group in fields["stale_when"]:
                if group not in self.code:
                    raise ManifestError("%s: stale_when names %r, not a group of [code] (%s)"
                                        % (label, group, ", ".join(self.code)))
            if fields["name"] in names:
                raise ManifestError("%s: listed twice" % label)
            names.add(fields["name"])
            for fig in fields["figures"]:
                if fig in figures:
                    raise ManifestError("%s: figure %r is already drawn from %r" % (label, fig, figures[fig]))
                figures[fig] = fields["name"]
            if check_files and not os.path.isfile(os.path.join(REPO_ROOT, fields["program"])):
                raise ManifestError("%s: program %s does not exist" % (label, fields["program"]))
            self.experiments.append(Experiment(fields))

    @staticmethod
    def _resolve(raw, group, seen, where):
        if group in seen:
            raise ManifestError("%s: code group %r includes itself (%s)" % (where, group, " -> ".join(seen + (group,))))
        if group not in raw:
            raise ManifestError("%s: code group %r is not defined (in %s)" % (where, group, " -> ".join(seen)))
        out = []
        for item in raw[group]:
            if not isinstance(item, str):
                raise ManifestError("%s: code.%s holds %r, not a pathspec string" % (where, group, item))
            out += Manifest._resolve(raw, item[1:], seen + (group,), where) if item.startswith("@") else [item]
        return out

    def select(self, device=None, family=None, built=None, in_figures=None, claims=None, spread=None,
               second_run=None, seed_replicate=None):
        """The experiments matching every filter given (None: any), in manifest order.
        device: 'cpu', 'gpu' or 'multi_gpu'; built: True for C++ programs, False for Python ones;
        spread: True for those with a `spread` text; seed_replicate: True for those re-run in
        every seed replicate."""
        out = []
        for e in self.experiments:
            if device is not None and e.device != device:
                continue
            if family is not None and e.family != family:
                continue
            if built is not None and e.built != built:
                continue
            if in_figures is not None and e.in_figures != in_figures:
                continue
            if claims is not None and e.claims != claims:
                continue
            if spread is not None and bool(e.spread) != spread:
                continue
            if second_run is not None and e.second_run != second_run:
                continue
            if seed_replicate is not None and (e.seed_replicate is not None) != seed_replicate:
                continue
            out.append(e)
        return out

    def names(self, **filters):
        """Names of select(**filters), in manifest order."""
        return [e.name for e in self.select(**filters)]

    def figures(self, **filters):
        """{figure: experiment name} of select(**filters), in manifest order."""
        return {fig: e.name for e in self.select(**filters) for fig in e.figures}

    def experiment(self, name):
        """The Experiment called name; KeyError naming the known ones when there is none."""
        for e in self.experiments:
            if e.name == name:
                return e
        raise KeyError("no experiment %r in experiments/manifest.toml (known: %s)"
                       % (name, ", ".join(e.name for e in self.experiments)))

    def code_paths(self, name):
        """The pathspecs of the code experiment `name` measures (its stale_when groups in order,
        then its program), or None when it names none (or is not in the manifest)."""
        try:
            e = self.experiment(name)
        except KeyError:
            return None
        if not e.stale_when:
            return None
        return [p for g in e.stale_when for p in self.code[g]] + [e.program]


def load(path=MANIFEST_PATH, check_files=False):
    """Parses the manifest at path (default experiments/manifest.toml); check_files: also require
    every program to exist (the `check` command and tests/python/test_manifest.py do). Raises
    ManifestError (malformed), OSError (unreadable) or tomllib.TOMLDecodeError (not TOML)."""
    with open(path, "rb") as f:
        return Manifest(tomllib.load(f), path, check_files)


@functools.lru_cache(maxsize=None)
def manifest():
    """The repository's manifest, parsed once per process."""
    return load()


def _filters(args):
    f = {"device": args.device, "family": args.family}
    if args.built:
        f["built"] = True
    if args.python:
        f["built"] = False
    if args.in_figures:
        f["in_figures"] = True
    return f


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m figures.manifest",
                                     description="Reads experiments/manifest.toml (see this module's docstring).")
    parser.add_argument("what", choices=("names", "figures", "experiment-of", "runs", "replicate-runs", "check"))
    parser.add_argument("figure", nargs="?", help="experiment-of: the figure")
    parser.add_argument("--device", choices=DEVICES)
    parser.add_argument("--family")
    parser.add_argument("--built", action="store_true", help="C++ programs only (CMake targets)")
    parser.add_argument("--python", action="store_true", help="Python programs only")
    parser.add_argument("--in-figures", action="store_true", help="only those `make figures` runs")
    parser.add_argument("--extra", action="store_true", help="runs: only the runs after each experiment's first")
    parser.add_argument("--manifest", default=MANIFEST_PATH)
    args = parser.parse_args(argv)
    try:
        m = load(args.manifest, check_files=args.what == "check")
    except (ManifestError, OSError, tomllib.TOMLDecodeError) as e:
        print("manifest: %s" % e, file=sys.stderr)
        return 2
    if args.what == "names":
        print("\n".join(m.names(**_filters(args))))
    elif args.what == "figures":
        print("\n".join(m.figures(**_filters(args))))
    elif args.what == "runs":
        for e in m.select(**_filters(args)):
            for extra in e.runs[1:] if args.extra else e.runs:
                print(",".join((e.target or e.program,) + extra))
    elif args.what == "replicate-runs":
        for e in m.select(seed_replicate=True, **_filters(args)):
            print(",".join((e.target or e.program,) + e.seed_replicate))
    elif args.what == "experiment-of":
        if not args.figure:
            parser.error("experiment-of needs a figure name")
        name = m.figures().get(args.figure)
        if name is not None:
            print(name)
    else:
        print("manifest: %d experiments (%d CPU, %d GPU, %d multi-GPU), %d figures, %d report sections"
              % (len(m.experiments), len(m.select(device="cpu")), len(m.select(device="gpu")),
                 len(m.select(device="multi_gpu")), len(m.figures()), len(m.sections)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
