/* Long segments of the offsets layout, cut into pieces that warps fold or
 * scan one at a time: how a segment is cut, a piece folded by a warp, and
 * the partials of a segment's pieces combined in piece order. */
#ifndef WARPKIT_SEGMENTED_PIECES_CUH
#define WARPKIT_SEGMENTED_PIECES_CUH

#include "segmented/board.h"
#include "segmented/fold.cuh"

#include <cuda/atomic>

namespace wk {
namespace seg {

/* A call's cut (plan.h, wk_seg_offsets_cut): segments longer than
 * long_len are listed and cut into at most `most` pieces of at least
 * piece_len elements, in whole runs of 32 elements. */
__device__ inline long long piece_count(long long len, const wk_seg_cut &cut)
{
    const long long p = (len + cut.piece_len - 1) / cut.piece_len;
    return p < cut.most ? p : cut.most;
}
__device__ inline long long piece_length(long long len, const wk_seg_cut &cut)
{
    const long long p = piece_count(len, cut);
    return ((len + p - 1) / p + 31) / 32 * 32;
}

/* Piece p of the segment in[lo .. hi), folded by the warp. */
template <class R>
__device__ inline typename R::partial warp_piece(const typename R::storage *__restrict__ in, long long lo, long long hi,
                                                 long long p, const wk_seg_cut &cut)
{
    const long long len = piece_length(hi - lo, cut);
    const long long b = lo + p * len;
    const long long e = b + len < hi ? b + len : hi;
    return group_allreduce<R, 32>(fold_range<R, WK_SEG_UNROLL>(in, b, e, lo, lane_id(), 32));
}

/* The whole segment, piece by piece in order, by the warp: the same bits as
 * its pieces folded by many warps and combined by combine_pieces. */
template <class R>
__device__ inline typename R::partial warp_segment(const typename R::storage *__restrict__ in, long long lo, long long hi,
                                                   const wk_seg_cut &cut)
{
    typename R::partial acc = R::identity();
    const long long pieces = piece_count(hi - lo, cut);
    for (long long p = 0; p < pieces; ++p)
        acc = R::combine(acc, warp_piece<R>(in, lo, hi, p, cut));
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
 * the board. Eight entries a lane a round, their bounds loaded at once:
 * the other warps wait for this table. */
__device__ inline void build_piece_table(wk_seg_board *board, const wk_seg_cut &cut)
{
    constexpr unsigned per_lane = 8;
    wk_seg_counters &c = board->counters;
    const unsigned lane = lane_id();
    unsigned entries = __ldcg(&c.listed);
    if (entries > WK_SEG_LIST_CAPACITY)
        entries = WK_SEG_LIST_CAPACITY;
    unsigned carry = 0, split = entries;
    for (unsigned e0 = 0; e0 < entries; e0 += 32 * per_lane) {
        const unsigned mine = e0 + lane * per_lane;
        long long lo[per_lane], hi[per_lane];
#pragma unroll
        for (unsigned k = 0; k < per_lane; ++k) {
            lo[k] = mine + k < entries ? __ldcg(&board->begin[mine + k]) : 0;
            hi[k] = mine + k < entries ? __ldcg(&board->end[mine + k]) : 0;
        }
        unsigned pieces[per_lane], lane_pieces = 0;
#pragma unroll
        for (unsigned k = 0; k < per_lane; ++k) {
            pieces[k] = mine + k < entries ? (unsigned)piece_count(hi[k] - lo[k], cut) : 0u;
            lane_pieces += pieces[k];
        }
        const unsigned inclusive = warp_inclusive_scan(lane_pieces, sum{});
        /* Entries fit while their pieces end within the board: a prefix,
         * since the numbers only grow. */
        unsigned first = carry + inclusive - lane_pieces, fitting = 0, fitting_pieces = 0;
#pragma unroll
        for (unsigned k = 0; k < per_lane; ++k) {
            if (mine + k < entries && first + pieces[k] <= WK_SEG_PIECE_CAPACITY) {
                board->first_piece[mine + k] = first;
                ++fitting;
                fitting_pieces += pieces[k];
            }
            first += pieces[k];
        }
        const unsigned round_entries = entries - e0 < 32 * per_lane ? entries - e0 : 32 * per_lane;
        const unsigned fit = warp_allreduce(fitting, sum{});
        if (fit < round_entries) {
            /* The first entry that does not fit ends the split ones. */
            split = e0 + fit;
            carry += warp_allreduce(fitting_pieces, sum{});
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
