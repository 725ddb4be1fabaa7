"""onepass: bandwidth-optimal random primitives on NumPy arrays (CPU, oneTBB) and on CUDA
arrays of PyTorch, CuPy and JAX (GPU, zero-copy).

The permutation is the bijective shuffle of Mitchell et al., "Bandwidth-Optimal Random
Shuffling for GPUs" (§3.2 VariablePhilox bijection, §4 Algorithm 1, the fused scan),
computed by the C++ library: for the same (n, seed, rounds) it is the permutation of the
C++ function ``onepass::shuffle::cpu::variable_philox_shuffle`` (CPU), of
``onepass::shuffle::gpu::bijective_shuffle`` (GPU) and of ``onepass permutation --n N
--seed S`` (output j = input ``p[j]``) — the same numbers on the CPU and the GPU.

``normal`` draws from the warp-parallel Gaussian generator (the article "Training a random
Gaussian generator"): the values of the C++ ``onepass::gaussian::cpu::generate_normal`` and
of ``onepass::gaussian::gpu::generate_normal`` for the same seed; float32 comes by default from the
float-native generator (issue 30: ``cpu::generate_normal`` with ``method::float_native``),
``method="rounded_double"`` gives the float64 samples rounded to nearest. ``sort`` /
``argsort`` run the library's CPU LSD radix sort on NumPy arrays and ``onepass::sort``
(onesweep or the hybrid MSD sort) on GPU arrays.

Arrays. NumPy arrays (and anything ``numpy.asarray`` takes) run on the CPU. An object whose
``__dlpack_device__()`` is CUDA (torch tensors, CuPy arrays, JAX arrays on a GPU), or one
with ``__cuda_array_interface__``, runs on the GPU in place: no host copy, no device copy of
the input; the result is a new array of the same framework on the same device. Non-contiguous
GPU arrays are refused (ValueError) rather than copied. The work is enqueued on the caller's
current stream (``torch.cuda.current_stream()``, ``cupy.cuda.get_current_stream()``), passed
to ``__dlpack__(stream=...)`` as the DLPack protocol asks; nothing waits on the host. JAX has
no user stream: JAX inputs are imported on the legacy default stream, the work runs there
and the call waits for it before handing the result to JAX. See ``onepass._gpu``.
``permutation`` and ``normal`` take ``device=`` ("cpu", "cuda", "cuda:N", a torch.device or
an int) and ``like=`` (None: torch if importable, else cupy, else jax; or "torch", "cupy",
"jax") for the framework of a GPU result.

Without the CUDA module (built only when nvcc is found), GPU arrays raise TypeError.

``onepass.data`` (imported with the package; it does not import torch) holds the data-loader
side: ``epoch_indices`` and ``DistributedShuffleSampler``, a drop-in for torch's
``DistributedSampler`` whose order is computed per position (cycle walking over the same
bijection), identical on any number of ranks and resumable mid-epoch.
"""

# Annotations stay as written (``x: '_npt.ArrayLike'``), so help(onepass) shows them as they
# read in the source instead of NumPy's expanded typing unions.
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import numpy as _np
import numpy.typing as _npt

from . import _onepass
from . import _gpu
from . import _float_order

__all__ = ["shuffle", "unshuffle", "permutation", "segmented_shuffle", "segmented_unshuffle", "segment_seed",
           "normal", "sort", "argsort", "data", "__version__", "DEFAULT_ROUNDS", "NORMAL_METHODS"]

__version__ = _onepass.__version__
#: Feistel rounds of the VariablePhilox bijection unless given (the paper's recommendation, §5).
DEFAULT_ROUNDS = int(_onepass.default_rounds)
_MAX_LENGTH = int(_onepass.max_length)
_MAX_SEED = 2 ** 64 - 1


def _check_seed(seed, name="seed"):
    if isinstance(seed, (bool, _np.bool_)) or not isinstance(seed, (int, _np.integer)):
        raise TypeError("%s: must be an integer in [0, 2^64-1], got %s" % (name, type(seed).__name__))
    value = int(seed)
    if not 0 <= value <= _MAX_SEED:
        raise ValueError("%s: must be in [0, 2^64-1], got %d" % (name, value))
    return value


