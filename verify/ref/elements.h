/* Element access shared by the CPU references and their checkers: typed
 * loaders that the compiler inlines into one loop per dtype (the checks
 * walk inputs of 2^31+ elements, where a call or a dtype switch per element
 * would dominate). Private to verify/ref. */
#ifndef WARPKIT_REF_ELEMENTS_H
#define WARPKIT_REF_ELEMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "ref/half.h"
#include "warpkit.h"

#if defined(__GNUC__)
#define WK_REF_KERNEL static inline __attribute__((always_inline))
#else
#define WK_REF_KERNEL static inline
#endif

/* Integers load as 64-bit patterns, sign-extended for signed dtypes: sums
 * and bitwise ops on them give the right low bits, and XOR with
 * WK_REF_SIGNED_ORDER_FLIP makes unsigned comparison the signed order. */
typedef uint64_t (*wk_ref_int_loader)(const void *data, size_t i);
/* Floats load as double, which holds every f32, f16 and bf16 value. */
typedef double (*wk_ref_float_loader)(const void *data, size_t i);

#define WK_REF_SIGNED_ORDER_FLIP (UINT64_C(1) << 63)

static inline uint64_t wk_ref_int_i32(const void *d, size_t i) { return (uint64_t)(int64_t)((const int32_t *)d)[i]; }
static inline uint64_t wk_ref_int_u32(const void *d, size_t i) { return ((const uint32_t *)d)[i]; }
static inline uint64_t wk_ref_int_64(const void *d, size_t i) { return ((const uint64_t *)d)[i]; }
static inline double wk_ref_float_f32(const void *d, size_t i) { return ((const float *)d)[i]; }
static inline double wk_ref_float_f64(const void *d, size_t i) { return ((const double *)d)[i]; }
static inline double wk_ref_float_f16(const void *d, size_t i) { return wk_half_to_float(((const uint16_t *)d)[i]); }
static inline double wk_ref_float_bf16(const void *d, size_t i) { return wk_bf16_to_float(((const uint16_t *)d)[i]); }

static inline wk_ref_int_loader wk_ref_int_loader_for(wk_dtype d)
{
    return d == WK_I32 ? wk_ref_int_i32 : d == WK_U32 ? wk_ref_int_u32 : wk_ref_int_64;
}

#endif
