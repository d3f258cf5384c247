/* How the reproducible sum reads each float dtype: elements as raw bits, a
 * magnitude key that orders like |x| (NaN above inf above every number), the
 * key limit of a top, and the top a key needs. A coarse key is zero only for
 * a zero and compares with wk_rp_coarse_floor as the key does. */
#ifndef WARPKIT_REPRO_ELEMENTS_CUH
#define WARPKIT_REPRO_ELEMENTS_CUH

#include "repro/binned.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace wk {
namespace repro {

/* The key of 2^e in a format of this exponent bias and these fraction bits:
 * the infinity's above the format's range, 1 below its smallest subnormal.
 * Selects, not branches: it is worked out for every round of loads. */
__device__ inline uint32_t power_key(int e, int bias, int fraction)
{
    const uint32_t normal = (uint32_t)::min(e + bias, 2 * bias + 1) << fraction;
    const uint32_t subnormal = 1u << ::min(::max(e + bias - 1 + fraction, 0), 31);
    return e >= 1 - bias ? normal : e >= 1 - bias - fraction ? subnormal : 1u;
}

/* f32: keys are the bits without the sign. */
struct f32_elements {
    using raw = uint32_t;
    static constexpr int per_vector = 4;
    static constexpr int format = 4;
    static constexpr uint32_t special = 0x7f800000u; /* inf; NaN above   */
    static constexpr raw filler = 0x80000000u;       /* -0.0: adds nothing */
    static constexpr uint32_t sign_mask = 0x80000000u;
    __device__ static raw from_words(const uint4 &v, int i)
    {
        return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
    }
    __device__ static uint32_t key(raw r) { return r & 0x7fffffffu; }
    __device__ static uint32_t coarse_key(raw r) { return key(r); }
    __device__ static bool is_nan(raw r) { return key(r) > special; }
    __device__ static uint32_t sign_word(raw r) { return r; }
    __device__ static bool negative(raw r) { return r >> 31; }
    __device__ static double value(raw r) { return (double)__uint_as_float(r); }
    __device__ static int top_for(uint32_t key) { return wk_rp_top_for_biased((int)(key >> 23) + 896); }
    __device__ static uint32_t limit(int top) { return power_key(wk_rp_limit_exponent(top), 127, 23); }
};

/* f64: keys are the high words without the sign; a limit is a power of
 * two, whose low word is zero, so comparing high words is exact. */
struct f64_elements {
    using raw = uint64_t;
    static constexpr int per_vector = 2;
    static constexpr int format = 8;
    static constexpr uint32_t special = 0x7ff00000u;
    static constexpr raw filler = 0x8000000000000000ull;
    static constexpr uint32_t sign_mask = 0x80000000u;
    __device__ static raw from_words(const uint4 &v, int i)
    {
        return i == 0 ? ((uint64_t)v.y << 32 | v.x) : ((uint64_t)v.w << 32 | v.z);
    }
    __device__ static uint32_t key(raw r) { return (uint32_t)(r >> 32) & 0x7fffffffu; }
    /* Zero only for a zero: a subnormal may have its bits in the low word
     * alone. Its last bit does not move the exponent's floor. */
    __device__ static uint32_t coarse_key(raw r) { return key(r) | ((uint32_t)r != 0u); }
    /* All 64 bits: a NaN's payload may sit in the low word alone. */
    __device__ static bool is_nan(raw r) { return (r & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
    __device__ static uint32_t sign_word(raw r) { return (uint32_t)(r >> 32); }
    __device__ static bool negative(raw r) { return r >> 63; }
    __device__ static double value(raw r) { return __longlong_as_double((long long)r); }
    __device__ static int top_for(uint32_t key) { return wk_rp_top_for_biased((int)(key >> 20)); }
    __device__ static uint32_t limit(int top)
    {
        int e = wk_rp_limit_exponent(top);
        return e > 1023 ? special : (uint32_t)(e + 1023) << 20;
    }
};

/* f16 and bf16: 16-bit keys; values through float. */
template <bool Brain> struct half_elements {
    using raw = uint32_t; /* the 16 bits, in the low half */
    static constexpr int per_vector = 8;
    static constexpr int format = Brain ? 3 : 2;
    static constexpr uint32_t special = Brain ? 0x7f80u : 0x7c00u;
    static constexpr raw filler = 0x8000u;
    static constexpr uint32_t sign_mask = 0x8000u;
    __device__ static raw from_words(const uint4 &v, int i)
    {
        uint32_t w = (i >> 1) == 0 ? v.x : (i >> 1) == 1 ? v.y : (i >> 1) == 2 ? v.z : v.w;
        return (i & 1) ? w >> 16 : w & 0xffffu;
    }
    __device__ static uint32_t key(raw r) { return r & 0x7fffu; }
    __device__ static uint32_t coarse_key(raw r) { return key(r); }
    __device__ static bool is_nan(raw r) { return key(r) > special; }
    __device__ static uint32_t sign_word(raw r) { return r; }
    __device__ static bool negative(raw r) { return (r >> 15) & 1u; }
    __device__ static double value(raw r)
    {
        if (Brain)
            return (double)__uint_as_float(r << 16);
        return (double)__half2float(__ushort_as_half((unsigned short)r));
    }
    __device__ static int top_for(uint32_t key)
    {
        /* The double's biased exponent; zero and subnormals as the smallest
         * normal, which needs the same top. */
        int biased = Brain ? (int)(key >> 7) : (int)(key >> 10);
        if (Brain)
            return wk_rp_top_for_biased(biased + 896);
        return wk_rp_top_for_biased((biased == 0 ? 1 : biased) + 1008);
    }
    __device__ static uint32_t limit(int top)
    {
        return Brain ? power_key(wk_rp_limit_exponent(top), 127, 7) : power_key(wk_rp_limit_exponent(top), 15, 10);
    }
};

/* The elements of each float storage type: what the per-dtype launchers
 * (WK_DEFINE_REPRO_LAUNCHER, WK_DEFINE_SEG_REPRO_LAUNCHER) read. */
template <class S> struct elements_for;
template <> struct elements_for<float> {
    using type = f32_elements;
};
template <> struct elements_for<double> {
    using type = f64_elements;
};
template <> struct elements_for<__half> {
    using type = half_elements<false>;
};
template <> struct elements_for<__nv_bfloat16> {
    using type = half_elements<true>;
};

} // namespace repro
} // namespace wk

#endif
