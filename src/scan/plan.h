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

/* Tile shapes, chosen by input size and element size from measurements
 * on an H100 (docs/scan.md): 512 threads with 4 vectors each (32 KiB
 * tiles) below 16 MiB of input, where more tiles spread a small input over
 * more SMs (for 8-byte elements below 1 MiB, narrow tiles: below); from
 * 16 MiB on, pipelined tiles (below) on sm_90 and later, and elsewhere
 * 512 threads with 8 vectors each (64 KiB tiles, 2 blocks per SM) for
 * 4-byte elements and 128 threads with 16 vectors each (32 KiB tiles,
 * 4 blocks per SM) for 8-byte elements. 2-byte elements keep the 32 KiB
 * tiles at every size: their 64 KiB kernels spilled hundreds of bytes per
 * thread at 64 registers, and an f16 sum of 2^28 elements read and wrote
 * 2007 GB/s with 32 KiB tiles against 1148 with 64 KiB ones. */
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

/* Pipelined tiles (sm_90 and later; scan/pipelined_kernel.cuh): from
 * 16 MiB on, 4- and 8-byte elements go through persistent blocks, one per
 * SM, that keep three tiles in shared memory and do the look-back in a warp
 * of their own. plan.block is then the block's compute threads (the
 * look-back warp comes on top) and the tile is block x vectors: 512 x 8
 * vectors (64 KiB) below 256 MiB, 768 x 6 (72 KiB) from there on. Speedups
 * over CUB's inclusive sums in a harness timed as the benchmark is
 * (docs/scan.md, "Pipelined tiles"), 512 x 8 / 768 x 6, against the
 * chained kernels the library then had: f32 at 2^22 1.39 / 1.30 (1.30),
 * at 2^24 1.14 / 1.12 (1.08), at 2^26 1.11 / 1.12 (1.07), at 2^28
 * 1.11 / 1.12 (1.08); f64 at 2^22 1.08 / 1.03 (0.96), at 2^24 1.09 / 1.08
 * (0.99), at 2^26 1.09 / 1.10 (1.03). At 4 MiB (f32 2^20) the chained
 * small tiles were faster: 6.50 against 6.70 µs. Devices before sm_90
 * (no bulk copy, less shared memory per block), and later ones with less
 * shared memory per block than the kernel needs (below), keep the large
 * and wide chained tiles above. */
#define WK_SCAN_PIPELINED_FROM_BYTES WK_SCAN_LARGE_FROM_BYTES
#define WK_SCAN_PIPELINED_THREADS 512
#define WK_SCAN_PIPELINED_VECTORS 8
#define WK_SCAN_PIPELINED_WIDE_FROM_BYTES ((size_t)256 << 20)
#define WK_SCAN_PIPELINED_WIDE_THREADS 768
#define WK_SCAN_PIPELINED_WIDE_VECTORS 6
/* Shared memory a pipelined block needs at most: three tiles of the wide
 * shape and the kernel's own arrays (pipelined_kernel.cuh checks that they
 * fit the allowance). sm_90 GPUs let a block have 227 KiB; some later ones
 * (compute capability 12) only 99 KiB, and keep the chained tiles. */
#define WK_SCAN_PIPELINED_STATIC_BYTES ((size_t)8 << 10)
#define WK_SCAN_PIPELINED_SHARED_BYTES                                                                       \
    ((size_t)3 * WK_SCAN_PIPELINED_WIDE_THREADS * WK_SCAN_PIPELINED_WIDE_VECTORS * 16 + WK_SCAN_PIPELINED_STATIC_BYTES)
#define WK_SCAN_VECTOR_BYTES 16

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
    int pipelined;        /* tiles go through the pipelined kernel (above)         */
} wk_scan_plan;

/* Plans a scan of n elements of elem_size bytes from in_addr to out_addr
 * (both multiples of elem_size) in the tile shape of that element size, for
 * a device that runs the pipelined kernel (sm_90 and later) when
 * pipelined_ok is nonzero. Every op takes the shape of its element size.
 * Returns 0 on success, -1 for bad arguments. */
int wk_plan_scan_for(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, int pipelined_ok,
                     wk_scan_plan *plan);

/* The same for sm_90 and later, the GPUs the library is built and measured
 * for: the plan of the library's scans there. */
int wk_plan_scan(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size,
                 wk_scan_plan *plan);

/* The same for a given tile shape: `threads` threads (a multiple of 32, at
 * most 1024) with `vectors` 16-byte vectors each. The select plans with it
 * (select/plan.h). */
int wk_plan_tiles(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, unsigned threads,
                  unsigned vectors, wk_scan_plan *plan);

/* Most tiles a scan of n elements of elem_size bytes needs at any alignment
 * on any device: the status slots the workspace must hold for it. */
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
