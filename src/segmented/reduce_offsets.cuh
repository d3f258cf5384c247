/* The segmented reduce of the offsets layout, whose lengths only the device
 * knows. A persistent grid of warps:
 *  1. Warps take units of 128 segments from a counter. A unit whose
 *     segments lie end to end over at most 32 runs (joined_runs.cuh) is
 *     folded at once; otherwise each of its four batches of 32 is, if it
 *     can be, and else segment by segment: a segment of at most tiny_len
 *     elements by its own lane, one up to the call's long length (64 KiB,
 *     more on inputs over 1 GiB) by the whole warp, and a longer one is
 *     listed on the board with numbers for its pieces.
 *  2. A warp out of units takes pieces by number from a counter, as soon as
 *     they are listed, folds them, and the warp that finishes a segment's
 *     last piece combines its partials in piece order.
 * Warps wait only for units that running warps hold, never for a block
 * that has not started, so the grid needs no co-residency. A segment's
 * pieces depend on its length and the call's cut alone. Segments that do
 * not overlap always fit the board (the cut grows with the input); one
 * that does not fit (overlapping ones) is folded piece by piece by the warp
 * that found it, in the same order: its result does not depend on which
 * path took it. */
#ifndef WARPKIT_SEGMENTED_REDUCE_OFFSETS_CUH
#define WARPKIT_SEGMENTED_REDUCE_OFFSETS_CUH

#include "segmented/board.h"
#include "common/chained_launch.cuh"
#include "segmented/fold.cuh"
#include "segmented/joined_runs.cuh"
#include "segmented/pieces.cuh"

#include <cuda/atomic>

