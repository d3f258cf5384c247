/* The seed of a CPU test that draws random inputs: WK_SEED's or the
 * clock's, printed on the first line so that a failure can be replayed and
 * again on the closing line beside the tally. */
#ifndef WARPKIT_TESTS_CPU_SEEDED_TEST_H
#define WARPKIT_TESTS_CPU_SEEDED_TEST_H

#include <inttypes.h>
#include <stdio.h>

#include "ref/generate.h"
#include "test_util.h"

static inline uint64_t wk_seeded_start(void)
{
    uint64_t seed = wk_seed_from_time();
    printf("seed 0x%016" PRIx64 " (set WK_SEED=0x%" PRIx64 " to replay)\n", seed, seed);
    return seed;
}

/* Prints the closing line and returns the exit status. */
static inline int wk_seeded_finish(uint64_t seed, const wk_tally *t)
{
    printf("seed 0x%016" PRIx64 ": %d passed, %d failed\n", seed, t->passed, t->failed);
    return t->failed == 0 ? 0 : 1;
}

#endif
