/* wk_segmented_reduce, wk_segmented_reduce_to and the segmented scans (and their _to forms):
 * checks of the segment description, planning, workspace, dispatch by dtype. */
#include "api/context.h"
#include "api/error.h"
#include "scan/plan.h"
#include "segmented/launch.h"
#include "api/validate.h"
#include "api/workspace.h"

#include <cuda_runtime.h>

/* The segments, read and checked: the layout and the input's extent in
 * elements. */
struct segment_view {
    size_t count, size, stride;
    const int64_t *begin, *end;
    size_t extent; /* elements of d_in the call may read */
};

static wk_status read_segments(const wk_context *ctx, const wk_segments *segments, size_t elem, segment_view *v,
                               const char *fn)
{
    if (!segments)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: segments is NULL", fn);
    v->count = segments->count;
    v->size = segments->size;
    v->stride = segments->stride ? segments->stride : segments->size;
    v->begin = segments->d_begin;
    v->end = segments->d_end;
    if ((v->begin == NULL) != (v->end == NULL))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_begin and d_end must both be set (offsets) or both be NULL",
                       fn);
    wk_status status;
    if (v->begin) {
        v->extent = v->size;
        if (v->count == 0)
            return WK_SUCCESS;
        if ((status = wk_check_extent(v->count, sizeof(int64_t), fn)) != WK_SUCCESS)
            return status;
        if ((status = wk_check_device_pointer(v->begin, ctx->device, 8, fn, "d_begin")) != WK_SUCCESS ||
            (status = wk_check_device_pointer(v->end, ctx->device, 8, fn, "d_end")) != WK_SUCCESS)
            return status;
    } else {
        if (segments->stride != 0 && segments->stride < segments->size)
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: stride %zu is less than the segment size %zu", fn,
                           segments->stride, segments->size);
        v->extent = 0;
        if (v->count > 0 && v->size > 0) {
            if (v->size > WK_MAX_BYTES || v->count - 1 > (WK_MAX_BYTES - v->size) / v->stride)
                return wk_fail(WK_ERROR_LIMIT, "%s: %zu segments of stride %zu span more than 2^62 elements", fn,
                               v->count, v->stride);
            v->extent = (v->count - 1) * v->stride + v->size;
        }
    }
    return wk_check_extent(v->extent, elem, fn);
}

/* d_in covers the extent; the offsets are apart from `out` (out_bytes). */
static wk_status check_memory(const wk_context *ctx, const segment_view *v, const void *d_in, const void *d_out,
                              size_t out_bytes, size_t out_align, bool in_place_ok, size_t elem, const char *fn)
{
    wk_status status;
    if (v->extent > 0 && (status = wk_check_device_pointer(d_in, ctx->device, elem, fn, "d_in")) != WK_SUCCESS)
        return status;
    if (out_bytes > 0 && (status = wk_check_device_pointer(d_out, ctx->device, out_align, fn, "d_out")) != WK_SUCCESS)
        return status;
    const size_t in_bytes = v->extent * elem;
    if (!(in_place_ok && d_in == d_out) && wk_ranges_overlap(d_in, in_bytes, d_out, out_bytes))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_out overlaps the input", fn);
    if (v->begin) {
        const size_t offset_bytes = v->count * sizeof(int64_t);
        if (wk_ranges_overlap(v->begin, offset_bytes, d_out, out_bytes) ||
            wk_ranges_overlap(v->end, offset_bytes, d_out, out_bytes))
            return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_out overlaps d_begin or d_end", fn);
    }
    return WK_SUCCESS;
}

static void fill_launch(const wk_context *ctx, const segment_view *v, const void *d_in, void *d_out, wk_op op,
                        cudaStream_t stream, wk_seg_launch *l)
{
    l->in = d_in;
    l->out = d_out;
    l->count = v->count;
    l->size = v->size;
    l->stride = v->stride;
    l->begin = v->begin;
    l->end = v->end;
    l->op = op;
    l->result_bytes = 0;
    l->widen = 0;
    l->out_dtype = WK_I32;
    l->scan = 0;
    l->init.u64 = 0;
    l->board = NULL;
    l->slots = wk_tile_slots{};
    l->overlap_launch = ctx->cc_major >= 9;
    l->stream = stream;
}

/* The checks every call starts with: dtype and op (a scan's op when `scan`),
 * then the segments. */
static wk_status read_call(const wk_context *ctx, const wk_segments *segments, wk_dtype dtype, wk_op op, bool scan,
                           segment_view *v, const char *fn)
{
    wk_status status = scan ? wk_check_scan_dtype_op(dtype, op, fn) : wk_check_dtype_op(dtype, op, fn);
    if (status != WK_SUCCESS)
        return status;
    return read_segments(ctx, segments, wk_dtype_size(dtype), v, fn);
}

