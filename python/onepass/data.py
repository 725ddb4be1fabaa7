"""onepass.data: a shuffled order of a dataset's indices for data loaders, computed per
position in O(1) memory — the same global order on any number of ranks, resumable
mid-epoch on another number of ranks.

The order. Epoch ``e`` of a dataset of N samples is the permutation sigma_e of [0, N) given
by *cycle walking* (Black & Rogaway, "Ciphers with Arbitrary Finite Domains", CT-RSA 2002,
§3) over the VariablePhilox bijection f of [0, 2^b), 2^(b-1) < N <= 2^b (Mitchell et al.,
"Bandwidth-Optimal Random Shuffling for GPUs", §3.2): sigma_e(j) is the first of g(j),
g(g(j)), ... that is below N, g = f followed by the exchange of 0 and 1 when an unused key bit
is set (every VariablePhilox bijection is an even permutation; the exchange makes sigma_e odd
or even with equal chance) — under 2 evaluations of f per index on average, no state, no
table. f is ``variable_philox::for_length(N, epoch_seed(seed, e), rounds)``, so the values
are those of the C++ ``onepass::shuffle::walking_permutation`` (CPU ``cpu::walking_indices``,
GPU ``gpu::walking_indices``) for that seed. The *global order* of an epoch is the infinite
sequence of positions p = 0, 1, 2, ... with element sigma_e(p mod N): the first N positions
are the permutation, later ones repeat it (this is how a distributed sampler pads).

Contents. :func:`epoch_indices` returns a slice of the global order (NumPy on the CPU, a
CUDA array on a GPU); :class:`DistributedShuffleSampler` is a drop-in replacement of
``torch.utils.data.DistributedSampler`` that reads it in batches from C++; :func:`epoch_seed`
is the per-epoch seed. Nothing here imports torch: torch is used only when it is already
imported (``torch.distributed`` defaults) or when a CUDA device is asked for.
"""

import sys

import numpy as _np

from . import DEFAULT_ROUNDS, _check_rounds, _check_seed, _gpu, _onepass

__all__ = ["epoch_seed", "epoch_indices", "DistributedShuffleSampler"]

#: Largest dataset size (the walking permutation's bound, 2^63).
MAX_SAMPLES = 2 ** 63
_U64_MAX = 2 ** 64 - 1
_STATE_VERSION = 1
#: Indices in an iteration's first batch (later batches double up to batch_size), so that the
#: first index of an epoch costs well under a millisecond at any batch_size.
_FIRST_BATCH = 2048


def _check_int(value, name, low, high, high_text=None):
    """An integer in [low, high] (high None: no upper bound); TypeError / ValueError naming it."""
    text = "[%d, %s]" % (low, high_text or (str(high) if high is not None else "inf"))
    if isinstance(value, (bool, _np.bool_)) or not isinstance(value, (int, _np.integer)):
        raise TypeError("%s: must be an integer in %s, got %s" % (name, text, type(value).__name__))
    v = int(value)
    if v < low or (high is not None and v > high):
        raise ValueError("%s: must be in %s, got %d" % (name, text, v))
    return v


def _check_num_samples(n, name="num_samples"):
    return _check_int(n, name, 0, MAX_SAMPLES, "2^63")


def epoch_seed(seed: int, epoch: int) -> int:
    """The seed of epoch ``epoch`` of the order with base seed ``seed``: the C++
    ``onepass::shuffle::epoch_seed`` (a SplitMix64 mix of the pair, onepass/random/counter_hash.hpp).
    Epoch e's permutation is ``walking_permutation::for_length(N, epoch_seed(seed, e), rounds)``.
    seed, epoch: integers in [0, 2^64-1]; for one seed, distinct epochs give distinct seeds.
    Raises TypeError / ValueError naming the argument."""
    return int(_onepass.epoch_seed(_check_seed(seed), _check_seed(epoch, "epoch")))


def _count(start, stop, step):
    return 0 if stop <= start else (stop - start + step - 1) // step


