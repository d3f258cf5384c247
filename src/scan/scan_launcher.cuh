/* The scan launcher of each dtype: the kernel of the plan's named shape
 * (plan.h), by op. */
#ifndef WARPKIT_SCAN_LAUNCHER_CUH
#define WARPKIT_SCAN_LAUNCHER_CUH

#include "common/c_launcher.cuh"
#include "common/operators.cuh"
#include "scan/pipelined_kernel.cuh"
#include "scan/scan_kernel.cuh"
#include "scan/widening.cuh"

namespace wk {
namespace scan {

/* A tile shape's kernel and its threads per block. */
template <class S> struct tile_shape {
    scan_kernel_ptr<S> kernel;
    unsigned block;
};

/* The tile shape of Threads threads with Vectors vectors each, inclusive
 * or exclusive, where its element size takes it (Takes); else none. */
template <bool Takes, class S, class Op, int Threads, int Vectors, int MinBlocks>
inline tile_shape<S> shape_for(bool exclusive)
{
    if constexpr (Takes)
        return {shape_kernel<S, Op, Threads, Vectors, MinBlocks>(exclusive), Threads};
    else
        return {nullptr, 0};
}

/* Launches the kernel of the plan's named shape (plan.h). A shape its
 * element size does not take gets cudaErrorInvalidValue: 2-byte elements
 * take the small tiles only, the narrow and wide tiles are for 8-byte
 * elements and the large ones for 4-byte elements. */
template <class S, class Op> inline cudaError_t launch_scanner(const wk_scan_launch *l)
{
    static_assert(sizeof(typename carried<S, Op>::type) <= 8, "value slots are 8 bytes");
    tile_io<S> io;
    io.in = reinterpret_cast<const S *>(reinterpret_cast<uintptr_t>(l->in) - l->plan.offset * sizeof(S));
    io.out = reinterpret_cast<S *>(reinterpret_cast<uintptr_t>(l->out) - l->plan.offset * sizeof(S));
    io.first = l->plan.offset;
    io.end = l->plan.offset + l->plan.n;
    io.vector_stores = l->plan.vector_stores != 0;
    io.in_place = l->in == l->out;
    constexpr bool two = sizeof(S) <= 2, eight = sizeof(S) == 8;
    const bool ex = l->exclusive != 0;
    tile_shape<S> shape = {nullptr, 0};
    switch (l->plan.shape) {
    case WK_SCAN_SHAPE_SMALL: shape = shape_for<true, S, Op, WK_SCAN_THREADS, WK_SCAN_SMALL_VECTORS, 1>(ex); break;
    case WK_SCAN_SHAPE_NARROW:
        shape = shape_for<eight, S, Op, WK_SCAN_NARROW_THREADS, WK_SCAN_SMALL_VECTORS, WK_SCAN_NARROW_MIN_BLOCKS>(ex);
        break;
    case WK_SCAN_SHAPE_LARGE:
        shape = shape_for<sizeof(S) == 4, S, Op, WK_SCAN_THREADS, WK_SCAN_LARGE_VECTORS, WK_SCAN_LARGE_MIN_BLOCKS>(ex);
        break;
    case WK_SCAN_SHAPE_WIDE:
        shape = shape_for<eight, S, Op, WK_SCAN_WIDE_THREADS, WK_SCAN_WIDE_VECTORS, WK_SCAN_WIDE_MIN_BLOCKS>(ex);
        break;
    case WK_SCAN_SHAPE_PIPELINED:
        if constexpr (!two)
            return launch_pipelined<S, Op, WK_SCAN_PIPELINED_THREADS / 32, WK_SCAN_PIPELINED_VECTORS>(l, io);
        break;
    case WK_SCAN_SHAPE_PIPELINED_WIDE:
        if constexpr (!two)
            return launch_pipelined<S, Op, WK_SCAN_PIPELINED_WIDE_THREADS / 32, WK_SCAN_PIPELINED_WIDE_VECTORS>(l,
                                                                                                                io);
        break;
    default: break;
    }
    if (!shape.kernel)
        return cudaErrorInvalidValue;
    return launch_chained(shape.kernel, (unsigned)l->plan.tiles, shape.block, 0, l->stream, l->overlap_launch != 0, io,
                          l->init, static_cast<const S *>(l->prefix), l->slots);
}

/* Picks the kernel for an op (common/operators.cuh). */
template <class S> inline cudaError_t launch_for_op(const wk_scan_launch *l)
{
    return with_operator<S, false>(l->op, [&](auto tag) { return launch_scanner<S, typename decltype(tag)::type>(l); });
}

} // namespace scan
} // namespace wk

/* The widening sum scans of one dtype (common/dtypes.h's WK_WIDER_SUMS_
 * list), by output dtype; S names the input's storage where it is expanded. */
#define WK_SCAN_WIDER_CASE_(out_code, type) \
    case out_code: return wk::scan::launch_widening<S, type>(l);

/* wk_scan_launch_<name> (common/c_launcher.cuh): the op's scan, or with
 * l->widen a sum scan into l->out_dtype. */
#define WK_DEFINE_SCAN_LAUNCHER(name, code, storage)                                                    \
    WK_DEFINE_WIDENING_C_LAUNCHER(wk_scan_launch_##name, wk_scan_launch, code, storage,                 \
                                  wk::scan::launch_for_op<storage>, WK_SCAN_WIDER_CASE_)

#endif
