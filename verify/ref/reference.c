/* CPU reference for wk_reduce.
 *
 * Speed matters (tests run it over 2^31+ elements), so the dtype and op are
 * dispatched once per call and each loop below is instantiated per dtype:
 * the kernels are force-inlined and called with a constant element loader,
 * which the compiler then inlines into the loop.
 */
#include "ref/reference.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ref/elements.h"
#include "ref/half.h"
#include "warpkit.h"

/* ------------------------------------------------------------ elements */

static unsigned dtype_bits(wk_dtype dtype) { return (unsigned)wk_dtype_size(dtype) * 8u; }

/* Writes the low bits of an integer pattern as element i of an integer
 * dtype; the conversion to the narrower unsigned type is the wrap. */
static void put_int(void *data, size_t i, wk_dtype dtype, uint64_t bits)
{
    wk_ref_int_put(data, i, wk_dtype_size(dtype), bits);
}

static uint64_t get_int(const void *data, wk_dtype dtype) { return wk_ref_int_get(data, wk_dtype_size(dtype)); }

long double wk_ref_load(const void *data, size_t i, wk_dtype dtype)
{
    switch (dtype) {
    case WK_I32: return (long double)(int64_t)wk_ref_int_i32(data, i);
    case WK_U32: return (long double)wk_ref_int_u32(data, i);
    case WK_I64: return (long double)(int64_t)wk_ref_int_64(data, i);
    case WK_U64: return (long double)wk_ref_int_64(data, i);
    case WK_F32: return wk_ref_float_f32(data, i);
    case WK_F64: return wk_ref_float_f64(data, i);
    case WK_F16: return wk_ref_float_f16(data, i);
    case WK_BF16: return wk_ref_float_bf16(data, i);
    case WK_BOOL: case WK_U8: return (long double)wk_ref_int_u8(data, i);
    case WK_I8: return (long double)(int64_t)wk_ref_int_i8(data, i);
    case WK_I16: return (long double)(int64_t)wk_ref_int_i16(data, i);
    case WK_U16: return (long double)wk_ref_int_u16(data, i);
    }
    return NAN;
}

/* v truncated toward zero and reduced modulo 2^64. Every step is exact:
 * long double holds all integers below 2^64. */
static uint64_t wrap_u64(long double v)
{
    if (!isfinite(v))
        return 0;
    long double m = fmodl(truncl(v), 0x1p64L);
    if (m < 0)
        m += 0x1p64L;
    return (uint64_t)m;
}

/* Rounds v to float toward zero and sets the last bit if that was inexact
 * ("round to odd"). Rounding this once more, to a format with at least two
 * fewer significant bits (f16, bf16), gives the same result as rounding v
 * directly, which spares f16 / bf16 stores a double rounding. */
