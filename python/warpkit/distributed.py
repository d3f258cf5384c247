"""warpkit over the ranks of a torch.distributed process group (NCCL).

Each rank passes its part of one long input, a CUDA tensor on its own GPU,
and gets what one call over the concatenation of the parts in rank order
gives, as warpkit's C distributed calls define it:

    import torch.distributed as dist, warpkit.distributed as wkdist
    dist.init_process_group("nccl")                  # torchrun --nproc-per-node N
    x = torch.rand(1 << 24, device="cuda")           # this rank's part
    s = wkdist.sum(x, reproducible=True)             # the same bits for any number of ranks
    y = wkdist.cumsum(x)                             # this rank's part of the global scan

A call makes its local warpkit calls and all_gather_into_tensor of a few
bytes a rank (one; three for argmin and argmax), all on the current stream: no host synchronization, and it can
be captured in a CUDA graph.  Every rank must make the same calls in the same
order (as for any collective).

- sum(x, reproducible=True): each rank's 64-byte partial (repro_partial),
  gathered and rounded once (repro_finalize): the bits of
  warpkit.sum(whole, reproducible=True) for any number of ranks and any
  split.  Without it: the ranks' sums added in rank order (the same value
  on every rank; for floats it depends on the split).
- min, max: of the ranks' results.  argmin, argmax: (value, index) with the
  index into the whole input (the first extreme, the first NaN), -1 when
  every part is empty.
- cumsum, cummin, cummax: this rank's part of the scan of the whole: its own
  scan continued from the combination of the ranks before it (prefix=).
- select(x, op, value): (out, count, offset, total): this rank's kept
  elements and their count, where they start in the whole result, and the
  whole result's length.
"""

import torch
import torch.distributed as dist

import warpkit as _wk

__all__ = ["sum", "min", "max", "argmin", "argmax", "cumsum", "cummin", "cummax", "select"]


def _gather(t, group):
    """Every rank's t (same shape and dtype on all), stacked in rank order.
    Moved as bytes: NCCL has no int16 or unsigned types wider than 8 bits."""
    t = t.reshape(-1).contiguous()
    raw = t.view(torch.uint8)
    out = torch.empty((dist.get_world_size(group), raw.numel()), dtype=torch.uint8, device=t.device)
    dist.all_gather_into_tensor(out, raw, group=group)
    return out.view(t.dtype)


def _rank(group):
    return dist.get_rank(group)


def sum(x, *, group=None, reproducible=False):  # noqa: A001 (numpy's name)
    """The sum of the whole input, a 0-d tensor on every rank (the dtype of
    warpkit.sum: PyTorch's rules)."""
    if reproducible:
        return _wk.repro_finalize(_gather(_wk.repro_partial(x), group), x.dtype)
    return _wk.sum(_gather(_wk.sum(x), group))


def min(x, *, group=None):  # noqa: A001
    """The least element of the whole input (NaN if any is NaN)."""
    return _wk.min(_gather(_wk.min(x), group))


def max(x, *, group=None):  # noqa: A001
    """The greatest element of the whole input (NaN if any is NaN)."""
    return _wk.max(_gather(_wk.max(x), group))


def _arg(x, fn, largest, group):
    value, index = fn(x, return_value=True)
    values = _gather(value, group).reshape(-1)
    indices = _gather(index, group).reshape(-1)
    # a fill kernel, not a copy from the host (which would synchronize)
    counts = _gather(torch.full((1,), x.numel(), dtype=torch.int64, device=x.device), group).reshape(-1)
    starts = torch.cumsum(counts, 0) - counts
    valid = indices >= 0
    # the first rank holding the extreme among the ranks with elements; a
    # NaN wins, the first one
    if values.dtype.is_floating_point:
        worst = float("-inf") if largest else float("inf")
    elif values.dtype == torch.bool:
        worst = not largest
    else:
        worst = torch.iinfo(values.dtype).min if largest else torch.iinfo(values.dtype).max
    filler = torch.full((), worst, dtype=values.dtype, device=x.device)
    keyed = torch.where(valid, values, filler)
    best = keyed.max() if largest else keyed.min()
    candidates = valid & (keyed == best)
    if values.dtype.is_floating_point:
        nans = valid & torch.isnan(values)
        candidates = torch.where(nans.any(), nans, candidates)
    # the first True; index_select keeps it on the device (indexing with a
    # tensor would read it back to the host)
    rank = torch.argmax(candidates.to(torch.int32)).reshape(1)
    value = values.index_select(0, rank).reshape(())
    index = (starts.index_select(0, rank) + indices.index_select(0, rank)).reshape(())
    return value, torch.where(valid.any(), index, torch.full_like(index, -1))


def argmin(x, *, group=None):
    """(value, index) of the first least element of the whole input; the
    index counts from the start of rank 0's part; -1 if all are empty."""
    return _arg(x, _wk.argmin, False, group)


def argmax(x, *, group=None):
    """(value, index) of the first greatest element of the whole input."""
    return _arg(x, _wk.argmax, True, group)


def _scan(x, scan, reduce, op, group):
    """This rank's part of the whole scan: the ranks' totals gathered, the
    combination of those before this rank as the prefix.  Rank 0 has none."""
    totals = _gather(reduce(x), group).reshape(-1)
    rank = _rank(group)
    if rank == 0:
        return scan(x.reshape(-1))
    # the ranks before: an inclusive scan of their totals, its last element
    before = _wk.scan(totals[:rank], op)[rank - 1:rank]
    return scan(x.reshape(-1), prefix=before)


def cumsum(x, *, group=None):
    """This rank's part of the cumulative sum of the whole input, in the dtype
    of warpkit.cumsum (a bool mask's positions are int64)."""
    return _scan(x, _wk.cumsum, _wk.sum, "sum", group)


def cummin(x, *, group=None):
    """This rank's part of the cumulative minimum of the whole input."""
    return _scan(x, _wk.cummin, _wk.min, "min", group)


def cummax(x, *, group=None):
    """This rank's part of the cumulative maximum of the whole input."""
    return _scan(x, _wk.cummax, _wk.max, "max", group)


def select(x, op, value=None, *, group=None):
    """(out, count, offset, total): this rank's kept elements (out has room
    for all of x; its first count are written), their count, the position of
    the first of them in the whole result, and the whole result's length:
    int64 0-d tensors on the device."""
    out, count = _wk.select(x, op, value)
    counts = _gather(count, group).reshape(-1)
    rank = _rank(group)
    offset = counts[:rank].sum()
    return out, count, offset, counts.sum()
