/* The segmented reduce of the offsets layout, whose lengths only the device
 * knows. A persistent grid of warps works in two phases:
 *  1. Warps take batches of 32 segments from a counter. In a batch, each
 *     segment of at most TinyLen elements is folded by its own lane; longer
 *     ones up to a group row (64 KiB) by the whole warp, one after another;
 *     longer still are put on a list in the workspace.
 *  2. The warp that finishes the last batch numbers the listed segments'
 *     pieces (a table of first pieces); every warp then takes pieces from a
 *     counter, folds them, and the warp that finishes a segment's last piece
 *     combines its partials in piece order.
 * Warps wait only for batches that running warps hold, never for a block
 * that has not started, so the grid needs no co-residency. A segment's
 * pieces depend on its length alone, and a segment that does not fit the
 * list or the table is folded piece by piece by one warp in the same order:
 * its result does not depend on which path took it. */
#ifndef WARPKIT_SEGMENTED_REDUCE_OFFSETS_CUH
#define WARPKIT_SEGMENTED_REDUCE_OFFSETS_CUH

#include "board.h"
#include "common/chained_launch.cuh"
#include "fold.cuh"

#include <cuda/atomic>

namespace wk {
namespace seg {

constexpr long long most_pieces = 256;

template <class S> struct lengths {
    static constexpr long long long_len = WK_SEG_GROUP_MAX_BYTES / sizeof(S);
    static constexpr long long piece_min = WK_SEG_PIECE_MIN_BYTES / sizeof(S);
};

/* How a long segment is cut: at most most_pieces pieces of at least
 * piece_min elements, in whole runs of 32. */
template <class S> __device__ inline long long piece_count(long long len)
{
    long long p = (len + lengths<S>::piece_min - 1) / lengths<S>::piece_min;
    return p < most_pieces ? p : most_pieces;
}
template <class S> __device__ inline long long piece_length(long long len)
{
    long long p = piece_count<S>(len);
    return ((len + p - 1) / p + 31) / 32 * 32;
}

/* Piece p of the segment in[lo .. hi), folded by the warp. */
template <class R>
__device__ inline typename R::partial warp_piece(const typename R::storage *__restrict__ in, long long lo, long long hi,
                                                 long long p)
{
    const long long len = piece_length<typename R::storage>(hi - lo);
    const long long b = lo + p * len;
    const long long e = b + len < hi ? b + len : hi;
    return group_allreduce<R, 32>(fold_range<R, WK_SEG_UNROLL>(in, b, e, lo, lane_id(), 32));
}

/* The whole segment, piece by piece in order, by the warp. */
template <class R>
__device__ inline typename R::partial warp_segment(const typename R::storage *__restrict__ in, long long lo, long long hi)
{
    typename R::partial acc = R::identity();
    const long long pieces = piece_count<typename R::storage>(hi - lo);
    for (long long p = 0; p < pieces; ++p)
        acc = R::combine(acc, warp_piece<R>(in, lo, hi, p));
    return acc;
}

/* The partials of `pieces` pieces from `first` on, combined in order; every
 * lane gets the result. */
template <class R>
__device__ inline typename R::partial combine_pieces(const typename R::partial *partials, unsigned first, unsigned pieces)
{
    typename R::partial acc = R::identity();
    const unsigned lane = lane_id();
    for (unsigned q0 = 0; q0 < pieces; q0 += 32) {
        typename R::partial v = q0 + lane < pieces ? R::load_partial(partials + first + q0 + lane) : R::identity();
        const unsigned here = pieces - q0 < 32 ? pieces - q0 : 32;
        for (unsigned j = 0; j < here; ++j)
            acc = R::combine(acc, shfl(full_mask, v, (int)j));
    }
    return acc;
}

template <class R> struct offsets_args {
    const typename R::storage *in;
    void *out;
    size_t result_bytes;
    size_t count;
    long long n;
    const long long *begin;
    const long long *end;
    wk_seg_board *board;
    unsigned long long batches_per_claim;
};

/* Elements per lane of the contiguous path: batches spanning up to
 * 32 * span_per_lane elements take it. */
constexpr int span_per_lane = 16;
constexpr int span_max = 32 * span_per_lane;

/* What a warp of the offsets kernel keeps in shared memory: the bounds of
 * its batch's segments, relative to the span's start, and the span. */
template <class S> struct span_stage {
    int lo[32];
    int hi[32];
    S data[span_max];
};

/* Phase 1 for a batch whose segments lie end to end (each one's end the
 * next one's begin, as offsets of a CSR layout are) and span few elements:
 * the warp loads the span coalesced into shared memory and splits it
 * evenly; each lane folds a run of consecutive elements across segment
 * boundaries, and a segmented scan over the lanes joins the pieces of
 * segments that cross runs. Two memory round trips per batch (the offsets,
 * then the span), where segment by segment would take one per segment.
 * Returns false, having done nothing, for other batches. */
template <class R>
__device__ inline bool reduce_contiguous(const offsets_args<R> &a, size_t first_seg, unsigned nvalid, long long lo,
                                         long long hi, span_stage<typename R::storage> &st)
{
    using S = typename R::storage;
    using P = typename R::partial;
    const unsigned lane = lane_id();
    const long long next_lo = shfl_down(full_mask, lo, 1);
    const bool joined = lane + 1 >= nvalid || hi == next_lo;
    const long long span_lo = shfl(full_mask, lo, 0), span_hi = shfl(full_mask, hi, (int)nvalid - 1);
    if (!__all_sync(full_mask, joined) || span_hi - span_lo > span_max)
        return false;
    const int span = (int)(span_hi - span_lo);
    st.lo[lane] = (int)(lo - span_lo);
    st.hi[lane] = (int)(hi - span_lo);
#pragma unroll
    for (int k = 0; k < span_per_lane; ++k)
        if ((int)lane + 32 * k < span)
            st.data[lane + 32 * k] = a.in[span_lo + lane + 32 * k];
    __syncwarp();
    const int per = (span + 31) / 32;
    const int p0 = (int)lane * per;
    const int p1 = p0 + per < span ? p0 + per : span;
    /* The segment holding p0: the last one starting at or before it (an
     * empty one there is followed by the one that holds it). */
    unsigned j = 0;
    if (p0 < p1)
        for (unsigned step = 16; step > 0; step >>= 1)
            if (j + step < nvalid && st.lo[j + step] <= p0)
                j += step;
    int seg_lo = st.lo[j], seg_hi = st.hi[j];
    P acc = R::identity(), head_acc = R::identity();
    bool head = p0 < p1 && seg_lo < p0; /* the run starts inside segment j */
    unsigned head_seg = ~0u;
    for (int p = p0; p < p1; ++p) {
        while (seg_hi <= p) { /* segment j ended before p */
            if (head) {
                head_acc = acc;
                head_seg = j;
                head = false;
            } else if (seg_lo < seg_hi) {
                R::store_result(result_at(a.out, a.result_bytes, first_seg + j), acc);
            }
            acc = R::identity();
            ++j;
            seg_lo = st.lo[j];
            seg_hi = st.hi[j];
        }
        acc = R::combine(acc, R::element(st.data[p], p - seg_lo));
    }
    /* Segment j at the end of the run: done here, or carried to the next
     * lanes. */
    const bool carry = p0 < p1 && seg_hi > p1;
    if (p0 < p1 && !carry) {
        if (head) {
            head_acc = acc;
            head_seg = j;
        } else {
            R::store_result(result_at(a.out, a.result_bytes, first_seg + j), acc);
        }
    }
    /* Lanes that carry one segment form runs of one key: an inclusive scan
     * within each run, in lane order, gives each lane the segment's partial
     * from its first lane through this one. */
    const unsigned key = carry ? j : 0x80000000u + lane;
    P v = carry ? acc : R::identity();
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const P up = shfl_up(full_mask, v, d);
        const unsigned up_key = shfl_up(full_mask, key, d);
        if (lane >= (unsigned)d && up_key == key)
            v = R::combine(up, v);
    }
    const P before = shfl_up(full_mask, v, 1);
    if (head_seg != ~0u)
        R::store_result(result_at(a.out, a.result_bytes, first_seg + head_seg), R::combine(before, head_acc));
    if (lane < nvalid && lo == hi)
        R::store_result(result_at(a.out, a.result_bytes, first_seg + lane), R::identity());
    __syncwarp(); /* the stage is written again by the next batch */
    return true;
}

/* This lane's segment of batch b, clamped into the input. */
template <class R> __device__ inline void batch_bounds(const offsets_args<R> &a, unsigned long long b, long long &lo, long long &hi)
{
    const size_t seg = (size_t)b * 32 + lane_id();
    lo = hi = 0;
    if (seg < a.count) {
        lo = clamp_offset(a.begin[seg], a.n);
        hi = clamp_offset(a.end[seg], a.n);
        if (hi < lo)
            hi = lo;
    }
}

/* Segments up to this long take one round of loads by the whole warp. */
constexpr long long one_round_len = 128;

template <class R>
__device__ inline void reduce_batch(const offsets_args<R> &a, unsigned long long b, long long lo, long long hi,
                                    span_stage<typename R::storage> &st)
{
    using S = typename R::storage;
    using P = typename R::partial;
    const unsigned lane = lane_id();
    const size_t seg = (size_t)b * 32 + lane;
    const bool valid = seg < a.count;
    const size_t left = a.count - (size_t)b * 32;
    if (reduce_contiguous(a, (size_t)b * 32, left < 32 ? (unsigned)left : 32u, lo, hi, st))
        return;
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
        R::store_result(result_at(a.out, a.result_bytes, seg), acc);
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
            R::store_result(result_at(a.out, a.result_bytes, (size_t)b * 32 + j), acc);
    }
    unsigned medium = __ballot_sync(full_mask, valid && len > one_round_len && len <= lengths<S>::long_len);
    while (medium) {
        const int j = __ffs(medium) - 1;
        medium &= medium - 1;
        const long long jlo = shfl(full_mask, lo, j), jhi = shfl(full_mask, hi, j);
        typename R::partial acc = R::combine(R::identity(), warp_piece<R>(a.in, jlo, jhi, 0));
        if (lane == 0)
            R::store_result(result_at(a.out, a.result_bytes, (size_t)b * 32 + j), acc);
    }
    unsigned long_ones = __ballot_sync(full_mask, valid && len > lengths<S>::long_len);
    wk_seg_counters &c = a.board->counters;
    while (long_ones) {
        const int j = __ffs(long_ones) - 1;
        long_ones &= long_ones - 1;
        const long long jlo = shfl(full_mask, lo, j), jhi = shfl(full_mask, hi, j);
        const size_t jseg = (size_t)b * 32 + j;
        unsigned slot = 0;
        if (lane == 0) {
            slot = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.listed).fetch_add(1u,
                                                                                              cuda::memory_order_relaxed);
            if (slot < WK_SEG_LIST_CAPACITY) {
                a.board->segment[slot] = jseg;
                a.board->begin[slot] = jlo;
                a.board->end[slot] = jhi;
            }
        }
        slot = shfl(full_mask, slot, 0);
        if (slot >= WK_SEG_LIST_CAPACITY) {
            typename R::partial acc = warp_segment<R>(a.in, jlo, jhi);
            if (lane == 0)
                R::store_result(result_at(a.out, a.result_bytes, jseg), acc);
        }
    }
}

