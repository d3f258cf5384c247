/* The reproducible sum: one launch for any n (docs/repro.md).
 *
 * Each thread splits a grid-stride share of the input into three bins
 * (binned.h), in registers. The lanes of a warp share one top: when an
 * element needs a higher one, the whole warp raises it together, so the
 * common path has no divergence and a warp combines its lanes' bins by plain
 * exact addition. Rounds whose elements all lie within 2^56 of the top's
 * limit (f32; 2^27 for f64), as nearly all data does, take the coarse split:
 * 4 additions an element instead of 7, with the same bins after each. A
 * block adds its lanes' bins as whole units, integers, into a canonical
 * partial; the last block to take a ticket combines the blocks' partials and
 * writes either the rounded sum or the partial itself. Every combination is
 * exact, so nothing here depends on the launch shape. */
#ifndef WARPKIT_REPRO_KERNEL_CUH
#define WARPKIT_REPRO_KERNEL_CUH

#include "common/block_ticket.cuh"
#include "common/c_launcher.cuh"
#include "common/chained_launch.cuh"
#include "repro/accumulate.cuh"
#include "repro/launch.h"

namespace wk {
namespace repro {

/* ------------------------------------------------------- combination */

/* A partial written by another block or kernel, read from L2 (.cg), so that
 * a stale line in this SM's L1 cannot be seen. */
__device__ inline wk_rp load_partial(const wk_rp *p)
{
    const unsigned long long *words = reinterpret_cast<const unsigned long long *>(p);
    unsigned long long w[8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
        w[i] = __ldcg(words + i);
    wk_rp q;
    memcpy(&q, w, sizeof q);
    return q;
}

/* Partials raised to one top add as plain integers: lo stays far from
 * overflow for the few thousand partials of a launch (each below 2^49). */
__device__ inline void add_aligned(wk_rp &a, const wk_rp &b)
{
#pragma unroll
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        a.hi[k] += b.hi[k];
        a.lo[k] += b.lo[k];
    }
    a.flags |= b.flags;
}

/* Lanes 0 .. count - 1 of the warp added (all at one top); every lane of
 * the low power of two at or above count ends with the sum. Lanes from
 * count up must hold zeros. */
__device__ inline wk_rp warp_sum_aligned(wk_rp p, int count = 32)
{
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) {
        if (m >= count)
            continue;
        wk_rp other = p;
#pragma unroll
        for (int k = 0; k < WK_RP_FOLD; ++k) {
            other.hi[k] = __shfl_xor_sync(all_lanes, (long long)p.hi[k], m);
            other.lo[k] = __shfl_xor_sync(all_lanes, (long long)p.lo[k], m);
        }
        other.flags = __shfl_xor_sync(all_lanes, p.flags, m);
        add_aligned(p, other);
    }
    return p;
}

/* The block's combination of its threads' partials, in thread 0. Every
 * thread calls it. The block agrees on the highest top, every partial is
 * raised to it, and the rest is integer addition. */
template <int Threads> __device__ inline wk_rp block_combine(wk_rp p, wk_rp *slots, int *tops)
{
    constexpr int warps = Threads / 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int top = (int)__reduce_max_sync(all_lanes, (unsigned)p.top);
    if (warps > 1) {
        __syncthreads(); /* tops and slots may still be read from an earlier use */
        if (lane == 0)
            tops[warp] = top;
        __syncthreads();
#pragma unroll
        for (int w = 0; w < warps; ++w)
            top = ::max(top, tops[w]);
    }
    wk_rp_raise(&p, top);
    p = warp_sum_aligned(p);
    if (warps > 1) {
        if (lane == 0)
            slots[warp] = p;
        __syncthreads();
        if (warp == 0) {
            if (lane < warps) {
                p = slots[lane];
            } else {
                wk_rp_clear(&p);
                p.top = top;
            }
            p = warp_sum_aligned(p, warps);
        }
    }
    wk_rp_normalize(&p);
    return p;
}

/* The warp's canonical partial, in every lane: each lane turns its bins
 * into whole units once (below 2^51 each, so 32 lanes' sums stay far from
 * overflow), and the lanes, which share a top, add integers. */
__device__ inline wk_rp lane_partial(const lane_sum &s, uint32_t sign_mask)
{
    wk_rp p;
    p.top = s.top;
    p.reserved = 0;
#pragma unroll
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        p.hi[k] = s.work.carry[k];
        p.lo[k] = wk_rp_units(s.work.bin[k], s.top - k);
    }
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1)
#pragma unroll
        for (int k = 0; k < WK_RP_FOLD; ++k)
            p.lo[k] += __shfl_xor_sync(all_lanes, (long long)p.lo[k], m);
    /* Carries come only after about 2^10 elements a lane: most warps skip
     * half the shuffles. */
    int64_t carried = 0;
