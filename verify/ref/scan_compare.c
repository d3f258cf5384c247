/* wk_ref_check_scan: every output of a GPU scan against the exact prefix.
 *
 * Each rule has a loop of its own, instantiated per dtype with an inlined
 * loader, that carries the prefix along as it compares (no reference array:
 * the checks walk inputs of 2^31+ elements). Float sums carry the exact
 * prefix in a wk_ref_exact_sum: a double-double (hi + lo, TwoSum), good to
 * about 2^-100 of sum |x|, that moves to long double only if a double would
 * overflow (f64 data near DBL_MAX).
 */
#include "ref/scan_reference.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "warpkit.h"
#include "ref/reference.h"
#include "ref/scan_elements.h"

typedef enum rule { RULE_EXACT, RULE_EXACT_SUMS, RULE_TOLERANCE } rule;

static const char *rule_name(rule r)
{
    switch (r) {
    case RULE_EXACT: return "exact";
    case RULE_EXACT_SUMS: return "exact rule: integer sums that fit the accumulator";
    case RULE_TOLERANCE: return "tolerance";
    }
    return "?";
}

typedef struct mismatch {
    size_t index;
    wk_value expected, got;
    int has_tol;       /* a tolerance-path sum: exact, tol and depth are set */
    long double exact; /* the exact prefix                                 */
    double tol;
    size_t depth;
} mismatch;

typedef struct check_state {
    const wk_ref_scan_spec *spec;
    const wk_tile_plan *plan;
    const void *got;
    size_t elem;
    rule rule;
    size_t bad;
    double worst; /* tolerance path: largest |diff| / tol */
    mismatch shown[WK_REF_SCAN_SHOWN];
} check_state;

/* Records output i as a mismatch; the first few keep their details. */
static mismatch *note(check_state *s, size_t i)
{
    if (s->bad++ >= WK_REF_SCAN_SHOWN)
        return NULL;
    mismatch *m = &s->shown[s->bad - 1];
    memset(m, 0, sizeof *m);
    m->index = i;
    memcpy(&m->got, (const char *)s->got + i * s->elem, s->elem);
    return m;
}

static void note_int(check_state *s, size_t i, uint64_t expected)
{
    mismatch *m = note(s, i);
    if (m)
        wk_ref_int_put(&m->expected, 0, s->elem, expected);
}

static void note_float(check_state *s, size_t i, long double expected)
{
    mismatch *m = note(s, i);
    if (m)
        wk_ref_store(&m->expected, 0, s->spec->dtype, expected);
}

static void note_sum(check_state *s, size_t i, long double exact, double tol, size_t depth)
{
    mismatch *m = note(s, i);
    if (!m)
        return;
    wk_ref_store(&m->expected, 0, s->spec->dtype, exact);
    m->has_tol = 1;
    m->exact = exact;
    m->tol = tol;
    m->depth = depth;
}

/* ------------------------------------------------------------ integers */

WK_REF_KERNEL uint64_t int_combine(uint64_t acc, uint64_t x, wk_op op, uint64_t order)
{
    switch (op) {
    case WK_SUM: return acc + x;
    case WK_AND: return acc & x;
    case WK_OR: return acc | x;
    case WK_XOR: return acc ^ x;
    default: return (x ^ order) < (acc ^ order) ? x : acc;
    }
}

/* mask keeps the dtype's bits: a sum's carries above them are the wrap. */
WK_REF_KERNEL void check_ints(check_state *s, const void *in, size_t n, wk_ref_int_loader load, uint64_t mask)
{
    const wk_ref_scan_spec *spec = s->spec;
    wk_op op = spec->op;
    uint64_t order = wk_ref_is_signed_int(spec->dtype) ? WK_REF_SIGNED_ORDER_FLIP : 0;
    if (op == WK_MAX)
        order = ~order;
    /* The identity: ~order is the largest under the order, so min / max
     * take the first element; all ones for AND; 0 for the others. */
    uint64_t acc = op == WK_MIN || op == WK_MAX ? ~order : op == WK_AND ? ~UINT64_C(0) : 0;
    if (spec->exclusive)
        acc = load(&spec->init, 0);
    const void *got = s->got;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = load(in, i);
        if (!spec->exclusive)
            acc = int_combine(acc, x, op, order);
        if ((load(got, i) ^ acc) & mask)
            note_int(s, i, acc);
        if (spec->exclusive)
            acc = int_combine(acc, x, op, order);
    }
}

