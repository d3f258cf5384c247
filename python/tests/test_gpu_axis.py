"""GPU tests of the reductions and scans along the last axis (axis=-1,
wk_segmented_*) against NumPy, for PyTorch and CuPy inputs: every dtype, edge
shapes (no rows, empty rows, one element, long rows, many short rows, 3-d)
and column slices (rows apart).  Skipped without torch / CuPy or a CUDA
device.  Inputs are fresh each run (seed printed as WK_SEED)."""

import math

import pytest

np = pytest.importorskip("numpy", reason="the GPU tests need NumPy")

import warpkit  # noqa: E402
from gpu_util import (DTYPES, EPS_ACC, EPS_OUT, FLOATS, INTS, assert_close, assert_equal, assert_sum,  # noqa: E402
                      backend, identity, random_host, rng_for)


# id -> (shape of the array uploaded, index of the view passed, or None)
CASES = {
    "0x5": ((0, 5), None),
    "5x0": ((5, 0), None),
    "1x1": ((1, 1), None),
    "3x33": ((3, 33), None),
    "1000x1000": ((1000, 1000), None),
    "7x3x31": ((7, 3, 31), None),
    "33": ((33,), None),
    "3x100003": ((3, 100003), None),        # a few long rows
    "20000x3": ((20000, 3), None),          # many short rows
    "cols": ((300, 1000), (slice(None), slice(0, 517))),           # x[:, :517]: rows 1000 apart
    "cols-offset": ((257, 64), (slice(None), slice(3, 40))),       # x[:, 3:40]: unaligned rows
    "cols-3d": ((5, 6, 40), (Ellipsis, slice(3, 20))),             # x[..., 3:20]
    "col": ((1000, 1000), (slice(None), slice(1, 2))),             # x[:, 1:2]: rows of one element
}
CONTIGUOUS = [k for k, (_, view) in CASES.items() if view is None]


def make(B, rng, name, case, kind):
    """(device array to pass, the host values it holds)."""
    shape, view = CASES[case]
    host = random_host(rng, name, math.prod(shape), kind).reshape(shape)
    d, ref = B.upload(host, name)
    if view is not None:
        return d[view], ref[view]
    return d, ref


def row_sum_tolerance(host, name, ref):
    """The header's bound on |sum - exact| per row of L elements accumulated
    in float (double for f64): ceil(L / 8) + 64 roundings of sum |x| (and
    never more than L - 1, which holds for any order), plus the rounding to a
    16-bit dtype."""
    L = host.shape[-1]
    k = min(L, math.ceil(L / 8) + 64)
    abs_sum = np.sum(np.abs(host.astype(np.float64)), axis=-1)
    return k * EPS_ACC[name] * abs_sum + EPS_OUT[name] * np.abs(ref.astype(np.float64)) + 1e-300


def row_scan_tolerance(seq, name, ref):
    """The header's bound per element: prefix i of a row carries at most
    min(i + 1, ceil((i + 1) / 8) + 64) roundings of the sum of |x_j|, j <= i,
    plus the rounding to a 16-bit dtype."""
    L = seq.shape[-1]
    i = np.arange(L, dtype=np.float64)
    k = np.minimum(i + 1, np.ceil((i + 1) / 8) + 64)
    abs_prefix = np.cumsum(np.abs(seq.astype(np.float64)), axis=-1)
    return k * EPS_ACC[name] * abs_prefix + EPS_OUT[name] * np.abs(ref.astype(np.float64)) + 1e-300


# ------------------------------------------------------------------ reduce
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_reduce_axis(B, op, name, case, request):
    d, ref_host = make(B, rng_for(request), name, case, "positive" if op == "sum" else "wide")
    r = getattr(warpkit, op)(d, axis=-1)
    assert B.is_mine(r)
    got = B.download(r)
    assert got.shape == ref_host.shape[:-1], "%s: shape %s, expected %s" % (op, got.shape, ref_host.shape[:-1])
    if ref_host.shape[-1] == 0:
        assert_equal(got, np.full(got.shape, identity(op, name)).astype(got.dtype), "%s of empty rows" % op)
    elif op == "sum":
        assert_sum(got, ref_host, name, np.sum, row_sum_tolerance, "sum along the last axis", axis=-1)
    else:
        assert_equal(got, getattr(np, op)(ref_host, axis=-1), op + " along the last axis")


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["and", "or", "xor"])
def test_bitwise_axis(B, op, name, request):
    rng = rng_for(request)
    ufunc = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    fn = {"and": warpkit.reduce_and, "or": warpkit.reduce_or, "xor": warpkit.reduce_xor}[op]
    for case in ["3x33", "cols", "20000x3"]:
        d, ref_host = make(B, rng, name, case, "wide")
        assert_equal(B.download(fn(d, axis=-1)), ufunc.reduce(ref_host, axis=-1), "%s on %s" % (op, case))


