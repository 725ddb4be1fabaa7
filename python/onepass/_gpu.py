"""The GPU path of onepass: CUDA arrays of PyTorch, CuPy, JAX (``__dlpack__``) or any
``__cuda_array_interface__`` producer, used in place (zero-copy) on the caller's stream.

Stream rule. The work is enqueued on the stream the array's framework calls current:
``torch.cuda.current_stream(x.device)`` for torch tensors, ``cupy.cuda.get_current_stream()``
for CuPy arrays. That stream is passed to ``x.__dlpack__(stream=...)`` as the DLPack
protocol asks (the producer makes it wait for the array's pending writes) and the kernels
are launched on it; nothing waits on the host. JAX has no user-visible stream: JAX arrays
are imported with ``stream=1`` (the legacy default stream; JAX makes it wait until the
buffer is ready), the work runs on that stream, and the call waits for it to finish before
the result is handed to JAX (``jax.dlpack.from_dlpack``), so JAX never sees an unfinished
buffer. Objects with only ``__cuda_array_interface__`` (e.g. Numba): the legacy default
stream waits for the interface's ``stream`` when it gives one; results come back as
onepass's own DLPack-exportable array after the work has finished.

Outputs are new arrays of the input's framework on the input's device (``torch.empty``,
``cupy.empty``; for JAX a ``cudaMallocAsync`` buffer handed to JAX by DLPack, freed with
``cudaFreeAsync`` when JAX lets go). Temporary storage comes from ``cudaMallocAsync`` on
the same stream. Non-contiguous inputs are rejected (ValueError): a hidden copy would
break zero-copy.
"""


import numpy as _np

try:
    from . import _onepass_cuda as _cu
    _IMPORT_ERROR = None
except ImportError as _e:  # built without CUDA, or the module cannot load
    _cu = None
    _IMPORT_ERROR = str(_e)

_KDL_CUDA = 2
_KDL_CUDA_MANAGED = 13
_GPU_DEVICE_TYPES = (_KDL_CUDA, _KDL_CUDA_MANAGED)
# DLPack dtype codes
_INT, _UINT, _FLOAT, _BFLOAT, _COMPLEX, _BOOL = 0, 1, 2, 4, 5, 6

#: The algorithm of the last GPU sort / argsort ("onesweep" or "hybrid_msd"), for reports.
last_sort_algorithm = None


def available():
    """True when the CUDA module was built and loads (a device is not required)."""
    return _cu is not None


def is_gpu_array(x):
    """True for a CUDA array: ``__dlpack_device__()`` says CUDA (or CUDA managed), or the
    object has ``__cuda_array_interface__`` and no ``__dlpack_device__``."""
    if isinstance(x, _np.ndarray):
        return False
    probe = getattr(x, "__dlpack_device__", None)
    if probe is not None:
        try:
            return int(probe()[0]) in _GPU_DEVICE_TYPES
        except Exception:  # noqa: BLE001 - cannot say: not a GPU array we can use
            return False
    return hasattr(x, "__cuda_array_interface__")


def _require_module(name):
    if _cu is None:
        raise TypeError("%s: needs the GPU, but onepass was built without its CUDA module "
                        "(onepass._onepass_cuda: %s); rebuild with nvcc on the PATH" % (name, _IMPORT_ERROR))


def _framework(x):
    root = type(x).__module__.split(".")[0]
    if root == "torch":
        return "torch"
    if root == "cupy":
        return "cupy"
    if root in ("jax", "jaxlib"):
        return "jax"
    return "other"


class _Context:
    """Where a call runs: framework, CUDA device, the stream (as the DLPack stream value,
    which is also the launch handle: 1 = cudaStreamLegacy, 2 = cudaStreamPerThread)."""

    def __init__(self, framework, device, stream, sync, like=None):
        self.framework = framework
        self.device = device
        self.stream = stream
        self.sync = sync  # wait before returning (JAX and unknown producers)
        self.like = like  # a torch.device, when the framework is torch


def _dlpack_stream(ptr):
    ptr = int(ptr)
    return 1 if ptr == 0 else ptr


