/* The boundary between the host API and the per-dtype scan kernels. */
#ifndef WARPKIT_SCAN_LAUNCH_H
#define WARPKIT_SCAN_LAUNCH_H

#include "plan.h"
#include "tiles/slots.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything one launch needs; arguments are already validated. */
typedef struct wk_scan_launch {
    const void *in;
    void *out;
    wk_tile_plan plan;
    wk_op op;
    int exclusive;
    wk_value init;            /* exclusive scans: the first output         */
    const void *prefix;       /* one element before d_in[0], or NULL (_from) */
    wk_tile_slots slots;
    unsigned grid;            /* blocks of a pipelined plan: at most one per SM */
    int overlap_launch;       /* programmatic stream serialization (sm_90+) */
    cudaStream_t stream;
} wk_scan_launch;

/* One launcher per dtype, each in its own translation unit. */
cudaError_t wk_scan_launch_i32(const wk_scan_launch *launch);
cudaError_t wk_scan_launch_u32(const wk_scan_launch *launch);
cudaError_t wk_scan_launch_i64(const wk_scan_launch *launch);
cudaError_t wk_scan_launch_u64(const wk_scan_launch *launch);
cudaError_t wk_scan_launch_f32(const wk_scan_launch *launch);
cudaError_t wk_scan_launch_f64(const wk_scan_launch *launch);
cudaError_t wk_scan_launch_f16(const wk_scan_launch *launch);
cudaError_t wk_scan_launch_bf16(const wk_scan_launch *launch);

#ifdef __cplusplus
}
#endif

#endif