def test_reduce_axis_out(B, request):
    d, ref_host = make(B, rng_for(request), "int64", "cols", "wide")
    out, _ = B.upload(np.zeros(300, np.int64), "int64")
    assert warpkit.max(d, axis=-1, out=out) is out
    assert_equal(B.download(out), ref_host.max(axis=-1), "max into out")


# ------------------------------------------------------------------ argmax
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("op", ["argmin", "argmax"])
def test_arg_axis(B, op, name, case, request):
    d, ref_host = make(B, rng_for(request), name, case, "small")  # small: many ties
    fn = getattr(warpkit, op)
    if ref_host.shape[-1] == 0:
        with pytest.raises(ValueError, match="rows of length 0"):
            fn(d, axis=-1)
        return
    value, idx = fn(d, axis=-1, return_value=True)
    assert B.is_mine(idx) and B.is_mine(value)
    expected = getattr(np, op)(ref_host, axis=-1)
    assert_equal(B.download(idx), expected, op + " index")
    assert_equal(B.download(value), np.take_along_axis(ref_host, expected[..., None], -1)[..., 0], op + " value")
    assert_equal(B.download(fn(d, axis=-1)), expected, op + " index alone")


# -------------------------------------------------------------------- scan
@pytest.mark.parametrize("case", CONTIGUOUS)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_scan_axis(B, op, exclusive, name, case, request):
    d, ref_host = make(B, rng_for(request), name, case, "positive" if op == "sum" else "wide")
    fn = {"sum": warpkit.cumsum, "min": warpkit.cummin, "max": warpkit.cummax}[op]
    initial = (3 if name in INTS else 0.5) if exclusive and op == "sum" else None
    r = fn(d, axis=-1, exclusive=exclusive, initial=initial)
    assert B.is_mine(r)
    got = B.download(r)
    assert got.shape == ref_host.shape
    if ref_host.size == 0:
        return
    if exclusive:
        init = initial if initial is not None else identity(op, name)
        first = np.full(ref_host.shape[:-1] + (1,), init).astype(ref_host.dtype)
        seq = np.concatenate([first, ref_host[..., :-1]], axis=-1)
    else:
        seq = ref_host
    if op == "sum":
        assert_sum(got, seq, name, np.cumsum, row_scan_tolerance, "cumsum along the last axis", axis=-1)
    else:
        ufunc = np.minimum if op == "min" else np.maximum
        assert_equal(got, ufunc.accumulate(seq, axis=-1), "cum%s along the last axis" % op)


@pytest.mark.parametrize("name", ["int64", "float32", "float16"])
def test_scan_column_slice_in_place(B, name, request):
    """A scan of rows apart writes where it reads: in place (out=x), the
    elements between the rows stay as they were."""
    rng = rng_for(request)
    host = random_host(rng, name, 300 * 1000, "positive").reshape(300, 1000)
    d, ref_host = B.upload(host, name)
    v = d[:, 100:617]
    with pytest.raises(ValueError, match="out= laid out as x"):
        warpkit.cumsum(v, axis=-1)
    assert warpkit.cumsum(v, axis=-1, out=v) is v
    got = B.download(d)
    assert_equal(got[:, :100], ref_host[:, :100], "left of the slice")
    assert_equal(got[:, 617:], ref_host[:, 617:], "right of the slice")
    assert_sum(got[:, 100:617], ref_host[:, 100:617], name, np.cumsum, row_scan_tolerance, "in-place cumsum of a slice",
               axis=-1)


