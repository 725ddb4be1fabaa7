"""
onepass CPU kernels (bijective shuffle, Mitchell et al. §3-4); use the functions of `onepass`.
"""

from typing import Annotated, overload

import numpy
from numpy.typing import NDArray


default_rounds: int = 24

max_length: int = 9223372036854775808

def shuffle_bytes(x: Annotated[NDArray[numpy.uint8], dict(shape=(None, None), order='C', device='cpu', writable=False)], out: Annotated[NDArray[numpy.uint8], dict(shape=(None, None), order='C', device='cpu')], seed: int, rounds: int, inverse: bool) -> None:
    """
    Rows of x (n x row_bytes uint8, C-contiguous) shuffled into out (same shape, distinct memory).
    """

def permutation_into(p: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], seed: int, rounds: int) -> None:
    """Writes the permutation of 0..n-1 for (seed, rounds) into p (n uint64)."""

@overload
def normal_into(out: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu')], mean: float, stddev: float, seed: int, form: int, method: int) -> None:
    """
    Fills out (n float64) with N(mean, stddev^2) samples of the warp Gaussian generator (method not used).
    """

@overload
def normal_into(out: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu')], mean: float, stddev: float, seed: int, form: int, method: int) -> None:
    """
    Fills out (n float32): method 0 (float_native) the float-native generator (cpu::generate_normal with method::float_native, form not used); 1 (rounded_double) the float64 samples of the form rounded to nearest.
    """

gaussian_isa: str = 'x86-64-v4'

def segmented_bytes(x: Annotated[NDArray[numpy.uint8], dict(shape=(None, None), order='C', device='cpu', writable=False)], out: Annotated[NDArray[numpy.uint8], dict(shape=(None, None), order='C', device='cpu')], offsets: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], num_segments: int, row_length: int, item: int, seed: int, rounds: int, inverse: bool, use_offsets: bool) -> None: ...

def segment_seed(seed: int, segment: int) -> int:
    """The seed of segment s of a segmented shuffle with `seed`."""

def walking_indices_into(out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], num_items: int, seed: int, rounds: int, first: int, stride: int) -> None:
    """
    Writes out[k] = sigma((first + k * stride) mod num_items) (out: count uint64), sigma the walking permutation of [0, num_items) for (seed, rounds).
    """

walking_isa: str = 'x86-64-v4'

def epoch_seed(seed: int, epoch: int) -> int:
    """
    The seed of epoch `epoch` of a data-loader order with base seed `seed`.
    """

@overload
def sort_keys(keys: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_keys(keys: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_keys(keys: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_keys(keys: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_keys(keys: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_keys(keys: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def sort_pairs(keys: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu')], values: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], values_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def argsort(keys: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')], index_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def argsort(keys: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu')], index_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def argsort(keys: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu')], index_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def argsort(keys: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], index_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def argsort(keys: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu')], index_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...

@overload
def argsort(keys: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], keys_out: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu')], index_out: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu')], begin_bit: int, end_bit: int, descending: bool, numpy_order: bool = False) -> None: ...
