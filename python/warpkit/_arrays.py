"""Taking arrays apart (pointer, size, dtype, device, stream) and making
output arrays of the input's library.

A *viewer* turns an array into the tuple

    (ptr, n, dtype, device, stream, outlib, explicit, keep)

ptr/n/dtype/device describe the contiguous data, `stream` is the CUDA stream
handle (int) the call runs on, `outlib` makes outputs (PyTorch, CuPy, ...),
`explicit` says whether the caller passed `stream=`, and `keep` holds anything
that must stay alive until the C call returned (a DLPack capsule).

Viewers are chosen once per Python type and cached, so the common case (a
torch tensor, a CuPy array) costs a dict lookup and a few attribute reads.
Each viewer has an ``nd`` variant (:func:`view_nd`) for the calls along an
axis: shape and element strides instead of the element count, any layout.
Nothing here copies data or synchronizes a stream.
"""

import math
import sys

from . import _dtypes as D
from . import _lib

_CUDA_MEMORY_DEVICE = 2
_CUDA_MEMORY_MANAGED = 3
_MEMORY_KIND = {0: "ordinary host memory", 1: "pinned host memory"}


def _describe(x):
    t = type(x)
    return "%s.%s" % (t.__module__, t.__qualname__)


# ------------------------------------------------------------------ streams
def stream_handle(stream):
    """The raw cudaStream_t (an int) of `stream`: an int, a PyTorch stream
    (``.cuda_stream``), a CuPy stream (``.ptr``), an object with
    ``__cuda_stream__`` or a Numba stream (``.handle``)."""
    if isinstance(stream, int) and not isinstance(stream, bool):
        h = stream
    else:
        h = getattr(stream, "cuda_stream", None)
        if h is None:
            h = getattr(stream, "ptr", None)
        if h is None and hasattr(stream, "__cuda_stream__"):
            h = stream.__cuda_stream__()[1]
        if h is None:
            h = getattr(stream, "handle", None)
        if type(h).__name__ == "c_void_p" and hasattr(h, "value"):  # Numba's ctypes handle
            h = h.value or 0
        if not isinstance(h, int) or isinstance(h, bool):
            raise TypeError(
                "warpkit: stream=%r is not a stream: pass an int handle, a PyTorch or CuPy stream, "
                "or an object with .cuda_stream, .ptr or __cuda_stream__" % (stream,))
    if h < 0:
        raise ValueError("warpkit: stream handle %d is negative" % h)
    return h


def _same_stream(a, b):
    # 0 and 1 (cudaStreamLegacy) are both the legacy default stream.
    return a == b or (a in (0, 1) and b in (0, 1))


def stream_wait(producer, consumer, device):
    """Make `consumer` wait for the work enqueued so far on `producer`
    (an event recorded on one, waited on by the other; no host sync).
    Events are per thread and per device, created once."""
    _lib.load()
    _lib.native().stream_wait(producer, consumer, device)


def stream_synchronize(handle):
    _lib.load()
    _lib.native().stream_synchronize(handle)


def pointer_device(ptr, what):
    """The device of a CUDA pointer; ValueError for host memory."""
    _lib.load()
    nat = _lib.native()
    if not ptr:
        return nat.current_device()
    attrs = nat.pointer_attributes(ptr)
    if attrs is None:
        raise ValueError("%s (0x%x) is not a CUDA pointer" % (what, ptr))
    kind, device = attrs
    if kind not in (_CUDA_MEMORY_DEVICE, _CUDA_MEMORY_MANAGED):
        raise ValueError("%s (0x%x) points to %s; a CUDA device array is needed (no silent copies)"
                         % (what, ptr, _MEMORY_KIND.get(kind, "host memory")))
    return device


def _c_contiguous(shape, strides, itemsize):
    expected = itemsize
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _bad_dtype(what, name):
    return TypeError("%s has dtype %s, which is not supported; warpkit takes %s" % (what, name, D.SUPPORTED))


