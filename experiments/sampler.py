"""The shuffle sampler for distributed data loaders (issue 28 §3): onepass.data against
torch.utils.data.DistributedSampler and torch.randperm, per index and per rank, at N up to
3·10^9. Writes DIR/sampler.csv and DIR/sampler.meta.json.

    python experiments/sampler.py --out-dir DIR [--sizes 1e6,1e8,1e9,3e9] [--world-sizes 1,8]
                                  [--scale smoke|default]

Needs onepass importable (PYTHONPATH=build/python-ext/python after `make test-python-pkg`, or
the installed package) with onepass.data; torch is optional (its rows are then `not_run_missing`).

Cases, each in a fresh child process (so that peak_rss_bytes is the case's own: the child's
VmHWM, its resident high-water mark; Linux would carry the parent's RSS into ru_maxrss), at every N of --sizes and world size P of --world-sizes, rank 0:
  onepass_cpu                 onepass.data.epoch_indices on the CPU (C++, oneTBB over a batch):
                              batches of 2^20, 2^22 and 2^24 of rank 0's positions
                              (start = rank, step = P); the fastest batch size is kept (note)
  onepass_sampler_iter        iterating onepass.data.DistributedShuffleSampler as Python ints
                              (what a DataLoader sees), timed over the first --prefix indices of
                              the rank (all of them where the rank has fewer)
  onepass_gpu                 epoch_indices(device="cuda") of a batch of --gpu-batch (2^28)
                              positions, CUDA events (only where torch sees a GPU)
  torch_distributed_sampler   torch.utils.data.DistributedSampler over a dataset of length N:
                              set_epoch + iter() (randperm(N).tolist(), padding, the rank's
                              slice) then consuming the rank's list, timed over its first
                              --prefix indices and extrapolated to the rank's whole list
  torch_randperm_cpu          torch.randperm(N) (dtype int64 and int32 where N < 2^31: the
                              faster is kept, note); per rank: N / P indices per randperm(N)
  torch_randperm_cuda         the same on the GPU, CUDA events (only where torch sees a GPU)
  --worst-sizes (default 2^30+1, the cycle walk's worst case: 2 evaluations per index on
  average) run ours only.

Columns: algorithm, num_samples, world_size, indices_per_second (rank 0's indices per second),
peak_rss_bytes, first_index_seconds (from constructing the sampler / set_epoch + iter() to the
first index; for epoch_indices the call of one index; for randperm the whole call: no index
exists before it returns), bytes_beyond_batch (ours: the traced memory that does not grow with
the batch, see below), status (ok | not_run_memory | not_run_missing | failed), note.

Memory beyond the batch buffer (target < 4 KB per rank): tracemalloc (which sees Python's
allocations and NumPy's array data) during the iteration of the sampler, or a call of
epoch_indices, at two batch sizes b1 < b2; the traced peak is c + k·b, and c = the intercept is
what the rank holds beyond its batch buffer. It is measured at every N, so that its growth with
N would show. C++ allocations are not traced: peak_rss_bytes against N shows those.

Peers that would ask for more memory than the machine has available (randperm: N·itemsize
bytes; DistributedSampler: 8N for randperm, 8N for the list and ~32N for its int objects, plus
8N/P for the rank's slice) are not run: status not_run_memory with the bytes they would ask for.
A child that fails (MemoryError, CUDA out of memory, killed) gives status failed with the message.

Quiet machine: each row's note gives the share of the machine's CPU time that other processes
used while its case ran (/proc/stat's busy time less the child's own), and meta.json the load
averages before and after; run it with nothing else on the machine (e.g. holding the build lock).
"""

import argparse
import csv
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

try:  # imported as experiments.<name> (tests, python -m)
    from experiments.host_info import loadavg, proc_kib, run_provenance
except ImportError:  # run as a script: experiments/ is sys.path[0]
    from host_info import loadavg, proc_kib, run_provenance

COLUMNS = ["algorithm", "num_samples", "world_size", "indices_per_second", "peak_rss_bytes",
           "first_index_seconds", "bytes_beyond_batch", "status", "note"]
