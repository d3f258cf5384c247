/* What the scan reference and its checker share beyond the element
 * loaders (ref/elements.h): the exact running sum, inlined into the loops
 * that walk whole inputs, and the argument checks. Private to verify/ref. */
#ifndef WARPKIT_REF_SCAN_ELEMENTS_H
#define WARPKIT_REF_SCAN_ELEMENTS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "ref/elements.h"
#include "ref/scan_reference.h"
#include "warpkit.h"

/* wk_ref_exact_sum_add, inlined into the loops that walk whole inputs. */
static inline void wk_ref_exact_sum_push_wide(wk_ref_exact_sum *e, long double x)
{
    long double s = e->whi + x;
    if (isfinite(s)) {
        long double bb = s - e->whi;
        e->wlo += (e->whi - (s - bb)) + (x - bb);
    } else {
        e->wlo = 0;
    }
    e->whi = s;
    e->wabs += fabsl(x);
}

WK_REF_KERNEL void wk_ref_exact_sum_push(wk_ref_exact_sum *e, double x)
{
    if (!e->wide) {
        double s = e->hi + x, a = e->abs + fabs(x);
        if (isfinite(s) && isfinite(a)) {
            /* Knuth's TwoSum: s + err == hi + x exactly. */
            double bb = s - e->hi;
            e->lo += (e->hi - (s - bb)) + (x - bb);
            e->hi = s;
            e->abs = a;
            return;
        }
        if (!isfinite(x) || !isfinite(e->hi)) {
            /* An infinity or NaN: the prefix is that from here on. */
            e->hi = s;
            e->lo = 0;
            e->abs = a;
            return;
        }
        e->wide = 1;
        e->whi = e->hi;
        e->wlo = e->lo;
        e->wabs = e->abs;
    }
    wk_ref_exact_sum_push_wide(e, x);
}

/* The argument checks of wk_ref_scan (see there), for its checker too. */
wk_status wk_ref_scan_validate(const void *in, const void *out, size_t n, const wk_ref_scan_spec *spec);

#endif
