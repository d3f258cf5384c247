/* The tile pipeline of the persistent kernels (sm_90 and later; the scan's
 * pipelined_kernel.cuh and the select's pipelined_select_kernel.cuh): a
 * block claims tiles one after another and keeps three in shared memory,
 * each filled by one bulk copy (bulk_copy.cuh) or, for a tile that does not
 * lie wholly inside the data, by the block's compute threads.
 *
 * Buffer b holds the block's tiles k with k % 3 == b, in order. One thread
 * claims a tile for a buffer and starts its copy (pipeline_view::refill)
 * once every compute thread is done with the buffer's previous tile; the
 * compute threads wait for it (pipeline_view::wait_for). */
#ifndef WARPKIT_TILES_PIPELINE_CUH
#define WARPKIT_TILES_PIPELINE_CUH

#include "common/bulk_copy.cuh"
#include "common/chained_launch.cuh"
#include "common/vector.cuh"
#include "tiles/io.cuh"
#include "tiles/order.cuh"
#include "tiles/stage.cuh"

namespace wk {
namespace tiles {

/* Buffers per block: the tile being written, the tile being looked up, the
 * tile on its way in; or, in a select that holds its tiles in registers
 * (pipelined_select_kernel.cuh), three tiles on their way in. */
constexpr int pipeline_buffers = 3;

/* The named barriers of the pipelined kernels, by job: among the compute
 * warps, and per tile parity between them and the look-back warp (totals
 * in, prefix out). Two of each alternate, so that a barrier is never
 * reused before every thread has left its previous use. */
enum : unsigned { BAR_COMPUTE = 1, BAR_TOTALS = 2, BAR_PREFIX = 4 };

/* A block's pipeline state, in shared memory. Per buffer: its bulk-copy
 * barrier and how many copies it has had (their parity is the phase to
 * wait for), its tile (`tiles` or more: none), and the phase to wait for or
 * -1 when the compute threads load the tile themselves. */
struct tile_pipeline {
    unsigned long long copied[pipeline_buffers];
    unsigned long long tile[pipeline_buffers];
    unsigned long long stamp; /* the call's: every claim of a call gives the same */
    unsigned copies[pipeline_buffers];
    int wait[pipeline_buffers];
    bool claims_done;         /* the block has claimed past the last tile */
};

/* What a pipeline works on: its buffers (pipeline_buffers tiles of
 * tile_vecs vectors, in the dynamic shared memory), the input, and the
 * tiles the call has. */
template <class S> struct pipeline_view {
    tile_pipeline *state;
    vec<S> *buffers;
    unsigned tile_vecs;
    tile_slots slots;
    bool wide;                /* values of two status words per tile */
    unsigned long long tiles;

    __device__ vec<S> *data(int b) const { return buffers + (size_t)b * tile_vecs; }

    /* One thread (thread 0, or lane 0 of warp 1 in a select that holds its
     * tiles), with a barrier between it and the threads that read the
     * buffer's state: claims the block's next tile into buffer b and
     * starts its copy. After its first claim past the last tile a block
     * claims no more, so the call makes exactly tiles + gridDim.x claims.
     * Returns the call's stamp (0 when it claims nothing), which only
     * start() keeps: a later refill may run while the look-back warp still
     * reads it. */
    template <class Map> __device__ unsigned long long refill(int b, const Map &map) const
    {
        tile_pipeline &p = *state;
        unsigned long long stamp = 0;
        const unsigned long long t =
            p.claims_done ? tiles : claim_tile(slots, wide, tiles, tiles + gridDim.x, &stamp);
        p.tile[b] = t;
        if (t >= tiles) {
            p.claims_done = true;
            return stamp;
        }
        const size_t first = map.first_vector(t, tile_vecs);
        const tile_io<S> &io = map.view(t);
        if (bulk_copy_ok && io.whole(first, first + tile_vecs - 1)) {
            bulk_copy_start(data(b), io.in + first * vec<S>::size, tile_vecs * 16u, &p.copied[b]);
            p.wait[b] = (int)(p.copies[b]++ & 1u);
        } else {
            p.wait[b] = -1;
        }
        return stamp;
    }

    /* Thread 0 only, before the block's first barrier: sets the barriers up
     * and claims a tile for every buffer (the first claim is always made,
     * and gives the stamp). */
    template <class Map> __device__ void start(const Map &map) const
    {
        tile_pipeline &p = *state;
        p.claims_done = false;
        for (int b = 0; b < pipeline_buffers; ++b) {
            bulk_barrier_init(&p.copied[b]);
            p.copies[b] = 0;
        }
        p.stamp = refill(0, map);
        for (int b = 1; b < pipeline_buffers; ++b)
            refill(b, map);
    }

    /* The compute threads, each with its vectors q0, q0 + 32, ... of the
     * tile: waits until buffer b holds its tile, loading the vectors itself
     * where no bulk copy brings them (elements outside the data read as
     * `fill`). Only the thread's own vectors are sure to be there unless
     * the compute threads meet at a barrier after this. */
    template <int Vectors, class Map>
    __device__ const vec<S> *wait_for(int b, unsigned q0, const Map &map, S fill) const
    {
        tile_pipeline &p = *state;
        vec<S> *const d = data(b);
        const int phase = p.wait[b];
        if (phase >= 0) {
            bulk_copy_wait(&p.copied[b], (unsigned)phase);
        } else {
            const unsigned long long t = p.tile[b];
            const size_t first = map.first_vector(t, tile_vecs);
            const tile_io<S> &io = map.view(t);
#pragma unroll
            for (int v = 0; v < Vectors; ++v)
                d[q0 + 32 * v] = io.load(first + q0 + 32 * v, fill);
            /* The buffer's next fill may be a bulk copy. */
            bulk_copy_fence_writes();
        }
        return d;
    }
};

/* Launches a pipelined kernel of Warps compute warps with Vectors vectors
 * each, and its look-back warp, on `grid` blocks: its tile buffers in the
 * dynamic shared memory, more than the 48 KiB a kernel gets by default
 * (allow_staged_shared). */
template <int Warps, int Vectors, class... Params, class... Args>
inline cudaError_t launch_pipeline(void (*kernel)(Params...), unsigned grid, cudaStream_t stream, bool overlap,
                                   Args... args)
{
    constexpr size_t shared_bytes = (size_t)pipeline_buffers * Warps * 32 * Vectors * WK_TILE_VECTOR_BYTES;
    cudaError_t err = allow_staged_shared(kernel, shared_bytes);
    if (err != cudaSuccess)
        return err;
    return launch_chained(kernel, grid, Warps * 32 + 32, shared_bytes, stream, overlap, args...);
}

} // namespace tiles
} // namespace wk

#endif
