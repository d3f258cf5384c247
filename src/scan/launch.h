/* The boundary between the host API and the per-dtype scan kernels. */
#ifndef WARPKIT_SCAN_LAUNCH_H
#define WARPKIT_SCAN_LAUNCH_H

#include "plan.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device words that let every call start without an initialisation launch.
 * A call's stamp is epoch + 1. `ticket` holds the low 30 bits of epoch in
 * its high half and the next tile number in its low half, so that one
 * relaxed atomic add gives a block both its tile and its call's stamp,
 * with no fence. The block that takes the last number advances epoch and
 * resets ticket for the next call, whose blocks cannot start before this
 * kernel has finished (tile_order.cuh). Zero at context creation. */
typedef struct wk_scan_state {
    unsigned long long ticket;
    unsigned long long epoch;
} wk_scan_state;

/* The context's tile-status words and the state that orders their use.
 * Scans and selects share them: calls on a context are stream-ordered, and
 * every call stamps its words with a stamp no earlier call used. */
typedef struct wk_tile_slots {
    wk_scan_state *state;
    unsigned long long *narrow;   /* one 8-byte word per tile: 4-byte values */
    unsigned long long *wide;     /* two 8-byte words per tile: 8-byte values */
    unsigned long long capacity;  /* tiles each family covers (>= plan.tiles) */
} wk_tile_slots;

/* Everything one launch needs; arguments are already validated. */
typedef struct wk_scan_launch {
    const void *in;
    void *out;
    wk_scan_plan plan;
    wk_op op;
    int exclusive;
    wk_value init;            /* exclusive scans: the first output         */
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
