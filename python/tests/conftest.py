"""Shared fixtures: the stub library, stand-in arrays, GPU detection, and the
summary printed at the end of `pytest python/tests`.

Options / environment:
  --wk-json FILE   write {"passed", "failed", "skipped", "seconds"} to FILE
                   (read by `python -m warpkit.bench --tests-json FILE`)
  WK_SEED=N        seed of the GPU tests' random inputs (printed; fresh by default)
"""

import ctypes
import json
import math
import os
import shutil
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
REPO = os.path.dirname(PKG)
HEADER = os.path.join(REPO, "include", "warpkit.h")

try:
    import warpkit  # noqa: F401  (installed, or on PYTHONPATH)
except ImportError:  # run from the source tree without PYTHONPATH
    sys.path.insert(0, PKG)
    import warpkit  # noqa: F401

# JAX must not take most of the GPU's memory before the other tests run.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

OVERHEAD = {}  # filled by test_overhead.py, printed in the summary
SEED = int(os.environ.get("WK_SEED", str(int.from_bytes(os.urandom(4), "little"))))
_t0 = time.time()


def pytest_addoption(parser):
    parser.addoption("--wk-json", default=None, help="write test counts as JSON to this file")


def pytest_report_header(config):
    lib = os.environ.get("WARPKIT_LIBRARY", "(package dir / system loader)")
    return ["warpkit: %s, WARPKIT_LIBRARY=%s, seed WK_SEED=%d" % (warpkit.__file__, lib, SEED)]


def _versions():
    out = []
    for name in ("torch", "cupy", "jax", "numpy"):
        mod = sys.modules.get(name)
        out.append("%s %s" % (name, getattr(mod, "__version__", "?") if mod else "not loaded"))
    return ", ".join(out)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    tr = terminalreporter
    count = {k: len(tr.stats.get(k, [])) for k in ("passed", "failed", "skipped", "error")}
    tr.section("warpkit summary")
    tr.write_line("passed %(passed)d, failed %(failed)d, skipped %(skipped)d, errors %(error)d" % count)
    tr.write_line("seed: WK_SEED=%d   %s" % (SEED, _versions()))
    tr.write_line("GPU: %s" % (gpu_name() or "none found (GPU tests skipped)"))
    reasons = {}
    for rep in tr.stats.get("skipped", []):
        reason = str(rep.longrepr[2]) if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        reasons[reason] = reasons.get(reason, 0) + 1
    for what, us in OVERHEAD.items():
        tr.write_line("host cost per call (stub library): %-40s %6.2f us" % (what, us))
    for reason, k in sorted(reasons.items(), key=lambda kv: -kv[1])[:8]:
        tr.write_line("  skipped %4d: %s" % (k, reason))
    path = config.getoption("--wk-json")
    if path:
        with open(path, "w") as f:
            json.dump({"passed": count["passed"], "failed": count["failed"] + count["error"],
                       "skipped": count["skipped"], "seconds": round(time.time() - _t0, 1)}, f)


# ------------------------------------------------------------------- GPU
_gpu = []


def gpu_name():
    """The first CUDA device's name, or None (probing through torch, then CuPy,
    only once; None when neither is installed)."""
    if not _gpu:
        name = None
        try:
            import torch
            if torch.cuda.is_available():
                name = torch.cuda.get_device_name(0)
        except Exception:
            pass
        if name is None:
            try:
                import cupy
                if cupy.cuda.runtime.getDeviceCount() > 0:
                    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
            except Exception:
                pass
        _gpu.append(name)
    return _gpu[0]


@pytest.fixture(params=["torch", "cupy"])
def B(request):
    """The GPU tests' backend (gpu_util) of each array library in turn; the
    test skips where that library or a device is missing."""
    from gpu_util import backend
    return backend(request.param)


