/* The list of wk_reduce checks: which dtypes, ops, sizes, offsets and data
 * patterns the GPU tests and `warpkit verify` run. */
#ifndef WARPKIT_CHECK_REDUCE_CASES_H
#define WARPKIT_CHECK_REDUCE_CASES_H

#include "check/reduce_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes up to `cap` cases to out (if not NULL) and returns how many the
 * level has. Each case gets its own seed derived from `seed`. sm_count is the
 * device's: the full level adds the sizes where the launch shape changes on
 * that device. */
size_t wk_reduce_cases(wk_case_level level, int sm_count, uint64_t seed, wk_reduce_case *out, size_t cap);

/* The cases over 2^31 elements (several GiB each). */
size_t wk_reduce_huge_cases(uint64_t seed, wk_reduce_case *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
