/* The device code that several rungs of the ladder share: the bounded loads,
 * the staging of one value per thread in shared memory, the final write of a
 * block's sum, and each rung's new tree, load or block once a later rung
 * reuses it (each named after the rung that introduces it).
 *
 * Everything here is inlined into the kernels that call it. */
#ifndef WARPKIT_LADDER_BLOCKS_CUH
#define WARPKIT_LADDER_BLOCKS_CUH

#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

/* in[i], or 0 for an i past the end, which adds nothing to a sum. */
template <class T> __device__ inline T load_or_zero(const T *in, size_t i, size_t n)
{
    return i < n ? in[i] : T(0);
}

/* This thread's element when each thread takes one: blockDim.x a block. */
template <class T> __device__ inline T load_one(const T *in, size_t n)
{
    return load_or_zero(in, (size_t)blockIdx.x * blockDim.x + threadIdx.x, n);
}

/* Stores this thread's value at its index of the block's shared memory and
 * waits for the whole block, so that the tree that follows may read every
 * thread's value. Returns the shared array. */
template <class T> __device__ inline T *stage(T v)
{
    T *sdata = shared_array<T>();
    sdata[threadIdx.x] = v;
    __syncthreads();
    return sdata;
}

/* Thread 0 writes the block's sum, which the tree left in sdata[0]. */
template <class T> __device__ inline void write_block_sum(const T *sdata, T *out)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = sdata[0];
}

/* Kernel 04's tree (sequential addressing), which 05 reuses: the stride
 * starts at half the block and halves, thread tid adding sdata[tid + s] into
 * sdata[tid]. Thread 0 ends with the sum. */
template <class T> __device__ inline void tree_sequential(T *sdata)
{
    unsigned tid = threadIdx.x;
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
}

/* Kernel 05's load, which 06 reuses: two elements a block apart, added as
 * they are loaded, so that a block covers 2 * blockDim.x elements. */
template <class T> __device__ inline T load_pair_sum(const T *in, size_t n)
{
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    T a = load_or_zero(in, i, n);
    T b = load_or_zero(in, i + blockDim.x, n);
    return a + b;
}

/* Kernel 06's tree over sdata[0 .. blockDim.x), blockDim.x >= 64, which 07
 * reuses: halve with block barriers while more than one warp has work, then
 * let the first warp finish the last six steps alone. Thread 0 ends with the
 * sum.
 *
 * The classic version relies on the 32 lanes running in lock step, so that
 * every lane reads before any lane writes. Since Volta each lane has its own
 * program counter and nothing guarantees that any more: lane 0 could read
 * sdata[16] after lane 16 has already added into it. So each step reads into
 * a register, __syncwarp()s, writes, and __syncwarp()s again (the pattern
 * the CUDA programming guide gives for this loop). volatile stays, so the
 * values really go through shared memory rather than sitting in registers
 * the other lanes cannot see. */
template <class T> __device__ inline void tree_unrolled_last_warp(T *sdata, unsigned tid)
{
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile T *v = sdata;
        T x = v[tid];
#pragma unroll
        for (unsigned s = 32; s > 0; s >>= 1) {
            x += v[tid + s];
            __syncwarp();
            v[tid] = x;
            __syncwarp();
        }
    }
}

/* Kernel 08's block, which 09 reuses with its own warp sum: every warp sums
 * its 32 values with warp_sum, lane 0 of each warp passes the warp's sum to
 * the first warp through shared memory, and the first warp sums those the
 * same way; lane 0 writes the block's sum to out[blockIdx.x]. */
template <class T, T (*warp_sum)(T)> __device__ inline void sum_by_warps(const T *in, T *out, size_t n)
{
    __shared__ T warp_sums[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    T v = warp_sum(load_one(in, n));
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : T(0));
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

} // namespace wk_ladder

#endif /* WARPKIT_LADDER_BLOCKS_CUH */
