"""The Python route of the public functions: every call the extension's
common route (warpkit._native: a contiguous PyTorch tensor or CuPy array on
its library's current stream) does not take ends up here, with the same
arguments, and reaches the C library through the extension's one-to-one
calls.  The docstrings are on the public functions (help(warpkit.sum)).

Every function takes a contiguous CUDA array (any shape, taken flat), runs
asynchronously on a CUDA stream and returns arrays of the input's library on
the input's device.  Nothing synchronizes the host unless its docstring says
so (only :func:`trim` and :func:`reserve` do).

Reductions and scans also work along the last axis (``axis=-1``), one
segment per row, through the segmented C calls: see :func:`_rows` for the
layouts they take.

Stream: without ``stream=``, the stream the input's library uses now
(PyTorch's / CuPy's current stream; for a ``__cuda_array_interface__`` object
its ``stream`` entry, else the legacy default stream; for a DLPack object the
legacy default stream, passed to ``__dlpack__``).  ``stream=`` takes a raw
handle (int), a PyTorch or CuPy stream, or anything with ``.cuda_stream``,
``.ptr`` or ``__cuda_stream__``.
"""

import operator
import sys

from . import _arrays
from . import _dtypes as D
from . import _errors
from . import _lib

_MASKS = (D.BOOL, D.UINT8)
_finish = _arrays.finish


def _load():
    """The extension module, with the library loaded."""
    _lib.load()
    return _lib.native()


_view = _arrays.view


def _base(what):
    return what.split(":")[0]


def _out(out, shape, n, dt, dev, s, olib, explicit, what, name="out"):
    """(array, pointer) of the output: a new one, or `out` after checks."""
    if out is None:
        return olib.alloc(shape, dt, dev, s if explicit else None)
    label = "%s: %s" % (_base(what), name)
    optr, on, odt, odev, _, _, _, _ = _view(out, s, label)
    if odt != dt:
        raise TypeError("%s has dtype %s; %s is needed" % (label, D.NAME[odt], D.NAME[dt]))
    if on != n:
        raise ValueError("%s has %d elements; %d are needed" % (label, on, n))
    if odev != dev:
        raise ValueError("%s is on device %d, the input on device %d" % (label, odev, dev))
    return out, optr


def _scalar_out(out, dt, dev, s, olib, explicit, what):
    """(array, pointer) of a 0-d result of dtype dt: a new one, or `out`."""
    if out is None:
        return olib.alloc((), dt, dev, s if explicit else None)
    return _out(out, (), 1, dt, dev, s, olib, explicit, what)


def _need(N, name, what):
    """Raises when the loaded library lacks an entry point of 0.3.0."""
    if N.missing(name):
        raise _errors.LibraryNotFoundError(
            "%s: %s lacks %s (an older library than this package): this sum needs a libwarpkit.so built "
            "from the same sources as the package" % (_base(what), N.loaded_path(), name))


# ------------------------------------------------------------ sum dtypes
def _rule(olib):
    """Whose dtype rule a sum of an input follows: PyTorch's for its tensors,
    NumPy's for every other array (JAX's with 64-bit types off)."""
    if olib.name == "torch":
        return "torch"
    if olib.name == "jax" and not olib.jax.config.jax_enable_x64:
        return "jax32"
    return "numpy"


def _sum_result(dt, dtype, out, s, olib, what):
    """The dtype of a sum or sum scan of dtype dt: dtype= if given, else out's
    (as torch.sum(out=) and numpy.add.reduce(out=) take it), else the rule."""
    if dtype is not None:
        return _dtype_code(dtype, _base(what))
    if out is not None:
        return _arrays.view_nd(out, s, "%s: out" % _base(what))[3]
    return D.sum_dtype(dt, _rule(olib))


