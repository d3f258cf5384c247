"""Reductions and scans along the last axis (axis=-1) on the stub library:
the wk_segments that reach the C calls, the shapes, dtypes and layouts
taken or refused, and (with the stub computing on host memory) the results
against NumPy."""


import pytest

import warpkit
from conftest import FakeArray
from host_arrays import HostArray, HostOutLib
from warpkit import _dtypes as D

X = 0x5000_0000  # made-up device pointers


def f32(shape, strides=None, **kw):
    return FakeArray(X, shape, "<f4", strides=strides, **kw)


def byte_strides(elem_strides, itemsize=4):
    return tuple(s * itemsize for s in elem_strides)


def segs(c):
    return (c.seg_count, c.seg_size, c.seg_stride, c.seg_begin or 0, c.seg_end or 0)


@pytest.mark.parametrize("shape,axis,count,size", [
    ((2, 3), -1, 2, 3), ((2, 3), 1, 2, 3), ((7, 3, 31), -1, 21, 31), ((7, 3, 31), 2, 21, 31),
    ((5,), -1, 1, 5), ((5,), 0, 1, 5), ((1, 1), -1, 1, 1), ((4, 1), -1, 4, 1)])
def test_sum_uniform_layout(stub, shape, axis, count, size):
    stub.pointer(device=1)
    r = warpkit.sum(f32(shape, stream=0x77), axis=axis)
    c = stub.last
    assert c.fn == b"wk_segmented_reduce" and c.in_ == X and c.dtype == D.F32 and c.op == D.SUM
    assert segs(c) == (count, size, size, 0, 0)
    assert c.stream == 0x77 and c.ctx == 0x1000 + 0x10 * 1
    a, dt, oshape, dev, stream = stub.outlib.allocs[-1]
    assert r is a and c.out == a.ptr and dt == D.F32 and oshape == shape[:-1] and dev == 1 and stream is None


@pytest.mark.parametrize("shape,strides,count,size,stride", [
    ((4, 3), (10, 1), 4, 3, 10),              # x[:, :3] of a (4, 10) matrix
    ((2, 3, 4), (30, 10, 1), 6, 4, 10),       # x[..., :4] of a (2, 3, 10) array
    ((3, 1, 4), (20, 999, 1), 3, 4, 20),      # a unit dimension's stride does not matter
    ((1, 4), (999, 1), 1, 4, 4),              # one row: uniform
    ((5, 1), (7, 999), 5, 1, 7),              # rows of one element: x[:, :1]
    ((4, 4), (4, 1), 4, 4, 4),                # contiguous, strides given
])
def test_rows_layout(stub, shape, strides, count, size, stride):
    warpkit.max(f32(shape, byte_strides(strides)), axis=-1)
    c = stub.last
    assert c.fn == b"wk_segmented_reduce" and c.op == D.MAX and segs(c) == (count, size, stride, 0, 0)
    assert stub.outlib.allocs[-1][2] == shape[:-1]


@pytest.mark.parametrize("fn,op", [
    (warpkit.sum, D.SUM), (warpkit.min, D.MIN), (warpkit.max, D.MAX), (warpkit.reduce_and, D.AND),
    (warpkit.reduce_or, D.OR), (warpkit.reduce_xor, D.XOR),
    (lambda x, **k: warpkit.reduce(x, "xor", **k), D.XOR), (lambda x, **k: warpkit.reduce(x, "min", **k), D.MIN)])
def test_reduce_ops_along_axis(stub, fn, op):
    fn(FakeArray(X, (3, 5), "<i8"), axis=-1)
    c = stub.last
    assert c.fn == b"wk_segmented_reduce" and c.op == op and c.dtype == D.I64 and segs(c)[:3] == (3, 5, 5)


@pytest.mark.parametrize("typestr,code", [
    ("<i4", 0), ("<u4", 1), ("<i8", 2), ("<u8", 3), ("<f4", 4), ("<f8", 5), ("<f2", 6)])
def test_dtypes_along_axis(stub, typestr, code):
    warpkit.sum(FakeArray(X, (2, 3), typestr), axis=-1, dtype=D.NAME[code])
    assert stub.last.dtype == code and stub.outlib.allocs[-1][1] == code


