/* The boundary between the host API and the per-dtype segmented kernels. */
#ifndef WARPKIT_SEGMENTED_LAUNCH_H
#define WARPKIT_SEGMENTED_LAUNCH_H

#include "board.h"
#include "plan.h"
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

/* One reduce and one scan launcher per dtype, each in its own translation
 * unit. */
cudaError_t wk_seg_reduce_launch_i32(const wk_seg_launch *launch);
cudaError_t wk_seg_reduce_launch_u32(const wk_seg_launch *launch);
cudaError_t wk_seg_reduce_launch_i64(const wk_seg_launch *launch);
cudaError_t wk_seg_reduce_launch_u64(const wk_seg_launch *launch);
cudaError_t wk_seg_reduce_launch_f32(const wk_seg_launch *launch);
cudaError_t wk_seg_reduce_launch_f64(const wk_seg_launch *launch);
cudaError_t wk_seg_reduce_launch_f16(const wk_seg_launch *launch);
cudaError_t wk_seg_reduce_launch_bf16(const wk_seg_launch *launch);
cudaError_t wk_seg_scan_launch_i32(const wk_seg_launch *launch);
cudaError_t wk_seg_scan_launch_u32(const wk_seg_launch *launch);
cudaError_t wk_seg_scan_launch_i64(const wk_seg_launch *launch);
cudaError_t wk_seg_scan_launch_u64(const wk_seg_launch *launch);
cudaError_t wk_seg_scan_launch_f32(const wk_seg_launch *launch);
cudaError_t wk_seg_scan_launch_f64(const wk_seg_launch *launch);
cudaError_t wk_seg_scan_launch_f16(const wk_seg_launch *launch);
cudaError_t wk_seg_scan_launch_bf16(const wk_seg_launch *launch);
/* The segmented reproducible sum, float dtypes (in the reduce files). */
cudaError_t wk_seg_repro_launch_f32(const wk_seg_launch *launch);
cudaError_t wk_seg_repro_launch_f64(const wk_seg_launch *launch);
cudaError_t wk_seg_repro_launch_f16(const wk_seg_launch *launch);
cudaError_t wk_seg_repro_launch_bf16(const wk_seg_launch *launch);

#ifdef __cplusplus
}
#endif

#endif
