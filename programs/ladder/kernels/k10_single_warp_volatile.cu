/* Kernel 10: a single-warp reduce over volatile shared memory.
 *
 * Each warp sums its own 32 values in shared memory, halving the active
 * lanes per step with only __syncwarp() between steps; then the first warp
 * gathers the warps' sums (at most 32) and sums them the same way. Passes
 * over the partials follow, as in 08.
 *
 * Only lanes below the stride write, and they read above it, so within one
 * step no lane reads what another writes; __syncwarp() orders the steps
 * (lock-step execution is no guarantee since Volta) and makes each step's
 * stores visible to the warp. volatile keeps the values in shared memory
 * instead of letting the compiler hold them in registers. */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

/* Sums sh[0 .. 32); every lane of the calling warp gets the sum. */
template <class T> __device__ inline T single_warp_sum(volatile T *sh, unsigned lane)
{
    for (unsigned s = 16; s > 0; s >>= 1) {
        if (lane < s)
            sh[lane] += sh[lane + s];
        __syncwarp();
    }
    return sh[0];
}

template <class T> __global__ void single_warp_volatile(const T *in, T *out, size_t n)
{
    T *r = shared_array<T>();
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    r[threadIdx.x] = load_one(in, n);
    __syncwarp(); /* the warp's 32 values are stored before any lane reads them */
    single_warp_sum(r + 32 * warp, lane);
    __syncthreads();
    if (warp == 0) {
        T v = lane < blockDim.x / 32 ? r[32 * lane] : T(0);
        __syncwarp(); /* all reads of the warp sums are done before r[0 .. 32) is reused */
        r[lane] = v;
        __syncwarp();
        T total = single_warp_sum(r, lane);
        if (lane == 0)
            out[blockIdx.x] = total;
    }
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_kernel(call, call->threads, single_warp_volatile<T>, call->threads * sizeof(T));
}

} // namespace wk_ladder

WK_LADDER_ENTRY(10)
