/* wk_reduce, wk_reduce_to, wk_reduce_to_host and wk_reduce_index: checks,
 * planning, dispatch by dtype. */
#include "api/context.h"
#include "api/error.h"
#include "reduce/launch.h"
#include "api/tuning.h"
#include "api/validate.h"
#include "api/workspace.h"

#include <cuda_runtime.h>

/* A shape and grid chosen by the caller instead of the planner. */
typedef struct shape_override {
    wk_reduce_shape shape;
    unsigned grid;
} shape_override;

/* One call as its entry point received it, with the dtype's size, which the
 * checks and the plan share. */
struct reduce_call {
    const wk_context *ctx;
    const void *in;
    void *out;                    /* device memory; the host slot for wk_reduce_to_host */
    size_t n;
    wk_dtype dtype;
    wk_op op;
    size_t elem;                  /* wk_dtype_size(dtype) */
    wk_dtype out_dtype;           /* the result's dtype: dtype, or wk_reduce_to's */
    int index_only;               /* wk_reduce_index: out is the int64 index of an arg op */
    const shape_override *forced; /* wk_reduce_shaped, else NULL */
    cudaStream_t stream;
    const char *fn;
};

static reduce_call make_call(const wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype, wk_op op,
                             cudaStream_t stream, const char *fn)
{
    return reduce_call{ctx, d_in, d_out, n, dtype, op, wk_dtype_size(dtype), dtype, 0, NULL, stream, fn};
}

/* dtype, op, n and the input: everything but the output. Runs with the
 * context's device current, so that pointer queries touch no other device. */
static wk_status check_input(const reduce_call &c)
{
    wk_status status = c.out_dtype == c.dtype ? wk_check_dtype_op(c.dtype, c.op, c.fn) : WK_SUCCESS;
    if (status != WK_SUCCESS)
        return status;
    if ((status = wk_check_extent(c.n, c.elem, c.fn)) != WK_SUCCESS)
        return status;
    if (c.n > 0 && (status = wk_check_device_pointer(c.in, c.ctx->device, c.elem, c.fn, "d_in")) != WK_SUCCESS)
        return status;
    return WK_SUCCESS;
}

/* Everything that can be checked before a launch. */
static wk_status check_reduce(const reduce_call &c)
{
    wk_status status = check_input(c);
    if (status != WK_SUCCESS)
        return status;
    if (c.index_only && !wk_op_is_arg(c.op))
        return wk_fail(WK_ERROR_INVALID_OP, "%s: op %s is not WK_ARGMIN or WK_ARGMAX", c.fn, wk_op_name(c.op));
    size_t out_bytes = c.index_only ? sizeof(int64_t) : wk_reduce_result_size(c.out_dtype, c.op);
    size_t out_align = wk_op_is_arg(c.op) ? 8 : wk_dtype_size(c.out_dtype);
    if ((status = wk_check_device_pointer(c.out, c.ctx->device, out_align, c.fn, "d_out")) != WK_SUCCESS)
        return status;
    if (wk_ranges_overlap(c.in, c.n * c.elem, c.out, out_bytes))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_out overlaps d_in", c.fn);
    return WK_SUCCESS;
}

/* The plan of n elements of elem bytes at d_in on ctx's device: what every
 * reduce launches, and what wk_reduce_plan_of reports. */
static int plan_on(const wk_context *ctx, const void *d_in, size_t n, size_t elem, wk_reduce_plan *plan)
{
    /* With no elements the pointer is never read, and need not be aligned. */
    uintptr_t address = n > 0 ? (uintptr_t)d_in : 0;
    return wk_plan_reduce_for(address, n, elem, ctx->sm_count, ctx->cluster_launch, ctx->tiles_per_block, plan);
}

/* The caller's shape and grid in place of the planner's, checked against
 * what the device runs. */
static wk_status force_shape(const wk_context *ctx, const shape_override *forced, wk_reduce_plan *plan, const char *fn)
{
    if (forced->shape == WK_SHAPE_CLUSTER) {
        if (!ctx->cluster_launch)
            return wk_fail(WK_ERROR_UNSUPPORTED, "%s: this device does not launch thread-block clusters", fn);
        if (forced->grid != WK_CLUSTER_BLOCKS)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: the cluster shape runs %u blocks, not %u", fn,
                           WK_CLUSTER_BLOCKS, forced->grid);
        plan->shape = WK_SHAPE_CLUSTER;
        plan->block = WK_CLUSTER_THREADS;
        plan->grid = WK_CLUSTER_BLOCKS;
    } else if (forced->shape == WK_SHAPE_TILES) {
        if (forced->grid < 1 || forced->grid > WK_TILES_MAX_BLOCKS)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: grid %u is outside 1 to %u", fn, forced->grid,
                           WK_TILES_MAX_BLOCKS);
        wk_plan_reduce_tiles(plan, forced->grid);
    } else {
        bool deep = forced->shape == WK_SHAPE_DEEP;
        unsigned cap = (unsigned)ctx->sm_count * (deep ? WK_DEEP_BLOCKS_PER_SM : WK_WIDE_BLOCKS_PER_SM);
        if (forced->grid < 1 || forced->grid > cap)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: grid %u is outside 1 to %u", fn, forced->grid, cap);
        plan->shape = forced->shape;
        plan->block = deep ? WK_DEEP_THREADS : WK_WIDE_THREADS;
        plan->grid = forced->grid;
    }
    return WK_SUCCESS;
}

