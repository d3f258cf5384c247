/* Kernel 04: sequential addressing.
 *
 * The stride starts at half the block and halves: thread tid adds element
 * tid + s into element tid. The active threads are contiguous (no
 * divergence until fewer than 32 remain) and a warp reads 32 consecutive
 * words, one per bank (no conflicts). Half the threads are idle from the
 * first step, which kernel 05 fixes. */
#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

template <class T> __global__ void sequential(const T *in, T *out, size_t n)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_until_one<T>(call, call->threads, [&](const T *in, T *out, size_t m, unsigned blocks) {
        sequential<T><<<blocks, call->threads, call->threads * sizeof(T), call->stream>>>(in, out, m);
    });
}

} // namespace wk_ladder

extern "C" cudaError_t wk_ladder_enqueue_04(wk_ladder_call *call)
{
    using namespace wk_ladder;
    return by_dtype(call, enqueue<double>, enqueue<float>, enqueue<unsigned>);
}
