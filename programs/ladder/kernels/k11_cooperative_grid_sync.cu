/* Kernel 11: one launch, with a grid-wide barrier.
 *
 * Every earlier rung needs a second launch (or the host) because blocks
 * cannot wait for each other: a block that waited for one not yet scheduled
 * would wait forever. A cooperative launch guarantees that all blocks are
 * resident at once, which makes grid.sync() safe. So: grid-stride sums per
 * thread, a block reduce (warpkit's wk::block_sum, shuffles as in 08), one
 * partial per block in d_scratch, grid.sync(), and block 0 sums the
 * partials into d_result.
 *
 * The grid is as many blocks as fit on the device at once (occupancy per SM
 * times the SM count), or fewer if n needs fewer. Grid sync needs no
 * relocatable device code (-rdc) on current toolkits. serial counts both
 * per-thread chains, as in kernel 07. */
#include "ladder/kernels/ladder_internal.cuh"

#include <cooperative_groups.h>
#include <warpkit/block.cuh>

namespace cg = cooperative_groups;

namespace wk_ladder {

/* partials is written and read in this launch: plain loads, not the
 * read-only path that const __restrict__ would allow. */
template <class T> __global__ void cooperative_sum(const T *in, T *partials, T *out, size_t n)
{
    __shared__ T scratch[wk::block_scratch_size];
    cg::grid_group grid = cg::this_grid();
    T v = T(0);
    for (size_t i = grid.thread_rank(); i < n; i += grid.size())
        v += in[i];
    v = wk::block_sum(v, scratch);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
    grid.sync(); /* every partial is written and visible; also a block barrier for scratch */
    if (blockIdx.x == 0) {
        v = T(0);
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            v += partials[b];
        v = wk::block_sum(v, scratch);
        if (threadIdx.x == 0)
            *out = v;
    }
}

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cooperative_sum<T>, (int)call->threads, 0);
    if (err != cudaSuccess)
        return err;
    size_t blocks = (size_t)per_sm * (size_t)sms;
    if (blocks == 0)
        return cudaErrorCooperativeLaunchTooLarge;
    if (blocks > ceil_div(call->n, call->threads))
        blocks = ceil_div(call->n, call->threads);

    const T *in = static_cast<const T *>(call->d_in);
    T *partials = scratch_half<T>(call, 0);
    T *out = static_cast<T *>(call->d_result);
    size_t n = call->n;
    void *args[] = {&in, &partials, &out, &n};
    err = cudaLaunchCooperativeKernel((const void *)cooperative_sum<T>, dim3((unsigned)blocks), dim3(call->threads),
                                      args, 0, call->stream);
    if (err != cudaSuccess)
        return err;
    call->blocks = (unsigned)blocks;
    call->launches = 1;
    call->serial = grid_stride_serial(n, call->threads, blocks, 1) + grid_stride_serial(blocks, call->threads, 1, 1);
    return cudaSuccess;
}

} // namespace wk_ladder

WK_LADDER_ENTRY(11)