# -------------------------------------------------------------------- NaN
@pytest.mark.parametrize("name", FLOATS)
def test_nan_rows(B, name, request):
    rng = rng_for(request)
    host = random_host(rng, name, 64 * 300).reshape(64, 300)
    rows = rng.choice(64, 20, replace=False)
    for r in rows:
        host[r, rng.integers(0, 300, 2)] = np.nan
    d, ref_host = B.upload(host, name)
    assert_equal(B.download(warpkit.max(d, axis=-1)), np.max(ref_host, axis=-1), "max with NaN rows")
    assert_equal(B.download(warpkit.min(d, axis=-1)), np.min(ref_host, axis=-1), "min with NaN rows")
    assert_equal(B.download(warpkit.argmax(d, axis=-1)), np.argmax(ref_host, axis=-1), "argmax: the first NaN")
    assert_equal(B.download(warpkit.argmin(d, axis=-1)), np.argmin(ref_host, axis=-1), "argmin: the first NaN")
    assert_equal(B.download(warpkit.cummax(d, axis=-1)), np.maximum.accumulate(ref_host, axis=-1), "cummax")


# -------------------------------------------------------- reproducible sums
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16", "int64"])
def test_reproducible_sum_axis(B, name, case, request):
    """Each row gets the bits of the whole-array reproducible sum of that row
    alone, whatever the layout and the order of its elements."""
    rng = rng_for(request)
    d, ref_host = make(B, rng, name, case, "wide")
    got = B.download(warpkit.sum(d, axis=-1, reproducible=True))
    assert got.shape == ref_host.shape[:-1]
    rows = ref_host.reshape(math.prod(ref_host.shape[:-1]), ref_host.shape[-1])
    flat = got.reshape(-1)
    if rows.shape[0] == 0:
        return
    if ref_host.shape[-1] == 0:
        assert_equal(got, np.zeros(got.shape, got.dtype), "reproducible sum of empty rows")
        assert not np.signbit(flat).any(), "+0.0 for empty rows"
        return
    for i in sorted(set(rng.integers(0, rows.shape[0], 5).tolist())):
        one, _ = B.upload(rows[i][::-1].copy(), name)  # the row alone, reversed
        alone = B.download(warpkit.sum(one, reproducible=True))
        assert alone.tobytes() == flat[i].tobytes(), "row %d: %r, alone %r" % (i, flat[i], alone)
    assert_sum(got, ref_host, name, np.sum, row_sum_tolerance, "reproducible sum along the last axis", axis=-1)


# ------------------------------------------------- against PyTorch / CuPy
def test_against_torch(request):
    B = backend("torch")
    torch = B.torch
    rng = rng_for(request)
    host = (rng.random((1000, 1000)) * 2 - 1).astype(np.float32)
    x = torch.from_numpy(host).cuda()
    for d in (x, x[:, :517], x.reshape(10, 100, 1000)):
        assert_close(B.download(warpkit.sum(d, axis=-1)), B.download(torch.sum(d.double(), dim=-1)),
                     row_sum_tolerance(B.download(d), "float32", B.download(d.sum(-1))), "sum vs torch")
        assert torch.equal(warpkit.max(d, axis=-1), torch.amax(d, dim=-1))
        assert torch.equal(warpkit.min(d, axis=-1), torch.amin(d, dim=-1))
        assert torch.equal(warpkit.argmax(d, axis=-1), torch.argmax(d, dim=-1))
        assert torch.equal(warpkit.argmin(d, axis=-1), torch.argmin(d, dim=-1))
    ref = B.download(torch.cumsum(x.double(), dim=-1))
    assert_close(B.download(warpkit.cumsum(x, axis=-1)), ref, row_scan_tolerance(host, "float32", ref),
                 "cumsum vs torch")
    xi = torch.from_numpy(rng.integers(-1000, 1000, (300, 77))).cuda()
    assert torch.equal(warpkit.cumsum(xi, axis=-1), torch.cumsum(xi, dim=-1))
    assert torch.equal(warpkit.sum(xi, axis=1), xi.sum(dim=1))


def test_against_cupy(request):
    B = backend("cupy")
    cp = B.cupy
    rng = rng_for(request)
    x = cp.asarray(rng.integers(-1000, 1000, (500, 300)))
    for d in (x, x[:, 7:200]):
        assert bool((warpkit.sum(d, axis=-1) == d.sum(axis=-1)).all())
        assert bool((warpkit.argmax(d, axis=-1) == d.argmax(axis=-1)).all())
    assert bool((warpkit.cumsum(x, axis=-1) == cp.cumsum(x, axis=-1)).all())


