/* The offsets reduce of a batch of segments that lie end to end (each one's
 * end the next one's begin, as a CSR layout's offsets are) and span a few
 * kilobytes, however short the segments:
 *  - the warp copies the span into shared memory, every 16-byte copy in
 *    flight at once, and marks each segment's last element in a bit mask;
 *  - each lane folds a run of consecutive elements across segment
 *    boundaries without branching, putting each finished segment's partial
 *    in a table by its rank among the batch's non-empty segments;
 *  - a segmented scan over the lanes joins the parts of segments that cross
 *    runs, and the warp writes the batch's results, coalesced.
 * One round of loads for the bounds and one for the span, where segment by
 * segment would take one per segment. */
#ifndef WARPKIT_SEGMENTED_JOINED_RUNS_CUH
#define WARPKIT_SEGMENTED_JOINED_RUNS_CUH

#include "common/async_copy.cuh"
#include "common/vector.cuh"
#include "segmented/fold.cuh"

#include <cstdint>
#include <type_traits>

namespace wk {
namespace seg {

/* A reducer whose partials hold only over a span it has checked (the
 * reproducible sum's exact double, repro/exact_sum.cuh) has span_proven:
 * the batch is left to other paths unless the span passes. */
template <class R, class = void> struct proves_span : std::false_type {};
template <class R> struct proves_span<R, std::void_t<decltype(&R::span_proven)>> : std::true_type {};

/* Segments a joined batch has at most (four a lane). */
constexpr int joined_most_segments = 128;
/* Elements a lane folds at most: with the scan's 5 steps on top, every
 * segment stays within wk_seg_depth_bound. */
constexpr int run_max = 63;

/* A warp's shared memory for joined batches: at most 7.6 KiB, so that six
 * blocks of four warps fit an SM. A span of 6 KiB (1536 elements of 4
 * bytes, 768 of 8), 4 KiB of 2-byte elements (2048, as many as the ends'
 * scan covers), 2.5 KiB with the arg ops' wider results. */
template <class S, class P> struct joined_stage {
    static constexpr int stage_bytes = sizeof(P) > 8 ? 2560 : (sizeof(S) >= 4 ? 6144 : 4096);
    static constexpr int capacity = stage_bytes / (int)sizeof(S); /* elements */
    static constexpr int words = capacity / 32;
    vec<S> data[stage_bytes / 16];        /* the span, from the vector holding its first element */
    unsigned ends[words];                 /* bit q: element q of the span ends a segment */
    int starts[joined_most_segments];     /* by rank: the segment's first element */
    P results[joined_most_segments];      /* by rank: the segment's result */
};

/* Reduces the batch of `nvalid` segments from first_seg on, K a lane: lane
 * l holds the bounds of segments l, l + 32, ... in lo[k], hi[k] (past
 * nvalid anything), as given or clamped. Returns false, having written
 * nothing out, unless the segments lie end to end in order inside the input
 * (so that clamping would change nothing), their span fits the stage and R
 * proves it (proves_span). */
template <class R, int K>
__device__ inline bool reduce_joined(const typename R::storage *__restrict__ in, long long n, void *out,
                                     size_t result_bytes, size_t first_seg, unsigned nvalid, const long long (&lo)[K],
                                     const long long (&hi)[K], joined_stage<typename R::storage, typename R::partial> &st)
{
    using S = typename R::storage;
    using V = vec<S>;
    using P = typename R::partial;
    using Stage = joined_stage<S, P>;
    constexpr int vs = V::size;
    const unsigned lane = lane_id();

    /* End to end: segment t's end is segment t + 1's begin; in order: no
     * end before its begin. */
    bool joined = true;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const long long next_here = shfl_down(full_mask, lo[k], 1);
        const long long next_wrap = shfl(full_mask, lo[(k + 1) % K], 0);
        const long long next = lane < 31 ? next_here : next_wrap;
        const unsigned t = lane + 32 * k;
        if (t < nvalid && (hi[k] < lo[k] || (t + 1 < nvalid && hi[k] != next)))
            joined = false;
    }
    if (!__all_sync(full_mask, joined))
        return false;
    const unsigned last = nvalid - 1;
    long long last_hi = hi[0];
#pragma unroll
    for (int k = 1; k < K; ++k)
        if (last / 32 == (unsigned)k)
            last_hi = hi[k];
    const long long span_lo = shfl(full_mask, lo[0], 0), span_hi = shfl(full_mask, last_hi, (int)(last % 32));
    if (span_lo < 0 || span_hi > n || span_hi - span_lo > Stage::capacity)
        return false;
    const int span = (int)(span_hi - span_lo);
    /* The span in whole vectors from the 16-byte boundary at or below it. */
    const unsigned mis = (unsigned)((reinterpret_cast<uintptr_t>(in) / sizeof(S)) % vs);
    const long long v_first = (span_lo + mis) / vs;
    const int off = (int)((span_lo + mis) % vs);
    const int nv = (off + span + vs - 1) / vs;
    int per = (span + 31) / 32;
    per |= 1; /* odd: the lanes' runs fall in different banks */
    if (nv * vs > Stage::capacity || per > run_max)
        return false;