def _context_of(x, name):
    _require_module(name)
    framework = _framework(x)
    if hasattr(x, "__dlpack_device__"):
        device = int(x.__dlpack_device__()[1])
    else:
        ptr = int(x.__cuda_array_interface__["data"][0])
        device = _cu.pointer_device(ptr) if ptr else 0
        if device < 0:
            raise ValueError("%s: __cuda_array_interface__ points to memory that is not on a CUDA device" % name)
    if framework == "torch":
        import torch
        return _Context("torch", device, _dlpack_stream(torch.cuda.current_stream(x.device).cuda_stream), False,
                        x.device)
    if framework == "cupy":
        import cupy
        with cupy.cuda.Device(device):
            return _Context("cupy", device, _dlpack_stream(cupy.cuda.get_current_stream().ptr), False)
    return _Context(framework, device, 1, True)


def context_for_device(device, like, name="device"):
    """The context of permutation / normal for ``device`` ("cuda", "cuda:N", a torch.device,
    or an int N) and ``like`` (None: torch if importable, else cupy, else jax; or "torch",
    "cupy", "jax")."""
    index = _device_index(device, name)
    if like is None:
        for candidate in ("torch", "cupy", "jax"):
            try:
                __import__(candidate)
                like = candidate
                break
            except ImportError:
                continue
        else:
            raise TypeError("%s: a CUDA device needs torch, cupy or jax to return the array in; none is importable"
                            % name)
    if like not in ("torch", "cupy", "jax"):
        raise ValueError("like: must be None, 'torch', 'cupy' or 'jax', got %r" % (like,))
    _require_module(name)
    if like == "torch":
        import torch
        dev = torch.device("cuda", index)
        return _Context("torch", index, _dlpack_stream(torch.cuda.current_stream(dev).cuda_stream), False, dev)
    if like == "cupy":
        import cupy
        with cupy.cuda.Device(index):
            return _Context("cupy", index, _dlpack_stream(cupy.cuda.get_current_stream().ptr), False)
    import jax  # noqa: F401 - the result is a JAX array
    return _Context("jax", index, 1, True)


def parse_device(device, name="device"):
    """None / "cpu" -> None; a CUDA device -> its index. Raises TypeError / ValueError."""
    if device is None:
        return None
    if isinstance(device, str) and device == "cpu":
        return None
    if type(device).__module__.split(".")[0] == "torch" and type(device).__name__ == "device":
        if device.type == "cpu":
            return None
    return _device_index(device, name)


def _device_index(device, name):
    if isinstance(device, (bool, _np.bool_)):
        raise TypeError("%s: must be 'cpu', 'cuda', 'cuda:N', a torch.device or an int, got bool" % name)
    if isinstance(device, (int, _np.integer)):
        index = int(device)
    elif isinstance(device, str):
        if device == "cuda":
            index = 0
        elif device.startswith("cuda:") and device[5:].isdigit():
            index = int(device[5:])
        else:
            raise ValueError("%s: must be 'cpu', 'cuda' or 'cuda:N', got %r" % (name, device))
    elif type(device).__module__.split(".")[0] == "torch" and type(device).__name__ == "device":
        if device.type != "cuda":
            raise ValueError("%s: must be a cpu or cuda torch.device, got %s" % (name, device))
        index = 0 if device.index is None else int(device.index)
    else:
        raise TypeError("%s: must be 'cpu', 'cuda', 'cuda:N', a torch.device or an int, got %s"
                        % (name, type(device).__name__))
    count = _cu.device_count() if _cu is not None else 0
    if _cu is None:
        _require_module(name)
    if not 0 <= index < count:
        raise ValueError("%s: CUDA device %d does not exist (%d device(s) found)" % (name, index, count))
    return index


class _Array:
    """An imported GPU array: keeps the producer's capsule (or object) alive."""

    def __init__(self, obj, view, ptr, shape, strides, dtype, device):
        self.obj, self.view, self.ptr = obj, view, ptr
        self.shape, self.strides, self.dtype, self.device = tuple(shape), strides, dtype, device

    @property
    def size(self):
        return int(_np.prod(self.shape, dtype=_np.int64)) if self.shape else 1

    @property
    def itemsize(self):
        code, bits, lanes = self.dtype
        return bits * lanes // 8

    @property
    def nbytes(self):
        return self.size * self.itemsize


