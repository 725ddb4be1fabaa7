"""The Python package onepass on NumPy arrays (CPU): the same permutation as the `onepass`
CLI and the C++ library, round trips, dtypes, axes, `out=`, and every bad input named.

Run by `make test` (target test-python-pkg) with PYTHONPATH at the built package and
ONEPASS_CLI at the built `onepass` program."""

import os
import subprocess
import unittest

import numpy as np

import onepass

CLI = os.environ.get("ONEPASS_CLI", "")


def cli_permutation(n, seed):
    out = subprocess.run([CLI, "permutation", "--n", str(n), "--seed", str(seed)], check=True,
                         capture_output=True, text=True).stdout.split()
    return np.array([int(v) for v in out], dtype=np.int64)


SIZES = [0, 1, 2, 3, 5, 16, 17, 1024, 1025, 4097]


class SameAsCli(unittest.TestCase):
    @unittest.skipUnless(CLI and os.path.exists(CLI), "ONEPASS_CLI does not name the built onepass program")
    def test_permutation_equals_cli(self):
        for n in SIZES:
            for seed in (0, 1, 12345, 2 ** 64 - 1):
                np.testing.assert_array_equal(onepass.permutation(n, seed), cli_permutation(n, seed),
                                              err_msg="n=%d seed=%d" % (n, seed))

    def test_shuffle_applies_the_permutation(self):
        for n in SIZES:
            x = np.arange(n, dtype=np.int64) * 7 - 3
            p = onepass.permutation(n, 99)
            np.testing.assert_array_equal(onepass.shuffle(x, 99), x[p])
            self.assertEqual(sorted(p.tolist()), list(range(n)))


class RoundTrips(unittest.TestCase):
    def test_dtypes(self):
        rng = np.random.default_rng(5)
        for dtype in (np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.float16, np.float32,
                      np.float64, np.complex64, np.complex128, np.bool_):
            x = (rng.integers(0, 100, size=1000) % 2 == 0) if dtype is np.bool_ else \
                rng.integers(-100, 100, size=1000).astype(dtype)
            y = onepass.shuffle(x, 3)
            self.assertEqual(y.dtype, x.dtype)
            np.testing.assert_array_equal(y, x[onepass.permutation(1000, 3)])
            np.testing.assert_array_equal(onepass.unshuffle(y, 3), x)

    def test_structured_records_and_odd_item_sizes(self):
        rec = np.dtype([("a", np.int32), ("b", np.float64), ("c", "S3")])  # 15 bytes, unaligned sizes
        x = np.zeros(777, dtype=rec)
        x["a"] = np.arange(777)
        x["b"] = np.arange(777) * 0.5
        x["c"] = [("%03d" % (i % 1000)).encode() for i in range(777)]
        y = onepass.shuffle(x, 11)
        np.testing.assert_array_equal(y, x[onepass.permutation(777, 11)])
        np.testing.assert_array_equal(onepass.unshuffle(y, 11), x)

    def test_axis_and_rows(self):
        x = np.arange(6 * 5 * 4, dtype=np.float32).reshape(6, 5, 4)
        for axis in (0, 1, 2, -1):
            n = x.shape[axis]
            y = onepass.shuffle(x, 8, axis=axis)
            np.testing.assert_array_equal(y, np.take(x, onepass.permutation(n, 8), axis=axis))
            np.testing.assert_array_equal(onepass.unshuffle(y, 8, axis=axis), x)
        # A non-contiguous view is shuffled as its values.
        v = x[:, ::2, 1]
        np.testing.assert_array_equal(onepass.shuffle(v, 2), v[onepass.permutation(6, 2)])

    def test_out_and_rounds(self):
        x = np.arange(100)
        out = np.empty_like(x)
        self.assertIs(onepass.shuffle(x, 4, out=out), out)
        np.testing.assert_array_equal(out, onepass.shuffle(x, 4))
        self.assertFalse(np.array_equal(onepass.permutation(100, 4, rounds=8), onepass.permutation(100, 4)))
        np.testing.assert_array_equal(onepass.unshuffle(onepass.shuffle(x, 4, rounds=8), 4, rounds=8), x)

    def test_seeds_differ(self):
        self.assertFalse(np.array_equal(onepass.permutation(1000, 1), onepass.permutation(1000, 2)))


