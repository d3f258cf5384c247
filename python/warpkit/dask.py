"""warpkit on Dask arrays whose chunks are device arrays (CuPy, or PyTorch
tensors where Dask carries them).

    import cupy, dask.array as da, warpkit.dask as wkd
    x = da.from_array(cupy.random.rand(1 << 26, dtype=cupy.float32), chunks=1 << 22)
    s = wkd.sum(x, reproducible=True)     # lazy: a 0-d Dask array
    s.compute()                           # the bits of warpkit.sum(whole, reproducible=True)

Every function builds a graph and computes nothing until asked, as Dask's
own do.  Each chunk is one warpkit call on its device:

- sum: each chunk's sum, combined in a tree (``split_every``), in the
  chunks' dtype rules; ``reproducible=True`` (floats): each chunk's exact
  64-byte partial (warpkit.repro_partial), gathered through the tree and
  rounded once at the end (warpkit.repro_finalize): the same bits for any
  chunking, tree or number of workers, and the same as
  ``warpkit.sum(whole, reproducible=True)`` on one GPU.
- min, max: each chunk's, then of those.
- cumsum, cummin, cummax: chunk after chunk, each continued from the last
  output of the chunks before it (``prefix=``): the same bits as the
  one-GPU call for integers and min / max.
- select, compress, nonzero: each chunk's kept elements (indices over the
  whole input for nonzero), in chunks whose sizes are unknown until
  computed, as Dask's boolean indexing gives them.

Flat (``axis=None``) over an array of any shape, taken in C order; with
``axis=-1`` the reductions and scans work row by row where every chunk
holds whole rows.  Needs ``dask[array]`` (``pip install ./python[dask]``),
imported only by this module.
"""

import operator
import sys
from functools import partial

import dask.array as da
from dask.array.utils import meta_from_array
from dask.highlevelgraph import HighLevelGraph

import warpkit as _wk

__all__ = ["sum", "min", "max", "cumsum", "cummin", "cummax", "select", "compress", "nonzero"]


# ------------------------------------------------------------------ helpers
def _flat(x):
    """x as one dimension, in C order (Dask rechunks where it must)."""
    return x if x.ndim == 1 else x.ravel()


def _rows_whole(x, what):
    if x.ndim < 1 or len(x.chunks[-1]) != 1:
        raise ValueError("%s: axis=-1 needs every chunk to hold whole rows (one chunk along the last axis); "
                         "rechunk with {-1: -1} first" % what)


def _check_axis(axis, x, what):
    if axis is None:
        return None
    if axis in (-1, x.ndim - 1):
        _rows_whole(x, what)
        return -1
    raise ValueError("%s: axis must be None or -1 (the last axis), not %r" % (what, axis))


def _parts(tree):
    """The leaves of the nested lists a reduction hands its combine step."""
    if isinstance(tree, (list, tuple)):
        out = []
        for t in tree:
            out.extend(_parts(t))
        return out
    return [tree]


def _concat(arrays):
    """Arrays joined end to end by their own library (torch.cat, or the
    concatenate of CuPy's or NumPy's namespace)."""
    lib = sys.modules[type(arrays[0]).__module__.split(".")[0]]
    flat = [a.reshape(-1) for a in arrays]
    return lib.cat(flat) if lib.__name__ == "torch" else lib.concatenate(flat)


# ---------------------------------------------------------------- reductions
def _reduce_chunk(fn, block, axis=None, keepdims=None, computing_meta=False, **kwargs):
    if computing_meta:
        return block
    return {"values": fn(block).reshape(1)}


def _reduce_combine(fn, parts, axis=None, keepdims=None, computing_meta=False, **kwargs):
    if computing_meta:
        return parts
    values = _concat([p["values"] for p in _parts(parts)])
    return {"values": fn(values).reshape(1)}


def _reduce_aggregate(fn, parts, axis=None, keepdims=None, computing_meta=False, **kwargs):
    if computing_meta:
        return parts
    return fn(_concat([p["values"] for p in _parts(parts)]))


def _repro_chunk(block, axis=None, keepdims=None, computing_meta=False, **kwargs):
    if computing_meta:
        return block
    return {"partials": _wk.repro_partial(block)}


