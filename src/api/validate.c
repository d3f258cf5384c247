#include "api/validate.h"
#include "api/context.h"
#include "api/error.h"

#include <stdint.h>

wk_status wk_check_dtype_op(int dtype, int op, const char *fn)
{
    if (!wk_dtype_valid(dtype))
        return wk_fail(WK_ERROR_INVALID_DTYPE, "%s: dtype %d is not a wk_dtype", fn, dtype);
    if (!wk_op_valid(op))
        return wk_fail(WK_ERROR_INVALID_OP, "%s: op %d is not a wk_op", fn, op);
    if (wk_op_is_bitwise((wk_op)op) && wk_dtype_is_float((wk_dtype)dtype))
        return wk_fail(WK_ERROR_UNSUPPORTED, "%s: %s is for integer dtypes, not %s", fn,
                       wk_op_name((wk_op)op), wk_dtype_name((wk_dtype)dtype));
    if (dtype == WK_BOOL && op == WK_SUM)
        return wk_fail(WK_ERROR_UNSUPPORTED,
                       "%s: a sum of bools needs an integer output; count them with wk_reduce_to(..., WK_BOOL, "
                       "WK_I64, ...)",
                       fn);
    return WK_SUCCESS;
}

wk_status wk_check_scan_dtype_op(int dtype, int op, const char *fn)
{
    wk_status status = wk_check_dtype_op(dtype, op, fn);
    if (status == WK_SUCCESS && wk_op_is_arg((wk_op)op))
        return wk_fail(WK_ERROR_UNSUPPORTED, "%s: %s is a reduction; scans take sum, min, max and the bitwise ops",
                       fn, wk_op_name((wk_op)op));
    return status;
}

wk_status wk_check_sum_pair(int dtype, int out_dtype, const char *fn)
{
    if (!wk_dtype_valid(dtype) || !wk_dtype_valid(out_dtype))
        return wk_fail(WK_ERROR_INVALID_DTYPE, "%s: dtype %d or out_dtype %d is not a wk_dtype", fn, dtype,
                       out_dtype);
    if (!wk_sum_widens(dtype, out_dtype))
        return wk_fail(WK_ERROR_UNSUPPORTED,
                       "%s: a sum of %s is not kept as %s; see wk_sum_widens for the pairs (integers and bools "
                       "into wider integers, f16 and bf16 into f32, f32 into f64)",
                       fn, wk_dtype_name((wk_dtype)dtype), wk_dtype_name((wk_dtype)out_dtype));
    return WK_SUCCESS;
}

static const char *memory_kind(enum cudaMemoryType type)
{
    switch (type) {
    case cudaMemoryTypeUnregistered: return "ordinary host memory";
    case cudaMemoryTypeHost: return "pinned host memory";
    case cudaMemoryTypeDevice: return "device memory";
    case cudaMemoryTypeManaged: return "managed memory";
    }
    return "unknown memory";
}

wk_status wk_check_device_pointer(const void *p, int device, size_t align, const char *fn,
                                  const char *name)
{
    if (!p)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
    if ((uintptr_t)p % align != 0)
        return wk_fail(WK_ERROR_INVALID_POINTER, "%s: %s (%p) is not aligned to %zu bytes", fn, name, p,
                       align);
    struct cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, p);
    if (err != cudaSuccess) {
        cudaGetLastError(); /* the query's failure must not leak into later calls */
        return wk_fail(WK_ERROR_INVALID_POINTER, "%s: %s (%p) is not a CUDA pointer: %s", fn, name, p,
                       cudaGetErrorString(err));
    }
    if (attr.type == cudaMemoryTypeManaged)
        return WK_SUCCESS;
    /* Pinned host memory is read and written over the bus; the kernels use
     * the pointer as it is, so the device must map it at that address. */
    if (attr.type == cudaMemoryTypeHost) {
        if (attr.devicePointer == p)
            return WK_SUCCESS;
        return wk_fail(WK_ERROR_INVALID_POINTER,
                       "%s: %s (%p) is pinned host memory that the device maps at another address (%p); pass "
                       "that one (cudaHostGetDevicePointer)",
                       fn, name, p, attr.devicePointer);
    }
    if (attr.type != cudaMemoryTypeDevice)
        return wk_fail(WK_ERROR_INVALID_POINTER, "%s: %s (%p) points to %s; a device pointer is needed", fn,
                       name, p, memory_kind(attr.type));
    if (attr.device != device)
        return wk_fail(WK_ERROR_INVALID_POINTER, "%s: %s (%p) is on device %d, the context on device %d", fn,
                       name, p, attr.device, device);
    return WK_SUCCESS;
}

wk_status wk_check_extent(size_t n, size_t elem_size, const char *fn)
{
    if (elem_size != 0 && n > WK_MAX_BYTES / elem_size)
        return wk_fail(WK_ERROR_LIMIT, "%s: %zu elements of %zu bytes are more than 2^62 bytes", fn, n, elem_size);
    return WK_SUCCESS;
}

int wk_ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    if (a_bytes == 0 || b_bytes == 0)
        return 0;
    return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

wk_status wk_check_not_capturing(cudaStream_t stream, const char *fn, const char *instead)
{
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    if (err == cudaErrorStreamCaptureImplicit || (err == cudaSuccess && capture != cudaStreamCaptureStatusNone)) {
        cudaGetLastError(); /* the refusal must not leak into later calls */
        return wk_fail(WK_ERROR_CAPTURE,
                       "%s: the stream is being captured into a graph, and this call waits for its result; "
                       "use %s there",
                       fn, instead);
    }
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
}

wk_status wk_check_capture_state(cudaStream_t stream, const char *fn)
{
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    return wk_capture_status(err, capture, fn);
}

wk_status wk_capture_status(cudaError_t err, enum cudaStreamCaptureStatus capture, const char *fn)
{
    if (err == cudaErrorStreamCaptureImplicit) {
        cudaGetLastError();
        return wk_fail(WK_ERROR_CAPTURE,
                       "%s: the legacy default stream cannot be used while another stream is being captured", fn);
    }
    if (err != cudaSuccess)
        return wk_cuda_fail(err, fn);
    if (capture == cudaStreamCaptureStatusInvalidated)
        return wk_fail(WK_ERROR_CAPTURE, "%s: the stream's capture has been invalidated", fn);
    return WK_SUCCESS;
}
