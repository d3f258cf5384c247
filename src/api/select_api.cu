/* wk_select_if, wk_select_flagged, wk_partition_if, wk_unique and wk_where:
 * checks, planning, workspace, dispatch by dtype. */
#include "api/context.h"
#include "api/error.h"
#include "select/launch.h"
#include "select/plan.h"
#include "api/validate.h"
#include "api/workspace.h"

#include <cuda_runtime.h>

/* One call's arguments, as the entry points received them. */
struct select_call {
    wk_select_mode mode;
    const void *in;
    const uint8_t *flags;
    void *out;
    uint64_t *count;
    size_t n;
    wk_dtype dtype;
    wk_predicate predicate;
    const char *fn;
    const void *previous = nullptr;      /* wk_unique_from */
    const int64_t *index_base = nullptr; /* wk_where_from  */
};

static int uses_predicate(wk_select_mode mode)
{
    return mode == WK_SELECT_IF || mode == WK_PARTITION_IF || mode == WK_WHERE;
}

/* Each output lands at or before the input it comes from, and a tile writes
 * only after every earlier tile has read its input: select and unique may
 * run in place. A partition writes rejected elements from the far end, and
 * where writes 8-byte indices, so their outputs must be apart. */
static int may_run_in_place(wk_select_mode mode)
{
    return mode == WK_SELECT_IF || mode == WK_SELECT_FLAGGED || mode == WK_UNIQUE;
}

static wk_status check_predicate(const select_call &c)
{
    if (!uses_predicate(c.mode))
        return WK_SUCCESS;
    wk_compare compare = c.predicate.compare;
    if (!wk_compare_valid(compare))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: compare %d is not a wk_compare", c.fn, (int)compare);
    if ((compare == WK_IS_NAN || compare == WK_NOT_NAN) && !wk_dtype_is_float(c.dtype))
        return wk_fail(WK_ERROR_UNSUPPORTED, "%s: %s needs a float dtype, not %s", c.fn, wk_compare_name(compare),
                       wk_dtype_name(c.dtype));
    return WK_SUCCESS;
}

/* Pointers and overlaps, for n > 0. */
static wk_status check_memory(const wk_context *ctx, const select_call &c)
{
    const size_t elem = wk_dtype_size(c.dtype);
    const size_t out_elem = c.mode == WK_WHERE ? sizeof(int64_t) : elem;
    const char *out_name = c.mode == WK_WHERE ? "d_indices" : "d_out";
    wk_status status;
    if ((status = wk_check_device_pointer(c.in, ctx->device, elem, c.fn, "d_in")) != WK_SUCCESS)
        return status;
    if (c.mode == WK_SELECT_FLAGGED &&
        (status = wk_check_device_pointer(c.flags, ctx->device, 1, c.fn, "d_flags")) != WK_SUCCESS)
        return status;
    if ((status = wk_check_device_pointer(c.out, ctx->device, out_elem, c.fn, out_name)) != WK_SUCCESS)
        return status;

    const size_t in_bytes = c.n * elem, out_bytes = c.n * out_elem;
    const bool in_place = c.in == c.out && may_run_in_place(c.mode);
    if (!in_place && wk_ranges_overlap(c.in, in_bytes, c.out, out_bytes))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT,
                       may_run_in_place(c.mode) ? "%s: %s overlaps d_in without being equal to it"
                                                : "%s: %s overlaps d_in",
                       c.fn, out_name);
    if (c.mode == WK_SELECT_FLAGGED && wk_ranges_overlap(c.flags, c.n, c.out, out_bytes))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_flags overlaps %s", c.fn, out_name);
    const size_t count_bytes = sizeof(uint64_t);
    if (wk_ranges_overlap(c.count, count_bytes, c.in, in_bytes) ||
        wk_ranges_overlap(c.count, count_bytes, c.out, out_bytes) ||
        (c.mode == WK_SELECT_FLAGGED && wk_ranges_overlap(c.count, count_bytes, c.flags, c.n)))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_count overlaps an input or output", c.fn);
    /* The carried values are read before anything is written: only the
     * outputs may not hold them. */
    if (c.previous) {
        if ((status = wk_check_device_pointer(c.previous, ctx->device, elem, c.fn, "d_previous")) != WK_SUCCESS)
            return status;
        if (wk_ranges_overlap(c.previous, elem, c.out, out_bytes) || wk_ranges_overlap(c.previous, elem, c.count, 8))
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_previous overlaps an output", c.fn);
    }
    if (c.index_base) {
        if ((status = wk_check_device_pointer(c.index_base, ctx->device, sizeof(int64_t), c.fn, "d_index_base")) !=
            WK_SUCCESS)
            return status;
        if (wk_ranges_overlap(c.index_base, 8, c.out, out_bytes) || wk_ranges_overlap(c.index_base, 8, c.count, 8))
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_index_base overlaps an output", c.fn);
    }
    return WK_SUCCESS;
}

