/* Tests of the CPU scan reference (verify/ref/scan_reference): hand-computed
 * scans for every dtype and op (8- and 16-bit integers and bools too),
 * integer wraparound, NaN, infinities, f16 / bf16 outputs rounded once from
 * the exact prefix, argument checks, the exact rule, and the per-element
 * checker (every output, the tolerance from the plan's depth, the
 * exclusive scan's first output).
 *
 * Expected values are written out by hand or computed by naive loops, never
 * by the code under test.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/generate.h"
#include "cpu/seeded_test.h"
#include "test_util.h"
#include "ref/half.h"
#include "ref/reference.h"
#include "scan/plan.h"
#include "ref/scan_reference.h"

static wk_tally tally;

/* The init's every bit zero (its widest member named). */
static wk_ref_scan_spec spec_of(wk_dtype d, wk_op op, int exclusive)
{
    return (wk_ref_scan_spec){.dtype = d, .op = op, .exclusive = exclusive, .init.u64 = 0};
}

static const char *kind(const wk_ref_scan_spec *s) { return s->exclusive ? "excl" : "incl"; }

/* Element i of a scan output equals want's, by value for floats (NaN
 * matches NaN, -0 matches +0), by pattern for integers. */
static int same_element(const void *a, const void *b, size_t i, wk_dtype d)
{
    if (d == WK_F32 || d == WK_F64 || d == WK_F16 || d == WK_BF16) {
        long double x = wk_ref_load(a, i, d), y = wk_ref_load(b, i, d);
        return x == y || (isnan(x) && isnan(y));
    }
    size_t size = wk_dtype_size(d);
    return memcmp((const char *)a + i * size, (const char *)b + i * size, size) == 0;
}

/* The reference scan of in gives want; the checker accepts want and, when
 * n > 0, rejects want with its last element changed. */
static void expect_scan(const char *what, wk_ref_scan_spec spec, const void *in, const void *want, size_t n)
{
    unsigned char out[256], bad[256];
    size_t size = wk_dtype_size(spec.dtype);
    memset(out, 0xcd, sizeof out);
    wk_status st = wk_ref_scan(in, out, n, &spec);
    size_t first_bad = n;
    for (size_t i = 0; i < n && first_bad == n; ++i)
        if (!same_element(out, want, i, spec.dtype))
            first_bad = i;
    char got_txt[64] = "", want_txt[64] = "";
    if (first_bad < n) {
        wk_ref_format(spec.dtype, WK_SUM, out + first_bad * size, got_txt, sizeof got_txt);
        wk_ref_format(spec.dtype, WK_SUM, (const char *)want + first_bad * size, want_txt, sizeof want_txt);
    }
    wk_checkf(&tally, st == WK_SUCCESS && first_bad == n, "%s %s %s %s: %s%s%s%s%s", wk_dtype_name(spec.dtype),
          wk_op_name(spec.op), kind(&spec), what, st == WK_SUCCESS ? "" : wk_status_string(st),
          first_bad < n ? "output " : "matches", first_bad < n ? got_txt : "", first_bad < n ? " want " : "",
          want_txt);

    char msg[1024];
    size_t mismatches = wk_ref_check_scan(in, want, n, &spec, NULL, msg, sizeof msg);
    wk_checkf(&tally, mismatches == 0, "%s %s %s %s: the checker accepts the right output: %s", wk_dtype_name(spec.dtype),
          wk_op_name(spec.op), kind(&spec), what, msg);
    if (n == 0 || isnan(wk_ref_load(want, n - 1, spec.dtype)))
        return;
    /* Flip a bit of the last element's value (a mantissa bit, or bf16's
     * lowest exponent bit, or a 1-byte element's lowest bit): a different
     * value for every dtype, a bool's other value. */
    memcpy(bad, want, n * size);
    bad[(n - 1) * size + (size == 1 ? 0 : size == 2 ? 1 : size - 2)] ^= 0x01;
    mismatches = wk_ref_check_scan(in, bad, n, &spec, NULL, msg, sizeof msg);
    wk_checkf(&tally, mismatches == 1, "%s %s %s %s: the checker catches a change in the last output: %s",
          wk_dtype_name(spec.dtype), wk_op_name(spec.op), kind(&spec), what, msg);
}

/* ------------------------------------------------------------ integers */

static void test_int_sums(void)
{
    wk_ref_scan_spec s = spec_of(WK_I32, WK_SUM, 0);
    const int32_t a[] = {1, -2, 3, INT32_MAX, 1, INT32_MIN};
    const int32_t a_incl[] = {1, -1, 2, -2147483647, -2147483646, 2};
    expect_scan("wraps both ways", s, a, a_incl, 6);
    s.exclusive = 1;
    s.init.i32 = 10;
    const int32_t a_excl[] = {10, 11, 9, 12, -2147483637, -2147483636};
    expect_scan("init 10, wraps", s, a, a_excl, 6);

    s = spec_of(WK_U32, WK_SUM, 0);
    const uint32_t b[] = {UINT32_MAX, 2, 5};
    const uint32_t b_incl[] = {UINT32_MAX, 1, 6};
    expect_scan("wraps past 2^32", s, b, b_incl, 3);

    s = spec_of(WK_I64, WK_SUM, 0);
    const int64_t c[] = {INT64_MAX, 1, -1};
    const int64_t c_incl[] = {INT64_MAX, INT64_MIN, INT64_MAX};
    expect_scan("wraps past 2^63", s, c, c_incl, 3);

    s = spec_of(WK_U64, WK_SUM, 1);
    s.init.u64 = UINT64_MAX;
    const uint64_t d[] = {5, 7, 1};
    const uint64_t d_excl[] = {UINT64_MAX, 4, 11};
    expect_scan("init 2^64 - 1 wraps", s, d, d_excl, 3);
}

