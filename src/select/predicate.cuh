/* The built-in predicates and the equality of wk_unique, evaluated on the
 * elements of a 16-byte vector. */
#ifndef WARPKIT_SELECT_PREDICATE_CUH
#define WARPKIT_SELECT_PREDICATE_CUH

#include "common/value.cuh"
#include "common/vector.cuh"
#include "warpkit.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <type_traits>

namespace wk {
namespace select {

/* Half types compare as their float values, which hold them exactly. */
__device__ inline float comparable(__half x) { return __half2float(x); }
__device__ inline float comparable(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class S> __device__ inline S comparable(S x) { return x; }

template <class S> using comparable_t = decltype(comparable(S()));

template <class T> __device__ inline bool is_nan(T x)
{
    if constexpr (std::is_floating_point<T>::value)
        return x != x;
    else
        return false;
}

/* Bit e of bits[k] is set when element e of x[k] satisfies the predicate.
 * The compare is uniform across the grid; the switch sits outside the loops
 * over the thread's vectors, so each thread branches on it once (inside
 * the loop over rounds the compiler kept one indirect branch per round for
 * floats). In C, every ordered comparison with a NaN is false and != is
 * true, which is what the header promises. */
template <class S, int R>
__device__ inline void predicate_bits(const vec<S> (&x)[R], const wk_predicate &p, unsigned (&bits)[R])
{
    using T = comparable_t<S>;
    const T a = comparable(value_of<S>(p.a)), b = comparable(value_of<S>(p.b));
    constexpr int V = vec<S>::size;
#pragma unroll
    for (int k = 0; k < R; ++k)
        bits[k] = 0;
#define WK_EACH_ELEMENT(test)                                                                                      \
    _Pragma("unroll") for (int k = 0; k < R; ++k) {                                                                \
        _Pragma("unroll") for (int e = 0; e < V; ++e) {                                                            \
            const T v = comparable(x[k].e[e]);                                                                     \
            bits[k] |= (unsigned)(test) << e;                                                                      \
        }                                                                                                          \
    }                                                                                                              \
    break
    switch (p.compare) {
    case WK_LESS: WK_EACH_ELEMENT(v < a);
    case WK_LESS_EQUAL: WK_EACH_ELEMENT(v <= a);
    case WK_GREATER: WK_EACH_ELEMENT(v > a);
    case WK_GREATER_EQUAL: WK_EACH_ELEMENT(v >= a);
    case WK_EQUAL: WK_EACH_ELEMENT(v == a);
    case WK_NOT_EQUAL: WK_EACH_ELEMENT(v != a);
    case WK_IN_RANGE: WK_EACH_ELEMENT(a <= v && v < b);
    case WK_IS_NAN: WK_EACH_ELEMENT(is_nan(v));
    case WK_NOT_NAN: WK_EACH_ELEMENT(!is_nan(v));
    default: break;
    }
#undef WK_EACH_ELEMENT
}

/* wk_unique's equality: the dtype's ==, so -0.0 equals +0.0 and a NaN
 * equals nothing. */
template <class S> __device__ inline bool same(S x, S y) { return comparable(x) == comparable(y); }

} // namespace select
} // namespace wk

#endif
