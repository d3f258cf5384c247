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
/* The sum of n elements of dtype kept and written as out_dtype (the pairs of
 * `warpkit bench`'s widening rows: u8, bool and i32 into i64, bf16 into
 * f32): DeviceReduce::Reduce with the output type's plus and a zero of it.
 * temp == NULL asks for *temp_bytes. */
cudaError_t wk_cub_latest_sum_to(wk_dtype dtype, wk_dtype out_dtype, const void *in, void *out, size_t n, void *temp,
                                 size_t *temp_bytes, cudaStream_t stream);

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
/* The inclusive sum scan of n elements of dtype kept and written as
 * out_dtype (bool into i64): InclusiveScanInit with the output type's plus
 * and a zero of it. temp == NULL asks for *temp_bytes. */
cudaError_t wk_cub_latest_scan_to(wk_dtype dtype, wk_dtype out_dtype, const void *in, void *out, size_t n, void *temp,
                                  size_t *temp_bytes, cudaStream_t stream);

typedef enum wk_cub_latest_select_kind {
    WK_CUB_LATEST_SELECT_IF = 0,
    WK_CUB_LATEST_SELECT_FLAGGED,
    WK_CUB_LATEST_SELECT_UNIQUE,
    WK_CUB_LATEST_PARTITION_IF
} wk_cub_latest_select_kind;
cudaError_t wk_cub_latest_select(wk_cub_latest_select_kind kind, wk_dtype dtype, const void *in,
                                 const uint8_t *flags, void *out, uint64_t *count, size_t n, const void *threshold,
                                 void *temp, size_t *temp_bytes, cudaStream_t stream);

/* The segments of a segmented call (the benchmark's layouts): `count`
 * segments either of `size` elements each, back to back (d_begin NULL), or
 * [d_begin[i], d_end[i]) (int64 offsets in device memory, size unused). */
typedef struct wk_cub_latest_segments {
    int64_t count;
    int size;
    const int64_t *d_begin, *d_end;
} wk_cub_latest_segments;

/* The forms of DeviceSegmentedReduce::Sum (f32):
 *  - FIXED: the fixed-size form, Sum(temp, temp_bytes, d_in, d_out,
 *    num_segments, int segment_size, stream); uniform segments only;
 *  - OFFSETS: the offsets form, Sum(temp, temp_bytes, d_in, d_out,
 *    num_segments, begin, end, stream): for uniform segments with int
 *    offsets computed from a counting iterator (i * size, (i + 1) * size;
 *    nothing read from memory), otherwise the int64 arrays d_begin, d_end. */
typedef enum wk_cub_latest_segmented_form {
    WK_CUB_LATEST_SEGMENTED_FIXED = 0,
    WK_CUB_LATEST_SEGMENTED_OFFSETS
} wk_cub_latest_segmented_form;
cudaError_t wk_cub_latest_segmented_sum(wk_cub_latest_segmented_form form, wk_dtype dtype, const void *in, void *out,
                                        const wk_cub_latest_segments *segments, void *temp, size_t *temp_bytes,
                                        cudaStream_t stream);

/* Segmented inclusive sums of n elements (f32), two ways:
 *  - SEGMENTED_SCAN: DeviceSegmentedScan::InclusiveSegmentedSum(temp,
 *    temp_bytes, d_in, d_out, begin, end, num_segments, stream), offsets as
 *    for the reduce's OFFSETS form;
 *  - BY_KEY: DeviceScan::InclusiveSumByKey(temp, temp_bytes, d_keys, d_in,
 *    d_out, (int)n, equal_to, stream), where d_keys holds each element's
 *    segment number (int32, made beforehand: this form reads n keys besides
 *    the values). */
typedef enum wk_cub_latest_segscan_form {
    WK_CUB_LATEST_SEGSCAN_SEGMENTED_SCAN = 0,
    WK_CUB_LATEST_SEGSCAN_BY_KEY
} wk_cub_latest_segscan_form;
cudaError_t wk_cub_latest_segmented_inclusive_sum(wk_cub_latest_segscan_form form, wk_dtype dtype, const void *in,
                                                  void *out, size_t n, const wk_cub_latest_segments *segments,
                                                  const int32_t *d_keys, void *temp, size_t *temp_bytes,
                                                  cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
