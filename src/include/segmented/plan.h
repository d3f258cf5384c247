/* Launch planning for the segmented reduce and scan: which kernel shape
 * takes segments of a given length, and the grid. Pure C, so CPU tests can
 * check it. docs/segmented.md explains the shapes. */
#ifndef WARPKIT_SEGMENTED_PLAN_H
#define WARPKIT_SEGMENTED_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WK_SEG_THREADS 256        /* every segmented kernel's block               */
#define WK_SEG_BLOCKS_PER_SM 4    /* the grid of the persistent shapes           */
#define WK_SEG_OFFSETS_THREADS 128 /* the offsets reduce's block: four warps     */
#define WK_SEG_OFFSETS_BLOCKS_PER_SM 6 /* and its blocks per SM (80 registers)  */
#define WK_SEG_TINY_ROWS 4        /* rows per thread per round, tiny shape       */
#define WK_SEG_UNROLL 4           /* 16-byte loads in flight per lane            */
#define WK_SEG_ONE_VECTOR_UNROLL 2 /* the same for rows of one vector            */
#define WK_SEG_GROUP_MAX_BYTES (64u << 10) /* longest row a group of lanes takes */
#define WK_SEG_PIECE_MIN_BYTES (64u << 10) /* offsets scan: shortest piece of a listed segment, at least */
#define WK_SEG_REDUCE_PIECE_MIN_BYTES (16u << 10) /* offsets reduce: the same */
#define WK_SEG_BLOCK_FROM_BYTES (16u << 10) /* rows: longer ones are cut into pieces */
#define WK_SEG_PIECE_BYTES (32u << 10)     /* rows: a piece, a block's work            */
#define WK_SEG_GRID_MAX (1u << 30)         /* blocks of one launch; the kernels loop past it */
#define WK_SEG_GROUP_ONCE_MAX 16           /* the reduce's largest group                  */
#define WK_SEG_JOINED_MAX_BYTES 512u      /* scans: longest rows a warp takes end to end */
#define WK_SEG_JOINED_RUN_BYTES (8u << 10) /* scans: bytes of rows a warp takes at a time */
#define WK_SEG_REPRO_LANE_BYTES 256u      /* reproducible sum: longest segment a lane sums alone */
#define WK_SEG_REPRO_LANE_ROW_BYTES 1024u /* and the longest row when there are many   */
#define WK_SEG_REPRO_PIECE_BYTES (32u << 10) /* and the shortest piece of a segment cut over warps */
#define WK_SEG_REPRO_LONG_BYTES (64u << 10)  /* offsets: a longer segment is cut into pieces */
#define WK_SEG_REPRO_EXACT_LEN 4096          /* longest f32 segment a warp first tries in a double */
#define WK_SEG_REPRO_JOINED_UNIT 128         /* f32 offsets segments a warp first tries joined */

/* The shapes, by segment length (rows and uniform layouts):
 *  - tiny:    a thread per row, rows of at most 32 bytes;
 *  - group:   `group` lanes per row (2 to 32, a warp at most), rows up to
 *             WK_SEG_BLOCK_FROM_BYTES, and up to WK_SEG_GROUP_MAX_BYTES when
 *             there are too many rows for the board to split;
 *  - block:   a block per piece of a row, `pieces` pieces per row; the last
 *             block of a row to finish combines its pieces;
 *  - tiles:   scans of longer rows: the device-wide scan's tiles, `pieces`
 *             per row, chained by look-back within each row (row_tiles.cuh);
 *  - joined:  scans of rows that lie end to end, up to
 *             WK_SEG_JOINED_MAX_BYTES: a warp per run of `pieces` whole
 *             rows, scanned as one stream with a segmented warp scan
 *             (scan_joined_rows.cuh);
 *  - offsets: the offsets layout, whose lengths only the device knows: a warp
 *             per 32 segments, each segment taken by one lane, by the whole
 *             warp, or split into pieces over many warps, by its length;
 *  - repro tiny: the reproducible sum of rows of at most 32 bytes, a thread
 *             each;
 *  - repro batches: the reproducible sum, a warp per `group` segments (1 to
 *             32), each taken by its lane alone up to `lane_len` elements,
 *             by the whole warp up to `long_len`, and longer ones (offsets)
 *             listed on the board and cut into pieces for a second kernel;
 *             rounded a lane each;
 *  - repro pieces: the reproducible sum of few long rows, a warp per piece
 *             of `piece_len` elements, `pieces` per row; the last warp of a
 *             row to finish combines its pieces' partials and rounds;
 *  - repro joined: the reproducible sum of short f32 offsets segments: a
 *             warp per 128 segments, folded at once in a double where they
 *             lie end to end and prove exact (the offsets reduce's joined
 *             batches), else batch by batch as repro batches does.
 * The reduce's grids cover the work once, a few kilobytes per block: blocks
 * that start in order read the input as a moving window, which streams
 * faster than a persistent grid (docs/segmented.md). */
typedef enum wk_seg_shape {
    WK_SEG_TINY = 0,
    WK_SEG_GROUP = 1,
    WK_SEG_BLOCK = 2,
    WK_SEG_OFFSETS = 3,
    WK_SEG_TILES = 4,
    WK_SEG_JOINED = 5,
    WK_SEG_REPRO_BATCHES = 6,
    WK_SEG_REPRO_PIECES = 7,
    WK_SEG_REPRO_TINY = 8,
    WK_SEG_REPRO_JOINED = 9
} wk_seg_shape;

