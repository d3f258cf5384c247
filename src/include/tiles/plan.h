/* The tile plan that scan and select share: how an input is cut into
 * 16-byte vectors and tiles. Pure C, so CPU tests can check it.
 *
 * A launch works on "virtual vectors": the input seen from the 16-byte
 * boundary at or below d_in, cut into 16-byte vectors. The first and last
 * vectors may hold elements outside [0, n); those lanes load a fill value
 * and store nothing. A tile is plan.block threads times plan.vectors
 * vectors per thread; each tile is one block's work. */
#ifndef WARPKIT_TILES_PLAN_H
#define WARPKIT_TILES_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WK_TILE_VECTOR_BYTES 16

/* One named launch shape of a planner (the scan's wk_scan_shape, the
 * select's wk_select_shape): the block and the vectors each thread takes.
 * `pipelined` shapes run the persistent kernels (tiles/pipeline.cuh). */
typedef struct wk_tile_shape {
    unsigned threads;    /* threads per block (compute threads when pipelined) */
    unsigned vectors;    /* 16-byte vectors per thread                          */
    int pipelined;
} wk_tile_shape;

typedef struct wk_tile_plan {
    size_t n;
    size_t offset;        /* elements from the 16-byte boundary below d_in to d_in */
    size_t tiles;         /* tiles of the launch                                    */
    unsigned vec_elems;   /* elements per 16-byte vector                           */
    unsigned tile_elems;  /* elements per tile                                     */
    unsigned block;       /* threads per block: the shape's                        */
    unsigned vectors;     /* 16-byte vectors per thread: the shape's               */
    int vector_stores;    /* d_out has d_in's offset: whole vectors are stored     */
    int pipelined;        /* the shape runs the pipelined kernel                   */
    int shape;            /* the planner's named shape, which the launcher runs    */
} wk_tile_plan;

/* Plans n elements of elem_size bytes from in_addr to out_addr (both
 * multiples of elem_size) in tiles of `shape`, whose name in its planner's
 * list is `shape_id`. Returns 0 on success, -1 for bad arguments (a shape
 * of 0 threads or vectors, or threads not a multiple of 32 up to 1024). */
int wk_plan_tiles(uintptr_t in_addr, uintptr_t out_addr, size_t n, size_t elem_size, const wk_tile_shape *shape,
                  int shape_id, wk_tile_plan *plan);

/* One of a planner's variants (devices, modes) for n elements at in_addr. */
typedef int (*wk_tile_planner)(uintptr_t in_addr, size_t n, size_t elem_size, int variant, wk_tile_plan *plan);

/* The most tiles that any of `variants` plans of n elements of elem_size
 * takes: at the worst start, the most elements before the first 16-byte
 * boundary. 0 for an element size that does not divide 16, or n = 0. */
size_t wk_tiles_most(size_t n, size_t elem_size, int variants, wk_tile_planner planner);

/* Whether a device runs the pipelined kernels: they need bulk copies
 * (compute capability 9 and later) and `needed` bytes of shared memory per
 * block (some later devices allow less than sm_90's 227 KiB). */
int wk_pipelined_ok(int cc_major, int shared_per_block, size_t needed);

#ifdef __cplusplus
}
#endif

#endif
