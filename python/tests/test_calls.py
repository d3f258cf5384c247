"""The call path on the stub library: what reaches the C call, and what does
not get called at all on bad input."""

import ctypes
import threading

import pytest

import warpkit
from conftest import FakeArray
from warpkit import _arrays
from warpkit import _dtypes as D

X = 0x5000_0000  # made-up device pointers
M = 0x6000_0000


def x_f32(shape=(2, 3), **kw):
    return FakeArray(X, shape, "<f4", **kw)


def test_sum_reaches_c(stub):
    stub.pointer(device=1)
    r = warpkit.sum(x_f32(stream=0x77))
    c = stub.last
    assert c.fn == b"wk_reduce" and c.in_ == X and c.n == 6 and c.dtype == D.F32 and c.op == D.SUM
    assert c.stream == 0x77 and c.ctx == 0x1000 + 0x10 * 1
    a, dt, shape, dev, stream = stub.outlib.allocs[-1]
    assert r is a and c.out == a.ptr and dt == D.F32 and shape == () and dev == 1 and stream is None


def test_reproducible_sum_reaches_c(stub):
    stub.pointer(device=0)
    r = warpkit.sum(x_f32(stream=0x77), reproducible=True)
    c = stub.last
    assert c.fn == b"wk_reduce_repro" and c.in_ == X and c.n == 6 and c.dtype == D.F32 and c.stream == 0x77
    assert c.out == stub.outlib.allocs[-1][0].ptr and r is stub.outlib.allocs[-1][0]


@pytest.mark.parametrize("fn,op", [
    (warpkit.sum, D.SUM), (warpkit.min, D.MIN), (warpkit.max, D.MAX), (warpkit.reduce_and, D.AND),
    (warpkit.reduce_or, D.OR), (warpkit.reduce_xor, D.XOR),
    (lambda x, **k: warpkit.reduce(x, "xor", **k), D.XOR), (lambda x, **k: warpkit.reduce(x, "min", **k), D.MIN)])
def test_reduce_ops(stub, fn, op):
    fn(FakeArray(X, (5,), "<i8"))
    assert stub.last.op == op and stub.last.dtype == D.I64 and stub.last.n == 5


@pytest.mark.parametrize("typestr,code", [
    ("<i4", 0), ("<u4", 1), ("<i8", 2), ("<u8", 3), ("<f4", 4), ("<f8", 5), ("<f2", 6)])
def test_dtypes(stub, typestr, code):
    warpkit.sum(FakeArray(X, (3,), typestr), dtype=D.NAME[code])
    assert stub.last.dtype == code
    assert stub.outlib.allocs[-1][1] == code


def test_reduce_ops_rejected(stub):
    with pytest.raises(ValueError, match="'prod'"):
        warpkit.reduce(x_f32(), "prod")
    assert stub.calls == 0


@pytest.mark.parametrize("fn,op", [(warpkit.argmin, D.ARGMIN), (warpkit.argmax, D.ARGMAX)])
def test_arg_ops(stub, fn, op):
    idx = fn(x_f32())  # the index alone: wk_reduce_index into a 0-d int64 array
    c = stub.last
    buf, dt, shape, _, _ = stub.outlib.allocs[-1]
    assert c.fn == b"wk_reduce_index" and c.op == op and dt == D.I64 and shape == () and c.out == buf.ptr
    assert idx is buf and idx.typestr == "<i8"
    value, idx = fn(FakeArray(X, (4,), "<f8"), return_value=True)  # both: one wk_arg_result
    buf = stub.outlib.allocs[-1][0]
    assert stub.last.fn == b"wk_reduce" and stub.last.op == op
    assert value.ptr == buf.ptr and value.typestr == "<f8" and idx.ptr == buf.ptr + 8


