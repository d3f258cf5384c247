/* Context life cycle: device properties read once, workspace allocated once. */
#include "api/context.h"
#include "api/error.h"
#include "reduce/launch.h"
#include "api/workspace.h"

#include <cuda_runtime.h>
#include <stdlib.h>

extern "C" wk_status wk_cuda_fail(cudaError_t err, const char *what)
{
    wk_status status = WK_ERROR_CUDA;
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
        err == cudaErrorInvalidDevice || err == cudaErrorCompatNotSupportedOnDevice)
        status = WK_ERROR_NO_DEVICE;
    else if (err == cudaErrorMemoryAllocation)
        status = WK_ERROR_OUT_OF_MEMORY;
    return wk_fail(status, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}

extern "C" wk_status wk_device_enter(const wk_context *ctx, wk_device_guard *guard)
{
    guard->changed = 0;
    cudaError_t err = cudaGetDevice(&guard->previous);
    if (err != cudaSuccess)
        return wk_cuda_fail(err, "cudaGetDevice");
    if (guard->previous != ctx->device) {
        err = cudaSetDevice(ctx->device);
        if (err != cudaSuccess)
            return wk_cuda_fail(err, "cudaSetDevice");
        guard->changed = 1;
    }
    return WK_SUCCESS;
}

extern "C" void wk_device_leave(const wk_device_guard *guard)
{
    if (guard->changed)
        cudaSetDevice(guard->previous);
}


extern "C" wk_status wk_create(wk_context **out, int device)
{
    wk_clear_error();
    if (!out)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "wk_create: ctx is NULL");
    *out = NULL;
    if (device < -1)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT,
                       "wk_create: device %d is not a device ordinal (-1 means the current device)", device);
    wk_nvtx_range range("wk_create");
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0)
        return wk_fail(WK_ERROR_NO_DEVICE, "no CUDA device found (%s)",
                       err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    if (device < 0 && (err = cudaGetDevice(&device)) != cudaSuccess)
        return wk_cuda_fail(err, "cudaGetDevice");
    if (device >= count)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "wk_create: device %d does not exist (%d found)", device,
                       count);

    wk_context *c = static_cast<wk_context *>(calloc(1, sizeof *c));
    if (!c)
        return wk_fail(WK_ERROR_OUT_OF_MEMORY, "wk_create: host allocation failed");
    c->device = device;
    wk_device_guard guard;
    wk_status status = wk_device_enter(c, &guard);
    if (status == WK_SUCCESS) {
        err = cudaDeviceGetAttribute(&c->sm_count, cudaDevAttrMultiProcessorCount, device);
        if (err == cudaSuccess)
            err = cudaDeviceGetAttribute(&c->cc_major, cudaDevAttrComputeCapabilityMajor, device);
        if (err == cudaSuccess)
            err = cudaDeviceGetAttribute(&c->shared_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        if (err == cudaSuccess)
            err = cudaDeviceGetAttribute(&c->cluster_launch, cudaDevAttrClusterLaunch, device);
        if (err != cudaSuccess)
            status = wk_cuda_fail(err, "reading the device attributes");
    }
    if (status == WK_SUCCESS) {
        /* The memory's datasheet rate only tunes the tiles shape: unknown
         * (an error or 0) means one tile a block. */
        int memory_khz = 0, bus_bits = 0;
        if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
            cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
            memory_khz = bus_bits = 0;
            cudaGetLastError(); /* the query's failure must not leak into later calls */
        }
        c->tiles_per_block = wk_tiles_per_block(c->sm_count, memory_khz, bus_bits);
        c->max_grid = wk_reduce_max_grid(c->sm_count);
        status = wk_workspaces_create(c);
    }
    wk_device_leave(&guard);
    if (status != WK_SUCCESS) {
        wk_destroy(c);
        return status;
    }
    *out = c;
    return WK_SUCCESS;
}

extern "C" wk_status wk_destroy(wk_context *c)
{
    if (!c)
        return WK_SUCCESS;
    wk_nvtx_range range("wk_destroy");
    wk_device_guard guard;
    wk_status status = wk_device_enter(c, &guard);
    if (status == WK_SUCCESS) {
        /* Work queued on any stream may still use the workspace. */
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess)
            status = wk_cuda_fail(err, "wk_destroy");
        wk_workspaces_destroy(c);
        wk_device_leave(&guard);
    }
    free(c);
    return status;
}

extern "C" int wk_context_device(const wk_context *c) { return c ? c->device : -1; }
extern "C" int wk_context_sm_count(const wk_context *c) { return c ? c->sm_count : 0; }