/* Checks, plans and launches; the caller has made ctx's device current. */
static wk_status checked_select(wk_context *ctx, const select_call &c, cudaStream_t stream)
{
    if (!wk_dtype_valid(c.dtype))
        return wk_fail(WK_ERROR_INVALID_DTYPE, "%s: dtype %d is not a wk_dtype", c.fn, (int)c.dtype);
    wk_status status = check_predicate(c);
    if (status != WK_SUCCESS)
        return status;
    const size_t elem = wk_dtype_size(c.dtype);
    if ((status = wk_check_tile_count(c.n, elem, c.fn)) != WK_SUCCESS)
        return status;
    if (c.mode == WK_WHERE && (status = wk_check_extent(c.n, sizeof(int64_t), c.fn)) != WK_SUCCESS)
        return status;
    if ((status = wk_check_device_pointer(c.count, ctx->device, sizeof(uint64_t), c.fn, "d_count")) != WK_SUCCESS)
        return status;
    if (c.n == 0) {
        /* Nothing to read: the count is zero, and no kernel runs. */
        if ((status = wk_check_capture_state(stream, c.fn)) != WK_SUCCESS)
            return status;
        cudaError_t err = cudaMemsetAsync(c.count, 0, sizeof(uint64_t), stream);
        return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, c.fn);
    }
    if ((status = check_memory(ctx, c)) != WK_SUCCESS)
        return status;

    wk_select_launch l;
    /* Bulk copies (sm_90) and room for three tiles per block. */
    const int pipelined_ok = wk_pipelined_ok(ctx->cc_major, ctx->shared_per_block, WK_SELECT_PIPELINED_SHARED_BYTES);
    if (wk_plan_select_for((uintptr_t)c.in, c.n, elem, c.mode == WK_PARTITION_IF, pipelined_ok, &l.plan) != 0)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan this input", c.fn);
    l.in = c.in;
    l.flags = c.flags;
    l.out = c.out;
    l.count = reinterpret_cast<unsigned long long *>(c.count);
    l.mode = c.mode;
    l.predicate = c.predicate;
    l.previous = c.previous;
    l.index_base = reinterpret_cast<const long long *>(c.index_base);
    /* Pipelined blocks each take a whole SM's shared memory and stay until
     * the tiles run out: one per SM, or per tile if fewer. */
    l.grid = (unsigned)(l.plan.tiles < (size_t)ctx->sm_count ? l.plan.tiles : (size_t)ctx->sm_count);
    l.overlap_launch = ctx->cc_major >= 9;
    l.stream = stream;
    wk_workspace_use use;
    if ((status = wk_workspace_acquire(ctx, stream, l.plan.tiles, &use, c.fn)) != WK_SUCCESS)
        return status;
    l.slots = use.slots;
    cudaError_t err = wk_select_launch_dtype(c.dtype, &l);
    wk_workspace_release(ctx, stream, &use);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, c.fn);
}

static wk_status run_select(wk_context *ctx, const select_call &c, cudaStream_t stream)
{
    return wk_on_device(ctx, c.fn, [&] { return checked_select(ctx, c, stream); });
}

extern "C" wk_status wk_select_if(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                                  wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    return run_select(ctx, {WK_SELECT_IF, d_in, nullptr, d_out, d_count, n, dtype, predicate, "wk_select_if"}, stream);
}

extern "C" wk_status wk_select_flagged(wk_context *ctx, const void *d_in, const uint8_t *d_flags, void *d_out,
                                       uint64_t *d_count, size_t n, wk_dtype dtype, cudaStream_t stream)
{
    return run_select(ctx,
                      {WK_SELECT_FLAGGED, d_in, d_flags, d_out, d_count, n, dtype, wk_predicate{}, "wk_select_flagged"},
                      stream);
}

extern "C" wk_status wk_partition_if(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                                     wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    return run_select(ctx,
                      {WK_PARTITION_IF, d_in, nullptr, d_out, d_count, n, dtype, predicate, "wk_partition_if"},
                      stream);
}

extern "C" wk_status wk_unique(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                               wk_dtype dtype, cudaStream_t stream)
{
    return run_select(ctx, {WK_UNIQUE, d_in, nullptr, d_out, d_count, n, dtype, wk_predicate{}, "wk_unique"}, stream);
}

extern "C" wk_status wk_where(wk_context *ctx, const void *d_in, int64_t *d_indices, uint64_t *d_count, size_t n,
                              wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    return run_select(ctx, {WK_WHERE, d_in, nullptr, d_indices, d_count, n, dtype, predicate, "wk_where"}, stream);
}

extern "C" wk_status wk_unique_from(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                                    wk_dtype dtype, const void *d_previous, cudaStream_t stream)
{
    return run_select(ctx,
                      {WK_UNIQUE, d_in, nullptr, d_out, d_count, n, dtype, wk_predicate{}, "wk_unique_from",
                       d_previous},
                      stream);
}

extern "C" wk_status wk_where_from(wk_context *ctx, const void *d_in, int64_t *d_indices, uint64_t *d_count, size_t n,
                                   wk_dtype dtype, wk_predicate predicate, const int64_t *d_index_base,
                                   cudaStream_t stream)
{
    return run_select(ctx,
                      {WK_WHERE, d_in, nullptr, d_indices, d_count, n, dtype, predicate, "wk_where_from", nullptr,
                       d_index_base},
                      stream);
}
