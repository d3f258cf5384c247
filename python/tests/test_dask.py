"""CPU tests of warpkit.dask: the graphs it builds (chunk, combine and
aggregate steps; chained scans; selects of unknown chunk sizes), computed by
Dask on NumPy chunks with a NumPy stand-in for the warpkit calls each task
makes (`warpkit.dask._wk`).  What the GPU does in those calls is
test_gpu_dask.py's."""

import math

import pytest

np = pytest.importorskip("numpy")
da = pytest.importorskip("dask.array", reason="warpkit.dask needs dask[array]")
import dask  # noqa: E402

import warpkit.dask as wkd  # noqa: E402

PARTIAL = 64


def rule(dtype):
    """NumPy's dtype of a sum (CuPy's chunks follow it)."""
    return np.zeros(0, dtype).sum().dtype


class Standin:
    """The warpkit calls warpkit.dask makes, on NumPy arrays; each call is
    counted by name.  A partial holds its part's sum as a float64 (exact
    for the values these tests draw) and its length."""

    def __init__(self):
        self.calls = []

    def _log(self, name):
        self.calls.append(name)

    def repro_partial(self, x):
        self._log("repro_partial")
        assert x.dtype.kind == "f"
        p = np.zeros(PARTIAL, np.uint8)
        p[:8] = np.frombuffer(np.float64(x.astype(np.float64).sum()).tobytes(), np.uint8)
        p[8:16] = np.frombuffer(np.int64(x.size).tobytes(), np.uint8)
        return p

    def repro_finalize(self, partials, dtype):
        self._log("repro_finalize")
        assert partials.dtype == np.uint8 and partials.size % PARTIAL == 0
        rows = partials.reshape(-1, PARTIAL)
        total = np.float64(0.0)
        for r in rows:
            total += np.frombuffer(r[:8].tobytes(), np.float64)[0]
        self.finalized_lengths = int(sum(np.frombuffer(r[8:16].tobytes(), np.int64)[0] for r in rows))
        return np.asarray(total, dtype=dtype)

    def sum(self, x, axis=None, reproducible=False):
        self._log("sum")
        return np.asarray(np.sum(x, axis=axis, dtype=rule(x.dtype)))

    def _extreme(self, name, ufunc, x, axis):
        """As warpkit's: an empty input gives the op's identity."""
        self._log(name)
        big = np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max
        ident = np.asarray(big if ufunc is np.minimum else -big if x.dtype.kind == "f" else np.iinfo(x.dtype).min,
                           x.dtype)
        return np.asarray(ufunc.reduce(x, axis=axis, initial=ident[()]), x.dtype)

    def min(self, x, axis=None):
        return self._extreme("min", np.minimum, x, axis)

    def max(self, x, axis=None):
        return self._extreme("max", np.maximum, x, axis)

    def _scan(self, name, ufunc, x, prefix, axis, dtype):
        self._log(name)
        y = ufunc.accumulate(x.astype(dtype), axis=-1 if axis is not None else 0)
        if prefix is not None:
            assert prefix.shape == (1,) and prefix.dtype == dtype, (prefix.shape, prefix.dtype)
            y = ufunc(prefix[0], y).astype(dtype)
        return y

    def cumsum(self, x, prefix=None, axis=None):
        return self._scan("cumsum", np.add, x, prefix, axis, rule(x.dtype))

    def cummin(self, x, prefix=None, axis=None):
        return self._scan("cummin", np.minimum, x, prefix, axis, x.dtype)

    def cummax(self, x, prefix=None, axis=None):
        return self._scan("cummax", np.maximum, x, prefix, axis, x.dtype)

    def _room(self, kept, dtype, n):
        out = np.full(n, 99, dtype)  # poison past the count
        out[:kept.size] = kept
        return out, np.asarray(kept.size, np.int64)

    def select(self, x, op, value):
        self._log("select")
        assert op == ">"
        return self._room(x[x > value], x.dtype, x.size)

    def compress(self, mask, x):
        self._log("compress")
        return self._room(x[mask.astype(bool)], x.dtype, x.size)

    def nonzero(self, x, op, value):
        self._log("nonzero")
        keep = {"!=": np.not_equal, ">": np.greater}[op](x, value)
        return self._room(np.flatnonzero(keep).astype(np.int64), np.int64, x.size)

    def trim(self, out, count):
        self._log("trim")
        return out[:int(count)]


@pytest.fixture
def wk(monkeypatch):
    s = Standin()
    monkeypatch.setattr(wkd, "_wk", s)
    return s


@pytest.fixture
def rng(request):
    seed = np.random.SeedSequence().entropy % (1 << 32)
    print("seed %d (%s)" % (seed, request.node.name))
    return np.random.default_rng(seed)


def chunkings(n):
    """Eleven ways to cut n elements, empty chunks and chunks of one among them."""
    third = max(n // 3, 1)
    cuts = [(n,), (1,) * n, (0, n), (n, 0), (third, 0, n - third), (0, 1, n - 1, 0)]
    for size in (2, 3, 7, 64, max(n // 2, 1)):
        full, rest = divmod(n, size)
        cuts.append((size,) * full + ((rest,) if rest else ()))
    return [c for c in cuts if sum(c) == n and min(c) >= 0]


def quarters(rng, n, dtype):
    return (rng.integers(-40, 41, n) * 0.25).astype(dtype)  # sums of these are exact


# ---------------------------------------------------------------- sums
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reproducible_sum_is_one_rounding_of_every_chunk(wk, rng, dtype):
    n = 301
    x = quarters(rng, n, dtype)
    want = np.asarray(x.astype(np.float64).sum(), dtype)
    seen = set()
    cuts = chunkings(n)
    assert len(cuts) >= 10
    for chunks in cuts:
        for split_every in (None, 2, 3):
            d = da.from_array(x, chunks=(chunks,))
            wk.calls.clear()
            s = wkd.sum(d, reproducible=True, split_every=split_every)
            assert wk.calls == []  # lazy
            assert s.shape == () and s.dtype == np.dtype(dtype)
            got = s.compute(scheduler="sync")
            assert wk.calls.count("repro_partial") == len(chunks)  # every chunk once
            assert wk.calls.count("repro_finalize") == 1  # one rounding
            assert wk.finalized_lengths == n
            assert got.dtype == np.dtype(dtype) and got.tobytes() == want.tobytes()
            seen.add(got.tobytes())
    assert len(seen) == 1


def test_reproducible_sum_with_threads_and_shapes(wk, rng):
    x = quarters(rng, (6, 50), "float32")
    d = da.from_array(x, chunks=(2, 7))
    got = wkd.sum(d, reproducible=True).compute(scheduler="threads")
    assert got.tobytes() == np.asarray(x.astype(np.float64).sum(), np.float32).tobytes()


def test_reproducible_sum_refuses_integers(wk):
    with pytest.raises(TypeError, match="float"):
        wkd.sum(da.ones(10, dtype=np.int32, chunks=3), reproducible=True)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool", "float64"])
def test_sum_min_max(wk, rng, dtype):
    x = (rng.integers(0, 2, 257) if dtype == "bool" else rng.integers(-100, 100, 257)).astype(dtype)
    for chunks in chunkings(x.size):
        d = da.from_array(x, chunks=(chunks,))
        s = wkd.sum(d, split_every=2)
        assert s.dtype == rule(x.dtype)
        got = s.compute(scheduler="sync")
        assert got == x.sum() and got.dtype == rule(x.dtype)
        if dtype != "bool":
            assert wkd.min(d).compute(scheduler="sync") == x.min()
            assert wkd.max(d).compute(scheduler="sync") == x.max()


def test_rows(wk, rng):
    x = quarters(rng, (9, 13), "float64")
    d = da.from_array(x, chunks=(4, 13))
    np.testing.assert_array_equal(wkd.sum(d, axis=-1).compute(scheduler="sync"), x.sum(axis=-1))
    np.testing.assert_array_equal(wkd.max(d, axis=1).compute(scheduler="sync"), x.max(axis=-1))
    np.testing.assert_array_equal(wkd.cumsum(d, axis=-1).compute(scheduler="sync"), np.cumsum(x, axis=-1))
    with pytest.raises(ValueError, match="whole rows"):
        wkd.sum(da.from_array(x, chunks=(4, 5)), axis=-1)
    with pytest.raises(ValueError, match="axis"):
        wkd.sum(d, axis=0)


# --------------------------------------------------------------- scans
@pytest.mark.parametrize("name,ref", [("cumsum", np.add), ("cummin", np.minimum), ("cummax", np.maximum)])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float64"])
def test_scans_carry_from_chunk_to_chunk(wk, rng, name, ref, dtype):
    x = rng.integers(-1000, 1000, 203).astype(dtype)
    out_dtype = rule(x.dtype) if name == "cumsum" else x.dtype
    want = ref.accumulate(x.astype(out_dtype))
    for chunks in chunkings(x.size):
        d = da.from_array(x, chunks=(chunks,))
        wk.calls.clear()
        y = getattr(wkd, name)(d)
        assert wk.calls == []
        assert y.chunks == d.chunks and y.dtype == out_dtype
        got = y.compute(scheduler="sync")
        assert wk.calls.count(name) == len(chunks)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == out_dtype


def test_mask_cumsum_of_a_2d_array(wk, rng):
    m = rng.integers(0, 2, (5, 40)).astype(bool)
    got = wkd.cumsum(da.from_array(m, chunks=(2, 9))).compute(scheduler="threads")
    np.testing.assert_array_equal(got, np.cumsum(m.reshape(-1)))
    assert got.dtype == np.int64


# ------------------------------------------------------------- selects
def test_selects_have_unknown_chunks(wk, rng):
    x = rng.random(500)
    m = rng.integers(0, 2, 500).astype(np.uint8)
    for chunks in chunkings(x.size):
        d, dm = da.from_array(x, chunks=(chunks,)), da.from_array(m, chunks=(chunks,))
        for got, want in ((wkd.select(d, ">", 0.5), x[x > 0.5]), (wkd.compress(dm, d), x[m.astype(bool)]),
                          (wkd.nonzero(dm), np.flatnonzero(m))):
            assert len(got.chunks[0]) == len(chunks)
            assert all(math.isnan(c) for c in got.chunks[0])
            np.testing.assert_array_equal(got.compute(scheduler="sync"), want)


def test_compress_rechunks_the_mask(wk, rng):
    x = rng.random(100)
    m = rng.integers(0, 2, 100).astype(bool)
    got = wkd.compress(da.from_array(m, chunks=30), da.from_array(x, chunks=17))
    np.testing.assert_array_equal(got.compute(scheduler="sync"), x[m])


# ------------------------------------------------------ graphs, metadata
def test_building_calls_nothing(wk, rng):
    x = da.from_array(rng.random((6, 40)), chunks=(2, 40))
    m = da.from_array(rng.integers(0, 2, 240).astype(bool), chunks=50)
    built = [wkd.sum(x), wkd.sum(x, reproducible=True), wkd.sum(x, axis=-1), wkd.min(x), wkd.max(x, axis=-1),
             wkd.cumsum(x), wkd.cummax(x, axis=-1), wkd.select(x, ">", 0.5), wkd.compress(m, x), wkd.nonzero(m)]
    assert wk.calls == []
    for b in built:
        b.compute(scheduler="sync")
    assert wk.calls


def test_results_are_0d_as_dask_sums_are(wk, rng):
    x = quarters(rng, 100, "float64")
    d = da.from_array(x, chunks=9)
    for s in (wkd.sum(d), wkd.sum(d, reproducible=True), wkd.min(d)):
        assert s.ndim == 0 and s._meta.ndim == 0
    both = da.stack([wkd.sum(d), wkd.sum(d, reproducible=True)]).compute(scheduler="sync")
    np.testing.assert_array_equal(both, [x.sum(), x.sum()])


def test_row_sums_declare_the_dtype_they_make(wk, rng):
    for dtype, want in (("int32", np.int64), ("uint8", np.uint64), ("bool", np.int64), ("float32", np.float32)):
        x = da.from_array(rng.integers(0, 2, (4, 10)).astype(dtype), chunks=(2, 10))
        s = wkd.sum(x, axis=-1)
        assert s.dtype == want and s.compute(scheduler="sync").dtype == want
    with pytest.raises(TypeError, match="float"):
        wkd.sum(da.ones((4, 10), dtype=np.int32, chunks=(2, 10)), axis=-1, reproducible=True)


def _own_tasks(a):
    """The tasks of a's own layer (its graph less its inputs'), less a
    reduction's key for its chunk function."""
    return {k: v for k, v in a.__dask_graph__().layers[a.name].items() if not k[0].endswith("-fn")}


@pytest.mark.parametrize("chunks,split_every,levels", [(16, None, [16, 1]), (64, None, [64, 1]),
                                                       (100, None, [100, 2, 1]), (16, 4, [16, 4, 1]),
                                                       (16, {0: 3}, [16, 6, 2, 1]), (1, None, [1, 1])])
def test_reductions_gather_many_results_a_task(wk, rng, chunks, split_every, levels):
    """One aggregate over up to 64 chunk results (split_every's default),
    a tree of groups of split_every past that."""
    x = quarters(rng, chunks * 3, "float64")
    d = da.from_array(x, chunks=3)
    for s in (wkd.sum(d, split_every=split_every), wkd.sum(d, reproducible=True, split_every=split_every),
              wkd.max(d, split_every=split_every)):
        tasks = _own_tasks(s)
        assert len(tasks) == sum(levels), (len(tasks), levels)
        assert s.compute(scheduler="sync") == (x.max() if "max" in s.name else x.sum())



def test_split_every_follows_dask_conventions(wk, rng):
    """0 means the default; Dask's setting is the default where set; a dict
    by axis combines the product of its values a task over the flat input."""
    x = quarters(rng, 48, "float64")
    d = da.from_array(x, chunks=3)  # 16 chunks
    assert len(_own_tasks(wkd.sum(d, split_every=0))) == 17
    with dask.config.set(split_every=4):
        assert len(_own_tasks(wkd.sum(d))) == 16 + 4 + 1
        assert len(_own_tasks(wkd.sum(d, split_every=16))) == 17
    d2 = da.from_array(x.reshape(4, 12), chunks=(2, 6))  # 4 chunks, 2 x 2
    s = wkd.sum(d2, split_every={0: 2, 1: 1})
    assert len(_own_tasks(s)) == 4 + 2 + 1
    assert s.compute(scheduler="sync") == x.sum()


def test_chunk_tasks_stay_apart_from_the_tasks_making_their_chunks(wk, rng):
    """After Dask's optimization each chunk task still reads its chunk from
    the input's own key: Dask has not fused the two into a small graph
    (which it would order anew on every run)."""
    x = quarters(rng, 48, "float32")
    for d, values in ((da.from_array(x, chunks=3), x), (da.from_array(x, chunks=3) * 2, x * 2)):  # data, tasks
        for s, want in ((wkd.sum(d), values.sum()), (wkd.sum(d, reproducible=True), values.sum()),
                        (wkd.min(d), values.min())):
            graph = dict(dask.optimize(s)[0].__dask_graph__())
            chunk_keys = [k for k in graph if isinstance(k, tuple) and k[0] == s.name + "-chunk"]
            assert len(chunk_keys) == d.numblocks[0]
            for key in chunk_keys:
                assert (d.name, key[1]) in graph[key].dependencies, graph[key]
            assert s.compute(scheduler="threads") == want


@pytest.mark.parametrize("bad", [1, -2, 2.5, True, "4", {0: 1}])
def test_split_every_is_checked(wk, bad):
    d = da.ones(10, chunks=3)
    for call in (lambda: wkd.sum(d, split_every=bad), lambda: wkd.sum(d, reproducible=True, split_every=bad),
                 lambda: wkd.min(d, split_every=bad)):
        with pytest.raises(ValueError, match="split_every"):
            call()
    assert wk.calls == []


def test_a_chained_scan_is_two_tasks_a_chunk(wk, rng):
    """Each chunk's scan and the one-element carry the next chunk waits for
    (none after the last)."""
    x = rng.integers(-9, 9, 50)
    for blocks in (1, 2, 7):
        d = da.from_array(x, chunks=-(-50 // blocks))
        y = wkd.cumsum(d)
        assert len(_own_tasks(y)) == 2 * d.numblocks[0] - 1
        np.testing.assert_array_equal(y.compute(scheduler="threads"), np.cumsum(x))


def test_nonzero_of_unknown_chunks_asks_for_their_sizes(wk, rng):
    x = da.from_array(rng.random(100), chunks=10)
    kept = wkd.select(x, ">", 0.5)
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        wkd.nonzero(kept)
    kept.compute_chunk_sizes()
    got = wkd.nonzero(kept, ">", 0.75).compute(scheduler="sync")
    v = x.compute()
    np.testing.assert_array_equal(got, np.flatnonzero(v[v > 0.5] > 0.75))
