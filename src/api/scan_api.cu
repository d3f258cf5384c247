/* wk_inclusive_scan, wk_exclusive_scan, their _from and _to forms and
 * wk_scan_reserve: checks, planning, workspace, dispatch by dtype. */
#include "api/context.h"
#include "api/error.h"
#include "scan/launch.h"
#include "select/plan.h"
#include "api/validate.h"
#include "api/workspace.h"

#include <cuda_runtime.h>

/* Everything that can be checked before a launch. Runs with the context's
 * device current, so that pointer queries touch no other device. */
static wk_status check_scan(const wk_context *ctx, const void *d_in, const void *d_out, const void *d_prefix, size_t n,
                            wk_dtype dtype, wk_dtype out_dtype, wk_op op, const char *fn)
{
    wk_status status =
        out_dtype == dtype ? wk_check_scan_dtype_op(dtype, op, fn) : wk_check_sum_pair(dtype, out_dtype, fn);
    if (status != WK_SUCCESS)
        return status;
    const size_t elem = wk_dtype_size(dtype), out_elem = wk_dtype_size(out_dtype);
    if ((status = wk_check_tile_count(n, elem, fn)) != WK_SUCCESS)
        return status;
    if ((status = wk_check_extent(n, out_elem, fn)) != WK_SUCCESS)
        return status;
    if (n == 0)
        return WK_SUCCESS; /* nothing is read or written: any pointers do */
    if ((status = wk_check_device_pointer(d_in, ctx->device, elem, fn, "d_in")) != WK_SUCCESS)
        return status;
    if ((status = wk_check_device_pointer(d_out, ctx->device, out_elem, fn, "d_out")) != WK_SUCCESS)
        return status;
    /* In place only where the input and output are one array. */
    if ((d_in != d_out || elem != out_elem) && wk_ranges_overlap(d_in, n * elem, d_out, n * out_elem))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_out overlaps d_in without being equal to it%s", fn,
                       elem != out_elem ? " (a widening scan cannot run in place)" : "");
    if (d_prefix) {
        if ((status = wk_check_device_pointer(d_prefix, ctx->device, out_elem, fn, "d_prefix")) != WK_SUCCESS)
            return status;
        if (wk_ranges_overlap(d_prefix, out_elem, d_out, n * out_elem))
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_prefix lies inside d_out", fn);
    }
    return WK_SUCCESS;
}

/* Checks, plans and launches; the caller has made ctx's device current. */
static wk_status checked_scan(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                              wk_dtype out_dtype, wk_op op, int exclusive, wk_value init, const void *d_prefix,
                              cudaStream_t stream, const char *fn)
{
    wk_status status = check_scan(ctx, d_in, d_out, d_prefix, n, dtype, out_dtype, op, fn);
    if (status != WK_SUCCESS || n == 0)
        return status;
    wk_scan_launch l;
    l.widen = out_dtype != dtype;
    l.out_dtype = out_dtype;
    /* Bulk copies (sm_90) and room for three tiles per block; widening
     * scans run the chained tiles only (scan/widening.cuh). */
    const int pipelined_ok = wk_pipelined_ok(ctx->cc_major, ctx->shared_per_block, WK_SCAN_PIPELINED_SHARED_BYTES);
    const int planned = l.widen ? wk_plan_widening_scan((uintptr_t)d_in, (uintptr_t)d_out, n, wk_dtype_size(dtype),
                                                        wk_dtype_size(out_dtype), &l.plan)
                                : wk_plan_scan_for((uintptr_t)d_in, (uintptr_t)d_out, n, wk_dtype_size(dtype),
                                                   pipelined_ok, &l.plan);
    if (planned != 0)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan this input", fn);
    l.in = d_in;
    l.out = d_out;
    l.op = op;
    l.exclusive = exclusive;
    l.init = init;
    l.prefix = d_prefix;
    /* The pipelined kernel's blocks each take a whole SM's shared memory
     * and stay until the tiles run out: one per SM, or per tile if fewer. */
    l.grid = (unsigned)(l.plan.tiles < (size_t)ctx->sm_count ? l.plan.tiles : (size_t)ctx->sm_count);
    l.overlap_launch = ctx->cc_major >= 9;
    l.stream = stream;
    wk_workspace_use use;
    if ((status = wk_workspace_acquire(ctx, stream, l.plan.tiles, &use, fn)) != WK_SUCCESS)
        return status;
    l.slots = use.slots;
    cudaError_t err = wk_scan_launch_dtype(dtype, &l);
    wk_workspace_release(ctx, stream, &use);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
}

