/* The reproducible sum's arithmetic, shared by the kernels (CUDA) and the
 * host (C11): binned accumulation after Ahrens, Demmel and Nguyen,
 * "Algorithms for Efficient Reproducible Floating Point Summation" (ACM TOMS
 * 46(3), 2020), here with double-precision bins for every float dtype.
 *
 * The bins sit on a fixed lattice of exponents: bin j has the unit
 * 2^a(j), a(j) = -1074 + 40 j, for j = 0 .. 52. An accumulator keeps the
 * three bins top, top-1, top-2, where `top` is the lowest bin whose limit
 * 2^(a(top) + 39) is above every |x| seen. Each element is split exactly
 * into one multiple of each kept bin's unit (rounded to nearest, ties broken
 * by the element's own bits, never by the accumulator's state) and a rest
 * below the lowest bin, which is dropped. Every addition into a bin is
 * exact, so the bins hold exact sums and the order of the additions does not
 * matter; the parts an element puts into a bin depend only on the element
 * and the bin, and a higher top only drops more of the low bins. The result
 * is therefore a function of the multiset of inputs alone, and the final
 * rounding is a correctly rounded conversion of the kept bins' exact total.
 *
 * Error: |result - exact sum| <= half an ulp of the result
 *                                 + n * 2^-80 * max|x|.
 */
#ifndef WARPKIT_REPRO_BINNED_H
#define WARPKIT_REPRO_BINNED_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define WK_HD __host__ __device__ __forceinline__
#else
#define WK_HD static inline
#endif
#ifdef __CUDA_ARCH__
#define WK_RP_UNROLL _Pragma("unroll")
#else
#define WK_RP_UNROLL
#endif

#define WK_RP_WIDTH 40   /* exponent bits between neighbouring bins          */
#define WK_RP_FOLD 3     /* bins an accumulator keeps                         */
#define WK_RP_LOWEST 2   /* lattice index of the lowest top (bins 2, 1, 0)    */
#define WK_RP_HIGHEST 52 /* a top that covers every finite double             */
#define WK_RP_SCALED 52  /* the top bin is stored scaled by 2^-128 so that its
                            constants stay finite (1.5 * 2^1058 unscaled)     */
#define WK_RP_SCALE 128

/* Flags a partial carries beside its bins. */
#define WK_RP_NAN 1u         /* a NaN was summed                                 */
#define WK_RP_POS_INF 2u     /* +inf was summed                                  */
#define WK_RP_NEG_INF 4u     /* -inf was summed                                  */
#define WK_RP_NONEMPTY 8u    /* at least one element                             */
#define WK_RP_NONNEGATIVE 16u /* an element with its sign bit clear: the sum of
                                 nothing but -0.0 is -0.0, any other zero +0.0 */

/* The canonical partial: exact, order-free, 64 bytes (wk_repro_partial).
 * Bin k (lattice index top - k) holds (hi[k] * 2^50 + lo[k]) units, with
 * lo[k] in [-2^49, 2^49). */
typedef struct wk_rp {
    int32_t top;
    uint32_t flags;
    int64_t hi[WK_RP_FOLD];
    int64_t lo[WK_RP_FOLD];
    int64_t reserved;
} wk_rp;

/* ------------------------------------------------------------ bit helpers */

/* Defines `name`, the 8 bytes of a `from` as a `to`: memcpy, a plain move
 * on the host and on the device alike. */
#define WK_RP_REINTERPRET(name, to, from)                                      \
    WK_HD to name(from x)                                                      \
    {                                                                          \
        to y;                                                                  \
        memcpy(&y, &x, sizeof y);                                              \
        return y;                                                              \
    }

WK_RP_REINTERPRET(wk_rp_bits, uint64_t, double)   /* a double's bits */
WK_RP_REINTERPRET(wk_rp_double, double, uint64_t) /* and back        */

/* 2^e for -1074 <= e <= 1023 (subnormal below -1022). */
WK_HD double wk_rp_pow2(int e)
{
    return e >= -1022 ? wk_rp_double((uint64_t)(e + 1023) << 52) : wk_rp_double(1ull << (e + 1074));
}

