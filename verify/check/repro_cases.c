#include "check/repro_cases.h"

#include "ref/half.h"
#include "ref/splitmix.h"

#include <math.h>
#include <string.h>

static const size_t sizes[] = {1, 2, 3, 7, 31, 32, 33, 257, 1000, 1025, 4097, 10007, 65537, 131071, 300001, 999};

void wk_repro_case_make(wk_dtype dtype, size_t n, wk_repro_kind kind, uint64_t seed, wk_repro_case *c)
{
    c->dtype = dtype;
    c->n = n;
    c->kind = kind;
    c->seed = seed;
}

void wk_repro_case_get(size_t index, wk_repro_case *c)
{
    static const wk_dtype dtypes[4] = {WK_F32, WK_F64, WK_F16, WK_BF16};
    size_t n = sizes[(index / 4 + index / 32) % (sizeof sizes / sizeof sizes[0])];
    wk_repro_case_make(dtypes[index % 4], n, (wk_repro_kind)((index / 4) % WK_RK_COUNT),
                       wk_splitmix64_at(0x5eed5eedu, index), c);
}

const char *wk_repro_kind_name(wk_repro_kind kind)
{
    static const char *const names[WK_RK_COUNT] = {"uniform", "mixed", "cancelling", "wide",
                                                   "huge_tiny", "subnormal", "specials", "zeros"};
    return kind < WK_RK_COUNT ? names[kind] : "?";
}

uint64_t wk_repro_hash_add(uint64_t hash, uint64_t bits)
{
    for (int i = 0; i < 8; ++i) {
        hash ^= (bits >> (8 * i)) & 0xffu;
        hash *= UINT64_C(0x100000001b3);
    }
    return hash;
}

/* Exponent range of a dtype's finite values: smallest subnormal, largest
 * normal binade. */
static void exponents(wk_dtype dtype, int *lo, int *hi, int *min_normal)
{
    switch (dtype) {
    case WK_F64: *lo = -1074; *hi = 1023; *min_normal = -1022; break;
    case WK_F32: *lo = -149; *hi = 127; *min_normal = -126; break;
    case WK_F16: *lo = -24; *hi = 15; *min_normal = -14; break;
    default: *lo = -133; *hi = 127; *min_normal = -126; break;
    }
}

static double unit(uint64_t r) { return (double)(r >> 11) * 0x1p-53; }

/* 2^e times a random significand in [1, 2), both signs if `signed`. */
static double scaled(uint64_t r, int e, int with_sign)
{
    double v = ldexp(1.0 + unit(r), e);
    return with_sign && (r & 1) ? -v : v;
}

static void store(const wk_repro_case *c, void *out, size_t i, double v)
{
    switch (c->dtype) {
    case WK_F64: ((double *)out)[i] = v; break;
    case WK_F32: ((float *)out)[i] = (float)v; break;
    case WK_F16: ((uint16_t *)out)[i] = wk_float_to_half((float)v); break;
    default: ((uint16_t *)out)[i] = wk_float_to_bf16((float)v); break;
    }
}

void wk_repro_case_fill(const wk_repro_case *c, void *out)
{
    int lo, hi, min_normal;
    exponents(c->dtype, &lo, &hi, &min_normal);
    uint64_t state = c->seed;
    uint64_t choice = wk_splitmix64_next(&state);
    size_t special_at = c->n ? (size_t)(choice >> 8) % c->n : 0;
    for (size_t i = 0; i < c->n; ++i) {
        uint64_t r = wk_splitmix64_next(&state);
        double v = 0;
        switch (c->kind) {
        case WK_RK_UNIFORM: v = unit(r); break;
        case WK_RK_MIXED: v = scaled(r, (int)((r >> 56) % 16) - 8, 1); break;
        case WK_RK_CANCELLING:
            /* Element i pairs with element n - 1 - i; the middle one of an
             * odd n is left alone. */
            {
                uint64_t pair = wk_splitmix64_at(c->seed, i < c->n - 1 - i ? i : c->n - 1 - i);
                int e = lo + 30 + (int)((pair >> 52) % (uint64_t)(hi - lo - 31));
                v = scaled(pair, e, 0);
                if (i > c->n - 1 - i)
                    v = -v;
                else if (i == c->n - 1 - i)
                    v = scaled(r, lo + 20, 1);
            }
            break;
        case WK_RK_WIDE: v = scaled(r, lo + (int)((r >> 52) % (uint64_t)(hi - lo)), 1); break;
        case WK_RK_HUGE_TINY:
            v = i == special_at ? scaled(r, hi - 2, 0) : scaled(r, min_normal + (int)((r >> 56) % 8), 1);
            break;
        case WK_RK_SUBNORMAL:
            v = (r >> 60) == 0 ? scaled(r, min_normal + 2, 1) : scaled(r, lo + (int)((r >> 56) % (uint64_t)(min_normal - lo)), 1);
            break;
        case WK_RK_SPECIALS:
            v = scaled(r, (int)((r >> 56) % 8), 1);
            if (i == special_at || (r >> 54) == 0) {
                int which = (int)(choice % 4); /* +inf, -inf, both, NaN */
                v = which == 0 ? INFINITY : which == 1 ? -INFINITY : which == 2 ? ((r & 2) ? INFINITY : -INFINITY) : NAN;
            }
            break;
        default: v = (choice & 1) || (r & 1) ? -0.0 : 0.0; break;
        }
        store(c, out, i, v);
    }
    /* Cancelling pairs need the same value in the dtype after conversion. */
    if (c->kind == WK_RK_CANCELLING && c->dtype != WK_F64) {
        size_t size = wk_dtype_size(c->dtype);
        for (size_t i = 0; i < c->n / 2; ++i) {
            unsigned char *a = (unsigned char *)out + i * size, *b = (unsigned char *)out + (c->n - 1 - i) * size;
            memcpy(b, a, size);
            b[size - 1] ^= 0x80; /* the sign bit: little-endian top byte */
        }
    }
}
