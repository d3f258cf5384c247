/* The device-wide select, partition, unique and where: one launch, one tile
 * per block, tiles chained by the scan's decoupled look-back
 * (tiles/status.cuh) over counts of kept elements.
 *
 * Tiles have the chained scan's layout (scan/scan_kernel.cuh): warp w owns
 * a contiguous run of 32 * K vectors and reads it in K rounds of one 16-byte
 * vector per lane. For each tile:
 *  - each lane marks the elements of each of its vectors that are kept, as
 *    a bit mask;
 *  - per round, one __ballot_sync per element position gives every lane the
 *    number of kept elements of the lanes below it (the population count of
 *    the lower lanes' votes, wk::warp_compact), and the round's count;
 *  - the block scans its warps' counts; warp 0 publishes the tile's count,
 *    looks back for the number kept before the tile and publishes the sum;
 *  - per round, each warp packs its kept elements in order into a shared
 *    pack buffer and copies them out with consecutive lanes, so that the
 *    global stores are contiguous whatever the selectivity. Small tiles
 *    (WK_SELECT_PREPACK_ROUNDS, plan.h) pack all their rounds while warp 0
 *    looks back, and only copy them out once the prefix is known.
 * Staged tiles (plan.h) hold most of the tile in shared memory
 * (tiles/stage.cuh) and go through the same steps for it.
 * wk_partition_if also packs the rejected elements from the far end of the
 * pack buffer and writes them backwards from the end of the output. The
 * last tile writes the total count. Counts are integers, so the look-back
 * folds as a tree and the output is the same on every run. */
#ifndef WARPKIT_SELECT_KERNEL_CUH
#define WARPKIT_SELECT_KERNEL_CUH

#include "common/chained_launch.cuh"
#include "common/vector.cuh"
#include "select/launch.h"
#include "select/plan.h"
#include "select/predicate.cuh"
#include "tiles/io.cuh"
#include "tiles/order.cuh"
#include "tiles/stage.cuh"
#include "tiles/status.cuh"

#include <cstdint>
#include <type_traits>

