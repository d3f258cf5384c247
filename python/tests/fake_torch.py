"""A minimal stand-in for the parts of PyTorch that warpkit uses, to run
both routes on the stub library without a GPU or torch: the extension's
(Tensor methods, torch.empty_like, torch._C._cuda_getCurrentRawStream) and
the Python code's (torch.empty, torch.cuda.stream).  Used only when the real
torch is not installed.  Allocations are recorded in torch._state.allocs as
(tensor, stream of the enclosing torch.cuda.stream or None, how); Tensor.to
(a dtype conversion) and `tensor != scalar` allocate too (how "to", "ne")
and record (what, source, result) in torch._state.derived."""

import contextlib
import math
import types


class dtype:
    def __init__(self, name, itemsize):
        self.name, self.itemsize = name, itemsize

    def __repr__(self):
        return "torch." + self.name


class Device:
    def __init__(self, type_, index=None):
        self.type, self.index = type_, index

    def __repr__(self):
        return "%s:%s" % (self.type, self.index) if self.index is not None else self.type


def _c_strides(shape):
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= d
    return tuple(reversed(out))


class Tensor:
    def __init__(self, ptr, shape, dt, device=0, contiguous=True, strides=None):
        self._ptr, self.shape, self.dtype, self._dev, self._contig = ptr, tuple(shape), dt, device, contiguous
        self._strides = tuple(strides) if strides is not None else None
        if strides is not None:
            self._contig = all(d == 1 or st == c for d, st, c in zip(self.shape, strides, _c_strides(self.shape)))

    @property
    def is_cuda(self):
        return self._dev >= 0

    @property
    def device(self):
        return Device("cuda", self._dev) if self._dev >= 0 else Device("cpu")

    def get_device(self):
        return self._dev

    def is_contiguous(self):
        return self._contig

    def data_ptr(self):
        return self._ptr

    def numel(self):
        return math.prod(self.shape)

    def stride(self):
        if self._strides is not None:
            return self._strides
        return _c_strides(self.shape) if self._contig else tuple(1 for _ in self.shape)

    def __getitem__(self, k):
        if isinstance(k, slice):
            start, stop, _ = k.indices(self.shape[0])
            return type(self)(self._ptr + start * self.dtype.itemsize, (stop - start,), self.dtype, self._dev)
        if isinstance(k, tuple):  # t[..., j]
            assert len(k) == 2 and k[0] is Ellipsis, k
            st = self.stride()
            return type(self)(self._ptr + k[1] * st[-1] * self.dtype.itemsize, self.shape[:-1], self.dtype, self._dev,
                          strides=st[:-1])
        return type(self)(self._ptr + k * self.dtype.itemsize, (), self.dtype, self._dev)

    def narrow(self, dim, start, length):
        # torch's narrow: out of range raises (trim then slices instead)
        if dim != 0 or not self.shape or not 0 <= start <= start + length <= self.shape[0]:
            raise RuntimeError("narrow: out of range")
        self._state.narrows += 1
        return type(self)(self._ptr + start * self.dtype.itemsize, (length,) + self.shape[1:], self.dtype, self._dev)

    def dim(self):
        return len(self.shape)

    def new_empty(self, size, dtype=None):
        shape = tuple(size) if isinstance(size, (tuple, list)) else (size,)
        return self._state.alloc(shape, dtype or self.dtype, self._dev, "new_empty")

    def to(self, *args, **kwargs):
        """A dtype conversion (a new tensor); devices and other arguments are
        not modelled."""
        dt = kwargs.get("dtype")
        if dt is None:
            dt = next(a for a in args if isinstance(a, dtype))
        if dt is self.dtype:
            return self
        r = self._state.alloc(self.shape, dt, self._dev, "to")
        self._state.derived.append(("to", self, r))
        return r

    def __ne__(self, other):
        if isinstance(other, (int, float)):
            r = self._state.alloc(self.shape, self._state.torch.bool, self._dev, "ne")
            self._state.derived.append(("ne %r" % (other,), self, r))
            return r
        return NotImplemented

    def view(self, dt):
        shape = self.shape[:-1] + (self.shape[-1] * self.dtype.itemsize // dt.itemsize,)
        return type(self)(self._ptr, shape, dt, self._dev)


def make():
    torch = types.ModuleType("torch")
    torch.__version__ = "fake"
    for name, size in [("int32", 4), ("uint32", 4), ("int64", 8), ("uint64", 8), ("float32", 4),
                       ("float64", 8), ("float16", 2), ("bfloat16", 2), ("bool", 1), ("uint8", 1),
                       ("int8", 1), ("int16", 2), ("uint16", 2), ("complex64", 8)]:
        setattr(torch, name, dtype(name, size))
    torch.Tensor = None  # set below, once the state exists
    torch.device = Device
    torch.dtype = dtype
    state = types.SimpleNamespace(next=0x3000_0000, allocs=[], current={0: 0xC0, 1: 0xC1}, stream_ctx=[], narrows=0,
                                  derived=[], torch=torch)

    def alloc(shape, dtype, dev, how):
        t = T(state.next, shape, dtype, dev)
        state.next += 0x1000
        state.allocs.append((t, state.stream_ctx[-1] if state.stream_ctx else None, how))
        return t

    state.alloc = alloc

    class T(Tensor):
        _state = state

    def empty(shape, dtype, device):
        return alloc(shape if isinstance(shape, tuple) else (shape,), dtype, device.index, "empty")

    def empty_like(t):
        return alloc(t.shape, t.dtype, t._dev, "empty_like")

    torch.empty = empty
    torch.empty_like = empty_like
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda dev: state.current[dev])

    class ExternalStream:
        """As PyTorch's: handle 0 gives a new pooled stream, not the legacy
        default one (pytorch/pytorch#182960)."""
        def __init__(self, handle, device=None):
            self.cuda_stream = handle if handle else 0xBAD0

    class Wrapped:
        def __init__(self, handle):
            self.cuda_stream = handle

    @contextlib.contextmanager
    def stream(s):
        state.stream_ctx.append(s.cuda_stream)
        try:
            yield
        finally:
            state.stream_ctx.pop()

    torch.cuda = types.SimpleNamespace(ExternalStream=ExternalStream, stream=stream,
                                       get_stream_from_external=lambda handle, device=None: Wrapped(handle),
                                       default_stream=lambda device=None: Wrapped(0))
    torch.Tensor = T
    torch._state = state
    return torch
