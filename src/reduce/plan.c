#include "reduce/plan.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static size_t ceil_log2(size_t x)
{
    size_t bits = 0;
    while (((size_t)1 << bits) < x)
        bits++;
    return bits;
}

static size_t sms_or_one(int sm_count) { return sm_count > 0 ? (size_t)sm_count : 1; }

unsigned wk_reduce_max_grid(int sm_count)
{
    size_t most = WK_WIDE_BLOCKS_PER_SM > WK_DEEP_BLOCKS_PER_SM ? WK_WIDE_BLOCKS_PER_SM : WK_DEEP_BLOCKS_PER_SM;
    return (unsigned)(sms_or_one(sm_count) * most);
}

size_t wk_reduce_partial_slots(int sm_count)
{
    size_t tiles = (size_t)WK_TILES_MAX_BLOCKS + WK_TILES_MAX_GROUPS;
    size_t grid = wk_reduce_max_grid(sm_count);
    return tiles > grid ? tiles : grid;
}

void wk_plan_reduce_tiles(wk_reduce_plan *plan, unsigned max_grid)
{
    size_t tiles = ceil_div(plan->nvec, (size_t)WK_TILES_THREADS * WK_TILES_VECTORS);
    if (tiles < 1)
        tiles = 1;
    size_t cap = max_grid < 1 ? 1 : max_grid > WK_TILES_MAX_BLOCKS ? WK_TILES_MAX_BLOCKS : max_grid;
    size_t per_block = ceil_div(tiles, cap);
    plan->shape = WK_SHAPE_TILES;
    plan->block = WK_TILES_THREADS;
    plan->tiles_per_block = (unsigned)per_block;
    plan->grid = (unsigned)ceil_div(tiles, per_block);
}

unsigned wk_tiles_per_block(int sm_count, int memory_khz, int bus_bits)
{
    if (memory_khz <= 0 || bus_bits <= 0)
        return 1;
    /* Bytes a microsecond: two transfers a clock of bus_bits / 8 bytes. */
    double bytes_per_us = 2.0 * memory_khz * 1e-3 * (bus_bits / 8.0);
    double tiles_per_sm_us = bytes_per_us / (double)WK_TILE_BYTES / (double)sms_or_one(sm_count);
    return tiles_per_sm_us > WK_TILES_SINGLE_MAX_RATE ? WK_TILES_FAST_PER_BLOCK : 1;
}

/* Blocks for one round of `unroll` vectors per thread, within the cap. */
static unsigned blocks_for(size_t nvec, size_t threads, size_t unroll, size_t cap)
{
    size_t wanted = ceil_div(nvec, threads * unroll);
    return (unsigned)(wanted < 1 ? 1 : wanted > cap ? cap : wanted);
}