def _element_strides(shape, strides, itemsize, what):
    """Byte strides as element strides (ValueError if one is not a whole
    number of elements)."""
    out = []
    for size, stride in zip(shape, strides):
        if stride % itemsize:
            if size == 1:
                stride = 0  # never stepped over
            else:
                raise ValueError("%s has a stride of %d bytes, not a whole number of %d-byte elements "
                                 "(shape %s, strides %s)" % (what, stride, itemsize, tuple(shape), tuple(strides)))
        out.append(stride // itemsize)
    return tuple(out)


def _not_contiguous(what, shape, strides):
    return ValueError("%s is not contiguous (shape %s, strides %s); warpkit does not copy: pass a "
                      "contiguous array (e.g. x.contiguous() or cupy.ascontiguousarray(x))"
                      % (what, tuple(shape), tuple(strides)))


# ---------------------------------------------------------- output libraries
def _dtype_table(lookup):
    """{dtype code: a library's dtype object} for the names lookup(name)
    knows (None where the library has none: left out)."""
    table = {}
    for name, (code, _, _) in D.DTYPES.items():
        t = lookup(name)
        if t is not None:
            table[code] = t
    return table


class TorchLib:
    name = "torch"

    def __init__(self, torch):
        self.torch = torch
        self.dtypes = _dtype_table(lambda name: getattr(torch, name, None))
        self.devices = {}
        self.empty_ = torch.empty

    def device(self, dev):
        d = self.devices.get(dev)
        if d is None:
            d = self.devices[dev] = self.torch.device("cuda", dev)
        return d

    def alloc(self, shape, dt, dev, stream=None):
        """(array, device pointer) of a new uninitialized array."""
        tdt = self.dtypes.get(dt)
        if tdt is None:
            raise TypeError("warpkit: this PyTorch has no %s dtype" % D.NAME[dt])
        if stream is None:
            a = self.empty_(shape, dtype=tdt, device=self.devices.get(dev) or self.device(dev))
            return a, a.data_ptr()
        torch = self.torch
        # Allocate on the caller's stream, so the caching allocator ties the
        # block to the stream that writes it.
        with torch.cuda.stream(torch_stream(torch, stream, self.device(dev))):
            a = torch.empty(shape, dtype=tdt, device=self.device(dev))
        return a, a.data_ptr()

    def reinterpret(self, a, dt):
        return a.view(self.dtypes[dt])

    def owns(self, a):
        return isinstance(a, self.torch.Tensor)


class CupyLib:
    name = "cupy"

    def __init__(self, cupy):
        self.cupy = cupy
        self.dtypes = _dtype_table(lambda name: None if name == "bfloat16" else cupy.dtype(name))
        self.get_device = cupy.cuda.runtime.getDevice

    def alloc(self, shape, dt, dev, stream=None):
        """(array, device pointer) of a new uninitialized array."""
        cdt = self.dtypes.get(dt)
        if cdt is None:
            raise TypeError("warpkit: CuPy has no %s dtype: pass out= (e.g. a torch tensor)" % D.NAME[dt])
        cupy = self.cupy
        if stream is None and self.get_device() == dev:
            a = cupy.empty(shape, dtype=cdt)
        else:
            with cupy.cuda.Device(dev):
                if stream is None:
                    a = cupy.empty(shape, dtype=cdt)
                else:
                    with cupy.cuda.ExternalStream(stream):
                        a = cupy.empty(shape, dtype=cdt)
        return a, a.data.ptr

    def reinterpret(self, a, dt):
        return a.view(self.dtypes[dt])

    def owns(self, a):
        return isinstance(a, self.cupy.ndarray)


_out_libs = {}
# Tests without a GPU set this to an object with alloc/reinterpret/owns making
# stand-in arrays; when set it is used for inputs of other libraries.
fallback_outlib = None


def _torch_outlib():
    lib = _out_libs.get("torch")
    if lib is None:
        import torch
        lib = _out_libs["torch"] = TorchLib(torch)
    return lib


def _cupy_outlib():
    lib = _out_libs.get("cupy")
    if lib is None:
        import cupy
        lib = _out_libs["cupy"] = CupyLib(cupy)
    return lib


class _DefaultOutLib:
    """Outputs for inputs of other libraries (JAX, Numba, ...): CuPy if it is
    installed, else PyTorch; for a dtype CuPy lacks (bfloat16), PyTorch."""

    name = "default"

    def _pick(self, dt):
        if fallback_outlib is not None:
            return fallback_outlib
        errors = []
        for make in (_cupy_outlib, _torch_outlib):
            try:
                lib = make()
            except ImportError as e:
                errors.append(str(e))
                continue
            if dt in lib.dtypes:
                return lib
        raise TypeError("warpkit: no library to make the %s output in: install CuPy or PyTorch, or "
                        "pass out= (%s)" % (D.NAME.get(dt, dt), "; ".join(errors) or "no %s dtype" % D.NAME[dt]))

    def alloc(self, shape, dt, dev, stream=None):
        return self._pick(dt).alloc(shape, dt, dev, stream)

    def reinterpret(self, a, dt):
        for lib in list(_out_libs.values()) + [fallback_outlib]:
            if lib is not None and lib.owns(a):
                return lib.reinterpret(a, dt)
        raise TypeError("warpkit: cannot reinterpret a %s" % _describe(a))


DEFAULT_OUTLIB = _DefaultOutLib()


class _Ordered:
    """A DLPack exporter over one of warpkit's outputs, for a consumer that
    reads it on a stream of its own: __dlpack__(stream=s) first makes s wait
    for the stream warpkit wrote on (an event, no host sync), then hands
    over the array's own capsule."""

    def __init__(self, array, stream, device):
        self.array, self.stream, self.device = array, stream, device

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, stream=None, **kwargs):
        consumer = 1 if stream is None else stream  # DLPack: None means the legacy default stream
        if consumer != -1 and not _same_stream(consumer, self.stream):
            stream_wait(self.stream, consumer, self.device)
        if stream is None:
            return self.array.__dlpack__(**kwargs)
        return self.array.__dlpack__(stream=stream, **kwargs)