static float float_round_to_odd(long double v)
{
    float f = (float)v;
    if (isnan(v) || isinf(f) || (long double)f == v)
        return f;
    if (fabsl((long double)f) > fabsl(v))
        f = nextafterf(f, 0.0f);
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits |= 1u;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void wk_ref_store(void *data, size_t i, wk_dtype dtype, long double v)
{
    switch (dtype) {
    case WK_I32: case WK_U32: case WK_I64: case WK_U64:
    case WK_BOOL: case WK_U8: case WK_I8: case WK_I16: case WK_U16:
        put_int(data, i, dtype, wrap_u64(v));
        break;
    case WK_F32: ((float *)data)[i] = (float)v; break;
    case WK_F64: ((double *)data)[i] = (double)v; break;
    case WK_F16: ((uint16_t *)data)[i] = wk_float_to_half(float_round_to_odd(v)); break;
    case WK_BF16: ((uint16_t *)data)[i] = wk_float_to_bf16(float_round_to_odd(v)); break;
    }
}

/* -------------------------------------------------------------- kernels */

/* Float sums run in blocks of SUM_BLOCK elements; block sums add into a
 * mid-level sum that flushes every SUM_BLOCK blocks. With the 4 independent
 * accumulators per block (for throughput), the rounding depth stays about
 * SUM_BLOCK / 4 + SUM_BLOCK + n / SUM_BLOCK^2 additions at 2^-64 each, far
 * below the GPU's float or double error that the check tolerates. */
#define SUM_BLOCK ((size_t)1024)

typedef struct float_sums {
    long double sum;
    long double abs_sum;
} float_sums;

/* sum|x| only scales a tolerance, so double is precise enough for it, and
 * keeping it out of the x87 registers leaves them to the four long double
 * accumulators (more would spill to memory, which costs several times the
 * additions). Only f64 inputs near DBL_MAX can overflow it; such a block is
 * summed again in long double. */
WK_REF_KERNEL long double long_abs_sum(const void *in, size_t begin, size_t end, wk_ref_float_loader load)
{
    long double a = 0;
    for (size_t i = begin; i < end; i++)
        a += fabs(load(in, i));
    return a;
}

WK_REF_KERNEL float_sums block_sums_long(const void *in, size_t begin, size_t end, wk_ref_float_loader load)
{
    long double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    double a0 = 0, a1 = 0;
    size_t i = begin;
    for (; i + 4 <= end; i += 4) {
        double x0 = load(in, i), x1 = load(in, i + 1);
        double x2 = load(in, i + 2), x3 = load(in, i + 3);
        s0 += x0;
        s1 += x1;
        s2 += x2;
        s3 += x3;
        a0 += fabs(x0) + fabs(x1);
        a1 += fabs(x2) + fabs(x3);
    }
    for (; i < end; i++) {
        double x = load(in, i);
        s0 += x;
        a0 += fabs(x);
    }
    float_sums r = {(s0 + s1) + (s2 + s3), (long double)a0 + a1};
    if (isinf(r.abs_sum))
        r.abs_sum = long_abs_sum(in, begin, end, load);
    return r;
}

/* f16 values are multiples of 2^-24 below 2^16 in magnitude, so any sum of
 * up to 2^13 of them is a multiple of 2^-24 below 2^29: 53 bits, exact in
 * double. This block sum is therefore exact, and spares the slow moves of
 * decoded values into x87 registers. */
WK_REF_KERNEL float_sums block_sums_f16(const void *in, size_t begin, size_t end, wk_ref_float_loader load)
{
    double s0 = 0, s1 = 0, a0 = 0, a1 = 0;
    size_t i = begin;
    for (; i + 2 <= end; i += 2) {
        double x0 = load(in, i), x1 = load(in, i + 1);
        s0 += x0;
        s1 += x1;
        a0 += fabs(x0);
        a1 += fabs(x1);
    }
    if (i < end) {
        s0 += load(in, i);
        a0 += fabs(load(in, i));
    }
    float_sums r = {(long double)s0 + s1, (long double)a0 + a1};
    return r;
}

WK_REF_KERNEL float_sums float_sum(const void *in, size_t n, wk_ref_float_loader load, int f16_exact)
{
    const size_t outer = SUM_BLOCK * SUM_BLOCK;
    float_sums total = {0, 0};
    for (size_t o = 0; o < n; o += outer) {
        size_t o_end = n - o < outer ? n : o + outer;
        float_sums mid = {0, 0};
        for (size_t b = o; b < o_end; b += SUM_BLOCK) {
            size_t b_end = o_end - b < SUM_BLOCK ? o_end : b + SUM_BLOCK;
            float_sums blk = f16_exact ? block_sums_f16(in, b, b_end, load)
                                       : block_sums_long(in, b, b_end, load);
            mid.sum += blk.sum;
            mid.abs_sum += blk.abs_sum;
        }
        total.sum += mid.sum;
        total.abs_sum += mid.abs_sum;
    }
    return total;
}

WK_REF_KERNEL uint64_t int_sum(const void *in, size_t n, wk_ref_int_loader load)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += load(in, i);
    return s;
}

/* Index of the first minimum of load(i) ^ mask in unsigned order. With the
 * right mask this is the first min or max of any integer dtype: the sign
 * flip orders signed values, inverting all bits turns a max into a min. */
WK_REF_KERNEL size_t int_extreme(const void *in, size_t n, wk_ref_int_loader load, uint64_t mask)
{
    uint64_t best = load(in, 0) ^ mask;
    size_t at = 0;
    for (size_t i = 1; i < n; i++) {
        uint64_t k = load(in, i) ^ mask;
        if (k < best) {
            best = k;
            at = i;
        }
    }
    return at;
}

/* Index of the first NaN, else of the first minimum of sign * x: sign -1
 * finds the maximum (negation is exact, keeps NaN NaN, and keeps -0 == +0). */
