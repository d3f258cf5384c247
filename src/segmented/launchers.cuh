/* The segmented launcher of each dtype: the plan's kernel for the op. */
#ifndef WARPKIT_SEGMENTED_LAUNCHERS_CUH
#define WARPKIT_SEGMENTED_LAUNCHERS_CUH

#include "common/c_launcher.cuh"
#include "common/operators.cuh"
#include "segmented/launch.h"
#include "segmented/reduce_offsets.cuh"
#include "segmented/reduce_rows.cuh"
#include "segmented/row_tiles.cuh"
#include "segmented/scan_joined_rows.cuh"
#include "segmented/scan_segments.cuh"

#include <type_traits>

namespace wk {
namespace seg {

template <class R> inline cudaError_t launch_reduce_for(const wk_seg_launch *l)
{
    using S = typename R::storage;
    const S *in = static_cast<const S *>(l->in);
    const bool pdl = l->overlap_launch != 0;
    const unsigned grid = l->plan.grid, block = WK_SEG_THREADS;
    const size_t rb = l->result_bytes;
    /* Rows of 1 to 8 whole vectors on 16-byte boundaries load as vectors, a
     * warp's loads contiguous (longer ones stream faster in groups,
     * docs/segmented.md). */
    const size_t row_bytes = l->size * sizeof(S), stride_bytes = l->stride * sizeof(S);
    if ((l->plan.shape == WK_SEG_TINY || l->plan.shape == WK_SEG_GROUP) && reinterpret_cast<uintptr_t>(in) % 16 == 0 &&
        stride_bytes % 16 == 0 && row_bytes % 16 == 0) {
        const size_t vecs = row_bytes / 16, stride_vecs = stride_bytes / 16;
        const unsigned vgrid = wk_seg_vector_rows_grid(l->count, (unsigned)vecs);
        switch (vecs) {
        case 1: return launch_chained(vector_rows_kernel<R, 1, WK_SEG_ONE_VECTOR_UNROLL>, vgrid, block, 0, l->stream, pdl, in, l->out, rb, l->count, stride_vecs);
        case 2: return launch_chained(vector_rows_kernel<R, 2>, vgrid, block, 0, l->stream, pdl, in, l->out, rb, l->count, stride_vecs);
        case 4: return launch_chained(vector_rows_kernel<R, 4>, vgrid, block, 0, l->stream, pdl, in, l->out, rb, l->count, stride_vecs);
        case 8: return launch_chained(vector_rows_kernel<R, 8>, vgrid, block, 0, l->stream, pdl, in, l->out, rb, l->count, stride_vecs);
        default: break;
        }
    }
    switch (l->plan.shape) {
    case WK_SEG_TINY:
        return launch_chained(tiny_rows_kernel<R, 32 / sizeof(S)>, grid, block, 0, l->stream, pdl, in, l->out, rb,
                              l->count, l->size, l->stride);
    case WK_SEG_GROUP:
        switch (l->plan.group) {
        case 2: return launch_chained(group_rows_kernel<R, 2>, grid, block, 0, l->stream, pdl, in, l->out, rb, l->count, l->size, l->stride);
        case 4: return launch_chained(group_rows_kernel<R, 4>, grid, block, 0, l->stream, pdl, in, l->out, rb, l->count, l->size, l->stride);
        case 8: return launch_chained(group_rows_kernel<R, 8>, grid, block, 0, l->stream, pdl, in, l->out, rb, l->count, l->size, l->stride);
        case 16: return launch_chained(group_rows_kernel<R, 16>, grid, block, 0, l->stream, pdl, in, l->out, rb, l->count, l->size, l->stride);
        case 32: return launch_chained(group_rows_kernel<R, 32>, grid, block, 0, l->stream, pdl, in, l->out, rb, l->count, l->size, l->stride);
        }
        break;
    case WK_SEG_BLOCK:
        return launch_chained(block_rows_kernel<R>, grid, block, 0, l->stream, pdl, in, l->out, rb, l->count, l->size,
                              l->stride, l->plan.pieces, l->plan.piece_len, l->board);
    case WK_SEG_OFFSETS: {
        offsets_args<R> a;
        a.in = in;
        a.out = l->out;
        a.result_bytes = rb;
        a.count = l->count;
        a.n = (long long)l->size;
        a.begin = reinterpret_cast<const long long *>(l->begin);
        a.end = reinterpret_cast<const long long *>(l->end);
        a.board = l->board;
        a.cut = wk_seg_offsets_cut(l->size, sizeof(S), 0);
        /* About eight claims per warp: few atomics on one counter, and
         * small enough claims to even out the warps' work. */
        const unsigned long long units = (l->count + unit_segments - 1) / unit_segments;
        const unsigned offsets_block = WK_SEG_OFFSETS_THREADS;
        const unsigned long long warps = (unsigned long long)grid * (offsets_block / 32);
        const unsigned long long per = units / (warps * 8);
        a.units_per_claim = per > 0 ? per : 1;
        return launch_chained(offsets_reduce_kernel<R>, grid, offsets_block, 0, l->stream, pdl, a);
    }
    default: break; /* tiles: scans only */
    }
    return cudaErrorInvalidValue;
}

/* The reducer of an op (common/operators.cuh): arg ops carry an index. */
template <class S> inline cudaError_t launch_reduce_op(const wk_seg_launch *l)
{
    return with_operator<S, true>(l->op, [&](auto tag) {
        using Op = typename decltype(tag)::type;
        if constexpr (is_arg_op<Op>::value)
            return launch_reduce_for<reduce::arg<S, Op>>(l);
        else
            return launch_reduce_for<reduce::plain<S, Op>>(l);
    });
}

/* The plan's shape of the scan; C is what is carried (scan/carried_value.cuh),
 * for a sum kept and written as a wider dtype widened_sum
 * (wk_segmented_inclusive_scan_to). */
template <class S, class Op, bool Exclusive, class C = scan::carried<S, Op>>
inline cudaError_t launch_scan_shape(const wk_seg_launch *l)
{
    using Out = typename C::out;
    const S *in = static_cast<const S *>(l->in);
    Out *out = static_cast<Out *>(l->out);
    const bool pdl = l->overlap_launch != 0;
    const unsigned grid = l->plan.grid, block = WK_SEG_THREADS;
    if (l->plan.shape == WK_SEG_OFFSETS) {
        const unsigned long long batches = (l->count + 31) / 32;
        const unsigned long long warps = (unsigned long long)grid * (block / 32);
        const unsigned long long per = batches / (warps * 8);
        scan_offsets_args a = {l->count, (long long)l->size, reinterpret_cast<const long long *>(l->begin),
                               reinterpret_cast<const long long *>(l->end), l->init, l->board,
                               wk_seg_offsets_cut(l->size, sizeof(S), 1), per > 0 ? per : 1};
        return launch_chained(offsets_scan_kernel<S, Op, Exclusive, C>, grid, block, 0, l->stream, pdl, in, out, a);
    }
    const scan_rows_args a = {l->count, l->size, l->stride, l->init};
    switch (l->plan.shape) {
    case WK_SEG_TINY: return launch_chained(tiny_scan_kernel<S, Op, Exclusive, C>, grid, block, 0, l->stream, pdl, in, out, a);
    case WK_SEG_GROUP: return launch_chained(warp_scan_kernel<S, Op, Exclusive, C>, grid, block, 0, l->stream, pdl, in, out, a);
    case WK_SEG_TILES:
        if constexpr (std::is_same<Out, S>::value)
            return launch_row_tiles<S, Op>(l, Exclusive);
        else
            return launch_widening_row_tiles<S, Out>(l, Exclusive);
    case WK_SEG_JOINED: {
        const joined_rows_args j = {l->count, l->size, l->plan.pieces, l->init};
        return launch_chained(joined_rows_scan_kernel<S, Op, Exclusive, C>, grid, block, 0, l->stream, pdl, in, out, j);
    }
    default: break;
    }
    return cudaErrorInvalidValue;
}

/* The sum scan of S kept and written as Out, exclusive (l->scan == 2) or
 * inclusive. */
template <class S, class Out> inline cudaError_t launch_widening_scan(const wk_seg_launch *l)
{
    using C = scan::widened_sum<S, Out>;
    return l->scan == 2 ? launch_scan_shape<S, sum, true, C>(l) : launch_scan_shape<S, sum, false, C>(l);
}

/* The scan of an op (common/operators.cuh), exclusive (l->scan == 2) or
 * inclusive. */
template <class S> inline cudaError_t launch_scan_op(const wk_seg_launch *l)
{
    return with_operator<S, false>(l->op, [&](auto tag) {
        using Op = typename decltype(tag)::type;
        return l->scan == 2 ? launch_scan_shape<S, Op, true>(l) : launch_scan_shape<S, Op, false>(l);
    });
}

} // namespace seg
} // namespace wk

