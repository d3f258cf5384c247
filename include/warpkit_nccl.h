/*
 * warpkit across GPUs: reduce, scan and select over an input split across
 * the ranks of an NCCL communicator, one GPU per rank, on one node or many.
 * A separate library (libwarpkit_nccl, CMake target warpkit::warpkit_nccl),
 * built when NCCL is found; it links libwarpkit and NCCL.
 *
 * The whole input is the concatenation of the ranks' parts in rank order;
 * every call gives what one warpkit call over that concatenation gives.
 * Each call runs the local pass at memory speed on the caller's stream and
 * exchanges a few bytes per rank (ncclAllGather): no host synchronization,
 * nothing allocated per call, capturable into a CUDA graph where NCCL allows
 * it (NCCL 2.9 and later). Parts may have any size per rank, 0 included.
 * The dtypes are the 32- and 64-bit integers and the four floats; the
 * narrow ones of warpkit 0.3 (bool, 8- and 16-bit integers) are refused
 * with WK_ERROR_UNSUPPORTED.
 *
 * Collective rules, as for NCCL itself: every rank makes the same calls in
 * the same order, with the same kind, dtype and op (n and the pointers are
 * each rank's own). A call that fails its checks returns before it launches
 * anything or enters a collective; the other ranks' collective then waits
 * for it, so a program must treat an error as fatal for the communicator
 * (ncclCommAbort). Calls on one wk_dist share its exchange buffers: issue
 * them on one stream, or order their streams yourself; the handle's lock
 * makes issuing from several threads safe.
 */
#ifndef WARPKIT_NCCL_H
#define WARPKIT_NCCL_H

#include <nccl.h>

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_dist wk_dist;

/* One rank: `ctx` on the GPU of `comm` (both stay the caller's, and must
 * outlive the handle). Allocates the exchange buffers on ctx's device and
 * synchronizes it. */
wk_status wk_dist_create(wk_dist **dist, wk_context *ctx, ncclComm_t comm);

/* One process driving `count` GPUs (devices[i] is rank i): makes a context
 * and, through ncclCommInitAll, a communicator per GPU, owned by the
 * handles. Run calls on them with wk_dist_run_all. */
wk_status wk_dist_create_all(wk_dist **dists, int count, const int *devices);

/* Frees the handle (and what wk_dist_create_all made for it) after
 * synchronizing its device. NULL-safe. */
wk_status wk_dist_destroy(wk_dist *dist);

int wk_dist_rank(const wk_dist *dist);
int wk_dist_size(const wk_dist *dist);
wk_context *wk_dist_context(const wk_dist *dist);

/* Where a rank's kept elements sit in the whole output, in device memory
 * (8-byte aligned): this rank's count, the count of every rank below it,
 * and the count of all ranks. */
typedef struct wk_dist_count {
    uint64_t count;
    uint64_t offset;
    uint64_t total;
} wk_dist_count;

/* What one rank's call does. */
typedef enum wk_dist_kind {
    WK_DIST_REDUCE = 0,
    WK_DIST_INCLUSIVE_SCAN = 1,
    WK_DIST_EXCLUSIVE_SCAN = 2,
    WK_DIST_SELECT_IF = 3,
    WK_DIST_SELECT_FLAGGED = 4,
    WK_DIST_PARTITION_IF = 5,
    WK_DIST_UNIQUE = 6,
    WK_DIST_WHERE = 7
} wk_dist_kind;

#define WK_DIST_KIND_COUNT 8

/* One rank's call, for wk_dist_run and wk_dist_run_all; fields a kind does
 * not use are ignored (see the typed calls below for their meaning). */
typedef struct wk_dist_call {
    wk_dist_kind kind;
    const void *in;         /* this rank's part: n elements              */
    const uint8_t *flags;   /* WK_DIST_SELECT_FLAGGED                     */
    void *out;              /* result, outputs, or int64 indices (where)  */
    wk_dist_count *count;   /* the selects                                */
    size_t n;
    wk_dtype dtype;
    wk_op op;               /* reduce and scans                           */
    wk_value init;          /* exclusive scan                             */
    wk_predicate predicate; /* select_if, partition_if, where             */
    cudaStream_t stream;
} wk_dist_call;

