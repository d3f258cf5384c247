/* Tests of the CPU select reference (verify/ref/select_reference): hand-worked
 * selects for every mode and compare, signed against unsigned order (8- and
 * 16-bit integers and bools too), NaN
 * in the data and in the constants, -0.0 against +0.0, infinities, f16 /
 * bf16 compared as their exact values, NaN payloads and zero signs copied
 * bit for bit, partition's reversed tail, unique's runs, in place, argument
 * checks, and the checker (a wrong count, element, payload, sign, order or
 * index each caught; what lies past the count not its business).
 *
 * Expected outputs are written out by hand or computed by naive loops,
 * never by the code under test.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/generate.h"
#include "ref/select_reference.h"
#include "test_util.h"

static wk_tally tally;

/* The constants' every bit zero (their widest members named). */
static wk_ref_select_spec spec_of(wk_ref_select_mode mode, wk_dtype d, wk_compare cmp)
{
    return (wk_ref_select_spec){.mode = mode, .dtype = d, .predicate = {.compare = cmp, .a.u64 = 0, .b.u64 = 0}};
}

#define POISON 0xcd
#define MAX_BYTES 512

/* The reference of in gives want (want_count outputs; n for partition),
 * writes nothing past them, and the checker accepts want. */
static void expect_select(const char *what, wk_ref_select_spec spec, const void *in, const uint8_t *flags, size_t n,
                          const void *want, uint64_t want_count)
{
    unsigned char out[MAX_BYTES];
    memset(out, POISON, sizeof out);
    uint64_t count = 12345;
    wk_status st = wk_ref_select(in, flags, out, n, &spec, &count);
    size_t oelem = wk_ref_select_out_size(spec.mode, spec.dtype);
    size_t written = (spec.mode == WK_REF_PARTITION_IF ? n : (size_t)want_count) * oelem;
    int same = st == WK_SUCCESS && count == want_count && memcmp(out, want, written) == 0;
    int untouched = 1;
    for (size_t b = written; b < sizeof out; ++b)
        untouched &= out[b] == POISON;
    wk_checkf(&tally, same && untouched, "%s %s %s: %s, count %" PRIu64 " (want %" PRIu64 ")%s%s",
              wk_ref_select_mode_name(spec.mode), wk_dtype_name(spec.dtype), what, wk_status_string(st), count,
              want_count, same ? "" : ", outputs differ", untouched ? "" : ", wrote past them");

    /* The checker reads the GPU's output from a copy of its own. */
    unsigned char got[MAX_BYTES];
    memcpy(got, want, written);
    char msg[1024];
    uint64_t ref_count = 0;
    size_t bad = wk_ref_check_select(in, flags, n, &spec, got, want_count, &ref_count, msg, sizeof msg);
    wk_checkf(&tally, bad == 0 && ref_count == want_count, "%s %s %s: the checker accepts it: %s",
              wk_ref_select_mode_name(spec.mode), wk_dtype_name(spec.dtype), what, msg);
}

/* The same, and in place (out == in) it gives the same outputs. */
static void expect_select_in_place(const char *what, wk_ref_select_spec spec, const void *in, const uint8_t *flags,
                                   size_t n, const void *want, uint64_t want_count)
{
    expect_select(what, spec, in, flags, n, want, want_count);
    unsigned char buf[MAX_BYTES];
    size_t elem = wk_dtype_size(spec.dtype);
    memcpy(buf, in, n * elem);
    uint64_t count = 0;
    wk_status st = wk_ref_select(buf, flags, buf, n, &spec, &count);
    int same = st == WK_SUCCESS && count == want_count && memcmp(buf, want, (size_t)want_count * elem) == 0 &&
               memcmp(buf + want_count * elem, (const unsigned char *)in + want_count * elem,
                      (n - (size_t)want_count) * elem) == 0;
    wk_checkf(&tally, same, "%s %s %s in place: the same outputs, the rest of the input as it was",
              wk_ref_select_mode_name(spec.mode), wk_dtype_name(spec.dtype), what);
}

/* --------------------------------------------------------- integers */

