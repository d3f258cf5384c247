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
 * toward zero and wrap modulo 2^64, then to the dtype's width (a bool as a
 * u8: the caller keeps it to 0 or 1); NaN and infinities store 0. An
 * unknown dtype stores nothing. */
void wk_ref_store(void *data, size_t i, wk_dtype dtype, long double v);

/* Writes the n = 0 result of (dtype, op) to out, wk_reduce_result_size bytes.
 * For arg ops the bytes of the value union the dtype does not use are zero.
 * A bool's identities are bools: 1 for MIN and AND ("all" of nothing), 0
 * for MAX, OR, XOR. Writes nothing for an unknown dtype or op, and zeros
 * for bitwise ops on float dtypes (which have no identity: wk_reduce
 * refuses them). */
void wk_ref_identity(wk_dtype dtype, wk_op op, void *out);

/* The library's first checks of a call's dtype and op, in its order:
 * WK_ERROR_INVALID_DTYPE, WK_ERROR_INVALID_OP, WK_ERROR_UNSUPPORTED for a
 * bitwise op on a float dtype or a sum of bools, else WK_SUCCESS. */
wk_status wk_ref_dtype_op_status(wk_dtype dtype, wk_op op);

/* The reference reduce of h_in[0 .. n) into h_out (host memory). Returns
 * WK_ERROR_INVALID_DTYPE, WK_ERROR_INVALID_OP, WK_ERROR_UNSUPPORTED (bitwise
 * op on a float dtype, sum of bools) or WK_ERROR_INVALID_ARGUMENT (NULL
 * h_out, or NULL h_in with n > 0), checked in that order, and then writes
 * nothing. WK_BOOL inputs hold bytes 0 and 1 and reduce as u8. */
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
 * f16 / bf16 values also show their bit pattern, a bool its byte. */
void wk_ref_format(wk_dtype dtype, wk_op op, const void *result, char *buf,
                   size_t size);

/* ------------------------------------------------------------ widening */

/* The pairs whose sum wk_reduce_to keeps, as warpkit.h lists them (written
 * out here, not asked of the library): out == in except bool; bool, u8,
 * i8, i16, u16 into i32, u32, i64, u64; i32, u32 into i64, u64; f16, bf16
 * into f32; f32 into f64. 0 for anything else, unknown dtypes included. */
int wk_ref_sum_widens(int in, int out);

/* wk_reduce_to's checks of its dtypes, in its order:
 * WK_ERROR_INVALID_DTYPE for either unknown, WK_ERROR_UNSUPPORTED for a
 * pair wk_ref_sum_widens refuses, else WK_SUCCESS. */
wk_status wk_ref_reduce_to_status(wk_dtype in_dtype, wk_dtype out_dtype);

/* The reference of wk_reduce_to: the sum of h_in[0 .. n) (in_dtype) kept
 * as out_dtype, one element of it written to h_out (any alignment).
 * Integers exactly, modulo 2^bits of out_dtype: each element zero- or
 * sign-extended (a bool counts its ones). Floats: the sum in long double,
 * far more precise than the GPU's (see wk_ref_check_reduce_to), rounded
 * once to out_dtype. out_dtype == in_dtype is wk_ref_reduce's sum; n = 0
 * gives 0 (+0.0). Returns what wk_ref_reduce_to_status does, then
 * WK_ERROR_INVALID_ARGUMENT for NULL h_out, or NULL h_in with n > 0; then
 * writes nothing. */
wk_status wk_ref_reduce_to(const void *h_in, size_t n, wk_dtype in_dtype, wk_dtype out_dtype, void *h_out);

/* For a float pair: the long double sum of h_in[0 .. n) and sum |x|, what
 * wk_ref_sum_matches takes with out_dtype. The statuses of
 * wk_ref_reduce_to, and WK_ERROR_INVALID_ARGUMENT for NULL pointers or an
 * integer out_dtype. */
wk_status wk_ref_reduce_to_sums(const void *h_in, size_t n, wk_dtype in_dtype, wk_dtype out_dtype,
                                long double *sum, long double *abs_sum);

/* Compares got (one element of out_dtype, as wk_reduce_to wrote it) with
 * the reference: integers exactly; floats as wk_ref_check_reduce checks a
 * sum of out_dtype, by wk_ref_sum_matches with out_dtype's accumulator and
 * unit roundoff (f32 for f16 / bf16 inputs, whose float accumulation is
 * not rounded back; f64 for f32 inputs) at the given depth of the launch
 * (wk_reduce_plan_depth over the input's dtype). out_dtype == in_dtype is
 * wk_ref_check_reduce's sum. Returns 1 on a match, 0 otherwise (invalid
 * arguments included), and always writes one line to msg. */
int wk_ref_check_reduce_to(const void *h_in, size_t n, wk_dtype in_dtype, wk_dtype out_dtype, size_t depth,
                           const void *got, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif
