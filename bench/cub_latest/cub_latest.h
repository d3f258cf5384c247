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

/* DeviceReduce::Sum through the environment interface with
 * determinism::gpu_to_gpu: CUB's reproducible float sum (its reproducible
 * floating-point accumulator), temporary storage as above. dtype WK_F32 or
 * WK_F64. */
cudaError_t wk_cub_latest_sum_gpu_to_gpu(wk_dtype dtype, const void *in, void *out, size_t n, cudaStream_t stream);

/* DeviceScan: for op WK_SUM an inclusive sum, or with `exclusive` an
 * exclusive sum from 0; for WK_MAX an inclusive max scan. dtype WK_F32,
 * WK_F64, WK_I32 or WK_I64. temp and temp_bytes as above. */
cudaError_t wk_cub_latest_scan(wk_op op, int exclusive, wk_dtype dtype, const void *in, void *out, size_t n,
                               void *temp, size_t *temp_bytes, cudaStream_t stream);

/* DeviceSelect::If (keep x < *threshold), ::Flagged (keep where the flag
 * byte is nonzero), ::Unique, and DevicePartition::If (x < *threshold);
 * dtype WK_F32 or WK_I32, *threshold of that type, the count a uint64_t.
 * temp and temp_bytes as above. */
typedef enum wk_cub_latest_select_kind {
    WK_CUB_LATEST_SELECT_IF = 0,
    WK_CUB_LATEST_SELECT_FLAGGED,
    WK_CUB_LATEST_SELECT_UNIQUE,
    WK_CUB_LATEST_PARTITION_IF
} wk_cub_latest_select_kind;
cudaError_t wk_cub_latest_select(wk_cub_latest_select_kind kind, wk_dtype dtype, const void *in,
                                 const uint8_t *flags, void *out, uint64_t *count, size_t n, const void *threshold,
                                 void *temp, size_t *temp_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