OURS = ["onepass_cpu", "onepass_sampler_iter", "onepass_gpu"]
PEERS = ["torch_distributed_sampler", "torch_randperm_cpu", "torch_randperm_cuda"]
ALGORITHMS = OURS + PEERS
GPU_ALGORITHMS = {"onepass_gpu", "torch_randperm_cuda"}
SEED = 0
EPOCH = 0
SAMPLER_BATCH = 65536            # DistributedShuffleSampler's default batch_size
CPU_BATCHES = [2 ** 20, 2 ** 22, 2 ** 24]
MEMORY_FRACTION = 0.9            # a peer runs only where its bytes fit in this share of MemAvailable
SCALES = {
    # sizes, worst sizes, prefix, repeats, gpu batch
    "smoke": {"sizes": "1e4,1e5", "worst_sizes": "2^14+1", "prefix": 2 ** 14, "repeats": 1,
              "gpu_batch": 2 ** 20, "cpu_batches": [2 ** 10, 2 ** 12]},
    "default": {"sizes": "1e6,1e8,1e9,3e9", "worst_sizes": "2^30+1", "prefix": 2 ** 22, "repeats": 5,
                "gpu_batch": 2 ** 28, "cpu_batches": CPU_BATCHES},
}
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# The code this experiment measures (git pathspecs): whether it was clean when measured.
MEASURED_CODE = ["python/onepass/", "python/src/onepass_ext.cpp", "python/src/onepass_cuda.cu",
                 "lib/include/onepass/shuffle/walking.hpp", "lib/include/onepass/shuffle/cpu_walking.hpp",
                 "lib/include/onepass/shuffle/gpu_walking.cuh", "lib/include/onepass/bijection/",
                 "experiments/sampler.py"]


# ----------------------------------------------------------------------------- sizes and memory

def parse_size(text):
    """'1e9', '3e9', '2^30+1', '1000000' -> int (exact for powers of two plus or minus a constant)."""
    t = text.strip().replace(" ", "").replace("**", "^")
    m = re.fullmatch(r"2\^(\d+)([+-]\d+)?", t)
    if m:
        return 2 ** int(m.group(1)) + int(m.group(2) or 0)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)[eE](\d+)", t)
    if m:
        mant, exp = m.group(1), int(m.group(2))
        whole, _, frac = mant.partition(".")
        value = int(whole + frac) * 10 ** (exp - len(frac))
        if value <= 0:
            raise ValueError(text)
        return value
    value = int(t)
    if value <= 0:
        raise ValueError(text)
    return value


def parse_sizes(text):
    return [parse_size(s) for s in text.split(",") if s.strip()]


def size_text(n):
    """10^6, 3·10^9, 2^30+1, else the digits."""
    for k in range(1, 64):
        if n == 2 ** k:
            return "2^%d" % k
        if n == 2 ** k + 1:
            return "2^%d+1" % k
    s = str(n)
    stripped = s.rstrip("0")
    zeros = len(s) - len(stripped)
    if zeros >= 3 and len(stripped) == 1:
        return ("10^%d" % zeros) if stripped == "1" else "%s·10^%d" % (stripped, zeros)
    return s


def rank_positions(n, world_size, drop_last=False):
    """Positions a rank takes per epoch (DistributedSampler's num_samples)."""
    return n // world_size if drop_last else -(-n // world_size)


def peer_bytes(algorithm, n, world_size, itemsize=8):
    """The host (or, for *_cuda, device) bytes a peer asks for at N = n: randperm holds N items;
    DistributedSampler holds randperm's tensor, its tolist() (8-byte pointers and an int object of
    32 bytes per index, CPython's pymalloc block) and the rank's slice of pointers."""
    if algorithm in ("torch_randperm_cpu", "torch_randperm_cuda"):
        return n * itemsize
    if algorithm == "torch_distributed_sampler":
        return 8 * n + 8 * n + 32 * n + 8 * rank_positions(n, world_size)
    return 0


