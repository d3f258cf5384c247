/* The segmented scan of long rows on the device-wide scan's tiles: each row
 * is cut into tiles of its own, and the tiles of a row form one chain of
 * prefixes (decoupled look-back, tiles/status.cuh) that starts afresh at the
 * row's first tile. Every tile is one block's (chained kernel) or one turn
 * of a persistent block (pipelined kernel, sm_90), so a few very long rows
 * spread over the whole GPU, and each element is read once and written
 * once. */
#ifndef WARPKIT_SEGMENTED_ROW_TILES_CUH
#define WARPKIT_SEGMENTED_ROW_TILES_CUH

#include "segmented/launch.h"
#include "scan/pipelined_kernel.cuh"
#include "scan/scan_kernel.cuh"
#include "scan/widening.cuh"

#include <cstdint>

namespace wk {
namespace seg {

/* The tile map (tiles/io.cuh) of rows `stride` elements apart, each of
 * `size` elements cut into tiles_per_row tiles. Each row is seen from the
 * 16-byte boundary at or below its first element, as the whole input is by
 * the device-wide scan; a row that needs fewer vectors than the map gives
 * it (rows start at different offsets when the stride is not a whole number
 * of vectors) has an empty last tile, which publishes the identity and
 * writes nothing. */
template <class S> struct row_tiles {
    uintptr_t in, out;      /* the first row's first element      */
    size_t size, stride;    /* elements                           */
    unsigned tiles_per_row;
    bool vector_stores;     /* out has in's offset from a boundary */
    bool in_place;

    __device__ tiles::tile_io<S> view(unsigned long long tile) const
    {
        const size_t row = (unsigned)tile / tiles_per_row; /* tiles < 2^32 (the plan) */
        const uintptr_t row_in = in + row * stride * sizeof(S), row_out = out + row * stride * sizeof(S);
        const size_t offset = (row_in % 16) / sizeof(S);
        tiles::tile_io<S> io;
        io.in = reinterpret_cast<const S *>(row_in - offset * sizeof(S));
        io.out = reinterpret_cast<S *>(row_out - offset * sizeof(S));
        io.first = offset;
        io.end = offset + size;
        io.vector_stores = vector_stores;
        io.in_place = in_place;
        return io;
    }
    __device__ size_t first_vector(unsigned long long tile, size_t tile_vecs) const
    {
        return (size_t)((unsigned)tile % tiles_per_row) * tile_vecs;
    }
    __device__ bool chain_start(unsigned long long tile) const { return (unsigned)tile % tiles_per_row == 0; }
};

/* The row tiles of a widening sum scan: each row's view is the device-wide
 * widening scan's (scan/widening.cuh), its outputs of Out in the row of the
 * same index of out, rows `stride` outputs apart. Warps: the kernel's. */
template <class S, class Out, int Warps> struct widening_row_tiles : row_tiles<S> {
    __device__ scan::widening_io<S, Out, Warps> view(unsigned long long tile) const
    {
        const size_t row = (unsigned)tile / this->tiles_per_row;
        const uintptr_t row_in = this->in + row * this->stride * sizeof(S);
        const uintptr_t row_out = this->out + row * this->stride * sizeof(Out);
        const size_t offset = (row_in % 16) / sizeof(S);
        scan::widening_io<S, Out, Warps> io;
        io.in = reinterpret_cast<const S *>(row_in - offset * sizeof(S));
        io.out = nullptr;
        io.first = offset;
        io.end = offset + this->size;
        io.vector_stores = false;
        io.in_place = false;
        io.wide_out = reinterpret_cast<Out *>(row_out - offset * sizeof(Out));
        io.aligned_out = reinterpret_cast<uintptr_t>(io.wide_out) % 16 == 0;
        return io;
    }
};

/* Launches the widening sum scan of the plan's row tiles: the chained
 * kernel of the small tiles, as the device-wide widening scan's. */
template <class S, class Out> inline cudaError_t launch_widening_row_tiles(const wk_seg_launch *l, bool exclusive)
{
    using Map = widening_row_tiles<S, Out, WK_SCAN_THREADS / 32>;
    using C = scan::widened_sum<S, Out>;
    Map map;
    map.in = reinterpret_cast<uintptr_t>(l->in);
    map.out = reinterpret_cast<uintptr_t>(l->out);
    map.size = l->size;
    map.stride = l->stride;
    map.tiles_per_row = (unsigned)l->plan.pieces;
    map.vector_stores = false;
    map.in_place = false;
    const Out *no_prefix = nullptr;
    const unsigned long long tiles = (unsigned long long)l->count * l->plan.pieces;
    scan::scan_kernel_ptr<S, Map, Out> kernel =
        exclusive ? scan::scan_kernel<S, sum, true, WK_SCAN_THREADS, WK_SCAN_SMALL_VECTORS, 1, Map, C>
                  : scan::scan_kernel<S, sum, false, WK_SCAN_THREADS, WK_SCAN_SMALL_VECTORS, 1, Map, C>;
    return launch_chained(kernel, (unsigned)tiles, WK_SCAN_THREADS, 0, l->stream, l->overlap_launch != 0, map,
                          l->init, no_prefix, l->slots);
}

/* Launches the scan of the plan's row tiles: the pipelined kernel where the
 * plan says so, else the chained kernel of the device-wide scan's small
 * tiles (plan.h). */
template <class S, class Op> inline cudaError_t launch_row_tiles(const wk_seg_launch *l, bool exclusive)
{
    row_tiles<S> map;
    map.in = reinterpret_cast<uintptr_t>(l->in);
    map.out = reinterpret_cast<uintptr_t>(l->out);
    map.size = l->size;
    map.stride = l->stride;
    map.tiles_per_row = (unsigned)l->plan.pieces;
    map.vector_stores = (map.out - map.in) % 16 == 0;
    map.in_place = l->in == l->out;
    const S *no_prefix = nullptr;
    const bool pdl = l->overlap_launch != 0;
    const unsigned long long tiles = (unsigned long long)l->count * l->plan.pieces;
    if constexpr (sizeof(S) > 2) {
        if (l->plan.pipelined) {
            wk_scan_launch sl = {};
            sl.exclusive = exclusive;
            sl.init = l->init;
            sl.prefix = nullptr;
            sl.slots = l->slots;
            sl.grid = l->plan.grid;
            sl.overlap_launch = l->overlap_launch;
            sl.stream = l->stream;
            sl.plan.tiles = tiles;
            return scan::launch_pipelined<S, Op, WK_SCAN_PIPELINED_THREADS / 32, WK_SCAN_PIPELINED_VECTORS>(&sl, map);
        }
    }
    auto kernel = scan::shape_kernel<S, Op, WK_SCAN_THREADS, WK_SCAN_SMALL_VECTORS, 1, row_tiles<S>>(exclusive);
    return launch_chained(kernel, (unsigned)tiles, WK_SCAN_THREADS, 0, l->stream, pdl, map, l->init, no_prefix,
                          l->slots);
}

} // namespace seg
} // namespace wk

#endif
