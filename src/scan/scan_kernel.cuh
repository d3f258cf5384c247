/* The chained scan: one launch, one tile per block, tiles chained by
 * decoupled look-back (tiles/status.cuh). Inputs below 16 MiB take it, and
 * larger ones on GPUs before sm_90; the others take the pipelined kernel
 * (pipelined_kernel.cuh), which shares the tile layout and the folds below.
 *
 * A tile is Threads threads times K (rounds) 16-byte vectors (plan.h).
 * Warp w owns a contiguous run of 32 * K vectors of the tile and reads it in
 * K rounds of one vector per lane, so every load and store instruction
 * covers 512 contiguous bytes. No shared-memory transpose is needed: within
 * a round the lanes' vectors are in sequence order, and the rounds follow
 * one another. The scan of a tile is then:
 *  - each lane folds each of its vectors into a total;
 *  - per round, a warp scan of the totals gives each lane the prefix of the
 *    lanes before it, and a running carry adds the rounds before;
 *  - the block scans its warp totals: the last is the tile's aggregate;
 *  - warp 0 publishes the aggregate, looks back for the tile's prefix and
 *    publishes the inclusive prefix;
 *  - each lane folds its prefix through its elements again, storing each
 *    output as it goes (the data stay in registers from the load).
 * The input is seen from the 16-byte boundary at or below d_in (plan.h);
 * the few lanes whose vectors straddle either end of the data load and
 * store element by element, the rest whole vectors. */
#ifndef WARPKIT_SCAN_KERNEL_CUH
#define WARPKIT_SCAN_KERNEL_CUH

#include "scan/carried_value.cuh"
#include "common/chained_launch.cuh"
#include "common/value.cuh"
#include "common/vector.cuh"
#include "scan/launch.h"
#include "reduce/reducers.cuh"
#include "tiles/io.cuh"
#include "tiles/order.cuh"
#include "tiles/stage.cuh" /* take_tile */
#include "tiles/status.cuh"

#include <cstring>
#include <type_traits>

