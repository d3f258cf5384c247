#include "check/case_data.h"

#include "warpkit.h"
#include "ref/reference.h"

#include <math.h>
#include <string.h>

/* Stores at h[i] a NaN of dtype with the given sign and the smallest
 * payload: the bits of an infinity plus one. Code that tells NaN from
 * infinity by comparing bits must draw its line between exactly these. */
static void store_edge_nan(void *h, size_t i, wk_dtype dtype, int negative)
{
    size_t size = wk_dtype_size(dtype);
    uint64_t bits = 0;
    switch (dtype) {
    case WK_F64: bits = 0x7ff0000000000001ull | (negative ? 1ull << 63 : 0); break;
    case WK_F32: bits = 0x7f800001u | (negative ? 1u << 31 : 0); break;
    case WK_F16: bits = 0x7c01u | (negative ? 1u << 15 : 0); break;
    case WK_BF16: bits = 0x7f81u | (negative ? 1u << 15 : 0); break;
    default: return;
    }
    /* Little-endian: the low `size` bytes of bits are the element. */
    memcpy((char *)h + i * size, &bits, size);
}

long double wk_dtype_largest(wk_dtype d)
{
    switch (d) {
    case WK_I32: return 2147483647.0L;
    case WK_U32: return 4294967295.0L;
    case WK_I64: return 9223372036854775807.0L;
    case WK_U64: return 18446744073709551615.0L;
    case WK_F32: return 3.4028234663852886e38L;
    case WK_F64: return 1.7976931348623157e308L;
    case WK_F16: return 65504.0L;
    case WK_BF16: return 3.3895313892515355e38L;
    case WK_BOOL: return 1;
    case WK_U8: return 255;
    case WK_I8: return 127;
    case WK_I16: return 32767;
    case WK_U16: return 65535;
    }
    return 0;
}

long double wk_dtype_lowest(wk_dtype d)
{
    switch (d) {
    case WK_I32: return -2147483648.0L;
    case WK_I64: return -9223372036854775808.0L;
    case WK_I8: return -128;
    case WK_I16: return -32768;
    case WK_U32: case WK_U64: case WK_BOOL: case WK_U8: case WK_U16: return 0;
    default: return -wk_dtype_largest(d);
    }
}

void wk_plant_specials(void *h, size_t n, wk_dtype dtype, wk_special special, uint64_t seed)
{
    if (n == 0 || special == WK_SPECIAL_NONE)
        return;
    long double values[4];
    int count = 0;
    switch (special) {
    case WK_SPECIAL_NAN: values[0] = values[1] = values[2] = NAN; count = 3; break;
    case WK_SPECIAL_INF: values[0] = INFINITY; values[1] = -INFINITY; count = 2; break;
    case WK_SPECIAL_POS_INF: values[0] = values[1] = INFINITY; count = 2; break;
    case WK_SPECIAL_EXTREMES:
        values[0] = values[2] = wk_dtype_largest(dtype);
        values[1] = values[3] = wk_dtype_lowest(dtype);
        count = 4;
        break;
    case WK_SPECIAL_AT_END:
        wk_ref_store(h, n - 1, dtype, wk_dtype_largest(dtype));
        if (n > 1)
            wk_ref_store(h, n - 2, dtype, wk_dtype_lowest(dtype));
        return;
    case WK_SPECIAL_EDGE_NAN:
        if (!wk_dtype_is_float(dtype))
            return;
        values[0] = INFINITY;
        values[1] = -INFINITY;
        count = 2;
        for (uint64_t k = 0; k < 2; ++k)
            store_edge_nan(h, wk_rand64(seed ^ 0xed9e0a1ull, k) % n, dtype, (int)k);
        break;
    case WK_SPECIAL_NONE: break;
    }
    for (int k = 0; k < count; ++k)
        wk_ref_store(h, wk_rand64(seed ^ 0x51ec1a1ull, (uint64_t)k) % n, dtype, values[k]);
}

const char *wk_pattern_name(wk_gen_pattern pattern)
{
    static const char *const names[] = {"uniform", "small-ints", "constant", "positive"};
    return (unsigned)pattern < sizeof names / sizeof names[0] ? names[pattern] : "?";
}

const char *wk_special_name(wk_special special)
{
    static const char *const names[] = {"", " +nan", " +inf/-inf", " +inf x2", " +extremes", " +extremes at end",
                                         " +inf/-inf/edge nans"};
    return (unsigned)special < sizeof names / sizeof names[0] ? names[special] : " +?";
}