def test_out_is_checked(stub):
    out = FakeArray(0x9000, (), "<f4")
    assert warpkit.sum(x_f32(), out=out) is out and stub.last.out == 0x9000
    n = stub.calls
    with pytest.raises(TypeError, match="warpkit.sum: out has dtype float64; float32"):
        warpkit.sum(x_f32(), dtype="float32", out=FakeArray(0x9000, (), "<f8"))
    with pytest.raises(ValueError, match="out has 2 elements; 1 are needed"):
        warpkit.sum(x_f32(), out=FakeArray(0x9000, (2,), "<f4"))
    with pytest.raises(ValueError, match="not contiguous"):
        warpkit.cumsum(x_f32((4,)), out=FakeArray(0x9000, (4,), "<f4", strides=(8,)))
    with pytest.raises(ValueError, match="out has 5 elements; 4"):
        warpkit.cumsum(x_f32((4,)), out=FakeArray(0x9000, (5,), "<f4"))
    assert stub.calls == n


def test_out_on_another_device(stub):
    class Dev1(FakeArray):
        pass
    # The stub answers the same device for every pointer: check the device test
    # through two calls with different answers.
    stub.pointer(device=0)
    x = x_f32((4,))
    orig = _arrays.pointer_device
    try:
        _arrays.pointer_device = lambda ptr, what: 1 if ptr == 0x9000 else 0
        with pytest.raises(ValueError, match="out is on device 1, the input on device 0"):
            warpkit.cumsum(x, out=FakeArray(0x9000, (4,), "<f4"))
    finally:
        _arrays.pointer_device = orig
    assert stub.calls == 0


def test_scans(stub):
    r = warpkit.cumsum(x_f32((2, 5)))
    c = stub.last
    assert c.fn == b"wk_inclusive_scan" and c.op == D.SUM and c.n == 10 and c.out == r.ptr and r.shape == (10,)
    warpkit.cummin(x_f32())
    assert stub.last.op == D.MIN
    warpkit.cummax(x_f32())
    assert stub.last.op == D.MAX
    warpkit.scan(FakeArray(X, (3,), "<u4"), "or")
    assert stub.last.op == D.OR and stub.last.dtype == D.U32
    out = FakeArray(X, (2, 3), "<f4")  # in place
    assert warpkit.cumsum(x_f32(), out=out) is out and stub.last.out == X


@pytest.mark.parametrize("fn,typestr,kw,init", [
    (warpkit.cumsum, "<f4", {}, 0),
    (warpkit.cummin, "<f4", {}, 0x7F800000),
    (warpkit.cummax, "<f2", {}, 0xFC00),
    (warpkit.cummax, "<i4", {}, 0x80000000),
    (warpkit.cummin, "<u8", {}, 2 ** 64 - 1),
    (warpkit.cumsum, "<f8", {"initial": 2.5}, 0x4004000000000000),
    (warpkit.cumsum, "<i4", {"initial": -1, "dtype": "int32"}, 0xFFFFFFFF),
    (warpkit.cumsum, "<f2", {"initial": 1.0}, 0x3C00)])
def test_exclusive_scan_init(stub, fn, typestr, kw, init):
    fn(FakeArray(X, (7,), typestr), exclusive=True, **kw)
    assert stub.last.fn == b"wk_exclusive_scan" and stub.last.init == init


def test_scan_argument_errors(stub):
    with pytest.raises(ValueError, match="initial= is for exclusive"):
        warpkit.cumsum(x_f32(), initial=1.0)
    with pytest.raises(ValueError, match="'argmax'"):
        warpkit.scan(x_f32(), "argmax")
    with pytest.raises(ValueError, match="out of range for int32"):
        warpkit.cumsum(FakeArray(X, (3,), "<i4"), dtype="int32", exclusive=True, initial=2 ** 40)
    assert stub.calls == 0


@pytest.mark.parametrize("op,code", [
    ("<", D.LESS), ("<=", D.LESS_EQUAL), (">", D.GREATER), (">=", D.GREATER_EQUAL), ("==", D.EQUAL),
    ("!=", D.NOT_EQUAL)])
