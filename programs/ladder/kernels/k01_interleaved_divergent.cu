/* Kernel 01: interleaved addressing with a divergent modulo test.
 *
 * One element per thread into shared memory, then a tree: at stride s the
 * threads whose index is a multiple of 2s add their neighbour s away. The
 * active threads are scattered across every warp, so warps diverge at every
 * step, and % is a slow integer division. Each block leaves one partial sum;
 * the host adds them (host_partials). */
#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

template <class T> __global__ void interleaved_divergent(const T *in, T *out, size_t n)
{
    T *sdata = shared_array<T>();
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0); /* past the end adds nothing */
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

template <class T>
void launch_interleaved_divergent(const T *in, T *out, size_t m, unsigned blocks, unsigned threads,
                                  cudaStream_t stream)
{
    interleaved_divergent<T><<<blocks, threads, threads * sizeof(T), stream>>>(in, out, m);
}

template void launch_interleaved_divergent<double>(const double *, double *, size_t, unsigned, unsigned, cudaStream_t);
template void launch_interleaved_divergent<float>(const float *, float *, size_t, unsigned, unsigned, cudaStream_t);
template void launch_interleaved_divergent<unsigned>(const unsigned *, unsigned *, size_t, unsigned, unsigned, cudaStream_t);

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    unsigned blocks = (unsigned)ceil_div(call->n, call->threads);
    launch_interleaved_divergent<T>(static_cast<const T *>(call->d_in), scratch_half<T>(call, 0), call->n,
                                    blocks, call->threads, call->stream);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    call->blocks = blocks;
    call->launches = 1;
    call->host_partials = blocks;
    return cudaSuccess;
}

} // namespace wk_ladder

extern "C" cudaError_t wk_ladder_enqueue_01(wk_ladder_call *call)
{
    using namespace wk_ladder;
    return by_dtype(call, enqueue<double>, enqueue<float>, enqueue<unsigned>);
}