def test_dlpack_along_axis(stub):
    from test_calls import DL
    warpkit.sum(DL(X, (3, 5), 4, 16, offset=64), axis=-1)  # bfloat16, contiguous
    c = stub.last
    assert c.in_ == X + 64 and c.dtype == D.BF16 and segs(c)[:3] == (3, 5, 5)
    warpkit.sum(DL(X, (3, 5), 2, 32, strides=(8, 1)), axis=-1)  # strides in elements
    assert segs(stub.last)[:3] == (3, 5, 8)
    with pytest.raises(ValueError, match="last axis is strided"):
        warpkit.sum(DL(X, (4, 4), 2, 32, strides=(1, 4)), axis=-1)


def test_stream_along_axis(stub):
    warpkit.sum(f32((2, 3)), axis=-1, stream=0x99)
    assert stub.last.stream == 0x99 and stub.outlib.allocs[-1][4] == 0x99
    warpkit.cumsum(f32((2, 3), stream=0x55), axis=-1, stream=0x66)  # waits for the producer's stream
    assert "wait(0x66," in stub.log and stub.last.stream == 0x66


# ------------------------------------------------------------------ refused
@pytest.mark.parametrize("shape,axis,exc,msg", [
    ((2, 3), 0, ValueError, r"axis=0 is not supported.*axis=-1 or 1.*movedim\(0, -1\)"),
    ((7, 3, 31), 1, ValueError, "axis=1 is not supported"),
    ((7, 3, 31), -2, ValueError, "axis=-2 is not supported"),
    ((2, 3), 2, ValueError, "axis 2 is out of range for a 2-d array"),
    ((2, 3), -3, ValueError, "out of range"),
    ((), -1, ValueError, "0-d array, which has no axis"),
    ((2, 3), "1", TypeError, "axis must be None or an int"),
    ((2, 3), 1.0, TypeError, "axis must be None or an int"),
    ((2, 3), True, TypeError, "axis must be None or an int"),
    ((2, 3), (1,), TypeError, "axis must be None or an int")])
