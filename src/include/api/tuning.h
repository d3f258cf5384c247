/* For `warpkit tune` and the tests only: the reductions with a chosen launch
 * shape and grid instead of the planner's. Not part of the public API. */
#ifndef WARPKIT_TUNING_H
#define WARPKIT_TUNING_H

#include "reduce/plan.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the arguments as wk_reduce does, then launches with `shape` and
 * `grid` blocks: for wide and deep, 1 to the shape's blocks per SM times
 * the SM count; for tiles, at most `grid` blocks (1 to
 * WK_TILES_MAX_BLOCKS), each taking as many consecutive tiles as that
 * needs; for cluster, WK_CLUSTER_BLOCKS, on a device that launches
 * clusters. */
wk_status wk_reduce_shaped(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype, wk_op op,
                           wk_reduce_shape shape, unsigned grid, cudaStream_t stream);

/* The plan wk_reduce launches for n elements of dtype at d_in on ctx's
 * device: the tests' tolerance and the tools' rows follow it. */
wk_status wk_reduce_plan_of(const wk_context *ctx, const void *d_in, size_t n, wk_dtype dtype,
                            wk_reduce_plan *plan);

/* wk_reduce_repro (partial = 0) or wk_reduce_repro_partial (partial = 1)
 * with `threads` per block (WK_REPRO_THREADS or WK_REPRO_TEST_THREADS) and
 * `grid` blocks: the tests' way to show that shapes change no bit. */
wk_status wk_reduce_repro_shaped(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                 unsigned threads, unsigned grid, int partial, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
