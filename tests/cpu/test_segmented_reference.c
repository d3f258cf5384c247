/* Tests of the CPU reference for the segmented calls
 * (verify/ref/segmented_reference): the three layouts and the clamping of
 * offsets, hand-computed reduces and scans per segment (empty segments,
 * index -1, ties to the lowest index, the first NaN, signed zeros, f16 /
 * bf16 NaN as 0x7fff, 8- and 16-bit integers and bools), the checkers (what they accept and what they catch,
 * the float-sum bound at its edge, untouched gaps), and the generators of
 * offsets (sizes sum to the total, offsets monotone, disjoint layouts
 * disjoint and clamped as described).
 *
 * Expected values are written out by hand or computed by naive loops, never
 * by the code under test.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/generate.h"
#include "ref/half.h"
#include "ref/reference.h"
#include "ref/segmented_reference.h"
#include "cpu/seeded_test.h"
#include "test_util.h"

static wk_tally tally;

static wk_ref_segments uniform(size_t count, size_t size)
{
    wk_ref_segments s = {count, size, 0, NULL, NULL};
    return s;
}

static wk_ref_segments rows(size_t count, size_t size, size_t stride)
{
    wk_ref_segments s = {count, size, stride, NULL, NULL};
    return s;
}

static wk_ref_segments offsets(size_t count, size_t size, const int64_t *begin, const int64_t *end)
{
    wk_ref_segments s = {count, size, 0, begin, end};
    return s;
}

static wk_ref_scan_spec spec_of(wk_dtype d, wk_op op, int exclusive)
{
    wk_ref_scan_spec s;
    memset(&s, 0, sizeof s);
    s.dtype = d;
    s.op = op;
    s.exclusive = exclusive;
    return s;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* ------------------------------------------------------------- layouts */

static void test_layouts(void)
{
    wk_ref_segments s = uniform(3, 4);
    wk_checkf(&tally, wk_ref_segments_validate(&s) == WK_SUCCESS, "uniform with stride 0 is valid");
    wk_checkf(&tally, wk_ref_segments_extent(&s) == 12, "uniform 3 x 4 spans 12");
    s.stride = 4;
    wk_checkf(&tally, wk_ref_segments_validate(&s) == WK_SUCCESS && wk_ref_segments_extent(&s) == 12,
              "uniform with stride = size is the same");
    s = rows(3, 2, 5);
    wk_checkf(&tally, wk_ref_segments_validate(&s) == WK_SUCCESS && wk_ref_segments_extent(&s) == 12,
              "rows 3 x 2 at stride 5 span 2 * 5 + 2 = 12");
    s = rows(3, 10, 5);
    wk_checkf(&tally, wk_ref_segments_validate(&s) == WK_ERROR_INVALID_ARGUMENT, "stride 5 < size 10 is refused");
    s.count = 0;
    wk_checkf(&tally, wk_ref_segments_extent(&s) == 0, "count 0 spans nothing");
    wk_checkf(&tally, wk_ref_segments_validate(NULL) == WK_ERROR_INVALID_ARGUMENT, "NULL segments are refused");

    int64_t b[] = {-5, 5, 15, 20, INT64_MIN, 4, 3};
    int64_t e[] = {3, 3, 30, 30, INT64_MAX, 4, 9};
    s = offsets(7, 17, b, e);
    s.stride = 1; /* unused by offsets */
    wk_checkf(&tally, wk_ref_segments_validate(&s) == WK_SUCCESS && wk_ref_segments_extent(&s) == 17,
              "offsets span size (17), stride ignored");
    const size_t want_first[] = {0, 5, 15, 17, 0, 4, 3}, want_len[] = {3, 0, 2, 0, 17, 0, 6};
    int ok = 1;
    for (size_t i = 0; i < 7; ++i) {
        size_t first, len;
        wk_ref_segment_range(&s, i, &first, &len);
        ok &= first == want_first[i] && len == want_len[i];
        if (first != want_first[i] || len != want_len[i])
            printf("  segment %zu: [%zu, +%zu), want [%zu, +%zu)\n", i, first, len, want_first[i], want_len[i]);
    }
    wk_checkf(&tally, ok, "offsets clamp into [0, size]: [-5,3) [5,3) [15,30) [20,30) [MIN,MAX) [4,4) [3,9)");
    s.end = NULL;
    wk_checkf(&tally, wk_ref_segments_validate(&s) == WK_ERROR_INVALID_ARGUMENT, "begin without end is refused");
    s.end = e;
    s.begin = NULL;
    wk_checkf(&tally, wk_ref_segments_validate(&s) == WK_ERROR_INVALID_ARGUMENT, "end without begin is refused");

    size_t first, len;
    s = rows(4, 3, 7);
    wk_ref_segment_range(&s, 2, &first, &len);
    wk_checkf(&tally, first == 14 && len == 3, "row 2 of 3 at stride 7 is [14, +3)");

    /* Coverage: rows leave their gaps; overlapping offsets are not disjoint. */
    unsigned char cov[4];
    int disjoint = wk_ref_segments_cover(&s, cov);
    /* Rows at 0, 7, 14, 21: bits 0-2, 7-9, 14-16, 21-23. */
    wk_checkf(&tally, disjoint && cov[0] == 0x87 && cov[1] == 0xc3 && cov[2] == 0xe1,
              "rows cover 0-2, 7-9, 14-16, 21-23: %02x %02x %02x", cov[0], cov[1], cov[2]);
    int64_t ob[] = {0, 4, 3}, oe[] = {3, 6, 4};
    s = offsets(3, 8, ob, oe);
    wk_checkf(&tally, wk_ref_segments_cover(&s, cov) && cov[0] == 0x3f, "[0,3) [4,6) [3,4): disjoint, bits 0-5");
    oe[0] = 4;
    wk_checkf(&tally, !wk_ref_segments_cover(&s, cov), "[0,4) and [3,4) overlap");

    wk_checkf(&tally, wk_ref_segment_depth(0) == 64 && wk_ref_segment_depth(1) == 65 && wk_ref_segment_depth(8) == 65 &&
                          wk_ref_segment_depth(9) == 66 && wk_ref_segment_depth(1 << 24) == (1 << 21) + 64,
              "depth is ceil(len / 8) + 64");
}

