/* CPU reference for wk_inclusive_scan and wk_exclusive_scan, for the tests
 * and `warpkit verify`.
 *
 * It follows warpkit.h's semantics, except that float sums are computed
 * exactly (compensated prefixes, wk_ref_exact_sum below: a double-double,
 * far below the GPU's rounding) and each output is that prefix rounded
 * once to the dtype, where the GPU
 * rounds in its float or double accumulator along the way.
 * wk_ref_check_scan therefore compares float sums with a tolerance derived
 * from the GPU's rounding depth at each output (scan/plan.h), or exactly
 * where no rounding can have happened (the exact rule below), and
 * everything else exactly.
 */
#ifndef WARPKIT_REF_SCAN_REFERENCE_H
#define WARPKIT_REF_SCAN_REFERENCE_H

#include <stddef.h>

#include "scan/plan.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a scan computes: the arguments of wk_inclusive_scan and
 * wk_exclusive_scan other than the data. */
typedef struct wk_ref_scan_spec {
    wk_dtype dtype;
    wk_op op;
    int exclusive;  /* 0: inclusive scan; otherwise exclusive, starting at init */
    wk_value init;  /* the exclusive scan's init: the dtype's member of the
                       union, raw bits for f16 / bf16; unused when inclusive */
} wk_ref_scan_spec;

/* The reference scan of h_in[0 .. n) into h_out[0 .. n) (host memory, same
 * dtype; h_out == h_in is fine). Integer results wrap to the dtype; float
 * sums are the exact prefix rounded once to the dtype; min / max are NaN
 * from the first NaN on (and from the start if an exclusive init is NaN).
 * Returns WK_ERROR_INVALID_ARGUMENT (NULL spec, or NULL pointers with
 * n > 0), WK_ERROR_INVALID_DTYPE, WK_ERROR_INVALID_OP or WK_ERROR_UNSUPPORTED
 * (arg ops; bitwise ops on float dtypes), checked in that order, and then
 * writes nothing. n = 0 writes nothing. */
wk_status wk_ref_scan(const void *h_in, void *h_out, size_t n, const wk_ref_scan_spec *spec);

/* The exact rule: 1 when spec is a float sum whose every intermediate value,
 * in any order of evaluation, is an integer that its accumulator holds
 * exactly, so that the GPU's outputs must equal the exact prefixes rounded
 * once to the dtype. That holds when the init (exclusive scans) and every
 * element are integers, and |init| + (max prefix - min prefix) is at most
 * 2^24 (float accumulation: f32, f16, bf16) or 2^53 (f64), the prefixes
 * including the empty one, 0: every sum over a contiguous range of elements,
 * with or without the init, is then bounded by it. 0 otherwise, including
 * for other ops and integer dtypes. */
int wk_ref_scan_sums_exact(const void *h_in, size_t n, const wk_ref_scan_spec *spec);

/* A running float sum kept exact: hi + lo is the sum of everything added
 * (TwoSum in double; lo gathers what each addition to hi rounded away, good
 * to about 2^-100 of the sum of |x|), and abs the sum of |x|. Once a double
 * would overflow although every element so far is finite, the sum goes on
 * in long double (whi + wlo, wabs; `wide` set). An infinity or NaN makes
 * the sum that from there on. Start from all zeros. The scan reference, its
 * checker and the ladder's checks all take their exact prefixes from it. */
typedef struct wk_ref_exact_sum {
    double hi, lo, abs;
    int wide;
    long double whi, wlo, wabs;
} wk_ref_exact_sum;

void wk_ref_exact_sum_add(wk_ref_exact_sum *e, double x);
/* The sum (hi + lo, rounded to long double) and the sum of |x|. */
long double wk_ref_exact_sum_value(const wk_ref_exact_sum *e);
long double wk_ref_exact_sum_abs(const wk_ref_exact_sum *e);

/* Rounding depth of output i: wk_scan_plan_depth(plan, i) for an inclusive
 * scan; for an exclusive one 0 at i = 0 (the init, stored as it is) and
 * wk_scan_plan_depth(plan, i - 1) + 1 after (the init adds one operation).
 * 0 when plan is NULL. */
size_t wk_ref_scan_depth(const wk_tile_plan *plan, const wk_ref_scan_spec *spec, size_t i);

/* How many mismatches wk_ref_check_scan describes in its message. */
#define WK_REF_SCAN_SHOWN 4
/* wk_ref_check_scan's result when it cannot check (invalid arguments). */
#define WK_REF_SCAN_INVALID ((size_t)-1)

/* Compares got[0 .. n) (the GPU's output, host copy) with the reference scan
 * of h_in[0 .. n). Every output is checked. Float sums: under the exact rule
 * exactly; otherwise output i within wk_ref_sum_matches of the exact prefix
 * (sum |x| including |init|) at wk_ref_scan_depth(plan, spec, i), plan being
 * the launch's (wk_plan_scan_for of the pointers, element size and device
 * the GPU used). The exclusive scan's output 0 must be the init itself. Everything else exactly. Floats
 * compare by value: NaN matches any NaN, -0 matches +0.
 *
 * Returns the number of mismatching outputs (0: the output is right), or
 * WK_REF_SCAN_INVALID. Always writes one line to msg: the rule used and
 * either that all outputs match or how many do not, with the first
 * WK_REF_SCAN_SHOWN of them (index, expected, got, and for float sums the
 * exact prefix, the tolerance and the depth). */
size_t wk_ref_check_scan(const void *h_in, const void *got, size_t n, const wk_ref_scan_spec *spec,
                         const wk_tile_plan *plan, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif
