/* The device-wide scan: one launch, one tile per block, tiles chained by
 * decoupled look-back (tile_status.cuh).
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

#include "carried_value.cuh"
#include "common/chained_launch.cuh"
#include "common/value.cuh"
#include "common/vector.cuh"
#include "launch.h"
#include "reduce/reducers.cuh"
#include "tile_io.cuh"
#include "tile_order.cuh"
#include "tile_stage.cuh"
#include "tile_status.cuh"

#include <cstring>
#include <type_traits>

namespace wk {
namespace scan {

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

/* A vector's outputs: `run` (what precedes the vector) folded through its
 * elements, each output taken before its element for an exclusive scan
 * and after it for an inclusive one. */
template <bool Exclusive, class C, class S, class Op>
__device__ inline vec<S> vector_outputs(const vec<S> &x, typename C::type run, Op op)
{
    vec<S> y;
#pragma unroll
    for (int e = 0; e < vec<S>::size; ++e) {
        const typename C::type next = op(run, C::enter(x.e[e]));
        y.e[e] = C::leave(Exclusive ? run : next);
        run = next;
    }
    return y;
}

/* `rounds` vectors per thread in registers; for staged tiles (plan.h)
 * `staged` more per thread, after all of those of the registers, in the
 * dynamic shared memory, warp w owning the w-th run of 32 * staged. The
 * block's scan then has two segments per warp: its register run, and
 * after every warp's register run, its staged run. */
template <class S, class Op, bool Exclusive, int Threads, int rounds, int MinBlocks, int staged = 0>
__global__ void __launch_bounds__(Threads, MinBlocks)
scan_kernel(tile_io<S> io, wk_value init, tile_slots slots)
{
    constexpr int threads = Threads, warps = Threads / 32, segments = staged > 0 ? 2 * warps : warps;
    static_assert(Threads % 32 == 0 && segments <= 32, "whole warps, whose segment totals one warp scans");
    constexpr size_t register_vecs = (size_t)threads * rounds, tile_vecs = register_vecs + (size_t)threads * staged;
    /* Only the deep register tiles (8 or more vectors per thread, all in
     * registers) carry f64 min and max as keys (carried_value.cuh); the
     * others keep the doubles. Staged kernels read their staged vectors
     * twice from shared memory and would convert each element there twice:
     * with keys the f64 max of 2^26 elements ran at 0.943-0.945 of CUB's
     * speed in 128 x (4 + 8) tiles against 0.958-0.959 without. The
     * 4-vector tiles of small inputs wait on latency, which the conversion
     * lengthens: in the benchmark the f64 max of 2^18 elements took
     * 6.74 µs with keys against 6.29 without. In the 128 x 16 tiles at
     * 2^22 keys gave 0.947-0.950 against 0.812-0.819 (docs/scan.md). */
    using C = typename std::conditional<(staged == 0 && rounds >= 8), carried<S, Op>, as_accumulator<S, Op>>::type;
    using P = typename C::type;
    const Op op;
    __shared__ unsigned long long s_tile, s_stamp, s_stage_barrier;
    __shared__ int s_stage_wait;
    __shared__ P s_warp[segments];
    __shared__ P s_lookback[lookback_windows * 32];
    extern __shared__ __align__(128) unsigned char s_staged[];
    const tile_stage<S> stage = {reinterpret_cast<vec<S> *>(s_staged), &s_stage_barrier, &s_stage_wait,
                                 (unsigned)(threads * staged)};

    /* Programmatic dependent launch (sm_90+): wait for the previous kernel
     * in the stream, its memory and the state words it left. */
    wait_for_previous_kernel();
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    const S fill = neutral<S>(op);
    const size_t lane_vec = (size_t)warp * (32 * rounds) + lane;
    vec<S> x[rounds];
    const unsigned long long tile =
        take_tile<(staged > 0)>(slots, sizeof(P) == 8, stage, io, tile_vecs, register_vecs, &s_tile, &s_stamp,
                                [&](size_t tile_first) { io.template load_lane<rounds>(tile_first + lane_vec, fill, x); });
    allow_next_kernel();

    /* Per round: the prefix of the warp's earlier rounds combined with the
     * prefix of the lanes before this one. */
    P before[rounds];
    /* Staged kernels keep these prefixes in shared memory through the
     * look-back: in registers they made the i32 kernels spill (docs/scan.md,
     * "Small changes after the staged tiles"). */
    __shared__ P s_before[staged > 0 ? rounds : 1][staged > 0 ? threads : 1];
    P carry = neutral<P>(op);
#pragma unroll
    for (int k = 0; k < rounds; ++k) {
        P inclusive = warp_inclusive_scan(vector_total<C>(x[k], op), op);
        before[k] = op(carry, shift_up_one(inclusive, op));
        if constexpr (staged > 0)
            s_before[k][threadIdx.x] = before[k];
        carry = op(carry, shfl(full_mask, inclusive, 31));
    }
    if (lane == 0)
        s_warp[warp] = carry;
    /* The staged run: only its total now; the second pass redoes its warp
     * scans rather than keep their prefixes in registers. */
    const size_t staged_first = (size_t)tile * tile_vecs + register_vecs;
    const unsigned staged_q0 = warp * (32 * staged) + lane;
    if constexpr (staged > 0) {
        stage.template ready<staged>(io, staged_first, staged_q0, fill);
        P staged_carry = neutral<P>(op);
#pragma unroll
        for (int k = 0; k < staged; ++k) {
            const P total = vector_total<C>(stage.data[staged_q0 + 32 * k], op);
            staged_carry = op(staged_carry, shfl(full_mask, warp_inclusive_scan(total, op), 31));
        }
        if (lane == 0)
            s_warp[warps + warp] = staged_carry;
    }
    __syncthreads();

    if (warp == 0) {
        P warp_total = lane < segments ? s_warp[lane] : neutral<P>(op);
        P inclusive = warp_inclusive_scan(warp_total, op);
        P aggregate = shfl(full_mask, inclusive, segments - 1);
        P warp_prefix = shift_up_one(inclusive, op);
        const status_of<P> ts = make_status<P>(slots, s_stamp);
        P tile_prefix;
        if (tile == 0) {
            tile_prefix = Exclusive ? C::enter(value_of<S>(init)) : neutral<P>(op);
            /* Published even when no tile follows: every call then writes
             * word 0 of its family, which the sweep clears only in the
             * other family. */
            if (lane == 0)
                ts.publish(0, FLAG_INCLUSIVE, op(tile_prefix, aggregate));
        } else {
            if (lane == 0)
                ts.publish(tile, FLAG_AGGREGATE, aggregate);
            tile_prefix = look_back(ts, tile, op, s_lookback);
            if (lane == 0)
                ts.publish(tile, FLAG_INCLUSIVE, op(tile_prefix, aggregate));
        }
        if (lane < segments)
            s_warp[lane] = op(tile_prefix, warp_prefix);
    }
    __syncthreads();

    const P warp_prefix = s_warp[warp];
    /* The tile's first vector, read again from shared memory rather than
     * kept in registers through the look-back (same reason). */
    const size_t out_first = (size_t)s_tile * tile_vecs;
#pragma unroll
    for (int k = 0; k < rounds; ++k) {
        const P run = op(warp_prefix, staged > 0 ? s_before[k][threadIdx.x] : before[k]);
        io.store(out_first + lane_vec + 32 * k, vector_outputs<Exclusive, C>(x[k], run, op));
    }
    if constexpr (staged > 0) {
        P run_carry = s_warp[warps + warp];
#pragma unroll
        for (int k = 0; k < staged; ++k) {
            const vec<S> xs = stage.data[staged_q0 + 32 * k];
            const P inclusive = warp_inclusive_scan(vector_total<C>(xs, op), op);
            const P run = op(run_carry, shift_up_one(inclusive, op));
            run_carry = op(run_carry, shfl(full_mask, inclusive, 31));
            io.store(out_first + register_vecs + staged_q0 + 32 * k, vector_outputs<Exclusive, C>(xs, run, op));
        }
    }
}