int wk_plan_reduce_for(uintptr_t addr, size_t n, size_t elem_size, int sm_count, int clusters_ok,
                       unsigned tiles_per_block, wk_reduce_plan *plan)
{
    if (!plan || tiles_per_block < 1 || elem_size == 0 || WK_VECTOR_BYTES % elem_size != 0 || addr % elem_size != 0)
        return -1;
    /* 2^62 bytes and more: no device holds them, and past 2^64 - 2^32 a
     * block's count of tiles would not fit its 32 bits. */
    if (n > ((size_t)1 << 62) / elem_size)
        return -1;
    size_t vec_elems = WK_VECTOR_BYTES / elem_size;
    size_t misalign = addr % WK_VECTOR_BYTES;
    size_t head = misalign ? (WK_VECTOR_BYTES - misalign) / elem_size : 0;
    if (head > n)
        head = n;
    size_t nvec = (n - head) / vec_elems;

    plan->head = head;
    plan->nvec = nvec;
    plan->tail = n - head - nvec * vec_elems;
    plan->vec_elems = (unsigned)vec_elems;
    plan->tiles_per_block = 0;

    /* Deep where wide would need more than its 2 blocks per SM for one
     * round, up to the tiles: fewer blocks in flight stream these sizes
     * faster (one per SM, two for 8-byte elements); wide everywhere else. */
    size_t sms = sms_or_one(sm_count);
    size_t deep_cap = sms * WK_DEEP_STREAM_BLOCKS_PER_SM(vec_elems);
    size_t wide_blocks = ceil_div(nvec, (size_t)WK_WIDE_THREADS * WK_WIDE_UNROLL);
    if (nvec >= WK_TILES_FROM_BYTES(vec_elems) / WK_VECTOR_BYTES) {
        size_t tiles = ceil_div(nvec, WK_TILE_BYTES / WK_VECTOR_BYTES);
        size_t blocks = ceil_div(tiles, tiles_per_block);
        wk_plan_reduce_tiles(plan, blocks < WK_TILES_MAX_BLOCKS ? (unsigned)blocks : WK_TILES_MAX_BLOCKS);
    } else if (nvec > (size_t)WK_WIDE_THREADS * WK_WIDE_UNROLL &&
               nvec <= (size_t)WK_DEEP_THREADS * WK_DEEP_UNROLL * WK_DEEP_SINGLE_ROUNDS) {
        /* Up to 64 KiB: one deep block reads it in two rounds, with no
         * ticket and no partial for a last block to read back. */
        plan->shape = WK_SHAPE_DEEP;
        plan->block = WK_DEEP_THREADS;
        plan->grid = 1;
    } else if (clusters_ok && nvec > (size_t)WK_DEEP_THREADS * WK_DEEP_UNROLL * WK_DEEP_SINGLE_ROUNDS &&
               nvec <= (size_t)WK_CLUSTER_BLOCKS * WK_CLUSTER_THREADS * WK_CLUSTER_UNROLL) {
        /* Up to 512 KiB: one cluster reads it in one round and combines
         * its blocks' partials in shared memory. */
        plan->shape = WK_SHAPE_CLUSTER;
        plan->block = WK_CLUSTER_THREADS;
        plan->grid = WK_CLUSTER_BLOCKS;
    } else if (wide_blocks > 2 * sms) {
        plan->shape = WK_SHAPE_DEEP;
        plan->block = WK_DEEP_THREADS;
        plan->grid = blocks_for(nvec, WK_DEEP_THREADS, WK_DEEP_UNROLL, deep_cap);
    } else {
        plan->shape = WK_SHAPE_WIDE;
        plan->block = WK_WIDE_THREADS;
        plan->grid = blocks_for(nvec, WK_WIDE_THREADS, WK_WIDE_UNROLL, sms * WK_WIDE_BLOCKS_PER_SM);
    }
    return 0;
}

int wk_plan_reduce(uintptr_t addr, size_t n, size_t elem_size, int sm_count, wk_reduce_plan *plan)
{
    return wk_plan_reduce_for(addr, n, elem_size, sm_count, 1, 1, plan);
}

size_t wk_reduce_plan_depth(const wk_reduce_plan *plan)
{
    if (plan->shape == WK_SHAPE_TILES) {
        /* Each thread folds its vectors of each tile, block 0's threads a
         * head and a tail element too; then the block's tree, the group's
         * partials (WK_TILES_GROUP / block a thread) and its tree, and the
         * groups' partials and a last tree. */
        size_t per_thread = (size_t)plan->tiles_per_block * WK_TILES_VECTORS * plan->vec_elems + 2;
        size_t tree = ceil_log2(plan->block);
        size_t groups = ceil_div(plan->grid, WK_TILES_GROUP);
        return per_thread + tree + ceil_div(WK_TILES_GROUP, plan->block) + tree + ceil_div(groups, plan->block) +
               tree + 1;
    }
    size_t threads = (size_t)plan->grid * plan->block;
    /* Each thread folds its vectors' elements one by one, plus at most one
     * head and one tail element. */
    size_t per_thread = ceil_div(plan->nvec, threads) * plan->vec_elems + 2;
    size_t block_tree = ceil_log2(plan->block);
    /* Block tree, then the first block folds the blocks' partials in order. */
    if (plan->shape == WK_SHAPE_CLUSTER)
        return per_thread + block_tree + plan->grid + 1;
    /* Block tree, then the last block folds the partials and runs its tree. */
    size_t partials = ceil_div(plan->grid, plan->block);
    return per_thread + block_tree + partials + block_tree + 1;
}
