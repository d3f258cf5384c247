/* The reproducible sum's accumulation (docs/repro.md): a lane's three bins
 * in registers, the elements of each float dtype split into them. A warp's
 * lanes either share one top (add_elements: one vote decides the split for
 * the whole warp) or keep a top each (add_own_elements: a lane sums a
 * segment of its own). */
#ifndef WARPKIT_REPRO_ACCUMULATE_CUH
#define WARPKIT_REPRO_ACCUMULATE_CUH

#include "repro/elements.cuh"

namespace wk {
namespace repro {

constexpr unsigned all_lanes = 0xffffffffu;

/* One lane's accumulator; `top` is the same on every lane of a warp. */
struct lane_sum {
    wk_rp_work work;
    int top;
    uint32_t flags;    /* NaN and infinities seen                  */
    uint32_t sign_and; /* AND of the elements' sign words         */
};

template <class E> __device__ inline void start(lane_sum &s)
{
    s.top = WK_RP_LOWEST;
    wk_rp_work_clear(&s.work, s.top);
    s.flags = 0;
    s.sign_and = ~0u;
}

/* Whether this lane's elements split coarsely under the top (low: the least
 * coarse key less one, a zero's wrapping to the top). */
template <class E> __device__ inline bool splits_coarsely(const lane_sum &s, uint32_t low)
{
    const bool scaled = E::format == 8 && s.top >= WK_RP_SCALED;
    return !scaled && low >= wk_rp_coarse_floor(wk_rp_format_for(E::format), s.top) - 1u;
}

/* The round's keys: the largest magnitude key, the least coarse key less
 * one (a zero's wrapping to the top), and the sign words into sign_and. */
template <class E, int N>
__device__ inline void round_keys(lane_sum &s, const typename E::raw (&r)[N], uint32_t &high, uint32_t &low)
{
    high = 0;
    low = ~0u;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        high = ::max(high, E::key(r[i]));
        low = ::min(low, E::coarse_key(r[i]) - 1u);
        s.sign_and &= E::sign_word(r[i]);
    }
}

/* Infinities and NaN become flags and zeros (keys above any floor before,
 * zero now); returns the largest finite key. */
template <class E, int N> __device__ inline uint32_t flag_specials(lane_sum &s, typename E::raw (&r)[N])
{
    uint32_t high = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        uint32_t k = E::key(r[i]);
        if (k >= E::special) {
            s.flags |= E::is_nan(r[i]) ? WK_RP_NAN : E::negative(r[i]) ? WK_RP_NEG_INF : WK_RP_POS_INF;
            r[i] = E::filler;
        } else {
            high = ::max(high, k);
        }
    }
    return high;
}

/* Splits the elements into the bins under the current top: coarsely (bin 2
 * takes nothing) or in full. */
template <class E, int N> __device__ inline void deposit(lane_sum &s, const typename E::raw (&r)[N], bool coarse)
{
    if (coarse) {
#pragma unroll
        for (int i = 0; i < N; ++i)
            wk_rp_deposit_coarse(&s.work, E::value(r[i]));
        wk_rp_renormalize(&s.work, 2); /* bin 2 took nothing: it is still within a step */
        return;
    }
    if (E::format == 8 && s.top >= WK_RP_SCALED) {
#pragma unroll
        for (int i = 0; i < N; ++i)
            wk_rp_deposit_scaled(&s.work, s.top, E::value(r[i]));
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            wk_rp_deposit(&s.work, s.top, E::value(r[i]));
    }
    wk_rp_renormalize(&s.work, WK_RP_FOLD);
}

/* Adds N elements per lane; every lane of the warp calls it together. */
template <class E, int N> __device__ inline void add_elements(lane_sum &s, typename E::raw (&r)[N])
{
    uint32_t high, low;
    round_keys<E>(s, r, high, low);
    /* The common case takes one vote: the top holds every element of the
     * warp, and each of them splits coarsely. */
    bool raise = high >= E::limit(s.top), coarse = splits_coarsely<E>(s, low);
    if (__any_sync(all_lanes, raise || !coarse)) {
        if (__any_sync(all_lanes, raise)) {
            /* Rare: the warp takes the top its largest finite element needs. */
            high = flag_specials<E>(s, r);
            int needed = high ? E::top_for(high) : WK_RP_LOWEST;
            int top = ::max(s.top, (int)__reduce_max_sync(all_lanes, (unsigned)needed));
            if (top != s.top) {
                wk_rp_work_raise(&s.work, s.top, top);
                s.top = top;
            }
            coarse = splits_coarsely<E>(s, low);
        }
        coarse = __all_sync(all_lanes, coarse);
    }
    deposit<E>(s, r, coarse);
}

/* Adds N elements to this lane's own sum: the same split as add_elements,
 * with a top of the lane's own and no warp vote, so that the lanes of a warp
 * may sum different segments (a lane raises its top alone). */