def meminfo():
    """{MemTotal, MemAvailable} in bytes from /proc/meminfo (None where unreadable)."""
    return {key: proc_kib("/proc/meminfo", key) for key in ("MemTotal", "MemAvailable")}


def gib(x):
    return "%.1f GiB" % (x / 2 ** 30)


def rss_now():
    """The process's resident set now (VmRSS), bytes; None off Linux."""
    return proc_kib("/proc/self/status", "VmRSS")


def peak_rss():
    """This process's peak resident set in bytes: VmHWM, the high-water mark of its own address
    space. (ru_maxrss is not used where VmHWM exists: Linux carries the parent's RSS at fork into
    the child's ru_maxrss across exec, so a child would report at least its parent's size.)"""
    hwm = proc_kib("/proc/self/status", "VmHWM")
    if hwm is not None:
        return hwm
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux, bytes on macOS


# ------------------------------------------------------------------------------- the child cases

class Child:
    """One case in this (child) process. run() returns the row's fields (without the peak)."""

    def __init__(self, spec):
        self.spec = spec
        self.n = spec["n"]
        self.p = spec["world_size"]
        self.repeats = spec["repeats"]
        self.prefix = spec["prefix"]
        self.rss_start = None

    # ---- helpers
    def torch(self):
        import torch
        return torch

    def cuda_time(self, fn, warmup=1):
        torch = self.torch()
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(self.repeats):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1e3)
        return times

    @staticmethod
    def traced_intercept(measure, b1, b2):
        """(c, k): the traced peak of measure(b) is c + k b; measured at b1 and b2 (b1 < b2)."""
        import tracemalloc
        peaks = []
        for b in (b1, b2):
            tracemalloc.start()
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            measure(b)
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
            tracemalloc.stop()
        slope = (peaks[1] - peaks[0]) / (b2 - b1)
        return peaks[0] - slope * b1, slope, peaks

    # ---- ours
    def onepass_cpu(self):
        import numpy as np
        from onepass import data
        n, p = self.n, self.p
        per_rank = rank_positions(n, p)
        # First index of an epoch: one index of a new epoch (the first call of the process in the note).
        t0 = time.perf_counter()
        first = data.epoch_indices(n, SEED, EPOCH, 0, 1)
        cold = time.perf_counter() - t0
        assert len(first) == 1
        firsts = []
        for e in range(1, 6):
            t0 = time.perf_counter()
            data.epoch_indices(n, SEED, EPOCH + e, 0, 1)
            firsts.append(time.perf_counter() - t0)
        if n <= 2 ** 22:  # a cheap check that the global order is a permutation
            whole = data.epoch_indices(n, SEED, EPOCH, 0, n)
            if not np.array_equal(np.sort(whole), np.arange(n, dtype=whole.dtype)):
                raise SystemExit("onepass_cpu: epoch_indices(N, 0, N) is not a permutation of [0, N)")
            del whole
        best, rates = None, {}
        for b in self.spec["cpu_batches"]:
            b = min(b, per_rank)
            if b in rates:
                continue
            times = []
            for r in range(self.repeats + 1):
                start = (r * b * p) % n
                t0 = time.perf_counter()
                out = data.epoch_indices(n, SEED, EPOCH, start, start + b * p, step=p)
                dt = time.perf_counter() - t0
                assert len(out) == b
                del out
                if r:  # the first call is the warm-up
                    times.append(dt)
            rates[b] = b / statistics.median(times)
            if best is None or rates[b] > rates[best]:
                best = b
        # Memory beyond the batch: traced peak of one call at two batch sizes.
        b1, b2 = min(2 ** 12, per_rank), min(2 ** 16, per_rank)
        if b2 > b1:
            c, slope, _ = self.traced_intercept(lambda b: data.epoch_indices(n, SEED, EPOCH, 0, b * p, step=p), b1, b2)
            beyond = max(0, round(c))
            mem = "; traced peak = %d B + %.2f B/index (batches %d, %d)" % (beyond, slope, b1, b2)
        else:
            beyond, mem = None, "; rank too small for the memory fit"
        note = ("batch %d of rank 0's positions (start = 0, step = P), median of %d calls after 1 warm-up; "
                "M indices/s by batch: %s; first index: median of 5 new epochs (first call of the process %.3g ms)%s"
                % (best, self.repeats, ", ".join("2^%d: %.1f" % (b.bit_length() - 1, rates[b] / 1e6) if b & (b - 1) == 0
                                                  else "%d: %.1f" % (b, rates[b] / 1e6) for b in sorted(rates)),
                   cold * 1e3, mem))
        return {"indices_per_second": rates[best], "first_index_seconds": statistics.median(firsts),
                "bytes_beyond_batch": beyond, "note": note, "batch": best}

    def onepass_sampler_iter(self):
        import itertools
        from onepass import data
        n, p = self.n, self.p

        def new_sampler(epoch, batch_size=SAMPLER_BATCH):
            s = data.DistributedShuffleSampler(n, num_replicas=p, rank=0, shuffle=True, seed=SEED,
                                               batch_size=batch_size)
            s.set_epoch(epoch)
            return s

        # Cold: the process's first sampler; then new samplers (warm process) for new epochs.
        t0 = time.perf_counter()
        next(iter(new_sampler(EPOCH)))
        cold = time.perf_counter() - t0
        firsts = []
        for e in range(1, 6):
            t0 = time.perf_counter()
            s = new_sampler(EPOCH + e)
            next(iter(s))
            firsts.append(time.perf_counter() - t0)
        s = new_sampler(EPOCH)
        per_rank = len(s)
        count = min(per_rank, self.prefix)
        times = []
        for _ in range(max(1, min(self.repeats, 3))):
            s = new_sampler(EPOCH)
            t0 = time.perf_counter()
            for _ in itertools.islice(iter(s), count):
                pass
            times.append(time.perf_counter() - t0)
        rate = count / statistics.median(times)

        def iterate(batch_size):
            it = iter(new_sampler(EPOCH, batch_size))
            for _ in itertools.islice(it, min(per_rank, 3 * batch_size + 7)):
                pass
        b1, b2 = 2 ** 10, 2 ** 14
        if per_rank >= 3 * b2:
            c, slope, _ = self.traced_intercept(iterate, b1, b2)
            beyond = max(0, round(c))
            mem = "; traced peak while iterating 3 batches = %d B + %.2f B/batch index (batch_size %d, %d)" % (
                beyond, slope, b1, b2)
        else:
            beyond, mem = None, "; rank too small for the memory fit"
        note = ("batch_size %d; %s the rank's %d indices as Python ints (median of %d); first index: constructor "
                "+ set_epoch + iter + next, median of 5 new epochs (the process's first sampler %.3g ms)%s"
                % (SAMPLER_BATCH, "all of" if count == per_rank else "the first %d of" % count, per_rank, len(times),
                   cold * 1e3, mem))
        return {"indices_per_second": rate, "first_index_seconds": statistics.median(firsts),
                "bytes_beyond_batch": beyond, "note": note}

    def onepass_gpu(self):
        torch = self.torch()
        from onepass import data
        n, p = self.n, self.p
        b = self.spec["gpu_batch"]
        torch.cuda.reset_peak_memory_stats()
        data.epoch_indices(n, SEED, EPOCH, 0, 1, device="cuda")
        torch.cuda.synchronize()
        firsts = []
        for e in range(1, 6):
            t0 = time.perf_counter()
            x = data.epoch_indices(n, SEED, EPOCH + e, 0, 1, device="cuda")
            torch.cuda.synchronize()
            firsts.append(time.perf_counter() - t0)
            del x
        times = self.cuda_time(lambda: data.epoch_indices(n, SEED, EPOCH, 0, b * p, step=p, device="cuda"), warmup=2)
        x = data.epoch_indices(n, SEED, EPOCH, 0, min(b, 2 ** 20) * p, step=p, device="cuda")
        cpu = data.epoch_indices(n, SEED, EPOCH, 0, min(b, 2 ** 20) * p, step=p)
        if not (x.cpu().numpy() == cpu).all():
            raise SystemExit("onepass_gpu: the GPU's indices differ from the CPU's")
        note = ("a batch of %d positions (start = 0, step = P) into a new tensor per call, CUDA events, median of %d "
                "after 2 warm-up (min %.3g ms); first index: one index + synchronize, median of 5 new epochs; "
                "GPU peak allocated %s; %s"
                % (b, len(times), min(times) * 1e3, gib(torch.cuda.max_memory_allocated()),
                   torch.cuda.get_device_name(0)))
        return {"indices_per_second": b / statistics.median(times),
                "first_index_seconds": statistics.median(firsts), "note": note}

    # ---- peers
    def torch_distributed_sampler(self):
        import itertools
        torch = self.torch()
        from torch.utils.data import DistributedSampler
        n, p = self.n, self.p

        class Length:  # a dataset of length N (DistributedSampler reads len() only)
            def __len__(self):
                return n

        runs = 1 if n >= 10 ** 8 else max(1, min(self.repeats, 3))
        firsts, consume = [], []
        for r in range(runs):
            t0 = time.perf_counter()
            s = DistributedSampler(Length(), num_replicas=p, rank=0, shuffle=True, seed=SEED)
            s.set_epoch(EPOCH + r)
            it = iter(s)
            next(it)
            firsts.append(time.perf_counter() - t0)
            per_rank = len(s)
            count = min(per_rank, self.prefix) - 1
            t0 = time.perf_counter()
            for _ in itertools.islice(it, count):
                pass
            consume.append((time.perf_counter() - t0) / max(1, count))
            del it, s
        first = statistics.median(firsts)
        per_index = statistics.median(consume)
        epoch = first + per_index * (per_rank - 1)
        note = ("set_epoch + iter() + first index (randperm(N).tolist(), padding, slice), then the rank's list "
                "consumed: %s; epoch time %.3g s = first index %.3g s + %.3g ns per further index%s; torch %s, "
                "%d thread(s)"
                % ("all of it" if per_rank <= self.prefix else "the first %d indices, extrapolated to the rank's %d"
                   % (self.prefix, per_rank), epoch, first, per_index * 1e9,
                   "" if runs == 1 else " (median of %d epochs)" % runs, torch.__version__, torch.get_num_threads()))
        return {"indices_per_second": per_rank / epoch, "first_index_seconds": first, "note": note}

    def _randperm(self, device):
        torch = self.torch()
        n, p = self.n, self.p
        dtypes = [torch.int64] + ([torch.int32] if n < 2 ** 31 else [])
        results = {}
        for dt in dtypes:
            name = str(dt).replace("torch.", "")
            if device == "cuda":
                torch.cuda.reset_peak_memory_stats()
                times = self.cuda_time(lambda: torch.randperm(n, dtype=dt, device="cuda"),
                                       warmup=1 if n <= 10 ** 9 else 0)
                results[name] = (statistics.median(times), len(times),
                                 "GPU peak allocated %s" % gib(torch.cuda.max_memory_allocated()))
                torch.cuda.empty_cache()
            else:
                runs = self.repeats if n <= 10 ** 7 else 1
                times = []
                for r in range(runs + (1 if n <= 10 ** 7 else 0)):
                    t0 = time.perf_counter()
                    x = torch.randperm(n, dtype=dt)
                    dt_s = time.perf_counter() - t0
                    del x
                    if n > 10 ** 7 or r:
                        times.append(dt_s)
                results[name] = (statistics.median(times), len(times), "")
        best = min(results, key=lambda k: results[k][0])
        seconds, runs, extra = results[best]
        per_rank = rank_positions(n, p)
        note = ("randperm(N, dtype=%s) on the %s: %s; per rank N/P = %d indices per randperm(N) of %.3g s (every rank "
                "draws the whole permutation); median of %d%s; torch %s%s"
                % (best, "GPU" if device == "cuda" else "CPU",
                   ", ".join("%s %.3g s" % (k, v[0]) for k, v in results.items()) +
                   (" (the faster kept)" if len(results) > 1 else " (int32 cannot hold N >= 2^31)"),
                   per_rank, seconds, runs, "" if device == "cuda" or n > 10 ** 7 else " after 1 warm-up",
                   torch.__version__, "; " + extra if extra else ""))
        return {"indices_per_second": per_rank / seconds, "first_index_seconds": seconds, "note": note}

    def torch_randperm_cpu(self):
        return self._randperm("cpu")

    def torch_randperm_cuda(self):
        return self._randperm("cuda")

    def run(self):
        import numpy  # noqa: F401 - the imports of the case before its first measurement
        if self.spec["algorithm"] in OURS:
            from onepass import data  # noqa: F401
        if self.spec["algorithm"] in PEERS or self.spec["algorithm"] in GPU_ALGORITHMS:
            import torch  # noqa: F401
        self.rss_start = rss_now()
        out = getattr(self, self.spec["algorithm"])()
        out["rss_start"] = self.rss_start
        return out