def _check_rounds(rounds):
    if isinstance(rounds, (bool, _np.bool_)) or not isinstance(rounds, (int, _np.integer)):
        raise TypeError("rounds: must be an integer in [1, 64], got %s" % type(rounds).__name__)
    if not 1 <= int(rounds) <= 64:
        raise ValueError("rounds: must be in [1, 64], got %d" % int(rounds))
    return int(rounds)


def _as_numpy(x, name="x"):
    if isinstance(x, _np.ndarray):
        return x
    if _gpu.is_gpu_array(x):
        if not _gpu.available():
            _gpu._require_module(name)
        raise ValueError("%s: a GPU array, but the call runs on the CPU (the first array is a CPU array); all "
                         "arrays must be on one device" % name)
    if hasattr(x, "__dlpack_device__"):
        try:
            device_type = int(x.__dlpack_device__()[0])
        except Exception:  # noqa: BLE001 - an object that cannot say where it lives is not a CPU array
            device_type = -1
        if device_type not in (1, 3):  # kDLCPU, kDLCUDAHost
            raise TypeError("%s: arrays on DLPack device type %d are not supported (CPU or CUDA only)"
                            % (name, device_type))
    return _np.asarray(x)


def _check_descending(descending):
    """descending must be a bool (Python or NumPy): a string such as 'yes' is refused."""
    if not isinstance(descending, (bool, _np.bool_)):
        raise TypeError("descending: must be a bool, got %s" % type(descending).__name__)
    return bool(descending)


