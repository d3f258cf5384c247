/* Kernel 01: interleaved addressing with a divergent modulo test.
 *
 * One element per thread into shared memory, then a tree: at stride s the
 * threads whose index is a multiple of 2s add their neighbour s away. The
 * active threads are scattered across every warp, so warps diverge at every
 * step, and % is a slow integer division. Each block leaves one partial sum;
 * the host adds them (host_partials). */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

template <class T> __global__ void interleaved_divergent(const T *in, T *out, size_t n)
{
    T *sdata = stage(load_one(in, n));
    unsigned tid = threadIdx.x;
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    write_block_sum(sdata, out);
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

WK_LADDER_ENTRY(01)