static void test_int_min_max(void)
{
    const int32_t a[] = {3, -1, 5, -7, 0};
    wk_ref_scan_spec s = spec_of(WK_I32, WK_MIN, 0);
    const int32_t a_min[] = {3, -1, -1, -7, -7};
    expect_scan("signed order", s, a, a_min, 5);
    s.op = WK_MAX;
    const int32_t a_max[] = {3, 3, 5, 5, 5};
    expect_scan("signed order", s, a, a_max, 5);

    /* The same bits as u32: -1 is the largest value. */
    const uint32_t b[] = {3, 0xffffffffu, 5, 0xfffffff9u, 0};
    s = spec_of(WK_U32, WK_MIN, 0);
    const uint32_t b_min[] = {3, 3, 3, 3, 0};
    expect_scan("unsigned order", s, b, b_min, 5);
    s.op = WK_MAX;
    const uint32_t b_max[] = {3, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    expect_scan("unsigned order", s, b, b_max, 5);

    const int64_t c[] = {3, -1, 5};
    s = spec_of(WK_I64, WK_MIN, 1);
    s.init.i64 = 2;
    const int64_t c_excl[] = {2, 2, -1};
    expect_scan("init 2", s, c, c_excl, 3);
    s.op = WK_MAX;
    s.init.i64 = INT64_MIN;
    const int64_t c_max[] = {INT64_MIN, 3, 3};
    expect_scan("init lowest (identity)", s, c, c_max, 3);

    const uint64_t d[] = {3, 9, 1, UINT64_MAX};
    s = spec_of(WK_U64, WK_MAX, 1);
    s.init.u64 = 4;
    const uint64_t d_excl[] = {4, 4, 9, 9};
    expect_scan("init 4", s, d, d_excl, 4);
    s.exclusive = 0;
    const uint64_t d_incl[] = {3, 9, 9, UINT64_MAX};
    expect_scan("up to 2^64 - 1", s, d, d_incl, 4);
}

static void test_bitwise(void)
{
    const uint32_t a[] = {0xff, 0x0f, 0x3c};
    wk_ref_scan_spec s = spec_of(WK_U32, WK_AND, 0);
    const uint32_t a_and[] = {0xff, 0x0f, 0x0c};
    expect_scan("", s, a, a_and, 3);
    const uint32_t b[] = {1, 2, 4};
    s.op = WK_OR;
    const uint32_t b_or[] = {1, 3, 7};
    expect_scan("", s, b, b_or, 3);
    s.op = WK_XOR;
    s.exclusive = 1;
    s.init.u32 = 0xf0;
    const uint32_t b_xor[] = {0xf0, 0xf1, 0xf3};
    expect_scan("init 0xf0", s, b, b_xor, 3);

    const int64_t c[] = {-1, -2, 6};
    s = spec_of(WK_I64, WK_AND, 0);
    const int64_t c_and[] = {-1, -2, 6};
    expect_scan("negative patterns", s, c, c_and, 3);
    const int32_t d[] = {-1, 1, 0x40000000};
    s = spec_of(WK_I32, WK_XOR, 0);
    const int32_t d_xor[] = {-1, -2, (int32_t)0xbffffffe};
    expect_scan("sign bit", s, d, d_xor, 3);
    s = spec_of(WK_I32, WK_AND, 1);
    s.init.i32 = -1;
    const int32_t d_and[] = {-1, -1, 1};
    expect_scan("init all ones (identity)", s, d, d_and, 3);
    s = spec_of(WK_U64, WK_OR, 1);
    s.init.u64 = UINT64_C(1) << 63;
    const uint64_t e[] = {1, 2};
    const uint64_t e_or[] = {UINT64_C(1) << 63, (UINT64_C(1) << 63) | 1};
    expect_scan("init top bit", s, e, e_or, 2);
}

/* ----------------------------------------------------- narrow integers */

static void test_narrow(void)
{
    wk_ref_scan_spec s = spec_of(WK_I8, WK_SUM, 0);
    const int8_t a[] = {100, 100, -50, -128};
    const int8_t a_incl[] = {100, -56, -106, 22};
    expect_scan("wraps both ways in 8 bits", s, a, a_incl, 4);
    s = spec_of(WK_U8, WK_SUM, 1);
    s.init.u8 = 250;
    const uint8_t b[] = {3, 4, 5};
    const uint8_t b_excl[] = {250, 253, 1};
    expect_scan("init 250 wraps past 2^8", s, b, b_excl, 3);
    s = spec_of(WK_U16, WK_SUM, 0);
    const uint16_t c[] = {65535, 2, 65534};
    const uint16_t c_incl[] = {65535, 1, 65535};
    expect_scan("wraps past 2^16", s, c, c_incl, 3);

    s = spec_of(WK_I16, WK_MIN, 0);
    const int16_t d[] = {5, -3, 7, -32768, 0};
    const int16_t d_min[] = {5, -3, -3, -32768, -32768};
    expect_scan("signed order, down to -32768", s, d, d_min, 5);
    s = spec_of(WK_U16, WK_MAX, 0);
    const uint16_t e[] = {1, 65535, 2};
    const uint16_t e_max[] = {1, 65535, 65535};
    expect_scan("unsigned order, up to 65535", s, e, e_max, 3);
    s = spec_of(WK_U16, WK_MAX, 1);
    const uint16_t f[] = {7, 3, 9};
    const uint16_t f_excl[] = {0, 7, 7};
    expect_scan("init 0 (identity)", s, f, f_excl, 3);
    s = spec_of(WK_I8, WK_MAX, 0);
    const int8_t g[] = {-1, 127, -128};
    const int8_t g_max[] = {-1, 127, 127};
    expect_scan("signed order", s, g, g_max, 3);
    s = spec_of(WK_U8, WK_MAX, 0);
    const uint8_t h[] = {0x7f, 0x80, 0x01};
    const uint8_t h_max[] = {0x7f, 0x80, 0x80};
    expect_scan("unsigned order", s, h, h_max, 3);
    s = spec_of(WK_I16, WK_XOR, 0);
    const int16_t k[] = {-1, 1, 0x4000};
    const int16_t k_xor[] = {-1, -2, -16386};
    expect_scan("sign bit", s, k, k_xor, 3);
    s = spec_of(WK_I8, WK_AND, 1);
    s.init.i8 = -1;
    const int8_t m[] = {-2, 0x3c, 1};
    const int8_t m_and[] = {-1, -2, 0x3c};
    expect_scan("init all ones (identity)", s, m, m_and, 3);

    /* Bools: a running "all", "any" and parity. */
    const uint8_t t[] = {1, 1, 0, 1}, u[] = {0, 0, 1, 0}, v[] = {1, 1, 1, 0};
    s = spec_of(WK_BOOL, WK_MIN, 0);
    const uint8_t t_all[] = {1, 1, 0, 0};
    expect_scan("all so far", s, t, t_all, 4);
    s = spec_of(WK_BOOL, WK_MAX, 0);
    const uint8_t u_any[] = {0, 0, 1, 1};
    expect_scan("any so far", s, u, u_any, 4);
    s = spec_of(WK_BOOL, WK_AND, 1);
    s.init.b = 1;
    const uint8_t t_and[] = {1, 1, 1, 0};
    expect_scan("init true: all before", s, t, t_and, 4);
    s = spec_of(WK_BOOL, WK_OR, 1);
    const uint8_t u_or[] = {0, 0, 0, 1};
    expect_scan("init false: any before", s, u, u_or, 4);
    s = spec_of(WK_BOOL, WK_XOR, 0);
    const uint8_t v_xor[] = {1, 0, 1, 1};
    expect_scan("parity so far", s, v, v_xor, 4);
    uint8_t out[4] = {7, 7, 7, 7};
    s = spec_of(WK_BOOL, WK_SUM, 0);
    wk_checkf(&tally, wk_ref_scan(t, out, 4, &s) == WK_ERROR_UNSUPPORTED && out[0] == 7,
          "a bool sum scan is unsupported, writes nothing");
    char msg[256];
    wk_checkf(&tally, wk_ref_check_scan(t, t_all, 4, &s, NULL, msg, sizeof msg) == WK_REF_SCAN_INVALID,
          "the checker refuses a bool sum: %s", msg);
}

/* --------------------------------------------------------------- floats */

static void test_float_sums(void)
{
    const float a[] = {1, 2, 0.5f, -4};
    wk_ref_scan_spec s = spec_of(WK_F32, WK_SUM, 0);
    const float a_incl[] = {1, 3, 3.5f, -0.5f};
    expect_scan("", s, a, a_incl, 4);
    s.exclusive = 1;
    s.init.f32 = 10;
    const float a_excl[] = {10, 11, 13, 13.5f};
    expect_scan("init 10", s, a, a_excl, 4);

    /* Each output is the exact prefix rounded once: 1 + 2^-24 is a tie
     * (down to 1), 1 + 2^-23 is exact. Summing in float, left to right,
     * would give 1, 1, 1. */
    const float b[] = {1, 0x1p-24f, 0x1p-24f};
    s = spec_of(WK_F32, WK_SUM, 0);
    const float b_incl[] = {1, 1, 1 + 0x1p-23f};
    expect_scan("rounded once from the exact prefix", s, b, b_incl, 3);

    /* 1e16 + 1 is a tie in double (ulp 2) and rounds to even, 1e16 + 2 is
     * exact: left-to-right double sums would end at 0, not 2. */
    const double c[] = {1e16, 1, 1, -1e16};
    s = spec_of(WK_F64, WK_SUM, 0);
    const double c_incl[] = {1e16, 1e16, 1e16 + 2, 2};
    expect_scan("exact prefix in double", s, c, c_incl, 4);

    /* f16: 2049 is a tie between 2048 and 2050 (even: 2048); an f16
     * accumulator would stay at 2048, the float prefix rounded once gives
     * 2050 at the end. */
    const uint16_t h[] = {0x6800, 0x3c00, 0x3c00}; /* 2048, 1, 1 */
    s = spec_of(WK_F16, WK_SUM, 0);
    const uint16_t h_incl[] = {0x6800, 0x6800, 0x6801};
    expect_scan("outputs rounded once to f16", s, h, h_incl, 3);
    /* Just above a tie: 2048 + 1 + 2^-10 must round up to 2050, not to
     * 2048 as it would through a tie after a first rounding. */
    const uint16_t h2[] = {0x6800, 0x3c00, 0x1400}; /* 2048, 1, 2^-10 */
    const uint16_t h2_incl[] = {0x6800, 0x6800, 0x6801};
    expect_scan("just above an f16 tie rounds up", s, h2, h2_incl, 3);
    s.exclusive = 1;
    s.init.f16 = 0x3c00; /* 1 */
    const uint16_t h3[] = {0x3800, 0x3400, 0x3000}; /* 0.5, 0.25, 0.125 */
    const uint16_t h3_excl[] = {0x3c00, 0x3e00, 0x3f00}; /* 1, 1.5, 1.75 */
    expect_scan("f16 init 1", s, h3, h3_excl, 3);

    const uint16_t g[] = {0x4380, 0x3f80, 0x3f80}; /* 256, 1, 1 */
    s = spec_of(WK_BF16, WK_SUM, 0);
    const uint16_t g_incl[] = {0x4380, 0x4380, 0x4381}; /* 256, 256 (tie to even), 258 */
    expect_scan("outputs rounded once to bf16", s, g, g_incl, 3);

    /* f16 outputs overflow to infinity even though the float prefix does
     * not. */
    const uint16_t o[] = {0x7bff, 0x7bff, 0xfbff}; /* 65504, 65504, -65504 */
    s = spec_of(WK_F16, WK_SUM, 0);
    const uint16_t o_incl[] = {0x7bff, 0x7c00, 0x7bff};
    expect_scan("f16 output overflows, the prefix comes back", s, o, o_incl, 3);
}

static void test_nan_inf(void)
{
    const float a[] = {3, NAN, 1, -5};
    wk_ref_scan_spec s = spec_of(WK_F32, WK_MIN, 0);
    const float a_min[] = {3, NAN, NAN, NAN};
    expect_scan("NaN from the first NaN on", s, a, a_min, 4);
    s.op = WK_MAX;
    expect_scan("NaN from the first NaN on", s, a, a_min, 4);
    s = spec_of(WK_F32, WK_MIN, 1);
    s.init.f32 = 5;
    const float a_excl[] = {5, 3, NAN, NAN};
    expect_scan("init 5, NaN after the NaN", s, a, a_excl, 4);
    s.init.f32 = NAN;
    const float b[] = {1, 2};
    const float b_excl[] = {NAN, NAN};
    expect_scan("NaN init", s, b, b_excl, 2);

    const double c[] = {1, NAN, 2};
    s = spec_of(WK_F64, WK_SUM, 0);
    const double c_incl[] = {1, NAN, NAN};
    expect_scan("NaN sum", s, c, c_incl, 3);
    const double d[] = {INFINITY, 1, -INFINITY, 2};
    const double d_incl[] = {INFINITY, INFINITY, NAN, NAN};
    expect_scan("+inf then -inf", s, d, d_incl, 4);

    const uint16_t h[] = {0x4000, 0x3c00, 0x7e00, 0x0000}; /* 2, 1, NaN, 0 */
    s = spec_of(WK_F16, WK_MAX, 0);
    const uint16_t h_max[] = {0x4000, 0x4000, 0x7fff, 0x7fff};
    expect_scan("f16 NaN", s, h, h_max, 4);
    s = spec_of(WK_BF16, WK_MIN, 1);
    s.init.bf16 = 0x7f80; /* +inf: the identity */
    const uint16_t g[] = {0x3f80, 0xc000, 0x4040}; /* 1, -2, 3 */
    const uint16_t g_min[] = {0x7f80, 0x3f80, 0xc000};
    expect_scan("bf16 init +inf", s, g, g_min, 3);

    /* MIN and MAX take -0 below +0 (IEEE 754-2019 minimum / maximum). */
    const float z[] = {0.0f, -0.0f, 0.0f};
    s = spec_of(WK_F32, WK_MIN, 0);
    const float z_min[] = {0.0f, -0.0f, -0.0f};
    expect_scan("-0 below +0 for min", s, z, z_min, 3);
    s = spec_of(WK_F32, WK_MAX, 0);
    const float z_max[] = {0.0f, 0.0f, 0.0f};
    expect_scan("+0 above -0 for max", s, z, z_max, 3);
}

static void test_status(void)
{
    float x[2] = {1, 2}, y[2] = {7, 7};
    wk_ref_scan_spec s = spec_of(WK_F32, WK_ARGMIN, 0);
    wk_checkf(&tally, wk_ref_scan(x, y, 2, &s) == WK_ERROR_UNSUPPORTED && y[0] == 7, "argmin is unsupported, writes nothing");
    s.op = WK_ARGMAX;
    wk_checkf(&tally, wk_ref_scan(x, y, 2, &s) == WK_ERROR_UNSUPPORTED, "argmax is unsupported");
    s.op = WK_XOR;
    wk_checkf(&tally, wk_ref_scan(x, y, 2, &s) == WK_ERROR_UNSUPPORTED, "xor on f32 is unsupported");
    s.dtype = (wk_dtype)99;
    wk_checkf(&tally, wk_ref_scan(x, y, 2, &s) == WK_ERROR_INVALID_DTYPE, "dtype 99 is invalid");
    s = spec_of(WK_F32, (wk_op)99, 0);
    wk_checkf(&tally, wk_ref_scan(x, y, 2, &s) == WK_ERROR_INVALID_OP, "op 99 is invalid");
    s = spec_of(WK_F32, WK_SUM, 1);
    wk_checkf(&tally, wk_ref_scan(NULL, y, 2, &s) == WK_ERROR_INVALID_ARGUMENT, "NULL input with n > 0");
    wk_checkf(&tally, wk_ref_scan(x, NULL, 2, &s) == WK_ERROR_INVALID_ARGUMENT, "NULL output with n > 0");
    wk_checkf(&tally, wk_ref_scan(x, y, 2, NULL) == WK_ERROR_INVALID_ARGUMENT, "NULL spec");
    wk_checkf(&tally, wk_ref_scan(NULL, NULL, 0, &s) == WK_SUCCESS, "n = 0 with NULL pointers succeeds");
    wk_checkf(&tally, wk_ref_scan(x, y, 0, &s) == WK_SUCCESS && y[0] == 7, "n = 0 writes nothing, not even init");
    char msg[256];
    wk_checkf(&tally, wk_ref_check_scan(x, y, 2, NULL, NULL, msg, sizeof msg) == WK_REF_SCAN_INVALID,
          "the checker refuses a NULL spec: %s", msg);
    s.op = WK_ARGMAX;
    wk_checkf(&tally, wk_ref_check_scan(x, y, 2, &s, NULL, msg, sizeof msg) == WK_REF_SCAN_INVALID,
          "the checker refuses argmax: %s", msg);

    /* In place: h_out == h_in. */
    int32_t v[] = {1, 2, 3, 4};
    s = spec_of(WK_I32, WK_SUM, 1);
    s.init.i32 = 100;
    wk_ref_scan(v, v, 4, &s);
    wk_checkf(&tally, v[0] == 100 && v[1] == 101 && v[2] == 103 && v[3] == 106, "exclusive in place: %d %d %d %d", v[0], v[1],
          v[2], v[3]);
    float f[] = {1, 2, 3};
    s = spec_of(WK_F32, WK_SUM, 0);
    wk_ref_scan(f, f, 3, &s);
    wk_checkf(&tally, f[0] == 1 && f[1] == 3 && f[2] == 6, "inclusive in place");
}

/* ------------------------------------------------------------ the rule */

static int exact_f32(const float *x, size_t n, int exclusive, float init)
{
    wk_ref_scan_spec s = spec_of(WK_F32, WK_SUM, exclusive);
    s.init.f32 = init;
    return wk_ref_scan_sums_exact(x, n, &s);
}

static void test_exact_rule(void)
{
    const float small[] = {1, -2, 3, 8, -8};
    wk_checkf(&tally, exact_f32(small, 5, 0, 0) == 1, "small integers are exact");
    const float half[] = {1, 0.5f};
    wk_checkf(&tally, exact_f32(half, 2, 0, 0) == 0, "a fraction is not");
    const float top[] = {0x1p24f};
    wk_checkf(&tally, exact_f32(top, 1, 0, 0) == 1, "a spread of exactly 2^24 is");
    const float over[] = {0x1p24f, 1};
    wk_checkf(&tally, exact_f32(over, 2, 0, 0) == 0, "a spread of 2^24 + 1 is not");
    /* The prefixes never leave [-2^23, 2^23], yet the range sum of the
     * second element alone is -2^24: still exact; one more step is not. */
    const float swing[] = {0x1p23f, -0x1p24f, 1};
    wk_checkf(&tally, exact_f32(swing, 2, 0, 0) == 1, "prefixes 2^23 and -2^23 (spread 2^24) are exact");
    wk_checkf(&tally, exact_f32(swing, 3, 0, 0) == 1, "coming back inside the spread stays exact");
    const float swing2[] = {0x1p23f, -0x1p24f, -1};
    wk_checkf(&tally, exact_f32(swing2, 3, 0, 0) == 0, "a spread of 2^24 + 1 in the middle is not");
    const float neg[] = {-3, -4};
    wk_checkf(&tally, exact_f32(neg, 2, 0, 0) == 1, "the empty prefix counts: -3, -7 from 0 spread 7");
    const float one[] = {1};
    wk_checkf(&tally, exact_f32(one, 1, 1, 0x1p24f - 1) == 1, "init 2^24 - 1 plus a spread of 1 is exact");
    wk_checkf(&tally, exact_f32(one, 1, 1, 0x1p24f) == 0, "init 2^24 plus a spread of 1 is not");
    wk_checkf(&tally, exact_f32(one, 1, 1, -0x1p24f) == 0, "nor init -2^24");
    wk_checkf(&tally, exact_f32(one, 1, 1, 0.5f) == 0, "a fractional init is not");
    wk_checkf(&tally, exact_f32(one, 1, 0, 0.5f) == 1, "an inclusive scan ignores the init");
    const float bad[] = {1, NAN};
    wk_checkf(&tally, exact_f32(bad, 2, 0, 0) == 0, "NaN is not");
    const float inf[] = {1, INFINITY};
    wk_checkf(&tally, exact_f32(inf, 2, 0, 0) == 0, "infinity is not");
    wk_checkf(&tally, exact_f32(NULL, 0, 0, 0) == 1, "n = 0 is");

    const double big[] = {0x1p52, 0x1p52};
    wk_ref_scan_spec s = spec_of(WK_F64, WK_SUM, 0);
    wk_checkf(&tally, wk_ref_scan_sums_exact(big, 2, &s) == 1, "f64: a spread of 2^53 is exact");
    const double bigger[] = {0x1p53, 1};
    wk_checkf(&tally, wk_ref_scan_sums_exact(bigger, 2, &s) == 0, "f64: 2^53 + 1 is not");
    const double f32_limit[] = {0x1p24, 0x1p24};
    wk_checkf(&tally, wk_ref_scan_sums_exact(f32_limit, 2, &s) == 1, "f64 accumulates in double: 2^25 is exact");
    const uint16_t h[] = {0x4000, 0xc400, 0x6800}; /* 2, -4, 2048 */
    s = spec_of(WK_F16, WK_SUM, 0);
    wk_checkf(&tally, wk_ref_scan_sums_exact(h, 3, &s) == 1, "f16 small integers are (float accumulator)");
    const uint16_t hf[] = {0x3800}; /* 0.5 */
    wk_checkf(&tally, wk_ref_scan_sums_exact(hf, 1, &s) == 0, "f16 0.5 is not");
    s = spec_of(WK_BF16, WK_SUM, 0);
    const uint16_t g[] = {0x4b80}; /* 2^24 */
    wk_checkf(&tally, wk_ref_scan_sums_exact(g, 1, &s) == 1, "bf16 2^24 is");
    const int32_t ints[] = {1, 2};
    s = spec_of(WK_I32, WK_SUM, 0);
    wk_checkf(&tally, wk_ref_scan_sums_exact(ints, 2, &s) == 0, "integer dtypes do not use the rule");
    s = spec_of(WK_F32, WK_MAX, 0);
    wk_checkf(&tally, wk_ref_scan_sums_exact(small, 5, &s) == 0, "nor do other ops");
}

/* ------------------------------------------------------------- checker */

static void test_depth(void)
{
    wk_tile_plan p;
    wk_plan_scan(0x1004, 0x2000, 100000, 4, &p);
    wk_ref_scan_spec s = spec_of(WK_F32, WK_SUM, 0);
    size_t i = 50000;
    wk_checkf(&tally, wk_ref_scan_depth(&p, &s, i) == wk_scan_plan_depth(&p, i), "inclusive depth is the plan's");
    s.exclusive = 1;
    wk_checkf(&tally, wk_ref_scan_depth(&p, &s, 0) == 0, "exclusive output 0 has depth 0");
    wk_checkf(&tally, wk_ref_scan_depth(&p, &s, i) == wk_scan_plan_depth(&p, i - 1) + 1, "exclusive output i: depth(i-1) + 1");
    wk_checkf(&tally, wk_ref_scan_depth(NULL, &s, i) == 0, "no plan, depth 0");
}

/* Small integers: the exact rule holds, so a one-ulp error is caught, a
 * changed element anywhere is caught, and a lost element (every output
 * after it off) shows as many mismatches. */
static void test_check_exact_rule(uint64_t seed)
{
    enum { N = 3000 };
    float in[N], out[N];
    wk_generate(in, N, WK_F32, WK_GEN_SMALL_INTS, seed);
    wk_ref_scan_spec s = spec_of(WK_F32, WK_SUM, 1);
    s.init.f32 = -3;
    wk_tile_plan p;
    wk_plan_scan(0x1004, 0x2008, N, 4, &p);
    /* The expected output by a naive double loop: exact for these. */
    double acc = -3;
    for (size_t i = 0; i < N; ++i) {
        out[i] = (float)acc;
        acc += in[i];
    }
    char msg[1024];
    size_t bad = wk_ref_check_scan(in, out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, bad == 0 && strstr(msg, "exact rule"), "small integers use the exact rule and match: %s", msg);

    float saved = out[1234];
    out[1234] = nextafterf(out[1234], INFINITY);
    bad = wk_ref_check_scan(in, out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "[1234]"), "one ulp off at 1234 is caught under the exact rule: %s", msg);
    out[1234] = saved;

    out[N - 1] += 1;
    bad = wk_ref_check_scan(in, out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "[2999]"), "the last output is checked too: %s", msg);
    out[N - 1] -= 1;

    /* Lose an element: every output after it is off by it. The first
     * nonzero element from 100 on, so that losing it changes the sums (a
     * zero would let the check pass without looking). */
    size_t lost = 100;
    while (lost < N - 2 && in[lost] == 0)
        ++lost;
    for (size_t i = lost + 1; i < N; ++i)
        out[i] -= in[lost];
    bad = wk_ref_check_scan(in, out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, in[lost] != 0 && bad == N - lost - 1,
          "a lost element (%zu, value %g) shows in every later output (%zu mismatches, want %zu): %.120s", lost,
          (double)in[lost], bad, N - lost - 1, msg);

    /* Exclusive output 0 must be the init exactly, even where the
     * tolerance would allow more. */
    float u[N], u_out[N];
    wk_generate(u, N, WK_F32, WK_GEN_UNIFORM, seed + 1);
    s.init.f32 = 0.75f;
    wk_ref_scan(u, u_out, N, &s);
    u_out[0] = nextafterf(0.75f, 1.0f);
    bad = wk_ref_check_scan(u, u_out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "[0]"), "exclusive output 0 must be the init itself: %s", msg);
}

