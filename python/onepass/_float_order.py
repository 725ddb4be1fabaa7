"""The float order of :func:`onepass.sort` and :func:`onepass.argsort` (issue 32).

The library's sorts order floats in IEEE 754 totalOrder: -0.0 before +0.0 and NaNs by sign
and payload (so a NaN with its sign bit set, as x86 arithmetic makes them, sorts first).
NumPy, torch and CuPy order floats another way: every NaN after every number (whatever its
sign and payload) and all NaNs equal, -0.0 equal to +0.0, ties in input order. Python's
default ``float_order="numpy"`` gives that order with the same sorts: the keys are sorted
by their *canonical* form — every NaN replaced by the positive quiet NaN, -0.0 by +0.0,
which totalOrder places exactly as NumPy places the originals — while the original keys
travel as values. When no key changes (no NaN but the positive quiet one, no -0.0: the
usual case, found with one or two passes over the keys), the keys are sorted directly.
NumPy (CPU) keys need none of this: the CPU radix sort reads each key's canonical form
itself (``onepass::sort::cpu::sort_keys_numpy_order``), with no copy and no extra pass;
these functions serve the GPU arrays.

Works on NumPy arrays and on torch, CuPy and JAX CUDA arrays with their own element-wise
operations (on the caller's device and stream).
"""

import numpy as _np

ORDERS = ("numpy", "total")


def check_float_order(float_order):
    """float_order, checked: "numpy" or "total". Raises ValueError naming the argument."""
    if not isinstance(float_order, str) or float_order not in ORDERS:
        raise ValueError("float_order: must be 'numpy' (NaN last, -0.0 == +0.0, as NumPy, torch and CuPy sort) "
                         "or 'total' (IEEE totalOrder), got %r" % (float_order,))
    return float_order


def _array_module_ops(xp, x):
    """The operations of NumPy or CuPy (the same API; ``xp`` the module) on the keys ``x``."""
    def canonical():
        return xp.where(xp.isnan(x), xp.asarray(float("nan"), dtype=x.dtype),
                        xp.where(x == 0, xp.zeros((), dtype=x.dtype), x)).astype(x.dtype, copy=False)

    def same_bits(a):
        word = xp.uint32 if x.dtype.itemsize == 4 else xp.uint64
        return bool(xp.array_equal(a.view(word), x.view(word)))

    return lambda: bool((xp.isnan(x) | (x == 0)).any()), canonical, same_bits


def _numpy_ops(x):
    return _array_module_ops(_np, x)


def _torch_ops(x):
    import torch

    def canonical():
        nan = torch.full((), float("nan"), dtype=x.dtype, device=x.device)
        zero = torch.zeros((), dtype=x.dtype, device=x.device)
        return torch.where(torch.isnan(x), nan, torch.where(x == 0, zero, x))

    def same_bits(a):
        word = torch.int32 if x.element_size() == 4 else torch.int64
        return bool(torch.equal(a.view(word), x.view(word)))

    return lambda: bool((torch.isnan(x) | (x == 0)).any().item()), canonical, same_bits


def _cupy_ops(x):
    import cupy

    return _array_module_ops(cupy, x)


def _jax_ops(x):
    import jax
    import jax.numpy as jnp

    def canonical():
        nan = jnp.asarray(float("nan"), dtype=x.dtype)
        zero = jnp.zeros((), dtype=x.dtype)
        return jnp.where(jnp.isnan(x), nan, jnp.where(x == 0, zero, x)).astype(x.dtype)

    def same_bits(a):
        word = jnp.uint32 if x.dtype.itemsize == 4 else jnp.uint64
        return bool(jnp.array_equal(jax.lax.bitcast_convert_type(a, word), jax.lax.bitcast_convert_type(x, word)))

    return lambda: bool((jnp.isnan(x) | (x == 0)).any()), canonical, same_bits


def canonical_keys(x, framework):
    """The canonical form of float keys ``x`` (module docstring), or None when sorting ``x``
    directly gives NumPy's order already (no NaN but the positive quiet NaN, no -0.0).
    framework: "numpy", "torch", "cupy" or "jax" (the array's own operations are used)."""
    ops = {"numpy": _numpy_ops, "torch": _torch_ops, "cupy": _cupy_ops, "jax": _jax_ops}.get(framework)
    if ops is None:
        return None  # another framework: sorted in totalOrder (no operations to rewrite the keys with)
    has_specials, canonical, same_bits = ops(x)
    if not has_specials():
        return None
    c = canonical()
    return None if same_bits(c) else c


def is_float(x, framework):
    """Whether the keys ``x`` have a floating dtype (float32 or float64)."""
    if framework == "torch":
        return bool(x.dtype.is_floating_point)
    return _np.dtype(str(x.dtype)).kind == "f"