def _repro_combine(parts, axis=None, keepdims=None, computing_meta=False, **kwargs):
    """Partials gathered, not added: their sum is rounded once, at the end."""
    if computing_meta:
        return parts
    return {"partials": _concat([p["partials"] for p in _parts(parts)])}


def _repro_aggregate(parts, dtype=None, axis=None, keepdims=None, computing_meta=False, **kwargs):
    if computing_meta:
        return parts
    return _wk.repro_finalize(_repro_combine(parts)["partials"], dtype)


def _meta(x, ndim, dtype):
    """An empty array of x's chunk type: what Dask is told a result holds, so
    that it runs no warpkit call to find out while building the graph."""
    return meta_from_array(x._meta, ndim=ndim, dtype=dtype)


def _tree(x, chunk, combine, aggregate, dtype, split_every):
    return da.reduction(x, chunk, aggregate, combine=combine, axis=None, keepdims=False, dtype=dtype,
                        split_every=split_every, concatenate=False, meta=_meta(x, 0, dtype))


def _rowwise(x, fn, dtype):
    """fn(block, axis=-1) on each chunk of whole rows: one value per row."""
    return x.map_blocks(lambda b: fn(b, axis=-1), drop_axis=x.ndim - 1, dtype=dtype,
                        meta=_meta(x, x.ndim - 1, dtype))


def sum(x, *, axis=None, reproducible=False, split_every=None):  # noqa: A001 (numpy's name)
    """The sum of a Dask array of device chunks: a lazy 0-d Dask array (with
    axis=-1, one per row).  reproducible=True (float dtypes): the same bits
    for any chunking, split_every and number of workers, and the same as
    warpkit.sum(whole, reproducible=True).  Integer and bool sums follow the
    chunks' dtype rules (int64 for bool and narrow integers)."""
    what = "warpkit.dask.sum"
    axis = _check_axis(axis, x, what)
    if reproducible and x.dtype.kind != "f":
        raise TypeError("%s: reproducible sums are of float dtypes, not %s" % (what, x.dtype))
    if axis is not None:
        return _rowwise(x, lambda b, axis: _wk.sum(b, axis=axis, reproducible=reproducible), _sum_dtype(x))
    if reproducible:
        return _tree(_flat(x), _repro_chunk, _repro_combine, partial(_repro_aggregate, dtype=_dtype_name(x)),
                     x.dtype, split_every)
    dtype = _sum_dtype(x)
    chunk = partial(_reduce_chunk, _wk.sum)
    # the chunks' sums are of the wider dtype already: summing them keeps it
    return _tree(_flat(x), chunk, partial(_reduce_combine, _wk.sum), partial(_reduce_aggregate, _wk.sum), dtype,
                 split_every)


def _extreme(x, fn, what, axis, split_every):
    axis = _check_axis(axis, x, what)
    if axis is not None:
        return _rowwise(x, fn, x.dtype)
    return _tree(_flat(x), partial(_reduce_chunk, fn), partial(_reduce_combine, fn), partial(_reduce_aggregate, fn),
                 x.dtype, split_every)


def min(x, *, axis=None, split_every=None):  # noqa: A001
    """The least element (NaN if any is NaN), a lazy 0-d Dask array."""
    return _extreme(x, _wk.min, "warpkit.dask.min", axis, split_every)


def max(x, *, axis=None, split_every=None):  # noqa: A001
    """The greatest element (NaN if any is NaN), a lazy 0-d Dask array."""
    return _extreme(x, _wk.max, "warpkit.dask.max", axis, split_every)


def _dtype_name(x):
    return x.dtype.name


def _sum_dtype(x):
    """The dtype of a sum of x's chunks, by NumPy's rules (CuPy's chunks):
    floats keep theirs, bool and integers narrower than 64 bits widen."""
    import numpy as np
    if x.dtype.kind == "f":
        return x.dtype
    return np.zeros(0, x.dtype).sum().dtype


# --------------------------------------------------------------------- scans
def _copy(a):
    return a.clone() if type(a).__module__.startswith("torch") else a.copy()


