/* Machinery shared by the GPU tests of the API's contract (test_*_api.c):
 * stopping on a CUDA error, counting what a call enqueues by capturing it
 * into a graph, poisoned buffers, and waiting for a stream with a time
 * limit, so that every API test checks these things the same way. */
#ifndef WARPKIT_API_TEST_UTIL_H
#define WARPKIT_API_TEST_UTIL_H

#include "test_util.h"
#include "warpkit.h"

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The byte buffers are filled with before a call, so that any byte the call
 * writes shows. */
#define POISON 0x5A

/* A CUDA error in the test's own set-up leaves nothing sensible to test. */
#define CHECK_CUDA(call)                                                                       \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* A call may take this long before it counts as hung: generous, so that
 * runs under compute-sanitizer (tens of times slower) do not trip it. */
#define HANG_SECONDS 120.0

/* What a captured call enqueued: graph nodes in all, and of them kernel
 * launches and memsets. */
typedef struct wk_capture {
    size_t nodes, kernels, memsets;
} wk_capture;

/* Enqueues one call (whatever `call` describes) on s. */
typedef wk_status (*wk_enqueue_fn)(const void *call, cudaStream_t s);

/* Counts graph's nodes, by kind, into *got. */
void wk_count_graph_nodes(cudaGraph_t graph, wk_capture *got);

/* Runs enqueue(call) under capture of stream and reports the graph nodes it
 * added (launches, copies, memsets, allocations) by kind. The graph goes to
 * *keep when that is not NULL. A capture the call broke is reported as a
 * failure and counts as SIZE_MAX nodes. Returns the call's status. */
wk_status wk_capture_call(cudaStream_t stream, wk_enqueue_fn enqueue, const void *call, wk_capture *got,
                          cudaGraph_t *keep);

/* Captures enqueue(call) on stream and counts in t, as the check `what`,
 * whether the call succeeded as one kernel launch and nothing else. *graph
 * is the capture when the call succeeded (the caller destroys it), else
 * NULL. Returns the call's status. */
wk_status wk_capture_one_kernel(wk_tally *t, cudaStream_t stream, wk_enqueue_fn enqueue, const void *call,
                                const char *what, cudaGraph_t *graph);

/* Instantiates graph, launches it once on stream and waits for it (see
 * wait_stream; `what` names it in a failure). */
void wk_launch_graph_once(cudaStream_t stream, cudaGraph_t graph, const char *what);

/* How many pointers the argument list holds. */
#define WK_COUNT_POINTERS(...) (sizeof((const void *const[]){__VA_ARGS__}) / sizeof(const void *))

/* Frees the count device buffers (NULL ones are skipped), stopping the test
 * on an error; WK_FREE_DEVICE(a, b, ...) lists them in place. */
void wk_free_device_list(const void *const *buffers, size_t count);
#define WK_FREE_DEVICE(...) wk_free_device_list((const void *const[]){__VA_ARGS__}, WK_COUNT_POINTERS(__VA_ARGS__))

/* Frees the count host buffers that malloc gave; WK_FREE_HOST(a, b, ...)
 * lists them in place. */
void wk_free_host_list(const void *const *buffers, size_t count);
#define WK_FREE_HOST(...) wk_free_host_list((const void *const[]){__VA_ARGS__}, WK_COUNT_POINTERS(__VA_ARGS__))

/* Fills bytes of device memory with POISON and waits for it. */
void wk_poison_device(void *d, size_t bytes);

/* Waits for stream, then returns how many of the bytes at d are no longer
 * POISON, other than those in [skip, skip + skip_bytes). */
size_t wk_device_changes(cudaStream_t stream, const void *d, size_t bytes, size_t skip, size_t skip_bytes);

/* Seconds on a monotonic clock. */
double seconds_now(void);

/* Waits for the stream's work to finish, at most `limit` seconds. A call
 * whose tiles wait for a status that never comes (one cleared or never
 * published) spins forever; this turns that into a failure that names the
 * call, instead of a test killed by CTest's timeout. The context cannot be
 * used after such a hang, so the test ends there. */
void wait_stream(cudaStream_t s, double limit, const char *what);

/* The start of an API test: the context (the exit status is 77 without a
 * device), the seed, printed so that a run can be repeated, a stream, and
 * region_bytes of device memory for the calls to point into. Returns -1 to
 * go on, or the exit status. */
int wk_api_test_start(wk_context **ctx, uint64_t *seed, cudaStream_t *stream, unsigned char **d_region,
                      size_t region_bytes);

/* Frees what wk_api_test_start made and returns the exit status of the
 * checks counted in t. */
int wk_api_test_finish(wk_context *ctx, cudaStream_t stream, unsigned char *d_region, const wk_tally *t);

/* A context of the test's own, so that what earlier tests grew does not
 * cover what this one needs; its creation is counted in t as the check
 * `what`. NULL when it could not be made. */
wk_context *wk_fresh_context(wk_tally *t, const char *what);

/* The bits a float sum or prefix sum that is NaN comes back as
 * (warpkit.h): 0x7fffffff for f32, 0x7ff8000000000000 for f64, 0x7fff for
 * f16 and bf16. */
uint64_t wk_sum_nan_bits(wk_dtype dtype);

/* Stores a signalling NaN of payload 1, positive or negative, as element i
 * of h (a float dtype). */
void wk_store_signed_nan(void *h, size_t i, wk_dtype dtype, int negative);

/* The elements of h[0 .. n) that are NaN with other bits than
 * wk_sum_nan_bits; the NaNs in all go to *nans. */
size_t wk_stray_nans(const void *h, size_t n, wk_dtype dtype, size_t *nans);

static inline size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

#endif
