/* The boundary between the host API and the per-dtype scan kernels. */
#ifndef WARPKIT_SCAN_LAUNCH_H
#define WARPKIT_SCAN_LAUNCH_H

#include "common/dtypes.h"
#include "scan/plan.h"
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
    int widen;                /* a sum scan kept and stored as out_dtype (_to) */
    wk_dtype out_dtype;       /* init and prefix are of this dtype then         */
    wk_tile_slots slots;
    unsigned grid;            /* blocks of a pipelined plan: at most one per SM */
    int overlap_launch;       /* programmatic stream serialization (sm_90+) */
    cudaStream_t stream;
} wk_scan_launch;

/* One launcher per dtype, in translation units generated from common/dtypes.h
 * (cmake/WarpkitKernels.cmake), and the switch that picks one. */
#define WK_LAUNCH wk_scan_launch
#define WK_LAUNCHER(name) wk_scan_launch_##name
WK_DECLARE_LAUNCHERS(WK_DTYPES, wk_scan_launch_dtype)
#undef WK_LAUNCHER
#undef WK_LAUNCH

#ifdef __cplusplus
}
#endif

#endif
