"""The narrow dtypes (bool, uint8, int8, int16, uint16) and the dtype of
sums on the stub library: which C call a sum, cumsum or count_nonzero
makes (wk_reduce, the _to calls that keep a sum in a wider dtype, or the
plain call on an input its library converted first), with which dtypes,
and the dtype of the array it returns; for stand-in PyTorch tensors
(PyTorch's rule: bool and integers sum into int64) and stand-in
__cuda_array_interface__ arrays (NumPy's rule: unsigned into uint64).
With the stub computing on host memory, the segmented calls on narrow
dtypes against NumPy."""

import importlib.util
import sys

import pytest

import fake_torch
import warpkit
from conftest import TYPESTR, FakeArray
from host_arrays import HostArray, HostOutLib
from warpkit import _arrays
from warpkit import _dtypes as D

X = 0x5000_0000  # made-up device pointers
M = 0x6000_0000

CODE = {"int32": D.I32, "uint32": D.U32, "int64": D.I64, "uint64": D.U64, "float32": D.F32,
        "float64": D.F64, "float16": D.F16, "bfloat16": D.BF16, "bool": 8, "uint8": 9, "int8": 10,
        "int16": 11, "uint16": 12}
BOOL, U8, I8, I16, U16 = 8, 9, 10, 11, 12
NARROW = ["bool", "uint8", "int8", "int16", "uint16"]
INTS = NARROW[1:] + ["int32", "uint32", "int64", "uint64"]
FLOATS = ["float16", "float32", "float64"]  # no bfloat16 typestr
CAI_DTYPES = ["bool"] + INTS + FLOATS
TORCH_DTYPES = CAI_DTYPES + ["bfloat16"]

# The sums C keeps in a wider dtype (wk_sum_widens), input -> results.
_WIDE_INTS = {D.I32, D.U32, D.I64, D.U64}
WIDENS = {BOOL: _WIDE_INTS, U8: _WIDE_INTS, I8: _WIDE_INTS, I16: _WIDE_INTS, U16: _WIDE_INTS,
          D.I32: {D.I64, D.U64}, D.U32: {D.I64, D.U64}, D.F16: {D.F32}, D.BF16: {D.F32}, D.F32: {D.F64}}
SIZE = {D.I32: 4, D.U32: 4, D.I64: 8, D.U64: 8, D.F32: 4, D.F64: 8, D.F16: 2, D.BF16: 2,
        BOOL: 1, U8: 1, I8: 1, I16: 2, U16: 2}
INT_CODES = {U8, I8, I16, U16, D.I32, D.U32, D.I64, D.U64}


def numpy_rule(name):
    """numpy.sum's result dtype: bool and signed into int64, unsigned into
    uint64, floats kept."""
    if name in FLOATS:
        return name
    return "uint64" if name.startswith("uint") else "int64"


def torch_rule(name):
    """torch.sum's: bool and every integer into int64."""
    return name if name in FLOATS + ["bfloat16"] else "int64"


def plan(dt, rdt):
    """What a sum of dt written as rdt calls: (fn, dtype, op, out_dtype,
    converted first)."""
    if dt == rdt:
        return ("wk_reduce", dt, D.OR if dt == BOOL else D.SUM, -1, False)
    if rdt in WIDENS.get(dt, ()):
        return ("wk_reduce_to", dt, D.SUM, rdt, False)
    if dt in INT_CODES and rdt in INT_CODES and SIZE[dt] == SIZE[rdt]:
        return ("wk_reduce", dt, D.SUM, -1, False)  # the same bits
    return ("wk_reduce", rdt, D.OR if rdt == BOOL else D.SUM, -1, True)


def scan_plan(dt, rdt, exclusive=False):
    """What a sum scan of dt written as rdt calls, where nothing is
    converted first: (fn, dtype, op, out_dtype)."""
    fn = "wk_exclusive_scan" if exclusive else "wk_inclusive_scan"
    p = plan(dt, rdt)
    assert not p[4], (dt, rdt)
    return (fn + "_to" if p[0] == "wk_reduce_to" else fn,) + p[1:4]


def cai(name, shape=(7,), ptr=X, **kw):
    return FakeArray(ptr, shape, TYPESTR[CODE[name]], **kw)


def call(stub):
    c = stub.last
    return (c.fn.decode(), c.dtype, c.op, c.out_dtype)


# ------------------------------------------------------------- the stub
def test_stub_records_the_to_calls(stub):
    """The _to entry points exist in the stub and record out_dtype (-1 for
    the other calls)."""
    warpkit.max(cai("float32"))
    assert stub.last.out_dtype == -1
    warpkit.sum(cai("uint8"), dtype="int32")
    assert call(stub) == ("wk_reduce_to", U8, D.SUM, D.I32)


# ------------------------------------------------------- stand-in arrays
@pytest.mark.parametrize("name", CAI_DTYPES)
def test_sum_default_dtype_cai(stub, name):
    """NumPy's rule for __cuda_array_interface__ inputs."""
    dt, rdt = CODE[name], CODE[numpy_rule(name)]
    stub.pointer(device=1)
    r = warpkit.sum(cai(name, (3, 5), stream=0x77))
    fn, cdt, op, odt, converted = plan(dt, rdt)
    assert not converted
    assert call(stub) == (fn, cdt, op, odt)
    c = stub.last
    a, adt, shape, dev, _ = stub.outlib.allocs[-1]
    assert r is a and adt == rdt and shape == () and dev == 1 and c.out == a.ptr
    assert c.in_ == X and c.n == 15 and c.stream == 0x77 and c.ctx == 0x1010
    assert r.typestr == TYPESTR[rdt]


@pytest.mark.parametrize("name", CAI_DTYPES)
def test_reduce_sum_and_scan_sum_follow_the_rule(stub, name):
    dt, rdt = CODE[name], CODE[numpy_rule(name)]
    r = warpkit.reduce(cai(name), "sum")
    assert call(stub) == plan(dt, rdt)[:4] and r.typestr == TYPESTR[rdt]
    r = warpkit.scan(cai(name, (2, 4)), "sum")
    assert call(stub) == scan_plan(dt, rdt) and stub.last.n == 8
    assert r.typestr == TYPESTR[rdt] and r.shape == (8,) and stub.last.out == r.ptr


