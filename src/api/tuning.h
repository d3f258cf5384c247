/* For `warpkit tune` only: wk_reduce with a chosen launch shape and grid
 * instead of the planner's. Not part of the public API. */
#ifndef WARPKIT_TUNING_H
#define WARPKIT_TUNING_H

#include "reduce/plan.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the arguments as wk_reduce does, then launches with `shape` and
 * `grid` blocks (1 to the shape's blocks per SM times the SM count). */
wk_status wk_reduce_shaped(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype, wk_op op,
                           wk_reduce_shape shape, unsigned grid, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
