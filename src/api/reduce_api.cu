/* wk_reduce, wk_reduce_to_host and wk_reduce_index: checks, planning,
 * dispatch by dtype. */
#include "api/context.h"
#include "api/error.h"
#include "reduce/launch.h"
#include "api/tuning.h"
#include "api/validate.h"
#include "api/workspace.h"

#include <cuda_runtime.h>


/* dtype, op, n and the input: everything but the output. Runs with the
 * context's device current, so that pointer queries touch no other device. */
static wk_status check_reduce_input(const wk_context *ctx, const void *d_in, size_t n, wk_dtype dtype, wk_op op,
                                    const char *fn)
{
    wk_status status = wk_check_dtype_op(dtype, op, fn);
    if (status != WK_SUCCESS)
        return status;
    size_t elem = wk_dtype_size(dtype);
    if ((status = wk_check_extent(n, elem, fn)) != WK_SUCCESS)
        return status;
    if (n > 0 && (status = wk_check_device_pointer(d_in, ctx->device, elem, fn, "d_in")) != WK_SUCCESS)
        return status;
    return WK_SUCCESS;
}

/* Everything that can be checked before a launch; `index_only`: d_out is
 * the int64 index of an arg op alone. */
static wk_status check_reduce(const wk_context *ctx, const void *d_in, const void *d_out, size_t n,
                              wk_dtype dtype, wk_op op, int index_only, const char *fn)
{
    wk_status status = check_reduce_input(ctx, d_in, n, dtype, op, fn);
    if (status != WK_SUCCESS)
        return status;
    if (index_only && !wk_op_is_arg(op))
        return wk_fail(WK_ERROR_INVALID_OP, "%s: op %s is not WK_ARGMIN or WK_ARGMAX", fn, wk_op_name(op));
    size_t elem = wk_dtype_size(dtype);
    size_t out_bytes = index_only ? sizeof(int64_t) : wk_reduce_result_size(dtype, op);
    size_t out_align = wk_op_is_arg(op) ? 8 : elem;
    if ((status = wk_check_device_pointer(d_out, ctx->device, out_align, fn, "d_out")) != WK_SUCCESS)
        return status;
    if (wk_ranges_overlap(d_in, n * elem, d_out, out_bytes))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_out overlaps d_in", fn);
    return WK_SUCCESS;
}

/* A shape and grid chosen by the caller instead of the planner. */
typedef struct shape_override {
    wk_reduce_shape shape;
    unsigned grid;
} shape_override;

/* The plan of n elements of dtype at d_in on ctx's device: what every
 * reduce launches, and what wk_reduce_plan_of reports. */
static int plan_on(const wk_context *ctx, const void *d_in, size_t n, wk_dtype dtype, wk_reduce_plan *plan)
{
    /* With no elements the pointer is never read, and need not be aligned. */
    uintptr_t address = n > 0 ? (uintptr_t)d_in : 0;
    return wk_plan_reduce_for(address, n, wk_dtype_size(dtype), ctx->sm_count, ctx->cluster_launch,
                              ctx->tiles_per_block, plan);
}

/* Plans and launches into the workspace `use`; arguments are checked. */
static wk_status launch_reduce(const wk_context *ctx, const wk_workspace_use *use, const void *d_in, void *d_out,
                               size_t n, wk_dtype dtype, wk_op op, int index_only, cudaStream_t stream,
                               const char *fn, const shape_override *forced)
{
    wk_reduce_launch l;
    l.in = d_in;
    l.out = d_out;
    l.op = op;
    l.index_only = index_only;
    l.partials = use->partials;
    l.ticket = use->ticket;
    l.overlap_launch = ctx->cc_major >= 9;
    l.stream = stream;
    if (plan_on(ctx, d_in, n, dtype, &l.plan) != 0)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan this input", fn);
    if (forced && forced->shape == WK_SHAPE_CLUSTER) {
        if (!ctx->cluster_launch)
            return wk_fail(WK_ERROR_UNSUPPORTED, "%s: this device does not launch thread-block clusters", fn);
        if (forced->grid != WK_CLUSTER_BLOCKS)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: the cluster shape runs %u blocks, not %u", fn,
                           WK_CLUSTER_BLOCKS, forced->grid);
        l.plan.shape = WK_SHAPE_CLUSTER;
        l.plan.block = WK_CLUSTER_THREADS;
        l.plan.grid = WK_CLUSTER_BLOCKS;
    } else if (forced && forced->shape == WK_SHAPE_TILES) {
        if (forced->grid < 1 || forced->grid > WK_TILES_MAX_BLOCKS)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: grid %u is outside 1 to %u", fn, forced->grid,
                           WK_TILES_MAX_BLOCKS);
        wk_plan_reduce_tiles(&l.plan, forced->grid);
    } else if (forced) {
        bool deep = forced->shape == WK_SHAPE_DEEP;
        unsigned cap = (unsigned)ctx->sm_count * (deep ? WK_DEEP_BLOCKS_PER_SM : WK_WIDE_BLOCKS_PER_SM);
        if (forced->grid < 1 || forced->grid > cap)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: grid %u is outside 1 to %u", fn, forced->grid, cap);
        l.plan.shape = forced->shape;
        l.plan.block = deep ? WK_DEEP_THREADS : WK_WIDE_THREADS;
        l.plan.grid = forced->grid;
    }
    cudaError_t err = wk_reduce_launch_dtype(dtype, &l);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
}