template <class S> using scan_kernel_ptr = void (*)(tile_io<S>, wk_value, tile_slots);

/* The kernel of one tile shape, inclusive or exclusive. */
template <class S, class Op, int Threads, int Rounds, int MinBlocks, int Staged = 0>
inline scan_kernel_ptr<S> shape_kernel(bool exclusive)
{
    return exclusive ? scan_kernel<S, Op, true, Threads, Rounds, MinBlocks, Staged>
                     : scan_kernel<S, Op, false, Threads, Rounds, MinBlocks, Staged>;
}

/* A staged tile shape (plan.h): Threads threads with 4 vectors each in
 * registers and Vectors - 4 in the dynamic shared memory. */
template <class S, class Op, int Threads, int Vectors, int MinBlocks>
inline cudaError_t launch_staged(const wk_scan_launch *l, const tile_io<S> &io)
{
    constexpr int in_registers = WK_SCAN_STAGED_REGISTER_VECTORS, in_shared = Vectors - in_registers;
    constexpr size_t shared_bytes = staged_shared_bytes(Threads, in_shared);
    scan_kernel_ptr<S> kernel = shape_kernel<S, Op, Threads, in_registers, MinBlocks, in_shared>(l->exclusive != 0);
    cudaError_t err = allow_staged_shared(kernel, shared_bytes);
    if (err != cudaSuccess)
        return err;
    return launch_chained(kernel, (unsigned)l->plan.tiles, l->plan.block, shared_bytes, l->stream,
                          l->overlap_launch != 0, io, l->init, l->slots);
}

/* Launches the kernel of the plan's tile shape (plan.h): one shape for
 * 2-byte elements, four each for 4-byte and 8-byte ones (the f64 min and
 * max with their own staged shape). A plan of a shape the op does not
 * take gets cudaErrorInvalidValue. */