class JaxOutLib:
    """Outputs for JAX inputs: made by CuPy (PyTorch for bfloat16), written
    by warpkit, then handed to JAX through DLPack on the input's device,
    ordered after warpkit's stream."""

    name = "jax"

    def __init__(self, jax):
        self.jax = jax
        self.from_dlpack = jax.dlpack.from_dlpack

    def alloc(self, shape, dt, dev, stream=None):
        return DEFAULT_OUTLIB.alloc(shape, dt, dev, stream)

    def reinterpret(self, a, dt):
        return DEFAULT_OUTLIB.reinterpret(a, dt)

    def owns(self, a):
        return False

    def finish(self, result, stream, device):
        if isinstance(result, tuple):
            return tuple(self.finish(r, stream, device) for r in result)
        return self.from_dlpack(_Ordered(_aligned(result, stream), stream, device))


def torch_stream(torch, handle, device):
    """The torch stream object of the CUDA stream `handle` on `device`, to
    run PyTorch work on it.  torch.cuda.ExternalStream(0) is a new pooled
    stream, not the legacy default one (pytorch/pytorch#182960), so the
    handle goes through get_stream_from_external (PyTorch 2.7 and later) or,
    for 0, default_stream."""
    get = getattr(torch.cuda, "get_stream_from_external", None)
    if get is not None:
        return get(handle, device)
    if handle == 0:
        return torch.cuda.default_stream(device)
    return torch.cuda.ExternalStream(handle, device=device)


def _aligned(a, stream):
    """`a`, or a contiguous copy of it made on `stream` where it is a view JAX
    cannot take (XLA wants buffers 16-byte aligned and dense): the value and
    index views of an arg result."""
    if hasattr(a, "data_ptr"):  # PyTorch
        if a.data_ptr() % 16 == 0 and a.is_contiguous():
            return a
        torch = _torch_outlib().torch
        with torch.cuda.stream(torch_stream(torch, stream, a.device)):
            return a.clone(memory_format=torch.contiguous_format)
    if a.data.ptr % 16 == 0 and a.flags.c_contiguous:
        return a
    cupy = _cupy_outlib().cupy
    with cupy.cuda.Device(a.device.id), cupy.cuda.ExternalStream(stream):
        return a.copy()  # C order, keeps a 0-d array 0-d


def _outlib_for(x):
    """Where the outputs of a DLPack / array-interface input come from: JAX
    arrays get JAX arrays back; others CuPy's (or PyTorch's)."""
    module = type(x).__module__ or ""
    if module.startswith(("jax", "jaxlib")) and fallback_outlib is None:
        lib = _out_libs.get("jax")
        if lib is None:
            import jax
            import jax.dlpack  # noqa: F401  (older JAX: a submodule to import)
            lib = _out_libs["jax"] = JaxOutLib(jax)
        return lib
    return DEFAULT_OUTLIB


