/* Reproducible random test data.
 *
 * Element i depends only on (seed, i), so a failure seen with one seed can be
 * rebuilt exactly, at any n, and any slice can be regenerated on its own.
 */
#ifndef WARPKIT_REF_GENERATE_H
#define WARPKIT_REF_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counter-based generator (splitmix64 mixing): the i-th 64-bit draw of the
 * stream named by seed. */
uint64_t wk_rand64(uint64_t seed, uint64_t i);

/* A seed for "fresh random inputs each run", from the clock. The WK_SEED
 * environment variable, when set to a number (strtoull, base 0: decimal or
 * 0x hex), overrides it so that a printed seed can be replayed. */
uint64_t wk_seed_from_time(void);

typedef enum {
    WK_GEN_UNIFORM,    /* floats in [-1, 1); integers over their full range      */
    WK_GEN_SMALL_INTS, /* whole numbers in [-8, 8] ([0, 16] unsigned): many ties */
    WK_GEN_CONSTANT,   /* one WK_GEN_UNIFORM value, repeated                     */
    WK_GEN_POSITIVE    /* floats in [0.5, 1); integers in [0, 1000] ([0, 100]
                          for 8-bit ones)                                        */
} wk_gen_pattern;

/* Fills h_out[0 .. n) with elements of dtype drawn per pattern from seed.
 * Float values are exact in the dtype (no rounding into or out of the
 * range). WK_BOOL elements are 0 or 1, equally likely, for every pattern
 * (WK_GEN_CONSTANT: one of them repeated). Does nothing for an unknown
 * dtype or pattern. */
void wk_generate(void *h_out, size_t n, wk_dtype dtype, wk_gen_pattern pattern,
                 uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
