#include "scan/plan.h"

const wk_tile_shape wk_scan_shapes[WK_SCAN_SHAPE_COUNT] = {
    [WK_SCAN_SHAPE_SMALL] = {WK_SCAN_THREADS, WK_SCAN_SMALL_VECTORS, 0},
    [WK_SCAN_SHAPE_NARROW] = {WK_SCAN_NARROW_THREADS, WK_SCAN_SMALL_VECTORS, 0},
    [WK_SCAN_SHAPE_LARGE] = {WK_SCAN_THREADS, WK_SCAN_LARGE_VECTORS, 0},
    [WK_SCAN_SHAPE_WIDE] = {WK_SCAN_WIDE_THREADS, WK_SCAN_WIDE_VECTORS, 0},
    [WK_SCAN_SHAPE_PIPELINED] = {WK_SCAN_PIPELINED_THREADS, WK_SCAN_PIPELINED_VECTORS, 1},
    [WK_SCAN_SHAPE_PIPELINED_WIDE] = {WK_SCAN_PIPELINED_WIDE_THREADS, WK_SCAN_PIPELINED_WIDE_VECTORS, 1},
};

wk_scan_shape wk_scan_shape_for(size_t n, size_t elem_size, int pipelined_ok)
{
    const size_t bytes = n * elem_size;
    if (elem_size == 8 && bytes < WK_SCAN_NARROW_BELOW_BYTES)
        return WK_SCAN_SHAPE_NARROW;
    if (bytes < WK_SCAN_LARGE_FROM_BYTES || elem_size <= 2)
        return WK_SCAN_SHAPE_SMALL;
    if (pipelined_ok)
        return bytes >= WK_SCAN_PIPELINED_WIDE_FROM_BYTES ? WK_SCAN_SHAPE_PIPELINED_WIDE : WK_SCAN_SHAPE_PIPELINED;
    return elem_size == 8 ? WK_SCAN_SHAPE_WIDE : WK_SCAN_SHAPE_LARGE;
}

int wk_plan_scan_for(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, int pipelined_ok,
                     wk_tile_plan *plan)
{
    const wk_scan_shape shape = wk_scan_shape_for(n, elem_size, pipelined_ok);
    return wk_plan_tiles(in_addr, out_addr, n, elem_size, &wk_scan_shapes[shape], shape, plan);
}

wk_scan_shape wk_widening_scan_shape(size_t n, size_t elem_size, size_t out_size)
{
    if (out_size != 0 && n < WK_SCAN_WIDENING_NARROW_BELOW_BYTES / out_size)
        return WK_SCAN_SHAPE_NARROW;
    return wk_scan_shape_for(n, elem_size, 0);
}

int wk_plan_widening_scan(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, size_t out_size,
                          wk_tile_plan *plan)
{
    const wk_scan_shape shape = wk_widening_scan_shape(n, elem_size, out_size);
    return wk_plan_tiles(in_addr, out_addr, n, elem_size, &wk_scan_shapes[shape], shape, plan);
}

int wk_plan_scan(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, wk_tile_plan *plan)
{
    return wk_plan_scan_for(in_addr, out_addr, n, elem_size, 1, plan);
}

/* Variant 0: a device without the pipelined kernels; 1: with them; 2: a
 * widening scan into the narrowest output it has (the most narrow tiles:
 * 4 bytes from 1- and 2-byte inputs, 8 from 4-byte ones; none from 8-byte
 * ones, which plan as variant 0). */
static int plan_variant(uintptr_t in_addr, size_t n, size_t elem_size, int variant, wk_tile_plan *plan)
{
    if (variant == 2 && elem_size < 8)
        return wk_plan_widening_scan(in_addr, 0, n, elem_size, elem_size < 4 ? 4 : 8, plan);
    return wk_plan_scan_for(in_addr, 0, n, elem_size, variant == 1, plan);
}

size_t wk_scan_max_tiles(size_t n, size_t elem_size) { return wk_tiles_most(n, elem_size, 3, plan_variant); }

/* The kernel's operations on the way from an element to an output (see
 * scan_kernel.cuh), with V elements per vector and K vectors per thread:
 *  - a thread folds each vector into a total (V) and the warp scans the
 *    totals (5 levels); the warp carries round totals across its K rounds
 *    (K); the block scans its warp totals (5); the tile's aggregate is the
 *    last of those;
 *  - an output is ((tile prefix op warp prefix) op round carry) op lane
 *    prefix (3), then folded with the elements before it in its vector (V);
 *  - the tile prefix is a left fold: the nearest published inclusive prefix
 *    (the previous tile's prefix and its aggregate, 1) then each aggregate
 *    after it in order (1 each). Every step from tile j to tile t adds at
 *    most t - j, so the prefix of tile t has depth at most t plus the
 *    aggregate's depth plus 1.
 * The init of an exclusive scan adds 1. */
size_t wk_scan_plan_depth(const wk_tile_plan *plan, size_t i)
{
    size_t v = plan->vec_elems, k = plan->vectors;
    size_t tile = (plan->offset + i) / plan->tile_elems;
    size_t aggregate = v + 5 + k + 5;
    size_t in_tile = aggregate + 3 + v;
    return tile + aggregate + 1 + in_tile + 1;
}
