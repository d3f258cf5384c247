#include "tiles/plan.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

int wk_plan_tiles(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, const wk_tile_shape *shape,
                  int shape_id, wk_tile_plan *plan)
{
    if (!plan || !shape || elem_size == 0 || WK_TILE_VECTOR_BYTES % elem_size != 0 || in_addr % elem_size != 0 ||
        out_addr % elem_size != 0)
        return -1;
    const unsigned threads = shape->threads, vectors = shape->vectors;
    if (vectors == 0 || threads == 0 || threads % 32 != 0 || threads > 1024)
        return -1;
    size_t vec_elems = WK_TILE_VECTOR_BYTES / elem_size;
    plan->n = n;
    plan->offset = (in_addr % WK_TILE_VECTOR_BYTES) / elem_size;
    plan->vec_elems = (unsigned)vec_elems;
    plan->vectors = vectors;
    plan->tile_elems = (unsigned)(threads * vectors * vec_elems);
    plan->block = threads;
    plan->tiles = n == 0 ? 0 : ceil_div(plan->offset + n, plan->tile_elems);
    plan->vector_stores = in_addr % WK_TILE_VECTOR_BYTES == out_addr % WK_TILE_VECTOR_BYTES;
    plan->pipelined = shape->pipelined;
    plan->shape = shape_id;
    return 0;
}

size_t wk_tiles_most(size_t n, size_t elem_size, int variants, wk_tile_planner planner)
{
    if (elem_size == 0 || WK_TILE_VECTOR_BYTES % elem_size != 0 || n == 0)
        return 0;
    size_t most = 0, worst_offset = WK_TILE_VECTOR_BYTES / elem_size - 1;
    for (int variant = 0; variant < variants; ++variant) {
        wk_tile_plan plan;
        if (planner(worst_offset * elem_size, n, elem_size, variant, &plan) != 0)
            return 0;
        if (plan.tiles > most)
            most = plan.tiles;
    }
    return most;
}

int wk_pipelined_ok(int cc_major, int shared_per_block, size_t needed)
{
    return cc_major >= 9 && shared_per_block > 0 && (size_t)shared_per_block >= needed;
}