/* -------------------------------------------------------- float min / max */

/* Equal values, and zeros of the same sign, or both NaN. */
WK_REF_KERNEL int same_value(double a, double b)
{
    return (a == b && (a != 0.0 || signbit(a) == signbit(b))) || (a != a && b != b);
}

/* x replaces acc as the running minimum (maximum): smaller (larger), the
 * first NaN, or the zero that IEEE 754-2019 minimum (maximum) prefers. */
WK_REF_KERNEL int replaces(double x, double acc, int is_min)
{
    if (acc != acc)
        return 0;
    if (x != x)
        return 1;
    if (x == 0.0 && acc == 0.0)
        return is_min ? signbit(x) && !signbit(acc) : !signbit(x) && signbit(acc);
    return is_min ? x < acc : x > acc;
}

WK_REF_KERNEL void check_extremes(check_state *s, const void *in, size_t n, wk_ref_float_loader load)
{
    const wk_ref_scan_spec *spec = s->spec;
    int is_min = spec->op == WK_MIN;
    double acc = spec->exclusive ? load(&spec->init, 0) : is_min ? INFINITY : -INFINITY;
    const void *got = s->got;
    for (size_t i = 0; i < n; i++) {
        double x = load(in, i);
        /* NaN from the first NaN on; -0 below +0. */
        if (!spec->exclusive && replaces(x, acc, is_min))
            acc = x;
        if (!same_value(load(got, i), acc))
            note_float(s, i, acc);
        if (spec->exclusive && replaces(x, acc, is_min))
            acc = x;
    }
}

/* -------------------------------------------------- float sums, exact rule */

typedef double (*rounder)(double);
static inline double round_f32(double v) { return (float)v; }
static inline double round_f64(double v) { return v; }
static inline double round_f16(double v) { return wk_half_to_float(wk_float_to_half((float)v)); }
static inline double round_bf16(double v) { return wk_bf16_to_float(wk_float_to_bf16((float)v)); }

/* Under the exact rule every prefix is an integer of magnitude at most 2^24
 * (2^53 for f64): exact in double, and in float where it is to be rounded
 * to f16 / bf16 (so that rounding is the only one). */
WK_REF_KERNEL void check_sums_exact(check_state *s, const void *in, size_t n, wk_ref_float_loader load,
                                    rounder round)
{
    const wk_ref_scan_spec *spec = s->spec;
    double acc = spec->exclusive ? load(&spec->init, 0) : 0;
    const void *got = s->got;
    for (size_t i = 0; i < n; i++) {
        double x = load(in, i);
        if (!spec->exclusive)
            acc += x;
        double want = round(acc);
        if (load(got, i) != want)
            note_float(s, i, want);
        if (spec->exclusive)
            acc += x;
    }
}

/* -------------------------------------------- float sums, with tolerance */

/* Output i (value g) against the prefix: first in double, where nearly all
 * outputs are decided; what that does not accept (a difference beyond the
 * tolerance, infinities, NaN, overflow) goes to wk_ref_sum_matches. */