/* Run by the warp that finished the last batch: numbers the pieces of the
 * listed segments, as long as their partials fit the board. */
template <class S> __device__ inline void build_piece_table(wk_seg_board *board)
{
    wk_seg_counters &c = board->counters;
    const unsigned lane = lane_id();
    unsigned entries = __ldcg(&c.listed);
    if (entries > WK_SEG_LIST_CAPACITY)
        entries = WK_SEG_LIST_CAPACITY;
    unsigned carry = 0, split = entries;
    for (unsigned e0 = 0; e0 < entries; e0 += 32) {
        const unsigned e = e0 + lane;
        const unsigned pieces = e < entries ? (unsigned)piece_count<S>(__ldcg(&board->end[e]) - __ldcg(&board->begin[e])) : 0u;
        const unsigned inclusive = warp_inclusive_scan(pieces, sum{});
        const unsigned first = carry + inclusive - pieces;
        const bool fits = carry + inclusive <= WK_SEG_PIECE_CAPACITY;
        if (e < entries && fits)
            board->first_piece[e] = first;
        const unsigned fit = __ballot_sync(full_mask, e < entries && fits);
        const unsigned in_chunk = e0 + 32 <= entries ? 32u : entries - e0;
        if (__popc(fit) < (int)in_chunk) {
            /* The first entry that does not fit ends the split ones. */
            split = e0 + __popc(fit);
            carry = shfl(full_mask, first, __popc(fit) < 32 ? __popc(fit) : 31) ; /* its first piece */
            break;
        }
        carry += shfl(full_mask, inclusive, 31);
    }
    if (lane == 0) {
        board->first_piece[split] = carry;
        c.pieces = carry;
        c.split_entries = split;
        c.entries = entries;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.table_ready).store(1u, cuda::memory_order_release);
    }
}

