"""GPU tests: streams, CUDA graph capture and replay, two threads on two
streams, and JAX through DLPack.  Skipped without a CUDA device."""

import math
import threading

import pytest

np = pytest.importorskip("numpy", reason="the GPU tests need NumPy")

import warpkit  # noqa: E402
from gpu_util import assert_close, assert_equal, backend, rng_for, scan_tolerance, sum_tolerance  # noqa: E402


def check_sum(got, host, name="float32"):
    ref = float(np.sum(host.astype(np.float64)))
    assert_close(got, ref, sum_tolerance(host, name, ref), "sum")


def check_cumsum(got, host, name="float32"):
    ref = np.cumsum(host.astype(np.float64))
    assert_close(got, ref, scan_tolerance(host, name, ref), "cumsum")


# ----------------------------------------------------------------- streams
def test_torch_current_and_explicit_streams(request):
    B = backend("torch")
    torch = B.torch
    host = rng_for(request).random(1 << 22).astype(np.float32)
    x = torch.from_numpy(host).cuda()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # the current stream is used
        s1 = warpkit.sum(x)
        c1 = warpkit.cumsum(x)
        kept, count = warpkit.select(x, ">", 0.5)
        k = warpkit.trim(kept, count)  # syncs torch's current stream: side
    side.synchronize()
    check_sum(B.download(s1), host)
    check_cumsum(B.download(c1), host)
    assert_equal(B.download(k), host[host > np.float32(0.5)], "select on a side stream")
    other = torch.cuda.Stream()
    other.wait_stream(torch.cuda.current_stream())
    s2 = warpkit.sum(x, stream=other)  # explicit: a torch stream object
    kept, count = warpkit.select(x, ">", 0.5, stream=other.cuda_stream)  # a raw handle
    k2 = warpkit.trim(kept, count, stream=other)  # synchronizes `other`
    other.synchronize()
    assert_equal(B.download(s2), B.download(s1), "same bits on another stream")
    assert len(k2) == len(k)


def test_cupy_current_stream(request):
    B = backend("cupy")
    cp = B.cupy
    host = rng_for(request).random(1 << 20).astype(np.float32)
    x = cp.asarray(host)
    s = cp.cuda.Stream(non_blocking=True)
    cp.cuda.runtime.deviceSynchronize()
    with s:
        r = warpkit.sum(x)
        kept, count = warpkit.select(x, "<", 0.25)
        k = warpkit.trim(kept, count)
    s.synchronize()
    check_sum(B.download(r), host)
    assert_equal(B.download(k), host[host < np.float32(0.25)], "select on a CuPy stream")


# ------------------------------------------------------------------ graphs
def test_torch_graph_capture_and_replay(request):
    B = backend("torch")
    torch = B.torch
    rng = rng_for(request)
    n = (1 << 20) + 3
    x = torch.empty(n, device="cuda")
    x.copy_(torch.from_numpy(rng.random(n).astype(np.float32)))
    warpkit.reserve(n, "float32", device=0)  # no workspace growth during capture
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up, as PyTorch asks before capture
        warpkit.select(x, ">", 0.5)
        warpkit.cumsum(x)
        warpkit.sum(x)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        kept, count = warpkit.select(x, ">", 0.5)
        cs = warpkit.cumsum(x)
        total = warpkit.sum(x)
    for _ in range(3):
        host = rng.random(n).astype(np.float32)
        x.copy_(torch.from_numpy(host))
        g.replay()
        torch.cuda.synchronize()
        k = int(count.item())
        ref = host[host > np.float32(0.5)]
        assert k == ref.size
        assert_equal(B.download(kept)[:k], ref, "replayed select")
        check_cumsum(B.download(cs), host)
        check_sum(B.download(total), host)


def test_cupy_graph_capture_and_replay(request):
    B = backend("cupy")
    cp = B.cupy
    rng = rng_for(request)
    n = (1 << 20) + 3
    x = cp.empty(n, dtype=cp.float32)
    kept = cp.empty(n, dtype=cp.float32)
    count = cp.empty((), dtype=cp.int64)
    cs = cp.empty(n, dtype=cp.float32)
    total = cp.empty((), dtype=cp.float32)
    s = cp.cuda.Stream(non_blocking=True)
    x[...] = cp.asarray(rng.random(n).astype(np.float32))
    cp.cuda.runtime.deviceSynchronize()
    with s:
        warpkit.select(x, ">", 0.5, out=kept, count=count)  # warm-up
        s.synchronize()
        s.begin_capture()
        warpkit.select(x, ">", 0.5, out=kept, count=count)
        warpkit.cumsum(x, out=cs)
        warpkit.sum(x, out=total)
        g = s.end_capture()
    for _ in range(3):
        host = rng.random(n).astype(np.float32)
        x.set(host)
        cp.cuda.runtime.deviceSynchronize()
        g.launch(stream=s)
        s.synchronize()
        k = int(count.get())
        ref = host[host > np.float32(0.5)]
        assert k == ref.size
        assert_equal(kept.get()[:k], ref, "replayed select (CuPy)")
        check_cumsum(cs.get(), host)
        check_sum(total.get(), host)


