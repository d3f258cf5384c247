/* Binary operators for the warp and block primitives, each with its identity.
 *
 * Every operator is a small struct: `op(a, b)` combines two values with `a`
 * coming first in sequence order, and `op.template identity<T>()` is the value
 * that leaves any other unchanged (used to pad partial warps and blocks).
 * Types: int, unsigned, long long, unsigned long long, float, double,
 * __half, __nv_bfloat16, and the narrow integers bool, signed char,
 * unsigned char, short, unsigned short (the bitwise ops: the integer types
 * only).
 *
 * min / max propagate NaN: if either operand is NaN the result is NaN
 * (which payload is not specified). They order -0.0 below +0.0, as IEEE
 * 754-2019 minimum and maximum do, so that the zero a reduction returns does
 * not depend on its combining order. argmin / argmax compare with < and >,
 * for which the two zeros tie, and keep the lower index.
 */
#ifndef WARPKIT_OPS_CUH
#define WARPKIT_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>
#include <cfloat>
#include <cstdint>

namespace wk {

/* ------------------------------------------------------------ properties */

template <class T> __host__ __device__ inline bool is_nan(T) { return false; }
template <> __host__ __device__ inline bool is_nan<float>(float x) { return x != x; }
template <> __host__ __device__ inline bool is_nan<double>(double x) { return x != x; }
template <> __device__ inline bool is_nan<__half>(__half x) { return __hisnan(x); }
template <> __device__ inline bool is_nan<__nv_bfloat16>(__nv_bfloat16 x) { return __hisnan(x); }

/* Largest and lowest value of each type (infinities for the float types). */
template <class T> struct limits;
template <> struct limits<int> {
    static __device__ int highest() { return INT_MAX; }
    static __device__ int lowest() { return INT_MIN; }
};
template <> struct limits<unsigned> {
    static __device__ unsigned highest() { return UINT_MAX; }
    static __device__ unsigned lowest() { return 0u; }
};
template <> struct limits<long long> {
    static __device__ long long highest() { return LLONG_MAX; }
    static __device__ long long lowest() { return LLONG_MIN; }
};
template <> struct limits<unsigned long long> {
    static __device__ unsigned long long highest() { return ULLONG_MAX; }
    static __device__ unsigned long long lowest() { return 0ull; }
};
template <> struct limits<bool> {
    static __device__ bool highest() { return true; }
    static __device__ bool lowest() { return false; }
};
template <> struct limits<signed char> {
    static __device__ signed char highest() { return SCHAR_MAX; }
    static __device__ signed char lowest() { return SCHAR_MIN; }
};
template <> struct limits<unsigned char> {
    static __device__ unsigned char highest() { return UCHAR_MAX; }
    static __device__ unsigned char lowest() { return 0; }
};
template <> struct limits<short> {
    static __device__ short highest() { return SHRT_MAX; }
    static __device__ short lowest() { return SHRT_MIN; }
};
template <> struct limits<unsigned short> {
    static __device__ unsigned short highest() { return USHRT_MAX; }
    static __device__ unsigned short lowest() { return 0; }
};
template <> struct limits<float> {
    static __device__ float highest() { return __int_as_float(0x7f800000); }
    static __device__ float lowest() { return __int_as_float((int)0xff800000u); }
};
template <> struct limits<double> {
    static __device__ double highest() { return __longlong_as_double(0x7ff0000000000000ll); }
    static __device__ double lowest() { return __longlong_as_double((long long)0xfff0000000000000ull); }
};
template <> struct limits<__half> {
    static __device__ __half highest() { return __ushort_as_half((unsigned short)0x7c00u); }
    static __device__ __half lowest() { return __ushort_as_half((unsigned short)0xfc00u); }
};
template <> struct limits<__nv_bfloat16> {
    static __device__ __nv_bfloat16 highest() { return __ushort_as_bfloat16((unsigned short)0x7f80u); }
    static __device__ __nv_bfloat16 lowest() { return __ushort_as_bfloat16((unsigned short)0xff80u); }
};

/* `b` replaces `a` as the maximum: b is larger, or b is the first NaN.
 * Written as "not (b <= a), and a is a number": the unordered compare is
 * true for b > a and for a NaN on either side, and the second term keeps a
 * NaN already held. Two compares instead of four per element. */
template <class T> __device__ inline bool beats_for_max(T b, T a)
{
    return !(b <= a) && !is_nan(a);
}
template <class T> __device__ inline bool beats_for_min(T b, T a)
{
    return !(b >= a) && !is_nan(a);
}
/* b is -0.0 and a is +0.0: equal values of which only b has its sign bit
 * set, which only two zeros can be. */
template <class T> __device__ inline bool zero_below(T, T) { return false; }
template <> __device__ inline bool zero_below<float>(float b, float a)
{
    return b == a && __float_as_int(b) < 0 && __float_as_int(a) >= 0;
}
template <> __device__ inline bool zero_below<double>(double b, double a)
{
    return b == a && __double_as_longlong(b) < 0 && __double_as_longlong(a) >= 0;
}
template <> __device__ inline bool zero_below<__half>(__half b, __half a)
{
    return b == a && (__half_as_ushort(b) & 0x8000u) && !(__half_as_ushort(a) & 0x8000u);
}
template <> __device__ inline bool zero_below<__nv_bfloat16>(__nv_bfloat16 b, __nv_bfloat16 a)
{
    return b == a && (__bfloat16_as_ushort(b) & 0x8000u) && !(__bfloat16_as_ushort(a) & 0x8000u);
}

/* Equal for tie-breaking: the same value, or both NaN. */
template <class T> __device__ inline bool ties(T a, T b)
{
    return a == b || (is_nan(a) && is_nan(b));
}

/* ------------------------------------------------------------- operators */

struct sum {
    template <class T> __device__ T operator()(T a, T b) const { return a + b; }
    template <class T> __device__ T identity() const { return T(0); }
};
template <> __device__ inline __half sum::identity<__half>() const { return __ushort_as_half(0); }
template <> __device__ inline __nv_bfloat16 sum::identity<__nv_bfloat16>() const
{
    return __ushort_as_bfloat16(0);
}

struct min {
    template <class T> __device__ T operator()(T a, T b) const
    {
        return beats_for_min(b, a) || zero_below(b, a) ? b : a;
    }
    template <class T> __device__ T identity() const { return limits<T>::highest(); }
};

struct max {
    template <class T> __device__ T operator()(T a, T b) const
    {
        return beats_for_max(b, a) || zero_below(a, b) ? b : a;
    }
    template <class T> __device__ T identity() const { return limits<T>::lowest(); }
};

/* For float, sm_80 and later have min / max that propagate NaN in one
 * instruction (PTX min.NaN / max.NaN; the NaN is the canonical one, and
 * +0.0 counts as above -0.0), where the compare-and-select above takes
 * three. Scans of f32, f16 and bf16
 * (which accumulate in float) apply the op several times per element. */
template <bool IsMax> __device__ inline float float_extreme(float a, float b)
{
#if __CUDA_ARCH__ >= 800
    float r;
    if constexpr (IsMax)
        asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else
        asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return (IsMax ? beats_for_max(b, a) || zero_below(a, b) : beats_for_min(b, a) || zero_below(b, a)) ? b : a;
#endif
}
template <> __device__ inline float min::operator()<float>(float a, float b) const { return float_extreme<false>(a, b); }
template <> __device__ inline float max::operator()<float>(float a, float b) const { return float_extreme<true>(a, b); }

struct bit_and {
    template <class T> __device__ T operator()(T a, T b) const { return a & b; }
    template <class T> __device__ T identity() const { return ~T(0); }
};

struct bit_or {
    template <class T> __device__ T operator()(T a, T b) const { return a | b; }
    template <class T> __device__ T identity() const { return T(0); }
};

struct bit_xor {
    template <class T> __device__ T operator()(T a, T b) const { return a ^ b; }
    template <class T> __device__ T identity() const { return T(0); }
};

/* A value and the index it came from, for arg-min / arg-max. The identity's
 * index is the largest index, so any real element wins a tie with it. */
template <class T> struct indexed {
    T value;
    long long index;
};

template <bool IsMax> struct arg_extreme {
    static constexpr bool is_max = IsMax;
    template <class T> __device__ indexed<T> operator()(indexed<T> a, indexed<T> b) const
    {
        bool better = IsMax ? beats_for_max(b.value, a.value) : beats_for_min(b.value, a.value);
        bool earlier_tie = ties(a.value, b.value) && b.index < a.index;
        return (better || earlier_tie) ? b : a;
    }
    template <class I> __device__ I identity() const
    {
        using T = decltype(I::value);
        return I{IsMax ? limits<T>::lowest() : limits<T>::highest(), LLONG_MAX};
    }
};
using argmin = arg_extreme<false>;
using argmax = arg_extreme<true>;

} // namespace wk

#endif
