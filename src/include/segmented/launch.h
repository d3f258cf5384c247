/* The boundary between the host API and the per-dtype segmented kernels. */
#ifndef WARPKIT_SEGMENTED_LAUNCH_H
#define WARPKIT_SEGMENTED_LAUNCH_H

#include "segmented/board.h"
#include "common/dtypes.h"
#include "segmented/plan.h"
#include "tiles/slots.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything one launch needs; arguments are already validated. */
typedef struct wk_seg_launch {
    const void *in;
    void *out;
    size_t count;            /* segments                                       */
    size_t size;             /* rows: elements per row; offsets: input length  */
    size_t stride;           /* rows: elements between row starts              */
    const int64_t *begin;    /* offsets layout, else NULL                      */
    const int64_t *end;
    wk_seg_plan plan;
    wk_op op;
    size_t result_bytes;     /* reduce: bytes per segment's result              */
    int scan;                /* 0: reduce, 1: inclusive scan, 2: exclusive     */
    wk_value init;           /* exclusive scan                                 */
    wk_seg_board *board;     /* the stream's workspace                         */
    wk_tile_slots slots;     /* scans in tiles: the stream's tile-status words  */
    int overlap_launch;      /* programmatic stream serialization (sm_90 and up) */
    cudaStream_t stream;
} wk_seg_launch;

/* One launcher per dtype of src/include/common/dtypes.h, each in its own generated
 * translation unit (cmake/WarpkitKernels.cmake). */
#define WK_SEG_REDUCE_DECLARE(name, code, storage) cudaError_t wk_seg_reduce_launch_##name(const wk_seg_launch *launch);
WK_DTYPES(WK_SEG_REDUCE_DECLARE)
#undef WK_SEG_REDUCE_DECLARE

/* The launcher of a dtype; cudaErrorInvalidValue for any other. */
static inline cudaError_t wk_seg_reduce_launch_dtype(int dtype, const wk_seg_launch *l)
{
    switch (dtype) {
#define WK_SEG_REDUCE_CASE(name, code, storage) \
    case code: return wk_seg_reduce_launch_##name(l);
    WK_DTYPES(WK_SEG_REDUCE_CASE)
#undef WK_SEG_REDUCE_CASE
    default: return cudaErrorInvalidValue;
    }
}

/* One launcher per dtype of src/include/common/dtypes.h, each in its own generated
 * translation unit (cmake/WarpkitKernels.cmake). */
#define WK_SEG_SCAN_DECLARE(name, code, storage) cudaError_t wk_seg_scan_launch_##name(const wk_seg_launch *launch);
WK_DTYPES(WK_SEG_SCAN_DECLARE)
#undef WK_SEG_SCAN_DECLARE

/* The launcher of a dtype; cudaErrorInvalidValue for any other. */
static inline cudaError_t wk_seg_scan_launch_dtype(int dtype, const wk_seg_launch *l)
{
    switch (dtype) {
#define WK_SEG_SCAN_CASE(name, code, storage) \
    case code: return wk_seg_scan_launch_##name(l);
    WK_DTYPES(WK_SEG_SCAN_CASE)
#undef WK_SEG_SCAN_CASE
    default: return cudaErrorInvalidValue;
    }
}

/* One launcher per dtype of src/include/common/dtypes.h, each in its own generated
 * translation unit (cmake/WarpkitKernels.cmake). */
#define WK_SEG_REPRO_DECLARE(name, code, storage) cudaError_t wk_seg_repro_launch_##name(const wk_seg_launch *launch);
WK_FLOAT_DTYPES(WK_SEG_REPRO_DECLARE)
#undef WK_SEG_REPRO_DECLARE

/* The launcher of a float dtype (the reproducible sum); cudaErrorInvalidValue for any other. */
static inline cudaError_t wk_seg_repro_launch_dtype(int dtype, const wk_seg_launch *l)
{
    switch (dtype) {
#define WK_SEG_REPRO_CASE(name, code, storage) case code: return wk_seg_repro_launch_##name(l);
    WK_FLOAT_DTYPES(WK_SEG_REPRO_CASE)
#undef WK_SEG_REPRO_CASE
    default: return cudaErrorInvalidValue;
    }
}

#ifdef __cplusplus
}
#endif

#endif