def _is_c_contiguous(shape, strides):
    if strides is None or any(int(extent) == 0 for extent in shape):
        return True  # an empty array has no layout to copy
    expected = 1
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


_TYPESTR_CODES = {"i": _INT, "u": _UINT, "f": _FLOAT, "c": _COMPLEX, "b": _BOOL}


def import_array(x, ctx, name):
    """The GPU array x as an _Array on ctx's stream (zero-copy). Raises ValueError for a
    non-contiguous array or one on another device than ctx."""
    if hasattr(x, "__dlpack__"):
        if ctx.framework == "torch" and getattr(x, "requires_grad", False):
            x = x.detach()
        capsule = x.__dlpack__(stream=ctx.stream)
        view = _cu.view(capsule)
        if view.device_type not in _GPU_DEVICE_TYPES:
            raise ValueError("%s: must be a CUDA array, got DLPack device type %d" % (name, view.device_type))
        array = _Array(x, view, int(view.ptr), view.shape, list(view.strides), tuple(view.dtype), int(view.device_id))
    else:
        cai = x.__cuda_array_interface__
        ptr = int(cai["data"][0])
        dt = _np.dtype(cai["typestr"])
        if dt.kind not in _TYPESTR_CODES:
            raise TypeError("%s: unsupported __cuda_array_interface__ typestr %r" % (name, cai["typestr"]))
        shape = tuple(int(d) for d in cai["shape"])
        strides = cai.get("strides")
        if strides is not None:
            if any(s % dt.itemsize for s in strides):
                raise ValueError("%s: strides must be multiples of the item size" % name)
            strides = [int(s) // dt.itemsize for s in strides]
        if ptr == 0 and int(_np.prod(shape, dtype=_np.int64)) != 0:
            raise ValueError("%s: __cuda_array_interface__ gives a null data pointer for %s items"
                             % (name, int(_np.prod(shape, dtype=_np.int64))))
        device = _cu.pointer_device(ptr) if ptr else ctx.device
        producer = cai.get("stream")
        if producer is not None and int(producer) != ctx.stream:
            _cu.stream_wait(int(producer), ctx.stream, device)
        bits = dt.itemsize * 8
        code = _TYPESTR_CODES[dt.kind]
        if dt.kind == "c":
            bits = dt.itemsize * 8
        array = _Array(x, None, ptr, shape, strides, (code, bits, 1), device)
    if array.device != ctx.device:
        raise ValueError("%s: is on cuda:%d, the call runs on cuda:%d (all arrays must be on one device)"
                         % (name, array.device, ctx.device))
    if not _is_c_contiguous(array.shape, array.strides):
        raise ValueError("%s: a non-contiguous GPU array (shape %s, strides %s in elements); onepass works in place "
                         "on the GPU and does not copy: pass a contiguous array (e.g. x.contiguous() / "
                         "cupy.ascontiguousarray(x))" % (name, array.shape, tuple(array.strides)))
    return array


_NUMPY_OF = {(_INT, 8): "int8", (_INT, 16): "int16", (_INT, 32): "int32", (_INT, 64): "int64",
             (_UINT, 8): "uint8", (_UINT, 16): "uint16", (_UINT, 32): "uint32", (_UINT, 64): "uint64",
             (_FLOAT, 16): "float16", (_FLOAT, 32): "float32", (_FLOAT, 64): "float64",
             (_COMPLEX, 64): "complex64", (_COMPLEX, 128): "complex128", (_BOOL, 8): "bool"}


def dtype_name(dtype):
    code, bits, lanes = dtype
    if code == _BFLOAT and bits == 16:
        return "bfloat16"
    return _NUMPY_OF.get((code, bits), "dlpack(code=%d, bits=%d, lanes=%d)" % (code, bits, lanes))


def empty(ctx, shape, like_array=None, dtype=None):
    """A new array of ctx's framework on ctx's device, shaped `shape`, with the dtype of
    `like_array` (the framework object) or `dtype` (a DLPack (code, bits, lanes) triple).
    Returns (framework array or pending owned array, pointer)."""
    shape = tuple(int(d) for d in shape)
    if ctx.framework == "torch":
        import torch
        tdtype = like_array.dtype if like_array is not None else getattr(torch, dtype_name(dtype))
        out = torch.empty(shape, dtype=tdtype, device=ctx.like)
        return out, int(out.data_ptr())
    if ctx.framework == "cupy":
        import cupy
        with cupy.cuda.Device(ctx.device):
            out = cupy.empty(shape, dtype=like_array.dtype if like_array is not None else dtype_name(dtype))
        return out, int(out.data.ptr)
    if dtype is None:
        raise AssertionError("dtype needed for owned arrays")
    code, bits, lanes = dtype
    out, ptr = _cu.owned_array(list(shape), code, bits * lanes, ctx.device, ctx.stream)
    return out, int(ptr)


def finish(ctx, result):
    """Hands results to the caller: for JAX / unknown producers waits for the stream, then
    wraps the owned arrays (jax.dlpack.from_dlpack for JAX)."""
    if not ctx.sync:
        return result
    _cu.synchronize(ctx.stream, ctx.device)
    if ctx.framework == "jax":
        import jax.dlpack
        if isinstance(result, tuple):
            return tuple(jax.dlpack.from_dlpack(_Exported(r, ctx.device)) for r in result)
        return jax.dlpack.from_dlpack(_Exported(result, ctx.device))
    return result


class _Exported:
    """An owned CUDA buffer (from owned_array) offered to ``jax.dlpack.from_dlpack``, which
    takes only objects with ``__dlpack__`` and ``__dlpack_device__``. The stream is already
    synchronised when this is handed out, so the consumer's ``stream`` needs no wait."""

    def __init__(self, obj, device):
        self._obj = obj
        self._device = int(device)

    def __dlpack_device__(self):
        return (2, self._device)  # kDLCUDA

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):  # noqa: ARG002
        if hasattr(self._obj, "__dlpack__"):
            return self._obj.__dlpack__()
        return self._obj  # already a DLPack capsule


