"""GPU tests of warpkit.torch: the custom operators eagerly, under
torch.compile(fullgraph=True) (no graph break) and with CUDA graphs
(mode="reduce-overhead"), against NumPy.  Skipped without PyTorch or a GPU."""

import pytest

np = pytest.importorskip("numpy", reason="the GPU tests need NumPy")
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device for PyTorch", allow_module_level=True)

import warpkit.torch as wt  # noqa: E402
from gpu_util import assert_close, assert_equal, rng_for, scan_tolerance, sum_tolerance  # noqa: E402


def model(x, mask):
    y = x * 2.0
    total = wt.sum(y)
    prefix = wt.cumsum(x)
    kept, count = wt.select(x, ">", 0.5)
    chosen, chosen_count = wt.compress(mask, x)
    return total + 1.0, prefix * 3.0, kept, count, wt.argmax(x), wt.max(x, axis=-1), chosen, chosen_count


def check(outputs, host, hmask):
    total, prefix, kept, count, arg, row_max, chosen, chosen_count = [o.cpu().numpy() for o in outputs]
    h64 = host.astype(np.float64).ravel()
    ref = 2.0 * h64.sum()
    assert_close(total - 1.0, ref, sum_tolerance(2 * host.ravel(), "float32", ref) + 1e-5, "sum")
    ref_prefix = np.cumsum(h64)
    assert_close(prefix / 3.0, ref_prefix, scan_tolerance(host.ravel(), "float32", ref_prefix), "cumsum")
    flat = host.ravel()
    want = flat[flat > np.float32(0.5)]
    assert int(count) == want.size
    assert_equal(kept[:int(count)], want, "select")
    assert int(arg) == int(np.argmax(flat))
    assert_equal(row_max, host.max(axis=-1), "max along the last axis")
    want = flat[hmask.ravel()]
    assert int(chosen_count) == want.size
    assert_equal(chosen[:int(chosen_count)], want, "compress")


def inputs(request, shape=(64, 300)):
    rng = rng_for(request)
    host = rng.random(shape).astype(np.float32)
    hmask = rng.random(shape) < 0.3
    return host, hmask, torch.from_numpy(host).cuda(), torch.from_numpy(hmask).cuda()


def test_eager_operators(request):
    host, hmask, x, mask = inputs(request)
    check(model(x, mask), host, hmask)
    assert torch.ops.warpkit.sum.default is not None


def test_compile_fullgraph(request):
    torch._dynamo.reset()
    host, hmask, x, mask = inputs(request)
    compiled = torch.compile(model, fullgraph=True)
    check(compiled(x, mask), host, hmask)
    host2, hmask2, x2, mask2 = inputs(request)
    check(compiled(x2, mask2), host2, hmask2)


def test_compile_cuda_graphs(request):
    torch._dynamo.reset()
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):  # warm-up, recording, then replays on new data
        host, hmask, x, mask = inputs(request)
        out = [o.clone() for o in compiled(x, mask)]
        torch.cuda.synchronize()
        check(out, host, hmask)
