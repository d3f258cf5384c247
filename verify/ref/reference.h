/* CPU reference for wk_reduce, for the tests and `warpkit verify`.
 *
 * Results use wk_reduce's layout (wk_reduce_result_size bytes: the dtype's
 * value, or a wk_arg_result for the arg ops) and follow warpkit.h's
 * semantics, except that float sums are computed far more precisely than the
 * GPU does (long double, rounded once to the dtype); wk_ref_check_reduce
 * therefore compares float sums with a tolerance derived from the GPU's
 * summation depth, and everything else exactly.
 */
#ifndef WARPKIT_REF_REFERENCE_H
#define WARPKIT_REF_REFERENCE_H

#include <stddef.h>

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element i of data as long double (exact for every dtype). An unknown
 * dtype reads as NaN. */
long double wk_ref_load(const void *data, size_t i, wk_dtype dtype);

/* Stores v as element i of data. Floats round to nearest even, once, even
 * for f16 / bf16 (no double rounding through float). Integers truncate
 * toward zero and wrap modulo 2^64, then to the dtype's width; NaN and
 * infinities store 0. An unknown dtype stores nothing. */
void wk_ref_store(void *data, size_t i, wk_dtype dtype, long double v);

/* Writes the n = 0 result of (dtype, op) to out, wk_reduce_result_size bytes.
 * For arg ops the bytes of the value union the dtype does not use are zero.
 * Writes nothing for an unknown dtype or op, and zeros for bitwise ops on
 * float dtypes (which have no identity: wk_reduce refuses them). */
void wk_ref_identity(wk_dtype dtype, wk_op op, void *out);

/* The library's first checks of a call's dtype and op, in its order:
 * WK_ERROR_INVALID_DTYPE, WK_ERROR_INVALID_OP, WK_ERROR_UNSUPPORTED for a
 * bitwise op on a float dtype, else WK_SUCCESS. */
wk_status wk_ref_dtype_op_status(wk_dtype dtype, wk_op op);

/* The reference reduce of h_in[0 .. n) into h_out (host memory). Returns
 * WK_ERROR_INVALID_DTYPE, WK_ERROR_INVALID_OP, WK_ERROR_UNSUPPORTED (bitwise
 * op on a float dtype) or WK_ERROR_INVALID_ARGUMENT (NULL h_out, or NULL
 * h_in with n > 0), checked in that order, and then writes nothing. */
wk_status wk_ref_reduce(const void *h_in, size_t n, wk_dtype dtype, wk_op op,
                        void *h_out);

/* Bound on |GPU float sum - exact sum| for a summation tree of the given
 * depth: depth * u_acc * abs_sum + u_out * |ref| + half the output dtype's
 * least subnormal, where u_acc is the unit roundoff of the accumulator (float
 * for f32, f16, bf16; double for f64), u_out that of the output dtype, and
 * abs_sum = sum |x_i|. 0 for non-float dtypes. */
double wk_ref_sum_tolerance(wk_dtype dtype, size_t depth, long double abs_sum,
                            long double ref);

/* Whether got, a float sum in dtype read back as long double, matches a sum
 * whose exact value is ref, with sum |x| = abs_sum, produced with the given
 * depth: NaN needs NaN, an infinite ref the same infinity, a ref that
 * certainly overflows the dtype the matching infinity (and one that may,
 * either); anything else within wk_ref_sum_tolerance. Writes that tolerance
 * to *tol and a short name of the rule applied to *rule (either may be
 * NULL). Used by the reduce and the scan checks alike. */
int wk_ref_sum_matches(wk_dtype dtype, size_t depth, long double ref, long double abs_sum, long double got,
                       double *tol, const char **rule);

/* Compares got (a wk_reduce result, same layout) with the reference for
 * h_in[0 .. n). depth is wk_reduce_plan_depth() of the launch that produced
 * got; only float sums use it. Returns 1 on a match, 0 otherwise (including
 * invalid arguments), and always writes one line to msg: expected, got, and
 * the tolerance for float sums. */
int wk_ref_check_reduce(const void *h_in, size_t n, wk_dtype dtype, wk_op op,
                        size_t depth, const void *got, char *msg,
                        size_t msg_size);

/* A result (same layout) for humans: the value, then "@index" for arg ops;
 * f16 / bf16 values also show their bit pattern. */
void wk_ref_format(wk_dtype dtype, wk_op op, const void *result, char *buf,
                   size_t size);

#ifdef __cplusplus
}
#endif

#endif