def epoch_indices(num_samples: int, seed: int = 0, epoch: int = 0, start: int = 0, stop=None, *, step: int = 1,
                  rounds: int = DEFAULT_ROUNDS, device=None, like=None):
    """Positions ``range(start, stop, step)`` of epoch ``epoch``'s global order: element k is
    ``sigma_e((start + k * step) mod num_samples)`` with sigma_e the cycle-walking permutation
    of [0, num_samples) for ``epoch_seed(seed, epoch)`` (module docstring; Black & Rogaway
    CT-RSA 2002 over VariablePhilox, Mitchell et al. §3.2). ``epoch_indices(N, s, e)`` is the
    whole permutation; rank r of P of a padded epoch reads ``epoch_indices(N, s, e, r,
    total_size, step=P)``. Each position is computed alone, so any slice costs only its length.

    num_samples: N in [0, 2^63]. seed, epoch: [0, 2^64-1]. start: >= 0; stop: None (N) or an
    integer (stop <= start gives an empty result); positions may exceed N (they wrap mod N)
    but must stay below 2^64; step: >= 1. rounds: Feistel rounds in [1, 64] (default 24).
    device: None or "cpu" (a NumPy int64 array, oneTBB over the batch), or "cuda", "cuda:N",
    a torch.device or an int (an int64 array of ``like``'s framework — None: torch if
    importable, else cupy, else jax — made by ``gpu::walking_indices`` on that device's
    current stream). Values are in [0, N); the CPU and GPU give the same values.

    Raises TypeError / ValueError naming the argument (num_samples, seed, epoch, start, stop,
    step, rounds, device, like), e.g. a non-empty range with num_samples = 0.
    """
    n = _check_num_samples(num_samples)
    seed = _check_seed(seed)
    epoch = _check_seed(epoch, "epoch")
    start = _check_int(start, "start", 0, _U64_MAX, "2^64-1")
    stop = n if stop is None else _check_int(stop, "stop", 0, None)
    step = _check_int(step, "step", 1, _U64_MAX, "2^64-1")
    rounds = _check_rounds(rounds)
    count = _count(start, stop, step)
    if count and n == 0:
        raise ValueError("num_samples: is 0, so no position can be read; got start=%d, stop=%d" % (start, stop))
    if count and start + (count - 1) * step > _U64_MAX:
        raise ValueError("stop: positions must stay below 2^64, got start=%d, stop=%d, step=%d" % (start, stop, step))
    es = int(_onepass.epoch_seed(seed, epoch))
    if _gpu.parse_device(device) is not None:
        return _gpu.walking_indices(count, n, es, rounds, start, step, device, like)
    if like is not None:
        raise ValueError("like: only for a CUDA device, got like=%r with device=%r" % (like, device))
    out = _np.empty(count, dtype=_np.uint64)
    if count:
        _onepass.walking_indices_into(out, n, es, rounds, start, step)
    return out.view(_np.int64)