#pragma unroll
    for (int k = 0; k < WK_RP_FOLD; ++k)
        carried |= p.hi[k];
    if (__any_sync(all_lanes, carried != 0)) {
#pragma unroll
        for (int m = 16; m >= 1; m >>= 1)
#pragma unroll
            for (int k = 0; k < WK_RP_FOLD; ++k)
                p.hi[k] += __shfl_xor_sync(all_lanes, (long long)p.hi[k], m);
    }
    uint32_t flags = __reduce_or_sync(all_lanes, s.flags);
    uint32_t signs = __reduce_and_sync(all_lanes, s.sign_and);
    /* Some element had its sign clear unless every sign bit stayed set. */
    if ((signs & sign_mask) != sign_mask)
        flags |= WK_RP_NONNEGATIVE;
    p.flags = flags;
    wk_rp_normalize(&p);
    return p;
}

/* This lane's own canonical partial (add_own_elements): its bins in whole
 * units under its own top, no other lane's. */
__device__ inline wk_rp own_partial(const lane_sum &s, uint32_t sign_mask)
{
    wk_rp p;
    uint32_t flags = s.flags;
    if ((s.sign_and & sign_mask) != sign_mask)
        flags |= WK_RP_NONNEGATIVE;
    wk_rp_from_work(&p, &s.work, s.top, flags);
    return p;
}

/* The shared memory of a block's end: each lane's bins as whole units, a
 * column a lane, and what each warp adds up. */
template <int Threads> struct block_end {
    long long words[2 * WK_RP_FOLD][Threads]; /* carries, then units, by bin */
    long long sums[2 * WK_RP_FOLD];
    int tops[Threads / 32];
    uint32_t flags[Threads / 32], signs[Threads / 32];
};

/* The block's canonical partial from its lanes' sums, in every thread;
 * every thread calls it. The block agrees on the highest of its warps' tops and
 * each lane raises its bins to it, so that the block's sum is six columns
 * of integers: a warp adds each column, a lane a row at a time, then by
 * shuffles. Every lane's units are below 2^52, so a column of a block's
 * lanes stays far from overflow. The same integers as each warp's
 * lane_partial combined, a fraction of the instructions. */
template <int Threads> __device__ inline wk_rp block_partial(const lane_sum &s, uint32_t sign_mask, block_end<Threads> &m)
{
    constexpr int warps = Threads / 32, columns = 2 * WK_RP_FOLD;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t flags = __reduce_or_sync(all_lanes, s.flags), signs = __reduce_and_sync(all_lanes, s.sign_and);
    if (lane == 0) {
        m.tops[warp] = s.top;
        m.flags[warp] = flags;
        m.signs[warp] = signs;
    }
    __syncthreads();
    int top = m.tops[0];
#pragma unroll
    for (int w = 1; w < warps; ++w)
        top = ::max(top, m.tops[w]);
    wk_rp_work work = s.work;
    if (top != s.top) /* the same in every lane of the warp */
        wk_rp_work_raise(&work, s.top, top);
#pragma unroll
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        m.words[k][threadIdx.x] = work.carry[k];
        m.words[WK_RP_FOLD + k][threadIdx.x] = wk_rp_units(work.bin[k], top - k);
    }
    __syncthreads();
    for (int c = warp; c < columns; c += warps) {
        long long v = 0;
#pragma unroll
        for (int i = lane; i < Threads; i += 32)
            v += m.words[c][i];
#pragma unroll
        for (int d = 16; d >= 1; d >>= 1)
            v += __shfl_xor_sync(all_lanes, v, d);
        if (lane == 0)
            m.sums[c] = v;
    }
    __syncthreads();
    wk_rp p;
    p.top = top;
    p.reserved = 0;
    uint32_t all_flags = 0, all_signs = ~0u;
