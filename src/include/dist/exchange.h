/* The small kernels around the ranks' exchange: one thread each, on the
 * caller's stream. Declared for the C side of the distributed calls. */
#ifndef WARPKIT_DIST_EXCHANGE_H
#define WARPKIT_DIST_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "warpkit.h"
#include "dist/ranks.h"
#include "warpkit_nccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one rank sends for an arg reduce: its wk_arg_result and its n. */
typedef struct wk_dist_arg_record {
    uint64_t value_bits;
    int64_t index;
    uint64_t n;
} wk_dist_arg_record;

/* *dst_n = n; and when src_last is not NULL, its elem bytes, zero-extended
 * to 8, to dst_last. */
cudaError_t wk_dist_stamp(uint64_t *dst_n, uint64_t n, uint64_t *dst_last, const void *src_last, size_t elem,
                          cudaStream_t stream);

/* counts: `ranks` uint64 counts; *out = wk_dist_place(counts, ranks, rank). */
cudaError_t wk_dist_place_counts(const uint64_t *counts, int ranks, int rank, wk_dist_count *out,
                                 cudaStream_t stream);

/* tails: `ranks` records. Writes to out (elem bytes) the last element of the
 * nearest non-empty rank below, or else an element unequal to *first (which
 * is then this rank's first element; NULL when this rank is empty). */
cudaError_t wk_dist_previous_element(const wk_dist_tail_record *tails, int ranks, int rank, const void *first,
                                     size_t elem, void *out, cudaStream_t stream);

/* records: `ranks` arg records. Writes the whole input's wk_arg_result:
 * global indices, lowest on ties, the first NaN first. */
cudaError_t wk_dist_combine_args(const wk_dist_arg_record *records, int ranks, wk_dtype dtype, wk_op op, void *out,
                                 cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
