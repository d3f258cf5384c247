/* The device-wide scan: one launch, one tile per block, tiles chained by
 * decoupled look-back (tile_status.cuh).
 *
 * A tile is WK_SCAN_THREADS threads times K (Rounds) 16-byte vectors.
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

#include "common/vector.cuh"
#include "launch.h"
#include "reduce/reducers.cuh"
#include "tile_status.cuh"

#include <cstring>
#include <type_traits>

namespace wk {
namespace scan {

using reduce::accumulator;
using reduce::from_acc;
using reduce::to_acc;

constexpr int threads = WK_SCAN_THREADS;
constexpr int warps = WK_SCAN_THREADS / 32;
static_assert(warps <= 32, "the warp totals are scanned by one warp");
static_assert(WK_SCAN_THREADS % 32 == 0, "whole warps");

/* Where a launch reads and writes, seen from the 16-byte boundary below
 * d_in: element e of the virtual array is d_in[e - offset]. */
template <class S> struct tile_io {
    const S *in;      /* d_in - offset; only [offset, offset + n) is touched */
    S *out;           /* d_out - offset, likewise                            */
    size_t first;     /* offset                                              */
    size_t end;       /* offset + n                                          */
    bool vector_stores;
    bool in_place;

    __device__ vec<S> load(size_t q, S fill) const
    {
        constexpr size_t V = vec<S>::size;
        size_t e0 = q * V;
        if (e0 >= first && e0 + V <= end) {
            const vec<S> *p = reinterpret_cast<const vec<S> *>(in + e0);
            return in_place ? load_vec_coherent(p) : load_vec(p);
        }
        vec<S> v;
#pragma unroll
        for (int e = 0; e < vec<S>::size; ++e)
            v.e[e] = (e0 + e >= first && e0 + e < end) ? in[e0 + e] : fill;
        return v;
    }

    __device__ void store(size_t q, const vec<S> &v) const
    {
        constexpr size_t V = vec<S>::size;
        size_t e0 = q * V;
        if (vector_stores && e0 >= first && e0 + V <= end) {
            store_vec(reinterpret_cast<vec<S> *>(out + e0), v);
            return;
        }
#pragma unroll
        for (int e = 0; e < vec<S>::size; ++e)
            if (e0 + e >= first && e0 + e < end)
                out[e0 + e] = v.e[e];
    }
};

template <class S> __device__ inline S value_of(const wk_value &v)
{
    S s;
    memcpy(&s, &v, sizeof s);
    return s;
}

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

/* Values of 4 bytes share a 64-bit word with their status; values of 8
 * bytes take two, one per half. */
template <class P> using status_of =
    typename std::conditional<sizeof(P) == 4, packed_status<P>, pair_status<P>>::type;

template <class P> __device__ inline status_of<P> make_status(unsigned long long *words, unsigned long long stamp)
{
    return status_of<P>{words, (unsigned)(stamp & 0x3fffffffu)};
}

/* Status words keep 30 bits of stamp, so a word left untouched for 2^30
 * calls could look current. Each call clears the words of one tile it does
 * not use, in turn; every word is then rewritten or cleared at least once
 * in `capacity` calls, and capacity stays below 2^30: at most
 * WK_SCAN_MAX_TILES (2^29) grown by half. */
template <class P>
__device__ inline void sweep_stale(unsigned long long *words, unsigned long long capacity, unsigned long long stamp,
                                   unsigned tiles)
{
    constexpr unsigned per_tile = sizeof(P) == 4 ? 1 : 2;
    unsigned long long k = stamp % capacity;
    if (k >= tiles)
        for (unsigned w = 0; w < per_tile; ++w)
            words[k * per_tile + w] = 0ull;
}