    /* Every copy of the span in flight at once; where the vectors reach
     * outside the input (at its ends), those are read element by element. */
    const V *src = reinterpret_cast<const V *>(reinterpret_cast<uintptr_t>(in) - mis * sizeof(S)) + v_first;
    const long long e_first = v_first * vs - (long long)mis; /* the element at the start of src */
    if (e_first >= 0 && e_first + (long long)nv * vs <= n) {
        for (int v = (int)lane; v < nv; v += 32)
            copy_vec_async(&st.data[v], src + v);
    } else {
        for (int v = (int)lane; v < nv; v += 32) {
            const long long e0 = e_first + (long long)v * vs;
            if (e0 >= 0 && e0 + vs <= n) {
                copy_vec_async(&st.data[v], src + v);
            } else {
                S *d = st.data[v].e;
                for (int i = 0; i < vs; ++i)
                    if (e0 + i >= 0 && e0 + i < n)
                        d[i] = in[e0 + i];
            }
        }
    }
    /* Segment ends, and the non-empty segments' ranks and starts. */
    const int nwords = (span + 31) >> 5;
    for (int w = (int)lane; w < nwords + 2 && w < Stage::words; w += 32)
        st.ends[w] = 0;
    __syncwarp();
    unsigned nonempty[K], rank[K], before_k = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const bool ne = lane + 32 * k < nvalid && hi[k] > lo[k];
        nonempty[k] = __ballot_sync(full_mask, ne);
        rank[k] = before_k + __popc(nonempty[k] & ((1u << lane) - 1));
        before_k += __popc(nonempty[k]);
        if (ne) {
            const unsigned e = (unsigned)(hi[k] - 1 - span_lo);
            atomicOr(&st.ends[e / 32], 1u << (e % 32));
            st.starts[rank[k]] = (int)(lo[k] - span_lo);
        }
    }
    __syncwarp();
    /* Ends before each word: a scan over the (at most 64) words. */
    const unsigned c0 = (int)lane < nwords ? __popc(st.ends[lane]) : 0u;
    const unsigned c1 = (int)lane + 32 < nwords ? __popc(st.ends[lane + 32]) : 0u;
    const unsigned inc0 = warp_inclusive_scan(c0, sum{}), inc1 = warp_inclusive_scan(c1, sum{});
    const unsigned total0 = shfl(full_mask, inc0, 31);

    /* This lane's run [q0, q0 + len) of the span, and its bits. */
    const int q0 = (int)lane * per;
    const int len = q0 < span ? (span - q0 < per ? span - q0 : per) : 0;
    const int w0 = (q0 >> 5) < Stage::words ? q0 >> 5 : Stage::words - 1, s0 = q0 & 31;
    const unsigned pre_lo = shfl(full_mask, inc0 - c0, w0 % 32), pre_hi = shfl(full_mask, inc1 - c1, w0 % 32);
    unsigned long long bits = 0;
    unsigned r0 = 0;
    bool head = false;
    if (len > 0) {
        const unsigned long long a = st.ends[w0];
        const unsigned long long b = w0 + 1 < nwords ? st.ends[w0 + 1] : 0u;
        const unsigned long long c = w0 + 2 < nwords ? st.ends[w0 + 2] : 0u;
        bits = ((a | (b << 32)) >> s0) | (s0 ? c << (64 - s0) : 0ull);
        bits &= len < 64 ? (1ull << len) - 1 : ~0ull;
        r0 = (w0 < 32 ? pre_lo : total0 + pre_hi) + __popc((unsigned)a & ((1u << s0) - 1));
        head = q0 > 0 && !((st.ends[(q0 - 1) >> 5] >> ((q0 - 1) & 31)) & 1u);
    }
    wait_copies();
    __syncwarp();
    if constexpr (proves_span<R>::value) {
        /* The batch's longest segment (within the span, so below 2^31). */
        unsigned longest = 0;
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (lane + 32 * k < nvalid && (unsigned)(hi[k] - lo[k]) > longest)
                longest = (unsigned)(hi[k] - lo[k]);
        longest = __reduce_max_sync(full_mask, longest);
        if (!R::span_proven(reinterpret_cast<const S *>(st.data) + off + q0, len, longest)) {
            __syncwarp(); /* the stage is read before the next batch copies into it */
            return false;
        }
    }

    /* The fold: a segment's partial goes to the table where it ends. The
     * ends are shifted out of `rest` one a step, and the table is walked by
     * a pointer: a few instructions an element fewer than testing bit i. */
    const S *x = reinterpret_cast<const S *>(st.data) + off + q0;
    int seg_start = head ? st.starts[r0] : q0;
    P *slot = st.results + r0;
    unsigned long long rest = bits; /* bit 0: the element at hand ends a segment */
    P acc = R::identity();
    for (int i = 0; i < len; ++i) {
        acc = R::combine(acc, R::element(x[i], q0 + i - seg_start));
        const bool ends_here = rest & 1u;
        rest >>= 1;
        if (ends_here)
            *slot = acc;
        slot += ends_here;
        acc = ends_here ? R::identity() : acc;
        seg_start = ends_here ? q0 + i + 1 : seg_start;
    }
    const unsigned r = (unsigned)(slot - st.results);
    /* Lanes that carry one segment on form runs of one key: an inclusive
     * scan within each run, in lane order, gives each lane the segment's
     * partial from its first lane through this one. */
    const bool carry = len > 0 && !((bits >> (len - 1)) & 1u);
    const unsigned key = carry ? r : 0x80000000u + lane;
    P v = carry ? acc : R::identity();
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const P up = shfl_up(full_mask, v, d);
        const unsigned up_key = shfl_up(full_mask, key, d);
        if (lane >= (unsigned)d && up_key == key)
            v = R::combine(up, v);
    }
    const P before = shfl_up(full_mask, v, 1);
    if (head && bits != 0) /* the segment begun by earlier lanes ends here */
        st.results[r0] = R::combine(before, st.results[r0]);
    __syncwarp();
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (lane + 32 * k < nvalid)
            R::store_result(result_at(out, result_bytes, first_seg + lane + 32 * k),
                            (nonempty[k] >> lane) & 1u ? st.results[rank[k]] : R::identity());
    __syncwarp(); /* the stage is written again by the next batch */
    return true;
}

} // namespace seg
} // namespace wk

#endif