@pytest.mark.parametrize("fn", [warpkit.sum, warpkit.argmax, warpkit.cumsum])
def test_axis_refused(stub, fn, shape, axis, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(f32(shape), axis=axis)
    assert stub.calls == 0


@pytest.mark.parametrize("shape,strides,msg", [
    ((4, 4), (1, 4), "last axis is strided"),                  # a transpose
    ((4, 4), (8, 2), "last axis is strided"),                  # x[:, ::2]
    ((2, 3, 4), (50, 10, 1), "rows are not evenly spaced"),    # leading dimensions that do not merge
    ((4, 3), (2, 1), "overlap"),                                # rows closer than their length
    ((4, 3), (0, 1), "overlap"),                                # broadcast rows (stride 0)
    ((4, 3), (-3, 1), "overlap")])                              # negative row stride
@pytest.mark.parametrize("fn", [warpkit.sum, warpkit.argmin, warpkit.cummax])
def test_layout_refused(stub, fn, shape, strides, msg):
    with pytest.raises(ValueError, match=msg):
        fn(f32(shape, byte_strides(strides)), axis=-1)
    assert stub.calls == 0


def test_odd_byte_strides_refused(stub):
    with pytest.raises(ValueError, match="not a whole number of 4-byte elements"):
        warpkit.sum(f32((3, 3), (14, 4)), axis=-1)


def test_reproducible_sum_along_axis(stub):
    r = warpkit.sum(f32((4, 3), byte_strides((10, 1)), stream=0x77), axis=-1, reproducible=True)
    c = stub.last
    assert c.fn == b"wk_segmented_reduce_repro" and c.in_ == X and c.dtype == D.F32 and c.stream == 0x77
    assert segs(c) == (4, 3, 10, 0, 0) and c.out == r.ptr and r.shape == (4,)
    n = stub.calls
    assert warpkit.sum(f32((0, 3)), axis=-1, reproducible=True).shape == (0,) and stub.calls == n


def test_bool_dtype_taken(stub):
    r = warpkit.sum(FakeArray(X, (2, 3), "|b1"), axis=-1)  # counts, in int64
    c = stub.last
    assert c.fn == b"wk_segmented_reduce_to" and c.dtype == D.BOOL and c.out_dtype == D.I64 and r.shape == (2,)


# ------------------------------------------------------------------- empty
def test_no_rows(stub):
    r = warpkit.sum(f32((0, 5)), axis=-1)
    assert stub.calls == 0 and r.shape == (0,)
    r = warpkit.cumsum(f32((0, 5)), axis=-1)
    assert stub.calls == 0 and r.shape == (0, 5)
    idx = warpkit.argmax(f32((0, 5)), axis=-1)
    assert stub.calls == 0 and idx.shape == (0,) and idx.typestr == "<i8"
    with pytest.raises(warpkit.UnsupportedError, match="and is for integer dtypes, not float32"):
        warpkit.reduce_and(f32((0, 5)), axis=-1)


def test_empty_rows(stub):
    r = warpkit.min(FakeArray(0, (5, 0), "<f4"), axis=-1)  # the identity per row, from the C call
    c = stub.last
    assert c.fn == b"wk_segmented_reduce" and segs(c) == (5, 0, 0, 0, 0) and r.shape == (5,)
    n = stub.calls
    r = warpkit.cumsum(FakeArray(0, (5, 0), "<f4"), axis=-1)  # nothing to write
    assert stub.calls == n and r.shape == (5, 0)
    for shape in [(5, 0), (0, 0), (0,)]:
        with pytest.raises(ValueError, match="argmax of rows of length 0"):
            warpkit.argmax(FakeArray(0, shape, "<f4"), axis=-1)
    assert stub.calls == n


# ---------------------------------------------------------------------- out
def test_reduce_out_along_axis(stub):
    out = FakeArray(0x9000, (3,), "<f4")
    assert warpkit.sum(f32((3, 4)), axis=-1, out=out) is out and stub.last.out == 0x9000
    n = stub.calls
    with pytest.raises(ValueError, match="out has 4 elements; 3 are needed"):
        warpkit.sum(f32((3, 4)), axis=-1, out=FakeArray(0x9000, (4,), "<f4"))
    with pytest.raises(TypeError, match="out has dtype float64; float32"):
        warpkit.sum(f32((3, 4)), axis=-1, dtype="float32", out=FakeArray(0x9000, (3,), "<f8"))
    assert stub.calls == n


# ------------------------------------------------------------------ argmax
@pytest.mark.parametrize("fn,op", [(warpkit.argmin, D.ARGMIN), (warpkit.argmax, D.ARGMAX)])
def test_arg_ops_along_axis(stub, fn, op):
    idx = fn(f32((3, 7)), axis=-1)
    c = stub.last
    buf, dt, shape, _, _ = stub.outlib.allocs[-1]
    assert c.fn == b"wk_segmented_reduce" and c.op == op and segs(c)[:3] == (3, 7, 7)
    assert dt == D.I64 and shape == (3, 2) and c.out == buf.ptr
    assert idx.ptr == buf.ptr + 8 and idx.shape == (3,) and idx.typestr == "<i8" and idx.strides == (16,)
    value, idx = fn(FakeArray(X, (2, 4, 5), "<f2"), axis=-1, return_value=True)
    buf = stub.outlib.allocs[-1][0]
    assert buf.shape == (2, 4, 2)
    assert value.ptr == buf.ptr and value.typestr == "<f2" and value.shape == (2, 4) and value.strides == (64, 16)
    assert idx.ptr == buf.ptr + 8 and idx.shape == (2, 4)


# -------------------------------------------------------------------- scans
def test_scans_along_axis(stub):
    r = warpkit.cumsum(f32((2, 5)), axis=-1)
    c = stub.last
    assert c.fn == b"wk_segmented_inclusive_scan" and c.op == D.SUM and segs(c) == (2, 5, 5, 0, 0)
    assert c.in_ == X and c.out == r.ptr and r.shape == (2, 5)
    warpkit.cummin(f32((2, 5)), axis=-1)
    assert stub.last.op == D.MIN
    warpkit.cummax(f32((2, 5)), axis=1)
    assert stub.last.op == D.MAX
    warpkit.scan(FakeArray(X, (3, 4), "<u4"), "or", axis=-1)
    assert stub.last.op == D.OR and stub.last.dtype == D.U32
    r = warpkit.cumsum(f32((7, 3, 31)), axis=-1)
    assert segs(stub.last)[:3] == (21, 31, 31) and r.shape == (7, 3, 31)
    out = f32((2, 5))  # in place
    assert warpkit.cumsum(out, axis=-1, out=out) is out and stub.last.out == X


@pytest.mark.parametrize("fn,typestr,kw,init", [
    (warpkit.cumsum, "<f4", {}, 0),
    (warpkit.cummin, "<f4", {}, 0x7F800000),
    (warpkit.cummax, "<i4", {}, 0x80000000),
    (warpkit.cumsum, "<f8", {"initial": 2.5}, 0x4004000000000000),
    (warpkit.cumsum, "<i4", {"initial": -1, "dtype": "int32"}, 0xFFFFFFFF)])
def test_exclusive_scan_along_axis(stub, fn, typestr, kw, init):
    fn(FakeArray(X, (3, 7), typestr), axis=-1, exclusive=True, **kw)
    assert stub.last.fn == b"wk_segmented_exclusive_scan" and stub.last.init == init
    assert segs(stub.last)[:3] == (3, 7, 7)


def test_scan_of_rows_apart(stub):
    x = f32((4, 3), byte_strides((10, 1)))
    with pytest.raises(ValueError, match=r"pass out= laid out as x \(out=x scans in place\)"):
        warpkit.cumsum(x, axis=-1)
    assert stub.calls == 0
    assert warpkit.cumsum(x, axis=-1, out=x) is x  # in place
    c = stub.last
    assert c.in_ == X and c.out == X and segs(c)[:3] == (4, 3, 10)
    other = FakeArray(0x9000, (4, 3), "<f4", strides=byte_strides((10, 1)))
    assert warpkit.cumsum(x, axis=-1, out=other, exclusive=True) is other
    assert stub.last.out == 0x9000 and stub.last.fn == b"wk_segmented_exclusive_scan"
    n = stub.calls
    with pytest.raises(ValueError, match="is not laid out as x"):
        warpkit.cumsum(x, axis=-1, out=FakeArray(0x9000, (4, 3), "<f4", strides=byte_strides((12, 1))))
    with pytest.raises(ValueError, match="is not laid out as x"):
        warpkit.cumsum(x, axis=-1, out=FakeArray(0x9000, (4, 3), "<f4"))
    with pytest.raises(TypeError, match="out has dtype float64"):
        warpkit.cumsum(x, axis=-1, dtype="float32",
                       out=FakeArray(0x9000, (4, 3), "<f8", strides=byte_strides((10, 1), 8)))
    # A contiguous x takes a contiguous out only (the scan writes where it reads).
    with pytest.raises(ValueError, match="not contiguous"):
        warpkit.cumsum(f32((4, 3)), axis=-1, out=FakeArray(0x9000, (4, 3), "<f4", strides=byte_strides((10, 1))))
    assert stub.calls == n


def test_scan_argument_errors_along_axis(stub):
    with pytest.raises(ValueError, match="initial= is for exclusive"):
        warpkit.cumsum(f32((2, 3)), axis=-1, initial=1.0)
    with pytest.raises(ValueError, match="out of range for int32"):
        warpkit.cumsum(FakeArray(X, (2, 3), "<i4"), axis=-1, dtype="int32", exclusive=True, initial=2 ** 40)
    assert stub.calls == 0


# ------------------------------------------------------------------- errors
@pytest.mark.parametrize("status,cls", [(1, warpkit.InvalidArgumentError), (4, warpkit.UnsupportedError),
                                        (7, warpkit.OutOfMemoryError)])
@pytest.mark.parametrize("call", ["sum", "argmax", "cumsum", "exclusive"])
def test_status_along_axis(stub, status, cls, call):
    stub.fail(status, "detail %d" % status)
    x = f32((2, 3))
    with pytest.raises(cls) as info:
        {"sum": lambda: warpkit.sum(x, axis=-1), "argmax": lambda: warpkit.argmax(x, axis=-1),
         "cumsum": lambda: warpkit.cumsum(x, axis=-1),
         "exclusive": lambda: warpkit.cumsum(x, axis=-1, exclusive=True)}[call]()
    assert str(info.value) == "warpkit.%s: detail %d" % ("cumsum" if call == "exclusive" else call, status)


def test_older_library_without_optional_calls(old_stub):
    stub = old_stub
    warpkit.sum(f32((2, 3)))  # the rest still works
    idx = warpkit.argmax(f32((2, 3)))  # without wk_reduce_index: the index of a wk_arg_result
    buf = stub.outlib.allocs[-1][0]
    assert stub.last.fn == b"wk_reduce" and buf.shape == (2,) and idx.ptr == buf.ptr + 8
    n = stub.calls
    with pytest.raises(warpkit.LibraryNotFoundError, match="lacks wk_segmented_reduce.*axis= needs"):
        warpkit.sum(f32((2, 3)), axis=-1)
    with pytest.raises(warpkit.LibraryNotFoundError, match="lacks wk_segmented_exclusive_scan"):
        warpkit.cumsum(f32((2, 3)), axis=-1, exclusive=True)
    with pytest.raises(warpkit.LibraryNotFoundError, match="lacks wk_segmented_reduce_repro"):
        warpkit.sum(f32((2, 3)), axis=-1, reproducible=True)
    assert stub.calls == n


def test_axis_none_is_the_whole_array(stub):
    warpkit.sum(f32((2, 3)), axis=None)
    assert stub.last.fn == b"wk_reduce" and stub.last.n == 6
    warpkit.cumsum(f32((2, 3)), axis=None)
    assert stub.last.fn == b"wk_inclusive_scan"
    warpkit.argmax(f32((2, 3)), axis=None)
    assert stub.last.fn == b"wk_reduce_index" and stub.last.op == D.ARGMAX


# ======================================================= computed on the host
np = None


@pytest.fixture
def host(stub, monkeypatch):
    global np
    np = pytest.importorskip("numpy")
    from warpkit import _arrays
    monkeypatch.setattr(_arrays, "fallback_outlib", HostOutLib(np))
    stub.compute()
    return np.random.default_rng(1234)


HOST_DTYPES = ["int32", "uint32", "int64", "uint64", "float32", "float64", "float16"]
HOST_SHAPES = [(0, 5), (5, 0), (1, 1), (3, 33), (7, 3, 31), (33,), (50, 70)]


def values(rng, name, shape, kind="small"):
    dt = np.dtype(name)
    if dt.kind in "iu" and kind == "wide":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -5, 6, shape).astype(dt)
    return (rng.integers(-8, 9, shape) * 0.25).astype(dt)  # float sums here are exact