#pragma unroll
    for (int w = 0; w < warps; ++w) {
        all_flags |= m.flags[w];
        all_signs &= m.signs[w];
    }
    /* Some element had its sign clear unless every sign bit stayed set. */
    if ((all_signs & sign_mask) != sign_mask)
        all_flags |= WK_RP_NONNEGATIVE;
    p.flags = all_flags;
#pragma unroll
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        p.hi[k] = m.sums[k];
        p.lo[k] = m.sums[WK_RP_FOLD + k];
    }
    wk_rp_normalize(&p);
    return p;
}

/* Writes the rounded sum (format != 0) or the partial itself (format 0). */
__device__ inline void write_result(void *out, wk_rp p, int format, bool nonempty)
{
    if (nonempty)
        p.flags |= WK_RP_NONEMPTY;
    if (format == 0) {
        *static_cast<wk_rp *>(out) = p;
        return;
    }
    uint64_t bits = wk_rp_round(&p, wk_rp_format_for(format));
    if (format == 8)
        *static_cast<uint64_t *>(out) = bits;
    else if (format == 4)
        *static_cast<uint32_t *>(out) = (uint32_t)bits;
    else
        *static_cast<uint16_t *>(out) = (uint16_t)bits;
}

/* ------------------------------------------------------------ kernels */