@pytest.mark.parametrize("name", CAI_DTYPES)
@pytest.mark.parametrize("exclusive", [False, True])
def test_cumsum_default_dtype_cai(stub, name, exclusive):
    dt, rdt = CODE[name], CODE[numpy_rule(name)]
    r = warpkit.cumsum(cai(name, (9,), stream=0x55), exclusive=exclusive)
    c = stub.last
    assert call(stub) == scan_plan(dt, rdt, exclusive) and (c.prefix or 0) == 0
    assert c.in_ == X and c.n == 9 and c.out == r.ptr and c.stream == 0x55 and c.init == 0
    assert r.typestr == TYPESTR[rdt] and r.shape == (9,)


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_sum_default_dtype_torch(stub, torch, name):
    """PyTorch's rule for torch tensors."""
    dt, rdt = CODE[name], CODE[torch_rule(name)]
    x = torch.Tensor(0x1111_0000, (4, 8), getattr(torch, name), device=1)
    r = warpkit.sum(x)
    assert call(stub) == plan(dt, rdt)[:4]
    c = stub.last
    assert c.in_ == 0x1111_0000 and c.n == 32 and c.stream == 0xC1 and c.ctx == 0x1010
    assert isinstance(r, torch.Tensor) and r.shape == () and r.dtype is getattr(torch, torch_rule(name))
    assert r._dev == 1 and c.out == r.data_ptr() and not torch._state.derived


@pytest.mark.parametrize("name", TORCH_DTYPES)
@pytest.mark.parametrize("exclusive", [False, True])
def test_cumsum_default_dtype_torch(stub, torch, name, exclusive):
    dt, rdt = CODE[name], CODE[torch_rule(name)]
    r = warpkit.cumsum(torch.Tensor(0x1000, (3, 4), getattr(torch, name)), exclusive=exclusive)
    assert call(stub) == scan_plan(dt, rdt, exclusive)
    assert r.dtype is getattr(torch, torch_rule(name)) and r.shape == (12,) and stub.last.out == r.data_ptr()
    assert stub.last.n == 12 and stub.last.in_ == 0x1000 and stub.last.stream == 0xC0


# ----------------------------------------------------------------- dtype=
def np_dtype(name):
    np = pytest.importorskip("numpy")
    return np.dtype(name)


def np_type(name):
    np = pytest.importorskip("numpy")
    return np.dtype(name).type


@pytest.mark.parametrize("spell", [str, np_dtype, np_type], ids=["str", "np.dtype", "np.type"])
@pytest.mark.parametrize("name,result", [
    ("uint8", "int32"), ("uint8", "uint8"), ("int8", "uint64"), ("int16", "int64"), ("uint16", "uint32"),
    ("bool", "int32"), ("bool", "uint64"), ("int32", "int64"), ("uint32", "uint64"), ("int32", "uint64"),
    ("float16", "float32"), ("float32", "float64"), ("int64", "uint64"), ("uint64", "int64"),
    ("int32", "uint32"), ("uint32", "int32"), ("int8", "uint8"), ("uint16", "int16"), ("int64", "int64"),
    ("float32", "float32"), ("bool", "bool")])
def test_sum_dtype_argument_cai(stub, spell, name, result):
    dt, rdt = CODE[name], CODE[result]
    r = warpkit.sum(cai(name), dtype=spell(result))
    fn, cdt, op, odt, converted = plan(dt, rdt)
    assert not converted
    assert call(stub) == (fn, cdt, op, odt) and stub.last.in_ == X
    assert r.typestr == TYPESTR[rdt] and stub.last.out == r.ptr


@pytest.mark.parametrize("name,result", [
    ("uint8", "int32"), ("bool", "int64"), ("int32", "int64"), ("uint64", "int64"), ("float16", "float32"),
    ("bfloat16", "float32"), ("float32", "float64"), ("int16", "int16"), ("int32", "int32"),
    ("bool", "bool")])
def test_sum_dtype_argument_torch(stub, torch, name, result):
    dt, rdt = CODE[name], CODE[result]
    r = warpkit.sum(torch.Tensor(0x1000, (6,), getattr(torch, name)), dtype=getattr(torch, result))
    fn, cdt, op, odt, converted = plan(dt, rdt)
    assert not converted and not torch._state.derived
    assert call(stub) == (fn, cdt, op, odt) and stub.last.in_ == 0x1000
    assert r.dtype is getattr(torch, result) and stub.last.out == r.data_ptr()
    warpkit.sum(torch.Tensor(0x1000, (6,), getattr(torch, name)), dtype=result)  # a string too
    assert call(stub) == (fn, cdt, op, odt)


@pytest.mark.parametrize("name,result", [
    ("bool", "bool"), ("uint8", "int32"), ("int16", "int64"), ("uint32", "uint64"), ("float16", "float32"),
    ("int64", "uint64"), ("int8", "int8")])
def test_cumsum_dtype_argument(stub, torch, name, result):
    dt, rdt = CODE[name], CODE[result]
    r = warpkit.cumsum(torch.Tensor(0x1000, (6,), getattr(torch, name)), dtype=getattr(torch, result))
    assert r.dtype is getattr(torch, result) and stub.last.out == r.data_ptr() and not torch._state.derived
    assert call(stub) == scan_plan(dt, rdt)


def test_only_sum_and_cumsum_take_dtype(stub):
    with pytest.raises(TypeError):
        warpkit.reduce(cai("uint8"), "sum", dtype="int64")
    with pytest.raises(TypeError):
        warpkit.scan(cai("uint8"), "sum", dtype="int64")
    with pytest.raises(TypeError):
        warpkit.max(cai("uint8"), dtype="int64")
    assert stub.calls == 0


