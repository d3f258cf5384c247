/* The boundary between the host API and the per-dtype reduce kernels. */
#ifndef WARPKIT_REDUCE_LAUNCH_H
#define WARPKIT_REDUCE_LAUNCH_H

#include "plan.h"
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

/* One launcher per dtype, each in its own translation unit. */
cudaError_t wk_reduce_launch_i32(const wk_reduce_launch *launch);
cudaError_t wk_reduce_launch_u32(const wk_reduce_launch *launch);
cudaError_t wk_reduce_launch_i64(const wk_reduce_launch *launch);
cudaError_t wk_reduce_launch_u64(const wk_reduce_launch *launch);
cudaError_t wk_reduce_launch_f32(const wk_reduce_launch *launch);
cudaError_t wk_reduce_launch_f64(const wk_reduce_launch *launch);
cudaError_t wk_reduce_launch_f16(const wk_reduce_launch *launch);
cudaError_t wk_reduce_launch_bf16(const wk_reduce_launch *launch);

/* Bytes of one partial-result slot in the workspace. */
#define WK_REDUCE_PARTIAL_BYTES 16

#ifdef __cplusplus
}
#endif

#endif