/* Uniform floats: the tolerance path. An error within depth * u * sum|x|
 * passes with the plan's depth and fails without it; a gross one fails;
 * the message carries the tolerance. */
static void test_check_tolerance(uint64_t seed)
{
    enum { N = 20000 };
    static float in[N], out[N];
    wk_generate(in, N, WK_F32, WK_GEN_UNIFORM, seed);
    wk_ref_scan_spec s = spec_of(WK_F32, WK_SUM, 0);
    wk_ref_scan(in, out, N, &s);
    wk_tile_plan p;
    wk_plan_scan(0x1000, 0x2000, N, 4, &p);
    char msg[1024];
    size_t bad = wk_ref_check_scan(in, out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, bad == 0 && strstr(msg, "tolerance"), "uniform floats use the tolerance and match: %s", msg);

    size_t at = N - 7;
    long double abs_sum = 0;
    for (size_t i = 0; i <= at; ++i)
        abs_sum += fabsl((long double)in[i]);
    size_t depth = wk_scan_plan_depth(&p, at);
    /* Half the accumulation allowance, plus the output rounding. */
    long double shift = 0.5L * depth * 0x1p-24L * abs_sum;
    float saved = out[at];
    out[at] = (float)((long double)out[at] + shift);
    bad = wk_ref_check_scan(in, out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "an error of half depth * u * sum|x| (depth %zu) passes: %s", depth, msg);
    bad = wk_ref_check_scan(in, out, N, &s, NULL, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "tol"), "the same error fails at depth 0: %s", msg);
    out[at] = saved + 0.5f;
    bad = wk_ref_check_scan(in, out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "depth"), "an error of 0.5 fails: %s", msg);
    out[at] = saved;

    /* A NaN where a number belongs fails; an infinity too. */
    out[5] = NAN;
    out[6] = INFINITY;
    bad = wk_ref_check_scan(in, out, N, &s, &p, msg, sizeof msg);
    wk_checkf(&tally, bad == 2, "NaN and infinity where numbers belong fail: %s", msg);
}