/* The unit exponent a bin is stored with (its true unit over its scale). */
WK_HD int wk_rp_unit(int j) { return -1074 + WK_RP_WIDTH * j - (j >= WK_RP_SCALED ? WK_RP_SCALE : 0); }

/* The value an empty bin holds: 1.5 * 2^(unit + 52). Any addition of a
 * multiple of the unit below 2^(unit + 51) in size stays in its binade and is
 * exact. */
WK_HD double wk_rp_base(int j) { return 1.5 * wk_rp_pow2(wk_rp_unit(j) + 52); }

/* The renormalization step 2^(unit + 50). */
WK_HD double wk_rp_step(int j) { return wk_rp_pow2(wk_rp_unit(j) + 50); }

/* The lowest top whose limit is above a value with this biased double
 * exponent (0 for zero and subnormals). */
WK_HD int wk_rp_top_for_biased(int biased)
{
    int j = (biased + 52) / WK_RP_WIDTH;
    return j < WK_RP_LOWEST ? WK_RP_LOWEST : j;
}

/* Exponent of the limit of top j: elements must be below 2^this. */
WK_HD int wk_rp_limit_exponent(int j) { return WK_RP_WIDTH * j - 1035; }

/* x with its last significand bit set: never halfway between two multiples
 * of a bin's unit, and rounded like x everywhere else. */
WK_HD double wk_rp_odd(double x) { return wk_rp_double(wk_rp_bits(x) | 1u); }

/* ---------------------------------------------------- the working form */

/* The form an accumulating thread keeps in registers: bin k holds its sum in
 * a double near base(top - k) plus carry[k] steps. */
typedef struct wk_rp_work {
    double bin[WK_RP_FOLD];
    int64_t carry[WK_RP_FOLD];
} wk_rp_work;

WK_HD void wk_rp_work_clear(wk_rp_work *w, int top)
{
    WK_RP_UNROLL
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        w->bin[k] = wk_rp_base(top - k);
        w->carry[k] = 0;
    }
}

/* x, made odd unless the bin is lattice 0: its unit 2^-1074 divides every
 * double, so x goes in exactly and needs no tie breaking (the last bit of x
 * is worth as much as the unit there). */
WK_HD double wk_rp_odd_above(double x, int j) { return j > 0 ? wk_rp_odd(x) : x; }

/* Splits x (finite, |x| below the limit of `top`) into the bins. Tops below
 * WK_RP_SCALED only: the fast path. */
WK_HD void wk_rp_deposit(wk_rp_work *w, int top, double x)
{
    WK_RP_UNROLL
    for (int k = 0; k < WK_RP_FOLD - 1; ++k) {
        double q = w->bin[k] + wk_rp_odd(x);
        double part = q - w->bin[k];
        w->bin[k] = q;
        x -= part;
    }
    w->bin[WK_RP_FOLD - 1] += wk_rp_odd_above(x, top - (WK_RP_FOLD - 1));
}

/* The same split when x is zero or its lowest significand bit is worth at
 * least bin top - 1's unit: the rest after bin 0 is then a whole number of
 * those units, so bin 1 takes it exactly and bin 2 takes nothing, and the
 * bins end bit for bit as wk_rp_deposit leaves them, in 4 additions, not 7.
 * Tops below WK_RP_SCALED only. */
WK_HD void wk_rp_deposit_coarse(wk_rp_work *w, double x)
{
    double q = w->bin[0] + wk_rp_odd(x);
    double part = q - w->bin[0];
    w->bin[0] = q;
    w->bin[1] += x - part;
}

/* The same for any top: the bin from WK_RP_SCALED up takes x scaled by
 * 2^-128 (exact wherever the part is not zero). */
WK_HD void wk_rp_deposit_scaled(wk_rp_work *w, int top, double x)
{
    const double down = wk_rp_pow2(-WK_RP_SCALE), up = wk_rp_pow2(WK_RP_SCALE);
    WK_RP_UNROLL
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        bool scaled = top - k >= WK_RP_SCALED;
        double xs = scaled ? x * down : x;
        double q = w->bin[k] + wk_rp_odd_above(xs, top - k);
        double part = q - w->bin[k];
        w->bin[k] = q;
        /* The rest in the scaled space: a part of the top bin may be 2^1024
         * itself. A zero part leaves x as it was, however small. */
        x = !scaled ? x - part : part == 0 ? x : (xs - part) * up;
    }
}