static void test_signed_unsigned(void)
{
    /* The same bits: as i32 -1 and -7 are negative, as u32 they are the
     * two largest values. */
    const int32_t a[] = {3, -1, 5, -7, 0};
    wk_ref_select_spec s = spec_of(WK_REF_SELECT_IF, WK_I32, WK_LESS);
    s.predicate.a.i32 = 0;
    const int32_t a_less0[] = {-1, -7};
    expect_select("less 0 (signed)", s, a, NULL, 5, a_less0, 2);
    s.predicate.compare = WK_GREATER_EQUAL;
    s.predicate.a.i32 = -1;
    const int32_t a_ge[] = {3, -1, 5, 0};
    expect_select("greater_equal -1", s, a, NULL, 5, a_ge, 4);

    s = spec_of(WK_REF_SELECT_IF, WK_U32, WK_LESS);
    s.predicate.a.u32 = 4;
    const uint32_t a_u_less4[] = {3, 0};
    expect_select("less 4 (unsigned: -1 is the largest)", s, a, NULL, 5, a_u_less4, 2);
    s.predicate.compare = WK_GREATER;
    s.predicate.a.u32 = 0xfffffff9u;
    const uint32_t a_u_gt[] = {0xffffffffu};
    expect_select("greater 2^32 - 7", s, a, NULL, 5, a_u_gt, 1);

    const int64_t b[] = {INT64_MIN, -1, 0, 1, INT64_MAX};
    s = spec_of(WK_REF_WHERE, WK_I64, WK_LESS_EQUAL);
    s.predicate.a.i64 = -1;
    const int64_t b_le[] = {0, 1};
    expect_select("less_equal -1", s, b, NULL, 5, b_le, 2);
    s = spec_of(WK_REF_WHERE, WK_U64, WK_LESS_EQUAL);
    s.predicate.a.u64 = UINT64_MAX; /* the pattern of -1 */
    const int64_t b_u_le[] = {0, 1, 2, 3, 4};
    expect_select("less_equal 2^64 - 1 (everything)", s, b, NULL, 5, b_u_le, 5);
    s.predicate.compare = WK_GREATER;
    s.predicate.a.u64 = UINT64_C(1) << 63; /* INT64_MIN's pattern: only -1 is above it */
    const int64_t b_u_gt[] = {1};
    expect_select("greater 2^63", s, b, NULL, 5, b_u_gt, 1);

    s = spec_of(WK_REF_SELECT_IF, WK_I64, WK_IN_RANGE);
    s.predicate.a.i64 = INT64_MIN;
    s.predicate.b.i64 = 1;
    const int64_t b_range[] = {INT64_MIN, -1, 0};
    expect_select("in_range [min, 1)", s, b, NULL, 5, b_range, 3);
    s.predicate.a.i64 = 1;
    s.predicate.b.i64 = 1;
    expect_select("in_range [1, 1) (empty)", s, b, NULL, 5, b_range, 0);
    s.predicate.a.i64 = 1;
    s.predicate.b.i64 = -1;
    expect_select("in_range [1, -1) (reversed: empty)", s, b, NULL, 5, b_range, 0);

    s = spec_of(WK_REF_SELECT_IF, WK_U64, WK_IN_RANGE);
    s.predicate.a.u64 = 1;
    s.predicate.b.u64 = UINT64_MAX;
    /* As u64: 2^63, 2^64 - 1, 0, 1, 2^63 - 1; only 2^64 - 1 and 0 are out. */
    const int64_t b_u_range[] = {INT64_MIN, 1, INT64_MAX};
    expect_select("in_range [1, 2^64 - 1)", s, b, NULL, 5, b_u_range, 3);

    const uint32_t c[] = {7, 7, 8, 0xffffffffu, 7};
    s = spec_of(WK_REF_SELECT_IF, WK_U32, WK_EQUAL);
    s.predicate.a.u32 = 7;
    const uint32_t c_eq[] = {7, 7, 7};
    expect_select_in_place("equal 7", s, c, NULL, 5, c_eq, 3);
    s.predicate.compare = WK_NOT_EQUAL;
    const uint32_t c_ne[] = {8, 0xffffffffu};
    expect_select_in_place("not_equal 7", s, c, NULL, 5, c_ne, 2);
    s = spec_of(WK_REF_SELECT_IF, WK_I32, WK_GREATER);
    s.predicate.a.i32 = -2;
    const uint32_t c_gt[] = {7, 7, 8, 0xffffffffu, 7}; /* -1 > -2 as i32 */
    expect_select("greater -2 (everything)", s, c, NULL, 5, c_gt, 5);
    s.predicate.compare = WK_LESS_EQUAL;
    s.predicate.a.i32 = 7;
    const uint32_t c_le[] = {7, 7, 0xffffffffu, 7};
    expect_select("less_equal 7 (signed: -1 included)", s, c, NULL, 5, c_le, 4);
}

/* A NaN test (spec's compare) on an integer dtype is refused. */
static void expect_nan_test_refused(wk_ref_select_spec s, const void *in, void *out)
{
    uint64_t count = 0;
    wk_checkf(&tally, wk_ref_select(in, NULL, out, 1, &s, &count) == WK_ERROR_UNSUPPORTED,
              "%s %s is_nan: unsupported on an integer dtype", wk_ref_select_mode_name(s.mode), wk_dtype_name(s.dtype));
}

/* The 8- and 16-bit integers and bools: the same bytes signed and
 * unsigned, every mode, outputs one or two bytes wide. */
