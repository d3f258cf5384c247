"""GPU tests: streams, CUDA graph capture and replay, two threads on two
streams, JAX in and out through DLPack, Numba in.  Skipped without a CUDA device."""

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
def test_jax_in_jax_out(request):
    """JAX arrays in, JAX arrays out (through DLPack, after warpkit's stream),
    on the input's device; JAX computes on them at once."""
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
    s = warpkit.sum(x)
    assert isinstance(s, jax.Array) and s.shape == () and s.dtype == jnp.float32
    assert list(s.devices()) == [gpus[0]]
    check_sum(float(s * 1.0), host)  # a JAX op on the result, on JAX's stream
    c = warpkit.cumsum(x)
    assert isinstance(c, jax.Array) and c.shape == (host.size,)
    check_cumsum(np.asarray(c + 0.0), host)
    kept, count = warpkit.select(x, ">", 0.5)
    assert isinstance(kept, jax.Array) and isinstance(count, jax.Array) and count.shape == ()
    assert_equal(np.asarray(warpkit.trim(kept, count)), host[host > np.float32(0.5)], "JAX select")
    i = warpkit.argmax(x)
    assert isinstance(i, jax.Array) and int(i) == int(np.argmax(host))
    v, i = warpkit.argmin(x, return_value=True)
    assert float(v) == host.min() and int(i) == int(np.argmin(host))
    mask = x > 0.5  # a JAX bool array: its count in jnp.sum's dtype (int32 without 64-bit types)
    count = warpkit.sum(mask)
    assert isinstance(count, jax.Array) and count.dtype == jnp.sum(mask).dtype
    assert int(count) == int((host > np.float32(0.5)).sum())
    rows = jax.device_put(jnp.asarray(host[:100000].reshape(100, 1000)), gpus[0])
    m = warpkit.max(rows, axis=-1)
    assert isinstance(m, jax.Array) and m.shape == (100,)
    assert_equal(np.asarray(m), host[:100000].reshape(100, 1000).max(axis=1), "JAX rows")
    try:
        import torch  # noqa: F401  (bfloat16 outputs need it: CuPy has no bfloat16)
    except ImportError:
        return
    xb = jax.device_put(jnp.asarray(host[:4097], dtype=jnp.bfloat16), gpus[0])
    ref = np.asarray(xb.astype(jnp.float32))
    mb = warpkit.max(xb)
    assert isinstance(mb, jax.Array) and mb.dtype == jnp.bfloat16
    assert_equal(np.asarray(mb.astype(jnp.float32)), ref.max(), "JAX bfloat16 max")


def test_numba_in_cupy_out(request):
    """Numba device arrays come in through __cuda_array_interface__; outputs
    are CuPy arrays (README.md)."""
    cuda = pytest.importorskip("numba.cuda")
    cupy = pytest.importorskip("cupy")
    if not cuda.is_available():
        pytest.skip("Numba sees no GPU")
    host = rng_for(request).random(5001).astype(np.float32)
    x = cuda.to_device(host)
    s = warpkit.sum(x)
    assert isinstance(s, cupy.ndarray)
    check_sum(float(s.get()), host)


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


# ---------------------------------------------------- the extension's route
@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_common_case_stays_in_the_extension(lib, request):
    """A contiguous tensor / array on its library's current stream is served
    by the extension alone: with the Python route replaced by one that
    fails, the common calls still work and give the right answers."""
    B = backend(lib)
    nat = warpkit._lib.native()

    class NoPythonRoute:
        def __getattr__(self, name):
            if name.startswith("_"):
                return getattr(warpkit._api, name)  # the op tables

            def refuse(*args, **kwargs):
                raise AssertionError("warpkit.%s took the Python route" % name)
            return refuse

    host = rng_for(request).random(70001).astype(np.float32)
    x, _ = B.upload(host, "float32")
    o, _ = B.upload(np.zeros(1, np.float32), "float32")
    nat.setup(NoPythonRoute())
    try:
        s = warpkit.sum(x)
        warpkit.sum(x, out=o.reshape(()))
        c = warpkit.cumsum(x)
        i = warpkit.argmax(x)
        kept, count = warpkit.select(x, ">", 0.5)
        trimmed = warpkit.trim(kept, count) if lib == "torch" else None
    finally:
        nat.setup(warpkit._api)
    check_sum(float(B.download(s)), host)
    check_sum(float(B.download(o)[0]), host)
    check_cumsum(B.download(c), host)
    assert int(B.download(i)) == int(np.argmax(host))
    want = host[host > np.float32(0.5)]
    assert int(B.download(count)) == want.size
    if trimmed is not None:
        assert_equal(B.download(trimmed), want, "trim")
