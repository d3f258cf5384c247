/* What the device-wide reduce computes, per dtype and op: the accumulator
 * type, how an element enters it, how two partial results combine, and how
 * the final result is stored. The kernel is written once against this. */
#ifndef WARPKIT_REDUCE_REDUCERS_CUH
#define WARPKIT_REDUCE_REDUCERS_CUH

#include "warpkit/ops.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace wk {
namespace reduce {

/* Half types accumulate in float. Signed integer sums accumulate in the
 * unsigned type of the same width, so that overflow wraps (defined) instead
 * of being undefined behaviour; 8- and 16-bit sums in 32 bits, cut to their
 * width when stored (the same bits modulo 2^bits). */
template <class S, class Op> struct accumulator { using type = S; };
template <class Op> struct accumulator<__half, Op> { using type = float; };
template <class Op> struct accumulator<__nv_bfloat16, Op> { using type = float; };
template <> struct accumulator<int, sum> { using type = unsigned; };
template <> struct accumulator<long long, sum> { using type = unsigned long long; };
template <> struct accumulator<signed char, sum> { using type = unsigned; };
template <> struct accumulator<unsigned char, sum> { using type = unsigned; };
template <> struct accumulator<short, sum> { using type = unsigned; };
template <> struct accumulator<unsigned short, sum> { using type = unsigned; };

template <class A, class S> __device__ inline A to_acc(S x) { return static_cast<A>(x); }
template <> __device__ inline float to_acc<float, __half>(__half x) { return __half2float(x); }
template <> __device__ inline float to_acc<float, __nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class S, class A> __device__ inline S from_acc(A x) { return static_cast<S>(x); }

/* A float sum that is NaN, as stored: the dtype's one NaN whatever NaN the
 * additions left. Which operand's NaN an f64 add keeps follows the operand
 * order, which the compiler may swap (the add commutes), so two code paths
 * that add in the same order can still leave NaNs of other signs. An f32 add
 * returns 0x7fffffff, but the add of the -0.0 that starts an inclusive scan
 * or a segment is an identity the compiler drops, which would pass an input
 * NaN's payload through. */
__device__ inline double canonical_nan_sum(double x)
{
    return x != x ? __longlong_as_double(0x7ff8000000000000ll) : x;
}
/* min.NaN against +inf returns x, or the canonical NaN 0x7fffffff for any
 * NaN: one instruction where the compare and select take two. */
__device__ inline float canonical_nan_sum(float x)
{
#if __CUDA_ARCH__ >= 800
    float y;
    asm("min.NaN.f32 %0, %1, 0f7F800000;" : "=f"(y) : "f"(x));
    return y;
#else
    return x != x ? __int_as_float(0x7fffffff) : x;
#endif
}
template <class S, class Op, class A> __device__ inline S stored_result(A x) { return from_acc<S>(x); }
template <> __device__ inline double stored_result<double, sum, double>(double x) { return canonical_nan_sum(x); }
template <> __device__ inline float stored_result<float, sum, float>(float x) { return canonical_nan_sum(x); }
template <> __device__ inline __half from_acc<__half, float>(float x) { return __float2half_rn(x); }
template <> __device__ inline __nv_bfloat16 from_acc<__nv_bfloat16, float>(float x) { return __float2bfloat16_rn(x); }

/* The sum of x[0 .. N) of 8- or 16-bit integers in 32 bits (W: int for
 * signed S, unsigned for unsigned), four bytes or two halves an
 * instruction: __dp4a / __dp2a_lo against ones, as the vector arrives in
 * whole words. */
template <class W, class S, int N> __device__ inline W narrow_vector_sum(const S (&x)[N])
{
    constexpr int per_word = 4 / (int)sizeof(S);
    if constexpr (N % per_word == 0) {
        W words[N / per_word];
        memcpy(words, x, sizeof words);
        W t = 0;
#pragma unroll
        for (int k = 0; k < N / per_word; ++k) {
            if constexpr (sizeof(S) == 1)
                t = __dp4a(words[k], (W)0x01010101, t);
            else
                t = __dp2a_lo(words[k], (W)0x00000101, t);
        }
        return t;
    } else {
        W t = 0;
#pragma unroll
        for (int j = 0; j < N; ++j)
            t += (W)x[j];
        return t;
    }
}

/* Loads a partial result written by another block: .cg reads from L2, so a
 * stale line in this SM's L1 cannot be seen. */
template <class T> __device__ inline T load_from_l2(const T *p) { return __ldcg(p); }
template <> __device__ inline bool load_from_l2<bool>(const bool *p)
{
    return __ldcg(reinterpret_cast<const unsigned char *>(p)) != 0;
}

/* A plain reduction (sum, min, max, bitwise): the partial is the accumulator.
 * With Out other than S, a widening sum (wk_reduce_to): each element is
 * converted exactly to Out's accumulator, and the result is stored as Out. */
template <class S, class Op, class Out = S> struct plain {
    using storage = S;
    using partial = typename accumulator<Out, Op>::type;

    static __device__ partial identity() { return Op{}.template identity<partial>(); }
    static __device__ partial element(S x, long long) { return to_acc<partial>(x); }
    static __device__ partial combine(partial a, partial b) { return Op{}(a, b); }
    static __device__ partial load_partial(const partial *p) { return load_from_l2(p); }

    /* Folds a vector of elements (first_index and up) into a thread's partial. */
    template <int N>
    static __device__ partial fold(partial acc, const S (&x)[N], long long)
    {
        if constexpr (std::is_same<Op, sum>::value && std::is_integral<S>::value && sizeof(S) <= 2) {
            /* 8- and 16-bit integers: the vector's sum in 32 bits, where its
             * at most 16 elements cannot overflow, then one add into the
             * partial (of 32 or 64 bits). */
            using W = typename std::conditional<std::is_signed<S>::value, int, unsigned>::type;
            using Wide = typename std::conditional<std::is_signed<S>::value, long long, unsigned long long>::type;
            const W t = narrow_vector_sum<W>(x);
            return acc + (partial)(Wide)t;
        } else if constexpr (std::is_same<Op, sum>::value && std::is_integral<S>::value &&
                             sizeof(partial) > sizeof(S)) {
            /* 32-bit integers into 64 bits: the vector's sum as a tree, then
             * one add into the partial, so that a round's adds are not one
             * long chain. */
            partial t[N];
#pragma unroll
            for (int j = 0; j < N; ++j)
                t[j] = to_acc<partial>(x[j]);
#pragma unroll
            for (int width = 1; width < N; width *= 2)
#pragma unroll
                for (int j = 0; j + width < N; j += 2 * width)
                    t[j] += t[j + width];
            return acc + t[0];
        } else {
#pragma unroll
            for (int j = 0; j < N; ++j)
                acc = Op{}(acc, to_acc<partial>(x[j]));
            return acc;
        }
    }
    static __device__ void store_result(void *out, partial p)
    {
        *static_cast<Out *>(out) = stored_result<Out, Op>(p);
    }
};

/* Arg-min / arg-max: the partial is a value and the index it came from.
 * Storing writes the layout of wk_arg_result: the value's bits zero-extended
 * to 8 bytes, then the index (-1 when there were no elements); with
 * IndexOnly, the index alone (wk_reduce_index). */
template <class S, class Op, bool IndexOnly = false> struct arg {
    using storage = S;
    using value = typename accumulator<S, Op>::type;
    using partial = indexed<value>;

    static __device__ partial identity() { return Op{}.template identity<partial>(); }
    static __device__ partial element(S x, long long i) { return partial{to_acc<value>(x), i}; }
    static __device__ partial combine(partial a, partial b) { return Op{}(a, b); }
    static __device__ partial load_partial(const partial *p)
    {
        return partial{load_from_l2(&p->value), load_from_l2(&p->index)};
    }

    /* A thread meets its elements in increasing index order, so within a
     * thread an equal value never replaces the one held: a strict comparison
     * replaces the full tie-break, and the 64-bit index is formed once per
     * vector rather than once per element. */
    static __device__ bool beats(value b, value a)
    {
        return Op::is_max ? beats_for_max(b, a) : beats_for_min(b, a);
    }
    /* The best of x[0 .. N) and its offset, as a tree of strict comparisons
     * with the earlier side on the left: equal values keep the earlier one,
     * and the dependency chain is log2(N) deep. N is 2, 4, 8 or 16. */
    template <int N>
    static __device__ __forceinline__ void best_of(const S (&x)[N], value &best, int &at)
    {
        value v[N];
        int offset[N];
#pragma unroll
        for (int j = 0; j < N; ++j) {
            v[j] = to_acc<value>(x[j]);
            offset[j] = j;
        }
#pragma unroll
        for (int width = 1; width < N; width *= 2) {
#pragma unroll
            for (int j = 0; j + width < N; j += 2 * width) {
                if (beats(v[j + width], v[j])) {
                    v[j] = v[j + width];
                    offset[j] = offset[j + width];
                }
            }
        }
        best = v[0];
        at = offset[0];
    }
    template <int N>
    static __device__ partial fold(partial acc, const S (&x)[N], long long first_index)
    {
        value best;
        int at;
        best_of(x, best, at);
        /* An empty partial (the identity) loses even to an equal value, so
         * that an input of nothing but -inf still reports index 0. */
        bool take = beats(best, acc.value) || acc.index == LLONG_MAX;
        return take ? partial{best, first_index + at} : acc;
    }
    static __device__ void store_result(void *out, partial p)
    {
        unsigned long long *words = static_cast<unsigned long long *>(out);
        const unsigned long long index = (unsigned long long)(p.index == LLONG_MAX ? -1ll : p.index);
        if constexpr (IndexOnly) {
            words[0] = index;
        } else {
            S stored = from_acc<S>(p.value);
            unsigned long long bits = 0;
            memcpy(&bits, &stored, sizeof(S));
            words[0] = bits;
            words[1] = index;
        }
    }
};

/* Lets the generic block reduce use a reducer as its operator. */
template <class R> struct combiner {
    template <class P> __device__ P operator()(P a, P b) const { return R::combine(a, b); }
    template <class P> __device__ P identity() const { return R::identity(); }
};

} // namespace reduce
} // namespace wk

#endif