class BadInput(unittest.TestCase):
    def expect(self, error, needle, fn, *args, **kwargs):
        with self.assertRaises(error) as ctx:
            fn(*args, **kwargs)
        self.assertIn(needle, str(ctx.exception))

    def test_each_bad_argument_is_named(self):
        x = np.arange(10)
        self.expect(ValueError, "seed", onepass.shuffle, x, -1)
        self.expect(ValueError, "seed", onepass.shuffle, x, 2 ** 64)
        self.expect(TypeError, "seed", onepass.shuffle, x, 1.5)
        self.expect(TypeError, "seed", onepass.shuffle, x, True)
        self.expect(ValueError, "axis", onepass.shuffle, x, 1, axis=1)
        self.expect(TypeError, "axis", onepass.shuffle, x, 1, axis=0.0)
        self.expect(ValueError, "rounds", onepass.shuffle, x, 1, rounds=0)
        self.expect(ValueError, "rounds", onepass.shuffle, x, 1, rounds=65)
        self.expect(ValueError, "x", onepass.shuffle, np.array(5), 1)
        self.expect(TypeError, "x", onepass.shuffle, np.array([object(), object()]), 1)
        self.expect(ValueError, "n", onepass.permutation, -1, 1)
        self.expect(TypeError, "n", onepass.permutation, 2.0, 1)
        self.expect(TypeError, "out", onepass.shuffle, x, 1, out=[0] * 10)

    def test_bad_out_is_left_untouched(self):
        x = np.arange(10)
        for out in (np.zeros(9, dtype=x.dtype), np.zeros(10, dtype=np.float64)):
            before = out.copy()
            self.expect(ValueError, "out", onepass.shuffle, x, 1, out=out)
            np.testing.assert_array_equal(out, before)
        ro = np.zeros_like(x)
        ro.flags.writeable = False
        self.expect(ValueError, "out", onepass.shuffle, x, 1, out=ro)
        self.expect(ValueError, "overlap", onepass.shuffle, x, 1, out=x)

    def test_gpu_like_objects_are_refused(self):
        class FakeCuda:
            __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False), "version": 3}

        if onepass._gpu.available():  # the CUDA module refuses its null pointer before any launch
            self.expect(ValueError, "null", onepass.shuffle, FakeCuda(), 1)
        else:
            self.expect(TypeError, "GPU", onepass.shuffle, FakeCuda(), 1)


def cli_gaussian_words(n, seed, form):
    out = subprocess.run([CLI, "gaussian-stream", "--seed", str(seed), "--count", str(n), "--form", str(form)],
                         check=True, capture_output=True).stdout
    return np.frombuffer(out, dtype=np.uint32)


def erf_words(x):
    """The CLI's mapping of each double to a 32-bit word (onepass/gaussian/cdf_stream.hpp)."""
    import math
    words = []
    for v in x.tolist():
        scaled = (1.0 + math.erf(v * 0.7071067811865476)) * 2147483648.0
        words.append(0 if not scaled > 0.0 else 0xFFFFFFFF if scaled >= 4294967295.0 else int(scaled))
    return np.array(words, dtype=np.uint32)


# Bits (index, uint32 view) of cpu::generate_normal(out, 300, mean, std, seed) (float-native): the float-native
# generator (issue 30) with default_float_table(), printed by a standalone C++ program.
FLOAT_NATIVE_2024 = [(0, 0x3f91b73a), (1, 0x3df219c2), (2, 0x3f72122b), (3, 0xbe4b82cd), (4, 0x3e8745a2),
                     (31, 0x3f695e16), (127, 0xc0040646), (128, 0x3d94d722), (129, 0x3e84ba2c), (255, 0xbff38945),
                     (256, 0x404eb0b3), (299, 0x3e0d755b)]
FLOAT_NATIVE_9 = [(0, 0x3fa316cb), (1, 0x3fe2c112), (2, 0x3faea832), (3, 0x4008a45d), (4, 0x401969f5),
                  (31, 0x40192392), (127, 0x400d4999), (128, 0x3fee4a5a), (129, 0x400d665e), (255, 0x3ff6c791),
                  (256, 0x3ff47167), (299, 0x3fff07c1)]
FLOAT_NATIVE_MAX_SEED = [(0, 0xbe5d85bc), (1, 0xc08afaa4), (2, 0x40c38b1f), (3, 0xbe26ccb7), (4, 0xc09e63b4),
                         (31, 0x3e8643d3), (127, 0x3f8a57ab), (128, 0xbface662), (129, 0x3fdacd77),
                         (255, 0x3faa7c79), (256, 0xc0841dfe), (299, 0xbfdf7b23)]


