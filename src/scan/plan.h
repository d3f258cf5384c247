/* Launch planning for the device-wide scan: tiles, alignment and the
 * rounding depth of each output. Pure C, so CPU tests can check it.
 *
 * The scan works on "virtual vectors": the input seen from the 16-byte
 * boundary at or below d_in, cut into 16-byte vectors. The first and last
 * vectors may hold elements outside [0, n); those lanes load the op's
 * identity and store nothing. A tile is plan.block threads times
 * plan.vectors vectors per thread; each block scans one tile. */
#ifndef WARPKIT_SCAN_PLAN_H
#define WARPKIT_SCAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tile shapes, chosen by input size and element size (and for the f64 min
 * and max by the op, below) from measurements on an H100 (docs/scan.md):
 * 512 threads with 4 vectors each (32 KiB tiles) below 16 MiB of input,
 * where more tiles spread a small input over more SMs (for 8-byte elements
 * below 1 MiB, narrow tiles: below); from 16 MiB on, 512 threads with 8
 * vectors each (64 KiB tiles, 2 blocks per SM) for 4-byte elements, and
 * 128 threads with 16 vectors each (32 KiB tiles, 4 blocks per SM) for
 * 8-byte elements; larger inputs take staged tiles (below). 2-byte
 * elements keep the 32 KiB tiles at every size: their 64 KiB kernels
 * spilled hundreds of bytes per thread at 64 registers, and an f16 sum of
 * 2^28 elements read and wrote 2007 GB/s with 32 KiB tiles against 1148
 * with 64 KiB ones. */
#define WK_SCAN_THREADS 512
#define WK_SCAN_SMALL_VECTORS 4
#define WK_SCAN_LARGE_VECTORS 8
#define WK_SCAN_LARGE_MIN_BLOCKS 2
#define WK_SCAN_WIDE_THREADS 128
#define WK_SCAN_WIDE_VECTORS 16
#define WK_SCAN_WIDE_MIN_BLOCKS 4
#define WK_SCAN_LARGE_FROM_BYTES ((size_t)16 << 20)

/* Below 1 MiB of input, 8-byte elements take 256 threads with 4 vectors
 * each (16 KiB tiles, 2 blocks per SM), which spread a small input over
 * twice the SMs: an f64 sum of 2^16 elements took 4.58 µs with them
 * against 5.04 µs with 32 KiB tiles; at 2^18 the 32 KiB tiles were the
 * faster (6.26 against 6.55 µs; docs/scan.md). */
#define WK_SCAN_NARROW_THREADS 256
#define WK_SCAN_NARROW_MIN_BLOCKS 2
#define WK_SCAN_NARROW_BELOW_BYTES ((size_t)1 << 20)

/* Staged tiles: each thread holds its first 4 vectors in registers, and
 * the rest of the tile is brought into shared memory by one bulk copy per
 * tile. A block then holds more bytes than its registers could, which
 * keeps more loads in flight while tiles wait on the chain (docs/scan.md,
 * "Staged tiles"). Three shapes by element size, and a fourth for the f64
 * min and max, each with 4 + 8 or 4 + 12 vectors per thread and 1024
 * threads per SM:
 *  - 4-byte elements from 1 GiB: 512 threads, 4 + 12 (128 KiB tiles,
 *    2 blocks per SM);
 *  - 4-byte elements from 256 MiB: 256 threads, 4 + 8 (48 KiB tiles,
 *    4 blocks per SM);
 *  - 8-byte elements from 128 MiB: 128 threads, 4 + 8 (24 KiB tiles,
 *    8 blocks per SM); the f64 min and max take 256 threads there
 *    (WK_SCAN_WIDE_COMPARE_THREADS, below).
 * Speedups over CUB in a harness timed as the benchmark is (inclusive
 * sums; docs/scan.md, "Staged tiles for every width"): f32 at 2^26
 * 1.068-1.071 with 256 x (4 + 8) against 1.034-1.038 with the large tiles
 * and 1.043-1.044 with 512 x (4 + 12), at 2^30 1.081-1.082 against
 * 1.095-1.096 with 512 x (4 + 12); f64 at 2^24 0.984-0.987 with
 * 128 x (4 + 8) against 0.934-0.936 with 128 x 16, at 2^26 1.018-1.024
 * against 0.938-0.941. */