/* Plans and launches into the workspace `use`, writing to `out`; the call is checked. */
static wk_status launch_reduce(const reduce_call &c, const wk_workspace_use *use, void *out)
{
    wk_reduce_launch l;
    l.in = c.in;
    l.out = out;
    l.op = c.op;
    l.index_only = c.index_only;
    l.widen = c.out_dtype != c.dtype;
    l.out_dtype = c.out_dtype;
    l.partials = use->partials;
    l.ticket = use->ticket;
    l.overlap_launch = c.ctx->cc_major >= 9;
    l.stream = c.stream;
    if (plan_on(c.ctx, c.in, c.n, c.elem, &l.plan) != 0)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan this input", c.fn);
    wk_status status = c.forced ? force_shape(c.ctx, c.forced, &l.plan, c.fn) : WK_SUCCESS;
    if (status != WK_SUCCESS)
        return status;
    cudaError_t err = wk_reduce_launch_dtype(c.dtype, &l);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, c.fn);
}

/* Checks, takes a workspace, launches; the caller has made ctx's device
 * current. */
static wk_status checked_reduce(wk_context *ctx, const reduce_call &c)
{
    wk_status status = check_reduce(c);
    if (status != WK_SUCCESS)
        return status;
    wk_workspace_use use;
    if ((status = wk_workspace_acquire(ctx, c.stream, 0, &use, c.fn)) != WK_SUCCESS)
        return status;
    status = launch_reduce(c, &use, c.out);
    wk_workspace_release(ctx, c.stream, &use);
    return status;
}

extern "C" wk_status wk_reduce(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                               wk_op op, cudaStream_t stream)
{
    const reduce_call c = make_call(ctx, d_in, d_out, n, dtype, op, stream, "wk_reduce");
    return wk_on_device(ctx, c.fn, [&] { return checked_reduce(ctx, c); });
}

extern "C" wk_status wk_reduce_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                  wk_dtype out_dtype, cudaStream_t stream)
{
    reduce_call c = make_call(ctx, d_in, d_out, n, dtype, WK_SUM, stream, "wk_reduce_to");
    c.out_dtype = out_dtype;
    return wk_on_device(ctx, c.fn, [&] {
        const wk_status status = wk_check_sum_pair(dtype, out_dtype, c.fn);
        return status != WK_SUCCESS ? status : checked_reduce(ctx, c);
    });
}

extern "C" wk_status wk_reduce_index(wk_context *ctx, const void *d_in, int64_t *d_index, size_t n, wk_dtype dtype,
                                     wk_op op, cudaStream_t stream)
{
    reduce_call c = make_call(ctx, d_in, d_index, n, dtype, op, stream, "wk_reduce_index");
    c.index_only = 1;
    return wk_on_device(ctx, c.fn, [&] { return checked_reduce(ctx, c); });
}

extern "C" wk_status wk_reduce_shaped(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                      wk_op op, wk_reduce_shape shape, unsigned grid, cudaStream_t stream)
{
    const shape_override forced = {shape, grid};
    reduce_call c = make_call(ctx, d_in, d_out, n, dtype, op, stream, "wk_reduce_shaped");
    c.forced = &forced;
    return wk_on_device(ctx, c.fn, [&] { return checked_reduce(ctx, c); });
}

/* The reduce of wk_reduce_to_host, whose kernel stores the result into the
 * host slot itself. */
static wk_status launch_to_slot(const wk_workspace_use *use, void *slot, const void *call)
{
    return launch_reduce(*static_cast<const reduce_call *>(call), use, slot);
}

extern "C" wk_status wk_reduce_to_host(wk_context *ctx, const void *d_in, void *h_out, size_t n,
                                       wk_dtype dtype, wk_op op, cudaStream_t stream)
{
    const reduce_call c = make_call(ctx, d_in, NULL, n, dtype, op, stream, "wk_reduce_to_host");
    return wk_on_device(ctx, c.fn, [&] {
        wk_status status = wk_check_not_capturing(stream, c.fn, "wk_reduce");
        if (status != WK_SUCCESS)
            return status;
        if (!h_out)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: h_out is NULL", c.fn);
        if ((status = check_input(c)) != WK_SUCCESS)
            return status;
        return wk_workspace_read_back(ctx, stream, h_out, wk_reduce_result_size(dtype, op), launch_to_slot, &c, c.fn);
    });
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
    const size_t elem = wk_dtype_size(dtype);
    wk_status status = wk_check_extent(n, elem, fn);
    if (status != WK_SUCCESS)
        return status;
    if (plan_on(ctx, d_in, n, elem, plan) != 0)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan this input", fn);
    return WK_SUCCESS;
}
