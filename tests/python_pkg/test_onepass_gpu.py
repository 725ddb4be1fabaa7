"""The Python package onepass on CUDA arrays of PyTorch, CuPy and JAX: the same values as
the CPU path (NumPy) for shuffle, unshuffle, permutation, segmented shuffles, sort,
argsort and normal; the caller's stream; no copies; every bad input named.

Skipped with the reason when the CUDA module was not built, no GPU is found, or the
framework is not importable (each framework separately). Runs under unittest
(``python -m unittest discover -s tests/python_pkg``) and pytest (``pytest -m gpu``)."""

import os
import time
import unittest

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX beside torch and CuPy

import numpy as np

import onepass
from onepass import _gpu

try:
    import pytest
    pytestmark = pytest.mark.gpu
except ImportError:  # unittest alone
    pytest = None


def _gpu_reason():
    if not _gpu.available():
        return "onepass was built without its CUDA module (onepass._onepass_cuda)"
    if _gpu._cu.device_count() == 0:
        return "no CUDA device found"
    return None


GPU_REASON = _gpu_reason()


class Framework:
    """to_gpu(numpy) -> framework array on cuda:0; to_numpy(array) -> NumPy; ptr(array)."""

    def __init__(self, name):
        self.name = name
        self.reason = GPU_REASON
        self.module = None
        if self.reason:
            return
        try:
            if name == "torch":
                import torch
                if not torch.cuda.is_available():
                    self.reason = "torch sees no CUDA device"
                self.module = torch
            elif name == "cupy":
                import cupy
                cupy.cuda.runtime.getDeviceCount()
                self.module = cupy
            else:
                import jax
                jax.config.update("jax_enable_x64", True)
                if not jax.devices("gpu"):
                    self.reason = "jax sees no GPU"
                self.module = jax
        except Exception as e:  # noqa: BLE001 - not importable or no device: skip with the reason
            self.reason = "%s not usable: %s" % (name, e)

    def to_gpu(self, a):
        a = np.ascontiguousarray(a)
        if self.name == "torch":
            return self.module.from_numpy(a.copy()).cuda()
        if self.name == "cupy":
            return self.module.asarray(a)
        return self.module.device_put(a, self.module.devices("gpu")[0])

    def to_numpy(self, x):
        if self.name == "torch":
            return x.cpu().numpy()
        if self.name == "cupy":
            return self.module.asnumpy(x)
        return np.asarray(x)

    def ptr(self, x):
        if self.name == "torch":
            return x.data_ptr()
        if self.name == "cupy":
            return x.data.ptr
        return x.unsafe_buffer_pointer()

    def array_type(self):
        if self.name == "torch":
            return self.module.Tensor
        if self.name == "cupy":
            return self.module.ndarray
        return self.module.Array


FRAMEWORKS = [Framework(name) for name in ("torch", "cupy", "jax")]
SIZES = [0, 1, 2, 3, 16, 17, 1024, 1025, 4097, 2 ** 16, 2 ** 16 + 1]
SEEDS = [0, 1, 12345, 2 ** 64 - 1]


def bits_of(a):
    a = np.asarray(a)
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint64)


class GpuCase(unittest.TestCase):
    def frameworks(self):
        usable = [f for f in FRAMEWORKS if not f.reason]
        if not usable:
            self.skipTest("; ".join(sorted({f.reason for f in FRAMEWORKS})))
        return usable

    def framework(self, name):
        f = next(f for f in FRAMEWORKS if f.name == name)
        if f.reason:
            self.skipTest(f.reason)
        return f

    def expect(self, exc, words, fn, *args, **kwargs):
        with self.assertRaises(exc) as ctx:
            fn(*args, **kwargs)
        for w in words.split():
            self.assertIn(w, str(ctx.exception))