static void test_narrow(void)
{
    /* As i8: 5, -1, 127, -128, 0; as u8: 5, 255, 127, 128, 0. */
    const uint8_t a[] = {5, 0xff, 0x7f, 0x80, 0};
    wk_ref_select_spec s = spec_of(WK_REF_SELECT_IF, WK_I8, WK_LESS);
    s.predicate.a.i8 = 0;
    const uint8_t a_i8_neg[] = {0xff, 0x80};
    expect_select_in_place("less 0 (signed)", s, a, NULL, 5, a_i8_neg, 2);
    s = spec_of(WK_REF_SELECT_IF, WK_U8, WK_GREATER);
    s.predicate.a.u8 = 127;
    const uint8_t a_u8_big[] = {0xff, 0x80};
    expect_select_in_place("greater 127 (unsigned)", s, a, NULL, 5, a_u8_big, 2);
    s = spec_of(WK_REF_WHERE, WK_I8, WK_IN_RANGE);
    s.predicate.a.i8 = -128;
    s.predicate.b.i8 = 5;
    const int64_t a_where[] = {1, 3, 4};
    expect_select("in_range [-128, 5)", s, a, NULL, 5, a_where, 3);
    s = spec_of(WK_REF_PARTITION_IF, WK_U8, WK_GREATER_EQUAL);
    s.predicate.a.u8 = 128;
    const uint8_t a_part[] = {0xff, 0x80, 0, 0x7f, 5}; /* kept, then the rest last to first */
    expect_select("greater_equal 128", s, a, NULL, 5, a_part, 2);

    const int16_t b[] = {-32768, 300, -1, 32767, 300};
    s = spec_of(WK_REF_SELECT_IF, WK_I16, WK_LESS_EQUAL);
    s.predicate.a.i16 = -1;
    const int16_t b_le[] = {-32768, -1};
    expect_select("less_equal -1", s, b, NULL, 5, b_le, 2);
    s = spec_of(WK_REF_SELECT_IF, WK_U16, WK_GREATER);
    s.predicate.a.u16 = 32767;
    const int16_t b_u_gt[] = {-32768, -1}; /* 32768 and 65535 as u16 */
    expect_select("greater 32767 (unsigned)", s, b, NULL, 5, b_u_gt, 2);
    s = spec_of(WK_REF_SELECT_IF, WK_I16, WK_EQUAL);
    s.predicate.a.i16 = 300;
    const int16_t b_eq[] = {300, 300};
    expect_select("equal 300", s, b, NULL, 5, b_eq, 2);
    const uint8_t flags[] = {0, 9, 0, 1, 1};
    const int16_t b_flagged[] = {300, 32767, 300};
    expect_select_in_place("flags", spec_of(WK_REF_SELECT_FLAGGED, WK_I16, WK_LESS), b, flags, 5, b_flagged, 3);
    const uint16_t u[] = {7, 7, 65535, 65535, 7};
    const uint16_t u_want[] = {7, 65535, 7};
    expect_select_in_place("runs", spec_of(WK_REF_UNIQUE, WK_U16, WK_LESS), u, NULL, 5, u_want, 3);

    /* Bools compare as the numbers 0 and 1. */
    const uint8_t t[] = {1, 0, 0, 1, 1, 0};
    s = spec_of(WK_REF_WHERE, WK_BOOL, WK_EQUAL);
    s.predicate.a.b = 1;
    const int64_t t_true[] = {0, 3, 4};
    expect_select("where true", s, t, NULL, 6, t_true, 3);
    s = spec_of(WK_REF_SELECT_IF, WK_BOOL, WK_LESS);
    s.predicate.a.b = 1;
    const uint8_t t_false[] = {0, 0, 0};
    expect_select_in_place("less 1: the falses", s, t, NULL, 6, t_false, 3);
    s = spec_of(WK_REF_PARTITION_IF, WK_BOOL, WK_GREATER);
    s.predicate.a.b = 0;
    const uint8_t t_part[] = {1, 1, 1, 0, 0, 0};
    expect_select("greater 0: trues first", s, t, NULL, 6, t_part, 3);
    const uint8_t t_runs[] = {1, 0, 1, 0};
    expect_select_in_place("runs", spec_of(WK_REF_UNIQUE, WK_BOOL, WK_LESS), t, NULL, 6, t_runs, 4);
    s = spec_of(WK_REF_SELECT_IF, WK_BOOL, WK_IS_NAN);
    uint8_t out[8];
    expect_nan_test_refused(s, t, out);
}

/* ----------------------------------------------------------- floats */

/* Every compare on the same data, with a constant of +0.0 and -0.0 (the
 * same value): {1, NaN, -0.0, +0.0, -inf, +inf, 2.5, -1}. */
static void test_float_compares(void)
{
    const float x[] = {1.0f, NAN, -0.0f, 0.0f, -INFINITY, INFINITY, 2.5f, -1.0f};
    const size_t n = 8;
    static const struct {
        wk_compare cmp;
        size_t count;
        int64_t idx[8];
    } table[] = {
        {WK_LESS, 2, {4, 7}},
        {WK_LESS_EQUAL, 4, {2, 3, 4, 7}},
        {WK_GREATER, 3, {0, 5, 6}},
        {WK_GREATER_EQUAL, 5, {0, 2, 3, 5, 6}},
        {WK_EQUAL, 2, {2, 3}},
        {WK_NOT_EQUAL, 6, {0, 1, 4, 5, 6, 7}},
        {WK_IN_RANGE, 4, {0, 2, 3, 7}}, /* [-1, 2.5) */
        {WK_IS_NAN, 1, {1}},
        {WK_NOT_NAN, 7, {0, 2, 3, 4, 5, 6, 7}},
    };
    for (int sign = 0; sign < 2; ++sign)
        for (size_t t = 0; t < sizeof table / sizeof table[0]; ++t) {
            char what[64];
            snprintf(what, sizeof what, "%s %s0.0 on {1, nan, -0, +0, -inf, inf, 2.5, -1}",
                     wk_compare_name(table[t].cmp), sign ? "-" : "+");
            wk_ref_select_spec s = spec_of(WK_REF_WHERE, WK_F32, table[t].cmp);
            s.predicate.a.f32 = sign ? -0.0f : 0.0f;
            if (table[t].cmp == WK_IN_RANGE) {
                s.predicate.a.f32 = -1.0f;
                s.predicate.b.f32 = 2.5f;
            }
            expect_select(what, s, x, NULL, n, table[t].idx, table[t].count);

            /* The same compare through select_if: the elements, bits and
             * all (-0.0 stays -0.0, the NaN keeps its pattern). */
            float want[8];
            for (size_t k = 0; k < table[t].count; ++k)
                want[k] = x[table[t].idx[k]];
            s.mode = WK_REF_SELECT_IF;
            expect_select(what, s, x, NULL, n, want, table[t].count);
        }
}