namespace wk {
namespace select {

using tiles::FLAG_AGGREGATE;
using tiles::FLAG_INCLUSIVE;
using tiles::lookback_windows;
using tiles::tile_io;
using tiles::tile_slots;

/* What a launch reads and writes. Element v of the virtual array (plan.h)
 * is d_in[v - first], and its flag d_flags[v - first]; outputs are packed
 * from d_out[0]. */
template <class S> struct select_io {
    tile_io<S> src;                 /* the input; its `out` is unused          */
    const unsigned char *flags;     /* d_flags - first (WK_SELECT_FLAGGED)     */
    void *out;
    unsigned long long *count;
    size_t n;
    const S *previous;           /* wk_unique_from: the element before the data, or null */
    const long long *index_base; /* wk_where_from: added to every index, or null */
};

/* What a mode writes: elements, or int64 indices for wk_where. */
template <class S, int Mode> using output_t = typename std::conditional<Mode == WK_WHERE, long long, S>::type;

/* The flag bytes of one vector's elements, one per byte; the width is the
 * vector's element count (16 for 1-byte elements). */
template <int V>
using flag_word = typename std::conditional<
    (V > 8), unsigned __int128, typename std::conditional<(V > 4), unsigned long long, unsigned>::type>::type;

/* Bit e set when element q * V + e is inside the data. */
template <int V> __device__ inline unsigned valid_bits(size_t e0, size_t first, size_t end)
{
    if (e0 >= first && e0 + V <= end)
        return (1u << V) - 1u;
    unsigned bits = 0;
#pragma unroll
    for (int e = 0; e < V; ++e)
        bits |= (unsigned)(e0 + e >= first && e0 + e < end) << e;
    return bits;
}

/* Flags of vector q, byte e for element q * V + e (0 outside the data).
 * Where the vector is whole and its flags aligned, one load reads them. */
template <class S> __device__ inline flag_word<vec<S>::size> load_flags(const select_io<S> &io, size_t q)
{
    constexpr int V = vec<S>::size;
    using W = flag_word<V>;
    const size_t e0 = q * V;
    const unsigned char *p = io.flags + e0;
    if (e0 >= io.src.first && e0 + V <= io.src.end && reinterpret_cast<uintptr_t>(p) % V == 0) {
        if constexpr (V == 2)
            return __ldg(reinterpret_cast<const unsigned short *>(p));
        else if constexpr (V == 4)
            return __ldg(reinterpret_cast<const unsigned *>(p));
        else if constexpr (V == 8)
            return __ldg(reinterpret_cast<const unsigned long long *>(p));
        else {
            const ulonglong2 w = __ldg(reinterpret_cast<const ulonglong2 *>(p));
            return (W)w.y << 64 | (W)w.x;
        }
    }
    W bytes = 0;
#pragma unroll
    for (int e = 0; e < V; ++e)
        if (e0 + e >= io.src.first && e0 + e < io.src.end)
            bytes |= (W)__ldg(p + e) << (8 * e);
    return bytes;
}

template <int V, class W> __device__ inline unsigned nonzero_bytes(W bytes)
{
    unsigned bits = 0;
#pragma unroll
    for (int e = 0; e < V; ++e)
        bits |= (unsigned)(((bytes >> (8 * e)) & 0xffu) != 0) << e;
    return bits;
}

/* wk_unique: bit e set when element e0 + e starts a run, i.e. it is the
 * first element or differs from the one before. Lane i gets the element
 * before its vector from lane i - 1, and lane 0 gets `before_round`: the
 * last element of the warp's previous round, or for the first round the
 * element read before the warp's run (load_before_run). */
template <class S>
__device__ inline unsigned run_heads(const select_io<S> &io, const vec<S> &x, size_t e0, S before_round)
{
    constexpr int V = vec<S>::size;
    S before = shfl_up(full_mask, x.e[V - 1], 1);
    if (lane_id() == 0)
        before = before_round;
    unsigned bits = 0;
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const S previous = e == 0 ? before : x.e[e - 1];
        bits |= (unsigned)(e0 + e == io.src.first || !same(x.e[e], previous)) << e;
    }
    /* The data's first element starts a run unless the caller gave the
     * element before it (wk_unique_from) and the two are equal: one vector
     * of the whole input takes this branch. */
    if (io.previous && e0 <= io.src.first && io.src.first < e0 + V) {
        const S given = *io.previous;
#pragma unroll
        for (int e = 0; e < V; ++e)
            if (e0 + e == io.src.first && same(x.e[e], given))
                bits &= ~(1u << e);
    }
    return bits;
}

/* The element before virtual index e0, where it is data (else a filler
 * that run_heads never compares). Each warp reads one, with its tile. */
template <class S> __device__ inline S load_before_run(const select_io<S> &io, size_t e0)
{
    return e0 > io.src.first && e0 - 1 < io.src.end ? io.src.in[e0 - 1] : S();
}

/* Elements of the data before virtual index v. */
__device__ inline size_t data_before(size_t v, size_t first, size_t end)
{
    return (v < first ? first : v > end ? end : v) - first;
}

/* What a warp packs in shared memory before it writes: the elements, or
 * for wk_where each kept element's place in the round (below 32 V), which
 * the copy-out widens to an int64 index. Four bytes rather than eight
 * leave room for two staged where blocks per SM; two for 1-byte elements,
 * whose rounds hold 512 of them. */
template <class S, int Mode>
using pack_t = typename std::conditional<
    Mode == WK_WHERE, typename std::conditional<sizeof(S) == 1, unsigned short, unsigned>::type, S>::type;

/* Packs one round of a warp into its `pack` buffer of 32 V entries: the
 * kept elements (bit e of `bits` for element e of the lane's vector x,
 * whose first element is virtual index e0) in order from the front, and
 * for a partition the round's rejected elements from the back, the last
 * one first. Called by the whole warp; returns the round's kept count.
 * store_round reads the buffer back after a __syncwarp or a barrier. */
template <class S, int Mode>
__device__ inline unsigned pack_round(const select_io<S> &io, const vec<S> &x, unsigned bits, size_t e0,
                                      pack_t<S, Mode> *pack)
{
    constexpr int V = vec<S>::size;
    constexpr unsigned round_elems = 32 * V;
    const unsigned lane = lane_id();
    unsigned below = 0, round_kept = 0;
#pragma unroll
    for (int e = 0; e < V; ++e) {
        unsigned count;
        below += warp_compact(((bits >> e) & 1u) != 0, &count);
        round_kept += count;
    }
    unsigned slot = below;
#pragma unroll
    for (int e = 0; e < V; ++e) {
        if ((bits >> e) & 1u) {
            if constexpr (Mode == WK_WHERE)
                pack[slot] = lane * V + e;
            else
                pack[slot] = x.e[e];
            ++slot;
        }
    }
    if constexpr (Mode == WK_PARTITION_IF) {
        /* The lane's rejected elements follow the round's data elements
         * before it, less the kept ones. A round wholly inside the data
         * needs no clamping to its ends. */
        const size_t v0 = e0 - (size_t)lane * V;
        unsigned rejected_slot, rejected;
        if (v0 >= io.src.first && v0 + round_elems <= io.src.end) {
            rejected_slot = lane * V - below;
            rejected = ~bits & ((1u << V) - 1u);
        } else {
            const size_t round_start = data_before(v0, io.src.first, io.src.end);
            rejected_slot = (unsigned)(data_before(e0, io.src.first, io.src.end) - round_start) - below;
            rejected = valid_bits<V>(e0, io.src.first, io.src.end) & ~bits;
        }
#pragma unroll
        for (int e = 0; e < V; ++e)
            if ((rejected >> e) & 1u)
                pack[round_elems - 1 - rejected_slot++] = x.e[e];
    }
    return round_kept;
}

/* Writes one packed round of a warp (pack_round): its `round_kept` kept
 * elements from output `base` on, and for a partition its rejected
 * elements backwards from the end of the output. lane 0's first element
 * is virtual index v0. Called by the whole warp. */
template <class S, class C, int Mode>
__device__ inline void store_round(const select_io<S> &io, size_t v0, C base, unsigned round_kept,
                                   const pack_t<S, Mode> *pack)
{
    using O = output_t<S, Mode>;
    constexpr int V = vec<S>::size;
    constexpr unsigned round_elems = 32 * V;
    const unsigned lane = lane_id();
    O *out = static_cast<O *>(io.out);
    /* Both stores unrolled, one per element a lane may have to write, rather
     * than loops up to the count, whose control and 64-bit indices cost
     * more. A partition's round wholly inside the data fills its pack
     * buffer, kept elements from the front, rejected ones from the back: one
     * store each, into the kept or the rejected run, with no clamping to
     * the data's ends. */
    if constexpr (Mode == WK_PARTITION_IF) {
        if (v0 >= io.src.first && v0 + round_elems <= io.src.end) {
            /* Rejected elements before the round: its data elements before
             * it less the kept ones; the round's run ends before them. */
            const size_t rejected_before = v0 - io.src.first - (size_t)base;
            /* Positions in C, the counts' type: 32 bits below 2^31 elements. */
            const C kept_at = base, rejected_at = (C)(io.n - round_elems - rejected_before);
#pragma unroll
            for (int i = 0; i < V; ++i) {
                const unsigned j = lane + 32u * i;
                out[(j < round_kept ? kept_at : rejected_at) + (C)j] = pack[j];
            }
            return;
        }
    }
    long long index_base = 0;
    if constexpr (Mode == WK_WHERE)
        index_base = io.index_base ? *io.index_base : 0;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const unsigned j = lane + 32u * i;
        if (j < round_kept) {
            if constexpr (Mode == WK_WHERE)
                out[base + (C)j] = (long long)(v0 + pack[j] - io.src.first) + index_base;
            else
                out[base + (C)j] = pack[j];
        }
    }
    if constexpr (Mode == WK_PARTITION_IF) {
        /* A round at an end of the data. The last rejected element lands at
         * d_out[count]. */
        const size_t round_start = data_before(v0, io.src.first, io.src.end);
        const size_t round_rejected =
            data_before(v0 + round_elems, io.src.first, io.src.end) - round_start - round_kept;
        const size_t rejected_before = round_start - (size_t)base;
        for (unsigned j = lane; j < round_rejected; j += 32)
            out[io.n - 1 - (rejected_before + j)] = pack[round_elems - 1 - j];
    }
}

