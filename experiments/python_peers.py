"""onepass from Python against what Python users call today, on one GPU, in one process
(the Python package's benchmark): writes DIR/python_peers.csv and DIR/python_peers.meta.json.

    python experiments/python_peers.py --out-dir DIR        (or python -m experiments.python_peers)

Cases (items; 2^28 by default, --log2-items for smaller runs):
  shuffle          int64, n = 2^28: onepass.shuffle (out=) | torch_randperm_gather
                   (torch.randperm + index_select) | cupy_permutation (cupy.random.permutation(x))
                   | jax_permutation (jax.random.permutation(key, x))
  batched_shuffle  int64, B rows of n, B * n = 2^28, n = 2^8, 2^12, 2^16, 2^20, 2^24:
                   onepass.segmented_shuffle (out=) | torch_argsort_rand_gather
                   (torch.argsort(torch.rand(B, n), dim=1) + gather) |
                   jax_permutation_independent (jax.random.permutation(key, x, axis=1, independent=True))
  sort             uint32 keys only, n = 2^28: onepass.sort | torch_sort | cupy_sort
  normal_f64/_f32  n = 2^28: onepass.normal (torch output; float32: its default, the float-native
                   generator of issue 30) | torch_randn (out=) | cupy_standard_normal

Timing: CUDA events recorded on the framework's current stream around each call (torch
events for onepass and torch, CuPy events for CuPy); JAX calls are jitted and timed on the
host around block_until_ready(). Inputs and out= arrays are made before the timed region;
--warmup calls, then the median (and minimum) of --repeats timed calls. A framework that is
missing, or a peer that fails (e.g. out of memory), is skipped with a note on stderr and in
meta.json. Memory: at most a few 2 GiB arrays live at once; caches are emptied between cases;
JAX does not preallocate (XLA_PYTHON_CLIENT_PREALLOCATE=false, set before importing it).
"""

import argparse
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np  # noqa: E402

COLUMNS = ["case", "algorithm", "framework", "dtype", "n", "num_segments", "items", "items_per_second",
           "seconds_median", "seconds_min", "repeats", "note"]


def try_import(name):
    try:
        return __import__(name)
    except Exception as e:  # noqa: BLE001 - missing or broken: skipped
        print("python_peers: %s not importable (%s): its rows are skipped" % (name, e), file=sys.stderr)
        return None