WK_REF_KERNEL size_t float_extreme(const void *in, size_t n, wk_ref_float_loader load, double sign)
{
    double best = sign * load(in, 0);
    if (isnan(best))
        return 0;
    size_t at = 0;
    for (size_t i = 1; i < n; i++) {
        double k = sign * load(in, i);
        if (k < best) {
            best = k;
            at = i;
        } else if (k != k) {
            return i;
        }
    }
    return at;
}

WK_REF_KERNEL uint64_t int_bitwise(const void *in, size_t n, wk_ref_int_loader load, wk_op op)
{
    uint64_t acc = op == WK_AND ? UINT64_MAX : 0;
    if (op == WK_AND)
        for (size_t i = 0; i < n; i++)
            acc &= load(in, i);
    else if (op == WK_OR)
        for (size_t i = 0; i < n; i++)
            acc |= load(in, i);
    else
        for (size_t i = 0; i < n; i++)
            acc ^= load(in, i);
    return acc;
}

/* ------------------------------------------------------------- dispatch */

/* What a reduce computed, before it is laid out as a result: the element
 * index for MIN / MAX / ARG*, the bit pattern for integer SUM and bitwise
 * ops, the long double sums for float SUM. */
typedef struct outcome {
    size_t index;
    uint64_t bits;
    float_sums sums;
} outcome;

static int op_wants_max(wk_op op) { return op == WK_MAX || op == WK_ARGMAX; }

WK_REF_KERNEL void int_outcome(const void *in, size_t n, wk_op op, wk_ref_int_loader load,
                               uint64_t order_flip, outcome *o)
{
    if (op == WK_SUM)
        o->bits = int_sum(in, n, load);
    else if (wk_op_is_bitwise(op))
        o->bits = int_bitwise(in, n, load, op);
    else
        o->index = int_extreme(in, n, load, op_wants_max(op) ? ~order_flip : order_flip);
}

WK_REF_KERNEL void float_outcome(const void *in, size_t n, wk_op op, wk_ref_float_loader load,
                                 int f16_exact, outcome *o)
{
    if (op == WK_SUM) {
        o->sums = float_sum(in, n, load, f16_exact);
        return;
    }
    o->index = float_extreme(in, n, load, op_wants_max(op) ? -1.0 : 1.0);
    /* MIN / MAX take -0.0 below +0.0 (IEEE 754-2019 minimum / maximum);
     * ARGMIN / ARGMAX let the two zeros tie, so the first stays. */
    if ((op == WK_MIN || op == WK_MAX) && load(in, o->index) == 0.0)
        for (size_t i = 0; i < n; i++) {
            double x = load(in, i);
            if (x == 0.0 && (signbit(x) != 0) == (op == WK_MIN)) {
                o->index = i;
                break;
            }
        }
}

/* n > 0, arguments already validated. */
static void compute_outcome(const void *in, size_t n, wk_dtype dtype, wk_op op, outcome *o)
{
    memset(o, 0, sizeof *o);
    switch (dtype) {
    case WK_I32: int_outcome(in, n, op, wk_ref_int_i32, WK_REF_SIGNED_ORDER_FLIP, o); break;
    case WK_U32: int_outcome(in, n, op, wk_ref_int_u32, 0, o); break;
    case WK_I64: int_outcome(in, n, op, wk_ref_int_64, WK_REF_SIGNED_ORDER_FLIP, o); break;
    case WK_U64: int_outcome(in, n, op, wk_ref_int_64, 0, o); break;
    case WK_F32: float_outcome(in, n, op, wk_ref_float_f32, 0, o); break;
    case WK_F64: float_outcome(in, n, op, wk_ref_float_f64, 0, o); break;
    case WK_F16: float_outcome(in, n, op, wk_ref_float_f16, 1, o); break;
    case WK_BF16: float_outcome(in, n, op, wk_ref_float_bf16, 0, o); break;
    case WK_BOOL: case WK_U8: int_outcome(in, n, op, wk_ref_int_u8, 0, o); break;
    case WK_I8: int_outcome(in, n, op, wk_ref_int_i8, WK_REF_SIGNED_ORDER_FLIP, o); break;
    case WK_I16: int_outcome(in, n, op, wk_ref_int_i16, WK_REF_SIGNED_ORDER_FLIP, o); break;
    case WK_U16: int_outcome(in, n, op, wk_ref_int_u16, 0, o); break;
    }
}