/* wk_seg_reduce_launch_<name> and wk_seg_scan_launch_<name>
 * (common/c_launcher.cuh): the reduce and the scans in translation units of
 * their own, so that builds run in parallel. Each takes, with l->widen, a
 * sum into l->out_dtype (WK_WIDER_SUMS_ of common/dtypes.h, as the
 * device-wide reduce and scan). */
#define WK_SEG_WIDER_CASE_(out_code, type) \
    case out_code: return wk::seg::launch_reduce_for<wk::reduce::plain<S, wk::sum, type>>(l);
#define WK_DEFINE_SEG_REDUCE_LAUNCHER(name, code, storage)                                               \
    WK_DEFINE_WIDENING_C_LAUNCHER(wk_seg_reduce_launch_##name, wk_seg_launch, code, storage,              \
                                  wk::seg::launch_reduce_op<storage>, WK_SEG_WIDER_CASE_)
#define WK_SEG_WIDER_SCAN_CASE_(out_code, type) \
    case out_code: return wk::seg::launch_widening_scan<S, type>(l);
#define WK_DEFINE_SEG_SCAN_LAUNCHER(name, code, storage)                                                 \
    WK_DEFINE_WIDENING_C_LAUNCHER(wk_seg_scan_launch_##name, wk_seg_launch, code, storage,                \
                                  wk::seg::launch_scan_op<storage>, WK_SEG_WIDER_SCAN_CASE_)

#endif
