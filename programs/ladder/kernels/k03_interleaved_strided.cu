/* Kernel 03: interleaved addressing with a strided index.
 *
 * The same tree as 01, but thread tid works on element 2*s*tid, so the
 * active threads are the lowest ones and whole warps drop out together
 * instead of diverging; there is no % either. The new cost: at stride s the
 * threads of a warp touch words 2s apart, which fall in the same shared
 * memory banks, and those accesses are serialised (bank conflicts). */
#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

template <class T> __global__ void interleaved_strided(const T *in, T *out, size_t n)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_until_one<T>(call, call->threads, [&](const T *in, T *out, size_t m, unsigned blocks) {
        interleaved_strided<T><<<blocks, call->threads, call->threads * sizeof(T), call->stream>>>(in, out, m);
    });
}

} // namespace wk_ladder

extern "C" cudaError_t wk_ladder_enqueue_03(wk_ladder_call *call)
{
    using namespace wk_ladder;
    return by_dtype(call, enqueue<double>, enqueue<float>, enqueue<unsigned>);
}