wk_status wk_ref_dtype_op_status(wk_dtype dtype, wk_op op)
{
    if (!wk_dtype_valid((int)dtype))
        return WK_ERROR_INVALID_DTYPE;
    if (!wk_op_valid((int)op))
        return WK_ERROR_INVALID_OP;
    if (wk_op_is_bitwise(op) && wk_dtype_is_float(dtype))
        return WK_ERROR_UNSUPPORTED;
    /* A sum of bools has no bool result: wk_reduce_to counts them. */
    if (dtype == WK_BOOL && op == WK_SUM)
        return WK_ERROR_UNSUPPORTED;
    return WK_SUCCESS;
}

static wk_status validate(const void *in, size_t n, wk_dtype dtype, wk_op op, const void *out)
{
    wk_status st = wk_ref_dtype_op_status(dtype, op);
    if (st != WK_SUCCESS)
        return st;
    if (!out || (!in && n > 0))
        return WK_ERROR_INVALID_ARGUMENT;
    return WK_SUCCESS;
}

/* -------------------------------------------------------------- results */

static void write_arg(wk_dtype dtype, const void *value, int64_t index, void *out)
{
    wk_arg_result r;
    memset(&r, 0, sizeof r);
    memcpy(&r.value, value, wk_dtype_size(dtype));
    r.index = index;
    memcpy(out, &r, sizeof r);
}

/* The identity of MIN (want_max 0) or MAX (1) as one element of dtype. A
 * bool's largest value is 1 (MIN is "all", true for no elements), its
 * lowest 0. */
static void extreme_identity(wk_dtype dtype, int want_max, void *out)
{
    if (wk_dtype_is_float(dtype)) {
        wk_ref_store(out, 0, dtype, want_max ? -INFINITY : INFINITY);
        return;
    }
    uint64_t top = UINT64_C(1) << (dtype_bits(dtype) - 1);
    uint64_t bits;
    if (dtype == WK_BOOL)
        bits = want_max ? 0 : 1;
    else if (wk_ref_is_signed_int(dtype))
        bits = want_max ? top : top - 1u;
    else
        bits = want_max ? 0 : UINT64_MAX;
    put_int(out, 0, dtype, bits);
}

void wk_ref_identity(wk_dtype dtype, wk_op op, void *out)
{
    if (!out || !wk_dtype_valid((int)dtype) || !wk_op_valid((int)op))
        return;
    wk_value v;
    memset(&v, 0, sizeof v);
    if (op == WK_MIN || op == WK_MAX || wk_op_is_arg(op))
        extreme_identity(dtype, op_wants_max(op), &v);
    else if (op == WK_AND && !wk_dtype_is_float(dtype))
        put_int(&v, 0, dtype, dtype == WK_BOOL ? 1 : UINT64_MAX); /* a bool's AND is "all" */
    if (wk_op_is_arg(op))
        write_arg(dtype, &v, -1, out);
    else
        memcpy(out, &v, wk_dtype_size(dtype));
}

static void write_result(const void *in, wk_dtype dtype, wk_op op, const outcome *o, void *out)
{
    const void *elem = (const char *)in + o->index * wk_dtype_size(dtype);
    if (wk_op_is_arg(op))
        write_arg(dtype, elem, (int64_t)o->index, out);
    else if (op == WK_MIN || op == WK_MAX)
        memcpy(out, elem, wk_dtype_size(dtype));
    else if (wk_dtype_is_float(dtype))
        wk_ref_store(out, 0, dtype, o->sums.sum);
    else
        put_int(out, 0, dtype, o->bits);
}

wk_status wk_ref_reduce(const void *h_in, size_t n, wk_dtype dtype, wk_op op, void *h_out)
{
    wk_status st = validate(h_in, n, dtype, op, h_out);
    if (st != WK_SUCCESS)
        return st;
    if (n == 0) {
        wk_ref_identity(dtype, op, h_out);
        return WK_SUCCESS;
    }
    outcome o;
    compute_outcome(h_in, n, dtype, op, &o);
    /* Through an aligned local, since h_out need not be aligned to 8 for
     * non-arg results and put_int / wk_ref_store write typed values. */
    wk_arg_result r;
    write_result(h_in, dtype, op, &o, &r);
    memcpy(h_out, &r, wk_reduce_result_size(dtype, op));
    return WK_SUCCESS;
}

