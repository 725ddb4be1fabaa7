"""Sort and shuffle torch tensors spread over the ranks of a ``torch.distributed`` process
group, one GPU per rank: the library's ``onepass::distributed::sort_keys`` / ``sort_pairs``
and ``shuffle`` / ``unshuffle`` (``lib/include/onepass/distributed/``) over NCCL.

Every function here is a collective: every rank of the group calls it, in the same order as
its other collectives on the group, with its own tensor (any length, 0 included) and the same
dtype, row shape and arguments. Checks made in Python (dtype, shape, device, seed, rounds)
raise on the rank that fails them before anything is communicated, so they must fail on every
rank alike (a rank that raises alone leaves the others waiting, as with torch.distributed);
arguments that disagree between ranks and reach the library (key type, bit range, order,
seed, rounds, permutation, item size) make EVERY rank raise instead of hanging.

The communicator. PyTorch does not hand its ``ncclComm_t`` to Python, so onepass makes its
own: a SEPARATE NCCL communicator per (process group, CUDA device), created once, on the
first call for that pair (rank 0 of the group calls ``ncclGetUniqueId``, the id goes to the
other ranks by ``torch.distributed.broadcast_object_list`` over the group, then every rank
calls ``ncclCommInitRank`` once) and cached for the life of the process. It is not PyTorch's
communicator and shares nothing with it but the GPUs and the NCCL library: onepass does not
link NCCL but opens ``libnccl.so.2`` on first use, taking the one PyTorch has loaded (else
``$ONEPASS_NCCL_LIBRARY``, else the loader's search path). Its buffers cost memory on every GPU. :func:`destroy_communicators` destroys them
(collectively); whatever is left at exit is aborted (``ncclCommAbort``, local). As NCCL asks of
several communicators on one GPU, do not leave PyTorch collectives of the same ranks running
concurrently with these calls (``async_op=True`` work not yet waited for): the blocking NCCL
kernels of two communicators in flight in different orders on different ranks can deadlock.
Plain (synchronous) torch.distributed calls are ordered with these through the current stream.

Streams and memory. The work runs on ``torch.cuda.current_stream(tensor.device)``; the calls
are host-synchronous (they wait for that stream while planning: all-gathered counts and
splitters) and return with the exchange and the last kernels enqueued. Outputs, the second
buffers of the sort's double buffering and the temporary storage (asked of the library
first, the CUB two-phase protocol) are torch tensors from PyTorch's caching allocator.

Needs torch with CUDA, an initialised default process group (``torchrun`` and
``torch.distributed.init_process_group``, any backend: the group only carries the unique id),
and onepass built with its CUDA module and NCCL (:func:`available`).
"""

import atexit
import threading

from . import _check_rounds, _check_seed
from . import _gpu

__all__ = ["sort", "shuffle", "unshuffle", "available", "destroy_communicators", "DTypeError"]

_cu = _gpu._cu


class DTypeError(TypeError, ValueError):
    """A tensor's dtype is not accepted (both a TypeError, as for ``onepass.sort``, and a
    ValueError)."""


def available():
    """True when onepass's CUDA module was built with NCCL (onepass.distributed can run)."""
    return _cu is not None and bool(getattr(_cu, "has_nccl", False))


def _require():
    if _cu is None:
        raise RuntimeError("onepass.distributed: onepass was built without its CUDA module (%s)"
                           % _gpu._IMPORT_ERROR)
    if not getattr(_cu, "has_nccl", False):
        raise RuntimeError("onepass.distributed: onepass's CUDA module was built without NCCL "
                           "(python/CMakeLists.txt: ONEPASS_PYTHON_NCCL, needs nccl.h)")
    import torch
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("onepass.distributed: torch.distributed is not initialised "
                           "(call torch.distributed.init_process_group, e.g. under torchrun)")
    return torch, dist


# --- communicators ----------------------------------------------------------------------------

class _Communicator:
    """One NCCL communicator of the module's own (an integer handle: the ncclComm_t)."""

    def __init__(self, handle, rank, size, device):
        self.handle = handle
        self.rank = rank
        self.size = size
        self.device = device

    def close(self, abort):
        handle, self.handle = self.handle, 0
        if handle:
            _cu.nccl_comm_destroy(handle, abort)


_comms = {}  # (group, device index) -> _Communicator
_comms_lock = threading.Lock()


def _group_of(dist, group):
    return dist.group.WORLD if group is None else group


