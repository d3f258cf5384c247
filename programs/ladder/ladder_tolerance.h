/* How far a ladder kernel's float sum may be from the exact sum. */
#ifndef WARPKIT_LADDER_TOLERANCE_H
#define WARPKIT_LADDER_TOLERANCE_H

#include "warpkit.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rounded additions between an input element and the result for a kernel
 * that adds `serial` elements one after another in each thread and then
 * combines them in a tree: the tree has ceil(log2 n) levels, and the two
 * extra steps cover the hand-over between passes and the final store. */
size_t wk_ladder_depth(size_t n, size_t serial);

/* A sum whose every element passes through at most `depth` rounded
 * additions differs from the exact sum by at most depth * u * sum|x| (to
 * first order), u being the unit roundoff: 2^-53 for f64, 2^-24 for f32.
 * Integers must match exactly: 0. */
double wk_ladder_tolerance(wk_dtype dtype, size_t depth, double abs_sum);

#ifdef __cplusplus
}
#endif

#endif
