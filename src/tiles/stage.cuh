/* The shared-memory part of a staged select tile (select/plan.h): `count`
 * 16-byte vectors from vector `first` of the virtual array, brought in by
 * one bulk copy when they all lie inside the data, else loaded by each
 * thread for the vectors it reads itself (the first and last tiles, or
 * GPUs without the copy engine). Also take_tile, by which the block of a
 * chained kernel (scan or select) gets its tile. */
#ifndef WARPKIT_TILES_STAGE_CUH
#define WARPKIT_TILES_STAGE_CUH

#include "common/bulk_copy.cuh"
#include "tiles/io.cuh"
#include "tiles/plan.h"
#include "tiles/order.cuh"

#include <cuda_runtime.h>

namespace wk {
namespace tiles {

template <class S> struct tile_stage {
    vec<S> *data;                /* dynamic shared memory, count vectors          */
    unsigned long long *barrier; /* a shared mbarrier word                         */
    int *wait;                   /* shared: the phase to wait for, or -1: load it */
    unsigned count;

    /* By thread 0 before the block's first barrier: starts the copy of the
     * part that begins at vector `first`, if it lies inside the data. */
    __device__ void start(const tile_io<S> &io, size_t first) const
    {
        bulk_barrier_init(barrier);
        const bool copy = bulk_copy_ok && io.whole(first, first + count - 1);
        if (copy)
            bulk_copy_start(data, io.in + first * vec<S>::size, count * 16u, barrier);
        *wait = copy ? 0 : -1;
    }

    /* By thread 0 when the block got another tile than it guessed: lets
     * the first copy land (the buffer is reused), then starts the right
     * one, whose phase is the next. */
    __device__ void restart(const tile_io<S> &io, size_t first) const
    {
        unsigned phase = 0;
        if (*wait == 0) {
            bulk_copy_wait(barrier, 0);
            phase = 1;
        }
        const bool copy = bulk_copy_ok && io.whole(first, first + count - 1);
        if (copy)
            bulk_copy_start(data, io.in + first * vec<S>::size, count * 16u, barrier);
        *wait = copy ? (int)phase : -1;
    }

    /* By every thread after the barrier that publishes `wait`: the part is
     * in shared memory for the vectors q0 + 32 k (k < rounds) this thread
     * reads, which it loads itself when there was no copy. */
    template <int rounds> __device__ void ready(const tile_io<S> &io, size_t first, unsigned q0, S fill) const
    {
        const int phase = *wait;
        if (phase >= 0) {
            bulk_copy_wait(barrier, (unsigned)phase);
            return;
        }
#pragma unroll
        for (int k = 0; k < rounds; ++k)
            data[q0 + 32 * k] = io.load(first + q0 + 32 * k, fill);
    }
};

/* Bytes of the shared-memory part of a staged tile of `threads` threads
 * with `in_shared` of their vectors there (select/plan.h). */
constexpr size_t staged_shared_bytes(int threads, int in_shared)
{
    return (size_t)threads * (size_t)in_shared * WK_TILE_VECTOR_BYTES;
}

/* Gives the block its tile (claim_tile, order.cuh) with its loads
 * already in flight: blocks almost always start in index order, so the
 * tile is almost always blockIdx.x, and its loads, `load(first vector of
 * the tile)` by every thread and for staged tiles (`staged`) the copy of
 * the shared-memory part from vector `register_vecs` of the tile, go out
 * before the counter is asked; in the rare other case both are redone for
 * the right tile. Sets *s_tile and *s_stamp (shared) and returns the tile;
 * ends with the block's barrier, after which stage.ready may run. */
template <bool staged, class S, class Load>
__device__ inline unsigned long long take_tile(const tile_slots &slots, bool wide, const tile_stage<S> &stage,
                                               const tile_io<S> &io, size_t tile_vecs, size_t register_vecs,
                                               unsigned long long *s_tile, unsigned long long *s_stamp, Load load)
{
    const size_t guess = blockIdx.x;
    if constexpr (staged) {
        if (threadIdx.x == 0)
            stage.start(io, guess * tile_vecs + register_vecs);
    }
    load(guess * tile_vecs);
    if (threadIdx.x == 0) {
        *s_tile = claim_tile(slots, wide, gridDim.x, gridDim.x, s_stamp);
        if constexpr (staged) {
            if (*s_tile != guess)
                stage.restart(io, (size_t)*s_tile * tile_vecs + register_vecs);
        }
    }
    __syncthreads();
    const unsigned long long tile = *s_tile;
    if (tile != guess)
        load((size_t)tile * tile_vecs);
    return tile;
}

/* A staged kernel's shared-memory part is more than the 48 KiB a kernel
 * gets by default, and two blocks per SM need the largest shared-memory
 * carveout. Both are attributes of the kernel, set on each call (the
 * current device may differ between calls); neither waits on the GPU. */
template <class... Params> inline cudaError_t allow_staged_shared(void (*kernel)(Params...), size_t shared_bytes)
{
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   cudaSharedmemCarveoutMaxShared);
    return err;
}

} // namespace tiles
} // namespace wk

#endif
