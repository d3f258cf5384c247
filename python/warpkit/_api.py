"""The public functions: thin, one-to-one over the C calls.

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

import ctypes
from ctypes import byref as _byref
import operator

from . import _arrays
from . import _dtypes as D
from . import _errors
from . import _lib
from ._lib import Predicate

_L = None  # the loaded library (set by the first call)
_CTX = _lib._contexts
_MASKS = (D.BOOL, D.UINT8)


def _load():
    global _L
    _L = _lib.load()
    return _L


_view = _arrays.view


def _base(what):
    return what.split(":")[0]


def _no_mask(dt, what):
    if dt >= 100:
        raise TypeError("%s is a %s array: a mask (see compress); warpkit computes on %s"
                        % (what, D.NAME[dt], D.SUPPORTED))


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


def _segments_fn(L, name):
    fn = getattr(L, name)
    if getattr(fn, "lacking", False):
        fn()  # raises: the library is older than the package
    return fn


def _empty_op_check(op, dt, what):
    """What the C call would say for an empty input that is not passed on
    to it: bitwise ops are for integer dtypes."""
    if op in (D.AND, D.OR, D.XOR) and dt in D.FLOATS:
        raise _errors.error_for_status(
            4, "%s: %s is for integer dtypes, not %s" % (_base(what), D.OP_NAME[op], D.NAME[dt]))


def _reduce_axis(x, op, out, stream, what, axis, reproducible=False):
    """Reduce every row along the last axis (wk_segmented_reduce, or
    wk_segmented_reduce_repro for reproducible sums)."""
    L = _L or _load()
    ptr, shape, strides, dt, dev, s, olib, explicit, keep = _arrays.view_nd(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    _check_axis(axis, len(shape), what)
    count, size, stride = _rows(shape, strides, what)
    fn = _segments_fn(L, "wk_segmented_reduce_repro" if reproducible else "wk_segmented_reduce")
    lead = shape[:-1]
    if out is None:
        res, optr = olib.alloc(lead, dt, dev, s if explicit else None)
    else:
        res, optr = _out(out, lead, count, dt, dev, s, olib, explicit, what)
    if count == 0:
        _empty_op_check(op, dt, what)
        return res
    ctx = _CTX.get(dev) or _lib.context(dev)
    seg = _lib.Segments(count, size, stride, None, None)
    if reproducible:
        st = fn(ctx, ptr, optr, _byref(seg), dt, s)
    else:
        st = fn(ctx, ptr, optr, _byref(seg), dt, op, s)
    if st:
        raise L.error(st, what)
    return res


def _arg_axis(x, op, return_value, stream, what, axis):
    """argmin / argmax of every row along the last axis."""
    L = _L or _load()
    ptr, shape, strides, dt, dev, s, olib, explicit, keep = _arrays.view_nd(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    _check_axis(axis, len(shape), what)
    if shape[-1] == 0:
        raise ValueError("%s: %s of rows of length 0 (shape %s): an empty row has no extreme"
                         % (_base(what), D.OP_NAME[op], tuple(shape)))
    count, size, stride = _rows(shape, strides, what)
    fn = _segments_fn(L, "wk_segmented_reduce")
    # One 16-byte wk_arg_result {value (8 bytes), int64 index} per row: an
    # int64 array (..., 2) whose [..., 1] are the indices and whose first
    # bytes of [..., 0] the values.
    buf, bptr = olib.alloc(shape[:-1] + (2,), D.I64, dev, s if explicit else None)
    if count:
        ctx = _CTX.get(dev) or _lib.context(dev)
        seg = _lib.Segments(count, size, stride, None, None)
        st = fn(ctx, ptr, bptr, _byref(seg), dt, op, s)
        if st:
            raise L.error(st, what)
    if return_value:
        return olib.reinterpret(buf, dt)[..., 0], buf[..., 1]
    return buf[..., 1]


def _scan_axis(x, op, exclusive, initial, out, stream, what, axis):
    """Scan every row along the last axis (wk_segmented_*_scan): the output
    has x's shape, and x's layout."""
    L = _L or _load()
    ptr, shape, strides, dt, dev, s, olib, explicit, keep = _arrays.view_nd(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    _check_axis(axis, len(shape), what)
    init = _scan_init(op, exclusive, initial, dt, what)
    count, size, stride = _rows(shape, strides, what)
    fn = _segments_fn(L, "wk_segmented_exclusive_scan" if exclusive else "wk_segmented_inclusive_scan")
    n = count * size
    if stride == size:
        res, optr = _out(out, shape, n, dt, dev, s, olib, explicit, what)
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
        if odt != dt:
            raise TypeError("%s has dtype %s; %s is needed" % (label, D.NAME[odt], D.NAME[dt]))
        if odev != dev:
            raise ValueError("%s is on device %d, the input on device %d" % (label, odev, dev))
        if oshape != shape or _rows(oshape, ostrides, label) != (count, size, stride):
            raise ValueError("%s (shape %s, strides %s) is not laid out as x (shape %s, strides %s in elements)"
                             % (label, oshape, ostrides, shape, strides))
        res = out
    if n == 0:
        _empty_op_check(op, dt, what)
        return res
    ctx = _CTX.get(dev) or _lib.context(dev)
    seg = _lib.Segments(count, size, stride, None, None)
    if exclusive:
        st = fn(ctx, ptr, optr, _byref(seg), dt, op, init, s)
    else:
        st = fn(ctx, ptr, optr, _byref(seg), dt, op, s)
    if st:
        raise L.error(st, what)
    return res


# ---------------------------------------------------------------- reduce
_REDUCE_OPS = {"sum": D.SUM, "min": D.MIN, "max": D.MAX, "and": D.AND, "or": D.OR, "xor": D.XOR}


def _reduce(x, op, out, stream, what, reproducible=False, axis=None):
    if axis is not None:
        return _reduce_axis(x, op, out, stream, what, axis, reproducible)
    L = _L or _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    ctx = _CTX.get(dev) or _lib.context(dev)
    if out is None:
        res, optr = olib.alloc((), dt, dev, s if explicit else None)
    else:
        res, optr = _out(out, (), 1, dt, dev, s, olib, explicit, what)
    if reproducible:
        st = L.wk_reduce_repro(ctx, ptr, optr, n, dt, s)
    else:
        st = L.wk_reduce(ctx, ptr, optr, n, dt, op, s)
    if st:
        raise L.error(st, what)
    return res


def reduce(x, op, *, axis=None, out=None, stream=None):
    """Reduce all elements of x with op ("sum", "min", "max", "and", "or",
    "xor"; the bitwise ones for integer dtypes).  Returns a 0-d device array
    of x's dtype (or writes `out`, one element).  Asynchronous.

    axis=-1 (or x.ndim - 1): reduce each row along the last axis instead,
    giving an array of shape x.shape[:-1] (`out`: a contiguous array of that
    many elements); an empty row gives the identity.  x may be C-contiguous
    or have its rows apart, as a column slice x[:, :k] (see README.md).

    Semantics (include/warpkit.h): integer sums wrap; f16/bf16 accumulate in
    float; n = 0 gives the identity; min/max return NaN if any element is NaN;
    the same bits on every run."""
    code = _REDUCE_OPS.get(op)
    if code is None:
        raise ValueError("warpkit.reduce: op %r is not one of %s" % (op, ", ".join(map(repr, _REDUCE_OPS))))
    return _reduce(x, code, out, stream, "warpkit.reduce: x", axis=axis)


def sum(x, *, axis=None, out=None, stream=None, reproducible=False):  # noqa: A001 (numpy's name)
    """Sum of all elements, a 0-d device array of x's dtype.  Asynchronous.

    axis=-1: the sum of each row along the last axis, shape x.shape[:-1]
    (see reduce).

    reproducible=True (float dtypes): the same bits whatever the GPU, the
    order of the elements or the offset of the view (wk_reduce_repro):
    within half an ulp of the exact sum plus n * 2^-80 * max|x|.  With
    axis=-1 (wk_segmented_reduce_repro), each row gets the bits the whole
    array call gives for that row alone (+0.0 for an empty row), in any
    layout.  Integer sums are exact either way."""
    return _reduce(x, 0, out, stream, "warpkit.sum: x", reproducible, axis)


def min(x, *, axis=None, out=None, stream=None):  # noqa: A001
    """Smallest element (NaN if any is NaN), a 0-d device array; with
    axis=-1, of each row (see reduce).  Asynchronous."""
    return _reduce(x, 1, out, stream, "warpkit.min: x", axis=axis)


def max(x, *, axis=None, out=None, stream=None):  # noqa: A001
    """Largest element (NaN if any is NaN), a 0-d device array; with
    axis=-1, of each row (see reduce).  Asynchronous."""
    return _reduce(x, 2, out, stream, "warpkit.max: x", axis=axis)


def reduce_and(x, *, axis=None, out=None, stream=None):
    """Bitwise AND of all elements (integer dtypes), 0-d.  All ones for n = 0."""
    return _reduce(x, 3, out, stream, "warpkit.reduce_and: x", axis=axis)


def reduce_or(x, *, axis=None, out=None, stream=None):
    """Bitwise OR of all elements (integer dtypes), 0-d.  Asynchronous."""
    return _reduce(x, 4, out, stream, "warpkit.reduce_or: x", axis=axis)


def reduce_xor(x, *, axis=None, out=None, stream=None):
    """Bitwise XOR of all elements (integer dtypes), 0-d.  Asynchronous."""
    return _reduce(x, 5, out, stream, "warpkit.reduce_xor: x", axis=axis)


def _arg(x, op, return_value, stream, what, axis=None):
    if axis is not None:
        return _arg_axis(x, op, return_value, stream, what, axis)
    L = _L or _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    ctx = _CTX.get(dev) or _lib.context(dev)
    # The C call writes a 16-byte wk_arg_result {value (8 bytes), int64 index}:
    # two int64s, of which the second is returned as a 0-d view.
    buf, bptr = olib.alloc((2,), D.I64, dev, s if explicit else None)
    st = L.wk_reduce(ctx, ptr, bptr, n, dt, op, s)
    if st:
        raise L.error(st, what)
    if return_value:
        return olib.reinterpret(buf[:1], dt)[0], buf[1]
    return buf[1]


def argmin(x, *, axis=None, return_value=False, stream=None):
    """Index (int64, 0-d device array) of the first smallest element, as
    numpy.argmin of the flattened array: the first NaN if there is one; -1 for
    n = 0.  With return_value=True, returns (value, index), both 0-d views of
    one 16-byte device buffer.  Asynchronous.

    axis=-1: the index within each row along the last axis, shape
    x.shape[:-1], as numpy.argmin(x, axis=-1); (values, indices) with
    return_value=True, both views of one (..., 16-byte) buffer (strided).
    Rows of length 0 raise ValueError, as in NumPy."""
    return _arg(x, 6, return_value, stream, "warpkit.argmin: x", axis)


def argmax(x, *, axis=None, return_value=False, stream=None):
    """Index (int64, 0-d device array) of the first largest element; see
    argmin."""
    return _arg(x, 7, return_value, stream, "warpkit.argmax: x", axis)


# ------------------------------------------------------------------ scan
_SCAN_OPS = {"sum": D.SUM, "min": D.MIN, "max": D.MAX, "and": D.AND, "or": D.OR, "xor": D.XOR}


def _scan_init(op, exclusive, initial, dt, what):
    if exclusive:
        return D.identity_bits(op, dt) if initial is None else D.encode(initial, dt, _base(what) + ": initial")
    if initial is not None:
        raise ValueError("%s: initial= is for exclusive scans (exclusive=True)" % _base(what))
    return None


def _scan(x, op, exclusive, initial, out, stream, what, axis=None):
    if axis is not None:
        return _scan_axis(x, op, exclusive, initial, out, stream, what, axis)
    L = _L or _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    ctx = _CTX.get(dev) or _lib.context(dev)
    init = _scan_init(op, exclusive, initial, dt, what)
    res, optr = _out(out, (n,), n, dt, dev, s, olib, explicit, what)
    if exclusive:
        st = L.wk_exclusive_scan(ctx, ptr, optr, n, dt, op, init, s)
    else:
        st = L.wk_inclusive_scan(ctx, ptr, optr, n, dt, op, s)
    if st:
        raise L.error(st, what)
    return res


def scan(x, op="sum", *, axis=None, exclusive=False, initial=None, out=None, stream=None):
    """Prefix scan of the flattened x with op ("sum", "min", "max", "and",
    "or", "xor"), a 1-D array of n elements of x's dtype (or `out`, any
    contiguous array of n elements; out may be x itself: in place).

    exclusive=True: out[0] = initial, out[i] = initial op x[0] op ... op
    x[i-1]; initial defaults to the op's identity (0, +inf / the dtype's
    maximum for min, ...) and is rounded to the dtype.  Asynchronous.

    axis=-1 (or x.ndim - 1): scan each row along the last axis on its own
    (an exclusive scan starts every row at `initial`); the result has x's
    shape.  x C-contiguous, or with its rows apart (a column slice x[:, :k])
    when `out` is laid out as x (out=x: in place)."""
    code = _SCAN_OPS.get(op)
    if code is None:
        raise ValueError("warpkit.scan: op %r is not one of %s" % (op, ", ".join(map(repr, _SCAN_OPS))))
    return _scan(x, code, exclusive, initial, out, stream, "warpkit.scan: x", axis)


def cumsum(x, *, axis=None, exclusive=False, initial=None, out=None, stream=None):
    """Cumulative sum (inclusive, or exclusive starting at `initial`, default
    0) of the flattened x, or of each row with axis=-1 (see scan)."""
    return _scan(x, 0, exclusive, initial, out, stream, "warpkit.cumsum: x", axis)


def cummin(x, *, axis=None, exclusive=False, initial=None, out=None, stream=None):
    """Cumulative minimum (NaN from the first NaN on); axis as in scan."""
    return _scan(x, 1, exclusive, initial, out, stream, "warpkit.cummin: x", axis)


def cummax(x, *, axis=None, exclusive=False, initial=None, out=None, stream=None):
    """Cumulative maximum (NaN from the first NaN on); axis as in scan."""
    return _scan(x, 2, exclusive, initial, out, stream, "warpkit.cummax: x", axis)


# ---------------------------------------------------------------- select
def _predicate(compare, value, hi, dt, what):
    what = _base(what)
    if compare in (D.IS_NAN, D.NOT_NAN):
        if value is not None:
            raise ValueError("%s: isnan / notnan take no value" % what)
        if dt not in D.FLOATS:
            raise TypeError("%s: isnan / notnan need a float dtype, not %s" % (what, D.NAME[dt]))
        return Predicate(compare, 0, 0)
    if value is None:
        raise ValueError("%s: the op needs a value to compare with" % what)
    a = D.encode(value, dt, what + ": value")
    b = D.encode(hi, dt, what + ": hi") if compare == D.IN_RANGE else 0
    return Predicate(compare, a, b)


def _select(fn_name, x, compare, value, hi, out, count, stream, what, out_dt=None):
    L = _L or _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    pred = _predicate(compare, value, hi, dt, what)
    ctx = _CTX.get(dev) or _lib.context(dev)
    odt = dt if out_dt is None else out_dt
    res, optr = _out(out, (n,), n, odt, dev, s, olib, explicit, what)
    cnt, cptr = _count_out(count, dev, s, olib, explicit, what)
    st = getattr(L, fn_name)(ctx, ptr, optr, cptr, n, dt, pred, s)
    if st:
        raise L.error(st, what)
    return res, cnt


def select(x, op, value=None, *, out=None, count=None, stream=None):
    """Stream compaction: the elements e of the flattened x for which
    ``e <op> value`` holds, in order, to out[0:count].

    op: "<", "<=", ">", ">=", "==", "!=" (value needed; rounded to x's dtype),
    "isnan", "notnan" (float dtypes, no value).  NaN compares as in C: false
    except for "!=".

    Returns (out, count): out has room for all n elements (entries past count
    are left as they were), count is a 0-d int64 device array.  Nothing is
    synchronized: use trim(out, count) for the kept prefix.  `out` (n elements
    of x's dtype) and `count` (one int64/uint64) may be given.  Asynchronous."""
    return _select("wk_select_if", x, D.parse_compare(op, "warpkit.select"), value, None, out, count, stream,
                   "warpkit.select: x")


def select_range(x, lo, hi, *, out=None, count=None, stream=None):
    """The elements with lo <= e < hi (half-open), as select."""
    return _select("wk_select_if", x, D.IN_RANGE, lo, hi, out, count, stream, "warpkit.select_range: x")


def partition(x, op, value=None, *, out=None, count=None, stream=None):
    """Stable partition: the elements `select` keeps to out[0:count] in order,
    the others to out[count:n] in reverse order (as CUB's DevicePartition::If).
    Returns (out, count).  Asynchronous."""
    return _select("wk_partition_if", x, D.parse_compare(op, "warpkit.partition"), value, None, out, count, stream,
                   "warpkit.partition: x")


def nonzero(x, op="!=", value=0, *, out=None, count=None, stream=None):
    """Indices (int64) of the elements of the flattened x for which
    ``e <op> value`` holds (default: e != 0, as numpy.nonzero), to
    out[0:count].  Returns (indices, count).  Asynchronous."""
    if op in ("isnan", "is_nan", "notnan", "not_nan") and value == 0:
        value = None
    return _select("wk_where", x, D.parse_compare(op, "warpkit.nonzero"), value, None, out, count, stream,
                   "warpkit.nonzero: x", out_dt=D.I64)


def unique_consecutive(x, *, out=None, count=None, stream=None):
    """The first element of every run of equal consecutive elements (== as in
    C: -0.0 equals 0.0, every NaN is kept), to out[0:count].  Returns
    (out, count).  Asynchronous."""
    what = "warpkit.unique_consecutive: x"
    L = _L or _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    ctx = _CTX.get(dev) or _lib.context(dev)
    res, optr = _out(out, (n,), n, dt, dev, s, olib, explicit, what)
    cnt, cptr = _count_out(count, dev, s, olib, explicit, what)
    st = L.wk_unique(ctx, ptr, optr, cptr, n, dt, s)
    if st:
        raise L.error(st, what)
    return res, cnt


def compress(mask, x, *, out=None, count=None, stream=None):
    """The elements of the flattened x whose mask byte is nonzero, in order,
    to out[0:count] (numpy.compress(mask, x) for flat arrays).  mask: bool or
    uint8, as many elements as x.  Returns (out, count).  Asynchronous."""
    what = "warpkit.compress"
    L = _L or _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, "warpkit.compress: x")
    if dt >= 100:
        _no_mask(dt, "warpkit.compress: x")
    mptr, mn, mdt, mdev, _, _, _, mkeep = _view(mask, s, "warpkit.compress: mask")
    if mdt not in _MASKS:
        raise TypeError("%s: mask has dtype %s; bool or uint8 is needed" % (what, D.NAME[mdt]))
    if mn != n:
        raise ValueError("%s: mask has %d elements, x has %d" % (what, mn, n))
    if mdev != dev:
        raise ValueError("%s: mask is on device %d, x on device %d" % (what, mdev, dev))
    ctx = _CTX.get(dev) or _lib.context(dev)
    res, optr = _out(out, (n,), n, dt, dev, s, olib, explicit, what)
    cnt, cptr = _count_out(count, dev, s, olib, explicit, what)
    st = L.wk_select_flagged(ctx, ptr, mptr, optr, cptr, n, dt, s)
    if st:
        raise L.error(st, what)
    return res, cnt


def trim(out, count, *, stream=None):
    """The kept prefix out[0:count] of a select / compress / partition /
    unique_consecutive / nonzero result, as a view.

    SYNCHRONIZES: it reads count on the host (``count.item()``), which waits
    for the work on the array library's current stream.  If the select ran on
    another stream (stream=), pass that stream here: it is synchronized first."""
    if stream is not None:
        _arrays.stream_synchronize(_arrays.stream_handle(stream))
    item = getattr(count, "item", None)
    k = int(item()) if item is not None else int(count)
    return out[:k]


# ----------------------------------------------------------------- misc
def _dtype_code(dtype):
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None) or str(dtype)
    name = name.rsplit(".", 1)[-1]
    name = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16", "half": "float16",
            "float": "float32", "double": "float64", "i32": "int32", "u32": "uint32", "i64": "int64",
            "u64": "uint64"}.get(name, name)
    entry = D.DTYPES.get(name)
    if entry is None:
        raise TypeError("warpkit: dtype %r is not one of %s" % (dtype, D.SUPPORTED))
    return entry[0]


def reserve(n, dtype, *, device=None):
    """Grow the scan / select workspaces of `device` (default: the current
    device) for inputs of up to n elements of dtype, so that later calls do
    not allocate.  SYNCHRONIZES the device.  Never shrinks."""
    L = _L or _load()
    if not isinstance(device, int):
        # A torch.device("cuda") or a cupy Device; no index means the current one.
        index = None if device is None else getattr(device, "index", getattr(device, "id", None))
        device = _arrays.pointer_device(0, "reserve") if index is None else int(index)
    ctx = _CTX.get(device) or _lib.context(device)
    st = L.wk_scan_reserve(ctx, int(n), _dtype_code(dtype))
    if st:
        raise L.error(st, "reserve")


def library_path():
    """The path of the loaded libwarpkit.so (loading it if needed)."""
    return (_L or _load()).path


def sm_count(device=0):
    """The multiprocessor count the context of `device` read at creation."""
    L = _L or _load()
    return L.wk_context_sm_count(_CTX.get(device) or _lib.context(device))


def _reset_for_tests():
    """Forget the loaded library and contexts (the tests load a stub)."""
    global _L
    _L = None
    _lib._reset_for_tests()
    _arrays._tls.__dict__.clear()


del ctypes