/* -------------------------------------------------------------- reduce */

static void test_reduce_uniform_rows(void)
{
    const int32_t a[] = {1, 2, 3, 4, 5, 6};
    int32_t out[3] = {7, 7, 7};
    wk_ref_segments s = uniform(2, 3);
    wk_status st = wk_ref_segmented_reduce(a, out, &s, WK_I32, WK_SUM);
    wk_checkf(&tally, st == WK_SUCCESS && out[0] == 6 && out[1] == 15 && out[2] == 7,
              "i32 sums of 2 x 3: 6 15, nothing past count");

    /* Rows of 2 at stride 3: the third element of each row is not read. */
    const int32_t r[] = {1, 2, 100, 3, 4, 100, -1, -1};
    s = rows(3, 2, 3);
    st = wk_ref_segmented_reduce(r, out, &s, WK_I32, WK_MAX);
    wk_checkf(&tally, st == WK_SUCCESS && out[0] == 2 && out[1] == 4 && out[2] == -1, "i32 row maxima: 2 4 -1 (gaps unread)");

    const uint64_t x[] = {1, 2, 4, 8, 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull};
    uint64_t xo[3];
    s = uniform(3, 2);
    wk_ref_segmented_reduce(x, xo, &s, WK_U64, WK_XOR);
    wk_checkf(&tally, xo[0] == 3 && xo[1] == 12 && xo[2] == 0xf0f0f0f0f0f0f0f0ull, "u64 xor per pair");
    wk_ref_segmented_reduce(x, xo, &s, WK_U64, WK_AND);
    wk_checkf(&tally, xo[0] == 0 && xo[1] == 0 && xo[2] == 0x0f000f000f000f00ull, "u64 and per pair");

    /* Integer sums wrap per segment. */
    const uint32_t w[] = {0xffffffffu, 2, 5, 6};
    uint32_t wo[2];
    s = uniform(2, 2);
    wk_ref_segmented_reduce(w, wo, &s, WK_U32, WK_SUM);
    wk_checkf(&tally, wo[0] == 1 && wo[1] == 11, "u32 sums wrap per segment");

    /* Size 0: every segment is the identity. */
    float fo[3];
    s = uniform(3, 0);
    st = wk_ref_segmented_reduce(NULL, fo, &s, WK_F32, WK_MIN);
    wk_checkf(&tally, st == WK_SUCCESS && isinf(fo[0]) && fo[0] > 0 && isinf(fo[2]),
              "size 0: min is +inf for every segment (NULL input allowed)");
}

/* Offsets: clamped, empty, overlapping, out of order; arg indices within
 * the segment, -1 when empty, ties to the lowest index. */
static void test_reduce_offsets(void)
{
    const int32_t a[] = {5, -1, 7, 7, 2};
    const int64_t b[] = {0, 2, 3, 4, -3, 3, 1};
    const int64_t e[] = {2, 4, 3, -2, 1, 100, 5};
    wk_ref_segments s = offsets(7, 5, b, e);
    wk_arg_result r[7];
    memset(r, 0xcd, sizeof r);
    wk_status st = wk_ref_segmented_reduce(a, r, &s, WK_I32, WK_ARGMAX);
    const int32_t want_v[] = {5, 7, INT32_MIN, INT32_MIN, 5, 7, 7};
    const int64_t want_i[] = {0, 0, -1, -1, 0, 0, 1};
    int ok = st == WK_SUCCESS;
    for (int i = 0; i < 7; ++i) {
        ok &= r[i].value.i32 == want_v[i] && r[i].index == want_i[i] && (r[i].value.u64 >> 32) == 0;
        if (r[i].value.i32 != want_v[i] || r[i].index != want_i[i])
            printf("  segment %d: %d@%" PRId64 ", want %d@%" PRId64 "\n", i, r[i].value.i32, r[i].index, want_v[i],
                   want_i[i]);
    }
    wk_checkf(&tally, ok, "i32 argmax over offsets: ties lowest, empty -1 with the identity, clamped, upper bytes 0");

    st = wk_ref_segmented_reduce(a, r, &s, WK_I32, WK_ARGMIN);
    wk_checkf(&tally, st == WK_SUCCESS && r[0].value.i32 == -1 && r[0].index == 1 && r[5].value.i32 == 2 &&
                          r[5].index == 1 && r[2].value.i32 == INT32_MAX && r[2].index == -1,
              "i32 argmin: -1@1; [3, 100) clamps to [3, 5): 2@1 (from the clamped begin); empty: INT32_MAX@-1");

    int32_t sums[7];
    wk_ref_segmented_reduce(a, sums, &s, WK_I32, WK_SUM);
    wk_checkf(&tally, sums[0] == 4 && sums[1] == 14 && sums[2] == 0 && sums[3] == 0 && sums[4] == 5 && sums[5] == 9 &&
                          sums[6] == 15,
              "i32 sums over overlapping offsets: 4 14 0 0 5 9 15");
    uint32_t ands[7];
    wk_ref_segmented_reduce(a, ands, &s, WK_U32, WK_AND);
    wk_checkf(&tally, ands[2] == 0xffffffffu && ands[0] == (5u & 0xffffffffu), "u32 and: empty is all ones");
}

