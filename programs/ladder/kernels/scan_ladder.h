/* The seeds' prefix sum in three kernels, as teaching material beside the
 * library's single-pass wk_inclusive_scan (not part of its API):
 *
 *   s1  each block scans its own elements: warps scan with __shfl_up_sync,
 *       the warps' sums are scanned in shared memory and added back; the
 *       last thread writes the block's sum;
 *   s2  the block sums are scanned with the same three steps (s1 on them,
 *       and, when there are more block sums than one block holds, a scan of
 *       their block sums and an add-back, recursively);
 *   s3  each block adds the scanned sum of the blocks before it.
 *
 * Inclusive sums of WK_F64, WK_F32 and WK_I32 (run as unsigned, so sums wrap
 * modulo 2^32 with defined behaviour) at any n >= 1.
 *
 * C-compatible; the kernels live in scan_three_pass.cu. */
#ifndef WARPKIT_SCAN_LADDER_H
#define WARPKIT_SCAN_LADDER_H

#include <stddef.h>

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_scan_ladder_call {
    const void *d_in;     /* n elements of dtype: WK_F64, WK_F32 or WK_I32 */
    void *d_out;          /* n elements of dtype; d_out == d_in is allowed */
    size_t n;             /* any n >= 1 */
    wk_dtype dtype;
    unsigned threads;     /* block size: a power of two from 64 to 1024, one element per thread */
    void *d_scratch;      /* wk_scan_ladder_scratch_bytes(n, threads, dtype) bytes of device memory */
    cudaStream_t stream;
    /* Written by each call: */
    unsigned blocks;      /* blocks of its first launch (0 if it launched nothing) */
    unsigned launches;    /* kernel launches enqueued */
} wk_scan_ladder_call;

/* Scratch for (n, threads, dtype): per level of the recursion, the block
 * sums and their scan. The first ceil(n / threads) elements of d_scratch
 * are the block sums that s1 writes; the next ceil(n / threads) are their
 * inclusive scan, which s2 writes. (Neither is written when n <= threads.)
 * At least one element; 0 for n = 0, a bad block size or dtype. */
size_t wk_scan_ladder_scratch_bytes(size_t n, unsigned threads, wk_dtype dtype);

/* The whole scan: s1, s2, s3. d_out[i] = d_in[0] + ... + d_in[i]. */
cudaError_t wk_scan_ladder_inclusive_sum(wk_scan_ladder_call *call);

/* The steps one at a time, for timing each on its own. Run in this order
 * they leave the same d_out as wk_scan_ladder_inclusive_sum. s2 reads only
 * the block sums that s1 left in d_scratch and may be repeated; s3 adds into
 * d_out, so each run of s3 must follow its own s1 for d_out to be right.
 * s2 and s3 launch nothing when n <= threads (one block has no blocks
 * before it). */
cudaError_t wk_scan_ladder_block_scan(wk_scan_ladder_call *call);      /* s1 */
cudaError_t wk_scan_ladder_scan_block_sums(wk_scan_ladder_call *call); /* s2 */
cudaError_t wk_scan_ladder_add_back(wk_scan_ladder_call *call);        /* s3 */

/* Rounded additions on the path from an input element to an output, for the
 * float tolerance (depth * eps * the sum of |x| the output covers):
 *  - within one block, output or block sum: log2(threads) + 1 (five shuffle
 *    steps, log2(threads / 32) steps over the warp sums, one add of the
 *    warps before);
 *  - the whole scan: each level of the recursion adds its block scan and
 *    the add-back: (levels - 1) * (log2(threads) + 2) + log2(threads) + 1,
 *    levels being the number of block scans stacked (1 when n <= threads).
 * Adding a padding zero is exact and not counted. */
size_t wk_scan_ladder_block_depth(unsigned threads);
size_t wk_scan_ladder_depth(size_t n, unsigned threads);

/* Every call returns cudaErrorInvalidValue, and launches nothing, for a NULL
 * call or pointer, n = 0, a block size that is not a power of two in
 * [64, 1024], an unsupported dtype, or n so large that a launch would need
 * more than 2^31 - 1 blocks. Otherwise it returns the first launch error
 * (cudaGetLastError), or cudaSuccess. Asynchronous on call->stream: no
 * allocation, no synchronization. */

#ifdef __cplusplus
}
#endif

#endif /* WARPKIT_SCAN_LADDER_H */
