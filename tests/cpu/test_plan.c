/* CPU test of the reduce planner: the head / body / tail split covers every
 * element once, the body starts 16-byte aligned, the grid stays within what
 * the device holds, and the depth bound grows with the work per thread; and
 * of the reproducible sum's grid. */
#include "reduce/plan.h"
#include "repro/launch.h"
#include "test_util.h"

static int check_plan(uintptr_t addr, size_t n, size_t elem, int sms, char *why, size_t why_size)
{
    wk_reduce_plan p;
    if (wk_plan_reduce(addr, n, elem, sms, &p) != 0)
        return snprintf(why, why_size, "planning failed"), 0;
    if (p.head + p.nvec * p.vec_elems + p.tail != n)
        return snprintf(why, why_size, "split does not add up"), 0;
    if (p.vec_elems * elem != WK_VECTOR_BYTES)
        return snprintf(why, why_size, "vector is not 16 bytes"), 0;
    if (p.nvec > 0 && (addr + p.head * elem) % WK_VECTOR_BYTES != 0)
        return snprintf(why, why_size, "body not aligned"), 0;
    if (p.head >= p.vec_elems && p.head != 0)
        return snprintf(why, why_size, "head longer than a vector"), 0;
    if (p.tail >= p.vec_elems)
        return snprintf(why, why_size, "tail longer than a vector"), 0;
    if (p.shape == WK_SHAPE_TILES) {
        /* Tiles: from WK_TILES_FROM_BYTES of body, a grid that covers every
         * vector once within the partial slots. */
        size_t tile = (size_t)WK_TILES_THREADS * WK_TILES_VECTORS;
        size_t tiles = (p.nvec + tile - 1) / tile;
        if (p.nvec * WK_VECTOR_BYTES < WK_TILES_FROM_BYTES(p.vec_elems))
            return snprintf(why, why_size, "tiles for a small input"), 0;
        if (p.block != WK_TILES_THREADS || p.grid < 1 || p.grid > WK_TILES_MAX_BLOCKS || p.tiles_per_block < 1)
            return snprintf(why, why_size, "tiles grid %u x %u, %u a block", p.grid, p.block, p.tiles_per_block), 0;
        if ((size_t)p.grid * p.tiles_per_block < tiles || (size_t)(p.grid - 1) * p.tiles_per_block >= tiles)
            return snprintf(why, why_size, "%u blocks of %u tiles for %zu tiles", p.grid, p.tiles_per_block, tiles), 0;
        if (WK_TILES_MAX_BLOCKS + (p.grid - 1) / WK_TILES_GROUP >= wk_reduce_partial_slots(sms))
            return snprintf(why, why_size, "a group's partial past the slots"), 0;
        return 1;
    }
    if (p.nvec * WK_VECTOR_BYTES >= WK_TILES_FROM_BYTES(p.vec_elems))
        return snprintf(why, why_size, "a large input without tiles"), 0;
    if (p.grid < 1 || p.grid > wk_reduce_max_grid(sms))
        return snprintf(why, why_size, "grid %u out of range", p.grid), 0;
    if (p.shape == WK_SHAPE_CLUSTER) {
        /* One cluster, one round of loads: 64 to 512 KiB. */
        size_t round = (size_t)WK_CLUSTER_BLOCKS * WK_CLUSTER_THREADS * WK_CLUSTER_UNROLL;
        if (p.grid != WK_CLUSTER_BLOCKS || p.block != WK_CLUSTER_THREADS)
            return snprintf(why, why_size, "cluster grid %u x %u", p.grid, p.block), 0;
        if (p.nvec <= (size_t)WK_DEEP_THREADS * WK_DEEP_UNROLL * WK_DEEP_SINGLE_ROUNDS || p.nvec > round)
            return snprintf(why, why_size, "cluster for %zu vectors", p.nvec), 0;
        return 1;
    }
    unsigned per_sm = p.shape == WK_SHAPE_DEEP ? WK_DEEP_BLOCKS_PER_SM : WK_WIDE_BLOCKS_PER_SM;
    unsigned threads = p.shape == WK_SHAPE_DEEP ? WK_DEEP_THREADS : WK_WIDE_THREADS;
    if (p.block != threads || p.grid > (unsigned)sms * per_sm)
        return snprintf(why, why_size, "grid %u x %u does not fit the shape", p.grid, p.block), 0;
    if (p.head > (size_t)p.grid * p.block || p.tail > (size_t)p.grid * p.block)
        return snprintf(why, why_size, "head or tail larger than the threads"), 0;
    return 1;
}

