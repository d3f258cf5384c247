"""warpkit on Dask arrays whose chunks are device arrays (CuPy, or PyTorch
tensors where Dask carries them).

    import cupy, dask.array as da, warpkit.dask as wkd
    x = da.from_array(cupy.random.rand(1 << 26, dtype=cupy.float32), chunks=1 << 22)
    s = wkd.sum(x, reproducible=True)     # lazy: a 0-d Dask array
    s.compute()                           # the bits of warpkit.sum(whole, reproducible=True)

Every function builds a graph and computes nothing until asked, as Dask's
own do.  Each chunk is one warpkit call on its device:

- sum: each chunk's sum, then one task of up to ``split_every`` of those
  (64 unless set; a tree of such tasks past that), in the chunks' dtype
  rules; ``reproducible=True`` (floats): each chunk's exact
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

import math
import numbers
import sys
from functools import partial

import dask
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


def _concat(arrays):
    """Arrays joined end to end by their own library (torch.cat, or the
    concatenate of CuPy's or NumPy's namespace)."""
    lib = sys.modules[type(arrays[0]).__module__.split(".")[0]]
    flat = [a.reshape(-1) for a in arrays]
    return lib.cat(flat) if lib.__name__ == "torch" else lib.concatenate(flat)


# ---------------------------------------------------------------- reductions
# A chunk's result is one value or one 64-byte partial, so one task can take
# many: with split_every unset, a reduction gathers up to this many results
# a task, which makes one level for up to 64 chunks (Dask's own default of 4
# is for results as large as a chunk).
FAN_IN = 64


def _chunk_value(fn, block):
    return fn(block).reshape(1)


def _combine_values(fn, parts):
    return fn(_concat(parts)).reshape(1)


def _aggregate_values(fn, parts):
    return fn(_concat(parts))


def _chunk_partial(block):
    return _wk.repro_partial(block)


def _gather_partials(parts):
    """Partials gathered, not added: their sum is rounded once, at the end."""
    return _concat(parts)


def _finalize_partials(dtype, parts):
    return _wk.repro_finalize(_concat(parts), dtype)


def _meta(x, ndim, dtype):
    """An empty array of x's chunk type: what Dask is told a result holds, so
    that it runs no warpkit call to find out while building the graph."""
    return meta_from_array(x._meta, ndim=ndim, dtype=dtype)


def _fan_in(split_every, what):
    """The most results a task combines: split_every, else Dask's
    `split_every` setting, else FAN_IN. Dask's forms: 0 or None for the
    default, a dict of them by axis (the flat input takes their product)."""
    if not split_every:
        split_every = dask.config.get("split_every", None) or FAN_IN
    if isinstance(split_every, dict):
        split_every = math.prod(split_every.values()) if split_every else FAN_IN
    if isinstance(split_every, bool) or not isinstance(split_every, numbers.Integral) or split_every < 2:
        raise ValueError("%s: split_every must be an integer of at least 2, not %r" % (what, split_every))
    return int(split_every)


def _apply(fn, block):
    return fn(block)


def _tree(x, what, chunk, combine, aggregate, dtype, split_every, tag=""):
    """A 0-d Dask array: chunk(block) for each chunk, then combine(list of
    results) on groups of split_every until that many are left, then
    aggregate(list).  Keys are named from x's name (a token of its graph),
    the call and its arguments, so that building hashes no functions.

    The chunk function is a key of its own, so that each chunk task has two
    inputs: Dask fuses a one-input task with the task that makes its input
    and runs the pair as a small graph that it orders anew on every run,
    which costs more than the pair run apart (docs/python.md)."""
    x = _flat(x)
    fan = _fan_in(split_every, what)
    name = "%s%s-%d-%s" % (what.replace(".", "-"), tag, fan, x.name)
    fn_key = (name + "-fn",)
    layer = {fn_key: chunk}
    level = [(name + "-chunk", i) for i in range(x.numblocks[0])]
    for i, key in enumerate(level):
        layer[key] = (_apply, fn_key, (x.name, i))
    depth = 0
    while len(level) > fan:
        depth += 1
        groups = [level[j:j + fan] for j in range(0, len(level), fan)]
        level = [("%s-combine%d" % (name, depth), j) for j in range(len(groups))]
        for key, group in zip(level, groups):
            layer[key] = (combine, group)
    layer[(name,)] = (aggregate, level)
    graph = HighLevelGraph.from_collections(name, layer, dependencies=[x])
    return da.Array(graph, name, chunks=(), dtype=dtype, meta=_meta(x, 0, dtype))


def _values_tree(x, fn, what, dtype, split_every):
    return _tree(x, what, partial(_chunk_value, fn), partial(_combine_values, fn), partial(_aggregate_values, fn),
                 dtype, split_every)


def _rowwise(x, fn, dtype):
    """fn(block, axis=-1) on each chunk of whole rows: one value per row."""
    return x.map_blocks(lambda b: fn(b, axis=-1), drop_axis=x.ndim - 1, dtype=dtype,
                        meta=_meta(x, x.ndim - 1, dtype))


def sum(x, *, axis=None, reproducible=False, split_every=None):  # noqa: A001 (numpy's name)
    """The sum of a Dask array of device chunks: a lazy 0-d Dask array (with
    axis=-1, one per row).  reproducible=True (float dtypes): the same bits
    for any chunking, split_every and number of workers, and the same as
    warpkit.sum(whole, reproducible=True).  Integer and bool sums follow the
    chunks' dtype rules (int64 for bool and narrow integers).  split_every:
    the most results one task combines (default: Dask's `split_every`
    setting if set, else FAN_IN)."""
    what = "warpkit.dask.sum"
    axis = _check_axis(axis, x, what)
    if reproducible and x.dtype.kind != "f":
        raise TypeError("%s: reproducible sums are of float dtypes, not %s" % (what, x.dtype))
    if axis is not None:
        return _rowwise(x, lambda b, axis: _wk.sum(b, axis=axis, reproducible=reproducible), _sum_dtype(x))
    if reproducible:
        return _tree(x, what, _chunk_partial, _gather_partials, partial(_finalize_partials, _dtype_name(x)), x.dtype,
                     split_every, tag="-repro")
    # the chunks' sums are of the wider dtype already: summing them keeps it
    return _values_tree(x, _wk.sum, what, _sum_dtype(x), split_every)


def _extreme(x, fn, what, axis, split_every):
    axis = _check_axis(axis, x, what)
    if axis is not None:
        return _rowwise(x, fn, x.dtype)
    return _values_tree(x, fn, what, x.dtype, split_every)


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


def _scan_chunk(fn, block, carry):
    """One chunk's scan, continued from the carry of the chunks before it
    (None before the first)."""
    return fn(block.reshape(-1), prefix=carry)


def _carry(y, carry):
    """What the next chunk continues from: a copy of y's last element, so
    that the next chunk's task needs (and keeps alive) no more than that; an
    empty chunk passes the carry on."""
    return _copy(y[-1:]) if y.shape[0] else carry


def _chained_scan(x, fn, dtype, name):
    """Two tasks a chunk: its scan, which waits for the carry of the chunk
    before it, and its carry. The carry is read on the device in the order
    of the chunks' stream (the array library's current one, where both tasks
    run)."""
    x = _flat(x)
    outs = "warpkit-dask-%s-%s" % (name, x.name)
    carries = "carry-" + outs
    layer = {}
    blocks = x.numblocks[0]
    for i in range(blocks):
        before = (carries, i - 1) if i else None
        layer[(outs, i)] = (_scan_chunk, fn, (x.name, i), before)
        if i + 1 < blocks:
            layer[(carries, i)] = (_carry, (outs, i), before)
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
