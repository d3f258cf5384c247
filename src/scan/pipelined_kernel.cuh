/* The pipelined scan (sm_90 and later; plan.h): persistent blocks that
 * stream tiles through shared memory, with the look-back in a warp of its
 * own.
 *
 * In the chained kernel (scan_kernel.cuh) a block holds one tile and waits
 * on the look-back with nothing else to do; the loads of the next tile
 * start only when a new block does. Here a block claims tiles one after
 * another and keeps three in shared memory: one being written out, one
 * whose prefix is being looked up, and one on its way in (a bulk copy,
 * bulk_copy.cuh). Its warps have two jobs:
 *  - the compute warps sum each tile as it lands and publish its aggregate
 *    at once; then, once the look-back warp has the previous tile's
 *    prefix, they scan that tile and write its outputs;
 *  - the look-back warp, one tile behind, scans the compute warps' totals
 *    of a tile, looks back for its prefix (tiles/status.cuh) and publishes
 *    the inclusive prefix.
 * A tile's aggregate is thus published as soon as its bytes are in and
 * summed, not after the block's previous look-back, and the loads go on
 * while the look-back waits, rather than only when the block gets to the
 * tile.
 *
 * Tiles keep the chained kernel's layout and fold order: warp w of the
 * compute warps owns a contiguous run of 32 * Vectors vectors of the tile.
 * A tile that does not lie wholly inside the data (the first when the
 * input starts inside a vector, and the last) is loaded by the compute
 * threads, each its own vectors. In place is safe: a tile is written only
 * after it has been read, by the block that read it. */
#ifndef WARPKIT_SCAN_PIPELINED_KERNEL_CUH
#define WARPKIT_SCAN_PIPELINED_KERNEL_CUH

#include "common/chained_launch.cuh"
#include "common/named_barrier.cuh"
#include "scan/scan_kernel.cuh"
#include "tiles/pipeline.cuh"

