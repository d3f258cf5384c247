/* The seeds' prefix sum: three kernels, one thread per element.
 *
 *   input           4  6  3  8 | 9  3  8  5 | 8  3 ...   (blocks of 4 here)
 *   s1 block scans  4 10 13 21 | 9 12 20 25 | 8 11 ...   block sums 21 25 ...
 *   s2 scan of the block sums                            21 46 ...
 *   s3 add-back     4 10 13 21 |30 33 41 46 |54 57 ...   (+21, +46, ...)
 *
 * s1 is the seeds' kernel 1: each warp scans its 32 values with
 * __shfl_up_sync (Hillis-Steele: in step d every lane adds the value d lanes
 * below), the last lane of each warp stores the warp's sum in shared memory,
 * the first warp scans those sums the same way, and every thread adds the
 * sum of the warps before its own. warpkit's block_inclusive_scan
 * (include/warpkit/block.cuh) is the same idea, written for any block shape
 * and any operator; it is spelled out here because it is the lesson.
 *
 * s2 is "repeat the first kernel for the block sum array". One block scans
 * up to `threads` sums; more than that (n > threads^2) and the block sums
 * have block sums of their own, so s2 is the whole three-kernel scan applied
 * to the block sums, recursively, until one block is enough.
 *
 * s3 adds to each element of block b the scanned sum of blocks 0 .. b-1.
 *
 * Two details differ from the slides' loop:
 *  - __shfl_up_sync takes the mask of the lanes that take part as its first
 *    argument (the slides leave it out); all 32 lanes call it, so it is the
 *    full mask.
 *  - the test for "is there a lane d below me" is lane >= d, not
 *    threadIdx.x >= d, which only works for a block of one warp.
 *
 * The three passes read and write the data twice (s1 and s3 each read n and
 * write n), where a single-pass scan (wk_inclusive_scan, CUB) reads n and
 * writes n once: that is what the ladder's rows measure. */
#include "ladder/kernels/ladder_internal.cuh"
#include "ladder/kernels/scan_ladder.h"

#include <limits.h>