def test_bad_dtype_argument(stub):
    for bad in ("complex64", "int4", object()):
        with pytest.raises(TypeError):
            warpkit.sum(cai("uint8"), dtype=bad)
    assert stub.calls == 0


# -------------------------------------------------- out= and its precedence
def test_out_gives_the_dtype(stub):
    x = cai("uint8")
    out = FakeArray(0x9000, (), "<i4")
    assert warpkit.sum(x, out=out) is out
    assert call(stub) == ("wk_reduce_to", U8, D.SUM, D.I32) and stub.last.out == 0x9000
    assert warpkit.sum(x, out=FakeArray(0x9000, (), "|u1")) is not None  # wraps in uint8, as NumPy's out=
    assert call(stub) == ("wk_reduce", U8, D.SUM, -1)
    warpkit.sum(cai("bool"), out=FakeArray(0x9000, (), "|b1"))
    assert call(stub) == ("wk_reduce", BOOL, D.OR, -1)
    warpkit.sum(cai("int64"), out=FakeArray(0x9000, (), "<u8"))
    assert call(stub) == ("wk_reduce", D.I64, D.SUM, -1) and stub.last.out == 0x9000
    out = FakeArray(0xA000, (7,), "<i8")
    assert warpkit.cumsum(cai("int16"), out=out) is out
    assert call(stub) == ("wk_inclusive_scan_to", I16, D.SUM, D.I64) and stub.last.out == 0xA000
    warpkit.cumsum(cai("uint32"), exclusive=True, initial=7, out=FakeArray(0xA000, (7,), "<u8"))
    assert call(stub) == ("wk_exclusive_scan_to", D.U32, D.SUM, D.U64) and stub.last.init == 7


def test_dtype_argument_wins_over_out(stub):
    x = cai("uint8")
    out = FakeArray(0x9000, (), "<i4")
    assert warpkit.sum(x, dtype="int32", out=out) is out
    assert call(stub) == ("wk_reduce_to", U8, D.SUM, D.I32)
    n = stub.calls
    with pytest.raises(TypeError, match="warpkit.sum: out has dtype int32; int64 is needed"):
        warpkit.sum(x, dtype="int64", out=out)
    with pytest.raises(TypeError, match="warpkit.cumsum: out has dtype int32; uint64 is needed"):
        warpkit.cumsum(x, dtype="uint64", out=FakeArray(0xA000, (7,), "<i4"))
    assert stub.calls == n


def test_torch_out_gives_the_dtype(stub, torch):
    x = torch.Tensor(0x1000, (8,), torch.uint8)
    o = torch.Tensor(0x9000, (), torch.int32)
    assert warpkit.sum(x, out=o) is o
    assert call(stub) == ("wk_reduce_to", U8, D.SUM, D.I32) and stub.last.out == 0x9000
    with pytest.raises(TypeError, match="out has dtype int32; int64 is needed"):
        warpkit.sum(x, dtype=torch.int64, out=o)


# ------------------------------------------------------- bool sums in bool
def test_bool_sum_in_bool_is_a_logical_or(stub, torch):
    r = warpkit.sum(torch.Tensor(0x1000, (5,), torch.bool), dtype=torch.bool)
    assert call(stub) == ("wk_reduce", BOOL, D.OR, -1) and r.dtype is torch.bool
    r = warpkit.cumsum(torch.Tensor(0x1000, (5,), torch.bool), dtype=torch.bool)
    assert call(stub) == ("wk_inclusive_scan", BOOL, D.OR, -1) and r.dtype is torch.bool
    r = warpkit.sum(torch.Tensor(0x1000, (2, 5), torch.bool), axis=-1, dtype=torch.bool)
    assert call(stub)[:3] == ("wk_segmented_reduce", BOOL, D.OR) and r.dtype is torch.bool
    r = warpkit.cumsum(torch.Tensor(0x1000, (2, 5), torch.bool), axis=-1, dtype=torch.bool)
    assert call(stub)[:3] == ("wk_segmented_inclusive_scan", BOOL, D.OR) and r.shape == (2, 5)
    r = warpkit.cumsum(torch.Tensor(0x1000, (5,), torch.bool), dtype=torch.bool, exclusive=True)
    assert call(stub) == ("wk_exclusive_scan", BOOL, D.OR, -1) and stub.last.init == 0
    assert not torch._state.derived


# -------------------------------------------------------- converted first
def converted(torch, x, name):
    """The tensor x.to(dtype) made, checked: one conversion of x to `name`,
    allocated on the call's stream (the current one, 0xC0)."""
    assert len(torch._state.derived) == 1, torch._state.derived
    what, src, conv = torch._state.derived[0]
    assert what == "to" and src is x and conv.dtype is getattr(torch, name)
    entry = [a for a in torch._state.allocs if a[0] is conv]
    assert entry and entry[0][1:] == (0xC0, "to")
    return conv


@pytest.mark.parametrize("name,result", [
    ("int64", "float32"), ("float64", "float32"), ("int32", "float64"), ("float16", "float64"),
    ("uint8", "float32"), ("int8", "int16"), ("bool", "uint8"), ("uint8", "bool"), ("float32", "int32"),
    ("bfloat16", "float64"), ("int64", "int32")])
def test_sum_converts_first(stub, torch, name, result):
    """Pairs C does not widen: x.to(dtype) by PyTorch, then the plain call on
    it in the result's dtype."""
    x = torch.Tensor(0x1000, (6,), getattr(torch, name))
    r = warpkit.sum(x, dtype=getattr(torch, result))
    conv = converted(torch, x, result)
    rdt = CODE[result]
    assert call(stub) == ("wk_reduce", rdt, D.OR if rdt == BOOL else D.SUM, -1)
    assert stub.last.in_ == conv.data_ptr() and stub.last.n == 6 and stub.last.out == r.data_ptr()
    assert r.dtype is getattr(torch, result) and r.shape == ()