# ------------------------------------------------------ streams and graphs
def test_axis_on_streams(request):
    B = backend("torch")
    torch = B.torch
    host = rng_for(request).integers(-100, 100, (4000, 333))
    x = torch.from_numpy(host).cuda()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # the current stream is used
        s1 = warpkit.sum(x, axis=-1)
        c1 = warpkit.cumsum(x, axis=-1)
    other = torch.cuda.Stream()
    other.wait_stream(torch.cuda.current_stream())
    a2 = warpkit.argmax(x, axis=-1, stream=other)  # explicit
    side.synchronize()
    other.synchronize()
    assert_equal(B.download(s1), host.sum(axis=-1), "sum on a side stream")
    assert_equal(B.download(c1), np.cumsum(host, axis=-1), "cumsum on a side stream")
    assert_equal(B.download(a2), host.argmax(axis=-1), "argmax on an explicit stream")


def test_axis_graph_capture_and_replay(request):
    B = backend("torch")
    torch = B.torch
    rng = rng_for(request)
    x = torch.empty((777, 1031), device="cuda")
    x.copy_(torch.from_numpy(rng.random((777, 1031)).astype(np.float32)))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up, as PyTorch asks before capture
        warpkit.sum(x, axis=-1)
        warpkit.cumsum(x, axis=-1)
        warpkit.argmax(x[:, :500], axis=-1)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        total = warpkit.sum(x, axis=-1)
        cs = warpkit.cumsum(x, axis=-1)
        am = warpkit.argmax(x[:, :500], axis=-1)
    for _ in range(3):
        host = rng.random((777, 1031)).astype(np.float32)
        x.copy_(torch.from_numpy(host))
        g.replay()
        torch.cuda.synchronize()
        ref = np.sum(host.astype(np.longdouble), axis=-1)
        assert_close(B.download(total), ref, row_sum_tolerance(host, "float32", ref), "replayed sum")
        ref = np.cumsum(host.astype(np.longdouble), axis=-1)
        assert_close(B.download(cs), ref, row_scan_tolerance(host, "float32", ref), "replayed cumsum")
        assert_equal(B.download(am), host[:, :500].argmax(axis=-1), "replayed argmax of a slice")


# ------------------------------------------------------------------ errors
def test_axis_errors_torch():
    B = backend("torch")
    torch = B.torch
    x = torch.ones((64, 32), device="cuda")
    with pytest.raises(ValueError, match="axis=0 is not supported"):
        warpkit.sum(x, axis=0)
    with pytest.raises(ValueError, match="last axis is strided"):
        warpkit.sum(x.T, axis=-1)
    with pytest.raises(ValueError, match="last axis is strided"):
        warpkit.max(x[:, ::2], axis=-1)
    with pytest.raises(ValueError, match="not evenly spaced"):
        warpkit.sum(torch.ones((4, 6, 8), device="cuda")[::2, :, :3], axis=-1)
    with pytest.raises(ValueError, match="overlap"):
        warpkit.sum(torch.ones((1, 8), device="cuda").expand(4, 8), axis=-1)
    with pytest.raises(ValueError, match="rows of length 0"):
        warpkit.argmax(torch.ones((5, 0), device="cuda"), axis=-1)
    with pytest.raises(warpkit.UnsupportedError):
        warpkit.reduce_and(x, axis=-1)
    with pytest.raises(ValueError, match="torch tensor on cpu"):
        warpkit.sum(torch.ones((4, 4)), axis=-1)
    assert float(warpkit.sum(x, axis=-1)[0].item()) == 32.0  # still usable after the errors


def test_axis_errors_cupy():
    B = backend("cupy")
    cp = B.cupy
    x = cp.ones((8, 8), dtype=cp.float32)
    with pytest.raises(ValueError, match="last axis is strided"):
        warpkit.cumsum(x.T, axis=-1)
    with pytest.raises(ValueError, match="last axis is strided"):
        warpkit.sum(x[:, ::-1], axis=-1)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        warpkit.sum(x, axis=2)
