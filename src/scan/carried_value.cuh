/* What a scan carries from element to element for dtype S under op Op,
 * how an element enters it and how an output leaves it. Mostly the
 * reduce's accumulator (reduce/reducers.cuh): half types carry float,
 * signed sums the unsigned type. Outputs leave as the reduce stores its
 * result (an f64 sum's NaN as the one NaN the header names).
 *
 * f64 min and max carry ordered 64-bit keys instead of doubles. A double
 * has no one-instruction min or max that keeps NaN (PTX has max.NaN for
 * f32 only), so each application takes two DSETP and two selects, and a
 * scan applies the op several times per element. The keys order as the
 * doubles do, every NaN becomes the key that wins (the largest for max,
 * the smallest for min), and the op is then an integer compare. Outputs
 * come back as the double of their key, a NaN as the canonical NaN; -0.0
 * gets the key below +0.0's, the order the header gives MIN and MAX, which
 * the keys keep without the extra compare that doubles need for it. */
#ifndef WARPKIT_SCAN_CARRIED_VALUE_CUH
#define WARPKIT_SCAN_CARRIED_VALUE_CUH

#include "reduce/reducers.cuh"

#include <type_traits>

namespace wk {
namespace scan {

template <class S, class Op> struct as_accumulator {
    using type = typename reduce::accumulator<S, Op>::type;
    using out = S; /* what an output is stored as */
    static __device__ type enter(S x) { return reduce::to_acc<type>(x); }
    static __device__ S leave(type c) { return reduce::stored_result<S, Op>(c); }
};
template <class S> constexpr bool is_narrow_integer = std::is_integral<S>::value && sizeof(S) < 4;

template <class S, class Op, class = void> struct carried : as_accumulator<S, Op> {};

/* 8- and 16-bit integers carry 32 bits (tile status values take 4 or 8
 * bytes), sign- or zero-extended as they enter and cut back to their width
 * as they leave. The ops' 32-bit identities leave every value of the
 * narrow type unchanged. */
template <class S, class Op> struct carried<S, Op, typename std::enable_if<is_narrow_integer<S>>::type> {
    using type = typename std::conditional<std::is_signed<S>::value && !std::is_same<Op, sum>::value, int,
                                           unsigned>::type;
    using out = S;
    static __device__ type enter(S x) { return (type)x; }
    static __device__ S leave(type c) { return (S)c; }
};

template <bool IsMax> struct ordered_f64 {
    using type = unsigned long long;
    using out = double;
    static constexpr type sign = 1ull << 63, infinity = 0x7ff0000000000000ull, nan_key = IsMax ? ~0ull : 0ull;

    /* Negative doubles have all bits flipped, the others only the sign:
     * larger doubles then have larger unsigned keys. */
    static __device__ type enter(double x)
    {
        const type bits = (type)__double_as_longlong(x);
        const type negative = (type)((long long)bits >> 63);
        return (bits & ~sign) > infinity ? nan_key : bits ^ (negative | sign);
    }
    static __device__ double leave(type key)
    {
        const type was_positive = (type)((long long)key >> 63);
        const type bits = key == nan_key ? 0x7ff8000000000000ull : key ^ (~was_positive | sign);
        return __longlong_as_double((long long)bits);
    }
};
template <> struct carried<double, max> : ordered_f64<true> {};
template <> struct carried<double, min> : ordered_f64<false> {};

/* A sum scan of S kept and stored as Out (wk_inclusive_scan_to): Out's
 * accumulator, each element converted exactly, outputs stored as the
 * reduce stores Out's sums. */
template <class S, class Out> struct widened_sum {
    using type = typename reduce::accumulator<Out, sum>::type;
    using out = Out;
    static __device__ type enter(S x) { return reduce::to_acc<type>(x); }
    static __device__ type enter_out(Out x) { return (type)x; } /* init, a carried prefix */
    static __device__ Out leave(type c) { return reduce::stored_result<Out, sum>(c); }
};

} // namespace scan
} // namespace wk

#endif
