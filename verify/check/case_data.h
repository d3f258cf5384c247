/* What a check's input holds beyond the generator's pattern: special values
 * planted at places drawn from the case's seed, and names for both. */
#ifndef WARPKIT_CHECK_CASE_DATA_H
#define WARPKIT_CHECK_CASE_DATA_H

#include "ref/generate.h"
#include "warpkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values planted into the generated data. */
typedef enum wk_special {
    WK_SPECIAL_NONE,
    WK_SPECIAL_NAN,      /* a few NaNs at random places (float dtypes)            */
    WK_SPECIAL_INF,      /* +inf at one place, -inf at another (float dtypes)     */
    WK_SPECIAL_POS_INF,  /* +inf at two places: sums stay +inf, ties for argmax   */
    WK_SPECIAL_EXTREMES, /* the dtype's largest and lowest values, twice each     */
    WK_SPECIAL_AT_END,   /* the largest value last, the lowest just before it     */
    WK_SPECIAL_EDGE_NAN  /* +inf, -inf, and NaNs of either sign whose payload is  */
                         /* the smallest (just past inf's bits) (float dtypes)    */
} wk_special;

/* Plants `special` into h[0 .. n) of dtype, at places drawn from seed. */
void wk_plant_specials(void *h, size_t n, wk_dtype dtype, wk_special special, uint64_t seed);

/* The dtype's largest finite value and its lowest (most negative) one; a
 * bool's are 1 and 0. */
long double wk_dtype_largest(wk_dtype dtype);
long double wk_dtype_lowest(wk_dtype dtype);

/* "uniform", "small-ints", ...; "" for WK_SPECIAL_NONE, else " +nan", ... */
const char *wk_pattern_name(wk_gen_pattern pattern);
const char *wk_special_name(wk_special special);

#ifdef __cplusplus
}
#endif

#endif