namespace wk {
namespace scan {

using tiles::BAR_COMPUTE;
using tiles::BAR_PREFIX;
using tiles::BAR_TOTALS;
using tiles::launch_pipeline;
using tiles::pipeline_buffers;
using tiles::pipeline_view;
using tiles::tile_pipeline;

template <class S, class Op, bool Exclusive, int Warps, int Vectors, class Map>
__global__ void __launch_bounds__(Warps * 32 + 32, 1)
pipelined_scan_kernel(Map io, wk_value init, const S *prefix, tile_slots slots, unsigned long long tiles)
{
    static_assert(Warps >= 1 && Warps <= 31, "compute warps and the look-back warp fit one block");
    constexpr int buffers = pipeline_buffers;
    constexpr unsigned compute_threads = Warps * 32, all_threads = compute_threads + 32;
    constexpr unsigned tile_vecs = compute_threads * Vectors;
    using C = carried<S, Op>;
    using P = typename C::type;
    const Op op;
    __shared__ tile_pipeline s_pipeline;
    /* Per tile parity: the compute warps' totals, and the prefixes of the
     * warps' runs that the look-back warp sends back. */
    __shared__ P s_total[2][Warps];
    __shared__ P s_prefix[2][Warps];
    __shared__ P s_lookback[lookback_windows * 32];
    extern __shared__ __align__(128) unsigned char s_data[];
    static_assert(sizeof s_pipeline + sizeof s_total + sizeof s_prefix + sizeof s_lookback <=
                      WK_SCAN_PIPELINED_STATIC_BYTES,
                  "the static shared memory fits the allowance of plan.h");
    static_assert((size_t)buffers * tile_vecs * WK_TILE_VECTOR_BYTES + WK_SCAN_PIPELINED_STATIC_BYTES <=
                      WK_SCAN_PIPELINED_SHARED_BYTES,
                  "the tile buffers fit what the library checks the device for");
    const pipeline_view<S> pipe = {&s_pipeline, reinterpret_cast<vec<S> *>(s_data), tile_vecs, slots,
                                   sizeof(P) == 8, tiles};

    wait_for_previous_kernel();
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    if (threadIdx.x == 0)
        pipe.start(io);
    __syncthreads();
    allow_next_kernel();
    const status_of<P> ts = make_status<P>(slots, s_pipeline.stamp);

    if (warp == Warps) {
        /* The look-back warp: tile k of the block once its totals are in. */
        for (unsigned k = 0;; ++k) {
            barrier_wait(BAR_TOTALS + (k & 1), all_threads);
            const unsigned long long tile = s_pipeline.tile[k % buffers];
            if (tile >= tiles)
                return;
            const P warp_total = lane < Warps ? s_total[k & 1][lane] : neutral<P>(op);
            const P inclusive = warp_inclusive_scan(warp_total, op);
            const P aggregate = shfl(full_mask, inclusive, Warps - 1);
            const P warp_prefix = shift_up_one(inclusive, op); /* a shuffle: every lane */
            P tile_prefix;
            if (io.chain_start(tile)) {
                tile_prefix = start_prefix<S, C, Exclusive>(init, prefix, op);
            } else {
                /* The compute warps published the aggregate before they
                 * arrived at the barrier this warp waited on, so the
                 * inclusive prefix lands after it in the tile's words:
                 * the two halves of an 8-byte status then never mix. */
                tile_prefix = look_back(ts, tile, op, s_lookback);
                if (lane == 0)
                    ts.publish(tile, FLAG_INCLUSIVE, op(tile_prefix, aggregate));
            }
            if (lane < Warps)
                s_prefix[k & 1][lane] = op(tile_prefix, warp_prefix);
            barrier_signal(BAR_PREFIX + (k & 1), all_threads);
        }
    }

    /* The compute warps: sum tile k, then write tile k - 1. */
    const S fill = neutral<S>(op);
    const unsigned q0 = warp * (32 * Vectors) + lane;
    for (unsigned k = 0;; ++k) {
        const int b = k % buffers;
        const unsigned long long tile = s_pipeline.tile[b];
        const bool have_tile = tile < tiles;
        if (have_tile) {
            const vec<S> *const data = pipe.template wait_for<Vectors>(b, q0, io, fill);
            P carry = neutral<P>(op);
#pragma unroll
            for (int v = 0; v < Vectors; ++v) {
                const P total = vector_total<C>(data[q0 + 32 * v], op);
                carry = op(carry, shfl(full_mask, warp_inclusive_scan(total, op), 31));
            }
            if (lane == 0)
                s_total[k & 1][warp] = carry;
            barrier_wait(BAR_COMPUTE, compute_threads);
            if (warp == 0) {
                /* The aggregate as the look-back warp will fold it. */
                const P warp_total = lane < Warps ? s_total[k & 1][lane] : neutral<P>(op);
                const P aggregate = shfl(full_mask, warp_inclusive_scan(warp_total, op), Warps - 1);
                if (lane == 0) {
                    /* Tile 0 publishes its inclusive prefix (no look-back)
                     * even when no tile follows: every call then writes
                     * word 0 of its family, which the sweep clears only in
                     * the other family. */
                    if (io.chain_start(tile))
                        ts.publish(tile, FLAG_INCLUSIVE,
                                   op(start_prefix<S, C, Exclusive>(init, prefix, op), aggregate));
                    else
                        ts.publish(tile, FLAG_AGGREGATE, aggregate);
                }
            }
        }
        /* Also when there is no tile k: the look-back warp then stops. */
        barrier_signal(BAR_TOTALS + (k & 1), all_threads);
        if (k > 0) {
            const unsigned j = k - 1;
            const int pb = j % buffers;
            barrier_wait(BAR_PREFIX + (j & 1), all_threads);
            const vec<S> *const data = pipe.data(pb);
            const unsigned long long out_tile = s_pipeline.tile[pb];
            const size_t first = io.first_vector(out_tile, tile_vecs);
            const tile_io<S> &out = io.view(out_tile);
            P run_carry = s_prefix[j & 1][warp];
#pragma unroll
            for (int v = 0; v < Vectors; ++v) {
                const vec<S> xs = data[q0 + 32 * v];
                const P inclusive = warp_inclusive_scan(vector_total<C>(xs, op), op);
                const P run = op(run_carry, shift_up_one(inclusive, op));
                run_carry = op(run_carry, shfl(full_mask, inclusive, 31));
                out.store(first + q0 + 32 * v, vector_outputs<Exclusive, C>(xs, run, op));
            }
            /* Every compute thread is done with the buffer: refill it. */
            barrier_wait(BAR_COMPUTE, compute_threads);
            if (threadIdx.x == 0)
                pipe.refill(pb, io);
        }
        if (!have_tile)
            return;
    }
}

/* Launches the pipelined kernel of Warps compute warps with Vectors vectors
 * each on l->grid blocks. */
template <class S, class Op, int Warps, int Vectors, class Map>
inline cudaError_t launch_pipelined(const wk_scan_launch *l, const Map &io)
{
    auto kernel = l->exclusive ? pipelined_scan_kernel<S, Op, true, Warps, Vectors, Map>
                               : pipelined_scan_kernel<S, Op, false, Warps, Vectors, Map>;
    return launch_pipeline<Warps, Vectors>(kernel, l->grid, l->stream, l->overlap_launch != 0, io, l->init,
                                           static_cast<const S *>(l->prefix), l->slots,
                                           (unsigned long long)l->plan.tiles);
}

} // namespace scan
} // namespace wk

#endif
