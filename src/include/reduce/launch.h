/* The boundary between the host API and the per-dtype reduce kernels. */
#ifndef WARPKIT_REDUCE_LAUNCH_H
#define WARPKIT_REDUCE_LAUNCH_H

#include "common/dtypes.h"
#include "reduce/plan.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything one launch needs; arguments are already validated. */
typedef struct wk_reduce_launch {
    const void *in;
    void *out;
    wk_reduce_plan plan;
    wk_op op;
    void *partials;    /* wk_reduce_partial_slots() slots of 16 bytes     */
    unsigned *ticket;  /* zero between launches; the last block resets it;
                          tiles: 1 + WK_TILES_MAX_GROUPS of them           */
    int overlap_launch; /* programmatic stream serialization (sm_90 and up) */
    int index_only;     /* arg ops: out is the int64 index alone             */
    int widen;          /* a sum kept and stored as out_dtype (wk_reduce_to) */
    wk_dtype out_dtype;
    cudaStream_t stream;
} wk_reduce_launch;

/* One launcher per dtype, in translation units generated from common/dtypes.h
 * (cmake/WarpkitKernels.cmake), and the switch that picks one. */
#define WK_LAUNCH wk_reduce_launch
#define WK_LAUNCHER(name) wk_reduce_launch_##name
WK_DECLARE_LAUNCHERS(WK_DTYPES, wk_reduce_launch_dtype)
#undef WK_LAUNCHER
#undef WK_LAUNCH

/* Bytes of one partial-result slot in the workspace. */
#define WK_REDUCE_PARTIAL_BYTES 16

#ifdef __cplusplus
}
#endif

#endif
