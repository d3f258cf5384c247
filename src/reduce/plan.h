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

/* Threads per block, and the blocks per SM that __launch_bounds__ promises to
 * fit: the grid never exceeds sm_count * WK_REDUCE_BLOCKS_PER_SM, so every
 * block is resident at once and one pass over the data suffices. */
#ifndef WK_REDUCE_THREADS
#define WK_REDUCE_THREADS 256
#endif
#ifndef WK_REDUCE_BLOCKS_PER_SM
#define WK_REDUCE_BLOCKS_PER_SM 4
#endif
/* 16-byte loads each thread issues before it uses the first one. */
#ifndef WK_REDUCE_UNROLL
#define WK_REDUCE_UNROLL 4
#endif
#define WK_VECTOR_BYTES 16

typedef struct wk_reduce_plan {
    size_t head;       /* scalar elements before the first 16-byte boundary   */
    size_t nvec;       /* 16-byte vectors in the aligned body                 */
    size_t tail;       /* scalar elements after the body                      */
    unsigned vec_elems; /* elements per 16-byte vector                        */
    unsigned grid;     /* blocks in the launch                                */
    unsigned block;    /* threads per block                                   */
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