static void test_nan_constants(void)
{
    const double x[] = {1.0, -2.0, NAN, 0.0, INFINITY};
    const int64_t all[] = {0, 1, 2, 3, 4};
    for (int c = 0; c <= (int)WK_IN_RANGE; ++c) {
        wk_ref_select_spec s = spec_of(WK_REF_WHERE, WK_F64, (wk_compare)c);
        s.predicate.a.f64 = NAN;
        s.predicate.b.f64 = 10.0;
        char what[64];
        snprintf(what, sizeof what, "%s nan: %s", wk_compare_name((wk_compare)c),
                 c == WK_NOT_EQUAL ? "everything" : "nothing");
        expect_select(what, s, x, NULL, 5, all, c == WK_NOT_EQUAL ? 5 : 0);
    }
    wk_ref_select_spec s = spec_of(WK_REF_WHERE, WK_F64, WK_IN_RANGE);
    s.predicate.a.f64 = -10.0;
    s.predicate.b.f64 = NAN;
    expect_select("in_range [-10, nan): nothing", s, x, NULL, 5, all, 0);
    s.predicate.b.f64 = INFINITY;
    const int64_t finite[] = {0, 1, 3};
    expect_select("in_range [-10, inf): the finite ones", s, x, NULL, 5, finite, 3);
    s.predicate.compare = WK_LESS_EQUAL;
    s.predicate.a.f64 = INFINITY;
    const int64_t le_inf[] = {0, 1, 3, 4};
    expect_select("less_equal inf: all but the NaN", s, x, NULL, 5, le_inf, 4);
}

/* f16 and bf16 compare as their exact values: neighbours one ulp apart,
 * the least subnormal against zero, and NaN payloads copied. */
static void test_half_types(void)
{
    /* f16: 1.0, 1.0 + 2^-10, -1.0, -0.0, 2^-24 (least subnormal), a quiet
     * NaN, +inf, a signalling NaN with a payload. */
    const uint16_t h[] = {0x3c00, 0x3c01, 0xbc00, 0x8000, 0x0001, 0x7e00, 0x7c00, 0x7d23};
    wk_ref_select_spec s = spec_of(WK_REF_SELECT_IF, WK_F16, WK_LESS);
    s.predicate.a.f16 = 0x3c01;
    const uint16_t h_less[] = {0x3c00, 0xbc00, 0x8000, 0x0001};
    expect_select("less 1 + 2^-10", s, h, NULL, 8, h_less, 4);
    s.predicate.compare = WK_GREATER;
    s.predicate.a.f16 = 0x8000; /* -0.0: the subnormal is above it, +0 would not be */
    const uint16_t h_gt[] = {0x3c00, 0x3c01, 0x0001, 0x7c00};
    expect_select("greater -0.0", s, h, NULL, 8, h_gt, 4);
    s.predicate.compare = WK_EQUAL;
    s.predicate.a.f16 = 0x0000;
    const uint16_t h_eq[] = {0x8000};
    expect_select("equal +0.0 keeps -0.0", s, h, NULL, 8, h_eq, 1);
    s.predicate.compare = WK_IS_NAN;
    const uint16_t h_nan[] = {0x7e00, 0x7d23};
    expect_select_in_place("is_nan keeps both payloads", s, h, NULL, 8, h_nan, 2);
    s.mode = WK_REF_PARTITION_IF;
    s.predicate.compare = WK_NOT_NAN;
    /* Kept in order, then the rejected NaNs last first. */
    const uint16_t h_part[] = {0x3c00, 0x3c01, 0xbc00, 0x8000, 0x0001, 0x7c00, 0x7d23, 0x7e00};
    expect_select("not_nan", s, h, NULL, 8, h_part, 6);

    /* bf16: 1.0, 1.0 + 2^-7, the least subnormal, -0.0, a NaN with a
     * payload, -inf. */
    const uint16_t b[] = {0x3f80, 0x3f81, 0x0001, 0x8000, 0xffc1, 0xff80};
    s = spec_of(WK_REF_SELECT_IF, WK_BF16, WK_GREATER_EQUAL);
    s.predicate.a.bf16 = 0x3f81;
    const uint16_t b_ge[] = {0x3f81};
    expect_select("greater_equal 1 + 2^-7", s, b, NULL, 6, b_ge, 1);
    s.predicate.compare = WK_IN_RANGE;
    s.predicate.a.bf16 = 0x0000; /* [+0, 1) holds -0.0 and the subnormal */
    s.predicate.b.bf16 = 0x3f80;
    const uint16_t b_range[] = {0x0001, 0x8000};
    expect_select("in_range [0, 1)", s, b, NULL, 6, b_range, 2);
    s.predicate.compare = WK_NOT_EQUAL;
    s.predicate.a.bf16 = 0xff80;
    const uint16_t b_ne[] = {0x3f80, 0x3f81, 0x0001, 0x8000, 0xffc1};
    expect_select("not_equal -inf keeps the NaN", s, b, NULL, 6, b_ne, 5);
    s.mode = WK_REF_WHERE;
    s.predicate.compare = WK_LESS;
    s.predicate.a.bf16 = 0x0001;
    const int64_t b_less[] = {3, 5};
    expect_select("less the least subnormal", s, b, NULL, 6, b_less, 2);
}

