"""Benchmark: warpkit beside PyTorch and CuPy on the same inputs.

    python -m warpkit.bench [--json FILE] [--min-n 2^10] [--max-n 2^30] [--repeats 9]
                            [--inputs torch,cupy] [--ops sum,cumsum,argmax,compact,compact_nosync]
                            [--tests-json FILE] [--rotate-mib 512]

Ops (float32, uniform [0, 1) data):
  sum             warpkit.sum(x)            | x.sum()
  cumsum          warpkit.cumsum(x)         | torch.cumsum(x, 0) / cupy.cumsum(x)
  argmax          warpkit.argmax(x)         | x.argmax()
  compact         trim(*select(x, ">", 0.5))| x[x > 0.5]   (both sync once per call)
  compact_nosync  warpkit.select(x, ">", 0.5) (no sync; warpkit only)

Timing: CUDA events around batches of back-to-back calls from Python (so
the Python cost of a call counts), after a warm-up; a batch runs at least
2 ms and 3 calls; the median over --repeats batches (at least 7) is reported,
in microseconds per call.  Inputs rotate over several buffers (views of one
allocation of about --rotate-mib MiB, at least 2 buffers, at most 32768):
rows say "cold" when those buffers together are at least twice the L2 cache,
"warm" otherwise, and give the buffer count.

Output: a table with the library / warpkit speedup, and with --json a file
  {"commit", "device", "date", "tests": {"passed", "failed", "skipped"},
   "bench": [{"op", "lib", "input", "dtype", "n", "us", "regime", "buffers"}], ...}
commit: $WK_COMMIT, else `git rev-parse HEAD` in the current directory.
tests: read from --tests-json (as written by `pytest python/tests --wk-json FILE`),
else nulls, to be filled in by whoever runs the tests.
"""

import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import time

import warpkit

OPS = ["sum", "cumsum", "argmax", "compact", "compact_nosync"]


def parse_size(text):
    t = text.strip().replace(" ", "")
    if "^" in t:
        base, exp = t.split("^")
        return int(base) ** int(exp)
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:].upper())
    return int(t[:-1]) * mult if mult else int(t)


def sizes(lo, hi):
    out, n = [], lo
    while n <= hi:
        out.append(n)
        n *= 4
    return out


# ---------------------------------------------------------------- libraries
class TorchSide:
    name = "torch"

    def __init__(self):
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device for torch")
        self.torch = torch
        props = torch.cuda.get_device_properties(0)
        self.device_name = props.name
        self.l2 = getattr(props, "L2_cache_size", 50 << 20)

    def alloc_uniform(self, count):
        return self.torch.rand(count, device="cuda", dtype=self.torch.float32)

    def views(self, big, n, k):
        return [big[i * n:(i + 1) * n] for i in range(k)]

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def record(self, ev):
        ev.record()

    def elapsed_ms(self, a, b):
        b.synchronize()
        return a.elapsed_time(b)

    def sync(self):
        self.torch.cuda.synchronize()

    def free(self):
        self.sync()
        self.torch.cuda.empty_cache()

    def ops(self):
        torch = self.torch
        return {"sum": lambda x: x.sum(), "cumsum": lambda x: torch.cumsum(x, 0),
                "argmax": lambda x: torch.argmax(x), "compact": lambda x: x[x > 0.5]}


class CupySide:
    name = "cupy"

    def __init__(self):
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device for cupy")
        self.cupy = cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        self.device_name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        self.l2 = props.get("l2CacheSize", 50 << 20)

    def alloc_uniform(self, count):
        return self.cupy.random.random(count, dtype=self.cupy.float32)

    def views(self, big, n, k):
        return [big[i * n:(i + 1) * n] for i in range(k)]

    def event(self):
        return self.cupy.cuda.Event()

    def record(self, ev):
        ev.record()

    def elapsed_ms(self, a, b):
        b.synchronize()
        return self.cupy.cuda.get_elapsed_time(a, b)

    def sync(self):
        self.cupy.cuda.runtime.deviceSynchronize()

    def free(self):
        self.sync()
        self.cupy.get_default_memory_pool().free_all_blocks()

    def ops(self):
        cupy = self.cupy
        return {"sum": lambda x: x.sum(), "cumsum": lambda x: cupy.cumsum(x),
                "argmax": lambda x: x.argmax(), "compact": lambda x: x[x > 0.5]}


WARPKIT_OPS = {
    "sum": lambda x: warpkit.sum(x),
    "cumsum": lambda x: warpkit.cumsum(x),
    "argmax": lambda x: warpkit.argmax(x),
    "compact": lambda x: warpkit.trim(*warpkit.select(x, ">", 0.5)),
    "compact_nosync": lambda x: warpkit.select(x, ">", 0.5),
}