class Normal(unittest.TestCase):
    @unittest.skipUnless(CLI and os.path.exists(CLI), "ONEPASS_CLI does not name the built onepass program")
    def test_same_outputs_as_the_cli_stream(self):
        # The CLI streams cpu::generate_normal's outputs through an erf mapping: the same map of
        # our doubles gives the same words, so the doubles are the C++ library's.
        for form in (3, 4):
            for n in (1, 31, 32, 33, 1000):
                x = onepass.normal(n, 77, coefficients=form)
                np.testing.assert_array_equal(erf_words(x), cli_gaussian_words(n, 77, form),
                                              err_msg="n=%d form=%d" % (n, form))

    def test_rounded_double_float32_is_float64_rounded_and_shapes(self):
        x = onepass.normal((3, 50), 9, mean=2.0, std=0.5)
        y = onepass.normal((3, 50), 9, mean=2.0, std=0.5, dtype=np.float32, method="rounded_double")
        self.assertEqual(x.shape, (3, 50))
        self.assertEqual(y.dtype, np.float32)
        np.testing.assert_array_equal(y, x.astype(np.float32))
        np.testing.assert_array_equal(onepass.normal(150, 9, mean=2.0, std=0.5), x.reshape(-1))
        self.assertEqual(onepass.normal(0, 1).shape, (0,))
        self.assertEqual(onepass.normal(0, 1, dtype=np.float32).shape, (0,))
        # rounded_double takes coefficients as float64 does (the forms differ only far below a float's ulp)
        x3 = onepass.normal(1000, 4, coefficients=3)
        np.testing.assert_array_equal(onepass.normal(1000, 4, dtype=np.float32, coefficients=3, method="rounded_double"),
                                      x3.astype(np.float32))

    def test_method_does_not_apply_to_float64(self):
        x = onepass.normal(300, 5, mean=1.0, std=2.0)
        for method in onepass.NORMAL_METHODS:
            np.testing.assert_array_equal(onepass.normal(300, 5, mean=1.0, std=2.0, method=method), x)
        self.assertEqual(onepass.NORMAL_METHODS, ("float_native", "rounded_double"))

    def test_float32_default_is_the_float_native_generator(self):
        # Bits of cpu::generate_normal(out, 300, mean, std, seed, default_float_table())
        # (equal to cpu::generate_normal(out, ..., method::float_native)), printed by a standalone
        # C++ program against the library: outputs 0..4, 31, round boundaries 127/128/129, 255/256,
        # and the last of the partial third round.
        for seed, mean, std, want in (
                (2024, 0.0, 1.0, FLOAT_NATIVE_2024),
                (9, 2.0, 0.5, FLOAT_NATIVE_9),
                (2 ** 64 - 1, -1.0, 3.0, FLOAT_NATIVE_MAX_SEED)):
            for method in ({}, {"method": "float_native"}):
                y = onepass.normal(300, seed, dtype=np.float32, mean=mean, std=std, **method)
                self.assertEqual(y.dtype, np.float32)
                got = [(i, int(y.view(np.uint32)[i])) for i, _ in want]
                self.assertEqual(got, want, "seed=%d mean=%g std=%g %s" % (seed, mean, std, method))
        # Shapes are the C order of the flat output; a shorter output is the prefix of a longer one
        # (every round is computed in full, only i < n written).
        y = onepass.normal(300, 2024, dtype=np.float32)
        np.testing.assert_array_equal(onepass.normal((3, 100), 2024, dtype=np.float32), y.reshape(3, 100))
        for n in (1, 4, 5, 127, 128, 129, 255, 256, 257):
            np.testing.assert_array_equal(onepass.normal(n, 2024, dtype=np.float32), y[:n], err_msg="n=%d" % n)

    def test_float_native_differs_from_rounded_double_and_between_seeds(self):
        n = 4096
        native = onepass.normal(n, 11, dtype=np.float32)
        rounded = onepass.normal(n, 11, dtype=np.float32, method="rounded_double")
        self.assertLess(np.count_nonzero(native == rounded), 8)  # two different generators
        self.assertLess(np.count_nonzero(native == onepass.normal(n, 12, dtype=np.float32)), 8)
        self.assertLess(np.count_nonzero(native == onepass.normal(n, 11 + 2 ** 32, dtype=np.float32)), 8)
        np.testing.assert_array_equal(native, onepass.normal(n, 11, dtype=np.float32))  # deterministic
        # mean and std: x = fma(c, W, fma(b, P1, fma(a, P0, mu))); std = 2 doubles every output exactly
        np.testing.assert_array_equal(onepass.normal(n, 11, dtype=np.float32, std=2.0), 2 * native)
        self.assertTrue(np.all(onepass.normal(n, 11, dtype=np.float32, std=0.0, mean=1.5) == np.float32(1.5)))

    def test_float_native_moments(self):
        # 2^20 samples: mean and variance within 5 standard errors (sd/sqrt(n), sd^2 sqrt(2/n)).
        n = 1 << 20
        for seed, mean, std in ((2024, 0.0, 1.0), (7, 2.0, 0.5), (2 ** 64 - 1, -3.0, 4.0)):
            x = onepass.normal(n, seed, dtype=np.float32, mean=mean, std=std).astype(np.float64)
            self.assertLess(abs(x.mean() - mean), 5 * std / n ** 0.5, "seed=%d" % seed)
            self.assertLess(abs(x.var() - std ** 2), 5 * std ** 2 * (2 / n) ** 0.5, "seed=%d" % seed)
            z = (x - mean) / std
            self.assertLess(abs((z ** 3).mean()), 5 * (15 / n) ** 0.5, "seed=%d" % seed)  # E z^6 = 15
            self.assertLess(abs((z ** 4).mean() - 3), 5 * (96 / n) ** 0.5, "seed=%d" % seed)  # E z^8 - 9 = 96

    def test_moments(self):
        x = onepass.normal(1 << 20, 2024)
        self.assertLess(abs(x.mean()), 6 / 2 ** 10)
        self.assertLess(abs(x.var() - 1), 6 * (2 / 2 ** 20) ** 0.5)

    def test_bad_arguments(self):
        for kwargs, error, needle in (({"dtype": np.int32}, TypeError, "dtype"), ({"std": -1.0}, ValueError, "std"),
                                      ({"mean": float("nan")}, ValueError, "mean"),
                                      ({"coefficients": 5}, ValueError, "coefficients"),
                                      ({"method": "float"}, ValueError, "method"),
                                      ({"method": None}, ValueError, "method"),
                                      ({"method": 0}, ValueError, "method"),
                                      ({"method": "rounded_double", "dtype": np.float32, "coefficients": 5},
                                       ValueError, "coefficients"),
                                      ({"method": "bad", "dtype": np.float64}, ValueError, "method"),
                                      # the float-native generator has its own fixed form and float range
                                      ({"dtype": np.float32, "coefficients": 3}, ValueError, "coefficients"),
                                      ({"dtype": np.float32, "mean": 1e39}, ValueError, "mean"),
                                      ({"dtype": np.float32, "std": 1e31}, ValueError, "std")):
            with self.assertRaises(error) as ctx:
                onepass.normal(4, 1, **kwargs)
            self.assertIn(needle, str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            onepass.normal(4, 1, method="gaussian")
        self.assertIn("float_native", str(ctx.exception))
        self.assertIn("rounded_double", str(ctx.exception))
        # the float-native limits do not apply to float64 or to rounded_double
        self.assertEqual(onepass.normal(4, 1, std=1e31).shape, (4,))
        self.assertEqual(onepass.normal(4, 1, dtype=np.float32, std=1e31, method="rounded_double").dtype, np.float32)
        with self.assertRaises(ValueError):
            onepass.normal((-1,), 1)
        with self.assertRaises(ValueError):
            onepass.normal(4, -1)


class Segmented(unittest.TestCase):
    def test_each_row_is_the_single_shuffle_with_its_segment_seed(self):
        for rows, n in ((1, 1), (5, 17), (64, 256), (3, 0), (0, 4)):
            x = np.arange(rows * n, dtype=np.float64).reshape(rows, n)
            y = onepass.segmented_shuffle(x, 2024)
            for s in range(rows):
                np.testing.assert_array_equal(y[s], onepass.shuffle(x[s], onepass.segment_seed(2024, s)))
            np.testing.assert_array_equal(onepass.segmented_unshuffle(y, 2024), x)

    def test_offsets_ragged_and_tail(self):
        rng = np.random.default_rng(3)
        lengths = [0, 1, 2, 3, 100, 0, 513]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        x = rng.integers(0, 2 ** 31, size=int(offsets[-1]) + 5).astype(np.uint32)  # 5 items past the end
        y = onepass.segmented_shuffle(x, 9, offsets=offsets)
        for s, (a, b) in enumerate(zip(offsets[:-1], offsets[1:])):
            np.testing.assert_array_equal(y[a:b], onepass.shuffle(x[a:b], onepass.segment_seed(9, s)))
        np.testing.assert_array_equal(y[offsets[-1]:], x[offsets[-1]:])
        np.testing.assert_array_equal(onepass.segmented_unshuffle(y, 9, offsets=offsets), x)
        # The rows form equals the offsets form with equal lengths.
        grid = rng.integers(0, 100, size=(6, 7)).astype(np.int16)
        np.testing.assert_array_equal(onepass.segmented_shuffle(grid, 1).reshape(-1),
                                      onepass.segmented_shuffle(grid.reshape(-1), 1, offsets=np.arange(0, 43, 7)))

    def test_neighbouring_segments_are_independent_chi_square(self):
        # Joint outcomes of the permutations of two neighbouring 3-item rows over many rows:
        # 36 cells, each expected rows / 36 times (chi-square, 35 degrees of freedom).
        rows = 36 * 400
        x = np.tile(np.arange(3, dtype=np.uint8), (rows, 1))
        y = onepass.segmented_shuffle(x, 77)
        code = y[:, 0] * 3 + y[:, 1]  # the permutation of a row, from its first two items
        index = {v: i for i, v in enumerate(sorted(set((p[0] * 3 + p[1]) for p in
                                                         [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)])))}
        single = np.array([index[int(c)] for c in code])
        pairs = single[0::2] * 6 + single[1::2]
        counts = np.bincount(pairs, minlength=36)
        expected = len(pairs) / 36
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        self.assertLess(chi2, 66.6)  # the 0.999 quantile of chi-square with 35 degrees of freedom

    def test_bad_arguments(self):
        x = np.arange(10)
        for kwargs, error, needle in (({"offsets": [0, 5, 3]}, ValueError, "offsets"),
                                      ({"offsets": [1, 5]}, ValueError, "offsets"),
                                      ({"offsets": [0, 11]}, ValueError, "offsets")):
            with self.assertRaises(error) as ctx:
                onepass.segmented_shuffle(x, 1, **kwargs)
            self.assertIn(needle, str(ctx.exception))
        with self.assertRaises(ValueError):
            onepass.segmented_shuffle(x, 1)  # 1-d without offsets
        rec = np.zeros((2, 3), dtype=[("a", np.int8), ("b", np.int16)])  # 3-byte items
        with self.assertRaises(TypeError):
            onepass.segmented_shuffle(rec, 1)