def test_select_predicates(stub, op, code):
    out, count = warpkit.select(x_f32((9,)), op, 0.5)
    c = stub.last
    assert c.fn == b"wk_select_if" and c.compare == code and c.a == 0x3F000000 and c.b == 0
    assert c.out == out.ptr and out.shape == (9,) and c.count == count.ptr
    assert count.shape == () and count.typestr == "<i8"


def test_select_nan_and_range(stub):
    warpkit.select(x_f32(), "isnan")
    assert stub.last.compare == D.IS_NAN and stub.last.a == 0
    warpkit.select(FakeArray(X, (4,), "<f8"), "notnan")
    assert stub.last.compare == D.NOT_NAN
    warpkit.select_range(FakeArray(X, (4,), "<i4"), -3, 7)
    c = stub.last
    assert c.compare == D.IN_RANGE and c.a == 0xFFFFFFFD and c.b == 7
    n = stub.calls
    with pytest.raises(ValueError, match="take no value"):
        warpkit.select(x_f32(), "isnan", 1.0)
    with pytest.raises(TypeError, match="need a float dtype, not int32"):
        warpkit.select(FakeArray(X, (4,), "<i4"), "isnan")
    with pytest.raises(ValueError, match="needs a value"):
        warpkit.select(x_f32(), ">")
    with pytest.raises(ValueError, match="is not one of"):
        warpkit.select(x_f32(), "=>", 1)
    with pytest.raises(ValueError, match="0.5 is not an integer"):
        warpkit.select(FakeArray(X, (4,), "<i8"), ">", 0.5)
    assert stub.calls == n


def test_partition_unique_nonzero(stub):
    warpkit.partition(FakeArray(X, (5,), "<u8"), ">=", 2 ** 63)
    assert stub.last.fn == b"wk_partition_if" and stub.last.a == 2 ** 63 and stub.last.compare == D.GREATER_EQUAL
    out, count = warpkit.unique_consecutive(FakeArray(X, (5,), "<i4"))
    assert stub.last.fn == b"wk_unique" and stub.last.out == out.ptr and stub.last.count == count.ptr
    idx, count = warpkit.nonzero(FakeArray(X, (5,), "<f2"))
    c = stub.last
    assert c.fn == b"wk_where" and c.compare == D.NOT_EQUAL and c.a == 0 and c.dtype == D.F16
    assert idx.typestr == "<i8" and idx.shape == (5,)
    warpkit.nonzero(FakeArray(X, (5,), "<f4"), "isnan")
    assert stub.last.compare == D.IS_NAN


def test_select_out_and_count(stub):
    out = FakeArray(0xA000, (6,), "<f4")
    count = FakeArray(0xB000, (), "<u8")
    r = warpkit.select(x_f32(), ">", 0, out=out, count=count)
    assert r == (out, count) and stub.last.out == 0xA000 and stub.last.count == 0xB000
    with pytest.raises(TypeError, match="count must be one int64 or uint64"):
        warpkit.select(x_f32(), ">", 0, count=FakeArray(0xB000, (), "<f8"))
    with pytest.raises(TypeError, match="out has dtype float32; int64"):
        warpkit.nonzero(x_f32(), out=out)


def test_compress(stub):
    out, count = warpkit.compress(FakeArray(M, (2, 3), "|b1"), x_f32())
    c = stub.last
    assert c.fn == b"wk_select_flagged" and c.flags == M and c.in_ == X and c.n == 6 and c.out == out.ptr
    warpkit.compress(FakeArray(M, (6,), "|u1"), x_f32())
    n = stub.calls
    with pytest.raises(TypeError, match="mask has dtype float32"):
        warpkit.compress(x_f32(), x_f32())
    with pytest.raises(ValueError, match="mask has 5 elements, x has 6"):
        warpkit.compress(FakeArray(M, (5,), "|b1"), x_f32())
    assert stub.calls == n