def _communicator(torch, dist, group, device):
    """The module's communicator for (group, device), made on first use (collective)."""
    key = (group, device)
    comm = _comms.get(key)
    if comm is not None and comm.handle:
        return comm
    rank = dist.get_rank(group)
    size = dist.get_world_size(group)
    if rank < 0:
        raise ValueError("group: this process is not a member of the process group")
    with _comms_lock:
        # The unique id travels over the group itself (its own backend: NCCL or gloo).
        holder = [_cu.nccl_unique_id() if rank == 0 else None]
        src = 0 if group is dist.group.WORLD else dist.get_global_rank(group, 0)
        backend = dist.get_backend(group)
        bdevice = torch.device("cuda", device) if "nccl" in str(backend).lower() else None
        dist.broadcast_object_list(holder, src=src, group=group, device=bdevice)
        unique_id = holder[0]
        if not isinstance(unique_id, bytes):
            raise RuntimeError("onepass.distributed: rank 0 of the group sent no NCCL unique id")
        handle = _cu.nccl_comm_init(unique_id, size, rank, device)
        comm = _Communicator(handle, rank, size, device)
        _comms[key] = comm
    return comm


def destroy_communicators(group=None):
    """Destroys onepass's NCCL communicators of ``group`` (None: the default group; every
    device) with ``ncclCommDestroy`` after the device's work is done. Collective: every rank of
    the group calls it. A later call of sort / shuffle makes a new communicator."""
    torch, dist = _require()
    group = _group_of(dist, group)
    with _comms_lock:
        keys = [k for k in _comms if k[0] is group]
        for key in keys:
            comm = _comms.pop(key)
            torch.cuda.synchronize(comm.device)
            comm.close(abort=False)


@atexit.register
def _abort_communicators():
    # At exit the other ranks may be gone already: ncclCommAbort (local, never waits).
    with _comms_lock:
        comms = list(_comms.values())
        _comms.clear()
    for comm in comms:
        try:
            comm.close(abort=True)
        except Exception:  # noqa: BLE001 - nothing to do about it at exit
            pass


# --- checks --------------------------------------------------------------------------------------

def _key_types(torch):
    kinds = {torch.int32: ("i", 4), torch.float32: ("f", 4), torch.int64: ("i", 8), torch.float64: ("f", 8)}
    for name, code in (("uint32", ("u", 4)), ("uint64", ("u", 8))):
        dtype = getattr(torch, name, None)  # torch >= 2.3
        if dtype is not None:
            kinds[dtype] = code
    return kinds