# ----------------------------------------------------------------- threads
def test_two_threads_two_streams(request):
    B = backend("torch")
    torch = B.torch
    rng = rng_for(request)
    hosts = [rng.random((1 << 21) + k).astype(np.float32) for k in (1, 2)]
    xs = [torch.from_numpy(h).cuda() for h in hosts]
    # Results are the same bits on every run: the single-threaded answers are
    # the reference for the threaded ones.
    ref = [(B.download(warpkit.sum(x)), B.download(warpkit.cumsum(x)), int(warpkit.select(x, ">", 0.5)[1].item()))
           for x in xs]
    torch.cuda.synchronize()
    errors = []

    def work(k):
        try:
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                for _ in range(40):
                    total = warpkit.sum(xs[k])
                    cs = warpkit.cumsum(xs[k])
                    kept, count = warpkit.select(xs[k], ">", 0.5)
                    am = warpkit.argmax(xs[k])
                s.synchronize()
                assert_equal(B.download(total), ref[k][0], "thread %d sum" % k)
                assert_equal(B.download(cs), ref[k][1], "thread %d cumsum" % k)
                assert int(count.item()) == ref[k][2]
                assert int(am.item()) == int(np.argmax(hosts[k]))
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


# -------------------------------------------------------------------- JAX
def _to_numpy(a):
    if hasattr(a, "get"):  # CuPy
        return a.get()
    return a.float().cpu().numpy() if str(a.dtype) == "torch.bfloat16" else a.cpu().numpy()


def test_jax_through_dlpack(request):
    jax = pytest.importorskip("jax")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        pytest.skip("JAX has no GPU backend here")
    import jax.numpy as jnp
    rng = rng_for(request)
    host = rng.random(100003).astype(np.float32)
    x = jax.device_put(jnp.asarray(host), gpus[0])
    x.block_until_ready()
    assert warpkit._arrays.classify(x, "x") is warpkit._arrays.dlpack_view
    check_sum(_to_numpy(warpkit.sum(x)), host)
    check_cumsum(_to_numpy(warpkit.cumsum(x)), host)
    kept, count = warpkit.select(x, ">", 0.5)
    assert_equal(_to_numpy(warpkit.trim(kept, count)), host[host > np.float32(0.5)], "JAX select")
    assert int(_to_numpy(warpkit.argmax(x))) == int(np.argmax(host))
    try:
        import torch  # noqa: F401  (bfloat16 outputs need it: CuPy has no bfloat16)
    except ImportError:
        return
    xb = jax.device_put(jnp.asarray(host[:4097], dtype=jnp.bfloat16), gpus[0])
    ref = np.asarray(xb.astype(jnp.float32))
    assert_equal(_to_numpy(warpkit.max(xb)), ref.max(), "JAX bfloat16 max")


# -------------------------------------------------------- reproducible sums
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_reproducible_sum(lib, name, request):
    """The same bits for the input reversed and for a view one element in;
    close to the exact sum (math.fsum)."""
    if lib == "cupy" and name == "bfloat16":
        pytest.skip("CuPy has no bfloat16")
    B = backend(lib)
    rng = rng_for(request)
    n = 300001
    host = (rng.random(n) * 2 - 1).astype(np.float32 if name == "bfloat16" else name)
    d, ref_host = B.upload(host, name)
    got = B.download(warpkit.sum(d, reproducible=True))
    r, _ = B.upload(host[::-1].copy(), name)
    assert B.download(warpkit.sum(r, reproducible=True)).tobytes() == got.tobytes(), "reversed"
    padded, _ = B.upload(np.concatenate([host[:1], host]), name)
    assert B.download(warpkit.sum(padded[1:], reproducible=True)).tobytes() == got.tobytes(), "view at offset 1"
    ref = math.fsum(ref_host.astype(np.float64).tolist())
    ulp = float(np.spacing(np.abs(np.asarray(got, dtype=np.float64 if name == "float64" else np.float32))))
    if name in ("float16", "bfloat16"):
        ulp = abs(float(got)) * (2.0 ** -10 if name == "float16" else 2.0 ** -7) + 1e-30
    assert abs(float(got) - ref) <= ulp, "reproducible sum %r against the exact %r" % (float(got), ref)
