/* Long segments of the offsets layout, cut into pieces that warps fold or
 * scan one at a time: how a segment is cut, a piece folded by a warp, and
 * the partials of a segment's pieces combined in piece order. */
#ifndef WARPKIT_SEGMENTED_PIECES_CUH
#define WARPKIT_SEGMENTED_PIECES_CUH

#include "board.h"
#include "fold.cuh"

#include <cuda/atomic>

namespace wk {
namespace seg {

/* How long segments are cut: at most `most` pieces of at least `min_bytes`,
 * in whole runs of 32 elements. The reduce cuts finer than the scan, whose
 * pieces are read twice and wait on each other's totals. */
struct scan_cut {
    static constexpr long long min_bytes = WK_SEG_PIECE_MIN_BYTES;
    static constexpr long long most = 256;
};
struct reduce_cut {
    static constexpr long long min_bytes = WK_SEG_REDUCE_PIECE_MIN_BYTES;
    static constexpr long long most = 1024;
};

/* Segments longer than this are listed and cut (shorter ones a warp takes
 * whole). */
template <class S> struct lengths {
    static constexpr long long long_len = WK_SEG_GROUP_MAX_BYTES / sizeof(S);
};

template <class S, class Cut> __device__ inline long long piece_count(long long len)
{
    constexpr long long min_len = Cut::min_bytes / (long long)sizeof(S);
    const long long p = (len + min_len - 1) / min_len;
    return p < Cut::most ? p : Cut::most;
}
template <class S, class Cut> __device__ inline long long piece_length(long long len)
{
    const long long p = piece_count<S, Cut>(len);
    return ((len + p - 1) / p + 31) / 32 * 32;
}

/* Piece p of the segment in[lo .. hi), folded by the warp. */
template <class R, class Cut>
__device__ inline typename R::partial warp_piece(const typename R::storage *__restrict__ in, long long lo, long long hi,
                                                 long long p)
{
    const long long len = piece_length<typename R::storage, Cut>(hi - lo);
    const long long b = lo + p * len;
    const long long e = b + len < hi ? b + len : hi;
    return group_allreduce<R, 32>(fold_range<R, WK_SEG_UNROLL>(in, b, e, lo, lane_id(), 32));
}

/* The whole segment, piece by piece in order, by the warp: the same bits as
 * its pieces folded by many warps and combined by combine_pieces. */
template <class R, class Cut>
__device__ inline typename R::partial warp_segment(const typename R::storage *__restrict__ in, long long lo, long long hi)
{
    typename R::partial acc = R::identity();
    const long long pieces = piece_count<typename R::storage, Cut>(hi - lo);
    for (long long p = 0; p < pieces; ++p)
        acc = R::combine(acc, warp_piece<R, Cut>(in, lo, hi, p));
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

/* The scan's piece table, built by the warp that finished the last batch:
 * numbers the pieces of the listed segments, as long as their totals fit
 * the board. */
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
        const unsigned pieces =
            e < entries ? (unsigned)piece_count<S, scan_cut>(__ldcg(&board->end[e]) - __ldcg(&board->begin[e])) : 0u;
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
            carry = shfl(full_mask, first, __popc(fit) < 32 ? __popc(fit) : 31); /* its first piece */
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

} // namespace seg
} // namespace wk

#endif
