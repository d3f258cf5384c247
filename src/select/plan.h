/* Launch planning for select, partition, unique and where: the scan's tiles
 * (scan/plan.h) in the select's own shapes. Pure C. */
#ifndef WARPKIT_SELECT_PLAN_H
#define WARPKIT_SELECT_PLAN_H

#include "scan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Measured on an H100 with f32 select-if (docs/select.md): below 8 MiB of
 * input, 512 threads with 2 vectors each (16 KiB tiles, 3 blocks per SM)
 * spread the input over more SMs; from 8 MiB on, 8 vectors each (64 KiB
 * tiles, 2 blocks per SM) shorten the chain of prefixes, as for the scan.
 * 2-byte elements keep the small tiles at every size: their large-tile
 * kernels spilled 300-850 bytes per thread at 64 registers. */
#define WK_SELECT_SMALL_VECTORS 2
#define WK_SELECT_SMALL_MIN_BLOCKS 3
/* Tiles of at most this many rounds per thread (the small tiles) pack
 * every round in shared memory while warp 0 looks back, and only copy them
 * out after it (select/select_kernel.cuh): the copy-out is then all that
 * waits for the tile's prefix. Benchmark runs on an H100, f32 and i32,
 * median warpkit µs against one round at a time (docs/select.md, "Packing
 * during the look-back"): partition 2^18 4.87 against 5.38, 2^20 8.40
 * against 8.90; select-if 2^20 7.20 against 8.12. Larger tiles would need
 * 64 KiB of pack buffers. */
#define WK_SELECT_PREPACK_ROUNDS 2
#define WK_SELECT_LARGE_VECTORS WK_SCAN_LARGE_VECTORS
#define WK_SELECT_LARGE_MIN_BLOCKS WK_SCAN_LARGE_MIN_BLOCKS
#define WK_SELECT_LARGE_FROM_BYTES ((size_t)8 << 20)

/* From 256 MiB on, 4-byte elements take staged tiles (scan/tile_stage.cuh):
 * 4 vectors per thread in registers and more brought into shared memory
 * by one bulk copy. Below 1 GiB 48 KiB tiles, 256 threads with 4 + 8
 * vectors and 4 blocks per SM; from 1 GiB on,
 * 512 threads with 4 + 12 (128 KiB tiles, 2 blocks per SM). f32 and i32
 * selects on an H100 (docs/select.md), speedups over CUB: from 1 GiB on
 * 0.99-1.17 with 4 + 12 against 0.87-1.00 with the large tiles; at
 * 256 MiB, f32 select-if kept 1 %, 50 %, 99 %: 0.93, 0.98, 1.00 with
 * 512 x (4 + 8), 0.94, 0.94, 0.95 with 512 x (4 + 12), 0.91, 0.93, 0.99
 * with large tiles (a harness); a later harness run had 256 x (4 + 8)
 * 0.3-1.3 % ahead of 512 x (4 + 8) for select-if and 3-5 % for partition
 * (docs/select.md, "Staged tiles of 256 threads"); at 64 MiB every staged
 * shape was slower. 8-byte elements keep the large tiles. */
#define WK_SELECT_STAGED_REGISTER_VECTORS 4
#define WK_SELECT_STAGED_MIN_BLOCKS 2
#define WK_SELECT_STAGED_MID_THREADS 256
#define WK_SELECT_STAGED_MID_VECTORS 12
#define WK_SELECT_STAGED_MID_MIN_BLOCKS 4
#define WK_SELECT_STAGED_MID_FROM_BYTES ((size_t)256 << 20)
#define WK_SELECT_STAGED_VECTORS 16
#define WK_SELECT_STAGED_FROM_BYTES ((size_t)1 << 30)

/* Pipelined tiles (sm_90 and later; select/pipelined_select_kernel.cuh):
 * from 16 MiB on, 4- and 8-byte elements go through persistent blocks, one
 * per SM, with three 64 KiB tiles (512 compute threads x 8 vectors) in
 * shared memory and the look-back in a warp of its own, as the scan's
 * pipelined tiles do (scan/plan.h). They replace the large tiles from
 * 16 MiB and the staged tiles above on such devices. Speedups over CUB on an H100, f32 and i32,
 * against the chained tiles' recorded run (docs/select.md): at 2^24
 * 0.92-1.17 (0.91-1.01), at 2^28 1.03-1.40 (0.97-1.13); f32 select-if at
 * 50 % kept, 2^28: 1.08 (0.98). Four to six smaller buffers were slower. */
#define WK_SELECT_PIPELINED_FROM_BYTES ((size_t)16 << 20)
#define WK_SELECT_PIPELINED_THREADS 512
#define WK_SELECT_PIPELINED_VECTORS 8
/* The 4-byte partition below 128 MiB takes 32 KiB tiles (512 x 4) and
 * holds each counted tile in registers (select/pipelined_select_kernel.cuh),
 * so a block has more, shorter tiles under way where a call is only a few
 * tiles per SM. Benchmark runs on an H100 (docs/select.md), speedups over
 * CUB against the 64 KiB tiles: 1.04-1.05 against 0.97-1.01 at 2^23,
 * 1.06-1.07 against 0.98-1.02 at 2^24, level at 2^25, 1.07-1.10 against
 * 1.10-1.12 at 2^26. The other modes measured as fast or faster with
 * 64 KiB tiles from 2^24 on. */
#define WK_SELECT_PIPELINED_PARTITION_VECTORS 4
#define WK_SELECT_PIPELINED_PARTITION_BELOW_BYTES ((size_t)128 << 20)
/* Shared memory a pipelined block needs at most: three tiles and the
 * kernel's own arrays, its pack buffers among them (the kernel checks that
 * they fit the allowance). */
#define WK_SELECT_PIPELINED_STATIC_BYTES ((size_t)16 << 10)
#define WK_SELECT_PIPELINED_SHARED_BYTES                                                                     \
    ((size_t)3 * WK_SELECT_PIPELINED_THREADS * WK_SELECT_PIPELINED_VECTORS * 16 + WK_SELECT_PIPELINED_STATIC_BYTES)

/* Plans a select of n elements of elem_size bytes at in_addr (a partition
 * when `partition` is nonzero), for a device that runs the pipelined kernel
 * (sm_90 and later, with enough shared memory per block) when pipelined_ok
 * is nonzero. Returns 0 on success, -1 for bad arguments. */
int wk_plan_select_for(uintptr_t in_addr, size_t n, size_t elem_size, int partition, int pipelined_ok,
                       wk_scan_plan *plan);

/* The same for sm_90 and later, the GPUs the library is built and measured
 * for. */
int wk_plan_select(uintptr_t in_addr, size_t n, size_t elem_size, int partition, wk_scan_plan *plan);

/* Most tiles a select of n elements of elem_size bytes needs at any
 * alignment on any device, in any mode. */
size_t wk_select_max_tiles(size_t n, size_t elem_size);

#ifdef __cplusplus
}
#endif

#endif