/* Signalling NaNs and payloads in f32 / f64 travel as bits. */
static void test_payloads(void)
{
    const uint32_t f[] = {0x7f800001u, 0xffc01234u, 0x3f800000u, 0x80000000u};
    wk_ref_select_spec s = spec_of(WK_REF_SELECT_IF, WK_F32, WK_IS_NAN);
    const uint32_t f_nan[] = {0x7f800001u, 0xffc01234u};
    expect_select("is_nan: signalling and negative payloads kept", s, f, NULL, 4, f_nan, 2);
    s.predicate.compare = WK_LESS_EQUAL;
    s.predicate.a.f32 = 0.0f;
    const uint32_t f_le[] = {0x80000000u};
    expect_select("less_equal 0 keeps -0.0's sign", s, f, NULL, 4, f_le, 1);

    const uint64_t d[] = {UINT64_C(0x7ff0000000000001), UINT64_C(0x4000000000000000), UINT64_C(0xfff8000000abcdef)};
    s = spec_of(WK_REF_PARTITION_IF, WK_F64, WK_GREATER);
    s.predicate.a.f64 = 1.0;
    const uint64_t d_part[] = {UINT64_C(0x4000000000000000), UINT64_C(0xfff8000000abcdef),
                               UINT64_C(0x7ff0000000000001)};
    expect_select("greater 1: the NaNs rejected, last first, payloads kept", s, d, NULL, 3, d_part, 1);
}

/* ------------------------------------------------------------- modes */

static void test_partition(void)
{
    const int32_t x[] = {1, 2, 3, 4, 5, 6};
    wk_ref_select_spec s = spec_of(WK_REF_PARTITION_IF, WK_I32, WK_GREATER);
    s.predicate.a.i32 = 3;
    /* The last rejected element (3) lands at out[count]. */
    const int32_t want[] = {4, 5, 6, 3, 2, 1};
    expect_select("greater 3", s, x, NULL, 6, want, 3);
    const int32_t y[] = {5, 1, 6, 2, 7, 3};
    const int32_t want_y[] = {5, 6, 7, 3, 2, 1};
    expect_select("greater 3, interleaved", s, y, NULL, 6, want_y, 3);
    s.predicate.a.i32 = 100;
    const int32_t none[] = {3, 7, 2, 6, 1, 5};
    expect_select("greater 100: nothing kept, the whole input reversed", s, y, NULL, 6, none, 0);
    s.predicate.a.i32 = -100;
    expect_select("greater -100: everything kept in order", s, y, NULL, 6, y, 6);
}

static void test_flagged(void)
{
    const int64_t x[] = {10, -20, 30, -40, 50};
    const uint8_t flags[] = {0, 1, 255, 0, 2};
    wk_ref_select_spec s = spec_of(WK_REF_SELECT_FLAGGED, WK_I64, WK_LESS);
    const int64_t want[] = {-20, 30, 50};
    expect_select_in_place("flags {0, 1, 255, 0, 2}", s, x, flags, 5, want, 3);
    const uint8_t none[] = {0, 0, 0, 0, 0};
    expect_select("no flags", s, x, none, 5, want, 0);

    /* Flags pick bits, whatever they are: NaNs included, no compare made. */
    const uint16_t h[] = {0x7e01, 0x3c00, 0xfc00};
    const uint8_t hf[] = {128, 0, 1};
    const uint16_t hw[] = {0x7e01, 0xfc00};
    s = spec_of(WK_REF_SELECT_FLAGGED, WK_F16, WK_LESS);
    expect_select("flags on NaN and -inf", s, h, hf, 3, hw, 2);
}

static void test_unique(void)
{
    /* Runs by ==: -0.0 continues a run of zeros (the first zero's bits
     * stay), each NaN starts a run of its own, and so does what follows
     * it. */
    const float x[] = {1, 1, -0.0f, 0.0f, 0.0f, NAN, NAN, 2, 2, -INFINITY, -INFINITY};
    const float want[] = {1, -0.0f, NAN, NAN, 2, -INFINITY};
    wk_ref_select_spec s = spec_of(WK_REF_UNIQUE, WK_F32, WK_LESS);
    expect_select_in_place("runs of 1, zeros, NaNs, 2, -inf", s, x, NULL, 11, want, 6);

    const int32_t i[] = {5, 5, 5};
    const int32_t i_want[] = {5};
    expect_select_in_place("all equal", spec_of(WK_REF_UNIQUE, WK_I32, WK_LESS), i, NULL, 3, i_want, 1);
    const int32_t j[] = {5};
    expect_select("one element", spec_of(WK_REF_UNIQUE, WK_I32, WK_LESS), j, NULL, 1, j, 1);

    const uint64_t u[] = {0, UINT64_MAX, UINT64_MAX, 0, 0, 1};
    const uint64_t u_want[] = {0, UINT64_MAX, 0, 1};
    expect_select_in_place("u64", spec_of(WK_REF_UNIQUE, WK_U64, WK_LESS), u, NULL, 6, u_want, 4);

    const uint16_t h[] = {0x8000, 0x0000, 0x3c00, 0x3c00, 0x7e00, 0x7e00, 0x3c00};
    const uint16_t h_want[] = {0x8000, 0x3c00, 0x7e00, 0x7e00, 0x3c00};
    expect_select_in_place("f16 zeros and NaNs", spec_of(WK_REF_UNIQUE, WK_F16, WK_LESS), h, NULL, 7, h_want, 5);

    /* bf16 by value: 0x0000 and 0x8000 are equal; 0x3f80 and 0x3f81 not. */
    const uint16_t b[] = {0x0000, 0x8000, 0x3f80, 0x3f81, 0x3f81};
    const uint16_t b_want[] = {0x0000, 0x3f80, 0x3f81};
    expect_select("bf16", spec_of(WK_REF_UNIQUE, WK_BF16, WK_LESS), b, NULL, 5, b_want, 3);

    const double d[] = {-0.0, 0.0, -0.0, 3.0};
    const double d_want[] = {-0.0, 3.0};
    expect_select("f64 zeros of both signs", spec_of(WK_REF_UNIQUE, WK_F64, WK_LESS), d, NULL, 4, d_want, 2);
}