/* ------------------------------------------------------------ formatting */

static int format_value(wk_dtype dtype, const void *v, char *buf, size_t size)
{
    uint16_t h;
    switch (dtype) {
    case WK_I32: return snprintf(buf, size, "%" PRId32, *(const int32_t *)v);
    case WK_U32: return snprintf(buf, size, "%" PRIu32, *(const uint32_t *)v);
    case WK_I64: return snprintf(buf, size, "%" PRId64, *(const int64_t *)v);
    case WK_U64: return snprintf(buf, size, "%" PRIu64, *(const uint64_t *)v);
    /* A bool as its byte: 0 or 1, or the stray value a wrong one holds. */
    case WK_BOOL: case WK_U8: return snprintf(buf, size, "%u", (unsigned)*(const uint8_t *)v);
    case WK_I8: return snprintf(buf, size, "%d", (int)*(const int8_t *)v);
    case WK_I16: return snprintf(buf, size, "%d", (int)*(const int16_t *)v);
    case WK_U16: return snprintf(buf, size, "%u", (unsigned)*(const uint16_t *)v);
    /* Digits enough to tell neighbouring values apart. */
    case WK_F32: return snprintf(buf, size, "%.9g", *(const float *)v);
    case WK_F64: return snprintf(buf, size, "%.17g", *(const double *)v);
    case WK_F16:
        h = *(const uint16_t *)v;
        return snprintf(buf, size, "%.5g (0x%04x)", wk_half_to_float(h), (unsigned)h);
    case WK_BF16:
        h = *(const uint16_t *)v;
        return snprintf(buf, size, "%.4g (0x%04x)", wk_bf16_to_float(h), (unsigned)h);
    }
    return snprintf(buf, size, "?");
}

void wk_ref_format(wk_dtype dtype, wk_op op, const void *result, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    if (!result || !wk_dtype_valid((int)dtype) || !wk_op_valid((int)op)) {
        snprintf(buf, size, "?");
        return;
    }
    wk_arg_result r;
    memcpy(&r, result, wk_reduce_result_size(dtype, op));
    int len = format_value(dtype, &r.value, buf, size);
    if (wk_op_is_arg(op) && len >= 0 && (size_t)len < size)
        snprintf(buf + len, size - (size_t)len, "@%" PRId64, r.index);
}

/* ------------------------------------------------------------- checking */

/* Unit roundoff of a float sum's accumulator and of its output dtype. */
static long double acc_unit_roundoff(wk_dtype dtype) { return dtype == WK_F64 ? 0x1p-53L : 0x1p-24L; }

/* What the final rounding to a float output dtype can do to a sum:
 *  - unit_roundoff: its relative error;
 *  - underflow_error: half the least subnormal, the absolute error where
 *    unit_roundoff * |ref| does not bound it (tiny results); sums in the
 *    accumulator need no such term, additions that underflow are exact;
 *  - overflow_threshold: the smallest magnitude that rounds to infinity,
 *    the largest finite value plus half its ulp. */
typedef struct out_rounding {
    long double unit_roundoff, underflow_error, overflow_threshold;
} out_rounding;

static out_rounding out_rounding_of(wk_dtype dtype)
{
    static const out_rounding f16 = {0x1p-11L, 0x1p-25L, 65520.0L};
    static const out_rounding bf16 = {0x1p-8L, 0x1p-134L, 0x1p128L - 0x1p119L};
    static const out_rounding f32 = {0x1p-24L, 0x1p-150L, 0x1p128L - 0x1p103L};
    static const out_rounding f64 = {0x1p-53L, 0x1p-1075L, 0x1p1024L - 0x1p970L};
    static const out_rounding other = {0, 0, INFINITY};
    switch (dtype) {
    case WK_F16: return f16;
    case WK_BF16: return bf16;
    case WK_F32: return f32;
    case WK_F64: return f64;
    default: return other;
    }
}

static long double accumulation_error(wk_dtype dtype, size_t depth, long double abs_sum)
{
    return (long double)depth * acc_unit_roundoff(dtype) * abs_sum;
}

static long double sum_tolerance(wk_dtype dtype, size_t depth, long double abs_sum, long double ref)
{
    out_rounding r = out_rounding_of(dtype);
    return accumulation_error(dtype, depth, abs_sum) + r.unit_roundoff * fabsl(ref) + r.underflow_error;
}