# ------------------------------------------------------------------ stub
class Call(ctypes.Structure):
    _fields_ = [("fn", ctypes.c_char * 32), ("ctx", ctypes.c_void_p), ("in_", ctypes.c_void_p),
                ("flags", ctypes.c_void_p), ("out", ctypes.c_void_p), ("count", ctypes.c_void_p),
                ("n", ctypes.c_uint64), ("dtype", ctypes.c_int), ("op", ctypes.c_int),
                ("compare", ctypes.c_int), ("device", ctypes.c_int), ("init", ctypes.c_uint64),
                ("a", ctypes.c_uint64), ("b", ctypes.c_uint64), ("stream", ctypes.c_void_p),
                ("seg_count", ctypes.c_uint64), ("seg_size", ctypes.c_uint64), ("seg_stride", ctypes.c_uint64),
                ("seg_begin", ctypes.c_void_p), ("seg_end", ctypes.c_void_p),
                ("out_dtype", ctypes.c_int), ("prefix", ctypes.c_void_p)]


class Stub:
    """The stub library, as loaded by warpkit (same handle: same globals)."""

    def __init__(self, path):
        self.path = path
        self.cdll = ctypes.CDLL(path)
        self.cdll.stub_reset()

    def _int(self, name):
        return ctypes.c_int.in_dll(self.cdll, name)

    @property
    def last(self):
        return Call.in_dll(self.cdll, "stub_last")

    @property
    def calls(self):
        return self._int("stub_calls").value

    @property
    def creates(self):
        return self._int("stub_creates").value

    @property
    def log(self):
        return ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(self.cdll, "stub_log"))).decode()

    def fail(self, status, message="", create=False):
        self._int("stub_create_status" if create else "stub_status").value = status
        buf = (ctypes.c_char * 256).in_dll(self.cdll, "stub_message")
        buf.value = message.encode()

    def pointer(self, type_=2, device=0, bad=0):
        self._int("stub_ptr_type").value = type_
        self._int("stub_ptr_device").value = device
        ctypes.c_size_t.in_dll(self.cdll, "stub_bad_ptr").value = bad

    def compute(self, on=True):
        """Make the segmented calls compute on (host) memory."""
        self._int("stub_compute").value = int(on)

    def count_value(self, value):
        """What cudaMemcpyAsync reads from the device (trim's count)."""
        ctypes.c_uint64.in_dll(self.cdll, "stub_memcpy_value").value = value


def _build_stub(out, *defines):
    cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler to build the stub library")
    if not os.path.exists(HEADER):
        pytest.skip("include/warpkit.h not found (tests run from the repository)")
    src = os.path.join(HERE, "stub", "wkstub.c")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-std=c11", *defines,
                    "-I", os.path.join(PKG, "native", "include"), "-I", os.path.dirname(HEADER),
                    "-o", out, src, "-lm"], check=True)
    return out


@pytest.fixture(scope="session")
def stub_path(tmp_path_factory):
    return _build_stub(str(tmp_path_factory.mktemp("stub") / "libwkstub.so"))


@pytest.fixture(scope="session")
def old_stub_path(tmp_path_factory):
    """A stub without the optional entry points (the segmented calls,
    wk_reduce_index): a library older than the package."""
    return _build_stub(str(tmp_path_factory.mktemp("stub_old") / "libwkstub.so"), "-DWK_STUB_WITHOUT_OPTIONAL")


def _stub_session(path, monkeypatch):
    """warpkit on the stub library at `path`, with stand-in output arrays,
    for one test (a generator for the fixtures below)."""
    from warpkit import _api, _arrays
    monkeypatch.setenv("WARPKIT_LIBRARY", path)
    _api._reset_for_tests()
    s = Stub(path)
    outlib = FakeOutLib()
    monkeypatch.setattr(_arrays, "fallback_outlib", outlib)
    s.outlib = outlib
    yield s
    s.cdll.stub_reset()
    _api._reset_for_tests()


@pytest.fixture
def stub(stub_path, monkeypatch):
    """warpkit running on the stub library, with stand-in output arrays."""
    yield from _stub_session(stub_path, monkeypatch)


