/* The pipelined select, partition, unique and where (sm_90 and later;
 * plan.h): the scan's pipelined kernel (scan/pipelined_kernel.cuh) over
 * counts of kept elements.
 *
 * Persistent blocks stream tiles through three shared-memory buffers
 * (tiles/pipeline.cuh). The compute warps work on two tiles at once:
 *  - tile k as soon as it lands: the keep bits of each thread's vectors
 *    (kept until the tile is written), the warps' counts, and the tile's
 *    count, which warp 0 publishes at once;
 *  - tile k - 1, once the look-back warp has its prefix: each warp writes
 *    its kept elements round by round through its pack buffer
 *    (write_round, select_kernel.cuh), as the chained kernel does. The
 *    4-byte select-if and where, and the 4-byte partition in its short
 *    tiles, keep tile k - 1 in registers and refill
 *    its buffer as soon as it is counted (hold_tiles below); the other
 *    modes write from the buffer and refill it after.
 * The look-back warp, one tile behind, scans the warps' counts, looks back
 * for the count kept before the tile and publishes the sum; for the last
 * tile it writes the total count.
 *
 * Tiles keep the chained kernel's layout: warp w owns a contiguous run of
 * 32 * Vectors vectors. The flag bytes of wk_select_flagged and the element
 * before each warp's run (wk_unique) are read from global memory one tile
 * ahead, while the previous tile is being written.
 *
 * In place (select, flagged select, unique): a tile's outputs land at or
 * before its own elements, and it writes them only once every earlier tile
 * has published its count, which each does only after its whole tile is
 * in shared memory. The element before a warp's run, i, may meanwhile be
 * written by an earlier tile, but only with itself: that tile writes
 * output i from an input j >= i of its own, and its inputs end at i. */
#ifndef WARPKIT_SELECT_PIPELINED_SELECT_KERNEL_CUH
#define WARPKIT_SELECT_PIPELINED_SELECT_KERNEL_CUH

#include "common/chained_launch.cuh"
#include "common/named_barrier.cuh"
#include "tiles/pipeline.cuh"
#include "select/select_kernel.cuh"

