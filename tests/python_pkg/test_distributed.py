"""onepass.distributed (sort, shuffle, unshuffle of torch tensors over a torch.distributed
group, on onepass's own NCCL communicator) checked on 2 and 4 GPUs.

Two modes.

- Worker: ``python -m torch.distributed.run --standalone --nproc-per-node P
  tests/python_pkg/test_distributed.py --worker`` (onepass importable, e.g.
  ``PYTHONPATH=<build>/python``; one GPU per rank). Every rank runs the checks below and the
  process exits nonzero when any rank failed (each failure printed with its rank):
    * sort: equal to the one-GPU stable sort of the concatenation cut into the input counts —
      onepass.sort (CPU, the library's radix sort: the same order, IEEE totalOrder for floats)
      of the concatenation, and torch.sort(stable=True) where the two orders agree (no -0.0,
      no NaN); every key dtype torch has, ascending and descending, keys only and with 4- and
      8-byte values (the global positions, so stability is checked), uneven counts with an
      empty rank, heavy ties, all keys equal, special floats; both methods (partition_first,
      sort_first);
    * shuffle: out[j] = x[p[j]] with p = onepass.permutation(N, seed) (bijective) or the
      cycle-walking sigma (walking) of the GLOBAL count N, whatever P and the split (the same
      global array split differently for P = 2 and 4), equal to onepass.shuffle of the
      concatenation on one GPU; through a subgroup of one rank and of ranks 1..P-1; dtypes of
      1 to 16 bytes and 2-d rows of 10, 12 and 32 bytes; unshuffle(shuffle(x)) == x;
    * errors: bad dtypes, shapes, devices, permutation names raise ValueError on every rank;
      ranks that disagree on the seed or the order make every rank raise ValueError.
- Test (unittest / pytest): launches the worker with torchrun for P = 2 and P = 4, each
  skipped with its reason when torch, CUDA, onepass's CUDA module with NCCL, or P GPUs are
  missing. Runs under ``python -m unittest discover -s tests/python_pkg`` and pytest.
"""

import os
import subprocess
import sys
import traceback
import unittest

import numpy as np

import onepass
from onepass import _gpu

try:
    import pytest
    pytestmark = pytest.mark.gpu
except ImportError:  # unittest alone
    pytest = None


def _reason(num_gpus):
    """Why the P-rank run cannot happen here (None: it can)."""
    try:
        import torch
    except ImportError:
        return "torch is not importable"
    if not _gpu.available():
        return "onepass was built without its CUDA module (onepass._onepass_cuda)"
    from onepass import distributed
    if not distributed.available():
        return "onepass's CUDA module was built without NCCL (onepass.distributed unavailable)"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    if torch.cuda.device_count() < num_gpus:
        return "needs %d GPUs, torch sees %d" % (num_gpus, torch.cuda.device_count())
    try:
        import torch.distributed as dist
        import torch.distributed.run  # noqa: F401
        if not dist.is_available() or not dist.is_nccl_available():
            return "torch.distributed with NCCL is not available"
    except ImportError:
        return "torch.distributed.run is not importable"
    return None


class DistributedModule(unittest.TestCase):
    """What runs on any machine: the module imports without torch and says whether it can run."""

    def test_imports_and_reports_availability(self):
        from onepass import distributed
        self.assertIsInstance(distributed.available(), bool)
        self.assertTrue(issubclass(distributed.DTypeError, ValueError))
        self.assertTrue(issubclass(distributed.DTypeError, TypeError))

    def test_needs_an_initialised_process_group(self):
        try:
            import torch
            import torch.distributed as dist
        except ImportError:
            self.skipTest("torch is not importable")
        from onepass import distributed
        if dist.is_available() and dist.is_initialized():
            self.skipTest("a process group is initialised in this process")
        with self.assertRaises(RuntimeError):
            distributed.sort(torch.zeros(4, dtype=torch.int32))

    def test_bad_method_is_a_value_error_naming_it(self):
        from onepass import distributed
        with self.assertRaisesRegex(ValueError, "method: must be 'partition_first' or 'sort_first'"):
            distributed.sort(None, method="merge")


