/* Kernel 06: kernel 05 with the last warp unrolled.
 *
 * Once 32 or fewer threads are active, a block-wide __syncthreads() per step
 * is wasted: only one warp works. The first warp does the last six steps on
 * its own through volatile shared memory, with __syncwarp() (the cheap
 * barrier of one warp) instead of __syncthreads(); see
 * tree_unrolled_last_warp in ladder_internal.cuh for why __syncwarp() is
 * needed on Volta and later. */
#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

template <class T> __global__ void unrolled_last_warp(const T *in, T *out, size_t n)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    T a = i < n ? in[i] : T(0);
    T b = i + blockDim.x < n ? in[i + blockDim.x] : T(0);
    sdata[tid] = a + b;
    __syncthreads();
    tree_unrolled_last_warp(sdata, tid);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    call->serial = call->n > call->threads ? 2 : 1;
    return relaunch_until_one<T>(call, 2 * (size_t)call->threads, [&](const T *in, T *out, size_t m, unsigned blocks) {
        unrolled_last_warp<T><<<blocks, call->threads, call->threads * sizeof(T), call->stream>>>(in, out, m);
    });
}

} // namespace wk_ladder

extern "C" cudaError_t wk_ladder_enqueue_06(wk_ladder_call *call)
{
    using namespace wk_ladder;
    return by_dtype(call, enqueue<double>, enqueue<float>, enqueue<unsigned>);
}
