/* The select launcher of each dtype: the kernel of the plan's tile shape
 * (plan.h), by mode. */
#ifndef WARPKIT_SELECT_LAUNCHER_CUH
#define WARPKIT_SELECT_LAUNCHER_CUH

#include "pipelined_select_kernel.cuh"
#include "select_kernel.cuh"

namespace wk {
namespace select {

template <class S> using select_kernel_ptr = void (*)(select_io<S>, wk_predicate, tile_slots);

/* The staged kernel of `Threads` threads with `vectors` per thread
 * (select/plan.h), 32- or 64-bit counts. */
template <class S, int Mode, int Threads, int vectors, int MinBlocks>
inline select_kernel_ptr<S> staged_kernel(bool wide_counts, size_t *shared_bytes)
{
    constexpr int in_registers = WK_SELECT_STAGED_REGISTER_VECTORS, in_shared = vectors - in_registers;
    *shared_bytes = scan::staged_shared_bytes(Threads, in_shared);
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
    constexpr int small = WK_SELECT_SMALL_VECTORS, large = WK_SELECT_LARGE_VECTORS;
    const bool wide_counts = l->plan.n >= WK_SELECT_WIDE_COUNTS_FROM;
    /* The pipelined kernel (sm_90 and later; 4- and 8-byte elements only),
     * on l->grid blocks. */
    if (l->plan.pipelined) {
        constexpr int warps = WK_SELECT_PIPELINED_THREADS / 32, vectors = WK_SELECT_PIPELINED_VECTORS;
        /* The 4-byte partition's shorter tiles, below 128 MiB: 32-bit
         * counts. */
        constexpr int partition_vectors = WK_SELECT_PIPELINED_PARTITION_VECTORS;
        if constexpr (sizeof(S) == 4 && Mode == WK_PARTITION_IF) {
            if (l->plan.block == WK_SELECT_PIPELINED_THREADS && l->plan.vectors == partition_vectors && !wide_counts)
                return launch_pipelined_select<S, unsigned, Mode, warps, partition_vectors>(l, io);
        }
        if (sizeof(S) == 2 || l->plan.block != WK_SELECT_PIPELINED_THREADS || l->plan.vectors != vectors)
            return cudaErrorInvalidValue;
        if constexpr (sizeof(S) != 2) {
            if (wide_counts)
                return launch_pipelined_select<S, unsigned long long, Mode, warps, vectors>(l, io);
            return launch_pipelined_select<S, unsigned, Mode, warps, vectors>(l, io);
        }
    }
    /* The chained tiles. A plan of a shape the element size does not take
     * gets cudaErrorInvalidValue, as does one of 32-bit counts' shapes for
     * an input that needs 64-bit counts. */
    const unsigned block = l->plan.block, vectors = l->plan.vectors;
    const bool small_tiles = block == WK_SCAN_THREADS && vectors == small;
    const bool large_tiles = block == WK_SCAN_THREADS && vectors == large;
    select_kernel_ptr<S> kernel;
    size_t shared_bytes = 0;
    if constexpr (sizeof(S) == 2) {
        /* One tile shape at every size (plan.h). */
        if (!small_tiles)
            return cudaErrorInvalidValue;
        kernel = wide_counts ? select_kernel<S, unsigned long long, Mode, small, WK_SELECT_SMALL_MIN_BLOCKS>
                             : select_kernel<S, unsigned, Mode, small, WK_SELECT_SMALL_MIN_BLOCKS>;
    } else if constexpr (sizeof(S) == 4) {
        if (block == WK_SCAN_THREADS && vectors == WK_SELECT_STAGED_VECTORS)
            kernel = staged_kernel<S, Mode, WK_SCAN_THREADS, WK_SELECT_STAGED_VECTORS, WK_SELECT_STAGED_MIN_BLOCKS>(
                wide_counts, &shared_bytes);
        else if (wide_counts) /* such inputs take 8 GiB: always the 128 KiB staged tiles */
            return cudaErrorInvalidValue;
        else if (block == WK_SELECT_STAGED_MID_THREADS && vectors == WK_SELECT_STAGED_MID_VECTORS)
            kernel = staged_kernel<S, Mode, WK_SELECT_STAGED_MID_THREADS, WK_SELECT_STAGED_MID_VECTORS,
                                   WK_SELECT_STAGED_MID_MIN_BLOCKS>(false, &shared_bytes);
        else if (large_tiles)
            kernel = select_kernel<S, unsigned, Mode, large, WK_SELECT_LARGE_MIN_BLOCKS>;
        else if (small_tiles)
            kernel = select_kernel<S, unsigned, Mode, small, WK_SELECT_SMALL_MIN_BLOCKS>;
        else
            return cudaErrorInvalidValue;
        if (shared_bytes != 0) {
            cudaError_t err = scan::allow_staged_shared(kernel, shared_bytes);
            if (err != cudaSuccess)
                return err;
        }
    } else {
        if (!small_tiles && !large_tiles)
            return cudaErrorInvalidValue;
        kernel = large_tiles ? select_kernel<S, unsigned, Mode, large, WK_SELECT_LARGE_MIN_BLOCKS>
                             : select_kernel<S, unsigned, Mode, small, WK_SELECT_SMALL_MIN_BLOCKS>;
        if (wide_counts) {
            /* Such inputs take at least 4 GiB: always the large tiles. */
            if (!large_tiles)
                return cudaErrorInvalidValue;
            kernel = select_kernel<S, unsigned long long, Mode, large, WK_SELECT_LARGE_MIN_BLOCKS>;
        }
    }
    return launch_chained(kernel, (unsigned)l->plan.tiles, l->plan.block, shared_bytes, l->stream,
                          l->overlap_launch != 0, io, l->predicate, l->slots);
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

/* Defines the C launcher of one dtype, e.g. wk_select_launch_f32. */
#define WK_DEFINE_SELECT_LAUNCHER(name, storage_type)                        \
    extern "C" cudaError_t wk_select_launch_##name(const wk_select_launch *l) \
    {                                                                        \
        return wk::select::launch_for_mode<storage_type>(l);                 \
    }

#endif
