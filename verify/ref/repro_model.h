/* References for the reproducible sum, on the host:
 *  - the model: the partial one accumulator makes of an input, element by
 *    element, with the kernels' arithmetic (repro/binned.h); the GPU must
 *    give its bits for every launch shape, offset and split;
 *  - the exact sum: a fixed-point accumulator wide enough for every double,
 *    rounded to nearest even by code of its own, for checking the model's
 *    accuracy independently of binned.h. */
#ifndef WARPKIT_REF_REPRO_MODEL_H
#define WARPKIT_REF_REPRO_MODEL_H

#include "repro/binned.h"
#include "warpkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element i of a float array as a double (exact for every float dtype). */
double wk_model_element(const void *in, size_t i, wk_dtype dtype);

/* The partial of in[0 .. n) (a float dtype), accumulated in index order. */
void wk_model_repro(const void *in, size_t n, wk_dtype dtype, wk_rp *out);

/* A partial rounded to the dtype, as its bits (low bytes of the result). */
uint64_t wk_model_round(const wk_rp *p, wk_dtype dtype);

/* The exact sum of x[0 .. n) (finite doubles) rounded to nearest even in
 * the dtype, as its bits; +0.0 for an exact zero. */
uint64_t wk_exact_sum_bits(const double *x, size_t n, wk_dtype dtype);

/* |exact sum of x - r|, rounded up to a double (finite x and r). */
double wk_exact_error(const double *x, size_t n, double r);

/* The bits of a float dtype's value as a double, and the distance to the
 * next value away from zero (an ulp at |v|). */
double wk_bits_value(uint64_t bits, wk_dtype dtype);
double wk_ulp_at(double v, wk_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif
