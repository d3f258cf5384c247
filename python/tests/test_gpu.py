"""GPU tests: every function, dtype and edge size against NumPy, for PyTorch
and CuPy inputs.  Skipped without torch / CuPy or without a CUDA device.

Inputs are fresh each run (seed printed as WK_SEED; set it to reproduce).
Odd sizes pass out= (and count=) arrays poisoned first, and check that what
the call must not write is still poison.  Float sums are checked against a
float64 reference with a tolerance derived from n and the dtype."""

import math
import os

import pytest

np = pytest.importorskip("numpy", reason="the GPU tests need NumPy")

import warpkit  # noqa: E402
from gpu_util import (BIG, DTYPES, FLOATS, INTS, assert_close, assert_equal, assert_sum, backend,  # noqa: E402
                      poison, random_host, rng_for, rounded, scan_tolerance, sum_tolerance)

# WK_QUICK=1 leaves out the size over 2^24 (most of the run time).
SIZES = [0, 1, 31, 1025, 65537] + ([] if os.environ.get("WK_QUICK") else [BIG])


def uses_out(n):
    return n % 2 == 1 and n != BIG


def identity(op, name):
    if op == "sum" or op in ("or", "xor"):
        return 0
    if op == "and":
        return np.array(-1).astype(np.dtype(name)) if name.startswith("int") else np.iinfo(np.dtype(name)).max
    if name in FLOATS:
        return np.inf if op == "min" else -np.inf
    info = np.iinfo(np.dtype(name))
    return info.max if op == "min" else info.min


def scalar_out(B, name):
    d, _ = B.upload(poison(name, 1).reshape(()), name)
    return d


# ------------------------------------------------------------------ reduce
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("op", ["sum", "min", "max", "and", "or", "xor"])
def test_reduce(B, op, name, n, request):
    host = random_host(rng_for(request), name, n, "positive" if op == "sum" else "wide")
    d, ref_host = B.upload(host, name)
    fn = {"sum": warpkit.sum, "min": warpkit.min, "max": warpkit.max, "and": warpkit.reduce_and,
          "or": warpkit.reduce_or, "xor": warpkit.reduce_xor}[op]
    if op in ("and", "or", "xor") and name in FLOATS:
        with pytest.raises(warpkit.UnsupportedError, match="integer dtypes"):
            fn(d)
        return
    out = scalar_out(B, name) if uses_out(n) else None
    r = fn(d, out=out)
    assert r is out if out is not None else B.is_mine(r)
    got = B.download(r)
    assert got.shape == ()
    if n == 0:
        assert_equal(got, np.array(identity(op, name)).astype(got.dtype), "%s of nothing" % op)
    elif op == "sum" and name in FLOATS:
        ref = float(math.fsum(ref_host.astype(np.float64)))  # exact, then rounded once
        assert_close(got, ref, sum_tolerance(ref_host, name, ref), "sum")
    elif op == "sum":
        # The sum's dtype (out's, else the library's rule) wraps it.
        assert_equal(got, np.sum(host, dtype=got.dtype), "sum (wrapping)")
    elif op in ("min", "max"):
        assert_equal(got, getattr(np, op)(ref_host), op)
    else:
        ufunc = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
        assert_equal(got, ufunc.reduce(host), op)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("op", ["argmin", "argmax"])
def test_arg(B, op, name, n, request):
    host = random_host(rng_for(request), name, n, "wide" if n == BIG else "small")  # small: many ties
    d, ref_host = B.upload(host, name)
    value, idx = getattr(warpkit, op)(d, return_value=True)
    assert B.is_mine(idx)
    i = int(B.download(idx))
    expected = int(getattr(np, op)(ref_host)) if n else -1
    assert i == expected, "%s: index %d, expected %d" % (op, i, expected)
    if n:
        assert_equal(B.download(value), ref_host[expected], op + " value")
    assert int(B.download(getattr(warpkit, op)(d))) == expected


# -------------------------------------------------------------------- scan
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_scan(B, op, exclusive, name, n, request):
    host = random_host(rng_for(request), name, n, "positive" if op == "sum" else "wide")
    d, ref_host = B.upload(host, name)
    fn = {"sum": warpkit.cumsum, "min": warpkit.cummin, "max": warpkit.cummax}[op]
    initial = None
    if exclusive and op == "sum":
        initial = 3 if name in INTS else 0.5
    out = B.upload(poison(name, n), name)[0] if uses_out(n) else None
    r = fn(d, exclusive=exclusive, initial=initial, out=out)
    assert r is out if out is not None else B.is_mine(r)
    got = B.download(r)
    assert got.shape == (n,)
    if n == 0:
        return
    init = (initial if initial is not None else identity(op, name))
    if exclusive:
        seq = np.concatenate([np.array([init]).astype(ref_host.dtype), ref_host[:-1]])
    else:
        seq = ref_host
    if op == "sum":
        assert_sum(got, seq, name, np.cumsum, scan_tolerance, "cumsum exclusive=%s" % exclusive)
    else:
        ufunc = np.minimum if op == "min" else np.maximum
        assert_equal(got, ufunc.accumulate(seq), "cum%s exclusive=%s" % (op, exclusive))


@pytest.mark.parametrize("n", [1, 1025, 65537])
@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["and", "or", "xor"])
def test_bitwise_scan(B, op, name, n, request):
    host = random_host(rng_for(request), name, n)
    d, _ = B.upload(host, name)
    ufunc = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    assert_equal(B.download(warpkit.scan(d, op)), ufunc.accumulate(host), "scan " + op)


def test_scan_in_place(request):
    B = backend("torch")
    host = random_host(rng_for(request), "int64", 100003)
    d, _ = B.upload(host, "int64")
    assert warpkit.cumsum(d, out=d) is d
    assert_equal(B.download(d), np.cumsum(host), "in-place cumsum")


# ------------------------------------------------------------------ select
def constants(name):
    if name in FLOATS:
        return 0.5, (0.25, 0.75)
    if name.startswith("u"):
        return 50, (20, 70)
    return 0, (-50, 50)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("func", ["select", "select_range", "partition", "nonzero", "compress", "unique"])
def test_select_family(B, func, name, n, request):
    rng = rng_for(request)
    host = random_host(rng, name, n, "small" if func == "unique" else "select")
    d, ref_host = B.upload(host, name)
    value, (lo, hi) = constants(name)
    out_name = "int64" if func == "nonzero" else name
    out = B.upload(poison(out_name, n), out_name)[0] if uses_out(n) else None
    count = B.upload(np.array(-7, dtype=np.int64), "int64")[0] if uses_out(n) else None
    v = rounded(value, name)
    if func == "select":
        keep = ref_host > v
        r, c = warpkit.select(d, ">", value, out=out, count=count)
    elif func == "select_range":
        keep = (ref_host >= rounded(lo, name)) & (ref_host < rounded(hi, name))
        r, c = warpkit.select_range(d, lo, hi, out=out, count=count)
    elif func == "partition":
        keep = ref_host > v
        r, c = warpkit.partition(d, ">", value, out=out, count=count)
    elif func == "nonzero":
        keep = ref_host != 0
        r, c = warpkit.nonzero(d, out=out, count=count)
    elif func == "compress":
        keep = rng.random(n) < 0.3
        mask, _ = B.upload(keep, "bool")
        r, c = warpkit.compress(mask, d, out=out, count=count)
    else:
        keep = np.ones(n, dtype=bool)
        keep[1:] = ref_host[1:] != ref_host[:-1]
        r, c = warpkit.unique_consecutive(d, out=out, count=count)
    if out is not None:
        assert r is out and c is count
    else:
        assert B.is_mine(r) and B.is_mine(c)
    k = int(B.download(c))
    assert k == int(keep.sum()), "%s: count %d, expected %d" % (func, k, int(keep.sum()))
    got = B.download(r)
    assert got.shape == (n,)
    expected = np.nonzero(keep)[0] if func == "nonzero" else ref_host[keep]
    assert_equal(got[:k], expected, func + " kept")
    if func == "partition":
        assert_equal(got[k:], ref_host[~keep][::-1], "partition rejected (reversed)")
    elif out is not None:
        assert_equal(got[k:], poison(out_name, n)[k:], func + ": past count untouched")
    t = warpkit.trim(r, c)
    assert len(t) == k


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("op", ["<", "<=", ">", ">=", "==", "!=", "isnan", "notnan"])
def test_select_ops(B, op, name, request):
    rng = rng_for(request)
    n = 4097
    host = random_host(rng, name, n, "small")
    if name in FLOATS:
        host[rng.integers(0, n, 40)] = np.nan
        host[rng.integers(0, n, 40)] = -0.0
    d, ref_host = B.upload(host, name)
    if op in ("isnan", "notnan"):
        if name in INTS:
            with pytest.raises(TypeError, match="float dtype"):
                warpkit.select(d, op)
            return
        keep = np.isnan(ref_host) if op == "isnan" else ~np.isnan(ref_host)
        r, c = warpkit.select(d, op)
    else:
        value = 0.5 if name in FLOATS else 1
        v = rounded(value, name)
        with np.errstate(invalid="ignore"):
            keep = {"<": ref_host < v, "<=": ref_host <= v, ">": ref_host > v, ">=": ref_host >= v,
                    "==": ref_host == v, "!=": ref_host != v}[op]
        r, c = warpkit.select(d, op, value)
    k = int(B.download(c))
    assert k == int(keep.sum())
    assert_equal(B.download(r)[:k], ref_host[keep], "select " + op)
    if name in FLOATS:  # zero compares equal to -0.0 (== as in C)
        kz, cz = warpkit.select(d, "==", 0.0)
        assert int(B.download(cz)) == int((ref_host == 0).sum())


# -------------------------------------------------------------------- NaN
@pytest.mark.parametrize("name", FLOATS)
def test_nan_semantics(B, name, request):
    rng = rng_for(request)
    n = 30011
    host = random_host(rng, name, n)
    first, second = sorted(rng.choice(n, 2, replace=False))
    host[first] = host[second] = np.nan
    d, ref_host = B.upload(host, name)
    assert np.isnan(B.download(warpkit.min(d))) and np.isnan(B.download(warpkit.max(d)))
    assert np.isnan(B.download(warpkit.sum(d)))
    assert int(B.download(warpkit.argmin(d))) == first == int(np.argmin(ref_host))
    assert int(B.download(warpkit.argmax(d))) == first
    cm = B.download(warpkit.cummax(d))
    assert not np.isnan(cm[:first]).any() and np.isnan(cm[first:]).all()
    u, c = warpkit.unique_consecutive(d)
    keep = np.ones(n, dtype=bool)
    keep[1:] = ref_host[1:] != ref_host[:-1]
    assert int(B.download(c)) == int(keep.sum())


# ------------------------------------------------------------------ errors
def test_bad_inputs_torch():
    B = backend("torch")
    torch = B.torch
    with pytest.raises(ValueError, match="torch tensor on cpu"):
        warpkit.sum(torch.ones(4))
    x = torch.ones(64, device="cuda")
    with pytest.raises(ValueError, match="not contiguous"):
        warpkit.sum(x[::2])
    with pytest.raises(TypeError, match="complex64"):
        warpkit.sum(torch.ones(4, dtype=torch.complex64, device="cuda"))
    with pytest.raises(warpkit.UnsupportedError, match="integer dtypes"):
        warpkit.reduce_and(x)
    with pytest.raises(TypeError, match="out has dtype float64"):
        warpkit.min(x, out=torch.empty((), dtype=torch.float64, device="cuda"))
    with pytest.raises(ValueError, match="CPU"):
        warpkit.sum(np.ones(4, np.float32))  # NumPy: DLPack on the CPU
    assert float(warpkit.sum(x).item()) == 64.0  # still usable after the errors


def test_bad_inputs_cupy():
    B = backend("cupy")
    cp = B.cupy
    x = cp.ones((8, 8), dtype=cp.float32)
    with pytest.raises(ValueError, match="not contiguous"):
        warpkit.cumsum(x.T)
    with pytest.raises(TypeError, match="complex"):
        warpkit.sum(cp.ones(4, dtype=cp.complex64))


def test_cross_library_out():
    T = backend("torch")
    C = backend("cupy")
    x = T.torch.arange(1000, dtype=T.torch.int64, device="cuda")
    out = C.cupy.empty((), dtype=C.cupy.int64)
    T.sync()
    assert warpkit.sum(x, out=out) is out
    T.torch.cuda.synchronize()
    assert int(out) == 999 * 1000 // 2
