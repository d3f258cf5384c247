/* CPU reference for the segmented reduce and scans: layouts, the reference
 * calls (wk_ref_reduce and wk_ref_scan per segment), their checkers, and
 * the generators of offsets the tests use.
 *
 * The checkers walk inputs of tens of millions of elements and millions of
 * segments, so they keep per-segment work small: no formatting unless a
 * mismatch is shown, and float sums through inlined typed loaders. */
#include "ref/segmented_reference.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/generate.h"
#include "warpkit.h"
#include "ref/reference.h"
#include "ref/scan_elements.h"

/* ------------------------------------------------------------- layouts */

static int is_offsets(const wk_ref_segments *s) { return s->begin != NULL; }

/* Elements from one segment's start to the next one's (uniform, rows). */
static size_t step_of(const wk_ref_segments *s) { return s->stride ? s->stride : s->size; }

wk_status wk_ref_segments_validate(const wk_ref_segments *s)
{
    if (!s || (s->begin == NULL) != (s->end == NULL))
        return WK_ERROR_INVALID_ARGUMENT;
    if (!is_offsets(s) && s->stride != 0 && s->stride < s->size)
        return WK_ERROR_INVALID_ARGUMENT;
    return WK_SUCCESS;
}

size_t wk_ref_segments_extent(const wk_ref_segments *s)
{
    if (!s || s->count == 0)
        return 0;
    if (is_offsets(s))
        return s->size;
    return (s->count - 1) * step_of(s) + s->size;
}

/* An offset clamped into [0, size]. */
static size_t clamp_offset(int64_t v, size_t size)
{
    if (v <= 0)
        return 0;
    return (uint64_t)v > size ? size : (size_t)v;
}

void wk_ref_segment_range(const wk_ref_segments *s, size_t i, size_t *first, size_t *len)
{
    if (!is_offsets(s)) {
        *first = i * step_of(s);
        *len = s->size;
        return;
    }
    size_t b = clamp_offset(s->begin[i], s->size), e = clamp_offset(s->end[i], s->size);
    *first = b;
    *len = e > b ? e - b : 0;
}

static int bit_get(const unsigned char *bits, size_t p) { return (bits[p / 8] >> (p % 8)) & 1; }

int wk_ref_segments_cover(const wk_ref_segments *s, unsigned char *covered)
{
    size_t extent = wk_ref_segments_extent(s);
    memset(covered, 0, (extent + 7) / 8);
    int disjoint = 1;
    for (size_t i = 0; i < s->count; i++) {
        size_t first, len;
        wk_ref_segment_range(s, i, &first, &len);
        for (size_t p = first; p < first + len; p++) {
            unsigned char mask = (unsigned char)(1u << (p % 8));
            if (covered[p / 8] & mask)
                disjoint = 0;
            covered[p / 8] |= mask;
        }
    }
    return disjoint;
}

size_t wk_ref_segment_depth(size_t len) { return (len + 7) / 8 + 64; }

/* The depth a check allows: the segment's depth, plus what the final
 * rounding of f16 / bf16 adds. That rounding is within u_out of the
 * accumulated value, which is itself off by the accumulated error; the
 * u_out * |exact| part of the tolerance covers the first, and depth * u_out
 * more steps of u_acc * sum|x| the second. */
static size_t allowed_depth(wk_dtype dtype, size_t depth)
{
    size_t u_out_inverse = dtype == WK_F16 ? 2048 : dtype == WK_BF16 ? 256 : dtype == WK_F32 ? 16777216 : SIZE_MAX;
    return depth + depth / u_out_inverse + 1;
}

/* ------------------------------------------------------------ messages */