/* Moves whole steps out of the first `bins` bins into their carries:
 * afterwards each is within one step of its base. A bin stays in the binade
 * of its base, [1, 2) * 2^(unit + 52), where base is 1.5 and a step 0.25:
 * the two leading fraction bits say 11 (a step or more above) or 00 (more
 * than a step below), and a step is one unit of bit 18 of the high word. */
WK_HD void wk_rp_renormalize(wk_rp_work *w, int bins)
{
    WK_RP_UNROLL
    for (int k = 0; k < bins; ++k) {
        uint64_t b = wk_rp_bits(w->bin[k]);
        unsigned lead = (unsigned)(b >> 50) & 3u;
        int64_t move = (lead == 3u) - (lead == 0u);
        w->bin[k] = wk_rp_double(b - (uint64_t)(move * ((int64_t)1 << 50)));
        w->carry[k] += move;
    }
}

/* ------------------------------------------------- the canonical form */

/* (bin - base) in units of the bin: an exact integer below 2^52. */
WK_HD int64_t wk_rp_units(double bin, int j)
{
    double t = bin - wk_rp_base(j);
    uint64_t b = wk_rp_bits(t);
    int biased = (int)((b >> 52) & 0x7ff);
    int64_t mant = (int64_t)((b & 0xfffffffffffffull) | (biased ? 1ull << 52 : 0));
    int shift = (biased ? biased : 1) - 1075 - wk_rp_unit(j); /* t = mant * 2^(that + unit) */
    int64_t u = shift >= 0 ? mant << shift : mant >> -shift;
    return (b >> 63) ? -u : u;
}

WK_HD void wk_rp_clear(wk_rp *p)
{
    p->top = WK_RP_LOWEST;
    p->flags = 0;
    WK_RP_UNROLL
    for (int k = 0; k < WK_RP_FOLD; ++k)
        p->hi[k] = p->lo[k] = 0;
    p->reserved = 0;
}

/* Brings lo[k] into [-2^49, 2^49), moving whole 2^50s into hi[k]. */
WK_HD void wk_rp_normalize(wk_rp *p)
{
    const int64_t half = (int64_t)1 << 49;
    WK_RP_UNROLL
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        int64_t moved = (p->lo[k] + half) >> 50; /* floor division */
        p->hi[k] += moved;
        p->lo[k] -= moved * ((int64_t)1 << 50);
    }
}

WK_HD void wk_rp_from_work(wk_rp *p, const wk_rp_work *w, int top, uint32_t flags)
{
    p->top = top;
    p->flags = flags;
    p->reserved = 0;
    WK_RP_UNROLL
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        p->hi[k] = w->carry[k];
        p->lo[k] = wk_rp_units(w->bin[k], top - k);
    }
    wk_rp_normalize(p);
}

/* Raises p's top to `top` (>= p->top): the bins that fall below are
 * dropped, as if the elements had been split under the higher top. (Selects
 * over fixed indices, so that a GPU keeps the partial in registers.) */
WK_HD void wk_rp_raise(wk_rp *p, int top)
{
    int shift = top - p->top;
    WK_RP_UNROLL
    for (int k = WK_RP_FOLD - 1; k >= 0; --k) {
        int64_t hi = 0, lo = 0;
        WK_RP_UNROLL
        for (int from = 0; from <= k; ++from)
            if (k - from == shift) {
                hi = p->hi[from];
                lo = p->lo[from];
            }
        p->hi[k] = hi;
        p->lo[k] = lo;
    }
    if (shift > 0)
        p->top = top;
}

/* The same for the working form, from `top` to `new_top`; new bins start
 * empty. */
