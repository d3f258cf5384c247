/* The reproducible sums: checks, planning and dispatch (the arithmetic is in
 * repro/binned.h, the kernels in repro/repro_kernel.cuh). */
#include "api/context.h"
#include "api/error.h"
#include "repro/launch.h"
#include "api/tuning.h"
#include "api/validate.h"
#include "api/workspace.h"

#include <cuda_runtime.h>

/* The result format of a float dtype (WK_REPRO_OUT_*); -1 for any other. */
static int repro_format(wk_dtype dtype)
{
    switch (dtype) {
    case WK_F32: return WK_REPRO_OUT_F32;
    case WK_F64: return WK_REPRO_OUT_F64;
    case WK_F16: return WK_REPRO_OUT_F16;
    case WK_BF16: return WK_REPRO_OUT_BF16;
    default: return -1;
    }
}

static wk_status check_float_dtype(wk_dtype dtype, const char *fn)
{
    if (!wk_dtype_valid(dtype))
        return wk_fail(WK_ERROR_INVALID_DTYPE, "%s: dtype %d is not a wk_dtype", fn, (int)dtype);
    if (!wk_dtype_is_float(dtype))
        return wk_fail(WK_ERROR_UNSUPPORTED, "%s: %s is not a float dtype (integer sums are exact: use wk_reduce)",
                       fn, wk_dtype_name(dtype));
    return WK_SUCCESS;
}

/* A launch shape chosen by a test instead of the planner. */
typedef struct repro_shape {
    unsigned threads; /* WK_REPRO_THREADS or WK_REPRO_TEST_THREADS */
    unsigned grid;
} repro_shape;

/* Checks the input and output, takes a workspace and launches; writes
 * out_bytes at d_out (a partial or one element). */
static wk_status run_repro(wk_context *ctx, const void *d_in, void *d_out, size_t out_bytes, size_t out_align,
                           size_t n, wk_dtype dtype, bool partial, cudaStream_t stream, const char *fn,
                           const repro_shape *forced)
{
    wk_repro_launch l;
    if ((l.format = repro_format(dtype)) < 0)
        return wk_fail(WK_ERROR_UNSUPPORTED, "%s: %s is not a float dtype", fn, wk_dtype_name(dtype));
    size_t elem = wk_dtype_size(dtype);
    wk_status status = wk_check_extent(n, elem, fn);
    if (status != WK_SUCCESS)
        return status;
    if (n > 0 && (status = wk_check_device_pointer(d_in, ctx->device, elem, fn, "d_in")) != WK_SUCCESS)
        return status;
    if ((status = wk_check_device_pointer(d_out, ctx->device, out_align, fn, partial ? "d_partial" : "d_out")) !=
        WK_SUCCESS)
        return status;
    if (wk_ranges_overlap(d_in, n * elem, d_out, out_bytes))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: %s overlaps d_in", fn, partial ? "d_partial" : "d_out");
    uintptr_t address = n > 0 ? (uintptr_t)d_in : 0;
    if (wk_plan_reduce(address, n, elem, ctx->sm_count, &l.plan) != 0)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan this input", fn);
    l.plan.block = WK_REPRO_THREADS;
    l.plan.grid = wk_repro_grid(l.plan.nvec, elem, ctx->sm_count);
    if (forced) {
        unsigned cap = (unsigned)ctx->sm_count * WK_REPRO_BLOCKS_PER_SM;
        if (forced->threads != WK_REPRO_THREADS && forced->threads != WK_REPRO_TEST_THREADS)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: %u threads is not a shape", fn, forced->threads);
        if (forced->grid < 1 || forced->grid > cap)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: grid %u is outside 1 to %u", fn, forced->grid, cap);
        l.plan.block = forced->threads;
        l.plan.grid = forced->grid;
    }
    if (partial)
        l.format = WK_REPRO_OUT_PARTIAL;
    wk_workspace_use use;
    if ((status = wk_workspace_acquire(ctx, stream, 0, &use, fn)) != WK_SUCCESS)
        return status;
    l.in = d_in;
    l.out = d_out;
    l.partials = use.partials;
    l.ticket = use.ticket;
    l.overlap_launch = ctx->cc_major >= 9;
    l.stream = stream;
    cudaError_t err = wk_repro_launch_dtype(dtype, &l);
    wk_workspace_release(ctx, stream, &use);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
}

