/* Kernel 04: sequential addressing.
 *
 * The stride starts at half the block and halves: thread tid adds element
 * tid + s into element tid. The active threads are contiguous (no
 * divergence until fewer than 32 remain) and a warp reads 32 consecutive
 * words, one per bank (no conflicts). Half the threads are idle from the
 * first step, which kernel 05 fixes. */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

/* One element per thread, staged in shared memory, then the sequential tree
 * (tree_sequential in ladder_blocks.cuh). */
template <class T> __global__ void sequential(const T *in, T *out, size_t n)
{
    T *sdata = stage(load_one(in, n));
    tree_sequential(sdata);
    write_block_sum(sdata, out);
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_kernel(call, call->threads, sequential<T>, call->threads * sizeof(T));
}

} // namespace wk_ladder

WK_LADDER_ENTRY(04)
