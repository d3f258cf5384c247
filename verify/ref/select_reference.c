/* CPU reference for the selects and its checker: one walk over the input
 * that decides, element by element, whether it is kept, and then either
 * writes the output (the reference), compares it with the GPU's (the
 * checker) or only counts.
 *
 * Speed matters as for the scan (the checks walk inputs of 2^31+
 * elements): the walk is instantiated per dtype with an inlined loader
 * and keeps no array of its own.
 */
#include "ref/select_reference.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "warpkit.h"
#include "ref/reference.h"
#include "ref/scan_elements.h"

/* ------------------------------------------------------------- modes */

const char *wk_ref_select_mode_name(wk_ref_select_mode mode)
{
    static const char *const names[WK_REF_SELECT_MODE_COUNT] = {"select_if", "select_flagged", "partition_if",
                                                                "unique", "where"};
    return (unsigned)mode < WK_REF_SELECT_MODE_COUNT ? names[mode] : "?";
}

static int mode_valid(wk_ref_select_mode mode) { return (unsigned)mode < WK_REF_SELECT_MODE_COUNT; }

int wk_ref_select_uses_predicate(wk_ref_select_mode mode)
{
    return mode == WK_REF_SELECT_IF || mode == WK_REF_PARTITION_IF || mode == WK_REF_WHERE;
}

int wk_ref_select_in_place_ok(wk_ref_select_mode mode)
{
    return mode == WK_REF_SELECT_IF || mode == WK_REF_SELECT_FLAGGED || mode == WK_REF_UNIQUE;
}

size_t wk_ref_select_out_size(wk_ref_select_mode mode, wk_dtype dtype)
{
    if (!mode_valid(mode) || !wk_dtype_valid((int)dtype))
        return 0;
    return mode == WK_REF_WHERE ? sizeof(int64_t) : wk_dtype_size(dtype);
}

static int is_nan_test(wk_compare c) { return c == WK_IS_NAN || c == WK_NOT_NAN; }

wk_status wk_ref_select_validate(const void *in, const uint8_t *flags, const void *out, size_t n,
                                 const wk_ref_select_spec *spec)
{
    if (!spec || !mode_valid(spec->mode))
        return WK_ERROR_INVALID_ARGUMENT;
    if (n > 0 && (!in || !out || (spec->mode == WK_REF_SELECT_FLAGGED && !flags)))
        return WK_ERROR_INVALID_ARGUMENT;
    if (!wk_dtype_valid((int)spec->dtype))
        return WK_ERROR_INVALID_DTYPE;
    if (wk_ref_select_uses_predicate(spec->mode)) {
        if (!wk_compare_valid((int)spec->predicate.compare))
            return WK_ERROR_INVALID_ARGUMENT;
        if (is_nan_test(spec->predicate.compare) && !wk_dtype_is_float(spec->dtype))
            return WK_ERROR_UNSUPPORTED;
    }
    /* The indices would overwrite elements not yet read; partition's
     * rejected elements fill the end first. */
    if (n > 0 && in == out && !wk_ref_select_in_place_ok(spec->mode))
        return WK_ERROR_INVALID_ARGUMENT;
    return WK_SUCCESS;
}

/* --------------------------------------------------------- predicate */

/* The predicate with its constants loaded once: floats as double (which
 * holds every f32, f16 and bf16 value, so comparing doubles is comparing
 * the dtype's values exactly), integers as order keys (the sign-extended
 * pattern, XOR the sign flip for signed dtypes, so that unsigned
 * comparison of keys is the dtype's order). */
typedef struct prepared {
    wk_compare compare;
    double fa, fb;
    uint64_t ka, kb;
    uint64_t flip;
} prepared;

static prepared prepare(wk_dtype dtype, const wk_predicate *p)
{
    prepared q;
    memset(&q, 0, sizeof q);
    q.compare = p->compare;
    if (wk_dtype_is_float(dtype)) {
        q.fa = (double)wk_ref_load(&p->a, 0, dtype);
        q.fb = (double)wk_ref_load(&p->b, 0, dtype);
    } else {
        wk_ref_int_loader load = wk_ref_int_loader_for(dtype);
        q.flip = wk_ref_is_signed_int(dtype) ? WK_REF_SIGNED_ORDER_FLIP : 0;
        q.ka = load(&p->a, 0) ^ q.flip;
        q.kb = load(&p->b, 0) ^ q.flip;
    }
    return q;
}