def _convert(x, dt, s, what):
    """x converted to dt by its own library on stream s (torch.sum(dtype=)'s
    cast, for the pairs the C library does not widen): one more pass."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        tdt = _arrays._torch_outlib().dtypes.get(dt)
        if tdt is not None:
            with torch.cuda.stream(_arrays.torch_stream(torch, s, x.device)):
                return x.to(tdt)
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(x, cupy.ndarray) and dt != D.BF16:
        with cupy.cuda.Device(x.device.id), cupy.cuda.ExternalStream(s):
            return x.astype(D.NAME[dt])
    if _is_jax(x):
        import jax
        if D.ITEMSIZE[dt] == 8 and not jax.config.jax_enable_x64:
            raise TypeError("%s: a %s sum needs x converted to %s, which JAX makes 32-bit while its 64-bit "
                            "types are off (jax.config.update('jax_enable_x64', True))"
                            % (_base(what), D.NAME[dt], D.NAME[dt]))
        import jax.numpy as jnp
        return x.astype(getattr(jnp, D.NAME[dt]))
    raise TypeError("%s: a %s sum of %s input needs the input converted first, which warpkit does for "
                    "PyTorch, CuPy and JAX arrays only: convert x first (sums it widens itself: %s)"
                    % (_base(what), D.NAME[dt], _arrays._describe(x), _widening_pairs()))


def _is_jax(x):
    return (type(x).__module__ or "").startswith(("jax", "jaxlib"))


def _convert_input(x, dt, s, what, nd=False):
    """(the converted x, its view on s: view_nd's with nd, else the flat
    one), once the conversion is seen to have given dt. The temporary goes
    to _temporary_done after the C call."""
    t = _convert(x, dt, s, what)
    v = (_arrays.view_nd if nd else _view)(t, s, what)
    seen = v[3] if nd else v[2]
    if seen != dt:
        raise TypeError("%s: converting x to %s gave %s" % (_base(what), D.NAME[dt], D.NAME[seen]))
    return t, v


def _temporary_done(t, s):
    """Before a temporary made for the call (a conversion, a mask) is
    dropped: JAX reuses its memory without regard to other streams, so a
    JAX temporary is kept until stream s has read it (the call waits for s).
    PyTorch's and CuPy's come from their pools on s itself and need no wait."""
    if t is not None and _is_jax(t):
        _arrays.stream_synchronize(s)


def _widening_pairs():
    return "; ".join("%s into %s" % (D.NAME[a], "/".join(D.NAME[b] for b in sorted(bs)))
                     for a, bs in D.WIDER_SUMS.items())


def _sum_plan(dt, rdt, reproducible=False, widens=True):
    """_dtypes.sum_plan, with "convert" where the C call at hand does not
    widen: a reproducible float sum (it is of the result's dtype) and the
    segmented scans (`widens` False)."""
    plan = D.sum_plan(dt, rdt)
    if plan == "widen" and ((reproducible and dt in D.FLOATS) or not widens):
        return "convert"
    return plan


def _count_out(count, dev, s, olib, explicit, what):
    if count is None:
        return olib.alloc((), D.I64, dev, s if explicit else None)
    label = "%s: count" % _base(what)
    cptr, cn, cdt, cdev, _, _, _, _ = _view(count, s, label)
    if cdt not in (D.I64, D.U64) or cn != 1:
        raise TypeError("%s must be one int64 or uint64 element (has %d of %s)" % (label, cn, D.NAME[cdt]))
    if cdev != dev:
        raise ValueError("%s is on device %d, the input on device %d" % (label, cdev, dev))
    return count, cptr


# ------------------------------------------------------------ along an axis
def _check_axis(axis, ndim, what):
    """Accept the last axis (-1 or ndim - 1) only."""
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError("%s: axis must be None or an int, not %r" % (_base(what), axis))
    a = operator.index(axis)
    if ndim == 0:
        raise ValueError("%s: axis=%d given for a 0-d array, which has no axis (use axis=None)" % (_base(what), a))
    if not -ndim <= a < ndim:
        raise ValueError("%s: axis %d is out of range for a %d-d array" % (_base(what), a, ndim))
    if a % ndim != ndim - 1:
        raise ValueError(
            "%s: axis=%d is not supported: warpkit works on the whole array (axis=None) or along the last "
            "axis (axis=-1 or %d); move the axis last first, e.g. x.movedim(%d, -1).contiguous() (PyTorch) "
            "or cupy.ascontiguousarray(cupy.moveaxis(x, %d, -1))" % (_base(what), a, ndim - 1, a, a))


def _rows(shape, strides, what):
    """(count, size, stride) of the rows of an array along its last axis:
    count = the product of the leading dimensions, size = the last one,
    stride = the elements from a row's start to the next one's.

    stride == size: the rows lie back to back (C-contiguous: wk_segments'
    uniform layout).  stride > size: rows apart, as in a column slice
    x[:, :k] of a contiguous matrix (the rows layout); this needs the last
    axis contiguous (stride 1) and the leading dimensions to step evenly
    (they merge into one).  Anything else raises ValueError: warpkit does not
    copy."""
    size = shape[-1]
    count = 1
    for d in shape[:-1]:
        count *= d
    if strides is None or count == 0 or size == 0:
        return count, size, size
    if size > 1 and strides[-1] != 1:
        raise ValueError(
            "%s: the last axis is strided (shape %s, strides %s in elements): axis=-1 needs rows whose "
            "elements are adjacent; pass a contiguous array (e.g. x.contiguous() or "
            "cupy.ascontiguousarray(x))" % (_base(what), tuple(shape), tuple(strides)))
    row = None  # the stride of the innermost leading dimension of size > 1
    expected = None
    for d, st in zip(reversed(shape[:-1]), reversed(strides[:-1])):
        if d == 1:
            continue
        if row is None:
            row, expected = st, st * d
        elif st != expected:
            raise ValueError(
                "%s: the rows are not evenly spaced (shape %s, strides %s in elements): axis=-1 takes a "
                "C-contiguous array or one whose leading dimensions merge into one, as x[..., :k] of a "
                "contiguous array; pass x.contiguous()" % (_base(what), tuple(shape), tuple(strides)))
        else:
            expected *= d
    if row is None:  # a single row
        return count, size, size
    if row < size:
        raise ValueError(
            "%s: rows %d elements apart overlap rows of %d (shape %s, strides %s in elements); pass "
            "x.contiguous()" % (_base(what), row, size, tuple(shape), tuple(strides)))
    return count, size, row


def _segments_fn(N, name):
    """Raises when the loaded library lacks a segmented entry point."""
    if N.missing(name):
        raise _errors.LibraryNotFoundError(
            "warpkit: %s lacks %s (an older library than this package): axis= needs a libwarpkit.so "
            "built from the same sources as the package" % (N.loaded_path(), name))


def _empty_op_check(op, dt, what):
    """What the C call would say for an empty input that is not passed on
    to it: bitwise ops are for integer dtypes."""
    if op in (D.AND, D.OR, D.XOR) and dt in D.FLOATS:
        raise _errors.error_for_status(
            4, "%s: %s is for integer dtypes, not %s" % (_base(what), D.OP_NAME[op], D.NAME[dt]))


def _reduce_axis(x, op, out, stream, what, axis, reproducible=False, dtype=None):
    """Reduce every row along the last axis (wk_segmented_reduce, or
    wk_segmented_reduce_repro for reproducible sums, wk_segmented_reduce_to
    for sums kept in a wider dtype)."""
    N = _load()
    ptr, shape, strides, dt, dev, s, olib, explicit, keep = _arrays.view_nd(x, stream, what)
    _check_axis(axis, len(shape), what)
    rdt, plan = dt, "plain"
    if op == D.SUM:
        rdt = _sum_result(dt, dtype, out, s, olib, what)
        plan = _sum_plan(dt, rdt, reproducible)
    count, size, stride = _rows(shape, strides, what)
    if plan == "widen":
        _need(N, "wk_segmented_reduce_to", what)
    else:
        _segments_fn(N, "wk_segmented_reduce_repro" if reproducible else "wk_segmented_reduce")
    lead = shape[:-1]
    if out is None:
        res, optr = olib.alloc(lead, rdt, dev, s if explicit else None)
    else:
        res, optr = _out(out, lead, count, rdt, dev, s, olib, explicit, what)
    if count == 0:
        _empty_op_check(op, dt, what)
        return _finish(olib, res, s, dev)
    tmp = None
    if plan == "convert":
        tmp, (ptr, shape, strides, dt, _, _, _, _, keep) = _convert_input(x, rdt, s, what, nd=True)
        count, size, stride = _rows(shape, strides, what)
        plan = D.sum_plan(rdt, rdt)
    if plan == "widen":
        N.call_segmented_reduce_to(dev, ptr, optr, count, size, stride, dt, rdt, s, what)
    else:
        N.call_segmented_reduce(dev, ptr, optr, count, size, stride, dt, D.OR if plan == "or" else op,
                                reproducible and plan == "plain", s, what)
    _temporary_done(tmp, s)
    return _finish(olib, res, s, dev)


def _arg_axis(x, op, return_value, stream, what, axis):
    """argmin / argmax of every row along the last axis."""
    N = _load()
    ptr, shape, strides, dt, dev, s, olib, explicit, keep = _arrays.view_nd(x, stream, what)
    _check_axis(axis, len(shape), what)
    if shape[-1] == 0:
        raise ValueError("%s: %s of rows of length 0 (shape %s): an empty row has no extreme"
                         % (_base(what), D.OP_NAME[op], tuple(shape)))
    count, size, stride = _rows(shape, strides, what)
    _segments_fn(N, "wk_segmented_reduce")
    # One 16-byte wk_arg_result {value (8 bytes), int64 index} per row: an
    # int64 array (..., 2) whose [..., 1] are the indices and whose first
    # bytes of [..., 0] the values.
    buf, bptr = olib.alloc(shape[:-1] + (2,), D.I64, dev, s if explicit else None)
    if count:
        N.call_segmented_reduce(dev, ptr, bptr, count, size, stride, dt, op, False, s, what)
    if return_value:
        return _finish(olib, (olib.reinterpret(buf, dt)[..., 0], buf[..., 1]), s, dev)
    return _finish(olib, buf[..., 1], s, dev)


def _scan_axis(x, op, exclusive, initial, out, stream, what, axis, dtype=None):
    """Scan every row along the last axis (wk_segmented_*_scan): the output
    has x's shape, and x's layout. A sum kept in a wider dtype reads x as it
    is (wk_segmented_*_scan_to); one into a dtype that C does not widen into,
    or from a library without the _to forms, converts x first: its output
    is then C-contiguous, as the converted array is."""
    N = _load()
    ptr, shape, strides, dt, dev, s, olib, explicit, keep = _arrays.view_nd(x, stream, what)
    _check_axis(axis, len(shape), what)
    rdt, plan = dt, "plain"
    if op == D.SUM:
        rdt = _sum_result(dt, dtype, out, s, olib, what)
        to = "wk_segmented_exclusive_scan_to" if exclusive else "wk_segmented_inclusive_scan_to"
        plan = _sum_plan(dt, rdt, widens=not N.missing(to))
    init = _scan_init(op, exclusive, initial, rdt, what)
    if op == D.SUM and rdt == D.BOOL:
        op = D.OR  # bools add as a logical or, in PyTorch and NumPy
    count, size, stride = _rows(shape, strides, what)
    if plan == "convert":
        stride = size  # the layout of the converted x, made once out= is checked
    _segments_fn(N, "wk_segmented_exclusive_scan" if exclusive else "wk_segmented_inclusive_scan")
    n = count * size
    if stride == size:
        res, optr = _out(out, shape, n, rdt, dev, s, olib, explicit, what)
    else:
        # The C call writes each output where its input is: rows apart in,
        # rows apart out, as in place (out=x) or into an array laid out as x.
        if out is None:
            raise ValueError(
                "%s: x's rows are apart (shape %s, strides %s in elements) and the scan writes each row "
                "where it reads it: pass out= laid out as x (out=x scans in place), or a contiguous x "
                "(x.contiguous())" % (_base(what), tuple(shape), tuple(strides)))
        label = "%s: out" % _base(what)
        optr, oshape, ostrides, odt, odev, _, _, _, okeep = _arrays.view_nd(out, s, label)
        if odt != rdt:
            raise TypeError("%s has dtype %s; %s is needed" % (label, D.NAME[odt], D.NAME[rdt]))
        if odev != dev:
            raise ValueError("%s is on device %d, the input on device %d" % (label, odev, dev))
        if oshape != shape or _rows(oshape, ostrides, label) != (count, size, stride):
            raise ValueError("%s (shape %s, strides %s) is not laid out as x (shape %s, strides %s in elements)"
                             % (label, oshape, ostrides, shape, strides))
        res = out
    if n == 0:
        _empty_op_check(D.SUM if op == D.OR and rdt == D.BOOL else op, dt, what)
        return _finish(olib, res, s, dev)
    tmp = None
    if plan == "convert":
        tmp, (ptr, cshape, cstrides, dt, _, _, _, _, keep) = _convert_input(x, rdt, s, what, nd=True)
        if _rows(cshape, cstrides, what) != (count, size, stride):
            raise ValueError("%s: the converted input is not C-contiguous (shape %s, strides %s): pass a "
                             "contiguous x" % (_base(what), tuple(cshape), cstrides))
    if plan == "widen":
        N.call_segmented_scan_to(dev, ptr, optr, count, size, stride, dt, rdt, exclusive, init or 0, s, what)
    else:
        N.call_segmented_scan(dev, ptr, optr, count, size, stride, dt, op, exclusive, init or 0, s, what)
    _temporary_done(tmp, s)
    return _finish(olib, res, s, dev)


# ---------------------------------------------------------------- reduce
_REDUCE_OPS = {"sum": D.SUM, "min": D.MIN, "max": D.MAX, "and": D.AND, "or": D.OR, "xor": D.XOR}


def _sum(x, dtype, out, stream, what, reproducible=False, axis=None):
    if axis is not None:
        return _reduce_axis(x, D.SUM, out, stream, what, axis, reproducible, dtype)
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    rdt = _sum_result(dt, dtype, out, s, olib, what)
    plan = _sum_plan(dt, rdt, reproducible)
    if plan == "widen":
        _need(N, "wk_reduce_to", what)
    N.context(dev)
    res, optr = _scalar_out(out, rdt, dev, s, olib, explicit, what)
    tmp = None
    if plan == "convert":
        tmp, (ptr, n, dt, _, _, _, _, keep) = _convert_input(x, rdt, s, what)
        plan = D.sum_plan(rdt, rdt)
    if plan == "widen":
        N.call_reduce_to(dev, ptr, optr, n, dt, rdt, s, what)
    elif plan == "or":
        N.call_reduce(dev, ptr, optr, n, dt, D.OR, s, what)
    elif reproducible:
        N.call_reduce_repro(dev, ptr, optr, n, dt, s, what)
    else:
        N.call_reduce(dev, ptr, optr, n, dt, D.SUM, s, what)
    _temporary_done(tmp, s)
    return _finish(olib, res, s, dev)


def _reduce(x, op, out, stream, what, reproducible=False, axis=None):
    if op == D.SUM:
        return _sum(x, None, out, stream, what, reproducible, axis)
    if axis is not None:
        return _reduce_axis(x, op, out, stream, what, axis, reproducible)
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    N.context(dev)
    res, optr = _scalar_out(out, dt, dev, s, olib, explicit, what)
    N.call_reduce(dev, ptr, optr, n, dt, op, s, what)
    return _finish(olib, res, s, dev)


def reduce(x, op, *, axis=None, out=None, stream=None):
    """The Python route of warpkit.reduce (its docstring: help(warpkit.reduce))."""
    code = _REDUCE_OPS.get(op)
    if code is None:
        raise ValueError("warpkit.reduce: op %r is not one of %s" % (op, ", ".join(map(repr, _REDUCE_OPS))))
    return _reduce(x, code, out, stream, "warpkit.reduce: x", axis=axis)


def sum(x, *, axis=None, dtype=None, out=None, stream=None, reproducible=False):  # noqa: A001 (numpy's name)
    """The Python route of warpkit.sum (its docstring: help(warpkit.sum))."""
    return _sum(x, dtype, out, stream, "warpkit.sum: x", reproducible, axis)


def count_nonzero(x, *, axis=None, stream=None):
    """The Python route of warpkit.count_nonzero (its docstring: help(warpkit.count_nonzero))."""
    what = "warpkit.count_nonzero: x"
    _, shape, _, dt, _, s, _, _, _ = _arrays.view_nd(x, stream, what)
    if axis is not None:
        _check_axis(axis, len(shape), what)  # before the mask is made
    if dt == D.BOOL:
        return _sum(x, "int64", None, stream, what, False, axis)
    mask = _nonzero_mask(x, dt, s, what)
    r = _sum(mask, "int64", None, s if stream is not None else None, what, False, axis)
    _temporary_done(mask, s)
    return r


# -------------------------------------------------------------- partials
PARTIAL_BYTES = 64  # sizeof(wk_repro_partial)


def repro_partial(x, *, out=None, stream=None):
    """The exact partial of x's reproducible sum: 64 bytes (uint8) in x's
    library (wk_reduce_repro_partial).  Partials of the parts of an input,
    in any order and grouping, finish with repro_finalize to the same bits
    as warpkit.sum(whole, reproducible=True).  x: float32, float64, float16
    or bfloat16, contiguous, any shape (taken flat); out=: 64 uint8 bytes on
    x's device (a row of a (k, 64) array gathers k partials)."""
    what = "warpkit.repro_partial: x"
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    if dt not in D.FLOATS:
        raise TypeError("%s has dtype %s; reproducible partials are of float dtypes" % (what, D.NAME[dt]))
    _need(N, "wk_reduce_repro_partial", what)
    N.context(dev)
    res, optr = _out(out, (PARTIAL_BYTES,), PARTIAL_BYTES, D.UINT8, dev, s, olib, explicit, what)
    N.call_repro_partial(dev, ptr, optr, n, dt, s, what)
    return _finish(olib, res, s, dev)


def repro_finalize(partials, dtype, *, out=None, stream=None):
    """The rounded sum of k partials (repro_partial's 64 bytes each, one
    after another in a uint8 array of 64 k bytes, any shape) as a 0-d array
    of the float dtype `dtype` in their library (wk_repro_finalize): the
    bits of warpkit.sum(x, reproducible=True) over the concatenation of the
    parts.  No partial (k = 0) gives +0.0."""
    what = "warpkit.repro_finalize: partials"
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(partials, stream, what)
    if dt != D.UINT8:
        raise TypeError("%s has dtype %s; partials are uint8, %d bytes each (warpkit.repro_partial)"
                        % (what, D.NAME[dt], PARTIAL_BYTES))
    if n % PARTIAL_BYTES:
        raise ValueError("%s has %d bytes, not a whole number of %d-byte partials" % (what, n, PARTIAL_BYTES))
    rdt = _dtype_code(dtype, "warpkit.repro_finalize")
    if rdt not in D.FLOATS:
        raise TypeError("warpkit.repro_finalize: dtype %s is not a float dtype" % D.NAME[rdt])
    _need(N, "wk_repro_finalize", what)
    N.context(dev)
    res, optr = _scalar_out(out, rdt, dev, s, olib, explicit, what)
    N.call_repro_finalize(dev, ptr, n // PARTIAL_BYTES, optr, rdt, s, what)
    return _finish(olib, res, s, dev)


def _nonzero_mask(x, dt, s, what):
    """x != 0 made by x's own library, on the call's stream s."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        with torch.cuda.stream(_arrays.torch_stream(torch, s, x.device)):
            return x != 0
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(x, cupy.ndarray):
        with cupy.cuda.Device(x.device.id), cupy.cuda.ExternalStream(s):
            return x != 0
    if _is_jax(x):
        return x != 0
    raise TypeError("%s: count_nonzero of a %s %s array compares it with 0 first, which warpkit does for "
                    "PyTorch, CuPy and JAX arrays only (a bool array is counted as it is)"
                    % (_base(what), D.NAME[dt], _arrays._describe(x)))


def min(x, *, axis=None, out=None, stream=None):  # noqa: A001
    """The Python route of warpkit.min (its docstring: help(warpkit.min))."""
    return _reduce(x, 1, out, stream, "warpkit.min: x", axis=axis)


def max(x, *, axis=None, out=None, stream=None):  # noqa: A001
    """The Python route of warpkit.max (its docstring: help(warpkit.max))."""
    return _reduce(x, 2, out, stream, "warpkit.max: x", axis=axis)


def reduce_and(x, *, axis=None, out=None, stream=None):
    """The Python route of warpkit.reduce_and (its docstring: help(warpkit.reduce_and))."""
    return _reduce(x, 3, out, stream, "warpkit.reduce_and: x", axis=axis)


def reduce_or(x, *, axis=None, out=None, stream=None):
    """The Python route of warpkit.reduce_or (its docstring: help(warpkit.reduce_or))."""
    return _reduce(x, 4, out, stream, "warpkit.reduce_or: x", axis=axis)


def reduce_xor(x, *, axis=None, out=None, stream=None):
    """The Python route of warpkit.reduce_xor (its docstring: help(warpkit.reduce_xor))."""
    return _reduce(x, 5, out, stream, "warpkit.reduce_xor: x", axis=axis)


def _arg(x, op, return_value, stream, what, axis=None):
    if axis is not None:
        return _arg_axis(x, op, return_value, stream, what, axis)
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    N.context(dev)
    if not return_value and not N.missing("wk_reduce_index"):
        res, iptr = olib.alloc((), D.I64, dev, s if explicit else None)
        N.call_reduce_index(dev, ptr, iptr, n, dt, op, s, what)
        return _finish(olib, res, s, dev)
    # The C call writes a 16-byte wk_arg_result {value (8 bytes), int64 index}:
    # two int64s, of which the second is returned as a 0-d view.
    buf, bptr = olib.alloc((2,), D.I64, dev, s if explicit else None)
    N.call_reduce(dev, ptr, bptr, n, dt, op, s, what)
    if return_value:
        return _finish(olib, (olib.reinterpret(buf[:1], dt)[0], buf[1]), s, dev)
    return _finish(olib, buf[1], s, dev)


def argmin(x, *, axis=None, return_value=False, stream=None):
    """The Python route of warpkit.argmin (its docstring: help(warpkit.argmin))."""
    return _arg(x, 6, return_value, stream, "warpkit.argmin: x", axis)


def argmax(x, *, axis=None, return_value=False, stream=None):
    """The Python route of warpkit.argmax (its docstring: help(warpkit.argmax))."""
    return _arg(x, 7, return_value, stream, "warpkit.argmax: x", axis)


# ------------------------------------------------------------------ scan
_SCAN_OPS = {"sum": D.SUM, "min": D.MIN, "max": D.MAX, "and": D.AND, "or": D.OR, "xor": D.XOR}


def _scan_init(op, exclusive, initial, dt, what):
    if exclusive:
        return D.identity_bits(op, dt) if initial is None else D.encode(initial, dt, _base(what) + ": initial")
    if initial is not None:
        raise ValueError("%s: initial= is for exclusive scans (exclusive=True)" % _base(what))
    return None


def _scan(x, op, exclusive, initial, out, stream, what, axis=None, dtype=None, prefix=None):
    """A scan of the flattened x; a sum's output dtype as _sum's (the
    initial value in that dtype), kept by wk_*_scan_to where it widens;
    continued from a carried prefix (wk_*_scan_from) where one is given."""
    if axis is not None:
        if prefix is not None:
            raise ValueError("%s: prefix= continues a flat scan; it does not go with axis=" % _base(what))
        return _scan_axis(x, op, exclusive, initial, out, stream, what, axis, dtype)
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    rdt, plan = dt, "plain"
    if op == D.SUM:
        rdt = _sum_result(dt, dtype, out, s, olib, what)
        plan = _sum_plan(dt, rdt)
    if plan == "widen":
        _need(N, "wk_exclusive_scan_to" if exclusive else "wk_inclusive_scan_to", what)
    N.context(dev)
    init = _scan_init(op, exclusive, initial, rdt, what)
    pptr = None if prefix is None else _prefix(N, prefix, rdt, dev, s, exclusive, plan == "widen", what)
    res, optr = _out(out, (n,), n, rdt, dev, s, olib, explicit, what)
    tmp = None
    if plan == "convert":
        tmp, (ptr, n, dt, _, _, _, _, keep) = _convert_input(x, rdt, s, what)
        plan = D.sum_plan(rdt, rdt)
    code = D.OR if plan == "or" else op
    if prefix is not None:
        N.call_scan_from(dev, ptr, optr, n, dt, rdt if plan == "widen" else dt, code, exclusive, init or 0, pptr, s,
                         what)
    elif plan == "widen":
        N.call_scan_to(dev, ptr, optr, n, dt, rdt, exclusive, init or 0, s, what)
    else:
        N.call_scan(dev, ptr, optr, n, dt, code, exclusive, init or 0, s, what)
    _temporary_done(tmp, s)
    return _finish(olib, res, s, dev)


def _prefix(N, prefix, rdt, dev, s, exclusive, widen, what):
    """The device pointer of a scan's carried prefix: one element of the
    result's dtype on x's device (read on the device, in stream order)."""
    if widen:
        _need(N, "wk_exclusive_scan_to" if exclusive else "wk_inclusive_scan_to", what)
    else:
        _need(N, "wk_exclusive_scan_from" if exclusive else "wk_inclusive_scan_from", what)
    return _carried(prefix, rdt, dev, s, "%s: prefix" % _base(what), "the scan's result is")


def _carried(v, dt, dev, s, label, whose):
    """The device pointer of a carried value (a prefix, a previous element,
    an index base): one element of dtype dt on the input's device."""
    vptr, vn, vdt, vdev, _, _, _, _ = _view(v, s, label)
    if vdt != dt:
        raise TypeError("%s has dtype %s; %s %s" % (label, D.NAME[vdt], whose, D.NAME[dt]))
    if vn != 1:
        raise ValueError("%s has %d elements; one is needed" % (label, vn))
    if vdev != dev:
        raise ValueError("%s is on device %d, the input on device %d" % (label, vdev, dev))
    return vptr


def scan(x, op="sum", *, axis=None, exclusive=False, initial=None, out=None, stream=None, prefix=None):
    """The Python route of warpkit.scan (its docstring: help(warpkit.scan))."""
    code = _SCAN_OPS.get(op)
    if code is None:
        raise ValueError("warpkit.scan: op %r is not one of %s" % (op, ", ".join(map(repr, _SCAN_OPS))))
    return _scan(x, code, exclusive, initial, out, stream, "warpkit.scan: x", axis, prefix=prefix)


def cumsum(x, *, axis=None, dtype=None, exclusive=False, initial=None, out=None, stream=None, prefix=None):
    """The Python route of warpkit.cumsum (its docstring: help(warpkit.cumsum))."""
    return _scan(x, 0, exclusive, initial, out, stream, "warpkit.cumsum: x", axis, dtype, prefix)


def cummin(x, *, axis=None, exclusive=False, initial=None, out=None, stream=None, prefix=None):
    """The Python route of warpkit.cummin (its docstring: help(warpkit.cummin))."""
    return _scan(x, 1, exclusive, initial, out, stream, "warpkit.cummin: x", axis, prefix=prefix)


def cummax(x, *, axis=None, exclusive=False, initial=None, out=None, stream=None, prefix=None):
    """The Python route of warpkit.cummax (its docstring: help(warpkit.cummax))."""
    return _scan(x, 2, exclusive, initial, out, stream, "warpkit.cummax: x", axis, prefix=prefix)


# ---------------------------------------------------------------- select
def _predicate(compare, value, hi, dt, what):
    what = _base(what)
    if compare in (D.IS_NAN, D.NOT_NAN):
        if value is not None:
            raise ValueError("%s: isnan / notnan take no value" % what)
        if dt not in D.FLOATS:
            raise TypeError("%s: isnan / notnan need a float dtype, not %s" % (what, D.NAME[dt]))
        return compare, 0, 0
    if value is None:
        raise ValueError("%s: the op needs a value to compare with" % what)
    a = D.encode(value, dt, what + ": value")
    b = D.encode(hi, dt, what + ": hi") if compare == D.IN_RANGE else 0
    return compare, a, b


def _select(kind, x, compare, value, hi, out, count, stream, what, out_dt=None, index_base=None):
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    pred = _predicate(compare, value, hi, dt, what)
    base = None
    if index_base is not None:
        _need(N, "wk_where_from", what)
        base = _carried(index_base, D.I64, dev, s, "%s: index_base" % _base(what), "an index base is")
    N.context(dev)
    odt = dt if out_dt is None else out_dt
    res, optr = _out(out, (n,), n, odt, dev, s, olib, explicit, what)
    cnt, cptr = _count_out(count, dev, s, olib, explicit, what)
    if base is not None:
        N.call_where_from(dev, ptr, optr, cptr, n, dt, pred[0], pred[1], pred[2], base, s, what)
    else:
        N.call_select(kind, dev, ptr, optr, cptr, n, dt, pred[0], pred[1], pred[2], s, what)
    return _finish(olib, (res, cnt), s, dev)


def select(x, op, value=None, *, out=None, count=None, stream=None):
    """The Python route of warpkit.select (its docstring: help(warpkit.select))."""
    return _select("if", x, D.parse_compare(op, "warpkit.select"), value, None, out, count, stream,
                   "warpkit.select: x")


def select_range(x, lo, hi, *, out=None, count=None, stream=None):
    """The Python route of warpkit.select_range (its docstring: help(warpkit.select_range))."""
    return _select("if", x, D.IN_RANGE, lo, hi, out, count, stream, "warpkit.select_range: x")


def partition(x, op, value=None, *, out=None, count=None, stream=None):
    """The Python route of warpkit.partition (its docstring: help(warpkit.partition))."""
    return _select("partition", x, D.parse_compare(op, "warpkit.partition"), value, None, out, count, stream,
                   "warpkit.partition: x")


def nonzero(x, op="!=", value=0, *, out=None, count=None, stream=None, index_base=None):
    """The Python route of warpkit.nonzero (its docstring: help(warpkit.nonzero))."""
    if op in ("isnan", "is_nan", "notnan", "not_nan") and value == 0:
        value = None
    return _select("where", x, D.parse_compare(op, "warpkit.nonzero"), value, None, out, count, stream,
                   "warpkit.nonzero: x", out_dt=D.I64, index_base=index_base)


def unique_consecutive(x, *, out=None, count=None, stream=None, previous=None):
    """The Python route of warpkit.unique_consecutive (its docstring: help(warpkit.unique_consecutive))."""
    what = "warpkit.unique_consecutive: x"
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    prev = None
    if previous is not None:
        _need(N, "wk_unique_from", what)
        prev = _carried(previous, dt, dev, s, "%s: previous" % _base(what), "x's dtype is")
    N.context(dev)
    res, optr = _out(out, (n,), n, dt, dev, s, olib, explicit, what)
    cnt, cptr = _count_out(count, dev, s, olib, explicit, what)
    if prev is not None:
        N.call_unique_from(dev, ptr, optr, cptr, n, dt, prev, s, what)
    else:
        N.call_unique(dev, ptr, optr, cptr, n, dt, s, what)
    return _finish(olib, (res, cnt), s, dev)


def compress(mask, x, *, out=None, count=None, stream=None):
    """The Python route of warpkit.compress (its docstring: help(warpkit.compress))."""
    what = "warpkit.compress"
    N = _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, "warpkit.compress: x")
    mptr, mn, mdt, mdev, _, _, _, mkeep = _view(mask, s, "warpkit.compress: mask")
    if mdt not in _MASKS:
        raise TypeError("%s: mask has dtype %s; bool or uint8 is needed" % (what, D.NAME[mdt]))
    if mn != n:
        raise ValueError("%s: mask has %d elements, x has %d" % (what, mn, n))
    if mdev != dev:
        raise ValueError("%s: mask is on device %d, x on device %d" % (what, mdev, dev))
    N.context(dev)
    res, optr = _out(out, (n,), n, dt, dev, s, olib, explicit, what)
    cnt, cptr = _count_out(count, dev, s, olib, explicit, what)
    N.call_select_flagged(dev, ptr, mptr, optr, cptr, n, dt, s, what)
    return _finish(olib, (res, cnt), s, dev)


def trim(out, count, *, stream=None):
    """The Python route of warpkit.trim (its docstring: help(warpkit.trim))."""
    if stream is not None:
        _arrays.stream_synchronize(_arrays.stream_handle(stream))
    item = getattr(count, "item", None)
    k = int(item()) if item is not None else int(count)
    return out[:k]


# ----------------------------------------------------------------- misc
# Other names of the dtypes; "float" and "int" as NumPy reads them (64-bit).
_DTYPE_ALIASES = {
    "f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16", "half": "float16",
    "float": "float64", "double": "float64", "i32": "int32", "u32": "uint32", "i64": "int64", "u64": "uint64",
    "long": "int64", "int": "int64", "short": "int16", "u8": "uint8", "i8": "int8", "i16": "int16",
    "u16": "uint16", "bool_": "bool",
}
# Python's own types, as NumPy takes them for dtype=.
_PY_TYPES = {bool: "bool", int: "int64", float: "float64"}


def _dtype_code(dtype, what="warpkit"):
    """The code of a dtype given as a name ("int64"), a PyTorch dtype, a
    NumPy / CuPy dtype or scalar type (numpy.int64, JAX's too)."""
    if isinstance(dtype, str):
        name = dtype
    elif isinstance(dtype, type) and dtype in _PY_TYPES:
        name = _PY_TYPES[dtype]
    elif isinstance(dtype, type):  # numpy.int64, jax.numpy.float32, ml_dtypes.bfloat16
        np = sys.modules.get("numpy")
        try:
            name = np.dtype(dtype).name if np is not None else dtype.__name__
        except TypeError:
            name = dtype.__name__
    else:
        name = getattr(dtype, "name", None) or str(dtype)  # numpy dtypes; torch.int64 prints "torch.int64"
    if not isinstance(name, str):
        name = str(name)
    name = name.rsplit(".", 1)[-1]
    entry = D.DTYPES.get(_DTYPE_ALIASES.get(name, name))
    if entry is None:
        raise TypeError("%s: dtype %r is not one of %s" % (what, dtype, D.SUPPORTED))
    return entry[0]


def reserve(n, dtype, *, device=None):
    """Grow the scan / select workspaces of `device` (default: the current
    device) for inputs of up to n elements of dtype, so that later calls do
    not allocate.  SYNCHRONIZES the device.  Never shrinks."""
    N = _load()
    if not isinstance(device, int):
        # A torch.device("cuda") or a cupy Device; no index means the current one.
        index = None if device is None else getattr(device, "index", getattr(device, "id", None))
        device = _arrays.pointer_device(0, "reserve") if index is None else int(index)
    N.call_scan_reserve(device, int(n), _dtype_code(dtype, "warpkit.reserve"), "reserve")


def library_path():
    """The path of the loaded libwarpkit.so (loading it if needed)."""
    return _lib.load()


def sm_count(device=0):
    """The multiprocessor count the context of `device` read at creation."""
    return _load().sm_count(device)


def _reset_for_tests():
    """Forget the loaded library and contexts (the tests load a stub)."""
    _lib._reset_for_tests()
