"""Helpers of the GPU tests: backends (PyTorch, CuPy), random inputs, NumPy
references and tolerances.  Imported only by the GPU tests; needs NumPy."""

import math
import zlib

import pytest

np = pytest.importorskip("numpy", reason="the GPU tests need NumPy")

import conftest  # noqa: E402
import warpkit  # noqa: E402
from warpkit import _dtypes as D  # noqa: E402

DTYPES = ["int32", "uint32", "int64", "uint64", "float32", "float64", "float16", "bfloat16"]
INTS = DTYPES[:4]
FLOATS = DTYPES[4:]
EPS_ACC = {"float32": 2.0 ** -24, "float64": 2.0 ** -53, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -24}
EPS_OUT = {"float32": 0.0, "float64": 0.0, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
ITEMSIZE = {name: D.DTYPES[name][1] for name in DTYPES}
# The narrow dtypes (C library 0.3.0), apart from DTYPES: sums of them are
# tested against the array libraries' own (test_gpu_dtypes.py).
NARROW = ["bool", "uint8", "int8", "int16", "uint16"]
BIG = (1 << 24) + 7


def rng_for(request):
    """A generator seeded by the session seed and the test's id: the printed
    WK_SEED reproduces every input."""
    return np.random.default_rng([conftest.SEED, zlib.crc32(request.node.nodeid.encode())])


# ----------------------------------------------------------------- backends
class Torch:
    name = "torch"

    def __init__(self):
        import torch
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device (torch)")
        self.torch = torch
        self.dev = torch.device("cuda", 0)

    def dtype(self, name):
        t = getattr(self.torch, name, None)
        if t is None:
            pytest.skip("this torch has no %s" % name)
        return t

    def upload(self, host, name):
        """(device array of dtype `name`, the host values it holds as NumPy)."""
        torch = self.torch
        # ascontiguousarray makes a 0-d array 1-d: keep the host's shape.
        if name == "bfloat16":
            d = torch.from_numpy(np.ascontiguousarray(host, dtype=np.float32)).reshape(host.shape)
            d = d.to(self.dev).to(torch.bfloat16)
            return d, d.float().cpu().numpy()
        try:
            d = torch.from_numpy(np.ascontiguousarray(host)).reshape(host.shape).to(self.dev)
        except (TypeError, RuntimeError) as e:
            pytest.skip("torch cannot hold %s here: %s" % (name, e))
        return d, host

    def download(self, d):
        if d.dtype == self.torch.bfloat16:
            d = d.float()
        try:
            return d.cpu().numpy()
        except (TypeError, RuntimeError) as e:
            pytest.skip("torch cannot copy %s to NumPy: %s" % (d.dtype, e))

    def is_mine(self, a):
        return isinstance(a, self.torch.Tensor) and a.is_cuda

    def sync(self):
        self.torch.cuda.synchronize()


class Cupy:
    name = "cupy"

    def __init__(self):
        import cupy
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                pytest.skip("no CUDA device (cupy)")
        except cupy.cuda.runtime.CUDARuntimeError:
            pytest.skip("no CUDA device (cupy)")
        self.cupy = cupy

    def upload(self, host, name):
        if name == "bfloat16":
            pytest.skip("CuPy has no bfloat16")
        return self.cupy.asarray(host), host

    def download(self, d):
        return self.cupy.asnumpy(d)

    def is_mine(self, a):
        return isinstance(a, self.cupy.ndarray)

    def sync(self):
        self.cupy.cuda.runtime.deviceSynchronize()


_backends = {}


def backend(name):
    if name not in _backends:
        try:
            __import__(name)
        except ImportError:
            pytest.skip("%s is not installed" % name)
        b = Torch() if name == "torch" else Cupy()
        warpkit.library_path()  # a GPU is here: the library must load (fails loudly if not)
        _backends[name] = b
    return _backends[name]


# ------------------------------------------------------------------ inputs
def host_np_dtype(name):
    return np.dtype(np.float32 if name == "bfloat16" else name)


def random_host(rng, name, n, kind="wide"):
    """Random host values for dtype `name` (float32 for bfloat16).
    kind: "wide" (full integer range; floats in [-1, 1)), "positive" (sums:
    integers full range, floats in [0, s) with s keeping f16 sums finite),
    "small" (few distinct values: ties and runs), "select" (floats in [0, 1),
    integers in [-100, 100))."""
    dt = host_np_dtype(name)
    if name in INTS:
        info = np.iinfo(dt)
        if kind in ("small",):
            return rng.integers(-3 if info.min < 0 else 0, 4, n).astype(dt)
        if kind == "select":
            return rng.integers(-100 if info.min < 0 else 0, 100, n).astype(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if kind == "small":
        return rng.integers(-2, 3, n).astype(dt) * dt.type(0.5)
    if kind == "select":
        return rng.random(n, dtype=np.float64).astype(dt)
    if kind == "positive":
        scale = min(1.0, 2.0 ** 14 / max(n, 1)) if name == "float16" else 1.0
        return (rng.random(n) * scale).astype(dt)
    return (rng.random(n) * 2 - 1).astype(dt)


def random_int(rng, name, n):
    """n random values over the whole range of an integer dtype `name`
    (NARROW or INTS; a bool is True with probability 1/2); n may be a shape."""
    if name == "bool":
        return rng.random(n) < 0.5
    info = np.iinfo(np.dtype(name))
    return rng.integers(info.min, info.max, n, dtype=np.dtype(name), endpoint=True)


def poison(name, n):
    """Host poison of n elements (NaN-like bits for floats, 0x5A.. for ints)."""
    if name in INTS:
        return np.full(n, 0x5A5A5A5A, dtype=np.dtype(name)) if n else np.zeros(0, np.dtype(name))
    return np.full(n, np.nan, dtype=host_np_dtype(name))


def rounded(value, name):
    """value rounded to dtype `name`, as warpkit rounds a constant."""
    if name in INTS:
        return value
    return D.round_float(float(value), D.DTYPES[name][0])


# -------------------------------------------------------------- tolerances
def sum_tolerance(host, name, ref):
    """A bound on |sum - exact| for a float sum of n terms accumulated in
    float (f32/f16/bf16) or double (f64) with at least 1024-way parallel
    partial sums: k(n) roundings of sum|x|, plus the final rounding to a
    16-bit dtype."""
    n = host.size
    k = min(n, 64 + 2 * math.ceil(math.log2(n + 1)) + n / 1024)
    abs_sum = float(np.sum(np.abs(host.astype(np.float64))))
    return k * EPS_ACC[name] * abs_sum + EPS_OUT[name] * abs(ref) + 1e-300


def scan_tolerance(host, name, ref, init=0.0):
    """Per-element bound from include/warpkit.h: output i carries at most
    i / tile + 66 roundings of sum |x_j| (j <= i), a tile holding at least
    16 KiB of input; 16-bit outputs add their final rounding."""
    n = host.size
    tile = 16384 // ITEMSIZE[name]
    i = np.arange(n, dtype=np.float64)
    abs_prefix = np.cumsum(np.abs(host.astype(np.float64))) + abs(init)
    return (i / tile + 66) * EPS_ACC[name] * abs_prefix + EPS_OUT[name] * np.abs(ref) + 1e-300


def assert_close(got, ref, tol, what):
    ref = np.asarray(ref)
    wide = np.longdouble if ref.dtype == np.longdouble else np.float64
    got = np.asarray(got).astype(wide)
    ref = ref.astype(wide)
    both_nan = np.isnan(got) & np.isnan(ref)
    same_inf = np.isinf(got) & (got == ref)
    err = np.where(both_nan | same_inf, 0.0, np.abs(got - ref))
    bad = ~(err <= tol)
    if np.any(bad):
        i = int(np.argmax(bad))
        tol_i = tol if np.ndim(tol) == 0 else np.asarray(tol).flat[i]
        raise AssertionError("%s: %d of %d outside tolerance; first at %d: got %r, expected %r, tol %g"
                             % (what, int(bad.sum()), bad.size, i, got.flat[i], ref.flat[i], tol_i))


def assert_sum(got, host, name, fn, tolerance, what, axis=None):
    """got against NumPy's fn (np.sum or np.cumsum) of host: for float dtypes
    within tolerance(host, name, ref) of the result in long double (a float64
    one carries errors of its own as large as the tolerance for f64 inputs),
    for integers exactly, wrapping in got's dtype (the input's, or the wider
    one an integer sum is kept in)."""
    if name in FLOATS:
        ref = fn(host.astype(np.longdouble), axis=axis)
        assert_close(got, ref, tolerance(host, name, ref), what)
    else:
        assert_equal(got, fn(host, axis=axis, dtype=np.asarray(got).dtype), what + " (wrapping)")


def assert_equal(got, ref, what):
    got = np.asarray(got)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, "%s: shape %s, expected %s" % (what, got.shape, ref.shape)
    if got.dtype.kind == "f" or ref.dtype.kind == "f":
        g = got.astype(np.float64)
        r = ref.astype(np.float64)
        ok = (g == r) | (np.isnan(g) & np.isnan(r))
    else:
        ok = got == ref
    if not np.all(ok):
        i = int(np.argmin(ok))
        raise AssertionError("%s: %d of %d differ; first at %d: got %r, expected %r"
                             % (what, int((~ok).sum()), ok.size, i, got.flat[i], ref.flat[i]))


def identity(op, name):
    """The identity of a scan op ("sum", "min", "max") in dtype `name`."""
    if op == "sum":
        return 0
    if name in FLOATS:
        return np.inf if op == "min" else -np.inf
    info = np.iinfo(np.dtype(name))
    return info.max if op == "min" else info.min