double wk_ref_sum_tolerance(wk_dtype dtype, size_t depth, long double abs_sum, long double ref)
{
    if (!wk_dtype_valid((int)dtype) || !wk_dtype_is_float(dtype))
        return 0;
    return (double)sum_tolerance(dtype, depth, abs_sum, ref);
}

/* Infinities and NaN are not bounded by a tolerance: a NaN reference needs
 * NaN, an infinite one the same infinity. A finite reference overflows the
 * output dtype when the GPU's accumulated value, within the accumulation
 * error of it, reaches the overflow threshold: certainly if the whole error
 * interval lies beyond it (then only the matching infinity passes), possibly
 * if the interval straddles it (then that infinity passes too). */
static int sum_matches(wk_dtype dtype, size_t depth, const float_sums *s, long double got,
                       long double tol, const char **rule)
{
    long double ref = s->sum;
    if (isnan(ref) || isnan(got)) {
        *rule = "a NaN sum needs NaN";
        return isnan(ref) && isnan(got);
    }
    if (isinf(ref)) {
        *rule = "an infinite sum needs the same infinity";
        return got == ref;
    }
    long double limit = out_rounding_of(dtype).overflow_threshold;
    long double acc_err = accumulation_error(dtype, depth, s->abs_sum);
    long double signed_inf = copysignl(INFINITY, ref);
    if (fabsl(ref) - acc_err >= limit) {
        *rule = "the sum overflows the dtype, needs the infinity";
        return got == signed_inf;
    }
    if (isinf(got)) {
        *rule = "infinity only where the accumulator may reach overflow";
        return got == signed_inf && fabsl(ref) + acc_err >= limit;
    }
    *rule = "|diff| <= tol";
    return fabsl(got - ref) <= tol;
}

int wk_ref_sum_matches(wk_dtype dtype, size_t depth, long double ref, long double abs_sum, long double got,
                       double *tol, const char **rule)
{
    const char *ignored;
    float_sums s = {ref, abs_sum};
    long double t = sum_tolerance(dtype, depth, abs_sum, ref);
    if (tol)
        *tol = (double)t;
    return sum_matches(dtype, depth, &s, got, t, rule ? rule : &ignored);
}

/* Exact comparison of two values of dtype: NaN matches NaN and -0 matches
 * +0 (floats compare by value), integers compare by pattern. */
static int values_match(wk_dtype dtype, const void *a, const void *b)
{
    if (!wk_dtype_is_float(dtype))
        return get_int(a, dtype) == get_int(b, dtype);
    long double x = wk_ref_load(a, 0, dtype), y = wk_ref_load(b, 0, dtype);
    return x == y || (isnan(x) && isnan(y));
}

/* A float sum of in (in_dtype) kept as dtype: in_dtype == dtype for
 * wk_reduce, a wider dtype for wk_reduce_to, whose accumulator is dtype's
 * (f32 for f16 / bf16 inputs, f64 for f32 ones). */
static int check_float_sum(const void *in, size_t n, wk_dtype in_dtype, wk_dtype dtype, size_t depth,
                           const wk_arg_result *got, const char *head, char *msg, size_t msg_size)
{
    float_sums s = {0, 0};
    if (n > 0) {
        outcome o;
        compute_outcome(in, n, in_dtype, WK_SUM, &o);
        s = o.sums;
    }
    wk_value expected;
    wk_ref_store(&expected, 0, dtype, s.sum);
    long double g = wk_ref_load(got, 0, dtype);
    long double tol = sum_tolerance(dtype, depth, s.abs_sum, s.sum);
    const char *rule;
    int ok = sum_matches(dtype, depth, &s, g, tol, &rule);

    char e_txt[64], g_txt[64];
    wk_ref_format(dtype, WK_SUM, &expected, e_txt, sizeof e_txt);
    wk_ref_format(dtype, WK_SUM, got, g_txt, sizeof g_txt);
    snprintf(msg, msg_size,
             "%s: expected %s (exact %.21Lg) got %s, |diff| %.3Lg vs tol %.3Lg "
             "(depth %zu, sum|x| %.6Lg): %s (rule: %s)",
             head, e_txt, s.sum, g_txt, fabsl(g - s.sum), tol, depth, s.abs_sum,
             ok ? "ok" : "MISMATCH", rule);
    return ok;
}

