/* Launch planning for select, partition, unique and where: which named
 * tile shape an input takes, in the shared tile plan (tiles/plan.h). Pure
 * C. Why each shape is where it is: docs/select.md. */
#ifndef WARPKIT_SELECT_PLAN_H
#define WARPKIT_SELECT_PLAN_H

#include "tiles/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The select's launch shapes; wk_select_shapes gives each one's numbers,
 * and the launcher (select_launcher.cuh) runs the kernel of each by name. */
typedef enum wk_select_shape {
    WK_SELECT_SHAPE_SMALL = 0,           /* chained 512 x 2, 3 blocks per SM: below 8 MiB; 2-byte always   */
    WK_SELECT_SHAPE_LARGE,               /* chained 512 x 8, 2 blocks per SM: from 8 MiB                    */
    WK_SELECT_SHAPE_STAGED_MID,          /* staged 256 x (4 + 8), 4 per SM: 4-byte, 256 MiB to 1 GiB, no sm_90 */
    WK_SELECT_SHAPE_STAGED,              /* staged 512 x (4 + 12), 2 per SM: 4-byte from 1 GiB, no sm_90    */
    WK_SELECT_SHAPE_PIPELINED,           /* pipelined 512 x 8: 4- and 8-byte from 16 MiB on sm_90           */
    WK_SELECT_SHAPE_PIPELINED_PARTITION, /* pipelined 512 x 4: the 4-byte partition, 16 to 128 MiB          */
    WK_SELECT_SHAPE_COUNT
} wk_select_shape;

extern const wk_tile_shape wk_select_shapes[WK_SELECT_SHAPE_COUNT];

/* The shapes' numbers, which the table and the launcher's templates share.
 * Small tiles spread a small input over more SMs; from 8 MiB large ones
 * shorten the chain of prefixes. 2-byte elements keep the small tiles: their
 * larger tiles spill registers. */
#define WK_SELECT_THREADS 512
#define WK_SELECT_SMALL_VECTORS 2
#define WK_SELECT_SMALL_MIN_BLOCKS 3
/* Tiles of at most this many rounds per thread (the small tiles) pack every
 * round in shared memory while warp 0 looks back, so only the copy-out
 * waits for the tile's prefix (select_kernel.cuh). */
#define WK_SELECT_PREPACK_ROUNDS 2
#define WK_SELECT_LARGE_VECTORS 8
#define WK_SELECT_LARGE_MIN_BLOCKS 2
#define WK_SELECT_LARGE_FROM_BYTES ((size_t)8 << 20)

/* Staged tiles (tiles/stage.cuh), 4-byte elements without the pipelined
 * kernel: 4 vectors per thread in registers and the rest brought into
 * shared memory by one bulk copy. 8-byte elements keep the large tiles. */
#define WK_SELECT_STAGED_REGISTER_VECTORS 4
#define WK_SELECT_STAGED_MIN_BLOCKS 2
#define WK_SELECT_STAGED_MID_THREADS 256
#define WK_SELECT_STAGED_MID_VECTORS 12
#define WK_SELECT_STAGED_MID_MIN_BLOCKS 4
#define WK_SELECT_STAGED_MID_FROM_BYTES ((size_t)256 << 20)
#define WK_SELECT_STAGED_VECTORS 16
#define WK_SELECT_STAGED_FROM_BYTES ((size_t)1 << 30)

/* Pipelined tiles (sm_90 and later; pipelined_select_kernel.cuh), as the
 * scan's: persistent blocks, one per SM, three tiles in shared memory and a
 * look-back warp of their own. They replace the large and staged tiles from
 * 16 MiB on such devices. */
#define WK_SELECT_PIPELINED_FROM_BYTES ((size_t)16 << 20)
#define WK_SELECT_PIPELINED_THREADS 512
#define WK_SELECT_PIPELINED_VECTORS 8
/* The 4-byte partition below 128 MiB takes shorter tiles held in registers,
 * so a block has more tiles under way where a call is only a few tiles per
 * SM. */
#define WK_SELECT_PIPELINED_PARTITION_VECTORS 4
#define WK_SELECT_PIPELINED_PARTITION_BELOW_BYTES ((size_t)128 << 20)
/* Shared memory a pipelined block needs at most: three tiles and the
 * kernel's own arrays, its pack buffers among them (the kernel checks that
 * they fit the allowance). */
#define WK_SELECT_PIPELINED_STATIC_BYTES ((size_t)16 << 10)
#define WK_SELECT_PIPELINED_SHARED_BYTES                                                                     \
    ((size_t)3 * WK_SELECT_PIPELINED_THREADS * WK_SELECT_PIPELINED_VECTORS * WK_TILE_VECTOR_BYTES +          \
     WK_SELECT_PIPELINED_STATIC_BYTES)

/* The shape a select of n elements of elem_size bytes takes (a partition
 * when `partition` is nonzero) on a device that runs the pipelined kernel
 * when pipelined_ok is nonzero (wk_pipelined_ok with
 * WK_SELECT_PIPELINED_SHARED_BYTES). */
wk_select_shape wk_select_shape_for(size_t n, size_t elem_size, int partition, int pipelined_ok);

/* Plans a select of n elements of elem_size bytes at in_addr in that shape.
 * Returns 0 on success, -1 for bad arguments. */
int wk_plan_select_for(uintptr_t in_addr, size_t n, size_t elem_size, int partition, int pipelined_ok,
                       wk_tile_plan *plan);

/* The same for sm_90 and later, the GPUs the library is built and measured
 * for. */
int wk_plan_select(uintptr_t in_addr, size_t n, size_t elem_size, int partition, wk_tile_plan *plan);

/* Most tiles a select of n elements of elem_size bytes needs at any
 * alignment on any device, in any mode. */
size_t wk_select_max_tiles(size_t n, size_t elem_size);

#ifdef __cplusplus
}
#endif

#endif
