"""Benchmark: warpkit beside PyTorch and CuPy on the same inputs.

    python -m warpkit.bench [--json FILE] [--min-n 2^10] [--max-n 2^30] [--repeats 9]
                            [--inputs torch,cupy] [--ops sum,sum_out,cumsum,argmax,compact,compact_nosync,sum_mask]
                            [--tests-json FILE] [--rotate-mib 512] [--no-host] [--no-cuda-compute]
                            [--release-gil on|off] [--dask [--dask-n 2^30] [--dask-chunk 2^26]]

Ops (float32, uniform [0, 1) data):
  sum             warpkit.sum(x)            | x.sum()       | cuda.compute reduce_into (output given)
  sum_out         warpkit.sum(x, out=o)     | x.sum()
  cumsum          warpkit.cumsum(x)         | torch.cumsum(x, 0) / cupy.cumsum(x) | cuda.compute inclusive_scan
  argmax          warpkit.argmax(x)         | x.argmax()
  compact         trim(*select(x, ">", 0.5))| x[x > 0.5]   (both sync once per call)
  compact_nosync  warpkit.select(x, ">", 0.5) (no sync; warpkit only)
  sum_mask        warpkit.sum(m)            | m.sum()       (m a bool mask, half True; both int64)

cuda.compute (CCCL's own Python, the cuda-cccl package) is timed where it
imports, PyTorch inputs: the reduce and scan objects made once per size
(make_reduce_into / make_inclusive_scan, temporary storage allocated once),
built-in operators (OpKind.PLUS), outputs given: the cheapest form it offers.

Host cost (PyTorch inputs, n = 2^10, unless --no-host): 10000 calls back to
back, the host's wall time per call issued, median of 5 runs; rows host_sum,
host_sum_out, host_argmax, host_cumsum and host_select, warpkit's beside
PyTorch's (x.sum() for both sums, torch.argmax, torch.cumsum, x[x > 0.5]).

Timing: CUDA events around batches of back-to-back calls from Python (so
the Python cost of a call counts), after a warm-up; a batch runs at least
2 ms and 3 calls; the median over --repeats batches (at least 7) is reported,
in microseconds per call.  Inputs rotate over several buffers (views of one
allocation of about --rotate-mib MiB, at least 2 buffers, at most 32768):
rows say "cold" when those buffers together are at least twice the L2 cache,
"warm" otherwise, and give the buffer count.

Dask (--dask; needs dask[array] and CuPy): over a Dask array of --dask-n
float32 elements (default 2^30) in chunks of --dask-chunk (2^26) on one GPU,
the compute() wall time of warpkit.dask's sum, reproducible sum, cumsum and
compaction beside Dask's own on the same CuPy chunks (x.sum(), x.sum() again
for the reproducible row, x.cumsum(axis=0), x[x > 0.5]), each followed by a device
synchronization, median of 5 after one warm-up; rows dask_sum,
dask_sum_repro, dask_cumsum and dask_compact, lib "warpkit" or "dask".
`--ops ""` leaves out the other rows.

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
import os
import statistics
import subprocess
import sys
import time

import warpkit

OPS = ["sum", "sum_out", "cumsum", "argmax", "compact", "compact_nosync", "sum_mask"]
MASK_OPS = {"sum_mask"}  # ops on a bool mask instead of float32 data


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

    def alloc_mask(self, count):
        # Random bytes 0 or 1 seen as bool: no float temporary.
        bits = self.torch.empty(count, device="cuda", dtype=self.torch.uint8).random_(0, 2)
        return bits.view(self.torch.bool)

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
        return {"sum": lambda x: x.sum(), "sum_out": lambda x: x.sum(), "cumsum": lambda x: torch.cumsum(x, 0),
                "argmax": lambda x: torch.argmax(x), "compact": lambda x: x[x > 0.5], "sum_mask": lambda m: m.sum()}

    def scalar(self):
        return self.torch.empty((), device="cuda", dtype=self.torch.float32)


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

    def alloc_mask(self, count):
        return self.cupy.random.randint(0, 2, count, dtype=self.cupy.uint8).view(self.cupy.bool_)

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
        return {"sum": lambda x: x.sum(), "sum_out": lambda x: x.sum(), "cumsum": lambda x: cupy.cumsum(x),
                "argmax": lambda x: x.argmax(), "compact": lambda x: x[x > 0.5], "sum_mask": lambda m: m.sum()}

    def scalar(self):
        return self.cupy.empty((), dtype=self.cupy.float32)


class CudaCompute:
    """cuda.compute's reduce and scan over PyTorch tensors, made once per
    size and reused (the cheapest form the package offers)."""

    name = "cuda.compute"

    def __init__(self, torch):
        import numpy as np
        import cuda.compute as cc
        self.cc, self.np, self.torch = cc, np, torch
        self.version = getattr(sys.modules.get("cuda.compute"), "__version__", None)
        try:
            from importlib.metadata import version
            self.version = version("cuda-cccl")
        except Exception:
            pass

    def ops(self, x, n):
        """{"sum": fn, "cumsum": fn} for inputs like x (n float32 elements)."""
        cc, np, torch = self.cc, self.np, self.torch
        init = np.zeros(1, dtype=np.float32)
        out = torch.empty(1, device=x.device, dtype=torch.float32)
        red = cc.make_reduce_into(d_in=x, d_out=out, op=cc.OpKind.PLUS, h_init=init)
        rbytes = red(temp_storage=None, d_in=x, d_out=out, num_items=n, op=cc.OpKind.PLUS, h_init=init)
        rtemp = torch.empty(max(int(rbytes), 1), device=x.device, dtype=torch.uint8)
        prefix = torch.empty(n, device=x.device, dtype=torch.float32)
        scan = cc.make_inclusive_scan(d_in=x, d_out=prefix, op=cc.OpKind.PLUS, init_value=None)
        sbytes = scan(temp_storage=None, d_in=x, d_out=prefix, op=cc.OpKind.PLUS, init_value=None, num_items=n)
        stemp = torch.empty(max(int(sbytes), 1), device=x.device, dtype=torch.uint8)
        stream = torch.cuda.current_stream()

        def total(a):
            red(temp_storage=rtemp, d_in=a, d_out=out, num_items=n, op=cc.OpKind.PLUS, h_init=init, stream=stream)
            return out

        def cumsum(a):
            scan(temp_storage=stemp, d_in=a, d_out=prefix, op=cc.OpKind.PLUS, init_value=None, num_items=n,
                 stream=stream)
            return prefix

        return {"sum": total, "cumsum": cumsum}


_OUT = [None]  # the preallocated output of sum_out, per input library

WARPKIT_OPS = {
    "sum": lambda x: warpkit.sum(x),
    "sum_out": lambda x: warpkit.sum(x, out=_OUT[0]),
    "cumsum": lambda x: warpkit.cumsum(x),
    "argmax": lambda x: warpkit.argmax(x),
    "compact": lambda x: warpkit.trim(*warpkit.select(x, ">", 0.5)),
    "compact_nosync": lambda x: warpkit.select(x, ">", 0.5),
    "sum_mask": lambda m: warpkit.sum(m),
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


def host_cost_us(fn, x, sync, calls=10000, runs=5):
    """Host (CPU) time per call issued, what a call costs the Python thread:
    `calls` calls back to back, the median of `runs` runs."""
    for _ in range(200):
        fn(x)
    sync()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(calls):
            fn(x)
        times.append((time.perf_counter() - t) / calls * 1e6)
        sync()
    return statistics.median(times)


HOST_OPS = [  # (row op, warpkit's call, PyTorch's call)
    ("host_sum", "sum", "sum"), ("host_sum_out", "sum_out", "sum"), ("host_argmax", "argmax", "argmax"),
    ("host_cumsum", "cumsum", "cumsum"), ("host_select", "compact_nosync", "compact"),
]


# --------------------------------------------------------------------- main
def git_commit():
    if os.environ.get("WK_COMMIT"):
        return os.environ["WK_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def dask_rows(n, chunk):
    """The --dask rows: compute() wall times, warpkit.dask beside Dask's own."""
    import cupy
    import dask.array as da
    import warpkit.dask as wkd
    x = da.from_array(cupy.random.random(n, dtype=cupy.float32), chunks=chunk, asarray=False)
    cases = [("dask_sum", lambda: wkd.sum(x), lambda: x.sum()),
             ("dask_sum_repro", lambda: wkd.sum(x, reproducible=True), lambda: x.sum()),
             ("dask_cumsum", lambda: wkd.cumsum(x), lambda: x.cumsum(axis=0)),
             ("dask_compact", lambda: wkd.select(x, ">", 0.5), lambda: x[x > 0.5])]
    sync = cupy.cuda.Device().synchronize
    rows = []
    for op, ours, theirs in cases:
        times = {}
        for lib, build in (("warpkit", ours), ("dask", theirs)):
            build().compute()
            sync()
            runs = []
            for _ in range(5):
                t0 = time.perf_counter()
                build().compute()
                sync()
                runs.append((time.perf_counter() - t0) * 1e6)
            times[lib] = statistics.median(runs)
            rows.append({"op": op, "lib": lib, "input": "cupy", "dtype": "f32", "n": n, "us": round(times[lib], 1),
                         "chunk": chunk})
        print("%-15s %-6s %12d %8s %11.1f %11.1f %7.2fx" % (op, "dask", n, "-", times["warpkit"], times["dask"],
                                                           times["dask"] / times["warpkit"]), flush=True)
    return rows


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
    p.add_argument("--no-host", action="store_true", help="leave out the host-cost rows")
    p.add_argument("--no-cuda-compute", action="store_true", help="leave out cuda.compute")
    p.add_argument("--dask", action="store_true", help="add the Dask rows (warpkit.dask beside Dask on CuPy)")
    p.add_argument("--dask-n", default="2^30", type=parse_size, help="elements of the Dask array")
    p.add_argument("--dask-chunk", default="2^26", type=parse_size, help="elements of a chunk")
    p.add_argument("--release-gil", choices=["on", "off"], default=None,
                   help="whether calls release the GIL around the C call (default: the package's)")
    args = p.parse_args(argv)
    if args.release_gil:
        warpkit._lib.native().set_release_gil(args.release_gil == "on")
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

    compute = None
    if not args.no_cuda_compute and any(sd.name == "torch" for sd in sides):
        try:
            compute = CudaCompute(sides[[sd.name for sd in sides].index("torch")].torch)
        except Exception as e:  # not installed, or no usable CUDA bindings
            print("skipping cuda.compute: %s: %s" % (type(e).__name__, e), file=sys.stderr)

    rows = []
    print("warpkit %s (%s) on %s; median of %d batches, us per call" % (
        warpkit.__version__, warpkit.library_path(), device, args.repeats))
    print("%-15s %-6s %12s %8s %11s %11s %8s" % ("op", "input", "n", "regime", "warpkit us", "lib us",
                                                  "speedup"))
    for side in sides:
        if side.name != "torch" or args.no_host:
            continue
        lib_ops = side.ops()
        x = side.alloc_uniform(1024)
        _OUT[0] = side.scalar()
        for row, wk, lib in HOST_OPS:
            for name, fn in (("warpkit", WARPKIT_OPS[wk]), ("torch", lib_ops[lib])):
                us = host_cost_us(fn, x, side.sync)
                rows.append({"op": row, "lib": name, "input": "torch", "dtype": "f32", "n": 1024, "us": round(us, 3)})
                print("%-15s %-12s %6.2f us per call issued (10000 calls, n = 2^10)" % (row, name, us), flush=True)
        del x
        side.free()
    # (input dtype, its bytes an element, the allocator's name, the ops on it)
    kinds = [("f32", 4, "alloc_uniform", [o for o in ops if o not in MASK_OPS]),
             ("bool", 1, "alloc_mask", [o for o in ops if o in MASK_OPS])]
    for side in sides:
        lib_ops = side.ops()
        _OUT[0] = side.scalar()
        for n in sizes(args.min_n, args.max_n):
            for dtype, size, alloc, kind_ops in kinds:
                if not kind_ops:
                    continue
                nbytes = size * n
                k = max(2, min(32768, -(-(args.rotate_mib << 20) // nbytes)))
                try:
                    big = getattr(side, alloc)(k * n)
                except Exception:  # out of memory: fewer buffers
                    side.free()
                    k = 1
                    big = getattr(side, alloc)(n)
                bufs = side.views(big, n, k)
                regime = "cold" if k * nbytes >= 2 * side.l2 else "warm"
                peer = {}
                if compute is not None and side.name == "torch" and dtype == "f32":
                    try:
                        peer = compute.ops(bufs[0], n)
                    except Exception as e:
                        print("cuda.compute failed at n = %d: %s: %s" % (n, type(e).__name__, e), file=sys.stderr)
                for op in kind_ops:
                    t_wk = time_op(side, WARPKIT_OPS[op], bufs, args.repeats)
                    rows.append({"op": op, "lib": "warpkit", "input": side.name, "dtype": dtype, "n": n,
                                 "us": round(t_wk, 3), "regime": regime, "buffers": k})
                    t_lib = None
                    if op in lib_ops:
                        t_lib = time_op(side, lib_ops[op], bufs, args.repeats)
                        rows.append({"op": op, "lib": side.name, "input": side.name, "dtype": dtype, "n": n,
                                     "us": round(t_lib, 3), "regime": regime, "buffers": k})
                    print("%-15s %-6s %12d %8s %11.2f %11s %8s" % (
                        op, side.name, n, regime, t_wk, "%.2f" % t_lib if t_lib else "-",
                        "%.2fx" % (t_lib / t_wk) if t_lib else "-"), flush=True)
                    if op in peer:
                        t_cc = time_op(side, peer[op], bufs, args.repeats)
                        rows.append({"op": op, "lib": "cuda.compute", "input": side.name, "dtype": "f32", "n": n,
                                     "us": round(t_cc, 3), "regime": regime, "buffers": k})
                        print("%-15s %-6s %12d %8s %11s %11.2f %8s  (cuda.compute)" % (
                            op, side.name, n, regime, "", t_cc, "%.2fx" % (t_cc / t_wk)), flush=True)
                del bufs, big, peer
                side.free()

    if args.dask:
        rows += dask_rows(args.dask_n, args.dask_chunk)

    tests = {"passed": None, "failed": None, "skipped": None}
    if args.tests_json:
        with open(args.tests_json) as f:
            tests.update(json.load(f))
    result = {"commit": git_commit(), "device": device,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
              "tests": tests, "bench": rows,
              "timing": "CUDA events around batches of back-to-back Python calls; median of %d batches; "
                        "inputs rotate over buffers spanning %d MiB (regime cold: at least twice the L2)"
                        % (args.repeats, args.rotate_mib),
              "release_gil": warpkit._lib.native().releases_gil(),
              "versions": {"python": sys.version.split()[0], "warpkit": warpkit.__version__,
                           "cuda-cccl": compute.version if compute else None,
                           **{m: getattr(sys.modules.get(m), "__version__", None)
                              for m in ("torch", "cupy", "dask")}}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
        print("wrote", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
