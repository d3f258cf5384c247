"""The Python cost of a call, on the stub library (no GPU): what warpkit adds
on top of the C call, on each route.  The numbers are printed in the
summary; the bounds are loose (shared CI machines), the GPU benchmark
measures the real thing."""

import importlib.util
import sys
import time

import conftest
import fake_torch
import warpkit
from conftest import FakeArray
from warpkit import _arrays, _lib


def per_call_us(fn, n=20000):
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best


def test_call_overhead(stub, monkeypatch):
    nat = _lib.native()
    x = FakeArray(0x5000, (1 << 20,), "<f4")
    warpkit.sum(x)  # loads the library, makes the context
    t_c = per_call_us(lambda: nat.call_reduce(0, 0x5000, 0x6000, 1 << 20, 4, 0, 0, "warpkit.sum"))
    t_cai = per_call_us(lambda: warpkit.sum(x), 5000)
    out = {"one-to-one call (call_reduce)": t_c, "sum, __cuda_array_interface__ input": t_cai}
    if importlib.util.find_spec("torch") is None:
        torch = fake_torch.make()
        monkeypatch.setitem(sys.modules, "torch", torch)
        monkeypatch.setattr(_arrays, "_out_libs", {})
        monkeypatch.setattr(_arrays, "fallback_outlib", None)
        xt = torch.Tensor(0x5000, (1 << 20,), torch.float32)
        o = torch.Tensor(0x7000, (), torch.float32)
        out["sum, stand-in torch (the extension's route)"] = per_call_us(lambda: warpkit.sum(xt))
        out["sum(out=), stand-in torch"] = per_call_us(lambda: warpkit.sum(xt, out=o))
        assert torch._state.allocs[-1][2] == "empty_like"
        assert out["sum(out=), stand-in torch"] < t_cai, out
    conftest.OVERHEAD.update(out)
    assert t_cai < 200, out
