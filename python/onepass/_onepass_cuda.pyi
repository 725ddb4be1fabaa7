"""
onepass GPU launches (CUDA) behind the functions of `onepass`; use those.
"""

from collections.abc import Sequence
from typing import Annotated

from numpy.typing import NDArray


class DLView:
    """
    An imported DLPack tensor: pointer, shape, strides (in elements), dtype, device.
    """

    @property
    def ptr(self) -> int: ...

    @property
    def shape(self) -> list[int]: ...

    @property
    def strides(self) -> list[int]: ...

    @property
    def dtype(self) -> tuple[int, int, int]: ...

    @property
    def device_type(self) -> int: ...

    @property
    def device_id(self) -> int: ...

def view(capsule: Annotated[NDArray, dict(writable=False)]) -> DLView:
    """
    Imports a DLPack capsule (or any object nanobind imports) without a copy.
    """

def owned_array(shape: Sequence[int], code: int, bits: int, device: int, stream: int) -> tuple:
    """
    (array, pointer): a new device array (cudaMallocAsync on stream; freed with cudaFreeAsync on it), exportable by DLPack.
    """

def shuffle_rows(arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: int, arg6: int, arg7: bool, arg8: int, arg9: int, /) -> str: ...

def permutation(arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: int, /) -> None: ...

def walking_indices(arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: int, arg6: int, arg7: int, arg8: int, /) -> None: ...

def segmented(arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: int, arg6: int, arg7: int, arg8: int, arg9: int, arg10: bool, arg11: int, arg12: int, /) -> None: ...

def sort(arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: str, arg6: int, arg7: int, arg8: int, arg9: int, arg10: bool, arg11: int, arg12: int, /) -> str: ...

def argsort(arg0: int, arg1: int, arg2: int, arg3: str, arg4: int, arg5: int, arg6: int, arg7: bool, arg8: int, arg9: int, /) -> str: ...

def normal(arg0: int, arg1: int, arg2: bool, arg3: float, arg4: float, arg5: int, arg6: int, arg7: int, arg8: int, arg9: int, /) -> None: ...

def synchronize(arg0: int, arg1: int, /) -> None: ...

def stream_wait(arg0: int, arg1: int, arg2: int, /) -> None: ...

has_nccl: bool = True

def nccl_unique_id() -> bytes:
    """
    ncclGetUniqueId: the 128 bytes rank 0 hands to the other ranks of a new communicator.
    """

def nccl_comm_init(unique_id: bytes, nranks: int, rank: int, device: int) -> int:
    """
    ncclCommInitRank with `device` current (collective): the communicator's handle (an integer).
    """

def nccl_comm_destroy(comm: int, abort: bool) -> None:
    """
    ncclCommDestroy (abort=False; every rank) or ncclCommAbort (abort=True; local).
    """

def nccl_comm_rank_count(comm: int) -> tuple[int, int]:
    """(rank, number of ranks) of a communicator handle."""

def nccl_version() -> int:
    """ncclGetVersion of the NCCL library loaded."""

def distributed_sort_bytes(arg0: int, arg1: str, arg2: int, arg3: int, arg4: int, arg5: int, arg6: bool, arg7: int, arg8: int, arg9: int, arg10: int, /) -> int: ...

def distributed_sort(arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: int, arg6: int, arg7: str, arg8: int, arg9: int, arg10: int, arg11: int, arg12: bool, arg13: int, arg14: int, arg15: int, arg16: int, /) -> tuple[int, int]: ...

def distributed_shuffle_bytes(arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: int, /) -> int: ...

def distributed_shuffle(arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: int, arg6: int, arg7: int, arg8: int, arg9: bool, arg10: int, arg11: int, arg12: int, /) -> None: ...

def pointer_device(arg: int, /) -> int: ...

def device_count() -> int: ...