def views(rng, name, shape, kind="small"):
    """(host array, what to pass): C-contiguous, and a column slice of a
    wider array (rows apart) when there are rows."""
    a = values(rng, name, shape, kind)
    yield a, HostArray(a.copy())
    if len(shape) >= 2 and shape[-1] > 0:
        wide = values(rng, name, shape[:-1] + (shape[-1] + 9,), kind)
        wide[..., 2:2 + shape[-1]] = a
        yield a, HostArray(wide)[..., 2:2 + shape[-1]]


def same(got, ref):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, got.dtype, ref.shape, ref.dtype)
    ok = (got == ref) | (np.isnan(got) & np.isnan(ref) if got.dtype.kind == "f" else False)
    assert np.all(ok), (got, ref)


def identity(name, op):
    dt = np.dtype(name)
    if dt.kind == "f":
        return np.array(np.inf if op == "min" else -np.inf, dt)
    info = np.iinfo(dt)
    return np.array(info.max if op == "min" else info.min, dt)


@pytest.mark.parametrize("shape", HOST_SHAPES)
@pytest.mark.parametrize("name", HOST_DTYPES)
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_host_reduce(host, op, name, shape):
    for a, x in views(host, name, shape):
        got = getattr(warpkit, op)(x, axis=-1).a
        if op == "sum":
            ref = a.sum(axis=-1)  # in NumPy's dtype, as warpkit's (int64 and uint64 wrap)
        elif shape[-1] == 0:
            ref = np.broadcast_to(identity(name, op), shape[:-1])
        else:
            ref = getattr(a, op)(axis=-1)
        same(got, np.asarray(ref, dtype=ref.dtype if op == "sum" else a.dtype))


