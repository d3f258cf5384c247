/* Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix
 * Scan with Decoupled Look-back", 2016): how a tile publishes its aggregate
 * and inclusive prefix, and how it finds its own prefix from the tiles
 * before it without waiting for each of them in turn.
 *
 * Each tile owns a status word (two for 8-byte values) that holds its value
 * and, above it, the call's stamp and a 2-bit flag; relaxed stores publish
 * them, relaxed loads read them, and no fence is needed. A word whose stamp is not
 * this call's counts as "nothing published yet", so the words need no
 * clearing between calls.
 *
 * Same bits on every run: a tile's prefix is always the left fold
 * (...((incl[j] op agg[j+1]) op agg[j+2]) ... op agg[t-1]) from the nearest
 * published inclusive prefix incl[j]. Since incl[j] is itself the left fold
 * of every aggregate up to j, the result is the left fold of all aggregates
 * before t whatever j the timing picks, and float prefixes do not depend on
 * which tiles happened to finish first. */
#ifndef WARPKIT_TILES_STATUS_CUH
#define WARPKIT_TILES_STATUS_CUH

#include "tiles/order.cuh"
#include "warpkit/warp.cuh"

#include <cuda/atomic>
#include <cstring>
#include <type_traits>

namespace wk {
namespace tiles {

enum : unsigned long long { FLAG_AGGREGATE = 1ull, FLAG_INCLUSIVE = 2ull, FLAG_MASK = 3ull };

/* Status of values of 4 bytes: one 64-bit word holds the value in its low
 * half and (stamp << 2 | flag) in its high half, so a single relaxed store
 * publishes both and a single relaxed load reads both: no fence, and one
 * round trip per poll. The stamp keeps 30 bits; the sweep in the kernel
 * (sweep_stale) makes sure no word is older than 2^30 calls. Only 64-bit
 * accesses are used: their single-copy atomicity is what the PTX memory
 * model guarantees. */
template <class P> struct packed_status {
    unsigned long long *words;
    unsigned stamp; /* low 30 bits of this call's stamp */

    __device__ void publish(unsigned long long tile, unsigned long long flag, P value) const
    {
        unsigned bits;
        memcpy(&bits, &value, sizeof bits);
        unsigned long long w = ((unsigned long long)((stamp << 2) | (unsigned)flag) << 32) | bits;
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
        word.store(w, cuda::memory_order_relaxed);
    }
    /* The flag tile j has published in this call (0 for none), and its value. */
    __device__ unsigned long long poll(unsigned long long j, P &value) const
    {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[j]);
        unsigned long long w = word.load(cuda::memory_order_relaxed);
        unsigned high = (unsigned)(w >> 32), bits = (unsigned)w;
        memcpy(&value, &bits, sizeof bits);
        return (high >> 2) == stamp ? (high & (unsigned)FLAG_MASK) : 0ull;
    }
    __device__ void acquire() const {}
    __device__ P value(unsigned long long, unsigned long long, P polled) const { return polled; }
};

/* Status of values of 8 bytes as two packed words, one per 32-bit half,
 * each with the stamp and flag: a reader accepts a pair only when both
 * halves carry this call's stamp and the same flag. Each flag is written
 * once per tile and call, so such a pair holds the two halves of one
 * value. Plain 64-bit relaxed accesses, no fence; the two loads go out
 * together, so a poll still costs one round trip. */
template <class P> struct pair_status {
    unsigned long long *words; /* two per tile */
    unsigned stamp;            /* low 30 bits of this call's stamp */

    __device__ void publish(unsigned long long tile, unsigned long long flag, P value) const
    {
        unsigned long long bits;
        memcpy(&bits, &value, sizeof bits);
        unsigned long long high = (unsigned long long)((stamp << 2) | (unsigned)flag) << 32;
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> lo(words[2 * tile]), hi(words[2 * tile + 1]);
        lo.store(high | (bits & 0xffffffffull), cuda::memory_order_relaxed);
        hi.store(high | (bits >> 32), cuda::memory_order_relaxed);
    }
    __device__ unsigned long long poll(unsigned long long j, P &value) const
    {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> lo(words[2 * j]), hi(words[2 * j + 1]);
        unsigned long long a = lo.load(cuda::memory_order_relaxed), b = hi.load(cuda::memory_order_relaxed);
        unsigned long long bits = (b << 32) | (a & 0xffffffffull);
        memcpy(&value, &bits, sizeof bits);
        unsigned ha = (unsigned)(a >> 32), hb = (unsigned)(b >> 32);
        return ha == hb && (ha >> 2) == stamp ? (ha & (unsigned)FLAG_MASK) : 0ull;
    }
    __device__ void acquire() const {}
    __device__ P value(unsigned long long, unsigned long long, P polled) const { return polled; }
};

/* Values of 4 bytes share a 64-bit word with their status; values of 8
 * bytes take two, one per half. */
template <class P> using status_of =
    typename std::conditional<sizeof(P) == 4, packed_status<P>, pair_status<P>>::type;

template <class P> __device__ inline status_of<P> make_status(const tile_slots &slots, unsigned long long stamp)
{
    static_assert(sizeof(P) == 4 || sizeof(P) == 8, "status values take 4 or 8 bytes");
    return status_of<P>{sizeof(P) == 4 ? slots.narrow : slots.wide, (unsigned)(stamp & 0x3fffffffu)};
}

/* Windows of 32 tiles a look-back keeps before it waits: values of up to
 * lookback_windows * 32 tiles are folded in shared memory. */
constexpr int lookback_windows = 16;

/* The exclusive prefix of tile `tile` (>= 1): the left fold of the
 * aggregates of tiles 0 .. tile-1. Called by one whole warp with a shared
 * buffer of lookback_windows * 32 values; every lane returns the prefix.
 *
 * The warp reads the status words of the 32 tiles before `tile`, then the
 * 32 before those, and so on, until a window holds a published inclusive
 * prefix; it waits only for aggregates, which tiles publish as soon as they
 * have read their input, so the walk back does not wait for the tiles
 * ahead to finish their own. The values passed on the way are kept, and
 * the prefix is their left fold from the nearest inclusive prefix. Should
 * the buffer fill first, the warp waits on its last window until the
 * inclusive prefixes, which advance as tiles finish, reach it. Tiles take
 * their numbers in the order they start, so every tile waited on is held by
 * a running block and the wait ends. */
template <class P, class Status, class Op>
__device__ inline P look_back(const Status &ts, unsigned long long tile, Op op, P *buffer)
{
    const unsigned lane = lane_id();
    unsigned count = 0; /* values kept before the nearest inclusive prefix */
    for (int w = 0;; ++w) {
        const unsigned long long distance = (unsigned long long)w * 32 + lane; /* tile - 1 - j */
        const bool exists = distance < tile;
        const unsigned long long j = tile - 1 - distance;
        /* Moving on to the next window needs room in the buffer and tiles
         * beyond this window; otherwise the warp waits here. */
        const bool may_advance = w + 1 < lookback_windows && tile > (unsigned long long)(w + 1) * 32;
        unsigned inclusive_mask, published;
        unsigned long long flag;
        P polled;
        bool found;
        for (;;) {
            /* A lane past tile 0 counts as published: it is never needed,
             * since tile 0 publishes its inclusive prefix and comes first. */
            flag = exists ? ts.poll(j, polled) : FLAG_AGGREGATE;
            inclusive_mask = __ballot_sync(full_mask, flag == FLAG_INCLUSIVE);
            published = __ballot_sync(full_mask, flag != 0ull);
            unsigned needed = inclusive_mask ? (1u << (__ffs(inclusive_mask) - 1)) - 1u : full_mask;
            found = inclusive_mask != 0;
            if ((published & needed) == needed && (found || may_advance))
                break;
        }
        ts.acquire();
        const unsigned nearest = found ? __ffs(inclusive_mask) - 1 : 32u;
        if (lane <= nearest && exists)
            buffer[w * 32 + lane] = ts.value(j, flag, polled);
        if (found) {
            count = (unsigned)w * 32 + nearest;
            break;
        }
    }
    __syncwarp();
    P prefix;
    if constexpr (std::is_integral<P>::value) {
        /* Integer ops are exactly associative: any order gives the same
         * bits, so the warp folds the values as a tree. */
        P part = op.template identity<P>();
        for (unsigned i = lane; i <= count; i += 32)
            part = op(part, buffer[i]);
        prefix = warp_allreduce(part, op);
    } else {
        /* Left fold from the inclusive prefix toward `tile`. Every lane
         * folds the same values in the same order; the reads are
         * broadcasts. */
        prefix = buffer[count];
        for (int i = (int)count - 1; i >= 0; --i)
            prefix = op(prefix, buffer[i]);
    }
    __syncwarp();
    return prefix;
}

} // namespace tiles
} // namespace wk

#endif
