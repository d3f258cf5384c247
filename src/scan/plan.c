#include "plan.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

int wk_plan_tiles(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, unsigned threads,
                  unsigned vectors, wk_scan_plan *plan)
{
    if (!plan || elem_size == 0 || WK_SCAN_VECTOR_BYTES % elem_size != 0 || in_addr % elem_size != 0 ||
        out_addr % elem_size != 0 || vectors == 0 || threads == 0 || threads % 32 != 0 || threads > 1024)
        return -1;
    size_t vec_elems = WK_SCAN_VECTOR_BYTES / elem_size;
    plan->n = n;
    plan->offset = (in_addr % WK_SCAN_VECTOR_BYTES) / elem_size;
    plan->vec_elems = (unsigned)vec_elems;
    plan->vectors = vectors;
    plan->tile_elems = (unsigned)(threads * plan->vectors * vec_elems);
    plan->block = threads;
    plan->tiles = n == 0 ? 0 : ceil_div(plan->offset + n, plan->tile_elems);
    plan->vector_stores = in_addr % WK_SCAN_VECTOR_BYTES == out_addr % WK_SCAN_VECTOR_BYTES;
    return 0;
}

int wk_plan_scan(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size,
                 wk_scan_plan *plan)
{
    const size_t bytes = n * elem_size;
    unsigned threads = WK_SCAN_THREADS, vectors = WK_SCAN_SMALL_VECTORS;
    if (elem_size == 8 && bytes < WK_SCAN_NARROW_BELOW_BYTES)
        threads = WK_SCAN_NARROW_THREADS;
    else if (bytes < WK_SCAN_LARGE_FROM_BYTES || elem_size == 2)
        ;
    else if (elem_size == 8 && bytes >= WK_SCAN_WIDE_STAGED_FROM_BYTES)
        threads = WK_SCAN_WIDE_THREADS, vectors = WK_SCAN_WIDE_STAGED_VECTORS;
    else if (elem_size == 8)
        threads = WK_SCAN_WIDE_THREADS, vectors = WK_SCAN_WIDE_VECTORS;
    else if (elem_size == 4 && bytes >= WK_SCAN_STAGED_FROM_BYTES)
        vectors = WK_SCAN_STAGED_VECTORS;
    else if (elem_size == 4 && bytes >= WK_SCAN_MID_FROM_BYTES)
        threads = WK_SCAN_MID_THREADS, vectors = WK_SCAN_MID_VECTORS;
    else
        vectors = WK_SCAN_LARGE_VECTORS;
    return wk_plan_tiles(in_addr, out_addr, n, elem_size, threads, vectors, plan);
}

/* The f64 min and max shape has at least the threads of the 8-byte staged
 * one and the same vectors, so its tiles are no smaller and no more of
 * them are needed: wk_scan_max_tiles, which plans by element size, covers
 * it. */
_Static_assert(WK_SCAN_WIDE_COMPARE_THREADS >= WK_SCAN_WIDE_THREADS, "f64 min and max tiles are no smaller");

int wk_plan_scan_op(uintptr_t in_addr, uintptr_t out_addr, size_t n, wk_dtype dtype, wk_op op,
                    wk_scan_plan *plan)
{
    const size_t elem = wk_dtype_size(dtype);
    if (elem == 0 || wk_plan_scan(in_addr, out_addr, n, elem, plan) != 0)
        return -1;
    const int f64_compare = dtype == WK_F64 && (op == WK_MIN || op == WK_MAX);
    if (f64_compare && plan->block == WK_SCAN_WIDE_THREADS && plan->vectors == WK_SCAN_WIDE_STAGED_VECTORS)
        return wk_plan_tiles(in_addr, out_addr, n, elem, WK_SCAN_WIDE_COMPARE_THREADS, WK_SCAN_WIDE_STAGED_VECTORS,
                             plan);
    return 0;
}

size_t wk_scan_max_tiles(size_t n, size_t elem_size)
{
    if (elem_size == 0 || WK_SCAN_VECTOR_BYTES % elem_size != 0 || n == 0)
        return 0;
    /* The most tiles come with the most elements before the first 16-byte
     * boundary. */
    wk_scan_plan plan;
    size_t worst_offset = WK_SCAN_VECTOR_BYTES / elem_size - 1;
    if (wk_plan_scan(worst_offset * elem_size, 0, n, elem_size, &plan) != 0)
        return 0;
    return plan.tiles;
}

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
size_t wk_scan_plan_depth(const wk_scan_plan *plan, size_t i)
{
    size_t v = plan->vec_elems, k = plan->vectors;
    size_t tile = (plan->offset + i) / plan->tile_elems;
    size_t aggregate = v + 5 + k + 5;
    size_t in_tile = aggregate + 3 + v;
    return tile + aggregate + 1 + in_tile + 1;
}