def finish(olib, result, stream, device):
    """The result as the input's library wants it (JAX: JAX arrays)."""
    f = getattr(olib, "finish", None)
    return result if f is None else f(result, stream, device)


# ------------------------------------------------------------------ viewers
def _make_torch_viewer(torch):
    lib = _torch_outlib()
    dts = {t: code for code, t in lib.dtypes.items()}
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        def raw(dev):
            return torch.cuda.current_stream(dev).cuda_stream

    def make(nd):
        def torch_view(x, stream, what):
            dt = dts.get(x.dtype)
            if dt is None:
                raise _bad_dtype(what, x.dtype)
            dev = x.get_device()
            if dev < 0 or not x.is_cuda:
                raise ValueError("%s is a torch tensor on %s; a CUDA tensor is needed (no silent copies)"
                                 % (what, x.device))
            if not nd and not x.is_contiguous():
                raise _not_contiguous(what, x.shape, x.stride())
            s = raw(dev) if stream is None else stream_handle(stream)
            if nd:
                strides = None if x.is_contiguous() else tuple(x.stride())
                return x.data_ptr(), tuple(x.shape), strides, dt, dev, s, lib, stream is not None, None
            return x.data_ptr(), x.numel(), dt, dev, s, lib, stream is not None, None

        return torch_view

    torch_view = make(False)
    torch_view.nd = make(True)
    return torch_view


def _make_cupy_viewer(cupy):
    lib = _cupy_outlib()
    dts = {t: code for code, t in lib.dtypes.items()}
    get_stream = cupy.cuda.get_current_stream
    try:
        get_stream(0)
        per_device = True
    except TypeError:
        per_device = False

    def current(dev):
        if per_device:
            return get_stream(dev).ptr
        with cupy.cuda.Device(dev):
            return get_stream().ptr

    def make(nd):
        def cupy_view(x, stream, what):
            dt = dts.get(x.dtype)
            if dt is None:
                raise _bad_dtype(what, x.dtype)
            if nd:
                strides = None if x.flags.c_contiguous else _element_strides(x.shape, x.strides, x.itemsize, what)
            elif not x.flags.c_contiguous:
                raise _not_contiguous(what, x.shape, x.strides)
            dev = x.device.id
            s = current(dev) if stream is None else stream_handle(stream)
            if nd:
                return x.data.ptr, tuple(x.shape), strides, dt, dev, s, lib, stream is not None, None
            return x.data.ptr, x.size, dt, dev, s, lib, stream is not None, None

        return cupy_view

    cupy_view = make(False)
    cupy_view.nd = make(True)
    return cupy_view


def _make_cai_viewer(nd):
    """The __cuda_array_interface__ (v2/v3) viewer; with `nd`, its variant
    for any layout (shape and element strides, None when C-contiguous,
    instead of the element count).  The `stream` entry is honoured as the
    protocol asks: without stream= the call runs on that stream itself; with
    stream= the given stream first waits for it (an event, no host sync)."""

    def view(x, stream, what):
        cai = x.__cuda_array_interface__
        try:
            shape = tuple(cai["shape"])
            typestr = cai["typestr"]
            ptr = cai["data"][0] or 0
        except (KeyError, TypeError, IndexError):
            raise TypeError("%s has a malformed __cuda_array_interface__: %r" % (what, cai)) from None
        dt = D.TYPESTR.get(typestr)
        if dt is None:
            raise _bad_dtype(what, "%r (typestr)" % typestr)
        if cai.get("mask") is not None:
            raise ValueError("%s is a masked array (__cuda_array_interface__ mask): not supported" % what)
        n = math.prod(shape)
        strides = cai.get("strides")
        if not nd:
            if strides is not None and n > 0 and not _c_contiguous(shape, strides, D.ITEMSIZE[dt]):
                raise _not_contiguous(what, shape, strides)
        elif strides is not None:
            strides = tuple(strides)
            if n == 0 or _c_contiguous(shape, strides, D.ITEMSIZE[dt]):
                strides = None
            else:
                strides = _element_strides(shape, strides, D.ITEMSIZE[dt], what)
        dev = pointer_device(ptr if n else 0, what)
        producer = cai.get("stream")
        explicit = stream is not None
        if explicit:
            s = stream_handle(stream)
            if producer is not None and not _same_stream(producer, s):
                stream_wait(producer, s, dev)
        else:
            s = producer if producer is not None else 0
        if nd:
            return ptr, shape, strides, dt, dev, s, DEFAULT_OUTLIB, explicit, None
        return ptr, n, dt, dev, s, DEFAULT_OUTLIB, explicit, None

    return view