# ------------------------------------------------------------------- timing
def time_op(side, fn, bufs, repeats, min_batch_ms=2.0):
    """Median microseconds per call over `repeats` batches."""
    k = len(bufs)
    for i in range(max(3, min(k, 20))):  # warm-up (and workspace growth)
        fn(bufs[i % k])
    side.sync()
    calls, ms = 1, 0.0
    while True:  # calls per batch: at least 2 ms and 3 calls
        a, b = side.event(), side.event()
        side.record(a)
        for i in range(calls):
            fn(bufs[i % k])
        side.record(b)
        ms = side.elapsed_ms(a, b)
        if ms >= min_batch_ms or calls >= 1 << 16:
            break
        calls = min(1 << 16, max(calls * 2, int(calls * min_batch_ms / max(ms, 1e-3) * 1.2)))
    calls = max(calls, 3)
    times = []
    j = 0
    for _ in range(repeats):
        a, b = side.event(), side.event()
        side.record(a)
        for _ in range(calls):
            fn(bufs[j % k])
            j += 1
        side.record(b)
        times.append(side.elapsed_ms(a, b) * 1000.0 / calls)
    return statistics.median(times)


def host_cost_us(fn, x, sync, calls=2000):
    """Host (CPU) time per call: what a call costs the Python thread."""
    for _ in range(50):
        fn(x)
    sync()
    best = math.inf
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(calls):
            fn(x)
        best = min(best, (time.perf_counter() - t) / calls * 1e6)
        sync()
    return best


# --------------------------------------------------------------------- main
def git_commit():
    if os.environ.get("WK_COMMIT"):
        return os.environ["WK_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m warpkit.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--json", help="write the results to this file")
    p.add_argument("--min-n", default="2^10", type=parse_size)
    p.add_argument("--max-n", default="2^30", type=parse_size)
    p.add_argument("--repeats", default=9, type=int, help="batches per measurement (median; at least 7)")
    p.add_argument("--inputs", default="torch,cupy", help="input libraries: torch,cupy")
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--rotate-mib", default=512, type=int, help="memory the rotated inputs span (MiB)")
    p.add_argument("--tests-json", help="test counts to embed (pytest python/tests --wk-json FILE)")
    args = p.parse_args(argv)
    if args.repeats < 7:
        p.error("--repeats must be at least 7")
    ops = [o for o in args.ops.split(",") if o]
    for o in ops:
        if o not in OPS:
            p.error("unknown op %r (ops: %s)" % (o, ", ".join(OPS)))

    sides, device = [], None
    for name in [s for s in args.inputs.split(",") if s]:
        try:
            side = TorchSide() if name == "torch" else CupySide()
        except Exception as e:  # not installed, or no device
            print("skipping %s inputs: %s" % (name, e), file=sys.stderr)
            continue
        sides.append(side)
        device = device or side.device_name
    if not sides:
        print("no input library with a CUDA device (need torch or cupy)", file=sys.stderr)
        return 3

    rows = []
    print("warpkit %s (%s) on %s; median of %d batches, us per call" % (
        warpkit.__version__, warpkit.library_path(), device, args.repeats))
    print("%-15s %-6s %12s %8s %11s %11s %8s" % ("op", "input", "n", "regime", "warpkit us", "lib us",
                                                  "speedup"))
    host = {}
    for side in sides:
        lib_ops = side.ops()
        for n in sizes(args.min_n, args.max_n):
            nbytes = 4 * n
            k = max(2, min(32768, -(-(args.rotate_mib << 20) // nbytes)))
            try:
                big = side.alloc_uniform(k * n)
            except Exception:  # out of memory: fewer buffers
                side.free()
                k = 1
                big = side.alloc_uniform(n)
            bufs = side.views(big, n, k)
            regime = "cold" if k * nbytes >= 2 * side.l2 else "warm"
            if n == 1 << 14:
                host["warpkit.sum(%s)" % side.name] = host_cost_us(WARPKIT_OPS["sum"], bufs[0], side.sync)
                host["%s sum" % side.name] = host_cost_us(lib_ops["sum"], bufs[0], side.sync)
            for op in ops:
                t_wk = time_op(side, WARPKIT_OPS[op], bufs, args.repeats)
                rows.append({"op": op, "lib": "warpkit", "input": side.name, "dtype": "f32", "n": n,
                             "us": round(t_wk, 3), "regime": regime, "buffers": k})
                t_lib = None
                if op in lib_ops:
                    t_lib = time_op(side, lib_ops[op], bufs, args.repeats)
                    rows.append({"op": op, "lib": side.name, "input": side.name, "dtype": "f32", "n": n,
                                 "us": round(t_lib, 3), "regime": regime, "buffers": k})
                print("%-15s %-6s %12d %8s %11.2f %11s %8s" % (
                    op, side.name, n, regime, t_wk, "%.2f" % t_lib if t_lib else "-",
                    "%.2fx" % (t_lib / t_wk) if t_lib else "-"), flush=True)
            del bufs, big
            side.free()
    for what, us in host.items():
        print("host cost per call at n = 2^14: %-22s %6.2f us" % (what, us))

    tests = {"passed": None, "failed": None, "skipped": None}
    if args.tests_json:
        with open(args.tests_json) as f:
            tests.update(json.load(f))
    result = {"commit": git_commit(), "device": device,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
              "tests": tests, "bench": rows,
              "host_us_per_call": {k: round(v, 3) for k, v in host.items()},
              "timing": "CUDA events around batches of back-to-back Python calls; median of %d batches; "
                        "inputs rotate over buffers spanning %d MiB (regime cold: at least twice the L2)"
                        % (args.repeats, args.rotate_mib),
              "versions": {"python": sys.version.split()[0], "warpkit": warpkit.__version__,
                           **{m: getattr(sys.modules.get(m), "__version__", None) for m in ("torch", "cupy")}}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
        print("wrote", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
