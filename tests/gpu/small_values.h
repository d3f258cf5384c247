/* Inputs of small integers in any dtype, for tests that compare two ways of
 * computing the same result bit for bit: sums of such values are exact in
 * every float dtype as long as the prefixes stay small (a bounded walk), so
 * any order of addition gives the same bits, and the small range gives runs
 * of equal elements for unique. */
#ifndef WARPKIT_TEST_SMALL_VALUES_H
#define WARPKIT_TEST_SMALL_VALUES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ref/splitmix.h"
#include "warpkit.h"

/* The f16 and bf16 bits of a small integer (|v| < 2048), exactly. */
static inline uint16_t small_half_bits(int v)
{
    if (v == 0)
        return 0;
    const uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned m = (unsigned)(v < 0 ? -v : v);
    int e = 0;
    while ((m >> e) > 1)
        ++e;
    /* 1.f x 2^e: 10 fraction bits, exponent bias 15. */
    return (uint16_t)(sign | ((e + 15) << 10) | (((m << 10) >> e) & 0x3ff));
}

static inline uint16_t small_bf16_bits(int v)
{
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (uint16_t)(bits >> 16); /* exact: a small integer has few bits */
}

/* Element i of buf (dtype t) set to the integer v (unsigned dtypes: v + 8). */
static inline void small_put(void *buf, size_t i, wk_dtype t, int v)
{
    switch (t) {
    case WK_I32: ((int32_t *)buf)[i] = v; break;
    case WK_U32: ((uint32_t *)buf)[i] = (uint32_t)(v + 8); break;
    case WK_I64: ((int64_t *)buf)[i] = v; break;
    case WK_U64: ((uint64_t *)buf)[i] = (uint64_t)(v + 8); break;
    case WK_F32: ((float *)buf)[i] = (float)v; break;
    case WK_F64: ((double *)buf)[i] = v; break;
    case WK_F16: ((uint16_t *)buf)[i] = small_half_bits(v); break;
    case WK_BF16: ((uint16_t *)buf)[i] = small_bf16_bits(v); break;
    }
}

/* n elements: a walk of steps -1, 0, +1 that stays within [-40, 40], so
 * every prefix sum is a small integer; `seed` picks the walk. */
static inline void small_walk(void *buf, size_t n, wk_dtype t, uint64_t seed)
{
    int at = 0;
    for (size_t i = 0; i < n; ++i) {
        int step = (int)(wk_splitmix64_at(seed, i) % 3) - 1;
        if (at + step > 40 || at + step < -40)
            step = -step;
        at += step;
        small_put(buf, i, t, step);
    }
}

/* Elements a and b (dtype t) are the same: equal bits, or both NaN. */
static inline int small_same(const void *a, const void *b, wk_dtype t)
{
    const size_t size = wk_dtype_size(t);
    if (memcmp(a, b, size) == 0)
        return 1;
    uint64_t x = 0, y = 0;
    memcpy(&x, a, size);
    memcpy(&y, b, size);
    switch (t) {
    case WK_F32: {
        float f, g;
        memcpy(&f, a, 4);
        memcpy(&g, b, 4);
        return isnan(f) && isnan(g);
    }
    case WK_F64: {
        double f, g;
        memcpy(&f, a, 8);
        memcpy(&g, b, 8);
        return isnan(f) && isnan(g);
    }
    case WK_F16: return (x & 0x7fff) > 0x7c00 && (y & 0x7fff) > 0x7c00;
    case WK_BF16: return (x & 0x7fff) > 0x7f80 && (y & 0x7fff) > 0x7f80;
    default: return 0;
    }
}

/* The first index where a and b (n elements) differ, or n. */
static inline size_t small_first_difference(const void *a, const void *b, size_t n, wk_dtype t)
{
    const size_t size = wk_dtype_size(t);
    for (size_t i = 0; i < n; ++i)
        if (!small_same((const char *)a + i * size, (const char *)b + i * size, t))
            return i;
    return n;
}

#endif