@pytest.fixture
def old_stub(old_stub_path, monkeypatch):
    """The same on the stub without the optional entry points."""
    yield from _stub_session(old_stub_path, monkeypatch)


@pytest.fixture
def torch(stub, monkeypatch):
    """The stand-in torch module (fake_torch.py) in sys.modules, for the
    extension's route without PyTorch; skipped where the real one is
    installed (the GPU tests cover that path)."""
    import importlib.util
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("the real torch is installed: the GPU tests cover its path")
    import fake_torch
    from warpkit import _arrays
    t = fake_torch.make()
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setattr(_arrays, "_out_libs", {})
    monkeypatch.setattr(_arrays, "VIEWERS", {})
    monkeypatch.setattr(_arrays, "fallback_outlib", None)
    yield t


# --------------------------------------------------------- stand-in arrays
TYPESTR = {0: "<i4", 1: "<u4", 2: "<i8", 3: "<u8", 4: "<f4", 5: "<f8", 6: "<f2", 7: "<V2",
           8: "|b1", 9: "|u1", 10: "|i1", 11: "<i2", 12: "<u2"}
ITEMSIZE = {"<i4": 4, "<u4": 4, "<i8": 8, "<u8": 8, "<f4": 4, "<f8": 8, "<f2": 2, "<V2": 2,
            "|b1": 1, "|u1": 1, "|i1": 1, "<i2": 2, "<u2": 2, "<c8": 8}


class FakeArray:
    """A stand-in device array: __cuda_array_interface__ v3 over a made-up
    pointer (the stub never dereferences it)."""

    def __init__(self, ptr, shape=(8,), typestr="<f4", strides=None, stream=None, value=0):
        self.ptr, self.shape, self.typestr = ptr, tuple(shape), typestr
        self.strides, self.stream, self.value = strides, stream, value

    @property
    def __cuda_array_interface__(self):
        d = {"shape": self.shape, "typestr": self.typestr, "data": (self.ptr, False),
             "strides": self.strides, "version": 3}
        if self.stream is not None:
            d["stream"] = self.stream
        return d

    @property
    def itemsize(self):
        return ITEMSIZE[self.typestr]

    def __getitem__(self, k):
        if isinstance(k, slice):
            start, stop, _ = k.indices(self.shape[0])
            return FakeArray(self.ptr + start * self.itemsize, (stop - start,), self.typestr)
        if isinstance(k, tuple):  # x[..., j]: the last axis dropped
            assert len(k) == 2 and k[0] is Ellipsis, k
            strides = self.strides or c_strides(self.shape, self.itemsize)
            return FakeArray(self.ptr + k[1] * strides[-1], self.shape[:-1], self.typestr, strides=strides[:-1])
        return FakeArray(self.ptr + k * self.itemsize, (), self.typestr, value=self.value)

    def item(self):
        return self.value

    def __repr__(self):
        return "FakeArray(0x%x, %s, %s)" % (self.ptr, self.shape, self.typestr)


class FakeOutLib:
    """Output 'library' for stand-in inputs: allocations get fresh made-up
    pointers and are recorded."""

    name = "fake"

    def __init__(self):
        self.next = 0x7000_0000
        self.allocs = []

    def alloc(self, shape, dt, dev, stream=None):
        a = FakeArray(self.next, shape, TYPESTR[dt])
        self.next += 0x10000
        self.allocs.append((a, dt, tuple(shape), dev, stream))
        return a, a.ptr

    def reinterpret(self, a, dt):
        size = ITEMSIZE[TYPESTR[dt]]
        return FakeArray(a.ptr, a.shape[:-1] + (a.shape[-1] * a.itemsize // size,), TYPESTR[dt])

    def owns(self, a):
        return isinstance(a, FakeArray)


def prod(shape):
    return math.prod(shape)


def c_strides(shape, itemsize):
    """The byte strides of a C-contiguous array."""
    out, step = [], itemsize
    for d in reversed(shape):
        out.append(step)
        step *= d
    return tuple(reversed(out))
