/* The newest CUB, beside the toolkit's in `warpkit bench`. Its headers come
 * from scripts/fetch_cccl.sh; it is built into a shared library of its own
 * (CMake option WARPKIT_CUB_LATEST_INCLUDE), with every symbol hidden but
 * these, so that its templates never meet those of the toolkit's CUB. */
#ifndef WARPKIT_BENCH_CUB_LATEST_H
#define WARPKIT_BENCH_CUB_LATEST_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CCCL_VERSION of the headers it was built with (3006000 for 3.6.0). */
int wk_cub_latest_version(void);

/* DeviceReduce's two-phase calls: op WK_SUM or WK_MIN (value to out) or
 * WK_ARGMAX (value to out, index to out_index), dtype WK_F32, WK_F64 or
 * WK_I32. With temp NULL it only sets *temp_bytes, as CUB's calls do. */
cudaError_t wk_cub_latest_reduce(wk_op op, wk_dtype dtype, const void *in, void *out, int64_t *out_index, size_t n,
                                 void *temp, size_t *temp_bytes, cudaStream_t stream);

/* DeviceReduce::Sum through the environment interface with
 * determinism::not_guaranteed: the single-pass sum (atomics), its
 * temporary storage taken from the device's stream-ordered pool. */
cudaError_t wk_cub_latest_sum_single_pass(wk_dtype dtype, const void *in, void *out, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
