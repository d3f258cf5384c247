"""Sums and scans of an input taken in parts, on the stub library:
warpkit.repro_partial / warpkit.repro_finalize (the 64-byte partials of a
reproducible sum, wk_reduce_repro_partial / wk_repro_finalize) and the
prefix= of cumsum, cummin, cummax and scan (wk_*_scan_from, and
wk_*_scan_to for a sum kept in a wider dtype).

What reaches the C calls is checked on stand-in arrays (conftest.FakeArray);
the values, with the stub computing on host memory (host_arrays.HostArray,
outputs poisoned first), against NumPy: partials of every chunking of an
input (chunks of one element, empty chunks, the whole) finish to NumPy's sum
(values that sum exactly) with the same bits for every chunking, and scans
chained chunk by chunk through prefix= give NumPy's scan of the whole.
Inputs are random, seeded by the session seed (WK_SEED, printed in pytest's
header) and the test's id; the seed is printed with each test's output."""

import math
import zlib

import pytest

np = pytest.importorskip("numpy")

import conftest  # noqa: E402
import warpkit  # noqa: E402
from conftest import TYPESTR, FakeArray  # noqa: E402
from host_arrays import HostArray, HostOutLib  # noqa: E402
from warpkit import _dtypes as D  # noqa: E402

X = 0x5000_0000  # made-up device pointers
M = 0x6000_0000
P = 0x6800_0000
PARTIAL = 64  # bytes of a wk_repro_partial
POISON = 0xA5

CODE = {name: code for name, (code, _, _) in D.DTYPES.items()}
OP = {"sum": D.SUM, "min": D.MIN, "max": D.MAX, "and": D.AND, "or": D.OR, "xor": D.XOR}
NAMED = {"sum": warpkit.cumsum, "min": warpkit.cummin, "max": warpkit.cummax}
UFUNC = {"sum": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
         "xor": np.bitwise_xor}


def rng_for(request):
    """A generator seeded by the session seed and the test's id (printed:
    WK_SEED=<first number> reproduces the inputs)."""
    seed = [conftest.SEED, zlib.crc32(request.node.nodeid.encode())]
    print("seed %s (WK_SEED=%d)" % (seed, conftest.SEED))
    return np.random.default_rng(seed)


@pytest.fixture
def host(stub, monkeypatch, request):
    """The stub computing on host memory, outputs made by HostOutLib
    (poisoned first); returns the test's random generator."""
    from warpkit import _arrays
    monkeypatch.setattr(_arrays, "fallback_outlib", HostOutLib(np))
    stub.compute()
    return rng_for(request)


def exact_values(rng, name, n):
    """Multiples of 0.25 in [-16, 16]: held exactly by every float dtype, and
    their double sums are exact (so the stub's partials are)."""
    return (rng.integers(-64, 65, n) * 0.25).astype(np.dtype(name))


def scan_values(rng, name, n):
    """Integers over the whole range (sums wrap), floats as exact_values."""
    dt = np.dtype(name)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    return exact_values(rng, name, n)


