"""GPU tests of the narrow dtypes (bool, uint8, int8, int16, uint16) and of
the dtype of sums: warpkit.sum, cumsum and count_nonzero against PyTorch's
and CuPy's own (torch.sum / x.sum(), torch.cumsum / cupy.cumsum,
count_nonzero), in value and in dtype.  Skipped without torch / CuPy or
without a CUDA device.

Where PyTorch has no CUDA kernel for an op on a dtype (uint16, uint32), the
reference is computed by NumPy on the host, in the dtype PyTorch's rule
gives (int64).  WK_TEST_LARGE=1 adds a bool mask of 2^31 + 5 elements
(2 GiB)."""

import math
import os

import pytest

np = pytest.importorskip("numpy", reason="the GPU tests need NumPy")

import warpkit  # noqa: E402
from gpu_util import NARROW, assert_close, assert_equal, random_int, rng_for, sum_tolerance  # noqa: E402

SUM_DTYPES = NARROW + ["int32", "uint32", "int64"]
SIZES = [0, 1, 7, 1000, (1 << 20) + 3]
SENTINEL = 0x5A  # in every integer dtype's range

# What PyTorch raises for an op it has no kernel for on a dtype.
_NO_KERNEL = (RuntimeError, TypeError, NotImplementedError)


def lib_dtype(B, name):
    """The backend's dtype object for `name` (skips where torch lacks it)."""
    if B.name == "torch":
        return B.dtype(name)
    return B.cupy.dtype(name)


def rule_dtype(B, name):
    """The name of the dtype a sum of `name` has by the backend's rule:
    PyTorch's (bool and integers into int64) or NumPy's, which CuPy follows
    (unsigned into uint64)."""
    if np.dtype(name).kind == "f":
        return name
    if B.name == "torch":
        return "int64"
    return np.zeros(0, np.dtype(name)).sum().dtype.name


def upload(B, host, name):
    d, _ = B.upload(host, name)
    return d


def poisoned(B, shape, name):
    """An out= array of dtype `name` filled with SENTINEL."""
    return upload(B, np.full(shape, SENTINEL, np.dtype(name)), name)


def reference(B, torch_op, cupy_op, numpy_op, d, host, rule):
    """(values as NumPy, dtype name or None) of the backend's own op on d;
    for a torch op without a kernel for d's dtype, NumPy's numpy_op(host)
    in the rule's dtype (and None: no dtype to compare with)."""
    if B.name == "torch":
        try:
            ref = torch_op(d)
            B.sync()
        except _NO_KERNEL:
            return np.asarray(numpy_op(host)).astype(np.dtype(rule)), None
        return B.download(ref), str(ref.dtype).rsplit(".", 1)[-1]
    ref = cupy_op(d)
    return B.download(ref), np.dtype(ref.dtype).name


def result_dtype(r):
    return str(r.dtype).rsplit(".", 1)[-1]


def check(B, r, ref, what):
    """A warpkit result r against reference()'s (values, dtype)."""
    values, dtype = ref
    if dtype is not None:
        assert result_dtype(r) == dtype, "%s: dtype %s, the library's %s" % (what, result_dtype(r), dtype)
    assert_equal(B.download(r), values, what)


# ------------------------------------------------------------ sum, cumsum
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", SUM_DTYPES)
def test_sum(B, name, n, request):
    host = random_int(rng_for(request), name, n)
    d = upload(B, host, name)
    rule = rule_dtype(B, name)
    ref = reference(B, lambda x: x.sum(), lambda x: x.sum(), lambda h: h.sum(dtype=np.dtype(rule)), d, host, rule)
    r = warpkit.sum(d)
    assert B.is_mine(r) and r.shape == ()
    assert result_dtype(r) == rule, "sum of %s: %s, expected %s" % (name, result_dtype(r), rule)
    check(B, r, ref, "sum of %d %s" % (n, name))
    if n % 2:  # out= of the rule's dtype, poisoned first
        out = poisoned(B, (), rule)
        assert warpkit.sum(d, out=out) is out
        check(B, out, ref, "sum of %d %s into out" % (n, name))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", SUM_DTYPES)