def _distributed_defaults():
    """(world size, rank) of an initialised torch.distributed, else None. torch is looked
    up only if already imported: a process group cannot exist without it."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        import torch.distributed as dist
    except ImportError:
        return None
    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size(), dist.get_rank()
    return None


class _Progress:
    """The iteration in progress (or last run): its epoch, the global position it began
    at, how many indices this rank has handed out, and whether it ran to the end."""

    __slots__ = ("epoch", "start", "yielded", "finished")

    def __init__(self, epoch, start):
        self.epoch, self.start, self.yielded, self.finished = epoch, start, 0, False


class DistributedShuffleSampler:
    """A drop-in replacement of ``torch.utils.data.DistributedSampler`` whose order is
    computed per position (cycle walking over VariablePhilox; module docstring): O(1)
    memory at any dataset size (N up to 2^63; ``DistributedSampler`` materialises
    ``torch.randperm(N)`` on every rank), the same global order for every number of ranks,
    and ``state_dict`` / ``load_state_dict`` that resume mid-epoch, on another number of
    ranks too (torchdata's ``StatefulDataLoader`` calls them).

    Order. Epoch e's global order is position p -> sigma_e(p mod N) (``epoch_indices``;
    ``shuffle=False``: p -> p mod N). Rank r of P reads positions r, r + P, r + 2P, ... of
    it, ``num_samples`` of them: ceil(N / P) (the last positions wrap to the start of the
    order: torch's padding) or, with ``drop_last``, floor(N / P) (torch's truncation), so
    ``total_size = num_samples * P`` positions per epoch — exactly torch's pattern applied to
    sigma_e, and interleaving the ranks' sequences gives the same global order for every P.

    Arguments. dataset_or_num_samples: an integer N in [0, 2^63] or an object with
    ``len()``. num_replicas (>= 1) and rank (in [0, num_replicas-1]): default to the world
    size and rank of an initialised ``torch.distributed`` process group, else 1 and 0.
    shuffle: False gives the identity order. seed: [0, 2^64-1], the same on every rank.
    drop_last: as torch's. batch_size: most indices computed per C++ call (>= 1, default
    65536; an iteration starts at 2048 and doubles, so its first index comes at once;
    ``__iter__`` holds one batch). rounds: VariablePhilox rounds in [1, 64] (default 24).
    device: None / "cpu" (batches by oneTBB into NumPy) or a CUDA device ("cuda", "cuda:N",
    torch.device, int; batches by ``gpu::walking_indices``, copied to the host by
    ``__iter__``; :meth:`batches` hands out the device arrays). Raises TypeError /
    ValueError naming the argument (torch raises ValueError for a bad rank too).

    Epochs. Call :meth:`set_epoch` before each epoch, as with torch; epoch e uses seed
    ``epoch_seed(seed, e)``. ``__iter__`` yields Python ints in [0, N); ``__len__`` is
    ``num_samples``, or after :meth:`load_state_dict` the count left to this rank in the
    resumed epoch.

    Resumption. The state is the global position g reached: the positions every rank has
    consumed together, ``start + (indices this rank yielded) * P``. Loading it on P' ranks
    continues the same global order at g: rank r' reads g + r', g + r' + P', ..., and every
    rank reads ceil((N - g) / P') positions (drop_last: floor) — for g = 0 torch's count.
    """

    def __init__(self, dataset_or_num_samples, *, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False, batch_size=65536, rounds=DEFAULT_ROUNDS, device=None):
        if isinstance(dataset_or_num_samples, (int, _np.integer)) and not isinstance(dataset_or_num_samples,
                                                                                        (bool, _np.bool_)):
            self.dataset = None
            self.dataset_size = _check_num_samples(dataset_or_num_samples, "dataset_or_num_samples")
        else:
            try:
                size = len(dataset_or_num_samples)
            except TypeError:
                raise TypeError("dataset_or_num_samples: must be an integer or an object with len(), got %s"
                                % type(dataset_or_num_samples).__name__) from None
            self.dataset = dataset_or_num_samples
            self.dataset_size = _check_num_samples(size, "dataset_or_num_samples")
        if num_replicas is None or rank is None:
            defaults = _distributed_defaults() or (1, 0)
            if num_replicas is None:
                num_replicas = defaults[0]
            if rank is None:
                rank = defaults[1]
        self.num_replicas = _check_int(num_replicas, "num_replicas", 1, 2 ** 32, "2^32")
        if isinstance(rank, (bool, _np.bool_)) or not isinstance(rank, (int, _np.integer)):
            raise TypeError("rank: must be an integer, got %s" % type(rank).__name__)
        if not 0 <= int(rank) < self.num_replicas:
            raise ValueError("rank: invalid rank %d, must be in [0, %d] (num_replicas = %d)"
                             % (int(rank), self.num_replicas - 1, self.num_replicas))
        self.rank = int(rank)
        if not isinstance(shuffle, (bool, _np.bool_)):
            raise TypeError("shuffle: must be a bool, got %s" % type(shuffle).__name__)
        if not isinstance(drop_last, (bool, _np.bool_)):
            raise TypeError("drop_last: must be a bool, got %s" % type(drop_last).__name__)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.seed = _check_seed(seed)
        self.rounds = _check_rounds(rounds)
        self.batch_size = _check_int(batch_size, "batch_size", 1, 2 ** 40, "2^40")
        self._device_index = _gpu.parse_device(device)
        self.device = device if self._device_index is not None else None
        self.epoch = 0
        self.num_samples = self._per_rank(0)
        self.total_size = self.num_samples * self.num_replicas
        self._resume = None    # (epoch, global position) set by load_state_dict
        self._progress = None  # _Progress of the iteration in progress / last run

    # -- the epoch's layout -------------------------------------------------------------------

    def _per_rank(self, start):
        """Positions each rank reads from global position `start` to the end of the epoch."""
        remaining = max(0, self.dataset_size - start)
        if self.drop_last:
            return remaining // self.num_replicas
        return -(-remaining // self.num_replicas)

    def _pending_resume(self):
        """The global position the next iteration starts at, when a loaded state applies."""
        if self._resume is not None and self._resume[0] == self.epoch:
            return self._resume[1]
        return None

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch of the next iteration (epoch e: seed ``epoch_seed(seed, e)``), as
        ``DistributedSampler.set_epoch``. epoch: [0, 2^64-1]. A loaded state of another epoch
        is dropped (the epoch starts at its beginning)."""
        self.epoch = _check_seed(epoch, "epoch")
        if self._resume is not None and self._resume[0] != self.epoch:
            self._resume = None

    def __len__(self) -> int:
        g = self._pending_resume()
        if g is not None:
            return self._per_rank(g)
        p = self._progress
        if p is not None and p.epoch == self.epoch and p.start > 0 and not p.finished:
            return self._per_rank(p.start)
        return self.num_samples

    # -- iteration ----------------------------------------------------------------------------

    def _begin(self):
        g = self._pending_resume()
        self._resume = None
        self._progress = _Progress(self.epoch, 0 if g is None else g)
        return self._progress

    def _batches(self, progress, host):
        """This rank's share of progress's epoch in arrays of up to batch_size indices
        (host: NumPy, reusing one buffer; else arrays on the sampler's device)."""
        n, stride = self.dataset_size, self.num_replicas
        count = self._per_rank(progress.start)
        first = progress.start + self.rank
        if count and first + (count - 1) * stride > _U64_MAX:
            raise ValueError("num_replicas: positions of this epoch would pass 2^64 (num_replicas = %d)" % stride)
        es = int(_onepass.epoch_seed(self.seed, progress.epoch))
        on_gpu = self._device_index is not None
        buffer = None
        done = 0
        size = min(self.batch_size, _FIRST_BATCH)  # small first: the first index comes at once
        while done < count:
            c = min(size, count - done)
            size = min(2 * size, self.batch_size)
            begin = first + done * stride
            if not self.shuffle:
                k = _np.arange(c, dtype=_np.uint64)
                batch = ((k * _np.uint64(stride) + _np.uint64(begin)) % _np.uint64(n)).view(_np.int64)
                if on_gpu and not host:
                    batch = _to_device(batch, self._device_index)
            elif on_gpu:
                batch = _gpu.walking_indices(c, n, es, self.rounds, begin, stride, self._device_index, None)
            else:
                if host:
                    if buffer is None:
                        buffer = _np.empty(min(self.batch_size, count), dtype=_np.uint64)
                    out = buffer[:c]
                else:
                    out = _np.empty(c, dtype=_np.uint64)
                _onepass.walking_indices_into(out, n, es, self.rounds, begin, stride)
                batch = out.view(_np.int64)
            yield batch
            done += c
        progress.finished = True

    def __iter__(self):
        """This rank's indices of the current epoch as Python ints in [0, N) (resuming at a
        loaded state's position). Computed in C++ batch_size at a time; lazy: nothing is
        computed, and a loaded state is not consumed, until the first index is asked for."""
        progress = self._begin()
        for batch in self._batches(progress, host=True):
            for index in batch.tolist():
                progress.yielded += 1
                yield index

    def batches(self):
        """This rank's indices of the current epoch as arrays of up to ``batch_size`` int64
        indices (NumPy, or CUDA arrays of torch — else cupy, jax — on the sampler's
        device), in ``__iter__``'s order; state as ``__iter__`` (an array counts as
        consumed when it is handed out). For loaders that take indices in bulk."""
        progress = self._begin()
        for batch in self._batches(progress, host=False):
            progress.yielded += len(batch)
            yield batch

    # -- state --------------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """The position reached, to resume with :meth:`load_state_dict` (on any number of
        ranks): {"version": 1, "seed", "epoch", "num_samples": N, "global_position": g,
        "shuffle", "rounds"}, with g = the global positions consumed in that epoch (the
        iteration's start + indices yielded on this rank * num_replicas; the epoch's
        total_size once it ran to the end; 0 before it began). Plain ints and bools."""
        g = self._pending_resume()
        p = self._progress
        if g is not None:
            epoch = self.epoch
        elif p is not None and p.epoch == self.epoch:
            epoch, g = p.epoch, p.start + p.yielded * self.num_replicas
        else:
            epoch, g = self.epoch, 0
        return {"version": _STATE_VERSION, "seed": self.seed, "epoch": epoch, "num_samples": self.dataset_size,
                "global_position": g, "shuffle": self.shuffle, "rounds": self.rounds}

    def load_state_dict(self, state: dict) -> None:
        """Resumes at a state of :meth:`state_dict` (saved with any num_replicas): the next
        iteration of the state's epoch starts at its global position g; seed, shuffle and
        rounds are taken from the state (they define the order). The state's epoch becomes
        the current one while any of it is left to read; a state saved at the very end of an
        epoch leaves the epoch as it is (so a loader that loads after ``set_epoch(e + 1)``,
        as StatefulDataLoader does, runs epoch e + 1 whole). ``set_epoch`` with another epoch
        drops the loaded position.

        Raises TypeError for a state that is not a mapping or has values of the wrong type,
        ValueError for a missing key, another version, or a num_samples other than this
        sampler's dataset size (the positions would index another dataset)."""
        if not hasattr(state, "keys") or not hasattr(state, "__getitem__"):
            raise TypeError("state: must be a dict from state_dict(), got %s" % type(state).__name__)
        missing = [k for k in ("version", "seed", "epoch", "num_samples", "global_position", "shuffle", "rounds")
                   if k not in state]
        if missing:
            raise ValueError("state: missing key(s) %s (not a DistributedShuffleSampler state)" % ", ".join(missing))
        version = _check_int(state["version"], "state['version']", 0, None)
        if version != _STATE_VERSION:
            raise ValueError("state['version']: must be %d, got %d" % (_STATE_VERSION, version))
        n = _check_num_samples(state["num_samples"], "state['num_samples']")
        if n != self.dataset_size:
            raise ValueError("state['num_samples']: %d, but this sampler's dataset has %d samples"
                             % (n, self.dataset_size))
        seed = _check_seed(state["seed"], "state['seed']")
        epoch = _check_seed(state["epoch"], "state['epoch']")
        g = _check_int(state["global_position"], "state['global_position']", 0, _U64_MAX, "2^64-1")
        if not isinstance(state["shuffle"], (bool, _np.bool_)):
            raise TypeError("state['shuffle']: must be a bool, got %s" % type(state["shuffle"]).__name__)
        rounds = _check_int(state["rounds"], "state['rounds']", 1, 64)
        self.seed, self.shuffle, self.rounds = seed, bool(state["shuffle"]), rounds
        self._progress = None
        self._resume = (epoch, g)
        if self._per_rank(g) > 0:
            self.epoch = epoch

    def __repr__(self):
        return ("DistributedShuffleSampler(num_samples=%d, num_replicas=%d, rank=%d, shuffle=%s, seed=%d, "
                "drop_last=%s, epoch=%d)" % (self.dataset_size, self.num_replicas, self.rank, self.shuffle, self.seed,
                                             self.drop_last, self.epoch))


def _to_device(array, index):
    """A NumPy int64 array on CUDA device `index` (torch, else cupy)."""
    try:
        import torch
        return torch.from_numpy(array).to(torch.device("cuda", index))
    except ImportError:
        import cupy
        with cupy.cuda.Device(index):
            return cupy.asarray(array)
