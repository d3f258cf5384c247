"""PyTorch tensors on the stub library with a stand-in torch module (only
without the real torch: on the GPU machine the GPU tests cover it): the
extension's own route for the common case (outputs from torch.empty_like of
a template, or Tensor.new_empty) and the Python route for the rest (outputs
from torch.empty)."""

import importlib.util
import sys

import pytest

import fake_torch
import warpkit
from warpkit import _arrays
from warpkit import _dtypes as D


def test_torch_sum(stub, torch):
    x = torch.Tensor(0x1111_0000, (4, 8), torch.float32, device=1)
    r = warpkit.sum(x)
    c = stub.last
    assert c.in_ == 0x1111_0000 and c.n == 32 and c.dtype == D.F32 and c.stream == 0xC1 and c.ctx == 0x1010
    assert isinstance(r, torch.Tensor) and r.shape == () and r.dtype is torch.float32 and r._dev == 1
    assert c.out == r.data_ptr() and torch._state.allocs[-1][1:] == (None, "empty_like")
    n = len(torch._state.allocs)
    warpkit.sum(x)  # the template is made once per device and dtype
    assert len(torch._state.allocs) == n + 1 and torch._state.allocs[-1][2] == "empty_like"


def routes(torch):
    return [how for _, _, how in torch._state.allocs]


def test_torch_common_route(stub, torch):
    x = torch.Tensor(0x1000, (3, 4), torch.float32)
    for call, fn in [(lambda: warpkit.min(x), b"wk_reduce"), (lambda: warpkit.reduce(x, "max"), b"wk_reduce"),
                     (lambda: warpkit.sum(x, reproducible=True), b"wk_reduce_repro"),
                     (lambda: warpkit.cumsum(x), b"wk_inclusive_scan"),
                     (lambda: warpkit.scan(x, "max"), b"wk_inclusive_scan"),
                     (lambda: warpkit.cumsum(x, exclusive=True), b"wk_exclusive_scan"),
                     (lambda: warpkit.select(x, ">", 0.25), b"wk_select_if"),
                     (lambda: warpkit.select_range(x, 0, 1.5), b"wk_select_if"),
                     (lambda: warpkit.partition(x, "isnan"), b"wk_partition_if"),
                     (lambda: warpkit.nonzero(x), b"wk_where"),
                     (lambda: warpkit.unique_consecutive(x), b"wk_unique"),
                     (lambda: warpkit.argmin(x), b"wk_reduce_index")]:
        before = len(torch._state.allocs)
        call()
        assert stub.last.fn == fn and stub.last.in_ == 0x1000 and stub.last.n == 12 and stub.last.stream == 0xC0
        assert "empty" not in routes(torch)[before:], fn
    c = stub.last
    assert c.op == D.ARGMIN
    warpkit.select(x, ">", 0.25)
    assert stub.last.compare == D.GREATER and stub.last.a == 0x3E800000
    warpkit.select_range(x, 0, 1.5)
    assert (stub.last.compare, stub.last.a, stub.last.b) == (D.IN_RANGE, 0, 0x3FC00000)
    warpkit.nonzero(x)
    assert (stub.last.compare, stub.last.a) == (D.NOT_EQUAL, 0)
    out, count = warpkit.nonzero(x, "isnan")
    assert stub.last.compare == D.IS_NAN and out.dtype is torch.int64 and out.shape == (12,)
    assert count.dtype is torch.int64 and count.shape == ()


def test_torch_given_outputs(stub, torch):
    x = torch.Tensor(0x1000, (8,), torch.int64)
    o = torch.Tensor(0x9000, (), torch.int64)
    assert warpkit.sum(x, out=o) is o and stub.last.out == 0x9000
    buf, cnt = torch.Tensor(0xA000, (8,), torch.int64), torch.Tensor(0xB000, (), torch.uint64)
    n = len(torch._state.allocs)
    out, count = warpkit.select(x, "<", 3, out=buf, count=cnt)
    assert out is buf and count is cnt and stub.last.out == 0xA000 and stub.last.count == 0xB000
    assert stub.last.a == 3 and len(torch._state.allocs) == n
    with pytest.raises(TypeError, match="warpkit.sum: out has dtype float32; int64 is needed"):
        warpkit.sum(x, dtype=torch.int64, out=torch.Tensor(0x9000, (), torch.float32))
    with pytest.raises(ValueError, match="out has 2 elements; 1 are needed"):
        warpkit.sum(x, out=torch.Tensor(0x9000, (2,), torch.int64))


