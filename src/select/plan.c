#include "plan.h"

int wk_plan_select(uintptr_t in_addr, size_t n, size_t elem_size, wk_scan_plan *plan)
{
    const size_t bytes = n * elem_size;
    unsigned threads = WK_SCAN_THREADS, vectors = WK_SELECT_LARGE_VECTORS;
    if (bytes < WK_SELECT_LARGE_FROM_BYTES || elem_size == 2)
        vectors = WK_SELECT_SMALL_VECTORS;
    else if (elem_size == 4 && bytes >= WK_SELECT_STAGED_FROM_BYTES)
        vectors = WK_SELECT_STAGED_VECTORS;
    else if (elem_size == 4 && bytes >= WK_SELECT_STAGED_MID_FROM_BYTES)
        threads = WK_SELECT_STAGED_MID_THREADS, vectors = WK_SELECT_STAGED_MID_VECTORS;
    /* Outputs are packed, never stored as whole vectors of the input's
     * alignment: the output address does not matter. */
    return wk_plan_tiles(in_addr, in_addr, n, elem_size, threads, vectors, plan);
}

size_t wk_select_max_tiles(size_t n, size_t elem_size)
{
    if (elem_size == 0 || WK_SCAN_VECTOR_BYTES % elem_size != 0 || n == 0)
        return 0;
    wk_scan_plan plan;
    size_t worst_offset = WK_SCAN_VECTOR_BYTES / elem_size - 1;
    if (wk_plan_select(worst_offset * elem_size, n, elem_size, &plan) != 0)
        return 0;
    return plan.tiles;
}
