/* The reduction ladder: eleven sum kernels, from the classic interleaved
 * shared-memory tree to a single cooperative launch, each a step on from the
 * one before. They are teaching material beside the library's wk_reduce, not
 * part of its API: each rung shows one idea (less divergence, fewer bank
 * conflicts, more work per thread, warp shuffles, a grid-wide barrier).
 *
 * C-compatible; the kernels themselves live in the k*.cu files. */
#ifndef WARPKIT_LADDER_H
#define WARPKIT_LADDER_H

#include <stddef.h>

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_ladder_call {
    const void *d_in;     /* n elements of dtype: WK_F64, WK_F32 or WK_I32 */
    size_t n;             /* any n >= 1, including odd sizes and n not a multiple of threads */
    wk_dtype dtype;
    unsigned threads;     /* block size: a power of two from 64 to 1024 */
    void *d_scratch;      /* wk_ladder_scratch_bytes(n, threads, dtype) bytes of device memory */
    void *d_result;       /* one element of dtype: the sum, written on the GPU (except kernel 01) */
    cudaStream_t stream;
    /* Written by enqueue: */
    unsigned blocks;        /* blocks of the first launch */
    unsigned launches;      /* kernel launches enqueued */
    size_t serial;          /* most elements one thread adds one after another before any tree step (1 for one element per thread); used for the float tolerance */
    size_t host_partials;   /* kernel 01 only: the result is the sum of this many partials left at the start of d_scratch, for the host to add; 0 for every other kernel */
    /* Read by kernel 07 only (`warpkit tune` sweeps it): the most blocks of
     * its first launch; 0 means the seeds' 2048. */
    unsigned grid;
} wk_ladder_call;

typedef struct wk_ladder_kernel {
    const char *id;      /* "01" ... "11" */
    const char *title;   /* short description, e.g. "interleaved addressing, divergent %" */
    cudaError_t (*enqueue)(wk_ladder_call *call); /* asynchronous on call->stream: no allocation, no synchronization */
} wk_ladder_kernel;

/* The kernels 01..11 in order; *count receives how many (if count is not
 * NULL). The table is static. */
const wk_ladder_kernel *wk_ladder_kernels(size_t *count);

/* Scratch every kernel needs for (n, threads, dtype): two halves of
 * ceil(n / threads) elements, for the partial sums that the relaunching
 * kernels pass back and forth. 0 for n = 0, a bad block size or a dtype
 * other than WK_F64, WK_F32, WK_I32. */
size_t wk_ladder_scratch_bytes(size_t n, unsigned threads, wk_dtype dtype);

/* enqueue returns cudaErrorInvalidValue, and launches nothing, for a NULL
 * call or pointer, n = 0, a block size that is not a power of two in
 * [64, 1024], an unsupported dtype, or n so large that the first launch
 * would need more than 2^31 - 1 blocks. Otherwise it returns the first
 * launch error (cudaGetLastError), or cudaSuccess. */

#ifdef __cplusplus
}
#endif

#endif /* WARPKIT_LADDER_H */