typedef struct wk_seg_plan {
    wk_seg_shape shape;
    unsigned group;     /* group: lanes per row                        */
    unsigned grid;      /* blocks                                      */
    size_t pieces;      /* block: pieces per row (1: a block per row); tiles: tiles per row;
                           joined: rows per warp's run */
    size_t piece_len;   /* block: elements per piece; tiles: elements per tile */
    int pipelined;      /* tiles: the pipelined kernel, else the chained small tiles */
    size_t lane_len;    /* repro batches: longest segment a lane sums alone */
    size_t long_len;    /* repro batches of offsets: longer segments are cut into pieces of
                           piece_len elements (0: none is) */
    unsigned listed_grid; /* and the blocks of the kernel that sums those pieces */
} wk_seg_plan;

/* Segments the device-side board of the split shapes can follow at once
 * (listed offsets segments; split rows), and the pieces it keeps partials
 * for: about 3 MiB of each workspace. */
#define WK_SEG_LIST_CAPACITY 16384
#define WK_SEG_SPLIT_ROWS 32768
#define WK_SEG_PIECE_CAPACITY 131072

/* How the offsets shapes cut a call's long segments: one longer than
 * long_len elements is listed on the board and cut into at most `most`
 * pieces of at least piece_len elements (whole runs of 32), which warps
 * take one at a time. */
typedef struct wk_seg_cut {
    long long long_len;
    long long piece_len;
    long long most;
} wk_seg_cut;

/* The cut of the offsets reduce (scan = 0) or scan (scan = 1) over an input
 * of n elements of elem_size bytes: 64 KiB segments and pieces of 16 KiB
 * (reduce) or 64 KiB (scan), both longer on inputs too large for the board
 * to hold that many, so that segments that do not overlap always find room
 * and never fall to the warp that found them. */
wk_seg_cut wk_seg_offsets_cut(size_t n, size_t elem_size, int scan);

/* Plans the reduce of `count` rows of `size` elements of elem_size bytes
 * (uniform and rows layouts) on a device with sm_count SMs. Returns 0, or
 * -1 for bad arguments. */
int wk_plan_segmented_rows(size_t count, size_t size, size_t elem_size, int sm_count, wk_seg_plan *plan);

/* Plans the segmented scan of `count` rows of `size` elements, `stride`
 * apart, the first at in_addr: rows that lie end to end (stride = size) up
 * to WK_SEG_JOINED_MAX_BYTES joined, other short rows tiny and group as for
 * the reduce, and longer rows in tiles (pipelined where pipelined_ok, as
 * wk_pipelined_ok says for the device-wide scan). Returns 0, or -1 for bad
 * arguments or more tiles than a scan may have. */
int wk_plan_segmented_scan_rows(size_t count, size_t size, size_t stride, size_t elem_size, uintptr_t in_addr,
                                int sm_count, int pipelined_ok, wk_seg_plan *plan);

/* The reproducible sum's pieces the board holds partials for: 64 bytes
 * each (WK_REPRO_PARTIAL_BYTES) in the room of the 16-byte ones. */
#define WK_SEG_REPRO_PIECE_CAPACITY (WK_SEG_PIECE_CAPACITY / 4)

/* Plans the reproducible sum of `count` segments of elem_size bytes a
 * element: rows of `size` elements, or (offsets) segments anywhere in an
 * input of `size` elements. Batches of segments per warp, as many segments
 * a batch as leaves a batch for every warp the device holds at once; rows
 * too few for that and long enough are cut into pieces instead. A lane sums
 * a segment alone up to WK_SEG_REPRO_LANE_BYTES, and rows up to
 * WK_SEG_REPRO_LANE_ROW_BYTES when there are enough of them to fill the
 * device 32 a warp. Offsets segments over 64 KiB (more on inputs over
 * 1 GiB) are listed and cut. Short f32 offsets segments (4-byte elements,
 * a mean within WK_SEG_REPRO_LANE_BYTES) take the joined shape. Returns 0,
 * or -1 for bad arguments. */
int wk_plan_segmented_repro(size_t count, size_t size, size_t elem_size, int offsets, int sm_count,
                            wk_seg_plan *plan);

/* Tiles of a plan: count * pieces for the tiles shape, else 0. */
size_t wk_seg_plan_tiles(size_t count, const wk_seg_plan *plan);

/* The grid of the reduce's kernel for rows of `vectors` whole 16-byte
 * vectors (1 to 8; the tiny and group shapes' rows when they are aligned):
 * WK_SEG_UNROLL vectors per thread (WK_SEG_ONE_VECTOR_UNROLL for rows of
 * one), covering the rows once. */
unsigned wk_seg_vector_rows_grid(size_t count, unsigned vectors);

/* The persistent grid of the offsets shape, for `count` segments in an
 * input of n elements of elem_size bytes: of the scan's blocks
 * (WK_SEG_THREADS) when `scan`, else of the reduce's
 * (WK_SEG_OFFSETS_THREADS). */
unsigned wk_seg_offsets_grid(size_t count, size_t n, size_t elem_size, int sm_count, int scan);

/* The plan of the offsets shape with `grid` blocks of 32-lane groups; a
 * long segment's pieces are the board's to cut, not the plan's. */
wk_seg_plan wk_seg_offsets_plan(unsigned grid);

/* Largest number of rounded operations between an element of a segment of
 * `len` elements and its result, in any shape: a float sum's error is at
 * most that times the unit roundoff times the sum of |x|. */
size_t wk_seg_depth_bound(size_t len);

#ifdef __cplusplus
}
#endif

#endif
