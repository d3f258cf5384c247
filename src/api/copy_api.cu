/* wk_copy_to_host: a few bytes of device memory read back to the host by a
 * one-block kernel that stores them into the workspace's mapped host slot. */
#include "common/chained_launch.cuh"
#include "api/context.h"
#include "api/error.h"
#include "api/validate.h"
#include "api/workspace.h"

#include <cuda_runtime.h>

static_assert(WK_COPY_TO_HOST_MAX_BYTES <= WK_HOST_SLOT_BYTES, "a read-back fits the host slot");

namespace {

/* One byte a thread, so any alignment and any length up to the slot's. */
__global__ void __launch_bounds__(WK_HOST_SLOT_BYTES)
copy_bytes(const unsigned char *src, unsigned char *dst, unsigned bytes)
{
    wk::wait_for_previous_kernel();
    if (threadIdx.x < bytes)
        dst[threadIdx.x] = src[threadIdx.x];
}

/* What launch_copy needs from the call. */
struct copy_args {
    const unsigned char *src;
    unsigned bytes;
    bool overlap_launch;
    cudaStream_t stream;
    const char *fn;
};

wk_status launch_copy(const wk_workspace_use *, void *slot, const void *arg)
{
    const copy_args *a = static_cast<const copy_args *>(arg);
    cudaError_t err = wk::launch_chained(copy_bytes, 1, WK_HOST_SLOT_BYTES, 0, a->stream, a->overlap_launch, a->src,
                                         static_cast<unsigned char *>(slot), a->bytes);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, a->fn);
}

} // namespace

extern "C" wk_status wk_copy_to_host(wk_context *ctx, const void *d_src, void *h_dst, size_t bytes,
                                     cudaStream_t stream)
{
    const char *fn = "wk_copy_to_host";
    return wk_on_device(ctx, fn, [&] {
        wk_status status = wk_check_not_capturing(stream, fn, "cudaMemcpyAsync");
        if (status != WK_SUCCESS)
            return status;
        if (bytes < 1)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: bytes is 0", fn);
        if (bytes > WK_COPY_TO_HOST_MAX_BYTES)
            return wk_fail(WK_ERROR_LIMIT, "%s: bytes = %zu is more than %d", fn, bytes, WK_COPY_TO_HOST_MAX_BYTES);
        if (!h_dst)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: h_dst is NULL", fn);
        if ((status = wk_check_device_pointer(d_src, ctx->device, 1, fn, "d_src")) != WK_SUCCESS)
            return status;
        copy_args args = {static_cast<const unsigned char *>(d_src), (unsigned)bytes, ctx->cc_major >= 9, stream, fn};
        return wk_workspace_read_back(ctx, stream, h_dst, bytes, launch_copy, &args, fn);
    });
}
