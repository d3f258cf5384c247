/* Kernel 07: grid-stride accumulation with a fixed grid.
 *
 * Rather than one block per 2 * threads elements, at most 2048 blocks each
 * walk the whole array: per step a thread adds two elements a block apart,
 * then jumps a grid ahead. Most of the work becomes plain sequential adds in
 * registers, and the tree (06's) runs once per block, not once per 2 *
 * threads elements. A second launch of the same kernel, with one block, sums
 * the partials into d_result.
 *
 * serial counts both launches' per-thread chains: an element passes through
 * the first launch's chain and then, inside its block's partial, through the
 * second's, so both add to its rounding depth. */
#include "ladder/kernels/ladder_blocks.cuh"

namespace wk_ladder {

template <class T> __global__ void grid_stride(const T *in, T *out, size_t n)
{
    unsigned tid = threadIdx.x;
    size_t grid_size = (size_t)2 * blockDim.x * gridDim.x;
    T sum = T(0); /* accumulate in a register, store once */
    for (size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid; i < n; i += grid_size)
        sum += in[i] + (i + blockDim.x < n ? in[i + blockDim.x] : T(0));
    T *sdata = stage(sum);
    tree_unrolled_last_warp(sdata, tid);
    write_block_sum(sdata, out);
}

constexpr size_t max_blocks = 2048;

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    const unsigned threads = call->threads;
    const size_t shared = threads * sizeof(T);
    size_t blocks = ceil_div(call->n, 2 * (size_t)threads);
    size_t most = call->grid ? call->grid : max_blocks;
    if (blocks > most)
        blocks = most;
    T *first_out = blocks == 1 ? static_cast<T *>(call->d_result) : scratch_half<T>(call, 0);

    grid_stride<T><<<(unsigned)blocks, threads, shared, call->stream>>>(static_cast<const T *>(call->d_in),
                                                                        first_out, call->n);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    call->blocks = (unsigned)blocks;
    call->launches = 1;
    call->serial = grid_stride_serial(call->n, threads, blocks, 2);
    if (blocks == 1)
        return cudaSuccess;

    grid_stride<T><<<1, threads, shared, call->stream>>>(first_out, static_cast<T *>(call->d_result), blocks);
    err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    call->launches = 2;
    call->serial += grid_stride_serial(blocks, threads, 1, 2);
    return cudaSuccess;
}

} // namespace wk_ladder

WK_LADDER_ENTRY(07)
