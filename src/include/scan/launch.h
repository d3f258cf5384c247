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
    wk_tile_slots slots;
    unsigned grid;            /* blocks of a pipelined plan: at most one per SM */
    int overlap_launch;       /* programmatic stream serialization (sm_90+) */
    cudaStream_t stream;
} wk_scan_launch;

/* One launcher per dtype, each in its own translation unit. */
/* One launcher per dtype of src/include/common/dtypes.h, each in its own generated
 * translation unit (cmake/WarpkitKernels.cmake). */
#define WK_SCAN_DECLARE(name, code, storage) cudaError_t wk_scan_launch_##name(const wk_scan_launch *launch);
WK_DTYPES(WK_SCAN_DECLARE)
#undef WK_SCAN_DECLARE

/* The launcher of a dtype; cudaErrorInvalidValue for any other. */
static inline cudaError_t wk_scan_launch_dtype(int dtype, const wk_scan_launch *l)
{
    switch (dtype) {
#define WK_SCAN_CASE(name, code, storage) \
    case code: return wk_scan_launch_##name(l);
    WK_DTYPES(WK_SCAN_CASE)
#undef WK_SCAN_CASE
    default: return cudaErrorInvalidValue;
    }
}

#ifdef __cplusplus
}
#endif

#endif