/* The cases of a switch on a compare that order the value x against the
 * constants a and b with C's own operators, for floats and order keys
 * alike. */
#define ORDERED_COMPARES(x, a, b)                 \
    case WK_LESS: return (x) < (a);               \
    case WK_LESS_EQUAL: return (x) <= (a);        \
    case WK_GREATER: return (x) > (a);            \
    case WK_GREATER_EQUAL: return (x) >= (a);     \
    case WK_EQUAL: return (x) == (a);             \
    case WK_NOT_EQUAL: return (x) != (a);         \
    case WK_IN_RANGE: return (a) <= (x) && (x) < (b)

/* C's comparisons are the header's: each is false when an operand is NaN,
 * except !=, which is true; -0.0 == +0.0. */
WK_REF_KERNEL int float_holds(double x, const prepared *p)
{
    switch (p->compare) {
    ORDERED_COMPARES(x, p->fa, p->fb);
    case WK_IS_NAN: return isnan(x);
    case WK_NOT_NAN: return !isnan(x);
    }
    return 0;
}

/* k is an order key (see prepared). */
WK_REF_KERNEL int int_holds(uint64_t k, const prepared *p)
{
    switch (p->compare) {
    ORDERED_COMPARES(k, p->ka, p->kb);
    default: return 0;
    }
}

int wk_ref_predicate_holds(const void *value, wk_dtype dtype, const wk_predicate *p)
{
    if (!value || !p || !wk_dtype_valid((int)dtype) || !wk_compare_valid((int)p->compare))
        return 0;
    prepared q = prepare(dtype, p);
    if (wk_dtype_is_float(dtype))
        return float_holds((double)wk_ref_load(value, 0, dtype), &q);
    return !is_nan_test(p->compare) && int_holds(wk_ref_int_loader_for(dtype)(value, 0) ^ q.flip, &q);
}

/* -------------------------------------------------------------- walk */

typedef struct mismatch {
    size_t pos;    /* output position                                 */
    size_t source; /* the input index whose element (or index) belongs there */
    uint64_t want, got;
} mismatch;

/* One pass over the input. Exactly one of out (the reference writes) and
 * got (the checker compares) is set, or neither (counting only). */
typedef struct walk {
    wk_ref_select_mode mode;
    wk_dtype dtype;
    size_t n, elem, out_elem;
    const unsigned char *in;
    const uint8_t *flags;
    unsigned char *out;
    const unsigned char *got;
    uint64_t kept, rejected;
    size_t bad;
    mismatch shown[WK_REF_SELECT_SHOWN];
} walk;

/* The 1, 2, 4 or 8 bytes at p as an integer: outputs compare and move as
 * these patterns, so NaN payloads and signed zeros travel unchanged. One
 * fixed-size copy per width, which compiles to a plain load or store. */
static inline uint64_t bytes_at(const unsigned char *p, size_t size)
{
    uint16_t h;
    uint32_t w;
    uint64_t d;
    switch (size) {
    case 1: return *p;
    case 2: memcpy(&h, p, 2); return h;
    case 4: memcpy(&w, p, 4); return w;
    default: memcpy(&d, p, 8); return d;
    }
}

