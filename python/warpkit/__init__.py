"""warpkit: GPU parallel primitives (reduce, scan, select) for CUDA arrays.

    import torch, warpkit
    x = torch.rand(1 << 20, device="cuda")
    s = warpkit.sum(x)                      # 0-d tensor, asynchronous
    kept, count = warpkit.select(x, ">", 0.5)
    print(warpkit.trim(kept, count))        # synchronizes once

Arrays: anything with ``__cuda_array_interface__`` or ``__dlpack__`` on a CUDA
device (PyTorch, CuPy, JAX, Numba), contiguous, any shape (taken flat); dtypes
int32, uint32, int64, uint64, float32, float64, float16, bfloat16, bool,
uint8, int8, int16, uint16.  Outputs are arrays of the input's library; sums
follow the dtype rules of that library (PyTorch's for its tensors, NumPy's
for the others).  Reductions and scans also work row by
row with ``axis=-1``.  See README.md for axes, streams, graphs and errors.

The calls go through the extension module warpkit._native (C, CPython's
stable ABI).  The C library (libwarpkit.so) is loaded on first use, from
$WARPKIT_LIBRARY, next to this package, or through the system loader;
importing warpkit needs neither a GPU nor the library (nor PyTorch:
``warpkit.torch`` holds the torch.compile ops).
"""

from ._errors import (CaptureError, CudaError, Error, InvalidArgumentError, InvalidPointerError,
                      LibraryNotFoundError, LimitError, NoDeviceError, OutOfMemoryError,
                      UnsupportedError)
from . import _api, _lib
from ._api import library_path, repro_finalize, repro_partial, reserve, sm_count

_PUBLIC = ("sum", "min", "max", "reduce", "reduce_and", "reduce_or", "reduce_xor", "argmin", "argmax",
           "cumsum", "cummin", "cummax", "scan", "select", "select_range", "compress", "partition",
           "unique_consecutive", "nonzero", "trim", "count_nonzero")


def _unbuilt(name):
    def call(*args, **kwargs):
        _lib.native()  # raises LibraryNotFoundError: the extension is not built
    call.__name__ = call.__qualname__ = name
    call.__doc__ = "warpkit.%s (unavailable: the extension module warpkit._native is not built)" % name
    return call


if _lib._native is not None:
    _lib._native.setup(_api)
    globals().update({name: getattr(_lib._native, name) for name in _PUBLIC})
else:
    globals().update({name: _unbuilt(name) for name in _PUBLIC})

__version__ = "0.3.0"

dtypes = ("int32", "uint32", "int64", "uint64", "float32", "float64", "float16", "bfloat16",
          "bool", "uint8", "int8", "int16", "uint16")

__all__ = [
    "sum", "min", "max", "argmin", "argmax", "reduce", "reduce_and", "reduce_or", "reduce_xor",
    "cumsum", "cummin", "cummax", "scan", "count_nonzero",
    "select", "select_range", "compress", "partition", "unique_consecutive", "nonzero", "trim",
    "repro_partial", "repro_finalize", "reserve", "library_path", "sm_count", "dtypes",
    "Error", "InvalidArgumentError", "InvalidPointerError", "UnsupportedError", "NoDeviceError",
    "OutOfMemoryError", "CudaError", "CaptureError", "LimitError", "LibraryNotFoundError",
]