/* Phase 2: the listed segments' pieces, then the entries that were not
 * split, one warp each. */
template <class R> __device__ inline void reduce_listed(const offsets_args<R> &a)
{
    using P = typename R::partial;
    wk_seg_board *board = a.board;
    wk_seg_counters &c = board->counters;
    const unsigned lane = lane_id();
    P *partials = reinterpret_cast<P *>(board->partials);
    const unsigned pieces = __ldcg(&c.pieces), split = __ldcg(&c.split_entries), entries = __ldcg(&c.entries);
    const unsigned items = pieces + (entries - split);
    for (;;) {
        unsigned item = 0;
        if (lane == 0)
            item = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.next_item).fetch_add(
                1u, cuda::memory_order_relaxed);
        item = shfl(full_mask, item, 0);
        if (item >= items)
            return;
        if (item >= pieces) {
            const unsigned e = split + (item - pieces);
            P acc = warp_segment<R>(a.in, __ldcg(&board->begin[e]), __ldcg(&board->end[e]));
            if (lane == 0)
                R::store_result(result_at(a.out, a.result_bytes, (size_t)__ldcg(&board->segment[e])), acc);
            continue;
        }
        /* The entry whose pieces hold this item: the last first_piece <= item. */
        unsigned lo = 0, hi = split - 1;
        while (lo < hi) {
            const unsigned mid = (lo + hi + 1) / 2;
            if (__ldcg(&board->first_piece[mid]) <= item)
                lo = mid;
            else
                hi = mid - 1;
        }
        const unsigned e = lo, first = __ldcg(&board->first_piece[e]);
        const long long slo = __ldcg(&board->begin[e]), shi = __ldcg(&board->end[e]);
        const unsigned count = (unsigned)piece_count<typename R::storage>(shi - slo);
        P part = warp_piece<R>(a.in, slo, shi, item - first);
        bool last = false;
        if (lane == 0) {
            partials[item] = part;
            last = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(board->done[e]).fetch_add(
                       1u, cuda::memory_order_acq_rel) == count - 1;
        }
        if (!shfl(full_mask, last, 0))
            continue;
        P acc = combine_pieces<R>(partials, first, count);
        if (lane == 0) {
            R::store_result(result_at(a.out, a.result_bytes, (size_t)__ldcg(&board->segment[e])), acc);
            board->done[e] = 0; /* ready for the next launch */
        }
    }
}

