"""The parts of the Dask rows' wall time (python -m warpkit.bench --dask) on one GPU: the chunk work
alone (the 16 chunks of 2^26 f32 back to back, no Dask), Dask's cost for graphs of the same shapes with
no work in them, and whole computes under the threaded and the synchronous scheduler; and the sum's
earlier designs beside the present one (da.reduction's tree of four-way steps; 7005e6d's chunk tasks of one
input).

Usage: PYTHONPATH=python python3 scripts/dask_parts.py   (needs CuPy, dask[array] and the library)."""
import statistics
import time

import cupy
import dask
import dask.array as da
from dask.highlevelgraph import HighLevelGraph

import warpkit
import warpkit.dask as wkd

n, chunk = 1 << 30, 1 << 26
base = cupy.random.random(n, dtype=cupy.float32)
x = da.from_array(base, chunks=chunk, asarray=False)
views = [base[i:i + chunk] for i in range(0, n, chunk)]
sync = cupy.cuda.Device().synchronize


def med(f, k=5):
    f()
    sync()
    r = []
    for _ in range(k):
        t0 = time.perf_counter()
        f()
        sync()
        r.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(r)


def row(name, us):
    print("%-44s %10.1f us" % (name, us), flush=True)


def chained_cumsum():
    carry = None
    for v in views:
        y = warpkit.cumsum(v, prefix=carry)
        carry = y[-1:].copy()


row("chunks alone: warpkit.sum", med(lambda: [warpkit.sum(v) for v in views]))
row("chunks alone: cupy sum", med(lambda: [v.sum() for v in views]))
row("chunks alone: warpkit.cumsum chained", med(chained_cumsum))
row("chunks alone: cupy.cumsum", med(lambda: [cupy.cumsum(v) for v in views]))
row("chunks alone: warpkit select + trim", med(lambda: [warpkit.trim(*warpkit.select(v, ">", 0.5)) for v in views]))
row("chunks alone: cupy v[v > 0.5]", med(lambda: [v[v > 0.5] for v in views]))


def noop(b, axis=None, keepdims=None, computing_meta=False, **kw):
    return b if computing_meta else cupy.zeros(1, cupy.float32)


meta = cupy.zeros((), cupy.float32)
row("dask, no work: reduction tree", med(lambda: da.reduction(x, noop, noop, combine=noop, axis=None, keepdims=False,
                                                               dtype=x.dtype, concatenate=False, meta=meta).compute()))
row("dask, no work: map_blocks", med(lambda: x.map_blocks(lambda b: b[:1], chunks=((1,) * x.numblocks[0],)).compute()))


def tree_sum():
    """The design before: da.reduction's tree (split_every 4), tokenized functions."""
    def chunk(b, axis=None, keepdims=None, computing_meta=False, **kw):
        return b if computing_meta else {"v": warpkit.sum(b).reshape(1)}

    def comb(parts, axis=None, keepdims=None, computing_meta=False, **kw):
        if computing_meta:
            return parts
        return {"v": warpkit.sum(cupy.concatenate([p["v"] for p in leaves(parts)])).reshape(1)}

    def agg(parts, axis=None, keepdims=None, computing_meta=False, **kw):
        if computing_meta:
            return parts
        return warpkit.sum(cupy.concatenate([p["v"] for p in leaves(parts)]))
    return da.reduction(x, chunk, agg, combine=comb, axis=None, keepdims=False, dtype=x.dtype, concatenate=False,
                        meta=meta)


def leaves(t):
    return [u for v in t for u in leaves(v)] if isinstance(t, (list, tuple)) else [t]


def one_input_sum(chunk=lambda b: warpkit.sum(b).reshape(1), aggregate=lambda p: warpkit.sum(cupy.concatenate(p))):
    """The graph of 7005e6d: chunk tasks of one input each, which Dask fuses with the tasks making their
    chunks (one level: 16 chunks)."""
    name = "one-input-sum-" + x.name
    layer = {(name + "-chunk", i): (chunk, (x.name, i)) for i in range(x.numblocks[0])}
    layer[(name,)] = (aggregate, list(layer))
    graph = HighLevelGraph.from_collections(name, layer, dependencies=[x])
    return da.Array(graph, name, chunks=(), dtype=x.dtype, meta=meta)


row("dask, no work: the graph of 7005e6d", med(lambda: one_input_sum(lambda b: b[:1], lambda p: p[0][0]).compute()))
row("dask, no work: warpkit.dask's graph", med(lambda: wkd._tree(x, "noop", lambda b: b[:1], lambda p: p[0],
                                                                  lambda p: p[0][0], x.dtype, None).compute()))
row("dask, no work: chained scan graph", med(lambda: wkd._chained_scan(x, lambda b, prefix=None: b[:1], x.dtype,
                                                                        "noop").compute()))


for sched in ("threads", "synchronous"):
    with dask.config.set(scheduler=sched):
        row("%s: warpkit.dask.sum" % sched, med(lambda: wkd.sum(x).compute()))
        row("%s: the graph of 7005e6d" % sched, med(lambda: one_input_sum().compute()))
        row("%s: the tree before (da.reduction)" % sched, med(lambda: tree_sum().compute()))
        row("%s: x.sum()" % sched, med(lambda: x.sum().compute()))
        row("%s: warpkit.dask.cumsum" % sched, med(lambda: wkd.cumsum(x).compute()))
        row("%s: x.cumsum(axis=0)" % sched, med(lambda: x.cumsum(axis=0).compute()))
        row("%s: warpkit.dask.select" % sched, med(lambda: wkd.select(x, ">", 0.5).compute()))
        row("%s: x[x > 0.5]" % sched, med(lambda: x[x > 0.5].compute()))