static void test_reduce_floats(void)
{
    /* The first NaN, for every op that compares. */
    const float a[] = {1, NAN, -3, -NAN, 0.0f, -0.0f, 0.0f, -0.0f};
    wk_ref_segments s = uniform(2, 4);
    wk_arg_result r[2];
    wk_ref_segmented_reduce(a, r, &s, WK_F32, WK_ARGMIN);
    wk_checkf(&tally, isnan(r[0].value.f32) && r[0].index == 1 && f32_bits(r[0].value.f32) == f32_bits(a[1]),
              "argmin: the first NaN, its own bits, index 1");
    wk_checkf(&tally, r[1].value.f32 == 0 && !signbit(r[1].value.f32) && r[1].index == 0,
              "argmin of {+0, -0, +0, -0}: a tie, +0@0");
    float m[2];
    wk_ref_segmented_reduce(a, m, &s, WK_F32, WK_MIN);
    wk_checkf(&tally, isnan(m[0]) && m[1] == 0 && signbit(m[1]), "min: NaN; min of the zeros is -0");
    wk_ref_segmented_reduce(a, m, &s, WK_F32, WK_MAX);
    wk_checkf(&tally, isnan(m[0]) && m[1] == 0 && !signbit(m[1]), "max: NaN; max of the zeros is +0");

    /* f16 / bf16: arg results carry the value, a NaN as 0x7fff. */
    const uint16_t h[] = {0x3c00, 0x7e01, 0x4000, 0xfc00}; /* 1, NaN (payload), 2, -inf */
    s = uniform(2, 2);
    wk_ref_segmented_reduce(h, r, &s, WK_F16, WK_ARGMAX);
    wk_checkf(&tally, r[0].value.f16 == 0x7fff && r[0].index == 1 && r[1].value.f16 == 0x4000 && r[1].index == 0 &&
                          (r[0].value.u64 >> 16) == 0,
              "f16 argmax: NaN as 0x7fff@1 (upper bytes 0), 2@0");
    const uint16_t g[] = {0xffc1, 0x3f80, 0x3f80, 0x3f80}; /* -NaN (payload), 1, 1, 1 */
    wk_ref_segmented_reduce(g, r, &s, WK_BF16, WK_ARGMIN);
    wk_checkf(&tally, r[0].value.bf16 == 0x7fff && r[0].index == 0 && r[1].value.bf16 == 0x3f80 && r[1].index == 0,
              "bf16 argmin: -NaN as 0x7fff@0; all equal: 1@0");

    /* Float sums are exact, rounded once; an empty one is +0. */
    const double d[] = {1e16, 1, 1, -1e16, 0.5};
    const int64_t ob[] = {0, 4, 2}, oe[] = {4, 5, 2};
    s = offsets(3, 5, ob, oe);
    double ds[3];
    wk_ref_segmented_reduce(d, ds, &s, WK_F64, WK_SUM);
    wk_checkf(&tally, ds[0] == 2 && ds[1] == 0.5 && ds[2] == 0 && !signbit(ds[2]), "f64 sums exact: 2, 0.5, +0 (empty)");
    float fi[1];
    const float fx[] = {1, 2};
    wk_ref_segments one = uniform(1, 2);
    wk_checkf(&tally, wk_ref_segmented_reduce(fx, fi, &one, WK_F32, WK_XOR) == WK_ERROR_UNSUPPORTED,
              "xor on f32 is unsupported");
}

static void test_reduce_status(void)
{
    const float x[] = {1, 2};
    float out[2] = {7, 7};
    wk_ref_segments s = uniform(1, 2);
    wk_checkf(&tally, wk_ref_segmented_reduce(x, out, &s, (wk_dtype)99, WK_SUM) == WK_ERROR_INVALID_DTYPE, "dtype 99");
    wk_checkf(&tally, wk_ref_segmented_reduce(x, out, &s, WK_F32, (wk_op)99) == WK_ERROR_INVALID_OP, "op 99");
    wk_checkf(&tally, wk_ref_segmented_reduce(NULL, out, &s, WK_F32, WK_SUM) == WK_ERROR_INVALID_ARGUMENT, "NULL input");
    wk_checkf(&tally, wk_ref_segmented_reduce(x, NULL, &s, WK_F32, WK_SUM) == WK_ERROR_INVALID_ARGUMENT, "NULL output");
    s = rows(2, 2, 1);
    wk_checkf(&tally, wk_ref_segmented_reduce(x, out, &s, WK_F32, WK_SUM) == WK_ERROR_INVALID_ARGUMENT && out[0] == 7,
              "stride < size: refused, nothing written");
    s = uniform(0, 2);
    wk_checkf(&tally, wk_ref_segmented_reduce(NULL, NULL, &s, WK_F32, WK_SUM) == WK_SUCCESS, "count 0: nothing to do");
}

/* --------------------------------------------------------------- scans */

