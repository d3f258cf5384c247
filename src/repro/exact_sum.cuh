/* The reproducible sum of f32 elements whose exact sum a double holds
 * (docs/repro.md, "Short segments"). The bins' result is the exact sum
 * rounded once to f32 whenever no element has bits below the third bin;
 * when the elements' exponents span few enough binades for their count, a
 * double adds them all without rounding, in any order, and its conversion
 * to f32 is that same single rounding: the same bits as the bins, for a
 * tenth of the work. A sum that cannot prove itself exact is redone in the
 * bins. */
#ifndef WARPKIT_REPRO_EXACT_SUM_CUH
#define WARPKIT_REPRO_EXACT_SUM_CUH

#include <cstdint>

namespace wk {
namespace repro {

/* A double sum of f32 elements with the largest biased exponent among them
 * and the smallest among the nonzero ones (subnormals as 1), which prove
 * it exact or not. Starts from -0.0, the sum's identity: a sum of nothing
 * but -0.0 stays -0.0, as the bins' sum does. */
struct exact_sum {
    double sum;
    uint32_t high; /* 255 once an infinity or NaN is seen */
    uint32_t low;  /* 255 while every element is zero     */
};

__device__ inline void exact_start(exact_sum &x)
{
    x.sum = -0.0;
    x.high = 0;
    x.low = 255;
}

/* The element's exponent into high and low. */
__device__ inline void exact_bound(exact_sum &x, uint32_t bits)
{
    const uint32_t e = (bits >> 23) & 0xffu;
    x.high = e > x.high ? e : x.high;
    const uint32_t nonzero_e = (bits << 1) == 0 ? 255u : e == 0 ? 1u : e;
    x.low = nonzero_e < x.low ? nonzero_e : x.low;
}

__device__ inline void exact_add(exact_sum &x, uint32_t bits)
{
    exact_bound(x, bits);
    x.sum += (double)__uint_as_float(bits);
}

/* Two sums of disjoint elements, as one. */
__device__ inline void exact_merge(exact_sum &x, const exact_sum &y)
{
    x.high = y.high > x.high ? y.high : x.high;
    x.low = y.low < x.low ? y.low : x.low;
    x.sum += y.sum;
}

/* Whether the sum of `count` elements is exact: every element is a whole
 * multiple of 2^(low - 150) below 2^(high - 126), so every partial sum is
 * such a multiple below count * 2^(high - low + 24) of them, which a double
 * holds exactly while that is at most 2^53. No element then lies 2^56 below
 * the largest, so the bins keep every bit too (docs/repro.md, "Error"). */
__device__ inline bool exact_holds(const exact_sum &x, long long count)
{
    if (x.high == 255u)
        return false;
    if (x.low == 255u)
        return true;
    const int high = x.high > 1u ? (int)x.high : 1;
    const int count_bits = count > 1 ? 64 - __clzll(count - 1) : 0; /* ceil(log2(count)) */
    return high - (int)x.low + count_bits <= 29;
}

/* The f32 bits of an exact sum of `count` elements: the double rounded
 * once, to nearest even; nothing at all sums to +0.0. */
__device__ inline uint32_t exact_result(const exact_sum &x, long long count)
{
    return count > 0 ? __float_as_uint(__double2float_rn(x.sum)) : 0u;
}

/* The exact sum as a reducer of f32 segments that lie end to end
 * (segmented/joined_runs.cuh): partials are plain doubles, and the joined
 * span is proven once for all its segments, with the warp's largest and
 * smallest exponents and its longest segment's length; every segment's
 * elements lie among the span's, so each one's sum is exact in any order.
 * The identity, -0.0, is what an empty segment stores too: its caller
 * writes those +0.0. */
struct exact_reducer {
    using storage = float;
    using partial = double;
    static __device__ double identity() { return -0.0; }
    static __device__ double element(float x, long long) { return (double)x; }
    static __device__ double combine(double a, double b) { return a + b; }
    static __device__ void store_result(void *out, double p) { *static_cast<float *>(out) = __double2float_rn(p); }
    /* Every lane calls it with its run of the span and the batch's longest
     * segment; the answer is the warp's. */
    static __device__ bool span_proven(const float *x, int len, unsigned longest)
    {
        exact_sum s;
        exact_start(s);
        for (int i = 0; i < len; ++i)
            exact_bound(s, __float_as_uint(x[i]));
        s.high = __reduce_max_sync(0xffffffffu, s.high);
        s.low = __reduce_min_sync(0xffffffffu, s.low);
        return exact_holds(s, longest);
    }
};

} // namespace repro
} // namespace wk

#endif
