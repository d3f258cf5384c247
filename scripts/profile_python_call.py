"""Where the host time of one Python call goes, piece by piece: each line is
the wall time per call of a loop of back-to-back calls (best of 3, after a
warm-up), PyTorch inputs of 2^10 float32 elements.

    PYTHONPATH=python WARPKIT_LIBRARY=build/src/libwarpkit.so python3 scripts/profile_python_call.py [--json FILE]

The whole calls first (PyTorch's and warpkit's, with the GIL released around
the C call and without), then what they are made of: the extension's
one-to-one call (its argument parsing and the C call: checks, workspace,
launch), the allocations PyTorch's Python API offers, and the reads of a
tensor's pointer, device and stream.
"""
import json
import sys
import time

import torch
import warpkit
from warpkit import _lib


def per_call(fn, reps=20000):
    for _ in range(2000):
        fn()
    torch.cuda.synchronize()
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t) / reps * 1e6)
        torch.cuda.synchronize()
    return best


n = 1 << 10
x = torch.rand(n, device="cuda")
o = torch.empty((), device="cuda")
pair = torch.empty(2, dtype=torch.int64, device="cuda")
scalar = torch.empty((), device="cuda")
count = torch.empty((), dtype=torch.int64, device="cuda")
nat = _lib.native()
nat.context(0)
raw = torch._C._cuda_getCurrentRawStream
s = raw(0)
xp, op_, pp = x.data_ptr(), o.data_ptr(), pair.data_ptr()
kept, cnt = warpkit.select(x, ">", 0.5)
torch.cuda.synchronize()
i64 = torch.int64

whole = [
    ("torch x.sum()", lambda: x.sum()),
    ("warpkit.sum(x)", lambda: warpkit.sum(x)),
    ("warpkit.sum(x, out=o)", lambda: warpkit.sum(x, out=o)),
    ("torch.argmax(x)", lambda: torch.argmax(x)),
    ("warpkit.argmax(x)", lambda: warpkit.argmax(x)),
    ("torch.cumsum(x, 0)", lambda: torch.cumsum(x, 0)),
    ("warpkit.cumsum(x)", lambda: warpkit.cumsum(x)),
    ("torch x[x > 0.5]", lambda: x[x > 0.5]),
    ("warpkit.select(x, '>', 0.5)", lambda: warpkit.select(x, ">", 0.5)),
    ("warpkit.trim(*warpkit.select(x, '>', 0.5))", lambda: warpkit.trim(*warpkit.select(x, ">", 0.5))),
    ("warpkit.trim(out, count) alone", lambda: warpkit.trim(kept, cnt)),
]
parts = [
    ("call_reduce f32 sum (parse + C call)", lambda: nat.call_reduce(0, xp, op_, n, 4, 0, s, "p")),
    ("call_reduce f32 argmax", lambda: nat.call_reduce(0, xp, pp, n, 4, 7, s, "p")),
    ("call_scan f32 inclusive sum", lambda: nat.call_scan(0, xp, xp, n, 4, 0, False, 0, s, "p")),
    ("torch.empty_like(0-d template)", lambda: torch.empty_like(scalar)),
    ("torch.empty_like((2,) int64 template)", lambda: torch.empty_like(pair)),
    ("x.new_empty(())", lambda: x.new_empty(())),
    ("x.new_empty((), dtype=int64)", lambda: x.new_empty((), dtype=i64)),
    ("x.new_empty(n)", lambda: x.new_empty(n)),
    ("torch.empty_like(x)", lambda: torch.empty_like(x)),
    ("torch.empty((), dtype=, device=)", lambda: torch.empty((), dtype=torch.float32, device="cuda")),
    ("pair[1] (the argmax index view)", lambda: pair[1]),
    ("x.data_ptr()", lambda: x.data_ptr()),
    ("x.get_device()", lambda: x.get_device()),
    ("x.is_contiguous()", lambda: x.is_contiguous()),
    ("x.numel()", lambda: x.numel()),
    ("x.dtype", lambda: x.dtype),
    ("torch._C._cuda_getCurrentRawStream(0)", lambda: raw(0)),
    ("count.item()", lambda: cnt.item()),
    ("kept[:k]", lambda: kept[:100]),
    ("kept.narrow(0, 0, k)", lambda: kept.narrow(0, 0, 100)),
]
rows = []
for gil in (True, False):
    nat.set_release_gil(gil)
    for name, fn in whole if gil else whole[1:3] + whole[4:5] + whole[6:7] + whole[8:10]:
        label = name if gil else name + " (GIL held)"
        us = per_call(fn, 5000 if ("trim" in name or "x >" in name) else 20000)
        rows.append((label, us))
        print("%-52s %8.2f us" % (label, us), flush=True)
nat.set_release_gil(True)
for name, fn in parts:
    us = per_call(fn, 5000 if "item" in name else 20000)
    rows.append((name, us))
    print("%-52s %8.2f us" % (name, us), flush=True)
for name, us in nat.time_torch_route(x, 20000).items():
    rows.append(("route step: " + name, us))
    print("%-52s %8.2f us" % ("route step: " + name, us), flush=True)
if "--json" in sys.argv:
    with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "n": n,
                   "us_per_call": dict(rows)}, f, indent=1)
