/* The list of scan checks: which dtypes, ops, scan kinds, sizes, offsets,
 * inits and data patterns the GPU tests and `warpkit verify` run. */
#ifndef WARPKIT_CHECK_SCAN_CASES_H
#define WARPKIT_CHECK_SCAN_CASES_H

#include "check/scan_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes up to `cap` cases to out (if not NULL) and returns how many the
 * level has. Each case gets its own seed derived from `seed`.
 *  - quick: every dtype x op x inclusive / exclusive at small and odd sizes
 *    (0, 1, 31, 32, 33, 1023, 1024, 1025, primes, a few tiles, and once
 *    per dtype the large tile shape), input and output offsets of 0 to 3
 *    elements independently, in place, NaN and extremes, exact float sums;
 *    the 8- and 16-bit integers half the small sizes inclusive and the
 *    other half exclusive, bools (u8's kernels) a few cases per op that
 *    check their own semantics;
 *  - full: adds offsets across a whole vector, powers of two and their
 *    neighbours up to 2^24 + 7, sizes one either side of tile boundaries
 *    and of the change of tile shape, 5000 tiles, NaN / infinities /
 *    extremes / ties / all-equal data at
 *    several sizes, uniform floats (the tolerance path) beside small
 *    integers (the exact rule), and inits other than the identity. Every
 *    float sum of more than 2^20 elements runs on small integers, alone
 *    or as the twin of a uniform case of the same call, so that an element
 *    lost or counted twice shows at every large size.
 * A sum of bools, which the library refuses, has one case per scan kind
 * at either level: the check expects the refusal. */
size_t wk_scan_cases(wk_case_level level, uint64_t seed, wk_scan_case *out, size_t cap);

/* The cases over 2^31 elements (8 to 16 GiB of device memory each; they
 * report SKIP where the device or host has less free). */
size_t wk_scan_huge_cases(uint64_t seed, wk_scan_case *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