namespace wk {
namespace seg {

/* Segments per lane of a unit, and per unit. */
constexpr int unit_per_lane = 4;
constexpr unsigned unit_segments = 32 * unit_per_lane;

template <class R> struct offsets_args {
    const typename R::storage *in;
    void *out;
    size_t result_bytes;
    size_t count;
    long long n;
    const long long *begin;
    const long long *end;
    wk_seg_board *board;
    wk_seg_cut cut;
    unsigned long long units_per_claim;
};

using device_atomic_u32 = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;
using device_atomic_u64 = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

/* Puts the long segment jseg = in[lo .. hi) on the board and publishes its
 * pieces' numbers; one that does not fit is folded here. One number
 * counts both entries and pieces, so that entries and their first pieces
 * come in the same order and never overflow each other. */
template <class R> __device__ inline void list_segment(const offsets_args<R> &a, size_t jseg, long long lo, long long hi)
{
    wk_seg_board *board = a.board;
    const unsigned lane = lane_id();
    const unsigned pieces = (unsigned)piece_count(hi - lo, a.cut);
    unsigned slot = ~0u, first = 0;
    if (lane == 0) {
        device_atomic_u64 listing(board->counters.listing);
        const unsigned long long now = listing.load(cuda::memory_order_relaxed);
        if ((now >> 32) < WK_SEG_LIST_CAPACITY && (unsigned)now <= WK_SEG_PIECE_CAPACITY - pieces) {
            const unsigned long long old = listing.fetch_add((1ull << 32) | pieces, cuda::memory_order_relaxed);
            if ((old >> 32) < WK_SEG_LIST_CAPACITY && (unsigned)old <= WK_SEG_PIECE_CAPACITY - pieces) {
                slot = (unsigned)(old >> 32);
                first = (unsigned)old;
                board->segment[slot] = jseg;
                board->begin[slot] = lo;
                board->end[slot] = hi;
                board->first_piece[slot] = first;
                __threadfence();
            }
        }
    }
    slot = shfl(full_mask, slot, 0);
    first = shfl(full_mask, first, 0);
    if (slot == ~0u) {
        const typename R::partial acc = warp_segment<R>(a.in, lo, hi, a.cut);
        if (lane == 0)
            R::store_result(result_at(a.out, a.result_bytes, jseg), acc);
        return;
    }
    /* The entry, written before the warp meets here, is released with every
     * piece's number. */
    __syncwarp();
    for (unsigned q = lane; q < pieces; q += 32)
        device_atomic_u32(board->piece_entry[first + q]).store(slot + 1, cuda::memory_order_release);
    /* Every lane's numbers come before lane 0's later release of the units
     * done: a warp that sees every unit done sees every number. */
    __syncwarp();
}

/* The batch of 32 segments from `first` on, this lane's lo .. hi, that
 * does not lie end to end: segment by segment, by length. */
template <class R>
__device__ inline void reduce_apart(const offsets_args<R> &a, size_t first, long long lo, long long hi)
{
    using S = typename R::storage;
    using P = typename R::partial;
    constexpr long long one_round_len = 128; /* one round of loads by the warp */
    const unsigned lane = lane_id();
    const bool valid = first + lane < a.count;
    const long long len = hi - lo;
    if (valid && len <= tiny_len) {
        /* Loads in rounds of four, each round issued before it is used. */
        P acc = R::identity();
        for (long long k0 = 0; k0 < len; k0 += 4) {
            S x[4];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (k0 + k < len)
                    x[k] = a.in[lo + k0 + k];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (k0 + k < len)
                    acc = R::combine(acc, R::element(x[k], k0 + k));
        }
        R::store_result(result_at(a.out, a.result_bytes, first + lane), acc);
    }
    unsigned short_ones = __ballot_sync(full_mask, valid && len > tiny_len && len <= one_round_len);
    while (short_ones) {
        const int j = __ffs(short_ones) - 1;
        short_ones &= short_ones - 1;
        const long long jlo = shfl(full_mask, lo, j), jhi = shfl(full_mask, hi, j);
        S x[one_round_len / 32];
#pragma unroll
        for (int k = 0; k < one_round_len / 32; ++k)
            if (jlo + lane + 32 * k < jhi)
                x[k] = a.in[jlo + lane + 32 * k];
        P acc = R::identity();
#pragma unroll
        for (int k = 0; k < one_round_len / 32; ++k)
            if (jlo + lane + 32 * k < jhi)
                acc = R::combine(acc, R::element(x[k], lane + 32 * k));
        acc = group_allreduce<R, 32>(acc);
        if (lane == 0)
            R::store_result(result_at(a.out, a.result_bytes, first + j), acc);
    }
    unsigned medium = __ballot_sync(full_mask, valid && len > one_round_len && len <= a.cut.long_len);
    while (medium) {
        const int j = __ffs(medium) - 1;
        medium &= medium - 1;
        const long long jlo = shfl(full_mask, lo, j), jhi = shfl(full_mask, hi, j);
        const P acc = group_allreduce<R, 32>(fold_range<R, WK_SEG_UNROLL>(a.in, jlo, jhi, jlo, lane, 32));
        if (lane == 0)
            R::store_result(result_at(a.out, a.result_bytes, first + j), acc);
    }
    unsigned long_ones = __ballot_sync(full_mask, valid && len > a.cut.long_len);
    while (long_ones) {
        const int j = __ffs(long_ones) - 1;
        long_ones &= long_ones - 1;
        list_segment(a, first + j, shfl(full_mask, lo, j), shfl(full_mask, hi, j));
    }
}

/* Unit u: at once where its segments lie end to end and fit the stage,
 * else batch by batch. */
template <class R>
__device__ inline void reduce_unit(const offsets_args<R> &a, unsigned long long u,
                                   joined_stage<typename R::storage, typename R::partial> &st)
{
    const unsigned lane = lane_id();
    const size_t first = (size_t)u * unit_segments;
    if (first + unit_segments <= a.count) {
        /* As given: a unit that lies end to end inside the input needs no
         * clamping, and one that does not is read again batch by batch. */
        long long lo[unit_per_lane], hi[unit_per_lane];
#pragma unroll
        for (int k = 0; k < unit_per_lane; ++k) {
            lo[k] = a.begin[first + lane + 32 * k];
            hi[k] = a.end[first + lane + 32 * k];
        }
        if (reduce_joined<R, unit_per_lane>(a.in, a.n, a.out, a.result_bytes, first, unit_segments, lo, hi, st))
            return;
    }
    for (size_t b = first; b < first + unit_segments && b < a.count; b += 32) {
        long long lo[1], hi[1];
        segment_bounds(a.begin, a.end, a.count, a.n, b, lo[0], hi[0]);
        const unsigned nvalid = a.count - b < 32 ? (unsigned)(a.count - b) : 32u;
        if (!reduce_joined<R, 1>(a.in, a.n, a.out, a.result_bytes, b, nvalid, lo, hi, st))
            reduce_apart(a, b, lo[0], hi[0]);
    }
}

/* Asks L2 for unit u's bounds, to be read after the unit before it. */
template <class R> __device__ inline void prefetch_unit(const offsets_args<R> &a, unsigned long long u)
{
    const size_t seg = (size_t)u * unit_segments + unit_per_lane * lane_id();
    if (seg < a.count) {
        asm volatile("prefetch.global.L2 [%0];" ::"l"(a.begin + seg));
        asm volatile("prefetch.global.L2 [%0];" ::"l"(a.end + seg));
    }
}

/* Phase 2: pieces by number, each as soon as it is listed; returns once
 * every unit is done and the number taken belongs to no listed piece. */
template <class R> __device__ inline void reduce_pieces(const offsets_args<R> &a, unsigned long long units)
{
    using P = typename R::partial;
    wk_seg_board *board = a.board;
    wk_seg_counters &c = board->counters;
    const unsigned lane = lane_id();
    P *partials = reinterpret_cast<P *>(board->partials);
    for (;;) {
        unsigned item = 0, entry = 0;
        if (lane == 0) {
            item = device_atomic_u32(c.next_item).fetch_add(1u, cuda::memory_order_relaxed);
            if (item < WK_SEG_PIECE_CAPACITY) {
                device_atomic_u32 number(board->piece_entry[item]);
                device_atomic_u64 done_units(c.batches_done);
                /* Waits on this piece's own word, and now and then on the
                 * shared counter, backing off: waiting warps keep off the
                 * counters' line that listing warps update. Both are read
                 * relaxed (an acquire read invalidates the SM's L1 at every
                 * poll) and a fence orders what follows the read that ends
                 * the wait. */
                unsigned pause = 128;
                for (unsigned round = 1;; ++round) {
                    entry = number.load(cuda::memory_order_relaxed);
                    if (entry != 0)
                        break;
                    /* Every unit done: every listing is published. */
                    if (round % 8 == 0 && done_units.load(cuda::memory_order_relaxed) == units) {
                        cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
                        entry = number.load(cuda::memory_order_relaxed);
                        break;
                    }
                    __nanosleep(pause);
                    pause = pause < 2048 ? 2 * pause : pause;
                }
                cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
                if (entry != 0)
                    number.store(0u, cuda::memory_order_relaxed); /* ready for the next launch */
            }
        }
        entry = shfl(full_mask, entry, 0);
        item = shfl(full_mask, item, 0);
        __syncwarp(); /* lane 0's fence orders every lane's reads of the entry */
        if (entry == 0)
            return;
        const unsigned e = entry - 1, first = __ldcg(&board->first_piece[e]);
        const long long slo = __ldcg(&board->begin[e]), shi = __ldcg(&board->end[e]);
        const unsigned count = (unsigned)piece_count(shi - slo, a.cut);
        const P part = warp_piece<R>(a.in, slo, shi, item - first, a.cut);
        bool last = false;
        if (lane == 0) {
            partials[item] = part;
            /* Release publishes the partial; acquire lets the last warp see
             * every other piece's. */
            last = device_atomic_u32(board->done[e]).fetch_add(1u, cuda::memory_order_acq_rel) == count - 1;
        }
        if (!shfl(full_mask, last, 0))
            continue;
        __syncwarp(); /* and of the other pieces' partials */
        const P acc = combine_pieces<R>(partials, first, count);
        if (lane == 0) {
            R::store_result(result_at(a.out, a.result_bytes, (size_t)__ldcg(&board->segment[e])), acc);
            board->done[e] = 0; /* ready for the next launch */
        }
    }
}

template <class R>
__global__ void __launch_bounds__(WK_SEG_OFFSETS_THREADS, WK_SEG_OFFSETS_BLOCKS_PER_SM) offsets_reduce_kernel(offsets_args<R> a)
{
    using Stage = joined_stage<typename R::storage, typename R::partial>;
    __shared__ Stage s_stage[WK_SEG_OFFSETS_THREADS / 32];
    wait_for_previous_kernel();
    allow_next_kernel();
    wk_seg_counters &c = a.board->counters;
    const unsigned lane = lane_id();
    Stage &st = s_stage[threadIdx.x / 32];
    const unsigned long long units = (a.count + unit_segments - 1) / unit_segments;
    for (;;) {
        unsigned long long first = 0;
        if (lane == 0)
            first = device_atomic_u64(c.next_batch).fetch_add(a.units_per_claim, cuda::memory_order_relaxed);
        first = shfl(full_mask, first, 0);
        if (first >= units)
            break;
        const unsigned long long stop = first + a.units_per_claim < units ? first + a.units_per_claim : units;
        for (unsigned long long u = first; u < stop; ++u) {
            if (u + 1 < stop)
                prefetch_unit(a, u + 1);
            reduce_unit(a, u, st);
        }
        if (lane == 0) /* release publishes this warp's listings */
            device_atomic_u64(c.batches_done).fetch_add(stop - first, cuda::memory_order_acq_rel);
    }
    reduce_pieces(a, units);

    if (lane == 0) {
        const unsigned warps = gridDim.x * (blockDim.x / 32);
        if (device_atomic_u32(c.warps_done).fetch_add(1u, cuda::memory_order_acq_rel) == warps - 1) {
            /* Every other warp is done with the counters: leave them zero. */
            c.next_batch = 0;
            c.batches_done = 0;
            c.listing = 0;
            c.next_item = 0;
            c.warps_done = 0;
        }
    }
}

} // namespace seg
} // namespace wk

#endif