static void test_scans(void)
{
    const int32_t a[] = {1, 2, 3, 4, 5, 6};
    int32_t out[6];
    wk_ref_segments s = uniform(2, 3);
    wk_ref_scan_spec sp = spec_of(WK_I32, WK_SUM, 0);
    wk_status st = wk_ref_segmented_scan(a, out, &s, &sp);
    wk_checkf(&tally, st == WK_SUCCESS && out[0] == 1 && out[2] == 6 && out[3] == 4 && out[4] == 9 && out[5] == 15,
              "inclusive sums restart per segment: 1 3 6 | 4 9 15");
    sp.exclusive = 1;
    sp.init.i32 = 10;
    wk_ref_segmented_scan(a, out, &s, &sp);
    wk_checkf(&tally, out[0] == 10 && out[1] == 11 && out[2] == 13 && out[3] == 10 && out[4] == 14 && out[5] == 19,
              "exclusive from 10 per segment: 10 11 13 | 10 14 19");

    /* Rows: the gaps of the output are left as they are. */
    const int32_t r[] = {1, 2, 99, 3, 4};
    int32_t ro[5] = {-7, -7, -7, -7, -7};
    s = rows(2, 2, 3);
    sp = spec_of(WK_I32, WK_MAX, 0);
    wk_ref_segmented_scan(r, ro, &s, &sp);
    wk_checkf(&tally, ro[0] == 1 && ro[1] == 2 && ro[2] == -7 && ro[3] == 3 && ro[4] == 4, "rows: 1 2 [gap] 3 4");

    /* Offsets: out of order, clamped, empty; positions in no segment stay. */
    const float f[] = {1, 2, 3, 4, 5, 6, 7};
    float fo[7];
    for (int i = 0; i < 7; ++i)
        fo[i] = -1;
    const int64_t ob[] = {4, -2, 2, 9}, oe[] = {100, 2, 2, 3};
    s = offsets(4, 7, ob, oe);
    sp = spec_of(WK_F32, WK_SUM, 1);
    sp.init.f32 = 0.5f;
    st = wk_ref_segmented_scan(f, fo, &s, &sp);
    wk_checkf(&tally, st == WK_SUCCESS && fo[0] == 0.5f && fo[1] == 1.5f && fo[2] == -1 && fo[3] == -1 && fo[4] == 0.5f &&
                          fo[5] == 5.5f && fo[6] == 11.5f,
              "f32 exclusive from 0.5 over [4,100) [-2,2) [2,2) [9,3): 0.5 1.5 - - 0.5 5.5 11.5");

    /* Signed zeros and NaN per segment. */
    const float z[] = {-0.0f, 0.0f, -0.0f, 1, NAN, 0};
    float zo[6];
    s = uniform(2, 3);
    sp = spec_of(WK_F32, WK_MAX, 0);
    wk_ref_segmented_scan(z, zo, &s, &sp);
    wk_checkf(&tally, signbit(zo[0]) && !signbit(zo[1]) && !signbit(zo[2]) && zo[3] == 1 && isnan(zo[4]) && isnan(zo[5]),
              "max: -0, +0, +0 | 1, NaN, NaN");

    /* In place; overlapping segments refused with nothing written. */
    int32_t v[] = {1, 2, 3, 4};
    s = uniform(2, 2);
    sp = spec_of(WK_I32, WK_SUM, 0);
    wk_ref_segmented_scan(v, v, &s, &sp);
    wk_checkf(&tally, v[0] == 1 && v[1] == 3 && v[2] == 3 && v[3] == 7, "in place: 1 3 | 3 7");
    const int64_t lb[] = {0, 1}, le[] = {2, 3};
    s = offsets(2, 4, lb, le);
    int32_t w[4] = {9, 9, 9, 9};
    wk_checkf(&tally, wk_ref_segmented_scan(a, w, &s, &sp) == WK_ERROR_INVALID_ARGUMENT && w[0] == 9,
              "overlapping segments: refused, nothing written");
    sp.op = WK_ARGMAX;
    s = uniform(1, 2);
    wk_checkf(&tally, wk_ref_segmented_scan(a, w, &s, &sp) == WK_ERROR_UNSUPPORTED, "argmax scan is unsupported");
}

/* ----------------------------------------------------- narrow integers */

/* The 8- and 16-bit integers and bools, per segment: sums wrap, arg results
 * carry one or two bytes of value (the rest zero), empty bool segments give
 * "all" true and "any" false, a bool sum is refused. */