template <class S, class Op, bool Exclusive, int rounds, int MinBlocks>
__global__ void __launch_bounds__(WK_SCAN_THREADS, MinBlocks)
scan_kernel(tile_io<S> io, wk_value init, wk_scan_state *state, unsigned long long *words,
            unsigned long long capacity)
{
    using P = typename accumulator<S, Op>::type;
    constexpr int V = vec<S>::size;
    const Op op;
    __shared__ unsigned long long s_tile, s_stamp;
    __shared__ P s_warp[warps];
    __shared__ P s_lookback[lookback_windows * 32];

    /* Programmatic dependent launch (sm_90+): wait for the previous kernel
     * in the stream, its memory and the state words it left. */
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    /* The tile number comes from a counter, in the order blocks start; the
     * block that takes the last number knows every block has read the
     * stamp and taken its number, and resets both for the next call. */
    unsigned long long taken = 0;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> epoch(state->epoch);
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> next(state->next_tile);
        unsigned long long stamp = epoch.load(cuda::memory_order_relaxed) + 1;
        taken = next.fetch_add(1ull, cuda::memory_order_acq_rel);
        if (taken == gridDim.x - 1) {
            next.store(0ull, cuda::memory_order_relaxed);
            epoch.store(stamp, cuda::memory_order_relaxed);
            sweep_stale<P>(words, capacity, stamp, gridDim.x);
        }
        s_stamp = stamp;
    }
    /* Blocks almost always start in index order, so the tile is almost
     * always blockIdx.x: its loads go out while the counter answers, and
     * are redone in the rare other case. */
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    const S fill = neutral<S>(op);
    const size_t lane_vec = (size_t)warp * (32 * rounds) + lane;
    vec<S> x[rounds];
#pragma unroll
    for (int k = 0; k < rounds; ++k)
        x[k] = io.load((size_t)blockIdx.x * (threads * rounds) + lane_vec + 32 * k, fill);
    if (threadIdx.x == 0)
        s_tile = taken;
    __syncthreads();
    const unsigned long long tile = s_tile;
    const size_t first_vec = (size_t)tile * (threads * rounds) + lane_vec;
    if (tile != blockIdx.x) {
#pragma unroll
        for (int k = 0; k < rounds; ++k)
            x[k] = io.load(first_vec + 32 * k, fill);
    }
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif

    /* Per round: the prefix of the warp's earlier rounds combined with the
     * prefix of the lanes before this one. */
    P before[rounds];
    P carry = neutral<P>(op);
#pragma unroll
    for (int k = 0; k < rounds; ++k) {
        P total = neutral<P>(op);
#pragma unroll
        for (int e = 0; e < V; ++e)
            total = op(total, to_acc<P>(x[k].e[e]));
        P inclusive = warp_inclusive_scan(total, op);
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
        const status_of<P> ts = make_status<P>(words, s_stamp);
        P tile_prefix;
        if (tile == 0) {
            tile_prefix = Exclusive ? to_acc<P>(value_of<S>(init)) : neutral<P>(op);
            /* Published even when no tile follows: every call then writes
             * word 0, which the stale-word sweep never clears. */
            if (lane == 0)
                ts.publish(0, FLAG_INCLUSIVE, op(tile_prefix, aggregate));
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
#pragma unroll
    for (int k = 0; k < rounds; ++k) {
        P run = op(warp_prefix, before[k]);
        vec<S> y;
#pragma unroll
        for (int e = 0; e < V; ++e) {
            P next = op(run, to_acc<P>(x[k].e[e]));
            y.e[e] = from_acc<S>(Exclusive ? run : next);
            run = next;
        }
        io.store(first_vec + 32 * k, y);
    }

}

template <class S, class Op> inline cudaError_t launch_scanner(const wk_scan_launch *l)
{
    using P = typename accumulator<S, Op>::type;
    static_assert(sizeof(P) <= 8, "value slots are 8 bytes");
    tile_io<S> io;
    io.in = reinterpret_cast<const S *>(reinterpret_cast<uintptr_t>(l->in) - l->plan.offset * sizeof(S));
    io.out = reinterpret_cast<S *>(reinterpret_cast<uintptr_t>(l->out) - l->plan.offset * sizeof(S));
    io.first = l->plan.offset;
    io.end = l->plan.offset + l->plan.n;
    io.vector_stores = l->plan.vector_stores != 0;
    io.in_place = l->in == l->out;
    constexpr int small = WK_SCAN_SMALL_VECTORS, large = WK_SCAN_LARGE_VECTORS, blocks = WK_SCAN_LARGE_MIN_BLOCKS;
    auto kernel = l->plan.vectors == large ? (l->exclusive ? scan_kernel<S, Op, true, large, blocks>
                                                           : scan_kernel<S, Op, false, large, blocks>)
                                           : (l->exclusive ? scan_kernel<S, Op, true, small, 1>
                                                           : scan_kernel<S, Op, false, small, 1>);

    cudaLaunchAttribute overlap;
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)l->plan.tiles);
    config.blockDim = dim3(l->plan.block);
    config.stream = l->stream;
    config.attrs = &overlap;
    config.numAttrs = l->overlap_launch ? 1 : 0;
    unsigned long long *words = sizeof(P) == 4 ? l->narrow_words : l->wide_words;
    return cudaLaunchKernelEx(&config, kernel, io, l->init, l->state, words, l->capacity);
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