def chunkings(n, rng):
    """At least 10 ways to cut range(n) into consecutive chunks, as lists of
    (start, stop): the whole, chunks of one element, empty chunks (first,
    inside, last), random cuts with repeats, fixed and growing sizes."""
    def cut(points):
        pts = sorted(min(max(int(p), 0), n) for p in points)
        pts = [0] + pts + [n]
        return list(zip(pts[:-1], pts[1:]))

    ways = {
        "whole": cut([]),
        "ones": cut(range(1, n)),
        "empty-first-inside-last": cut([0, 0, n // 3, n // 3, n // 3, n, n]),
        "halves": cut([n // 2]),
        "one-then-rest": cut([1]),
        "rest-then-one": cut([n - 1]),
        "random-5": cut(rng.integers(0, n + 1, 4)),
        "random-17": cut(rng.integers(0, n + 1, 16)),
        "fixed-64": cut(range(64, n, 64)),
        "growing": cut([2 ** k - 1 for k in range(1, max(n, 1).bit_length() + 1)]),
        "ones-and-empties-then-rest": cut([0, 1, 1, 2, 2, 3, 3, 3]),
        "only-empties-and-whole": cut([0, 0, 0]),
    }
    for name, w in ways.items():
        assert sum(e - s for s, e in w) == n and all(s <= e for s, e in w), (name, w)
    return ways


def same(got, ref, what=""):
    """Equal values, shape and dtype (NaN equal to NaN)."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (what, got.shape, got.dtype, ref.shape, ref.dtype)
    ok = (got == ref) | ((np.isnan(got) & np.isnan(ref)) if got.dtype.kind == "f" else False)
    assert np.all(ok), (what, got, ref)


def exact_sum(a, name):
    """The exact sum of a, rounded once to the dtype `name`."""
    return np.asarray(math.fsum(a.astype(np.float64).tolist())).astype(np.dtype(name))


def poisoned(shape, name, byte=POISON):
    a = np.empty(shape, np.dtype(name))
    a.reshape(-1).view(np.uint8).fill(byte)
    return a


# ================================================= partials: what is called
def test_partial_records_its_call(stub):
    stub.pointer(device=1)
    r = warpkit.repro_partial(FakeArray(X, (3, 5), "<f8"), stream=0x77)
    c = stub.last
    assert c.fn == b"wk_reduce_repro_partial" and c.in_ == X and c.n == 15 and c.dtype == D.F64
    assert c.stream == 0x77 and c.ctx == 0x1010
    a, dt, shape, dev, stream = stub.outlib.allocs[-1]
    assert r is a and c.out == a.ptr and dt == D.UINT8 and shape == (PARTIAL,) and dev == 1 and stream == 0x77


def test_partial_into_out_records_its_pointer(stub):
    out = FakeArray(M + 3 * PARTIAL, (PARTIAL,), "|u1")
    n = len(stub.outlib.allocs)
    assert warpkit.repro_partial(FakeArray(X, (9,), "<f2"), out=out) is out
    c = stub.last
    assert c.fn == b"wk_reduce_repro_partial" and c.out == out.ptr and c.dtype == D.F16 and c.n == 9
    assert len(stub.outlib.allocs) == n  # nothing allocated


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_finalize_records_its_call(stub, name, k):
    stub.pointer(device=1)
    r = warpkit.repro_finalize(FakeArray(M, (k, PARTIAL), "|u1", stream=0x55), name)
    c = stub.last
    assert c.fn == b"wk_repro_finalize" and c.in_ == M and c.n == k and c.dtype == CODE[name]
    dev = 1 if k else 0  # an empty array is not probed: the current device
    assert c.stream == 0x55 and c.ctx == 0x1000 + 0x10 * dev
    a, dt, shape, adev, stream = stub.outlib.allocs[-1]
    assert r is a and c.out == a.ptr and dt == CODE[name] and shape == () and adev == dev and stream is None


def test_finalize_takes_any_dtype_spelling_and_shape(stub):
    for dtype in ("float32", "f32", np.float32, np.dtype("float32")):
        warpkit.repro_finalize(FakeArray(M, (2 * PARTIAL,), "|u1"), dtype)
        assert stub.last.dtype == D.F32 and stub.last.n == 2
    warpkit.repro_finalize(FakeArray(M, (5, 4, 16), "|u1"), "float64")  # 320 bytes: 5 partials
    assert stub.last.n == 5 and stub.last.dtype == D.F64


def test_finalize_into_out(stub):
    out = FakeArray(P, (), "<f4")
    assert warpkit.repro_finalize(FakeArray(M, (2, PARTIAL), "|u1"), "float32", out=out) is out
    assert stub.last.out == P
    out1 = FakeArray(P, (1,), "<f8")  # one element, any shape
    assert warpkit.repro_finalize(FakeArray(M, (PARTIAL,), "|u1"), "float64", out=out1) is out1


# ====================================================== partials: the errors
@pytest.mark.parametrize("typestr", ["<i4", "<u4", "<i8", "<u8", "|b1", "|u1", "|i1", "<i2", "<u2"])
def test_partial_of_a_non_float_raises(stub, typestr):
    n = stub.calls
    with pytest.raises(TypeError, match="warpkit.repro_partial: x has dtype .*float"):
        warpkit.repro_partial(FakeArray(X, (8,), typestr))
    assert stub.calls == n


@pytest.mark.parametrize("typestr,count", [("|i1", 64), ("|b1", 64), ("<f4", 16), ("<u8", 8), ("<f2", 32)])
def test_finalize_of_non_uint8_partials_raises(stub, typestr, count):
    n = stub.calls
    with pytest.raises(TypeError, match="warpkit.repro_finalize: partials has dtype .*uint8"):
        warpkit.repro_finalize(FakeArray(M, (count,), typestr), "float32")
    assert stub.calls == n


@pytest.mark.parametrize("nbytes", [1, 63, 65, 127, 129, 3 * 64 + 1])
def test_finalize_of_a_partial_byte_count_raises(stub, nbytes):
    n = stub.calls
    with pytest.raises(ValueError, match="has %d bytes, not a whole number of 64-byte partials" % nbytes):
        warpkit.repro_finalize(FakeArray(M, (nbytes,), "|u1"), "float32")
    assert stub.calls == n


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64", "bool", "uint8", "int8", "int16",
                                   "uint16", np.int32, "complex64", "float128", "nonsense"])
def test_finalize_into_a_non_float_dtype_raises(stub, dtype):
    n = stub.calls
    with pytest.raises(TypeError, match="warpkit.repro_finalize: dtype"):
        warpkit.repro_finalize(FakeArray(M, (PARTIAL,), "|u1"), dtype)
    assert stub.calls == n


@pytest.mark.parametrize("shape,typestr,err", [
    ((63,), "|u1", ValueError), ((65,), "|u1", ValueError), ((2, PARTIAL), "|u1", ValueError),
    ((0,), "|u1", ValueError), ((PARTIAL,), "|i1", TypeError), ((PARTIAL,), "|b1", TypeError),
    ((8,), "<f8", TypeError), ((16,), "<f4", TypeError)])
def test_partial_out_of_the_wrong_size_or_dtype_raises(stub, shape, typestr, err):
    n = stub.calls
    with pytest.raises(err, match="warpkit.repro_partial: out has"):
        warpkit.repro_partial(FakeArray(X, (8,), "<f4"), out=FakeArray(M, shape, typestr))
    assert stub.calls == n


@pytest.mark.parametrize("shape,typestr,err", [
    ((), "<f8", TypeError), ((), "<f2", TypeError), ((1,), "<i4", TypeError), ((2,), "<f4", ValueError),
    ((0,), "<f4", ValueError)])
def test_finalize_out_of_the_wrong_size_or_dtype_raises(stub, shape, typestr, err):
    n = stub.calls
    with pytest.raises(err, match="warpkit.repro_finalize: out has"):
        warpkit.repro_finalize(FakeArray(M, (PARTIAL,), "|u1"), "float32", out=FakeArray(P, shape, typestr))
    assert stub.calls == n


def test_non_contiguous_inputs_raise(stub):
    with pytest.raises(ValueError, match="repro_partial: x is not contiguous"):
        warpkit.repro_partial(FakeArray(X, (4, 3), "<f4", strides=(32, 4)))
    with pytest.raises(ValueError, match="repro_finalize: partials is not contiguous"):
        warpkit.repro_finalize(FakeArray(M, (2, PARTIAL), "|u1", strides=(128, 1)), "float32")
    with pytest.raises(TypeError, match="not a CUDA array"):
        warpkit.repro_partial([1.0, 2.0])


def test_old_library_raises_library_not_found(old_stub):
    n = old_stub.calls
    with pytest.raises(warpkit.LibraryNotFoundError, match="repro_partial: .*lacks wk_reduce_repro_partial"):
        warpkit.repro_partial(FakeArray(X, (8,), "<f4"))
    with pytest.raises(warpkit.LibraryNotFoundError, match="repro_finalize: .*lacks wk_repro_finalize"):
        warpkit.repro_finalize(FakeArray(M, (PARTIAL,), "|u1"), "float32")
    assert old_stub.calls == n
    assert old_stub.creates == 0  # refused before a context is made


STATUSES = [(1, warpkit.InvalidArgumentError, ValueError), (4, warpkit.UnsupportedError, NotImplementedError),
            (5, warpkit.InvalidPointerError, ValueError), (7, warpkit.OutOfMemoryError, MemoryError),
            (8, warpkit.CudaError, RuntimeError)]


@pytest.mark.parametrize("status,cls,builtin", STATUSES)
@pytest.mark.parametrize("call", ["repro_partial", "repro_finalize"])
def test_status_errors_surface(stub, call, status, cls, builtin):
    stub.fail(status, "detail %d" % status)
    with pytest.raises(cls) as info:
        if call == "repro_partial":
            warpkit.repro_partial(FakeArray(X, (8,), "<f4"))
        else:
            warpkit.repro_finalize(FakeArray(M, (PARTIAL,), "|u1"), "float64")
    e = info.value
    assert isinstance(e, warpkit.Error) and isinstance(e, builtin) and e.status == status
    assert str(e) == "warpkit.%s: detail %d" % (call, status)
    assert stub.last.fn == ("wk_reduce_repro_partial" if call == "repro_partial" else "wk_repro_finalize").encode()


# ============================================ partials: computed on the host
SIZES = [0, 1, 2, 7, 64, 257, 1000]


def gather(x, ways, how, stub):
    """The partials of x's chunks in one uint8 HostArray: each partial made
    on its own and concatenated by NumPy ("concat"), written through out=
    into the rows of a poisoned (k, 64) array ("rows"), or concatenated and
    reshaped to another shape ("reshaped")."""
    a = x.a
    k = len(ways)
    if how == "rows":
        buf = poisoned((k, PARTIAL), "uint8")
        for i, (s, e) in enumerate(ways):
            row = HostArray(buf[i])
            assert warpkit.repro_partial(HostArray(a[s:e]), out=row) is row
            c = stub.last
            assert c.fn == b"wk_reduce_repro_partial" and c.out == buf[i].ctypes.data and c.n == e - s
        return HostArray(buf)
    parts = []
    for s, e in ways:
        p = warpkit.repro_partial(x[s:e])
        assert isinstance(p, HostArray) and p.a.shape == (PARTIAL,) and p.a.dtype == np.uint8
        assert stub.last.fn == b"wk_reduce_repro_partial" and stub.last.n == e - s
        assert e == s or stub.last.in_ == a[s:e].ctypes.data
        parts.append(p.a)
    cat = np.concatenate(parts) if parts else np.zeros(0, np.uint8)
    if how == "reshaped":
        cat = cat.reshape(k, 8, 8) if k else cat.reshape(0, 4, 16)
    return HostArray(cat)


@pytest.mark.parametrize("how", ["concat", "rows", "reshaped"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_partials_of_every_chunking_finish_to_the_sum(host, stub, name, n, how):
    a = exact_values(host, name, n)
    x = HostArray(a)
    ref = exact_sum(a, name)
    bits = None
    ways = chunkings(n, host)
    assert len(ways) >= 10
    for label, w in ways.items():
        parts = gather(x, w, how, stub)
        r = warpkit.repro_finalize(parts, name)
        c = stub.last
        assert c.fn == b"wk_repro_finalize" and c.n == len(w) and c.dtype == CODE[name]
        assert c.in_ == parts.a.ctypes.data and c.out == r.a.ctypes.data
        assert isinstance(r, HostArray) and r.a.shape == () and r.a.dtype == np.dtype(name), (label, r.a)
        same(r.a, ref, "%s chunking %s" % (name, label))
        if bits is None:
            bits = r.a.tobytes()
        assert r.a.tobytes() == bits, "chunking %s: other bits than the first chunking's" % label
    # the partials of the whole, finished into a poisoned out=
    out = HostArray(poisoned((), name))
    assert warpkit.repro_finalize(warpkit.repro_partial(x), name, out=out) is out
    assert out.a.tobytes() == bits


@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_partials_in_any_order_and_grouping(host, stub, name):
    """The partials of shuffled chunks, and of the chunks' values shuffled,
    finish to the same bits."""
    a = exact_values(host, name, 301)
    ways = list(chunkings(a.size, host)["random-17"])
    first = warpkit.repro_finalize(gather(HostArray(a), ways, "concat", stub), name).a.tobytes()
    order = host.permutation(len(ways))
    again = warpkit.repro_finalize(gather(HostArray(a), [ways[i] for i in order], "rows", stub), name)
    assert again.a.tobytes() == first
    shuffled = HostArray(host.permutation(a))
    assert warpkit.repro_finalize(warpkit.repro_partial(shuffled), name).a.tobytes() == first
    same(np.frombuffer(first, np.dtype(name))[0], exact_sum(a, name))


@pytest.mark.parametrize("shape", [(0,), (0, PARTIAL), (0, 8, 8)])
@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_no_partial_gives_plus_zero(host, stub, name, shape):
    r = warpkit.repro_finalize(HostArray(np.zeros(shape, np.uint8)), name)
    assert stub.last.fn == b"wk_repro_finalize" and stub.last.n == 0
    assert r.a.shape == () and r.a.dtype == np.dtype(name)
    assert r.a == 0 and not np.signbit(r.a), r.a
    out = HostArray(np.array(-0.0, np.dtype(name)))  # -0.0 first: the sign bit must be cleared
    assert warpkit.repro_finalize(HostArray(np.zeros(shape, np.uint8)), name, out=out) is out
    assert out.a == 0 and not np.signbit(out.a) and out.a.tobytes() == np.zeros((), np.dtype(name)).tobytes()


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_partials_of_empty_parts_give_plus_zero(host, stub, name):
    empty = HostArray(np.zeros(0, np.dtype(name)))
    parts = np.concatenate([warpkit.repro_partial(empty).a for _ in range(3)])
    r = warpkit.repro_finalize(HostArray(parts), name)
    assert r.a == 0 and not np.signbit(r.a)


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_finalize_of_bytes_that_are_no_partial_raises(host, stub, name):
    """The stub refuses a partial without its tag (as the library may):
    the status reaches Python as InvalidArgumentError."""
    good = warpkit.repro_partial(HostArray(exact_values(host, name, 5))).a
    for bad in (np.zeros(PARTIAL, np.uint8), poisoned((PARTIAL,), "uint8")):
        with pytest.raises(warpkit.InvalidArgumentError) as info:
            warpkit.repro_finalize(HostArray(np.concatenate([good, bad])), name)
        assert info.value.status == 1 and isinstance(info.value, ValueError)


def test_partial_out_rows_of_a_poisoned_buffer_keep_the_rest(host, stub):
    """Writing partial i through out= touches row i only."""
    a = exact_values(host, "float64", 40)
    buf = poisoned((4, PARTIAL), "uint8")
    before = buf.copy()
    warpkit.repro_partial(HostArray(a[:10]), out=HostArray(buf[2]))
    assert not np.array_equal(buf[2], before[2])
    assert np.array_equal(np.delete(buf, 2, axis=0), np.delete(before, 2, axis=0))


# ============================================= prefix scans: what is called
def f32(n=7, ptr=X, **kw):
    return FakeArray(ptr, (n,), "<f4", **kw)


@pytest.mark.parametrize("api", ["named", "scan"])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_prefix_selects_the_from_calls(stub, op, api):
    pre = FakeArray(P, (1,), "<f4")
    for exclusive in (False, True):
        initial = 0.5 if exclusive else None
        if api == "named":
            NAMED[op](f32(), prefix=pre, exclusive=exclusive, initial=initial, stream=0x77)
        else:
            warpkit.scan(f32(), op, prefix=pre, exclusive=exclusive, initial=initial, stream=0x77)
        c = stub.last
        assert c.fn == (b"wk_exclusive_scan_from" if exclusive else b"wk_inclusive_scan_from")
        assert c.in_ == X and c.n == 7 and c.dtype == D.F32 and c.op == OP[op] and c.stream == 0x77
        assert c.prefix == P and c.out == stub.outlib.allocs[-1][0].ptr
        if exclusive:
            assert c.init == D.encode(0.5, D.F32, "initial")


def test_no_prefix_keeps_the_plain_calls(stub):
    warpkit.cumsum(f32(), prefix=None)
    assert stub.last.fn == b"wk_inclusive_scan" and not stub.last.prefix
    warpkit.cummax(f32(), exclusive=True)
    assert stub.last.fn == b"wk_exclusive_scan" and not stub.last.prefix


def test_prefix_may_be_zero_d(stub):
    """A 0-d array (a total from warpkit.sum) is one element."""
    warpkit.cumsum(f32(), prefix=FakeArray(P, (), "<f4"))
    assert stub.last.fn == b"wk_inclusive_scan_from" and stub.last.prefix == P


def test_prefix_written_on_another_stream_is_waited_for(stub):
    """The prefix's producer stream (its __cuda_array_interface__ entry) is
    made to precede the call's stream: an event, no host sync."""
    warpkit.cumsum(f32(stream=0x77), prefix=FakeArray(P, (1,), "<f4", stream=0x99))
    log = stub.log
    assert "record(" in log and ",0x99);" in log and "wait(0x77," in log and "sync" not in log
    assert stub.last.stream == 0x77 and stub.last.prefix == P


@pytest.mark.parametrize("name,rule", [("int32", "int64"), ("uint32", "uint64"), ("uint8", "uint64"),
                                       ("int16", "int64"), ("bool", "int64")])
def test_widening_cumsum_with_prefix_calls_the_to_scans(stub, name, rule):
    """An integer cumsum into NumPy's rule's dtype (__cuda_array_interface__
    inputs: not torch) goes to wk_*_scan_to, prefix of the wider dtype."""
    x = FakeArray(X, (9,), TYPESTR[CODE[name]])
    pre = FakeArray(P, (1,), TYPESTR[CODE[rule]])
    r = warpkit.cumsum(x, prefix=pre)
    c = stub.last
    assert c.fn == b"wk_inclusive_scan_to" and c.dtype == CODE[name] and c.out_dtype == CODE[rule]
    assert c.prefix == P and c.in_ == X and c.n == 9 and r.typestr == TYPESTR[CODE[rule]]
    warpkit.cumsum(x, prefix=pre, exclusive=True, initial=5)
    c = stub.last
    assert c.fn == b"wk_exclusive_scan_to" and c.out_dtype == CODE[rule] and c.prefix == P
    assert c.init == D.encode(5, CODE[rule], "initial")


def test_widening_float_cumsum_with_prefix(stub):
    warpkit.cumsum(f32(), dtype="float64", prefix=FakeArray(P, (1,), "<f8"))
    c = stub.last
    assert c.fn == b"wk_inclusive_scan_to" and c.dtype == D.F32 and c.out_dtype == D.F64 and c.prefix == P
    warpkit.cumsum(FakeArray(X, (5,), "<f2"), dtype="float32", prefix=FakeArray(P, (1,), "<f4"), exclusive=True)
    c = stub.last
    assert c.fn == b"wk_exclusive_scan_to" and c.dtype == D.F16 and c.out_dtype == D.F32 and c.prefix == P


def test_same_width_integer_cumsum_with_prefix(stub):
    """uint32 summed as int32: the same bits, the plain _from call on the
    input's dtype with a prefix of the result's."""
    warpkit.cumsum(FakeArray(X, (5,), "<u4"), dtype="int32", prefix=FakeArray(P, (1,), "<i4"))
    c = stub.last
    assert c.fn == b"wk_inclusive_scan_from" and c.dtype == D.U32 and c.op == D.SUM and c.prefix == P


# ============================================== prefix scans: the errors
@pytest.mark.parametrize("call,pre_typestr", [
    (lambda x, p: warpkit.cumsum(x, prefix=p), "<f8"),
    (lambda x, p: warpkit.cummin(x, prefix=p), "<i4"),
    (lambda x, p: warpkit.cummax(x, prefix=p, exclusive=True), "<f2"),
    (lambda x, p: warpkit.scan(x, "max", prefix=p), "<u4"),
])
def test_prefix_of_the_wrong_dtype_raises(stub, call, pre_typestr):
    n = stub.calls
    with pytest.raises(TypeError, match="prefix has dtype .*; the scan's result is float32"):
        call(f32(), FakeArray(P, (1,), pre_typestr))
    assert stub.calls == n


def test_prefix_of_the_input_dtype_for_a_widening_sum_raises(stub):
    n = stub.calls
    with pytest.raises(TypeError, match="cumsum: prefix has dtype int32; the scan's result is int64"):
        warpkit.cumsum(FakeArray(X, (5,), "<i4"), prefix=FakeArray(P, (1,), "<i4"))
    with pytest.raises(TypeError, match="cumsum: prefix has dtype int64; the scan's result is int32"):
        warpkit.cumsum(FakeArray(X, (5,), "<i4"), dtype="int32", prefix=FakeArray(P, (1,), "<i8"))
    assert stub.calls == n


@pytest.mark.parametrize("shape", [(2,), (0,), (1, 2), (3, 1)])
@pytest.mark.parametrize("fn", ["cumsum", "cummin", "cummax", "scan"])
def test_prefix_of_other_than_one_element_raises(stub, fn, shape):
    n = stub.calls
    with pytest.raises(ValueError, match="%s: prefix has %d elements; one is needed" % (fn, math.prod(shape))):
        getattr(warpkit, fn)(f32(), prefix=FakeArray(P, shape, "<f4"))
    assert stub.calls == n


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("fn", ["cumsum", "cummin", "cummax", "scan"])
def test_prefix_with_axis_raises(stub, fn, axis):
    n = stub.calls
    with pytest.raises(ValueError, match="%s: prefix= continues a flat scan; it does not go with axis=" % fn):
        getattr(warpkit, fn)(FakeArray(X, (2, 3), "<f4"), axis=axis, prefix=FakeArray(P, (1,), "<f4"))
    assert stub.calls == n


def test_prefix_that_is_no_array_raises(stub):
    with pytest.raises(TypeError, match="cumsum: prefix is a builtins.float, not a CUDA array"):
        warpkit.cumsum(f32(), prefix=1.5)


def test_prefix_on_an_old_library_raises(old_stub):
    n = old_stub.calls
    pre = FakeArray(P, (1,), "<f4")
    with pytest.raises(warpkit.LibraryNotFoundError, match="cumsum: .*lacks wk_inclusive_scan_from"):
        warpkit.cumsum(f32(), prefix=pre)
    with pytest.raises(warpkit.LibraryNotFoundError, match="cummin: .*lacks wk_exclusive_scan_from"):
        warpkit.cummin(f32(), prefix=pre, exclusive=True)
    with pytest.raises(warpkit.LibraryNotFoundError, match="scan: .*lacks wk_inclusive_scan_from"):
        warpkit.scan(f32(), "max", prefix=pre)
    with pytest.raises(warpkit.LibraryNotFoundError, match="cumsum: .*lacks wk_inclusive_scan_to"):
        warpkit.cumsum(FakeArray(X, (5,), "<i4"), prefix=FakeArray(P, (1,), "<i8"))
    assert old_stub.calls == n
    warpkit.cumsum(f32())  # without prefix= the old library still scans
    assert old_stub.last.fn == b"wk_inclusive_scan"


@pytest.mark.parametrize("status,cls,builtin", STATUSES)
def test_prefix_scan_status_errors_surface(stub, status, cls, builtin):
    stub.fail(status, "detail %d" % status)
    with pytest.raises(cls) as info:
        warpkit.cummax(f32(), prefix=FakeArray(P, (1,), "<f4"))
    assert isinstance(info.value, builtin) and info.value.status == status
    assert str(info.value) == "warpkit.cummax: detail %d" % status
    assert stub.last.fn == b"wk_inclusive_scan_from"


# ========================================= prefix scans: computed on the host
def identity(name, op):
    dt = np.dtype(name)
    if op in ("sum", "or", "xor"):
        return np.zeros((), dt)[()]
    if op == "and":
        return np.array(-1).astype(dt)[()]  # every bit set
    if dt.kind == "f":
        return dt.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if op == "min" else info.min)


def initial_value(name, op):
    kind = np.dtype(name).kind
    if op in ("and", "or", "xor"):
        return 0x3C
    if kind in "iu":
        return {"sum": 3, "min": 2, "max": -2 if kind == "i" else 2}[op]
    return {"sum": 0.5, "min": 2.25, "max": -2.25}[op]


def whole_scan(a, op, exclusive, initial):
    """NumPy's scan of the whole input, in its dtype (integer sums wrap)."""
    if not a.size:
        return a.copy()
    if exclusive:
        init = identity(a.dtype.name, op) if initial is None else a.dtype.type(initial)
        a = np.concatenate([np.array([init], a.dtype), a[:-1]])
    return UFUNC[op].accumulate(a, dtype=a.dtype)


def one_element(value, name):
    return HostArray(np.array([value], np.dtype(name)))


def chained(x, a, op, exclusive, initial, ways, api, first_prefix, stub):
    """The scan of x chunk by chunk, each chunk continued from the carried
    value (the previous chunk's last inclusive output, a 1-element view of
    that output); the first chunk from the identity, as a 1-element array
    (first_prefix "identity") or a 0-d one ("zero-d"). Returns the chunks'
    outputs concatenated; checks each call's record."""
    name = a.dtype.name
    kw = {"exclusive": exclusive, "initial": initial}
    if first_prefix == "zero-d":
        carry = HostArray(np.array(identity(name, op), a.dtype))
    else:
        carry = one_element(identity(name, op), name)
    got = []
    for s, e in ways:
        chunk = x[s:e]
        out = None
        if api == "scan" or op == "sum":
            out = HostArray(poisoned((e - s,), name))  # of the input's dtype: no widening
        if api == "scan":
            r = warpkit.scan(chunk, op, prefix=carry, out=out, **kw)
        else:
            r = NAMED[op](chunk, prefix=carry, out=out, **kw)
        c = stub.last
        assert c.fn == (b"wk_exclusive_scan_from" if exclusive else b"wk_inclusive_scan_from"), c.fn
        assert c.prefix == carry.a.ctypes.data and c.n == e - s and c.op == OP[op] and c.dtype == CODE[name]
        assert c.out == r.a.ctypes.data
        if exclusive:
            bits = D.identity_bits(OP[op], CODE[name]) if initial is None else D.encode(initial, CODE[name], "i")
            assert c.init == bits
        assert out is None or r is out
        assert r.a.shape == (e - s,) and r.a.dtype == a.dtype
        got.append(r.a)
        if exclusive:  # the carry: the inclusive scan of the chunk, continued
            incl = HostArray(poisoned((e - s,), name))
            warpkit.scan(chunk, op, prefix=carry, out=incl)
            assert stub.last.fn == b"wk_inclusive_scan_from"
            inclusive = incl.a
        else:
            inclusive = r.a
        if e > s:
            carry = HostArray(inclusive[-1:])
    return np.concatenate(got) if got else np.zeros(0, a.dtype)


@pytest.mark.parametrize("api", ["named", "scan"])
@pytest.mark.parametrize("n", [0, 1, 7, 130])
@pytest.mark.parametrize("mode", ["inclusive", "exclusive", "exclusive-initial"])
@pytest.mark.parametrize("op,name", [(op, name) for op in ("sum", "min", "max")
                                     for name in ("int32", "int64", "uint32", "float64", "float32", "float16")
                                     if not (op == "sum" and name == "float16")])  # f16 sums round each carry
def test_chained_prefix_scans_equal_the_whole_scan(host, stub, op, mode, name, n, api):
    a = scan_values(host, name, n)
    x = HostArray(a)
    exclusive = mode != "inclusive"
    initial = initial_value(name, op) if mode == "exclusive-initial" else None
    ref = whole_scan(a, op, exclusive, initial)
    ways = chunkings(n, host)
    assert len(ways) >= 10
    for i, (label, w) in enumerate(ways.items()):
        got = chained(x, a, op, exclusive, initial, w, api, "zero-d" if i % 2 else "identity", stub)
        same(got, ref, "%s %s of %d %s, chunking %s" % (mode, op, n, name, label))
    same(a, x.a)  # the input untouched


@pytest.mark.parametrize("op", ["min", "max", "sum"])
def test_chained_prefix_scans_carry_nan(host, stub, op):
    """A NaN in one chunk reaches every later chunk through the prefix."""
    a = exact_values(host, "float64", 50)
    a[17] = np.nan
    for label, w in chunkings(a.size, host).items():
        got = chained(HostArray(a), a, op, False, None, w, "named", "identity", stub)
        same(got, whole_scan(a, op, False, None), label)
        assert np.all(np.isnan(got[17:])) and not np.any(np.isnan(got[:17]))


def test_prefix_other_than_identity_starts_the_scan(host, stub):
    """out[i] = prefix op x[0] op ... op x[i]; exclusive: initial op prefix
    op x[0] ... op x[i-1]."""
    a = scan_values(host, "int64", 33)
    p = int(host.integers(-1000, 1000))
    got = warpkit.cumsum(HostArray(a), prefix=one_element(p, "int64")).a
    same(got, np.cumsum(np.concatenate([[p], a]).astype(np.int64), dtype=np.int64)[1:])
    got = warpkit.cumsum(HostArray(a), prefix=one_element(p, "int64"), exclusive=True, initial=7).a
    same(got, (7 + p + np.concatenate([[0], np.cumsum(a, dtype=np.int64)[:-1]])).astype(np.int64))
    f = exact_values(host, "float64", 33)
    got = warpkit.cummin(HostArray(f), prefix=one_element(-3.0, "float64")).a
    same(got, np.minimum.accumulate(np.concatenate([[-3.0], f]))[1:])
    got = warpkit.cummax(HostArray(f), prefix=one_element(1.5, "float64"), exclusive=True, initial=4.0).a
    same(got, np.maximum.accumulate(np.concatenate([[4.0, 1.5], f[:-1]]))[1:])
    # a total from warpkit.sum as the prefix (0-d); the stub's plain reduce
    # does not compute, so the total is written here
    total = HostArray(np.array(a[:10].sum(), np.int64))
    same(warpkit.cumsum(HostArray(a[10:]), prefix=total).a, np.cumsum(a, dtype=np.int64)[10:])


@pytest.mark.parametrize("n", [0, 1, 7, 130])
@pytest.mark.parametrize("name", ["int32", "int64", "uint32", "uint64"])
@pytest.mark.parametrize("mode", ["inclusive", "exclusive", "exclusive-initial"])
@pytest.mark.parametrize("op", ["and", "or", "xor"])
def test_chained_bitwise_prefix_scans(host, stub, op, mode, name, n):
    a = scan_values(host, name, n)
    exclusive = mode != "inclusive"
    initial = initial_value(name, op) if mode == "exclusive-initial" else None
    ref = whole_scan(a, op, exclusive, initial)
    for i, (label, w) in enumerate(chunkings(n, host).items()):
        got = chained(HostArray(a), a, op, exclusive, initial, w, "scan", "zero-d" if i % 2 else "identity", stub)
        same(got, ref, "%s %s of %d %s, chunking %s" % (mode, op, n, name, label))


def test_bool_cumsum_into_bool_with_prefix_is_an_or(stub):
    """A bool cumsum kept in bool adds as a logical or (PyTorch's and
    NumPy's): the _from call with WK_OR, a bool prefix."""
    warpkit.cumsum(FakeArray(X, (9,), "|b1"), dtype="bool", prefix=FakeArray(P, (1,), "|b1"))
    c = stub.last
    assert c.fn == b"wk_inclusive_scan_from" and c.dtype == D.BOOL and c.op == D.OR and c.prefix == P


def test_same_width_integer_chain(host, stub):
    """uint32 input summed as int32 (dtype=), carried through int32
    prefixes: NumPy's int32 cumsum of the whole (wrapping)."""
    a = scan_values(host, "uint32", 99)
    ref = np.cumsum(a.astype(np.int32), dtype=np.int32)
    got, carry = [], one_element(0, "int32")
    for s, e in chunkings(a.size, host)["random-17"]:
        r = warpkit.cumsum(HostArray(a[s:e]), dtype="int32", prefix=carry).a
        assert stub.last.fn == b"wk_inclusive_scan_from" and stub.last.dtype == D.U32
        assert r.dtype == np.int32
        got.append(r)
        if e > s:
            carry = HostArray(r[-1:])
    same(np.concatenate(got), ref)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("name,rule", [("int32", "int64"), ("uint32", "uint64"), ("int8", "int64")])
def test_widening_chain_records_the_to_calls(host, stub, name, rule, exclusive):
    """An integer cumsum widened by NumPy's rule (HostArray is neither torch
    nor CuPy) with a prefix of the wider dtype: wk_*_scan_to with the
    prefix's pointer and out_dtype (the stub does not compute these)."""
    a = scan_values(host, name, 21)
    for s, e in chunkings(a.size, host)["random-5"]:
        pre = one_element(int(host.integers(-5, 6)) if rule == "int64" else 5, rule)
        kw = {"initial": 3} if exclusive else {}
        r = warpkit.cumsum(HostArray(a[s:e]), prefix=pre, exclusive=exclusive, **kw)
        c = stub.last
        assert c.fn == (b"wk_exclusive_scan_to" if exclusive else b"wk_inclusive_scan_to")
        assert c.dtype == CODE[name] and c.out_dtype == CODE[rule] and c.op == D.SUM
        assert c.prefix == pre.a.ctypes.data and c.n == e - s and c.out == r.a.ctypes.data
        if exclusive:
            assert c.init == D.encode(3, CODE[rule], "initial")
        assert r.a.dtype == np.dtype(rule) and r.a.shape == (e - s,)


# ===================================== stand-in PyTorch tensors (torch rule)
def test_torch_prefix_and_partials_take_the_python_route(stub, torch):
    """prefix= is not the extension's common case: the call reaches the
    Python route with it. An int32 cumsum is int64 by PyTorch's rule: the
    _to scan, with an int64 prefix; partials are torch uint8 tensors."""
    x = torch.Tensor(0x1000, (3, 4), torch.int32)
    pre = torch.Tensor(0x2000, (1,), torch.int64)
    r = warpkit.cumsum(x, prefix=pre)
    c = stub.last
    assert c.fn == b"wk_inclusive_scan_to" and c.dtype == D.I32 and c.out_dtype == D.I64 and c.prefix == 0x2000
    assert c.n == 12 and c.stream == 0xC0 and r.dtype is torch.int64 and r.shape == (12,)
    warpkit.cumsum(x, prefix=pre, exclusive=True, initial=4)
    assert stub.last.fn == b"wk_exclusive_scan_to" and stub.last.init == 4 and stub.last.prefix == 0x2000
    with pytest.raises(TypeError, match="prefix has dtype int32; the scan's result is int64"):
        warpkit.cumsum(x, prefix=torch.Tensor(0x2000, (1,), torch.int32))
    warpkit.cummax(x, prefix=torch.Tensor(0x2000, (1,), torch.int32))
    assert stub.last.fn == b"wk_inclusive_scan_from" and stub.last.op == D.MAX and stub.last.dtype == D.I32
    f = torch.Tensor(0x3000, (10,), torch.float32)
    p = warpkit.repro_partial(f)
    assert stub.last.fn == b"wk_reduce_repro_partial" and stub.last.in_ == 0x3000 and stub.last.n == 10
    assert isinstance(p, torch.Tensor) and p.dtype is torch.uint8 and p.shape == (PARTIAL,)
    parts = torch.Tensor(0x4000, (2, PARTIAL), torch.uint8)
    s = warpkit.repro_finalize(parts, torch.bfloat16)
    c = stub.last
    assert c.fn == b"wk_repro_finalize" and c.n == 2 and c.dtype == D.BF16 and c.in_ == 0x4000
    assert isinstance(s, torch.Tensor) and s.dtype is torch.bfloat16 and s.shape == () and c.out == s.data_ptr()


# ------------------------------------------- selects from a carried value
def test_unique_from_a_previous_element(stub):
    x = FakeArray(X, (9,), "<i4")
    prev = FakeArray(P, (1,), "<i4")
    warpkit.unique_consecutive(x, previous=prev)
    assert stub.last.fn == b"wk_unique_from" and stub.last.prefix == P and stub.last.n == 9
    assert stub.last.dtype == CODE["int32"]
    warpkit.unique_consecutive(x)
    assert stub.last.fn == b"wk_unique" and not stub.last.prefix


def test_where_from_an_index_base(stub):
    x = FakeArray(X, (9,), "<f4")
    base = FakeArray(P, (1,), "<i8")
    warpkit.nonzero(x, ">", 0.5, index_base=base)
    assert stub.last.fn == b"wk_where_from" and stub.last.prefix == P and stub.last.n == 9
    assert stub.last.compare == D.parse_compare(">", "test")
    warpkit.nonzero(x)
    assert stub.last.fn == b"wk_where" and not stub.last.prefix


@pytest.mark.parametrize("call,carried,err", [
    (lambda x, v: warpkit.unique_consecutive(x, previous=v), FakeArray(P, (1,), "<i8"), TypeError),
    (lambda x, v: warpkit.unique_consecutive(x, previous=v), FakeArray(P, (2,), "<i4"), ValueError),
    (lambda x, v: warpkit.nonzero(x, index_base=v), FakeArray(P, (1,), "<i4"), TypeError),
    (lambda x, v: warpkit.nonzero(x, index_base=v), FakeArray(P, (0,), "<i8"), ValueError),
])
def test_carried_values_are_checked_before_any_call(stub, call, carried, err):
    before = stub.calls
    with pytest.raises(err):
        call(FakeArray(X, (9,), "<i4"), carried)
    assert stub.calls == before


def test_carried_selects_on_an_old_library_raise(old_stub):
    x = FakeArray(X, (9,), "<i4")
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_unique_from"):
        warpkit.unique_consecutive(x, previous=FakeArray(P, (1,), "<i4"))
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_where_from"):
        warpkit.nonzero(x, index_base=FakeArray(P, (1,), "<i8"))