template <class E, int Threads, int Unroll>
__global__ void __launch_bounds__(Threads, WK_REPRO_BLOCKS_PER_SM)
repro_kernel(const void *in, wk_reduce_plan plan, void *out, int format, wk_rp *partials, unsigned *ticket)
{
    __shared__ wk_rp slots[Threads / 32];
    __shared__ int tops[Threads / 32];
    __shared__ block_end<Threads> end;
    __shared__ bool last_block;
    wait_for_previous_kernel();

    lane_sum s;
    start<E>(s);
    const size_t thread = (size_t)blockIdx.x * Threads + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * Threads;
    const unsigned lane = threadIdx.x & 31;

    /* The body, warp by warp: full rounds while the warp's last lane is in
     * range, then rounds with missing vectors. */
    const uint4 *body = reinterpret_cast<const uint4 *>(element_at<E>(in, plan.head));
    size_t i = thread;
    const size_t warp_last = 31 - lane;
    for (; i + warp_last + (Unroll - 1) * threads < plan.nvec; i += Unroll * threads)
        add_full_vectors<E, Unroll>(s, body, i, threads);
    for (; i - lane < plan.nvec; i += Unroll * threads)
        add_vectors<E, Unroll>(s, body, i, threads, plan.nvec);
    /* The scalar head and tail: the first warp of block 0, a lane each, after
     * its body (here they cost the body loop no registers). */
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        typename E::raw r[1];
        for (size_t base = 0; base < plan.head; base += 32) {
            r[0] = scalar<E>(element_at<E>(in, base + lane), base + lane < plan.head);
            add_elements<E>(s, r);
        }
        size_t tail_start = plan.head + plan.nvec * plan.vec_elems;
        for (size_t base = 0; base < plan.tail; base += 32) {
            r[0] = scalar<E>(element_at<E>(in, tail_start + base + lane), base + lane < plan.tail);
            add_elements<E>(s, r);
        }
    }

    allow_next_kernel();

    wk_rp p = block_partial<Threads>(s, E::sign_mask, end);
    const bool nonempty = plan.head + plan.nvec + plan.tail > 0;
    if (gridDim.x == 1) {
        if (threadIdx.x == 0)
            write_result(out, p, format, nonempty);
        return;
    }

    if (!publish_and_take_ticket(partials + blockIdx.x, p, *ticket, gridDim.x, last_block))
        return;
    /* Up to 32 partials: the first warp alone. */
    if (gridDim.x <= 32) {
        if (threadIdx.x >= 32)
            return;
        wk_rp_clear(&p);
        if (threadIdx.x < gridDim.x)
            p = load_partial(partials + threadIdx.x);
        wk_rp_raise(&p, (int)__reduce_max_sync(all_lanes, (unsigned)p.top));
        p = warp_sum_aligned(p, (int)gridDim.x);
        wk_rp_normalize(&p);
    } else {
        /* Two partials a thread in flight at once (a grid of up to twice
         * the block's threads waits for one read from L2), raised to the
         * highest of their tops and added as integers; three would spill. */
        constexpr int held = 2;
        wk_rp_clear(&p);
        for (unsigned b = threadIdx.x; b < gridDim.x; b += held * Threads) {
            wk_rp q[held];
#pragma unroll
            for (int u = 0; u < held; ++u) {
                if (b + u * Threads < gridDim.x)
                    q[u] = load_partial(partials + b + u * Threads);
                else
                    wk_rp_clear(&q[u]);
            }
            int top = p.top;
#pragma unroll
            for (int u = 0; u < held; ++u)
                top = ::max(top, q[u].top);
            wk_rp_raise(&p, top);
#pragma unroll
            for (int u = 0; u < held; ++u) {
                wk_rp_raise(&q[u], top);
                add_aligned(p, q[u]);
            }
            wk_rp_normalize(&p);
        }
        p = block_combine<Threads>(p, slots, tops);
    }
    if (threadIdx.x == 0) {
        write_result(out, p, format, nonempty);
        reset_ticket(*ticket);
    }
}

/* Combines `count` partials from memory into the rounded sum or one partial. */
template <int Threads>
__global__ void __launch_bounds__(Threads)
repro_finish_kernel(const wk_rp *partials, size_t count, void *out, int format)
{
    __shared__ wk_rp slots[Threads / 32];
    __shared__ int tops[Threads / 32];
    wait_for_previous_kernel();
    wk_rp p;
    wk_rp_clear(&p);
    for (size_t b = threadIdx.x; b < count; b += Threads) {
        wk_rp other = load_partial(partials + b);
        wk_rp_combine(&p, &other);
    }
    p = block_combine<Threads>(p, slots, tops);
    if (threadIdx.x == 0)
        write_result(out, p, format, false);
}

template <class E, int Threads, int Unroll> inline cudaError_t launch_with(const wk_repro_launch *l)
{
    return launch_chained(repro_kernel<E, Threads, Unroll>, l->plan.grid, Threads, 0, l->stream,
                          l->overlap_launch != 0, l->in, l->plan, l->out, l->format,
                          static_cast<wk_rp *>(l->partials), l->ticket);
}

template <class E> inline cudaError_t launch_repro(const wk_repro_launch *l)
{
    if (l->plan.block == WK_REPRO_TEST_THREADS)
        return launch_with<E, WK_REPRO_TEST_THREADS, WK_REPRO_TEST_UNROLL>(l);
    return launch_with<E, WK_REPRO_THREADS, WK_REPRO_UNROLL>(l);
}

} // namespace repro
} // namespace wk

/* wk_repro_launch_<name> of a float dtype (common/c_launcher.cuh). */
#define WK_DEFINE_REPRO_LAUNCHER(name, code, storage)                                                     \
    WK_DEFINE_C_LAUNCHER(wk_repro_launch_##name, wk_repro_launch,                                         \
                         wk::repro::launch_repro<wk::repro::elements_for<storage>::type>)

#endif
