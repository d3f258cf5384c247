"""The Python cost of a call, on the stub library (no GPU): what warpkit adds
on top of the C call.  The numbers are printed in the summary; the bounds are
loose (shared CI machines), the GPU benchmark measures the real thing."""

import importlib.util
import sys
import time


import conftest
import fake_torch
import warpkit
from conftest import FakeArray
from warpkit import _arrays


def per_call_us(fn, n=20000):
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best


def test_call_overhead(stub, monkeypatch):
    lib = warpkit._lib.load()
    x = FakeArray(0x5000, (1 << 20,), "<f4")
    raw = lib.wk_reduce
    ctx = warpkit._lib.context(0)
    t_c = per_call_us(lambda: raw(ctx, 0x5000, 0x6000, 1 << 20, 4, 0, 0))
    t_cai = per_call_us(lambda: warpkit.sum(x), 5000)
    out = {"ctypes call alone": t_c, "sum, __cuda_array_interface__ input": t_cai}
    if importlib.util.find_spec("torch") is None:
        torch = fake_torch.make()
        monkeypatch.setitem(sys.modules, "torch", torch)
        monkeypatch.setattr(_arrays, "_out_libs", {})
        monkeypatch.setattr(_arrays, "fallback_outlib", None)
        xt = torch.Tensor(0x5000, (1 << 20,), torch.float32)
        torch.empty = lambda shape, dtype, device, T=torch.Tensor: T(0x7000, shape, dtype, device.index)
        t_torch = per_call_us(lambda: warpkit.sum(xt))
        out["sum, torch path (stand-in torch)"] = t_torch
        _arrays.VIEWERS.pop(torch.Tensor, None)
        assert t_torch - t_c < 15, out
    conftest.OVERHEAD.update(out)
    assert t_cai < 200, out