static void test_empty(void)
{
    for (int m = 0; m < WK_REF_SELECT_MODE_COUNT; ++m) {
        wk_ref_select_spec s = spec_of((wk_ref_select_mode)m, WK_F32, WK_LESS);
        unsigned char out[16];
        memset(out, POISON, sizeof out);
        uint64_t count = 99;
        wk_status st = wk_ref_select(NULL, NULL, out, 0, &s, &count);
        int untouched = 1;
        for (size_t b = 0; b < sizeof out; ++b)
            untouched &= out[b] == POISON;
        wk_checkf(&tally, st == WK_SUCCESS && count == 0 && untouched, "%s n = 0: count 0, nothing written",
                  wk_ref_select_mode_name((wk_ref_select_mode)m));
        st = wk_ref_select(NULL, NULL, NULL, 0, &s, &count);
        wk_checkf(&tally, st == WK_SUCCESS, "%s n = 0 with NULL pointers is fine",
                  wk_ref_select_mode_name((wk_ref_select_mode)m));
    }
}

/* ---------------------------------------------------------- arguments */

static void expect_status(const char *what, wk_status want, wk_status got)
{
    wk_checkf(&tally, got == want, "%s: %s (want %s)", what, wk_status_string(got), wk_status_string(want));
}

static void test_arguments(void)
{
    const float in[4] = {1, 2, 3, 4};
    float out[4];
    const uint8_t flags[4] = {1, 0, 1, 0};
    wk_ref_select_spec s = spec_of(WK_REF_SELECT_IF, WK_F32, WK_LESS);
    uint64_t count = 77;
    expect_status("NULL spec", WK_ERROR_INVALID_ARGUMENT, wk_ref_select(in, NULL, out, 4, NULL, &count));
    expect_status("NULL in", WK_ERROR_INVALID_ARGUMENT, wk_ref_select(NULL, NULL, out, 4, &s, &count));
    expect_status("NULL out", WK_ERROR_INVALID_ARGUMENT, wk_ref_select(in, NULL, NULL, 4, &s, &count));
    s.mode = WK_REF_SELECT_FLAGGED;
    expect_status("select_flagged with NULL flags", WK_ERROR_INVALID_ARGUMENT,
                  wk_ref_select(in, NULL, out, 4, &s, &count));
    s.mode = (wk_ref_select_mode)7;
    expect_status("mode 7", WK_ERROR_INVALID_ARGUMENT, wk_ref_select(in, flags, out, 4, &s, &count));
    s = spec_of(WK_REF_WHERE, (wk_dtype)99, WK_LESS);
    expect_status("dtype 99", WK_ERROR_INVALID_DTYPE, wk_ref_select(in, NULL, out, 4, &s, &count));
    s = spec_of(WK_REF_SELECT_IF, WK_F32, (wk_compare)9);
    expect_status("compare 9", WK_ERROR_INVALID_ARGUMENT, wk_ref_select(in, NULL, out, 4, &s, &count));
    s.predicate.compare = (wk_compare)-1;
    expect_status("compare -1", WK_ERROR_INVALID_ARGUMENT, wk_ref_select(in, NULL, out, 4, &s, &count));
    s = spec_of(WK_REF_UNIQUE, WK_F32, (wk_compare)9);
    expect_status("unique ignores the compare", WK_SUCCESS, wk_ref_select(in, NULL, out, 4, &s, &count));
    count = 77;
    const wk_dtype ints[] = {WK_I32, WK_U32, WK_I64, WK_U64};
    for (size_t k = 0; k < 4; ++k) {
        char what[64];
        s = spec_of(WK_REF_SELECT_IF, ints[k], WK_IS_NAN);
        snprintf(what, sizeof what, "is_nan on %s", wk_dtype_name(ints[k]));
        expect_status(what, WK_ERROR_UNSUPPORTED, wk_ref_select(in, NULL, out, 4, &s, &count));
        s = spec_of(WK_REF_WHERE, ints[k], WK_NOT_NAN);
        snprintf(what, sizeof what, "not_nan on %s", wk_dtype_name(ints[k]));
        expect_status(what, WK_ERROR_UNSUPPORTED, wk_ref_select(in, NULL, out, 4, &s, &count));
    }
    wk_checkf(&tally, count == 77, "failed calls leave the count alone (%" PRIu64 ")", count);

    float buf[4] = {1, 2, 3, 4};
    s = spec_of(WK_REF_PARTITION_IF, WK_F32, WK_LESS);
    expect_status("partition_if in place", WK_ERROR_INVALID_ARGUMENT, wk_ref_select(buf, NULL, buf, 4, &s, &count));
    s.mode = WK_REF_WHERE;
    expect_status("where in place", WK_ERROR_INVALID_ARGUMENT, wk_ref_select(buf, NULL, buf, 4, &s, &count));
    s.mode = WK_REF_SELECT_IF;
    expect_status("select_if in place", WK_SUCCESS, wk_ref_select(buf, NULL, buf, 4, &s, &count));

    wk_checkf(&tally,
              wk_ref_select_out_size(WK_REF_WHERE, WK_F16) == 8 && wk_ref_select_out_size(WK_REF_UNIQUE, WK_F16) == 2 &&
                  wk_ref_select_out_size(WK_REF_SELECT_IF, (wk_dtype)99) == 0 &&
                  wk_ref_select_out_size((wk_ref_select_mode)5, WK_F32) == 0,
              "output sizes: 8 for where, the element's else, 0 when unknown");
    wk_checkf(&tally,
              wk_ref_select_in_place_ok(WK_REF_SELECT_IF) && wk_ref_select_in_place_ok(WK_REF_SELECT_FLAGGED) &&
                  wk_ref_select_in_place_ok(WK_REF_UNIQUE) && !wk_ref_select_in_place_ok(WK_REF_PARTITION_IF) &&
                  !wk_ref_select_in_place_ok(WK_REF_WHERE),
              "in place for select_if, select_flagged and unique only");
    char msg[256];
    s = spec_of(WK_REF_SELECT_IF, WK_F32, WK_LESS);
    size_t r = wk_ref_check_select(in, NULL, 4, &s, in, 0, NULL, msg, sizeof msg);
    wk_checkf(&tally, r == WK_REF_SELECT_INVALID, "the checker refuses got == the input: %s", msg);
    s.dtype = (wk_dtype)99;
    r = wk_ref_check_select(in, NULL, 4, &s, out, 0, NULL, msg, sizeof msg);
    wk_checkf(&tally, r == WK_REF_SELECT_INVALID, "the checker refuses dtype 99: %s", msg);
}