class SameAsCpu(GpuCase):
    def test_shuffle_unshuffle_permutation(self):
        for f in self.frameworks():
            for n in SIZES:
                x = np.arange(n, dtype=np.int64) * 7 - 3
                xg = f.to_gpu(x)
                for seed in SEEDS:
                    msg = "%s n=%d seed=%d" % (f.name, n, seed)
                    y = onepass.shuffle(xg, seed)
                    self.assertIsInstance(y, f.array_type(), msg)
                    np.testing.assert_array_equal(f.to_numpy(y), onepass.shuffle(x, seed), err_msg=msg)
                    np.testing.assert_array_equal(f.to_numpy(onepass.unshuffle(y, seed)), x, err_msg=msg)
                    p = onepass.permutation(n, seed, device="cuda", like=f.name)
                    self.assertIsInstance(p, f.array_type(), msg)
                    np.testing.assert_array_equal(f.to_numpy(p), onepass.permutation(n, seed), err_msg=msg)

    def test_dtypes_rows_and_axes(self):
        rng = np.random.default_rng(3)
        for f in self.frameworks():
            for dtype in (np.int8, np.int16, np.int32, np.float32, np.float64, np.complex128, np.bool_):
                if f.name == "jax" and dtype is np.complex128:
                    continue
                x = (rng.integers(0, 1000, size=3001) % 7).astype(dtype)
                y = onepass.shuffle(f.to_gpu(x), 77)
                np.testing.assert_array_equal(f.to_numpy(y), onepass.shuffle(x, 77), err_msg="%s %s" % (f.name, dtype))
            x = rng.standard_normal((257, 3)).astype(np.float32)  # 12-byte rows: the gather path
            np.testing.assert_array_equal(f.to_numpy(onepass.shuffle(f.to_gpu(x), 5)), onepass.shuffle(x, 5))
            x = np.arange(6 * 5 * 4, dtype=np.int16).reshape(6, 5, 4)
            for axis in (0, 1, 2, -1):
                y = onepass.shuffle(f.to_gpu(x), 8, axis=axis)
                np.testing.assert_array_equal(f.to_numpy(y), onepass.shuffle(x, 8, axis=axis))
                back = onepass.unshuffle(y, 8, axis=axis)
                np.testing.assert_array_equal(f.to_numpy(back), x)

    def test_segmented_rows_and_offsets(self):
        rng = np.random.default_rng(9)
        for f in self.frameworks():
            for rows, n in ((7, 1), (5, 300), (3, 5000), (2, 70000), (0, 4)):
                x = rng.integers(-2 ** 40, 2 ** 40, size=(rows, n)).astype(np.int64)
                y = onepass.segmented_shuffle(f.to_gpu(x), 21)
                np.testing.assert_array_equal(f.to_numpy(y), onepass.segmented_shuffle(x, 21),
                                              err_msg="%s %dx%d" % (f.name, rows, n))
                np.testing.assert_array_equal(f.to_numpy(onepass.segmented_unshuffle(y, 21)), x)
            lengths = [0, 1, 5, 256, 257, 3000, 5000, 40000, 2]
            offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
            x = rng.standard_normal(int(offsets[-1]) + 3).astype(np.float32)  # 3 items after the last offset
            for odt in (np.int64, np.int32):
                og = f.to_gpu(offsets.astype(odt))
                y = onepass.segmented_shuffle(f.to_gpu(x), 4, offsets=og)
                np.testing.assert_array_equal(f.to_numpy(y), onepass.segmented_shuffle(x, 4, offsets=offsets))
                np.testing.assert_array_equal(f.to_numpy(onepass.segmented_unshuffle(y, 4, offsets=og)), x)

    def test_float_order_numpy_on_the_gpu(self):
        # NaNs of both signs, -0.0 and +0.0: by default the order of np.sort (stable), the
        # original bits kept; float_order="total" as the CPU's totalOrder.
        rng = np.random.default_rng(8)
        for f in self.frameworks():
            for dtype, word in ((np.float32, np.uint32), (np.float64, np.uint64)):
                n = 100003
                x = rng.integers(-3, 4, size=n).astype(dtype)
                special = rng.integers(0, 5, size=n)
                x[special == 0] = -0.0
                bits = x.view(word)
                nan_bits = np.array([np.nan], dtype=dtype).view(word)[0]
                sign = word(1) << word(8 * np.dtype(dtype).itemsize - 1)
                bits[special == 1] = nan_bits | sign
                bits[special == 2] = nan_bits | word(7)
                msg = "%s %s" % (f.name, np.dtype(dtype).name)
                order = np.argsort(x, kind="stable")
                xg = f.to_gpu(x)
                np.testing.assert_array_equal(f.to_numpy(onepass.argsort(xg)), order, msg)
                np.testing.assert_array_equal(f.to_numpy(onepass.sort(xg)).view(word), x[order].view(word), msg)
                v = np.arange(n, dtype=np.int64)
                k, vs = onepass.sort(xg, f.to_gpu(v), descending=True)
                ck, cv = onepass.sort(x, v, descending=True)
                np.testing.assert_array_equal(f.to_numpy(k).view(word), ck.view(word), msg)
                np.testing.assert_array_equal(f.to_numpy(vs), cv, msg)
                np.testing.assert_array_equal(f.to_numpy(onepass.argsort(xg, float_order="total")),
                                              onepass.argsort(x, float_order="total"), msg)

    def test_sort_and_argsort(self):
        rng = np.random.default_rng(1)
        for f in self.frameworks():
            for dtype in (np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64):
                for n in (0, 1, 1000, 100000, 2 ** 20 + 3):
                    if dtype in (np.float32, np.float64):
                        k = rng.standard_normal(n).astype(dtype)
                        k[: n // 10] = np.abs(np.round(k[: n // 10]))  # duplicates; no -0.0 (numpy: == +0.0)
                    else:
                        k = rng.integers(0, 50000, size=n).astype(dtype)
                    msg = "%s %s n=%d" % (f.name, np.dtype(dtype).name, n)
                    kg = f.to_gpu(k)
                    s = onepass.sort(kg)
                    self.assertIsInstance(s, f.array_type(), msg)
                    np.testing.assert_array_equal(bits_of(f.to_numpy(s)), bits_of(np.sort(k, kind="stable")), msg)
                    np.testing.assert_array_equal(f.to_numpy(onepass.argsort(kg)), np.argsort(k, kind="stable"), msg)
                    np.testing.assert_array_equal(f.to_numpy(onepass.argsort(kg, descending=True)),
                                                  onepass.argsort(k, descending=True), msg)
                    v = np.arange(n, dtype=np.float32) * 0.5
                    ks, vs = onepass.sort(kg, f.to_gpu(v), descending=True)
                    cks, cvs = onepass.sort(k, v, descending=True)
                    np.testing.assert_array_equal(bits_of(f.to_numpy(ks)), bits_of(cks), msg)
                    np.testing.assert_array_equal(f.to_numpy(vs), cvs, msg)
                    width = np.dtype(dtype).itemsize * 8
                    np.testing.assert_array_equal(bits_of(f.to_numpy(onepass.sort(kg, begin_bit=3, end_bit=width - 5))),
                                                  bits_of(onepass.sort(k, begin_bit=3, end_bit=width - 5)), msg)

    def test_normal_bit_for_bit(self):
        # float64, and float32 by both methods (the float-native generator, the default, against
        # cpu::generate_normal (float-native); rounded_double against the float64 samples rounded).
        cases = [(np.float64, {}), (np.float32, {}), (np.float32, {"method": "rounded_double"})]
        for f in self.frameworks():
            for dtype, method in cases:
                for n, seed in ((0, 1), (1, 2), (31, 3), (33, 4), (127, 5), (129, 6), (1000, 2 ** 64 - 1),
                                (100003, 12345)):
                    g = onepass.normal(n, seed, dtype=dtype, device="cuda:0", like=f.name, **method)
                    self.assertIsInstance(g, f.array_type())
                    np.testing.assert_array_equal(bits_of(f.to_numpy(g)),
                                                  bits_of(onepass.normal(n, seed, dtype=dtype, **method)),
                                                  err_msg="%s %s %s n=%d" % (f.name, np.dtype(dtype).name, method, n))
            g = onepass.normal((3, 50), 8, mean=2.0, std=0.5, coefficients=3, device="cuda", like=f.name)
            np.testing.assert_array_equal(f.to_numpy(g), onepass.normal((3, 50), 8, mean=2.0, std=0.5, coefficients=3))
            g = onepass.normal((3, 50), 8, mean=2.0, std=0.5, coefficients=3, dtype=np.float32,
                               method="rounded_double", device="cuda", like=f.name)
            np.testing.assert_array_equal(f.to_numpy(g), onepass.normal((3, 50), 8, mean=2.0, std=0.5, coefficients=3,
                                                                        dtype=np.float32, method="rounded_double"))
            g = onepass.normal((3, 50), 8, mean=-2.0, std=3.0, dtype=np.float32, device="cuda", like=f.name)
            cpu = onepass.normal((3, 50), 8, mean=-2.0, std=3.0, dtype=np.float32)
            np.testing.assert_array_equal(bits_of(f.to_numpy(g)), bits_of(cpu))
            self.assertFalse(np.array_equal(cpu, onepass.normal((3, 50), 8, mean=-2.0, std=3.0, dtype=np.float32,
                                                                method="rounded_double")))

    def test_torch_device_objects(self):
        torch = self.framework("torch").module
        g = onepass.normal(10, 1, dtype=torch.float32, device=torch.device("cuda", 0))
        self.assertEqual(g.dtype, torch.float32)
        self.assertEqual(g.device, torch.device("cuda", 0))
        p = onepass.permutation(10, 1, device=torch.device("cuda"))
        self.assertEqual(p.dtype, torch.int64)
        x = torch.arange(100.0, device="cuda", requires_grad=True)  # exported through .detach()
        np.testing.assert_array_equal(onepass.shuffle(x, 3).cpu().numpy(), onepass.shuffle(np.arange(100.0), 3))


class Streams(GpuCase):
    def test_work_queued_on_a_side_stream_is_respected(self):
        f = self.framework("torch")
        torch = f.module
        n = 1 << 24
        src = torch.arange(n, dtype=torch.int64, device="cuda") * 3
        onepass.shuffle(src, 42)  # warm-up: the kernels' lazy loading is not timed below
        onepass.segmented_shuffle(src.view(256, -1), 42)
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            x = torch.zeros(n, dtype=torch.int64, device="cuda")
            torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time before x gets its values
            x.copy_(src)
            start = time.perf_counter()
            y = onepass.shuffle(x, 42)
            launched = time.perf_counter() - start
            z = onepass.segmented_shuffle(x.view(256, -1), 42)
            got = y.cpu().numpy()  # on `side`: waits for the sleep, the copy and the shuffle
            got_rows = z.cpu().numpy()
        expected = np.arange(n, dtype=np.int64) * 3
        np.testing.assert_array_equal(got, onepass.shuffle(expected, 42))
        np.testing.assert_array_equal(got_rows, onepass.segmented_shuffle(expected.reshape(256, -1), 42))
        self.assertLess(launched, 0.05, "the shuffle waited on the host (%.3f s)" % launched)

    def test_cupy_non_default_stream(self):
        f = self.framework("cupy")
        cupy = f.module
        x = np.arange(100000, dtype=np.int64)
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            xg = cupy.asarray(x)
            y = onepass.shuffle(xg, 6)
            s = onepass.sort(y)
            got = cupy.asnumpy(y, stream=stream)
            got_sorted = cupy.asnumpy(s, stream=stream)
            stream.synchronize()
        np.testing.assert_array_equal(got, onepass.shuffle(x, 6))
        np.testing.assert_array_equal(got_sorted, x)


class ZeroCopy(GpuCase):
    def test_input_pointer_used_and_input_untouched(self):
        for f in self.frameworks():
            x = np.arange(5000, dtype=np.int64) * 11
            xg = f.to_gpu(x)
            ctx = _gpu._context_of(xg, "x")
            self.assertEqual(_gpu.import_array(xg, ctx, "x").ptr, f.ptr(xg), f.name)  # DLPack gave x's own memory
            before = f.ptr(xg)
            y = onepass.shuffle(xg, 2)
            self.assertEqual(f.ptr(xg), before)
            self.assertNotEqual(f.ptr(y), before)
            np.testing.assert_array_equal(f.to_numpy(xg), x)  # out of place: x untouched

    def test_out_is_written_in_place(self):
        for f in self.frameworks():
            if f.name == "jax":
                continue  # JAX arrays are immutable: out= is refused (test_errors)
            x = f.to_gpu(np.arange(3000, dtype=np.float64))
            out = f.to_gpu(np.zeros(3000))
            ptr = f.ptr(out)
            self.assertIs(onepass.shuffle(x, 5, out=out), out)
            self.assertEqual(f.ptr(out), ptr)
            np.testing.assert_array_equal(f.to_numpy(out), onepass.shuffle(np.arange(3000, dtype=np.float64), 5))


class Errors(GpuCase):
    def test_bad_inputs_are_named(self):
        for f in self.frameworks():
            x = f.to_gpu(np.arange(100, dtype=np.int64))
            m = f.to_gpu(np.arange(100, dtype=np.int64).reshape(10, 10))
            if f.name != "jax":  # JAX arrays are always contiguous
                self.expect(ValueError, "x: non-contiguous", onepass.shuffle, x[::2], 1)
                self.expect(ValueError, "x: non-contiguous", onepass.shuffle, m.T, 1)
                self.expect(ValueError, "keys: non-contiguous", onepass.sort, x[::3])
            self.expect(ValueError, "seed", onepass.shuffle, x, -1)
            self.expect(TypeError, "seed", onepass.shuffle, x, 1.5)
            self.expect(ValueError, "rounds", onepass.shuffle, x, 1, rounds=0)
            self.expect(ValueError, "axis", onepass.shuffle, m, 1, axis=2)
            self.expect(TypeError, "out", onepass.shuffle, x, 1, out=np.zeros(100, dtype=np.int64))
            self.expect(ValueError, "offsets", onepass.segmented_shuffle, x, 1, offsets=np.array([0, 50, 100]))
            self.expect(ValueError, "x: without offsets", onepass.segmented_shuffle, x, 1)
            self.expect(TypeError, "offsets", onepass.segmented_shuffle, x, 1,
                        offsets=f.to_gpu(np.array([0, 50, 100], dtype=np.float32)))
            self.expect(TypeError, "keys", onepass.sort, f.to_gpu(np.zeros(10, dtype=np.int16)))
            self.expect(ValueError, "end_bit", onepass.sort, f.to_gpu(np.zeros(10, dtype=np.uint32)), end_bit=33)
            self.expect(ValueError, "begin_bit", onepass.sort, f.to_gpu(np.zeros(10, dtype=np.uint32)), begin_bit=32)
            self.expect(ValueError, "values", onepass.sort, x, np.zeros(100, dtype=np.int64))
            self.expect(ValueError, "values", onepass.sort, x, f.to_gpu(np.zeros(99, dtype=np.int64)))
            self.expect(TypeError, "values", onepass.sort, x, f.to_gpu(np.zeros(100, dtype=np.int16)))
            self.expect(ValueError, "device", onepass.permutation, 10, 1, device="cuda:99", like=f.name)
            self.expect(ValueError, "device", onepass.normal, 10, 1, device="gpu")
            self.expect(ValueError, "like", onepass.normal, 10, 1, device="cuda", like="numpy")
            self.expect(ValueError, "method", onepass.normal, 10, 1, dtype=np.float32, method="fast", device="cuda")
            self.expect(ValueError, "coefficients", onepass.normal, 10, 1, dtype=np.float32, coefficients=3,
                        device="cuda")
            self.expect(ValueError, "values", onepass.sort, np.arange(10), f.to_gpu(np.arange(10)))  # CPU keys, GPU values
            if f.name == "jax":
                self.expect(TypeError, "out", onepass.shuffle, x, 1, out=f.to_gpu(np.zeros(100, dtype=np.int64)))
                continue
            out = f.to_gpu(np.full(100, -1, dtype=np.int64))
            self.expect(ValueError, "out", onepass.shuffle, x, 1, out=f.to_gpu(np.zeros(99, dtype=np.int64)))
            self.expect(ValueError, "overlap", onepass.shuffle, x, 1, out=x)
            # Offsets that decrease: refused on the device before anything is written to out.
            bad = f.to_gpu(np.array([0, 60, 40, 100], dtype=np.int64))
            self.expect(ValueError, "offsets", onepass.segmented_shuffle, x, 1, offsets=bad, out=out)
            np.testing.assert_array_equal(f.to_numpy(out), np.full(100, -1))

    def test_arrays_on_two_devices(self):
        f = self.framework("torch")
        torch = f.module
        if torch.cuda.device_count() < 2:
            self.skipTest("needs two GPUs")
        keys = torch.arange(10, device="cuda:0")
        self.expect(ValueError, "values cuda:1", onepass.sort, keys, torch.arange(10, device="cuda:1"))


class WithoutCudaModule(unittest.TestCase):
    """Runs everywhere: GPU arrays without the CUDA module give a TypeError saying so."""

    def test_type_error_names_the_module(self):
        class FakeCuda:
            __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (1 << 20, False), "version": 3}

        saved = _gpu._cu
        _gpu._cu = None
        try:
            for call in (lambda: onepass.shuffle(FakeCuda(), 1), lambda: onepass.sort(FakeCuda()),
                         lambda: onepass.segmented_shuffle(FakeCuda(), 1, offsets=FakeCuda()),
                         lambda: onepass.permutation(4, 1, device="cuda"),
                         lambda: onepass.normal(4, 1, device="cuda:0", like="torch")):
                with self.assertRaises(TypeError) as ctx:
                    call()
                self.assertIn("CUDA module", str(ctx.exception))
        finally:
            _gpu._cu = saved


class CudaTypeStub(unittest.TestCase):
    """python/onepass/_onepass_cuda.pyi (nanobind's stubgen, written by
    scripts/device-python-gpu.sh where the CUDA module builds) lists every public function
    of the CUDA module, so editors complete it. Skipped without the CUDA module."""

    def test_stub_names_every_cuda_module_member(self):
        if not _gpu.available():
            self.skipTest("the CUDA module onepass._onepass_cuda is not built here")
        stub_path = os.path.join(os.path.dirname(onepass.__file__), "_onepass_cuda.pyi")
        self.assertTrue(os.path.exists(stub_path), "no _onepass_cuda.pyi beside the package")
        with open(stub_path, encoding="utf-8") as f:
            stub = f.read()
        members = [n for n in dir(_gpu._cu) if not n.startswith("_")]
        self.assertTrue(members)
        for name in members:
            self.assertTrue(("def %s(" % name) in stub or ("\n%s: " % name) in stub or ("class %s" % name) in stub,
                            "%s of onepass._onepass_cuda is missing from _onepass_cuda.pyi: regenerate it with "
                            "scripts/device-python-gpu.sh" % name)


if __name__ == "__main__":
    unittest.main()