def test_torch_trim_reads_count_on_current_stream(stub, torch):
    x = torch.Tensor(0x1000, (9,), torch.float32)
    out, count = warpkit.select(x, ">", 0.5)
    stub.count_value(4)
    kept = warpkit.trim(out, count)
    assert kept.shape == (4,) and kept.data_ptr() == out.data_ptr() and torch._state.narrows == 1
    assert stub.last.fn == b"wk_copy_to_host" and stub.last.n == 8 and stub.last.in_ == count.data_ptr()
    assert "copy_to_host(0x%x,0xc0)" % count.data_ptr() in stub.log and "memcpy" not in stub.log
    stub.count_value(12)  # past out's end: narrow refuses, the slice stops at the end
    assert warpkit.trim(out, count).shape == (9,) and torch._state.narrows == 1


def test_torch_trim_on_an_older_library(old_stub, monkeypatch):
    """Without wk_copy_to_host the count is read with a copy and a sync."""
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("the real torch is installed: the GPU tests cover its path")
    torch = fake_torch.make()
    monkeypatch.setitem(sys.modules, "torch", torch)
    for name, value in (("_out_libs", {}), ("VIEWERS", {}), ("fallback_outlib", None)):
        monkeypatch.setattr(_arrays, name, value)
    out, count = warpkit.select(torch.Tensor(0x1000, (9,), torch.float32), ">", 0.5)
    old_stub.count_value(3)
    assert warpkit.trim(out, count).shape == (3,)
    assert "memcpy(0x%x,0xc0);sync(0xc0" % count.data_ptr() in old_stub.log


def test_torch_python_route_for_the_rest(stub, torch):
    x = torch.Tensor(0x1000, (9,), torch.float32)
    warpkit.cumsum(x, exclusive=True, initial=2.0)  # an initial value: the Python route
    assert stub.last.fn == b"wk_exclusive_scan" and stub.last.init == 0x40000000
    assert routes(torch)[-1] == "empty"
    warpkit.select(x, ">", 1 << 200)  # a constant the Python code rounds
    assert routes(torch)[-1] == "empty" and stub.last.a == 0x7F800000


@pytest.mark.parametrize("name,code", [("int32", 0), ("uint32", 1), ("int64", 2), ("uint64", 3),
                                       ("float32", 4), ("float64", 5), ("float16", 6), ("bfloat16", 7)])
def test_torch_dtypes(stub, torch, name, code):
    warpkit.max(torch.Tensor(0x1000, (3,), getattr(torch, name)))
    assert stub.last.dtype == code


def test_torch_argmax_index(stub, torch):
    idx = warpkit.argmax(torch.Tensor(0x1000, (3,), torch.float16))
    assert stub.last.fn == b"wk_reduce_index" and stub.last.op == D.ARGMAX
    assert idx is torch._state.allocs[-1][0] and torch._state.allocs[-1][2] == "empty_like"
    assert idx.shape == () and idx.dtype is torch.int64 and stub.last.out == idx.data_ptr()
    v, idx = warpkit.argmax(torch.Tensor(0x1000, (3,), torch.float16), return_value=True)
    buf = torch._state.allocs[-1][0]
    assert buf.dtype is torch.int64 and buf.shape == (2,) and stub.last.out == buf.data_ptr()
    assert idx.data_ptr() == buf.data_ptr() + 8 and idx.shape == () and idx.dtype is torch.int64
    assert v.dtype is torch.float16 and v.data_ptr() == torch._state.allocs[-1][0].data_ptr()


def test_torch_explicit_stream_allocates_on_it(stub, torch):
    class S:
        cuda_stream = 0xABC
    out, count = warpkit.select(torch.Tensor(0x1000, (9,), torch.float32), ">", 0.5, stream=S())
    assert stub.last.stream == 0xABC
    assert [s for _, s, _ in torch._state.allocs[-2:]] == [0xABC, 0xABC]