static void test_narrow(void)
{
    const int8_t a[] = {100, 100, -100, -128, -1, 5};
    int8_t sums[3] = {7, 7, 7};
    wk_ref_segments s = uniform(2, 3);
    wk_status st = wk_ref_segmented_reduce(a, sums, &s, WK_I8, WK_SUM);
    wk_checkf(&tally, st == WK_SUCCESS && sums[0] == 100 && sums[1] == -124 && sums[2] == 7,
              "i8 sums wrap per segment: 100, -124 (-124 = -128 - 1 + 5), nothing past count: %d %d", sums[0],
              sums[1]);
    const uint16_t b[] = {3, 65535, 65535, 9, 0};
    const int64_t ob[] = {0, 3, 2}, oe[] = {3, 5, 2};
    s = offsets(3, 5, ob, oe);
    wk_arg_result r[3];
    memset(r, 0xcd, sizeof r);
    st = wk_ref_segmented_reduce(b, r, &s, WK_U16, WK_ARGMAX);
    wk_checkf(&tally, st == WK_SUCCESS && r[0].value.u16 == 65535 && r[0].index == 1 && r[1].value.u16 == 9 &&
                          r[1].index == 0 && r[2].value.u16 == 0 && r[2].index == -1 && (r[0].value.u64 >> 16) == 0,
              "u16 argmax: 65535@1 (tie to the lowest), 9@0, empty 0@-1, upper bytes 0");
    int16_t mins[3];
    wk_ref_segmented_reduce(b, mins, &s, WK_I16, WK_MIN);
    wk_checkf(&tally, mins[0] == -1 && mins[1] == 0 && mins[2] == 32767,
              "the same bytes as i16: min -1, 0, empty 32767");

    const uint8_t t[] = {1, 1, 0, 1, 1, 1};
    const int64_t tb[] = {0, 3, 6}, te[] = {3, 6, 6};
    s = offsets(3, 6, tb, te);
    uint8_t all[3], any[3];
    wk_ref_segmented_reduce(t, all, &s, WK_BOOL, WK_MIN);
    wk_ref_segmented_reduce(t, any, &s, WK_BOOL, WK_MAX);
    wk_checkf(&tally, all[0] == 0 && all[1] == 1 && all[2] == 1 && any[0] == 1 && any[1] == 1 && any[2] == 0,
              "bool all: 0 1, empty 1; any: 1 1, empty 0");
    uint8_t ands[3];
    wk_ref_segmented_reduce(t, ands, &s, WK_BOOL, WK_AND);
    wk_checkf(&tally, ands[0] == 0 && ands[1] == 1 && ands[2] == 1, "bool and: 0 1, empty 1 (a bool, not 0xff)");
    uint8_t kept[3] = {7, 7, 7};
    wk_checkf(&tally, wk_ref_segmented_reduce(t, kept, &s, WK_BOOL, WK_SUM) == WK_ERROR_UNSUPPORTED && kept[0] == 7,
              "bool sum: refused, nothing written");
    char msg[512];
    wk_checkf(&tally, wk_ref_check_segmented_reduce(t, all, &s, WK_BOOL, WK_MIN, msg, sizeof msg) == 0,
              "the checker accepts bool all: %s", msg);
    all[2] = 0xff;
    wk_checkf(&tally, wk_ref_check_segmented_reduce(t, all, &s, WK_BOOL, WK_MIN, msg, sizeof msg) == 1,
              "the checker catches 0xff for an empty bool all: %s", msg);

    const int16_t c[] = {30000, 30000, 5, -1, 7, 7};
    int16_t co[6];
    s = uniform(2, 3);
    wk_ref_scan_spec sp = spec_of(WK_I16, WK_SUM, 0);
    wk_ref_segmented_scan(c, co, &s, &sp);
    wk_checkf(&tally, co[0] == 30000 && co[1] == -5536 && co[2] == -5531 && co[3] == -1 && co[4] == 6 && co[5] == 13,
              "i16 inclusive sums wrap per segment: 30000 -5536 -5531 | -1 6 13");
    uint8_t to[6];
    s = uniform(2, 3);
    sp = spec_of(WK_BOOL, WK_OR, 1);
    wk_ref_segmented_scan(t, to, &s, &sp);
    wk_checkf(&tally, to[0] == 0 && to[1] == 1 && to[2] == 1 && to[3] == 0 && to[4] == 1 && to[5] == 1,
              "bool exclusive any per segment: 0 1 1 | 0 1 1");
    wk_checkf(&tally, wk_ref_check_segmented_scan(t, to, NULL, &s, &sp, msg, sizeof msg) == 0,
              "the scan checker accepts it: %s", msg);
    sp.op = WK_SUM;
    wk_checkf(&tally, wk_ref_segmented_scan(t, to, &s, &sp) == WK_ERROR_UNSUPPORTED, "bool sum scan: refused");
}

/* ------------------------------------------------------------ checkers */

/* The reduce checker: accepts the reference, catches one changed result of
 * each kind, and puts the float-sum bound where the formula says. */