class DistributedRanks(unittest.TestCase):
    """The worker under torchrun on P GPUs (module docstring)."""

    def _launch(self, num_gpus):
        reason = _reason(num_gpus)
        if reason:
            self.skipTest(reason)
        env = dict(os.environ)
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(onepass.__file__)))
        env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.setdefault("OMP_NUM_THREADS", "1")
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(num_gpus),
                   os.path.abspath(__file__), "--worker"]
        try:
            run = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900,
                                 check=False)
        except subprocess.TimeoutExpired as e:
            self.fail("the %d-rank worker did not finish in 900 s (a hang in a collective?):\n%s"
                      % (num_gpus, (e.stdout or b"").decode(errors="replace")[-6000:]))
        output = run.stdout.decode(errors="replace")
        self.assertEqual(run.returncode, 0, "the %d-rank worker failed:\n%s" % (num_gpus, output[-12000:]))
        self.assertIn("onepass.distributed worker: all checks passed", output)

    def test_two_ranks(self):
        self._launch(2)

    def test_four_ranks(self):
        self._launch(4)


# --- the worker (runs on every rank under torchrun) -----------------------------------------------

def _split(total, num_ranks, salt):
    """Uneven counts summing to total, rank 1 empty when P > 1 (the same on every rank)."""
    rng = np.random.default_rng(1000 + salt)
    weights = rng.uniform(0.5, 1.5, num_ranks)
    if num_ranks > 1:
        weights[1] = 0.0
    counts = np.floor(weights / weights.sum() * total).astype(np.int64)
    counts[0] += total - counts.sum()
    return [int(c) for c in counts]


