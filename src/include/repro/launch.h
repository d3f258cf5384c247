/* The boundary between the host API and the reproducible-sum kernels. */
#ifndef WARPKIT_REPRO_LAUNCH_H
#define WARPKIT_REPRO_LAUNCH_H

#include "common/dtypes.h"
#include "reduce/plan.h"
#include "warpkit.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The launch shape: 256-thread blocks, 4 per SM, 4 16-byte loads in flight
 * per thread (the bins take more registers than full occupancy allows).
 * The test shape (64 threads, one load per round) exists so that tests can
 * check that the shape does not change a bit of the result. */
#define WK_REPRO_THREADS 256
#define WK_REPRO_BLOCKS_PER_SM 4
#define WK_REPRO_UNROLL 4
#define WK_REPRO_TEST_THREADS 64
#define WK_REPRO_TEST_UNROLL 1
#define WK_REPRO_PARTIAL_BYTES 64
#define WK_REPRO_SPREAD_ROUNDS 4
#define WK_REPRO_SPREAD_ROUNDS_NARROW 8

/* What a launch writes: the partial itself, or the sum rounded to a dtype
 * (the values are binned.h's format codes). */
#define WK_REPRO_OUT_PARTIAL 0
#define WK_REPRO_OUT_F64 8
#define WK_REPRO_OUT_F32 4
#define WK_REPRO_OUT_F16 2
#define WK_REPRO_OUT_BF16 3

typedef struct wk_repro_launch {
    const void *in;
    void *out;
    wk_reduce_plan plan; /* head, body and tail; grid and block from wk_repro_shape */
    int format;          /* WK_REPRO_OUT_*                                        */
    void *partials;      /* a WK_REPRO_PARTIAL_BYTES slot per block               */
    unsigned *ticket;
    int overlap_launch;
    cudaStream_t stream;
} wk_repro_launch;

/* Blocks for a body of nvec 16-byte vectors of elem_size elements: one
 * round of the shape's loads each, capped at one block per SM up to
 * WK_REPRO_SPREAD_ROUNDS rounds per thread (WK_REPRO_SPREAD_ROUNDS_NARROW
 * for elements of 4 bytes or less) and at WK_REPRO_BLOCKS_PER_SM per SM
 * above (docs/repro.md). */
unsigned wk_repro_grid(size_t nvec, size_t elem_size, int sm_count);

/* One launcher per float dtype (the reproducible sum), in translation units generated
 * from common/dtypes.h (cmake/WarpkitKernels.cmake), and the switch that picks one. */
#define WK_LAUNCH wk_repro_launch
#define WK_LAUNCHER(name) wk_repro_launch_##name
WK_DECLARE_LAUNCHERS(WK_FLOAT_DTYPES, wk_repro_launch_dtype)
#undef WK_LAUNCHER
#undef WK_LAUNCH

/* One block combines `count` partials and writes the result in `format`. */
cudaError_t wk_repro_launch_finish(const void *partials, size_t count, void *out, int format, int overlap_launch,
                                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