def output_like(out, a, ctx, x):
    """The result array for input x (imported as a): the caller's `out` (checked by
    check_out) or a new array of a's shape and dtype in x's framework; (array, data pointer)."""
    if out is not None:
        return out, check_out(out, a, ctx, x).ptr
    return empty(ctx, a.shape, like_array=x if ctx.framework in ("torch", "cupy") else None, dtype=a.dtype)


def check_out(out, x_array, ctx, x_obj):
    """Imports a user `out=` for x: same framework type, device, shape, dtype, contiguous, no
    overlap with x."""
    if type(out) is not type(x_obj):
        raise TypeError("out: must be a %s like x, got %s" % (type(x_obj).__name__, type(out).__name__))
    if ctx.sync:
        raise TypeError("out: not supported for %s arrays (they cannot be written in place)" % ctx.framework)
    out_array = import_array(out, ctx, "out")
    if out_array.shape != x_array.shape or out_array.dtype != x_array.dtype:
        raise ValueError("out: must have x's shape %s and dtype %s, got %s and %s"
                         % (x_array.shape, dtype_name(x_array.dtype), out_array.shape, dtype_name(out_array.dtype)))
    if x_array.nbytes and out_array.ptr < x_array.ptr + x_array.nbytes and x_array.ptr < out_array.ptr + out_array.nbytes:
        raise ValueError("out: must not overlap x (the shuffle is out of place)")
    return out_array


# ---------------------------------------------------------------------------------------
# Operations (arguments already checked by onepass/__init__.py where they do not depend
# on the array; these check the arrays).

def shuffle(x, seed, axis, out, rounds, inverse):
    ctx = _context_of(x, "x")
    a = import_array(x, ctx, "x")
    if len(a.shape) == 0:
        raise ValueError("x: must have at least one dimension, got a 0-d array")
    ndim = len(a.shape)
    if isinstance(axis, (bool, _np.bool_)) or not isinstance(axis, (int, _np.integer)):
        raise TypeError("axis: must be an integer, got %s" % type(axis).__name__)
    if not -ndim <= int(axis) < ndim:
        raise ValueError("axis: must be in [%d, %d] for a %d-d array, got %d" % (-ndim, ndim - 1, ndim, axis))
    axis = int(axis) % ndim
    outer = int(_np.prod(a.shape[:axis], dtype=_np.int64)) if axis else 1
    n = a.shape[axis]
    row_bytes = int(_np.prod(a.shape[axis + 1:], dtype=_np.int64)) * a.itemsize if axis + 1 < ndim else a.itemsize
    if n > 2 ** 63:
        raise ValueError("x: the shuffled axis has %d elements; at most 2^63" % n)
    result, out_ptr = output_like(out, a, ctx, x)
    if a.size:
        _cu.shuffle_rows(a.ptr, out_ptr, outer, n, row_bytes, seed, rounds, inverse, ctx.stream, ctx.device)
    return finish(ctx, result)


