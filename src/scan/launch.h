/* The boundary between the host API and the per-dtype scan kernels. */
#ifndef WARPKIT_SCAN_LAUNCH_H
#define WARPKIT_SCAN_LAUNCH_H

#include "plan.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device words that let every call start without an initialisation launch.
 * Blocks take tile numbers from next_tile in the order they start and stamp
 * their status words with epoch + 1; the block that takes the last number
 * resets next_tile and advances epoch, so the next call's stamps never match
 * a status left by this one. Zero at context creation. */
typedef struct wk_scan_state {
    unsigned long long next_tile;
    unsigned long long epoch;
} wk_scan_state;

/* Everything one launch needs; arguments are already validated. */
typedef struct wk_scan_launch {
    const void *in;
    void *out;
    wk_scan_plan plan;
    wk_op op;
    int exclusive;
    wk_value init;            /* exclusive scans: the first output         */
    wk_scan_state *state;
    unsigned long long *narrow_words; /* `capacity` 8-byte words: 4-byte values   */
    unsigned long long *wide_words;   /* `capacity` 16-byte words: 8-byte values  */
    unsigned long long capacity;      /* tiles the words cover (>= plan.tiles)    */
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
