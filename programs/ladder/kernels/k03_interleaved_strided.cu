/* Kernel 03: interleaved addressing with a strided index.
 *
 * The same tree as 01, but thread tid works on element 2*s*tid, so the
 * active threads are the lowest ones and whole warps drop out together
 * instead of diverging; there is no % either. The new cost: at stride s the
 * threads of a warp touch words 2s apart, which fall in the same shared
 * memory banks, and those accesses are serialised (bank conflicts). */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

template <class T> __global__ void interleaved_strided(const T *in, T *out, size_t n)
{
    T *sdata = stage(load_one(in, n));
    unsigned tid = threadIdx.x;
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    write_block_sum(sdata, out);
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_kernel(call, call->threads, interleaved_strided<T>, call->threads * sizeof(T));
}

} // namespace wk_ladder

WK_LADDER_ENTRY(03)