namespace wk {
namespace select {

using tiles::BAR_COMPUTE;
using tiles::BAR_PREFIX;
using tiles::BAR_TOTALS;

/* C: the count type (unsigned, or unsigned long long from
 * WK_SELECT_WIDE_COUNTS_FROM elements on). */
template <class S, class C, int Mode, int Warps, int Vectors>
__global__ void __launch_bounds__(Warps * 32 + 32, 1)
pipelined_select_kernel(select_io<S> io, wk_predicate predicate, tile_slots slots, unsigned long long tiles)
{
    static_assert(Warps >= 1 && Warps <= 31, "compute warps and the look-back warp fit one block");
    constexpr int buffers = tiles::pipeline_buffers, V = vec<S>::size;
    constexpr unsigned compute_threads = Warps * 32, all_threads = compute_threads + 32;
    constexpr unsigned tile_vecs = compute_threads * Vectors, round_elems = 32 * V;
    static_assert(Vectors * V <= 32, "a thread's keep bits of one tile fit 32 bits");
    using Pk = pack_t<S, Mode>;
    /* Whether a tile's elements stay in registers until it is written, so
     * that its buffer takes the tile three ahead as soon as it is counted
     * rather than once it is written: one tile more on its way in. The
     * 4-byte select-if does, and where, which writes indices, not elements,
     * and the 4-byte partition in its tiles of 4 vectors (plan.h). With
     * 8 vectors the flagged select, unique and partition are short of
     * registers for two tiles (96 a thread at 17 warps an SM) and write from
     * the buffer, as does the 8-byte select-if. */
    constexpr bool hold_tiles =
        (sizeof(S) == 4 && (Mode == WK_SELECT_IF || (Mode == WK_PARTITION_IF && Vectors <= 4))) || Mode == WK_WHERE;
    __shared__ tiles::tile_pipeline s_pipeline;
    /* Per tile parity: the compute warps' counts, and the counts kept
     * before each warp's run that the look-back warp sends back. */
    __shared__ C s_total[2][Warps];
    __shared__ C s_prefix[2][Warps];
    __shared__ C s_lookback[lookback_windows * 32];
    /* Per tile parity: the block's tile k, for the look-back warp of a
     * kernel that holds tiles (its buffer may hold a later tile by then). */
    __shared__ unsigned long long s_tile[2];
    __shared__ Pk s_pack[Warps][round_elems];
    extern __shared__ __align__(128) unsigned char s_data[];
    static_assert(sizeof s_pipeline + sizeof s_tile + sizeof s_total + sizeof s_prefix + sizeof s_lookback +
                          sizeof s_pack <= WK_SELECT_PIPELINED_STATIC_BYTES,
                  "the static shared memory fits the allowance of plan.h");
    static_assert((size_t)buffers * tile_vecs * WK_TILE_VECTOR_BYTES + WK_SELECT_PIPELINED_STATIC_BYTES <=
                      WK_SELECT_PIPELINED_SHARED_BYTES,
                  "the tile buffers fit what the library checks the device for");
    const tiles::pipeline_view<S> pipe = {&s_pipeline, reinterpret_cast<vec<S> *>(s_data), tile_vecs, slots,
                                         sizeof(C) == 8, tiles};

    wait_for_previous_kernel();
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    if (threadIdx.x == 0)
        pipe.start(io.src);
    __syncthreads();
    allow_next_kernel();
    const auto ts = tiles::make_status<C>(slots, s_pipeline.stamp);

    if (warp == Warps) {
        /* The look-back warp: tile k of the block once its counts are in. */
        for (unsigned k = 0;; ++k) {
            barrier_wait(BAR_TOTALS + (k & 1), all_threads);
            const unsigned long long tile = hold_tiles ? s_tile[k & 1] : s_pipeline.tile[k % buffers];
            if (tile >= tiles)
                return;
            const C warp_total = lane < Warps ? s_total[k & 1][lane] : C(0);
            const C inclusive = warp_inclusive_scan(warp_total, sum{});
            const C aggregate = shfl(full_mask, inclusive, Warps - 1);
            C tile_prefix = 0;
            if (tile != 0) {
                /* Published after the compute warps' aggregate, which they
                 * put out before arriving at the barrier above. */
                tile_prefix = tiles::look_back(ts, tile, sum{}, s_lookback);
                if (lane == 0)
                    ts.publish(tile, FLAG_INCLUSIVE, tile_prefix + aggregate);
            }
            if (lane == 0 && tile == tiles - 1)
                *io.count = (unsigned long long)(tile_prefix + aggregate);
            if (lane < Warps)
                s_prefix[k & 1][lane] = tile_prefix + (inclusive - warp_total);
            barrier_signal(BAR_PREFIX + (k & 1), all_threads);
        }
    }

    /* The compute warps: keep bits and counts of tile k, then the outputs
     * of tile k - 1. */
    const unsigned q0 = warp * (32 * Vectors) + lane;
    flag_word<V> flags[Vectors];
    S before_run = S();
    /* What keep_bits needs besides the tile's elements, for the tile in
     * buffer b: the flags of the thread's vectors, or the element before
     * the warp's run. */
    auto prefetch = [&](int b) {
        const unsigned long long tile = s_pipeline.tile[b];
        if (tile >= tiles)
            return;
        const size_t first = (size_t)tile * tile_vecs + q0;
        if constexpr (Mode == WK_SELECT_FLAGGED) {
#pragma unroll
            for (int v = 0; v < Vectors; ++v)
                flags[v] = load_flags(io, first + 32 * v);
        }
        if constexpr (Mode == WK_UNIQUE)
            before_run = load_before_run(io, (first - lane) * V);
    };
    prefetch(0);
    /* Tile k - 1 as the write pass needs it: its keep bits (v * V + e for
     * element e of vector v), its first vector and, when the kernel holds
     * tiles (above), its elements. */
    vec<S> x_previous[Vectors];
    unsigned keep_previous = 0;
    size_t first_previous = 0;
    /* The thread that refills the buffers: when the kernel holds tiles, not
     * one of warp 0, which publishes the tile's count meanwhile. The other
     * modes refill from thread 0, which ran faster for them
     * (docs/log/select-experiments.md). */
    constexpr unsigned refill_thread = hold_tiles && Warps > 1 ? 32 : 0;
    for (unsigned k = 0;; ++k) {
        const int b = k % buffers;
        const unsigned long long tile = s_pipeline.tile[b];
        const bool have_tile = tile < tiles;
        if (hold_tiles && threadIdx.x == 0)
            s_tile[k & 1] = tile;
        unsigned keep = 0;
        vec<S> x[Vectors];
        const size_t first = (size_t)tile * tile_vecs + q0;
        if (have_tile) {
            const vec<S> *const data = pipe.template wait_for<Vectors>(b, q0, io.src, S());
#pragma unroll
            for (int v = 0; v < Vectors; ++v)
                x[v] = data[q0 + 32 * v];
            unsigned bits[Vectors];
            keep_bits<S, Mode>(io, x, flags, predicate, first * V, before_run, bits);
            unsigned kept = 0;
#pragma unroll
            for (int v = 0; v < Vectors; ++v) {
                keep |= bits[v] << (v * V);
                kept += __popc(bits[v]);
            }
            kept = __reduce_add_sync(full_mask, kept);
            if (lane == 0)
                s_total[k & 1][warp] = kept;
            /* Past this barrier every compute thread has tile k in its
             * registers. */
            barrier_wait(BAR_COMPUTE, compute_threads);
            if (warp == 0) {
                const C warp_total = lane < Warps ? s_total[k & 1][lane] : C(0);
                const C aggregate = shfl(full_mask, warp_inclusive_scan(warp_total, sum{}), Warps - 1);
                /* Tile 0 publishes its inclusive count (no look-back), as
                 * in the pipelined scan: every call writes word 0 of its
                 * family. */
                if (lane == 0)
                    ts.publish(tile, tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE, aggregate);
            }
            if (hold_tiles && threadIdx.x == refill_thread)
                pipe.refill(b, io.src);
            /* Tile k + 1's buffer was claimed before the barrier above. */
            prefetch((k + 1) % buffers);
        } else if (hold_tiles) {
            /* The arrive below orders s_tile's write before the look-back
             * warp's read, but compute-sanitizer's racecheck reported a
             * race when only the arrive followed it; every other
             * iteration has this barrier between the two. */
            barrier_wait(BAR_COMPUTE, compute_threads);
        }
        /* Also when there is no tile k: the look-back warp then stops. */
        barrier_signal(BAR_TOTALS + (k & 1), all_threads);
        if (k > 0) {
            const unsigned j = k - 1;
            const int pb = j % buffers;
            barrier_wait(BAR_PREFIX + (j & 1), all_threads);
            const vec<S> *const data = pipe.data(pb);
            C base = s_prefix[j & 1][warp];
            /* Unrolled: a loop here is markedly slower. */
#pragma unroll
            for (int v = 0; v < Vectors; ++v) {
                const unsigned bits = (keep_previous >> (v * V)) & ((1u << V) - 1u);
                base += write_round<S, C, Mode>(io, hold_tiles ? x_previous[v] : data[q0 + 32 * v], bits,
                                                (first_previous + 32 * v) * V, base, s_pack[warp]);
            }
            if (!hold_tiles) {
                /* Every compute thread is done with the buffer: refill it. */
                barrier_wait(BAR_COMPUTE, compute_threads);
                if (threadIdx.x == refill_thread)
                    pipe.refill(pb, io.src);
            }
        }
        if (!have_tile)
            return;
        if (hold_tiles) {
#pragma unroll
            for (int v = 0; v < Vectors; ++v)
                x_previous[v] = x[v];
        }
        keep_previous = keep;
        first_previous = first;
    }
}

/* Launches the pipelined kernel of Warps compute warps with Vectors vectors
 * each on l->grid blocks. */
template <class S, class C, int Mode, int Warps, int Vectors>
inline cudaError_t launch_pipelined_select(const wk_select_launch *l, const select_io<S> &io)
{
    return tiles::launch_pipeline<Warps, Vectors>(pipelined_select_kernel<S, C, Mode, Warps, Vectors>, l->grid,
                                                 l->stream, l->overlap_launch != 0, io, l->predicate, l->slots,
                                                 (unsigned long long)l->plan.tiles);
}

} // namespace select
} // namespace wk

#endif