extern "C" wk_status wk_reduce_repro(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                     cudaStream_t stream)
{
    if (wk_dtype_valid(dtype) && !wk_dtype_is_float(dtype))
        return wk_reduce(ctx, d_in, d_out, n, dtype, WK_SUM, stream);
    const char *fn = "wk_reduce_repro";
    return wk_on_device(ctx, fn, [&] {
        wk_status status = check_float_dtype(dtype, fn);
        if (status != WK_SUCCESS)
            return status;
        size_t elem = wk_dtype_size(dtype);
        return run_repro(ctx, d_in, d_out, elem, elem, n, dtype, false, stream, fn, NULL);
    });
}

extern "C" wk_status wk_reduce_repro_partial(wk_context *ctx, const void *d_in, wk_repro_partial *d_partial,
                                             size_t n, wk_dtype dtype, cudaStream_t stream)
{
    const char *fn = "wk_reduce_repro_partial";
    return wk_on_device(ctx, fn, [&] {
        wk_status status = check_float_dtype(dtype, fn);
        if (status != WK_SUCCESS)
            return status;
        return run_repro(ctx, d_in, d_partial, sizeof(wk_repro_partial), 8, n, dtype, true, stream, fn, NULL);
    });
}

extern "C" wk_status wk_repro_finalize(wk_context *ctx, const wk_repro_partial *d_partials, size_t count,
                                       void *d_out, wk_dtype dtype, cudaStream_t stream)
{
    const char *fn = "wk_repro_finalize";
    return wk_on_device(ctx, fn, [&] {
        wk_status status = check_float_dtype(dtype, fn);
        if (status != WK_SUCCESS)
            return status;
        const int format = repro_format(dtype);
        size_t elem = wk_dtype_size(dtype);
        if ((status = wk_check_extent(count, sizeof(wk_repro_partial), fn)) != WK_SUCCESS)
            return status;
        if (count > 0 && (status = wk_check_device_pointer(d_partials, ctx->device, 8, fn, "d_partials")) !=
                             WK_SUCCESS)
            return status;
        if ((status = wk_check_device_pointer(d_out, ctx->device, elem, fn, "d_out")) != WK_SUCCESS)
            return status;
        if (wk_ranges_overlap(d_partials, count * sizeof(wk_repro_partial), d_out, elem))
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_out overlaps d_partials", fn);
        if ((status = wk_check_capture_state(stream, fn)) != WK_SUCCESS)
            return status;
        cudaError_t err = wk_repro_launch_finish(d_partials, count, d_out, format, ctx->cc_major >= 9, stream);
        return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
    });
}

extern "C" wk_status wk_reduce_repro_shaped(wk_context *ctx, const void *d_in, void *d_out, size_t n,
                                            wk_dtype dtype, unsigned threads, unsigned grid, int partial,
                                            cudaStream_t stream)
{
    const char *fn = "wk_reduce_repro_shaped";
    repro_shape forced = {threads, grid};
    return wk_on_device(ctx, fn, [&] {
        wk_status status = check_float_dtype(dtype, fn);
        if (status != WK_SUCCESS)
            return status;
        size_t elem = wk_dtype_size(dtype);
        size_t bytes = partial ? sizeof(wk_repro_partial) : elem;
        return run_repro(ctx, d_in, d_out, bytes, partial ? 8 : elem, n, dtype, partial != 0, stream, fn, &forced);
    });
}