WK_HD void wk_rp_work_raise(wk_rp_work *w, int top, int new_top)
{
    int shift = new_top - top;
    WK_RP_UNROLL
    for (int k = WK_RP_FOLD - 1; k >= 0; --k) {
        double bin = wk_rp_base(new_top - k);
        int64_t carry = 0;
        WK_RP_UNROLL
        for (int from = 0; from <= k; ++from)
            if (k - from == shift) {
                bin = w->bin[from];
                carry = w->carry[from];
            }
        w->bin[k] = bin;
        w->carry[k] = carry;
    }
}

/* a += b, exactly: the result is the same whatever the order of a series
 * of combinations. */
WK_HD void wk_rp_combine(wk_rp *a, const wk_rp *b)
{
    wk_rp c = *b;
    if (c.top > a->top)
        wk_rp_raise(a, c.top);
    else
        wk_rp_raise(&c, a->top);
    WK_RP_UNROLL
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        a->hi[k] += c.hi[k];
        a->lo[k] += c.lo[k];
    }
    a->flags |= c.flags;
    wk_rp_normalize(a);
}

/* ------------------------------------------------------ final rounding */

/* IEEE formats the sum can be rounded to. */
typedef struct wk_rp_format {
    int precision; /* significand bits, the hidden one included */
    int exponent_bits;
    uint64_t nan;  /* the quiet NaN returned */
} wk_rp_format;

/* The format of a float dtype by its size and kind: 8 (f64), 4 (f32),
 * 2 (f16) and 3 (bf16, two bytes too). */
WK_HD wk_rp_format wk_rp_format_for(int which)
{
    wk_rp_format f;
    switch (which) {
    case 8: f.precision = 53; f.exponent_bits = 11; f.nan = 0x7ff8000000000000ull; break;
    case 4: f.precision = 24; f.exponent_bits = 8; f.nan = 0x7fc00000ull; break;
    case 2: f.precision = 11; f.exponent_bits = 5; f.nan = 0x7e00ull; break;
    default: f.precision = 8; f.exponent_bits = 8; f.nan = 0x7fc0ull; break;
    }
    return f;
}

/* The smallest magnitude key of format f (keys as in repro/elements.cuh: the
 * bits without the sign, f64's high word) whose elements all have their
 * lowest significand bit worth at least bin top - 1's unit; 1 when every
 * element does. Above every finite key when none does. Zero always may. */
WK_HD uint32_t wk_rp_coarse_floor(wk_rp_format f, int top)
{
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const int shift = f.precision > 32 ? f.precision - 33 : f.precision - 1; /* exponent's place in a key */
    /* A normal element of biased exponent e has its lowest bit at
     * e - bias - (precision - 1); subnormals have that of e = 1. */
    const int lowest_ok = wk_rp_unit(top - 1) + bias + f.precision - 1;
    if (lowest_ok <= 1)
        return 1;
    const int special = (1 << f.exponent_bits) - 1;
    return (uint32_t)(lowest_ok < special ? lowest_ok : special) << shift;
}

/* A 256-bit two's complement integer, little-endian 64-bit words. Every
 * index below is a constant once loops unroll, so that a GPU keeps it in
 * registers. */
typedef struct wk_rp_wide {
    uint64_t w[4];
} wk_rp_wide;

/* t += v * 2^shift, 0 <= shift < 192. */
WK_HD void wk_rp_wide_add(wk_rp_wide *t, int64_t v, int shift)
{
    const uint64_t ext = v < 0 ? ~0ull : 0ull; /* the words above v */
    const int words = shift / 64, bits = shift % 64;
    uint64_t carry = 0;
    WK_RP_UNROLL
    for (int i = 0; i < 4; ++i) {
        /* Word i of v << shift: from v's words i - words and i - words - 1. */
        uint64_t here = i < words ? 0 : i == words ? (uint64_t)v : ext;
        uint64_t below = i <= words ? 0 : i == words + 1 ? (uint64_t)v : ext;
        uint64_t add = (here << bits) | (bits ? below >> (64 - bits) : 0);
        if (i < words)
            add = 0;
        uint64_t s = t->w[i] + add;
        uint64_t c1 = s < add;
        uint64_t r = s + carry;
        carry = c1 | (r < s);
        t->w[i] = r;
    }
}

WK_HD int wk_rp_clz64(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return __clzll((long long)x);
#else
    return x ? __builtin_clzll(x) : 64;
#endif
}

