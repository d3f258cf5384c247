/* Kernel 09: warp all-reduce with __shfl_xor_sync.
 *
 * As 08, but each lane exchanges with the lane whose index differs in one
 * bit (a butterfly), so after five steps every lane holds the warp's sum,
 * not only lane 0. Both partners add the same two values, and IEEE addition
 * is commutative, so every lane has the same bits. Useful when all lanes
 * need the total (a normalisation, a mean); here any lane may store it. */
#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

template <class T> __device__ inline T warp_allsum_xor(T v)
{
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v += __shfl_xor_sync(full_mask, v, lane_mask);
    return v;
}

template <class T> __global__ void shfl_xor_block(const T *in, T *out, size_t n)
{
    __shared__ T warp_sums[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T v = warp_allsum_xor(i < n ? in[i] : T(0));
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_allsum_xor(lane < blockDim.x / 32 ? warp_sums[lane] : T(0));
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_until_one<T>(call, call->threads, [&](const T *in, T *out, size_t m, unsigned blocks) {
        shfl_xor_block<T><<<blocks, call->threads, 0, call->stream>>>(in, out, m);
    });
}

} // namespace wk_ladder

extern "C" cudaError_t wk_ladder_enqueue_09(wk_ladder_call *call)
{
    using namespace wk_ladder;
    return by_dtype(call, enqueue<double>, enqueue<float>, enqueue<unsigned>);
}