template <class S, class Op> inline cudaError_t launch_scanner(const wk_scan_launch *l)
{
    static_assert(sizeof(typename carried<S, Op>::type) <= 8, "value slots are 8 bytes");
    tile_io<S> io;
    io.in = reinterpret_cast<const S *>(reinterpret_cast<uintptr_t>(l->in) - l->plan.offset * sizeof(S));
    io.out = reinterpret_cast<S *>(reinterpret_cast<uintptr_t>(l->out) - l->plan.offset * sizeof(S));
    io.first = l->plan.offset;
    io.end = l->plan.offset + l->plan.n;
    io.vector_stores = l->plan.vector_stores != 0;
    io.in_place = l->in == l->out;
    constexpr int threads = WK_SCAN_THREADS, small = WK_SCAN_SMALL_VECTORS;
    const bool ex = l->exclusive != 0;
    const unsigned block = l->plan.block, vectors = l->plan.vectors;
    scan_kernel_ptr<S> kernel;
    if constexpr (sizeof(S) == 8) {
        /* The f64 min and max take their own staged shape (plan.h) and
         * plan no 128-thread staged tiles, so none are built for them. */
        constexpr bool f64_compare =
            std::is_same<S, double>::value && (std::is_same<Op, min>::value || std::is_same<Op, max>::value);
        if (vectors == WK_SCAN_WIDE_STAGED_VECTORS) {
            if constexpr (f64_compare)
                return block == WK_SCAN_WIDE_COMPARE_THREADS
                           ? launch_staged<S, Op, WK_SCAN_WIDE_COMPARE_THREADS, WK_SCAN_WIDE_STAGED_VECTORS,
                                           WK_SCAN_WIDE_COMPARE_MIN_BLOCKS>(l, io)
                           : cudaErrorInvalidValue;
            else
                return block == WK_SCAN_WIDE_THREADS
                           ? launch_staged<S, Op, WK_SCAN_WIDE_THREADS, WK_SCAN_WIDE_STAGED_VECTORS,
                                           WK_SCAN_WIDE_STAGED_MIN_BLOCKS>(l, io)
                           : cudaErrorInvalidValue;
        }
        if (block == WK_SCAN_NARROW_THREADS)
            kernel = shape_kernel<S, Op, WK_SCAN_NARROW_THREADS, small, WK_SCAN_NARROW_MIN_BLOCKS>(ex);
        else if (vectors == small)
            kernel = shape_kernel<S, Op, threads, small, 1>(ex);
        else
            kernel = shape_kernel<S, Op, WK_SCAN_WIDE_THREADS, WK_SCAN_WIDE_VECTORS, WK_SCAN_WIDE_MIN_BLOCKS>(ex);
    } else if constexpr (sizeof(S) == 4) {
        if (vectors == WK_SCAN_STAGED_VECTORS)
            return launch_staged<S, Op, threads, WK_SCAN_STAGED_VECTORS, WK_SCAN_STAGED_MIN_BLOCKS>(l, io);
        if (block == WK_SCAN_MID_THREADS)
            return launch_staged<S, Op, WK_SCAN_MID_THREADS, WK_SCAN_MID_VECTORS, WK_SCAN_MID_MIN_BLOCKS>(l, io);
        if (vectors == small)
            kernel = shape_kernel<S, Op, threads, small, 1>(ex);
        else
            kernel = shape_kernel<S, Op, threads, WK_SCAN_LARGE_VECTORS, WK_SCAN_LARGE_MIN_BLOCKS>(ex);
    } else {
        kernel = shape_kernel<S, Op, threads, small, 1>(ex);
    }
    return launch_chained(kernel, (unsigned)l->plan.tiles, l->plan.block, 0, l->stream, l->overlap_launch != 0, io,
                          l->init, l->slots);
}

/* Picks the kernel for an op; bitwise ops exist for integer types only. */
template <class S> inline cudaError_t launch_for_op(const wk_scan_launch *l)
{
    switch (l->op) {
    case WK_SUM: return launch_scanner<S, sum>(l);
    case WK_MIN: return launch_scanner<S, min>(l);
    case WK_MAX: return launch_scanner<S, max>(l);
    case WK_AND:
    case WK_OR:
    case WK_XOR:
        if constexpr (std::is_integral<S>::value) {
            if (l->op == WK_AND)
                return launch_scanner<S, bit_and>(l);
            if (l->op == WK_OR)
                return launch_scanner<S, bit_or>(l);
            return launch_scanner<S, bit_xor>(l);
        }
        break;
    default: break;
    }
    return cudaErrorInvalidValue;
}

} // namespace scan
} // namespace wk

/* Defines the C launcher of one dtype, e.g. wk_scan_launch_f32. */
#define WK_DEFINE_SCAN_LAUNCHER(name, storage_type)                          \
    extern "C" cudaError_t wk_scan_launch_##name(const wk_scan_launch *l)    \
    {                                                                        \
        return wk::scan::launch_for_op<storage_type>(l);                     \
    }

#endif
