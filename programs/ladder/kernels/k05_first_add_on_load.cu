/* Kernel 05: the first add during the global load.
 *
 * In kernel 04 half the threads only load and then wait. Here each thread
 * loads two elements a block apart and stores their sum, so a block covers
 * twice the data and half as many blocks are launched; the tree is 04's. */
#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

template <class T> __global__ void first_add_on_load(const T *in, T *out, size_t n)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    T a = i < n ? in[i] : T(0);
    T b = i + blockDim.x < n ? in[i + blockDim.x] : T(0);
    sdata[tid] = a + b;
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
    call->serial = call->n > call->threads ? 2 : 1;
    return relaunch_until_one<T>(call, 2 * (size_t)call->threads, [&](const T *in, T *out, size_t m, unsigned blocks) {
        first_add_on_load<T><<<blocks, call->threads, call->threads * sizeof(T), call->stream>>>(in, out, m);
    });
}

} // namespace wk_ladder

extern "C" cudaError_t wk_ladder_enqueue_05(wk_ladder_call *call)
{
    using namespace wk_ladder;
    return by_dtype(call, enqueue<double>, enqueue<float>, enqueue<unsigned>);
}
