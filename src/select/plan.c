#include "plan.h"

int wk_plan_select_for(uintptr_t in_addr, size_t n, size_t elem_size, int partition, int pipelined_ok,
                       wk_scan_plan *plan)
{
    const size_t bytes = n * elem_size;
    unsigned threads = WK_SCAN_THREADS, vectors = WK_SELECT_LARGE_VECTORS;
    int pipelined = 0;
    if (elem_size == 2 || bytes < WK_SELECT_LARGE_FROM_BYTES)
        vectors = WK_SELECT_SMALL_VECTORS;
    else if (pipelined_ok && bytes >= WK_SELECT_PIPELINED_FROM_BYTES) {
        threads = WK_SELECT_PIPELINED_THREADS, vectors = WK_SELECT_PIPELINED_VECTORS, pipelined = 1;
        if (partition && elem_size == 4 && bytes < WK_SELECT_PIPELINED_PARTITION_BELOW_BYTES)
            vectors = WK_SELECT_PIPELINED_PARTITION_VECTORS;
    } else if (elem_size == 4 && bytes >= WK_SELECT_STAGED_FROM_BYTES)
        vectors = WK_SELECT_STAGED_VECTORS;
    else if (elem_size == 4 && bytes >= WK_SELECT_STAGED_MID_FROM_BYTES)
        threads = WK_SELECT_STAGED_MID_THREADS, vectors = WK_SELECT_STAGED_MID_VECTORS;
    /* Outputs are packed, never stored as whole vectors of the input's
     * alignment: the output address does not matter. */
    if (wk_plan_tiles(in_addr, in_addr, n, elem_size, threads, vectors, plan) != 0)
        return -1;
    plan->pipelined = pipelined;
    return 0;
}

int wk_plan_select(uintptr_t in_addr, size_t n, size_t elem_size, int partition, wk_scan_plan *plan)
{
    return wk_plan_select_for(in_addr, n, elem_size, partition, 1, plan);
}

size_t wk_select_max_tiles(size_t n, size_t elem_size)
{
    if (elem_size == 0 || WK_SCAN_VECTOR_BYTES % elem_size != 0 || n == 0)
        return 0;
    /* The most tiles come with the most elements before the first 16-byte
     * boundary, in whichever of the devices' and modes' shapes has the
     * smaller tiles. */
    size_t most = 0, worst_offset = WK_SCAN_VECTOR_BYTES / elem_size - 1;
    for (int pipelined_ok = 0; pipelined_ok <= 1; ++pipelined_ok)
        for (int partition = 0; partition <= 1; ++partition) {
            wk_scan_plan plan;
            if (wk_plan_select_for(worst_offset * elem_size, n, elem_size, partition, pipelined_ok, &plan) != 0)
                return 0;
            if (plan.tiles > most)
                most = plan.tiles;
        }
    return most;
}
