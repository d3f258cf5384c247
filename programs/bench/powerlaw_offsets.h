/* Segment offsets whose lengths follow a power law, for the segmented
 * benchmark's offsets case (powerlaw_offsets.c). */
#ifndef WARPKIT_BENCH_POWERLAW_OFFSETS_H
#define WARPKIT_BENCH_POWERLAW_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The law's exponent, the cap on a length and the seed the benchmark uses. */
#define WK_POWERLAW_ALPHA 1.1
#define WK_POWERLAW_MAX_LENGTH ((size_t)1 << 24)
#define WK_POWERLAW_SEED UINT64_C(0x5e9a1e7)

/*
 * Cuts n elements into segments whose lengths are drawn one after another,
 * from `seed`, from a discrete Pareto law:
 *
 *     P(length >= s) = s^-1.1  for every integer s >= 1,
 *
 * capped at 2^24 (a draw above the cap counts as 2^24), until the lengths
 * add up to n: the last length is cut so that they add up to exactly n.
 * Every segment has at least one element.
 *
 * Returns the number of segments, count. With `offsets` not NULL, it also
 * writes count + 1 offsets: offsets[0] = 0, offsets[i + 1] = offsets[i] +
 * length i, offsets[count] = n; segment i is [offsets[i], offsets[i + 1]).
 * The same n and seed give the same segments, so a first call with NULL
 * sizes the array for a second.
 */
size_t wk_powerlaw_offsets(size_t n, uint64_t seed, int64_t *offsets);

#ifdef __cplusplus
}
#endif

#endif