static void test_check_reduce(uint64_t seed)
{
    enum { COUNT = 300, SIZE = 40 };
    static int32_t in[COUNT * SIZE];
    static wk_arg_result res[COUNT];
    int64_t b[COUNT], e[COUNT];
    wk_generate(in, COUNT * SIZE, WK_I32, WK_GEN_SMALL_INTS, seed);
    wk_ref_wild_offsets(seed, COUNT, COUNT * SIZE, 60, b, e);
    wk_ref_segments s = offsets(COUNT, COUNT * SIZE, b, e);
    char msg[1024];
    const wk_op ops[] = {WK_SUM, WK_MIN, WK_ARGMAX, WK_XOR};
    for (int k = 0; k < 4; ++k) {
        wk_ref_segmented_reduce(in, res, &s, WK_I32, ops[k]);
        size_t bad = wk_ref_check_segmented_reduce(in, res, &s, WK_I32, ops[k], msg, sizeof msg);
        wk_checkf(&tally, bad == 0, "i32 %s over wild offsets: the checker accepts the reference: %s", wk_op_name(ops[k]), msg);
    }
    /* Find a non-empty segment and change its result. */
    size_t at = 0, first, len = 0;
    for (; at < COUNT; ++at) {
        wk_ref_segment_range(&s, at, &first, &len);
        if (len > 1)
            break;
    }
    wk_ref_segmented_reduce(in, res, &s, WK_I32, WK_ARGMAX);
    res[at].index += 1;
    size_t bad = wk_ref_check_segmented_reduce(in, res, &s, WK_I32, WK_ARGMAX, msg, sizeof msg);
    wk_checkf(&tally, bad == 1, "an arg index off by one is caught: %s", msg);
    res[at].index -= 1;
    res[at].value.u64 |= UINT64_C(1) << 40;
    bad = wk_ref_check_segmented_reduce(in, res, &s, WK_I32, WK_ARGMAX, msg, sizeof msg);
    wk_checkf(&tally, bad == 1, "a stray bit in the value's unused bytes is caught: %s", msg);

    /* Float sums: the bound at its edge. 800 elements of 0.75 sum to 600
     * exactly, sum |x| = 600; depth ceil(800 / 8) + 64 = 164, and the
     * checker allows it plus one step, plus u * |600| for the result:
     * tol = 166 * 2^-24 * 600 = 0.0059366. A result 97 % of that away
     * passes, one 103 % away fails (f32 spacing at 600 is 2^-14). */
    static float f[800];
    for (int i = 0; i < 800; ++i)
        f[i] = 0.75f;
    wk_ref_segments one = uniform(1, 800);
    double tol = 166.0 * 0x1p-24 * 600;
    float near = (float)(600 + 0.97 * tol), far = (float)(600 + 1.03 * tol);
    bad = wk_ref_check_segmented_reduce(f, &near, &one, WK_F32, WK_SUM, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "f32 sum 97 %% of the bound away passes: %s", msg);
    bad = wk_ref_check_segmented_reduce(f, &far, &one, WK_F32, WK_SUM, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "tol"), "f32 sum 103 %% of the bound away fails: %s", msg);

    /* Whole numbers: exact, so one ulp off fails; an empty sum must be +0. */
    float ints[4] = {1, 2, 3, 0}, got[2] = {6, 0};
    wk_ref_segments two = uniform(2, 3);
    two.count = 1;
    bad = wk_ref_check_segmented_reduce(ints, got, &two, WK_F32, WK_SUM, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "f32 whole numbers: 6 matches: %s", msg);
    got[0] = nextafterf(6, 7);
    bad = wk_ref_check_segmented_reduce(ints, got, &two, WK_F32, WK_SUM, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "whole"), "f32 whole numbers: one ulp off fails: %s", msg);
    const int64_t eb[] = {2}, ee[] = {1};
    wk_ref_segments empty = offsets(1, 4, eb, ee);
    got[0] = -0.0f;
    bad = wk_ref_check_segmented_reduce(ints, got, &empty, WK_F32, WK_SUM, msg, sizeof msg);
    wk_checkf(&tally, bad == 1, "an empty f32 sum must be +0, not -0: %s", msg);

    /* Min / max: any NaN for a NaN, but -0 is not +0. */
    const float mn[] = {0.0f, -0.0f, NAN, 1};
    float mg[2] = {0.0f, -NAN};
    wk_ref_segments pairs = uniform(2, 2);
    bad = wk_ref_check_segmented_reduce(mn, mg, &pairs, WK_F32, WK_MIN, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "segment 0"), "min: +0 for -0 fails, another NaN passes: %s", msg);

    /* f16 arg: the NaN must come back as 0x7fff, not with its payload. */
    const uint16_t h[] = {0x3c00, 0x7e01};
    wk_arg_result hr;
    memset(&hr, 0, sizeof hr);
    hr.value.f16 = 0x7e01;
    hr.index = 1;
    wk_ref_segments hs = uniform(1, 2);
    bad = wk_ref_check_segmented_reduce(h, &hr, &hs, WK_F16, WK_ARGMAX, msg, sizeof msg);
    wk_checkf(&tally, bad == 1, "f16 argmax: the NaN's own payload fails: %s", msg);
    hr.value.f16 = 0x7fff;
    bad = wk_ref_check_segmented_reduce(h, &hr, &hs, WK_F16, WK_ARGMAX, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "f16 argmax: 0x7fff passes: %s", msg);
}