@pytest.mark.parametrize("shape", HOST_SHAPES)
@pytest.mark.parametrize("name", HOST_DTYPES)
def test_host_reproducible_sum(host, name, shape):
    for a, x in views(host, name, shape):
        same(warpkit.sum(x, axis=-1, reproducible=True).a, a.sum(axis=-1))


@pytest.mark.parametrize("name", ["int32", "uint32", "int64", "uint64"])
def test_host_integer_sums_wrap_and_bitwise(host, name):
    for a, x in views(host, name, (9, 40), "wide"):
        same(warpkit.sum(x, axis=-1, dtype=name).a, a.sum(axis=-1, dtype=a.dtype))
        same(warpkit.reduce_and(x, axis=-1).a, np.bitwise_and.reduce(a, axis=-1))
        same(warpkit.reduce_or(x, axis=-1).a, np.bitwise_or.reduce(a, axis=-1))
        same(warpkit.reduce_xor(x, axis=-1).a, np.bitwise_xor.reduce(a, axis=-1))


@pytest.mark.parametrize("shape", [s for s in HOST_SHAPES if s[-1] > 0])
@pytest.mark.parametrize("name", HOST_DTYPES)
@pytest.mark.parametrize("op", ["argmin", "argmax"])
def test_host_arg(host, op, name, shape):
    for a, x in views(host, name, shape):
        ref = getattr(a, op)(axis=-1)
        idx = getattr(warpkit, op)(x, axis=-1).a
        same(idx, ref)
        value, idx = getattr(warpkit, op)(x, axis=-1, return_value=True)
        same(idx.a, ref)
        same(value.a, np.take_along_axis(a, ref[..., None], -1)[..., 0])


