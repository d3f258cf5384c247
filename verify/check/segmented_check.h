/* The segmented reduce and scans checked on the GPU: a case list over the
 * layouts (uniform, rows with a leading dimension, disjoint offsets in any
 * order with gaps and empty segments, overlapping offsets for the reduce),
 * every dtype and the ops each call takes, and one check per case against
 * the CPU reference (ref/segmented_reference.h). Used by `warpkit verify`;
 * tests/gpu/test_segmented.c goes deeper (graphs, guards, 2^31 elements). */
#ifndef WARPKIT_CHECK_SEGMENTED_CHECK_H
#define WARPKIT_CHECK_SEGMENTED_CHECK_H

#include "check/check_env.h"
#include "ref/generate.h"
#include "warpkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wk_seg_call {
    WK_SEG_REDUCE,
    WK_SEG_INCLUSIVE,
    WK_SEG_EXCLUSIVE
} wk_seg_call;

typedef enum wk_seg_layout {
    WK_SEG_UNIFORM, /* count segments of `size` elements, back to back       */
    WK_SEG_ROWS,    /* rows of `size` elements, a few elements apart          */
    WK_SEG_OFFSETS, /* disjoint offsets of power-law lengths averaging `size` */
    WK_SEG_WILD     /* overlapping offsets in no order, some outside (reduce) */
} wk_seg_layout;

typedef struct wk_segmented_case {
    wk_seg_call call;
    wk_dtype dtype;
    wk_op op;
    wk_seg_layout layout;
    size_t count;   /* segments                                           */
    size_t size;    /* elements per segment (the mean, for offsets)       */
    size_t offset;  /* elements between an aligned address and the input */
    wk_gen_pattern pattern;
    uint64_t seed;
} wk_segmented_case;

/* Writes up to cap cases to out (if not NULL) and returns how many the level
 * has. Each case gets its own seed drawn from seed. The quick level takes
 * one shape per (dtype, call, op, layout), and for bools, which run u8's
 * kernels, one layout per (call, op); a sum of bools, which the library
 * refuses, has one case per call at either level. */
size_t wk_segmented_cases(wk_case_level level, uint64_t seed, wk_segmented_case *out, size_t cap);

/* "reduce f32 sum offsets count=100 size=33 offset=1 uniform" */
void wk_describe_segmented_case(const wk_segmented_case *c, char *buf, size_t size);

/* Runs the case twice on env's stream into poisoned outputs: the first
 * result must match the reference (outside the segments a scan's output
 * keeps its bytes) and the second must be the same bits. A call the
 * library refuses (wk_ref_dtype_op_status: a sum of bools) must return
 * that status and leave the output as it was. */
wk_check_result wk_check_segmented_case(wk_check_env *env, const wk_segmented_case *c, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif
