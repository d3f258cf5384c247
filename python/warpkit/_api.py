"""The public functions: thin, one-to-one over the C calls.

Every function takes a contiguous CUDA array (any shape, taken flat), runs
asynchronously on a CUDA stream and returns arrays of the input's library on
the input's device.  Nothing synchronizes the host unless its docstring says
so (only :func:`trim` and :func:`reserve` do).

Stream: without ``stream=``, the stream the input's library uses now
(PyTorch's / CuPy's current stream; for a ``__cuda_array_interface__`` object
its ``stream`` entry, else the legacy default stream; for a DLPack object the
legacy default stream, passed to ``__dlpack__``).  ``stream=`` takes a raw
handle (int), a PyTorch or CuPy stream, or anything with ``.cuda_stream``,
``.ptr`` or ``__cuda_stream__``.
"""

import ctypes

from . import _arrays
from . import _dtypes as D
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


# ---------------------------------------------------------------- reduce
_REDUCE_OPS = {"sum": D.SUM, "min": D.MIN, "max": D.MAX, "and": D.AND, "or": D.OR, "xor": D.XOR}


def _reduce(x, op, out, stream, what, reproducible=False):
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


def reduce(x, op, *, out=None, stream=None):
    """Reduce all elements of x with op ("sum", "min", "max", "and", "or",
    "xor"; the bitwise ones for integer dtypes).  Returns a 0-d device array
    of x's dtype (or writes `out`, one element).  Asynchronous.

    Semantics (include/warpkit.h): integer sums wrap; f16/bf16 accumulate in
    float; n = 0 gives the identity; min/max return NaN if any element is NaN;
    the same bits on every run."""
    code = _REDUCE_OPS.get(op)
    if code is None:
        raise ValueError("warpkit.reduce: op %r is not one of %s" % (op, ", ".join(map(repr, _REDUCE_OPS))))
    return _reduce(x, code, out, stream, "warpkit.reduce: x")


def sum(x, *, out=None, stream=None, reproducible=False):  # noqa: A001 (numpy's name)
    """Sum of all elements, a 0-d device array of x's dtype.  Asynchronous.

    reproducible=True (float dtypes): the same bits whatever the GPU, the
    order of the elements or the offset of the view (wk_reduce_repro):
    within half an ulp of the exact sum plus n * 2^-80 * max|x|.  Integer
    sums are exact either way."""
    return _reduce(x, 0, out, stream, "warpkit.sum: x", reproducible)


def min(x, *, out=None, stream=None):  # noqa: A001
    """Smallest element (NaN if any is NaN), a 0-d device array.  Asynchronous."""
    return _reduce(x, 1, out, stream, "warpkit.min: x")


def max(x, *, out=None, stream=None):  # noqa: A001
    """Largest element (NaN if any is NaN), a 0-d device array.  Asynchronous."""
    return _reduce(x, 2, out, stream, "warpkit.max: x")


def reduce_and(x, *, out=None, stream=None):
    """Bitwise AND of all elements (integer dtypes), 0-d.  All ones for n = 0."""
    return _reduce(x, 3, out, stream, "warpkit.reduce_and: x")


def reduce_or(x, *, out=None, stream=None):
    """Bitwise OR of all elements (integer dtypes), 0-d.  Asynchronous."""
    return _reduce(x, 4, out, stream, "warpkit.reduce_or: x")


def reduce_xor(x, *, out=None, stream=None):
    """Bitwise XOR of all elements (integer dtypes), 0-d.  Asynchronous."""
    return _reduce(x, 5, out, stream, "warpkit.reduce_xor: x")


def _arg(x, op, return_value, stream, what):
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


def argmin(x, *, return_value=False, stream=None):
    """Index (int64, 0-d device array) of the first smallest element, as
    numpy.argmin of the flattened array: the first NaN if there is one; -1 for
    n = 0.  With return_value=True, returns (value, index), both 0-d views of
    one 16-byte device buffer.  Asynchronous."""
    return _arg(x, 6, return_value, stream, "warpkit.argmin: x")


def argmax(x, *, return_value=False, stream=None):
    """Index (int64, 0-d device array) of the first largest element; see
    argmin."""
    return _arg(x, 7, return_value, stream, "warpkit.argmax: x")


# ------------------------------------------------------------------ scan
_SCAN_OPS = {"sum": D.SUM, "min": D.MIN, "max": D.MAX, "and": D.AND, "or": D.OR, "xor": D.XOR}


def _scan(x, op, exclusive, initial, out, stream, what):
    L = _L or _load()
    ptr, n, dt, dev, s, olib, explicit, keep = _view(x, stream, what)
    if dt >= 100:
        _no_mask(dt, what)
    ctx = _CTX.get(dev) or _lib.context(dev)
    if exclusive:
        init = D.identity_bits(op, dt) if initial is None else D.encode(initial, dt, _base(what) + ": initial")
    elif initial is not None:
        raise ValueError("%s: initial= is for exclusive scans (exclusive=True)" % _base(what))
    res, optr = _out(out, (n,), n, dt, dev, s, olib, explicit, what)
    if exclusive:
        st = L.wk_exclusive_scan(ctx, ptr, optr, n, dt, op, init, s)
    else:
        st = L.wk_inclusive_scan(ctx, ptr, optr, n, dt, op, s)
    if st:
        raise L.error(st, what)
    return res


def scan(x, op="sum", *, exclusive=False, initial=None, out=None, stream=None):
    """Prefix scan of the flattened x with op ("sum", "min", "max", "and",
    "or", "xor"), a 1-D array of n elements of x's dtype (or `out`, any
    contiguous array of n elements; out may be x itself: in place).

    exclusive=True: out[0] = initial, out[i] = initial op x[0] op ... op
    x[i-1]; initial defaults to the op's identity (0, +inf / the dtype's
    maximum for min, ...) and is rounded to the dtype.  Asynchronous."""
    code = _SCAN_OPS.get(op)
    if code is None:
        raise ValueError("warpkit.scan: op %r is not one of %s" % (op, ", ".join(map(repr, _SCAN_OPS))))
    return _scan(x, code, exclusive, initial, out, stream, "warpkit.scan: x")


def cumsum(x, *, exclusive=False, initial=None, out=None, stream=None):
    """Cumulative sum (inclusive, or exclusive starting at `initial`, default 0)."""
    return _scan(x, 0, exclusive, initial, out, stream, "warpkit.cumsum: x")


def cummin(x, *, exclusive=False, initial=None, out=None, stream=None):
    """Cumulative minimum (NaN from the first NaN on)."""
    return _scan(x, 1, exclusive, initial, out, stream, "warpkit.cummin: x")


def cummax(x, *, exclusive=False, initial=None, out=None, stream=None):
    """Cumulative maximum (NaN from the first NaN on)."""
    return _scan(x, 2, exclusive, initial, out, stream, "warpkit.cummax: x")


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