namespace wk_ladder {
namespace scan {

/* The seeds' warp scan: after the loop, lane k holds v0 + ... + vk of its
 * warp. A lane with nothing d lanes below it keeps its value. */
template <class T> __device__ inline T warp_inclusive_sum(T value, unsigned lane)
{
    for (unsigned delta = 1; delta < 32; delta *= 2) {
        T below = __shfl_up_sync(full_mask, value, delta);
        if (lane >= delta)
            value += below;
    }
    return value;
}

/* s1 (and s2's first step): each block scans its blockDim.x of in[0 .. m)
 * into out; if block_sums is not null, the block's last thread writes the
 * block's sum there. Threads past m scan a zero and store nothing. */
template <class T> __global__ void block_scan(const T *in, T *out, size_t m, T *block_sums)
{
    __shared__ T warp_sums[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

    /* Each warp scans its 32 values. */
    T value = warp_inclusive_sum(i < m ? in[i] : T(0), lane);

    /* The last lane holds the warp's sum: store it for the first warp. */
    if (lane == 31)
        warp_sums[warp] = value;
    __syncthreads();

    /* The first warp scans the warp sums (lanes past the last warp add zeros). */
    if (warp == 0) {
        T sum = warp_inclusive_sum(lane < warps ? warp_sums[lane] : T(0), lane);
        if (lane < warps)
            warp_sums[lane] = sum;
    }
    __syncthreads();

    /* Add what the warps before this one hold. */
    if (warp > 0)
        value += warp_sums[warp - 1];
    if (i < m)
        out[i] = value;
    if (block_sums && threadIdx.x == blockDim.x - 1)
        block_sums[blockIdx.x] = value;
}

/* s3: block b adds the scanned sum of blocks 0 .. b-1 to each of its
 * elements; block 0 has nothing before it. */
template <class T> __global__ void add_back(T *out, size_t m, const T *block_prefixes)
{
    if (blockIdx.x == 0)
        return;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        out[i] += block_prefixes[blockIdx.x - 1];
}

/* Counts a launch and, for the first, its blocks. */
inline cudaError_t launched(wk_scan_ladder_call *call, size_t blocks)
{
    if (call->launches++ == 0)
        call->blocks = (unsigned)blocks;
    return cudaGetLastError();
}

template <class T> cudaError_t launch_block_scan(wk_scan_ladder_call *call, const T *in, T *out, size_t m, T *sums)
{
    size_t blocks = ceil_div(m, call->threads);
    block_scan<T><<<(unsigned)blocks, call->threads, 0, call->stream>>>(in, out, m, sums);
    return launched(call, blocks);
}

template <class T> cudaError_t launch_add_back(wk_scan_ladder_call *call, T *out, size_t m, const T *prefixes)
{
    size_t blocks = ceil_div(m, call->threads);
    add_back<T><<<(unsigned)blocks, call->threads, 0, call->stream>>>(out, m, prefixes);
    return launched(call, blocks);
}

/* The three-kernel scan of in[0 .. m) into out. `scratch` holds, for this
 * level, the block sums and their scan, then the levels below. */
template <class T> cudaError_t scan_levels(wk_scan_ladder_call *call, const T *in, T *out, size_t m, T *scratch)
{
    size_t blocks = ceil_div(m, call->threads);
    T *sums = scratch, *prefixes = scratch + blocks;
    cudaError_t err = launch_block_scan(call, in, out, m, blocks > 1 ? sums : nullptr); /* kernel 1 */
    if (err != cudaSuccess || blocks == 1)
        return err;
    err = scan_levels(call, sums, prefixes, blocks, scratch + 2 * blocks); /* kernel 2: the same, on the sums */
    if (err != cudaSuccess)
        return err;
    return launch_add_back(call, out, m, prefixes); /* kernel 3 */
}

enum class step { all, s1, s2, s3 };

template <class T> cudaError_t run(wk_scan_ladder_call *call, step which)
{
    const T *in = static_cast<const T *>(call->d_in);
    T *out = static_cast<T *>(call->d_out);
    T *scratch = static_cast<T *>(call->d_scratch);
    size_t blocks = ceil_div(call->n, call->threads);
    T *sums = scratch, *prefixes = scratch + blocks;
    switch (which) {
    case step::all: return scan_levels(call, in, out, call->n, scratch);
    case step::s1: return launch_block_scan(call, in, out, call->n, blocks > 1 ? sums : nullptr);
    case step::s2:
        return blocks > 1 ? scan_levels<T>(call, sums, prefixes, blocks, scratch + 2 * blocks) : cudaSuccess;
    case step::s3: return blocks > 1 ? launch_add_back(call, out, call->n, prefixes) : cudaSuccess;
    }
    return cudaErrorInvalidValue;
}

inline bool block_size_ok(unsigned threads)
{
    return threads >= 64 && threads <= 1024 && (threads & (threads - 1)) == 0;
}

inline size_t element_size(wk_dtype dtype)
{
    switch (dtype) {
    case WK_F64: return 8;
    case WK_F32: return 4;
    case WK_I32: return 4;
    default: return 0;
    }
}

inline cudaError_t dispatch(wk_scan_ladder_call *call, step which)
{
    if (!call || !call->d_in || !call->d_out || !call->d_scratch || call->n == 0 || !block_size_ok(call->threads) ||
        ceil_div(call->n, call->threads) > (size_t)INT_MAX)
        return cudaErrorInvalidValue;
    call->blocks = 0;
    call->launches = 0;
    switch (call->dtype) {
    case WK_F64: return run<double>(call, which);
    case WK_F32: return run<float>(call, which);
    case WK_I32: return run<unsigned>(call, which);
    default: return cudaErrorInvalidValue;
    }
}

inline unsigned log2_of(unsigned threads)
{
    unsigned k = 0;
    while ((1u << k) < threads)
        k++;
    return k;
}

} // namespace scan
} // namespace wk_ladder

using namespace wk_ladder::scan;

extern "C" size_t wk_scan_ladder_scratch_bytes(size_t n, unsigned threads, wk_dtype dtype)
{
    if (n == 0 || !block_size_ok(threads) || element_size(dtype) == 0)
        return 0;
    size_t elements = 0;
    for (size_t m = n, blocks; (blocks = wk_ladder::ceil_div(m, threads)) > 1; m = blocks)
        elements += 2 * blocks;
    return (elements ? elements : 1) * element_size(dtype);
}

extern "C" cudaError_t wk_scan_ladder_inclusive_sum(wk_scan_ladder_call *call) { return dispatch(call, step::all); }
extern "C" cudaError_t wk_scan_ladder_block_scan(wk_scan_ladder_call *call) { return dispatch(call, step::s1); }
extern "C" cudaError_t wk_scan_ladder_scan_block_sums(wk_scan_ladder_call *call) { return dispatch(call, step::s2); }
extern "C" cudaError_t wk_scan_ladder_add_back(wk_scan_ladder_call *call) { return dispatch(call, step::s3); }

extern "C" size_t wk_scan_ladder_block_depth(unsigned threads) { return log2_of(threads) + 1; }

extern "C" size_t wk_scan_ladder_depth(size_t n, unsigned threads)
{
    size_t levels = 1;
    for (size_t m = n; m > threads; m = wk_ladder::ceil_div(m, threads))
        levels++;
    return (levels - 1) * (log2_of(threads) + 2) + wk_scan_ladder_block_depth(threads);
}