/* An entry point's call on ctx's device; init is read by exclusive scans alone. */
static wk_status scan_on_device(const char *fn, wk_context *ctx, const void *d_in, void *d_out, size_t n,
                                wk_dtype dtype, wk_op op, int exclusive, wk_value init, const void *d_prefix,
                                cudaStream_t stream, wk_dtype out_dtype)
{
    return wk_on_device(ctx, fn, [&] {
        return checked_scan(ctx, d_in, d_out, n, dtype, out_dtype, op, exclusive, init, d_prefix, stream, fn);
    });
}

extern "C" wk_status wk_inclusive_scan(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                       wk_op op, cudaStream_t stream)
{
    return scan_on_device("wk_inclusive_scan", ctx, d_in, d_out, n, dtype, op, 0, wk_value{}, nullptr, stream, dtype);
}

extern "C" wk_status wk_exclusive_scan(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                       wk_op op, wk_value init, cudaStream_t stream)
{
    return scan_on_device("wk_exclusive_scan", ctx, d_in, d_out, n, dtype, op, 1, init, nullptr, stream, dtype);
}

extern "C" wk_status wk_inclusive_scan_from(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                            wk_op op, const void *d_prefix, cudaStream_t stream)
{
    return scan_on_device("wk_inclusive_scan_from", ctx, d_in, d_out, n, dtype, op, 0, wk_value{}, d_prefix, stream,
                          dtype);
}

extern "C" wk_status wk_exclusive_scan_from(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                            wk_op op, wk_value init, const void *d_prefix, cudaStream_t stream)
{
    return scan_on_device("wk_exclusive_scan_from", ctx, d_in, d_out, n, dtype, op, 1, init, d_prefix, stream,
                          dtype);
}

extern "C" wk_status wk_inclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                          wk_dtype out_dtype, const void *d_prefix, cudaStream_t stream)
{
    return scan_on_device("wk_inclusive_scan_to", ctx, d_in, d_out, n, dtype, WK_SUM, 0, wk_value{}, d_prefix, stream,
                          out_dtype);
}

extern "C" wk_status wk_exclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                          wk_dtype out_dtype, wk_value init, const void *d_prefix, cudaStream_t stream)
{
    return scan_on_device("wk_exclusive_scan_to", ctx, d_in, d_out, n, dtype, WK_SUM, 1, init, d_prefix, stream,
                          out_dtype);
}

extern "C" wk_status wk_scan_reserve(wk_context *ctx, size_t n, wk_dtype dtype)
{
    const char *fn = "wk_scan_reserve";
    return wk_on_device(ctx, fn, [&] {
        if (!wk_dtype_valid(dtype))
            return wk_fail(WK_ERROR_INVALID_DTYPE, "%s: dtype %d is not a wk_dtype", fn, (int)dtype);
        size_t elem = wk_dtype_size(dtype);
        wk_status status = wk_check_tile_count(n, elem, fn);
        if (status != WK_SUCCESS)
            return status;
        /* The select plans its own tiles: cover whichever needs more. */
        size_t scan_tiles = wk_scan_max_tiles(n, elem), select_tiles = wk_select_max_tiles(n, elem);
        return wk_workspaces_reserve(ctx, scan_tiles > select_tiles ? scan_tiles : select_tiles, fn);
    });
}
