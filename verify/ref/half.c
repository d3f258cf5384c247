#include "ref/half.h"

#include <string.h>

/* CUDA drops a NaN's sign and payload when it converts; matching that keeps
 * round trips through the GPU and through this file bit-identical. */
#define CANONICAL_NAN16 0x7fffu

#define F32_ABS_MASK 0x7fffffffu
#define F32_INF 0x7f800000u

/* f16 layout: 1 sign, 5 exponent (bias 15), 10 mantissa bits; float has
 * bias 127 and 23 mantissa bits, so a normal float moves to f16 by
 * subtracting 112 from the exponent and rounding 13 mantissa bits away. */
#define F16_EXP_REBIAS (112u << 23)
#define F16_MANT_SHIFT 13u
#define F16_INF 0x7c00u

/* Thresholds on |f|'s float bits: at 65520 (f16 max 65504 plus half an ulp,
 * a tie whose even neighbour is infinity) and above, f16 overflows; below
 * 2^-14 it is subnormal; at or below 2^-25 (half the least subnormal, a tie
 * whose even neighbour is zero) it rounds to zero. */
#define F32_BITS_F16_OVERFLOW 0x477ff000u
#define F32_BITS_F16_MIN_NORMAL 0x38800000u
#define F32_BITS_F16_ZERO_LIMIT 0x33000000u

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* m >> s, rounded to nearest with ties to even; 1 <= s <= 31. A carry out of
 * the mantissa correctly bumps the exponent field above it. */
static uint32_t shift_round_even(uint32_t m, unsigned s)
{
    uint32_t q = m >> s;
    uint32_t rem = m & ((1u << s) - 1u);
    uint32_t half = 1u << (s - 1u);
    return q + (rem > half || (rem == half && (q & 1u)));
}

uint16_t wk_float_to_half(float f)
{
    uint32_t x = float_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t mag = x & F32_ABS_MASK;

    if (mag > F32_INF)
        return CANONICAL_NAN16;
    if (mag >= F32_BITS_F16_OVERFLOW)
        return (uint16_t)(sign | F16_INF);
    if (mag >= F32_BITS_F16_MIN_NORMAL)
        return (uint16_t)(sign | shift_round_even(mag - F16_EXP_REBIAS, F16_MANT_SHIFT));
    if (mag <= F32_BITS_F16_ZERO_LIMIT)
        return (uint16_t)sign;
    /* f16 subnormal: |f| / 2^-24 with the implicit bit made explicit.
     * |f| = sig * 2^(e - 150), so the quotient is sig >> (126 - e); the
     * limits above keep the shift within 14 .. 24. */
    uint32_t e = mag >> 23;
    uint32_t sig = (mag & 0x7fffffu) | 0x800000u;
    return (uint16_t)(sign | shift_round_even(sig, 126u - e));
}

uint16_t wk_float_to_bf16(float f)
{
    uint32_t x = float_bits(f);
    if ((x & F32_ABS_MASK) > F32_INF)
        return CANONICAL_NAN16;
    /* Rounding the low 16 bits away may carry into the exponent, which turns
     * the largest finite values into infinity exactly as IEEE requires. */
    return (uint16_t)shift_round_even(x, 16);
}

/* The external definitions of the decoders that half.h defines inline. */
extern inline float wk_half_to_float(uint16_t h);
extern inline float wk_bf16_to_float(uint16_t h);
