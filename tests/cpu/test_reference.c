/* Tests of the CPU reference (verify/ref): half / bfloat16 conversion, the
 * reference reduce's semantics, its checker, and the data generator.
 *
 * Expected values are written out by hand (or computed by deliberately naive
 * loops), never by the code under test, so a wrong reference fails here
 * rather than silently blessing a wrong GPU result later.
 */
#define _POSIX_C_SOURCE 200112L /* setenv / unsetenv, to test WK_SEED */

#include <float.h>
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

/* ---------------------------------------------------------- harness */

static wk_tally tally;

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int is_nan16(uint16_t h, int bf16)
{
    return bf16 ? (h & 0x7fffu) > 0x7f80u : (h & 0x7fffu) > 0x7c00u;
}

/* --------------------------------------------------- half conversion */

typedef struct {
    float in;
    uint16_t out;
    const char *what;
} encode_case;

static void test_half_encode_known(void)
{
    const encode_case cases[] = {
        {1.0f, 0x3c00, "1"},
        {-2.0f, 0xc000, "-2"},
        {0.1f, 0x2e66, "0.1"},
        {0.0f, 0x0000, "+0"},
        {-0.0f, 0x8000, "-0"},
        {65504.0f, 0x7bff, "max finite"},
        {65519.99f, 0x7bff, "just below the overflow tie"},
        {65520.0f, 0x7c00, "overflow tie rounds to inf (even)"},
        {1e10f, 0x7c00, "overflow"},
        {-1e10f, 0xfc00, "negative overflow"},
        {INFINITY, 0x7c00, "+inf"},
        {-INFINITY, 0xfc00, "-inf"},
        {0x1p-14f, 0x0400, "least normal"},
        {0x1.ff8p-15f, 0x03ff, "largest subnormal"},
        {0x1p-24f, 0x0001, "least subnormal"},
        {-0x1p-24f, 0x8001, "negative least subnormal"},
        {0x1p-25f, 0x0000, "half the least subnormal ties to 0"},
        {0x1.000002p-25f, 0x0001, "just above half the least subnormal"},
        {0x1.8p-24f, 0x0002, "1.5 subnormal ulps ties to even 2"},
        {0x1p-26f, 0x0000, "far below the least subnormal"},
        {1.0f + 0x1p-11f, 0x3c00, "tie between 1 and 1+2^-10 goes to even"},
        {1.0f + 0x3p-11f, 0x3c02, "tie between 0x3c01 and 0x3c02 goes to even"},
        {1.0f + 0x1p-11f + 0x1p-20f, 0x3c01, "just above a tie rounds up"},
        {0x1p-140f, 0x0000, "float subnormal"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint16_t got = wk_float_to_half(cases[k].in);
        wk_checkf(&tally, got == cases[k].out, "f16 encode %s (%a): 0x%04x, want 0x%04x", cases[k].what,
              (double)cases[k].in, got, cases[k].out);
    }
    uint16_t nan = wk_float_to_half(NAN);
    wk_checkf(&tally, nan == 0x7fff, "f16 encode NaN gives CUDA's canonical 0x7fff: 0x%04x", nan);
    uint16_t neg_nan = wk_float_to_half(f32_from_bits(0xffc00001u));
    wk_checkf(&tally, is_nan16(neg_nan, 0), "f16 encode of a negative NaN with payload stays NaN: 0x%04x", neg_nan);
}

static void test_bf16_encode_known(void)
{
    const encode_case cases[] = {
        {1.0f, 0x3f80, "1"},
        {0.1f, 0x3dcd, "0.1"},
        {-0.0f, 0x8000, "-0"},
        {1.0f + 0x1p-8f, 0x3f80, "tie between 1 and 1+2^-7 goes to even"},
        {1.0f + 0x3p-8f, 0x3f82, "tie between 0x3f81 and 0x3f82 goes to even"},
        {1.0f + 0x1p-8f + 0x1p-23f, 0x3f81, "just above a tie rounds up"},
        {FLT_MAX, 0x7f80, "FLT_MAX rounds up to inf"},
        {f32_from_bits(0x7f7f7fffu), 0x7f7f, "just below the overflow tie"},
        {f32_from_bits(0x7f7f8000u), 0x7f80, "overflow tie rounds to inf (even)"},
        {-INFINITY, 0xff80, "-inf"},
        {f32_from_bits(0x00000001u), 0x0000, "least float subnormal"},
        {f32_from_bits(0x00008000u), 0x0000, "subnormal tie to even 0"},
        {f32_from_bits(0x00018000u), 0x0002, "subnormal tie to even 2"},
        {f32_from_bits(0x00010000u), 0x0001, "least bf16 subnormal"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint16_t got = wk_float_to_bf16(cases[k].in);
        wk_checkf(&tally, got == cases[k].out, "bf16 encode %s (%a): 0x%04x, want 0x%04x", cases[k].what,
              (double)cases[k].in, got, cases[k].out);
    }
    uint16_t nan = wk_float_to_bf16(f32_from_bits(0xff800001u));
    wk_checkf(&tally, nan == 0x7fff, "bf16 encode of a signalling negative NaN gives 0x7fff: 0x%04x", nan);
}

static void test_decode_known(void)
{
    wk_checkf(&tally, wk_half_to_float(0x3c00) == 1.0f, "f16 decode 0x3c00 = 1");
    wk_checkf(&tally, wk_half_to_float(0x0001) == 0x1p-24f, "f16 decode 0x0001 = 2^-24");
    wk_checkf(&tally, wk_half_to_float(0x03ff) == 0x3ffp-24f, "f16 decode 0x03ff = 1023 * 2^-24");
    wk_checkf(&tally, wk_half_to_float(0x7bff) == 65504.0f, "f16 decode 0x7bff = 65504");
    wk_checkf(&tally, wk_half_to_float(0xfc00) == -INFINITY, "f16 decode 0xfc00 = -inf");
    float neg_zero = wk_half_to_float(0x8000);
    wk_checkf(&tally, neg_zero == 0.0f && signbit(neg_zero), "f16 decode 0x8000 = -0");
    wk_checkf(&tally, isnan(wk_half_to_float(0x7e00)) && isnan(wk_half_to_float(0xfc01)),
          "f16 decode NaN patterns give NaN");
    wk_checkf(&tally, wk_bf16_to_float(0x3f80) == 1.0f, "bf16 decode 0x3f80 = 1");
    wk_checkf(&tally, wk_bf16_to_float(0x0001) == 0x1p-133f, "bf16 decode 0x0001 = 2^-133");
    wk_checkf(&tally, wk_bf16_to_float(0xff80) == -INFINITY, "bf16 decode 0xff80 = -inf");
    wk_checkf(&tally, isnan(wk_bf16_to_float(0x7fc1)), "bf16 decode NaN gives NaN");
}

/* Every pattern decodes and re-encodes to itself, NaN to a NaN; a decoded
 * value is NaN exactly when the pattern is. */
static void test_round_trip(int bf16)
{
    const char *name = bf16 ? "bf16" : "f16";
    unsigned bad = 0;
    for (uint32_t h = 0; h <= 0xffffu; h++) {
        float f = bf16 ? wk_bf16_to_float((uint16_t)h) : wk_half_to_float((uint16_t)h);
        uint16_t back = bf16 ? wk_float_to_bf16(f) : wk_float_to_half(f);
        int nan = is_nan16((uint16_t)h, bf16);
        int ok = nan ? isnan(f) && is_nan16(back, bf16) : !isnan(f) && back == h;
        if (!ok && bad++ < 5)
            printf("     %s 0x%04x -> %a -> 0x%04x\n", name, (unsigned)h, (double)f, back);
    }
    wk_checkf(&tally, bad == 0, "%s round trip of all 65536 patterns: %u mismatches", name, bad);
}

/* For every pair of adjacent positive finite values, the float halfway
 * between them must round to the one with an even pattern, and the floats
 * just beside the midpoint to the nearer one. */
static void test_ties_exhaustive(int bf16)
{
    const char *name = bf16 ? "bf16" : "f16";
    uint32_t last = bf16 ? 0x7f7fu : 0x7bffu;
    unsigned bad = 0;
    for (uint32_t h = 0; h < last; h++) {
        float lo = bf16 ? wk_bf16_to_float((uint16_t)h) : wk_half_to_float((uint16_t)h);
        float hi = bf16 ? wk_bf16_to_float((uint16_t)(h + 1)) : wk_half_to_float((uint16_t)(h + 1));
        float mid = lo + (hi - lo) / 2; /* exact: float has 13+ more bits */
        float below = nextafterf(mid, 0.0f), above = nextafterf(mid, INFINITY);
        uint16_t even = (uint16_t)((h & 1u) ? h + 1 : h);
        uint16_t (*enc)(float) = bf16 ? wk_float_to_bf16 : wk_float_to_half;
        int ok = enc(mid) == even && enc(below) == h && enc(above) == h + 1 &&
                 enc(-mid) == (even | 0x8000u);
        if (!ok && bad++ < 5)
            printf("     %s tie between 0x%04x and 0x%04x: mid -> 0x%04x\n", name, (unsigned)h,
                   (unsigned)(h + 1), enc(mid));
    }
    wk_checkf(&tally, bad == 0, "%s ties to even at all %u midpoints: %u mismatches", name, (unsigned)last, bad);
}

/* ------------------------------------------------------- load / store */

static void test_store_rounding(void)
{
    uint16_t h;
    /* 1 + 2^-11 + 2^-40 is above the f16 tie at 1 + 2^-11; rounding through
     * float first would land exactly on the tie and go down to 1. */
    wk_ref_store(&h, 0, WK_F16, 1.0L + 0x1p-11L + 0x1p-40L);
    wk_checkf(&tally, h == 0x3c01, "f16 store rounds once (no double rounding): 0x%04x, want 0x3c01", h);
    wk_ref_store(&h, 0, WK_BF16, 1.0L + 0x1p-8L + 0x1p-40L);
    wk_checkf(&tally, h == 0x3f81, "bf16 store rounds once (no double rounding): 0x%04x, want 0x3f81", h);
    wk_ref_store(&h, 0, WK_F16, -(1.0L + 0x1p-11L));
    wk_checkf(&tally, h == 0xbc00, "f16 store of an exact tie goes to even: 0x%04x, want 0xbc00", h);
    wk_ref_store(&h, 0, WK_F16, 70000.0L);
    wk_checkf(&tally, h == 0x7c00, "f16 store overflows to inf: 0x%04x", h);

    int32_t i32;
    wk_ref_store(&i32, 0, WK_I32, 0x1p32L + 5);
    wk_checkf(&tally, i32 == 5, "i32 store of 2^32 + 5 wraps to 5: %" PRId32, i32);
    wk_ref_store(&i32, 0, WK_I32, -3.9L);
    wk_checkf(&tally, i32 == -3, "i32 store truncates -3.9 to -3: %" PRId32, i32);
    uint32_t u32;
    wk_ref_store(&u32, 0, WK_U32, -1.0L);
    wk_checkf(&tally, u32 == UINT32_MAX, "u32 store of -1 wraps to 0xffffffff: 0x%" PRIx32, u32);
    uint64_t u64;
    wk_ref_store(&u64, 0, WK_U64, 0x1p64L + 8); /* + 7 would not be exact */
    wk_checkf(&tally, u64 == 8, "u64 store of 2^64 + 8 wraps to 8: %" PRIu64, u64);
    wk_ref_store(&u64, 0, WK_U64, -7.0L);
    wk_checkf(&tally, u64 == UINT64_MAX - 6, "u64 store of -7 wraps to 2^64 - 7: %" PRIu64, u64);
    int64_t i64;
    wk_ref_store(&i64, 0, WK_I64, -0x1p63L);
    wk_checkf(&tally, i64 == INT64_MIN, "i64 store of -2^63: %" PRId64, i64);
    wk_checkf(&tally, wk_ref_load(&i64, 0, WK_I64) == -0x1p63L, "i64 load of INT64_MIN is exact");
}

/* ---------------------------------------------------------- identities */

/* The n = 0 result of (dtype, op) as warpkit.h documents it, spelled out per
 * dtype: bits of the value and, for arg ops, index -1. A bool's are bools:
 * MIN and AND ("all") 1, MAX 0. */
static uint64_t expected_identity_bits(wk_dtype dtype, wk_op op)
{
    static const uint64_t min_id[WK_DTYPE_COUNT] = {
        0x7fffffffu, 0xffffffffu, 0x7fffffffffffffffu, 0xffffffffffffffffu,
        0x7f800000u, 0x7ff0000000000000u, 0x7c00u, 0x7f80u,
        1, 0xffu, 0x7fu, 0x7fffu, 0xffffu};
    static const uint64_t max_id[WK_DTYPE_COUNT] = {
        0x80000000u, 0, 0x8000000000000000u, 0,
        0xff800000u, 0xfff0000000000000u, 0xfc00u, 0xff80u,
        0, 0, 0x80u, 0x8000u, 0};
    static const uint64_t ones[WK_DTYPE_COUNT] = {
        0xffffffffu, 0xffffffffu, UINT64_MAX, UINT64_MAX, 0, 0, 0, 0,
        1, 0xffu, 0xffu, 0xffffu, 0xffffu};
    switch (op) {
    case WK_MIN: case WK_ARGMIN: return min_id[dtype];
    case WK_MAX: case WK_ARGMAX: return max_id[dtype];
    case WK_AND: return ones[dtype];
    default: return 0;
    }
}

static uint64_t value_bits(const void *v, wk_dtype dtype)
{
    uint64_t bits = 0;
    switch (wk_dtype_size(dtype)) {
    case 1: { uint8_t x; memcpy(&x, v, 1); bits = x; break; }
    case 2: { uint16_t x; memcpy(&x, v, 2); bits = x; break; }
    case 4: { uint32_t x; memcpy(&x, v, 4); bits = x; break; }
    case 8: memcpy(&bits, v, 8); break;
    }
    return bits;
}

static void test_identities(void)
{
    for (int d = 0; d < WK_DTYPE_COUNT; d++) {
        for (int o = 0; o < WK_OP_COUNT; o++) {
            wk_dtype dtype = (wk_dtype)d;
            wk_op op = (wk_op)o;
            wk_arg_result r, id;
            memset(&r, 0xab, sizeof r);
            memset(&id, 0xcd, sizeof id);
            wk_status st = wk_ref_reduce(NULL, 0, dtype, op, &r);
            int bitwise = op == WK_AND || op == WK_OR || op == WK_XOR;
            if ((bitwise && wk_dtype_is_float(dtype)) || (dtype == WK_BOOL && op == WK_SUM)) {
                wk_checkf(&tally, st == WK_ERROR_UNSUPPORTED, "%s %s n=0: unsupported (status %d)",
                      wk_dtype_name(dtype), wk_op_name(op), (int)st);
                continue;
            }
            wk_ref_identity(dtype, op, &id);
            uint64_t want = expected_identity_bits(dtype, op);
            uint64_t got = value_bits(&r.value, dtype);
            int arg = op == WK_ARGMIN || op == WK_ARGMAX;
            int ok = st == WK_SUCCESS && got == want && value_bits(&id.value, dtype) == want;
            if (arg)
                ok = ok && r.index == -1 && id.index == -1;
            wk_checkf(&tally, ok, "%s %s n=0 identity: 0x%" PRIx64 "%s (want 0x%" PRIx64 ")",
                  wk_dtype_name(dtype), wk_op_name(op), got, arg ? (r.index == -1 ? "@-1" : "@?") : "",
                  want);
        }
    }
}

/* ------------------------------------------------------ reduce semantics */

static void test_int_sum_wrap(void)
{
    int32_t a[] = {INT32_MAX, 1};
    int32_t b[] = {2000000000, 2000000000, 2000000000};
    uint32_t c[] = {UINT32_MAX, 2};
    uint32_t d[] = {4000000000u, 4000000000u};
    int64_t e[] = {INT64_MAX, INT64_MAX, 3};
    int64_t f[] = {INT64_MIN, INT64_MIN};
    uint64_t g[] = {UINT64_MAX, UINT64_MAX};
    uint64_t h[] = {UINT64_C(1) << 63, UINT64_C(1) << 63, 5};
    int32_t r32;
    uint32_t ru32;
    int64_t r64;
    uint64_t ru64;

    wk_ref_reduce(a, 2, WK_I32, WK_SUM, &r32);
    wk_checkf(&tally, r32 == INT32_MIN, "i32 sum INT32_MAX + 1 wraps to INT32_MIN: %" PRId32, r32);
    wk_ref_reduce(b, 3, WK_I32, WK_SUM, &r32);
    wk_checkf(&tally, r32 == 1705032704, "i32 sum 3 * 2e9 = 6e9 - 2^32 = 1705032704: %" PRId32, r32);
    wk_ref_reduce(c, 2, WK_U32, WK_SUM, &ru32);
    wk_checkf(&tally, ru32 == 1, "u32 sum UINT32_MAX + 2 wraps to 1: %" PRIu32, ru32);
    wk_ref_reduce(d, 2, WK_U32, WK_SUM, &ru32);
    wk_checkf(&tally, ru32 == 3705032704u, "u32 sum 8e9 - 2^32 = 3705032704: %" PRIu32, ru32);
    wk_ref_reduce(e, 3, WK_I64, WK_SUM, &r64);
    wk_checkf(&tally, r64 == 1, "i64 sum 2 * INT64_MAX + 3 = 2^64 + 1 wraps to 1: %" PRId64, r64);
    wk_ref_reduce(f, 2, WK_I64, WK_SUM, &r64);
    wk_checkf(&tally, r64 == 0, "i64 sum 2 * INT64_MIN wraps to 0: %" PRId64, r64);
    wk_ref_reduce(g, 2, WK_U64, WK_SUM, &ru64);
    wk_checkf(&tally, ru64 == UINT64_MAX - 1, "u64 sum 2 * UINT64_MAX wraps to UINT64_MAX - 1: %" PRIu64, ru64);
    wk_ref_reduce(h, 3, WK_U64, WK_SUM, &ru64);
    wk_checkf(&tally, ru64 == 5, "u64 sum 2^63 + 2^63 + 5 wraps to 5: %" PRIu64, ru64);

    /* 100000 * (2^31 - 1) = 50000 * 2^32 - 100000, i.e. -100000 mod 2^32. */
    size_t n = 100000;
    int32_t *big = malloc(n * sizeof *big);
    for (size_t i = 0; i < n; i++)
        big[i] = INT32_MAX;
    wk_ref_reduce(big, n, WK_I32, WK_SUM, &r32);
    wk_checkf(&tally, r32 == -100000, "i32 sum of 100000 * INT32_MAX wraps to -100000: %" PRId32, r32);
    free(big);
}

static void test_result_size(void)
{
    /* A non-arg result is exactly the dtype's size: bytes past it stay. */
    int32_t in[] = {-1, 1};
    unsigned char out[8];
    memset(out, 0x5a, sizeof out);
    wk_ref_reduce(in, 2, WK_I32, WK_XOR, out);
    int32_t v;
    memcpy(&v, out, 4);
    wk_checkf(&tally, v == -2 && out[4] == 0x5a && out[7] == 0x5a,
          "i32 xor writes 4 bytes: %" PRId32 ", bytes after it untouched", v);
    uint16_t hin[] = {0x3c00, 0x4000};
    memset(out, 0x5a, sizeof out);
    wk_ref_reduce(hin, 2, WK_F16, WK_SUM, out);
    uint16_t hv;
    memcpy(&hv, out, 2);
    wk_checkf(&tally, hv == 0x4200 && out[2] == 0x5a, "f16 sum 1 + 2 = 3 (0x4200) writes 2 bytes: 0x%04x", hv);
}

static void test_nan(void)
{
    float in[] = {1.0f, f32_from_bits(0x7fc00001u), -5.0f, f32_from_bits(0xffc00002u), 7.0f};
    float v;
    wk_arg_result r;
    wk_ref_reduce(in, 5, WK_F32, WK_MIN, &v);
    wk_checkf(&tally, f32_bits(v) == 0x7fc00001u, "f32 min with NaNs is the first NaN: 0x%08" PRIx32, f32_bits(v));
    wk_ref_reduce(in, 5, WK_F32, WK_MAX, &v);
    wk_checkf(&tally, f32_bits(v) == 0x7fc00001u, "f32 max with NaNs is the first NaN: 0x%08" PRIx32, f32_bits(v));
    wk_ref_reduce(in, 5, WK_F32, WK_ARGMIN, &r);
    wk_checkf(&tally, isnan(r.value.f32) && r.index == 1, "f32 argmin with NaNs: first NaN @%" PRId64, r.index);
    wk_ref_reduce(in, 5, WK_F32, WK_ARGMAX, &r);
    wk_checkf(&tally, isnan(r.value.f32) && r.index == 1, "f32 argmax with NaNs: first NaN @%" PRId64, r.index);
    wk_ref_reduce(in, 5, WK_F32, WK_SUM, &v);
    wk_checkf(&tally, isnan(v), "f32 sum with NaN is NaN");

    double dn[] = {NAN, -INFINITY, 3.0};
    wk_ref_reduce(dn, 3, WK_F64, WK_ARGMIN, &r);
    wk_checkf(&tally, isnan(r.value.f64) && r.index == 0, "f64 argmin NaN at index 0 beats -inf: @%" PRId64, r.index);
    uint16_t hn[] = {0x3c00, 0xfc00, 0x7e00, 0x7c00};
    wk_ref_reduce(hn, 4, WK_F16, WK_ARGMAX, &r);
    wk_checkf(&tally, r.value.f16 == 0x7e00 && r.index == 2, "f16 argmax with NaN after inf: 0x%04x@%" PRId64,
          r.value.f16, r.index);
    uint16_t bn[] = {0x3f80, 0x3f80, 0xffc1};
    wk_ref_reduce(bn, 3, WK_BF16, WK_ARGMIN, &r);
    wk_checkf(&tally, r.value.bf16 == 0xffc1 && r.index == 2, "bf16 argmin NaN last: 0x%04x@%" PRId64,
          r.value.bf16, r.index);

    float inf_pair[] = {INFINITY, 1.0f, -INFINITY};
    wk_ref_reduce(inf_pair, 3, WK_F32, WK_SUM, &v);
    wk_checkf(&tally, isnan(v), "f32 sum +inf + -inf is NaN");
    wk_ref_reduce(inf_pair, 2, WK_F32, WK_SUM, &v);
    wk_checkf(&tally, v == INFINITY, "f32 sum +inf + 1 is +inf");
}

static void test_ties(void)
{
    int32_t a[] = {3, 1, 2, 1, 1};
    uint64_t b[] = {5, 9, 9, 0, 9};
    float c[] = {2.0f, -1.0f, 4.0f, -1.0f, 4.0f};
    wk_arg_result r;
    wk_ref_reduce(a, 5, WK_I32, WK_ARGMIN, &r);
    wk_checkf(&tally, r.value.i32 == 1 && r.index == 1, "i32 argmin ties: %" PRId32 "@%" PRId64, r.value.i32, r.index);
    wk_ref_reduce(b, 5, WK_U64, WK_ARGMAX, &r);
    wk_checkf(&tally, r.value.u64 == 9 && r.index == 1, "u64 argmax ties: %" PRIu64 "@%" PRId64, r.value.u64, r.index);
    wk_ref_reduce(c, 5, WK_F32, WK_ARGMIN, &r);
    wk_checkf(&tally, r.value.f32 == -1.0f && r.index == 1, "f32 argmin ties: @%" PRId64, r.index);
    wk_ref_reduce(c, 5, WK_F32, WK_ARGMAX, &r);
    wk_checkf(&tally, r.value.f32 == 4.0f && r.index == 2, "f32 argmax ties: @%" PRId64, r.index);

    int64_t s[] = {INT64_MIN, 0, INT64_MIN, INT64_MAX, INT64_MAX};
    wk_ref_reduce(s, 5, WK_I64, WK_ARGMAX, &r);
    wk_checkf(&tally, r.value.i64 == INT64_MAX && r.index == 3, "i64 argmax at INT64_MAX ties: @%" PRId64, r.index);
    wk_ref_reduce(s, 5, WK_I64, WK_ARGMIN, &r);
    wk_checkf(&tally, r.value.i64 == INT64_MIN && r.index == 0, "i64 argmin at INT64_MIN ties: @%" PRId64, r.index);
    uint32_t u[] = {7, 0x80000000u, 0xffffffffu, 0xffffffffu};
    wk_ref_reduce(u, 4, WK_U32, WK_ARGMAX, &r);
    wk_checkf(&tally, r.value.u32 == 0xffffffffu && r.index == 2, "u32 argmax is unsigned: @%" PRId64, r.index);
    int32_t m[] = {7, -5, INT32_MIN, 0};
    wk_ref_reduce(m, 4, WK_I32, WK_ARGMIN, &r);
    wk_checkf(&tally, r.value.i32 == INT32_MIN && r.index == 2, "i32 argmin is signed: @%" PRId64, r.index);
}

/* The first index among equal extremes, found the slowest obvious way. */
static int64_t naive_arg(const int32_t *x, size_t n, int want_max)
{
    int64_t at = 0;
    for (size_t i = 1; i < n; i++)
        if (want_max ? x[i] > x[at] : x[i] < x[at])
            at = (int64_t)i;
    return at;
}

static void test_ties_generated(uint64_t seed)
{
    size_t n = 10007;
    int32_t *x = malloc(n * sizeof *x);
    wk_generate(x, n, WK_I32, WK_GEN_SMALL_INTS, seed);
    wk_arg_result lo, hi;
    wk_ref_reduce(x, n, WK_I32, WK_ARGMIN, &lo);
    wk_ref_reduce(x, n, WK_I32, WK_ARGMAX, &hi);
    int64_t want_lo = naive_arg(x, n, 0), want_hi = naive_arg(x, n, 1);
    wk_checkf(&tally, lo.index == want_lo && hi.index == want_hi,
          "i32 small-int data: argmin @%" PRId64 " (want %" PRId64 "), argmax @%" PRId64
          " (want %" PRId64 ")",
          lo.index, want_lo, hi.index, want_hi);
    free(x);
}

static void test_signed_zero(void)
{
    float pz_nz[] = {0.0f, -0.0f}, nz_pz[] = {-0.0f, 0.0f}, mixed[] = {1.0f, -0.0f, 0.0f};
    wk_arg_result r;
    wk_ref_reduce(pz_nz, 2, WK_F32, WK_ARGMIN, &r);
    wk_checkf(&tally, r.index == 0, "f32 argmin {+0, -0}: equal, so lowest index: @%" PRId64, r.index);
    wk_ref_reduce(nz_pz, 2, WK_F32, WK_ARGMAX, &r);
    wk_checkf(&tally, r.index == 0, "f32 argmax {-0, +0}: equal, so lowest index: @%" PRId64, r.index);
    wk_ref_reduce(mixed, 3, WK_F32, WK_ARGMIN, &r);
    wk_checkf(&tally, r.index == 1 && signbit(r.value.f32), "f32 argmin {1, -0, +0}: -0@1: @%" PRId64, r.index);
    uint16_t h[] = {0x8000, 0x0000};
    wk_ref_reduce(h, 2, WK_F16, WK_ARGMAX, &r);
    wk_checkf(&tally, r.index == 0, "f16 argmax {-0, +0}: @%" PRId64, r.index);

    /* MIN / MAX are IEEE 754-2019 minimum / maximum: -0 below +0, in
     * either order. */
    float got;
    wk_ref_reduce(nz_pz, 2, WK_F32, WK_MIN, &got);
    wk_checkf(&tally, got == 0.0f && signbit(got), "f32 min {-0, +0} is -0");
    wk_ref_reduce(pz_nz, 2, WK_F32, WK_MIN, &got);
    wk_checkf(&tally, got == 0.0f && signbit(got), "f32 min {+0, -0} is -0");
    wk_ref_reduce(nz_pz, 2, WK_F32, WK_MAX, &got);
    wk_checkf(&tally, got == 0.0f && !signbit(got), "f32 max {-0, +0} is +0");
    double d[] = {0.0, -0.0, 0.0}, dgot;
    wk_ref_reduce(d, 3, WK_F64, WK_MIN, &dgot);
    wk_checkf(&tally, dgot == 0.0 && signbit(dgot), "f64 min {+0, -0, +0} is -0");
    wk_ref_reduce(h, 2, WK_F16, WK_MAX, &h[1]);
    wk_checkf(&tally, h[1] == 0x0000, "f16 max {-0, +0} is +0: 0x%04x", (unsigned)h[1]);
    float pz = 0.0f, nz = -0.0f;
    char msg[256];
    int ok = wk_ref_check_reduce(nz_pz, 2, WK_F32, WK_MIN, 1, &pz, msg, sizeof msg);
    wk_checkf(&tally, !ok, "check refuses +0 for a -0 min: %s", msg);
    ok = wk_ref_check_reduce(nz_pz, 2, WK_F32, WK_MIN, 1, &nz, msg, sizeof msg);
    wk_checkf(&tally, ok, "check accepts -0 for a -0 min: %s", msg);
}

/* One bitwise reduce of three elements against its value worked by hand,
 * read back as the dtype's bit pattern. */
typedef struct bitwise_case {
    const void *in;
    wk_dtype dtype;
    wk_op op;
    uint64_t want;
    const char *what;
} bitwise_case;

static void test_bitwise(void)
{
    static const uint32_t a[] = {0xF0F0F0F0u, 0x0FF00FF0u, 0xFFFF0000u};
    static const uint64_t b[] = {0xF0F0F0F0F0F0F0F0u, 0x0FF00FF00FF00FF0u, 0xFFFF0000FFFF0000u};
    static const int32_t neg[] = {-1, -2, -4};
    static const uint8_t bytes[] = {0xF0u, 0x3Cu, 0x0Fu};
    static const int16_t shorts[] = {-1, 0x1234, -32768};
    static const uint8_t bools[] = {1, 0, 1};
    static const bitwise_case cases[] = {
        {bytes, WK_U8, WK_AND, 0x00u, "u8 and"},
        {bytes, WK_I8, WK_OR, 0xFFu, "i8 or"},
        {bytes, WK_U8, WK_XOR, 0xC3u, "u8 xor"},
        {shorts, WK_I16, WK_AND, 0x0000u, "i16 and of -1, 0x1234, -32768"},
        {shorts, WK_U16, WK_OR, 0xFFFFu, "u16 or"},
        {shorts, WK_I16, WK_XOR, 0x6DCBu, "i16 xor"},
        {bools, WK_BOOL, WK_AND, 0, "bool and of 1, 0, 1 (all)"},
        {bools, WK_BOOL, WK_OR, 1, "bool or of 1, 0, 1 (any)"},
        {bools, WK_BOOL, WK_XOR, 0, "bool xor of 1, 0, 1 (parity)"},
        {a, WK_U32, WK_AND, 0x00F00000u, "u32 and"},
        {a, WK_U32, WK_OR, 0xFFFFFFF0u, "u32 or"},
        {a, WK_I32, WK_XOR, 0x00FFFF00u, "i32 xor"},
        {b, WK_U64, WK_AND, 0x00F0000000F00000u, "u64 and"},
        {b, WK_I64, WK_OR, 0xFFFFFFF0FFFFFFF0u, "i64 or"},
        {b, WK_U64, WK_XOR, 0x00FFFF0000FFFF00u, "u64 xor"},
        {neg, WK_I32, WK_AND, (uint32_t)-4, "i32 and of -1, -2, -4"},
        {neg, WK_I32, WK_XOR, (uint32_t)(-1 ^ -2 ^ -4), "i32 xor of negatives"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const bitwise_case *c = &cases[k];
        wk_value r;
        memset(&r, 0, sizeof r);
        wk_ref_reduce(c->in, 3, c->dtype, c->op, &r);
        uint64_t got = value_bits(&r, c->dtype);
        wk_checkf(&tally, got == c->want, "%s: 0x%0*" PRIx64, c->what, 2 * (int)wk_dtype_size(c->dtype), got);
    }
}

static void test_status(void)
{
    float x[2] = {1.0f, 2.0f};
    unsigned char out[16];
    for (int d = WK_F32; d <= WK_BF16; d++)
        for (int o = WK_AND; o <= WK_XOR; o++)
            wk_checkf(&tally, wk_ref_reduce(x, 2, (wk_dtype)d, (wk_op)o, out) == WK_ERROR_UNSUPPORTED,
                  "%s %s: unsupported", wk_dtype_name((wk_dtype)d), wk_op_name((wk_op)o));
    wk_checkf(&tally, wk_ref_reduce(x, 2, (wk_dtype)WK_DTYPE_COUNT, WK_SUM, out) == WK_ERROR_INVALID_DTYPE,
          "dtype %d: invalid dtype", WK_DTYPE_COUNT);
    static const uint8_t flags[2] = {1, 0};
    wk_checkf(&tally, wk_ref_reduce(flags, 2, WK_BOOL, WK_SUM, out) == WK_ERROR_UNSUPPORTED,
          "bool sum: unsupported (count with wk_reduce_to)");
    wk_checkf(&tally, wk_ref_dtype_op_status(WK_BOOL, WK_SUM) == WK_ERROR_UNSUPPORTED &&
                          wk_ref_dtype_op_status(WK_BOOL, WK_MIN) == WK_SUCCESS &&
                          wk_ref_dtype_op_status(WK_BOOL, WK_XOR) == WK_SUCCESS &&
                          wk_ref_dtype_op_status(WK_BOOL, (wk_op)-1) == WK_ERROR_INVALID_OP &&
                          wk_ref_dtype_op_status(WK_U8, WK_SUM) == WK_SUCCESS,
          "dtype / op statuses: bool sum refused, its other ops and a u8 sum not");
    wk_checkf(&tally, wk_ref_reduce(x, 2, (wk_dtype)-1, WK_SUM, out) == WK_ERROR_INVALID_DTYPE, "dtype -1: invalid dtype");
    wk_checkf(&tally, wk_ref_reduce(x, 2, WK_F32, (wk_op)8, out) == WK_ERROR_INVALID_OP, "op 8: invalid op");
    wk_checkf(&tally, wk_ref_reduce(x, 2, WK_F32, (wk_op)-1, out) == WK_ERROR_INVALID_OP, "op -1: invalid op");
    wk_checkf(&tally, wk_ref_reduce(x, 2, (wk_dtype)99, (wk_op)99, out) == WK_ERROR_INVALID_DTYPE,
          "bad dtype and bad op: dtype reported first");
    wk_checkf(&tally, wk_ref_reduce(NULL, 2, WK_F32, WK_SUM, out) == WK_ERROR_INVALID_ARGUMENT,
          "NULL input with n > 0: invalid argument");
    wk_checkf(&tally, wk_ref_reduce(x, 2, WK_F32, WK_SUM, NULL) == WK_ERROR_INVALID_ARGUMENT,
          "NULL output: invalid argument");
    memset(out, 0x77, sizeof out);
    wk_ref_reduce(x, 2, WK_F32, WK_AND, out);
    wk_checkf(&tally, out[0] == 0x77 && out[3] == 0x77, "a refused call leaves the output alone");
}

/* ------------------------------------------------------------- checker */

/* Overwrites a positive float value of dtype with its neighbour above (up)
 * or below, by stepping its bit pattern. */
static void step_positive(void *v, wk_dtype dtype, int up)
{
    uint64_t bits = value_bits(v, dtype);
    bits = up ? bits + 1 : bits - 1;
    uint16_t b16 = (uint16_t)bits;
    uint32_t b32 = (uint32_t)bits;
    switch (wk_dtype_size(dtype)) {
    case 2: memcpy(v, &b16, 2); break;
    case 4: memcpy(v, &b32, 4); break;
    default: memcpy(v, &bits, 8); break;
    }
}

/* The value of dtype nearest to target (> 0) on the far side from ref, so
 * that |result - ref| >= |target - ref| however the dtype rounds. */
static void store_beyond(void *out, wk_dtype dtype, long double ref, long double target)
{
    int up = target > ref;
    wk_ref_store(out, 0, dtype, target);
    while (up ? wk_ref_load(out, 0, dtype) < target : wk_ref_load(out, 0, dtype) > target)
        step_positive(out, dtype, up);
}

static long double naive_sum(const void *x, size_t n, wk_dtype dtype, long double *abs_sum)
{
    long double s = 0;
    *abs_sum = 0;
    for (size_t i = 0; i < n; i++) {
        long double v = wk_ref_load(x, i, dtype);
        s += v;
        *abs_sum += fabsl(v);
    }
    return s;
}

static void test_check_float_sum(wk_dtype dtype, uint64_t seed)
{
    size_t n = 5000, depth = 40;
    const char *name = wk_dtype_name(dtype);
    void *x = malloc(n * wk_dtype_size(dtype));
    wk_generate(x, n, dtype, WK_GEN_POSITIVE, seed);
    long double abs_sum, exact = naive_sum(x, n, dtype, &abs_sum);
    double tol = wk_ref_sum_tolerance(dtype, depth, abs_sum, exact);
    char msg[512];
    wk_value ref, bad;
    wk_ref_reduce(x, n, dtype, WK_SUM, &ref);

    int ok = wk_ref_check_reduce(x, n, dtype, WK_SUM, depth, &ref, msg, sizeof msg);
    wk_checkf(&tally, ok && strchr(msg, '\n') == NULL, "%s sum: check accepts the reference: %s", name, msg);
    /* f16 and bf16 have ulps about as wide as their tolerance, so only the
     * wider dtypes have room for a value strictly inside it. */
    if (dtype == WK_F32 || dtype == WK_F64) {
        wk_ref_store(&bad, 0, dtype, exact + 0.5L * tol);
        ok = wk_ref_check_reduce(x, n, dtype, WK_SUM, depth, &bad, msg, sizeof msg);
        wk_checkf(&tally, ok, "%s sum: check accepts a result 0.5x the tolerance off: %s", name, msg);
    }
    store_beyond(&bad, dtype, exact, exact + 2.0L * tol);
    wk_checkf(&tally, !wk_ref_check_reduce(x, n, dtype, WK_SUM, depth, &bad, msg, sizeof msg),
          "%s sum: check rejects +2x the tolerance (tol %.3g): %s", name, tol, msg);
    store_beyond(&bad, dtype, exact, exact - 2.0L * tol);
    wk_checkf(&tally, !wk_ref_check_reduce(x, n, dtype, WK_SUM, depth, &bad, msg, sizeof msg),
          "%s sum: check rejects -2x the tolerance: %s", name, msg);
    free(x);
}

/* One check of a reduce over NaN, infinities or values near overflow:
 * whether it accepts `got` as the result. */
typedef struct special_check {
    const void *in;
    size_t n;
    wk_dtype dtype;
    wk_op op;
    size_t depth;
    const void *got;
    int accept;
    const char *what;
} special_check;

static void test_check_specials(void)
{
    static const float with_nan[] = {1.0f, NAN}, with_inf[] = {1.0f, INFINITY};
    static const float zero = 0.0f, inf = INFINITY, ninf = -INFINITY, big = FLT_MAX, one = 1.0f;
    float other_nan = f32_from_bits(0xffc00123u);
    static const uint16_t over[] = {0x7b53, 0x7b53}; /* 60000 each: 120000 overflows f16 */
    static const uint16_t h_inf = 0x7c00, h_max = 0x7bff, h_ninf = 0xfc00;
    /* 65504 + 15.5 = 65519.5 rounds to 65504 in f16, but a float accumulator
     * off by depth * 2^-24 * 65519.5 (0.78 at depth 200) may reach the
     * overflow threshold 65520, so inf is acceptable there and not at 0. */
    static const uint16_t near[] = {0x7bff, 0x4bc0};
    /* 65504 + 17 = 65521 overflows f16 although 65504 is within u_out * |ref|. */
    static const uint16_t just_over[] = {0x7bff, 0x4c40};
    /* sum|x| = 3 * DBL_MAX exceeds double; an infinite tolerance would let
     * anything pass. */
    static const double huge[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
    static const double d_max = DBL_MAX, d_zero = 0.0;
    static const float nan_min[] = {3.0f, NAN, 1.0f};
    const special_check checks[] = {
        {with_nan, 2, WK_F32, WK_SUM, 1, &zero, 0, "NaN sum needs NaN, rejects 0"},
        {with_nan, 2, WK_F32, WK_SUM, 1, &other_nan, 1, "NaN sum accepts any NaN"},
        {with_inf, 2, WK_F32, WK_SUM, 1, &inf, 1, "+inf sum accepts +inf"},
        {with_inf, 2, WK_F32, WK_SUM, 1, &ninf, 0, "+inf sum rejects -inf"},
        {with_inf, 2, WK_F32, WK_SUM, 1, &big, 0, "+inf sum rejects FLT_MAX"},
        {over, 2, WK_F16, WK_SUM, 1, &h_inf, 1, "f16 sum overflowing to inf accepts inf"},
        {over, 2, WK_F16, WK_SUM, 1, &h_max, 0, "f16 sum overflowing to inf rejects 65504"},
        {over, 2, WK_F16, WK_SUM, 1, &h_ninf, 0, "f16 sum overflowing to inf rejects -inf"},
        {near, 2, WK_F16, WK_SUM, 0, &h_inf, 0, "f16 sum 65519.5 at depth 0 rejects inf"},
        {near, 2, WK_F16, WK_SUM, 200, &h_inf, 1, "f16 sum 65519.5 at depth 200 accepts inf"},
        {near, 2, WK_F16, WK_SUM, 200, &h_max, 1, "f16 sum 65519.5 at depth 200 accepts 65504"},
        {just_over, 2, WK_F16, WK_SUM, 0, &h_max, 0, "f16 sum 65521 at depth 0 needs inf, rejects 65504"},
        {huge, 3, WK_F64, WK_SUM, 2, &d_max, 1, "f64 sum near DBL_MAX accepts DBL_MAX"},
        {huge, 3, WK_F64, WK_SUM, 2, &d_zero, 0, "f64 sum near DBL_MAX rejects 0 (finite tolerance)"},
        {nan_min, 3, WK_F32, WK_MIN, 1, &other_nan, 1, "min with NaN accepts a NaN"},
        {nan_min, 3, WK_F32, WK_MIN, 1, &one, 0, "min with NaN rejects the non-NaN minimum"},
    };
    char msg[512];
    for (size_t k = 0; k < sizeof checks / sizeof checks[0]; ++k) {
        const special_check *c = &checks[k];
        int accepted = !!wk_ref_check_reduce(c->in, c->n, c->dtype, c->op, c->depth, c->got, msg, sizeof msg);
        wk_checkf(&tally, accepted == c->accept, "%s: %s", c->what, msg);
    }
}

static void test_check_exact(uint64_t seed)
{
    size_t n = 3001;
    char msg[512];
    double *x = malloc(n * sizeof *x);
    wk_generate(x, n, WK_F64, WK_GEN_UNIFORM, seed);
    wk_arg_result r;
    wk_ref_reduce(x, n, WK_F64, WK_ARGMAX, &r);
    wk_checkf(&tally, wk_ref_check_reduce(x, n, WK_F64, WK_ARGMAX, 1, &r, msg, sizeof msg),
          "argmax: check accepts the reference: %s", msg);
    wk_arg_result wrong = r;
    wrong.index = r.index + 1;
    wk_checkf(&tally, !wk_ref_check_reduce(x, n, WK_F64, WK_ARGMAX, 1, &wrong, msg, sizeof msg),
          "argmax: check rejects a wrong index: %s", msg);
    wrong = r;
    wrong.value.f64 = nextafter(r.value.f64, 0.0);
    wk_checkf(&tally, !wk_ref_check_reduce(x, n, WK_F64, WK_ARGMAX, 1, &wrong, msg, sizeof msg),
          "argmax: check rejects a value one ulp off: %s", msg);
    free(x);

    uint32_t u[] = {1, 2, 3};
    uint32_t s = 6, s_off = 7;
    wk_checkf(&tally, wk_ref_check_reduce(u, 3, WK_U32, WK_SUM, 1, &s, msg, sizeof msg), "u32 sum exact: %s", msg);
    wk_checkf(&tally, !wk_ref_check_reduce(u, 3, WK_U32, WK_SUM, 1000000, &s_off, msg, sizeof msg),
          "u32 sum off by one rejected whatever the depth: %s", msg);
    wk_checkf(&tally, !wk_ref_check_reduce(u, 3, WK_F32, WK_AND, 1, &s, msg, sizeof msg) && msg[0] != '\0',
          "check of an unsupported op fails with a message: %s", msg);
}

static void test_format(void)
{
    char buf[64];
    int32_t i = -5;
    wk_ref_format(WK_I32, WK_SUM, &i, buf, sizeof buf);
    wk_checkf(&tally, strcmp(buf, "-5") == 0, "format i32 -5: \"%s\"", buf);
    wk_arg_result r;
    memset(&r, 0, sizeof r);
    r.value.f32 = 1.5f;
    r.index = 3;
    wk_ref_format(WK_F32, WK_ARGMAX, &r, buf, sizeof buf);
    wk_checkf(&tally, strcmp(buf, "1.5@3") == 0, "format f32 argmax: \"%s\"", buf);
    uint16_t h = 0x3c00;
    wk_ref_format(WK_F16, WK_MIN, &h, buf, sizeof buf);
    wk_checkf(&tally, strcmp(buf, "1 (0x3c00)") == 0, "format f16: \"%s\"", buf);
    int8_t i8 = -128;
    wk_ref_format(WK_I8, WK_MIN, &i8, buf, sizeof buf);
    wk_checkf(&tally, strcmp(buf, "-128") == 0, "format i8 -128: \"%s\"", buf);
    uint16_t u16 = 65535;
    wk_ref_format(WK_U16, WK_MAX, &u16, buf, sizeof buf);
    wk_checkf(&tally, strcmp(buf, "65535") == 0, "format u16 65535: \"%s\"", buf);
    memset(&r, 0, sizeof r);
    r.value.i16 = -300;
    r.index = 7;
    wk_ref_format(WK_I16, WK_ARGMIN, &r, buf, sizeof buf);
    wk_checkf(&tally, strcmp(buf, "-300@7") == 0, "format i16 argmin: \"%s\"", buf);
    uint8_t b = 1, stray = 0xff;
    wk_ref_format(WK_BOOL, WK_MAX, &b, buf, sizeof buf);
    wk_checkf(&tally, strcmp(buf, "1") == 0, "format bool 1: \"%s\"", buf);
    wk_ref_format(WK_BOOL, WK_MAX, &stray, buf, sizeof buf);
    wk_checkf(&tally, strcmp(buf, "255") == 0, "format a bool byte that is not 0 or 1 shows it: \"%s\"", buf);
}

/* ------------------------------------------------- narrow integers */

/* The 8- and 16-bit dtypes and bools, each against values worked by hand. */
static void test_narrow(void)
{
    int8_t i8_big[] = {100, 100, 100}, i8_low[] = {-128, -1};
    uint8_t u8[] = {200, 100}, u8_order[] = {0x7f, 0x80, 0x01};
    int16_t i16[] = {-5, -32768, -1, -32768, 12};
    uint16_t u16[] = {1, 65535, 40000, 65535}, u16_wrap[] = {65535, 2};
    int8_t r8;
    uint8_t ru8;
    int16_t r16;
    uint16_t ru16;
    wk_arg_result r;

    wk_ref_reduce(i8_big, 3, WK_I8, WK_SUM, &r8);
    wk_checkf(&tally, r8 == 44, "i8 sum 100 + 100 + 100 = 300 wraps to 44: %d", r8);
    wk_ref_reduce(i8_low, 2, WK_I8, WK_SUM, &r8);
    wk_checkf(&tally, r8 == 127, "i8 sum -128 + -1 wraps to 127: %d", r8);
    wk_ref_reduce(u8, 2, WK_U8, WK_SUM, &ru8);
    wk_checkf(&tally, ru8 == 44, "u8 sum 200 + 100 wraps to 44: %u", ru8);
    wk_ref_reduce(u16_wrap, 2, WK_U16, WK_SUM, &ru16);
    wk_checkf(&tally, ru16 == 1, "u16 sum 65535 + 2 wraps to 1: %u", ru16);
    wk_ref_reduce(i16, 5, WK_I16, WK_SUM, &r16);
    wk_checkf(&tally, r16 == 6, "i16 sum -5 - 32768 - 1 - 32768 + 12 = -65530 wraps to 6: %d", r16);

    wk_ref_reduce(u16, 4, WK_U16, WK_MAX, &ru16);
    wk_checkf(&tally, ru16 == 65535, "u16 max is 65535: %u", ru16);
    wk_ref_reduce(u16, 4, WK_U16, WK_ARGMAX, &r);
    wk_checkf(&tally, r.value.u16 == 65535 && r.index == 1, "u16 argmax: first 65535 @%" PRId64, r.index);
    wk_ref_reduce(i16, 5, WK_I16, WK_MIN, &r16);
    wk_checkf(&tally, r16 == -32768, "i16 min of negatives is -32768: %d", r16);
    wk_ref_reduce(i16, 5, WK_I16, WK_ARGMIN, &r);
    wk_checkf(&tally, r.value.i16 == -32768 && r.index == 1, "i16 argmin: first -32768 @%" PRId64, r.index);
    wk_ref_reduce(i16, 5, WK_I16, WK_MAX, &r16);
    wk_checkf(&tally, r16 == 12, "i16 max is signed: %d", r16);
    wk_ref_reduce(u8_order, 3, WK_U8, WK_MAX, &ru8);
    wk_checkf(&tally, ru8 == 0x80, "u8 max is unsigned (0x80 above 0x7f): 0x%02x", ru8);
    wk_ref_reduce(u8_order, 3, WK_I8, WK_MIN, &r8);
    wk_checkf(&tally, r8 == -128, "the same bytes as i8: min is 0x80 = -128: %d", r8);
    wk_ref_reduce(u8_order, 3, WK_I8, WK_ARGMAX, &r);
    wk_checkf(&tally, r.value.i8 == 127 && r.index == 0, "i8 argmax 127 @%" PRId64, r.index);

    /* Bools: MIN is all, MAX is any, the arg ops find the first 0 or 1. */
    static const uint8_t all_true[] = {1, 1, 1, 1}, one_false[] = {1, 1, 0, 1, 0}, all_false[] = {0, 0, 0},
                         one_true[] = {0, 0, 1, 0, 1};
    uint8_t b;
    wk_ref_reduce(all_true, 4, WK_BOOL, WK_MIN, &b);
    wk_checkf(&tally, b == 1, "bool min of all true: all = %u", b);
    wk_ref_reduce(one_false, 5, WK_BOOL, WK_MIN, &b);
    wk_checkf(&tally, b == 0, "bool min with a false: all = %u", b);
    wk_ref_reduce(all_false, 3, WK_BOOL, WK_MAX, &b);
    wk_checkf(&tally, b == 0, "bool max of all false: any = %u", b);
    wk_ref_reduce(one_true, 5, WK_BOOL, WK_MAX, &b);
    wk_checkf(&tally, b == 1, "bool max with a true: any = %u", b);
    wk_ref_reduce(one_false, 5, WK_BOOL, WK_ARGMIN, &r);
    wk_checkf(&tally, r.value.b == 0 && r.index == 2, "bool argmin: the first false @%" PRId64, r.index);
    wk_ref_reduce(one_true, 5, WK_BOOL, WK_ARGMAX, &r);
    wk_checkf(&tally, r.value.b == 1 && r.index == 2, "bool argmax: the first true @%" PRId64, r.index);
    wk_ref_reduce(all_true, 4, WK_BOOL, WK_ARGMIN, &r);
    wk_checkf(&tally, r.value.b == 1 && r.index == 0, "bool argmin of all true: the first @%" PRId64, r.index);
    char msg[256];
    uint8_t right = 1, wrong = 0;
    wk_checkf(&tally, wk_ref_check_reduce(one_true, 5, WK_BOOL, WK_MAX, 1, &right, msg, sizeof msg),
          "bool max checked: %s", msg);
    wk_checkf(&tally, !wk_ref_check_reduce(one_true, 5, WK_BOOL, WK_MAX, 1, &wrong, msg, sizeof msg),
          "bool max of the wrong value refused: %s", msg);
    wk_checkf(&tally, !wk_ref_check_reduce(one_true, 5, WK_BOOL, WK_SUM, 1, &right, msg, sizeof msg) &&
                          strstr(msg, "cannot check") != NULL,
          "a bool sum cannot be checked: %s", msg);

    /* Stores wrap to the dtype's width. */
    wk_ref_store(&r8, 0, WK_I8, 200.0L);
    wk_ref_store(&ru16, 0, WK_U16, -1.0L);
    wk_ref_store(&r16, 0, WK_I16, 32768.0L);
    wk_checkf(&tally, r8 == -56 && ru16 == 65535 && r16 == -32768,
          "narrow stores wrap: i8 200 -> %d, u16 -1 -> %u, i16 32768 -> %d", r8, ru16, r16);
    wk_checkf(&tally, wk_ref_load(&r8, 0, WK_I8) == -56 && wk_ref_load(&ru16, 0, WK_U16) == 65535 &&
                          wk_ref_load(&one_true[2], 0, WK_BOOL) == 1,
          "narrow loads: i8 sign-extends, u16 and bool do not");
}

/* Narrow integer data from the generator against naive loops. */
static void test_narrow_vs_naive(uint64_t seed)
{
    size_t n = 100003;
    static const wk_dtype dtypes[] = {WK_U8, WK_I8, WK_I16, WK_U16, WK_BOOL};
    void *x = malloc(n * 2);
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        wk_dtype d = dtypes[k];
        wk_generate(x, n, d, WK_GEN_UNIFORM, seed + k);
        int64_t sum = 0, lo = 0, hi = 0;
        uint64_t ors = 0, ands = ~UINT64_C(0);
        int64_t at_lo = 0, at_hi = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t v = (int64_t)wk_ref_load(x, i, d);
            sum += v;
            if (i == 0 || v < lo) {
                lo = v;
                at_lo = (int64_t)i;
            }
            if (i == 0 || v > hi) {
                hi = v;
                at_hi = (int64_t)i;
            }
            ors |= (uint64_t)v;
            ands &= (uint64_t)v;
        }
        uint64_t mask = (UINT64_C(1) << (8 * wk_dtype_size(d))) - 1;
        wk_arg_result amin, amax;
        wk_value s, mn, mx, a, o;
        memset(&s, 0, sizeof s);
        memset(&mn, 0, sizeof mn);
        memset(&mx, 0, sizeof mx);
        memset(&a, 0, sizeof a);
        memset(&o, 0, sizeof o);
        int ok = 1;
        if (d != WK_BOOL) {
            wk_ref_reduce(x, n, d, WK_SUM, &s);
            ok = value_bits(&s, d) == ((uint64_t)sum & mask);
        }
        wk_ref_reduce(x, n, d, WK_MIN, &mn);
        wk_ref_reduce(x, n, d, WK_MAX, &mx);
        wk_ref_reduce(x, n, d, WK_AND, &a);
        wk_ref_reduce(x, n, d, WK_OR, &o);
        wk_ref_reduce(x, n, d, WK_ARGMIN, &amin);
        wk_ref_reduce(x, n, d, WK_ARGMAX, &amax);
        ok = ok && wk_ref_load(&mn, 0, d) == lo && wk_ref_load(&mx, 0, d) == hi &&
             value_bits(&a, d) == (ands & mask) && value_bits(&o, d) == (ors & mask) && amin.index == at_lo &&
             amax.index == at_hi;
        wk_checkf(&tally, ok, "%s sum / min / max / and / or / argmin / argmax of %zu elements match naive loops",
              wk_dtype_name(d), n);
    }
    free(x);
}

/* ------------------------------------------------------------ widening */

/* The pairs warpkit.h lists for wk_reduce_to, written out by hand. */
static int listed_pair(int in, int out)
{
    int narrow_in = in == WK_BOOL || in == WK_U8 || in == WK_I8 || in == WK_I16 || in == WK_U16;
    if (in == out)
        return in != WK_BOOL;
    if (narrow_in)
        return out == WK_I32 || out == WK_U32 || out == WK_I64 || out == WK_U64;
    if (in == WK_I32 || in == WK_U32)
        return out == WK_I64 || out == WK_U64;
    if (in == WK_F16 || in == WK_BF16)
        return out == WK_F32;
    return in == WK_F32 && out == WK_F64;
}

/* The reference's own list (test_status checks the library's against it): every pair,
 * and the statuses of wk_ref_reduce_to_status. */
static void test_sum_widens_pairs(void)
{
    int pairs = 0, agree = 0, library = 0, statuses = 0;
    for (int in = 0; in < WK_DTYPE_COUNT; in++)
        for (int out = 0; out < WK_DTYPE_COUNT; out++, pairs++) {
            int want = listed_pair(in, out);
            agree += wk_ref_sum_widens(in, out) == want;
            library += !!wk_sum_widens(in, out) == want;
            wk_status st = wk_ref_reduce_to_status((wk_dtype)in, (wk_dtype)out);
            statuses += st == (want ? WK_SUCCESS : WK_ERROR_UNSUPPORTED);
        }
    wk_checkf(&tally, agree == pairs && library == pairs && statuses == pairs,
          "wk_ref_sum_widens agrees with the list on %d of %d pairs (the library on %d), statuses on %d", agree,
          pairs, library, statuses);
    wk_checkf(&tally, !wk_ref_sum_widens(-1, WK_I64) && !wk_ref_sum_widens(WK_DTYPE_COUNT, WK_DTYPE_COUNT) &&
                          wk_ref_reduce_to_status((wk_dtype)WK_DTYPE_COUNT, WK_I64) == WK_ERROR_INVALID_DTYPE,
          "unknown dtypes widen into nothing: invalid dtype");
}

/* One wk_ref_reduce_to of integers against its value worked by hand. */
static void expect_int_sum_to(const void *in, size_t n, wk_dtype from, wk_dtype to, uint64_t want, const char *what)
{
    unsigned char out[16];
    memset(out, 0x5a, sizeof out);
    wk_status st = wk_ref_reduce_to(in, n, from, to, out);
    uint64_t got = value_bits(out, to);
    size_t size = wk_dtype_size(to);
    char msg[256];
    int ok = st == WK_SUCCESS && got == want && out[size] == 0x5a;
    ok = ok && wk_ref_check_reduce_to(in, n, from, to, 1, out, msg, sizeof msg);
    uint64_t off = got + 1;
    memcpy(out, &off, size);
    ok = ok && !wk_ref_check_reduce_to(in, n, from, to, 1000000, out, NULL, 0);
    wk_checkf(&tally, ok, "%s -> %s: %s: 0x%" PRIx64 " (want 0x%" PRIx64 "), writes %zu bytes, checked exactly: %s",
          wk_dtype_name(from), wk_dtype_name(to), what, got, want, size, msg);
}

static void test_reduce_to_ints(void)
{
    size_t n = (size_t)1 << 20;
    uint8_t *ff = malloc(n);
    memset(ff, 0xff, n);
    expect_int_sum_to(ff, n, WK_U8, WK_I64, UINT64_C(267386880), "2^20 x 255 = 267386880");
    expect_int_sum_to(ff, n, WK_U8, WK_U32, UINT64_C(267386880), "2^20 x 255 in 32 bits");
    expect_int_sum_to(ff, n, WK_I8, WK_I64, (uint64_t)-(int64_t)n, "2^20 x -1 sign-extended = -2^20");
    expect_int_sum_to(ff, n, WK_I8, WK_U32, (uint32_t)-(int32_t)n, "2^20 x -1 modulo 2^32");
    expect_int_sum_to(ff, n / 2, WK_I16, WK_I32, (uint32_t)-(int32_t)(n / 2), "2^19 x -1 (0xffff) = -2^19");
    expect_int_sum_to(ff, n / 2, WK_U16, WK_U64, UINT64_C(65535) << 19, "2^19 x 65535");
    free(ff);

    /* 2^16 x 32767 = 2147418112 fits i32; 2^17 of them do not: modulo 2^32. */
    size_t m = (size_t)1 << 17;
    int16_t *big = malloc(m * sizeof *big);
    for (size_t i = 0; i < m; i++)
        big[i] = 32767;
    expect_int_sum_to(big, m / 2, WK_I16, WK_I32, UINT64_C(2147418112), "2^16 x 32767 fits i32");
    expect_int_sum_to(big, m, WK_I16, WK_I32, UINT64_C(4294836224) & 0xffffffffu, "2^17 x 32767 wraps i32");
    expect_int_sum_to(big, m, WK_I16, WK_I64, UINT64_C(4294836224), "2^17 x 32767 in i64");
    free(big);

    static const int32_t i32[] = {INT32_MAX, INT32_MAX, 1, -1, 2};
    expect_int_sum_to(i32, 5, WK_I32, WK_I64, UINT64_C(4294967296), "2 x INT32_MAX + 2 = 2^32, past int32");
    static const int32_t i32_neg[] = {INT32_MIN, INT32_MIN, -1};
    expect_int_sum_to(i32_neg, 3, WK_I32, WK_I64, (uint64_t)(INT64_C(-4294967297)), "2 x INT32_MIN - 1, signed");
    expect_int_sum_to(i32_neg, 3, WK_I32, WK_U64, (uint64_t)(INT64_C(-4294967297)), "the same bits as u64");
    static const uint32_t u32[] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    expect_int_sum_to(u32, 3, WK_U32, WK_U64, UINT64_C(12884901885), "3 x UINT32_MAX, zero-extended");
    expect_int_sum_to(u32, 3, WK_U32, WK_I64, UINT64_C(12884901885), "3 x UINT32_MAX into i64");

    static const uint8_t flags[] = {1, 0, 1, 1, 0, 1, 1};
    expect_int_sum_to(flags, 7, WK_BOOL, WK_I64, 5, "a bool sum counts the ones");
    expect_int_sum_to(flags, 7, WK_BOOL, WK_U32, 5, "the same count in u32");
    expect_int_sum_to(flags, 0, WK_BOOL, WK_I32, 0, "n = 0 gives 0");
    static const int8_t i8[] = {-128, -128, 127};
    expect_int_sum_to(i8, 3, WK_I8, WK_I32, (uint32_t)-129, "-128 - 128 + 127 = -129, no i8 wrap");
    expect_int_sum_to(i8, 3, WK_I8, WK_I8, 127, "in i8 itself it wraps to 127");
}

static void test_reduce_to_floats(void)
{
    char msg[512];
    /* 2048 + 1 = 2049 needs 12 bits: an f16 sum rounds it to 2048 (even),
     * an f32 one keeps it. */
    static const uint16_t h[] = {0x6800, 0x3c00};
    float f = 0;
    wk_status st = wk_ref_reduce_to(h, 2, WK_F16, WK_F32, &f);
    int ok = wk_ref_check_reduce_to(h, 2, WK_F16, WK_F32, 0, &f, msg, sizeof msg);
    wk_checkf(&tally, st == WK_SUCCESS && f == 2049.0f && ok, "f16 -> f32: 2048 + 1 = %g, not rounded back: %s",
          (double)f, msg);
    float two_k = 2048.0f;
    wk_checkf(&tally, !wk_ref_check_reduce_to(h, 2, WK_F16, WK_F32, 0, &two_k, msg, sizeof msg),
          "f16 -> f32: 2048 (the f16 sum) refused at depth 0: %s", msg);
    uint16_t h16 = 0;
    wk_ref_reduce(h, 2, WK_F16, WK_SUM, &h16);
    wk_checkf(&tally, h16 == 0x6800, "while wk_reduce's f16 sum rounds it to 2048: 0x%04x", h16);
    /* 65504 + 65504 overflows f16, not f32. */
    static const uint16_t h_max[] = {0x7bff, 0x7bff};
    wk_ref_reduce_to(h_max, 2, WK_F16, WK_F32, &f);
    wk_checkf(&tally, f == 131008.0f, "f16 -> f32: 65504 + 65504 = %g, finite", (double)f);
    /* bf16 256 + 1 = 257 needs 9 bits. */
    static const uint16_t b[] = {0x4380, 0x3f80};
    wk_ref_reduce_to(b, 2, WK_BF16, WK_F32, &f);
    wk_checkf(&tally, f == 257.0f, "bf16 -> f32: 256 + 1 = %g", (double)f);
    /* f32 1 + 2^-30 needs 31 bits: kept in double. */
    static const float x[] = {1.0f, 0x1p-30f};
    double d = 0;
    wk_ref_reduce_to(x, 2, WK_F32, WK_F64, &d);
    ok = wk_ref_check_reduce_to(x, 2, WK_F32, WK_F64, 0, &d, msg, sizeof msg);
    wk_checkf(&tally, d == 1.0 + 0x1p-30 && ok, "f32 -> f64: 1 + 2^-30 = %a: %s", d, msg);
    double one = 1.0;
    wk_checkf(&tally, !wk_ref_check_reduce_to(x, 2, WK_F32, WK_F64, 1, &one, msg, sizeof msg),
          "f32 -> f64: 1 (the float sum) refused: %s", msg);
    static const float over[] = {FLT_MAX, FLT_MAX};
    wk_ref_reduce_to(over, 2, WK_F32, WK_F64, &d);
    wk_checkf(&tally, d == 2.0 * (double)FLT_MAX, "f32 -> f64: FLT_MAX + FLT_MAX = %g, finite", d);
    static const float with_nan[] = {1.0f, NAN};
    wk_ref_reduce_to(with_nan, 2, WK_F32, WK_F64, &d);
    wk_checkf(&tally, isnan(d), "f32 -> f64: NaN stays NaN");

    /* The tolerance is the output's: a double accumulation of uniform f32
     * data at depth 40 is held to 2^-53, far tighter than a float sum. */
    size_t n = 5000, depth = 40;
    float *u = malloc(n * sizeof *u);
    wk_generate(u, n, WK_F32, WK_GEN_POSITIVE, 7);
    long double sum, abs_sum;
    st = wk_ref_reduce_to_sums(u, n, WK_F32, WK_F64, &sum, &abs_sum);
    double tol64 = wk_ref_sum_tolerance(WK_F64, depth, abs_sum, sum);
    double tol32 = wk_ref_sum_tolerance(WK_F32, depth, abs_sum, sum);
    wk_ref_reduce_to(u, n, WK_F32, WK_F64, &d);
    ok = wk_ref_check_reduce_to(u, n, WK_F32, WK_F64, depth, &d, msg, sizeof msg);
    double near = (double)(sum + 0.5L * tol64), far = (double)(sum + 4.0L * tol64);
    int near_ok = wk_ref_check_reduce_to(u, n, WK_F32, WK_F64, depth, &near, NULL, 0);
    int far_ok = wk_ref_check_reduce_to(u, n, WK_F32, WK_F64, depth, &far, NULL, 0);
    wk_checkf(&tally, st == WK_SUCCESS && ok && near_ok && !far_ok && tol64 < tol32 * 0x1p-20,
          "f32 -> f64 of %zu elements at depth %zu: reference accepted, 0.5x tol accepted, 4x refused "
          "(tol %.3g, an f32 sum's %.3g): %s", n, depth, tol64, tol32, msg);
    free(u);
}

static void test_reduce_to_status(void)
{
    uint8_t in[4] = {1, 2, 3, 4}, out[16];
    memset(out, 0x77, sizeof out);
    wk_checkf(&tally, wk_ref_reduce_to(in, 4, WK_BOOL, WK_BOOL, out) == WK_ERROR_UNSUPPORTED,
          "bool -> bool: unsupported");
    wk_checkf(&tally, wk_ref_reduce_to(in, 4, WK_U8, WK_U16, out) == WK_ERROR_UNSUPPORTED,
          "u8 -> u16: unsupported (not in the list)");
    wk_checkf(&tally, wk_ref_reduce_to(in, 1, WK_F32, WK_F16, out) == WK_ERROR_UNSUPPORTED,
          "f32 -> f16: unsupported (narrower)");
    wk_checkf(&tally, wk_ref_reduce_to(in, 1, WK_I32, WK_F64, out) == WK_ERROR_UNSUPPORTED,
          "i32 -> f64: unsupported (integer into float)");
    wk_checkf(&tally, wk_ref_reduce_to(in, 1, WK_I64, WK_U64, out) == WK_ERROR_UNSUPPORTED,
          "i64 -> u64: unsupported");
    wk_checkf(&tally, wk_ref_reduce_to(in, 4, (wk_dtype)WK_DTYPE_COUNT, WK_I64, out) == WK_ERROR_INVALID_DTYPE &&
                          wk_ref_reduce_to(in, 4, WK_U8, (wk_dtype)-1, out) == WK_ERROR_INVALID_DTYPE,
          "unknown dtypes: invalid dtype");
    wk_checkf(&tally, wk_ref_reduce_to(NULL, 4, WK_U8, WK_I64, out) == WK_ERROR_INVALID_ARGUMENT &&
                          wk_ref_reduce_to(in, 4, WK_U8, WK_I64, NULL) == WK_ERROR_INVALID_ARGUMENT,
          "NULL pointers: invalid argument");
    wk_checkf(&tally, out[0] == 0x77 && out[15] == 0x77, "refused calls leave the output alone");
    long double s, a;
    wk_checkf(&tally, wk_ref_reduce_to_sums(in, 4, WK_U8, WK_I64, &s, &a) == WK_ERROR_INVALID_ARGUMENT,
          "exact sums are for float pairs");
    /* out == in is wk_reduce's sum. */
    static const int32_t w[] = {INT32_MAX, 1};
    int32_t same = 0, plain = 0;
    wk_ref_reduce_to(w, 2, WK_I32, WK_I32, &same);
    wk_ref_reduce(w, 2, WK_I32, WK_SUM, &plain);
    wk_checkf(&tally, same == plain && same == INT32_MIN, "i32 -> i32 is wk_reduce's sum: %" PRId32, same);
}

/* ------------------------------------------- kernels vs naive loops */

/* Long inputs cross the reference's block and mid-level boundaries; its
 * blocked sums must agree with a plain sequential long double loop: exactly
 * for f16 (both sums are exact there), otherwise to within the final
 * rounding plus both long double sums' rounding (n * 2^-64 * sum|x|). */
static void test_sum_vs_naive(wk_dtype dtype, uint64_t seed)
{
    size_t n = (1u << 20) + 1027;
    void *x = malloc(n * wk_dtype_size(dtype));
    wk_generate(x, n, dtype, WK_GEN_UNIFORM, seed);
    long double abs_sum, naive = naive_sum(x, n, dtype, &abs_sum);
    char msg[512];
    wk_value r;
    wk_ref_reduce(x, n, dtype, WK_SUM, &r);
    wk_value want;
    wk_ref_store(&want, 0, dtype, naive);
    long double got = wk_ref_load(&r, 0, dtype), expect = wk_ref_load(&want, 0, dtype);
    long double unit = dtype == WK_F64 ? 0x1p-53L : dtype == WK_F32 ? 0x1p-24L : 0x1p-8L;
    long double bound = unit * fabsl(naive) + (long double)n * 0x1p-63L * abs_sum;
    int close = dtype == WK_F16 ? got == expect : fabsl(got - naive) <= bound;
    wk_checkf(&tally, close,
          "%s sum of %zu elements vs a naive loop: %.17Lg vs %.17Lg (bound %.3Lg)",
          wk_dtype_name(dtype), n, got, naive, bound);
    /* depth 1: the output rounding plus one float (double) rounding. */
    int ok = wk_ref_check_reduce(x, n, dtype, WK_SUM, 1, &want, msg, sizeof msg);
    wk_checkf(&tally, ok, "%s check of the naive loop's sum at depth 1: %s", wk_dtype_name(dtype), msg);
    free(x);
}

static void test_int_vs_naive(uint64_t seed)
{
    size_t n = 200003;
    int64_t *x = malloc(n * sizeof *x);
    wk_generate(x, n, WK_I64, WK_GEN_UNIFORM, seed);
    uint64_t sum = 0, xr = 0;
    int64_t mn = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += (uint64_t)x[i];
        xr ^= (uint64_t)x[i];
        mn = x[i] < mn ? x[i] : mn;
    }
    int64_t r_sum, r_min;
    uint64_t r_xor;
    wk_ref_reduce(x, n, WK_I64, WK_SUM, &r_sum);
    wk_ref_reduce(x, n, WK_I64, WK_MIN, &r_min);
    wk_ref_reduce(x, n, WK_U64, WK_XOR, &r_xor);
    wk_checkf(&tally, (uint64_t)r_sum == sum && r_min == mn && r_xor == xr,
          "i64 sum / min / xor of %zu random elements match naive loops", n);
    free(x);
}

/* ------------------------------------------------------------ generator */

static void test_generator_reproducible(uint64_t seed)
{
    size_t n = 4099;
    const wk_gen_pattern patterns[] = {WK_GEN_UNIFORM, WK_GEN_SMALL_INTS, WK_GEN_CONSTANT,
                                       WK_GEN_POSITIVE};
    unsigned same = 0, differs = 0, prefix = 0, combos = 0;
    unsigned char *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
    for (int d = 0; d < WK_DTYPE_COUNT; d++) {
        size_t bytes = n * wk_dtype_size((wk_dtype)d);
        for (size_t p = 0; p < 4; p++, combos++) {
            wk_generate(a, n, (wk_dtype)d, patterns[p], seed);
            wk_generate(b, n, (wk_dtype)d, patterns[p], seed);
            same += memcmp(a, b, bytes) == 0;
            /* A constant bf16 is one of 512 values, so one other seed may
             * well repeat it; four others all doing so would be a bug. A
             * constant bool is one of two: twenty others. */
            int other = 0;
            uint64_t others = d == WK_BOOL && patterns[p] == WK_GEN_CONSTANT ? 20 : 4;
            for (uint64_t k = 1; k <= others && !other; k++) {
                wk_generate(c, n, (wk_dtype)d, patterns[p], seed + k);
                other = memcmp(a, c, bytes) != 0;
            }
            differs += other;
            wk_generate(b, 10, (wk_dtype)d, patterns[p], seed);
            prefix += memcmp(a, b, 10 * wk_dtype_size((wk_dtype)d)) == 0;
        }
    }
    wk_checkf(&tally, same == combos, "generator: same seed, same data (%u of %u dtype/patterns)", same, combos);
    wk_checkf(&tally, differs == combos, "generator: other seeds give other data (%u of %u)", differs, combos);
    wk_checkf(&tally, prefix == combos, "generator: element i depends only on (seed, i) (%u of %u)", prefix, combos);
    wk_checkf(&tally, wk_rand64(seed, 5) == wk_rand64(seed, 5) && wk_rand64(seed, 5) != wk_rand64(seed, 6) &&
              wk_rand64(seed, 5) != wk_rand64(seed ^ 1, 5),
          "wk_rand64 is a function of (seed, i)");
    free(a);
    free(b);
    free(c);
}

static int in_range(const void *x, size_t n, wk_dtype dtype, long double lo, long double hi,
                    int whole)
{
    for (size_t i = 0; i < n; i++) {
        long double v = wk_ref_load(x, i, dtype);
        if (!(v >= lo && v <= hi) || (whole && v != truncl(v)))
            return 0;
    }
    return 1;
}

static void test_generator_ranges(uint64_t seed)
{
    size_t n = 20000;
    void *x = malloc(n * 8);
    for (int d = 0; d < WK_DTYPE_COUNT; d++) {
        wk_dtype dtype = (wk_dtype)d;
        int floating = wk_dtype_is_float(dtype), is_bool = dtype == WK_BOOL;
        int is_unsigned = dtype == WK_U32 || dtype == WK_U64 || dtype == WK_U8 || dtype == WK_U16;
        long double below_one = 1.0L - 0x1p-60L;
        /* Bools are 0 or 1 whatever the pattern; 8-bit positives stop at 100. */
        long double positive_top = is_bool ? 1 : wk_dtype_size(dtype) == 1 ? 100 : 1000;
        wk_generate(x, n, dtype, WK_GEN_SMALL_INTS, seed);
        int ok = is_bool ? in_range(x, n, dtype, 0, 1, 1)
                         : in_range(x, n, dtype, is_unsigned ? 0 : -8, is_unsigned ? 16 : 8, 1);
        wk_generate(x, n, dtype, WK_GEN_POSITIVE, seed);
        ok = ok && (floating ? in_range(x, n, dtype, 0.5L, below_one, 0)
                             : in_range(x, n, dtype, 0, positive_top, 1));
        if (floating) {
            wk_generate(x, n, dtype, WK_GEN_UNIFORM, seed);
            ok = ok && in_range(x, n, dtype, -1.0L, below_one, 0);
        } else {
            /* Integers over their whole range: both ends' neighbourhoods
             * turn up (a bool's two values among 20000 draws certainly). */
            wk_generate(x, n, dtype, WK_GEN_UNIFORM, seed);
            long double lo = wk_ref_load(x, 0, dtype), hi = lo;
            for (size_t i = 1; i < n; i++) {
                long double v = wk_ref_load(x, i, dtype);
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            long double lowest = is_unsigned || is_bool ? 0 : -ldexpl(1.0L, 8 * (int)wk_dtype_size(dtype) - 1);
            long double span = ldexpl(1.0L, 8 * (int)wk_dtype_size(dtype));
            long double slack = is_bool ? 0 : span / 64;
            ok = ok && lo <= lowest + slack && hi >= lowest + (is_bool ? 1 : span - 1) - slack;
        }
        wk_generate(x, n, dtype, WK_GEN_CONSTANT, seed);
        long double first = wk_ref_load(x, 0, dtype);
        ok = ok && in_range(x, n, dtype, first, first, 0);
        wk_checkf(&tally, ok, "generator: %s patterns stay in their documented ranges", wk_dtype_name(dtype));
    }
    free(x);
}

static void test_seed_env(void)
{
    const char *saved = getenv("WK_SEED");
    char *keep = saved ? strcpy(malloc(strlen(saved) + 1), saved) : NULL;
    setenv("WK_SEED", "12345", 1);
    uint64_t a = wk_seed_from_time();
    setenv("WK_SEED", "0xfeedbeef", 1);
    uint64_t b = wk_seed_from_time();
    wk_checkf(&tally, a == 12345 && b == 0xfeedbeef, "WK_SEED overrides the clock (decimal and hex)");
    if (keep)
        setenv("WK_SEED", keep, 1);
    else
        unsetenv("WK_SEED");
    free(keep);
}

int main(void)
{
    uint64_t seed = wk_seeded_start();

    test_half_encode_known();
    test_bf16_encode_known();
    test_decode_known();
    test_round_trip(0);
    test_round_trip(1);
    test_ties_exhaustive(0);
    test_ties_exhaustive(1);
    test_store_rounding();

    test_identities();
    test_int_sum_wrap();
    test_result_size();
    test_nan();
    test_ties();
    test_ties_generated(seed);
    test_signed_zero();
    test_bitwise();
    test_status();
    test_narrow();
    test_narrow_vs_naive(seed);
    test_sum_widens_pairs();
    test_reduce_to_ints();
    test_reduce_to_floats();
    test_reduce_to_status();

    for (int d = WK_F32; d <= WK_BF16; d++)
        test_check_float_sum((wk_dtype)d, seed);
    test_check_specials();
    test_check_exact(seed);
    test_format();

    for (int d = WK_F32; d <= WK_BF16; d++)
        test_sum_vs_naive((wk_dtype)d, seed);
    test_int_vs_naive(seed);

    test_generator_reproducible(seed);
    test_generator_ranges(seed);
    test_seed_env();

    return wk_seeded_finish(seed, &tally);
}