class _Worker:
    def __init__(self):
        import torch
        import torch.distributed as dist
        self.torch, self.dist = torch, dist
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        self.device = torch.device("cuda", local)
        dist.init_process_group("nccl")
        self.rank, self.size = dist.get_rank(), dist.get_world_size()
        from onepass import distributed
        self.od = distributed
        self.failures = []
        self.checks = 0

    # helpers
    def part(self, global_array, counts):
        """This rank's slice of a global NumPy array split by counts, and its first position."""
        first = sum(counts[:self.rank])
        return global_array[first:first + counts[self.rank]], first

    def to_gpu(self, a):
        torch = self.torch
        a = np.ascontiguousarray(a)
        if a.dtype == np.uint32 or a.dtype == np.uint64:
            word = np.int32 if a.dtype == np.uint32 else np.int64
            dtype = torch.uint32 if a.dtype == np.uint32 else torch.uint64
            return torch.from_numpy(a.view(word).copy()).to(self.device).view(dtype)
        return torch.from_numpy(a.copy()).to(self.device)

    def to_numpy(self, t, dtype):
        torch = self.torch
        t = t.detach().cpu().contiguous()
        if t.dtype in (getattr(torch, "uint32", None), getattr(torch, "uint64", None)):
            word = torch.int32 if t.element_size() == 4 else torch.int64
            return t.view(word).numpy().view(dtype)
        return t.numpy().view(dtype)

    def check(self, name, fn):
        self.checks += 1
        if os.environ.get("ONEPASS_TEST_TRACE"):
            print("[rank %d] check %s" % (self.rank, name), flush=True)
        try:
            fn()
        except Exception:  # noqa: BLE001 - every failure is reported with its rank
            self.failures.append("%s:\n%s" % (name, traceback.format_exc()))
            print("[rank %d] FAILED %s" % (self.rank, self.failures[-1]), flush=True)

    def expect(self, ok, message):
        if not ok:
            raise AssertionError(message)

    def expect_equal_bytes(self, got, want, message):
        got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
        self.expect(got.shape == want.shape, "%s: shape %s, want %s" % (message, got.shape, want.shape))
        g, w = got.view(np.uint8).reshape(-1), want.view(np.uint8).reshape(-1)
        if not np.array_equal(g, w):
            bad = int(np.flatnonzero(g != w)[0]) // max(1, got.dtype.itemsize)
            raise AssertionError("%s: first difference at element %d of %d" % (message, bad, got.size))

    def expect_raises(self, exc, fn, message):
        try:
            fn()
        except exc:
            return
        except Exception as e:  # noqa: BLE001
            raise AssertionError("%s: raised %s (%s), want %s" % (message, type(e).__name__, e, exc.__name__))
        raise AssertionError("%s: did not raise %s" % (message, exc.__name__))

    # sort
    def keys_of(self, dtype, total, shape, rng):
        if shape == "ties":
            return rng.integers(0, 8, total).astype(dtype)
        if shape == "equal":
            return np.full(total, 3, dtype=dtype)
        if shape == "sorted":
            return np.sort(rng.integers(0, 1 << 20, total)).astype(dtype)
        if np.dtype(dtype).kind == "f":
            return (rng.standard_normal(total) * 1e3).astype(dtype)
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, total, dtype=dtype, endpoint=True)

    def sort_case(self, dtype, total, shape, descending, value_dtype, salt):
        torch = self.torch
        rng = np.random.default_rng(salt)
        keys = self.keys_of(dtype, total, shape, rng)
        counts = _split(total, self.size, salt)
        mine, first = self.part(keys, counts)
        values = None
        if value_dtype is not None:
            values = np.arange(total).astype(value_dtype)  # global positions: stability is checked
        want = onepass.sort(keys, values, descending=descending, float_order="total")
        tk = self.to_gpu(mine)
        if values is None:
            got = self.od.sort(tk, descending=descending)
            want_keys = want
        else:
            tv = self.to_gpu(self.part(values, counts)[0])
            got, got_values = self.od.sort(tk, tv, descending=descending)
            want_keys, want_values = want
            self.expect(got_values.dtype == tv.dtype and got_values.shape == tv.shape, "values dtype/shape")
            self.expect_equal_bytes(self.to_numpy(got_values, value_dtype),
                                    want_values[first:first + counts[self.rank]], "sorted values")
        self.expect(got.dtype == tk.dtype and got.shape == tk.shape, "keys dtype/shape %s %s" % (got.dtype, got.shape))
        self.expect_equal_bytes(self.to_numpy(got, dtype), want_keys[first:first + counts[self.rank]], "sorted keys")
        self.expect_equal_bytes(self.to_numpy(tk, dtype), mine, "the input is unchanged")
        # method="partition_first" (the other method; the default is sort_first): the same output
        if values is None:
            again = self.od.sort(tk, descending=descending, method="partition_first")
        else:
            again, again_values = self.od.sort(tk, tv, descending=descending, method="partition_first")
            self.expect_equal_bytes(self.to_numpy(again_values, value_dtype),
                                    want_values[first:first + counts[self.rank]], "sorted values (partition_first)")
        self.expect_equal_bytes(self.to_numpy(again, dtype), want_keys[first:first + counts[self.rank]],
                                "sorted keys (partition_first)")
        # torch.sort(stable=True) of the concatenation (no -0.0 / NaN here, so the orders agree)
        if dtype in (np.int32, np.int64, np.float32, np.float64):
            whole = torch.from_numpy(keys.copy()).to(self.device)
            ref, index = torch.sort(whole, stable=True, descending=descending)
            self.expect_equal_bytes(self.to_numpy(got, dtype),
                                    ref.cpu().numpy()[first:first + counts[self.rank]], "torch.sort(stable=True)")
            if values is not None and value_dtype == np.int64:
                self.expect_equal_bytes(self.to_numpy(got_values, np.int64),
                                        index.cpu().numpy()[first:first + counts[self.rank]], "torch.sort indices")

    def sort_checks(self):
        torch = self.torch
        dtypes = [np.int32, np.int64, np.float32, np.float64]
        if hasattr(torch, "uint32"):
            dtypes.append(np.uint32)
        if hasattr(torch, "uint64"):
            dtypes.append(np.uint64)
        salt = 0
        for dtype in dtypes:
            for shape in ("random", "ties"):
                for descending in (False, True):
                    for value_dtype in (None, np.int64, np.float32):
                        salt += 1
                        total = 50_000 + 7919 * salt % 30_000
                        name = "sort %s %s desc=%s values=%s" % (np.dtype(dtype).name, shape, descending,
                                                                 None if value_dtype is None else
                                                                 np.dtype(value_dtype).name)
                        self.check(name, lambda d=dtype, t=total, s=shape, de=descending, v=value_dtype, sa=salt:
                                   self.sort_case(d, t, s, de, v, sa))
        for shape in ("equal", "sorted"):
            self.check("sort int64 %s" % shape,
                       lambda s=shape: self.sort_case(np.int64, 40_000, s, False, np.int64, 99))
        self.check("sort large int32", lambda: self.sort_case(np.int32, 3_000_000, "random", False, np.int64, 7))
        self.check("sort tiny (fewer keys than ranks)", lambda: self.sort_case(np.int32, 1, "random", False, None, 5))
        self.check("sort empty everywhere", lambda: self.sort_case(np.float32, 0, "random", False, np.int32, 6))
        self.check("sort special floats", self.sort_special_floats)

    def sort_special_floats(self):
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0], dtype=np.float32)
        rng = np.random.default_rng(11)
        keys = specials[rng.integers(0, len(specials), 20_000)]
        counts = _split(keys.size, self.size, 11)
        mine, first = self.part(keys, counts)
        got = self.od.sort(self.to_gpu(mine))
        want = onepass.sort(keys, float_order="total")  # IEEE totalOrder, as the distributed sort
        self.expect_equal_bytes(self.to_numpy(got, np.float32), want[first:first + counts[self.rank]],
                                "special floats in totalOrder")

    # shuffle
    def global_rows(self, dtype, total, row_shape, salt):
        rng = np.random.default_rng(salt)
        nbytes = total * int(np.prod(row_shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        raw = rng.integers(0, 256, nbytes, dtype=np.uint8)
        if np.dtype(dtype) == np.bool_:
            raw &= 1
        return raw.view(dtype).reshape((total,) + tuple(row_shape))

    def shuffle_case(self, dtype, total, row_shape, seed, permutation, rounds, salt, group=None, members=None):
        data = self.global_rows(dtype, total, row_shape, salt)
        members = list(range(self.size)) if members is None else members
        if self.rank not in members:
            return
        counts = _split(total, len(members), salt)
        local_rank = members.index(self.rank)
        first = sum(counts[:local_rank])
        mine = data[first:first + counts[local_rank]]
        if permutation == "bijective":
            p = np.asarray(onepass.permutation(total, seed, rounds=rounds))
        else:
            p = np.empty(total, dtype=np.uint64)
            if total:
                onepass._onepass.walking_indices_into(p, total, seed, rounds, 0, 1)
            p = p.astype(np.int64)
        want = data[p][first:first + counts[local_rank]]
        x = self.to_gpu(mine)
        y = self.od.shuffle(x, seed, group=group, permutation=permutation, rounds=rounds)
        self.expect(y.shape == x.shape and y.dtype == x.dtype, "shuffle shape/dtype %s %s" % (y.shape, y.dtype))
        self.expect_equal_bytes(self.to_numpy(y, data.dtype), want, "shuffle == x[p] of the global order")
        z = self.od.unshuffle(y, seed, group=group, permutation=permutation, rounds=rounds)
        self.expect_equal_bytes(self.to_numpy(z, data.dtype), mine, "unshuffle(shuffle(x)) == x")
        if permutation == "bijective" and members == list(range(self.size)):
            whole = onepass.shuffle(self.to_gpu(data), seed, rounds=rounds)  # one GPU, the whole array
            self.expect_equal_bytes(self.to_numpy(whole, data.dtype)[first:first + counts[local_rank]],
                                    self.to_numpy(y, data.dtype), "equal to onepass.shuffle on one GPU")

    def shuffle_checks(self):
        dist = self.dist
        cases = [(np.uint8, ()), (np.float16, ()), (np.int32, ()), (np.float64, ()), (np.complex128, ()),
                 (np.bool_, ()), (np.float32, (3,)), (np.int16, (5,)), (np.int64, (4,)), (np.uint8, (2, 3))]
        salt = 100
        for dtype, row in cases:
            for permutation in ("bijective", "walking"):
                salt += 1
                name = "shuffle %s rows %s %s" % (np.dtype(dtype).name, row, permutation)
                self.check(name, lambda d=dtype, r=row, pm=permutation, sa=salt:
                           self.shuffle_case(d, 30_000 + 101 * sa, r, 0x9E3779B97F4A7C15 + sa, pm, 24, sa))
        self.check("shuffle rounds=8 seed=0", lambda: self.shuffle_case(np.int64, 123_457, (), 0, "bijective", 8, 7))
        self.check("shuffle large", lambda: self.shuffle_case(np.int32, 4_000_000, (), 42, "bijective", 24, 8))
        self.check("shuffle one item", lambda: self.shuffle_case(np.int64, 1, (), 5, "bijective", 24, 9))
        self.check("shuffle empty everywhere", lambda: self.shuffle_case(np.int64, 0, (), 5, "walking", 24, 10))
        # Subgroups (new_group is collective over the world): one rank, then ranks 1 .. P-1.
        solo = dist.new_group([0])
        self.check("shuffle in a group of one", lambda: self.shuffle_case(np.int64, 77_777, (), 3, "bijective", 24, 11,
                                                                          group=solo, members=[0]))
        if self.size >= 3:
            rest = dist.new_group(list(range(1, self.size)))
            self.check("shuffle in the group of ranks 1..P-1",
                       lambda: self.shuffle_case(np.int32, 55_555, (2,), 4, "walking", 24, 12, group=rest,
                                                 members=list(range(1, self.size))))
        dist.barrier()

    # errors (every rank the same, so that no rank waits alone)
    def error_checks(self):
        torch = self.torch
        od = self.od
        x = torch.arange(10, device=self.device, dtype=torch.int64)
        cases = [
            ("sort int16 keys", lambda: od.sort(x.to(torch.int16)), ValueError),
            ("sort bool keys", lambda: od.sort(x > 3), ValueError),
            ("sort float16 keys", lambda: od.sort(x.to(torch.float16)), ValueError),
            ("sort 2-d keys", lambda: od.sort(x.view(2, 5)), ValueError),
            ("sort CPU keys", lambda: od.sort(x.cpu()), ValueError),
            ("sort non-contiguous keys", lambda: od.sort(x[::2]), ValueError),
            ("sort int16 values", lambda: od.sort(x, x.to(torch.int16)), ValueError),
            ("sort values of another length", lambda: od.sort(x, x[:5]), ValueError),
            ("shuffle bad permutation", lambda: od.shuffle(x, 1, permutation="nope"), ValueError),
            ("shuffle rounds 0", lambda: od.shuffle(x, 1, rounds=0), ValueError),
            ("shuffle negative seed", lambda: od.shuffle(x, -1), ValueError),
            ("shuffle 0-d", lambda: od.shuffle(x[0], 1), ValueError),
            ("shuffle CPU tensor", lambda: od.shuffle(x.cpu(), 1), ValueError),
            ("shuffle list", lambda: od.shuffle([1, 2, 3], 1), TypeError),
        ]
        for name, fn, exc in cases:
            self.check("error: " + name, lambda fn=fn, exc=exc, name=name: self.expect_raises(exc, fn, name))
        # Arguments that disagree between ranks: the library's agreement step makes every rank raise.
        if self.size > 1:
            self.check("error: seeds that differ between ranks",
                       lambda: self.expect_raises(ValueError, lambda: od.shuffle(x, 1 + self.rank), "different seeds"))
            self.check("error: orders that differ between ranks",
                       lambda: self.expect_raises(ValueError, lambda: od.sort(x, descending=self.rank == 0),
                                                  "different orders"))
            self.check("error: key types that differ between ranks",
                       lambda: self.expect_raises(ValueError, lambda: od.sort(x if self.rank else x.to(torch.float64)),
                                                  "different key types"))
            # and the communicator still works afterwards
            self.check("sort after the errors", lambda: self.sort_case(np.int64, 10_000, "random", False, None, 13))

    def run(self):
        torch, dist = self.torch, self.dist
        self.sort_checks()
        self.shuffle_checks()
        self.error_checks()
        self.check("destroy_communicators, then a new one", self.destroy_and_again)
        failed = torch.tensor([len(self.failures)], device=self.device)
        dist.all_reduce(failed)
        ok = int(failed.item()) == 0
        if self.rank == 0:
            print("onepass.distributed worker: %s (%d checks per rank, %d ranks, %d failures in all)"
                  % ("all checks passed" if ok else "FAILED", self.checks, self.size, int(failed.item())), flush=True)
        dist.barrier()
        dist.destroy_process_group()
        return 0 if ok else 1

    def destroy_and_again(self):
        self.od.destroy_communicators()
        self.sort_case(np.float64, 20_000, "ties", True, np.int32, 14)


def _worker_main():
    return _Worker().run()


if __name__ == "__main__":
    if "--worker" in sys.argv[1:]:
        sys.exit(_worker_main())
    unittest.main()
