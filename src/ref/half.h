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

#ifdef __cplusplus
extern "C" {
#endif

float wk_half_to_float(uint16_t h);
uint16_t wk_float_to_half(float f);
float wk_bf16_to_float(uint16_t h);
uint16_t wk_float_to_bf16(float f);

#ifdef __cplusplus
}
#endif

#endif