namespace wk {
namespace scan {

/* The tile engine (src/tiles) that the scan runs on. */
using tiles::FLAG_AGGREGATE;
using tiles::FLAG_INCLUSIVE;
using tiles::look_back;
using tiles::lookback_windows;
using tiles::make_status;
using tiles::status_of;
using tiles::take_tile;
using tiles::tile_io;
using tiles::tile_slots;
using tiles::tile_stage;

/* The value that leaves every other unchanged under op. For float sums
 * that is -0.0, not the 0 of wk::sum: -0.0 + x is x for every x, so an
 * exclusive scan's init of -0.0 and a first element of -0.0 come through
 * with their sign. */
template <class T, class Op> __device__ inline T neutral(Op op)
{
    if constexpr (std::is_same<Op, sum>::value && (std::is_same<T, float>::value || std::is_same<T, double>::value))
        return T(-0.0);
    else if constexpr (std::is_same<Op, sum>::value && std::is_same<T, __half>::value)
        return __ushort_as_half((unsigned short)0x8000u);
    else if constexpr (std::is_same<Op, sum>::value && std::is_same<T, __nv_bfloat16>::value)
        return __ushort_as_bfloat16((unsigned short)0x8000u);
    else
        return op.template identity<T>();
}

/* Lane 0 gets the neutral value, lane i the value of lane i - 1. */
template <class P, class Op> __device__ inline P shift_up_one(P inclusive, Op op)
{
    P below = shfl_up(full_mask, inclusive, 1);
    return lane_id() == 0 ? neutral<P>(op) : below;
}

/* A vector's elements folded in order: its total. */
template <class C, class S, class Op> __device__ inline typename C::type vector_total(const vec<S> &x, Op op)
{
    using P = typename C::type;
    P total = neutral<P>(op);
#pragma unroll
    for (int e = 0; e < vec<S>::size; ++e)
        total = op(total, C::enter(x.e[e]));
    return total;
}

/* The outputs of one input vector: a vector of S, or for a widening scan
 * (C::out wider than S) as many elements of C::out. */
template <class T, int N> struct run_of {
    T e[N];
};
template <class C, class S>
using outputs_t = typename std::conditional<std::is_same<typename C::out, S>::value, vec<S>,
                                            run_of<typename C::out, vec<S>::size>>::type;

/* A vector's outputs: `run` (what precedes the vector) folded through its
 * elements, each output taken before its element for an exclusive scan
 * and after it for an inclusive one. */
template <bool Exclusive, class C, class S, class Op>
__device__ inline outputs_t<C, S> vector_outputs(const vec<S> &x, typename C::type run, Op op)
{
    outputs_t<C, S> y;
#pragma unroll
    for (int e = 0; e < vec<S>::size; ++e) {
        const typename C::type next = op(run, C::enter(x.e[e]));
        y.e[e] = C::leave(Exclusive ? run : next);
        run = next;
    }
    return y;
}

/* What tile 0 starts from: the exclusive scan's init, combined with the
 * caller's prefix in device memory (the _from calls) where there is one;
 * else the op's identity. Read after the previous kernel has finished. */
template <class S, class C, bool Exclusive, class Op>
__device__ inline typename C::type start_prefix(wk_value init, const typename C::out *prefix, Op op)
{
    using P = typename C::type;
    using O = typename C::out;
    /* init and the prefix are values of the output's dtype: elements of S,
     * or for a widening scan of C::out. */
    auto enter = [](O x) {
        if constexpr (std::is_same<O, S>::value)
            return C::enter(x);
        else
            return C::enter_out(x);
    };
    if (!prefix)
        return Exclusive ? enter(value_of<O>(init)) : neutral<P>(op);
    const P before = enter(*prefix);
    return Exclusive ? op(enter(value_of<O>(init)), before) : before;
}

/* `rounds` vectors per thread, all in registers. Map: where each tile lies
 * (tiles/io.cuh); tiles that start a chain begin from start_prefix. C: what
 * is carried (carried_value.cuh), for a widening sum widened_sum. */
template <class S, class Op, bool Exclusive, int Threads, int rounds, int MinBlocks, class Map = tile_io<S>,
          class C = carried<S, Op>>
__global__ void __launch_bounds__(Threads, MinBlocks)
scan_kernel(Map io, wk_value init, const typename C::out *prefix, tile_slots slots)
{
    constexpr int threads = Threads, warps = Threads / 32;
    static_assert(Threads % 32 == 0 && warps <= 32, "whole warps, whose totals one warp scans");
    constexpr size_t tile_vecs = (size_t)threads * rounds;
    using P = typename C::type;
    const Op op;
    __shared__ unsigned long long s_tile, s_stamp;
    __shared__ P s_warp[warps];
    __shared__ P s_lookback[lookback_windows * 32];

    /* Programmatic dependent launch (sm_90+): wait for the previous kernel
     * in the stream, its memory and the state words it left. */
    wait_for_previous_kernel();
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    const S fill = neutral<S>(op);
    const size_t lane_vec = (size_t)warp * (32 * rounds) + lane;
    vec<S> x[rounds];
    const tile_stage<S> no_stage = {};
    const unsigned long long tile =
        take_tile<false>(slots, sizeof(P) == 8, no_stage, io.view(0), tile_vecs, tile_vecs, &s_tile, &s_stamp,
                         [&](size_t tile_first) {
                             const unsigned long long t = tile_first / tile_vecs;
                             io.view(t).template load_lane<rounds>(io.first_vector(t, tile_vecs) + lane_vec, fill, x);
                         });
    allow_next_kernel();

    /* Per round: the prefix of the warp's earlier rounds combined with the
     * prefix of the lanes before this one. */
    P before[rounds];
    P carry = neutral<P>(op);
#pragma unroll
    for (int k = 0; k < rounds; ++k) {
        P inclusive = warp_inclusive_scan(vector_total<C>(x[k], op), op);
        before[k] = op(carry, shift_up_one(inclusive, op));
        carry = op(carry, shfl(full_mask, inclusive, 31));
    }
    if (lane == 0)
        s_warp[warp] = carry;
    __syncthreads();

    if (warp == 0) {
        P warp_total = lane < warps ? s_warp[lane] : neutral<P>(op);
        P inclusive = warp_inclusive_scan(warp_total, op);
        P aggregate = shfl(full_mask, inclusive, warps - 1);
        P warp_prefix = shift_up_one(inclusive, op);
        const status_of<P> ts = make_status<P>(slots, s_stamp);
        P tile_prefix;
        if (io.chain_start(tile)) {
            tile_prefix = start_prefix<S, C, Exclusive>(init, prefix, op);
            /* Published even when no tile follows: every call then writes
             * word 0 of its family, which the sweep clears only in the
             * other family. */
            if (lane == 0)
                ts.publish(tile, FLAG_INCLUSIVE, op(tile_prefix, aggregate));
        } else {
            if (lane == 0)
                ts.publish(tile, FLAG_AGGREGATE, aggregate);
            tile_prefix = look_back(ts, tile, op, s_lookback);
            if (lane == 0)
                ts.publish(tile, FLAG_INCLUSIVE, op(tile_prefix, aggregate));
        }
        if (lane < warps)
            s_warp[lane] = op(tile_prefix, warp_prefix);
    }
    __syncthreads();

    const P warp_prefix = s_warp[warp];
    const size_t out_first = io.first_vector(tile, tile_vecs);
    const auto &out = io.view(tile);
#pragma unroll
    for (int k = 0; k < rounds; ++k)
        out.store(out_first + lane_vec + 32 * k, vector_outputs<Exclusive, C>(x[k], op(warp_prefix, before[k]), op));
}

template <class S, class Map = tile_io<S>, class Out = S>
using scan_kernel_ptr = void (*)(Map, wk_value, const Out *, tile_slots);

/* The kernel of one tile shape, inclusive or exclusive. */
template <class S, class Op, int Threads, int Rounds, int MinBlocks, class Map = tile_io<S>>
inline scan_kernel_ptr<S, Map> shape_kernel(bool exclusive)
{
    return exclusive ? scan_kernel<S, Op, true, Threads, Rounds, MinBlocks, Map>
                     : scan_kernel<S, Op, false, Threads, Rounds, MinBlocks, Map>;
}

} // namespace scan
} // namespace wk

#endif
