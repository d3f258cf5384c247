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
    plan->pipelined = 0;
    return 0;
}

int wk_plan_scan_for(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, int pipelined_ok,
                     wk_scan_plan *plan)
{
    const size_t bytes = n * elem_size;
    unsigned threads = WK_SCAN_THREADS, vectors = WK_SCAN_SMALL_VECTORS;
    int pipelined = 0;
    if (elem_size == 8 && bytes < WK_SCAN_NARROW_BELOW_BYTES)
        threads = WK_SCAN_NARROW_THREADS;
    else if (bytes < WK_SCAN_LARGE_FROM_BYTES || elem_size == 2)
        ;
    else if (pipelined_ok && bytes >= WK_SCAN_PIPELINED_WIDE_FROM_BYTES)
        threads = WK_SCAN_PIPELINED_WIDE_THREADS, vectors = WK_SCAN_PIPELINED_WIDE_VECTORS, pipelined = 1;
    else if (pipelined_ok)
        threads = WK_SCAN_PIPELINED_THREADS, vectors = WK_SCAN_PIPELINED_VECTORS, pipelined = 1;
    else if (elem_size == 8)
        threads = WK_SCAN_WIDE_THREADS, vectors = WK_SCAN_WIDE_VECTORS;
    else
        vectors = WK_SCAN_LARGE_VECTORS;
    if (wk_plan_tiles(in_addr, out_addr, n, elem_size, threads, vectors, plan) != 0)
        return -1;
    plan->pipelined = pipelined;
    return 0;
}

int wk_plan_scan(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, wk_scan_plan *plan)
{
    return wk_plan_scan_for(in_addr, out_addr, n, elem_size, 1, plan);
}

size_t wk_scan_max_tiles(size_t n, size_t elem_size)
{
    if (elem_size == 0 || WK_SCAN_VECTOR_BYTES % elem_size != 0 || n == 0)
        return 0;
    /* The most tiles come with the most elements before the first 16-byte
     * boundary, in whichever of the two devices' shapes has the smaller
     * tiles. */
    size_t most = 0, worst_offset = WK_SCAN_VECTOR_BYTES / elem_size - 1;
    for (int pipelined_ok = 0; pipelined_ok <= 1; ++pipelined_ok) {
        wk_scan_plan plan;
        if (wk_plan_scan_for(worst_offset * elem_size, 0, n, elem_size, pipelined_ok, &plan) != 0)
            return 0;
        if (plan.tiles > most)
            most = plan.tiles;
    }
    return most;
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