def test_cumsum(B, name, n, request):
    host = random_int(rng_for(request), name, n)
    d = upload(B, host, name)
    rule = rule_dtype(B, name)
    ref = reference(B, lambda x: B.torch.cumsum(x, 0), lambda x: B.cupy.cumsum(x),
                    lambda h: np.cumsum(h, dtype=np.dtype(rule)), d, host, rule)
    r = warpkit.cumsum(d)
    assert B.is_mine(r) and tuple(r.shape) == (n,)
    assert result_dtype(r) == rule
    check(B, r, ref, "cumsum of %d %s" % (n, name))
    if n % 2:
        out = poisoned(B, (n,), rule)
        assert warpkit.cumsum(d, out=out) is out
        check(B, out, ref, "cumsum of %d %s into out" % (n, name))
    if n:  # exclusive, with an initial value in the result's dtype
        rdt = np.dtype(rule)
        init = -7 if rule.startswith("int") else 7
        seq = np.concatenate([np.zeros(1, rdt), np.cumsum(host, dtype=rdt)[:-1]]) + np.array(init).astype(rdt)
        got = B.download(warpkit.cumsum(d, exclusive=True, initial=init))
        assert_equal(got, seq, "exclusive cumsum of %s" % name)


@pytest.mark.parametrize("shape", [(0, 9), (3, 0), (1, 1), (5, 7), (300, 33), (4, 100003), (2, 3, 4096)])
@pytest.mark.parametrize("name", SUM_DTYPES)
def test_cumsum_along_the_last_axis(B, name, shape, request):
    """Every row scanned in the rule's dtype (wk_segmented_*_scan_to for a
    wider one), against the library's own cumsum along the last axis; the
    exclusive form from an initial value; and a column slice's rows (apart
    in memory) into an out= laid out as the input."""
    host = random_int(rng_for(request), name, shape)
    d = upload(B, host, name)
    rule = rule_dtype(B, name)
    ref = reference(B, lambda x: B.torch.cumsum(x, -1), lambda x: B.cupy.cumsum(x, axis=-1),
                    lambda h: np.cumsum(h, axis=-1, dtype=np.dtype(rule)), d, host, rule)
    r = warpkit.cumsum(d, axis=-1)
    assert B.is_mine(r) and tuple(r.shape) == shape and result_dtype(r) == rule
    check(B, r, ref, "cumsum along the last axis of %s %s" % (shape, name))
    if shape[-1]:
        rdt = np.dtype(rule)
        init = -7 if rule.startswith("int") else 7
        seq = np.concatenate([np.full(shape[:-1] + (1,), init, rdt), host[..., :-1].astype(rdt)], axis=-1)
        got = B.download(warpkit.cumsum(d, axis=-1, exclusive=True, initial=init))
        assert_equal(got, np.cumsum(seq, axis=-1, dtype=rdt), "exclusive cumsum along the last axis of %s" % name)
        k = shape[-1] - 1 if shape[-1] > 1 else 1
        out = poisoned(B, shape, rule)
        warpkit.cumsum(d[..., :k], axis=-1, out=out[..., :k])
        got = B.download(out)
        assert_equal(got[..., :k], np.cumsum(host[..., :k], axis=-1, dtype=rdt), "cumsum of %s rows apart" % name)
        assert (got[..., k:] == SENTINEL).all(), "cumsum of %s rows apart wrote past the rows" % name


@pytest.mark.parametrize("n", [0, 1, 7, 1000, (1 << 20) + 3])
def test_sum_dtype_argument(B, n, request):
    rng = rng_for(request)
    host8 = random_int(rng, "uint8", n)
    d8 = upload(B, host8, "uint8")
    i32 = lib_dtype(B, "int32")
    r = warpkit.sum(d8, dtype=i32)
    assert result_dtype(r) == "int32"
    assert int(B.download(r)) == int(host8.sum(dtype=np.int64))
    if B.name == "torch":
        assert B.torch.equal(r, d8.sum(dtype=i32))
        assert B.torch.equal(warpkit.cumsum(d8, dtype=i32), B.torch.cumsum(d8, 0, dtype=i32))
    else:
        assert bool(r == B.cupy.sum(d8, dtype=i32))
        assert bool((warpkit.cumsum(d8, dtype=i32) == B.cupy.cumsum(d8, dtype=i32)).all())
    out = poisoned(B, (), "int32")
    assert warpkit.sum(d8, dtype=i32, out=out) is out and int(B.download(out)) == int(host8.sum())

    # float16 into float32: the float accumulation, not rounded back to float16
    h16 = (rng.random(n) * 4).astype(np.float16)
    d16 = upload(B, h16, "float16")
    r = warpkit.sum(d16, dtype=lib_dtype(B, "float32"))
    assert result_dtype(r) == "float32"
    exact = math.fsum(h16.astype(np.float64))
    h32 = h16.astype(np.float32)
    assert_close(B.download(r), exact, sum_tolerance(h32, "float32", exact), "float16 sum into float32")
    other = d16.float().sum() if B.name == "torch" else d16.astype(np.float32).sum()
    assert_close(B.download(r), B.download(other).astype(np.float64),
                 2 * sum_tolerance(h32, "float32", exact), "float16 sum into float32 vs the library's")

    # float32 into float64
    h = (rng.random(n) * 2 - 1).astype(np.float32)
    d = upload(B, h, "float32")
    r = warpkit.sum(d, dtype=lib_dtype(B, "float64"))
    assert result_dtype(r) == "float64"
    exact = math.fsum(h.astype(np.float64))
    assert_close(B.download(r), exact, sum_tolerance(h, "float64", exact), "float32 sum into float64")


