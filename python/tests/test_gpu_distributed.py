"""GPU tests of warpkit.distributed: a one-rank NCCL group in this process
(every call's wiring: the gathers, offsets and prefixes with one part), and,
where two GPUs are, two processes with one GPU each against the one-GPU
calls over the concatenation.  NCCL does not put two ranks on one GPU, so a
single-GPU machine runs the first alone.  Skipped without torch or a CUDA
device."""

import os

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)
dist = pytest.importorskip("torch.distributed")
if not dist.is_nccl_available():
    pytest.skip("torch has no NCCL", allow_module_level=True)

import warpkit  # noqa: E402
import warpkit.distributed as wkdist  # noqa: E402

N = (1 << 20) + 3


def check_against_whole(parts, rank, results):
    """results (this rank's answers) against the one-GPU calls over the
    concatenation of parts (on this rank's GPU)."""
    whole = torch.cat([p.to(results["x"].device) for p in parts])
    assert results["sum_repro"].cpu().numpy().tobytes() == \
        warpkit.sum(whole, reproducible=True).cpu().numpy().tobytes()
    assert torch.equal(results["isum"], warpkit.sum(results["ix_whole"]))
    assert torch.equal(results["min"], warpkit.min(whole)) and torch.equal(results["max"], warpkit.max(whole))
    value, index = warpkit.argmax(whole, return_value=True)
    assert torch.equal(results["argmax"][1], index) and torch.equal(results["argmax"][0], value)
    value, index = warpkit.argmin(whole, return_value=True)
    assert torch.equal(results["argmin"][1], index) and torch.equal(results["argmin"][0], value)
    start = sum(p.numel() for p in parts[:rank])
    mine = slice(start, start + parts[rank].numel())
    assert torch.equal(results["cumsum_int"], warpkit.cumsum(results["ix_whole"])[mine])
    assert torch.equal(results["cummax"], warpkit.cummax(whole)[mine])
    out, count, offset, total = results["select"]
    kept = whole[whole > 0.5]
    assert int(total) == kept.numel() and int(offset) == int((whole[:start] > 0.5).sum())
    assert torch.equal(out[:int(count)], parts[rank].to(out.device)[parts[rank].to(out.device) > 0.5])


def run_rank(x, ix):
    return {"x": x, "ix_whole": None, "sum_repro": wkdist.sum(x, reproducible=True), "isum": wkdist.sum(ix),
            "min": wkdist.min(x), "max": wkdist.max(x), "argmax": wkdist.argmax(x), "argmin": wkdist.argmin(x),
            "cumsum_int": wkdist.cumsum(ix), "cummax": wkdist.cummax(x), "select": wkdist.select(x, ">", 0.5)}


def test_one_rank_group(tmp_path):
    dist.init_process_group("nccl", init_method="file://%s" % (tmp_path / "init"), rank=0, world_size=1)
    try:
        seed = int.from_bytes(os.urandom(4), "little")
        print("seed", seed)
        g = torch.Generator(device="cuda").manual_seed(seed)
        x = torch.randn(N, device="cuda", generator=g)
        ix = torch.randint(-1000, 1000, (N,), device="cuda", dtype=torch.int32, generator=g)
        r = run_rank(x, ix)
        r["ix_whole"] = ix
        check_against_whole([x], 0, r)
        empty = x[:0]
        v, i = wkdist.argmax(empty)
        assert int(i) == -1
        assert float(wkdist.sum(empty, reproducible=True)) == 0.0
    finally:
        dist.destroy_process_group()


def _two_ranks(rank, path, seed):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="file://%s/init" % path, rank=rank, world_size=2)
    g = torch.Generator().manual_seed(seed)
    sizes = [N, 1000]
    parts = [torch.randn(n, generator=g) for n in sizes]
    iparts = [torch.randint(-1000, 1000, (n,), generator=g, dtype=torch.int32) for n in sizes]
    x, ix = parts[rank].cuda(), iparts[rank].cuda()
    r = run_rank(x, ix)
    torch.cuda.synchronize()
    r["ix_whole"] = torch.cat(iparts).cuda()
    check_against_whole([p.cuda() for p in parts], rank, r)
    dist.destroy_process_group()


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="two ranks need two GPUs (NCCL: one rank a GPU)")
def test_two_ranks(tmp_path):
    import torch.multiprocessing as mp
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    mp.spawn(_two_ranks, args=(str(tmp_path), seed), nprocs=2, join=True)


