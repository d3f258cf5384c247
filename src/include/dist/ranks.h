/* The arithmetic of ranks' parts: where a rank's outputs go in the whole
 * result, and which rank's last element comes just before this rank's first.
 * Plain C, run by the exchange kernels on the device and by the CPU tests. */
#ifndef WARPKIT_DIST_RANKS_H
#define WARPKIT_DIST_RANKS_H

#include <stdint.h>

#include "warpkit_nccl.h"

#if defined(__CUDACC__)
#define WK_DIST_HD __host__ __device__
#else
#define WK_DIST_HD
#endif

/* counts[0 .. ranks): each rank's count. Sums wrap modulo 2^64, which no
 * real count reaches (a rank holds fewer than 2^63 elements). */
static inline WK_DIST_HD wk_dist_count wk_dist_place(const uint64_t *counts, int ranks, int rank)
{
    wk_dist_count c;
    c.count = counts[rank];
    c.offset = 0;
    c.total = 0;
    for (int r = 0; r < ranks; ++r) {
        if (r < rank)
            c.offset += counts[r];
        c.total += counts[r];
    }
    return c;
}

/* What one rank sends for unique: its n and its last element's bits. */
typedef struct wk_dist_tail_record {
    uint64_t n;
    uint64_t last_bits;
} wk_dist_tail_record;

/* The nearest rank below `rank` whose part is not empty, or -1 if every
 * rank below is empty. */
static inline WK_DIST_HD int wk_dist_rank_before(const wk_dist_tail_record *tails, int rank)
{
    for (int r = rank - 1; r >= 0; --r)
        if (tails[r].n > 0)
            return r;
    return -1;
}

/* An element that == never finds equal to `first` (its bits with the lowest
 * one flipped: a different integer, or a float one ulp away, which differs
 * even for the zeros; a NaN equals nothing anyway). It stands in for "no
 * element before" where the unique pass needs one. elem is 1 to 8 bytes. */
static inline WK_DIST_HD uint64_t wk_dist_unequal_bits(uint64_t first)
{
    return first ^ 1u;
}

#endif