@pytest.mark.parametrize("shape", HOST_SHAPES)
@pytest.mark.parametrize("name", HOST_DTYPES)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_host_scan(host, op, exclusive, name, shape):
    fn = {"sum": warpkit.cumsum, "min": warpkit.cummin, "max": warpkit.cummax}[op]
    ufunc = {"sum": np.add, "min": np.minimum, "max": np.maximum}[op]
    initial = (3 if np.dtype(name).kind in "iu" else 0.5) if op == "sum" else None
    a = values(host, name, shape)
    kw = {"dtype": name} if op == "sum" else {}  # in the input's dtype: HostArray has no conversion
    got = fn(HostArray(a.copy()), axis=-1, exclusive=exclusive, initial=initial if exclusive else None, **kw).a
    if exclusive:
        init = np.array(initial, a.dtype) if initial is not None else identity(name, op)
        seq = np.concatenate([np.broadcast_to(init, shape[:-1] + (1,)), a[..., :-1]], axis=-1)[..., :shape[-1]]
    else:
        seq = a
    same(got, ufunc.accumulate(seq, axis=-1, dtype=a.dtype) if shape[-1] else seq)


@pytest.mark.parametrize("name", ["int64", "float32", "float16"])
def test_host_scan_of_a_column_slice_in_place(host, stub, name):
    wide = values(host, name, (6, 3, 20))
    before = wide.copy()
    v = HostArray(wide)[..., 4:15]
    assert warpkit.cumsum(v, axis=-1, out=v) is v
    assert segs(stub.last)[:3] == (18, 11, 20)
    same(wide[..., 4:15], np.cumsum(before[..., 4:15], axis=-1, dtype=wide.dtype))
    same(wide[..., :4], before[..., :4])
    same(wide[..., 15:], before[..., 15:])


@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_host_nan_rows(host, name):
    a = values(host, name, (4, 9))
    a[1, 3] = a[1, 6] = np.nan
    a[2, 0] = np.nan
    x = HostArray(a)
    same(warpkit.max(x, axis=-1).a, a.max(axis=-1))
    same(warpkit.min(x, axis=-1).a, a.min(axis=-1))
    same(warpkit.argmax(x, axis=-1).a, a.argmax(axis=-1))  # the first NaN, as NumPy
    same(warpkit.argmin(x, axis=-1).a, a.argmin(axis=-1))
    same(warpkit.cummax(x, axis=-1).a, np.maximum.accumulate(a, axis=-1))
