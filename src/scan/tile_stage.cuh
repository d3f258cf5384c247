/* The shared-memory part of a staged scan tile (plan.h): `count` 16-byte
 * vectors from vector `first` of the virtual array, brought in by one bulk
 * copy when they all lie inside the data, else loaded by each thread for
 * the vectors it reads itself (the first and last tiles, or GPUs without
 * the copy engine). */
#ifndef WARPKIT_SCAN_TILE_STAGE_CUH
#define WARPKIT_SCAN_TILE_STAGE_CUH

#include "common/bulk_copy.cuh"
#include "tile_io.cuh"

#include <cuda_runtime.h>

namespace wk {
namespace scan {

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

} // namespace scan
} // namespace wk

#endif