/* f16 outputs: the exact rule compares after the rounding to f16. */
static void test_check_f16(void)
{
    const uint16_t in[] = {0x6800, 0x3c00, 0x3c00, 0x3c00}; /* 2048, 1, 1, 1 */
    uint16_t out[] = {0x6800, 0x6800, 0x6801, 0x6802};     /* 2048, 2048, 2050, 2052 (2051: tie to even) */
    wk_ref_scan_spec s = spec_of(WK_F16, WK_SUM, 0);
    char msg[512];
    size_t bad = wk_ref_check_scan(in, out, 4, &s, NULL, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "f16 outputs rounded once match: %s", msg);
    out[1] = 0x6801; /* 2050 for 2049: rounded the wrong way at the tie */
    bad = wk_ref_check_scan(in, out, 4, &s, NULL, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "[1]"), "an f16 output rounded away from even is caught: %s", msg);
}

static void test_check_values(void)
{
    const float in[] = {2, NAN, 1};
    const float got[] = {2, -NAN, NAN};
    wk_ref_scan_spec s = spec_of(WK_F32, WK_MAX, 0);
    char msg[512];
    wk_checkf(&tally, wk_ref_check_scan(in, got, 3, &s, NULL, msg, sizeof msg) == 0, "any NaN matches NaN: %s", msg);
    const float in2[] = {-0.0f, 1};
    const float right2[] = {-0.0f, -0.0f};
    const float got2[] = {0.0f, 0.0f};
    s.op = WK_MIN;
    wk_checkf(&tally, wk_ref_check_scan(in2, right2, 2, &s, NULL, msg, sizeof msg) == 0, "min keeps -0: %s", msg);
    wk_checkf(&tally, wk_ref_check_scan(in2, got2, 2, &s, NULL, msg, sizeof msg) == 2, "+0 for -0 fails: %s", msg);
    const float got3[] = {-0.0f, 1.0f};
    wk_checkf(&tally, wk_ref_check_scan(in2, got3, 2, &s, NULL, msg, sizeof msg) == 1, "min of -0 and 1 is not 1: %s", msg);

    const int32_t iin[] = {INT32_MAX, 1};
    const int32_t igot[] = {INT32_MAX, INT32_MIN};
    s = spec_of(WK_I32, WK_SUM, 0);
    wk_checkf(&tally, wk_ref_check_scan(iin, igot, 2, &s, NULL, msg, sizeof msg) == 0, "i32 sums compare wrapped: %s", msg);
    const uint32_t uin[] = {5, 6};
    const uint32_t ugot[] = {5, 11, 0xdead};
    s = spec_of(WK_U32, WK_SUM, 0);
    wk_checkf(&tally, wk_ref_check_scan(uin, ugot, 2, &s, NULL, msg, sizeof msg) == 0, "only n outputs are read: %s", msg);
    wk_checkf(&tally, wk_ref_check_scan(NULL, NULL, 0, &s, NULL, msg, sizeof msg) == 0, "n = 0 checks nothing: %s", msg);
}