int main(void)
{
    wk_tally t = {0, 0};
    const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 1023, 1024, 1025, 1000003, ((size_t)1 << 25) - 1,
                            (size_t)1 << 25, (size_t)1 << 26, ((size_t)1 << 26) + 3, (size_t)1 << 31,
                            ((size_t)1 << 31) + 5, (size_t)1 << 40};
    const size_t elems[] = {1, 2, 4, 8};
    const int sms[] = {1, 132};
    char why[128], label[256];
    for (size_t e = 0; e < 4; ++e)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            for (int k = 0; k < 8; ++k)
                for (int g = 0; g < 2; ++g) {
                    uintptr_t addr = 0x7f0000000000u + (uintptr_t)k * elems[e];
                    int ok = check_plan(addr, sizes[s], elems[e], sms[g], why, sizeof why);
                    snprintf(label, sizeof label, "elem %zu n %zu offset %d sms %d: %s", elems[e], sizes[s], k,
                             sms[g], why);
                    wk_expect(&t, ok, label);
                }

    wk_reduce_plan p;
    wk_expect(&t, wk_plan_reduce(0x1001, 10, 4, 132, &p) == -1, "an address not aligned to the element is refused");
    wk_expect(&t, wk_plan_reduce(0x1000, 10, 3, 132, &p) == -1, "an element size that does not divide 16 is refused");
    wk_expect(&t, wk_plan_reduce(0x1000, 10, 4, 132, NULL) == -1, "NULL plan is refused");

    wk_reduce_plan small, mid, big, tiled, tiled64, deep64, huge;
    wk_plan_reduce(0x1000, 1000, 4, 132, &small);
    wk_plan_reduce(0x1000, (size_t)1 << 20, 8, 132, &mid);
    wk_plan_reduce(0x1000, ((size_t)1 << 25) - 4, 4, 132, &big);
    wk_plan_reduce(0x1000, (size_t)1 << 30, 4, 132, &tiled);
    wk_plan_reduce(0x1000, (size_t)1 << 34, 4, 132, &huge);
    wk_plan_reduce(0x1000, (size_t)1 << 26, 8, 132, &tiled64);
    wk_plan_reduce(0x1000, ((size_t)1 << 26) - 2, 8, 132, &deep64);
    wk_expect(&t, small.grid == 1 && small.shape == WK_SHAPE_WIDE, "a small input runs in one wide block");
    wk_reduce_plan one_deep, one_deep_top, cluster, cluster_top, past_cluster, no_clusters;
    wk_plan_reduce(0x1000, (size_t)1 << 12, 4, 132, &one_deep);
    wk_plan_reduce(0x1000, (size_t)1 << 14, 4, 132, &one_deep_top);
    wk_plan_reduce(0x1000, ((size_t)1 << 14) + 4, 4, 132, &cluster);
    wk_plan_reduce(0x1000, (size_t)1 << 17, 4, 132, &cluster_top);
    wk_plan_reduce(0x1000, ((size_t)1 << 17) + 4, 4, 132, &past_cluster);
    wk_plan_reduce_for(0x1000, ((size_t)1 << 14) + 4, 4, 132, 0, 1, &no_clusters);
    wk_expect(&t, one_deep.grid == 1 && one_deep.shape == WK_SHAPE_DEEP, "16 KiB run in one deep block");
    wk_expect(&t, one_deep_top.grid == 1 && one_deep_top.shape == WK_SHAPE_DEEP, "64 KiB run in one deep block");
    wk_expect(&t, cluster.shape == WK_SHAPE_CLUSTER && cluster.grid == WK_CLUSTER_BLOCKS,
              "64 KiB and a vector run in one cluster");
    wk_expect(&t, cluster_top.shape == WK_SHAPE_CLUSTER, "512 KiB run in one cluster");
    wk_expect(&t, past_cluster.shape == WK_SHAPE_WIDE && past_cluster.grid == 65,
              "512 KiB and a vector run in 65 wide blocks");
    wk_expect(&t, no_clusters.shape == WK_SHAPE_WIDE && no_clusters.grid == 9,
              "without clusters, 64 KiB and a vector run in 9 wide blocks");
    wk_expect(&t, wk_reduce_plan_depth(&cluster) == 1 * 4 + 2 + 10 + WK_CLUSTER_BLOCKS + 1,
              "cluster depth: a vector a thread, the block's tree, the blocks in order");
    wk_expect(&t, mid.shape == WK_SHAPE_DEEP && mid.grid == 256, "8 MiB run in one round of 256 deep blocks");
    wk_expect(&t, big.shape == WK_SHAPE_DEEP && big.grid == 132, "just under 128 MiB runs one deep block per SM");
    wk_expect(&t, tiled.shape == WK_SHAPE_TILES && tiled.grid == 1u << 17 && tiled.tiles_per_block == 1,
              "4 GiB run in 2^17 blocks of one 32 KiB tile");
    wk_expect(&t, huge.shape == WK_SHAPE_TILES && huge.grid == 1u << 17 && huge.tiles_per_block == 16,
              "64 GiB run in 2^17 blocks of 16 tiles");
    wk_expect(&t, tiled64.shape == WK_SHAPE_TILES && tiled64.grid == 1u << 14 && tiled64.tiles_per_block == 1,
              "512 MiB of doubles run in 2^14 blocks of one tile");
    wk_expect(&t, deep64.shape == WK_SHAPE_DEEP && deep64.grid == 264,
              "doubles just under 512 MiB run two deep blocks per SM");
    wk_expect(&t, wk_reduce_plan_depth(&big) > wk_reduce_plan_depth(&small), "depth grows with the work per thread");
    /* 2^25 floats over 132 * 512 threads: each thread folds
     * at least n / threads elements, so the bound must be at least that. */
    size_t threads = (size_t)big.grid * big.block;
    wk_expect(&t, wk_reduce_plan_depth(&big) >= (((size_t)1 << 25) - 4) / threads, "depth covers each thread's share");
    wk_expect(&t, wk_reduce_plan_depth(&huge) >= 16 * WK_TILES_VECTORS * 4, "tiles: depth covers each thread's tiles");

    /* The reproducible sum's grid: a block per round of loads, one per SM
     * up to WK_REPRO_SPREAD_ROUNDS rounds a thread for f64 and
     * WK_REPRO_SPREAD_ROUNDS_NARROW for f32 (and narrower), then four per SM. */
    const size_t round = (size_t)WK_REPRO_THREADS * WK_REPRO_UNROLL;
    for (size_t elem = 2; elem <= 8; elem *= 2) {
        const size_t spread = elem == 8 ? WK_REPRO_SPREAD_ROUNDS : WK_REPRO_SPREAD_ROUNDS_NARROW;
        wk_expect(&t, wk_repro_grid(0, elem, 132) == 1 && wk_repro_grid(1, elem, 132) == 1,
                  "repro: an empty or tiny body, one block");
        wk_expect(&t, wk_repro_grid(64 * round, elem, 132) == 64, "repro: 64 rounds of loads, 64 blocks");
        wk_expect(&t, wk_repro_grid(132 * round * spread, elem, 132) == 132,
                  "repro: up to the spread's rounds a thread, one block per SM");
        wk_expect(&t, wk_repro_grid(132 * round * spread + 1, elem, 132) == 132 * WK_REPRO_BLOCKS_PER_SM,
                  "repro: past that, four blocks per SM");
        wk_expect(&t, wk_repro_grid((size_t)1 << 40, elem, 132) == 132 * WK_REPRO_BLOCKS_PER_SM,
                  "repro: a huge body, four per SM");
        wk_expect(&t, wk_repro_grid(1000 * round, elem, 0) == WK_REPRO_BLOCKS_PER_SM,
                  "repro: no SM count, one SM's worth");
    }
    wk_expect(&t, wk_repro_grid(132 * round * 6, 4, 132) == 132 && wk_repro_grid(132 * round * 6, 8, 132) == 528,
              "repro: six rounds a thread, one block per SM for f32, four for f64");

    /* Tiles a block by the memory's datasheet rate: the H100 SXM (2619 MHz,
     * 5120 bits, 132 SMs) one, the H200 (3201 MHz, 6016 bits) four; unknown
     * memory one. */
    wk_expect(&t, wk_tiles_per_block(132, 2619000, 5120) == 1, "an H100's memory: one tile a block");
    wk_expect(&t, wk_tiles_per_block(132, 3201000, 6016) == WK_TILES_FAST_PER_BLOCK, "an H200's memory: four");
    wk_expect(&t, wk_tiles_per_block(132, 0, 6016) == 1 && wk_tiles_per_block(132, 3201000, 0) == 1,
              "unknown memory: one tile a block");
    wk_expect(&t, wk_tiles_per_block(0, 2619000, 5120) == WK_TILES_FAST_PER_BLOCK, "no SM count: counted as one SM");
    wk_reduce_plan fast, fast_huge, fast64, fast_odd;
    wk_plan_reduce_for(0x1000, (size_t)1 << 30, 4, 132, 1, 4, &fast);
    wk_plan_reduce_for(0x1000, (size_t)1 << 34, 4, 132, 1, 4, &fast_huge);
    wk_plan_reduce_for(0x1000, (size_t)1 << 26, 8, 132, 1, 4, &fast64);
    wk_plan_reduce_for(0x1000, ((size_t)1 << 26) + 4, 4, 132, 1, 4, &fast_odd);
    wk_expect(&t, fast.shape == WK_SHAPE_TILES && fast.grid == 1u << 15 && fast.tiles_per_block == 4,
              "four a block: 4 GiB run in 2^15 blocks of four tiles");
    wk_expect(&t, fast_huge.grid == 1u << 17 && fast_huge.tiles_per_block == 16,
              "four a block: 64 GiB still run in 2^17 blocks of 16 tiles");
    wk_expect(&t, fast64.grid == 1u << 12 && fast64.tiles_per_block == 4,
              "four a block: 512 MiB of doubles run in 2^12 blocks");
    /* 2^26 + 4 floats: 8193 tiles (the last of one vector), 2049 blocks. */
    wk_expect(&t, fast_odd.grid == 2049 && fast_odd.tiles_per_block == 4, "four a block: a short last block");
    wk_expect(&t, wk_plan_reduce_for(0x1000, 10, 4, 132, 1, 0, &fast) == -1, "zero tiles a block is refused");
    wk_expect(&t, wk_plan_reduce(0x1000, ((size_t)1 << 60) + 1, 4, 132, &fast) == -1 &&
                  wk_plan_reduce(0x1000, (size_t)1 << 60, 4, 132, &fast) == 0,
              "2^62 bytes and more are refused");
    char fast_why[128] = "";
    int fast_ok = 1;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (size_t e = 0; e < 4; ++e) {
            wk_reduce_plan q;
            wk_plan_reduce_for(0x7f0000000000u + elems[e], sizes[s], elems[e], 132, 1, 4, &q);
            size_t tiles = (q.nvec + WK_TILE_BYTES / WK_VECTOR_BYTES - 1) / (WK_TILE_BYTES / WK_VECTOR_BYTES);
            /* Four a block, or as many as the most blocks need. */
            size_t most = (tiles + WK_TILES_MAX_BLOCKS - 1) / WK_TILES_MAX_BLOCKS;
            size_t per = most > 4 ? most : 4;
            if (q.shape == WK_SHAPE_TILES &&
                ((size_t)q.grid * q.tiles_per_block < tiles || (size_t)(q.grid - 1) * q.tiles_per_block >= tiles ||
                 q.tiles_per_block != per || q.grid > WK_TILES_MAX_BLOCKS))
                fast_ok = 0, snprintf(fast_why, sizeof fast_why, "n %zu: %u blocks of %u", sizes[s], q.grid,
                                      q.tiles_per_block);
        }
    wk_expect(&t, fast_ok, fast_why[0] ? fast_why : "four a block, or what the cap needs: every tile covered once");

    wk_reduce_plan forced;
    wk_plan_reduce(0x1000, 1000003, 4, 132, &forced);
    wk_plan_reduce_tiles(&forced, 7);
    wk_expect(&t, forced.shape == WK_SHAPE_TILES && forced.grid == 7 && forced.tiles_per_block == 18,
              "1000003 floats in at most 7 blocks: 7 blocks of 18 tiles");
    wk_plan_reduce_tiles(&forced, 1000);
    wk_expect(&t, forced.grid == 123 && forced.tiles_per_block == 1, "more blocks than tiles: one block a tile");
    return wk_tally_finish(&t);
}
