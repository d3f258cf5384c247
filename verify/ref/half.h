/* IEEE binary16 and bfloat16 on the host, as raw 16-bit patterns.
 *
 * The results are the same bits as CUDA's __half2float, __float2half_rn,
 * __bfloat162float and __float2bfloat16_rn, so a CPU reference can round
 * exactly as the GPU does: round to nearest even, overflow to infinity,
 * subnormals kept (no flush to zero). NaN stays NaN: a conversion to a
 * 16-bit type gives CUDA's canonical 0x7fff, f16 to float gives 0x7fffffff,
 * and bf16 to float keeps the pattern (it is the float's high half).
 */
#ifndef WARPKIT_REF_HALF_H
#define WARPKIT_REF_HALF_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

uint16_t wk_float_to_half(float f);
uint16_t wk_float_to_bf16(float f);

/* The decoders are inline definitions (C99 / C11 inline; half.c holds the
 * external ones) because the CPU reference decodes every element of inputs
 * of 2^31+ elements, and a call per element would dominate its run time. */

inline float wk_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1fu) {
        bits = mant ? 0x7fffffffu : sign | 0x7f800000u;
    } else if (exp == 0) {
        /* Subnormal (or zero): mant * 2^-24, exact in float. */
        float mag = (float)mant / 16777216.0f;
        memcpy(&bits, &mag, sizeof bits);
        bits |= sign;
    } else {
        /* Rebias the exponent from 15 to 127 and widen the mantissa from
         * 10 to 23 bits. */
        bits = sign | (((exp << 10 | mant) << 13) + (112u << 23));
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

inline float wk_bf16_to_float(uint16_t h)
{
    /* bf16 is a float's high half, NaN payloads included. */
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

#ifdef __cplusplus
}
#endif

#endif
