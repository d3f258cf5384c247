#include "ref/repro_model.h"

#include "ref/half.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double wk_model_element(const void *in, size_t i, wk_dtype dtype)
{
    switch (dtype) {
    case WK_F64: return ((const double *)in)[i];
    case WK_F32: return (double)((const float *)in)[i];
    case WK_F16: return (double)wk_half_to_float(((const uint16_t *)in)[i]);
    default: return (double)wk_bf16_to_float(((const uint16_t *)in)[i]);
    }
}

void wk_model_repro(const void *in, size_t n, wk_dtype dtype, wk_rp *out)
{
    int top = WK_RP_LOWEST;
    uint32_t flags = n > 0 ? WK_RP_NONEMPTY : 0;
    wk_rp_work w;
    wk_rp_work_clear(&w, top);
    for (size_t i = 0; i < n; ++i) {
        double x = wk_model_element(in, i, dtype);
        if (!signbit(x))
            flags |= WK_RP_NONNEGATIVE;
        if (isnan(x)) {
            flags |= WK_RP_NAN;
            continue;
        }
        if (isinf(x)) {
            flags |= x > 0 ? WK_RP_POS_INF : WK_RP_NEG_INF;
            continue;
        }
        int needed = x == 0 ? WK_RP_LOWEST : wk_rp_top_for_biased((int)((wk_rp_bits(x) >> 52) & 0x7ff));
        if (needed > top) {
            wk_rp_work_raise(&w, top, needed);
            top = needed;
        }
        wk_rp_deposit_scaled(&w, top, x);
        wk_rp_renormalize(&w, WK_RP_FOLD);
    }
    wk_rp_from_work(out, &w, top, flags);
}

static int format_of(wk_dtype dtype) { return dtype == WK_F64 ? 8 : dtype == WK_F32 ? 4 : dtype == WK_F16 ? 2 : 3; }

uint64_t wk_model_round(const wk_rp *p, wk_dtype dtype) { return wk_rp_round(p, wk_rp_format_for(format_of(dtype))); }

/* ------------------------------------------------------------ exact sums */

/* Fixed point with its lowest bit at 2^-1074: 32-bit digits held in int64
 * so that additions carry lazily. 2^-1074 .. 2^1024 plus 60 bits of room. */
#define DIGITS 70

typedef struct exact {
    int64_t d[DIGITS];
} exact;

static void exact_add(exact *a, double x)
{
    if (x == 0)
        return;
    int e;
    double m = frexp(fabs(x), &e); /* |x| = m 2^e, m in [0.5, 1) */
    /* |x| = mant * 2^(e - 53), an integer times a power of two >= 2^-1074. */
    uint64_t mant = (uint64_t)ldexp(m, 53);
    int low = e - 53 + 1074;
    while (low < 0) { /* subnormals: the low bits are zero */
        mant >>= 1;
        low++;
    }
    int digit = low / 32, shift = low % 32;
    unsigned __int128 v = (unsigned __int128)mant << shift;
    int64_t sign = x < 0 ? -1 : 1;
    for (int k = 0; k < 3 && digit + k < DIGITS; ++k)
        a->d[digit + k] += sign * (int64_t)((uint64_t)(v >> (32 * k)) & 0xffffffffu);
}

/* Propagates carries: every digit in [0, 2^32) but the top, which holds the
 * sign. */
static void exact_normalize(exact *a)
{
    for (int k = 0; k < DIGITS - 1; ++k) {
        int64_t carry = a->d[k] >> 32; /* floor */
        a->d[k] -= carry * ((int64_t)1 << 32);
        a->d[k + 1] += carry;
    }
}

static void exact_sum(exact *a, const double *x, size_t n)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < n; ++i) {
        exact_add(a, x[i]);
        if ((i & 0xfffff) == 0xfffff)
            exact_normalize(a);
    }
    exact_normalize(a);
}

/* Magnitude of a normalized value, and its sign. */
static int exact_magnitude(exact *a)
{
    if (a->d[DIGITS - 1] >= 0)
        return 0;
    for (int k = 0; k < DIGITS; ++k)
        a->d[k] = -a->d[k];
    exact_normalize(a);
    return 1;
}

static int exact_bit(const exact *a, int i) { return (int)((a->d[i / 32] >> (i % 32)) & 1); }