/* Packs and writes one round of a warp through its pack buffer
 * (pack_round, store_round); returns the round's kept count. */
template <class S, class C, int Mode>
__device__ inline unsigned write_round(const select_io<S> &io, const vec<S> &x, unsigned bits, size_t e0, C base,
                                       pack_t<S, Mode> *pack)
{
    const unsigned round_kept = pack_round<S, Mode>(io, x, bits, e0, pack);
    __syncwarp();
    store_round<S, C, Mode>(io, e0 - (size_t)lane_id() * vec<S>::size, base, round_kept, pack);
    __syncwarp();
    return round_kept;
}

/* The keep bits of a lane's `count` vectors x[k] of consecutive rounds,
 * x[k] starting at virtual element e0 + 32 V k: by predicate, by flag
 * bytes (flags[k]) or by run heads. For wk_unique `last` is the element
 * before lane 0's x[0]; it comes back as lane 31's last element of
 * x[count - 1], the one before lane 0's next vector. */
template <class S, int Mode, int count>
__device__ inline void keep_bits(const select_io<S> &io, const vec<S> (&x)[count], const flag_word<vec<S>::size> *flags,
                                 const wk_predicate &predicate, size_t e0, S &last, unsigned (&bits)[count])
{
    constexpr int V = vec<S>::size;
    if constexpr (Mode != WK_SELECT_FLAGGED && Mode != WK_UNIQUE)
        predicate_bits(x, predicate, bits);
#pragma unroll
    for (int k = 0; k < count; ++k) {
        const size_t ek = e0 + (size_t)32 * V * k;
        if constexpr (Mode == WK_SELECT_FLAGGED)
            bits[k] = nonzero_bytes<V>(flags[k]);
        if constexpr (Mode == WK_UNIQUE) {
            bits[k] = run_heads(io, x[k], ek, last);
            last = shfl(full_mask, x[k].e[V - 1], 31);
        }
        bits[k] &= valid_bits<V>(ek, io.src.first, io.src.end);
    }
}