def _words(torch):
    return {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _check_tensor(torch, x, name, one_d):
    if not isinstance(x, torch.Tensor):
        raise TypeError("%s: must be a torch.Tensor, got %s" % (name, type(x).__name__))
    if x.device.type != "cuda":
        raise ValueError("%s: must be a CUDA tensor, got one on %s" % (name, x.device))
    if one_d and x.dim() != 1:
        raise ValueError("%s: must be 1-d, got shape %s" % (name, tuple(x.shape)))
    if not one_d and x.dim() < 1:
        raise ValueError("%s: must have at least one dimension, got a 0-d tensor" % name)
    if not x.is_contiguous():
        raise ValueError("%s: must be contiguous (call .contiguous() first)" % name)
    return x.detach()


def _stream(torch, device):
    return int(torch.cuda.current_stream(device).cuda_stream)


# --- sort ----------------------------------------------------------------------------------------

_SORT_METHODS = {"partition_first": 0, "sort_first": 1}


def sort(tensor, values=None, group=None, descending=False, method="sort_first"):
    """Stable sort of the keys of all ranks of ``group``: afterwards this rank holds, in order,
    the keys of global ranks [n_0 + ... + n_{r-1}, n_0 + ... + n_r) of the stable sort of the
    concatenation of the ranks' tensors (rank 0's first), n_r this rank's count — a one-GPU
    stable sort of the concatenation (``onepass.sort``) cut into the input counts (exact
    balance, ties split exactly). ``onepass::distributed::sort_keys`` / ``sort_pairs``.

    tensor: contiguous 1-d CUDA tensor of int32, float32, int64, float64 (and uint32, uint64
    where torch has them), the same dtype on every rank; floats in IEEE totalOrder (-0.0
    before +0.0, NaNs by sign and payload, as ``onepass.sort``). values: None, or a contiguous
    1-d CUDA tensor of as many elements on the same device, of any 4- or 8-byte dtype (the same
    on every rank): each value travels with its key. group: a torch.distributed process group
    (None: the default one). descending: reverse order (ties keep their input order).
    method: "sort_first" (the default, as in C++: the local sort first, exact splitters from
    binary searches in the sorted run, the exchange of contiguous ranges, then a stable merge
    of the runs that arrived) or "partition_first" (exact splitters from histograms of the
    unsorted keys, one partition pass, the exchange, then the local sort of what arrived) —
    ``onepass::distributed::sort_method``; both give the same output; the same on every rank.
    On four H200s sort_first took 0.73-0.96x partition_first's time at P = 2, 3, 4
    (results/recorded/nvidia-h200-x4/; README "More than one GPU").

    Returns ``keys_sorted`` or ``(keys_sorted, values_sorted)``: new tensors of the inputs'
    dtypes and this rank's count; the inputs are not modified (they are copied into the
    first buffer of the library's double buffering). Memory per rank: two buffers of n_r keys
    (and values) and the library's temporary storage (about as much again).

    Raises DTypeError (a TypeError and ValueError) for other dtypes, TypeError for
    non-tensors, ValueError for shapes, devices, non-contiguous tensors or another method,
    RuntimeError when onepass.distributed is not available or NCCL / CUDA fail.
    """
    if method not in _SORT_METHODS:
        raise ValueError("method: must be 'partition_first' or 'sort_first', got %r" % (method,))
    torch, dist = _require()
    keys = _check_tensor(torch, tensor, "tensor", True)
    code = _key_types(torch).get(keys.dtype)
    if code is None:
        raise DTypeError("tensor: dtype must be int32, float32, int64, float64%s, got %s"
                         % (", uint32 or uint64" if hasattr(torch, "uint32") else "", keys.dtype))
    kind, key_bytes = code
    value_bytes = 0
    if values is not None:
        values = _check_tensor(torch, values, "values", True)
        if values.device != keys.device:
            raise ValueError("values: must be on the keys' device %s, got %s" % (keys.device, values.device))
        if values.numel() != keys.numel():
            raise ValueError("values: must have as many elements as tensor (%d), got %d"
                             % (keys.numel(), values.numel()))
        if values.element_size() not in (4, 8):
            raise DTypeError("values: dtype must have 4 or 8 bytes per element, got %s" % values.dtype)
        value_bytes = values.element_size()
    descending = bool(descending)
    group = _group_of(dist, group)
    device = keys.device.index if keys.device.index is not None else torch.cuda.current_device()
    comm = _communicator(torch, dist, group, device)
    words = _words(torch)
    n = keys.numel()
    with torch.cuda.device(device):
        stream = _stream(torch, device)
        k0 = keys.view(words[key_bytes]).clone()
        k1 = torch.empty_like(k0)
        v0 = v1 = None
        if values is not None:
            v0 = values.view(words[value_bytes]).clone()
            v1 = torch.empty_like(v0)
        end_bit = 8 * key_bytes
        temp_bytes = int(_cu.distributed_sort_bytes(n, kind, key_bytes, value_bytes, 0, end_bit, descending,
                                                    comm.handle, stream, device, _SORT_METHODS[method]))
        temp = torch.empty(temp_bytes, dtype=torch.uint8, device=keys.device)
        ks, vs = _cu.distributed_sort(temp.data_ptr(), temp_bytes, k0.data_ptr(), k1.data_ptr(),
                                      v0.data_ptr() if v0 is not None else 0, v1.data_ptr() if v1 is not None else 0,
                                      n, kind, key_bytes, value_bytes, 0, end_bit, descending, comm.handle, stream,
                                      device, _SORT_METHODS[method])
        del temp  # back to the caching allocator, stream-ordered: reused only after the sort's work
    keys_out = (k0, k1)[ks].view(keys.dtype)
    if values is None:
        return keys_out
    return keys_out, (v0, v1)[vs].view(values.dtype)


# --- shuffle -------------------------------------------------------------------------------------

_PERMUTATIONS = {"bijective": 0, "walking": 1}


def _shuffle(tensor, seed, group, permutation, rounds, inverse):
    torch, dist = _require()
    x = _check_tensor(torch, tensor, "tensor", False)
    seed = _check_seed(seed)
    rounds = _check_rounds(rounds)
    if not isinstance(permutation, str) or permutation not in _PERMUTATIONS:
        raise ValueError("permutation: must be 'bijective' or 'walking', got %r" % (permutation,))
    kind = _PERMUTATIONS[permutation]
    n = x.shape[0]
    row_bytes = x.element_size()
    for d in x.shape[1:]:
        row_bytes *= d
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    if row_bytes == 0:
        return out  # rows of no bytes (the same row shape on every rank): nothing moves
    # The item word: the widest of 16, 8, 4, 2, 1 bytes dividing the row (the same on every
    # rank, since the row shape and dtype are); rows of several words move word column by
    # word column, each with the same permutation (it depends only on the global count).
    word = next(w for w in (16, 8, 4, 2, 1) if row_bytes % w == 0)
    columns = row_bytes // word
    group = _group_of(dist, group)
    device = x.device.index if x.device.index is not None else torch.cuda.current_device()
    comm = _communicator(torch, dist, group, device)
    with torch.cuda.device(device):
        stream = _stream(torch, device)
        if x.numel() and x.data_ptr() % word:
            x = x.clone()  # an offset view: the kernels load whole aligned words
        temp_bytes = int(_cu.distributed_shuffle_bytes(n, word, kind, comm.handle, stream, device))
        temp = torch.empty(temp_bytes, dtype=torch.uint8, device=x.device)
        if columns == 1:
            _cu.distributed_shuffle(temp.data_ptr(), temp_bytes, x.data_ptr(), out.data_ptr(), n, word, seed, kind,
                                    rounds, inverse, comm.handle, stream, device)
        else:
            src = x.view(-1).view(torch.uint8).view(n, columns, word)
            dst = out.view(-1).view(torch.uint8).view(n, columns, word)
            col_in = torch.empty((n, word), dtype=torch.uint8, device=x.device)
            col_out = torch.empty_like(col_in)
            for c in range(columns):
                col_in.copy_(src[:, c, :])
                _cu.distributed_shuffle(temp.data_ptr(), temp_bytes, col_in.data_ptr(), col_out.data_ptr(), n, word,
                                        seed, kind, rounds, inverse, comm.handle, stream, device)
                dst[:, c, :].copy_(col_out)
        del temp
    return out


def shuffle(tensor, seed, group=None, permutation="bijective", rounds=24):
    """Shuffles the rows of a tensor spread over the ranks of ``group``: rank r holds n_r
    rows (the sub-tensors along dimension 0; any n_r >= 0), global positions [P_r, P_r + n_r)
    of the concatenation of the ranks' tensors in rank order (N rows in all); afterwards it
    holds n_r rows: positions [P_r, P_r + n_r) of ONE permutation of the concatenation that
    depends only on (N, seed, rounds) — never on the number of ranks or the split.
    ``onepass::distributed::shuffle`` (Mitchell et al., "Bandwidth-Optimal Random Shuffling
    for GPUs", §4 Algorithm 1, over NCCL).

    permutation: "bijective" (the default): the single-GPU ``onepass.shuffle`` of the
    concatenation, ``out[j] = x[p[j]]`` with ``p = onepass.permutation(N, seed, rounds=rounds)``
    (VariablePhilox, compacted); "walking": ``out[j] = x[sigma(j)]`` with sigma the cycle-walking
    permutation for (N, seed, rounds) (``onepass.data``'s order with the seed used as is).

    tensor: a contiguous CUDA tensor of any dtype, at least 1-d, the same dtype and row shape
    (``tensor.shape[1:]``) on every rank. Rows of 1, 2, 4, 8 or 16 bytes move in one call;
    larger rows move in row_bytes / w calls of w-byte columns (w the widest of 16, 8, 4, 2, 1
    dividing the row: each call costs its own planning and exchange). seed: [0, 2^64-1];
    rounds: Feistel rounds in [1, 64] (default 24, the paper's §5); both the same on every
    rank. group: a torch.distributed process group (None: the default one).

    Returns a new tensor of the input's shape and dtype (not overlapping it). Raises TypeError
    for non-tensors, seeds or rounds of other types; ValueError for values out of range,
    0-d, non-CUDA or non-contiguous tensors, an unknown permutation; RuntimeError when
    onepass.distributed is not available or NCCL / CUDA fail.
    """
    return _shuffle(tensor, seed, group, permutation, rounds, False)


def unshuffle(tensor, seed, group=None, permutation="bijective", rounds=24):
    """The inverse of :func:`shuffle` for the same seed, permutation, rounds and row counts per
    rank: ``unshuffle(shuffle(x, s), s)`` equals x on every rank
    (``onepass::distributed::unshuffle``). Arguments and errors as :func:`shuffle`."""
    return _shuffle(tensor, seed, group, permutation, rounds, True)