static wk_status checked_reduce(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                wk_dtype dtype, wk_op op, cudaStream_t stream, const char *fn,
                                wk_dtype out_dtype)
{
    segment_view v;
    wk_status status = out_dtype == dtype ? read_call(ctx, segments, dtype, op, false, &v, fn)
                                          : wk_check_sum_pair(dtype, out_dtype, fn);
    if (status == WK_SUCCESS && out_dtype != dtype)
        status = read_segments(ctx, segments, wk_dtype_size(dtype), &v, fn);
    if (status != WK_SUCCESS || v.count == 0)
        return status;
    const size_t elem = wk_dtype_size(dtype);
    const size_t result_bytes = wk_reduce_result_size(out_dtype, op);
    if ((status = wk_check_extent(v.count, result_bytes, fn)) != WK_SUCCESS)
        return status;
    const size_t out_align = wk_op_is_arg(op) ? 8 : wk_dtype_size(out_dtype);
    if ((status = check_memory(ctx, &v, d_in, d_out, v.count * result_bytes, out_align, false, elem, fn)) !=
        WK_SUCCESS)
        return status;
    wk_seg_launch l;
    fill_launch(ctx, &v, d_in, d_out, op, stream, &l);
    l.result_bytes = result_bytes;
    l.widen = out_dtype != dtype;
    l.out_dtype = out_dtype;
    if (v.begin) {
        l.plan = wk_seg_offsets_plan(wk_seg_offsets_grid(v.count, v.size, elem, ctx->sm_count, 0));
    } else if (wk_plan_segmented_rows(v.count, v.size, elem, ctx->sm_count, &l.plan) != 0) {
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan these segments", fn);
    }
    wk_workspace_use use;
    if ((status = wk_workspace_acquire(ctx, stream, 0, &use, fn)) != WK_SUCCESS)
        return status;
    l.board = use.board;
    cudaError_t err = wk_seg_reduce_launch_dtype(dtype, &l);
    wk_workspace_release(ctx, stream, &use);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
}

static wk_status checked_repro(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                               wk_dtype dtype, cudaStream_t stream, const char *fn)
{
    if (wk_dtype_valid(dtype) && !wk_dtype_is_float(dtype)) /* integer sums are exact already */
        return checked_reduce(ctx, d_in, d_out, segments, dtype, WK_SUM, stream, fn, dtype);
    segment_view v;
    wk_status status = read_call(ctx, segments, dtype, WK_SUM, false, &v, fn);
    if (status != WK_SUCCESS || v.count == 0)
        return status;
    const size_t elem = wk_dtype_size(dtype);
    if ((status = wk_check_extent(v.count, elem, fn)) != WK_SUCCESS)
        return status;
    if ((status = check_memory(ctx, &v, d_in, d_out, v.count * elem, elem, false, elem, fn)) != WK_SUCCESS)
        return status;
    wk_seg_launch l;
    fill_launch(ctx, &v, d_in, d_out, WK_SUM, stream, &l);
    if (wk_plan_segmented_repro(v.count, v.size, elem, v.begin != NULL, ctx->sm_count, &l.plan) != 0)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: cannot plan these segments", fn);
    wk_workspace_use use;
    if ((status = wk_workspace_acquire(ctx, stream, 0, &use, fn)) != WK_SUCCESS)
        return status;
    l.board = use.board;
    cudaError_t err = wk_seg_repro_launch_dtype(dtype, &l);
    wk_workspace_release(ctx, stream, &use);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
}

/* A scan's checks, planning and launch; out_dtype != dtype is a sum scan
 * kept and written as out_dtype (the _to forms). */
