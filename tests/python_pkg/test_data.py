"""onepass.data: epoch_indices and DistributedShuffleSampler (issue 28 §2).

The order is checked against a pure-Python reference of the whole chain (std::mt19937_64
key schedule, VariablePhilox, cycle walking, epoch_seed); the sampler against torch's
DistributedSampler rules (torch itself when importable, else the rules written out here):
padding / drop_last, P-invariance for P = 1..8, resumption on another P, state, errors.
GPU tests are skipped, with the reason, without the CUDA module or a device.

Run by `make test` (target test-python-pkg) with PYTHONPATH at the built package."""

import math
import os
import subprocess
import sys
import unittest

import numpy as np

import onepass
from onepass import _gpu
from onepass.data import DistributedShuffleSampler, epoch_indices, epoch_seed

M64 = 2 ** 64 - 1


# ---------------------------------------------------------------------------------------
# Pure-Python reference of the order (slow; small N only).

def mt19937_64(seed):
    """std::mt19937_64(seed): yields its 64-bit outputs."""
    n, m = 312, 156
    mt = [seed & M64]
    for i in range(1, n):
        mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & M64)
    index = n
    while True:
        if index >= n:
            for i in range(n):
                x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % n] & 0x7FFFFFFF)
                mt[i] = mt[(i + m) % n] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
            index = 0
        x = mt[index]
        index += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        x ^= x >> 43
        yield x & M64


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def reference_epoch_seed(seed, epoch):
    """counter_hash(seed, "epochsee")(epoch) of onepass/random/counter_hash.hpp."""
    key = mix64((mix64(seed ^ 0x6A09E667F3BCC909) + 0x65706F6368736565 * 0xD1342543DE82EF95) & M64)
    return mix64((key + (epoch + 1) * 0x9E3779B97F4A7C15) & M64)


def reference_sigma(n, seed, rounds=24):
    """sigma of walking_permutation::for_length(n, seed, rounds), as a function."""
    b = max(4, (n - 1).bit_length())
    left, right = b // 2, b - b // 2
    d = right - left
    lmask, rmask = (1 << left) - 1, (1 << right) - 1
    g = mt19937_64(seed)
    keys = [next(g) & 0xFFFFFFFF for _ in range(rounds)]

    def f(x):
        l, r = (x >> right) & lmask, x & rmask
        for k in keys:
            product = 0xD2B74407B1CE6E93 * l
            odd = (r >> left) if d else 0
            l, r = ((product >> 32) ^ k ^ r) & lmask, (((product & 0xFFFFFFFF) << d) | odd) & rmask
        return (l << right) | r

    # The walked bijection is twist(f(y)): 0 and 1 swapped when bit 31 of round key 0 is set
    # (walking_permutation.hpp, "Parity").
    swap = (keys[0] >> 31) & 1

    def step(y):
        y = f(y)
        return y ^ swap if y < 2 else y

    def sigma(j):
        y = step(j)
        while y >= n:
            y = step(y)
        return y
    return sigma


def global_order(n, seed, epoch, length, shuffle=True):
    """Positions 0 .. length-1 of epoch's global order (p -> sigma_e(p mod n))."""
    if not length:
        return []
    base = epoch_indices(n, seed, epoch).tolist() if shuffle else list(range(n))
    return [base[p % n] for p in range(length)]


def torch_rule(n, num_replicas, rank, drop_last):
    """The positions rank `rank` of torch.utils.data.DistributedSampler reads for a dataset
    of n (its __init__ / __iter__ written out, on the identity order)."""
    if drop_last and n % num_replicas != 0:
        num_samples = math.ceil((n - num_replicas) / num_replicas)
    else:
        num_samples = math.ceil(n / num_replicas)
    total = num_samples * num_replicas
    indices = list(range(n))
    if not drop_last:
        padding = total - len(indices)
        if padding <= len(indices):
            indices += indices[:padding]
        else:
            indices += (indices * math.ceil(padding / len(indices)))[:padding]
    else:
        indices = indices[:total]
    return indices[rank:total:num_replicas]