template <class R>
__global__ void __launch_bounds__(WK_SEG_THREADS, WK_SEG_BLOCKS_PER_SM) offsets_reduce_kernel(offsets_args<R> a)
{
    __shared__ span_stage<typename R::storage> s_stage[WK_SEG_THREADS / 32];
    wait_for_previous_kernel();
    allow_next_kernel();
    wk_seg_counters &c = a.board->counters;
    const unsigned lane = lane_id();
    span_stage<typename R::storage> &st = s_stage[threadIdx.x / 32];
    const unsigned long long batches = (a.count + 31) / 32;
    bool builder = false;
    for (;;) {
        unsigned long long first = 0;
        if (lane == 0)
            first = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(c.next_batch)
                        .fetch_add(a.batches_per_claim, cuda::memory_order_relaxed);
        first = shfl(full_mask, first, 0);
        if (first >= batches)
            break;
        const unsigned long long stop = first + a.batches_per_claim < batches ? first + a.batches_per_claim : batches;
        /* The next batch's offsets load while this one is folded. */
        long long lo, hi, next_lo = 0, next_hi = 0;
        batch_bounds(a, first, lo, hi);
        for (unsigned long long b = first; b < stop; ++b) {
            if (b + 1 < stop)
                batch_bounds(a, b + 1, next_lo, next_hi);
            reduce_batch(a, b, lo, hi, st);
            lo = next_lo;
            hi = next_hi;
        }
        if (lane == 0) {
            /* Release publishes this warp's list entries. */
            const unsigned long long before =
                cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(c.batches_done)
                    .fetch_add(stop - first, cuda::memory_order_acq_rel);
            builder = before + (stop - first) == batches;
        }
    }
    if (shfl(full_mask, builder, 0))
        build_piece_table<typename R::storage>(a.board);
    if (lane == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ready(c.table_ready);
        while (ready.load(cuda::memory_order_acquire) == 0)
            __nanosleep(256);
    }
    __syncwarp();
    reduce_listed(a);

    if (lane == 0) {
        const unsigned warps = gridDim.x * (blockDim.x / 32);
        if (cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.warps_done)
                .fetch_add(1u, cuda::memory_order_acq_rel) == warps - 1) {
            /* Every other warp is done with the counters: leave them zero. */
            c.next_batch = 0;
            c.batches_done = 0;
            c.listed = 0;
            c.table_ready = 0;
            c.next_item = 0;
            c.pieces = 0;
            c.split_entries = 0;
            c.entries = 0;
            c.aggregated = 0;
            c.next_scan_item = 0;
            c.warps_done = 0;
        }
    }
}

} // namespace seg
} // namespace wk

#endif
