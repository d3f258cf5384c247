/* The scan launcher of each dtype: the kernel of the plan's tile shape
 * (plan.h), by op. */
#ifndef WARPKIT_SCAN_LAUNCHER_CUH
#define WARPKIT_SCAN_LAUNCHER_CUH

#include "pipelined_kernel.cuh"
#include "scan_kernel.cuh"

namespace wk {
namespace scan {

/* Launches the kernel of the plan's tile shape: the pipelined kernel in
 * one of its two shapes, or one of the chained kernel's (one shape for
 * 2-byte elements, three each for 4-byte and 8-byte ones). A plan of a
 * shape its element size does not take gets cudaErrorInvalidValue. */
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
    constexpr int threads = WK_SCAN_THREADS, small = WK_SCAN_SMALL_VECTORS;
    const bool ex = l->exclusive != 0;
    const unsigned block = l->plan.block, vectors = l->plan.vectors;
    if constexpr (sizeof(S) == 2) {
        if (l->plan.pipelined || block != threads || vectors != small)
            return cudaErrorInvalidValue;
        return launch_chained(shape_kernel<S, Op, threads, small, 1>(ex), (unsigned)l->plan.tiles, block, 0,
                              l->stream, l->overlap_launch != 0, io, l->init, l->slots);
    } else {
        if (l->plan.pipelined) {
            if (block == WK_SCAN_PIPELINED_THREADS && vectors == WK_SCAN_PIPELINED_VECTORS)
                return launch_pipelined<S, Op, WK_SCAN_PIPELINED_THREADS / 32, WK_SCAN_PIPELINED_VECTORS>(l, io);
            if (block == WK_SCAN_PIPELINED_WIDE_THREADS && vectors == WK_SCAN_PIPELINED_WIDE_VECTORS)
                return launch_pipelined<S, Op, WK_SCAN_PIPELINED_WIDE_THREADS / 32, WK_SCAN_PIPELINED_WIDE_VECTORS>(
                    l, io);
            return cudaErrorInvalidValue;
        }
        /* The deep chained tiles of GPUs before sm_90: 512 x 8 for 4-byte
         * elements, 128 x 16 for 8-byte ones; and the narrow tiles of
         * small 8-byte inputs. */
        constexpr int deep_threads = sizeof(S) == 8 ? WK_SCAN_WIDE_THREADS : threads;
        constexpr int deep_vectors = sizeof(S) == 8 ? WK_SCAN_WIDE_VECTORS : WK_SCAN_LARGE_VECTORS;
        constexpr int deep_min_blocks = sizeof(S) == 8 ? WK_SCAN_WIDE_MIN_BLOCKS : WK_SCAN_LARGE_MIN_BLOCKS;
        scan_kernel_ptr<S> kernel;
        if (block == threads && vectors == small)
            kernel = shape_kernel<S, Op, threads, small, 1>(ex);
        else if (block == deep_threads && vectors == deep_vectors)
            kernel = shape_kernel<S, Op, deep_threads, deep_vectors, deep_min_blocks>(ex);
        else if (sizeof(S) == 8 && block == WK_SCAN_NARROW_THREADS && vectors == small)
            kernel = shape_kernel<S, Op, WK_SCAN_NARROW_THREADS, small, WK_SCAN_NARROW_MIN_BLOCKS>(ex);
        else
            return cudaErrorInvalidValue;
        return launch_chained(kernel, (unsigned)l->plan.tiles, block, 0, l->stream, l->overlap_launch != 0, io,
                              l->init, l->slots);
    }
}

/* Picks the kernel for an op; bitwise ops exist for integer types only. */
template <class S> inline cudaError_t launch_for_op(const wk_scan_launch *l)
{
    switch (l->op) {
    case WK_SUM: return launch_scanner<S, sum>(l);
    case WK_MIN: return launch_scanner<S, min>(l);
    case WK_MAX: return launch_scanner<S, max>(l);
    case WK_AND:
    case WK_OR:
    case WK_XOR:
        if constexpr (std::is_integral<S>::value) {
            if (l->op == WK_AND)
                return launch_scanner<S, bit_and>(l);
            if (l->op == WK_OR)
                return launch_scanner<S, bit_or>(l);
            return launch_scanner<S, bit_xor>(l);
        }
        break;
    default: break;
    }
    return cudaErrorInvalidValue;
}

} // namespace scan
} // namespace wk

/* Defines the C launcher of one dtype, e.g. wk_scan_launch_f32. */
#define WK_DEFINE_SCAN_LAUNCHER(name, storage_type)                          \
    extern "C" cudaError_t wk_scan_launch_##name(const wk_scan_launch *l)    \
    {                                                                        \
        return wk::scan::launch_for_op<storage_type>(l);                     \
    }

#endif