static void compare_sum(check_state *s, const wk_ref_exact_sum *e, size_t i, double g, double u_acc, double u_out,
                        double underflow)
{
    size_t depth = wk_ref_scan_depth(s->plan, s->spec, i);
    /* A finite sum |x| means a finite prefix (no infinity or NaN seen). */
    if (!e->wide && isfinite(e->abs)) {
        double tol = (double)depth * u_acc * e->abs + u_out * fabs(e->hi + e->lo) + underflow;
        double diff = fabs((g - e->hi) - e->lo);
        if (diff <= tol) {
            if (diff > s->worst * tol)
                s->worst = diff / tol;
            return;
        }
    }
    double tol;
    long double exact = wk_ref_exact_sum_value(e);
    if (!wk_ref_sum_matches(s->spec->dtype, depth, exact, wk_ref_exact_sum_abs(e), g, &tol, NULL))
        note_sum(s, i, exact, tol, depth);
}

WK_REF_KERNEL void check_sums_tolerance(check_state *s, const void *in, size_t n, wk_ref_float_loader load)
{
    const wk_ref_scan_spec *spec = s->spec;
    wk_dtype dtype = spec->dtype;
    double u_acc = dtype == WK_F64 ? 0x1p-53 : 0x1p-24;
    double u_out = dtype == WK_F64 ? 0x1p-53 : dtype == WK_F32 ? 0x1p-24 : dtype == WK_F16 ? 0x1p-11 : 0x1p-8;
    /* Half the output dtype's least subnormal; 0 for f64, whose is below
     * any double tolerance worth having (wk_ref_sum_matches has it). */
    double underflow = dtype == WK_F16 ? 0x1p-25 : dtype == WK_BF16 ? 0x1p-134 : dtype == WK_F32 ? 0x1p-150 : 0;
    wk_ref_exact_sum e;
    memset(&e, 0, sizeof e);
    const void *got = s->got;
    size_t i = 0;
    if (spec->exclusive) {
        double init = load(&spec->init, 0);
        /* The first output is the init itself. */
        if (n > 0 && !same_value(load(got, 0), init))
            note_float(s, 0, init);
        wk_ref_exact_sum_push(&e, init);
        if (n > 0)
            wk_ref_exact_sum_push(&e, load(in, 0));
        i = 1;
    }
    for (; i < n; i++) {
        if (spec->exclusive) {
            compare_sum(s, &e, i, load(got, i), u_acc, u_out, underflow);
            wk_ref_exact_sum_push(&e, load(in, i));
        } else {
            wk_ref_exact_sum_push(&e, load(in, i));
            compare_sum(s, &e, i, load(got, i), u_acc, u_out, underflow);
        }
    }
}

/* ------------------------------------------------------------- dispatch */

#define FLOAT_DISPATCH(call_f32, call_f64, call_f16, call_bf16)                                   \
    switch (s->spec->dtype) {                                                                    \
    case WK_F32: call_f32; break;                                                                \
    case WK_F64: call_f64; break;                                                                \
    case WK_F16: call_f16; break;                                                                \
    case WK_BF16: call_bf16; break;                                                              \
    default: break;                                                                              \
    }

static void run_checks(check_state *s, const void *in, size_t n)
{
    const wk_ref_scan_spec *spec = s->spec;
    if (!wk_dtype_is_float(spec->dtype)) {
        switch (spec->dtype) {
        case WK_I32: check_ints(s, in, n, wk_ref_int_i32, 0xffffffffu); break;
        case WK_U32: check_ints(s, in, n, wk_ref_int_u32, 0xffffffffu); break;
        case WK_BOOL: case WK_U8: check_ints(s, in, n, wk_ref_int_u8, 0xffu); break;
        case WK_I8: check_ints(s, in, n, wk_ref_int_i8, 0xffu); break;
        case WK_I16: check_ints(s, in, n, wk_ref_int_i16, 0xffffu); break;
        case WK_U16: check_ints(s, in, n, wk_ref_int_u16, 0xffffu); break;
        default: check_ints(s, in, n, wk_ref_int_64, ~UINT64_C(0)); break;
        }
    } else if (spec->op != WK_SUM) {
        FLOAT_DISPATCH(check_extremes(s, in, n, wk_ref_float_f32), check_extremes(s, in, n, wk_ref_float_f64),
                       check_extremes(s, in, n, wk_ref_float_f16), check_extremes(s, in, n, wk_ref_float_bf16))
    } else if (s->rule == RULE_EXACT_SUMS) {
        FLOAT_DISPATCH(check_sums_exact(s, in, n, wk_ref_float_f32, round_f32),
                       check_sums_exact(s, in, n, wk_ref_float_f64, round_f64),
                       check_sums_exact(s, in, n, wk_ref_float_f16, round_f16),
                       check_sums_exact(s, in, n, wk_ref_float_bf16, round_bf16))
    } else {
        FLOAT_DISPATCH(check_sums_tolerance(s, in, n, wk_ref_float_f32),
                       check_sums_tolerance(s, in, n, wk_ref_float_f64),
                       check_sums_tolerance(s, in, n, wk_ref_float_f16),
                       check_sums_tolerance(s, in, n, wk_ref_float_bf16))
    }
}