def _run(x, seed, axis, out, rounds, inverse, function):
    if x is None:
        raise TypeError("x: must be an array (NumPy, a CUDA array or an array-like), got None")
    seed = _check_seed(seed)
    rounds = _check_rounds(rounds)
    if _gpu.is_gpu_array(x):
        return _gpu.shuffle(x, seed, axis, out, rounds, inverse)
    x = _as_numpy(x)
    if x.ndim == 0:
        raise ValueError("x: must have at least one dimension, got a 0-d array")
    if x.dtype.hasobject:
        raise TypeError("x: dtype %s holds Python objects; only fixed-size dtypes (numbers, bool, records of "
                        "them) can be shuffled" % x.dtype)
    if isinstance(axis, (bool, _np.bool_)) or not isinstance(axis, (int, _np.integer)):
        raise TypeError("axis: must be an integer, got %s" % type(axis).__name__)
    if not -x.ndim <= int(axis) < x.ndim:
        raise ValueError("axis: must be in [%d, %d] for a %d-d array, got %d" % (-x.ndim, x.ndim - 1, x.ndim, axis))
    axis = int(axis) % x.ndim
    n = x.shape[axis]
    if n > _MAX_LENGTH:
        raise ValueError("x: the shuffled axis has %d elements; at most 2^63" % n)
    if out is not None:
        if not isinstance(out, _np.ndarray):
            raise TypeError("out: must be a NumPy array like x, got %s" % type(out).__name__)
        if out.shape != x.shape or out.dtype != x.dtype:
            raise ValueError("out: must have x's shape %s and dtype %s, got %s and %s"
                             % (x.shape, x.dtype, out.shape, out.dtype))
        if not out.flags.writeable:
            raise ValueError("out: must be writeable")
        if _np.shares_memory(out, x):
            raise ValueError("out: must not overlap x (the shuffle is out of place)")
    # Rows along `axis`, each row contiguous: one copy when x is not already laid out so.
    src = _np.ascontiguousarray(_np.moveaxis(x, axis, 0))
    row_bytes = src.dtype.itemsize * (src.size // n if n else 0)
    result = _np.empty_like(src)
    if n and row_bytes:
        function(src.reshape(n, -1).view(_np.uint8).reshape(n, row_bytes),
                 result.reshape(n, -1).view(_np.uint8).reshape(n, row_bytes), seed, rounds, inverse)
    result = _np.moveaxis(result, 0, axis)
    if out is None:
        return result
    out[...] = result
    return out


def shuffle(x: _npt.ArrayLike, seed: int, *, axis: int = 0, out: Optional[_np.ndarray] = None,
            rounds: int = DEFAULT_ROUNDS) -> _np.ndarray:
    """Random permutation of ``x`` along ``axis``, out of place.

    x: array-like of any fixed-size dtype (int8 … float64, bool, complex, structured
    records), at least 1-d; the sub-arrays along ``axis`` move as wholes (rows of a 2-d
    array for axis 0). seed: integer in [0, 2^64-1]. rounds: VariablePhilox Feistel
    rounds in [1, 64] (default 24, §5). out: optional NumPy array of x's shape and dtype,
    not overlapping x; returned when given.

    Returns ``y`` with ``y[j] = x[p[j]]`` along ``axis`` where ``p = permutation(n, seed)``:
    the permutation of the C++ library and the CLI (Mitchell et al., §3.2 and Algorithm 1).
    A non-contiguous NumPy x (or an axis other than the first) costs one copy to lay the rows
    out. A CUDA x (torch / CuPy / JAX / ``__cuda_array_interface__``) must be C-contiguous
    and is shuffled in place of its memory into a new array of its framework (any axis, no
    copy of x) by ``gpu::bijective_shuffle`` on the caller's stream; ``out`` must then be an
    array of the same framework and device.

    Raises TypeError for a non-integer seed/rounds/axis, object dtypes, GPU arrays without
    the CUDA module, or an ``out`` not of x's array type; ValueError for values out of range,
    a 0-d x, a non-contiguous GPU x, arrays on different devices, or an ``out`` of the wrong
    shape/dtype, read-only or overlapping x (nothing written then).
    """
    return _run(x, seed, axis, out, rounds, False, _onepass.shuffle_bytes)


def unshuffle(x: _npt.ArrayLike, seed: int, *, axis: int = 0, out: Optional[_np.ndarray] = None,
              rounds: int = DEFAULT_ROUNDS) -> _np.ndarray:
    """The inverse of :func:`shuffle` for the same seed, rounds and axis:
    ``unshuffle(shuffle(x, s), s)`` equals ``x``. Arguments, shapes and errors as
    :func:`shuffle` (the library's cpu::bijective_unshuffle, which scatters along the same
    fused scan)."""
    return _run(x, seed, axis, out, rounds, True, _onepass.shuffle_bytes)


def permutation(n: int, seed: int, *, rounds: int = DEFAULT_ROUNDS, device=None, like: Optional[str] = None):
    """The permutation of 0 … n-1 that :func:`shuffle` applies for this seed: an int64
    array ``p`` of length n with ``shuffle(x, seed)[j] == x[p[j]]``; equal to the output of
    ``onepass permutation --n n --seed seed``, on the CPU and on the GPU.

    n: integer in [0, 2^63 - 1] (memory permitting); seed: integer in [0, 2^64-1];
    rounds: [1, 64]. device: None or "cpu" (a NumPy array, oneTBB), or "cuda", "cuda:N", a
    torch.device or an int N (a GPU array made by the library's gpu::bijective_shuffle of
    0 … n-1 on the current stream of that device). like: the framework of a GPU result —
    None (torch if importable, else cupy, else jax), "torch", "cupy" or "jax" (JAX arrays
    need ``jax_enable_x64`` for int64). Mitchell et al. §3.2, §4 Algorithm 1.
    Raises TypeError / ValueError naming the argument (n, seed, rounds, device, like).
    """
    if isinstance(n, (bool, _np.bool_)) or not isinstance(n, (int, _np.integer)):
        raise TypeError("n: must be an integer in [0, 2^63-1], got %s" % type(n).__name__)
    if not 0 <= int(n) < 2 ** 63:
        raise ValueError("n: must be in [0, 2^63-1], got %d" % int(n))
    seed = _check_seed(seed)
    rounds = _check_rounds(rounds)
    if _gpu.parse_device(device) is not None:
        return _gpu.permutation(int(n), seed, rounds, device, like)
    if like is not None:
        raise ValueError("like: only for a CUDA device, got like=%r with device=%r" % (like, device))
    p = _np.empty(int(n), dtype=_np.uint64)
    if n:
        _onepass.permutation_into(p, seed, rounds)
    return p.view(_np.int64)


#: The float32 generators of :func:`normal` (``method=``); values of the C++ enum onepass::gaussian::method.
NORMAL_METHODS = ("float_native", "rounded_double")
_NORMAL_METHOD_CODES = {"float_native": 0, "rounded_double": 1}
# The float-native generator's argument range (float_cpu_generate.hpp, check_float_generate_args).
_FLOAT_NATIVE_MAX_MEAN = 3.4e38
_FLOAT_NATIVE_MAX_STD = 1e30


def normal(shape: Union[int, Sequence[int]], seed: int, *, dtype: _npt.DTypeLike = _np.float64, mean: float = 0.0,
           std: float = 1.0, coefficients: int = 4, method: str = "float_native", device=None,
           like: Optional[str] = None):
    """Normal samples N(mean, std^2) of the warp-parallel Gaussian generator (article
    "Training a random Gaussian generator": a Hadamard butterfly over a warp of 32 table
    lookups; the library's optimised table), as a new array.

    shape: int or tuple of ints (>= 0); seed: integer in [0, 2^64-1]; dtype: float64 or
    float32; mean: finite; std: finite, >= 0.

    float64: element i (in C order) is output i of ``cpu::generate_normal(out, n, mean, std,
    seed, default_table(), form)`` with coefficients: 3 or 4 (the polynomial form; 4, the
    default, is the library's). ``method`` does not apply to float64 (it is checked, then
    ignored).

    float32, by ``method`` (one of ``NORMAL_METHODS``):
      "float_native" (default): the float-native generator (issue 30; the article's
        generator in float form, onepass/gaussian/float_lane.hpp: an exact float butterfly
        over the default table divided by 2^7, three float FMAs): element i is output i of
        ``cpu::generate_normal(out, n, mean, std, seed)`` (default_float_table()), its
        own generator with its own fixed float coefficients, not the float64 values rounded.
        ``coefficients`` does not apply: 4 (the default) is accepted and 3 raises ValueError.
        Needs |mean| <= 3.4e38 (mean is rounded to float) and std <= 1e30.
      "rounded_double": the float64 samples for the same (seed, mean, std, coefficients)
        rounded to nearest (the behaviour before the float-native generator was the
        default): ``cpu::generate_normal(out, ..., default_table(), form)`` on floats.

    device: None or "cpu" (NumPy), or "cuda", "cuda:N", a torch.device or an int N: the
    samples are made on that GPU by ``onepass::gaussian::generate_normal`` (float64 and
    "rounded_double": with default_table() and the form; "float_native": the float overload
    with ``method::float_native``) on its current stream, bit-identical to the CPU values for
    the same (shape, seed, dtype, method, mean, std, coefficients); like: the framework of
    the GPU result (None: torch if importable, else cupy, else jax; "torch", "cupy" or
    "jax"). dtype may also be torch.float32 / torch.float64.

    Raises TypeError / ValueError naming the argument (shape, seed, dtype, mean, std,
    coefficients, method, device, like); ValueError for a method other than
    "float_native" / "rounded_double".
    """
    import math
    if isinstance(shape, (int, _np.integer)) and not isinstance(shape, (bool, _np.bool_)):
        shape = (int(shape),)
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError("shape: must be an int or a tuple of ints, got %s" % type(shape).__name__) from None
    if any(d < 0 for d in shape):
        raise ValueError("shape: dimensions must be >= 0, got %s" % (shape,))
    seed = _check_seed(seed)
    if type(dtype).__module__.split(".")[0] == "torch":  # torch.float32 / torch.float64
        dtype = str(dtype).split(".")[-1]
    try:
        dt = _np.dtype(dtype)
    except TypeError:
        raise TypeError("dtype: must be float64 or float32, got %r" % (dtype,)) from None
    if dt not in (_np.dtype(_np.float64), _np.dtype(_np.float32)):
        raise TypeError("dtype: must be float64 or float32, got %s" % dt)
    for name, value in (("mean", mean), ("std", std)):
        if not isinstance(value, (int, float, _np.integer, _np.floating)) or isinstance(value, bool):
            raise TypeError("%s: must be a real number, got %s" % (name, type(value).__name__))
        if not math.isfinite(float(value)):
            raise ValueError("%s: must be finite, got %r" % (name, value))
    if float(std) < 0:
        raise ValueError("std: must be >= 0, got %r" % std)
    if coefficients not in (3, 4) or isinstance(coefficients, bool):
        raise ValueError("coefficients: must be 3 or 4, got %r" % (coefficients,))
    if not isinstance(method, str) or method not in NORMAL_METHODS:
        raise ValueError("method: must be 'float_native' or 'rounded_double' (float32 only), got %r" % (method,))
    single = dt == _np.dtype(_np.float32)
    float_native = single and method == "float_native"
    if float_native:
        if int(coefficients) != 4:
            raise ValueError("coefficients: the float-native float32 generator has its own fixed form; "
                             "coefficients=%d needs dtype float64 or method='rounded_double'" % coefficients)
        if abs(float(mean)) > _FLOAT_NATIVE_MAX_MEAN:
            raise ValueError("mean: must be within float range (|mean| <= 3.4e38) for float32 with "
                             "method='float_native', got %r" % (mean,))
        if float(std) > _FLOAT_NATIVE_MAX_STD:
            raise ValueError("std: must be <= 1e30 for float32 with method='float_native', got %r" % (std,))
    code = _NORMAL_METHOD_CODES[method] if single else _NORMAL_METHOD_CODES["rounded_double"]
    if _gpu.parse_device(device) is not None:
        return _gpu.normal(shape, seed, single, float(mean), float(std), int(coefficients), code, device, like)
    if like is not None:
        raise ValueError("like: only for a CUDA device, got like=%r with device=%r" % (like, device))
    out = _np.empty(int(_np.prod(shape, dtype=_np.int64)), dtype=dt)
    if out.size:
        _onepass.normal_into(out, float(mean), float(std), seed, int(coefficients), code)
    return out.reshape(shape)


_SORT_KEYS = tuple(_np.dtype(t) for t in (_np.uint32, _np.int32, _np.float32, _np.uint64, _np.int64, _np.float64))


def _sort_args(keys, begin_bit, end_bit):
    keys = _as_numpy(keys, "keys")
    if keys.ndim != 1:
        raise ValueError("keys: must be 1-d, got %d dimensions" % keys.ndim)
    if keys.dtype.byteorder == ">":  # big-endian keys: sorted as their values, returned native
        keys = keys.astype(keys.dtype.newbyteorder("="))
    if keys.dtype not in _SORT_KEYS:
        raise TypeError("keys: dtype must be one of %s, got %s" % (", ".join(str(d) for d in _SORT_KEYS), keys.dtype))
    begin_bit, end = _gpu.check_bit_range(begin_bit, end_bit, keys.dtype.itemsize * 8)
    keys = _np.ascontiguousarray(keys)
    return keys, int(begin_bit), end


def _canonical_gpu(keys, float_order):
    """The canonical keys to sort instead of the GPU array ``keys`` for NumPy's float order
    (_float_order), or None when ``keys`` themselves give it (or float_order is "total").
    NumPy input needs none: the CPU sort reads the canonical form itself."""
    framework = _gpu._framework(keys)
    if float_order != "numpy" or framework not in ("numpy", "torch", "cupy", "jax") or \
            not _float_order.is_float(keys, framework):
        return None
    return _float_order.canonical_keys(keys, framework)


def sort(keys: _npt.ArrayLike, values: Optional[_npt.ArrayLike] = None, *, descending: bool = False,
         begin_bit: int = 0, end_bit: Optional[int] = None,
         float_order: str = "numpy") -> Union[_np.ndarray, Tuple[_np.ndarray, _np.ndarray]]:
    """Stable sort of ``keys`` (and ``values`` along with them), returned as new arrays.

    keys: 1-d array of uint32, int32, float32, uint64, int64 or float64. values: None, or a
    1-d array of the same length of any 4- or 8-byte dtype (other dtypes: use :func:`argsort`
    and take). descending: reverse order (ties keep their input order). begin_bit, end_bit:
    sort on bits [begin_bit, end_bit) of the order-preserving transform of the key (default:
    all bits). float_order: "numpy" (default: the order of ``np.sort``, ``torch.sort`` and
    ``cupy.sort`` — every NaN after every number whatever its sign and payload, NaNs equal
    to each other, -0.0 equal to +0.0, ties in input order; descending puts NaNs first) or
    "total" (IEEE 754 totalOrder, the C++ library's order: -0.0 before +0.0, NaNs by sign and
    payload, negative NaNs first); integer keys ignore it. With "numpy", keys are ordered by
    their canonical form (NaN -> +NaN, -0.0 -> +0.0), and the bit range applies to that form:
    NumPy input reads it in the sort itself (``onepass::sort::cpu::sort_keys_numpy_order``),
    GPU input holding -0.0 or another NaN sorts a canonical copy with the originals carried as
    values (``onepass._float_order``); the keys returned keep their own bits. Returns
    ``keys_sorted`` or ``(keys_sorted, values_sorted)``.
    NumPy input: the CPU LSD radix sort of the library (onepass/sort/cpu_radix_sort.hpp; the
    digit passes of the Onesweep paper, §2, without the GPU's single-pass binning). GPU input
    (keys and values contiguous CUDA arrays of one framework and device):
    ``onepass::sort::gpu::sort_keys`` / ``sort_pairs`` (Onesweep, Adinets & Merrill 2022, or the
    hybrid MSD sort, whichever the library's rule picks; the choice is left in
    ``onepass._gpu.last_sort_algorithm``) on the caller's stream; results are arrays of that
    framework.

    Raises TypeError for other key dtypes or value itemsizes or a descending that is not a
    bool, ValueError for shapes or bits out of range or another float_order (naming the
    argument).
    """
    descending = _check_descending(descending)
    _float_order.check_float_order(float_order)
    if _gpu.is_gpu_array(keys):
        canon = _canonical_gpu(keys, float_order)
        if canon is None:
            return _gpu.sort(keys, values, descending, begin_bit, end_bit)
        if values is None:  # the original keys travel as the values of their canonical copy
            return _gpu.sort(canon, keys, descending, begin_bit, end_bit)[1]
        _gpu.check_sort_values(keys, values)
        index = _gpu.argsort(canon, descending, begin_bit, end_bit)
        return keys[index], values[index]
    keys, begin, end = _sort_args(keys, begin_bit, end_bit)
    numpy_order = float_order == "numpy"  # NumPy keys: the sort reads canonical floats itself, no copy
    if values is None:
        keys_out = _np.empty_like(keys)
        if keys.size:
            _onepass.sort_keys(keys, keys_out, begin, end, bool(descending), numpy_order)
        return keys_out
    values = _as_numpy(values, "values")
    if values.ndim != 1 or values.shape[0] != keys.shape[0]:
        raise ValueError("values: must be 1-d with as many elements as keys (%d), got shape %s"
                         % (keys.shape[0], values.shape))
    if values.dtype.hasobject or values.dtype.itemsize not in (4, 8):
        raise TypeError("values: dtype must have 4 or 8 bytes per element, got %s (use argsort)" % values.dtype)
    values = _np.ascontiguousarray(values)
    word = _np.uint32 if values.dtype.itemsize == 4 else _np.uint64
    keys_out = _np.empty_like(keys)
    values_out = _np.empty_like(values)
    if keys.size:
        _onepass.sort_pairs(keys, keys_out, values.view(word), values_out.view(word), begin, end, bool(descending),
                            numpy_order)
    return keys_out, values_out


def _argsort_numpy(keys, begin, end, descending, numpy_order):
    index = _np.empty(keys.shape[0], dtype=_np.uint64)
    if keys.size:
        _onepass.argsort(keys, _np.empty_like(keys), index, begin, end, bool(descending), numpy_order)
    return index.view(_np.int64)


def argsort(keys: _npt.ArrayLike, *, descending: bool = False, begin_bit: int = 0,
            end_bit: Optional[int] = None, float_order: str = "numpy") -> _np.ndarray:
    """Indices (int64) that sort ``keys`` stably: ``keys[argsort(keys)]`` equals
    ``sort(keys)``. Arguments (float_order included) and errors as :func:`sort`; GPU keys
    give a GPU int64 array of their framework (``onepass::sort::gpu::sort_pairs`` of the keys
    with 0 … n-1)."""
    descending = _check_descending(descending)
    _float_order.check_float_order(float_order)
    if not _gpu.is_gpu_array(keys):
        keys, begin_bit, end_bit = _sort_args(keys, begin_bit, end_bit)
        return _argsort_numpy(keys, begin_bit, end_bit, descending, float_order == "numpy")
    canon = _canonical_gpu(keys, float_order)
    return _gpu.argsort(keys if canon is None else canon, descending, begin_bit, end_bit)


def segment_seed(seed: int, segment: int) -> int:
    """The seed with which segment ``segment`` of ``segmented_shuffle(x, seed)`` is shuffled:
    ``segmented_shuffle(x, seed)[s] == shuffle(x[s], segment_seed(seed, s))`` (rows), the
    library's onepass::shuffle::segment_seed. Both arguments: integers in [0, 2^64-1]."""
    return int(_onepass.segment_seed(_check_seed(seed), _check_seed(segment, "segment")))


def _segmented(x, seed, offsets, out, rounds, inverse):
    seed = _check_seed(seed)
    rounds = _check_rounds(rounds)
    if _gpu.is_gpu_array(x):
        return _gpu.segmented(x, seed, offsets, out, rounds, inverse)
    x = _as_numpy(x)
    if x.dtype.hasobject or x.dtype.itemsize not in (1, 2, 4, 8, 16):
        raise TypeError("x: dtype must have 1, 2, 4, 8 or 16 bytes per item, got %s" % x.dtype)
    if offsets is None:
        if x.ndim != 2:
            raise ValueError("x: without offsets, must be 2-d (rows are the segments), got %d-d" % x.ndim)
        num_segments, row = x.shape
        offs = _np.zeros(1, dtype=_np.int64)
    else:
        if x.ndim != 1:
            raise ValueError("x: with offsets, must be 1-d, got %d-d" % x.ndim)
        offs = _np.ascontiguousarray(_as_numpy(offsets, "offsets"))
        if offs.ndim != 1 or offs.shape[0] < 1 or offs.dtype.kind not in "iu":
            raise ValueError("offsets: must be a 1-d integer array of num_segments + 1 begin offsets")
        if offs.size and (int(offs[0]) != 0 or _np.any(_np.diff(offs.astype(_np.int64)) < 0)
                          or int(offs[-1]) > x.shape[0]):
            raise ValueError("offsets: must start at 0, not decrease, and end at most at len(x) = %d" % x.shape[0])
        offs = offs.astype(_np.int64)
        num_segments, row = offs.shape[0] - 1, 0
    if out is not None:
        if not isinstance(out, _np.ndarray):
            raise TypeError("out: must be a NumPy array, got %s" % type(out).__name__)
        if out.shape != x.shape or out.dtype != x.dtype:
            raise ValueError("out: must have x's shape %s and dtype %s, got %s and %s"
                             % (x.shape, x.dtype, out.shape, out.dtype))
        if not out.flags.writeable or _np.shares_memory(out, x):
            raise ValueError("out: must be writeable and must not overlap x")
    src = _np.ascontiguousarray(x)
    result = _np.empty_like(src)
    item = src.dtype.itemsize
    if src.size:
        _onepass.segmented_bytes(src.reshape(-1).view(_np.uint8).reshape(src.size, item),
                                 result.reshape(-1).view(_np.uint8).reshape(src.size, item), offs, num_segments, row,
                                 item, seed, rounds, inverse, offsets is not None)
    if out is None:
        return result
    out[...] = result
    return out


def segmented_shuffle(x: _npt.ArrayLike, seed: int, *, offsets: Optional[_npt.ArrayLike] = None,
                      out: Optional[_np.ndarray] = None, rounds: int = DEFAULT_ROUNDS) -> _np.ndarray:
    """Many independent shuffles in one call: each row of a 2-d ``x`` (``offsets=None``), or
    each segment ``x[offsets[s]:offsets[s+1]]`` of a 1-d ``x`` (CSR-style begin offsets,
    ``offsets[0] == 0``, non-decreasing, ``offsets[-1] <= len(x)``; items after the last
    offset are copied), shuffled with its own seed ``segment_seed(seed, s)``:
    ``segmented_shuffle(x, seed)[s] == shuffle(x[s], segment_seed(seed, s))`` — the
    library's onepass::shuffle::segmented_shuffle (CPU, oneTBB over the segments and inside
    long ones; on GPU arrays gpu::segmented_shuffle, the same values, with offsets a CUDA
    int32/int64 array on x's device, checked on the device before anything is written).
    x: items of 1, 2, 4, 8 or 16 bytes. seed: [0, 2^64-1]; rounds: [1, 64].
    Returns a new array (or ``out``). Raises TypeError / ValueError naming the argument;
    nothing is written then."""
    return _segmented(x, seed, offsets, out, rounds, False)


def segmented_unshuffle(x: _npt.ArrayLike, seed: int, *, offsets: Optional[_npt.ArrayLike] = None,
                        out: Optional[_np.ndarray] = None, rounds: int = DEFAULT_ROUNDS) -> _np.ndarray:
    """The inverse of :func:`segmented_shuffle` for the same seed, offsets and rounds."""
    return _segmented(x, seed, offsets, out, rounds, True)


from . import data  # noqa: E402 - after the names it imports from this package
