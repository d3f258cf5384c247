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
#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

template <class T> __device__ inline T warp_sum_down(T v)
{
    for (int delta = 16; delta > 0; delta >>= 1)
        v += __shfl_down_sync(full_mask, v, delta);
    return v;
}

template <class T> __global__ void shfl_down_block(const T *in, T *out, size_t n)
{
    __shared__ T warp_sums[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T v = warp_sum_down(i < n ? in[i] : T(0));
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum_down(lane < blockDim.x / 32 ? warp_sums[lane] : T(0));
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_until_one<T>(call, call->threads, [&](const T *in, T *out, size_t m, unsigned blocks) {
        shfl_down_block<T><<<blocks, call->threads, 0, call->stream>>>(in, out, m);
    });
}

} // namespace wk_ladder

extern "C" cudaError_t wk_ladder_enqueue_08(wk_ladder_call *call)
{
    using namespace wk_ladder;
    return by_dtype(call, enqueue<double>, enqueue<float>, enqueue<unsigned>);
}