@pytest.mark.parametrize("exclusive", [False, True])
def test_cumsum_converts_first(stub, torch, exclusive):
    x = torch.Tensor(0x1000, (6,), torch.int32)
    r = warpkit.cumsum(x, dtype=torch.float64, exclusive=exclusive, initial=0.5 if exclusive else None)
    conv = converted(torch, x, "float64")
    fn = "wk_exclusive_scan" if exclusive else "wk_inclusive_scan"
    assert call(stub) == (fn, D.F64, D.SUM, -1) and stub.last.in_ == conv.data_ptr()
    assert stub.last.init == (0x3FE0000000000000 if exclusive else 0)
    assert r.dtype is torch.float64 and stub.last.out == r.data_ptr()


@pytest.mark.parametrize("exclusive", [False, True])
def test_cumsum_along_the_last_axis_widens(stub, torch, exclusive):
    """The segmented scan keeps the wider sum itself: x is read as it is."""
    x = torch.Tensor(0x1000, (37, 1001), torch.uint8)
    r = warpkit.cumsum(x, axis=-1, exclusive=exclusive, initial=-5 if exclusive else None)
    c = stub.last
    fn = "wk_segmented_exclusive_scan_to" if exclusive else "wk_segmented_inclusive_scan_to"
    assert call(stub) == (fn, U8, D.SUM, D.I64) and c.in_ == 0x1000 and not torch._state.derived
    assert (c.seg_count, c.seg_size, c.seg_stride) == (37, 1001, 1001)
    assert c.init == ((-5) & (2**64 - 1) if exclusive else 0)
    assert r.dtype is torch.int64 and r.shape == (37, 1001) and c.out == r.data_ptr()


def test_cumsum_along_the_last_axis_converts_without_the_to_forms(stub, torch, monkeypatch):
    """A library with the segmented scans but not their _to forms (none
    before 0.3.0's last ones): x is converted, then scanned, as before."""
    from warpkit import _lib
    N = _lib.native()
    has = N.missing
    monkeypatch.setattr(N, "missing", lambda name: name.startswith("wk_segmented_") and name.endswith("_scan_to")
                        or has(name))
    x = torch.Tensor(0x1000, (37, 1001), torch.uint8)
    r = warpkit.cumsum(x, axis=-1, exclusive=True)
    conv = converted(torch, x, "int64")
    assert call(stub)[:3] == ("wk_segmented_exclusive_scan", D.I64, D.SUM) and stub.last.in_ == conv.data_ptr()
    assert r.dtype is torch.int64 and r.shape == (37, 1001) and stub.last.out == r.data_ptr()


def test_cumsum_along_the_last_axis_converts_other_pairs(stub, torch):
    """A pair C does not widen (int32 into float64): x converted, then scanned."""
    x = torch.Tensor(0x1000, (37, 1001), torch.int32)
    r = warpkit.cumsum(x, axis=-1, dtype=torch.float64)
    conv = converted(torch, x, "float64")
    c = stub.last
    assert call(stub)[:3] == ("wk_segmented_inclusive_scan", D.F64, D.SUM) and c.in_ == conv.data_ptr()
    assert (c.seg_count, c.seg_size, c.seg_stride) == (37, 1001, 1001)
    assert r.dtype is torch.float64 and r.shape == (37, 1001) and c.out == r.data_ptr()


def test_sum_along_the_last_axis_widens(stub, torch):
    x = torch.Tensor(0x1000, (37, 1001), torch.bool)
    r = warpkit.sum(x, axis=-1)
    c = stub.last
    assert call(stub) == ("wk_segmented_reduce_to", BOOL, D.SUM, D.I64) and c.in_ == 0x1000
    assert (c.seg_count, c.seg_size, c.seg_stride) == (37, 1001, 1001) and not torch._state.derived
    assert r.dtype is torch.int64 and r.shape == (37,) and c.out == r.data_ptr()


def test_sum_along_the_last_axis_widens_cai(stub):
    r = warpkit.sum(cai("uint16", (4, 3)), axis=-1)
    assert call(stub) == ("wk_segmented_reduce_to", U16, D.SUM, D.U64) and stub.last.out == r.ptr
    assert stub.outlib.allocs[-1][1:3] == (D.U64, (4,))
    warpkit.sum(cai("int32", (4, 3)), axis=-1, dtype="uint32")  # the same width: plain
    assert call(stub) == ("wk_segmented_reduce", D.I32, D.SUM, -1)
    assert stub.outlib.allocs[-1][1:3] == (D.U32, (4,))


def test_cai_input_cannot_be_converted(stub):
    """A __cuda_array_interface__ object of no known library has no
    conversion to ask for: a sum that needs one is refused, before any C
    call."""
    with pytest.raises(TypeError, match="convert"):
        warpkit.sum(cai("int64"), dtype="float32")
    with pytest.raises(TypeError, match="convert"):
        warpkit.cumsum(cai("int32", (3, 4)), axis=-1, dtype="float64")
    assert stub.calls == 0
    warpkit.cumsum(cai("uint8", (3, 4)), axis=-1)  # a widening pair needs none
    assert call(stub) == ("wk_segmented_inclusive_scan_to", U8, D.SUM, D.U64)


def test_reproducible_sums(stub, torch):
    """reproducible=True: integers are exact either way (the widening call);
    a float sum into a wider dtype is the reproducible sum of the input
    converted first."""
    warpkit.sum(torch.Tensor(0x1000, (6,), torch.float32), reproducible=True)
    assert call(stub)[:2] == ("wk_reduce_repro", D.F32)
    x = torch.Tensor(0x1000, (6,), torch.float16)
    r = warpkit.sum(x, dtype=torch.float32, reproducible=True)
    conv = converted(torch, x, "float32")
    assert call(stub)[:2] == ("wk_reduce_repro", D.F32) and stub.last.in_ == conv.data_ptr()
    assert r.dtype is torch.float32
    r = warpkit.sum(torch.Tensor(0x1000, (6,), torch.int16), reproducible=True)
    assert r.dtype is torch.int64 and stub.last.fn in (b"wk_reduce_to", b"wk_reduce_repro")


