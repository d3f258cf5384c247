"""Where the host time of one Python call goes, piece by piece: each line is
the wall time per call of a loop of back-to-back calls (best of 3, after a
warm-up), on f32 inputs of 2^14 elements, PyTorch inputs.

    PYTHONPATH=python WARPKIT_LIBRARY=build/src/libwarpkit.so python3 scripts/profile_python_call.py
"""
import ctypes, time, torch, warpkit
from warpkit import _arrays, _lib
dev = 0
torch.cuda.set_device(dev)
n = 1 << 14
x = torch.rand(n, device="cuda")
o = torch.empty((), device="cuda")
L = _lib.load(); ctx = _lib.context(dev)
s = torch.cuda.current_stream().cuda_stream
cr = L.cudart()
pinned = torch.empty(1, dtype=torch.int64, pin_memory=True)
hp = pinned.data_ptr()
try:
    memcpy = L.cdll.cudaMemcpyAsync
except AttributeError:
    memcpy = ctypes.CDLL(cr.origin).cudaMemcpyAsync
memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
memcpy.restype = ctypes.c_int


def per_call(fn, reps=20000):
    for _ in range(2000): fn()
    torch.cuda.synchronize()
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(reps): fn()
        best = min(best, (time.perf_counter() - t) / reps * 1e6)
        torch.cuda.synchronize()
    return best
dts = torch.float32
dv = torch.device("cuda", 0)
out, cnt = warpkit.select(x, ">", 0.5)
torch.cuda.synchronize()
raw = torch._C._cuda_getCurrentRawStream
cases = [
    ("torch x.sum()", lambda: x.sum()),
    ("warpkit.sum(x)", lambda: warpkit.sum(x)),
    ("warpkit.sum(x, out=o)", lambda: warpkit.sum(x, out=o)),
    ("ctypes wk_reduce (real lib, n=2^14)", lambda: L.wk_reduce(ctx, x.data_ptr(), o.data_ptr(), n, 4, 0, s)),
    ("ctypes wk_reduce n=0", lambda: L.wk_reduce(ctx, x.data_ptr(), o.data_ptr(), 0, 4, 0, s)),
    ("torch.empty((), dtype, device)", lambda: torch.empty((), dtype=dts, device=dv)),
    ("x.new_empty(())", lambda: x.new_empty(())),
    ("torch.empty(n, dtype, device)", lambda: torch.empty(n, dtype=dts, device=dv)),
    ("_arrays.view(x)", lambda: _arrays.view(x, None, "x")),
    ("raw stream", lambda: raw(0)),
    ("x.data_ptr()", lambda: x.data_ptr()),
    ("torch.cumsum(x, 0)", lambda: torch.cumsum(x, 0)),
    ("warpkit.cumsum(x)", lambda: warpkit.cumsum(x)),
    ("torch x[x > 0.5]", lambda: x[x > 0.5]),
    ("warpkit.select(x,'>',0.5)", lambda: warpkit.select(x, ">", 0.5)),
    ("select + trim", lambda: warpkit.trim(*warpkit.select(x, ">", 0.5))),
    ("cnt.item()", lambda: cnt.item()),
    ("out[:k]", lambda: out[:100]),
    ("cudaStreamSynchronize", lambda: cr.cudaStreamSynchronize(s)),
    ("out.narrow(0, 0, k)", lambda: out.narrow(0, 0, 100)),
    ("x.new_empty(n)", lambda: x.new_empty(n)),
    ("x.new_empty((), dtype=int64)", lambda: x.new_empty((), dtype=torch.int64)),
    ("count to pinned + sync (cudart)", lambda: (memcpy(hp, cnt.data_ptr(), 8, 2, s), cr.cudaStreamSynchronize(s))),
]
for name, fn in cases:
    try:
        print("%-40s %8.2f us" % (name, per_call(fn, 5000 if "trim" in name or "item" in name or "x >" in name else 20000)), flush=True)
    except Exception as e:
        print(name, "failed", e)
