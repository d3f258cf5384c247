/* Kernel 09: warp all-reduce with __shfl_xor_sync.
 *
 * As 08, but each lane exchanges with the lane whose index differs in one
 * bit (a butterfly), so after five steps every lane holds the warp's sum,
 * not only lane 0. Both partners add the same two values, and IEEE addition
 * is commutative, so every lane has the same bits. Useful when all lanes
 * need the total (a normalisation, a mean); here any lane may store it. */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

template <class T> __device__ inline T warp_allsum_xor(T v)
{
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v += __shfl_xor_sync(full_mask, v, lane_mask);
    return v;
}

/* Kernel 08's block with the butterfly in place of __shfl_down_sync. */
template <class T> __global__ void shfl_xor_block(const T *in, T *out, size_t n)
{
    sum_by_warps<T, warp_allsum_xor<T>>(in, out, n);
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_kernel(call, call->threads, shfl_xor_block<T>, 0);
}

} // namespace wk_ladder

WK_LADDER_ENTRY(09)