/* ------------------------------------------------------------- message */

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int append(char *msg, size_t size, int len, const char *fmt, ...)
{
    if (len < 0 || (size_t)len >= size)
        return len;
    va_list ap;
    va_start(ap, fmt);
    int more = vsnprintf(msg + len, size - (size_t)len, fmt, ap);
    va_end(ap);
    return more < 0 ? len : len + more;
}

static void describe(const check_state *s, size_t n, char *msg, size_t size)
{
    const wk_ref_scan_spec *spec = s->spec;
    int len = 0;
    if (s->bad == 0) {
        len = append(msg, size, len, "all %zu outputs match (%s", n, rule_name(s->rule));
        if (s->rule == RULE_TOLERANCE && n > 0)
            len = append(msg, size, len, ", worst |diff|/tol %.3g", s->worst);
        append(msg, size, len, ")");
        return;
    }
    len = append(msg, size, len, "%zu of %zu outputs differ (%s):", s->bad, n, rule_name(s->rule));
    size_t shown = s->bad < WK_REF_SCAN_SHOWN ? s->bad : WK_REF_SCAN_SHOWN;
    for (size_t k = 0; k < shown; k++) {
        const mismatch *m = &s->shown[k];
        char e_txt[64], g_txt[64];
        wk_ref_format(spec->dtype, spec->op, &m->expected, e_txt, sizeof e_txt);
        wk_ref_format(spec->dtype, spec->op, &m->got, g_txt, sizeof g_txt);
        len = append(msg, size, len, "%s [%zu] expected %s got %s", k ? ";" : "", m->index, e_txt, g_txt);
        if (m->has_tol)
            len = append(msg, size, len, " (exact %.21Lg, tol %.3g, depth %zu)", m->exact, m->tol, m->depth);
    }
}

size_t wk_ref_check_scan(const void *h_in, const void *got, size_t n, const wk_ref_scan_spec *spec,
                         const wk_tile_plan *plan, char *msg, size_t msg_size)
{
    char scratch[1];
    if (!msg || msg_size == 0) {
        msg = scratch;
        msg_size = sizeof scratch;
    }
    wk_status st = wk_ref_scan_validate(h_in, got, n, spec);
    if (st != WK_SUCCESS) {
        snprintf(msg, msg_size, "cannot check: %s", wk_status_string(st));
        return WK_REF_SCAN_INVALID;
    }
    check_state s;
    memset(&s, 0, sizeof s);
    s.spec = spec;
    s.plan = plan;
    s.got = got;
    s.elem = wk_dtype_size(spec->dtype);
    s.rule = RULE_EXACT;
    if (spec->op == WK_SUM && wk_dtype_is_float(spec->dtype))
        s.rule = wk_ref_scan_sums_exact(h_in, n, spec) ? RULE_EXACT_SUMS : RULE_TOLERANCE;
    run_checks(&s, h_in, n);
    describe(&s, n, msg, msg_size);
    return s.bad;
}
