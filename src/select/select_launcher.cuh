/* The select launcher of each dtype: the kernel of the plan's named shape
 * (plan.h), by mode. A shape the element size or mode does not take gets
 * cudaErrorInvalidValue. */
#ifndef WARPKIT_SELECT_LAUNCHER_CUH
#define WARPKIT_SELECT_LAUNCHER_CUH

#include "common/c_launcher.cuh"
#include "select/pipelined_select_kernel.cuh"
#include "select/select_kernel.cuh"

namespace wk {
namespace select {

template <class S> using select_kernel_ptr = void (*)(select_io<S>, wk_predicate, tile_slots);

/* The staged kernel of `Threads` threads with `vectors` per thread
 * (select/plan.h), 32- or 64-bit counts. */
template <class S, int Mode, int Threads, int vectors, int MinBlocks>
inline select_kernel_ptr<S> staged_kernel(bool wide_counts, size_t *shared_bytes)
{
    constexpr int in_registers = WK_SELECT_STAGED_REGISTER_VECTORS, in_shared = vectors - in_registers;
    *shared_bytes = tiles::staged_shared_bytes(Threads, in_shared);
    if constexpr (vectors == WK_SELECT_STAGED_VECTORS) {
        if (wide_counts)
            return select_kernel<S, unsigned long long, Mode, in_registers, MinBlocks, in_shared, Threads>;
    }
    return select_kernel<S, unsigned, Mode, in_registers, MinBlocks, in_shared, Threads>;
}

template <class S, int Mode> inline cudaError_t launch_mode(const wk_select_launch *l)
{
    select_io<S> io;
    const size_t first = l->plan.offset;
    io.src.in = reinterpret_cast<const S *>(reinterpret_cast<uintptr_t>(l->in) - first * sizeof(S));
    io.src.out = nullptr;
    io.src.first = first;
    io.src.end = first + l->plan.n;
    io.src.vector_stores = false;
    io.src.in_place = l->in == l->out;
    io.flags = reinterpret_cast<const unsigned char *>(reinterpret_cast<uintptr_t>(l->flags) - first);
    io.out = l->out;
    io.count = l->count;
    io.n = l->plan.n;
    io.previous = static_cast<const S *>(l->previous);
    io.index_base = l->index_base;
    constexpr int small = WK_SELECT_SMALL_VECTORS, large = WK_SELECT_LARGE_VECTORS;
    constexpr bool two = sizeof(S) <= 2, four = sizeof(S) == 4;
    /* 32-bit counts' shapes cannot take an input that needs 64-bit counts:
     * such inputs take at least 4 GiB, so the planner never gives them. */
    const bool wide_counts = l->plan.n >= WK_SELECT_WIDE_COUNTS_FROM;
    select_kernel_ptr<S> kernel = nullptr;
    unsigned block = WK_SELECT_THREADS;
    size_t shared_bytes = 0;
    switch (l->plan.shape) {
    case WK_SELECT_SHAPE_SMALL:
        if (!wide_counts)
            kernel = select_kernel<S, unsigned, Mode, small, WK_SELECT_SMALL_MIN_BLOCKS>;
        else if constexpr (two) /* one shape at every size */
            kernel = select_kernel<S, unsigned long long, Mode, small, WK_SELECT_SMALL_MIN_BLOCKS>;
        break;
    case WK_SELECT_SHAPE_LARGE:
        if constexpr (!two) {
            if (!wide_counts)
                kernel = select_kernel<S, unsigned, Mode, large, WK_SELECT_LARGE_MIN_BLOCKS>;
            else if constexpr (!four) /* 4-byte inputs that large take the staged tiles */
                kernel = select_kernel<S, unsigned long long, Mode, large, WK_SELECT_LARGE_MIN_BLOCKS>;
        }
        break;
    case WK_SELECT_SHAPE_STAGED_MID:
        if constexpr (four) {
            if (!wide_counts) {
                kernel = staged_kernel<S, Mode, WK_SELECT_STAGED_MID_THREADS, WK_SELECT_STAGED_MID_VECTORS,
                                       WK_SELECT_STAGED_MID_MIN_BLOCKS>(false, &shared_bytes);
                block = WK_SELECT_STAGED_MID_THREADS;
            }
        }
        break;
    case WK_SELECT_SHAPE_STAGED:
        if constexpr (four)
            kernel = staged_kernel<S, Mode, WK_SELECT_THREADS, WK_SELECT_STAGED_VECTORS, WK_SELECT_STAGED_MIN_BLOCKS>(
                wide_counts, &shared_bytes);
        break;
    /* The pipelined kernel (sm_90 and later; 4- and 8-byte elements only),
     * on l->grid blocks. */
    case WK_SELECT_SHAPE_PIPELINED:
        if constexpr (!two) {
            constexpr int warps = WK_SELECT_PIPELINED_THREADS / 32, vectors = WK_SELECT_PIPELINED_VECTORS;
            if (wide_counts)
                return launch_pipelined_select<S, unsigned long long, Mode, warps, vectors>(l, io);
            return launch_pipelined_select<S, unsigned, Mode, warps, vectors>(l, io);
        }
        break;
    case WK_SELECT_SHAPE_PIPELINED_PARTITION: /* 4-byte partitions below 128 MiB: 32-bit counts */
        if constexpr (four && Mode == WK_PARTITION_IF) {
            if (!wide_counts)
                return launch_pipelined_select<S, unsigned, Mode, WK_SELECT_PIPELINED_THREADS / 32,
                                               WK_SELECT_PIPELINED_PARTITION_VECTORS>(l, io);
        }
        break;
    default: break;
    }
    if (!kernel)
        return cudaErrorInvalidValue;
    if (shared_bytes != 0) {
        cudaError_t err = tiles::allow_staged_shared(kernel, shared_bytes);
        if (err != cudaSuccess)
            return err;
    }
    return launch_chained(kernel, (unsigned)l->plan.tiles, block, shared_bytes, l->stream, l->overlap_launch != 0,
                          io, l->predicate, l->slots);
}

template <class S> inline cudaError_t launch_for_mode(const wk_select_launch *l)
{
    switch (l->mode) {
    case WK_SELECT_IF: return launch_mode<S, WK_SELECT_IF>(l);
    case WK_SELECT_FLAGGED: return launch_mode<S, WK_SELECT_FLAGGED>(l);
    case WK_PARTITION_IF: return launch_mode<S, WK_PARTITION_IF>(l);
    case WK_UNIQUE: return launch_mode<S, WK_UNIQUE>(l);
    case WK_WHERE: return launch_mode<S, WK_WHERE>(l);
    }
    return cudaErrorInvalidValue;
}

} // namespace select
} // namespace wk

/* wk_select_launch_<name> (common/c_launcher.cuh). */
#define WK_DEFINE_SELECT_LAUNCHER(name, code, storage)                                                    \
    WK_DEFINE_C_LAUNCHER(wk_select_launch_##name, wk_select_launch, wk::select::launch_for_mode<storage>)

#endif