static int exact_top_bit(const exact *a)
{
    for (int i = DIGITS * 32 - 1; i >= 0; --i)
        if (exact_bit(a, i))
            return i;
    return -1;
}

uint64_t wk_exact_sum_bits(const double *x, size_t n, wk_dtype dtype)
{
    int p = dtype == WK_F64 ? 53 : dtype == WK_F32 ? 24 : dtype == WK_F16 ? 11 : 8;
    int ebits = dtype == WK_F64 ? 11 : dtype == WK_F16 ? 5 : 8;
    int bias = (1 << (ebits - 1)) - 1;
    exact a;
    exact_sum(&a, x, n);
    int negative = exact_magnitude(&a);
    uint64_t sign = negative ? (uint64_t)1 << (p - 1 + ebits) : 0;
    int top = exact_top_bit(&a);
    if (top < 0)
        return 0;
    /* Bit i is worth 2^(i - 1074); the value's exponent is top - 1074. The
     * lowest kept bit: p bits below the top, but not below the subnormal
     * unit 2^(1 - bias - (p - 1)). */
    int e = top - 1074;
    int lowest = top - (p - 1);
    int sub_unit = 1 - bias - (p - 1) + 1074;
    if (lowest < sub_unit)
        lowest = sub_unit;
    uint64_t q = 0;
    for (int i = top; i >= lowest && i >= 0; --i)
        q = (q << 1) | (uint64_t)exact_bit(&a, i);
    if (lowest > top)
        q = 0;
    /* Round to nearest even on the bits below `lowest`. */
    if (lowest > 0) {
        int half = lowest - 1 <= top ? exact_bit(&a, lowest - 1) : 0;
        int sticky = 0;
        for (int i = lowest - 2; i >= 0 && !sticky; --i)
            sticky = exact_bit(&a, i);
        if (half && (sticky || (q & 1)))
            q++;
    }
    /* q counts units of 2^(lowest - 1074); encode. */
    uint64_t inf = (((uint64_t)1 << ebits) - 1) << (p - 1);
    uint64_t bits;
    if (lowest == sub_unit && (q >> (p - 1)) == 0)
        bits = q; /* subnormal */
    else {
        int exp = (lowest - 1074) + (p - 1); /* exponent of q's leading bit if q < 2^p */
        if (q >> p) {                         /* rounding carried into a new bit */
            q >>= 1;
            exp++;
        }
        (void)e;
        if (exp + bias >= (1 << ebits) - 1)
            return sign | inf;
        bits = ((uint64_t)(exp + bias) << (p - 1)) | (q & (((uint64_t)1 << (p - 1)) - 1));
    }
    return sign | bits;
}

double wk_exact_error(const double *x, size_t n, double r)
{
    exact a;
    exact_sum(&a, x, n);
    exact_add(&a, -r);
    exact_normalize(&a);
    exact_magnitude(&a);
    int top = exact_top_bit(&a);
    if (top < 0)
        return 0;
    /* The top 53 bits, rounded up when anything lies below them. */
    int from = top - 52 > 0 ? top - 52 : 0;
    uint64_t q = 0;
    for (int i = top; i >= from; --i)
        q = (q << 1) | (uint64_t)exact_bit(&a, i);
    int below = 0;
    for (int i = from - 1; i >= 0 && !below; --i)
        below = exact_bit(&a, i);
    return ldexp((double)(q + (uint64_t)below), from - 1074);
}

double wk_bits_value(uint64_t bits, wk_dtype dtype)
{
    switch (dtype) {
    case WK_F64: {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    case WK_F32: {
        uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    case WK_F16: return wk_half_to_float((uint16_t)bits);
    default: return wk_bf16_to_float((uint16_t)bits);
    }
}

double wk_ulp_at(double v, wk_dtype dtype)
{
    int p = dtype == WK_F64 ? 53 : dtype == WK_F32 ? 24 : dtype == WK_F16 ? 11 : 8;
    int emin = dtype == WK_F64 ? -1022 : dtype == WK_F16 ? -14 : -126;
    int e;
    frexp(fabs(v), &e); /* |v| in [2^(e-1), 2^e) */
    int exp = v == 0 ? emin : e - 1 < emin ? emin : e - 1;
    return ldexp(1.0, exp - (p - 1));
}