/* Naive steps over 64-bit patterns (sign-extended for i32). */
static uint64_t load_i32_bits(const void *p, size_t i) { return (uint64_t)(int64_t)((const int32_t *)p)[i]; }
static uint64_t load_u64_bits(const void *p, size_t i) { return ((const uint64_t *)p)[i]; }
static uint64_t sum_i32(uint64_t acc, uint64_t x) { return (uint64_t)(int64_t)(int32_t)(uint32_t)(acc + x); }
static uint64_t min_i32(uint64_t acc, uint64_t x) { return (int64_t)x < (int64_t)acc ? x : acc; }
static uint64_t xor_64(uint64_t acc, uint64_t x) { return acc ^ x; }
static uint64_t max_u64(uint64_t acc, uint64_t x) { return x > acc ? x : acc; }
static uint64_t load_i8_bits(const void *p, size_t i) { return (uint64_t)(int64_t)((const int8_t *)p)[i]; }
static uint64_t load_u16_bits(const void *p, size_t i) { return ((const uint16_t *)p)[i]; }
static uint64_t sum_i8(uint64_t acc, uint64_t x) { return (uint64_t)(int64_t)(int8_t)(uint8_t)(acc + x); }
static uint64_t max_i8(uint64_t acc, uint64_t x) { return (int64_t)x > (int64_t)acc ? x : acc; }
static uint64_t sum_u16(uint64_t acc, uint64_t x) { return (uint16_t)(acc + x); }
static uint64_t min_u16(uint64_t acc, uint64_t x) { return x < acc ? x : acc; }