cai_view = _make_cai_viewer(False)
cai_view.nd = _make_cai_viewer(True)


# DLPack
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13
_DL_DEVICE_NAMES = {1: "the CPU", 3: "pinned host memory (kDLCUDAHost)", 4: "OpenCL", 7: "Vulkan",
                    8: "Metal", 10: "ROCm", 14: "oneAPI"}


def dlpack_tensor(capsule, what):
    """What an (unconsumed) DLPack capsule holds:
    (pointer, device_type, device_id, (code, bits, lanes), shape, strides
    in elements or None).  The capsule keeps its name: when it is dropped
    its own destructor calls the producer's deleter, which is the
    protocol's rule for a capsule left unconsumed."""
    t = _lib.native().dlpack(capsule)
    if t is None:
        raise TypeError("%s: __dlpack__() did not return a DLPack capsule" % what)
    return t


def _make_dlpack_viewer(nd):
    """The __dlpack__ viewer; with `nd`, its variant for any layout (shape
    and element strides, None when C-contiguous, instead of the element
    count).  The consumer stream is passed to __dlpack__(stream=...) so the
    producer orders its pending work before it (legacy default stream when
    stream= is not given: DLPack's 1)."""

    def view(x, stream, what):
        dev_type, dev_id = x.__dlpack_device__()
        if dev_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            raise ValueError("%s is a %s in %s; a CUDA device array is needed (no silent copies)"
                             % (what, _describe(x), _DL_DEVICE_NAMES.get(int(dev_type), "device type %d" % dev_type)))
        explicit = stream is not None
        s = stream_handle(stream) if explicit else 0
        try:
            capsule = x.__dlpack__(stream=1 if s == 0 else s)
        except Exception:  # a producer without the stream argument: it then
            capsule = x.__dlpack__()  # assumes the legacy default stream
        ptr, _, device, key, shape, strides = dlpack_tensor(capsule, what)
        dt = D.DLPACK.get(key)
        if dt is None:
            raise _bad_dtype(what, "DLPack (code %d, bits %d, lanes %d)" % key)
        n = math.prod(shape)
        if nd:
            if not strides or n == 0 or _c_contiguous(shape, strides, 1):
                strides = None
            return ptr, shape, strides, dt, device, s, _outlib_for(x), explicit, capsule
        if strides and n > 0 and not _c_contiguous(shape, strides, 1):
            raise _not_contiguous(what, shape, strides)
        return ptr, n, dt, device, s, _outlib_for(x), explicit, capsule

    return view


dlpack_view = _make_dlpack_viewer(False)
dlpack_view.nd = _make_dlpack_viewer(True)


# ------------------------------------------------------------- classifying
VIEWERS = {}


def classify(x, what):
    """Pick (and cache, per type) the viewer for x."""
    t = type(x)
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    if torch is not None and isinstance(x, torch.Tensor):
        viewer = _make_torch_viewer(torch)
    elif cupy is not None and isinstance(x, cupy.ndarray):
        viewer = _make_cupy_viewer(cupy)
    elif hasattr(t, "__dlpack__") and hasattr(t, "__dlpack_device__"):
        viewer = dlpack_view
    elif hasattr(x, "__cuda_array_interface__"):
        viewer = cai_view
    else:
        raise TypeError("%s is a %s, not a CUDA array; warpkit takes arrays with __cuda_array_interface__ "
                        "or __dlpack__ (CuPy, PyTorch, JAX, Numba)" % (what, _describe(x)))
    VIEWERS[t] = viewer
    return viewer


def _view_any(x, stream, what):
    v = VIEWERS.get(type(x))
    if v is None:
        v = classify(x, what)
    return v(x, stream, what)


view = _view_any


def view_nd(x, stream, what):
    """The array in any layout, for the calls along an axis:

        (ptr, shape, strides, dtype, device, stream, outlib, explicit, keep)

    strides are in elements, None for a C-contiguous array.  The caller
    decides which layouts it takes."""
    v = VIEWERS.get(type(x))
    if v is None:
        v = classify(x, what)
    return v.nd(x, stream, what)