class Sort(unittest.TestCase):
    def test_keys_and_pairs_against_numpy_stable_sort(self):
        rng = np.random.default_rng(1)
        for dtype in (np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64):
            for n in (0, 1, 2, 1000, 70001):
                keys = (rng.integers(-50, 50, size=n) if np.dtype(dtype).kind != "f"
                        else rng.normal(size=n).round(1)).astype(dtype)
                # No zeros among float keys: NumPy puts -0.0 and +0.0 in input order, ours in
                # IEEE totalOrder (-0.0 first; tested below).
                keys[keys == 0] = 1
                order = np.argsort(keys, kind="stable")
                np.testing.assert_array_equal(onepass.sort(keys), keys[order])
                np.testing.assert_array_equal(onepass.argsort(keys), order)
                values = rng.normal(size=n)  # 8-byte values
                k, v = onepass.sort(keys, values)
                np.testing.assert_array_equal(k, keys[order])
                np.testing.assert_array_equal(v, values[order])
                v32 = np.arange(n, dtype=np.float32)
                np.testing.assert_array_equal(onepass.sort(keys, v32)[1], v32[order])

    def test_descending_is_stable_and_bits(self):
        keys = np.array([2, 1, 2, 3, 1], dtype=np.uint32)
        # Descending keeps ties in input order (not the reverse of the ascending result).
        np.testing.assert_array_equal(onepass.argsort(keys, descending=True), [3, 0, 2, 1, 4])
        k = np.array([0x10, 0x01, 0x11, 0x00], dtype=np.uint32)
        np.testing.assert_array_equal(onepass.argsort(k, begin_bit=4), [1, 3, 0, 2])  # by bits 4.. only
        # IEEE totalOrder on request: -0.0 before +0.0; by default they are equal (input order).
        z = np.array([0.0, -0.0], dtype=np.float64)
        np.testing.assert_array_equal(onepass.argsort(z, float_order="total"), [1, 0])
        np.testing.assert_array_equal(onepass.argsort(z), [0, 1])

    def test_float_order_numpy_is_numpys_order(self):
        # NaNs of both signs and several payloads, -0.0 and +0.0, infinities and duplicates.
        rng = np.random.default_rng(5)
        for dtype, word in ((np.float32, np.uint32), (np.float64, np.uint64)):
            for n in (1, 2, 17, 5000, 100003):  # 100003: digits of 11 bits, several blocks
                x = rng.integers(-3, 4, size=n).astype(dtype)
                special = rng.integers(0, 6, size=n)
                x[special == 0] = -0.0
                x[special == 1] = np.inf * rng.choice([-1, 1], size=int((special == 1).sum()))
                bits = x.view(word)
                nan_bits = np.array([np.nan], dtype=dtype).view(word)[0]
                sign = word(1) << word(8 * np.dtype(dtype).itemsize - 1)
                payloads = rng.integers(1, 1000, size=n).astype(word)
                bits[special == 2] = nan_bits | sign  # negative quiet NaN (what x86 arithmetic makes)
                bits[special == 3] = nan_bits | payloads[special == 3]  # positive NaNs, other payloads
                msg = "%s n=%d" % (np.dtype(dtype).name, n)
                order = np.argsort(x, kind="stable")
                np.testing.assert_array_equal(onepass.argsort(x), order, msg)
                np.testing.assert_array_equal(onepass.sort(x).view(word), x[order].view(word), msg)  # bits kept
                values = np.arange(n, dtype=np.int64) * 3
                k, v = onepass.sort(x, values)
                np.testing.assert_array_equal(k.view(word), x[order].view(word), msg)
                np.testing.assert_array_equal(v, values[order], msg)
                # Descending: NaNs first (input order), then the numbers from the largest, ties
                # (-0.0 == +0.0 included) in input order.
                want = sorted(range(n), key=lambda i: (0, 0.0) if np.isnan(x[i]) else (1, -float(x[i])))
                np.testing.assert_array_equal(onepass.argsort(x, descending=True), want, msg)
                np.testing.assert_array_equal(onepass.sort(x, descending=True).view(word), x[want].view(word), msg)
                # totalOrder on request: the keys' order-preserving bits, ascending.
                tot = onepass.argsort(x, float_order="total")
                ob = bits.astype(np.uint64) ^ np.where(bits & sign, ~np.uint64(0) >> np.uint64(64 - 8 * x.itemsize),
                                                       np.uint64(sign))
                self.assertTrue(np.all(np.diff(ob[tot].astype(np.float64)) >= 0), msg)

    def test_float_order_fast_path_and_integers(self):
        x = np.array([2.5, np.nan, 1.0, np.inf], dtype=np.float32)  # only the positive quiet NaN: no rewrite
        np.testing.assert_array_equal(onepass.sort(x), np.sort(x))
        np.testing.assert_array_equal(onepass.argsort(x), [2, 0, 3, 1])
        i = np.array([3, -1, 2], dtype=np.int32)  # integer keys ignore float_order
        np.testing.assert_array_equal(onepass.sort(i, float_order="total"), onepass.sort(i))

    def test_bad_arguments(self):
        for call, error, needle in (
                (lambda: onepass.sort(np.zeros(3), float_order="ieee"), ValueError, "float_order"),
                (lambda: onepass.argsort(np.zeros(3), float_order=None), ValueError, "float_order"),
                (lambda: onepass.sort(np.zeros(3, dtype=np.int16)), TypeError, "keys"),
                (lambda: onepass.sort(np.zeros((2, 2), dtype=np.int32)), ValueError, "keys"),
                (lambda: onepass.sort(np.zeros(3, dtype=np.int32), end_bit=33), ValueError, "end_bit"),
                (lambda: onepass.sort(np.zeros(3, dtype=np.int32), begin_bit=8, end_bit=8), ValueError, "begin_bit"),
                (lambda: onepass.sort(np.zeros(3, dtype=np.int32), np.zeros(2)), ValueError, "values"),
                (lambda: onepass.sort(np.zeros(3, dtype=np.int32), np.zeros(3, dtype=np.int16)), TypeError,
                 "values")):
            with self.assertRaises(error) as ctx:
                call()
            self.assertIn(needle, str(ctx.exception))


