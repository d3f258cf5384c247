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
/* u8 serves WK_BOOL too: its bytes are 0 or 1. */
static inline uint64_t wk_ref_int_u8(const void *d, size_t i) { return ((const uint8_t *)d)[i]; }
static inline uint64_t wk_ref_int_i8(const void *d, size_t i) { return (uint64_t)(int64_t)((const int8_t *)d)[i]; }
static inline uint64_t wk_ref_int_i16(const void *d, size_t i) { return (uint64_t)(int64_t)((const int16_t *)d)[i]; }
static inline uint64_t wk_ref_int_u16(const void *d, size_t i) { return ((const uint16_t *)d)[i]; }
static inline double wk_ref_float_f32(const void *d, size_t i) { return ((const float *)d)[i]; }
static inline double wk_ref_float_f64(const void *d, size_t i) { return ((const double *)d)[i]; }
static inline double wk_ref_float_f16(const void *d, size_t i) { return wk_half_to_float(((const uint16_t *)d)[i]); }
static inline double wk_ref_float_bf16(const void *d, size_t i) { return wk_bf16_to_float(((const uint16_t *)d)[i]); }

/* The signed integer dtypes: loaded sign-extended, ordered with
 * WK_REF_SIGNED_ORDER_FLIP. */
static inline int wk_ref_is_signed_int(wk_dtype d) { return d == WK_I32 || d == WK_I64 || d == WK_I8 || d == WK_I16; }

/* The loader of an integer dtype (64-bit for the others). */
static inline wk_ref_int_loader wk_ref_int_loader_for(wk_dtype d)
{
    switch (d) {
    case WK_I32: return wk_ref_int_i32;
    case WK_U32: return wk_ref_int_u32;
    case WK_BOOL: case WK_U8: return wk_ref_int_u8;
    case WK_I8: return wk_ref_int_i8;
    case WK_I16: return wk_ref_int_i16;
    case WK_U16: return wk_ref_int_u16;
    default: return wk_ref_int_64;
    }
}

/* The low `size` bytes of an integer pattern (1, 2, 4 or 8) as element i
 * of data, and back (zero-extended): the cut to the narrower type is the
 * wrap of a sum. */
static inline void wk_ref_int_put(void *data, size_t i, size_t size, uint64_t bits)
{
    switch (size) {
    case 1: ((uint8_t *)data)[i] = (uint8_t)bits; break;
    case 2: ((uint16_t *)data)[i] = (uint16_t)bits; break;
    case 4: ((uint32_t *)data)[i] = (uint32_t)bits; break;
    default: ((uint64_t *)data)[i] = bits; break;
    }
}

static inline uint64_t wk_ref_int_get(const void *data, size_t size)
{
    switch (size) {
    case 1: return *(const uint8_t *)data;
    case 2: return *(const uint16_t *)data;
    case 4: return *(const uint32_t *)data;
    default: return *(const uint64_t *)data;
    }
}

#endif