wk_status wk_dist_run(wk_dist *dist, const wk_dist_call *call);

/* The calls of several ranks that one thread drives (wk_dist_create_all):
 * calls[i] runs on dists[i]; their exchanges are grouped (ncclGroupStart /
 * End), which NCCL needs when one thread drives several GPUs. */
wk_status wk_dist_run_all(wk_dist *const *dists, const wk_dist_call *calls, int count);

/*
 * Reduce: every rank's d_out receives the result of the whole input, as
 * wk_reduce gives it (same layout, ops and semantics), with two differences:
 *  - float sums (f32, f64, f16, bf16) are reproducible sums: each rank's
 *    wk_repro_partial is combined exactly, so the bits equal
 *    wk_reduce_repro over the whole input on one GPU, for any number of
 *    ranks and any split;
 *  - ARGMIN / ARGMAX give the index in the whole input (the rank's offset
 *    plus the local index), the lowest on ties; the first NaN wins.
 * Integer results, MIN and MAX are the bits of one call over the whole input.
 */
wk_status wk_dist_reduce(wk_dist *dist, const void *d_in, void *d_out, size_t n, wk_dtype dtype, wk_op op,
                         cudaStream_t stream);

/*
 * Scans: d_out[0 .. n) receives this rank's part of the scan of the whole
 * input (as wk_inclusive_scan / wk_exclusive_scan with init). Each rank
 * reads its part twice: once for its total, which the ranks exchange, then
 * once to scan it from the total of the ranks below (wk_*_scan_from), so it
 * moves 3n elements' bytes against 2n for a scan on one GPU. Integer, MIN
 * and MAX outputs equal one call's bits. Float sums carry, per output, the
 * roundings of the local scan, one per rank below (the ranks' totals are
 * rounded to the dtype and added in rank order) and one for the prefix.
 */
wk_status wk_dist_inclusive_scan(wk_dist *dist, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                 wk_op op, cudaStream_t stream);
wk_status wk_dist_exclusive_scan(wk_dist *dist, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                 wk_op op, wk_value init, cudaStream_t stream);

/*
 * Selects: each rank compacts its part into its d_out as the one-GPU call
 * does (d_out needs room for n outputs), and d_count receives where those
 * outputs go in the whole result (wk_dist_count). Concatenating the ranks'
 * d_out[0 .. count) in rank order gives one call's output over the whole
 * input:
 *  - wk_dist_partition_if: the kept elements as above; each rank's rejected
 *    elements follow its kept ones in its own d_out, in reverse order.
 *  - wk_dist_unique: a rank's first element is kept only if it differs from
 *    the last element of the nearest rank below that has elements.
 *  - wk_dist_where: indices in the whole input (int64).
 * unique and where exchange twice (what comes before, then the counts).
 */
wk_status wk_dist_select_if(wk_dist *dist, const void *d_in, void *d_out, wk_dist_count *d_count, size_t n,
                            wk_dtype dtype, wk_predicate predicate, cudaStream_t stream);
wk_status wk_dist_select_flagged(wk_dist *dist, const void *d_in, const uint8_t *d_flags, void *d_out,
                                 wk_dist_count *d_count, size_t n, wk_dtype dtype, cudaStream_t stream);
wk_status wk_dist_partition_if(wk_dist *dist, const void *d_in, void *d_out, wk_dist_count *d_count, size_t n,
                               wk_dtype dtype, wk_predicate predicate, cudaStream_t stream);
wk_status wk_dist_unique(wk_dist *dist, const void *d_in, void *d_out, wk_dist_count *d_count, size_t n,
                         wk_dtype dtype, cudaStream_t stream);
wk_status wk_dist_where(wk_dist *dist, const void *d_in, int64_t *d_indices, wk_dist_count *d_count, size_t n,
                        wk_dtype dtype, wk_predicate predicate, cudaStream_t stream);

/* The message of the last failed wk_dist_* call on this thread, including
 * failures inside the warpkit or NCCL calls it makes; "" if none. */
const char *wk_dist_last_error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* WARPKIT_NCCL_H */
