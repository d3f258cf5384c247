/* Argument checks that every entry point runs before it launches anything. */
#ifndef WARPKIT_VALIDATE_H
#define WARPKIT_VALIDATE_H

#include "warpkit.h"

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dtype and op are known, and op makes sense for dtype. `fn` names the
 * caller in the error message. */
wk_status wk_check_dtype_op(int dtype, int op, const char *fn);

/* The same for a scan, which takes no arg op (WK_ERROR_UNSUPPORTED). */
wk_status wk_check_scan_dtype_op(int dtype, int op, const char *fn);

/* A sum of `dtype` kept as `out_dtype` (the _to calls): both valid dtypes
 * (WK_ERROR_INVALID_DTYPE) and a pair wk_sum_widens accepts
 * (WK_ERROR_UNSUPPORTED). */
wk_status wk_check_sum_pair(int dtype, int out_dtype, const char *fn);

/* `p` is memory the kernels on `device` can use at that address (device
 * memory of `device`, managed memory, or pinned host memory mapped at the
 * same address), and aligned to `align` bytes. `name` is the argument's name for the message. */
wk_status wk_check_device_pointer(const void *p, int device, size_t align, const char *fn,
                                  const char *name);

/* The most bytes any input, output or array of a call may span: no device
 * holds more, and every product of a count and a size below it fits size_t
 * with room for the kernels' index arithmetic. */
#define WK_MAX_BYTES ((size_t)1 << 62)

/* n elements of elem_size bytes are at most WK_MAX_BYTES (WK_ERROR_LIMIT
 * otherwise): the one check of every size product. */
wk_status wk_check_extent(size_t n, size_t elem_size, const char *fn);

/* Fails with WK_ERROR_CAPTURE, touching nothing, when `stream` is being
 * captured (or is the legacy stream while another is captured): a call that
 * waits for its result cannot be part of a graph. `instead` names the call
 * to capture there. */
wk_status wk_check_not_capturing(cudaStream_t stream, const char *fn, const char *instead);

/* Fails with WK_ERROR_CAPTURE, touching nothing, when work cannot be
 * enqueued on `stream`: its capture has been invalidated, or it is the
 * legacy stream while another stream is captured in global mode. For the
 * calls that launch without a workspace (wk_workspace_acquire checks the
 * same for the others). */
wk_status wk_check_capture_state(cudaStream_t stream, const char *fn);

/* The status of a stream that a capture query answered with `err` and
 * `capture`: WK_ERROR_CAPTURE for the legacy stream while another is
 * captured in global mode or for an invalidated capture, the CUDA error for
 * any other failure. */
wk_status wk_capture_status(cudaError_t err, enum cudaStreamCaptureStatus capture, const char *fn);

/* [a, a + a_bytes) and [b, b + b_bytes) share a byte. */
int wk_ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes);

#ifdef __cplusplus
}
#endif

#endif