def interleave(per_rank):
    """Rank sequences (equal lengths) merged in global-position order."""
    out = []
    for k in range(len(per_rank[0]) if per_rank else 0):
        out.extend(seq[k] for seq in per_rank)
    return out


def torch_or_none():
    try:
        import torch  # noqa: F401
        from torch.utils.data import DistributedSampler
        return DistributedSampler
    except ImportError:
        return None


SIZES = [1, 2, 5, 17, 1000, 2 ** 16 + 1]


class Reference(unittest.TestCase):
    def test_mt19937_64_reference(self):
        g = mt19937_64(5489)
        for _ in range(9999):
            next(g)
        self.assertEqual(next(g), 9981545732273789042)  # the C++ standard's check value

    def test_epoch_seed_equals_reference(self):
        for seed in (0, 1, 12345, M64):
            for epoch in (0, 1, 2, 1000, M64):
                self.assertEqual(epoch_seed(seed, epoch), reference_epoch_seed(seed, epoch))
        self.assertEqual(onepass.data.epoch_seed(3, 4), int(onepass._onepass.epoch_seed(3, 4)))

    def test_epoch_indices_equal_reference(self):
        for n in (1, 2, 3, 9, 16, 17, 100, 257):
            for seed in (0, 7, M64):
                for epoch in (0, 3):
                    for rounds in (24, 5):
                        sigma = reference_sigma(n, reference_epoch_seed(seed, epoch), rounds)
                        want = [sigma(j) for j in range(n)]
                        got = epoch_indices(n, seed, epoch, rounds=rounds)
                        self.assertEqual(got.dtype, np.int64)
                        self.assertEqual(got.tolist(), want, "n=%d seed=%d epoch=%d rounds=%d"
                                         % (n, seed, epoch, rounds))


