"""GPU tests of sums and scans taken in parts: warpkit.repro_partial and
warpkit.repro_finalize (the partials of a reproducible sum) and the prefix=
of cumsum, cummin, cummax and scan (a scan continued from a carried value),
for PyTorch and CuPy inputs.  Skipped without torch / CuPy or without a
CUDA device.

Every input is cut in at least 10 ways (the whole, chunks of one element,
empty chunks first, inside and last, random cuts, fixed and growing sizes,
cuts at odd offsets and next to scan tile boundaries):
  - the partials of the chunks, gathered by concatenation or written
    through out= into the rows of a poisoned (k, 64) uint8 array (and in
    reversed order), finish to the same bits as warpkit.sum(x,
    reproducible=True), which is itself within the documented bound of the
    exact sum (math.fsum);
  - scans chained chunk by chunk (each chunk continued from the previous
    chunk's last inclusive output) give the bits of warpkit's scan of the
    whole for integers and min / max, and float sums within the documented
    error bound (include/warpkit.h: i / tile + 66 roundings per call, one
    more for the prefix), added over the chunks, of a long double reference.
Inputs are fresh each run (seed printed as WK_SEED; set it to reproduce)."""

import math

import pytest

np = pytest.importorskip("numpy", reason="the GPU tests need NumPy")

import warpkit  # noqa: E402
from gpu_util import (EPS_ACC, FLOATS, INTS, ITEMSIZE, assert_close, assert_equal, host_np_dtype,  # noqa: E402
                      identity, poison, random_host, rng_for)

PARTIAL = 64  # bytes of a wk_repro_partial
SIZES = [0, 1, 7, 1000, 65537, (1 << 20) + 3]
NAMED = {"sum": warpkit.cumsum, "min": warpkit.cummin, "max": warpkit.cummax}
UFUNC = {"sum": np.add, "min": np.minimum, "max": np.maximum}
FEW = 64  # chunks of one element at each end of a large input