# ------------------------------------------------------------------ streams
class TorchLikeStream:
    cuda_stream = 0x1234


class CupyLikeStream:
    ptr = 0x2345


class ProtocolStream:
    def __cuda_stream__(self):
        return (0, 0x3456)


class NumbaLikeStream:
    handle = ctypes.c_void_p(0x4567)


@pytest.mark.parametrize("stream,handle", [
    (0x99, 0x99), (0, 0), (TorchLikeStream(), 0x1234), (CupyLikeStream(), 0x2345),
    (ProtocolStream(), 0x3456), (NumbaLikeStream(), 0x4567)])
def test_stream_argument(stub, stream, handle):
    warpkit.cumsum(x_f32(), stream=stream)
    assert (stub.last.stream or 0) == handle
    assert stub.outlib.allocs[-1][4] == handle  # outputs allocated on that stream


@pytest.mark.parametrize("bad", ["s", 1.5, object(), True])
def test_stream_rejected(stub, bad):
    with pytest.raises(TypeError, match="is not a stream"):
        warpkit.sum(x_f32(), stream=bad)
    assert stub.calls == 0


def test_cai_stream_rules(stub):
    warpkit.sum(x_f32())  # no stream anywhere: the legacy default stream
    assert (stub.last.stream or 0) == 0 and stub.log == ""
    warpkit.sum(x_f32(stream=0x55))  # the producer's stream is used as is
    assert stub.last.stream == 0x55 and stub.log == ""
    warpkit.sum(x_f32(stream=0x55), stream=0x55)
    warpkit.sum(x_f32(stream=1), stream=0)  # both the legacy default stream
    assert stub.log == ""
    warpkit.sum(x_f32(stream=0x55), stream=0x66)  # wait: event on 0x55, 0x66 waits for it
    log = stub.log
    assert "eventcreate(" in log and "record(" in log and "wait(0x66," in log
    ev = log.split("record(")[1].split(",")[0]
    assert "record(%s,0x55)" % ev in log and "wait(0x66,%s)" % ev in log
    assert stub.last.stream == 0x66
    warpkit.sum(x_f32(stream=0x57), stream=0x66)  # the event is reused
    assert stub.log.count("eventcreate(") == 1 and "record(%s,0x57)" % ev in stub.log


def test_compress_mask_waits_on_its_stream(stub):
    warpkit.compress(FakeArray(M, (6,), "|b1", stream=0x88), x_f32(stream=0x55))
    assert "record(" in stub.log and ",0x88)" in stub.log and "wait(0x55," in stub.log


def test_host_memory_and_unknown_pointers(stub):
    stub.pointer(type_=1)
    with pytest.raises(ValueError, match="warpkit.sum: x .* points to pinned host memory"):
        warpkit.sum(x_f32())
    stub.pointer(type_=0)
    with pytest.raises(ValueError, match="ordinary host memory"):
        warpkit.sum(x_f32())
    stub.pointer(type_=3)  # managed memory is fine
    warpkit.sum(x_f32())
    stub.pointer(bad=X)
    with pytest.raises(ValueError, match="is not a CUDA pointer"):
        warpkit.sum(x_f32())
    assert stub.calls == 1


@pytest.mark.parametrize("arr,exc,msg", [
    (FakeArray(X, (4, 4), "<f4", strides=(4, 16)), ValueError, "not contiguous"),
    (FakeArray(X, (3,), "<c8"), TypeError, "has dtype '<c8'"),
    (object(), TypeError, "is a builtins.object, not a CUDA array"),
    ([1.0, 2.0], TypeError, "not a CUDA array")])
def test_bad_inputs(stub, arr, exc, msg):
    with pytest.raises(exc, match=msg):
        warpkit.sum(arr)
    assert stub.calls == 0