# ---------------------------------------------------------- initial= dtype
@pytest.mark.parametrize("name,kw,initial,init", [
    ("int8", {}, -1, 2 ** 64 - 1),                    # int64, not int8's 0xFF
    ("uint8", {}, 300, 300),                          # out of uint8's range, not of uint64's
    ("int32", {}, 2 ** 40, 2 ** 40),
    ("bool", {}, 5, 5),
    ("int16", {"dtype": "int32"}, -2, 0xFFFFFFFE),
    ("float16", {"dtype": "float32"}, 0.1, 0x3DCCCCCD),  # rounded to float32, not float16
    ("float32", {"dtype": "float64"}, 0.1, 0x3FB999999999999A)])
def test_exclusive_initial_in_the_result_dtype(stub, name, kw, initial, init):
    warpkit.cumsum(cai(name), exclusive=True, initial=initial, **kw)
    c = stub.last
    assert c.fn == b"wk_exclusive_scan_to" and c.init == init and c.dtype == CODE[name]


def test_exclusive_initial_in_the_result_dtype_torch(stub, torch):
    warpkit.cumsum(torch.Tensor(0x1000, (6,), torch.uint8), exclusive=True, initial=-5)
    assert call(stub) == ("wk_exclusive_scan_to", U8, D.SUM, D.I64) and stub.last.init == 2 ** 64 - 5


def test_initial_out_of_the_result_range(stub):
    with pytest.raises(ValueError, match="out of range for int8"):
        warpkit.cumsum(cai("int8"), dtype="int8", exclusive=True, initial=200)
    with pytest.raises(ValueError, match="out of range for uint64"):
        warpkit.cumsum(cai("uint8"), exclusive=True, initial=-1)
    assert stub.calls == 0


# ---------------------------------------------------------- count_nonzero
def test_count_nonzero_bool_cai(stub):
    r = warpkit.count_nonzero(cai("bool", (3, 5), stream=0x55))
    c = stub.last
    assert call(stub) == ("wk_reduce_to", BOOL, D.SUM, D.I64) and c.in_ == X and c.n == 15 and c.stream == 0x55
    assert stub.outlib.allocs[-1][1:3] == (D.I64, ()) and r.typestr == "<i8" and c.out == r.ptr
    r = warpkit.count_nonzero(cai("bool", (3, 5)), axis=-1)
    c = stub.last
    assert call(stub) == ("wk_segmented_reduce_to", BOOL, D.SUM, D.I64)
    assert (c.seg_count, c.seg_size, c.seg_stride) == (3, 5, 5) and r.shape == (3,) and r.typestr == "<i8"


def test_count_nonzero_of_other_dtypes_cai(stub):
    """x != 0 is made by the input's library, and an array of no known
    library has none: refused before any C call."""
    with pytest.raises(TypeError, match="count_nonzero"):
        warpkit.count_nonzero(cai("int32"))
    assert stub.calls == 0


@pytest.mark.parametrize("name", ["int32", "uint8", "int16", "float16", "float32", "bfloat16", "uint64"])
def test_count_nonzero_torch(stub, torch, name):
    x = torch.Tensor(0x1000, (4, 6), getattr(torch, name))
    r = warpkit.count_nonzero(x)
    assert len(torch._state.derived) == 1
    what, src, mask = torch._state.derived[0]
    assert what == "ne 0" and src is x and mask.dtype is torch.bool
    assert [a[1:] for a in torch._state.allocs if a[0] is mask] == [(0xC0, "ne")]  # on the call's stream
    c = stub.last
    assert call(stub) == ("wk_reduce_to", BOOL, D.SUM, D.I64) and c.in_ == mask.data_ptr() and c.n == 24
    assert r.dtype is torch.int64 and r.shape == () and c.out == r.data_ptr()
    r = warpkit.count_nonzero(x, axis=-1)
    assert call(stub) == ("wk_segmented_reduce_to", BOOL, D.SUM, D.I64)
    assert stub.last.in_ == torch._state.derived[-1][2].data_ptr() and r.shape == (4,) and r.dtype is torch.int64


def test_count_nonzero_bool_torch(stub, torch):
    x = torch.Tensor(0x1000, (4, 6), torch.bool)
    r = warpkit.count_nonzero(x)
    assert call(stub) == ("wk_reduce_to", BOOL, D.SUM, D.I64) and stub.last.in_ == 0x1000
    assert r.dtype is torch.int64 and not torch._state.derived


# ------------------------------------------------- the narrow dtypes taken
@pytest.mark.parametrize("name", NARROW)
def test_narrow_dtypes_in_every_call(stub, name):
    dt = CODE[name]
    ts = TYPESTR[dt]
    for fn, op in ((warpkit.min, D.MIN), (warpkit.max, D.MAX), (warpkit.reduce_and, D.AND),
                   (warpkit.reduce_or, D.OR), (warpkit.reduce_xor, D.XOR)):
        r = fn(cai(name))
        assert call(stub) == ("wk_reduce", dt, op, -1) and r.typestr == ts and stub.last.out == r.ptr
    idx = warpkit.argmax(cai(name))
    assert call(stub) == ("wk_reduce_index", dt, D.ARGMAX, -1) and idx.typestr == "<i8"
    value, idx = warpkit.argmin(cai(name), return_value=True)
    assert call(stub) == ("wk_reduce", dt, D.ARGMIN, -1) and value.typestr == ts and idx.typestr == "<i8"
    for fn, op in ((warpkit.cummin, D.MIN), (warpkit.cummax, D.MAX)):
        r = fn(cai(name))
        assert call(stub) == ("wk_inclusive_scan", dt, op, -1) and r.typestr == ts and r.shape == (7,)
    r = warpkit.scan(cai(name), "xor")
    assert call(stub) == ("wk_inclusive_scan", dt, D.XOR, -1) and r.typestr == ts
    r = warpkit.cumsum(cai(name), dtype=name) if name != "bool" else warpkit.cumsum(cai(name), dtype="int32")
    assert r.typestr == (ts if name != "bool" else "<i4")
    out, count = warpkit.select(cai(name), "==", 1)
    c = stub.last
    assert c.fn == b"wk_select_if" and c.dtype == dt and c.compare == D.EQUAL and c.a == 1
    assert out.typestr == ts and count.typestr == "<i8"
    out, count = warpkit.partition(cai(name), ">", 0)
    assert stub.last.fn == b"wk_partition_if" and stub.last.dtype == dt and out.typestr == ts
    idx, count = warpkit.nonzero(cai(name))
    assert stub.last.fn == b"wk_where" and stub.last.dtype == dt and stub.last.a == 0 and idx.typestr == "<i8"
    out, count = warpkit.unique_consecutive(cai(name))
    assert stub.last.fn == b"wk_unique" and stub.last.dtype == dt and out.typestr == ts
    out, count = warpkit.compress(cai("bool", ptr=M), cai(name))
    c = stub.last
    assert c.fn == b"wk_select_flagged" and c.dtype == dt and c.flags == M and c.in_ == X and out.typestr == ts
    r = warpkit.max(cai(name, (3, 4)), axis=-1)
    assert call(stub) == ("wk_segmented_reduce", dt, D.MAX, -1) and r.typestr == ts and r.shape == (3,)
    r = warpkit.cummin(cai(name, (3, 4)), axis=-1)
    assert stub.last.fn == b"wk_segmented_inclusive_scan" and stub.last.dtype == dt and r.typestr == ts


