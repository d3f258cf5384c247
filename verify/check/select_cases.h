/* The list of select checks (modes, dtypes, compares, sizes, offsets, keep
 * patterns, special values) that the GPU tests and `warpkit verify` run,
 * and the data each case describes. Pure C: the CPU tests check the lists
 * and the data without a device. */
#ifndef WARPKIT_CHECK_SELECT_CASES_H
#define WARPKIT_CHECK_SELECT_CASES_H

#include "check/select_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes up to `cap` cases to out (if not NULL) and returns how many the
 * level has. Each case gets its own seed derived from `seed`.
 *  - quick: every dtype x mode at 0, 1, 31, 32, 33, 1023, 1024, 1025 and a
 *    few tiles, every compare on some dtypes, every keep pattern, offsets
 *    of 0 to 3 elements (flags: bytes), in place, NaN data and constants,
 *    signed zeros, infinities, edge constants, and once per dtype the large
 *    tile shape; seconds, also under the sanitizers;
 *  - full: adds every compare for every dtype and predicate mode, more
 *    small sizes, powers of two and their neighbours up to 2^20 + 1, one
 *    element either side of the first tile boundaries (small tiles), of the
 *    change to large tiles and of a large-tile boundary past it, a size past
 *    16 MiB of input, unique's run lengths 1, 2, 3, 7, 32, 1000 and
 *    all-equal data, the special values at two sizes, and a case per mode
 *    over 2000 large tiles. Tiles are those of the library's planner
 *    (select/plan.h). */
size_t wk_select_cases(wk_case_level level, uint64_t seed, wk_select_case *out, size_t cap);

/* The cases over 2^31 elements, where the kernels count in 64 bits (4 to
 * 10 GiB of device memory each; they report SKIP where the device or host
 * has less free). */
size_t wk_select_huge_cases(uint64_t seed, wk_select_case *out, size_t cap);

/* Whether the case's data is drawn to keep element i (unique: to start a
 * run there). The reference's verdict on the data of
 * wk_select_case_data must agree at every i: the CPU tests check that. */
int wk_select_case_keeps(const wk_select_case *c, size_t i);

/* Fills h_in[0 .. c->n) with the case's elements and, for select_flagged,
 * h_flags[0 .. c->n) with its flags (a random nonzero byte where kept, 0
 * elsewhere; h_flags is not used by other modes and may be NULL). Element
 * i depends only on the case and i, so a failure can be rebuilt.
 * Predicate modes draw each element inside or outside the predicate's
 * region as the keep pattern says, an eighth of the time at each end of
 * the part of the region drawn from (the values next to a constant, and
 * the dtype's extremes); select_flagged's elements are random bit patterns
 * (NaN payloads included; a bool's 0 or 1); unique's start a run with a
 * value unequal to the previous element and repeat it (zeros with either
 * sign) otherwise. Bools hold 0 and 1 only, and their predicates' constants
 * too. */
void wk_select_case_data(const wk_select_case *c, void *h_in, uint8_t *h_flags);

/* The reference spec of the case's call. */
wk_ref_select_spec wk_select_case_spec(const wk_select_case *c);

/* "f16  select_if      n=1025       in+1 out+3     less -1.5 (0xbe00) keep 50% +nan" */
void wk_describe_select_case(const wk_select_case *c, char *buf, size_t size);

/* "0%", "1%", "50%", "99%", "100%", "alternate", "blocks", "every"; "?". */
const char *wk_keep_pattern_name(wk_keep_pattern keep);
/* "" for WK_SELECT_PLAIN, else " +nan", " nan constant", ...; " +?". */
const char *wk_select_special_name(wk_select_special special);

#ifdef __cplusplus
}
#endif

#endif
