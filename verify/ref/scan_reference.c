/* CPU reference for the scans: a walker that keeps the exact prefix and
 * advances one element at a time, the exact rule, and the depth of each
 * output. The per-element comparison with a GPU output is in
 * scan_compare.c. */
#include "ref/scan_reference.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "warpkit.h"
#include "ref/reference.h"
#include "ref/scan_elements.h"

/* -------------------------------------------------------------- walker */

/* The running state of a scan: the exact prefix of everything pushed. */
typedef struct walker {
    wk_dtype dtype;
    wk_op op;
    int floating;
    int empty;           /* nothing pushed yet                               */
    uint64_t bits;       /* integer dtypes: the prefix, sign-extended        */
    uint64_t order;      /* integer min / max: XOR that turns the op into an
                            unsigned min (sign flip for signed dtypes, all
                            bits inverted for max)                           */
    wk_ref_exact_sum sum; /* float sum: the exact prefix                     */
    long double ext;     /* float min / max: the extreme, NaN once one is seen */
} walker;

static void push_int(walker *w, uint64_t x)
{
    if (w->empty) {
        w->bits = x;
        w->empty = 0;
        return;
    }
    switch (w->op) {
    case WK_SUM: w->bits += x; break;
    case WK_AND: w->bits &= x; break;
    case WK_OR: w->bits |= x; break;
    case WK_XOR: w->bits ^= x; break;
    default:
        if ((x ^ w->order) < (w->bits ^ w->order))
            w->bits = x;
        break;
    }
}

static void push_float(walker *w, long double x)
{
    if (w->op == WK_SUM) {
        /* Every dtype's value is a double. */
        wk_ref_exact_sum_push(&w->sum, (double)x);
    } else if (w->empty) {
        w->ext = x;
    } else if (isnan(w->ext)) {
        /* NaN from the first NaN on. */
    } else if (isnan(x) || (w->op == WK_MIN ? x < w->ext : x > w->ext)) {
        w->ext = x;
    } else if (x == 0 && w->ext == 0 && signbit(x) != signbit(w->ext)) {
        /* -0.0 below +0.0, as IEEE 754-2019 minimum / maximum. */
        if ((w->op == WK_MIN) == (signbit(x) != 0))
            w->ext = x;
    }
    w->empty = 0;
}

static void push(walker *w, const void *data, size_t i)
{
    if (w->floating)
        push_float(w, wk_ref_load(data, i, w->dtype));
    else
        push_int(w, wk_ref_int_loader_for(w->dtype)(data, i));
}

static void walker_start(walker *w, const wk_ref_scan_spec *spec)
{
    memset(w, 0, sizeof *w);
    w->dtype = spec->dtype;
    w->op = spec->op;
    w->floating = wk_dtype_is_float(spec->dtype);
    w->empty = 1;
    w->order = wk_ref_is_signed_int(spec->dtype) ? WK_REF_SIGNED_ORDER_FLIP : 0;
    if (spec->op == WK_MAX)
        w->order = ~w->order;
    if (spec->exclusive)
        push(w, &spec->init, 0);
}

/* hi + lo of the exact sum rounded to long double toward zero, with its
 * last bit set when that was inexact ("round to odd"): rounding this once
 * more to a format with at least two fewer significant bits (every dtype:
 * 53 or fewer of long double's 64) rounds the exact prefix once. */
static long double exact_prefix(const walker *w)
{
    const wk_ref_exact_sum *e = &w->sum;
    long double hi = e->wide ? e->whi : (long double)e->hi, lo = e->wide ? e->wlo : (long double)e->lo;
    long double r = hi + lo;
    if (!isfinite(r))
        return r;
    long double bb = r - hi;
    long double err = (hi - (r - bb)) + (lo - bb);
    if (err == 0)
        return r;
    if (r == 0)
        return nextafterl(r, err); /* the least subnormal, odd, toward the exact value */
    long double toward_zero = (err > 0) == (r > 0) ? r : nextafterl(r, 0);
    int exp;
    long double mant = frexpl(fabsl(toward_zero), &exp);
    uint64_t low_bit = (uint64_t)ldexpl(mant, 64) & 1u;
    return low_bit ? toward_zero : nextafterl(toward_zero, copysignl(INFINITY, toward_zero));
}

