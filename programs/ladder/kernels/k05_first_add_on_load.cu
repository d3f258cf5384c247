/* Kernel 05: the first add during the global load.
 *
 * In kernel 04 half the threads only load and then wait. Here each thread
 * loads two elements a block apart and stores their sum, so a block covers
 * twice the data and half as many blocks are launched; the tree is 04's. */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

/* Two elements per thread, added as they are loaded (load_pair_sum in
 * ladder_blocks.cuh), then 04's tree. */
template <class T> __global__ void first_add_on_load(const T *in, T *out, size_t n)
{
    T *sdata = stage(load_pair_sum(in, n));
    tree_sequential(sdata);
    write_block_sum(sdata, out);
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_pair_sums(call, first_add_on_load<T>);
}

} // namespace wk_ladder

WK_LADDER_ENTRY(05)