def child_main(spec_text):
    spec = json.loads(spec_text)
    try:
        out = Child(spec).run()
        out["status"] = "ok"
    except MemoryError as e:
        out = {"status": "failed", "note": "MemoryError: %s" % str(e)[:300]}
    except Exception as e:  # noqa: BLE001 - e.g. CUDA out of memory: recorded as failed
        out = {"status": "failed", "note": "%s: %s" % (type(e).__name__, " ".join(str(e).split())[:300])}
    out["peak_rss_bytes"] = peak_rss()
    print("SAMPLER_RESULT " + json.dumps(out), flush=True)


# ------------------------------------------------------------------------------- the parent

PROBE = """
import json
try:
    import torch
except Exception as e:
    print(json.dumps({"torch": None, "why": "%s: %s" % (type(e).__name__, e)}))
else:
    gpu = None
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        gpu = [props.name, int(props.total_memory)]
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "gpu": gpu}))
"""


def probe_torch():
    """{torch: version or None, threads, gpu: [name, bytes] or None}, asked of a child process
    (the parent stays small: its size would otherwise show in its children's ru_maxrss)."""
    try:
        done = subprocess.run([sys.executable, "-c", PROBE], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=300)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001
        return {"torch": None, "why": str(e)}


def cpu_busy_seconds():
    """CPU seconds the whole machine has spent busy since boot (/proc/stat: all but idle and
    iowait), or None off Linux."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_child(spec, timeout):
    """The child's result dict (status, note, fields), with others_cpu_share: the share of the
    machine's CPU time that other processes used while the child ran (0 on a quiet machine)."""
    busy0, own0, t0 = cpu_busy_seconds(), children_cpu_seconds(), time.time()
    out = _run_child(spec, timeout)
    busy1, own1, wall = cpu_busy_seconds(), children_cpu_seconds(), time.time() - t0
    if busy0 is not None and busy1 is not None and wall > 0:
        others = max(0.0, (busy1 - busy0) - (own1 - own0))
        out["others_cpu_share"] = others / (wall * (os.cpu_count() or 1))
    return out