def permutation(n, seed, rounds, device, like):
    ctx = context_for_device(device, like)
    result, ptr = empty(ctx, (n,), dtype=(_INT, 64, 1))
    if n:
        _cu.permutation(ptr, n, seed, rounds, ctx.stream, ctx.device)
    return finish(ctx, result)


def walking_indices(count, num_items, seed, rounds, first, stride, device, like):
    """count int64 indices sigma((first + k * stride) mod num_items) of the walking
    permutation for (num_items, seed, rounds), made on `device`'s current stream
    (onepass.data; arguments checked there)."""
    ctx = context_for_device(device, like)
    result, ptr = empty(ctx, (count,), dtype=(_INT, 64, 1))
    if count:
        _cu.walking_indices(ptr, count, num_items, seed, rounds, first, stride, ctx.stream, ctx.device)
    return finish(ctx, result)


def normal(shape, seed, single, mean, std, form, method, device, like):
    """onepass.normal on a GPU (arguments checked there); method: 0 float_native, 1
    rounded_double (the values of onepass::gaussian::method; floats only)."""
    ctx = context_for_device(device, like)
    result, ptr = empty(ctx, shape, dtype=(_FLOAT, 32 if single else 64, 1))
    count = int(_np.prod(shape, dtype=_np.int64)) if shape else 1
    if count:
        _cu.normal(ptr, count, single, mean, std, seed, form, method, ctx.stream, ctx.device)
    return finish(ctx, result)


def segmented(x, seed, offsets, out, rounds, inverse):
    ctx = _context_of(x, "x")
    a = import_array(x, ctx, "x")
    if a.itemsize not in (1, 2, 4, 8, 16):
        raise TypeError("x: dtype must have 1, 2, 4, 8 or 16 bytes per item, got %s" % dtype_name(a.dtype))
    offsets_ptr, offset_bytes = 0, 0
    if offsets is None:
        if len(a.shape) != 2:
            raise ValueError("x: without offsets, must be 2-d (rows are the segments), got %d-d" % len(a.shape))
        num_segments, row = a.shape
    else:
        if len(a.shape) != 1:
            raise ValueError("x: with offsets, must be 1-d, got %d-d" % len(a.shape))
        if not is_gpu_array(offsets):
            raise ValueError("offsets: must be a CUDA array on x's device (cuda:%d) when x is on the GPU, got %s"
                             % (ctx.device, type(offsets).__name__))
        o = import_array(offsets, ctx, "offsets")
        if len(o.shape) != 1 or o.shape[0] < 1:
            raise ValueError("offsets: must be a 1-d array of num_segments + 1 begin offsets, got shape %s"
                             % (o.shape,))
        if o.dtype not in ((_INT, 32, 1), (_INT, 64, 1)):
            raise TypeError("offsets: dtype must be int32 or int64, got %s" % dtype_name(o.dtype))
        offsets_ptr, offset_bytes = o.ptr, o.itemsize
        num_segments, row = o.shape[0] - 1, 0
    result, out_ptr = output_like(out, a, ctx, x)
    if a.size or offsets is not None:
        _cu.segmented(a.ptr, out_ptr, a.size, a.itemsize, offsets_ptr, offset_bytes, num_segments, row, seed, rounds,
                      inverse, ctx.stream, ctx.device)
    return finish(ctx, result)


_KEY_KINDS = {(_UINT, 32): "u", (_INT, 32): "i", (_FLOAT, 32): "f", (_UINT, 64): "u", (_INT, 64): "i",
              (_FLOAT, 64): "f"}