@pytest.mark.parametrize("older", [False, True])
def test_torch_work_on_the_default_stream_stays_on_it(stub, torch, older):
    """The mask count_nonzero makes and a stream=0 call's outputs are on
    stream 0 itself (torch.cuda.ExternalStream(0) would be another stream),
    with PyTorch's get_stream_from_external or, older, its default_stream."""
    if older:
        del torch.cuda.get_stream_from_external
    torch._state.current[0] = 0
    warpkit.count_nonzero(torch.Tensor(0x1000, (9,), torch.int32))
    assert [s for _, s, how in torch._state.allocs if how == "ne"] == [0]
    assert not stub.last.stream  # ctypes reads a null pointer as None

    class S:
        cuda_stream = 0
    warpkit.select(torch.Tensor(0x1000, (9,), torch.float32), ">", 0.5, stream=S())
    assert not stub.last.stream  # ctypes reads a null pointer as None
    assert [s for _, s, _ in torch._state.allocs[-2:]] == [0, 0]


def test_torch_rejects(stub, torch):
    with pytest.raises(ValueError, match="warpkit.sum: x is a torch tensor on cpu; a CUDA tensor"):
        warpkit.sum(torch.Tensor(0x1000, (3,), torch.float32, device=-1))
    with pytest.raises(ValueError, match="warpkit.cumsum: x is not contiguous"):
        warpkit.cumsum(torch.Tensor(0x1000, (3, 3), torch.float32, contiguous=False))
    with pytest.raises(TypeError, match="dtype torch.complex64"):
        warpkit.sum(torch.Tensor(0x1000, (3,), torch.complex64))
    assert stub.calls == 0


def test_torch_compress_mask(stub, torch):
    out, count = warpkit.compress(torch.Tensor(0x2000, (5,), torch.bool), torch.Tensor(0x1000, (5,), torch.int64))
    c = stub.last
    assert c.flags == 0x2000 and c.in_ == 0x1000 and c.stream == 0xC0 and out.dtype is torch.int64
    assert count.dtype is torch.int64 and count.shape == ()


def test_torch_along_last_axis(stub, torch):
    x = torch.Tensor(0x1111_0000, (4, 3), torch.float32, device=1, strides=(10, 1))  # x[:, :3] of (4, 10)
    r = warpkit.sum(x, axis=-1)
    c = stub.last
    assert c.fn == b"wk_segmented_reduce" and c.in_ == 0x1111_0000 and c.stream == 0xC1 and c.ctx == 0x1010
    assert (c.seg_count, c.seg_size, c.seg_stride) == (4, 3, 10)
    assert isinstance(r, torch.Tensor) and r.shape == (4,) and r.dtype is torch.float32 and c.out == r.data_ptr()
    warpkit.max(torch.Tensor(0x1000, (2, 3, 5), torch.bfloat16), axis=2)
    c = stub.last
    assert c.dtype == D.BF16 and c.op == D.MAX and (c.seg_count, c.seg_size, c.seg_stride) == (6, 5, 5)
    with pytest.raises(ValueError, match="last axis is strided"):
        warpkit.sum(torch.Tensor(0x1000, (3, 3), torch.float32, strides=(1, 3)), axis=-1)
    with pytest.raises(ValueError, match="a torch tensor on cpu"):
        warpkit.sum(torch.Tensor(0x1000, (3, 3), torch.float32, device=-1), axis=-1)


def test_torch_argmax_along_last_axis(stub, torch):
    v, idx = warpkit.argmax(torch.Tensor(0x1000, (5, 7), torch.float16), axis=-1, return_value=True)
    buf = torch._state.allocs[-1][0]
    assert buf.dtype is torch.int64 and buf.shape == (5, 2) and stub.last.out == buf.data_ptr()
    assert idx.dtype is torch.int64 and idx.shape == (5,) and idx.data_ptr() == buf.data_ptr() + 8
    assert idx.stride() == (2,)
    assert v.dtype is torch.float16 and v.shape == (5,) and v.data_ptr() == buf.data_ptr() and v.stride() == (8,)


def test_torch_cumsum_along_last_axis(stub, torch):
    class S:
        cuda_stream = 0xABC
    r = warpkit.cumsum(torch.Tensor(0x1000, (3, 9), torch.int32), axis=-1, exclusive=True, stream=S())
    c = stub.last
    assert c.fn == b"wk_segmented_exclusive_scan_to" and c.out_dtype == 2 and c.stream == 0xABC and c.init == 0
    assert r.shape == (3, 9) and torch._state.allocs[-1][1] == 0xABC
    with pytest.raises(ValueError, match="pass out= laid out as x"):
        warpkit.cumsum(torch.Tensor(0x1000, (4, 3), torch.float32, strides=(10, 1)), axis=-1)
