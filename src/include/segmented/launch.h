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
    int widen;               /* a sum or sum scan kept and stored as out_dtype (_to) */
    wk_dtype out_dtype;
    int scan;                /* 0: reduce, 1: inclusive scan, 2: exclusive     */
    wk_value init;           /* exclusive scan                                 */
    wk_seg_board *board;     /* the stream's workspace                         */
    wk_tile_slots slots;     /* scans in tiles: the stream's tile-status words  */
    int overlap_launch;      /* programmatic stream serialization (sm_90 and up) */
    cudaStream_t stream;
} wk_seg_launch;

/* The reduce, scan and reproducible-sum launchers: one per dtype (per float
 * dtype for the last), in translation units generated from common/dtypes.h
 * (cmake/WarpkitKernels.cmake), and the switches that pick one. */
#define WK_LAUNCH wk_seg_launch
#define WK_LAUNCHER(name) wk_seg_reduce_launch_##name
WK_DECLARE_LAUNCHERS(WK_DTYPES, wk_seg_reduce_launch_dtype)
#undef WK_LAUNCHER
#define WK_LAUNCHER(name) wk_seg_scan_launch_##name
WK_DECLARE_LAUNCHERS(WK_DTYPES, wk_seg_scan_launch_dtype)
#undef WK_LAUNCHER
#define WK_LAUNCHER(name) wk_seg_repro_launch_##name
WK_DECLARE_LAUNCHERS(WK_FLOAT_DTYPES, wk_seg_repro_launch_dtype)
#undef WK_LAUNCHER
#undef WK_LAUNCH

#ifdef __cplusplus
}
#endif

#endif
