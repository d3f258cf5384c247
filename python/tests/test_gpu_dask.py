"""GPU tests of warpkit.dask on Dask arrays of CuPy chunks, with Dask's
synchronous and threaded schedulers: the reproducible sum's bits over many
chunkings against warpkit.sum(whole, reproducible=True), and every other
function against the one-GPU call or CuPy.  Skipped without Dask, CuPy or
a CUDA device."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="warpkit.dask needs dask[array]")
cupy = pytest.importorskip("cupy", reason="these tests take CuPy chunks")

import warpkit  # noqa: E402
import warpkit.dask as wkd  # noqa: E402
from gpu_util import rng_for  # noqa: E402

try:
    HAVE_GPU = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # no driver
    HAVE_GPU = False
pytestmark = pytest.mark.skipif(not HAVE_GPU, reason="no CUDA device")

N = (1 << 20) + 3


def chunkings(n):
    """Ten ways and more to cut n elements: chunks of one, empty chunks, the whole."""
    cuts = [(n,), (1,) * 64 + (n - 64,), (0, n), (n, 0), (7, 0, n - 7), (0, 1, n - 1, 0)]
    for size in (1000, 4093, 1 << 16, 1 << 18, n // 2):
        full, rest = divmod(n, size)
        cuts.append((size,) * full + ((rest,) if rest else ()))
    return cuts


def on_gpu(host, chunks):
    return da.from_array(cupy.asarray(host), chunks=(chunks,), asarray=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reproducible_sum_bits_over_chunkings(dtype, request):
    rng = rng_for(request)
    x = (rng.standard_normal(N) * np.exp2(rng.integers(-20, 20, N))).astype(dtype)
    want = warpkit.sum(cupy.asarray(x), reproducible=True).get()
    cuts = chunkings(N)
    assert len(cuts) >= 10
    for chunks in cuts:
        for split_every, scheduler in ((None, "sync"), (2, "threads"), (5, "sync")):
            got = wkd.sum(on_gpu(x, chunks), reproducible=True, split_every=split_every).compute(scheduler=scheduler)
            assert got.dtype == np.dtype(dtype)
            assert got.get().tobytes() == want.tobytes(), (chunks[:4], split_every)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool", "float64"])
def test_sum_min_max(dtype, request):
    rng = rng_for(request)
    x = rng.integers(0, 2 if dtype == "bool" else 100, N).astype(dtype)
    d = on_gpu(x, 1 << 18)
    assert wkd.sum(d).compute().get() == x.sum()
    if dtype != "bool":
        assert wkd.min(d).compute().get() == x.min()
        assert wkd.max(d).compute().get() == x.max()


@pytest.mark.parametrize("name,ref", [("cumsum", np.cumsum), ("cummin", np.minimum.accumulate),
                                      ("cummax", np.maximum.accumulate)])
def test_scans_equal_the_one_gpu_call(name, ref, request):
    rng = rng_for(request)
    x = rng.integers(-1000, 1000, N).astype(np.int32)
    whole = getattr(warpkit, name)(cupy.asarray(x)).get()
    np.testing.assert_array_equal(whole, ref(x.astype(whole.dtype)))
    for chunks in chunkings(N)[:6]:
        got = getattr(wkd, name)(on_gpu(x, chunks)).compute().get()
        assert got.dtype == whole.dtype
        np.testing.assert_array_equal(got, whole)


def test_selects(request):
    rng = rng_for(request)
    x = rng.random(N)
    m = rng.integers(0, 2, N).astype(bool)
    d, dm = on_gpu(x, 1 << 17), on_gpu(m, 1 << 17)
    np.testing.assert_array_equal(wkd.select(d, ">", 0.5).compute().get(), x[x > 0.5])
    np.testing.assert_array_equal(wkd.compress(dm, d).compute().get(), x[m])
    np.testing.assert_array_equal(wkd.nonzero(dm).compute().get(), np.flatnonzero(m))


def test_reproducible_sum_on_a_local_cluster_of_processes(request):
    """Two worker processes sharing the GPU: the chunks travel between
    processes, the partials too; the bits are those of one call."""
    distributed = pytest.importorskip("distributed", reason="the local cluster needs distributed")
    rng = rng_for(request)
    x = rng.standard_normal(N).astype(np.float32)
    want = warpkit.sum(cupy.asarray(x), reproducible=True).get()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        for chunks in chunkings(N)[4:9]:
            got = client.compute(wkd.sum(on_gpu(x, chunks), reproducible=True, split_every=3)).result()
            assert got.get().tobytes() == want.tobytes(), chunks[:4]
