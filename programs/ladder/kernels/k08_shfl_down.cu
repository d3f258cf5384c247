/* Kernel 08: warp sums with __shfl_down_sync.
 *
 * A shuffle reads another lane's register directly, so a warp sums its 32
 * values in five steps with no shared memory and no barrier; lane 0 ends
 * with the sum. Shared memory only carries one value per warp to the first
 * warp, which sums those the same way. Passes over the partials follow, as
 * in kernel 02.
 *
 * The mask names the lanes that take part, and every lane named must call
 * the shuffle: all 32 do here, so it is always the full mask (shrinking it
 * while all lanes still call, as some examples do, is undefined). */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

template <class T> __device__ inline T warp_sum_down(T v)
{
    for (int delta = 16; delta > 0; delta >>= 1)
        v += __shfl_down_sync(full_mask, v, delta);
    return v;
}

/* The block: warp sums, then the first warp's sum of them (sum_by_warps in
 * ladder_blocks.cuh). */
template <class T> __global__ void shfl_down_block(const T *in, T *out, size_t n)
{
    sum_by_warps<T, warp_sum_down<T>>(in, out, n);
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_kernel(call, call->threads, shfl_down_block<T>, 0);
}

} // namespace wk_ladder

WK_LADDER_ENTRY(08)