static inline void put_bytes(unsigned char *p, size_t size, uint64_t v)
{
    uint16_t h = (uint16_t)v;
    uint32_t w = (uint32_t)v;
    switch (size) {
    case 1: *p = (unsigned char)v; break;
    case 2: memcpy(p, &h, 2); break;
    case 4: memcpy(p, &w, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* Element i is kept or not: where does it go, and is it there? */
WK_REF_KERNEL void emit(walk *w, size_t i, int keep)
{
    size_t pos;
    if (keep)
        pos = (size_t)w->kept++;
    else if (w->mode == WK_REF_PARTITION_IF)
        pos = w->n - 1 - (size_t)w->rejected++;
    else
        return;
    if (!w->out && !w->got)
        return;
    /* Read before the write: in place, pos may be i itself. */
    uint64_t value = w->mode == WK_REF_WHERE ? (uint64_t)i : bytes_at(w->in + i * w->elem, w->elem);
    if (w->out) {
        put_bytes(w->out + pos * w->out_elem, w->out_elem, value);
        return;
    }
    uint64_t got = bytes_at(w->got + pos * w->out_elem, w->out_elem);
    if (got != value && w->bad++ < WK_REF_SELECT_SHOWN) {
        mismatch m = {pos, i, value, got};
        w->shown[w->bad - 1] = m;
    }
}

WK_REF_KERNEL void walk_floats(walk *w, const prepared *p, wk_ref_float_loader load)
{
    if (w->mode == WK_REF_UNIQUE) {
        /* The previous element is kept in a local: in place, the output
         * may already have overwritten it. */
        double prev = 0;
        for (size_t i = 0; i < w->n; ++i) {
            double x = load(w->in, i);
            emit(w, i, i == 0 || !(x == prev));
            prev = x;
        }
        return;
    }
    for (size_t i = 0; i < w->n; ++i)
        emit(w, i, float_holds(load(w->in, i), p));
}

WK_REF_KERNEL void walk_ints(walk *w, const prepared *p, wk_ref_int_loader load)
{
    if (w->mode == WK_REF_UNIQUE) {
        uint64_t prev = 0;
        for (size_t i = 0; i < w->n; ++i) {
            uint64_t x = load(w->in, i);
            emit(w, i, i == 0 || x != prev);
            prev = x;
        }
        return;
    }
    for (size_t i = 0; i < w->n; ++i)
        emit(w, i, int_holds(load(w->in, i) ^ p->flip, p));
}

static void run_walk(walk *w, const wk_ref_select_spec *spec)
{
    if (w->mode == WK_REF_SELECT_FLAGGED) {
        for (size_t i = 0; i < w->n; ++i)
            emit(w, i, w->flags[i] != 0);
        return;
    }
    /* unique has no predicate; a zeroed one is harmless there. */
    wk_predicate none;
    memset(&none, 0, sizeof none);
    prepared p = prepare(spec->dtype, wk_ref_select_uses_predicate(spec->mode) ? &spec->predicate : &none);
    switch (spec->dtype) {
    case WK_I32: walk_ints(w, &p, wk_ref_int_i32); break;
    case WK_U32: walk_ints(w, &p, wk_ref_int_u32); break;
    case WK_I64: case WK_U64: walk_ints(w, &p, wk_ref_int_64); break;
    case WK_BOOL: case WK_U8: walk_ints(w, &p, wk_ref_int_u8); break;
    case WK_I8: walk_ints(w, &p, wk_ref_int_i8); break;
    case WK_I16: walk_ints(w, &p, wk_ref_int_i16); break;
    case WK_U16: walk_ints(w, &p, wk_ref_int_u16); break;
    case WK_F32: walk_floats(w, &p, wk_ref_float_f32); break;
    case WK_F64: walk_floats(w, &p, wk_ref_float_f64); break;
    case WK_F16: walk_floats(w, &p, wk_ref_float_f16); break;
    case WK_BF16: walk_floats(w, &p, wk_ref_float_bf16); break;
    }
}

/* Walks the whole input, writing the outputs to out or checking those in
 * got (at most one of them set); *kept (if not NULL) gets the count. */
static void walk_all(walk *w, const void *in, const uint8_t *flags, size_t n, const wk_ref_select_spec *spec,
                     void *out, const void *got, uint64_t *kept)
{
    memset(w, 0, sizeof *w);
    w->mode = spec->mode;
    w->dtype = spec->dtype;
    w->n = n;
    w->elem = wk_dtype_size(spec->dtype);
    w->out_elem = wk_ref_select_out_size(spec->mode, spec->dtype);
    w->in = in;
    w->flags = flags;
    w->out = out;
    w->got = got;
    run_walk(w, spec);
    if (kept)
        *kept = w->kept;
}

/* ---------------------------------------------------------- reference */

wk_status wk_ref_select(const void *h_in, const uint8_t *h_flags, void *h_out, size_t n,
                        const wk_ref_select_spec *spec, uint64_t *count)
{
    wk_status st = wk_ref_select_validate(h_in, h_flags, h_out, n, spec);
    if (st != WK_SUCCESS)
        return st;
    walk w;
    walk_all(&w, h_in, h_flags, n, spec, h_out, NULL, count);
    return WK_SUCCESS;
}

/* ------------------------------------------------------------ checker */

/* An output for the message: an index for where, else the element's
 * value and its bits (which tell NaN payloads and zeros' signs apart). */
static void format_output(const walk *w, uint64_t bits, char *buf, size_t size)
{
    if (w->mode == WK_REF_WHERE) {
        snprintf(buf, size, "%" PRId64, (int64_t)bits);
        return;
    }
    char value[64];
    wk_ref_format(w->dtype, WK_SUM, &bits, value, sizeof value);
    if (w->dtype == WK_F16 || w->dtype == WK_BF16)
        snprintf(buf, size, "%s", value); /* wk_ref_format shows their bits already */
    else
        snprintf(buf, size, "%s [0x%0*" PRIx64 "]", value, (int)(2 * w->elem), bits);
}

static void describe(const walk *w, uint64_t got_count, char *msg, size_t size)
{
    size_t written = w->mode == WK_REF_PARTITION_IF ? w->n : (size_t)w->kept;
    int len;
    if (w->bad == 0 && got_count == w->kept) {
        if (w->mode == WK_REF_PARTITION_IF)
            snprintf(msg, size, "count %" PRIu64 ", all %zu outputs match (%" PRIu64 " rejected, in reverse)",
                     w->kept, w->n, w->rejected);
        else
            snprintf(msg, size, "count %" PRIu64 " of %zu, all outputs match", w->kept, w->n);
        return;
    }
    len = snprintf(msg, size, "count %" PRIu64 "%s%" PRIu64 "; %zu of %zu outputs differ", got_count,
                   got_count == w->kept ? " (right) = " : " WRONG, want ", w->kept, w->bad, written);
    for (size_t k = 0; k < w->bad && k < WK_REF_SELECT_SHOWN && len >= 0 && (size_t)len < size; ++k) {
        const mismatch *m = &w->shown[k];
        char want[96], got[96];
        format_output(w, m->want, want, sizeof want);
        format_output(w, m->got, got, sizeof got);
        len += snprintf(msg + len, size - (size_t)len, "%s out[%zu] = %s, want %s (%s %zu)", k ? ";" : ":", m->pos,
                        got, want, w->mode == WK_REF_WHERE ? "index of element" : "element", m->source);
    }
}

size_t wk_ref_check_select(const void *h_in, const uint8_t *h_flags, size_t n, const wk_ref_select_spec *spec,
                           const void *got, uint64_t got_count, uint64_t *want_count, char *msg, size_t msg_size)
{
    char scratch[1];
    if (!msg || msg_size == 0) {
        msg = scratch;
        msg_size = sizeof scratch;
    }
    wk_status st = wk_ref_select_validate(h_in, h_flags, got, n, spec);
    /* The GPU's output is a copy apart from the input, even for calls made
     * in place: got == h_in would be a caller's mistake, not in place. */
    if (st != WK_SUCCESS || (n > 0 && got == h_in)) {
        snprintf(msg, msg_size, "cannot check: %s", st != WK_SUCCESS ? wk_status_string(st) : "got is the input");
        return WK_REF_SELECT_INVALID;
    }
    walk w;
    walk_all(&w, h_in, h_flags, n, spec, NULL, got, want_count);
    describe(&w, got_count, msg, msg_size);
    return w.bad + (got_count != w.kept);
}

/* ------------------------------------------------------------ format */

void wk_ref_format_predicate(wk_dtype dtype, const wk_predicate *p, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    if (!p || !wk_dtype_valid((int)dtype) || !wk_compare_valid((int)p->compare)) {
        snprintf(buf, size, "?");
        return;
    }
    char a[64], b[64];
    wk_ref_format(dtype, WK_SUM, &p->a, a, sizeof a);
    wk_ref_format(dtype, WK_SUM, &p->b, b, sizeof b);
    if (p->compare == WK_IN_RANGE)
        snprintf(buf, size, "in_range [%s, %s)", a, b);
    else if (is_nan_test(p->compare))
        snprintf(buf, size, "%s", wk_compare_name(p->compare));
    else
        snprintf(buf, size, "%s %s", wk_compare_name(p->compare), a);
}