@pytest.mark.parametrize("name,value,bits", [
    ("int8", -1, 0xFF), ("int16", -2, 0xFFFE), ("uint16", 65535, 0xFFFF), ("uint8", 200, 200), ("bool", True, 1)])
def test_narrow_select_constants(stub, name, value, bits):
    warpkit.select(cai(name), "<", value)
    assert stub.last.a == bits and stub.last.dtype == CODE[name]


@pytest.mark.parametrize("name,value", [("int8", 128), ("uint8", -1), ("int16", 40000), ("uint16", 65536),
                                        ("bool", 2)])
def test_narrow_select_constants_out_of_range(stub, name, value):
    with pytest.raises(ValueError, match="out of range for %s" % name):
        warpkit.select(cai(name), "<", value)
    assert stub.calls == 0


@pytest.mark.parametrize("name", NARROW)
def test_narrow_dtypes_torch(stub, torch, name):
    t = getattr(torch, name)
    x = torch.Tensor(0x1000, (3, 4), t)
    for fn, op in ((warpkit.min, D.MIN), (warpkit.max, D.MAX)):
        r = fn(x)
        assert call(stub) == ("wk_reduce", CODE[name], op, -1) and r.dtype is t
    idx = warpkit.argmax(x)
    assert stub.last.fn == b"wk_reduce_index" and stub.last.dtype == CODE[name] and idx.dtype is torch.int64
    r = warpkit.cummax(x)
    assert stub.last.dtype == CODE[name] and r.dtype is t and r.shape == (12,)
    out, count = warpkit.select(x, ">", 0)
    assert stub.last.fn == b"wk_select_if" and stub.last.dtype == CODE[name] and out.dtype is t
    r = warpkit.max(x, axis=-1)
    assert call(stub) == ("wk_segmented_reduce", CODE[name], D.MAX, -1) and r.dtype is t and r.shape == (3,)


def test_bool_arrays_are_no_longer_refused(stub):
    """bool used to be a mask only (compress); now it is a dtype like the
    others: sums count its Trues."""
    r = warpkit.sum(cai("bool"))
    assert call(stub) == ("wk_reduce_to", BOOL, D.SUM, D.I64) and r.typestr == "<i8"
    r = warpkit.sum(cai("bool", (2, 3)), axis=-1)
    assert call(stub) == ("wk_segmented_reduce_to", BOOL, D.SUM, D.I64) and r.shape == (2,)
    r = warpkit.cumsum(cai("bool"), exclusive=True)
    assert call(stub) == ("wk_exclusive_scan_to", BOOL, D.SUM, D.I64) and r.typestr == "<i8"
    r = warpkit.max(cai("bool"))
    assert call(stub) == ("wk_reduce", BOOL, D.MAX, -1) and r.typestr == "|b1"


def test_torch_bool_is_no_longer_refused(stub, torch):
    r = warpkit.sum(torch.Tensor(0x1000, (3,), torch.bool))
    assert call(stub) == ("wk_reduce_to", BOOL, D.SUM, D.I64) and r.dtype is torch.int64


# --------------------------------------------------------------- JAX's rule
class JaxLike:
    """A stand-in JAX array: a DLPack producer whose type lives in a jaxlib
    module, which is how warpkit tells JAX arrays."""

    def __init__(self, code, bits):
        from test_calls import DL
        self.dl = DL(X, (6,), code, bits)

    def __dlpack_device__(self):
        return self.dl.__dlpack_device__()

    def __dlpack__(self, stream=None):
        return self.dl.__dlpack__(stream)


JaxLike.__module__ = "jaxlib.stand_in"


@pytest.fixture
def jax(stub, monkeypatch):
    """A stand-in jax module (x64 off unless a test turns it on); outputs are
    made by the stand-in torch, as warpkit makes JAX's outputs where CuPy
    is missing, and handed back as they are by jax.dlpack.from_dlpack."""
    for real in ("jax", "torch", "cupy"):
        if importlib.util.find_spec(real) is not None:
            pytest.skip("%s is installed: the stand-ins would mix with it" % real)
    import types
    j = types.ModuleType("jax")
    j.config = types.SimpleNamespace(jax_enable_x64=False)
    j.dlpack = types.ModuleType("jax.dlpack")
    j.dlpack.from_dlpack = lambda exporter: exporter.array
    t = fake_torch.make()
    monkeypatch.setitem(sys.modules, "jax", j)
    monkeypatch.setitem(sys.modules, "jax.dlpack", j.dlpack)
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setattr(_arrays, "_out_libs", {})
    monkeypatch.setattr(_arrays, "VIEWERS", {})
    monkeypatch.setattr(_arrays, "fallback_outlib", None)
    j.torch = t
    return j