class EpochIndices(unittest.TestCase):
    def test_every_index_once_per_epoch(self):
        for n in SIZES:
            for seed in (0, 99):
                orders = []
                for epoch in range(3):
                    p = epoch_indices(n, seed, epoch)
                    self.assertEqual(p.shape, (n,))
                    self.assertTrue(np.array_equal(np.sort(p), np.arange(n)), "n=%d epoch=%d" % (n, epoch))
                    orders.append(p.tolist())
                if n >= 17:
                    self.assertNotEqual(orders[0], orders[1])
                    self.assertNotEqual(orders[1], orders[2])

    def test_slices_equal_the_whole_order(self):
        for n in (5, 17, 1000, 2 ** 16 + 1):
            full = epoch_indices(n, 4, 2)
            extended = np.concatenate([full, full, full])
            for j in (0, 1, n // 2, n - 1):
                self.assertEqual(epoch_indices(n, 4, 2, j, j + 1).tolist(), [int(full[j])])
            for start, stop, step in ((0, n, 1), (3, n, 7), (1, 2 * n + 3, 3), (n - 1, 3 * n, n), (2, 2, 1),
                                      (5, 1, 1)):
                got = epoch_indices(n, 4, 2, start, stop, step=step)
                self.assertEqual(got.tolist(), extended[start:stop:step].tolist(), (n, start, stop, step))

    def test_large_sizes(self):
        # A slice of an order over 2^63 and 10^9 items: values in range, deterministic.
        for n in (10 ** 9, 2 ** 63, 2 ** 62 + 1):
            a = epoch_indices(n, 1, 0, 10 ** 6, 10 ** 6 + 1000)
            self.assertEqual(a.shape, (1000,))
            self.assertTrue(((a.astype(np.uint64) < np.uint64(n)) & (a >= 0)).all() if n < 2 ** 63 else
                            (a.view(np.uint64) < np.uint64(n)).all())
            self.assertEqual(len(set(a.tolist())), 1000)
            self.assertTrue(np.array_equal(a, epoch_indices(n, 1, 0, 10 ** 6, 10 ** 6 + 1000)))
            self.assertEqual(epoch_indices(n, 1, 0, 10 ** 6 + 17, 10 ** 6 + 18)[0], a[17])

    def test_empty(self):
        self.assertEqual(epoch_indices(0).shape, (0,))
        self.assertEqual(epoch_indices(10, 0, 0, 4, 4).shape, (0,))
        self.assertEqual(epoch_indices(10, 0, 0, 4, 4).dtype, np.int64)

    def test_errors_name_the_argument(self):
        cases = [
            (TypeError, "num_samples", lambda: epoch_indices(2.5)),
            (TypeError, "num_samples", lambda: epoch_indices(True)),
            (ValueError, "num_samples", lambda: epoch_indices(-1)),
            (ValueError, "num_samples", lambda: epoch_indices(2 ** 63 + 1)),
            (ValueError, "num_samples", lambda: epoch_indices(0, 0, 0, 0, 1)),
            (ValueError, "seed", lambda: epoch_indices(5, -1)),
            (TypeError, "seed", lambda: epoch_indices(5, "1")),
            (ValueError, "epoch", lambda: epoch_indices(5, 0, 2 ** 64)),
            (ValueError, "start", lambda: epoch_indices(5, 0, 0, -1)),
            (ValueError, "stop", lambda: epoch_indices(5, 0, 0, 0, -2)),
            (ValueError, "stop", lambda: epoch_indices(5, 0, 0, 2 ** 64 - 2, 2 ** 64 + 1)),
            (ValueError, "step", lambda: epoch_indices(5, 0, 0, 0, 5, step=0)),
            (ValueError, "rounds", lambda: epoch_indices(5, rounds=0)),
            (ValueError, "device", lambda: epoch_indices(5, device="tpu")),
            (ValueError, "like", lambda: epoch_indices(5, like="torch")),
            (ValueError, "seed", lambda: epoch_seed(-1, 0)),
            (ValueError, "epoch", lambda: epoch_seed(0, -1)),
        ]
        for exc, name, call in cases:
            with self.assertRaises(exc, msg=name) as ctx:
                call()
            self.assertIn(name, str(ctx.exception))


def ranks(n, p, **kw):
    return [DistributedShuffleSampler(n, num_replicas=p, rank=r, **kw) for r in range(p)]


class Sampler(unittest.TestCase):
    def test_torch_padding_and_drop_last_pattern(self):
        torch_sampler = torch_or_none()
        for n in (0, 1, 2, 3, 5, 7, 17, 100, 1001):
            for p in range(1, 9):
                for drop_last in (False, True):
                    for shuffle in (True, False):
                        order = epoch_indices(n, 5, 1).tolist() if shuffle else list(range(n))
                        for r in range(p):
                            s = DistributedShuffleSampler(n, num_replicas=p, rank=r, shuffle=shuffle, seed=5,
                                                          drop_last=drop_last)
                            s.set_epoch(1)
                            positions = torch_rule(n, p, r, drop_last)
                            if torch_sampler is not None:
                                t = torch_sampler(list(range(n)), num_replicas=p, rank=r, shuffle=False,
                                                  drop_last=drop_last)
                                self.assertEqual(list(t), positions)
                                self.assertEqual((len(t), t.total_size), (len(s), s.total_size))
                            got = list(s)
                            msg = "n=%d P=%d r=%d drop_last=%s shuffle=%s" % (n, p, r, drop_last, shuffle)
                            self.assertEqual(got, [order[i] for i in positions], msg)
                            self.assertEqual(len(s), len(got), msg)
                            self.assertEqual(s.num_samples, len(got), msg)
                            self.assertEqual(s.total_size, s.num_samples * p, msg)
                            self.assertTrue(all(type(v) is int for v in got))

    def test_global_order_does_not_depend_on_p(self):
        for n in (1, 5, 17, 1000, 2 ** 16 + 1):
            for drop_last in (False, True):
                for p in range(1, 9):
                    samplers = ranks(n, p, seed=11, drop_last=drop_last, batch_size=97)
                    for s in samplers:
                        s.set_epoch(3)
                    merged = interleave([list(s) for s in samplers])
                    self.assertEqual(len(merged), samplers[0].total_size)
                    self.assertEqual(merged, global_order(n, 11, 3, len(merged)),
                                     "n=%d P=%d drop_last=%s" % (n, p, drop_last))
                    if not drop_last:
                        self.assertEqual(set(merged), set(range(n)))
                    else:
                        self.assertEqual(len(set(merged)), len(merged))

    def test_batch_size_does_not_change_the_order(self):
        want = list(DistributedShuffleSampler(5000, num_replicas=3, rank=2, seed=1))
        for batch_size in (1, 7, 1666, 1667, 10 ** 6):
            s = DistributedShuffleSampler(5000, num_replicas=3, rank=2, seed=1, batch_size=batch_size)
            self.assertEqual(list(s), want)
            arrays = list(s.batches())
            self.assertTrue(all(len(a) <= batch_size for a in arrays))
            self.assertEqual(np.concatenate(arrays).tolist(), want)

    def test_epochs_and_seeds(self):
        s = DistributedShuffleSampler(1000, seed=3)
        first = list(s)
        self.assertEqual(list(s), first)  # no set_epoch: the same order, as torch
        s.set_epoch(1)
        second = list(s)
        self.assertNotEqual(first, second)
        self.assertEqual(sorted(second), list(range(1000)))
        self.assertEqual(second, epoch_indices(1000, 3, 1).tolist())
        self.assertNotEqual(list(DistributedShuffleSampler(1000, seed=4)), first)
        self.assertEqual(list(DistributedShuffleSampler(1000, shuffle=False)), list(range(1000)))

    def test_dataset_object_and_repr(self):
        s = DistributedShuffleSampler(list(range(10)), num_replicas=2, rank=1)
        self.assertEqual(len(s), 5)
        self.assertEqual(s.dataset, list(range(10)))
        self.assertIn("num_replicas=2", repr(s))

    def test_defaults_without_torch_distributed(self):
        s = DistributedShuffleSampler(10)
        self.assertEqual((s.num_replicas, s.rank), (1, 0))

    def test_errors_name_the_argument(self):
        cases = [
            (TypeError, "dataset_or_num_samples", lambda: DistributedShuffleSampler(object())),
            (ValueError, "dataset_or_num_samples", lambda: DistributedShuffleSampler(-3)),
            (ValueError, "num_replicas", lambda: DistributedShuffleSampler(10, num_replicas=0, rank=0)),
            (ValueError, "rank", lambda: DistributedShuffleSampler(10, num_replicas=2, rank=2)),
            (ValueError, "rank", lambda: DistributedShuffleSampler(10, num_replicas=2, rank=-1)),
            (TypeError, "rank", lambda: DistributedShuffleSampler(10, num_replicas=2, rank=0.5)),
            (TypeError, "shuffle", lambda: DistributedShuffleSampler(10, shuffle="yes")),
            (TypeError, "drop_last", lambda: DistributedShuffleSampler(10, drop_last=1)),
            (ValueError, "seed", lambda: DistributedShuffleSampler(10, seed=-1)),
            (ValueError, "batch_size", lambda: DistributedShuffleSampler(10, batch_size=0)),
            (ValueError, "rounds", lambda: DistributedShuffleSampler(10, rounds=65)),
            (ValueError, "device", lambda: DistributedShuffleSampler(10, device="cuda:x")),
            (ValueError, "epoch", lambda: DistributedShuffleSampler(10).set_epoch(-1)),
        ]
        for exc, name, call in cases:
            with self.assertRaises(exc, msg=name) as ctx:
                call()
            self.assertIn(name, str(ctx.exception))


def consume(sampler, k):
    """The first k indices of a fresh iteration (the iterator is left open)."""
    it = iter(sampler)
    return [next(it) for _ in range(k)], it


class Resumption(unittest.TestCase):
    def check_resume(self, n, drop_last, shuffle, k, p_old, p_new, seed=21, epoch=2):
        old = ranks(n, p_old, seed=seed, drop_last=drop_last, shuffle=shuffle, batch_size=13)
        for s in old:
            s.set_epoch(epoch)
        consumed = [consume(s, k)[0] for s in old]
        states = [s.state_dict() for s in old]
        self.assertTrue(all(st == states[0] for st in states), states)
        g = states[0]["global_position"]
        self.assertEqual(g, k * p_old)
        self.assertEqual(states[0]["epoch"], epoch)
        new = ranks(n, p_new, seed=0, drop_last=drop_last, shuffle=not shuffle)  # the state overrides both
        for s in new:
            s.load_state_dict(dict(states[0]))
        remaining = max(0, n - g)
        per = remaining // p_new if drop_last else -(-remaining // p_new)
        for s in new:
            # A state with nothing left leaves the epoch alone (a loader sets the next one);
            # setting the state's epoch again shows it is empty.
            self.assertEqual(s.epoch, epoch if per else 0)
            if not per:
                s.set_epoch(epoch)
            self.assertEqual(len(s), per)
        rest = [list(s) for s in new]
        self.assertTrue(all(len(r) == per for r in rest))
        merged = interleave(consumed) + interleave(rest)
        self.assertEqual(merged, global_order(n, seed, epoch, len(merged), shuffle),
                         "n=%d drop_last=%s k=%d P %d -> %d" % (n, drop_last, k, p_old, p_new))
        if not drop_last:
            self.assertEqual(set(merged), set(range(n)))
        else:
            self.assertEqual(len(set(merged)), len(merged))
        # The resumed epoch's state counts from g; the next epoch is whole again.
        self.assertEqual(new[0].state_dict()["global_position"], g + per * p_new)
        for s in new:
            s.set_epoch(epoch + 1)
            self.assertEqual(len(s), s.num_samples)
        self.assertEqual(interleave([list(s) for s in new]),
                         global_order(n, seed, epoch + 1, new[0].total_size, shuffle))

    def test_p3_to_p2_and_p5(self):
        for n in (17, 100, 1001, 2 ** 16 + 1):
            for drop_last in (False, True):
                for shuffle in (True, False):
                    p_old = 3
                    full = (n // p_old) if drop_last else -(-n // p_old)
                    for k in (0, 1, full // 2, full - 1, full):
                        for p_new in (2, 5, 3, 1, 8):
                            self.check_resume(n, drop_last, shuffle, k, p_old, p_new)

    def test_len_and_state_before_and_after(self):
        s = DistributedShuffleSampler(100, num_replicas=4, rank=1)
        self.assertEqual(s.state_dict()["global_position"], 0)
        s.set_epoch(5)
        seen, it = consume(s, 10)
        self.assertEqual(s.state_dict()["global_position"], 40)
        self.assertEqual(len(s), 25)
        t = DistributedShuffleSampler(100, num_replicas=4, rank=1)
        t.load_state_dict(s.state_dict())
        self.assertEqual(len(t), 15)
        self.assertEqual(list(t), list(it))
        self.assertEqual(len(t), 25)  # the resumed iteration ran out: the epoch is whole again
        self.assertEqual(t.state_dict()["global_position"], 100)

    def test_lazy_iterators_do_not_consume_a_loaded_state(self):
        # torchdata's StatefulDataLoader makes iter(sampler) several times around
        # load_state_dict before it reads one: only the iterator that runs resumes.
        s = DistributedShuffleSampler(50, num_replicas=2, rank=0, seed=2)
        want = list(s)
        state = {"version": 1, "seed": 2, "epoch": 0, "num_samples": 50, "global_position": 20, "shuffle": True,
                 "rounds": 24}
        t = DistributedShuffleSampler(50, num_replicas=2, rank=0, seed=2)
        unused = iter(t)
        t.load_state_dict(state)
        unused_too = iter(t)
        self.assertEqual(list(iter(t)), want[10:])
        del unused, unused_too

    def test_state_at_the_end_of_an_epoch(self):
        s = DistributedShuffleSampler(10, num_replicas=3, rank=0)
        s.set_epoch(4)
        list(s)
        state = s.state_dict()
        self.assertEqual((state["epoch"], state["global_position"]), (4, 12))
        # StatefulDataLoader order: set_epoch(5), then the load: epoch 5 runs whole.
        t = DistributedShuffleSampler(10, num_replicas=3, rank=0)
        t.set_epoch(5)
        t.load_state_dict(state)
        self.assertEqual(t.epoch, 5)
        self.assertEqual(list(t), epoch_indices(10, 0, 5, 0, 12, step=3).tolist())
        # Loaded, then set_epoch(4): nothing left of epoch 4.
        u = DistributedShuffleSampler(10, num_replicas=3, rank=0)
        u.load_state_dict(state)
        u.set_epoch(4)
        self.assertEqual((len(u), list(u)), (0, []))

    def test_set_epoch_drops_a_state_of_another_epoch(self):
        s = DistributedShuffleSampler(10, num_replicas=2, rank=1)
        s.load_state_dict({"version": 1, "seed": 0, "epoch": 1, "num_samples": 10, "global_position": 4,
                           "shuffle": True, "rounds": 24})
        self.assertEqual((s.epoch, len(s)), (1, 3))
        s.set_epoch(2)
        self.assertEqual(list(s), epoch_indices(10, 0, 2, 1, 10, step=2).tolist())

    def test_load_errors(self):
        s = DistributedShuffleSampler(10)
        good = s.state_dict()
        cases = [
            (TypeError, "state", [1, 2]),
            (ValueError, "global_position", {k: v for k, v in good.items() if k != "global_position"}),
            (ValueError, "version", dict(good, version=2)),
            (ValueError, "num_samples", dict(good, num_samples=11)),
            (ValueError, "global_position", dict(good, global_position=-1)),
            (TypeError, "shuffle", dict(good, shuffle=1)),
            (ValueError, "rounds", dict(good, rounds=0)),
            (ValueError, "seed", dict(good, seed=-5)),
        ]
        for exc, name, state in cases:
            with self.assertRaises(exc, msg=name) as ctx:
                s.load_state_dict(state)
            self.assertIn(name, str(ctx.exception))


class WithTorchdata(unittest.TestCase):
    """torchdata's StatefulDataLoader saves and restores the sampler through its state."""

    def test_stateful_dataloader_resumes_on_another_world_size(self):
        try:
            from torchdata.stateful_dataloader import StatefulDataLoader
        except ImportError:
            self.skipTest("torchdata (StatefulDataLoader) is not importable")
        n, seed = 103, 8

        def loader(p, r):
            s = DistributedShuffleSampler(n, num_replicas=p, rank=r, seed=seed)
            return s, StatefulDataLoader(list(range(n)), batch_size=4, sampler=s)

        first = []
        states = []
        for r in range(3):
            s, dl = loader(3, r)
            s.set_epoch(1)
            it = iter(dl)
            first.append([v for _ in range(3) for v in next(it).tolist()])
            states.append(dl.state_dict())
        rest = []
        for r in range(2):
            s, dl = loader(2, r)
            dl.load_state_dict(states[0])
            s.set_epoch(1)
            rest.append([v for batch in dl for v in batch.tolist()])
        merged = interleave(first) + interleave(rest)
        self.assertEqual(merged, global_order(n, seed, 1, len(merged)))
        self.assertEqual(set(merged), set(range(n)))


class WithoutTorch(unittest.TestCase):
    def test_imports_and_runs_without_torch(self):
        code = ("import sys; sys.modules['torch'] = None\n"
                "import onepass.data as d\n"
                "s = d.DistributedShuffleSampler(10, num_replicas=2, rank=1)\n"
                "assert len(list(s)) == 5 and s.num_replicas == 2\n"
                "print('ok')\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("ok", out.stdout)
        code = "import sys, onepass.data; print('torch' in sys.modules)"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
        self.assertEqual(out.stdout.strip(), "False", out.stderr)


class DecileTest(unittest.TestCase):
    """The check of pytorch#143682 (torch.randperm was biased at N ~ 3e9): the values at the first
    10^4 positions of the global order, N = 3e9, over 100 epochs, fall in the ten deciles of [0, N)
    uniformly — overall (chi-square, 9 degrees of freedom) and per block of 1000 positions
    (10 x 10 cells, 99 degrees of freedom), each at alpha = 0.01."""

    def test_deciles_of_the_first_positions_at_3e9(self):
        n, positions, epochs = 3 * 10 ** 9, 10 ** 4, 100
        cells = np.zeros((10, 10), dtype=np.int64)  # [block of 1000 positions, decile]
        for e in range(epochs):
            idx = epoch_indices(n, 0, e, 0, positions)
            decile = (idx * 10) // n
            np.add.at(cells, (np.arange(positions) // (positions // 10), decile), 1)
        overall = cells.sum(axis=0)
        expected = positions * epochs / 10
        chi2 = float(((overall - expected) ** 2 / expected).sum())
        self.assertLess(chi2, 21.666, "deciles %s" % overall.tolist())  # chi-square(9) 0.99 quantile
        expected_cell = positions * epochs / 100
        chi2_cells = float(((cells - expected_cell) ** 2 / expected_cell).sum())
        self.assertLess(chi2_cells, 134.642)  # chi-square(99) 0.99 quantile


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECORDED_RANKS = os.path.join(REPO, "results", "recorded", "nvidia-h100-x2", "train_sampler")


class RecordedDistributedRun(unittest.TestCase):
    """The indices every rank of examples/train_sampler.py trained on, recorded on two H100s
    (2 ranks over NCCL, resumed on 3, then on 1), against the order this build computes."""

    def test_recorded_ranks_follow_one_global_order(self):
        if not os.path.isfile(os.path.join(RECORDED_RANKS, "run1.json")):
            self.skipTest("no recorded run in %s" % RECORDED_RANKS)
        out = subprocess.run([sys.executable, os.path.join(REPO, "examples", "train_sampler.py"), "--check",
                              RECORDED_RANKS, "run1", "run2", "run3"], capture_output=True, text=True,
                             env=dict(os.environ))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("ok: 3 runs continue one global order", out.stdout)


def gpu_reason():
    if not _gpu.available():
        return "onepass was built without its CUDA module (onepass._onepass_cuda)"
    if _gpu._cu.device_count() == 0:
        return "no CUDA device found"
    try:
        import torch
        if not torch.cuda.is_available():
            return "torch sees no CUDA device"
    except ImportError:
        return "torch is not importable (the GPU arrays are made as torch tensors here)"
    return None


GPU_REASON = gpu_reason()


@unittest.skipIf(GPU_REASON is not None, "GPU: %s" % GPU_REASON)
class OnGpu(unittest.TestCase):
    def test_epoch_indices_equal_the_cpu(self):
        import torch
        for n in (1, 5, 17, 1000, 2 ** 16 + 1, 2 ** 20 + 1, 10 ** 9, 2 ** 63):
            for start, stop, step in ((0, min(n, 2 ** 20), 1), (3, min(3 * n, 10 ** 6), 7)):
                got = epoch_indices(n, 9, 2, start, stop, step=step, device="cuda")
                self.assertIsInstance(got, torch.Tensor)
                self.assertEqual(got.dtype, torch.int64)
                self.assertEqual(got.device.type, "cuda")
                want = epoch_indices(n, 9, 2, start, stop, step=step)
                self.assertTrue(np.array_equal(got.cpu().numpy(), want), (n, start, stop, step))

    def test_sampler_on_the_gpu(self):
        import torch
        for shuffle in (True, False):
            cpu = DistributedShuffleSampler(10001, num_replicas=3, rank=1, shuffle=shuffle, batch_size=999)
            gpu = DistributedShuffleSampler(10001, num_replicas=3, rank=1, shuffle=shuffle, batch_size=999,
                                            device="cuda")
            for s in (cpu, gpu):
                s.set_epoch(2)
            self.assertEqual(list(gpu), list(cpu))
            arrays = list(gpu.batches())
            self.assertTrue(all(isinstance(a, torch.Tensor) and a.device.type == "cuda" for a in arrays))
            self.assertEqual(torch.cat(arrays).cpu().tolist(), list(cpu))


if __name__ == "__main__":
    unittest.main()