/* The partial's exact total, rounded to nearest (ties to even) in format f,
 * as the format's bits. */
WK_HD uint64_t wk_rp_round(const wk_rp *p, wk_rp_format f)
{
    const int bias = (1 << (f.exponent_bits - 1)) - 1, emin = 1 - bias, emax = bias;
    const uint64_t sign_bit = 1ull << (f.precision - 1 + f.exponent_bits);
    const uint64_t inf = (sign_bit - 1) & ~((1ull << (f.precision - 1)) - 1);
    if ((p->flags & WK_RP_NAN) || ((p->flags & WK_RP_POS_INF) && (p->flags & WK_RP_NEG_INF)))
        return f.nan;
    if (p->flags & WK_RP_POS_INF)
        return inf;
    if (p->flags & WK_RP_NEG_INF)
        return sign_bit | inf;

    /* The total in units of the lowest bin's 2^a(top - 2). */
    wk_rp_wide t = {{0, 0, 0, 0}};
    WK_RP_UNROLL
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        const int above = WK_RP_WIDTH * (WK_RP_FOLD - 1 - k);
        wk_rp_wide_add(&t, p->lo[k], above);
        wk_rp_wide_add(&t, p->hi[k], above + 50);
    }
    uint64_t sign = 0;
    if (t.w[3] >> 63) {
        sign = sign_bit;
        wk_rp_wide neg = {{~t.w[0], ~t.w[1], ~t.w[2], ~t.w[3]}};
        wk_rp_wide_add(&neg, 1, 0);
        t = neg;
    }
    /* The top set bit, and the 64 bits from it down (`top64`, leading bit
     * at 63) with a sticky flag for anything below them. */
    int top_bit = -1;
    WK_RP_UNROLL
    for (int i = 0; i < 4; ++i)
        if (t.w[i])
            top_bit = 64 * i + 63 - wk_rp_clz64(t.w[i]);
    if (top_bit < 0) {
        int negative_zero = (p->flags & WK_RP_NONEMPTY) && !(p->flags & WK_RP_NONNEGATIVE);
        return negative_zero ? sign_bit : 0;
    }
    const int low = top_bit - 63; /* bit of t at bit 0 of top64 */
    uint64_t top64 = 0;
    int sticky = 0;
    if (low <= 0) {
        top64 = t.w[0] << -low;
    } else {
        const int word = low / 64, shift = low % 64;
        WK_RP_UNROLL
        for (int i = 0; i < 4; ++i) {
            uint64_t next = i + 1 < 4 ? t.w[i + 1 < 4 ? i + 1 : 3] : 0;
            if (i == word) {
                top64 = (t.w[i] >> shift) | (shift ? next << (64 - shift) : 0);
                sticky |= (t.w[i] & ((1ull << shift) - 1)) != 0;
            }
            if (i < word)
                sticky |= t.w[i] != 0;
        }
    }
    const int unit = -1074 + WK_RP_WIDTH * (p->top - (WK_RP_FOLD - 1)); /* exponent of t's bit 0 */
    const int e = top_bit + unit;                                       /* value in [2^e, 2^(e+1)) */
    if (e > emax)
        return sign | inf;
    const int keep = e >= emin ? f.precision : f.precision - (emin - e);
    uint64_t mant;
    if (keep <= 0) {
        /* Below the smallest subnormal: more than half of it rounds up. */
        mant = keep == 0 && (sticky || (top64 << 1) != 0) ? 1 : 0;
    } else {
        mant = top64 >> (64 - keep);
        uint64_t rest = top64 << keep; /* the bits rounded away, leading at 63 */
        int half = (int)(rest >> 63);
        sticky |= (rest << 1) != 0;
        if (half && (sticky || (mant & 1)))
            mant += 1;
    }
    uint64_t bits;
    if (e >= emin)
        bits = ((uint64_t)(e + bias - 1) << (f.precision - 1)) + mant; /* a carry out of mant bumps e */
    else
        bits = mant; /* subnormal; rounding up to 2^(p-1) makes it the smallest normal */
    if (bits >= inf)
        return sign | inf;
    return sign | bits;
}

#endif
