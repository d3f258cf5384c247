/* Kernel 06: kernel 05 with the last warp unrolled.
 *
 * Once 32 or fewer threads are active, a block-wide __syncthreads() per step
 * is wasted: only one warp works. The first warp does the last six steps on
 * its own through volatile shared memory, with __syncwarp() (the cheap
 * barrier of one warp) instead of __syncthreads(); see
 * tree_unrolled_last_warp in ladder_blocks.cuh for why __syncwarp() is
 * needed on Volta and later. */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

/* 05's load, then the tree whose last warp runs alone. */
template <class T> __global__ void unrolled_last_warp(const T *in, T *out, size_t n)
{
    T *sdata = stage(load_pair_sum(in, n));
    tree_unrolled_last_warp(sdata, threadIdx.x);
    write_block_sum(sdata, out);
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_pair_sums(call, unrolled_last_warp<T>);
}

} // namespace wk_ladder

WK_LADDER_ENTRY(06)