static int check_exact(const void *in, size_t n, wk_dtype dtype, wk_op op,
                       const wk_arg_result *got, const char *head, char *msg, size_t msg_size)
{
    wk_arg_result expected;
    wk_ref_reduce(in, n, dtype, op, &expected);
    int ok = values_match(dtype, &expected.value, &got->value);
    /* A zero from MIN / MAX must carry the sign those ops give it. */
    if (ok && (op == WK_MIN || op == WK_MAX) && wk_dtype_is_float(dtype)) {
        double e = wk_ref_load(&expected.value, 0, dtype), g = wk_ref_load(&got->value, 0, dtype);
        ok = e != 0.0 || signbit(e) == signbit(g);
    }
    if (wk_op_is_arg(op)) {
        ok = ok && expected.index == got->index;
        /* The value must be that element's own bits (so -0 and +0 are told
         * apart here); only f16 / bf16 NaNs come back canonical. */
        if (ok && got->index >= 0) {
            size_t size = wk_dtype_size(dtype);
            const char *element = (const char *)in + (size_t)got->index * size;
            int half_nan = (dtype == WK_F16 || dtype == WK_BF16) && isnan(wk_ref_load(element, 0, dtype));
            ok = half_nan || memcmp(element, &got->value, size) == 0;
        }
    }

    char e_txt[80], g_txt[80];
    wk_ref_format(dtype, op, &expected, e_txt, sizeof e_txt);
    wk_ref_format(dtype, op, got, g_txt, sizeof g_txt);
    snprintf(msg, msg_size, "%s: expected %s got %s (exact): %s", head, e_txt, g_txt,
             ok ? "ok" : "MISMATCH");
    return ok;
}

int wk_ref_check_reduce(const void *h_in, size_t n, wk_dtype dtype, wk_op op, size_t depth,
                        const void *got, char *msg, size_t msg_size)
{
    char scratch[1];
    if (!msg || msg_size == 0) {
        msg = scratch;
        msg_size = sizeof scratch;
    }
    wk_status st = validate(h_in, n, dtype, op, got);
    if (st != WK_SUCCESS) {
        snprintf(msg, msg_size, "%s %s n=%zu: cannot check: %s", wk_dtype_name(dtype),
                 wk_op_name(op), n, wk_status_string(st));
        return 0;
    }
    char head[64];
    snprintf(head, sizeof head, "%s %s n=%zu", wk_dtype_name(dtype), wk_op_name(op), n);

    wk_arg_result g;
    memset(&g, 0, sizeof g);
    memcpy(&g, got, wk_reduce_result_size(dtype, op));
    if (op == WK_SUM && wk_dtype_is_float(dtype))
        return check_float_sum(h_in, n, dtype, dtype, depth, &g, head, msg, msg_size);
    return check_exact(h_in, n, dtype, op, &g, head, msg, msg_size);
}

/* ------------------------------------------------------------ widening */

int wk_ref_sum_widens(int in, int out)
{
    if (!wk_dtype_valid(in) || !wk_dtype_valid(out))
        return 0;
    if (in == out)
        return in != WK_BOOL;
    switch (in) {
    case WK_BOOL: case WK_U8: case WK_I8: case WK_I16: case WK_U16:
        return out == WK_I32 || out == WK_U32 || out == WK_I64 || out == WK_U64;
    case WK_I32: case WK_U32: return out == WK_I64 || out == WK_U64;
    case WK_F16: case WK_BF16: return out == WK_F32;
    case WK_F32: return out == WK_F64;
    default: return 0;
    }
}

wk_status wk_ref_reduce_to_status(wk_dtype in_dtype, wk_dtype out_dtype)
{
    if (!wk_dtype_valid((int)in_dtype) || !wk_dtype_valid((int)out_dtype))
        return WK_ERROR_INVALID_DTYPE;
    if (!wk_ref_sum_widens((int)in_dtype, (int)out_dtype))
        return WK_ERROR_UNSUPPORTED;
    return WK_SUCCESS;
}

static wk_status reduce_to_validate(const void *in, size_t n, wk_dtype in_dtype, wk_dtype out_dtype, const void *out)
{
    wk_status st = wk_ref_reduce_to_status(in_dtype, out_dtype);
    if (st != WK_SUCCESS)
        return st;
    if (!out || (!in && n > 0))
        return WK_ERROR_INVALID_ARGUMENT;
    return WK_SUCCESS;
}