#define WK_SCAN_STAGED_REGISTER_VECTORS 4
#define WK_SCAN_STAGED_VECTORS 16
#define WK_SCAN_STAGED_MIN_BLOCKS 2
#define WK_SCAN_STAGED_FROM_BYTES ((size_t)1 << 30)
#define WK_SCAN_MID_THREADS 256
#define WK_SCAN_MID_VECTORS 12
#define WK_SCAN_MID_MIN_BLOCKS 4
#define WK_SCAN_MID_FROM_BYTES ((size_t)256 << 20)
#define WK_SCAN_WIDE_STAGED_VECTORS 12
#define WK_SCAN_WIDE_STAGED_MIN_BLOCKS 8
#define WK_SCAN_WIDE_STAGED_FROM_BYTES ((size_t)128 << 20)
#define WK_SCAN_VECTOR_BYTES 16

/* f64 min and max take the 4-byte middle shape, 256 threads × (4 + 8)
 * vectors (48 KiB tiles, 4 blocks per SM), where other 8-byte scans take
 * 128 × (4 + 8): a double min or max is two compares and two selects per
 * application (scan/carried_value.cuh), and twice the tile carries twice
 * the bytes per step of the chain. Speedups over CUB in the shape sweep of
 * docs/scan.md ("Staged tiles for every width", and "f64 min and max in
 * 256-thread staged tiles" for 2^24), f64 max at 2^24 / 2^26 / 2^28:
 * 0.935-0.939 / 0.978-0.979 / 0.989-0.990 with 256 × (4 + 8), 0.914-0.916 /
 * 0.958-0.959 / 0.972-0.973 with 128 × (4 + 8). The f64 sums and the i64
 * scans run faster in the 128-thread tiles (same table). */
#define WK_SCAN_WIDE_COMPARE_THREADS WK_SCAN_MID_THREADS
#define WK_SCAN_WIDE_COMPARE_MIN_BLOCKS WK_SCAN_MID_MIN_BLOCKS

/* Most tiles one call may have (2^29 tiles: 32 TiB of input in 64 KiB tiles). */
#define WK_SCAN_MAX_TILES ((size_t)1 << 29)

/* Bytes of tile-status workspace per tile: a status word and a value of
 * up to 8 bytes, read and written together (scan/tile_status.cuh). */
#define WK_SCAN_SLOT_BYTES 16

typedef struct wk_scan_plan {
    size_t n;
    size_t offset;        /* elements from the 16-byte boundary below d_in to d_in */
    size_t tiles;         /* blocks in the launch, one tile each                   */
    unsigned vec_elems;   /* elements per 16-byte vector                           */
    unsigned tile_elems;  /* elements per tile                                     */
    unsigned block;       /* threads per block                                     */
    unsigned vectors;     /* 16-byte vectors per thread: the tile shape            */
    int vector_stores;    /* d_out has d_in's offset: whole vectors are stored     */
} wk_scan_plan;

/* Plans a scan of n elements of elem_size bytes from in_addr to out_addr
 * (both multiples of elem_size) in the tile shape of that element size:
 * what every op of that size takes but the f64 min and max
 * (wk_plan_scan_op). Returns 0 on success, -1 for bad arguments. */
int wk_plan_scan(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size,
                 wk_scan_plan *plan);

/* The same for a scan of dtype under op: the plan above, in the tile shape
 * of f64 min and max where theirs differs. The library's scans plan with
 * this; the element-size planner alone gives the most tiles any op of that
 * size can take (wk_scan_max_tiles). */
int wk_plan_scan_op(uintptr_t in_addr, uintptr_t out_addr, size_t n, wk_dtype dtype, wk_op op,
                    wk_scan_plan *plan);

/* The same for a given tile shape: `threads` threads (a multiple of 32, at
 * most 1024) with `vectors` 16-byte vectors each. The select plans with it
 * (select/plan.h). */
int wk_plan_tiles(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, unsigned threads,
                  unsigned vectors, wk_scan_plan *plan);

/* Most tiles a scan of n elements of elem_size bytes needs at any alignment:
 * the status slots the workspace must hold for it. */
size_t wk_scan_max_tiles(size_t n, size_t elem_size);

/* Largest number of rounded operations between any input element and output
 * i under this plan (output i of an inclusive scan; the exclusive scan's
 * output i + 1 has the same). A float prefix's error is at most
 * depth * u * sum_{j <= i} |x_j| to first order; the tests use it as their
 * tolerance. The exclusive scan's init adds one more operation. */
size_t wk_scan_plan_depth(const wk_scan_plan *plan, size_t i);

#ifdef __cplusplus
}
#endif

#endif