# DLPack (code, bits) of the dtypes
DL_KEYS = {"bool": (6, 8), "uint8": (1, 8), "int8": (0, 8), "int16": (0, 16), "uint16": (1, 16),
           "int32": (0, 32), "uint32": (1, 32)}


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", list(DL_KEYS))
def test_jax_rule(stub, jax, name, x64):
    """jnp.sum's dtypes: NumPy's with x64 on, 32-bit ones with it off."""
    jax.config.jax_enable_x64 = x64
    dt = CODE[name]
    unsigned = name.startswith("uint")
    if x64:
        result = "uint64" if unsigned else "int64"
    else:
        result = "uint32" if unsigned else "int32"
    r = warpkit.sum(JaxLike(*DL_KEYS[name]))
    assert call(stub) == plan(dt, CODE[result])[:4] and stub.last.in_ == X
    assert r.dtype is getattr(jax.torch, result) and stub.last.out == r.data_ptr()
    r = warpkit.cumsum(JaxLike(*DL_KEYS[name]))
    assert call(stub) == scan_plan(dt, CODE[result]) and r.dtype is getattr(jax.torch, result)


# ---------------------------------------------------- an older library
def test_older_library_lacks_the_to_calls(old_stub):
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_reduce_to"):
        warpkit.sum(cai("uint8"))
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_inclusive_scan_to"):
        warpkit.cumsum(cai("int32"))
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_exclusive_scan_to"):
        warpkit.cumsum(cai("bool"), exclusive=True)
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_reduce_to"):
        warpkit.count_nonzero(cai("bool"))
    assert old_stub.calls == 0
    warpkit.sum(cai("uint8"), dtype="uint8")  # in the input's dtype: the plain call
    assert old_stub.last.fn == b"wk_reduce" and old_stub.last.dtype == U8
    warpkit.sum(cai("float32"))
    assert old_stub.last.fn == b"wk_reduce"


# ======================================================= computed on the host
@pytest.fixture
def np(stub, monkeypatch):
    numpy = pytest.importorskip("numpy")
    monkeypatch.setattr(_arrays, "fallback_outlib", HostOutLib(numpy))
    stub.compute()
    return numpy


def narrow_values(np, name, shape, seed):
    rng = np.random.default_rng(seed)
    if name == "bool":
        return rng.random(shape) < 0.5
    info = np.iinfo(np.dtype(name))
    return rng.integers(info.min, info.max, shape, dtype=np.dtype(name), endpoint=True)


def same(np, got, ref):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, got.dtype, ref.shape, ref.dtype)
    assert np.array_equal(got, ref), (got, ref)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (1, 1), (3, 33), (7, 3, 31), (40, 257)])
@pytest.mark.parametrize("name", NARROW + ["int32", "uint32"])
def test_host_sums_along_the_last_axis(np, name, shape):
    """wk_segmented_reduce_to against NumPy's sum, in NumPy's dtype; and the
    same with the rows apart (a column slice)."""
    a = narrow_values(np, name, shape, 1)
    same(np, warpkit.sum(HostArray(a), axis=-1).a, a.sum(axis=-1))
    same(np, warpkit.count_nonzero(HostArray(a != 0), axis=-1).a,
         np.count_nonzero(a, axis=-1).astype(np.int64))
    if len(shape) >= 2 and shape[-1] > 0:
        wide = narrow_values(np, name, shape[:-1] + (shape[-1] + 5,), 2)
        same(np, warpkit.sum(HostArray(wide)[..., 2:2 + shape[-1]], axis=-1, dtype="int32").a,
             wide[..., 2:2 + shape[-1]].sum(axis=-1, dtype=np.int32))


@pytest.mark.parametrize("name", NARROW)
def test_host_narrow_reductions_along_the_last_axis(np, name):
    a = narrow_values(np, name, (9, 40), 3)
    x = HostArray(a)
    same(np, warpkit.min(x, axis=-1).a, a.min(axis=-1))
    same(np, warpkit.max(x, axis=-1).a, a.max(axis=-1))
    same(np, warpkit.argmin(x, axis=-1).a, a.argmin(axis=-1))
    same(np, warpkit.argmax(x, axis=-1).a, a.argmax(axis=-1))
    value, idx = warpkit.argmax(x, axis=-1, return_value=True)
    same(np, value.a, a.max(axis=-1))
    same(np, warpkit.reduce_and(x, axis=-1).a, np.bitwise_and.reduce(a, axis=-1))
    same(np, warpkit.reduce_or(x, axis=-1).a, np.bitwise_or.reduce(a, axis=-1))
    same(np, warpkit.reduce_xor(x, axis=-1).a, np.bitwise_xor.reduce(a, axis=-1))
    # empty rows: the identities (for bool: all() true, any() false)
    e = HostArray(np.zeros((3, 0), a.dtype))
    info = (0, 1) if name == "bool" else (np.iinfo(a.dtype).min, np.iinfo(a.dtype).max)
    same(np, warpkit.min(e, axis=-1).a, np.full(3, info[1], a.dtype))
    same(np, warpkit.max(e, axis=-1).a, np.full(3, info[0], a.dtype))