def _scan_pair(fn, block, carry):
    """(output, carry) of one chunk: its scan continued from the carry of
    the chunks before it (None before the first); an empty chunk passes the
    carry on.  The carry is a copy of one element, so that the next chunk's
    task needs (and keeps alive) no more than that."""
    y = fn(block.reshape(-1), prefix=carry)
    return y, (_copy(y[-1:]) if y.shape[0] else carry)


def _chained_scan(x, fn, dtype, name):
    """Chunk i's task waits for chunk i - 1's carry. The carry is read on the
    device in the order of the chunks' stream (the array library's current
    one, where both tasks run)."""
    x = _flat(x)
    token = "%s-%s" % (name, x.name)
    pairs, carries, outs = "pair-" + token, "carry-" + token, token
    layer = {}
    for i in range(x.numblocks[0]):
        layer[(pairs, i)] = (_scan_pair, fn, (x.name, i), (carries, i - 1) if i else None)
        layer[(outs, i)] = (operator.getitem, (pairs, i), 0)
        layer[(carries, i)] = (operator.getitem, (pairs, i), 1)
    graph = HighLevelGraph.from_collections(outs, layer, dependencies=[x])
    return da.Array(graph, outs, chunks=x.chunks, dtype=dtype, meta=_meta(x, 1, dtype))


def _scan(x, fn, dtype, name, axis):
    axis = _check_axis(axis, x, "warpkit.dask.%s" % name)
    if axis is not None:
        return x.map_blocks(lambda b: fn(b, axis=-1), dtype=dtype, meta=_meta(x, x.ndim, dtype))
    return _chained_scan(x, fn, dtype, name)


def cumsum(x, *, axis=None):
    """The cumulative sum, a lazy Dask array: flat, each chunk continued from
    the chunks before it on the device; with axis=-1, row by row.  Its dtype
    follows the chunks' sum rules (a bool mask's cumsum is int64)."""
    return _scan(x, _wk.cumsum, _sum_dtype(x), "cumsum", axis)


def cummin(x, *, axis=None):
    """The cumulative minimum (NaN from the first NaN on), as cumsum."""
    return _scan(x, _wk.cummin, x.dtype, "cummin", axis)


def cummax(x, *, axis=None):
    """The cumulative maximum (NaN from the first NaN on), as cumsum."""
    return _scan(x, _wk.cummax, x.dtype, "cummax", axis)


# ------------------------------------------------------------------- selects
def _unknown(x):
    return ((float("nan"),) * x.numblocks[0],)


def _kept(pair):
    out, count = pair
    return _wk.trim(out, count)


def select(x, op, value=None):
    """The elements of x (flat) for which `x op value` holds, in order, as a
    Dask array of unknown chunk sizes (one chunk per input chunk), as
    x[x > value] gives in Dask."""
    x = _flat(x)
    return x.map_blocks(lambda b: _kept(_wk.select(b, op, value)), chunks=_unknown(x), dtype=x.dtype,
                        meta=_meta(x, 1, x.dtype))


def compress(mask, x):
    """The elements of x (flat) whose mask element (bool or uint8) is
    nonzero, in order, in chunks of unknown sizes; mask and x are chunked
    alike."""
    x, mask = _flat(x), _flat(mask)
    if mask.chunks != x.chunks:
        mask = mask.rechunk(x.chunks)
    return da.map_blocks(lambda m, b: _kept(_wk.compress(m, b)), mask, x, chunks=_unknown(x), dtype=x.dtype,
                         meta=_meta(x, 1, x.dtype))


def nonzero(x, op="!=", value=0):
    """The int64 indices (into flat x) of its elements for which
    `x op value` holds (by default the nonzero ones), in order, in chunks of
    unknown sizes."""
    import math
    import numpy as np
    x = _flat(x)
    if any(math.isnan(c) for c in x.chunks[0]):
        raise ValueError("warpkit.dask.nonzero: x has chunks of unknown sizes (a select's result?), so its "
                         "indices cannot be placed; call x.compute_chunk_sizes() first")
    starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).astype(np.int64).tolist()

    def block(b, block_id=None):
        idx = _kept(_wk.nonzero(b, op, value))
        start = starts[block_id[0]]
        return idx + start if start else idx

    return x.map_blocks(block, chunks=_unknown(x), dtype=np.int64, meta=_meta(x, 1, np.int64))