/* Checks, takes a workspace, launches; the caller has made ctx's device
 * current. */
static wk_status checked_reduce(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                wk_op op, cudaStream_t stream, const char *fn, const shape_override *forced = NULL,
                                int index_only = 0)
{
    wk_status status = check_reduce(ctx, d_in, d_out, n, dtype, op, index_only, fn);
    if (status != WK_SUCCESS)
        return status;
    wk_workspace_use use;
    if ((status = wk_workspace_acquire(ctx, stream, 0, &use, fn)) != WK_SUCCESS)
        return status;
    status = launch_reduce(ctx, &use, d_in, d_out, n, dtype, op, index_only, stream, fn, forced);
    wk_workspace_release(ctx, stream, &use);
    return status;
}

extern "C" wk_status wk_reduce(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                               wk_op op, cudaStream_t stream)
{
    const char *fn = "wk_reduce";
    return wk_on_device(ctx, fn, [&] { return checked_reduce(ctx, d_in, d_out, n, dtype, op, stream, fn); });
}

extern "C" wk_status wk_reduce_index(wk_context *ctx, const void *d_in, int64_t *d_index, size_t n, wk_dtype dtype,
                                     wk_op op, cudaStream_t stream)
{
    const char *fn = "wk_reduce_index";
    return wk_on_device(ctx, fn,
                        [&] { return checked_reduce(ctx, d_in, d_index, n, dtype, op, stream, fn, NULL, 1); });
}

/* What launch_to_slot needs from a wk_reduce_to_host call. */
struct reduce_args {
    const wk_context *ctx;
    const void *d_in;
    size_t n;
    wk_dtype dtype;
    wk_op op;
    cudaStream_t stream;
    const char *fn;
};

/* The reduce of wk_reduce_to_host, whose kernel stores the result into the host slot itself. */
static wk_status launch_to_slot(const wk_workspace_use *use, void *slot, const void *arg)
{
    const reduce_args *a = static_cast<const reduce_args *>(arg);
    return launch_reduce(a->ctx, use, a->d_in, slot, a->n, a->dtype, a->op, 0, a->stream, a->fn, NULL);
}

extern "C" wk_status wk_reduce_to_host(wk_context *ctx, const void *d_in, void *h_out, size_t n,
                                       wk_dtype dtype, wk_op op, cudaStream_t stream)
{
    const char *fn = "wk_reduce_to_host";
    return wk_on_device(ctx, fn, [&] {
        wk_status status = wk_check_not_capturing(stream, fn, "wk_reduce");
        if (status != WK_SUCCESS)
            return status;
        if (!h_out)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: h_out is NULL", fn);
        if ((status = check_reduce_input(ctx, d_in, n, dtype, op, fn)) != WK_SUCCESS)
            return status;
        reduce_args args = {ctx, d_in, n, dtype, op, stream, fn};
        return wk_workspace_read_back(ctx, stream, h_out, wk_reduce_result_size(dtype, op), launch_to_slot, &args, fn);
    });
}

extern "C" wk_status wk_reduce_shaped(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                      wk_op op, wk_reduce_shape shape, unsigned grid, cudaStream_t stream)
{
    const char *fn = "wk_reduce_shaped";
    shape_override forced = {shape, grid};
    return wk_on_device(ctx, fn,
                        [&] { return checked_reduce(ctx, d_in, d_out, n, dtype, op, stream, fn, &forced); });
}

extern "C" wk_status wk_reduce_plan_of(const wk_context *ctx, const void *d_in, size_t n, wk_dtype dtype,
                                       wk_reduce_plan *plan)
{
    const char *fn = "wk_reduce_plan_of";
    wk_clear_error();
    if (!ctx || !plan)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: ctx or plan is NULL", fn);
    if (!wk_dtype_valid(dtype))
        return wk_fail(WK_ERROR_INVALID_DTYPE, "%s: dtype %d is not a wk_dtype", fn, (int)dtype);
    wk_status status = wk_check_extent(n, wk_dtype_size(dtype), fn);
    if (status != WK_SUCCESS)
        return status;
    if (plan_on(ctx, d_in, n, dtype, plan) != 0)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan this input", fn);
    return WK_SUCCESS;
}
