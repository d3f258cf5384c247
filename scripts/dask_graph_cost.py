"""Dask's own cost for the shapes of warpkit.dask's reduction graph, on the CPU: 16 NumPy chunks, tasks
that do no work, compute() wall time under the threaded and the synchronous scheduler.  Beside the
present graph (each chunk task takes the chunk function as a second input), the graph of 7005e6d (chunk
tasks of one input, which Dask fuses with the tasks making their chunks), one task over all chunks, and
Dask's own x.sum() (which does its NumPy work too).  Rounds of the designs alternate.

Usage: PYTHONPATH=python python3 scripts/dask_graph_cost.py [--chunks 16] [--rounds 15]   (needs dask[array])."""
import argparse
import statistics
import time

import dask
import dask.array as da
import numpy as np
from dask.highlevelgraph import HighLevelGraph

import warpkit.dask as wkd


def no_work(block):
    return np.zeros(1, np.float32)


def first(parts):
    return parts[0][0]


def layer_array(name, layer, x):
    graph = HighLevelGraph.from_collections(name, layer, dependencies=[x])
    return da.Array(graph, name, chunks=(), dtype=x.dtype, meta=np.zeros((), np.float32))


def one_input(x):
    """7005e6d's layout: chunk tasks of one input each, one aggregate."""
    name = "one-input-" + x.name
    layer = {(name + "-chunk", i): (no_work, (x.name, i)) for i in range(x.numblocks[0])}
    layer[(name,)] = (first, list(layer))
    return layer_array(name, layer, x)


def one_task(x):
    name = "one-task-" + x.name
    return layer_array(name, {(name,): (first, [(x.name, i) for i in range(x.numblocks[0])])}, x)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--chunks", type=int, default=16)
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args()
    chunk = 1 << 16
    x = da.from_array(np.random.default_rng(1).random(args.chunks * chunk, np.float32), chunks=chunk)
    designs = {"warpkit.dask's graph": lambda: wkd._tree(x, "no-work", no_work, first, first, x.dtype, None),
               "the graph of 7005e6d": lambda: one_input(x),
               "one task over all chunks": lambda: one_task(x),
               "x.sum() (with its work)": lambda: x.sum()}
    print("dask %s, %d chunks, median (min) of %d x 5 computes, us" % (dask.__version__, args.chunks, args.rounds))
    for scheduler in ("threads", "synchronous"):
        runs = {k: [] for k in designs}
        with dask.config.set(scheduler=scheduler):
            for _ in range(args.rounds):
                for label, build in designs.items():
                    for _ in range(5):
                        t0 = time.perf_counter()
                        build().compute()
                        runs[label].append((time.perf_counter() - t0) * 1e6)
        for label, r in runs.items():
            print("%-12s %-26s %9.1f (%9.1f)" % (scheduler, label, statistics.median(r), min(r)), flush=True)


if __name__ == "__main__":
    main()