/* `rounds` vectors per thread in registers; for staged tiles (select/plan.h)
 * `staged` more per thread, after all of those of the registers, in the
 * dynamic shared memory, warp w owning the w-th run of 32 * staged
 * (tiles/stage.cuh). Each warp then has two segments of the
 * tile, its register run and its staged run; the staged run's keep bits
 * are kept in shared memory between the count and the writing. */
template <class S, class C, int Mode, int rounds, int MinBlocks, int staged = 0, int Threads = WK_SELECT_THREADS>
__global__ void __launch_bounds__(Threads, MinBlocks)
select_kernel(select_io<S> io, wk_predicate predicate, tile_slots slots)
{
    constexpr int threads = Threads, warps = Threads / 32;
    using Pk = pack_t<S, Mode>;
    constexpr int V = vec<S>::size, segments = staged > 0 ? 2 * warps : warps;
    constexpr unsigned round_elems = 32 * V; /* elements of one warp's round */
    constexpr size_t register_vecs = (size_t)threads * rounds, tile_vecs = register_vecs + (size_t)threads * staged;
    __shared__ unsigned long long s_tile, s_stamp, s_stage_barrier;
    __shared__ int s_stage_wait;
    __shared__ C s_warp[segments];
    /* Tiles of up to WK_SELECT_PREPACK_ROUNDS rounds per thread pack all
     * their rounds while warp 0 looks back, each round in a buffer of its
     * own beside the look-back's values; larger tiles pack and write one
     * round at a time through one buffer per warp, used after the look-back
     * is done with its values. */
    constexpr bool prepack = staged == 0 && rounds <= WK_SELECT_PREPACK_ROUNDS;
    union lookback_then_pack {
        C lookback[lookback_windows * 32];
        Pk pack[warps][1][round_elems];
    };
    struct lookback_beside_pack {
        C lookback[lookback_windows * 32];
        Pk pack[warps][rounds][round_elems];
    };
    __shared__ typename std::conditional<prepack, lookback_beside_pack, lookback_then_pack>::type s_scratch;
    __shared__ unsigned char s_staged_bits[staged > 0 ? staged : 1][staged > 0 ? threads : 1];
    extern __shared__ __align__(128) unsigned char s_staged[];
    const tiles::tile_stage<S> stage = {reinterpret_cast<vec<S> *>(s_staged), &s_stage_barrier, &s_stage_wait,
                                       (unsigned)(threads * staged)};

    /* The tile this block will most likely take (take_tile's guess) is
     * asked into L2 before the wait, so that its loads after it find it
     * there while the previous kernel ends. */
    if (threadIdx.x == 0)
        io.src.prefetch_l2((size_t)blockIdx.x * tile_vecs, register_vecs);
    wait_for_previous_kernel();
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    const size_t lane_vec = (size_t)warp * (32 * rounds) + lane;
    const unsigned staged_q0 = warp * (32 * staged) + lane; /* in the staged part */
    vec<S> x[rounds];
    flag_word<V> flags[rounds];
    flag_word<V> staged_flags[staged > 0 ? staged : 1];
    /* wk_unique: the element before the warp's register run and before its
     * staged run. */
    S before_run = S(), before_staged = S();
    auto load_tile = [&](size_t tile_first) {
        const size_t first = tile_first + lane_vec;
        io.src.template load_lane<rounds>(first, S(), x);
        if constexpr (Mode == WK_SELECT_FLAGGED) {
#pragma unroll
            for (int k = 0; k < rounds; ++k)
                flags[k] = load_flags(io, first + 32 * k);
            /* The staged part's flags go out with the tile's loads. */
#pragma unroll
            for (int k = 0; k < staged; ++k)
                staged_flags[k] = load_flags(io, tile_first + register_vecs + staged_q0 + 32 * k);
        }
        if constexpr (Mode == WK_UNIQUE) {
            before_run = load_before_run(io, (first - lane) * V);
            if constexpr (staged > 0)
                before_staged = load_before_run(io, (tile_first + register_vecs + staged_q0 - lane) * V);
        }
    };
    const unsigned long long tile = tiles::take_tile<(staged > 0)>(slots, sizeof(C) == 8, stage, io.src, tile_vecs,
                                                                  register_vecs, &s_tile, &s_stamp, load_tile);
    const size_t tile_first = (size_t)tile * tile_vecs, first_vec = tile_first + lane_vec;
    allow_next_kernel();

    /* Which elements of the register rounds are kept: bit k * V + e for
     * element e of round k. The ballots are taken twice, here for the
     * warp's count and again when writing, which costs less than keeping
     * their results in registers. */
    static_assert(rounds * V <= 64, "keep bits fit 64 bits");
    /* 32 bits where they suffice: a 64-bit mask spills in the select-if,
     * partition and unique kernels. The flagged select runs better with 64
     * and keeps it. */
    using keep_word = typename std::conditional<(rounds * V <= 32 && Mode != WK_SELECT_FLAGGED), unsigned,
                                                unsigned long long>::type;
    keep_word keep = 0;
    {
        unsigned bits[rounds];
        keep_bits<S, Mode>(io, x, flags, predicate, first_vec * V, before_run, bits);
#pragma unroll
        for (int k = 0; k < rounds; ++k)
            keep |= (keep_word)bits[k] << (k * V);
    }
    const unsigned warp_kept = __reduce_add_sync(full_mask, (unsigned)__popcll((unsigned long long)keep));
    if (lane == 0)
        s_warp[warp] = warp_kept;
    /* The staged run: its keep bits, four vectors at a time from shared
     * memory, into s_staged_bits for the writing. Waiting for the bulk copy
     * here also makes a flagged select in place safe: the staged input has
     * been read before the tile publishes. */
    if constexpr (staged > 0) {
        constexpr int chunk = 4;
        static_assert(staged % chunk == 0, "staged vectors come in chunks");
        const size_t staged_e0 = (tile_first + register_vecs + staged_q0) * V;
        stage.template ready<staged>(io.src, tile_first + register_vecs, staged_q0, S());
        unsigned staged_kept = 0;
        /* Unrolled only where the flags must stay in registers: each
         * chunk's code is large (a predicate's switch over four vectors). */
#pragma unroll(Mode == WK_SELECT_FLAGGED ? staged / chunk : 1)
        for (int c = 0; c < staged; c += chunk) {
            vec<S> xs[chunk];
            if constexpr (Mode != WK_SELECT_FLAGGED) {
#pragma unroll
                for (int k = 0; k < chunk; ++k)
                    xs[k] = stage.data[staged_q0 + 32 * (c + k)];
            }
            unsigned bits[chunk];
            keep_bits<S, Mode>(io, xs, staged_flags + c, predicate, staged_e0 + (size_t)32 * V * c, before_staged,
                               bits);
#pragma unroll
            for (int k = 0; k < chunk; ++k) {
                s_staged_bits[c + k][threadIdx.x] = (unsigned char)bits[k];
                staged_kept += __popc(bits[k]);
            }
        }
        staged_kept = __reduce_add_sync(full_mask, staged_kept);
        if (lane == 0)
            s_warp[warps + warp] = staged_kept;
    }
    if constexpr (Mode == WK_SELECT_FLAGGED) {
        /* In place, later tiles overwrite this tile's input once it has
         * published its count, and here the count comes from the flags
         * alone. The barrier then takes a value folded from every loaded
         * element as its predicate: no thread can arrive before its loads
         * have landed, so none is still reading when warp 0 publishes. */
        if (io.src.in_place) {
            unsigned folded = 0;
#pragma unroll
            for (int k = 0; k < rounds; ++k) {
                unsigned words[4];
                memcpy(words, &x[k], sizeof words);
                folded |= words[0] ^ words[1] ^ words[2] ^ words[3];
            }
            __syncthreads_or(folded != 0u);
        } else {
            __syncthreads();
        }
    } else {
        __syncthreads();
    }

    /* Which rounds are kept, round k of the lane's register vectors. */
    auto round_bits = [&](int k) { return (unsigned)(keep >> (k * V)) & ((1u << V) - 1u); };
    unsigned round_kept[prepack ? rounds : 1];
    auto pack_rounds = [&] {
#pragma unroll
        for (int k = 0; k < (prepack ? rounds : 0); ++k)
            round_kept[k] =
                pack_round<S, Mode>(io, x[k], round_bits(k), (first_vec + 32 * k) * V, s_scratch.pack[warp][k]);
    };
    if (warp == 0) {
        const C segment_total = lane < segments ? s_warp[lane] : C(0);
        const C inclusive = warp_inclusive_scan(segment_total, sum{});
        const C aggregate = shfl(full_mask, inclusive, segments - 1);
        const auto ts = tiles::make_status<C>(slots, s_stamp);
        if (lane == 0)
            ts.publish(tile, tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE, aggregate);
        /* Warp 0 packs between publishing its aggregate, which later tiles
         * wait for, and its own look-back. */
        if constexpr (prepack)
            pack_rounds();
        C tile_prefix = 0;
        if (tile != 0) {
            tile_prefix = tiles::look_back(ts, tile, sum{}, s_scratch.lookback);
            if (lane == 0)
                ts.publish(tile, FLAG_INCLUSIVE, tile_prefix + aggregate);
        }
        if (lane == 0 && tile == gridDim.x - 1)
            *io.count = (unsigned long long)(tile_prefix + aggregate);
        if (lane < segments)
            s_warp[lane] = tile_prefix + (inclusive - segment_total);
    } else if constexpr (prepack) {
        pack_rounds();
    }
    __syncthreads();

    C base = s_warp[warp]; /* kept elements before this warp's round */
    if constexpr (prepack) {
#pragma unroll
        for (int k = 0; k < rounds; ++k) {
            store_round<S, C, Mode>(io, (first_vec - lane + 32 * k) * V, base, round_kept[k], s_scratch.pack[warp][k]);
            base += round_kept[k];
        }
        return;
    }
    Pk *pack = s_scratch.pack[warp][0];
#pragma unroll
    for (int k = 0; k < rounds; ++k)
        base += write_round<S, C, Mode>(io, x[k], round_bits(k), (first_vec + 32 * k) * V, base, pack);
    if constexpr (staged > 0) {
        base = s_warp[warps + warp];
        const size_t staged_first = (size_t)s_tile * tile_vecs + register_vecs + staged_q0;
        /* A loop, not unrolled: unrolled, the staged kernels took 130-200
         * KB of code and ran at half speed where most elements are
         * written. */
#pragma unroll 1
        for (int k = 0; k < staged; ++k)
            base += write_round<S, C, Mode>(io, stage.data[staged_q0 + 32 * k], s_staged_bits[k][threadIdx.x],
                                            (staged_first + 32 * k) * V, base, pack);
    }
}

} // namespace select
} // namespace wk

#endif