/* The sum of in[0 .. n) as out_dtype's value, into an aligned local:
 * integers from the 64-bit sum of the loaded patterns (zero- or
 * sign-extended, so exact modulo 2^64 and so modulo 2^bits of out_dtype),
 * floats as the long double sum rounded once. *sums gets the float sums. */
static void widened_sum(const void *in, size_t n, wk_dtype in_dtype, wk_dtype out_dtype, wk_value *v,
                        float_sums *sums)
{
    memset(v, 0, sizeof *v);
    sums->sum = sums->abs_sum = 0;
    outcome o;
    memset(&o, 0, sizeof o);
    if (n > 0)
        compute_outcome(in, n, in_dtype, WK_SUM, &o);
    if (wk_dtype_is_float(out_dtype)) {
        *sums = o.sums;
        wk_ref_store(v, 0, out_dtype, o.sums.sum);
    } else {
        put_int(v, 0, out_dtype, o.bits);
    }
}

wk_status wk_ref_reduce_to(const void *h_in, size_t n, wk_dtype in_dtype, wk_dtype out_dtype, void *h_out)
{
    wk_status st = reduce_to_validate(h_in, n, in_dtype, out_dtype, h_out);
    if (st != WK_SUCCESS)
        return st;
    wk_value v;
    float_sums sums;
    widened_sum(h_in, n, in_dtype, out_dtype, &v, &sums);
    memcpy(h_out, &v, wk_dtype_size(out_dtype));
    return WK_SUCCESS;
}

wk_status wk_ref_reduce_to_sums(const void *h_in, size_t n, wk_dtype in_dtype, wk_dtype out_dtype,
                                long double *sum, long double *abs_sum)
{
    wk_status st = reduce_to_validate(h_in, n, in_dtype, out_dtype, sum);
    if (st == WK_SUCCESS && (!abs_sum || !wk_dtype_is_float(out_dtype)))
        st = WK_ERROR_INVALID_ARGUMENT;
    if (st != WK_SUCCESS)
        return st;
    wk_value v;
    float_sums sums;
    widened_sum(h_in, n, in_dtype, out_dtype, &v, &sums);
    *sum = sums.sum;
    *abs_sum = sums.abs_sum;
    return WK_SUCCESS;
}

int wk_ref_check_reduce_to(const void *h_in, size_t n, wk_dtype in_dtype, wk_dtype out_dtype, size_t depth,
                           const void *got, char *msg, size_t msg_size)
{
    char scratch[1];
    if (!msg || msg_size == 0) {
        msg = scratch;
        msg_size = sizeof scratch;
    }
    wk_status st = reduce_to_validate(h_in, n, in_dtype, out_dtype, got);
    if (st != WK_SUCCESS) {
        snprintf(msg, msg_size, "%s sum as %s n=%zu: cannot check: %s", wk_dtype_name(in_dtype),
                 wk_dtype_name(out_dtype), n, wk_status_string(st));
        return 0;
    }
    if (in_dtype == out_dtype)
        return wk_ref_check_reduce(h_in, n, in_dtype, WK_SUM, depth, got, msg, msg_size);
    char head[64];
    snprintf(head, sizeof head, "%s sum as %s n=%zu", wk_dtype_name(in_dtype), wk_dtype_name(out_dtype), n);
    wk_arg_result g;
    memset(&g, 0, sizeof g);
    memcpy(&g, got, wk_dtype_size(out_dtype));
    if (wk_dtype_is_float(out_dtype))
        return check_float_sum(h_in, n, in_dtype, out_dtype, depth, &g, head, msg, msg_size);

    wk_value expected;
    float_sums unused;
    widened_sum(h_in, n, in_dtype, out_dtype, &expected, &unused);
    int ok = values_match(out_dtype, &expected, &g.value);
    char e_txt[64], g_txt[64];
    wk_ref_format(out_dtype, WK_SUM, &expected, e_txt, sizeof e_txt);
    wk_ref_format(out_dtype, WK_SUM, &g, g_txt, sizeof g_txt);
    snprintf(msg, msg_size, "%s: expected %s got %s (exact): %s", head, e_txt, g_txt, ok ? "ok" : "MISMATCH");
    return ok;
}