# ----------------------------------------------------------------- helpers
def chunkings(n, rng):
    """At least 10 ways to cut range(n) into consecutive chunks, as lists of
    (start, stop); a few hundred chunks at most."""
    def cut(points):
        pts = sorted(min(max(int(p), 0), n) for p in points)
        pts = [0] + pts + [n]
        return list(zip(pts[:-1], pts[1:]))

    ones = list(range(1, n)) if n <= 2 * FEW else list(range(1, FEW)) + list(range(n - FEW, n))
    tile = 4096  # elements of a 16 KiB f32 scan tile: cuts next to its multiples
    step = max(4099, n // 64)
    ways = {
        "whole": cut([]),
        "ones": cut(ones),
        "empty-first-inside-last": cut([0, 0, n // 3, n // 3, n // 3, n, n]),
        "halves": cut([n // 2]),
        "one-then-rest": cut([1]),
        "rest-then-one": cut([n - 1]),
        "random-5": cut(rng.integers(0, n + 1, 4)),
        "random-33": cut(rng.integers(0, n + 1, 32)),
        "fixed-odd": cut(range(step, n, step)),
        "growing": cut([2 ** k - 1 for k in range(1, max(n, 1).bit_length() + 1)]),
        "odd-offsets": cut([3, 8, 8, 13, 1001, 1002]),
        "tile-edges": cut([t + d for t in range(tile, min(n, 16 * tile), tile) for d in (-1, 1)]),
        "ones-and-empties-then-rest": cut([0, 1, 1, 2, 2, 3, 3, 3]),
    }
    for name, w in ways.items():
        assert sum(e - s for s, e in w) == n and all(s <= e for s, e in w), (name, w)
    return ways


def lib_dtype(B, name):
    if B.name == "torch":
        return B.dtype(name)
    return B.cupy.dtype(name)


def result_dtype(r):
    return str(r.dtype).rsplit(".", 1)[-1]


def raw(B, a):
    """The bytes of a device array (its raw bits, bfloat16 included)."""
    if B.name == "torch":
        if a.numel() == 0:
            return b""  # an empty tensor may have stride 0, which view() refuses
        return a.reshape(-1).contiguous().view(B.torch.uint8).cpu().numpy().tobytes()
    return B.cupy.ascontiguousarray(a.reshape(-1)).view(B.cupy.uint8).get().tobytes()


def concat(B, parts):
    if B.name == "torch":
        return B.torch.cat(parts)
    return B.cupy.concatenate(parts)


def reversed_rows(B, parts):
    """The k partials of parts (64 k bytes) in the opposite order."""
    rows = parts.reshape(-1, PARTIAL)
    if B.name == "torch":
        return rows.flip(0).contiguous()
    return B.cupy.ascontiguousarray(rows[::-1])


def float_values(rng, name, n):
    """Random floats of many magnitudes and both signs (float32 for bfloat16);
    16-bit dtypes within [-1, 1) (their sums stay finite)."""
    dt = host_np_dtype(name)
    if name in ("float16", "bfloat16"):
        return (rng.random(n) * 2 - 1).astype(dt)
    return ((rng.random(n) * 2 - 1) * np.exp2(rng.integers(-30, 30, n))).astype(dt)


def within_the_repro_bound(got, ref_host, name):
    """|got - exact| <= half an ulp of got + n 2^-80 max|x| (include/warpkit.h),
    the exact sum being math.fsum's (itself rounded to double: half an ulp
    of it more)."""
    x = ref_host.astype(np.float64)
    exact = math.fsum(x.tolist())
    g = float(got)
    if name == "bfloat16":
        half_ulp = float(np.spacing(np.float32(abs(g)))) * 2.0 ** 16 / 2
    else:
        half_ulp = float(np.spacing(np.abs(np.asarray(g, dtype=np.dtype(name))))) / 2
    bound = (half_ulp + float(np.spacing(abs(exact))) / 2
             + x.size * 2.0 ** -80 * (float(np.max(np.abs(x))) if x.size else 0.0))
    assert abs(g - exact) <= bound, "reproducible sum %r, exact %r, bound %g" % (g, exact, bound)


def gather(B, d, ways, how):
    """The partials of d's chunks as one uint8 device array: made one by one
    and concatenated ("concat"), or written through out= into the rows of a
    poisoned (k, 64) array ("rows")."""
    if how == "rows":
        buf, _ = B.upload(np.full((len(ways), PARTIAL), 0xA5, np.uint8), "uint8")
        for i, (s, e) in enumerate(ways):
            row = buf[i]
            assert warpkit.repro_partial(d[s:e], out=row) is row
        return buf
    parts = []
    for s, e in ways:
        p = warpkit.repro_partial(d[s:e])
        assert B.is_mine(p) and tuple(p.shape) == (PARTIAL,) and result_dtype(p) == "uint8"
        parts.append(p)
    return concat(B, parts)


# ------------------------------------------------------- reproducible sums
@pytest.mark.parametrize("how", ["concat", "rows"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", FLOATS)
def test_partials_finish_to_the_reproducible_sum(B, name, n, how, request):
    rng = rng_for(request)
    host = float_values(rng, name, n)
    d, ref_host = B.upload(host, name)
    whole = warpkit.sum(d, reproducible=True)
    bits = raw(B, whole)
    within_the_repro_bound(B.download(whole), ref_host, name)
    ways = chunkings(n, rng)
    assert len(ways) >= 10
    for i, (label, w) in enumerate(ways.items()):
        parts = gather(B, d, w, how)
        dtype = name if i % 2 else lib_dtype(B, name)  # a name, or the library's dtype object
        r = warpkit.repro_finalize(parts, dtype)
        assert B.is_mine(r) and tuple(r.shape) == () and result_dtype(r) == name, (label, r)
        assert raw(B, r) == bits, "%s of %d, chunking %s: %r, whole %r" % (
            name, n, label, B.download(r), B.download(whole))
        if len(w) > 1:
            again = warpkit.repro_finalize(reversed_rows(B, parts), name)
            assert raw(B, again) == bits, "chunking %s, partials reversed" % label
    # the partial of the whole, finished into a poisoned out=
    out, _ = B.upload(poison(name, 1).reshape(()), name)
    assert warpkit.repro_finalize(warpkit.repro_partial(d), name, out=out) is out
    assert raw(B, out) == bits


@pytest.mark.parametrize("name", FLOATS)
def test_partials_of_a_shuffled_input(B, name, request):
    """The chunks' values shuffled, the partials of other chunks: the same
    bits."""
    rng = rng_for(request)
    host = float_values(rng, name, 300001)
    d, _ = B.upload(host, name)
    bits = raw(B, warpkit.sum(d, reproducible=True))
    s, _ = B.upload(rng.permutation(host), name)
    ways = chunkings(host.size, rng)["random-33"]
    assert raw(B, warpkit.repro_finalize(gather(B, s, ways, "rows"), name)) == bits


@pytest.mark.parametrize("name", FLOATS)
def test_no_partial_and_empty_parts_give_plus_zero(B, name):
    if name == "bfloat16" and B.name == "cupy":
        pytest.skip("CuPy has no bfloat16")
    zero = np.zeros((), host_np_dtype(name)).tobytes()[:ITEMSIZE[name]]
    for shape in ((0,), (0, PARTIAL)):
        empty, _ = B.upload(np.zeros(shape, np.uint8), "uint8")
        r = warpkit.repro_finalize(empty, name)
        assert tuple(r.shape) == () and result_dtype(r) == name and raw(B, r) == zero
        out, _ = B.upload(np.array(-0.0, host_np_dtype(name)), name)
        assert warpkit.repro_finalize(empty, name, out=out) is out and raw(B, out) == zero
    x, _ = B.upload(np.zeros(0, host_np_dtype(name)), name)
    parts = concat(B, [warpkit.repro_partial(x) for _ in range(3)])
    assert raw(B, warpkit.repro_finalize(parts, name)) == zero


@pytest.mark.parametrize("case", ["negative-zeros", "nan", "inf", "both-infs", "overflow"])
@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_special_values_through_partials(B, name, case, request):
    """-0.0 (every element -0.0, with empty chunks among them), NaN, an
    infinity, both infinities and overflow of the total: the partials finish
    to the reproducible sum's bits in every chunking."""
    rng = rng_for(request)
    n = 5003
    dt = np.dtype(name)
    host = float_values(rng, name, n)
    if case == "negative-zeros":
        host = np.full(n, -0.0, dt)
    elif case == "nan":
        host[2500] = np.nan
    elif case == "inf":
        host[7] = np.inf
    elif case == "both-infs":
        host[7], host[4000] = np.inf, -np.inf
    else:
        host = np.full(n, np.finfo(dt).max, dt) * np.where(rng.random(n) < 0.1, -0.5, 1).astype(dt)
    d, _ = B.upload(host, name)
    whole = warpkit.sum(d, reproducible=True)
    bits = raw(B, whole)
    v = float(B.download(whole))
    expected = {"negative-zeros": lambda: v == 0 and math.copysign(1, v) < 0, "nan": lambda: math.isnan(v),
                "inf": lambda: v == math.inf, "both-infs": lambda: math.isnan(v),
                "overflow": lambda: v == math.inf}[case]
    assert expected(), "reproducible sum of %s: %r" % (case, v)
    for label, w in chunkings(n, rng).items():
        got = warpkit.repro_finalize(gather(B, d, w, "concat"), name)
        assert raw(B, got) == bits, "%s, chunking %s: %r, whole %r" % (case, label, float(B.download(got)), v)


# -------------------------------------------------------------- prefix scans
def initial_value(name, op):
    if name in INTS:
        return {"sum": 3, "min": 2, "max": -2 if name.startswith("int") else 2}[op]
    return {"sum": 0.5, "min": 0.25, "max": -0.25}[op]


def scan_chunks(B, d, name, op, exclusive, initial, ways, style):
    """d scanned chunk by chunk, each chunk continued (prefix=) from the
    previous one's last inclusive output.  style: the first chunk without a
    prefix and each chunk's output new ("new"), or from a 1-element identity
    and written into a slice of one poisoned output ("into-slices"),
    or through warpkit.scan ("scan"). Returns the output, downloaded."""
    n = d.shape[0]
    carry = None
    if style != "new":
        carry, _ = B.upload(np.array([identity(op, name)]).astype(host_np_dtype(name)), name)
    whole_out, _ = B.upload(poison(name, n), name)
    pieces = []
    for s, e in ways:
        out = whole_out[s:e] if style == "into-slices" else None
        if op == "sum" and out is None:
            out, _ = B.upload(poison(name, e - s), name)  # in the input's dtype (no widening)
        kw = {"exclusive": exclusive, "initial": initial, "prefix": carry, "out": out}
        r = warpkit.scan(d[s:e], op, **kw) if style == "scan" else NAMED[op](d[s:e], **kw)
        assert out is None or r is out
        assert tuple(r.shape) == (e - s,) and result_dtype(r) == name
        pieces.append(r)
        if exclusive:  # the carry: the inclusive scan of the chunk, continued
            inc, _ = B.upload(poison(name, e - s), name)
            warpkit.scan(d[s:e], op, prefix=carry, out=inc)
        else:
            inc = r
        if e > s:
            carry = inc[-1:]
    if style == "into-slices":
        return whole_out
    return concat(B, pieces) if pieces else whole_out


def chained_tolerance(host, name, ways, init=0.0):
    """The bound of include/warpkit.h on each call (i / tile + 66
    roundings of sum |x_j|, one more for the prefix and one for init),
    each chunk's added to the carry's it starts from."""
    tile = 16384 // ITEMSIZE[name]
    abs_prefix = np.cumsum(np.abs(host.astype(np.float64))) + abs(init)
    rounds = np.zeros(host.size)
    before = 0.0
    for s, e in ways:
        rounds[s:e] = before + np.arange(e - s) / tile + 68
        if e > s:
            before = rounds[e - 1]
    return rounds * EPS_ACC[name] * abs_prefix * 1.001 + 1e-300


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", INTS + FLOATS)
@pytest.mark.parametrize("mode", ["inclusive", "exclusive", "exclusive-initial"])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_chained_prefix_scans(B, op, mode, name, n, request):
    if op == "sum" and name in ("float16", "bfloat16"):
        pytest.skip("16-bit float sums round the carried prefix to the dtype: not chained here")
    rng = rng_for(request)
    host = random_host(rng, name, n, "wide")
    if name in FLOATS and op != "sum" and n >= 7:
        host[n // 2] = np.nan  # carried through the prefixes: NaN from there on
    d, ref_host = B.upload(host, name)
    exclusive = mode != "inclusive"
    initial = initial_value(name, op) if mode == "exclusive-initial" else None
    out, _ = B.upload(poison(name, n), name)
    whole = warpkit.scan(d, op, exclusive=exclusive, initial=initial, out=out)
    whole_bits = raw(B, whole)
    init = identity(op, name) if initial is None else initial
    seq = ref_host
    if exclusive and n:
        seq = np.concatenate([np.array([init]).astype(ref_host.dtype), ref_host[:-1]])
    if op != "sum" or name in INTS:
        ref = UFUNC[op].accumulate(seq, dtype=seq.dtype) if n else seq
        assert_equal(B.download(whole), ref, "whole %s scan" % op)
    styles = ["new", "into-slices", "scan"]
    for i, (label, w) in enumerate(chunkings(n, rng).items()):
        style = styles[i % 3]
        got = scan_chunks(B, d, name, op, exclusive, initial, w, style)
        what = "%s %s of %d %s, chunking %s (%s)" % (mode, op, n, name, label, style)
        if op != "sum" or name in INTS:
            assert raw(B, got) == whole_bits, what + ": other bits than the whole scan's"
        else:
            ref = np.cumsum(seq.astype(np.longdouble))
            tol = chained_tolerance(ref_host, name, w, init=init if exclusive else 0.0)
            assert_close(B.download(got), ref, tol, what)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["int32", "uint8", "bool"])
@pytest.mark.parametrize("exclusive", [False, True])
def test_chained_widening_cumsum(B, name, exclusive, n, request):
    """An integer cumsum into the library's rule's dtype (int64 for int32
    under PyTorch's and NumPy's rules), each chunk continued from a prefix of
    that dtype: the library's own cumsum of the whole."""
    rng = rng_for(request)
    info = np.iinfo(np.int32)
    if name == "bool":
        host = rng.random(n) < 0.5
    elif name == "int32":
        host = rng.integers(info.min, info.max, n, dtype=np.int32, endpoint=True)
    else:
        host = rng.integers(0, 256, n).astype(np.uint8)
    d, _ = B.upload(host, name)
    whole = warpkit.cumsum(d)
    rule = result_dtype(whole)
    if name == "int32" or B.name == "torch":
        assert rule == "int64"
    own = B.torch.cumsum(d, 0) if B.name == "torch" else B.cupy.cumsum(d)
    assert result_dtype(own) == rule
    own = B.download(own)
    rdt = np.dtype(rule)
    ref = np.cumsum(host, dtype=rdt)
    assert_equal(own, ref, "the library's cumsum")
    initial = 5 if exclusive else None
    if exclusive:
        ref = np.concatenate([np.zeros(1, rdt), ref[:-1]])[:n] + rdt.type(initial)
    for label, w in chunkings(n, rng).items():
        carry, _ = B.upload(np.zeros(1, rdt), rule)
        pieces = []
        for s, e in w:
            r = warpkit.cumsum(d[s:e], exclusive=exclusive, initial=initial, prefix=carry)
            assert result_dtype(r) == rule and tuple(r.shape) == (e - s,)
            pieces.append(r)
            inc = warpkit.cumsum(d[s:e], prefix=carry) if exclusive else r
            if e > s:
                carry = inc[-1:]
        got = B.download(concat(B, pieces))
        assert_equal(got, ref, "chained %s cumsum of %d %s, chunking %s" % (
            "exclusive" if exclusive else "inclusive", n, name, label))
        if not exclusive:
            assert_equal(got, own, "chunking %s: the library's cumsum" % label)


def test_prefix_errors_on_the_gpu(B):
    d, _ = B.upload(np.arange(10, dtype=np.float32), "float32")
    p64, _ = B.upload(np.zeros(1, np.float64), "float64")
    two, _ = B.upload(np.zeros(2, np.float32), "float32")
    with pytest.raises(TypeError, match="prefix has dtype float64; the scan's result is float32"):
        warpkit.cumsum(d, prefix=p64)
    with pytest.raises(ValueError, match="prefix has 2 elements"):
        warpkit.cummax(d, prefix=two)
    with pytest.raises(ValueError, match="prefix= continues a flat scan"):
        warpkit.cummin(d.reshape(2, 5), axis=-1, prefix=two[:1])
    i, _ = B.upload(np.arange(10, dtype=np.int32), "int32")
    with pytest.raises(TypeError, match="reproducible partials are of float dtypes"):
        warpkit.repro_partial(i)
    with pytest.raises(TypeError, match="partials has dtype float32"):
        warpkit.repro_finalize(two, "float32")
    bytes65, _ = B.upload(np.zeros(65, np.uint8), "uint8")
    with pytest.raises(ValueError, match="65 bytes"):
        warpkit.repro_finalize(bytes65, "float32")
