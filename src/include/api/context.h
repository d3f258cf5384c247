/* The context's contents, shared by the API's translation units. */
#ifndef WARPKIT_CONTEXT_H
#define WARPKIT_CONTEXT_H

#include "api/error.h"
#include "warpkit.h"

#ifdef __cplusplus
#include "api/nvtx_range.h"
#endif

struct wk_context {
    int device;
    int sm_count;
    int cc_major;          /* compute capability, major number            */
    int shared_per_block;  /* most shared memory a block may opt in to    */
    int cluster_launch;    /* launches thread-block clusters (sm_90 on)   */
    unsigned max_grid;     /* most blocks a reduce launches               */
    unsigned tiles_per_block; /* tiles a reduce's tiles-shape block reads  */
    struct wk_workspaces *workspaces; /* one per stream in use: workspace.h */
};

#ifdef __cplusplus
extern "C" {
#endif

/* wk_device_enter makes ctx's device current for the duration of a call;
 * wk_device_leave puts the caller's device back. */
typedef struct wk_device_guard {
    int previous;
    int changed;
} wk_device_guard;

wk_status wk_device_enter(const wk_context *ctx, wk_device_guard *guard);
void wk_device_leave(const wk_device_guard *guard);

/* Turns a CUDA error into a status with a message naming what failed. */
wk_status wk_cuda_fail(cudaError_t err, const char *what);

#ifdef __cplusplus
}

/* The frame of every entry point that works on the device: clears the last
 * error, checks ctx, and runs `call` with ctx's device current, inside an
 * NVTX range named after the entry point (free when no profiler listens). */
template <class Call> inline wk_status wk_on_device(wk_context *ctx, const char *fn, Call &&call)
{
    wk_clear_error();
    if (!ctx)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
    wk_nvtx_range range(fn);
    wk_device_guard guard;
    wk_status status = wk_device_enter(ctx, &guard);
    if (status != WK_SUCCESS)
        return status;
    status = call();
    wk_device_leave(&guard);
    return status;
}
#endif

#endif