/* The scan checker: every output, the init, the bound, untouched gaps. */
static void test_check_scan(uint64_t seed)
{
    enum { COUNT = 50, SIZE = 97, STRIDE = 101, EXTENT = (COUNT - 1) * STRIDE + SIZE };
    static float in[EXTENT], out[EXTENT], before[EXTENT];
    wk_generate(in, EXTENT, WK_F32, WK_GEN_UNIFORM, seed);
    for (size_t i = 0; i < EXTENT; ++i)
        before[i] = out[i] = -123.0f;
    wk_ref_segments s = rows(COUNT, SIZE, STRIDE);
    wk_ref_scan_spec sp = spec_of(WK_F32, WK_SUM, 1);
    sp.init.f32 = 0.25f;
    wk_ref_segmented_scan(in, out, &s, &sp);
    char msg[1024];
    size_t bad = wk_ref_check_segmented_scan(in, out, before, &s, &sp, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "f32 exclusive rows: the checker accepts the reference: %s", msg);

    out[STRIDE * 3 + 98] = 0; /* a gap of row 3 */
    bad = wk_ref_check_segmented_scan(in, out, before, &s, &sp, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "no segment"), "a written gap is caught: %s", msg);
    bad = wk_ref_check_segmented_scan(in, out, NULL, &s, &sp, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "gaps are not checked without `before`: %s", msg);
    out[STRIDE * 3 + 98] = -123.0f;

    out[STRIDE * 7] = nextafterf(0.25f, 1);
    bad = wk_ref_check_segmented_scan(in, out, before, &s, &sp, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "segment 7 element 0"), "output 0 of a segment must be the init: %s", msg);
    out[STRIDE * 7] = 0.25f;

    /* The bound at output k = 96 (inclusive, 97 terms): depth
     * ceil(97 / 8) + 64 = 77, allowed 78, plus u * |prefix|. */
    sp.exclusive = 0;
    wk_ref_segmented_scan(in, out, &s, &sp);
    size_t pos = STRIDE * 11 + 96;
    long double exact = 0, abs = 0;
    for (size_t i = STRIDE * 11; i <= pos; ++i) {
        exact += in[i];
        abs += fabsl((long double)in[i]);
    }
    long double tol = 78 * 0x1p-24L * abs + 0x1p-24L * fabsl(exact);
    out[pos] = (float)(exact + 0.9L * tol);
    bad = wk_ref_check_segmented_scan(in, out, before, &s, &sp, msg, sizeof msg);
    wk_checkf(&tally, bad == 0, "an output 90 %% of the bound away passes: %s", msg);
    out[pos] = (float)(exact + 1.1L * tol);
    bad = wk_ref_check_segmented_scan(in, out, before, &s, &sp, msg, sizeof msg);
    wk_checkf(&tally, bad == 1 && strstr(msg, "tol"), "one 110 %% away fails: %s", msg);

    /* Integers bit for bit; a lost element shows in every later output. */
    static int64_t iv[EXTENT], io[EXTENT], ib[EXTENT];
    wk_generate(iv, EXTENT, WK_I64, WK_GEN_UNIFORM, seed + 1);
    memset(io, 0x5a, sizeof io);
    memcpy(ib, io, sizeof io);
    sp = spec_of(WK_I64, WK_SUM, 0);
    wk_ref_segmented_scan(iv, io, &s, &sp);
    for (size_t k = 11; k < SIZE; ++k)
        io[STRIDE * 2 + k] -= iv[STRIDE * 2 + 10];
    bad = wk_ref_check_segmented_scan(iv, io, ib, &s, &sp, msg, sizeof msg);
    wk_checkf(&tally, iv[STRIDE * 2 + 10] == 0 || bad == SIZE - 11, "i64: a lost element is %zu mismatches: %.160s",
              bad, msg);

    /* Overlapping segments cannot be checked. */
    const int64_t lb[] = {0, 1}, le[] = {2, 3};
    wk_ref_segments ov = offsets(2, 4, lb, le);
    wk_checkf(&tally, wk_ref_check_segmented_scan(iv, io, NULL, &ov, &sp, msg, sizeof msg) == WK_REF_SEGMENTED_INVALID,
              "overlapping segments cannot be checked: %s", msg);
}

/* --------------------------------------------------------- generators */

static void test_power_law(uint64_t seed)
{
    const size_t counts[] = {1, 2, 7, 1000, 100000};
    const size_t totals[] = {0, 1, 999, 1000003, (size_t)1 << 26};
    int ok = 1;
    size_t *sizes = malloc(100000 * sizeof *sizes), *again = malloc(100000 * sizeof *again);
    int64_t *offs = malloc(100001 * sizeof *offs);
    for (int c = 0; c < 5; ++c)
        for (int t = 0; t < 5; ++t) {
            wk_ref_power_law_sizes(seed + (uint64_t)t, counts[c], totals[t], 0.7, sizes);
            size_t sum = 0;
            for (size_t i = 0; i < counts[c]; ++i)
                sum += sizes[i];
            wk_ref_offsets_from_sizes(sizes, counts[c], 5, offs);
            int monotone = offs[0] == 5 && offs[counts[c]] == 5 + (int64_t)totals[t];
            for (size_t i = 0; i < counts[c]; ++i)
                monotone &= offs[i + 1] >= offs[i] && offs[i + 1] - offs[i] == (int64_t)sizes[i];
            if (sum != totals[t] || !monotone)
                printf("  count %zu total %zu: sum %zu, monotone %d\n", counts[c], totals[t], sum, monotone);
            ok &= sum == totals[t] && monotone;
        }
    wk_checkf(&tally, ok, "power-law sizes sum to the total; offsets from 5 are monotone and end at 5 + total");

    wk_ref_power_law_sizes(seed, 100000, 1000000, 0.7, sizes);
    wk_ref_power_law_sizes(seed, 100000, 1000000, 0.7, again);
    wk_checkf(&tally, memcmp(sizes, again, 100000 * sizeof *sizes) == 0, "the same seed gives the same sizes");
    wk_ref_power_law_sizes(seed + 1, 100000, 1000000, 0.7, again);
    wk_checkf(&tally, memcmp(sizes, again, 100000 * sizeof *sizes) != 0, "another seed gives other sizes");

    /* The skew, with fixed seeds (statistics, not invariants): a few
     * segments take much of the total, most get 0 to 3 elements. */
    for (uint64_t fixed = 1; fixed <= 3; ++fixed) {
        wk_ref_power_law_sizes(fixed, 100000, (size_t)1 << 24, 0.5, sizes);
        size_t largest = 0, tiny = 0;
        for (size_t i = 0; i < 100000; ++i) {
            largest = sizes[i] > largest ? sizes[i] : largest;
            tiny += sizes[i] <= 3;
        }
        wk_checkf(&tally, largest > ((size_t)1 << 24) / 50 && tiny > 50000,
                  "alpha 0.5, seed %" PRIu64 ": largest %zu of 2^24, %zu of 100000 with <= 3 elements", fixed, largest,
                  tiny);
    }
    free(sizes);
    free(again);
    free(offs);
}