/* ------------------------------------------------------------ checker */

static void expect_caught(const char *what, wk_ref_select_spec spec, const void *in, const uint8_t *flags, size_t n,
                          const void *got, uint64_t got_count, size_t want_bad)
{
    char msg[1024];
    size_t bad = wk_ref_check_select(in, flags, n, &spec, got, got_count, NULL, msg, sizeof msg);
    wk_checkf(&tally, bad == want_bad, "the checker catches %s (%zu mismatches, want %zu): %s", what, bad, want_bad,
              msg);
}

static void test_checker(void)
{
    const float x[] = {1.0f, -0.0f, 3.0f, -2.0f};
    wk_ref_select_spec s = spec_of(WK_REF_SELECT_IF, WK_F32, WK_LESS_EQUAL);
    s.predicate.a.f32 = 0.0f;
    float got[4] = {-0.0f, -2.0f, 77.0f, 77.0f};
    char msg[512];
    size_t bad = wk_ref_check_select(x, NULL, 4, &s, got, 2, NULL, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "the checker ignores what lies past the count: %s", msg);
    expect_caught("a count one too high", s, x, NULL, 4, got, 3, 1);
    expect_caught("a count of 0", s, x, NULL, 4, got, 0, 1);
    got[0] = 0.0f;
    expect_caught("+0.0 for -0.0", s, x, NULL, 4, got, 2, 1);
    got[0] = -0.0f;
    got[1] = -2.0000002f;
    expect_caught("a changed element", s, x, NULL, 4, got, 2, 1);
    got[0] = -2.0f;
    got[1] = -0.0f;
    expect_caught("two elements swapped", s, x, NULL, 4, got, 2, 2);

    /* NaN payloads must survive: a canonical NaN for a payload is wrong. */
    const uint32_t nan_in[] = {0x7fa00001u, 0x3f800000u};
    uint32_t nan_got[] = {0x7fc00000u, 0};
    s = spec_of(WK_REF_SELECT_IF, WK_F32, WK_IS_NAN);
    expect_caught("a NaN's payload replaced", s, nan_in, NULL, 2, nan_got, 1, 1);

    const int32_t y[] = {1, 2, 3, 4, 5, 6};
    s = spec_of(WK_REF_PARTITION_IF, WK_I32, WK_GREATER);
    s.predicate.a.i32 = 3;
    const int32_t forward[] = {4, 5, 6, 1, 2, 3};
    expect_caught("partition's rejected not reversed", s, y, NULL, 6, forward, 3, 2);
    const int32_t right[] = {4, 5, 6, 3, 2, 1};
    bad = wk_ref_check_select(y, NULL, 6, &s, right, 3, NULL, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "partition's right output passes: %s", msg);

    s = spec_of(WK_REF_WHERE, WK_I32, WK_LESS);
    s.predicate.a.i32 = 3;
    const int64_t idx_wrong[] = {0, 2};
    expect_caught("a wrong index", s, y, NULL, 6, idx_wrong, 2, 1);

    const float u[] = {2, 2, 3};
    s = spec_of(WK_REF_UNIQUE, WK_F32, WK_LESS);
    const float u_got[] = {2, 2, 3};
    expect_caught("a duplicate kept", s, u, NULL, 3, u_got, 3, 2);

    const int64_t fx[] = {10, 20, 30};
    const uint8_t ff[] = {0, 9, 0};
    const int64_t f_got[] = {10, 0, 0};
    s = spec_of(WK_REF_SELECT_FLAGGED, WK_I64, WK_LESS);
    expect_caught("the unflagged element", s, fx, ff, 3, f_got, 1, 1);
}

/* --------------------------------------------------------- naive loops */

/* The reference against plain C loops over a few thousand random f64 and
 * i32 values (NaNs planted), for every compare. */