def test_sum_converted_first(B, request):
    """Pairs the C library does not widen: the input is converted by its
    library first."""
    host = random_int(rng_for(request), "int32", 5001) // 4096
    d = upload(B, host, "int32")
    r = warpkit.sum(d, dtype=lib_dtype(B, "float64"))
    assert result_dtype(r) == "float64" and float(B.download(r)) == float(host.astype(np.float64).sum())
    r = warpkit.cumsum(d, dtype=lib_dtype(B, "float64"))
    assert_equal(B.download(r), np.cumsum(host.astype(np.float64)), "int32 cumsum into float64")


# ----------------------------------------------------------- count_nonzero
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", SUM_DTYPES + ["float32", "float16"])
def test_count_nonzero(B, name, n, request):
    rng = rng_for(request)
    if np.dtype(name).kind == "f":
        host = (rng.integers(-1, 2, n) * rng.random(n)).astype(np.dtype(name))
    else:
        host = random_int(rng, name, n)
        host[rng.random(n) < 0.3] = 0  # zeros among the values
    d = upload(B, host, name)
    r = warpkit.count_nonzero(d)
    assert B.is_mine(r) and r.shape == () and result_dtype(r) == "int64"
    if B.name == "torch":
        try:
            ref = int(B.torch.count_nonzero(d))
        except _NO_KERNEL:
            ref = int(np.count_nonzero(host))
    else:
        ref = int(B.cupy.count_nonzero(d))
    assert int(B.download(r)) == ref == int(np.count_nonzero(host))


def test_masks_all_true_and_all_false(B):
    for n in (1, 1000, (1 << 20) + 3):
        for value in (True, False):
            d = upload(B, np.full(n, value), "bool")
            expected = n if value else 0
            assert int(B.download(warpkit.sum(d))) == expected
            assert int(B.download(warpkit.count_nonzero(d))) == expected
            cs = B.download(warpkit.cumsum(d))
            assert cs.dtype == np.int64 and int(cs[-1]) == expected
            assert_equal(cs, np.arange(1, n + 1) if value else np.zeros(n, np.int64), "cumsum of a constant mask")
            assert bool(B.download(warpkit.max(d))) == value and bool(B.download(warpkit.min(d))) == value


def test_int32_sum_past_int32(B, request):
    """An int32 sum that overflows int32 is exact in the int64 result."""
    rng = rng_for(request)
    host = rng.integers((1 << 31) - 1000, (1 << 31), 1 << 16).astype(np.int32)
    d = upload(B, host, "int32")
    exact = int(host.astype(np.int64).sum())
    assert exact > (1 << 40)
    r = warpkit.sum(d)
    assert result_dtype(r) == "int64" and int(B.download(r)) == exact
    assert int(B.download(warpkit.cumsum(d))[-1]) == exact
    neg = upload(B, -host, "int32")
    assert int(B.download(warpkit.sum(neg))) == -exact


@pytest.mark.parametrize("k", [1, 2, 3])
def test_unaligned_uint8(B, k, request):
    """x[k:] of a uint8 array: a pointer off every wider alignment."""
    host = random_int(rng_for(request), "uint8", 100003)
    d = upload(B, host, "uint8")[k:]
    h = host[k:]
    rule = rule_dtype(B, "uint8")
    r = warpkit.sum(d)
    assert result_dtype(r) == rule and int(B.download(r)) == int(h.sum(dtype=np.int64))
    assert_equal(B.download(warpkit.cumsum(d)), np.cumsum(h, dtype=np.dtype(rule)), "cumsum of x[%d:]" % k)
    assert int(B.download(warpkit.count_nonzero(d))) == int(np.count_nonzero(h))
    assert int(B.download(warpkit.max(d))) == int(h.max())