template <class E, int N> __device__ inline void add_own_elements(lane_sum &s, typename E::raw (&r)[N])
{
    uint32_t high, low;
    round_keys<E>(s, r, high, low);
    if (high >= E::limit(s.top)) {
        high = flag_specials<E>(s, r);
        const int needed = high ? E::top_for(high) : WK_RP_LOWEST;
        if (needed > s.top) {
            wk_rp_work_raise(&s.work, s.top, needed);
            s.top = needed;
        }
    }
    deposit<E>(s, r, splits_coarsely<E>(s, low));
}

/* Loads this lane's vectors body[first + u * stride], u < Unroll: those
 * below nvec are present, the others zero. Every load is issued before any
 * is used. */
template <int Unroll>
__device__ inline void load_vectors(const uint4 *body, size_t first, size_t stride, size_t nvec, uint4 (&v)[Unroll],
                                    bool (&present)[Unroll])
{
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
        size_t i = first + (size_t)u * stride;
        present[u] = i < nvec;
        v[u] = present[u] ? __ldg(body + i) : make_uint4(0, 0, 0, 0);
    }
}

/* Hands the elements of loaded vectors, the missing ones as fillers, to
 * add(r) in calls of at most 16 elements (8 of a 16-bit dtype): more would
 * not fit in the registers beside the loads. */
template <class E, int Unroll, class Add>
__device__ inline void for_each_batch(const uint4 (&v)[Unroll], const bool (&present)[Unroll], Add &&add)
{
    constexpr int per = E::per_vector;
    constexpr int batch = per >= 8 ? 1 : 16 / per < Unroll ? 16 / per : Unroll; /* vectors a call */
    static_assert(Unroll % batch == 0, "batches cover the round");
#pragma unroll
    for (int b = 0; b < Unroll; b += batch) {
        typename E::raw r[batch * per];
#pragma unroll
        for (int u = 0; u < batch; ++u)
#pragma unroll
            for (int i = 0; i < per; ++i)
                r[u * per + i] = present[b + u] ? E::from_words(v[b + u], i) : E::filler;
        add(r);
    }
}

/* Adds loaded vectors to the warp's sum. */
template <class E, int Unroll>
__device__ inline void add_loaded(lane_sum &s, const uint4 (&v)[Unroll], const bool (&present)[Unroll])
{
    for_each_batch<E>(v, present, [&](auto &r) { add_elements<E>(s, r); });
}

/* Adds this lane's 16-byte vectors: Unroll of them, each present or not. */
template <class E, int Unroll>
__device__ inline void add_vectors(lane_sum &s, const uint4 *body, size_t first, size_t stride, size_t nvec)
{
    uint4 v[Unroll];
    bool present[Unroll];
    load_vectors(body, first, stride, nvec, v, present);
    add_loaded<E, Unroll>(s, v, present);
}

/* The same with every vector present: the steady state. */
template <class E, int Unroll>
__device__ inline void add_full_vectors(lane_sum &s, const uint4 *body, size_t first, size_t stride)
{
    uint4 v[Unroll];
    bool present[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
        v[u] = __ldg(body + first + (size_t)u * stride);
        present[u] = true;
    }
    add_loaded<E, Unroll>(s, v, present);
}

/* A scalar element per lane (the head and tail), or the filler. */
template <class E> __device__ inline typename E::raw scalar(const typename E::raw *p, bool present);
template <> __device__ inline uint32_t scalar<f32_elements>(const uint32_t *p, bool present)
{
    return present ? __ldg(p) : f32_elements::filler;
}
template <> __device__ inline uint64_t scalar<f64_elements>(const uint64_t *p, bool present)
{
    return present ? (uint64_t)__ldg(reinterpret_cast<const unsigned long long *>(p)) : f64_elements::filler;
}
template <> __device__ inline uint32_t scalar<half_elements<false>>(const uint32_t *p, bool present)
{
    return present ? (uint32_t)__ldg(reinterpret_cast<const unsigned short *>(p)) : 0x8000u;
}
template <> __device__ inline uint32_t scalar<half_elements<true>>(const uint32_t *p, bool present)
{
    return present ? (uint32_t)__ldg(reinterpret_cast<const unsigned short *>(p)) : 0x8000u;
}

/* Element i of the input as the raw type's pointer (16-bit dtypes are
 * addressed in halves). */
template <class E> __device__ inline const typename E::raw *element_at(const void *in, size_t i)
{
    const char *bytes = static_cast<const char *>(in);
    constexpr size_t size = E::format == 8 ? 8 : E::format == 4 ? 4 : 2;
    return reinterpret_cast<const typename E::raw *>(bytes + i * size);
}

} // namespace repro
} // namespace wk

#endif