/* One integer scan of random data against a naive loop of `step`: the
 * inclusive prefix starts at the first element, the exclusive one at init. */
typedef struct naive_scan {
    wk_dtype dtype;
    wk_op op;
    int exclusive;
    wk_value init;
    const void *in;
    void *out;
    uint64_t (*load)(const void *p, size_t i);
    uint64_t (*step)(uint64_t acc, uint64_t x);
    const char *what;
} naive_scan;

static void check_vs_naive(const naive_scan *c, size_t n)
{
    wk_ref_scan_spec s = spec_of(c->dtype, c->op, c->exclusive);
    s.init = c->init;
    wk_ref_scan(c->in, c->out, n, &s);
    uint64_t acc = c->load(&c->init, 0);
    int ok = 1;
    for (size_t i = 0; i < n; ++i) {
        uint64_t x = c->load(c->in, i);
        uint64_t next = c->exclusive || i > 0 ? c->step(acc, x) : x;
        ok &= c->load(c->out, i) == (c->exclusive ? acc : next);
        acc = next;
    }
    wk_checkf(&tally, ok, "%s", c->what);
}

/* Random data against naive loops. */
static void test_vs_naive(uint64_t seed)
{
    enum { N = 5000 };
    static int32_t a[N], ra[N];
    static uint64_t b[N], rb[N];
    static float f[N], rf[N];
    static int8_t c[N], rc[N];
    static uint16_t h[N], rh[N];
    wk_generate(c, N, WK_I8, WK_GEN_UNIFORM, seed + 3);
    wk_generate(h, N, WK_U16, WK_GEN_UNIFORM, seed + 4);
    wk_generate(a, N, WK_I32, WK_GEN_UNIFORM, seed);
    wk_generate(b, N, WK_U64, WK_GEN_UNIFORM, seed + 1);
    wk_generate(f, N, WK_F32, WK_GEN_SMALL_INTS, seed + 2);

    const naive_scan ints[] = {
        {WK_I32, WK_SUM, 0, {.u64 = 0}, a, ra, load_i32_bits, sum_i32,
         "i32 uniform inclusive sum matches a naive wrapping loop"},
        {WK_I32, WK_MIN, 1, {.u64 = 0}, a, ra, load_i32_bits, min_i32,
         "i32 uniform exclusive min from 0 matches a naive loop"},
        {WK_U64, WK_XOR, 1, {.u64 = 0x0123456789abcdefull}, b, rb, load_u64_bits, xor_64,
         "u64 uniform exclusive xor matches a naive loop"},
        {WK_U64, WK_MAX, 0, {.u64 = 0}, b, rb, load_u64_bits, max_u64,
         "u64 uniform inclusive max matches a naive loop"},
        {WK_I8, WK_SUM, 1, {.i8 = -7}, c, rc, load_i8_bits, sum_i8,
         "i8 uniform exclusive sum from -7 matches a naive wrapping loop"},
        {WK_I8, WK_MAX, 0, {.u64 = 0}, c, rc, load_i8_bits, max_i8,
         "i8 uniform inclusive max matches a naive signed loop"},
        {WK_U16, WK_SUM, 0, {.u64 = 0}, h, rh, load_u16_bits, sum_u16,
         "u16 uniform inclusive sum matches a naive wrapping loop"},
        {WK_U16, WK_MIN, 1, {.u16 = 60000}, h, rh, load_u16_bits, min_u16,
         "u16 uniform exclusive min from 60000 matches a naive loop"},
    };
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; ++k)
        check_vs_naive(&ints[k], N);

    wk_ref_scan_spec s = spec_of(WK_F32, WK_SUM, 0);
    wk_ref_scan(f, rf, N, &s);
    double acc = 0;
    int ok = 1;
    for (size_t i = 0; i < N; ++i) {
        acc += f[i];
        ok &= rf[i] == (float)acc;
    }
    wk_checkf(&tally, ok, "f32 small-integer inclusive sum matches a naive double loop");
}

int main(void)
{
    uint64_t seed = wk_seeded_start();

    test_int_sums();
    test_int_min_max();
    test_bitwise();
    test_narrow();
    test_float_sums();
    test_nan_inf();
    test_status();
    test_exact_rule();
    test_depth();
    test_check_exact_rule(seed);
    test_check_tolerance(seed + 1);
    test_check_f16();
    test_check_values();
    test_vs_naive(seed + 2);

    return wk_seeded_finish(seed, &tally);
}
