/* Launch planning for the device-wide reduce: how the input splits into a
 * scalar head, a body of 16-byte vectors and a scalar tail, and how many
 * blocks run. Pure C, so CPU tests can check it. */
#ifndef WARPKIT_REDUCE_PLAN_H
#define WARPKIT_REDUCE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Four launch shapes, chosen by size (docs/reduce.md):
 *  - wide: 256-thread blocks, up to 8 per SM, 2 16-byte loads in flight per
 *    thread: up to 8 KiB, and from 512 KiB until wide would need more than
 *    2 blocks per SM (or from 64 KiB where clusters cannot be launched).
 *  - deep: 512-thread blocks, 4 loads in flight per thread. From 8 to
 *    64 KiB one deep block takes the whole input in two rounds, where wide
 *    would need several blocks and a ticket. From where wide would need more
 *    than 2 blocks per SM up to the tiles, one deep block per SM (two for
 *    8-byte elements) loops over the input, which streamed these sizes
 *    faster than a full grid of wide blocks (docs/reduce.md).
 *  - cluster: from 64 to 512 KiB, one cluster of 8 blocks of 1024 threads
 *    (sm_90 and later) reads the input in one round of 4 loads a thread;
 *    the blocks hand their partials to the first block through distributed
 *    shared memory, so no ticket and no partial in global memory.
 *  - tiles: from WK_TILES_FROM_BYTES of input, a grid that covers the input
 *    once: each 256-thread block reads one tile of 8 vectors a thread
 *    (32 KiB), all 8 loads in flight at once (two rounds of 4 for 8-byte
 *    elements), and blocks that start in order read the input as a moving
 *    window. The blocks' partials are combined in groups of WK_TILES_GROUP
 *    by each group's last block, then by the last group's. Past
 *    WK_TILES_MAX_BLOCKS tiles, each block takes several consecutive ones;
 *    on a device whose memory outruns the rate at which its SMs start and
 *    retire blocks of one tile, each block takes WK_TILES_FAST_PER_BLOCK.
 * Wide and deep grids are capped at blocks-per-SM times the SM count;
 * beyond that each thread loops over the input (grid stride). The ticket
 * protocol never waits on another block, so it needs no block to be
 * resident. */
#define WK_WIDE_THREADS 256
#define WK_WIDE_BLOCKS_PER_SM 8
#define WK_WIDE_UNROLL 2
#define WK_DEEP_THREADS 512
#define WK_DEEP_BLOCKS_PER_SM 2
#define WK_DEEP_UNROLL 4
/* Rounds of one deep block that takes the whole input (64 KiB). */
#define WK_DEEP_SINGLE_ROUNDS 2
/* Deep blocks per SM for the inputs between the cluster and the tiles. */
#define WK_DEEP_STREAM_BLOCKS_PER_SM(vec_elems) ((vec_elems) <= 2 ? 2 : 1)
#define WK_CLUSTER_BLOCKS 8
#define WK_CLUSTER_THREADS 1024
#define WK_CLUSTER_UNROLL 4
#define WK_TILES_THREADS 256
#define WK_TILES_VECTORS 8
/* Loads a thread of the tiles shape has in flight, by elements per vector. */
#define WK_TILES_IN_FLIGHT(vec_elems) ((vec_elems) <= 2 ? 4 : 8)
#define WK_TILES_GROUP 4096
#define WK_TILES_MAX_BLOCKS (1u << 17)
#define WK_TILES_MAX_GROUPS (WK_TILES_MAX_BLOCKS / WK_TILES_GROUP)
/* The tiles shape from 256 MiB of input, 512 MiB of 8-byte elements; never
 * for 1-byte elements, whose tiles streamed at half the read ceiling where
 * the deep shape did not (docs/dtypes.md). */
#define WK_TILES_FROM_BYTES(vec_elems)                                                                        \
    ((vec_elems) >= 16 ? ((size_t)1 << 62) : (size_t)((vec_elems) <= 2 ? 512 : 256) << 20)
#define WK_VECTOR_BYTES 16
#define WK_TILE_BYTES ((size_t)WK_TILES_THREADS * WK_TILES_VECTORS * WK_VECTOR_BYTES)
/* One tile a block while the device's datasheet memory rate asks each SM for
 * at most this many tiles a microsecond, WK_TILES_FAST_PER_BLOCK above it
 * (docs/reduce.md: the H100 asks 0.78 and reads fastest with one tile a
 * block; the H200 asks 1.11 and retires about 0.93 one-tile blocks). */
#define WK_TILES_SINGLE_MAX_RATE 0.85
#define WK_TILES_FAST_PER_BLOCK 4

typedef enum wk_reduce_shape {
    WK_SHAPE_WIDE = 0,
    WK_SHAPE_DEEP = 1,
    WK_SHAPE_TILES = 2,
    WK_SHAPE_CLUSTER = 3
} wk_reduce_shape;

typedef struct wk_reduce_plan {
    size_t head;       /* scalar elements before the first 16-byte boundary   */
    size_t nvec;       /* 16-byte vectors in the aligned body                 */
    size_t tail;       /* scalar elements after the body                      */
    unsigned vec_elems; /* elements per 16-byte vector                        */
    unsigned grid;     /* blocks in the launch                                */
    unsigned block;    /* threads per block                                   */
    unsigned tiles_per_block; /* tiles: consecutive tiles each block reads    */
    wk_reduce_shape shape;
} wk_reduce_plan;

/* Tiles each block of the tiles shape reads, at least, on a device with
 * sm_count SMs and memory of memory_khz over bus_bits (double data rate);
 * 1 where either is unknown (0). */
unsigned wk_tiles_per_block(int sm_count, int memory_khz, int bus_bits);

/* Plans a reduce of n elements of elem_size bytes starting at address addr
 * (which must be a multiple of elem_size) on a device with sm_count SMs,
 * which launches thread-block clusters when clusters_ok is nonzero and
 * whose tiles-shape blocks read at least tiles_per_block tiles each.
 * Returns 0 on success, -1 for bad arguments (inputs of 2^62 bytes or more
 * among them). */
int wk_plan_reduce_for(uintptr_t addr, size_t n, size_t elem_size, int sm_count, int clusters_ok,
                       unsigned tiles_per_block, wk_reduce_plan *plan);

/* The same on an sm_90 device whose tiles-shape blocks read one tile each
 * (the H100): for the CPU tests. A context's reduces are planned with its
 * own device's figures (wk_reduce_plan_of in api/tuning.h). */
int wk_plan_reduce(uintptr_t addr, size_t n, size_t elem_size, int sm_count,
                   wk_reduce_plan *plan);

/* Largest number of rounded operations between any input element and the
 * result under this plan: a float sum's error is at most depth * eps * sum|x|
 * (to first order), which the tests use as their tolerance. */
size_t wk_reduce_plan_depth(const wk_reduce_plan *plan);

/* Largest grid of the wide and deep shapes on a device with sm_count SMs. */
unsigned wk_reduce_max_grid(int sm_count);

/* Partial-result slots the workspace must hold for any plan: the tiles
 * shape's blocks and groups, or the other shapes' largest grid. */
size_t wk_reduce_partial_slots(int sm_count);

/* The tiles shape over the plan's body with at most `max_grid` blocks:
 * sets shape, block, grid and tiles_per_block. */
void wk_plan_reduce_tiles(wk_reduce_plan *plan, unsigned max_grid);

#ifdef __cplusplus
}
#endif

#endif