class ThreadRanks:
    """torch.distributed's calls that warpkit.distributed makes, for ranks
    that are threads of this process on one GPU: all_gather_into_tensor
    meets the other threads at a barrier.  Lets the cross-rank logic (the
    prefixes, offsets, ties, empty parts) run where there is one GPU."""

    def __init__(self, world):
        import threading
        self.world, self.local = world, threading.local()
        self.barrier = threading.Barrier(world)
        self.slots = [None] * world

    def get_world_size(self, group=None):
        return self.world

    def get_rank(self, group=None):
        return self.local.rank

    def all_gather_into_tensor(self, out, t, group=None):
        torch.cuda.synchronize()
        self.slots[self.local.rank] = t.clone()
        self.barrier.wait()
        for r, s in enumerate(self.slots):
            out[r].copy_(s.reshape(-1))
        torch.cuda.synchronize()
        self.barrier.wait()

    def run(self, parts, fn):
        import threading
        results, errors = [None] * self.world, []

        def body(r):
            self.local.rank = r
            try:
                results[r] = fn(parts[r])
                torch.cuda.synchronize()
            except Exception as e:  # reported below
                errors.append(e)
                self.barrier.abort()

        threads = [threading.Thread(target=body, args=(r,)) for r in range(self.world)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return results


@pytest.mark.parametrize("dtype", [torch.float32, torch.int16, torch.int32])
def test_simulated_ranks(monkeypatch, dtype):
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    g = torch.Generator().manual_seed(seed)
    sizes = [1000, 0, 1, 70001]
    if dtype.is_floating_point:
        parts = [torch.randn(n, generator=g).to(dtype) for n in sizes]
        parts[3][5] = parts[0].max()  # a tie across ranks: the first wins
        parts[0][7] = parts[3].min().item() - 1
    else:
        parts = [torch.randint(-50, 50, (n,), generator=g).to(dtype) for n in sizes]
    parts = [p.cuda() for p in parts]
    whole = torch.cat(parts)
    ranks = ThreadRanks(len(parts))
    monkeypatch.setattr(wkdist, "dist", ranks)
    starts = [sum(sizes[:r]) for r in range(len(sizes))]

    for r, (v, i) in enumerate(ranks.run(parts, wkdist.argmax)):
        wv, wi = warpkit.argmax(whole, return_value=True)
        assert torch.equal(i, wi) and torch.equal(v, wv), r
    for r, (v, i) in enumerate(ranks.run(parts, wkdist.argmin)):
        wv, wi = warpkit.argmin(whole, return_value=True)
        assert torch.equal(i, wi) and torch.equal(v, wv), r
    for name in ("cummin", "cummax") + (() if dtype.is_floating_point else ("cumsum",)):
        want = getattr(warpkit, name)(whole)
        for r, y in enumerate(ranks.run(parts, getattr(wkdist, name))):
            assert torch.equal(y, want[starts[r]:starts[r] + sizes[r]]), (name, r)
    for r, (out, count, offset, total) in enumerate(ranks.run(parts, lambda p: wkdist.select(p, ">", 0))):
        assert int(count) == int((parts[r] > 0).sum()) and int(total) == int((whole > 0).sum())
        assert int(offset) == int((whole[:starts[r]] > 0).sum())
    if dtype.is_floating_point:
        want = warpkit.sum(whole, reproducible=True)
        for s in ranks.run(parts, lambda p: wkdist.sum(p, reproducible=True)):
            assert s.cpu().numpy().tobytes() == want.cpu().numpy().tobytes()
    else:
        for s in ranks.run(parts, wkdist.sum):
            assert torch.equal(s, warpkit.sum(whole))


def test_simulated_argmax_with_nan_and_empty_parts(monkeypatch):
    parts = [torch.empty(0), torch.tensor([1.0, 5.0]), torch.tensor([float("nan"), 9.0]), torch.tensor([float("nan")])]
    parts = [p.cuda() for p in parts]
    ranks = ThreadRanks(len(parts))
    monkeypatch.setattr(wkdist, "dist", ranks)
    for v, i in ranks.run(parts, wkdist.argmax):
        assert int(i) == 2 and torch.isnan(v)  # the first NaN of the whole
    empty = [p[:0] for p in parts]
    for v, i in ranks.run(empty, wkdist.argmax):
        assert int(i) == -1
