/* Launch planning for the device-wide reduce: how the input splits into a
 * scalar head, a body of 16-byte vectors and a scalar tail, and how many
 * blocks run. Pure C, so CPU tests can check it. */
#ifndef WARPKIT_REDUCE_PLAN_H
#define WARPKIT_REDUCE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Two launch shapes, chosen by size (docs/reduce.md):
 *  - wide: 256-thread blocks, 8 per SM (full occupancy), 2 16-byte loads in
 *    flight per thread. Best for large inputs, and for small ones, where it
 *    spreads a few blocks over many SMs.
 *  - deep: 512-thread blocks, 2 per SM, 4 loads in flight per thread. For
 *    mid sizes (a few MiB) it covers the input in one round with a quarter
 *    of the blocks: fewer tickets to take and partials for the last block
 *    to combine.
 * The grid is capped at blocks-per-SM times the SM count; beyond that each
 * thread loops over the input (grid stride). The ticket protocol never
 * waits on another block, so it needs no block to be resident. */
#define WK_WIDE_THREADS 256
#define WK_WIDE_BLOCKS_PER_SM 8
#define WK_WIDE_UNROLL 2
#define WK_DEEP_THREADS 512
#define WK_DEEP_BLOCKS_PER_SM 2
#define WK_DEEP_UNROLL 4
#define WK_VECTOR_BYTES 16

typedef enum wk_reduce_shape { WK_SHAPE_WIDE = 0, WK_SHAPE_DEEP = 1 } wk_reduce_shape;

typedef struct wk_reduce_plan {
    size_t head;       /* scalar elements before the first 16-byte boundary   */
    size_t nvec;       /* 16-byte vectors in the aligned body                 */
    size_t tail;       /* scalar elements after the body                      */
    unsigned vec_elems; /* elements per 16-byte vector                        */
    unsigned grid;     /* blocks in the launch                                */
    unsigned block;    /* threads per block                                   */
    wk_reduce_shape shape;
} wk_reduce_plan;

/* Plans a reduce of n elements of elem_size bytes starting at address addr
 * (which must be a multiple of elem_size) on a device with sm_count SMs.
 * Returns 0 on success, -1 for bad arguments. */
int wk_plan_reduce(uintptr_t addr, size_t n, size_t elem_size, int sm_count,
                   wk_reduce_plan *plan);

/* Largest number of rounded operations between any input element and the
 * result under this plan: a float sum's error is at most depth * eps * sum|x|
 * (to first order), which the tests use as their tolerance. */
size_t wk_reduce_plan_depth(const wk_reduce_plan *plan);

/* Largest grid any plan uses on a device with sm_count SMs: the number of
 * per-block partial results the workspace must hold. */
unsigned wk_reduce_max_grid(int sm_count);

#ifdef __cplusplus
}
#endif

#endif
