#include "select/plan.h"

const wk_tile_shape wk_select_shapes[WK_SELECT_SHAPE_COUNT] = {
    [WK_SELECT_SHAPE_SMALL] = {WK_SELECT_THREADS, WK_SELECT_SMALL_VECTORS, 0},
    [WK_SELECT_SHAPE_LARGE] = {WK_SELECT_THREADS, WK_SELECT_LARGE_VECTORS, 0},
    [WK_SELECT_SHAPE_STAGED_MID] = {WK_SELECT_STAGED_MID_THREADS, WK_SELECT_STAGED_MID_VECTORS, 0},
    [WK_SELECT_SHAPE_STAGED] = {WK_SELECT_THREADS, WK_SELECT_STAGED_VECTORS, 0},
    [WK_SELECT_SHAPE_PIPELINED] = {WK_SELECT_PIPELINED_THREADS, WK_SELECT_PIPELINED_VECTORS, 1},
    [WK_SELECT_SHAPE_PIPELINED_PARTITION] = {WK_SELECT_PIPELINED_THREADS, WK_SELECT_PIPELINED_PARTITION_VECTORS, 1},
};

wk_select_shape wk_select_shape_for(size_t n, size_t elem_size, int partition, int pipelined_ok)
{
    const size_t bytes = n * elem_size;
    if (elem_size <= 2 || bytes < WK_SELECT_LARGE_FROM_BYTES)
        return WK_SELECT_SHAPE_SMALL;
    if (pipelined_ok && bytes >= WK_SELECT_PIPELINED_FROM_BYTES)
        return partition && elem_size == 4 && bytes < WK_SELECT_PIPELINED_PARTITION_BELOW_BYTES
                   ? WK_SELECT_SHAPE_PIPELINED_PARTITION
                   : WK_SELECT_SHAPE_PIPELINED;
    if (elem_size == 4 && bytes >= WK_SELECT_STAGED_FROM_BYTES)
        return WK_SELECT_SHAPE_STAGED;
    if (elem_size == 4 && bytes >= WK_SELECT_STAGED_MID_FROM_BYTES)
        return WK_SELECT_SHAPE_STAGED_MID;
    return WK_SELECT_SHAPE_LARGE;
}

int wk_plan_select_for(uintptr_t in_addr, size_t n, size_t elem_size, int partition, int pipelined_ok,
                       wk_tile_plan *plan)
{
    const wk_select_shape shape = wk_select_shape_for(n, elem_size, partition, pipelined_ok);
    /* Outputs are packed, never stored as whole vectors of the input's
     * alignment: the output address does not matter. */
    return wk_plan_tiles(in_addr, in_addr, n, elem_size, &wk_select_shapes[shape], shape, plan);
}

int wk_plan_select(uintptr_t in_addr, size_t n, size_t elem_size, int partition, wk_tile_plan *plan)
{
    return wk_plan_select_for(in_addr, n, elem_size, partition, 1, plan);
}

/* The variants' bits: 1, the device runs the pipelined kernels; 2, a partition. */
static int plan_variant(uintptr_t in_addr, size_t n, size_t elem_size, int variant, wk_tile_plan *plan)
{
    return wk_plan_select_for(in_addr, n, elem_size, (variant & 2) != 0, variant & 1, plan);
}

size_t wk_select_max_tiles(size_t n, size_t elem_size) { return wk_tiles_most(n, elem_size, 4, plan_variant); }
