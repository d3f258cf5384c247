/* Launch planning for the device-wide scan: which named tile shape an
 * input takes, and the rounding depth of each output. Pure C, so CPU
 * tests can check it. The tiles themselves are the shared tile plan
 * (tiles/plan.h). Why each shape is where it is: docs/scan.md. */
#ifndef WARPKIT_SCAN_PLAN_H
#define WARPKIT_SCAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "tiles/plan.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scan's launch shapes; wk_scan_shapes gives each one's numbers, and
 * the launcher (scan_launcher.cuh) runs the kernel of each by name. */
typedef enum wk_scan_shape {
    WK_SCAN_SHAPE_SMALL = 0,       /* chained 512 x 4 (32 KiB tiles): below 16 MiB; 2-byte elements always   */
    WK_SCAN_SHAPE_NARROW,          /* chained 256 x 4, 2 blocks per SM: 8-byte elements below 1 MiB,
                                      widening scans below 16 MiB of output                                  */
    WK_SCAN_SHAPE_LARGE,           /* chained 512 x 8, 2 blocks per SM: 4-byte elements from 16 MiB, no sm_90 */
    WK_SCAN_SHAPE_WIDE,            /* chained 128 x 16, 4 blocks per SM: 8-byte elements, likewise           */
    WK_SCAN_SHAPE_PIPELINED,       /* pipelined 512 x 8 (64 KiB tiles): 16 MiB to 256 MiB on sm_90           */
    WK_SCAN_SHAPE_PIPELINED_WIDE,  /* pipelined 768 x 6 (72 KiB tiles): from 256 MiB on sm_90                */
    WK_SCAN_SHAPE_COUNT
} wk_scan_shape;

extern const wk_tile_shape wk_scan_shapes[WK_SCAN_SHAPE_COUNT];

/* The shapes' numbers, which the table and the launcher's templates share.
 * Small tiles spread a small input over more SMs; from 16 MiB larger tiles
 * shorten the chain of prefixes. 2-byte elements keep the small tiles: their
 * larger tiles spill registers. */
#define WK_SCAN_THREADS 512
#define WK_SCAN_SMALL_VECTORS 4
#define WK_SCAN_LARGE_VECTORS 8
#define WK_SCAN_LARGE_MIN_BLOCKS 2
#define WK_SCAN_WIDE_THREADS 128
#define WK_SCAN_WIDE_VECTORS 16
#define WK_SCAN_WIDE_MIN_BLOCKS 4
#define WK_SCAN_LARGE_FROM_BYTES ((size_t)16 << 20)

/* Below 1 MiB, 8-byte elements take narrow tiles: twice the SMs busy. */
#define WK_SCAN_NARROW_THREADS 256
#define WK_SCAN_NARROW_MIN_BLOCKS 2
#define WK_SCAN_NARROW_BELOW_BYTES ((size_t)1 << 20)
/* A widening scan writes more than it reads (9 bytes an element for bool
 * into i64): below 16 MiB of output it takes the narrow tiles too, which
 * spread the writes over more SMs. */
#define WK_SCAN_WIDENING_NARROW_BELOW_BYTES ((size_t)16 << 20)

/* Pipelined tiles (sm_90 and later; scan/pipelined_kernel.cuh): persistent
 * blocks, one per SM, keep three tiles in shared memory and look back in a
 * warp of their own; `threads` counts the compute threads only. Devices
 * without bulk copies or with too little shared memory per block keep the
 * large and wide chained tiles. */
#define WK_SCAN_PIPELINED_FROM_BYTES WK_SCAN_LARGE_FROM_BYTES
#define WK_SCAN_PIPELINED_THREADS 512
#define WK_SCAN_PIPELINED_VECTORS 8
#define WK_SCAN_PIPELINED_WIDE_FROM_BYTES ((size_t)256 << 20)
#define WK_SCAN_PIPELINED_WIDE_THREADS 768
#define WK_SCAN_PIPELINED_WIDE_VECTORS 6
/* Shared memory a pipelined block needs at most: three tiles of the wide
 * shape and the kernel's own arrays (pipelined_kernel.cuh checks that they
 * fit the allowance). */
#define WK_SCAN_PIPELINED_STATIC_BYTES ((size_t)8 << 10)
#define WK_SCAN_PIPELINED_SHARED_BYTES                                                                       \
    ((size_t)3 * WK_SCAN_PIPELINED_WIDE_THREADS * WK_SCAN_PIPELINED_WIDE_VECTORS * WK_TILE_VECTOR_BYTES +    \
     WK_SCAN_PIPELINED_STATIC_BYTES)

/* Most tiles one call may have (2^29 tiles: 32 TiB of input in 64 KiB tiles). */
#define WK_SCAN_MAX_TILES ((size_t)1 << 29)

/* The shape a scan of n elements of elem_size bytes takes on a device that
 * runs the pipelined kernel when pipelined_ok is nonzero (wk_pipelined_ok
 * with WK_SCAN_PIPELINED_SHARED_BYTES). Every op takes the shape of its
 * element size. */
wk_scan_shape wk_scan_shape_for(size_t n, size_t elem_size, int pipelined_ok);

/* Plans a scan of n elements of elem_size bytes from in_addr to out_addr
 * (both multiples of elem_size) in the shape wk_scan_shape_for gives.
 * Returns 0 on success, -1 for bad arguments. */
int wk_plan_scan_for(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, int pipelined_ok,
                     wk_tile_plan *plan);

/* The shape of a sum scan of n elements of elem_size bytes kept and written
 * in out_size bytes (wk_inclusive_scan_to): the narrow tiles below
 * WK_SCAN_WIDENING_NARROW_BELOW_BYTES of output, else the chained shape of
 * the input's size (never a pipelined one); and its plan, as
 * wk_plan_scan_for's. */
wk_scan_shape wk_widening_scan_shape(size_t n, size_t elem_size, size_t out_size);
int wk_plan_widening_scan(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, size_t out_size,
                          wk_tile_plan *plan);

/* The same for sm_90 and later, the GPUs the library is built and measured
 * for: the plan of the library's scans there. */
int wk_plan_scan(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size,
                 wk_tile_plan *plan);

/* Most tiles a scan of n elements of elem_size bytes needs at any alignment
 * on any device, widening scans included: the status slots the workspace
 * must hold for it. */
size_t wk_scan_max_tiles(size_t n, size_t elem_size);

/* Largest number of rounded operations between any input element and output
 * i under this plan (output i of an inclusive scan; the exclusive scan's
 * output i + 1 has the same). A float prefix's error is at most
 * depth * u * sum_{j <= i} |x_j| to first order; the tests use it as their
 * tolerance. The exclusive scan's init adds one more operation. */
size_t wk_scan_plan_depth(const wk_tile_plan *plan, size_t i);

#ifdef __cplusplus
}
#endif

#endif