if __name__ == "__main__":
    unittest.main()


class TypeStubs(unittest.TestCase):
    """python/onepass/_onepass.pyi (nanobind's stubgen, `make python-stubs`) lists every public
    function and constant of the CPU extension, so editors complete it."""

    def test_stub_names_every_extension_member(self):
        from onepass import _onepass
        stub_path = os.path.join(os.path.dirname(onepass.__file__), "_onepass.pyi")
        self.assertTrue(os.path.exists(stub_path), "no _onepass.pyi beside the package (make python-stubs)")
        with open(stub_path, encoding="utf-8") as f:
            stub = f.read()
        members = [n for n in dir(_onepass) if not n.startswith("_")]
        self.assertTrue(members)
        for name in members:
            self.assertTrue(("def %s(" % name) in stub or ("\n%s: " % name) in stub or ("class %s" % name) in stub,
                            "%s of onepass._onepass is missing from _onepass.pyi: run make python-stubs" % name)


class ReadOnlyAndTypedArguments(unittest.TestCase):
    """Inputs that are only read may be read-only (np.frombuffer, memmap mode 'r',
    flags.writeable = False); descending must be a bool; x None is named."""

    def test_read_only_inputs_are_accepted(self):
        import tempfile
        x = np.arange(1000, dtype=np.int64) * 3
        frozen = x.copy()
        frozen.flags.writeable = False
        from_buffer = np.frombuffer(x.tobytes(), dtype=np.int64)
        self.assertFalse(from_buffer.flags.writeable)
        with tempfile.NamedTemporaryFile(suffix=".bin") as f:
            x.tofile(f.name)
            mapped = np.memmap(f.name, dtype=np.int64, mode="r")
            for ro in (frozen, from_buffer, mapped):
                np.testing.assert_array_equal(onepass.shuffle(ro, 5), onepass.shuffle(x, 5))
                np.testing.assert_array_equal(onepass.unshuffle(onepass.shuffle(ro, 5), 5), x)
                np.testing.assert_array_equal(onepass.sort(ro), np.sort(x))
            del mapped
        rows = np.arange(24, dtype=np.int32).reshape(4, 6)
        frozen_rows = rows.copy()
        frozen_rows.flags.writeable = False
        np.testing.assert_array_equal(onepass.segmented_shuffle(frozen_rows, 3), onepass.segmented_shuffle(rows, 3))
        np.testing.assert_array_equal(onepass.segmented_unshuffle(frozen_rows, 3),
                                      onepass.segmented_unshuffle(rows, 3))

    def test_descending_must_be_a_bool(self):
        keys = np.array([3, 1, 2], dtype=np.uint32)
        for bad in ("yes", 1, None, 0.0):
            with self.assertRaisesRegex(TypeError, "descending"):
                onepass.sort(keys, descending=bad)
            with self.assertRaisesRegex(TypeError, "descending"):
                onepass.argsort(keys, descending=bad)
        np.testing.assert_array_equal(onepass.sort(keys, descending=np.bool_(True)), [3, 2, 1])

    def test_none_is_named(self):
        with self.assertRaisesRegex(TypeError, "x: must be an array.*None"):
            onepass.shuffle(None, seed=1)


class BigEndian(unittest.TestCase):
    def test_big_endian_keys_sort_like_native_ones(self):
        for dt in (np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64):
            native = (np.arange(100) * 37 % 101 - 50).astype(dt)
            big = native.astype(np.dtype(dt).newbyteorder(">"))
            np.testing.assert_array_equal(onepass.sort(big), np.sort(native))
            np.testing.assert_array_equal(onepass.argsort(big), onepass.argsort(native))
            keys, values = onepass.sort(big, big.astype(np.dtype(np.int64).newbyteorder(">")))
            np.testing.assert_array_equal(keys, np.sort(native))
            np.testing.assert_array_equal(values.astype(np.int64), np.sort(native).astype(np.int64))