typedef struct report {
    char *msg;
    size_t size;
    int len;
    size_t bad;
} report;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void append(report *r, const char *fmt, ...)
{
    if (r->len < 0 || (size_t)r->len >= r->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int more = vsnprintf(r->msg + r->len, r->size - (size_t)r->len, fmt, ap);
    va_end(ap);
    if (more >= 0)
        r->len += more;
}

/* Counts one mismatch; returns whether it is among the ones shown. */
static int note(report *r)
{
    r->bad++;
    if (r->bad <= WK_REF_SEGMENTED_SHOWN) {
        append(r, "%s", r->bad == 1 ? "" : "; ");
        return 1;
    }
    return 0;
}

static void report_start(report *r, char *msg, size_t size, char *scratch, size_t scratch_size)
{
    if (!msg || size == 0) {
        msg = scratch;
        size = scratch_size;
    }
    r->msg = msg;
    r->size = size;
    r->len = 0;
    r->bad = 0;
    msg[0] = '\0';
}

/* ------------------------------------------------------------- reduce */

/* The checks of the segmented reduce's arguments, in wk_ref_reduce's
 * order, then the layout's. */
static wk_status reduce_validate(const void *in, const void *out, const wk_ref_segments *s, wk_dtype dtype,
                                 wk_op op)
{
    wk_status st = wk_ref_dtype_op_status(dtype, op);
    if (st != WK_SUCCESS)
        return st;
    st = wk_ref_segments_validate(s);
    if (st != WK_SUCCESS)
        return st;
    if (s->count > 0 && (!out || (!in && wk_ref_segments_extent(s) > 0)))
        return WK_ERROR_INVALID_ARGUMENT;
    return WK_SUCCESS;
}

static int is_half(wk_dtype dtype) { return dtype == WK_F16 || dtype == WK_BF16; }

/* The reference result of one segment, in wk_reduce's layout (into an
 * aligned wk_arg_result whose unused bytes are zero). */
static void reduce_one(const void *in, size_t first, size_t len, wk_dtype dtype, wk_op op, wk_arg_result *r)
{
    memset(r, 0, sizeof *r);
    const void *seg = len ? (const char *)in + first * wk_dtype_size(dtype) : NULL;
    wk_ref_reduce(seg, len, dtype, op, r);
    if (wk_op_is_arg(op) && is_half(dtype) && r->index >= 0 && isnan(wk_ref_load(&r->value, 0, dtype)))
        r->value.f16 = 0x7fff; /* the same member as bf16 */
}

wk_status wk_ref_segmented_reduce(const void *h_in, void *h_out, const wk_ref_segments *s, wk_dtype dtype,
                                  wk_op op)
{
    wk_status st = reduce_validate(h_in, h_out, s, dtype, op);
    if (st != WK_SUCCESS)
        return st;
    size_t bytes = wk_reduce_result_size(dtype, op);
    for (size_t i = 0; i < s->count; i++) {
        size_t first, len;
        wk_arg_result r;
        wk_ref_segment_range(s, i, &first, &len);
        reduce_one(h_in, first, len, dtype, op, &r);
        memcpy((char *)h_out + i * bytes, &r, bytes);
    }
    return WK_SUCCESS;
}

/* The exact sum of in[first .. first + len) and sum |x|. */
WK_REF_KERNEL void exact_range_sum(const void *in, size_t first, size_t len, wk_ref_float_loader load,
                                   wk_ref_exact_sum *e)
{
    memset(e, 0, sizeof *e);
    for (size_t i = first; i < first + len; i++)
        wk_ref_exact_sum_push(e, load(in, i));
}

WK_REF_KERNEL int all_integers(const void *in, size_t first, size_t len, wk_ref_float_loader load)
{
    for (size_t i = first; i < first + len; i++) {
        double x = load(in, i);
        if (x != trunc(x))
            return 0;
    }
    return 1;
}

static wk_ref_float_loader float_loader_for(wk_dtype dtype)
{
    switch (dtype) {
    case WK_F32: return wk_ref_float_f32;
    case WK_F64: return wk_ref_float_f64;
    case WK_F16: return wk_ref_float_f16;
    default: return wk_ref_float_bf16;
    }
}

static void segment_sum(const void *in, size_t first, size_t len, wk_dtype dtype, wk_ref_exact_sum *e,
                        int *integers)
{
    /* One instantiation per dtype, each with its loader inlined. */
    switch (dtype) {
    case WK_F32: exact_range_sum(in, first, len, wk_ref_float_f32, e); break;
    case WK_F64: exact_range_sum(in, first, len, wk_ref_float_f64, e); break;
    case WK_F16: exact_range_sum(in, first, len, wk_ref_float_f16, e); break;
    default: exact_range_sum(in, first, len, wk_ref_float_bf16, e); break;
    }
    /* Whole numbers whose sum of |x| the accumulator holds exactly: every
     * partial sum, in any order, is then exact. Checked only when the sum
     * of |x| is small enough, which is rare for random data. */
    double limit = dtype == WK_F64 ? 0x1p53 : 0x1p24;
    long double abs = wk_ref_exact_sum_abs(e);
    *integers = abs <= limit && all_integers(in, first, len, float_loader_for(dtype));
}

/* Value equality: NaN matches NaN, -0 matches +0. */
static int same_value(long double a, long double b) { return a == b || (isnan(a) && isnan(b)); }

/* Value equality that also tells -0 from +0. */
static int same_value_signed(long double a, long double b)
{
    return (a == b && (a != 0 || signbit(a) == signbit(b))) || (isnan(a) && isnan(b));
}

static void show_result(report *r, size_t i, size_t first, size_t len, wk_dtype dtype, wk_op op, const void *want,
                        const void *got)
{
    char w[96], g[96];
    wk_ref_format(dtype, op, want, w, sizeof w);
    wk_ref_format(dtype, op, got, g, sizeof g);
    append(r, "segment %zu [%zu, +%zu): expected %s got %s", i, first, len, w, g);
}

/* A float sum of one non-empty segment: exact under the integer rule,
 * else within the tolerance. */
static int check_sum_result(report *r, size_t i, const void *in, size_t first, size_t len, wk_dtype dtype,
                            const void *got)
{
    wk_ref_exact_sum e;
    int integers;
    segment_sum(in, first, len, dtype, &e, &integers);
    long double exact = wk_ref_exact_sum_value(&e), abs = wk_ref_exact_sum_abs(&e);
    long double g = wk_ref_load(got, 0, dtype);
    wk_value want;
    memset(&want, 0, sizeof want);
    wk_ref_store(&want, 0, dtype, exact);
    int ok;
    double tol = 0;
    size_t depth = 0;
    if (integers) {
        ok = same_value(g, wk_ref_load(&want, 0, dtype));
    } else {
        depth = allowed_depth(dtype, wk_ref_segment_depth(len));
        ok = wk_ref_sum_matches(dtype, depth, exact, abs, g, &tol, NULL);
    }
    if (!ok && note(r)) {
        show_result(r, i, first, len, dtype, WK_SUM, &want, got);
        if (integers)
            append(r, " (exact: whole numbers)");
        else
            append(r, " (exact %.21Lg, tol %.3g, depth %zu, sum|x| %.6Lg)", exact, tol, depth, abs);
    }
    return ok;
}

/* Any other result: every byte, except that a float MIN / MAX that should
 * be NaN may be any NaN (the header names no payload for them). */
static int check_exact_result(report *r, size_t i, const void *in, size_t first, size_t len, wk_dtype dtype,
                              wk_op op, const void *got)
{
    wk_arg_result want, g;
    size_t bytes = wk_reduce_result_size(dtype, op);
    reduce_one(in, first, len, dtype, op, &want);
    memset(&g, 0, sizeof g);
    memcpy(&g, got, bytes);
    int ok = memcmp(&want, &g, bytes) == 0;
    if (!ok && (op == WK_MIN || op == WK_MAX) && wk_dtype_is_float(dtype))
        ok = isnan(wk_ref_load(&want, 0, dtype)) && isnan(wk_ref_load(&g, 0, dtype));
    if (!ok && note(r)) {
        show_result(r, i, first, len, dtype, op, &want, &g);
        if (wk_op_is_arg(op) && memcmp(&want.value, &g.value, sizeof want.value) != 0)
            append(r, " (value bytes %016llx, want %016llx)", (unsigned long long)g.value.u64,
                   (unsigned long long)want.value.u64);
    }
    return ok;
}

size_t wk_ref_check_segmented_reduce(const void *h_in, const void *got, const wk_ref_segments *s, wk_dtype dtype,
                                     wk_op op, char *msg, size_t msg_size)
{
    char scratch[1];
    report r;
    report_start(&r, msg, msg_size, scratch, sizeof scratch);
    wk_status st = reduce_validate(h_in, got, s, dtype, op);
    if (st != WK_SUCCESS) {
        append(&r, "cannot check: %s", wk_status_string(st));
        return WK_REF_SEGMENTED_INVALID;
    }
    size_t bytes = wk_reduce_result_size(dtype, op);
    int float_sum = op == WK_SUM && wk_dtype_is_float(dtype);
    size_t depth_max = 0;
    for (size_t i = 0; i < s->count; i++) {
        size_t first, len;
        wk_ref_segment_range(s, i, &first, &len);
        const void *g = (const char *)got + i * bytes;
        /* An empty float sum is the identity's bits, +0.0. */
        if (float_sum && len > 0)
            check_sum_result(&r, i, h_in, first, len, dtype, g);
        else
            check_exact_result(&r, i, h_in, first, len, dtype, op, g);
        if (len > 0 && wk_ref_segment_depth(len) > depth_max)
            depth_max = wk_ref_segment_depth(len);
    }
    if (r.bad == 0) {
        append(&r, "all %zu segments match", s->count);
        if (float_sum)
            append(&r, " (float sums: depth up to %zu)", depth_max);
    } else {
        char head[96];
        snprintf(head, sizeof head, " -- %zu of %zu segments differ", r.bad, s->count);
        append(&r, "%s", head);
    }
    return r.bad;
}

/* --------------------------------------------------------------- scans */

static wk_status scan_validate(const void *in, const void *out, const wk_ref_segments *s,
                               const wk_ref_scan_spec *spec)
{
    if (!spec)
        return WK_ERROR_INVALID_ARGUMENT;
    /* wk_ref_scan's checks of the dtype and op, on a stand-in of one element. */
    unsigned char one[8] = {0};
    wk_status st = wk_ref_scan_validate(one, one, 1, spec);
    if (st != WK_SUCCESS)
        return st;
    st = wk_ref_segments_validate(s);
    if (st != WK_SUCCESS)
        return st;
    if (wk_ref_segments_extent(s) > 0 && (!in || !out))
        return WK_ERROR_INVALID_ARGUMENT;
    return WK_SUCCESS;
}

/* The coverage bitmap of the layout, or NULL when its segments overlap (or
 * memory ran out); *why says which. */
static unsigned char *disjoint_cover(const wk_ref_segments *s, const char **why)
{
    unsigned char *covered = malloc((wk_ref_segments_extent(s) + 7) / 8 + 1);
    if (!covered) {
        *why = "out of host memory";
        return NULL;
    }
    if (!wk_ref_segments_cover(s, covered)) {
        free(covered);
        *why = "segments overlap";
        return NULL;
    }
    return covered;
}

wk_status wk_ref_segmented_scan(const void *h_in, void *h_out, const wk_ref_segments *s,
                                const wk_ref_scan_spec *spec)
{
    wk_status st = scan_validate(h_in, h_out, s, spec);
    if (st != WK_SUCCESS)
        return st;
    const char *why;
    unsigned char *covered = disjoint_cover(s, &why);
    if (!covered)
        return WK_ERROR_INVALID_ARGUMENT;
    free(covered);
    size_t elem = wk_dtype_size(spec->dtype);
    for (size_t i = 0; i < s->count; i++) {
        size_t first, len;
        wk_ref_segment_range(s, i, &first, &len);
        if (len > 0)
            wk_ref_scan((const char *)h_in + first * elem, (char *)h_out + first * elem, len, spec);
    }
    return WK_SUCCESS;
}

/* What a scan check carries from segment to segment. */
typedef struct scan_check {
    const wk_ref_scan_spec *spec;
    size_t elem;
    report r;
    void *scratch; /* room for the longest segment's reference */
} scan_check;

static void show_element(scan_check *c, size_t seg, size_t k, size_t pos, const void *want, const void *got)
{
    char w[96], g[96];
    wk_ref_format(c->spec->dtype, WK_SUM, want, w, sizeof w);
    wk_ref_format(c->spec->dtype, WK_SUM, got, g, sizeof g);
    append(&c->r, "segment %zu element %zu (position %zu): expected %s got %s", seg, k, pos, w, g);
}

/* Output k of a float sum against its exact prefix e: first in double,
 * where nearly all outputs are decided; a result near overflow, an
 * infinity or NaN, or one beyond that tolerance goes to wk_ref_sum_matches. */
static int sum_output_matches(wk_dtype dtype, size_t depth, const wk_ref_exact_sum *e, double g, double *tol)
{
    static const double u_out[] = {[WK_F32] = 0x1p-24, [WK_F64] = 0x1p-53, [WK_F16] = 0x1p-11, [WK_BF16] = 0x1p-8};
    static const double underflow[] = {[WK_F32] = 0x1p-150, [WK_F64] = 0, [WK_F16] = 0x1p-25, [WK_BF16] = 0x1p-134};
    static const double largest[] = {[WK_F32] = 0x1.fffffep127, [WK_F64] = 0x1.fffffffffffffp1023,
                                      [WK_F16] = 65504.0, [WK_BF16] = 0x1.fep127};
    double u_acc = dtype == WK_F64 ? 0x1p-53 : 0x1p-24;
    if (!e->wide && isfinite(e->abs) && isfinite(g) && fabs(e->hi) < largest[dtype]) {
        double t = (double)depth * u_acc * e->abs + u_out[dtype] * fabs(e->hi + e->lo) + underflow[dtype];
        if (fabs((g - e->hi) - e->lo) <= t) {
            *tol = t;
            return 1;
        }
    }
    return wk_ref_sum_matches(dtype, depth, wk_ref_exact_sum_value(e), wk_ref_exact_sum_abs(e), g, tol, NULL);
}

/* A float sum segment outside the integer rule: every output within the
 * tolerance of its exact prefix, the exclusive scan's first output the
 * init itself. */
WK_REF_KERNEL void check_sum_segment(scan_check *c, size_t seg, const void *in, const void *got, size_t first,
                                     size_t len, wk_ref_float_loader load)
{
    const wk_ref_scan_spec *spec = c->spec;
    wk_dtype dtype = spec->dtype;
    wk_ref_exact_sum e;
    memset(&e, 0, sizeof e);
    size_t k = 0;
    if (spec->exclusive) {
        double init = load(&spec->init, 0);
        if (!same_value_signed(load(got, first), init) && note(&c->r))
            show_element(c, seg, 0, first, &spec->init, (const char *)got + first * c->elem);
        wk_ref_exact_sum_push(&e, init);
        k = 1;
    }
    for (; k < len; k++) {
        size_t depth;
        if (spec->exclusive) {
            wk_ref_exact_sum_push(&e, load(in, first + k - 1));
            depth = allowed_depth(dtype, wk_ref_segment_depth(k)) + 1;
        } else {
            wk_ref_exact_sum_push(&e, load(in, first + k));
            depth = allowed_depth(dtype, wk_ref_segment_depth(k + 1));
        }
        double tol, g = load(got, first + k);
        if (!sum_output_matches(dtype, depth, &e, g, &tol) && note(&c->r)) {
            wk_value want;
            memset(&want, 0, sizeof want);
            wk_ref_store(&want, 0, dtype, wk_ref_exact_sum_value(&e));
            show_element(c, seg, k, first + k, &want, (const char *)got + (first + k) * c->elem);
            append(&c->r, " (exact %.21Lg, tol %.3g, depth %zu)", wk_ref_exact_sum_value(&e), tol, depth);
        }
    }
}

/* Any other segment: against wk_ref_scan's outputs, integers bit for bit,
 * float MIN / MAX by value with the sign of zero (any NaN for a NaN),
 * float sums under the integer rule by value. */
static void check_exact_segment(scan_check *c, size_t seg, const void *in, const void *got, size_t first,
                                size_t len)
{
    const wk_ref_scan_spec *spec = c->spec;
    wk_dtype dtype = spec->dtype;
    const char *seg_in = (const char *)in + first * c->elem, *seg_got = (const char *)got + first * c->elem;
    wk_ref_scan(seg_in, c->scratch, len, spec);
    int floating = wk_dtype_is_float(dtype), sum = spec->op == WK_SUM;
    for (size_t k = 0; k < len; k++) {
        const char *w = (const char *)c->scratch + k * c->elem, *g = seg_got + k * c->elem;
        int ok;
        if (!floating)
            ok = memcmp(w, g, c->elem) == 0;
        else if (sum)
            ok = same_value(wk_ref_load(w, 0, dtype), wk_ref_load(g, 0, dtype));
        else
            ok = same_value_signed(wk_ref_load(w, 0, dtype), wk_ref_load(g, 0, dtype));
        /* The exclusive scan's first output is the init, bit for bit. */
        if (ok && k == 0 && spec->exclusive && floating && !isnan(wk_ref_load(w, 0, dtype)))
            ok = memcmp(&spec->init, g, c->elem) == 0;
        if (!ok && note(&c->r))
            show_element(c, seg, k, first + k, w, g);
    }
}

static void check_scan_segment(scan_check *c, size_t seg, const void *in, const void *got, size_t first,
                               size_t len)
{
    const wk_ref_scan_spec *spec = c->spec;
    if (len == 0)
        return;
    if (spec->op != WK_SUM || !wk_dtype_is_float(spec->dtype) ||
        wk_ref_scan_sums_exact((const char *)in + first * c->elem, len, spec)) {
        check_exact_segment(c, seg, in, got, first, len);
        return;
    }
    switch (spec->dtype) {
    case WK_F32: check_sum_segment(c, seg, in, got, first, len, wk_ref_float_f32); break;
    case WK_F64: check_sum_segment(c, seg, in, got, first, len, wk_ref_float_f64); break;
    case WK_F16: check_sum_segment(c, seg, in, got, first, len, wk_ref_float_f16); break;
    default: check_sum_segment(c, seg, in, got, first, len, wk_ref_float_bf16); break;
    }
}

/* Every element outside the segments is as it was. */
static void check_untouched(scan_check *c, const unsigned char *covered, size_t extent, const void *got,
                            const void *before)
{
    for (size_t p = 0; p < extent; p++) {
        if (bit_get(covered, p))
            continue;
        const char *g = (const char *)got + p * c->elem, *b = (const char *)before + p * c->elem;
        if (memcmp(g, b, c->elem) != 0 && note(&c->r)) {
            char w[96], h[96];
            wk_ref_format(c->spec->dtype, WK_SUM, b, w, sizeof w);
            wk_ref_format(c->spec->dtype, WK_SUM, g, h, sizeof h);
            append(&c->r, "position %zu is in no segment but changed from %s to %s", p, w, h);
        }
    }
}

size_t wk_ref_check_segmented_scan(const void *h_in, const void *got, const void *before, const wk_ref_segments *s,
                                   const wk_ref_scan_spec *spec, char *msg, size_t msg_size)
{
    char scratch_msg[1];
    scan_check c;
    memset(&c, 0, sizeof c);
    report_start(&c.r, msg, msg_size, scratch_msg, sizeof scratch_msg);
    wk_status st = scan_validate(h_in, got, s, spec);
    if (st != WK_SUCCESS) {
        append(&c.r, "cannot check: %s", wk_status_string(st));
        return WK_REF_SEGMENTED_INVALID;
    }
    const char *why;
    unsigned char *covered = disjoint_cover(s, &why);
    size_t longest = 0, elements = 0;
    for (size_t i = 0; covered && i < s->count; i++) {
        size_t first, len;
        wk_ref_segment_range(s, i, &first, &len);
        longest = len > longest ? len : longest;
        elements += len;
    }
    c.spec = spec;
    c.elem = wk_dtype_size(spec->dtype);
    c.scratch = covered ? malloc(longest * c.elem + 1) : NULL;
    if (!c.scratch) {
        append(&c.r, "cannot check: %s", covered ? "out of host memory" : why);
        free(covered);
        return WK_REF_SEGMENTED_INVALID;
    }
    for (size_t i = 0; i < s->count; i++) {
        size_t first, len;
        wk_ref_segment_range(s, i, &first, &len);
        check_scan_segment(&c, i, h_in, got, first, len);
    }
    if (before)
        check_untouched(&c, covered, wk_ref_segments_extent(s), got, before);
    if (c.r.bad == 0)
        append(&c.r, "all %zu outputs of %zu segments match%s", elements, s->count,
               before ? ", the elements outside them untouched" : "");
    else
        append(&c.r, " -- %zu mismatches", c.r.bad);
    free(c.scratch);
    free(covered);
    return c.r.bad;
}

/* ---------------------------------------------------------- generators */

/* A draw in (0, 1]: never 0, so that u^(-1 / alpha) stays finite. */
static double unit_draw(uint64_t seed, uint64_t i) { return (double)((wk_rand64(seed, i) >> 11) + 1) * 0x1p-53; }

void wk_ref_power_law_sizes(uint64_t seed, size_t count, size_t total, double alpha, size_t *sizes)
{
    if (count == 0)
        return;
    /* Two passes over the same counter-based draws: the total weight, then
     * the cumulative shares, rounded down except for the last, which ends
     * exactly at total. */
    double weight = 0;
    for (size_t i = 0; i < count; i++)
        weight += pow(unit_draw(seed, i), -1.0 / alpha) - 1.0;
    double acc = 0;
    size_t before = 0;
    for (size_t i = 0; i < count; i++) {
        acc += pow(unit_draw(seed, i), -1.0 / alpha) - 1.0;
        size_t upto = total;
        if (i + 1 < count)
            upto = weight > 0 ? (size_t)fmin(floor(acc / weight * (double)total), (double)total) : 0;
        if (upto < before)
            upto = before;
        sizes[i] = upto - before;
        before = upto;
    }
}

void wk_ref_offsets_from_sizes(const size_t *sizes, size_t count, int64_t start, int64_t *offsets)
{
    offsets[0] = start;
    for (size_t i = 0; i < count; i++)
        offsets[i + 1] = offsets[i] + (int64_t)sizes[i];
}

size_t wk_ref_disjoint_offsets(uint64_t seed, const size_t *sizes, size_t count, size_t max_gap, int64_t *begin,
                               int64_t *end)
{
    if (count == 0)
        return 0;
    /* The order of the segments in the input: a Fisher-Yates shuffle. */
    size_t *order = malloc(count * sizeof *order);
    if (!order)
        return 0;
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    for (size_t i = count - 1; i > 0; i--) {
        size_t j = (size_t)(wk_rand64(seed, i) % (i + 1));
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    /* Place them: a gap before every non-empty segment but the first. */
    size_t pos = 0, first_full = count, last_full = count;
    for (size_t k = 0; k < count; k++) {
        size_t i = order[k];
        if (sizes[i] > 0) {
            if (first_full < count)
                pos += (size_t)(wk_rand64(seed ^ 0x9a9ull, k) % (max_gap + 1));
            else
                first_full = i;
            last_full = i;
        }
        begin[i] = (int64_t)pos;
        end[i] = (int64_t)(pos + sizes[i]);
        pos += sizes[i];
    }
    size_t total = pos;
    /* Empty segments, four ways; then the outer ends past the input. */
    for (size_t i = 0; i < count; i++) {
        if (sizes[i] > 0)
            continue;
        uint64_t r = wk_rand64(seed ^ 0xe4e4ull, i);
        int64_t shift = (int64_t)(r >> 8 & 63);
        switch (r % 4) {
        case 0: break;                                                  /* end == begin */
        case 1: begin[i] += 1 + shift; break;                           /* end < begin  */
        case 2: begin[i] = -1 - shift; end[i] = begin[i] + shift; break; /* below 0      */
        case 3: begin[i] = (int64_t)total + shift; end[i] = begin[i] + 1 + shift; break; /* past the end */
        }
    }
    if (first_full < count) {
        uint64_t r = wk_rand64(seed ^ 0xf1f1ull, 0);
        begin[first_full] = r % 2 ? INT64_MIN : -1 - (int64_t)(r >> 8 & 1023);
        end[last_full] = r / 2 % 2 ? INT64_MAX : (int64_t)total + 1 + (int64_t)(r >> 20 & 1023);
    }
    free(order);
    return total;
}

void wk_ref_wild_offsets(uint64_t seed, size_t count, size_t size, size_t max_len, int64_t *begin, int64_t *end)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t r = wk_rand64(seed, i), k = wk_rand64(seed ^ 0x3c3cull, i);
        int64_t b = (int64_t)(r % (size + 128)) - 64;
        int64_t len = (int64_t)((r >> 32) % (max_len + 1));
        begin[i] = b;
        end[i] = b + len;
        /* Rare kinds first: they reach across the input. */
        if (k % 1024 == 0) {
            begin[i] = INT64_MIN;
            end[i] = INT64_MAX;
        } else if (k % 256 == 1) {
            begin[i] = INT64_MIN;
        } else if (k % 256 == 2) {
            end[i] = INT64_MAX;
        } else if (k % 8 == 3) {
            end[i] = b - len; /* end <= begin: empty */
        }
    }
}