static void test_against_loops(uint64_t seed)
{
    enum { N = 4000 };
    double *x = malloc(N * sizeof *x), *out = malloc(N * sizeof *out), *want = malloc(N * sizeof *want);
    int32_t *y = malloc(N * sizeof *y), *yout = malloc(N * sizeof *yout), *ywant = malloc(N * sizeof *ywant);
    for (size_t i = 0; i < N; ++i) {
        uint64_t r = wk_rand64(seed, i);
        x[i] = r % 50 == 0 ? NAN : (double)((int)(r % 21) - 10) / 4.0;
        y[i] = (int32_t)(r >> 32);
        if (r % 7 == 0)
            y[i] = (int32_t)(r % 5) - 2;
    }
    for (int c = 0; c < WK_COMPARE_COUNT; ++c) {
        wk_ref_select_spec s = spec_of(WK_REF_SELECT_IF, WK_F64, (wk_compare)c);
        s.predicate.a.f64 = -0.5;
        s.predicate.b.f64 = 1.25;
        size_t k = 0;
        for (size_t i = 0; i < N; ++i) {
            double v = x[i], a = -0.5, b = 1.25;
            int keep = c == WK_LESS ? v < a : c == WK_LESS_EQUAL ? v <= a : c == WK_GREATER ? v > a
                     : c == WK_GREATER_EQUAL ? v >= a : c == WK_EQUAL ? v == a : c == WK_NOT_EQUAL ? v != a
                     : c == WK_IN_RANGE ? (a <= v && v < b) : c == WK_IS_NAN ? isnan(v) : !isnan(v);
            if (keep)
                want[k++] = v;
        }
        uint64_t count = 0;
        wk_status st = wk_ref_select(x, NULL, out, N, &s, &count);
        wk_checkf(&tally, st == WK_SUCCESS && count == k && memcmp(out, want, k * sizeof *out) == 0,
                  "f64 %s against a plain loop: %zu kept", wk_compare_name((wk_compare)c), k);
    }
    for (int c = 0; c <= (int)WK_IN_RANGE; ++c)
        for (int uns = 0; uns < 2; ++uns) {
            wk_ref_select_spec s = spec_of(WK_REF_SELECT_IF, uns ? WK_U32 : WK_I32, (wk_compare)c);
            s.predicate.a.i32 = -1;
            s.predicate.b.i32 = 1;
            if (c == WK_IN_RANGE && uns) {
                s.predicate.a.u32 = 1u << 30;
                s.predicate.b.u32 = 3u << 30;
            }
            size_t k = 0;
            for (size_t i = 0; i < N; ++i) {
                int keep;
                if (uns) {
                    uint32_t v = (uint32_t)y[i], a = s.predicate.a.u32, b = s.predicate.b.u32;
                    keep = c == WK_LESS ? v < a : c == WK_LESS_EQUAL ? v <= a : c == WK_GREATER ? v > a
                         : c == WK_GREATER_EQUAL ? v >= a : c == WK_EQUAL ? v == a : c == WK_NOT_EQUAL ? v != a
                         : (a <= v && v < b);
                } else {
                    int32_t v = y[i], a = -1, b = 1;
                    keep = c == WK_LESS ? v < a : c == WK_LESS_EQUAL ? v <= a : c == WK_GREATER ? v > a
                         : c == WK_GREATER_EQUAL ? v >= a : c == WK_EQUAL ? v == a : c == WK_NOT_EQUAL ? v != a
                         : (a <= v && v < b);
                }
                if (keep)
                    ywant[k++] = y[i];
            }
            uint64_t count = 0;
            wk_status st = wk_ref_select(y, NULL, yout, N, &s, &count);
            wk_checkf(&tally, st == WK_SUCCESS && count == k && memcmp(yout, ywant, k * sizeof *yout) == 0,
                      "%s %s against a plain loop: %zu kept", uns ? "u32" : "i32", wk_compare_name((wk_compare)c), k);
        }
    free(x);
    free(out);
    free(want);
    free(y);
    free(yout);
    free(ywant);
}

static void test_predicate_holds(void)
{
    wk_predicate p;
    memset(&p, 0, sizeof p);
    p.compare = WK_LESS;
    int32_t minus_one = -1;
    wk_checkf(&tally, wk_ref_predicate_holds(&minus_one, WK_I32, &p) && !wk_ref_predicate_holds(&minus_one, WK_U32, &p),
              "-1 < 0 as i32, not as u32");
    p.compare = WK_IS_NAN;
    wk_checkf(&tally, !wk_ref_predicate_holds(&minus_one, WK_I32, &p), "is_nan holds for no integer");
    float nan = NAN;
    wk_checkf(&tally, wk_ref_predicate_holds(&nan, WK_F32, &p), "is_nan holds for a NaN");
    p.compare = (wk_compare)12;
    wk_checkf(&tally, !wk_ref_predicate_holds(&nan, WK_F32, &p), "an unknown compare holds for nothing");
    char buf[96];
    memset(&p, 0, sizeof p);
    p.compare = WK_IN_RANGE;
    p.a.f16 = 0xbe00;
    p.b.f16 = 0x3c00;
    wk_ref_format_predicate(WK_F16, &p, buf, sizeof buf);
    wk_checkf(&tally, strstr(buf, "in_range [-1.5") != NULL && strstr(buf, "0x3c00") != NULL,
              "the predicate for humans: %s", buf);
}

int main(void)
{
    uint64_t seed = wk_seed_from_time();
    printf("seed %" PRIu64 " (set WK_SEED to repeat)\n", seed);
    test_signed_unsigned();
    test_narrow();
    test_float_compares();
    test_nan_constants();
    test_half_types();
    test_payloads();
    test_partition();
    test_flagged();
    test_unique();
    test_empty();
    test_arguments();
    test_checker();
    test_against_loops(seed);
    test_predicate_holds();
    return wk_tally_finish(&tally);
}
