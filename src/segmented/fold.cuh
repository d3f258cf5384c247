/* The pieces every segmented kernel is made of: folding a range of the
 * input into a partial with a group of lanes, and combining the group's
 * partials. */
#ifndef WARPKIT_SEGMENTED_FOLD_CUH
#define WARPKIT_SEGMENTED_FOLD_CUH

#include "common/vector.cuh"
#include "reduce/reducers.cuh"
#include "warpkit/warp.cuh"

#include <cstdint>

namespace wk {
namespace seg {

using reduce::combiner;

/* One round of a group's vector loads: this lane's vectors i, i + group,
 * ... (Unroll of them), those below nvec, all issued before any is used. */
template <class V, int Unroll>
__device__ inline void load_round(V (&v)[Unroll], const V *body, long long i, long long nvec, unsigned group)
{
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
        if (i + u * group < nvec)
            v[u] = load_vec(body + i + u * group);
}

/* Folds in[begin .. end) into a partial of R, shared among `group` lanes
 * (this one is `rank`): a scalar head up to the first 16-byte boundary, a
 * body of 16-byte vectors with Unroll of them in flight per lane, a scalar
 * tail. Indices are counted from `origin`, the segment's first element. The
 * order of every addition depends only on the range's length, its
 * alignment and the group's size. */
template <class R, int Unroll>
__device__ inline typename R::partial fold_range(const typename R::storage *__restrict__ in, long long begin,
                                                 long long end, long long origin, unsigned rank, unsigned group)
{
    using S = typename R::storage;
    using V = vec<S>;
    typename R::partial acc = R::identity();
    const long long len = end - begin;
    if (len <= 0)
        return acc;
    const unsigned misaligned = (unsigned)(reinterpret_cast<uintptr_t>(in + begin) % sizeof(V)) / sizeof(S);
    long long head = misaligned ? (long long)(V::size - misaligned) : 0;
    if (head > len)
        head = len;
    const V *body = reinterpret_cast<const V *>(in + begin + head);
    const long long nvec = (len - head) / V::size;
    const long long first = begin + head - origin;
    const long long tail_start = head + nvec * V::size;

    /* Each round's loads go out before its folds, the last round's too
     * (predicated, not one load at a time), and the first round's with the
     * head and tail: one wait a round. Each lane still folds its elements
     * in index order. With a group of at least a vector's size, the head
     * and the tail are one element a lane at most. */
    const bool one_edge = group >= (unsigned)V::size;
    S h{}, t{};
    const bool has_h = one_edge && rank < head, has_t = one_edge && tail_start + rank < len;
    if (has_h)
        h = in[begin + rank];
    if (has_t)
        t = in[begin + tail_start + rank];
    long long i = rank;
    V v[Unroll];
    load_round(v, body, i, nvec, group);
    if (one_edge) {
        if (has_h)
            acc = R::combine(acc, R::element(h, begin + rank - origin));
    } else {
        for (long long k = rank; k < head; k += group)
            acc = R::combine(acc, R::element(in[begin + k], begin + k - origin));
    }
    for (;;) {
#pragma unroll
        for (int u = 0; u < Unroll; ++u)
            if (i + u * group < nvec)
                acc = R::fold(acc, v[u].e, first + (i + u * group) * V::size);
        i += (long long)Unroll * group;
        if (i >= nvec)
            break;
        load_round(v, body, i, nvec, group);
    }
    if (one_edge) {
        if (has_t)
            acc = R::combine(acc, R::element(t, begin + tail_start + rank - origin));
    } else {
        for (long long k = tail_start + rank; k < len; k += group)
            acc = R::combine(acc, R::element(in[begin + k], begin + k - origin));
    }
    return acc;
}

/* Combines the partials of aligned groups of G lanes (a butterfly inside
 * each group); every lane of a group ends with the same bits, each pair
 * combining lower rank first. All 32 lanes take part. */
template <class R, int G> __device__ inline typename R::partial group_allreduce(typename R::partial v)
{
    const unsigned lane = lane_id();
#pragma unroll
    for (int m = G / 2; m > 0; m >>= 1) {
        typename R::partial other = shfl_xor(full_mask, v, m);
        v = (lane & m) ? R::combine(other, v) : R::combine(v, other);
    }
    return v;
}

/* Segments of the offsets layout this long or shorter are taken by one
 * lane. */
constexpr long long tiny_len = 16;

/* An offset moved into the input [0, n). */
__device__ inline long long clamp_offset(long long x, long long n) { return x < 0 ? 0 : (x > n ? n : x); }

/* This lane's segment of the 32 from `first` on, clamped into the input:
 * empty past the count. */
__device__ inline void segment_bounds(const long long *begin, const long long *end, size_t count, long long n,
                                      size_t first, long long &lo, long long &hi)
{
    const size_t seg = first + lane_id();
    lo = hi = 0;
    if (seg < count) {
        lo = clamp_offset(begin[seg], n);
        hi = clamp_offset(end[seg], n);
        if (hi < lo)
            hi = lo;
    }
}

/* Where segment i's result goes. */
__device__ inline void *result_at(void *out, size_t result_bytes, size_t i)
{
    return static_cast<unsigned char *>(out) + i * result_bytes;
}

} // namespace seg
} // namespace wk

#endif