static wk_status checked_scan(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                              wk_dtype dtype, wk_dtype out_dtype, wk_op op, int exclusive, wk_value init,
                              cudaStream_t stream, const char *fn)
{
    segment_view v;
    const bool widen = out_dtype != dtype;
    wk_status status = widen ? wk_check_sum_pair(dtype, out_dtype, fn) : read_call(ctx, segments, dtype, op, true, &v, fn);
    if (status == WK_SUCCESS && widen)
        status = read_segments(ctx, segments, wk_dtype_size(dtype), &v, fn);
    if (status != WK_SUCCESS || v.count == 0 || v.extent == 0)
        return status; /* with no element in any segment, nothing to write */
    const size_t elem = wk_dtype_size(dtype), out_elem = wk_dtype_size(out_dtype);
    if ((status = wk_check_extent(v.extent, out_elem, fn)) != WK_SUCCESS)
        return status;
    if ((status = check_memory(ctx, &v, d_in, d_out, v.extent * out_elem, out_elem, !widen, elem, fn)) != WK_SUCCESS)
        return status;
    wk_seg_launch l;
    fill_launch(ctx, &v, d_in, d_out, op, stream, &l);
    l.scan = exclusive ? 2 : 1;
    l.init = init;
    l.widen = widen;
    l.out_dtype = out_dtype;
    if (v.begin) {
        l.plan = wk_seg_offsets_plan(wk_seg_offsets_grid(v.count, v.size, elem, ctx->sm_count, 1));
    } else {
        /* Bulk copies (sm_90) and room for three tiles per block, as the
         * device-wide scan checks; widening scans take the chained tiles
         * only (segmented/row_tiles.cuh). */
        const int pipelined_ok =
            !widen && wk_pipelined_ok(ctx->cc_major, ctx->shared_per_block, WK_SCAN_PIPELINED_SHARED_BYTES);
        if (wk_plan_segmented_scan_rows(v.count, v.size, v.stride, elem, (uintptr_t)d_in, ctx->sm_count,
                                        pipelined_ok, &l.plan) != 0)
            return wk_fail(WK_ERROR_LIMIT, "%s: %zu rows of %zu elements need more tiles than a scan may have", fn,
                           v.count, v.size);
    }
    wk_workspace_use use;
    if ((status = wk_workspace_acquire(ctx, stream, wk_seg_plan_tiles(v.count, &l.plan), &use, fn)) != WK_SUCCESS)
        return status;
    l.board = use.board;
    l.slots = use.slots;
    cudaError_t err = wk_seg_scan_launch_dtype(dtype, &l);
    wk_workspace_release(ctx, stream, &use);
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
}

extern "C" wk_status wk_segmented_reduce(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                         wk_dtype dtype, wk_op op, cudaStream_t stream)
{
    const char *fn = "wk_segmented_reduce";
    return wk_on_device(ctx, fn,
                        [&] { return checked_reduce(ctx, d_in, d_out, segments, dtype, op, stream, fn, dtype); });
}

extern "C" wk_status wk_segmented_reduce_to(wk_context *ctx, const void *d_in, void *d_out,
                                            const wk_segments *segments, wk_dtype dtype, wk_dtype out_dtype,
                                            cudaStream_t stream)
{
    const char *fn = "wk_segmented_reduce_to";
    return wk_on_device(
        ctx, fn, [&] { return checked_reduce(ctx, d_in, d_out, segments, dtype, WK_SUM, stream, fn, out_dtype); });
}

extern "C" wk_status wk_segmented_reduce_repro(wk_context *ctx, const void *d_in, void *d_out,
                                               const wk_segments *segments, wk_dtype dtype, cudaStream_t stream)
{
    const char *fn = "wk_segmented_reduce_repro";
    return wk_on_device(ctx, fn, [&] { return checked_repro(ctx, d_in, d_out, segments, dtype, stream, fn); });
}

extern "C" wk_status wk_segmented_inclusive_scan(wk_context *ctx, const void *d_in, void *d_out,
                                                 const wk_segments *segments, wk_dtype dtype, wk_op op,
                                                 cudaStream_t stream)
{
    const char *fn = "wk_segmented_inclusive_scan";
    wk_value init;
    init.u64 = 0;
    return wk_on_device(ctx, fn, [&] {
        return checked_scan(ctx, d_in, d_out, segments, dtype, dtype, op, 0, init, stream, fn);
    });
}

extern "C" wk_status wk_segmented_exclusive_scan(wk_context *ctx, const void *d_in, void *d_out,
                                                 const wk_segments *segments, wk_dtype dtype, wk_op op, wk_value init,
                                                 cudaStream_t stream)
{
    const char *fn = "wk_segmented_exclusive_scan";
    return wk_on_device(ctx, fn, [&] {
        return checked_scan(ctx, d_in, d_out, segments, dtype, dtype, op, 1, init, stream, fn);
    });
}

extern "C" wk_status wk_segmented_inclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out,
                                                    const wk_segments *segments, wk_dtype dtype, wk_dtype out_dtype,
                                                    cudaStream_t stream)
{
    const char *fn = "wk_segmented_inclusive_scan_to";
    wk_value init;
    init.u64 = 0;
    return wk_on_device(ctx, fn, [&] {
        return checked_scan(ctx, d_in, d_out, segments, dtype, out_dtype, WK_SUM, 0, init, stream, fn);
    });
}

extern "C" wk_status wk_segmented_exclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out,
                                                    const wk_segments *segments, wk_dtype dtype, wk_dtype out_dtype,
                                                    wk_value init, cudaStream_t stream)
{
    const char *fn = "wk_segmented_exclusive_scan_to";
    return wk_on_device(ctx, fn, [&] {
        return checked_scan(ctx, d_in, d_out, segments, dtype, out_dtype, WK_SUM, 1, init, stream, fn);
    });
}