def test_contiguous_with_strides_and_unit_dims(stub):
    warpkit.sum(FakeArray(X, (4, 1, 3), "<f4", strides=(12, 999, 4)))
    assert stub.last.n == 12
    warpkit.sum(FakeArray(0, (0, 3), "<f4", strides=(4, 8)))  # empty: anything goes
    assert stub.last.n == 0 and (stub.last.in_ or 0) == 0


# ------------------------------------------------------------------ DLPack
# The structures of the DLPack standard (dlpack.h), for the stand-in producer.
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DL:
    """A stand-in DLPack producer (CUDA device) built with ctypes."""

    def __init__(self, ptr, shape, code, bits, device=(2, 0), strides=None, offset=0):
        self.device = device
        self.calls = []
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        mt = DLManagedTensor()
        t = mt.dl_tensor
        t.data, t.device.device_type, t.device.device_id = ptr, device[0], device[1]
        t.ndim = len(shape)
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = offset
        self.mt = mt

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.mt), b"dltensor", None)


def test_dlpack(stub):
    x = DL(X, (3, 5), 4, 16, device=(2, 2), offset=64)  # bfloat16
    warpkit.sum(x)
    c = stub.last
    assert c.in_ == X + 64 and c.n == 15 and c.dtype == D.BF16 and c.ctx == 0x1000 + 0x20
    assert x.calls == [1] and (c.stream or 0) == 0  # legacy default stream, DLPack's 1
    warpkit.cumsum(x, stream=0x42)
    assert x.calls[-1] == 0x42 and stub.last.stream == 0x42
    warpkit.cumsum(x, stream=0)
    assert x.calls[-1] == 1


@pytest.mark.parametrize("dl,exc,msg", [
    (lambda: DL(X, (4,), 2, 32, device=(1, 0)), ValueError, "in the CPU"),
    (lambda: DL(X, (4,), 2, 32, device=(3, 0)), ValueError, "pinned host memory"),
    (lambda: DL(X, (4, 4), 2, 32, strides=(1, 4)), ValueError, "not contiguous"),
    (lambda: DL(X, (4,), 5, 64), TypeError, "DLPack \\(code 5")])
def test_dlpack_rejected(stub, dl, exc, msg):
    with pytest.raises(exc, match=msg):
        warpkit.sum(dl())
    assert stub.calls == 0


# ---------------------------------------------------------------- contexts
def test_context_created_once_per_device_threadsafe(stub):
    stub.pointer(device=3)
    errors = []

    def work():
        try:
            for _ in range(50):
                warpkit.sum(x_f32())
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and stub.creates == 1 and stub.last.ctx == 0x1030
    stub.pointer(device=0)
    warpkit.sum(x_f32())
    assert stub.creates == 2


def test_context_creation_failure(stub):
    stub.fail(6, "no CUDA device: cudaGetDeviceCount: no CUDA-capable device is detected", create=True)
    with pytest.raises(warpkit.NoDeviceError, match="no CUDA-capable device"):
        warpkit.sum(x_f32())
    assert stub.calls == 0


def test_trim(stub):
    out = FakeArray(0xA000, (10,), "<f4")
    count = FakeArray(0xB000, (), "<i8", value=4)
    t = warpkit.trim(out, count)
    assert t.shape == (4,) and t.ptr == 0xA000 and stub.log == ""
    warpkit.trim(out, count, stream=0x66)
    assert "sync(0x66," in stub.log


def test_reserve(stub):
    warpkit.reserve(1000, "float32", device=2)
    c = stub.last
    assert c.fn == b"wk_scan_reserve" and c.n == 1000 and c.dtype == D.F32 and c.ctx == 0x1020
    warpkit.reserve(10, "torch.bfloat16", device=0)
    assert stub.last.dtype == D.BF16
    with pytest.raises(TypeError, match="complex64"):
        warpkit.reserve(10, "complex64")


def test_library_path_and_sm_count(stub):
    assert warpkit.library_path() == stub.path
    assert warpkit.sm_count(0) == 132