class Bench:
    def __init__(self, args):
        self.args = args
        self.rows = []
        self.skipped = []
        self.torch = try_import("torch")
        if self.torch is not None and not self.torch.cuda.is_available():
            self.torch = None
        self.cupy = try_import("cupy")
        self.jax = None
        jax = try_import("jax")
        if jax is not None:
            jax.config.update("jax_enable_x64", True)
            import jax.numpy  # noqa: F401
            try:
                jax.devices("gpu")
                self.jax = jax
            except RuntimeError as e:
                print("python_peers: jax has no GPU (%s)" % e, file=sys.stderr)
        import onepass
        self.onepass = onepass
        if not onepass._gpu.available():
            raise SystemExit("python_peers: onepass was built without its CUDA module")

    # ---- timing -------------------------------------------------------------------------
    def time_torch(self, fn):
        torch = self.torch
        for _ in range(self.args.warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(self.args.repeats):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1e3)
        return times

    def time_cupy(self, fn):
        cupy = self.cupy
        for _ in range(self.args.warmup):
            fn()
        cupy.cuda.get_current_stream().synchronize()
        times = []
        for _ in range(self.args.repeats):
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
        return times

    def time_jax(self, fn):
        for _ in range(self.args.warmup):
            fn().block_until_ready()
        times = []
        for _ in range(self.args.repeats):
            start = time.perf_counter()
            fn().block_until_ready()
            times.append(time.perf_counter() - start)
        return times

    def record(self, case, algorithm, framework, dtype, n, segments, timer, fn, note=""):
        try:
            times = timer(fn)
        except Exception as e:  # noqa: BLE001 - e.g. out of memory: recorded as skipped
            message = "%s %s n=%d B=%d: %s: %s" % (case, algorithm, n, segments, type(e).__name__, str(e)[:200])
            print("python_peers: skipped " + message, file=sys.stderr)
            self.skipped.append(message)
            self.free()
            return
        items = n * segments
        median = statistics.median(times)
        self.rows.append({"case": case, "algorithm": algorithm, "framework": framework, "dtype": dtype, "n": n,
                          "num_segments": segments, "items": items, "items_per_second": "%.6g" % (items / median),
                          "seconds_median": "%.6g" % median, "seconds_min": "%.6g" % min(times),
                          "repeats": len(times), "note": note})
        print("%-16s %-28s n=2^%-5.4g B=%-8d %8.3f ms  %7.3f G items/s" % (
            case, algorithm, np.log2(n) if n else 0, segments, median * 1e3, items / median / 1e9), flush=True)

    def free(self):
        import gc
        gc.collect()
        if self.torch is not None:
            self.torch.cuda.synchronize()
            self.torch.cuda.empty_cache()
        if self.cupy is not None:
            self.cupy.cuda.Device().synchronize()
            self.cupy.get_default_memory_pool().free_all_blocks()
        if self.jax is not None:
            self.jax.clear_caches()

    # ---- cases --------------------------------------------------------------------------
    def shuffle(self):
        op, torch, cupy, jax = self.onepass, self.torch, self.cupy, self.jax
        n = 1 << self.args.log2_items
        if torch is not None:
            x = torch.arange(n, dtype=torch.int64, device="cuda")
            out = torch.empty_like(x)
            self.record("shuffle", "onepass", "torch", "int64", n, 1, self.time_torch,
                        lambda: op.shuffle(x, 7, out=out))
            if int(out.sum()) != int(x.sum()) or bool((out == x).all()):
                raise SystemExit("python_peers: onepass.shuffle's output is not a shuffle of its input")
            self.record("shuffle", "torch_randperm_gather", "torch", "int64", n, 1, self.time_torch,
                        lambda: torch.index_select(x, 0, torch.randperm(n, device="cuda"), out=out))
            del x, out
            self.free()
        if cupy is not None:
            x = cupy.arange(n, dtype=cupy.int64)
            if torch is None:
                out = cupy.empty_like(x)
                self.record("shuffle", "onepass", "cupy", "int64", n, 1, self.time_cupy,
                            lambda: op.shuffle(x, 7, out=out))
                del out
            self.record("shuffle", "cupy_permutation", "cupy", "int64", n, 1, self.time_cupy,
                        lambda: cupy.random.permutation(x))
            del x
            self.free()
        if jax is not None:
            import jax.numpy as jnp
            x = jnp.arange(n, dtype=jnp.int64)
            key = jax.random.key(7)
            f = jax.jit(lambda k, v: jax.random.permutation(k, v))
            self.record("shuffle", "jax_permutation", "jax", "int64", n, 1, self.time_jax, lambda: f(key, x))
            del x
            self.free()

    def batched(self):
        op, torch, jax = self.onepass, self.torch, self.jax
        total = 1 << self.args.log2_items
        for log2_n in (8, 12, 16, 20, 24):
            n = 1 << log2_n
            if n > total:
                continue
            rows = total // n
            if torch is not None:
                x = torch.arange(total, dtype=torch.int64, device="cuda").view(rows, n)
                out = torch.empty_like(x)
                self.record("batched_shuffle", "onepass", "torch", "int64", n, rows, self.time_torch,
                            lambda: op.segmented_shuffle(x, 7, out=out))
                self.record("batched_shuffle", "torch_argsort_rand_gather", "torch", "int64", n, rows,
                            self.time_torch,
                            lambda: torch.gather(x, 1, torch.argsort(torch.rand(rows, n, device="cuda"), dim=1),
                                                 out=out))
                del x, out
                self.free()
            elif self.cupy is not None:
                cupy = self.cupy
                x = cupy.arange(total, dtype=cupy.int64).reshape(rows, n)
                out = cupy.empty_like(x)
                self.record("batched_shuffle", "onepass", "cupy", "int64", n, rows, self.time_cupy,
                            lambda: op.segmented_shuffle(x, 7, out=out))
                del x, out
                self.free()
            if jax is not None:
                import jax.numpy as jnp
                x = jnp.arange(total, dtype=jnp.int64).reshape(rows, n)
                key = jax.random.key(7)
                f = jax.jit(lambda k, v: jax.random.permutation(k, v, axis=1, independent=True))
                self.record("batched_shuffle", "jax_permutation_independent", "jax", "int64", n, rows, self.time_jax,
                            lambda: f(key, x))
                del x
                self.free()

    def sort(self):
        op, torch, cupy = self.onepass, self.torch, self.cupy
        n = 1 << self.args.log2_items
        keys_host = np.random.default_rng(1).integers(0, 2 ** 32, size=n, dtype=np.uint32)
        if torch is not None:
            keys = torch.from_numpy(keys_host).cuda()
            self.record("sort", "onepass", "torch", "uint32", n, 1, self.time_torch, lambda: op.sort(keys))
            self.sort_algorithm = op._gpu.last_sort_algorithm
            s = op.sort(keys).to(torch.int64)  # torch may not compare uint32
            assert bool((s[1:] >= s[:-1]).all()), "onepass.sort output not sorted"
            del s
            note = ""
            try:
                torch.sort(keys[:1024])
                tkeys = keys
            except (RuntimeError, NotImplementedError):
                # No uint32 sort in this torch: its fastest same-width configuration is the keys
                # shifted by -2^31 as int32 (the same order, 32-bit keys), made outside the timing.
                tkeys = (keys.to(torch.int64) - 2 ** 31).to(torch.int32)
                note = "torch.sort has no uint32: keys - 2^31 as int32 (same order and width)"
            self.record("sort", "torch_sort", "torch", "uint32", n, 1, self.time_torch, lambda: torch.sort(tkeys),
                        note)
            del keys, tkeys
            self.free()
        if cupy is not None:
            keys = cupy.asarray(keys_host)
            if torch is None:
                self.record("sort", "onepass", "cupy", "uint32", n, 1, self.time_cupy, lambda: op.sort(keys))
                self.sort_algorithm = op._gpu.last_sort_algorithm
            self.record("sort", "cupy_sort", "cupy", "uint32", n, 1, self.time_cupy, lambda: cupy.sort(keys))
            del keys
            self.free()

    def normal(self):
        op, torch, cupy = self.onepass, self.torch, self.cupy
        n = 1 << self.args.log2_items
        for case, name in (("normal_f64", "float64"), ("normal_f32", "float32")):
            if torch is not None:
                dt = getattr(torch, name)
                self.record(case, "onepass", "torch", name, n, 1, self.time_torch,
                            lambda: op.normal(n, 7, dtype=name, device="cuda", like="torch"),
                            "output from torch's caching allocator inside the timed call")
                out = torch.empty(n, dtype=dt, device="cuda")
                self.record(case, "torch_randn", "torch", name, n, 1, self.time_torch,
                            lambda: torch.randn(n, dtype=dt, device="cuda", out=out))
                del out
                self.free()
            if cupy is not None:
                if torch is None:
                    self.record(case, "onepass", "cupy", name, n, 1, self.time_cupy,
                                lambda: op.normal(n, 7, dtype=name, device="cuda", like="cupy"))
                self.record(case, "cupy_standard_normal", "cupy", name, n, 1, self.time_cupy,
                            lambda: cupy.random.standard_normal(n, dtype=name))
                self.free()