# ---------------------------------------------------------- along an axis
@pytest.mark.parametrize("name", ["uint8", "bool"])
def test_sum_and_cumsum_along_the_last_axis(B, name, request):
    host = random_int(rng_for(request), name, (37, 1001))
    d = upload(B, host, name)
    rule = rule_dtype(B, name)
    r = warpkit.sum(d, axis=-1)
    assert result_dtype(r) == rule and tuple(r.shape) == (37,)
    ref = reference(B, lambda x: x.sum(-1), lambda x: x.sum(axis=-1), lambda h: h.sum(axis=-1, dtype=np.int64),
                    d, host, rule)
    check(B, r, ref, "sum along the last axis of %s" % name)
    out = poisoned(B, (37,), rule)
    assert warpkit.sum(d, axis=-1, out=out) is out
    check(B, out, ref, "sum along the last axis into out")
    c = warpkit.cumsum(d, axis=-1)
    assert result_dtype(c) == rule and tuple(c.shape) == (37, 1001)
    ref = reference(B, lambda x: B.torch.cumsum(x, -1), lambda x: B.cupy.cumsum(x, axis=-1),
                    lambda h: np.cumsum(h, axis=-1, dtype=np.int64), d, host, rule)
    check(B, c, ref, "cumsum along the last axis of %s" % name)
    cnt = warpkit.count_nonzero(d, axis=-1)
    assert result_dtype(cnt) == "int64"
    assert_equal(B.download(cnt), np.count_nonzero(host, axis=-1).astype(np.int64), "count_nonzero along the axis")
    # a column slice: rows apart
    v = d[:, 3:500]
    assert_equal(B.download(warpkit.sum(v, axis=-1)), host[:, 3:500].sum(axis=-1, dtype=np.dtype(rule)),
                 "sum of a column slice")


# ------------------------------------------------------- min, max, argmax
@pytest.mark.parametrize("n", [1, 7, 1000, (1 << 20) + 3])
@pytest.mark.parametrize("name", ["int8", "int16"] + ["uint8", "uint16", "bool"])
def test_min_max_argmax(B, name, n, request):
    host = random_int(rng_for(request), name, n)
    d = upload(B, host, name)
    for op in ("min", "max", "argmax", "argmin"):
        r = getattr(warpkit, op)(d)
        try:
            ref = getattr(d, op)()
            B.sync()
            ref_values = B.download(ref)
            assert result_dtype(r) == str(ref.dtype).rsplit(".", 1)[-1], op
        except _NO_KERNEL:
            ref_values = getattr(np, op)(host)
        assert_equal(B.download(r), ref_values, "%s of %d %s" % (op, n, name))
    value, idx = warpkit.argmax(d, return_value=True)
    assert int(B.download(idx)) == int(np.argmax(host)) and B.download(value) == host.max()
    mx = warpkit.max(d.reshape(1, n) if B.name == "cupy" else d.view(1, n), axis=-1)
    assert_equal(B.download(mx), host.max(keepdims=True), "max along the last axis")


# ------------------------------------------------------------------- large
def test_bool_mask_past_2_31(B):
    """A bool mask of 2^31 + 5 elements (2 GiB): its count needs more than
    int32.  Only with WK_TEST_LARGE=1."""
    if os.environ.get("WK_TEST_LARGE") != "1":
        pytest.skip("WK_TEST_LARGE=1 runs the 2 GiB mask")
    n = (1 << 31) + 5
    if B.name == "torch":
        d = B.torch.ones(n, dtype=B.torch.bool, device="cuda")
    else:
        d = B.cupy.ones(n, dtype=bool)
    falses = [0, 12345, n // 2, n - 1]
    for i in falses:
        d[i] = False
    expected = n - len(falses)
    r = warpkit.sum(d)
    assert result_dtype(r) == "int64" and int(B.download(r)) == expected
    assert int(B.download(warpkit.count_nonzero(d))) == expected
    assert int(B.download(warpkit.argmin(d))) == 0
    del d
