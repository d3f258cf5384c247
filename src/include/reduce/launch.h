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
    cudaStream_t stream;
} wk_reduce_launch;

/* One launcher per dtype of src/include/common/dtypes.h, each in its own generated
 * translation unit (cmake/WarpkitKernels.cmake). */
#define WK_REDUCE_DECLARE(name, code, storage) cudaError_t wk_reduce_launch_##name(const wk_reduce_launch *launch);
WK_DTYPES(WK_REDUCE_DECLARE)
#undef WK_REDUCE_DECLARE

/* The launcher of a dtype; cudaErrorInvalidValue for any other. */
static inline cudaError_t wk_reduce_launch_dtype(int dtype, const wk_reduce_launch *l)
{
    switch (dtype) {
#define WK_REDUCE_CASE(name, code, storage) \
    case code: return wk_reduce_launch_##name(l);
    WK_DTYPES(WK_REDUCE_CASE)
#undef WK_REDUCE_CASE
    default: return cudaErrorInvalidValue;
    }
}

/* Bytes of one partial-result slot in the workspace. */
#define WK_REDUCE_PARTIAL_BYTES 16

#ifdef __cplusplus
}
#endif

#endif