static void test_disjoint_offsets(uint64_t seed)
{
    enum { COUNT = 5000 };
    static size_t sizes[COUNT];
    static int64_t b[COUNT], e[COUNT];
    size_t sum = 0, full = 0;
    for (size_t i = 0; i < COUNT; ++i) {
        uint64_t r = wk_rand64(seed, i);
        sizes[i] = r % 3 == 0 ? 0 : (size_t)(r >> 8) % 70;
        sum += sizes[i];
        full += sizes[i] > 0;
    }
    size_t total = wk_ref_disjoint_offsets(seed, sizes, COUNT, 9, b, e);
    wk_ref_segments s = offsets(COUNT, total, b, e);
    unsigned char *cov = malloc(total / 8 + 1);
    int disjoint = wk_ref_segments_cover(&s, cov);
    size_t covered = 0;
    for (size_t p = 0; p < total; ++p)
        covered += (cov[p / 8] >> (p % 8)) & 1;
    int lengths = 1, below = 0, above = 0, forms[4] = {0, 0, 0, 0}, ordered = 1;
    size_t prev_first = 0;
    for (size_t i = 0; i < COUNT; ++i) {
        size_t first, len;
        wk_ref_segment_range(&s, i, &first, &len);
        lengths &= len == sizes[i];
        below += b[i] < 0 && sizes[i] > 0;
        above += e[i] > (int64_t)total && sizes[i] > 0;
        if (sizes[i] == 0) {
            forms[0] += e[i] == b[i];
            forms[1] += e[i] < b[i];
            forms[2] += b[i] < 0 && e[i] < 0;
            forms[3] += b[i] >= (int64_t)total && e[i] > b[i];
        } else {
            ordered &= first >= prev_first;
            prev_first = first;
        }
    }
    wk_checkf(&tally, disjoint && covered == sum, "disjoint offsets: disjoint, %zu elements covered of %zu", covered, sum);
    wk_checkf(&tally, lengths, "every clamped segment has its size");
    wk_checkf(&tally, total >= sum && total <= sum + 9 * (full - 1) && (cov[0] & 1) && ((cov[(total - 1) / 8] >> ((total - 1) % 8)) & 1),
              "size %zu: the sizes plus gaps of 0 to 9, none before the first or after the last", total);
    wk_checkf(&tally, below == 1 && above == 1, "one segment begins below 0, one ends past the input (%d, %d)", below, above);
    wk_checkf(&tally, forms[0] && forms[1] && forms[2] && forms[3],
              "empty segments of each form: end == begin %d, end < begin %d, below 0 %d, past the end %d", forms[0],
              forms[1], forms[2], forms[3]);
    wk_checkf(&tally, !ordered, "segments are not in input order");
    free(cov);
}

/* The reference over wild offsets against a naive clamped loop. */
static void test_wild_offsets(uint64_t seed)
{
    enum { COUNT = 4000, SIZE = 3000 };
    static int64_t b[COUNT], e[COUNT], in[SIZE], sums[COUNT];
    wk_ref_wild_offsets(seed, COUNT, SIZE, 100, b, e);
    wk_generate(in, SIZE, WK_I64, WK_GEN_UNIFORM, seed);
    wk_ref_segments s = offsets(COUNT, SIZE, b, e);
    wk_ref_segmented_reduce(in, sums, &s, WK_I64, WK_SUM);
    int ok = 1, extreme = 0, empty = 0, overlapping = 0, outside = 0;
    for (size_t i = 0; i < COUNT; ++i) {
        int64_t lo = b[i] < 0 ? 0 : b[i] > SIZE ? SIZE : b[i];
        int64_t hi = e[i] < 0 ? 0 : e[i] > SIZE ? SIZE : e[i];
        uint64_t want = 0;
        for (int64_t p = lo; p < hi; ++p)
            want += (uint64_t)in[p];
        ok &= (uint64_t)sums[i] == want;
        extreme += b[i] == INT64_MIN || e[i] == INT64_MAX;
        empty += e[i] <= b[i];
        outside += b[i] < 0 || e[i] > SIZE;
        overlapping += i > 0 && lo < hi && b[i - 1] < hi && lo < e[i - 1];
        ok &= b[i] == INT64_MIN || (b[i] >= -64 && b[i] < SIZE + 64);
    }
    wk_checkf(&tally, ok, "i64 sums over wild offsets match a naive clamped loop; begins in [-64, size + 64)");
    wk_checkf(&tally, extreme > 0 && empty > 0 && overlapping > 0 && outside > 0,
              "wild offsets hold extremes (%d), empties (%d), overlaps (%d), offsets outside the input (%d)", extreme,
              empty, overlapping, outside);
}

int main(void)
{
    uint64_t seed = wk_seeded_start();

    test_layouts();
    test_reduce_uniform_rows();
    test_reduce_offsets();
    test_reduce_floats();
    test_reduce_status();
    test_scans();
    test_narrow();
    test_check_reduce(seed);
    test_check_scan(seed + 1);
    test_power_law(seed + 2);
    test_disjoint_offsets(seed + 3);
    test_wild_offsets(seed + 4);

    return wk_seeded_finish(seed, &tally);
}
