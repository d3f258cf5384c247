"""warpkit's functions as PyTorch custom operators, for torch.compile.

    import torch, warpkit.torch as wt

    @torch.compile(fullgraph=True)             # or mode="reduce-overhead": CUDA graphs
    def f(x):
        kept, count = wt.select(x, ">", 0.5)   # full-size output and a device count: no sync
        return wt.sum(x), wt.cumsum(x), kept, count

Each function is an operator ``torch.ops.warpkit.<name>`` registered with
torch.library.custom_op, with a fake (meta) implementation that gives the
output's shape and dtype, so that Dynamo traces through it without a graph
break and Inductor and CUDA graphs take it as one opaque node.  Eagerly they
call the functions of ``warpkit`` (the same rules: contiguous CUDA tensors,
the current stream, no copies).  Importing ``warpkit`` alone does not import
PyTorch; this module does.
"""

from typing import Optional, Tuple, Union

import torch
from torch import Tensor

import warpkit as _wk

Scalar = Union[int, float, bool]  # torch.library's Scalar

_I64 = torch.int64


def _rows(x, axis):
    return () if axis is None else tuple(x.shape[:-1])


# ------------------------------------------------------------ reductions
@torch.library.custom_op("warpkit::sum", mutates_args=())
def sum(x: Tensor, axis: Optional[int] = None, reproducible: bool = False) -> Tensor:  # noqa: A001
    """warpkit.sum(x, axis=axis, reproducible=reproducible) as an operator."""
    return _wk.sum(x, axis=axis, reproducible=reproducible)


@torch.library.custom_op("warpkit::min", mutates_args=())
def min(x: Tensor, axis: Optional[int] = None) -> Tensor:  # noqa: A001
    """warpkit.min as an operator."""
    return _wk.min(x, axis=axis)


@torch.library.custom_op("warpkit::max", mutates_args=())
def max(x: Tensor, axis: Optional[int] = None) -> Tensor:  # noqa: A001
    """warpkit.max as an operator."""
    return _wk.max(x, axis=axis)


def _sum_dtype(x):
    # torch.sum's rule, which warpkit.sum follows: bool and integers into int64.
    return x.dtype if x.dtype.is_floating_point else _I64


def _reduction_fake(x, axis=None):
    return x.new_empty(_rows(x, axis))


@sum.register_fake
def _(x, axis=None, reproducible=False):
    return x.new_empty(_rows(x, axis), dtype=_sum_dtype(x))


@torch.library.custom_op("warpkit::count_nonzero", mutates_args=())
def count_nonzero(x: Tensor, axis: Optional[int] = None) -> Tensor:
    """warpkit.count_nonzero as an operator (int64)."""
    return _wk.count_nonzero(x, axis=axis)


for _op in (min, max):
    _op.register_fake(_reduction_fake)


@count_nonzero.register_fake
def _(x, axis=None):
    return x.new_empty(_rows(x, axis), dtype=_I64)


@torch.library.custom_op("warpkit::argmax", mutates_args=())
def argmax(x: Tensor, axis: Optional[int] = None) -> Tensor:
    """warpkit.argmax as an operator: the int64 index of the first largest
    element (of each row with axis=-1)."""
    return _fresh(_wk.argmax(x, axis=axis))


@torch.library.custom_op("warpkit::argmin", mutates_args=())
def argmin(x: Tensor, axis: Optional[int] = None) -> Tensor:
    """warpkit.argmin as an operator: the int64 index of the first smallest
    element."""
    return _fresh(_wk.argmin(x, axis=axis))


def _fresh(index):
    # Along an axis the indices are a strided view of the (..., 2) results;
    # an operator returns tensors of its own.
    return index if index._base is None else index.contiguous()


def _arg_fake(x, axis=None):
    return x.new_empty(_rows(x, axis), dtype=_I64)


for _op in (argmax, argmin):
    _op.register_fake(_arg_fake)


# ------------------------------------------------------------------ scans
@torch.library.custom_op("warpkit::cumsum", mutates_args=())
def cumsum(x: Tensor, axis: Optional[int] = None, exclusive: bool = False) -> Tensor:
    """warpkit.cumsum as an operator (1-D of x.numel() elements; x's shape
    with axis=-1)."""
    return _wk.cumsum(x, axis=axis, exclusive=exclusive)


@torch.library.custom_op("warpkit::cummin", mutates_args=())
def cummin(x: Tensor, axis: Optional[int] = None, exclusive: bool = False) -> Tensor:
    """warpkit.cummin as an operator."""
    return _wk.cummin(x, axis=axis, exclusive=exclusive)


@torch.library.custom_op("warpkit::cummax", mutates_args=())
def cummax(x: Tensor, axis: Optional[int] = None, exclusive: bool = False) -> Tensor:
    """warpkit.cummax as an operator."""
    return _wk.cummax(x, axis=axis, exclusive=exclusive)


def _scan_fake(x, axis=None, exclusive=False):
    return x.new_empty(x.numel() if axis is None else x.shape)


@cumsum.register_fake
def _(x, axis=None, exclusive=False):
    return x.new_empty(x.numel() if axis is None else x.shape, dtype=_sum_dtype(x))


for _op in (cummin, cummax):
    _op.register_fake(_scan_fake)


# ---------------------------------------------------------------- selects
@torch.library.custom_op("warpkit::select", mutates_args=())
def select(x: Tensor, op: str, value: Optional[Scalar] = None) -> Tuple[Tensor, Tensor]:
    """warpkit.select as an operator: (out with room for all n elements,
    int64 count on the device). Nothing synchronizes."""
    return _wk.select(x, op, value)


@select.register_fake
def _(x, op, value=None):
    return x.new_empty(x.numel()), x.new_empty((), dtype=_I64)


@torch.library.custom_op("warpkit::compress", mutates_args=())
def compress(mask: Tensor, x: Tensor) -> Tuple[Tensor, Tensor]:
    """warpkit.compress as an operator: (out, count)."""
    return _wk.compress(mask, x)


@compress.register_fake
def _(mask, x):
    return x.new_empty(x.numel()), x.new_empty((), dtype=_I64)


@torch.library.custom_op("warpkit::nonzero", mutates_args=())
def nonzero(x: Tensor, op: str = "!=", value: Optional[Scalar] = 0) -> Tuple[Tensor, Tensor]:
    """warpkit.nonzero as an operator: (int64 indices, count)."""
    return _wk.nonzero(x, op, value)


@nonzero.register_fake
def _(x, op="!=", value=0):
    return x.new_empty(x.numel(), dtype=_I64), x.new_empty((), dtype=_I64)


__all__ = ["sum", "min", "max", "argmin", "argmax", "count_nonzero", "cumsum", "cummin", "cummax", "select",
           "compress", "nonzero"]