def _sort_keys_array(keys, begin_bit, end_bit):
    ctx = _context_of(keys, "keys")
    k = import_array(keys, ctx, "keys")
    if len(k.shape) != 1:
        raise ValueError("keys: must be 1-d, got %d dimensions" % len(k.shape))
    kind = _KEY_KINDS.get((k.dtype[0], k.dtype[1])) if k.dtype[2] == 1 else None
    if kind is None:
        raise TypeError("keys: dtype must be one of uint32, int32, float32, uint64, int64, float64, got %s"
                        % dtype_name(k.dtype))
    begin, end = check_bit_range(begin_bit, end_bit, k.dtype[1])
    return ctx, k, kind, begin, end


def check_bit_range(begin_bit, end_bit, width):
    """(begin, end) of a sort's bit range for keys of `width` bits (end_bit None: the width).
    Raises TypeError for a non-integer and ValueError outside 0 <= begin_bit < end_bit <= width
    (the CPU and GPU paths both check with this)."""
    for name, value in (("begin_bit", begin_bit), ("end_bit", end_bit)):
        if value is not None and (isinstance(value, (bool, _np.bool_)) or not isinstance(value, (int, _np.integer))):
            raise TypeError("%s: must be an integer, got %s" % (name, type(value).__name__))
    end = width if end_bit is None else int(end_bit)
    if not 1 <= end <= width:
        raise ValueError("end_bit: must be in [1, %d] (the key width), got %d" % (width, end))
    if not 0 <= int(begin_bit) < end:
        raise ValueError("begin_bit: must be in [0, end_bit) = [0, %d), got %d" % (end, int(begin_bit)))
    return int(begin_bit), end


def _sort_values_array(values, ctx, n):
    """The imported values of a sort of n keys in ctx, checked: a 1-d CUDA array of the keys'
    framework with n elements of 4 or 8 bytes. Raises ValueError / TypeError naming values."""
    if not is_gpu_array(values) or _framework(values) != ctx.framework:
        raise ValueError("values: must be a CUDA array of the keys' framework on cuda:%d" % ctx.device)
    v = import_array(values, ctx, "values")
    if len(v.shape) != 1 or v.shape[0] != n:
        raise ValueError("values: must be 1-d with as many elements as keys (%d), got shape %s" % (n, v.shape))
    if v.itemsize not in (4, 8):
        raise TypeError("values: dtype must have 4 or 8 bytes per element, got %s (use argsort)"
                        % dtype_name(v.dtype))
    return v


def check_sort_values(keys, values):
    """Checks ``values`` for a sort of the GPU ``keys`` as sort() does (errors as there)."""
    ctx, k, _, _, _ = _sort_keys_array(keys, 0, None)
    _sort_values_array(values, ctx, k.shape[0])


def sort(keys, values, descending, begin_bit, end_bit):
    global last_sort_algorithm
    ctx, k, kind, begin, end = _sort_keys_array(keys, begin_bit, end_bit)
    n = k.shape[0]
    own = ctx.framework in ("torch", "cupy")
    v = None if values is None else _sort_values_array(values, ctx, n)
    keys_out, keys_ptr = empty(ctx, (n,), like_array=keys if own else None, dtype=k.dtype)
    values_out, values_ptr = (None, 0) if v is None else empty(ctx, (n,), like_array=values if own else None,
                                                                 dtype=v.dtype)
    if n:
        last_sort_algorithm = _cu.sort(k.ptr, keys_ptr, 0 if v is None else v.ptr, values_ptr, n, kind,
                                       k.itemsize, 0 if v is None else v.itemsize, begin, end, bool(descending),
                                       ctx.stream, ctx.device)
    if v is None:
        return finish(ctx, keys_out)
    return finish(ctx, (keys_out, values_out))


def argsort(keys, descending, begin_bit, end_bit):
    global last_sort_algorithm
    ctx, k, kind, begin, end = _sort_keys_array(keys, begin_bit, end_bit)
    n = k.shape[0]
    index_out, index_ptr = empty(ctx, (n,), dtype=(_INT, 64, 1))
    if n:
        last_sort_algorithm = _cu.argsort(k.ptr, index_ptr, n, kind, k.itemsize, begin, end, bool(descending),
                                          ctx.stream, ctx.device)
    return finish(ctx, index_out)