def _run_child(spec, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)]
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "failed", "note": "did not finish within %d s" % timeout}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("SAMPLER_RESULT "):
            return json.loads(line[len("SAMPLER_RESULT "):])
    why = "killed by signal %d" % -done.returncode if done.returncode < 0 else "exit status %d" % done.returncode
    if done.returncode == -9:
        why += " (the kernel's out-of-memory killer?)"
    tail = " ".join(done.stderr.strip().splitlines()[-3:])[-300:]
    return {"status": "failed", "note": "%s%s" % (why, ": " + tail if tail else "")}


def fmt(x, digits=6):
    return "" if x is None else ("%.*g" % (digits, x))


def provenance(args):
    mem = meminfo()
    out = {"experiment": "sampler", "program": "experiments/sampler.py"}
    out.update(run_provenance(MEASURED_CODE))
    out.update({"memory_total_bytes": mem["MemTotal"], "memory_available_bytes": mem["MemAvailable"],
                "scale": args.scale, "seed": SEED, "epoch": EPOCH})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", help="writes sampler.csv and sampler.meta.json there")
    parser.add_argument("--scale", choices=sorted(SCALES), default="default")
    parser.add_argument("--sizes", help="N, comma-separated: 1e6, 3e9, 2^30+1 (default: the scale's)")
    parser.add_argument("--worst-sizes", help="N measured for ours only (default: the scale's, 2^30+1)")
    parser.add_argument("--world-sizes", default="1,8")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--repeats", type=int, help="timed calls per case (default: the scale's)")
    parser.add_argument("--prefix", type=int, help="indices iterated per rank (default: the scale's, 2^22)")
    parser.add_argument("--gpu-batch", type=int, help="positions per GPU call (default: the scale's, 2^28)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per case")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_main(args.child)
        return 0
    if not args.out_dir:
        parser.error("--out-dir is required")
    scale = SCALES[args.scale]
    sizes = parse_sizes(args.sizes or scale["sizes"])
    worst = parse_sizes(args.worst_sizes if args.worst_sizes is not None else scale["worst_sizes"])
    worlds = [int(p) for p in args.world_sizes.split(",") if p.strip()]
    algorithms = [a for a in args.algorithms.split(",") if a]
    for a in algorithms:
        if a not in ALGORITHMS:
            parser.error("--algorithms: unknown %r (known: %s)" % (a, ", ".join(ALGORITHMS)))
    if any(p < 1 for p in worlds):
        parser.error("--world-sizes: positive integers")
    repeats = args.repeats or scale["repeats"]
    prefix = args.prefix or scale["prefix"]
    gpu_batch = args.gpu_batch or scale["gpu_batch"]
    os.makedirs(args.out_dir, exist_ok=True)
    meta = provenance(args)
    meta["loadavg_before"] = loadavg()
    started = time.time()

    try:
        import onepass
        from onepass import data  # noqa: F401
    except Exception as e:  # noqa: BLE001
        raise SystemExit("sampler: onepass.data is not importable (%s); PYTHONPATH=build/python-ext/python "
                         "after make test-python-pkg" % e)
    import numpy
    probe = probe_torch()
    has_torch = probe.get("torch") is not None
    gpu = probe.get("gpu") if has_torch else None
    versions = {"python": sys.version.split()[0], "onepass": onepass.__version__, "numpy": numpy.__version__,
                "torch": probe.get("torch")}
    meta["walking_isa"] = getattr(onepass._onepass, "walking_isa", None)  # the CPU batch's instruction set
    if has_torch:
        meta["torch_threads"] = probe.get("threads")
    else:
        print("sampler: torch not importable (%s): its rows are not_run_missing" % probe.get("why"), flush=True)
    meta.update({"versions": versions, "gpu": gpu[0] if gpu else None,
                 "gpu_memory_bytes": gpu[1] if gpu else None,
                 "sizes": [size_text(n) for n in sizes], "worst_sizes": [size_text(n) for n in worst],
                 "world_sizes": worlds, "repeats": repeats, "prefix": prefix, "gpu_batch": gpu_batch,
                 "cpu_batches": scale["cpu_batches"], "sampler_batch_size": SAMPLER_BATCH,
                 "rank": 0, "timing": "CPU: time.perf_counter around each call (median of --repeats after a warm-up); "
                 "GPU: CUDA events on torch's current stream",
                 "memory_rule": "a peer runs where its bytes fit in %.0f%% of MemAvailable (%s of %s)"
                 % (MEMORY_FRACTION * 100, gib(meta["memory_available_bytes"] or 0),
                    gib(meta["memory_total_bytes"] or 0))})

    cases = []
    for n in sorted(set(sizes) | set(worst)):
        for p in worlds:
            for a in algorithms:
                if n in worst and n not in sizes and a not in OURS:
                    continue
                cases.append((a, n, p))
    rows = []
    for a, n, p in cases:
        row = {"algorithm": a, "num_samples": n, "world_size": p}
        reason = None
        if a in GPU_ALGORITHMS and gpu is None:
            reason = ("not_run_missing", "no GPU that torch sees" if has_torch else "torch not installed")
        elif a in PEERS and not has_torch:
            reason = ("not_run_missing", "torch not installed")
        elif a in PEERS:
            need = peer_bytes(a, n, p)
            if a == "torch_randperm_cuda":
                have, what = gpu[1], "the GPU's %s" % gib(gpu[1])
            else:
                have = MEMORY_FRACTION * (meta["memory_available_bytes"] or 0)
                what = "%.0f%% of MemAvailable %s (MemTotal %s)" % (
                    MEMORY_FRACTION * 100, gib(meta["memory_available_bytes"] or 0), gib(meta["memory_total_bytes"] or 0))
            if need > have:
                reason = ("not_run_memory", "would ask for %d bytes (%s) > %s" % (need, gib(need), what))
        if reason:
            row.update(status=reason[0], note=reason[1])
            print("%-26s N=%-8s P=%d  %s: %s" % (a, size_text(n), p, reason[0], reason[1]), flush=True)
            rows.append(row)
            continue
        spec = {"algorithm": a, "n": n, "world_size": p, "repeats": repeats, "prefix": prefix,
                "gpu_batch": gpu_batch, "cpu_batches": scale["cpu_batches"]}
        t0 = time.time()
        out = run_child(spec, args.timeout)
        row.update({k: out.get(k) for k in ("indices_per_second", "first_index_seconds", "bytes_beyond_batch",
                                             "peak_rss_bytes", "status", "note")})
        if out.get("rss_start"):
            row["note"] = (row.get("note") or "") + "; RSS after imports %.0f MiB" % (out["rss_start"] / 2 ** 20)
        if out.get("others_cpu_share") is not None:
            row["note"] = (row.get("note") or "") + "; other processes used %.0f%% of the machine's CPU meanwhile" % (
                100 * out["others_cpu_share"])
        rows.append(row)
        print("%-26s N=%-8s P=%d  %s  %s M indices/s  first %s ms  peak RSS %.0f MiB  beyond batch %s  others %s%%  "
              "(%.0f s)%s" % (
                  a, size_text(n), p, out.get("status"),
                  fmt(out.get("indices_per_second") and out["indices_per_second"] / 1e6, 4),
                  fmt(out.get("first_index_seconds") and out["first_index_seconds"] * 1e3, 3),
                  (out.get("peak_rss_bytes") or 0) / 2 ** 20, out.get("bytes_beyond_batch"),
                  fmt(out.get("others_cpu_share") is not None and 100 * out["others_cpu_share"], 2), time.time() - t0,
            "" if out.get("status") == "ok" else "  " + (out.get("note") or "")), flush=True)

    with open(os.path.join(args.out_dir, "sampler.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for r in rows:
            writer.writerow({"algorithm": r["algorithm"], "num_samples": r["num_samples"],
                             "world_size": r["world_size"], "indices_per_second": fmt(r.get("indices_per_second")),
                             "peak_rss_bytes": r.get("peak_rss_bytes") or "",
                             "first_index_seconds": fmt(r.get("first_index_seconds")),
                             "bytes_beyond_batch": "" if r.get("bytes_beyond_batch") is None
                             else int(r["bytes_beyond_batch"]),
                             "status": r["status"], "note": r.get("note") or ""})
    meta["run_seconds"] = round(time.time() - started, 1)
    meta["loadavg_after"] = loadavg()
    with open(os.path.join(args.out_dir, "sampler.meta.json"), "w") as fh:
        json.dump(meta, fh, indent=2)
        fh.write("\n")
    print("sampler: %d rows in %s (%.0f s)" % (len(rows), os.path.join(args.out_dir, "sampler.csv"),
                                              time.time() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
