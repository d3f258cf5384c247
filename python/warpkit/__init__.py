"""warpkit: GPU parallel primitives (reduce, scan, select) for CUDA arrays.

    import torch, warpkit
    x = torch.rand(1 << 20, device="cuda")
    s = warpkit.sum(x)                      # 0-d tensor, asynchronous
    kept, count = warpkit.select(x, ">", 0.5)
    print(warpkit.trim(kept, count))        # synchronizes once

Arrays: anything with ``__cuda_array_interface__`` or ``__dlpack__`` on a CUDA
device (PyTorch, CuPy, JAX, Numba), contiguous, any shape (taken flat); dtypes
int32, uint32, int64, uint64, float32, float64, float16, bfloat16.  Outputs
are arrays of the input's library.  Reductions and scans also work row by
row with ``axis=-1``.  See README.md for axes, streams, graphs and errors.

The C library (libwarpkit.so) is loaded on first use, from $WARPKIT_LIBRARY,
next to this package, or through the system loader; importing warpkit needs
neither a GPU nor the library.
"""

from ._errors import (CaptureError, CudaError, Error, InvalidArgumentError, InvalidPointerError,
                      LibraryNotFoundError, LimitError, NoDeviceError, OutOfMemoryError,
                      UnsupportedError)
from ._api import (argmax, argmin, compress, cummax, cummin, cumsum, library_path, max, min, nonzero,
                   partition, reduce, reduce_and, reduce_or, reduce_xor, reserve, scan, select,
                   select_range, sm_count, sum, trim, unique_consecutive)

__version__ = "0.1.0"

dtypes = ("int32", "uint32", "int64", "uint64", "float32", "float64", "float16", "bfloat16")

__all__ = [
    "sum", "min", "max", "argmin", "argmax", "reduce", "reduce_and", "reduce_or", "reduce_xor",
    "cumsum", "cummin", "cummax", "scan",
    "select", "select_range", "compress", "partition", "unique_consecutive", "nonzero", "trim",
    "reserve", "library_path", "sm_count", "dtypes",
    "Error", "InvalidArgumentError", "InvalidPointerError", "UnsupportedError", "NoDeviceError",
    "OutOfMemoryError", "CudaError", "CaptureError", "LimitError", "LibraryNotFoundError",
]