static void store(const walker *w, void *out, size_t i)
{
    if (w->floating)
        wk_ref_store(out, i, w->dtype, w->op == WK_SUM ? exact_prefix(w) : w->ext);
    else
        wk_ref_int_put(out, i, wk_dtype_size(w->dtype), w->bits);
}

/* ----------------------------------------------------------- exact sum */

void wk_ref_exact_sum_add(wk_ref_exact_sum *e, double x) { wk_ref_exact_sum_push(e, x); }

long double wk_ref_exact_sum_value(const wk_ref_exact_sum *e)
{
    return e->wide ? e->whi + e->wlo : (long double)e->hi + e->lo;
}

long double wk_ref_exact_sum_abs(const wk_ref_exact_sum *e) { return e->wide ? e->wabs : e->abs; }

/* --------------------------------------------------------------- scans */

wk_status wk_ref_scan_validate(const void *in, const void *out, size_t n, const wk_ref_scan_spec *spec)
{
    if (!spec || (n > 0 && (!in || !out)))
        return WK_ERROR_INVALID_ARGUMENT;
    wk_status st = wk_ref_dtype_op_status(spec->dtype, spec->op);
    if (st == WK_SUCCESS && wk_op_is_arg(spec->op))
        st = WK_ERROR_UNSUPPORTED;
    return st;
}

wk_status wk_ref_scan(const void *h_in, void *h_out, size_t n, const wk_ref_scan_spec *spec)
{
    wk_status st = wk_ref_scan_validate(h_in, h_out, n, spec);
    if (st != WK_SUCCESS)
        return st;
    walker w;
    walker_start(&w, spec);
    for (size_t i = 0; i < n; i++) {
        if (spec->exclusive) {
            /* Read x_i before out[i] is written: h_out may be h_in. */
            walker before = w;
            push(&w, h_in, i);
            store(&before, h_out, i);
        } else {
            push(&w, h_in, i);
            store(&w, h_out, i);
        }
    }
    return WK_SUCCESS;
}

/* The exact rule's test, in exact int64 arithmetic: every element an
 * integer of magnitude at most limit (so the conversion is exact), and the
 * spread of the prefixes plus |init| at most limit. The loop stops as soon
 * as the spread passes the limit, so the prefixes stay below 3 * 2^53. */
WK_REF_KERNEL int integer_spread_fits(const void *in, size_t n, wk_ref_float_loader load, double limit,
                                      int64_t init_abs)
{
    int64_t prefix = 0, lowest = 0, highest = 0, bound = (int64_t)limit;
    for (size_t i = 0; i < n; i++) {
        double x = load(in, i);
        /* Fails for NaN too. */
        if (!(fabs(x) <= limit))
            return 0;
        int64_t k = (int64_t)x;
        if ((double)k != x)
            return 0;
        prefix += k;
        if (prefix < lowest)
            lowest = prefix;
        if (prefix > highest)
            highest = prefix;
        if (highest - lowest + init_abs > bound)
            return 0;
    }
    return 1;
}

int wk_ref_scan_sums_exact(const void *h_in, size_t n, const wk_ref_scan_spec *spec)
{
    if (!spec || wk_ref_scan_validate(h_in, h_in, n, spec) != WK_SUCCESS || spec->op != WK_SUM ||
        !wk_dtype_is_float(spec->dtype))
        return 0;
    double limit = spec->dtype == WK_F64 ? 0x1p53 : 0x1p24;
    double init = spec->exclusive ? fabs((double)wk_ref_load(&spec->init, 0, spec->dtype)) : 0;
    if (!(init <= limit) || (double)(int64_t)init != init)
        return 0;
    int64_t init_abs = (int64_t)init;
    switch (spec->dtype) {
    case WK_F32: return integer_spread_fits(h_in, n, wk_ref_float_f32, limit, init_abs);
    case WK_F64: return integer_spread_fits(h_in, n, wk_ref_float_f64, limit, init_abs);
    case WK_F16: return integer_spread_fits(h_in, n, wk_ref_float_f16, limit, init_abs);
    case WK_BF16: return integer_spread_fits(h_in, n, wk_ref_float_bf16, limit, init_abs);
    default: return 0;
    }
}

size_t wk_ref_scan_depth(const wk_tile_plan *plan, const wk_ref_scan_spec *spec, size_t i)
{
    if (!plan || !spec)
        return 0;
    if (!spec->exclusive)
        return wk_scan_plan_depth(plan, i);
    return i == 0 ? 0 : wk_scan_plan_depth(plan, i - 1) + 1;
}