@pytest.mark.parametrize("name", NARROW)
def test_host_narrow_scans_along_the_last_axis(np, name):
    a = narrow_values(np, name, (6, 35), 4)
    x = HostArray(a)
    same(np, warpkit.cummax(x, axis=-1).a, np.maximum.accumulate(a, axis=-1))
    same(np, warpkit.cummin(x, axis=-1).a, np.minimum.accumulate(a, axis=-1))
    if name == "bool":  # a sum in bool is a logical or
        same(np, warpkit.cumsum(x, axis=-1, dtype="bool").a, np.logical_or.accumulate(a, axis=-1))
    else:  # in the input's dtype, wrapping
        same(np, warpkit.cumsum(x, axis=-1, dtype=name).a, np.cumsum(a, axis=-1, dtype=a.dtype))
        init = -3 if name.startswith("int") else 3
        got = warpkit.cumsum(x, axis=-1, dtype=name, exclusive=True, initial=init).a
        seq = np.concatenate([np.full((6, 1), init, a.dtype), a[..., :-1]], axis=-1)
        same(np, got, np.cumsum(seq, axis=-1, dtype=a.dtype))


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (1, 1), (3, 33), (7, 3, 31), (40, 257)])
@pytest.mark.parametrize("name", NARROW + ["int32", "uint32", "float16", "float32"])
def test_host_widening_scans_along_the_last_axis(np, name, shape):
    """wk_segmented_*_scan_to against NumPy's cumsum in NumPy's sum dtype
    (f16 into f32 and f32 into f64 where asked), the exclusive form from an
    initial value; and with the rows apart, into an out= laid out as x."""
    if name.startswith("float"):
        a = np.random.default_rng(5).integers(-8, 8, shape).astype(name)
        rdt = np.dtype(np.float32 if name == "float16" else np.float64)
    else:
        a = narrow_values(np, name, shape, 5)
        rdt = np.sum(a[..., :1]).dtype
    got = warpkit.cumsum(HostArray(a), axis=-1, dtype=rdt.name).a
    same(np, got, np.cumsum(a, axis=-1, dtype=rdt))
    if shape[-1] > 0:
        seq = np.concatenate([np.full(shape[:-1] + (1,), 7, rdt), a[..., :-1].astype(rdt)], axis=-1)
        got = warpkit.cumsum(HostArray(a), axis=-1, dtype=rdt.name, exclusive=True, initial=7).a
        same(np, got, np.cumsum(seq, axis=-1, dtype=rdt))
    if len(shape) >= 2 and shape[-1] > 0 and name in NARROW:
        k = shape[-1]
        wide = narrow_values(np, name, shape[:-1] + (k + 5,), 6)
        o = np.full(wide.shape, 99, np.int32)
        warpkit.cumsum(HostArray(wide)[..., 2:2 + k], axis=-1, dtype="int32", out=HostArray(o)[..., 2:2 + k])
        same(np, o[..., 2:2 + k], np.cumsum(wide[..., 2:2 + k], axis=-1, dtype=np.int32))
        assert (o[..., :2] == 99).all() and (o[..., 2 + k:] == 99).all()


def test_host_bool_sum_in_bool(np):
    a = np.zeros((4, 9), bool)
    a[1, 3] = a[3, :] = True
    same(np, warpkit.sum(HostArray(a), axis=-1, dtype="bool").a, a.any(axis=-1))




@pytest.mark.parametrize("name,value,bits", [
    ("int8", -1, 0xFF), ("int16", -2, 0xFFFE), ("uint16", 65535, 0xFFFF), ("uint8", 200, 200)])
def test_narrow_select_constants_torch(stub, torch, name, value, bits):
    """The extension's route encodes a constant in the narrow dtype's own bytes."""
    warpkit.select(torch.Tensor(0x1000, (5,), getattr(torch, name)), "<", value)
    assert stub.last.a == bits and stub.last.dtype == CODE[name]


@pytest.mark.parametrize("name,value", [("int8", 128), ("uint8", -1), ("uint8", 300), ("int16", 40000),
                                        ("uint16", 65536), ("bool", 2)])
def test_narrow_select_constants_out_of_range_torch(stub, torch, name, value):
    """Out of the dtype's range: the extension leaves the call to the Python
    route, which refuses it before any C call."""
    with pytest.raises(ValueError, match="out of range for %s" % name):
        warpkit.select(torch.Tensor(0x1000, (5,), getattr(torch, name)), "<", value)
    assert stub.calls == 0


def test_older_library_low_level_calls_raise(old_stub):
    """The extension's one-to-one calls check for the 0.3.0 entry points
    themselves: a missing one raises instead of calling a NULL pointer."""
    from warpkit import _lib
    N = _lib.native()
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_reduce_to"):
        N.call_reduce_to(0, X, X + 64, 4, U8, D.I64, 0, "test")
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_exclusive_scan_to"):
        N.call_scan_to(0, X, X + 64, 4, U8, D.I64, True, 0, 0, "test")
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_segmented_reduce_to"):
        N.call_segmented_reduce_to(0, X, X + 64, 2, 2, 2, U8, D.I64, 0, "test")
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_segmented_inclusive_scan_to"):
        N.call_segmented_scan_to(0, X, X + 64, 2, 2, 2, U8, D.I64, False, 0, 0, "test")
    with pytest.raises(warpkit.LibraryNotFoundError, match="wk_segmented_exclusive_scan_to"):
        N.call_segmented_scan_to(0, X, X + 64, 2, 2, 2, U8, D.I64, True, 0, 0, "test")
    assert old_stub.calls == 0


def test_jax_conversion_to_64_bits_refused(stub, jax):
    """With JAX's 64-bit types off a conversion to a 64-bit dtype would give
    a 32-bit array: refused before anything runs."""
    with pytest.raises(TypeError, match="64-bit types are off"):
        warpkit.sum(JaxLike(0, 32), dtype="float64")
    assert stub.calls == 0


def test_count_nonzero_checks_the_axis_first(stub, torch):
    """A bad axis is refused before x != 0 is made."""
    x = torch.Tensor(0x1000, (4, 3), torch.int32)
    with pytest.raises(ValueError, match="axis=0 is not supported"):
        warpkit.count_nonzero(x, axis=0)
    assert stub.calls == 0 and not torch._state.derived


def test_dtype_names_as_numpy_reads_them():
    """"float" and "int" and Python's own types mean what they mean to
    numpy.sum(dtype=), whether NumPy is imported or not."""
    from warpkit import _api
    assert _api._dtype_code("float") == D.F64 and _api._dtype_code(float) == D.F64
    assert _api._dtype_code("int") == D.I64 and _api._dtype_code(int) == D.I64
    assert _api._dtype_code(bool) == D.BOOL and _api._dtype_code("bool_") == D.BOOL
    with pytest.raises(TypeError, match="dtype 'complex64' is not one of"):
        _api._dtype_code("complex64")