def git_commit():
    if os.environ.get("ONEPASS_COMMIT"):
        return os.environ["ONEPASS_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    except Exception:  # noqa: BLE001 - a copy of the tree without git
        return "unknown"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--log2-items", type=int, default=28, help="items per case (default 2^28)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--cases", default="shuffle,batched_shuffle,sort,normal",
                        help="comma-separated subset of shuffle, batched_shuffle, sort, normal")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.warmup < 0 or not 8 <= args.log2_items <= 30:
        parser.error("--repeats >= 1, --warmup >= 0, --log2-items in [8, 30]")
    os.makedirs(args.out_dir, exist_ok=True)
    bench = Bench(args)
    bench.sort_algorithm = None
    started = time.time()
    cases = {"shuffle": bench.shuffle, "batched_shuffle": bench.batched, "sort": bench.sort, "normal": bench.normal}
    for name in args.cases.split(","):
        if name not in cases:
            parser.error("--cases: unknown case %r" % name)
        cases[name]()
    with open(os.path.join(args.out_dir, "python_peers.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(bench.rows)
    gpu = "unknown"
    if bench.torch is not None:
        gpu = bench.torch.cuda.get_device_name(0)
    elif bench.cupy is not None:
        gpu = bench.cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    versions = {"python": sys.version.split()[0], "numpy": np.__version__, "onepass": bench.onepass.__version__}
    for name, module in (("torch", bench.torch), ("cupy", bench.cupy), ("jax", bench.jax)):
        versions[name] = getattr(module, "__version__", None) if module is not None else None
    meta = {"program": "experiments/python_peers.py", "commit": git_commit(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "gpu": gpu,
            "versions": versions, "log2_items": args.log2_items, "repeats": args.repeats, "warmup": args.warmup,
            "timing": "CUDA events on the framework's current stream (JAX: host clock around block_until_ready)",
            "onepass_sort_choice": bench.sort_algorithm, "skipped": bench.skipped,
            "wall_seconds": round(time.time() - started, 1)}
    with open(os.path.join(args.out_dir, "python_peers.meta.json"), "w") as fh:
        json.dump(meta, fh, indent=2)
    print("python_peers: %d rows in %s (%.0f s)" % (len(bench.rows), os.path.join(args.out_dir, "python_peers.csv"),
                                                   time.time() - started))


if __name__ == "__main__":
    main()
